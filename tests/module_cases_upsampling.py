"""Module table cases: Upsample (every interpolate mode), UpsamplingNearest2d/Bilinear2d,
PixelShuffle/PixelUnshuffle and ChannelShuffle."""

from module_table import ModCase, one

F64 = "float64"


def _m(name: str, *args, **kw):
    return lambda t: getattr(t.nn, name)(*args, **kw)


def _up(id, kw, inputs, **case_kw):
    return ModCase(id, _m("Upsample", **kw), inputs, **case_kw)


CASES = [
    # nearest / nearest-exact, 1-D to 3-D, size and scale factors (integer, fractional, per dim)
    _up("Upsample-nearest-scale2", {"scale_factor": 2}, one(2, 3, 4, 5)),
    _up("Upsample-nearest-size-1d", {"size": 7}, one(2, 3, 5)),
    _up("Upsample-nearest-down", {"size": (3, 4)}, one(2, 2, 7, 9, dtype=F64)),
    _up("Upsample-nearest-frac-scale", {"scale_factor": (1.7, 0.6)}, one(1, 2, 5, 9, dtype=F64)),
    _up("Upsample-nearest-recompute", {"scale_factor": 1.3, "recompute_scale_factor": True}, one(2, 2, 7, 6, dtype=F64)),
    _up("Upsample-nearest-3d", {"scale_factor": (2, 1, 3)}, one(1, 2, 2, 3, 2)),
    _up("Upsample-nearest-exact", {"size": (5, 7), "mode": "nearest-exact"}, one(2, 2, 3, 4, dtype=F64)),
    _up("Upsample-nearest-exact-scale", {"scale_factor": 0.75, "mode": "nearest-exact"}, one(2, 2, 8, 7, dtype=F64)),
    # linear / bilinear / trilinear / bicubic with and without align_corners
    _up("Upsample-linear", {"scale_factor": 2.5, "mode": "linear"}, one(2, 3, 6, dtype=F64)),
    _up("Upsample-linear-align", {"size": 9, "mode": "linear", "align_corners": True}, one(2, 3, 4, dtype=F64)),
    _up("Upsample-bilinear", {"size": (5, 8), "mode": "bilinear"}, one(2, 2, 3, 4, dtype=F64)),
    _up("Upsample-bilinear-f32", {"scale_factor": 2, "mode": "bilinear"}, one(2, 2, 3, 4)),
    _up("Upsample-bilinear-align", {"scale_factor": (1.5, 2.0), "mode": "bilinear", "align_corners": True}, one(2, 2, 4, 4, dtype=F64)),
    _up("Upsample-bilinear-down", {"size": (2, 3), "mode": "bilinear"}, one(2, 2, 7, 8, dtype=F64)),
    _up("Upsample-bilinear-recompute", {"scale_factor": 1.3, "mode": "bilinear", "recompute_scale_factor": True}, one(1, 2, 5, 6, dtype=F64)),
    _up("Upsample-bicubic", {"size": (6, 7), "mode": "bicubic"}, one(2, 2, 4, 3, dtype=F64)),
    _up("Upsample-bicubic-align", {"scale_factor": 2, "mode": "bicubic", "align_corners": True}, one(1, 2, 3, 4, dtype=F64)),
    _up("Upsample-bicubic-down", {"scale_factor": 0.6, "mode": "bicubic"}, one(1, 2, 8, 9, dtype=F64)),
    _up("Upsample-trilinear", {"size": (3, 5, 4), "mode": "trilinear"}, one(1, 2, 2, 3, 3, dtype=F64)),
    _up("Upsample-trilinear-align", {"scale_factor": 2, "mode": "trilinear", "align_corners": True}, one(1, 2, 2, 2, 3, dtype=F64)),
    _up("Upsample-area", {"size": (3, 4), "mode": "area"}, one(2, 2, 7, 9, dtype=F64)),
    _up("Upsample-area-scale", {"scale_factor": 0.5, "mode": "area"}, one(2, 2, 8)),
    _up("Upsample-zero-batch", {"scale_factor": 2, "mode": "bilinear"}, one(0, 2, 3, 3)),
    ModCase("UpsamplingNearest2d", _m("UpsamplingNearest2d", scale_factor=3), one(2, 2, 3, 4)),
    ModCase("UpsamplingNearest2d-size", _m("UpsamplingNearest2d", size=(5, 6)), one(2, 2, 3, 4)),
    ModCase("UpsamplingBilinear2d", _m("UpsamplingBilinear2d", scale_factor=2), one(2, 2, 3, 4, dtype=F64)),
    ModCase("UpsamplingBilinear2d-size", _m("UpsamplingBilinear2d", size=(5, 3)), one(2, 2, 3, 4, dtype=F64)),
    # sub-pixel rearrangements
    ModCase("PixelShuffle", _m("PixelShuffle", 2), one(2, 8, 3, 4)),
    ModCase("PixelShuffle-unbatched", _m("PixelShuffle", 3), one(9, 2, 2)),
    ModCase("PixelShuffle-extra-lead", _m("PixelShuffle", 2), one(2, 3, 4, 2, 2)),
    ModCase("PixelUnshuffle", _m("PixelUnshuffle", 2), one(2, 3, 4, 6)),
    ModCase("PixelUnshuffle-unbatched", _m("PixelUnshuffle", 3), one(2, 6, 3)),
    ModCase("ChannelShuffle", _m("ChannelShuffle", 2), one(2, 6, 3, 3)),
    ModCase("ChannelShuffle-3d", _m("ChannelShuffle", 3), one(2, 6, 4)),
]

