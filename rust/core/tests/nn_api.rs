//! The PyTorch-shaped Rust API: layers against PyTorch's numbers (fixtures written by
//! fixtures/make_nn_fixture.py from a checkpoint the Python package saved), optimizers against
//! PyTorch's trajectories, training, and state dicts through safetensors.

use ferrotorch::nn::{self, functional as F, prefixed, Module};
use ferrotorch::optim::{Adam, AdamConfig, AdamW, Optimizer, Sgd, SgdConfig};
use ferrotorch::{DType, Error, Result, Tensor};
use std::collections::HashMap;
use std::path::PathBuf;

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

fn expected() -> HashMap<String, Tensor> {
    ferrotorch::load(fixture("nn_expected.safetensors"))
        .unwrap()
        .into_iter()
        .collect()
}

fn assert_close(got: &Tensor, want: &Tensor, tol: f32, what: &str) {
    assert_eq!(got.shape(), want.shape(), "{what}: shape");
    let (g, w) = (got.to_vec::<f32>(), want.to_vec::<f32>());
    for (i, (a, b)) in g.iter().zip(&w).enumerate() {
        assert!(
            (a - b).abs() <= tol * (1.0 + b.abs()),
            "{what}[{i}]: got {a}, PyTorch {b}"
        );
    }
}

/// The fixture's model: the same submodules and names as the Python one.
struct Fixture {
    mlp: nn::Sequential,
    conv: nn::Conv2d,
    ln: nn::LayerNorm,
    emb: nn::Embedding,
}

impl Fixture {
    fn new() -> Result<Fixture> {
        let cfg = nn::Conv2dConfig {
            stride: [2, 1],
            padding: [1, 0],
            ..Default::default()
        }
        .groups(2);
        Ok(Fixture {
            mlp: nn::Sequential::new()
                .add(nn::Linear::new(4, 3)?)
                .add(nn::ReLU)
                .add(nn::Linear::new(3, 2)?),
            conv: nn::Conv2d::with_config(4, 6, [3, 2], cfg)?,
            ln: nn::LayerNorm::new(&[3, 4])?,
            emb: nn::Embedding::with_padding_idx(10, 3, Some(0))?,
        })
    }
}

impl Module for Fixture {
    fn forward(&self, x: &Tensor) -> Result<Tensor> {
        self.mlp.forward(x)
    }
    fn named_parameters(&self) -> Vec<(String, Tensor)> {
        let mut p = prefixed("mlp", &self.mlp);
        p.extend(prefixed("conv", &self.conv));
        p.extend(prefixed("ln", &self.ln));
        p.extend(prefixed("emb", &self.emb));
        p
    }
}

#[test]
fn layers_match_pytorch_on_a_checkpoint_saved_by_python() {
    let model = Fixture::new().unwrap();
    let state = ferrotorch::load(fixture("nn_modules.safetensors")).unwrap();
    // Python's save records the state dict's order, which load gives back.
    let order: Vec<&str> = state.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(order[..3], ["mlp.0.weight", "mlp.0.bias", "mlp.2.weight"]);
    let keys = model.load_state_dict(&state, true).unwrap();
    assert_eq!(keys, nn::IncompatibleKeys::default());
    let e = expected();
    let cases: [(&str, &dyn Module, &str); 4] = [
        ("mlp", &model.mlp, "mlp.x"),
        ("conv", &model.conv, "conv.x"),
        ("ln", &model.ln, "ln.x"),
        ("emb", &model.emb, "emb.ids"),
    ];
    for (name, m, input) in cases {
        let y = m.forward(&e[input]).unwrap();
        assert_close(&y, &e[&format!("{name}.y")], 1e-5, name);
    }
    // The loaded values are the layers' own storage, and still trainable leaves.
    assert!(model.ln.weight().unwrap().requires_grad());
    assert_close(
        model.ln.weight().unwrap(),
        &state.iter().find(|(n, _)| n == "ln.weight").unwrap().1,
        0.0,
        "ln.weight",
    );
}

