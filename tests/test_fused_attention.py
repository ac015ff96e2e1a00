"""scaled_dot_product_attention through the fused kernel (one node; 64-query blocks, the
backward recomputing each tile from the rows' log-sum-exp) against PyTorch: values and all
three gradients, causal and not, L != S, several blocks with a remainder, value width !=
query width, an explicit scale, strided views of one QKV projection, float32 and float64,
a gradcheck and a double backward."""

from __future__ import annotations

from typing import Any, List, Optional, Tuple

import numpy as np
import pytest

import ferrotorch as ft
from ferrotorch.nn.modules.scaled_dot_product_attention import fused_usable
from torch_oracle import needs_torch, pt


def _run(L: Any, arrays: Tuple[np.ndarray, ...], causal: bool, scale: Optional[float]) -> List[np.ndarray]:
    q, k, v, g = arrays
    Q, K, V = (L.tensor(a, requires_grad=True) for a in (q, k, v))
    if L is pt and causal and scale is not None and scale < 0:
        # PyTorch's is_causal kernel gives NaN for a negative scale (the masked -inf scores
        # scaled to +inf); its documented equivalent, the lower-triangular mask, does not.
        mask = pt.ones(q.shape[-2], k.shape[-2], dtype=pt.bool).tril()
        o = L.nn.functional.scaled_dot_product_attention(Q, K, V, attn_mask=mask, scale=scale)
    else:
        o = L.nn.functional.scaled_dot_product_attention(Q, K, V, is_causal=causal, scale=scale)
    (o * L.tensor(g)).sum().backward()
    return [o.detach().numpy(), Q.grad.numpy(), K.grad.numpy(), V.grad.numpy()]


# (query shape, keys S, value width Ev)
SHAPES = [
    ((2, 3, 10, 5), 10, 5),
    ((1, 130, 3), 130, 4),  # three blocks, the last of two queries
    ((2, 1, 64, 2), 64, 3),  # exactly one block
    ((3, 12, 4), 70, 6),  # L < S
    ((1, 2, 75, 7), 9, 7),  # L > S: the rows past S see every key when causal
    ((1, 1, 1), 1, 1),
]


@needs_torch
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape,s,ev", SHAPES)
@pytest.mark.parametrize("causal", [True, False])
@pytest.mark.parametrize("scale", [None, 0.3, -1.5])
def test_fused_attention_matches_pytorch(shape: Tuple[int, ...], s: int, ev: int, dtype: str, causal: bool, scale: Any) -> None:
    rng = np.random.default_rng(len(shape) * 100 + s + ev)
    kshape = shape[:-2] + (s, shape[-1])
    arrays = (
        rng.standard_normal(shape).astype(dtype),
        rng.standard_normal(kshape).astype(dtype),
        rng.standard_normal(kshape[:-1] + (ev,)).astype(dtype),
        rng.standard_normal(shape[:-1] + (ev,)).astype(dtype),
    )
    assert fused_usable(*(ft.tensor(a) for a in arrays[:3]), 0.0)
    tol = 2e-5 if dtype == "float32" else 1e-11
    for what, ours, theirs in zip(("output", "grad q", "grad k", "grad v"), _run(ft, arrays, causal, scale), _run(pt, arrays, causal, scale)):
        np.testing.assert_allclose(ours, theirs, rtol=tol, atol=tol, err_msg=what)


@needs_torch
@pytest.mark.parametrize("causal", [True, False])
def test_fused_attention_reads_strided_heads_in_place(causal: bool) -> None:
    """Heads cut from one [B, T, 3, H, D] projection by permute (the minimal-GPT idiom)."""
    rng = np.random.default_rng(3)
    b, t, h, d = 2, 70, 3, 8
    x = rng.standard_normal((b, t, 3 * h * d)).astype("float32")
    g = rng.standard_normal((b, h, t, d)).astype("float32")
    results = []
    for L in (ft, pt):
        X = L.tensor(x, requires_grad=True)
        q, k, v = X.view(b, t, 3, h, d).permute(2, 0, 3, 1, 4).unbind(0)
        assert not q.is_contiguous()
        o = L.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal)
        (o * L.tensor(g)).sum().backward()
        results.append((o.detach().numpy(), X.grad.numpy()))
    for ours, theirs in zip(*results):
        np.testing.assert_allclose(ours, theirs, rtol=2e-5, atol=2e-5)


