// Helpers shared by the elementwise modules (copy, fill, unary, binary, ternary, random,
// optim). Prepended to each of those sources after common.cuh (see kernels/mod.rs).

// Every storage type with its kernel-name suffix.
#define FT_ALL_TYPES(X) \
    X(float, f32) X(double, f64) X(f16_t, f16) X(bf16_t, bf16) X(i64, i64) X(int, i32) \
    X(short, i16) X(signed char, i8) X(unsigned char, u8) X(bool, bool)
#define FT_FLOAT_TYPES(X) X(float, f32) X(double, f64) X(f16_t, f16) X(bf16_t, bf16)
#define FT_INT_TYPES(X) X(i64, i64) X(int, i32) X(short, i16) X(signed char, i8) X(unsigned char, u8)

// Kind of a storage type: 0 floating point, 1 integer, 2 bool.
template <typename T> struct Kind { static const int value = 1; };
template <> struct Kind<float> { static const int value = 0; };
template <> struct Kind<double> { static const int value = 0; };
template <> struct Kind<f16_t> { static const int value = 0; };
template <> struct Kind<bf16_t> { static const int value = 0; };
template <> struct Kind<bool> { static const int value = 2; };

// The type elementwise ops compute in, as the CPU kernels do: f32 for f32 and the half types,
// f64 for f64, i64 for every integer type and bool (cast back afterwards, which wraps).
template <typename T> struct Cmp { typedef i64 type; };
template <> struct Cmp<float> { typedef float type; };
template <> struct Cmp<double> { typedef double type; };
template <> struct Cmp<f16_t> { typedef float type; };
template <> struct Cmp<bf16_t> { typedef float type; };

template <typename T> __device__ __forceinline__ typename Cmp<T>::type ld(T v) {
    return (typename Cmp<T>::type)to_acc<T>(v);
}
// Store a compute value: rounds to half types, wraps to narrow ints, bool is `!= 0`.
template <typename T> __device__ __forceinline__ T st(typename Cmp<T>::type c) {
    return from_acc<T>((typename Acc<T>::type)c);
}

// Arithmetic that the compiler may not contract into FMAs, so that compound expressions round
// after every operation exactly as the CPU's (which never fuses).
__device__ __forceinline__ float rn_add(float a, float b) { return __fadd_rn(a, b); }
__device__ __forceinline__ double rn_add(double a, double b) { return __dadd_rn(a, b); }
__device__ __forceinline__ float rn_sub(float a, float b) { return __fsub_rn(a, b); }
__device__ __forceinline__ double rn_sub(double a, double b) { return __dsub_rn(a, b); }
__device__ __forceinline__ float rn_mul(float a, float b) { return __fmul_rn(a, b); }
__device__ __forceinline__ double rn_mul(double a, double b) { return __dmul_rn(a, b); }
__device__ __forceinline__ i64 rn_add(i64 a, i64 b) { return (i64)((unsigned long long)a + (unsigned long long)b); }
__device__ __forceinline__ i64 rn_sub(i64 a, i64 b) { return (i64)((unsigned long long)a - (unsigned long long)b); }
__device__ __forceinline__ i64 rn_mul(i64 a, i64 b) { return (i64)((unsigned long long)a * (unsigned long long)b); }

// ---- Exact conversions with the CPU's semantics (ops/copy.rs `convert`) ----
// If either side is floating point the value goes through f64 (`D::from_f64(v.to_f64())`),
// else through i64 (`D::from_i64(v.to_i64())`).

// f64 -> f32 with one rounding toward zero, then the sticky bit (round to odd): rounding that
// to a narrower format to nearest-even gives the correctly rounded result of the f64.
__device__ __forceinline__ float ft_round_odd_f32(double d) {
    float f = __double2float_rz(d);
    if ((double)f != d && d == d) {
        f = __uint_as_float(__float_as_uint(f) | 1u);
    }
    return f;
}

// Float to integer as Rust's `as i64`: truncation, saturating, NaN is 0.
__device__ __forceinline__ i64 ft_sat_i64(double x) {
    if (x != x) return 0;
    if (x >= 9223372036854775808.0) return (i64)0x7fffffffffffffffLL;
    if (x < -9223372036854775808.0) return (i64)(-0x7fffffffffffffffLL - 1);
    return (i64)x;
}

