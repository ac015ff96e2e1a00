//! Fits a small two-layer model to y = sin(x) with autograd and plain gradient descent, in pure
//! Rust (no Python). Run: `cargo run --release -p ferrotorch --example fit_sine`.

use ferrotorch::autograd::{backward, GradModeGuard};
use ferrotorch::{DType, Result, Scalar, Tensor};

fn param(shape: &[usize], scale: f64, seed: &mut u64) -> Result<Tensor> {
    // A tiny LCG keeps the example free of extra dependencies.
    let n: usize = shape.iter().product();
    let vals: Vec<f32> = (0..n)
        .map(|_| {
            *seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (((*seed >> 33) as f64 / (1u64 << 31) as f64) * 2.0 - 1.0) as f32 * scale as f32
        })
        .collect();
    let t = Tensor::from_vec(vals, shape)?;
    t.set_requires_grad(true)?;
    Ok(t)
}

fn main() -> Result<()> {
    let mut seed = 42u64;
    let x = Tensor::linspace(-3.0, 3.0, 128, DType::F32)?.reshape(&[128, 1])?;
    let y = x.sin()?;
    let (w1, b1) = (
        param(&[1, 32], 1.0, &mut seed)?,
        param(&[32], 0.1, &mut seed)?,
    );
    let (w2, b2) = (
        param(&[32, 1], 0.3, &mut seed)?,
        param(&[1], 0.1, &mut seed)?,
    );
    let params = [&w1, &b1, &w2, &b2];
    let lr = Scalar::Float(0.05);
    for step in 0..=2000 {
        let h = x.matmul(&w1)?.add(&b1)?.tanh()?;
        let pred = h.matmul(&w2)?.add(&b2)?;
        let diff = pred.sub(&y)?;
        let loss = diff.mul(&diff)?.mean_dims(&[], false)?;
        backward(
            std::slice::from_ref(&loss),
            &[Tensor::ones(&[], DType::F32)?],
            false,
            false,
        )?;
        {
            let _no_grad = GradModeGuard::new(false);
            for p in params {
                let g = p.grad().expect("every parameter is used");
                p.detach()
                    .binary_(ferrotorch::ops::BinaryOp::Sub, &g.mul_scalar(lr)?)?;
                p.set_grad(None)?;
            }
        }
        if step % 500 == 0 {
            println!("step {step:4}  loss {:.5}", loss.item()?.to_f64());
        }
    }
    Ok(())
}
