from otter.test_files import test_case

OK_FORMAT = False

name = "monotone-auroc"
points = None

@test_case(points=None, hidden=False, 
    success_message="Right: the ranking and so the AUROC are unchanged, the ECE is not.", 
    failure_message="Not yet: the transform must keep every pair of distinct confidences in the same order (and distinct), stay in [0, 1], and change the ECE.")
def test_monotone_auroc(my_transform, auroc_after, conf_a, correct):
    import numpy as np
    from selfconf import metrics
    assert callable(my_transform), 'my_transform is not a function yet'
    levels = np.unique(conf_a)
    out = np.asarray(my_transform(levels), dtype=float)
    assert out.shape == levels.shape and np.all((out >= 0) & (out <= 1)), 'my_transform must map [0, 1] into [0, 1]'
    assert np.all(np.diff(out) > 0), "my_transform is not strictly increasing on model A's confidence levels"
    moved = metrics.ece(np.asarray(my_transform(conf_a), dtype=float), correct)
    assert abs(moved - metrics.ece(conf_a, correct)) > 0.001, 'the ECE did not move: is it the identity?'
    assert isinstance(auroc_after, float), 'auroc_after is not a number yet'
    assert abs(auroc_after - metrics.auroc(conf_a, correct)) < 1e-12, "auroc_after differs from model A's AUROC"

