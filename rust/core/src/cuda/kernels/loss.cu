// Negative log likelihood over log-probabilities logp (contiguous [n, c]) and int64 targets
// [n]; weight [c] may be null (all ones). reduction: 0 none, 1 mean, 2 sum.
//   nll_loss_forward_<dt>(const T* logp, const i64* target, const T* weight, T* out,
//                         T* total_weight, i64 n, i64 c, i64 ignore_index, int reduction,
//                         int* err)
// none: out[i] = -w[t] * logp[i, t] (0 for ignored targets), a grid-stride loop. mean / sum:
// launched as ONE block (the reduction is in a fixed order: deterministic); out[0] = the sum,
// divided for mean by total_weight = sum of w[t] over targets that are not ignored (0/0 gives
// NaN, as PyTorch); total_weight[0] is written when not null.
//   nll_loss_backward_<dt>(const T* grad_out, const i64* target, const T* weight,
//                          const T* total_weight, T* grad_logp, i64 n, i64 c,
//                          i64 ignore_index, int reduction, int* err)
// writes all of grad_logp ([n, c]): -w[t] * g at the target, 0 elsewhere, with g = grad_out[i]
// (none), grad_out[0] (sum), grad_out[0] / total_weight[0] (mean; 0 when that is 0).
// A target that is neither ignore_index nor in [0, c) is skipped and sets bit 1
// (FT_ERR_INDEX) of *err (when err is not null): the caller checks the flag when it syncs.

template <typename T>
__device__ void nll_forward(const T* logp, const i64* target, const T* weight, T* out,
                            T* total_weight, i64 n, i64 c, i64 ignore_index, int reduction,
                            int* err) {
    typedef typename Acc<T>::type A;
    if (reduction == 0) {
        FT_KERNEL_LOOP(i, n) {
            const i64 t = target[i];
            A v = 0;
            if (t != ignore_index) {
                if (t < 0 || t >= c) {
                    if (err) atomicOr(err, FT_ERR_INDEX);
                } else {
                    v = -to_acc(logp[i * c + t]) * (weight ? to_acc(weight[t]) : (A)1);
                }
            }
            out[i] = from_acc<T>(v);
        }
        return;
    }
    if (blockIdx.x != 0) return;
    A s = 0, ws = 0;
    for (i64 i = threadIdx.x; i < n; i += blockDim.x) {
        const i64 t = target[i];
        if (t == ignore_index) continue;
        if (t < 0 || t >= c) {
            if (err) atomicOr(err, FT_ERR_INDEX);
            continue;
        }
        const A w = weight ? to_acc(weight[t]) : (A)1;
        s -= to_acc(logp[i * c + t]) * w;
        ws += w;
    }
    s = block_reduce(s, AddF());
    ws = block_reduce(ws, AddF());
    if (threadIdx.x == 0) {
        out[0] = from_acc<T>(reduction == 1 ? s / ws : s);
        if (total_weight) total_weight[0] = from_acc<T>(ws);
    }
}

template <typename T>
__device__ void nll_backward(const T* grad_out, const i64* target, const T* weight,
                             const T* total_weight, T* grad_logp, i64 n, i64 c,
                             i64 ignore_index, int reduction, int* err) {
    typedef typename Acc<T>::type A;
    FT_KERNEL_LOOP(e, n * c) {
        const i64 i = e / c, k = e % c, t = target[i];
        A v = 0;
        if (t != ignore_index && (t < 0 || t >= c)) {
            if (err && k == 0) atomicOr(err, FT_ERR_INDEX);
        } else if (t == k) {
            A g = to_acc(grad_out[reduction == 0 ? i : 0]);
            if (reduction == 1) {
                const A tw = to_acc(total_weight[0]);
                g = tw == (A)0 ? (A)0 : g / tw;
            }
            v = -g * (weight ? to_acc(weight[t]) : (A)1);
        }
        grad_logp[e] = from_acc<T>(v);
    }
}

#define FT_NLL(sfx, T)                                                                         \
    extern "C" __global__ void nll_loss_forward_##sfx(const T* logp, const i64* target,        \
                                                      const T* weight, T* out,                 \
                                                      T* total_weight, i64 n, i64 c,           \
                                                      i64 ignore_index, int reduction,         \
                                                      int* err) {                              \
        nll_forward<T>(logp, target, weight, out, total_weight, n, c, ignore_index, reduction, \
                       err);                                                                   \
    }                                                                                          \
    extern "C" __global__ void nll_loss_backward_##sfx(const T* grad_out, const i64* target,   \
                                                       const T* weight, const T* total_weight, \
                                                       T* grad_logp, i64 n, i64 c,             \
                                                       i64 ignore_index, int reduction,        \
                                                       int* err) {                             \
        nll_backward<T>(grad_out, target, weight, total_weight, grad_logp, n, c, ignore_index, \
                        reduction, err);                                                       \
    }

FT_FLOAT_TYPES(FT_NLL)
