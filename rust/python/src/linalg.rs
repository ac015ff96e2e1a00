//! Bindings of `torch.linalg`: one thin function per core op; the Python package gives them
//! PyTorch's signatures and named tuples.

use crate::errors::{IntoPy, LinAlgError};
use crate::tensor::PyTensor;
use ferrotorch::linalg::eigh::parse_uplo;
use ferrotorch::linalg::qr::QrMode;
use pyo3::prelude::*;

type T2 = (PyTensor, PyTensor);
type T3 = (PyTensor, PyTensor, PyTensor);

fn pair((a, b): (ferrotorch::Tensor, ferrotorch::Tensor)) -> T2 {
    (PyTensor::new(a), PyTensor::new(b))
}

#[pyfunction]
fn _linalg_solve_ex(
    py: Python<'_>,
    a: PyRef<'_, PyTensor>,
    b: PyRef<'_, PyTensor>,
    left: bool,
    check_errors: bool,
) -> PyResult<T2> {
    let (a, b) = (a.t.clone(), b.t.clone());
    Ok(pair(
        py.detach(|| a.linalg_solve_ex(&b, left, check_errors))
            .py()?,
    ))
}

#[pyfunction]
fn _linalg_solve(
    py: Python<'_>,
    a: PyRef<'_, PyTensor>,
    b: PyRef<'_, PyTensor>,
    left: bool,
) -> PyResult<PyTensor> {
    let (a, b) = (a.t.clone(), b.t.clone());
    Ok(PyTensor::new(py.detach(|| a.linalg_solve(&b, left)).py()?))
}

#[pyfunction]
fn _linalg_inv(py: Python<'_>, a: PyRef<'_, PyTensor>) -> PyResult<PyTensor> {
    let a = a.t.clone();
    Ok(PyTensor::new(py.detach(|| a.linalg_inv()).py()?))
}

#[pyfunction]
fn _linalg_cholesky(py: Python<'_>, a: PyRef<'_, PyTensor>, upper: bool) -> PyResult<PyTensor> {
    let a = a.t.clone();
    Ok(PyTensor::new(py.detach(|| a.linalg_cholesky(upper)).py()?))
}

#[pyfunction]
fn _linalg_lu_packed(py: Python<'_>, a: PyRef<'_, PyTensor>, pivot: bool) -> PyResult<T3> {
    let a = a.t.clone();
    let (lu, piv, info) = py.detach(|| a.linalg_lu_packed(pivot)).py()?;
    Ok((PyTensor::new(lu), PyTensor::new(piv), PyTensor::new(info)))
}

#[pyfunction]
fn _linalg_inv_ex(py: Python<'_>, a: PyRef<'_, PyTensor>, check_errors: bool) -> PyResult<T2> {
    let a = a.t.clone();
    Ok(pair(py.detach(|| a.linalg_inv_ex(check_errors)).py()?))
}

#[pyfunction]
fn _linalg_det(py: Python<'_>, a: PyRef<'_, PyTensor>) -> PyResult<PyTensor> {
    let a = a.t.clone();
    Ok(PyTensor::new(py.detach(|| a.linalg_det()).py()?))
}

#[pyfunction]
fn _linalg_slogdet(py: Python<'_>, a: PyRef<'_, PyTensor>) -> PyResult<T2> {
    let a = a.t.clone();
    Ok(pair(py.detach(|| a.linalg_slogdet()).py()?))
}

#[pyfunction]
fn _logdet(py: Python<'_>, a: PyRef<'_, PyTensor>) -> PyResult<PyTensor> {
    let a = a.t.clone();
    Ok(PyTensor::new(py.detach(|| a.logdet()).py()?))
}

#[pyfunction]
fn _linalg_cholesky_ex(
    py: Python<'_>,
    a: PyRef<'_, PyTensor>,
    upper: bool,
    check_errors: bool,
) -> PyResult<T2> {
    let a = a.t.clone();
    Ok(pair(
        py.detach(|| a.linalg_cholesky_ex(upper, check_errors))
            .py()?,
    ))
}

