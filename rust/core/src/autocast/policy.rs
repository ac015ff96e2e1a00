//! PyTorch's autocast op lists (aten names), per device type, as in its Autocast Op Reference.
//! An op that is on no list runs on its inputs as they come.

use super::DeviceType;

/// What autocast does to an op's floating inputs.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum CastPolicy {
    /// Cast to the region's lower-precision dtype (bfloat16 / float16).
    LowerPrecision,
    /// Cast to float32.
    Fp32,
    /// Run in float32 when the first input is eligible (ops with an optional output dtype).
    Fp32FirstArg,
    /// Run in the widest floating dtype among the inputs.
    Promote,
    /// Refused under autocast, with this message.
    Banned(&'static str),
}

const BCE_BANNED: &str =
    "torch.nn.functional.binary_cross_entropy and torch.nn.BCELoss are unsafe to autocast.\n\
Many models use a sigmoid layer right before the binary cross entropy layer.\n\
In this case, combine the two layers using torch.nn.functional.binary_cross_entropy_with_logits\n\
or torch.nn.BCEWithLogitsLoss.  binary_cross_entropy_with_logits and BCEWithLogits are\n\
safe to autocast.";

/// The policy of `op` (an aten name such as `"mm"` or `"mse_loss"`) on `device`.
pub fn policy(op: &str, device: DeviceType) -> Option<CastPolicy> {
    match device {
        DeviceType::Cpu => cpu_policy(op),
        DeviceType::Cuda => cuda_policy(op),
    }
}

fn cpu_policy(op: &str) -> Option<CastPolicy> {
    use CastPolicy::*;
    Some(match op {
        "conv1d"
        | "conv2d"
        | "conv3d"
        | "bmm"
        | "mm"
        | "linalg_vecdot"
        | "baddbmm"
        | "addmm"
        | "_addmm_activation"
        | "addbmm"
        | "linear"
        | "_convolution"
        | "matmul"
        | "conv_tbc"
        | "mkldnn_rnn_layer"
        | "conv_transpose1d"
        | "conv_transpose2d"
        | "conv_transpose3d"
        | "prelu"
        | "scaled_dot_product_attention"
        | "_native_multi_head_attention" => LowerPrecision,
        "avg_pool3d"
        | "binary_cross_entropy"
        | "grid_sampler"
        | "polar"
        | "prod"
        | "quantile"
        | "nanquantile"
        | "stft"
        | "cdist"
        | "grid_sampler_2d"
        | "grid_sampler_3d"
        | "trace"
        | "view_as_complex"
        | "cholesky"
        | "cholesky_inverse"
        | "cholesky_solve"
        | "inverse"
        | "lu_solve"
        | "orgqr"
        | "ormqr"
        | "pinverse"
        | "max_pool3d"
        | "max_unpool2d"
        | "max_unpool3d"
        | "adaptive_avg_pool3d"
        | "reflection_pad1d"
        | "reflection_pad2d"
        | "replication_pad1d"
        | "replication_pad2d"
        | "replication_pad3d"
        | "mse_loss"
        | "cosine_embedding_loss"
        | "nll_loss"
        | "nll_loss2d"
        | "hinge_embedding_loss"
        | "poisson_nll_loss"
        | "smooth_l1_loss"
        | "cross_entropy_loss"
        | "l1_loss"
        | "huber_loss"
        | "margin_ranking_loss"
        | "soft_margin_loss"
        | "triplet_margin_loss"
        | "multi_margin_loss"
        | "ctc_loss"
        | "kl_div"
        | "multilabel_margin_loss"
        | "binary_cross_entropy_with_logits"
        | "fft_fft"
        | "fft_ifft"
        | "fft_fft2"
        | "fft_ifft2"
        | "fft_fftn"
        | "fft_ifftn"
        | "fft_rfft"
        | "fft_irfft"
        | "fft_rfft2"
        | "fft_irfft2"
        | "fft_rfftn"
        | "fft_irfftn"
        | "fft_hfft"
        | "fft_ihfft"
        | "linalg_cond"
        | "linalg_matrix_rank"
        | "linalg_solve"
        | "linalg_cholesky"
        | "linalg_svdvals"
        | "linalg_eigvals"
        | "linalg_eigvalsh"
        | "linalg_inv"
        | "linalg_householder_product"
        | "linalg_tensorinv"
        | "linalg_tensorsolve"
        | "fake_quantize_per_tensor_affine"
        | "geqrf"
        | "_lu_with_info"
        | "qr"
        | "svd"
        | "triangular_solve"
        | "fractional_max_pool2d"
        | "fractional_max_pool3d"
        | "adaptive_max_pool3d"
        | "multilabel_margin_loss_forward"
        | "linalg_qr"
        | "linalg_cholesky_ex"
        | "linalg_svd"
        | "linalg_eig"
        | "linalg_eigh"
        | "linalg_lstsq"
        | "linalg_inv_ex" => Fp32,
        "stack" | "cat" | "index_copy" => Promote,
        _ => return None,
    })
}

