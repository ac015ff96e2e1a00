"""Packed variable-length sequences: ``PackedSequence`` and the functions that pack, pad and
split batches of sequences, as in ``torch.nn.utils.rnn``.

A packed batch stores its sequences sorted by decreasing length and time-major: ``data`` holds
step 0 of every sequence, then step 1 of every sequence still running, and so on;
``batch_sizes[t]`` says how many sequences are running at step ``t``.
"""

from __future__ import annotations

from typing import Any, Iterable, List, NamedTuple, Optional, Sequence, Tuple, Union

from ... import _core

Tensor = _core.Tensor


def _ft() -> Any:
    import ferrotorch

    return ferrotorch


def invert_permutation(permutation: Optional[Tensor]) -> Optional[Tensor]:
    """The permutation that undoes ``permutation`` (None stays None)."""
    if permutation is None:
        return None
    ft = _ft()
    order = [int(i) for i in permutation.tolist()]
    inverse = [0] * len(order)
    for position, index in enumerate(order):
        inverse[index] = position
    return ft.tensor(inverse, dtype=ft.int64)


class _PackedSequenceFields(NamedTuple):
    data: Tensor
    batch_sizes: Tensor
    sorted_indices: Optional[Tensor]
    unsorted_indices: Optional[Tensor]


class PackedSequence(_PackedSequenceFields):
    """A batch of variable-length sequences packed for the recurrent layers.

    Build one with :func:`pack_padded_sequence` or :func:`pack_sequence`, never directly.
    ``sorted_indices`` maps sorted positions to the caller's batch order and
    ``unsorted_indices`` is its inverse (both None when the batch came sorted).
    """

    def __new__(cls, data: Tensor, batch_sizes: Optional[Tensor] = None, sorted_indices: Optional[Tensor] = None, unsorted_indices: Optional[Tensor] = None) -> "PackedSequence":
        if unsorted_indices is None:
            unsorted_indices = invert_permutation(sorted_indices)
        if batch_sizes is None:
            # Legacy form: PackedSequence((data, batch_sizes)).
            data, batch_sizes = data  # type: ignore[misc]
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def _with_data(self, data: Tensor) -> "PackedSequence":
        return type(self)(data, self.batch_sizes, self.sorted_indices, self.unsorted_indices)

    def to(self, *args: Any, **kwargs: Any) -> "PackedSequence":
        """The same packing with ``data`` converted by ``Tensor.to``; indices stay int64."""
        data = self.data.to(*args, **kwargs)
        return self if data is self.data else self._with_data(data)

    def cpu(self) -> "PackedSequence":
        """The packing with ``data`` on the CPU (itself when it is there already)."""
        return self.to("cpu")

    def cuda(self, *args: Any, **kwargs: Any) -> "PackedSequence":
        """The packing with ``data`` on a CUDA device (arguments as ``Tensor.cuda``)."""
        data = self.data.cuda(*args, **kwargs)
        return self if data is self.data else self._with_data(data)

    def pin_memory(self) -> "PackedSequence":
        """ferrotorch has no page-locked host memory: the packing is returned as it is."""
        return self

    def double(self) -> "PackedSequence":
        """``data`` as float64."""
        return self.to(_ft().float64)

    def float(self) -> "PackedSequence":
        """``data`` as float32."""
        return self.to(_ft().float32)

    def half(self) -> "PackedSequence":
        """``data`` as float16."""
        return self.to(_ft().float16)

    def long(self) -> "PackedSequence":
        """``data`` as int64."""
        return self.to(_ft().int64)

    def int(self) -> "PackedSequence":
        """``data`` as int32."""
        return self.to(_ft().int32)

    def short(self) -> "PackedSequence":
        """``data`` as int16."""
        return self.to(_ft().int16)

    def char(self) -> "PackedSequence":
        """``data`` as int8."""
        return self.to(_ft().int8)

    def byte(self) -> "PackedSequence":
        """``data`` as uint8."""
        return self.to(_ft().uint8)

    @property
    def is_cuda(self) -> bool:
        """Whether ``data`` is on a CUDA device."""
        return bool(self.data.is_cuda)

    def is_pinned(self) -> bool:
        """Always False: ferrotorch has no page-locked host memory."""
        return False


def _lengths_list(lengths: Union[Tensor, Sequence[int]]) -> List[int]:
    if isinstance(lengths, Tensor):
        if lengths.ndim != 1:
            raise RuntimeError(f"'lengths' argument should be a 1D CPU int64 tensor, but got {lengths.ndim}D {lengths.dtype} tensor")
        return [int(v) for v in lengths.tolist()]
    return [int(v) for v in lengths]


def _batch_sizes(sorted_lengths: List[int]) -> List[int]:
    # batch_sizes[t] = how many sequences are longer than t (lengths sorted decreasing).
    return [sum(1 for n in sorted_lengths if n > t) for t in range(sorted_lengths[0])]


