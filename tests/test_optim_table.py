"""Every optimizer of tests/optim_table.py against PyTorch: parameters after each step, the
state and param_groups at the end, repr, and the state_dict interchange in both directions."""

from __future__ import annotations

import importlib
from typing import Any, Callable, List

import numpy as np
import pytest
from optim_table import CASES, ERROR_CASES, OptCase

import ferrotorch as torch
from torch_oracle import needs_torch, pt, to_ft, to_pt

pytestmark = needs_torch

TOL = {"float32": dict(rtol=2e-5, atol=1e-6), "float64": dict(rtol=1e-10, atol=1e-12)}


def make_arrays(dtype: str) -> List[np.ndarray]:
    """The initial values: a matrix, a vector, a 0-d value and a matrix used transposed."""
    rng = np.random.default_rng(7)
    shapes = [(3, 4), (5,), (), (4, 3)]
    return [np.asarray(rng.standard_normal(s)).astype(dtype) for s in shapes]


def make_params(lib: Any, arrays: List[np.ndarray], contiguous: bool = False) -> List[Any]:
    """Leaf tensors of ``lib``; the last is a non-contiguous view (a transposed matrix) unless
    ``contiguous``."""
    ps = [lib.tensor(a).requires_grad_(True) for a in arrays[:3]]
    last = lib.tensor(arrays[3]).t()
    ps.append((last.contiguous() if contiguous else last).detach().requires_grad_(True))
    return ps


def loss_constants(dtype: str) -> List[tuple]:
    rng = np.random.default_rng(11)
    shapes = [(3, 4), (5,), (), (3, 4)]
    return [(np.asarray(rng.uniform(0.5, 2.0, s)).astype(dtype), np.asarray(rng.standard_normal(s)).astype(dtype)) for s in shapes]


def make_closure(lib: Any, opt: Any, params: List[Any], consts: List[tuple]) -> Callable[[], Any]:
    """A smooth non-quadratic loss: sum of a (p - c)^2 / 2 + p^4 / 20 over the parameters."""
    tensors = [(lib.tensor(a), lib.tensor(c)) for a, c in consts]

    def closure() -> Any:
        opt.zero_grad()
        loss = None
        for p, (a, c) in zip(params, tensors):
            term = (a * (p - c) ** 2).sum() * 0.5 + (p**4).sum() * 0.05
            loss = term if loss is None else loss + term
        loss.backward()
        return loss

    return closure


def build(lib: Any, case: OptCase, params: List[Any]) -> Any:
    kwargs = dict(case.kwargs)
    if case.tensor_lr:
        kwargs["lr"] = lib.tensor(kwargs["lr"])
    if kwargs.get("betas", (None,))[0] == "tensor":
        kwargs["betas"] = (lib.tensor(kwargs["betas"][1]), lib.tensor(kwargs["betas"][2]))
    cls = getattr(lib.optim, case.name)
    if case.groups is None:
        return cls(params, **kwargs)
    groups = [dict(g, params=[params[i] for i in idx]) for g, idx in zip(case.groups, case.split)]
    return cls(groups, **kwargs)