#[test]
fn parameter_names_shapes_and_init_follow_pytorch() {
    ferrotorch::manual_seed(1);
    let names: Vec<(String, Vec<usize>)> = Fixture::new()
        .unwrap()
        .named_parameters()
        .into_iter()
        .map(|(n, t)| (n, t.shape().to_vec()))
        .collect();
    let want: Vec<(&str, Vec<usize>)> = vec![
        ("mlp.0.weight", vec![3, 4]),
        ("mlp.0.bias", vec![3]),
        ("mlp.2.weight", vec![2, 3]),
        ("mlp.2.bias", vec![2]),
        ("conv.weight", vec![6, 2, 3, 2]),
        ("conv.bias", vec![6]),
        ("ln.weight", vec![3, 4]),
        ("ln.bias", vec![3, 4]),
        ("emb.weight", vec![10, 3]),
    ];
    let want: Vec<(String, Vec<usize>)> =
        want.into_iter().map(|(n, s)| (n.to_string(), s)).collect();
    assert_eq!(names, want);

    // Uniform bounds 1/sqrt(fan_in): fan_in 400 for Linear(400, 300), 2*3*2 = 12 for the conv.
    let fc = nn::Linear::new(400, 300).unwrap();
    for (t, bound) in [(fc.weight(), 0.05f32), (fc.bias().unwrap(), 0.05)] {
        let v = t.to_vec::<f32>();
        let max = v.iter().fold(0f32, |m, x| m.max(x.abs()));
        assert!(
            max <= bound && max > 0.9 * bound,
            "max |w| {max} for bound {bound}"
        );
        assert_eq!(t.dtype(), DType::F32);
        assert!(t.requires_grad() && t.is_leaf());
    }
    let conv =
        nn::Conv2d::with_config(4, 6, [3, 2], nn::Conv2dConfig::default().groups(2)).unwrap();
    let max = conv
        .weight()
        .to_vec::<f32>()
        .iter()
        .fold(0f32, |m, x| m.max(x.abs()));
    assert!(max <= 1.0 / 12f32.sqrt());
    assert!(nn::Linear::with_bias(3, 2, false).unwrap().bias().is_none());
    // Embedding is N(0, 1) with the padding row at zero; LayerNorm starts at ones and zeros.
    let emb = nn::Embedding::with_padding_idx(1000, 16, Some(-1)).unwrap();
    assert_eq!(emb.padding_idx(), Some(999));
    let w = emb.weight().to_vec::<f32>();
    assert!(w[999 * 16..].iter().all(|&v| v == 0.0));
    let mean = w.iter().sum::<f32>() / w.len() as f32;
    let var = w.iter().map(|v| (v - mean) * (v - mean)).sum::<f32>() / w.len() as f32;
    assert!(
        mean.abs() < 0.05 && (var - 1.0).abs() < 0.05,
        "mean {mean} var {var}"
    );
    let ln = nn::LayerNorm::new(&[5]).unwrap();
    assert_eq!(ln.weight().unwrap().to_vec::<f32>(), vec![1.0; 5]);
    assert_eq!(ln.bias().unwrap().to_vec::<f32>(), vec![0.0; 5]);
    assert_eq!(
        nn::LayerNorm::with_options(&[5], 1e-5, false, true)
            .unwrap()
            .parameters()
            .len(),
        0
    );
    assert_eq!(
        nn::LayerNorm::with_options(&[5], 1e-5, true, false)
            .unwrap()
            .parameters()
            .len(),
        1
    );
}

#[test]
fn bad_configurations_and_inputs_are_errors_that_name_the_op() {
    let err = |r: Result<Tensor>| r.unwrap_err().to_string();
    assert!(matches!(
        nn::Conv2d::with_config(3, 4, [3, 3], nn::Conv2dConfig::default().groups(2)),
        Err(Error::Value(_))
    ));
    assert!(matches!(
        nn::Embedding::with_padding_idx(4, 2, Some(4)),
        Err(Error::Value(_))
    ));
    let fc = nn::Linear::new(3, 2).unwrap();
    let m = err(fc.forward(&ferrotorch::zeros(&[2, 4]).unwrap()));
    assert!(m.contains("linear") && m.contains("(2x4 and 3x2)"), "{m}");
    let ln = nn::LayerNorm::new(&[3, 4]).unwrap();
    let m = err(ln.forward(&ferrotorch::zeros(&[2, 4, 3]).unwrap()));
    assert!(
        m.contains("layer_norm")
            && m.contains("normalized_shape=[3, 4]")
            && m.contains("[2, 4, 3]"),
        "{m}"
    );
    let emb = nn::Embedding::new(4, 2).unwrap();
    assert!(err(emb.forward(&ferrotorch::zeros(&[2]).unwrap())).contains("embedding"));
    assert!(emb
        .forward(&Tensor::from_vec(vec![4i64], &[1]).unwrap())
        .is_err());
    let target = Tensor::from_vec(vec![0i64, 1], &[2]).unwrap();
    assert!(err(F::cross_entropy(
        &ferrotorch::zeros(&[3, 4]).unwrap(),
        &target
    ))
    .contains("cross_entropy"));
    let conv = nn::Conv2d::new(2, 3, 3).unwrap();
    assert!(err(conv.forward(&ferrotorch::zeros(&[1, 5, 4, 4]).unwrap())).contains("conv2d"));
    // Unbatched [C, H, W] input works as in PyTorch.
    assert_eq!(
        conv.forward(&ferrotorch::zeros(&[2, 4, 4]).unwrap())
            .unwrap()
            .shape(),
        &[3, 2, 2]
    );
}

