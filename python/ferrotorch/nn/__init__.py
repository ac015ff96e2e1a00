"""``ferrotorch.nn``: modules, parameters, functional ops and initializers."""

from . import functional, init, parallel, utils
from .modules import *  # noqa: F403
from .modules import Module

# After the star import, which would otherwise carry nn.modules.utils over nn.utils.
from .modules import utils as _modules_utils  # noqa: E402, F401
from .modules.container import ModuleDict, ModuleList, ParameterDict, ParameterList, Sequential
from .parameter import Buffer, Parameter
