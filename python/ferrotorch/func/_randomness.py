"""The ``randomness`` modes of vmap and jacfwd on top of calls that run one sample at a time.

'error' refuses functions that draw random numbers (seen as a change of the default
generator's state), 'same' replays the generator's state so every sample draws the same
numbers, 'different' lets each sample draw its own.
"""

from __future__ import annotations

from typing import Any, Callable, Optional

from .. import _core

MODES = ("error", "different", "same")
_ERROR = (
    "vmap: called random operation while in randomness error mode. Please either use the 'same' or "
    "'different' randomness flags on vmap or perform the randomness operation out of vmap"
)


def check_mode(randomness: Any) -> None:
    if randomness not in MODES:
        raise RuntimeError(f"Only allowed values for randomness are 'error', 'different', or 'same'. Got {randomness}")


class RandomnessGuard:
    """Wraps each per-sample call according to the mode."""

    def __init__(self, randomness: str) -> None:
        self.randomness = randomness
        self.start: Optional[Any] = None
        if randomness in ("error", "same"):
            self.start = _core.get_rng_state()

    def call(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        if self.randomness == "same":
            _core.set_rng_state(self.start)
        out = fn(*args, **kwargs)
        if self.randomness == "error" and not _core.get_rng_state().equal(self.start):
            _core.set_rng_state(self.start)
            raise RuntimeError(_ERROR)
        return out
