"""Transforms and constraints of torch.distributions against PyTorch: forward, inverse,
log_abs_det_jacobian, domains, shapes, caching, gradchecks; constraint checks and reprs."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest

import ferrotorch as torch
from torch_oracle import assert_close, needs_torch, pt

pytestmark = needs_torch


def _T(lib: Any, dtype: str = "float64") -> Callable:
    return lambda x: lib.tensor(x, dtype=getattr(lib, dtype))


# name -> (build(transforms_module, T), x in the domain)
TRANSFORMS = {
    "Exp": (lambda tr, T: tr.ExpTransform(), [[-1.0, 0.0, 2.0]]),
    "Exp.inv": (lambda tr, T: tr.ExpTransform().inv, [[0.5, 1.0, 3.0]]),
    "Affine-numbers": (lambda tr, T: tr.AffineTransform(1.0, -2.0), [0.5, -1.0]),
    "Affine-tensors": (lambda tr, T: tr.AffineTransform(T([1.0, 2.0]), T([[2.0], [-0.5]])), [[0.5, -1.0], [2.0, 0.0]]),
    "Affine-event_dim": (lambda tr, T: tr.AffineTransform(T([1.0, 2.0]), T([3.0, -0.5]), event_dim=1), [[0.5, -1.0], [2.0, 0.0]]),
    "Sigmoid": (lambda tr, T: tr.SigmoidTransform(), [-3.0, 0.0, 0.7]),
    "Tanh": (lambda tr, T: tr.TanhTransform(), [-3.0, 0.0, 0.7]),
    "Softplus": (lambda tr, T: tr.SoftplusTransform(), [-3.0, 0.0, 0.7]),
    "Power": (lambda tr, T: tr.PowerTransform(T([0.5, 2.0, -1.5])), [0.3, 1.2, 2.0]),
    "Abs": (lambda tr, T: tr.AbsTransform(), [-2.0, 0.5]),
    "Softmax": (lambda tr, T: tr.SoftmaxTransform(), [[0.1, -1.0, 2.0], [0.0, 0.0, 0.0]]),
    "StickBreaking": (lambda tr, T: tr.StickBreakingTransform(), [[0.1, -1.0, 2.0], [0.0, 0.0, 0.0]]),
    "LowerCholesky": (lambda tr, T: tr.LowerCholeskyTransform(), [[[0.1, 5.0], [-1.0, 0.3]]]),
    "PositiveDefinite": (lambda tr, T: tr.PositiveDefiniteTransform(), [[0.1, 5.0], [-1.0, 0.3]]),
    "CorrCholesky": (lambda tr, T: tr.CorrCholeskyTransform(), [[0.3, -0.5, 1.2], [0.0, 0.1, -2.0]]),
    "Compose": (lambda tr, T: tr.ComposeTransform([tr.AffineTransform(0.5, 2.0), tr.ExpTransform(), tr.PowerTransform(T(2.0))]), [-0.5, 0.3]),
    "Compose-event": (lambda tr, T: tr.ComposeTransform([tr.ExpTransform(), tr.AffineTransform(T([1.0, 2.0]), 2.0, event_dim=1)]), [[-0.5, 0.3]]),
    "Compose-empty": (lambda tr, T: tr.ComposeTransform([]), [-0.5, 0.3]),
    "Independent": (lambda tr, T: tr.IndependentTransform(tr.SigmoidTransform(), 1), [[-0.5, 0.3], [1.0, 2.0]]),
    "Reshape": (lambda tr, T: tr.ReshapeTransform((2, 3), (3, 2)), [[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]]),
    "Cat": (lambda tr, T: tr.CatTransform([tr.ExpTransform(), tr.AffineTransform(1.0, 3.0)], dim=-1, lengths=[1, 2]), [[0.5, -1.0, 2.0]]),
    "Stack": (lambda tr, T: tr.StackTransform([tr.ExpTransform(), tr.SigmoidTransform()], dim=0), [[0.5, -1.0], [2.0, 0.1]]),
    "CumulativeDistribution": (
        lambda tr, T: tr.CumulativeDistributionTransform(
            (torch if tr is torch.distributions.transforms else pt).distributions.Normal(T(0.5), T(2.0))
        ),
        [-1.0, 0.5, 3.0],
    ),
}


def _both(name: str, dtype: str = "float64") -> tuple:
    build, x = TRANSFORMS[name]
    return (
        build(torch.distributions.transforms, _T(torch, dtype)),
        build(pt.distributions.transforms, _T(pt, dtype)),
        _T(torch, dtype)(x),
        _T(pt, dtype)(x),
    )


def _outcome(f: Callable) -> Any:
    try:
        return f()
    except (NotImplementedError, ValueError) as e:
        return type(e)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name", list(TRANSFORMS))
def test_transform_forward_inverse_and_jacobian_match_torch(name: str, dtype: str) -> None:
    t, u, x, px = _both(name, dtype)
    tol = dict(rtol=1e-6, atol=1e-9) if dtype == "float64" else dict(rtol=2e-5, atol=2e-6)
    y, py = t(x), u(px)
    assert_close(y, py, what=f"{name} forward", **tol)
    assert_close(t.inv(y), u.inv(py), what=f"{name} inverse", **tol)
    theirs = _outcome(lambda: u.log_abs_det_jacobian(px, py))
    if theirs is NotImplementedError:
        with pytest.raises(NotImplementedError):
            t.log_abs_det_jacobian(x, y)
    else:
        assert_close(t.log_abs_det_jacobian(x, y), theirs, what=f"{name} ladj", **tol)
        assert_close(t.inv.log_abs_det_jacobian(y, x), u.inv.log_abs_det_jacobian(py, px), what=f"{name} inv ladj", **tol)


@pytest.mark.parametrize("name", list(TRANSFORMS))
def test_transform_attributes_match_torch(name: str) -> None:
    t, u, x, px = _both(name)
    assert repr(t.domain) == repr(u.domain) and repr(t.codomain) == repr(u.codomain)
    assert repr(t.inv.domain) == repr(u.inv.domain)
    assert t.bijective == u.bijective
    assert _outcome(lambda: t.event_dim) == _outcome(lambda: u.event_dim)
    sign, theirs = _outcome(lambda: t.sign), _outcome(lambda: u.sign)
    if isinstance(theirs, pt.Tensor):
        assert sign.tolist() == theirs.tolist()
    else:
        assert sign == theirs
    shape = tuple(x.shape)
    assert tuple(t.forward_shape(shape)) == tuple(u.forward_shape(shape))
    assert tuple(t.inverse_shape(t.forward_shape(shape))) == tuple(u.inverse_shape(u.forward_shape(shape)))
    assert t.inv.inv is t
    assert repr(t).split("(")[0] == repr(u).split("(")[0]


@pytest.mark.parametrize("name", list(TRANSFORMS))
def test_transform_gradcheck_float64(name: str) -> None:
    t, u, x, _ = _both(name)
    x = x.requires_grad_(True)
    assert torch.autograd.gradcheck(lambda v: t(v), (x,), eps=1e-6, atol=1e-5)
    if _outcome(lambda: u.log_abs_det_jacobian(_both(name)[3], u(_both(name)[3]))) is not NotImplementedError:
        assert torch.autograd.gradcheck(lambda v: t.log_abs_det_jacobian(v, t(v)), (x,), eps=1e-6, atol=1e-5)


@pytest.mark.parametrize("name", ["Exp", "Sigmoid", "Tanh", "Softplus", "Power", "Affine-tensors", "CumulativeDistribution"])
def test_elementwise_jacobian_equals_autograd_derivative(name: str) -> None:
    t, _, x, _ = _both(name)
    x = x.requires_grad_(True)
    y = t(x)
    (dy,) = torch.autograd.grad(y.sum(), [x])
    ladj = t.log_abs_det_jacobian(x, y).broadcast_to(y.shape)
    np.testing.assert_allclose(ladj.detach().numpy(), dy.abs().log().numpy(), rtol=1e-6, atol=1e-9)


def test_cache_returns_the_input_object():
    t = torch.distributions.transforms.TanhTransform(cache_size=1)
    x = torch.tensor([30.0, -0.5])
    y = t(x)
    assert t.inv(y) is x and t(x) is y
    assert t.with_cache(1) is t and t.with_cache(0)._cache_size == 0
    with pytest.raises(ValueError, match="cache_size must be 0 or 1"):
        torch.distributions.transforms.ExpTransform(cache_size=2)


def test_transform_equality():
    tr = torch.distributions.transforms
    assert tr.ExpTransform() == tr.ExpTransform() and tr.ExpTransform() != tr.SigmoidTransform()
    assert tr.ExpTransform().inv == tr.ExpTransform().inv
    assert tr.AffineTransform(1.0, 2.0) == tr.AffineTransform(1.0, 2.0) != tr.AffineTransform(1.0, 3.0)
    assert tr.ComposeTransform([tr.ExpTransform()]) == tr.ComposeTransform([tr.ExpTransform()])
    assert tr.PowerTransform(torch.tensor(2.0)) == tr.PowerTransform(2.0)


def test_reshape_transform_errors_match_torch():
    for lib in (torch, pt):
        with pytest.raises(ValueError, match="different numbers of elements"):
            lib.distributions.transforms.ReshapeTransform((2, 3), (4,))
    t = torch.distributions.transforms.ReshapeTransform((2, 3), (6,))
    with pytest.raises(ValueError, match="Shape mismatch"):
        t.forward_shape((5, 3, 2))


def test_transformed_distribution_rejects_non_transforms():
    for lib in (torch, pt):
        with pytest.raises(ValueError, match="transforms must be a Transform or list"):
            lib.distributions.TransformedDistribution(lib.distributions.Normal(0.0, 1.0), "exp")
        with pytest.raises(ValueError, match="transforms must be a Transform or a list of Transforms"):
            lib.distributions.TransformedDistribution(lib.distributions.Normal(0.0, 1.0), ["exp"])


# ---- constraints ----

CONSTRAINT_VALUES = {
    "real": [[0.0, float("nan"), float("inf")]],
    "positive": [[1.0, 0.0, -1.0]],
    "nonnegative": [[1.0, 0.0, -1.0]],
    "unit_interval": [[0.0, 1.0, 1.5, -0.1]],
    "boolean": [[0.0, 1.0, 0.5]],
    "nonnegative_integer": [[0.0, 3.0, 1.5, -1.0]],
    "positive_integer": [[0.0, 3.0, 1.5]],
    "simplex": [[[0.2, 0.8], [0.5, 0.6], [-0.1, 1.1]]],
    "one_hot": [[[0.0, 1.0], [1.0, 1.0], [0.5, 0.5]]],
    "real_vector": [[[0.0, 1.0], [float("nan"), 0.0]]],
    "lower_triangular": [[[[1.0, 0.0], [2.0, 3.0]], [[1.0, 1.0], [0.0, 1.0]]]],
    "lower_cholesky": [[[[1.0, 0.0], [2.0, 3.0]], [[1.0, 0.0], [2.0, -3.0]]]],
    "corr_cholesky": [[[[1.0, 0.0], [0.6, 0.8]], [[1.0, 0.0], [0.5, 0.5]]]],
    "square": [[[1.0, 2.0], [3.0, 4.0]]],
    "symmetric": [[[[1.0, 2.0], [2.0, 4.0]], [[1.0, 2.0], [3.0, 4.0]]]],
    "positive_definite": [[[[2.0, 0.5], [0.5, 1.0]], [[1.0, 2.0], [2.0, 1.0]], [[0.0, 0.0], [0.0, 0.0]]]],
    "positive_semidefinite": [[[[2.0, 0.5], [0.5, 1.0]], [[1.0, 2.0], [2.0, 1.0]], [[0.0, 0.0], [0.0, 0.0]]]],
}

CONSTRAINT_FACTORIES = {
    "greater_than(1.5)": (lambda c: c.greater_than(1.5), [[1.0, 1.5, 2.0]]),
    "greater_than_eq(1.5)": (lambda c: c.greater_than_eq(1.5), [[1.0, 1.5, 2.0]]),
    "less_than(1.5)": (lambda c: c.less_than(1.5), [[1.0, 1.5, 2.0]]),
    "interval(0, 2)": (lambda c: c.interval(0.0, 2.0), [[-1.0, 0.0, 2.0, 2.5]]),
    "half_open_interval(0, 2)": (lambda c: c.half_open_interval(0.0, 2.0), [[-1.0, 0.0, 2.0]]),
    "integer_interval(0, 3)": (lambda c: c.integer_interval(0, 3), [[0.0, 3.0, 1.5, 4.0]]),
    "multinomial(3)": (lambda c: c.multinomial(3), [[[1.0, 2.0], [2.0, 2.0], [-1.0, 1.0]]]),
    "independent(positive, 1)": (lambda c: c.independent(c.positive, 1), [[[1.0, 2.0], [1.0, -1.0]]]),
    "cat": (lambda c: c.cat([c.positive, c.real], dim=-1, lengths=[1, 2]), [[[1.0, -2.0, 3.0], [-1.0, 0.0, 0.0]]]),
    "stack": (lambda c: c.stack([c.positive, c.real], dim=-1), [[[1.0, -2.0], [-1.0, 0.0]]]),
}


def _constraint_cases() -> list:
    cases = [(n, (lambda c, n=n: getattr(c, n)), v[0]) for n, v in CONSTRAINT_VALUES.items()]
    cases += [(n, f, v[0]) for n, (f, v) in CONSTRAINT_FACTORIES.items()]
    return cases


@pytest.mark.parametrize("name, make, value", _constraint_cases(), ids=lambda v: v if isinstance(v, str) else "")
def test_constraint_check_and_repr_match_torch(name: str, make: Callable, value: Any) -> None:
    ours, theirs = make(torch.distributions.constraints), make(pt.distributions.constraints)
    got = ours.check(torch.tensor(value, dtype=torch.float64))
    assert_close(got, theirs.check(pt.tensor(value, dtype=pt.float64)), what=name)
    assert repr(ours) == repr(theirs)
    assert ours.event_dim == theirs.event_dim and ours.is_discrete == theirs.is_discrete


def test_dependent_constraints():
    c = torch.distributions.constraints
    assert c.is_dependent(c.dependent) and not c.is_dependent(c.real)
    with pytest.raises(ValueError, match="Cannot determine validity of dependent constraint"):
        c.dependent.check(torch.zeros(1))
    with pytest.raises(NotImplementedError, match="cannot be determined statically"):
        c.dependent.event_dim
    assert c.dependent(is_discrete=True, event_dim=1).event_dim == 1
    support = torch.distributions.Uniform.support
    assert c.is_dependent(support) and support.event_dim == 0 and not support.is_discrete
    assert isinstance(torch.distributions.Uniform(0.0, 1.0).support, type(c.interval(0.0, 1.0)))


# ---- biject_to / transform_to ----

REGISTRY_CONSTRAINTS = {
    "real": (lambda c: c.real, (3,)),
    "real_vector": (lambda c: c.real_vector, (2, 3)),
    "positive": (lambda c: c.positive, (3,)),
    "nonnegative": (lambda c: c.nonnegative, (3,)),
    "greater_than": (lambda c: c.greater_than(2.0), (3,)),
    "greater_than_eq": (lambda c: c.greater_than_eq(-1.0), (3,)),
    "less_than": (lambda c: c.less_than(2.0), (3,)),
    "unit_interval": (lambda c: c.unit_interval, (3,)),
    "interval": (lambda c: c.interval(-2.0, 5.0), (3,)),
    "half_open_interval": (lambda c: c.half_open_interval(1.0, 2.0), (3,)),
    "simplex": (lambda c: c.simplex, (2, 3)),
    "lower_cholesky": (lambda c: c.lower_cholesky, (2, 2)),
    "positive_definite": (lambda c: c.positive_definite, (3, 3)),
    "corr_cholesky": (lambda c: c.corr_cholesky, (3,)),
    "independent": (lambda c: c.independent(c.positive, 1), (2, 3)),
    "cat": (lambda c: c.cat([c.positive, c.unit_interval], dim=-1, lengths=[1, 2]), (2, 3)),
    "stack": (lambda c: c.stack([c.positive, c.real], dim=-1), (3, 2)),
}


@pytest.mark.parametrize("registry", ["biject_to", "transform_to"])
@pytest.mark.parametrize("name", list(REGISTRY_CONSTRAINTS))
def test_constraint_registry_matches_torch(registry: str, name: str) -> None:
    make, shape = REGISTRY_CONSTRAINTS[name]
    ours_reg, theirs_reg = getattr(torch.distributions, registry), getattr(pt.distributions, registry)
    ours_c, theirs_c = make(torch.distributions.constraints), make(pt.distributions.constraints)
    try:
        u = theirs_reg(theirs_c)
    except NotImplementedError as e:
        with pytest.raises(NotImplementedError) as ours_e:
            ours_reg(ours_c)
        assert str(ours_e.value) == str(e)
        return
    t = ours_reg(ours_c)
    assert type(t).__name__ == type(u).__name__ and t.bijective == u.bijective
    torch.manual_seed(0)
    x = torch.randn(shape, dtype=torch.float64)
    y = t(x)
    assert bool(ours_c.check(y).all()), f"{registry}({name}) left the constraint"
    assert_close(y, u(pt.from_numpy(x.numpy().copy())), rtol=1e-6, atol=1e-9, what=name)


def test_constraint_registry_register_and_errors():
    reg = torch.distributions.constraint_registry.ConstraintRegistry()
    c = torch.distributions.constraints
    with pytest.raises(NotImplementedError, match="Cannot transform _Real constraints"):
        reg(c.real)
    reg.register(c.real, lambda constraint: torch.distributions.transforms.ExpTransform())
    assert isinstance(reg(c.real), torch.distributions.transforms.ExpTransform)
    with pytest.raises(TypeError, match="Expected constraint to be either a Constraint subclass or instance"):
        reg.register(int, lambda constraint: None)
