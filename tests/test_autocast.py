"""torch.autocast against PyTorch on CPU: output dtypes per op class (lower precision, float32,
promote, unlisted) for several input and autocast dtypes, values, gradients through the casts,
nested / disabled regions, the weight-cast cache with no_grad, the decorator form, the state
functions and the deprecated aliases."""

from __future__ import annotations

import threading
import warnings
from typing import Any, Callable, Dict, List, Tuple

import numpy as np
import pytest

import ferrotorch as torch
from torch_oracle import assert_close, needs_torch, pt, to_ft, to_pt

pytestmark = needs_torch


def lib_f(lib: Any) -> Any:
    return lib.nn.functional


def rnd(shape: Tuple[int, ...], seed: int, low: float = -1.0, high: float = 1.0) -> np.ndarray:
    return np.random.default_rng(seed).uniform(low, high, shape).astype(np.float32)


def mk(lib: Any, arr: np.ndarray, dtype: str) -> Any:
    """``arr`` as a ``lib`` tensor of dtype ``dtype`` (a name)."""
    t = lib.from_numpy(arr.copy())
    return t.to(getattr(lib, dtype))


def idx(lib: Any, values: List[int]) -> Any:
    return lib.tensor(values, dtype=lib.int64)


# Each case: (name, build(lib, dtype, dtype2) -> result). dtype applies to the first floating
# input, dtype2 to the others, so mixed-dtype inputs are covered too.
Case = Tuple[str, Callable[[Any, str, str], Any]]

LOWER: List[Case] = [
    ("mm", lambda L, d, e: L.mm(mk(L, rnd((3, 4), 1), d), mk(L, rnd((4, 5), 2), e))),
    ("matmul", lambda L, d, e: mk(L, rnd((2, 3, 4), 1), d) @ mk(L, rnd((4, 5), 2), e)),
    ("matmul_vec", lambda L, d, e: L.matmul(mk(L, rnd((4,), 1), d), mk(L, rnd((4, 3), 2), e))),
    ("bmm", lambda L, d, e: L.bmm(mk(L, rnd((2, 3, 4), 1), d), mk(L, rnd((2, 4, 5), 2), e))),
    ("baddbmm", lambda L, d, e: L.baddbmm(mk(L, rnd((2, 3, 5), 3), e), mk(L, rnd((2, 3, 4), 1), d), mk(L, rnd((2, 4, 5), 2), e), beta=0.5)),
    ("addmm", lambda L, d, e: L.addmm(mk(L, rnd((5,), 3), e), mk(L, rnd((3, 4), 1), d), mk(L, rnd((4, 5), 2), e), alpha=2.0)),
    ("addmm_method_transposed", lambda L, d, e: mk(L, rnd((3, 5), 3), d).addmm(mk(L, rnd((4, 3), 1), e).t(), mk(L, rnd((4, 5), 2), e))),
    ("linear", lambda L, d, e: lib_f(L).linear(mk(L, rnd((2, 3, 4), 1), d), mk(L, rnd((5, 4), 2), e), mk(L, rnd((5,), 3), e))),
    ("linear_nobias", lambda L, d, e: lib_f(L).linear(mk(L, rnd((3, 4), 1), d), mk(L, rnd((5, 4), 2), e))),
    ("conv1d", lambda L, d, e: lib_f(L).conv1d(mk(L, rnd((2, 3, 8), 1), d), mk(L, rnd((4, 3, 3), 2), e), mk(L, rnd((4,), 3), e), padding=1)),
    ("conv2d", lambda L, d, e: lib_f(L).conv2d(mk(L, rnd((2, 3, 6, 6), 1), d), mk(L, rnd((4, 3, 3, 3), 2), e), mk(L, rnd((4,), 3), e), stride=2)),
    ("conv2d_same", lambda L, d, e: lib_f(L).conv2d(mk(L, rnd((1, 2, 5, 5), 1), d), mk(L, rnd((3, 2, 2, 2), 2), e), padding="same")),
    ("conv3d", lambda L, d, e: lib_f(L).conv3d(mk(L, rnd((1, 2, 4, 4, 4), 1), d), mk(L, rnd((3, 2, 2, 2, 2), 2), e), mk(L, rnd((3,), 3), e))),
    ("conv_transpose1d", lambda L, d, e: lib_f(L).conv_transpose1d(mk(L, rnd((2, 3, 5), 1), d), mk(L, rnd((3, 2, 3), 2), e), mk(L, rnd((2,), 3), e), stride=2)),
    ("conv_transpose2d", lambda L, d, e: lib_f(L).conv_transpose2d(mk(L, rnd((1, 3, 4, 4), 1), d), mk(L, rnd((3, 2, 3, 3), 2), e), mk(L, rnd((2,), 3), e))),
    ("conv_transpose3d", lambda L, d, e: lib_f(L).conv_transpose3d(mk(L, rnd((1, 2, 3, 3, 3), 1), d), mk(L, rnd((2, 2, 2, 2, 2), 2), e), mk(L, rnd((2,), 3), e))),
    ("prelu", lambda L, d, e: lib_f(L).prelu(mk(L, rnd((2, 3, 4), 1), d), mk(L, rnd((3,), 2, 0.1, 0.3), e))),
    ("sdpa", lambda L, d, e: lib_f(L).scaled_dot_product_attention(mk(L, rnd((2, 3, 4), 1), d), mk(L, rnd((2, 5, 4), 2), e), mk(L, rnd((2, 5, 4), 3), e))),
    ("sdpa_causal", lambda L, d, e: lib_f(L).scaled_dot_product_attention(mk(L, rnd((1, 4, 4), 1), d), mk(L, rnd((1, 4, 4), 2), e), mk(L, rnd((1, 4, 4), 3), e), is_causal=True)),
]

