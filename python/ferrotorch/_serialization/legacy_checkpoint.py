"""PyTorch's legacy checkpoint (``torch.save`` before 1.6, or ``_use_new_zipfile_serialization=False``):
a run of pickles in one stream (magic number, format version, system info, the object, the
storage keys) followed by each storage's element count and raw bytes, in that key order."""

from __future__ import annotations

import pickle
import struct
from typing import Any, BinaryIO, Dict, List, Tuple

import numpy as np

from .. import _core
from . import rebuild
from .unpicklers import WeightsOnlyUnpickler, full_unpickler
from .zip_reader import byteswap, normalize_bools

MAGIC_NUMBER = 0x1950A86A20F9469CFC6C
PROTOCOL_VERSION = 1001


def _refuse_persistent(key: str, dtype: Any, numel: int, location: str) -> Any:
    raise pickle.UnpicklingError(f"unexpected storage {key!r} in a checkpoint header")


def load_legacy(fh: BinaryIO, what: str, map_location: Any, weights_only: bool, pickle_module: Any, load_args: Dict[str, Any]) -> Any:
    """Reads a legacy checkpoint onto the CPU (its storages are filled after the object is built)."""
    encoding = load_args.get("encoding", "utf-8")

    def header() -> Any:
        if weights_only:
            return WeightsOnlyUnpickler(fh, _refuse_persistent, encoding=encoding).load()
        return (pickle_module or pickle).Unpickler(fh, **load_args).load()

    try:
        magic = header()
    except (EOFError, ValueError, IndexError, KeyError) as e:
        raise RuntimeError(f"load: {what} is neither a zip nor a legacy PyTorch checkpoint ({type(e).__name__}: {e})") from None
    if magic != MAGIC_NUMBER:
        raise RuntimeError("Invalid magic number; corrupt file?")
    version = header()
    if version != PROTOCOL_VERSION:
        raise RuntimeError(f"Invalid protocol version: {version}")
    sys_info = header()
    little = not isinstance(sys_info, dict) or sys_info.get("little_endian", True)

    records: Dict[str, Tuple[Any, Any]] = {}

    def load_record(key: str, dtype: Any, numel: int, location: str) -> rebuild.TypedRecord:
        if key in records:
            return rebuild.TypedRecord(records[key][0], dtype)
        storage = rebuild.restore_location(rebuild.LoadedStorage(_core.zeros(numel * dtype.itemsize, dtype=_core.uint8), "cpu"), location, map_location)
        if storage.device.type != "cpu":
            raise RuntimeError(
                f"load: {what} is a legacy (pre-1.6) checkpoint, which ferrotorch loads on the CPU only; "
                "pass map_location='cpu' and move the result"
            )
        records[key] = (storage, dtype)
        return rebuild.TypedRecord(storage, dtype)

    if weights_only:
        obj = WeightsOnlyUnpickler(fh, load_record, encoding=encoding).load()
    else:
        obj = full_unpickler(pickle_module or pickle, fh, load_record, **load_args).load()
    keys: List[str] = header()
    for key in keys:
        if key not in records:
            raise RuntimeError(f"load: {what} is corrupted: storage {key!r} is listed but never used")
        storage, dtype = records[key]
        _fill(fh, storage._raw, dtype, little, what)
    return obj


def _fill(fh: BinaryIO, raw: Any, dtype: Any, little: bool, what: str) -> None:
    head = fh.read(8)
    if len(head) != 8:
        raise RuntimeError(f"load: {what} is truncated (a storage's data is missing)")
    numel = struct.unpack("<q" if little else ">q", head)[0]
    nbytes = raw.numel()
    if numel * dtype.itemsize != nbytes:
        raise RuntimeError(f"load: {what} is corrupted: a storage holds {numel} elements, the checkpoint expects {nbytes // dtype.itemsize}")
    out = raw.numpy()
    data = fh.read(nbytes)
    if len(data) != nbytes:
        raise RuntimeError(f"load: {what} is truncated (a storage has {len(data)} of {nbytes} bytes)")
    out[:] = np.frombuffer(data, dtype=np.uint8)
    if little != (np.little_endian):
        byteswap(raw, dtype.itemsize, dtype.is_complex)
    if dtype == _core.bool:
        normalize_bools(raw)
