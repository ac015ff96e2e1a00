//! Autograd engine tests through the public Rust API (no Python).

use ferrotorch::autograd::{backward, grad};
use ferrotorch::{DType, Error, Scalar, Tensor};

fn leaf(v: Vec<f64>, shape: &[usize]) -> Tensor {
    let t = Tensor::from_vec(v, shape).unwrap();
    t.set_requires_grad(true).unwrap();
    t
}

fn one() -> Tensor {
    Tensor::ones(&[], DType::F64).unwrap()
}

#[test]
fn product_rule_and_accumulation() {
    let x = leaf(vec![1.0, 2.0, 3.0], &[3]);
    let y = x.mul(&x).unwrap().sum_all().unwrap();
    backward(&[y], &[one()], false, false).unwrap();
    let z = x.mul_scalar(Scalar::Float(3.0)).unwrap().sum_all().unwrap();
    backward(&[z], &[one()], false, false).unwrap();
    assert_eq!(x.grad().unwrap().to_vec::<f64>(), vec![5.0, 7.0, 9.0]);
}

#[test]
fn broadcast_gradient_is_summed_to_input_shape() {
    let a = leaf(vec![1.0; 6], &[2, 3]);
    let b = leaf(vec![1.0, 2.0, 3.0], &[3]);
    let y = a.mul(&b).unwrap().sum_all().unwrap();
    backward(&[y], &[one()], false, false).unwrap();
    assert_eq!(b.grad().unwrap().to_vec::<f64>(), vec![2.0, 2.0, 2.0]);
    assert_eq!(a.grad().unwrap().shape(), &[2, 3]);
}

#[test]
fn freed_graph_and_version_errors() {
    let x = leaf(vec![1.0, 2.0], &[2]);
    let y = x.exp().unwrap().sum_all().unwrap();
    backward(std::slice::from_ref(&y), &[one()], false, false).unwrap();
    let again = backward(&[y], &[one()], false, false).unwrap_err();
    assert!(matches!(again, Error::Runtime(m) if m.contains("second time")));

    let h = x.mul_scalar(Scalar::Float(1.0)).unwrap();
    let e = h.exp().unwrap().sum_all().unwrap();
    h.binary_(
        ferrotorch::ops::BinaryOp::Mul,
        &Tensor::scalar(Scalar::Float(2.0), DType::F64),
    )
    .unwrap();
    let err = backward(&[e], &[one()], false, false).unwrap_err();
    assert!(matches!(err, Error::Runtime(m) if m.contains("is at version 1; expected version 0")));
}

#[test]
fn views_route_gradients_to_the_right_elements() {
    let x = leaf((0..6).map(|v| v as f64).collect(), &[2, 3]);
    let v = x
        .transpose(0, 1)
        .unwrap()
        .narrow(0, 1, 2)
        .unwrap()
        .select(1, 1)
        .unwrap();
    assert_eq!(v.to_vec::<f64>(), vec![4.0, 5.0]);
    backward(&[v.sum_all().unwrap()], &[one()], false, false).unwrap();
    assert_eq!(
        x.grad().unwrap().to_vec::<f64>(),
        vec![0.0, 0.0, 0.0, 0.0, 1.0, 1.0]
    );
}

#[test]
fn second_order_gradient_with_create_graph() {
    let x = leaf(vec![2.0], &[1]);
    let y = x.pow_scalar(Scalar::Float(3.0)).unwrap().sum_all().unwrap();
    let g = grad(&[y], &[one()], std::slice::from_ref(&x), false, true, false).unwrap();
    let g = g[0].clone().unwrap();
    assert_eq!(g.to_vec::<f64>(), vec![12.0]);
    let g2 = grad(&[g.sum_all().unwrap()], &[one()], &[x], false, false, false).unwrap();
    assert_eq!(g2[0].as_ref().unwrap().to_vec::<f64>(), vec![12.0]);
}

#[test]
fn matmul_gradient_matches_formula() {
    let a = leaf(vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3]);
    let b = leaf(vec![1.0, 0.0, 0.0, 1.0, 1.0, 1.0], &[3, 2]);
    let y = a.matmul(&b).unwrap().sum_all().unwrap();
    backward(&[y], &[one()], false, false).unwrap();
    // d/dA sum(AB) = 1 B^T: each row is the row sums of B.
    assert_eq!(
        a.grad().unwrap().to_vec::<f64>(),
        vec![1.0, 1.0, 2.0, 1.0, 1.0, 2.0]
    );
    // d/dB sum(AB) = A^T 1: each row is a column sum of A.
    assert_eq!(
        b.grad().unwrap().to_vec::<f64>(),
        vec![5.0, 5.0, 7.0, 7.0, 9.0, 9.0]
    );
}

#[test]
fn bad_shapes_are_errors_not_panics() {
    let a = Tensor::zeros(&[2, 3], DType::F32).unwrap();
    let b = Tensor::zeros(&[4, 5], DType::F32).unwrap();
    let e = a.matmul(&b).unwrap_err();
    assert_eq!(
        e,
        Error::Runtime("matmul: mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)".into())
    );
    assert!(matches!(
        a.add(&Tensor::zeros(&[4], DType::F32).unwrap()),
        Err(Error::Runtime(_))
    ));
    assert!(matches!(a.select(0, 5), Err(Error::Index(_))));
    assert!(matches!(a.reshape(&[7]), Err(Error::Runtime(_))));
    assert!(matches!(a.sum_dims(&[3], false), Err(Error::Index(_))));
}

#[test]
fn storage_is_freed_with_the_last_view() {
    let t = Tensor::zeros(&[1000], DType::F32).unwrap();
    let s = t.storage().clone();
    let v = t.narrow(0, 10, 5).unwrap();
    assert_eq!(s.ref_count(), 3);
    drop(t);
    drop(v);
    assert_eq!(s.ref_count(), 1);
}
