"""Module table cases: max/avg/adaptive/LP pooling and max unpooling with their constructor arguments."""

import numpy as np

from module_table import ModCase, one

F64 = "float64"


def _m(name: str, *args, **kw):
    return lambda t: getattr(t.nn, name)(*args, **kw)


def _pool(id, name, args, kw, inputs, **case_kw):
    return ModCase(id, _m(name, *args, **kw), inputs, **case_kw)


def _distinct(*shape):
    """A permutation of distinct values: no ties, so max pooling picks the same element as PyTorch."""
    return lambda rng: (rng.permutation(int(np.prod(shape))).reshape(shape).astype(np.float64) / 7.0,)


def _unpool_inputs(pool_shape, kernel, stride, pad, dims):
    """Pooled values and their max-pool indices, computed with NumPy:
    each output cell picks a random valid position of its window."""

    def make(rng):
        vals = rng.standard_normal(pool_shape)
        idx = np.zeros(pool_shape, dtype=np.int64)
        sizes = pool_shape[-dims:]
        in_sizes = [(o - 1) * s - 2 * p + k for o, s, p, k in zip(sizes, stride, pad, kernel)]
        used = set()
        for pos in np.ndindex(*sizes):
            # Overlapping windows must not name one position twice (PyTorch keeps an arbitrary one).
            while True:
                flat = 0
                for d in range(dims):
                    start = pos[d] * stride[d] - pad[d]
                    lo, hi = max(start, 0), min(start + kernel[d], in_sizes[d])
                    flat = flat * in_sizes[d] + int(rng.integers(lo, hi))
                if flat not in used:
                    break
            used.add(flat)
            idx[(Ellipsis,) + pos] = flat
        return vals, idx

    return make


