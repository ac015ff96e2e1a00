"""Training on the GPU as a PyTorch program does it: ``model.to("cuda")``, batches moved with
``.to(device)``, loss, ``backward()``, an optimizer step. Three steps of each model run on the
CPU and on CUDA from the same float64 weights; the losses and the trained weights agree.

Skips cleanly where no CUDA device is available."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest

import ferrotorch as torch

pytestmark = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
nn, F = torch.nn, torch.nn.functional


def mlp() -> Any:
    return nn.Sequential(nn.Linear(20, 32), nn.ReLU(), nn.Linear(32, 32), nn.GELU(), nn.Linear(32, 5))


class SmallCNN(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.c1 = nn.Conv2d(1, 4, 3, padding=1)
        self.bn = nn.BatchNorm2d(4)
        self.c2 = nn.Conv2d(4, 8, 3, stride=2, bias=False)
        self.fc = nn.Linear(8 * 2 * 2, 5)

    def forward(self, x: Any) -> Any:
        x = F.max_pool2d(F.relu(self.bn(self.c1(x))), 2)
        return self.fc(F.silu(self.c2(x)).flatten(1))


class TinyGPT(nn.Module):
    def __init__(self, vocab: int = 11, d: int = 16, ctx: int = 8) -> None:
        super().__init__()
        self.tok, self.pos = nn.Embedding(vocab, d), nn.Embedding(ctx, d)
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.attn = nn.MultiheadAttention(d, 2, batch_first=True)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(approximate="tanh"), nn.Linear(4 * d, d))
        self.head = nn.Linear(d, vocab)
        self.register_buffer("mask", torch.triu(torch.ones(ctx, ctx, dtype=torch.bool), diagonal=1), persistent=False)

    def forward(self, idx: Any) -> Any:
        x = self.tok(idx) + self.pos(torch.arange(idx.shape[1], device=idx.device))
        h = self.ln1(x)
        x = x + self.attn(h, h, h, attn_mask=self.mask, need_weights=False)[0]
        x = x + self.mlp(self.ln2(x))
        return self.head(x)


def batches(kind: str) -> list:
    torch.manual_seed(1)
    if kind == "mlp":
        return [(torch.randn(16, 20, dtype=torch.float64), torch.randint(0, 5, (16,))) for _ in range(3)]
    if kind == "cnn":
        return [(torch.randn(4, 1, 12, 12, dtype=torch.float64), torch.randint(0, 5, (4,))) for _ in range(3)]
    return [(torch.randint(0, 11, (3, 8)), torch.randint(0, 11, (3, 8))) for _ in range(3)]


CASES: dict = {
    "mlp-sgd-momentum": (mlp, "mlp", lambda p: torch.optim.SGD(p, lr=0.1, momentum=0.9, nesterov=True, weight_decay=1e-3)),
    "cnn-adam": (SmallCNN, "cnn", lambda p: torch.optim.Adam(p, lr=1e-2, amsgrad=True)),
    "gpt-adamw": (TinyGPT, "gpt", lambda p: torch.optim.AdamW(p, lr=1e-2, weight_decay=0.1)),
    "mlp-rmsprop": (mlp, "mlp", lambda p: torch.optim.RMSprop(p, lr=1e-2, momentum=0.5, centered=True)),
}


def train(build: Callable[[], Any], kind: str, make_opt: Callable, device: str) -> tuple:
    torch.manual_seed(0)
    model = build().double().to(device)
    opt = make_opt(model.parameters())
    losses = []
    for x, y in batches(kind):
        x, y = x.to(device), y.to(device)
        opt.zero_grad()
        out = model(x)
        loss = F.cross_entropy(out.reshape(-1, out.shape[-1]), y.reshape(-1), label_smoothing=0.05)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses, {k: v.detach().cpu().numpy() for k, v in model.state_dict().items()}


@pytest.mark.parametrize("case", list(CASES))
def test_training_on_cuda_matches_the_cpu(case: str) -> None:
    build, kind, make_opt = CASES[case]
    cpu_losses, cpu_state = train(build, kind, make_opt, "cpu")
    dev_losses, dev_state = train(build, kind, make_opt, "cuda")
    np.testing.assert_allclose(dev_losses, cpu_losses, rtol=1e-9)
    assert cpu_state.keys() == dev_state.keys()
    for k in cpu_state:
        np.testing.assert_allclose(dev_state[k], cpu_state[k], rtol=1e-7, atol=1e-9, err_msg=k)


def test_module_to_moves_parameters_buffers_and_gradients() -> None:
    model = SmallCNN()
    model(torch.randn(2, 1, 12, 12)).sum().backward()
    params = list(model.parameters())
    assert model.to("cuda") is model
    assert all(p.device.type == "cuda" for p in model.parameters())
    assert all(b.device.type == "cuda" for b in model.buffers())
    assert all(p.grad.device.type == "cuda" for p in model.parameters())
    # The same Parameter objects (an optimizer made before .to() keeps stepping them).
    assert all(a is b for a, b in zip(params, model.parameters()))
    assert model.bn.num_batches_tracked.dtype == torch.int64
    model.to(torch.float64)
    assert model.c1.weight.dtype == torch.float64 and model.bn.num_batches_tracked.dtype == torch.int64
    model.cpu()
    assert all(t.device.type == "cpu" for t in list(model.parameters()) + list(model.buffers()))
    model.cuda()
    assert model.fc.weight.is_cuda
