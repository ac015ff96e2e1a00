"""torch.utils.checkpoint: gradients equal to the run without checkpointing (dropout with the
same seed, parameters reached with no input requiring grad, kwargs, nested outputs,
autograd.grad, create_graph), checkpoint_sequential against PyTorch, PyTorch's warnings and
errors, and the memory it saves (activations kept alive by the graph, counted by weakrefs)."""

from __future__ import annotations

import contextlib
import warnings
import weakref
from typing import Any, List

import numpy as np
import pytest

import ferrotorch as torch
from ferrotorch.utils.checkpoint import CheckpointError, checkpoint, checkpoint_sequential
from torch_oracle import needs_torch, pt

pytestmark = needs_torch
RNG = np.random.default_rng(1)
VARIANTS = [False, True]  # use_reentrant


def arr(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape)


def mlp(lib: Any, dropout: float = 0.0, depth: int = 3, width: int = 6) -> Any:
    layers: List[Any] = []
    for _ in range(depth):
        layers += [lib.nn.Linear(width, width), lib.nn.Tanh()]
        if dropout:
            layers.append(lib.nn.Dropout(dropout))
    return lib.nn.Sequential(*layers, lib.nn.Linear(width, 2)).double()


def copy_weights(src: Any, dst: Any) -> None:
    """PyTorch module ``src``'s parameters into ferrotorch module ``dst``."""
    dst.load_state_dict({k: torch.from_numpy(v.detach().numpy().copy()) for k, v in src.state_dict().items()})


def grads(module: Any) -> List[np.ndarray]:
    return [p.grad.detach().numpy().copy() for p in module.parameters()]


def assert_grads_equal(a: List[np.ndarray], b: List[np.ndarray], rtol: float = 1e-12) -> None:
    assert len(a) == len(b)
    for x, y in zip(a, b):
        np.testing.assert_allclose(x, y, rtol=rtol, atol=1e-12)


# ---- gradients equal to the plain run ----


@pytest.mark.parametrize("use_reentrant", VARIANTS)
@pytest.mark.parametrize("preserve", [True, False])
def test_dropout_mlp_gradients_match_plain_run(use_reentrant: bool, preserve: bool) -> None:
    model = mlp(torch, dropout=0.5, width=16)
    x0 = torch.randn(8, 16, dtype=torch.float64)

    def run(ckpt: bool) -> Any:
        model.zero_grad(set_to_none=True)
        x = x0.clone().requires_grad_()
        torch.manual_seed(123)
        h = model[:4](x)
        h = checkpoint(model[4:], h, use_reentrant=use_reentrant, preserve_rng_state=preserve) if ckpt else model[4:](h)
        out = h.pow(2).sum()
        torch.rand(3)  # the generator after backward is where the plain run leaves it
        out.backward()
        return out.item(), grads(model), x.grad.numpy().copy(), torch.get_rng_state()

    plain, ckpt = run(False), run(True)
    assert plain[0] == ckpt[0]
    if preserve:
        assert_grads_equal(plain[1], ckpt[1])
        assert_grads_equal([plain[2]], [ckpt[2]])
    else:
        # Without the saved state the recomputation draws new dropout masks.
        assert not all(np.allclose(a, b) for a, b in zip(plain[1], ckpt[1]))
    assert torch.equal(plain[3], ckpt[3]) == preserve


@pytest.mark.parametrize("use_reentrant", VARIANTS)
def test_parameters_get_gradients_when_no_input_requires_grad(use_reentrant: bool) -> None:
    """Non-reentrant: gradients reach the parameters used inside. Reentrant (as PyTorch):
    a warning, and the output does not require grad."""
    ref = mlp(pt)
    model = mlp(torch)
    copy_weights(ref, model)
    x_np = arr(4, 6)
    with warnings.catch_warnings(record=True) as ours_w:
        warnings.simplefilter("always")
        out = checkpoint(model, torch.from_numpy(x_np), use_reentrant=use_reentrant)
    with warnings.catch_warnings(record=True) as theirs_w:
        warnings.simplefilter("always")
        ref_out = pt.utils.checkpoint.checkpoint(ref, pt.from_numpy(x_np), use_reentrant=use_reentrant)
    assert [str(w.message) for w in ours_w] == [str(w.message) for w in theirs_w]
    assert out.requires_grad == ref_out.requires_grad == (not use_reentrant)
    if not use_reentrant:
        out.sum().backward()
        ref_out.sum().backward()
        assert_grads_equal(grads(model), [p.grad.numpy() for p in ref.parameters()], rtol=1e-10)


