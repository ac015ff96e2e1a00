"""``torch.utils.checkpoint``: trade compute for memory by not keeping a block's activations
for backward and running the block again when backward reaches it.

The non-reentrant variant (``use_reentrant=False``, recommended) runs the block with grad mode
on, notes which tensors outside the block its graph reaches (its tensor arguments, and
parameters or other leaves it closes over), drops that graph, and records one node from those
tensors to the block's outputs. Its backward reruns the block (with the random state of the
first run) and differentiates the rerun. So gradients reach parameters even when no argument
requires grad, keyword arguments and nested outputs work, and ``autograd.grad`` and
``create_graph`` work through it. The reentrant variant is a custom ``autograd.Function`` whose
backward calls ``backward`` on the rerun, as PyTorch's does, with its restrictions.
"""

from __future__ import annotations

import contextlib
import warnings
from typing import (
    Any,
    Callable,
    ContextManager,
    Dict,
    Iterable,
    Iterator,
    List,
    Optional,
    Sequence,
    Set,
    Tuple,
)

from .. import _core
from .._grad_mode import enable_grad
from ..autograd import Function, FunctionCtx, grad_call_active
from ..autograd import backward as autograd_backward
from ..autograd import grad as autograd_grad
from ..autograd.function import _one_node
from ._checkpoint_policies import (
    SAC_IGNORED_OPS,
    CheckpointPolicy,
    DefaultDeviceType,
    SelectiveCheckpointContext,
    check_backward_validity,
    create_selective_checkpoint_contexts,
    detach_variable,
    get_device_states,
    set_checkpoint_early_stop,
    set_device_states,
)
from ._graph_exec_group import GraphExecGroup
from ._pytree import tree_flatten, tree_unflatten

Tensor = _core.Tensor

__all__ = [
    "CheckpointError",
    "CheckpointFunction",
    "CheckpointPolicy",
    "DefaultDeviceType",
    "GraphExecGroup",
    "SAC_IGNORED_OPS",
    "SelectiveCheckpointContext",
    "check_backward_validity",
    "checkpoint",
    "checkpoint_sequential",
    "create_selective_checkpoint_contexts",
    "detach_variable",
    "get_device_states",
    "noop_context_fn",
    "set_checkpoint_debug_enabled",
    "set_checkpoint_early_stop",
    "set_device_states",
]


class CheckpointError(RuntimeError):
    """Raised when the recomputed forward does not match the original one."""


def noop_context_fn() -> Tuple[ContextManager, ContextManager]:
    """The default ``context_fn``: no context around the forward nor the recomputation."""
    return contextlib.nullcontext(), contextlib.nullcontext()


_debug_enabled: Optional[bool] = None


@contextlib.contextmanager
def set_checkpoint_debug_enabled(enabled: Optional[bool]) -> Iterator[None]:
    """Overrides every checkpoint's ``debug`` flag inside the block (accepted; ferrotorch has
    no operator trace to print)."""
    global _debug_enabled
    prev, _debug_enabled = _debug_enabled, enabled
    try:
        yield
    finally:
        _debug_enabled = prev


class _RngFork:
    """The default generator's state at the forward, replayed for the recomputation."""

    def __init__(self, enabled: bool) -> None:
        self.state = _core.get_rng_state() if enabled else None

    @contextlib.contextmanager
    def replay(self) -> Iterator[None]:
        if self.state is None:
            yield
            return
        now = _core.get_rng_state()
        _core.set_rng_state(self.state)
        try:
            yield
        finally:
            _core.set_rng_state(now)


def _detach_like(x: Any) -> Any:
    """A new leaf with ``x``'s data that requires grad when ``x`` does (non-tensors as is)."""
    if isinstance(x, Tensor):
        return x.detach().requires_grad_(x.requires_grad)
    return x


# ---- reentrant ----


