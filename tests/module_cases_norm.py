"""Module table cases: BatchNorm1d/2d/3d, InstanceNorm1d/2d/3d, LayerNorm, GroupNorm, RMSNorm,
LocalResponseNorm, with their constructor arguments both ways."""

from module_table import ModCase, one

F64 = "float64"

CASES = [
    # ---- BatchNorm ----
    ModCase("BatchNorm1d", lambda t: t.nn.BatchNorm1d(4), one(6, 4)),
    ModCase("BatchNorm1d-3d-input", lambda t: t.nn.BatchNorm1d(4), one(3, 4, 5)),
    ModCase("BatchNorm1d-eps-momentum", lambda t: t.nn.BatchNorm1d(4, eps=1e-3, momentum=0.3), one(6, 4)),
    ModCase("BatchNorm1d-momentum-None", lambda t: t.nn.BatchNorm1d(4, momentum=None), one(6, 4)),
    ModCase("BatchNorm1d-nobias", lambda t: t.nn.BatchNorm1d(4, bias=False), one(6, 4)),
    ModCase("BatchNorm1d-noaffine-bias-ignored", lambda t: t.nn.BatchNorm1d(4, affine=False, bias=True), one(6, 4)),
    ModCase("BatchNorm1d-noaffine", lambda t: t.nn.BatchNorm1d(4, affine=False), one(6, 4)),
    ModCase("BatchNorm1d-untracked", lambda t: t.nn.BatchNorm1d(4, track_running_stats=False), one(6, 4)),
    ModCase("BatchNorm1d-noaffine-untracked", lambda t: t.nn.BatchNorm1d(4, affine=False, track_running_stats=False), one(5, 4, 3)),
    ModCase("BatchNorm1d-f64", lambda t: t.nn.BatchNorm1d(4, dtype=t.float64, device="cpu"), one(6, 4, 3, dtype=F64), rtol=1e-9, atol=1e-10),
    ModCase("BatchNorm1d-zero-batch", lambda t: t.nn.BatchNorm1d(4), one(0, 4)),
    ModCase("BatchNorm2d", lambda t: t.nn.BatchNorm2d(3), one(2, 3, 4, 5)),
    ModCase("BatchNorm2d-momentum-None-f64", lambda t: t.nn.BatchNorm2d(3, momentum=None, dtype=t.float64), one(2, 3, 4, 5, dtype=F64), rtol=1e-9, atol=1e-10),
    ModCase("BatchNorm2d-noaffine-untracked", lambda t: t.nn.BatchNorm2d(3, eps=0.1, affine=False, track_running_stats=False), one(2, 3, 4, 4)),
    ModCase("BatchNorm2d-untracked-affine", lambda t: t.nn.BatchNorm2d(3, momentum=0.5, track_running_stats=False), one(2, 3, 2, 2)),
    ModCase("BatchNorm3d", lambda t: t.nn.BatchNorm3d(2), one(2, 2, 3, 2, 3)),
    ModCase("BatchNorm3d-f64-noaffine", lambda t: t.nn.BatchNorm3d(2, eps=1e-4, momentum=0.2, affine=False, dtype=t.float64), one(2, 2, 3, 2, 2, dtype=F64), rtol=1e-9, atol=1e-10),
    ModCase("BatchNorm3d-untracked", lambda t: t.nn.BatchNorm3d(2, track_running_stats=False), one(3, 2, 2, 2, 2)),
    # ---- SyncBatchNorm (BatchNorm outside a process group) ----
    ModCase("SyncBatchNorm-2d-input", lambda t: t.nn.SyncBatchNorm(4), one(6, 4)),
    ModCase("SyncBatchNorm-4d-input-args", lambda t: t.nn.SyncBatchNorm(3, eps=1e-3, momentum=None, bias=False), one(2, 3, 2, 2)),
    ModCase("SyncBatchNorm-5d-untracked-f64", lambda t: t.nn.SyncBatchNorm(2, affine=False, track_running_stats=False, dtype=t.float64), one(2, 2, 2, 2, 2, dtype=F64), rtol=1e-9, atol=1e-10),
    ModCase(
        "SyncBatchNorm-converted",
        lambda t: t.nn.SyncBatchNorm.convert_sync_batchnorm(t.nn.Sequential(t.nn.Linear(3, 4), t.nn.BatchNorm1d(4, momentum=0.2), t.nn.Sequential(t.nn.BatchNorm1d(4, affine=False)))),
        one(5, 3),
    ),
    # ---- InstanceNorm ----
    ModCase("InstanceNorm1d", lambda t: t.nn.InstanceNorm1d(3), one(2, 3, 6)),
    ModCase("InstanceNorm1d-unbatched", lambda t: t.nn.InstanceNorm1d(3), one(3, 6)),
    ModCase("InstanceNorm1d-affine-tracked", lambda t: t.nn.InstanceNorm1d(3, affine=True, track_running_stats=True), one(2, 3, 6)),
    ModCase("InstanceNorm1d-tracked-momentum-None", lambda t: t.nn.InstanceNorm1d(3, momentum=None, track_running_stats=True), one(2, 3, 6)),
    ModCase("InstanceNorm1d-f64-affine", lambda t: t.nn.InstanceNorm1d(3, eps=1e-3, affine=True, dtype=t.float64), one(2, 3, 5, dtype=F64), rtol=1e-9, atol=1e-10),
    ModCase("InstanceNorm1d-zero-batch-tracked", lambda t: t.nn.InstanceNorm1d(3, track_running_stats=True), one(0, 3, 4), modes=("train",)),
    ModCase("InstanceNorm2d", lambda t: t.nn.InstanceNorm2d(3), one(2, 3, 4, 5)),
    ModCase("InstanceNorm2d-unbatched-tracked", lambda t: t.nn.InstanceNorm2d(3, momentum=0.3, affine=True, track_running_stats=True), one(3, 4, 5)),
    ModCase("InstanceNorm2d-f64-tracked", lambda t: t.nn.InstanceNorm2d(2, track_running_stats=True, dtype=t.float64), one(3, 2, 3, 3, dtype=F64), rtol=1e-9, atol=1e-10),
    ModCase("InstanceNorm3d", lambda t: t.nn.InstanceNorm3d(2, affine=True), one(2, 2, 3, 2, 3)),
    ModCase("InstanceNorm2d-affine-nobias", lambda t: t.nn.InstanceNorm2d(2, affine=True, bias=False), one(2, 2, 3, 3)),
    ModCase("InstanceNorm3d-unbatched-tracked", lambda t: t.nn.InstanceNorm3d(2, track_running_stats=True), one(2, 3, 2, 3)),
    # ---- LayerNorm ----
    ModCase("LayerNorm", lambda t: t.nn.LayerNorm(5), one(3, 5)),
    ModCase("LayerNorm-tuple", lambda t: t.nn.LayerNorm((4, 5), eps=1e-3), one(2, 3, 4, 5)),
    ModCase("LayerNorm-list", lambda t: t.nn.LayerNorm([5]), one(2, 5)),
    ModCase("LayerNorm-nobias", lambda t: t.nn.LayerNorm(5, bias=False), one(3, 5)),
    ModCase("LayerNorm-noaffine", lambda t: t.nn.LayerNorm(5, elementwise_affine=False), one(3, 5)),
    ModCase("LayerNorm-noaffine-nobias", lambda t: t.nn.LayerNorm((2, 5), elementwise_affine=False, bias=False), one(3, 2, 5)),
    ModCase("LayerNorm-f64", lambda t: t.nn.LayerNorm((3, 4), dtype=t.float64, device="cpu"), one(2, 3, 4, dtype=F64), rtol=1e-9, atol=1e-10),
    ModCase("LayerNorm-zero-batch", lambda t: t.nn.LayerNorm(4), one(0, 4)),
    # ---- GroupNorm ----
    ModCase("GroupNorm", lambda t: t.nn.GroupNorm(2, 4), one(3, 4, 5)),
    ModCase("GroupNorm-4d", lambda t: t.nn.GroupNorm(3, 6, eps=1e-3), one(2, 6, 3, 3)),
    ModCase("GroupNorm-2d-input", lambda t: t.nn.GroupNorm(2, 4), one(3, 4)),
    ModCase("GroupNorm-zero-batch", lambda t: t.nn.GroupNorm(2, 4), one(0, 4, 3)),
    ModCase("GroupNorm-nobias", lambda t: t.nn.GroupNorm(2, 4, bias=False), one(3, 4, 2)),
    ModCase("GroupNorm-noaffine", lambda t: t.nn.GroupNorm(1, 4, affine=False), one(2, 4, 5)),
    ModCase("GroupNorm-f64", lambda t: t.nn.GroupNorm(4, 4, dtype=t.float64), one(2, 4, 3, 2, dtype=F64), rtol=1e-9, atol=1e-10),
    # ---- RMSNorm ----
    ModCase("RMSNorm", lambda t: t.nn.RMSNorm(5), one(3, 5)),
    ModCase("RMSNorm-eps", lambda t: t.nn.RMSNorm((2, 5), eps=1e-3), one(3, 2, 5)),
    ModCase("RMSNorm-noaffine", lambda t: t.nn.RMSNorm([5], elementwise_affine=False), one(4, 5)),
    ModCase("RMSNorm-f64", lambda t: t.nn.RMSNorm(4, dtype=t.float64), one(3, 4, dtype=F64), rtol=1e-9, atol=1e-10),
    # ---- LocalResponseNorm ----
    ModCase("LocalResponseNorm", lambda t: t.nn.LocalResponseNorm(3), one(2, 5, 4)),
    ModCase("LocalResponseNorm-4d-args", lambda t: t.nn.LocalResponseNorm(2, alpha=0.1, beta=0.5, k=2.0), one(2, 6, 3, 3)),
    ModCase("LocalResponseNorm-5d-f64", lambda t: t.nn.LocalResponseNorm(4, alpha=0.5, k=1.5), one(2, 5, 2, 2, 3, dtype=F64), rtol=1e-9, atol=1e-10),
]


