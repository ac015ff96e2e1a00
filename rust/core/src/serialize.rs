//! Tensors on disk in the safetensors format: written atomically (temporary file, fsync,
//! rename), read back with clear errors for truncated or corrupted files.

use crate::{with_dtype, DType, Element, Error, Result, Tensor};
use safetensors::tensor::{Dtype as StDtype, SafeTensors, View};
use std::borrow::Cow;
use std::collections::HashMap;
use std::io::Write;
use std::path::Path;

/// Named tensors in file order, and the file's string metadata.
pub type Loaded = (Vec<(String, Tensor)>, HashMap<String, String>);

fn st_dtype(d: DType) -> StDtype {
    match d {
        DType::F32 => StDtype::F32,
        DType::F64 => StDtype::F64,
        DType::F16 => StDtype::F16,
        DType::BF16 => StDtype::BF16,
        DType::I64 => StDtype::I64,
        DType::I32 => StDtype::I32,
        DType::I16 => StDtype::I16,
        DType::I8 => StDtype::I8,
        DType::U8 => StDtype::U8,
        DType::Bool => StDtype::BOOL,
        // Entries hold complex tensors as their real view (see `to_bytes`).
        DType::C64 => StDtype::F32,
        DType::C128 => StDtype::F64,
    }
}

fn our_dtype(d: StDtype) -> Option<DType> {
    Some(match d {
        StDtype::F32 => DType::F32,
        StDtype::F64 => DType::F64,
        StDtype::F16 => DType::F16,
        StDtype::BF16 => DType::BF16,
        StDtype::I64 => DType::I64,
        StDtype::I32 => DType::I32,
        StDtype::I16 => DType::I16,
        StDtype::I8 => DType::I8,
        StDtype::U8 => DType::U8,
        StDtype::BOOL => DType::Bool,
        _ => return None,
    })
}

/// A tensor as safetensors sees it: contiguous little-endian bytes.
struct Entry {
    t: Tensor,
}

impl View for &Entry {
    fn dtype(&self) -> StDtype {
        st_dtype(self.t.dtype())
    }
    fn shape(&self) -> &[usize] {
        self.t.shape()
    }
    fn data(&self) -> Cow<'_, [u8]> {
        let n = self.t.numel() * self.t.dtype().size();
        Cow::Borrowed(unsafe {
            std::slice::from_raw_parts(
                self.t
                    .storage()
                    .ptr()
                    .add(self.t.offset() * self.t.dtype().size()),
                n,
            )
        })
    }
    fn data_len(&self) -> usize {
        self.t.numel() * self.t.dtype().size()
    }
}

/// Serializes named tensors (any layout) and string metadata to safetensors bytes.
/// safetensors has no complex dtype: a complex tensor is stored as its real view
/// (`view_as_real`, a trailing dim of 2), which `view_as_complex` turns back.
pub fn to_bytes(
    tensors: &[(String, Tensor)],
    metadata: HashMap<String, String>,
) -> Result<Vec<u8>> {
    let entries: Vec<(String, Entry)> = tensors
        .iter()
        .map(|(n, t)| {
            let t = if t.dtype().is_complex() {
                t.real_alias()
            } else {
                t.detach()
            };
            let t = if t.is_contiguous() {
                t
            } else {
                t.contiguous_copy()?
            };
            Ok((n.clone(), Entry { t }))
        })
        .collect::<Result<_>>()?;
    let meta = if metadata.is_empty() {
        None
    } else {
        Some(metadata)
    };
    safetensors::tensor::serialize(entries.iter().map(|(n, e)| (n.as_str(), e)), meta)
        .map_err(|e| Error::runtime(format!("save: could not serialize tensors: {e}")))
}

