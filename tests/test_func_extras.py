"""torch.func.linearize, functionalize, debug_unwrap, replace_all_batch_norm_modules_ and
rearrange against PyTorch's."""

from __future__ import annotations

import numpy as np
import pytest

import ferrotorch as torch
from torch_oracle import needs_torch, pt

pytestmark = needs_torch


def arr(*shape, seed=0):
    return np.random.RandomState(seed).randn(*shape)


def f_two(lib, x, y):
    return lib.sin(x) * y + x.pow(2).sum()


def test_linearize_matches_jvp_of_torch():
    x, y, tx, ty = arr(3), arr(3, seed=1), arr(3, seed=2), arr(3, seed=3)
    out, jvp_fn = torch.func.linearize(lambda a, b: f_two(torch, a, b), torch.tensor(x), torch.tensor(y))
    out_p, jvp_p = pt.func.linearize(lambda a, b: f_two(pt, a, b), pt.tensor(x), pt.tensor(y))
    np.testing.assert_allclose(out.numpy(), out_p.numpy(), atol=1e-12)
    for t in [(tx, ty), (ty, tx)]:
        np.testing.assert_allclose(
            jvp_fn(*map(torch.tensor, t)).numpy(), jvp_p(*map(pt.tensor, t)).detach().numpy(), atol=1e-12
        )


def test_linearize_rejects_wrong_tangent_shape():
    _, jvp_fn = torch.func.linearize(torch.sin, torch.zeros(3))
    with pytest.raises(RuntimeError):
        jvp_fn(torch.zeros(4))


def test_functionalize_keeps_results_and_checks_remove():
    def f(x):
        y = x.clone()
        y.add_(1)
        y.mul_(2)
        return y

    x = arr(4)
    np.testing.assert_allclose(torch.func.functionalize(f)(torch.tensor(x)).numpy(), pt.func.functionalize(f)(pt.tensor(x)).numpy())
    torch.func.functionalize(f, remove="mutations_and_views")
    with pytest.raises(RuntimeError):
        torch.func.functionalize(f, remove="nothing")
    with pytest.raises(RuntimeError):
        pt.func.functionalize(f, remove="nothing")


def test_debug_unwrap_returns_the_tensor():
    t = torch.ones(2)
    assert torch.func.debug_unwrap(t) is t


def test_replace_all_batch_norm_modules_like_torch():
    def build(lib):
        return lib.nn.Sequential(lib.nn.Conv2d(2, 3, 1), lib.nn.BatchNorm2d(3), lib.nn.Sequential(lib.nn.BatchNorm1d(4)))

    ours, theirs = build(torch), build(pt)
    assert torch.func.replace_all_batch_norm_modules_(ours) is ours
    pt.func.replace_all_batch_norm_modules_(theirs)
    for a, b in zip(ours.modules(), theirs.modules()):
        for attr in ("running_mean", "running_var", "num_batches_tracked", "track_running_stats"):
            assert (getattr(a, attr, "absent") is None) == (getattr(b, attr, "absent") is None)
            if attr == "track_running_stats" and hasattr(b, attr):
                assert getattr(a, attr) == getattr(b, attr)
    # Without running statistics, eval mode normalizes with the batch's own statistics.
    x = arr(5, 3, 2, 2).astype(np.float32)
    ours.eval()
    theirs.eval()
    np.testing.assert_allclose(ours[1](torch.tensor(x)).detach().numpy(), theirs[1](pt.tensor(x)).detach().numpy(), atol=1e-5)


PATTERNS = [
    ((2, 3, 4), "b h w -> b (h w)", {}),
    ((2, 3, 4), "b h w -> w b h", {}),
    ((2, 12), "b (h w) -> b h w", {"h": 3}),
    ((2, 12), "b (h w) -> b w h", {"w": 4}),
    ((2, 3, 4, 5), "b ... c -> b c ...", {}),
    ((2, 3, 4, 5), "... c -> (...) c", {}),
    ((2, 3, 4), "b h w -> b 1 h w", {}),
    ((2, 1, 4), "b 1 w -> b w", {}),
    ((2, 1, 4), "b () w -> (b w)", {}),
    ((6, 4), "(b1 b2) w -> b2 (b1 w)", {"b1": 2}),
    ((3,), "a -> a", {}),
    ((0, 3), "a b -> b a", {}),
]


@pytest.mark.parametrize("shape,pattern,lengths", PATTERNS)
def test_rearrange_matches_torch(shape, pattern, lengths):
    x = arr(*shape) if 0 not in shape else np.zeros(shape)
    ours = torch.func.rearrange(torch.tensor(x), pattern, **lengths)
    theirs = pt.func.rearrange(pt.tensor(x), pattern, **lengths)
    assert tuple(ours.shape) == tuple(theirs.shape)
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


def test_rearrange_of_a_list_stacks_first():
    xs = [arr(3, 4, seed=i) for i in range(2)]
    ours = torch.func.rearrange([torch.tensor(x) for x in xs], "n h w -> h (n w)")
    theirs = pt.func.rearrange([pt.tensor(x) for x in xs], "n h w -> h (n w)")
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


@pytest.mark.parametrize(
    "shape,pattern,lengths",
    [((2, 3), "a b c -> a b c", {}), ((2, 12), "b (h w) -> b h w", {}), ((2, 12), "b (h w) -> b h w", {"h": 5}), ((2, 3), "a b -> a", {}), ((2, 3), "a b", {})],
)
def test_rearrange_errors_like_torch(shape, pattern, lengths):
    with pytest.raises(Exception) as theirs:
        pt.func.rearrange(pt.zeros(shape), pattern, **lengths)
    with pytest.raises(Exception) as ours:
        torch.func.rearrange(torch.zeros(shape), pattern, **lengths)
    assert type(ours.value).__name__ == type(theirs.value).__name__
