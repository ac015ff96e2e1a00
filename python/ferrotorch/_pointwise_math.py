"""(filled in by this change)"""

from __future__ import annotations

from typing import Any, Tuple

from . import _core

Tensor = _core.Tensor

# The torch.* functions this module adds, and the Tensor methods (attached by __name__).
__all__: Tuple[str, ...] = ()
METHODS: Tuple[Any, ...] = ()
