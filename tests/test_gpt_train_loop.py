"""The minimal-GPT training script of tests/programs/gpt_train_loop.py — GradScaler,
torch.amp.autocast, torch.compile, allow_tf32 flags, set_float32_matmul_precision,
torch.utils.checkpoint per block, decay/no-decay AdamW groups, gradient accumulation and
clipping — runs unchanged on ferrotorch with PyTorch's losses from the same weights and data."""

import warnings

import numpy as np
import pytest
from program_runner import load_program

import ferrotorch as torch
from torch_oracle import needs_torch, pt, to_ft

pytestmark = needs_torch


@pytest.fixture(scope="module")
def programs():
    return load_program("gpt_train_loop", "torch"), load_program("gpt_train_loop", "ferrotorch")


def _pair(programs, **config):
    mod_pt, mod_ft = programs
    pt.manual_seed(0)
    theirs = mod_pt.GPT(mod_pt.GPTConfig(**config))
    ours = mod_ft.GPT(mod_ft.GPTConfig(**config))
    ours.load_state_dict({k: to_ft(v) for k, v in theirs.state_dict().items()})
    batches = mod_pt.make_batches(12, 4, 16, 48)
    return theirs, ours, batches, [(to_ft(x), to_ft(y)) for x, y in batches]


@pytest.mark.parametrize("config", [{}, {"flash": False}, {"grad_checkpoint": True}, {"bias": False, "grad_checkpoint": True}])
@pytest.mark.parametrize("compile", [True, False])
def test_same_losses_as_pytorch(programs, config, compile):
    mod_pt, mod_ft = programs
    theirs, ours, b_pt, b_ft = _pair(programs, **config)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch.cuda.amp.GradScaler's deprecation notice
        # PyTorch runs eagerly: its inductor compile costs a minute and computes the same losses.
        lt, raw_pt = mod_pt.train(theirs, b_pt, compile=False)
        lo, raw_ft = mod_ft.train(ours, b_ft, compile=compile)
    np.testing.assert_allclose(lo, lt, rtol=2e-4)
    assert lo[-1] < lo[0]
    assert raw_ft is ours and list(raw_ft.state_dict()) == list(raw_pt.state_dict())
    for (n, a), (_, b) in zip(raw_ft.state_dict().items(), raw_pt.state_dict().items()):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=2e-3, atol=2e-5, err_msg=n)
    np.testing.assert_allclose(mod_ft.estimate_loss(raw_ft, b_ft[:3]), mod_pt.estimate_loss(raw_pt, b_pt[:3]), rtol=2e-4)


def test_bfloat16_autocast_tracks_pytorch(programs):
    mod_pt, mod_ft = programs
    theirs, ours, b_pt, b_ft = _pair(programs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        lt, _ = mod_pt.train(theirs, b_pt, dtype="bfloat16", compile=False)
        lo, _ = mod_ft.train(ours, b_ft, dtype="bfloat16", compile=False)
    # bfloat16 matmuls: both runs round alike but not identically.
    np.testing.assert_allclose(lo, lt, rtol=2e-2)
    assert lo[-1] < lo[0]


def test_compiled_module_and_generation(programs):
    _, mod_ft = programs
    torch.manual_seed(0)
    model = mod_ft.GPT(mod_ft.GPTConfig())
    compiled = torch.compile(model)
    assert compiled._orig_mod is model
    assert all(k.startswith("_orig_mod.") for k in compiled.state_dict())
    out = model.generate(torch.zeros(2, 1, dtype=torch.long), 20, top_k=5, generator=torch.Generator().manual_seed(1))
    assert tuple(out.shape) == (2, 21) and int(out.min()) >= 0 and int(out.max()) < 48
    assert model.get_num_params() == sum(p.numel() for p in model.parameters()) - model.transformer.wpe.weight.numel()
