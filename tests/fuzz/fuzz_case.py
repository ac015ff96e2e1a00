"""One fuzz case, run on both libraries: build the inputs (same values, same memory layout) from
a plain-data description, call the op, and compare.

A case is a dict of JSON values, so it can cross a pipe and be pasted into a test:
``{"op": "table.add", "inputs": [INPUT, ...], "args": [...]}`` with
``INPUT = {"shape": [2, 3], "dtype": "float32", "layout": "transposed", "values": "normal",
"seed": 5, "lo": -2.0, "hi": 2.0}``; ``{"dtype": "float64"}`` as an argument names a dtype.

The comparison rule: the same result type, dtype and shape and close values (NaN where PyTorch
has NaN), or both raise with our exception an instance of PyTorch's class (RuntimeError,
ValueError, IndexError, TypeError...; a subclass is accepted). A PanicException or a Rust abort is
always a failure."""

from __future__ import annotations

import math
from typing import Any, Dict, List, Optional

import numpy as np
from fuzz_known import excluded
from fuzz_ops import OPS

import ferrotorch

NP = {
    "float32": np.float32, "float64": np.float64, "float16": np.float16, "bfloat16": np.float32,
    "int64": np.int64, "int32": np.int32, "int16": np.int16, "int8": np.int8, "uint8": np.uint8,
    "bool": np.bool_, "complex64": np.complex64, "complex128": np.complex128,
}
# Relative tolerance by result dtype, applied against the largest magnitude in the result (so
# cancellation in sums and differences of large terms is not reported as a mismatch).
RTOL = {"float64": 1e-9, "float32": 2e-5, "float16": 2e-2, "bfloat16": 3e-2, "complex64": 2e-5, "complex128": 1e-9}


class Mismatch(AssertionError):
    """The two libraries disagree on a case."""


def _values(spec: Dict[str, Any], shape: tuple) -> np.ndarray:
    """The input values, drawn from the case's seed (same for both libraries)."""
    rng = np.random.default_rng(spec.get("seed", 0))
    dtype, kind = spec["dtype"], spec.get("values", "normal")
    lo, hi = spec.get("lo", -3.0), spec.get("hi", 3.0)
    if kind == "index":
        return rng.integers(lo, hi + 1, shape).astype(np.int64)
    if dtype == "bool":
        return rng.random(shape) > 0.5
    if dtype in ("int64", "int32", "int16", "int8", "uint8"):
        info = np.iinfo(NP[dtype])
        if kind == "extreme":
            return rng.choice(np.array([info.min, info.max, 0, 1, -1 if info.min else 2, info.min + 1, info.max - 1], dtype=NP[dtype]), shape)
        low = 0 if dtype == "uint8" else max(int(math.floor(lo)), -5)
        return rng.integers(low, max(int(math.ceil(hi)), low) + 1, shape).astype(NP[dtype])
    x = rng.uniform(lo, hi, shape)
    if kind == "ints":
        x = np.round(x)
    elif kind == "special" and x.size:
        pick = rng.random(shape)
        x = np.where(pick < 0.15, np.nan, np.where(pick < 0.25, np.inf, np.where(pick < 0.35, -np.inf, np.where(pick < 0.45, -0.0, x))))
    elif kind == "extreme" and x.size:
        big = {"float16": 6e4, "float64": 1e308, "complex128": 1e308}.get(dtype, 3e38)
        x = x * rng.choice(np.array([1e-42, 1e-8, 1.0, 1e8, big / 3]), shape)
    if dtype.startswith("complex"):
        return (x + 1j * rng.uniform(lo, hi, shape)).astype(NP[dtype])
    return x.astype(NP[dtype])


def _layout_shape(spec: Dict[str, Any]) -> tuple:
    """The shape of the values before an `expanded` layout broadcasts them."""
    shape = tuple(spec["shape"])
    if spec.get("layout") == "expanded" and shape:
        d = spec.get("expand_dim", 0) % len(shape)
        return shape[:d] + (1,) + shape[d + 1 :]
    return shape


def build(L: Any, spec: Dict[str, Any]) -> Any:
    """A tensor of library ``L`` with the values and memory layout the spec describes."""
    shape, layout, dtype = tuple(spec["shape"]), spec.get("layout", "contiguous"), spec["dtype"]
    v = _values(spec, _layout_shape(spec))

    def make(a: np.ndarray) -> Any:
        t = L.from_numpy(a.copy())  # a copy: a flip of size-1 dims can keep negative strides
        return t.to(L.bfloat16) if dtype == "bfloat16" else t

    nd = len(shape)
    if layout == "transposed" and nd >= 2:
        return make(np.swapaxes(v, -1, -2)).transpose(-1, -2)
    if layout == "sliced" and nd >= 1:
        big = np.zeros(shape[:-1] + (shape[-1] * 2 + 1,), dtype=v.dtype)
        big[..., 1::2] = v
        return make(big)[..., 1::2]
    if layout == "expanded" and nd >= 1:
        return make(v).expand(*shape)
    if layout == "flipped" and nd >= 1:
        dims = [d for d in range(nd) if (spec.get("seed", 0) >> d) & 1] or [nd - 1]
        return make(np.flip(v, dims)).flip(dims)
    if layout == "permuted" and nd >= 3:
        return make(np.transpose(v, (2, 0, 1) + tuple(range(3, nd)))).permute(1, 2, 0, *range(3, nd))
    return make(v)


