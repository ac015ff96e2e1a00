//! Broadcasting a binary op without materializing the broadcast operand. The common patterns
//! (a bias over rows `(N, C) + (C,)`, a per-row value `(N, C) * (N, 1)`, an outer sum
//! `(1, C) + (N, 1)`) are runs of the output in which each operand is either its own slice,
//! one whole repeated operand, or a single value.

use crate::cpu::parallel::{worth, Src, PAR_THRESHOLD};
use crate::Tensor;

/// How an operand's contiguous data maps onto one block of the output.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Role {
    /// The operand has the output's shape: block `i` reads its own slice.
    Own,
    /// The operand is the trailing dims of the output: every block reads all of it.
    Repeat,
    /// The operand is the leading dims of the output: block `i` reads its value `i`.
    PerBlock,
}

/// Output blocks of `block` elements and what each operand contributes to one.
#[derive(Clone, Copy, PartialEq, Debug)]
pub(crate) struct Plan {
    block: usize,
    a: Role,
    b: Role,
}

/// The operand's role, with the block size it implies (`None` for `Own`, which fits any).
fn role(t: &Tensor, out: &[usize]) -> Option<(Role, Option<usize>)> {
    if !t.is_contiguous() || t.ndim() > out.len() {
        return None;
    }
    let pad = out.len() - t.ndim();
    let dim = |d: usize| if d < pad { 1 } else { t.shape()[d - pad] };
    if (0..out.len()).all(|d| dim(d) == out[d]) {
        return Some((Role::Own, None));
    }
    // Leading dims of size 1, then the output's dims: the operand repeats.
    let k = (0..out.len())
        .rev()
        .find(|&d| dim(d) != out[d])
        .map_or(0, |d| d + 1);
    if (0..k).all(|d| dim(d) == 1) {
        return Some((Role::Repeat, Some(out[k..].iter().product())));
    }
    // The output's dims, then trailing dims of size 1: one value per block.
    let k = (0..out.len())
        .find(|&d| dim(d) != out[d])
        .unwrap_or(out.len());
    if (k..out.len()).all(|d| dim(d) == 1) {
        return Some((Role::PerBlock, Some(out[k..].iter().product())));
    }
    None
}

/// A plan for `a op b` broadcast to `out`, when neither side needs a materialized copy.
/// Single-element operands are left to the scalar path.
pub(crate) fn plan(a: &Tensor, b: &Tensor, out: &[usize]) -> Option<Plan> {
    if a.numel() <= 1 || b.numel() <= 1 || out.iter().product::<usize>() == 0 {
        return None;
    }
    let ((ra, ba), (rb, bb)) = (role(a, out)?, role(b, out)?);
    let block = match (ba, bb) {
        (None, None) => return None, // both own: the plain path
        (Some(x), None) | (None, Some(x)) => x,
        (Some(x), Some(y)) if x == y => x,
        _ => return None,
    };
    (block > 0).then_some(Plan {
        block,
        a: ra,
        b: rb,
    })
}

#[inline(always)]
fn src<C: Copy>(role: Role, data: &[C], block: usize, i: usize) -> Src<'_, C> {
    match role {
        Role::Own => Src::Slice(&data[i * block..(i + 1) * block]),
        Role::Repeat => Src::Slice(data),
        Role::PerBlock => Src::Scalar(data[i]),
    }
}

/// Runs `kernel` on each output block with its operands; groups of blocks go to threads when
/// the output is large and blocks are small (a large block parallelizes inside `kernel`).
pub(crate) fn run<C: Copy + Sync, O: Send>(
    p: Plan,
    a: &[C],
    b: &[C],
    out: &mut [O],
    kernel: impl Fn(Src<C>, Src<C>, &mut [O]) + Sync,
) {
    let block = p.block;
    let one = |i: usize, o: &mut [O]| kernel(src(p.a, a, block, i), src(p.b, b, block, i), o);
    if worth(out.len()) && block < PAR_THRESHOLD {
        let per = (PAR_THRESHOLD / 4 / block).max(1);
        crate::cpu::parallel::chunks_claimed(out, per * block, |g, group| {
            for (j, o) in group.chunks_mut(block).enumerate() {
                one(g * per + j, o);
            }
        });
    } else {
        for (i, o) in out.chunks_mut(block).enumerate() {
            one(i, o);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::DType;

    fn t(shape: &[usize]) -> Tensor {
        Tensor::zeros(shape, DType::F32).unwrap()
    }

    #[test]
    fn plans_cover_the_row_patterns_only() {
        let out = [4, 3, 5];
        let p = |a: &[usize], b: &[usize]| plan(&t(a), &t(b), &out).map(|p| (p.block, p.a, p.b));
        assert_eq!(p(&[4, 3, 5], &[3, 5]), Some((15, Role::Own, Role::Repeat)));
        assert_eq!(
            p(&[1, 1, 5], &[4, 3, 5]),
            Some((5, Role::Repeat, Role::Own))
        );
        assert_eq!(
            p(&[4, 3, 5], &[4, 1, 1]),
            Some((15, Role::Own, Role::PerBlock))
        );
        assert_eq!(
            p(&[4, 3, 1], &[4, 3, 5]),
            Some((5, Role::PerBlock, Role::Own))
        );
        assert_eq!(
            p(&[3, 5], &[4, 1, 1]),
            Some((15, Role::Repeat, Role::PerBlock))
        );
        // Middle broadcasts, mismatched blocks, both full and scalars take the other paths.
        assert_eq!(p(&[4, 3, 5], &[4, 1, 5]), None);
        assert_eq!(p(&[4, 1, 5], &[1, 3, 1]), None);
        assert_eq!(p(&[4, 3, 5], &[4, 3, 5]), None);
        assert_eq!(p(&[4, 3, 5], &[1]), None);
        // Non-contiguous operands are materialized by the caller.
        let tr = t(&[5, 3]).t().unwrap();
        assert_eq!(plan(&t(&[4, 3, 5]), &tr, &out), None);
    }
}
