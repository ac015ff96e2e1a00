"""torch.func against PyTorch's: grad, grad_and_value, vjp, jvp, jacrev, jacfwd, hessian and vmap
on the same functions and inputs (pytrees, argnums, has_aux, in_dims/out_dims), their
composition (per-sample gradients, hessians as jacrev of jacrev, vmap of jacrev), grad-mode
semantics, functional_call / stack_module_state, and PyTorch's errors."""

from __future__ import annotations

from typing import Any, Callable, Dict

import numpy as np
import pytest

import ferrotorch as torch
from ferrotorch.utils._pytree import tree_flatten
from torch_oracle import needs_torch, pt

pytestmark = needs_torch

RNG = np.random.default_rng(0)


def arr(*shape: int, dtype: Any = np.float64) -> np.ndarray:
    return RNG.standard_normal(shape).astype(dtype)


class Transposed:
    """An input given as the transpose of a contiguous tensor (a non-contiguous layout)."""

    def __init__(self, a: np.ndarray) -> None:
        self.a = a


def to_lib(lib: Any, tree: Any) -> Any:
    """A pytree of NumPy arrays as tensors of ``lib`` (ferrotorch or PyTorch)."""
    if isinstance(tree, np.ndarray):
        return lib.from_numpy(tree.copy())
    if isinstance(tree, Transposed):
        return lib.from_numpy(np.ascontiguousarray(tree.a.T)).t()
    if isinstance(tree, dict):
        return {k: to_lib(lib, v) for k, v in tree.items()}
    if isinstance(tree, (list, tuple)):
        return type(tree)(to_lib(lib, v) for v in tree)
    return tree


def assert_same(ours: Any, theirs: Any, rtol: float = 1e-5, atol: float = 1e-6, what: str = "") -> None:
    """Same tree structure, and tensors with the same shape, dtype and values."""
    lo, so = tree_flatten(ours)
    lt, _ = pt.utils._pytree.tree_flatten(theirs)
    assert len(lo) == len(lt), f"{what}: {len(lo)} leaves vs torch {len(lt)} ({so})"
    assert type(ours).__name__ == type(theirs).__name__, f"{what}: {type(ours)} vs {type(theirs)}"
    for a, b in zip(lo, lt):
        if not isinstance(b, pt.Tensor):
            assert a == b, what
            continue
        assert tuple(a.shape) == tuple(b.shape), f"{what}: shape {tuple(a.shape)} vs torch {tuple(b.shape)}"
        assert str(a.dtype) == str(b.dtype), f"{what}: dtype {a.dtype} vs torch {b.dtype}"
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=rtol, atol=atol, err_msg=what)


def both(build: Callable[[Any], Any], inputs: Any) -> Any:
    """``build(lib)(*inputs)`` for ferrotorch and for PyTorch."""
    ours = build(torch)(*to_lib(torch, inputs))
    theirs = build(pt)(*to_lib(pt, inputs))
    return ours, theirs


# ---- functions: written with tensor methods so that the same code runs on both libraries ----

SCALAR_FUNCS: Dict[str, Callable[..., Any]] = {
    "cube_sum": lambda x: (x**3).sum(),
    "sin_times": lambda x, y: (x.sin() * y).sum(),
    "tanh_matvec": lambda w, x: (w @ x).tanh().sum(),
    "logsumexp": lambda x: x.logsumexp(-1).sum(),
    "softmax_dot": lambda x, y: (x.softmax(-1) * y).sum(),
    "quadratic": lambda x, a: x @ a @ x,
    "exp_mean": lambda x: x.exp().mean(),
    "zero_d": lambda x: x * x * x,
    "dict_in": lambda d: (d["a"] * d["b"].exp()).sum(),
    "nested_in": lambda t: (t[0] * t[1][0].cos()).sum() + t[1][1].sum(),
    "unused_y": lambda x, y: (x * x).sum(),
    "broadcast": lambda x, y: (x * y).pow(2).sum(),
    "relu_norm": lambda x: x.relu().norm(),
}

# (function, inputs, argnums)
GRAD_CASES = [
    ("cube_sum", (arr(3),), 0),
    ("cube_sum", (arr(2, 3, dtype=np.float32),), 0),
    ("cube_sum", (Transposed(arr(3, 4)),), 0),
    ("sin_times", (arr(4), arr(4)), 0),
    ("sin_times", (arr(4), arr(4)), 1),
    ("sin_times", (arr(4), arr(4)), (0, 1)),
    ("sin_times", (arr(4), arr(4)), (1, 0)),
    ("sin_times", (arr(4), arr(4)), -1),
    ("tanh_matvec", (arr(5, 3), arr(3)), (0, 1)),
    ("tanh_matvec", (Transposed(arr(5, 3)), arr(3)), 0),
    ("logsumexp", (arr(2, 5),), 0),
    ("softmax_dot", (arr(3, 4), arr(3, 4)), 0),
    ("quadratic", (arr(3), arr(3, 3)), (0, 1)),
    ("exp_mean", (arr(0, 3),), 0),
    ("zero_d", (np.array(1.5),), 0),
    ("dict_in", ({"a": arr(3), "b": arr(3)},), 0),
    ("nested_in", ((arr(2), (arr(2), arr(3))),), 0),
    ("unused_y", (arr(3), arr(2)), (0, 1)),
    ("broadcast", (arr(2, 3), arr(1, 3)), (0, 1)),
    ("relu_norm", (arr(6, dtype=np.float32),), 0),
]


