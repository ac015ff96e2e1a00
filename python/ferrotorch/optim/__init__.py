"""``ferrotorch.optim``: PyTorch's optimizers (SGD, Adam, AdamW, RMSprop and Adagrad update
contiguous float tensors with one fused Rust call per group)."""

from . import lr_scheduler, swa_utils
from .adadelta import Adadelta
from .adafactor import Adafactor
from .adagrad import Adagrad
from .adam import Adam, AdamW
from .adamax import Adamax
from .asgd import ASGD
from .lbfgs import LBFGS
from .muon import Muon
from .nadam import NAdam
from .optimizer import Optimizer
from .radam import RAdam
from .rmsprop import RMSprop
from .rprop import Rprop
from .sgd import SGD
from .sparse_adam import SparseAdam

__all__ = ["Adafactor", "Adadelta", "Adagrad", "Adam", "Adamax", "AdamW", "ASGD", "LBFGS", "Muon", "NAdam", "Optimizer", "RAdam", "RMSprop", "Rprop", "SGD", "SparseAdam", "lr_scheduler", "swa_utils"]
