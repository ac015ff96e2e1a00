//! Python bindings of ferrotorch: a thin layer over the `ferrotorch` crate.

mod autocast;
mod autograd;
mod complex;
mod convert;
mod creation;
mod cuda;
mod device;
mod dlpack;
mod dtype;
mod errors;
mod fft;
mod functions_misc;
mod functions_nn;
mod functions_special;
mod grad_scale;
mod inference_tensor;
mod interop;
mod linalg;
mod methods_index;
mod methods_math;
mod methods_ops_extra;
mod methods_reduce;
mod methods_shape;
mod methods_special;
mod methods_strided_views;
#[cfg(feature = "cuda")]
mod nccl;
mod optim;
mod profiler;
mod random;
mod serialize;
mod shared;
mod size;
mod storage_views;
mod tensor;

use pyo3::prelude::*;

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    // The workspace version in Cargo.toml is the one version: the wheel's and `__version__`.
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_class::<tensor::PyTensor>()?;
    m.add_class::<device::PyDevice>()?;
    m.add(
        "OutOfMemoryError",
        m.py().get_type::<errors::OutOfMemoryError>(),
    )?;
    errors::panics_are_runtime_errors(m)?;
    m.add_function(wrap_pyfunction!(tensor::set_default_dtype, m)?)?;
    m.add_function(wrap_pyfunction!(tensor::get_default_dtype, m)?)?;
    m.add_function(wrap_pyfunction!(size::_set_size_class, m)?)?;
    dtype::register(m)?;
    creation::register(m)?;
    autograd::register(m)?;
    autocast::register(m)?;
    profiler::register(m)?;
    grad_scale::register(m)?;
    serialize::register(m)?;
    functions_nn::register(m)?;
    functions_nn::register_norm(m)?;
    optim::register(m)?;
    functions_misc::register(m)?;
    random::register(m)?;
    functions_special::register(m)?;
    methods_index::register(m)?;
    methods_ops_extra::register(m)?;
    interop::register(m)?;
    dlpack::register(m)?;
    shared::register(m)?;
    storage_views::register(m)?;
    cuda::register(m)?;
    #[cfg(feature = "cuda")]
    nccl::register(m)?;
    linalg::register(m)?;
    complex::register(m)?;
    fft::register(m)?;
    Ok(())
}
