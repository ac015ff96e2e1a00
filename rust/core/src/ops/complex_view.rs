//! Complex tensors seen as pairs of reals. A complex element is an interleaved (re, im) pair,
//! so every complex tensor has a real view with a trailing dim of 2: `view_as_real`,
//! `view_as_complex`, `.real` and `.imag` are strided views over the same storage.
//!
//! Gradients follow PyTorch's convention for a real loss L of z = x + iy: the gradient is
//! dL/dx + i dL/dy. That is exactly the gradient of the real view, so these views pass
//! gradients through unchanged and ops built on them need no special rule.

use crate::autograd::record;
use crate::layout::Layout;
use crate::{bail, DType, Error, Result, Tensor};

impl Tensor {
    /// A view of this storage with another layout and dtype, remembering the root tensor (as
    /// view ops do) so that in-place writes through it see their base.
    fn view_alias_as(&self, layout: Layout, dtype: DType) -> Tensor {
        let out = Tensor::from_parts(self.storage().clone(), layout, dtype);
        let root = self.view_base().unwrap_or_else(|| self.clone());
        out.meta().view_base = Some(root);
        out
    }

    /// The interleaved real layout of a complex tensor: shape + [2], strides doubled.
    fn real_layout(&self) -> Layout {
        let l = self.layout();
        let mut shape = l.shape.clone();
        shape.push(2);
        let mut strides: Vec<usize> = l.strides.iter().map(|s| s * 2).collect();
        strides.push(1);
        Layout {
            shape,
            strides,
            offset: l.offset * 2,
        }
    }

    /// The real view of a complex tensor (shape + [2]) for kernels, outside autograd.
    pub(crate) fn real_alias(&self) -> Tensor {
        debug_assert!(self.dtype().is_complex());
        Tensor::from_parts(
            self.storage().clone(),
            self.real_layout(),
            self.dtype().to_real(),
        )
    }

    /// The complex layout of a real tensor whose last dim holds (re, im) pairs, or
    /// PyTorch's error saying why the memory cannot be read as complex.
    fn complex_layout(&self) -> Result<(Layout, DType)> {
        let dt = match self.dtype() {
            DType::F32 => DType::C64,
            DType::F64 => DType::C128,
            d => {
                return Err(Error::NotImplemented(format!(
                    "view_as_complex is only supported for half, float and double tensors, but got \
                     a tensor of scalar type: {}",
                    d.scalar_type_name()
                )))
            }
        };
        let l = self.layout();
        let nd = l.ndim();
        if nd == 0 {
            bail!(Runtime, "Input tensor must have one or more dimensions");
        }
        if l.shape[nd - 1] != 2 {
            bail!(Runtime, "Tensor must have a last dimension of size 2");
        }
        if l.strides[nd - 1] != 1 {
            bail!(Runtime, "Tensor must have a last dimension with stride 1");
        }
        if l.strides[..nd - 1]
            .iter()
            .zip(&l.shape)
            .any(|(s, &n)| !s.is_multiple_of(2) && n > 1)
        {
            bail!(
                Runtime,
                "Tensor must have a stride divisible by 2 for all but last dimension"
            );
        }
        if !l.offset.is_multiple_of(2) {
            bail!(Runtime, "Tensor must have a storage_offset divisible by 2");
        }
        let layout = Layout {
            shape: l.shape[..nd - 1].to_vec(),
            strides: l.strides[..nd - 1].iter().map(|s| s / 2).collect(),
            offset: l.offset / 2,
        };
        Ok((layout, dt))
    }

    /// The complex tensor whose real view is `self`, outside autograd.
    pub(crate) fn complex_alias(&self) -> Result<Tensor> {
        let (layout, dt) = self.complex_layout()?;
        Ok(Tensor::from_parts(self.storage().clone(), layout, dt))
    }

    /// `torch.view_as_real`: the (re, im) pairs of a complex tensor as a trailing dim of 2.
    pub fn view_as_real(&self) -> Result<Tensor> {
        if !self.dtype().is_complex() {
            bail!(Type, "view_as_real is only supported for complex tensors");
        }
        let out = self.view_alias_as(self.real_layout(), self.dtype().to_real());
        Ok(record(
            "ViewAsRealBackward0",
            out,
            &[self],
            &[],
            false,
            |g, _| Ok(vec![Some(g.contiguous()?.view_as_complex()?)]),
        ))
    }

    /// `torch.view_as_complex`: a float tensor whose last dim has size 2 read as complex.
    pub fn view_as_complex(&self) -> Result<Tensor> {
        let (layout, dt) = self.complex_layout()?;
        let out = self.view_alias_as(layout, dt);
        Ok(record(
            "ViewAsComplexBackward0",
            out,
            &[self],
            &[],
            false,
            |g, _| Ok(vec![Some(g.view_as_real()?)]),
        ))
    }

    /// `Tensor.real`: a view of the real parts (the tensor itself when it is not complex).
    pub fn real(&self) -> Result<Tensor> {
        if !self.dtype().is_complex() {
            return Ok(self.clone());
        }
        self.view_as_real()?.select(-1, 0)
    }

    /// `Tensor.imag`: a view of the imaginary parts of a complex tensor.
    pub fn imag(&self) -> Result<Tensor> {
        if !self.dtype().is_complex() {
            bail!(
                Type,
                "imag is not implemented for tensors with non-complex dtypes."
            );
        }
        self.view_as_real()?.select(-1, 1)
    }
}
