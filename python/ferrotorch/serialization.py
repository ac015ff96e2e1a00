"""``save`` and ``load`` in PyTorch's checkpoint format, so files go both ways between the two.

``save`` writes PyTorch's zip archive (what ``torch.save`` writes since PyTorch 1.6), except
to a path ending in ``.safetensors``: there it writes a safetensors file, which PyTorch's own
``torch.load`` reads for such paths. ``load`` tells the formats apart by their first bytes:

- zip archives from PyTorch or ferrotorch. With ``weights_only=True`` (the default) only
  tensors, containers and PyTorch's allowlisted globals are built: any other global in the
  pickle raises ``pickle.UnpicklingError`` before it is looked up, so no code from the file runs.
- safetensors files (ferrotorch's earlier format, and plain ones written by ``safetensors``).

>>> import ferrotorch as torch, io
>>> buf = io.BytesIO()
>>> torch.save({"w": torch.ones(2)}, buf)
>>> _ = buf.seek(0)
>>> torch.load(buf)["w"]
tensor([1., 1.])
"""

from __future__ import annotations

import io
import os
import pickle
import secrets
import warnings
from typing import Any, BinaryIO, Callable, List, Optional, Union

from ._serialization import safetensors_format
from ._serialization.legacy_checkpoint import load_legacy
from ._serialization.unpicklers import (
    SafeGlobal,
    _fix_py2_names,
    _torch_global,
    add_safe_globals,
    clear_safe_globals,
    get_safe_globals,
    remove_safe_globals,
    user_allowed_globals,
)
from ._serialization.zip_checkpoint import DEFAULT_PROTOCOL, PickledCheckpoint, globals_in_pickle, load_zip
from ._serialization.zip_reader import CheckpointZip

FileLike = Union[str, os.PathLike, BinaryIO, io.BytesIO]

_ZIP_MAGIC = b"PK\x03\x04"
_TRUE_VALUES = ("1", "y", "yes", "true")
UNSAFE_MESSAGE = (
    "Loading with `weights_only=False` will likely succeed, but it can result in arbitrary code "
    "execution. Do it only if you got the file from a trusted source."
)


class safe_globals:
    """Context manager that allowlists globals for ``weights_only`` loading while it is open.

    >>> import ferrotorch as torch
    >>> with torch.serialization.safe_globals([dict]):
    ...     dict in torch.serialization.get_safe_globals()
    True
    """

    def __init__(self, safe_globals: List[SafeGlobal]) -> None:
        self.safe_globals = safe_globals

    def __enter__(self) -> None:
        add_safe_globals(self.safe_globals)

    def __exit__(self, *exc: Any) -> None:
        remove_safe_globals(self.safe_globals)


def _archive_name(path: str) -> str:
    """PyTorch names the archive's folder after the file, less its extension."""
    base = os.path.basename(path)
    stem = base[: base.rfind(".")] if "." in base else base
    return stem or "archive"


