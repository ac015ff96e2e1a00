"""``torch.func.vmap``: a function of one sample mapped over a batch dimension.

The batch is run one sample at a time: each argument is split along its ``in_dims`` entry
(views, no copies; ``None`` passes it whole to every sample), the function runs on each
sample, and each output is stacked along its ``out_dims`` entry. The result is the same as
PyTorch's batching rules give, and it composes with itself and with the gradient transforms
(``vmap(grad(f))`` computes per-sample gradients).
"""

from __future__ import annotations

import functools
from typing import Any, Callable, List, Optional

from .. import _core
from ..utils._pytree import broadcast_prefix, tree_flatten, tree_unflatten
from ._randomness import RandomnessGuard, check_mode

Tensor = _core.Tensor


def _name(func: Any) -> str:
    return getattr(func, "__name__", repr(func))


def _is_dim(d: Any) -> bool:
    return isinstance(d, int) and not isinstance(d, bool)


def _batched_inputs(func: Any, in_dims: Any, args: tuple) -> Any:
    """Flat arguments, their in_dims, their spec and the batch size, with PyTorch's checks."""
    fname = _name(func)
    if not args:
        raise ValueError(
            f"vmap({fname})(<inputs>): got no inputs. Maybe you forgot to add inputs, or you are trying "
            "to vmap over a function with no inputs. The latter is unsupported."
        )
    where = f"vmap({fname}, in_dims={in_dims}, ...)(<inputs>)"
    if not (_is_dim(in_dims) or isinstance(in_dims, tuple)):
        raise ValueError(
            f"{where}: expected `in_dims` to be int or a (potentially nested) tuple matching the structure "
            f"of inputs, got: {type(in_dims)}."
        )
    flat_args, args_spec = tree_flatten(args)
    flat_dims = broadcast_prefix(in_dims, args_spec)
    if flat_dims is None:
        raise ValueError(
            f"{where}: in_dims is not compatible with the structure of `inputs`. in_dims has structure "
            f"{tree_flatten(in_dims)[1]} but inputs has structure {args_spec}."
        )
    sizes = []
    for arg, d in zip(flat_args, flat_dims):
        if d is None:
            continue
        if not _is_dim(d):
            raise ValueError(f"{where}: Got in_dim={d} for an input but in_dim must be either an integer dimension or None.")
        if not isinstance(arg, Tensor):
            raise ValueError(
                f"{where}: Got in_dim={d} for an input but the input is of type {type(arg)}. We cannot vmap "
                "over non-Tensor arguments, please use None as the respective in_dim"
            )
        n = arg.dim()
        if not -n <= d < n:
            raise ValueError(
                f"{where}: Got in_dim={d} for some input, but that input is a Tensor of dimensionality {n} so "
                f"expected in_dim to satisfy -{n} <= in_dim < {n}."
            )
        sizes.append(arg.shape[d])
    if not sizes:
        raise ValueError("vmap: Expected at least one Tensor to vmap over")
    if len(set(sizes)) > 1:
        raise ValueError(
            f"vmap: Expected all tensors to have the same size in the mapped dimension, got sizes {sizes} for the mapped dimension"
        )
    return flat_args, flat_dims, args_spec, sizes[0]


def _sample(flat_args: List[Any], flat_dims: List[Any], i: Optional[int]) -> List[Any]:
    """The i-th sample of every batched argument; with ``i=None`` a zero-filled stand-in (for
    an empty batch, whose output shapes still have to be found)."""
    out = []
    for a, d in zip(flat_args, flat_dims):
        if d is None:
            out.append(a)
        elif i is None:
            shape = list(a.shape)
            del shape[d]
            out.append(_core.zeros(shape, dtype=a.dtype))
        else:
            out.append(a.select(d, i))
    return out


def _unbatched(values: List[Any]) -> bool:
    first = values[0]
    if not isinstance(first, Tensor):
        return all(v is first or v == first for v in values)
    return all(v is first or (v.shape == first.shape and v.dtype == first.dtype and bool(v.eq(first).all())) for v in values)


def _batched_outputs(func: Any, out_dims: Any, outputs: List[Any], empty: bool) -> Any:
    fname = _name(func)
    flat0, out_spec = tree_flatten(outputs[0])
    if not all(d is None or _is_dim(d) for d in tree_flatten(out_dims)[0]):
        raise ValueError(
            f"vmap({fname}, ..., out_dims={out_dims}): `out_dims` must be an int, None or a python collection "
            "of ints representing where in the outputs the vmapped dimension should appear."
        )
    flat_dims = broadcast_prefix(out_dims, out_spec)
    if flat_dims is None:
        raise ValueError(
            f"vmap({fname}, ..., out_dims={out_dims})(<inputs>): out_dims is not compatible with the structure "
            f"of `outputs`. out_dims has structure {tree_flatten(out_dims)[1]} but outputs has structure {out_spec}."
        )
    columns = [tree_flatten(o)[0] for o in outputs]
    result = []
    for p, d in enumerate(flat_dims):
        values = [c[p] for c in columns]
        if d is None:
            if isinstance(values[0], Tensor) and not _unbatched(values):
                raise ValueError(f"vmap({fname}, ...): `{fname}` can not return a BatchedTensor when out_dim is None")
            result.append(values[0])
            continue
        if not isinstance(values[0], Tensor):
            raise ValueError(
                f"vmap({fname}, ...): `{fname}` must only return Tensors, got type {type(values[0])}. "
                "Did you mean to set out_dims= to None for output?"
            )
        n = values[0].dim() + 1
        if not -n <= d < n:
            raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {d})")
        stacked = _core.stack(values, dim=d)
        result.append(stacked.narrow(d, 0, 0) if empty else stacked)
    return tree_unflatten(result, out_spec)


def vmap(
    func: Callable[..., Any],
    in_dims: Any = 0,
    out_dims: Any = 0,
    randomness: str = "error",
    *,
    chunk_size: Optional[int] = None,
) -> Callable[..., Any]:
    """``func`` mapped over a batch dimension: ``in_dims`` says which dimension of each
    positional argument is the batch (an int for all, or a tuple matching the arguments'
    structure, ``None`` for arguments shared by all samples; keyword arguments are shared), and
    ``out_dims`` where the batch dimension goes in each output. ``randomness`` is 'error'
    (random operations raise), 'same' or 'different' (per sample). ``chunk_size`` is accepted;
    samples run one at a time.

    >>> import ferrotorch as torch
    >>> torch.func.vmap(torch.dot)(torch.ones(3, 2), torch.ones(3, 2))
    tensor([2., 2., 2.])
    """
    check_mode(randomness)
    if chunk_size is not None and chunk_size <= 0:
        raise ValueError(f"vmap: chunk_size should be None or greater than 0. (got {chunk_size})")

    @functools.wraps(func)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        flat_args, flat_dims, args_spec, size = _batched_inputs(func, in_dims, args)
        guard = RandomnessGuard(randomness)
        if size == 0:
            state = _core.get_rng_state()
            try:
                outputs = [func(*tree_unflatten(_sample(flat_args, flat_dims, None), args_spec), **kwargs)]
            finally:
                _core.set_rng_state(state)
        else:
            outputs = [
                guard.call(func, *tree_unflatten(_sample(flat_args, flat_dims, i), args_spec), **kwargs)
                for i in range(size)
            ]
        return _batched_outputs(func, out_dims, outputs, size == 0)

    return wrapped