FP32: List[Case] = [
    ("mse_loss", lambda L, d, e: lib_f(L).mse_loss(mk(L, rnd((3, 4), 1), d), mk(L, rnd((3, 4), 2), e))),
    ("l1_loss_sum", lambda L, d, e: lib_f(L).l1_loss(mk(L, rnd((3, 4), 1), d), mk(L, rnd((3, 4), 2), e), reduction="sum")),
    ("smooth_l1_loss", lambda L, d, e: lib_f(L).smooth_l1_loss(mk(L, rnd((3, 4), 1), d), mk(L, rnd((3, 4), 2), e), beta=0.5)),
    ("huber_loss_none", lambda L, d, e: lib_f(L).huber_loss(mk(L, rnd((3, 4), 1), d), mk(L, rnd((3, 4), 2), e), reduction="none")),
    ("binary_cross_entropy", lambda L, d, e: lib_f(L).binary_cross_entropy(mk(L, rnd((3, 4), 1, 0.1, 0.9), d), mk(L, rnd((3, 4), 2, 0.0, 1.0), e))),
    ("bce_with_logits", lambda L, d, e: lib_f(L).binary_cross_entropy_with_logits(mk(L, rnd((3, 4), 1), d), mk(L, rnd((3, 4), 2, 0.0, 1.0), e), pos_weight=mk(L, rnd((4,), 3, 0.5, 2.0), e))),
    ("nll_loss", lambda L, d, e: lib_f(L).nll_loss(mk(L, rnd((4, 5), 1), d), idx(L, [0, 4, 2, 1]), weight=mk(L, rnd((5,), 3, 0.5, 1.0), e))),
    ("cross_entropy", lambda L, d, e: lib_f(L).cross_entropy(mk(L, rnd((4, 5), 1), d), idx(L, [0, 4, 2, 1]))),
    ("cross_entropy_smoothing", lambda L, d, e: lib_f(L).cross_entropy(mk(L, rnd((2, 5, 3), 1), d), idx(L, [[0, 4, 2], [1, 1, 3]]), label_smoothing=0.1)),
    ("kl_div", lambda L, d, e: lib_f(L).kl_div(mk(L, rnd((3, 4), 1, -2.0, -0.1), d), mk(L, rnd((3, 4), 2, 0.1, 1.0), e), reduction="batchmean")),
    ("poisson_nll_loss", lambda L, d, e: lib_f(L).poisson_nll_loss(mk(L, rnd((3, 4), 1), d), mk(L, rnd((3, 4), 2, 0.0, 3.0), e))),
    ("cosine_embedding_loss", lambda L, d, e: lib_f(L).cosine_embedding_loss(mk(L, rnd((3, 4), 1), d), mk(L, rnd((3, 4), 2), e), idx(L, [1, -1, 1]))),
    ("hinge_embedding_loss", lambda L, d, e: lib_f(L).hinge_embedding_loss(mk(L, rnd((3, 4), 1), d), mk(L, np.sign(rnd((3, 4), 2)), e))),
    ("margin_ranking_loss", lambda L, d, e: lib_f(L).margin_ranking_loss(mk(L, rnd((4,), 1), d), mk(L, rnd((4,), 2), e), mk(L, np.sign(rnd((4,), 3)), e), margin=0.1)),
    ("soft_margin_loss", lambda L, d, e: lib_f(L).soft_margin_loss(mk(L, rnd((3, 4), 1), d), mk(L, np.sign(rnd((3, 4), 2)), e))),
    ("multi_margin_loss", lambda L, d, e: lib_f(L).multi_margin_loss(mk(L, rnd((3, 4), 1), d), idx(L, [0, 3, 1]))),
    ("multilabel_margin_loss", lambda L, d, e: lib_f(L).multilabel_margin_loss(mk(L, rnd((2, 4), 1), d), idx(L, [[3, 0, -1, 1], [1, -1, 0, 0]]))),
    ("triplet_margin_loss", lambda L, d, e: lib_f(L).triplet_margin_loss(mk(L, rnd((3, 4), 1), d), mk(L, rnd((3, 4), 2), e), mk(L, rnd((3, 4), 3), e))),
    ("ctc_loss", lambda L, d, e: lib_f(L).ctc_loss(mk(L, rnd((6, 2, 4), 1), d).log_softmax(2), idx(L, [[1, 2], [3, 1]]), [6, 5], [2, 2])),
    ("prod", lambda L, d, e: mk(L, rnd((3, 4), 1, 0.5, 1.5), d).prod()),
    ("prod_dim", lambda L, d, e: L.prod(mk(L, rnd((3, 4), 1, 0.5, 1.5), d), 1, keepdim=True)),
    ("trace", lambda L, d, e: L.trace(mk(L, rnd((4, 4), 1), d))),
    ("avg_pool3d", lambda L, d, e: lib_f(L).avg_pool3d(mk(L, rnd((1, 2, 4, 4, 4), 1), d), 2)),
    ("max_pool3d", lambda L, d, e: lib_f(L).max_pool3d(mk(L, rnd((1, 2, 4, 4, 4), 1), d), 2)),
    ("adaptive_avg_pool3d", lambda L, d, e: lib_f(L).adaptive_avg_pool3d(mk(L, rnd((1, 2, 4, 4, 4), 1), d), 2)),
    ("adaptive_max_pool3d", lambda L, d, e: lib_f(L).adaptive_max_pool3d(mk(L, rnd((1, 2, 4, 4, 4), 1), d), 2)),
    ("reflection_pad1d", lambda L, d, e: lib_f(L).pad(mk(L, rnd((1, 2, 5), 1), d), (2, 1), mode="reflect")),
    ("reflection_pad2d", lambda L, d, e: lib_f(L).pad(mk(L, rnd((1, 2, 4, 4), 1), d), (1, 1, 2, 0), mode="reflect")),
    ("replication_pad1d", lambda L, d, e: lib_f(L).pad(mk(L, rnd((1, 2, 5), 1), d), (2, 1), mode="replicate")),
    ("replication_pad2d", lambda L, d, e: lib_f(L).pad(mk(L, rnd((1, 2, 4, 4), 1), d), (1, 1, 2, 0), mode="replicate")),
    ("replication_pad3d", lambda L, d, e: lib_f(L).pad(mk(L, rnd((1, 1, 3, 3, 3), 1), d), (1, 1, 1, 0, 0, 1), mode="replicate")),
]

