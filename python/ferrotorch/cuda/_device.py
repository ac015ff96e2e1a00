"""CUDA state (lazy initialization, queued calls) and the device functions of ``ferrotorch.cuda``."""

from __future__ import annotations

import threading
from typing import Any, Callable, Union

from .. import _core
from .._core import OutOfMemoryError as OutOfMemoryError  # the same class as ferrotorch.OutOfMemoryError
from .._core import device as _torch_device

Device = Union[_torch_device, str, int, None]


class AcceleratorError(RuntimeError):
    """An error the accelerator runtime reported (``torch.AcceleratorError``)."""


AcceleratorError.__module__ = "ferrotorch"

_initialized = False
_lock = threading.RLock()
_tls = threading.local()
_queued_calls: list[Callable[[], None]] = []
_queued_seed: Callable[[], None] | None = None
_queued_seed_all: Callable[[], None] | None = None


def _is_compiled() -> bool:
    """True when this build has the CUDA backend compiled in."""
    return bool(_core._cuda_is_compiled())


def _preload_libs() -> None:
    """Makes NVRTC and cuBLAS findable before the backend first loads them (CUDA builds only)."""
    if _is_compiled():
        from . import _libs

        _libs.preload()


def is_available() -> bool:
    """Whether CUDA can be used: a CUDA build, a driver and at least one device."""
    _preload_libs()
    return bool(_core._cuda_is_available())


def device_count() -> int:
    """The number of CUDA devices that can be used (0 without CUDA)."""
    _preload_libs()
    return int(_core._cuda_device_count())


def is_initialized() -> bool:
    """Whether ferrotorch's CUDA state has been initialized."""
    return _initialized


def _lazy_call(callable: Callable[[], None], seed: bool = False, seed_all: bool = False) -> None:
    """Runs ``callable`` now if CUDA is initialized, else at initialization (seeds: the last one wins)."""
    global _queued_seed, _queued_seed_all
    with _lock:
        if _initialized or getattr(_tls, "is_initializing", False):
            callable()
        elif seed_all:
            _queued_seed_all = callable
        elif seed:
            _queued_seed = callable
        else:
            _queued_calls.append(callable)


def _lazy_init() -> None:
    """Initializes CUDA once (libraries, driver, contexts), then runs the queued calls."""
    global _initialized, _queued_seed, _queued_seed_all
    if _initialized or getattr(_tls, "is_initializing", False):
        return
    with _lock:
        if _initialized:
            return
        _preload_libs()
        _core._cuda_init()
        _tls.is_initializing = True
        try:
            calls = [c for c in (_queued_seed_all, _queued_seed) if c is not None] + _queued_calls
            for call in calls:
                try:
                    call()
                except Exception as e:
                    raise RuntimeError(f"CUDA call failed lazily at initialization with error: {e}") from e
            _queued_seed = _queued_seed_all = None
            _queued_calls.clear()
            _initialized = True
        finally:
            del _tls.is_initializing


def init() -> None:
    """Initializes ferrotorch's CUDA state (done on demand by every CUDA function)."""
    _lazy_init()


def current_device() -> int:
    """Return the index of a currently selected device."""
    _lazy_init()
    return int(_core._cuda_current_device())


def _get_current_device_index() -> int:
    """The current device, or -1 when there is no CUDA device (PyTorch's helper of that name)."""
    return current_device() if device_count() > 0 else -1


def _get_device_index(device: Any, optional: bool = False, allow_cpu: bool = False) -> int:
    """The CUDA device index of ``device`` (None, an int, ``"cuda:1"``, a device or a ``cuda.device``).

    Without an index, the current device when ``optional``; a CPU device gives -1 when
    ``allow_cpu``. Raises ValueError as PyTorch's helper of that name."""
    if isinstance(device, int):
        return device
    given, idx = device, None
    if isinstance(device, str):
        parsed = _torch_device(device)
        # "cuda" names no index (ferrotorch.device("cuda") reads as cuda:0).
        idx_given = ":" in device
        device = parsed
        if parsed.type == "cuda":
            idx = parsed.index if idx_given else None
    elif isinstance(device, _torch_device):
        idx = device.index
    elif isinstance(device, _DeviceContext):
        return device.idx
    elif device is not None:
        raise ValueError(f"Expected a torch.device with a specified index or an integer, but got:{device}")
    if isinstance(device, _torch_device):
        if allow_cpu:
            if device.type not in ("cuda", "cpu"):
                raise ValueError(f"Expected a cuda or cpu device, but got: {device}")
        elif device.type != "cuda":
            raise ValueError(f"Expected a cuda device, but got: {device}")
        if device.type == "cpu":
            return -1
    if idx is None:
        if optional:
            return _get_current_device_index()
        raise ValueError(f"Expected a torch.device with a specified index or an integer, but got:{given}")
    return int(idx)


