"""Named tuples of the linalg ops, registered in ``torch.return_types`` as PyTorch has them."""

from __future__ import annotations

from collections import namedtuple

from .. import return_types as _return_types

_FIELDS = {
    "linalg_solve_ex": ["result", "info"],
    "linalg_inv_ex": ["inverse", "info"],
    "linalg_slogdet": ["sign", "logabsdet"],
    "slogdet": ["sign", "logabsdet"],
    "linalg_cholesky_ex": ["L", "info"],
    "linalg_lu_factor": ["LU", "pivots"],
    "linalg_lu_factor_ex": ["LU", "pivots", "info"],
    "linalg_lu": ["P", "L", "U"],
    "linalg_ldl_factor": ["LD", "pivots"],
    "linalg_ldl_factor_ex": ["LD", "pivots", "info"],
    "lu_unpack": ["P", "L", "U"],
    "triangular_solve": ["solution", "cloned_coefficient"],
    "linalg_qr": ["Q", "R"],
    "linalg_eigh": ["eigenvalues", "eigenvectors"],
    "linalg_eig": ["eigenvalues", "eigenvectors"],
    "linalg_svd": ["U", "S", "Vh"],
    "svd": ["U", "S", "V"],
    "linalg_lstsq": ["solution", "residuals", "rank", "singular_values"],
}


def _make(name: str, fields: list) -> type:
    t = namedtuple(name, fields)  # type: ignore[misc]
    t.__module__ = "torch.return_types"
    setattr(_return_types, name, t)
    return t


linalg_solve_ex = _make("linalg_solve_ex", _FIELDS["linalg_solve_ex"])
linalg_inv_ex = _make("linalg_inv_ex", _FIELDS["linalg_inv_ex"])
linalg_slogdet = _make("linalg_slogdet", _FIELDS["linalg_slogdet"])
slogdet = _make("slogdet", _FIELDS["slogdet"])
linalg_cholesky_ex = _make("linalg_cholesky_ex", _FIELDS["linalg_cholesky_ex"])
linalg_lu_factor = _make("linalg_lu_factor", _FIELDS["linalg_lu_factor"])
linalg_lu_factor_ex = _make("linalg_lu_factor_ex", _FIELDS["linalg_lu_factor_ex"])
linalg_lu = _make("linalg_lu", _FIELDS["linalg_lu"])
linalg_ldl_factor = _make("linalg_ldl_factor", _FIELDS["linalg_ldl_factor"])
linalg_ldl_factor_ex = _make("linalg_ldl_factor_ex", _FIELDS["linalg_ldl_factor_ex"])
lu_unpack = _make("lu_unpack", _FIELDS["lu_unpack"])
triangular_solve = _make("triangular_solve", _FIELDS["triangular_solve"])
linalg_qr = _make("linalg_qr", _FIELDS["linalg_qr"])
linalg_eigh = _make("linalg_eigh", _FIELDS["linalg_eigh"])
linalg_eig = _make("linalg_eig", _FIELDS["linalg_eig"])
linalg_svd = _make("linalg_svd", _FIELDS["linalg_svd"])
svd = _make("svd", _FIELDS["svd"])
linalg_lstsq = _make("linalg_lstsq", _FIELDS["linalg_lstsq"])