def test_kwargs_and_nested_outputs_match_torch() -> None:
    w_np, x_np, s_np = arr(3, 3), arr(4, 3), arr(3)

    def block(lib: Any) -> Any:
        def f(x: Any, w: Any, *, shift: Any, scale: float = 1.0) -> Any:
            h = (x @ w).tanh() * scale + shift
            return {"h": h, "parts": (h.sum(0), 7), "list": [h.exp().mean()]}

        return f

    def run(lib: Any, ckpt_fn: Any) -> Any:
        x = lib.from_numpy(x_np.copy()).requires_grad_()
        w = lib.from_numpy(w_np.copy()).requires_grad_()
        shift = lib.from_numpy(s_np.copy()).requires_grad_()
        out = ckpt_fn(block(lib), x, w, shift=shift, scale=2.0, use_reentrant=False)
        assert out["parts"][1] == 7
        loss = out["h"].pow(2).sum() + out["parts"][0].sum() + out["list"][0]
        loss.backward()
        return [t.grad.detach().numpy() for t in (x, w, shift)]

    ours = run(torch, checkpoint)
    theirs = run(pt, pt.utils.checkpoint.checkpoint)
    assert_grads_equal(ours, theirs, rtol=1e-10)


def test_autograd_grad_and_create_graph_match_torch() -> None:
    x_np = arr(5)

    def run(lib: Any, ckpt_fn: Any) -> Any:
        x = lib.from_numpy(x_np.copy()).requires_grad_()
        y = ckpt_fn(lambda t: (t.sin() * t**2).sum(), x, use_reentrant=False)
        (g,) = lib.autograd.grad(y, x, create_graph=True)
        (h,) = lib.autograd.grad(g.sum(), x)
        return [g.detach().numpy(), h.numpy()]

    assert_grads_equal(run(torch, checkpoint), run(pt, pt.utils.checkpoint.checkpoint), rtol=1e-10)


def test_tensors_closed_over_and_multiple_outputs() -> None:
    a = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
    b = torch.tensor([0.5, -1.0], dtype=torch.float64, requires_grad=True)
    x = torch.tensor([3.0, 4.0], dtype=torch.float64, requires_grad=True)
    u, v = checkpoint(lambda t: (t * a, (t * b).exp()), x, use_reentrant=False)
    (u.sum() + v.sum()).backward()
    assert a.grad.tolist() == x.tolist()
    np.testing.assert_allclose(b.grad.numpy(), (x * (x * b).exp()).detach().numpy())
    np.testing.assert_allclose(x.grad.numpy(), (a + b * (x * b).exp()).detach().numpy())


def test_gradcheck_through_checkpoint() -> None:
    """Non-reentrant only: gradcheck uses autograd.grad, which the reentrant variant refuses."""
    x = torch.tensor([0.2, -0.5, 0.8], dtype=torch.float64, requires_grad=True)
    w = torch.tensor([1.5, 0.3, -0.7], dtype=torch.float64, requires_grad=True)
    f = lambda t, s: checkpoint(lambda p, q: (p * q).tanh() * p, t, s, use_reentrant=False)  # noqa: E731
    assert torch.autograd.gradcheck(f, (x, w))
    assert torch.autograd.gradgradcheck(f, (x, w))


@pytest.mark.parametrize("use_reentrant", VARIANTS)
def test_under_no_grad_outputs_do_not_require_grad(use_reentrant: bool) -> None:
    x = torch.ones(3, requires_grad=True)
    with torch.no_grad():
        assert not checkpoint(torch.sin, x, use_reentrant=use_reentrant).requires_grad


def test_context_fn_wraps_forward_and_recomputation() -> None:
    calls: List[str] = []

    @contextlib.contextmanager
    def note(what: str) -> Any:
        calls.append(what)
        yield

    x = torch.ones(2, requires_grad=True)
    y = checkpoint(lambda t: t * 3, x, use_reentrant=False, context_fn=lambda: (note("forward"), note("recompute")))
    assert calls == ["forward"]
    y.sum().backward()
    assert calls == ["forward", "recompute"]
    assert x.grad.tolist() == [3.0, 3.0]


def _ck(lib: Any) -> Any:
    return lib.utils.checkpoint.checkpoint


def _leaf(lib: Any) -> Any:
    return lib.tensor([0.5, 2.0], dtype=lib.float64, requires_grad=True)


def _identity(lib: Any) -> Any:
    x = _leaf(lib)
    _ck(lib)(lambda a: a, x, use_reentrant=False).sum().backward()
    return x.grad


def _constant_output(lib: Any) -> Any:
    y = _ck(lib)(lambda a: lib.ones(2), _leaf(lib), use_reentrant=False)
    return y, y.requires_grad


def _integer_output(lib: Any) -> Any:
    x = _leaf(lib)
    y, i = _ck(lib)(lambda a: (a * 2, a.argmax()), x, use_reentrant=False)
    y.sum().backward()
    return x.grad, i, i.requires_grad


