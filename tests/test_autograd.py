"""Autograd rules: accumulation, graph lifetime, grad modes, hooks, custom Functions."""

import math

import pytest

import ferrotorch as torch


def leaf(values, dtype=torch.float64):
    return torch.tensor(values, dtype=dtype, requires_grad=True)


def test_leaf_and_grad_fn_names():
    x = leaf([1.0, 2.0])
    y = x * 2
    assert x.is_leaf and not y.is_leaf
    assert x.grad_fn is None
    assert y.grad_fn.name() == "MulBackward0"
    assert (x + x).grad_fn.name() == "AddBackward0"
    assert x.exp().grad_fn.name() == "ExpBackward0"
    assert (x @ x).grad_fn is not None
    leaf_fn = y.grad_fn.next_functions[0][0]
    assert leaf_fn.name() == "torch::autograd::AccumulateGrad"
    assert leaf_fn.variable is not None


def test_gradients_accumulate_across_backward_calls():
    x = leaf([1.0, 2.0, 3.0])
    (x * x).sum().backward()
    (x * 3).sum().backward()
    assert x.grad.tolist() == [5.0, 7.0, 9.0]


def test_shared_subexpression_sums_contributions():
    x = leaf([2.0])
    y = x * x
    z = y * y + y  # dz/dx = (2y + 1) * 2x = 9 * 4
    z.sum().backward()
    assert x.grad.tolist() == [36.0]


def test_backward_twice_through_freed_graph_raises():
    x = leaf([1.0, 2.0])
    y = (x * x).sum()
    y.backward()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        y.backward()


def test_retain_graph_allows_second_backward():
    x = leaf([1.0, 2.0])
    y = (x * x).sum()
    y.backward(retain_graph=True)
    y.backward()
    assert x.grad.tolist() == [4.0, 8.0]


def test_nonscalar_backward_needs_gradient():
    x = leaf([1.0, 2.0])
    y = x * 2
    with pytest.raises(RuntimeError, match="grad can be implicitly created only for scalar outputs"):
        y.backward()
    y.backward(torch.tensor([1.0, 10.0], dtype=torch.float64))
    assert x.grad.tolist() == [2.0, 20.0]


def test_backward_of_tensor_without_grad_raises():
    with pytest.raises(RuntimeError, match="does not require grad"):
        torch.ones(2).sum().backward()


def test_requires_grad_only_for_float():
    with pytest.raises(RuntimeError, match="floating point"):
        torch.tensor([1, 2]).requires_grad_()


def test_version_counter_detects_inplace_modification():
    x = leaf([1.0, 2.0])
    y = x * 1
    z = y.exp()  # saves y
    y.mul_(2)
    with pytest.raises(RuntimeError, match=r"modified by an inplace operation.*is at version 1; expected version 0"):
        z.sum().backward()


def test_inplace_on_leaf_requiring_grad_raises():
    x = leaf([1.0])
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        x.add_(1)


def test_inplace_on_nonleaf_rebases_history():
    x = leaf([1.0, 2.0])
    y = x * 2
    y.mul_(3)
    assert y.grad_fn.name() == "MulBackward0"
    y.sum().backward()
    assert x.grad.tolist() == [6.0, 6.0]


def test_inplace_bumps_version():
    t = torch.zeros(3)
    v = t._version
    t.add_(1)
    t += 1
    assert t._version == v + 2


def test_no_grad_context_and_decorator():
    x = leaf([1.0])
    with torch.no_grad():
        assert not torch.is_grad_enabled()
        y = x * 2
    assert torch.is_grad_enabled()
    assert not y.requires_grad

    @torch.no_grad()
    def f(t):
        return t * 2

    assert not f(x).requires_grad
    with torch.no_grad():
        with torch.enable_grad():
            assert (x * 2).requires_grad


def test_set_grad_enabled_function_and_context():
    x = leaf([1.0])
    with torch.set_grad_enabled(False):
        assert not (x * 2).requires_grad
    assert torch.is_grad_enabled()
    torch.set_grad_enabled(False)
    assert not torch.is_grad_enabled()
    torch.set_grad_enabled(True)
    assert (x * 2).requires_grad


def test_inference_mode():
    x = leaf([1.0])
    with torch.inference_mode():
        assert torch.is_inference_mode_enabled()
        assert not (x * 2).requires_grad
    assert not torch.is_inference_mode_enabled()

    @torch.inference_mode()
    def f(t):
        return t * 2

    assert not f(x).requires_grad
    with torch.inference_mode(False):
        assert (x * 2).requires_grad