def _case_id(c: Any) -> str:
    return f"{c[0]}-argnums={c[-1]}"


@pytest.mark.parametrize("case", GRAD_CASES, ids=_case_id)
def test_grad_and_value_match_torch(case: Any) -> None:
    name, inputs, argnums = case
    f = SCALAR_FUNCS[name]
    ours, theirs = both(lambda lib: lib.func.grad(f, argnums=argnums), inputs)
    assert_same(ours, theirs, what=f"grad {name}")
    ours, theirs = both(lambda lib: lib.func.grad_and_value(f, argnums=argnums), inputs)
    assert_same(ours, theirs, what=f"grad_and_value {name}")


@pytest.mark.parametrize("case", GRAD_CASES, ids=_case_id)
def test_grad_of_grad_and_hessian_match_torch(case: Any) -> None:
    name, inputs, argnums = case
    f = SCALAR_FUNCS[name]
    if name in ("relu_norm",):
        pytest.skip("second derivative at a kink")
    ours, theirs = both(lambda lib: lib.func.hessian(f, argnums=argnums), inputs)
    assert_same(ours, theirs, rtol=1e-4, atol=1e-5, what=f"hessian {name}")
    ours, theirs = both(lambda lib: lib.func.jacrev(lib.func.jacrev(f, argnums=argnums), argnums=argnums), inputs)
    assert_same(ours, theirs, rtol=1e-4, atol=1e-5, what=f"jacrev(jacrev) {name}")


def test_grad_with_aux_and_kwargs() -> None:
    def f(x, y, *, scale):
        loss = (x.sin() * y * scale).sum()
        return loss, {"pred": x * 2, "extra": (y.cos(),)}

    ins = (arr(3), arr(3))
    for fn in ("grad", "grad_and_value"):
        ours = getattr(torch.func, fn)(f, argnums=(0, 1), has_aux=True)(*to_lib(torch, ins), scale=torch.tensor(2.0, dtype=torch.float64))
        theirs = getattr(pt.func, fn)(f, argnums=(0, 1), has_aux=True)(*to_lib(pt, ins), scale=pt.tensor(2.0, dtype=pt.float64))
        assert_same(ours, theirs, what=fn)


def test_grad_of_grad_scalar_function() -> None:
    f = lambda x: x.sin() * x**2  # noqa: E731
    x = np.array(0.7)
    for order in (2, 3):
        def nest(lib: Any, n: int = order) -> Any:
            g = f
            for _ in range(n):
                g = lib.func.grad(g)
            return g

        ours, theirs = both(nest, (x,))
        assert_same(ours, theirs, what=f"order {order}")


# ---- Jacobians ----

VECTOR_FUNCS: Dict[str, Callable[..., Any]] = {
    "sin": lambda x: x.sin(),
    "matvec": lambda w, x: w @ x,
    "outer": lambda x, y: x[:, None] * y[None, :],
    "softmax": lambda x: x.softmax(-1),
    "dict_out": lambda x: {"a": x.sin(), "b": (x * x).sum()},
    "tuple_out": lambda x: (x.exp(), x.cumsum(0)),
    "zero_d": lambda x: x.exp() * x,
    "relu": lambda x: x.relu() * 3,
    "broadcast": lambda x, y: x + y * y,
    "dict_in": lambda d: d["w"] @ d["x"],
    "constant": lambda x: x.new_ones(2),
    "sum": lambda x: x.sum(0),
}

JAC_CASES = [
    ("sin", (arr(4),), 0),
    ("sin", (arr(2, 3, dtype=np.float32),), 0),
    ("sin", (Transposed(arr(3, 2)),), 0),
    ("sin", (arr(0),), 0),
    ("matvec", (arr(2, 3), arr(3)), 0),
    ("matvec", (arr(2, 3), arr(3)), 1),
    ("matvec", (arr(2, 3), arr(3)), (0, 1)),
    ("outer", (arr(2), arr(3)), (0, 1)),
    ("softmax", (arr(2, 3),), 0),
    ("dict_out", (arr(3),), 0),
    ("tuple_out", (arr(3),), 0),
    ("zero_d", (np.array(0.3),), 0),
    ("relu", (np.array([-1.0, 2.0, 0.5]),), 0),
    ("broadcast", (arr(2, 3), arr(3)), (0, 1)),
    ("dict_in", ({"w": arr(2, 3), "x": arr(3)},), 0),
    ("constant", (arr(3),), 0),
    ("sum", (arr(3, 2),), 0),
]