class CheckpointFunction(Function):
    """The reentrant checkpoint: forward under no_grad, backward reruns and backpropagates."""

    @staticmethod
    def forward(ctx: FunctionCtx, run_function: Callable[..., Any], preserve_rng_state: bool, *args: Any) -> Any:
        if not any(isinstance(a, Tensor) and a.requires_grad for a in args):
            warnings.warn("None of the inputs have requires_grad=True. Gradients will be None", stacklevel=3)
        ctx.run_function = run_function
        ctx.rng = _RngFork(preserve_rng_state)
        ctx.tensor_positions = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        ctx.others = [None if isinstance(a, Tensor) else a for a in args]
        ctx.save_for_backward(*[args[i] for i in ctx.tensor_positions])
        return run_function(*args)

    @staticmethod
    def backward(ctx: FunctionCtx, *grad_outputs: Any) -> Any:
        if grad_call_active():
            raise RuntimeError(
                "When use_reentrant=True, torch.utils.checkpoint is incompatible with .grad() or passing an "
                "`inputs` parameter to .backward(). To resolve this error, you can either set "
                "use_reentrant=False, or call .backward() without passing the `inputs` argument."
            )
        inputs = list(ctx.others)
        for i, t in zip(ctx.tensor_positions, ctx.saved_tensors):
            inputs[i] = _detach_like(t)
        with ctx.rng.replay(), enable_grad():
            outputs = ctx.run_function(*inputs)
        if isinstance(outputs, Tensor):
            outputs = (outputs,)
        pairs = [
            (o, g)
            for o, g in zip(outputs, grad_outputs)
            if isinstance(o, Tensor) and o.requires_grad and g is not None
        ]
        if not pairs:
            raise RuntimeError("none of output has requires_grad=True, this checkpoint() is not necessary")
        autograd_backward([o for o, _ in pairs], [g for _, g in pairs])
        return (None, None) + tuple(x.grad if isinstance(x, Tensor) else None for x in inputs)


# ---- non-reentrant ----


def _outer_leaves(outputs: Iterable[Tensor]) -> List[Tensor]:
    """The leaves requiring grad that ``outputs``' graph reaches, each once, in order found."""
    found: Dict[int, Tensor] = {}
    seen: Set[Any] = set()
    stack: List[Any] = []
    for t in outputs:
        if t.requires_grad:
            if t.grad_fn is None:
                found.setdefault(t._cdata(), t)
            else:
                stack.append(t.grad_fn)
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        for nxt, _ in node.next_functions:
            if nxt is None:
                continue
            variable = getattr(nxt, "variable", None)
            if variable is not None:
                found.setdefault(variable._cdata(), variable)
            elif nxt not in seen:
                stack.append(nxt)
    return list(found.values())


def _metadata(t: Tensor) -> Dict[str, Any]:
    return {"shape": t.shape, "dtype": t.dtype, "device": t.device}


def _check_recomputed(saved: Sequence[Dict[str, Any]], recomputed: Sequence[Tensor]) -> None:
    """PyTorch's determinism check, on the block's outputs (shape, dtype and device)."""
    if len(recomputed) != len(saved):
        raise CheckpointError(
            "torch.utils.checkpoint: the recomputed forward returned a different number of tensors "
            f"({len(recomputed)}) than the original forward ({len(saved)})."
        )
    again = [_metadata(r) for r in recomputed]
    bad = [i for i, (s, r) in enumerate(zip(saved, again)) if s != r]
    if bad:
        lines = "".join(f"tensor at position {i}:\nsaved metadata: {saved[i]}\nrecomputed metadata: {again[i]}\n" for i in bad)
        raise CheckpointError(
            "torch.utils.checkpoint: Recomputed values for the following tensors have different metadata "
            f"than during the forward pass.\n{lines}"
        )


def _check_versions(versions: Sequence[Tuple[Tensor, int]]) -> None:
    """The arguments are rerun in backward: changed in place since the forward, they would
    give wrong gradients, so this is autograd's saved-tensor error instead."""
    for t, v in versions:
        if t._version != v:
            raise RuntimeError(
                "one of the variables needed for gradient computation has been modified by an inplace "
                f"operation: [torch.{t.type().split('.')[-1]} {list(t.shape)}] is at version {t._version}; "
                f"expected version {v} instead."
            )


