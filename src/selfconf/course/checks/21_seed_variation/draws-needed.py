from otter.test_files import test_case

OK_FORMAT = False

name = "draws-needed"
points = None

@test_case(points=0, hidden=False, 
    success_message="Right: halving the error costs four times the draws.", 
    failure_message="Not yet: the SD falls like 1 / sqrt(draws); find the smallest whole number of draws with endpoint_mc_sd(google_low, google_high, draws) <= 0.0005.")
def test_draws_needed(draws_needed, google_low, google_high):
    from selfconf.course import verify
    verify.draws_needed(draws_needed, google_low, google_high)

