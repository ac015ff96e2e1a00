"""Bad input raises the exception PyTorch raises, with a message naming the op and shapes;
nothing crashes the process."""

import pytest

import ferrotorch as torch

CASES = [
    # (callable, exception class, message regex)
    (lambda: torch.ones(2, 3) @ torch.ones(4, 5), RuntimeError, r"matmul: mat1 and mat2 shapes cannot be multiplied \(2x3 and 4x5\)"),
    (lambda: torch.ones(2, 3).matmul(torch.ones(2, 3, dtype=torch.float64)), RuntimeError, r"matmul: expected m1 and m2 to have the same dtype"),
    (lambda: torch.ones(3) @ torch.ones(4), RuntimeError, r"matmul: inconsistent tensor size"),
    (lambda: torch.ones(()) @ torch.ones(2), RuntimeError, r"matmul: both arguments to matmul need to be at least 1D"),
    (lambda: torch.ones(2, 3) + torch.ones(4), RuntimeError, r"add: The size of tensor a \(3\) must match the size of tensor b \(4\).*\[2, 3\] and \[4\]"),
    (lambda: torch.ones(2, 3).view(4), RuntimeError, r"view: shape '\[4\]' is invalid for input of size 6"),
    (lambda: torch.ones(2, 3).t().view(6), RuntimeError, r"view size is not compatible with input tensor's size and stride"),
    (lambda: torch.ones(2, 3).reshape(-1, -1), RuntimeError, r"reshape: only one dimension can be inferred"),
    (lambda: torch.ones(2, 3).sum(2), IndexError, r"sum: Dimension out of range \(expected to be in range of \[-2, 1\], but got 2\)"),
    (lambda: torch.ones(2, 3).transpose(0, 5), IndexError, r"transpose: Dimension out of range"),
    (lambda: torch.ones(2, 3).permute(0, 0), RuntimeError, r"permute\(\): duplicate dims"),
    (lambda: torch.ones(2, 3).select(0, 2), IndexError, r"select\(\): index 2 out of range for tensor of size \[2, 3\] at dimension 0"),
    (lambda: torch.ones(2, 3).narrow(1, 2, 5), RuntimeError, r"narrow: start \(2\) \+ length \(5\) exceeds dimension size \(3\)"),
    (lambda: torch.ones(2, 3).expand(4, 3, 2), RuntimeError, r"expand: The expanded size of the tensor"),
    (lambda: torch.ones(2, 3, 4).t(), RuntimeError, r"t\(\) expects a tensor with <= 2 dimensions, but self is 3D"),
    (lambda: torch.ones(2).item(), RuntimeError, r"a Tensor with 2 elements cannot be converted to Scalar"),
    (lambda: bool(torch.ones(2)), RuntimeError, r"Boolean value of Tensor with more than one value is ambiguous"),
    (lambda: torch.tensor([1, 2]).requires_grad_(), RuntimeError, r"only Tensors of floating point dtype can require gradients"),
    (lambda: torch.zeros(2, device="cuda"), RuntimeError, r"NVIDIA driver|not compiled with CUDA"),
    (lambda: torch.ones(2).cuda(), RuntimeError, r"NVIDIA driver|not compiled with CUDA"),
    (lambda: torch.ones(2).to("cuda:0"), RuntimeError, r"NVIDIA driver|not compiled with CUDA"),
    (lambda: torch.device("tpu"), RuntimeError, r"Expected one of cpu, cuda device type"),
    (lambda: torch.zeros(-1), RuntimeError, r"negative dimension -1"),
    (lambda: torch.tensor([[1, 2], [3]]), ValueError, r"expected sequence of length 2 at dim 1 \(got 1\)"),
    (lambda: torch.tensor("abc"), TypeError, r"invalid data type 'str'"),
    (lambda: torch.ones(2, dtype="complex32"), TypeError, r"dtype"),
    (lambda: torch.ones(2, 3).split([1, 2], 0), RuntimeError, r"split_with_sizes expects split_sizes to sum exactly to 2"),
    (lambda: torch.ones(2, 3).chunk(0), RuntimeError, r"chunk expects `chunks` to be greater than 0"),
    (lambda: torch.ones(2, 3).diagonal(0, 1, 1), RuntimeError, r"diagonal dimensions cannot be identical"),
    (lambda: torch.ones(2).bool() - torch.ones(2).bool(), RuntimeError, r"Subtraction, the `-` operator, with two bool tensors is not supported"),
    (lambda: torch.arange(1, 5, 0), RuntimeError, r"arange: step must be nonzero"),
    (lambda: torch.tensor([1, 2]) // torch.tensor([1, 0]), RuntimeError, r"ZeroDivisionError"),
    (lambda: torch.tensor([1, 2]).mean(), RuntimeError, r"mean\(\): could not infer output dtype"),
    (lambda: len(torch.tensor(1.0)), TypeError, r"len\(\) of a 0-d tensor"),
    (lambda: torch.ones(2, 3).flip(0, 0), RuntimeError, r"flip: dim 0 appears multiple times"),
]


@pytest.mark.parametrize("fn,exc,pattern", CASES, ids=[str(i) for i in range(len(CASES))])
def test_bad_input_raises_pytorch_exception(fn, exc, pattern):
    with pytest.raises(exc, match=pattern):
        fn()


def test_cuda_module_reports_no_device():
    assert torch.cuda.is_available() is False
    assert torch.cuda.device_count() == 0


def test_device_objects_can_be_created_without_cuda():
    assert str(torch.device("cpu")) == "cpu"
    assert repr(torch.device("cuda", 1)) == "device(type='cuda', index=1)"
    assert torch.ones(1).device == torch.device("cpu")


def test_huge_shapes_are_errors_not_crashes():
    with pytest.raises(RuntimeError, match="too many elements"):
        torch.zeros(2**40, 2**40)
    assert 3 in torch.arange(5) and 7 not in torch.arange(5)


def test_zero_dim_tensors_reject_split_ops_and_flip_works():
    t = torch.tensor(2.0)
    assert t.flip(0).item() == 2.0
    for f in (lambda: t.unbind(0), lambda: t.size(0)):
        with pytest.raises(IndexError, match="tensor has no dimensions"):
            f()
    for f in (lambda: t.split(1), lambda: t.chunk(2)):
        with pytest.raises(RuntimeError, match="expects at least a 1-dimensional tensor"):
            f()


# Found by the differential fuzzer (tests/fuzz): each raises exactly PyTorch's class (not only a
# base class: NotImplementedError for a dtype with no kernel, RuntimeError vs IndexError...).
SAME_CLASS_AS_TORCH = {
    "neg_bool": lambda L: -L.tensor([True]),
    "sub_bool_before_shape_check": lambda L: L.ones(2, dtype=L.bool) - L.ones(3, dtype=L.bool),
    "bitwise_and_float": lambda L: L.bitwise_and(L.ones(2), L.ones(2)),
    "invert_float_operator": lambda L: ~L.ones(2, dtype=L.bfloat16),
    "bitwise_not_float": lambda L: L.bitwise_not(L.ones(2)),
    "lerp_int": lambda L: L.lerp(L.ones(2, dtype=L.int32), L.ones(2, dtype=L.int32), 0.5),
    "round_decimals_int": lambda L: L.round(L.ones(2, dtype=L.int64), decimals=2),
    "mean_int": lambda L: L.ones(2, dtype=L.int64).mean(),
    "nanmean_int": lambda L: L.ones(2, dtype=L.int16).nanmean(),
    "var_int": lambda L: L.ones(2, dtype=L.int32).var(),
    "norm_uint8": lambda L: L.ones(2, dtype=L.uint8).norm(3),
    "log_softmax_int": lambda L: L.ones(2, dtype=L.int16).log_softmax(0),
    "layer_norm_int": lambda L: L.nn.functional.layer_norm(L.ones(2, dtype=L.int64), (2,)),
    "float_of_many": lambda L: float(L.ones(3)),
    "int_of_many": lambda L: int(L.ones(3)),
    "chunk_0d": lambda L: L.tensor(1).chunk(1),
    "chunk_negative": lambda L: L.ones(3).chunk(-1),
    "split_negative": lambda L: L.ones(3).split(-1),
    "topk_negative_k": lambda L: L.ones(3).topk(-1),
    "narrow_start_out_of_range": lambda L: L.ones(3).narrow(0, -5, 1),
    "narrow_negative_length": lambda L: L.ones(3).narrow(0, 1, -1),
    "amax_empty_no_dim": lambda L: L.zeros(0).amax(),
    "sort_0d_dim_1": lambda L: L.sort(L.tensor(2), dim=1),
    "swapaxes_0d_dim_1": lambda L: L.swapaxes(L.tensor(2), 0, 1),
    "movedim_0d_dim_1": lambda L: L.movedim(L.tensor(2.0), 0, 1),
    "diff_0d": lambda L: L.diff(L.tensor(2.0)),
    "median_0d_dim_1": lambda L: L.median(L.tensor(3), 1),
    "median_empty_dim": lambda L: L.median(L.zeros(2, 0), 1),
}


@pytest.mark.parametrize("name", sorted(SAME_CLASS_AS_TORCH))
def test_same_exception_class_as_pytorch(name):
    pt = pytest.importorskip("torch")
    fn = SAME_CLASS_AS_TORCH[name]
    with pytest.raises(Exception) as theirs:
        fn(pt)
    with pytest.raises(Exception) as ours:
        fn(torch)
    assert type(ours.value).__name__ == type(theirs.value).__name__, f"{name}: ours {ours.value!r}, torch {theirs.value!r}"
