from otter.test_files import test_case

OK_FORMAT = False

name = "brier-decomposition"
points = None

@test_case(points=0, hidden=False, 
    success_message="Right: your three terms add up to model B's Brier score.", 
    failure_message="Not yet: reliability compares each stated value with the accuracy of ITS group; resolution compares the group accuracies with the overall accuracy.")
def test_brier_decomposition(rel_b, res_b, unc_b, conf_b, correct):
    from selfconf.course import verify
    verify.brier_decomposition(rel_b, res_b, unc_b, conf_b, correct)

