from otter.test_files import test_case

OK_FORMAT = False

name = "isotonic-ties"
points = None

@test_case(points=None, hidden=False, 
    success_message="Right: fewer levels than model A states, and a different AUROC.", 
    failure_message="Not yet: count the distinct values AFTER the fit, and score the fitted values, not the stated ones.")
def test_isotonic_ties(n_levels_fit, auroc_fit, conf_a, correct):
    import numpy as np
    from sklearn.isotonic import IsotonicRegression
    from selfconf import metrics
    fit = IsotonicRegression(y_min=0.0, y_max=1.0, out_of_bounds='clip').fit_transform(conf_a, correct)
    assert isinstance(n_levels_fit, int), 'n_levels_fit is not a whole number yet'
    assert n_levels_fit == np.unique(fit).size, f'{n_levels_fit} is not the number of distinct fitted values'
    assert isinstance(auroc_fit, float) and abs(auroc_fit - metrics.auroc(fit, correct)) < 1e-12, 'auroc_fit is not right yet'

