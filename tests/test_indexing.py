"""Indexing against NumPy: basic (views) and advanced (copies), assignment, gradients, and the
index-driven ops (gather/scatter, where, cat/stack, repeat, roll, pad, einsum ...)."""

import numpy as np
import pytest

import ferrotorch as torch
from conftest import to_np

A = np.arange(2 * 3 * 4 * 5).reshape(2, 3, 4, 5)

KEYS = [
    1, -1, (0, 1), (1, -2, 3), slice(None), slice(1, None), slice(None, None, 2), (slice(None), 1),
    (Ellipsis, 2), (0, Ellipsis, 1), (None, 0), (slice(None), None, 1), (1, slice(0, 3, 2), None, slice(1, 4)),
    ([0, 1],), ([1, 0, 1],), (slice(None), [2, 0]), (0, [0, 2], [1, 3]), (slice(None), [0, 2], [1, 3]),
    (slice(None), [0, 2], slice(None), [1, 3]), ([0, 1], slice(None), [1, 2]), ([[0], [1]], [[0, 1, 2]]),
    (Ellipsis, [4, 0]), (slice(10, 20),), (slice(-100, 100),), (slice(2, 1),), (True,), (False,), (1, None, Ellipsis, None),
    ([1, -1],), (slice(None), slice(None), [1, 1, 1]),
]


@pytest.mark.parametrize("key", KEYS, ids=[repr(k) for k in KEYS])
def test_getitem_matches_numpy(key):
    t = torch.tensor(A.tolist())
    np.testing.assert_array_equal(to_np(t[key]), A[key])


@pytest.mark.parametrize("layout", ["contiguous", "transposed", "sliced"])
def test_getitem_on_strided_inputs(layout):
    base = A.astype(np.float64)
    t = torch.tensor(base.tolist(), dtype=torch.float64)
    if layout == "transposed":
        t, base = t.transpose(1, 3), base.transpose(0, 3, 2, 1)
    elif layout == "sliced":
        t, base = t[:, ::2, 1:], base[:, ::2, 1:]
    for key in [(0, 1), (slice(None), [0, 1]), (Ellipsis, 0), (..., [1, 0], slice(None))]:
        np.testing.assert_array_equal(to_np(t[key]), base[key])


def test_bool_mask_indexing():
    t = torch.tensor(A.tolist())
    m = A % 3 == 0
    np.testing.assert_array_equal(to_np(t[torch.tensor(m.tolist())]), A[m])
    m2 = A[0, :, :, 0] > 20
    np.testing.assert_array_equal(to_np(t[0, torch.tensor(m2.tolist())]), A[0, m2])
    assert t[torch.tensor(True)].shape == (1, 2, 3, 4, 5)


def test_basic_indexing_returns_views_that_share_storage():
    t = torch.zeros(3, 4)
    v = t[1, 1:3]
    v += 5
    assert t.tolist()[1] == [0.0, 5.0, 5.0, 0.0]
    assert t[:, 1].data_ptr() == t.data_ptr() + 4


def test_advanced_indexing_copies():
    t = torch.zeros(3, 4)
    c = t[[0, 1]]
    c += 1
    assert t.sum().item() == 0


SET_CASES = [
    ((0,), 7), ((slice(None), 1), [1, 2, 3]), ((Ellipsis, 0), 9), (([0, 2], [1, 3]), [10, 20]),
    ((slice(1, None), [0, 2]), 4), ((np.array([True, False, True]),), 5), ((slice(None, None, 2), slice(None, None, 3)), -1),
]


@pytest.mark.parametrize("key,value", SET_CASES, ids=[repr(k) for k, _ in SET_CASES])
def test_setitem_matches_numpy(key, value):
    ref = np.arange(12.0).reshape(3, 4)
    t = torch.tensor(ref.tolist(), dtype=torch.float64)
    tk = tuple(torch.tensor(k.tolist()) if isinstance(k, np.ndarray) else k for k in key)
    t[tk] = torch.tensor(value, dtype=torch.float64) if isinstance(value, list) else value
    ref[key] = value
    np.testing.assert_array_equal(to_np(t), ref)


def test_setitem_with_mask_and_tensor_value_casts_dtype():
    t = torch.arange(6)
    t[t > 2] = torch.tensor(1.7)
    assert t.tolist() == [0, 1, 2, 1, 1, 1]


def test_setitem_bumps_version_and_errors():
    t = torch.zeros(3)
    v = t._version
    t[0] = 1
    assert t._version == v + 1
    with pytest.raises(IndexError, match="index 5 is out of bounds for dimension 0 with size 3"):
        t[5] = 1
    with pytest.raises(RuntimeError, match="shape mismatch: value tensor of shape \\[2\\] cannot be broadcast to indexing result of shape \\[3\\]"):
        t[:] = torch.ones(2)


