"""torch.save / torch.load in PyTorch's zip format, against PyTorch itself: every case is built
the same way in both libraries, then PyTorch saves -> ferrotorch loads, ferrotorch saves ->
PyTorch loads (weights_only=True) and ferrotorch saves -> ferrotorch loads, and each result
is compared with the other library's original: structure, dtypes, shapes, strides, offsets,
requires_grad, values, storage sharing and object identity."""

from __future__ import annotations

import io
import math
import pickle
import zipfile
from collections import Counter, OrderedDict
from typing import Any, Callable, Dict

import numpy as np
import pytest
from pt_checkpoint_helpers import same_sharing, same_structure, same_tensor, values

import ferrotorch as torch
from torch_oracle import needs_torch, pt, to_ft, to_pt

pytestmark = needs_torch

DTYPES = ["float32", "float64", "float16", "bfloat16", "int64", "int32", "int16", "int8", "uint8", "bool"]
DTYPES += [d for d in ("complex64", "complex128") if hasattr(torch, d)]


def dtype_case(lib: Any, name: str) -> Dict[str, Any]:
    dt = getattr(lib, name)
    base = (lib.arange(24) % 7 - 3).to(dt) if name != "bool" else lib.arange(24) % 3 == 0
    m = base.view(4, 6)
    return {
        "contiguous": m,
        "transposed": m.t(),
        "sliced": m[1:, 1::2],
        "row": m[2],
        "scalar": (lib.tensor(5) if name != "bool" else lib.tensor(1)).to(dt),
        "empty": lib.zeros(0, 3, dtype=dt),
        "empty_3d": lib.zeros(2, 0, 4, dtype=dt),
    }


def views_case(lib: Any) -> Dict[str, Any]:
    base = lib.arange(30, dtype=lib.float32)
    m = base[2:26].view(4, 6)
    shared = lib.ones(3)
    return {
        "base": base,
        "m": m,
        "t": m.t(),
        "cols": m[:, 1::2],
        "narrow": m.narrow(1, 2, 3),
        "row": m[3],
        "expanded": lib.arange(3.0).unsqueeze(0).expand(4, 3),
        "permuted": lib.arange(24.0).view(2, 3, 4).permute(2, 0, 1),
        "same_object": [shared, shared],
        "unrelated": lib.zeros(3),
    }


def params_case(lib: Any) -> Dict[str, Any]:
    w = lib.nn.Parameter(lib.arange(6.0).view(2, 3))
    frozen = lib.nn.Parameter(lib.ones(2), requires_grad=False)
    x = lib.arange(4.0, requires_grad=True)
    return {"w": w, "frozen": frozen, "w_again": w, "leaf": x, "non_leaf": (x * 2).detach().requires_grad_(True), "ints": lib.nn.Parameter(lib.arange(3), requires_grad=False)}


def containers_case(lib: Any) -> Any:
    sd = OrderedDict([("fc.weight", lib.ones(2, 2)), ("fc.bias", lib.zeros(2))])
    sd._metadata = OrderedDict([("", {"version": 1}), ("fc", {"version": 1})])  # type: ignore[attr-defined]
    return {
        "state_dict": sd,
        "nested": [(1, 2.5, "three", None, True), {"a": [lib.tensor(1.0), {"b": lib.tensor([2, 3])}]}],
        "numbers": [0, -1, 2**40, 2**100, -(2**70), 1e-300, math.inf, -math.inf, math.nan, 3 + 4j],
        "text": ["", "ünïcode ✓", b"raw bytes", bytearray(b"ba")],
        "sets": {1, 2, 3},
        "counter": Counter({"x": 2}),
        "meta": [lib.Size([2, 3]), lib.float16, lib.bfloat16, lib.int64, lib.device("cpu")],
        "empty": [{}, [], (), OrderedDict()],
        "int_keys": {0: "a", 1: lib.tensor(0.5), -3: None},
    }


CASES: Dict[str, Callable[[Any], Any]] = {
    "views": views_case,
    "params": params_case,
    "containers": containers_case,
    **{f"dtype_{d}": (lambda lib, d=d: dtype_case(lib, d)) for d in DTYPES},
}


def pt_saved(obj: Any, tmp_path: Any, name: str = "pt.pt", **save_args: Any) -> Any:
    path = tmp_path / name
    pt.save(obj, path, **save_args)
    return path


