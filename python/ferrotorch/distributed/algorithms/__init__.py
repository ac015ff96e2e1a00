"""``ferrotorch.distributed.algorithms``: ``Join`` for training on uneven inputs."""

from .join import Join, Joinable, JoinHook

__all__ = ["Join", "JoinHook", "Joinable"]