def _checkpoint_without_reentrant(
    function: Callable[..., Any],
    preserve_rng_state: bool,
    context_fn: Callable[[], Tuple[ContextManager, ContextManager]],
    determinism_check: str,
    args: Tuple[Any, ...],
    kwargs: Dict[str, Any],
) -> Any:
    forward_ctx, recompute_ctx = context_fn()
    if not _core.is_grad_enabled():
        with forward_ctx:
            return function(*args, **kwargs)
    rng = _RngFork(preserve_rng_state)
    flat_in, in_spec = tree_flatten((args, kwargs))
    # The block's graph must end at its own copies of the arguments, so that its leaves tell
    # arguments (by copy) from tensors it closes over.
    copies = [_detach_like(x) for x in flat_in]
    with forward_ctx:
        a, k = tree_unflatten(copies, in_spec)
        output = function(*a, **k)
    flat_out, out_spec = tree_flatten(output)
    out_positions = [i for i, o in enumerate(flat_out) if isinstance(o, Tensor)]
    out_tensors = [flat_out[i] for i in out_positions]
    copy_ids = {c._cdata() for c in copies if isinstance(c, Tensor) and c.requires_grad}
    closed_over = [t for t in _outer_leaves(out_tensors) if t._cdata() not in copy_ids]
    arg_positions = [i for i, x in enumerate(flat_in) if isinstance(x, Tensor) and x.requires_grad]
    edges = [flat_in[i] for i in arg_positions] + closed_over
    detached = [o.detach() for o in out_tensors]
    saved_metadata = [_metadata(o) for o in out_tensors]
    # Outputs the block's graph does not reach (constants, integer results) get no node.
    nondiff = [not (o.requires_grad and o.dtype.is_floating_point) for o in out_tensors]
    versions = [(x, x._version) for x in flat_in if isinstance(x, Tensor)]
    del copies, output, out_tensors
    if not edges:
        for i, d in zip(out_positions, detached):
            flat_out[i] = d
        return tree_unflatten(flat_out, out_spec)

    token = object()

    def rerun_block(higher: bool) -> Tuple[List[Any], List[Tensor]]:
        # Under create_graph (grad mode on in backward) the rerun hangs off the arguments
        # themselves, so the gradients it returns are differentiable with respect to them.
        rerun = [x.view_as(x) if higher and isinstance(x, Tensor) and x.requires_grad else _detach_like(x) for x in flat_in]
        with rng.replay(), enable_grad(), recompute_ctx:
            a, k = tree_unflatten(rerun, in_spec)
            again = [o for o in tree_flatten(function(*a, **k))[0] if isinstance(o, Tensor)]
            if determinism_check == "default":
                _check_recomputed(saved_metadata, again)
        return rerun, again

    def recompute_backward(*grads: Any) -> Tuple[Any, ...]:
        higher = _core.is_grad_enabled()
        _check_versions(versions)
        # Under a GraphExecGroup, backward calls share one rerun of the block.
        group = GraphExecGroup._get_current_group() if not higher else None
        if group is not None and token in group._recomputed:
            rerun, again = group._recomputed[token]
        else:
            rerun, again = rerun_block(higher)
            if group is not None:
                group._recomputed[token] = (rerun, again)
        with enable_grad():
            pairs = [(o, g) for o, g in zip(again, grads) if g is not None and o.requires_grad]
            targets = [rerun[i] for i in arg_positions] + closed_over
            if not pairs:
                return tuple(None for _ in targets)
            return autograd_grad(
                [o for o, _ in pairs],
                targets,
                [g for _, g in pairs],
                retain_graph=True,
                create_graph=higher,
                allow_unused=True,
            )

    wrapped = _one_node("CheckpointFunctionBackward", edges, detached, recompute_backward, nondiff)
    for i, w in zip(out_positions, wrapped):
        flat_out[i] = w
    return tree_unflatten(flat_out, out_spec)


# ---- public API ----


