//! Element types, their promotion rules (PyTorch's), and the per-type element trait.

use half::{bf16, f16};
use std::fmt::Debug;

/// The element type of a tensor.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum DType {
    F32,
    F64,
    F16,
    BF16,
    I64,
    I32,
    I16,
    I8,
    U8,
    Bool,
    /// complex64: interleaved (re, im) float32 pairs.
    C64,
    /// complex128: interleaved (re, im) float64 pairs.
    C128,
}

/// Coarse kind used by type promotion: bool < integer < floating point < complex.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Category {
    Bool,
    Int,
    Float,
    Complex,
}

impl DType {
    pub const ALL: [DType; 12] = [
        DType::F32,
        DType::F64,
        DType::F16,
        DType::BF16,
        DType::I64,
        DType::I32,
        DType::I16,
        DType::I8,
        DType::U8,
        DType::Bool,
        DType::C64,
        DType::C128,
    ];

    /// The dtypes with a Rust `Element` type (every dtype but the complex ones): the ones
    /// `with_dtype!` dispatches over.
    pub const REAL: [DType; 10] = [
        DType::F32,
        DType::F64,
        DType::F16,
        DType::BF16,
        DType::I64,
        DType::I32,
        DType::I16,
        DType::I8,
        DType::U8,
        DType::Bool,
    ];

    pub fn size(self) -> usize {
        match self {
            DType::C128 => 16,
            DType::F64 | DType::I64 | DType::C64 => 8,
            DType::F32 | DType::I32 => 4,
            DType::F16 | DType::BF16 | DType::I16 => 2,
            DType::I8 | DType::U8 | DType::Bool => 1,
        }
    }

    pub fn category(self) -> Category {
        match self {
            DType::Bool => Category::Bool,
            DType::F32 | DType::F64 | DType::F16 | DType::BF16 => Category::Float,
            DType::C64 | DType::C128 => Category::Complex,
            _ => Category::Int,
        }
    }

    pub fn is_float(self) -> bool {
        self.category() == Category::Float
    }

    pub fn is_complex(self) -> bool {
        matches!(self, DType::C64 | DType::C128)
    }

    /// Whether tensors of this dtype can require gradients (floating point or complex).
    pub fn is_differentiable(self) -> bool {
        self.is_float() || self.is_complex()
    }

    /// `dtype.to_real()`: the type of a complex dtype's parts; other dtypes map to themselves.
    pub fn to_real(self) -> DType {
        match self {
            DType::C64 => DType::F32,
            DType::C128 => DType::F64,
            d => d,
        }
    }

    /// `dtype.to_complex()`: the complex type whose parts have this floating type.
    /// float16 and bfloat16 map to complex64 (ferrotorch has no complex32).
    pub fn to_complex(self) -> Option<DType> {
        match self {
            DType::F64 | DType::C128 => Some(DType::C128),
            DType::F32 | DType::F16 | DType::BF16 | DType::C64 => Some(DType::C64),
            _ => None,
        }
    }

    /// PyTorch's ScalarType name, as its kernel errors print it (`not implemented for 'Long'`,
    /// `'ComplexFloat'`).
    pub fn scalar_type_name(self) -> &'static str {
        match self {
            DType::F32 => "Float",
            DType::F64 => "Double",
            DType::F16 => "Half",
            DType::BF16 => "BFloat16",
            DType::I64 => "Long",
            DType::I32 => "Int",
            DType::I16 => "Short",
            DType::I8 => "Char",
            DType::U8 => "Byte",
            DType::Bool => "Bool",
            DType::C64 => "ComplexFloat",
            DType::C128 => "ComplexDouble",
        }
    }

    /// PyTorch's name without the `torch.` prefix.
    pub fn name(self) -> &'static str {
        match self {
            DType::F32 => "float32",
            DType::F64 => "float64",
            DType::F16 => "float16",
            DType::BF16 => "bfloat16",
            DType::I64 => "int64",
            DType::I32 => "int32",
            DType::I16 => "int16",
            DType::I8 => "int8",
            DType::U8 => "uint8",
            DType::Bool => "bool",
            DType::C64 => "complex64",
            DType::C128 => "complex128",
        }
    }

    /// The legacy type name PyTorch prints in autograd errors (`torch.FloatTensor`).
    pub fn legacy_name(self) -> &'static str {
        match self {
            DType::F32 => "FloatTensor",
            DType::F64 => "DoubleTensor",
            DType::F16 => "HalfTensor",
            DType::BF16 => "BFloat16Tensor",
            DType::I64 => "LongTensor",
            DType::I32 => "IntTensor",
            DType::I16 => "ShortTensor",
            DType::I8 => "CharTensor",
            DType::U8 => "ByteTensor",
            DType::Bool => "BoolTensor",
            DType::C64 => "ComplexFloatTensor",
            DType::C128 => "ComplexDoubleTensor",
        }
    }

    pub fn from_name(name: &str) -> Option<DType> {
        DType::ALL.iter().copied().find(|d| d.name() == name)
    }

    /// The float type an integer input is computed in by float-valued ops (exp, mean, ...).
    pub fn to_float(self, default: DType) -> DType {
        if self.is_float() {
            self
        } else {
            default
        }
    }
}