template <typename T> __device__ __forceinline__ double to_f64(T v) {
    if constexpr (Kind<T>::value == 0) {
        return (double)to_acc<T>(v);
    } else if constexpr (Kind<T>::value == 2) {
        return v ? 1.0 : 0.0;
    } else {
        return (double)v;
    }
}
template <typename T> __device__ __forceinline__ i64 to_i64(T v) {
    if constexpr (Kind<T>::value == 0) {
        return ft_sat_i64((double)to_acc<T>(v));
    } else {
        return (i64)v;
    }
}
// `T::from_f64`: correctly rounded for floats, `as i64 as T` for ints, `!= 0` for bool.
template <typename T> __device__ __forceinline__ T from_f64(double x) {
    if constexpr (Kind<T>::value == 0) {
        if constexpr (sizeof(T) == 8) {
            return x;
        } else if constexpr (sizeof(T) == 4) {
            return (float)x;
        } else {
            return from_acc<T>(ft_round_odd_f32(x));
        }
    } else if constexpr (Kind<T>::value == 2) {
        return x != 0.0;
    } else {
        return (T)ft_sat_i64(x);
    }
}
// `T::from_i64` for integer and bool targets (floats go through from_f64 on the CPU too).
template <typename T> __device__ __forceinline__ T from_i64(i64 v) {
    if constexpr (Kind<T>::value == 0) {
        return from_f64<T>((double)v);
    } else if constexpr (Kind<T>::value == 2) {
        return v != 0;
    } else {
        return (T)v;
    }
}
template <typename A, typename B> struct Same { static const bool value = false; };
template <typename A> struct Same<A, A> { static const bool value = true; };

template <typename D, typename S> __device__ __forceinline__ D cast(S v) {
    if constexpr (Same<D, S>::value) {
        return v;
    } else if constexpr (Kind<D>::value == 0 || Kind<S>::value == 0) {
        return from_f64<D>(to_f64<S>(v));
    } else {
        return from_i64<D>(to_i64<S>(v));
    }
}

// A scalar argument passed both ways (launchers fill the one the dtype uses, already rounded
// to the dtype): as the compute type of T.
template <typename T> __device__ __forceinline__ typename Cmp<T>::type scalar_arg(double f, i64 i) {
    if constexpr (Kind<T>::value == 0) {
        return (typename Cmp<T>::type)f;
    } else {
        return i;
    }
}

// Offset of the i-th element of a view, with the common one-dimensional case kept cheap
// (launchers merge dimensions, so contiguous views arrive as one dimension).
__device__ __forceinline__ i64 ft_offset(const Strided& s, i64 i) {
    if (s.ndim == 1) return s.offset + i * s.strides[0];
    return strided_offset(s, i);
}

// Dense views (one dimension of stride 1: launchers merge contiguous views into one) take a
// loop that keeps FT_ILP elements in flight per thread: one load at a time leaves the memory
// pipeline half empty. Launchers size the grid for it (launch/mod.rs `grid_for`).
#define FT_ILP 4
__device__ __forceinline__ bool ft_dense(const Strided& s) { return s.ndim == 1 && s.strides[0] == 1; }

// for (each group of FT_ILP indices i0 + k * step this thread owns) { body(k, i) ... }: the
// body runs twice per group, first to load (LOAD) and then to compute and store (STORE).
#define FT_ILP_LOOP(n, LOAD, STORE)                                                           \
    {                                                                                          \
        const i64 step_ = (i64)blockDim.x * gridDim.x;                                         \
        for (i64 i0_ = (i64)blockIdx.x * blockDim.x + threadIdx.x; i0_ < (n);                  \
             i0_ += FT_ILP * step_) {                                                          \
            _Pragma("unroll") for (int k = 0; k < FT_ILP; ++k) {                               \
                const i64 i = i0_ + k * step_;                                                 \
                if (i < (n)) { LOAD }                                                          \
            }                                                                                  \
            _Pragma("unroll") for (int k = 0; k < FT_ILP; ++k) {                               \
                const i64 i = i0_ + k * step_;                                                 \
                if (i < (n)) { STORE }                                                         \
            }                                                                                  \
        }                                                                                      \
    }

template <typename T> __device__ __forceinline__ bool ft_isnan(T v) { return v != v; }
