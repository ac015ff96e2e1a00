"""Activations and Flatten/Unflatten beyond the module table: every torch.nn activation exists,
in-place forms write into their input (and keep PyTorch's gradients), errors and warnings
match PyTorch's, and random slopes (RReLU) stay in their bounds."""

from __future__ import annotations

import warnings
from typing import Any, Callable, Dict, List, Tuple

import numpy as np
import pytest

import ferrotorch as torch
from torch_oracle import assert_close, needs_torch, pt

pytestmark = needs_torch

F = torch.nn.functional


def test_every_torch_activation_module_exists() -> None:
    names = list(pt.nn.modules.activation.__all__)
    assert len(names) >= 29
    missing = [n for n in names if not hasattr(torch.nn, n)]
    assert not missing, f"ferrotorch.nn lacks {missing}"


FUNCTIONAL = [
    "threshold", "threshold_", "relu", "relu_", "hardtanh", "hardtanh_", "hardswish", "relu6", "elu", "elu_",
    "selu", "selu_", "celu", "celu_", "leaky_relu", "leaky_relu_", "prelu", "rrelu", "rrelu_", "glu", "gelu",
    "logsigmoid", "hardshrink", "tanhshrink", "softsign", "softplus", "softmin", "softmax", "softshrink",
    "log_softmax", "tanh", "sigmoid", "hardsigmoid", "silu", "mish", "gumbel_softmax",
]


@pytest.mark.parametrize("name", FUNCTIONAL)
def test_functional_counterpart_exists(name: str) -> None:
    assert hasattr(pt.nn.functional, name)
    assert callable(getattr(F, name, None)), f"ferrotorch.nn.functional lacks {name}"


def test_class_hierarchy_matches_torch() -> None:
    # isinstance(m, nn.Softmax) must not match LogSoftmax; ReLU6 is a Hardtanh, as in PyTorch.
    for name in pt.nn.modules.activation.__all__ + ["Flatten", "Unflatten"]:
        theirs = [c.__name__ for c in getattr(pt.nn, name).__mro__]
        ours = [c.__name__ for c in getattr(torch.nn, name).__mro__ if not c.__name__.startswith("_")]
        assert ours == theirs, name


TORCH_LEVEL = ["celu", "celu_", "hardshrink", "prelu", "relu_", "rrelu", "rrelu_", "selu", "selu_", "threshold", "threshold_"]


@pytest.mark.parametrize("name", TORCH_LEVEL)
def test_torch_level_activation_functions(name: str) -> None:
    assert hasattr(pt, name)
    x = np.array([-2.0, -0.3, 0.0, 0.4, 2.5])
    args: Tuple[Any, ...] = {"prelu": (np.array([0.2]),), "threshold": (0.1, -7.0), "threshold_": (0.1, -7.0)}.get(name, ())

    def conv(lib: Any, a: Any) -> Any:
        return lib.from_numpy(a.copy()) if isinstance(a, np.ndarray) else a

    ours = getattr(torch, name)(torch.from_numpy(x.copy()), *[conv(torch, a) for a in args])
    theirs = getattr(pt, name)(pt.from_numpy(x.copy()), *[conv(pt, a) for a in args])
    assert_close(ours, theirs, 1e-7, 1e-9, what=f"torch.{name}")


def test_gumbel_softmax() -> None:
    torch.manual_seed(0)
    logits = torch.from_numpy(np.random.default_rng(2).standard_normal((4, 6))).requires_grad_(True)
    soft = F.gumbel_softmax(logits, tau=0.5)
    np.testing.assert_allclose(soft.sum(-1).detach().numpy(), np.ones(4), rtol=1e-12)
    hard = F.gumbel_softmax(logits, hard=True, dim=1)
    values = hard.detach().numpy()
    assert set(np.unique(values)) <= {0.0, 1.0} and (values.sum(1) == 1).all()
    (hard * torch.arange(6, dtype=torch.float64)).sum().backward()
    assert logits.grad is not None and np.abs(logits.grad.numpy()).sum() > 0, "straight-through gradient"
    np.testing.assert_allclose(logits.grad.numpy().sum(1), np.zeros(4), atol=1e-12)


