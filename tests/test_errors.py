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
    "amin_complex_empty_dim_first": lambda L: L.zeros(0, 1, dtype=L.complex64).amin([1, 0]),
    "matmul_mixed_dtype_folded_empty": lambda L: L.ones(2, 0, 3, dtype=L.float16) @ L.ones(3, 4),
    "matmul_mixed_dtype_matrix_empty": lambda L: L.ones(2, 7, dtype=L.float16) @ L.ones(7, 0),
    "matmul_bool_nonempty": lambda L: L.ones(3, 5, dtype=L.bool) @ L.ones(5, 2, dtype=L.bool),
    "tensor_negative_float_uint8": lambda L: L.tensor(-0.5, dtype=L.uint8),
    "tensor_list_float_above_int8": lambda L: L.tensor([1.0, 255.5], dtype=L.int8),
    "tensor_int_above_int8": lambda L: L.tensor([300], dtype=L.int8),
    "tensor_int_below_uint8_wrap": lambda L: L.tensor(-256, dtype=L.uint8),
    "tensor_nan_int32": lambda L: L.tensor(float("nan"), dtype=L.int32),
    "full_huge_value_before_negative_size": lambda L: L.full([2, -2], 2**64),
    "setitem_byte_mask_scalar": lambda L: L.zeros(3, dtype=L.int64).__setitem__(L.tensor([1, 0, 1], dtype=L.uint8), 5),
    "setitem_byte_mask_one_element_tensor": lambda L: L.zeros(3, 2).__setitem__((slice(None), L.tensor([1, 0], dtype=L.uint8)), L.tensor(5.0)),
    "setitem_index_tensor_half_overflow": lambda L: L.zeros(3, dtype=L.float16).__setitem__(L.tensor([0]), 2**63 - 1),
    "setitem_bool_mask_half_overflow": lambda L: L.zeros(3, dtype=L.float16).__setitem__(L.tensor([True, False, False]), 1e6),
    "setitem_0d_index_bounds_before_value": lambda L: L.zeros(2, 2, dtype=L.int8).__setitem__(L.tensor(2), float("inf")),
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
    # Python ints beyond uint64 do not convert.
    "add_int_beyond_uint64": lambda L: L.ones(2, dtype=L.uint8) + 2**64,
    "rsub_int_beyond_uint64": lambda L: 2**64 - L.ones(2, dtype=L.float16),
    "lt_int_below_int64": lambda L: L.ones(2) < -(2**63) - 1,
    "int_of_nan": lambda L: int(L.tensor(float("nan"), dtype=L.float16)),
    "int_of_inf": lambda L: int(L.tensor(float("inf"))),
    "flatten_0d_start_1": lambda L: L.tensor(3).flatten(1, 0),
    "unflatten_0d": lambda L: L.tensor(3).unflatten(0, [-1]),
    # Values a dtype cannot hold are refused by fills, pads and clamps (arithmetic wraps).
    "fill_uint8_256": lambda L: L.zeros(2, dtype=L.uint8).fill_(256),
    "fill_uint8_negative_float": lambda L: L.zeros(2, dtype=L.uint8).fill_(-0.5),
    "fill_int64_nan": lambda L: L.zeros(2, dtype=L.int64).fill_(float("nan")),
    "fill_half_beyond_range": lambda L: L.zeros(2, dtype=L.float16).fill_(1e5),
    "fill_float_complex": lambda L: L.zeros(2).fill_(1 + 1j),
    "full_uint8_256": lambda L: L.full((2,), 256, dtype=L.uint8),
    "full_like_int64_inf": lambda L: L.full_like(L.zeros(2, dtype=L.int64), -float("inf")),
    "masked_fill_int8_128": lambda L: L.zeros(2, dtype=L.int8).masked_fill(L.tensor(True), 128),
    "index_fill_uint8_256": lambda L: L.zeros(2, dtype=L.uint8).index_fill(0, L.tensor([0]), 256),
    "setitem_uint8_256": lambda L: L.zeros(2, dtype=L.uint8).__setitem__(0, 256),
    "pad_uint8_negative": lambda L: L.nn.functional.pad(L.zeros(2, dtype=L.uint8), (1, 1), value=-1),
    "clamp_uint8_min_above_range": lambda L: L.zeros(2, dtype=L.uint8).clamp(300),
    "clamp_int8_max_below_range": lambda L: L.zeros(2, dtype=L.int8).clamp(max=-129),
    "clamp_float_beyond_range": lambda L: L.zeros(2).clamp(max=1e39),
    # In place: the result must be castable to the tensor's dtype, and every element its own.
    "add_inplace_int_by_float": lambda L: L.ones(2, dtype=L.int64).add_(L.ones(2)),
    "mul_inplace_bool_by_int": lambda L: L.ones(2, dtype=L.bool).mul_(L.ones(2, dtype=L.int64)),
    "add_inplace_expanded": lambda L: L.zeros(3, 1).expand(3, 3).add_(L.ones(3, 3)),
    "copy_into_expanded": lambda L: L.zeros(3, 1).expand(3, 3).copy_(L.ones(3, 3)),
    "allclose_mixed_dtypes": lambda L: L.allclose(L.ones(2), L.ones(2, dtype=L.float64)),
    "setitem_index_checked_before_value": lambda L: L.zeros(0, dtype=L.uint8).__setitem__(-1, -1.5),
    "argmax_bool": lambda L: L.ones(2, dtype=L.bool).argmax(),
    "argmin_empty_no_dim": lambda L: L.zeros(0, 1).argmin(),
    "isposinf_complex": lambda L: L.isposinf(L.ones(2, dtype=L.complex64)),
    "topk_bool": lambda L: L.ones(3, dtype=L.bool).topk(1),
    "trace_bool_before_shape": lambda L: L.ones(1, 2, 7, dtype=L.bool).trace(),
    "median_bool": lambda L: L.ones(2, dtype=L.bool).median(),
    "median_dim_bool": lambda L: L.ones(2, 2, dtype=L.bool).median(0),
    "index_select_negative_index": lambda L: L.arange(5).index_select(0, L.tensor([-1])),
    "index_add_negative_index": lambda L: L.arange(5).index_add(0, L.tensor([-1]), L.ones(1, dtype=L.int64)),
    "sub_bool_scalar": lambda L: L.ones(2, dtype=L.int64) - False,
    "rsub_bool_scalar": lambda L: True - L.ones(2),
    "add_bool_alpha_float_result": lambda L: L.add(L.ones(2), L.ones(2), alpha=True),
    "add_float_alpha_int_result": lambda L: L.add(L.ones(2, dtype=L.int64), L.ones(2, dtype=L.int64), alpha=2.5),
    "silu_int": lambda L: L.nn.functional.silu(L.ones(2, dtype=L.int64)),
    "softmax_dim_checked_before_dtype": lambda L: L.nn.functional.softmax(L.tensor(1), 1),
    "unflatten_0d_dim_1": lambda L: L.tensor(3).unflatten(1, [1]),
    "std_int": lambda L: L.ones(2, dtype=L.int32).std(),
    "add_alpha_beyond_half": lambda L: L.add(L.ones(2, dtype=L.float16), L.ones(2, dtype=L.float16), alpha=2**63 - 1),
    "addcmul_bool": lambda L: L.addcmul(L.ones(2, dtype=L.bool), L.ones(2, dtype=L.bool), L.ones(2, dtype=L.bool)),
    "elu_bool": lambda L: L.nn.functional.elu(L.ones(2, dtype=L.bool)),
    "unflatten_empty_sizes": lambda L: L.ones(2, 3).unflatten(1, []),
    "avg_pool1d_zero_kernel": lambda L: L.nn.functional.avg_pool1d(L.ones(1, 4), 0, 1),
    "max_pool1d_zero_kernel": lambda L: L.nn.functional.max_pool1d(L.ones(1, 4), 0),
    "max_pool1d_zero_stride": lambda L: L.nn.functional.max_pool1d(L.ones(1, 4), 2, 0),
    "max_pool1d_int": lambda L: L.nn.functional.max_pool1d(L.ones(1, 4, dtype=L.int64), 1),
    "einsum_mixed_dtypes": lambda L: L.einsum("ij,jk->ik", L.ones(2, 2, dtype=L.uint8), L.ones(2, 2, dtype=L.int8)),
    "one_hot_empty_without_classes": lambda L: L.nn.functional.one_hot(L.zeros(0, dtype=L.int64)),
    "cross_entropy_0d": lambda L: L.nn.functional.cross_entropy(L.tensor(1.0), L.tensor([1, 2, 0])),
    "norm_inf_empty": lambda L: L.zeros(0).norm(float("inf")),
    "norm_neg_inf_empty_dim": lambda L: L.zeros(2, 0).norm(float("-inf"), 1),
    "narrow_negative_length_before_dim": lambda L: L.ones(1, 1, 2).narrow(-4, 0, -1),
    "expand_no_sizes": lambda L: L.ones(3).expand(),
    "setitem_float_mask": lambda L: L.zeros(2, 2).__setitem__(L.tensor([0.5, 1.0]), 1.0),
    "getitem_int8_index": lambda L: L.zeros(3)[L.tensor([0, 1], dtype=L.int8)],
    "elu_int": lambda L: L.nn.functional.elu(L.ones(2, dtype=L.int16)),
    "permute_no_dims": lambda L: L.ones(3).permute(),
    "nansum_complex": lambda L: L.nansum(L.ones(2, dtype=L.complex64)),
    "setitem_int_beyond_int64": lambda L: L.zeros(2, dtype=L.int16).__setitem__(L.tensor([True, False]), 2**64),
    "addcmul_value_beyond_uint8": lambda L: L.addcmul(L.ones(2, dtype=L.uint8), L.ones(2, dtype=L.uint8), L.ones(2, dtype=L.uint8), value=300),
    "clamp_float_complex_bound": lambda L: L.clamp(L.ones(2), 1j, 3),
    "clamp_int_complex_bound": lambda L: L.clamp(L.ones(2, dtype=L.int32), min=1.5j),
    "clamp_inplace_float_complex_bound": lambda L: L.ones(2).clamp_(min=-2j),
    "clamp_bool_bool_bound": lambda L: L.clamp(L.tensor([True, False]), min=True),
    "clamp_inplace_bool_int_bound": lambda L: L.tensor([True, False]).clamp_(min=0),
    "arange_infinite_end": lambda L: L.arange(0, float("inf"), 1),
    "arange_nan_end": lambda L: L.arange(0, float("nan")),
    "arange_infinite_step": lambda L: L.arange(0, 10, float("-inf")),
    "arange_int64_overflowing_length": lambda L: L.arange(-(2**63), 4),
    "arange_float_overflowing_length": lambda L: L.arange(0, 1e300, 1e-3),
    "arange_complex_bound": lambda L: L.arange(1.5j, 3),
    "getitem_index_into_empty_dim": lambda L: L.zeros(0, 3)[L.tensor([0])],
    "logsumexp_empty_dims_no_keepdim": lambda L: L.logsumexp(L.ones(2, 3), dim=()),
    "bincount_float": lambda L: L.bincount(L.tensor([1.0, 2.0])),
    "bincount_bool": lambda L: L.bincount(L.tensor([True])),
    "bincount_2d_int8": lambda L: L.bincount(L.ones(1, 2, dtype=L.int8)),
    "slice_0d_step_zero": lambda L: L.zeros(())[0:1:0],
    "slice_0d_negative_step": lambda L: L.zeros(())[::-1],
    "slice_0d": lambda L: L.zeros(())[0:1],
    "cross_entropy_0d_long_target": lambda L: L.nn.functional.cross_entropy(L.tensor(1.5), L.tensor(0)),
    "cross_entropy_no_classes": lambda L: L.nn.functional.cross_entropy(L.zeros(2, 0), L.tensor([0, 0])),
    "cosine_similarity_complex": lambda L: L.nn.functional.cosine_similarity(L.ones(3, dtype=L.complex64), L.ones(3), 0),
    "cosine_similarity_bool": lambda L: L.nn.functional.cosine_similarity(L.ones(3, dtype=L.bool), L.ones(3, dtype=L.bool), 0),
    "index_add_2d_index": lambda L: L.zeros(3).index_add(0, L.tensor([[0, 1]]), L.ones(2)),
    "index_add_source_dtype": lambda L: L.zeros(3).index_add(0, L.tensor([0, 1]), L.ones(2, dtype=L.float64)),
    "index_add_negative_index_float": lambda L: L.zeros(3).index_add(0, L.tensor([0, -1]), L.ones(2)),
    "index_add_short_index": lambda L: L.zeros(3).index_add(0, L.tensor([0, 1], dtype=L.int16), L.ones(2)),
    "index_add_source_shape": lambda L: L.zeros(3, 2).index_add(0, L.tensor([0, 1]), L.ones(2, 3)),
    "where_number_beyond_float32": lambda L: L.where(L.tensor([True, False]), L.tensor(1), 1e300),
    "where_number_beyond_int8": lambda L: L.where(L.tensor([True, False]), L.tensor([1, 2], dtype=L.int8), 300),
    "clamp_bool_tensor_bounds": lambda L: L.clamp(L.tensor([True]), L.tensor([False]), L.tensor([True])),
    "setitem_unpackable_int_before_index": lambda L: L.tensor(1).__setitem__(L.zeros(0, 3, dtype=L.bool), 2**64),
    "amax_empty_dim_before_repeat": lambda L: L.zeros(4, 1, 0).amax([0, 2, -2, 0]),
    "max_dim_range_before_complex": lambda L: L.zeros(2, dtype=L.complex64).max(5),
    "max_dim_empty_before_complex": lambda L: L.zeros(0, 2, dtype=L.complex64).max(0),
    "index_select_0d_two_indices": lambda L: L.tensor(1.0).index_select(0, L.tensor([0, 0])),
    "pow_uint8_exponent_beyond": lambda L: L.tensor([1, 2], dtype=L.uint8) ** 300,
    "pow_int8_negative_before_range": lambda L: L.tensor([1, 2], dtype=L.int8) ** (-(2**63)),
    "pow_half_exponent_beyond": lambda L: L.tensor([1.0, 2.0], dtype=L.float16) ** 70000.0,
    "clamp_inplace_expanded": lambda L: L.ones(1, 3).expand(2, 3).clamp_(0),
    "uniform_inplace_expanded": lambda L: L.ones(1, 3).expand(2, 3).uniform_(),
    "cross_entropy_empty_int_input": lambda L: L.nn.functional.cross_entropy(L.zeros(0, 3, dtype=L.int32), L.zeros(0, dtype=L.int64)),
    "avg_pool1d_int16": lambda L: L.nn.functional.avg_pool1d(L.ones(1, 4, dtype=L.int16), 4),
    "avg_pool1d_int16_size_first": lambda L: L.nn.functional.avg_pool1d(L.ones(1, 4, dtype=L.int16), 9),
    "topk_dim_before_bool": lambda L: L.ones(1, 3, dtype=L.bool).topk(2, 2),
    "median_complex": lambda L: L.zeros(3, dtype=L.complex64).median(),
    "median_complex_dim_range": lambda L: L.zeros(3, dtype=L.complex64).median(5),
    "unique_complex": lambda L: L.zeros(3, dtype=L.complex128).unique(),
    "aminmax_complex": lambda L: L.aminmax(L.ones(2, dtype=L.complex64)),
    "aminmax_complex_dim": lambda L: L.aminmax(L.ones(2, dtype=L.complex128), dim=0),
    "cross_entropy_1d_input_empty_target": lambda L: L.nn.functional.cross_entropy(L.zeros(3), L.zeros(0, dtype=L.int64)),
    "nll_loss_1d_input_two_targets": lambda L: L.nn.functional.nll_loss(L.zeros(3), L.zeros(2, dtype=L.int64)),
    "nll_loss_1d_input_2d_target": lambda L: L.nn.functional.nll_loss(L.zeros(3), L.zeros(1, 1, dtype=L.int64)),
    "ones_no_size": lambda L: L.ones(),
    "rand_no_size": lambda L: L.rand(),
    "sub_bool_complex": lambda L: L.tensor([True, False]) - L.tensor([1j, 2j]),
    "rsub_complex_bool": lambda L: L.tensor([1j]) - L.tensor([True]),
    "bincount_int64_max": lambda L: L.bincount(L.tensor([2**63 - 1])),
    "index_fill_float_index": lambda L: L.zeros(3).index_fill(0, L.tensor([0.0]), 1),
    "index_fill_2d_index": lambda L: L.zeros(3).index_fill(0, L.tensor([[0]]), 1),
    "index_fill_size0_dim": lambda L: L.zeros(2, 0).index_fill(1, L.tensor([0]), 1),
    "index_fill_value_1d": lambda L: L.zeros(3).index_fill(0, L.tensor([0]), L.tensor([1.0])),
    "index_select_dim1_out_of_range": lambda L: L.zeros(2, 3).index_select(1, L.tensor([3])),
    "index_select_dim0_out_of_range": lambda L: L.zeros(2, 3).index_select(0, L.tensor([2])),
    "index_select_size0_axis": lambda L: L.zeros(2, 0).index_select(1, L.tensor([0])),
    "index_add_2d_out_of_range": lambda L: L.zeros(2, 3).index_add(0, L.tensor([2]), L.ones(1, 3)),
    "index_add_0d_two_indices": lambda L: L.tensor(1.0).index_add(0, L.tensor([0, 0]), L.ones(2)),
    "index_copy_out_of_range": lambda L: L.zeros(3, 2).index_copy(0, L.tensor([3]), L.ones(1, 2)),
    "index_copy_int32_index": lambda L: L.zeros(3, 2).index_copy(0, L.tensor([0], dtype=L.int32), L.ones(1, 2)),
    "index_copy_dtype_mismatch": lambda L: L.zeros(3, 2).index_copy(0, L.tensor([0]), L.ones(1, 2, dtype=L.float64)),
    "index_copy_count_mismatch": lambda L: L.zeros(3, 2).index_copy(0, L.tensor([0, 1]), L.ones(1, 2)),
    "l1_loss_bool_target": lambda L: L.nn.functional.l1_loss(L.ones(3), L.ones(3, dtype=L.bool)),
    "huber_loss_int_input": lambda L: L.nn.functional.huber_loss(L.ones(3, dtype=L.int64), L.ones(3)),
    "soft_margin_loss_int_input": lambda L: L.nn.functional.soft_margin_loss(L.ones(3, dtype=L.int64), L.ones(3, dtype=L.int64)),
    "soft_margin_loss_bool_input": lambda L: L.nn.functional.soft_margin_loss(L.ones(3, dtype=L.bool), L.ones(3)),
    "scatter_0d_source_two_indices": lambda L: L.zeros(3).scatter(0, L.tensor([0, 2]), L.tensor(5.0)),
    "scatter_add_0d_source_two_indices": lambda L: L.zeros(3).scatter_add(0, L.tensor([0, 2]), L.tensor(5.0)),
    "scatter_source_dtype": lambda L: L.zeros(3).scatter(0, L.tensor([0, 2]), L.ones(2, dtype=L.int32)),
    "scatter_add_source_dtype": lambda L: L.zeros(3).scatter_add(0, L.tensor([0, 2]), L.ones(2, dtype=L.float64)),
    "mean_dim_out_of_range_before_duplicate": lambda L: L.zeros(5, 2, 1, 1).mean([1, 3, -3, 4, 0]),
    "index_fill_dim_before_value": lambda L: L.tensor(3, dtype=L.int8).index_fill(-2, L.tensor([0]), -(2**63)),
    "clip_complex_tensor_bounds": lambda L: L.zeros(3, dtype=L.complex64).clip(L.tensor(0j), L.tensor(1j)),
    "setitem_value_before_index_dtype": lambda L: L.zeros(0, 1, dtype=L.uint8).__setitem__(L.zeros(0, 1, dtype=L.int16), float("-inf")),
    "setitem_too_many_indices_before_value": lambda L: L.tensor(1).__setitem__(L.zeros(0, 3, dtype=L.bool), float("nan")),
    "view_dtype_0d_wider": lambda L: L.tensor(1.0).view(L.float64),
    "view_dtype_strided_last_dim": lambda L: L.zeros(4, 2).t().view(L.float64),
    "view_dtype_odd_last_dim": lambda L: L.zeros(3).view(L.float64),
    "view_dtype_odd_offset": lambda L: L.zeros(5)[1:].view(L.float64),
    "data_int_into_requires_grad": lambda L: setattr(L.ones(2, requires_grad=True), "data", L.zeros(2, dtype=L.int64)),
    "index_fill_size0_dim_other_dims_nonempty": lambda L: L.zeros(2, 0, 3).index_fill(1, L.tensor([0]), -4),
    "norm_dim_range_before_duplicates": lambda L: L.zeros(4).norm(dim=[1, 0]),
    "nansum_complex_dim_range_first": lambda L: L.zeros(1, dtype=L.complex64).nansum([-2, 0]),
    "topk_k_before_complex": lambda L: L.zeros(2, 4, dtype=L.complex128).topk(2**40, 0),
    "unflatten_empty_sizes_before_dim": lambda L: L.zeros(1, 4, 5, 0).unflatten(4, []),
    "one_hot_empty_zero_classes": lambda L: L.nn.functional.one_hot(L.zeros(4, 5, 0, dtype=L.int64), 0),
    "setitem_half_slice_overflow": lambda L: L.zeros(7, 3, dtype=L.float16).__setitem__(-1, 2**63 - 1),
    "setitem_mask_shape_before_value": lambda L: L.zeros(2, 2, 0, 3, dtype=L.uint8).__setitem__(L.ones(1, 1, 1, 1, dtype=L.bool), float("nan")),
    "adaptive_max_pool1d_int": lambda L: L.nn.functional.adaptive_max_pool1d(L.ones(2, 3, 4, dtype=L.int64), 2),
    "adaptive_max_pool3d_int": lambda L: L.nn.functional.adaptive_max_pool3d(L.ones(1, 2, 2, 2, dtype=L.int64), 1),
    "rms_norm_int": lambda L: L.nn.functional.rms_norm(L.ones(2, 3, dtype=L.int64), [3]),
    "rms_norm_empty_shape": lambda L: L.nn.functional.rms_norm(L.ones(2, 3), []),
    "pdist_int": lambda L: L.nn.functional.pdist(L.ones(3, 2, dtype=L.int64)),
    "hinge_embedding_loss_int_mean": lambda L: L.nn.functional.hinge_embedding_loss(L.ones(3, dtype=L.int8), L.ones(3, dtype=L.int8)),
    "pixel_shuffle_factor_square_overflows": lambda L: L.nn.functional.pixel_shuffle(L.ones(1, 4, 2, 2), 2**32),
    "conv2d_zero_output_channels": lambda L: L.nn.functional.conv2d(L.ones(1, 2, 5, 5), L.ones(0, 2, 2, 2)),
    "conv2d_int_input_float_weight": lambda L: L.nn.functional.conv2d(L.ones(1, 2, 5, 5, dtype=L.int64), L.ones(3, 2, 2, 2)),
    "chunk_size0_dim_too_many_chunks": lambda L: L.zeros(0, 0, dtype=L.complex64).chunk(2**40, 0),
    "index_fill_index_dtype_before_value": lambda L: L.zeros(2, 3, dtype=L.int32).index_fill(0, L.tensor([True]), 2**63 - 1),
    "std_repeated_dim_before_range": lambda L: L.zeros(3, 2, 5, 3).std([0, 0, -5]),
    "hinge_embedding_loss_complex_before_shapes": lambda L: L.nn.functional.hinge_embedding_loss(L.zeros(3, 2, dtype=L.complex128), L.zeros(3, dtype=L.complex128)),
    "lerp_dimensioned_float64_weight": lambda L: L.lerp(L.tensor([1.0, 2.0]), L.tensor([3.0, 4.0]), L.tensor([0.5, 1.0], dtype=L.float64)),
    "rnn_tanh_cell_0d_input": lambda L: L.rnn_tanh_cell(L.zeros(()), L.zeros(3), L.zeros(3, 1), L.zeros(3, 3)),
    "rnn_tanh_cell_1d_weight_before_input": lambda L: L.rnn_tanh_cell(L.zeros(()), L.zeros(3), L.zeros(3), L.zeros(3, 3)),
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
