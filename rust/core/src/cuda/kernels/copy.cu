// Strided copies with dtype conversion: contiguous(), .to(dtype), copy_, cat, index assignment.
//
// copy_<src>_<dst>(const S* src, Strided src_view, D* dst, Strided dst_view, i64 n)
//   element i (row-major over the shape) of the source view goes to element i of the
//   destination view, converted as ops/copy.rs `convert` does (through f64 when either side
//   is floating point, float to int truncating and saturating, NaN to 0, to bool `!= 0`).
// copy_contig_b<bytes>(const T* src, i64 src_offset, T* dst, i64 dst_offset, i64 n)
//   same-dtype contiguous copy of n elements of 1, 2, 4 or 8 bytes.

template <typename S, typename D>
__device__ __forceinline__ void copy_impl(const S* __restrict__ src, const Strided& sv,
                                          D* __restrict__ dst, const Strided& dv, i64 n) {
    FT_KERNEL_LOOP(i, n) {
        dst[ft_offset(dv, i)] = cast<D, S>(src[ft_offset(sv, i)]);
    }
}

#define FT_COPY_ONE(S, sn, D, dn)                                                            \
    extern "C" __global__ void copy_##sn##_##dn(const S* src, Strided sv, D* dst, Strided dv, \
                                                i64 n) {                                     \
        copy_impl<S, D>(src, sv, dst, dv, n);                                                \
    }
#define FT_COPY_FROM(S, sn)                                                                  \
    FT_COPY_ONE(S, sn, float, f32) FT_COPY_ONE(S, sn, double, f64)                           \
    FT_COPY_ONE(S, sn, f16_t, f16) FT_COPY_ONE(S, sn, bf16_t, bf16)                          \
    FT_COPY_ONE(S, sn, i64, i64) FT_COPY_ONE(S, sn, int, i32) FT_COPY_ONE(S, sn, short, i16)  \
    FT_COPY_ONE(S, sn, signed char, i8) FT_COPY_ONE(S, sn, unsigned char, u8)                \
    FT_COPY_ONE(S, sn, bool, bool)
FT_ALL_TYPES(FT_COPY_FROM)

template <typename T>
__device__ __forceinline__ void copy_contig_impl(const T* __restrict__ src, i64 so,
                                                 T* __restrict__ dst, i64 doff, i64 n) {
    FT_KERNEL_LOOP(i, n) { dst[doff + i] = src[so + i]; }
}
#define FT_COPY_CONTIG(T, bytes)                                                             \
    extern "C" __global__ void copy_contig_b##bytes(const T* src, i64 so, T* dst, i64 doff,  \
                                                    i64 n) {                                 \
        copy_contig_impl<T>(src, so, dst, doff, n);                                          \
    }
FT_COPY_CONTIG(unsigned char, 1)
FT_COPY_CONTIG(unsigned short, 2)
FT_COPY_CONTIG(unsigned int, 4)
FT_COPY_CONTIG(unsigned long long, 8)
