// Reductions over a set of dims: output element o combines the input elements at
// strided_offset(outer, o) + strided_offset(inner, j), j in [0, n_inner) (inner.offset is 0).
//
// Block shape: blockDim.x threads share one output (a power of two), blockDim.y outputs per
// block, blockDim.x * blockDim.y == 256; blocks loop over the outputs. Each kernel is
//   <name>_<dtype>(const T* src, Strided outer, Strided inner, Out* dst, i64 n_out,
//                  i64 n_inner, double param)
// dst is contiguous. Floats accumulate in float (double for f64); integer and bool sums and
// products in int64 (wrapping), so their Out is i64.

// Accumulator and output types of sum / prod / mean.
template <typename T> struct SumT { typedef i64 acc; typedef i64 out; };
template <> struct SumT<float> { typedef float acc; typedef float out; };
template <> struct SumT<double> { typedef double acc; typedef double out; };
template <> struct SumT<f16_t> { typedef float acc; typedef f16_t out; };
template <> struct SumT<bf16_t> { typedef float acc; typedef bf16_t out; };

template <typename A> __device__ __forceinline__ A acc_add(A a, A b) { return a + b; }
template <> __device__ __forceinline__ i64 acc_add<i64>(i64 a, i64 b) {
    return (i64)((unsigned long long)a + (unsigned long long)b);
}
template <typename A> __device__ __forceinline__ A acc_mul(A a, A b) { return a * b; }
template <> __device__ __forceinline__ i64 acc_mul<i64>(i64 a, i64 b) {
    return (i64)((unsigned long long)a * (unsigned long long)b);
}

template <typename A, typename O> __device__ __forceinline__ O sum_out(A v) { return from_acc<O>(v); }
template <> __device__ __forceinline__ i64 sum_out<i64, i64>(i64 v) { return v; }

template <typename T, int KIND>  // KIND 0 sum, 1 mean, 2 prod
struct SumOp {
    typedef T In;
    typedef typename SumT<T>::acc State;
    typedef typename SumT<T>::out Out;
    Out* dst;
    __device__ SumOp(Out* d, double) : dst(d) {}
    __device__ State init() const { return KIND == 2 ? (State)1 : (State)0; }
    __device__ State step(State s, T v, i64) const {
        State x = (State)to_acc(v);
        return KIND == 2 ? acc_mul(s, x) : acc_add(s, x);
    }
    __device__ State combine(State a, State b) const { return KIND == 2 ? acc_mul(a, b) : acc_add(a, b); }
    __device__ void write(i64 o, State s, i64 n) const {
        if (KIND == 1) s = s / (State)n;  // float types only; 0/0 gives NaN for empty
        dst[o] = sum_out<State, Out>(s);
    }
};

// Max / min of values (NaN wins). The output of an empty reduction is unspecified: callers
// reject it, as PyTorch does.
template <typename T, bool MAX> struct ExtremeOp {
    typedef T In;
    typedef typename Acc<T>::type A;
    struct State { A v; int has; };
    typedef T Out;
    Out* dst;
    __device__ ExtremeOp(Out* d, double) : dst(d) {}
    __device__ State init() const { State s; s.v = (A)0; s.has = 0; return s; }
    __device__ State combine(State a, State b) const {
        if (!a.has) return b;
        if (!b.has) return a;
        a.v = MAX ? nan_max(a.v, b.v) : nan_min(a.v, b.v);
        return a;
    }
    __device__ State step(State s, T v, i64) const {
        State t; t.v = to_acc(v); t.has = 1;
        return combine(s, t);
    }
    __device__ void write(i64 o, State s, i64) const { dst[o] = from_acc<T>(s.v); }
};

// any / all (written as 0/1 bytes: the output may be bool or uint8) and count_nonzero (i64).
template <typename T, int KIND>  // KIND 0 any, 1 all, 2 count_nonzero
struct TruthOp {
    typedef T In;
    typedef i64 State;
    typedef typename If<KIND == 2, i64, unsigned char>::type Out;
    Out* dst;
    __device__ TruthOp(Out* d, double) : dst(d) {}
    __device__ State init() const { return KIND == 1 ? 1 : 0; }
    __device__ State step(State s, T v, i64) const {
        const State nz = to_acc(v) != (typename Acc<T>::type)0 ? 1 : 0;
        return KIND == 0 ? (s | nz) : KIND == 1 ? (s & nz) : s + nz;
    }
    __device__ State combine(State a, State b) const {
        return KIND == 0 ? (a | b) : KIND == 1 ? (a & b) : a + b;
    }
    __device__ void write(i64 o, State s, i64) const { dst[o] = (Out)s; }
};

#define FT_REDUCE_KERNEL(name, sfx, T, OP)                                                  \
    extern "C" __global__ void name##_##sfx(const T* src, Strided outer, Strided inner,     \
                                            OP::Out* dst, i64 n_out, i64 n_inner,          \
                                            double param) {                                \
        reduce_rows(OP(dst, param), src, outer, inner, n_out, n_inner);                    \
    }

#define FT_SUM_PROD(sfx, T)                                   \
    FT_REDUCE_KERNEL(reduce_sum, sfx, T, SumOp<T FT_COMMA 0>)  \
    FT_REDUCE_KERNEL(reduce_prod, sfx, T, SumOp<T FT_COMMA 2>)
#define FT_MEAN(sfx, T) FT_REDUCE_KERNEL(reduce_mean, sfx, T, SumOp<T FT_COMMA 1>)
#define FT_EXTREMES(sfx, T)                                              \
    FT_REDUCE_KERNEL(reduce_max, sfx, T, ExtremeOp<T FT_COMMA true>)     \
    FT_REDUCE_KERNEL(reduce_min, sfx, T, ExtremeOp<T FT_COMMA false>)
#define FT_TRUTH(sfx, T)                                                      \
    FT_REDUCE_KERNEL(reduce_any, sfx, T, TruthOp<T FT_COMMA 0>)               \
    FT_REDUCE_KERNEL(reduce_all, sfx, T, TruthOp<T FT_COMMA 1>)               \
    FT_REDUCE_KERNEL(reduce_count_nonzero, sfx, T, TruthOp<T FT_COMMA 2>)

FT_ALL_TYPES(FT_SUM_PROD)
FT_FLOAT_TYPES(FT_MEAN)
FT_ALL_TYPES(FT_EXTREMES)
FT_ALL_TYPES(FT_TRUTH)
