// Counter-based random numbers: Philox-4x32-10 (Salmon, Moraes, Dror and Shaw, "Parallel
// random numbers: as easy as 1, 2, 3", SC 2011). The key is the 64-bit seed; the counter is
// the 64-bit block number `offset / 4 + g` (upper 64 bits zero). Block g yields four 32-bit
// words, words 4g .. 4g+3 of the stream that starts at `offset` (a multiple of 4). Each
// element uses a fixed number of words (its "width"), so element i reads words
// [i * width, (i + 1) * width) of the stream: results depend only on (seed, offset, i),
// never on the launch shape. A call consumes ceil(n * width / 4) * 4 words; the launcher's
// `words_consumed` says how far the caller advances its offset.
//
// Widths: uniform/normal 1 word per element for f32/f16/bf16, 2 for f64; bernoulli and
// dropout 1; randint 2.
//
// uniform_<t>(T* dst, i64 n, double low, double high, u64 seed, u64 offset)      (floating t)
//   low + (high - low) * u in f64, u in [0, 1) with 24 random bits (53 for f64).
// normal_<t>(T* dst, i64 n, double mean, double std, u64 seed, u64 offset)       (floating t)
//   Box-Muller on pairs of uniforms: u1 in (0, 1], u2 in [0, 1); element 2k gets
//   r cos(2 pi u2) and 2k+1 gets r sin(2 pi u2), r = sqrt(-2 ln u1); then mean + std * z.
// bernoulli_scalar_<t>(T* dst, i64 n, double p, u64 seed, u64 offset)
//   1 where u < p (u = word / 2^32), else 0.
// bernoulli_tensor_<t>(const T* p, T* dst, i64 n, u64 seed, u64 offset)   (p contiguous)
// dropout_<t>(const T* x, T* dst, unsigned char* mask, i64 n, double keep, double scale,
//             u64 seed, u64 offset)                                          (floating t)
//   kept where u < keep (= 1 - p): mask = 1, dst = x * scale; else mask = 0, dst = x * 0.
// randint_<t>(T* dst, i64 n, i64 low, u64 span, u64 seed, u64 offset)
//   low + (r mod span) with r a 64-bit word pair, stored as T.
// All dst pointers are contiguous and point at element 0.

typedef unsigned int u32;
typedef unsigned long long u64;

struct Words {
    u32 w[4];
};

__device__ __forceinline__ Words philox4x32_10(u64 block, u64 seed) {
    const u32 M0 = 0xD2511F53u, M1 = 0xCD9E8D57u;
    const u32 W0 = 0x9E3779B9u, W1 = 0xBB67AE85u;
    u32 c0 = (u32)block, c1 = (u32)(block >> 32), c2 = 0, c3 = 0;
    u32 k0 = (u32)seed, k1 = (u32)(seed >> 32);
#pragma unroll
    for (int r = 0; r < 10; ++r) {
        u32 hi0 = __umulhi(M0, c0), lo0 = M0 * c0;
        u32 hi1 = __umulhi(M1, c2), lo1 = M1 * c2;
        u32 n0 = hi1 ^ c1 ^ k0, n2 = hi0 ^ c3 ^ k1;
        c0 = n0;
        c1 = lo1;
        c2 = n2;
        c3 = lo0;
        k0 += W0;
        k1 += W1;
    }
    Words out;
    out.w[0] = c0;
    out.w[1] = c1;
    out.w[2] = c2;
    out.w[3] = c3;
    return out;
}

// [0, 1) from one word with 24 bits (exact in f32), or from two words with 53 bits.
__device__ __forceinline__ float u24(u32 w) { return (float)(w >> 8) * 5.9604644775390625e-8f; }
__device__ __forceinline__ double u53(u32 hi, u32 lo) {
    return (double)((((u64)hi << 32) | lo) >> 11) * 1.1102230246251565e-16;
}
// [0, 1) with 32 bits, for comparisons against a probability.
__device__ __forceinline__ double u32d(u32 w) { return (double)w * 2.3283064365386963e-10; }

// Grid-stride loop over Philox blocks: `blocks` blocks starting at block `first`.
#define FT_BLOCK_LOOP(g, blocks)                                                             \
    for (i64 g = (i64)blockIdx.x * blockDim.x + threadIdx.x; g < (blocks);                  \
         g += (i64)blockDim.x * gridDim.x)

template <typename T>
__device__ __forceinline__ void uniform_impl(T* __restrict__ dst, i64 n, double low,
                                             double high, u64 seed, u64 offset) {
    const int per = sizeof(T) == 8 ? 2 : 4;  // elements per block
    i64 blocks = (n + per - 1) / per;
    double span = high - low;
    FT_BLOCK_LOOP(g, blocks) {
        Words r = philox4x32_10(offset / 4 + (u64)g, seed);
        i64 e = g * per;
        if constexpr (sizeof(T) == 8) {
            for (int j = 0; j < 2; ++j) {
                if (e + j < n) dst[e + j] = from_f64<T>(low + span * u53(r.w[2 * j], r.w[2 * j + 1]));
            }
        } else {
            for (int j = 0; j < 4; ++j) {
                if (e + j < n) dst[e + j] = from_f64<T>(low + span * (double)u24(r.w[j]));
            }
        }
    }
}

