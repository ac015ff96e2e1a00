//! `ferrotorch.Generator`, seeding, and the random sampling functions and methods.

use crate::convert::{extract_scalar, factory_sizes, int_list, to_usize_shape};
use crate::creation::{check_device, finish};
use crate::dtype::extract_dtype;
use crate::errors::IntoPy;
use crate::tensor::{default_dtype, PyTensor};
use ferrotorch::random::{default_generator, Generator, SharedGenerator};
use ferrotorch::{DType, Tensor};
use pyo3::exceptions::{PyRuntimeError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::PyTuple;
use std::sync::{Arc, Mutex};

#[pyclass(name = "Generator", module = "ferrotorch", frozen)]
pub struct PyGenerator {
    pub g: SharedGenerator,
}

fn lock(g: &SharedGenerator) -> std::sync::MutexGuard<'_, Generator> {
    g.lock().unwrap_or_else(|e| e.into_inner())
}

fn fresh_seed() -> u64 {
    use std::time::{SystemTime, UNIX_EPOCH};
    let t = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0);
    t ^ (std::process::id() as u64) << 32
}

#[pymethods]
impl PyGenerator {
    #[new]
    #[pyo3(signature = (device=None))]
    fn new(device: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
        if let Some(d) = device {
            let dev = crate::device::extract_device(d)?;
            crate::device::ensure_available(d.py(), dev)?;
        }
        Ok(PyGenerator {
            g: Arc::new(Mutex::new(Generator::new(67_280_421_310_721))),
        })
    }
    /// Seeds the generator; returns it (so `Generator().manual_seed(0)` chains).
    fn manual_seed(slf: PyRef<'_, Self>, seed: &Bound<'_, PyAny>) -> PyResult<Py<PyGenerator>> {
        let s = seed_value(seed)?;
        *lock(&slf.g) = Generator::new(s);
        Ok(slf.into())
    }
    /// Seeds from a nondeterministic source and returns the seed.
    fn seed(&self) -> u64 {
        let s = fresh_seed();
        *lock(&self.g) = Generator::new(s);
        s
    }
    fn initial_seed(&self) -> u64 {
        lock(&self.g).seed()
    }
    fn get_state(&self) -> PyResult<PyTensor> {
        Ok(PyTensor::new(
            Tensor::from_vec(lock(&self.g).state_bytes(), &[48]).py()?,
        ))
    }
    fn set_state(
        slf: PyRef<'_, Self>,
        new_state: PyRef<'_, PyTensor>,
    ) -> PyResult<Py<PyGenerator>> {
        if new_state.t.dtype() != DType::U8 {
            return Err(PyTypeError::new_err(
                "set_state: the RNG state must be a torch.ByteTensor",
            ));
        }
        lock(&slf.g)
            .set_state_bytes(&new_state.t.to_vec::<u8>())
            .py()?;
        Ok(slf.into())
    }
    #[getter]
    fn device(&self) -> crate::device::PyDevice {
        crate::device::PyDevice {
            d: ferrotorch::Device::Cpu,
        }
    }
}

fn seed_value(seed: &Bound<'_, PyAny>) -> PyResult<u64> {
    let v: i128 = seed
        .extract()
        .map_err(|_| PyTypeError::new_err("manual_seed expected an int"))?;
    // Negative seeds wrap like PyTorch's 64-bit seeds.
    Ok(v as u64)
}

fn gen_of(g: Option<PyRef<'_, PyGenerator>>) -> Option<SharedGenerator> {
    g.map(|g| g.g.clone())
}

/// Seeds the default generator (`torch.manual_seed`) and returns it.
#[pyfunction]
pub fn manual_seed(py: Python<'_>, seed: &Bound<'_, PyAny>) -> PyResult<Py<PyGenerator>> {
    *lock(default_generator()) = Generator::new(seed_value(seed)?);
    Py::new(
        py,
        PyGenerator {
            g: default_generator().clone(),
        },
    )
}

#[pyfunction]
pub fn seed() -> u64 {
    let s = fresh_seed();
    *lock(default_generator()) = Generator::new(s);
    s
}