@pytest.mark.parametrize(
    "fn,exc,pattern",
    [
        (lambda t: t[3], IndexError, r"index 3 is out of bounds for dimension 0 with size 2"),
        (lambda t: t[0, 0, 0, 0, 0], IndexError, r"too many indices for tensor of dimension 4"),
        (lambda t: t[..., ...], IndexError, r"single ellipsis"),
        (lambda t: t[::-1], ValueError, r"step must be greater than zero"),
        (lambda t: t[[0, 5]], IndexError, r"index 5 is out of bounds for dimension 0 with size 2"),
        (lambda t: t[torch.tensor([1.0])], IndexError, r"tensors used as indices must be long, int, byte or bool"),
        (lambda t: t[[0, 1], [0, 1, 2]], IndexError, r"shape mismatch: indexing tensors could not be broadcast together"),
        (lambda t: t[torch.ones(3, dtype=torch.bool)], IndexError, r"The shape of the mask \[3\] at index 0 does not match"),
        (lambda t: t["a"], IndexError, r"only integers, slices"),
        (lambda t: torch.tensor(1)[0], IndexError, r"invalid index of a 0-dim tensor"),
    ],
)
def test_getitem_errors(fn, exc, pattern):
    with pytest.raises(exc, match=pattern):
        fn(torch.tensor(A.tolist()))


def t64(a, rg=True):
    return torch.tensor(np.asarray(a, dtype=np.float64).tolist(), dtype=torch.float64, requires_grad=rg)


def test_getitem_gradcheck_basic_and_advanced():
    x = t64(np.random.default_rng(0).standard_normal((3, 4)))
    for key in [(1,), (slice(None), slice(1, 3)), ([0, 2, 0],), (slice(None), [1, 1, 3]), ([0, 2], [1, 3])]:
        assert torch.autograd.gradcheck(lambda t, k=key: t[k], (x,))
    assert torch.autograd.gradgradcheck(lambda t: t[[0, 2, 0]] * t[[1, 1, 2]], (x,))


def test_setitem_on_nonleaf_gradient():
    x = t64([1.0, 2.0, 3.0])
    v = t64([10.0])
    y = x * 2
    y[1] = v * 3
    y.sum().backward()
    assert x.grad.tolist() == [2.0, 0.0, 2.0]
    assert v.grad.tolist() == [3.0]
    w = t64([1.0, 2.0])
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        w[0] = 5.0


def test_index_put_accumulate():
    t = torch.zeros(3)
    t.index_put_((torch.tensor([0, 0, 2]),), torch.tensor([1.0, 2.0, 3.0]), accumulate=True)
    assert t.tolist() == [3.0, 0.0, 3.0]


def test_gather_scatter_match_numpy():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((3, 4))
    idx = rng.integers(0, 4, (3, 2))
    g = torch.tensor(x.tolist()).gather(1, torch.tensor(idx.tolist()))
    np.testing.assert_allclose(to_np(g), np.take_along_axis(x, idx, 1), rtol=1e-6)
    out = torch.zeros(3, 4).scatter_add(1, torch.tensor(idx.tolist()), torch.ones(3, 2))
    ref = np.zeros((3, 4))
    for i in range(3):
        for j in range(2):
            ref[i, idx[i, j]] += 1
    np.testing.assert_array_equal(to_np(out), ref)
    s = torch.zeros(2, 3).scatter(1, torch.tensor([[2], [0]]), 5.0)
    assert s.tolist() == [[0, 0, 5], [5, 0, 0]]
    xs = t64(x)
    assert torch.autograd.gradcheck(lambda t: t.gather(1, torch.tensor(idx.tolist())), (xs,))
    assert torch.autograd.gradgradcheck(lambda t: t.gather(1, torch.tensor(idx.tolist())) ** 2, (xs,))
    src = t64(rng.standard_normal((3, 2)))
    assert torch.autograd.gradcheck(lambda a, b: a.scatter_add(1, torch.tensor(idx.tolist()), b), (xs, src))


def test_index_select_index_add_masked_fill():
    x = torch.arange(12.0).reshape(3, 4)
    assert x.index_select(1, torch.tensor([3, 0])).tolist() == [[3, 0], [7, 4], [11, 8]]
    y = torch.zeros(3, 2).index_add(0, torch.tensor([0, 0, 2]), torch.ones(3, 2))
    assert y.tolist() == [[2, 2], [0, 0], [1, 1]]
    m = x.masked_fill(x > 8, -1.0)
    assert m.tolist()[2] == [8, -1, -1, -1] and m.tolist()[1] == [4, 5, 6, 7]
    assert torch.masked_select(x, x < 2).tolist() == [0.0, 1.0]
    with pytest.raises(RuntimeError, match="masked_fill_ only supports boolean masks"):
        x.masked_fill(torch.tensor([1]), 0.0)