def _dry_run(make, *shape, dtype=None):
    """A lazy module after its first forward (it has then become its eager class)."""

    def build(t):
        m = make(t)
        m(t.zeros(*shape, dtype=getattr(t, dtype) if dtype else None) + 1)
        return m

    return build


CASES += [
    ModCase("LazyBatchNorm1d", _dry_run(lambda t: t.nn.LazyBatchNorm1d(), 4, 3), one(6, 3)),
    ModCase("LazyBatchNorm2d-args", _dry_run(lambda t: t.nn.LazyBatchNorm2d(eps=1e-3, momentum=None, bias=False), 2, 3, 2, 2), one(2, 3, 2, 2)),
    ModCase("LazyBatchNorm3d-noaffine-untracked", _dry_run(lambda t: t.nn.LazyBatchNorm3d(affine=False, track_running_stats=False), 2, 2, 2, 2, 2), one(2, 2, 2, 2, 2)),
    ModCase("LazyInstanceNorm1d", _dry_run(lambda t: t.nn.LazyInstanceNorm1d(), 2, 3, 5), one(2, 3, 5)),
    ModCase("LazyInstanceNorm2d-f64", _dry_run(lambda t: t.nn.LazyInstanceNorm2d(affine=False, dtype=t.float64), 2, 2, 3, 3, dtype="float64"), one(2, 2, 3, 3, dtype=F64), rtol=1e-9, atol=1e-10),
    ModCase("LazyInstanceNorm3d-untracked", _dry_run(lambda t: t.nn.LazyInstanceNorm3d(track_running_stats=False), 2, 2, 2, 2, 3), one(2, 2, 2, 2, 3)),
]


