"""Complex tensors (complex64/complex128) against PyTorch: dtypes and promotion, creation,
views, elementwise ops, reductions, copies and indexing, casts, printing, NumPy/DLPack
exchange, errors, and gradients (PyTorch's conjugate-Wirtinger convention)."""

from __future__ import annotations

import io
import re
import warnings

import numpy as np
import pytest

import ferrotorch as torch
from torch_oracle import assert_close, needs_torch, pt, to_ft

pytestmark = needs_torch

CDTYPES = ("complex64", "complex128")
TOL = {"complex64": dict(rtol=1e-5, atol=1e-5), "complex128": dict(rtol=1e-10, atol=1e-12)}


def _rand(shape, dtype="complex128", seed=0, scale=1.0):
    rng = np.random.default_rng(seed)
    a = (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)) * scale
    return pt.from_numpy(np.asarray(a)).to(getattr(pt, dtype))


LAYOUTS = [
    ("contiguous", (4, 6), lambda z: z),
    ("transposed", (4, 6), lambda z: z.t()),
    ("sliced", (4, 6), lambda z: z[1:, ::2]),
    ("0-d", (), lambda z: z),
    ("zero-size", (0, 3), lambda z: z),
    ("expanded", (1, 5), lambda z: z.expand(3, 5)),
]


def _layout_pair(i, dtype):
    """(name, ferrotorch tensor, PyTorch tensor) with the same values and layout."""
    name, shape, view = LAYOUTS[i]
    p = _rand(shape, dtype, seed=i)
    return name, view(to_ft(p)), view(p)


# ---------------------------------------------------------------- dtypes and promotion


def test_dtype_objects_and_properties():
    assert torch.cfloat is torch.complex64 and torch.cdouble is torch.complex128
    for name in CDTYPES:
        ours, theirs = getattr(torch, name), getattr(pt, name)
        assert repr(ours) == repr(theirs)
        assert ours.is_complex and not ours.is_floating_point and ours.is_signed
        assert ours.itemsize == theirs.itemsize
        assert repr(ours.to_real()) == repr(theirs.to_real())
        assert repr(ours.to_complex()) == repr(theirs.to_complex())
    for name in ("float32", "float64", "float16", "int64", "bool"):
        ours, theirs = getattr(torch, name), getattr(pt, name)
        assert not ours.is_complex
        assert repr(ours.to_real()) == repr(theirs.to_real())
    assert repr(torch.float32.to_complex()) == "torch.complex64"
    assert repr(torch.float64.to_complex()) == "torch.complex128"
    with pytest.raises(RuntimeError, match="Unknown Complex ScalarType for Int"):
        torch.int32.to_complex()
    assert torch.tensor([1], dtype=complex).dtype == torch.complex128
    assert torch.zeros(2, dtype="complex64").dtype == torch.complex64


PROMOTE = [
    ("float64", "complex64"),
    ("float32", "complex128"),
    ("float16", "complex64"),
    ("bfloat16", "complex64"),
    ("int64", "complex64"),
    ("uint8", "complex128"),
    ("bool", "complex64"),
    ("complex64", "complex128"),
    ("complex64", "complex64"),
]


@pytest.mark.parametrize("a,b", PROMOTE)
def test_promote_types(a, b):
    ours = torch.promote_types(getattr(torch, a), getattr(torch, b))
    assert repr(ours) == repr(pt.promote_types(getattr(pt, a), getattr(pt, b)))
    assert repr(torch.promote_types(getattr(torch, b), getattr(torch, a))) == repr(ours)


RESULT_CASES = [
    # (tensor dtype, tensor shape, other): other is a Python number or (dtype, shape)
    ("float32", (2,), 1j),
    ("float64", (2,), 1j),
    ("int32", (2,), 2 + 1j),
    ("bool", (2,), 1j),
    ("complex64", (2,), 1.5),
    ("complex128", (2,), 3),
    ("float32", (2,), ("complex128", ())),
    ("int64", (2,), ("complex128", ())),
    ("complex64", (2,), ("float64", ())),
    ("complex64", (), ("float64", (2,))),
    ("float64", (2,), ("complex64", (2,))),
]


@pytest.mark.parametrize("dt,shape,other", RESULT_CASES)
@pytest.mark.parametrize("default", ["float32", "float64"])
def test_result_type_and_arithmetic_dtype(dt, shape, other, default):
    torch.set_default_dtype(getattr(torch, default))
    pt.set_default_dtype(getattr(pt, default))
    try:
        a = torch.ones(shape, dtype=getattr(torch, dt))
        p = pt.ones(shape, dtype=getattr(pt, dt))
        if isinstance(other, tuple):
            o, q = torch.ones(other[1], dtype=getattr(torch, other[0])), pt.ones(other[1], dtype=getattr(pt, other[0]))
        else:
            o, q = other, other
        assert repr(torch.result_type(a, o)) == repr(pt.result_type(p, q))
        assert_close(a + o, p + q)
        assert_close(a * o, p * q)
    finally:
        torch.set_default_dtype(torch.float32)
        pt.set_default_dtype(pt.float32)


# ---------------------------------------------------------------- creation