def _fsync_directory(directory: str) -> None:
    """Persists a rename (best effort: some filesystems cannot fsync a directory)."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _write_atomically(path: str, write: Callable[[BinaryIO], None]) -> None:
    """Writes through a temporary file that is fsynced and renamed over ``path``: an
    interrupted save never leaves a half-written file in place of a good one."""
    directory = os.path.dirname(os.path.abspath(path))
    tmp: Optional[str] = os.path.join(directory, f".{os.path.basename(path)}.tmp-{os.getpid()}-{secrets.token_hex(4)}")
    try:
        # os.open with 0o666 leaves the permissions to the umask, as for any new file.
        with os.fdopen(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666), "wb") as fh:  # type: ignore[arg-type]
            write(fh)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)  # type: ignore[arg-type]
        tmp = None
        _fsync_directory(directory)
    except OSError as e:
        raise RuntimeError(f"save: cannot write {path}: {e}") from None
    finally:
        if tmp is not None and os.path.exists(tmp):
            os.unlink(tmp)


def save(
    obj: object,
    f: FileLike,
    pickle_module: Any = pickle,
    pickle_protocol: int = DEFAULT_PROTOCOL,
    _use_new_zipfile_serialization: bool = True,
    _disable_byteorder_record: bool = False,
) -> None:
    """Saves ``obj`` to ``f`` (a path or a writable binary file) in PyTorch's zip format.

    Tensors that share storage are written once and share it again when loaded; views keep
    their offsets and strides. Anything picklable can be saved, as with PyTorch (loading
    objects other than tensors and containers then needs ``weights_only=False``). A path
    ending in ``.safetensors`` gets a safetensors file instead (tensors in nested containers
    only). Writing a path is atomic.

    >>> import ferrotorch as torch, tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "w.pt")
    >>> torch.save({"w": torch.ones(2)}, path)
    >>> torch.load(path)["w"]
    tensor([1., 1.])
    """
    if not _use_new_zipfile_serialization:
        raise RuntimeError("save: ferrotorch writes only the zip format of PyTorch >= 1.6 (_use_new_zipfile_serialization=False is not supported)")
    is_path = isinstance(f, (str, os.PathLike))
    if is_path and os.fspath(f).endswith(".safetensors"):
        safetensors_format.save(obj, f)
        return
    if not is_path and not hasattr(f, "write"):
        raise AttributeError(f"save: expected a path or a file object with write(), got {type(f).__name__}")
    pickled = PickledCheckpoint(obj, pickle_protocol)
    if is_path:
        path = os.fspath(f)
        _write_atomically(path, lambda fh: pickled.write(fh, _archive_name(path), not _disable_byteorder_record))
    else:
        pickled.write(f, "archive", not _disable_byteorder_record)  # type: ignore[arg-type]


def _resolve_weights_only(weights_only: Optional[bool], pickle_module: Any) -> bool:
    not_set = weights_only is None
    resolved = pickle_module is None if not_set else bool(weights_only)
    force_on = os.getenv("TORCH_FORCE_WEIGHTS_ONLY_LOAD", "0").lower() in _TRUE_VALUES
    force_off = os.getenv("TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD", "0").lower() in _TRUE_VALUES
    if force_on and force_off:
        raise RuntimeError("Only one of `TORCH_FORCE_WEIGHTS_ONLY_LOAD` or `TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD` should be set, but both were set.")
    if force_on:
        return True
    if force_off and not_set:
        warnings.warn(
            "Environment variable TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD detected, since the `weights_only` argument "
            "was not explicitly passed to `torch.load`, forcing weights_only=False.",
            UserWarning,
            stacklevel=3,
        )
        return False
    return resolved


def _weights_only_message(message: str) -> str:
    """PyTorch's wording around a refusal, so users find the same two ways forward."""
    if "was not an allowed global by default" in message:
        return (
            "Weights only load failed. This file can still be loaded, to do so you have two options, "
            "do those steps only if you trust the source of the checkpoint. "
            f"\n\t(1) {UNSAFE_MESSAGE}\n\t(2) Alternatively, to load with `weights_only=True` please check "
            "the recommended steps in the following error message.\n\tWeightsUnpickler error: " + message
        )
    return f"Weights only load failed. {UNSAFE_MESSAGE}\n WeightsUnpickler error: {message}"


def _is_tar(fh: Any) -> bool:
    start = fh.tell()
    fh.seek(start + 257)
    magic = fh.read(5)
    fh.seek(start)
    return magic == b"ustar"


def _open_for_reading(f: Any) -> tuple:
    """(seekable binary file, name for messages, whether we opened it)."""
    if isinstance(f, (str, os.PathLike)):
        return open(os.fspath(f), "rb"), os.fspath(f), True
    if isinstance(f, (bytes, bytearray, memoryview)):
        return io.BytesIO(bytes(f)), "<bytes>", True
    if not hasattr(f, "read"):
        raise AttributeError(f"load: expected a path or a file object with read(), got {type(f).__name__}")
    what = str(getattr(f, "name", "<buffer>"))
    seekable = getattr(f, "seekable", None)
    if seekable is None or not seekable():
        return io.BytesIO(f.read()), what, True
    return f, what, False


