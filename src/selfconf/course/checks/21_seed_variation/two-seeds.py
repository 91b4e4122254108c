from otter.test_files import test_case

OK_FORMAT = False

name = "two-seeds"
points = None

@test_case(points=None, hidden=False, 
    success_message="Right: same rows, same estimate, two seeds, two intervals.", 
    failure_message="Not yet: two calls of bootstrap.auroc_ci on google's rows with the same n_boot, rng=1 and rng=2.")
def test_two_seeds(ci_seed_1, ci_seed_2, low_shift, rows, n_boot):
    from selfconf import bootstrap
    g = rows[rows['model'] == 'google']
    for name, got, s in (('ci_seed_1', ci_seed_1, 1), ('ci_seed_2', ci_seed_2, 2)):
        want = bootstrap.auroc_ci(g['confidence'], g['correct'], n_boot=n_boot, rng=s)
        assert hasattr(got, 'low') and hasattr(got, 'high'), f'{name} is not an interval yet'
        assert (got.low, got.high) == (want.low, want.high), f"{name} is not google's interval with rng={s}"
    assert isinstance(low_shift, float) and abs(low_shift - (ci_seed_2.low - ci_seed_1.low)) < 1e-15

