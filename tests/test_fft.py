"""``torch.fft`` against PyTorch: every transform over odd, even and prime lengths, trimmed
and padded sizes, every norm mode, dims and layouts (batched, transposed, sliced), dtypes
and promotion, errors, gradients (compared with PyTorch and by float64 gradcheck) and the
helpers fftfreq, rfftfreq, fftshift, ifftshift."""

from __future__ import annotations

import numpy as np
import pytest

import ferrotorch as torch
from torch_oracle import assert_close, needs_torch, pt, to_ft

pytestmark = needs_torch

NORMS = (None, "backward", "ortho", "forward")
LENGTHS = (1, 2, 5, 7, 8, 12, 17, 97)
REAL_IN = ("rfft", "ihfft")
TOL = {"float32": dict(rtol=2e-4, atol=2e-4), "complex64": dict(rtol=2e-4, atol=2e-4), "int64": dict(rtol=2e-4, atol=2e-4)}
TOL64 = dict(rtol=1e-9, atol=1e-9)


def _input(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    if dtype == "int64":
        return pt.from_numpy(rng.integers(-5, 6, shape))
    a = rng.standard_normal(shape)
    if dtype.startswith("complex"):
        a = a + 1j * rng.standard_normal(shape)
    return pt.from_numpy(np.asarray(a)).to(getattr(pt, dtype))


def _tol(dtype):
    return TOL.get(dtype, TOL64)


def _check(ours, theirs, dtype, what):
    if theirs.is_complex():
        theirs = theirs.resolve_conj()
    assert_close(ours, theirs, **_tol(dtype), what=what)


# ---------------------------------------------------------------- 1-D transforms

ONE_D = ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft")


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("length", LENGTHS)
@pytest.mark.parametrize("name", ONE_D)
def test_one_dim_lengths_and_norms(name, length, norm):
    dtype = "float64" if name in REAL_IN else "complex128"
    p = _input((3, length), dtype, seed=length)
    if name in ("irfft", "hfft") and length == 1:
        kw = dict(n=1)
    else:
        kw = {}
    ours = getattr(torch.fft, name)(to_ft(p), norm=norm, **kw)
    theirs = getattr(pt.fft, name)(p, norm=norm, **kw)
    _check(ours, theirs, dtype, f"{name} n={length} norm={norm}")


@pytest.mark.parametrize("n", [1, 3, 6, 11, 16, 23])
@pytest.mark.parametrize("name", ONE_D)
def test_one_dim_trim_and_pad(name, n):
    dtype = "float64" if name in REAL_IN else "complex128"
    p = _input((2, 9), dtype, seed=n)
    _check(getattr(torch.fft, name)(to_ft(p), n=n), getattr(pt.fft, name)(p, n=n), dtype, f"{name} n={n}")
    # Along the first dim too.
    _check(getattr(torch.fft, name)(to_ft(p), n=n, dim=0), getattr(pt.fft, name)(p, n=n, dim=0), dtype, f"{name} n={n} dim=0")


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "complex128", "int64"])
@pytest.mark.parametrize("name", ONE_D)
def test_one_dim_dtypes(name, dtype):
    if name in REAL_IN and dtype.startswith("complex"):
        pytest.skip("real-input transform (the error is tested below)")
    p = _input((4, 6), dtype)
    _check(getattr(torch.fft, name)(to_ft(p)), getattr(pt.fft, name)(p), dtype, f"{name} {dtype}")


def test_integer_inputs_follow_the_default_dtype():
    torch.set_default_dtype(torch.float64)
    try:
        assert torch.fft.fft(torch.arange(4)).dtype == torch.complex128
        assert torch.fft.rfft(torch.arange(4)).dtype == torch.complex128
    finally:
        torch.set_default_dtype(torch.float32)
    assert torch.fft.fft(torch.tensor([True, False])).dtype == torch.complex64
    assert torch.fft.irfft(torch.arange(4)).dtype == torch.float32


LAYOUTS = [
    ("batched 3-D", (2, 3, 10), lambda t: t, -1),
    ("middle dim", (2, 10, 3), lambda t: t, 1),
    ("transposed", (10, 6), lambda t: t.t(), -1),
    ("sliced", (4, 21), lambda t: t[1:, ::2], -1),
    ("expanded", (1, 8), lambda t: t.expand(3, 8), -1),
    ("zero batch", (0, 8), lambda t: t, -1),
    ("zero other dim", (8, 0), lambda t: t, 0),
]


