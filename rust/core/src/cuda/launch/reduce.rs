//! Reductions over a set of dims (kernels in `reduce.cu` / `reduce_stats.cu`).
//!
//! Views: `outer` is the view of the kept dims (shape = the output's shape, strides = the
//! input's strides of those dims, offset = the input's offset) and `inner` the view of the
//! reduced dims (shape = their sizes, strides = the input's, offset 0). Output element `o`
//! reduces the input elements at `strided_offset(outer, o) + strided_offset(inner, j)`,
//! `j in 0..n_inner`. The output is contiguous with the pointer at element 0.
//!
//! Each output is reduced by one group of up to 256 threads (the tree combines in a fixed
//! order: deterministic). A few outputs over very many elements (a full `sum()`) therefore
//! use few threads: for speed the caller may reduce in two steps (view the elements as
//! [B, n/B], reduce the last dim, then the first) for Sum, Prod, Max, Min, Any, All and
//! CountNonzero (then Sum), and Mean as Sum divided by n.

use super::{launch_err, suffix, Kernels, Stream, Strided};
use crate::cuda::kernels::{KernelModule, REDUCE, REDUCE_STATS};
use crate::{DType, Error, Result};
use cudarc::driver::{LaunchConfig, PushKernelArg};

/// A reduction. Output dtypes (checked against `dst_dtype`): Sum and Prod keep float dtypes
/// and give I64 for integers and bool; Mean, Var, Std, Norm and LogSumExp take floats and
/// keep their dtype; Max and Min keep the dtype (NaN wins); ArgMax and ArgMin give I64 (the
/// first index of the extreme, NaN counting as the extreme); Any and All give Bool or U8
/// (0/1 bytes); CountNonzero gives I64.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ReduceOp {
    Sum,
    Mean,
    Prod,
    Max,
    Min,
    ArgMax,
    ArgMin,
    Var {
        correction: f64,
    },
    Std {
        correction: f64,
    },
    /// `linalg.vector_norm`: p = 0 (count of nonzeros), 1, 2, inf, -inf or any other value.
    Norm {
        p: f64,
    },
    LogSumExp,
    Any,
    All,
    CountNonzero,
}

impl ReduceOp {
    fn name(&self) -> &'static str {
        match self {
            ReduceOp::Sum => "sum",
            ReduceOp::Mean => "mean",
            ReduceOp::Prod => "prod",
            ReduceOp::Max => "max",
            ReduceOp::Min => "min",
            ReduceOp::ArgMax => "argmax",
            ReduceOp::ArgMin => "argmin",
            ReduceOp::Var { .. } => "var",
            ReduceOp::Std { .. } => "std",
            ReduceOp::Norm { .. } => "norm",
            ReduceOp::LogSumExp => "logsumexp",
            ReduceOp::Any => "any",
            ReduceOp::All => "all",
            ReduceOp::CountNonzero => "count_nonzero",
        }
    }
}

/// The kernel for `op` on `src` and the output dtypes it may write.
pub(crate) fn reduce_kernel(
    op: ReduceOp,
    src: DType,
) -> Result<(&'static KernelModule, String, Vec<DType>)> {
    let sfx = suffix(src);
    let float_only = || -> Result<()> {
        if src.is_float() {
            Ok(())
        } else {
            Err(Error::type_error(format!(
                "CUDA {}: not implemented for '{}'",
                op.name(),
                src.name()
            )))
        }
    };
    let accum = if src.is_float() { src } else { DType::I64 };
    Ok(match op {
        ReduceOp::Sum => (&REDUCE, format!("reduce_sum_{sfx}"), vec![accum]),
        ReduceOp::Prod => (&REDUCE, format!("reduce_prod_{sfx}"), vec![accum]),
        ReduceOp::Mean => {
            float_only()?;
            (&REDUCE, format!("reduce_mean_{sfx}"), vec![src])
        }
        ReduceOp::Max => (&REDUCE, format!("reduce_max_{sfx}"), vec![src]),
        ReduceOp::Min => (&REDUCE, format!("reduce_min_{sfx}"), vec![src]),
        ReduceOp::Any => (
            &REDUCE,
            format!("reduce_any_{sfx}"),
            vec![DType::Bool, DType::U8],
        ),
        ReduceOp::All => (
            &REDUCE,
            format!("reduce_all_{sfx}"),
            vec![DType::Bool, DType::U8],
        ),
        ReduceOp::CountNonzero => (
            &REDUCE,
            format!("reduce_count_nonzero_{sfx}"),
            vec![DType::I64],
        ),
        ReduceOp::ArgMax | ReduceOp::ArgMin => {
            (&REDUCE_STATS, format!("reduce_arg_{sfx}"), vec![DType::I64])
        }
        ReduceOp::Var { .. }
        | ReduceOp::Std { .. }
        | ReduceOp::Norm { .. }
        | ReduceOp::LogSumExp => {
            float_only()?;
            (
                &REDUCE_STATS,
                format!("reduce_{}_{sfx}", op.name()),
                vec![src],
            )
        }
    })
}

/// Block shape for `n_out` outputs of `n_inner` elements: a power-of-two number of threads per
/// output (up to 256), 256 threads a block, blocks looping over the outputs.
pub(crate) fn reduce_config(n_out: usize, n_inner: usize) -> LaunchConfig {
    let w = n_inner.next_power_of_two().clamp(1, 256);
    let g = 256 / w;
    let blocks = n_out.div_ceil(g).clamp(1, 1 << 20) as u32;
    LaunchConfig {
        grid_dim: (blocks, 1, 1),
        block_dim: (w as u32, g as u32, 1),
        shared_mem_bytes: 0,
    }
}

