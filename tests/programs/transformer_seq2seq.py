"""A sequence-to-sequence transformer written as PyTorch users write it: nn.Transformer with
token and learned position embeddings, batch_first, padding masks and a causal target mask
from generate_square_subsequent_mask, trained with AdamW to reverse sequences, then greedy
decoding in eval mode under torch.no_grad()."""

import math

import torch
import torch.nn as nn

PAD, BOS, EOS = 0, 1, 2


class Seq2Seq(nn.Module):
    def __init__(self, vocab_size, d_model=32, nhead=4, layers=2, dim_feedforward=64, dropout=0.1, max_len=32):
        super().__init__()
        self.d_model = d_model
        self.src_embed = nn.Embedding(vocab_size, d_model, padding_idx=PAD)
        self.tgt_embed = nn.Embedding(vocab_size, d_model, padding_idx=PAD)
        self.pos = nn.Parameter(torch.zeros(1, max_len, d_model))
        self.transformer = nn.Transformer(
            d_model,
            nhead,
            num_encoder_layers=layers,
            num_decoder_layers=layers,
            dim_feedforward=dim_feedforward,
            dropout=dropout,
            batch_first=True,
        )
        self.out = nn.Linear(d_model, vocab_size)

    def embed(self, table, tokens):
        return table(tokens) * math.sqrt(self.d_model) + self.pos[:, : tokens.size(1)]

    def forward(self, src, tgt):
        tgt_mask = nn.Transformer.generate_square_subsequent_mask(tgt.size(1))
        hidden = self.transformer(
            self.embed(self.src_embed, src),
            self.embed(self.tgt_embed, tgt),
            tgt_mask=tgt_mask,
            src_key_padding_mask=src == PAD,
            tgt_key_padding_mask=tgt == PAD,
            memory_key_padding_mask=src == PAD,
        )
        return self.out(hidden)


def reversal_data(n, vocab_size=12, max_len=7, seed=0):
    """Padded sources of random lengths and their reversals framed by BOS ... EOS."""
    g = torch.Generator().manual_seed(seed)
    src = torch.full((n, max_len), PAD, dtype=torch.long)
    tgt = torch.full((n, max_len + 2), PAD, dtype=torch.long)
    for i in range(n):
        length = int(torch.randint(3, max_len + 1, (1,), generator=g))
        seq = torch.randint(3, vocab_size, (length,), generator=g)
        src[i, :length] = seq
        tgt[i, 0] = BOS
        tgt[i, 1 : length + 1] = seq.flip(0)
        tgt[i, length + 1] = EOS
    return src, tgt


def train(model, src, tgt, steps=10, batch_size=16, lr=3e-3):
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.01)
    criterion = nn.CrossEntropyLoss(ignore_index=PAD, label_smoothing=0.1)
    losses = []
    model.train()
    for step in range(steps):
        i = (step * batch_size) % src.size(0)
        s, t = src[i : i + batch_size], tgt[i : i + batch_size]
        logits = model(s, t[:, :-1])
        loss = criterion(logits.reshape(-1, logits.size(-1)), t[:, 1:].reshape(-1))
        optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        losses.append(loss.item())
    return losses


@torch.no_grad()
def greedy_decode(model, src, max_len=9):
    model.eval()
    out = torch.full((src.size(0), 1), BOS, dtype=torch.long)
    for _ in range(max_len - 1):
        next_token = model(src, out)[:, -1].argmax(-1, keepdim=True)
        out = torch.cat([out, next_token], dim=1)
    return out


if __name__ == "__main__":
    torch.manual_seed(0)
    src, tgt = reversal_data(256)
    model = Seq2Seq(12)
    print(train(model, src, tgt, steps=200)[-5:])
    print(src[:2], greedy_decode(model, src[:2]))
