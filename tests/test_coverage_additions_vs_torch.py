"""PyTorch names added for API coverage (issue #12), each against PyTorch: storages,
frombuffer, process flags, anomaly flags, Householder QR (geqrf/orgqr/ormqr), randomized
low-rank SVD/PCA, segment_reduce, norm variants, empty_permuted, cond, the functional RNNs
and nn.functional's __torch_function__ helpers."""

from __future__ import annotations

import array
import warnings

import numpy as np
import pytest

import ferrotorch as torch
import ferrotorch.nn.functional as F
from torch_oracle import assert_close, needs_torch, pt, to_ft, to_pt

pytestmark = needs_torch


def _raises_like(ours, theirs):
    """Both calls raise, with the same exception class."""
    with pytest.raises(Exception) as ref:
        theirs()
    with pytest.raises(ref.type):
        ours()


# ----------------------------------------------------------------------------- storages


def test_untyped_storage_matches_pytorch():
    x = torch.arange(6.0).reshape(2, 3)
    p = pt.arange(6.0).reshape(2, 3)
    s, ps = x.untyped_storage(), p.untyped_storage()
    assert s.nbytes() == ps.nbytes() and s.size() == ps.size() and len(s) == len(ps)
    assert s.element_size() == 1
    assert s.tolist() == ps.tolist()
    assert s.data_ptr() == x.data_ptr()
    assert str(s.device) == str(ps.device)
    # views share the storage: same data_ptr, whole-storage size
    for view in (x[1], x.t(), x[:, 1:]):
        assert view.untyped_storage().data_ptr() == s.data_ptr()
        assert view.untyped_storage().nbytes() == 24
    assert torch.is_storage(s) and pt.is_storage(ps)
    assert not torch.is_storage(x) and not pt.is_storage(p)
    assert x.clone().untyped_storage().data_ptr() != s.data_ptr()
    assert isinstance(s, torch.UntypedStorage)
    fresh, pfresh = torch.UntypedStorage(5), pt.UntypedStorage(5)
    assert fresh.nbytes() == pfresh.nbytes() and len(fresh.tolist()) == 5
    assert repr(s).splitlines()[-1] == repr(ps).splitlines()[-1]


def test_typed_storage_matches_pytorch():
    x = torch.arange(6, dtype=torch.int32)[2:]
    p = pt.arange(6, dtype=pt.int32)[2:]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        s, ps = x.storage(), p.storage()
    assert str(s.dtype) == str(ps.dtype)
    assert (s.size(), len(s), s.element_size(), s.nbytes()) == (ps.size(), len(ps), ps.element_size(), ps.nbytes())
    assert s.tolist() == ps.tolist()
    assert s[3] == ps[3] and s[-1] == ps[-1]
    assert s.data_ptr() == x.untyped_storage().data_ptr() == x.data_ptr() - 2 * 4
    assert s.untyped().nbytes() == ps.untyped().nbytes()
    assert torch.is_storage(s)
    s[0] = 42  # a write through the storage shows in the tensor's storage
    assert x.untyped_storage().tolist()[:4] == [42, 0, 0, 0]
    with pytest.raises(IndexError):
        s[6]


def test_storage_warns_like_pytorch():
    with pytest.warns(UserWarning, match="TypedStorage is deprecated"):
        torch.ones(2).storage()


def test_output_nr_and_as_subclass():
    class Mine(torch.Tensor):
        pass

    x = torch.ones(3)
    assert x.output_nr == pt.ones(3).output_nr == 0
    y = torch.ones(3, requires_grad=True) * 2
    assert y.output_nr == 0
    m = x.as_subclass(Mine)
    assert type(m) is Mine and m.data_ptr() == x.data_ptr()
    x[0] = 5.0
    assert m[0].item() == 5.0
    p = torch.ones(2).as_subclass(torch.nn.Parameter)
    assert type(p) is torch.nn.Parameter and p.requires_grad is pt.ones(2).as_subclass(pt.nn.Parameter).requires_grad
    _raises_like(lambda: x.as_subclass(int), lambda: pt.ones(3).as_subclass(int))


@pytest.mark.parametrize("template_shape", [(2, 3), (6,), (4, 4)])
def test_resize_as_function(template_shape):
    x, p = torch.arange(6.0), pt.arange(6.0)
    r = torch.resize_as_(x, torch.empty(template_shape))
    pr = pt.resize_as_(p, pt.empty(template_shape))
    assert r is x and tuple(r.shape) == tuple(pr.shape)
    n = 6
    assert_close(r.reshape(-1)[:n], pr.reshape(-1)[:n])


# ----------------------------------------------------------------------------- frombuffer

