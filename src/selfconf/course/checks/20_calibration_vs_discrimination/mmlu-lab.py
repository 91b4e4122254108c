from otter.test_files import test_case

OK_FORMAT = False

name = "mmlu-lab"
points = None

@test_case(points=None, hidden=False, 
    success_message="Right: compare it with 1 - the mean confidence of those answers.", 
    failure_message="Not yet: keep only the answers with confidence >= 0.8 before taking the share wrong; the AUROC uses all of the model's answers.")
def test_mmlu_lab(wrong_share_80, auroc_gpt4o, mmlu_graded):
    from selfconf import metrics
    g = mmlu_graded[mmlu_graded['model'] == 'gpt-4o-2024-08-06']
    assert isinstance(wrong_share_80, float), 'wrong_share_80 is not a number yet'
    want = metrics.high_conf_error_rate(g['confidence'], g['correct'], threshold=0.8)
    assert abs(wrong_share_80 - want) < 1e-09, f'{wrong_share_80:.4f} is not the share wrong among confidence >= 0.8'
    assert isinstance(auroc_gpt4o, float) and abs(auroc_gpt4o - metrics.auroc(g['confidence'], g['correct'])) < 1e-12

