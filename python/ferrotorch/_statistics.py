"""Statistics, searching and signal helpers written over the core ops, one concept per module:
searching sorted sequences (``_searching``), order statistics (``_order_statistics``),
histograms (``_histograms``), covariance and distances (``_distances``), integration and
finite differences (``_integration``) and window functions (``_windows``)."""

from __future__ import annotations

from typing import Any, Tuple

from . import _core, _distances, _histograms, _integration, _order_statistics, _searching, _windows

Tensor = _core.Tensor

_PARTS = (_searching, _order_statistics, _histograms, _distances, _integration, _windows)

for _part in _PARTS:
    for _name in _part.__all__:
        globals()[_name] = getattr(_part, _name)

# The torch.* functions this module adds, and the Tensor methods (attached by __name__).
__all__: Tuple[str, ...] = tuple(name for part in _PARTS for name in part.__all__)
METHODS: Tuple[Any, ...] = tuple(m for part in _PARTS for m in part.METHODS)
