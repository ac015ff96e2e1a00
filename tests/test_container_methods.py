"""Container methods whose results the module table does not see (return values, membership,
iteration order, dict methods), each run with ferrotorch and PyTorch and compared."""

from __future__ import annotations

from collections import OrderedDict
from typing import Any, Callable

import pytest

import ferrotorch as torch
from torch_oracle import needs_torch, pt

pytestmark = needs_torch


def _seq(t: Any) -> Any:
    return t.nn.Sequential(OrderedDict([("a", t.nn.Linear(2, 2)), ("b", t.nn.ReLU()), ("c", t.nn.Tanh())]))


def _pd(t: Any) -> Any:
    return t.nn.ParameterDict(OrderedDict([("x", t.nn.Parameter(t.zeros(1))), ("y", t.nn.Parameter(t.ones(2)))]))


CHECKS = {
    "Sequential-pop-returns": lambda t: repr(_seq(t).pop(1)),
    "Sequential-pop-slice-returns": lambda t: repr(_seq(t).pop(slice(0, 2))),
    "Sequential-len-iter": lambda t: (len(_seq(t)), [type(m).__name__ for m in _seq(t)]),
    "Sequential-insert-returns-self": lambda t: (lambda s: s.insert(0, t.nn.Sigmoid()) is s)(_seq(t)),
    "Sequential-append-returns-self": lambda t: (lambda s: s.append(t.nn.Sigmoid()) is s)(_seq(t)),
    "Sequential-slice-type": lambda t: type(_seq(t)[1:]).__name__,
    "Sequential-index-identity": lambda t: (lambda s: s[-1] is s.c and s[0] is s.a)(_seq(t)),
    "Sequential-dir-hides-digits": lambda t: [k for k in dir(t.nn.Sequential(t.nn.ReLU())) if k.isdigit()],
    "ModuleList-contains": lambda t: (lambda r, ml: (r in ml, t.nn.ReLU() in ml))(*(lambda r: (r, t.nn.ModuleList([r])))(t.nn.ReLU())),
    "ModuleList-pop-returns": lambda t: repr(t.nn.ModuleList([t.nn.ReLU(), t.nn.Tanh()]).pop(0)),
    "ModuleList-extend-returns-self": lambda t: (lambda ml: ml.extend([t.nn.ReLU()]) is ml)(t.nn.ModuleList()),
    "ModuleList-iadd-returns-self": lambda t: (lambda ml: ml.__iadd__([t.nn.ReLU()]) is ml)(t.nn.ModuleList()),
    "ModuleList-insert-negative": lambda t: (lambda ml: (ml.insert(-1, t.nn.Tanh()), list(ml._modules))[1])(t.nn.ModuleList([t.nn.ReLU(), t.nn.ReLU()])),
    "ModuleDict-keys-values-items": lambda t: (lambda md: (list(md.keys()), [type(v).__name__ for v in md.values()], [k for k, _ in md.items()], list(md)))(t.nn.ModuleDict({"z": t.nn.ReLU(), "a": t.nn.Tanh()})),
    "ModuleDict-pop-contains-len": lambda t: (lambda md: (type(md.pop("z")).__name__, "z" in md, "a" in md, len(md)))(t.nn.ModuleDict({"z": t.nn.ReLU(), "a": t.nn.Tanh()})),
    "ParameterDict-get-default": lambda t: (lambda pd: (pd.get("q", 3), tuple(pd.get("y").shape)))(_pd(t)),
    "ParameterDict-reversed-copy": lambda t: (lambda pd: (list(reversed(pd)), list(pd.copy().keys()), pd.copy()["x"] is pd["x"]))(_pd(t)),
    "ParameterDict-popitem": lambda t: (lambda pd: (pd.popitem()[0], list(pd.keys())))(_pd(t)),
    "ParameterDict-fromkeys": lambda t: (lambda pd: repr(pd.fromkeys(["u", "v"], t.nn.Parameter(t.zeros(2)))))(_pd(t)),
    "ParameterDict-or": lambda t: list((_pd(t) | t.nn.ParameterDict({"a": t.zeros(1)})).keys()),
    "ParameterDict-ior": lambda t: (lambda pd: (pd.__ior__(t.nn.ParameterDict({"a": t.zeros(1)})) is pd, list(pd)))(_pd(t)),
    "ParameterDict-setdefault-existing": lambda t: (lambda pd: pd.setdefault("x") is pd["x"])(_pd(t)),
    "ParameterDict-tensor-becomes-parameter": lambda t: (lambda pd: (pd.__setitem__("z", t.zeros(2)), type(pd["z"]).__name__, pd["z"].requires_grad)[1:])(_pd(t)),
    "ParameterDict-clear": lambda t: (lambda pd: (pd.clear(), len(pd), [n for n, _ in pd.named_parameters()])[1:])(_pd(t)),
    "ParameterList-slice-values": lambda t: (lambda pl: [tuple(p.shape) for p in pl[::-1]])(t.nn.ParameterList([t.zeros(1), t.zeros(2), t.zeros(3)])),
    "ParameterList-object-entries": lambda t: repr(t.nn.ParameterList([t.zeros(2), "text", t.nn.ReLU()])),
    "ParameterList-named-parameters": lambda t: [n for n, _ in t.nn.ParameterList([t.zeros(2), t.zeros(1)]).named_parameters()],
}


def _run(fn: Callable[[Any], Any], lib: Any) -> Any:
    # PyTorch's quirks count too: insert into a named Sequential, or at a negative index of a
    # ModuleList, raises KeyError there, and must here.
    try:
        return fn(lib)
    except Exception as e:  # noqa: BLE001 - the outcome is what we compare
        return ("raised", type(e).__name__, str(e))


@pytest.mark.parametrize("name", list(CHECKS))
def test_container_method_like_torch(name: str) -> None:
    assert _run(CHECKS[name], torch) == _run(CHECKS[name], pt)