#[pyfunction]
pub fn initial_seed() -> u64 {
    lock(default_generator()).seed()
}

#[pyfunction]
pub fn get_rng_state() -> PyResult<PyTensor> {
    Ok(PyTensor::new(
        Tensor::from_vec(lock(default_generator()).state_bytes(), &[48]).py()?,
    ))
}

#[pyfunction]
pub fn set_rng_state(new_state: PyRef<'_, PyTensor>) -> PyResult<()> {
    lock(default_generator())
        .set_state_bytes(&new_state.t.to_vec::<u8>())
        .py()
}

#[pyfunction]
pub fn _default_generator(py: Python<'_>) -> PyResult<Py<PyGenerator>> {
    Py::new(
        py,
        PyGenerator {
            g: default_generator().clone(),
        },
    )
}

fn dtype_or(d: Option<&Bound<'_, PyAny>>, default: DType) -> PyResult<DType> {
    match d {
        Some(d) if !d.is_none() => extract_dtype(d),
        _ => Ok(default),
    }
}

macro_rules! sampler {
    ($name:ident, $f:ident) => {
        #[pyfunction]
        #[pyo3(signature = (*size, generator=None, out=None, dtype=None, layout=None, device=None, requires_grad=false, pin_memory=false))]
        #[allow(clippy::too_many_arguments)]
        pub fn $name(size: &Bound<'_, PyTuple>, generator: Option<PyRef<'_, PyGenerator>>, out: Option<&Bound<'_, PyAny>>, dtype: Option<&Bound<'_, PyAny>>, layout: Option<&Bound<'_, PyAny>>, device: Option<&Bound<'_, PyAny>>, requires_grad: bool, pin_memory: bool) -> PyResult<PyTensor> {
            let _ = (out, layout, pin_memory);
            let dev = check_device(device)?;
            let shape = to_usize_shape(stringify!($name), &factory_sizes(stringify!($name), size)?)?;
            // Drawn where it will live: a GPU samples from its own seeded stream.
            let t = Tensor::$f(&shape, dtype_or(dtype, default_dtype())?, gen_of(generator).as_ref(), dev.unwrap_or(ferrotorch::Device::Cpu)).py()?;
            finish(t, dev, requires_grad)
        }
    };
}
sampler!(rand, rand_on);
sampler!(randn, randn_on);

/// `randint(high, size)` or `randint(low, high, size)`.
#[pyfunction]
#[pyo3(signature = (*args, generator=None, dtype=None, device=None, requires_grad=false, size=None))]
pub fn randint(
    args: &Bound<'_, PyTuple>,
    generator: Option<PyRef<'_, PyGenerator>>,
    dtype: Option<&Bound<'_, PyAny>>,
    device: Option<&Bound<'_, PyAny>>,
    requires_grad: bool,
    size: Option<&Bound<'_, PyAny>>,
) -> PyResult<PyTensor> {
    let dev = check_device(device)?;
    let mut ints = Vec::new();
    let mut shape_arg = size.cloned();
    for a in args.iter() {
        if let Ok(v) = a.extract::<i64>() {
            ints.push(v);
        } else {
            shape_arg = Some(a);
        }
    }
    let (low, high) = match ints.len() {
        1 => (0, ints[0]),
        2 => (ints[0], ints[1]),
        _ => {
            return Err(PyTypeError::new_err(
                "randint() expects (high, size) or (low, high, size)",
            ))
        }
    };
    let shape_arg = shape_arg
        .ok_or_else(|| PyTypeError::new_err("randint() missing required argument 'size'"))?;
    let shape = to_usize_shape("randint", &int_list(&shape_arg)?)?;
    let t = Tensor::randint(
        low,
        high,
        &shape,
        dtype_or(dtype, DType::I64)?,
        gen_of(generator).as_ref(),
    )
    .py()?;
    finish(t, dev, requires_grad)
}