def convert(value: Any, fn: Callable[[Any], Any], is_tensor: Callable[[Any], bool]) -> Any:
    """A copy of a (nested) state_dict with each tensor passed through ``fn``."""
    if is_tensor(value):
        return fn(value)
    if isinstance(value, dict):
        return {k: convert(v, fn, is_tensor) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(convert(v, fn, is_tensor) for v in value)
    return value


def assert_same_value(ours: Any, theirs: Any, tol: dict, what: str) -> None:
    """Tensors: same dtype, shape and close values; containers recursively; the rest equal."""
    if isinstance(theirs, (pt.Tensor, torch.Tensor)):
        assert isinstance(ours, (pt.Tensor, torch.Tensor)), f"{what}: torch has a tensor, ours is {type(ours).__name__}"
        assert str(ours.dtype) == str(theirs.dtype), f"{what}: dtype {ours.dtype} vs torch {theirs.dtype}"
        assert tuple(ours.shape) == tuple(theirs.shape), f"{what}: shape {tuple(ours.shape)} vs torch {tuple(theirs.shape)}"
        a, b = np.array(ours.detach().float().numpy() if "16" in str(ours.dtype) else ours.detach().numpy()), np.array(theirs.detach().float().numpy() if "16" in str(theirs.dtype) else theirs.detach().numpy())
        # Rounding noise is relative to the tensor's scale: an element far smaller than the
        # largest one (a momentum buffer's near-zero entry) gets the largest one's absolute slack.
        scale = max(1.0, float(np.abs(b).max())) if b.size else 1.0
        np.testing.assert_allclose(a, b, err_msg=what, rtol=tol["rtol"], atol=tol["atol"] * scale)
    elif isinstance(theirs, dict):
        assert list(ours.keys()) == list(theirs.keys()), f"{what}: keys {list(ours.keys())} vs torch {list(theirs.keys())}"
        for k in theirs:
            assert_same_value(ours[k], theirs[k], tol, f"{what}[{k!r}]")
    elif isinstance(theirs, (list, tuple)):
        assert type(ours) is type(theirs) and len(ours) == len(theirs), f"{what}: {ours!r} vs torch {theirs!r}"
        for i, (a, b) in enumerate(zip(ours, theirs)):
            assert_same_value(a, b, tol, f"{what}[{i}]")
    elif isinstance(theirs, float) and isinstance(ours, float):
        np.testing.assert_allclose(ours, theirs, err_msg=what, **tol)
    else:
        assert type(ours) is type(theirs) and ours == theirs, f"{what}: {ours!r} vs torch {theirs!r}"


def assert_params_close(ours: List[Any], theirs: List[Any], tol: dict, what: str) -> None:
    for i, (a, b) in enumerate(zip(ours, theirs)):
        assert_same_value(a.detach(), b.detach(), tol, f"{what} param {i}")


def step_both(pairs: List[tuple], tol: dict, what: str) -> None:
    """One step of each (optimizer, params, closure) pair; all agree with the first (PyTorch's)."""
    losses = [opt.step(closure) for opt, _, closure in pairs]
    ref_params = pairs[0][1]
    for (opt, params, _), loss in zip(pairs[1:], losses[1:]):
        assert_params_close(params, ref_params, tol, what)
        np.testing.assert_allclose(float(loss.detach()), float(losses[0].detach()), err_msg=f"{what}: loss", **tol)


RUNS = [pytest.param(case, dtype, id=f"{case.id}-{dtype}") for case in CASES for dtype in case.dtypes]


@pytest.mark.parametrize("case,dtype", RUNS)
def test_optimizer_matches_pytorch(case: OptCase, dtype: str) -> None:
    tol = (case.tol or TOL)[dtype]
    arrays, consts = make_arrays(dtype), loss_constants(dtype)
    ft_params, pt_params = make_params(torch, arrays, case.contiguous), make_params(pt, arrays, case.contiguous)
    if case.matrices_only:
        ft_params, pt_params, consts = ft_params[::3], pt_params[::3], consts[::3]
    ft_opt, pt_opt = build(torch, case, ft_params), build(pt, case, pt_params)
    assert repr(ft_opt) == repr(pt_opt)
    ft_closure = make_closure(torch, ft_opt, ft_params, consts)
    pt_closure = make_closure(pt, pt_opt, pt_params, consts)
    pairs = [(pt_opt, pt_params, pt_closure), (ft_opt, ft_params, ft_closure)]
    for i in range(case.steps):
        step_both(pairs, tol, f"{case.id} step {i + 1}")

    ft_sd, pt_sd = ft_opt.state_dict(), pt_opt.state_dict()
    assert_same_value(ft_sd, pt_sd, tol, f"{case.id} state_dict")
    assert repr(ft_opt) == repr(pt_opt)

    # Interchange: each library's state_dict, converted tensor by tensor, loads into the other
    # library's optimizer over copies of the current parameters, and the runs continue as one.
    ft_copy = [to_ft(p.detach()).requires_grad_(True) for p in pt_params]
    pt_copy = [to_pt(p.detach()).requires_grad_(True) for p in ft_params]
    ft_loaded, pt_loaded = build(torch, case, ft_copy), build(pt, case, pt_copy)
    ft_loaded.load_state_dict(convert(pt_sd, to_ft, lambda v: isinstance(v, pt.Tensor)))
    pt_loaded.load_state_dict(convert(ft_sd, to_pt, lambda v: isinstance(v, torch.Tensor)))
    assert_same_value(ft_loaded.state_dict(), pt_loaded.state_dict(), tol, f"{case.id} loaded state")
    pairs += [
        (pt_loaded, pt_copy, make_closure(pt, pt_loaded, pt_copy, consts)),
        (ft_loaded, ft_copy, make_closure(torch, ft_loaded, ft_copy, consts)),
    ]
    for i in range(3):
        step_both(pairs, tol, f"{case.id} after interchange step {i + 1}")


@pytest.mark.parametrize("name,kwargs", ERROR_CASES, ids=[f"{n}-{'-'.join(map(str, k))}" for n, k in ERROR_CASES])
def test_invalid_arguments_raise_as_pytorch(name: str, kwargs: dict) -> None:
    with pytest.raises(Exception) as theirs:
        getattr(pt.optim, name)([pt.zeros(2, requires_grad=True)], **kwargs)
    with pytest.raises(type(theirs.value)) as ours:
        getattr(torch.optim, name)([torch.zeros(2, requires_grad=True)], **kwargs)
    assert str(ours.value) == str(theirs.value)


# ----- behaviour beyond the update rule, each checked against PyTorch ---------------------------


def both(fn: Callable[[Any], Any]) -> tuple:
    """``fn`` run with ferrotorch and with PyTorch."""
    return fn(torch), fn(pt)


ALL_NAMES = ["Adafactor", "Muon", "SGD", "Adam", "AdamW", "Adamax", "NAdam", "RAdam", "Adagrad", "Adadelta", "RMSprop", "Rprop", "ASGD", "LBFGS", "SparseAdam"]


@pytest.mark.parametrize("name", ALL_NAMES)
def test_default_param_group_keys_and_repr(name: str) -> None:
    def make(lib: Any) -> Any:
        return getattr(lib.optim, name)([lib.zeros(2, 2, requires_grad=True)])

    ours, theirs = both(make)
    assert list(ours.param_groups[0].keys()) == list(theirs.param_groups[0].keys())
    assert {k: v for k, v in ours.defaults.items()} == {k: v for k, v in theirs.defaults.items()}
    assert repr(ours) == repr(theirs)
    assert_same_value(ours.state_dict(), theirs.state_dict(), TOL["float32"], name)


def test_step_hooks_run_in_order_and_may_replace_arguments() -> None:
    def run(lib: Any) -> list:
        p = lib.ones(2, requires_grad=True)
        opt = lib.optim.SGD([p], lr=0.5)
        calls: list = []
        seen_closure = lambda: calls.append("closure") or lib.tensor(1.0)  # noqa: E731
        opt.register_step_pre_hook(lambda o, args, kwargs: calls.append(("pre", o is opt, len(args), dict(kwargs))) or ((o,), {"closure": seen_closure}))
        h = opt.register_step_post_hook(lambda o, args, kwargs: calls.append(("post", "closure" in kwargs)))
        optimizer_module = importlib.import_module(lib.__name__ + ".optim.optimizer")
        global_pre = optimizer_module.register_optimizer_step_pre_hook(lambda o, a, k: calls.append("global pre"))
        global_post = optimizer_module.register_optimizer_step_post_hook(lambda o, a, k: calls.append("global post"))
        p.grad = lib.full((2,), 2.0)
        loss = opt.step()
        h.remove()
        global_pre.remove()
        global_post.remove()
        opt.step()
        return [calls, float(loss), p.tolist()]

    ours, theirs = both(run)
    assert ours[0][:6] == theirs[0][:6] == ["global pre", ("pre", True, 1, {}), "closure", ("post", True), "global post", ("pre", True, 1, {})]
    assert ours == theirs


def test_bad_pre_hook_result_raises_runtime_error() -> None:
    for lib in (torch, pt):
        opt = lib.optim.Adam([lib.zeros(2, requires_grad=True)])
        opt.register_step_pre_hook(lambda o, a, k: 5)
        with pytest.raises(RuntimeError, match="must return None or a tuple of"):
            opt.step()


def test_state_dict_and_load_hooks() -> None:
    def run(lib: Any) -> list:
        p = lib.ones(3, requires_grad=True)
        opt = lib.optim.Adam([p], lr=0.1)
        log: list = []
        opt.register_state_dict_pre_hook(lambda o: log.append("sd pre"))
        opt.register_state_dict_post_hook(lambda o, sd: dict(sd, extra=1))
        opt.register_load_state_dict_pre_hook(lambda o, sd: log.append(sorted(sd)))
        opt.register_load_state_dict_post_hook(lambda o: log.append("load post"))
        opt.register_load_state_dict_post_hook(lambda o: log.append("first"), prepend=True)
        p.grad = lib.ones(3)
        opt.step()
        sd = opt.state_dict()
        opt.load_state_dict(sd)
        return [log, sorted(sd)]

    ours, theirs = both(run)
    assert ours == theirs


@pytest.mark.parametrize("set_to_none", [True, False])
def test_zero_grad(set_to_none: bool) -> None:
    def run(lib: Any) -> Any:
        p, q = lib.ones(2, requires_grad=True), lib.ones(3, requires_grad=True)
        (p.sum() * 3).backward()
        opt = lib.optim.RMSprop([p, q], lr=0.1)
        opt.zero_grad(set_to_none=set_to_none)
        return [None if p.grad is None else p.grad.tolist(), q.grad]

    ours, theirs = both(run)
    assert ours == theirs


def test_parameters_without_grad_are_skipped_and_keep_no_state() -> None:
    def run(lib: Any) -> Any:
        p, q = lib.ones(2, requires_grad=True), lib.ones(3, requires_grad=True)
        opt = lib.optim.Adam([p, q], lr=0.1)
        p.grad = lib.tensor([1.0, -1.0])
        opt.step()
        return [sorted(opt.state_dict()["state"]), p.tolist(), q.tolist()]

    ours, theirs = both(run)
    assert ours[0] == theirs[0] == [0] and ours[2] == theirs[2]
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-6)


