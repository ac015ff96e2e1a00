// Fused optimizer steps, one pass over a parameter and its state (rust/core/src/optim.rs,
// `step_chunk`): the same formulas in the same order, without FMA contraction, so f32 and f64
// match the CPU bit for bit. Half types compute in f32 and keep their state in the parameter
// dtype. Hyper-parameters arrive as f64 (combined as the CPU combines them, in f64) and are
// rounded to the compute type here, as the CPU's `c(x)` does. All buffers contiguous, n
// elements, pointers at element 0; `maximize` negates the gradient.
//
// sgd_<t>(T* p, const T* g, T* buf, i64 n, double lr, double momentum, double damp,
//         double wd, int decay, int nesterov, int maximize, int first)
//   damp = 1 - dampening; buf unused (may be 0) when momentum == 0; `first` initializes the
//   momentum buffer with the gradient.
// adam_<t>(T* p, const T* g, T* m, T* v, T* vmax, i64 n, double b1, double nb1, double b2,
//          double nb2, double eps, double wd, double shrink, double step_size,
//          double inv_bc2, int coupled, int amsgrad, int maximize)
//   nb1 = 1 - beta1, nb2 = 1 - beta2, step_size = lr / (1 - beta1^step),
//   inv_bc2 = 1 / sqrt(1 - beta2^step); Adam: coupled = (wd != 0), shrink = 1;
//   AdamW: coupled = 0, shrink = 1 - lr * weight_decay. vmax unused unless amsgrad.
// rmsprop_<t>(T* p, const T* g, T* sq, T* gavg, T* mom, i64 n, double alpha, double nalpha,
//             double eps, double wd, double lr, double momentum, int decay, int centered,
//             int has_momentum, int maximize)
// adagrad_<t>(T* p, const T* g, T* sum, i64 n, double clr, double wd, double eps, int decay,
//             int maximize)
//   clr = lr / (1 + (step - 1) * lr_decay).

template <typename T>
__device__ __forceinline__ void sgd_impl(T* __restrict__ p, const T* __restrict__ g,
                                         T* __restrict__ buf, i64 n, double lr_, double mu_,
                                         double damp_, double wd_, int decay, int nesterov,
                                         int maximize, int first) {
    typedef typename Cmp<T>::type F;
    F lr = (F)lr_, mu = (F)mu_, damp = (F)damp_, wd = (F)wd_, sg = maximize ? (F)-1 : (F)1;
    FT_KERNEL_LOOP(i, n) {
        F pv = ld<T>(p[i]);
        F gv = sg * ld<T>(g[i]);
        F d = decay ? rn_add(gv, rn_mul(wd, pv)) : gv;
        if (mu_ == 0.0) {
            p[i] = st<T>(rn_sub(pv, rn_mul(lr, d)));
        } else {
            F a = first ? d : rn_add(rn_mul(mu, ld<T>(buf[i])), rn_mul(damp, d));
            T stored = st<T>(a);
            buf[i] = stored;
            a = ld<T>(stored);
            F step = nesterov ? rn_add(d, rn_mul(mu, a)) : a;
            p[i] = st<T>(rn_sub(pv, rn_mul(lr, step)));
        }
    }
}

template <typename F> __device__ __forceinline__ F max_nan(F x, F y) {
    if (x != x) return x;
    if (y != y) return y;
    return x >= y ? x : y;
}

__device__ __forceinline__ float m_sqrt(float x) { return sqrtf(x); }
__device__ __forceinline__ double m_sqrt(double x) { return sqrt(x); }

template <typename T>
__device__ __forceinline__ void adam_impl(T* __restrict__ p, const T* __restrict__ g,
                                          T* __restrict__ m, T* __restrict__ v,
                                          T* __restrict__ vmax, i64 n, double b1_,
                                          double nb1_, double b2_, double nb2_, double eps_,
                                          double wd_, double shrink_, double step_size_,
                                          double inv_bc2_, int coupled, int amsgrad,
                                          int maximize) {
    typedef typename Cmp<T>::type F;
    F b1 = (F)b1_, nb1 = (F)nb1_, b2 = (F)b2_, nb2 = (F)nb2_, eps = (F)eps_, wd = (F)wd_;
    F shrink = (F)shrink_, step_size = (F)step_size_, inv_bc2 = (F)inv_bc2_;
    F sg = maximize ? (F)-1 : (F)1;
    FT_KERNEL_LOOP(i, n) {
        F pv = ld<T>(p[i]);
        F gv = sg * ld<T>(g[i]);
        F d = coupled ? rn_add(gv, rn_mul(wd, pv)) : gv;
        pv = rn_mul(pv, shrink);
        F mv = ld<T>(st<T>(rn_add(rn_mul(b1, ld<T>(m[i])), rn_mul(nb1, d))));
        F vv = ld<T>(st<T>(rn_add(rn_mul(b2, ld<T>(v[i])), rn_mul(rn_mul(nb2, d), d))));
        m[i] = st<T>(mv);
        v[i] = st<T>(vv);
        F den = vv;
        if (amsgrad) {
            den = ld<T>(st<T>(max_nan(ld<T>(vmax[i]), vv)));
            vmax[i] = st<T>(den);
        }
        F upd = rn_mul(step_size, mv) / rn_add(rn_mul(m_sqrt(den), inv_bc2), eps);
        p[i] = st<T>(rn_sub(pv, upd));
    }
}