# (name, module maker, functional call): each writes its result into its input.
INPLACE: List[Tuple[str, Callable[[Any], Any], Callable[[Any, Any], Any]]] = [
    ("relu", lambda t: t.nn.ReLU(inplace=True), lambda t, x: t.nn.functional.relu_(x)),
    ("relu6", lambda t: t.nn.ReLU6(inplace=True), lambda t, x: t.nn.functional.relu6(x, inplace=True)),
    ("leaky_relu", lambda t: t.nn.LeakyReLU(0.2, inplace=True), lambda t, x: t.nn.functional.leaky_relu_(x, 0.2)),
    ("elu", lambda t: t.nn.ELU(0.7, inplace=True), lambda t, x: t.nn.functional.elu_(x, 0.7)),
    ("celu", lambda t: t.nn.CELU(0.7, inplace=True), lambda t, x: t.nn.functional.celu_(x, 0.7)),
    ("selu", lambda t: t.nn.SELU(inplace=True), lambda t, x: t.nn.functional.selu_(x)),
    ("hardtanh", lambda t: t.nn.Hardtanh(-0.5, 0.5, inplace=True), lambda t, x: t.nn.functional.hardtanh_(x, -0.5, 0.5)),
    ("threshold", lambda t: t.nn.Threshold(0.1, -2.0, inplace=True), lambda t, x: t.nn.functional.threshold_(x, 0.1, -2.0)),
    ("silu", lambda t: t.nn.SiLU(inplace=True), lambda t, x: t.nn.functional.silu(x, inplace=True)),
    ("mish", lambda t: t.nn.Mish(inplace=True), lambda t, x: t.nn.functional.mish(x, inplace=True)),
    ("hardsigmoid", lambda t: t.nn.Hardsigmoid(inplace=True), lambda t, x: t.nn.functional.hardsigmoid(x, inplace=True)),
    ("hardswish", lambda t: t.nn.Hardswish(inplace=True), lambda t, x: t.nn.functional.hardswish(x, inplace=True)),
    ("rrelu-eval", lambda t: t.nn.RReLU(0.1, 0.3, inplace=True).eval(), lambda t, x: t.nn.functional.rrelu_(x, 0.1, 0.3)),
]


def _sample() -> np.ndarray:
    return np.array([[-4.0, -3.0, -1.0, -0.2, 0.0], [0.1, 0.3, 1.0, 3.0, 5.0]], dtype=np.float64)


@pytest.mark.parametrize("name,make,call", INPLACE, ids=[c[0] for c in INPLACE])
@pytest.mark.parametrize("form", ["module", "functional"])
def test_inplace_writes_into_input_and_keeps_gradients(name: str, make: Any, call: Any, form: str) -> None:
    results: Dict[str, Tuple[Any, Any, Any]] = {}
    for lib in (torch, pt):
        leaf = lib.from_numpy(_sample()).requires_grad_(True)
        x = leaf * 1.0  # a non-leaf: in-place on it is allowed
        out = make(lib)(x) if form == "module" else call(lib, x)
        assert out is x, f"{name}: the in-place form must return its input"
        out.backward(lib.from_numpy(np.linspace(-1, 1, 10).reshape(2, 5)))
        results[lib.__name__] = (x, leaf.grad, out)
    (x_o, g_o, _), (x_t, g_t, _) = results["ferrotorch"], results["torch"]
    assert_close(x_o, x_t, 1e-7, 1e-9, what=f"{name} values written into the input")
    assert_close(g_o, g_t, 1e-7, 1e-9, what=f"{name} gradient through the in-place op")


@pytest.mark.parametrize("name,make,call", INPLACE, ids=[c[0] for c in INPLACE])
def test_inplace_on_leaf_requiring_grad_is_refused(name: str, make: Any, call: Any) -> None:
    x = torch.from_numpy(_sample()).requires_grad_(True)
    with pytest.raises(RuntimeError) as got:
        make(torch)(x)
    with pytest.raises(RuntimeError) as expected:
        make(pt)(pt.from_numpy(_sample()).requires_grad_(True))
    assert str(got.value) == str(expected.value)


def test_inplace_without_grad_modifies_storage_seen_by_views() -> None:
    base = torch.from_numpy(_sample())
    view = base[1]
    torch.nn.ReLU6(inplace=True)(base)
    expected = pt.nn.functional.relu6(pt.from_numpy(_sample()))
    assert_close(view, expected[1], 0, 0, what="a view of the input sees the in-place result")


def _raises_like(ours: Callable[[], Any], theirs: Callable[[], Any]) -> None:
    """Both raise the same exception class with the same message."""
    with pytest.raises(Exception) as expected:
        theirs()
    with pytest.raises(type(expected.value)) as got:
        ours()
    assert str(got.value) == str(expected.value)


