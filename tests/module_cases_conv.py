"""Module table cases: Conv1d/2d/3d and ConvTranspose1d/2d with every constructor argument."""

from module_table import ModCase, one

F64 = "float64"


def _conv(name: str, *args, **kw):
    """A make() for ``nn.<name>(*args, **kw)``; ``dtype=F64`` is turned into each library's float64."""

    def make(t):
        k = dict(kw)
        if k.get("dtype") == F64:
            k["dtype"] = t.float64
        return getattr(t.nn, name)(*args, **k)

    return make


def _c(id, name, args, kw, inputs, **case_kw):
    return ModCase(id, _conv(name, *args, **kw), inputs, **case_kw)


CASES = [
    # Conv1d
    _c("Conv1d", "Conv1d", (3, 4, 3), {}, one(2, 3, 10)),
    _c("Conv1d-nobias", "Conv1d", (3, 4, 3), {"bias": False}, one(2, 3, 10)),
    _c("Conv1d-stride-pad-dil", "Conv1d", (3, 6, 3), {"stride": 2, "padding": 2, "dilation": 2, "dtype": F64}, one(2, 3, 11, dtype=F64)),
    _c("Conv1d-tuple-args", "Conv1d", (2, 4, (3,)), {"stride": (2,), "padding": (1,), "dilation": (1,)}, one(2, 2, 9)),
    _c("Conv1d-groups", "Conv1d", (4, 6, 3), {"groups": 2, "dtype": F64}, one(2, 4, 8, dtype=F64)),
    _c("Conv1d-depthwise", "Conv1d", (4, 8, 3), {"groups": 4, "padding": 1, "dtype": F64}, one(2, 4, 8, dtype=F64)),
    _c("Conv1d-same-even", "Conv1d", (2, 3, 4), {"padding": "same", "dtype": F64}, one(2, 2, 9, dtype=F64)),
    _c("Conv1d-same-dil", "Conv1d", (2, 3, 3), {"padding": "same", "dilation": 2, "dtype": F64}, one(2, 2, 9, dtype=F64)),
    _c("Conv1d-valid", "Conv1d", (2, 3, 3), {"padding": "valid"}, one(2, 2, 9)),
    _c("Conv1d-reflect", "Conv1d", (2, 3, 3), {"padding": 2, "padding_mode": "reflect", "dtype": F64}, one(2, 2, 9, dtype=F64)),
    _c("Conv1d-replicate", "Conv1d", (2, 3, 3), {"padding": 1, "padding_mode": "replicate", "dtype": F64}, one(2, 2, 9, dtype=F64)),
    _c("Conv1d-circular", "Conv1d", (2, 3, 3), {"padding": 2, "padding_mode": "circular", "dtype": F64}, one(2, 2, 9, dtype=F64)),
    _c("Conv1d-same-reflect", "Conv1d", (2, 3, 4), {"padding": "same", "padding_mode": "reflect", "dtype": F64}, one(2, 2, 9, dtype=F64)),
    _c("Conv1d-unbatched", "Conv1d", (3, 4, 3), {"dtype": F64, "device": "cpu"}, one(3, 10, dtype=F64)),
    _c("Conv1d-zero-batch", "Conv1d", (3, 4, 3), {}, one(0, 3, 10)),
    # Conv2d
    _c("Conv2d", "Conv2d", (3, 4, 3), {}, one(2, 3, 8, 8)),
    _c("Conv2d-nobias", "Conv2d", (3, 64, 3), {"bias": False}, one(1, 3, 6, 6)),
    _c("Conv2d-rect-kernel", "Conv2d", (3, 4, (2, 3)), {"stride": (2, 1), "padding": (1, 0), "dilation": (1, 2), "dtype": F64}, one(2, 3, 9, 10, dtype=F64)),
    _c("Conv2d-groups", "Conv2d", (4, 6, 3), {"groups": 2, "padding": 1, "dtype": F64}, one(2, 4, 7, 7, dtype=F64)),
    _c("Conv2d-depthwise", "Conv2d", (3, 6, 3), {"groups": 3, "stride": 2, "dtype": F64}, one(2, 3, 9, 9, dtype=F64)),
    _c("Conv2d-same", "Conv2d", (2, 3, (2, 3)), {"padding": "same", "dtype": F64}, one(2, 2, 7, 8, dtype=F64)),
    _c("Conv2d-same-dil", "Conv2d", (2, 3, 3), {"padding": "same", "dilation": (2, 1), "dtype": F64}, one(2, 2, 7, 8, dtype=F64)),
    _c("Conv2d-valid", "Conv2d", (2, 3, 3), {"padding": "valid"}, one(2, 2, 7, 8)),
    _c("Conv2d-reflect", "Conv2d", (2, 3, 3), {"padding": (1, 2), "padding_mode": "reflect", "dtype": F64}, one(2, 2, 7, 8, dtype=F64)),
    _c("Conv2d-replicate", "Conv2d", (2, 3, 3), {"padding": 2, "padding_mode": "replicate", "dtype": F64}, one(2, 2, 7, 8, dtype=F64)),
    _c("Conv2d-circular", "Conv2d", (2, 3, 3), {"padding": 1, "stride": 2, "padding_mode": "circular", "dtype": F64}, one(2, 2, 7, 8, dtype=F64)),
    _c("Conv2d-same-circular", "Conv2d", (2, 3, 4), {"padding": "same", "padding_mode": "circular", "dtype": F64}, one(2, 2, 7, 8, dtype=F64)),
    _c("Conv2d-unbatched", "Conv2d", (3, 4, 3), {"dtype": F64, "device": "cpu"}, one(3, 6, 6, dtype=F64)),
    _c("Conv2d-zero-batch", "Conv2d", (3, 4, 3), {}, one(0, 3, 6, 6)),
    # Conv3d
    _c("Conv3d", "Conv3d", (2, 3, 3), {}, one(2, 2, 5, 6, 5)),
    _c("Conv3d-args", "Conv3d", (4, 6, (2, 3, 1)), {"stride": (1, 2, 1), "padding": (1, 0, 1), "dilation": (2, 1, 1), "groups": 2, "bias": False, "dtype": F64}, one(2, 4, 5, 6, 4, dtype=F64)),
    _c("Conv3d-same-replicate", "Conv3d", (2, 2, 2), {"padding": "same", "padding_mode": "replicate", "dtype": F64}, one(1, 2, 4, 5, 3, dtype=F64)),
    _c("Conv3d-unbatched", "Conv3d", (2, 3, 2), {"dtype": F64}, one(2, 4, 4, 4, dtype=F64)),
    # ConvTranspose1d
    _c("ConvTranspose1d", "ConvTranspose1d", (3, 4, 3), {}, one(2, 3, 7)),
    _c("ConvTranspose1d-args", "ConvTranspose1d", (4, 6, 3), {"stride": 2, "padding": 1, "output_padding": 1, "groups": 2, "bias": False, "dilation": 2, "dtype": F64}, one(2, 4, 5, dtype=F64)),
    _c("ConvTranspose1d-output-size", "ConvTranspose1d", (2, 3, 3), {"stride": 2, "dtype": F64}, one(2, 2, 5, dtype=F64), kwargs={"output_size": [12]}),
    _c("ConvTranspose1d-unbatched", "ConvTranspose1d", (2, 3, 3), {"dtype": F64, "device": "cpu"}, one(2, 5, dtype=F64)),
    # ConvTranspose2d
    _c("ConvTranspose2d", "ConvTranspose2d", (3, 4, 3), {}, one(2, 3, 5, 5)),
    _c("ConvTranspose2d-nobias", "ConvTranspose2d", (3, 4, 3), {"bias": False}, one(2, 3, 5, 5)),
    _c("ConvTranspose2d-args", "ConvTranspose2d", (4, 6, (3, 2)), {"stride": (2, 3), "padding": (1, 0), "output_padding": (1, 2), "groups": 2, "dilation": 1, "dtype": F64}, one(2, 4, 4, 5, dtype=F64)),
    _c("ConvTranspose2d-dilation", "ConvTranspose2d", (2, 3, 3), {"dilation": 2, "padding": 1, "dtype": F64}, one(2, 2, 4, 5, dtype=F64)),
    _c("ConvTranspose2d-output-size", "ConvTranspose2d", (2, 3, 3), {"stride": 2, "padding": 1, "dtype": F64}, one(2, 2, 4, 5, dtype=F64), kwargs={"output_size": (2, 3, 8, 10)}),
    _c("ConvTranspose2d-unbatched", "ConvTranspose2d", (2, 3, 3), {"dtype": F64}, one(2, 4, 5, dtype=F64)),
    _c("ConvTranspose2d-zero-batch", "ConvTranspose2d", (2, 3, 3), {}, one(0, 2, 4, 5)),
    # ConvTranspose3d
    _c("ConvTranspose3d", "ConvTranspose3d", (2, 3, 2), {"stride": 2, "padding": 1, "output_padding": 1, "dtype": F64}, one(2, 2, 3, 4, 3, dtype=F64)),
]

