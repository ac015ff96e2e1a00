"""The strong-Wolfe line search LBFGS uses (bracketing, then zoom with cubic interpolation)."""

from __future__ import annotations

from typing import Any, Callable, List, Optional, Tuple


def cubic_minimum(x1: Any, f1: Any, g1: Any, x2: Any, f2: Any, g2: Any, bounds: Optional[Tuple[Any, Any]] = None) -> Any:
    """Minimizer of the cubic through (x1, f1, g1) and (x2, f2, g2), clipped to ``bounds``
    (the interval [x1, x2] by default); the interval's midpoint when the cubic has none."""
    lo, hi = bounds if bounds is not None else ((x1, x2) if x1 <= x2 else (x2, x1))
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    disc = d1**2 - g1 * g2
    if disc < 0:
        return (lo + hi) / 2.0
    d2 = disc.sqrt()
    if x1 <= x2:
        at = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
    else:
        at = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
    return min(max(at, lo), hi)


class _Point:
    """One trial step of the search: step length, loss, flat gradient and directional derivative."""

    __slots__ = ("t", "f", "g", "gtd")

    def __init__(self, t: Any, f: Any, g: Any, gtd: Any) -> None:
        self.t, self.f, self.g, self.gtd = t, f, g, gtd


def strong_wolfe(evaluate: Callable[[Any, Any, Any], Tuple[float, Any]], x: List[Any], t: Any, d: Any, f: float, g: Any, gtd: Any, c1: float = 1e-4, c2: float = 0.9, tolerance_change: float = 1e-9, max_ls: int = 25) -> Tuple[float, Any, Any, int]:
    """Finds a step ``t`` along ``d`` meeting the strong Wolfe conditions; returns
    (loss, flat gradient, t, evaluations). ``evaluate(x, t, d)`` gives the loss and gradient at x + t d."""
    d_norm = d.abs().max()
    start = _Point(0, f, g.clone(), gtd)
    prev = start
    f_new, g_new = evaluate(x, t, d)
    evals, ls_iter = 1, 0
    cur = _Point(t, f_new, g_new, g_new.dot(d))
    bracket: List[_Point] = []
    done = False
    # Phase 1: grow the step until an interval holding an acceptable point is bracketed.
    while ls_iter < max_ls:
        if cur.f > (f + c1 * cur.t * gtd) or (ls_iter > 1 and cur.f >= prev.f):
            bracket = [prev, _Point(cur.t, cur.f, cur.g.clone(), cur.gtd)]
            break
        if abs(cur.gtd) <= -c2 * gtd:
            bracket, done = [cur], True
            break
        if cur.gtd >= 0:
            bracket = [prev, _Point(cur.t, cur.f, cur.g.clone(), cur.gtd)]
            break
        t_next = cubic_minimum(prev.t, prev.f, prev.gtd, cur.t, cur.f, cur.gtd, bounds=(cur.t + 0.01 * (cur.t - prev.t), cur.t * 10))
        prev = _Point(cur.t, cur.f, cur.g.clone(), cur.gtd)
        f_new, g_new = evaluate(x, t_next, d)
        evals += 1
        cur = _Point(t_next, f_new, g_new, g_new.dot(d))
        ls_iter += 1
    if ls_iter == max_ls:
        bracket = [_Point(0, f, g, None), _Point(cur.t, cur.f, cur.g, None)]
    # Phase 2: shrink the bracket (zoom) until the conditions hold or it gets too small.
    stalled = False
    low, high = (0, 1) if bracket[0].f <= bracket[-1].f else (1, 0)
    while not done and ls_iter < max_ls:
        if abs(bracket[1].t - bracket[0].t) * d_norm < tolerance_change:
            break
        t = cubic_minimum(bracket[0].t, bracket[0].f, bracket[0].gtd, bracket[1].t, bracket[1].f, bracket[1].gtd)
        top, bottom = max(bracket[0].t, bracket[1].t), min(bracket[0].t, bracket[1].t)
        margin = 0.1 * (top - bottom)
        # A trial too close to an end makes little progress: pull it inside once it repeats.
        if min(top - t, t - bottom) < margin:
            if stalled or t >= top or t <= bottom:
                t = top - margin if abs(t - top) < abs(t - bottom) else bottom + margin
                stalled = False
            else:
                stalled = True
        else:
            stalled = False
        f_new, g_new = evaluate(x, t, d)
        evals += 1
        ls_iter += 1
        trial = _Point(t, f_new, g_new.clone(), g_new.dot(d))
        if trial.f > (f + c1 * t * gtd) or trial.f >= bracket[low].f:
            bracket[high] = trial
            low, high = (0, 1) if bracket[0].f <= bracket[1].f else (1, 0)
        else:
            if abs(trial.gtd) <= -c2 * gtd:
                done = True
            elif trial.gtd * (bracket[high].t - bracket[low].t) >= 0:
                bracket[high] = bracket[low]
            bracket[low] = trial
    best = bracket[low]
    return best.f, best.g, best.t, evals
