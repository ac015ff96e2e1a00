"""Hogwild training (Recht et al., 2011; section 5.4 of the PyTorch paper): several processes
train one model whose parameters live in shared memory, each updating them in place without
locks. Compares the result with the same training run in a single process, on scikit-learn's
bundled handwritten digits.

Run: python examples/hogwild.py [--processes 2] [--epochs 8] [--start-method spawn]
"""

from __future__ import annotations

import argparse
import time

from sklearn.datasets import load_digits

import ferrotorch as torch
import ferrotorch.multiprocessing as mp
import ferrotorch.nn as nn
import ferrotorch.nn.functional as F
from ferrotorch.utils.data import DataLoader, TensorDataset


class DigitsMLP(nn.Module):
    """64 -> 128 -> 10, small enough that several copies of the loop fit on two cores."""

    def __init__(self) -> None:
        super().__init__()
        self.fc1 = nn.Linear(64, 128)
        self.fc2 = nn.Linear(128, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        logits: torch.Tensor = self.fc2(F.relu(self.fc1(x)))
        return logits


def load_data(seed: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    digits = load_digits()
    x = torch.tensor(digits.data.tolist(), dtype=torch.float32) / 16.0
    y = torch.tensor(digits.target.tolist())
    perm = torch.randperm(len(y), generator=torch.Generator().manual_seed(seed))
    n_test = len(y) // 5
    return x[perm[n_test:]], y[perm[n_test:]], x[perm[:n_test]], y[perm[:n_test]]


def train(rank: int, model: nn.Module, x: torch.Tensor, y: torch.Tensor, epochs: int, lr: float, seed: int) -> None:
    """One trainer: its own shuffling and optimizer state, the shared parameters."""
    torch.set_num_threads(1)  # the processes are the parallelism
    torch.manual_seed(seed + rank)
    loader = DataLoader(TensorDataset(x, y), batch_size=32, shuffle=True, generator=torch.Generator().manual_seed(seed + rank))
    opt = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    for _ in range(epochs):
        for xb, yb in loader:
            opt.zero_grad()
            F.cross_entropy(model(xb), yb).backward()
            opt.step()  # writes the shared parameters in place


def accuracy(model: nn.Module, x: torch.Tensor, y: torch.Tensor) -> float:
    with torch.no_grad():
        logits: torch.Tensor = model(x)
        return (logits.argmax(1) == y).float().mean().item()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--processes", type=int, default=2)
    ap.add_argument("--epochs", type=int, default=8)
    ap.add_argument("--lr", type=float, default=0.05)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--start-method", default="spawn", choices=mp.get_all_start_methods())
    args = ap.parse_args()

    x_train, y_train, x_test, y_test = load_data(args.seed)

    torch.manual_seed(args.seed)
    single = DigitsMLP()
    start = time.time()
    train(0, single, x_train, y_train, args.epochs, args.lr, args.seed)
    single_time = time.time() - start
    single_acc = accuracy(single, x_test, y_test)

    torch.manual_seed(args.seed)
    model = DigitsMLP().share_memory()
    # Each process sees all the data in its own order, for the same number of epochs, so
    # together they make processes x epochs passes of updates (as in the paper's example).
    ctx = mp.get_context(args.start_method)
    start = time.time()
    procs = [ctx.Process(target=train, args=(r, model, x_train, y_train, args.epochs, args.lr, args.seed)) for r in range(args.processes)]
    for p in procs:
        p.start()
    for p in procs:
        p.join()
    hogwild_time = time.time() - start
    if any(p.exitcode != 0 for p in procs):
        raise SystemExit(f"a trainer failed: exit codes {[p.exitcode for p in procs]}")
    hogwild_acc = accuracy(model, x_test, y_test)

    print(f"single process: test accuracy {single_acc:.4f} in {single_time:.2f} s")
    print(f"hogwild, {args.processes} processes ({args.start_method}): test accuracy {hogwild_acc:.4f} in {hogwild_time:.2f} s")


if __name__ == "__main__":
    main()
