"""Zero-copy exchange with NumPy and through DLPack: shared memory, strides, lifetimes,
read-only arrays, capsule versions and single consumption."""

import ctypes
import gc
import weakref

import numpy as np
import pytest

import ferrotorch as torch

DTYPES = [np.float32, np.float64, np.float16, np.int64, np.int32, np.int16, np.int8, np.uint8, np.bool_]


@pytest.mark.parametrize("npdt", DTYPES)
def test_from_numpy_shares_memory_every_dtype(npdt):
    a = (np.arange(6) % 2 == 0) if npdt is np.bool_ else np.arange(6).astype(npdt)
    a = a.reshape(2, 3)
    t = torch.from_numpy(a)
    assert t.dtype == getattr(torch, np.dtype(npdt).name if npdt is not np.bool_ else "bool")
    assert t.data_ptr() == a.ctypes.data
    assert t.tolist() == a.tolist()
    back = t.numpy()
    assert back.dtype == a.dtype and np.shares_memory(back, a)


def test_mutations_are_visible_both_ways():
    a = np.zeros((2, 3), dtype=np.float32)
    t = torch.from_numpy(a)
    t[0, 1] = 5
    assert a[0, 1] == 5
    a[1, 2] = 7
    assert t[1, 2].item() == 7
    n = t.numpy()
    n[0, 0] = -1
    assert a[0, 0] == -1 and t[0, 0].item() == -1


def test_strides_are_preserved_for_views():
    a = np.arange(24, dtype=np.float64).reshape(4, 6)
    t = torch.from_numpy(a[::2, 1::2])
    assert t.stride() == (12, 2) and t.tolist() == a[::2, 1::2].tolist()
    x = torch.arange(12.0).reshape(3, 4)
    n = x.t().numpy()
    assert n.strides == (4, 16) and np.shares_memory(n, x.numpy())
    np.testing.assert_array_equal(n, np.arange(12.0).reshape(3, 4).T)
    s = x[:, 1::2].numpy()
    assert s.strides == (16, 8)


def test_lifetimes_survive_deleting_either_side():
    a = np.arange(1000, dtype=np.float32)
    ref = weakref.ref(a) if hasattr(a, "__weakref__") else None
    t = torch.from_numpy(a)
    del a
    gc.collect()
    assert t[999].item() == 999.0
    t2 = torch.arange(500.0)
    n = t2.numpy()
    del t2
    gc.collect()
    assert n[499] == 499.0 and n.sum() == sum(range(500))
    del t
    gc.collect()
    if ref is not None:
        assert ref() is None


def test_negative_strides_are_refused_and_readonly_arrays_never_written():
    a = np.arange(5.0)
    with pytest.raises(ValueError, match="negative"):
        torch.from_numpy(a[::-1])
    assert torch.tensor(a[::-1]).tolist() == [4.0, 3.0, 2.0, 1.0, 0.0]
    r = np.arange(3.0)
    r.setflags(write=False)
    t = torch.from_numpy(r)
    assert t.tolist() == [0.0, 1.0, 2.0]
    with pytest.raises(RuntimeError, match="read-only"):
        t.add_(1)
    assert r.tolist() == [0.0, 1.0, 2.0]
    assert (t + 1).tolist() == [1.0, 2.0, 3.0]


def test_unsupported_dtypes_and_requires_grad():
    with pytest.raises(TypeError, match="can't convert np.ndarray of type"):
        torch.from_numpy(np.zeros(2, dtype=np.longdouble))
    with pytest.raises(TypeError, match="expected np.ndarray"):
        torch.from_numpy([1, 2])
    x = torch.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match=r"Can't call numpy\(\) on Tensor that requires grad"):
        x.numpy()
    assert x.numpy(force=True).tolist() == [1.0, 1.0]
    with pytest.raises(TypeError, match="BFloat16"):
        torch.ones(2, dtype=torch.bfloat16).numpy()