@pytest.mark.parametrize(
    "data",
    [[1 + 2j, -3.5 - 1e-3j, 0], [[1j, 2], [3.5, 4 - 4j]], 2 + 3j, [True, 1j], [1, 2.5 + 1j], [[]]],
)
@pytest.mark.parametrize("dtype", [None, "complex64", "complex128"])
def test_tensor_from_python_complex(data, dtype):
    ours = torch.tensor(data, dtype=getattr(torch, dtype) if dtype else None)
    theirs = pt.tensor(data, dtype=getattr(pt, dtype) if dtype else None)
    assert_close(ours, theirs)


def test_tensor_of_complex_with_a_real_dtype_is_a_type_error():
    with pytest.raises(TypeError, match="must be real number, not complex"):
        torch.tensor([1j], dtype=torch.float32)


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("shape", [(), (3,), (2, 0, 3), (2, 3)])
def test_filled_creation(dtype, shape):
    d, q = getattr(torch, dtype), getattr(pt, dtype)
    assert_close(torch.zeros(shape, dtype=d), pt.zeros(shape, dtype=q))
    assert_close(torch.ones(shape, dtype=d), pt.ones(shape, dtype=q))
    assert_close(torch.full(shape, 1.5 - 2j, dtype=d), pt.full(shape, 1.5 - 2j, dtype=q))
    assert torch.empty(shape, dtype=d).dtype == d
    assert_close(torch.zeros_like(torch.ones(shape, dtype=d)), pt.zeros(shape, dtype=q))
    assert_close(torch.full_like(torch.ones(shape, dtype=d), 1j), pt.full(shape, 1j, dtype=q))
    assert_close(torch.eye(3, dtype=d), pt.eye(3, dtype=q))
    assert_close(torch.linspace(0, 1, 5, dtype=d), pt.linspace(0, 1, 5, dtype=q))


def test_full_infers_the_default_complex_dtype():
    assert_close(torch.full((2,), 1 + 1j), pt.full((2,), 1 + 1j))
    torch.set_default_dtype(torch.float64)
    try:
        assert torch.full((2,), 1j).dtype == torch.complex128
        assert torch.tensor([1j]).dtype == torch.complex128
    finally:
        torch.set_default_dtype(torch.float32)