#[test]
fn embedding_padding_row_gets_no_gradient() {
    let emb = nn::Embedding::with_padding_idx(5, 2, Some(1)).unwrap();
    let ids = Tensor::from_vec(vec![1i64, 2, 1, 4], &[2, 2]).unwrap();
    emb.forward(&ids)
        .unwrap()
        .sum()
        .unwrap()
        .backward()
        .unwrap();
    let g = emb.weight().grad().unwrap().to_vec::<f32>();
    assert_eq!(g, vec![0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 1.0, 1.0]);
}

#[test]
fn optimizers_follow_pytorch_trajectories() {
    let e = expected();
    let grads = e["optim.grads"].unbind(0).unwrap();
    type Make = fn(Vec<Tensor>) -> Result<Box<dyn Optimizer>>;
    let cases: [(&str, Make); 4] = [
        ("adamw_default", |p| Ok(Box::new(AdamW::new(p)?))),
        ("adamw_tuned", |p| {
            let cfg = AdamConfig {
                lr: 0.1,
                betas: (0.8, 0.9),
                weight_decay: 0.1,
                amsgrad: true,
                ..Default::default()
            };
            Ok(Box::new(AdamW::with_config(p, cfg)?))
        }),
        ("adam_default", |p| Ok(Box::new(Adam::new(p)?))),
        ("sgd_nesterov", |p| {
            let cfg = SgdConfig {
                lr: 0.1,
                momentum: 0.9,
                nesterov: true,
                weight_decay: 0.1,
                ..Default::default()
            };
            Ok(Box::new(Sgd::with_config(p, cfg)?))
        }),
    ];
    for (name, make) in cases {
        let p = e["optim.p0"]
            .contiguous_copy()
            .unwrap()
            .requires_grad_(true)
            .unwrap();
        let mut opt = make(vec![p.clone()]).unwrap();
        for g in &grads {
            p.set_grad(Some(g.contiguous_copy().unwrap())).unwrap();
            opt.step().unwrap();
        }
        assert_close(&p, &e[&format!("optim.{name}")], 1e-6, name);
    }
    assert_eq!(AdamW::new(vec![]).unwrap().config(), &AdamConfig::default());
    assert_eq!(Adam::new(vec![]).unwrap().config().weight_decay, 0.0);
    assert_eq!(Sgd::new(vec![], 0.1).unwrap().config().momentum, 0.0);
    // Parameters without a gradient are skipped; non-leaves and ints are refused.
    let w = ferrotorch::ones(&[2])
        .unwrap()
        .requires_grad_(true)
        .unwrap();
    AdamW::new(vec![w.clone()]).unwrap().step().unwrap();
    assert_eq!(w.to_vec::<f32>(), vec![1.0, 1.0]);
    assert!(matches!(AdamW::new(vec![&w * 2.0]), Err(Error::Value(_))));
    assert!(AdamW::new(vec![ferrotorch::arange(3).unwrap()]).is_err());
}

#[test]
fn training_a_classifier_with_adamw_reduces_the_loss() {
    ferrotorch::manual_seed(0);
    // Two Gaussian blobs in 2-D, labelled by which side of x0 + x1 = 0 they fall.
    let x = ferrotorch::randn(&[128, 2]).unwrap();
    let labels: Vec<i64> = x
        .to_vec::<f32>()
        .chunks(2)
        .map(|p| i64::from(p[0] + p[1] > 0.0))
        .collect();
    let y = Tensor::from_vec(labels, &[128]).unwrap();
    let model = nn::Sequential::new()
        .add(nn::Linear::new(2, 16).unwrap())
        .add(nn::GELU)
        .add(nn::LayerNorm::new(&[16]).unwrap())
        .add(nn::Linear::new(16, 2).unwrap());
    let cfg = AdamConfig {
        lr: 0.05,
        ..Default::default()
    };
    let mut opt = AdamW::with_config(model.parameters(), cfg).unwrap();
    let mut losses = vec![];
    for _ in 0..60 {
        let loss = F::cross_entropy(&model.forward(&x).unwrap(), &y).unwrap();
        opt.zero_grad().unwrap();
        loss.backward().unwrap();
        opt.step().unwrap();
        losses.push(loss.item().unwrap().to_f64());
    }
    assert!(
        losses[59] < 0.25 * losses[0],
        "loss {} -> {}",
        losses[0],
        losses[59]
    );
    let _guard = ferrotorch::no_grad();
    let pred = model
        .forward(&x)
        .unwrap()
        .argmax(Some(1), false, true)
        .unwrap();
    let acc = pred
        .to_vec::<i64>()
        .iter()
        .zip(y.to_vec::<i64>())
        .filter(|(a, b)| **a == *b)
        .count();
    assert!(acc >= 120, "accuracy {acc}/128");
    assert!(!model.forward(&x).unwrap().requires_grad());
}

