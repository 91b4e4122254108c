from otter.test_files import test_case

OK_FORMAT = False

name = "brier-decomposition"
points = None

@test_case(points=None, hidden=False, 
    success_message="Right: your three terms add up to model B's Brier score.", 
    failure_message="Not yet: reliability compares each stated value with the accuracy of ITS group; resolution compares the group accuracies with the overall accuracy.")
def test_brier_decomposition(rel_b, res_b, unc_b, conf_b, correct):
    from selfconf import metrics
    d = metrics.brier_decomposition(conf_b, correct)
    for name, got, key in (('rel_b', rel_b, 'reliability'), ('res_b', res_b, 'resolution'), ('unc_b', unc_b, 'uncertainty')):
        assert isinstance(got, float), f'{name} is not a number yet'
        assert abs(got - d[key]) < 1e-09, f'{name} = {got:.5f} is not the {key} term'
    assert abs(rel_b - res_b + unc_b - metrics.brier(conf_b, correct)) < 1e-09

