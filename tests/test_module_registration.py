"""nn.Module's registration rules against PyTorch's: assigning None to a declared parameter,
buffer or module name, Parameter/Module/Buffer values replacing other kinds, the checks of
register_parameter/register_buffer/add_module, and their exception classes and messages."""

from typing import Any, Callable, Tuple

import pytest

import ferrotorch as torch
from torch_oracle import needs_torch, pt

pytestmark = needs_torch


def _subclass(lib: Any, init: Callable[[Any], None]) -> Any:
    return type("M", (lib.nn.Module,), {"__init__": init})


CASES = {
    "plain None then register_parameter": lambda t: (lambda m: (setattr(m, "bias", None), m.register_parameter("bias", None)))(t.nn.Module()),
    "register_parameter None then assign None": lambda t: (lambda m: (m.register_parameter("bias", None), setattr(m, "bias", None), list(m.state_dict()), m.bias, list(m._parameters)))(t.nn.Module()),
    "tensor assigned to a parameter name": lambda t: (lambda m: (m.register_parameter("w", t.nn.Parameter(t.zeros(1))), setattr(m, "w", t.zeros(1))))(t.nn.Module()),
    "buffer None then tensor": lambda t: (lambda m: (m.register_buffer("b", None), list(m.state_dict()), setattr(m, "b", t.zeros(2)), list(m.state_dict())))(t.nn.Module()),
    "buffer assigned an int": lambda t: (lambda m: (m.register_buffer("b", None), setattr(m, "b", 3)))(t.nn.Module()),
    "non-persistent buffer reassigned": lambda t: (lambda m: (m.register_buffer("b", t.zeros(2), persistent=False), setattr(m, "b", t.ones(2)), list(m.state_dict()), [n for n, _ in m.named_buffers()]))(t.nn.Module()),
    "parameter name with a dot": lambda t: t.nn.Module().register_parameter("a.b", None),
    "empty parameter name": lambda t: t.nn.Module().register_parameter("", None),
    "int parameter name": lambda t: t.nn.Module().register_parameter(1, None),
    "buffer over a plain attribute": lambda t: (lambda m: (setattr(m, "x", 1), m.register_buffer("x", None)))(t.nn.Module()),
    "buffer name with a dot": lambda t: t.nn.Module().register_buffer("a.b", None),
    "buffer of an int": lambda t: t.nn.Module().register_buffer("b", 1),
    "add_module over a plain attribute": lambda t: (lambda m: (setattr(m, "x", 1), m.add_module("x", t.nn.Identity())))(t.nn.Module()),
    "add_module of an int": lambda t: t.nn.Module().add_module("x", 3),
    "add_module None": lambda t: (lambda m: (m.add_module("x", None), list(m._modules.items()), m.x))(t.nn.Module()),
    "non-leaf parameter": lambda t: t.nn.Module().register_parameter("w", t.nn.Parameter(t.zeros(1)) * 2),
    "plain tensor as parameter": lambda t: t.nn.Module().register_parameter("w", t.zeros(1)),
    "Parameter replaces a module": lambda t: (lambda m: (setattr(m, "w", t.nn.Identity()), setattr(m, "w", t.nn.Parameter(t.zeros(1))), list(m._parameters), list(m._modules)))(t.nn.Module()),
    "module replaces a buffer": lambda t: (lambda m: (m.register_buffer("w", t.zeros(1)), setattr(m, "w", t.nn.Identity()), list(m._buffers), list(m._modules)))(t.nn.Module()),
    "module set to None": lambda t: (lambda m: (setattr(m, "w", t.nn.Identity()), setattr(m, "w", None), list(m._modules.items())))(t.nn.Module()),
    "module set to an int": lambda t: (lambda m: (setattr(m, "w", t.nn.Identity()), setattr(m, "w", 1)))(t.nn.Module()),
    "delattr of a non-persistent buffer": lambda t: (lambda m: (m.register_buffer("b", t.zeros(1), persistent=False), delattr(m, "b"), sorted(m._non_persistent_buffers_set), hasattr(m, "b")))(t.nn.Module()),
    "nn.Buffer with persistent=False": lambda t: (lambda m: (setattr(m, "b", t.nn.Buffer(t.zeros(1), persistent=False)), list(m.state_dict()), [n for n, _ in m.named_buffers()]))(t.nn.Module()),
    "missing attribute": lambda t: t.nn.Module().foo,
    "Parameter before __init__": lambda t: _subclass(t, lambda self: setattr(self, "w", t.nn.Parameter(t.zeros(1))))(),
    "module before __init__": lambda t: _subclass(t, lambda self: setattr(self, "w", t.nn.Identity()))(),
    "buffer before __init__": lambda t: _subclass(t, lambda self: self.register_buffer("b", None))(),
    "bias=False layers": lambda t: [list(m.state_dict()) + [m.bias] for m in (t.nn.Conv2d(3, 4, 3, bias=False), t.nn.Conv1d(3, 4, 3, bias=False), t.nn.ConvTranspose2d(3, 4, 3, bias=False), t.nn.LayerNorm(5, bias=False), t.nn.Linear(2, 3, bias=False))],
}


def _outcome(lib: Any, fn: Callable[[Any], Any]) -> Tuple[str, str]:
    try:
        return "ok", repr(fn(lib))
    except Exception as e:  # noqa: BLE001 - the exception class is what is compared
        return type(e).__name__, str(e)


@pytest.mark.parametrize("name", list(CASES))
def test_registration_matches_pytorch(name: str) -> None:
    theirs = _outcome(pt, CASES[name])
    ours = _outcome(torch, CASES[name])
    # Type names in messages name each library's own module path.
    assert (ours[0], ours[1].replace("ferrotorch.", "torch.")) == theirs
