"""The makemore WaveNet (tests/programs/makemore_wavenet.py) under PyTorch and under ferrotorch
with only the import changed: its hand-written layers and Sequential, and the same network
built from torch.nn.Sequential, give PyTorch's losses step by step from the same initial
weights (handed over through safetensors) and the same minibatch indices."""

import numpy as np
import pytest
from program_runner import load_program, through_safetensors

import ferrotorch as torch
from torch_oracle import needs_torch, pt, to_ft

pytestmark = needs_torch
STEPS = 80


@pytest.fixture(scope="module")
def programs():
    return load_program("makemore_wavenet", "torch"), load_program("makemore_wavenet", "ferrotorch")


@pytest.fixture(scope="module")
def data(programs):
    mod_pt, _ = programs
    words = load_program("makemore_mlp", "torch").make_names()
    stoi = {s: i + 1 for i, s in enumerate(sorted(set("".join(words))))}
    stoi["."] = 0
    x, y = mod_pt.build_dataset(words, stoi, 8)
    ix = np.random.default_rng(1).integers(0, x.shape[0], size=(STEPS, 32))
    return len(stoi), x, y, ix


def test_hand_written_layers_match_pytorch(programs, data, tmp_path):
    mod_pt, mod_ft = programs
    vocab, x, y, ix = data
    model_pt, params_pt = mod_pt.build_model(vocab)
    model_ft, params_ft = mod_ft.build_model(vocab)
    assert [tuple(p.shape) for p in params_ft] == [tuple(p.shape) for p in params_pt]
    loaded = through_safetensors({str(i): p for i, p in enumerate(params_pt)}, tmp_path / "wavenet.safetensors")
    with torch.no_grad():
        for i, p in enumerate(params_ft):
            p.copy_(loaded[str(i)])
    lt = mod_pt.train(model_pt, params_pt, x, y, max_steps=STEPS, batch_indices=pt.from_numpy(ix))
    lo = mod_ft.train(model_ft, params_ft, to_ft(x), to_ft(y), max_steps=STEPS, batch_indices=torch.from_numpy(ix))
    np.testing.assert_allclose(lo, lt, rtol=2e-4, atol=1e-5)
    assert np.mean(lo[-10:]) < np.mean(lo[:10])
    for a, b in zip(params_ft, params_pt):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=2e-3, atol=2e-5)
    for layer_ft, layer_pt in zip(model_ft.layers, model_pt.layers):
        if isinstance(layer_pt, mod_pt.BatchNorm1d):
            assert tuple(layer_ft.running_mean.shape) == tuple(layer_pt.running_mean.shape)
            np.testing.assert_allclose(layer_ft.running_var.numpy(), layer_pt.running_var.numpy(), rtol=1e-3, atol=1e-5)
    assert mod_ft.split_loss(model_ft, to_ft(x), to_ft(y)) == pytest.approx(mod_pt.split_loss(model_pt, x, y), rel=1e-4)
    assert all(layer.training for layer in model_ft.layers if hasattr(layer, "training"))


def test_torch_nn_sequential_version_matches_pytorch(programs, data, tmp_path):
    mod_pt, mod_ft = programs
    vocab, x, y, ix = data
    pt.manual_seed(0)
    theirs, ours = mod_pt.build_torch_model(vocab), mod_ft.build_torch_model(vocab)
    assert repr(ours) == repr(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    ours.load_state_dict(through_safetensors(theirs.state_dict(), tmp_path / "seq.safetensors"))
    lt = mod_pt.train_torch_model(theirs, x, y, max_steps=STEPS, batch_indices=pt.from_numpy(ix))
    lo = mod_ft.train_torch_model(ours, to_ft(x), to_ft(y), max_steps=STEPS, batch_indices=torch.from_numpy(ix))
    np.testing.assert_allclose(lo, lt, rtol=2e-4, atol=1e-5)
    for (n, a), (_, b) in zip(ours.state_dict().items(), theirs.state_dict().items()):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=2e-3, atol=2e-5, err_msg=n)
    ours.eval()
    theirs.eval()
    with torch.no_grad(), pt.no_grad():
        np.testing.assert_allclose(ours(to_ft(x[:64])).numpy(), theirs(x[:64]).numpy(), rtol=1e-3, atol=1e-4)


def test_main_trains(programs):
    _, mod_ft = programs
    words = load_program("makemore_mlp", "ferrotorch").make_names()
    losses = mod_ft.main(words, max_steps=600)
    # PyTorch's own run of the same script: train 1.83, val 2.01 after 600 steps.
    assert losses["train"] < 2.0 and losses["val"] < 2.2, losses
