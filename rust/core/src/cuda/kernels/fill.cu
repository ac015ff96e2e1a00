// Constant fills and ranges.
//
// fill_<t>(T* dst, Strided view, double fv, i64 iv, i64 n)
//   every element of the view becomes the value: `fv` for floating dtypes, `iv` for integer
//   dtypes and bool (0 or 1); the launcher has already rounded it to the dtype.
// arange_<t>(T* dst, double start, double step, i64 n)       (dst contiguous, element 0)
//   dst[i] = start + i * step in f64 (no FMA), then rounded for floating dtypes, or truncated
//   to i64 and wrapped for integer dtypes and bool (ops/creation.rs `arange`).
// linspace_<t>(T* dst, double start, double end, double step, i64 steps)   (contiguous)
//   i < steps / 2: start + step * i, else end - step * (steps - 1 - i) (creation.rs).

template <typename T>
__device__ __forceinline__ void fill_impl(T* __restrict__ dst, const Strided& v, double fv,
                                          i64 iv, i64 n) {
    T x;
    if constexpr (Kind<T>::value == 0) {
        x = from_f64<T>(fv);
    } else {
        x = from_i64<T>(iv);
    }
    FT_KERNEL_LOOP(i, n) { dst[ft_offset(v, i)] = x; }
}

// How creation.rs stores an f64 range value: rounded for floats, `x as i64` then from_i64.
template <typename T> __device__ __forceinline__ T range_value(double x) {
    if constexpr (Kind<T>::value == 0) {
        return from_f64<T>(x);
    } else {
        return from_i64<T>(ft_sat_i64(x));
    }
}

template <typename T>
__device__ __forceinline__ void arange_impl(T* __restrict__ dst, double start, double step,
                                            i64 n) {
    FT_KERNEL_LOOP(i, n) { dst[i] = range_value<T>(__dadd_rn(start, __dmul_rn((double)i, step))); }
}

template <typename T>
__device__ __forceinline__ void linspace_impl(T* __restrict__ dst, double start, double end,
                                              double step, i64 steps) {
    i64 half = steps / 2;
    FT_KERNEL_LOOP(i, steps) {
        double x = i < half ? __dadd_rn(start, __dmul_rn(step, (double)i))
                            : __dsub_rn(end, __dmul_rn(step, (double)(steps - 1 - i)));
        dst[i] = range_value<T>(x);
    }
}

#define FT_FILL(T, sn)                                                                       \
    extern "C" __global__ void fill_##sn(T* dst, Strided v, double fv, i64 iv, i64 n) {      \
        fill_impl<T>(dst, v, fv, iv, n);                                                     \
    }                                                                                        \
    extern "C" __global__ void arange_##sn(T* dst, double start, double step, i64 n) {       \
        arange_impl<T>(dst, start, step, n);                                                 \
    }                                                                                        \
    extern "C" __global__ void linspace_##sn(T* dst, double start, double end, double step,  \
                                             i64 steps) {                                    \
        linspace_impl<T>(dst, start, end, step, steps);                                      \
    }
FT_ALL_TYPES(FT_FILL)
