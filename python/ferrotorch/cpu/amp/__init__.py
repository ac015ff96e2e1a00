"""``torch.cpu.amp``: the deprecated CPU spellings of ``torch.amp.autocast`` and ``GradScaler``."""

from .autocast_mode import autocast
from .grad_scaler import GradScaler

__all__ = ["GradScaler", "autocast"]
