// ---- win2d.cuh: the geometry of a 2-D sliding window over NCHW (conv.cu, pool.cu) ----
// Mirrors `launch::conv::Win2d` (#[repr(C)], fourteen i64 in this order).
struct Win2d {
    i64 n, c, h, w;
    i64 kh, kw;
    i64 pad_h, pad_w;
    i64 stride_h, stride_w;
    i64 dil_h, dil_w;
    i64 out_h, out_w;
};

// Outputs (along one axis) whose window covers input position i: [*lo, *hi] (maybe empty).
__device__ __forceinline__ void covering(i64 i, i64 pad, i64 k, i64 stride, i64 dil, i64 out,
                                         i64* lo, i64* hi) {
    const i64 num = i + pad - (k - 1) * dil;
    *lo = num <= 0 ? 0 : (num + stride - 1) / stride;
    const i64 h = (i + pad) / stride;
    *hi = h < out - 1 ? h : out - 1;
}

#define FT_WIN_FLOATS(X) X(f32, float) X(f64, double) X(f16, f16_t) X(bf16, bf16_t)
#define FT_WIN_ALL_BUT_BOOL(X) FT_WIN_FLOATS(X) X(i64, i64) X(i32, int) X(i16, short) \
    X(i8, signed char) X(u8, unsigned char)
