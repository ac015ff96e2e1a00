"""new_* constructors, finfo/iinfo, promotion queries, broadcasting helpers."""

import pytest

import ferrotorch as torch


def test_new_constructors_follow_source_dtype():
    t = torch.ones(2, dtype=torch.float64)
    assert t.new_zeros(2, 3).dtype == torch.float64 and t.new_zeros((2, 3)).shape == (2, 3)
    assert t.new_ones(4).tolist() == [1.0] * 4
    assert t.new_full((2,), 7).tolist() == [7.0, 7.0]
    assert t.new_tensor([1, 2]).dtype == torch.float64
    assert t.new_empty(0).shape == (0,)
    assert t.new_zeros(2, dtype=torch.int32).dtype == torch.int32


def test_finfo_iinfo():
    assert torch.finfo(torch.float32).eps == 2**-23
    assert torch.finfo(torch.float16).max == 65504.0
    assert torch.finfo().bits == 32
    assert torch.iinfo(torch.int8).min == -128 and torch.iinfo(torch.uint8).max == 255
    with pytest.raises(TypeError):
        torch.finfo(torch.int32)


@pytest.mark.parametrize(
    "a,b,expected",
    [
        (torch.uint8, torch.int8, torch.int16),
        (torch.int32, torch.float16, torch.float16),
        (torch.bool, torch.int64, torch.int64),
        (torch.float16, torch.bfloat16, torch.float32),
        (torch.int16, torch.int32, torch.int32),
    ],
)
def test_promote_types(a, b, expected):
    assert torch.promote_types(a, b) == expected


def test_result_type_and_can_cast():
    assert torch.result_type(torch.tensor([1, 2], dtype=torch.int32), 1.0) == torch.float32
    assert torch.result_type(torch.tensor([1, 2], dtype=torch.int32), torch.tensor(5)) == torch.int32
    assert torch.result_type(torch.tensor([1]), torch.tensor(1.0, dtype=torch.float64)) == torch.float64
    assert torch.can_cast(torch.int32, torch.float32) and not torch.can_cast(torch.float32, torch.int32)


def test_broadcast_shapes_and_tensors():
    assert torch.broadcast_shapes((2, 1), (3,)) == torch.Size([2, 3])
    a, b = torch.broadcast_tensors(torch.ones(2, 1), torch.zeros(3))
    assert a.shape == (2, 3) and b.shape == (2, 3)
    with pytest.raises(RuntimeError, match="broadcast_shapes: The size of tensor a"):
        torch.broadcast_shapes((2,), (3,))


def test_deepcopy_of_leaf_and_error_for_nonleaf():
    import copy

    a = torch.ones(2, requires_grad=True)
    b = copy.deepcopy(a)
    assert b.requires_grad and b.data_ptr() != a.data_ptr() and b.tolist() == [1.0, 1.0]
    d = copy.deepcopy({"x": a, "y": a})
    assert d["x"] is d["y"]
    with pytest.raises(RuntimeError, match="graph leaves"):
        copy.deepcopy(a * 2)


def test_script_idioms():
    torch.backends.cudnn.benchmark = True
    assert not torch.backends.mps.is_available()
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = torch.nn.Linear(2, 1).to(device)
    assert model(torch.ones(3, 2).to(device)).shape == (3, 1)
    torch.set_num_threads(2)
    assert torch.get_num_threads() == 2
    assert torch.FloatTensor([1, 2]).dtype == torch.float32 and torch.LongTensor(2, 3).shape == (2, 3)