def _transposed(lib, xs):
    """Non-contiguous inputs: the last two dims swapped (the case's shapes are given before the swap)."""
    return [x.transpose(-1, -2) for x in xs]


CASES += [
    ModCase("BatchNorm1d-noncontiguous", lambda t: t.nn.BatchNorm1d(4, dtype=t.float64), one(6, 5, 4, dtype=F64), adapt_inputs=_transposed, rtol=1e-9, atol=1e-10),
    ModCase("BatchNorm2d-noncontiguous", lambda t: t.nn.BatchNorm2d(3), one(2, 3, 5, 4), adapt_inputs=_transposed),
    ModCase("InstanceNorm1d-noncontiguous", lambda t: t.nn.InstanceNorm1d(4, affine=True, track_running_stats=True), one(2, 5, 4), adapt_inputs=_transposed),
    ModCase("LayerNorm-noncontiguous", lambda t: t.nn.LayerNorm(6, dtype=t.float64), one(2, 6, 5, dtype=F64), adapt_inputs=_transposed, rtol=1e-9, atol=1e-10),
    ModCase("GroupNorm-noncontiguous", lambda t: t.nn.GroupNorm(2, 4), one(2, 4, 6, 3), adapt_inputs=_transposed),
    ModCase("RMSNorm-noncontiguous", lambda t: t.nn.RMSNorm(6), one(2, 6, 5), adapt_inputs=_transposed),
    ModCase("LocalResponseNorm-noncontiguous", lambda t: t.nn.LocalResponseNorm(3), one(2, 4, 6, 3), adapt_inputs=_transposed),
]