@pytest.mark.parametrize("layout", range(len(LAYOUTS)))
@pytest.mark.parametrize("name", ONE_D)
def test_one_dim_layouts(name, layout):
    what, shape, view, dim = LAYOUTS[layout]
    dtype = "float64" if name in REAL_IN else "complex128"
    p = _input(shape, dtype, seed=layout)
    ours = getattr(torch.fft, name)(view(to_ft(p)), dim=dim)
    theirs = getattr(pt.fft, name)(view(p), dim=dim)
    _check(ours, theirs, dtype, f"{name} {what}")


# ---------------------------------------------------------------- N-D transforms

N_D = ("fft2", "ifft2", "rfft2", "irfft2", "hfft2", "ihfft2", "fftn", "ifftn", "rfftn", "irfftn", "hfftn", "ihfftn")
ND_ARGS = [
    ("defaults", {}),
    ("s", {"s": (4, 7)}),
    ("s with -1", {"s": (-1, 6)}),
    ("dim", {"dim": (0, 2)}),
    ("dim reversed", {"dim": (2, 0)}),
    ("s and dim", {"s": (3, 5), "dim": (1, 0)}),
    ("one dim", {"dim": (1,)}),
    ("negative dims", {"s": (6,), "dim": (-2,)}),
]


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("args", range(len(ND_ARGS)))
@pytest.mark.parametrize("name", N_D)
def test_n_dim(name, args, norm):
    what, kw = ND_ARGS[args]
    if name.endswith("2") and "dim" in kw and len(kw["dim"]) != 2:
        pytest.skip("2-D transforms take two dims")
    if name.endswith("2") and "s" in kw and "dim" not in kw and len(kw["s"]) != 2:
        pytest.skip("2-D transforms take two sizes")
    dtype = "float64" if name.startswith(("rfft", "ihfft")) else "complex128"
    p = _input((5, 6, 4), dtype, seed=args)
    ours = getattr(torch.fft, name)(to_ft(p), norm=norm, **kw)
    theirs = getattr(pt.fft, name)(p, norm=norm, **kw)
    _check(ours, theirs, dtype, f"{name} {what} norm={norm}")


@pytest.mark.parametrize("name", ["fftn", "ifftn", "rfftn", "irfftn"])
@pytest.mark.parametrize("dtype", ["float32", "complex64", "int64"])
def test_n_dim_dtypes_and_transposed_input(name, dtype):
    if name == "rfftn" and dtype == "complex64":
        pytest.skip("real-input transform")
    p = _input((6, 5, 3), dtype)
    _check(getattr(torch.fft, name)(to_ft(p).transpose(0, 2)), getattr(pt.fft, name)(p.transpose(0, 2)), dtype, name)


def test_round_trips():
    x = torch.randn(3, 10, dtype=torch.float64)
    np.testing.assert_allclose(torch.fft.ifft(torch.fft.fft(x)).real.numpy(), x.numpy(), atol=1e-12)
    np.testing.assert_allclose(torch.fft.irfft(torch.fft.rfft(x), n=10).numpy(), x.numpy(), atol=1e-12)
    np.testing.assert_allclose(torch.fft.irfftn(torch.fft.rfftn(x), s=(3, 10)).numpy(), x.numpy(), atol=1e-12)
    np.testing.assert_allclose(torch.fft.hfft(torch.fft.ihfft(x), n=10).numpy(), x.numpy(), atol=1e-12)
    z = torch.randn(4, 4, dtype=torch.complex128)
    np.testing.assert_allclose(torch.fft.ifft2(torch.fft.fft2(z, norm="ortho"), norm="ortho").numpy(), z.numpy(), atol=1e-12)


def test_large_transform_runs_in_parallel_and_matches():
    p = _input((64, 4096), "complex64", seed=9)
    _check(torch.fft.fft(to_ft(p)), pt.fft.fft(p), "complex64", "large fft")
    r = _input((4096, 64), "float32", seed=10)
    _check(torch.fft.rfft(to_ft(r), dim=0), pt.fft.rfft(r, dim=0), "float32", "large rfft")


# ---------------------------------------------------------------- errors

