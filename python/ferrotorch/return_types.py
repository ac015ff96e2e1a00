"""Named tuples returned by ops with several outputs (``torch.return_types``)."""

from __future__ import annotations

from collections import namedtuple

max = namedtuple("max", ["values", "indices"])
min = namedtuple("min", ["values", "indices"])
sort = namedtuple("sort", ["values", "indices"])
topk = namedtuple("topk", ["values", "indices"])
kthvalue = namedtuple("kthvalue", ["values", "indices"])
var_mean = namedtuple("var_mean", ["var", "mean"])  # kept for symmetry; functions return tuples
std_mean = namedtuple("std_mean", ["std", "mean"])
cummax = namedtuple("cummax", ["values", "indices"])
cummin = namedtuple("cummin", ["values", "indices"])
aminmax = namedtuple("aminmax", ["min", "max"])
median = namedtuple("median", ["values", "indices"])
mode = namedtuple("mode", ["values", "indices"])

for _t in (max, min, sort, topk, kthvalue, cummax, cummin, aminmax, median, mode):
    _t.__module__ = "torch.return_types"