CASES = [
    # MaxPool1d/2d/3d
    _pool("MaxPool1d", "MaxPool1d", (3,), {}, _distinct(2, 3, 10)),
    _pool("MaxPool1d-args", "MaxPool1d", (3,), {"stride": 2, "padding": 1, "dilation": 2, "ceil_mode": True}, _distinct(2, 3, 10)),
    _pool("MaxPool1d-indices", "MaxPool1d", (2,), {"stride": 1, "return_indices": True}, _distinct(3, 7)),
    _pool("MaxPool2d", "MaxPool2d", (2,), {}, _distinct(2, 3, 6, 6)),
    _pool("MaxPool2d-args", "MaxPool2d", ((3, 2),), {"stride": (2, 1), "padding": (1, 0), "dilation": (1, 2), "ceil_mode": True}, _distinct(2, 2, 7, 8)),
    _pool("MaxPool2d-indices-unbatched", "MaxPool2d", (3,), {"stride": 2, "padding": 1, "return_indices": True}, _distinct(2, 7, 7)),
    _pool("MaxPool2d-zero-batch", "MaxPool2d", (2,), {}, one(0, 2, 4, 4)),
    _pool("MaxPool3d", "MaxPool3d", (2,), {}, _distinct(2, 2, 4, 4, 4)),
    _pool("MaxPool3d-args", "MaxPool3d", ((2, 3, 2),), {"stride": (1, 2, 2), "padding": (1, 1, 0), "dilation": (2, 1, 1), "ceil_mode": True, "return_indices": True}, _distinct(1, 2, 5, 6, 5)),
    _pool("MaxPool3d-unbatched", "MaxPool3d", (2,), {"stride": 1}, _distinct(2, 3, 3, 4)),
    # AvgPool1d/2d/3d
    _pool("AvgPool1d", "AvgPool1d", (3,), {}, one(2, 3, 10)),
    _pool("AvgPool1d-args", "AvgPool1d", (4,), {"stride": 2, "padding": 2, "ceil_mode": True, "count_include_pad": False}, one(2, 3, 9, dtype=F64)),
    _pool("AvgPool1d-ceil-pad", "AvgPool1d", (3,), {"stride": 2, "padding": 1, "ceil_mode": True}, one(3, 10, dtype=F64)),
    _pool("AvgPool2d", "AvgPool2d", (2,), {}, one(2, 3, 6, 6)),
    _pool("AvgPool2d-args", "AvgPool2d", ((3, 2),), {"stride": (2, 1), "padding": (1, 1), "ceil_mode": True, "count_include_pad": False}, one(2, 2, 7, 8, dtype=F64)),
    _pool("AvgPool2d-divisor", "AvgPool2d", (3,), {"stride": 2, "padding": 1, "divisor_override": 5}, one(2, 2, 7, 7, dtype=F64)),
    _pool("AvgPool2d-unbatched-ceil", "AvgPool2d", (2,), {"ceil_mode": True}, one(2, 5, 5, dtype=F64)),
    _pool("AvgPool3d", "AvgPool3d", (2,), {}, one(2, 2, 4, 4, 4)),
    _pool("AvgPool3d-args", "AvgPool3d", ((3, 2, 2),), {"stride": (2, 1, 2), "padding": (1, 1, 0), "ceil_mode": True, "count_include_pad": False}, one(1, 2, 6, 5, 5, dtype=F64)),
    _pool("AvgPool3d-divisor-unbatched", "AvgPool3d", (2,), {"stride": 1, "padding": 1, "divisor_override": 3}, one(2, 3, 3, 4, dtype=F64)),
    # Adaptive average
    _pool("AdaptiveAvgPool1d", "AdaptiveAvgPool1d", (4,), {}, one(2, 3, 8)),
    _pool("AdaptiveAvgPool1d-uneven", "AdaptiveAvgPool1d", (3,), {}, one(3, 7, dtype=F64)),
    _pool("AdaptiveAvgPool2d", "AdaptiveAvgPool2d", (1,), {}, one(2, 3, 5, 5)),
    _pool("AdaptiveAvgPool2d-uneven-none", "AdaptiveAvgPool2d", ((None, 3),), {}, one(2, 3, 5, 7, dtype=F64)),
    _pool("AdaptiveAvgPool2d-upsample", "AdaptiveAvgPool2d", ((4, 3),), {}, one(3, 3, 2, dtype=F64)),
    _pool("AdaptiveAvgPool3d", "AdaptiveAvgPool3d", ((2, None, 3),), {}, one(2, 2, 5, 4, 7, dtype=F64)),
    # Adaptive max
    _pool("AdaptiveMaxPool1d", "AdaptiveMaxPool1d", (3,), {}, _distinct(2, 3, 8)),
    _pool("AdaptiveMaxPool1d-indices", "AdaptiveMaxPool1d", (4,), {"return_indices": True}, _distinct(3, 10)),
    _pool("AdaptiveMaxPool2d", "AdaptiveMaxPool2d", ((3, None),), {}, _distinct(2, 2, 7, 5)),
    _pool("AdaptiveMaxPool2d-indices", "AdaptiveMaxPool2d", (2,), {"return_indices": True}, _distinct(2, 2, 5, 6)),
    _pool("AdaptiveMaxPool3d", "AdaptiveMaxPool3d", ((2, 3, 2),), {"return_indices": True}, _distinct(1, 2, 5, 4, 3)),
    # LP pooling
    _pool("LPPool1d", "LPPool1d", (2, 3), {}, one(2, 3, 9, dtype=F64)),
    _pool("LPPool1d-args", "LPPool1d", (1.5, 3), {"stride": 2, "ceil_mode": True}, one(3, 10, dtype=F64)),
    _pool("LPPool2d", "LPPool2d", (2, 2), {}, one(2, 3, 6, 6, dtype=F64)),
    _pool("LPPool2d-args", "LPPool2d", (3, (3, 2)), {"stride": (2, 1), "ceil_mode": True}, one(2, 2, 7, 6, dtype=F64)),
    _pool("LPPool3d", "LPPool3d", (2, 2), {"stride": 1}, one(1, 2, 3, 4, 3, dtype=F64)),
    # Max unpooling: inputs are pooled values with valid indices.
    _pool("MaxUnpool1d", "MaxUnpool1d", (2,), {}, _unpool_inputs((2, 3, 4), (2,), (2,), (0,), 1), grad_inputs=(0,)),
    _pool("MaxUnpool1d-args", "MaxUnpool1d", (3,), {"stride": 2, "padding": 1}, _unpool_inputs((2, 4), (3,), (2,), (1,), 1), grad_inputs=(0,)),
    _pool("MaxUnpool1d-output-size", "MaxUnpool1d", (2,), {}, _unpool_inputs((1, 2, 3), (2,), (2,), (0,), 1), grad_inputs=(0,), kwargs={"output_size": [1, 2, 7]}),
    _pool("MaxUnpool2d", "MaxUnpool2d", (2,), {}, _unpool_inputs((2, 2, 3, 3), (2, 2), (2, 2), (0, 0), 2), grad_inputs=(0,)),
    _pool("MaxUnpool2d-args", "MaxUnpool2d", ((3, 2),), {"stride": (2, 1), "padding": (1, 0)}, _unpool_inputs((2, 3, 4), (3, 2), (2, 1), (1, 0), 2), grad_inputs=(0,)),
    _pool("MaxUnpool2d-output-size", "MaxUnpool2d", (2,), {}, _unpool_inputs((1, 2, 2, 3), (2, 2), (2, 2), (0, 0), 2), grad_inputs=(0,), kwargs={"output_size": (5, 7)}),
    _pool("MaxUnpool3d", "MaxUnpool3d", (2,), {}, _unpool_inputs((1, 2, 2, 2, 3), (2, 2, 2), (2, 2, 2), (0, 0, 0), 3), grad_inputs=(0,)),
]

