from otter.test_files import test_case

OK_FORMAT = False

name = "mmlu-lab"
points = None

@test_case(points=0, hidden=False, 
    success_message="Right: compare it with 1 - the mean confidence of those answers.", 
    failure_message="Not yet: keep only the answers with confidence >= 0.8 before taking the share wrong; the AUROC uses all of the model's answers.")
def test_mmlu_lab(wrong_share_80, auroc_gpt4o, mmlu_graded):
    from selfconf.course import verify
    verify.mmlu_lab(wrong_share_80, auroc_gpt4o, mmlu_graded)

