"""Seeding the CUDA generators (``torch.cuda.random``); safe to call without CUDA."""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import Any, Union

from .. import _core
from .._core import device as _torch_device
from ._device import _lazy_call, _lazy_init, current_device, device_count, is_available

__all__ = [
    "get_rng_state",
    "get_rng_state_all",
    "initial_seed",
    "manual_seed",
    "manual_seed_all",
    "seed",
    "seed_all",
    "set_rng_state",
    "set_rng_state_all",
]

_U64 = 0xFFFF_FFFF_FFFF_FFFF


def _seed_value(seed: Any) -> int:
    """``int(seed)`` as the generator's unsigned 64-bit seed (negative seeds wrap, as PyTorch's)."""
    return int(seed) & _U64


def _fresh_seed() -> int:
    """A nondeterministic 64-bit seed."""
    return int.from_bytes(os.urandom(8), "little") & _U64


def manual_seed(seed: int) -> None:
    """Set the seed of the current GPU's generator (silently ignored without CUDA)."""
    s = _seed_value(seed)
    _lazy_call(lambda: _core._cuda_manual_seed(current_device(), s), seed=True)


def manual_seed_all(seed: int) -> None:
    """Set the seed of every GPU's generator (silently ignored without CUDA)."""
    s = _seed_value(seed)

    def cb() -> None:
        for i in range(device_count()):
            _core._cuda_manual_seed(i, s)

    _lazy_call(cb, seed_all=True)


def seed() -> None:
    """Seed the current GPU's generator with a random number (silently ignored without CUDA)."""
    _lazy_call(lambda: _core._cuda_manual_seed(current_device(), _fresh_seed()))


def seed_all() -> None:
    """Seed every GPU's generator with one random number (silently ignored without CUDA)."""
    def cb() -> None:
        s = _fresh_seed()
        for i in range(device_count()):
            _core._cuda_manual_seed(i, s)

    _lazy_call(cb)


def initial_seed() -> int:
    """The current GPU generator's seed (initializes CUDA)."""
    _lazy_init()
    return int(_core._cuda_initial_seed(current_device()))


def _not_supported(what: str) -> NotImplementedError:
    return NotImplementedError(f"torch.cuda.{what}: the CUDA generator's state is not exposed by this backend")


def get_rng_state(device: Union[int, str, _torch_device] = "cuda") -> Any:
    """The GPU generator's state; the backend does not expose it, so this raises after CUDA init."""
    _lazy_init()
    raise _not_supported("get_rng_state")


def get_rng_state_all() -> list[Any]:
    """The states of every GPU's generator (``[]`` without CUDA)."""
    return [get_rng_state(i) for i in range(device_count())]


def set_rng_state(new_state: Any, device: Union[int, str, _torch_device] = "cuda") -> None:
    """Set the GPU generator's state; without CUDA, nothing to set (as PyTorch), else not supported."""
    if not is_available():
        return
    raise _not_supported("set_rng_state")


def set_rng_state_all(new_states: Iterable[Any]) -> None:
    """Set every GPU generator's state (see :func:`set_rng_state`)."""
    for i, state in enumerate(new_states):
        set_rng_state(state, i)
