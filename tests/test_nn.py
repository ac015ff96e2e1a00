"""nn: module mechanics, parameter layouts (state_dict keys and shapes as in PyTorch), layers
against NumPy references, gradchecks, train/eval behaviour."""

from collections import OrderedDict

import numpy as np
import pytest

import ferrotorch as torch
import ferrotorch.nn as nn
import ferrotorch.nn.functional as F
from conftest import to_np


def t64(a, rg=False):
    return torch.tensor(np.asarray(a, dtype=np.float64).tolist(), dtype=torch.float64, requires_grad=rg)


LAYOUTS = [
    (lambda: nn.Linear(3, 4), {"weight": (4, 3), "bias": (4,)}),
    (lambda: nn.Linear(3, 4, bias=False), {"weight": (4, 3)}),
    (lambda: nn.Bilinear(2, 3, 4), {"weight": (4, 2, 3), "bias": (4,)}),
    (lambda: nn.Conv1d(2, 4, 3), {"weight": (4, 2, 3), "bias": (4,)}),
    (lambda: nn.Conv2d(2, 6, (3, 2), groups=2), {"weight": (6, 1, 3, 2), "bias": (6,)}),
    (lambda: nn.ConvTranspose2d(4, 6, 3, groups=2), {"weight": (4, 3, 3, 3), "bias": (6,)}),
    (lambda: nn.BatchNorm1d(5), {"weight": (5,), "bias": (5,), "running_mean": (5,), "running_var": (5,), "num_batches_tracked": ()}),
    (lambda: nn.BatchNorm2d(3, affine=False), {"running_mean": (3,), "running_var": (3,), "num_batches_tracked": ()}),
    (lambda: nn.LayerNorm((4, 5)), {"weight": (4, 5), "bias": (4, 5)}),
    (lambda: nn.GroupNorm(2, 4), {"weight": (4,), "bias": (4,)}),
    (lambda: nn.RMSNorm(6), {"weight": (6,)}),
    (lambda: nn.Embedding(10, 3), {"weight": (10, 3)}),
    (lambda: nn.RNN(3, 4), {"weight_ih_l0": (4, 3), "weight_hh_l0": (4, 4), "bias_ih_l0": (4,), "bias_hh_l0": (4,)}),
    (lambda: nn.LSTM(3, 4, num_layers=2), {f"{w}_l{k}": s for k in range(2) for w, s in [("weight_ih", (16, 3 if k == 0 else 4)), ("weight_hh", (16, 4)), ("bias_ih", (16,)), ("bias_hh", (16,))]}),
    (lambda: nn.GRU(3, 4, bidirectional=True), {f"{w}_l0{sfx}": s for sfx in ("", "_reverse") for w, s in [("weight_ih", (12, 3)), ("weight_hh", (12, 4)), ("bias_ih", (12,)), ("bias_hh", (12,))]}),
    (lambda: nn.MultiheadAttention(8, 2), {"in_proj_weight": (24, 8), "in_proj_bias": (24,), "out_proj.weight": (8, 8), "out_proj.bias": (8,)}),
]


@pytest.mark.parametrize("make,expected", LAYOUTS, ids=[str(i) for i in range(len(LAYOUTS))])
def test_state_dict_keys_and_shapes_match_pytorch(make, expected):
    sd = make().state_dict()
    assert {k: tuple(v.shape) for k, v in sd.items()} == expected


def test_transformer_encoder_layer_keys():
    layer = nn.TransformerEncoderLayer(8, 2, dim_feedforward=16)
    keys = list(layer.state_dict())
    assert keys == ["self_attn.in_proj_weight", "self_attn.in_proj_bias", "self_attn.out_proj.weight", "self_attn.out_proj.bias", "linear1.weight", "linear1.bias", "linear2.weight", "linear2.bias", "norm1.weight", "norm1.bias", "norm2.weight", "norm2.bias"]
    enc = nn.TransformerEncoder(layer, 2)
    assert "layers.1.linear2.bias" in enc.state_dict()
    assert enc(torch.randn(5, 3, 8)).shape == (5, 3, 8)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(2, 3)
        self.blocks = nn.Sequential(nn.ReLU(), nn.Linear(3, 1))
        self.register_buffer("steps", torch.zeros(()))
        self.register_buffer("cache", torch.zeros(2), persistent=False)

    def forward(self, x):
        return self.blocks(self.fc(x))


