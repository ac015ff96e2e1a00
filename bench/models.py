"""The training-step benchmarks, written once against the PyTorch API and run with either
library (``lib`` is the module: ferrotorch or torch) on ``device`` (bench/gpu.py passes "cuda")."""

from __future__ import annotations

from typing import Any, Callable


def mlp(lib: Any, device: str = "cpu") -> Callable[[], None]:
    nn = lib.nn
    lib.manual_seed(0)
    model = nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 10)).to(device)
    opt = lib.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    x, y = lib.randn(128, 784).to(device), lib.randint(0, 10, (128,)).to(device)

    def step() -> None:
        opt.zero_grad()
        nn.functional.cross_entropy(model(x), y).backward()
        opt.step()

    return step


def digits_cnn(lib: Any) -> Any:
    """The digits CNN (1x28x28 in, 10 classes): two 3x3 conv + max pool, then 3136-128-10."""
    nn = lib.nn
    F = nn.functional

    class Net(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.c1 = nn.Conv2d(1, 32, 3, padding=1)
            self.c2 = nn.Conv2d(32, 64, 3, padding=1)
            self.f1 = nn.Linear(3136, 128)
            self.f2 = nn.Linear(128, 10)

        def forward(self, x: Any) -> Any:
            x = F.max_pool2d(F.relu(self.c1(x)), 2)
            x = F.max_pool2d(F.relu(self.c2(x)), 2)
            return self.f2(F.relu(self.f1(x.flatten(1))))

    return Net()


def cnn(lib: Any, device: str = "cpu") -> Callable[[], None]:
    F = lib.nn.functional
    lib.manual_seed(0)
    model = digits_cnn(lib).to(device)
    opt = lib.optim.Adam(model.parameters(), lr=1e-3)
    x, y = lib.randn(64, 1, 28, 28).to(device), lib.randint(0, 10, (64,)).to(device)

    def step() -> None:
        opt.zero_grad()
        F.cross_entropy(model(x), y).backward()
        opt.step()

    return step


def gpt(lib: Any, device: str = "cpu") -> Callable[[], None]:
    nn = lib.nn
    F = nn.functional
    lib.manual_seed(0)
    d, heads, layers, ctx, vocab, batch = 128, 4, 4, 64, 65, 16

    class Block(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
            self.attn = nn.MultiheadAttention(d, heads, batch_first=True)
            self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))
            self.register_buffer("mask", lib.triu(lib.ones(ctx, ctx, dtype=lib.bool), diagonal=1), persistent=False)

        def forward(self, x: Any) -> Any:
            h = self.ln1(x)
            x = x + self.attn(h, h, h, attn_mask=self.mask, need_weights=False)[0]
            return x + self.mlp(self.ln2(x))

    class GPT(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.tok, self.pos = nn.Embedding(vocab, d), nn.Embedding(ctx, d)
            self.blocks = nn.Sequential(*[Block() for _ in range(layers)])
            self.ln, self.head = nn.LayerNorm(d), nn.Linear(d, vocab)

        def forward(self, idx: Any) -> Any:
            x = self.tok(idx) + self.pos(lib.arange(idx.shape[1], device=idx.device))
            return self.head(self.ln(self.blocks(x)))

    model = GPT().to(device)
    opt = lib.optim.AdamW(model.parameters(), lr=3e-4)
    x, y = lib.randint(0, vocab, (batch, ctx)).to(device), lib.randint(0, vocab, (batch, ctx)).to(device)

    def step() -> None:
        opt.zero_grad()
        F.cross_entropy(model(x).reshape(-1, vocab), y.reshape(-1)).backward()
        opt.step()

    return step


BUILDERS = {"MLP 784-512-512-10, SGD momentum, batch 128": mlp, "CNN 32/64 conv + 3136-128-10, Adam, batch 64": cnn, "GPT 4 layers d128 ctx64, AdamW, batch 16": gpt}
