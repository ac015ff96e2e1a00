"""The ``Optimizer`` base class: parameter groups, per-parameter state, hooks, state_dict."""

from __future__ import annotations

import functools
import warnings
from collections import OrderedDict, defaultdict
from copy import deepcopy
from itertools import chain
from typing import Any, Callable, Dict, Iterable, List, Optional, Tuple

from .. import _core
from .._grad_mode import enable_grad, no_grad
from ..utils.hooks import RemovableHandle

Tensor = _core.Tensor

__all__ = ["Optimizer", "required", "register_optimizer_step_pre_hook", "register_optimizer_step_post_hook"]


class _Required:
    def __repr__(self) -> str:
        return "<required parameter>"


required = _Required()

# Hooks that run around the step of every optimizer (torch.optim.optimizer's global hooks).
_global_step_pre_hooks: "OrderedDict[int, Callable]" = OrderedDict()
_global_step_post_hooks: "OrderedDict[int, Callable]" = OrderedDict()


def register_optimizer_step_pre_hook(hook: Callable) -> RemovableHandle:
    """Registers ``hook(optimizer, args, kwargs)`` to run before every optimizer's step."""
    handle = RemovableHandle(_global_step_pre_hooks)
    _global_step_pre_hooks[handle.id] = hook
    return handle


def register_optimizer_step_post_hook(hook: Callable) -> RemovableHandle:
    """Registers ``hook(optimizer, args, kwargs)`` to run after every optimizer's step."""
    handle = RemovableHandle(_global_step_post_hooks)
    _global_step_post_hooks[handle.id] = hook
    return handle


def _typename(obj: Any) -> str:
    """The name PyTorch's error messages give a value (``torch.FloatTensor``, ``int``, ``pkg.Cls``)."""
    if isinstance(obj, Tensor):
        return obj.type()
    module = getattr(obj, "__module__", "") or ""
    name = getattr(obj, "__qualname__", None) or getattr(obj, "__name__", None) or type(obj).__qualname__
    return name if module in ("", "builtins") else f"{module}.{name}"


def _with_step_hooks(step: Callable) -> Callable:
    """Wraps a subclass's ``step`` so the pre/post hooks run around it, as PyTorch patches it."""

    @functools.wraps(step)
    def hooked(*args: Any, **kwargs: Any) -> Any:
        # As in PyTorch, the hooks' ``args`` start with the optimizer itself.
        self = args[0]
        for pre in chain(_global_step_pre_hooks.values(), self._optimizer_step_pre_hooks.values()):
            result = pre(self, args, kwargs)
            if result is not None:
                if isinstance(result, tuple) and len(result) == 2:
                    args, kwargs = result
                else:
                    raise RuntimeError(f"{step} must return None or a tuple of (new_args, new_kwargs), but got {result}.")
        out = step(*args, **kwargs)
        for post in chain(self._optimizer_step_post_hooks.values(), _global_step_post_hooks.values()):
            post(self, args, kwargs)
        return out

    hooked._hooked = True  # type: ignore[attr-defined]
    return hooked


