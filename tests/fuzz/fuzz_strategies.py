"""Hypothesis strategies that draw a fuzz case: an op from fuzz_ops.OPS, input shapes (0-d,
zero-size, broadcastable or mismatched partners), dtypes (the op's claimed ones mostly, any
other sometimes), memory layouts (contiguous, transposed, sliced with a step, expanded, flipped,
permuted), value kinds (normal, integral, NaN/inf, extreme) and arguments, some of them invalid
(dims out of range, out-of-range indices, negative or overflowing sizes)."""

from __future__ import annotations

import os
from typing import Any, Dict, List, Tuple

from fuzz_ops import ALL, OPS, FuzzOp
from hypothesis import strategies as st

COMPLEX = ("complex64", "complex128")
LAYOUTS = ("contiguous", "contiguous", "transposed", "sliced", "expanded", "flipped", "permuted")
VALUE_KINDS = ("normal", "normal", "normal", "ints", "special", "extreme")
DIM_SIZES = st.sampled_from((1, 2, 3, 4, 5, 0, 1, 2, 3, 7))
SEEDS = st.integers(0, 2**31 - 1)
# FERROTORCH_FUZZ_OPS=name,name,... draws only those ops (to work on one family).
_ONLY = {n for n in os.environ.get("FERROTORCH_FUZZ_OPS", "").split(",") if n}
DRAWN = sorted(name for name in OPS if not name.startswith("selftest.") and (not _ONLY or name in _ONLY))
# String (and small int) choices, a wrong one among them.
CHOICES = {
    "reduce": ("sum", "prod", "mean", "amax", "amin", "max"),
    "ireduce": ("prod", "mean", "amax", "amin", "sum"),
    "side": ("left", "right", "middle"),
    "interp": ("linear", "lower", "higher", "midpoint", "nearest", "cubic"),
    "reduction": (0, 1, 2, 3),
    "gmode": ("bilinear", "nearest", "bicubic", "linear"),
    "gpad": ("zeros", "border", "reflection", "wrap"),
}
HUGE = (2**31, 2**40, 2**62, 2**63 - 1)


def _shape(draw: Any, max_nd: int = 4) -> Tuple[int, ...]:
    nd = draw(st.integers(0, max_nd))
    return tuple(draw(DIM_SIZES) for _ in range(nd))


def _partner(draw: Any, shape: Tuple[int, ...]) -> Tuple[int, ...]:
    """A shape that broadcasts with ``shape`` (mostly) or does not (sometimes)."""
    mode = draw(st.sampled_from(("same", "same", "broadcast", "broadcast", "lower", "higher", "scalar", "any")))
    if mode == "same":
        return shape
    if mode == "scalar":
        return ()
    if mode == "any":
        return _shape(draw)
    if mode == "lower":
        return shape[draw(st.integers(0, len(shape))):]
    if mode == "higher":
        return tuple(draw(DIM_SIZES) for _ in range(draw(st.integers(1, 2)))) + shape
    return tuple(1 if draw(st.booleans()) else s for s in shape)


def _tensor(draw: Any, shape: Tuple[int, ...], dtype: str, domain: Tuple[float, float]) -> Dict[str, Any]:
    lo, hi = domain if draw(st.integers(0, 2)) else (-3.0, 3.0)
    spec: Dict[str, Any] = {"shape": list(shape), "dtype": dtype, "layout": draw(st.sampled_from(LAYOUTS)), "values": draw(st.sampled_from(VALUE_KINDS)), "seed": draw(SEEDS), "lo": lo, "hi": hi}
    if spec["layout"] == "expanded" and shape:
        spec["expand_dim"] = draw(st.integers(0, len(shape) - 1))
    return spec


def _dtype(draw: Any, op: FuzzOp) -> str:
    if draw(st.integers(0, 4)):
        return draw(st.sampled_from(op.dtypes))
    return draw(st.sampled_from(ALL + COMPLEX))