ERRORS: List[Tuple[str, Callable[[Any], Any]]] = [
    ("Hardtanh-bounds", lambda t: t.nn.Hardtanh(1.0, 0.5)),
    ("hardtanh-bounds", lambda t: t.nn.functional.hardtanh(t.zeros(2), 1.0, 0.5)),
    ("softshrink-negative", lambda t: t.nn.Softshrink(-1.0)(t.zeros(2))),
    ("softshrink-negative-f64", lambda t: t.nn.functional.softshrink(t.zeros(2, dtype=t.float64), -0.5)),
    ("glu-odd", lambda t: t.nn.GLU(1)(t.zeros(2, 3))),
    ("glu-scalar", lambda t: t.nn.GLU()(t.zeros(()))),
    ("Softmax2d-2d", lambda t: t.nn.Softmax2d()(t.zeros(2, 3))),
    ("prelu-mismatch", lambda t: t.nn.PReLU(3)(t.zeros(2, 4))),
    ("prelu-1d-channels", lambda t: t.nn.PReLU(4)(t.zeros(4))),
    ("prelu-2d-weight", lambda t: t.nn.functional.prelu(t.zeros(2, 4), t.ones(1, 1))),
    ("rrelu-bounds", lambda t: t.nn.functional.rrelu(t.zeros(2), 0.5, 0.1, training=True)),
    ("rrelu-bounds-eval", lambda t: t.nn.RReLU(0.5, 0.1).eval()(t.zeros(2))),
    ("gelu-approximate", lambda t: t.nn.GELU("exact")(t.zeros(2))),
    ("celu-alpha-0", lambda t: t.nn.functional.celu(t.zeros(2), alpha=0.0)),
    ("Unflatten-float-size", lambda t: t.nn.Unflatten(1, [2.0, 2])),
    ("Unflatten-int-size", lambda t: t.nn.Unflatten(1, 4)),
    ("Unflatten-nested-size", lambda t: t.nn.Unflatten(1, (("C", 2), ("H", 2)))),
    ("Unflatten-wrong-product", lambda t: t.nn.Unflatten(1, (2, 2))(t.zeros(2, 3))),
    ("Unflatten-wrong-product-negative-dim", lambda t: t.nn.Unflatten(-1, [4, 2])(t.zeros(2, 3, 6))),
    ("Flatten-start-after-end", lambda t: t.nn.Flatten(2, 1)(t.zeros(2, 3, 4))),
]


@pytest.mark.parametrize("name,build", ERRORS, ids=[e[0] for e in ERRORS])
def test_errors_match_torch(name: str, build: Callable[[Any], Any]) -> None:
    _raises_like(lambda: build(torch), lambda: build(pt))


SHAPE_ERRORS: List[Tuple[str, Callable[[Any], Any], type]] = [
    ("Flatten-dim-out-of-range", lambda t: t.nn.Flatten(3)(t.zeros(2, 3, 4)), IndexError),
    ("Unflatten-two-inferred", lambda t: t.nn.Unflatten(1, (-1, -1))(t.zeros(2, 4)), RuntimeError),
    ("softmax-dim-out-of-range", lambda t: t.nn.Softmax(2)(t.zeros(2, 3)), IndexError),
    ("glu-dim-out-of-range", lambda t: t.nn.GLU(5)(t.zeros(2, 4)), IndexError),
]


@pytest.mark.parametrize("name,build,cls", SHAPE_ERRORS, ids=[e[0] for e in SHAPE_ERRORS])
def test_shape_errors_raise_torch_class(name: str, build: Callable[[Any], Any], cls: type) -> None:
    with pytest.raises(cls):
        build(pt)
    with pytest.raises(cls):
        build(torch)


@pytest.mark.parametrize("fn", ["softmax", "log_softmax", "softmin"])
def test_implicit_softmax_dim_warns_like_torch(fn: str) -> None:
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4) / 10
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        ours = getattr(F, fn)(torch.from_numpy(x))
        theirs = getattr(pt.nn.functional, fn)(pt.from_numpy(x))
    messages = [str(w.message) for w in seen if issubclass(w.category, UserWarning)]
    assert len(messages) == 2 and messages[0] == messages[1], messages
    assert seen[0].filename == __file__, "the warning should point at the caller"
    assert_close(ours, theirs, 1e-6, 1e-7, what=fn)


def test_softmax_module_with_dim_none_warns() -> None:
    with pytest.warns(UserWarning, match="Implicit dimension choice for softmax"):
        torch.nn.Softmax()(torch.zeros(2, 3))


