"""The exception classes ``torch.distributed`` raises (all RuntimeErrors, as PyTorch's)."""

from __future__ import annotations


class DistError(RuntimeError):
    """An error in the distributed package."""


class DistBackendError(DistError):
    """The communication engine failed: a rank died, hung past the timeout, or the group broke."""


class DistNetworkError(DistError):
    """A network failure while the processes rendezvous."""


class DistStoreError(DistError):
    """A key-value store failure (ferrotorch rendezvous through MPI and keeps no store)."""
