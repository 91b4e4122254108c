from otter.test_files import test_case

OK_FORMAT = False

name = "constant-90"
points = None

@test_case(points=0, hidden=False, 
    success_message="Right: all four agree with selfconf.metrics.", 
    failure_message="Not yet: one answer in one bin gives ECE = |CITL|; the Brier score averages (c - y)^2 over right AND wrong answers; every pair is a tie.")
def test_constant_90(citl_90, ece_90, brier_90, auroc_90, ex_c, ex_y):
    from selfconf.course import verify
    verify.constant_90(citl_90, ece_90, brier_90, auroc_90, ex_c, ex_y)