def _arg(L: Any, a: Any) -> Any:
    if isinstance(a, dict) and "dtype" in a:
        return getattr(L, a["dtype"])
    if isinstance(a, dict) and "complex" in a:
        return complex(*a["complex"])
    if isinstance(a, list):
        return [_arg(L, x) for x in a]
    return a


def call(L: Any, case: Dict[str, Any]) -> Any:
    """Run the case's op on library ``L`` (``ferrotorch`` or ``torch``)."""
    op = OPS[case["op"]]
    inputs = [build(L, s) for s in case["inputs"]]
    return op.call(L, *inputs, *[_arg(L, a) for a in case.get("args", [])])


def undefined_values(case: Dict[str, Any]) -> bool:
    """Whether PyTorch's values for this case are undefined behaviour (compare dtype/shape only)."""
    op = OPS[case["op"]]
    if not op.values:
        return True
    if op.undefined is None:
        return False
    inputs = [build(ferrotorch, s) for s in case["inputs"]]
    return bool(op.undefined(*inputs, *[_arg(ferrotorch, a) for a in case.get("args", [])]))


def _to_numpy(t: Any) -> np.ndarray:
    t = t.detach()
    name = str(t.dtype).split(".")[-1]
    if name in ("float16", "bfloat16"):
        t = t.float()
    if name.startswith("complex"):
        return np.asarray(t.resolve_conj().cpu().numpy() if hasattr(t, "resolve_conj") else t.numpy()).copy()
    return np.array(t.tolist(), dtype=NP[name]).reshape(tuple(t.shape))


def _close(a: np.ndarray, b: np.ndarray, dtype: str, where: str, cancels: bool = False, rtol_floor: float = 0.0) -> None:
    if a.dtype.kind in "biu" and b.dtype.kind in "biu":
        if not np.array_equal(a, b):
            raise Mismatch(f"{where}: values differ\n ours={_short(a)}\n torch={_short(b)}")
        return
    a, b = a.astype(np.complex128), b.astype(np.complex128)
    nan_a, nan_b = np.isnan(a), np.isnan(b)
    if not np.array_equal(nan_a, nan_b):
        raise Mismatch(f"{where}: NaN positions differ\n ours={_short(a)}\n torch={_short(b)}")
    fa, fb = a[~nan_a], b[~nan_b]
    inf_a, inf_b = np.isinf(fa), np.isinf(fb)
    if not np.array_equal(inf_a, inf_b):
        raise Mismatch(f"{where}: infinities differ\n ours={_short(a)}\n torch={_short(b)}")
    # A complex value with one infinite part: that part exactly, the finite one with the
    # tolerance below (it carries the rounding of any finite value).
    finite_parts_a, finite_parts_b = [fa[~inf_a]], [fb[~inf_b]]
    for pa, pb in ((fa[inf_a].real, fb[inf_b].real), (fa[inf_a].imag, fb[inf_b].imag)):
        part_inf = np.isinf(pa) | np.isinf(pb)
        if not np.array_equal(pa[part_inf], pb[part_inf]):
            raise Mismatch(f"{where}: infinities differ\n ours={_short(a)}\n torch={_short(b)}")
        finite_parts_a.append(pa[~part_inf].astype(np.complex128))
        finite_parts_b.append(pb[~part_inf].astype(np.complex128))
    fa, fb = np.concatenate(finite_parts_a), np.concatenate(finite_parts_b)
    if fa.size == 0:
        return
    rtol = max(RTOL.get(dtype, 1e-9), rtol_floor)
    scale = max(1.0, float(np.abs(fb).max()))
    floor = scale if cancels else scale * rtol * 10
    if not np.all(np.abs(fa - fb) <= rtol * np.maximum(np.abs(fb), floor) + rtol * 1e-3):
        err = np.abs(fa - fb).max()
        raise Mismatch(f"{where}: values differ (max abs err {err:.3g}, rtol {rtol})\n ours={_short(a)}\n torch={_short(b)}")


