// Shared by every kernel module (prepended to each source before NVRTC compiles it, so no
// include path is needed at run time). No CUDA headers: half and bfloat16 are carried as
// 16-bit integers and converted with PTX, which works with any NVRTC.

typedef long long i64;
// Two distinct 2-byte types, so templates can tell half from bfloat16.
struct __align__(2) f16_t { unsigned short x; };
struct __align__(2) bf16_t { unsigned short x; };

__device__ __forceinline__ float f16_to_f32(f16_t h) {
    float f;
    asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h.x));
    return f;
}
__device__ __forceinline__ f16_t f32_to_f16(float f) {
    f16_t h;
    asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h.x) : "f"(f));
    return h;
}
__device__ __forceinline__ float bf16_to_f32(bf16_t b) {
    return __int_as_float(((unsigned int)b.x) << 16);
}
// Round to nearest even, NaN kept quiet (as PyTorch's c10::BFloat16 does).
__device__ __forceinline__ bf16_t f32_to_bf16(float f) {
    unsigned int u = __float_as_uint(f);
    bf16_t b;
    if ((u & 0x7fffffffu) > 0x7f800000u) {
        b.x = (unsigned short)((u >> 16) | 0x40);
        return b;
    }
    u += 0x7fffu + ((u >> 16) & 1u);
    b.x = (unsigned short)(u >> 16);
    return b;
}

// The type a kernel computes in for storage type T: half and bfloat16 compute in float.
template <typename T> struct Acc { typedef T type; };
template <> struct Acc<f16_t> { typedef float type; };
template <> struct Acc<bf16_t> { typedef float type; };

// Converting loads and stores between a storage type and its compute type.
template <typename T> __device__ __forceinline__ typename Acc<T>::type to_acc(T v) { return v; }
template <> __device__ __forceinline__ float to_acc<f16_t>(f16_t v) { return f16_to_f32(v); }
template <> __device__ __forceinline__ float to_acc<bf16_t>(bf16_t v) { return bf16_to_f32(v); }
template <typename T> __device__ __forceinline__ T from_acc(typename Acc<T>::type v) { return (T)v; }
template <> __device__ __forceinline__ f16_t from_acc<f16_t>(float v) { return f32_to_f16(v); }
template <> __device__ __forceinline__ bf16_t from_acc<bf16_t>(float v) { return f32_to_bf16(v); }

// Value conversion between any two element types, through the target's compute type.
template <typename To, typename From> __device__ __forceinline__ To convert(From v) {
    return from_acc<To>((typename Acc<To>::type)to_acc<From>(v));
}

// A strided view as kernels see it: element offsets, never bytes. Mirrors
// `launch::Strided` on the Rust side (same field order, #[repr(C)]).
#define FT_MAX_DIMS 8
struct Strided {
    int ndim;
    i64 offset;
    i64 shape[FT_MAX_DIMS];
    i64 strides[FT_MAX_DIMS];
};

// Offset in elements of the `linear`-th element (row-major over `shape`).
__device__ __forceinline__ i64 strided_offset(const Strided& s, i64 linear) {
    i64 off = s.offset;
    for (int d = s.ndim - 1; d >= 0; --d) {
        i64 n = s.shape[d];
        off += (linear % n) * s.strides[d];
        linear /= n;
    }
    return off;
}

// Grid-stride loop over n elements with 64-bit indices.
#define FT_KERNEL_LOOP(i, n) \
    for (i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += (i64)blockDim.x * gridDim.x)