ERRORS = [
    lambda T: T.fft.fft(T.ones(4), norm="bad"),
    lambda T: T.fft.fft(T.ones(4), n=0),
    lambda T: T.fft.fft(T.ones(4), n=-1),
    lambda T: T.fft.fft(T.ones(4), dim=2),
    lambda T: T.fft.fft(T.ones(())),
    lambda T: T.fft.fft(T.ones(0)),
    lambda T: T.fft.rfft(T.ones(4, dtype=T.complex64)),
    lambda T: T.fft.ihfft(T.ones(4, dtype=T.complex128)),
    lambda T: T.fft.irfft(T.ones(1, dtype=T.complex64)),
    lambda T: T.fft.hfft(T.ones(1, dtype=T.complex64)),
    lambda T: T.fft.fft(T.ones(4, dtype=T.float16)),
    lambda T: T.fft.fftn(T.ones(4), s=(2, 3), dim=(0,)),
    lambda T: T.fft.fftn(T.ones(2, 2), dim=(0, 0)),
    lambda T: T.fft.fftn(T.ones(2, 2), s=(2, 2, 2)),
    lambda T: T.fft.fft2(T.ones(4)),
    lambda T: T.fft.fftfreq(4, dtype=T.int64),
    lambda T: T.fft.fftfreq(4, dtype=T.complex64),
    lambda T: T.fft.rfftfreq(4, dtype=T.int32),
    lambda T: T.fft.rfftn(T.ones(2, 2), s=(0, 2)),
]


@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_errors_match_pytorch(i):
    with pytest.raises(Exception) as theirs:
        ERRORS[i](pt)
    with pytest.raises(Exception) as ours:
        ERRORS[i](torch)
    assert type(ours.value) is type(theirs.value), (ours.value, theirs.value)
    assert str(theirs.value).strip() in str(ours.value) or type(theirs.value) is IndexError, (ours.value, theirs.value)


# ---------------------------------------------------------------- gradients

GRAD_CASES = [
    ("fft", lambda F, x: F.fft(x)),
    ("fft n=5 ortho", lambda F, x: F.fft(x, n=5, norm="ortho")),
    ("fft n=11 dim0", lambda F, x: F.fft(x, n=11, dim=0)),
    ("ifft", lambda F, x: F.ifft(x)),
    ("ifft forward", lambda F, x: F.ifft(x, norm="forward")),
    ("rfft", lambda F, x: F.rfft(x)),
    ("rfft n=9", lambda F, x: F.rfft(x, n=9)),
    ("rfft n=4 ortho", lambda F, x: F.rfft(x, n=4, norm="ortho")),
    ("irfft", lambda F, x: F.irfft(x)),
    ("irfft n=7", lambda F, x: F.irfft(x, n=7)),
    ("irfft n=3 forward", lambda F, x: F.irfft(x, n=3, norm="forward")),
    ("hfft", lambda F, x: F.hfft(x)),
    ("hfft n=5 ortho", lambda F, x: F.hfft(x, n=5, norm="ortho")),
    ("ihfft", lambda F, x: F.ihfft(x)),
    ("ihfft n=8", lambda F, x: F.ihfft(x, n=8)),
    ("fft2", lambda F, x: F.fft2(x)),
    ("ifftn s", lambda F, x: F.ifftn(x, s=(4, 3))),
    ("rfft2", lambda F, x: F.rfft2(x)),
    ("rfftn s odd", lambda F, x: F.rfftn(x, s=(3, 5))),
    ("irfft2", lambda F, x: F.irfft2(x)),
    ("irfftn s odd ortho", lambda F, x: F.irfftn(x, s=(2, 7), norm="ortho")),
    ("hfftn", lambda F, x: F.hfftn(x)),
    ("ihfft2", lambda F, x: F.ihfft2(x)),
]


def _real_loss(T, y, w):
    """A real loss that touches every output component with its own weight."""
    r = T.view_as_real(y.resolve_conj()) if y.is_complex() else y
    return (r * w(T, r.shape)).sum()


def _weights(seed):
    cache = {}

    def w(T, shape):
        key = tuple(shape)
        if key not in cache:
            cache[key] = np.random.default_rng(seed).standard_normal(key)
        return T.tensor(cache[key], dtype=T.float64)

    return w


@pytest.mark.parametrize("input_dtype", ["float64", "complex128"])
@pytest.mark.parametrize("name,f", GRAD_CASES, ids=[c[0] for c in GRAD_CASES])
def test_gradients_match_pytorch(name, f, input_dtype):
    if name.startswith(("rfft", "ihfft")) and input_dtype == "complex128":
        pytest.skip("real-input transform")
    p = _input((4, 6), input_dtype, seed=3)
    x = to_ft(p).requires_grad_()
    q = p.clone().requires_grad_()
    w = _weights(4)
    _real_loss(torch, f(torch.fft, x), w).backward()
    _real_loss(pt, f(pt.fft, q), w).backward()
    assert_close(x.grad, q.grad.resolve_conj(), rtol=1e-9, atol=1e-9, what=name)