def test_module_registration_and_traversal():
    n = Net()
    assert [k for k, _ in n.named_parameters()] == ["fc.weight", "fc.bias", "blocks.1.weight", "blocks.1.bias"]
    assert [k for k, _ in n.named_buffers()] == ["steps", "cache"]
    assert list(n.state_dict()) == ["steps", "fc.weight", "fc.bias", "blocks.1.weight", "blocks.1.bias"]
    assert [k for k, _ in n.named_modules()] == ["", "fc", "blocks", "blocks.0", "blocks.1"]
    assert len(list(n.children())) == 2
    assert n.get_submodule("blocks.1") is n.blocks[1]


def test_repr_like_pytorch():
    m = nn.Sequential(nn.Linear(2, 3), nn.ReLU())
    assert repr(m) == "Sequential(\n  (0): Linear(in_features=2, out_features=3, bias=True)\n  (1): ReLU()\n)"
    assert repr(nn.Conv2d(1, 32, 3, padding=1)) == "Conv2d(1, 32, kernel_size=(3, 3), stride=(1, 1), padding=(1, 1))"
    assert repr(nn.Dropout(0.2)) == "Dropout(p=0.2, inplace=False)"


def test_load_state_dict_strict_and_non_strict():
    a, b = Net(), Net()
    b.load_state_dict(a.state_dict())
    assert b.fc.weight.tolist() == a.fc.weight.tolist()
    sd = a.state_dict()
    sd.pop("fc.bias")
    sd["extra"] = torch.zeros(1)
    with pytest.raises(RuntimeError, match=r'Error\(s\) in loading state_dict for Net:\n\tMissing key\(s\) in state_dict: "fc.bias"'):
        b.load_state_dict(sd)
    res = b.load_state_dict(sd, strict=False)
    assert res.missing_keys == ["fc.bias"] and res.unexpected_keys == ["extra"]
    bad = a.state_dict()
    bad["fc.weight"] = torch.zeros(5, 5)
    with pytest.raises(RuntimeError, match="size mismatch for fc.weight"):
        b.load_state_dict(bad)


def test_train_eval_zero_grad_requires_grad_apply_to():
    n = Net()
    n.eval()
    assert not n.training and not n.blocks[1].training
    n.train()
    n(torch.ones(1, 2)).sum().backward()
    assert n.fc.weight.grad is not None
    n.zero_grad()
    assert n.fc.weight.grad is None
    n.requires_grad_(False)
    assert not any(p.requires_grad for p in n.parameters())
    seen = []
    n.apply(lambda m: seen.append(type(m).__name__))
    assert seen[-1] == "Net"
    n.double()
    assert n.fc.weight.dtype == torch.float64 and n.steps.dtype == torch.float64


def test_hooks():
    lin = nn.Linear(2, 2)
    calls = []
    h1 = lin.register_forward_pre_hook(lambda m, args: calls.append("pre"))
    h2 = lin.register_forward_hook(lambda m, args, out: out * 0)
    assert lin(torch.ones(1, 2)).tolist() == [[0.0, 0.0]] and calls == ["pre"]
    h1.remove()
    h2.remove()
    assert lin(torch.ones(1, 2)).abs().sum().item() > 0
    grads = []
    lin.register_full_backward_hook(lambda m, gi, go: grads.append((gi[0].shape, go[0].shape)))
    x = torch.ones(3, 2, requires_grad=True)
    lin(x).sum().backward()
    assert grads == [((3, 2), (3, 2))]


def test_containers():
    ml = nn.ModuleList([nn.Linear(1, 1) for _ in range(3)])
    ml.append(nn.ReLU())
    assert len(ml) == 4 and isinstance(ml[-1], nn.ReLU) and len(list(ml.parameters())) == 6
    md = nn.ModuleDict({"a": nn.Linear(1, 2)})
    md["b"] = nn.Tanh()
    assert list(md.keys()) == ["a", "b"]
    seq = nn.Sequential(OrderedDict([("l1", nn.Linear(2, 2)), ("act", nn.ReLU())]))
    assert list(seq.state_dict()) == ["l1.weight", "l1.bias"] and isinstance(seq[0:1], nn.Sequential)
    pl = nn.ParameterList([nn.Parameter(torch.ones(2)), torch.zeros(3)])
    assert [k for k, _ in pl.named_parameters()] == ["0", "1"]


def test_parameter():
    p = nn.Parameter(torch.ones(2))
    assert isinstance(p, torch.Tensor) and p.requires_grad and p.is_leaf
    assert repr(p).startswith("Parameter containing:\ntensor([1., 1.]")
    import copy

    q = copy.deepcopy(p)
    assert isinstance(q, nn.Parameter) and q.data_ptr() != p.data_ptr()


