//! `torch.save` / `torch.load` of state dicts as safetensors files: the format the Python side
//! writes for `torch.save(model.state_dict(), "m.safetensors")`, readable by PyTorch's
//! `safetensors` package too.
#![warn(missing_docs)]

use crate::nn::StateDict;
use crate::serialize::{from_bytes, load_file, save_file, to_bytes};
use crate::{Result, Tensor};
use std::collections::HashMap;
use std::path::Path;

/// Writes named tensors to a safetensors file (atomically: a crash never leaves half a file),
/// as `torch.save(state_dict, path)`.
///
/// Python reads the file back with `ferrotorch.load(path)` as an `OrderedDict` in the same
/// order, ready for `model.load_state_dict`.
///
/// # Examples
///
/// ```
/// use ferrotorch::nn::{Linear, Module};
/// let dir = std::env::temp_dir().join(format!("ferrotorch-doc-save-{}", std::process::id()));
/// std::fs::create_dir_all(&dir)?;
/// let path = dir.join("linear.safetensors");
/// let fc = Linear::new(4, 2)?;
/// ferrotorch::save(&path, &fc.state_dict())?;
/// let loaded = ferrotorch::load(&path)?;
/// assert_eq!(loaded[0].0, "weight");
/// assert_eq!(loaded[0].1.to_vec::<f32>(), fc.weight().to_vec::<f32>());
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn save(path: impl AsRef<Path>, tensors: &[(String, Tensor)]) -> Result<()> {
    save_file(path.as_ref(), tensors, structure(tensors))
}

/// Reads every tensor of a safetensors file, as `torch.load(path)` of a state dict; works on
/// the files `ferrotorch.save` (Python or Rust) and `safetensors.torch.save_file` write.
///
/// The entries come in the order they were saved when the file records it (ferrotorch's
/// files do), else in the file's own order.
///
/// # Errors
///
/// If the file cannot be read, is truncated or corrupted, or holds a dtype ferrotorch lacks.
pub fn load(path: impl AsRef<Path>) -> Result<StateDict> {
    let (tensors, meta) = load_file(path.as_ref())?;
    Ok(in_saved_order(tensors, &meta))
}

/// The bytes of a safetensors file holding `tensors`, for storage that is not a file.
///
/// # Examples
///
/// ```
/// let t = ferrotorch::tensor(&[1.0, 2.0], &[2])?;
/// let bytes = ferrotorch::save_to_bytes(&[("t".to_string(), t)])?;
/// let back = ferrotorch::load_from_bytes(&bytes)?;
/// assert_eq!(back[0].1.to_vec::<f32>(), vec![1.0, 2.0]);
/// # Ok::<(), ferrotorch::Error>(())
/// ```
pub fn save_to_bytes(tensors: &[(String, Tensor)]) -> Result<Vec<u8>> {
    to_bytes(tensors, structure(tensors))
}

/// Reads tensors from the bytes of a safetensors file (see [`load`]).
///
/// # Errors
///
/// If the bytes are truncated or not safetensors.
pub fn load_from_bytes(bytes: &[u8]) -> Result<StateDict> {
    let (tensors, meta) = from_bytes(bytes, "buffer")?;
    Ok(in_saved_order(tensors, &meta))
}

/// The metadata the Python side writes for an `OrderedDict` of tensors, so that Python's
/// `torch.load` returns the entries in this order (safetensors itself sorts them).
fn structure(tensors: &[(String, Tensor)]) -> HashMap<String, String> {
    let entries: Vec<String> = tensors
        .iter()
        .map(|(name, t)| {
            let n = json_string(name);
            let complex = if t.dtype().is_complex() {
                ", \"complex\": true"
            } else {
                ""
            };
            format!(
                "[{n}, {{\"__tensor__\": {n}, \"requires_grad\": {}{complex}}}]",
                t.requires_grad()
            )
        })
        .collect();
    let root = format!(
        "{{\"version\": 1, \"root\": {{\"__odict__\": [{}]}}}}",
        entries.join(", ")
    );
    HashMap::from([("ferrotorch.structure".to_string(), root)])
}

fn json_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Reorders entries as the structure metadata lists them: each tensor appears there as
/// `"__tensor__": "<name>"` (JSON), in the saved order; unlisted entries keep file order.
fn in_saved_order(mut tensors: StateDict, meta: &HashMap<String, String>) -> StateDict {
    let Some(structure) = meta.get("ferrotorch.structure") else {
        return tensors;
    };
    let tag = "\"__tensor__\": ";
    let order: HashMap<String, usize> = structure
        .match_indices(tag)
        .filter_map(|(at, _)| parse_json_string(&structure[at + tag.len()..]))
        .enumerate()
        .map(|(i, name)| (name, i))
        .collect();
    tensors.sort_by_key(|(name, _)| order.get(name).copied().unwrap_or(usize::MAX));
    tensors
}

/// The JSON string at the start of `s` (Python's `json.dumps` escapes non-ASCII as `\uXXXX`).
fn parse_json_string(s: &str) -> Option<String> {
    let mut chars = s.strip_prefix('"')?.chars();
    let mut out = String::new();
    let mut pending_high: Option<u32> = None;
    loop {
        let c = chars.next()?;
        let unit = match c {
            '"' => return Some(out),
            '\\' => match chars.next()? {
                'u' => u32::from_str_radix(&chars.by_ref().take(4).collect::<String>(), 16).ok()?,
                'n' => '\n' as u32,
                't' => '\t' as u32,
                'r' => '\r' as u32,
                'b' => 8,
                'f' => 12,
                other => other as u32,
            },
            c => c as u32,
        };
        match (pending_high.take(), unit) {
            (None, 0xD800..=0xDBFF) => pending_high = Some(unit),
            (Some(hi), 0xDC00..=0xDFFF) => out.push(char::from_u32(
                0x10000 + ((hi - 0xD800) << 10) + (unit - 0xDC00),
            )?),
            (_, u) => out.push(char::from_u32(u)?),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn saved_order_survives_and_names_decode_like_python_json() {
        assert_eq!(parse_json_string(r#""a.b" rest"#).as_deref(), Some("a.b"));
        assert_eq!(
            parse_json_string(r#""q\"\\\u00e9\ud83d\ude00""#).as_deref(),
            Some("q\"\\é😀")
        );
        assert_eq!(parse_json_string("no quote"), None);
        let names = ["z.weight", "a.bias", "m\"odd\\é"];
        let tensors: StateDict = names
            .iter()
            .map(|n| (n.to_string(), crate::zeros(&[1]).unwrap()))
            .collect();
        let back = load_from_bytes(&save_to_bytes(&tensors).unwrap()).unwrap();
        let got: Vec<&str> = back.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(got, names);
    }
}
