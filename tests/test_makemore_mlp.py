"""The makemore-style character MLP (tests/programs/makemore_mlp.py) under PyTorch and under
ferrotorch with only the import changed: the same dataset tensors, the same losses step by step
and the same split losses from the same initial weights (handed over through safetensors) and
the same minibatch indices; its seeded sampling gives valid names (the random streams differ
from PyTorch's by design, so samples are checked for validity, not value)."""

import numpy as np
import pytest
from program_runner import load_program, through_safetensors

import ferrotorch as torch
from torch_oracle import needs_torch, pt, to_ft

pytestmark = needs_torch


@pytest.fixture(scope="module")
def programs():
    return load_program("makemore_mlp", "torch"), load_program("makemore_mlp", "ferrotorch")


def test_dataset_matches_pytorch(programs):
    mod_pt, mod_ft = programs
    words = mod_pt.make_names()
    stoi, _ = mod_pt.build_vocab(words)
    for (xt, yt), (xo, yo) in zip(mod_pt.splits(words, stoi), mod_ft.splits(words, stoi)):
        assert xo.dtype == torch.int64 and yo.dtype == torch.int64
        assert tuple(xo.shape) == tuple(xt.shape) and tuple(yo.shape) == tuple(yt.shape)
        np.testing.assert_array_equal(xo.numpy(), xt.numpy())
        np.testing.assert_array_equal(yo.numpy(), yt.numpy())


@pytest.mark.parametrize("block_size,n_embd", [(3, 10), (5, 6)])
def test_same_losses_as_pytorch(programs, tmp_path, block_size, n_embd):
    mod_pt, mod_ft = programs
    words = mod_pt.make_names()
    stoi, _ = mod_pt.build_vocab(words)
    (xt, yt), (xd, yd), _ = mod_pt.splits(words, stoi, block_size)
    params_pt, buffers_pt = mod_pt.init_params(len(stoi), n_embd=n_embd, block_size=block_size)
    loaded = through_safetensors(params_pt, tmp_path / "init.safetensors")
    params_ft = {k: loaded[k].requires_grad_(True) for k in params_pt}  # the program's order
    buffers_ft = {k: to_ft(v) for k, v in buffers_pt.items()}
    steps = 120
    # Karpathy's loop draws minibatches with torch.randint(generator=g); both runs take these.
    ix = np.random.default_rng(0).integers(0, xt.shape[0], size=(steps, 32))
    lt = mod_pt.train(params_pt, buffers_pt, xt, yt, max_steps=steps, batch_indices=pt.from_numpy(ix))
    lo = mod_ft.train(params_ft, buffers_ft, to_ft(xt), to_ft(yt), max_steps=steps, batch_indices=torch.from_numpy(ix))
    np.testing.assert_allclose(lo, lt, rtol=1e-4, atol=1e-5)
    assert np.mean(lo[-20:]) < np.mean(lo[:20])
    for k in params_pt:
        np.testing.assert_allclose(params_ft[k].detach().numpy(), params_pt[k].detach().numpy(), rtol=2e-3, atol=2e-5, err_msg=k)
    for k in buffers_pt:
        np.testing.assert_allclose(buffers_ft[k].numpy(), buffers_pt[k].numpy(), rtol=1e-4, atol=1e-6, err_msg=k)
    for x, y in ((xt, yt), (xd, yd)):
        ours = mod_ft.split_loss(params_ft, buffers_ft, to_ft(x), to_ft(y))
        theirs = mod_pt.split_loss(params_pt, buffers_pt, x, y)
        assert ours == pytest.approx(theirs, rel=1e-4)
    assert torch.is_grad_enabled()  # the @torch.no_grad() decorator restored grad mode


def test_generator_draws_are_reproducible_and_in_range(programs):
    _, mod_ft = programs
    params_a, _ = mod_ft.init_params(27)
    params_b, _ = mod_ft.init_params(27)
    for k in params_a:
        assert torch.equal(params_a[k], params_b[k]), k
    assert tuple(params_a["C"].shape) == (27, 10) and params_a["C"].dtype == torch.float32
    assert float(params_a["b2"].abs().sum()) == 0.0
    g = torch.Generator().manual_seed(2147483647)
    ix = torch.randint(0, 50, (1000,), generator=g)
    assert ix.dtype == torch.int64 and int(ix.min()) >= 0 and int(ix.max()) < 50


def test_main_trains_and_samples_valid_names(programs):
    _, mod_ft = programs
    losses, names = mod_ft.main(max_steps=1500)
    # PyTorch's own run of the same script: train 1.97, val 2.13 after 1000 steps.
    assert losses["train"] < 2.2 and losses["val"] < 2.35, losses
    words = mod_ft.make_names()
    alphabet = set("".join(words))
    assert len(names) == 20
    for name in names:
        assert name.endswith(".") or len(name) == 31
        assert set(name.rstrip(".")) <= alphabet
    # Sampling with the same seeded generator twice gives the same names.
    assert names == mod_ft.main(max_steps=1500)[1]
