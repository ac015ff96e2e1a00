"""Samplers: which indices a DataLoader visits, and in which order."""

from __future__ import annotations

import math
from typing import Any, Iterator, List, Optional, Sequence, Sized

from ... import _core


class Sampler:
    """Base class: an iterable of indices (or of index lists for batch samplers)."""

    def __init__(self, data_source: Optional[Sized] = None) -> None:
        pass

    def __iter__(self) -> Iterator[Any]:
        raise NotImplementedError


class SequentialSampler(Sampler):
    """0, 1, ..., len - 1."""

    def __init__(self, data_source: Sized) -> None:
        self.data_source = data_source

    def __iter__(self) -> Iterator[int]:
        return iter(range(len(self.data_source)))

    def __len__(self) -> int:
        return len(self.data_source)


# Draws with replacement come in chunks of this many: memory stays flat however many
# samples are asked for (an "infinite" sampler), at one generator call per chunk.
_CHUNK = 32
# Each multinomial call re-normalizes the weights, so weighted chunks are larger.
_WEIGHTED_CHUNK = 1024


def _check_bool(name: str, value: Any, error: type) -> None:
    if not isinstance(value, bool):
        raise error(f"{name} should be a boolean value, but got {name}={value}")


def _check_num_samples(num_samples: Any) -> None:
    if not isinstance(num_samples, int) or isinstance(num_samples, bool) or num_samples <= 0:
        raise ValueError(f"num_samples should be a positive integer value, but got num_samples={num_samples}")


def _fresh_generator() -> Any:
    """A generator seeded from the global one, so each epoch differs unless the user seeds."""
    seed = int(_core.randint(0, 2**62, (1,)).item())
    return _core.Generator().manual_seed(seed)