def checkpoint(
    function: Optional[Callable[..., Any]] = None,
    *args: Any,
    use_reentrant: Optional[bool] = None,
    preserve_rng_state: bool = True,
    context_fn: Callable[[], Tuple[ContextManager, ContextManager]] = noop_context_fn,
    determinism_check: str = "default",
    debug: bool = False,
    early_stop: bool = True,
    respect_saved_tensors_hooks: Optional[bool] = None,
    **kwargs: Any,
) -> Any:
    """Runs ``function(*args, **kwargs)`` without keeping its activations for backward; they
    are recomputed when backward reaches the block (with the random state of the first run
    when ``preserve_rng_state``, so dropout masks match). Pass ``use_reentrant=False`` (the
    recommended variant; omitting it warns and uses the reentrant one, as PyTorch does).

    >>> import ferrotorch as torch
    >>> from ferrotorch.utils.checkpoint import checkpoint
    >>> x = torch.tensor([1.0, 2.0], requires_grad=True)
    >>> checkpoint(lambda t: (t.sin() * t).sum(), x, use_reentrant=False).backward()
    >>> x.grad
    tensor([1.3818, 0.0770])
    """
    if use_reentrant is None:
        warnings.warn(
            "torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. In a future "
            "release, calling checkpoint without use_reentrant will raise an exception. use_reentrant=False "
            "is recommended, but if you need to preserve the current default behavior, you can pass "
            "use_reentrant=True. Refer to docs for more details on the differences between the two variants.",
            stacklevel=2,
        )
        use_reentrant = True
    if use_reentrant:
        if context_fn is not noop_context_fn or debug is not False or respect_saved_tensors_hooks is not None:
            raise ValueError(
                "Passing `context_fn`, `debug`, or `respect_saved_tensors_hooks` is only supported when use_reentrant=False."
            )
        if kwargs:
            raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
        return CheckpointFunction.apply(function, preserve_rng_state, *args)
    if determinism_check not in ("default", "none"):
        raise ValueError(f"determinism_check should be one of ['default', 'none'], but got {determinism_check}")
    if function is None or not callable(function):
        raise TypeError(f"'{type(function).__name__}' object is not callable")
    return _checkpoint_without_reentrant(function, preserve_rng_state, context_fn, determinism_check, args, kwargs)


def checkpoint_sequential(functions: Any, segments: int, input: Any, use_reentrant: Optional[bool] = None, **kwargs: Any) -> Any:
    """Runs a sequence of modules (an ``nn.Sequential`` or a list) in ``segments`` chunks, each
    checkpointed except the last, which runs normally.

    >>> import ferrotorch as torch
    >>> from ferrotorch.utils.checkpoint import checkpoint_sequential
    >>> model = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.Tanh(), torch.nn.Linear(2, 1))
    >>> checkpoint_sequential(model, 2, torch.ones(3, 2), use_reentrant=False).shape
    torch.Size([3, 1])
    """
    if use_reentrant is None:
        warnings.warn(
            "torch.utils.checkpoint.checkpoint_sequential: the use_reentrant parameter should be passed "
            "explicitly. In a future release, we will raise an exception if use_reentrant is not passed. "
            "use_reentrant=False is recommended, but if you need to preserve the current default behavior, "
            "you can pass use_reentrant=True. Refer to docs for more details on the differences between "
            "the two variants.",
            stacklevel=2,
        )
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
    if hasattr(functions, "children") and callable(functions.children):
        functions = list(functions.children())
    functions = list(functions)

    def run_segment(start: int, end: int) -> Callable[[Any], Any]:
        def forward(x: Any) -> Any:
            for j in range(start, end + 1):
                x = functions[j](x)
            return x

        return forward

    size = len(functions) // segments
    end = -1
    for start in range(0, size * (segments - 1), size):
        end = start + size - 1
        input = checkpoint(run_segment(start, end), input, use_reentrant=use_reentrant, preserve_rng_state=preserve)
    return run_segment(end + 1, len(functions) - 1)(input)
