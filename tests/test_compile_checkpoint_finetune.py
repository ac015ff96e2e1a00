"""The train / checkpoint / resume / fine-tune script (tests/programs/compile_checkpoint_finetune.py)
under PyTorch and under ferrotorch with only the import changed: torch.compile(model) accepted and
run eagerly, the same losses from the same weights (handed over through safetensors), checkpoints
written by either library resumed by the other, load_state_dict(strict=False) reports, strict
errors, named_parameters/named_buffers and non-persistent buffers as PyTorch has them, and the
@torch.no_grad()/@torch.inference_mode() helpers."""

import numpy as np
import pytest
from program_runner import load_program, through_safetensors

import ferrotorch as torch
from torch_oracle import needs_torch, pt, to_ft

pytestmark = needs_torch


@pytest.fixture(scope="module")
def programs():
    return load_program("compile_checkpoint_finetune", "torch"), load_program("compile_checkpoint_finetune", "ferrotorch")


def _pair(programs, tmp_path, cls="MLPClassifier", **kwargs):
    mod_pt, mod_ft = programs
    pt.manual_seed(0)
    theirs = getattr(mod_pt, cls)(dropout=0.0, **kwargs)
    ours = getattr(mod_ft, cls)(dropout=0.0, **kwargs)
    ours.load_state_dict(through_safetensors(theirs.state_dict(), tmp_path / f"{cls}.safetensors"))
    return theirs, ours


def test_structure_matches_pytorch(programs):
    mod_pt, mod_ft = programs
    for cls in ("MLPClassifier", "FineTuneClassifier"):
        theirs, ours = getattr(mod_pt, cls)(), getattr(mod_ft, cls)()
        assert mod_ft.describe(ours) == mod_pt.describe(theirs)
        assert repr(ours) == repr(theirs)
        # the non-persistent buffer: a buffer, not in the state_dict
        assert "class_prior" in dict(ours.named_buffers()) and "class_prior" not in ours.state_dict()
        assert [n for n, _ in ours.named_buffers(recurse=False)] == [n for n, _ in theirs.named_buffers(recurse=False)]
        assert [n for n, _ in ours.named_parameters(prefix="m", recurse=True)] == [n for n, _ in theirs.named_parameters(prefix="m", recurse=True)]
        assert ours.to(torch.float64).class_prior.dtype == torch.float64


def _load_reports(lib, mod, source_sd, strict):
    model = mod.FineTuneClassifier()
    try:
        result = model.load_state_dict(source_sd, strict=strict)
    except RuntimeError as e:
        return ("error", str(e))
    return (repr(result), result.missing_keys, result.unexpected_keys, list(result), bool(result == ([], [])))


@pytest.mark.parametrize("source", ["plain", "compiled", "finetune", "partial", "extra"])
@pytest.mark.parametrize("strict", [False, True])
def test_load_state_dict_reports_match_pytorch(programs, source, strict):
    mod_pt, mod_ft = programs
    reports = []
    for lib, mod in ((pt, mod_pt), (torch, mod_ft)):
        if source == "finetune":
            sd = mod.FineTuneClassifier().state_dict()
        else:
            base = mod.MLPClassifier()
            sd = (lib.compile(base, backend="eager") if source == "compiled" else base).state_dict()
        if source == "partial":
            sd = {k: v for k, v in sd.items() if not k.startswith("backbone.5.")}
        if source == "extra":
            sd = dict(mod.FineTuneClassifier().state_dict(), **{"extra.weight": lib.zeros(2), "class_prior": lib.zeros(3)})
        reports.append(_load_reports(lib, mod, sd, strict))
    assert reports[1] == reports[0]


def test_shape_mismatch_raises_even_when_not_strict(programs):
    mod_pt, mod_ft = programs
    messages = []
    for mod in (mod_pt, mod_ft):
        sd = mod.MLPClassifier(num_classes=3).state_dict()
        with pytest.raises(RuntimeError) as info:
            mod.MLPClassifier().load_state_dict(sd, strict=False)
        messages.append(str(info.value))
    assert messages[1] == messages[0]


