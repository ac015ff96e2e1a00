//! Matrix products through our AVX-512/AVX2 float32 kernel (`cpu::sgemm`) or else the `gemm`
//! crate; both take any row and column strides, so transposed and sliced operands are
//! multiplied without a copy.

use crate::autograd::record;
use crate::cpu::gemm_any::gemm_any;
use crate::cpu::sgemm;
use crate::error::InOp;
use crate::layout::{broadcast_shapes, for_each_offset, Layout};
use crate::{bail, with_dtype, DType, Element, Result, Tensor};
use gemm::Parallelism;

fn parallelism(m: usize, n: usize, k: usize) -> Parallelism {
    if m * n * k >= 48 * 48 * 48 && crate::cpu::thread_pool::num_threads() > 1 {
        Parallelism::Rayon(crate::cpu::thread_pool::num_threads())
    } else {
        Parallelism::None
    }
}

/// Offsets of each batch matrix of `t` (batch dims are all but the last two).
pub(crate) fn batch_offsets(t: &Tensor) -> Vec<usize> {
    let nd = t.ndim();
    let mut v = Vec::new();
    for_each_offset(
        &t.shape()[..nd - 2],
        &t.strides()[..nd - 2],
        t.offset(),
        |o| v.push(o),
    );
    v
}

/// One [m,k] x [k,n] product per batch entry, written into contiguous `out`.
fn gemm_batches<T: Element>(a: &Tensor, b: &Tensor, out: &Tensor) {
    let nd = a.ndim();
    let (m, k, n) = (a.shape()[nd - 2], a.shape()[nd - 1], b.shape()[nd - 1]);
    let (ao, bo) = (batch_offsets(a), batch_offsets(b));
    let threads = crate::cpu::thread_pool::num_threads();
    let batches: Vec<(usize, usize, usize)> = (0..ao.len()).map(|i| (i, ao[i], bo[i])).collect();
    if ao.len() >= threads && threads > 1 && m * n * k >= 16 * 16 * 16 {
        // Many products (attention heads, conv groups): each on one thread, in chunks that
        // this thread and the pool claim as they go, instead of a parallel region per
        // small product.
        let chunks = (threads * 4).min(batches.len());
        let len = batches.len();
        crate::cpu::thread_pool::for_each_claimed(chunks, threads - 1, |c| {
            let chunk = &batches[c * len / chunks..(c + 1) * len / chunks];
            gemm_batches_on_this_thread::<T>(a, b, out, chunk, Parallelism::None)
        });
        return;
    }
    match parallelism(m, n, k) {
        Parallelism::None => {
            gemm_batches_on_this_thread::<T>(a, b, out, &batches, Parallelism::None)
        }
        // Our kernel brings its own threads in; the gemm crate runs inside the pool.
        par if sgemm::applies::<T>() => gemm_batches_on_this_thread::<T>(a, b, out, &batches, par),
        par => crate::cpu::thread_pool::run(|| {
            gemm_batches_on_this_thread::<T>(a, b, out, &batches, par)
        }),
    }
}

/// The products listed in `batches` as (index in `out`, offset in `a`, offset in `b`).
fn gemm_batches_on_this_thread<T: Element>(
    a: &Tensor,
    b: &Tensor,
    out: &Tensor,
    batches: &[(usize, usize, usize)],
    par: Parallelism,
) {
    let nd = a.ndim();
    let (m, k, n) = (a.shape()[nd - 2], a.shape()[nd - 1], b.shape()[nd - 1]);
    let (ars, acs) = (a.strides()[nd - 2] as isize, a.strides()[nd - 1] as isize);
    let (brs, bcs) = (b.strides()[nd - 2] as isize, b.strides()[nd - 1] as isize);
    let pa: *const T = a.storage().ptr() as *const T;
    let pb: *const T = b.storage().ptr() as *const T;
    let po: *mut T = out.storage().ptr() as *mut T;
    let is_gemm_type = matches!(T::DTYPE, DType::F32 | DType::F64 | DType::F16);
    for &(i, oa, ob) in batches {
        unsafe {
            let dst = po.add(i * m * n);
            if is_gemm_type {
                gemm_any(
                    sgemm::Dims { m, n, k },
                    sgemm::MatRef {
                        ptr: pa.add(oa),
                        rs: ars,
                        cs: acs,
                    },
                    sgemm::MatRef {
                        ptr: pb.add(ob),
                        rs: brs,
                        cs: bcs,
                    },
                    sgemm::MatMut {
                        ptr: dst,
                        rs: n as isize,
                        cs: 1,
                    },
                    false,
                    par,
                );
            } else {
                // Integer products: a plain triple loop, wrapping like PyTorch's integer matmul.
                for r in 0..m {
                    for c in 0..n {
                        let mut acc = 0i64;
                        for j in 0..k {
                            let x = *pa.offset(oa as isize + r as isize * ars + j as isize * acs);
                            let y = *pb.offset(ob as isize + j as isize * brs + c as isize * bcs);
                            acc = acc.wrapping_add(x.to_i64().wrapping_mul(y.to_i64()));
                        }
                        *dst.add(r * n + c) = T::from_i64(acc);
                    }
                }
            }
        }
    }
}

