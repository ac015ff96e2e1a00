"""Module table cases: DataParallel (CPU: runs its module), and the deprecated Container and
NLLLoss2d that old programs still build."""

import warnings

import numpy as np

from module_table import ModCase, one, randn


def _quiet(build):
    def make(t):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return build(t)

    return make


CASES = [
    ModCase("DataParallel-Linear", lambda t: t.nn.DataParallel(t.nn.Linear(4, 3)), one(5, 4)),
    ModCase("DataParallel-device_ids-dim", lambda t: t.nn.DataParallel(t.nn.Sequential(t.nn.Linear(4, 3, dtype=t.float64), t.nn.ReLU()), device_ids=None, output_device=None, dim=1), one(2, 4, dtype=np.float64)),
    ModCase("DataParallel-BatchNorm", lambda t: t.nn.DataParallel(t.nn.BatchNorm1d(3)), one(6, 3)),
    ModCase("Container", _quiet(lambda t: t.nn.Container(a=t.nn.Linear(3, 2), b=t.nn.Tanh())), lambda rng: (), backward=False, modes=()),
    ModCase("NLLLoss2d", _quiet(lambda t: t.nn.NLLLoss2d(ignore_index=1)), lambda rng: (np.log(rng.dirichlet(np.ones(3), (2, 4, 5)).transpose(0, 3, 1, 2)).astype(np.float64), rng.integers(0, 3, (2, 4, 5)).astype(np.int64))),
    ModCase("NLLLoss2d-sum", _quiet(lambda t: t.nn.NLLLoss2d(reduction="sum")), lambda rng: (randn(2, 3, 4, 4)(rng), rng.integers(0, 3, (2, 4, 4)).astype(np.int64))),
]
