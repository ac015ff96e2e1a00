"""torch.load of untrusted and damaged checkpoints, against PyTorch: malicious pickles raise
pickle.UnpicklingError under weights_only and their payload never runs (a marker file is not
created); user classes load only once allowlisted; truncated or corrupted archives raise
clear RuntimeErrors."""

from __future__ import annotations

import io
import os
import pickle
import subprocess
import zipfile
from collections import OrderedDict
from typing import Any, Callable, Dict

import pytest

import ferrotorch as torch
from torch_oracle import needs_torch, pt

pytestmark = needs_torch


class Payload:
    """Pickles as a call to ``func(*args)``: what a malicious checkpoint carries."""

    def __init__(self, func: Callable[..., Any], *args: Any) -> None:
        self.func, self.args = func, args

    def __reduce__(self) -> Any:
        return (self.func, self.args)


class Point:
    """A user class: refused by weights_only loading until allowlisted."""

    def __init__(self, x: int, y: int) -> None:
        self.x, self.y = x, y


def _payloads(marker: str) -> Dict[str, Any]:
    return {
        "os.system": (Payload(os.system, f"touch {marker}"), "GLOBAL posix.system whose module posix is blocked"),
        "eval": (Payload(eval, f"open({marker!r}, 'w').close()"), "Unsupported global: GLOBAL eval was not an allowed global"),
        "exec": (Payload(exec, f"open({marker!r}, 'w').close()"), "Unsupported global: GLOBAL exec was not an allowed global"),
        "subprocess": (Payload(subprocess.call, ["touch", marker]), "Unsupported global: GLOBAL subprocess.call was not an allowed global"),
        "os.mkdir": (Payload(os.mkdir, marker), "GLOBAL posix.mkdir whose module posix is blocked"),
        "getattr": (Payload(getattr, "text", "upper"), "Unsupported global: GLOBAL getattr was not an allowed global"),
    }


PAYLOADS = list(_payloads("m"))


@pytest.mark.parametrize("name", PAYLOADS)
def test_malicious_globals_are_refused_and_never_run(name: str, tmp_path: Any) -> None:
    marker = str(tmp_path / "pwned")
    payload, message = _payloads(marker)[name]
    path = tmp_path / "evil.pt"
    pt.save({"weight": pt.ones(2), "nested": [{"hook": payload}]}, path)
    with pytest.raises(pickle.UnpicklingError) as theirs:
        pt.load(path, weights_only=True)
    with pytest.raises(pickle.UnpicklingError) as ours:
        torch.load(path)
    assert message.replace("subprocess.call", "commands.call") in str(theirs.value)  # PyTorch shows the Python 2 name
    assert message in str(ours.value) and str(ours.value).startswith("Weights only load failed")
    assert not os.path.exists(marker)
    with pytest.raises(pickle.UnpicklingError):
        torch.load(path, weights_only=True, map_location="cpu")
    assert not os.path.exists(marker)


def _with_pickle(tmp_path: Any, data_pkl: bytes) -> Any:
    """A real PyTorch checkpoint (one float storage of 4 elements) with ``data.pkl`` replaced."""
    src = tmp_path / "src.pt"
    pt.save({"x": pt.arange(4.0)}, src)
    dst = tmp_path / "crafted.pt"
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w") as zout:
        for info in zin.infolist():
            zout.writestr(info.filename, data_pkl if info.filename.endswith("/data.pkl") else zin.read(info))
    return dst


def _opcodes(marker: str) -> Dict[str, bytes]:
    cmd = f"touch {marker}".encode()
    return {
        "stack_global": b"\x80\x04\x8c\x02os\x8c\x06system\x93\x8c" + bytes([len(cmd)]) + cmd + b"\x85R.",
        "inst": b"(S'" + cmd + b"'\nios\nsystem\n.",
        "obj": b"\x80\x02(cos\nsystem\nX" + len(cmd).to_bytes(4, "little") + cmd + b"o.",
        "build_on_class": b"\x80\x02ctorch\nSize\n}X\x08\x00\x00\x00__repr__cbuiltins\nset\nsb.",
        "setitem_on_size": b"\x80\x02ctorch\nSize\n)RK\x00K\x01s.",
        "append_to_bytearray": b"\x80\x02c__builtin__\nbytearray\n)RK\x01a.",
        "reduce_non_callable": b"\x80\x02K\x01)R.",
        "persistent_not_storage": b"\x80\x02X\x04\x00\x00\x00evil\x85Q.",
        "ext_code": b"\x80\x02\x82\x01.",
    }


