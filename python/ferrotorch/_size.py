"""``ferrotorch.Size``: the type of ``Tensor.shape``, a tuple that prints like PyTorch's."""

from __future__ import annotations


class Size(tuple):
    """A tuple of ints describing a tensor's shape.

    >>> Size([2, 3])
    torch.Size([2, 3])
    """

    def __repr__(self) -> str:
        return f"torch.Size([{', '.join(str(d) for d in self)}])"

    def numel(self) -> int:
        """Number of elements a tensor of this shape holds."""
        n = 1
        for d in self:
            n *= d
        return n

    def __getitem__(self, key):  # type: ignore[override]
        out = tuple.__getitem__(self, key)
        return Size(out) if isinstance(key, slice) else out

    def __add__(self, other):  # type: ignore[override]
        return Size(tuple(self) + tuple(other))

    def __reduce__(self):
        return (Size, (tuple(self),))