#[pyfunction]
#[pyo3(signature = (n, *, generator=None, dtype=None, device=None, requires_grad=false))]
pub fn randperm(
    n: i64,
    generator: Option<PyRef<'_, PyGenerator>>,
    dtype: Option<&Bound<'_, PyAny>>,
    device: Option<&Bound<'_, PyAny>>,
    requires_grad: bool,
) -> PyResult<PyTensor> {
    let dev = check_device(device)?;
    if n < 0 {
        return Err(PyRuntimeError::new_err(format!(
            "randperm: n must be non-negative, got {n}"
        )));
    }
    finish(
        Tensor::randperm(
            n as usize,
            dtype_or(dtype, DType::I64)?,
            gen_of(generator).as_ref(),
        )
        .py()?,
        dev,
        requires_grad,
    )
}

#[pyfunction]
#[pyo3(signature = (input, p=None, *, generator=None))]
pub fn bernoulli(
    input: PyRef<'_, PyTensor>,
    p: Option<f64>,
    generator: Option<PyRef<'_, PyGenerator>>,
) -> PyResult<PyTensor> {
    let probs = match p {
        Some(p) => Tensor::full(
            input.t.shape(),
            ferrotorch::Scalar::Float(p),
            input.t.dtype(),
        )
        .py()?,
        None => input.t.clone(),
    };
    Ok(PyTensor::new(
        probs.bernoulli(gen_of(generator).as_ref()).py()?,
    ))
}

#[pyfunction]
#[pyo3(signature = (input, num_samples, replacement=false, *, generator=None))]
pub fn multinomial(
    input: PyRef<'_, PyTensor>,
    num_samples: usize,
    replacement: bool,
    generator: Option<PyRef<'_, PyGenerator>>,
) -> PyResult<PyTensor> {
    Ok(PyTensor::new(
        input
            .t
            .multinomial(num_samples, replacement, gen_of(generator).as_ref())
            .py()?,
    ))
}

/// `normal(mean, std, size=None)` with tensor or float mean/std.
#[pyfunction]
#[pyo3(signature = (mean=None, std=None, size=None, *, generator=None, dtype=None, requires_grad=false))]
pub fn normal(
    py: Python<'_>,
    mean: Option<&Bound<'_, PyAny>>,
    std: Option<&Bound<'_, PyAny>>,
    size: Option<&Bound<'_, PyAny>>,
    generator: Option<PyRef<'_, PyGenerator>>,
    dtype: Option<&Bound<'_, PyAny>>,
    requires_grad: bool,
) -> PyResult<PyTensor> {
    let g = gen_of(generator);
    let as_t = |o: Option<&Bound<'_, PyAny>>, dflt: f64| -> PyResult<Tensor> {
        match o {
            None => Ok(Tensor::scalar(ferrotorch::Scalar::Float(dflt), DType::F64)),
            Some(o) => {
                if let Ok(t) = o.cast::<PyTensor>() {
                    return Ok(t.borrow().t.clone());
                }
                let s = extract_scalar(o)?.ok_or_else(|| {
                    PyTypeError::new_err("normal(): mean and std must be Tensors or numbers")
                })?;
                Ok(Tensor::scalar(s, DType::F64))
            }
        }
    };
    let (m, s) = (as_t(mean, 0.0)?, as_t(std, 1.0)?);
    let tensor_arg = mean.is_some_and(|o| o.cast::<PyTensor>().is_ok())
        || std.is_some_and(|o| o.cast::<PyTensor>().is_ok());
    let shape: Vec<usize> = match size {
        Some(sz) => to_usize_shape("normal", &int_list(sz)?)?,
        None if tensor_arg => {
            ferrotorch::layout::broadcast_shapes("normal", m.shape(), s.shape()).py()?
        }
        None => {
            return Err(PyTypeError::new_err(
                "normal(): with float mean and std, size is required",
            ))
        }
    };
    if s.to_vec::<f64>().iter().any(|&v| v < 0.0) {
        return Err(PyRuntimeError::new_err(
            "normal expects all elements of std >= 0.0",
        ));
    }
    let dt = if tensor_arg {
        if m.dtype().is_float() {
            m.dtype()
        } else {
            s.dtype()
        }
    } else {
        dtype_or(dtype, default_dtype())?
    };
    let z = Tensor::randn(&shape, DType::F64, g.as_ref()).py()?;
    let _ = py;
    let out = z
        .mul(&s.to_dtype(DType::F64).py()?)
        .py()?
        .add(&m.to_dtype(DType::F64).py()?)
        .py()?
        .copy_as(dt)
        .py()?;
    finish(out, None, requires_grad)
}

