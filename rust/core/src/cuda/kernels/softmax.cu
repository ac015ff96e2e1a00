// Softmax and log_softmax over the last dim of a contiguous [rows, cols] tensor: one block
// of FT_ROW_THREADS threads per row (blocks loop over rows), float accumulation (double
// for f64).
//   softmax_forward_<dt>(const T* x, T* y, i64 rows, i64 cols, int log)
//   softmax_backward_<dt>(const T* grad_y, const T* y, T* grad_x, i64 rows, i64 cols, int log)
// Forward: m = max (NaN wins), s = sum exp(x - m); y = exp(x - m) / s, or x - m - log(s).
// Backward: softmax dx = y * (g - sum(g * y)); log_softmax dx = g - exp(y) * sum(g).

template <typename T>
__device__ void softmax_rows(const T* x, T* y, i64 rows, i64 cols, int log) {
    typedef typename Acc<T>::type A;
    for (i64 r = blockIdx.x; r < rows; r += gridDim.x) {
        const T* xr = x + r * cols;
        T* yr = y + r * cols;
        A m = -ft_inf<A>();
        for (i64 j = threadIdx.x; j < cols; j += blockDim.x) m = nan_max(m, to_acc(xr[j]));
        m = block_reduce(m, MaxF());
        A s = 0;
        for (i64 j = threadIdx.x; j < cols; j += blockDim.x) s += ft_exp(to_acc(xr[j]) - m);
        s = block_reduce(s, AddF());
        if (log) {
            const A ls = ft_log(s);
            for (i64 j = threadIdx.x; j < cols; j += blockDim.x) yr[j] = from_acc<T>(to_acc(xr[j]) - m - ls);
        } else {
            const A inv = (A)1 / s;
            for (i64 j = threadIdx.x; j < cols; j += blockDim.x)
                yr[j] = from_acc<T>(ft_exp(to_acc(xr[j]) - m) * inv);
        }
    }
}

template <typename T>
__device__ void softmax_back_rows(const T* gy, const T* y, T* gx, i64 rows, i64 cols, int log) {
    typedef typename Acc<T>::type A;
    for (i64 r = blockIdx.x; r < rows; r += gridDim.x) {
        const T* g = gy + r * cols;
        const T* yr = y + r * cols;
        T* o = gx + r * cols;
        A s = 0;
        for (i64 j = threadIdx.x; j < cols; j += blockDim.x)
            s += log ? to_acc(g[j]) : to_acc(g[j]) * to_acc(yr[j]);
        s = block_reduce(s, AddF());
        for (i64 j = threadIdx.x; j < cols; j += blockDim.x) {
            const A gj = to_acc(g[j]), yj = to_acc(yr[j]);
            o[j] = from_acc<T>(log ? gj - ft_exp(yj) * s : yj * (gj - s));
        }
    }
}

#define FT_SOFTMAX(sfx, T)                                                                    \
    extern "C" __global__ void softmax_forward_##sfx(const T* x, T* y, i64 rows, i64 cols,    \
                                                     int log) {                               \
        softmax_rows<T>(x, y, rows, cols, log);                                               \
    }                                                                                         \
    extern "C" __global__ void softmax_backward_##sfx(const T* gy, const T* y, T* gx,         \
                                                      i64 rows, i64 cols, int log) {          \
        softmax_back_rows<T>(gy, y, gx, rows, cols, log);                                     \
    }

FT_FLOAT_TYPES(FT_SOFTMAX)
