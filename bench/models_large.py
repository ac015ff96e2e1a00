"""The larger benchmarks of the ``large`` group, written once against the PyTorch API and run
with either library (``lib`` is the module: ferrotorch or torch).

Each builder returns a closure doing one step (a training step, an inference call or an
attention forward + backward). Before returning it runs ``warmup`` steps, so timing sees the
steady state (buffers allocated, optimizer state created, compiled code built); the peak-RSS
measurement builds with ``warmup=0`` so that its "steps" column counts those allocations as
it does for bench/models.py's steps. Each closure carries ``n_params`` (parameter count, to
check both libraries build the same model) and ``losses`` (the losses it computed).
"""

from __future__ import annotations

from typing import Any, Callable, List

Step = Callable[[], Any]


def _count(model: Any) -> int:
    return sum(p.numel() for p in model.parameters())


def _finish(step: Step, model: Any, warmup: int, losses: List[float]) -> Step:
    """Runs ``warmup`` steps and attaches ``n_params`` and ``losses`` to ``step``."""
    for _ in range(warmup):
        step()
    step.n_params = _count(model) if model is not None else 0  # type: ignore[attr-defined]
    step.losses = losses  # type: ignore[attr-defined]
    return step


def resnet18_net(lib: Any, num_classes: int = 10) -> Any:
    """CIFAR-style ResNet-18: 3x3 stride-1 stem without max pool, BasicBlock x [2, 2, 2, 2]
    at 64, 128, 256, 512 channels, 1x1 stride-2 projection shortcuts, global average pool."""
    nn = lib.nn
    F = nn.functional

    class BasicBlock(nn.Module):
        def __init__(self, c_in: int, c_out: int, stride: int) -> None:
            super().__init__()
            self.conv1 = nn.Conv2d(c_in, c_out, 3, stride=stride, padding=1, bias=False)
            self.bn1 = nn.BatchNorm2d(c_out)
            self.conv2 = nn.Conv2d(c_out, c_out, 3, stride=1, padding=1, bias=False)
            self.bn2 = nn.BatchNorm2d(c_out)
            self.shortcut = nn.Sequential()
            if stride != 1 or c_in != c_out:
                self.shortcut = nn.Sequential(nn.Conv2d(c_in, c_out, 1, stride=stride, bias=False), nn.BatchNorm2d(c_out))

        def forward(self, x: Any) -> Any:
            out = F.relu(self.bn1(self.conv1(x)))
            out = self.bn2(self.conv2(out))
            return F.relu(out + self.shortcut(x))

    class ResNet18(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.conv1 = nn.Conv2d(3, 64, 3, stride=1, padding=1, bias=False)
            self.bn1 = nn.BatchNorm2d(64)
            layers, c_in = [], 64
            for c_out, stride in ((64, 1), (128, 2), (256, 2), (512, 2)):
                layers.append(nn.Sequential(BasicBlock(c_in, c_out, stride), BasicBlock(c_out, c_out, 1)))
                c_in = c_out
            self.layer1, self.layer2, self.layer3, self.layer4 = layers
            self.pool = nn.AdaptiveAvgPool2d((1, 1))
            self.fc = nn.Linear(512, num_classes)

        def forward(self, x: Any) -> Any:
            x = F.relu(self.bn1(self.conv1(x)))
            x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
            return self.fc(self.pool(x).flatten(1))

    return ResNet18()


def resnet18(lib: Any, warmup: int = 1) -> Step:
    """ResNet-18 training step on 32x32 images: batch 32, 10 classes, SGD momentum 0.9,
    lr 0.1, weight decay 5e-4, CrossEntropyLoss."""
    nn = lib.nn
    lib.manual_seed(0)
    model = resnet18_net(lib)
    model.train()
    opt = lib.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=5e-4)
    loss_fn = nn.CrossEntropyLoss()
    x, y = lib.randn(32, 3, 32, 32), lib.randint(0, 10, (32,))
    losses: List[float] = []

    def step() -> Any:
        opt.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
        return loss

    return _finish(step, model, warmup, losses)


GPT_D, GPT_HEADS, GPT_LAYERS, GPT_CTX, GPT_VOCAB, GPT_BATCH = 384, 6, 6, 256, 65, 8


