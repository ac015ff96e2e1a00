"""CUDA streams and events: ``Stream``, ``Event``, ``stream()``, ``current_stream`` and friends."""

from __future__ import annotations

from typing import Any, Optional

from .. import _core
from .._core import device as _torch_device
from ._device import (
    AcceleratorError,
    Device,
    _DeviceContext,
    _get_device_index,
    _lazy_init,
    current_device,
    device_count,
    is_available,
)

_CUDA_DEVICE_TYPE = 1  # c10::DeviceType::CUDA, PyTorch's Stream.device_type


class Stream:
    """A CUDA stream: a queue of work on one device, independent of other streams.

    ``Stream(device=None, priority=0)``: a new stream on ``device`` (the current device by
    default); a lower ``priority`` is a higher priority (0 default, -1 high). As a context
    manager it makes itself the current stream."""

    stream_id: int
    device_index: int
    device_type: int

    def __new__(cls, device: Any = None, priority: int = 0, **kwargs: Any) -> Stream:
        """A new stream, or (with ``stream_id=`` and ``device_index=``) a handle to an existing one."""
        self = super().__new__(cls)
        self._priority = int(priority)
        self._contexts: list[StreamContext] = []
        if "stream_id" in kwargs and "device_index" in kwargs:
            self.stream_id = int(kwargs["stream_id"])
            self.device_index = int(kwargs["device_index"])
            self.device_type = int(kwargs.get("device_type", _CUDA_DEVICE_TYPE))
            return self
        idx = -1 if device is None else _get_device_index(device, optional=True)
        try:
            _lazy_init()
            if idx < 0:
                idx = current_device()
            handle = _core._cuda_stream_create(idx, self._priority)
        except RuntimeError as e:
            if isinstance(e, AcceleratorError) or is_available():
                raise
            raise AcceleratorError(str(e)) from None
        self.stream_id = int(handle)
        self.device_index = idx
        self.device_type = _CUDA_DEVICE_TYPE
        return self

    @property
    def device(self) -> _torch_device:
        """The device the stream belongs to."""
        return _torch_device("cuda", self.device_index)

    @property
    def cuda_stream(self) -> int:
        """The backend's handle of the stream (0 for the default stream)."""
        return self.stream_id

    @property
    def priority(self) -> int:
        """The priority the stream was created with."""
        return self._priority

    @staticmethod
    def priority_range() -> tuple[int, int]:
        """``(lowest, highest)`` stream priorities."""
        _lazy_init()
        return 0, -1

    def query(self) -> bool:
        """Check if all the work submitted has been completed."""
        return bool(_core._cuda_stream_query(self.device_index, self.stream_id))

    def synchronize(self) -> None:
        """Wait for all the kernels in this stream to complete."""
        _core._cuda_stream_synchronize(self.device_index, self.stream_id)

    def wait_event(self, event: Event) -> None:
        """Make all future work submitted to the stream wait for an event."""
        event.wait(self)

    def wait_stream(self, stream: Stream) -> None:
        """Make all future work submitted to this stream wait for the work queued on ``stream`` so far."""
        self.wait_event(stream.record_event())

    def record_event(self, event: Optional[Event] = None) -> Event:
        """Record an event (a new one if not given) on this stream; returns it."""
        if event is None:
            event = Event()
        event.record(self)
        return event

    def __enter__(self) -> Stream:
        """Makes this stream the current one until the block ends."""
        ctx = StreamContext(self)
        self._contexts.append(ctx)
        ctx.__enter__()
        return self

    def __exit__(self, type: Any, value: Any, traceback: Any) -> None:
        """Restores the stream that was current before."""
        self._contexts.pop().__exit__(type, value, traceback)

    def __eq__(self, o: object) -> bool:
        """Same stream on the same device."""
        if isinstance(o, Stream):
            return self.stream_id == o.stream_id and self.device_index == o.device_index
        return False

    def __hash__(self) -> int:
        """Hash of ``(cuda_stream, device)``."""
        return hash((self.cuda_stream, self.device))

    def __repr__(self) -> str:
        """As PyTorch's: ``<torch.cuda.Stream device=cuda:0 cuda_stream=0x0>``."""
        return f"<torch.cuda.Stream device={self.device} cuda_stream={self.cuda_stream:#x}>"

    def __cuda_stream__(self) -> tuple[int, int]:
        """The CUDA stream protocol: ``(version, handle)``."""
        return 0, self.cuda_stream