def test_add_param_group_named_params_and_errors() -> None:
    def run(lib: Any) -> Any:
        a, b, c = (lib.ones(2, requires_grad=True) for _ in range(3))
        opt = lib.optim.SGD([("a", a), ("b", b)], lr=0.1, momentum=0.9)
        group = {"params": [("c", c)], "lr": 0.5}
        opt.add_param_group(group)
        out = [opt.param_groups[1] is group, list(group.keys()), opt.state_dict()["param_groups"]]
        errors = []
        for bad in ({"params": [a]}, {"params": [lib.ones(2, requires_grad=True)]}, {"params": {b}}, 3):
            with pytest.raises(Exception) as info:
                opt.add_param_group(bad)
            errors.append((type(info.value).__name__, str(info.value)))
        with pytest.raises(ValueError) as info:
            lib.optim.SGD([{"params": [a]}, {"params": [b]}, {"params": [("c", c)]}])
        errors.append(str(info.value))
        x = lib.ones(2, requires_grad=True) * 2
        with pytest.raises(ValueError) as info:
            lib.optim.SGD([x])
        errors.append(str(info.value))
        with pytest.raises(TypeError) as info:
            lib.optim.SGD(lib.ones(2, requires_grad=True))
        errors.append(str(info.value))
        with pytest.raises(TypeError) as info:
            lib.optim.SGD([1.0])
        errors.append(str(info.value))
        with pytest.raises(ValueError) as info:
            lib.optim.Adam([])
        errors.append(str(info.value))
        with pytest.raises(ValueError) as info:
            lib.optim.LBFGS([{"params": [a]}, {"params": [b]}])
        errors.append(str(info.value))
        return [out, errors]

    ours, theirs = both(run)
    assert ours == theirs