def test_where_cat_stack():
    c = torch.tensor([True, False, True])
    assert torch.where(c, torch.tensor([1.0, 2.0, 3.0]), 0.0).tolist() == [1.0, 0.0, 3.0]
    assert torch.where(c, 1, 0).tolist() == [1, 0, 1]
    (nz,) = torch.where(c)
    assert nz.tolist() == [0, 2]
    a, b = torch.ones(2, 3), torch.zeros(1, 3)
    assert torch.cat([a, b]).shape == (3, 3) and torch.cat([a, a], dim=1).shape == (2, 6)
    assert torch.cat([a, torch.tensor([])]).shape == (2, 3)
    assert torch.stack([a, a], dim=1).shape == (2, 2, 3)
    assert torch.cat([torch.tensor([1]), torch.tensor([1.5])]).dtype == torch.float32
    with pytest.raises(RuntimeError, match="Sizes of tensors must match except in dimension 0"):
        torch.cat([a, torch.ones(1, 2)])
    with pytest.raises(RuntimeError, match="stack expects each tensor to be equal size"):
        torch.stack([a, b])
    xa, xb = t64(np.ones((2, 2))), t64(np.ones((1, 2)))
    assert torch.autograd.gradcheck(lambda p, q: torch.cat([p, q * 2]), (xa, xb))


def test_repeat_roll_tril_pad_meshgrid():
    x = np.arange(6).reshape(2, 3)
    t = torch.tensor(x.tolist())
    np.testing.assert_array_equal(to_np(t.repeat(2, 1, 2)), np.tile(x, (2, 1, 2)))
    np.testing.assert_array_equal(to_np(t.repeat_interleave(2, dim=1)), np.repeat(x, 2, axis=1))
    np.testing.assert_array_equal(to_np(torch.repeat_interleave(t, torch.tensor([1, 2]), dim=0)), np.repeat(x, [1, 2], axis=0))
    np.testing.assert_array_equal(to_np(torch.roll(t, 1, 1)), np.roll(x, 1, 1))
    np.testing.assert_array_equal(to_np(torch.roll(t, -2)), np.roll(x, -2))
    np.testing.assert_array_equal(to_np(torch.tril(t)), np.tril(x))
    np.testing.assert_array_equal(to_np(torch.triu(t, 1)), np.triu(x, 1))
    np.testing.assert_array_equal(to_np(torch._pad(t, (1, 2))), np.pad(x, ((0, 0), (1, 2))))
    np.testing.assert_array_equal(to_np(torch._pad(t, (0, 0, 1, -1), value=7)), np.pad(x, ((1, 0), (0, 0)), constant_values=7)[:-1])
    gx, gy = torch.meshgrid(torch.arange(2), torch.arange(3), indexing="ij")
    nx, ny = np.meshgrid(np.arange(2), np.arange(3), indexing="ij")
    np.testing.assert_array_equal(to_np(gx), nx)
    np.testing.assert_array_equal(to_np(gy), ny)
    assert torch.meshgrid(torch.arange(2), torch.arange(3), indexing="xy")[0].shape == (3, 2)
    xt = t64(np.arange(6.0).reshape(2, 3))
    assert torch.autograd.gradcheck(lambda a: torch._pad(a.repeat(2, 1), (1, 1)), (xt,))


@pytest.mark.parametrize(
    "eq,shapes",
    [("ij,jk->ik", [(2, 3), (3, 4)]), ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]), ("bhqd,bhkd->bhqk", [(1, 2, 3, 4), (1, 2, 5, 4)]),
     ("ii->i", [(3, 3)]), ("ij->ji", [(2, 3)]), ("i,i->", [(4,), (4,)]), ("i,j->ij", [(2,), (3,)]),
     ("...ij,...jk->...ik", [(2, 2, 3), (2, 3, 4)]), ("ij,ij->i", [(2, 3), (2, 3)]), ("ij", [(2, 3)]), ("ji", [(2, 3)]), ("ij,jk", [(2, 3), (3, 2)])],
)
def test_einsum_matches_numpy(eq, shapes):
    rng = np.random.default_rng(2)
    arrs = [rng.standard_normal(s) for s in shapes]
    got = torch.einsum(eq, *[torch.tensor(a.tolist(), dtype=torch.float64) for a in arrs])
    np.testing.assert_allclose(to_np(got), np.einsum(eq, *arrs), rtol=1e-10, atol=1e-12)


def test_einsum_gradcheck():
    a, b = t64(np.ones((2, 3)) * 0.5), t64(np.arange(12.0).reshape(3, 4) / 10)
    assert torch.autograd.gradcheck(lambda p, q: torch.einsum("ij,jk->ik", p, q), (a, b))


def test_scatter_with_scalar_value_backward():
    x = torch.arange(6.0).reshape(2, 3).requires_grad_()
    (x * 1).scatter(1, torch.tensor([[0], [2]]), 5.0).sum().backward()
    assert x.grad.tolist() == [[0.0, 1.0, 1.0], [1.0, 1.0, 0.0]]
