"""The ``torch.sym_*`` scalar helpers, for plain Python numbers: ferrotorch has no symbolic
shapes, so each is the Python operation it stands for (``sym_int`` truncates, ``sym_max``
gives a float when either side is one, ``sym_ite`` is ``t if b else f`` ...)."""

from __future__ import annotations

import math
from typing import Any, Sequence, Tuple, Union

_NUMBERS = (int, float)


def _check_number(x: Any) -> None:
    try:
        import numpy as np

        kinds: Tuple[type, ...] = (np.integer, np.floating, int, float)
    except ImportError:  # pragma: no cover
        kinds = _NUMBERS
    if not isinstance(x, kinds):
        raise AssertionError(f"expected {kinds}, got {type(x)}")


def sym_int(a: Any) -> int:
    """``int(a)`` (truncation toward zero for floats)."""
    if isinstance(a, float):
        return math.trunc(a)
    return int(a)


def sym_float(a: Any) -> float:
    """``float(a)``."""
    return float(a)


def sym_max(a: Union[int, float], b: Union[int, float]) -> Union[int, float]:
    """``max(a, b)``, a float when either is a float."""
    _check_number(a)
    _check_number(b)
    m = max(a, b)
    return float(m) if isinstance(a, float) or isinstance(b, float) else m


def sym_min(a: Union[int, float], b: Union[int, float]) -> Union[int, float]:
    """``min(a, b)``, a float when either is a float."""
    _check_number(a)
    _check_number(b)
    m = min(a, b)
    return float(m) if isinstance(a, float) or isinstance(b, float) else m


def sym_not(a: Any) -> Any:
    """``not a``."""
    return not a


def sym_sqrt(a: Any) -> float:
    """``math.sqrt(a)``."""
    return math.sqrt(a)


def sym_sum(args: Sequence[Any]) -> Any:
    """The sum of a sequence of numbers (0 for an empty one)."""
    return sum(args)


def sym_ite(b: Any, t: Any, f: Any) -> Any:
    """``t if b else f``."""
    return t if b else f


__all__: Tuple[str, ...] = ("sym_int", "sym_float", "sym_max", "sym_min", "sym_not", "sym_sqrt", "sym_sum", "sym_ite")
METHODS: Tuple[Any, ...] = ()
