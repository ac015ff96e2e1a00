"""Unpicklers for checkpoints. ``WeightsOnlyUnpickler`` builds only tensors, containers and the
globals on PyTorch's weights_only allowlist (plus those the user allowlists): any other global
is refused before it is looked up, so a malicious file cannot run code. ``full_unpickler`` is
the unrestricted one behind ``weights_only=False``; both map PyTorch's names onto ferrotorch."""

from __future__ import annotations

import _compat_pickle
import pickle
from collections import Counter, OrderedDict
from typing import Any, Callable, Dict, List, Tuple, Union

from .. import _core
from . import torch_names as names

Tensor = _core.Tensor
UnpicklingError = pickle.UnpicklingError
SafeGlobal = Union[Callable[..., Any], Tuple[Callable[..., Any], str]]
# (key, dtype, numel, location) -> the storage a persistent id names
RecordLoader = Callable[[str, Any, int, str], Any]

# Modules refused even when the user allowlists something from them.
BLOCKED_MODULES = ("sys", "os", "posix", "nt")

_user_safe_globals: List[SafeGlobal] = []


def add_safe_globals(safe_globals: List[SafeGlobal]) -> None:
    """Allowlists classes/functions for ``weights_only`` loading (or ``(obj, "module.name")`` pairs)."""
    for g in safe_globals:
        if g not in _user_safe_globals:
            _user_safe_globals.append(g)


def remove_safe_globals(safe_globals: List[SafeGlobal]) -> None:
    for g in safe_globals:
        if g in _user_safe_globals:
            _user_safe_globals.remove(g)


def get_safe_globals() -> List[SafeGlobal]:
    """The globals the user allowlisted for ``weights_only`` loading."""
    return list(_user_safe_globals)


def clear_safe_globals() -> None:
    """Forgets every global allowlisted with ``add_safe_globals``."""
    _user_safe_globals.clear()


def user_allowed_globals() -> Dict[str, Any]:
    out: Dict[str, Any] = {}
    for g in _user_safe_globals:
        if isinstance(g, tuple):
            if len(g) != 2:
                raise ValueError(f"Expected tuple of length 2 (global, str of callable full path), but got tuple of length: {len(g)}")
            if type(g[1]) is not str:
                raise TypeError(f"Expected second item in tuple to be str of callable full path, but got: {type(g[1])}")
            out[g[1]] = g[0]
            continue
        key = f"{g.__module__}.{g.__qualname__}"
        out[key] = g
        # A ferrotorch class is written under PyTorch's name: allow that name too.
        torch_name = names.torch_name_of(g)
        if torch_name is not None:
            out[f"{torch_name.module}.{torch_name.name}"] = g
    return out


def _fix_py2_names(module: str, name: str, proto: int) -> Tuple[str, str]:
    """Protocol 2 pickles name builtins as ``__builtin__``: read them as Python 3 names."""
    if proto < 3:
        if (module, name) in _compat_pickle.NAME_MAPPING:
            return _compat_pickle.NAME_MAPPING[(module, name)]
        module = _compat_pickle.IMPORT_MAPPING.get(module, module)
    return module, name


def _torch_global(full: str) -> Any:
    """The ferrotorch object for an allowlisted PyTorch name; a clear error for unsupported ones."""
    obj = names.allowed_torch_globals().get(full)
    if obj is None and full in names.UNSUPPORTED_TORCH_GLOBALS:
        raise RuntimeError(f"load: the checkpoint holds {names.UNSUPPORTED_TORCH_GLOBALS[full]} ({full}), which ferrotorch does not support")
    return obj


def _display_name(full: str) -> str:
    return full[len("builtins.") :] if full.startswith("builtins.") else full


