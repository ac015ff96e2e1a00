// cumsum / cumprod along one dim, one thread per line (sequential along the line):
//   scan_<cumsum|cumprod>_<dt>(const T* src, Strided lines, i64 src_step, Out* dst,
//                              i64 n_lines, i64 len, i64 inner)
// `lines` is the source view without the scanned dim (its row-major order numbers the
// lines), `src_step` the source stride of the scanned dim. dst is contiguous in the source's
// shape: line l starts at (l / inner) * len * inner + l % inner and steps by `inner` (the
// product of the sizes after the dim). Floats keep their dtype (halves accumulate in float),
// integers and bool accumulate and output in int64 (wrapping).

template <typename T> struct ScanT { typedef i64 acc; typedef i64 out; };
template <> struct ScanT<float> { typedef float acc; typedef float out; };
template <> struct ScanT<double> { typedef double acc; typedef double out; };
template <> struct ScanT<f16_t> { typedef float acc; typedef f16_t out; };
template <> struct ScanT<bf16_t> { typedef float acc; typedef bf16_t out; };

template <typename A> __device__ __forceinline__ A scan_op(A a, A b, bool prod) { return prod ? a * b : a + b; }
template <> __device__ __forceinline__ i64 scan_op<i64>(i64 a, i64 b, bool prod) {
    const unsigned long long x = (unsigned long long)a, y = (unsigned long long)b;
    return (i64)(prod ? x * y : x + y);
}
template <typename O, typename A> __device__ __forceinline__ O scan_out(A v) { return from_acc<O>(v); }
template <> __device__ __forceinline__ i64 scan_out<i64, i64>(i64 v) { return v; }

template <typename T, bool PROD>
__device__ void scan_lines(const T* src, const Strided& lines, i64 src_step,
                           typename ScanT<T>::out* dst, i64 n_lines, i64 len, i64 inner) {
    typedef typename ScanT<T>::acc A;
    typedef typename ScanT<T>::out O;
    FT_KERNEL_LOOP(l, n_lines) {
        const i64 s0 = strided_offset(lines, l);
        const i64 d0 = (l / inner) * len * inner + l % inner;
        A acc = PROD ? (A)1 : (A)0;
        for (i64 j = 0; j < len; ++j) {
            acc = scan_op<A>(acc, (A)to_acc(src[s0 + j * src_step]), PROD);
            dst[d0 + j * inner] = scan_out<O, A>(acc);
        }
    }
}

#define FT_SCAN(sfx, T)                                                                       \
    extern "C" __global__ void scan_cumsum_##sfx(const T* src, Strided lines, i64 src_step,   \
                                                 ScanT<T>::out* dst, i64 n_lines, i64 len,    \
                                                 i64 inner) {                                 \
        scan_lines<T, false>(src, lines, src_step, dst, n_lines, len, inner);                 \
    }                                                                                         \
    extern "C" __global__ void scan_cumprod_##sfx(const T* src, Strided lines, i64 src_step,  \
                                                  ScanT<T>::out* dst, i64 n_lines, i64 len,   \
                                                  i64 inner) {                                \
        scan_lines<T, true>(src, lines, src_step, dst, n_lines, len, inner);                  \
    }

FT_ALL_TYPES(FT_SCAN)