#[pyfunction]
fn _linalg_lu_factor_ex(
    py: Python<'_>,
    a: PyRef<'_, PyTensor>,
    pivot: bool,
    check_errors: bool,
) -> PyResult<T3> {
    let a = a.t.clone();
    let (lu, piv, info) = py
        .detach(|| a.linalg_lu_factor_ex(pivot, check_errors))
        .py()?;
    Ok((PyTensor::new(lu), PyTensor::new(piv), PyTensor::new(info)))
}

#[pyfunction]
fn _linalg_lu_factor(py: Python<'_>, a: PyRef<'_, PyTensor>, pivot: bool) -> PyResult<T2> {
    let a = a.t.clone();
    Ok(pair(py.detach(|| a.linalg_lu_factor(pivot)).py()?))
}

#[pyfunction]
fn _linalg_lu_solve(
    py: Python<'_>,
    lu: PyRef<'_, PyTensor>,
    pivots: PyRef<'_, PyTensor>,
    b: PyRef<'_, PyTensor>,
    left: bool,
    adjoint: bool,
) -> PyResult<PyTensor> {
    let (lu, pivots, b) = (lu.t.clone(), pivots.t.clone(), b.t.clone());
    Ok(PyTensor::new(
        py.detach(|| lu.linalg_lu_solve(&pivots, &b, left, adjoint))
            .py()?,
    ))
}

#[pyfunction]
fn _linalg_ldl_factor_ex(
    py: Python<'_>,
    a: PyRef<'_, PyTensor>,
    hermitian: bool,
    check_errors: bool,
) -> PyResult<T3> {
    let a = a.t.clone();
    let (ld, piv, info) = py
        .detach(|| a.linalg_ldl_factor_ex(hermitian, check_errors))
        .py()?;
    Ok((PyTensor::new(ld), PyTensor::new(piv), PyTensor::new(info)))
}

#[pyfunction]
fn _linalg_ldl_factor(py: Python<'_>, a: PyRef<'_, PyTensor>, hermitian: bool) -> PyResult<T2> {
    let a = a.t.clone();
    Ok(pair(py.detach(|| a.linalg_ldl_factor(hermitian)).py()?))
}

#[pyfunction]
fn _linalg_ldl_solve(
    py: Python<'_>,
    ld: PyRef<'_, PyTensor>,
    pivots: PyRef<'_, PyTensor>,
    b: PyRef<'_, PyTensor>,
    hermitian: bool,
) -> PyResult<PyTensor> {
    let (ld, pivots, b) = (ld.t.clone(), pivots.t.clone(), b.t.clone());
    Ok(PyTensor::new(
        py.detach(|| ld.linalg_ldl_solve(&pivots, &b, hermitian))
            .py()?,
    ))
}

#[pyfunction]
fn _linalg_solve_triangular(
    py: Python<'_>,
    a: PyRef<'_, PyTensor>,
    b: PyRef<'_, PyTensor>,
    upper: bool,
    left: bool,
    unitriangular: bool,
) -> PyResult<PyTensor> {
    let (a, b) = (a.t.clone(), b.t.clone());
    Ok(PyTensor::new(
        py.detach(|| a.linalg_solve_triangular(&b, upper, left, unitriangular))
            .py()?,
    ))
}

#[pyfunction]
fn _cholesky_solve(
    py: Python<'_>,
    b: PyRef<'_, PyTensor>,
    l: PyRef<'_, PyTensor>,
    upper: bool,
) -> PyResult<PyTensor> {
    let (b, l) = (b.t.clone(), l.t.clone());
    Ok(PyTensor::new(
        py.detach(|| b.cholesky_solve(&l, upper)).py()?,
    ))
}

#[pyfunction]
fn _cholesky_inverse(py: Python<'_>, l: PyRef<'_, PyTensor>, upper: bool) -> PyResult<PyTensor> {
    let l = l.t.clone();
    Ok(PyTensor::new(py.detach(|| l.cholesky_inverse(upper)).py()?))
}

#[pyfunction]
fn _linalg_qr(py: Python<'_>, a: PyRef<'_, PyTensor>, mode: &str) -> PyResult<T2> {
    let a = a.t.clone();
    let mode = QrMode::parse(mode).py()?;
    Ok(pair(py.detach(|| a.linalg_qr(mode)).py()?))
}

