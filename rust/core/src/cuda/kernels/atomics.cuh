// ---- atomics.cuh: read-modify-write of any element type (index_add, scatter) ----

template <typename To, typename From> __device__ __forceinline__ To ft_bits(From v) {
    union { From f; To t; } u;
    u.f = v;
    return u.t;
}

template <int N> struct std_bits;
template <> struct std_bits<1> { typedef unsigned char type; };
template <> struct std_bits<2> { typedef unsigned short type; };

// *addr = f(*addr) atomically, for 1-, 2-, 4- and 8-byte types. 1- and 2-byte elements are
// updated with a compare-and-swap on the aligned 32-bit word that contains them.
template <typename T, typename F> __device__ void atomic_update(T* addr, F f) {
    if constexpr (sizeof(T) == 8) {
        unsigned long long* a = (unsigned long long*)addr;
        unsigned long long old = *a, assumed;
        do {
            assumed = old;
            T nv = f(ft_bits<T>(assumed));
            old = atomicCAS(a, assumed, ft_bits<unsigned long long>(nv));
        } while (assumed != old);
    } else if constexpr (sizeof(T) == 4) {
        unsigned int* a = (unsigned int*)addr;
        unsigned int old = *a, assumed;
        do {
            assumed = old;
            T nv = f(ft_bits<T>(assumed));
            old = atomicCAS(a, assumed, ft_bits<unsigned int>(nv));
        } while (assumed != old);
    } else {
        typedef typename std_bits<sizeof(T)>::type B;
        size_t p = (size_t)addr;
        unsigned int* a = (unsigned int*)(p & ~(size_t)3);
        const unsigned int shift = (unsigned int)(p & 3) * 8;
        const unsigned int mask = (sizeof(T) == 1 ? 0xffu : 0xffffu) << shift;
        unsigned int old = *a, assumed;
        do {
            assumed = old;
            T cur = ft_bits<T>((B)((assumed & mask) >> shift));
            unsigned int nb = (unsigned int)ft_bits<B>(f(cur));
            old = atomicCAS(a, assumed, (assumed & ~mask) | ((nb << shift) & mask));
        } while (assumed != old);
    }
}

// The combining functions of index_add / scatter (values in storage type, computed in the
// compute type). Adding bools is a logical or, multiplying them a logical and (PyTorch).
struct AtomAdd {
    template <typename T> __device__ T operator()(T a, T b) const {
        return from_acc<T>(to_acc(a) + to_acc(b));
    }
    __device__ bool operator()(bool a, bool b) const { return a || b; }
    __device__ i64 operator()(i64 a, i64 b) const {
        return (i64)((unsigned long long)a + (unsigned long long)b);
    }
};
struct AtomMul {
    template <typename T> __device__ T operator()(T a, T b) const {
        return from_acc<T>(to_acc(a) * to_acc(b));
    }
    __device__ bool operator()(bool a, bool b) const { return a && b; }
    __device__ i64 operator()(i64 a, i64 b) const {
        return (i64)((unsigned long long)a * (unsigned long long)b);
    }
};
// NaN wins, as in PyTorch's scatter_reduce amax / amin.
struct AtomMax {
    template <typename T> __device__ T operator()(T a, T b) const {
        auto x = to_acc(a), y = to_acc(b);
        return (x != x || x >= y) ? a : b;
    }
};
struct AtomMin {
    template <typename T> __device__ T operator()(T a, T b) const {
        auto x = to_acc(a), y = to_acc(b);
        return (x != x || x <= y) ? a : b;
    }
};

template <typename T, typename F> struct Bound {
    T v;
    F f;
    __device__ T operator()(T cur) const { return f(cur, v); }
};

// *addr = op(*addr, v) atomically; native atomics where the hardware has them.
template <typename T, typename F> __device__ __forceinline__ void atomic_apply(T* addr, T v, F op) {
    Bound<T, F> b{v, op};
    atomic_update(addr, b);
}
__device__ __forceinline__ void atomic_apply(float* addr, float v, AtomAdd) { atomicAdd(addr, v); }
__device__ __forceinline__ void atomic_apply(double* addr, double v, AtomAdd) { atomicAdd(addr, v); }
__device__ __forceinline__ void atomic_apply(int* addr, int v, AtomAdd) { atomicAdd(addr, v); }
__device__ __forceinline__ void atomic_apply(i64* addr, i64 v, AtomAdd) {
    atomicAdd((unsigned long long*)addr, (unsigned long long)v);
}