# Fold / Unfold (the im2col pair beneath the convolutions)
CASES += [
    ModCase("Unfold", lambda t: t.nn.Unfold(2), one(2, 3, 4, 5)),
    ModCase("Unfold-args", lambda t: t.nn.Unfold((2, 3), dilation=(1, 2), padding=1, stride=(2, 1)), one(2, 2, 5, 6, dtype=F64)),
    ModCase("Unfold-unbatched", lambda t: t.nn.Unfold(3, padding=1), one(2, 4, 4, dtype=F64)),
    ModCase("Fold", lambda t: t.nn.Fold((4, 5), 2), one(2, 12, 12)),
    ModCase("Fold-args", lambda t: t.nn.Fold((5, 6), (2, 3), dilation=(2, 1), padding=(1, 0), stride=2), one(2, 12, 6, dtype=F64)),
    ModCase("Fold-unbatched", lambda t: t.nn.Fold(4, 3, padding=1), one(18, 16, dtype=F64)),
]

# Non-contiguous inputs (a transposed view) and invalid inputs (PyTorch's exception and message).
_T = {"adapt_inputs": lambda lib, xs: [xs[0].transpose(-1, -2)]}
_ERR = {"modes": ("eval",)}
CASES += [
    _c("Conv2d-noncontiguous", "Conv2d", (3, 4, 3), {"padding": 1, "dtype": F64}, one(2, 3, 7, 6, dtype=F64), **_T),
    _c("Conv1d-noncontiguous-reflect", "Conv1d", (3, 4, 3), {"padding": 1, "padding_mode": "reflect", "dtype": F64}, one(2, 8, 3, dtype=F64), **_T),
    _c("ConvTranspose2d-noncontiguous", "ConvTranspose2d", (3, 2, 3), {"stride": 2, "dtype": F64}, one(2, 3, 4, 5, dtype=F64), **_T),
    _c("Conv1d-error-channels", "Conv1d", (3, 4, 3), {}, one(2, 5, 8), error=RuntimeError, **_ERR),
    _c("Conv2d-error-channels-unbatched", "Conv2d", (3, 4, 3), {"groups": 1}, one(5, 8, 8), error=RuntimeError, **_ERR),
    _c("Conv2d-error-rank", "Conv2d", (3, 4, 3), {}, one(3, 8), error=RuntimeError, **_ERR),
    _c("Conv2d-error-too-small", "Conv2d", (3, 4, 3), {"dilation": 2, "padding": (1, 0)}, one(1, 3, 4, 4), error=RuntimeError, **_ERR),
    _c("Conv3d-error-channels", "Conv3d", (4, 4, 3), {"groups": 2}, one(1, 6, 4, 4, 4), error=RuntimeError, **_ERR),
    _c("ConvTranspose2d-error-channels", "ConvTranspose2d", (3, 4, 3), {}, one(1, 5, 4, 4), error=RuntimeError, **_ERR),
    _c("ConvTranspose2d-error-output-size", "ConvTranspose2d", (3, 4, 3), {"stride": 2}, one(1, 3, 4, 4), kwargs={"output_size": (20, 20)}, error=ValueError, **_ERR),
]

