from otter.test_files import test_case

OK_FORMAT = False

name = "coverage-below-10"
points = None

@test_case(points=None, hidden=False, 
    success_message="Right: above that coverage model C is wrong on 10 % or more of what it answers.", 
    failure_message="Not yet: look for the LARGEST coverage on the grid whose risk is below 0.10 (answering more is better), for model C.")
def test_coverage_below_10(coverage_below_10, score_c, y_rc, coverages):
    from selfconf import metrics
    risk = metrics.risk_coverage(score_c, y_rc, coverages=tuple(coverages))
    want = max((cv for cv, rk in risk.items() if rk < 0.1))
    assert isinstance(coverage_below_10, float), 'coverage_below_10 is not a number yet'
    assert abs(coverage_below_10 - want) < 1e-09, f'at {coverage_below_10} the answer is not the largest such coverage'