def test_linear_and_activations_against_numpy():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((4, 3))
    lin = nn.Linear(3, 2).double()
    w, b = to_np(lin.weight.detach()), to_np(lin.bias.detach())
    np.testing.assert_allclose(to_np(lin(t64(x)).detach()), x @ w.T + b, rtol=1e-12)
    checks = [
        (nn.ReLU(), lambda v: np.maximum(v, 0)),
        (nn.LeakyReLU(0.2), lambda v: np.where(v > 0, v, 0.2 * v)),
        (nn.ELU(), lambda v: np.where(v > 0, v, np.expm1(v))),
        (nn.SiLU(), lambda v: v / (1 + np.exp(-v))),
        (nn.Mish(), lambda v: v * np.tanh(np.log1p(np.exp(v)))),
        (nn.Tanh(), np.tanh),
        (nn.Sigmoid(), lambda v: 1 / (1 + np.exp(-v))),
        (nn.Softplus(), lambda v: np.log1p(np.exp(v))),
        (nn.Hardtanh(), lambda v: np.clip(v, -1, 1)),
        (nn.Softmax(1), lambda v: np.exp(v) / np.exp(v).sum(1, keepdims=True)),
        (nn.LogSoftmax(1), lambda v: v - np.log(np.exp(v).sum(1, keepdims=True))),
        (nn.Flatten(0), lambda v: v.reshape(-1)),
        (nn.Identity(), lambda v: v),
    ]
    for mod, ref in checks:
        np.testing.assert_allclose(to_np(mod(t64(x))), ref(x), rtol=1e-10, atol=1e-12, err_msg=type(mod).__name__)
        xs = t64(x[:2], True)
        assert torch.autograd.gradcheck(mod, (xs,)), type(mod).__name__


def test_dropout_train_eval_and_scaling():
    torch.manual_seed(0)
    d = nn.Dropout(0.25)
    x = torch.ones(20000)
    y = d(x)
    vals = set(y.tolist())
    assert {round(v, 5) for v in vals} <= {0.0, round(1.0 / 0.75, 5)} and abs(y.mean().item() - 1.0) < 0.03
    d.eval()
    assert d(x).tolist() == x.tolist()
    with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1"):
        nn.Dropout(1.5)


def test_embedding_padding_idx():
    e = nn.Embedding(5, 3, padding_idx=1)
    assert e.weight[1].tolist() == [0.0, 0.0, 0.0]
    out = e(torch.tensor([[1, 2], [1, 4]]))
    assert out.shape == (2, 2, 3)
    out.sum().backward()
    assert e.weight.grad[1].tolist() == [0.0, 0.0, 0.0] and e.weight.grad[2].tolist() == [1.0, 1.0, 1.0]


def test_batchnorm_module_running_stats():
    bn = nn.BatchNorm1d(3, momentum=0.5)
    x = torch.tensor([[1.0, 2.0, 3.0], [3.0, 6.0, 9.0]])
    bn(x)
    assert bn.running_mean.tolist() == [1.0, 2.0, 3.0]
    assert bn.num_batches_tracked.item() == 1
    bn.eval()
    y = bn(x)
    assert y.shape == (2, 3)


def test_rnn_matches_manual_recurrence():
    torch.manual_seed(0)
    rnn = nn.RNN(2, 3, batch_first=True).double()
    x = torch.randn(1, 4, 2, dtype=torch.float64)
    out, h = rnn(x)
    wi, wh, bi, bh = (to_np(getattr(rnn, n).detach()) for n in ("weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0"))
    hh = np.zeros(3)
    xs = to_np(x)[0]
    for t in range(4):
        hh = np.tanh(wi @ xs[t] + bi + wh @ hh + bh)
    np.testing.assert_allclose(to_np(h.detach())[0, 0], hh, rtol=1e-12)
    np.testing.assert_allclose(to_np(out.detach())[0, -1], hh, rtol=1e-12)


