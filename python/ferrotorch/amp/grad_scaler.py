"""``torch.amp.GradScaler``: dynamic loss scaling for mixed-precision training. The loss is
multiplied by a scale before backward; ``step`` unscales the gradients, skips the optimizer
step when any of them is inf/NaN, and ``update`` backs the scale off after such a step or
grows it after ``growth_interval`` good steps in a row."""

from __future__ import annotations

import collections.abc
import inspect
import warnings
from collections import defaultdict
from enum import Enum
from typing import Any, Dict, List, Optional, Union

from .. import _core

Tensor = _core.Tensor

__all__ = ["GradScaler", "OptState"]


class OptState(Enum):
    """Where an optimizer is in the current iteration."""

    READY = 0
    UNSCALED = 1
    STEPPED = 2


def _refresh_per_optimizer_state() -> Dict[str, Any]:
    # A module-level factory (not a lambda) keeps the scaler picklable.
    return {"stage": OptState.READY, "found_inf_per_device": {}}


class GradScaler:
    """Scales the loss, unscales the gradients, and adapts the scale.

    Args:
        device: ``"cuda"`` (default) or ``"cpu"``; a CUDA scaler without CUDA disables itself
            with a warning, as in PyTorch.
        init_scale: the first scale.
        growth_factor: multiplies the scale after ``growth_interval`` steps without inf/NaN.
        backoff_factor: multiplies the scale after a step with inf/NaN gradients.
        growth_interval: good steps in a row before the scale grows.
        enabled: when False, ``scale`` returns its input, ``step`` just steps, the rest no-ops.

    >>> import ferrotorch as torch
    >>> scaler = torch.amp.GradScaler("cpu", init_scale=4.0)
    >>> scaler.scale(torch.tensor(1.5))
    tensor(6.)
    """

    def __init__(
        self,
        device: str = "cuda",
        init_scale: float = 2.0**16,
        growth_factor: float = 2.0,
        backoff_factor: float = 0.5,
        growth_interval: int = 2000,
        enabled: bool = True,
    ) -> None:
        self._device = device
        self._enabled = enabled
        if device == "cuda" and enabled:
            from .. import cuda

            if not cuda.is_available():
                warnings.warn("torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  Disabling.", stacklevel=2)
                self._enabled = False
        if self._enabled:
            if growth_factor <= 1.0:
                raise AssertionError("The growth factor must be > 1.0.")
            if backoff_factor >= 1.0:
                raise AssertionError("The backoff factor must be < 1.0.")
            self._init_scale = init_scale
            self._scale: Optional[Tensor] = None  # made on the first scale()
            self._growth_factor = growth_factor
            self._backoff_factor = backoff_factor
            self._growth_interval = growth_interval
            self._init_growth_tracker = 0
            self._growth_tracker: Optional[Tensor] = None
            self._per_optimizer_states: Dict[int, Dict[str, Any]] = defaultdict(_refresh_per_optimizer_state)

    def _check_scale_growth_tracker(self, funcname: str) -> tuple:
        fix = "This may indicate your script did not use scaler.scale(loss or outputs) earlier in the iteration."
        if self._scale is None:
            raise AssertionError(f"Attempted {funcname} but _scale is None.  " + fix)
        if self._growth_tracker is None:
            raise AssertionError(f"Attempted {funcname} but _growth_tracker is None.  " + fix)
        return self._scale, self._growth_tracker

    def _lazy_init_scale_growth_tracker(self, dev: Any) -> None:
        self._scale = _core.full((), self._init_scale, dtype=_core.float32, device=dev)
        self._growth_tracker = _core.full((), self._init_growth_tracker, dtype=_core.int32, device=dev)

    def _scale_on(self, device: Any) -> Tensor:
        if self._scale is None:
            self._lazy_init_scale_growth_tracker(device)
        assert self._scale is not None
        return self._scale if self._scale.device == device else self._scale.to(device)

    def scale(self, outputs: Any) -> Any:
        """``outputs`` (a tensor, or nested lists/tuples/iterables of them) times the scale."""
        if not self._enabled:
            return outputs
        if isinstance(outputs, Tensor):
            return outputs * self._scale_on(outputs.device)

        def apply(val: Any) -> Any:
            if isinstance(val, Tensor):
                return val * self._scale_on(val.device)
            if isinstance(val, collections.abc.Iterable):
                scaled = map(apply, val)
                return type(val)(scaled) if isinstance(val, (list, tuple)) else scaled
            raise ValueError("outputs must be a Tensor or an iterable of Tensors")

        return apply(outputs)

    def _unscale_grads_(self, optimizer: Any, inv_scale: Tensor, found_inf: Tensor, allow_fp16: bool) -> Dict[Any, Tensor]:
        """Unscales the optimizer's gradients, grouped by device; returns found_inf per device."""
        by_device: Dict[Any, Dict[Any, List[Tensor]]] = defaultdict(lambda: defaultdict(list))
        for group in optimizer.param_groups:
            for param in group["params"]:
                if not isinstance(param, Tensor):
                    raise AssertionError(f"expected param to be torch.Tensor, got {type(param).__name__}")
                grad = param.grad
                if grad is None:
                    continue
                if not allow_fp16 and grad.dtype == _core.float16:
                    raise ValueError("Attempting to unscale FP16 gradients.")
                by_device[grad.device][grad.dtype].append(grad)
        found: Dict[Any, Tensor] = {}
        for device, per_dtype in by_device.items():
            found_here = found_inf if found_inf.device == device else found_inf.to(device)
            inv_here = inv_scale if inv_scale.device == device else inv_scale.to(device)
            found[device] = found_here
            for grads in per_dtype.values():
                _core._amp_foreach_non_finite_check_and_unscale_(grads, found_here, inv_here)
        return found

    def unscale_(self, optimizer: Any) -> None:
        """Divides ``optimizer``'s gradients by the scale, once per step (before clipping, say)."""
        if not self._enabled:
            return
        self._check_scale_growth_tracker("unscale_")
        state = self._per_optimizer_states[id(optimizer)]
        if state["stage"] is OptState.UNSCALED:
            raise RuntimeError("unscale_() has already been called on this optimizer since the last update().")
        if state["stage"] is OptState.STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        assert self._scale is not None
        # The reciprocal in float64 first: a float32 division can be off by an ulp.
        inv_scale = self._scale.double().reciprocal().float()
        found_inf = _core.full((), 0.0, dtype=_core.float32, device=self._scale.device)
        state["found_inf_per_device"] = self._unscale_grads_(optimizer, inv_scale, found_inf, False)
        state["stage"] = OptState.UNSCALED

    def _maybe_opt_step(self, optimizer: Any, state: Dict[str, Any], *args: Any, **kwargs: Any) -> Any:
        if not sum(v.item() for v in state["found_inf_per_device"].values()):
            return optimizer.step(*args, **kwargs)
        return None

    def step(self, optimizer: Any, *args: Any, **kwargs: Any) -> Any:
        """Unscales (unless ``unscale_`` ran), then calls ``optimizer.step(*args, **kwargs)``
        unless a gradient is inf/NaN; returns what the step returned (None when skipped)."""
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise RuntimeError("Closure use is not currently supported if GradScaler is enabled.")
        self._check_scale_growth_tracker("step")
        state = self._per_optimizer_states[id(optimizer)]
        if state["stage"] is OptState.STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        if getattr(optimizer, "_step_supports_amp_scaling", False):
            return self._step_with_amp_aware_optimizer(optimizer, state, *args, **kwargs)
        if state["stage"] is OptState.READY:
            self.unscale_(optimizer)
        if len(state["found_inf_per_device"]) == 0:
            raise AssertionError("No inf checks were recorded for this optimizer.")
        retval = self._maybe_opt_step(optimizer, state, *args, **kwargs)
        state["stage"] = OptState.STEPPED
        return retval

    def _step_with_amp_aware_optimizer(self, optimizer: Any, state: Dict[str, Any], *args: Any, **kwargs: Any) -> Any:
        """Optimizers that unscale and skip themselves: handed the scale and found_inf."""
        if "grad_scaler" in inspect.signature(optimizer.step).parameters:
            warnings.warn(
                "GradScaler is going to stop passing itself as a keyword argument to the passed "
                "optimizer. In the near future GradScaler registers `grad_scale: Tensor` and "
                "`found_inf: Tensor` to the passed optimizer and let the optimizer use them directly.",
                FutureWarning,
                stacklevel=3,
            )
            kwargs["grad_scaler"] = self
            retval = optimizer.step(*args, **kwargs)
            state["stage"] = OptState.STEPPED
            return retval
        if state["stage"] is OptState.READY:
            self._check_inf_per_device(optimizer)
        scale = self._scale
        assert scale is not None
        found_inf = sum(t.to(scale.device) for t in state["found_inf_per_device"].values())
        unscaled = state["stage"] is OptState.UNSCALED
        optimizer.grad_scale = getattr(optimizer, "grad_scale", None) if unscaled else scale * getattr(optimizer, "grad_scale", 1)
        optimizer.found_inf = found_inf
        retval = optimizer.step(*args, **kwargs)
        state["stage"] = OptState.STEPPED
        del optimizer.grad_scale
        del optimizer.found_inf
        return retval

    def update(self, new_scale: Optional[Union[float, Tensor]] = None) -> None:
        """Backs off or grows the scale from this iteration's inf checks, or sets ``new_scale``."""
        if not self._enabled:
            return
        scale, tracker = self._check_scale_growth_tracker("update")
        if new_scale is not None:
            if isinstance(new_scale, float):
                scale.fill_(new_scale)
            else:
                reason = "new_scale should be a float or a 1-element torch.cuda.FloatTensor or torch.FloatTensor with requires_grad=False."
                if new_scale.device.type != self._device or new_scale.numel() != 1 or new_scale.requires_grad:
                    raise AssertionError(reason)
                scale.copy_(new_scale)
        else:
            found_infs = [f.to(scale.device) for s in self._per_optimizer_states.values() for f in s["found_inf_per_device"].values()]
            if len(found_infs) == 0:
                raise AssertionError("No inf checks were recorded prior to update.")
            combined = found_infs[0]
            for f in found_infs[1:]:
                combined = combined + f
            _core._amp_update_scale_(scale, tracker, combined, self._growth_factor, self._backoff_factor, self._growth_interval)
        self._per_optimizer_states = defaultdict(_refresh_per_optimizer_state)

    def _get_scale_async(self) -> Optional[Tensor]:
        return self._scale

    def get_scale(self) -> float:
        """The current scale as a float (1.0 when disabled)."""
        if not self._enabled:
            return 1.0
        return self._init_scale if self._scale is None else float(self._scale.item())

    def get_growth_factor(self) -> float:
        return self._growth_factor

    def set_growth_factor(self, new_factor: float) -> None:
        self._growth_factor = new_factor

    def get_backoff_factor(self) -> float:
        return self._backoff_factor

    def set_backoff_factor(self, new_factor: float) -> None:
        self._backoff_factor = new_factor

    def get_growth_interval(self) -> int:
        return self._growth_interval

    def set_growth_interval(self, new_interval: int) -> None:
        self._growth_interval = new_interval

    def _get_growth_tracker(self) -> int:
        if not self._enabled:
            return 0
        return self._init_growth_tracker if self._growth_tracker is None else int(self._growth_tracker.item())

    def is_enabled(self) -> bool:
        """Whether this scaler scales (False after a CUDA scaler found no CUDA)."""
        return self._enabled

    def state_dict(self) -> Dict[str, Any]:
        """``scale``, ``growth_factor``, ``backoff_factor``, ``growth_interval`` and
        ``_growth_tracker``; empty when disabled."""
        if not self._enabled:
            return {}
        return {
            "scale": self.get_scale(),
            "growth_factor": self._growth_factor,
            "backoff_factor": self._backoff_factor,
            "growth_interval": self._growth_interval,
            "_growth_tracker": self._get_growth_tracker(),
        }

    def load_state_dict(self, state_dict: Dict[str, Any]) -> None:
        """Restores what ``state_dict`` returned (a no-op when disabled)."""
        if not self._enabled:
            return
        if len(state_dict) == 0:
            raise RuntimeError("The source state dict is empty, possibly because it was saved from a disabled instance of GradScaler.")
        self._init_scale = state_dict["scale"]
        if self._scale is not None:
            self._scale.fill_(state_dict["scale"])
        self._growth_factor = state_dict["growth_factor"]
        self._backoff_factor = state_dict["backoff_factor"]
        self._growth_interval = state_dict["growth_interval"]
        self._init_growth_tracker = state_dict["_growth_tracker"]
        if self._growth_tracker is not None:
            self._growth_tracker.fill_(state_dict["_growth_tracker"])

    def __getstate__(self) -> Dict[str, Any]:
        state = self.__dict__.copy()
        if self._enabled:
            if len(self._per_optimizer_states) != 0:
                raise AssertionError("A GradScaler instance may only be pickled at the beginning of an iteration, or at the end after scaler.update().")
            # The tensors are rebuilt lazily from these numbers after unpickling.
            state["_init_scale"] = self.get_scale()
            state["_init_growth_tracker"] = self._get_growth_tracker()
            state["_scale"] = None
            state["_growth_tracker"] = None
        return state

    def __setstate__(self, state: Dict[str, Any]) -> None:
        self.__dict__.update(state)

    def _check_inf_per_device(self, optimizer: Any) -> Dict[Any, Tensor]:
        scale, _ = self._check_scale_growth_tracker("_check_inf_per_device")
        unit = _core.full((), 1.0, dtype=_core.float32, device=scale.device)
        found_inf = _core.full((), 0.0, dtype=_core.float32, device=scale.device)
        found = self._unscale_grads_(optimizer, unit, found_inf, True)
        self._per_optimizer_states[id(optimizer)]["found_inf_per_device"] = found
        return found

    def _found_inf_per_device(self, optimizer: Any) -> Dict[Any, Tensor]:
        return self._per_optimizer_states[id(optimizer)]["found_inf_per_device"]
