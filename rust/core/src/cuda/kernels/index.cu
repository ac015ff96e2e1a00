// Index-driven kernels. Indices are int64 (contiguous for index_select / index_add, a
// strided view for gather / scatter). An index out of range sets bit 1 (FT_ERR_INDEX) of
// *err (when err is not null) and that element is skipped (index_select / gather write 0):
// nothing is read or written out of bounds; the caller checks the flag when it syncs.
// Views have at least one dim (a 0-d tensor is passed as shape [1]).
//
//   index_select_<dt>(const T* src, Strided src_view, i64 dim, const i64* index, i64 n_index,
//                     T* dst, i64 n_out, int* err)
//       dst (contiguous, src's shape with dim -> n_index): dst[.., k, ..] = src[.., index[k], ..];
//       negative indices count from the end (as the CPU's index_select).
//   index_add_<dt>(T* dst, Strided dst_view, i64 dim, const i64* index, i64 n_index,
//                  const T* src, Strided src_view, double alpha, i64 n_src, int* err)
//       dst[.., index[k], ..] += alpha * src[.., k, ..] atomically (src_view has dst's shape
//       with dim -> n_index); negative indices count from the end; bool adds are "or";
//       integer dtypes use alpha truncated to int64.
//   gather_<dt>(const T* src, Strided src_view, i64 dim, const i64* index, Strided index_view,
//               T* dst, i64 n, int* err)
//       dst (contiguous, index's shape): dst[p] = src[p with dim -> index[p]], 0 <= index < size.
//   scatter_<op>_<dt>(T* dst, Strided dst_view, i64 dim, const i64* index, Strided index_view,
//                     const T* src, Strided src_view, i64 n, int* err)
//       dst[p with dim -> index[p]] = op(that, src[p]) for p over index's shape (src_view has
//       index's shape: a scalar source is a view with zero strides); op: set (plain store,
//       duplicates race as in PyTorch), add (scatter_add; bool "or"), mul (bool "and"),
//       amax, amin (NaN wins). Atomic for every op but set.

__device__ __forceinline__ void ft_flag(int* err) {
    if (err) atomicOr(err, FT_ERR_INDEX);
}

template <typename T>
__device__ void index_select_k(const T* src, const Strided& s, i64 dim, const i64* index,
                               i64 n_index, T* dst, i64 n_out, int* err) {
    FT_KERNEL_LOOP(o, n_out) {
        i64 rem = o, off = s.offset;
        bool ok = true;
        for (int d = s.ndim - 1; d >= 0; --d) {
            const i64 n = d == dim ? n_index : s.shape[d];
            i64 c = rem % n;
            rem /= n;
            if (d == dim) {
                const i64 size = s.shape[d];
                c = index[c];
                if (c < 0) c += size;
                if (c < 0 || c >= size) { ok = false; c = 0; }
            }
            off += c * s.strides[d];
        }
        if (ok) {
            dst[o] = src[off];
        } else {
            ft_flag(err);
            dst[o] = from_acc<T>((typename Acc<T>::type)0);
        }
    }
}

template <typename T> __device__ __forceinline__ T scale_alpha(T v, double alpha) {
    return from_acc<T>(to_acc(v) * (typename Acc<T>::type)alpha);
}
#define FT_INT_ALPHA(T)                                                          \
    template <> __device__ __forceinline__ T scale_alpha<T>(T v, double alpha) { \
        return (T)((unsigned long long)(i64)v * (unsigned long long)(i64)alpha); \
    }
FT_INT_ALPHA(i64)
FT_INT_ALPHA(int)
FT_INT_ALPHA(short)
FT_INT_ALPHA(signed char)
FT_INT_ALPHA(unsigned char)
template <> __device__ __forceinline__ bool scale_alpha<bool>(bool v, double alpha) {
    return v && (i64)alpha != 0;
}

template <typename T>
__device__ void index_add_k(T* dst, const Strided& dv, i64 dim, const i64* index, i64 n_index,
                            const T* src, const Strided& sv, double alpha, i64 n_src, int* err) {
    FT_KERNEL_LOOP(e, n_src) {
        i64 rem = e, soff = sv.offset, doff = dv.offset;
        bool ok = true;
        for (int d = sv.ndim - 1; d >= 0; --d) {
            const i64 c = rem % sv.shape[d];
            rem /= sv.shape[d];
            soff += c * sv.strides[d];
            if (d == dim) {
                const i64 size = dv.shape[d];
                i64 i = c < n_index ? index[c] : -size - 1;
                if (i < 0) i += size;
                if (i < 0 || i >= size) ok = false;
                doff += i * dv.strides[d];
            } else {
                doff += c * dv.strides[d];
            }
        }
        if (!ok) {
            ft_flag(err);
            continue;
        }
        atomic_apply(dst + doff, scale_alpha(src[soff], alpha), AtomAdd());
    }
}

