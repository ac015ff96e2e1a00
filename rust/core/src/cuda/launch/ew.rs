//! Helpers shared by the elementwise launchers (copy, fill, unary, binary, ternary, random,
//! optim): view simplification, scalar arguments, and the launch boilerplate.

use super::{Strided, MAX_DIMS};
use crate::{with_dtype, DType, Element, Error, Result, Scalar};

/// Launches `$name` from `$module` with the given kernel arguments (references to locals that
/// live until the launch returns) on a 1-D grid over `$n` elements.
macro_rules! launch {
    ($k:expr, $stream:expr, $module:expr, $name:expr, $n:expr, [$($arg:expr),* $(,)?]) => {{
        let name: &str = &$name;
        let f = $k.function($module, name)?;
        let mut b = $stream.launch_builder(&f);
        $( cudarc::driver::PushKernelArg::arg(&mut b, $arg); )*
        unsafe { b.launch($crate::cuda::launch::grid_for($n)) }
            .map_err($crate::cuda::launch::launch_err(name))?;
    }};
}
pub(crate) use launch;

/// The number of elements a view covers.
pub fn numel(v: &Strided) -> usize {
    v.shape[..v.ndim.max(0) as usize]
        .iter()
        .map(|&n| n.max(0) as usize)
        .product()
}

/// A contiguous one-dimensional view of `n` elements starting at element `offset`.
pub fn flat(n: usize, offset: usize) -> Strided {
    let mut s = Strided {
        ndim: 1,
        offset: offset as i64,
        ..Default::default()
    };
    s.shape[0] = n as i64;
    s.strides[0] = 1;
    s
}

/// The same elements in the same row-major order with fewer dimensions: size-1 dimensions
/// dropped, and each dimension merged into the next inner one when it steps exactly over it
/// (a contiguous view becomes one dimension of stride 1, a broadcast one stride 0).
pub fn coalesce(v: &Strided) -> Strided {
    let nd = v.ndim.clamp(0, MAX_DIMS as i32) as usize;
    // (size, stride) from the innermost dimension outwards.
    let mut dims: Vec<(i64, i64)> = Vec::with_capacity(nd);
    for d in (0..nd).rev() {
        let (n, st) = (v.shape[d], v.strides[d]);
        if n == 1 {
            continue;
        }
        match dims.last_mut() {
            Some((inner_n, inner_st)) if st == *inner_st * *inner_n => *inner_n *= n,
            _ => dims.push((n, st)),
        }
    }
    let mut out = Strided {
        ndim: dims.len() as i32,
        offset: v.offset,
        ..Default::default()
    };
    for (d, &(n, st)) in dims.iter().rev().enumerate() {
        out.shape[d] = n;
        out.strides[d] = st;
    }
    out
}

/// Whether a (coalesced) view is `n` consecutive elements from its offset.
pub fn is_flat(v: &Strided) -> bool {
    v.ndim == 0 || (v.ndim == 1 && v.strides[0] == 1)
}

/// Checks that a view covers `n` elements (views are broadcast to the output shape).
pub fn check_view(op: &str, what: &str, v: &Strided, n: usize) -> Result<()> {
    if v.ndim < 0 || v.ndim as usize > MAX_DIMS {
        return Err(Error::runtime(format!(
            "{op}: {what} view has {} dimensions (at most {MAX_DIMS})",
            v.ndim
        )));
    }
    let m = numel(v);
    if m != n {
        return Err(Error::runtime(format!(
            "{op}: {what} view covers {m} elements, expected {n}"
        )));
    }
    Ok(())
}

/// A Python scalar as kernel arguments `(f, i)` for dtype `dt`: converted to the element type
/// first, as `Tensor::scalar(s, dt)` does on the CPU (so it is exactly representable), then
/// `f` carries it for floating dtypes and `i` for integer dtypes and bool (0 or 1).
pub fn scalar_args(dt: DType, s: Scalar) -> (f64, i64) {
    // No complex tensor reaches a kernel (`backend::cuda_of` refuses them).
    let dt = dt.to_real();
    let f = || -> crate::Result<(f64, i64)> {
        Ok(with_dtype!(dt, T => {
            let v: T = s.to_elem();
            if dt.is_float() {
                (v.to_f64(), 0)
            } else {
                (0.0, v.to_i64())
            }
        }))
    };
    f().unwrap_or((0.0, 0))
}

/// `x` rounded to dtype `dt` (a floating dtype), as an f64.
pub fn round_to(dt: DType, x: f64) -> f64 {
    scalar_args(dt, Scalar::Float(x)).0
}

pub fn unsupported(op: &str, dt: DType) -> Error {
    Error::type_error(format!(
        "{op}: no CUDA kernel for dtype {} (\"{op}_cuda\" not implemented for '{}')",
        dt.name(),
        dt.name()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view(shape: &[usize], strides: &[usize], offset: usize) -> Strided {
        Strided::from_parts(shape, strides, offset, "test").unwrap()
    }

    /// Offsets of every element in row-major order, as the kernels compute them.
    fn offsets(v: &Strided) -> Vec<i64> {
        (0..numel(v) as i64)
            .map(|mut lin| {
                let mut off = v.offset;
                for d in (0..v.ndim as usize).rev() {
                    off += (lin % v.shape[d]) * v.strides[d];
                    lin /= v.shape[d];
                }
                off
            })
            .collect()
    }

    #[test]
    fn coalescing_keeps_the_element_order() {
        let cases = [
            view(&[2, 3, 4], &[12, 4, 1], 5),
            view(&[2, 3, 4], &[1, 2, 6], 0),
            view(&[2, 1, 4], &[4, 7, 1], 3),
            view(&[3, 4], &[0, 1], 0),
            view(&[3, 4], &[4, 0], 0),
            view(&[2, 3, 4], &[24, 4, 1], 1),
            view(&[1, 1], &[9, 9], 2),
            view(&[], &[], 7),
        ];
        for v in cases {
            let c = coalesce(&v);
            assert_eq!(offsets(&v), offsets(&c), "{v:?} -> {c:?}");
            assert!(c.ndim <= v.ndim);
        }
        assert!(is_flat(&coalesce(&view(&[2, 3, 4], &[12, 4, 1], 5))));
        assert!(is_flat(&coalesce(&view(&[1, 1], &[9, 9], 2))));
        assert!(!is_flat(&coalesce(&view(&[2, 3, 4], &[24, 4, 1], 1))));
        assert_eq!(coalesce(&view(&[2, 3, 4], &[24, 4, 1], 1)).ndim, 2);
    }

    #[test]
    fn scalars_are_rounded_to_the_dtype() {
        assert_eq!(scalar_args(DType::I8, Scalar::Int(300)), (0.0, 44));
        assert_eq!(scalar_args(DType::I32, Scalar::Float(-2.7)), (0.0, -2));
        assert_eq!(scalar_args(DType::Bool, Scalar::Float(0.5)), (0.0, 1));
        assert_eq!(
            scalar_args(DType::F16, Scalar::Float(0.1)).0,
            half::f16::from_f64(0.1).to_f64()
        );
        assert_eq!(scalar_args(DType::F32, Scalar::Int(3)), (3.0, 0));
        assert_eq!(round_to(DType::F64, 0.1), 0.1);
    }
}