# More 3-D argument combinations.
CASES += [
    _c("Conv3d-circular", "Conv3d", (2, 2, (3, 2, 3)), {"padding": (1, 1, 2), "padding_mode": "circular", "dtype": F64}, one(1, 2, 3, 4, 5, dtype=F64)),
    _c("Conv3d-reflect-depthwise", "Conv3d", (2, 4, 3), {"padding": 1, "padding_mode": "reflect", "groups": 2, "stride": 2, "dtype": F64}, one(2, 2, 4, 5, 5, dtype=F64)),
    _c("Conv3d-zero-batch", "Conv3d", (2, 3, 2), {}, one(0, 2, 3, 3, 3)),
    _c("ConvTranspose3d-args", "ConvTranspose3d", (4, 2, (2, 3, 2)), {"stride": (2, 1, 3), "padding": (0, 1, 1), "output_padding": (1, 0, 2), "groups": 2, "bias": False, "dilation": (2, 1, 1), "dtype": F64}, one(1, 4, 3, 3, 2, dtype=F64)),
    _c("ConvTranspose3d-output-size", "ConvTranspose3d", (2, 3, 3), {"stride": 2, "padding": 1, "dtype": F64}, one(2, 2, 3, 4, 3, dtype=F64), kwargs={"output_size": (6, 8, 5)}),
    _c("ConvTranspose3d-unbatched", "ConvTranspose3d", (2, 3, 2), {}, one(2, 3, 3, 3)),
]
CASES += [
    ModCase("Fold-error-channels", lambda t: t.nn.Fold(4, (2, 3)), one(5, 9), error=RuntimeError, modes=("eval",)),
    ModCase("Unfold-error-rank", lambda t: t.nn.Unfold(2), one(4, 4), error=IndexError, modes=("eval",)),
]
# output_padding may reach the stride while it stays below the dilation.
CASES += [
    _c("ConvTranspose2d-outpad-by-dilation", "ConvTranspose2d", (4, 2, 3), {"stride": 1, "dilation": 3, "output_padding": 2, "padding": 1, "groups": 2, "dtype": F64}, one(2, 4, 3, 4, dtype=F64)),
    _c("ConvTranspose1d-outpad-by-dilation", "ConvTranspose1d", (2, 3, 2), {"stride": 2, "dilation": 3, "output_padding": 2, "dtype": F64}, one(2, 2, 4, dtype=F64)),
    _c("ConvTranspose3d-outpad-by-dilation", "ConvTranspose3d", (2, 2, 2), {"stride": (1, 2, 1), "dilation": 2, "output_padding": (1, 0, 1), "padding": (0, 1, 2), "dtype": F64}, one(1, 2, 2, 3, 3, dtype=F64)),
    _c("ConvTranspose2d-error-outpad", "ConvTranspose2d", (2, 2, 3), {"output_padding": 1}, one(1, 2, 4, 4), error=RuntimeError, **_ERR),
    _c("ConvTranspose1d-error-too-small", "ConvTranspose1d", (2, 2, 1), {"padding": 2}, one(1, 2, 3), error=RuntimeError, **_ERR),
    _c("ConvTranspose3d-error-too-small", "ConvTranspose3d", (2, 2, 2), {"padding": (2, 0, 0)}, one(1, 2, 1, 3, 3), error=RuntimeError, **_ERR),
]