fn int_rank(d: DType) -> (bool, usize) {
    (d == DType::U8, d.size())
}

/// `torch.promote_types`.
pub fn promote_types(a: DType, b: DType) -> DType {
    use DType::*;
    if a == b {
        return a;
    }
    match (a.category(), b.category()) {
        (ca, cb) if ca != cb => {
            let (hi, lo) = if ca > cb { (a, b) } else { (b, a) };
            if hi.is_complex() && lo.is_float() {
                // complex64 with float64 is complex128: the parts promote as floats do.
                promote_types(hi.to_real(), lo).to_complex().unwrap_or(hi)
            } else {
                hi
            }
        }
        (Category::Float, _) => match (a, b) {
            (F16, BF16) | (BF16, F16) => F32,
            _ => {
                if a.size() >= b.size() {
                    a
                } else {
                    b
                }
            }
        },
        (Category::Complex, _) => {
            if a.size() >= b.size() {
                a
            } else {
                b
            }
        }
        (Category::Int, _) => {
            let ((ua, sa), (ub, sb)) = (int_rank(a), int_rank(b));
            if ua || ub {
                // uint8 mixed with a signed type needs a signed type that holds 0..=255.
                let other = if ua { sb } else { sa };
                match other.max(2) {
                    2 => I16,
                    4 => I32,
                    _ => I64,
                }
            } else if sa >= sb {
                a
            } else {
                b
            }
        }
        _ => a,
    }
}

/// How an operand takes part in promotion: tensors with dimensions outrank 0-d tensors,
/// which outrank Python scalars, unless a lower rank brings a higher category.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Operand {
    Dim(DType),
    ZeroDim(DType),
    Scalar(Category),
}

/// A higher-ranked result met by a lower-ranked operand: the lower one counts only when it
/// brings a higher category; a complex one turns a float result into its complex type.
#[inline]
fn combine(higher: Option<DType>, lower: DType) -> DType {
    match higher {
        None => lower,
        Some(h) if h.category() >= lower.category() => h,
        Some(h) if h.is_float() && lower.is_complex() => h.to_complex().unwrap_or(lower),
        _ => lower,
    }
}

/// `torch.result_type` over a set of operands.
pub fn result_type(ops: &[Operand], default_float: DType) -> DType {
    let (mut dim, mut zero, mut scalar): (Option<DType>, Option<DType>, Option<Category>) =
        (None, None, None);
    for op in ops {
        match *op {
            Operand::Dim(d) => dim = Some(dim.map_or(d, |x| promote_types(x, d))),
            Operand::ZeroDim(d) => zero = Some(zero.map_or(d, |x| promote_types(x, d))),
            Operand::Scalar(c) => scalar = Some(scalar.map_or(c, |x| x.max(c))),
        }
    }
    let mut out = dim;
    if let Some(z) = zero {
        out = Some(combine(out, z));
    }
    if let Some(c) = scalar {
        out = Some(combine(out, default_of(c, default_float)));
    }
    out.unwrap_or(default_float)
}

/// The dtype a Python scalar of category `c` becomes on its own.
#[inline]
pub fn default_of(c: Category, default_float: DType) -> DType {
    match c {
        Category::Bool => DType::Bool,
        Category::Int => DType::I64,
        Category::Float => default_float,
        Category::Complex => default_float.to_complex().unwrap_or(DType::C64),
    }
}

/// A Rust type that can be stored in a tensor.
pub trait Element: Copy + Send + Sync + 'static + Debug + PartialOrd + Default {
    const DTYPE: DType;
    fn to_f64(self) -> f64;
    fn from_f64(v: f64) -> Self;
    fn to_i64(self) -> i64;
    fn from_i64(v: i64) -> Self;
}