@pytest.mark.parametrize("api", ["jacrev", "jacfwd"])
@pytest.mark.parametrize("case", JAC_CASES, ids=_case_id)
def test_jacobians_match_torch(api: str, case: Any) -> None:
    name, inputs, argnums = case
    f = VECTOR_FUNCS[name]
    ours, theirs = both(lambda lib: getattr(lib.func, api)(f, argnums=argnums), inputs)
    assert_same(ours, theirs, what=f"{api} {name}")


@pytest.mark.parametrize("api", ["jacrev", "jacfwd"])
def test_jacobian_has_aux(api: str) -> None:
    f = lambda x, y: (x * y, {"norm": (x * y).norm()})  # noqa: E731
    ours, theirs = both(lambda lib: getattr(lib.func, api)(f, argnums=1, has_aux=True), (arr(3), arr(3)))
    assert_same(ours, theirs, what=api)


def test_jacrev_chunk_size_gives_the_same_values() -> None:
    ours, theirs = both(lambda lib: lib.func.jacrev(VECTOR_FUNCS["softmax"], chunk_size=2), (arr(5),))
    assert_same(ours, theirs)


# ---- vjp and jvp ----

VJP_CASES = [
    ("sin", (arr(4),)),
    ("sin", (Transposed(arr(3, 2)),)),
    ("matvec", (arr(2, 3), arr(3))),
    ("outer", (arr(2), arr(3))),
    ("dict_out", (arr(3),)),
    ("tuple_out", (arr(3),)),
    ("zero_d", (np.array(0.3),)),
    ("dict_in", ({"w": arr(2, 3), "x": arr(3)},)),
    ("constant", (arr(3),)),
]


def _like(lib: Any, tree: Any) -> Any:
    """Cotangents/tangents with ``tree``'s structure and deterministic values."""
    return lib.utils._pytree.tree_map(lambda t: (lib.arange(t.numel(), dtype=t.dtype).reshape(t.shape) + 1) / 3, tree)


@pytest.mark.parametrize("case", VJP_CASES, ids=lambda c: c[0])
def test_vjp_matches_torch(case: Any) -> None:
    name, inputs = case
    f = VECTOR_FUNCS[name]

    def run(lib: Any) -> Any:
        def call(*primals: Any) -> Any:
            out, vjp_fn = lib.func.vjp(f, *primals)
            ct = _like(lib, out)
            return out, vjp_fn(ct), vjp_fn(ct)

        return call

    ours, theirs = both(run, inputs)
    assert_same(ours, theirs, what=f"vjp {name}")


@pytest.mark.parametrize("case", VJP_CASES, ids=lambda c: c[0])
def test_jvp_matches_torch(case: Any) -> None:
    name, inputs = case
    f = VECTOR_FUNCS[name]

    def run(lib: Any) -> Any:
        def call(*primals: Any) -> Any:
            return lib.func.jvp(f, primals, _like(lib, primals))

        return call

    ours, theirs = both(run, inputs)
    assert_same(ours, theirs, what=f"jvp {name}")


def test_vjp_and_jvp_has_aux() -> None:
    f = lambda x: (x.sin() * 2, {"c": x.cos()})  # noqa: E731

    def run(lib: Any) -> Any:
        def call(x: Any) -> Any:
            out, vjp_fn, aux = lib.func.vjp(f, x, has_aux=True)
            jout, jt, jaux = lib.func.jvp(f, (x,), (lib.ones_like(x),), has_aux=True)
            return out, vjp_fn(lib.ones_like(out)), aux, jout, jt, jaux

        return call

    ours, theirs = both(run, (arr(3),))
    assert_same(ours, theirs)


# ---- vmap ----

