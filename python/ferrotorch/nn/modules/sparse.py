"""Embedding and EmbeddingBag, with their functional forms ``embedding`` and ``embedding_bag``."""

from __future__ import annotations

from typing import Any, Optional, Tuple

from ... import _core
from ..._grad_mode import no_grad
from ..._unique import bincount, unique
from .. import init
from ..parameter import Parameter
from .module import Module

Tensor = _core.Tensor


def _normalize_padding_idx(padding_idx: Optional[int], num_embeddings: int, message: str) -> Optional[int]:
    """A negative ``padding_idx`` counts from the end; out of range is an AssertionError, as in PyTorch."""
    if padding_idx is None:
        return None
    if not -num_embeddings <= padding_idx < num_embeddings:
        raise AssertionError(message)
    return padding_idx % num_embeddings


def _check_indices(op: str, input: Tensor) -> None:
    if input.dtype not in (_core.int64, _core.int32):
        raise RuntimeError(f"Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int; but got {input.type()} instead (while checking arguments for {op})")


def _check_range(op: str, input: Tensor, num_embeddings: int, row_width: int = 1) -> None:
    """Indices must lie in [0, num_embeddings): negative ones do not count from the end."""
    if input.numel() == 0:
        return
    lo, hi = int(input.min().item()), int(input.max().item())
    if lo >= 0 and hi < num_embeddings:
        return
    flat = input.reshape(-1)
    pos = int(((flat < 0) | (flat >= num_embeddings)).nonzero().reshape(-1)[0].item())
    bad = int(flat[pos].item())
    if op == "embedding" and row_width == 0:
        # Rows of width 0 go through another ATen gather, whose check is a RuntimeError.
        raise RuntimeError(f"INDICES element is out of DATA bounds, id={bad} axis_dim={num_embeddings}")
    if op == "embedding":
        raise IndexError("index out of range in self")
    raise RuntimeError(f"Index {pos} of input takes value {bad} which is not in the valid range [0, {num_embeddings})")


def _renorm_rows(weight: Tensor, indices: Tensor, max_norm: float, norm_type: float) -> None:
    """Rescales, in place, each row of ``weight`` named in ``indices`` whose norm exceeds ``max_norm``."""
    if indices.numel() == 0:
        return
    with no_grad():
        rows = unique(indices.reshape(-1).long())
        picked = weight.index_select(0, rows)
        norms = picked.norm(norm_type, 1, keepdim=True)
        scale = _core._where3(norms > max_norm, max_norm / (norms + 1e-7), _core.ones((), dtype=weight.dtype))
        weight[rows] = picked * scale


def _gather_rows(weight: Tensor, flat: Tensor, padding_idx: Optional[int], scale_grad_by_freq: bool) -> Tensor:
    """weight[flat] where padding rows get no gradient and, with ``scale_grad_by_freq``, each row's
    gradient is divided by how often it occurs in ``flat``."""
    out = weight.index_select(0, flat)
    if not weight.requires_grad:
        return out
    if scale_grad_by_freq and flat.numel():
        counts = bincount(flat, minlength=weight.shape[0]).index_select(0, flat)
        s = (1.0 / counts.to(weight.dtype)).unsqueeze(1)
        # Same value as ``out``; the gradient to ``weight`` is scaled by s.
        out = out.detach() + (out - out.detach()) * s
    if padding_idx is not None:
        out = _core._where3((flat != padding_idx).unsqueeze(1), out, out.detach())
    return out


def embedding(input: Tensor, weight: Tensor, padding_idx: Optional[int] = None, max_norm: Optional[float] = None, norm_type: float = 2.0, scale_grad_by_freq: bool = False, sparse: bool = False) -> Tensor:
    """Rows of ``weight`` picked by integer ``input``; ``padding_idx`` rows get no gradient and,
    with ``max_norm``, the picked rows of ``weight`` are first renormalized in place."""
    _check_indices("embedding", input)
    if weight.ndim >= 1 and weight.shape[0] == 0 and input.numel() > 0:
        # ATen's index_select on an empty axis rejects any index before the range check.
        raise RuntimeError(f"embedding: index_select(): self indexing axis dim should be positive (weight {list(weight.shape)}, indices {list(input.shape)})")
    _check_range("embedding", input, weight.shape[0], weight.shape[1] if weight.ndim == 2 else 1)
    padding_idx = _normalize_padding_idx(padding_idx, weight.shape[0], "Padding_idx must be within num_embeddings")
    if max_norm is not None:
        _renorm_rows(weight, input, max_norm, norm_type)
    flat = input.reshape(-1).long()
    out = _gather_rows(weight, flat, padding_idx, scale_grad_by_freq)
    return out.reshape(list(input.shape) + [weight.shape[1]])


