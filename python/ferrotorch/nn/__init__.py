"""``ferrotorch.nn``: modules, parameters, functional ops and initializers."""

from . import functional, init, parallel, utils
from .modules import *  # noqa: F403
from .modules import Module
from .modules.container import ModuleDict, ModuleList, ParameterDict, ParameterList, Sequential
from .parameter import Buffer, Parameter