# Half-precision inputs to float32 layers: the output keeps the input's dtype.
_HALF = {"rtol": 1e-2, "atol": 1e-2}
CASES += [
    ModCase("BatchNorm1d-half-input", lambda t: t.nn.BatchNorm1d(4), one(6, 4, 3, dtype="float16"), **_HALF),
    ModCase("InstanceNorm1d-half-input", lambda t: t.nn.InstanceNorm1d(4, affine=True, track_running_stats=True), one(2, 4, 6, dtype="float16"), **_HALF),
    ModCase("LocalResponseNorm-half-input", lambda t: t.nn.LocalResponseNorm(3), one(2, 4, 5, dtype="float16"), **_HALF),
    ModCase("LayerNorm-half-input", lambda t: t.nn.LayerNorm(6), one(2, 3, 6, dtype="float16"), **_HALF),
    ModCase("GroupNorm-half-input", lambda t: t.nn.GroupNorm(2, 4), one(2, 4, 5, dtype="float16"), **_HALF),
    ModCase("RMSNorm-half-input", lambda t: t.nn.RMSNorm(6), one(2, 3, 6, dtype="float16"), rtol=5e-2, atol=5e-2),
]

# CrossMapLRN2d: the legacy layer's channel windows (forward only: PyTorch's hand-written backward
# is not the gradient of that forward, and fails for size 1).
CASES += [
    ModCase(f"CrossMapLRN2d-size{size}-C{c}", lambda t, size=size: t.nn.CrossMapLRN2d(size, alpha=0.5, beta=0.75, k=1.5), one(2, c, 3, 4, dtype=F64), backward=False)
    for size in (1, 2, 3, 4, 5) for c in (1, 3, 7)
] + [
    ModCase("CrossMapLRN2d-defaults", lambda t: t.nn.CrossMapLRN2d(3), one(2, 5, 3, 4), backward=False),
    ModCase("CrossMapLRN2d-error-3d", lambda t: t.nn.CrossMapLRN2d(3), one(5, 3, 4), error=ValueError, modes=("eval",)),
]
