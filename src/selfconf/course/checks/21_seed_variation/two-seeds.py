from otter.test_files import test_case

OK_FORMAT = False

name = "two-seeds"
points = None

@test_case(points=0, hidden=False, 
    success_message="Right: same rows, same estimate, two seeds, two intervals.", 
    failure_message="Not yet: two calls of bootstrap.auroc_ci on google's rows with the same n_boot, rng=1 and rng=2.")
def test_two_seeds(ci_seed_1, ci_seed_2, low_shift, rows, n_boot):
    from selfconf.course import verify
    verify.two_seeds(ci_seed_1, ci_seed_2, low_shift, rows, n_boot)

