// im2col / col2im for conv2d as GEMMs, batched. x is contiguous NCHW [n, c, h, w]; cols is
// contiguous [n, c * kh * kw, out_h * out_w] (row r = (ch * kh + ki) * kw + kj, column
// l = oy * out_w + ox), so image b's product is weight [o, c*kh*kw] x cols[b].
//   im2col_<dt>(const T* x, T* cols, Win2d g)   cols = the taps (0 in the padding)
//   col2im_<dt>(const T* cols, T* x, Win2d g)   x = the sum of each pixel's taps (overwrites
//       x; each pixel gathers its contributions in a fixed order: deterministic, no atomics)

template <typename T> __device__ void im2col_k(const T* x, T* cols, const Win2d& g) {
    const i64 kk = g.kh * g.kw, L = g.out_h * g.out_w;
    FT_KERNEL_LOOP(e, g.n * g.c * kk * L) {
        const i64 l = e % L;
        const i64 r = (e / L) % (g.c * kk);
        const i64 b = e / (L * g.c * kk);
        const i64 ch = r / kk, ki = (r % kk) / g.kw, kj = r % g.kw;
        const i64 iy = (l / g.out_w) * g.stride_h - g.pad_h + ki * g.dil_h;
        const i64 ix = (l % g.out_w) * g.stride_w - g.pad_w + kj * g.dil_w;
        T v = from_acc<T>((typename Acc<T>::type)0);
        if (iy >= 0 && iy < g.h && ix >= 0 && ix < g.w) v = x[((b * g.c + ch) * g.h + iy) * g.w + ix];
        cols[e] = v;
    }
}

template <typename T> __device__ void col2im_k(const T* cols, T* x, const Win2d& g) {
    typedef typename Acc<T>::type A;
    const i64 kk = g.kh * g.kw, L = g.out_h * g.out_w;
    FT_KERNEL_LOOP(e, g.n * g.c * g.h * g.w) {
        const i64 ix = e % g.w, iy = (e / g.w) % g.h, ch = (e / (g.w * g.h)) % g.c;
        const i64 b = e / (g.w * g.h * g.c);
        const T* base = cols + (b * g.c + ch) * kk * L;
        A s = 0;
        for (i64 ki = 0; ki < g.kh; ++ki) {
            const i64 ty = iy + g.pad_h - ki * g.dil_h;
            if (ty < 0 || ty % g.stride_h != 0) continue;
            const i64 oy = ty / g.stride_h;
            if (oy >= g.out_h) continue;
            for (i64 kj = 0; kj < g.kw; ++kj) {
                const i64 tx = ix + g.pad_w - kj * g.dil_w;
                if (tx < 0 || tx % g.stride_w != 0) continue;
                const i64 ox = tx / g.stride_w;
                if (ox >= g.out_w) continue;
                s += to_acc(base[(ki * g.kw + kj) * L + oy * g.out_w + ox]);
            }
        }
        x[e] = from_acc<T>(s);
    }
}

#define FT_CONV(sfx, T)                                                                      \
    extern "C" __global__ void im2col_##sfx(const T* x, T* cols, Win2d g) { im2col_k(x, cols, g); } \
    extern "C" __global__ void col2im_##sfx(const T* cols, T* x, Win2d g) { col2im_k(cols, x, g); }

FT_WIN_FLOATS(FT_CONV)
