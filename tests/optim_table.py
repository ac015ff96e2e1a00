"""The optimizer table: each case names a ``torch.optim`` class, its constructor arguments and
how the parameters are split into groups. tests/test_optim_table.py runs every case with
ferrotorch and PyTorch from the same parameters and the same loss, step by step, and checks
parameters, state, param_groups, repr and the state_dict interchange both ways."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional


@dataclass
class OptCase:
    """One optimizer configuration.

    - ``name``: the class name in ``torch.optim`` / ``ferrotorch.optim``.
    - ``kwargs``: constructor arguments shared by all groups.
    - ``groups``: per-group options; group i takes the parameters with index in ``split[i]``.
      Without groups all parameters form one group.
    - ``steps``: steps compared one by one before the state_dict interchange.
    - ``tensor_lr``: pass ``lr`` as a 0-d tensor of each library.
    - ``contiguous``: all parameters contiguous (PyTorch's LBFGS cannot flatten the gradient
      of a transposed parameter).
    - ``matrices_only``: only the two 3x4 parameters (one of them transposed), for Muon.
    - ``tol``: tolerances per dtype replacing the defaults (Muon's iteration runs in bfloat16).
    - ``dtypes``: the dtypes the case runs in. LBFGS runs to convergence with its defaults,
      where float32 rounding noise steers the two libraries apart: those cases run in float64.
    """

    id: str
    name: str
    kwargs: Dict[str, Any] = field(default_factory=dict)
    groups: Optional[List[Dict[str, Any]]] = None
    split: Optional[List[List[int]]] = None
    steps: int = 6
    tensor_lr: bool = False
    contiguous: bool = False
    dtypes: tuple = ("float32", "float64")
    matrices_only: bool = False
    tol: Optional[Dict[str, Dict[str, float]]] = None


# Muon's Newton-Schulz iteration runs in bfloat16: a float32 sum that lands on the other side of
# a bfloat16 rounding boundary (or a 1-ulp different gradient) is amplified by the iteration, and
# then moves one element by a few percent of one update (lr = 0.02 here), not by float32 noise.
MUON_TOL = {"float32": dict(rtol=1e-4, atol=2e-3), "float64": dict(rtol=1e-4, atol=2e-3)}
TWO_GROUPS = dict(groups=[{}, {"lr": 0.003}], split=[[0, 1], [2, 3]])

CASES: List[OptCase] = [
    # SGD
    OptCase("sgd_default", "SGD"),
    OptCase("sgd_momentum", "SGD", dict(lr=0.05, momentum=0.9)),
    OptCase("sgd_nesterov_wd", "SGD", dict(lr=0.05, momentum=0.9, nesterov=True, weight_decay=0.1)),
    OptCase("sgd_dampening_maximize", "SGD", dict(lr=0.02, momentum=0.5, dampening=0.3, maximize=True, weight_decay=0.01)),
    OptCase("sgd_flags", "SGD", dict(lr=0.1, foreach=False, differentiable=False, fused=None)),
    OptCase("sgd_groups", "SGD", dict(lr=0.05, momentum=0.8), **TWO_GROUPS),
    OptCase("sgd_tensor_lr", "SGD", dict(lr=0.05, momentum=0.9), tensor_lr=True),
    # Adam / AdamW
    OptCase("adam_default", "Adam"),
    OptCase("adam_amsgrad_wd", "Adam", dict(lr=0.01, amsgrad=True, weight_decay=0.1)),
    OptCase("adam_betas_eps_maximize", "Adam", dict(lr=0.02, betas=(0.8, 0.95), eps=1e-6, maximize=True)),
    OptCase("adam_decoupled", "Adam", dict(lr=0.01, weight_decay=0.2, decoupled_weight_decay=True)),
    OptCase("adam_groups", "Adam", dict(lr=0.01), **TWO_GROUPS),
    OptCase("adam_tensor_lr", "Adam", dict(lr=0.01), tensor_lr=True),
    OptCase("adamw_tensor_lr_amsgrad", "AdamW", dict(lr=0.01, amsgrad=True), tensor_lr=True),
    # float32 only: with tensor betas the bias corrections are float32 0-d tensors, and PyTorch's
    # float32 sqrt of one is not always correctly rounded (ours is), a 1e-7 relative difference.
    OptCase("adam_tensor_betas", "Adam", dict(lr=0.01, betas=("tensor", 0.8, 0.9)), dtypes=("float32",)),
    OptCase("adam_flags", "Adam", dict(lr=0.01, foreach=False, capturable=False, differentiable=False, fused=None)),
    OptCase("adamw_default", "AdamW"),
    OptCase("adamw_amsgrad_maximize", "AdamW", dict(lr=0.01, weight_decay=0.05, amsgrad=True, maximize=True)),
    # Adamax
    OptCase("adamax_default", "Adamax"),
    OptCase("adamax_wd_maximize", "Adamax", dict(lr=0.01, betas=(0.85, 0.99), eps=1e-4, weight_decay=0.1, maximize=True)),
    OptCase("adamax_groups", "Adamax", dict(lr=0.01), **TWO_GROUPS),
    OptCase("adamax_tensor_lr", "Adamax", dict(lr=0.01), tensor_lr=True),
    # NAdam
    OptCase("nadam_default", "NAdam"),
    OptCase("nadam_tensor_lr", "NAdam", dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True), tensor_lr=True),
    OptCase("nadam_wd_momentum_decay", "NAdam", dict(lr=0.01, weight_decay=0.1, momentum_decay=0.01)),
    OptCase("nadam_decoupled_maximize", "NAdam", dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True, maximize=True)),
    # RAdam: beta2 = 0.9 makes rho_t exceed 5 at step 6, so both branches run.
    OptCase("radam_default", "RAdam", steps=8),
    OptCase("radam_tensor_lr", "RAdam", dict(lr=0.01, betas=(0.9, 0.9)), steps=8, tensor_lr=True),
    OptCase("radam_rectified_wd", "RAdam", dict(lr=0.01, betas=(0.9, 0.9), weight_decay=0.1), steps=8),
    OptCase("radam_decoupled_maximize", "RAdam", dict(lr=0.01, betas=(0.8, 0.9), weight_decay=0.1, decoupled_weight_decay=True, maximize=True), steps=8),
    # Adagrad
    OptCase("adagrad_default", "Adagrad"),
    OptCase("adagrad_tensor_lr_decay", "Adagrad", dict(lr=0.05, lr_decay=0.1), tensor_lr=True),
    OptCase("adagrad_decay_init", "Adagrad", dict(lr=0.05, lr_decay=0.1, initial_accumulator_value=0.5, weight_decay=0.1, eps=1e-6)),
    OptCase("adagrad_maximize_groups", "Adagrad", dict(lr=0.05, maximize=True), **TWO_GROUPS),
    # Adadelta
    OptCase("adadelta_default", "Adadelta"),
    OptCase("adadelta_tensor_lr", "Adadelta", dict(lr=0.5), tensor_lr=True),
    OptCase("adadelta_rho_wd_maximize", "Adadelta", dict(lr=0.5, rho=0.8, eps=1e-4, weight_decay=0.1, maximize=True)),
    # RMSprop
    OptCase("rmsprop_default", "RMSprop"),
    OptCase("rmsprop_tensor_lr", "RMSprop", dict(lr=0.01, momentum=0.5, centered=True), tensor_lr=True),
    OptCase("rmsprop_centered_momentum", "RMSprop", dict(lr=0.01, alpha=0.9, centered=True, momentum=0.5, weight_decay=0.1)),
    OptCase("rmsprop_momentum_maximize", "RMSprop", dict(lr=0.005, momentum=0.9, maximize=True, eps=1e-5)),
    OptCase("rmsprop_centered_groups", "RMSprop", dict(lr=0.01, centered=True), **TWO_GROUPS),
    # Rprop
    OptCase("rprop_default", "Rprop"),
    OptCase("rprop_etas_sizes", "Rprop", dict(lr=0.05, etas=(0.3, 1.7), step_sizes=(1e-3, 0.2))),
    OptCase("rprop_maximize", "Rprop", dict(lr=0.02, maximize=True)),
    OptCase("rprop_tensor_lr", "Rprop", dict(lr=0.02), tensor_lr=True),
    # ASGD: t0 = 2 starts the averaging inside the compared steps.
    OptCase("asgd_default", "ASGD"),
    OptCase("asgd_tensor_lr", "ASGD", dict(lr=0.05, t0=2), tensor_lr=True),
    OptCase("asgd_t0_small", "ASGD", dict(lr=0.05, lambd=0.01, alpha=0.5, t0=2, weight_decay=0.1)),
    OptCase("asgd_maximize", "ASGD", dict(lr=0.02, t0=3, maximize=True)),
    # Adafactor: the matrices take the factored path, the vector and 0-d value the plain one.
    OptCase("adafactor_default", "Adafactor"),
    OptCase("adafactor_eps_d_wd", "Adafactor", dict(lr=0.05, beta2_decay=-0.5, eps=(1e-4, 1e-2), d=1.5, weight_decay=0.1)),
    OptCase("adafactor_maximize_groups", "Adafactor", dict(lr=0.02, maximize=True), **TWO_GROUPS),
    OptCase("adafactor_tensor_lr", "Adafactor", dict(lr=0.02), tensor_lr=True),
    # Muon (2-D parameters only).
    OptCase("muon_default", "Muon", matrices_only=True, tol=MUON_TOL),
    OptCase("muon_plain_momentum_wd", "Muon", dict(lr=0.02, momentum=0.9, nesterov=False, weight_decay=0.01), matrices_only=True, tol=MUON_TOL),
    OptCase("muon_adjust_lr_steps", "Muon", dict(lr=0.01, adjust_lr_fn="match_rms_adamw", ns_steps=3, ns_coefficients=(3.0, -3.2, 1.2)), matrices_only=True, tol=MUON_TOL),
    # LBFGS (one group only)
    OptCase("lbfgs_default", "LBFGS", steps=3, contiguous=True, dtypes=("float64",)),
    OptCase("lbfgs_strong_wolfe", "LBFGS", dict(line_search_fn="strong_wolfe"), steps=3, contiguous=True, dtypes=("float64",)),
    OptCase("lbfgs_few_iters", "LBFGS", dict(max_iter=2), steps=4, contiguous=True),
    OptCase("lbfgs_history_lr", "LBFGS", dict(lr=0.3, max_iter=2, history_size=2, max_eval=3), steps=3, contiguous=True),
    OptCase("lbfgs_wolfe_few_iters", "LBFGS", dict(line_search_fn="strong_wolfe", max_iter=3, history_size=2), steps=3, contiguous=True),
    OptCase("lbfgs_tensor_lr", "LBFGS", dict(lr=0.8, max_iter=3), steps=3, contiguous=True, tensor_lr=True),
]

# Constructor calls that must fail with PyTorch's exception class and message.
ERROR_CASES: List[tuple] = [
    ("SGD", dict(lr=-1)),
    ("SGD", dict(lr=0.1, momentum=-0.5)),
    ("SGD", dict(lr=0.1, weight_decay=-1)),
    ("SGD", dict(lr=0.1, nesterov=True)),
    ("SGD", dict(lr=0.1, momentum=0.9, dampening=0.1, nesterov=True)),
    ("SGD", dict(lr=0.1, fused=True, differentiable=True)),
    ("SGD", dict(lr=0.1, fused=True, foreach=True)),
    ("Adam", dict(lr=-1)),
    ("Adam", dict(eps=-1e-8)),
    ("Adam", dict(betas=(1.0, 0.999))),
    ("Adam", dict(betas=(0.9, -0.1))),
    ("Adam", dict(betas=(0.9, 1))),
    ("Adam", dict(weight_decay=-0.1)),
    ("Adam", dict(fused=True, foreach=True)),
    ("AdamW", dict(lr=-0.5)),
    ("AdamW", dict(betas=(0.9, 1.5))),
    ("Adamax", dict(lr=-1)),
    ("Adamax", dict(eps=-1)),
    ("Adamax", dict(betas=(1.2, 0.9))),
    ("Adamax", dict(weight_decay=-1)),
    ("NAdam", dict(lr=-1)),
    ("NAdam", dict(momentum_decay=-0.1)),
    ("NAdam", dict(betas=(0.9, 1.0))),
    ("RAdam", dict(lr=-1)),
    ("RAdam", dict(weight_decay=-1)),
    ("RAdam", dict(betas=(-0.1, 0.9))),
    ("Adagrad", dict(lr=-1)),
    ("Adagrad", dict(lr_decay=-1)),
    ("Adagrad", dict(initial_accumulator_value=-1)),
    ("Adagrad", dict(eps=-1)),
    ("Adagrad", dict(weight_decay=-1)),
    ("Adadelta", dict(lr=-1)),
    ("Adadelta", dict(rho=1.5)),
    ("Adadelta", dict(eps=-1)),
    ("Adadelta", dict(weight_decay=-1)),
    ("RMSprop", dict(lr=-1)),
    ("RMSprop", dict(eps=-1)),
    ("RMSprop", dict(momentum=-1)),
    ("RMSprop", dict(weight_decay=-1)),
    ("RMSprop", dict(alpha=-1)),
    ("Rprop", dict(lr=-1)),
    ("Rprop", dict(etas=(1.5, 1.2))),
    ("Rprop", dict(etas=(0.5, 0.9))),
    ("ASGD", dict(lr=-1)),
    ("ASGD", dict(lambd=-1)),
    ("ASGD", dict(alpha=-1)),
    ("ASGD", dict(weight_decay=-1)),
    ("LBFGS", dict(lr=-1)),
    ("Adafactor", dict(lr=-1)),
    ("Adafactor", dict(beta2_decay=0.5)),
    ("Adafactor", dict(eps=(-1.0, 1e-3))),
    ("Adafactor", dict(eps=(None, -1.0))),
    ("Adafactor", dict(d=0.5)),
    ("Adafactor", dict(weight_decay=-1)),
    ("Muon", dict(lr=-1)),
    ("Muon", dict(momentum=-1)),
    ("Muon", dict(weight_decay=-1)),
    ("Muon", dict(adjust_lr_fn="bogus")),
    ("SparseAdam", dict(lr=0.0)),
    ("SparseAdam", dict(eps=0.0)),
    ("SparseAdam", dict(betas=(0.9, 1.0))),
]
