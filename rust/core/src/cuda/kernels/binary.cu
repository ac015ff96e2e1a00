// Elementwise binary ops (ops/binary.rs). The op is a runtime code (the launcher's
// `binary_code`), uniform across the launch:
//  0 add  1 sub  2 mul  3 div  4 floor_divide  5 remainder (Python sign)  6 pow  7 maximum
//  8 minimum  9 atan2  10 bitwise_and  11 bitwise_or  12 bitwise_xor  13 left_shift
//  14 right_shift  15 eq  16 ne  17 lt  18 le  19 gt  20 ge  21 logical_and  22 logical_or
//  23 logical_xor  24 fmod (C sign)  25 div rounding_mode='trunc'  26 hypot  27 copysign
//  28 xlogy  29 logaddexp
// Inputs are already in the compute dtype T; floating T computes in f32 (halves) or f64,
// integer T and bool in i64 and wrap back. Integer division by zero gives 0 here (the CPU
// rejects zero divisors before its loop).
//
// binary_<t>(int op, const T* a, Strided a_view, const T* b, Strided b_view, T* out, i64 n)
// compare_<t>(int op, const T* a, Strided a_view, const T* b, Strided b_view, bool* out, i64 n)
//   ops 15..23; out is bool.
// binary_scalar_<t>(int op, const T* a, Strided a_view, double sf, i64 si, int scalar_first,
//                   T* out, i64 n)
// compare_scalar_<t>(... same ..., bool* out, i64 n)
//   the other operand is a scalar (sf for floating T, si for integer T and bool, already
//   rounded to T by the launcher); scalar_first != 0 computes `scalar op a`.
// The views are broadcast to the output shape; out is contiguous.

#define FT_MATH2(name, f32fn, f64fn)                                                     \
    __device__ __forceinline__ float name(float x, float y) { return f32fn(x, y); }     \
    __device__ __forceinline__ double name(double x, double y) { return f64fn(x, y); }
FT_MATH2(m_pow, powf, pow)
FT_MATH2(m_atan2, atan2f, atan2)
FT_MATH2(m_fmod, fmodf, fmod)
__device__ __forceinline__ float m_floor(float x) { return floorf(x); }
__device__ __forceinline__ double m_floor(double x) { return floor(x); }
__device__ __forceinline__ float m_trunc(float x) { return truncf(x); }
__device__ __forceinline__ double m_trunc(double x) { return trunc(x); }
__device__ __forceinline__ float m_sqrt(float x) { return sqrtf(x); }
__device__ __forceinline__ double m_sqrt(double x) { return sqrt(x); }
__device__ __forceinline__ float m_log(float x) { return logf(x); }
__device__ __forceinline__ double m_log(double x) { return log(x); }
__device__ __forceinline__ float m_log1p(float x) { return log1pf(x); }
__device__ __forceinline__ double m_log1p(double x) { return log1p(x); }
__device__ __forceinline__ float m_exp(float x) { return expf(x); }
__device__ __forceinline__ double m_exp(double x) { return exp(x); }
__device__ __forceinline__ float m_fabs(float x) { return fabsf(x); }
__device__ __forceinline__ double m_fabs(double x) { return fabs(x); }
__device__ __forceinline__ bool m_isinf(float x) { return isinf(x); }
__device__ __forceinline__ bool m_isinf(double x) { return isinf(x); }

// Maximum / minimum that propagate NaN (the first NaN wins), as cpu/math.rs max_nan.
template <typename C> __device__ __forceinline__ C max_nan(C x, C y) {
    if (x != x) return x;
    if (y != y) return y;
    return x >= y ? x : y;
}
template <typename C> __device__ __forceinline__ C min_nan(C x, C y) {
    if (x != x) return x;
    if (y != y) return y;
    return x <= y ? x : y;
}