PROMOTE: List[Case] = [
    ("cat", lambda L, d, e: L.cat([mk(L, rnd((2, 3), 1), d), mk(L, rnd((1, 3), 2), e)])),
    ("stack", lambda L, d, e: L.stack([mk(L, rnd((2, 3), 1), d), mk(L, rnd((2, 3), 2), e)], 1)),
]

# Ops on no CPU list: they run on their inputs as they come (PyTorch's type promotion).
UNLISTED: List[Case] = [
    ("add_mixed", lambda L, d, e: mk(L, rnd((3, 4), 1), d) + mk(L, rnd((3, 4), 2), e)),
    ("relu", lambda L, d, e: lib_f(L).relu(mk(L, rnd((3, 4), 1), d))),
    ("softmax", lambda L, d, e: lib_f(L).softmax(mk(L, rnd((3, 4), 1), d), -1)),
    ("log_softmax", lambda L, d, e: lib_f(L).log_softmax(mk(L, rnd((3, 4), 1), d), -1)),
    ("layer_norm", lambda L, d, e: lib_f(L).layer_norm(mk(L, rnd((3, 4), 1), d), (4,))),
    ("gelu", lambda L, d, e: lib_f(L).gelu(mk(L, rnd((3, 4), 1), d))),
    ("exp", lambda L, d, e: mk(L, rnd((3, 4), 1), d).exp()),
    ("sum", lambda L, d, e: mk(L, rnd((3, 4), 1), d).sum(1)),
    ("cumsum", lambda L, d, e: mk(L, rnd((3, 4), 1), d).cumsum(1)),
    ("mv", lambda L, d, e: L.mv(mk(L, rnd((3, 4), 1), d), mk(L, rnd((4,), 2), d))),
    ("dot", lambda L, d, e: L.dot(mk(L, rnd((4,), 1), d), mk(L, rnd((4,), 2), d))),
    ("max_pool2d", lambda L, d, e: lib_f(L).max_pool2d(mk(L, rnd((1, 2, 4, 4), 1), d), 2)),
    ("constant_pad", lambda L, d, e: lib_f(L).pad(mk(L, rnd((1, 2, 4), 1), d), (1, 2))),
    ("circular_pad", lambda L, d, e: lib_f(L).pad(mk(L, rnd((1, 2, 4), 1), d), (1, 2), mode="circular")),
    ("max_pool3d_indices", lambda L, d, e: lib_f(L).max_pool3d(mk(L, rnd((1, 2, 4, 4, 4), 1), d), 2, return_indices=True)[0]),
    ("mse_loss_weighted", lambda L, d, e: lib_f(L).mse_loss(mk(L, rnd((3, 4), 1), d), mk(L, rnd((3, 4), 2), d), weight=mk(L, rnd((3, 4), 3, 0.5, 1.0), d))),
    ("multilabel_soft_margin_loss", lambda L, d, e: lib_f(L).multilabel_soft_margin_loss(mk(L, rnd((3, 4), 1), d), mk(L, rnd((3, 4), 2, 0.0, 1.0), d))),
    ("cosine_similarity", lambda L, d, e: lib_f(L).cosine_similarity(mk(L, rnd((3, 4), 1), d), mk(L, rnd((3, 4), 2), d))),
]