def test_load_state_dict_rejects_mismatched_groups() -> None:
    for lib in (torch, pt):
        a, b = lib.ones(2, requires_grad=True), lib.ones(2, requires_grad=True)
        sd = lib.optim.Adam([a, b]).state_dict()
        with pytest.raises(ValueError, match="different number of parameter groups"):
            lib.optim.Adam([{"params": [a]}, {"params": [b]}]).load_state_dict(sd)
        with pytest.raises(ValueError, match="doesn't match the size of optimizer's group"):
            lib.optim.Adam([a]).load_state_dict(sd)


def test_load_state_dict_casts_state_to_parameter_dtype_but_not_step() -> None:
    def run(lib: Any) -> Any:
        p = lib.ones(3, requires_grad=True)
        opt = lib.optim.Adam([p], lr=0.1)
        p.grad = lib.ones(3)
        opt.step()
        q = lib.ones(3, dtype=lib.float64, requires_grad=True)
        opt64 = lib.optim.Adam([q], lr=0.1)
        opt64.load_state_dict(opt.state_dict())
        return {k: str(v.dtype) for k, v in opt64.state[q].items()}

    ours, theirs = both(run)
    assert ours == theirs == {"step": "torch.float32", "exp_avg": "torch.float64", "exp_avg_sq": "torch.float64"}