macro_rules! int_element {
    ($t:ty, $d:ident) => {
        impl Element for $t {
            const DTYPE: DType = DType::$d;
            #[inline(always)]
            fn to_f64(self) -> f64 {
                self as f64
            }
            #[inline(always)]
            fn from_f64(v: f64) -> Self {
                // Float to int truncates toward zero, as C and PyTorch do; out of range saturates.
                v as i64 as $t
            }
            #[inline(always)]
            fn to_i64(self) -> i64 {
                self as i64
            }
            #[inline(always)]
            fn from_i64(v: i64) -> Self {
                v as $t
            }
        }
    };
}
int_element!(i64, I64);
int_element!(i32, I32);
int_element!(i16, I16);
int_element!(i8, I8);
int_element!(u8, U8);

macro_rules! float_element {
    ($t:ty, $d:ident) => {
        impl Element for $t {
            const DTYPE: DType = DType::$d;
            #[inline(always)]
            fn to_f64(self) -> f64 {
                self as f64
            }
            #[inline(always)]
            fn from_f64(v: f64) -> Self {
                v as $t
            }
            #[inline(always)]
            fn to_i64(self) -> i64 {
                self as i64
            }
            #[inline(always)]
            fn from_i64(v: i64) -> Self {
                v as $t
            }
        }
    };
}
float_element!(f32, F32);
float_element!(f64, F64);

macro_rules! half_element {
    ($t:ty, $d:ident) => {
        impl Element for $t {
            const DTYPE: DType = DType::$d;
            #[inline(always)]
            fn to_f64(self) -> f64 {
                self.to_f64()
            }
            // Through float32, as PyTorch's Half/BFloat16 constructors take a float: the
            // same double rounding (and `half`'s bf16::from_f64 misrounds above a tie).
            #[inline(always)]
            fn from_f64(v: f64) -> Self {
                <$t>::from_f32(v as f32)
            }
            #[inline(always)]
            fn to_i64(self) -> i64 {
                self.to_f32() as i64
            }
            #[inline(always)]
            fn from_i64(v: i64) -> Self {
                <$t>::from_f32(v as f32)
            }
        }
    };
}
half_element!(f16, F16);
half_element!(bf16, BF16);

impl Element for bool {
    const DTYPE: DType = DType::Bool;
    #[inline(always)]
    fn to_f64(self) -> f64 {
        self as u8 as f64
    }
    #[inline(always)]
    fn from_f64(v: f64) -> Self {
        v != 0.0
    }
    #[inline(always)]
    fn to_i64(self) -> i64 {
        self as i64
    }
    #[inline(always)]
    fn from_i64(v: i64) -> Self {
        v != 0
    }
}

/// Runs `$body` with `$T` bound to the Rust type of `$dt`. Complex dtypes have no `Element`
/// type: for them the enclosing function returns PyTorch's "not implemented for
/// 'ComplexFloat'" error, so a generic kernel never reads complex data as real; or, with
/// `else`, the given expression is the value for a complex dtype.
#[macro_export]
macro_rules! with_dtype {
    ($dt:expr, $T:ident => $body:expr) => {
        $crate::with_dtype!($dt, $T => $body, else {
            return Err($crate::Error::complex_unsupported("this operation", $dt).into())
        })
    };
    ($dt:expr, $T:ident => $body:expr, else $complex:expr) => {
        match $dt {
            $crate::DType::C64 | $crate::DType::C128 => $complex,
            $crate::DType::F32 => {
                type $T = f32;
                $body
            }
            $crate::DType::F64 => {
                type $T = f64;
                $body
            }
            $crate::DType::F16 => {
                type $T = half::f16;
                $body
            }
            $crate::DType::BF16 => {
                type $T = half::bf16;
                $body
            }
            $crate::DType::I64 => {
                type $T = i64;
                $body
            }
            $crate::DType::I32 => {
                type $T = i32;
                $body
            }
            $crate::DType::I16 => {
                type $T = i16;
                $body
            }
            $crate::DType::I8 => {
                type $T = i8;
                $body
            }
            $crate::DType::U8 => {
                type $T = u8;
                $body
            }
            $crate::DType::Bool => {
                type $T = bool;
                $body
            }
        }
    };
}

