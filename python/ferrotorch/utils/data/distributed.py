"""``ferrotorch.utils.data.distributed``: where PyTorch programs import ``DistributedSampler``
from (``from torch.utils.data.distributed import DistributedSampler``)."""

from .sampler import DistributedSampler

DistributedSampler.__module__ = __name__

__all__ = ["DistributedSampler"]