template <typename F> __device__ __forceinline__ F float_binary(int op, F x, F y) {
    switch (op) {
    case 0: return x + y;
    case 1: return x - y;
    case 2: return x * y;
    case 3: return x / y;
    case 4: return m_floor(x / y);
    case 5: {
        F r = m_fmod(x, y);
        return (r != (F)0 && ((r < (F)0) != (y < (F)0))) ? r + y : r;
    }
    case 6: return m_pow(x, y);
    case 7: return max_nan(x, y);
    case 8: return min_nan(x, y);
    case 9: return m_atan2(x, y);
    case 24: return m_fmod(x, y);
    case 25: return m_trunc(x / y);
    case 26: {
        F ax = m_fabs(x), ay = m_fabs(y);
        F m = ax >= ay ? ax : ay;
        F s = ax >= ay ? ay : ax;
        if (m_isinf(m) || m_isinf(s)) return (F)__int_as_float(0x7f800000);
        if (m == (F)0 || m != m || s != s) return m + s;
        F r = s / m;
        return rn_mul(m, m_sqrt(rn_add((F)1, rn_mul(r, r))));
    }
    case 27: {
        // -0.0 counts as negative (its reciprocal is -inf); a NaN sign does not.
        bool neg = y < (F)0 || (y == (F)0 && (F)1 / y < (F)0);
        return neg ? -m_fabs(x) : m_fabs(x);
    }
    case 28:
        if (y != y) return y;
        if (x == (F)0) return (F)0;
        return x * m_log(y);
    case 29: {
        F m = x >= y ? x : y;
        F s = x >= y ? y : x;
        if (m_isinf(m) && m == s) return m;
        if (x != x || y != y) return x + y;
        return m + m_log1p(m_exp(s - m));
    }
    default: return (F)0;  // bitwise ops do not exist for floating types
    }
}

__device__ __forceinline__ i64 int_pow(i64 x, i64 e) {
    if (e < 0) {
        if (x == 1) return 1;
        if (x == -1) return (e % 2 == 0) ? 1 : -1;
        return 0;
    }
    // wrapping_pow with the exponent capped at u32::MAX, as the CPU.
    unsigned long long base = (unsigned long long)x, acc = 1;
    unsigned long long k = e > 0xffffffffLL ? 0xffffffffULL : (unsigned long long)e;
    while (k) {
        if (k & 1) acc *= base;
        base *= base;
        k >>= 1;
    }
    return (i64)acc;
}

__device__ __forceinline__ i64 int_binary(int op, i64 x, i64 y) {
    switch (op) {
    case 0: return rn_add(x, y);
    case 1: return rn_sub(x, y);
    case 2: return rn_mul(x, y);
    case 4: {  // floor division
        if (y == 0) return 0;
        if (y == -1) return rn_sub((i64)0, x);
        i64 q = x / y;
        return ((x % y != 0) && ((x < 0) != (y < 0))) ? q - 1 : q;
    }
    case 5: {  // remainder with the divisor's sign
        if (y == 0 || y == -1) return 0;
        i64 r = x % y;
        return (r != 0 && ((r < 0) != (y < 0))) ? r + y : r;
    }
    case 6: return int_pow(x, y);
    case 7: return x >= y ? x : y;
    case 8: return x <= y ? x : y;
    case 10: return x & y;
    case 11: return x | y;
    case 12: return x ^ y;
    case 13: return (y >= 0 && y < 64) ? (i64)((unsigned long long)x << y) : 0;
    case 14: return (y >= 0 && y < 64) ? (x >> y) : (x < 0 ? -1 : 0);
    case 24: return (y == 0 || y == -1) ? 0 : x % y;  // fmod: the dividend's sign
    case 25:                                           // truncating division
        if (y == 0) return 0;
        if (y == -1) return rn_sub((i64)0, x);
        return x / y;
    default: return 0;  // float-only ops: the launcher refuses them for integer dtypes
    }
}

template <typename C> __device__ __forceinline__ bool compare_op(int op, C x, C y) {
    switch (op) {
    case 15: return x == y;
    case 16: return x != y;
    case 17: return x < y;
    case 18: return x <= y;
    case 19: return x > y;
    case 20: return x >= y;
    case 21: return x != (C)0 && y != (C)0;
    case 22: return x != (C)0 || y != (C)0;
    case 23: return (x != (C)0) != (y != (C)0);
    default: return false;
    }
}

template <typename T>
__device__ __forceinline__ typename Cmp<T>::type binary_op(int op, typename Cmp<T>::type x,
                                                           typename Cmp<T>::type y) {
    if constexpr (Kind<T>::value == 0) {
        return float_binary(op, x, y);
    } else {
        return int_binary(op, x, y);
    }
}

// add, sub, mul, div of floats (codes 0-3, the same arithmetic as float_binary): the dense
// loop inlines only these, since unrolling every op made NVRTC take minutes on this module.
template <typename C> __device__ __forceinline__ C arith4(int op, C x, C y) {
    return op == 0 ? x + y : op == 1 ? x - y : op == 2 ? x * y : x / y;
}

