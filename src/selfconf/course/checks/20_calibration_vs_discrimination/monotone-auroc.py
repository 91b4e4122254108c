from otter.test_files import test_case

OK_FORMAT = False

name = "monotone-auroc"
points = None

@test_case(points=0, hidden=False, 
    success_message="Right: the ranking and so the AUROC are unchanged, the ECE is not.", 
    failure_message="Not yet: the transform must keep every pair of distinct values of [0, 1] in the same order (and distinct), map 0 and 1 into [0, 1], and change the ECE; ece_after and auroc_after are computed on conf_after.")
def test_monotone_auroc(my_transform, conf_after, ece_after, auroc_after, conf_a, correct):
    from selfconf.course import verify
    verify.monotone_auroc(my_transform, conf_after, ece_after, auroc_after, conf_a, correct)