VMAP_CASES = [
    # (name, function, inputs, in_dims, out_dims)
    ("dot", lambda x, y: (x * y).sum(), (arr(4, 3), arr(4, 3)), 0, 0),
    ("dot_in1", lambda x, y: (x * y).sum(), (arr(3, 4), arr(4, 3)), (1, 0), 0),
    ("shared_w", lambda w, x: w @ x, (arr(2, 3), arr(5, 3)), (None, 0), 0),
    ("out1", lambda x: x.sin() * 2, (arr(4, 3),), 0, 1),
    ("out_neg", lambda x: x.sin() * 2, (arr(4, 3),), 0, -1),
    ("neg_in", lambda x: x.sum(0), (arr(2, 3, 4),), -1, 0),
    ("tuple_out", lambda x: (x.exp(), x.sum()), (arr(4, 3),), 0, (1, 0)),
    ("dict_in", lambda d: d["a"] + d["b"], ({"a": arr(4, 2), "b": arr(2)},), ({"a": 0, "b": None},), 0),
    ("dict_in_all", lambda d: d["a"] * d["b"], ({"a": arr(4, 2), "b": arr(4)},), 0, 0),
    ("nested_in", lambda t: t[0][0] + t[1], (([arr(2, 3)], arr(3, 2)),), (([1], 0),), 0),
    ("dict_out", lambda x: {"a": x, "b": [x * 2]}, (arr(3, 2),), 0, 0),
    ("dict_out_dims", lambda x: {"a": x, "b": x.sum()}, (arr(3, 2),), 0, {"a": 1, "b": 0}),
    ("unbatched_out", lambda x: x.new_ones(2), (arr(3, 2),), 0, 0),
    ("none_out", lambda x: (x * 2, "tag"), (arr(3, 2),), 0, (0, None)),
    ("zero_batch", lambda x: x.sin(), (arr(0, 2),), 0, 0),
    ("zero_batch_out1", lambda x: x.sum(0, keepdim=True), (arr(0, 2, 3),), 0, 1),
    ("transposed", lambda x: x.cumsum(0), (Transposed(arr(3, 4)),), 1, 0),
    ("matmul_batch", lambda a, b: a @ b, (arr(4, 2, 3), arr(4, 3, 5)), 0, 0),
    ("float32", lambda x: x.softmax(-1), (arr(3, 5, dtype=np.float32),), 0, 0),
]


@pytest.mark.parametrize("case", VMAP_CASES, ids=lambda c: c[0])
def test_vmap_matches_torch(case: Any) -> None:
    name, f, inputs, in_dims, out_dims = case
    ours, theirs = both(lambda lib: lib.func.vmap(f, in_dims=in_dims, out_dims=out_dims), inputs)
    assert_same(ours, theirs, what=f"vmap {name}")


def test_vmap_kwargs_are_not_batched() -> None:
    f = lambda x, *, s: x * s  # noqa: E731
    ours = torch.vmap(f)(torch.from_numpy(arr(3)), s=torch.ones(4, dtype=torch.float64))
    theirs = pt.vmap(f)(pt.from_numpy(arr(3)), s=pt.ones(4, dtype=pt.float64))
    assert tuple(ours.shape) == tuple(theirs.shape) == (3, 4)


NESTED_VMAP = [
    ("both0", (0, 0), (0, 0), (arr(2, 3, 4), arr(2, 3, 4))),
    ("outer_none", (None, 0), (0, 0), (arr(3, 4), arr(2, 3, 4))),
    ("inner_none", (0, 0), (0, None), (arr(2, 3, 4), arr(2, 4))),
    ("in1", (1, 1), (0, 0), (arr(3, 2, 4), arr(3, 2, 4))),
]


@pytest.mark.parametrize("case", NESTED_VMAP, ids=lambda c: c[0])
def test_nested_vmap_matches_torch(case: Any) -> None:
    name, outer, inner, inputs = case
    f = lambda x, y: (x * y).sum()  # noqa: E731
    ours, theirs = both(lambda lib: lib.vmap(lib.vmap(f, in_dims=inner), in_dims=outer), inputs)
    assert_same(ours, theirs, what=name)


def test_vmap_of_jacrev_and_jacrev_of_vmap() -> None:
    f = lambda x: x.sin() * x.sum()  # noqa: E731
    ours, theirs = both(lambda lib: lib.vmap(lib.func.jacrev(f)), (arr(4, 3),))
    assert_same(ours, theirs)
    ours, theirs = both(lambda lib: lib.func.jacrev(lib.vmap(f)), (arr(2, 3),))
    assert_same(ours, theirs)
    ours, theirs = both(lambda lib: lib.vmap(lib.func.hessian(lambda x: (x**3).sum())), (arr(2, 3),))
    assert_same(ours, theirs)


def test_vmap_randomness_modes() -> None:
    x = torch.zeros(4, 3)
    with pytest.raises(RuntimeError, match="called random operation while in randomness error mode"):
        torch.vmap(lambda t: t + torch.rand(3))(x)
    same = torch.vmap(lambda t: t + torch.rand(3), randomness="same")(x)
    assert all(torch.equal(same[0], same[i]) for i in range(4))
    diff = torch.vmap(lambda t: t + torch.rand(3), randomness="different")(x)
    assert not torch.equal(diff[0], diff[1])
    drop = torch.vmap(lambda t: torch.nn.functional.dropout(t + 1, 0.5), randomness="same")(x)
    assert all(torch.equal(drop[0], drop[i]) for i in range(4))