class Optimizer:
    """Holds parameter groups (each a dict of options plus ``params``) and per-parameter state.

    Subclasses define ``step(closure=None)``; most implement ``_group_step(group)`` and call
    ``self._step_groups(closure)``, which evaluates the closure with grad enabled and then
    updates every group under ``no_grad``.
    """

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        step = cls.__dict__.get("step")
        if step is not None and not getattr(step, "_hooked", False):
            cls.step = _with_step_hooks(step)  # type: ignore[method-assign]

    def __init__(self, params: Iterable[Any], defaults: Dict[str, Any]) -> None:
        self.defaults = defaults
        self._init_hooks()
        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of Tensors or dicts, but got " + _typename(params))
        if isinstance(params, set):
            warnings.warn(
                "optimizer parameters need to be organized in ordered collections, but the ordering of tensors in sets will change between runs. Please use a list instead. This will be an error in a future release.",
                FutureWarning,
                stacklevel=2,
            )
        self.state: Dict[Any, Any] = defaultdict(dict)
        self.param_groups: List[Dict[str, Any]] = []
        groups = list(params)
        if len(groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        for g in groups:
            self.add_param_group(g)

    def _init_hooks(self) -> None:
        for name in ("step_pre", "step_post", "state_dict_pre", "state_dict_post", "load_state_dict_pre", "load_state_dict_post"):
            if f"_optimizer_{name}_hooks" not in self.__dict__:
                setattr(self, f"_optimizer_{name}_hooks", OrderedDict())

    def __getstate__(self) -> Dict[str, Any]:
        return {"defaults": self.defaults, "state": self.state, "param_groups": self.param_groups}

    # (key, value) pairs a subclass fills into groups unpickled from states that lack them.
    _group_key_defaults: Tuple[Tuple[str, Any], ...] = ()

    # Per-parameter scalars kept as 0-d tensors; checkpoints from older PyTorch releases hold them
    # as Python numbers, which loading converts (SparseAdam keeps a plain int step: empty here).
    _scalar_state_keys: Tuple[str, ...] = ("step",)

    def __setstate__(self, state: Dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._init_hooks()
        self.defaults.setdefault("differentiable", False)
        for g in self.param_groups:
            for k, v in self._group_key_defaults:
                g.setdefault(k, v)
            for p in g["params"]:
                p_state = self.state.get(p) if isinstance(self.state, dict) else None
                for key in self._scalar_state_keys if p_state else ():
                    if key in p_state and isinstance(p_state[key], (int, float)) and not isinstance(p_state[key], bool):
                        p_state[key] = _step_counter(float(p_state[key]))

    def __repr__(self) -> str:
        s = self.__class__.__name__ + " ("
        for i, g in enumerate(self.param_groups):
            s += f"\nParameter Group {i}\n"
            for k in sorted(g.keys()):
                if k != "params":
                    v = g[k]
                    # A 0-d tensor option (a tensor lr) prints as its value, as PyTorch formats it.
                    s += f"    {k}: {v.item() if isinstance(v, Tensor) and v.ndim == 0 else v}\n"
        return s + ")"

    # ----- hooks -------------------------------------------------------------------------

    def _register(self, table: "OrderedDict[int, Callable]", hook: Callable, prepend: bool = False) -> RemovableHandle:
        handle = RemovableHandle(table)
        table[handle.id] = hook
        if prepend:
            table.move_to_end(handle.id, last=False)
        return handle

    def register_step_pre_hook(self, hook: Callable) -> RemovableHandle:
        """``hook(optimizer, args, kwargs)`` runs before ``step``; it may return new (args, kwargs)."""
        return self._register(self._optimizer_step_pre_hooks, hook)

    def register_step_post_hook(self, hook: Callable) -> RemovableHandle:
        """``hook(optimizer, args, kwargs)`` runs after ``step``."""
        return self._register(self._optimizer_step_post_hooks, hook)

    def register_state_dict_pre_hook(self, hook: Callable, prepend: bool = False) -> RemovableHandle:
        """``hook(optimizer)`` runs before ``state_dict`` builds its result."""
        return self._register(self._optimizer_state_dict_pre_hooks, hook, prepend)

    def register_state_dict_post_hook(self, hook: Callable, prepend: bool = False) -> RemovableHandle:
        """``hook(optimizer, state_dict)`` runs after ``state_dict``; it may return a new dict."""
        return self._register(self._optimizer_state_dict_post_hooks, hook, prepend)

    def register_load_state_dict_pre_hook(self, hook: Callable, prepend: bool = False) -> RemovableHandle:
        """``hook(optimizer, state_dict)`` runs before loading; it may return a new dict."""
        return self._register(self._optimizer_load_state_dict_pre_hooks, hook, prepend)

    def register_load_state_dict_post_hook(self, hook: Callable, prepend: bool = False) -> RemovableHandle:
        """``hook(optimizer)`` runs after ``load_state_dict``."""
        return self._register(self._optimizer_load_state_dict_post_hooks, hook, prepend)

    # ----- groups --------------------------------------------------------------------------

    def add_param_group(self, param_group: Dict[str, Any]) -> None:
        """Adds a group (the dict itself, as PyTorch does); options not given take the defaults."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            param_group["params"] = [params]
        elif isinstance(params, set):
            raise TypeError("optimizer parameters need to be organized in ordered collections, but the ordering of tensors in sets will change between runs. Please use a list instead.")
        else:
            param_group["params"] = list(params)
        # Named parameters arrive as (name, tensor) pairs: names are kept under "param_names".
        tensors, names = [], []
        for p in param_group["params"]:
            if isinstance(p, tuple):
                names.append(p[0])
                tensors.append(p[1])
            else:
                tensors.append(p)
        param_group["params"] = tensors
        if names:
            if len(names) != len(tensors):
                raise ValueError("all optimizer params should be with/without names. Some param names are missing")
            param_group["param_names"] = names
        for p in tensors:
            if not isinstance(p, Tensor):
                raise TypeError("optimizer can only optimize Tensors, but one of the params is " + _typename(p))
            if not self.defaults.get("differentiable", None) and not (p.is_leaf or p.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")
        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError(f"parameter group didn't specify a value of required optimization parameter {name}")
            param_group.setdefault(name, default)
        if len({id(p) for p in tensors}) != len(tensors):
            warnings.warn(
                "optimizer contains a parameter group with duplicate parameters; in future, this will cause an error; see github.com/pytorch/pytorch/issues/40967 for more information",
                stacklevel=3,
            )
        existing = set()
        for g in self.param_groups:
            existing.update(id(p) for p in g["params"])
            if ("param_names" in param_group) != ("param_names" in g):
                which = "with names" if "param_names" in param_group else "without names"
                raise ValueError(f"all optimizer param groups should be with/without names. cannot add param group {which} to the optimizer")
        if any(id(p) in existing for p in tensors):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Resets gradients (to None by default, or to zeros)."""
        for g in self.param_groups:
            for p in g["params"]:
                if p.grad is not None:
                    if set_to_none:
                        p.grad = None
                    else:
                        if p.grad.grad_fn is not None:
                            p.grad.detach_()
                        else:
                            p.grad.requires_grad_(False)
                        p.grad.zero_()

    # ----- stepping ------------------------------------------------------------------------

    def step(self, closure: Optional[Callable[[], Any]] = None) -> Any:
        """Performs one update of every parameter; subclasses implement it."""
        raise NotImplementedError

    def _step_groups(self, closure: Optional[Callable[[], Any]]) -> Any:
        """Evaluates the closure with grad enabled, then runs ``_group_step`` on each group."""
        if any(g.get("differentiable", False) for g in self.param_groups):
            # PyTorch records the update in the graph then; ours runs without one, so refuse.
            raise NotImplementedError(f"{type(self).__name__}: differentiable=True is not supported (ferrotorch's optimizer steps do not record an autograd graph)")
        loss = None
        if closure is not None:
            with enable_grad():
                loss = closure()
        with no_grad():
            for g in self.param_groups:
                self._group_step(g)
        return loss

    def _group_step(self, group: Dict[str, Any]) -> None:
        raise NotImplementedError

    # ----- state_dict ----------------------------------------------------------------------

    def state_dict(self) -> Dict[str, Any]:
        """``{'state': {index: {...}}, 'param_groups': [{..., 'params': [indices]}]}``."""
        for pre in self._optimizer_state_dict_pre_hooks.values():
            pre(self)
        index: Dict[int, int] = {}
        start = 0
        groups = []
        for g in self.param_groups:
            packed = {k: v for k, v in g.items() if k != "params"}
            for i, p in enumerate(g["params"], start):
                index.setdefault(id(p), i)
            packed["params"] = [index[id(p)] for p in g["params"]]
            start += len(packed["params"])
            groups.append(packed)
        state = {(index[id(k)] if isinstance(k, Tensor) else k): v for k, v in self.state.items()}
        out = {"state": state, "param_groups": groups}
        for post in self._optimizer_state_dict_post_hooks.values():
            result = post(self, out)
            if result is not None:
                out = result
        return out

    @staticmethod
    def _cast_state(param: Tensor, value: Any, group: Dict[str, Any], key: Optional[str] = None) -> Any:
        """Loaded state follows the parameter's dtype, except ``step`` (kept as saved). Tensors are
        copied (PyTorch aliases same-dtype ones), so the source optimizer's later steps stay its own."""
        if isinstance(value, Tensor):
            if key == "step":
                if group.get("capturable", False) or group.get("fused", False):
                    return value.to(_core.float32).clone()
                return value.clone()
            return value.to(param.dtype).clone() if param.is_floating_point() else value.clone()
        if isinstance(value, dict):
            return {k: Optimizer._cast_state(param, v, group, k) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return type(value)(Optimizer._cast_state(param, v, group) for v in value)
        return value

    def load_state_dict(self, state_dict: Dict[str, Any]) -> None:
        """Restores options and per-parameter state saved by ``state_dict`` (ours or PyTorch's layout)."""
        state_dict = state_dict.copy()
        for pre in self._optimizer_load_state_dict_pre_hooks.values():
            result = pre(self, state_dict)
            if result is not None:
                state_dict = result
        groups = self.param_groups
        saved_groups = deepcopy(state_dict["param_groups"])
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved_groups)):
            raise ValueError("loaded state dict contains a parameter group that doesn't match the size of optimizer's group")
        id_map = dict(zip(chain.from_iterable(s["params"] for s in saved_groups), chain.from_iterable(g["params"] for g in groups)))
        group_of = {i: s for s in state_dict["param_groups"] for i in s["params"]}
        state: Dict[Any, Any] = defaultdict(dict)
        for k, v in state_dict["state"].items():
            if k in id_map:
                param = id_map[k]
                state[param] = self._cast_state(param, v, group_of[k])
            else:
                state[k] = v
        new_groups = []
        for g, s in zip(groups, saved_groups):
            s["params"] = g["params"]
            if "param_names" in g and "param_names" not in s:
                s["param_names"] = g["param_names"]
            new_groups.append(s)
        self.__setstate__({"state": state, "param_groups": new_groups})
        for post in self._optimizer_load_state_dict_post_hooks.values():
            post(self)


# ----- helpers the optimizers share ----------------------------------------------------------


def _scalar(x: Any) -> Any:
    """A hyper-parameter given as a 1-element tensor (e.g. a tensor lr) read as a Python number."""
    return x.item() if isinstance(x, Tensor) else x


def _check_lr(lr: Any) -> None:
    """PyTorch's two learning-rate checks: a tensor lr has one element, and lr >= 0."""
    if isinstance(lr, Tensor) and lr.numel() != 1:
        raise ValueError("Tensor lr must be 1-element")
    if not 0.0 <= lr:
        raise ValueError(f"Invalid learning rate: {lr}")


def _check_fused_flags(fused: Any, foreach: Any, differentiable: bool) -> None:
    """The flag combinations PyTorch refuses (the flags themselves only pick an implementation)."""
    if fused:
        if differentiable:
            raise RuntimeError("`fused` does not support `differentiable`")
        if foreach:
            raise RuntimeError("`fused` and `foreach` cannot be `True` together.")


def _check_betas_eps_wd(betas: Tuple[float, float], eps: float, weight_decay: float) -> None:
    """The eps / betas / weight_decay checks Adam's relatives share, in PyTorch's order."""
    if not 0.0 <= eps:
        raise ValueError(f"Invalid epsilon value: {eps}")
    if not 0.0 <= betas[0] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
    if not 0.0 <= betas[1] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
    if not 0.0 <= weight_decay:
        raise ValueError(f"Invalid weight_decay value: {weight_decay}")


def _step_counter(value: float = 0.0) -> Tensor:
    """The 0-d ``step`` (and other scalar) state tensors: PyTorch keeps them in the default dtype."""
    return _core.tensor(value, dtype=_core.get_default_dtype())


def _with_grads(group: Dict[str, Any], name: str = "") -> List[Tensor]:
    """The group's parameters that have a gradient (the others are skipped, as in PyTorch)."""
    out = []
    for p in group["params"]:
        if p.grad is not None:
            if name and p.grad.is_sparse:
                raise RuntimeError(f"{name} does not support sparse gradients")
            out.append(p)
    return out


def _fusable(params: List[Tensor]) -> bool:
    """The Rust kernel takes contiguous float32/float64 tensors with matching gradients."""
    return all(
        p.is_contiguous() and p.dtype in (_core.float32, _core.float64) and p.grad.is_contiguous() and p.grad.dtype == p.dtype
        for p in params
    )
