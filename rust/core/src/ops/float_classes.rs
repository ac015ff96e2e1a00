//! Float classification (isnan, isinf, isfinite, isposinf, isneginf) and `nan_to_num`.

use crate::autograd::record;
use crate::{bail, with_dtype, DType, Device, Element, Result, Scalar, Tensor};

fn f(v: f64) -> Scalar {
    Scalar::Float(v)
}

impl Tensor {
    fn float_test(&self, op: &str, test: fn(f64) -> bool) -> Result<Tensor> {
        if self.device() != Device::Cpu && !self.dtype().is_complex() {
            return self.float_test_by_comparison(op);
        }
        let out = Tensor::zeros(self.shape(), DType::Bool)?;
        if self.dtype().is_float() {
            let v = self.try_to_vec::<f64>()?;
            let o: &mut [bool] = unsafe { out.contiguous_slice_mut() };
            for (o, &x) in o.iter_mut().zip(&v) {
                *o = test(x);
            }
        } else if self.dtype().is_complex() {
            // A complex value is NaN (inf) when either part is, finite when both are.
            let (re, im) = (
                self.real()?.try_to_vec::<f64>()?,
                self.imag()?.try_to_vec::<f64>()?,
            );
            let o: &mut [bool] = unsafe { out.contiguous_slice_mut() };
            for ((o, &r), &i) in o.iter_mut().zip(&re).zip(&im) {
                *o = if op == "isfinite" {
                    test(r) && test(i)
                } else {
                    test(r) || test(i)
                };
            }
        } else if op == "isfinite" {
            return Tensor::full(self.shape(), Scalar::Bool(true), DType::Bool);
        }
        Ok(out)
    }

    /// The tests as comparisons, which run wherever the tensor lives (a GPU has no host
    /// loop): NaN alone differs from itself, and |x| < inf is false for NaN and infinities.
    fn float_test_by_comparison(&self, op: &str) -> Result<Tensor> {
        use crate::ops::BinaryOp::{Eq, Lt, Ne};
        let x = self.detach();
        if !x.dtype().is_float() {
            // Integers and bools are always finite and never NaN or infinite.
            return x.binary(if op == "isfinite" { Eq } else { Ne }, &x);
        }
        let inf = f(f64::INFINITY);
        match op {
            "isnan" => x.binary(Ne, &x),
            "isinf" => x.abs()?.binary_scalar(Eq, inf),
            "isfinite" => x.abs()?.binary_scalar(Lt, inf),
            "isposinf" => x.binary_scalar(Eq, inf),
            _ => x.binary_scalar(Eq, f(f64::NEG_INFINITY)),
        }
    }

    pub fn isnan(&self) -> Result<Tensor> {
        self.float_test("isnan", f64::is_nan)
    }
    pub fn isinf(&self) -> Result<Tensor> {
        self.float_test("isinf", f64::is_infinite)
    }
    pub fn isfinite(&self) -> Result<Tensor> {
        self.float_test("isfinite", f64::is_finite)
    }
    pub fn isposinf(&self) -> Result<Tensor> {
        self.refuse_complex_inf_test("isposinf")?;
        self.float_test("isposinf", |x| x == f64::INFINITY)
    }
    pub fn isneginf(&self) -> Result<Tensor> {
        self.refuse_complex_inf_test("isneginf")?;
        self.float_test("isneginf", |x| x == f64::NEG_INFINITY)
    }

    /// `nan_to_num(nan, posinf, neginf)`; infinities default to the dtype's finite extremes.
    pub fn nan_to_num(&self, nan: f64, posinf: Option<f64>, neginf: Option<f64>) -> Result<Tensor> {
        if self.dtype().is_complex() {
            // Each part replaced on its own, with the part type's extremes (as PyTorch).
            let re = self.real()?.nan_to_num(nan, posinf, neginf)?;
            return Tensor::complex(&re, &self.imag()?.nan_to_num(nan, posinf, neginf)?);
        }
        if !self.dtype().is_float() {
            return self.clone_tensor();
        }
        let (big, small) = with_dtype!(self.dtype(), T => (max_of::<T>(), -max_of::<T>()));
        let (pi, ni) = (posinf.unwrap_or(big), neginf.unwrap_or(small));
        let x = self.detach();
        let mut out = x
            .isnan()?
            .where_(&Tensor::scalar(f(nan), self.dtype()), &x)?;
        out = out
            .isposinf()?
            .where_(&Tensor::scalar(f(pi), self.dtype()), &out)?;
        out = out
            .isneginf()?
            .where_(&Tensor::scalar(f(ni), self.dtype()), &out)?;
        let keep = self.isfinite()?;
        Ok(record(
            "NanToNumBackward0",
            out,
            &[self],
            &[],
            false,
            move |g, _| Ok(vec![Some(keep.where_(g, &Tensor::zeros(&[], g.dtype())?)?)]),
        ))
    }

    /// A signed infinity has no meaning for a complex number (PyTorch: TypeError).
    fn refuse_complex_inf_test(&self, op: &str) -> Result<()> {
        if self.dtype().is_complex() {
            bail!(Type, "{op} does not support complex inputs.");
        }
        Ok(())
    }
}

fn max_of<T: Element>() -> f64 {
    match T::DTYPE {
        DType::F32 => f32::MAX as f64,
        DType::F16 => 65504.0,
        DType::BF16 => half::bf16::MAX.to_f64(),
        _ => f64::MAX,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The comparison forms (the GPU's route) agree with the host loops on every test, on
    /// floats with NaN and both infinities, on integers and on bools.
    #[test]
    fn comparisons_classify_as_the_host_loops() {
        let specials = [0.0, -1.5, f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 3e38];
        let mut inputs = vec![];
        for dt in [DType::F32, DType::F64, DType::F16, DType::BF16] {
            inputs.push(
                Tensor::from_vec(specials.to_vec(), &[6])
                    .unwrap()
                    .to_dtype(dt)
                    .unwrap(),
            );
        }
        inputs.push(Tensor::from_vec(vec![0i64, -3, 7], &[3]).unwrap());
        inputs.push(Tensor::from_vec(vec![true, false], &[2]).unwrap());
        type Test = fn(f64) -> bool;
        let tests: [(&str, Test); 5] = [
            ("isnan", f64::is_nan),
            ("isinf", f64::is_infinite),
            ("isfinite", f64::is_finite),
            ("isposinf", |x| x == f64::INFINITY),
            ("isneginf", |x| x == f64::NEG_INFINITY),
        ];
        for x in &inputs {
            for (op, test) in tests {
                let host = x.float_test(op, test).unwrap().to_vec::<bool>();
                let cmp = x.float_test_by_comparison(op).unwrap();
                assert_eq!(cmp.dtype(), DType::Bool, "{op} {:?}", x.dtype());
                assert_eq!(cmp.to_vec::<bool>(), host, "{op} {:?}", x.dtype());
            }
        }
    }
}
