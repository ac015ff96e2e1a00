"""PyTorch's zip checkpoint (``torch.save`` since 1.6): ``archive/data.pkl`` (the pickled
structure, tensors as persistent ids of storages), one ``archive/data/<key>`` record per
storage, and small records naming the format version and byte order."""

from __future__ import annotations

import io
import pickle
import secrets
import sys
from typing import Any, BinaryIO, Callable, Dict, List, Optional, Tuple

from .. import _core
from . import rebuild
from .pickler import StorageTable, TorchPickler
from .unpicklers import WeightsOnlyUnpickler, full_unpickler
from .zip_reader import CheckpointZip, byteswap, normalize_bools
from .zip_writer import ZipRecordWriter

DEFAULT_PROTOCOL = 2


class PickledCheckpoint:
    """An object pickled for a checkpoint, ready to write: ``data.pkl`` and the storages it names."""

    def __init__(self, obj: Any, protocol: int) -> None:
        self.storages = StorageTable()
        buf = io.BytesIO()
        TorchPickler(buf, protocol, self.storages).dump(obj)
        self.data_pkl = buf.getvalue()

    def write(self, file: BinaryIO, archive_name: str, byteorder_record: bool = True) -> None:
        """Writes the archive to ``file``, one storage at a time straight from tensor memory."""
        w = ZipRecordWriter(file, archive_name)
        w.write_record("data.pkl", self.data_pkl)
        w.write_record(".format_version", b"1")
        w.write_record(".storage_alignment", b"64")
        if byteorder_record:
            w.write_record("byteorder", sys.byteorder.encode("ascii"))
        for s in self.storages.storages:
            w.write_record(f"data/{s.key}", _host_bytes(s.flat))
        w.write_record("version", b"3\n")
        w.write_record(".data/serialization_id", str(secrets.randbelow(10**40)).zfill(40).encode("ascii"))
        w.close()


def _host_bytes(flat: Any) -> Any:
    """The bytes of a whole storage as a NumPy uint8 array (copied to the host if on a device)."""
    if flat.device.type != "cpu":
        flat = flat.cpu()
    nbytes = _core._storage_nbytes(flat)
    return _core._storage_view(flat, [nbytes], [1], 0, _core.uint8).numpy()


def _record_loader(archive: CheckpointZip, map_location: Any) -> Callable[[str, Any, int, str], Any]:
    loaded: Dict[str, Tuple[int, rebuild.LoadedStorage]] = {}

    def load_record(key: str, dtype: Any, numel: int, location: str) -> rebuild.TypedRecord:
        nbytes = numel * dtype.itemsize
        hit = loaded.get(key)
        if hit is not None and hit[0] == nbytes:
            return rebuild.TypedRecord(hit[1], dtype)
        raw = archive.read_storage(f"data/{key}", nbytes)
        if archive.needs_byteswap():
            byteswap(raw, dtype.itemsize, dtype.is_complex)
        if dtype == _core.bool:
            normalize_bools(raw)
        storage = rebuild.restore_location(rebuild.LoadedStorage(raw, "cpu"), location, map_location)
        if hit is None:
            loaded[key] = (nbytes, storage)
        return rebuild.TypedRecord(storage, dtype)

    return load_record


def load_zip(
    archive: CheckpointZip,
    map_location: Any,
    weights_only: bool,
    pickle_module: Any,
    load_args: Dict[str, Any],
) -> Any:
    """Unpickles ``data.pkl``, reading each storage record the first time a tensor needs it."""
    loader = _record_loader(archive, map_location)
    data = io.BytesIO(archive.read_record("data.pkl"))
    if weights_only:
        unpickler: Any = WeightsOnlyUnpickler(data, loader, encoding=load_args.get("encoding", "utf-8"))
    else:
        unpickler = full_unpickler(pickle_module or pickle, data, loader, **load_args)
    try:
        return unpickler.load()
    except pickle.UnpicklingError:
        raise
    except (EOFError, IndexError, KeyError) as e:
        raise RuntimeError(f"load: {archive.what} has a truncated or corrupted data.pkl ({type(e).__name__}: {e})") from None


def globals_in_pickle(data: bytes) -> List[str]:
    """Every ``module.name`` a pickle's GLOBAL / STACK_GLOBAL opcodes name, without running it."""
    import pickletools

    found: List[str] = []
    strings: List[Optional[str]] = []
    for op, arg, _ in pickletools.genops(data):
        if op.name == "GLOBAL":
            module, name = str(arg).split(" ", 1)
            found.append(f"{module}.{name}")
        elif op.name in ("SHORT_BINUNICODE", "BINUNICODE", "UNICODE", "BINUNICODE8"):
            strings.append(arg)
        elif op.name == "STACK_GLOBAL" and len(strings) >= 2:
            found.append(f"{strings[-2]}.{strings[-1]}")
    return sorted(set(found))
