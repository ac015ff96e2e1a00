"""The DataLoader-driven text classifier (tests/programs/dataloader_text_classifier.py) under
PyTorch and under ferrotorch with only the import changed: a custom Dataset of variable-length
sequences served as dicts or tuples, collate functions padding with pad_sequence, 0 or 2
worker processes, drop_last, and a seeded shuffling generator. Unshuffled, the batches and the
losses step by step are PyTorch's from the same weights (handed over through safetensors);
shuffled orders come from our own random stream (different from PyTorch's by design), so they
are checked for validity and reproducibility, and PyTorch replays them for the loss check."""

import numpy as np
import pytest
from program_runner import load_program, through_safetensors

from torch_oracle import needs_torch, pt

pytestmark = needs_torch


@pytest.fixture(scope="module")
def programs():
    return load_program("dataloader_text_classifier", "torch"), load_program("dataloader_text_classifier", "ferrotorch")


def _as_numpy(batch):
    items = batch.values() if isinstance(batch, dict) else batch
    return [(str(t.dtype).split(".")[-1], t.numpy()) for t in items]


@pytest.mark.parametrize("num_workers", [0, 2])
@pytest.mark.parametrize("drop_last", [False, True])
@pytest.mark.parametrize("pairs", [False, True])
def test_batches_match_pytorch(programs, num_workers, drop_last, pairs):
    mod_pt, mod_ft = programs
    got = []
    for mod in (mod_pt, mod_ft):
        cls, collate = (mod.ToySentimentPairs, mod.collate_pairs) if pairs else (mod.ToySentiment, mod.collate_batch)
        loader = mod.make_loader(cls(45), batch_size=8, num_workers=num_workers, drop_last=drop_last, collate_fn=collate)
        assert len(loader) == (5 if drop_last else 6)
        got.append([_as_numpy(b) for b in loader])
    theirs, ours = got
    assert len(ours) == len(theirs)
    for b_ours, b_theirs in zip(ours, theirs):
        assert [d for d, _ in b_ours] == [d for d, _ in b_theirs]
        for (_, a), (_, b) in zip(b_ours, b_theirs):
            assert a.shape == b.shape
            np.testing.assert_array_equal(a, b)
    if not pairs:
        (_, tokens), (_, lengths), _ = ours[0]
        assert tokens.shape == (8, lengths.max()) and set(lengths.tolist()) <= set(range(3, 18))


def _pair_models(mod_pt, mod_ft, tmp_path):
    pt.manual_seed(0)
    theirs = mod_pt.BagOfEmbeddings()
    ours = mod_ft.BagOfEmbeddings()
    ours.load_state_dict(through_safetensors(theirs.state_dict(), tmp_path / "bag.safetensors"))
    return theirs, ours


def _run(mod, model, loader, epochs=2):
    opt = mod.torch.optim.AdamW(model.parameters(), lr=3e-2)
    losses = mod.train(model, loader, opt, epochs=epochs)
    return losses, mod.evaluate(model, mod.make_loader(mod.ToySentiment(64, seed=1), batch_size=32))


@pytest.mark.parametrize("num_workers,drop_last,pairs", [(0, False, False), (2, True, False), (2, False, True)])
def test_same_losses_as_pytorch(programs, tmp_path, num_workers, drop_last, pairs):
    mod_pt, mod_ft = programs
    theirs, ours = _pair_models(mod_pt, mod_ft, tmp_path)
    runs = []
    for mod, model in ((mod_pt, theirs), (mod_ft, ours)):
        cls, collate = (mod.ToySentimentPairs, mod.collate_pairs) if pairs else (mod.ToySentiment, mod.collate_batch)
        runs.append(_run(mod, model, mod.make_loader(cls(200), batch_size=24, num_workers=num_workers, drop_last=drop_last, collate_fn=collate)))
    (lt, at), (lo, ao) = runs
    assert len(lo) == len(lt) == 2 * (8 if drop_last else 9)
    np.testing.assert_allclose(lo, lt, rtol=1e-4, atol=1e-6)
    assert ao == at
    for (n, a), (_, b) in zip(ours.state_dict().items(), theirs.state_dict().items()):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-3, atol=1e-5, err_msg=n)
    # padding_idx: the padding row never moves
    assert float(ours.embedding.weight[0].abs().sum()) == 0.0


def _orders(mod, dataset, loader, epochs):
    index = {tuple(tokens): i for i, (tokens, _) in enumerate(dataset.samples)}
    out = []
    for _ in range(epochs):
        order = []
        for batch in loader:
            for row, n in zip(batch["tokens"].tolist(), batch["lengths"].tolist()):
                order.append(index[tuple(row[:n])])
        out.append(order)
    return out


@pytest.mark.parametrize("num_workers", [0, 2])
def test_shuffled_epochs_are_valid_reproducible_and_replay_in_pytorch(programs, tmp_path, num_workers):
    mod_pt, mod_ft = programs
    data = mod_ft.ToySentiment(100)
    loader = lambda seed: mod_ft.make_loader(data, batch_size=16, shuffle=True, num_workers=num_workers, drop_last=True, seed=seed)  # noqa: E731
    orders = _orders(mod_ft, data, loader(5), 3)
    for order in orders:
        assert len(order) == 96 and len(set(order)) == 96 and set(order) <= set(range(100))
    assert orders[0] != orders[1] != orders[2]
    assert _orders(mod_ft, data, loader(5), 3) == orders  # same seed, same epochs
    assert _orders(mod_ft, data, loader(6), 1)[0] != orders[0]
    # one worker process or none: the same first epoch (the same generator draws)
    other = mod_ft.make_loader(data, batch_size=16, shuffle=True, num_workers=2 - num_workers, drop_last=True, seed=5)
    assert _orders(mod_ft, data, other, 1)[0] == orders[0]

    # PyTorch takes our first epoch's order as its sampler: the same losses.
    theirs, ours = _pair_models(mod_pt, mod_ft, tmp_path)
    replay = pt.utils.data.DataLoader(mod_pt.ToySentiment(100), batch_size=16, sampler=orders[0], collate_fn=mod_pt.collate_batch, drop_last=True)
    lt, _ = _run(mod_pt, theirs, replay, epochs=1)
    lo, _ = _run(mod_ft, ours, loader(5), epochs=1)
    np.testing.assert_allclose(lo, lt, rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize("num_workers", [0, 2])
def test_main_learns(programs, num_workers):
    _, mod_ft = programs
    losses, accuracy = mod_ft.main(num_workers=num_workers)
    # PyTorch's own run of the same script reaches 0.984 test accuracy.
    assert len(losses) == 8 * 16 and accuracy > 0.9 and np.mean(losses[-16:]) < 0.5 * np.mean(losses[:16])
