"""Trains a small character-level GPT on text that ships with Python (the Zen of Python and
the source of the ``textwrap`` module), shows the loss falling, and samples from it.

Run: python examples/char_gpt.py [--steps 300]
"""

from __future__ import annotations

import argparse
import codecs
import inspect
import math
import textwrap
import time

from tqdm import tqdm

import ferrotorch as torch
import ferrotorch.nn as nn
import ferrotorch.nn.functional as F


def corpus() -> str:
    import this  # noqa: F401  (prints the Zen once on import)

    zen = codecs.decode(this.s, "rot13")
    return zen + "\n\n" + inspect.getsource(textwrap)


class Block(nn.Module):
    """Pre-norm transformer block: causal self-attention then an MLP, each with a residual."""

    def __init__(self, d: int, heads: int, context: int) -> None:
        super().__init__()
        self.ln1 = nn.LayerNorm(d)
        self.attn = nn.MultiheadAttention(d, heads, batch_first=True)
        self.ln2 = nn.LayerNorm(d)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))
        mask = torch.triu(torch.ones(context, context, dtype=torch.bool), diagonal=1)
        self.register_buffer("mask", mask, persistent=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        t = x.shape[1]
        h = self.ln1(x)
        x = x + self.attn(h, h, h, attn_mask=self.mask[:t, :t], need_weights=False)[0]
        out: torch.Tensor = x + self.mlp(self.ln2(x))
        return out


class GPT(nn.Module):
    def __init__(self, vocab: int, d: int = 128, heads: int = 4, layers: int = 4, context: int = 64) -> None:
        super().__init__()
        self.context = context
        self.tok = nn.Embedding(vocab, d)
        self.pos = nn.Embedding(context, d)
        self.blocks = nn.Sequential(*[Block(d, heads, context) for _ in range(layers)])
        self.ln = nn.LayerNorm(d)
        self.head = nn.Linear(d, vocab)

    def forward(self, idx: torch.Tensor) -> torch.Tensor:
        t = idx.shape[1]
        x = self.tok(idx) + self.pos(torch.arange(t))
        logits: torch.Tensor = self.head(self.ln(self.blocks(x)))
        return logits


@torch.no_grad()
def sample(model: GPT, start: torch.Tensor, n: int, temperature: float = 0.8) -> torch.Tensor:
    model.eval()
    idx = start
    for _ in range(n):
        logits = model(idx[:, -model.context :])[:, -1] / temperature
        nxt = torch.multinomial(F.softmax(logits, -1), 1)
        idx = torch.cat([idx, nxt], 1)
    model.train()
    return idx


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=300)
    ap.add_argument("--batch-size", type=int, default=16)
    ap.add_argument("--context", type=int, default=64)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    torch.manual_seed(args.seed)
    text = corpus()
    chars = sorted(set(text))
    stoi = {c: i for i, c in enumerate(chars)}
    data = torch.tensor([stoi[c] for c in text])
    print(f"corpus: {len(text)} characters, vocabulary {len(chars)}")
    model = GPT(len(chars), context=args.context)
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.01)
    start = time.time()
    # The bar shows on a terminal only (disable=None); the loss lines print either way.
    bar = tqdm(range(args.steps + 1), desc="training", leave=False, disable=None)
    for step in bar:
        ix = torch.randint(0, len(data) - args.context - 1, (args.batch_size,))
        offs = torch.arange(args.context)
        x = data[ix.unsqueeze(1) + offs]
        y = data[ix.unsqueeze(1) + offs + 1]
        logits = model(x)
        loss = F.cross_entropy(logits.reshape(-1, len(chars)), y.reshape(-1))
        opt.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        bar.set_postfix(loss=f"{loss.item():.3f}", refresh=False)
        if step % 50 == 0:
            tqdm.write(f"step {step:4d}  loss {loss.item():.3f}  (uniform would be {math.log(len(chars)):.3f})  {time.time() - start:.0f}s")
    bar.close()
    out = sample(model, torch.tensor([[stoi["T"]]]), 300)
    print("sample:\n" + "".join(chars[i] for i in out[0].tolist()))


if __name__ == "__main__":
    main()
