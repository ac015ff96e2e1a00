"""Module table cases: Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict.

Each ``make`` builds a container through the operation named in its id (slicing, append,
insert, del, pop, +, *, update, ...), so the structure, repr and state_dict checks of the table
compare the result of that operation with PyTorch's. Containers without ``forward`` run no modes."""

from collections import OrderedDict

from module_table import ModCase, one

NO_FORWARD = ()


def _seq3(t):
    return t.nn.Sequential(t.nn.Linear(4, 3), t.nn.ReLU(), t.nn.Linear(3, 2))


def _named(t):
    return t.nn.Sequential(OrderedDict([("fc1", t.nn.Linear(4, 3)), ("act", t.nn.Tanh()), ("fc2", t.nn.Linear(3, 2))]))


def _seq_edits(t):
    s = t.nn.Sequential(t.nn.Linear(4, 4))
    s.append(t.nn.ReLU())
    s.extend([t.nn.Linear(4, 3), t.nn.Tanh()])
    s.insert(1, t.nn.Sigmoid())
    s.insert(-1, t.nn.Identity())
    s.insert(len(s), t.nn.Linear(3, 2))
    return s


def _seq_del(t):
    s = _named(t)
    del s[1]
    return s


def _seq_del_slice(t):
    s = _seq_edits(t)
    del s[1:3]
    del s[-2]
    return s


def _seq_pop(t):
    s = _seq3(t)
    s.pop(-1)
    s.pop(1)
    return s


def _seq_setitem(t):
    s = _seq3(t)
    s[-1] = t.nn.Linear(3, 5)
    s[1] = t.nn.Tanh()
    return s


def _seq_add(t):
    s = _seq3(t) + t.nn.Sequential(t.nn.ReLU(), t.nn.Linear(2, 2))
    s += t.nn.Sequential(t.nn.Sigmoid())
    return s


def _seq_mul(t):
    return t.nn.Sequential(t.nn.Linear(3, 3), t.nn.Tanh()) * 2


def _seq_rmul_imul(t):
    s = 2 * t.nn.Sequential(t.nn.Linear(3, 3))
    s *= 2
    return s


def _nested(t):
    inner = t.nn.Sequential(OrderedDict([("proj", t.nn.Linear(4, 4, bias=False)), ("norm", t.nn.LayerNorm(4))]))
    return t.nn.Sequential(inner, t.nn.Sequential(t.nn.GELU(), t.nn.Linear(4, 2)))


def _net(t):
    """A user module holding a ModuleList and a ModuleDict, as real programs do."""

    class Net(t.nn.Module):
        def __init__(self):
            super().__init__()
            self.layers = t.nn.ModuleList([t.nn.Linear(4, 4) for _ in range(3)])
            self.heads = t.nn.ModuleDict({"b": t.nn.Linear(4, 2), "a": t.nn.Linear(4, 1, bias=False)})
            self.scales = t.nn.ParameterList([t.nn.Parameter(t.ones(4)), t.nn.Parameter(t.zeros(4))])
            self.extra = t.nn.ParameterDict({"shift": t.nn.Parameter(t.zeros(2))})

        def forward(self, x):
            for layer, s in zip(self.layers, [self.scales[0], self.scales[-1], self.scales[0]]):
                x = layer(x).tanh() * s
            return self.heads["b"](x) + self.extra["shift"], self.heads["a"](x)

    return Net()


def _ml_edits(t):
    ml = t.nn.ModuleList([t.nn.Linear(2, 2)])
    ml.append(t.nn.ReLU())
    ml.extend([t.nn.Linear(2, 3), t.nn.Linear(2, 3)])
    ml.insert(1, t.nn.Tanh())
    ml += [t.nn.Linear(2, 3)]
    ml[-1] = t.nn.Sigmoid()
    return ml


def _ml_del_pop(t):
    ml = _ml_edits(t)
    del ml[0]
    ml.pop(-2)
    del ml[1:3]
    return ml


def _ml_slice_add(t):
    ml = t.nn.ModuleList([t.nn.Linear(2, 2), t.nn.ReLU(), t.nn.Linear(2, 3), t.nn.Tanh()])
    return ml[::2] + t.nn.ModuleList([t.nn.ReLU()])


def _md_edits(t):
    md = t.nn.ModuleDict([("z", t.nn.Linear(2, 2)), ("a", t.nn.ReLU())])
    md.update({"m": t.nn.Linear(2, 3)})
    md.update([("b", t.nn.Tanh())])
    md["z"] = t.nn.Linear(2, 4)
    md.pop("a")
    del md["b"]
    md["c"] = t.nn.Sequential(t.nn.Linear(3, 3))
    return md


def _md_clear(t):
    md = t.nn.ModuleDict({"x": t.nn.Linear(2, 2)})
    md.clear()
    md["y"] = t.nn.Linear(2, 1)
    return md


