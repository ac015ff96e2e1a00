"""Stochastic Weight Averaging and EMA: ``AveragedModel`` keeps a running average of a model's
weights, ``SWALR`` anneals the rate to a constant for the averaging phase, and ``update_bn``
recomputes BatchNorm statistics for the averaged weights."""

from __future__ import annotations

import itertools
import math
from copy import deepcopy
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, Union

from .. import _core
from .._grad_mode import no_grad
from ..nn.modules.module import Module
from .lr_scheduler.base import LRScheduler, _per_group, _warn_if_get_lr_called_directly
from .optimizer import Optimizer

Tensor = _core.Tensor
ParamList = Sequence[Tensor]

__all__ = ["AveragedModel", "update_bn", "SWALR", "get_ema_multi_avg_fn", "get_swa_multi_avg_fn", "get_ema_avg_fn", "get_swa_avg_fn"]


def _check_decay(decay: float) -> None:
    if decay < 0.0 or decay > 1.0:
        raise ValueError(f"Invalid decay value {decay} provided. Please provide a value in [0,1] range.")


def _is_float_like(t: Tensor) -> bool:
    return t.is_floating_point() or t.is_complex()


def get_ema_multi_avg_fn(decay: float = 0.999) -> Callable[[ParamList, ParamList, Any], None]:
    """An in-place EMA over lists of tensors: ``ema = decay * ema + (1 - decay) * current``."""
    _check_decay(decay)

    def ema_update(ema_params: ParamList, current_params: ParamList, _num_averaged: Any) -> None:
        with no_grad():
            for ema, cur in zip(ema_params, current_params):
                if _is_float_like(ema):
                    ema.lerp_(cur, 1 - decay)
                else:
                    ema.copy_(ema * decay + cur * (1 - decay))

    return ema_update


def get_swa_multi_avg_fn() -> Callable[[ParamList, ParamList, Any], None]:
    """An in-place equal-weight average over lists of tensors (``num_averaged`` models so far)."""

    def swa_update(averaged_params: ParamList, current_params: ParamList, num_averaged: Union[Tensor, int]) -> None:
        with no_grad():
            weight = 1 / (float(num_averaged) + 1)
            for avg, cur in zip(averaged_params, current_params):
                if _is_float_like(avg):
                    avg.lerp_(cur, weight)
                elif isinstance(num_averaged, Tensor):
                    # PyTorch refuses too: its in-place integer addcdiv would have to truncate.
                    raise RuntimeError("Integer division with addcdiv is no longer supported: an integer tensor cannot take the SWA average in place")
                else:
                    # The weight 1 / (n + 1) is a float, which PyTorch will not add to integers.
                    raise RuntimeError("For integral input tensors, argument alpha must not be a floating point number.")

    return swa_update


def get_ema_avg_fn(decay: float = 0.999) -> Callable[[Tensor, Tensor, Any], Tensor]:
    """The EMA of one tensor, returned (not in place)."""
    _check_decay(decay)

    def ema_update(ema_param: Tensor, current_param: Tensor, num_averaged: Any) -> Tensor:
        with no_grad():
            return decay * ema_param + (1 - decay) * current_param

    return ema_update


def get_swa_avg_fn() -> Callable[[Tensor, Tensor, Any], Tensor]:
    """The equal-weight running average of one tensor, returned (not in place)."""

    def swa_update(averaged_param: Tensor, current_param: Tensor, num_averaged: Union[Tensor, int]) -> Tensor:
        with no_grad():
            return averaged_param + (current_param - averaged_param) / (num_averaged + 1)

    return swa_update


class AveragedModel(Module):
    """A copy of ``model`` whose weights are a running average (SWA by default, or ``avg_fn`` /
    ``multi_avg_fn``, e.g. ``get_ema_multi_avg_fn()``) of the weights passed to
    ``update_parameters``. The first update copies; ``n_averaged`` counts the updates. With
    ``use_buffers`` the buffers are averaged too, otherwise they are copied from the model."""

    def __init__(
        self,
        model: Module,
        device: Any = None,
        avg_fn: Optional[Callable[[Tensor, Tensor, Any], Tensor]] = None,
        multi_avg_fn: Optional[Callable[[ParamList, ParamList, Any], None]] = None,
        use_buffers: bool = False,
    ) -> None:
        super().__init__()
        if avg_fn is not None and multi_avg_fn is not None:
            raise AssertionError("Only one of avg_fn and multi_avg_fn should be provided")
        self.module = deepcopy(model)
        if device is not None:
            self.module = self.module.to(device)
        self.register_buffer("n_averaged", _core.tensor(0, dtype=_core.int64, device=device))
        self.avg_fn = avg_fn
        self.multi_avg_fn = multi_avg_fn
        self.use_buffers = use_buffers

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        """Runs the averaged copy."""
        return self.module(*args, **kwargs)

    def update_parameters(self, model: Module) -> None:
        """Folds ``model``'s current weights into the average."""
        if self.use_buffers:
            ours: Iterable[Tensor] = itertools.chain(self.module.parameters(), self.module.buffers())
            theirs: Iterable[Tensor] = itertools.chain(model.parameters(), model.buffers())
        else:
            ours, theirs = self.parameters(), model.parameters()
        averaged: List[Tensor] = []
        current: List[Tensor] = []
        first = int(self.n_averaged) == 0
        with no_grad():
            for p_avg, p_model in zip(ours, theirs):
                value = p_model.detach().to(p_avg.device)
                averaged.append(p_avg.detach())
                current.append(value)
                if first:
                    p_avg.detach().copy_(value)
            if not first:
                self._average(averaged, current)
            if not self.use_buffers:
                for b_avg, b_model in zip(self.module.buffers(), model.buffers()):
                    b_avg.detach().copy_(b_model.detach().to(b_avg.device))
            self.n_averaged += 1

    def _average(self, averaged: List[Tensor], current: List[Tensor]) -> None:
        if self.avg_fn is not None and self.multi_avg_fn is None:
            for p_avg, p_model in zip(averaged, current):
                p_avg.copy_(self.avg_fn(p_avg, p_model, self.n_averaged))
            return
        if self.multi_avg_fn is not None:
            # Like PyTorch, the list function sees one call per dtype.
            by_dtype: Dict[str, List[int]] = {}
            for i, t in enumerate(averaged):
                by_dtype.setdefault(str(t.dtype), []).append(i)
            for idx in by_dtype.values():
                self.multi_avg_fn([averaged[i] for i in idx], [current[i] for i in idx], self.n_averaged)
            return
        step = get_swa_avg_fn()
        for p_avg, p_model in zip(averaged, current):
            p_avg.copy_(step(p_avg, p_model, self.n_averaged))