def _mixed_dtypes(lib: Any) -> Any:
    x = _leaf(lib)
    y, z = _ck(lib)(lambda a: (a.float() * 2, a.exp() * 3), x, use_reentrant=False)
    (y.sum() + z.sum()).backward()
    return x.grad


def _retain_graph(lib: Any) -> Any:
    x = _leaf(lib)
    y = _ck(lib)(lambda a: a.sin(), x, use_reentrant=False)
    y.sum().backward(retain_graph=True)
    y.sum().backward()
    return x.grad


def _nested(lib: Any) -> Any:
    x = _leaf(lib)
    inner = lambda a: _ck(lib)(lambda b: b.sin() * 2, a, use_reentrant=False).exp()  # noqa: E731
    _ck(lib)(inner, x, use_reentrant=False).sum().backward()
    return x.grad


def _non_leaf_input_and_output_reused(lib: Any) -> Any:
    x = _leaf(lib)
    h = x * 3
    y = _ck(lib)(lambda a: a.tanh() * a, h, use_reentrant=False)
    (y * h).sum().backward()
    return x.grad


EDGE_CASES = [_identity, _constant_output, _integer_output, _mixed_dtypes, _retain_graph, _nested, _non_leaf_input_and_output_reused]


@pytest.mark.parametrize("case", EDGE_CASES, ids=lambda f: f.__name__.strip("_"))
def test_edge_cases_match_torch(case: Any) -> None:
    ours, theirs = case(torch), case(pt)
    flat_o, flat_t = list(ours) if isinstance(ours, tuple) else [ours], list(theirs) if isinstance(theirs, tuple) else [theirs]
    for a, b in zip(flat_o, flat_t):
        if isinstance(b, pt.Tensor):
            assert str(a.dtype) == str(b.dtype)
            np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-12)
        else:
            assert a == b


def test_inputs_changed_in_place_before_backward_raise() -> None:
    for lib in (torch, pt):
        x = _leaf(lib)
        h = x * 1
        y = _ck(lib)(lambda a: a.sin(), h, use_reentrant=False)
        h.add_(1)
        with pytest.raises(RuntimeError, match="modified by an inplace operation: \\[torch.DoubleTensor \\[2\\]\\]"):
            y.sum().backward()


# ---- checkpoint_sequential ----


@pytest.mark.parametrize("use_reentrant", VARIANTS)
@pytest.mark.parametrize("segments", [1, 2, 3, 7])
def test_checkpoint_sequential_matches_torch(use_reentrant: bool, segments: int) -> None:
    ref = mlp(pt)
    model = mlp(torch)
    copy_weights(ref, model)
    x_np = arr(5, 6)
    x = torch.from_numpy(x_np.copy()).requires_grad_()
    xr = pt.from_numpy(x_np.copy()).requires_grad_()
    out = checkpoint_sequential(model, segments, x, use_reentrant=use_reentrant)
    ref_out = pt.utils.checkpoint.checkpoint_sequential(ref, segments, xr, use_reentrant=use_reentrant)
    np.testing.assert_allclose(out.detach().numpy(), ref_out.detach().numpy(), rtol=1e-12)
    out.pow(2).sum().backward()
    ref_out.pow(2).sum().backward()
    assert_grads_equal(grads(model), [p.grad.numpy() for p in ref.parameters()], rtol=1e-10)
    np.testing.assert_allclose(x.grad.numpy(), xr.grad.numpy(), rtol=1e-10)


def test_checkpoint_sequential_on_a_list_of_modules() -> None:
    model = mlp(torch)
    x = torch.randn(2, 6, dtype=torch.float64)
    out = checkpoint_sequential(list(model), 2, x, use_reentrant=False)
    assert torch.allclose(out, model(x))


# ---- warnings and errors, as PyTorch ----


@pytest.mark.parametrize(
    "call",
    [
        lambda lib, ck: ck.checkpoint(lambda t: t.sin(), lib.ones(2, requires_grad=True)),
        lambda lib, ck: ck.checkpoint_sequential(lib.nn.Sequential(lib.nn.Tanh()), 1, lib.ones(2, requires_grad=True)),
    ],
    ids=["checkpoint", "checkpoint_sequential"],
)
def test_missing_use_reentrant_warns_like_torch(call: Any) -> None:
    messages = []
    for lib in (torch, pt):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            call(lib, lib.utils.checkpoint)
        messages.append([(x.category, str(x.message)) for x in w])
    assert messages[0] == messages[1] and len(messages[0]) == 1


