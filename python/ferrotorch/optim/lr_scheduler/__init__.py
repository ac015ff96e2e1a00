"""``ferrotorch.optim.lr_scheduler``: PyTorch's learning-rate schedulers, one family per file."""

from .base import (
    EPOCH_DEPRECATION_WARNING,
    LRScheduler,
    _enable_get_lr_call,
    _format_param,
    _initial_mode,
    _LRScheduler,
    _param_groups_val_list,
    _update_param_group_val,
    _warn_get_lr_called_within_step,
)
from .composition import ChainedScheduler, SequentialLR
from .cosine import CosineAnnealingLR, CosineAnnealingWarmRestarts
from .cyclic import CyclicLR
from .decay import ExponentialLR, MultiStepLR, PolynomialLR, StepLR
from .lambda_schedules import LambdaLR, MultiplicativeLR
from .one_cycle import OneCycleLR
from .plateau import ReduceLROnPlateau
from .warmup import ConstantLR, LinearLR

__all__ = [
    "LambdaLR",
    "MultiplicativeLR",
    "StepLR",
    "MultiStepLR",
    "ConstantLR",
    "LinearLR",
    "ExponentialLR",
    "SequentialLR",
    "CosineAnnealingLR",
    "ChainedScheduler",
    "ReduceLROnPlateau",
    "CyclicLR",
    "CosineAnnealingWarmRestarts",
    "OneCycleLR",
    "PolynomialLR",
    "LRScheduler",
    "EPOCH_DEPRECATION_WARNING",
    "_LRScheduler",
]

# PyTorch defines every scheduler in the one module ``torch.optim.lr_scheduler``; report the
# same path (``type(s).__module__``, repr of the class, pickles) though ours are split by family.
for _name in __all__:
    _obj = globals()[_name]
    if isinstance(_obj, type):
        _obj.__module__ = __name__
del _name, _obj
