from otter.test_files import test_case

OK_FORMAT = False

name = "reverse-ranking"
points = None

@test_case(points=0, hidden=False, 
    success_message="Right: the same CITL as model A, and the AUROC is one minus A's.", 
    failure_message="Not yet: conf_rev should be 1 - conf_a moved by one constant so that its mean equals conf_a's mean.")
def test_reverse_ranking(conf_rev, conf_a, correct):
    from selfconf.course import verify
    verify.reverse_ranking(conf_rev, conf_a, correct)

