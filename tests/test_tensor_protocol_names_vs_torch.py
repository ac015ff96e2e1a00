"""Tensor-protocol names against PyTorch: storage resizing (resize_, resize_as_, set_,
is_set_to), device queries, per-element callables (apply_, map_, map2_) and function aliases
(adjoint, broadcast_to, index_put, empty_strided, *_copy views, as_strided_scatter,
nonzero_static, vander, to_dlpack, const_data_ptr, Tensor.new)."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest

import ferrotorch as torch
from torch_oracle import assert_close, needs_torch, pt, to_ft

pytestmark = needs_torch

DTYPES = ["float32", "float64", "int64", "bool"]


def _base(dtype: str, n: int = 12) -> Any:
    """A PyTorch tensor of n distinct-ish values of the dtype."""
    t = pt.arange(n, dtype=pt.float64) * 1.5 - 4
    return (t % 2 == 0) if dtype == "bool" else t.to(getattr(pt, dtype))


def _pair(make: Callable[[Any], Any], dtype: str) -> Any:
    """The same layout built on both sides: ``make`` is applied to a fresh base tensor each."""
    base_pt = _base(dtype)
    ours = to_ft(base_pt.clone())  # .numpy() would make base_pt's storage non-resizable
    return make(base_pt), make(ours)


def _raises_same(ours: Callable[[], Any], theirs: Callable[[], Any]) -> None:
    try:
        theirs()
    except Exception as e:  # noqa: BLE001 - we compare the class
        cls = type(e)
    else:
        raise AssertionError("PyTorch did not raise")
    with pytest.raises(cls):
        ours()


# ---------------------------------------------------------------- resize_ / resize_as_ / set_

LAYOUTS = {
    "contiguous": lambda t: t.reshape(3, 4),
    "transposed": lambda t: t.reshape(3, 4).t(),
    "sliced": lambda t: t[2:8],
    "strided": lambda t: t[1::3],
    "zero-d": lambda t: t[5].reshape(()),
    "empty": lambda t: t[:0],
}
NEW_SIZES = [(12,), (2, 2), (20,), (4, 3), (0,), (), (2, 0, 3), (5, 5)]


@pytest.mark.parametrize("layout", list(LAYOUTS))
@pytest.mark.parametrize("size", NEW_SIZES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_resize_matches_torch(layout: str, size: tuple, dtype: str) -> None:
    theirs, ours = _pair(LAYOUTS[layout], dtype)
    storage = theirs.untyped_storage().nbytes() // theirs.element_size()
    offset = theirs.storage_offset()
    v0 = ours._version
    same = ours.resize_(*size) if size else ours.resize_(())
    theirs.resize_(*size) if size else theirs.resize_(())
    assert same is ours
    assert ours._version > v0
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert tuple(ours.stride()) == tuple(theirs.stride())
    assert ours.storage_offset() == theirs.storage_offset()
    # Elements past the old storage are uninitialised in PyTorch: compare the defined prefix.
    n = max(0, min(int(np.prod(size)), storage - offset))
    defined = pt.zeros(theirs.numel(), dtype=pt.bool)
    defined[:n] = True
    if theirs.is_contiguous():
        assert_close(ours.reshape(-1)[:n], theirs.reshape(-1)[:n], what=f"resize_ {layout} -> {size}")
    else:  # same shape as before: PyTorch keeps the strides and the values
        assert_close(ours, theirs, what=f"resize_ {layout} -> {size}")


def test_resize_shares_memory_when_shrinking_and_keeps_list_sizes() -> None:
    a = torch.arange(6.0)
    view = a[:]
    a.resize_([2, 2])
    a[0, 0] = 7.0
    assert view[0].item() == 7.0
    assert tuple(a.shape) == (2, 2)
    b = torch.zeros(2)
    assert b.resize_as_(torch.ones(3, 2, dtype=torch.int64)) is b
    assert tuple(b.shape) == (3, 2) and b.dtype == torch.float32
    assert_close(b.reshape(-1)[:2], pt.zeros(2))


@pytest.mark.parametrize(
    "call",
    [
        lambda m: m.ones(2, requires_grad=True).resize_(3),
        lambda m: m.ones(2, requires_grad=True).resize_(2),
        lambda m: m.ones(2).resize_(-1),
        lambda m: m.ones(2, requires_grad=True).resize_as_(m.ones(3)),
    ],
)
def test_resize_errors(call: Callable[[Any], Any]) -> None:
    _raises_same(lambda: call(torch), lambda: call(pt))


SOURCES = {
    "contiguous": lambda t: t.reshape(3, 4),
    "transposed": lambda t: t.reshape(3, 4).t(),
    "sliced": lambda t: t[3:9:2],
    "zero-d": lambda t: t[4].reshape(()),
}


@pytest.mark.parametrize("src", list(SOURCES))
@pytest.mark.parametrize("dtype", DTYPES)
def test_set_source_shares_memory(src: str, dtype: str) -> None:
    theirs_src, ours_src = _pair(SOURCES[src], dtype)
    ours = torch.zeros(5, 7, dtype=ours_src.dtype)
    theirs = pt.zeros(5, 7, dtype=theirs_src.dtype)
    v0 = ours._version
    assert ours.set_(ours_src) is ours
    theirs.set_(theirs_src)
    assert ours._version > v0
    assert_close(ours, theirs)
    assert tuple(ours.stride()) == tuple(theirs.stride())
    assert ours.storage_offset() == theirs.storage_offset()
    assert ours.data_ptr() == ours_src.data_ptr()
    assert ours.is_set_to(ours_src) and ours_src.is_set_to(ours)
    assert theirs.is_set_to(theirs_src)
    # Writes through one show in the other.
    ours.fill_(1)
    assert_close(ours_src, pt.ones_like(theirs_src))


@pytest.mark.parametrize(
    "args",
    [(1, (2,), (1,)), (0, (2, 3), None), (2, (3, 2), (1, 3)), (5, (0,), None), (4, (), None), (0, (2, 2), (0, 1))],
)
def test_set_storage_view(args: tuple) -> None:
    theirs_src, ours_src = _pair(lambda t: t, "float32")
    off, size, stride = args
    theirs = pt.empty(1).set_(theirs_src, off, size, *(() if stride is None else (stride,)))
    ours = torch.empty(1)
    assert ours.set_(ours_src, off, size, *(() if stride is None else (stride,))) is ours
    assert_close(ours, theirs)
    assert tuple(ours.stride()) == tuple(theirs.stride())
    assert ours.storage_offset() == theirs.storage_offset()


def test_set_empty() -> None:
    ours, theirs = torch.arange(4, dtype=torch.int64), pt.arange(4)
    assert ours.set_() is ours
    theirs.set_()
    assert_close(ours, theirs)


@pytest.mark.parametrize(
    "call",
    [
        lambda m: m.zeros(2).set_(m.zeros(2, dtype=m.int64)),
        lambda m: m.zeros(2, requires_grad=True).set_(m.zeros(2)),
        lambda m: m.zeros(2).set_(m.arange(4.0), 1),
        lambda m: m.zeros(2).set_(m.arange(4.0), 3, (2,)),
        lambda m: m.zeros(2).set_(m.arange(4.0), 0, (2, 2), (1,)),
    ],
)
def test_set_errors(call: Callable[[Any], Any]) -> None:
    _raises_same(lambda: call(torch), lambda: call(pt))


IS_SET_TO = {
    "self": lambda a: (a, a),
    "view same layout": lambda a: (a, a.view(12)),
    "reshaped": lambda a: (a, a.view(3, 4)),
    "offset": lambda a: (a[1:], a),
    "same slice twice": lambda a: (a[2:5], a[2:5]),
    "transposed": lambda a: (a.view(3, 4).t(), a.view(4, 3)),
    "other tensor": lambda a: (a, a.clone()),
    "empty": lambda a: (a[:0].clone(), a[:0].clone()),
}


@pytest.mark.parametrize("case", list(IS_SET_TO))
def test_is_set_to(case: str) -> None:
    a_pt = pt.arange(12.0)
    a_ft = to_ft(a_pt)
    x, y = IS_SET_TO[case](a_ft)
    xp, yp = IS_SET_TO[case](a_pt)
    assert x.is_set_to(y) == xp.is_set_to(yp)
    assert y.is_set_to(x) == yp.is_set_to(xp)


# ---------------------------------------------------------------- device queries

FLAGS = ["is_mps", "is_xla", "is_xpu", "is_ipu", "is_maia", "is_mtia", "is_vulkan", "is_mkldnn", "is_nested",
         "is_sparse_csr"]


@pytest.mark.parametrize("name", FLAGS)
def test_backend_flags_are_properties(name: str) -> None:
    ours, theirs = getattr(torch.ones(2), name), getattr(pt.ones(2), name)
    assert ours is theirs is False


def test_device_queries() -> None:
    x, xp = torch.ones(2, 3).t(), pt.ones(2, 3).t()
    assert x.is_distributed() == xp.is_distributed()
    assert x.is_pinned() == xp.is_pinned()
    assert torch.get_device(x) == pt.get_device(xp) == x.get_device()
    assert torch.is_vulkan_available() == pt.is_vulkan_available()
    assert torch.compiled_with_cxx11_abi() == pt.compiled_with_cxx11_abi()
    assert str(torch.get_default_device()) == str(pt.get_default_device())
    for dev in ("cpu", None, torch.device("cpu")):
        assert torch.set_default_device(dev) is None
    assert str(torch.get_default_device()) == "cpu"


def test_pin_memory_without_accelerator_raises() -> None:
    if pt.cuda.is_available():
        pytest.skip("PyTorch sees an accelerator here")
    _raises_same(lambda: torch.ones(2).pin_memory(), lambda: pt.ones(2).pin_memory())


# ---------------------------------------------------------------- apply_ / map_ / map2_

CALLABLE_LAYOUTS = {
    "contiguous": lambda t: t.reshape(3, 4),
    "transposed": lambda t: t.reshape(3, 4).t(),
    "sliced": lambda t: t[1:10:3],
    "zero-d": lambda t: t[3].reshape(()),
    "empty": lambda t: t[:0],
}
FUNCS1 = {"double": lambda v: v * 2, "halve": lambda v: v / 2, "neg": lambda v: -v, "const": lambda v: 3}


@pytest.mark.parametrize("layout", list(CALLABLE_LAYOUTS))
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
@pytest.mark.parametrize("fn", list(FUNCS1))
def test_apply_matches_torch(layout: str, dtype: str, fn: str) -> None:
    theirs, ours = _pair(CALLABLE_LAYOUTS[layout], dtype)
    assert ours.apply_(FUNCS1[fn]) is ours
    theirs.apply_(FUNCS1[fn])
    assert_close(ours, theirs)


def test_apply_bool_sees_python_bools() -> None:
    seen: list = []
    ours = torch.tensor([True, False, True])
    ours.apply_(lambda v: (seen.append(type(v)), not v)[1])
    assert seen == [bool] * 3
    assert_close(ours, pt.tensor([False, True, False]))


@pytest.mark.parametrize("layout", ["contiguous", "transposed", "zero-d"])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
def test_map_and_map2_match_torch(layout: str, dtype: str) -> None:
    theirs, ours = _pair(CALLABLE_LAYOUTS[layout], dtype)
    other_pt = _base(dtype, 4) if theirs.dim() == 2 and theirs.shape[-1] == 4 else _base(dtype, 1).reshape(())
    if theirs.dim() == 2 and theirs.shape[-1] == 3:
        other_pt = _base(dtype, 3)
    t2 = theirs.clone()
    o2 = to_ft(t2)
    assert ours.map_(to_ft(other_pt), lambda a, b: a * 2 - b) is ours
    theirs.map_(other_pt, lambda a, b: a * 2 - b)
    assert_close(ours, theirs)
    y_pt = _base(dtype, 1).reshape(()) if theirs.dim() == 0 else _base(dtype, 1)
    assert o2.map2_(to_ft(other_pt), to_ft(y_pt), lambda a, b, c: a + b * c) is o2
    t2.map2_(other_pt, y_pt, lambda a, b, c: a + b * c)
    assert_close(o2, t2)


@pytest.mark.parametrize(
    "call",
    [
        lambda m: m.arange(4.0).apply_(lambda v: "a"),
        lambda m: m.arange(4.0).apply_(5),
        lambda m: m.arange(4.0, requires_grad=True).apply_(lambda v: v),
        lambda m: m.arange(3.0).map_(m.arange(3), lambda u, v: u),
        lambda m: m.arange(3).map_(m.arange(3.0), lambda u, v: u),
        lambda m: m.arange(3.0, requires_grad=True).map_(m.ones(3), lambda u, v: u),
        lambda m: m.arange(3.0).map_(m.ones(3, requires_grad=True), lambda u, v: u),
        lambda m: m.arange(3.0).map_(m.ones(2), lambda u, v: u),
        lambda m: m.ones(3).map_(m.ones(2, 3), lambda u, v: u),
        lambda m: m.arange(3.0).map_(m.ones(3), lambda u: u),
        lambda m: m.arange(3.0).map2_(m.ones(3, dtype=m.int64), m.ones(3), lambda u, v, w: u),
        lambda m: m.arange(3.0).map2_(m.ones(3), m.ones(3, dtype=m.int64), lambda u, v, w: u),
    ],
)
def test_callable_errors(call: Callable[[Any], Any]) -> None:
    _raises_same(lambda: call(torch), lambda: call(pt))


# ---------------------------------------------------------------- function aliases

ALIASES = {
    "adjoint": (lambda m, x: m.adjoint(x), lambda t: t.reshape(3, 4)),
    "adjoint batched": (lambda m, x: m.adjoint(x), lambda t: t.reshape(2, 3, 2)),
    "broadcast_to": (lambda m, x: m.broadcast_to(x, (2, 3, 4)), lambda t: t.reshape(3, 4)),
    "broadcast_to -1": (lambda m, x: m.broadcast_to(x, (5, -1)), lambda t: t[:4]),
    "index_put": (lambda m, x: m.index_put(x, (m.tensor([0, 2]),), m.tensor(1).to(x.dtype)), lambda t: t[:6]),
    "index_put acc": (
        lambda m, x: m.index_put(x, (m.tensor([0, 0, 1]), m.tensor([1, 1, 2])), m.ones(3).to(x.dtype), True),
        lambda t: t.reshape(3, 4),
    ),
    "unfold_copy": (lambda m, x: m.unfold_copy(x, 1, 2, 1), lambda t: t.reshape(3, 4)),
    "unfold_copy transposed": (lambda m, x: m.unfold_copy(x, 0, 3, 2), lambda t: t.reshape(3, 4).t()),
    "as_strided_copy": (lambda m, x: m.as_strided_copy(x, (2, 2), (1, 2), 1), lambda t: t),
    "as_strided_copy default offset": (lambda m, x: m.as_strided_copy(x, (2, 3), (3, 1)), lambda t: t[2:]),
    "as_strided_scatter": (
        lambda m, x: m.as_strided_scatter(x, m.ones(2, 2).to(x.dtype), (2, 2), (1, 2), 1),
        lambda t: t.reshape(3, 4),
    ),
    "as_strided_scatter transposed": (
        lambda m, x: m.as_strided_scatter(x, m.zeros(2, 2).to(x.dtype), (2, 2), (1, 2), 1),
        lambda t: t.reshape(3, 4).t(),
    ),
    "as_strided_scatter sliced": (
        lambda m, x: x.as_strided_scatter(m.ones(2, 2).to(x.dtype), (2, 2), (1, 2)),
        lambda t: t.reshape(3, 4)[:, 1:],
    ),
    "nonzero_static pad": (lambda m, x: m.nonzero_static(x, size=20), lambda t: t.reshape(3, 4)),
    "nonzero_static cut": (lambda m, x: x.nonzero_static(size=2, fill_value=7), lambda t: t.reshape(3, 4).t()),
    "nonzero_static 0-d": (lambda m, x: m.nonzero_static(x, size=2), lambda t: t[3].reshape(())),
    "nonzero_static zero": (lambda m, x: m.nonzero_static(x, size=0), lambda t: t[:5]),
    "vander": (lambda m, x: m.vander(x), lambda t: t[:4]),
    "vander N increasing": (lambda m, x: m.vander(x, 6, True), lambda t: t[::3]),
    "vander N=0": (lambda m, x: m.vander(x, N=0), lambda t: t[:3]),
    "vander N=1": (lambda m, x: m.vander(x, N=1), lambda t: t[:3]),
    "vander empty": (lambda m, x: m.vander(x), lambda t: t[:0]),
}


@pytest.mark.parametrize("case", list(ALIASES))
@pytest.mark.parametrize("dtype", DTYPES)
def test_aliases_match_torch(case: str, dtype: str) -> None:
    fn, make = ALIASES[case]
    theirs_in, ours_in = _pair(make, dtype)
    try:
        expected = fn(pt, theirs_in)
    except Exception as e:  # noqa: BLE001 - compare the error class instead
        with pytest.raises(type(e)):
            fn(torch, ours_in)
        return
    assert_close(fn(torch, ours_in), expected, what=case)
    assert_close(ours_in, theirs_in, what=f"{case}: input untouched")


def test_index_put_inplace_returns_input() -> None:
    ours, theirs = torch.zeros(4), pt.zeros(4)
    v0 = ours._version
    assert torch.index_put_(ours, (torch.tensor([1, 1]),), torch.tensor([2.0, 3.0]), accumulate=True) is ours
    pt.index_put_(theirs, (pt.tensor([1, 1]),), pt.tensor([2.0, 3.0]), accumulate=True)
    assert ours._version > v0
    assert_close(ours, theirs)


@pytest.mark.parametrize("dtype", ["float64", "int64", "uint8", "int8", "int32"])
def test_vander_dtypes(dtype: str) -> None:
    theirs = pt.tensor([3, 0, 2, 1]).to(getattr(pt, dtype))
    assert_close(torch.vander(to_ft(theirs), 5), pt.vander(theirs, 5))


@pytest.mark.parametrize("increasing", [False, True])
def test_vander_grad(increasing: bool) -> None:
    theirs = pt.tensor([0.0, 2.0, -1.5, 0.5], dtype=pt.float64, requires_grad=True)
    ours = to_ft(theirs)
    w = pt.randn(4, 5, dtype=pt.float64)
    # PyTorch 2.15's own vander backward raises (an in-place cumprod on a saved view), so the
    # reference gradient comes from the same matrix written with pow.
    powers = theirs.unsqueeze(1) ** pt.arange(5, dtype=pt.float64)
    assert_close(torch.vander(ours, 5, increasing), pt.vander(theirs.detach(), 5, increasing))
    ((powers if increasing else powers.flip(1)) * w).sum().backward()
    (torch.vander(ours, 5, increasing) * to_ft(w)).sum().backward()
    assert_close(ours.grad, theirs.grad)
    x = torch.tensor([0.3, -1.2, 2.0], dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(lambda t: torch.vander(t, 4, increasing), (x,))


@pytest.mark.parametrize("layout", ["contiguous", "offset"])
def test_as_strided_scatter_grad(layout: str) -> None:
    # PyTorch refuses inputs that need grad unless they are contiguous (test_alias_errors).
    make = {"contiguous": lambda t: t.reshape(3, 4), "offset": lambda t: t[2:].reshape(2, 5)}[layout]
    base_pt = pt.arange(12.0, dtype=pt.float64).requires_grad_()
    src_pt = pt.randn(2, 2, dtype=pt.float64, requires_grad=True)
    base_ft, src_ft = to_ft(base_pt), to_ft(src_pt)
    out_pt = pt.as_strided_scatter(make(base_pt), src_pt, (2, 2), (1, 3), 1)
    out_ft = torch.as_strided_scatter(make(base_ft), src_ft, (2, 2), (1, 3), 1)
    assert_close(out_ft, out_pt)
    w = pt.randn(out_pt.shape, dtype=pt.float64)
    (out_pt * w).sum().backward()
    (out_ft * to_ft(w)).sum().backward()
    # PyTorch 2.15 gets the gradient for the input wrong (its own gradcheck fails: it keeps
    # the overwritten positions and drops the others); ours is the one gradcheck confirms below.
    # Here: zero exactly at the written storage positions, the upstream gradient elsewhere.
    written = pt.zeros(12, dtype=pt.bool)
    written[pt.arange(12).as_strided((2, 2), (1, 3), 1).reshape(-1)] = True
    layout = make(pt.empty(12))
    own = pt.arange(12).as_strided(layout.shape, layout.stride(), layout.storage_offset()).reshape(-1)
    expected = pt.zeros(12, dtype=pt.float64)
    expected[own] = w.reshape(-1)
    expected[written] = 0
    assert_close(base_ft.grad, expected)
    if layout == "contiguous":  # with a storage offset PyTorch's src gradient is off as well
        assert_close(src_ft.grad, src_pt.grad)
    w_storage = pt.zeros(12, dtype=pt.float64)
    w_storage[own] = w.reshape(-1)
    assert_close(src_ft.grad, w_storage[pt.arange(12).as_strided((2, 2), (1, 3), 1)])
    b = torch.arange(12.0, dtype=torch.float64).requires_grad_()
    s = torch.ones(2, 2, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(lambda u, v: torch.as_strided_scatter(make(u), v, (2, 2), (1, 3), 1), (b, s))


@pytest.mark.parametrize(
    "call",
    [
        lambda m: m.as_strided_scatter(m.ones(2, 3), m.ones(2, 3), (2, 2), (1, 2)),
        lambda m: m.as_strided_scatter(m.ones(2, 3), m.ones(3, 3), (3, 3), (3, 1)),
        lambda m: m.nonzero_static(m.ones(2), size=-1),
        lambda m: m.nonzero_static(m.ones(2), 2),
        lambda m: m.vander(m.ones(2, 2)),
        lambda m: m.vander(m.tensor(2.0)),
        lambda m: m.vander(m.ones(2), N=-1),
        lambda m: m.empty_strided((2, 3), (1,)),
        lambda m: m.empty_strided((2, -3), (1, 2)),
        lambda m: m.empty_strided((2, 3), (1, -2)),
        lambda m: m.broadcast_to(m.ones(2, 3), (3,)),
        lambda m: m.broadcast_to(m.ones(2), (3,)),
        lambda m: m.view_as_complex_copy(m.ones(2, 3)),
        lambda m: m.unfold_copy(m.ones(3), 0, 4, 1),
        lambda m: m.as_strided_scatter(m.ones(3, 4, requires_grad=True).t(), m.ones(2, 2), (2, 2), (1, 3)),
    ],
)
def test_alias_errors(call: Callable[[Any], Any]) -> None:
    _raises_same(lambda: call(torch), lambda: call(pt))


@pytest.mark.parametrize(
    "size,stride,dtype",
    [((2, 3), (1, 2), None), ((2, 3), (3, 1), "int64"), ((), (), "float64"), ((4, 0), (1, 4), None),
     ((3, 2), (0, 1), "bool")],
)
def test_empty_strided(size: tuple, stride: tuple, dtype: Any) -> None:
    kw = {} if dtype is None else {"dtype": getattr(torch, dtype)}
    kwp = {} if dtype is None else {"dtype": getattr(pt, dtype)}
    ours, theirs = torch.empty_strided(size, stride, **kw), pt.empty_strided(size, stride, **kwp)
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert tuple(ours.stride()) == tuple(theirs.stride())
    assert str(ours.dtype) == str(theirs.dtype)
    assert torch.empty_strided((2,), (1,), requires_grad=True).requires_grad


def test_view_copies_are_fresh() -> None:
    c_pt = pt.tensor([1 + 2j, -3 + 0.5j], dtype=pt.complex64)
    c = torch.view_as_complex(to_ft(pt.view_as_real(c_pt)))
    r = torch.view_as_real_copy(c)
    assert_close(r, pt.view_as_real_copy(c_pt))
    assert r.data_ptr() != c.data_ptr()
    real_pt = pt.arange(6.0).reshape(3, 2)
    real = to_ft(real_pt)
    back = torch.view_as_complex_copy(real)
    assert back.data_ptr() != real.data_ptr()
    assert_close(torch.view_as_real(back), pt.view_as_real(pt.view_as_complex_copy(real_pt)))
    u = to_ft(pt.arange(12.0).reshape(3, 4))
    cp = torch.unfold_copy(u, 1, 2, 2)
    assert cp.is_contiguous() and cp.data_ptr() != u.data_ptr()


@pytest.mark.parametrize("make", [lambda m: m.arange(6.0).reshape(2, 3).t(), lambda m: m.tensor([True, False])])
def test_to_dlpack_round_trip(make: Callable[[Any], Any]) -> None:
    ours = make(torch)
    back = pt.from_dlpack(torch.to_dlpack(ours))
    assert_close(ours, back)
    assert back.data_ptr() == ours.data_ptr()


def test_const_data_ptr() -> None:
    x = torch.arange(6.0)[2:]
    assert x.const_data_ptr() == x.data_ptr()


NEW_CASES = {
    "empty": lambda x: x.new(),
    "sizes": lambda x: x.new(2, 3),
    "Size": lambda x: x.new(x.new(4, 5).shape),
    "tuple is data": lambda x: x.new((2, 3)),
    "list data": lambda x: x.new([[1.5, 2], [3, 4]]),
    "empty list": lambda x: x.new([]),
    "zero size": lambda x: x.new(0, 3),
    "device kw": lambda x: x.new(2, device="cpu"),
    "float": lambda x: x.new(3.5),
    "negative": lambda x: x.new(-1),
    "dtype kw": lambda x: x.new(2, dtype=x.dtype),
    "other dtype tensor": lambda x: x.new(x.new(2).to(float) if x.is_floating_point() is False else x.new(2).int()),
}


@pytest.mark.parametrize("case", list(NEW_CASES))
@pytest.mark.parametrize("dtype", ["int32", "float64", "bool"])
def test_new_matches_torch(case: str, dtype: str) -> None:
    fn = NEW_CASES[case]
    theirs_in = pt.zeros(2, dtype=getattr(pt, dtype))
    ours_in = torch.zeros(2, dtype=getattr(torch, dtype))
    try:
        expected = fn(theirs_in)
    except Exception as e:  # noqa: BLE001
        with pytest.raises(type(e)):
            fn(ours_in)
        return
    got = fn(ours_in)
    assert tuple(got.shape) == tuple(expected.shape)
    assert str(got.dtype) == str(expected.dtype)
    if case in ("list data", "tuple is data"):
        assert_close(got, expected)


def test_new_tensor_aliases() -> None:
    x = torch.arange(3.0)
    y = torch.zeros(1).new(x)
    assert y.data_ptr() == x.data_ptr() and tuple(y.shape) == (3,)
    xp = pt.arange(3.0)
    assert pt.zeros(1).new(xp).data_ptr() == xp.data_ptr()
    _raises_same(lambda: torch.zeros(1).new(torch.arange(3)), lambda: pt.zeros(1).new(pt.arange(3)))


def test_registered_names() -> None:
    for name in ("adjoint", "broadcast_to", "index_put", "index_put_", "empty_strided", "unfold_copy",
                 "as_strided_copy", "as_strided_scatter", "view_as_real_copy", "view_as_complex_copy",
                 "nonzero_static", "vander", "to_dlpack", "get_device", "is_vulkan_available",
                 "compiled_with_cxx11_abi", "get_default_device", "set_default_device"):
        assert callable(getattr(torch, name)), name
    x = torch.ones(1)
    for name in ("resize_", "resize_as_", "set_", "is_set_to", "is_pinned", "pin_memory", "is_distributed",
                 "apply_", "map_", "map2_", "as_strided_scatter", "nonzero_static", "const_data_ptr", "new", "dim_order"):
        assert callable(getattr(x, name)), name


# ---------------------------------------------------------------- dim_order

DIM_ORDER_LAYOUTS = {
    "contiguous": lambda m: m.ones(2, 3),
    "transposed": lambda m: m.ones(2, 3).t(),
    "size-1 middle": lambda m: m.ones(2, 1, 3),
    "permuted with size-1": lambda m: m.ones(3, 1, 2).permute(2, 1, 0),
    "expanded": lambda m: m.ones(2)[None].expand(3, 2),
    "expanded col": lambda m: m.ones(3, 1).expand(3, 3),
    "0-d": lambda m: m.ones(()),
    "1-d strided": lambda m: m.ones(8)[::2],
    "channels-last": lambda m: m.ones(2, 3, 4, 5).permute(0, 2, 3, 1),
    "channels-last view": lambda m: m.ones(2, 4, 5, 3).permute(0, 3, 1, 2),
    "channels-last 3d": lambda m: m.ones(2, 4, 5, 6, 3).permute(0, 4, 1, 2, 3),
    "4-d size-1": lambda m: m.ones(4, 1, 1, 1),
    "4-d channels only": lambda m: m.ones(1, 3, 1, 1),
    "sliced": lambda m: m.ones(2, 3, 4)[:, ::2],
    "3-d permuted": lambda m: m.ones(2, 3, 4).permute(1, 2, 0),
    "3-d permuted 2": lambda m: m.ones(2, 3, 4).permute(2, 0, 1),
    "empty": lambda m: m.ones(0, 3).t(),
    "equal strides": lambda m: m.ones(4, 4).as_strided((2, 2), (2, 2)),
}


@pytest.mark.parametrize("layout", list(DIM_ORDER_LAYOUTS))
@pytest.mark.parametrize("check", ["default", False, True, "contiguous list"])
def test_dim_order_matches_torch(layout: str, check: Any) -> None:
    make = DIM_ORDER_LAYOUTS[layout]

    def run(m: Any) -> Any:
        t = make(m)
        if check == "default":
            return t.dim_order()
        if check == "contiguous list":
            return t.dim_order(ambiguity_check=[m.contiguous_format])
        return t.dim_order(ambiguity_check=check)

    try:
        expected = run(pt)
    except RuntimeError:
        with pytest.raises(RuntimeError):
            run(torch)
        return
    got = run(torch)
    assert isinstance(got, tuple) and got == tuple(expected)