def test_lbfgs_requires_a_closure_and_returns_first_loss() -> None:
    for lib in (torch, pt):
        p = lib.ones(2, requires_grad=True)
        opt = lib.optim.LBFGS([p])
        with pytest.raises(TypeError):
            opt.step()
    for lib in (torch, pt):
        with pytest.raises(RuntimeError, match="only 'strong_wolfe' is supported"):
            p = lib.ones(2, requires_grad=True)
            opt = lib.optim.LBFGS([p], line_search_fn="armijo")

            def closure() -> Any:
                opt.zero_grad()
                loss = ((p - 3) ** 2).sum()
                loss.backward()
                return loss

            opt.step(closure)


def test_sparse_adam_refuses_dense_gradients() -> None:
    def run(lib: Any) -> Any:
        p = lib.ones(2, requires_grad=True)
        opt = lib.optim.SparseAdam([p], lr=0.1)
        p.grad = lib.ones(2)
        with pytest.raises(RuntimeError) as info:
            opt.step()
        return str(info.value)

    ours, theirs = both(run)
    assert ours == theirs


def test_custom_optimizer_subclass_gets_step_hooks() -> None:
    class HalfStep(torch.optim.Optimizer):
        def __init__(self, params: Any) -> None:
            super().__init__(params, {"lr": 0.5})

        def step(self, closure: Any = None) -> None:
            with torch.no_grad():
                for g in self.param_groups:
                    for p in g["params"]:
                        p.sub_(p.grad * g["lr"])

    p = torch.ones(2, requires_grad=True)
    opt = HalfStep([p])
    seen: list = []
    opt.register_step_post_hook(lambda o, a, k: seen.append("post"))
    p.grad = torch.ones(2)
    opt.step()
    assert seen == ["post"] and p.tolist() == [0.5, 0.5]


def test_pickled_optimizer_keeps_groups_and_state() -> None:
    import pickle

    p = torch.ones(2, requires_grad=True)
    opt = torch.optim.NAdam([p], lr=0.1, momentum_decay=0.01)
    p.grad = torch.ones(2)
    opt.step()
    again = pickle.loads(pickle.dumps(opt))
    assert again.param_groups[0]["momentum_decay"] == 0.01
    assert again.state_dict()["state"][0]["mu_product"].item() == opt.state[p]["mu_product"].item()


