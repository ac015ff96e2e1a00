"""Module table cases: Embedding and EmbeddingBag with their constructor arguments."""

import numpy as np

from module_table import ModCase, ints


def idx(high, *shape):
    """Inputs factory: one int64 index tensor."""
    return lambda rng: (ints(high, *shape)(rng),)


def _with_repeats(rng):
    # Repeated indices, so scale_grad_by_freq has something to scale.
    return (np.array([[1, 3, 3, 0], [3, 1, 7, 3]], dtype=np.int64),)


def _bag_inputs(rng, include_last: bool = False, weights: bool = False):
    values = np.array([1, 4, 4, 2, 0, 9, 2, 5], dtype=np.int64)
    offsets = np.array([0, 2, 2, 5] + ([8] if include_last else []), dtype=np.int64)
    out = (values, offsets)
    return out + (rng.standard_normal(8).astype(np.float32),) if weights else out


CASES = [
    # ---- Embedding ----
    ModCase("Embedding", lambda t: t.nn.Embedding(10, 3), idx(10, 4)),
    ModCase("Embedding-2d-input", lambda t: t.nn.Embedding(10, 3), idx(10, 2, 5)),
    ModCase("Embedding-0d-input", lambda t: t.nn.Embedding(10, 3), lambda rng: (np.array(4, dtype=np.int64),)),
    ModCase("Embedding-empty-input", lambda t: t.nn.Embedding(10, 3), idx(10, 0, 2)),
    ModCase("Embedding-padding", lambda t: t.nn.Embedding(6, 3, padding_idx=2), lambda rng: (np.array([[2, 1, 2], [0, 5, 2]], dtype=np.int64),)),
    ModCase("Embedding-padding-negative", lambda t: t.nn.Embedding(6, 3, padding_idx=-1), lambda rng: (np.array([5, 1, 5, 0], dtype=np.int64),)),
    ModCase("Embedding-max-norm", lambda t: t.nn.Embedding(10, 4, max_norm=1.0), idx(10, 3, 4)),
    ModCase("Embedding-max-norm-p1", lambda t: t.nn.Embedding(10, 4, max_norm=1.5, norm_type=1.0), idx(10, 6)),
    ModCase("Embedding-norm-type-only", lambda t: t.nn.Embedding(10, 4, norm_type=3.0), idx(10, 6)),
    ModCase("Embedding-scale-grad-by-freq", lambda t: t.nn.Embedding(8, 3, scale_grad_by_freq=True), _with_repeats),
    ModCase("Embedding-scale-grad-padding", lambda t: t.nn.Embedding(8, 3, padding_idx=3, scale_grad_by_freq=True), _with_repeats),
    ModCase("Embedding-int32-indices", lambda t: t.nn.Embedding(8, 3), lambda rng: (ints(8, 2, 3)(rng).astype(np.int32),)),
    ModCase("Embedding-sparse-false", lambda t: t.nn.Embedding(8, 3, sparse=False), idx(8, 5)),
    ModCase("Embedding-f64", lambda t: t.nn.Embedding(8, 3, dtype=t.float64, device="cpu"), idx(8, 2, 3), rtol=1e-12, atol=1e-12),
    ModCase(
        "Embedding-from-pretrained",
        lambda t: t.nn.Embedding.from_pretrained(t.arange(12.0).reshape(4, 3)),
        idx(4, 5),
    ),
    ModCase(
        "Embedding-from-pretrained-trainable",
        lambda t: t.nn.Embedding.from_pretrained(t.arange(12.0).reshape(4, 3), freeze=False, padding_idx=1, max_norm=5.0),
        idx(4, 5),
    ),
    # ---- EmbeddingBag ----
    ModCase("EmbeddingBag", lambda t: t.nn.EmbeddingBag(10, 3), idx(10, 4, 3)),
    ModCase("EmbeddingBag-offsets", lambda t: t.nn.EmbeddingBag(10, 3), _bag_inputs),
    ModCase("EmbeddingBag-sum", lambda t: t.nn.EmbeddingBag(10, 3, mode="sum"), _bag_inputs),
    ModCase("EmbeddingBag-max", lambda t: t.nn.EmbeddingBag(10, 3, mode="max"), _bag_inputs),
    ModCase("EmbeddingBag-max-2d", lambda t: t.nn.EmbeddingBag(10, 3, mode="max"), idx(10, 3, 4)),
    ModCase("EmbeddingBag-per-sample-weights", lambda t: t.nn.EmbeddingBag(10, 3, mode="sum"), lambda rng: _bag_inputs(rng, weights=True), grad_inputs=(2,)),
    ModCase(
        "EmbeddingBag-per-sample-weights-2d",
        lambda t: t.nn.EmbeddingBag(10, 3, mode="sum"),
        lambda rng: (ints(10, 2, 3)(rng), None),
        kwargs={"per_sample_weights": np.arange(6, dtype=np.float32).reshape(2, 3)},
    ),
    ModCase("EmbeddingBag-include-last-offset", lambda t: t.nn.EmbeddingBag(10, 3, include_last_offset=True), lambda rng: _bag_inputs(rng, include_last=True)),
    ModCase("EmbeddingBag-include-last-offset-sum", lambda t: t.nn.EmbeddingBag(10, 3, mode="sum", include_last_offset=True), lambda rng: _bag_inputs(rng, include_last=True)),
    ModCase("EmbeddingBag-padding-mean", lambda t: t.nn.EmbeddingBag(10, 3, padding_idx=2), _bag_inputs),
    ModCase("EmbeddingBag-padding-negative-sum", lambda t: t.nn.EmbeddingBag(10, 3, mode="sum", padding_idx=-8), _bag_inputs),
    ModCase("EmbeddingBag-padding-max", lambda t: t.nn.EmbeddingBag(10, 3, mode="max", padding_idx=4), _bag_inputs),
    ModCase("EmbeddingBag-max-norm", lambda t: t.nn.EmbeddingBag(10, 3, max_norm=1.0, norm_type=3.0), _bag_inputs),
    ModCase("EmbeddingBag-scale-grad-by-freq", lambda t: t.nn.EmbeddingBag(10, 3, mode="sum", scale_grad_by_freq=True), _bag_inputs),
    ModCase("EmbeddingBag-f64", lambda t: t.nn.EmbeddingBag(10, 3, mode="sum", dtype=t.float64), idx(10, 2, 5), rtol=1e-12, atol=1e-12),
    ModCase(
        "EmbeddingBag-from-pretrained",
        lambda t: t.nn.EmbeddingBag.from_pretrained(t.arange(12.0).reshape(4, 3), freeze=False, mode="max"),
        idx(4, 2, 3),
    ),
]



