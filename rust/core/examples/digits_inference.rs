//! Runs the digits CNN trained and saved from Python (examples/train_digits.py) in pure Rust:
//! loads the safetensors checkpoint and test split, and prints the test accuracy.
//!
//! Run: `cargo run --release -p ferrotorch --example digits_inference -- examples/out`

use ferrotorch::ops::unfold::Window;
use ferrotorch::serialize::load_file;
use ferrotorch::{Error, Result, Tensor};
use std::collections::HashMap;
use std::path::Path;

fn load(path: &Path) -> Result<HashMap<String, Tensor>> {
    Ok(load_file(path)?.0.into_iter().collect())
}

fn get<'a>(m: &'a HashMap<String, Tensor>, k: &str) -> Result<&'a Tensor> {
    m.get(k)
        .ok_or_else(|| Error::runtime(format!("checkpoint has no tensor '{k}'")))
}

fn conv_relu_pool(x: &Tensor, w: &Tensor, b: &Tensor) -> Result<Tensor> {
    let y = x.conv2d(w, Some(b), [1, 1], [1, 1], [1, 1], 1)?.relu()?;
    let pool = Window {
        kernel: [2, 2],
        dilation: [1, 1],
        padding: [0, 0],
        stride: [2, 2],
    };
    Ok(y.max_pool2d(pool, false)?.0)
}

fn main() -> Result<()> {
    let dir = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "examples/out".into());
    let dir = Path::new(&dir);
    let w = load(&dir.join("digits_cnn.safetensors"))?;
    let data = load(&dir.join("digits_test.safetensors"))?;
    let (x, y) = (get(&data, "x")?, get(&data, "y")?);
    let _no_grad = ferrotorch::autograd::GradModeGuard::new(false);
    let h = conv_relu_pool(x, get(&w, "conv1.weight")?, get(&w, "conv1.bias")?)?;
    let h = conv_relu_pool(&h, get(&w, "conv2.weight")?, get(&w, "conv2.bias")?)?;
    let h = h.flatten(1, -1)?;
    let h = h
        .matmul(&get(&w, "fc1.weight")?.t()?)?
        .add(get(&w, "fc1.bias")?)?
        .relu()?;
    let logits = h
        .matmul(&get(&w, "fc2.weight")?.t()?)?
        .add(get(&w, "fc2.bias")?)?;
    let pred = logits.argmax(Some(1), false, true)?.to_vec::<i64>();
    let truth = y.to_vec::<i64>();
    let correct = pred.iter().zip(&truth).filter(|(p, t)| p == t).count();
    println!(
        "Rust inference on {} test digits: accuracy {:.2}%",
        truth.len(),
        100.0 * correct as f64 / truth.len() as f64
    );
    Ok(())
}
