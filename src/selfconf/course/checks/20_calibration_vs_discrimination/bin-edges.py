from otter.test_files import test_case

OK_FORMAT = False

name = "bin-edges"
points = None

@test_case(points=0, hidden=False, 
    success_message="Right: the same rows, two edge rules, two different ECEs.", 
    failure_message="Not yet: metrics.ece takes edge='upper' or edge='lower'; the ratio is larger / smaller.")
def test_bin_edges(ece_upper, ece_lower, edge_ratio, heap_c, heap_y):
    from selfconf.course import verify
    verify.bin_edges(ece_upper, ece_lower, edge_ratio, heap_c, heap_y)

