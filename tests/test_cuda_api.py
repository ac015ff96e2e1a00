"""``ferrotorch.cuda`` without a GPU, against PyTorch's ``torch.cuda`` without one (the venv's
torch is a CUDA build running without a driver): results, exception classes, signatures; and
the library preloading of ``ferrotorch.cuda._libs``."""

from __future__ import annotations

import builtins
import importlib.util
import inspect
import os
import subprocess
import sys
import warnings
from typing import Any, Callable

import pytest

import ferrotorch as torch
from torch_oracle import pt

no_gpu = pytest.mark.skipif(
    pt is None or torch.cuda.is_available() or pt.cuda.is_available(),
    reason="compares the no-GPU behaviour of both libraries",
)


def _outcome(fn: Callable[[], Any]) -> tuple[str, Any]:
    """("ok", value) or ("raise", exception)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            return "ok", fn()
    except Exception as e:
        return "raise", e


# (label, f(cuda module, top-level module)): each is run on ferrotorch and on PyTorch.
CASES: list[tuple[str, Callable[[Any, Any], Any]]] = [
    ("is_available", lambda c, t: c.is_available()),
    ("device_count", lambda c, t: c.device_count()),
    ("is_initialized", lambda c, t: c.is_initialized()),
    ("current_device", lambda c, t: c.current_device()),
    ("init", lambda c, t: c.init()),
    ("set_device(0)", lambda c, t: c.set_device(0)),
    ("set_device(-1)", lambda c, t: c.set_device(-1)),
    ("set_device(None)", lambda c, t: c.set_device(None)),
    ("set_device('cpu')", lambda c, t: c.set_device("cpu")),
    ("set_device('cuda')", lambda c, t: c.set_device("cuda")),
    ("get_device_name()", lambda c, t: c.get_device_name()),
    ("get_device_name(0)", lambda c, t: c.get_device_name(0)),
    ("get_device_name('cuda:1')", lambda c, t: c.get_device_name("cuda:1")),
    ("get_device_capability()", lambda c, t: c.get_device_capability()),
    ("get_device_properties(0)", lambda c, t: c.get_device_properties(0)),
    ("synchronize()", lambda c, t: c.synchronize()),
    ("synchronize('cpu')", lambda c, t: c.synchronize("cpu")),
    ("manual_seed(3)", lambda c, t: c.manual_seed(3)),
    ("manual_seed_all(3)", lambda c, t: c.manual_seed_all(3)),
    ("seed()", lambda c, t: c.seed()),
    ("seed_all()", lambda c, t: c.seed_all()),
    ("initial_seed()", lambda c, t: c.initial_seed()),
    ("get_rng_state()", lambda c, t: c.get_rng_state()),
    ("get_rng_state_all()", lambda c, t: c.get_rng_state_all()),
    ("set_rng_state(state)", lambda c, t: c.set_rng_state(t.zeros(8, dtype=t.uint8))),
    ("set_rng_state_all([])", lambda c, t: c.set_rng_state_all([])),
    ("memory_allocated()", lambda c, t: c.memory_allocated()),
    ("memory_allocated(0)", lambda c, t: c.memory_allocated(0)),
    ("memory_allocated('cuda:0')", lambda c, t: c.memory_allocated("cuda:0")),
    ("memory_allocated(device('cuda:0'))", lambda c, t: c.memory_allocated(t.device("cuda:0"))),
    ("memory_allocated('cpu')", lambda c, t: c.memory_allocated("cpu")),
    ("max_memory_allocated()", lambda c, t: c.max_memory_allocated()),
    ("memory_reserved()", lambda c, t: c.memory_reserved()),
    ("max_memory_reserved()", lambda c, t: c.max_memory_reserved()),
    ("memory_cached()", lambda c, t: c.memory_cached()),
    ("max_memory_cached()", lambda c, t: c.max_memory_cached()),
    ("memory_stats()", lambda c, t: dict(c.memory_stats())),
    ("memory_stats('cpu')", lambda c, t: dict(c.memory_stats("cpu"))),
    ("memory_stats_as_nested_dict()", lambda c, t: c.memory_stats_as_nested_dict()),
    ("reset_peak_memory_stats()", lambda c, t: c.reset_peak_memory_stats()),
    ("reset_peak_memory_stats('cpu')", lambda c, t: c.reset_peak_memory_stats("cpu")),
    ("reset_max_memory_allocated()", lambda c, t: c.reset_max_memory_allocated()),
    ("reset_max_memory_cached()", lambda c, t: c.reset_max_memory_cached()),
    ("empty_cache()", lambda c, t: c.empty_cache()),
    ("memory_summary()", lambda c, t: c.memory_summary()),
    ("mem_get_info()", lambda c, t: c.mem_get_info()),
    ("mem_get_info(0)", lambda c, t: c.mem_get_info(0)),
    ("mem_get_info('cpu')", lambda c, t: c.mem_get_info("cpu")),
    ("Stream()", lambda c, t: c.Stream()),
    ("Stream(priority=-1)", lambda c, t: c.Stream(priority=-1)),
    ("Stream(device='cpu')", lambda c, t: c.Stream(device="cpu")),
    ("current_stream()", lambda c, t: c.current_stream()),
    ("current_stream('cpu')", lambda c, t: c.current_stream("cpu")),
    ("default_stream()", lambda c, t: c.default_stream()),
    ("set_stream(None)", lambda c, t: c.set_stream(None)),
    ("stream(None) block", lambda c, t: _enter_exit(c.stream(None))),
    ("StreamContext(None).idx", lambda c, t: c.StreamContext(None).idx),
    ("is_bf16_supported()", lambda c, t: c.is_bf16_supported()),
    ("is_bf16_supported(False)", lambda c, t: c.is_bf16_supported(False)),
    ("device(-1).idx", lambda c, t: c.device(-1).idx),
    ("device(0).idx", lambda c, t: c.device(0).idx),
    ("device('cuda:1').idx", lambda c, t: c.device("cuda:1").idx),
    ("device(device('cuda', 2)).idx", lambda c, t: c.device(t.device("cuda", 2)).idx),
    ("device('cpu')", lambda c, t: c.device("cpu")),
    ("device(-1) block", lambda c, t: _enter_exit(c.device(-1))),
    ("device(0) block", lambda c, t: _enter_exit(c.device(0))),
    ("device_of(cpu tensor).idx", lambda c, t: c.device_of(t.zeros(1)).idx),
    ("device_of(cpu tensor) block", lambda c, t: _enter_exit(c.device_of(t.zeros(1)))),
    ("Event().query()", lambda c, t: c.Event().query()),
    ("Event().synchronize()", lambda c, t: c.Event().synchronize()),
    ("repr(Event())", lambda c, t: repr(c.Event())),
    ("Event().device", lambda c, t: c.Event().device),
    ("Event().cuda_event", lambda c, t: c.Event().cuda_event),
    ("Event().record()", lambda c, t: c.Event().record()),
    ("Event().wait()", lambda c, t: c.Event().wait()),
    ("elapsed_time without timing", lambda c, t: c.Event(enable_timing=True).elapsed_time(c.Event())),
    ("OutOfMemoryError is top-level", lambda c, t: c.OutOfMemoryError is t.OutOfMemoryError),
    ("OutOfMemoryError is RuntimeError", lambda c, t: issubclass(c.OutOfMemoryError, RuntimeError)),
    ("tensor.is_cuda", lambda c, t: t.zeros(1).is_cuda),
    ("tensor.get_device()", lambda c, t: t.zeros(1).get_device()),
    ("tensor.cuda()", lambda c, t: t.zeros(1).cuda()),
    ("zeros(device='cuda')", lambda c, t: t.zeros(1, device="cuda")),
]


def _enter_exit(ctx: Any) -> str:
    with ctx:
        pass
    return "done"


def _ours_class(theirs: type) -> type:
    """Our class for one of PyTorch's exception classes (builtins are shared)."""
    if theirs.__module__ == "builtins":
        return theirs
    return getattr(torch, theirs.__name__)