def compare(ours: Any, theirs: Any, values: bool = True, where: str = "result", cancels: bool = False, rtol_floor: float = 0.0) -> None:
    """Raise Mismatch unless ``ours`` (ferrotorch) matches ``theirs`` (PyTorch); ``cancels``: the
    op's values near 0 are cancellation noise of the result's scale (see FuzzOp.cancels);
    ``rtol_floor``: the least relative tolerance (see FuzzOp.per_input_precision)."""
    import torch as pt

    if isinstance(theirs, pt.Tensor):
        if not isinstance(ours, ferrotorch.Tensor):
            raise Mismatch(f"{where}: ours is {type(ours).__name__}, torch gives a Tensor")
        dt_o, dt_t = str(ours.dtype).split(".")[-1], str(theirs.dtype).split(".")[-1]
        if dt_o != dt_t:
            raise Mismatch(f"{where}: dtype {dt_o} vs torch {dt_t}")
        if tuple(ours.shape) != tuple(theirs.shape):
            raise Mismatch(f"{where}: shape {tuple(ours.shape)} vs torch {tuple(theirs.shape)}")
        if values:
            _close(_to_numpy(ours), _to_numpy(theirs), dt_t, where, cancels, rtol_floor)
        return
    if isinstance(theirs, (tuple, list)):
        if not isinstance(ours, (tuple, list)) or len(ours) != len(theirs):
            raise Mismatch(f"{where}: ours {type(ours).__name__} {ours!r} vs torch {type(theirs).__name__} of {len(theirs)}")
        for k, (a, b) in enumerate(zip(ours, theirs)):
            compare(a, b, values, f"{where}[{k}]", cancels, rtol_floor)
        return
    if isinstance(theirs, (bool, int, float, complex)):
        if type(ours) is not type(theirs):
            raise Mismatch(f"{where}: ours {type(ours).__name__} {ours!r} vs torch {type(theirs).__name__} {theirs!r}")
        if values:
            kind = "float64" if isinstance(theirs, (float, complex)) else "int64"
            _close(np.array([ours]), np.array([theirs]), kind, where)
        return
    if theirs is None:
        if ours is not None:
            raise Mismatch(f"{where}: ours {ours!r} vs torch None")
        return
    raise Mismatch(f"{where}: cannot compare torch result of type {type(theirs).__name__}")


def exception_matches(ours: BaseException, theirs: BaseException) -> bool:
    """Our exception must be an instance of PyTorch's class (its class or a subclass); PyTorch's
    private subclasses (torch.OutOfMemoryError...) count as their public base."""
    base = next(c for c in type(theirs).__mro__ if c.__module__ == "builtins")
    return isinstance(ours, base)


def is_crash(e: BaseException) -> bool:
    """A Rust panic surfaced as an exception (pyo3's PanicException derives from BaseException)."""
    return type(e).__name__ == "PanicException" or not isinstance(e, Exception)


def _short(x: Any) -> str:
    text = repr(x)
    return text if len(text) < 400 else text[:400] + " ..."


def run_case(case: Dict[str, Any], stage: Optional[List[str]] = None) -> None:
    """Run one case on both libraries; raise Mismatch (or re-raise a crash) on a difference.
    ``stage`` records which library is running, for a parent watching a worker die."""
    import warnings

    import torch as pt

    if excluded(case):
        return
    results: List[Any] = []
    for L in (ferrotorch, pt):
        if stage is not None:
            stage.append(L.__name__)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                results.append(("ok", call(L, case)))
            except BaseException as e:  # noqa: BLE001 - a panic is a BaseException
                if L is ferrotorch and is_crash(e):
                    raise Mismatch(f"ferrotorch crashed: {type(e).__name__}: {e}") from e
                if isinstance(e, (KeyboardInterrupt, SystemExit)):
                    raise
                results.append(("raise", e))
    (k_o, ours), (k_t, theirs) = results
    if k_o == "raise" and k_t == "raise":
        if not exception_matches(ours, theirs):
            raise Mismatch(f"exception class: ours {type(ours).__name__}: {ours}\n torch {type(theirs).__name__}: {theirs}")
        return
    if k_o == "raise":
        raise Mismatch(f"ours raised {type(ours).__name__}: {ours}\n torch gave {_short(theirs)}")
    if k_t == "raise":
        raise Mismatch(f"torch raised {type(theirs).__name__}: {theirs}\n ours gave {_short(ours)}")
    op = OPS[case["op"]]
    rtol_floor = max((RTOL.get(s["dtype"], 0.0) for s in case["inputs"]), default=0.0) if op.per_input_precision else 0.0
    compare(ours, theirs, values=not undefined_values(case), cancels=op.cancels, rtol_floor=rtol_floor)


def describe(case: Dict[str, Any], strides: bool = True) -> str:
    """A one-line summary: op, input shapes/dtypes/layouts (with strides) and args. The parent
    of a crashed worker asks without strides (building the inputs may be what crashes)."""
    parts = []
    for s in case["inputs"]:
        try:
            st = build(ferrotorch, s).stride() if strides else "?"
        except Exception:  # noqa: BLE001 - a description must not fail
            st = "?"
        parts.append(f"{s['dtype']}{list(s['shape'])} {s.get('layout', 'contiguous')} strides={st} values={s.get('values', 'normal')}")
    return f"{case['op']}({'; '.join(parts)}) args={case.get('args', [])!r}"
