from otter.test_files import test_case

OK_FORMAT = False

name = "constant-90"
points = None

@test_case(points=None, hidden=False, 
    success_message="Right: all four agree with selfconf.metrics.", 
    failure_message="Not yet: one answer in one bin gives ECE = |CITL|; the Brier score averages (c - y)^2 over right AND wrong answers; every pair is a tie.")
def test_constant_90(citl_90, ece_90, brier_90, auroc_90, ex_c, ex_y):
    from selfconf import metrics
    got = {'citl_90': citl_90, 'ece_90': ece_90, 'brier_90': brier_90, 'auroc_90': auroc_90}
    want = {'citl_90': metrics.citl(ex_c, ex_y), 'ece_90': metrics.ece(ex_c, ex_y), 'brier_90': metrics.brier(ex_c, ex_y), 'auroc_90': metrics.auroc(ex_c, ex_y)}
    for k in got:
        assert isinstance(got[k], (int, float)), f'{k} is not a number yet'
        assert abs(got[k] - want[k]) < 1e-09, f'{k} = {got[k]:.4f} is not right'