def test_lstm_gru_shapes_and_gradcheck():
    torch.manual_seed(1)
    lstm = nn.LSTM(2, 3, num_layers=2, bidirectional=True).double()
    out, (h, c) = lstm(torch.randn(5, 4, 2, dtype=torch.float64))
    assert out.shape == (5, 4, 6) and h.shape == (4, 4, 3) and c.shape == (4, 4, 3)
    gru = nn.GRU(2, 2).double()
    x = torch.randn(3, 1, 2, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(lambda t: gru(t)[0], (x,))
    l1 = nn.LSTM(2, 2).double()
    assert torch.autograd.gradcheck(lambda t: l1(t)[1][1], (x,))
    out2, h2 = nn.GRU(2, 3)(torch.randn(4, 2))
    assert out2.shape == (4, 3) and h2.shape == (1, 3)


def test_multihead_attention_matches_manual_and_masks():
    torch.manual_seed(2)
    mha = nn.MultiheadAttention(4, 2, batch_first=True).double()
    x = torch.randn(1, 3, 4, dtype=torch.float64)
    out, w = mha(x, x, x)
    assert out.shape == (1, 3, 4) and w.shape == (1, 3, 3)
    np.testing.assert_allclose(to_np(w.detach().sum(-1)), np.ones((1, 3)), rtol=1e-12)
    causal = torch.triu(torch.ones(3, 3, dtype=torch.bool), diagonal=1)
    _, wc = mha(x, x, x, attn_mask=causal)
    assert wc[0, 0, 1].item() == 0.0 and wc[0, 0, 2].item() == 0.0
    sdpa = F.scaled_dot_product_attention(x, x, x, is_causal=True)
    assert sdpa.shape == (1, 3, 4)
    assert torch.autograd.gradcheck(lambda t: mha(t, t, t)[0], (x.clone().requires_grad_(),))


LOSS_CASES = [
    ("mse", lambda i, t: F.mse_loss(i, t), lambda i, t: ((i - t) ** 2).mean()),
    ("l1_sum", lambda i, t: F.l1_loss(i, t, reduction="sum"), lambda i, t: np.abs(i - t).sum()),
    ("smooth_l1", lambda i, t: F.smooth_l1_loss(i, t, beta=0.5), lambda i, t: np.where(np.abs(i - t) < 0.5, 0.5 * (i - t) ** 2 / 0.5, np.abs(i - t) - 0.25).mean()),
    ("huber", lambda i, t: F.huber_loss(i, t, delta=0.7), lambda i, t: np.where(np.abs(i - t) < 0.7, 0.5 * (i - t) ** 2, 0.7 * (np.abs(i - t) - 0.35)).mean()),
]


@pytest.mark.parametrize("name,fn,ref", LOSS_CASES, ids=[c[0] for c in LOSS_CASES])
def test_regression_losses(name, fn, ref):
    rng = np.random.default_rng(3)
    i, t = rng.standard_normal((3, 4)), rng.standard_normal((3, 4))
    np.testing.assert_allclose(fn(t64(i), t64(t)).item(), ref(i, t), rtol=1e-12)
    assert torch.autograd.gradcheck(lambda a: fn(a, t64(t)), (t64(i, True),))


def np_log_softmax(x):
    m = x.max(1, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(1, keepdims=True))


def test_cross_entropy_variants():
    rng = np.random.default_rng(4)
    x = rng.standard_normal((5, 4))
    y = np.array([0, 3, 1, 1, 2])
    w = np.array([1.0, 2.0, 0.5, 1.5])
    lp = np_log_softmax(x)
    ref = -(lp[np.arange(5), y] * w[y]).sum() / w[y].sum()
    assert abs(F.cross_entropy(t64(x), torch.tensor(y.tolist()), weight=t64(w)).item() - ref) < 1e-12
    yi = np.array([0, -100, 1, 1, 2])
    keep = yi != -100
    ref_ign = -(lp[np.arange(5)[keep], yi[keep]]).mean()
    assert abs(F.cross_entropy(t64(x), torch.tensor(yi.tolist())).item() - ref_ign) < 1e-12
    eps = 0.1
    smooth = (1 - eps) * -(lp[np.arange(5), y]).mean() + eps / 4 * -(lp.sum(1)).mean()
    assert abs(F.cross_entropy(t64(x), torch.tensor(y.tolist()), label_smoothing=eps).item() - smooth) < 1e-12
    p = np.exp(rng.standard_normal((5, 4)))
    p /= p.sum(1, keepdims=True)
    assert abs(F.cross_entropy(t64(x), t64(p)).item() - (-(p * lp).sum(1).mean())) < 1e-12
    none = F.cross_entropy(t64(x), torch.tensor(y.tolist()), reduction="none")
    np.testing.assert_allclose(to_np(none), -lp[np.arange(5), y], rtol=1e-12)
    x3 = rng.standard_normal((2, 3, 4))
    y3 = rng.integers(0, 3, (2, 4))
    lp3 = x3 - np.log(np.exp(x3).sum(1, keepdims=True))
    ref3 = -np.mean([lp3[n, y3[n, k], k] for n in range(2) for k in range(4)])
    assert abs(F.cross_entropy(t64(x3), torch.tensor(y3.tolist())).item() - ref3) < 1e-12
    assert torch.autograd.gradcheck(lambda a: F.cross_entropy(a, torch.tensor(y.tolist()), weight=t64(w), label_smoothing=0.2), (t64(x, True),))
    with pytest.raises(IndexError, match="out of bounds"):
        F.cross_entropy(t64(x), torch.tensor([0, 9, 1, 1, 2]))


def test_bce_kl_cosine_losses():
    rng = np.random.default_rng(5)
    z = rng.standard_normal((4, 3))
    t = (rng.random((4, 3)) > 0.5).astype(np.float64)
    pw = np.array([1.0, 2.0, 3.0])
    s = 1 / (1 + np.exp(-z))
    ref = -(pw * t * np.log(s) + (1 - t) * np.log(1 - s)).mean()
    assert abs(F.binary_cross_entropy_with_logits(t64(z), t64(t), pos_weight=t64(pw)).item() - ref) < 1e-12
    assert abs(F.binary_cross_entropy(t64(s), t64(t)).item() - (-(t * np.log(s) + (1 - t) * np.log(1 - s)).mean())) < 1e-12
    lq = np_log_softmax(z)
    p = np.exp(np_log_softmax(rng.standard_normal((4, 3))))
    assert abs(F.kl_div(t64(lq), t64(p), reduction="batchmean").item() - (p * (np.log(p) - lq)).sum() / 4) < 1e-12
    a, b = rng.standard_normal((4, 3)), rng.standard_normal((4, 3))
    y = np.array([1, -1, 1, -1])
    cos = (a * b).sum(1) / np.sqrt((a * a).sum(1) * (b * b).sum(1))
    ref = np.where(y == 1, 1 - cos, np.maximum(cos - 0.1, 0)).mean()
    assert abs(F.cosine_embedding_loss(t64(a), t64(b), torch.tensor(y.tolist()), margin=0.1).item() - ref) < 1e-9
    assert torch.autograd.gradcheck(lambda q: F.binary_cross_entropy_with_logits(q, t64(t), pos_weight=t64(pw)), (t64(z, True),))


def test_functional_helpers():
    assert F.one_hot(torch.tensor([0, 2])).tolist() == [[1, 0, 0], [0, 0, 1]]
    n = F.normalize(torch.tensor([[3.0, 4.0]]))
    np.testing.assert_allclose(to_np(n), [[0.6, 0.8]], rtol=1e-6)
    assert F.pad(torch.ones(1, 2), (1, 1)).tolist() == [[0.0, 1.0, 1.0, 0.0]]


def test_init_functions():
    torch.manual_seed(0)
    w = torch.empty(300, 200)
    nn.init.xavier_uniform_(w)
    bound = (6 / 500) ** 0.5
    assert w.abs().max().item() <= bound and w.std().item() > bound / 2
    nn.init.kaiming_normal_(w, mode="fan_out", nonlinearity="relu")
    assert abs(w.std().item() - (2 / 300) ** 0.5) < 0.005
    nn.init.constant_(w, 0.5)
    assert w.mean().item() == 0.5
    q = nn.init.orthogonal_(torch.empty(4, 6))
    np.testing.assert_allclose(to_np(q @ q.t()), np.eye(4), atol=1e-5)
    nn.init.trunc_normal_(w, std=1.0, a=-0.5, b=0.5)
    assert w.abs().max().item() <= 0.5
    assert nn.init.calculate_gain("leaky_relu", 0.2) == (2 / 1.04) ** 0.5


def test_clip_grad_and_vectors():
    p = nn.Parameter(torch.tensor([3.0, 4.0]))
    p.grad = torch.tensor([3.0, 4.0])
    total = nn.utils.clip_grad_norm_([p], 1.0)
    assert abs(total.item() - 5.0) < 1e-6 and abs(p.grad.norm().item() - 1.0) < 1e-5
    p.grad = torch.tensor([-3.0, 0.5])
    nn.utils.clip_grad_value_([p], 1.0)
    assert p.grad.tolist() == [-1.0, 0.5]
    lin = nn.Linear(2, 2)
    v = nn.utils.parameters_to_vector(lin.parameters())
    assert v.shape == (6,)
    nn.utils.vector_to_parameters(torch.zeros(6), lin.parameters())
    assert lin.weight.sum().item() == 0