@no_gpu
@pytest.mark.parametrize("label,fn", CASES, ids=[c[0] for c in CASES])
def test_matches_pytorch_without_gpu(label: str, fn: Callable[[Any, Any], Any]) -> None:
    kind, ours = _outcome(lambda: fn(torch.cuda, torch))
    pt_kind, theirs = _outcome(lambda: fn(pt.cuda, pt))
    if pt_kind == "raise":
        assert kind == "raise", f"{label}: PyTorch raises {type(theirs).__name__}: {theirs}; ours returned {ours!r}"
        cls = _ours_class(type(theirs))
        assert type(ours) is cls, f"{label}: {type(ours).__name__}: {ours} vs PyTorch's {type(theirs).__name__}: {theirs}"
        if isinstance(theirs, (ValueError, KeyError)):
            assert str(ours) == str(theirs), label
    else:
        assert kind == "ok", f"{label}: ours raises {type(ours).__name__}: {ours}; PyTorch returned {theirs!r}"
        assert ours == theirs, f"{label}: {ours!r} vs PyTorch's {theirs!r}"


@no_gpu
def test_no_gpu_state() -> None:
    torch.cuda.manual_seed(3)
    torch.cuda.manual_seed_all(3)
    torch.manual_seed(5)
    assert not torch.cuda.is_initialized()
    assert torch.cuda.memory_allocated() == 0
    assert torch.cuda.get_arch_list() == []
    with pytest.raises(RuntimeError):
        torch.cuda.init()
    assert not torch.cuda.is_initialized()
    assert issubclass(torch.AcceleratorError, RuntimeError)
    with pytest.raises(torch.AcceleratorError):
        torch.cuda.Stream()


