"""``torch.cuda.amp``: the deprecated CUDA spellings of ``torch.amp``'s autocast and GradScaler."""

from .autocast_mode import autocast, custom_bwd, custom_fwd
from .common import amp_definitely_not_available
from .grad_scaler import GradScaler

__all__ = ["GradScaler", "amp_definitely_not_available", "autocast", "custom_bwd", "custom_fwd"]