@needs_torch
def test_fused_attention_propagates_nan_and_inf_as_pytorch() -> None:
    q = np.ones((1, 3, 2), dtype="float32")
    k = q.copy()
    k[0, 1, 0] = np.nan
    v = np.arange(6, dtype="float32").reshape(1, 3, 2)
    for causal in (True, False):
        ours = ft.nn.functional.scaled_dot_product_attention(ft.tensor(q), ft.tensor(k), ft.tensor(v), is_causal=causal)
        theirs = pt.nn.functional.scaled_dot_product_attention(pt.tensor(q), pt.tensor(k), pt.tensor(v), is_causal=causal)
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), equal_nan=True)


@pytest.mark.parametrize("causal", [True, False])
def test_fused_attention_gradcheck_and_double_backward(causal: bool) -> None:
    q = ft.randn(1, 2, 9, 3, dtype=ft.float64, requires_grad=True)
    k = ft.randn(1, 2, 7, 3, dtype=ft.float64, requires_grad=True)
    v = ft.randn(1, 2, 7, 4, dtype=ft.float64, requires_grad=True)

    def attend(a: Any, b: Any, c: Any) -> Any:
        return ft.nn.functional.scaled_dot_product_attention(a, b, c, is_causal=causal, scale=0.7)

    assert attend(q, k, v).grad_fn is not None
    assert ft.autograd.gradcheck(attend, (q, k, v))
    assert ft.autograd.gradgradcheck(attend, (q, k, v))


def test_fused_path_not_taken_where_it_does_not_apply() -> None:
    q = ft.randn(1, 12, 4)
    assert fused_usable(q, q, q, 0.0)
    assert not fused_usable(q, q, q, 0.1)  # dropout
    assert not fused_usable(q.half(), q.half(), q.half(), 0.0)  # half: the composed path
    assert not fused_usable(q, q.double(), q, 0.0)  # mixed dtypes
    assert not fused_usable(q, ft.randn(2, 12, 4), ft.randn(2, 12, 4), 0.0)  # broadcast batch
    assert not fused_usable(q[:, :0], q, q, 0.0)  # zero-size


def test_fused_attention_rejects_what_it_does_not_take() -> None:
    q = ft.randn(1, 4, 3)
    with pytest.raises(RuntimeError, match="scaled_dot_product_attention"):
        ft._core._fused_attention(q, ft.randn(1, 4, 2), q, 1.0, False)
    with pytest.raises(RuntimeError, match="float32 or float64"):
        ft._core._fused_attention(q.half(), q.half(), q.half(), 1.0, False)


def test_fused_attention_keeps_no_score_matrix_for_the_backward() -> None:
    """Only q, k, v, the output and the [*, L] log-sum-exps are saved, whatever the length."""
    q = ft.randn(1, 1, 2048, 8, requires_grad=True)
    o = ft.nn.functional.scaled_dot_product_attention(q, q, q, is_causal=True)
    assert o.grad_fn.name() == "ScaledDotProductFlashAttentionForCpuBackward0"
    o.sum().backward()
    assert q.grad.shape == q.shape


def _masked_run(L: Any, arrays: Tuple[np.ndarray, ...], mask: np.ndarray, scale: Optional[float]) -> List[np.ndarray]:
    q, k, v, g = arrays
    Q, K, V = (L.tensor(a, requires_grad=True) for a in (q, k, v))
    o = L.nn.functional.scaled_dot_product_attention(Q, K, V, attn_mask=L.tensor(mask), scale=scale)
    (o * L.tensor(g)).sum().backward()
    return [o.detach().numpy(), Q.grad.numpy(), K.grad.numpy(), V.grad.numpy()]


def _mask_of(kind: str, mshape: Tuple[int, ...], rng: Any, dtype: str) -> np.ndarray:
    keep = rng.random(mshape) > 0.3
    if kind == "bool":
        return keep
    vals = rng.standard_normal(mshape).astype(dtype)
    return np.where(keep, vals, -np.inf).astype(dtype)


