from otter.test_files import test_case

OK_FORMAT = False

name = "equal-mass-bins"
points = None

@test_case(points=0, hidden=False, 
    success_message="Right: tied confidences stay in one bin, so a spike swallows several quantiles.", 
    failure_message="Not yet: count the occupied bins that metrics.reliability_bins returns; quantiles that fall inside one spike are the same edge.")
def test_equal_mass_bins(n_mass_bins, heap_c, heap_y):
    from selfconf.course import verify
    verify.equal_mass_bins(n_mass_bins, heap_c, heap_y)