#[test]
fn state_dict_round_trips_through_safetensors() {
    let dir = std::env::temp_dir().join(format!("ferrotorch-nn-api-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("model.safetensors");
    let a = Fixture::new().unwrap();
    let b = Fixture::new().unwrap();
    ferrotorch::save(&path, &a.state_dict()).unwrap();
    let loaded = ferrotorch::load(&path).unwrap();
    assert_eq!(loaded.len(), 9);
    b.load_state_dict(&loaded, true).unwrap();
    for ((na, ta), (nb, tb)) in a.named_parameters().iter().zip(b.named_parameters().iter()) {
        assert_eq!(na, nb);
        assert_close(tb, ta, 0.0, na);
    }
    let x = ferrotorch::randn(&[3, 4]).unwrap();
    assert_close(
        &b.forward(&x).unwrap(),
        &a.forward(&x).unwrap(),
        0.0,
        "forward",
    );
    // The bytes API writes the same file.
    let bytes = ferrotorch::save_to_bytes(&a.state_dict()).unwrap();
    assert_eq!(ferrotorch::load_from_bytes(&bytes).unwrap().len(), 9);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn load_state_dict_reports_missing_unexpected_and_mismatched_keys() {
    let fc = nn::Linear::new(3, 2).unwrap();
    let before = fc.weight().to_vec::<f32>();
    let w = ("weight".to_string(), ferrotorch::zeros(&[2, 3]).unwrap());
    let extra = ("extra".to_string(), ferrotorch::zeros(&[1]).unwrap());
    let m = fc
        .load_state_dict(&[w.clone(), extra.clone()], true)
        .unwrap_err()
        .to_string();
    assert!(
        m.contains("Missing key(s) in state_dict: \"bias\"")
            && m.contains("Unexpected key(s) in state_dict: \"extra\""),
        "{m}"
    );
    assert_eq!(
        fc.weight().to_vec::<f32>(),
        before,
        "a failed strict load copies nothing"
    );
    let keys = fc.load_state_dict(&[w, extra], false).unwrap();
    assert_eq!(keys.missing_keys, ["bias"]);
    assert_eq!(keys.unexpected_keys, ["extra"]);
    assert_eq!(fc.weight().to_vec::<f32>(), vec![0.0; 6]);
    let bad = [("weight".to_string(), ferrotorch::zeros(&[3, 2]).unwrap())];
    let m = fc.load_state_dict(&bad, false).unwrap_err().to_string();
    assert!(m.contains("size mismatch for weight"), "{m}");
    // Values of another dtype are cast, as copy_ does.
    let f64w = [(
        "weight".to_string(),
        Tensor::ones(&[2, 3], DType::F64).unwrap(),
    )];
    fc.load_state_dict(&f64w, false).unwrap();
    assert_eq!(fc.weight().dtype(), DType::F32);
    assert_eq!(fc.weight().to_vec::<f32>(), vec![1.0; 6]);
}

#[test]
fn facade_reads_like_python() {
    let x = ferrotorch::tensor(&[1.0, -2.0, -3.0, 4.0], &[2, 2])
        .unwrap()
        .requires_grad_(true)
        .unwrap();
    let w = ferrotorch::tensor(&[0.5, 1.0], &[2, 1]).unwrap();
    let y = (x.matmul(&w).unwrap().relu().unwrap() * 2.0 + 1.0)
        .mean()
        .unwrap();
    y.backward().unwrap();
    // y = mean(2 * relu([-1.5, 2.5]) + 1) = 3.5; only the second row passes a gradient.
    assert_eq!(y.item().unwrap().to_f64(), 3.5);
    assert_eq!(x.grad().unwrap().to_vec::<f32>(), vec![0.0, 0.0, 0.5, 1.0]);
    let p = F::softmax(&ferrotorch::tensor(&[0.0, 2f32.ln()], &[1, 2]).unwrap(), 1).unwrap();
    assert_close(
        &p,
        &ferrotorch::tensor(&[1.0 / 3.0, 2.0 / 3.0], &[1, 2]).unwrap(),
        1e-6,
        "softmax",
    );
    assert!(ferrotorch::ones(&[2, 2])
        .unwrap()
        .backward()
        .unwrap_err()
        .to_string()
        .contains("scalar outputs"));
    assert!(ferrotorch::ones(&[])
        .unwrap()
        .backward()
        .unwrap_err()
        .to_string()
        .contains("does not require grad"));
    assert_eq!(ferrotorch::arange(3).unwrap().dtype(), DType::I64);
}