class StorageLoader:
    """``persistent_load`` for ``('storage', storage_type, key, location, numel)`` ids (legacy
    files add a sixth entry, and name module classes as ``('module', cls, ...)``)."""

    def __init__(self, load_record: RecordLoader, allow_modules: bool = False) -> None:
        self._load_record = load_record
        self._allow_modules = allow_modules

    def __call__(self, pid: Any) -> Any:
        if not isinstance(pid, tuple) or not pid:
            raise UnpicklingError(f"persistent_load id must be a tuple ('storage', type, key, location, numel), but got {pid!r}")
        kind = pid[0].decode("ascii", "replace") if isinstance(pid[0], bytes) else pid[0]
        if kind == "module" and self._allow_modules and len(pid) == 4:
            return pid[1]
        if kind != "storage":
            raise UnpicklingError(f"Only persistent_load of storage is allowed, but got {kind!r}")
        if len(pid) == 6 and pid[5] is not None:
            raise RuntimeError("load: the checkpoint holds storage views (PyTorch < 0.4), which ferrotorch does not support")
        if len(pid) not in (5, 6):
            raise UnpicklingError(f"persistent_load: malformed storage id {pid!r}")
        storage_type, key, location, numel = pid[1:5]
        if not isinstance(storage_type, names.StorageType):
            raise UnpicklingError(f"persistent_load: {storage_type!r} is not a storage type")
        if isinstance(location, bytes):
            location = location.decode("ascii", "replace")
        if not isinstance(key, str) or not isinstance(location, str) or type(numel) is not int or numel < 0:
            raise UnpicklingError(f"persistent_load: malformed storage id {pid!r}")
        return self._load_record(key, storage_type.dtype, numel, location)


