"""Every optimizer of tests/optim_table.py against PyTorch: parameters after each step, the
state and param_groups at the end, repr, and the state_dict interchange in both directions."""

from __future__ import annotations

from typing import Any, Callable, List

import numpy as np
import pytest
from optim_table import CASES, ERROR_CASES, OptCase

import ferrotorch as torch
from torch_oracle import needs_torch, pt, to_ft, to_pt

pytestmark = needs_torch

TOL = {"float32": dict(rtol=2e-5, atol=1e-6), "float64": dict(rtol=1e-10, atol=1e-12)}


def make_arrays(dtype: str) -> List[np.ndarray]:
    """The initial values: a matrix, a vector, a 0-d value and a matrix used transposed."""
    rng = np.random.default_rng(7)
    shapes = [(3, 4), (5,), (), (4, 3)]
    return [np.asarray(rng.standard_normal(s)).astype(dtype) for s in shapes]


def make_params(lib: Any, arrays: List[np.ndarray], contiguous: bool = False) -> List[Any]:
    """Leaf tensors of ``lib``; the last is a non-contiguous view (a transposed matrix) unless
    ``contiguous``."""
    ps = [lib.tensor(a).requires_grad_(True) for a in arrays[:3]]
    last = lib.tensor(arrays[3]).t()
    ps.append((last.contiguous() if contiguous else last).detach().requires_grad_(True))
    return ps


def loss_constants(dtype: str) -> List[tuple]:
    rng = np.random.default_rng(11)
    shapes = [(3, 4), (5,), (), (3, 4)]
    return [(np.asarray(rng.uniform(0.5, 2.0, s)).astype(dtype), np.asarray(rng.standard_normal(s)).astype(dtype)) for s in shapes]


def make_closure(lib: Any, opt: Any, params: List[Any], consts: List[tuple]) -> Callable[[], Any]:
    """A smooth non-quadratic loss: sum of a (p - c)^2 / 2 + p^4 / 20 over the parameters."""
    tensors = [(lib.tensor(a), lib.tensor(c)) for a, c in consts]

    def closure() -> Any:
        opt.zero_grad()
        loss = None
        for p, (a, c) in zip(params, tensors):
            term = (a * (p - c) ** 2).sum() * 0.5 + (p**4).sum() * 0.05
            loss = term if loss is None else loss + term
        loss.backward()
        return loss

    return closure


def build(lib: Any, case: OptCase, params: List[Any]) -> Any:
    kwargs = dict(case.kwargs)
    if case.tensor_lr:
        kwargs["lr"] = lib.tensor(kwargs["lr"])
    cls = getattr(lib.optim, case.name)
    if case.groups is None:
        return cls(params, **kwargs)
    groups = [dict(g, params=[params[i] for i in idx]) for g, idx in zip(case.groups, case.split)]
    return cls(groups, **kwargs)


