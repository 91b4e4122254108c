from otter.test_files import test_case

OK_FORMAT = False

name = "coverage-below-10"
points = None

@test_case(points=0, hidden=False, 
    success_message="Right: above that coverage model C is wrong on 10 % or more of what it answers.", 
    failure_message="Not yet: look for the LARGEST coverage on the grid whose risk is below 0.10 (answering more is better), for model C.")
def test_coverage_below_10(coverage_below_10, score_c, y_rc, coverages):
    from selfconf.course import verify
    verify.coverage_below_10(coverage_below_10, score_c, y_rc, coverages)

