"""Every case of the module table (module_table.py, module_cases_*.py) against PyTorch."""

from __future__ import annotations

import importlib
import os
import pkgutil
from pathlib import Path
from typing import Any, List, Tuple

import numpy as np
import pytest

import ferrotorch as torch
from module_table import ModCase, flatten_tensors
from torch_oracle import assert_close, needs_torch, pt, to_ft, to_pt

pytestmark = needs_torch


def _all_cases() -> List[ModCase]:
    # MODULE_CASES=conv,pooling restricts the run to those case files (while one is being edited).
    only = {f"module_cases_{n}" for n in os.environ.get("MODULE_CASES", "").split(",") if n}
    cases: List[ModCase] = []
    here = Path(__file__).parent
    for info in sorted(pkgutil.iter_modules([str(here)]), key=lambda i: i.name):
        if info.name.startswith("module_cases_") and (not only or info.name in only):
            cases.extend(importlib.import_module(info.name).CASES)
    ids = [c.id for c in cases]
    dup = {i for i in ids if ids.count(i) > 1}
    assert not dup, f"duplicate module case ids: {sorted(dup)}"
    return cases


CASES = _all_cases()


def _structure(m: Any) -> Tuple[Any, ...]:
    params = [(n, tuple(p.shape), str(p.dtype).split(".")[-1], bool(p.requires_grad)) for n, p in m.named_parameters()]
    buffers = [(n, tuple(b.shape), str(b.dtype).split(".")[-1]) for n, b in m.named_buffers()]
    return params, buffers, list(m.state_dict().keys())


def _build(case: ModCase) -> Tuple[Any, Any]:
    pt.manual_seed(0)
    theirs = case.make(pt)
    ours = case.make(torch)
    return ours, theirs


def _inputs(case: ModCase, seed: int) -> Tuple[List[Any], List[Any], dict, dict, List[int]]:
    raw = case.inputs(np.random.default_rng(seed))
    floats = [i for i, v in enumerate(raw) if isinstance(v, np.ndarray) and v.dtype.kind == "f"]
    grad_idx = list(case.grad_inputs) if case.grad_inputs is not None else floats
    ours, theirs = [], []
    for i, v in enumerate(raw):
        if isinstance(v, np.ndarray):
            rg = case.backward and i in grad_idx
            ours.append(torch.from_numpy(v.copy()).requires_grad_(rg))
            theirs.append(pt.from_numpy(v.copy()).requires_grad_(rg))
        else:
            ours.append(v)
            theirs.append(v)
    kw_ours = {k: torch.from_numpy(v.copy()) if isinstance(v, np.ndarray) else v for k, v in case.kwargs.items()}
    kw_theirs = {k: pt.from_numpy(v.copy()) if isinstance(v, np.ndarray) else v for k, v in case.kwargs.items()}
    return ours, theirs, kw_ours, kw_theirs, grad_idx


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_structure_and_repr(case: ModCase) -> None:
    ours, theirs = _build(case)
    assert _structure(ours) == _structure(theirs)
    assert repr(ours) == repr(theirs)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_forward_backward(case: ModCase) -> None:
    ours, theirs = _build(case)
    report = ours.load_state_dict({k: to_ft(v) for k, v in theirs.state_dict().items()})
    assert not report.missing_keys and not report.unexpected_keys
    for seed, mode in enumerate(case.modes):
        ours.train(mode == "train")
        theirs.train(mode == "train")
        ours.zero_grad()
        theirs.zero_grad()
        xi, ti, kwi, kwt, grad_idx = _inputs(case, seed)
        args_o = case.adapt_inputs(torch, xi) if case.adapt_inputs else xi
        args_t = case.adapt_inputs(pt, ti) if case.adapt_inputs else ti
        if case.error is not None:
            # An invalid input: the same exception class and message as PyTorch.
            with pytest.raises(case.error) as theirs_err:
                theirs(*args_t, **kwt)
            with pytest.raises(case.error) as ours_err:
                ours(*args_o, **kwi)
            assert str(ours_err.value) == str(theirs_err.value)
            continue
        out_o = ours(*args_o, **kwi)
        out_t = theirs(*args_t, **kwt)
        fo = flatten_tensors(out_o, lambda v: isinstance(v, torch.Tensor))
        ft = flatten_tensors(out_t, lambda v: isinstance(v, pt.Tensor))
        assert len(fo) == len(ft), f"{mode}: {len(fo)} output tensors vs torch {len(ft)}"
        values = not (case.random_train and mode == "train")
        for k, (a, b) in enumerate(zip(fo, ft)):
            if values:
                assert_close(a, b, case.rtol, case.atol, what=f"{mode} output {k}")
            else:
                assert tuple(a.shape) == tuple(b.shape), f"{mode} output {k} shape"
        for (n, a), (_, b) in zip(ours.named_buffers(), theirs.named_buffers()):
            assert_close(a, b, case.rtol, case.atol, what=f"{mode} buffer {n} after forward")
        if not case.backward or not values:
            continue
        pairs = [(a, b) for a, b in zip(fo, ft) if b.requires_grad]
        assert [a.requires_grad for a, _ in pairs] == [True] * len(pairs), f"{mode}: an output does not require grad"
        if not pairs:
            continue
        rng = np.random.default_rng(100 + seed)
        gs = [rng.standard_normal(tuple(b.shape)).astype(str(b.dtype).split(".")[-1]) for _, b in pairs]
        torch.autograd.backward([a for a, _ in pairs], [torch.from_numpy(g.copy()) for g in gs])
        pt.autograd.backward([b for _, b in pairs], [pt.from_numpy(g.copy()) for g in gs])
        for i in grad_idx:
            assert_close(xi[i].grad, ti[i].grad, case.rtol, case.atol, what=f"{mode} grad of input {i}")
        for (n, a), (_, b) in zip(ours.named_parameters(), theirs.named_parameters()):
            if b.grad is None:
                assert a.grad is None, f"{mode} grad of {n}: torch has none"
            else:
                assert_close(a.grad, b.grad, case.rtol, case.atol, what=f"{mode} grad of {n}")


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_state_dict_to_torch(case: ModCase) -> None:
    ours, _ = _build(case)
    pt.manual_seed(1)
    fresh = case.make(pt)
    fresh.load_state_dict({k: to_pt(v) for k, v in ours.state_dict().items()}, strict=True)
    theirs_sd = fresh.state_dict()
    for k, v in ours.state_dict().items():
        assert_close(v, theirs_sd[k], 0, 0, what=f"state_dict[{k!r}] after loading into torch")
