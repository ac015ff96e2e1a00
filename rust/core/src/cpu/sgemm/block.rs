//! Cache blocking for one thread's rectangle of C (the Goto/BLIS loop order, block sizes
//! from `Isa`): a KC-deep slice of B is packed once (it stays in L2, each NR panel of it in
//! L1 while in use), then MC-row blocks of A are packed against it (L2), or read in place
//! when that is cheaper, and every tile (up to MR x NR) is multiplied.

use super::isa::{Isa, PanelA, TileDst};
use super::pack::Strided;
use std::cell::RefCell;
use std::ops::Range;

/// One whole product: `C = alpha * A * B + beta * C` for `C` of `m x n` and `k` steps.
#[derive(Clone, Copy)]
pub struct Problem {
    pub k: usize,
    pub a: Strided,
    pub b: Strided,
    pub c: *mut f32,
    pub rsc: isize,
    pub csc: isize,
    pub alpha: f32,
    pub beta: f32,
}

// SAFETY: a Problem is shared between the threads of one product, which only read A and B
// and write disjoint rectangles of C (`multiply_rect`'s contract).
unsafe impl Send for Problem {}
unsafe impl Sync for Problem {}

/// `len` split into the fewest blocks of at most `max` (whole `unit`s each but the last),
/// all about the same size, so no block is a sliver.
fn block_len(len: usize, max: usize, unit: usize) -> usize {
    let blocks = len.div_ceil(max);
    len.div_ceil(blocks).div_ceil(unit) * unit
}

/// A 64-byte aligned chunk of pack buffer.
#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct Line([f32; 16]);

thread_local! {
    // Each thread keeps its pack buffers between products (no allocation or page faults
    // per call); the size is bounded by the block sizes.
    static BUFFER: RefCell<Vec<Line>> = const { RefCell::new(Vec::new()) };
}

/// Runs `f` with a 64-byte aligned scratch of at least `floats` floats.
fn with_buffer<R>(floats: usize, f: impl FnOnce(*mut f32) -> R) -> R {
    let lines = floats.div_ceil(16);
    BUFFER.with(|cell| match cell.try_borrow_mut() {
        Ok(mut buf) => {
            if buf.len() < lines {
                buf.resize(lines, Line([0.0; 16]));
            }
            f(buf.as_mut_ptr() as *mut f32)
        }
        // Only reachable if a product started inside another on this thread.
        Err(_) => f(vec![Line([0.0; 16]); lines].as_mut_ptr() as *mut f32),
    })
}

/// Rows per tile for `m` rows: as many tiles as MR-row ones would take, but even, so no
/// tile is left with a few rows (a 2-row tile runs at a quarter of the speed: too few
/// independent accumulators to hide the FMA latency).
pub fn row_step<I: Isa>(m: usize) -> usize {
    m.div_ceil(m.div_ceil(I::MR).max(1)).max(1)
}

/// Computes rows `rows` and columns `cols` of `p`'s C on this thread.
///
/// # Safety
/// `I`'s CPU features are available; A (`m x k`), B (`k x n`) are readable and C (`m x n`) writable
/// through `p`'s pointers and strides for the ranges given; no other thread touches this
/// rectangle of C meanwhile, and C overlaps neither A nor B.
pub unsafe fn multiply_rect<I: Isa>(p: &Problem, rows: Range<usize>, cols: Range<usize>) {
    let (m, n, k) = (rows.len(), cols.len(), p.k);
    if m == 0 || n == 0 {
        return;
    }
    let kc_max = block_len(k, I::KC, 1);
    let mr = row_step::<I>(m);
    let mc_max = block_len(m, I::MC, mr);
    let nc_max = block_len(n, I::NC, I::NR);
    let b_len = kc_max * nc_max;
    let a_len = kc_max * I::MR * mc_max.div_ceil(mr);
    with_buffer(b_len + a_len, |buf| {
        let (bp, ap) = (buf, buf.add(b_len));
        for jc in (0..n).step_by(nc_max) {
            let nc = nc_max.min(n - jc);
            let j0 = cols.start + jc;
            for pc in (0..k).step_by(kc_max) {
                let kc = kc_max.min(k - pc);
                let b_block = Strided {
                    ptr: p.b.ptr.offset(pc as isize * p.b.rs + j0 as isize * p.b.cs),
                    ..p.b
                };
                I::pack_b(kc, nc, b_block, bp);
                // Later k blocks add onto what the first one wrote.
                let beta = if pc == 0 { p.beta } else { 1.0 };
                for ic in (0..m).step_by(mc_max) {
                    let mc = mc_max.min(m - ic);
                    let i0 = rows.start + ic;
                    let a_block = Strided {
                        ptr: p.a.ptr.offset(i0 as isize * p.a.rs + pc as isize * p.a.cs),
                        ..p.a
                    };
                    let a = if read_a_in_place::<I>(&p.a) {
                        ABlock::InPlace(a_block)
                    } else {
                        I::pack_a(mc, kc, mr, a_block, ap);
                        ABlock::Packed(ap)
                    };
                    let block = Block {
                        origin: [i0, j0],
                        dims: [mc, nc, kc],
                        mr,
                        beta,
                    };
                    multiply_packed::<I>(p, &block, a, bp);
                }
            }
        }
    })
}

/// Whether the kernel reads A where it is instead of from a packed copy: when A's rows are
/// contiguous (then packing is a transpose, and broadcasting from each row needs none) and
/// MR consecutive rows land in different L1 sets (`Isa::ALIASING_STRIDE`).
pub fn read_a_in_place<I: Isa>(a: &Strided) -> bool {
    a.cs == 1 && !(a.rs.unsigned_abs() * 4).is_multiple_of(I::ALIASING_STRIDE)
}

/// One `mc x nc` block of C at `origin`, `kc` steps deep, in tiles of `mr` rows.
struct Block {
    origin: [usize; 2],
    dims: [usize; 3],
    mr: usize,
    beta: f32,
}

/// Where the kernel reads a block of A.
#[derive(Clone, Copy)]
enum ABlock {
    /// Packed: `kc x MR` panels one after the other, one per tile row.
    Packed(*const f32),
    /// A itself, rows contiguous.
    InPlace(Strided),
}

/// Every tile of an A block times a packed B block, into C. Each B panel stays in L1 while
/// the A panels stream past it.
///
/// # Safety
/// As `multiply_rect`; `a` and `bp` give the blocks.
unsafe fn multiply_packed<I: Isa>(p: &Problem, block: &Block, a: ABlock, bp: *const f32) {
    let ([mc, nc, kc], origin, mr) = (block.dims, block.origin, block.mr);
    for jr in (0..nc).step_by(I::NR) {
        let b_panel = bp.add(jr * kc);
        for ir in (0..mc).step_by(mr) {
            let (i, j) = ((origin[0] + ir) as isize, (origin[1] + jr) as isize);
            let dst = TileDst {
                c: p.c.offset(i * p.rsc + j * p.csc),
                rs: p.rsc,
                cs: p.csc,
                alpha: p.alpha,
                beta: block.beta,
            };
            let (rows, cols) = ((mc - ir).min(mr), (nc - jr).min(I::NR));
            let a_panel = match a {
                ABlock::Packed(ap) => PanelA {
                    ptr: ap.add(ir / mr * kc * I::MR),
                    row_step: 1,
                    k_step: I::MR as isize,
                },
                ABlock::InPlace(a) => PanelA {
                    ptr: a.ptr.offset(ir as isize * a.rs),
                    row_step: a.rs,
                    k_step: 1,
                },
            };
            I::tile(rows, cols, kc, a_panel, b_panel, dst);
        }
    }
}
