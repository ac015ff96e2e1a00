"""The rest of ``torch.utils.checkpoint``'s public names: input helpers, device RNG states,
the early-stop switch and selective-checkpoint policies.

Selective checkpointing is accepted with PyTorch's API and gives PyTorch's values; ferrotorch
recomputes every op of a checkpointed region in backward (the policy decides what PyTorch
keeps, which changes memory and time, never results), so the policy is not consulted."""

from __future__ import annotations

import contextlib
import enum
import warnings
from typing import Any, Callable, ContextManager, Iterable, Iterator, List, Tuple, Union

from .. import _core

Tensor = _core.Tensor


def check_backward_validity(inputs: Iterable[Any]) -> None:
    """Warns when no tensor input requires grad: the checkpointed gradients would be None."""
    if not any(isinstance(x, Tensor) and x.requires_grad for x in inputs):
        warnings.warn("None of the inputs have requires_grad=True. Gradients will be None")


def detach_variable(inputs: Tuple[Any, ...]) -> Tuple[Any, ...]:
    """Each tensor detached, keeping its ``requires_grad``; other items as they are."""
    if not isinstance(inputs, tuple):
        raise RuntimeError(f"Only tuple of tensors is supported. Got Unsupported input type: {type(inputs).__name__}")
    out = []
    for x in inputs:
        if isinstance(x, Tensor):
            d = x.detach()
            d.requires_grad = x.requires_grad
            out.append(d)
        else:
            out.append(x)
    return tuple(out)


class DefaultDeviceType:
    """The device type whose RNG states checkpointing saves besides the CPU's."""

    _default_device_type: Union[str, None] = None

    @staticmethod
    def set_device_type(device: str = "cuda") -> None:
        DefaultDeviceType._default_device_type = device

    @staticmethod
    def get_device_type() -> str:
        # Until set, the accelerator in use: CUDA when a device is present, else the CPU.
        if not DefaultDeviceType._default_device_type:
            from .. import cuda

            DefaultDeviceType._default_device_type = "cuda" if cuda.is_available() else "cpu"
        return DefaultDeviceType._default_device_type


def _device_indices(args: Iterable[Any]) -> List[int]:
    seen: List[int] = []
    for x in args:
        if isinstance(x, Tensor) and x.device.type != "cpu":
            index = x.device.index or 0
            if index not in seen:
                seen.append(index)
    return seen


def get_device_states(*args: Any) -> Tuple[List[int], List[Tensor]]:
    """The device indices of the non-CPU tensor arguments, and the RNG
    state of each (empty lists for CPU tensors)."""
    devices = _device_indices(args)
    if not devices:
        return [], []
    from .. import cuda

    return devices, [cuda.get_rng_state(d) for d in devices]


def set_device_states(devices: List[int], states: List[Tensor], *, device_type: Union[str, None] = None) -> None:
    """Restores the RNG states saved by :func:`get_device_states`."""
    device_type = device_type or DefaultDeviceType.get_device_type()
    if device_type == "meta" or not devices:
        return
    from .. import cuda

    for d, s in zip(devices, states):
        cuda.set_rng_state(s, d)


_early_stop = True


@contextlib.contextmanager
def set_checkpoint_early_stop(enable: bool) -> Iterator[None]:
    """Whether recomputation may stop once every needed tensor is rebuilt (a speed switch;
    results are the same either way)."""
    global _early_stop
    previous = _early_stop
    _early_stop = enable
    try:
        yield
    finally:
        _early_stop = previous


class CheckpointPolicy(enum.Enum):
    """What selective checkpointing does with an op's output."""

    MUST_SAVE = 0
    PREFER_SAVE = 1
    MUST_RECOMPUTE = 2
    PREFER_RECOMPUTE = 3
    MUST_CPU_OFFLOAD = 4
    PREFER_CPU_OFFLOAD = 5


SAC_IGNORED_OPS: set = set()


class SelectiveCheckpointContext:
    """The context a policy function receives: whether the op runs in the recomputation."""

    def __init__(self, *, is_recompute: bool, op_output: Any = None) -> None:
        self.is_recompute = is_recompute
        self.op_output = op_output


class _SelectiveContext(contextlib.AbstractContextManager):
    def __init__(self, policy: Callable[..., Any], is_recompute: bool) -> None:
        self.policy = policy
        self.is_recompute = is_recompute

    def __exit__(self, *exc: Any) -> None:
        return None


def create_selective_checkpoint_contexts(
    policy_fn_or_list: Union[Callable[..., Any], List[Any]], allow_cache_entry_mutation: bool = False
) -> Tuple[ContextManager, ContextManager]:
    """The ``(forward, recompute)`` context pair for ``checkpoint(..., context_fn=...)``. A
    list of ops means "save these"; a function maps ``(ctx, op, *args, **kwargs)`` to a
    :class:`CheckpointPolicy`. See the module note: values match PyTorch's, and every op is
    recomputed."""
    if isinstance(policy_fn_or_list, list):
        ops = list(policy_fn_or_list)

        def policy(ctx: SelectiveCheckpointContext, op: Any, *args: Any, **kwargs: Any) -> CheckpointPolicy:
            return CheckpointPolicy.MUST_SAVE if op in ops else CheckpointPolicy.PREFER_RECOMPUTE

    elif callable(policy_fn_or_list):
        policy = policy_fn_or_list
    else:
        raise TypeError("policy_fn_or_list must be either a function or a list of ops.")
    return _SelectiveContext(policy, False), _SelectiveContext(policy, True)
