"""``save`` and ``load``: tensors and nested containers in the safetensors format.

Tensors are stored as safetensors entries (named by their key path, so a saved state_dict
is readable by the ``safetensors`` package under its usual names); the container structure
and plain Python values travel as JSON in the file's metadata. Loading never runs pickle,
so a file from an untrusted source cannot execute code.
"""

from __future__ import annotations

import io
import json
import os
from collections import OrderedDict
from typing import Any, BinaryIO, Dict, List, Tuple, Union

from . import _core

Tensor = _core.Tensor
_FORMAT_KEY = "ferrotorch.structure"
_FORMAT_VERSION = 1

FileLike = Union[str, os.PathLike, BinaryIO]


def _encode(obj: Any, path: str, tensors: List[Tuple[str, Any]], names: set) -> Any:
    if isinstance(obj, Tensor):
        name = path or "tensor"
        while name in names:
            name += "_"
        names.add(name)
        tensors.append((name, obj.detach()))
        entry = {"__tensor__": name, "requires_grad": bool(obj.requires_grad)}
        if obj.is_complex():
            # safetensors has no complex dtype: the entry holds view_as_real of the tensor.
            entry["complex"] = True
        return entry
    if obj is None or isinstance(obj, (bool, int, float, str)):
        return obj
    if isinstance(obj, dict):
        kind = "__odict__" if isinstance(obj, OrderedDict) else "__dict__"
        items = []
        for k, v in obj.items():
            if not isinstance(k, (str, int, float, bool)) and k is not None:
                raise TypeError(f"save: dict keys must be str, int, float, bool or None, not {type(k).__name__}")
            sub = f"{path}.{k}" if path else str(k)
            items.append([k, _encode(v, sub, tensors, names)])
        return {kind: items}
    if isinstance(obj, (list, tuple)):
        enc = [_encode(v, f"{path}.{i}" if path else str(i), tensors, names) for i, v in enumerate(obj)]
        return enc if isinstance(obj, list) else {"__tuple__": enc}
    if isinstance(obj, _core.dtype):
        return {"__dtype__": obj.name}
    raise TypeError(
        f"save: cannot store an object of type {type(obj).__name__}; only tensors, dicts, lists, "
        "tuples and plain Python values (str, int, float, bool, None) are supported"
    )


def _decode(obj: Any, tensors: Dict[str, Any]) -> Any:
    if isinstance(obj, list):
        return [_decode(v, tensors) for v in obj]
    if not isinstance(obj, dict):
        return obj
    if "__tensor__" in obj:
        t = tensors[obj["__tensor__"]]
        if obj.get("complex"):
            t = _core.view_as_complex(t)
        return t.requires_grad_(True) if obj.get("requires_grad") else t
    if "__tuple__" in obj:
        return tuple(_decode(v, tensors) for v in obj["__tuple__"])
    if "__dtype__" in obj:
        return getattr(_core, obj["__dtype__"])
    kind = "__odict__" if "__odict__" in obj else "__dict__"
    out: Dict[Any, Any] = OrderedDict() if kind == "__odict__" else {}
    for k, v in obj[kind]:
        out[k] = _decode(v, tensors)
    return out


def save(obj: Any, f: FileLike, pickle_module: Any = None, pickle_protocol: int = 2, _use_new_zipfile_serialization: bool = True) -> None:
    """Saves ``obj`` (a tensor, or nested dicts/lists/tuples of tensors and plain values) to ``f``.

    Writing a path is atomic: the data goes to a temporary file that is fsynced and renamed, so
    an interrupted save never leaves a half-written file in place of a good one.

    >>> import ferrotorch as torch, tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "w.safetensors")
    >>> torch.save({"w": torch.ones(2)}, path)
    >>> torch.load(path)["w"]
    tensor([1., 1.])
    """
    tensors: List[Tuple[str, Any]] = []
    structure = _encode(obj, "", tensors, set())
    meta = {_FORMAT_KEY: json.dumps({"version": _FORMAT_VERSION, "root": structure})}
    if isinstance(f, (str, os.PathLike)):
        _core._save_file(os.fspath(f), tensors, meta)
    else:
        f.write(_core._save_bytes(tensors, meta))


def load(f: FileLike, map_location: Any = None, pickle_module: Any = None, *, weights_only: bool = True, mmap: Any = None, **kwargs: Any) -> Any:
    """Loads what ``save`` wrote. Plain safetensors files load as a dict of name -> tensor.

    Truncated or corrupted files raise RuntimeError naming the file. No code from the file
    is ever executed (``weights_only`` is always effectively True).
    """
    if map_location is not None and str(map_location) not in ("cpu", "device(type='cpu')"):
        if not callable(map_location) and not isinstance(map_location, dict):
            raise RuntimeError(f"load: map_location={map_location!r} is not available in this build (CPU only)")
    if isinstance(f, (str, os.PathLike)):
        pairs, meta = _core._load_file(os.fspath(f))
        what = os.fspath(f)
    else:
        data = f.read() if not isinstance(f, (bytes, bytearray)) else f
        what = getattr(f, "name", "<buffer>") if not isinstance(f, (bytes, bytearray)) else "<bytes>"
        pairs, meta = _core._load_bytes(bytes(data), str(what))
    tensors = dict(pairs)
    if _FORMAT_KEY not in meta:
        return OrderedDict(pairs)
    try:
        doc = json.loads(meta[_FORMAT_KEY])
        return _decode(doc["root"], tensors)
    except (ValueError, KeyError, TypeError) as e:
        raise RuntimeError(f"load: {what} has corrupted structure metadata ({e})") from None


__all__ = ["load", "save"]
_ = io  # file-like objects are accepted duck-typed