HALF_NAMES = ["SGD", "Adam", "AdamW", "Adamax", "NAdam", "RAdam", "Adagrad", "Adadelta", "RMSprop", "Rprop", "ASGD", "Adafactor"]


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("name", HALF_NAMES)
def test_half_precision_parameters_step_as_pytorch(name: str, dtype: str) -> None:
    """Half-precision parameters take the per-tensor path; results agree to one rounding of the dtype."""
    kwargs: dict = {"lr": 0.01}
    if name == "SGD":
        kwargs["momentum"] = 0.9
    if name == "RMSprop":
        kwargs.update(centered=True, momentum=0.5)

    def run(lib: Any) -> Any:
        p = lib.tensor([[0.5, -1.0, 2.0], [0.25, 3.0, -0.75]]).to(getattr(lib, dtype)).requires_grad_(True)
        opt = getattr(lib.optim, name)([p], **kwargs)
        for _ in range(3):
            opt.zero_grad()
            (p.float() ** 2).sum().backward()
            opt.step()
        return str(p.dtype), np.array(p.detach().float().numpy())

    (our_dtype, ours), (their_dtype, theirs) = both(run)
    assert our_dtype == their_dtype
    np.testing.assert_allclose(ours, theirs, rtol=8e-3 if dtype == "bfloat16" else 1e-3, atol=1e-3)


@pytest.mark.parametrize("line_search_fn", [None, "strong_wolfe"])
def test_lbfgs_maximize_and_parameter_without_grad(line_search_fn: Any) -> None:
    """Maximizing a concave function; the second parameter never gets a gradient (counted as zeros)."""

    def run(lib: Any) -> Any:
        p = lib.tensor([1.5, -2.0, 0.5], dtype=lib.float64, requires_grad=True)
        unused = lib.ones(2, dtype=lib.float64, requires_grad=True)
        opt = lib.optim.LBFGS([p, unused], lr=0.7, max_iter=4, line_search_fn=line_search_fn, maximize=True)
        target = lib.tensor([0.3, 0.1, -0.2], dtype=lib.float64)

        def closure() -> Any:
            opt.zero_grad()
            value = -((p - target) ** 2).sum() - 0.1 * (p**4).sum()
            value.backward()
            return value

        losses = [float(opt.step(closure).detach()) for _ in range(3)]
        st = opt.state[p]
        return losses, p.tolist(), unused.tolist(), st["func_evals"], st["n_iter"]

    ours, theirs = both(run)
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-10)
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-10)
    assert ours[2:] == theirs[2:]


def test_differentiable_steps_are_refused_not_silently_detached() -> None:
    p = torch.ones(2, requires_grad=True)
    opt = torch.optim.Adam([p], differentiable=True)
    assert opt.param_groups[0]["differentiable"] is True
    p.grad = torch.ones(2)
    with pytest.raises(NotImplementedError, match="differentiable=True"):
        opt.step()


@pytest.mark.parametrize("name", ["Adam", "AdamW", "Adadelta", "Adagrad", "Adamax", "ASGD", "NAdam", "RAdam", "RMSprop", "Rprop", "Adafactor"])
def test_checkpoint_with_numeric_scalar_state_loads_as_pytorch(name: str) -> None:
    """Checkpoints from older PyTorch releases hold ``step`` (and ASGD's eta/mu, NAdam's
    mu_product) as Python numbers: loading turns them into 0-d tensors and training goes on."""

    def run(lib: Any) -> Any:
        p = lib.tensor([0.5, -1.0, 2.0], requires_grad=True)
        opt = getattr(lib.optim, name)([p], lr=0.1)
        (p * p).sum().backward()
        opt.step()
        sd = opt.state_dict()
        for st in sd["state"].values():
            for key in ("eta", "mu", "mu_product"):
                if key in st:
                    st[key] = float(st[key])
            st["step"] = int(st["step"])
        again = getattr(lib.optim, name)([p], lr=0.1)
        again.load_state_dict(sd)
        p.grad = None
        (p * p).sum().backward()
        again.step()
        scalars = {k: (str(v.dtype), round(float(v), 6)) for k, v in again.state[p].items() if v.ndim == 0}
        return scalars, [round(x, 5) for x in p.tolist()]

    ours, theirs = both(run)
    assert ours == theirs