# Non-contiguous inputs (a transposed view) and invalid inputs (PyTorch's exception and message).
_T = {"adapt_inputs": lambda lib, xs: [xs[0].transpose(-1, -2)]}
_ERR = {"modes": ("eval",)}
CASES += [
    _pool("MaxPool2d-noncontiguous", "MaxPool2d", (3,), {"stride": 2, "padding": 1}, _distinct(2, 3, 7, 6), **_T),
    _pool("AvgPool2d-noncontiguous", "AvgPool2d", (2,), {"ceil_mode": True}, one(2, 3, 7, 5, dtype=F64), **_T),
    _pool("AdaptiveMaxPool2d-noncontiguous", "AdaptiveMaxPool2d", ((3, 2),), {}, _distinct(2, 2, 5, 7), **_T),
    _pool("MaxPool2d-error-pad", "MaxPool2d", (3,), {"padding": 2}, one(1, 1, 8, 8), error=RuntimeError, **_ERR),
    _pool("MaxPool1d-error-pad", "MaxPool1d", (2,), {"padding": 2}, one(1, 1, 8), error=RuntimeError, **_ERR),
    _pool("MaxPool2d-error-too-small", "MaxPool2d", (3,), {}, one(1, 1, 2, 2), error=RuntimeError, **_ERR),
    _pool("MaxPool3d-error-pad", "MaxPool3d", (3,), {"padding": 2}, one(1, 1, 8, 8, 8), error=RuntimeError, **_ERR),
    _pool("AvgPool2d-error-pad", "AvgPool2d", (3,), {"padding": 2}, one(1, 1, 8, 8), error=RuntimeError, **_ERR),
    _pool("AvgPool1d-error-too-small", "AvgPool1d", (3,), {}, one(1, 1, 2), error=RuntimeError, **_ERR),
    _pool("AvgPool3d-error-too-small", "AvgPool3d", (2,), {}, one(1, 1, 1, 4, 4), error=RuntimeError, **_ERR),
    _pool("AdaptiveMaxPool2d-error-rank", "AdaptiveMaxPool2d", (2,), {}, one(4), error=RuntimeError, **_ERR),
]
CASES += [
    _pool("MaxPool2d-error-rank", "MaxPool2d", (2,), {}, one(4, 4), error=RuntimeError, **_ERR),
    _pool("MaxPool1d-error-empty", "MaxPool1d", (2,), {}, one(1, 0, 4), error=RuntimeError, **_ERR),
    _pool("LPPool2d-error-too-small", "LPPool2d", (2, 3), {}, one(1, 1, 2, 2), error=RuntimeError, **_ERR),
]
# ceil_mode lets the last window hang past an input smaller than the (dilated) kernel.
CASES += [
    _pool("MaxPool2d-ceil-overhang", "MaxPool2d", ((2, 4),), {"stride": 3, "dilation": (1, 2), "ceil_mode": True, "return_indices": True}, _distinct(2, 2, 1, 6)),
    _pool("MaxPool1d-ceil-overhang", "MaxPool1d", (3,), {"stride": 2, "dilation": 2, "ceil_mode": True, "return_indices": True}, _distinct(2, 2, 4)),
    _pool("MaxPool3d-ceil-overhang", "MaxPool3d", ((2, 3, 3),), {"stride": 3, "dilation": (1, 2, 1), "ceil_mode": True}, _distinct(1, 2, 4, 4, 2)),
]


def _frac(n, *args, samples_shape, seed=5, **kw):
    """FractionalMaxPool with fixed random samples (a buffer), so both libraries pick the same windows."""
    u = np.random.default_rng(seed).random(samples_shape)
    dt = kw.pop("samples_dtype", "float64")
    return lambda t: getattr(t.nn, f"FractionalMaxPool{n}d")(*args, _random_samples=t.from_numpy(u.astype(dt)), **kw)