def test_detach_shares_storage_and_cuts_graph():
    x = leaf([1.0, 2.0])
    y = x * 2
    d = y.detach()
    assert not d.requires_grad and d.grad_fn is None
    assert d.data_ptr() == y.data_ptr()
    y.detach_()
    assert y.is_leaf and not y.requires_grad


def test_register_hook_modifies_gradient_and_can_be_removed():
    x = leaf([1.0, 2.0])
    seen = []
    h = x.register_hook(lambda g: seen.append(g.tolist()) or g * 10)
    (x * 1).sum().backward()
    assert seen == [[1.0, 1.0]]
    assert x.grad.tolist() == [10.0, 10.0]
    h.remove()
    x.grad = None
    (x * 1).sum().backward()
    assert x.grad.tolist() == [1.0, 1.0]


def test_hook_on_intermediate_tensor():
    x = leaf([1.0, 2.0])
    y = x * 3
    y.register_hook(lambda g: g * 2)
    y.sum().backward()
    assert x.grad.tolist() == [6.0, 6.0]


def test_hook_exception_propagates():
    x = leaf([1.0])

    def bad(g):
        raise ValueError("boom from hook")

    x.register_hook(bad)
    with pytest.raises(ValueError, match="boom from hook"):
        (x * 2).sum().backward()


def test_retain_grad_on_nonleaf():
    x = leaf([1.0, 2.0])
    y = x * 2
    y.retain_grad()
    z = y * y
    z.sum().backward()
    assert y.retains_grad
    assert y.grad.tolist() == [4.0, 8.0]
    w = x * 5
    w.sum().backward()
    assert w.grad is None


def test_autograd_grad_basic_allow_unused_and_no_accumulation():
    x = leaf([1.0, 2.0])
    u = leaf([3.0])
    y = (x * x).sum()
    (g,) = torch.autograd.grad(y, x, retain_graph=True)
    assert g.tolist() == [2.0, 4.0]
    assert x.grad is None
    with pytest.raises(RuntimeError, match="appears to not have been used"):
        torch.autograd.grad(y, [x, u], retain_graph=True)
    gx, gu = torch.autograd.grad(y, [x, u], allow_unused=True)
    assert gu is None


def test_autograd_grad_with_respect_to_intermediate():
    x = leaf([1.0, 2.0])
    y = x * 3
    z = (y * y).sum()
    (gy,) = torch.autograd.grad(z, y)
    assert gy.tolist() == [6.0, 12.0]


def test_higher_order_gradients_with_create_graph():
    x = leaf([2.0])
    y = x**3
    (g,) = torch.autograd.grad(y.sum(), x, create_graph=True)
    assert g.tolist() == [12.0]
    assert g.requires_grad
    (g2,) = torch.autograd.grad(g.sum(), x)
    assert g2.tolist() == [12.0]


def test_backward_create_graph_builds_grad_graph():
    x = leaf([1.5])
    y = x.sin()
    y.backward(create_graph=True)
    assert x.grad.requires_grad
    (g2,) = torch.autograd.grad(x.grad.sum(), x)
    assert math.isclose(g2.item(), -math.sin(1.5), rel_tol=1e-12)


def test_grad_of_tanh_sigmoid_second_order():
    x = leaf([0.3, -0.7])
    for f, d2 in [
        (lambda t: t.tanh(), lambda v: -2 * math.tanh(v) * (1 - math.tanh(v) ** 2)),
        (lambda t: t.sigmoid(), lambda v: (lambda s: s * (1 - s) * (1 - 2 * s))(1 / (1 + math.exp(-v)))),
    ]:
        (g,) = torch.autograd.grad(f(x).sum(), x, create_graph=True)
        (g2,) = torch.autograd.grad(g.sum(), x)
        for got, v in zip(g2.tolist(), [0.3, -0.7]):
            assert math.isclose(got, d2(v), rel_tol=1e-9)


class Cube(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, scale):
        ctx.save_for_backward(x)
        ctx.scale = scale
        return x * x * x * scale

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return 3 * x * x * g * ctx.scale, None