ALL = [("lower", c) for c in LOWER] + [("fp32", c) for c in FP32] + [("promote", c) for c in PROMOTE] + [("none", c) for c in UNLISTED]
# (input dtype, other inputs' dtype): plain float32, already low, the other low type, float64, mixed.
INPUT_DTYPES = [("float32", "float32"), ("bfloat16", "bfloat16"), ("float16", "float32"), ("float64", "float64"), ("bfloat16", "float32")]
AUTOCAST_DTYPES = ["bfloat16", "float16"]


def _first(r: Any) -> Any:
    return r[0] if isinstance(r, tuple) else r


def _run(lib: Any, build: Callable[[Any, str, str], Any], d: str, e: str, ac_dtype: str) -> Any:
    with lib.autocast("cpu", dtype=getattr(lib, ac_dtype)):
        return _first(build(lib, d, e))


def _outcome(lib: Any, build: Callable[[Any, str, str], Any], d: str, e: str, ac_dtype: str) -> Any:
    """The result, or the exception class when the op refuses these dtypes."""
    try:
        return _run(lib, build, d, e, ac_dtype)
    except (RuntimeError, TypeError, ValueError) as err:
        return type(err).__name__


@pytest.mark.parametrize("ac_dtype", AUTOCAST_DTYPES)
@pytest.mark.parametrize("d,e", INPUT_DTYPES, ids=[f"{a}-{b}" for a, b in INPUT_DTYPES])
@pytest.mark.parametrize("policy,case", ALL, ids=[f"{p}-{c[0]}" for p, c in ALL])
def test_output_dtype_and_values_match_pytorch(policy: str, case: Case, d: str, e: str, ac_dtype: str) -> None:
    name, build = case
    theirs = _outcome(pt, build, d, e, ac_dtype)
    if isinstance(theirs, str):
        pytest.skip(f"PyTorch refuses {name} for {d}/{e}: {theirs}")
    ours = _run(torch, build, d, e, ac_dtype)
    assert str(ours.dtype) == str(theirs.dtype), f"{name} ({policy}) with {d}/{e} under {ac_dtype}: {ours.dtype} vs torch {theirs.dtype}"
    # Unlisted composites may run listed ops inside (PyTorch's bilinear does), so only the
    # float32 policy on 32/64-bit inputs promises full precision.
    low = "16" in str(theirs.dtype) or "16" in d or "16" in e or policy != "fp32"
    tol = 4e-2 if low else 1e-5
    assert_close(ours, theirs, rtol=tol, atol=tol, what=name)


