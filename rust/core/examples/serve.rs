//! Serves the digits CNN that examples/train_digits.py trains in Python, over HTTP, from Rust:
//! the checkpoint loads into `nn` layers with the Python model's names, and each request runs
//! one forward pass with no graph recorded.
//!
//! Run: `cargo run --release -p ferrotorch --example serve -- examples/out/digits_cnn.safetensors`
//! then `curl -s localhost:8080/predict -H 'content-type: application/json' -d '{"pixels": [...64 values in [0, 1]...]}'`.
//! The address comes from `--addr HOST:PORT`, else `FERROTORCH_ADDR`, else 127.0.0.1:8080.
//!
//! `POST /predict` takes `{"pixels": [64 floats]}` (an 8x8 image, row by row, scaled to [0, 1]
//! as the training script does) and answers `{"class": k, "probs": [10 floats]}`; a body of the
//! wrong size gets 422 with `{"error": "..."}`. `GET /health` answers `ok`.

use axum::extract::State;
use axum::http::StatusCode;
use axum::routing::{get, post};
use axum::{Json, Router};
use ferrotorch::nn::functional::max_pool2d;
use ferrotorch::nn::{prefixed, Conv2d, Conv2dConfig, Linear, Module};
use ferrotorch::{Result, Tensor};
use serde::{Deserialize, Serialize};
use std::path::Path;
use std::sync::Arc;

/// The Python example's DigitsCNN: conv(1->16) -> pool -> conv(16->32) -> pool -> fc(128->64)
/// -> fc(64->10), with the same parameter names (`conv1.weight`, ...).
struct DigitsCnn {
    conv1: Conv2d,
    conv2: Conv2d,
    fc1: Linear,
    fc2: Linear,
}

impl DigitsCnn {
    fn new() -> Result<DigitsCnn> {
        let pad1 = Conv2dConfig::default().padding(1);
        Ok(DigitsCnn {
            conv1: Conv2d::with_config(1, 16, [3, 3], pad1)?,
            conv2: Conv2d::with_config(16, 32, [3, 3], pad1)?,
            fc1: Linear::new(32 * 2 * 2, 64)?,
            fc2: Linear::new(64, 10)?,
        })
    }

    /// The model with the weights of a checkpoint saved by `torch.save(model.state_dict(), path)`.
    fn load(path: &Path) -> Result<DigitsCnn> {
        let model = DigitsCnn::new()?;
        model.load_state_dict(&ferrotorch::load(path)?, true)?;
        Ok(model)
    }
}

impl Module for DigitsCnn {
    fn forward(&self, x: &Tensor) -> Result<Tensor> {
        let x = max_pool2d(&self.conv1.forward(x)?.relu()?, 2)?;
        let x = max_pool2d(&self.conv2.forward(&x)?.relu()?, 2)?;
        let x = self.fc1.forward(&x.flatten(1, -1)?)?.relu()?;
        self.fc2.forward(&x)
    }

    fn named_parameters(&self) -> Vec<(String, Tensor)> {
        let mut p = prefixed("conv1", &self.conv1);
        p.extend(prefixed("conv2", &self.conv2));
        p.extend(prefixed("fc1", &self.fc1));
        p.extend(prefixed("fc2", &self.fc2));
        p
    }
}

#[derive(Deserialize)]
struct PredictRequest {
    pixels: Vec<f32>,
}

#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct Prediction {
    class: usize,
    probs: Vec<f32>,
}

type ApiError = (StatusCode, Json<serde_json::Value>);

fn api_error(status: StatusCode, msg: String) -> ApiError {
    (status, Json(serde_json::json!({ "error": msg })))
}

fn predict(model: &DigitsCnn, pixels: Vec<f32>) -> std::result::Result<Prediction, ApiError> {
    if pixels.len() != 64 {
        let msg = format!(
            "pixels: expected 64 values (an 8x8 image), got {}",
            pixels.len()
        );
        return Err(api_error(StatusCode::UNPROCESSABLE_ENTITY, msg));
    }
    let run = || -> Result<Prediction> {
        let _no_grad = ferrotorch::no_grad();
        let x = Tensor::from_vec(pixels, &[1, 1, 8, 8])?;
        let probs = model.forward(&x)?.softmax(1)?.to_vec::<f32>();
        let class =
            (0..probs.len()).fold(0, |best, i| if probs[i] > probs[best] { i } else { best });
        Ok(Prediction { class, probs })
    };
    run().map_err(|e| api_error(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))
}

async fn predict_handler(
    State(model): State<Arc<DigitsCnn>>,
    Json(req): Json<PredictRequest>,
) -> std::result::Result<Json<Prediction>, ApiError> {
    // The forward pass is CPU work: keep it off the async worker threads.
    let answer = tokio::task::spawn_blocking(move || predict(&model, req.pixels)).await;
    let answer = answer.map_err(|e| api_error(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))?;
    answer.map(Json)
}