/// `out = a @ b` for 2-D float `a` [m,k] and `b` [k,n] (any strides) into a fresh contiguous
/// `out` [m,n], without recording a graph node (for ops with their own backward).
pub(crate) fn gemm_into(a: &Tensor, b: &Tensor, out: &Tensor) -> Result<()> {
    debug_assert!(a.ndim() == 2 && b.ndim() == 2 && out.is_contiguous());
    crate::with_dtype!(a.dtype(), T => gemm_batches::<T>(a, b, out));
    Ok(())
}

/// Batched product of two tensors with equal batch shapes (views; broadcast strides allowed).
fn bmm_nd(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    let nd = a.ndim();
    let (m, n) = (a.shape()[nd - 2], b.shape()[nd - 1]);
    let mut shape = a.shape()[..nd - 2].to_vec();
    shape.extend([m, n]);
    let dt = a.dtype();
    let gpu = crate::cuda_forward!("matmul", [a, b], |d| crate::cuda::ops::matmul::bmm(
        &d, a, b
    ));
    let out = if let Some(out) = gpu {
        out?
    } else if dt == DType::BF16 {
        // No bf16 gemm kernel: compute in f32.
        let (a32, b32) = (a.copy_as(DType::F32)?, b.copy_as(DType::F32)?);
        let o = Tensor::zeros(&shape, DType::F32).op("matmul")?;
        gemm_batches::<f32>(&a32, &b32, &o);
        o.copy_as(DType::BF16)?
    } else {
        // gemm overwrites every element unless the inner dim is empty (then the sum is 0).
        let inner_empty = a.shape()[nd - 1] == 0;
        let o = if inner_empty || !dt.is_float() {
            Tensor::zeros(&shape, dt).op("matmul")?
        } else {
            Tensor::uninit(&shape, dt).op("matmul")?
        };
        if !inner_empty {
            with_dtype!(dt, T => gemm_batches::<T>(a, b, &o));
        }
        o
    };
    Ok(record(
        "BmmBackward0",
        out,
        &[a, b],
        &[a, b],
        false,
        |g, s| {
            let (a, b) = (&s[0], &s[1]);
            // Each gradient is laid out like its operand: for a transposed view (the weight
            // of a Linear, `w.t()`) the transposed product is computed, so the gradient that
            // reaches `w` is contiguous and is not copied on the way.
            let ga = if !a.requires_grad() {
                None
            } else if is_transposed(a) {
                Some(bmm_nd(b, &g.transpose(-1, -2)?)?.transpose(-1, -2)?)
            } else {
                Some(bmm_nd(g, &b.transpose(-1, -2)?)?)
            };
            let gb = if !b.requires_grad() {
                None
            } else if is_transposed(b) {
                Some(bmm_nd(&g.transpose(-1, -2)?, a)?.transpose(-1, -2)?)
            } else {
                Some(bmm_nd(&a.transpose(-1, -2)?, g)?)
            };
            Ok(vec![ga, gb])
        },
    ))
}

/// Whether the last two dims of `t` are stored column by column (a transposed view).
fn is_transposed(t: &Tensor) -> bool {
    let (nd, st, sh) = (t.ndim(), t.strides(), t.shape());
    st[nd - 2] == 1 && st[nd - 1] != 1 && sh[nd - 2] > 1 && sh[nd - 1] > 1
}

fn dims_str(t: &Tensor) -> String {
    let parts: Vec<String> = t.shape().iter().map(|d| d.to_string()).collect();
    parts.join("x")
}

