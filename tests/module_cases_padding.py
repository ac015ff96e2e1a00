"""Module table cases: the Zero/Constant/Reflection/Replication/Circular pad layers, 1-D to 3-D."""

from module_table import ModCase, one

F64 = "float64"


def _pad(name: str, *args):
    return lambda t: getattr(t.nn, name)(*args)


CASES = [
    ModCase("ZeroPad1d", _pad("ZeroPad1d", 2), one(2, 3, 4)),
    ModCase("ZeroPad1d-tuple-negative", _pad("ZeroPad1d", (-1, 2)), one(2, 3, 4)),
    ModCase("ZeroPad2d", _pad("ZeroPad2d", (1, 0, 2, 3)), one(2, 3, 4, 5)),
    ModCase("ZeroPad2d-unbatched", _pad("ZeroPad2d", 1), one(3, 4, 5)),
    ModCase("ZeroPad3d", _pad("ZeroPad3d", (1, 0, 2, 1, 0, 1)), one(1, 2, 3, 4, 2)),
    ModCase("ConstantPad1d", _pad("ConstantPad1d", (3, 1), 2.5), one(2, 4)),
    ModCase("ConstantPad2d", _pad("ConstantPad2d", 1, -1.0), one(2, 3, 4, 5)),
    ModCase("ConstantPad3d", _pad("ConstantPad3d", (0, 1, 1, 0, 2, 2), 0.5), one(2, 2, 3, 3, 2)),
    ModCase("ReflectionPad1d", _pad("ReflectionPad1d", (3, 1)), one(2, 3, 5, dtype=F64)),
    ModCase("ReflectionPad1d-unbatched", _pad("ReflectionPad1d", 2), one(3, 5, dtype=F64)),
    ModCase("ReflectionPad2d", _pad("ReflectionPad2d", (1, 2, 3, 0)), one(2, 3, 4, 5, dtype=F64)),
    ModCase("ReflectionPad2d-zero-batch", _pad("ReflectionPad2d", 1), one(0, 3, 4, 5)),
    ModCase("ReflectionPad3d", _pad("ReflectionPad3d", (1, 0, 2, 1, 1, 1)), one(1, 2, 3, 4, 3, dtype=F64)),
    ModCase("ReplicationPad1d", _pad("ReplicationPad1d", (4, 1)), one(2, 3, 3, dtype=F64)),
    ModCase("ReplicationPad2d", _pad("ReplicationPad2d", 2), one(2, 3, 4, 5, dtype=F64)),
    ModCase("ReplicationPad2d-unbatched", _pad("ReplicationPad2d", (0, 3, 1, 2)), one(3, 4, 5, dtype=F64)),
    ModCase("ReplicationPad3d", _pad("ReplicationPad3d", (1, 2, 0, 1, 2, 0)), one(2, 2, 3, 3, 2, dtype=F64)),
    ModCase("CircularPad1d", _pad("CircularPad1d", (2, 3)), one(2, 3, 4, dtype=F64)),
    ModCase("CircularPad2d", _pad("CircularPad2d", (1, 2, 2, 0)), one(2, 3, 4, 5, dtype=F64)),
    ModCase("CircularPad2d-negative", _pad("CircularPad2d", (-1, 2, 1, -2)), one(3, 4, 5, dtype=F64)),
    ModCase("CircularPad3d", _pad("CircularPad3d", 1), one(1, 2, 3, 3, 3, dtype=F64)),
]

# Non-contiguous inputs (a transposed view) and invalid inputs (PyTorch's exception and message).
_T = {"adapt_inputs": lambda lib, xs: [xs[0].transpose(-1, -2)]}
_ERR = {"modes": ("eval",)}
CASES += [
    ModCase("ReflectionPad2d-noncontiguous", _pad("ReflectionPad2d", (1, 2, 2, 1)), one(2, 3, 5, 4, dtype=F64), **_T),
    ModCase("ConstantPad2d-noncontiguous", _pad("ConstantPad2d", (1, 0, 0, 2), 1.5), one(2, 3, 5, 4), **_T),
    ModCase("ReflectionPad2d-error-too-big", _pad("ReflectionPad2d", 4), one(1, 1, 3, 3), error=RuntimeError, **_ERR),
    ModCase("ReflectionPad1d-error-rank", _pad("ReflectionPad1d", 1), one(4), error=NotImplementedError, **_ERR),
    ModCase("CircularPad1d-error-wrap", _pad("CircularPad1d", 4), one(1, 2, 3), error=RuntimeError, **_ERR),
    ModCase("CircularPad2d-error-rank", _pad("CircularPad2d", 1), one(3, 3), error=ValueError, **_ERR),
    ModCase("ReplicationPad2d-error-empty", _pad("ReplicationPad2d", 1), one(2, 0, 3, 3), error=RuntimeError, **_ERR),
]
CASES += [
    ModCase("ConstantPad1d-error-crop", _pad("ConstantPad1d", (-3, 4), 0.0), one(2, 2), error=RuntimeError, **_ERR),
    ModCase("ReplicationPad1d-error-crop-all", _pad("ReplicationPad1d", (-1, -1)), one(2, 2, 2), error=RuntimeError, **_ERR),
]
