"""Module table cases: CosineSimilarity and PairwiseDistance."""

import numpy as np

from module_table import ModCase, randn


def two(*shape, dtype="float32", shape2=None):
    """Inputs factory: two normal inputs (the second of ``shape2`` if given, to broadcast)."""
    return lambda rng: (randn(*shape, dtype=dtype)(rng), randn(*(shape2 or shape), dtype=dtype)(rng))


CASES = [
    ModCase("CosineSimilarity", lambda t: t.nn.CosineSimilarity(), two(4, 5)),
    ModCase("CosineSimilarity-dim0-eps", lambda t: t.nn.CosineSimilarity(dim=0, eps=1e-6), two(4, 5)),
    ModCase("CosineSimilarity-3d-negative-dim", lambda t: t.nn.CosineSimilarity(dim=-1), two(2, 3, 5)),
    ModCase("CosineSimilarity-broadcast", lambda t: t.nn.CosineSimilarity(dim=1), two(4, 5, shape2=(1, 5))),
    ModCase("CosineSimilarity-1d", lambda t: t.nn.CosineSimilarity(dim=0), two(6)),
    ModCase("CosineSimilarity-zero-vector", lambda t: t.nn.CosineSimilarity(dim=1, eps=1e-3), lambda rng: (randn(3, 4)(rng) * np.array([[1], [0], [1]], dtype=np.float32), randn(3, 4)(rng))),
    ModCase("CosineSimilarity-f64", lambda t: t.nn.CosineSimilarity(dim=2), two(2, 3, 4, dtype="float64"), rtol=1e-10, atol=1e-12),
    ModCase("PairwiseDistance", lambda t: t.nn.PairwiseDistance(), two(4, 5)),
    ModCase("PairwiseDistance-p1-keepdim", lambda t: t.nn.PairwiseDistance(p=1.0, keepdim=True), two(4, 5)),
    ModCase("PairwiseDistance-p3-eps", lambda t: t.nn.PairwiseDistance(p=3.0, eps=1e-3), two(2, 3, 5)),
    ModCase("PairwiseDistance-pinf", lambda t: t.nn.PairwiseDistance(p=float("inf")), two(4, 5)),
    # p=0 counts non-zeros: the same values, but PyTorch leaves the inputs' grads None where we give zeros.
    ModCase("PairwiseDistance-p0", lambda t: t.nn.PairwiseDistance(p=0.0), two(4, 5), backward=False),
    ModCase("PairwiseDistance-1d", lambda t: t.nn.PairwiseDistance(), two(5)),
    ModCase("PairwiseDistance-1d-keepdim", lambda t: t.nn.PairwiseDistance(keepdim=True), two(5)),
    ModCase("PairwiseDistance-broadcast", lambda t: t.nn.PairwiseDistance(), two(4, 5, shape2=(5,))),
    ModCase("PairwiseDistance-f64", lambda t: t.nn.PairwiseDistance(p=1.5), two(3, 4, dtype="float64"), rtol=1e-10, atol=1e-12),
]


def _transposed(lib, xs):
    """Non-contiguous inputs: the last two dims swapped."""
    return [x.transpose(-1, -2) for x in xs]


CASES += [
    ModCase("CosineSimilarity-noncontiguous", lambda t: t.nn.CosineSimilarity(dim=-1), two(2, 5, 3), adapt_inputs=_transposed),
    ModCase("PairwiseDistance-noncontiguous", lambda t: t.nn.PairwiseDistance(p=3.0), two(5, 4), adapt_inputs=_transposed),
]