ERROR_CASES = [
    ("reentrant_kwargs", lambda lib, ck: ck.checkpoint(lambda x, s: x * s, lib.ones(2, requires_grad=True), s=2, use_reentrant=True)),
    ("reentrant_context_fn", lambda lib, ck: ck.checkpoint(lambda x: x, lib.ones(2, requires_grad=True), use_reentrant=True, context_fn=lambda: (None, None))),
    ("reentrant_debug", lambda lib, ck: ck.checkpoint(lambda x: x, lib.ones(2, requires_grad=True), use_reentrant=True, debug=True)),
    ("determinism_check", lambda lib, ck: ck.checkpoint(lambda x: x, lib.ones(2, requires_grad=True), use_reentrant=False, determinism_check="foo")),
    (
        "reentrant_autograd_grad",
        lambda lib, ck: lib.autograd.grad(ck.checkpoint(lambda x: x.sin(), x := lib.ones(2, requires_grad=True), use_reentrant=True).sum(), x),
    ),
    ("none_function", lambda lib, ck: ck.checkpoint(None, lib.ones(2, requires_grad=True), use_reentrant=False)),
]


@pytest.mark.parametrize("case", ERROR_CASES, ids=lambda c: c[0])
def test_errors_match_torch(case: Any) -> None:
    name, run = case
    with pytest.raises(Exception) as theirs:
        run(pt, pt.utils.checkpoint)
    with pytest.raises(Exception) as ours:
        run(torch, torch.utils.checkpoint)
    assert type(ours.value).__name__ == type(theirs.value).__name__, f"{name}: {ours.value!r} vs {theirs.value!r}"
    assert str(ours.value) == str(theirs.value)


def test_recomputation_with_other_shapes_is_a_checkpoint_error() -> None:
    calls = [0]

    def f(x: Any) -> Any:
        calls[0] += 1
        return x.sin() if calls[0] == 1 else x[:2].sin()

    x = torch.ones(3, requires_grad=True)
    y = checkpoint(f, x, use_reentrant=False)
    with pytest.raises(CheckpointError, match=r"Recomputed values for the following tensors have different metadata(.|\n)*tensor at position 0"):
        y.sum().backward()
    assert issubclass(CheckpointError, RuntimeError)
    calls[0] = 0
    y = checkpoint(f, torch.ones(3, requires_grad=True), use_reentrant=False, determinism_check="none")
    with pytest.raises(RuntimeError):  # without the check, the mismatch surfaces as autograd's
        y.sum().backward()


# ---- memory: activations kept alive by the graph ----


class Keep(torch.autograd.Function):
    """An identity layer that saves its activation for backward (as a real layer would) and
    records a weak reference to it, so a test can see whether the graph still holds it."""

    saved: List[Any] = []

    @staticmethod
    def forward(ctx: Any, x: Any) -> Any:
        act = x * 1.0
        ctx.save_for_backward(act)
        Keep.saved.append(weakref.ref(act))
        return act

    @staticmethod
    def backward(ctx: Any, g: Any) -> Any:
        (act,) = ctx.saved_tensors
        return g * (act == act)


class KeepLayer(torch.nn.Module):
    def forward(self, x: Any) -> Any:
        return Keep.apply(x)


def alive_activations() -> tuple:
    live = [r() for r in Keep.saved]
    live = [t for t in live if t is not None]
    return len(live), sum(t.numel() * t.element_size() for t in live)


@pytest.mark.parametrize("use_reentrant", VARIANTS)
def test_checkpointing_keeps_fewer_activations_alive(use_reentrant: bool) -> None:
    """Between forward and backward, the plain graph holds every layer's activation; with 4
    checkpointed segments of 16 layers, only the last (uncheckpointed) segment's are held.
    Gradients stay equal."""
    depth, segments = 16, 4
    layers: List[Any] = []
    for _ in range(depth):
        layers += [torch.nn.Linear(32, 32), torch.nn.Tanh(), KeepLayer()]
    model = torch.nn.Sequential(*layers).double()
    x0 = torch.randn(64, 32, dtype=torch.float64)

    def forward(ckpt: bool) -> Any:
        Keep.saved.clear()
        x = x0.clone().requires_grad_()
        out = checkpoint_sequential(model, segments, x, use_reentrant=use_reentrant) if ckpt else model(x)
        return out, alive_activations()

    model.zero_grad(set_to_none=True)
    out, (plain_count, plain_bytes) = forward(False)
    out.sum().backward()
    plain_grads = grads(model)
    del out
    model.zero_grad(set_to_none=True)
    out, (ckpt_count, ckpt_bytes) = forward(True)
    assert plain_count == depth
    assert plain_bytes == depth * 64 * 32 * 8
    assert ckpt_count == depth // segments
    assert ckpt_bytes * segments == plain_bytes
    out.sum().backward()
    assert_grads_equal(grads(model), plain_grads)
    del out
    assert alive_activations()[0] == 0  # nothing recomputed outlives backward
