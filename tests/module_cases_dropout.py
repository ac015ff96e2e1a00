"""Module table cases: Dropout, Dropout1d/2d/3d, AlphaDropout, FeatureAlphaDropout.

Train-mode outputs are random (only shapes compared) except at p=0 and p=1, where they are not."""

from module_table import ModCase, one

DROPOUTS = ("Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout", "FeatureAlphaDropout")
# An input each module accepts without a warning (batched).
SHAPES = {
    "Dropout": (4, 5),
    "Dropout1d": (2, 3, 5),
    "Dropout2d": (2, 3, 4, 4),
    "Dropout3d": (2, 3, 2, 2, 3),
    "AlphaDropout": (4, 6),
    "FeatureAlphaDropout": (2, 3, 4),
}


def _make(name: str, *args: object, **kw: object):
    return lambda t: getattr(t.nn, name)(*args, **kw)


CASES = []
for _name in DROPOUTS:
    _shape = SHAPES[_name]
    CASES += [
        ModCase(_name, _make(_name), one(*_shape), random_train=True),
        ModCase(f"{_name}-p0.2", _make(_name, p=0.2), one(*_shape), random_train=True),
        ModCase(f"{_name}-p0", _make(_name, 0.0), one(*_shape)),
        ModCase(f"{_name}-p1", _make(_name, p=1.0), one(*_shape)),
        ModCase(f"{_name}-f64", _make(_name, 0.5), one(*_shape, dtype="float64"), random_train=True),
        # In place on a leaf that requires grad is an error in both libraries: no gradients here.
        ModCase(f"{_name}-inplace", _make(_name, 0.3, inplace=True), one(*_shape), random_train=True, backward=False),
        ModCase(f"{_name}-inplace-p1", _make(_name, 1.0, True), one(*_shape), backward=False),
        ModCase(f"{_name}-zero-batch", _make(_name, 0.5), one(0, *_shape[1:]), random_train=True),
    ]

CASES += [
    ModCase("Dropout-3d-input", _make("Dropout", 0.4), one(2, 3, 4), random_train=True),
    ModCase("Dropout1d-unbatched", _make("Dropout1d", 0.5), one(3, 5), random_train=True),
    ModCase("Dropout1d-unbatched-p1", _make("Dropout1d", 1.0), one(3, 5)),
    ModCase("Dropout3d-unbatched", _make("Dropout3d", 0.5), one(3, 2, 2, 2), random_train=True),
    ModCase("Dropout3d-unbatched-p1", _make("Dropout3d", 1.0), one(3, 2, 2, 2)),
]


def _transposed(lib, xs):
    """Non-contiguous inputs: the last two dims swapped."""
    return [x.transpose(-1, -2) for x in xs]


CASES += [
    ModCase("Dropout2d-noncontiguous-p1", _make("Dropout2d", 1.0), one(2, 3, 4, 5), adapt_inputs=_transposed),
    ModCase("AlphaDropout-noncontiguous-p1", _make("AlphaDropout", 1.0), one(4, 6), adapt_inputs=_transposed),
    ModCase("Dropout-noncontiguous", _make("Dropout", 0.5), one(4, 6), adapt_inputs=_transposed, random_train=True),
]
