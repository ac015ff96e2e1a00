// ---- rowops.cuh: helpers of the reduce, scan, softmax, layer_norm, loss, index, conv and
// pool modules (prepended to their sources after common.cuh; see kernels/families2.rs).

// Bits of the device error flag (an int the caller zeroes, passes as `int* err`, and checks
// when it syncs): an index was out of range (nothing was read or written out of bounds).
#define FT_ERR_INDEX 1

// Threads of the row kernels (one block per row): a power of two.
#define FT_ROW_THREADS 256

// Math in the compute type: float for float/half/bfloat16, double for double.
__device__ __forceinline__ float ft_exp(float x) { return expf(x); }
__device__ __forceinline__ double ft_exp(double x) { return exp(x); }
__device__ __forceinline__ float ft_log(float x) { return logf(x); }
__device__ __forceinline__ double ft_log(double x) { return log(x); }
__device__ __forceinline__ float ft_sqrt(float x) { return sqrtf(x); }
__device__ __forceinline__ double ft_sqrt(double x) { return sqrt(x); }
__device__ __forceinline__ float ft_pow(float x, float y) { return powf(x, y); }
__device__ __forceinline__ double ft_pow(double x, double y) { return pow(x, y); }
__device__ __forceinline__ float ft_abs(float x) { return fabsf(x); }
__device__ __forceinline__ double ft_abs(double x) { return fabs(x); }

template <typename A> __device__ __forceinline__ A ft_inf();
template <> __device__ __forceinline__ float ft_inf<float>() { return __int_as_float(0x7f800000); }
template <> __device__ __forceinline__ double ft_inf<double>() {
    return __longlong_as_double(0x7ff0000000000000LL);
}
template <typename A> __device__ __forceinline__ A ft_nan() { return ft_inf<A>() - ft_inf<A>(); }

// NaN test that is false for integers and bool.
template <typename A> __device__ __forceinline__ bool ft_isnan(A v) { return v != v; }

// Max / min where a NaN wins (PyTorch's propagation).
template <typename A> __device__ __forceinline__ A nan_max(A a, A b) { return (ft_isnan(a) || a > b) ? a : b; }
template <typename A> __device__ __forceinline__ A nan_min(A a, A b) { return (ft_isnan(a) || a < b) ? a : b; }

struct AddF {
    template <typename A> __device__ __forceinline__ A operator()(A a, A b) const { return a + b; }
};
struct MaxF {
    template <typename A> __device__ __forceinline__ A operator()(A a, A b) const { return nan_max(a, b); }
};

// Reduces one value per thread over the whole block (blockDim.x a power of two, at most
// FT_ROW_THREADS, blockDim.y == 1); every thread gets the result. Every thread must call it.
template <typename A, typename F> __device__ A block_reduce(A v, F f) {
    __shared__ A sh[FT_ROW_THREADS];
    const int t = threadIdx.x;
    sh[t] = v;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s) sh[t] = f(sh[t], sh[t + s]);
        __syncthreads();
    }
    A r = sh[0];
    __syncthreads();
    return r;
}

// Instantiation lists: X(suffix, storage type).
#define FT_FLOAT_TYPES(X) X(f32, float) X(f64, double) X(f16, f16_t) X(bf16, bf16_t)
#define FT_INT_TYPES(X) X(i64, i64) X(i32, int) X(i16, short) X(i8, signed char) X(u8, unsigned char)
#define FT_ALL_TYPES(X) FT_FLOAT_TYPES(X) FT_INT_TYPES(X) X(bool, bool)

// A comma that survives macro arguments (template argument lists in instantiation macros).
#define FT_COMMA ,

template <bool C, typename A, typename B> struct If { typedef A type; };
template <typename A, typename B> struct If<false, A, B> { typedef B type; };