/// PyTorch's matmul folds a batched operand into a matrix (mm/mv) rather than running bmm
/// when that needs no copy; which path runs decides what an empty product of mixed or bool
/// dtypes gives.
fn folds_into_matrix(a: &Tensor, b: &Tensor) -> bool {
    let swap_last = |t: &Tensor| -> (Vec<usize>, Vec<usize>) {
        let (mut sh, mut st) = (t.shape().to_vec(), t.strides().to_vec());
        let n = sh.len();
        if n >= 2 {
            sh.swap(n - 1, n - 2);
            st.swap(n - 1, n - 2);
        }
        (sh, st)
    };
    let ((shape1, strides1), dim2) = if a.ndim() >= b.ndim() {
        ((a.shape().to_vec(), a.strides().to_vec()), b.ndim())
    } else {
        (swap_last(b), a.ndim())
    };
    let dim1 = shape1.len();
    if !(dim1 >= 3 && (dim2 == 1 || dim2 == 2)) {
        return false;
    }
    if a.requires_grad() || b.requires_grad() {
        return true;
    }
    if a.ndim() == 2 {
        return false;
    }
    if shape1.iter().product::<usize>() == 0 {
        return true;
    }
    (0..dim1 - 2).all(|i| strides1[i] == strides1[i + 1] * shape1[i + 1])
}

/// An empty (or zero-depth) product of operands PyTorch's kernels would refuse (mixed dtypes,
/// bool): its bmm path returns before any dtype check, with the second operand's dtype, and
/// a bool matrix product of nothing is zeros. None where the refusal stands.
fn empty_product_without_kernel(a: &Tensor, b: &Tensor) -> Result<Option<Tensor>> {
    let (na, nb) = (a.ndim(), b.ndim());
    let (m, k1) = if na == 1 {
        (1, a.shape()[0])
    } else {
        (a.shape()[na - 2], a.shape()[na - 1])
    };
    let (k2, n) = if nb == 1 {
        (b.shape()[0], 1)
    } else {
        (b.shape()[nb - 2], b.shape()[nb - 1])
    };
    let batch_a = &a.shape()[..na.saturating_sub(2)];
    let batch_b = &b.shape()[..nb.saturating_sub(2)];
    let Ok(mut shape) = broadcast_shapes("matmul", batch_a, batch_b) else {
        return Ok(None);
    };
    if k1 != k2 {
        return Ok(None);
    }
    if na > 1 {
        shape.push(m);
    }
    if nb > 1 {
        shape.push(n);
    }
    let empty = shape.iter().product::<usize>() == 0 || k1 == 0;
    if !empty {
        return Ok(None);
    }
    let matrix_path = (na <= 2 && nb <= 2) || folds_into_matrix(a, b);
    if matrix_path {
        if a.dtype() == b.dtype() && !(na == 1 && nb == 1) {
            return Ok(Some(Tensor::zeros(&shape, a.dtype())?));
        }
        return Ok(None);
    }
    Ok(Some(Tensor::zeros(&shape, b.dtype())?))
}

