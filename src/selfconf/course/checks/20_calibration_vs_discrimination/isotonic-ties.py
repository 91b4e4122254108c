from otter.test_files import test_case

OK_FORMAT = False

name = "isotonic-ties"
points = None

@test_case(points=0, hidden=False, 
    success_message="Right: fewer levels than model B states, and a different AUROC.", 
    failure_message="Not yet: count the distinct values AFTER the fit, and score the fitted values, not the stated ones.")
def test_isotonic_ties(n_levels_fit, auroc_fit, conf_b, correct):
    from selfconf.course import verify
    verify.isotonic_ties(n_levels_fit, auroc_fit, conf_b, correct)