@pytest.mark.parametrize("name,f", GRAD_CASES, ids=[c[0] for c in GRAD_CASES])
def test_gradcheck_real_through_fft_to_real(name, f):
    x = torch.tensor(np.random.default_rng(5).standard_normal((3, 4)), requires_grad=True)
    assert torch.autograd.gradcheck(lambda t: torch.view_as_real(f(torch.fft, t)) if not name.startswith(("irfft", "hfft")) else f(torch.fft, t), (x,))


GRADCHECK_COMPOSITIONS = [
    ("rfft abs sum", lambda t: torch.fft.rfft(t).abs().sum()),
    ("view_as_real fft", lambda t: torch.view_as_real(torch.fft.fft(t))),
    ("irfft of scaled rfft", lambda t: torch.fft.irfft(torch.fft.rfft(t) * torch.tensor([1.0, 0.5, 0.25], dtype=torch.float64), n=4)),
    ("power spectrum", lambda t: (torch.fft.fft2(t, norm="ortho").abs() ** 2).mean()),
    ("ifft of real", lambda t: torch.fft.ifft(t, n=6).imag),
    ("fftshift of spectrum", lambda t: torch.fft.fftshift(torch.fft.fft(t).real, dim=-1)),
    ("convolution by fft", lambda t: torch.fft.irfft(torch.fft.rfft(t, n=8) * torch.fft.rfft(t.flip(-1), n=8), n=8)),
]


@pytest.mark.parametrize("name,f", GRADCHECK_COMPOSITIONS, ids=[c[0] for c in GRADCHECK_COMPOSITIONS])
def test_gradcheck_compositions(name, f):
    x = torch.tensor(np.random.default_rng(6).standard_normal((2, 4)), requires_grad=True)
    assert torch.autograd.gradcheck(f, (x,))


@pytest.mark.parametrize("name,f", GRAD_CASES, ids=[c[0] for c in GRAD_CASES])
def test_gradcheck_complex_inputs(name, f):
    if name.startswith(("rfft", "ihfft")):
        pytest.skip("real-input transform")
    z = torch.tensor(_input((3, 4), "complex128", seed=7).numpy(), requires_grad=True)
    assert torch.autograd.gradcheck(lambda t: f(torch.fft, t), (z,))


def test_grad_fn_names():
    x = torch.randn(4, requires_grad=True)
    assert torch.fft.rfft(x).grad_fn.name() == "FftR2CBackward0"
    assert torch.fft.irfft(torch.fft.rfft(x)).grad_fn.name() == "FftC2RBackward0"
    assert torch.fft.fft(x.to(torch.complex64)).grad_fn.name() == "FftC2CBackward0"


# ---------------------------------------------------------------- helpers


@pytest.mark.parametrize("n", [0, 1, 4, 5, 8])
@pytest.mark.parametrize("d", [1.0, 0.1, 2])
@pytest.mark.parametrize("dtype", [None, "float64", "float32"])
def test_frequencies(n, d, dtype):
    kw = {} if dtype is None else {"dtype": getattr(torch, dtype)}
    pkw = {} if dtype is None else {"dtype": getattr(pt, dtype)}
    assert_close(torch.fft.fftfreq(n, d, **kw), pt.fft.fftfreq(n, d, **pkw))
    assert_close(torch.fft.rfftfreq(n, d, **kw), pt.fft.rfftfreq(n, d, **pkw))


def test_frequencies_options():
    f = torch.fft.fftfreq(4, requires_grad=True)
    assert f.requires_grad and f.dtype == torch.float32


@pytest.mark.parametrize("shape", [(6,), (5,), (2, 3), (3, 4, 5), (), (0, 3)])
@pytest.mark.parametrize("dim", [None, 0, -1, (0, -1)])
def test_shifts(shape, dim):
    if len(shape) == 0 and dim is not None:
        pytest.skip("a 0-d tensor has no dims")
    p = pt.arange(int(np.prod(shape))).reshape(shape)
    if len(shape) == 0:
        for T, t in ((pt, p), (torch, to_ft(p))):
            with pytest.raises(RuntimeError, match="`shifts` required"):
                T.fft.fftshift(t)
        return
    for name in ("fftshift", "ifftshift"):
        assert_close(getattr(torch.fft, name)(to_ft(p), dim=dim), getattr(pt.fft, name)(p, dim=dim), what=name)
    x = torch.arange(7)
    assert torch.fft.ifftshift(torch.fft.fftshift(x)).tolist() == list(range(7))