FROMBUFFER_CASES = [
    ("float32", -1, 0),
    ("float32", 2, 4),
    ("int16", 3, 2),
    ("uint8", -1, 5),
    ("float64", 1, 8),
    ("int64", -1, 0),
    ("bfloat16", 4, 0),
    ("bool", 3, 1),
]


@pytest.mark.parametrize("dtype,count,offset", FROMBUFFER_CASES)
def test_frombuffer_values(dtype, count, offset):
    raw = bytes((np.arange(16) % 2 if dtype == "bool" else np.arange(16) * 7 % 256).astype(np.uint8))
    ours = torch.frombuffer(bytearray(raw), dtype=getattr(torch, dtype), count=count, offset=offset)
    theirs = pt.frombuffer(bytearray(raw), dtype=getattr(pt, dtype), count=count, offset=offset)
    assert_close(ours, theirs, rtol=0, atol=0)


def test_frombuffer_shares_memory():
    buf = bytearray(np.arange(4, dtype=np.float32).tobytes())
    t = torch.frombuffer(buf, dtype=torch.float32)
    buf[0:4] = np.float32(9.5).tobytes()  # write through the buffer
    assert t[0].item() == 9.5
    t[1] = -2.0  # write through the tensor
    assert np.frombuffer(bytes(buf), dtype=np.float32)[1] == -2.0
    a = array.array("d", [1.0, 2.0, 3.0])
    ta = torch.frombuffer(a, dtype=torch.float64, requires_grad=True)
    assert ta.requires_grad and ta.tolist() == [1.0, 2.0, 3.0]
    a[2] = 7.0
    assert ta[2].item() == 7.0


@pytest.mark.parametrize(
    "nbytes,dtype,count,offset",
    [(10, "float32", -1, 0), (0, "float32", -1, 0), (8, "float32", -1, 9), (8, "float32", -1, 8), (8, "float32", 3, 0), (4, "float32", 0, 0)],
)
def test_frombuffer_errors(nbytes, dtype, count, offset):
    _raises_like(
        lambda: torch.frombuffer(bytearray(nbytes), dtype=getattr(torch, dtype), count=count, offset=offset),
        lambda: pt.frombuffer(bytearray(nbytes), dtype=getattr(pt, dtype), count=count, offset=offset),
    )


def test_frombuffer_not_a_buffer():
    _raises_like(lambda: torch.frombuffer([1, 2], dtype=torch.float32), lambda: pt.frombuffer([1, 2], dtype=pt.float32))


# ----------------------------------------------------------------------------- process flags


def test_set_default_tensor_type():
    try:
        for ours, theirs in [
            (torch.DoubleTensor, pt.DoubleTensor),
            ("torch.FloatTensor", "torch.FloatTensor"),
            ("torch.HalfTensor", "torch.HalfTensor"),
            (torch.FloatTensor, pt.FloatTensor),
        ]:
            with pytest.warns(UserWarning, match="deprecated"):
                torch.set_default_tensor_type(ours)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                pt.set_default_tensor_type(theirs)
            assert str(torch.get_default_dtype()) == str(pt.get_default_dtype())
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for bad in ("torch.IntTensor", "torch.Foo"):
                _raises_like(lambda: torch.set_default_tensor_type(bad), lambda: pt.set_default_tensor_type(bad))
            _raises_like(lambda: torch.set_default_tensor_type(torch.float64), lambda: pt.set_default_tensor_type(pt.float64))
    finally:
        torch.set_default_dtype(torch.float32)
        pt.set_default_dtype(pt.float32)


def test_flush_denormal_threads_device_module_distributed():
    assert torch.set_flush_denormal(False) is False  # no FTZ control: "not supported"
    _raises_like(lambda: torch.set_flush_denormal(1), lambda: pt.set_flush_denormal(1))
    assert torch.init_num_threads() is None and pt.init_num_threads() is None
    assert torch.get_device_module("cpu") is torch.cpu
    assert torch.get_device_module("cuda:0") is torch.cuda
    assert torch.get_device_module(torch.device("cpu")) is torch.cpu
    assert torch.get_device_module() is torch.cuda
    for bad in ("foo", 3):
        _raises_like(lambda: torch.get_device_module(bad), lambda: pt.get_device_module(bad))
    assert torch.is_distributed(torch.ones(2)) is pt.is_distributed(pt.ones(2)) is False
    _raises_like(lambda: torch.is_distributed(1), lambda: pt.is_distributed(1))