def test_deprecated_aliases_warn() -> None:
    for name in ("memory_cached", "max_memory_cached", "reset_max_memory_allocated", "reset_max_memory_cached"):
        # Without a GPU the reset_* aliases also raise, as PyTorch's do.
        raises = name.startswith("reset") and not torch.cuda.is_available()
        with pytest.warns(FutureWarning), pytest.raises(RuntimeError) if raises else _null():
            getattr(torch.cuda, name)()


class _null:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *a: Any) -> bool:
        return False


SIGNED = """is_available device_count current_device set_device get_device_name get_device_capability
get_device_properties synchronize is_initialized init is_bf16_supported get_arch_list manual_seed
manual_seed_all seed seed_all initial_seed get_rng_state set_rng_state get_rng_state_all set_rng_state_all
memory_allocated max_memory_allocated memory_reserved max_memory_reserved memory_cached max_memory_cached
reset_peak_memory_stats reset_max_memory_allocated reset_max_memory_cached empty_cache memory_stats
memory_stats_as_nested_dict memory_summary mem_get_info current_stream default_stream set_stream stream""".split()


def _params(fn: Any) -> list[tuple[str, Any]]:
    return [(p.name, p.default) for p in inspect.signature(fn).parameters.values()]


@pytest.mark.skipif(pt is None, reason="PyTorch is not installed")
@pytest.mark.parametrize("name", SIGNED)
def test_signature_matches_pytorch(name: str) -> None:
    assert _params(getattr(torch.cuda, name)) == _params(getattr(pt.cuda, name))


@pytest.mark.skipif(pt is None, reason="PyTorch is not installed")
@pytest.mark.parametrize(
    "cls,method",
    [("Stream", "__new__"), ("Event", "__new__"), ("StreamContext", "__init__"), ("device", "__init__"), ("device_of", "__init__")]
    + [("Stream", m) for m in ("query", "synchronize", "wait_event", "wait_stream", "record_event")]
    + [("Event", m) for m in ("record", "wait", "query", "synchronize", "elapsed_time")],
)
def test_class_signatures_match_pytorch(cls: str, method: str) -> None:
    ours = getattr(getattr(torch.cuda, cls), method)
    theirs = getattr(getattr(pt.cuda, cls), method)
    assert _params(ours) == _params(theirs)


@pytest.mark.skipif(pt is None, reason="PyTorch is not installed")
def test_exported_names_exist_in_pytorch() -> None:
    missing = [n for n in torch.cuda.__all__ if n != "AcceleratorError" and not hasattr(pt.cuda, n)]
    assert missing == []
    assert hasattr(pt, "AcceleratorError")


def test_public_functions_documented() -> None:
    for name in torch.cuda.__all__:
        obj = getattr(torch.cuda, name)
        if callable(obj):
            assert obj.__doc__, name


