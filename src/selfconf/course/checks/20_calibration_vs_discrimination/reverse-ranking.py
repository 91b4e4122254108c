from otter.test_files import test_case

OK_FORMAT = False

name = "reverse-ranking"
points = None

@test_case(points=None, hidden=False, 
    success_message="Right: the same CITL as model A, and the AUROC is one minus A's.", 
    failure_message="Not yet: conf_rev should be 1 - conf_a moved by one constant so that its mean equals conf_a's mean.")
def test_reverse_ranking(conf_rev, conf_a, correct):
    import numpy as np
    from selfconf import metrics
    assert isinstance(conf_rev, np.ndarray) and conf_rev.shape == conf_a.shape, 'conf_rev is not an array like conf_a yet'
    assert abs(metrics.citl(conf_rev, correct) - metrics.citl(conf_a, correct)) < 1e-12, "its CITL is not model A's"
    assert np.ptp(conf_rev + conf_a) < 1e-12, 'conf_rev is not 1 - conf_a plus a constant'
    assert abs(metrics.auroc(conf_rev, correct) - (1 - metrics.auroc(conf_a, correct))) < 1e-12