def test_state_is_restored_after_each_case() -> None:
    assert not torch.is_autocast_enabled("cpu")
    assert torch.get_autocast_dtype("cpu") == torch.bfloat16
    assert torch.autocast_increment_nesting() == 1
    assert torch.autocast_decrement_nesting() == 0


# ---- gradients through the casts ----


def _mlp(lib: Any) -> Any:
    lib.manual_seed(0)
    return lib.nn.Sequential(lib.nn.Linear(4, 8), lib.nn.ReLU(), lib.nn.Linear(8, 3))


def _copy_params(src: Any, dst: Any) -> None:
    for p, q in zip(src.parameters(), dst.parameters()):
        q.data = to_ft(p.detach())


@pytest.mark.parametrize("ac_dtype", AUTOCAST_DTYPES)
@pytest.mark.parametrize("backward_inside", [False, True])
def test_gradients_flow_and_keep_the_parameter_dtype(ac_dtype: str, backward_inside: bool) -> None:
    theirs, ours = _mlp(pt), _mlp(torch)
    _copy_params(theirs, ours)
    x = rnd((5, 4), 7)
    y = [0, 2, 1, 1, 0]
    results = []
    for lib, model in ((pt, theirs), (torch, ours)):
        with lib.autocast("cpu", dtype=getattr(lib, ac_dtype)):
            out = model(lib.from_numpy(x.copy()))
            loss = lib.nn.functional.cross_entropy(out, lib.tensor(y))
            if backward_inside:
                loss.backward()
        if not backward_inside:
            loss.backward()
        results.append((out, loss, [p.grad for p in model.parameters()]))
    (pout, ploss, pgrads), (fout, floss, fgrads) = results
    assert str(fout.dtype) == str(pout.dtype) and str(floss.dtype) == str(ploss.dtype) == "torch.float32"
    assert_close(floss, ploss, rtol=2e-2, atol=2e-2, what="loss")
    for i, (fg, pg) in enumerate(zip(fgrads, pgrads)):
        assert fg.dtype == torch.float32, f"grad {i} dtype {fg.dtype}"
        assert_close(fg, pg, rtol=5e-2, atol=5e-2, what=f"grad {i}")


def test_grad_flows_to_low_precision_input_through_fp32_op() -> None:
    for lib in (pt, torch):
        x = mk(lib, rnd((3, 4), 1), "bfloat16").requires_grad_()
        with lib.autocast("cpu"):
            loss = lib.nn.functional.mse_loss(x, lib.zeros(3, 4))
        loss.backward()
        assert str(x.grad.dtype) == "torch.bfloat16"