def test_softmax_with_explicit_dim_does_not_warn() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        torch.nn.Softmax(dim=1)(torch.zeros(2, 3))
        torch.nn.Softmin(dim=0)(torch.zeros(2, 3))


def test_softmax_dtype_argument() -> None:
    x = np.random.default_rng(0).standard_normal((3, 4)).astype(np.float32)
    for fn in ("softmax", "log_softmax", "softmin"):
        ours = getattr(F, fn)(torch.from_numpy(x), 1, dtype=torch.float64)
        theirs = getattr(pt.nn.functional, fn)(pt.from_numpy(x), 1, dtype=pt.float64)
        assert_close(ours, theirs, 1e-6, 1e-8, what=f"{fn} dtype=float64")


def test_rrelu_training_slopes_stay_in_bounds() -> None:
    lower, upper = 0.1, 0.3
    leaf = torch.from_numpy(-np.linspace(0.5, 2.0, 400)).requires_grad_(True)
    out = F.rrelu(leaf, lower, upper, training=True)
    slopes = (out / leaf).detach().numpy()
    assert slopes.min() >= lower and slopes.max() <= upper
    assert slopes.std() > 0.01, "training slopes should be random"
    out.sum().backward()
    np.testing.assert_allclose(leaf.grad.numpy(), slopes, rtol=1e-12)


def test_rrelu_training_keeps_positive_inputs() -> None:
    x = torch.from_numpy(np.linspace(0.1, 2.0, 50))
    assert_close(torch.nn.RReLU()(x), pt.from_numpy(np.linspace(0.1, 2.0, 50)), 0, 0, what="positive inputs pass through")


def test_prelu_parameter_and_init() -> None:
    m = torch.nn.PReLU(3, init=0.1, dtype=torch.float64)
    theirs = pt.nn.PReLU(3, init=0.1, dtype=pt.float64)
    assert_close(m.weight, theirs.weight, 0, 0, what="weight")
    assert m.num_parameters == 3 and m.init == 0.1


def test_non_contiguous_inputs() -> None:
    x = np.random.default_rng(1).standard_normal((4, 6)) * 4
    for name in ("elu", "celu", "selu", "hardswish", "hardsigmoid", "softsign", "softplus", "logsigmoid", "mish", "softshrink"):
        ours = torch.from_numpy(x.copy()).t()
        theirs = pt.from_numpy(x.copy()).t()
        assert_close(getattr(F, name)(ours), getattr(pt.nn.functional, name)(theirs), 1e-7, 1e-9, what=name)
    assert_close(F.glu(torch.from_numpy(x.copy()).t(), 0), pt.nn.functional.glu(pt.from_numpy(x.copy()).t(), 0), 1e-7, 1e-9, what="glu")


INTEGER_CALLS = [n for n in FUNCTIONAL if not n.endswith("_") and n not in ("prelu", "gumbel_softmax")]


@pytest.mark.parametrize("dtype", ["int64", "int32", "uint8"])
@pytest.mark.parametrize("name", INTEGER_CALLS)
def test_integer_inputs_as_torch(name: str, dtype: str) -> None:
    """Torch keeps integer dtypes (relu, hardtanh, threshold), promotes (tanh, softsign) or
    raises NotImplementedError naming its kernel: the same here."""
    args = {"threshold": (1, 7)}.get(name, ())
    kwargs = {"dim": 1} if "soft" in name and ("max" in name or "min" in name) else {}

    def call(lib: Any) -> Any:
        return getattr(lib.nn.functional, name)(lib.tensor([[1, 2, 3, 4]], dtype=getattr(lib, dtype)), *args, **kwargs)

    try:
        theirs = call(pt)
    except NotImplementedError:
        _raises_like(lambda: call(torch), lambda: call(pt))
        return
    assert_close(call(torch), theirs, 1e-6, 1e-7, what=f"{name} on {dtype}")


def test_unflatten_keeps_the_size_object_it_was_given() -> None:
    m = torch.nn.Unflatten(1, torch.Size([2, 3]))
    assert isinstance(m.unflattened_size, torch.Size)
    assert m(torch.zeros(4, 6)).shape == (4, 2, 3)