def test_anomaly_flags_follow_pytorch():
    try:
        for args in [(True,), (True, False), (False,), (False, False), (True, True)]:
            torch.set_anomaly_enabled(*args)
            pt.set_anomaly_enabled(*args)
            assert torch.is_anomaly_enabled() == pt.is_anomaly_enabled()
            assert torch.is_anomaly_check_nan_enabled() == pt.is_anomaly_check_nan_enabled()
        _raises_like(lambda: torch.set_anomaly_enabled(1), lambda: pt.set_anomaly_enabled(1))
    finally:
        torch.set_anomaly_enabled(False)
        pt.set_anomaly_enabled(False)


def test_anomaly_mode_context_managers():
    from ferrotorch.autograd import anomaly_mode

    pt_anomaly_mode = pt.autograd.anomaly_mode

    with pytest.warns(UserWarning, match="Anomaly Detection has been enabled"):
        ours = anomaly_mode.detect_anomaly(check_nan=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = pt_anomaly_mode.detect_anomaly(check_nan=False)
    with ours, theirs:
        assert (torch.is_anomaly_enabled(), torch.is_anomaly_check_nan_enabled()) == (
            pt.is_anomaly_enabled(),
            pt.is_anomaly_check_nan_enabled(),
        ) == (True, False)
    assert (torch.is_anomaly_enabled(), torch.is_anomaly_check_nan_enabled()) == (pt.is_anomaly_enabled(), pt.is_anomaly_check_nan_enabled())
    with anomaly_mode.set_detect_anomaly(True), pt_anomaly_mode.set_detect_anomaly(True):
        assert torch.is_anomaly_enabled() == pt.is_anomaly_enabled() is True
    assert torch.is_anomaly_enabled() == pt.is_anomaly_enabled() is False


# ----------------------------------------------------------------------------- Householder QR

GEQRF_SHAPES = [(4, 3), (3, 5), (5, 5), (2, 4, 3), (6, 1), (1, 4), (3, 2, 2)]


@pytest.mark.parametrize("shape", GEQRF_SHAPES)
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_geqrf_matches_lapack(shape, dtype):
    g = np.random.default_rng(sum(shape))
    a = g.standard_normal(shape).astype(dtype)
    ours = torch.geqrf(torch.tensor(a))
    theirs = pt.geqrf(pt.tensor(a))
    tol = 1e-10 if dtype == "float64" else 2e-5
    assert_close(ours.a, theirs.a, rtol=tol, atol=tol)
    assert_close(ours.tau, theirs.tau, rtol=tol, atol=tol)
    assert_close(torch.tensor(a).geqrf()[1], theirs[1], rtol=tol, atol=tol)


@pytest.mark.parametrize("shape", [(3, 3), (4, 2), (2, 4)])
def test_geqrf_complex(shape):
    g = np.random.default_rng(7)
    a = g.standard_normal(shape) + 1j * g.standard_normal(shape)
    ours, theirs = torch.geqrf(torch.tensor(a)), pt.geqrf(pt.tensor(a))
    np.testing.assert_allclose(ours.a.numpy(), theirs.a.numpy(), atol=1e-12)
    np.testing.assert_allclose(ours.tau.numpy(), theirs.tau.numpy(), atol=1e-12)


def test_geqrf_degenerate_column_has_zero_tau():
    a = np.zeros((3, 2))
    a[0, 0] = -2.0
    ours, theirs = torch.geqrf(torch.tensor(a)), pt.geqrf(pt.tensor(a))
    assert_close(ours.a, theirs.a)
    assert_close(ours.tau, theirs.tau)


def test_geqrf_errors():
    _raises_like(lambda: torch.geqrf(torch.ones(3)), lambda: pt.geqrf(pt.ones(3)))
    _raises_like(lambda: torch.geqrf(torch.ones(3, 3, dtype=torch.int64)), lambda: pt.geqrf(pt.ones(3, 3, dtype=pt.int64)))


@pytest.mark.parametrize("shape", [(4, 3), (5, 5), (2, 4, 2)])
def test_orgqr_matches_pytorch(shape):
    a = np.random.default_rng(3).standard_normal(shape)
    pa, ptau = pt.geqrf(pt.tensor(a))
    assert_close(torch.orgqr(to_ft(pa), to_ft(ptau)), pt.orgqr(pa, ptau), rtol=1e-10, atol=1e-10)
    assert_close(to_ft(pa).orgqr(to_ft(ptau)), pa.orgqr(ptau), rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("shape", [(4, 3), (3, 5), (2, 4, 4)])
@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("transpose", [False, True])
def test_ormqr_matches_pytorch(shape, left, transpose):
    g = np.random.default_rng(11)
    a = g.standard_normal(shape)
    m = shape[-2]
    other = g.standard_normal(shape[:-2] + ((m, 2) if left else (3, m)))
    pa, ptau = pt.geqrf(pt.tensor(a))
    theirs = pt.ormqr(pa, ptau, pt.tensor(other), left, transpose)
    ours = torch.ormqr(to_ft(pa), to_ft(ptau), torch.tensor(other), left, transpose)
    assert_close(ours, theirs, rtol=1e-10, atol=1e-10)
    assert_close(to_ft(pa).ormqr(to_ft(ptau), torch.tensor(other), left, transpose), theirs, rtol=1e-10, atol=1e-10)


def test_ormqr_shape_error():
    a, tau = pt.geqrf(pt.randn(3, 2, dtype=pt.float64))
    _raises_like(
        lambda: torch.ormqr(to_ft(a), to_ft(tau), torch.ones(4, 2, dtype=torch.float64)),
        lambda: pt.ormqr(a, tau, pt.ones(4, 2, dtype=pt.float64)),
    )


# ----------------------------------------------------------------------------- low-rank SVD / PCA


def _low_rank(shape, rank, seed):
    g = np.random.default_rng(seed)
    return g.standard_normal(shape[:-1] + (rank,)) @ g.standard_normal(shape[:-2] + (rank, shape[-1]))


@pytest.mark.parametrize("shape,rank,q", [((7, 9), 3, 3), ((9, 7), 3, 5), ((2, 6, 8), 2, None), ((8, 5), 4, 6)])
def test_svd_lowrank_matches_pytorch(shape, rank, q):
    a = _low_rank(shape, rank, 1)
    kw = {} if q is None else {"q": q}
    u, s, v = torch.svd_lowrank(torch.tensor(a), **kw)
    pu, ps, pv = pt.svd_lowrank(pt.tensor(a), **kw)
    assert (u.shape, s.shape, v.shape) == (tuple(pu.shape), tuple(ps.shape), tuple(pv.shape))
    # the exact rank-r part: same leading singular values, and U S V^H rebuilds A
    np.testing.assert_allclose(s.numpy()[..., :rank], ps.numpy()[..., :rank], rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose((u @ torch.diag_embed(s) @ v.mT).numpy(), a, atol=1e-9)


def test_svd_lowrank_with_shift():
    a = _low_rank((6, 8), 2, 2)
    m = np.random.default_rng(4).standard_normal((1, 8))
    u, s, v = torch.svd_lowrank(torch.tensor(a + m), q=3, M=torch.tensor(m))
    pu, ps, pv = pt.svd_lowrank(pt.tensor(a + m), q=3, M=pt.tensor(m))
    np.testing.assert_allclose(s.numpy()[:2], ps.numpy()[:2], rtol=1e-9)


@pytest.mark.parametrize("shape,q,center", [((10, 6), None, True), ((10, 6), 3, False), ((3, 8, 5), 2, True)])
def test_pca_lowrank_matches_pytorch(shape, q, center):
    a = _low_rank(shape, 2, 5)
    u, s, v = torch.pca_lowrank(torch.tensor(a), q=q, center=center)
    pu, ps, pv = pt.pca_lowrank(pt.tensor(a), q=q, center=center)
    assert (u.shape, s.shape, v.shape) == (tuple(pu.shape), tuple(ps.shape), tuple(pv.shape))
    k = min(2, s.shape[-1])
    np.testing.assert_allclose(s.numpy()[..., :k], ps.numpy()[..., :k], rtol=1e-8, atol=1e-8)


@pytest.mark.parametrize("kw", [{"q": 9}, {"q": -1}, {"niter": -1}])
def test_pca_lowrank_errors(kw):
    _raises_like(lambda: torch.pca_lowrank(torch.ones(5, 8), **kw), lambda: pt.pca_lowrank(pt.ones(5, 8), **kw))


def test_svd_lowrank_has_gradients():
    a = torch.tensor(_low_rank((5, 4), 2, 6), requires_grad=True)
    u, s, v = torch.svd_lowrank(a, q=2)
    s.sum().backward()
    assert a.grad is not None and tuple(a.grad.shape) == (5, 4)


# ----------------------------------------------------------------------------- segment_reduce

SEGMENT_REDUCES = ["sum", "mean", "max", "min", "prod"]


@pytest.mark.parametrize("reduce", SEGMENT_REDUCES)
@pytest.mark.parametrize("initial", [None, 10.0])
@pytest.mark.parametrize("use_offsets", [False, True])
def test_segment_reduce_1d(reduce, initial, use_offsets):
    data = np.random.default_rng(0).standard_normal(6)
    lengths = np.array([2, 0, 3, 1])
    kw = {"initial": initial}
    if use_offsets:
        offsets = np.concatenate([[0], np.cumsum(lengths)])
        ours = torch.segment_reduce(torch.tensor(data), reduce, offsets=torch.tensor(offsets), **kw)
        theirs = pt.segment_reduce(pt.tensor(data), reduce, offsets=pt.tensor(offsets), **kw)
    else:
        ours = torch.segment_reduce(torch.tensor(data), reduce, lengths=torch.tensor(lengths), **kw)
        theirs = pt.segment_reduce(pt.tensor(data), reduce, lengths=pt.tensor(lengths), **kw)
    assert_close(ours, theirs, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("reduce", SEGMENT_REDUCES)
def test_segment_reduce_axis_and_trailing_dims(reduce):
    data = np.random.default_rng(1).standard_normal((2, 5, 3)).astype(np.float32)
    lengths = np.array([[1, 4], [3, 2]])
    ours = torch.segment_reduce(torch.tensor(data), reduce, lengths=torch.tensor(lengths), axis=1)
    theirs = pt.segment_reduce(pt.tensor(data), reduce, lengths=pt.tensor(lengths), axis=1)
    assert_close(ours, theirs)
    lengths0 = np.array([3, 0, 2])
    ours = torch.segment_reduce(torch.tensor(data[0]), reduce, lengths=torch.tensor(lengths0), axis=0)
    theirs = pt.segment_reduce(pt.tensor(data[0]), reduce, lengths=pt.tensor(lengths0), axis=0)
    assert_close(ours, theirs)


def test_segment_reduce_unsafe_short_lengths():
    data = np.arange(6.0)
    ours = torch.segment_reduce(torch.tensor(data), "sum", lengths=torch.tensor([2, 0, 3]), unsafe=True)
    theirs = pt.segment_reduce(pt.tensor(data), "sum", lengths=pt.tensor([2, 0, 3]), unsafe=True)
    assert_close(ours, theirs)


@pytest.mark.parametrize(
    "kw",
    [
        {"reduce": "foo", "lengths": [2, 4]},
        {"reduce": "sum", "lengths": [2, 3]},
        {"reduce": "sum", "lengths": [2, -1, 5]},
        {"reduce": "sum", "indices": [0, 0, 1, 1, 1, 1]},
        {"reduce": "sum"},
    ],
)
def test_segment_reduce_errors(kw):
    def call(lib):
        args = {k: (lib.tensor(v) if isinstance(v, list) else v) for k, v in kw.items() if k != "reduce"}
        return lib.segment_reduce(lib.arange(6.0), kw["reduce"], **args)

    _raises_like(lambda: call(torch), lambda: call(pt))


def test_segment_reduce_dtype_errors():
    _raises_like(
        lambda: torch.segment_reduce(torch.arange(6), "sum", lengths=torch.tensor([1, 5])),
        lambda: pt.segment_reduce(pt.arange(6), "sum", lengths=pt.tensor([1, 5])),
    )
    _raises_like(
        lambda: torch.segment_reduce(torch.arange(6.0), "sum", lengths=torch.tensor([2.0, 4.0])),
        lambda: pt.segment_reduce(pt.arange(6.0), "sum", lengths=pt.tensor([2.0, 4.0])),
    )


@pytest.mark.parametrize("reduce", ["sum", "mean", "max", "prod"])
def test_segment_reduce_gradient(reduce):
    data = np.random.default_rng(2).standard_normal(6)
    x = torch.tensor(data, requires_grad=True)
    px = pt.tensor(data, requires_grad=True)
    torch.segment_reduce(x, reduce, lengths=torch.tensor([2, 4])).sum().backward()
    pt.segment_reduce(px, reduce, lengths=pt.tensor([2, 4])).sum().backward()
    assert_close(x.grad, px.grad, rtol=1e-10, atol=1e-10)


# ----------------------------------------------------------------------------- norm variants, empty_permuted, cond


@pytest.mark.parametrize("pow_,dim", [(2, 0), (2, 1), (2, 2), (2, -1), (3, -2), (1, 0)])
def test_norm_except_dim(pow_, dim):
    v = np.random.default_rng(3).standard_normal((2, 3, 4))
    assert_close(torch.norm_except_dim(torch.tensor(v), pow_, dim), pt.norm_except_dim(pt.tensor(v), pow_, dim), rtol=1e-12)


@pytest.mark.parametrize("indices,max_norm,norm_type", [([1, 1, 3], 5.0, 2.0), ([[0, 2]], 3.0, 1.0), ([2, 0], 100.0, 2.0), ([3], 1.0, 3.0)])
def test_embedding_renorm_(indices, max_norm, norm_type):
    w = np.arange(12.0).reshape(4, 3)
    ours, theirs = torch.tensor(w), pt.tensor(w)
    r = torch.embedding_renorm_(ours, torch.tensor(indices), max_norm, norm_type)
    pt.embedding_renorm_(theirs, pt.tensor(indices), max_norm, norm_type)
    assert r is ours
    assert_close(ours, theirs, rtol=1e-12)


def test_embedding_renorm_errors():
    _raises_like(
        lambda: torch.embedding_renorm_(torch.ones(3, 2, requires_grad=True), torch.tensor([0]), 1.0, 2.0),
        lambda: pt.embedding_renorm_(pt.ones(3, 2, requires_grad=True), pt.tensor([0]), 1.0, 2.0),
    )
    _raises_like(
        lambda: torch.embedding_renorm_(torch.ones(3, 2), torch.tensor([0.0]), 1.0, 2.0),
        lambda: pt.embedding_renorm_(pt.ones(3, 2), pt.tensor([0.0]), 1.0, 2.0),
    )
    _raises_like(
        lambda: torch.embedding_renorm_(torch.ones(3, 2), torch.tensor([5]), 1.0, 2.0),
        lambda: pt.embedding_renorm_(pt.ones(3, 2), pt.tensor([5]), 1.0, 2.0),
    )


def test_native_norm_is_sparse_only_as_in_pytorch():
    _raises_like(lambda: torch.native_norm(torch.ones(3)), lambda: pt.native_norm(pt.ones(3)))
    _raises_like(
        lambda: torch.native_norm(torch.ones(3, 2), 3, [1], True, None),
        lambda: pt.native_norm(pt.ones(3, 2), 3, [1], True, None),
    )


@pytest.mark.parametrize("size,layout", [((2, 3, 4), (0, 2, 1)), ((2, 3, 4, 5), (0, 2, 3, 1)), ((3,), (0,)), ((2, 3), (1, 0)), ((), ())])
def test_empty_permuted(size, layout):
    ours = torch.empty_permuted(size, layout, dtype=torch.float64)
    theirs = pt.empty_permuted(size, layout, dtype=pt.float64)
    assert tuple(ours.shape) == tuple(theirs.shape) and ours.stride() == theirs.stride()
    assert ours.dtype == torch.float64


@pytest.mark.parametrize("size,layout", [((2, 3), (0, 0)), ((2, 3), (0,)), ((2, 3, 4), (-1, 0, 1)), ((2, 3), (0, 2))])
def test_empty_permuted_errors(size, layout):
    _raises_like(lambda: torch.empty_permuted(size, layout), lambda: pt.empty_permuted(size, layout))


@pytest.mark.parametrize("pred", [True, False, 1, 0.0])
def test_cond_eager(pred):
    x = np.arange(3.0)
    ours = torch.cond(pred, lambda a: a + 1, lambda a: a - 1, (torch.tensor(x),))
    theirs = pt.cond(pred, lambda a: a + 1, lambda a: a - 1, (pt.tensor(x),))
    assert_close(ours, theirs)
    tp = torch.cond(torch.tensor(bool(pred)), lambda a: a * 2, lambda a: a * 3, [torch.tensor(x)])
    pp = pt.cond(pt.tensor(bool(pred)), lambda a: a * 2, lambda a: a * 3, [pt.tensor(x)])
    assert_close(tp, pp)


def test_cond_errors_and_no_operands():
    assert_close(torch.cond(True, lambda: torch.ones(1), lambda: torch.zeros(1)), pt.cond(True, lambda: pt.ones(1), lambda: pt.zeros(1)))
    _raises_like(
        lambda: torch.cond(torch.tensor([True, False]), lambda a: a, lambda a: a, (torch.ones(2),)),
        lambda: pt.cond(pt.tensor([True, False]), lambda a: a, lambda a: a, (pt.ones(2),)),
    )


# ----------------------------------------------------------------------------- functional RNNs

RNN_KINDS = [("LSTM", "lstm", {}), ("GRU", "gru", {}), ("RNN", "rnn_tanh", {}), ("RNN", "rnn_relu", {"nonlinearity": "relu"})]


@pytest.mark.parametrize("kind,fn,extra", RNN_KINDS)
@pytest.mark.parametrize("bidirectional", [False, True])
@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("has_biases", [True, False])
def test_functional_rnn_matches_pytorch(kind, fn, extra, bidirectional, batch_first, has_biases):
    pt.manual_seed(0)
    m = getattr(pt.nn, kind)(3, 4, num_layers=2, bidirectional=bidirectional, batch_first=batch_first, bias=has_biases, **extra)
    dirs = 2 if bidirectional else 1
    x = pt.randn((2, 5, 3) if batch_first else (5, 2, 3))
    h = pt.randn(2 * dirs, 2, 4)
    hx = (h, pt.randn(2 * dirs, 2, 4)) if kind == "LSTM" else h
    params = [w.detach() for w in m._flat_weights]
    theirs = getattr(pt, fn)(x, hx, params, has_biases, 2, 0.0, False, bidirectional, batch_first)
    fhx = tuple(to_ft(t) for t in hx) if kind == "LSTM" else to_ft(hx)
    ours = getattr(torch, fn)(to_ft(x), fhx, [to_ft(w) for w in params], has_biases, 2, 0.0, False, bidirectional, batch_first)
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        assert_close(a, b, rtol=1e-4, atol=1e-5)


def test_functional_lstm_projection_and_gradients():
    pt.manual_seed(1)
    m = pt.nn.LSTM(3, 5, proj_size=2)
    x = pt.randn(4, 2, 3)
    hx = (pt.randn(1, 2, 2), pt.randn(1, 2, 5))
    params = [w.detach() for w in m._flat_weights]
    theirs = pt.lstm(x, hx, params, True, 1, 0.0, False, False, False)
    fparams = [to_ft(w, requires_grad=True) for w in params]
    ours = torch.lstm(to_ft(x), tuple(to_ft(t) for t in hx), fparams, True, 1, 0.0, False, False, False)
    for a, b in zip(ours, theirs):
        assert_close(a, b, rtol=1e-4, atol=1e-5)
    ours[0].sum().backward()
    pparams = [w.clone().requires_grad_(True) for w in params]
    pt.lstm(x, hx, pparams, True, 1, 0.0, False, False, False)[0].sum().backward()
    for a, b in zip(fparams, pparams):
        assert_close(a.grad, b.grad, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("kind,fn,extra", RNN_KINDS)
def test_functional_rnn_packed_form(kind, fn, extra):
    pt.manual_seed(2)
    m = getattr(pt.nn, kind)(3, 4, **extra)
    seqs = [pt.randn(4, 3), pt.randn(2, 3)]
    packed = pt.nn.utils.rnn.pack_sequence(seqs)
    h = pt.randn(1, 2, 4)
    hx = (h, pt.randn(1, 2, 4)) if kind == "LSTM" else h
    params = [w.detach() for w in m._flat_weights]
    theirs = getattr(pt, fn)(packed.data, packed.batch_sizes, hx, params, True, 1, 0.0, False, False)
    fhx = tuple(to_ft(t) for t in hx) if kind == "LSTM" else to_ft(hx)
    ours = getattr(torch, fn)(to_ft(packed.data), to_ft(packed.batch_sizes), fhx, [to_ft(w) for w in params], True, 1, 0.0, False, False)
    for a, b in zip(ours, theirs):
        assert_close(a, b, rtol=1e-4, atol=1e-5)


# ----------------------------------------------------------------------------- nn.functional helpers


class _Overrider:
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        return ("handled", func.__name__, len(types))


class _Decliner:
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        return NotImplemented


def test_has_torch_function_family():
    for ours_args, theirs_args in [
        ((torch.ones(1), 1), (pt.ones(1), 1)),
        ((torch.nn.Parameter(torch.ones(1)),), (pt.nn.Parameter(pt.ones(1)),)),
        ((_Overrider(),), (_Overrider(),)),
        ((1.0, "a"), (1.0, "a")),
    ]:
        assert F.has_torch_function(ours_args) == pt.nn.functional.has_torch_function(theirs_args)
        assert F.has_torch_function_variadic(*ours_args) == pt.nn.functional.has_torch_function_variadic(*theirs_args)
        assert F.has_torch_function_unary(ours_args[0]) == pt.nn.functional.has_torch_function_unary(theirs_args[0])


def test_handle_torch_function():
    o = _Overrider()
    assert F.handle_torch_function(F.relu, (o,), o, inplace=False) == pt.nn.functional.handle_torch_function(
        pt.nn.functional.relu, (o,), o, inplace=False
    )
    d = _Decliner()
    _raises_like(
        lambda: F.handle_torch_function(F.relu, (d,), d),
        lambda: pt.nn.functional.handle_torch_function(pt.nn.functional.relu, (d,), d),
    )


def test_boolean_dispatch_and_assert_int_or_pair():
    fn = F.boolean_dispatch("flag", 1, False, lambda x, flag=False: ("true", x), lambda x, flag=False: ("false", x), "mod", "pick")
    pfn = pt.nn.functional.boolean_dispatch("flag", 1, False, lambda x, flag=False: ("true", x), lambda x, flag=False: ("false", x), "mod", "pick")
    for args, kwargs in [((1,), {}), ((1, True), {}), ((1,), {"flag": True}), ((1, False), {})]:
        assert fn(*args, **kwargs) == pfn(*args, **kwargs)
    assert fn.__name__ == pfn.__name__ == "pick"
    assert F.assert_int_or_pair(3, "k", "m") is None and F.assert_int_or_pair((1, 2), "k", "m") is None
    _raises_like(
        lambda: F.assert_int_or_pair((1, 2, 3), "kernel", "{} must be int or pair"),
        lambda: pt.nn.functional.assert_int_or_pair((1, 2, 3), "kernel", "{} must be int or pair"),
    )


def test_functional_conv_tbc():
    g = np.random.default_rng(8)
    x, w, b = g.standard_normal((5, 2, 3)), g.standard_normal((3, 3, 4)), g.standard_normal(4)
    ours = F.conv_tbc(torch.tensor(x), torch.tensor(w), torch.tensor(b), 1)
    theirs = pt.nn.functional.conv_tbc(pt.tensor(x), pt.tensor(w), pt.tensor(b), 1)
    assert_close(ours, theirs, rtol=1e-10, atol=1e-10)


def test_to_pt_roundtrip_helper_used():
    # keeps the oracle helpers in use for the storage-backed tensors
    t = torch.frombuffer(bytearray(np.arange(3, dtype=np.float32).tobytes()), dtype=torch.float32)
    assert_close(t, to_pt(t))


# ----------------------------------------------------------------------------- while_loop, sym_*, fork/wait, resize


def test_while_loop_matches_pytorch():
    ours = torch.while_loop(lambda i, x: i < 3, lambda i, x: (i + 1, x * 2), (torch.tensor(0), torch.ones(2)))
    theirs = pt.while_loop(lambda i, x: i < 3, lambda i, x: (i + 1, x * 2), (pt.tensor(0), pt.ones(2)))
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        assert_close(a, b)
    ours = torch.while_loop(lambda i: i < 5, lambda i: (i + 2,), [torch.tensor(0)])
    theirs = pt.while_loop(lambda i: i < 5, lambda i: (i + 2,), [pt.tensor(0)])
    assert_close(ours[0], theirs[0])


@pytest.mark.parametrize(
    "name,args",
    [
        ("sym_int", (3.7,)),
        ("sym_int", (-3.7,)),
        ("sym_int", (True,)),
        ("sym_float", (3,)),
        ("sym_max", (2, 3.0)),
        ("sym_max", (True, 2)),
        ("sym_min", (2, 3)),
        ("sym_min", (1.5, 2)),
        ("sym_not", (True,)),
        ("sym_sqrt", (4,)),
        ("sym_sum", ([1, 2, 3],)),
        ("sym_sum", ([],)),
        ("sym_sum", ((1.5, 2),)),
        ("sym_ite", (True, 1, 2)),
        ("sym_ite", (False, 1, 2)),
    ],
)
def test_sym_helpers(name, args):
    ours, theirs = getattr(torch, name)(*args), getattr(pt, name)(*args)
    assert ours == theirs and type(ours) is type(theirs)


def test_sym_max_refuses_tensors():
    _raises_like(lambda: torch.sym_max(torch.tensor(2), 3), lambda: pt.sym_max(pt.tensor(2), 3))


def test_fork_wait():
    assert torch.wait(torch.fork(lambda a, b=1: a + b, 2, b=5)) == pt.wait(pt.fork(lambda a, b=1: a + b, 2, b=5))

    def boom():
        raise ValueError("x")

    _raises_like(lambda: torch.fork(boom), lambda: pt.fork(boom))
    _raises_like(lambda: torch.wait(3), lambda: pt.wait(3))


@pytest.mark.parametrize("sizes", [(2, 3), ((3, 2),), (6,), (2, 4)])
def test_deprecated_out_of_place_resize(sizes):
    def run(lib):
        x = lib.arange(6.0, requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            y = x.resize(*sizes)
        (y * lib.arange(6.0).reshape(y.shape)).sum().backward()
        return y, x.grad

    if sizes in ((2, 4), ((3, 2),)):
        _raises_like(lambda: run(torch), lambda: run(pt))
        return
    (y, g), (py, pg) = run(torch), run(pt)
    assert_close(y, py)
    assert_close(g, pg)
    with pytest.warns(UserWarning, match="non-inplace resize_as is deprecated"):
        r = torch.arange(6.0).resize_as(torch.ones(3, 2))
    assert tuple(r.shape) == (3, 2)
