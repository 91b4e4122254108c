from otter.test_files import test_case

OK_FORMAT = False

name = "constant-brier"
points = None

@test_case(points=None, hidden=False, 
    success_message="Right: only the uncertainty is left, p(1 - p).", 
    failure_message="Not yet: with one group whose stated value equals its accuracy, which terms vanish? Uncertainty depends on the questions only.")
def test_constant_brier(brier_const, p_one_minus_p, zero_terms, conf_const, correct):
    from selfconf import metrics
    p = correct.mean()
    assert isinstance(brier_const, float) and abs(brier_const - metrics.brier(conf_const, correct)) < 1e-12, 'brier_const is not right yet'
    assert isinstance(p_one_minus_p, float) and abs(p_one_minus_p - p * (1 - p)) < 1e-12, 'p_one_minus_p is not right yet'
    assert isinstance(zero_terms, (set, frozenset, list, tuple)), 'zero_terms is not a set of names yet'
    assert set(zero_terms) == {'reliability', 'resolution'}, f'{set(zero_terms)} are not the zero terms'

