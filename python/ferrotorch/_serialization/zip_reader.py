"""Reads PyTorch's zip checkpoints: finds the archive folder, reads records, and reads storage
records straight into tensors (or maps them from the file with ``mmap=True``)."""

from __future__ import annotations

import struct
import sys
import zipfile
from typing import Any, BinaryIO, Optional

import numpy as np

from .. import _core

_CHUNK = 1 << 24
_LOCAL_HEADER = struct.Struct("<IHHHHHIIIHH")


class CheckpointZip:
    """An open PyTorch zip checkpoint; every read error becomes a RuntimeError naming the file."""

    def __init__(self, file: BinaryIO, what: str, mmap_path: Optional[str] = None) -> None:
        self.what = what
        self._file = file
        try:
            self._zip = zipfile.ZipFile(file)
            names = self._zip.namelist()
        except (zipfile.BadZipFile, OSError, EOFError, ValueError, struct.error) as e:
            raise self.corrupt(e) from None
        pickles = [n for n in names if n.endswith("/data.pkl") and n.count("/") == 1]
        if any(n.endswith("/constants.pkl") for n in names):
            raise RuntimeError(f"load: {what} is a TorchScript archive (torch.jit.save); ferrotorch cannot load those")
        if not pickles:
            raise RuntimeError(f"load: {what} is a zip file but not a PyTorch checkpoint (it has no data.pkl record)")
        self.prefix = pickles[0][: -len("data.pkl")]
        self.byteorder = "little"
        if self.has_record("byteorder"):
            self.byteorder = self.read_record("byteorder").decode("ascii", "replace")
            if self.byteorder not in ("little", "big"):
                raise ValueError("Unknown endianness type: " + self.byteorder)
        self._mmap = np.memmap(mmap_path, dtype=np.uint8, mode="c") if mmap_path is not None else None

    def corrupt(self, e: BaseException) -> RuntimeError:
        return RuntimeError(f"load: {self.what} is a truncated or corrupted zip checkpoint ({type(e).__name__}: {e})")

    def has_record(self, name: str) -> bool:
        try:
            self._zip.getinfo(self.prefix + name)
        except KeyError:
            return False
        return True

    def _info(self, name: str) -> zipfile.ZipInfo:
        try:
            return self._zip.getinfo(self.prefix + name)
        except KeyError:
            raise RuntimeError(f"load: {self.what} is missing record {self.prefix + name}") from None

    def read_record(self, name: str) -> bytes:
        info = self._info(name)
        try:
            return self._zip.read(info)
        except (zipfile.BadZipFile, OSError, EOFError, ValueError, struct.error, NotImplementedError) as e:
            raise self.corrupt(e) from None

    def read_storage(self, name: str, nbytes: int) -> Any:
        """The record as a 1-D uint8 tensor of exactly ``nbytes`` (mapped from the file if asked)."""
        info = self._info(name)
        if info.file_size != nbytes:
            raise RuntimeError(
                f"load: {self.what} is corrupted: record {info.filename} holds {info.file_size} bytes, "
                f"the checkpoint expects {nbytes}"
            )
        if self._mmap is not None and info.compress_type == zipfile.ZIP_STORED:
            start = self._data_offset(info)
            if start % 64 == 0 and start + nbytes <= len(self._mmap):
                return _core.from_numpy(self._mmap[start : start + nbytes])
        raw = _core.empty(nbytes, dtype=_core.uint8)
        out = raw.numpy()
        try:
            with self._zip.open(info) as fh:
                pos = 0
                while pos < nbytes:
                    chunk = fh.read(min(_CHUNK, nbytes - pos))
                    if not chunk:
                        raise EOFError(f"record {info.filename} ends after {pos} of {nbytes} bytes")
                    out[pos : pos + len(chunk)] = np.frombuffer(chunk, dtype=np.uint8)
                    pos += len(chunk)
                fh.read(1)  # reaching the end checks the CRC
        except (zipfile.BadZipFile, OSError, EOFError, ValueError, struct.error, NotImplementedError) as e:
            raise self.corrupt(e) from None
        return raw

    def _data_offset(self, info: zipfile.ZipInfo) -> int:
        head = bytes(self._mmap[info.header_offset : info.header_offset + _LOCAL_HEADER.size])
        fields = _LOCAL_HEADER.unpack(head)
        if fields[0] != 0x04034B50:
            raise self.corrupt(ValueError(f"bad local header for {info.filename}"))
        return info.header_offset + _LOCAL_HEADER.size + fields[9] + fields[10]

    def needs_byteswap(self) -> bool:
        return self.byteorder != sys.byteorder


def byteswap(raw: Any, itemsize: int, is_complex: bool) -> None:
    """Swaps the byte order of each element (each half of a complex) of a uint8 tensor in place."""
    unit = itemsize // 2 if is_complex else itemsize
    if unit > 1:
        arr = raw.numpy()
        arr.view(np.dtype(f"u{unit}")).byteswap(inplace=True)


def normalize_bools(raw: Any) -> None:
    """Bytes of a bool record other than 0 and 1 read as True (as PyTorch reads them)."""
    arr = raw.numpy()
    if arr.size and arr.max() > 1:
        np.not_equal(arr, 0, out=arr.view(np.bool_))