def _index(draw: Any, shape: Tuple[int, ...], idx_shape: Tuple[int, ...], base: Dict[str, Any]) -> Dict[str, Any]:
    n = max(shape) if shape else 1
    bad = draw(st.integers(0, 7)) == 0
    lo, hi = (-n - 2, n + 2) if bad else (0, max(n - 1, 0))
    dtype = "int64" if draw(st.integers(0, 5)) else draw(st.sampled_from(("int32", "int16", "uint8", "float32", "bool")))
    values = "index" if dtype != "bool" else "normal"
    return dict(base, shape=list(idx_shape), dtype=dtype, values=values, lo=lo, hi=hi)


def _inputs(draw: Any, op: FuzzOp) -> List[Dict[str, Any]]:
    specs: List[Dict[str, Any]] = []
    x_shape: Tuple[int, ...] = ()
    x_dtype = _dtype(draw, op)
    for kind in op.inputs:
        if kind == "x":
            if not specs:
                x_shape = _shape(draw)
                spec = _tensor(draw, x_shape, x_dtype, op.domain)
            else:
                shape = x_shape if draw(st.integers(0, 3)) else _shape(draw)
                spec = _tensor(draw, shape, x_dtype if draw(st.integers(0, 2)) else _dtype(draw, op), op.domain)
        elif kind == "y":
            dt = x_dtype if draw(st.integers(0, 2)) else _dtype(draw, op)
            spec = _tensor(draw, _partner(draw, x_shape), dt, op.domain)
        elif kind == "m":
            spec = _tensor(draw, _partner(draw, x_shape), "bool" if draw(st.integers(0, 6)) else _dtype(draw, op), op.domain)
        elif kind == "mat":
            k = x_shape[-1] if x_shape and draw(st.integers(0, 4)) else draw(DIM_SIZES)
            batch = x_shape[:-2] if draw(st.integers(0, 2)) else _partner(draw, x_shape[:-2])
            tail = (k, draw(DIM_SIZES)) if draw(st.integers(0, 5)) else (k,)
            spec = _tensor(draw, batch + tail, x_dtype if draw(st.integers(0, 3)) else _dtype(draw, op), op.domain)
        elif kind == "idx1":
            spec = _index(draw, x_shape, (draw(st.sampled_from((0, 1, 2, 3, 5))),), _tensor(draw, (), "int64", op.domain))
        elif kind == "idxg":
            shape = tuple(draw(st.integers(0, s)) if draw(st.integers(0, 5)) else draw(DIM_SIZES) for s in x_shape)
            spec = _index(draw, x_shape, shape, _tensor(draw, (), "int64", op.domain))
        else:
            raise ValueError(f"unknown input kind {kind}")
        specs.append(spec)
    return specs


def _scalar(draw: Any) -> Any:
    kind = draw(st.sampled_from(("int", "int", "float", "float", "bool", "special", "big", "complex")))
    if kind == "int":
        return draw(st.integers(-4, 4))
    if kind == "float":
        return draw(st.sampled_from((0.5, -1.5, 2.0, 0.0, -0.0, 1e-3, 3.25)))
    if kind == "bool":
        return draw(st.booleans())
    if kind == "special":
        return draw(st.sampled_from((float("nan"), float("inf"), float("-inf"))))
    if kind == "big":
        return draw(st.sampled_from((2**31, -(2**63), 2**63 - 1, 2**64, 1e300, 70000.0, 300)))
    return {"complex": [draw(st.sampled_from((0.0, 1.5))), draw(st.sampled_from((1.0, -2.0)))]}


