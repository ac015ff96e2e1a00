// ---- reduce_rows.cuh: the block loop of the reduction kernels (see reduce.cu) ----

// An op has In, State, init/step/combine and write(o, state, n_inner), which stores output o.
// Combines per-thread states of one output in shared memory.
template <typename Op>
__device__ void reduce_rows(Op op, const typename Op::In* src, const Strided& outer,
                            const Strided& inner, i64 n_out, i64 n_inner) {
    typedef typename Op::State S;
    __shared__ S sh[256];
    const int W = blockDim.x, G = blockDim.y, tx = threadIdx.x, ty = threadIdx.y;
    const int me = ty * W + tx;
    for (i64 base = (i64)blockIdx.x * G; base < n_out; base += (i64)gridDim.x * G) {
        const i64 o = base + ty;
        S s = op.init();
        if (o < n_out) {
            const i64 ob = strided_offset(outer, o);
            if (inner.ndim == 1) {
                // One reduced run (the common case, dims merged by the launcher): no index
                // division per element, and four loads issued before they are combined (in
                // the same order as the plain loop).
                const typename Op::In* p = src + ob;
                const i64 st = inner.strides[0];
                i64 j = tx;
                for (; j + 3 * W < n_inner; j += 4 * W) {
                    const typename Op::In v0 = p[j * st], v1 = p[(j + W) * st];
                    const typename Op::In v2 = p[(j + 2 * W) * st], v3 = p[(j + 3 * W) * st];
                    s = op.step(s, v0, j);
                    s = op.step(s, v1, j + W);
                    s = op.step(s, v2, j + 2 * W);
                    s = op.step(s, v3, j + 3 * W);
                }
                for (; j < n_inner; j += W) s = op.step(s, p[j * st], j);
            } else {
                for (i64 j = tx; j < n_inner; j += W) s = op.step(s, src[ob + strided_offset(inner, j)], j);
            }
        }
        sh[me] = s;
        __syncthreads();
        for (int st = W / 2; st > 0; st >>= 1) {
            if (tx < st) sh[me] = op.combine(sh[me], sh[me + st]);
            __syncthreads();
        }
        if (tx == 0 && o < n_out) op.write(o, sh[ty * W], n_inner);
        __syncthreads();
    }
}