# Non-contiguous inputs (a transposed view) and invalid inputs (PyTorch's exception and message).
_T = {"adapt_inputs": lambda lib, xs: [xs[0].transpose(-1, -2)]}
_ERR = {"modes": ("eval",)}
CASES += [
    _up("Upsample-bilinear-noncontiguous", {"size": (5, 7), "mode": "bilinear"}, one(2, 2, 4, 3, dtype=F64), **_T),
    ModCase("PixelShuffle-noncontiguous", _m("PixelShuffle", 2), one(2, 8, 3, 4), **_T),
    _up("Upsample-error-linear-4d", {"scale_factor": 2, "mode": "linear"}, one(1, 1, 4, 4), error=NotImplementedError, **_ERR),
    _up("Upsample-error-size-len", {"size": (3, 3, 3)}, one(1, 1, 4, 4), error=ValueError, **_ERR),
    _up("Upsample-error-align-nearest", {"size": 3, "align_corners": True}, one(1, 1, 4, 4), error=ValueError, **_ERR),
    ModCase("PixelShuffle-error-channels", _m("PixelShuffle", 2), one(1, 3, 4, 4), error=RuntimeError, **_ERR),
    ModCase("PixelUnshuffle-error-width", _m("PixelUnshuffle", 2), one(1, 3, 4, 5), error=RuntimeError, **_ERR),
    ModCase("ChannelShuffle-error-groups", _m("ChannelShuffle", 4), one(2, 6, 3), error=RuntimeError, **_ERR),
]
# PyTorch halves the index for an exact 2-D doubling but not in 1-D/3-D forward (its 1-D/3-D
# backward does halve it, so those gradients are not compared); empty area outputs (PyTorch's
# backward refuses them).
CASES += [
    _up("Upsample-nearest-1d-doubling-by-fraction", {"scale_factor": 2.3}, one(2, 2, 2), backward=False),
    _up("Upsample-nearest-2d-doubling-by-fraction", {"scale_factor": (1.0, 2.3)}, one(2, 2, 3, 2)),
    _up("Upsample-nearest-3d-doubling-by-fraction", {"scale_factor": (2.3, 1.0, 1.0)}, one(1, 2, 3, 2, 2), backward=False),
    _up("Upsample-area-empty", {"scale_factor": 0.5, "mode": "area"}, one(2, 2, 1, 4), backward=False),
    _up("Upsample-error-empty-output", {"scale_factor": (0.5, 1.0), "mode": "bilinear"}, one(2, 2, 1, 4), error=RuntimeError, **_ERR),
]