def _pl_edits(t):
    pl = t.nn.ParameterList([t.zeros(2, 3), t.nn.Parameter(t.ones(3, dtype=t.float64))])
    pl.append(t.nn.Parameter(t.zeros(1), requires_grad=False))
    pl.extend([t.ones(2)])
    pl += [t.zeros(4, 1)]
    pl[-1] = t.ones(5)
    return pl


def _pl_slice(t):
    return _pl_edits(t)[1::2]


def _pd_edits(t):
    pd = t.nn.ParameterDict({"w": t.zeros(2), "b": t.nn.Parameter(t.ones(3))})
    pd.update(OrderedDict([("z", t.zeros(1)), ("a", t.zeros(2, 2, dtype=t.float64))]))
    pd.update([("y", t.ones(4))])
    pd.setdefault("k", t.nn.Parameter(t.zeros(3), requires_grad=False))
    pd.pop("z")
    pd.popitem()
    return pd | t.nn.ParameterDict({"q": t.ones(1)})


CASES = [
    ModCase("Sequential", _seq3, one(5, 4)),
    ModCase("Sequential-OrderedDict", _named, one(5, 4)),
    ModCase("Sequential-empty", lambda t: t.nn.Sequential(), one(2, 3)),
    ModCase("Sequential-slice", lambda t: _seq3(t)[1:], one(5, 3)),
    ModCase("Sequential-slice-named", lambda t: _named(t)[::2], one(5, 4)),
    ModCase("Sequential-negative-index", lambda t: _seq3(t)[-1], one(5, 3)),
    ModCase("Sequential-append-extend-insert", _seq_edits, one(5, 4)),
    ModCase("Sequential-delitem-named", _seq_del, one(5, 4), modes=NO_FORWARD),
    ModCase("Sequential-delitem-slice", _seq_del_slice, one(5, 4)),
    ModCase("Sequential-pop", _seq_pop, one(5, 4)),
    ModCase("Sequential-setitem", _seq_setitem, one(5, 4)),
    ModCase("Sequential-add-iadd", _seq_add, one(5, 4)),
    ModCase("Sequential-mul-shared", _seq_mul, one(5, 3)),
    ModCase("Sequential-rmul-imul", _seq_rmul_imul, one(5, 3)),
    ModCase("Sequential-nested", _nested, one(3, 4)),
    ModCase("Module-with-containers", _net, one(3, 4)),
    ModCase("ModuleList-repeated-repr", lambda t: t.nn.ModuleList([t.nn.Linear(2, 2) for _ in range(3)] + [t.nn.ReLU(), t.nn.ReLU(), t.nn.Linear(2, 2)]), one(1), modes=NO_FORWARD),
    ModCase("ModuleList-empty", lambda t: t.nn.ModuleList(), one(1), modes=NO_FORWARD),
    ModCase("ModuleList-edits", _ml_edits, one(1), modes=NO_FORWARD),
    ModCase("ModuleList-del-pop", _ml_del_pop, one(1), modes=NO_FORWARD),
    ModCase("ModuleList-slice-add", _ml_slice_add, one(1), modes=NO_FORWARD),
    ModCase("ModuleList-nested", lambda t: t.nn.ModuleList([t.nn.ModuleList([t.nn.Linear(2, 2)]), t.nn.Sequential(t.nn.ReLU())]), one(1), modes=NO_FORWARD),
    ModCase("ModuleDict", lambda t: t.nn.ModuleDict({"b": t.nn.Linear(2, 2), "a": t.nn.ReLU()}), one(1), modes=NO_FORWARD),
    ModCase("ModuleDict-edits", _md_edits, one(1), modes=NO_FORWARD),
    ModCase("ModuleDict-clear", _md_clear, one(1), modes=NO_FORWARD),
    ModCase("ParameterList", lambda t: t.nn.ParameterList([t.nn.Parameter(t.zeros(2, 3)), t.nn.Parameter(t.ones(4))]), one(1), modes=NO_FORWARD),
    ModCase("ParameterList-edits", _pl_edits, one(1), modes=NO_FORWARD),
    ModCase("ParameterList-slice", _pl_slice, one(1), modes=NO_FORWARD),
    ModCase("ParameterList-empty", lambda t: t.nn.ParameterList(), one(1), modes=NO_FORWARD),
    ModCase("ParameterDict-sorted-dict", lambda t: t.nn.ParameterDict({"w": t.zeros(2), "b": t.ones(3)}), one(1), modes=NO_FORWARD),
    ModCase("ParameterDict-edits", _pd_edits, one(1), modes=NO_FORWARD),
    ModCase("ParameterDict-empty", lambda t: t.nn.ParameterDict(), one(1), modes=NO_FORWARD),
]
