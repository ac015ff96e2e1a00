"""nn.Module's state_dict machinery and hook options against PyTorch's: extra state, positional
state_dict arguments, state_dict / load_state_dict hooks, backward hooks with ``prepend``,
forward hooks with ``always_call``, get_buffer / set_submodule and ``to``'s dtype check."""

import warnings
from typing import Any, Callable, Dict, List

import pytest

import ferrotorch as torch
from torch_oracle import needs_torch, pt

pytestmark = needs_torch


def _outcome(fn: Callable[[Any], Any], lib: Any) -> Any:
    """The result of ``fn(lib)`` as plain values, or the exception's class name and message."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return repr(fn(lib))
    except Exception as e:  # noqa: BLE001 - the exception itself is what is compared
        return (type(e).__name__, str(e))


def _linear(lib: Any) -> Any:
    m = lib.nn.Linear(3, 2)
    with lib.no_grad():
        m.weight.copy_(lib.arange(6.0).reshape(2, 3) * 0.1)
        m.bias.copy_(lib.tensor([0.5, -0.5]))
    return m


def _with_extra_state(lib: Any) -> Any:
    class WithExtra(lib.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.fc = _linear(lib)
            self.counter = 3

        def get_extra_state(self) -> Dict[str, int]:
            return {"counter": self.counter}

        def set_extra_state(self, state: Dict[str, int]) -> None:
            self.counter = state["counter"]

    return WithExtra()


def _extra_state_round_trip(lib: Any) -> Any:
    src = _with_extra_state(lib)
    src.counter = 7
    sd = src.state_dict()
    dst = _with_extra_state(lib)
    keys = dst.load_state_dict(sd)
    return list(sd), sd["_extra_state"], dst.counter, keys


def _extra_state_missing(lib: Any) -> Any:
    m = _with_extra_state(lib)
    sd = m.state_dict()
    del sd["_extra_state"]
    return m.load_state_dict(sd)


def _extra_state_nested(lib: Any) -> Any:
    outer = lib.nn.Sequential(_with_extra_state(lib), lib.nn.ReLU())
    return list(outer.state_dict())


def _positional_state_dict(lib: Any) -> Any:
    m = _linear(lib)
    dest: Dict[str, Any] = {}
    out = m.state_dict(dest, "p.", True)
    return out is dest, list(dest), type(dest["p.weight"]).__name__


def _state_dict_hooks(lib: Any) -> Any:
    calls: List[Any] = []
    m = lib.nn.Sequential(_linear(lib))
    m[0].register_state_dict_pre_hook(lambda mod, prefix, keep_vars: calls.append(("pre", prefix, keep_vars)))

    def post(mod: Any, sd: Any, prefix: str, local_metadata: Any) -> None:
        calls.append(("post", prefix, sorted(sd)))
        sd[prefix + "tag"] = 1

    m[0].register_state_dict_post_hook(post)
    sd = m.state_dict()
    return calls, list(sd)


def _state_dict_post_hook_returning(lib: Any) -> Any:
    m = _linear(lib)
    m.register_state_dict_post_hook(lambda mod, sd, prefix, meta: {})
    return m.state_dict()


def _load_hooks(lib: Any) -> Any:
    calls: List[Any] = []
    m = lib.nn.Sequential(_linear(lib))

    def pre(mod: Any, sd: Any, prefix: str, meta: Any, strict: bool, missing: Any, unexpected: Any, errors: Any) -> None:
        calls.append(("pre", prefix, strict))
        sd[prefix + "bias"] = lib.zeros(2)

    def post(mod: Any, keys: Any) -> None:
        calls.append(("post", list(keys.missing_keys), list(keys.unexpected_keys)))
        keys.unexpected_keys.clear()

    m[0].register_load_state_dict_pre_hook(pre)
    m.register_load_state_dict_post_hook(post)
    sd = {"0.weight": lib.ones(2, 3), "junk": lib.zeros(1)}
    result = m.load_state_dict(sd)
    return calls, result, m[0].bias.tolist(), list(sd)


def _backward_hook_prepend(lib: Any) -> Any:
    calls: List[str] = []
    m = _linear(lib)
    m.register_full_backward_hook(lambda mod, gi, go: calls.append("second"))
    m.register_full_backward_hook(lambda mod, gi, go: calls.append("first"), prepend=True)
    m(lib.ones(1, 3, requires_grad=True)).sum().backward()
    return calls


def _always_call(lib: Any) -> Any:
    calls: List[str] = []
    m = _linear(lib)

    def failing_pre(mod: Any, args: Any) -> None:
        raise ValueError("pre hook failed")

    m.register_forward_hook(lambda mod, args, out: calls.append("plain"))
    m.register_forward_hook(lambda mod, args, out: calls.append("always"), always_call=True)
    m.register_forward_pre_hook(failing_pre)
    try:
        m(lib.ones(1, 3))
    except ValueError as e:
        calls.append(str(e))
    return calls


def _get_buffer_set_submodule(lib: Any) -> Any:
    m = lib.nn.Sequential(lib.nn.BatchNorm1d(2), _linear(lib))
    rm = m.get_buffer("0.running_mean").tolist()
    m.set_submodule("1", lib.nn.ReLU())
    return rm, [type(c).__name__ for c in m.children()]


def _unexpected_key_order(lib: Any) -> Any:
    m = lib.nn.Sequential(_linear(lib), lib.nn.Sequential(_linear(lib)))
    sd = {"1.0.junk": lib.zeros(1), "0.junk": lib.zeros(1), "junk": lib.zeros(1), "0.weight": lib.ones(2, 3), "2.x": lib.zeros(1)}
    return m.load_state_dict(sd, strict=False)


def _overridden_load_from_state_dict(lib: Any) -> Any:
    class Renamed(lib.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.w = lib.nn.Parameter(lib.zeros(2))

        def _load_from_state_dict(self, state_dict: Any, prefix: str, *args: Any) -> None:
            if prefix + "old_w" in state_dict:
                state_dict[prefix + "w"] = state_dict.pop(prefix + "old_w")
            super()._load_from_state_dict(state_dict, prefix, *args)

    outer = lib.nn.Sequential(Renamed())
    result = outer.load_state_dict({"0.old_w": lib.ones(2)})
    return result, outer[0].w.tolist()


def _overridden_save_to_state_dict(lib: Any) -> Any:
    class Scaled(lib.nn.Linear):
        def _save_to_state_dict(self, destination: Any, prefix: str, keep_vars: bool) -> None:
            super()._save_to_state_dict(destination, prefix, keep_vars)
            destination[prefix + "scale"] = 2.0

    return list(lib.nn.Sequential(Scaled(2, 2)).state_dict().items())[-1]


def _backward_pre_hook(lib: Any) -> Any:
    calls: List[Any] = []
    m = _linear(lib)
    m.register_full_backward_pre_hook(lambda mod, go: (calls.append([g.tolist() for g in go]), (go[0] * 2,))[1])
    m.register_full_backward_hook(lambda mod, gi, go: calls.append(("full", [g.tolist() for g in go])))
    x = lib.ones(1, 3, requires_grad=True)
    m(x).sum().backward()
    return calls, x.grad.tolist(), m.weight.grad.tolist()


def _to_empty(lib: Any) -> Any:
    m = lib.nn.Sequential(_linear(lib), lib.nn.BatchNorm1d(2))
    m.to_empty(device="cpu")
    return [(n, tuple(p.shape), str(p.dtype), type(p).__name__, p.requires_grad) for n, p in m.state_dict(keep_vars=True).items()]


def _two_input_module(lib: Any) -> Any:
    class TwoInputs(lib.nn.Module):
        def forward(self, a: Any, k: float, b: Any) -> Any:
            return (a * b * k).sum(1)

    return TwoInputs()


def _backward_hook_two_inputs(lib: Any) -> Any:
    calls: List[Any] = []
    m = _two_input_module(lib)

    def hook(mod: Any, gi: Any, go: Any) -> Any:
        calls.append(([None if g is None else g.tolist() for g in gi], [g.tolist() for g in go]))
        return (gi[0] * 10, None, gi[2] * 100)

    m.register_full_backward_hook(hook)
    a = lib.ones(1, 2, requires_grad=True)
    b = lib.full((1, 2), 3.0, requires_grad=True)
    m(a, 2.0, b).sum().backward()
    m(a, 2.0, b).sum().backward()
    return calls, a.grad.tolist(), b.grad.tolist()


def _backward_hook_one_of_two_inputs(lib: Any) -> Any:
    calls: List[Any] = []
    m = _two_input_module(lib)
    m.register_full_backward_hook(lambda mod, gi, go: calls.append([None if g is None else g.tolist() for g in gi]))
    m(lib.ones(1, 2), 2.0, lib.full((1, 2), 3.0, requires_grad=True)).sum().backward()
    return calls


def _backward_hook_reused_input(lib: Any) -> Any:
    calls: List[Any] = []
    m = _linear(lib)
    m.register_full_backward_hook(lambda mod, gi, go: calls.append([g.tolist() for g in gi]))
    x = lib.ones(1, 3, requires_grad=True)
    m(x).sum().backward()
    m(x * 2).sum().backward()
    return calls, x.grad.tolist()


CASES = {
    "full backward hook, two tensor inputs": _backward_hook_two_inputs,
    "full backward hook, one of two inputs needs grad": _backward_hook_one_of_two_inputs,
    "full backward hook, input reused across calls": _backward_hook_reused_input,
    "full backward pre hook": _backward_pre_hook,
    "to_empty": _to_empty,
    "_get_name": lambda t: _linear(t)._get_name(),
    "unexpected keys reported module by module": _unexpected_key_order,
    "overridden _load_from_state_dict": _overridden_load_from_state_dict,
    "overridden _save_to_state_dict": _overridden_save_to_state_dict,
    "extra state round trip": _extra_state_round_trip,
    "extra state missing": _extra_state_missing,
    "extra state nested key order": _extra_state_nested,
    "positional state_dict arguments": _positional_state_dict,
    "state_dict pre and post hooks": _state_dict_hooks,
    "public state_dict post hook returning a value": _state_dict_post_hook_returning,
    "load_state_dict pre and post hooks": _load_hooks,
    "backward hook prepend": _backward_hook_prepend,
    "forward hook always_call": _always_call,
    "get_buffer and set_submodule": _get_buffer_set_submodule,
    "get_buffer of a parameter": lambda t: _linear(t).get_buffer("weight"),
    "to an integer dtype": lambda t: _linear(t).to(t.int64),
}


@pytest.mark.parametrize("name", list(CASES))
def test_matches_pytorch(name: str) -> None:
    fn = CASES[name]
    assert _outcome(fn, torch) == _outcome(fn, pt)


def test_positional_state_dict_warns() -> None:
    with pytest.warns(FutureWarning, match="Positional args are being deprecated"):
        _linear(torch).state_dict({}, "x.")


def _global_hooks(lib: Any) -> Any:
    import importlib

    mod = importlib.import_module(lib.__name__ + ".nn.modules.module")
    calls: List[Any] = []
    handles = [
        mod.register_module_forward_pre_hook(lambda m, a: calls.append(("pre", type(m).__name__))),
        mod.register_module_forward_hook(lambda m, a, o: calls.append(("fwd", type(m).__name__))),
        mod.register_module_full_backward_hook(lambda m, gi, go: calls.append(("bw", type(m).__name__, len(gi)))),
        mod.register_module_full_backward_pre_hook(lambda m, go: calls.append(("bwpre", type(m).__name__))),
        mod.register_module_parameter_registration_hook(lambda m, n, p: calls.append(("param", n))),
        mod.register_module_module_registration_hook(lambda m, n, s: calls.append(("module", n))),
        mod.register_module_buffer_registration_hook(lambda m, n, b: calls.append(("buffer", n))),
    ]
    try:
        net = lib.nn.Sequential(lib.nn.Linear(2, 2), lib.nn.ReLU())
        net.register_buffer("z", lib.zeros(1))
        net[0].register_forward_hook(lambda m, a, o: calls.append(("own fwd",)))
        net(lib.ones(1, 2))
        lin = lib.nn.Linear(2, 1)
        lin(lib.ones(1, 2, requires_grad=True)).sum().backward()
    finally:
        for h in handles:
            h.remove()
    lin(lib.ones(1, 2))
    return calls


def test_global_module_hooks_match_pytorch() -> None:
    assert _outcome(_global_hooks, torch) == _outcome(_global_hooks, pt)


def test_forward_pre_hook_with_kwargs_bad_return_matches_pytorch() -> None:
    def run(lib: Any) -> Any:
        m = _linear(lib)
        m.register_forward_pre_hook(lambda mod, args, kwargs: 3, with_kwargs=True)
        return m(lib.ones(1, 3))

    assert _outcome(run, torch) == _outcome(run, pt)
