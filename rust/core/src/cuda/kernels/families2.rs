//! Reductions, scans, softmax, layer norm, losses, indexing, convolution and pooling.
//! Kernels are instantiated per dtype as `<kernel>_<suffix>` (`launch::suffix`).

use super::KernelModule;

/// Helpers of the row-wise modules (math overloads, NaN-aware max/min, block reduction,
/// instantiation lists), prepended after `COMMON`.
macro_rules! rowops {
    ($($file:literal),*) => {
        concat!(include_str!("rowops.cuh"), $(include_str!($file)),*)
    };
}

/// Reductions: sum, prod, mean, max, min, any, all, count_nonzero.
pub const REDUCE: KernelModule = KernelModule {
    name: "reduce",
    source: rowops!("reduce_rows.cuh", "reduce.cu"),
    functions: kernel_names!(
        ["reduce_sum", "reduce_prod", "reduce_max", "reduce_min", "reduce_any", "reduce_all",
         "reduce_count_nonzero"]
            x ["f32", "f64", "f16", "bf16", "i64", "i32", "i16", "i8", "u8", "bool"];
        ["reduce_mean"] x ["f32", "f64", "f16", "bf16"]
    ),
};

/// var, std, vector_norm, logsumexp (floats) and the value-and-index max/min (all dtypes).
pub const REDUCE_STATS: KernelModule = KernelModule {
    name: "reduce_stats",
    source: rowops!("reduce_rows.cuh", "reduce_stats.cu"),
    functions: kernel_names!(
        ["reduce_var", "reduce_std", "reduce_norm", "reduce_logsumexp"]
            x ["f32", "f64", "f16", "bf16"];
        ["reduce_arg"] x ["f32", "f64", "f16", "bf16", "i64", "i32", "i16", "i8", "u8", "bool"]
    ),
};
