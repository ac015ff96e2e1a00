"""A DataLoader-driven training loop as PyTorch users write one for variable-length text: a
custom map-style Dataset whose __getitem__ returns a dict (or a tuple) with a token tensor of
its own length, collate functions that pad with torch.nn.utils.rnn.pad_sequence and carry
the lengths, worker processes seeded with the documented seed_worker recipe, a seeded
torch.Generator for shuffling, drop_last, and a bag-of-embeddings classifier with masked
mean pooling, AdamW and an accuracy count under torch.no_grad()."""

import random

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.utils.rnn import pad_sequence
from torch.utils.data import DataLoader, Dataset

PAD_IDX = 0


class ToySentiment(Dataset):
    """Sentences of 3 to 17 tokens; the label says whether "positive" words (ids 1..vocab/2)
    outnumber "negative" ones."""

    def __init__(self, n, vocab_size=40, seed=0):
        rng = random.Random(seed)
        self.vocab_size = vocab_size
        self.samples = []
        for _ in range(n):
            length = rng.randint(3, 17)
            tokens = [rng.randint(1, vocab_size - 1) for _ in range(length)]
            positive = sum(1 for t in tokens if t < vocab_size // 2)
            self.samples.append((tokens, int(positive * 2 > length)))

    def __len__(self):
        return len(self.samples)

    def __getitem__(self, idx):
        tokens, label = self.samples[idx]
        return {"tokens": torch.tensor(tokens, dtype=torch.long), "label": label}


class ToySentimentPairs(ToySentiment):
    """The same data served as (tokens, label) tuples."""

    def __getitem__(self, idx):
        item = super().__getitem__(idx)
        return item["tokens"], torch.tensor(item["label"])


def collate_batch(batch):
    tokens = [item["tokens"] for item in batch]
    lengths = torch.tensor([len(t) for t in tokens])
    padded = pad_sequence(tokens, batch_first=True, padding_value=PAD_IDX)
    labels = torch.tensor([item["label"] for item in batch], dtype=torch.long)
    return {"tokens": padded, "lengths": lengths, "labels": labels}


def collate_pairs(batch):
    """Time-major padding, as RNN code takes it: (max_len, batch)."""
    tokens, labels = zip(*batch)
    lengths = torch.tensor([t.size(0) for t in tokens])
    padded = pad_sequence(tokens, padding_value=PAD_IDX)
    return padded.t().contiguous(), lengths, torch.stack(labels)


def seed_worker(worker_id):
    worker_seed = torch.initial_seed() % 2**32
    np.random.seed(worker_seed)
    random.seed(worker_seed)


def make_loader(dataset, batch_size=16, shuffle=False, num_workers=0, drop_last=False, seed=0, collate_fn=collate_batch):
    g = torch.Generator()
    g.manual_seed(seed)
    return DataLoader(
        dataset,
        batch_size=batch_size,
        shuffle=shuffle,
        num_workers=num_workers,
        collate_fn=collate_fn,
        pin_memory=False,
        drop_last=drop_last,
        worker_init_fn=seed_worker,
        generator=g,
        persistent_workers=num_workers > 0,
    )


class BagOfEmbeddings(nn.Module):
    def __init__(self, vocab_size=40, embed_dim=16, num_classes=2):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, embed_dim, padding_idx=PAD_IDX)
        self.fc = nn.Linear(embed_dim, num_classes)

    def forward(self, tokens, lengths):
        mask = (tokens != PAD_IDX).unsqueeze(-1)
        emb = self.embedding(tokens) * mask
        pooled = emb.sum(dim=1) / lengths.unsqueeze(1).to(emb.dtype)
        return self.fc(pooled)


def unpack(batch):
    if isinstance(batch, dict):
        return batch["tokens"], batch["lengths"], batch["labels"]
    return batch


def train(model, loader, optimizer, epochs=1):
    model.train()
    losses = []
    for epoch in range(epochs):
        for batch in loader:
            tokens, lengths, labels = unpack(batch)
            optimizer.zero_grad(set_to_none=True)
            logits = model(tokens, lengths)
            loss = F.cross_entropy(logits, labels)
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
    return losses


@torch.no_grad()
def evaluate(model, loader):
    model.eval()
    correct, total = 0, 0
    for batch in loader:
        tokens, lengths, labels = unpack(batch)
        pred = model(tokens, lengths).argmax(dim=1)
        correct += (pred == labels).sum().item()
        total += labels.numel()
    return correct / total


def main(num_workers=2, epochs=8):
    torch.manual_seed(0)
    train_set, test_set = ToySentiment(512, seed=0), ToySentiment(128, seed=1)
    train_loader = make_loader(train_set, batch_size=32, shuffle=True, num_workers=num_workers, drop_last=True)
    test_loader = make_loader(test_set, batch_size=64)
    model = BagOfEmbeddings()
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-2)
    losses = train(model, train_loader, optimizer, epochs=epochs)
    accuracy = evaluate(model, test_loader)
    print(f"loss {losses[-1]:.4f} accuracy {accuracy:.3f}")
    return losses, accuracy


if __name__ == "__main__":
    main()