def convert(value: Any, fn: Callable[[Any], Any], is_tensor: Callable[[Any], bool]) -> Any:
    """A copy of a (nested) state_dict with each tensor passed through ``fn``."""
    if is_tensor(value):
        return fn(value)
    if isinstance(value, dict):
        return {k: convert(v, fn, is_tensor) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(convert(v, fn, is_tensor) for v in value)
    return value


def assert_same_value(ours: Any, theirs: Any, tol: dict, what: str) -> None:
    """Tensors: same dtype, shape and close values; containers recursively; the rest equal."""
    if isinstance(theirs, (pt.Tensor, torch.Tensor)):
        assert isinstance(ours, (pt.Tensor, torch.Tensor)), f"{what}: torch has a tensor, ours is {type(ours).__name__}"
        assert str(ours.dtype) == str(theirs.dtype), f"{what}: dtype {ours.dtype} vs torch {theirs.dtype}"
        assert tuple(ours.shape) == tuple(theirs.shape), f"{what}: shape {tuple(ours.shape)} vs torch {tuple(theirs.shape)}"
        np.testing.assert_allclose(np.array(ours.detach().numpy()), theirs.detach().numpy(), err_msg=what, **tol)
    elif isinstance(theirs, dict):
        assert list(ours.keys()) == list(theirs.keys()), f"{what}: keys {list(ours.keys())} vs torch {list(theirs.keys())}"
        for k in theirs:
            assert_same_value(ours[k], theirs[k], tol, f"{what}[{k!r}]")
    elif isinstance(theirs, (list, tuple)):
        assert type(ours) is type(theirs) and len(ours) == len(theirs), f"{what}: {ours!r} vs torch {theirs!r}"
        for i, (a, b) in enumerate(zip(ours, theirs)):
            assert_same_value(a, b, tol, f"{what}[{i}]")
    elif isinstance(theirs, float) and isinstance(ours, float):
        np.testing.assert_allclose(ours, theirs, err_msg=what, **tol)
    else:
        assert type(ours) is type(theirs) and ours == theirs, f"{what}: {ours!r} vs torch {theirs!r}"


def assert_params_close(ours: List[Any], theirs: List[Any], tol: dict, what: str) -> None:
    for i, (a, b) in enumerate(zip(ours, theirs)):
        assert_same_value(a.detach(), b.detach(), tol, f"{what} param {i}")


def step_both(pairs: List[tuple], tol: dict, what: str) -> None:
    """One step of each (optimizer, params, closure) pair; all agree with the first (PyTorch's)."""
    losses = [opt.step(closure) for opt, _, closure in pairs]
    ref_params = pairs[0][1]
    for (opt, params, _), loss in zip(pairs[1:], losses[1:]):
        assert_params_close(params, ref_params, tol, what)
        np.testing.assert_allclose(float(loss.detach()), float(losses[0].detach()), err_msg=f"{what}: loss", **tol)


RUNS = [pytest.param(case, dtype, id=f"{case.id}-{dtype}") for case in CASES for dtype in case.dtypes]


@pytest.mark.parametrize("case,dtype", RUNS)
def test_optimizer_matches_pytorch(case: OptCase, dtype: str) -> None:
    tol = TOL[dtype]
    arrays, consts = make_arrays(dtype), loss_constants(dtype)
    ft_params, pt_params = make_params(torch, arrays, case.contiguous), make_params(pt, arrays, case.contiguous)
    ft_opt, pt_opt = build(torch, case, ft_params), build(pt, case, pt_params)
    assert repr(ft_opt) == repr(pt_opt)
    ft_closure = make_closure(torch, ft_opt, ft_params, consts)
    pt_closure = make_closure(pt, pt_opt, pt_params, consts)
    pairs = [(pt_opt, pt_params, pt_closure), (ft_opt, ft_params, ft_closure)]
    for i in range(case.steps):
        step_both(pairs, tol, f"{case.id} step {i + 1}")

    ft_sd, pt_sd = ft_opt.state_dict(), pt_opt.state_dict()
    assert_same_value(ft_sd, pt_sd, tol, f"{case.id} state_dict")
    assert repr(ft_opt) == repr(pt_opt)

    # Interchange: each library's state_dict, converted tensor by tensor, loads into the other
    # library's optimizer over copies of the current parameters, and the runs continue as one.
    ft_copy = [to_ft(p.detach()).requires_grad_(True) for p in pt_params]
    pt_copy = [to_pt(p.detach()).requires_grad_(True) for p in ft_params]
    ft_loaded, pt_loaded = build(torch, case, ft_copy), build(pt, case, pt_copy)
    ft_loaded.load_state_dict(convert(pt_sd, to_ft, lambda v: isinstance(v, pt.Tensor)))
    pt_loaded.load_state_dict(convert(ft_sd, to_pt, lambda v: isinstance(v, torch.Tensor)))
    assert_same_value(ft_loaded.state_dict(), pt_loaded.state_dict(), tol, f"{case.id} loaded state")
    pairs += [
        (pt_loaded, pt_copy, make_closure(pt, pt_loaded, pt_copy, consts)),
        (ft_loaded, ft_copy, make_closure(torch, ft_loaded, ft_copy, consts)),
    ]
    for i in range(3):
        step_both(pairs, tol, f"{case.id} after interchange step {i + 1}")


@pytest.mark.parametrize("name,kwargs", ERROR_CASES, ids=[f"{n}-{'-'.join(map(str, k))}" for n, k in ERROR_CASES])
def test_invalid_arguments_raise_as_pytorch(name: str, kwargs: dict) -> None:
    with pytest.raises(Exception) as theirs:
        getattr(pt.optim, name)([pt.zeros(2, requires_grad=True)], **kwargs)
    with pytest.raises(type(theirs.value)) as ours:
        getattr(torch.optim, name)([torch.zeros(2, requires_grad=True)], **kwargs)
    assert str(ours.value) == str(theirs.value)
