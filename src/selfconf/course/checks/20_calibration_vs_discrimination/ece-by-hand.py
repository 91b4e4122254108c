from otter.test_files import test_case

OK_FORMAT = False

name = "ece-by-hand"
points = None

@test_case(points=0, hidden=False, 
    success_message="Right: your bins and your ECE agree with metrics.ece(conf_a, correct).", 
    failure_message="Not yet: n_bin counts the answers in each of the ten bins, acc_bin is the share correct in each (0 when empty), and ece_hand weights each bin's |mean confidence - accuracy| by its share of answers.")
def test_ece_by_hand(ece_hand, n_bin, acc_bin, conf_a, correct):
    from selfconf.course import verify
    verify.ece_by_hand(ece_hand, n_bin, acc_bin, conf_a, correct)

