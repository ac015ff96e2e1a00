//! Cache blocking for one thread's rectangle of C (the Goto/BLIS loop order): a KC-deep
//! slice of B is packed once (it stays in L2, each NR panel of it in L1 while in use), then
//! MC-row blocks of A are packed against it (L2) and every MR x NR tile is multiplied.

use super::kernel::{tile, TileDst, MR, NR};
use super::pack::{pack_a, pack_b, Strided};
use super::shared_a::SharedA;
use std::cell::RefCell;
use std::ops::Range;

/// Deepest k block: a B panel (KC x NR floats, 28 KiB) stays in the 48 KiB L1 while A's
/// panels stream past it (measured: 256 loses up to 10% on k = 512, where it is exact).
const KC: usize = 224;
/// Most A rows packed at once (MC x KC floats, ~150 KiB, well inside a 2 MiB L2).
const MC: usize = 12 * MR;
/// Most B columns packed at once (KC x NC floats, under 1 MiB: L2).
const NC: usize = 32 * NR;

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
    // per call); the panel buffer's size is bounded by the block sizes, the shared one's
    // by `SHARED_A_MAX`.
    static PANELS: RefCell<Vec<Line>> = const { RefCell::new(Vec::new()) };
    static SHARED: RefCell<Vec<Line>> = const { RefCell::new(Vec::new()) };
}

/// Which of this thread's buffers to lend.
pub enum Buffer {
    /// B and A blocks packed by this thread.
    Panels,
    /// An A that this thread shares with its helpers.
    SharedA,
}

/// Runs `f` with a 64-byte aligned scratch of at least `floats` floats.
pub fn with_buffer<R>(which: Buffer, floats: usize, f: impl FnOnce(*mut f32) -> R) -> R {
    let lines = floats.div_ceil(16);
    let key = match which {
        Buffer::Panels => &PANELS,
        Buffer::SharedA => &SHARED,
    };
    key.with(|cell| match cell.try_borrow_mut() {
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

/// Depth of the k blocks of a product with `k` steps.
pub fn kc_max(k: usize) -> usize {
    block_len(k, KC, 1)
}

/// Computes rows `rows` and columns `cols` of `p`'s C on this thread, with A packed here or,
/// given `shared` (then `rows` is all of them), taken from there.
///
/// # Safety
/// AVX-512F is available; A (`m x k`), B (`k x n`) are readable and C (`m x n`) writable
/// through `p`'s pointers and strides for the ranges given; no other thread touches this
/// rectangle of C meanwhile, and C overlaps neither A nor B. `shared` packs `p`'s A.
pub unsafe fn multiply_rect(
    p: &Problem,
    rows: Range<usize>,
    cols: Range<usize>,
    shared: Option<&SharedA>,
) {
    let (m, n, k) = (rows.len(), cols.len(), p.k);
    if m == 0 || n == 0 {
        return;
    }
    let kc_max = kc_max(k);
    let mc_max = block_len(m, MC, MR);
    let nc_max = block_len(n, NC, NR);
    let b_len = kc_max * nc_max;
    with_buffer(Buffer::Panels, b_len + kc_max * mc_max, |buf| {
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
                pack_b(kc, nc, b_block, bp);
                // Later k blocks add onto what the first one wrote.
                let beta = if pc == 0 { p.beta } else { 1.0 };
                for ic in (0..m).step_by(mc_max) {
                    let mc = mc_max.min(m - ic);
                    let i0 = rows.start + ic;
                    let a_block = Strided {
                        ptr: p.a.ptr.offset(i0 as isize * p.a.rs + pc as isize * p.a.cs),
                        ..p.a
                    };
                    let a_panel = |ir: usize| match shared {
                        Some(s) => s.panel(pc, kc, (i0 + ir) / MR),
                        None => ap.add(ir * kc) as *const f32,
                    };
                    if shared.is_none() {
                        pack_a(mc, kc, a_block, ap);
                    }
                    multiply_packed(p, [i0, j0], [mc, nc, kc], a_panel, bp, beta);
                }
            }
        }
    })
}

/// Every tile of a packed `mc x kc` A block (panel at row `ir` from `a_panel(ir)`) times a
/// packed `kc x nc` B block, into C at `origin`. Each B panel stays in L1 while the A
/// panels stream past it.
///
/// # Safety
/// As `multiply_rect`; `a_panel` and `bp` give the packed blocks.
unsafe fn multiply_packed(
    p: &Problem,
    origin: [usize; 2],
    [mc, nc, kc]: [usize; 3],
    a_panel: impl Fn(usize) -> *const f32,
    bp: *const f32,
    beta: f32,
) {
    for jr in (0..nc).step_by(NR) {
        let b_panel = bp.add(jr * kc);
        for ir in (0..mc).step_by(MR) {
            let (i, j) = ((origin[0] + ir) as isize, (origin[1] + jr) as isize);
            let dst = TileDst {
                c: p.c.offset(i * p.rsc + j * p.csc),
                rs: p.rsc,
                cs: p.csc,
                alpha: p.alpha,
                beta,
            };
            let (rows, cols) = ((mc - ir).min(MR), (nc - jr).min(NR));
            tile(rows, cols, kc, a_panel(ir), b_panel, dst);
        }
    }
}
