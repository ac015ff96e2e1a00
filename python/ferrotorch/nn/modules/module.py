"""``nn.Module``: the base class of layers, with automatic registration of parameters,
buffers and submodules, state_dict, hooks, train/eval and a PyTorch-style repr."""

from __future__ import annotations

import warnings
from collections import OrderedDict, namedtuple
from collections.abc import Mapping
from typing import Any, Callable, Dict, Iterator, List, Optional, Set, Tuple

from ... import _core
from ..._grad_mode import no_grad
from ...utils.hooks import RemovableHandle
from ..parameter import Buffer, Parameter

Tensor = _core.Tensor


def _typename(obj: Any) -> str:
    """PyTorch's name for a value's type in error messages (``torch.FloatTensor`` for tensors)."""
    if isinstance(obj, Tensor):
        return obj.type() if hasattr(obj, "type") else "torch.Tensor"
    module = type(obj).__module__
    return type(obj).__qualname__ if module in ("builtins", "__builtin__", None) else f"{module}.{type(obj).__qualname__}"


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    def __repr__(self) -> str:
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


def _addindent(s: str, n: int) -> str:
    lines = s.split("\n")
    if len(lines) == 1:
        return s
    return lines[0] + "\n" + "\n".join(" " * n + line for line in lines[1:])


# Hooks that apply to every module (the register_module_* functions below).
_global_forward_pre_hooks: "OrderedDict[int, Any]" = OrderedDict()
_global_forward_hooks: "OrderedDict[int, Any]" = OrderedDict()
_global_forward_hooks_always_called: Set[int] = set()
_global_backward_hooks: "OrderedDict[int, Any]" = OrderedDict()
_global_backward_pre_hooks: "OrderedDict[int, Any]" = OrderedDict()
_global_parameter_registration_hooks: "OrderedDict[int, Any]" = OrderedDict()
_global_buffer_registration_hooks: "OrderedDict[int, Any]" = OrderedDict()
_global_module_registration_hooks: "OrderedDict[int, Any]" = OrderedDict()


def _add_global(table: "OrderedDict[int, Any]", value: Any) -> RemovableHandle:
    handle = RemovableHandle(table)
    table[handle.id] = value
    return handle


def register_module_forward_pre_hook(hook: Callable[..., Any]) -> RemovableHandle:
    """``hook(module, args)`` runs before every module's forward (before its own pre hooks)."""
    return _add_global(_global_forward_pre_hooks, (hook, False))


def register_module_forward_hook(hook: Callable[..., Any], *, with_kwargs: bool = False, always_call: bool = False) -> RemovableHandle:
    """``hook(module, args, output)`` (``hook(module, args, kwargs, output)`` with ``with_kwargs``)
    runs after every module's forward, before its own forward hooks."""
    handle = _add_global(_global_forward_hooks, (hook, with_kwargs))
    if always_call:
        _global_forward_hooks_always_called.add(handle.id)
    return handle


def register_module_full_backward_hook(hook: Callable[..., Any]) -> RemovableHandle:
    """``hook(module, grad_input, grad_output)`` runs for every module, before its own."""
    return _add_global(_global_backward_hooks, hook)


register_module_backward_hook = register_module_full_backward_hook


def register_module_full_backward_pre_hook(hook: Callable[..., Any]) -> RemovableHandle:
    """``hook(module, grad_output)`` runs for every module, before its own backward pre hooks."""
    return _add_global(_global_backward_pre_hooks, hook)


def register_module_parameter_registration_hook(hook: Callable[..., Any]) -> RemovableHandle:
    """``hook(module, name, param)`` runs when any module registers a parameter; it may return a
    replacement."""
    return _add_global(_global_parameter_registration_hooks, hook)


def register_module_buffer_registration_hook(hook: Callable[..., Any]) -> RemovableHandle:
    """``hook(module, name, buffer)`` runs when any module registers a buffer; it may return a
    replacement."""
    return _add_global(_global_buffer_registration_hooks, hook)


def register_module_module_registration_hook(hook: Callable[..., Any]) -> RemovableHandle:
    """``hook(module, name, submodule)`` runs when any module registers a submodule; it may
    return a replacement."""
    return _add_global(_global_module_registration_hooks, hook)


def _registered(table: "OrderedDict[int, Any]", module: "Module", name: str, value: Any) -> Any:
    for hook in list(table.values()):
        out = hook(module, name, value)
        if out is not None:
            value = out
    return value