def test_cast_is_differentiable_gradcheck() -> None:
    # The cast is to_dtype: in float64 autocast leaves inputs alone, so gradcheck the op
    # composition autocast builds (float32 -> lower -> float32) through double precision.
    x = torch.randn(3, 4, dtype=torch.float64, requires_grad=True)
    w = torch.randn(5, 4, dtype=torch.float64, requires_grad=True)
    with torch.autocast("cpu"):
        assert torch.autograd.gradcheck(lambda a, b: torch.nn.functional.linear(a, b), (x, w))


def test_weight_cast_node_is_shared_within_a_region_like_pytorch() -> None:
    for lib in (pt, torch):
        w = lib.randn(4, 4, requires_grad=True)
        x = lib.randn(2, 4)

        def cast_node(y: Any) -> Any:
            return y.grad_fn.next_functions[1][0]

        with lib.autocast("cpu"):
            a, b = lib.mm(x, w), lib.mm(x, w)
            assert cast_node(a) == cast_node(b), lib.__name__
        with lib.autocast("cpu"):
            c = lib.mm(x, w)
        assert cast_node(c) != cast_node(a), lib.__name__
        with lib.autocast("cpu", cache_enabled=False):
            d, e = lib.mm(x, w), lib.mm(x, w)
            assert cast_node(d) != cast_node(e), lib.__name__


def test_no_grad_inside_region_does_not_cut_the_weight_off() -> None:
    grads = []
    for lib in (pt, torch):
        w = lib.ones(4, 4, requires_grad=True)
        x = lib.ones(2, 4)
        with lib.autocast("cpu"):
            with lib.no_grad():
                first = lib.mm(x, w)
            later = lib.mm(x, w)
        assert not first.requires_grad and later.requires_grad, lib.__name__
        later.sum().backward()
        grads.append(w.grad)
    assert_close(grads[1], grads[0])


def test_inference_mode_inside_region() -> None:
    for lib in (pt, torch):
        w = lib.ones(4, 4, requires_grad=True)
        x = lib.ones(2, 4)
        with lib.autocast("cpu"):
            with lib.inference_mode():
                assert lib.mm(x, w).dtype == lib.bfloat16
            later = lib.mm(x, w)
        assert later.requires_grad, lib.__name__
        later.sum().backward()
        assert w.grad is not None


# ---- regions ----


def test_nested_and_disabled_regions_match_pytorch() -> None:
    seen: Dict[str, List[Any]] = {}
    for lib in (pt, torch):
        a = lib.ones(2, 2)
        log = seen.setdefault(lib.__name__, [])
        with lib.autocast("cpu"):
            log.append(lib.mm(a, a).dtype)
            with lib.autocast("cpu", enabled=False):
                log += [lib.mm(a, a).dtype, lib.is_autocast_enabled("cpu")]
                with lib.autocast("cpu", dtype=lib.float16):
                    log += [lib.mm(a, a).dtype, lib.get_autocast_dtype("cpu")]
                log.append(lib.mm(a, a).dtype)
            log += [lib.mm(a, a).dtype, lib.get_autocast_dtype("cpu"), lib.is_autocast_enabled("cpu")]
        log += [lib.mm(a, a).dtype, lib.is_autocast_enabled("cpu"), lib.is_autocast_enabled()]
    assert [str(v) for v in seen["ferrotorch"]] == [str(v) for v in seen["torch"]]


def test_region_is_left_on_exception() -> None:
    with pytest.raises(KeyError):
        with torch.autocast("cpu"):
            raise KeyError("x")
    assert not torch.is_autocast_enabled("cpu")
    assert torch.autocast_increment_nesting() == 1 and torch.autocast_decrement_nesting() == 0


def test_decorator_form() -> None:
    for lib in (pt, torch):

        @lib.autocast("cpu")
        def f(a: Any) -> Any:
            return a @ a

        @lib.autocast(device_type="cpu", dtype=lib.float16)
        def g(a: Any) -> Any:
            return lib.mm(a, a)

        a = lib.ones(2, 2)
        assert f(a).dtype == lib.bfloat16 and g(a).dtype == lib.float16
        assert (a @ a).dtype == lib.float32
        assert f.__name__ == "f"