@pytest.mark.parametrize("dtype", CDTYPES)
def test_random_complex_has_unit_variance(dtype):
    torch.manual_seed(0)
    z = torch.randn(20000, dtype=getattr(torch, dtype))
    assert z.dtype == getattr(torch, dtype)
    assert abs(z.real.var().item() - 0.5) < 0.03 and abs(z.imag.var().item() - 0.5) < 0.03
    u = torch.rand(20000, dtype=getattr(torch, dtype))
    assert 0 <= u.real.min().item() and u.imag.max().item() < 1
    assert torch.randn_like(z).dtype == z.dtype


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shapes", [((3,), (3,)), ((2, 3), (3,)), ((2, 1), (1, 4)), ((), ())])
def test_complex_and_polar(dtype, shapes):
    rng = np.random.default_rng(0)
    a, b = (rng.standard_normal(s) for s in shapes)
    pa, pb = pt.tensor(a, dtype=getattr(pt, dtype)), pt.tensor(b, dtype=getattr(pt, dtype))
    assert_close(torch.complex(to_ft(pa), to_ft(pb)), pt.complex(pa, pb))
    assert_close(torch.polar(to_ft(pa.abs()), to_ft(pb)), pt.polar(pa.abs(), pb), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize(
    "fn,exc",
    [
        (lambda T: T.complex(T.ones(2), T.ones(2, dtype=T.float64)), RuntimeError),
        (lambda T: T.complex(T.ones(2, dtype=T.int32), T.ones(2, dtype=T.int32)), NotImplementedError),
        (lambda T: T.polar(T.ones(2, dtype=T.int64), T.ones(2, dtype=T.int64)), NotImplementedError),
        (lambda T: T.complex(T.ones(2), T.ones(3)), RuntimeError),
    ],
)
def test_complex_constructor_errors(fn, exc):
    with pytest.raises(exc) as theirs:
        fn(pt)
    with pytest.raises(exc) as ours:
        fn(torch)
    assert type(ours.value) is type(theirs.value)
    if exc is not RuntimeError:
        assert str(ours.value) == str(theirs.value)


# ---------------------------------------------------------------- views


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("layout", range(6))
def test_real_imag_view_as_real_layouts(dtype, layout):
    name, z, p = _layout_pair(layout, dtype)
    for f in (lambda t: t.real, lambda t: t.imag):
        ours, theirs = f(z), f(p)
        assert_close(ours, theirs, what=name)
        if p.numel():
            assert ours.stride() == theirs.stride() and ours.storage_offset() == theirs.storage_offset(), name
    r, q = torch.view_as_real(z), pt.view_as_real(p)
    assert_close(r, q, what=name)
    if p.numel():
        assert r.stride() == q.stride() and r.storage_offset() == q.storage_offset(), name
    if q.numel():
        assert_close(torch.view_as_complex(r), pt.view_as_complex(q), what=name)


@pytest.mark.parametrize("dtype", CDTYPES)
def test_views_share_memory_and_are_writable(dtype):
    z = torch.zeros(3, dtype=getattr(torch, dtype))
    z.real[1] = 5.0
    z.imag.add_(2.0)
    torch.view_as_real(z)[0, 1] = -1.0
    z.real = torch.tensor([1.0, 2.0, 3.0], dtype=z.real.dtype)
    z.imag[2] = 7
    assert z.tolist() == [1 - 1j, 2 + 2j, 3 + 7j]
    r = torch.randn(4, 2, dtype=getattr(torch, dtype).to_real())
    c = torch.view_as_complex(r)
    c.mul_(1j)
    assert torch.view_as_real(c).data_ptr() == r.data_ptr()
    assert r[0, 0].item() == -c.imag[0].item() or r[0, 0].item() == c.real[0].item()
    # A real tensor is its own real part; it has no imaginary part.
    x = torch.ones(2)
    assert x.real is x or x.real.data_ptr() == x.data_ptr()
    assert torch.real(x).data_ptr() == x.data_ptr()


@pytest.mark.parametrize(
    "fn",
    [
        lambda T: T.view_as_complex(T.randn(3, 3)),
        lambda T: T.view_as_complex(T.randn(2, 3).t()),
        lambda T: T.view_as_complex(T.randn(3, 3)[:, :2]),
        lambda T: T.view_as_complex(T.randn(7)[1:].view(3, 2)),
        lambda T: T.view_as_complex(T.ones(3, 2, dtype=T.int32)),
        lambda T: T.view_as_complex(T.randn(())),
        lambda T: T.view_as_real(T.randn(3)),
        lambda T: T.randn(3).imag,
        lambda T: T.imag(T.randn(3)),
    ],
)
def test_view_errors_match_pytorch(fn):
    with pytest.raises(Exception) as theirs:
        fn(pt)
    with pytest.raises(Exception) as ours:
        fn(torch)
    assert type(ours.value) is type(theirs.value)
    assert str(theirs.value).strip() in str(ours.value)


# ---------------------------------------------------------------- elementwise ops

UNARY = [
    ("neg", lambda T, z: -z),
    ("abs", lambda T, z: z.abs()),
    ("torch.abs", lambda T, z: T.abs(z)),
    ("angle", lambda T, z: z.angle()),
    ("conj", lambda T, z: z.conj().resolve_conj()),
    ("conj_physical", lambda T, z: T.conj_physical(z)),
    ("sgn", lambda T, z: z.sgn()),
    ("exp", lambda T, z: z.exp()),
    ("log", lambda T, z: z.log()),
    ("sqrt", lambda T, z: z.sqrt()),
    ("rsqrt", lambda T, z: z.rsqrt()),
    ("reciprocal", lambda T, z: z.reciprocal()),
    ("sin", lambda T, z: z.sin()),
    ("cos", lambda T, z: z.cos()),
    ("tan", lambda T, z: z.tan()),
    ("sinh", lambda T, z: z.sinh()),
    ("cosh", lambda T, z: z.cosh()),
    ("tanh", lambda T, z: z.tanh()),
    ("sigmoid", lambda T, z: z.sigmoid()),
    ("log2", lambda T, z: z.log2()),
    ("log10", lambda T, z: z.log10()),
    ("log1p", lambda T, z: z.log1p()),
    ("expm1", lambda T, z: z.expm1()),
    ("exp2", lambda T, z: z.exp2()),
    ("square", lambda T, z: z.square()),
    ("pow2", lambda T, z: z**2),
    ("pow3", lambda T, z: z.pow(3)),
    ("pow_half", lambda T, z: z**0.5),
    ("pow_complex", lambda T, z: z ** (0.5 - 1j)),
    ("rpow", lambda T, z: 2**z),
    ("isnan", lambda T, z: z.isnan()),
    ("isfinite", lambda T, z: z.isfinite()),
]


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("layout", range(6))
@pytest.mark.parametrize("name,fn", UNARY, ids=[u[0] for u in UNARY])
def test_unary_ops(name, fn, dtype, layout):
    lname, z, p = _layout_pair(layout, dtype)
    assert_close(fn(torch, z), fn(pt, p), **TOL[dtype], what=f"{name} {lname}")


def test_unary_special_values():
    vals = [0j, -1 + 0j, complex(-1, -0.0), complex(float("inf"), 1), complex(0, float("nan")), 1e30 + 1e30j]
    p = pt.tensor(vals, dtype=pt.complex128)
    for name, fn in [("abs", lambda T, z: z.abs()), ("sqrt", lambda T, z: z.sqrt()), ("log", lambda T, z: z.log()), ("angle", lambda T, z: z.angle()), ("sgn", lambda T, z: z.sgn())]:
        assert_close(fn(torch, to_ft(p)), fn(pt, p), what=name)


BINARY = [
    ("add", lambda a, b: a + b),
    ("sub", lambda a, b: a - b),
    ("mul", lambda a, b: a * b),
    ("div", lambda a, b: a / b),
    ("pow", lambda a, b: a**b),
    ("eq", lambda a, b: a == b),
    ("ne", lambda a, b: a != b),
    ("add_alpha", lambda a, b: a.add(b, alpha=2)),
    ("sub_alpha", lambda a, b: a.sub(b, alpha=-1.5)),
    ("true_divide", lambda a, b: a.true_divide(b)),
]

OPERANDS = [
    ("c64 same shape", ("complex64", (3, 4)), ("complex64", (3, 4))),
    ("c128 broadcast", ("complex128", (3, 1)), ("complex128", (1, 4))),
    ("c64 with c128", ("complex64", (2, 3)), ("complex128", (3,))),
    ("c64 with f64", ("complex64", (2, 3)), ("float64", (2, 3))),
    ("f32 with c128 0-d", ("float32", (2, 3)), ("complex128", ())),
    ("int with c64", ("int64", (4,)), ("complex64", (4,))),
    ("c128 with int scalar", ("complex128", (3,)), 2),
    ("c64 with float scalar", ("complex64", (3,)), -1.5),
    ("c64 with complex scalar", ("complex64", (3,)), 0.5 - 2j),
    ("f64 with complex scalar", ("float64", (3,)), 2j),
    ("int with complex scalar", ("int32", (3,)), 1 + 1j),
    ("zero-size", ("complex64", (0, 3)), ("complex64", (1, 3))),
]


def _operand(spec, seed):
    if not isinstance(spec, tuple):
        return spec, spec
    dt, shape = spec
    if dt.startswith("complex"):
        p = _rand(shape, dt, seed)
    elif dt.startswith("int"):
        p = pt.arange(1, 1 + int(np.prod(shape))).reshape(shape).to(getattr(pt, dt))
    else:
        p = pt.from_numpy(np.random.default_rng(seed).standard_normal(shape)).to(getattr(pt, dt))
    return to_ft(p), p


@pytest.mark.parametrize("case,a,b", OPERANDS, ids=[o[0] for o in OPERANDS])
@pytest.mark.parametrize("name,fn", BINARY, ids=[b[0] for b in BINARY])
def test_binary_ops(name, fn, case, a, b):
    (fa, pa), (fb, pb) = _operand(a, 1), _operand(b, 2)
    if name in ("add_alpha", "sub_alpha", "true_divide") and not isinstance(pa, pt.Tensor):
        pytest.skip("method form needs a tensor on the left")
    tol = dict(rtol=1e-4, atol=1e-5)
    assert_close(fn(fa, fb), fn(pa, pb), **tol, what=f"{name} {case}")
    if isinstance(pa, pt.Tensor) and name not in ("add_alpha", "sub_alpha", "true_divide"):
        # The reflected form, with the operands swapped.
        assert_close(fn(fb, fa), fn(pb, pa), **tol, what=f"reflected {name} {case}")


def test_in_place_ops_and_casting_rules():
    z = torch.tensor([1 + 1j, 2 - 1j])
    z.mul_(1j)
    z += 1
    z /= 2
    z -= torch.tensor([0.5, 0.5])
    assert_close(z, (pt.tensor([1 + 1j, 2 - 1j]) * 1j + 1) / 2 - 0.5)
    with pytest.raises(RuntimeError, match="can't be cast"):
        torch.ones(2).add_(1j)
    with pytest.raises(RuntimeError, match="In-place abs is not supported for complex tensors."):
        torch.tensor([1j]).abs_()


def test_division_is_scaled_and_ieee_at_zero():
    big = pt.tensor([1e300 + 1e300j, 1 + 1j, 1 + 0j], dtype=pt.complex128)
    den = pt.tensor([1e300 - 1e300j, 0j, 1e-300 + 1e-300j], dtype=pt.complex128)
    assert_close(to_ft(big) / to_ft(den), big / den)


# ---------------------------------------------------------------- reductions


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("layout", range(6))
@pytest.mark.parametrize(
    "name,fn",
    [
        ("sum", lambda z: z.sum()),
        ("sum0", lambda z: z.sum(0) if z.ndim else z.sum()),
        ("sum_keep", lambda z: z.sum(-1, keepdim=True) if z.ndim else z.sum()),
        ("mean", lambda z: z.mean()),
        ("mean1", lambda z: z.mean(1) if z.ndim > 1 else z.mean()),
        ("cumsum", lambda z: z.cumsum(0)),
        ("var", lambda z: z.var()),
        ("std1", lambda z: z.std(1, correction=0) if z.ndim > 1 else z.std()),
        ("norm", lambda z: z.norm()),
        ("logsumexp", lambda z: z.logsumexp(0)),
        ("prod-free trace", lambda z: z.reshape(-1).sum()),
    ],
)
def test_reductions(name, fn, dtype, layout):
    lname, z, p = _layout_pair(layout, dtype)
    if name == "logsumexp" and p.numel() == 0:
        pytest.skip("the empty case gives -inf+nanj")
    assert_close(fn(z), fn(p), **TOL[dtype], what=f"{name} {lname}")


# ---------------------------------------------------------------- copies, indexing, casts


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize(
    "name,fn",
    [
        ("clone", lambda T, z: z.clone()),
        ("contiguous", lambda T, z: z.t().contiguous()),
        ("reshape", lambda T, z: z.t().reshape(-1)),
        ("transpose", lambda T, z: z.transpose(0, 1)),
        ("permute", lambda T, z: z.unsqueeze(0).permute(2, 0, 1)),
        ("cat", lambda T, z: T.cat([z, z[:1]], 0)),
        ("cat mixed", lambda T, z: T.cat([z, T.ones(1, 6)], 0)),
        ("stack", lambda T, z: T.stack([z, z.conj()], 1)),
        ("int index", lambda T, z: z[2]),
        ("slice", lambda T, z: z[1:3, 1::2]),
        ("advanced", lambda T, z: z[[0, 3, 3], [1, 0, 5]]),
        ("mask", lambda T, z: z[z.real > 0]),
        ("index_select", lambda T, z: z.index_select(1, T.tensor([4, 0]))),
        ("gather", lambda T, z: z.gather(1, T.tensor([[0, 1], [5, 5], [2, 3], [1, 1]]))),
        ("where", lambda T, z: T.where(z.real > 0, z, 0.5j)),
        ("masked_fill", lambda T, z: z.masked_fill(z.imag > 0, 2 - 1j)),
        ("flip", lambda T, z: z.flip(0, 1)),
        ("roll", lambda T, z: z.roll(2, 1)),
        ("tril", lambda T, z: z.tril()),
        ("repeat", lambda T, z: z[:2].repeat(2, 1)),
        ("expand clone", lambda T, z: z[:1].expand(3, 6).clone()),
        ("split", lambda T, z: z.split(2, 1)[2]),
        ("scatter", lambda T, z: z.scatter(1, T.tensor([[1], [0], [2], [3]]), z[:, :1] * 1j)),
        ("index_add", lambda T, z: z.index_add(0, T.tensor([0, 0]), z[:2])),
        ("matmul", lambda T, z: z @ z.t()),
        ("matmul batched", lambda T, z: T.stack([z, 2 * z]) @ z.t()),
        ("dot", lambda T, z: T.dot(z[0], z[1])),
        ("outer", lambda T, z: T.outer(z[0], z[1])),
        ("einsum", lambda T, z: T.einsum("ij,kj->ik", z, z)),
        ("diag", lambda T, z: T.diag(z[0])),
    ],
)
def test_data_movement_and_products(name, fn, dtype):
    p = _rand((4, 6), dtype, seed=5)
    ours, theirs = fn(torch, to_ft(p)), fn(pt, p)
    assert_close(ours, theirs, **TOL[dtype], what=name)


@pytest.mark.parametrize("dtype", CDTYPES)
def test_index_assignment(dtype):
    p = _rand((4, 3), dtype)
    z = to_ft(p)
    for t in (p, z):
        t[0] = 5j
        t[:, 1] = 1 - 1j
        t[t.real > 0.5] = 0
        t[[1, 2], [0, 2]] = 7j
        t[3] += 1
    assert_close(z, p)


@pytest.mark.parametrize("src", CDTYPES + ("float32", "float64", "int64", "bool", "float16"))
@pytest.mark.parametrize("dst", CDTYPES + ("float32", "float64", "int32", "bool", "uint8", "float16"))
def test_casts(src, dst):
    if src.startswith("complex"):
        p = _rand((5,), src, seed=3, scale=3.0)
        p[0] = 0
        p[1] = 2j
    else:
        p = pt.tensor([0, 1, -2, 3, 1], dtype=pt.float64).to(getattr(pt, src))
    if not src.startswith("complex") and not dst.startswith("complex"):
        pytest.skip("real casts are tested elsewhere")
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = p.to(getattr(pt, dst))
    assert_close(to_ft(p).to(getattr(torch, dst)), theirs, rtol=1e-3, atol=1e-3)


def test_item_tolist_and_python_numbers():
    p = pt.tensor([[1 + 2j, -3.5 - 1e-3j], [0, 4j]])
    z = to_ft(p)
    assert z.tolist() == p.tolist()
    assert z[0, 0].item() == p[0, 0].item() and isinstance(z[0, 0].item(), complex)
    assert complex(z[1, 1]) == 4j
    assert float(torch.tensor(1 + 0j)) == 1.0 and int(torch.tensor(2 + 0j)) == 2
    assert bool(torch.tensor(1j)) and not bool(torch.tensor(0j))
    with pytest.raises(RuntimeError, match="value cannot be converted to type double without overflow"):
        float(z[0, 0])
    assert torch.tensor(z.tolist()).dtype == torch.complex64
    assert z.is_complex() and torch.is_complex(z) and not torch.is_complex(z.real)
    assert z.element_size() == 8 and z.to(torch.complex128).nbytes == 64
    assert z.type() == "torch.ComplexFloatTensor"
    assert not z.is_floating_point() and not z.is_conj() and not z.conj().is_conj()


# ---------------------------------------------------------------- printing

REPRS = [
    lambda T: T.tensor([1 + 2j, -3.5 - 1e-3j, 0]),
    lambda T: T.tensor([1 + 2j, -3.5 - 1e-3j, 0]).conj().resolve_conj(),
    lambda T: T.tensor([[1 + 2j, 3], [1e10j, 5]]),
    lambda T: T.tensor([1 + 2j], dtype=T.complex128),
    lambda T: T.zeros(2, 2, dtype=T.cfloat),
    lambda T: T.tensor(2 + 3j),
    lambda T: T.tensor(3 - 0.5j),
    lambda T: T.tensor([float("nan") + 1j, float("inf") * 1j]),
    lambda T: T.tensor([1e-8 + 1j, 100j]),
    lambda T: T.tensor([1.5 + 2j, 1.5 + 2j], dtype=T.cdouble, requires_grad=True),
    lambda T: T.zeros(0, dtype=T.cfloat),
    lambda T: T.zeros(0, 2, dtype=T.cdouble),
    lambda T: T.arange(12.0).reshape(3, 4) * (1 - 0.25j),
]


@pytest.mark.parametrize("i", range(len(REPRS)))
def test_repr_matches_pytorch(i):
    assert repr(REPRS[i](torch)) == repr(REPRS[i](pt))


def test_repr_with_default_float64():
    torch.set_default_dtype(torch.float64)
    pt.set_default_dtype(pt.float64)
    try:
        for f in (lambda T: T.tensor([1j]), lambda T: T.tensor([1j], dtype=T.complex64)):
            assert repr(f(torch)) == repr(f(pt))
    finally:
        torch.set_default_dtype(torch.float32)
        pt.set_default_dtype(pt.float32)


# ---------------------------------------------------------------- NumPy, DLPack, files


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_numpy_round_trips_share_memory(dtype):
    a = (np.arange(6) + 1j * np.arange(6)[::-1]).reshape(2, 3).astype(dtype)
    t = torch.from_numpy(a)
    assert repr(t.dtype) == f"torch.{dtype}"
    a[0, 0] = 9 + 9j
    assert t[0, 0].item() == 9 + 9j
    n = t.numpy()
    assert n.dtype == np.dtype(dtype) and np.shares_memory(n, a)
    c = torch.tensor(a[:, ::-1])
    np.testing.assert_array_equal(c.numpy(), a[:, ::-1])
    s = torch.from_numpy(a[:, ::2])
    assert s.stride() == (3, 2) and s.tolist() == a[:, ::2].tolist()
    assert np.asarray(t.t()).tolist() == a.T.tolist()


@pytest.mark.parametrize("dtype", CDTYPES)
def test_dlpack_round_trips_are_zero_copy(dtype):
    z = torch.randn(3, 4, dtype=getattr(torch, dtype))
    p = pt.from_dlpack(z)
    assert repr(p.dtype) == f"torch.{dtype}" and p.data_ptr() == z.data_ptr()
    assert_close(z, p)
    q = _rand((2, 5), dtype)
    back = torch.from_dlpack(q)
    assert back.data_ptr() == q.data_ptr()
    assert_close(back, q)
    n = torch.from_dlpack(np.array([1 + 1j, 2j], dtype=dtype))
    assert n.tolist() == [1 + 1j, 2j]
    assert_close(torch.from_dlpack(z.t()), p.t())


def test_save_and_load_complex_tensors(tmp_path):
    z = torch.randn(3, 2, dtype=torch.complex128)
    obj = {"z": z, "w": torch.tensor([1j, 2], dtype=torch.complex64).requires_grad_(), "x": torch.ones(2)}
    path = tmp_path / "c.safetensors"
    torch.save(obj, path)
    back = torch.load(path)
    assert back["z"].dtype == torch.complex128 and back["z"].tolist() == z.tolist()
    assert back["w"].dtype == torch.complex64 and back["w"].requires_grad
    assert back["x"].tolist() == [1.0, 1.0]
    buf = io.BytesIO()
    torch.save(z.t(), buf)
    buf.seek(0)
    assert torch.load(buf).tolist() == z.t().tolist()


# ---------------------------------------------------------------- errors

ERRORS = [
    lambda T, z: z < z,
    lambda T, z: z >= 1,
    lambda T, z: T.maximum(z, z),
    lambda T, z: z.max(),
    lambda T, z: z.amax(),
    lambda T, z: z.max(0),
    lambda T, z: z.argmax(),
    lambda T, z: z.argmin(),
    lambda T, z: z.sort(),
    lambda T, z: z.argsort(),
    lambda T, z: z.topk(1),
    lambda T, z: z.clamp(0, 1),
    lambda T, z: z.relu(),
    lambda T, z: z.floor(),
    lambda T, z: z.ceil(),
    lambda T, z: z.trunc(),
    lambda T, z: z.round(),
    lambda T, z: z.sign(),
    lambda T, z: z.erf(),
    lambda T, z: z.frac(),
    lambda T, z: z % 2,
    lambda T, z: z // 2,
    lambda T, z: T.atan2(z, z),
    lambda T, z: z & z,
    lambda T, z: T.fmod(z, 2),
    lambda T, z: T.hypot(z, z),
    lambda T, z: T.copysign(z, z),
    lambda T, z: z.softmax(0),
    lambda T, z: z.log_softmax(0),
    lambda T, z: z.cummax(0),
    lambda T, z: T.arange(3, dtype=z.dtype),
    lambda T, z: T.randint(0, 3, (2,), dtype=z.dtype),
    lambda T, z: T.nn.functional.gelu(z),
]


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_unsupported_ops_raise_as_pytorch(i, dtype):
    f = ERRORS[i]
    with pytest.raises(Exception) as theirs:
        f(pt, pt.tensor([1j, 2], dtype=getattr(pt, dtype)))
    with pytest.raises(Exception) as ours:
        f(torch, torch.tensor([1j, 2], dtype=getattr(torch, dtype)))
    assert issubclass(type(ours.value), type(theirs.value)) or type(ours.value) is type(theirs.value), (ours.value, theirs.value)
    msg = str(theirs.value).strip()
    if "not implemented for" in msg or "does not support complex" in msg or "not supported for complex" in msg:
        assert msg in str(ours.value)


def test_complex_tensors_require_grad():
    z = torch.zeros(2, dtype=torch.cfloat, requires_grad=True)
    assert z.requires_grad
    with pytest.raises(RuntimeError, match="only Tensors of floating point dtype can require gradients"):
        torch.zeros(2, dtype=torch.int64).requires_grad_()


# ---------------------------------------------------------------- autograd

GRAD_FUNCS = [
    ("abs", lambda T, a, b: T.complex(a, b).abs().sum()),
    ("z*conj(z)", lambda T, a, b: (T.complex(a, b) * T.complex(a, b).conj()).real.sum()),
    ("mul", lambda T, a, b: (T.complex(a, b) * T.complex(b, a)).real.sum()),
    ("div", lambda T, a, b: (T.complex(a, b) / T.complex(b, a + 3)).imag.sum()),
    ("exp", lambda T, a, b: T.complex(a, b).exp().abs().sum()),
    ("log angle", lambda T, a, b: T.complex(a, b).log().angle().sum()),
    ("sqrt", lambda T, a, b: T.complex(a, b).sqrt().real.sum()),
    ("pow2", lambda T, a, b: (T.complex(a, b) ** 2).real.sum()),
    ("pow complex", lambda T, a, b: (T.complex(a, b) ** T.complex(b, a)).imag.sum()),
    ("view_as_real", lambda T, a, b: T.view_as_real(T.complex(a, b).exp()).pow(2).sum()),
    ("polar sgn", lambda T, a, b: T.polar(a.abs() + 0.1, b).sgn().imag.sum()),
    ("sum abs", lambda T, a, b: T.complex(a, b).sum(0).abs().sum()),
    ("mean abs", lambda T, a, b: T.complex(a, b).mean().abs()),
    ("scalar tanh", lambda T, a, b: (T.complex(a, b) + 2j * a).tanh().real.sum()),
    ("index cumsum", lambda T, a, b: T.complex(a, b)[[0, 2]].cumsum(1).abs().sum()),
    ("trig", lambda T, a, b: (T.complex(a, b).sin() * T.complex(b, a).cos()).real.sum()),
    ("reciprocal", lambda T, a, b: T.complex(a, b + 2).reciprocal().imag.sum()),
    ("sigmoid log1p", lambda T, a, b: T.complex(a, b).sigmoid().log1p().real.sum()),
    ("matmul", lambda T, a, b: (T.complex(a, b) @ T.complex(b, a).t()).abs().sum()),
    ("var", lambda T, a, b: T.complex(a, b).var(1).sum()),
    ("norm", lambda T, a, b: T.complex(a, b).norm()),
    ("cat stack", lambda T, a, b: T.cat([T.complex(a, b), T.stack([T.complex(b, a)[0]])]).abs().sum()),
    ("where", lambda T, a, b: T.where(a > 0, T.complex(a, b), 1j * b).imag.sum()),
    ("to real", lambda T, a, b: (T.complex(a, b) * 1j).to(a.dtype).sum()),
    ("real to complex", lambda T, a, b: (a.to(T.complex128) * (1 + 1j)).imag.sum()),
    ("logsumexp", lambda T, a, b: T.complex(a, b).logsumexp(1).real.sum()),
    ("real imag views", lambda T, a, b: (T.complex(a, b).real * T.complex(b, a).imag).sum()),
    ("expm1 log2", lambda T, a, b: (T.complex(a, b).expm1() + T.complex(a + 3, b).log2()).real.sum()),
]


@pytest.mark.parametrize("name,f", GRAD_FUNCS, ids=[g[0] for g in GRAD_FUNCS])
def test_gradients_match_pytorch(name, f):
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((3, 4)), rng.standard_normal((3, 4))
    xs = [torch.tensor(v, requires_grad=True) for v in (a, b)]
    ps = [pt.tensor(v, requires_grad=True) for v in (a, b)]
    f(torch, *xs).backward()
    f(pt, *ps).backward()
    for x, p in zip(xs, ps):
        if p.grad is None:
            assert x.grad is None, name
        else:
            assert_close(x.grad, p.grad, rtol=1e-8, atol=1e-10, what=name)


@pytest.mark.parametrize("name,f", GRAD_FUNCS, ids=[g[0] for g in GRAD_FUNCS])
def test_gradcheck_real_to_complex_to_real(name, f):
    rng = np.random.default_rng(1)
    a = torch.tensor(rng.standard_normal((3, 4)), requires_grad=True)
    b = torch.tensor(rng.standard_normal((3, 4)), requires_grad=True)
    assert torch.autograd.gradcheck(lambda x, y: f(torch, x, y), (a, b))


def test_gradient_of_complex_leaf_is_conjugate_wirtinger():
    for T in (torch, pt):
        z = T.tensor([1 + 2j, -0.5 + 0.25j], dtype=T.complex128, requires_grad=True)
        (z.abs() ** 2).sum().backward()
        assert z.grad.tolist() == [2 + 4j, -1 + 0.5j]
    w = torch.tensor([1 + 1j, 2 - 1j], requires_grad=True)
    pw = pt.tensor([1 + 1j, 2 - 1j], requires_grad=True)
    for T, v in ((torch, w), (pt, pw)):
        (v * v.conj() * (2 - 1j)).sum().real.backward()
    assert_close(w.grad, pw.grad)
    y = torch.tensor([1 + 1j, 3j], requires_grad=True)
    out = y.exp()
    out.backward(torch.tensor([1 - 1j, 0.5j]))
    py = pt.tensor([1 + 1j, 3j], requires_grad=True)
    py.exp().backward(pt.tensor([1 - 1j, 0.5j]))
    assert_close(y.grad, py.grad, rtol=1e-5)


def test_gradcheck_with_complex_inputs_and_outputs():
    z = torch.tensor([1 + 2j, -0.5 + 0.25j, 0.3 - 1j], dtype=torch.complex128, requires_grad=True)
    assert torch.autograd.gradcheck(lambda t: t * t.conj() + t.exp(), (z,))
    assert torch.autograd.gradcheck(lambda t: (t.sin() / (t + 3)).sum(), (z,))
    assert torch.autograd.gradcheck(lambda t: t.abs(), (z,))
    # A backward that forgets the conjugate is caught.
    with pytest.raises(RuntimeError, match="Jacobian mismatch"):
        torch.autograd.gradcheck(lambda t: _WrongConj.apply(t), (z,))


class _WrongConj(torch.autograd.Function):
    """exp(z) with a backward that forgets the conjugate (what gradcheck must catch)."""

    @staticmethod
    def forward(ctx, z):
        ctx.save_for_backward(z)
        return z.exp()

    @staticmethod
    def backward(ctx, g):
        (z,) = ctx.saved_tensors
        return g * z.exp()


def test_in_place_on_a_part_with_autograd_is_refused():
    z = torch.tensor([1 + 1j], requires_grad=True) * 2
    with pytest.raises(NotImplementedError, match="real or imaginary view"):
        z.real.mul_(2)
    w = torch.tensor([1 + 1j]) * 2
    w.real.mul_(2)
    assert w.tolist() == [4 + 2j]


def test_grad_fn_names():
    a = torch.tensor([1j], requires_grad=True)
    assert (a * a).grad_fn.name() == "MulBackward0"
    assert a.abs().grad_fn.name() == "AbsBackward0"
    assert torch.view_as_real(a).grad_fn.name() == "ViewAsRealBackward0"
    assert a.conj().grad_fn is not None


@pytest.mark.parametrize("attr", ["H", "mH", "adjoint"])
@pytest.mark.parametrize("shape", [(3, 2), (2, 3, 2), (4,), ()])
@pytest.mark.parametrize("dtype", ["complex64", "float64"])
def test_conjugate_transposes_match_torch(attr, shape, dtype):
    rng = np.random.RandomState(0)
    a = rng.randn(*shape) + (1j * rng.randn(*shape) if dtype.startswith("complex") else 0)
    a = np.asarray(a, dtype=dtype)

    def get(lib):
        t = lib.tensor(a)
        return t.adjoint() if attr == "adjoint" else getattr(t, attr)

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            theirs = get(pt)
    except RuntimeError as e:
        with pytest.raises(RuntimeError, match=re.escape(str(e).split(".")[0])):
            get(torch)
        return
    ours = get(torch)
    np.testing.assert_array_equal(ours.numpy(), theirs.resolve_conj().numpy())


# Complex kernels the fuzzer found missing: each is gradchecked and its gradient compared with PyTorch's.
COMPLEX_GRAD_OPS = [
    ("asin", lambda T, z, w: T.asin(z)),
    ("acos", lambda T, z, w: T.acos(z)),
    ("atan", lambda T, z, w: T.atan(z)),
    ("prod_dim", lambda T, z, w: z.prod(1)),
    ("prod_all", lambda T, z, w: z.prod()),
    ("prod_with_zeros", lambda T, z, w: (z * T.tensor([[0.0, 1, 1], [0, 0, 1]], dtype=T.float64)).prod(1)),
    ("logaddexp", lambda T, z, w: T.logaddexp(z, w)),
    ("logcumsumexp", lambda T, z, w: T.logcumsumexp(z, 1)),
]


@pytest.mark.parametrize("name,f", COMPLEX_GRAD_OPS, ids=[g[0] for g in COMPLEX_GRAD_OPS])
def test_complex_kernel_gradients(name, f):
    rng = np.random.default_rng(2)
    a = rng.standard_normal((2, 3)) + 1j * rng.standard_normal((2, 3))
    b = rng.standard_normal((2, 3)) + 1j * rng.standard_normal((2, 3))
    z, w = torch.tensor(a, requires_grad=True), torch.tensor(b)
    assert torch.autograd.gradcheck(lambda x: f(torch, x, w), (z,))
    pz, pw = pt.tensor(a, requires_grad=True), pt.tensor(b)
    seed = rng.standard_normal(f(pt, pz, pw).shape) + 1j
    f(torch, z, w).backward(torch.tensor(seed))
    f(pt, pz, pw).backward(pt.tensor(seed))
    assert_close(z.grad, pz.grad.resolve_conj(), rtol=1e-8, atol=1e-10, what=name)
