"""The pointwise math added in _pointwise_math.py and the modules it gathers (inverse
hyperbolics, float bits, integer math, matrix accumulation, in-place forms) against PyTorch:
values, dtypes, shapes, layouts, errors and gradients."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import ferrotorch as torch
from torch_oracle import assert_close, needs_torch, pt, to_ft, to_pt

pytestmark = needs_torch

RNG = np.random.default_rng(11)
TOL = {"float16": (2e-3, 1e-3), "bfloat16": (1.6e-2, 1e-2), "float32": (2e-6, 1e-6), "float64": (1e-12, 1e-14)}


def _tol(t):
    return TOL.get(str(t.dtype).split(".")[-1], (1e-6, 1e-7))


def _pair(arr, dtype="float32"):
    """(ferrotorch, PyTorch) tensors of one value array in ``dtype``."""
    b = pt.from_numpy(np.asarray(arr, dtype=np.float64).copy()).to(getattr(pt, dtype))
    return to_ft(b), b


def _layouts(a, b):
    """The same data as contiguous, transposed, sliced, zero-size and 0-d tensors."""
    yield "contig", a, b
    if a.dim() == 2:
        yield "transposed", a.t(), b.t()
        yield "sliced", a[:, ::2], b[:, ::2]
    yield "empty", a.reshape(-1)[:0], b.reshape(-1)[:0]
    yield "0d", a.reshape(-1)[1], b.reshape(-1)[1]


def _same(ours, theirs, what, exact=False):
    rtol, atol = (0, 0) if exact else _tol(theirs)
    assert_close(ours, theirs, rtol=rtol, atol=atol, what=what)


UNARY_DOMAIN = {
    "asinh": lambda n: RNG.normal(0, 3, n),
    "arcsinh": lambda n: RNG.normal(0, 3, n),
    "acosh": lambda n: 1 + np.abs(RNG.normal(0, 3, n)),
    "arccosh": lambda n: 1 + np.abs(RNG.normal(0, 3, n)),
    "atanh": lambda n: RNG.uniform(-0.95, 0.95, n),
    "arctanh": lambda n: RNG.uniform(-0.95, 0.95, n),
    "deg2rad": lambda n: RNG.normal(0, 90, n),
    "rad2deg": lambda n: RNG.normal(0, 3, n),
}
FLOAT_DTYPES = ["float32", "float64", "float16", "bfloat16"]


@pytest.mark.parametrize("dtype", FLOAT_DTYPES + ["int64", "bool"])
@pytest.mark.parametrize("name", list(UNARY_DOMAIN))
def test_unary_values(name, dtype):
    data = UNARY_DOMAIN[name](12).reshape(3, 4)
    if dtype in ("int64", "bool"):
        data = np.round(data) if dtype == "int64" else (data > 1)
    a, b = _pair(data, dtype)
    for layout, x, y in _layouts(a, b):
        _same(getattr(torch, name)(x), getattr(pt, name)(y), f"torch.{name} {dtype} {layout}")
        _same(getattr(x, name)(), getattr(y, name)(), f"Tensor.{name} {dtype} {layout}")


SPECIAL = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0, 1e-30, -1e-30, 1e30, -1e30, 1e300, -1e300, 1e-300,
           1 + 1e-12, 1 - 1e-12, math.inf, -math.inf, math.nan, 5e-324, 1.7e308]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", ["asinh", "acosh", "atanh"])
def test_inverse_hyperbolic_special_values(name, dtype):
    a, b = _pair(SPECIAL, dtype)
    ours, theirs = getattr(torch, name)(a), getattr(pt, name)(b)
    # Both are (near) correctly rounded: a few units in the last place at most.
    assert_close(ours, theirs, rtol=4 * float(pt.finfo(getattr(pt, dtype)).eps), atol=0, what=f"{name} {dtype}")
    # The sign of zero is kept (NaN's sign bit is unspecified).
    keep = ~np.isnan(theirs.numpy())
    np.testing.assert_array_equal(np.signbit(ours.numpy())[keep], np.signbit(theirs.numpy())[keep])


@pytest.mark.parametrize("name", ["asinh", "acosh", "atanh"])
def test_inverse_hyperbolic_accuracy_float64(name):
    """Accurate where the naive formulas lose digits (near 0 for asinh/atanh, near 1 for acosh)."""
    x = {"asinh": np.geomspace(1e-20, 1e20, 200), "acosh": 1 + np.geomspace(1e-15, 1e10, 200),
         "atanh": np.geomspace(1e-20, 0.999999, 200)}[name]
    a, b = _pair(x, "float64")
    assert_close(getattr(torch, name)(a), getattr(pt, name)(b), rtol=4e-16, atol=0, what=name)


@pytest.mark.parametrize("name", ["asinh", "acosh", "atanh"])
def test_inverse_hyperbolic_complex(name):
    mpmath = pytest.importorskip("mpmath")
    z = RNG.normal(0, 2, 10) + 1j * RNG.normal(0, 2, 10)
    # Small, large and near-1 magnitudes in every quadrant, where naive formulas cancel.
    mags = np.array([1e-12, 1e-5, 0.3, 1.0 + 1e-9, 40.0, 1e6])
    angles = np.array([0.1, 1.2, 2.0, 3.0, -0.4, -2.5, np.pi / 2 - 1e-3, -np.pi / 2 + 1e-3])
    z = np.concatenate([z, (mags[:, None] * np.exp(1j * angles[None, :])).ravel(), [1 + 1e-8j, -1e-9 + 0.5j]])
    with mpmath.workdps(40):
        for dt, tol in ((np.complex64, 3e-7), (np.complex128, 2e-14)):
            zz = z.astype(dt)
            ref = np.array([complex(getattr(mpmath, name)(mpmath.mpc(c.real, c.imag))) for c in zz.astype(np.complex128)])
            ours = getattr(torch, name)(torch.from_numpy(zz))
            assert ours.dtype == getattr(torch, np.dtype(dt).name)
            # Relative to each value's magnitude (componentwise tolerances are meaningless near 0).
            err = np.abs(ours.numpy() - ref) / np.abs(ref)
            assert err.max() < tol, (name, dt, err.max(), zz[err.argmax()])
            # PyTorch agrees within its own accuracy.
            assert_close(ours, getattr(pt, name)(pt.from_numpy(zz)), rtol=1e-5, atol=1e-6, what=f"{name} {dt}")


CUT_POINTS = [2 + 0j, complex(2, -0.0), -2 + 0j, complex(-2, -0.0), 2j, complex(-0.0, 2), -2j, complex(-0.0, -2),
              1e6 + 0j, 0.5 + 0j, complex(0.5, -0.0), complex(-0.5, -0.0), 0j, complex(-0.0, -0.0), 1 + 0j, -1 + 0j,
              1j, -1j, complex(1, -0.0), complex(-3, 1e-300), complex(math.inf, 1.0), complex(math.nan, 1.0)]


@pytest.mark.parametrize("name", ["asinh", "acosh", "atanh"])
def test_inverse_hyperbolic_complex_branch_cuts(name):
    """On the branch cuts the sign of a zero part picks the side, as C99 and PyTorch."""
    z = np.array(CUT_POINTS, dtype=np.complex128)
    ours = getattr(torch, name)(torch.from_numpy(z)).numpy()
    theirs = getattr(pt, name)(pt.from_numpy(z)).numpy()
    for c, a, b in zip(CUT_POINTS, ours, theirs):
        if np.isnan(b.real) or np.isnan(b.imag) or np.isinf(b.real) and c.real in (math.inf,):
            continue
        assert np.isclose(a, b, rtol=1e-14, atol=0) or (np.isinf(a.real) and a.real == b.real), (name, c, a, b)
        for part in ("real", "imag"):
            if getattr(b, part) == 0 or math.isinf(getattr(b, part)):
                assert np.signbit(getattr(a, part)) == np.signbit(getattr(b, part)), (name, c, a, b)


@pytest.mark.parametrize("name", ["asinh", "acosh", "atanh", "deg2rad", "rad2deg"])
def test_unary_gradients(name):
    data = UNARY_DOMAIN[name](6).reshape(2, 3)
    a, b = _pair(data, "float64")
    a.requires_grad_(True)
    b.requires_grad_(True)
    g = RNG.normal(size=(2, 3))
    (ga,) = torch.autograd.grad(getattr(torch, name)(a), a, torch.from_numpy(g.copy()), create_graph=True)
    (gb,) = pt.autograd.grad(getattr(pt, name)(b), b, pt.from_numpy(g.copy()), create_graph=True)
    _same(ga, gb, f"{name} grad")
    if name not in ("deg2rad", "rad2deg"):
        # Double backward: the backward is itself differentiable.
        (gga,) = torch.autograd.grad(ga.sum(), a)
        (ggb,) = pt.autograd.grad(gb.sum(), b)
        _same(gga, ggb, f"{name} double backward")
    x = torch.from_numpy(data.copy()).requires_grad_(True)
    assert torch.autograd.gradcheck(getattr(torch, name), (x,))
    if name not in ("deg2rad", "rad2deg"):
        assert torch.autograd.gradgradcheck(getattr(torch, name), (x,))


def test_inverse_hyperbolic_grad_edges():
    a, b = _pair([-2.0, 0.5, 1.0, 2.0, 1e20, -0.0], "float64")
    for name in ("asinh", "acosh", "atanh"):
        x, y = a.clone().requires_grad_(True), b.clone().requires_grad_(True)
        getattr(torch, name)(x).sum().backward()
        getattr(pt, name)(y).sum().backward()
        _same(x.grad, y.grad, f"{name} grad at edges")


@pytest.mark.parametrize("name", ["asinh_", "acosh_", "atanh_", "arcsinh_", "arccosh_", "arctanh_", "deg2rad_", "rad2deg_"])
def test_unary_inplace(name):
    base = name.rstrip("_").replace("arc", "a") if name.startswith("arc") else name.rstrip("_")
    data = UNARY_DOMAIN[base](6).reshape(2, 3)
    for dtype in ("float32", "float64"):
        a, b = _pair(data, dtype)
        v = a._version
        r = getattr(a, name)()
        assert r is a and a._version > v
        getattr(b, name)()
        _same(a, b, f"Tensor.{name} {dtype}")
        a, b = _pair(data, dtype)
        assert getattr(torch, name)(a) is a
        _same(a, getattr(pt, name)(b), f"torch.{name}")
    # Non-contiguous self.
    a, b = _pair(data.T.copy(), "float32")
    getattr(a.t(), name)()
    getattr(b.t(), name)()
    _same(a, b, f"{name} on a transposed view")
    # An integer tensor cannot hold the float result.
    with pytest.raises(RuntimeError):
        getattr(torch.tensor([1, 2]), name)()
    with pytest.raises(RuntimeError):
        getattr(pt.tensor([1, 2]), name)()
    # Autograd through the in-place op on a non-leaf.
    a, b = _pair(data, "float64")
    x, y = a.clone().requires_grad_(True), b.clone().requires_grad_(True)
    xs = x * 1
    getattr(xs, name)()
    # PyTorch defines no derivative for the in-place inverse hyperbolics: the out-of-place
    # op is the reference.
    ys = getattr(pt, name[:-1])(y * 1)
    (xs * xs).sum().backward()
    (ys * ys).sum().backward()
    _same(x.grad, y.grad, f"{name} grad")
    with pytest.raises(RuntimeError):
        getattr(torch.ones(2, requires_grad=True), name)()


def test_inverse_hyperbolic_complex_grad():
    z = RNG.normal(0, 1, 4) + 1j * RNG.normal(0, 1, 4)
    for name in ("asinh", "acosh", "atanh"):
        a, b = torch.from_numpy(z.copy()).requires_grad_(True), pt.from_numpy(z.copy()).requires_grad_(True)
        getattr(torch, name)(a).abs().sum().backward()
        getattr(pt, name)(b).abs().sum().backward()
        assert_close(a.grad, b.grad, rtol=1e-10, atol=1e-12, what=f"{name} complex grad")


# ---- binary pointwise ----

def _binary_data(kind):
    x = RNG.normal(size=(3, 4))
    y = RNG.normal(size=(3, 4))
    if kind == "nan":
        x[0, 1] = y[1, 2] = np.nan
        x[2, 3] = y[2, 3] = np.nan
        x[1, 0] = y[1, 0]
    return x, y


@pytest.mark.parametrize("dtypes", [("float32", "float32"), ("float64", "float32"), ("int64", "float32"),
                                    ("int64", "int64"), ("float16", "float16"), ("bool", "int64")])
@pytest.mark.parametrize("name", ["fmax", "fmin"])
def test_fmax_fmin(name, dtypes):
    x, y = _binary_data("nan" if "float" in dtypes[0] else "plain")
    if dtypes[0] in ("int64", "bool"):
        x = np.round(x * 3) if dtypes[0] == "int64" else x > 0
    if dtypes[1] == "int64":
        y = np.round(y * 3)
    a, b = _pair(x, dtypes[0])
    c, d = _pair(y, dtypes[1])
    for layout, (p, q), (r, s) in (("contig", (a, b), (c, d)), ("transposed", (a.t(), b.t()), (c.t(), d.t())),
                                   ("broadcast", (a, b), (c[1], d[1])), ("0d", (a[0, 0], b[0, 0]), (c, d))):
        _same(getattr(torch, name)(p, r), getattr(pt, name)(q, s), f"{name} {dtypes} {layout}", exact=True)
        _same(getattr(p, name)(r), getattr(q, name)(s), f"Tensor.{name} {dtypes} {layout}", exact=True)
    with pytest.raises(TypeError):
        getattr(torch, name)(a, 2.0)


@pytest.mark.parametrize("name", ["fmax", "fmin"])
def test_fmax_fmin_grad(name):
    x, y = _binary_data("nan")
    x[0, 0] = y[0, 0]  # a tie: PyTorch sends the whole gradient to input
    a, b = _pair(x, "float64")
    c, d = _pair(y, "float64")
    for t in (a, b, c, d):
        t.requires_grad_(True)
    getattr(torch, name)(a, c).sum().backward()
    getattr(pt, name)(b, d).sum().backward()
    _same(a.grad, b.grad, f"{name} grad input")
    _same(c.grad, d.grad, f"{name} grad other")
    p = torch.from_numpy(RNG.normal(size=5)).requires_grad_(True)
    q = torch.from_numpy(RNG.normal(size=5)).requires_grad_(True)
    assert torch.autograd.gradcheck(getattr(torch, name), (p, q))


INT_DTYPES = ["int64", "int32", "int16", "int8", "uint8"]


@pytest.mark.parametrize("dtype", INT_DTYPES)
@pytest.mark.parametrize("name", ["gcd", "lcm"])
def test_gcd_lcm(name, dtype):
    lo = 0 if dtype == "uint8" else -12
    x = RNG.integers(lo, 12, size=(4, 5))
    y = RNG.integers(lo, 12, size=(4, 5))
    x[0, 0] = y[0, 0] = 0
    x[0, 1] = 0
    b, d = pt.from_numpy(x).to(getattr(pt, dtype)), pt.from_numpy(y).to(getattr(pt, dtype))
    a, c = to_ft(b), to_ft(d)
    _same(getattr(torch, name)(a, c), getattr(pt, name)(b, d), f"{name} {dtype}", exact=True)
    _same(getattr(a.t(), name)(c.t()), getattr(b.t(), name)(d.t()), f"{name} {dtype} transposed", exact=True)
    _same(getattr(torch, name)(a, c[2]), getattr(pt, name)(b, d[2]), f"{name} {dtype} broadcast", exact=True)
    _same(getattr(torch, name)(a[:0], c[:0]), getattr(pt, name)(b[:0], d[:0]), f"{name} empty", exact=True)
    a2, b2 = a.clone(), b.clone()
    assert getattr(a2, name + "_")(c) is a2
    getattr(b2, name + "_")(d)
    _same(a2, b2, f"{name}_", exact=True)
    assert getattr(torch, name + "_")(a.clone(), c) is not None


def test_gcd_lcm_large_and_mixed():
    x = np.array([2**40 * 3, 832040, -1134903170, 0, 7, 2**62])
    y = np.array([2**35 * 9, 514229, 701408733, -9, 0, 2**61])
    b, d = pt.from_numpy(x), pt.from_numpy(y)
    for name in ("gcd", "lcm"):
        _same(getattr(torch, name)(to_ft(b), to_ft(d)), getattr(pt, name)(b, d), name, exact=True)
    # int32 with int64 promotes.
    i32 = pt.tensor([4, 6], dtype=pt.int32)
    _same(torch.gcd(to_ft(i32), to_ft(d[:2])), pt.gcd(i32, d[:2]), "gcd int32/int64", exact=True)


@pytest.mark.parametrize("name", ["gcd", "lcm"])
def test_gcd_lcm_errors(name):
    for lhs, rhs in ((torch.tensor([1.0]), torch.tensor([2.0])), (torch.tensor([True]), torch.tensor([True])),
                     (torch.tensor([1]), torch.tensor([2.0]))):
        with pytest.raises(NotImplementedError):
            getattr(torch, name)(lhs, rhs)
        with pytest.raises(NotImplementedError):
            getattr(pt, name)(to_pt(lhs), to_pt(rhs))
    with pytest.raises(TypeError):
        getattr(torch, name)(torch.tensor([4]), 6)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "bool"])
def test_heaviside(dtype):
    x = np.array([[-1.5, 0.0, 2.0, -0.0], [0.0, 3.0, -2.0, np.nan if "float" in dtype else 1.0]])
    if dtype in ("int64", "bool"):
        x = np.nan_to_num(np.round(x))
    v = np.array([0.5, 7.0, -1.0, 2.0])
    if dtype in ("int64", "bool"):
        v = np.round(v)
    a, b = _pair(x, dtype)
    c, d = _pair(v, dtype)
    _same(torch.heaviside(a, c), pt.heaviside(b, d), f"heaviside {dtype}", exact=True)
    _same(a.t().heaviside(c[:2]), b.t().heaviside(d[:2]), "heaviside transposed", exact=True)
    a2, b2 = a.clone(), b.clone()
    assert a2.heaviside_(c) is a2
    _same(a2, b2.heaviside_(d), "heaviside_", exact=True)


def test_heaviside_errors():
    with pytest.raises(RuntimeError):
        torch.heaviside(torch.tensor([1.0]), torch.tensor([2.0], dtype=torch.float64))
    with pytest.raises(RuntimeError):
        pt.heaviside(pt.tensor([1.0]), pt.tensor([2.0], dtype=pt.float64))
    with pytest.raises(TypeError):
        torch.heaviside(torch.tensor([1.0]), 2.0)


@pytest.mark.parametrize("dtypes", [("float32", "float32"), ("float64", "float32"), ("float16", "float16"),
                                    ("bfloat16", "bfloat16")])
def test_logaddexp2(dtypes):
    x, y = RNG.normal(0, 10, (3, 4)), RNG.normal(0, 10, (3, 4))
    x[0, :3] = [np.inf, -np.inf, np.inf]
    y[0, :3] = [np.inf, -np.inf, -np.inf]
    x[1, 0] = y[1, 0] = 5.0
    x[2, 0] = np.nan
    a, b = _pair(x, dtypes[0])
    c, d = _pair(y, dtypes[1])
    _same(torch.logaddexp2(a, c), pt.logaddexp2(b, d), f"logaddexp2 {dtypes}")
    _same(a.t().logaddexp2(c.t()), b.t().logaddexp2(d.t()), "logaddexp2 transposed")
    _same(torch.logaddexp2(a[:, 1:], c[0, 1:]), pt.logaddexp2(b[:, 1:], d[0, 1:]), "logaddexp2 broadcast")
    with pytest.raises(NotImplementedError):
        torch.logaddexp2(torch.tensor([1]), torch.tensor([2]))
    with pytest.raises(TypeError):
        torch.logaddexp2(a, 2.0)


def test_logaddexp2_grad():
    x, y = RNG.normal(size=(2, 3)), RNG.normal(size=(2, 3))
    x[0, 0] = y[0, 0]
    a, b = _pair(x, "float64")
    c, d = _pair(y, "float64")
    for t in (a, b, c, d):
        t.requires_grad_(True)
    torch.logaddexp2(a, c).sum().backward()
    pt.logaddexp2(b, d).sum().backward()
    _same(a.grad, b.grad, "logaddexp2 grad input")
    _same(c.grad, d.grad, "logaddexp2 grad other")
    assert torch.autograd.gradcheck(torch.logaddexp2, (a.detach().requires_grad_(True), c.detach().requires_grad_(True)))


@pytest.mark.parametrize("dtypes", [("float32", "int64"), ("float64", "int64"), ("int64", "int64"),
                                    ("float32", "float32"), ("float16", "int32")])
def test_ldexp(dtypes):
    x = RNG.normal(size=(3, 4))
    e = RNG.integers(-10, 10, size=(3, 4)).astype(np.float64)
    if dtypes[0] == "int64":
        x = np.round(x * 5)
    a, b = _pair(x, dtypes[0])
    c, d = _pair(e, dtypes[1])
    _same(torch.ldexp(a, c), pt.ldexp(b, d), f"ldexp {dtypes}")
    _same(a.t().ldexp(c.t()), b.t().ldexp(d.t()), "ldexp transposed")
    _same(torch.ldexp(a, c[0]), pt.ldexp(b, d[0]), "ldexp broadcast")
    if dtypes[0] != "int64":
        a2, b2 = a.clone(), b.clone()
        assert a2.ldexp_(c) is a2
        _same(a2, b2.ldexp_(d), "ldexp_")
        assert torch.ldexp_(a.clone(), c) is not None
    else:
        with pytest.raises(RuntimeError):
            a.clone().ldexp_(c)
        with pytest.raises(RuntimeError):
            b.clone().ldexp_(d)
    with pytest.raises(TypeError):
        torch.ldexp(a, 2)


def test_ldexp_grad():
    a, b = _pair(RNG.normal(size=4), "float64")
    c, d = _pair([1, -2, 3, 0], "int64")
    a.requires_grad_(True)
    b.requires_grad_(True)
    torch.ldexp(a, c).sum().backward()
    pt.ldexp(b, d).sum().backward()
    _same(a.grad, b.grad, "ldexp grad")
    assert torch.autograd.gradcheck(lambda t: torch.ldexp(t, c), (a.detach().requires_grad_(True),))


FREXP_VALUES = [0.0, -0.0, math.inf, -math.inf, math.nan, 1e-40, -3.5, 3e38, 1.0, 0.5, 2.0**-149, 1.5, -1.0,
                1e-310, 5e-324, 1.7976931348623157e308, 0.1, 7.0, 1023.9, 2.0**-1022]


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_frexp(dtype):
    a, b = _pair(FREXP_VALUES, dtype)
    m, e = torch.frexp(a)
    M, E = pt.frexp(b)
    _same(m, M, f"frexp mantissa {dtype}", exact=True)
    _same(e, E, f"frexp exponent {dtype}", exact=True)
    r = a.reshape(4, 5).t().frexp()
    R = b.reshape(4, 5).t().frexp()
    assert type(r).__name__ == "frexp" and r._fields == ("mantissa", "exponent")
    _same(r.mantissa, R.mantissa, "frexp transposed", exact=True)
    _same(r.exponent, R.exponent, "frexp transposed", exact=True)
    m0, e0 = torch.frexp(a[:0])
    assert m0.shape == (0,) and e0.dtype == torch.int32
    with pytest.raises(RuntimeError):
        torch.frexp(torch.tensor([1]))


def test_frexp_grad():
    a, b = _pair(RNG.normal(0, 10, 5), "float64")
    a.requires_grad_(True)
    b.requires_grad_(True)
    torch.frexp(a).mantissa.sum().backward()
    pt.frexp(b).mantissa.sum().backward()
    _same(a.grad, b.grad, "frexp grad")
    assert not torch.frexp(a).exponent.requires_grad
    assert torch.autograd.gradcheck(lambda t: torch.frexp(t).mantissa, (a.detach().requires_grad_(True),))


@pytest.mark.parametrize("dtype", FLOAT_DTYPES + ["int64", "int8", "bool"])
def test_signbit(dtype):
    # (A NaN with the sign bit set is left out: ferrotorch's copysign does not read it.)
    vals = [0.0, -0.0, 1.0, -2.0, math.inf, -math.inf, math.nan, 1e-40, -1e-40, -3.0]
    if dtype in ("int64", "int8", "bool"):
        vals = [0, -1, 2, 3, -5, 7] if dtype != "bool" else [0, 1, 1, 0]
    b = pt.tensor(vals, dtype=getattr(pt, dtype))
    a = to_ft(b)
    _same(torch.signbit(a), pt.signbit(b), f"signbit {dtype}", exact=True)
    _same(a[::2].signbit(), b[::2].signbit(), f"signbit sliced {dtype}", exact=True)
    _same(torch.signbit(a[0]), pt.signbit(b[0]), f"signbit 0d {dtype}", exact=True)
    with pytest.raises(NotImplementedError):
        torch.signbit(torch.tensor([1 + 1j]))


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_nextafter(dtype):
    vals = [0.0, -0.0, math.inf, -math.inf, math.nan, 1e-40, -3.5, 3e38, 1.0, 0.5, 1.5, -1.0, 2.0**-149, 1e-310]
    a, b = _pair(vals, dtype)
    for target in (math.inf, -math.inf, 0.0, -0.0, 1.0, -1.0, math.nan):
        c, d = _pair([target] * len(vals), dtype)
        ours, theirs = torch.nextafter(a, c), pt.nextafter(b, d)
        # Bit-exact, signs of zero included.
        got = ours.float().numpy() if dtype == "bfloat16" else ours.numpy()
        want = theirs.float().numpy() if dtype == "bfloat16" else theirs.numpy()
        np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8), err_msg=f"nextafter {dtype} -> {target}")
    _same(a.reshape(2, 7).t().nextafter(c.reshape(2, 7).t()), b.reshape(2, 7).t().nextafter(d.reshape(2, 7).t()),
          "nextafter transposed", exact=True)
    a2, b2 = a.clone(), b.clone()
    assert a2.nextafter_(c) is a2
    _same(a2, b2.nextafter_(d), "nextafter_", exact=True)


def test_nextafter_errors_and_promotion():
    _same(torch.nextafter(torch.tensor([1.0]), torch.tensor([2.0], dtype=torch.float64)),
          pt.nextafter(pt.tensor([1.0]), pt.tensor([2.0], dtype=pt.float64)), "nextafter promotion", exact=True)
    with pytest.raises(NotImplementedError):
        torch.nextafter(torch.tensor([1]), torch.tensor([2]))
    with pytest.raises(TypeError):
        torch.nextafter(torch.tensor([1.0]), 2.0)


@pytest.mark.parametrize("dtype", ["float32", "int64", "bool", "complex64", "complex128"])
def test_isreal(dtype):
    b = pt.tensor([1 + 0j, 1 + 1j, 0j, -2 - 0j]) if "complex" in dtype else pt.tensor([1, 0, 1, 1])
    b = b.to(getattr(pt, dtype))
    a = to_ft(b)
    _same(torch.isreal(a), pt.isreal(b), f"isreal {dtype}", exact=True)
    _same(a[::2].isreal(), b[::2].isreal(), f"Tensor.isreal {dtype}", exact=True)


def test_unary_errors():
    for name in ("deg2rad", "rad2deg"):
        with pytest.raises(NotImplementedError):
            getattr(torch, name)(torch.tensor([1 + 1j]))


# ---- in-place Tensor methods over existing ops ----

def test_float_power_inplace():
    a, b = _pair([1.5, 2.0, 3.0], "float64")
    assert a.float_power_(2) is a
    _same(a, b.float_power_(2), "float_power_")
    a, b = _pair([1.5, 2.0, 3.0], "float64")
    c, d = _pair([0.5, 2.0, -1.0], "float32")
    _same(a.float_power_(c), b.float_power_(d), "float_power_ tensor")
    with pytest.raises(RuntimeError, match="float_power_"):
        torch.tensor([1.0]).float_power_(2)


@pytest.mark.parametrize("name,args", [("logit_", ()), ("logit_", (0.1,)), ("atan2_", ("other",)),
                                       ("arctan2_", ("other",)), ("xlogy_", ("other",))])
def test_more_inplace(name, args):
    x = RNG.uniform(0.05, 0.95, (3, 4))
    y = RNG.uniform(-2, 2, (3, 4))
    for dtype in ("float32", "float64"):
        a, b = _pair(x, dtype)
        c, d = _pair(y, dtype)
        ours = [c if v == "other" else v for v in args]
        theirs = [d if v == "other" else v for v in args]
        assert getattr(a, name)(*ours) is a
        getattr(b, name)(*theirs)
        _same(a, b, f"Tensor.{name} {dtype}")
        if hasattr(pt, name):
            a, b = _pair(x, dtype)
            assert getattr(torch, name)(a, *ours) is a
            _same(a, getattr(pt, name)(b, *theirs), f"torch.{name}")
    a, b = _pair(x, "float64")
    xs, ys = a.clone().requires_grad_(True), b.clone().requires_grad_(True)
    u, w = xs * 1, ys * 1
    c, d = _pair(y, "float64")
    getattr(u, name)(*[c if v == "other" else v for v in args])
    getattr(w, name)(*[d if v == "other" else v for v in args])
    u.sum().backward()
    w.sum().backward()
    _same(xs.grad, ys.grad, f"{name} grad")


def test_hardshrink_prelu_methods():
    a, b = _pair(RNG.normal(size=(2, 3, 4)), "float32")
    _same(a.hardshrink(), b.hardshrink(), "Tensor.hardshrink")
    _same(a.hardshrink(0.9), b.hardshrink(0.9), "Tensor.hardshrink lambd")
    c, d = _pair([0.25, -0.5, 0.1], "float32")
    _same(a.prelu(c), b.prelu(d), "Tensor.prelu")
    _same(a.prelu(c[:1]), b.prelu(d[:1]), "Tensor.prelu shared weight")


COMPARE = ["eq_", "ne_", "lt_", "le_", "gt_", "ge_", "greater_", "greater_equal_", "less_", "less_equal_",
           "not_equal_", "logical_and_", "logical_or_", "logical_xor_"]


@pytest.mark.parametrize("dtype", ["float32", "int64", "bool"])
@pytest.mark.parametrize("name", COMPARE)
def test_comparison_inplace(name, dtype):
    x = RNG.integers(-2, 3, (3, 4)).astype(np.float64)
    y = RNG.integers(-2, 3, (3, 4)).astype(np.float64)
    if dtype == "bool":
        x, y = x > 0, y > 0
    kinds = ("tensor", "row", "float_tensor") + (() if name.startswith("logical") else ("scalar",))
    for other_kind in kinds:
        a, b = _pair(x, dtype)
        if other_kind == "scalar":
            c = d = 1
        elif other_kind == "float_tensor":
            c, d = _pair(y * 0.5, "float64")
        else:
            c, d = _pair(y if other_kind == "tensor" else y[1], dtype)
        v = a._version
        assert getattr(a, name)(c) is a and a._version > v
        getattr(b, name)(d)
        _same(a, b, f"{name} {dtype} {other_kind}", exact=True)
    a, b = _pair(x, dtype)
    c, d = _pair(y, dtype)
    getattr(a.t(), name)(c.t())
    getattr(b.t(), name)(d.t())
    _same(a, b, f"{name} transposed", exact=True)
    with pytest.raises(RuntimeError):
        getattr(a[0], name)(c)
    with pytest.raises(RuntimeError):
        getattr(b[0], name)(d)


@pytest.mark.parametrize("name", ["logical_not_", "bitwise_not_"])
@pytest.mark.parametrize("dtype", ["float32", "int64", "int8", "bool"])
def test_unary_logic_inplace(name, dtype):
    x = RNG.integers(-3, 3, (3, 4)).astype(np.float64)
    if dtype == "bool":
        x = x > 0
    a, b = _pair(x, dtype)
    if name == "bitwise_not_" and dtype == "float32":
        with pytest.raises((RuntimeError, NotImplementedError, TypeError)):
            a.bitwise_not_()
        with pytest.raises(NotImplementedError):
            b.bitwise_not_()
        return
    assert getattr(a, name)() is a
    getattr(b, name)()
    _same(a, b, f"{name} {dtype}", exact=True)
    a, b = _pair(x, dtype)
    getattr(a.t(), name)()
    getattr(b.t(), name)()
    _same(a, b, f"{name} transposed {dtype}", exact=True)


@pytest.mark.parametrize("name", ["bitwise_left_shift_", "bitwise_right_shift_"])
@pytest.mark.parametrize("dtype", ["int64", "int32", "uint8"])
def test_shift_inplace(name, dtype):
    x = RNG.integers(0, 50, (3, 4)).astype(np.float64)
    s = RNG.integers(0, 3, (3, 4)).astype(np.float64)
    a, b = _pair(x, dtype)
    c, d = _pair(s, dtype)
    assert getattr(a, name)(c) is a
    _same(a, getattr(b, name)(d), f"{name} {dtype}", exact=True)
    a, b = _pair(x, dtype)
    _same(getattr(a, name)(1), getattr(b, name)(1), f"{name} scalar", exact=True)


@pytest.mark.parametrize("name,kw", [("divide_", {}), ("divide_", {"rounding_mode": "floor"}),
                                     ("divide_", {"rounding_mode": "trunc"}), ("multiply_", {}),
                                     ("subtract_", {}), ("subtract_", {"alpha": 3}), ("true_divide_", {})])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
def test_arith_inplace(name, kw, dtype):
    x = RNG.integers(-9, 9, (3, 4)).astype(np.float64)
    y = RNG.integers(1, 5, (3, 4)).astype(np.float64)
    a, b = _pair(x, dtype)
    c, d = _pair(y, dtype)
    true_div = name in ("true_divide_",) or (name == "divide_" and not kw)
    if dtype == "int64" and true_div:
        with pytest.raises(RuntimeError):
            getattr(a, name)(c, **kw)
        with pytest.raises(RuntimeError):
            getattr(b, name)(d, **kw)
        return
    assert getattr(a, name)(c, **kw) is a
    _same(a, getattr(b, name)(d, **kw), f"{name} {kw} {dtype}")
    a, b = _pair(x, dtype)
    getattr(a.t(), name)(c[0, :3], **kw)
    getattr(b.t(), name)(d[0, :3], **kw)
    _same(a, b, f"{name} {kw} broadcast {dtype}")
    if "float" in dtype:
        a, b = _pair(x, dtype)
        c, d = _pair(y, dtype)
        xs, ys = a.requires_grad_(True) * 1, b.requires_grad_(True) * 1
        getattr(xs, name)(c, **kw)
        getattr(ys, name)(d, **kw)
        (xs * xs).sum().backward()
        (ys * ys).sum().backward()
        _same(a.grad, b.grad, f"{name} grad")


@pytest.mark.parametrize("name", ["cumsum_", "cumprod_"])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
def test_cumulative_inplace(name, dtype):
    x = RNG.integers(-3, 4, (3, 4)).astype(np.float64)
    for dim in (0, 1, -1):
        a, b = _pair(x, dtype)
        assert getattr(a, name)(dim) is a
        _same(a, getattr(b, name)(dim), f"{name} {dtype} dim={dim}")
    a, b = _pair(x, dtype)
    getattr(a.t(), name)(0)
    getattr(b.t(), name)(0)
    _same(a, b, f"{name} transposed")
    _same(getattr(a.reshape(-1)[:0], name)(0), getattr(b.reshape(-1)[:0], name)(0), f"{name} empty")
    with pytest.raises(RuntimeError):
        getattr(torch.tensor([1, 2]), name)(0, dtype=torch.float32)
    if dtype == "float64":
        a, b = _pair(RNG.normal(size=(2, 3)), dtype)
        xs, ys = a.requires_grad_(True) * 1, b.requires_grad_(True) * 1
        getattr(xs, name)(1)
        getattr(ys, name)(1)
        xs.sum().backward()
        ys.sum().backward()
        _same(a.grad, b.grad, f"{name} grad")


@pytest.mark.parametrize("shape,value,wrap", [((3, 3), 5, False), ((7, 3), 5, True), ((7, 3), 5, False),
                                              ((2, 5), -1.5, True), ((3, 5), 2, False), ((2, 2, 2), 4, False),
                                              ((3, 3, 3, 3), 1, False), ((2, 0), 5, True), ((4, 4), 2.5, False)])
@pytest.mark.parametrize("dtype", ["float32", "int64"])
def test_fill_diagonal(shape, value, wrap, dtype):
    if dtype == "int64" and isinstance(value, float):
        value = int(value)
    a, b = _pair(RNG.normal(size=shape) * 3, dtype)
    assert a.fill_diagonal_(value, wrap=wrap) is a
    _same(a, b.fill_diagonal_(value, wrap=wrap), f"fill_diagonal_ {shape} {wrap}", exact=True)
    if len(shape) == 2:
        a, b = _pair(np.zeros(shape[::-1]), dtype)
        a.t().fill_diagonal_(value, wrap)
        b.t().fill_diagonal_(value, wrap)
        _same(a, b, "fill_diagonal_ transposed", exact=True)


def test_fill_diagonal_errors_and_grad():
    for shape in ((3,), (2, 3, 2)):
        with pytest.raises(RuntimeError):
            torch.zeros(*shape).fill_diagonal_(1)
        with pytest.raises(RuntimeError):
            pt.zeros(*shape).fill_diagonal_(1)
    a, b = _pair(RNG.normal(size=(3, 3)), "float64")
    xs, ys = a.requires_grad_(True) * 2, b.requires_grad_(True) * 2
    xs.fill_diagonal_(0)
    ys.fill_diagonal_(0)
    xs.sum().backward()
    ys.sum().backward()
    _same(a.grad, b.grad, "fill_diagonal_ grad")


# ---- random fills (moments and reproducibility, not PyTorch's numbers) ----

def test_cauchy_geometric_log_normal():
    torch.manual_seed(3)
    x = torch.empty(200000, dtype=torch.float64).cauchy_(median=2.0, sigma=0.5)
    # The median and the quartiles at median -+ sigma.
    q = np.quantile(x.numpy(), [0.25, 0.5, 0.75])
    np.testing.assert_allclose(q, [1.5, 2.0, 2.5], atol=0.02)
    torch.manual_seed(3)
    assert torch.equal(torch.empty(200000, dtype=torch.float64).cauchy_(median=2.0, sigma=0.5), x)

    g = torch.empty(200000, dtype=torch.int64).geometric_(0.25)
    arr = g.numpy()
    assert arr.min() >= 1
    np.testing.assert_allclose(arr.mean(), 4.0, rtol=0.02)  # 1/p
    np.testing.assert_allclose(arr.var(), 12.0, rtol=0.05)  # (1-p)/p^2
    np.testing.assert_allclose((arr == 1).mean(), 0.25, atol=0.005)
    gf = torch.empty(1000, dtype=torch.float32).geometric_(0.5)
    assert gf.dtype == torch.float32 and bool((gf == gf.round()).all())

    ln = torch.empty(200000, dtype=torch.float64).log_normal_(0.5, 0.25)
    logs = np.log(ln.numpy())
    np.testing.assert_allclose([logs.mean(), logs.std()], [0.5, 0.25], rtol=0.02)
    d = torch.empty(100).log_normal_()
    assert d.dtype == torch.float32 and bool((d > 0).all())

    gen = torch.Generator().manual_seed(5)
    s1 = torch.empty(5).cauchy_(generator=gen)
    gen.manual_seed(5)
    assert torch.equal(torch.empty(5).cauchy_(generator=gen), s1)

    t = torch.empty(4)
    v = t._version
    assert t.cauchy_() is t and t._version > v
    with pytest.raises(RuntimeError):
        torch.empty(3).cauchy_(sigma=-1)
    with pytest.raises(RuntimeError):
        torch.empty(3, dtype=torch.int64).cauchy_()
    with pytest.raises(RuntimeError):
        torch.empty(3).geometric_(1.5)
    with pytest.raises(RuntimeError):
        torch.empty(3).log_normal_(std=-1)
    with pytest.raises(NotImplementedError):
        torch.empty(3, dtype=torch.int64).log_normal_()
    with pytest.raises(RuntimeError):
        torch.ones(2, requires_grad=True).cauchy_()


# ---- matrix accumulation ----

ADDBMM_CASES = [((2, 3), (4, 2, 5), (4, 5, 3), {}), ((3,), (4, 2, 5), (4, 5, 3), {"beta": 0.5, "alpha": 2.0}),
                ((2, 3), (4, 2, 5), (4, 5, 3), {"beta": 0}), ((1, 1), (0, 2, 5), (0, 5, 3), {"alpha": 3}),
                ((2, 3), (1, 2, 0), (1, 0, 3), {"beta": 2})]


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
@pytest.mark.parametrize("case", ADDBMM_CASES)
def test_addbmm(case, dtype):
    s_in, s1, s2, kw = case
    if dtype == "int64":
        kw = {k: int(v) for k, v in kw.items()}
    x = np.round(RNG.normal(size=s_in) * 3)
    p, q = np.round(RNG.normal(size=s1) * 3), np.round(RNG.normal(size=s2) * 3)
    if kw.get("beta") == 0 and dtype != "int64":
        x[...] = np.nan  # ignored when beta is 0
    a, b = _pair(x, dtype)
    c, d = _pair(p, dtype)
    e, f = _pair(q, dtype)
    _same(torch.addbmm(a, c, e, **kw), pt.addbmm(b, d, f, **kw), f"addbmm {case}")
    _same(a.addbmm(c.transpose(1, 2).contiguous().transpose(1, 2), e, **kw), b.addbmm(d, f, **kw), "addbmm strided")
    if tuple(s_in) == (2, 3):
        a2, b2 = a.clone(), b.clone()
        assert a2.addbmm_(c, e, **kw) is a2
        _same(a2, b2.addbmm_(d, f, **kw), "addbmm_")


def test_addbmm_errors_and_grad():
    x = torch.zeros(2, 3)
    with pytest.raises(RuntimeError):
        torch.addbmm(x, torch.ones(4, 2, 5), torch.ones(4, 6, 3))
    with pytest.raises(RuntimeError):
        torch.addbmm(x, torch.ones(4, 2, 5), torch.ones(3, 5, 3))
    with pytest.raises(IndexError):
        torch.addbmm(x, torch.ones(2, 5), torch.ones(5, 3))
    with pytest.raises(RuntimeError):
        torch.addbmm(x, torch.ones(4, 2, 5), torch.ones(4, 5, 3, dtype=torch.float64))
    with pytest.raises(RuntimeError):
        torch.addbmm(torch.zeros(3, 2), torch.ones(4, 2, 5), torch.ones(4, 5, 3))
    with pytest.raises(RuntimeError):
        torch.zeros(3).addbmm_(torch.ones(4, 2, 5), torch.ones(4, 5, 3))
    ins = [RNG.normal(size=s) for s in ((2, 3), (4, 2, 5), (4, 5, 3))]
    ours = [torch.from_numpy(v.copy()).requires_grad_(True) for v in ins]
    theirs = [pt.from_numpy(v.copy()).requires_grad_(True) for v in ins]
    torch.addbmm(*ours, beta=0.5, alpha=2.0).sum().backward()
    pt.addbmm(*theirs, beta=0.5, alpha=2.0).sum().backward()
    for o, t in zip(ours, theirs):
        _same(o.grad, t.grad, "addbmm grad")
    assert torch.autograd.gradcheck(lambda i, p, q: torch.addbmm(i, p, q, beta=0.5, alpha=2.0),
                                    tuple(o.detach().requires_grad_(True) for o in ours))


ADDR_CASES = [("float32", "float32", {}), ("float64", "float64", {"beta": 0.5, "alpha": 2.0}),
              ("int64", "int64", {"beta": 2, "alpha": 3}), ("float32", "int64", {}), ("bool", "bool", {}),
              ("bool", "bool", {"beta": False}), ("float32", "float32", {"beta": 0})]


@pytest.mark.parametrize("case", ADDR_CASES)
def test_addr(case):
    din, dv, kw = case
    x = RNG.normal(size=(3, 4)) > 0 if din == "bool" else np.round(RNG.normal(size=(3, 4)) * 3)
    v1 = RNG.normal(size=3) > 0 if dv == "bool" else np.round(RNG.normal(size=3) * 3)
    v2 = RNG.normal(size=4) > 0 if dv == "bool" else np.round(RNG.normal(size=4) * 3)
    a, b = _pair(x, din)
    c, d = _pair(v1, dv)
    e, f = _pair(v2, dv)
    _same(torch.addr(a, c, e, **kw), pt.addr(b, d, f, **kw), f"addr {case}")
    _same(a[0].addr(c, e, **kw), b[0].addr(d, f, **kw), f"addr broadcast input {case}")
    _same(torch.addr(a.t(), e, c, **kw), pt.addr(b.t(), f, d, **kw), f"addr transposed {case}")
    if din == dv:
        a2, b2 = a.clone(), b.clone()
        assert a2.addr_(c, e, **kw) is a2
        _same(a2, b2.addr_(d, f, **kw), "addr_")


def test_addr_errors_and_grad():
    with pytest.raises(RuntimeError):
        torch.addr(torch.zeros(2, 3), torch.ones(2), torch.ones(3, 1))
    with pytest.raises(RuntimeError):
        torch.addr(torch.zeros(2, 3), torch.ones(2), torch.ones(4))
    with pytest.raises(RuntimeError):
        torch.addr(torch.zeros(3, dtype=torch.int64), torch.ones(2, dtype=torch.int64), torch.ones(3, dtype=torch.int64), beta=1.5)
    ins = [RNG.normal(size=s) for s in ((2, 3), (2,), (3,))]
    ours = [torch.from_numpy(v.copy()).requires_grad_(True) for v in ins]
    theirs = [pt.from_numpy(v.copy()).requires_grad_(True) for v in ins]
    torch.addr(*ours, beta=0.5, alpha=-2.0).sum().backward()
    pt.addr(*theirs, beta=0.5, alpha=-2.0).sum().backward()
    for o, t in zip(ours, theirs):
        _same(o.grad, t.grad, "addr grad")
    assert torch.autograd.gradcheck(lambda i, p, q: torch.addr(i, p, q, alpha=3.0),
                                    tuple(o.detach().requires_grad_(True) for o in ours))


@pytest.mark.parametrize("kw", [{}, {"beta": 2, "alpha": 3}, {"beta": 0}])
def test_addmv_baddbmm_inplace(kw):
    x, m, v = RNG.normal(size=2), RNG.normal(size=(2, 3)), RNG.normal(size=3)
    a, b = _pair(x, "float64")
    c, d = _pair(m, "float64")
    e, f = _pair(v, "float64")
    assert a.addmv_(c, e, **kw) is a
    _same(a, b.addmv_(d, f, **kw), f"addmv_ {kw}")
    a, b = _pair(x, "float64")
    assert torch.addmv_(a, c, e, **kw) is a
    _same(a, pt.addmv_(b, d, f, **kw), f"torch.addmv_ {kw}")
    with pytest.raises(RuntimeError):
        torch.tensor([2.0]).addmv_(torch.ones(2, 3), torch.ones(3))
    s, p, q = RNG.normal(size=(4, 2, 3)), RNG.normal(size=(4, 2, 5)), RNG.normal(size=(4, 5, 3))
    a, b = _pair(s, "float32")
    c, d = _pair(p, "float32")
    e, f = _pair(q, "float32")
    assert a.baddbmm_(c, e, **kw) is a
    _same(a, b.baddbmm_(d, f, **kw), f"baddbmm_ {kw}")
    with pytest.raises(RuntimeError):
        torch.zeros(1, 2, 3).baddbmm_(c, e)
    # Gradient through the in-place forms on a non-leaf.
    ins = [RNG.normal(size=sh) for sh in ((2,), (2, 3), (3,))]
    ours = [torch.from_numpy(t.copy()).requires_grad_(True) for t in ins]
    theirs = [pt.from_numpy(t.copy()).requires_grad_(True) for t in ins]
    (ours[0] * 1).addmv_(ours[1], ours[2], **kw).sum().backward()
    (theirs[0] * 1).addmv_(theirs[1], theirs[2], **kw).sum().backward()
    for o, t in zip(ours, theirs):
        _same(o.grad, t.grad, f"addmv_ grad {kw}")


# ---- torch.<name>_ function forms ----

FORMS = {
    "abs_": ((), "any"), "acos_": ((), "unit"), "arccos_": ((), "unit"), "asin_": ((), "unit"),
    "arcsin_": ((), "unit"), "atan_": ((), "any"), "arctan_": ((), "any"), "ceil_": ((), "any"),
    "clamp_": ((-0.5, 0.5), "any"), "clamp_max_": ((0.2,), "any"), "clamp_min_": ((0.2,), "any"),
    "clip_": ((-0.3, 0.4), "any"), "cos_": ((), "any"), "cosh_": ((), "any"), "erf_": ((), "any"),
    "erfc_": ((), "any"), "exp_": ((), "any"), "exp2_": ((), "any"), "expm1_": ((), "any"), "fix_": ((), "any"),
    "floor_": ((), "any"), "frac_": ((), "any"), "i0_": ((), "any"), "log_": ((), "pos"), "log10_": ((), "pos"),
    "log1p_": ((), "pos"), "log2_": ((), "pos"), "neg_": ((), "any"), "negative_": ((), "any"),
    "nan_to_num_": ((), "any"), "reciprocal_": ((), "pos"), "round_": ((), "any"), "rsqrt_": ((), "pos"),
    "sigmoid_": ((), "any"), "sin_": ((), "any"), "sinc_": ((), "any"), "sinh_": ((), "any"), "sqrt_": ((), "pos"),
    "square_": ((), "any"), "tan_": ((), "unit"), "tanh_": ((), "any"), "trunc_": ((), "any"),
    "xlogy_": (("other",), "pos"), "logit_": ((), "prob"), "deg2rad_": ((), "any"), "rad2deg_": ((), "any"),
    "zero_": ((), "any"), "fill_": ((2.5,), "any"), "conj_physical_": ((), "any"), "detach_": ((), "any"),
    "gcd_": (("iother",), "int"), "lcm_": (("iother",), "int"), "ldexp_": (("iother",), "any"),
    "asinh_": ((), "any"), "acosh_": ((), "pos1"), "atanh_": ((), "unit"), "addmv_": (("mat", "vec"), "any"),
}


@pytest.mark.parametrize("name", sorted(FORMS))
def test_torch_inplace_forms(name):
    args, domain = FORMS[name]
    assert hasattr(pt, name), f"PyTorch has no torch.{name}"
    x = {"any": RNG.normal(size=3), "unit": RNG.uniform(-0.9, 0.9, 3), "pos": RNG.uniform(0.1, 3, 3),
         "prob": RNG.uniform(0.1, 0.9, 3), "int": RNG.integers(-9, 9, 3).astype(np.float64),
         "pos1": RNG.uniform(1.1, 3, 3)}[domain]
    a, b = _pair(x, "int64" if domain == "int" else "float32")
    extra = {"other": _pair(RNG.uniform(0.1, 2, 3)), "iother": _pair(RNG.integers(-5, 5, 3).astype(np.float64), "int64"),
             "mat": _pair(RNG.normal(size=(3, 2))), "vec": _pair(RNG.normal(size=2))}
    ours = [extra[v][0] if isinstance(v, str) else v for v in args]
    theirs = [extra[v][1] if isinstance(v, str) else v for v in args]
    v = a._version
    assert getattr(torch, name)(a, *ours) is a
    getattr(pt, name)(b, *theirs)
    _same(a, b, f"torch.{name}")
    if name != "detach_":
        assert a._version > v


# ---- factories and helpers ----

def test_scalar_tensor():
    for s, kw in ((3, {}), (True, {}), (2.5, {}), (2, {"dtype": "int64"}), (1.5, {"dtype": "float64"}),
                  (1 + 2j, {"dtype": "complex64"})):
        ours = torch.scalar_tensor(s, **{k: getattr(torch, v) for k, v in kw.items()})
        theirs = pt.scalar_tensor(s, **{k: getattr(pt, v) for k, v in kw.items()})
        _same(ours, theirs, f"scalar_tensor {s} {kw}", exact=True)
    with pytest.raises(RuntimeError):
        torch.scalar_tensor(1 + 2j)
    assert torch.scalar_tensor(1.0, requires_grad=True).requires_grad


RANGE_CASES = [((1, 4), {}), ((1, 4, 0.5), {}), ((0, 1, 0.3), {}), ((0, -1, -0.25), {"dtype": "float64"}),
               ((1, 4), {"dtype": "int64"}), ((2.5, 2.5), {}), ((0, 10, 3), {"dtype": "int32"}),
               ((-1, 1, 0.1), {"dtype": "float64"})]


@pytest.mark.parametrize("args,kw", RANGE_CASES)
def test_range(args, kw):
    with pytest.warns(UserWarning, match="torch.range is deprecated"):
        ours = torch.range(*args, **{k: getattr(torch, v) for k, v in kw.items()})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = pt.range(*args, **{k: getattr(pt, v) for k, v in kw.items()})
    _same(ours, theirs, f"range {args} {kw}")


def test_range_errors():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(RuntimeError):
            torch.range(0, 1, 0)
        with pytest.raises(RuntimeError):
            torch.range(0, 1, -1)
        with pytest.raises(TypeError):
            torch.range(5)


def test_typename():
    for dt in ("float32", "float64", "int64", "bool", "int32"):
        assert torch.typename(torch.zeros(1, dtype=getattr(torch, dt))) == pt.typename(pt.zeros(1, dtype=getattr(pt, dt)))
    for obj in (3, "x", [1], int, math.sqrt, np.ndarray):
        assert torch.typename(obj) == pt.typename(obj)
    assert torch.typename(test_typename) == pt.typename(test_typename)


def test_fill():
    a, b = _pair(RNG.normal(size=(2, 3)), "float32")
    _same(torch.fill(a, 3), pt.fill(b, 3), "fill number")
    _same(torch.fill(a.t(), 1.5), pt.fill(b.t(), 1.5), "fill transposed")
    _same(torch.fill(torch.zeros(2, dtype=torch.int64), 3.7), pt.fill(pt.zeros(2, dtype=pt.int64), 3.7), "fill int")
    v = torch.tensor(2.0, dtype=torch.float64, requires_grad=True)
    w = pt.tensor(2.0, dtype=pt.float64, requires_grad=True)
    torch.fill(a, v).sum().backward()
    pt.fill(b, w).sum().backward()
    _same(v.grad, w.grad, "fill grad")
    a2, b2 = a.clone(), b.clone()
    assert torch.fill_(a2, 4) is a2
    _same(a2, pt.fill_(b2, 4), "fill_")
    with pytest.raises(RuntimeError):
        torch.fill(a, torch.ones(2))


def test_cfloat_cdouble():
    a, b = _pair(RNG.normal(size=(2, 3)), "float32")
    _same(a.cfloat(), b.cfloat(), "cfloat", exact=True)
    _same(a.t().cdouble(), b.t().cdouble(), "cdouble", exact=True)
    _same(torch.tensor([1, 2]).cfloat(), pt.tensor([1, 2]).cfloat(), "cfloat int", exact=True)


@pytest.mark.parametrize("size,stride", [((2, 3), (3, 1)), ((2, 3), (1, 2)), ((2, 3, 4), (1, 8, 2)),
                                         ((2, 1, 3), (3, 7, 1)), ((0, 3), (3, 1)), ((), ())])
def test_new_empty_strided(size, stride):
    base = torch.zeros(2, 2, dtype=torch.float64)
    out = base.new_empty_strided(size, stride)
    ref = pt.zeros(2, 2, dtype=pt.float64).new_empty_strided(size, stride)
    assert tuple(out.shape) == tuple(ref.shape) and out.dtype == torch.float64
    assert all(s == 1 or a == b for a, b, s in zip(out.stride(), ref.stride(), size)) or out.numel() == 0
    assert base.new_empty_strided(size, stride, dtype=torch.int64).dtype == torch.int64
    assert base.new_empty_strided(size, stride, requires_grad=True).requires_grad


def test_new_empty_strided_unsupported():
    with pytest.raises(NotImplementedError, match="new_empty_strided"):
        torch.zeros(1).new_empty_strided((2, 3), (4, 1))
    with pytest.raises(RuntimeError):
        torch.zeros(1).new_empty_strided((2, 3), (1,))


def test_names_exist_where_pytorch_has_them():
    """Every added torch.* function and Tensor method is also one in PyTorch."""
    from ferrotorch import _pointwise_math as m

    for name in m.__all__:
        assert hasattr(pt, name), name
        assert hasattr(torch, name), name
    for fn in m.METHODS:
        assert hasattr(pt.Tensor, fn.__name__), fn.__name__
        assert getattr(torch.Tensor, fn.__name__) is not None


def test_ldexp_result_dtypes():
    names = ("float16", "bfloat16", "float32", "float64", "int64", "int32")
    for a in names:
        for b in ("int32", "int64", "float16", "float32", "float64"):
            for zero_dim in (False, True):
                shape = () if zero_dim else (2,)
                ours = torch.ldexp(torch.ones(2, dtype=getattr(torch, a)), torch.ones(shape, dtype=getattr(torch, b)))
                theirs = pt.ldexp(pt.ones(2, dtype=getattr(pt, a)), pt.ones(shape, dtype=getattr(pt, b)))
                _same(ours, theirs, f"ldexp {a} {b} 0-d={zero_dim}")


OUT_CASES = {
    "asinh": ("x",), "acosh": ("x1",), "atanh": ("u",), "deg2rad": ("x",), "rad2deg": ("x",),
    "fmax": ("x", "y"), "fmin": ("x", "y"), "logaddexp2": ("x", "y"), "ldexp": ("x", "i"),
    "nextafter": ("x", "y"), "signbit": ("x",), "heaviside": ("x", "y"), "gcd": ("i", "j"), "lcm": ("i", "j"),
}


@pytest.mark.parametrize("name", sorted(OUT_CASES))
def test_out(name):
    data = {"x": (RNG.normal(size=(2, 3)), "float32"), "x1": (1 + RNG.uniform(0, 2, (2, 3)), "float32"),
            "u": (RNG.uniform(-0.9, 0.9, (2, 3)), "float32"), "y": (RNG.normal(size=(2, 3)), "float32"),
            "i": (RNG.integers(-5, 9, (2, 3)).astype(np.float64), "int64"),
            "j": (RNG.integers(-5, 9, (2, 3)).astype(np.float64), "int64")}
    pairs = [_pair(*data[k]) for k in OUT_CASES[name]]
    ref = getattr(pt, name)(*[p[1] for p in pairs])
    own = str(ref.dtype).split(".")[-1]
    wider = "float64" if ref.dtype.is_floating_point else "int64"
    for out_dtype in (own, wider):
        o = torch.empty(tuple(ref.shape), dtype=getattr(torch, out_dtype))
        po = pt.empty(tuple(ref.shape), dtype=getattr(pt, out_dtype))
        if out_dtype != own and name in ("heaviside", "signbit"):
            # These two insist on their own dtype for out.
            with pytest.raises(RuntimeError):
                getattr(torch, name)(*[p[0] for p in pairs], out=o)
            with pytest.raises(RuntimeError):
                getattr(pt, name)(*[p[1] for p in pairs], out=po)
            continue
        assert getattr(torch, name)(*[p[0] for p in pairs], out=o) is o
        getattr(pt, name)(*[p[1] for p in pairs], out=po)
        rtol, atol = _tol(ref)  # the result is computed in the inputs' dtype, then cast
        assert_close(o, po, rtol=rtol, atol=atol, what=f"{name} out={out_dtype}")
    if ref.dtype.is_floating_point:
        with pytest.raises(RuntimeError):
            getattr(torch, name)(*[p[0] for p in pairs], out=torch.empty(tuple(ref.shape), dtype=torch.int64))
        with pytest.raises(RuntimeError):
            getattr(pt, name)(*[p[1] for p in pairs], out=pt.empty(tuple(ref.shape), dtype=pt.int64))
        if name not in ("signbit", "nextafter", "heaviside"):
            x = pairs[0][0].clone().requires_grad_(True)
            with pytest.raises(RuntimeError):
                getattr(torch, name)(x, *[p[0] for p in pairs[1:]], out=torch.empty(tuple(ref.shape)))
            with pytest.raises(RuntimeError):
                getattr(pt, name)(pairs[0][1].clone().requires_grad_(True), *[p[1] for p in pairs[1:]], out=pt.empty(tuple(ref.shape)))
    with pytest.raises(RuntimeError):
        getattr(torch, name)(*[p[0] for p in pairs], out=torch.empty(7, dtype=getattr(torch, str(ref.dtype).split(".")[-1])))


def test_out_frexp_addbmm_addr_range():
    a, b = _pair(FREXP_VALUES, "float32")
    m, e = torch.empty(len(FREXP_VALUES)), torch.empty(len(FREXP_VALUES), dtype=torch.int32)
    r = torch.frexp(a, out=(m, e))
    assert r.mantissa is m and r.exponent is e
    M, E = pt.frexp(b)
    _same(m, M, "frexp out mantissa", exact=True)
    _same(e, E, "frexp out exponent", exact=True)
    ins = [RNG.normal(size=s) for s in ((2, 3), (4, 2, 5), (4, 5, 3))]
    o = torch.empty(2, 3, dtype=torch.float64)
    assert torch.addbmm(*[torch.from_numpy(v.copy()) for v in ins], alpha=2, out=o) is o
    _same(o, pt.addbmm(*[pt.from_numpy(v.copy()) for v in ins], alpha=2), "addbmm out")
    ins = [RNG.normal(size=s) for s in ((2, 3), (2,), (3,))]
    o = torch.empty(2, 3, dtype=torch.float64)
    assert torch.addr(*[torch.from_numpy(v.copy()) for v in ins], beta=3, out=o) is o
    _same(o, pt.addr(*[pt.from_numpy(v.copy()) for v in ins], beta=3), "addr out")
    o = torch.empty(4)
    with pytest.warns(UserWarning):
        assert torch.range(1, 4, out=o) is o
    _same(o, pt.arange(1.0, 5.0), "range out")


def test_nextafter_grad_and_frexp_type():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    o = torch.tensor([[3.0, 0.0], [1.0, 1.0]], dtype=torch.float64, requires_grad=True)
    px, po = to_pt(x, True), to_pt(o, True)
    torch.nextafter(x, o).sum().backward()
    pt.nextafter(px, po).sum().backward()
    _same(x.grad, px.grad, "nextafter grad input", exact=True)
    _same(o.grad, po.grad, "nextafter grad other", exact=True)
    assert torch.autograd.gradcheck(lambda t: torch.nextafter(t, torch.zeros(3, dtype=torch.float64)),
                                    (torch.tensor([1.0, -2.0, 0.5], dtype=torch.float64, requires_grad=True),))
    assert isinstance(torch.frexp(torch.ones(2)), torch.return_types.frexp)
    assert not torch.signbit(x).requires_grad


@pytest.fixture
def default_float64():
    old = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    pt_old = pt.get_default_dtype()
    pt.set_default_dtype(pt.float64)
    yield
    torch.set_default_dtype(old)
    pt.set_default_dtype(pt_old)


def test_default_dtype_promotion(default_float64):
    i, pi = _pair([1, 2, 3], "int64")
    for name in ("asinh", "acosh", "atanh", "deg2rad", "rad2deg"):
        _same(getattr(torch, name)(i), getattr(pt, name)(pi), f"{name} int under float64 default")
    _same(torch.ldexp(i, i), pt.ldexp(pi, pi), "ldexp ints under float64 default")
    _same(torch.scalar_tensor(3), pt.scalar_tensor(3), "scalar_tensor under float64 default", exact=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _same(torch.range(0, 1, 0.1), pt.range(0, 1, 0.1), "range under float64 default")


INPLACE_GRADCHECK = {
    "asinh_": ((3,), lambda x: (x * 1).asinh_()),
    "atanh_": ((3,), lambda x: (x * 0.3).atanh_()),
    "deg2rad_": ((3,), lambda x: (x * 1).deg2rad_()),
    "ldexp_": ((3,), lambda x: (x * 1).ldexp_(torch.tensor([1, -2, 3]))),
    "logit_": ((3,), lambda x: (x.sigmoid() * 1).logit_()),
    "atan2_": ((3,), lambda x: (x * 1).atan2_(torch.tensor([2.0, -1.0, 0.5], dtype=torch.float64))),
    "cumsum_": ((2, 3), lambda x: (x * 1).cumsum_(1)),
    "cumprod_": ((2, 3), lambda x: (x * 1).cumprod_(0)),
    "fill_diagonal_": ((3, 3), lambda x: (x * 1).fill_diagonal_(2.0)),
    "multiply_": ((3,), lambda x: (x * 1).multiply_(x)),
    "divide_": ((3,), lambda x: (x * 1).divide_(x + 3)),
    "subtract_": ((3,), lambda x: (x * 1).subtract_(x * x, alpha=2)),
    "addbmm_": ((2, 3), lambda x: (x * 1).addbmm_(x.reshape(1, 2, 3).expand(2, 2, 3), x.t().reshape(1, 3, 2).expand(2, 3, 2)[..., :1].expand(2, 3, 3), beta=0.5, alpha=2)),
    "addr_": ((2, 3), lambda x: (x * 1).addr_(x[:, 0], x[0], beta=2)),
    "addmv_": ((2, 3), lambda x: (x[:, 0] * 1).addmv_(x, x[0], alpha=3)),
    "baddbmm_": ((2, 3), lambda x: (x.reshape(1, 2, 3) * 1).baddbmm_(x.reshape(1, 2, 3), x.t().reshape(1, 3, 2)[..., :1].expand(1, 3, 3))),
}


@pytest.mark.parametrize("name", sorted(INPLACE_GRADCHECK))
def test_inplace_gradcheck(name):
    shape, fn = INPLACE_GRADCHECK[name]
    x = torch.from_numpy(RNG.uniform(0.2, 0.9, shape)).requires_grad_(True)
    assert torch.autograd.gradcheck(fn, (x,))