def _lazy(name, *args, input_shape, **kw):
    """A Lazy conv after its first forward (a dry run), when it has become the eager class."""

    def make(t):
        k = dict(kw)
        if k.get("dtype") == F64:
            k["dtype"] = t.float64
        m = getattr(t.nn, name)(*args, **k)
        m(t.zeros(*input_shape, dtype=k.get("dtype")))
        return m

    return make


CASES += [
    ModCase("LazyConv1d", _lazy("LazyConv1d", 4, 3, input_shape=(1, 3, 8)), one(2, 3, 9)),
    ModCase("LazyConv2d-args", _lazy("LazyConv2d", 6, (3, 2), stride=2, padding=1, groups=2, bias=False, padding_mode="reflect", dtype=F64, input_shape=(1, 4, 7, 7)), one(2, 4, 8, 6, dtype=F64)),
    ModCase("LazyConv3d-unbatched", _lazy("LazyConv3d", 2, 2, dtype=F64, input_shape=(3, 4, 4, 4)), one(3, 3, 4, 5, dtype=F64)),
    ModCase("LazyConvTranspose1d", _lazy("LazyConvTranspose1d", 4, 3, stride=2, output_padding=1, input_shape=(1, 2, 5)), one(2, 2, 6)),
    ModCase("LazyConvTranspose2d-groups", _lazy("LazyConvTranspose2d", 4, 3, groups=2, dilation=2, dtype=F64, input_shape=(1, 6, 4, 4)), one(2, 6, 3, 5, dtype=F64)),
    ModCase("LazyConvTranspose3d", _lazy("LazyConvTranspose3d", 2, 2, stride=2, bias=False, dtype=F64, input_shape=(1, 2, 2, 2, 2)), one(1, 2, 2, 3, 2, dtype=F64)),
]
