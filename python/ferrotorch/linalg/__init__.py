"""``torch.linalg``: factorizations, solvers, inverses and determinants of (batches of)
float32/float64 matrices, computed by the faer crate with PyTorch's semantics and errors.

>>> import ferrotorch as torch
>>> A = torch.tensor([[3.0, 1.0], [1.0, 2.0]])
>>> torch.linalg.det(A)
tensor(5.)
"""

from __future__ import annotations

from .._core import LinAlgError
from .._core import Tensor as _Tensor
from ._factorizations import cholesky, cholesky_ex, lu, lu_factor, lu_factor_ex
from ._householder import householder_product
from ._inverses import det, inv, inv_ex, slogdet
from ._ldl import ldl_factor, ldl_factor_ex, ldl_solve
from ._least_squares import lstsq, matrix_rank, pinv
from ._matrix_functions import matrix_sqrth, polar
from ._norms import cond, matrix_norm, norm, vector_norm
from ._products import cross, diagonal, matrix_exp, matrix_power, multi_dot, vander, vecdot
from ._solvers import lu_solve, solve, solve_ex, solve_triangular
from ._spectral import eig, eigh, eigvals, eigvalsh, qr, svd, svdvals
from ._tensor_equations import tensorinv, tensorsolve

matmul = _Tensor.matmul