def gpt_d384_net(lib: Any) -> Any:
    """Char-level GPT: 6 pre-LayerNorm blocks, d_model 384, 6 heads, context 256, vocab 65;
    causal self-attention through F.scaled_dot_product_attention(is_causal=True)."""
    nn = lib.nn
    F = nn.functional
    d, heads, ctx, vocab = GPT_D, GPT_HEADS, GPT_CTX, GPT_VOCAB

    class CausalSelfAttention(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.qkv = nn.Linear(d, 3 * d)
            self.proj = nn.Linear(d, d)

        def forward(self, x: Any) -> Any:
            b, t, _ = x.shape
            q, k, v = self.qkv(x).view(b, t, 3, heads, d // heads).permute(2, 0, 3, 1, 4).unbind(0)
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            return self.proj(y.transpose(1, 2).reshape(b, t, d))

    class Block(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
            self.attn = CausalSelfAttention()
            self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))

        def forward(self, x: Any) -> Any:
            x = x + self.attn(self.ln1(x))
            return x + self.mlp(self.ln2(x))

    class GPT(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.tok, self.pos = nn.Embedding(vocab, d), nn.Embedding(ctx, d)
            self.blocks = nn.Sequential(*[Block() for _ in range(GPT_LAYERS)])
            self.ln, self.head = nn.LayerNorm(d), nn.Linear(d, vocab)

        def forward(self, idx: Any) -> Any:
            x = self.tok(idx) + self.pos(lib.arange(idx.shape[1]))
            return self.head(self.ln(self.blocks(x)))

    return GPT()


def gpt_d384(lib: Any, warmup: int = 1, compiled: bool = False) -> Step:
    """GPT-d384 training step: batch 8 x 256 tokens, AdamW lr 3e-4. With ``compiled`` the
    model goes through ``lib.compile`` (the optimizer still steps the original parameters);
    its warm-up then also builds the compiled forward and backward."""
    F = lib.nn.functional
    lib.manual_seed(0)
    model = gpt_d384_net(lib)
    run = lib.compile(model) if compiled else model
    opt = lib.optim.AdamW(model.parameters(), lr=3e-4)
    x = lib.randint(0, GPT_VOCAB, (GPT_BATCH, GPT_CTX))
    y = lib.randint(0, GPT_VOCAB, (GPT_BATCH, GPT_CTX))
    losses: List[float] = []

    def step() -> Any:
        opt.zero_grad()
        loss = F.cross_entropy(run(x).reshape(-1, GPT_VOCAB), y.reshape(-1))
        loss.backward()
        opt.step()
        losses.append(loss.item())
        return loss

    return _finish(step, model, warmup, losses)


def gpt_d384_compiled(lib: Any, warmup: int = 2) -> Step:
    """gpt_d384 through ``lib.compile``; two warm-up steps (compile, then a steady step)."""
    return gpt_d384(lib, warmup=warmup, compiled=True)


def cnn_infer(lib: Any, warmup: int = 3) -> Step:
    """Inference latency of bench/models.py's digits CNN at batch 1: eval mode, no_grad."""
    from bench.models import digits_cnn

    lib.manual_seed(0)
    model = digits_cnn(lib)
    model.eval()
    x = lib.randn(1, 1, 28, 28)

    def step() -> Any:
        with lib.no_grad():
            return model(x)

    return _finish(step, model, warmup, [])


def sdpa(lib: Any, t: int, warmup: int = 1) -> Step:
    """F.scaled_dot_product_attention forward + backward, causal, float32, batch 4, 6 heads,
    head dim 64, sequence length ``t`` (the gradients of q, k and v accumulate)."""
    F = lib.nn.functional
    lib.manual_seed(0)
    q, k, v = (lib.randn(4, 6, t, 64, requires_grad=True) for _ in range(3))

    def step() -> Any:
        out = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        out.sum().backward()
        return out

    return _finish(step, None, warmup, [])


# Training steps: also measured by bench/peak_rss.py (built with warmup=0 there).
TRAIN_BUILDERS = {
    "ResNet-18 CIFAR 32x32, SGD momentum, batch 32": resnet18,
    "GPT 6 layers d384 ctx256 SDPA, AdamW, batch 8": gpt_d384,
}
