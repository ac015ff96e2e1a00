"""A word-level LSTM language model written as PyTorch users write it: padded batches of
variable-length sentences packed with pack_padded_sequence, a 2-layer LSTM with dropout and
tied embedding/decoder weights, cross-entropy that ignores padding, gradient clipping, Adam."""

import torch
import torch.nn as nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence, pad_sequence

PAD = 0


class LanguageModel(nn.Module):
    def __init__(self, vocab_size, embed_size=16, num_layers=2, dropout=0.2):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, embed_size, padding_idx=PAD)
        self.lstm = nn.LSTM(embed_size, embed_size, num_layers=num_layers, dropout=dropout, batch_first=True)
        self.drop = nn.Dropout(dropout)
        self.decoder = nn.Linear(embed_size, vocab_size)
        self.decoder.weight = self.embedding.weight  # tied weights

    def forward(self, tokens, lengths, hidden=None):
        emb = self.drop(self.embedding(tokens))
        packed = pack_padded_sequence(emb, lengths, batch_first=True, enforce_sorted=False)
        out, hidden = self.lstm(packed, hidden)
        out, _ = pad_packed_sequence(out, batch_first=True, total_length=tokens.size(1))
        return self.decoder(self.drop(out)), hidden


def synthetic_corpus(n, vocab_size=20, max_len=9, seed=0):
    """Sentences counting up modulo the vocabulary (learnable), of random lengths >= 2."""
    g = torch.Generator().manual_seed(seed)
    lengths = torch.randint(2, max_len + 1, (n,), generator=g)
    starts = torch.randint(1, vocab_size, (n,), generator=g)
    sentences = [(torch.arange(int(n_)) + int(s)) % (vocab_size - 1) + 1 for n_, s in zip(lengths, starts)]
    return sentences


def batches(sentences, batch_size):
    for i in range(0, len(sentences), batch_size):
        chunk = sentences[i : i + batch_size]
        padded = pad_sequence(chunk, batch_first=True, padding_value=PAD)
        lengths = torch.tensor([len(s) - 1 for s in chunk])
        yield padded[:, :-1], padded[:, 1:], lengths


def train(model, sentences, epochs=1, batch_size=8, lr=0.01):
    criterion = nn.CrossEntropyLoss(ignore_index=PAD)
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    losses = []
    model.train()
    for _ in range(epochs):
        for inputs, targets, lengths in batches(sentences, batch_size):
            optimizer.zero_grad()
            logits, _ = model(inputs, lengths)
            loss = criterion(logits.reshape(-1, logits.size(-1)), targets.reshape(-1))
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            losses.append(loss.item())
    return losses


@torch.no_grad()
def perplexity(model, sentences, batch_size=8):
    model.eval()
    criterion = nn.CrossEntropyLoss(ignore_index=PAD, reduction="sum")
    total, count = 0.0, 0
    for inputs, targets, lengths in batches(sentences, batch_size):
        logits, _ = model(inputs, lengths)
        total += criterion(logits.reshape(-1, logits.size(-1)), targets.reshape(-1)).item()
        count += int(lengths.sum())
    return float(torch.exp(torch.tensor(total / count)))


if __name__ == "__main__":
    torch.manual_seed(0)
    corpus = synthetic_corpus(256)
    model = LanguageModel(20)
    print("losses", train(model, corpus, epochs=3)[-3:])
    print("perplexity", perplexity(model, corpus))