def test_flatten_and_unflatten_non_contiguous_inputs() -> None:
    x = np.arange(24, dtype=np.float64).reshape(2, 3, 4)
    ours = torch.from_numpy(x.copy()).transpose(0, 2)
    theirs = pt.from_numpy(x.copy()).transpose(0, 2)
    for start, end in ((1, -1), (0, 1), (0, -1)):
        assert_close(torch.nn.Flatten(start, end)(ours), pt.nn.Flatten(start, end)(theirs), 0, 0, what=f"Flatten({start}, {end})")
    assert_close(torch.nn.Unflatten(0, (2, 2))(ours), pt.nn.Unflatten(0, (2, 2))(theirs), 0, 0, what="Unflatten")


def test_glu_dim_out_of_range_names_glu() -> None:
    with pytest.raises(IndexError, match=r"glu: Dimension out of range \(expected to be in range of \[-2, 1\], but got 5\)"):
        F.glu(torch.zeros(2, 4), 5)


NO_GRAD_PATHS: List[Tuple[str, Dict[str, Any]]] = [
    ("elu", {}), ("elu", {"alpha": 0.3}), ("celu", {"alpha": 0.5}), ("celu", {"alpha": 2.0}), ("selu", {}),
    ("softplus", {}), ("softplus", {"beta": 2.0, "threshold": 5.0}), ("mish", {}), ("logsigmoid", {}),
]


@pytest.mark.parametrize("name,kwargs", NO_GRAD_PATHS, ids=[f"{n}-{k}" for n, k in NO_GRAD_PATHS])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_fused_path_without_autograd_matches_torch(name: str, kwargs: Dict[str, Any], dtype: str) -> None:
    # Without autograd these take the fused kernels rather than the where-compositions.
    x = np.array([-1000.0, -30.0, -20.5, -5.0, -1.0, -0.2, 0.0, 0.3, 1.0, 4.9, 5.1, 20.5, 30.0, 1000.0], dtype=dtype)
    with torch.no_grad():
        ours = getattr(F, name)(torch.from_numpy(x.copy()).requires_grad_(True), **kwargs)
    plain = getattr(F, name)(torch.from_numpy(x.copy()), **kwargs)
    theirs = getattr(pt.nn.functional, name)(pt.from_numpy(x.copy()), **kwargs)
    tol = (1e-5, 1e-6) if dtype == "float32" else (1e-12, 1e-14)
    assert_close(ours, theirs, *tol, what=f"{name} under no_grad")
    assert_close(plain, theirs, *tol, what=f"{name} on a tensor without grad")


@pytest.mark.parametrize("name,kwargs", [("elu", {}), ("elu", {"alpha": 0.3}), ("celu", {"alpha": 0.5}), ("selu", {}), ("softplus", {"beta": 2.0})])
def test_exp_linear_tails_and_second_derivatives(name: str, kwargs: Dict[str, Any]) -> None:
    """Gradients deep in the negative tail keep their digits (PyTorch differentiates exp(x), not
    result + 1), and second derivatives agree, 0 included."""
    x = np.array([-1000.0, -30.0, -20.5, -5.0, -1.0, -1e-8, 0.0, 1e-8, 1.0, 30.0, 1000.0])
    got = []
    for lib in (torch, pt):
        t = lib.from_numpy(x.copy()).requires_grad_(True)
        (g,) = lib.autograd.grad(getattr(lib.nn.functional, name)(t, **kwargs).sum(), t, create_graph=True)
        (gg,) = lib.autograd.grad((g * g).sum(), t)
        got.append((g, gg))
    np.testing.assert_allclose(got[0][0].detach().numpy(), got[1][0].detach().numpy(), rtol=1e-10, atol=0, err_msg="grad")
    np.testing.assert_allclose(got[0][1].numpy(), got[1][1].numpy(), rtol=1e-10, atol=0, err_msg="second derivative")


def test_torch_nn_modules_activation_path() -> None:
    # Programs import activations (and MultiheadAttention) from torch.nn.modules.activation.
    from ferrotorch.nn.modules import activation

    assert sorted(activation.__all__) == sorted(pt.nn.modules.activation.__all__)
    for name in activation.__all__:
        assert getattr(activation, name) is getattr(torch.nn, name)


def test_hardtanh_deprecated_keyword_names_warn() -> None:
    with pytest.warns(FutureWarning, match="keyword argument `min_value` is deprecated and renamed to `min_val`"):
        m = torch.nn.Hardtanh(min_value=-0.25)
    assert m.min_val == -0.25 and m.max_val == 1.0
    with pytest.warns(FutureWarning, match="`max_value` is deprecated"):
        assert torch.nn.Hardtanh(max_value=2.0).max_val == 2.0
