//! `torch.*`-style tensor factories in the default dtype (float32), for code that reads like
//! PyTorch: `ferrotorch::randn(&[2, 3])` is `torch.randn(2, 3)`.
#![warn(missing_docs)]

use crate::random::{default_generator, Generator};
use crate::{DType, Result, Scalar, Tensor};

/// Samples a float32 tensor from the standard normal distribution, as `torch.randn`.
///
/// Draws from the process-wide generator that [`manual_seed`] seeds; for another dtype or
/// generator use [`Tensor::randn`].
///
/// # Examples
///
/// ```
/// let x = ferrotorch::randn(&[2, 3])?;
/// assert_eq!(x.shape(), &[2, 3]);
/// assert_eq!(x.dtype(), ferrotorch::DType::F32);
/// # Ok::<(), ferrotorch::Error>(())
/// ```
pub fn randn(shape: &[usize]) -> Result<Tensor> {
    Tensor::randn(shape, DType::F32, None)
}

/// Samples a float32 tensor uniformly from `[0, 1)`, as `torch.rand`.
///
/// # Examples
///
/// ```
/// let x = ferrotorch::rand(&[4])?;
/// assert!(x.to_vec::<f32>().iter().all(|v| (0.0..1.0).contains(v)));
/// # Ok::<(), ferrotorch::Error>(())
/// ```
pub fn rand(shape: &[usize]) -> Result<Tensor> {
    Tensor::rand(shape, DType::F32, None)
}

/// A float32 tensor of zeros, as `torch.zeros`.
///
/// # Examples
///
/// ```
/// assert_eq!(ferrotorch::zeros(&[2])?.to_vec::<f32>(), vec![0.0, 0.0]);
/// # Ok::<(), ferrotorch::Error>(())
/// ```
pub fn zeros(shape: &[usize]) -> Result<Tensor> {
    Tensor::zeros(shape, DType::F32)
}

/// A float32 tensor of ones, as `torch.ones`.
///
/// # Examples
///
/// ```
/// assert_eq!(ferrotorch::ones(&[2])?.to_vec::<f32>(), vec![1.0, 1.0]);
/// # Ok::<(), ferrotorch::Error>(())
/// ```
pub fn ones(shape: &[usize]) -> Result<Tensor> {
    Tensor::ones(shape, DType::F32)
}

/// A float32 tensor filled with `value`, as `torch.full`.
///
/// # Examples
///
/// ```
/// assert_eq!(ferrotorch::full(&[2], 0.5)?.to_vec::<f32>(), vec![0.5, 0.5]);
/// # Ok::<(), ferrotorch::Error>(())
/// ```
pub fn full(shape: &[usize], value: f64) -> Result<Tensor> {
    Tensor::full(shape, Scalar::Float(value), DType::F32)
}

/// The integers `0, 1, ..., end - 1` as an int64 tensor, as `torch.arange(end)`.
///
/// For a start, a step or a float dtype use [`Tensor::arange`].
///
/// # Examples
///
/// ```
/// assert_eq!(ferrotorch::arange(4)?.to_vec::<i64>(), vec![0, 1, 2, 3]);
/// # Ok::<(), ferrotorch::Error>(())
/// ```
pub fn arange(end: i64) -> Result<Tensor> {
    Tensor::arange(0.0, end as f64, 1.0, DType::I64)
}

/// A float32 tensor with `data` in row-major order, as `torch.tensor(data).reshape(shape)`.
///
/// # Examples
///
/// ```
/// let x = ferrotorch::tensor(&[1.0, 2.0, 3.0, 4.0], &[2, 2])?;
/// assert_eq!(x.shape(), &[2, 2]);
/// # Ok::<(), ferrotorch::Error>(())
/// ```
pub fn tensor(data: &[f32], shape: &[usize]) -> Result<Tensor> {
    Tensor::from_vec(data.to_vec(), shape)
}

/// Seeds the process-wide generator that [`randn`], [`rand`] and the `nn` initializers draw
/// from, as `torch.manual_seed`.
///
/// # Examples
///
/// ```
/// ferrotorch::manual_seed(0);
/// let a = ferrotorch::randn(&[3])?;
/// ferrotorch::manual_seed(0);
/// assert_eq!(a.to_vec::<f32>(), ferrotorch::randn(&[3])?.to_vec::<f32>());
/// # Ok::<(), ferrotorch::Error>(())
/// ```
pub fn manual_seed(seed: u64) {
    let mut g = default_generator()
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    *g = Generator::new(seed);
}