# ---- per-sample gradients, ensembles ----


def _mlp(lib: Any, state: Dict[str, np.ndarray]) -> Any:
    m = lib.nn.Sequential(lib.nn.Linear(4, 8), lib.nn.Tanh(), lib.nn.Linear(8, 3)).double()
    m.load_state_dict({k: lib.from_numpy(v.copy()) for k, v in state.items()})
    return m


MLP_STATE = {"0.weight": arr(8, 4), "0.bias": arr(8), "2.weight": arr(3, 8), "2.bias": arr(3)}


@pytest.mark.parametrize("detach_params", [True, False])
def test_per_sample_gradients_of_mlp_match_torch(detach_params: bool) -> None:
    x_np, y_np = arr(5, 4), np.array([0, 2, 1, 1, 0])

    def run(lib: Any) -> Any:
        model = _mlp(lib, MLP_STATE)
        params = {k: (v.detach() if detach_params else v) for k, v in model.named_parameters()}

        def loss_fn(p: Any, x: Any, y: Any) -> Any:
            out = lib.func.functional_call(model, p, (x.unsqueeze(0),))
            return lib.nn.functional.cross_entropy(out, y.unsqueeze(0))

        grads = lib.func.vmap(lib.func.grad(loss_fn), in_dims=(None, 0, 0))(params, lib.from_numpy(x_np), lib.from_numpy(y_np))
        assert all(p.grad is None for p in model.parameters())
        return grads

    ours, theirs = run(torch), run(pt)
    assert_same(ours, theirs, what="per-sample grads")
    # The mean of the per-sample gradients is the batch gradient.
    model = _mlp(torch, MLP_STATE)
    torch.nn.functional.cross_entropy(model(torch.from_numpy(x_np)), torch.from_numpy(y_np)).backward()
    for k, p in model.named_parameters():
        np.testing.assert_allclose(ours[k].detach().mean(0).numpy(), p.grad.numpy(), rtol=1e-6, atol=1e-9)


def test_ensemble_with_stack_module_state_matches_torch() -> None:
    states = [{k: arr(*v.shape) for k, v in MLP_STATE.items()} for _ in range(3)]
    x_np = arr(6, 4)

    def run(lib: Any) -> Any:
        models = [_mlp(lib, s) for s in states]
        params, buffers = lib.func.stack_module_state(models)
        assert all(p.requires_grad and p.is_leaf for p in params.values())
        base = models[0]

        def f(p: Any, b: Any, x: Any) -> Any:
            return lib.func.functional_call(base, (p, b), (x,))

        return lib.vmap(f, in_dims=(0, 0, None))(params, buffers, lib.from_numpy(x_np))

    ours, theirs = run(torch), run(pt)
    assert_same(ours, theirs)
    assert ours.requires_grad


# ---- grad-mode semantics ----


def test_transforms_work_under_no_grad_like_torch() -> None:
    f = lambda x: (x**3).sum()  # noqa: E731
    for lib in (torch, pt):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        with lib.no_grad():
            g, v = lib.func.grad_and_value(f)(x)
            j = lib.func.jacrev(lambda t: t.sin())(x)
            _, jv = lib.func.jvp(lambda t: t.sin(), (x,), (lib.ones(2),))
            h = lib.func.hessian(f)(x)
        assert g.tolist() == [3.0, 12.0] and not g.requires_grad and not v.requires_grad
        assert not j.requires_grad and not jv.requires_grad and not h.requires_grad
        assert h.tolist() == [[6.0, 0.0], [0.0, 12.0]]
        assert x.grad is None


def test_results_require_grad_like_torch() -> None:
    def flags(lib: Any) -> Any:
        w = lib.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        tracked = lib.tensor([0.5, -1.0], requires_grad=True)
        plain = lib.tensor([0.5, -1.0])
        cube = lambda x: (x**3).sum()  # noqa: E731
        out = [
            lib.func.grad(cube)(tracked).requires_grad,
            lib.func.grad(cube)(plain).requires_grad,
            lib.func.grad_and_value(cube)(plain)[1].requires_grad,
            lib.func.jacrev(lambda x: (w @ x).tanh())(plain).requires_grad,
            lib.func.jacrev(lambda x: w @ x)(plain).requires_grad,
            lib.func.vjp(lambda x: x.sin(), plain)[0].requires_grad,
            lib.func.jvp(lambda x: x.sin(), (plain,), (plain,))[1].requires_grad,
            lib.func.grad(lambda x: (x * 2).sum())(tracked).requires_grad,
        ]
        assert w.grad is None and tracked.grad is None
        return out

    assert flags(torch) == flags(pt)


