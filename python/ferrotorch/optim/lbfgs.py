"""L-BFGS: quasi-Newton steps from a short history of gradient and step differences."""

from __future__ import annotations

from typing import Any, Callable, Iterable, List, Optional

from .. import _core
from .._grad_mode import enable_grad, no_grad
from .optimizer import Optimizer, Tensor, _check_lr
from .strong_wolfe import strong_wolfe


class LBFGS(Optimizer):
    """L-BFGS over all parameters flattened into one vector (one parameter group only).

    ``step(closure)`` runs up to ``max_iter`` iterations, each a two-loop recursion for the
    direction and a fixed step ``lr`` or a strong-Wolfe line search (``line_search_fn="strong_wolfe"``).
    """

    def __init__(self, params: Iterable[Any], lr: Any = 1, max_iter: int = 20, max_eval: Optional[int] = None, tolerance_grad: float = 1e-7, tolerance_change: float = 1e-9, history_size: int = 100, line_search_fn: Optional[str] = None, *, maximize: bool = False) -> None:
        _check_lr(lr)
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        defaults = dict(lr=lr, max_iter=max_iter, max_eval=max_eval, tolerance_grad=tolerance_grad, tolerance_change=tolerance_change, history_size=history_size, line_search_fn=line_search_fn, maximize=maximize)
        super().__init__(params, defaults)
        if len(self.param_groups) != 1:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")
        self._params = self.param_groups[0]["params"]

    def _flat_grad(self) -> Any:
        """All gradients as one vector (zeros for a parameter without one), negated to maximize."""
        parts = [p.new_zeros(p.numel()) if p.grad is None else p.grad.reshape(-1) for p in self._params]
        flat = _core.cat(parts, 0)
        return flat.neg_() if self.param_groups[0].get("maximize", False) else flat

    def _add_direction(self, t: Any, d: Any) -> None:
        """Moves the parameters by ``t * d`` (d is a flat vector over all of them)."""
        offset, t = 0, float(t)
        for p in self._params:
            n = p.numel()
            p.add_(d[offset : offset + n].view_as(p), alpha=t)
            offset += n

    def _evaluate_at(self, closure: Callable[[], Any], x: List[Any], t: Any, d: Any) -> Any:
        """Loss and flat gradient at x + t d; the parameters go back to x afterwards."""
        self._add_direction(t, d)
        with enable_grad():
            loss = float(closure())
        if self.param_groups[0].get("maximize", False):
            loss = -loss
        flat = self._flat_grad()
        for p, saved in zip(self._params, x):
            p.copy_(saved)
        return loss, flat

    def step(self, closure: Callable[[], Any]) -> Any:  # type: ignore[override]
        """Runs up to ``max_iter`` L-BFGS iterations; ``closure`` re-evaluates and returns the loss."""
        with no_grad():
            return self._run(closure)

    def _run(self, closure: Callable[[], Any]) -> Any:
        def evaluate() -> Any:
            with enable_grad():
                return closure()

        group = self.param_groups[0]
        lr = group["lr"]
        # A tensor lr stays a tensor (PyTorch only squeezes it to 0-d), so t keeps its dtype.
        if isinstance(lr, Tensor) and lr.ndim != 0:
            lr = lr.squeeze()
        max_iter, max_eval, history_size = group["max_iter"], group["max_eval"], group["history_size"]
        tol_grad, tol_change = group["tolerance_grad"], group["tolerance_change"]
        maximize = group.get("maximize", False)
        if len(self._params) == 0:
            return evaluate()
        state = self.state[self._params[0]]
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)
        orig_loss = evaluate()
        loss = -float(orig_loss) if maximize else float(orig_loss)
        evals = 1
        state["func_evals"] += 1
        flat_grad = self._flat_grad()
        if flat_grad.abs().max() <= tol_grad:
            return orig_loss
        d, t = state.get("d"), state.get("t")
        old_dirs, old_stps, ro = state.get("old_dirs"), state.get("old_stps"), state.get("ro")
        h_diag, prev_flat_grad, prev_loss = state.get("H_diag"), state.get("prev_flat_grad"), state.get("prev_loss")
        n_iter = 0
        while n_iter < max_iter:
            n_iter += 1
            state["n_iter"] += 1
            if state["n_iter"] == 1:
                d = flat_grad.neg()
                old_dirs, old_stps, ro, h_diag = [], [], [], 1
            else:
                # Curvature pair of the last step; kept only when it is positive (y's > 0).
                y = flat_grad.sub(prev_flat_grad)
                s = d.mul(t)
                ys = y.dot(s)
                if ys > 1e-10:
                    if len(old_dirs) == history_size:
                        old_dirs.pop(0)
                        old_stps.pop(0)
                        ro.pop(0)
                    old_dirs.append(y)
                    old_stps.append(s)
                    ro.append(1.0 / ys)
                    h_diag = ys / y.dot(y)
                if "al" not in state:
                    state["al"] = [None] * history_size
                al = state["al"]
                # Two-loop recursion: q = H g with H the implicit inverse-Hessian estimate.
                q = flat_grad.neg()
                for i in range(len(old_dirs) - 1, -1, -1):
                    al[i] = old_stps[i].dot(q) * ro[i]
                    q.add_(old_dirs[i], alpha=-float(al[i]))
                d = r = q * h_diag
                for i in range(len(old_dirs)):
                    be_i = old_dirs[i].dot(r) * ro[i]
                    r.add_(old_stps[i], alpha=float(al[i] - be_i))
            if prev_flat_grad is None:
                prev_flat_grad = flat_grad.clone()
            else:
                prev_flat_grad.copy_(flat_grad)
            prev_loss = loss
            # The first step is scaled so that it moves at most lr in the sup norm of g.
            t = min(1.0, 1.0 / flat_grad.abs().sum()) * lr if state["n_iter"] == 1 else lr
            gtd = flat_grad.dot(d)
            if gtd > -tol_change:
                break
            ls_evals = 0
            if group["line_search_fn"] is not None:
                if group["line_search_fn"] != "strong_wolfe":
                    raise RuntimeError("only 'strong_wolfe' is supported")
                x_init = [p.clone() for p in self._params]
                loss, flat_grad, t, ls_evals = strong_wolfe(lambda x, tt, dd: self._evaluate_at(evaluate, x, tt, dd), x_init, t, d, loss, flat_grad, gtd, max_ls=max_eval - evals)
                self._add_direction(t, d)
                opt_cond = flat_grad.abs().max() <= tol_grad
            else:
                self._add_direction(t, d)
                if n_iter != max_iter:
                    loss = float(evaluate())
                    loss = -loss if maximize else loss
                    flat_grad = self._flat_grad()
                    opt_cond = flat_grad.abs().max() <= tol_grad
                    ls_evals = 1
            evals += ls_evals
            state["func_evals"] += ls_evals
            if n_iter == max_iter or evals >= max_eval or opt_cond:
                break
            if d.mul(t).abs().max() <= tol_change or abs(loss - prev_loss) < tol_change:
                break
        state.update(d=d, t=t, old_dirs=old_dirs, old_stps=old_stps, ro=ro, H_diag=h_diag, prev_flat_grad=prev_flat_grad, prev_loss=prev_loss)
        return orig_loss
