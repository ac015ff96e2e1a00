// Selections and fused pointwise ops with several inputs. All views are broadcast to the
// output shape (stride 0 on broadcast dimensions); out is contiguous.
//
// where_<t>(const unsigned char* cond, Strided cv, const T* a, Strided av, const T* b,
//           Strided bv, T* out, i64 n)
//   out = cond != 0 ? a : b  (cond is bool or uint8).
// masked_fill_<t>(const T* x, Strided xv, const unsigned char* mask, Strided mv, double vf,
//                 i64 vi, T* out, i64 n)
//   out = mask != 0 ? value : x; value is vf for floating T, vi for integer T and bool.
// clamp_<t>(const T* x, Strided xv, int has_min, double minf, i64 mini, int has_max,
//           double maxf, i64 maxi, T* out, i64 n)                      (t not bool)
//   minimum(maximum(x, min), max) with NaN propagating (a NaN input or bound gives NaN).
// lerp_<t>(const T* a, Strided av, const T* b, Strided bv, double w, T* out, i64 n) (floating)
//   a + w * (b - a), rounded to T after each operation as the CPU's composition does.
// addcmul_<t>(const T* x, Strided xv, const T* t1, Strided t1v, const T* t2, Strided t2v,
//             double vf, i64 vi, T* out, i64 n)                (floating and integer t)
//   x + (value * t1) * t2, rounded to T after each operation.
// addcdiv_<t>(... same ...)                                     (floating t)
//   x + (value * t1) / t2, rounded to T after each operation.
// Scalars (value, min, max, w) arrive already rounded to T by the launchers.

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

// Rounds a compute value to what storing it as T and loading it back gives.
template <typename T> __device__ __forceinline__ typename Cmp<T>::type rt(typename Cmp<T>::type c) {
    return ld<T>(st<T>(c));
}

template <typename T>
__device__ __forceinline__ void where_impl(const unsigned char* __restrict__ c, const Strided& cv,
                                           const T* __restrict__ a, const Strided& av,
                                           const T* __restrict__ b, const Strided& bv,
                                           T* __restrict__ out, i64 n) {
    FT_KERNEL_LOOP(i, n) {
        out[i] = c[ft_offset(cv, i)] ? a[ft_offset(av, i)] : b[ft_offset(bv, i)];
    }
}

template <typename T>
__device__ __forceinline__ void masked_fill_impl(const T* __restrict__ x, const Strided& xv,
                                                 const unsigned char* __restrict__ m,
                                                 const Strided& mv, double vf, i64 vi,
                                                 T* __restrict__ out, i64 n) {
    T v = st<T>(scalar_arg<T>(vf, vi));
    FT_KERNEL_LOOP(i, n) { out[i] = m[ft_offset(mv, i)] ? v : x[ft_offset(xv, i)]; }
}

template <typename T>
__device__ __forceinline__ void clamp_impl(const T* __restrict__ x, const Strided& xv,
                                           int has_min, double minf, i64 mini, int has_max,
                                           double maxf, i64 maxi, T* __restrict__ out, i64 n) {
    typedef typename Cmp<T>::type C;
    C lo = scalar_arg<T>(minf, mini), hi = scalar_arg<T>(maxf, maxi);
    FT_KERNEL_LOOP(i, n) {
        C v = ld<T>(x[ft_offset(xv, i)]);
        if (has_min) v = max_nan(v, lo);
        if (has_max) v = min_nan(v, hi);
        out[i] = st<T>(v);
    }
}

template <typename T>
__device__ __forceinline__ void lerp_impl(const T* __restrict__ a, const Strided& av,
                                          const T* __restrict__ b, const Strided& bv, double w,
                                          T* __restrict__ out, i64 n) {
    typedef typename Cmp<T>::type C;
    C wc = (C)w;
    FT_KERNEL_LOOP(i, n) {
        C x = ld<T>(a[ft_offset(av, i)]), y = ld<T>(b[ft_offset(bv, i)]);
        C d = rt<T>(rn_sub(y, x));
        C t = rt<T>(rn_mul(wc, d));
        out[i] = st<T>(rn_add(x, t));
    }
}

template <typename T, bool DIV>
__device__ __forceinline__ void addc_impl(const T* __restrict__ x, const Strided& xv,
                                          const T* __restrict__ t1, const Strided& t1v,
                                          const T* __restrict__ t2, const Strided& t2v,
                                          double vf, i64 vi, T* __restrict__ out, i64 n) {
    typedef typename Cmp<T>::type C;
    C v = scalar_arg<T>(vf, vi);
    FT_KERNEL_LOOP(i, n) {
        C a = ld<T>(t1[ft_offset(t1v, i)]), b = ld<T>(t2[ft_offset(t2v, i)]);
        C p = rt<T>(rn_mul(v, a));
        C q;
        if constexpr (DIV) {
            q = rt<T>(p / b);
        } else {
            q = rt<T>(rn_mul(p, b));
        }
        out[i] = st<T>(rn_add(ld<T>(x[ft_offset(xv, i)]), q));
    }
}

#define FT_SELECT(T, sn)                                                                     \
    extern "C" __global__ void where_##sn(const unsigned char* c, Strided cv, const T* a,    \
                                          Strided av, const T* b, Strided bv, T* out,        \
                                          i64 n) {                                           \
        where_impl<T>(c, cv, a, av, b, bv, out, n);                                          \
    }                                                                                        \
    extern "C" __global__ void masked_fill_##sn(const T* x, Strided xv,                      \
                                                const unsigned char* m, Strided mv,          \
                                                double vf, i64 vi, T* out, i64 n) {          \
        masked_fill_impl<T>(x, xv, m, mv, vf, vi, out, n);                                   \
    }
FT_ALL_TYPES(FT_SELECT)

#define FT_CLAMP(T, sn)                                                                      \
    extern "C" __global__ void clamp_##sn(const T* x, Strided xv, int has_min, double minf,  \
                                          i64 mini, int has_max, double maxf, i64 maxi,      \
                                          T* out, i64 n) {                                   \
        clamp_impl<T>(x, xv, has_min, minf, mini, has_max, maxf, maxi, out, n);              \
    }                                                                                        \
    extern "C" __global__ void addcmul_##sn(const T* x, Strided xv, const T* t1,             \
                                            Strided t1v, const T* t2, Strided t2v,           \
                                            double vf, i64 vi, T* out, i64 n) {              \
        addc_impl<T, false>(x, xv, t1, t1v, t2, t2v, vf, vi, out, n);                        \
    }
FT_FLOAT_TYPES(FT_CLAMP)
FT_INT_TYPES(FT_CLAMP)

#define FT_LERP(T, sn)                                                                       \
    extern "C" __global__ void lerp_##sn(const T* a, Strided av, const T* b, Strided bv,     \
                                         double w, T* out, i64 n) {                          \
        lerp_impl<T>(a, av, b, bv, w, out, n);                                               \
    }                                                                                        \
    extern "C" __global__ void addcdiv_##sn(const T* x, Strided xv, const T* t1,             \
                                            Strided t1v, const T* t2, Strided t2v,           \
                                            double vf, i64 vi, T* out, i64 n) {              \
        addc_impl<T, true>(x, xv, t1, t1v, t2, t2v, vf, vi, out, n);                         \
    }
FT_FLOAT_TYPES(FT_LERP)