def test_device_properties_repr() -> None:
    props = torch.cuda._CudaDeviceProperties("NVIDIA H100 80GB HBM3", 9, 0, 81079 * 1024 * 1024, 132)
    assert repr(props) == (
        "_CudaDeviceProperties(name='NVIDIA H100 80GB HBM3', major=9, minor=0, total_memory=81079MB, "
        "multi_processor_count=132)"
    )


def test_get_device_index() -> None:
    idx = torch.cuda._get_device_index
    assert idx(1) == 1
    assert idx("cuda:2") == 2
    assert idx(torch.device("cuda", 3)) == 3
    assert idx(torch.cuda.device(4)) == 4
    assert idx("cpu", allow_cpu=True) == -1
    with pytest.raises(ValueError, match="Expected a cuda device, but got: cpu"):
        idx("cpu")
    with pytest.raises(ValueError, match="with a specified index"):
        idx(None)


# ---- _libs: NVRTC / cuBLAS preloading ------------------------------------------------------

_NVRTC_WHEEL = importlib.util.find_spec("nvidia") is not None and importlib.util.find_spec("nvidia.cuda_nvrtc") is not None
needs_nvrtc_wheel = pytest.mark.skipif(not _NVRTC_WHEEL, reason="nvidia-cuda-nvrtc-cu12 is not installed")


def _run(code: str, env: dict[str, str] | None = None) -> str:
    root = os.path.dirname(os.path.dirname(torch.__file__))
    full_env = dict(os.environ, PYTHONPATH=os.pathsep.join([root, os.environ.get("PYTHONPATH", "")]))
    full_env.update(env or {})
    return subprocess.run([sys.executable, "-c", code], env=full_env, check=True, capture_output=True, text=True).stdout


@needs_nvrtc_wheel
def test_libs_find_the_nvrtc_wheel(monkeypatch: pytest.MonkeyPatch) -> None:
    from ferrotorch.cuda import _libs

    monkeypatch.delenv(_libs.ENV_VAR, raising=False)
    path = _libs.find()["libnvrtc.so.12"]
    assert path.endswith(os.path.join("nvidia", "cuda_nvrtc", "lib", "libnvrtc.so.12"))
    assert os.path.isfile(path)


