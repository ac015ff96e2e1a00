//! `nn.Embedding`: a lookup table of learned vectors indexed by integer ids.

use super::init::normal;
use super::Module;
use crate::ops::BinaryOp;
use crate::{bail, DType, Result, Scalar, Tensor};

/// A table of `num_embeddings` vectors of size `embedding_dim`, as `torch.nn.Embedding`.
///
/// `weight` is `[num_embeddings, embedding_dim]` from `N(0, 1)`; the row at `padding_idx`
/// (if any) starts at zero and receives no gradient. The input holds int64 (or int32) ids of
/// any shape; the output appends `embedding_dim` to it.
///
/// # Examples
///
/// ```
/// use ferrotorch::nn::{Embedding, Module};
/// use ferrotorch::Tensor;
/// let emb = Embedding::new(10, 3)?;
/// let ids = Tensor::from_vec(vec![1i64, 2, 4, 5, 4, 3, 2, 9], &[2, 4])?;
/// assert_eq!(emb.forward(&ids)?.shape(), &[2, 4, 3]);
/// # Ok::<(), ferrotorch::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct Embedding {
    weight: Tensor,
    padding_idx: Option<usize>,
}

impl Embedding {
    /// A table with no padding row.
    pub fn new(num_embeddings: usize, embedding_dim: usize) -> Result<Embedding> {
        Embedding::with_padding_idx(num_embeddings, embedding_dim, None)
    }

    /// A table whose row `padding_idx` (negative counts from the end) is zero and frozen.
    ///
    /// # Errors
    ///
    /// If `padding_idx` is outside `[-num_embeddings, num_embeddings)`.
    pub fn with_padding_idx(
        num_embeddings: usize,
        embedding_dim: usize,
        padding_idx: Option<i64>,
    ) -> Result<Embedding> {
        let n = num_embeddings as i64;
        let padding_idx = match padding_idx {
            None => None,
            Some(p) if (-n..n).contains(&p) => Some(if p < 0 { p + n } else { p } as usize),
            Some(p) => bail!(
                Value,
                "Embedding: padding_idx ({p}) must be within num_embeddings ({num_embeddings})"
            ),
        };
        let weight = normal(&[num_embeddings, embedding_dim])?;
        if let Some(p) = padding_idx {
            let _no_grad = crate::no_grad();
            weight
                .select(0, p as i64)?
                .apply_inplace("fill_", &[], |row| row.zeros_like())?;
        }
        Ok(Embedding {
            weight,
            padding_idx,
        })
    }

    /// The `[num_embeddings, embedding_dim]` table.
    pub fn weight(&self) -> &Tensor {
        &self.weight
    }

    /// The frozen padding row, if any (non-negative).
    pub fn padding_idx(&self) -> Option<usize> {
        self.padding_idx
    }
}

impl Module for Embedding {
    fn forward(&self, input: &Tensor) -> Result<Tensor> {
        if !matches!(input.dtype(), DType::I64 | DType::I32) {
            bail!(
                Runtime,
                "embedding: Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int; but got {} instead",
                input.dtype().name()
            );
        }
        let ids = input.reshape(&[-1])?;
        let mut rows = self.weight.index_select(0, &ids)?;
        if let Some(p) = self.padding_idx {
            // Same values, but the padding row's lookups pass no gradient back.
            let keep = ids
                .binary_scalar(BinaryOp::Ne, Scalar::Int(p as i64))?
                .unsqueeze(1)?;
            rows = keep.where_(&rows, &rows.detach())?;
        }
        let mut shape: Vec<i64> = input.shape().iter().map(|&d| d as i64).collect();
        shape.push(self.weight.shape()[1] as i64);
        rows.reshape(&shape)
    }

    fn named_parameters(&self) -> Vec<(String, Tensor)> {
        vec![("weight".to_string(), self.weight.clone())]
    }
}