def test_nested_grad_keeps_levels_apart_like_torch() -> None:
    """Perturbation confusion: the inner grad differentiates only its own argument."""

    def run(lib: Any) -> Any:
        x = lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64)
        f = lambda t: (t * lib.func.grad(lambda y: (t * y).sum())(t)).sum()  # noqa: E731
        g = lambda t: lib.func.grad(lambda y: (y * t.sum()).sum())(t.sin()).sum()  # noqa: E731
        return lib.func.grad(f)(x), lib.func.grad(g)(x), lib.func.jacrev(lambda t: t)(x), lib.func.jvp(lambda t: t, (x,), (x,))

    assert_same(run(torch), run(pt))


def test_functional_call_updates_given_buffers_in_train_mode_like_torch() -> None:
    def run(lib: Any) -> Any:
        bn = lib.nn.BatchNorm1d(3)
        state = {"running_mean": lib.zeros(3), "running_var": lib.ones(3), "num_batches_tracked": lib.tensor(0)}
        out = lib.func.functional_call(bn, state, lib.tensor([[1.0, 2.0, 3.0], [3.0, 2.0, 0.0]]))
        return out, state, dict(bn.named_buffers())

    assert_same(run(torch), run(pt))


def test_gradient_flows_through_grad_result_to_outer_inputs() -> None:
    def run(lib: Any) -> Any:
        x = lib.tensor([0.3, -0.7, 1.1], dtype=lib.float64, requires_grad=True)
        w = lib.tensor([2.0, 1.0, -1.0], dtype=lib.float64, requires_grad=True)
        g = lib.func.grad(lambda t: (t.sin() * w).sum())(x)
        (g * g).sum().backward()
        return x.grad, w.grad

    assert_same(run(torch), run(pt))


def test_inner_no_grad_is_respected() -> None:
    def f(x: Any) -> Any:
        with (torch.no_grad() if isinstance(x, torch.Tensor) else pt.no_grad()):
            y = x * 2
        return (y * x).sum()

    ours, theirs = both(lambda lib: lib.func.grad(f), (np.ones(3),))
    assert_same(ours, theirs)


