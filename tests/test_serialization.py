"""save/load: round trips, safetensors files (``.safetensors`` paths), atomic writes, corrupted
files. PyTorch's zip format itself is tested against PyTorch in test_pt_checkpoints.py."""

import io
import os
import pickle
from collections import OrderedDict

import pytest

import ferrotorch as torch

FILE_NAMES = ["ckpt.pt", "ckpt.safetensors"]


@pytest.mark.parametrize("name", FILE_NAMES)
def test_round_trip_of_nested_structure(tmp_path, name):
    path = tmp_path / name
    obj = {
        "model": OrderedDict([("fc.weight", torch.ones(2, 3).t()), ("fc.bias", torch.arange(3))]),
        "optimizer": {"state": {0: {"step": torch.tensor(5.0), "exp_avg": torch.zeros(2)}}, "param_groups": [{"lr": 0.1, "betas": (0.9, 0.999), "params": [0], "nesterov": False, "foo": None}]},
        "epoch": 7,
        "name": "run-1",
        "dtypes": [torch.float16, torch.bool],
    }
    torch.save(obj, path)
    back = torch.load(path)
    assert isinstance(back["model"], OrderedDict)
    assert list(back["model"]) == ["fc.weight", "fc.bias"]
    assert back["model"]["fc.weight"].shape == (3, 2)
    assert back["model"]["fc.weight"].tolist() == [[1.0, 1.0]] * 3
    assert back["model"]["fc.bias"].dtype == torch.int64
    assert back["optimizer"]["state"][0]["step"].item() == 5.0
    assert back["optimizer"]["param_groups"][0]["betas"] == (0.9, 0.999)
    assert back["optimizer"]["param_groups"][0]["foo"] is None
    assert back["epoch"] == 7 and back["name"] == "run-1"
    assert back["dtypes"] == [torch.float16, torch.bool]


@pytest.mark.parametrize("name", FILE_NAMES)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int64, torch.int32, torch.int16, torch.int8, torch.uint8, torch.bool])
def test_every_dtype_round_trips(tmp_path, dtype, name):
    t = torch.tensor([[0, 1, 2], [3, 4, 5]]).to(dtype)
    torch.save({"t": t, "empty": torch.zeros(0, 4, dtype=dtype), "scalar": torch.tensor(1).to(dtype)}, tmp_path / name)
    back = torch.load(tmp_path / name)
    assert back["t"].dtype == dtype and back["t"].tolist() == t.tolist()
    assert back["empty"].shape == (0, 4)
    assert back["scalar"].shape == ()


@pytest.mark.parametrize("name", FILE_NAMES)
def test_requires_grad_is_kept(tmp_path, name):
    torch.save(torch.ones(2, requires_grad=True), tmp_path / name)
    assert torch.load(tmp_path / name).requires_grad


def test_file_objects(tmp_path):
    buf = io.BytesIO()
    torch.save({"x": torch.arange(4)}, buf)
    buf.seek(0)
    assert torch.load(buf)["x"].tolist() == [0, 1, 2, 3]


def test_safetensors_package_reads_our_files(tmp_path):
    st = pytest.importorskip("safetensors.numpy")
    path = tmp_path / "w.safetensors"
    torch.save({"fc.weight": torch.ones(2, 3), "fc.bias": torch.zeros(2)}, path)
    arrays = st.load_file(str(path))
    assert set(arrays) == {"fc.weight", "fc.bias"}
    assert arrays["fc.weight"].shape == (2, 3)


def test_plain_safetensors_files_load_as_dict(tmp_path):
    np = pytest.importorskip("numpy")
    st = pytest.importorskip("safetensors.numpy")
    path = str(tmp_path / "plain.safetensors")
    st.save_file({"a": np.arange(6, dtype=np.float32).reshape(2, 3)}, path)
    back = torch.load(path)
    assert back["a"].tolist() == [[0, 1, 2], [3, 4, 5]]


def test_truncated_file_names_the_file(tmp_path):
    path = tmp_path / "t.safetensors"
    torch.save({"w": torch.ones(100)}, path)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(RuntimeError, match=r"load: .*t\.safetensors is truncated or is not a valid safetensors file"):
        torch.load(path)


class _Evil:
    def __reduce__(self):
        return (os.mkdir, (os.path.join(os.environ["EVIL_DIR"], "pwned"),))


def test_plain_pickle_files_are_refused_without_running_code(tmp_path, monkeypatch):
    monkeypatch.setenv("EVIL_DIR", str(tmp_path))
    path = tmp_path / "evil.pt"
    path.write_bytes(pickle.dumps({"a": _Evil()}, protocol=2))
    with pytest.raises(pickle.UnpicklingError, match="GLOBAL posix.mkdir whose module posix is blocked"):
        torch.load(path)
    assert not (tmp_path / "pwned").exists()
    path.write_bytes(pickle.dumps({"a": 1}, protocol=2))
    with pytest.raises(RuntimeError, match="Invalid magic number; corrupt file"):
        torch.load(path)


def test_unknown_bytes_are_refused(tmp_path):
    path = tmp_path / "junk.bin"
    path.write_bytes(b"hello, this is not a checkpoint")
    with pytest.raises(RuntimeError, match=r"junk\.bin is not a PyTorch checkpoint \(zip\) or a safetensors file"):
        torch.load(path)


@pytest.mark.parametrize("name", ["ckpt", "ckpt.safetensors"])
def test_failed_save_leaves_previous_file_intact(tmp_path, name):
    path = tmp_path / name
    torch.save({"w": torch.ones(3)}, path)
    unpicklable = {"w": torch.zeros(3), "bad": lambda: None}
    with pytest.raises((pickle.PicklingError, AttributeError, TypeError)):
        torch.save(unpicklable, path)
    assert torch.load(path)["w"].tolist() == [1.0, 1.0, 1.0]
    assert os.listdir(tmp_path) == [name]


def test_safetensors_refuses_objects_it_cannot_store(tmp_path):
    with pytest.raises(TypeError, match="cannot store an object of type object in a safetensors file"):
        torch.save({"bad": object()}, tmp_path / "x.safetensors")


def test_unwritable_destination_raises_and_leaves_no_temp_file(tmp_path):
    target = tmp_path / "dir_not_file"
    target.mkdir()
    with pytest.raises(RuntimeError, match="save: cannot write"):
        torch.save({"w": torch.ones(1)}, target)
    assert os.listdir(tmp_path) == ["dir_not_file"]


def test_missing_file(tmp_path):
    with pytest.raises(FileNotFoundError, match="nope"):
        torch.load(tmp_path / "nope")
    with pytest.raises(FileNotFoundError, match="nope"):
        torch.load(tmp_path / "nope.safetensors")


def test_older_ferrotorch_files_load_whatever_their_name(tmp_path):
    from ferrotorch._serialization import safetensors_format

    path = tmp_path / "old_checkpoint.pt"
    safetensors_format.save({"w": torch.arange(3), "meta": {"epoch": 2}}, path)
    assert path.read_bytes()[8:9] == b"{"
    back = torch.load(path)
    assert back["w"].tolist() == [0, 1, 2] and back["meta"] == {"epoch": 2}
    with open(path, "rb") as fh:
        assert torch.load(fh)["meta"]["epoch"] == 2
