"""Module table cases: Flatten and Unflatten, with each constructor argument."""

from __future__ import annotations

from module_table import ModCase, one

CASES = [
    ModCase("Flatten", lambda t: t.nn.Flatten(), one(2, 3, 4, 5)),
    ModCase("Flatten-start0", lambda t: t.nn.Flatten(0), one(2, 3, 4)),
    ModCase("Flatten-start-end", lambda t: t.nn.Flatten(start_dim=1, end_dim=2), one(2, 3, 4, 5)),
    ModCase("Flatten-negative-dims", lambda t: t.nn.Flatten(-3, -2), one(2, 3, 4, 5, dtype="float64")),
    ModCase("Flatten-same-dim", lambda t: t.nn.Flatten(2, 2), one(2, 3, 4)),
    ModCase("Flatten-2d", lambda t: t.nn.Flatten(), one(3, 4)),
    ModCase("Flatten-zero-batch", lambda t: t.nn.Flatten(), one(0, 3, 4)),
    ModCase("Flatten-zero-inner", lambda t: t.nn.Flatten(1, -1), one(2, 0, 4)),
    ModCase("Flatten-0d", lambda t: t.nn.Flatten(0, -1), one(dtype="float64")),
    ModCase("Flatten-1d", lambda t: t.nn.Flatten(0), one(5)),
    # A 0-d tensor has dims -1 and 0 only: the default start_dim=1 is out of range.
    ModCase("Flatten-error-0d-default", lambda t: t.nn.Flatten(), one(dtype="float64"), error=IndexError, modes=("eval",)),
    ModCase("Flatten-error-0d-end", lambda t: t.nn.Flatten(0, 2), one(dtype="float64"), error=IndexError, modes=("eval",)),
    ModCase("Unflatten", lambda t: t.nn.Unflatten(1, (2, 3)), one(4, 6)),
    ModCase("Unflatten-list", lambda t: t.nn.Unflatten(dim=1, unflattened_size=[2, 2, 3]), one(4, 12)),
    ModCase("Unflatten-minus-one", lambda t: t.nn.Unflatten(-1, (2, -1)), one(3, 8, dtype="float64")),
    ModCase("Unflatten-dim0", lambda t: t.nn.Unflatten(0, (2, 2)), one(4, 3)),
    ModCase("Unflatten-size-object", lambda t: t.nn.Unflatten(1, t.Size([3, 2])), one(2, 6)),
    ModCase("Unflatten-zero-batch", lambda t: t.nn.Unflatten(1, (2, 3)), one(0, 6)),
]
