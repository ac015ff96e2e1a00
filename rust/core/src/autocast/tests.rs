use super::*;

fn t(dtype: DType) -> Tensor {
    Tensor::zeros(&[2, 2], dtype).unwrap()
}

/// Runs `f` with CPU autocast on in `dtype`, then restores the thread's state.
fn with_cpu_autocast(dtype: DType, f: impl FnOnce()) {
    set_enabled(DeviceType::Cpu, true);
    set_dtype(DeviceType::Cpu, dtype);
    increment_nesting();
    f();
    if decrement_nesting() == 0 {
        clear_cache();
    }
    set_enabled(DeviceType::Cpu, false);
    set_dtype(DeviceType::Cpu, DType::BF16);
}

fn dtypes(v: Option<Vec<Tensor>>) -> Vec<DType> {
    v.expect("autocast applies")
        .iter()
        .map(|t| t.dtype())
        .collect()
}

#[test]
fn off_by_default_and_leaves_inputs_alone() {
    assert!(!is_active());
    assert_eq!(dtype(DeviceType::Cpu), DType::BF16);
    assert_eq!(dtype(DeviceType::Cuda), DType::F16);
    assert!(cast_inputs("mm", &[&t(DType::F32), &t(DType::F32)])
        .unwrap()
        .is_none());
}

#[test]
fn lower_precision_fp32_and_unlisted_ops() {
    with_cpu_autocast(DType::BF16, || {
        let (a, b) = (t(DType::F32), t(DType::F16));
        let mm = cast_inputs("mm", &[&a, &b]).unwrap();
        assert_eq!(dtypes(mm), [DType::BF16, DType::BF16]);
        let loss = cast_inputs("mse_loss", &[&t(DType::BF16), &a]).unwrap();
        assert_eq!(dtypes(loss), [DType::F32, DType::F32]);
        assert!(cast_inputs("relu", &[&a]).unwrap().is_none());
        // float64 and integer inputs are never cast.
        let mixed = cast_inputs("mm", &[&t(DType::F64), &t(DType::I64)]).unwrap();
        assert_eq!(dtypes(mixed), [DType::F64, DType::I64]);
    });
}

#[test]
fn promote_picks_the_widest_eligible_dtype() {
    with_cpu_autocast(DType::BF16, || {
        let cat = cast_inputs("cat", &[&t(DType::BF16), &t(DType::F32)]).unwrap();
        assert_eq!(dtypes(cat), [DType::F32, DType::F32]);
        let low = cast_inputs("cat", &[&t(DType::BF16), &t(DType::F64)]).unwrap();
        assert_eq!(dtypes(low), [DType::BF16, DType::F64]);
        assert!(cast_inputs("cat", &[&t(DType::BF16), &t(DType::F16)]).is_err());
    });
}

#[test]
fn weights_are_cast_once_per_region() {
    let w = t(DType::F32);
    w.set_requires_grad(true).unwrap();
    let x = t(DType::F32);
    with_cpu_autocast(DType::BF16, || {
        let first = cast_inputs("mm", &[&x, &w]).unwrap().unwrap();
        let again = cast_inputs("mm", &[&x, &w]).unwrap().unwrap();
        assert!(first[1].same(&again[1]), "leaf weight cast is cached");
        assert!(
            !first[0].same(&again[0]),
            "non-leaf inputs are cast each time"
        );
        let under_no_grad = {
            let _g = crate::autograd::GradModeGuard::new(false);
            cast_inputs("mm", &[&x, &w]).unwrap().unwrap()
        };
        assert!(under_no_grad[1].same(&first[1]));
    });
    with_cpu_autocast(DType::BF16, || {
        let cast = {
            let _g = crate::autograd::GradModeGuard::new(false);
            cast_inputs("mm", &[&x, &w]).unwrap().unwrap()
        };
        assert!(
            cast[1].requires_grad(),
            "cast made under no_grad still links to the weight"
        );
    });
}

#[test]
fn suspend_guard_turns_every_device_off_and_back() {
    with_cpu_autocast(DType::F16, || {
        {
            let _s = SuspendGuard::new();
            assert!(!is_active());
        }
        assert!(is_enabled(DeviceType::Cpu));
        let r = cast_inputs("linear", &[&t(DType::F32)]).unwrap();
        assert_eq!(dtypes(r), [DType::F16]);
    });
}

#[test]
fn cuda_policy_only_for_cuda_tensors() {
    set_enabled(DeviceType::Cuda, true);
    // CPU tensors dispatch to the CPU state, which is off.
    assert!(cast_inputs("mm", &[&t(DType::F32)]).unwrap().is_none());
    set_enabled(DeviceType::Cuda, false);
    assert_eq!(
        policy("softmax", DeviceType::Cuda),
        Some(CastPolicy::Fp32FirstArg)
    );
    assert_eq!(policy("softmax", DeviceType::Cpu), None);
    assert!(matches!(
        policy("binary_cross_entropy", DeviceType::Cuda),
        Some(CastPolicy::Banned(_))
    ));
}
