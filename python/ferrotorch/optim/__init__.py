"""``ferrotorch.optim``: optimizers whose per-group update is one fused Rust call."""

from . import lr_scheduler, swa_utils
from .adam import Adam, AdamW
from .optimizer import Optimizer
from .rmsprop import Adagrad, RMSprop
from .sgd import SGD

__all__ = ["SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Optimizer", "lr_scheduler", "swa_utils"]