class RandomSampler(Sampler):
    """A random permutation per epoch, or ``num_samples`` draws with replacement.

    Indices are drawn lazily (with replacement, 32 at a time), so a sampler with
    ``num_samples=10**10`` yields its first index at once and holds no list of them.
    """

    def __init__(self, data_source: Sized, replacement: bool = False, num_samples: Optional[int] = None, generator: Optional[Any] = None) -> None:
        self.data_source, self.replacement, self._num_samples, self.generator = data_source, replacement, num_samples, generator
        _check_bool("replacement", replacement, TypeError)
        # As in PyTorch, a bool passes here (True counts as 1), unlike in WeightedRandomSampler.
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise ValueError(f"num_samples should be a positive integer value, but got num_samples={self.num_samples}")

    @property
    def num_samples(self) -> int:
        """How many indices one pass yields (the dataset's length unless given)."""
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self) -> Iterator[int]:
        n = len(self.data_source)
        g = _fresh_generator() if self.generator is None else self.generator
        if self.replacement:
            full, rest = divmod(self.num_samples, _CHUNK)
            for _ in range(full):
                yield from _core.randint(0, n, (_CHUNK,), dtype=_core.int64, generator=g).tolist()
            yield from _core.randint(0, n, (rest,), dtype=_core.int64, generator=g).tolist()
            return
        for _ in range(self.num_samples // n):
            yield from _core.randperm(n, generator=g).tolist()
        yield from _core.randperm(n, generator=g).tolist()[: self.num_samples % n]

    def __len__(self) -> int:
        return self.num_samples


class SubsetRandomSampler(Sampler):
    """The given indices in random order (one permutation of their positions per epoch)."""

    def __init__(self, indices: Sequence[int], generator: Optional[Any] = None) -> None:
        self.indices, self.generator = indices, generator

    def __iter__(self) -> Iterator[int]:
        for i in _core.randperm(len(self.indices), generator=self.generator).tolist():
            yield self.indices[i]

    def __len__(self) -> int:
        return len(self.indices)


class WeightedRandomSampler(Sampler):
    """Indices drawn with probability proportional to ``weights``.

    With replacement the draws come lazily in chunks, so ``num_samples`` may be huge; without
    replacement ``num_samples`` is at most ``len(weights)`` and one draw gives them all.
    """

    def __init__(self, weights: Sequence[float], num_samples: int, replacement: bool = True, generator: Optional[Any] = None) -> None:
        _check_num_samples(num_samples)
        _check_bool("replacement", replacement, ValueError)
        w = weights if isinstance(weights, _core.Tensor) else _core.tensor(list(weights), dtype=_core.float64)
        if w.ndim != 1:
            raise ValueError(f"weights should be a 1d sequence but given weights have shape {tuple(w.shape)}")
        self.weights, self.num_samples, self.replacement, self.generator = w.double(), num_samples, replacement, generator

    def __iter__(self) -> Iterator[int]:
        if not self.replacement:
            yield from _core.multinomial(self.weights, self.num_samples, False, generator=self.generator).tolist()
            return
        left = self.num_samples
        while left > 0:
            k = min(left, _WEIGHTED_CHUNK)
            yield from _core.multinomial(self.weights, k, True, generator=self.generator).tolist()
            left -= k

    def __len__(self) -> int:
        return self.num_samples


class BatchSampler(Sampler):
    """Groups indices from ``sampler`` into lists of ``batch_size``."""

    def __init__(self, sampler: Any, batch_size: int, drop_last: bool) -> None:
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size <= 0:
            raise ValueError(f"batch_size should be a positive integer value, but got batch_size={batch_size}")
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a boolean value, but got drop_last={drop_last}")
        self.sampler, self.batch_size, self.drop_last = sampler, batch_size, drop_last

    def __iter__(self) -> Iterator[List[int]]:
        batch: List[int] = []
        for i in self.sampler:
            batch.append(i)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def __len__(self) -> int:
        n = len(self.sampler)
        return n // self.batch_size if self.drop_last else (n + self.batch_size - 1) // self.batch_size


def torch_randperm(n: int, seed: int) -> List[int]:
    """The permutation ``torch.randperm(n, generator=torch.Generator().manual_seed(seed))``
    gives on CPU (Fisher-Yates over MT19937 draws), so every rank of a job mixing PyTorch and
    ferrotorch processes, and a resumed PyTorch run, sees the same sample order."""
    import numpy as np

    bits = np.random.MT19937()
    bits._legacy_seeding(seed & 0xFFFFFFFF)  # MT19937 seeded as PyTorch seeds its CPU generator
    draws = bits.random_raw(max(n - 1, 0)).tolist()
    idx = list(range(n))
    for i in range(n - 1):
        z = i + draws[i] % (n - i)
        idx[i], idx[z] = idx[z], idx[i]
    return idx


class DistributedSampler(Sampler):
    """The share of a dataset seen by one of ``num_replicas`` processes (padded or dropped so
    that every replica gets the same count); ``set_epoch`` reshuffles deterministically."""

    def __init__(self, dataset: Sized, num_replicas: Optional[int] = None, rank: Optional[int] = None, shuffle: bool = True, seed: int = 0, drop_last: bool = False) -> None:
        if num_replicas is None or rank is None:
            from ... import distributed as dist  # the default group's size and rank, as PyTorch

            num_replicas = dist.get_world_size() if num_replicas is None else num_replicas
            rank = dist.get_rank() if rank is None else rank
        if rank >= num_replicas or rank < 0:
            raise ValueError(f"Invalid rank {rank}, rank should be in the interval [0, {num_replicas - 1}]")
        self.dataset, self.num_replicas, self.rank, self.shuffle, self.seed, self.drop_last = dataset, num_replicas, rank, shuffle, seed, drop_last
        self.epoch = 0
        n = len(dataset)
        if drop_last and n % num_replicas != 0:
            self.num_samples = math.ceil((n - num_replicas) / num_replicas)
        else:
            self.num_samples = math.ceil(n / num_replicas)
        self.total_size = self.num_samples * num_replicas

    def __iter__(self) -> Iterator[int]:
        n = len(self.dataset)
        if self.shuffle:
            idx = torch_randperm(n, self.seed + self.epoch)
        else:
            idx = list(range(n))
        if not self.drop_last:
            pad = self.total_size - len(idx)
            idx += (idx * math.ceil(pad / max(len(idx), 1)))[:pad]
        else:
            idx = idx[: self.total_size]
        return iter(idx[self.rank : self.total_size : self.num_replicas])

    def __len__(self) -> int:
        return self.num_samples

    def set_epoch(self, epoch: int) -> None:
        """Sets the epoch that seeds the shuffle (call it before each epoch so orders differ)."""
        self.epoch = epoch