def update_bn(loader: Iterable[Any], model: Module, device: Any = None) -> None:
    """Recomputes every BatchNorm's running statistics with one pass over ``loader`` (each batch a
    tensor, or a list/tuple whose first item is the input), as a cumulative average."""
    from ..nn.modules.normalization import _BatchNorm

    momenta = {}
    for module in model.modules():
        if isinstance(module, _BatchNorm):
            module.reset_running_stats()
            momenta[module] = module.momentum
    if not momenta:
        return
    was_training = model.training
    model.train()
    for module in momenta:
        # momentum=None makes BatchNorm keep an equal-weight average over the batches.
        module.momentum = None
    with no_grad():
        for batch in loader:
            if isinstance(batch, (list, tuple)):
                batch = batch[0]
            if device is not None:
                batch = batch.to(device)
            model(batch)
    for module, momentum in momenta.items():
        module.momentum = momentum
    model.train(was_training)


class SWALR(LRScheduler):
    """Anneals each group's rate to ``swa_lr`` over ``anneal_epochs`` epochs (cosine or linear),
    then keeps it there."""

    def __init__(self, optimizer: Optimizer, swa_lr: Union[float, List[float]], anneal_epochs: int = 10, anneal_strategy: str = "cos", last_epoch: int = -1) -> None:
        swa_lrs = _per_group("swa_lr", optimizer, swa_lr)
        for value, group in zip(swa_lrs, optimizer.param_groups):
            group["swa_lr"] = value
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError(f"anneal_strategy must be one of 'cos' or 'linear', instead got {anneal_strategy}")
        self._set_anneal_func(anneal_strategy)
        if not isinstance(anneal_epochs, int) or anneal_epochs < 0:
            raise ValueError(f"anneal_epochs must be equal or greater than 0, got {anneal_epochs}")
        self.anneal_epochs = anneal_epochs
        super().__init__(optimizer, last_epoch)

    @staticmethod
    def _linear_anneal(t: float) -> float:
        return t

    @staticmethod
    def _cosine_anneal(t: float) -> float:
        return (1 - math.cos(math.pi * t)) / 2

    @staticmethod
    def _get_initial_lr(lr: float, swa_lr: float, alpha: float) -> float:
        """The rate the annealing started from, recovered from the current one."""
        if alpha == 1:
            return swa_lr
        return (lr - alpha * swa_lr) / (1 - alpha)

    def _set_anneal_func(self, anneal_strategy: str) -> None:
        self._anneal_strategy = anneal_strategy
        self.anneal_func = self._cosine_anneal if anneal_strategy == "cos" else self._linear_anneal

    def get_lr(self) -> List[Any]:
        _warn_if_get_lr_called_directly(self)
        step = self._step_count - 1
        if self.anneal_epochs == 0:
            step = max(1, step)
        span = max(1, self.anneal_epochs)
        prev_alpha = self.anneal_func(max(0, min(1, (step - 1) / span)))
        starts = [self._get_initial_lr(g["lr"], g["swa_lr"], prev_alpha) for g in self.optimizer.param_groups]
        alpha = self.anneal_func(max(0, min(1, step / span)))
        return [g["swa_lr"] * alpha + lr * (1 - alpha) for g, lr in zip(self.optimizer.param_groups, starts)]

    def state_dict(self) -> Dict[str, Any]:
        """Every attribute except the optimizer and the annealing function."""
        return {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "anneal_func")}

    def load_state_dict(self, state_dict: Dict[str, Any]) -> None:
        """Restores the state and the annealing function it names."""
        self.__dict__.update(state_dict)
        self._set_anneal_func(self._anneal_strategy)