def set_device(device: Device) -> None:
    """Set the current device (a no-op for a negative index)."""
    idx = _get_device_index(device)
    if idx >= 0:
        _lazy_init()
        _core._cuda_set_device(idx)


class _DeviceContext:
    """Context-manager that changes the selected device (``torch.cuda.device``)."""

    def __init__(self, device: Any) -> None:
        """Selects ``device`` on entry; None or a negative index makes it a no-op."""
        self.idx = -1 if device is None else _get_device_index(device, optional=True)
        self.prev_idx = -1

    def __enter__(self) -> None:
        """Switches to the device, remembering the previous one."""
        if self.idx < 0:
            return
        self.prev_idx = current_device()
        if self.prev_idx != self.idx:
            _core._cuda_set_device(self.idx)

    def __exit__(self, type: Any, value: Any, traceback: Any) -> bool:
        """Switches back to the previous device."""
        if self.idx >= 0 and self.prev_idx >= 0 and self.prev_idx != self.idx:
            _core._cuda_set_device(self.prev_idx)
        return False


_DeviceContext.__name__ = _DeviceContext.__qualname__ = "device"


class _DeviceOf(_DeviceContext):
    """Context-manager that selects the device of a tensor (a no-op for a CPU tensor)."""

    def __init__(self, obj: Any) -> None:
        """Selects ``obj``'s device on entry."""
        idx = obj.get_device() if obj.is_cuda else -1
        super().__init__(idx)


_DeviceOf.__name__ = _DeviceOf.__qualname__ = "device_of"


class _CudaDeviceProperties:
    """What ``get_device_properties`` reports about a device."""

    __slots__ = ("name", "major", "minor", "total_memory", "multi_processor_count")

    def __init__(self, name: str, major: int, minor: int, total_memory: int, multi_processor_count: int) -> None:
        """Properties as the backend reports them."""
        self.name = name
        self.major = major
        self.minor = minor
        self.total_memory = total_memory
        self.multi_processor_count = multi_processor_count

    @property
    def is_integrated(self) -> bool:
        """False: the backend drives discrete GPUs."""
        return False

    def __repr__(self) -> str:
        """As PyTorch's: ``_CudaDeviceProperties(name='...', major=9, minor=0, total_memory=81079MB, ...)``."""
        return (
            f"_CudaDeviceProperties(name='{self.name}', major={self.major}, minor={self.minor}, "
            f"total_memory={self.total_memory // (1024 * 1024)}MB, "
            f"multi_processor_count={self.multi_processor_count})"
        )


_properties: dict[int, _CudaDeviceProperties] = {}


def get_device_properties(device: Device = None) -> _CudaDeviceProperties:
    """The properties of a device (the current one by default)."""
    _lazy_init()
    idx = _get_device_index(device, optional=True)
    if idx < 0 or idx >= device_count():
        raise AssertionError("Invalid device id")
    props = _properties.get(idx)
    if props is None:
        props = _properties[idx] = _CudaDeviceProperties(*_core._cuda_device_properties(idx))
    return props


def get_device_name(device: Device = None) -> str:
    """The name of a device (the current one by default)."""
    return get_device_properties(device).name


def get_device_capability(device: Device = None) -> tuple[int, int]:
    """The ``(major, minor)`` compute capability of a device."""
    props = get_device_properties(device)
    return props.major, props.minor


def synchronize(device: Device = None) -> None:
    """Wait for all kernels in all streams on a CUDA device to complete."""
    _lazy_init()
    idx = _get_device_index(device, optional=True)
    _core._cuda_synchronize(idx)


def is_bf16_supported(including_emulation: bool = True) -> bool:
    """Whether the current device supports bfloat16 (False without CUDA)."""
    if not is_available():
        return False
    idx = current_device()
    if get_device_properties(idx).major >= 8:
        return True
    if not including_emulation:
        return False
    try:
        _core.zeros(1, dtype=_core.bfloat16).to(f"cuda:{idx}")
        return True
    except Exception:
        return False


def get_arch_list() -> list[str]:
    """The CUDA architectures kernels are built for: NVRTC compiles for each present device."""
    if not _is_compiled() or not is_available():
        return []
    archs = {"sm_{}{}".format(*get_device_capability(i)) for i in range(device_count())}
    return sorted(archs, key=lambda a: int(a[3:]))
