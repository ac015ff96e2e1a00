"""The nn.Transformer sequence-to-sequence program of tests/programs/transformer_seq2seq.py
builds as under PyTorch, computes the same losses, weights and greedy decodes from the same
start (the inference path included), and learns."""

import numpy as np
import pytest
from program_runner import load_program

import ferrotorch as torch
from torch_oracle import needs_torch, pt, to_ft

pytestmark = [needs_torch, pytest.mark.filterwarnings("ignore::UserWarning")]


@pytest.fixture(scope="module")
def programs():
    return load_program("transformer_seq2seq", "torch"), load_program("transformer_seq2seq", "ferrotorch")


def test_structure_matches_pytorch(programs):
    mod_pt, mod_ft = programs
    theirs, ours = mod_pt.Seq2Seq(12), mod_ft.Seq2Seq(12)
    assert [(n, tuple(p.shape)) for n, p in ours.named_parameters()] == [(n, tuple(p.shape)) for n, p in theirs.named_parameters()]
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert repr(ours) == repr(theirs)


def test_same_losses_weights_and_decodes_as_pytorch(programs):
    mod_pt, mod_ft = programs
    pt.manual_seed(0)
    theirs = mod_pt.Seq2Seq(12, dropout=0.0).double()
    ours = mod_ft.Seq2Seq(12, dropout=0.0).double()
    ours.load_state_dict({k: to_ft(v) for k, v in theirs.state_dict().items()})
    src, tgt = mod_pt.reversal_data(64)
    lt = mod_pt.train(theirs, src, tgt, steps=4)
    lo = mod_ft.train(ours, to_ft(src), to_ft(tgt), steps=4)
    np.testing.assert_allclose(lo, lt, rtol=1e-9)
    for (n, a), (_, b) in zip(ours.state_dict().items(), theirs.state_dict().items()):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-7, atol=1e-9, err_msg=n)
    # Eval + no_grad: PyTorch's encoder runs its nested-tensor path here; the logits agree.
    with pt.no_grad():
        theirs.eval()
        logits_t = theirs(src[:8], tgt[:8, :-1])
    with torch.no_grad():
        ours.eval()
        logits_o = ours(to_ft(src[:8]), to_ft(tgt[:8, :-1]))
    np.testing.assert_allclose(logits_o.numpy(), logits_t.numpy(), rtol=1e-6, atol=1e-7)
    assert mod_ft.greedy_decode(ours, to_ft(src[:8])).tolist() == mod_pt.greedy_decode(theirs, src[:8]).tolist()


def test_learns(programs):
    _, mod_ft = programs
    torch.manual_seed(0)
    src, tgt = mod_ft.reversal_data(128)
    model = mod_ft.Seq2Seq(12, layers=1)
    losses = mod_ft.train(model, src, tgt, steps=60, lr=5e-3)
    assert np.mean(losses[-5:]) < 0.75 * np.mean(losses[:3]), losses
