// Layer norm over the last dim of a contiguous [rows, cols] tensor (the caller flattens the
// normalized dims), as the CPU's normalize_last: mean, then the mean squared deviation
// (two passes, float accumulation, double for f64), rstd = 1 / sqrt(var + eps); mean and
// rstd are stored in the input's dtype ([rows] each), as the CPU saves them.
//   layer_norm_forward_<dt>(const T* x, const T* w, const T* b, T* y, T* mean, T* rstd,
//                           i64 rows, i64 cols, double eps)
// w, b (length cols) may be null (no affine); mean, rstd may be null (not saved).
//   layer_norm_backward_<dt>(const T* gy, const T* x, const T* mean, const T* rstd,
//                            const T* w, T* gx, i64 rows, i64 cols)
// gives dx = rstd * (g' - mean(g') - xhat * mean(g' * xhat)) with g' = g * w (w may be null).
//   layer_norm_param_grad_<dt>(const T* gy, const T* x, const T* mean, const T* rstd,
//                              T* gw, T* gb, i64 rows, i64 cols)
// gives gw[j] = sum_r g * xhat, gb[j] = sum_r g (either may be null): one thread per column,
// rows summed in order (deterministic). The row kernels use one block per row.

template <typename T>
__device__ void ln_forward(const T* x, const T* w, const T* b, T* y, T* mean, T* rstd,
                           i64 rows, i64 cols, double eps) {
    typedef typename Acc<T>::type A;
    for (i64 r = blockIdx.x; r < rows; r += gridDim.x) {
        const T* xr = x + r * cols;
        T* yr = y + r * cols;
        A s = 0;
        for (i64 j = threadIdx.x; j < cols; j += blockDim.x) s += to_acc(xr[j]);
        const A mu = block_reduce(s, AddF()) / (A)cols;
        A ss = 0;
        for (i64 j = threadIdx.x; j < cols; j += blockDim.x) {
            const A d = to_acc(xr[j]) - mu;
            ss += d * d;
        }
        const A inv = (A)1 / ft_sqrt(block_reduce(ss, AddF()) / (A)cols + (A)eps);
        for (i64 j = threadIdx.x; j < cols; j += blockDim.x) {
            A v = (to_acc(xr[j]) - mu) * inv;
            if (w) v *= to_acc(w[j]);
            if (b) v += to_acc(b[j]);
            yr[j] = from_acc<T>(v);
        }
        if (threadIdx.x == 0) {
            if (mean) mean[r] = from_acc<T>(mu);
            if (rstd) rstd[r] = from_acc<T>(inv);
        }
    }
}

template <typename T>
__device__ void ln_backward(const T* gy, const T* x, const T* mean, const T* rstd, const T* w,
                            T* gx, i64 rows, i64 cols) {
    typedef typename Acc<T>::type A;
    for (i64 r = blockIdx.x; r < rows; r += gridDim.x) {
        const T* g = gy + r * cols;
        const T* xr = x + r * cols;
        const A mu = to_acc(mean[r]), inv = to_acc(rstd[r]);
        A s1 = 0, s2 = 0;
        for (i64 j = threadIdx.x; j < cols; j += blockDim.x) {
            A gj = to_acc(g[j]);
            if (w) gj *= to_acc(w[j]);
            s1 += gj;
            s2 += gj * (to_acc(xr[j]) - mu) * inv;
        }
        const A m1 = block_reduce(s1, AddF()) / (A)cols;
        const A m2 = block_reduce(s2, AddF()) / (A)cols;
        for (i64 j = threadIdx.x; j < cols; j += blockDim.x) {
            A gj = to_acc(g[j]);
            if (w) gj *= to_acc(w[j]);
            const A xh = (to_acc(xr[j]) - mu) * inv;
            gx[r * cols + j] = from_acc<T>(inv * (gj - m1 - xh * m2));
        }
    }
}

template <typename T>
__device__ void ln_param_grad(const T* gy, const T* x, const T* mean, const T* rstd, T* gw,
                              T* gb, i64 rows, i64 cols) {
    typedef typename Acc<T>::type A;
    FT_KERNEL_LOOP(j, cols) {
        A sw = 0, sb = 0;
        for (i64 r = 0; r < rows; ++r) {
            const A g = to_acc(gy[r * cols + j]);
            sb += g;
            if (gw) sw += g * (to_acc(x[r * cols + j]) - to_acc(mean[r])) * to_acc(rstd[r]);
        }
        if (gw) gw[j] = from_acc<T>(sw);
        if (gb) gb[j] = from_acc<T>(sb);
    }
}

#define FT_LAYER_NORM(sfx, T)                                                                  \
    extern "C" __global__ void layer_norm_forward_##sfx(const T* x, const T* w, const T* b,    \
                                                        T* y, T* mean, T* rstd, i64 rows,      \
                                                        i64 cols, double eps) {                \
        ln_forward<T>(x, w, b, y, mean, rstd, rows, cols, eps);                                \
    }                                                                                          \
    extern "C" __global__ void layer_norm_backward_##sfx(const T* gy, const T* x,              \
                                                         const T* mean, const T* rstd,         \
                                                         const T* w, T* gx, i64 rows,          \
                                                         i64 cols) {                           \
        ln_backward<T>(gy, x, mean, rstd, w, gx, rows, cols);                                  \
    }                                                                                          \
    extern "C" __global__ void layer_norm_param_grad_##sfx(const T* gy, const T* x,            \
                                                           const T* mean, const T* rstd,       \
                                                           T* gw, T* gb, i64 rows, i64 cols) { \
        ln_param_grad<T>(gy, x, mean, rstd, gw, gb, rows, cols);                               \
    }

FT_FLOAT_TYPES(FT_LAYER_NORM)
