"""``ferrotorch.backends``: flags PyTorch scripts set; no accelerator backend exists here."""

from __future__ import annotations


class _Flags:
    """Settable flags that have no effect on the CPU backend."""

    def __init__(self, **defaults: object) -> None:
        self.__dict__.update(defaults)

    def is_available(self) -> bool:
        return False


cudnn = _Flags(enabled=False, benchmark=False, deterministic=False, allow_tf32=False)
mps = _Flags()
cuda = _Flags(matmul=_Flags(allow_tf32=False))