macro_rules! like {
    ($name:ident, $f:ident) => {
        #[pyfunction]
        #[pyo3(signature = (input, *, dtype=None, device=None, requires_grad=false, generator=None))]
        pub fn $name(input: PyRef<'_, PyTensor>, dtype: Option<&Bound<'_, PyAny>>, device: Option<&Bound<'_, PyAny>>, requires_grad: bool, generator: Option<PyRef<'_, PyGenerator>>) -> PyResult<PyTensor> {
            let dev = check_device(device)?.unwrap_or(input.t.device());
            let t = Tensor::$f(input.t.shape(), dtype_or(dtype, input.t.dtype())?, gen_of(generator).as_ref(), dev).py()?;
            finish(t, Some(dev), requires_grad)
        }
    };
}
like!(rand_like, rand_on);
like!(randn_like, randn_on);

#[pyfunction]
#[pyo3(signature = (input, low=None, high=None, *, dtype=None, device=None, requires_grad=false))]
pub fn randint_like(
    input: PyRef<'_, PyTensor>,
    low: Option<i64>,
    high: Option<i64>,
    dtype: Option<&Bound<'_, PyAny>>,
    device: Option<&Bound<'_, PyAny>>,
    requires_grad: bool,
) -> PyResult<PyTensor> {
    let dev = check_device(device)?.or(Some(input.t.device()));
    let (lo, hi) = match (low, high) {
        (Some(h), None) => (0, h),
        (Some(l), Some(h)) => (l, h),
        _ => {
            return Err(PyTypeError::new_err(
                "randint_like() missing required argument 'high'",
            ))
        }
    };
    finish(
        Tensor::randint(
            lo,
            hi,
            input.t.shape(),
            dtype_or(dtype, input.t.dtype())?,
            None,
        )
        .py()?,
        dev,
        requires_grad,
    )
}

