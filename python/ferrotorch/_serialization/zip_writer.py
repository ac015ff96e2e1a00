"""Writes zip archives laid out as PyTorch's writer (miniz) lays them out: stored records whose
data starts on a 64-byte boundary (padding in an ``FB`` extra field), each followed by a data
descriptor, and a zip64 end record, so readers that map records straight from the file work."""

from __future__ import annotations

import struct
import zlib
from typing import Any, BinaryIO, List, Tuple

_U32_MAX = 0xFFFFFFFF
_U16_MAX = 0xFFFF
_LOCAL_HEADER = struct.Struct("<IHHHHHIIIHH")
_CENTRAL_HEADER = struct.Struct("<IHHHHHHIIIHHHHHII")
_FLAGS = 0x0808  # bit 3: sizes in a data descriptor; bit 11: UTF-8 names


class ZipRecordWriter:
    """Appends records to ``file`` (which need not be seekable); ``close`` writes the directory."""

    def __init__(self, file: BinaryIO, archive_name: str, alignment: int = 64) -> None:
        self._file = file
        self._prefix = archive_name + "/"
        self._alignment = alignment
        self._pos = 0
        self._entries: List[Tuple[bytes, int, int, int]] = []  # name, crc, size, header offset

    def _write(self, data: Any) -> None:
        self._file.write(data)
        self._pos += memoryview(data).nbytes

    def _padding(self, name_len: int, size: int) -> bytes:
        start = self._pos + _LOCAL_HEADER.size + name_len + 4
        if size >= _U32_MAX or self._pos >= _U32_MAX:
            start += 4 + (16 if size >= _U32_MAX else 0) + (8 if self._pos >= _U32_MAX else 0)
        pad = -start % self._alignment
        return b"FB" + struct.pack("<H", pad) + b"Z" * pad

    def write_record(self, name: str, data: Any) -> None:
        """Adds ``archive/name`` holding ``data`` (bytes or any C-contiguous buffer)."""
        view = memoryview(data).cast("B") if not isinstance(data, bytes) else data
        size = len(view)
        full = (self._prefix + name).encode("utf-8")
        offset = self._pos
        zip64_extra = b""
        if size >= _U32_MAX or offset >= _U32_MAX:
            fields = ([size, size] if size >= _U32_MAX else []) + ([offset] if offset >= _U32_MAX else [])
            zip64_extra = struct.pack(f"<HH{len(fields)}Q", 1, 8 * len(fields), *fields)
        extra = zip64_extra + self._padding(len(full), size)
        crc = zlib.crc32(view)
        self._write(_LOCAL_HEADER.pack(0x04034B50, 0, _FLAGS, 0, 0, 0, 0, 0, 0, len(full), len(extra)))
        self._write(full + extra)
        self._write(view)
        if size >= _U32_MAX or offset >= _U32_MAX:
            self._write(struct.pack("<IIQQ", 0x08074B50, crc, size, size))
        else:
            self._write(struct.pack("<IIII", 0x08074B50, crc, size, size))
        self._entries.append((full, crc, size, offset))

    def close(self) -> None:
        """Writes the central directory and the (zip64) end records."""
        cd_start = self._pos
        for full, crc, size, offset in self._entries:
            big = [size, size] if size >= _U32_MAX else []
            if offset >= _U32_MAX:
                big.append(offset)
            extra = struct.pack(f"<HH{len(big)}Q", 1, 8 * len(big), *big) if big else b""
            self._write(
                _CENTRAL_HEADER.pack(
                    0x02014B50, 0, 0, _FLAGS, 0, 0, 0, crc, min(size, _U32_MAX), min(size, _U32_MAX),
                    len(full), len(extra), 0, 0, 0, 0, min(offset, _U32_MAX),
                )
            )
            self._write(full + extra)
        cd_size = self._pos - cd_start
        n = len(self._entries)
        eocd64 = self._pos
        self._write(struct.pack("<IQHHIIQQQQ", 0x06064B50, 44, 0x031E, 45, 0, 0, n, n, cd_size, cd_start))
        self._write(struct.pack("<IIQI", 0x07064B50, 0, eocd64, 1))
        self._write(
            struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, min(n, _U16_MAX), min(n, _U16_MAX),
                        min(cd_size, _U32_MAX), min(cd_start, _U32_MAX), 0)
        )