OPCODES = list(_opcodes("m"))


@pytest.mark.parametrize("name", OPCODES)
def test_hand_written_malicious_pickles(name: str, tmp_path: Any) -> None:
    marker = str(tmp_path / "pwned")
    path = _with_pickle(tmp_path, _opcodes(marker)[name])
    with pytest.raises(pickle.UnpicklingError, match="Weights only load failed"):
        torch.load(path)
    with pytest.raises(Exception):
        pt.load(path, weights_only=True)
    assert not os.path.exists(marker)
    assert vars(torch.Size)["__repr__"] is not set


def test_parameter_state_cannot_set_dunder_attributes(tmp_path: Any) -> None:
    class Sneaky:
        def __reduce__(self) -> Any:
            state = {"__class__": OrderedDict}
            return (pt._utils._rebuild_parameter_with_state, (pt.ones(2), True, OrderedDict(), state))

    path = tmp_path / "p.pt"
    pt.save({"p": Sneaky()}, path)
    with pytest.raises(RuntimeError, match="refusing to set attribute '__class__'"):
        torch.load(path)


def test_explicit_pickle_module_with_weights_only_is_refused(tmp_path: Any) -> None:
    path = tmp_path / "x.pt"
    pt.save({"x": pt.ones(1)}, path)
    for lib in (pt, torch):
        with pytest.raises(RuntimeError, match="Can not safely load weights when explicit pickle_module is specified"):
            lib.load(path, pickle_module=pickle, weights_only=True)
    assert torch.load(path, pickle_module=pickle)["x"].tolist() == [1.0]


def test_force_weights_only_environment_variable(tmp_path: Any, monkeypatch: Any) -> None:
    path = tmp_path / "p.pt"
    pt.save({"p": Point(1, 2)}, path)
    assert torch.load(path, weights_only=False)["p"].y == 2
    monkeypatch.setenv("TORCH_FORCE_WEIGHTS_ONLY_LOAD", "1")
    with pytest.raises(pickle.UnpicklingError, match="Unsupported global"):
        torch.load(path, weights_only=False)


@pytest.mark.parametrize("how", ["context", "add", "tuple"])
def test_user_classes_need_allowlisting(how: str, tmp_path: Any) -> None:
    path = tmp_path / "point.pt"
    pt.save({"p": Point(3, 4), "w": pt.ones(2)}, path)
    full = f"{Point.__module__}.Point"
    with pytest.raises(pickle.UnpicklingError, match=f"Unsupported global: GLOBAL {full} was not an allowed global"):
        torch.load(path)
    assert torch.serialization.get_unsafe_globals_in_checkpoint(path) == pt.serialization.get_unsafe_globals_in_checkpoint(path)
    entry: Any = (Point, full) if how == "tuple" else Point
    try:
        if how == "context":
            with torch.serialization.safe_globals([entry]):
                assert entry in torch.serialization.get_safe_globals()
                loaded = torch.load(path)
            assert entry not in torch.serialization.get_safe_globals()
        else:
            torch.serialization.add_safe_globals([entry])
            loaded = torch.load(path)
            assert torch.serialization.get_unsafe_globals_in_checkpoint(path) == []
    finally:
        torch.serialization.clear_safe_globals()
    assert isinstance(loaded["p"], Point) and (loaded["p"].x, loaded["p"].y) == (3, 4)
    with pytest.raises(pickle.UnpicklingError):
        torch.load(path)


def test_blocked_modules_stay_blocked_when_allowlisted(tmp_path: Any) -> None:
    path = tmp_path / "evil.pt"
    pt.save({"x": Payload(os.getcwd)}, path)
    with torch.serialization.safe_globals([os.getcwd]):
        with pytest.raises(pickle.UnpicklingError, match="whose module posix is blocked"):
            torch.load(path)


def _checkpoint_bytes(tmp_path: Any) -> bytes:
    path = tmp_path / "good.pt"
    pt.save({"w": pt.arange(64.0), "b": pt.ones(3)}, path)
    return path.read_bytes()


