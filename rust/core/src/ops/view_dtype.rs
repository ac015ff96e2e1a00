//! `Tensor.view(dtype)`: the same bytes read as another dtype. Element sizes that differ
//! scale the last dim (it must be dense), as PyTorch does; the result shares storage.

use crate::layout::Layout;
use crate::{bail, DType, Result, Tensor};

impl Tensor {
    /// The bytes of this tensor as `dtype` (no autograd link: the values are unrelated).
    pub fn view_dtype(&self, dtype: DType) -> Result<Tensor> {
        let (from, to) = (self.dtype().size(), dtype.size());
        let names = format!(
            "to view {} as {} (different element sizes)",
            self.dtype().scalar_type_name(),
            dtype.scalar_type_name()
        );
        let l = self.layout();
        if from == to {
            return Ok(Tensor::from_parts(self.storage().clone(), l.clone(), dtype));
        }
        let nd = l.shape.len();
        if nd == 0 {
            bail!(Runtime, "self.dim() cannot be 0 {names}");
        }
        if l.strides[nd - 1] != 1 {
            bail!(
                Runtime,
                "self.stride(-1) must be 1 {names}, but got {}",
                l.strides[nd - 1]
            );
        }
        let mut out = l.clone();
        if from > to {
            // Each element becomes `ratio` narrower ones.
            let ratio = from / to;
            out.shape[nd - 1] *= ratio;
            out.offset *= ratio;
            for s in &mut out.strides[..nd - 1] {
                *s *= ratio;
            }
        } else {
            let ratio = to / from;
            if !l.shape[nd - 1].is_multiple_of(ratio) {
                bail!(
                    Runtime,
                    "self.size(-1) must be divisible by {ratio} {names}, but got {}",
                    l.shape[nd - 1]
                );
            }
            if !l.offset.is_multiple_of(ratio) {
                bail!(
                    Runtime,
                    "self.storage_offset() must be divisible by {ratio} {names}, but got {}",
                    l.offset
                );
            }
            for (d, &s) in l.strides[..nd - 1].iter().enumerate() {
                if !s.is_multiple_of(ratio) {
                    bail!(
                        Runtime,
                        "self.stride({d}) must be divisible by {ratio} {names}, but got {s}"
                    );
                }
            }
            out.shape[nd - 1] /= ratio;
            out.offset /= ratio;
            for s in &mut out.strides[..nd - 1] {
                *s /= ratio;
            }
        }
        let layout = Layout {
            shape: out.shape,
            strides: out.strides,
            offset: out.offset,
        };
        Ok(Tensor::from_parts(self.storage().clone(), layout, dtype))
    }
}