def _transposed(lib, xs):
    """Non-contiguous index tensors: the last two dims swapped."""
    return [x.transpose(-1, -2) for x in xs]


CASES += [
    ModCase("Embedding-noncontiguous-indices", lambda t: t.nn.Embedding(10, 3, padding_idx=0), idx(10, 4, 3), adapt_inputs=_transposed),
    ModCase("EmbeddingBag-noncontiguous-indices", lambda t: t.nn.EmbeddingBag(10, 3, mode="max"), idx(10, 4, 3), adapt_inputs=_transposed),
]


def _fixed(*values, offsets=None, offsets_dtype=np.int64):
    """Inputs factory: these exact indices (and offsets)."""
    arrays = (np.array(values, dtype=np.int64),) + ((np.array(offsets, dtype=offsets_dtype),) if offsets is not None else ())
    return lambda rng: arrays


_NOGRAD = {"modes": ("eval",), "backward": False}

# Indices outside [0, num_embeddings): a negative one does not count from the end.
CASES += [
    ModCase("Embedding-error-negative-index", lambda t: t.nn.Embedding(10, 3), _fixed(1, -1), error=IndexError, **_NOGRAD),
    ModCase("Embedding-error-index-too-big", lambda t: t.nn.Embedding(10, 3), _fixed(10, 1), error=IndexError, **_NOGRAD),
    ModCase("EmbeddingBag-error-negative-index", lambda t: t.nn.EmbeddingBag(10, 3), _fixed(1, 2, -1, offsets=[0]), error=RuntimeError, **_NOGRAD),
    ModCase("EmbeddingBag-error-index-too-big", lambda t: t.nn.EmbeddingBag(10, 3, mode="sum"), _fixed(1, 10, 5, -1, offsets=[0]), error=RuntimeError, **_NOGRAD),
    ModCase("EmbeddingBag-error-float-offsets", lambda t: t.nn.EmbeddingBag(10, 3), _fixed(1, 2, 3, offsets=[0, 2], offsets_dtype=np.float32), error=RuntimeError, **_NOGRAD),
]
