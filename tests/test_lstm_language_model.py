"""The packed-sequence LSTM language model of tests/programs/lstm_language_model.py builds as
under PyTorch, computes the same losses and weights from the same start, and learns."""

import numpy as np
import pytest
from program_runner import load_program

import ferrotorch as torch
from torch_oracle import needs_torch, pt, to_ft

pytestmark = needs_torch


@pytest.fixture(scope="module")
def programs():
    return load_program("lstm_language_model", "torch"), load_program("lstm_language_model", "ferrotorch")


def test_structure_matches_pytorch(programs):
    mod_pt, mod_ft = programs
    theirs, ours = mod_pt.LanguageModel(20, num_layers=3), mod_ft.LanguageModel(20, num_layers=3)
    assert [(n, tuple(p.shape)) for n, p in ours.named_parameters()] == [(n, tuple(p.shape)) for n, p in theirs.named_parameters()]
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert repr(ours) == repr(theirs)
    assert ours.decoder.weight is ours.embedding.weight


def test_same_losses_and_weights_as_pytorch(programs):
    mod_pt, mod_ft = programs
    pt.manual_seed(0)
    theirs = mod_pt.LanguageModel(20, dropout=0.0).double()
    ours = mod_ft.LanguageModel(20, dropout=0.0).double()
    ours.load_state_dict({k: to_ft(v) for k, v in theirs.state_dict().items()})
    corpus = mod_pt.synthetic_corpus(48)
    lt = mod_pt.train(theirs, corpus, epochs=2, batch_size=8)
    lo = mod_ft.train(ours, [to_ft(s) for s in corpus], epochs=2, batch_size=8)
    np.testing.assert_allclose(lo, lt, rtol=1e-9)
    for (n, a), (_, b) in zip(ours.state_dict().items(), theirs.state_dict().items()):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-8, atol=1e-10, err_msg=n)
    # The program takes exp of a float32 tensor: equal to float32 rounding.
    np.testing.assert_allclose(mod_ft.perplexity(ours, [to_ft(s) for s in corpus]), mod_pt.perplexity(theirs, corpus), rtol=1e-6)


def test_to_keeps_tied_weights_tied(programs):
    _, mod_ft = programs
    model = mod_ft.LanguageModel(20).double()
    assert model.decoder.weight is model.embedding.weight
    assert [n for n, _ in model.named_parameters()].count("decoder.weight") == 0


def test_learns(programs):
    _, mod_ft = programs
    torch.manual_seed(0)
    corpus = mod_ft.synthetic_corpus(128)
    model = mod_ft.LanguageModel(20)
    before = mod_ft.perplexity(model, corpus)
    mod_ft.train(model, corpus, epochs=4, batch_size=16, lr=0.02)
    after = mod_ft.perplexity(model, corpus)
    assert after < 0.5 * before, (before, after)