class Event:
    """A CUDA event: a marker in a stream, to wait on, query, or time.

    The event is created on the device lazily, when first recorded."""

    def __new__(
        cls, enable_timing: bool = False, blocking: bool = False, interprocess: bool = False, external: bool = False
    ) -> Event:
        """An event; ``enable_timing=True`` to measure time with :meth:`elapsed_time`."""
        self = super().__new__(cls)
        self.enable_timing = bool(enable_timing)
        self.blocking = bool(blocking)
        self.interprocess = bool(interprocess)
        self.external = bool(external)
        self._handle = 0
        self._device_index: int | None = None
        return self

    @property
    def cuda_event(self) -> int:
        """The backend's handle of the event (0 until recorded)."""
        return self._handle

    @property
    def event_id(self) -> int:
        """The backend's handle of the event (0 until recorded)."""
        return self._handle

    @property
    def device(self) -> Optional[_torch_device]:
        """The device the event was recorded on (None until recorded)."""
        if self._device_index is None:
            return None
        return _torch_device("cuda", self._device_index)

    def record(self, stream: Optional[Stream] = None) -> None:
        """Record the event in a stream (the current stream by default)."""
        if stream is None:
            stream = current_stream()
        if not self._handle:
            self._handle = int(_core._cuda_event_create(stream.device_index, self.enable_timing))
            self._device_index = stream.device_index
        elif stream.device_index != self._device_index:
            raise RuntimeError(
                f"Event device index {self._device_index} does not match recording stream's device index "
                f"{stream.device_index}."
            )
        _core._cuda_event_record(stream.device_index, self._handle, stream.stream_id)

    def wait(self, stream: Optional[Stream] = None) -> None:
        """Make all future work submitted to a stream (the current one by default) wait for this event."""
        if stream is None:
            stream = current_stream()
        if self._handle:
            _core._cuda_stream_wait_event(stream.device_index, stream.stream_id, self._handle)

    def query(self) -> bool:
        """Check if all work currently captured by the event has completed (True if never recorded)."""
        if not self._handle:
            return True
        return bool(_core._cuda_event_query(self._device_index, self._handle))

    def synchronize(self) -> None:
        """Wait for the event to complete (returns at once if never recorded)."""
        if self._handle:
            _core._cuda_event_synchronize(self._device_index, self._handle)

    def elapsed_time(self, end_event: Event) -> float:
        """Milliseconds between this event's record and ``end_event``'s."""
        if not (self.enable_timing and end_event.enable_timing):
            raise ValueError("Both events must be created with argument 'enable_timing=True'.")
        if not (self._handle and end_event._handle):
            raise RuntimeError("Both events must be recorded before calculating elapsed time.")
        return float(_core._cuda_event_elapsed_ms(self._device_index, self._handle, end_event._handle))

    def __del__(self) -> None:
        """Releases the backend's event."""
        handle, idx = getattr(self, "_handle", 0), getattr(self, "_device_index", None)
        if handle and idx is not None:
            try:
                _core._cuda_event_destroy(idx, handle)
            except Exception:
                pass

    def __repr__(self) -> str:
        """As PyTorch's: ``<torch.cuda.Event 0x...>`` or ``<torch.cuda.Event uninitialized>``."""
        if self._handle:
            return f"<torch.cuda.Event {self._handle:#x}>"
        return "<torch.cuda.Event uninitialized>"


def current_stream(device: Device = None) -> Stream:
    """The current stream of a device (the current device by default)."""
    _lazy_init()
    idx = _get_device_index(device, optional=True)
    handle = _core._cuda_current_stream(idx)
    return Stream(stream_id=handle, device_index=idx, device_type=_CUDA_DEVICE_TYPE)


def default_stream(device: Device = None) -> Stream:
    """The default stream of a device (the current device by default)."""
    _lazy_init()
    idx = _get_device_index(device, optional=True)
    return Stream(stream_id=0, device_index=idx, device_type=_CUDA_DEVICE_TYPE)


def set_stream(stream: Stream) -> None:
    """Make ``stream`` the current stream (and its device the current device); None is a no-op."""
    if stream is None:
        return
    _lazy_init()
    if current_device() != stream.device_index:
        _core._cuda_set_device(stream.device_index)
    _core._cuda_set_current_stream(stream.device_index, stream.stream_id)


class StreamContext:
    """Context-manager that selects a given stream (a no-op for None)."""

    def __init__(self, stream: Optional[Stream]) -> None:
        """Selects ``stream`` on entry."""
        self.stream = stream
        self.idx = -1 if stream is None else (current_device() if device_count() > 0 else -1)
        self.src_prev_stream: Optional[Stream] = None
        self.dst_prev_stream: Optional[Stream] = None

    def __enter__(self) -> None:
        """Makes the stream current (on its device), remembering what was current."""
        cur = self.stream
        if cur is None or self.idx == -1:
            return
        self.src_prev_stream = current_stream(None)
        if self.src_prev_stream.device != cur.device:
            with _DeviceContext(cur.device_index):
                self.dst_prev_stream = current_stream(cur.device_index)
        set_stream(cur)

    def __exit__(self, type: Any, value: Any, traceback: Any) -> None:
        """Restores the streams (and device) that were current before."""
        cur = self.stream
        if cur is None or self.idx == -1 or self.src_prev_stream is None:
            return
        if self.src_prev_stream.device != cur.device and self.dst_prev_stream is not None:
            set_stream(self.dst_prev_stream)
        set_stream(self.src_prev_stream)


def stream(stream: Optional[Stream]) -> StreamContext:
    """Context-manager that makes ``stream`` current within its block (None: a no-op)."""
    return StreamContext(stream)


def _record_stream(self: Any, stream: Stream) -> None:
    """``Tensor.record_stream``: keep the tensor's memory until the work queued on ``stream`` so far is done."""
    if not isinstance(stream, Stream):
        raise RuntimeError("unknown parameter type")
    _core._cuda_record_stream(self, stream.stream_id)


if not hasattr(_core.Tensor, "record_stream"):
    _core.Tensor.record_stream = _record_stream  # type: ignore[attr-defined]
