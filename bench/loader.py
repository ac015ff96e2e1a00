"""DataLoader throughput: the same dataset (whose ``__getitem__`` does real NumPy work, like
an image augmentation) loaded by ferrotorch's and PyTorch's DataLoader, with 0 and 2 workers.
Workers are persistent, so a timed pass measures steady-state throughput, not start-up."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

N_ITEMS, BATCH = 256, 32


class Augmented:
    """A 3x96x96 float32 "image" per index: generated, flipped, blurred and normalized
    (about a millisecond of NumPy work per item, like a light augmentation pipeline)."""

    def __init__(self, lib: Any) -> None:
        self.lib = lib

    def __len__(self) -> int:
        return N_ITEMS

    def __getitem__(self, i: int) -> Any:
        img = np.random.default_rng(i).random((3, 96, 96), dtype=np.float32)
        if i % 2:
            img = img[:, :, ::-1]
        blurred = img.copy()
        for axis in (1, 2, 1, 2, 1, 2):
            blurred = (np.roll(blurred, 1, axis) + blurred + np.roll(blurred, -1, axis)) / 3
        mean = blurred.mean(axis=(1, 2), keepdims=True)
        std = blurred.std(axis=(1, 2), keepdims=True) + 1e-6
        out = np.ascontiguousarray((blurred - mean) / std)
        return self.lib.from_numpy(out), i % 10


def make_pass(lib: Any, workers: int) -> Callable[[], int]:
    """A function that runs one full pass and returns the number of batches."""
    from_lib = lib.utils.data.DataLoader
    kwargs = {"persistent_workers": True} if workers else {}
    loader = from_lib(Augmented(lib), batch_size=BATCH, shuffle=True, num_workers=workers, **kwargs)

    def one_pass() -> int:
        n = 0
        for x, _ in loader:
            n += x.shape[0] > 0
        return n

    return one_pass
