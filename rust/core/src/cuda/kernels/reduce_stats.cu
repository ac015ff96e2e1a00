// Statistical reductions (same launch shape and argument list as reduce.cu; floats only):
//   reduce_var_<dt> / reduce_std_<dt>   param = correction: sum((x - mean)^2) / max(0, n - c)
//   reduce_norm_<dt>                    param = p: vector_norm for p = 0, 1, 2, inf, -inf, other
//   reduce_logsumexp_<dt>               param unused
// Outputs have the input's dtype. Also the value-and-index reduction of max(dim) / argmax:
//   reduce_arg_<dt>(const T* src, Strided outer, Strided inner, T* vals (0 = not wanted),
//                   i64* idx, i64 n_out, i64 n_inner, int is_max)
// giving the first index of the extreme, where a NaN is the extreme (PyTorch's rule).

// Welford's running (count, mean, sum of squared deviations), merged with Chan's formula.
template <typename T, bool STD> struct VarOp {
    typedef T In;
    typedef typename Acc<T>::type A;
    struct State { i64 n; A mean; A m2; };
    T* dst;
    A correction;
    __device__ VarOp(T* d, double c) : dst(d), correction((A)c) {}
    __device__ State init() const { State s; s.n = 0; s.mean = 0; s.m2 = 0; return s; }
    __device__ State step(State s, T v, i64) const {
        const A x = to_acc(v);
        s.n += 1;
        const A d = x - s.mean;
        s.mean += d / (A)s.n;
        s.m2 += d * (x - s.mean);
        return s;
    }
    __device__ State combine(State a, State b) const {
        if (a.n == 0) return b;
        if (b.n == 0) return a;
        State r;
        r.n = a.n + b.n;
        const A na = (A)a.n, nb = (A)b.n, n = (A)r.n;
        const A d = b.mean - a.mean;
        r.mean = a.mean + d * (nb / n);
        r.m2 = a.m2 + b.m2 + d * d * (na * (nb / n));
        return r;
    }
    __device__ void write(i64 o, State s, i64 n) const {
        A denom = (A)n - correction;
        if (denom < (A)0) denom = (A)0;
        A var = n == 0 ? ft_nan<A>() : s.m2 / denom;
        dst[o] = from_acc<T>(STD ? ft_sqrt(var) : var);
    }
};

// vector_norm: p = 0 counts nonzeros, 1 sums |x|, 2 is sqrt(sum x^2), +-inf the max / min of
// |x| (NaN wins), other p (sum |x|^p)^(1/p) (0 when the sum is 0, as the CPU's root).
template <typename T> struct NormOp {
    typedef T In;
    typedef typename Acc<T>::type A;
    typedef A State;
    T* dst;
    A p;
    int mode;  // 0: p=0, 1: p=1, 2: p=2, 3: inf, 4: -inf, 5: other
    __device__ NormOp(T* d, double pp) : dst(d), p((A)pp) {
        const double inf = __longlong_as_double(0x7ff0000000000000LL);
        mode = pp == 0.0 ? 0 : pp == 1.0 ? 1 : pp == 2.0 ? 2 : pp == inf ? 3 : pp == -inf ? 4 : 5;
    }
    __device__ State init() const { return mode == 4 ? ft_inf<A>() : (A)0; }
    __device__ State combine(State a, State b) const {
        return mode == 3 ? nan_max(a, b) : mode == 4 ? nan_min(a, b) : a + b;
    }
    __device__ State step(State s, T v, i64) const {
        const A a = ft_abs(to_acc(v));
        switch (mode) {
            case 0: return s + (a != (A)0 ? (A)1 : (A)0);
            case 1: return s + a;
            case 2: return s + a * a;
            case 3: return nan_max(s, a);
            case 4: return nan_min(s, a);
            default: return s + ft_pow(a, p);
        }
    }
    __device__ void write(i64 o, State s, i64) const {
        if (mode == 2) s = ft_sqrt(s);
        if (mode == 5 && s != (A)0) s = ft_pow(s, (A)1 / p);
        dst[o] = from_acc<T>(s);
    }
};