fn cuda_policy(op: &str) -> Option<CastPolicy> {
    use CastPolicy::*;
    Some(match op {
        "_convolution"
        | "conv1d"
        | "conv2d"
        | "conv3d"
        | "conv_tbc"
        | "conv_transpose1d"
        | "conv_transpose2d"
        | "conv_transpose3d"
        | "convolution"
        | "prelu"
        | "addmm"
        | "addmv"
        | "addr"
        | "matmul"
        | "einsum"
        | "mm"
        | "mv"
        | "linalg_vecdot"
        | "linear"
        | "addbmm"
        | "baddbmm"
        | "bmm"
        | "chain_matmul"
        | "linalg_multi_dot"
        | "lstm_cell"
        | "gru_cell"
        | "rnn_tanh_cell"
        | "rnn_relu_cell"
        | "scaled_dot_product_attention"
        | "cudnn_convolution"
        | "cudnn_convolution_transpose" => LowerPrecision,
        "acos"
        | "asin"
        | "cosh"
        | "erfinv"
        | "exp"
        | "expm1"
        | "log"
        | "log10"
        | "log2"
        | "log1p"
        | "reciprocal"
        | "rsqrt"
        | "sinh"
        | "tan"
        | "pow"
        | "softplus"
        | "layer_norm"
        | "native_layer_norm"
        | "group_norm"
        | "frobenius_norm"
        | "nuclear_norm"
        | "cosine_similarity"
        | "poisson_nll_loss"
        | "cosine_embedding_loss"
        | "nll_loss"
        | "nll_loss2d"
        | "hinge_embedding_loss"
        | "kl_div"
        | "l1_loss"
        | "smooth_l1_loss"
        | "huber_loss"
        | "mse_loss"
        | "margin_ranking_loss"
        | "multilabel_margin_loss"
        | "soft_margin_loss"
        | "triplet_margin_loss"
        | "multi_margin_loss"
        | "binary_cross_entropy_with_logits"
        | "dist"
        | "pdist"
        | "cdist"
        | "renorm"
        | "logsumexp"
        | "upsample_nearest1d"
        | "upsample_nearest2d"
        | "upsample_nearest3d"
        | "_upsample_nearest_exact1d"
        | "_upsample_nearest_exact2d"
        | "_upsample_nearest_exact3d"
        | "upsample_linear1d"
        | "upsample_bilinear2d"
        | "_upsample_bilinear2d_aa"
        | "upsample_trilinear3d"
        | "upsample_bicubic2d"
        | "_upsample_bicubic2d_aa" => Fp32,
        "prod" | "softmax" | "log_softmax" | "cumprod" | "cumsum" | "linalg_vector_norm"
        | "linalg_matrix_norm" | "sum" | "norm" => Fp32FirstArg,
        "addcdiv" | "addcmul" | "atan2" | "bilinear" | "cross" | "dot" | "vdot"
        | "grid_sampler" | "index_put" | "tensordot" | "scatter_add" => Promote,
        "binary_cross_entropy" => Banned(BCE_BANNED),
        _ => return None,
    })
}