# (query shape, keys S, mask shape)
MASKED = [
    ((2, 3, 10, 5), 10, (10, 10)),
    ((2, 3, 10, 5), 12, (2, 1, 10, 12)),
    ((2, 3, 70, 4), 9, (2, 3, 70, 9)),
    ((1, 66, 3), 5, (1, 5)),
    ((3, 7, 4), 7, (7,)),
]


@needs_torch
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape,s,mshape", MASKED)
@pytest.mark.parametrize("kind", ["bool", "float"])
def test_fused_masked_attention_matches_pytorch(shape: Tuple[int, ...], s: int, mshape: Tuple[int, ...], dtype: str, kind: str) -> None:
    rng = np.random.default_rng(len(shape) * 7 + s)
    kshape = shape[:-2] + (s, shape[-1])
    arrays = (
        rng.standard_normal(shape).astype(dtype),
        rng.standard_normal(kshape).astype(dtype),
        rng.standard_normal(kshape).astype(dtype),
        rng.standard_normal(shape).astype(dtype),
    )
    mask = _mask_of(kind, mshape, rng, dtype)
    tol = 2e-5 if dtype == "float32" else 1e-11
    for what, ours, theirs in zip(("output", "grad q", "grad k", "grad v"), _masked_run(ft, arrays, mask, 0.4), _masked_run(pt, arrays, mask, 0.4)):
        np.testing.assert_allclose(ours, theirs, rtol=tol, atol=tol, err_msg=what)


@needs_torch
@pytest.mark.parametrize("kind", ["bool", "float"])
def test_fused_masked_attention_wholly_masked_rows(kind: str) -> None:
    """Rows whose mask blocks every key give zeros and pass no gradient, as PyTorch's."""
    rng = np.random.default_rng(11)
    arrays = tuple(rng.standard_normal((1, 2, 6, 3)).astype("float32") for _ in range(4))
    keep = rng.random((6, 6)) > 0.5
    keep[2] = False
    keep[0, 0] = True
    mask = keep if kind == "bool" else np.where(keep, 0.0, -np.inf).astype("float32")
    ours, theirs = _masked_run(ft, arrays, mask, None), _masked_run(pt, arrays, mask, None)
    assert np.all(ours[0][..., 2, :] == 0)
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a, b, rtol=2e-5, atol=2e-5)


def test_fused_masked_gradcheck_and_double_backward() -> None:
    q = ft.randn(1, 2, 5, 3, dtype=ft.float64, requires_grad=True)
    k = ft.randn(1, 2, 4, 3, dtype=ft.float64, requires_grad=True)
    v = ft.randn(1, 2, 4, 2, dtype=ft.float64, requires_grad=True)
    mask = ft.tensor([[True, False, True, True], [False] * 4, [True] * 4, [False, False, False, True], [True, True, False, False]])
    additive = ft.randn(2, 5, 4, dtype=ft.float64)

    for m in (mask, additive):
        def attend(a: Any, b: Any, c: Any, m: Any = m) -> Any:
            return ft.nn.functional.scaled_dot_product_attention(a, b, c, attn_mask=m)

        assert attend(q, k, v).grad_fn.name() == "ScaledDotProductFlashAttentionForCpuBackward0"
        assert ft.autograd.gradcheck(attend, (q, k, v))
        assert ft.autograd.gradgradcheck(attend, (q, k, v))


@needs_torch
def test_mask_requiring_grad_takes_the_composed_path() -> None:
    rng = np.random.default_rng(5)
    arrays = [rng.standard_normal((1, 4, 3)).astype("float32") for _ in range(3)]
    m = rng.standard_normal((4, 4)).astype("float32")
    grads = []
    for L in (ft, pt):
        M = L.tensor(m, requires_grad=True)
        o = L.nn.functional.scaled_dot_product_attention(*(L.tensor(a) for a in arrays), attn_mask=M)
        o.square().sum().backward()
        grads.append(M.grad.numpy())
    np.testing.assert_allclose(grads[0], grads[1], rtol=2e-5, atol=2e-5)