template <typename T>
__device__ __forceinline__ void normal_impl(T* __restrict__ dst, i64 n, double mean, double sd,
                                            u64 seed, u64 offset) {
    const int per = sizeof(T) == 8 ? 2 : 4;
    i64 blocks = (n + per - 1) / per;
    FT_BLOCK_LOOP(g, blocks) {
        Words r = philox4x32_10(offset / 4 + (u64)g, seed);
        i64 e = g * per;
        if constexpr (sizeof(T) == 8) {
            double u1 = 1.0 - u53(r.w[0], r.w[1]);  // (0, 1]
            double u2 = u53(r.w[2], r.w[3]);
            double rad = sqrt(-2.0 * log(u1));
            double s, c;
            sincospi(2.0 * u2, &s, &c);
            if (e < n) dst[e] = from_f64<T>(mean + sd * (rad * c));
            if (e + 1 < n) dst[e + 1] = from_f64<T>(mean + sd * (rad * s));
        } else {
            for (int j = 0; j < 2; ++j) {
                float u1 = 1.0f - u24(r.w[2 * j]);
                float u2 = u24(r.w[2 * j + 1]);
                float rad = sqrtf(-2.0f * logf(u1));
                float s, c;
                sincospif(2.0f * u2, &s, &c);
                i64 k = e + 2 * j;
                if (k < n) dst[k] = from_f64<T>(mean + sd * (double)(rad * c));
                if (k + 1 < n) dst[k + 1] = from_f64<T>(mean + sd * (double)(rad * s));
            }
        }
    }
}

// 0 or 1 as T.
template <typename T> __device__ __forceinline__ T bit_as(bool b) { return from_i64<T>(b ? 1 : 0); }

template <typename T>
__device__ __forceinline__ void bernoulli_scalar_impl(T* __restrict__ dst, i64 n, double p,
                                                      u64 seed, u64 offset) {
    i64 blocks = (n + 3) / 4;
    FT_BLOCK_LOOP(g, blocks) {
        Words r = philox4x32_10(offset / 4 + (u64)g, seed);
        for (int j = 0; j < 4; ++j) {
            i64 e = g * 4 + j;
            if (e < n) dst[e] = bit_as<T>(u32d(r.w[j]) < p);
        }
    }
}

template <typename T>
__device__ __forceinline__ void bernoulli_tensor_impl(const T* __restrict__ p,
                                                      T* __restrict__ dst, i64 n, u64 seed,
                                                      u64 offset) {
    i64 blocks = (n + 3) / 4;
    FT_BLOCK_LOOP(g, blocks) {
        Words r = philox4x32_10(offset / 4 + (u64)g, seed);
        for (int j = 0; j < 4; ++j) {
            i64 e = g * 4 + j;
            if (e < n) dst[e] = bit_as<T>(u32d(r.w[j]) < to_f64<T>(p[e]));
        }
    }
}

template <typename T>
__device__ __forceinline__ void dropout_impl(const T* __restrict__ x, T* __restrict__ dst,
                                             unsigned char* __restrict__ mask, i64 n,
                                             double keep, double scale, u64 seed, u64 offset) {
    typedef typename Cmp<T>::type C;
    C sc = (C)scale;
    i64 blocks = (n + 3) / 4;
    FT_BLOCK_LOOP(g, blocks) {
        Words r = philox4x32_10(offset / 4 + (u64)g, seed);
        for (int j = 0; j < 4; ++j) {
            i64 e = g * 4 + j;
            if (e < n) {
                bool k = u32d(r.w[j]) < keep;
                mask[e] = k ? 1 : 0;
                dst[e] = st<T>(ld<T>(x[e]) * (k ? sc : (C)0));
            }
        }
    }
}

template <typename T>
__device__ __forceinline__ void randint_impl(T* __restrict__ dst, i64 n, i64 low, u64 span,
                                             u64 seed, u64 offset) {
    i64 blocks = (n + 1) / 2;
    FT_BLOCK_LOOP(g, blocks) {
        Words r = philox4x32_10(offset / 4 + (u64)g, seed);
        for (int j = 0; j < 2; ++j) {
            i64 e = g * 2 + j;
            if (e < n) {
                u64 w = ((u64)r.w[2 * j] << 32) | r.w[2 * j + 1];
                i64 v = (i64)((u64)low + w % span);
                dst[e] = from_i64<T>(v);
            }
        }
    }
}

#define FT_RANDOM_FLOAT(T, sn)                                                               \
    extern "C" __global__ void uniform_##sn(T* dst, i64 n, double low, double high, u64 seed, \
                                            u64 offset) {                                    \
        uniform_impl<T>(dst, n, low, high, seed, offset);                                    \
    }                                                                                        \
    extern "C" __global__ void normal_##sn(T* dst, i64 n, double mean, double sd, u64 seed,  \
                                           u64 offset) {                                     \
        normal_impl<T>(dst, n, mean, sd, seed, offset);                                      \
    }                                                                                        \
    extern "C" __global__ void dropout_##sn(const T* x, T* dst, unsigned char* mask, i64 n,  \
                                            double keep, double scale, u64 seed,             \
                                            u64 offset) {                                    \
        dropout_impl<T>(x, dst, mask, n, keep, scale, seed, offset);                         \
    }
FT_FLOAT_TYPES(FT_RANDOM_FLOAT)

#define FT_RANDOM_ALL(T, sn)                                                                 \
    extern "C" __global__ void bernoulli_scalar_##sn(T* dst, i64 n, double p, u64 seed,      \
                                                     u64 offset) {                           \
        bernoulli_scalar_impl<T>(dst, n, p, seed, offset);                                   \
    }                                                                                        \
    extern "C" __global__ void bernoulli_tensor_##sn(const T* p, T* dst, i64 n, u64 seed,    \
                                                     u64 offset) {                           \
        bernoulli_tensor_impl<T>(p, dst, n, seed, offset);                                   \
    }                                                                                        \
    extern "C" __global__ void randint_##sn(T* dst, i64 n, i64 low, u64 span, u64 seed,      \
                                            u64 offset) {                                    \
        randint_impl<T>(dst, n, low, span, seed, offset);                                    \
    }
FT_ALL_TYPES(FT_RANDOM_ALL)