#[pyfunction]
fn _linalg_eigh(py: Python<'_>, a: PyRef<'_, PyTensor>, uplo: &str) -> PyResult<T2> {
    let a = a.t.clone();
    let upper = parse_uplo(uplo).py()?;
    Ok(pair(py.detach(|| a.linalg_eigh(upper)).py()?))
}

/// `linalg.eig` (or `eigvals` when `vectors` is false) without autograd: the Python layer
/// records the backward.
#[pyfunction]
fn _linalg_eig(
    py: Python<'_>,
    a: PyRef<'_, PyTensor>,
    vectors: bool,
) -> PyResult<(PyTensor, Option<PyTensor>)> {
    let a = a.t.clone();
    let (l, v) = py.detach(|| a.linalg_eig_forward(vectors)).py()?;
    Ok((PyTensor::new(l), v.map(PyTensor::new)))
}

#[pyfunction]
fn _linalg_eigvalsh(py: Python<'_>, a: PyRef<'_, PyTensor>, uplo: &str) -> PyResult<PyTensor> {
    let a = a.t.clone();
    let upper = parse_uplo(uplo).py()?;
    Ok(PyTensor::new(py.detach(|| a.linalg_eigvalsh(upper)).py()?))
}

#[pyfunction]
fn _linalg_svd(py: Python<'_>, a: PyRef<'_, PyTensor>, full_matrices: bool) -> PyResult<T3> {
    let a = a.t.clone();
    let (u, s, vh) = py.detach(|| a.linalg_svd(full_matrices)).py()?;
    Ok((PyTensor::new(u), PyTensor::new(s), PyTensor::new(vh)))
}

#[pyfunction]
fn _linalg_svdvals(py: Python<'_>, a: PyRef<'_, PyTensor>) -> PyResult<PyTensor> {
    let a = a.t.clone();
    Ok(PyTensor::new(py.detach(|| a.linalg_svdvals()).py()?))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("LinAlgError", m.py().get_type::<LinAlgError>())?;
    m.add_function(wrap_pyfunction!(_linalg_solve, m)?)?;
    m.add_function(wrap_pyfunction!(_linalg_inv, m)?)?;
    m.add_function(wrap_pyfunction!(_linalg_cholesky, m)?)?;
    m.add_function(wrap_pyfunction!(_linalg_lu_packed, m)?)?;
    m.add_function(wrap_pyfunction!(_linalg_solve_ex, m)?)?;
    m.add_function(wrap_pyfunction!(_linalg_inv_ex, m)?)?;
    m.add_function(wrap_pyfunction!(_linalg_det, m)?)?;
    m.add_function(wrap_pyfunction!(_linalg_slogdet, m)?)?;
    m.add_function(wrap_pyfunction!(_logdet, m)?)?;
    m.add_function(wrap_pyfunction!(_linalg_cholesky_ex, m)?)?;
    m.add_function(wrap_pyfunction!(_linalg_lu_factor_ex, m)?)?;
    m.add_function(wrap_pyfunction!(_linalg_lu_factor, m)?)?;
    m.add_function(wrap_pyfunction!(_linalg_lu_solve, m)?)?;
    m.add_function(wrap_pyfunction!(_linalg_solve_triangular, m)?)?;
    m.add_function(wrap_pyfunction!(_linalg_ldl_factor_ex, m)?)?;
    m.add_function(wrap_pyfunction!(_linalg_ldl_factor, m)?)?;
    m.add_function(wrap_pyfunction!(_linalg_ldl_solve, m)?)?;
    m.add_function(wrap_pyfunction!(_cholesky_solve, m)?)?;
    m.add_function(wrap_pyfunction!(_cholesky_inverse, m)?)?;
    m.add_function(wrap_pyfunction!(_linalg_qr, m)?)?;
    m.add_function(wrap_pyfunction!(_linalg_eigh, m)?)?;
    m.add_function(wrap_pyfunction!(_linalg_eig, m)?)?;
    m.add_function(wrap_pyfunction!(_linalg_eigvalsh, m)?)?;
    m.add_function(wrap_pyfunction!(_linalg_svd, m)?)?;
    m.add_function(wrap_pyfunction!(_linalg_svdvals, m)?)?;
    Ok(())
}