CASES += [
    ModCase("FractionalMaxPool2d", _frac(2, 2, output_size=3, samples_shape=(2, 3, 2)), _distinct(2, 3, 7, 6)),
    ModCase("FractionalMaxPool2d-ratio-indices", _frac(2, (3, 2), output_ratio=(0.6, 0.5), return_indices=True, samples_shape=(2, 2, 2), samples_dtype="float64"), lambda rng: (rng.permutation(2 * 2 * 9 * 8).reshape(2, 2, 9, 8).astype(np.float64) / 7.0,)),
    ModCase("FractionalMaxPool2d-unbatched", _frac(2, 2, output_size=(4, 3), samples_shape=(1, 3, 2)), _distinct(3, 6, 5)),
    ModCase("FractionalMaxPool3d", _frac(3, 2, output_size=(2, 3, 2), return_indices=True, samples_shape=(1, 2, 3)), _distinct(1, 2, 5, 6, 4)),
    ModCase("FractionalMaxPool3d-ratio", _frac(3, (2, 1, 2), output_ratio=0.5, samples_shape=(2, 1, 3)), _distinct(2, 1, 6, 4, 6)),
    ModCase("FractionalMaxPool2d-f32", _frac(2, 2, output_size=3, samples_shape=(2, 2, 2), samples_dtype="float32"), one(2, 2, 6, 6)),
    ModCase("FractionalMaxPool2d-error-dtype", _frac(2, 2, output_size=3, samples_shape=(1, 2, 2)), one(1, 2, 6, 6), error=RuntimeError, modes=("eval",)),
    ModCase("FractionalMaxPool2d-error-pool", _frac(2, 3, output_size=4, samples_shape=(1, 2, 2)), one(1, 2, 5, 5), error=RuntimeError, modes=("eval",)),
]


def _pool_unpool(n, k, s, p):
    """MaxPool then MaxUnpool with its indices; overlapping windows repeat an index."""

    def make(t):
        class PoolUnpool(t.nn.Module):
            def __init__(self):
                super().__init__()
                self.pool = getattr(t.nn, f"MaxPool{n}d")(k, s, p, return_indices=True)
                self.unpool = getattr(t.nn, f"MaxUnpool{n}d")(k, s, p)

            def forward(self, x):
                v, i = self.pool(x)
                return self.unpool(v, i, output_size=x.shape)

        return PoolUnpool()

    return make


CASES += [
    ModCase("MaxUnpool2d-overlapping", _pool_unpool(2, 3, 1, 1), _distinct(2, 2, 5, 6)),
    ModCase("MaxUnpool1d-overlapping", _pool_unpool(1, 3, 2, 0), _distinct(2, 2, 7)),
    ModCase("MaxUnpool3d-overlapping", _pool_unpool(3, 2, 1, 0), _distinct(1, 2, 3, 4, 3)),
    ModCase("FractionalMaxPool3d-error-pool", _frac(3, 2, output_size=(2, 3, 2), samples_shape=(1, 2, 3)), _distinct(1, 2, 3, 5, 5), error=RuntimeError, modes=("eval",)),
]


def _signed_ints(*shape):
    """Inputs factory: int64 values in [-9, 9], so truncation toward zero shows."""
    return lambda rng: (rng.integers(-9, 10, shape).astype("int64"),)


# int64 average pooling: the integer quotient, truncated toward zero.
CASES += [
    ModCase("AvgPool1d-int64", lambda t: t.nn.AvgPool1d(3, stride=2, padding=1, ceil_mode=True), _signed_ints(2, 3, 10), backward=False),
    ModCase("AvgPool2d-int64-exclude-pad", lambda t: t.nn.AvgPool2d(3, stride=2, padding=1, count_include_pad=False), _signed_ints(2, 3, 7, 6), backward=False),
    ModCase("AvgPool2d-int64-divisor", lambda t: t.nn.AvgPool2d(2, divisor_override=3), _signed_ints(3, 6, 6), backward=False),
    ModCase("AvgPool3d-int64", lambda t: t.nn.AvgPool3d(2, ceil_mode=True), _signed_ints(1, 2, 5, 4, 3), backward=False),
]

# An empty stride means stride = kernel_size.
CASES += [
    ModCase("AvgPool1d-empty-stride", lambda t: t.nn.AvgPool1d(2, stride=[]), one(2, 3, 8)),
    ModCase("AvgPool2d-empty-stride", lambda t: t.nn.AvgPool2d((2, 3), stride=()), one(2, 3, 6, 7)),
]