@pytest.mark.parametrize("keep", [0.1, 0.5, 0.9, -22, -1])
def test_truncated_archives(keep: float, tmp_path: Any) -> None:
    data = _checkpoint_bytes(tmp_path)
    cut = data[: int(len(data) * keep)] if keep > 0 else data[: int(keep)]
    path = tmp_path / "cut.pt"
    path.write_bytes(cut)
    with pytest.raises(RuntimeError):
        pt.load(path)
    with pytest.raises(RuntimeError, match=r"cut\.pt is a truncated or corrupted zip checkpoint"):
        torch.load(path)
    with pytest.raises(RuntimeError, match="truncated or corrupted"):
        torch.load(io.BytesIO(cut))


@pytest.mark.parametrize("record", ["data/0", "data.pkl"])
def test_flipped_byte_fails_the_crc(record: str, tmp_path: Any) -> None:
    data = bytearray(_checkpoint_bytes(tmp_path))
    info = zipfile.ZipFile(io.BytesIO(bytes(data))).getinfo(f"good/{record}")
    start = info.header_offset + 30 + int.from_bytes(data[info.header_offset + 26 : info.header_offset + 28], "little")
    start += int.from_bytes(data[info.header_offset + 28 : info.header_offset + 30], "little")
    data[start + 5] ^= 0xFF
    with pytest.raises(RuntimeError, match="truncated or corrupted zip checkpoint .*CRC"):
        torch.load(io.BytesIO(bytes(data)))


def _rewritten(tmp_path: Any, change: Callable[[str, bytes], Any]) -> Any:
    src = tmp_path / "good.pt"
    src.write_bytes(_checkpoint_bytes(tmp_path))
    dst = tmp_path / "bad.pt"
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w") as zout:
        for info in zin.infolist():
            data = change(info.filename.split("/", 1)[1], zin.read(info))
            if data is not None:
                zout.writestr(info.filename, data)
    return dst


def test_missing_and_short_records(tmp_path: Any) -> None:
    missing = _rewritten(tmp_path, lambda name, data: None if name == "data/1" else data)
    with pytest.raises(RuntimeError, match="is missing record good/data/1"):
        torch.load(missing)
    short = _rewritten(tmp_path, lambda name, data: data[:-4] if name == "data/0" else data)
    with pytest.raises(RuntimeError, match="record good/data/0 holds 252 bytes, the checkpoint expects 256"):
        torch.load(short)


def test_zip_files_that_are_not_checkpoints(tmp_path: Any) -> None:
    path = tmp_path / "other.zip"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("readme.txt", "hello")
    with pytest.raises(RuntimeError, match="is a zip file but not a PyTorch checkpoint"):
        torch.load(path)
    script = tmp_path / "script.pt"
    pt.jit.save(pt.jit.script(pt.nn.Linear(2, 2)), script)
    with pytest.raises(RuntimeError, match="TorchScript"):
        torch.load(script)


class _Rebuild:
    def __init__(self, *args: Any) -> None:
        self.args = args

    def __reduce__(self) -> Any:
        return (pt._utils._rebuild_tensor_v2, self.args)


class _StoragePickler(pickle.Pickler):
    def persistent_id(self, obj: Any) -> Any:
        return ("storage", pt.FloatStorage, "0", "cpu", 4) if obj == "STORAGE" else None


BAD_LAYOUTS = {
    "too_long": ("STORAGE", 0, (5,), (1,), False, OrderedDict()),
    "offset_past_end": ("STORAGE", 3, (2,), (1,), False, OrderedDict()),
    "negative_stride": ("STORAGE", 3, (2,), (-1,), False, OrderedDict()),
    "not_a_storage": (7, 0, (2,), (1,), False, OrderedDict()),
    "ragged": ("STORAGE", 0, (2, 2), (1,), False, OrderedDict()),
}


@pytest.mark.parametrize("name", list(BAD_LAYOUTS))
def test_tensor_layouts_outside_their_storage(name: str, tmp_path: Any) -> None:
    buf = io.BytesIO()
    _StoragePickler(buf, protocol=2).dump({"x": _Rebuild(*BAD_LAYOUTS[name])})
    path = _with_pickle(tmp_path, buf.getvalue())
    with pytest.raises(Exception):
        pt.load(path, weights_only=True)
    with pytest.raises(RuntimeError, match="out of bounds for storage|corrupt checkpoint"):
        torch.load(path)
