from otter.test_files import test_case

OK_FORMAT = False

name = "equal-mass-bins"
points = None

@test_case(points=None, hidden=False, 
    success_message="Right: tied confidences stay in one bin, so a spike swallows several quantiles.", 
    failure_message="Not yet: count the occupied bins that metrics.reliability_bins returns; quantiles that fall inside one spike are the same edge.")
def test_equal_mass_bins(n_mass_bins, heap_c, heap_y):
    from selfconf import metrics
    want = int((metrics.reliability_bins(heap_c, heap_y, n_bins=10, binning='equal_mass')['n'] > 0).sum())
    assert isinstance(n_mass_bins, int), 'n_mass_bins is not a whole number yet'
    assert n_mass_bins == want, f'{n_mass_bins} is not the number of occupied equal-mass bins'