// Offsets of position p of the index view: in the index, and in `v` with dim -> index[p].
// Returns false (and flags) when the index is out of [0, v.shape[dim]).
__device__ __forceinline__ bool gather_offsets(const Strided& iv, const Strided& v, i64 dim,
                                               const i64* index, i64 p, i64* voff) {
    i64 rem = p, ioff = iv.offset, off = v.offset;
    for (int d = iv.ndim - 1; d >= 0; --d) {
        const i64 c = rem % iv.shape[d];
        rem /= iv.shape[d];
        ioff += c * iv.strides[d];
        if (d != dim) off += c * v.strides[d];
    }
    const i64 i = index[ioff];
    if (i < 0 || i >= v.shape[dim]) return false;
    *voff = off + i * v.strides[dim];
    return true;
}

template <typename T>
__device__ void gather_k(const T* src, const Strided& sv, i64 dim, const i64* index,
                         const Strided& iv, T* dst, i64 n, int* err) {
    FT_KERNEL_LOOP(p, n) {
        i64 off;
        if (gather_offsets(iv, sv, dim, index, p, &off)) {
            dst[p] = src[off];
        } else {
            ft_flag(err);
            dst[p] = from_acc<T>((typename Acc<T>::type)0);
        }
    }
}

struct AtomSet {};
template <typename A, typename B> struct std_same { static const bool value = false; };
template <typename A> struct std_same<A, A> { static const bool value = true; };

template <typename T, typename Op>
__device__ void scatter_k(T* dst, const Strided& dv, i64 dim, const i64* index,
                          const Strided& iv, const T* src, const Strided& sv, i64 n, int* err,
                          Op op) {
    FT_KERNEL_LOOP(p, n) {
        i64 off;
        if (!gather_offsets(iv, dv, dim, index, p, &off)) {
            ft_flag(err);
            continue;
        }
        const T v = src[strided_offset(sv, p)];
        if constexpr (std_same<Op, AtomSet>::value) {
            dst[off] = v;
        } else {
            atomic_apply(dst + off, v, op);
        }
    }
}

#define FT_SCATTER(op, sfx, T, F)                                                             \
    extern "C" __global__ void scatter_##op##_##sfx(T* dst, Strided dv, i64 dim,              \
                                                    const i64* index, Strided iv,             \
                                                    const T* src, Strided sv, i64 n,          \
                                                    int* err) {                               \
        scatter_k(dst, dv, dim, index, iv, src, sv, n, err, F());                             \
    }
#define FT_INDEX(sfx, T)                                                                        \
    extern "C" __global__ void index_select_##sfx(const T* src, Strided sv, i64 dim,            \
                                                  const i64* index, i64 n_index, T* dst,        \
                                                  i64 n_out, int* err) {                        \
        index_select_k(src, sv, dim, index, n_index, dst, n_out, err);                          \
    }                                                                                           \
    extern "C" __global__ void index_add_##sfx(T* dst, Strided dv, i64 dim, const i64* index,   \
                                               i64 n_index, const T* src, Strided sv,           \
                                               double alpha, i64 n_src, int* err) {             \
        index_add_k(dst, dv, dim, index, n_index, src, sv, alpha, n_src, err);                  \
    }                                                                                           \
    extern "C" __global__ void gather_##sfx(const T* src, Strided sv, i64 dim,                  \
                                            const i64* index, Strided iv, T* dst, i64 n,        \
                                            int* err) {                                         \
        gather_k(src, sv, dim, index, iv, dst, n, err);                                         \
    }                                                                                           \
    FT_SCATTER(set, sfx, T, AtomSet)                                                            \
    FT_SCATTER(add, sfx, T, AtomAdd)                                                            \
    FT_SCATTER(mul, sfx, T, AtomMul)                                                            \
    FT_SCATTER(amax, sfx, T, AtomMax)                                                           \
    FT_SCATTER(amin, sfx, T, AtomMin)

FT_ALL_TYPES(FT_INDEX)
