from otter.test_files import test_case

OK_FORMAT = False

name = "ece-by-hand"
points = None

@test_case(points=None, hidden=False, 
    success_message="Right: your ECE equals metrics.ece(conf_a, correct).", 
    failure_message="Not yet: ece_hand should be the share-weighted mean of |mean confidence - accuracy| over the ten bins of model A.")
def test_ece_hand(ece_hand, conf_a, correct):
    from selfconf import metrics
    assert isinstance(ece_hand, (int, float)) and (not isinstance(ece_hand, bool)), 'ece_hand is not a number yet'
    assert abs(ece_hand - metrics.ece(conf_a, correct)) < 1e-09, f'ece_hand = {ece_hand:.4f} is not the ten-bin ECE'