class Module:
    """Base class for all neural network modules.

    >>> import ferrotorch as torch
    >>> class Net(torch.nn.Module):
    ...     def __init__(self):
    ...         super().__init__()
    ...         self.fc = torch.nn.Linear(2, 1)
    ...     def forward(self, x):
    ...         return self.fc(x)
    >>> [n for n, _ in Net().named_parameters()]
    ['fc.weight', 'fc.bias']
    """

    training: bool
    _version: int = 1

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        object.__setattr__(self, "training", True)
        object.__setattr__(self, "_parameters", OrderedDict())
        object.__setattr__(self, "_buffers", OrderedDict())
        object.__setattr__(self, "_non_persistent_buffers_set", set())
        object.__setattr__(self, "_modules", OrderedDict())
        object.__setattr__(self, "_forward_hooks", OrderedDict())
        object.__setattr__(self, "_forward_pre_hooks", OrderedDict())
        object.__setattr__(self, "_backward_hooks", OrderedDict())
        object.__setattr__(self, "_backward_pre_hooks", OrderedDict())
        object.__setattr__(self, "_forward_hooks_always_called", set())
        object.__setattr__(self, "_state_dict_pre_hooks", OrderedDict())
        object.__setattr__(self, "_state_dict_hooks", OrderedDict())
        object.__setattr__(self, "_load_state_dict_pre_hooks", OrderedDict())
        object.__setattr__(self, "_load_state_dict_post_hooks", OrderedDict())

    forward: Callable[..., Any]

    def forward(self, *args: Any, **kwargs: Any) -> Any:  # type: ignore[no-redef]
        """Defines the computation; subclasses override it (call the module, not ``forward``, so
        that hooks run)."""
        raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required "forward" function')

    # ---- registration ----

    def _check_member_name(self, kind: str, store: str, name: Any) -> None:
        """PyTorch's checks before a name is registered as a parameter, buffer or module."""
        if store not in self.__dict__:
            raise AttributeError(f"cannot assign {kind} before Module.__init__() call")
        if not isinstance(name, str):
            raise TypeError(f"{kind} name should be a string. Got {type(name).__name__}")
        if "." in name:
            raise KeyError(f'{kind} name can\'t contain "."')
        if name == "":
            raise KeyError(f'{kind} name can\'t be empty string ""')
        if hasattr(self, name) and name not in self.__dict__[store]:
            raise KeyError(f"attribute '{name}' already exists")

    def register_parameter(self, name: str, param: Optional[Parameter]) -> None:
        """Adds a parameter (or None, a placeholder that keeps the name declared) under ``name``."""
        self._check_member_name("parameter", "_parameters", name)
        if param is not None:
            if not isinstance(param, Parameter):
                raise TypeError(f"cannot assign '{_typename(param)}' object to parameter '{name}' (torch.nn.Parameter or None required)")
            if param.grad_fn is not None:
                raise ValueError(
                    f"Cannot assign non-leaf Tensor to parameter '{name}'. Model parameters must be created explicitly. "
                    f"To express '{name}' as a function of another Tensor, compute the value in the forward() method."
                )
        self._parameters[name] = _registered(_global_parameter_registration_hooks, self, name, param)

    def register_buffer(self, name: str, tensor: Optional[Tensor], persistent: bool = True) -> None:
        """Adds a buffer (state that is not a parameter, or None); non-persistent buffers are
        left out of the state_dict."""
        self._check_member_name("buffer", "_buffers", name)
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"cannot assign '{_typename(tensor)}' object to buffer '{name}' (torch Tensor or None required)")
        self._buffers[name] = _registered(_global_buffer_registration_hooks, self, name, tensor)
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def add_module(self, name: str, module: Optional["Module"]) -> None:
        """Adds a child module (or None) under ``name``."""
        if module is not None and not isinstance(module, Module):
            raise TypeError(f"{_typename(module)} is not a Module subclass")
        self._check_member_name("module", "_modules", name)
        self._modules[name] = _registered(_global_module_registration_hooks, self, name, module)

    register_module = add_module

    def _forget(self, name: str, *stores: Any) -> None:
        for store in stores:
            if store is not None and name in store:
                if isinstance(store, set):
                    store.discard(name)
                else:
                    del store[name]

    def __setattr__(self, name: str, value: Any) -> None:
        # The same precedence as PyTorch: a Parameter value, then a name already declared as a
        # parameter, then modules, then buffers; anything else is a plain attribute.
        d = self.__dict__
        params = d.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            self._forget(name, d, d.get("_buffers"), d.get("_modules"), d.get("_non_persistent_buffers_set"))
            self.register_parameter(name, value)
            return
        if params is not None and name in params:
            if value is not None:
                raise TypeError(f"cannot assign '{_typename(value)}' as parameter '{name}' (torch.nn.Parameter or None expected)")
            self.register_parameter(name, value)
            return
        modules = d.get("_modules")
        if isinstance(value, Module):
            if modules is None:
                raise AttributeError("cannot assign module before Module.__init__() call")
            self._forget(name, d, params, d.get("_buffers"), d.get("_non_persistent_buffers_set"))
            modules[name] = _registered(_global_module_registration_hooks, self, name, value)
            return
        if modules is not None and name in modules:
            if value is not None:
                raise TypeError(f"cannot assign '{_typename(value)}' as child module '{name}' (torch.nn.Module or None expected)")
            modules[name] = value
            return
        buffers = d.get("_buffers")
        if isinstance(value, Buffer) or (buffers is not None and name in buffers):
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(f"cannot assign '{_typename(value)}' as buffer '{name}' (torch.nn.Buffer, torch.Tensor or None expected)")
            if isinstance(value, Buffer):
                if buffers is None:
                    raise AttributeError("cannot assign buffer before Module.__init__() call")
                persistent = value.persistent
                self._forget(name, d, params, modules)
                self.register_buffer(name, value, persistent)
            else:
                buffers[name] = value
            return
        object.__setattr__(self, name, value)

    def __getattr__(self, name: str) -> Any:
        d = self.__dict__
        for store in ("_parameters", "_buffers", "_modules"):
            s = d.get(store)
            if s is not None and name in s:
                return s[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name: str) -> None:
        for store in (self._parameters, self._buffers, self._modules):
            if name in store:
                del store[name]
                self._non_persistent_buffers_set.discard(name)
                return
        object.__delattr__(self, name)

    def __dir__(self) -> List[str]:
        return sorted(set(list(object.__dir__(self)) + list(self._parameters) + list(self._buffers) + list(self._modules)))

    # ---- traversal ----

    def named_modules(self, memo: Optional[Set["Module"]] = None, prefix: str = "", remove_duplicate: bool = True) -> Iterator[Tuple[str, "Module"]]:
        """(name, module) for this module and all below it, each module once unless ``remove_duplicate=False``."""
        if memo is None:
            memo = set()
        if self in memo and remove_duplicate:
            return
        if remove_duplicate:
            memo.add(self)
        yield prefix, self
        for name, m in self._modules.items():
            if m is None:
                continue
            yield from m.named_modules(memo, prefix + ("." if prefix else "") + name, remove_duplicate)

    def modules(self) -> Iterator["Module"]:
        """This module and all modules below it."""
        for _, m in self.named_modules():
            yield m

    def named_children(self) -> Iterator[Tuple[str, "Module"]]:
        """(name, module) for the direct children, each once."""
        seen = set()
        for name, m in self._modules.items():
            if m is not None and m not in seen:
                seen.add(m)
                yield name, m

    def children(self) -> Iterator["Module"]:
        """The direct children."""
        for _, m in self.named_children():
            yield m

    def _named_members(self, getter: Callable, prefix: str, recurse: bool, remove_duplicate: bool) -> Iterator[Tuple[str, Any]]:
        seen: Set[int] = set()
        mods = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate) if recurse else [(prefix, self)]
        for mprefix, m in mods:
            for k, v in getter(m):
                if v is None or (remove_duplicate and id(v) in seen):
                    continue
                if remove_duplicate:
                    seen.add(id(v))
                yield mprefix + ("." if mprefix else "") + k, v

    def named_parameters(self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True) -> Iterator[Tuple[str, Parameter]]:
        """(dotted name, parameter) pairs, shared parameters once unless ``remove_duplicate=False``."""
        return self._named_members(lambda m: m._parameters.items(), prefix, recurse, remove_duplicate)

    def parameters(self, recurse: bool = True) -> Iterator[Parameter]:
        """The parameters (of the children too, unless ``recurse=False``)."""
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def named_buffers(self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True) -> Iterator[Tuple[str, Tensor]]:
        """(dotted name, buffer) pairs, shared buffers once unless ``remove_duplicate=False``."""
        return self._named_members(lambda m: m._buffers.items(), prefix, recurse, remove_duplicate)

    def buffers(self, recurse: bool = True) -> Iterator[Tensor]:
        """The buffers (of the children too, unless ``recurse=False``)."""
        for _, b in self.named_buffers(recurse=recurse):
            yield b

    def get_submodule(self, target: str) -> "Module":
        """The submodule at a dotted path (``""`` is this module)."""
        if target == "":
            return self
        mod: Module = self
        for item in target.split("."):
            if item not in mod._modules:
                raise AttributeError(f"{type(mod).__name__} has no attribute `{item}`")
            mod = mod._modules[item]
        return mod

    def get_parameter(self, target: str) -> Parameter:
        """The parameter at a dotted path (``"fc.weight"``)."""
        mod_path, _, name = target.rpartition(".")
        mod = self.get_submodule(mod_path)
        if name not in mod._parameters:
            raise AttributeError(f"{type(mod).__name__} has no parameter `{name}`")
        return mod._parameters[name]

    def get_buffer(self, target: str) -> Tensor:
        """The buffer named by a dotted path (``"bn.running_mean"``)."""
        mod_path, _, name = target.rpartition(".")
        mod = self.get_submodule(mod_path)
        if not hasattr(mod, name):
            raise AttributeError(f"{type(mod).__name__} has no attribute `{name}`")
        if name not in mod._buffers:
            raise AttributeError("`" + name + "` is not a buffer")
        return mod._buffers[name]

    def set_submodule(self, target: str, module: "Module", strict: bool = False) -> None:
        """Replaces (or, unless ``strict``, adds) the submodule at a dotted path."""
        if target == "":
            raise ValueError("Cannot set the submodule without a target name!")
        if not isinstance(module, Module):
            raise ValueError("`module` is not an nn.Module, found " + str(type(module)))
        parent_path, _, name = target.rpartition(".")
        parent = self.get_submodule(parent_path)
        if strict and not hasattr(parent, name):
            raise AttributeError(type(parent).__name__ + " has no attribute `" + name + "`")
        if hasattr(parent, name) and not isinstance(getattr(parent, name), Module):
            raise AttributeError("`" + name + "` is not an nn.Module")
        setattr(parent, name, module)

    # ---- state ----

    def _hooks(self, name: str) -> "OrderedDict[int, Any]":
        """One of the hook tables (created on first use for modules unpickled without it)."""
        table = self.__dict__.get(name)
        if table is None:
            table = OrderedDict()
            object.__setattr__(self, name, table)
        return table

    def _has_extra_state(self) -> bool:
        return type(self).get_extra_state is not Module.get_extra_state

    def get_extra_state(self) -> Any:
        """Extra state saved under ``<prefix>_extra_state`` when a subclass overrides this
        (together with ``set_extra_state``); the base class has none."""
        raise RuntimeError(
            "Reached a code path in Module.get_extra_state() that should never be called. "
            "Please file an issue at https://github.com/pytorch/pytorch/issues/new?template=bug-report.yml "
            "to report this bug."
        )

    def set_extra_state(self, state: Any) -> None:
        """Restores what ``get_extra_state`` returned; a subclass that saves extra state overrides it."""
        raise RuntimeError(
            "Reached a code path in Module.set_extra_state() that should never be called. "
            "Please file an issue at https://github.com/pytorch/pytorch/issues/new?template=bug-report.yml "
            "to report this bug."
        )

    def register_state_dict_pre_hook(self, hook: Callable[..., None]) -> RemovableHandle:
        """``hook(module, prefix, keep_vars)`` runs before this module adds its entries to a state_dict."""
        table = self._hooks("_state_dict_pre_hooks")
        h = RemovableHandle(table)
        table[h.id] = hook
        return h

    def register_state_dict_post_hook(self, hook: Callable[..., None]) -> RemovableHandle:
        """``hook(module, state_dict, prefix, local_metadata)`` runs after this module (and its
        children) added their entries; it edits ``state_dict`` in place and returns None."""
        table = self._hooks("_state_dict_hooks")
        h = RemovableHandle(table)
        table[h.id] = (hook, True)
        return h

    def _register_state_dict_hook(self, hook: Callable[..., Any]) -> RemovableHandle:
        """The older form of the post hook: it may also return a replacement dict."""
        table = self._hooks("_state_dict_hooks")
        h = RemovableHandle(table)
        table[h.id] = (hook, False)
        return h

    def register_load_state_dict_pre_hook(self, hook: Callable[..., None]) -> RemovableHandle:
        """``hook(module, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
        error_msgs)`` runs before this module's entries are loaded; it may edit ``state_dict``."""
        table = self._hooks("_load_state_dict_pre_hooks")
        h = RemovableHandle(table)
        table[h.id] = hook
        return h

    def register_load_state_dict_post_hook(self, hook: Callable[..., None]) -> RemovableHandle:
        """``hook(module, incompatible_keys)`` runs after ``load_state_dict``; it may remove keys
        from ``incompatible_keys.missing_keys`` / ``unexpected_keys`` before strict checking."""
        table = self._hooks("_load_state_dict_post_hooks")
        h = RemovableHandle(table)
        table[h.id] = hook
        return h

    def state_dict(self, *args: Any, destination: Optional[Dict[str, Any]] = None, prefix: str = "", keep_vars: bool = False) -> Dict[str, Any]:
        """Parameters, persistent buffers and extra state by dotted name (detached unless
        ``keep_vars``). ``destination, prefix, keep_vars`` may also be given positionally
        (deprecated, as in PyTorch)."""
        if args:
            if len(args) > 3:
                raise TypeError(f"state_dict() takes from 1 to 4 positional arguments but {len(args) + 1} were given")
            warnings.warn(
                "Positional args are being deprecated, use kwargs instead. Refer to "
                "https://pytorch.org/docs/main/generated/torch.nn.Module.html#torch.nn.Module.state_dict"
                " for details.",
                FutureWarning,
                stacklevel=2,
            )
            if destination is None:
                destination = args[0]
            if len(args) > 1 and prefix == "":
                prefix = args[1]
            if len(args) > 2 and keep_vars is False:
                keep_vars = args[2]
        if destination is None:
            destination = OrderedDict()
            destination._metadata = OrderedDict()  # type: ignore[attr-defined]
        local_metadata = {"version": self._version}
        metadata = getattr(destination, "_metadata", None)
        if metadata is not None:
            metadata[prefix[:-1]] = local_metadata
        for hook in self._hooks("_state_dict_pre_hooks").values():
            hook(self, prefix, keep_vars)
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, m in self._modules.items():
            if m is not None:
                m.state_dict(destination=destination, prefix=prefix + name + ".", keep_vars=keep_vars)
        for hook, public in self._hooks("_state_dict_hooks").values():
            result = hook(self, destination, prefix, local_metadata)
            if result is not None:
                if public:
                    raise RuntimeError("state_dict post-hook must return None")
                destination = result
        return destination

    def _save_to_state_dict(self, destination: Dict[str, Any], prefix: str, keep_vars: bool) -> None:
        """Adds this module's own entries (not its children's): parameters, persistent buffers
        and extra state. Subclasses may override it to save differently."""
        for name, p in self._parameters.items():
            if p is not None:
                destination[prefix + name] = p if keep_vars else p.detach()
        for name, b in self._buffers.items():
            if b is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = b if keep_vars else b.detach()
        if self._has_extra_state():
            destination[prefix + "_extra_state"] = self.get_extra_state()

    def _load_from_state_dict(
        self,
        state_dict: Dict[str, Any],
        prefix: str,
        local_metadata: Dict[str, Any],
        strict: bool,
        missing_keys: List[str],
        unexpected_keys: List[str],
        error_msgs: List[str],
    ) -> None:
        """Loads this module's own entries (not its children's) from ``state_dict``, recording
        missing and (when ``strict``) unexpected keys and errors. Subclasses may override it to
        adapt old checkpoints."""
        for hook in self._hooks("_load_state_dict_pre_hooks").values():
            hook(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs)
        before_load = getattr(type(self), "_before_load_state_dict", None)
        if before_load is not None:
            error_msgs.extend(before_load(self, state_dict, prefix) or [])
        assign = local_metadata.get("assign_to_params_buffers", False)
        local: Dict[str, Any] = {k: v for k, v in self._parameters.items() if v is not None}
        local.update((k, v) for k, v in self._buffers.items() if v is not None and k not in self._non_persistent_buffers_set)
        for name, target in local.items():
            key = prefix + name
            if key not in state_dict:
                if strict:
                    missing_keys.append(key)
                continue
            v = state_dict[key]
            if not isinstance(v, Tensor):
                error_msgs.append(f'While copying the parameter named "{key}", expected torch.Tensor or Tensor-like object from checkpoint but received {type(v)}')
                continue
            if tuple(v.shape) != tuple(target.shape):
                error_msgs.append(f"size mismatch for {key}: copying a param with shape {v.shape} from checkpoint, the shape in current model is {target.shape}.")
                continue
            if assign:
                if name in self._parameters:
                    self._parameters[name] = Parameter(v, target.requires_grad)
                else:
                    self._buffers[name] = v
            else:
                with no_grad():
                    target.copy_(v)
        extra_key = prefix + "_extra_state"
        if type(self).set_extra_state is not Module.set_extra_state:
            if extra_key in state_dict:
                self.set_extra_state(state_dict[extra_key])
            elif strict:
                missing_keys.append(extra_key)
        elif extra_key in state_dict and strict:
            unexpected_keys.append(extra_key)
        if strict:
            for key in state_dict:
                if key.startswith(prefix) and key != extra_key:
                    head = key[len(prefix) :].split(".", 1)
                    if len(head) > 1:
                        if head[0] not in self._modules:
                            unexpected_keys.append(key)
                    elif head[0] not in local:
                        unexpected_keys.append(key)

    def load_state_dict(self, state_dict: Mapping[str, Any], strict: bool = True, assign: bool = False) -> _IncompatibleKeys:
        """Copies values into parameters and buffers (and extra state); reports missing and
        unexpected keys, raising for them when ``strict``. With ``assign`` the checkpoint's
        tensors replace the module's (keeping each parameter's requires_grad)."""
        if not isinstance(state_dict, Mapping):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        missing: List[str] = []
        unexpected: List[str] = []
        errors: List[str] = []
        metadata = getattr(state_dict, "_metadata", None)

        def subset(d: Mapping[str, Any], keep: Callable[[str], bool]) -> "OrderedDict[str, Any]":
            # Each module gets its own copy (its hooks may edit it); the metadata goes along.
            out: "OrderedDict[str, Any]" = OrderedDict((k, v) for k, v in d.items() if keep(k))
            if metadata is not None:
                out._metadata = metadata  # type: ignore[attr-defined]
            return out

        def load(module: Module, local_state: "OrderedDict[str, Any]", prefix: str) -> None:
            local_metadata = dict(metadata.get(prefix[:-1], {})) if metadata is not None else {}
            if assign:
                local_metadata["assign_to_params_buffers"] = assign
            module._load_from_state_dict(local_state, prefix, local_metadata, True, missing, unexpected, errors)
            for name, child in module._modules.items():
                if child is not None:
                    child_prefix = prefix + name + "."
                    load(child, subset(local_state, lambda k, cp=child_prefix: k.startswith(cp)), child_prefix)
            keys = _IncompatibleKeys(missing, unexpected)
            for hook in module._hooks("_load_state_dict_post_hooks").values():
                if hook(module, keys) is not None:
                    raise AssertionError(
                        "Hooks registered with ``register_load_state_dict_post_hook`` are not expected to return new values, "
                        "if incompatible_keys need to be modified, it should be done inplace."
                    )

        load(self, subset(state_dict, lambda k: True), "")
        if strict:
            if unexpected:
                errors.insert(0, "Unexpected key(s) in state_dict: {}. ".format(", ".join(f'"{k}"' for k in unexpected)))
            if missing:
                errors.insert(0, "Missing key(s) in state_dict: {}. ".format(", ".join(f'"{k}"' for k in missing)))
        if errors:
            raise RuntimeError("Error(s) in loading state_dict for {}:\n\t{}".format(type(self).__name__, "\n\t".join(errors)))
        return _IncompatibleKeys(missing, unexpected)

    # ---- modes and conversion ----

    def train(self, mode: bool = True) -> "Module":
        """Sets training mode (or eval mode with ``False``) here and in all children; returns self."""
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        for m in self.children():
            m.train(mode)
        return self

    def eval(self) -> "Module":
        """Sets eval mode here and in all children (``train(False)``); returns self."""
        return self.train(False)

    def requires_grad_(self, requires_grad: bool = True) -> "Module":
        """Sets ``requires_grad`` of every parameter; returns self."""
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Resets the parameters' gradients (to None by default, else to zeros)."""
        for p in self.parameters():
            if p.grad is not None:
                if set_to_none:
                    p.grad = None
                else:
                    p.grad.detach_()
                    p.grad.zero_()

    def apply(self, fn: Callable[["Module"], None]) -> "Module":
        """Calls ``fn`` on every child (recursively) and then on this module; returns self."""
        for m in self.children():
            m.apply(fn)
        fn(self)
        return self

    def _apply(self, fn: Callable[[Tensor], Tensor], params_too: bool = True, _converted: Optional[Dict[int, Any]] = None) -> "Module":
        # One Parameter shared by two modules (tied weights) must stay one Parameter.
        converted: Dict[int, Any] = {} if _converted is None else _converted
        for m in self.children():
            m._apply(fn, params_too, converted)
        if params_too:
            for k, p in self._parameters.items():
                if p is None:
                    continue
                if id(p) in converted:
                    self._parameters[k] = converted[id(p)][1]
                    continue
                with no_grad():
                    new = fn(p)
                if new is not p:
                    # As PyTorch: the same Parameter object takes the converted memory, so an
                    # optimizer built before `.to()` keeps stepping the module's parameters.
                    grad = p.grad
                    p.data = new
                    if grad is not None:
                        with no_grad():
                            p.grad = fn(grad)
                converted[id(p)] = (p, self._parameters[k])  # the old one is kept so its id stays unique
        for k, b in self._buffers.items():
            if b is not None:
                self._buffers[k] = fn(b)
        return self

    def to(self, *args: Any, **kwargs: Any) -> "Module":
        """Moves and/or casts parameters and buffers, as PyTorch's: ``to(device)``,
        ``to(dtype)``, ``to(device, dtype)``, ``to(tensor)``, with ``non_blocking=``. A dtype
        applies to floating point (and complex) tensors only; integer buffers keep theirs."""
        dtype = kwargs.get("dtype")
        device = kwargs.get("device")
        non_blocking = bool(kwargs.get("non_blocking", False))
        for a in args:
            if isinstance(a, _core.dtype):
                dtype = a
            elif isinstance(a, Tensor):
                dtype, device = a.dtype, a.device
            elif isinstance(a, bool):
                non_blocking = a
            elif a is not None:
                device = a
        if device is not None:
            device = _core.zeros(1).to(device).device  # validates it; raises for unavailable devices
        if dtype is not None and not (dtype.is_floating_point or dtype.is_complex):
            raise TypeError(f"nn.Module.to only accepts floating point or complex dtypes, but got desired dtype={dtype}")
        if dtype is None and device is None:
            return self

        def convert(t: Tensor) -> Tensor:
            cast = dtype if dtype is not None and (t.is_floating_point() or t.is_complex()) else None
            return t.to(device=device, dtype=cast, non_blocking=non_blocking)

        return self._apply(convert)

    def float(self) -> "Module":
        """Casts floating point parameters and buffers to float32; returns self."""
        return self.to(_core.float32)

    def double(self) -> "Module":
        """Casts floating point parameters and buffers to float64; returns self."""
        return self.to(_core.float64)

    def half(self) -> "Module":
        """Casts floating point parameters and buffers to float16; returns self."""
        return self.to(_core.float16)

    def bfloat16(self) -> "Module":
        """Casts floating point parameters and buffers to bfloat16; returns self."""
        return self.to(_core.bfloat16)

    def cpu(self) -> "Module":
        """Moves parameters and buffers to the CPU; returns self."""
        return self._apply(lambda t: t.cpu())

    def cuda(self, device: Any = None) -> "Module":
        """Moves parameters and buffers to a CUDA device (raises where CUDA is unavailable)."""
        return self._apply(lambda t: t.cuda(device))

    def type(self, dst_type: Any) -> "Module":
        """Casts parameters and buffers to ``dst_type``; returns self."""
        return self.to(dst_type)

    def share_memory(self) -> "Module":
        """Moves every parameter and buffer into shared memory (for Hogwild training)."""
        for t in list(self.parameters()) + list(self.buffers()):
            t.share_memory_()
        return self

    # ---- hooks and calling ----

    def register_forward_pre_hook(self, hook: Callable, *, prepend: bool = False, with_kwargs: bool = False) -> RemovableHandle:
        """``hook(module, args)`` (``hook(module, args, kwargs)`` with ``with_kwargs``) runs before forward; it may return new args (and kwargs)."""
        h = RemovableHandle(self._forward_pre_hooks)
        self._forward_pre_hooks[h.id] = (hook, with_kwargs)
        if prepend:
            self._forward_pre_hooks.move_to_end(h.id, last=False)
        return h

    def register_forward_hook(self, hook: Callable, *, prepend: bool = False, with_kwargs: bool = False, always_call: bool = False) -> RemovableHandle:
        """``hook(module, args, output)`` (``hook(module, args, kwargs, output)`` with ``with_kwargs``) runs after forward; it may return a new output. With ``always_call`` it also runs when forward raises."""
        h = RemovableHandle(self._forward_hooks)
        self._forward_hooks[h.id] = (hook, with_kwargs)
        if always_call:
            self._hooks_always_called().add(h.id)
        if prepend:
            self._forward_hooks.move_to_end(h.id, last=False)
        return h

    def _hooks_always_called(self) -> Set[int]:
        ids = self.__dict__.get("_forward_hooks_always_called")
        if ids is None:
            ids = set()
            object.__setattr__(self, "_forward_hooks_always_called", ids)
        return ids

    def register_full_backward_hook(self, hook: Callable, prepend: bool = False) -> RemovableHandle:
        """``hook(module, grad_input, grad_output)`` runs once the gradients with respect to
        the module's tensor inputs have been computed."""
        h = RemovableHandle(self._backward_hooks)
        self._backward_hooks[h.id] = hook
        if prepend:
            self._backward_hooks.move_to_end(h.id, last=False)
        return h

    register_backward_hook = register_full_backward_hook

    def register_full_backward_pre_hook(self, hook: Callable, prepend: bool = False) -> RemovableHandle:
        """``hook(module, grad_output)`` runs when the gradients with respect to the module's
        outputs arrive, before the inputs' gradients are computed; it may return a replacement
        ``grad_output`` tuple."""
        table = self._hooks("_backward_pre_hooks")
        h = RemovableHandle(table)
        table[h.id] = hook
        if prepend:
            table.move_to_end(h.id, last=False)
        return h

    def _wrap_backward_pre_hooks(self, result: Any) -> None:
        """Runs the backward pre hooks on each output's gradient (a one-element ``grad_output``
        for a single output; for several outputs, the others' entries are None)."""
        outs = result if isinstance(result, tuple) else (result,)
        t_outs = [o for o in outs if isinstance(o, Tensor) and o.requires_grad]
        hooks = list(_global_backward_pre_hooks.values()) + list(self._hooks("_backward_pre_hooks").values())

        def pre(i: int) -> Callable[[Tensor], Any]:
            def f(g: Tensor) -> Any:
                grad_output = tuple(g if j == i else None for j in range(len(t_outs)))
                for hk in hooks:
                    r = hk(self, grad_output)
                    if r is not None:
                        grad_output = tuple(r) if isinstance(r, (tuple, list)) else (r,)
                return grad_output[i]

            return f

        for i, o in enumerate(t_outs):
            o.register_hook(pre(i))

    def _get_name(self) -> str:
        """The class name, as the repr starts with it."""
        return type(self).__name__

    def to_empty(self, *, device: Any, recurse: bool = True) -> "Module":
        """Replaces parameters and buffers by uninitialized tensors of the same shape and dtype."""
        _core.zeros(1).to(device)  # raises for unavailable devices
        if not recurse:
            for k, p in self._parameters.items():
                if p is not None:
                    self._parameters[k] = Parameter(_core.empty_like(p), p.requires_grad)
            for k, b in self._buffers.items():
                if b is not None:
                    self._buffers[k] = _core.empty_like(b)
            return self
        return self._apply(lambda t: _core.empty_like(t))

    def _hook_inputs(self, args: Tuple[Any, ...], state: Dict[str, Any]) -> Tuple[Any, ...]:
        """Passes the tensor inputs that need gradients through one identity autograd node, whose
        backward receives all of their gradients at once and runs the full backward hooks with
        (grad_input, grad_output); grad_input has one entry per positional argument (None for
        non-tensors, zeros for tensors that need no gradient), as in PyTorch."""
        idx = [i for i, a in enumerate(args) if isinstance(a, Tensor) and a.requires_grad]
        if not idx or not _core.is_grad_enabled():
            return args
        from ...autograd.function import Function

        module, n_args = self, len(args)
        zeros = {i: _core.zeros_like(a) for i, a in enumerate(args) if isinstance(a, Tensor) and not a.requires_grad}

        class _ModuleBackwardHook(Function):
            @staticmethod
            def forward(ctx: Any, *tensors: Tensor) -> Any:
                outs = tuple(t.view_as(t) for t in tensors)
                return outs if len(outs) > 1 else outs[0]

            @staticmethod
            def backward(ctx: Any, *grads: Any) -> Any:
                # The engine may deliver a multi-output node's gradients one output at a time
                # (zeros for the others): sum them, run the hooks on the last delivery, and
                # return there the hooks' result minus what earlier deliveries passed on.
                passed = state.setdefault("passed", [None] * len(idx))
                calls = state["calls"] = state.get("calls", 0) + 1
                complete = calls >= len(idx) or all(g is not None and bool((g != 0).any()) for g in grads)
                totals = [g if prev is None else (g if g is not None else 0) + prev for g, prev in zip(grads, passed)]
                if not complete:
                    state["passed"] = totals
                    return grads if len(grads) > 1 else grads[0]
                grad_input: List[Any] = [None] * n_args
                for i, z in zeros.items():
                    grad_input[i] = z
                for i, g in zip(idx, totals):
                    grad_input[i] = g
                packed = module._run_backward_hooks(tuple(grad_input), state)
                out = tuple(packed[i] if prev is None or packed[i] is None else packed[i] - prev for i, prev in zip(idx, passed))
                return out if len(out) > 1 else out[0]

        state["inputs_hooked"] = True
        wrapped = _ModuleBackwardHook.apply(*[args[i] for i in idx])
        wrapped = wrapped if isinstance(wrapped, tuple) else (wrapped,)
        new_args = list(args)
        for i, w in zip(idx, wrapped):
            new_args[i] = w
        return tuple(new_args)

    def _run_backward_hooks(self, grad_input: Tuple[Any, ...], state: Dict[str, Any]) -> Tuple[Any, ...]:
        grad_out = state.get("grad_out", {})
        go = tuple(grad_out.get(i) for i in range(state.get("n_outputs", 0)))
        for hk in list(_global_backward_hooks.values()) + list(self._backward_hooks.values()):
            r = hk(self, grad_input, go)
            if r is not None:
                r = tuple(r) if isinstance(r, (tuple, list)) else (r,)
                if len(r) != len(grad_input):
                    raise RuntimeError(f"Backward hook returned an invalid number of grad_input, got {len(r)}, but expected {len(grad_input)}")
                grad_input = r
        return grad_input

    def _wrap_backward_hooks(self, args: Tuple[Any, ...], result: Any, state: Dict[str, Any]) -> Any:
        """Records the outputs' gradients for the hooks; when no input needed a gradient, the
        hooks run once the last output's gradient arrives, with grad_input all None."""
        outs = result if isinstance(result, tuple) else (result,)
        t_outs = [o for o in outs if isinstance(o, Tensor) and o.requires_grad]
        if not t_outs:
            return result
        grad_out: Dict[int, Any] = {}
        state["grad_out"] = grad_out
        state["n_outputs"] = len(t_outs)

        def keep_output_grad(i: int) -> Callable[[Tensor], None]:
            def f(g: Tensor) -> None:
                grad_out[i] = g

            return f

        for i, o in enumerate(t_outs):
            o.register_hook(keep_output_grad(i))
        if not state.get("inputs_hooked"):
            n = len(args)
            t_outs[-1].register_hook(lambda g: (grad_out.__setitem__(len(t_outs) - 1, g), self._run_backward_hooks((None,) * n, state)) and None)
        return result

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        d = self.__dict__
        # Without hooks of any kind a call is just forward (the common case, kept cheap).
        if not (
            d.get("_forward_pre_hooks") or d.get("_forward_hooks") or d.get("_backward_hooks") or d.get("_backward_pre_hooks")
            or _global_forward_pre_hooks or _global_forward_hooks or _global_backward_hooks or _global_backward_pre_hooks
        ):
            return self.forward(*args, **kwargs)
        called: Set[int] = set()
        result: Any = None
        try:
            for hook, with_kwargs in list(_global_forward_pre_hooks.values()) + list(self._forward_pre_hooks.values()):
                if with_kwargs:
                    r = hook(self, args, kwargs)
                    if r is not None:
                        if not (isinstance(r, tuple) and len(r) == 2):
                            raise RuntimeError(f"forward pre-hook must return None or a tuple of (new_args, new_kwargs), but got {r}.")
                        args, kwargs = r
                else:
                    r = hook(self, args)
                    if r is not None:
                        args = r if isinstance(r, tuple) else (r,)
            hook_state: Dict[str, Any] = {}
            if self._backward_hooks or _global_backward_hooks:
                args = self._hook_inputs(args, hook_state)
            result = self.forward(*args, **kwargs)
            for hid, (hook, with_kwargs) in list(_global_forward_hooks.items()) + list(self._forward_hooks.items()):
                called.add(hid)
                r = hook(self, args, kwargs, result) if with_kwargs else hook(self, args, result)
                if r is not None:
                    result = r
        except Exception:
            # Hooks registered with always_call=True still run (their results ignored), then
            # the error propagates.
            always = (self.__dict__.get("_forward_hooks_always_called") or set()) | _global_forward_hooks_always_called
            for hid, (hook, with_kwargs) in list(_global_forward_hooks.items()) + list(self._forward_hooks.items()):
                if hid in always and hid not in called:
                    try:
                        hook(self, args, kwargs, result) if with_kwargs else hook(self, args, result)
                    except Exception as e:
                        warnings.warn(f"forward hook with ``always_call=True`` raised an exception that was silenced as another error was raised in forward: {e}", stacklevel=2)
            raise
        if self.__dict__.get("_backward_pre_hooks") or _global_backward_pre_hooks:
            self._wrap_backward_pre_hooks(result)
        if self._backward_hooks or _global_backward_hooks:
            result = self._wrap_backward_hooks(args, result, hook_state)
        return result

    # ---- repr ----

    def extra_repr(self) -> str:
        """The module-specific part of the repr (inside the parentheses); subclasses override it."""
        return ""

    def __repr__(self) -> str:
        extra = self.extra_repr()
        lines = extra.split("\n") if extra else []
        for key, m in self._modules.items():
            mod_str = _addindent(repr(m), 2)
            lines.append("(" + key + "): " + mod_str)
        main = type(self).__name__ + "("
        if lines:
            if len(lines) == 1 and not self._modules:
                main += lines[0]
            else:
                main += "\n  " + "\n  ".join(lines) + "\n"
        return main + ")"

    def __getstate__(self) -> Dict[str, Any]:
        return self.__dict__.copy()

    def __setstate__(self, state: Dict[str, Any]) -> None:
        self.__dict__.update(state)

