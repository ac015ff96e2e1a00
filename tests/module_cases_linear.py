"""Module table cases: Identity, Linear, Bilinear."""

from module_table import ModCase, one, randn

CASES = [
    ModCase("Identity", lambda t: t.nn.Identity(3, foo=1), one(2, 3)),
    ModCase("Linear", lambda t: t.nn.Linear(5, 3), one(4, 5)),
    ModCase("Linear-nobias", lambda t: t.nn.Linear(5, 3, bias=False), one(2, 4, 5)),
    ModCase("Linear-f64", lambda t: t.nn.Linear(5, 3, dtype=t.float64, device="cpu"), one(4, 5, dtype="float64")),
    ModCase("Linear-1d-input", lambda t: t.nn.Linear(5, 3), one(5)),
    ModCase("Linear-zero-batch", lambda t: t.nn.Linear(5, 3), one(0, 5)),
    ModCase("Bilinear", lambda t: t.nn.Bilinear(3, 4, 2), lambda rng: (randn(5, 3)(rng), randn(5, 4)(rng))),
    ModCase("Bilinear-nobias", lambda t: t.nn.Bilinear(3, 4, 2, bias=False), lambda rng: (randn(5, 3)(rng), randn(5, 4)(rng))),
    ModCase("Identity-no-args", lambda t: t.nn.Identity(), one(2, 3)),
    ModCase("Linear-3d-input", lambda t: t.nn.Linear(5, 3), one(2, 4, 5)),
    ModCase("Linear-nobias-f64", lambda t: t.nn.Linear(4, 6, bias=False, dtype=t.float64), one(3, 4, dtype="float64"), rtol=1e-12, atol=1e-12),
    ModCase("Linear-1x1", lambda t: t.nn.Linear(1, 1), one(7, 1)),
    ModCase("Linear-zero-in-features", lambda t: t.nn.Linear(0, 3), one(2, 0)),
    ModCase("Bilinear-f64", lambda t: t.nn.Bilinear(3, 4, 2, dtype=t.float64, device="cpu"), lambda rng: (randn(5, 3, dtype="float64")(rng), randn(5, 4, dtype="float64")(rng)), rtol=1e-12, atol=1e-12),
    ModCase("Bilinear-1d-input", lambda t: t.nn.Bilinear(3, 4, 2), lambda rng: (randn(3)(rng), randn(4)(rng))),
    ModCase("Bilinear-3d-input", lambda t: t.nn.Bilinear(3, 4, 2), lambda rng: (randn(2, 5, 3)(rng), randn(2, 5, 4)(rng))),
    ModCase("Bilinear-zero-batch", lambda t: t.nn.Bilinear(3, 4, 2), lambda rng: (randn(0, 3)(rng), randn(0, 4)(rng))),
]


def _lazy(t, *args, input_shape=(2, 5), **kw):
    """A LazyLinear after its first forward (a dry run), when it has become a Linear."""
    m = t.nn.LazyLinear(*args, **kw)
    m(t.zeros(*input_shape, dtype=kw.get("dtype")))
    return m


CASES += [
    ModCase("LazyLinear", lambda t: _lazy(t, 3), one(4, 5)),
    ModCase("LazyLinear-nobias-3d", lambda t: _lazy(t, 2, bias=False, input_shape=(1, 2, 6)), one(3, 4, 6)),
    ModCase("LazyLinear-f64", lambda t: _lazy(t, 4, dtype=t.float64, device="cpu"), one(3, 5, dtype="float64"), rtol=1e-12, atol=1e-12),
]