def test_decorator_on_module_forward() -> None:
    class Net(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.fc = torch.nn.Linear(3, 2)

        @torch.autocast("cpu")
        def forward(self, x: Any) -> Any:
            return self.fc(x)

    assert Net()(torch.ones(1, 3)).dtype == torch.bfloat16


def test_state_is_per_thread() -> None:
    inside: List[bool] = []
    with torch.autocast("cpu"):
        t = threading.Thread(target=lambda: inside.append(torch.is_autocast_enabled("cpu") or (torch.ones(2, 2) @ torch.ones(2, 2)).dtype != torch.float32))
        t.start()
        t.join()
        assert torch.is_autocast_enabled("cpu")
    assert inside == [False]


def test_cuda_state_leaves_cpu_tensors_alone() -> None:
    for lib in (pt, torch):
        lib.set_autocast_enabled("cuda", True)
        try:
            assert lib.is_autocast_enabled() and lib.is_autocast_enabled("cuda")
            assert lib.mm(lib.ones(2, 2), lib.ones(2, 2)).dtype == lib.float32
        finally:
            lib.set_autocast_enabled("cuda", False)


# ---- construction, warnings and errors ----


def _warnings_of(fn: Callable[[], Any]) -> Tuple[Any, List[Tuple[str, str]]]:
    with warnings.catch_warnings(record=True) as ws:
        warnings.simplefilter("always")
        try:
            r = fn()
        except Exception as err:  # noqa: BLE001 - the class and message are compared
            r = (type(err).__name__, str(err))
    return r, [(w.category.__name__, str(w.message).split(" (Triggered internally")[0]) for w in ws]


CONSTRUCT = [
    ("cpu_default", lambda L: (L.autocast("cpu").fast_dtype, L.autocast("cpu")._enabled)),
    ("cpu_f16", lambda L: L.autocast("cpu", dtype=L.float16).fast_dtype),
    ("cpu_f32_disables", lambda L: L.autocast("cpu", dtype=L.float32)._enabled),
    ("cpu_f64_disables", lambda L: L.autocast("cpu", dtype=L.float64)._enabled),
    ("cpu_cache_off", lambda L: L.autocast("cpu", cache_enabled=False)._cache_enabled),
    ("cuda_without_cuda", lambda L: (L.autocast("cuda")._enabled, L.autocast("cuda").fast_dtype)),
    ("cuda_disabled_quietly", lambda L: L.autocast("cuda", enabled=False)._enabled),
    ("amp_alias", lambda L: L.amp.autocast("cpu").fast_dtype),
    ("cpu_amp_deprecated", lambda L: (L.cpu.amp.autocast().device, L.cpu.amp.autocast(dtype=L.float16).fast_dtype)),
    ("cuda_amp_deprecated", lambda L: (L.cuda.amp.autocast().device, L.cuda.amp.autocast()._enabled)),
    ("non_str_device", lambda L: L.autocast(1)),
    ("unknown_device", lambda L: L.autocast("foo")),
    ("not_callable", lambda L: L.autocast("cpu")(5)),
    ("available", lambda L: (L.amp.is_autocast_available("cpu"), L.amp.is_autocast_available("cuda"))),
    ("available_unknown", lambda L: L.amp.is_autocast_available("foo")),
]


@pytest.mark.parametrize("case", CONSTRUCT, ids=[c[0] for c in CONSTRUCT])
def test_construction_warnings_and_errors_match_pytorch(case: Any) -> None:
    _, fn = case
    ours, our_warnings = _warnings_of(lambda: fn(torch))
    theirs, their_warnings = _warnings_of(lambda: fn(pt))
    assert str(ours) == str(theirs)
    assert our_warnings == their_warnings


STATE_CALLS = [
    ("enabled_default", lambda L: (L.is_autocast_enabled(), L.is_autocast_enabled("cpu"), L.is_autocast_enabled(device_type="cuda"))),
    ("enabled_bad_arg", lambda L: L.is_autocast_enabled(None)),
    ("enabled_other_type", lambda L: L.is_autocast_enabled("xpu")),
    ("set_enabled_roundtrip", lambda L: (L.set_autocast_enabled("cpu", True), L.is_autocast_enabled("cpu"), L.set_autocast_enabled("cpu", False))),
    ("set_enabled_legacy", lambda L: (L.set_autocast_enabled(True), L.is_autocast_enabled(), L.set_autocast_enabled(False))),
    ("dtypes", lambda L: (L.get_autocast_dtype("cpu"), L.get_autocast_dtype("cuda"))),
    ("set_dtype_roundtrip", lambda L: (L.set_autocast_dtype("cpu", L.float16), L.get_autocast_dtype("cpu"), L.set_autocast_dtype("cpu", L.bfloat16))),
    ("deprecated_cpu_enabled", lambda L: L.is_autocast_cpu_enabled()),
    ("deprecated_set_cpu_enabled", lambda L: (L.set_autocast_cpu_enabled(True), L.set_autocast_cpu_enabled(False))),
    ("deprecated_dtypes", lambda L: (L.get_autocast_cpu_dtype(), L.get_autocast_gpu_dtype())),
    ("cache_flag", lambda L: (L.is_autocast_cache_enabled(), L.set_autocast_cache_enabled(False), L.is_autocast_cache_enabled(), L.set_autocast_cache_enabled(True))),
    ("nesting", lambda L: (L.autocast_increment_nesting(), L.autocast_increment_nesting(), L.autocast_decrement_nesting(), L.autocast_decrement_nesting())),
    ("clear_cache", lambda L: L.clear_autocast_cache()),
]


@pytest.mark.parametrize("case", STATE_CALLS, ids=[c[0] for c in STATE_CALLS])
def test_state_functions_match_pytorch(case: Any) -> None:
    _, fn = case
    ours, our_warnings = _warnings_of(lambda: fn(torch))
    theirs, their_warnings = _warnings_of(lambda: fn(pt))
    assert str(ours) == str(theirs)
    assert our_warnings == their_warnings


# ---- custom autograd Functions ----


def _custom_function(lib: Any) -> Any:
    class Square(lib.autograd.Function):
        @staticmethod
        @lib.amp.custom_fwd(device_type="cpu", cast_inputs=lib.float32)
        def forward(ctx: Any, a: Any) -> Any:
            ctx.save_for_backward(a)
            ctx.seen = (a.dtype, lib.is_autocast_enabled("cpu"), lib.mm(a, a).dtype)
            return a * a

        @staticmethod
        @lib.amp.custom_bwd(device_type="cpu")
        def backward(ctx: Any, g: Any) -> Any:
            (a,) = ctx.saved_tensors
            return 2 * a * g

    return Square


def test_custom_fwd_casts_and_disables_inside() -> None:
    seen = []
    for lib in (pt, torch):
        fn = _custom_function(lib)
        a = lib.ones(2, 2, dtype=lib.bfloat16, requires_grad=True)
        with lib.autocast("cpu"):
            out = fn.apply(a)
        out.sum().backward()
        seen.append([str(v) for v in (out.dtype, a.grad.dtype)])
    assert seen[0] == seen[1]


def test_tensor_method_forms_honour_autocast() -> None:
    a = torch.ones(2, 3)
    with torch.autocast("cpu"):
        assert a.matmul(a.t()).dtype == torch.bfloat16
        assert a.t().mm(a).dtype == torch.bfloat16
        assert a.unsqueeze(0).bmm(a.t().unsqueeze(0)).dtype == torch.bfloat16
        assert a.prod().dtype == torch.float32
        assert torch.nn.Linear(3, 2)(a).dtype == torch.bfloat16
        assert torch.nn.Conv2d(1, 1, 1)(a[None, None]).dtype == torch.bfloat16
        assert torch.nn.MSELoss()(a.bfloat16(), a).dtype == torch.float32
    assert (a @ a.t()).dtype == torch.float32


def test_values_of_module_forward_match_pytorch() -> None:
    theirs, ours = _mlp(pt), _mlp(torch)
    _copy_params(theirs, ours)
    x = rnd((6, 4), 3)
    with pt.autocast("cpu"):
        pr = theirs(pt.from_numpy(x))
    with torch.autocast("cpu"):
        fr = ours(torch.from_numpy(x))
    assert_close(fr, pr, rtol=3e-2, atol=3e-2)
    assert to_pt(fr).dtype == pt.bfloat16
