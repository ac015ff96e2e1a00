// 2-D pooling over contiguous NCHW: x [n, c, h, w], outputs [n, c, out_h, out_w] (the caller
// computes out_h / out_w, ceil_mode included). One thread per output (forward) or per input
// pixel (backward: each pixel gathers from the windows that cover it, in a fixed order, so
// no atomics and deterministic results).
//   max_pool2d_forward_<dt>(const T* x, T* y, i64* idx, Win2d g)
//       y = the window max, idx = its flat position iy * w + ix in the plane (the first max;
//       a NaN wins and ends the window, as the CPU). Every dtype but bool.
//   max_pool2d_backward_<dt>(const T* gy, const i64* idx, T* gx, Win2d g)   (floats)
//       gx[p] = sum of gy over the outputs whose idx is p (overwrites gx).
//   avg_pool2d_forward_<dt>(const T* x, T* y, Win2d g, int count_include_pad,
//                           i64 divisor_override)                             (floats)
//   avg_pool2d_backward_<dt>(const T* gy, T* gx, Win2d g, int count_include_pad,
//                            i64 divisor_override)                            (floats)
//       Windows are clipped to the padded input; the divisor is divisor_override when > 0,
//       else the clipped window's size (count_include_pad) or its part inside the input.
//       Dilation must be 1 for avg pooling.

template <typename T> __device__ void max_pool_fwd(const T* x, T* y, i64* idx, const Win2d& g) {
    typedef typename Acc<T>::type A;
    FT_KERNEL_LOOP(e, g.n * g.c * g.out_h * g.out_w) {
        const i64 ox = e % g.out_w, oy = (e / g.out_w) % g.out_h, plane = e / (g.out_w * g.out_h);
        const T* xp = x + plane * g.h * g.w;
        A best = 0;
        i64 pos = -1;
        for (i64 ki = 0; ki < g.kh && !(pos >= 0 && ft_isnan(best)); ++ki) {
            const i64 iy = oy * g.stride_h - g.pad_h + ki * g.dil_h;
            if (iy < 0 || iy >= g.h) continue;
            for (i64 kj = 0; kj < g.kw; ++kj) {
                const i64 ix = ox * g.stride_w - g.pad_w + kj * g.dil_w;
                if (ix < 0 || ix >= g.w) continue;
                const A v = to_acc(xp[iy * g.w + ix]);
                if (pos < 0 || v > best || ft_isnan(v)) {
                    best = v;
                    pos = iy * g.w + ix;
                    if (ft_isnan(v)) break;
                }
            }
        }
        y[e] = from_acc<T>(best);
        idx[e] = pos < 0 ? 0 : pos;
    }
}

template <typename T> __device__ void max_pool_bwd(const T* gy, const i64* idx, T* gx, const Win2d& g) {
    typedef typename Acc<T>::type A;
    FT_KERNEL_LOOP(e, g.n * g.c * g.h * g.w) {
        const i64 ix = e % g.w, iy = (e / g.w) % g.h, plane = e / (g.w * g.h);
        const i64 p = iy * g.w + ix, ob = plane * g.out_h * g.out_w;
        i64 y0, y1, x0, x1;
        covering(iy, g.pad_h, g.kh, g.stride_h, g.dil_h, g.out_h, &y0, &y1);
        covering(ix, g.pad_w, g.kw, g.stride_w, g.dil_w, g.out_w, &x0, &x1);
        A s = 0;
        for (i64 oy = y0; oy <= y1; ++oy)
            for (i64 ox = x0; ox <= x1; ++ox) {
                const i64 o = ob + oy * g.out_w + ox;
                if (idx[o] == p) s += to_acc(gy[o]);
            }
        gx[e] = from_acc<T>(s);
    }
}