class WeightsOnlyUnpickler(pickle._Unpickler):  # type: ignore[name-defined]
    """The pure-Python unpickler with every opcode that can call or build something checked."""

    dispatch = dict(pickle._Unpickler.dispatch)  # type: ignore[attr-defined]

    def __init__(self, file: Any, load_record: RecordLoader, encoding: str = "utf-8") -> None:
        super().__init__(file, encoding=encoding)
        self._storage_loader = StorageLoader(load_record)
        self._user = user_allowed_globals()
        allowed = list(names.allowed_torch_globals().values()) + list(self._user.values())
        self._allowed_ids = {id(v) for v in allowed}

    def persistent_load(self, pid: Any) -> Any:
        return self._storage_loader(pid)

    def find_class(self, module: str, name: str) -> Any:
        module, name = _fix_py2_names(module, name, self.proto)
        full = f"{module}.{name}"
        if module in BLOCKED_MODULES:
            raise UnpicklingError(f"Trying to load unsupported GLOBAL {full} whose module {module} is blocked.")
        obj = _torch_global(full)
        if obj is not None:
            return obj
        if full in self._user:
            return self._user[full]
        shown = _display_name(full)
        raise UnpicklingError(
            f"Unsupported global: GLOBAL {shown} was not an allowed global by default. "
            f"Please use `torch.serialization.add_safe_globals([{shown}])` or the "
            f"`torch.serialization.safe_globals([{shown}])` context manager to allowlist this global "
            "if you trust this class/function."
        )

    def _allowed(self, obj: Any) -> bool:
        return id(obj) in self._allowed_ids

    def _load_reduce(self) -> None:
        args = self.stack.pop()
        func = self.stack[-1]
        if not self._allowed(func):
            raise UnpicklingError(f"Trying to call reduce for unrecognized function {func!r}")
        if not isinstance(args, tuple):
            raise UnpicklingError(f"REDUCE arguments must be a tuple, not {type(args).__name__}")
        self.stack[-1] = func(*args)

    def _load_newobj(self) -> None:
        from ..nn.parameter import Parameter

        args = self.stack.pop()
        cls = self.stack.pop()
        if not isinstance(args, tuple):
            raise UnpicklingError(f"NEWOBJ arguments must be a tuple, not {type(args).__name__}")
        if cls is Parameter:
            self.append(Parameter(*args))
        elif self._allowed(cls) and isinstance(cls, type):
            self.append(cls.__new__(cls, *args))
        else:
            raise UnpicklingError(f"Can only create new object for nn.Parameter or classes allowlisted via `add_safe_globals` but got {cls!r}")

    def _load_build(self) -> None:
        from . import rebuild

        state = self.stack.pop()
        inst = self.stack[-1]
        if isinstance(inst, Tensor):
            rebuild._set_state(inst, state)
        elif type(inst) in (OrderedDict, Counter):
            if not isinstance(state, dict):
                raise UnpicklingError(f"BUILD state for an {type(inst).__name__} must be a dict, not {type(state).__name__}")
            inst.__dict__.update(state)
        elif self._allowed(type(inst)) and type(inst) in self._user.values():
            setstate = getattr(inst, "__setstate__", None)
            if setstate is not None:
                setstate(state)
                return
            slotstate = None
            if isinstance(state, tuple) and len(state) == 2:
                state, slotstate = state
            if state:
                inst.__dict__.update(state)
            for k, v in (slotstate or {}).items():
                setattr(inst, k, v)
        else:
            raise UnpicklingError(f"Can only build Tensor, Parameter, OrderedDict or types allowlisted via `add_safe_globals`, but got {type(inst)}")

    def _load_append(self) -> None:
        item = self.stack.pop()
        if type(self.stack[-1]) is not list:
            raise UnpicklingError(f"Can only append to lists, but got {type(self.stack[-1])}")
        self.stack[-1].append(item)

    def _load_appends(self) -> None:
        items = self.pop_mark()
        if type(self.stack[-1]) is not list:
            raise UnpicklingError(f"Can only extend lists, but got {type(self.stack[-1])}")
        self.stack[-1].extend(items)

    def _check_dict_target(self, opcode: str) -> None:
        if type(self.stack[-1]) not in (dict, OrderedDict, Counter):
            raise UnpicklingError(f"Can only {opcode} for dict, collections.OrderedDict, collections.Counter, but got {type(self.stack[-1])}")

    def _load_setitem(self) -> None:
        value = self.stack.pop()
        key = self.stack.pop()
        self._check_dict_target("SETITEM")
        self.stack[-1][key] = value

    def _load_setitems(self) -> None:
        items = self.pop_mark()
        self._check_dict_target("SETITEMS")
        for i in range(0, len(items) - 1, 2):
            self.stack[-1][items[i]] = items[i + 1]

    def _load_additems(self) -> None:
        items = self.pop_mark()
        if type(self.stack[-1]) is not set:
            raise UnpicklingError(f"Can only add items to sets, but got {type(self.stack[-1])}")
        self.stack[-1].update(items)

    def _refuse(self) -> None:
        raise UnpicklingError("Unsupported operand: this pickle opcode is not allowed in weights_only loading")

    for _op, _fn in (
        (pickle.REDUCE, _load_reduce),
        (pickle.NEWOBJ, _load_newobj),
        (pickle.BUILD, _load_build),
        (pickle.APPEND, _load_append),
        (pickle.APPENDS, _load_appends),
        (pickle.SETITEM, _load_setitem),
        (pickle.SETITEMS, _load_setitems),
        (pickle.ADDITEMS, _load_additems),
        (pickle.NEWOBJ_EX, _refuse),
        (pickle.INST, _refuse),
        (pickle.OBJ, _refuse),
        (pickle.EXT1, _refuse),
        (pickle.EXT2, _refuse),
        (pickle.EXT4, _refuse),
        (pickle.NEXT_BUFFER, _refuse),
        (pickle.READONLY_BUFFER, _refuse),
    ):
        dispatch[_op[0]] = _fn
    del _op, _fn


class _TorchNamesMixin:
    """find_class for full unpickling: PyTorch's names resolve to ferrotorch objects."""

    proto: int

    def find_class(self, module: str, name: str) -> Any:
        fixed_module, fixed_name = _fix_py2_names(module, name, getattr(self, "proto", 2))
        obj = _torch_global(f"{fixed_module}.{fixed_name}")
        if obj is not None:
            return obj
        if fixed_module == "torch" or fixed_module.startswith("torch."):
            return names.ferrotorch_counterpart(fixed_module, fixed_name)
        return super().find_class(module, name)  # type: ignore[misc]


def full_unpickler(pickle_module: Any, file: Any, load_record: RecordLoader, **load_args: Any) -> Any:
    """An unrestricted unpickler from ``pickle_module`` (``weights_only=False``)."""
    cls = type("FullUnpickler", (_TorchNamesMixin, pickle_module.Unpickler), {})
    unpickler = cls(file, **load_args)
    unpickler.persistent_load = StorageLoader(load_record, allow_modules=True)
    return unpickler
