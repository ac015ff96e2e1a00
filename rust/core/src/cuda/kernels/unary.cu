// Elementwise unary ops (ops/unary.rs). The op is a runtime code (the launcher's
// `unary_code`), uniform across the launch:
//  0 neg  1 abs  2 sign  3 relu  4 floor  5 ceil  6 round  7 trunc  8 frac  9 exp  10 exp2
//  11 expm1  12 log  13 log2  14 log10  15 log1p  16 sqrt  17 rsqrt  18 sin  19 cos  20 tan
//  21 asin  22 acos  23 atan  24 sinh  25 cosh  26 tanh  27 sigmoid  28 gelu (erf)
//  29 gelu (tanh approximation)  30 silu  31 erf  32 erfinv  33 reciprocal
//
// unary_<t>(int op, const T* x, Strided x_view, T* y, i64 n)          (y contiguous)
//   same dtype in and out: every op for floating dtypes (computed in f32 for the half types,
//   f64 for f64); for integer dtypes and bool the integer ops (neg, abs, sign, relu, floor,
//   ceil, round, trunc) computed in i64 and wrapped back, as the CPU's int_kernel does.
// unary_<t>_f32(int op, const T* x, Strided x_view, float* y, i64 n)  (integer and bool t)
//   the floating ops of integer/bool inputs, which compute and return float32.
// unary_backward_<t>(int op, const T* g, const T* v, T* out, i64 n)   (floating t, contiguous)
//   out = g * f'(v), the CPU's fused backward passes: relu (v = x; passes where x > 0 or NaN),
//   gelu (v = x), tanh (v = y), sigmoid (v = y), silu (v = x).

#define FT_MATH1(name, f32fn, f64fn)                                          \
    __device__ __forceinline__ float name(float x) { return f32fn(x); }      \
    __device__ __forceinline__ double name(double x) { return f64fn(x); }
FT_MATH1(m_exp, expf, exp)
FT_MATH1(m_exp2, exp2f, exp2)
FT_MATH1(m_expm1, expm1f, expm1)
FT_MATH1(m_log, logf, log)
FT_MATH1(m_log2, log2f, log2)
FT_MATH1(m_log10, log10f, log10)
FT_MATH1(m_log1p, log1pf, log1p)
FT_MATH1(m_sqrt, sqrtf, sqrt)
FT_MATH1(m_sin, sinf, sin)
FT_MATH1(m_cos, cosf, cos)
FT_MATH1(m_tan, tanf, tan)
FT_MATH1(m_asin, asinf, asin)
FT_MATH1(m_acos, acosf, acos)
FT_MATH1(m_atan, atanf, atan)
FT_MATH1(m_sinh, sinhf, sinh)
FT_MATH1(m_cosh, coshf, cosh)
FT_MATH1(m_tanh, tanhf, tanh)
FT_MATH1(m_erf, erff, erf)
FT_MATH1(m_erfc, erfcf, erfc)
FT_MATH1(m_erfinv, erfinvf, erfinv)
FT_MATH1(m_floor, floorf, floor)
FT_MATH1(m_ceil, ceilf, ceil)
FT_MATH1(m_rint, rintf, rint)
FT_MATH1(m_trunc, truncf, trunc)
FT_MATH1(m_fabs, fabsf, fabs)

template <typename F> __device__ __forceinline__ F sigmoid_of(F x) {
    return (F)1 / ((F)1 + m_exp(-x));
}
// x * Phi(x) through erfc, as cpu/math.rs gelu_f32 / gelu_f64.
template <typename F> __device__ __forceinline__ F gelu_of(F x) {
    F z = x * (F)0.70710678118654752440;
    return (F)0.5 * x * m_erfc(-z);
}
template <typename F> __device__ __forceinline__ F gelu_grad_of(F x) {
    F z = x * (F)0.70710678118654752440;
    F cdf = (F)0.5 * m_erfc(-z);
    F pdf = m_exp((F)-0.5 * x * x);
    return rn_add(cdf, rn_mul(rn_mul(x, pdf), (F)0.3989422804014327));
}
template <typename F> __device__ __forceinline__ F gelu_tanh_of(F x) {
    F cube = rn_mul(rn_mul(rn_mul((F)0.044715, x), x), x);
    F inner = rn_mul((F)0.7978845608028654, rn_add(x, cube));
    return rn_mul(rn_mul((F)0.5, x), rn_add((F)1, m_tanh(inner)));
}