def test_same_losses_and_cross_library_resume(programs, tmp_path):
    mod_pt, mod_ft = programs
    theirs, ours = _pair(programs, tmp_path)
    x, y = mod_pt.make_data()
    xf, yf = to_ft(x), to_ft(y)
    # PyTorch's own compile stays on its eager backend: inductor costs a minute and the losses are the same.
    compiled_pt, opt_pt, lt = mod_pt.fit(theirs, x, y, compile_backend="eager")
    compiled_ft, opt_ft, lo = mod_ft.fit(ours, xf, yf)
    assert compiled_ft._orig_mod is ours and isinstance(compiled_ft, torch.nn.Module)
    assert list(compiled_ft.state_dict()) == list(compiled_pt.state_dict())
    assert all(k.startswith("_orig_mod.") for k in compiled_ft.state_dict())
    np.testing.assert_allclose(lo, lt, rtol=1e-3, atol=1e-5)
    assert lo[-1] < 0.2 * lo[0]

    path_pt, path_ft = tmp_path / "pt.pt", tmp_path / "ft.pt"
    mod_pt.save_checkpoint(path_pt, compiled_pt, opt_pt, 3, lt[-1])
    mod_ft.save_checkpoint(path_ft, compiled_ft, opt_ft, 3, lo[-1])
    results = {}
    # each library resumes from the checkpoint the other wrote
    for name, mod, path, xs, ys in (("pt", mod_pt, path_ft, x, y), ("ft", mod_ft, path_pt, xf, yf)):
        model = mod.MLPClassifier(dropout=0.0)
        opt = mod.torch.optim.AdamW(model.parameters(), lr=1e-2, weight_decay=1e-2)
        epoch, loss = mod.load_checkpoint(str(path), model, opt)
        assert epoch == 3 and isinstance(loss, float)
        losses = mod.train_one_epoch(model, opt, xs, ys)
        results[name] = (losses, mod.evaluate(model, xs, ys), mod.predict_proba(model, xs[:8]).numpy(), model)
    np.testing.assert_allclose(results["ft"][0], results["pt"][0], rtol=2e-3, atol=1e-5)
    np.testing.assert_allclose(results["ft"][1], results["pt"][1], rtol=2e-3, atol=1e-5)
    np.testing.assert_allclose(results["ft"][2], results["pt"][2], rtol=2e-3, atol=1e-5)
    for (n, a), (_, b) in zip(results["ft"][3].state_dict().items(), results["pt"][3].state_dict().items()):
        # The bias feeding BatchNorm has a gradient of rounding noise only, which Adam scales up.
        # (and so does the running mean of its output).
        if n not in ("backbone.4.bias", "backbone.5.running_mean"):
            np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=2e-3, atol=1e-5, err_msg=n)


def test_checkpoint_contents_match_pytorch(programs, tmp_path):
    mod_pt, mod_ft = programs
    theirs, ours = _pair(programs, tmp_path)
    x, y = mod_pt.make_data(64)
    compiled_pt, opt_pt, lt = mod_pt.fit(theirs, x, y, epochs=1, compile_backend="eager")
    compiled_ft, opt_ft, lo = mod_ft.fit(ours, to_ft(x), to_ft(y), epochs=1)
    mod_pt.save_checkpoint(tmp_path / "pt.pt", compiled_pt, opt_pt, 1, lt[-1])
    mod_ft.save_checkpoint(tmp_path / "ft.pt", compiled_ft, opt_ft, 1, lo[-1])
    ours_read = torch.load(tmp_path / "pt.pt", weights_only=True)
    theirs_read = pt.load(tmp_path / "ft.pt", weights_only=True)
    assert list(ours_read) == list(theirs_read) == ["epoch", "model_state_dict", "optimizer_state_dict", "loss"]
    assert list(ours_read["model_state_dict"]) == list(theirs_read["model_state_dict"])
    assert ours_read["optimizer_state_dict"]["param_groups"] == theirs_read["optimizer_state_dict"]["param_groups"]
    s_ours, s_theirs = ours_read["optimizer_state_dict"]["state"], theirs_read["optimizer_state_dict"]["state"]
    assert list(s_ours) == list(s_theirs)
    for i in s_ours:
        assert list(s_ours[i]) == list(s_theirs[i])
        for k in s_ours[i]:
            assert str(s_ours[i][k].dtype).split(".")[-1] == str(s_theirs[i][k].dtype).split(".")[-1]
            np.testing.assert_allclose(s_ours[i][k].numpy(), s_theirs[i][k].numpy(), rtol=2e-3, atol=1e-6)


def test_decorated_helpers(programs, tmp_path):
    mod_pt, mod_ft = programs
    theirs, ours = _pair(programs, tmp_path)
    x, y = mod_pt.make_data(32)
    ours.train()
    proba = mod_ft.predict_proba(ours, to_ft(x))
    assert proba.is_inference() and not proba.requires_grad and proba.grad_fn is None and not ours.training
    assert torch.is_grad_enabled() and not torch.is_inference_mode_enabled()
    np.testing.assert_allclose(proba.numpy(), mod_pt.predict_proba(theirs, x).numpy(), rtol=1e-4, atol=1e-6)
    ours.train()
    loss, acc = mod_ft.evaluate(ours, to_ft(x), to_ft(y))
    assert not ours.training and torch.is_grad_enabled()
    assert (loss, acc) == pytest.approx(mod_pt.evaluate(theirs, x, y), rel=1e-4)


def test_main_runs_with_the_default_compile_backend(programs, tmp_path):
    _, mod_ft = programs
    out = mod_ft.main(["--out-dir", str(tmp_path)])
    assert (tmp_path / "checkpoint.pt").exists()
    assert out["missing_keys"] == ["classifier.0.weight", "classifier.0.bias", "classifier.2.weight", "classifier.2.bias"]
    assert out["unexpected_keys"] == ["head.weight", "head.bias"]
    # PyTorch's own run of the script: accuracy 1.0, then 0.957 fine-tuned on the new labels.
    assert out["eval"][1] > 0.95 and out["fine_tune_eval"][1] > 0.85
    assert np.mean(out["fine_tune_losses"][-4:]) < np.mean(out["fine_tune_losses"][:4])
    assert out["description"][3] == 16 * 32 + 16 + 3 * 16 + 3 + 1
    proba = out["proba"]
    assert tuple(proba.shape) == (8, 4) and np.allclose(proba.sum(-1).numpy(), 1, atol=1e-5)
