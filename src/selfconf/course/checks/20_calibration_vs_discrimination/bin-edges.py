from otter.test_files import test_case

OK_FORMAT = False

name = "bin-edges"
points = None

@test_case(points=None, hidden=False, 
    success_message="Right: the same rows, two edge rules, two different ECEs.", 
    failure_message="Not yet: metrics.ece takes edge='upper' or edge='lower'; the ratio is larger / smaller.")
def test_bin_edges(ece_upper, ece_lower, edge_ratio, heap_c, heap_y):
    from selfconf import metrics
    up = metrics.ece(heap_c, heap_y, n_bins=10, edge='upper')
    lo = metrics.ece(heap_c, heap_y, n_bins=10, edge='lower')
    for name, got, want in (('ece_upper', ece_upper, up), ('ece_lower', ece_lower, lo), ('edge_ratio', edge_ratio, max(up, lo) / min(up, lo))):
        assert isinstance(got, float), f'{name} is not a number yet'
        assert abs(got - want) < 1e-09, f'{name} = {got:.4f} is not right'

