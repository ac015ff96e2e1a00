"""What the fuzz-regression tables share (tests/test_fuzz_found_nn_ops.py, _loss_ops.py): build
the same input under either library, run a case under both, and require PyTorch's outcome --
its exception class, or its dtype, shape, NaN/inf positions and values within a tolerance."""

from __future__ import annotations

from typing import Any, Callable, Dict, Tuple

import numpy as np

import ferrotorch
from torch_oracle import pt


def tensor_of(L: Any, values: Any, dtype: str = "float32") -> Any:
    """A tensor of library ``L`` from plain values (float16/bfloat16 rounded from float32)."""
    if dtype in ("int64", "bool"):
        return L.tensor(np.array(values, dtype=np.int64)).to(getattr(L, dtype))
    arr = np.array(values, dtype=np.float64 if dtype == "float64" else np.float32)
    out = L.tensor(arr)
    return out if dtype in ("float32", "float64") else out.to(getattr(L, dtype))


def _run(fn: Callable[[Any], Any], L: Any) -> Tuple[str, Any]:
    try:
        return ("ok", fn(L))
    except Exception as e:  # noqa: BLE001 - the exception is the result compared
        return ("raise", e)


def _numpy(t: Any) -> np.ndarray:
    t = t.detach()
    if str(t.dtype).split(".")[-1] in ("float16", "bfloat16"):
        t = t.float()
    return np.array(t.tolist())


def _compare(ours: Any, theirs: Any, rtol: float) -> None:
    if isinstance(theirs, (tuple, list)):
        assert isinstance(ours, (tuple, list)) and len(ours) == len(theirs)
        for a, b in zip(ours, theirs):
            _compare(a, b, rtol)
        return
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1], f"dtype {ours.dtype} vs torch {theirs.dtype}"
    assert tuple(ours.shape) == tuple(theirs.shape), f"shape {tuple(ours.shape)} vs torch {tuple(theirs.shape)}"
    _compare_arrays(_numpy(ours), _numpy(theirs), rtol)


def _compare_arrays(a: np.ndarray, b: np.ndarray, rtol: float) -> None:
    if a.dtype.kind in "iub" and b.dtype.kind in "iub":
        np.testing.assert_array_equal(a, b)
        return
    if a.dtype.kind == "c" or b.dtype.kind == "c":
        # Part by part: numpy's complex isnan/isinf would take -inf+nanj for -inf+2j.
        _compare_arrays(np.real(a), np.real(b), rtol)
        _compare_arrays(np.imag(a), np.imag(b), rtol)
        return
    np.testing.assert_array_equal(np.isnan(a), np.isnan(b), err_msg=f"NaN positions\n ours={a}\n torch={b}")
    np.testing.assert_array_equal(np.where(np.isinf(a), a, 0), np.where(np.isinf(b), b, 0), err_msg=f"infinities\n ours={a}\n torch={b}")
    fin = np.isfinite(b)
    np.testing.assert_allclose(a[fin], b[fin], rtol=rtol, atol=rtol * 1e-3)


def assert_same_outcome(fn: Callable[[Any], Any], rtol_by_dtype: Dict[str, float]) -> None:
    """``fn`` under ferrotorch gives PyTorch's result (relative tolerance by the result's dtype,
    1e-9 for any other) or raises an instance of the builtin class PyTorch raises."""
    (k_o, ours), (k_t, theirs) = _run(fn, ferrotorch), _run(fn, pt)
    if k_t == "raise":
        base = next(c for c in type(theirs).__mro__ if c.__module__ == "builtins")
        assert k_o == "raise", f"torch raised {type(theirs).__name__}: {theirs}\n ours gave {ours!r}"
        assert isinstance(ours, base), f"ours raised {type(ours).__name__}: {ours}\n torch {type(theirs).__name__}: {theirs}"
        return
    assert k_o == "ok", f"ours raised {type(ours).__name__}: {ours}\n torch gave {theirs!r}"
    dtype = str((theirs[0] if isinstance(theirs, tuple) else theirs).dtype).split(".")[-1]
    _compare(ours, theirs, rtol_by_dtype.get(dtype, 1e-9))
