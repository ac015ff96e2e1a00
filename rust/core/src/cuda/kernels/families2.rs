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

/// cumsum / cumprod along one dim.
pub const SCAN: KernelModule = KernelModule {
    name: "scan",
    source: rowops!("scan.cu"),
    functions: kernel_names!(
        ["scan_cumsum", "scan_cumprod"]
            x ["f32", "f64", "f16", "bf16", "i64", "i32", "i16", "i8", "u8", "bool"]
    ),
};

/// softmax / log_softmax forward and backward over rows.
pub const SOFTMAX: KernelModule = KernelModule {
    name: "softmax",
    source: rowops!("softmax.cu"),
    functions: kernel_names!(
        ["softmax_forward", "softmax_backward"] x ["f32", "f64", "f16", "bf16"]
    ),
};

/// Layer norm over rows: forward, input gradient, weight and bias gradients.
pub const LAYER_NORM: KernelModule = KernelModule {
    name: "layer_norm",
    source: rowops!("layer_norm.cu"),
    functions: kernel_names!(
        ["layer_norm_forward", "layer_norm_backward", "layer_norm_param_grad"]
            x ["f32", "f64", "f16", "bf16"]
    ),
};

/// nll_loss forward and backward.
pub const LOSS: KernelModule = KernelModule {
    name: "loss",
    source: rowops!("loss.cu"),
    functions: kernel_names!(
        ["nll_loss_forward", "nll_loss_backward"] x ["f32", "f64", "f16", "bf16"]
    ),
};

/// index_select, index_add, gather and scatter (set / add / mul / amax / amin).
pub const INDEX: KernelModule = KernelModule {
    name: "index",
    source: rowops!("atomics.cuh", "index.cu"),
    functions: kernel_names!(
        ["index_select", "index_add", "gather", "scatter_set", "scatter_add", "scatter_mul",
         "scatter_amax", "scatter_amin"]
            x ["f32", "f64", "f16", "bf16", "i64", "i32", "i16", "i8", "u8", "bool"]
    ),
};

/// im2col / col2im for convolution as GEMM.
pub const CONV: KernelModule = KernelModule {
    name: "conv",
    source: rowops!("win2d.cuh", "conv.cu"),
    functions: kernel_names!(["im2col", "col2im"] x ["f32", "f64", "f16", "bf16"]),
};

/// max_pool2d (with indices) and avg_pool2d, forward and backward.
pub const POOL: KernelModule = KernelModule {
    name: "pool",
    source: rowops!("win2d.cuh", "pool.cu"),
    functions: kernel_names!(
        ["max_pool2d_forward"] x ["f32", "f64", "f16", "bf16", "i64", "i32", "i16", "i8", "u8"];
        ["max_pool2d_backward", "avg_pool2d_forward", "avg_pool2d_backward"]
            x ["f32", "f64", "f16", "bf16"]
    ),
};