def test_custom_function_forward_backward_and_needs_input_grad():
    x = leaf([1.0, 2.0])
    y = Cube.apply(x, 2.0)
    assert y.grad_fn.name() == "CubeBackward"
    y.sum().backward()
    assert x.grad.tolist() == [6.0, 24.0]

    flags = []

    class Probe(torch.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            flags.append(ctx.needs_input_grad)
            return a + b

        @staticmethod
        def backward(ctx, g):
            return g, g

    Probe.apply(x, torch.ones(2, dtype=torch.float64))
    assert flags == [(True, False)]


def test_custom_function_mark_non_differentiable():
    class ArgSort(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            idx = torch.tensor([1, 0])
            ctx.mark_non_differentiable(idx)
            return x * 1, idx

        @staticmethod
        def backward(ctx, g, gi):
            return g

    x = leaf([1.0, 2.0])
    y, idx = ArgSort.apply(x)
    assert y.requires_grad and not idx.requires_grad


def test_custom_function_gradcheck():
    x = leaf([0.5, -1.5, 2.0])
    assert torch.autograd.gradcheck(lambda t: Cube.apply(t, 1.5), (x,))


def test_custom_function_saved_tensor_modified_raises():
    x = leaf([1.0, 2.0])
    h = x * 1
    y = Cube.apply(h, 1.0)
    h.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


def test_gradcheck_detects_wrong_gradient():
    class Wrong(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 3

    x = leaf([1.0, 2.0])
    with pytest.raises(RuntimeError, match="Jacobian mismatch"):
        torch.autograd.gradcheck(Wrong.apply, (x,))
    assert not torch.autograd.gradcheck(Wrong.apply, (x,), raise_exception=False)


def test_gradgradcheck_on_products():
    x = leaf([0.5, 1.5])
    w = leaf([[1.0, -2.0], [0.5, 3.0]])
    assert torch.autograd.gradgradcheck(lambda a, b: (b @ a) * a, (x, w))


def test_grad_assignment_checks_shape():
    x = leaf([1.0, 2.0])
    with pytest.raises(RuntimeError, match="different size"):
        x.grad = torch.zeros(3, dtype=torch.float64)
    x.grad = torch.zeros(2, dtype=torch.float64)
    assert x.grad.tolist() == [0.0, 0.0]


def test_graph_is_freed_with_outputs():
    import gc
    import weakref

    x = leaf([1.0])
    y = x * 2
    r = weakref.ref(y)
    del y
    gc.collect()
    assert r() is None


def test_broadcast_gradients_reduce_to_input_shape():
    a = leaf([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    b = leaf([10.0, 20.0, 30.0])
    (a * b).sum().backward()
    assert b.grad.tolist() == [5.0, 7.0, 9.0]
    assert a.grad.tolist() == [[10.0, 20.0, 30.0], [10.0, 20.0, 30.0]]


def test_mixed_dtype_gradients_keep_input_dtype():
    a = torch.tensor([1.0, 2.0], dtype=torch.float32, requires_grad=True)
    b = torch.tensor([3.0, 4.0], dtype=torch.float64, requires_grad=True)
    y = a * b
    assert y.dtype == torch.float64
    y.sum().backward()
    assert a.grad.dtype == torch.float32 and b.grad.dtype == torch.float64


def test_backward_inputs_accumulates_only_into_given_tensors():
    x = leaf([1.0, 2.0])
    w = leaf([3.0, 4.0])
    y = (x * w).sum()
    y.backward(inputs=[x], retain_graph=True)
    assert x.grad.tolist() == [3.0, 4.0]
    assert w.grad is None
    torch.autograd.backward([y], inputs=[w])
    assert w.grad.tolist() == [1.0, 2.0]


def test_autograd_backward_with_several_roots():
    x = leaf([1.0, 2.0])
    a, b = (x * 2).sum(), (x * x).sum()
    torch.autograd.backward([a, b])
    assert x.grad.tolist() == [4.0, 6.0]


def test_inplace_through_views_updates_the_base_history():
    x = leaf([1.0, 2.0, 3.0])
    y = x * 2
    y[0].mul_(3)
    y[1:].add_(10)
    assert y.tolist() == [6.0, 14.0, 16.0]
    y.sum().backward()
    assert x.grad.tolist() == [6.0, 2.0, 2.0]
    z = torch.zeros(3, dtype=torch.float64)
    w = leaf([5.0])
    z[:1].add_(w * 2)
    assert z.requires_grad
    z.sum().backward()
    assert w.grad.tolist() == [2.0]
    with pytest.raises(RuntimeError, match="a view of a leaf Variable that requires grad"):
        leaf([1.0, 2.0])[0].add_(1)
    assert torch.autograd.gradcheck(lambda t: _double_first(t), (leaf([0.5, -1.5, 2.0]),))


def _double_first(t):
    y = t * 1
    y.narrow(0, 0, 2).mul_(t[2])
    return y