def load(
    f: FileLike,
    map_location: Any = None,
    pickle_module: Any = None,
    *,
    weights_only: Optional[bool] = None,
    mmap: Optional[bool] = None,
    **pickle_load_args: Any,
) -> Any:
    """Loads an object saved with ``torch.save`` by ferrotorch or PyTorch, or a safetensors file.

    ``map_location`` places storages as in PyTorch: a device or string for all of them, a dict
    from saved location to new one (``{"cuda:0": "cpu"}``), or a callable ``(storage, location)``
    returning a storage (or None for the default). ``mmap=True`` maps the storages from the file
    (copy-on-write) instead of reading them. ``weights_only`` defaults to True unless a
    ``pickle_module`` is given; only ``weights_only=False`` unpickles arbitrary objects.
    """
    weights_only = _resolve_weights_only(weights_only, pickle_module)
    if weights_only and pickle_module is not None:
        raise RuntimeError("Can not safely load weights when explicit pickle_module is specified")
    if pickle_load_args and weights_only:
        warnings.warn("pickle_load_args only works if `weights_only=False`.", stacklevel=2)
    pickle_load_args.setdefault("encoding", "utf-8")
    is_path = isinstance(f, (str, os.PathLike))
    if mmap and not is_path:
        raise ValueError("f must be a file path in order to use the mmap argument")
    fh, what, opened = _open_for_reading(f)
    try:
        start = fh.tell()
        head = fh.read(16)
        fh.seek(start)
        if head.startswith(_ZIP_MAGIC):
            archive = CheckpointZip(fh, what, os.fspath(f) if mmap else None)  # type: ignore[arg-type]
            try:
                return load_zip(archive, map_location, weights_only, pickle_module, pickle_load_args)
            except pickle.UnpicklingError as e:
                if weights_only:
                    raise pickle.UnpicklingError(_weights_only_message(str(e))) from None
                raise
        if safetensors_format.looks_like_safetensors(head):
            if is_path:
                return safetensors_format.load_file(what)
            return safetensors_format.load(fh.read(), what)
        if mmap:
            raise RuntimeError(f"mmap can only be used with files saved in the zip format (torch.save since PyTorch 1.6); {what} is not one")
        if head[:1] == b"\x80":
            try:
                return load_legacy(fh, what, map_location, weights_only, pickle_module, pickle_load_args)
            except pickle.UnpicklingError as e:
                if weights_only:
                    raise pickle.UnpicklingError(_weights_only_message(str(e))) from None
                raise
        if _is_tar(fh):
            raise RuntimeError(f"load: {what} is in PyTorch's oldest (.tar) checkpoint format, which ferrotorch cannot read")
        raise RuntimeError(f"load: {what} is not a PyTorch checkpoint (zip) or a safetensors file (it is truncated or of another format)")
    finally:
        if opened:
            fh.close()


def get_unsafe_globals_in_checkpoint(f: FileLike) -> List[str]:
    """The globals in a checkpoint's pickle that ``weights_only`` loading would refuse (nothing is run)."""
    fh, what, opened = _open_for_reading(f)
    try:
        start = fh.tell()
        is_zip = fh.read(4) == _ZIP_MAGIC
        fh.seek(start)
        if not is_zip:
            raise ValueError("Expected input to be a checkpoint returned by torch.save")
        data = CheckpointZip(fh, what).read_record("data.pkl")
    finally:
        if opened:
            fh.close()
    user = user_allowed_globals()
    unsafe = []
    for full in globals_in_pickle(data):
        module, _, name = full.rpartition(".")
        fixed = ".".join(_fix_py2_names(module, name, 2))
        try:
            known = _torch_global(fixed) is not None
        except RuntimeError:
            known = True
        if not known and fixed not in user:
            unsafe.append(fixed)
    return unsafe


__all__ = [
    "DEFAULT_PROTOCOL",
    "add_safe_globals",
    "clear_safe_globals",
    "get_safe_globals",
    "get_unsafe_globals_in_checkpoint",
    "load",
    "safe_globals",
    "save",
]