@pytest.mark.parametrize("case", list(CASES))
def test_pytorch_saves_ferrotorch_loads(case: str, tmp_path: Any) -> None:
    original = CASES[case](pt)
    loaded = torch.load(pt_saved(original, tmp_path))
    same_structure(loaded, original)
    same_sharing(loaded, original)


@pytest.mark.parametrize("case", list(CASES))
def test_ferrotorch_saves_pytorch_loads(case: str, tmp_path: Any) -> None:
    original = CASES[case](torch)
    torch.save(original, tmp_path / "ft.pt")
    loaded = pt.load(tmp_path / "ft.pt", weights_only=True)
    same_structure(original, loaded)
    same_sharing(original, loaded)


@pytest.mark.parametrize("case", list(CASES))
def test_ferrotorch_round_trip(case: str, tmp_path: Any) -> None:
    torch.save(CASES[case](torch), tmp_path / "ft.pt")
    loaded = torch.load(tmp_path / "ft.pt")
    original = CASES[case](pt)
    same_structure(loaded, original)
    same_sharing(loaded, original)


def test_overlapping_strides_from_pytorch(tmp_path: Any) -> None:
    base = pt.arange(10.0)
    windows = base.as_strided((4, 3), (2, 1), 1)  # rows overlap in memory
    loaded = torch.load(pt_saved({"base": base, "windows": windows}, tmp_path))
    same_tensor(loaded["windows"], windows, "windows")
    loaded["base"][3] = 100.0
    assert loaded["windows"][1, 0].item() == 100.0 and loaded["windows"][0, 2].item() == 100.0


def test_loaded_views_share_memory(tmp_path: Any) -> None:
    loaded = torch.load(pt_saved(views_case(pt), tmp_path))
    loaded["t"][1, 0] = -7.0  # m[0, 1] -> base[3]
    assert loaded["m"][0, 1].item() == -7.0 and loaded["base"][3].item() == -7.0
    assert loaded["same_object"][0] is loaded["same_object"][1]
    assert loaded["unrelated"].untyped_storage_ptr() != loaded["base"].untyped_storage_ptr()


def test_shared_storage_is_written_once(tmp_path: Any) -> None:
    base = torch.arange(1000.0)
    torch.save({"a": base[:10], "b": base[500:], "c": base.view(10, 100).t()}, tmp_path / "ft.pt")
    records = [n for n in zipfile.ZipFile(tmp_path / "ft.pt").namelist() if "/data/" in n]
    assert records == ["ft/data/0"]
    theirs = pt.load(tmp_path / "ft.pt")
    assert theirs["b"].storage_offset() == 500 and theirs["a"].untyped_storage().nbytes() == 4000


def test_zip_layout_matches_pytorch(tmp_path: Any) -> None:
    torch.save({"x": torch.ones(3), "y": torch.zeros(2, dtype=torch.int64)}, tmp_path / "ours.pt")
    pt.save({"x": pt.ones(3), "y": pt.zeros(2, dtype=pt.int64)}, tmp_path / "theirs.pt")
    ours, theirs = zipfile.ZipFile(tmp_path / "ours.pt"), zipfile.ZipFile(tmp_path / "theirs.pt")
    strip = lambda z: [n.split("/", 1)[1] for n in z.namelist()]  # noqa: E731
    assert strip(ours) == strip(theirs)
    for name in (".format_version", ".storage_alignment", "byteorder", "version", "data/0", "data/1"):
        assert ours.read(f"ours/{name}") == theirs.read(f"theirs/{name}"), name
    for info in ours.infolist():
        assert info.compress_type == zipfile.ZIP_STORED
    raw = (tmp_path / "ours.pt").read_bytes()
    for info in ours.infolist():
        if "/data/" in info.filename:
            name_len, extra_len = np.frombuffer(raw[info.header_offset + 26 : info.header_offset + 30], dtype="<u2")
            assert (info.header_offset + 30 + name_len + extra_len) % 64 == 0