def test_gradcheck_through_transforms() -> None:
    x = torch.tensor([0.3, -0.4, 0.9], dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(lambda t: torch.func.grad(lambda u: (u.sin() * u).sum())(t), (x,))
    assert torch.autograd.gradcheck(lambda t: torch.vmap(lambda u: u.exp() * u.sum())(t.reshape(3, 1) * t), (x,))
    assert torch.autograd.gradcheck(lambda t: torch.func.jvp(lambda u: u.tanh(), (t,), (t.cos(),))[1], (x,))


# ---- functional_call ----


class Tied(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.a = torch.nn.Linear(2, 2, bias=False)
        self.b = torch.nn.Linear(2, 2, bias=False)
        self.b.weight = self.a.weight

    def forward(self, x: Any) -> Any:
        return self.b(self.a(x))


def test_functional_call_replaces_and_restores() -> None:
    model = _mlp(torch, MLP_STATE)
    before = dict(model.named_parameters())
    new = {k: torch.zeros_like(v) for k, v in model.named_parameters()}
    x = torch.ones(2, 4, dtype=torch.float64)
    assert torch.func.functional_call(model, new, x).abs().sum().item() == 0.0
    assert torch.func.functional_call(model, ({"0.weight": new["0.weight"]}, {"0.bias": new["0.bias"]}), (x,)).shape == (2, 3)
    with pytest.warns(FutureWarning, match="stateless.functional_call` is deprecated as of PyTorch 2.0"):
        assert torch.nn.utils.stateless.functional_call(model, new, args=(), kwargs={"input": x}).abs().sum().item() == 0.0
    after = dict(model.named_parameters())
    assert all(after[k] is before[k] for k in before)
    assert all(isinstance(p, torch.nn.Parameter) for p in model.parameters())


def test_functional_call_buffers_and_tied_weights() -> None:
    bn = torch.nn.BatchNorm1d(2).eval()
    out = torch.func.functional_call(bn, {"running_mean": torch.ones(2), "running_var": torch.full((2,), 4.0)}, torch.full((1, 2), 3.0))
    assert out.tolist()[0] == pytest.approx([1.0, 1.0], rel=1e-4)
    assert bn.running_mean.tolist() == [0.0, 0.0]
    t = Tied()
    w = torch.eye(2) * 2
    assert torch.func.functional_call(t, {"a.weight": w}, torch.ones(2)).tolist() == [4.0, 4.0]
    assert torch.func.functional_call(t, {"a.weight": w, "b.weight": w}, torch.ones(2)).tolist() == [4.0, 4.0]
    untied = torch.func.functional_call(t, {"a.weight": w}, torch.ones(2), tie_weights=False)
    assert torch.allclose(untied, t.a.weight @ (w @ torch.ones(2)))


ERROR_CASES = [
    ("grad_nonscalar", lambda lib: lib.func.grad(lambda x: x * 2)(lib.ones(3))),
    ("grad_int_out", lambda lib: lib.func.grad(lambda x: 3)(lib.ones(3))),
    ("grad_aux_not_tuple", lambda lib: lib.func.grad(lambda x: x.sum(), has_aux=True)(lib.ones(3))),
    ("grad_aux_nontensor", lambda lib: lib.func.grad(lambda x: (x.sum(), 3), has_aux=True)(lib.ones(3))),
    ("grad_argnums_oob", lambda lib: lib.func.grad(lambda x: x.sum(), argnums=1)(lib.ones(3))),
    ("grad_argnums_empty", lambda lib: lib.func.grad(lambda x: x.sum(), argnums=())(lib.ones(3))),
    ("grad_argnums_float", lambda lib: lib.func.grad(lambda x: x.sum(), argnums=1.0)(lib.ones(3))),
    ("grad_argnums_str", lambda lib: lib.func.grad(lambda x: x.sum(), argnums=(0, "a"))(lib.ones(3))),
    ("grad_argnums_dup", lambda lib: lib.func.grad(lambda x, y: (x * y).sum(), argnums=(0, 0))(lib.ones(3), lib.ones(3))),
    ("grad_no_args", lambda lib: lib.func.grad(lambda: lib.ones(()))()),
    ("grad_nontensor_input", lambda lib: lib.func.grad(lambda x: lib.ones(()) * x)(2.0)),
    ("grad_list_nontensor", lambda lib: lib.func.grad(lambda d: d[0].sum())([lib.ones(2), 3])),
    ("vjp_aux_not_tuple", lambda lib: lib.func.vjp(lambda x: x.sin(), lib.ones(3), has_aux=True)),
    ("vjp_nontensor_out", lambda lib: lib.func.vjp(lambda x: 1, lib.ones(3))),
    ("vjp_int_out", lambda lib: lib.func.vjp(lambda x: x.long(), lib.ones(3))),
    ("vjp_fn_structure", lambda lib: lib.func.vjp(lambda x: x.sin(), lib.ones(3))[1]((lib.ones(3),))),
    ("jvp_primals_not_tuple", lambda lib: lib.func.jvp(lambda x: x.sin(), lib.ones(3), lib.ones(3))),
    ("jvp_structure", lambda lib: lib.func.jvp(lambda x: x.sin(), (lib.ones(3),), [lib.ones(3)])),
    ("jvp_len", lambda lib: lib.func.jvp(lambda x, y: x + y, (lib.ones(3), lib.ones(3)), (lib.ones(3),))),
    ("jvp_shape", lambda lib: lib.func.jvp(lambda x: x.sin(), (lib.ones(3),), (lib.ones(4),))),
    ("jvp_empty", lambda lib: lib.func.jvp(lambda: lib.ones(1), (), ())),
    ("jvp_int_primal", lambda lib: lib.func.jvp(lambda x: x * 2, (lib.arange(3),), (lib.arange(3),))),
    ("jvp_nontensor_out", lambda lib: lib.func.jvp(lambda x: 3, (lib.ones(3),), (lib.ones(3),))),
    ("jacrev_int_out", lambda lib: lib.func.jacrev(lambda x: (x * 2).long())(lib.ones(3))),
    ("jacrev_chunk0", lambda lib: lib.func.jacrev(lambda x: x, chunk_size=0)),
    ("jacfwd_random", lambda lib: lib.func.jacfwd(lambda x: x * lib.rand(3))(lib.ones(3))),
    ("jacfwd_randomness_bad", lambda lib: lib.func.jacfwd(lambda x: x, randomness="foo")(lib.ones(3))),
    ("vmap_in_dim_range", lambda lib: lib.vmap(lambda x: x.sin(), in_dims=1)(lib.ones(3))),
    ("vmap_in_dims_len", lambda lib: lib.vmap(lambda x, y: x + y, in_dims=(0,))(lib.ones(3), lib.ones(3))),
    ("vmap_in_dims_str", lambda lib: lib.vmap(lambda x: x, in_dims="a")(lib.ones(3))),
    ("vmap_in_dims_list", lambda lib: lib.vmap(lambda x, y: x, in_dims=[0, 0])(lib.ones(3), lib.ones(3))),
    ("vmap_in_dims_float", lambda lib: lib.vmap(lambda x: x, in_dims=(0.5,))(lib.ones(3))),
    ("vmap_in_dims_dict", lambda lib: lib.vmap(lambda d: d["a"], in_dims=({"a": 0},))({"a": lib.ones(3), "b": lib.ones(2)})),
    ("vmap_sizes", lambda lib: lib.vmap(lambda x, y: x + y)(lib.ones(3), lib.ones(4))),
    ("vmap_all_none", lambda lib: lib.vmap(lambda x: x, in_dims=(None,))(lib.ones(3))),
    ("vmap_no_inputs", lambda lib: lib.vmap(lambda: lib.ones(2))()),
    ("vmap_int_in_dim_nontensor", lambda lib: lib.vmap(lambda x, n: x * n, in_dims=(0, 0))(lib.ones(3), 2)),
    ("vmap_0d", lambda lib: lib.vmap(lambda x: x)(lib.ones(()))),
    ("vmap_nontensor_out", lambda lib: lib.vmap(lambda x: 1)(lib.ones(3))),
    ("vmap_none_out", lambda lib: lib.vmap(lambda x: (x, None))(lib.ones(3))),
    ("vmap_out_dim_range", lambda lib: lib.vmap(lambda x: x, out_dims=2)(lib.ones(3))),
    ("vmap_out_dims_len", lambda lib: lib.vmap(lambda x: (x, x), out_dims=(0, 0, 0))(lib.ones(3))),
    ("vmap_out_dims_str", lambda lib: lib.vmap(lambda x: x, out_dims="a")(lib.ones(3))),
    ("vmap_out_dims_none_batched", lambda lib: lib.vmap(lambda x: x, out_dims=None)(lib.arange(3.0))),
    ("vmap_random", lambda lib: lib.vmap(lambda x: x + lib.rand(()))(lib.ones(3))),
    ("vmap_chunk0", lambda lib: lib.vmap(lambda x: x, chunk_size=0)),
    ("vmap_randomness_bad", lambda lib: lib.vmap(lambda x: x, randomness="foo")),
    ("fc_strict_missing", lambda lib: lib.func.functional_call(lib.nn.Linear(3, 2), {"weight": lib.ones(2, 3)}, lib.ones(3), strict=True)),
    (
        "fc_strict_both",
        lambda lib: lib.func.functional_call(lib.nn.Linear(3, 2), {"weight": lib.ones(2, 3), "foo": lib.ones(1), "bar": lib.ones(1)}, lib.ones(3), strict=True),
    ),
    ("fc_dup", lambda lib: lib.func.functional_call(lib.nn.Linear(3, 2), ({"weight": lib.ones(2, 3)}, {"weight": lib.ones(2, 3)}), (lib.ones(3),))),
    ("fc_bad_elems", lambda lib: lib.func.functional_call(lib.nn.Linear(3, 2), [1], (lib.ones(3),))),
    ("fc_bad_type", lambda lib: lib.func.functional_call(lib.nn.Linear(3, 2), 3, (lib.ones(3),))),
    ("fc_bad_path", lambda lib: lib.func.functional_call(lib.nn.Linear(3, 2), {"a.b": lib.ones(1)}, (lib.ones(3),))),
    ("fc_nontensor", lambda lib: lib.func.functional_call(lib.nn.Linear(3, 2), {"weight": 3}, (lib.ones(3),))),
    ("sms_empty", lambda lib: lib.func.stack_module_state([])),
    ("sms_classes", lambda lib: lib.func.stack_module_state([lib.nn.Linear(2, 1), lib.nn.Tanh()])),
    ("sms_mode", lambda lib: lib.func.stack_module_state([lib.nn.Linear(2, 1), lib.nn.Linear(2, 1).eval()])),
    ("sms_requires_grad", lambda lib: lib.func.stack_module_state([lib.nn.Linear(2, 1), lib.nn.Linear(2, 1).requires_grad_(False)])),
]

@pytest.mark.parametrize("case", ERROR_CASES, ids=lambda c: c[0])
def test_errors_match_torch(case: Any) -> None:
    name, run = case
    with pytest.raises(Exception) as theirs:
        run(pt)
    with pytest.raises(Exception) as ours:
        run(torch)
    assert type(ours.value).__name__ == type(theirs.value).__name__, f"{name}: {ours.value!r} vs torch {theirs.value!r}"
    assert str(ours.value) == str(theirs.value), name


def test_tied_weights_conflict_error_matches_torch() -> None:
    class PtTied(pt.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.a = pt.nn.Linear(2, 2, bias=False)
            self.b = pt.nn.Linear(2, 2, bias=False)
            self.b.weight = self.a.weight

    for lib, model in ((pt, PtTied()), (torch, Tied())):
        with pytest.raises(ValueError, match=r"functional_call got multiple values for keys \['a.weight', 'b.weight'\], which are tied"):
            lib.func.functional_call(model, {"a.weight": lib.eye(2), "b.weight": lib.eye(2) * 2}, lib.ones(2))