class Embedding(Module):
    """A lookup table of ``num_embeddings`` vectors; rows at ``padding_idx`` start at zero and
    get no gradient."""

    def __init__(self, num_embeddings: int, embedding_dim: int, padding_idx: Optional[int] = None, max_norm: Optional[float] = None, norm_type: float = 2.0, scale_grad_by_freq: bool = False, sparse: bool = False, _weight: Optional[Tensor] = None, _freeze: bool = False, device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        self.num_embeddings, self.embedding_dim = num_embeddings, embedding_dim
        self.padding_idx = _normalize_padding_idx(padding_idx, num_embeddings, "Padding_idx must be within num_embeddings")
        self.max_norm, self.norm_type, self.scale_grad_by_freq, self.sparse = max_norm, norm_type, scale_grad_by_freq, sparse
        dt = dtype or _core.get_default_dtype()
        if _weight is None:
            self.weight = Parameter(_core.empty(num_embeddings, embedding_dim, dtype=dt), requires_grad=not _freeze)
            self.reset_parameters()
        else:
            if tuple(_weight.shape) != (num_embeddings, embedding_dim):
                raise AssertionError("Shape of weight does not match num_embeddings and embedding_dim")
            self.weight = Parameter(_weight, requires_grad=not _freeze)

    def reset_parameters(self) -> None:
        """N(0, 1) rows; the padding row zero."""
        init.normal_(self.weight)
        if self.padding_idx is not None:
            with no_grad():
                self.weight[self.padding_idx] = 0

    def forward(self, input: Tensor) -> Tensor:
        return embedding(input, self.weight, self.padding_idx, self.max_norm, self.norm_type, self.scale_grad_by_freq, self.sparse)

    def extra_repr(self) -> str:
        s = f"{self.num_embeddings}, {self.embedding_dim}"
        if self.padding_idx is not None:
            s += f", padding_idx={self.padding_idx}"
        if self.max_norm is not None:
            s += f", max_norm={self.max_norm}"
        if self.norm_type != 2:
            s += f", norm_type={self.norm_type}"
        if self.scale_grad_by_freq is not False:
            s += f", scale_grad_by_freq={self.scale_grad_by_freq}"
        if self.sparse is not False:
            s += ", sparse=True"
        return s

    @classmethod
    def from_pretrained(cls, embeddings: Tensor, freeze: bool = True, padding_idx: Optional[int] = None, max_norm: Optional[float] = None, norm_type: float = 2.0, scale_grad_by_freq: bool = False, sparse: bool = False) -> "Embedding":
        """An Embedding whose weight is ``embeddings`` (2-D), frozen unless ``freeze=False``."""
        if embeddings.ndim != 2:
            raise AssertionError("Embeddings parameter is expected to be 2-dimensional")
        rows, cols = embeddings.shape
        return cls(rows, cols, padding_idx=padding_idx, max_norm=max_norm, norm_type=norm_type, scale_grad_by_freq=scale_grad_by_freq, sparse=sparse, _weight=embeddings, _freeze=freeze)


def _bags(input: Tensor, offsets: Optional[Tensor], per_sample_weights: Optional[Tensor], include_last_offset: bool) -> Tuple[Tensor, Tensor, Optional[Tensor], int]:
    """Flat indices, the bag of each index, flat per-sample weights and the number of bags."""
    if input.ndim == 2:
        if offsets is not None:
            raise ValueError(f"if input is 2D, then offsets has to be None, as input is treated is a mini-batch of fixed length sequences. However, found offsets of type {type(offsets)}")
        b, n = input.shape
        bag = _core.arange(b).unsqueeze(1).expand(b, n).reshape(-1)
        psw = per_sample_weights.reshape(-1) if per_sample_weights is not None else None
        return input.reshape(-1).long(), bag, psw, b
    if input.ndim != 1:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension {input.ndim}")
    if offsets is None:
        raise ValueError("offsets has to be a 1D Tensor but got None")
    if offsets.ndim != 1:
        raise ValueError("offsets has to be a 1D Tensor")
    n = input.shape[0]
    offs = offsets.long()
    nbags = offs.shape[0] - 1 if include_last_offset else offs.shape[0]
    if offs.shape[0] and int(offs[0].item()) != 0:
        raise RuntimeError(f"offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start from position 0. However, got {int(offs[0].item())}")
    if offs.shape[0] and int(offs.max().item()) > n:
        raise RuntimeError(f"offsets[-1] can not be greater than input's length {n}, but got offsets[-1] of {int(offs[-1].item())}")
    # Bag of element j = number of bag starts at or before j, minus one.
    starts = offs[1:] if offs.shape[0] > 1 else offs[:0]
    bag = bincount(starts, minlength=n + 1).cumsum(0)[:n]
    psw = per_sample_weights
    if include_last_offset and offs.shape[0]:
        # Elements at or after the last offset belong to no bag.
        keep = bag < nbags
        idx = keep.nonzero().reshape(-1)
        input, bag = input.index_select(0, idx), bag.index_select(0, idx)
        psw = psw.index_select(0, idx) if psw is not None else None
    return input.long(), bag, psw, max(nbags, 0)


def _bag_max(rows: Tensor, bag: Tensor, nbags: int) -> Tensor:
    """Per-bag, per-feature max of ``rows`` (grouped by the non-decreasing ``bag``); 0 for empty bags.

    The rows are laid out as a [bags, longest bag, D] block padded with -inf, so one max over the
    middle dim does every bag and its gradient reaches the one row that won."""
    n, d = rows.shape
    counts = bincount(bag, minlength=nbags)[:nbags] if n else _core.zeros(nbags, dtype=_core.int64)
    longest = int(counts.max().item()) if nbags and n else 0
    if longest == 0:
        return _core.zeros(nbags, d, dtype=rows.dtype) + rows.sum() * 0
    starts = counts.cumsum(0) - counts
    slot = bag * longest + (_core.arange(n) - starts.index_select(0, bag))
    # Every slot points at the -inf padding row n, except the filled ones.
    layout = _core.full((nbags * longest,), n, dtype=_core.int64).index_add(0, slot, _core.arange(n) - n)
    padded = _core.cat([rows, _core.full((1, d), float("-inf"), dtype=rows.dtype)], 0)
    best = padded.index_select(0, layout).reshape(nbags, longest, d).max(1)[0]
    return _core._where3((counts > 0).unsqueeze(1), best, _core.zeros((), dtype=rows.dtype))


def embedding_bag(input: Tensor, weight: Tensor, offsets: Optional[Tensor] = None, max_norm: Optional[float] = None, norm_type: float = 2, scale_grad_by_freq: bool = False, mode: str = "mean", sparse: bool = False, per_sample_weights: Optional[Tensor] = None, include_last_offset: bool = False, padding_idx: Optional[int] = None) -> Tensor:
    """Sums, averages or takes the max of the embeddings in each bag (a row of a 2-D ``input``, or
    the spans of a 1-D ``input`` that start at ``offsets``)."""
    _check_indices("embedding_bag", input)
    _check_range("embedding_bag", input, weight.shape[0])
    if offsets is not None:
        _check_indices("embedding_bag", offsets)
    if per_sample_weights is not None and tuple(input.shape) != tuple(per_sample_weights.shape):
        raise ValueError(f"embedding_bag: If per_sample_weights ({per_sample_weights.shape}) is not None, then it must have the same shape as the input ({input.shape})")
    if weight.ndim != 2:
        raise ValueError(f"weight has to be a 2D Tensor, but got Tensor of dimension {weight.ndim}")
    if per_sample_weights is not None and per_sample_weights.dtype != weight.dtype:
        raise RuntimeError(f"embedding_bag: expected per_sample_weights of the weight's dtype {weight.dtype}, but got {per_sample_weights.dtype}")
    flat, bag, psw, nbags = _bags(input, offsets, per_sample_weights, include_last_offset)
    if mode == "max":
        if scale_grad_by_freq:
            raise ValueError("max mode does not support scaling the gradient by the frequency")
        if sparse:
            raise ValueError("max mode does not support sparse weights")
    elif mode not in ("sum", "mean"):
        raise ValueError("mode has to be one of sum, mean or max")
    if max_norm is not None:
        _renorm_rows(weight, flat, max_norm, norm_type)
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError(f"embedding_bag: per_sample_weights was not None. per_sample_weights is only supported for mode='sum' (got mode='{mode}'). Please open a feature request on GitHub.")
    padding_idx = _normalize_padding_idx(padding_idx, weight.shape[0], "padding_idx must be within num_embeddings")
    if padding_idx is not None and flat.numel():
        # Padding entries leave their bag entirely (not counted by mean, never the max).
        idx = (flat != padding_idx).nonzero().reshape(-1)
        flat, bag = flat.index_select(0, idx), bag.index_select(0, idx)
        psw = psw.index_select(0, idx) if psw is not None else None
    rows = _gather_rows(weight, flat, None, scale_grad_by_freq)
    d = weight.shape[1]
    if mode == "max":
        return _bag_max(rows, bag, nbags)
    if psw is not None:
        rows = rows * psw.unsqueeze(1).to(rows.dtype)
    out = _core.zeros(nbags, d, dtype=weight.dtype).index_add(0, bag, rows)
    if mode == "mean":
        counts = bincount(bag, minlength=nbags)[:nbags].clamp_min(1).to(weight.dtype)
        out = out / counts.unsqueeze(1)
    return out


class EmbeddingBag(Module):
    """Sums, averages or maxes bags of embeddings without materializing each embedding per index."""

    def __init__(self, num_embeddings: int, embedding_dim: int, max_norm: Optional[float] = None, norm_type: float = 2.0, scale_grad_by_freq: bool = False, mode: str = "mean", sparse: bool = False, _weight: Optional[Tensor] = None, include_last_offset: bool = False, padding_idx: Optional[int] = None, device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        self.num_embeddings, self.embedding_dim = num_embeddings, embedding_dim
        self.max_norm, self.norm_type, self.scale_grad_by_freq = max_norm, norm_type, scale_grad_by_freq
        self.padding_idx = _normalize_padding_idx(padding_idx, num_embeddings, "padding_idx must be within num_embeddings")
        dt = dtype or _core.get_default_dtype()
        if _weight is None:
            self.weight = Parameter(_core.empty(num_embeddings, embedding_dim, dtype=dt))
            self.reset_parameters()
        else:
            if tuple(_weight.shape) != (num_embeddings, embedding_dim):
                raise AssertionError("Shape of weight does not match num_embeddings and embedding_dim")
            self.weight = Parameter(_weight)
        self.mode, self.sparse, self.include_last_offset = mode, sparse, include_last_offset

    def reset_parameters(self) -> None:
        """N(0, 1) rows; the padding row zero."""
        init.normal_(self.weight)
        if self.padding_idx is not None:
            with no_grad():
                self.weight[self.padding_idx] = 0

    def forward(self, input: Tensor, offsets: Optional[Tensor] = None, per_sample_weights: Optional[Tensor] = None) -> Tensor:
        return embedding_bag(input, self.weight, offsets, self.max_norm, self.norm_type, self.scale_grad_by_freq, self.mode, self.sparse, per_sample_weights, self.include_last_offset, self.padding_idx)

    def extra_repr(self) -> str:
        s = f"{self.num_embeddings}, {self.embedding_dim}"
        if self.max_norm is not None:
            s += f", max_norm={self.max_norm!r}"
        if self.norm_type != 2:
            s += f", norm_type={self.norm_type!r}"
        if self.scale_grad_by_freq is not False:
            s += f", scale_grad_by_freq={self.scale_grad_by_freq!r}"
        s += f", mode={self.mode!r}"
        if self.padding_idx is not None:
            s += f", padding_idx={self.padding_idx!r}"
        return s

    @classmethod
    def from_pretrained(cls, embeddings: Tensor, freeze: bool = True, max_norm: Optional[float] = None, norm_type: float = 2.0, scale_grad_by_freq: bool = False, mode: str = "mean", sparse: bool = False, include_last_offset: bool = False, padding_idx: Optional[int] = None) -> "EmbeddingBag":
        """An EmbeddingBag whose weight is ``embeddings`` (2-D), frozen unless ``freeze=False``."""
        if embeddings.ndim != 2:
            raise AssertionError("Embeddings parameter is expected to be 2-dimensional")
        rows, cols = embeddings.shape
        bag = cls(rows, cols, max_norm, norm_type, scale_grad_by_freq, mode, sparse, embeddings, include_last_offset, padding_idx)
        bag.weight.requires_grad = not freeze
        return bag
