//! Arithmetic operators on tensors (`&a + &b`, `&x * 2.0`, `-&x`), with broadcasting and
//! autograd, as Python's operators on `torch.Tensor`.
//!
//! Like `ndarray` and `tch`, an operator has no way to return an error, so it panics when the
//! shapes do not broadcast; in code that must not panic, call the fallible methods
//! ([`Tensor::add`], [`Tensor::mul_scalar`], ...) with `?` instead.
#![warn(missing_docs)]

use crate::ops::BinaryOp;
use crate::{Scalar, Tensor};
use std::ops::{Add, Div, Mul, Neg, Sub};

fn or_panic(r: crate::Result<Tensor>, op: &str) -> Tensor {
    r.unwrap_or_else(|e| panic!("tensor {op}: {e}"))
}

macro_rules! tensor_operator {
    ($Trait:ident, $method:ident, $op:expr, $sym:literal) => {
        impl $Trait<&Tensor> for &Tensor {
            type Output = Tensor;
            /// Elementwise with broadcasting; panics if the shapes do not broadcast.
            fn $method(self, rhs: &Tensor) -> Tensor {
                or_panic(self.binary($op, rhs), $sym)
            }
        }
        impl $Trait<Tensor> for &Tensor {
            type Output = Tensor;
            /// Elementwise with broadcasting; panics if the shapes do not broadcast.
            fn $method(self, rhs: Tensor) -> Tensor {
                $Trait::$method(self, &rhs)
            }
        }
        impl $Trait<&Tensor> for Tensor {
            type Output = Tensor;
            /// Elementwise with broadcasting; panics if the shapes do not broadcast.
            fn $method(self, rhs: &Tensor) -> Tensor {
                $Trait::$method(&self, rhs)
            }
        }
        impl $Trait<Tensor> for Tensor {
            type Output = Tensor;
            /// Elementwise with broadcasting; panics if the shapes do not broadcast.
            fn $method(self, rhs: Tensor) -> Tensor {
                $Trait::$method(&self, &rhs)
            }
        }
        impl $Trait<f64> for &Tensor {
            type Output = Tensor;
            /// With a Python-style scalar: the tensor's dtype wins, as in PyTorch.
            fn $method(self, rhs: f64) -> Tensor {
                or_panic(self.binary_scalar($op, Scalar::Float(rhs)), $sym)
            }
        }
        impl $Trait<f64> for Tensor {
            type Output = Tensor;
            /// With a Python-style scalar: the tensor's dtype wins, as in PyTorch.
            fn $method(self, rhs: f64) -> Tensor {
                $Trait::$method(&self, rhs)
            }
        }
        impl $Trait<&Tensor> for f64 {
            type Output = Tensor;
            /// With a Python-style scalar on the left: the tensor's dtype wins, as in PyTorch.
            fn $method(self, rhs: &Tensor) -> Tensor {
                or_panic(rhs.rbinary_scalar($op, Scalar::Float(self)), $sym)
            }
        }
        impl $Trait<Tensor> for f64 {
            type Output = Tensor;
            /// With a Python-style scalar on the left: the tensor's dtype wins, as in PyTorch.
            fn $method(self, rhs: Tensor) -> Tensor {
                $Trait::$method(self, &rhs)
            }
        }
    };
}

tensor_operator!(Add, add, BinaryOp::Add, "+");
tensor_operator!(Sub, sub, BinaryOp::Sub, "-");
tensor_operator!(Mul, mul, BinaryOp::Mul, "*");
tensor_operator!(Div, div, BinaryOp::Div, "/");

impl Neg for &Tensor {
    type Output = Tensor;
    /// `-x`; panics for bool tensors, as PyTorch raises for them.
    fn neg(self) -> Tensor {
        or_panic(Tensor::neg(self), "negation")
    }
}

impl Neg for Tensor {
    type Output = Tensor;
    /// `-x`; panics for bool tensors, as PyTorch raises for them.
    fn neg(self) -> Tensor {
        -&self
    }
}

#[cfg(test)]
mod tests {
    use crate::Tensor;

    fn t(v: &[f32], shape: &[usize]) -> Tensor {
        Tensor::from_vec(v.to_vec(), shape).unwrap()
    }

    #[test]
    fn operators_broadcast_and_match_the_methods() {
        let a = t(&[1.0, 2.0, 3.0, 4.0], &[2, 2]);
        let b = t(&[10.0, 20.0], &[2]);
        assert_eq!((&a + &b).to_vec::<f32>(), vec![11.0, 22.0, 13.0, 24.0]);
        assert_eq!((&a - &b).to_vec::<f32>(), vec![-9.0, -18.0, -7.0, -16.0]);
        assert_eq!((&a * &b).to_vec::<f32>(), vec![10.0, 40.0, 30.0, 80.0]);
        assert_eq!((&b / &a).to_vec::<f32>(), vec![10.0, 10.0, 10.0 / 3.0, 5.0]);
        assert_eq!((&a * 2.0).to_vec::<f32>(), vec![2.0, 4.0, 6.0, 8.0]);
        assert_eq!((1.0 - &a).to_vec::<f32>(), vec![0.0, -1.0, -2.0, -3.0]);
        assert_eq!((8.0 / &a).to_vec::<f32>(), vec![8.0, 4.0, 8.0 / 3.0, 2.0]);
        assert_eq!((-&b).to_vec::<f32>(), vec![-10.0, -20.0]);
        assert_eq!(
            (a.clone() + b.clone() + 1.0).to_vec::<f32>(),
            vec![12.0, 23.0, 14.0, 25.0]
        );
        // A scalar keeps the tensor's dtype, as in PyTorch.
        let i = Tensor::from_vec(vec![1i64, 2], &[2]).unwrap();
        assert_eq!((&i + 1.0).dtype(), crate::DType::F32);
        assert_eq!((&a * 2.0).dtype(), crate::DType::F32);
    }

    #[test]
    #[should_panic(expected = "tensor +")]
    fn mismatched_shapes_panic_with_the_op_error() {
        let _ = &t(&[1.0, 2.0, 3.0], &[3]) + &t(&[1.0, 2.0], &[2]);
    }
}