template <typename T>
__device__ __forceinline__ void binary_impl(int op, const T* __restrict__ a, const Strided& av,
                                            const T* __restrict__ b, const Strided& bv,
                                            T* __restrict__ out, i64 n) {
    if (Kind<T>::value == 0 && op <= 3 && ft_dense(av) && ft_dense(bv)) {
        const T* __restrict__ pa = a + av.offset;
        const T* __restrict__ pb = b + bv.offset;
        T xa[FT_ILP], xb[FT_ILP];
        FT_ILP_LOOP(n, xa[k] = pa[i]; xb[k] = pb[i];,
                    out[i] = st<T>(arith4(op, ld<T>(xa[k]), ld<T>(xb[k]))););
        return;
    }
    FT_KERNEL_LOOP(i, n) {
        out[i] = st<T>(binary_op<T>(op, ld<T>(a[ft_offset(av, i)]), ld<T>(b[ft_offset(bv, i)])));
    }
}

template <typename T>
__device__ __forceinline__ void compare_impl(int op, const T* __restrict__ a, const Strided& av,
                                             const T* __restrict__ b, const Strided& bv,
                                             bool* __restrict__ out, i64 n) {
    FT_KERNEL_LOOP(i, n) {
        out[i] = compare_op(op, ld<T>(a[ft_offset(av, i)]), ld<T>(b[ft_offset(bv, i)]));
    }
}

template <typename T>
__device__ __forceinline__ void binary_scalar_impl(int op, const T* __restrict__ a,
                                                   const Strided& av, double sf, i64 si,
                                                   int scalar_first, T* __restrict__ out,
                                                   i64 n) {
    typename Cmp<T>::type s = scalar_arg<T>(sf, si);
    if (Kind<T>::value == 0 && op <= 3 && ft_dense(av)) {
        const T* __restrict__ pa = a + av.offset;
        T xa[FT_ILP];
        FT_ILP_LOOP(n, xa[k] = pa[i];, {
            typename Cmp<T>::type x = ld<T>(xa[k]);
            out[i] = st<T>(scalar_first ? arith4(op, s, x) : arith4(op, x, s));
        });
        return;
    }
    FT_KERNEL_LOOP(i, n) {
        typename Cmp<T>::type x = ld<T>(a[ft_offset(av, i)]);
        out[i] = st<T>(scalar_first ? binary_op<T>(op, s, x) : binary_op<T>(op, x, s));
    }
}

template <typename T>
__device__ __forceinline__ void compare_scalar_impl(int op, const T* __restrict__ a,
                                                    const Strided& av, double sf, i64 si,
                                                    int scalar_first, bool* __restrict__ out,
                                                    i64 n) {
    typename Cmp<T>::type s = scalar_arg<T>(sf, si);
    FT_KERNEL_LOOP(i, n) {
        typename Cmp<T>::type x = ld<T>(a[ft_offset(av, i)]);
        out[i] = scalar_first ? compare_op(op, s, x) : compare_op(op, x, s);
    }
}

#define FT_BINARY(T, sn)                                                                     \
    extern "C" __global__ void binary_##sn(int op, const T* a, Strided av, const T* b,       \
                                           Strided bv, T* out, i64 n) {                      \
        binary_impl<T>(op, a, av, b, bv, out, n);                                            \
    }                                                                                        \
    extern "C" __global__ void compare_##sn(int op, const T* a, Strided av, const T* b,      \
                                            Strided bv, bool* out, i64 n) {                  \
        compare_impl<T>(op, a, av, b, bv, out, n);                                           \
    }                                                                                        \
    extern "C" __global__ void binary_scalar_##sn(int op, const T* a, Strided av, double sf, \
                                                  i64 si, int scalar_first, T* out, i64 n) { \
        binary_scalar_impl<T>(op, a, av, sf, si, scalar_first, out, n);                      \
    }                                                                                        \
    extern "C" __global__ void compare_scalar_##sn(int op, const T* a, Strided av,           \
                                                   double sf, i64 si, int scalar_first,      \
                                                   bool* out, i64 n) {                       \
        compare_scalar_impl<T>(op, a, av, sf, si, scalar_first, out, n);                     \
    }
FT_ALL_TYPES(FT_BINARY)