def test_tensor_copies_and_as_tensor_shares():
    a = np.arange(3, dtype=np.int32)
    t = torch.tensor(a)
    t[0] = 10
    assert a[0] == 0 and t.dtype == torch.int32
    s = torch.as_tensor(a)
    s[0] = 10
    assert a[0] == 10
    f = torch.as_tensor(a, dtype=torch.float32)
    f[1] = 99
    assert a[1] == 1
    assert torch.tensor(np.float64(2.5)).item() == 2.5 and torch.tensor(np.float64(2.5)).dtype == torch.float64


def test_array_protocol_and_zero_size():
    x = torch.arange(6).reshape(2, 3)
    np.testing.assert_array_equal(np.asarray(x), np.arange(6).reshape(2, 3))
    assert np.array(x, dtype=np.float32).dtype == np.float32
    assert torch.zeros(0, 3).numpy().shape == (0, 3)
    assert torch.tensor(3.0).numpy().shape == ()
    assert torch.from_numpy(np.zeros((0, 2))).shape == (0, 2)


def capsule_name(c):
    ctypes.pythonapi.PyCapsule_GetName.restype = ctypes.c_char_p
    ctypes.pythonapi.PyCapsule_GetName.argtypes = [ctypes.py_object]
    return ctypes.pythonapi.PyCapsule_GetName(c).decode()


def test_dlpack_capsule_versions_and_single_consumption():
    x = torch.arange(4.0)
    assert capsule_name(x.__dlpack__()) == "dltensor"
    assert capsule_name(x.__dlpack__(max_version=(1, 0))) == "dltensor_versioned"
    assert capsule_name(x.__dlpack__(max_version=(0, 8))) == "dltensor"
    assert x.__dlpack_device__() == (1, 0)
    c = x.__dlpack__()
    y = torch.from_dlpack(c)
    assert capsule_name(c) == "used_dltensor"
    with pytest.raises(ValueError, match="not consumed yet"):
        torch.from_dlpack(c)
    y[0] = 7
    assert x[0].item() == 7
    with pytest.raises(BufferError):
        x.__dlpack__(dl_device=(2, 0))
    with pytest.raises(RuntimeError, match="require gradient"):
        torch.ones(1, requires_grad=True).__dlpack__()


def test_dlpack_with_numpy_both_ways_every_dtype():
    for npdt in [np.float32, np.float64, np.float16, np.int64, np.int8, np.uint8, np.bool_]:
        a = (np.arange(6) % 2 == 0) if npdt is np.bool_ else np.arange(6).astype(npdt)
        t = torch.from_dlpack(a.reshape(2, 3))
        assert t.data_ptr() == a.ctypes.data and t.tolist() == a.reshape(2, 3).tolist()
        b = np.from_dlpack(t)
        assert np.shares_memory(b, a)
    tt = torch.ones(3, 4).t()
    n = np.from_dlpack(tt)
    assert n.strides == (4, 16)
    assert np.from_dlpack(torch.zeros(0, 2)).shape == (0, 2)
    assert np.from_dlpack(torch.tensor(1.5)).shape == ()


def test_dlpack_copy_flag_and_lifetime():
    x = torch.arange(3.0)
    y = torch.from_dlpack(x.__dlpack__(max_version=(1, 0), copy=True))
    y[0] = 9
    assert x[0].item() == 0
    z = torch.from_dlpack(torch.arange(100.0))
    gc.collect()
    assert z[99].item() == 99.0
    cap = torch.arange(3.0).__dlpack__()
    del cap
    gc.collect()


def test_dlpack_with_pytorch_when_installed():
    pt = pytest.importorskip("torch")
    p = pt.arange(5.0)
    f = torch.from_dlpack(p)
    f[0] = 42
    assert p[0].item() == 42
    q = pt.from_dlpack(torch.arange(3).reshape(3, 1).t())
    assert q.tolist() == [[0, 1, 2]]