/// Parses safetensors bytes into named tensors (in file order) and the metadata.
pub fn from_bytes(bytes: &[u8], what: &str) -> Result<Loaded> {
    let bad = |e: String| {
        Error::runtime(format!(
            "load: {what} is truncated or is not a valid safetensors file ({e})"
        ))
    };
    let (_, meta) = SafeTensors::read_metadata(bytes).map_err(|e| bad(e.to_string()))?;
    let st = SafeTensors::deserialize(bytes).map_err(|e| bad(e.to_string()))?;
    let mut out = Vec::new();
    let mut names: Vec<(usize, String)> = meta
        .tensors()
        .iter()
        .map(|(n, info)| (info.data_offsets.0, n.clone()))
        .collect();
    names.sort();
    for (_, name) in names {
        let view = st.tensor(&name).map_err(|e| bad(e.to_string()))?;
        let dt = our_dtype(view.dtype()).ok_or_else(|| {
            bad(format!(
                "tensor '{name}' has unsupported dtype {:?}",
                view.dtype()
            ))
        })?;
        let data = view.data();
        let t = Tensor::zeros(view.shape(), dt)?;
        if data.len() != t.numel() * dt.size() {
            return Err(bad(format!(
                "tensor '{name}' has {} bytes for shape {:?}",
                data.len(),
                view.shape()
            )));
        }
        with_dtype!(dt, T => {
            let dst: &mut [T] = unsafe { t.contiguous_slice_mut() };
            copy_le_bytes::<T>(data, dst);
        });
        out.push((name, t));
    }
    Ok((out, meta.metadata().clone().unwrap_or_default()))
}

fn copy_le_bytes<T: Element>(src: &[u8], dst: &mut [T]) {
    // Bool bytes other than 0/1 are not valid Rust bools: normalize them.
    if T::DTYPE == DType::Bool {
        for (d, &b) in dst.iter_mut().zip(src) {
            *d = T::from_i64((b != 0) as i64);
        }
        return;
    }
    unsafe { std::ptr::copy_nonoverlapping(src.as_ptr(), dst.as_mut_ptr() as *mut u8, src.len()) };
}

/// Writes `bytes` to `path` so that a crash never leaves a half-written file in its place.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let io =
        |e: std::io::Error| Error::runtime(format!("save: cannot write {}: {e}", path.display()));
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .ok_or_else(|| Error::value(format!("save: {} is not a file path", path.display())))?;
    let tmp = dir.join(format!(
        ".{}.tmp-{}",
        name.to_string_lossy(),
        std::process::id()
    ));
    let result = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)?;
        // Persist the rename itself.
        if let Ok(d) = std::fs::File::open(dir) {
            let _ = d.sync_all();
        }
        Ok(())
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result.map_err(io)
}

/// Saves named tensors to a safetensors file, atomically.
pub fn save_file(
    path: &Path,
    tensors: &[(String, Tensor)],
    metadata: HashMap<String, String>,
) -> Result<()> {
    write_atomic(path, &to_bytes(tensors, metadata)?)
}

/// Loads a safetensors file.
pub fn load_file(path: &Path) -> Result<Loaded> {
    let bytes = std::fs::read(path)
        .map_err(|e| Error::runtime(format!("load: cannot read {}: {e}", path.display())))?;
    from_bytes(&bytes, &path.display().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_truncation() {
        let a = Tensor::from_vec(vec![1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3])
            .unwrap()
            .t()
            .unwrap();
        let b = Tensor::from_vec(vec![true, false], &[2]).unwrap();
        let bytes = to_bytes(&[("a".into(), a.clone()), ("b".into(), b)], HashMap::new()).unwrap();
        let (ts, _) = from_bytes(&bytes, "mem").unwrap();
        let a2 = &ts.iter().find(|(n, _)| n == "a").unwrap().1;
        assert_eq!(a2.shape(), &[3, 2]);
        assert_eq!(a2.to_vec::<f32>(), a.to_vec::<f32>());
        let err = from_bytes(&bytes[..bytes.len() - 3], "mem").unwrap_err();
        assert!(matches!(err, Error::Runtime(m) if m.contains("truncated")));
    }
}
