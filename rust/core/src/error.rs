//! The one error type of the core. Each variant maps to the Python exception PyTorch raises.

/// An error from a tensor operation; the message names the op and the shapes involved.
#[derive(Debug, Clone, thiserror::Error, PartialEq)]
pub enum Error {
    /// Bad shapes, freed graphs, in-place conflicts: `RuntimeError` in Python.
    #[error("{0}")]
    Runtime(String),
    /// An argument of the wrong kind (a float where an int tensor is needed): `TypeError`.
    #[error("{0}")]
    Type(String),
    /// A value out of its domain (a negative size, an unknown option): `ValueError`.
    #[error("{0}")]
    Value(String),
    /// An index or dimension out of range: `IndexError`.
    #[error("{0}")]
    Index(String),
    /// A singular or indefinite matrix in a factorization: `torch.linalg.LinAlgError`.
    #[error("{0}")]
    LinAlg(String),
    /// A dtype an op has no kernel for (complex inputs, integers in linalg):
    /// `NotImplementedError`, a subclass of `RuntimeError`, as PyTorch raises.
    #[error("{0}")]
    NotImplemented(String),
    /// An allocation the allocator (or the machine) cannot satisfy: `torch.OutOfMemoryError`.
    /// `op` is the operation that asked, when known, so the message says who wanted the bytes.
    #[error("{}DefaultCPUAllocator: can't allocate memory: you tried to allocate {nbytes} bytes.", op_prefix(.op))]
    OutOfMemory { op: Option<String>, nbytes: usize },
    /// A device allocation the caching allocator could not satisfy even after freeing its
    /// cache: `torch.cuda.OutOfMemoryError` (the same class as `torch.OutOfMemoryError`).
    #[error("CUDA out of memory. {0}")]
    DeviceOutOfMemory(String),
}

fn op_prefix(op: &Option<String>) -> String {
    op.as_ref().map(|o| format!("{o}: ")).unwrap_or_default()
}

pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    pub fn runtime(msg: impl Into<String>) -> Error {
        Error::Runtime(msg.into())
    }
    pub fn type_error(msg: impl Into<String>) -> Error {
        Error::Type(msg.into())
    }
    pub fn value(msg: impl Into<String>) -> Error {
        Error::Value(msg.into())
    }
    pub fn index(msg: impl Into<String>) -> Error {
        Error::Index(msg.into())
    }
    /// PyTorch's error for an op with no kernel for a (complex) dtype:
    /// `"max_all" not implemented for 'ComplexFloat'`.
    pub fn complex_unsupported(op: &str, dt: crate::DType) -> Error {
        Error::NotImplemented(format!(
            "\"{op}\" not implemented for '{}'",
            dt.scalar_type_name()
        ))
    }
    pub fn out_of_memory(nbytes: usize) -> Error {
        Error::OutOfMemory { op: None, nbytes }
    }
    /// Names `op` in an out-of-memory error that does not name one yet; other errors pass.
    pub fn in_op(self, op: &str) -> Error {
        match self {
            Error::OutOfMemory { op: None, nbytes } => Error::OutOfMemory {
                op: Some(op.to_string()),
                nbytes,
            },
            e => e,
        }
    }
}

/// Names the op in an out-of-memory error: `Tensor::zeros(..).op("randint")?`.
pub trait InOp<T> {
    fn op(self, op: &str) -> Result<T>;
}

impl<T> InOp<T> for Result<T> {
    fn op(self, op: &str) -> Result<T> {
        self.map_err(|e| e.in_op(op))
    }
}

/// `[2, 3]` as PyTorch prints shapes in messages.
pub fn fmt_shape(shape: &[usize]) -> String {
    let parts: Vec<String> = shape.iter().map(|d| d.to_string()).collect();
    format!("[{}]", parts.join(", "))
}

/// Early-return helper: `bail!(Runtime, "op: ...")`.
#[macro_export]
macro_rules! bail {
    ($kind:ident, $($arg:tt)*) => {
        return Err($crate::Error::$kind(format!($($arg)*)))
    };
}