#[pymethods]
impl PyTensor {
    #[pyo3(signature = (from_=0.0, to=1.0, *, generator=None))]
    #[pyo3(name = "uniform_")]
    fn uniform_inplace<'py>(
        slf: PyRef<'py, Self>,
        from_: f64,
        to: f64,
        generator: Option<PyRef<'py, PyGenerator>>,
    ) -> PyResult<PyRef<'py, Self>> {
        slf.t.uniform_(from_, to, gen_of(generator).as_ref()).py()?;
        Ok(slf)
    }
    #[pyo3(signature = (mean=0.0, std=1.0, *, generator=None))]
    #[pyo3(name = "normal_")]
    fn normal_inplace<'py>(
        slf: PyRef<'py, Self>,
        mean: f64,
        std: f64,
        generator: Option<PyRef<'py, PyGenerator>>,
    ) -> PyResult<PyRef<'py, Self>> {
        slf.t.normal_(mean, std, gen_of(generator).as_ref()).py()?;
        Ok(slf)
    }
    #[pyo3(signature = (from_=None, to=None, *, generator=None))]
    #[pyo3(name = "random_")]
    fn random_inplace<'py>(
        slf: PyRef<'py, Self>,
        from_: Option<i64>,
        to: Option<i64>,
        generator: Option<PyRef<'py, PyGenerator>>,
    ) -> PyResult<PyRef<'py, Self>> {
        let (lo, hi) = match (from_, to) {
            (Some(h), None) => (0, h),
            (Some(l), Some(h)) => (l, h),
            _ => (0, 1 << 24),
        };
        slf.t.random_(lo, hi, gen_of(generator).as_ref()).py()?;
        Ok(slf)
    }
    #[pyo3(signature = (lambd=1.0, *, generator=None))]
    #[pyo3(name = "exponential_")]
    fn exponential_inplace<'py>(
        slf: PyRef<'py, Self>,
        lambd: f64,
        generator: Option<PyRef<'py, PyGenerator>>,
    ) -> PyResult<PyRef<'py, Self>> {
        slf.t.exponential_(lambd, gen_of(generator).as_ref()).py()?;
        Ok(slf)
    }
    #[pyo3(signature = (p=None, *, generator=None))]
    #[pyo3(name = "bernoulli_")]
    fn bernoulli_inplace<'py>(
        slf: PyRef<'py, Self>,
        p: Option<&Bound<'py, PyAny>>,
        generator: Option<PyRef<'py, PyGenerator>>,
    ) -> PyResult<PyRef<'py, Self>> {
        if slf.t.device() != ferrotorch::Device::Cpu
            && p.is_none_or(|p| p.cast::<PyTensor>().is_err())
        {
            // A scalar probability on a GPU: drawn there, from the device's stream.
            let p = p.map(|p| p.extract::<f64>()).transpose()?.unwrap_or(0.5);
            slf.t
                .bernoulli_scalar_(p, gen_of(generator).as_ref())
                .py()?;
            return Ok(slf);
        }
        let probs = match p {
            Some(p) if p.cast::<PyTensor>().is_ok() => p
                .cast::<PyTensor>()?
                .borrow()
                .t
                .broadcast_to(slf.t.shape())
                .py()?
                .contiguous()
                .py()?,
            Some(p) => Tensor::full(
                slf.t.shape(),
                ferrotorch::Scalar::Float(p.extract()?),
                DType::F64,
            )
            .py()?,
            None => Tensor::full(slf.t.shape(), ferrotorch::Scalar::Float(0.5), DType::F64).py()?,
        };
        let draw = probs.bernoulli(gen_of(generator).as_ref()).py()?;
        let _g = ferrotorch::autograd::GradModeGuard::new(false);
        slf.t
            .detach()
            .apply_inplace("bernoulli_", &[], |_| draw.copy_as(slf.t.dtype()))
            .py()?;
        Ok(slf)
    }
    #[pyo3(name = "bernoulli")]
    #[pyo3(signature = (*, generator=None))]
    fn bernoulli_method(&self, generator: Option<PyRef<'_, PyGenerator>>) -> PyResult<PyTensor> {
        Ok(PyTensor::new(
            self.t.bernoulli(gen_of(generator).as_ref()).py()?,
        ))
    }
    #[pyo3(name = "multinomial")]
    #[pyo3(signature = (num_samples, replacement=false, *, generator=None))]
    fn multinomial_method(
        &self,
        num_samples: usize,
        replacement: bool,
        generator: Option<PyRef<'_, PyGenerator>>,
    ) -> PyResult<PyTensor> {
        Ok(PyTensor::new(
            self.t
                .multinomial(num_samples, replacement, gen_of(generator).as_ref())
                .py()?,
        ))
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyGenerator>()?;
    for f in [
        wrap_pyfunction!(manual_seed, m)?,
        wrap_pyfunction!(seed, m)?,
        wrap_pyfunction!(initial_seed, m)?,
        wrap_pyfunction!(get_rng_state, m)?,
        wrap_pyfunction!(set_rng_state, m)?,
        wrap_pyfunction!(_default_generator, m)?,
        wrap_pyfunction!(rand, m)?,
        wrap_pyfunction!(randn, m)?,
        wrap_pyfunction!(randint, m)?,
        wrap_pyfunction!(randperm, m)?,
        wrap_pyfunction!(bernoulli, m)?,
        wrap_pyfunction!(multinomial, m)?,
        wrap_pyfunction!(normal, m)?,
        wrap_pyfunction!(rand_like, m)?,
        wrap_pyfunction!(randn_like, m)?,
        wrap_pyfunction!(randint_like, m)?,
    ] {
        m.add_function(f)?;
    }
    Ok(())
}
