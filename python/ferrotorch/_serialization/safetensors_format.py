"""ferrotorch's safetensors checkpoints: tensors as safetensors entries (named by their key
path, so a saved state_dict reads under its usual names with the ``safetensors`` package and
with PyTorch's ``torch.load`` of a ``.safetensors`` path); containers and plain values travel
as JSON in the metadata. Reading one never runs pickle."""

from __future__ import annotations

import json
import os
from collections import OrderedDict
from typing import Any, Dict, List, Tuple

from .. import _core

Tensor = _core.Tensor
_FORMAT_KEY = "ferrotorch.structure"
_FORMAT_VERSION = 1


def looks_like_safetensors(head: bytes) -> bool:
    """A little-endian u64 header length, then the JSON header's opening brace."""
    return len(head) >= 9 and head[8:9] == b"{"


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
        f"save: cannot store an object of type {type(obj).__name__} in a safetensors file; only tensors, "
        "dicts, lists, tuples and plain Python values (str, int, float, bool, None) are supported"
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


def save(obj: Any, f: Any) -> None:
    """Writes ``obj`` (tensors in nested dicts/lists/tuples) as safetensors; paths atomically."""
    tensors: List[Tuple[str, Any]] = []
    structure = _encode(obj, "", tensors, set())
    meta = {_FORMAT_KEY: json.dumps({"version": _FORMAT_VERSION, "root": structure})}
    if isinstance(f, (str, os.PathLike)):
        _core._save_file(os.fspath(f), tensors, meta)
    else:
        f.write(_core._save_bytes(tensors, meta))


def _structure(pairs: List[Tuple[str, Any]], meta: Dict[str, str], what: str) -> Any:
    if _FORMAT_KEY not in meta:
        return OrderedDict(pairs)
    try:
        return _decode(json.loads(meta[_FORMAT_KEY])["root"], dict(pairs))
    except (ValueError, KeyError, TypeError) as e:
        raise RuntimeError(f"load: {what} has corrupted structure metadata ({e})") from None


def load(data: bytes, what: str) -> Any:
    """Reads safetensors bytes; plain safetensors files (no ferrotorch structure) read as a dict."""
    return _structure(*_core._load_bytes(data, what), what)


def load_file(path: str) -> Any:
    """Reads a safetensors file (see ``load``)."""
    return _structure(*_core._load_file(path), path)