@needs_nvrtc_wheel
def test_libs_env_dir_wins(monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> None:
    from ferrotorch.cuda import _libs

    monkeypatch.delenv(_libs.ENV_VAR, raising=False)
    (tmp_path / "libnvrtc.so.12").symlink_to(_libs.find()["libnvrtc.so.12"])
    monkeypatch.setenv(_libs.ENV_VAR, str(tmp_path))
    assert _libs.find()["libnvrtc.so.12"] == str(tmp_path / "libnvrtc.so.12")


def test_libs_env_dir_alone(monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> None:
    from ferrotorch.cuda import _libs

    monkeypatch.setenv(_libs.ENV_VAR, str(tmp_path))
    (tmp_path / "libcublasLt.so.12").write_bytes(b"")
    assert _libs.find()["libcublasLt.so.12"] == str(tmp_path / "libcublasLt.so.12")


def test_import_loads_no_cuda_library() -> None:
    out = _run(
        "import sys, ferrotorch\n"
        "ferrotorch.cuda.memory_allocated(); ferrotorch.cuda.manual_seed(1)\n"
        "maps = open('/proc/self/maps').read()\n"
        "print('nvrtc' in maps, 'cublas' in maps, 'ferrotorch.cuda._libs' in sys.modules)\n"
    )
    assert out.split()[:2] == ["False", "False"]
    if not torch.cuda._device._is_compiled():
        assert out.split()[2] == "False"


@needs_nvrtc_wheel
def test_preload_loads_nvrtc_globally() -> None:
    out = _run(
        "import ctypes, ferrotorch\n"
        "from ferrotorch.cuda import _libs\n"
        "got = _libs.preload()\n"
        "maps = open('/proc/self/maps').read()\n"
        "print('libnvrtc.so.12' in got, 'libnvrtc.so.12' in maps, _libs.preload() == got)\n"
        "ctypes.CDLL('libnvrtc.so.12')  # by soname, as the backend's dlopen: already loaded\n",
        env={"FERROTORCH_CUDA_LIB_DIR": ""},
    )
    assert out.split() == ["True", "True", "True"]


def test_builtins_not_shadowed() -> None:
    # torch.int is a dtype; seeding must not call it.
    torch.manual_seed(builtins.int(7))
    assert torch.initial_seed() == 7


# ---- the Python layer over a fake backend (what the GPU suite exercises, without a GPU) -------


class FakeBackend:
    """Stands in for the ``_core._cuda_*`` functions: two devices, streams, events, counters."""

    def __init__(self) -> None:
        self.device = 0
        self.current = {0: 0, 1: 0}
        self.seeds: dict[int, int] = {}
        self.next_handle = 1
        self.events: dict[int, tuple[int, bool, int | None]] = {}
        self.log: list[tuple[Any, ...]] = []

    def install(self, monkeypatch: pytest.MonkeyPatch) -> None:
        for name in dir(self):
            if name.startswith("_cuda_"):
                monkeypatch.setattr(torch._core, name, getattr(self, name))
        monkeypatch.setattr(torch.cuda._device, "_initialized", False)
        monkeypatch.setattr(torch.cuda._device, "_queued_calls", [])
        monkeypatch.setattr(torch.cuda._device, "_queued_seed", None)
        monkeypatch.setattr(torch.cuda._device, "_queued_seed_all", None)
        monkeypatch.setattr(torch.cuda._device, "_properties", {})

    def _handle(self) -> int:
        self.next_handle += 1
        return self.next_handle

    def _cuda_is_compiled(self) -> bool:
        return False

    def _cuda_is_available(self) -> bool:
        return True

    def _cuda_device_count(self) -> int:
        return 2

    def _cuda_init(self) -> None:
        self.log.append(("init",))

    def _cuda_current_device(self) -> int:
        return self.device

    def _cuda_set_device(self, d: int) -> None:
        self.device = d

    def _cuda_device_properties(self, d: int) -> tuple[str, int, int, int, int]:
        return (f"Fake GPU {d}", 9, 0, 80 * 1024**3, 132)

    def _cuda_synchronize(self, d: int) -> None:
        self.log.append(("sync", d))

    def _cuda_manual_seed(self, d: int, seed: int) -> None:
        self.seeds[d] = seed

    def _cuda_initial_seed(self, d: int) -> int:
        return self.seeds.get(d, 0)

    def _cuda_memory_stats(self, d: int) -> list[tuple[str, int]]:
        return [("allocated_bytes.all.current", 1024 * (d + 1)), ("allocated_bytes.all.peak", 4096), ("num_ooms", 0)]

    def _cuda_reset_peak_memory_stats(self, d: int) -> None:
        self.log.append(("reset_peak", d))

    def _cuda_empty_cache(self) -> None:
        self.log.append(("empty_cache",))

    def _cuda_mem_get_info(self, d: int) -> tuple[int, int]:
        return (1000, 2000)

    def _cuda_stream_create(self, d: int, priority: int) -> int:
        return self._handle()

    def _cuda_current_stream(self, d: int) -> int:
        return self.current[d]

    def _cuda_set_current_stream(self, d: int, s: int) -> None:
        self.current[d] = s

    def _cuda_stream_synchronize(self, d: int, s: int) -> None:
        self.log.append(("stream_sync", d, s))

    def _cuda_stream_query(self, d: int, s: int) -> bool:
        return True

    def _cuda_stream_wait_event(self, d: int, s: int, e: int) -> None:
        self.log.append(("wait", d, s, e))

    def _cuda_event_create(self, d: int, timing: bool) -> int:
        h = self._handle()
        self.events[h] = (d, timing, None)
        return h

    def _cuda_event_record(self, d: int, e: int, s: int) -> None:
        dev, timing, _ = self.events[e]
        self.events[e] = (dev, timing, len(self.log))
        self.log.append(("record", d, e, s))

    def _cuda_event_synchronize(self, d: int, e: int) -> None:
        self.log.append(("event_sync", d, e))

    def _cuda_event_query(self, d: int, e: int) -> bool:
        return True

    def _cuda_event_elapsed_ms(self, d: int, a: int, b: int) -> float:
        return float(self.events[b][2] - self.events[a][2])

    def _cuda_event_destroy(self, d: int, e: int) -> None:
        self.events.pop(e, None)


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> FakeBackend:
    backend = FakeBackend()
    backend.install(monkeypatch)
    return backend


def test_fake_lazy_init_applies_queued_seeds(fake: FakeBackend) -> None:
    c = torch.cuda
    c.manual_seed(11)
    c.manual_seed_all(5)
    assert fake.seeds == {} and not c.is_initialized()
    assert c.memory_allocated() == 0  # nothing before init, as PyTorch
    c.init()
    assert c.is_initialized() and fake.log[0] == ("init",)
    assert fake.seeds == {0: 11, 1: 5}  # seed_all first, then the current device's seed
    c.manual_seed(-1)
    assert fake.seeds[0] == 2**64 - 1
    assert c.initial_seed() == 2**64 - 1
    torch.manual_seed(3)
    assert fake.seeds == {0: 3, 1: 3}


def test_fake_devices_and_memory(fake: FakeBackend) -> None:
    c = torch.cuda
    assert c.current_device() == 0
    with c.device(1):
        assert c.current_device() == 1
        with c.device("cuda:0"):
            assert c.current_device() == 0
        assert c.current_device() == 1
    assert c.current_device() == 0
    props = c.get_device_properties("cuda:1")
    assert repr(props) == (
        "_CudaDeviceProperties(name='Fake GPU 1', major=9, minor=0, total_memory=81920MB, multi_processor_count=132)"
    )
    assert c.get_device_capability() == (9, 0) and c.get_device_name(1) == "Fake GPU 1"
    assert c.is_bf16_supported()
    with pytest.raises(AssertionError, match="Invalid device id"):
        c.get_device_properties(2)
    assert c.memory_allocated() == 1024 and c.memory_allocated(1) == 2048
    assert c.max_memory_allocated() == 4096 and c.memory_reserved() == 0
    assert c.memory_stats_as_nested_dict(1)["allocated_bytes"]["all"]["current"] == 2048
    assert "PyTorch CUDA memory summary, device ID 1" in c.memory_summary(1)
    c.reset_peak_memory_stats("cuda:1")
    c.empty_cache()
    c.synchronize(torch.device("cuda", 1))
    assert ("reset_peak", 1) in fake.log and ("empty_cache",) in fake.log and ("sync", 1) in fake.log
    assert c.mem_get_info() == (1000, 2000)


def test_fake_streams_and_events(fake: FakeBackend) -> None:
    c = torch.cuda
    default = c.default_stream()
    assert c.current_stream() == default and default.cuda_stream == 0
    assert repr(default) == "<torch.cuda.Stream device=cuda:0 cuda_stream=0x0>"
    s = c.Stream()
    s1 = c.Stream(device=1)
    assert s.device == torch.device("cuda", 0) and s1.device_index == 1
    with c.stream(s):
        assert c.current_stream() == s
        with c.stream(s1):  # another device: switches device and restores both
            assert c.current_device() == 1 and c.current_stream() == s1
        assert c.current_device() == 0 and c.current_stream() == s
        assert c.current_stream(1) == c.default_stream(1)
    assert c.current_stream() == default
    with s:
        assert c.current_stream() == s
    assert c.current_stream() == default
    start, end = c.Event(enable_timing=True), c.Event(enable_timing=True)
    assert start.cuda_event == 0 and start.device is None
    start.record()
    s.synchronize()
    end.record()
    assert start.device == torch.device("cuda", 0) and start.cuda_event > 0
    assert start.elapsed_time(end) > 0
    with pytest.raises(RuntimeError, match="must be recorded"):
        start.elapsed_time(c.Event(enable_timing=True))
    e = s.record_event()
    default.wait_stream(s)
    assert ("wait", 0, 0, e.cuda_event + 1) in fake.log  # wait_stream records a fresh event
    e.synchronize()
    assert e.query() and s.query()
    with pytest.raises(RuntimeError, match="does not match"):
        e.record(s1)
    h = e.cuda_event
    del e
    assert h not in fake.events