def pack_padded_sequence(input: Tensor, lengths: Union[Tensor, Sequence[int]], batch_first: bool = False, enforce_sorted: bool = True) -> PackedSequence:
    """Packs a padded batch ``[T, B, *]`` (``[B, T, *]`` with ``batch_first``) whose sequence
    ``b`` is ``lengths[b]`` long. With ``enforce_sorted`` the lengths must be decreasing;
    otherwise the batch is sorted here and the permutation kept in the result."""
    ft = _ft()
    lens = _lengths_list(lengths)
    batch = input.shape[0 if batch_first else 1]
    if len(lens) != batch:
        raise RuntimeError(f"Expected `len(lengths)` to be equal to batch_size, but got {len(lens)} (batch_size={batch})")
    if enforce_sorted:
        if any(a < b for a, b in zip(lens, lens[1:])):
            raise RuntimeError(
                "`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. You can pass "
                "`enforce_sorted=False` to pack_padded_sequence and/or pack_sequence to sidestep this requirement "
                "if you do not need ONNX exportability."
            )
        order = None
    else:
        # Stable sort by decreasing length, as the caller's order breaks ties.
        positions = sorted(range(len(lens)), key=lambda b: -lens[b])
        order = ft.tensor(positions, dtype=ft.int64)
        lens = [lens[b] for b in positions]
    if not lens:
        raise RuntimeError("Cannot pack empty tensors.")
    if lens[-1] <= 0:
        raise RuntimeError("Length of all samples has to be greater than 0, but found an element in 'lengths' that is <= 0")
    x = input.transpose(0, 1) if batch_first else input
    if order is not None:
        x = x.index_select(1, order)
    if lens[0] > x.shape[0]:
        raise RuntimeError(f"pack_padded_sequence: a length of {lens[0]} exceeds the padded sequence length {x.shape[0]}")
    sizes = _batch_sizes(lens)
    data = ft.cat([x[t].narrow(0, 0, n) for t, n in enumerate(sizes)], 0)
    return PackedSequence(data, ft.tensor(sizes, dtype=ft.int64), order, None)


def pad_packed_sequence(sequence: PackedSequence, batch_first: bool = False, padding_value: float = 0.0, total_length: Optional[int] = None) -> Tuple[Tensor, Tensor]:
    """Undoes :func:`pack_padded_sequence`: returns the padded batch (``total_length`` steps
    if given) in the caller's batch order and the int64 lengths."""
    ft = _ft()
    data = sequence.data
    sizes = [int(n) for n in sequence.batch_sizes.tolist()]
    batch, steps = sizes[0], len(sizes)
    if total_length is not None:
        if total_length < steps:
            raise ValueError(
                "Expected total_length to be at least the length of the longest sequence in input, "
                f"but got total_length={total_length} and max sequence length being {steps}"
            )
    else:
        total_length = steps
    feature = tuple(data.shape[1:])
    rows, start = [], 0
    for n in sizes:
        step = data.narrow(0, start, n)
        start += n
        if n < batch:
            step = ft.cat([step, ft.full((batch - n,) + feature, padding_value, dtype=data.dtype)], 0)
        rows.append(step)
    if total_length > steps:
        rows += [ft.full((batch,) + feature, padding_value, dtype=data.dtype)] * (total_length - steps)
    padded = ft.stack(rows, 0)
    lengths = [sum(1 for n in sizes if n > b) for b in range(batch)]
    if sequence.unsorted_indices is not None:
        padded = padded.index_select(1, sequence.unsorted_indices)
        lengths = [lengths[int(i)] for i in sequence.unsorted_indices.tolist()]
    if batch_first:
        padded = padded.transpose(0, 1)
    return padded, ft.tensor(lengths, dtype=ft.int64)


def pad_sequence(sequences: Union[Tensor, Iterable[Tensor]], batch_first: bool = False, padding_value: float = 0.0, padding_side: str = "right") -> Tensor:
    """Stacks tensors of shape ``[L_i, *]`` into ``[max L, B, *]`` (``[B, max L, *]`` with
    ``batch_first``), filling with ``padding_value`` on ``padding_side`` ("right" or "left")."""
    ft = _ft()
    if padding_side not in ("left", "right"):
        raise RuntimeError(f"Expected padding_side to be one of left or right, but got {padding_side}.")
    seqs = list(sequences.unbind(0)) if isinstance(sequences, Tensor) else list(sequences)
    if not seqs:
        raise RuntimeError("received an empty list of sequences")
    longest = max(s.shape[0] for s in seqs)
    # The result has the first sequence's dtype; the others are cast to it.
    dtype = seqs[0].dtype
    padded = []
    for s in seqs:
        s = s.to(dtype)
        short = longest - s.shape[0]
        if short:
            fill = ft.full((short,) + tuple(s.shape[1:]), padding_value, dtype=s.dtype)
            s = ft.cat([s, fill] if padding_side == "right" else [fill, s], 0)
        padded.append(s)
    return ft.stack(padded, 0 if batch_first else 1)


def unpad_sequence(padded_sequences: Tensor, lengths: Union[Tensor, Sequence[int]], batch_first: bool = False) -> List[Tensor]:
    """Splits a right-padded batch back into its sequences, ``lengths[b]`` steps each."""
    x = padded_sequences if batch_first else padded_sequences.transpose(0, 1)
    return [x[b].narrow(0, 0, n) for b, n in enumerate(_lengths_list(lengths))]


def pack_sequence(sequences: Sequence[Tensor], enforce_sorted: bool = True) -> PackedSequence:
    """Packs a list of tensors ``[L_i, *]`` (decreasing lengths unless ``enforce_sorted=False``)."""
    lengths = [s.shape[0] for s in sequences]
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences: PackedSequence) -> List[Tensor]:
    """Splits a PackedSequence into its sequences, in the order they were packed from."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)


__all__ = [
    "PackedSequence",
    "invert_permutation",
    "pack_padded_sequence",
    "pad_packed_sequence",
    "pad_sequence",
    "unpad_sequence",
    "pack_sequence",
    "unpack_sequence",
]