class Net:
    """The same small network in either library: conv, batch norm, embedding, layer norm, linear."""

    @staticmethod
    def build(lib: Any) -> Any:
        nn = lib.nn

        class _Net(nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.conv = nn.Conv2d(2, 3, 3, padding=1)
                self.bn = nn.BatchNorm2d(3)
                self.emb = nn.Embedding(5, 4)
                self.norm = nn.LayerNorm(3 * 4 * 4 + 4)
                self.fc = nn.Linear(3 * 4 * 4 + 4, 2)

            def forward(self, x: Any, idx: Any) -> Any:
                h = lib.relu(self.bn(self.conv(x))).flatten(1)
                return self.fc(self.norm(lib.cat([h, self.emb(idx)], 1)))

        return _Net()


def _inputs() -> Any:
    x = pt.linspace(-1, 1, 2 * 2 * 4 * 4).view(2, 2, 4, 4)
    idx = pt.tensor([1, 4])
    return x, idx


def test_model_state_dict_from_pytorch_drives_ferrotorch_model(tmp_path: Any) -> None:
    pt.manual_seed(0)
    theirs = Net.build(pt)
    x, idx = _inputs()
    theirs(x, idx)  # updates the batch-norm running statistics
    theirs.eval()
    path = pt_saved(theirs.state_dict(), tmp_path, "model.pt")
    ours = Net.build(torch)
    result = ours.load_state_dict(torch.load(path))
    assert list(result.missing_keys) == [] and list(result.unexpected_keys) == []
    ours.eval()
    np.testing.assert_allclose(ours(to_ft(x), to_ft(idx)).detach().numpy(), theirs(x, idx).detach().numpy(), rtol=1e-5, atol=1e-6)
    assert ours.bn.num_batches_tracked.item() == 1


def test_model_state_dict_from_ferrotorch_drives_pytorch_model(tmp_path: Any) -> None:
    torch.manual_seed(0)
    ours = Net.build(torch)
    x, idx = _inputs()
    ours(to_ft(x), to_ft(idx))
    ours.eval()
    torch.save(ours.state_dict(), tmp_path / "model.pt")
    theirs = Net.build(pt)
    theirs.load_state_dict(pt.load(tmp_path / "model.pt", weights_only=True))
    theirs.eval()
    np.testing.assert_allclose(theirs(x, idx).detach().numpy(), ours(to_ft(x), to_ft(idx)).detach().numpy(), rtol=1e-5, atol=1e-6)


def _adam_run(lib: Any, steps: int) -> Any:
    lib.manual_seed(0)
    model = lib.nn.Linear(3, 2)
    with lib.no_grad():
        model.weight.copy_(lib.arange(6.0).view(2, 3) / 10)
        model.bias.copy_(lib.tensor([0.5, -0.5]))
    opt = lib.optim.Adam(model.parameters(), lr=0.01, betas=(0.8, 0.99), weight_decay=0.1)
    x = lib.arange(12.0).view(4, 3) / 12
    for _ in range(steps):
        opt.zero_grad()
        model(x).pow(2).sum().backward()
        opt.step()
    return model, opt, x


def test_optimizer_state_dict_from_pytorch_resumes_in_ferrotorch(tmp_path: Any) -> None:
    model, opt, x = _adam_run(pt, 3)
    ckpt = {"model": model.state_dict(), "optimizer": opt.state_dict(), "epoch": 3}
    loaded = torch.load(pt_saved(ckpt, tmp_path, "ckpt.pt"))
    same_structure(loaded, ckpt)
    ours, ours_opt, ours_x = _adam_run(torch, 0)
    ours.load_state_dict(loaded["model"])
    ours_opt.load_state_dict(loaded["optimizer"])
    for lib, m, o, inp in ((pt, model, opt, x), (torch, ours, ours_opt, ours_x)):
        o.zero_grad()
        m(inp).pow(2).sum().backward()
        o.step()
    np.testing.assert_allclose(values(ours.weight), values(model.weight), rtol=1e-6, atol=1e-7)


def test_optimizer_state_dict_from_ferrotorch_resumes_in_pytorch(tmp_path: Any) -> None:
    ours, ours_opt, _ = _adam_run(torch, 3)
    torch.save({"model": ours.state_dict(), "optimizer": ours_opt.state_dict()}, tmp_path / "ckpt.pt")
    loaded = pt.load(tmp_path / "ckpt.pt", weights_only=True)
    same_structure(ours_opt.state_dict(), loaded["optimizer"])
    model, opt, x = _adam_run(pt, 0)
    model.load_state_dict(loaded["model"])
    opt.load_state_dict(loaded["optimizer"])
    ref, ref_opt, ref_x = _adam_run(pt, 3)
    for m, o in ((model, opt), (ref, ref_opt)):
        o.zero_grad()
        m(x).pow(2).sum().backward()
        o.step()
    np.testing.assert_allclose(model.weight.detach().numpy(), ref.weight.detach().numpy(), rtol=1e-6, atol=1e-7)


CPU_MAPS: Dict[str, Any] = {
    "none": None,
    "str": "cpu",
    "device": lambda: torch.device("cpu"),
    "dict": {"cpu": "cpu"},
    "callable_keep": lambda storage, loc: storage,
    "callable_none": lambda storage, loc: None,
    "callable_cpu": lambda storage, loc: storage.cpu(),
}


@pytest.mark.parametrize("how", list(CPU_MAPS))
def test_map_location_to_cpu(how: str, tmp_path: Any) -> None:
    original = views_case(pt)
    ml = CPU_MAPS[how]
    ml = ml() if how == "device" else ml
    loaded = torch.load(pt_saved(original, tmp_path), map_location=ml)
    same_structure(loaded, original)
    same_sharing(loaded, original)
    assert all(t.device.type == "cpu" for t in (loaded["m"], loaded["t"]))


def _cuda_tagged(tmp_path: Any, name: str = "cuda.pt", **save_args: Any) -> Any:
    """A PyTorch checkpoint whose storages are tagged as saved on cuda:0 (as on a GPU machine)."""
    from torch import serialization as pts

    tagger = lambda storage: "cuda:0" if storage.device.type == "cpu" else None  # noqa: E731
    pts._package_registry.insert(0, (-1, tagger, lambda storage, location: None))
    try:
        w = pt.arange(4.0)
        return pt_saved({"w": w, "v": w[1:]}, tmp_path, name, **save_args)
    finally:
        pts._package_registry.pop(0)


@pytest.fixture
def cuda_tagged_file(tmp_path: Any) -> Any:
    path = _cuda_tagged(tmp_path)
    assert b"cuda:0" in zipfile.ZipFile(path).read("cuda/data.pkl")
    return path


CUDA_TO_CPU_MAPS: Dict[str, Any] = {
    "str": "cpu",
    "device": "device",
    "dict": {"cuda:0": "cpu"},
    "callable": lambda storage, loc: storage,
}


@pytest.mark.parametrize("how", list(CUDA_TO_CPU_MAPS))
def test_cuda_saved_file_maps_to_cpu(how: str, cuda_tagged_file: Any) -> None:
    ml = CUDA_TO_CPU_MAPS[how]
    ml = torch.device("cpu") if ml == "device" else ml
    loaded = torch.load(cuda_tagged_file, map_location=ml)
    assert loaded["w"].device.type == "cpu" and loaded["v"].tolist() == [1.0, 2.0, 3.0]
    assert loaded["v"].untyped_storage_ptr() == loaded["w"].untyped_storage_ptr()
    theirs = pt.load(cuda_tagged_file, map_location=ml if how != "device" else pt.device("cpu"))
    same_structure(loaded, theirs)


def test_cuda_saved_file_without_map_location_errors_as_pytorch(cuda_tagged_file: Any) -> None:
    if torch.cuda.is_available() or pt.cuda.is_available():
        pytest.skip("a GPU is present")
    with pytest.raises(RuntimeError) as theirs:
        pt.load(cuda_tagged_file)
    with pytest.raises(RuntimeError) as ours:
        torch.load(cuda_tagged_file)
    assert "torch.cuda.is_available() is False" in str(theirs.value)
    assert "torch.cuda.is_available() is False" in str(ours.value) and "map_location=torch.device('cpu')" in str(ours.value)


def test_mmap_loads_copy_on_write(tmp_path: Any) -> None:
    original = views_case(pt)
    path = pt_saved(original, tmp_path)
    before = path.read_bytes()
    loaded = torch.load(path, mmap=True)
    same_structure(loaded, original)
    same_sharing(loaded, original)
    loaded["base"].fill_(5.0)
    assert loaded["t"][0, 0].item() == 5.0 and path.read_bytes() == before
    with pytest.raises(ValueError, match="f must be a file path in order to use the mmap argument"):
        torch.load(io.BytesIO(before), mmap=True)
    with pytest.raises(ValueError, match="f must be a file path in order to use the mmap argument"):
        pt.load(io.BytesIO(before), mmap=True)


def test_file_objects_both_ways() -> None:
    buf = io.BytesIO()
    pt.save(views_case(pt), buf)
    buf.seek(0)
    same_structure(torch.load(buf), views_case(pt))
    out = io.BytesIO()
    torch.save(views_case(torch), out)
    out.seek(0)
    same_structure(views_case(torch), pt.load(out))
    assert "archive/data.pkl" in zipfile.ZipFile(io.BytesIO(out.getvalue())).namelist()


class _NoSeek(io.RawIOBase):
    def __init__(self, data: bytes) -> None:
        self._buf = io.BytesIO(data)

    def readable(self) -> bool:
        return True

    def readinto(self, b: Any) -> int:
        return self._buf.readinto(b)


def test_unseekable_streams(tmp_path: Any) -> None:
    data = pt_saved({"x": pt.arange(3)}, tmp_path).read_bytes()
    assert torch.load(_NoSeek(data))["x"].tolist() == [0, 1, 2]


def test_big_endian_checkpoint(tmp_path: Any) -> None:
    """A checkpoint written on a big-endian machine: records byte-swapped, ``byteorder`` = big."""
    src = pt_saved({"f": pt.arange(4.0), "h": pt.arange(3).to(pt.bfloat16), "i": pt.arange(3, dtype=pt.int64), "b": pt.tensor([True, False])}, tmp_path)
    dst = tmp_path / "big.pt"
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w") as zout:
        sizes = {"data/0": 4, "data/1": 2, "data/2": 8, "data/3": 1}
        for info in zin.infolist():
            data = zin.read(info)
            rel = info.filename.split("/", 1)[1]
            if rel == "byteorder":
                data = b"big"
            elif rel in sizes and sizes[rel] > 1:
                data = np.frombuffer(data, dtype=f"<u{sizes[rel]}").astype(f">u{sizes[rel]}").tobytes()
            zout.writestr(info.filename, data)
    same_structure(torch.load(dst), pt.load(dst))


def test_safetensors_paths_read_by_pytorch(tmp_path: Any) -> None:
    pytest.importorskip("safetensors.torch")
    torch.save({"fc.weight": torch.arange(6.0).view(2, 3), "fc.bias": torch.ones(2)}, tmp_path / "w.safetensors")
    theirs = pt.load(tmp_path / "w.safetensors")
    assert sorted(theirs) == ["fc.bias", "fc.weight"] and theirs["fc.weight"].tolist() == [[0, 1, 2], [3, 4, 5]]
    pt.save({"w": pt.ones(2)}, tmp_path / "zip.safetensors")  # PyTorch writes a zip whatever the name
    assert torch.load(tmp_path / "zip.safetensors")["w"].tolist() == [1.0, 1.0]


def test_unsupported_dtype_is_a_clear_error(tmp_path: Any) -> None:
    path = pt_saved({"u": pt.zeros(3, dtype=pt.uint16)}, tmp_path)
    with pytest.raises(RuntimeError, match=r"dtype torch\.uint16.*which ferrotorch does not support"):
        torch.load(path)


@pytest.mark.parametrize("weights_only", [True, False])
@pytest.mark.parametrize("case", ["views", "params", "containers", "dtype_bfloat16", "dtype_bool"])
def test_legacy_format_from_pytorch(case: str, weights_only: bool, tmp_path: Any) -> None:
    path = tmp_path / "legacy.pt"
    pt.save(CASES[case](pt), path, _use_new_zipfile_serialization=False)
    loaded = torch.load(path, weights_only=weights_only)
    theirs = pt.load(path, weights_only=weights_only)
    same_structure(loaded, theirs)
    same_sharing(loaded, theirs)


def test_legacy_format_saved_on_cuda_and_refused_save(tmp_path: Any) -> None:
    with pytest.raises(RuntimeError, match="_use_new_zipfile_serialization=False is not supported"):
        torch.save({"x": torch.ones(2)}, tmp_path / "x.pt", _use_new_zipfile_serialization=False)
    path = _cuda_tagged(tmp_path, "legacy.pt", _use_new_zipfile_serialization=False)
    loaded = torch.load(path, map_location="cpu")
    assert loaded["v"].tolist() == [1.0, 2.0, 3.0] and loaded["v"].storage_offset() == 1
    if not torch.cuda.is_available():
        with pytest.raises(RuntimeError, match=r"torch\.cuda\.is_available\(\) is False"):
            torch.load(path)


def test_mmap_and_globals_scan_need_zip_checkpoints(tmp_path: Any) -> None:
    path = tmp_path / "legacy.pt"
    pt.save({"x": pt.ones(2)}, path, _use_new_zipfile_serialization=False)
    for lib in (pt, torch):
        with pytest.raises(RuntimeError, match="mmap can only be used with files saved"):
            lib.load(path, mmap=True)
        with pytest.raises(ValueError, match="Expected input to be a checkpoint returned by torch.save"):
            lib.serialization.get_unsafe_globals_in_checkpoint(path)
    torch.save({"x": torch.ones(2)}, tmp_path / "x.safetensors")
    assert torch.load(tmp_path / "x.safetensors", mmap=True)["x"].tolist() == [1.0, 1.0]


def test_whole_module_pickles_both_ways(tmp_path: Any) -> None:
    pt.manual_seed(0)
    theirs = pt.nn.Sequential(pt.nn.Linear(3, 4), pt.nn.ReLU(), pt.nn.LayerNorm(4))
    pt.save(theirs, tmp_path / "pt_model.pt")
    with pytest.raises(pickle.UnpicklingError, match="GLOBAL torch.nn.modules.container.Sequential"):
        torch.load(tmp_path / "pt_model.pt")
    ours = torch.load(tmp_path / "pt_model.pt", weights_only=False)
    assert type(ours) is torch.nn.Sequential and type(ours[2]) is torch.nn.LayerNorm
    x = pt.linspace(-1, 1, 6).view(2, 3)
    np.testing.assert_allclose(ours(to_ft(x)).detach().numpy(), theirs(x).detach().numpy(), rtol=1e-6, atol=1e-6)
    torch.save(ours, tmp_path / "ft_model.pt")
    back = pt.load(tmp_path / "ft_model.pt", weights_only=False)
    assert type(back) is pt.nn.Sequential
    np.testing.assert_allclose(back(x).detach().numpy(), theirs(x).detach().numpy(), rtol=1e-6, atol=1e-6)


def test_pickle_protocols(tmp_path: Any) -> None:
    for protocol in (2, 3, 4, 5):
        obj = {"x": pt.arange(3.0), "s": {1, 2}, "b": b"\x00\x01"}
        pt.save(obj, tmp_path / "p.pt", pickle_protocol=protocol)
        same_structure(torch.load(tmp_path / "p.pt"), obj)
        torch.save({"x": torch.arange(3.0), "s": {1, 2}, "b": b"\x00\x01"}, tmp_path / "f.pt", pickle_protocol=protocol)
        same_structure({"x": torch.arange(3.0), "s": {1, 2}, "b": b"\x00\x01"}, pt.load(tmp_path / "f.pt", weights_only=protocol == 2))


def test_tensor_python_attributes(tmp_path: Any) -> None:
    w = pt.nn.Parameter(pt.ones(2))
    w.tag = "frozen"
    x = pt.arange(3.0)
    x.note = 7
    loaded = torch.load(pt_saved({"w": w, "x": x}, tmp_path))
    assert loaded["w"].tag == "frozen" and isinstance(loaded["w"], torch.nn.Parameter) and loaded["x"].note == 7
    ours = torch.nn.Parameter(torch.ones(2))
    ours.tag = "frozen"
    torch.save({"w": ours}, tmp_path / "ft.pt")
    assert pt.load(tmp_path / "ft.pt")["w"].tag == "frozen"


def test_weights_only_false_maps_torch_globals(tmp_path: Any) -> None:
    obj = {"x": pt.ones(2), "dtype": pt.float64, "size": pt.Size([3]), "fn": math.sqrt}
    loaded = torch.load(pt_saved(obj, tmp_path), weights_only=False)
    assert loaded["dtype"] is torch.float64 and loaded["fn"] is math.sqrt and type(loaded["size"]) is torch.Size
    assert to_pt(loaded["x"]).tolist() == [1.0, 1.0]


def test_strided_layout_both_ways(tmp_path: Any) -> None:
    assert torch.load(pt_saved({"layout": pt.strided}, tmp_path))["layout"] is torch.strided
    torch.save({"layout": torch.strided}, tmp_path / "ft.pt")
    assert pt.load(tmp_path / "ft.pt")["layout"] is pt.strided
    with pytest.raises(RuntimeError, match="does not support tensors with layout torch.sparse_coo"):
        torch.load(pt_saved({"layout": pt.sparse_coo}, tmp_path))
