"""Shared helpers of the linalg tests: random matrices of the kinds the ops need (general,
symmetric positive definite, triangular), made once in NumPy and given to both libraries in
the same layout (contiguous, transposed, broadcast, batched), and comparisons of values,
gradients and errors with PyTorch."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np
import pytest

import ferrotorch as torch
from torch_oracle import pt

TOL = {"float32": dict(rtol=2e-4, atol=2e-5), "float64": dict(rtol=1e-9, atol=1e-11)}


def general(rng: np.random.Generator, shape: tuple) -> np.ndarray:
    """A well-conditioned square matrix (or batch): noise plus a dominant diagonal."""
    n = shape[-1]
    return rng.uniform(-1, 1, shape) + n * np.eye(n)


def spd(rng: np.random.Generator, shape: tuple) -> np.ndarray:
    """Symmetric positive definite: X X^T + n I."""
    n = shape[-1]
    x = rng.uniform(-1, 1, shape)
    return x @ np.swapaxes(x, -1, -2) + n * np.eye(n)


def dense(rng: np.random.Generator, shape: tuple) -> np.ndarray:
    """Any matrix (right-hand sides, rectangular inputs)."""
    return rng.uniform(-1, 1, shape)


@dataclass
class Arg:
    """One matrix argument: how to draw it, its shape, and whether both libraries see it as a
    transposed (non-contiguous) view."""

    make: Callable[[np.random.Generator, tuple], np.ndarray]
    shape: tuple
    transposed: bool = False


@dataclass
class Case:
    name: str
    fn: Callable[..., Any]  # fn(lib, *tensors): the same code runs on ferrotorch and torch
    args: list = field(default_factory=list)
    grad: bool = True
    dtypes: tuple = ("float32", "float64")
    torch_grad: bool = True  # False where PyTorch's own backward fails (no gradients to compare)

    def __str__(self) -> str:
        return self.name


def arrays(case: Case, seed: int = 0) -> list:
    rng = np.random.default_rng(seed)
    return [a.make(rng, a.shape) for a in case.args]


def to_lib(lib: Any, arr: np.ndarray, dtype: str, transposed: bool, requires_grad: bool = False) -> Any:
    """``arr`` as a contiguous tensor of ``lib``, stored transposed when asked (``layout``
    then turns it back into a transposed, non-contiguous view of the same values)."""
    src = np.ascontiguousarray(np.swapaxes(arr, -1, -2)) if transposed else np.ascontiguousarray(arr)
    t = lib.tensor(src.tolist(), dtype=getattr(lib, dtype)) if src.size else lib.zeros(src.shape, dtype=getattr(lib, dtype))
    return t.requires_grad_(True) if requires_grad else t


def leaves(lib: Any, case: Case, dtype: str, requires_grad: bool = False, seed: int = 0) -> tuple:
    """The stored inputs of a case (leaf tensors)."""
    return tuple(to_lib(lib, a, dtype, spec.transposed, requires_grad) for a, spec in zip(arrays(case, seed), case.args))


def layout(case: Case, xs: tuple) -> list:
    """The inputs as the op sees them: transposed views where the case asks for them."""
    return [x.transpose(-2, -1) if spec.transposed else x for x, spec in zip(xs, case.args)]


def run(lib: Any, case: Case, xs: tuple) -> Any:
    return case.fn(lib, *layout(case, xs))


def inputs(lib: Any, case: Case, dtype: str, requires_grad: bool = False, seed: int = 0) -> list:
    return layout(case, leaves(lib, case, dtype, requires_grad, seed))


def flat(out: Any) -> list:
    """The tensors of an output (a tensor, or a tuple/named tuple of them)."""
    return list(out) if isinstance(out, tuple) else [out]


def numpy_of(t: Any) -> np.ndarray:
    return np.array(t.detach().tolist()) if t.numel() else np.zeros(tuple(t.shape))


def assert_same(ours: Any, theirs: Any, tol: dict, what: str = "") -> None:
    """Same structure, shapes and dtypes, close values."""
    a, b = flat(ours), flat(theirs)
    assert len(a) == len(b), f"{what}: {len(a)} outputs vs torch {len(b)}"
    for i, (x, y) in enumerate(zip(a, b)):
        assert tuple(x.shape) == tuple(y.shape), f"{what}[{i}]: shape {tuple(x.shape)} vs torch {tuple(y.shape)}"
        assert str(x.dtype).split(".")[-1] == str(y.dtype).split(".")[-1], f"{what}[{i}]: dtype {x.dtype} vs {y.dtype}"
        np.testing.assert_allclose(numpy_of(x), numpy_of(y), err_msg=f"{what}[{i}]", equal_nan=True, **tol)


def raises_like_torch(fn: Callable[[Any], Any], exact: bool = True) -> None:
    """``fn(lib)`` raises in PyTorch; ferrotorch raises the same class (LinAlgError for
    LinAlgError) and the same message (or one that contains PyTorch's when not ``exact``)."""
    with pytest.raises(Exception) as theirs:
        fn(pt)
    with pytest.raises(Exception) as ours:
        fn(torch)
    t, o = theirs.value, ours.value
    if isinstance(t, pt.linalg.LinAlgError):
        assert isinstance(o, torch.linalg.LinAlgError), f"{type(o).__name__}: {o} (torch raised LinAlgError: {t})"
    else:
        assert type(o).__name__ == type(t).__name__, f"{type(o).__name__}: {o} (torch raised {type(t).__name__}: {t})"
    if exact:
        assert str(o) == str(t), f"ours: {o!r}\ntorch: {t!r}"
    else:
        assert str(t) in str(o), f"{o!r} does not contain {t!r}"
