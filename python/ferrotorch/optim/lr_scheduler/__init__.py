"""``ferrotorch.optim.lr_scheduler``: PyTorch's learning-rate schedulers, one family per file."""

from .base import EPOCH_DEPRECATION_WARNING, LRScheduler, _LRScheduler
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