template <typename T>
__device__ __forceinline__ void rmsprop_impl(T* __restrict__ p, const T* __restrict__ g,
                                             T* __restrict__ sq, T* __restrict__ gavg,
                                             T* __restrict__ mom, i64 n, double al_,
                                             double nal_, double eps_, double wd_, double lr_,
                                             double mu_, int decay, int centered,
                                             int has_momentum, int maximize) {
    typedef typename Cmp<T>::type F;
    F al = (F)al_, nal = (F)nal_, eps = (F)eps_, wd = (F)wd_, lr = (F)lr_, mu = (F)mu_;
    F sg = maximize ? (F)-1 : (F)1;
    FT_KERNEL_LOOP(i, n) {
        F pv = ld<T>(p[i]);
        F gv = sg * ld<T>(g[i]);
        F d = decay ? rn_add(gv, rn_mul(wd, pv)) : gv;
        F s = ld<T>(st<T>(rn_add(rn_mul(al, ld<T>(sq[i])), rn_mul(rn_mul(nal, d), d))));
        sq[i] = st<T>(s);
        F den;
        if (centered) {
            F ga = ld<T>(st<T>(rn_add(rn_mul(al, ld<T>(gavg[i])), rn_mul(nal, d))));
            gavg[i] = st<T>(ga);
            den = rn_add(m_sqrt(rn_sub(s, rn_mul(ga, ga))), eps);
        } else {
            den = rn_add(m_sqrt(s), eps);
        }
        if (has_momentum) {
            F b = ld<T>(st<T>(rn_add(rn_mul(mu, ld<T>(mom[i])), d / den)));
            mom[i] = st<T>(b);
            p[i] = st<T>(rn_sub(pv, rn_mul(lr, b)));
        } else {
            p[i] = st<T>(rn_sub(pv, rn_mul(lr, d) / den));
        }
    }
}

template <typename T>
__device__ __forceinline__ void adagrad_impl(T* __restrict__ p, const T* __restrict__ g,
                                             T* __restrict__ sum, i64 n, double clr_,
                                             double wd_, double eps_, int decay, int maximize) {
    typedef typename Cmp<T>::type F;
    F clr = (F)clr_, wd = (F)wd_, eps = (F)eps_, sg = maximize ? (F)-1 : (F)1;
    FT_KERNEL_LOOP(i, n) {
        F pv = ld<T>(p[i]);
        F gv = sg * ld<T>(g[i]);
        F d = decay ? rn_add(gv, rn_mul(wd, pv)) : gv;
        F s = ld<T>(st<T>(rn_add(ld<T>(sum[i]), rn_mul(d, d))));
        sum[i] = st<T>(s);
        p[i] = st<T>(rn_sub(pv, rn_mul(clr, d) / rn_add(m_sqrt(s), eps)));
    }
}

#define FT_OPTIM(T, sn)                                                                      \
    extern "C" __global__ void sgd_##sn(T* p, const T* g, T* buf, i64 n, double lr,          \
                                        double momentum, double damp, double wd, int decay,  \
                                        int nesterov, int maximize, int first) {             \
        sgd_impl<T>(p, g, buf, n, lr, momentum, damp, wd, decay, nesterov, maximize, first); \
    }                                                                                        \
    extern "C" __global__ void adam_##sn(T* p, const T* g, T* m, T* v, T* vmax, i64 n,       \
                                         double b1, double nb1, double b2, double nb2,       \
                                         double eps, double wd, double shrink,               \
                                         double step_size, double inv_bc2, int coupled,      \
                                         int amsgrad, int maximize) {                        \
        adam_impl<T>(p, g, m, v, vmax, n, b1, nb1, b2, nb2, eps, wd, shrink, step_size,      \
                     inv_bc2, coupled, amsgrad, maximize);                                   \
    }                                                                                        \
    extern "C" __global__ void rmsprop_##sn(T* p, const T* g, T* sq, T* gavg, T* mom, i64 n, \
                                            double alpha, double nalpha, double eps,         \
                                            double wd, double lr, double momentum,           \
                                            int decay, int centered, int has_momentum,       \
                                            int maximize) {                                  \
        rmsprop_impl<T>(p, g, sq, gavg, mom, n, alpha, nalpha, eps, wd, lr, momentum, decay, \
                        centered, has_momentum, maximize);                                   \
    }                                                                                        \
    extern "C" __global__ void adagrad_##sn(T* p, const T* g, T* sum, i64 n, double clr,     \
                                            double wd, double eps, int decay, int maximize) { \
        adagrad_impl<T>(p, g, sum, n, clr, wd, eps, decay, maximize);                        \
    }
FT_FLOAT_TYPES(FT_OPTIM)
