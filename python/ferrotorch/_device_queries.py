"""Questions about where a tensor lives, answered for ferrotorch's CPU-and-CUDA world: the
pinned-memory pair, the ``is_<backend>`` flags of backends ferrotorch has none of, and the
process-wide default device (only the CPU can be made the default)."""

from __future__ import annotations

from typing import Any, Callable, Optional, Tuple

from . import _core

Tensor = _core.Tensor


class _NamedProperty(property):
    """A read-only Tensor property that carries a ``__name__`` so it is attached like a method."""

    def __init__(self, fget: Callable[[Any], Any], name: str, doc: str) -> None:
        super().__init__(fget, doc=doc)
        self.__name__ = name


def _always_false(name: str) -> _NamedProperty:
    return _NamedProperty(lambda self: False, name, f"``{name}``: False, ferrotorch has no such backend.")


is_mps = _always_false("is_mps")
is_xla = _always_false("is_xla")
is_xpu = _always_false("is_xpu")
is_ipu = _always_false("is_ipu")
is_maia = _always_false("is_maia")
is_mtia = _always_false("is_mtia")
is_vulkan = _always_false("is_vulkan")
is_mkldnn = _always_false("is_mkldnn")
is_nested = _always_false("is_nested")
is_sparse_csr = _always_false("is_sparse_csr")


def is_distributed(self: Tensor) -> bool:
    """Whether the tensor is distributed (never, in ferrotorch)."""
    return False


def get_device(input: Tensor) -> int:
    """The index of the CUDA device holding ``input``; -1 for the CPU."""
    return input.get_device()


def is_vulkan_available() -> bool:
    """False: ferrotorch has no Vulkan backend."""
    return False


def compiled_with_cxx11_abi() -> bool:
    """True, as for PyTorch's own wheels (ferrotorch has no C++ ABI of its own to report)."""
    return True


def get_default_device() -> Any:
    """The device factory functions use when none is given: always the CPU in ferrotorch."""
    return _core.device("cpu")


def set_default_device(device: Optional[Any]) -> None:
    """Sets the default device. Only ``"cpu"`` (or ``None``, meaning the CPU) is accepted:
    ferrotorch's factories always allocate on the CPU."""
    if device is None:
        return
    if isinstance(device, int) or _core.device(device).type != "cpu":
        raise RuntimeError(f"set_default_device: ferrotorch can only use the CPU as the default device, not {device!r}")


__all__: Tuple[str, ...] = (
    "get_device",
    "is_vulkan_available",
    "compiled_with_cxx11_abi",
    "get_default_device",
    "set_default_device",
)
METHODS: Tuple[Any, ...] = (
    is_mps, is_xla, is_xpu, is_ipu, is_maia, is_mtia, is_vulkan, is_mkldnn, is_nested, is_sparse_csr,
    is_distributed,
)