// The divisor of output (oy, ox)'s window.
__device__ __forceinline__ i64 avg_divisor(const Win2d& g, i64 oy, i64 ox, int include_pad,
                                           i64 override_) {
    if (override_ > 0) return override_;
    i64 hs = oy * g.stride_h - g.pad_h, ws = ox * g.stride_w - g.pad_w;
    i64 he = hs + g.kh, we = ws + g.kw;
    if (he > g.h + g.pad_h) he = g.h + g.pad_h;
    if (we > g.w + g.pad_w) we = g.w + g.pad_w;
    if (include_pad) return (he - hs) * (we - ws);
    if (hs < 0) hs = 0;
    if (ws < 0) ws = 0;
    if (he > g.h) he = g.h;
    if (we > g.w) we = g.w;
    return (he - hs) * (we - ws);
}

template <typename T>
__device__ void avg_pool_fwd(const T* x, T* y, const Win2d& g, int include_pad, i64 override_) {
    typedef typename Acc<T>::type A;
    FT_KERNEL_LOOP(e, g.n * g.c * g.out_h * g.out_w) {
        const i64 ox = e % g.out_w, oy = (e / g.out_w) % g.out_h, plane = e / (g.out_w * g.out_h);
        const T* xp = x + plane * g.h * g.w;
        const i64 hs = oy * g.stride_h - g.pad_h, ws = ox * g.stride_w - g.pad_w;
        A s = 0;
        for (i64 iy = hs < 0 ? 0 : hs; iy < hs + g.kh && iy < g.h; ++iy)
            for (i64 ix = ws < 0 ? 0 : ws; ix < ws + g.kw && ix < g.w; ++ix) s += to_acc(xp[iy * g.w + ix]);
        y[e] = from_acc<T>(s / (A)avg_divisor(g, oy, ox, include_pad, override_));
    }
}

template <typename T>
__device__ void avg_pool_bwd(const T* gy, T* gx, const Win2d& g, int include_pad, i64 override_) {
    typedef typename Acc<T>::type A;
    FT_KERNEL_LOOP(e, g.n * g.c * g.h * g.w) {
        const i64 ix = e % g.w, iy = (e / g.w) % g.h, plane = e / (g.w * g.h);
        const i64 ob = plane * g.out_h * g.out_w;
        i64 y0, y1, x0, x1;
        covering(iy, g.pad_h, g.kh, g.stride_h, 1, g.out_h, &y0, &y1);
        covering(ix, g.pad_w, g.kw, g.stride_w, 1, g.out_w, &x0, &x1);
        A s = 0;
        for (i64 oy = y0; oy <= y1; ++oy)
            for (i64 ox = x0; ox <= x1; ++ox)
                s += to_acc(gy[ob + oy * g.out_w + ox]) / (A)avg_divisor(g, oy, ox, include_pad, override_);
        gx[e] = from_acc<T>(s);
    }
}

#define FT_MAX_POOL_FWD(sfx, T)                                                                \
    extern "C" __global__ void max_pool2d_forward_##sfx(const T* x, T* y, i64* idx, Win2d g) { \
        max_pool_fwd(x, y, idx, g);                                                            \
    }
#define FT_POOL_FLOAT(sfx, T)                                                                   \
    extern "C" __global__ void max_pool2d_backward_##sfx(const T* gy, const i64* idx, T* gx,    \
                                                         Win2d g) {                             \
        max_pool_bwd(gy, idx, gx, g);                                                           \
    }                                                                                           \
    extern "C" __global__ void avg_pool2d_forward_##sfx(const T* x, T* y, Win2d g, int inc,     \
                                                        i64 div) {                              \
        avg_pool_fwd(x, y, g, inc, div);                                                        \
    }                                                                                           \
    extern "C" __global__ void avg_pool2d_backward_##sfx(const T* gy, T* gx, Win2d g, int inc,  \
                                                         i64 div) {                             \
        avg_pool_bwd(gy, gx, g, inc, div);                                                      \
    }

FT_WIN_ALL_BUT_BOOL(FT_MAX_POOL_FWD)
FT_WIN_FLOATS(FT_POOL_FLOAT)