/// PyTorch's `can_cast`: whether an op may write a result of dtype `from` into a tensor of
/// dtype `to`; only a step down in category is refused (complex to real, float to integer,
/// anything to bool).
pub fn can_cast(from: DType, to: DType) -> bool {
    let (f, t) = (from.category(), to.category());
    !(f == Category::Complex && t != Category::Complex
        || f == Category::Float && t == Category::Int
        || f != Category::Bool && t == Category::Bool)
}

/// A Python-style scalar: the value of `item()` and the right operand of `t + 2`.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Scalar {
    Bool(bool),
    Int(i64),
    Float(f64),
    /// A Python complex number: (real, imaginary).
    Complex(f64, f64),
}

impl Scalar {
    pub fn category(self) -> Category {
        match self {
            Scalar::Bool(_) => Category::Bool,
            Scalar::Int(_) => Category::Int,
            Scalar::Float(_) => Category::Float,
            Scalar::Complex(..) => Category::Complex,
        }
    }
    pub fn to_f64(self) -> f64 {
        match self {
            Scalar::Bool(b) => b as u8 as f64,
            Scalar::Int(i) => i as f64,
            Scalar::Float(f) => f,
            // The real part, as a complex-to-real cast takes it.
            Scalar::Complex(re, _) => re,
        }
    }
    pub fn to_i64(self) -> i64 {
        match self {
            Scalar::Bool(b) => b as i64,
            Scalar::Int(i) => i,
            Scalar::Float(f) => f as i64,
            Scalar::Complex(re, _) => re as i64,
        }
    }
    /// The value as a complex number (real, imaginary).
    pub fn to_complex(self) -> (f64, f64) {
        match self {
            Scalar::Complex(re, im) => (re, im),
            s => (s.to_f64(), 0.0),
        }
    }
    /// The value as an element of type `T` (ints keep full precision).
    pub fn to_elem<T: Element>(self) -> T {
        match self {
            // A complex number is true when either part is nonzero.
            Scalar::Complex(re, im) if T::DTYPE == DType::Bool => {
                T::from_i64((re != 0.0 || im != 0.0) as i64)
            }
            Scalar::Float(f) => T::from_f64(f),
            _ if T::DTYPE.is_float() => T::from_f64(self.to_f64()),
            _ => T::from_i64(self.to_i64()),
        }
    }
    pub fn from_elem<T: Element>(v: T) -> Scalar {
        match T::DTYPE.category() {
            Category::Float => Scalar::Float(v.to_f64()),
            Category::Int => Scalar::Int(v.to_i64()),
            Category::Bool => Scalar::Bool(v.to_i64() != 0),
            Category::Complex => unreachable!("no Element type is complex"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn promotion_matches_pytorch() {
        use DType::*;
        assert_eq!(promote_types(U8, I8), I16);
        assert_eq!(promote_types(F16, BF16), F32);
        assert_eq!(promote_types(I64, F16), F16);
        assert_eq!(promote_types(Bool, I8), I8);
        let r = result_type(&[Operand::Dim(I32), Operand::Scalar(Category::Float)], F32);
        assert_eq!(r, F32);
        let r = result_type(&[Operand::Dim(I32), Operand::ZeroDim(I64)], F32);
        assert_eq!(r, I32);
        let r = result_type(&[Operand::Dim(F16), Operand::Scalar(Category::Float)], F32);
        assert_eq!(r, F16);
        let r = result_type(&[Operand::Dim(I64), Operand::ZeroDim(F64)], F32);
        assert_eq!(r, F64);
    }

    #[test]
    fn complex_promotion_matches_pytorch() {
        use DType::*;
        assert_eq!(promote_types(F64, C64), C128);
        assert_eq!(promote_types(F16, C64), C64);
        assert_eq!(promote_types(I64, C64), C64);
        assert_eq!(promote_types(C64, C128), C128);
        let complex = Operand::Scalar(Category::Complex);
        assert_eq!(result_type(&[Operand::Dim(F64), complex], F32), C128);
        assert_eq!(result_type(&[Operand::Dim(I32), complex], F32), C64);
        assert_eq!(result_type(&[Operand::Dim(I32), complex], F64), C128);
        assert_eq!(
            result_type(&[Operand::Dim(F32), Operand::ZeroDim(C128)], F32),
            C64
        );
        assert_eq!(
            result_type(&[Operand::Dim(I32), Operand::ZeroDim(C128)], F32),
            C128
        );
        assert_eq!(
            result_type(&[Operand::Dim(C64), Operand::ZeroDim(F64)], F32),
            C64
        );
    }
}
