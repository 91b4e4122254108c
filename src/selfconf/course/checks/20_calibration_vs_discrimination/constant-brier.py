from otter.test_files import test_case

OK_FORMAT = False

name = "constant-brier"
points = None

@test_case(points=0, hidden=False, 
    success_message="Right: only the uncertainty is left, p(1 - p).", 
    failure_message="Not yet: with one group whose stated value equals its accuracy, which terms vanish? Uncertainty depends on the questions only.")
def test_constant_brier(brier_const, p_one_minus_p, zero_terms, conf_const, correct):
    from selfconf.course import verify
    verify.constant_brier(brier_const, p_one_minus_p, zero_terms, conf_const, correct)