/// Reduces `src` (dtype `src_dtype`, base pointer, views `outer`/`inner` as in the module
/// doc) into `dst` (contiguous, `n_out` elements, pointer at element 0, dtype `dst_dtype`
/// as `ReduceOp` documents). An empty reduction (`n_inner == 0`) gives 0 for Sum,
/// CountNonzero and Norm (p != -inf), 1 for Prod, NaN for Mean/Var/Std, -inf for LogSumExp,
/// false for Any, true for All; Max, Min, ArgMax and ArgMin of nothing must be rejected by
/// the caller (their output is unspecified).
#[allow(clippy::too_many_arguments)]
pub fn reduce(
    k: &dyn Kernels,
    stream: &Stream,
    op: ReduceOp,
    src: u64,
    src_dtype: DType,
    outer: &Strided,
    inner: &Strided,
    dst: u64,
    dst_dtype: DType,
    n_out: usize,
    n_inner: usize,
) -> Result<()> {
    let (module, name, outs) = reduce_kernel(op, src_dtype)?;
    if !outs.contains(&dst_dtype) {
        return Err(Error::type_error(format!(
            "CUDA {}: output dtype {} is not valid for input {}",
            op.name(),
            dst_dtype.name(),
            src_dtype.name()
        )));
    }
    if n_out == 0 {
        return Ok(());
    }
    let f = k.function(module, &name)?;
    let cfg = reduce_config(n_out, n_inner);
    let (outer, inner) = (*outer, *inner);
    let (n_out, n_inner) = (n_out as i64, n_inner as i64);
    let mut b = stream.launch_builder(&f);
    b.arg(&src).arg(&outer).arg(&inner);
    let (null, is_max) = (0u64, (op == ReduceOp::ArgMax) as i32);
    let param = match op {
        ReduceOp::Var { correction } | ReduceOp::Std { correction } => correction,
        ReduceOp::Norm { p } => p,
        _ => 0.0,
    };
    if matches!(op, ReduceOp::ArgMax | ReduceOp::ArgMin) {
        b.arg(&null)
            .arg(&dst)
            .arg(&n_out)
            .arg(&n_inner)
            .arg(&is_max);
    } else {
        b.arg(&dst).arg(&n_out).arg(&n_inner).arg(&param);
    }
    unsafe { b.launch(cfg) }.map_err(launch_err(&name))?;
    Ok(())
}

/// `max(dim)` / `min(dim)`: values (dtype `dtype`) and I64 indices (first extreme; NaN wins),
/// both contiguous with `n_out` elements, pointers at element 0; views as in the module doc.
/// `n_inner` must be positive (the caller rejects empty reductions).
#[allow(clippy::too_many_arguments)]
pub fn max_with_indices(
    k: &dyn Kernels,
    stream: &Stream,
    src: u64,
    dtype: DType,
    outer: &Strided,
    inner: &Strided,
    vals: u64,
    idx: u64,
    n_out: usize,
    n_inner: usize,
    is_max: bool,
) -> Result<()> {
    let (module, name, _) = reduce_kernel(ReduceOp::ArgMax, dtype)?;
    if n_out == 0 {
        return Ok(());
    }
    let f = k.function(module, &name)?;
    let cfg = reduce_config(n_out, n_inner);
    let (outer, inner) = (*outer, *inner);
    let (n_out, n_inner, is_max) = (n_out as i64, n_inner as i64, is_max as i32);
    let mut b = stream.launch_builder(&f);
    b.arg(&src).arg(&outer).arg(&inner).arg(&vals).arg(&idx);
    b.arg(&n_out).arg(&n_inner).arg(&is_max);
    unsafe { b.launch(cfg) }.map_err(launch_err(&name))?;
    Ok(())
}

#[cfg(test)]
pub(crate) const ALL_DTYPES: [DType; 10] = [
    DType::F32,
    DType::F64,
    DType::F16,
    DType::BF16,
    DType::I64,
    DType::I32,
    DType::I16,
    DType::I8,
    DType::U8,
    DType::Bool,
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_reduce_kernel_is_defined() {
        let ops = [
            ReduceOp::Sum,
            ReduceOp::Mean,
            ReduceOp::Prod,
            ReduceOp::Max,
            ReduceOp::Min,
            ReduceOp::ArgMax,
            ReduceOp::ArgMin,
            ReduceOp::Var { correction: 1.0 },
            ReduceOp::Std { correction: 0.0 },
            ReduceOp::Norm { p: 2.0 },
            ReduceOp::LogSumExp,
            ReduceOp::Any,
            ReduceOp::All,
            ReduceOp::CountNonzero,
        ];
        for op in ops {
            for dt in ALL_DTYPES {
                match reduce_kernel(op, dt) {
                    Ok((m, name, _)) => assert!(m.functions.contains(&name.as_str()), "{name}"),
                    Err(_) => assert!(!dt.is_float(), "{op:?} {dt:?}"),
                }
            }
        }
    }

    #[test]
    fn block_shapes_use_256_threads() {
        for (o, i) in [(1, 1), (5, 3), (1000, 1000), (7, 0), (1 << 30, 2)] {
            let c = reduce_config(o, i);
            assert_eq!(c.block_dim.0 * c.block_dim.1, 256);
            assert!(c.grid_dim.0 >= 1);
        }
    }
}