template <typename F> __device__ __forceinline__ F float_op(int op, F x) {
    switch (op) {
    case 0: return -x;
    case 1: return m_fabs(x);
    // sign(0), sign(-0) and sign(NaN) are +0, as PyTorch.
    case 2: return x > (F)0 ? (F)1 : (x < (F)0 ? (F)-1 : (F)0);
    case 3: return (x > (F)0 || x != x) ? x : (F)0;
    case 4: return m_floor(x);
    case 5: return m_ceil(x);
    case 6: return m_rint(x);  // ties to even
    case 7: return m_trunc(x);
    case 8: return x - m_trunc(x);
    case 9: return m_exp(x);
    case 10: return m_exp2(x);
    case 11: return m_expm1(x);
    case 12: return m_log(x);
    case 13: return m_log2(x);
    case 14: return m_log10(x);
    case 15: return m_log1p(x);
    case 16: return m_sqrt(x);
    case 17: return (F)1 / m_sqrt(x);  // not rsqrt(): that one is approximate
    case 18: return m_sin(x);
    case 19: return m_cos(x);
    case 20: return m_tan(x);
    case 21: return m_asin(x);
    case 22: return m_acos(x);
    case 23: return m_atan(x);
    case 24: return m_sinh(x);
    case 25: return m_cosh(x);
    case 26: return m_tanh(x);
    case 27: return sigmoid_of(x);
    case 28: return gelu_of(x);
    case 29: return gelu_tanh_of(x);
    case 30: return x * sigmoid_of(x);
    case 31: return m_erf(x);
    case 32: return m_erfinv(x);
    case 33: return (F)1 / x;
    default: return x;
    }
}

// Integer ops in i64, wrapping like Rust's wrapping_neg / wrapping_abs.
__device__ __forceinline__ i64 int_op(int op, i64 x) {
    switch (op) {
    case 0: return rn_sub((i64)0, x);
    case 1: return x < 0 ? rn_sub((i64)0, x) : x;
    case 2: return x > 0 ? 1 : (x < 0 ? -1 : 0);
    case 3: return x > 0 ? x : 0;
    default: return x;  // floor, ceil, round, trunc: identities on integers
    }
}

template <typename T>
__device__ __forceinline__ void unary_impl(int op, const T* __restrict__ x, const Strided& xv,
                                           T* __restrict__ y, i64 n) {
    if (ft_dense(xv)) {
        const T* __restrict__ px = x + xv.offset;
        T xs[FT_ILP];
        FT_ILP_LOOP(n, xs[k] = px[i];, {
            typename Cmp<T>::type v = ld<T>(xs[k]);
            if constexpr (Kind<T>::value == 0) {
                y[i] = st<T>(float_op(op, v));
            } else {
                y[i] = st<T>(int_op(op, v));
            }
        });
        return;
    }
    FT_KERNEL_LOOP(i, n) {
        typename Cmp<T>::type v = ld<T>(x[ft_offset(xv, i)]);
        if constexpr (Kind<T>::value == 0) {
            y[i] = st<T>(float_op(op, v));
        } else {
            y[i] = st<T>(int_op(op, v));
        }
    }
}

template <typename T>
__device__ __forceinline__ void unary_to_f32_impl(int op, const T* __restrict__ x,
                                                  const Strided& xv, float* __restrict__ y,
                                                  i64 n) {
    FT_KERNEL_LOOP(i, n) { y[i] = float_op(op, cast<float, T>(x[ft_offset(xv, i)])); }
}

template <typename F> __device__ __forceinline__ F grad_op(int op, F g, F v) {
    switch (op) {
    case 3: return v <= (F)0 ? (F)0 : g;  // threshold_backward: passes at NaN
    case 26: return g * rn_sub((F)1, rn_mul(v, v));
    case 27: return g * rn_mul(v, rn_sub((F)1, v));
    case 28: return g * gelu_grad_of(v);
    case 30: {
        F s = sigmoid_of(v);
        return g * rn_mul(s, rn_add((F)1, rn_mul(v, rn_sub((F)1, s))));
    }
    default: return g;
    }
}

template <typename T>
__device__ __forceinline__ void unary_backward_impl(int op, const T* __restrict__ g,
                                                    const T* __restrict__ v,
                                                    T* __restrict__ out, i64 n) {
    FT_KERNEL_LOOP(i, n) { out[i] = st<T>(grad_op(op, ld<T>(g[i]), ld<T>(v[i]))); }
}

#define FT_UNARY(T, sn)                                                                      \
    extern "C" __global__ void unary_##sn(int op, const T* x, Strided xv, T* y, i64 n) {     \
        unary_impl<T>(op, x, xv, y, n);                                                      \
    }
FT_ALL_TYPES(FT_UNARY)

#define FT_UNARY_TO_F32(T, sn)                                                               \
    extern "C" __global__ void unary_##sn##_f32(int op, const T* x, Strided xv, float* y,    \
                                                i64 n) {                                     \
        unary_to_f32_impl<T>(op, x, xv, y, n);                                               \
    }
FT_INT_TYPES(FT_UNARY_TO_F32)
FT_UNARY_TO_F32(bool, bool)

#define FT_UNARY_BACKWARD(T, sn)                                                             \
    extern "C" __global__ void unary_backward_##sn(int op, const T* g, const T* v, T* out,   \
                                                   i64 n) {                                  \
        unary_backward_impl<T>(op, g, v, out, n);                                            \
    }
FT_FLOAT_TYPES(FT_UNARY_BACKWARD)