fn app(model: Arc<DigitsCnn>) -> Router {
    Router::new()
        .route("/predict", post(predict_handler))
        .route("/health", get(|| async { "ok" }))
        .with_state(model)
}

fn address() -> String {
    let args: Vec<String> = std::env::args().collect();
    let flag = args
        .iter()
        .position(|a| a == "--addr")
        .and_then(|i| args.get(i + 1));
    flag.cloned()
        .or_else(|| std::env::var("FERROTORCH_ADDR").ok())
        .unwrap_or_else(|| "127.0.0.1:8080".into())
}

fn checkpoint_path() -> String {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut rest = args
        .iter()
        .enumerate()
        .filter(|(i, a)| !a.starts_with("--") && (*i == 0 || args[*i - 1] != "--addr"));
    rest.next()
        .map(|(_, a)| a.clone())
        .unwrap_or_else(|| "examples/out/digits_cnn.safetensors".into())
}

async fn run() -> std::result::Result<(), Box<dyn std::error::Error>> {
    let path = checkpoint_path();
    let model = DigitsCnn::load(Path::new(&path))
        .map_err(|e| format!("{e}\n(train one with: python examples/train_digits.py)"))?;
    let listener = tokio::net::TcpListener::bind(address()).await?;
    println!(
        "serving {path} on http://{}/predict",
        listener.local_addr()?
    );
    axum::serve(listener, app(Arc::new(model))).await?;
    Ok(())
}

#[tokio::main]
async fn main() -> std::process::ExitCode {
    match run().await {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("serve: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::future::IntoFuture;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    fn fixture(name: &str) -> std::path::PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures")
            .join(name)
    }

    /// One HTTP/1.1 request on a fresh connection; returns the status code and the body.
    async fn post(addr: std::net::SocketAddr, path: &str, body: &str) -> (u16, String) {
        let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
        let req = format!(
            "POST {path} HTTP/1.1\r\nhost: {addr}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
            body.len()
        );
        s.write_all(req.as_bytes()).await.unwrap();
        let mut resp = String::new();
        s.read_to_string(&mut resp).await.unwrap();
        let status = resp[9..12].parse().unwrap();
        let body = resp.split_once("\r\n\r\n").unwrap().1.to_string();
        (status, body)
    }

    #[tokio::test]
    async fn serves_predictions_of_the_python_trained_checkpoint() {
        let model = Arc::new(DigitsCnn::load(&fixture("digits_cnn.safetensors")).unwrap());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(axum::serve(listener, app(model)).into_future());

        let sample: std::collections::HashMap<String, Tensor> =
            ferrotorch::load(fixture("digits_sample.safetensors"))
                .unwrap()
                .into_iter()
                .collect();
        let (x, y) = (sample["x"].to_vec::<f32>(), sample["y"].to_vec::<i64>());
        let mut correct = 0;
        for (image, &label) in x.chunks(64).zip(&y) {
            let (status, body) = post(
                addr,
                "/predict",
                &serde_json::json!({ "pixels": image }).to_string(),
            )
            .await;
            assert_eq!(status, 200, "{body}");
            let p: Prediction = serde_json::from_str(&body).unwrap();
            assert_eq!(p.probs.len(), 10);
            assert!((p.probs.iter().sum::<f32>() - 1.0).abs() < 1e-5);
            assert!(p.probs.iter().all(|&q| q <= p.probs[p.class]));
            correct += usize::from(p.class as i64 == label);
        }
        // The Python run reached about 98% on the whole test split.
        assert!(correct >= 30, "{correct}/{} test digits right", y.len());

        let (status, body) = post(addr, "/predict", r#"{"pixels": [0.5, 0.5]}"#).await;
        assert_eq!(status, 422);
        assert!(body.contains("expected 64 values"), "{body}");
        let (status, _) = post(addr, "/predict", r#"{"image": []}"#).await;
        assert_eq!(status, 422);
    }

    #[test]
    fn a_checkpoint_of_another_model_is_refused_with_the_keys() {
        let dir = std::env::temp_dir().join(format!("ferrotorch-serve-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("other.safetensors");
        ferrotorch::save(&path, &Linear::new(2, 2).unwrap().state_dict()).unwrap();
        let err = DigitsCnn::load(&path).err().unwrap().to_string();
        assert!(
            err.contains("Missing key(s) in state_dict: \"conv1.weight\""),
            "{err}"
        );
        assert!(
            err.contains("Unexpected key(s) in state_dict: \"weight\""),
            "{err}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