# ---------------------------------------------------------------- stft / istft

STFT_CASES = [
    ("defaults", dict(n_fft=8), False),
    ("hann", dict(n_fft=8), True),
    ("hop and short window", dict(n_fft=16, hop_length=3, win_length=10), True),
    ("odd n_fft, no center", dict(n_fft=9, center=False, hop_length=4), False),
    ("normalized two-sided", dict(n_fft=8, normalized=True, onesided=False), True),
    ("constant padding", dict(n_fft=12, pad_mode="constant", hop_length=5), True),
]


def _hann(T, n):
    return T.tensor(np.hanning(n + 1)[:-1], dtype=T.float64)


@pytest.mark.parametrize("batched", [False, True])
@pytest.mark.parametrize("case", range(len(STFT_CASES)))
def test_stft_and_istft(case, batched):
    what, kw, hann = STFT_CASES[case]
    shape = (2, 50) if batched else (50,)
    x = np.random.default_rng(case).standard_normal(shape)
    win = kw.get("win_length", kw["n_fft"])
    outs = []
    for T in (torch, pt):
        w = _hann(T, win) if hann else None
        spec = T.stft(T.tensor(x), window=w, return_complex=True, **kw)
        ikw = {k: v for k, v in kw.items() if k != "pad_mode"}
        sig = T.istft(spec, window=w, length=50, **ikw)
        outs.append((spec, sig))
    (s1, y1), (s2, y2) = outs
    assert_close(s1, s2, **TOL64, what=what)
    assert_close(y1, y2, **TOL64, what=what)
    if kw.get("center", True):
        np.testing.assert_allclose(y1.numpy(), x, atol=1e-9)


def test_stft_of_complex_input_and_real_view_output():
    z = torch.tensor(_input((40,), "complex128").numpy())
    p = pt.tensor(z.numpy())
    assert_close(torch.stft(z, 8, return_complex=True), pt.stft(p, 8, return_complex=True), **TOL64)
    with pytest.warns(UserWarning):
        r = torch.stft(torch.ones(20), 8, return_complex=False)
    assert r.shape == (5, 11, 2)
    back = torch.istft(torch.stft(z, 8, return_complex=True), 8, return_complex=True, onesided=False, length=40)
    np.testing.assert_allclose(back.numpy(), z.numpy(), atol=1e-12)


STFT_ERRORS = [
    (lambda T: T.stft(T.ones(20), 8), "stft requires the return_complex parameter"),
    (lambda T: T.stft(T.ones(20), 0, return_complex=True, center=False), "expected 0 < n_fft < 20, but got n_fft=0"),
    (lambda T: T.stft(T.ones(20), 8, hop_length=0, return_complex=True), "expected hop_length > 0, but got hop_length=0"),
    (lambda T: T.stft(T.ones(20), 8, win_length=9, return_complex=True), "expected 0 < win_length <= n_fft, but got win_length=9"),
    (lambda T: T.stft(T.ones(20), 8, window=T.ones(5), return_complex=True), "expected a 1D window tensor of size equal to win_length=8, but got window with size [5]"),
    (lambda T: T.stft(T.ones(2, 2, 20), 8, return_complex=True), "expected a 1D or 2D tensor"),
    (lambda T: T.istft(T.zeros(5, 3), 8), "istft requires a complex-valued input tensor"),
    (lambda T: T.istft(T.zeros(5, 3, dtype=T.complex64), 8, window=T.zeros(8)), "window overlap add min: 1"),
]


@pytest.mark.parametrize("i", range(len(STFT_ERRORS)))
def test_stft_errors_match_pytorch(i):
    fn, phrase = STFT_ERRORS[i]
    with pytest.raises(Exception) as theirs:
        fn(pt)
    with pytest.raises(Exception) as ours:
        fn(torch)
    assert type(ours.value) is type(theirs.value), (ours.value, theirs.value)
    assert phrase in str(theirs.value) and phrase in str(ours.value), (ours.value, theirs.value)


def test_stft_gradcheck():
    x = torch.tensor(np.random.default_rng(2).standard_normal(24), requires_grad=True)
    w = _hann(torch, 8)
    assert torch.autograd.gradcheck(lambda t: torch.stft(t, 8, hop_length=4, window=w, return_complex=True).abs().sum(), (x,))
    spec = torch.stft(x.detach(), 8, hop_length=2, window=w, return_complex=True).requires_grad_()
    assert torch.autograd.gradcheck(lambda s: torch.istft(s, 8, hop_length=2, window=w, length=24), (spec,))