class _AntialiasedResize:
    """A module around F.interpolate(antialias=True): Upsample has no antialias argument."""

    def __init__(self, t, **kw):
        class Resize(t.nn.Module):
            def forward(self, x):
                return t.nn.functional.interpolate(x, antialias=True, **kw)

        self.module = Resize()


def _aa(**kw):
    return lambda t: _AntialiasedResize(t, **kw).module


CASES += [
    ModCase("interpolate-antialias-bilinear-down", _aa(size=(3, 4), mode="bilinear"), one(2, 2, 9, 11, dtype=F64)),
    ModCase("interpolate-antialias-bilinear-align", _aa(scale_factor=0.4, mode="bilinear", align_corners=True), one(1, 2, 10, 12, dtype=F64)),
    ModCase("interpolate-antialias-bicubic-down", _aa(size=(4, 3), mode="bicubic"), one(2, 2, 13, 8, dtype=F64)),
    ModCase("interpolate-antialias-bicubic-up-f32", _aa(scale_factor=(1.5, 0.5), mode="bicubic"), one(2, 2, 4, 9)),
    ModCase("interpolate-antialias-error-nearest", _aa(size=3, mode="nearest"), one(1, 1, 4, 4), error=ValueError, modes=("eval",)),
]

# uint8 images resize with the nearest modes.
CASES += [
    _up("Upsample-nearest-uint8", {"size": (5, 7)}, lambda rng: (rng.integers(0, 256, (2, 3, 4, 3)).astype("uint8"),)),
    _up("Upsample-nearest-exact-uint8", {"scale_factor": 1.5, "mode": "nearest-exact"}, lambda rng: (rng.integers(0, 256, (2, 3, 4, 3)).astype("uint8"),)),
]

# A scale factor that leaves a dim's size unchanged (3 * 1.3 -> 3): the linear modes, antialiased
# resizes and 2-D nearest copy that dim; 1-D/3-D nearest and bicubic still resample it by the
# scale. (PyTorch's backward kernels do not always agree with its forward here: 1-D/3-D nearest,
# bicubic and the antialiased resizes are compared forward only.)
CASES += [
    _up("Upsample-linear-same-size-dim", {"scale_factor": 1.3, "mode": "linear"}, one(2, 2, 3, dtype=F64)),
    _up("Upsample-bilinear-same-size-dim", {"scale_factor": 1.1, "mode": "bilinear"}, one(1, 2, 3, 4, dtype=F64)),
    _up("Upsample-trilinear-same-size-dim", {"scale_factor": (1.3, 2.0, 1.1), "mode": "trilinear"}, one(1, 2, 3, 4, 5, dtype=F64)),
    _up("Upsample-bicubic-same-size-dim", {"scale_factor": 1.1, "mode": "bicubic"}, one(1, 2, 3, 4, dtype=F64), backward=False),
    _up("Upsample-nearest-2d-same-size-dim", {"scale_factor": 1.3}, one(1, 2, 3, 4, dtype=F64)),
    _up("Upsample-nearest-1d-same-size-dim", {"scale_factor": 1.3}, one(1, 2, 3, dtype=F64), backward=False),
    _up("Upsample-nearest-3d-same-size-dim", {"scale_factor": 1.1}, one(1, 2, 3, 4, 5, dtype=F64), backward=False),
    ModCase("interpolate-antialias-bilinear-same-size-dim", _aa(scale_factor=1.3, mode="bilinear"), one(1, 2, 3, 4, dtype=F64), backward=False),
    ModCase("interpolate-antialias-bicubic-same-size-dim", _aa(scale_factor=1.1, mode="bicubic"), one(1, 2, 3, 4, dtype=F64), backward=False),
]