impl Tensor {
    /// `torch.matmul` with NumPy's rules for 1-D operands and broadcast batch dims.
    pub fn matmul(&self, other: &Tensor) -> Result<Tensor> {
        let (a, b) = (self, other);
        if a.ndim() == 0 || b.ndim() == 0 {
            bail!(
                Runtime,
                "matmul: both arguments to matmul need to be at least 1D, but they are {}D and {}D",
                a.ndim(),
                b.ndim()
            );
        }
        if a.dtype() != b.dtype() || a.dtype() == DType::Bool {
            if let Some(out) = empty_product_without_kernel(a, b)? {
                return Ok(out);
            }
        }
        let batched = !((a.ndim() <= 2 && b.ndim() <= 2) || folds_into_matrix(a, b));
        if batched && a.dtype() == DType::Bool && b.dtype() != DType::Bool {
            // PyTorch's batched kernel refuses a bool first operand before comparing dtypes.
            bail!(
                NotImplemented,
                "matmul: \"bmm\" not implemented for 'Bool' (shapes {:?} and {:?})",
                a.shape(),
                b.shape()
            );
        }
        if a.dtype() != b.dtype() {
            bail!(
                Runtime,
                "matmul: expected m1 and m2 to have the same dtype, but got: {} != {}",
                a.dtype().name(),
                b.dtype().name()
            );
        }
        if a.dtype() == DType::Bool {
            bail!(
                NotImplemented,
                "matmul: \"addmm_impl_cpu_\" not implemented for 'Bool'"
            );
        }
        if a.dtype().is_complex() {
            // (ar + i ai)(br + i bi): four real products of the parts (views).
            let (ar, ai, br, bi) = (a.real()?, a.imag()?, b.real()?, b.imag()?);
            let re = ar.matmul(&br)?.sub(&ai.matmul(&bi)?)?;
            let im = ar.matmul(&bi)?.add(&ai.matmul(&br)?)?;
            return Tensor::complex(&re, &im);
        }
        let a2 = if a.ndim() == 1 {
            a.unsqueeze(0)?
        } else {
            a.clone()
        };
        let b2 = if b.ndim() == 1 {
            b.unsqueeze(1)?
        } else {
            b.clone()
        };
        let (na, nb) = (a2.ndim(), b2.ndim());
        let (m, k1, k2, n) = (
            a2.shape()[na - 2],
            a2.shape()[na - 1],
            b2.shape()[nb - 2],
            b2.shape()[nb - 1],
        );
        if k1 != k2 {
            if a.ndim() == 1 && b.ndim() == 1 {
                bail!(Runtime, "matmul: inconsistent tensor size, expected tensor [{}] and src [{}] to have the same number of elements, but got {} and {} elements respectively", a.numel(), b.numel(), a.numel(), b.numel());
            }
            bail!(
                Runtime,
                "matmul: mat1 and mat2 shapes cannot be multiplied ({} and {})",
                dims_str(&a2.matrix_view()),
                dims_str(&b2.matrix_view_b())
            );
        }
        let batch = broadcast_shapes("matmul", &a2.shape()[..na - 2], &b2.shape()[..nb - 2])?;
        let mut sa = batch.clone();
        sa.extend([m, k1]);
        let mut sb = batch.clone();
        sb.extend([k2, n]);
        let out = bmm_nd(&a2.broadcast_to(&sa)?, &b2.broadcast_to(&sb)?)?;
        let mut out = out;
        if a.ndim() == 1 {
            out = out.squeeze(Some(&[-2]))?;
        }
        if b.ndim() == 1 {
            out = out.squeeze(Some(&[-1]))?;
        }
        Ok(out)
    }

    /// For error messages: a batched matrix shown as its rows x cols.
    fn matrix_view(&self) -> Tensor {
        let nd = self.ndim();
        let rows: usize = self.shape()[..nd - 1].iter().product();
        self.alias(Layout::contiguous(&[rows, self.shape()[nd - 1]]))
    }

    fn matrix_view_b(&self) -> Tensor {
        let nd = self.ndim();
        self.alias(Layout::contiguous(&[
            self.shape()[nd - 2],
            self.shape()[nd - 1],
        ]))
    }

    /// `mm`: strictly 2-D.
    pub fn mm(&self, other: &Tensor) -> Result<Tensor> {
        if self.ndim() != 2 || other.ndim() != 2 {
            bail!(
                Runtime,
                "mm: self must be a matrix (got {}D and {}D)",
                self.ndim(),
                other.ndim()
            );
        }
        self.matmul(other)
    }

    /// `bmm`: strictly 3-D with equal batch sizes.
    pub fn bmm(&self, other: &Tensor) -> Result<Tensor> {
        if self.ndim() != 3 || other.ndim() != 3 {
            bail!(
                Runtime,
                "bmm: batch1 must be a 3D tensor (got {}D and {}D)",
                self.ndim(),
                other.ndim()
            );
        }
        if self.shape()[0] != other.shape()[0] {
            bail!(
                Runtime,
                "bmm: batch1 and batch2 must have same number of batches, got {} and {}",
                self.shape()[0],
                other.shape()[0]
            );
        }
        self.matmul(other)
    }

    pub fn mv(&self, v: &Tensor) -> Result<Tensor> {
        if self.ndim() != 2 || v.ndim() != 1 {
            bail!(
                Runtime,
                "mv: vector + matrix @ vector expected, got {}, {}",
                self.ndim(),
                v.ndim()
            );
        }
        self.matmul(v)
    }

    pub fn dot(&self, v: &Tensor) -> Result<Tensor> {
        if self.ndim() != 1 || v.ndim() != 1 {
            bail!(
                Runtime,
                "dot: 1D tensors expected, but got {}D and {}D tensors",
                self.ndim(),
                v.ndim()
            );
        }
        self.matmul(v)
    }

    pub fn outer(&self, v: &Tensor) -> Result<Tensor> {
        if self.ndim() != 1 || v.ndim() != 1 {
            bail!(
                Runtime,
                "outer: 1D tensors expected, but got {}D and {}D tensors",
                self.ndim(),
                v.ndim()
            );
        }
        self.unsqueeze(1)?.mul(&v.unsqueeze(0)?)
    }
}