// max + log(sum(exp(x - max))) with a running max; NaN gives NaN, +inf gives +inf, a row
// without finite values or +inf gives -inf (its sum is empty).
template <typename T> struct LseOp {
    typedef T In;
    typedef typename Acc<T>::type A;
    struct State { A m; A s; int nan; int pinf; };
    T* dst;
    __device__ LseOp(T* d, double) : dst(d) {}
    __device__ State init() const { State s; s.m = -ft_inf<A>(); s.s = 0; s.nan = 0; s.pinf = 0; return s; }
    __device__ State step(State s, T v, i64) const {
        const A x = to_acc(v);
        if (x != x) { s.nan = 1; return s; }
        if (x == ft_inf<A>()) { s.pinf = 1; return s; }
        if (x == -ft_inf<A>()) return s;
        if (x > s.m) {
            s.s = (s.m == -ft_inf<A>() ? (A)0 : s.s * ft_exp(s.m - x)) + (A)1;
            s.m = x;
        } else {
            s.s += ft_exp(x - s.m);
        }
        return s;
    }
    __device__ State combine(State a, State b) const {
        State r;
        r.nan = a.nan | b.nan;
        r.pinf = a.pinf | b.pinf;
        r.m = a.m > b.m ? a.m : b.m;
        r.s = (a.m == -ft_inf<A>() ? (A)0 : a.s * ft_exp(a.m - r.m)) +
              (b.m == -ft_inf<A>() ? (A)0 : b.s * ft_exp(b.m - r.m));
        return r;
    }
    __device__ void write(i64 o, State s, i64) const {
        A r = s.nan ? ft_nan<A>() : s.pinf ? ft_inf<A>() : s.m == -ft_inf<A>() ? s.m : s.m + ft_log(s.s);
        dst[o] = from_acc<T>(r);
    }
};

// First index of the max / min; idx < 0 marks an empty state.
template <typename T> struct ArgOp {
    typedef T In;
    typedef typename Acc<T>::type A;
    struct State { A v; i64 idx; };
    T* vals;
    i64* idx;
    int is_max;
    __device__ ArgOp(T* v, i64* i, int m) : vals(v), idx(i), is_max(m) {}
    __device__ State init() const { State s; s.v = (A)0; s.idx = -1; return s; }
    // True when a comes before b in the order "extreme first, then lower index".
    __device__ bool better(const State& a, const State& b) const {
        const bool an = ft_isnan(a.v), bn = ft_isnan(b.v);
        if (an || bn) return an && (!bn || a.idx < b.idx);
        if (a.v == b.v) return a.idx < b.idx;
        return is_max ? a.v > b.v : a.v < b.v;
    }
    __device__ State combine(State a, State b) const {
        if (a.idx < 0) return b;
        if (b.idx < 0) return a;
        return better(a, b) ? a : b;
    }
    __device__ State step(State s, T v, i64 j) const {
        State t; t.v = to_acc(v); t.idx = j;
        return combine(s, t);
    }
    __device__ void write(i64 o, State s, i64) const {
        if (vals) vals[o] = from_acc<T>(s.v);
        idx[o] = s.idx < 0 ? 0 : s.idx;
    }
};

#define FT_STATS_KERNEL(name, sfx, T, OP)                                                    \
    extern "C" __global__ void name##_##sfx(const T* src, Strided outer, Strided inner,      \
                                            T* dst, i64 n_out, i64 n_inner, double param) {  \
        reduce_rows(OP(dst, param), src, outer, inner, n_out, n_inner);                      \
    }
#define FT_STATS(sfx, T)                                                 \
    FT_STATS_KERNEL(reduce_var, sfx, T, VarOp<T FT_COMMA false>)         \
    FT_STATS_KERNEL(reduce_std, sfx, T, VarOp<T FT_COMMA true>)          \
    FT_STATS_KERNEL(reduce_norm, sfx, T, NormOp<T>)                      \
    FT_STATS_KERNEL(reduce_logsumexp, sfx, T, LseOp<T>)
#define FT_ARG(sfx, T)                                                                       \
    extern "C" __global__ void reduce_arg_##sfx(const T* src, Strided outer, Strided inner,  \
                                                T* vals, i64* idx, i64 n_out, i64 n_inner,   \
                                                int is_max) {                                \
        reduce_rows(ArgOp<T>(vals, idx, is_max), src, outer, inner, n_out, n_inner);        \
    }

FT_FLOAT_TYPES(FT_STATS)
FT_ALL_TYPES(FT_ARG)