def _arg(draw: Any, kind: str, shape: Tuple[int, ...]) -> Any:
    nd = len(shape)
    numel = 1
    for s in shape:
        numel *= s
    optional = kind.endswith("?")
    kind = kind.rstrip("?")
    if optional and draw(st.integers(0, 3)) == 0:
        return None
    if kind in ("dim", "dim+"):
        n = max(nd, 1) + (kind == "dim+")
        return draw(st.integers(-n - 1, n)) if draw(st.integers(0, 7)) == 0 else draw(st.integers(-n, n - 1))
    if kind == "dims":
        n = max(nd, 1)
        return draw(st.lists(st.integers(-n - 1, n) if draw(st.integers(0, 7)) == 0 else st.integers(-n, n - 1), max_size=nd + 1))
    if kind == "perm":
        perm = draw(st.permutations(list(range(nd))))
        if draw(st.integers(0, 7)) == 0:
            perm = perm[:-1] if perm else [0]
        return perm
    if kind == "bool":
        return draw(st.booleans())
    if kind == "int":
        return draw(st.integers(-3, 6))
    if kind == "k":
        return draw(st.integers(0, 4)) if draw(st.integers(0, 7)) else draw(st.sampled_from((-1, 2**40)))
    if kind == "step":
        return draw(st.sampled_from((None, 1, 2, 3))) if draw(st.integers(0, 9)) else draw(st.sampled_from((0, -1)))
    if kind == "index":
        n = shape[0] if shape else 1
        return draw(st.integers(-n, max(n - 1, -n))) if draw(st.integers(0, 5)) else draw(st.integers(-n - 2, n + 2))
    if kind == "ilist":
        n = max(shape) if shape else 1
        out = draw(st.lists(st.integers(-n - 2, n + 2), max_size=4))
        return sorted(out) if draw(st.integers(0, 3)) else out
    if kind in CHOICES:
        return draw(st.sampled_from(CHOICES[kind]))
    if kind == "q":
        mode = draw(st.sampled_from(("one", "one", "list", "bad")))
        one = st.sampled_from((0.0, 0.25, 0.5, 0.7, 1.0, 1 / 3))
        if mode == "one":
            return draw(one)
        if mode == "list":
            return draw(st.lists(one, min_size=1, max_size=3))
        return draw(st.sampled_from((-0.1, 1.5, float("nan"), [])))
    if kind == "p":
        return draw(st.sampled_from((2.0, 1.0, 0.0, 0.5, 3.0, float("inf"), -1.0, 2)))
    if kind == "scalar":
        return _scalar(draw)
    if kind == "float":
        return draw(st.sampled_from((0.0, 0.1, -1.0, 2.5, float("nan"), float("inf"))))
    if kind == "dtype":
        return {"dtype": draw(st.sampled_from(ALL + COMPLEX))}
    if kind == "shape":
        mode = draw(st.sampled_from(("factor", "factor", "infer", "any")))
        if mode == "any":
            return list(_shape(draw))
        dims: List[int] = []
        rest = numel
        for _ in range(draw(st.integers(0, 3))):
            f = draw(st.sampled_from((1, 2, 3, 5)))
            if rest % f == 0 and rest:
                dims.append(f)
                rest //= f
        out = dims + [rest] if rest != 1 or not dims else dims
        if mode == "infer" and out:
            out[draw(st.integers(0, len(out) - 1))] = -1
        return out
    if kind == "reps":
        return [draw(st.integers(0, 3)) for _ in range(draw(st.integers(max(nd - 1, 0), nd + 1)))] or [2]
    if kind == "pad":
        return [draw(st.integers(-1, 2)) for _ in range(2 * draw(st.integers(1, max(min(nd, 3), 1))))]
    if kind == "size":
        mode = draw(st.sampled_from(("small", "small", "small", "negative", "huge")))
        if mode == "small":
            return list(_shape(draw, 3))
        if mode == "negative":
            return [2, -draw(st.integers(1, 3))]
        return [draw(st.sampled_from(HUGE))] + [draw(st.sampled_from((1, 2, 2**31)))] * draw(st.integers(0, 2))
    raise ValueError(f"unknown arg kind {kind}")


@st.composite
def cases(draw: Any) -> Dict[str, Any]:
    """One case: {"op", "inputs", "args"} (see fuzz_case.py)."""
    op = OPS[draw(st.sampled_from(DRAWN))]
    inputs = _inputs(draw, op)
    shape = tuple(inputs[0]["shape"]) if inputs else ()
    return {"op": op.name, "inputs": inputs, "args": [_arg(draw, a, shape) for a in op.args]}
