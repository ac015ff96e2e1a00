"""``ferrotorch.nn.parallel``: ``DataParallel`` and ``DistributedDataParallel``."""

from ..modules.data_parallel import DataParallel
from .distributed import DistributedDataParallel

__all__ = ["DataParallel", "DistributedDataParallel"]
