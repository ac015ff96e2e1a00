"""A train / checkpoint / resume / fine-tune script as PyTorch users write one: torch.compile on
the model, a checkpoint dict (epoch, model and optimizer state_dicts, loss) through
torch.save/torch.load(weights_only=True), the "_orig_mod." prefix a compiled model puts on its
keys stripped with consume_prefix_in_state_dict_if_present, a fine-tuned variant loaded with
load_state_dict(strict=False) whose missing/unexpected keys are reported, frozen backbone
parameters, register_buffer (persistent and not), named_parameters/named_buffers, model.eval(),
and @torch.no_grad() / @torch.inference_mode() evaluation helpers."""

import argparse
import math
import os

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.modules.utils import consume_prefix_in_state_dict_if_present


class MLPClassifier(nn.Module):
    def __init__(self, in_features=16, hidden=32, num_classes=4, dropout=0.1):
        super().__init__()
        self.backbone = nn.Sequential(
            nn.Linear(in_features, hidden),
            nn.LayerNorm(hidden),
            nn.GELU(),
            nn.Dropout(dropout),
            nn.Linear(hidden, hidden),
            nn.BatchNorm1d(hidden),
            nn.ReLU(inplace=True),
        )
        self.head = nn.Linear(hidden, num_classes)
        self.logit_scale = nn.Parameter(torch.ones([]) * math.log(1 / 0.7))
        # normalization statistics travel with the checkpoint; the cached scale table does not
        self.register_buffer("input_mean", torch.zeros(in_features))
        self.register_buffer("input_std", torch.ones(in_features))
        self.register_buffer("class_prior", torch.full((num_classes,), 1.0 / num_classes), persistent=False)

    def forward(self, x):
        x = (x - self.input_mean) / self.input_std
        return self.head(self.backbone(x)) * self.logit_scale.exp()


class FineTuneClassifier(MLPClassifier):
    """The same backbone with a new, deeper head for another label set."""

    def __init__(self, in_features=16, hidden=32, num_classes=3, dropout=0.1):
        super().__init__(in_features, hidden, num_classes, dropout)
        del self.head
        self.classifier = nn.Sequential(nn.Linear(hidden, hidden // 2), nn.Tanh(), nn.Linear(hidden // 2, num_classes))

    def forward(self, x):
        x = (x - self.input_mean) / self.input_std
        return self.classifier(self.backbone(x)) * self.logit_scale.exp()


def make_data(n=256, in_features=16, num_classes=4, seed=0):
    g = torch.Generator().manual_seed(seed)
    centers = torch.randn(num_classes, in_features, generator=g) * 2
    y = torch.randint(0, num_classes, (n,), generator=g)
    x = centers[y] + torch.randn(n, in_features, generator=g) + 3.0
    return x, y


def train_one_epoch(model, optimizer, x, y, batch_size=32):
    model.train()
    losses = []
    for i in range(0, len(x), batch_size):
        xb, yb = x[i : i + batch_size], y[i : i + batch_size]
        optimizer.zero_grad()
        loss = F.cross_entropy(model(xb), yb)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses


@torch.no_grad()
def evaluate(model, x, y):
    model.eval()
    logits = model(x)
    return F.cross_entropy(logits, y).item(), (logits.argmax(1) == y).float().mean().item()


@torch.inference_mode()
def predict_proba(model, x):
    model.eval()
    return F.softmax(model(x), dim=-1)


def save_checkpoint(path, model, optimizer, epoch, loss):
    torch.save(
        {
            "epoch": epoch,
            "model_state_dict": model.state_dict(),
            "optimizer_state_dict": optimizer.state_dict(),
            "loss": loss,
        },
        path,
    )


def load_checkpoint(path, model, optimizer):
    checkpoint = torch.load(path, weights_only=True)
    state_dict = checkpoint["model_state_dict"]
    consume_prefix_in_state_dict_if_present(state_dict, "_orig_mod.")
    model.load_state_dict(state_dict)
    optimizer.load_state_dict(checkpoint["optimizer_state_dict"])
    return checkpoint["epoch"], checkpoint["loss"]


def fit(model, x, y, epochs=3, compile_backend="inductor", lr=1e-2):
    model.input_mean.copy_(x.mean(0))
    model.input_std.copy_(x.std(0))
    compiled = torch.compile(model, backend=compile_backend)
    optimizer = torch.optim.AdamW(compiled.parameters(), lr=lr, weight_decay=1e-2)
    losses = []
    for _ in range(epochs):
        losses += train_one_epoch(compiled, optimizer, x, y)
    return compiled, optimizer, losses


def fine_tune(checkpoint_path, x, y, epochs=2, lr=1e-2):
    model = FineTuneClassifier()
    checkpoint = torch.load(checkpoint_path, map_location="cpu", weights_only=True)
    state_dict = {k.removeprefix("_orig_mod."): v for k, v in checkpoint["model_state_dict"].items()}
    incompatible = model.load_state_dict(state_dict, strict=False)
    print(f"missing keys: {incompatible.missing_keys}\nunexpected keys: {incompatible.unexpected_keys}")
    for name, param in model.named_parameters():
        if name.startswith("backbone."):
            param.requires_grad = False
    optimizer = torch.optim.SGD(filter(lambda p: p.requires_grad, model.parameters()), lr=lr, momentum=0.9)
    losses = []
    for _ in range(epochs):
        losses += train_one_epoch(model, optimizer, x, y)
    return model, incompatible, losses


def describe(model):
    for name, param in model.named_parameters():
        print(f"{name:32s} {tuple(param.shape)} requires_grad={param.requires_grad}")
    for name, buf in model.named_buffers():
        print(f"{name:32s} {tuple(buf.shape)} (buffer)")
    return (
        [(n, tuple(p.shape), p.requires_grad) for n, p in model.named_parameters()],
        [(n, tuple(b.shape)) for n, b in model.named_buffers()],
        list(model.state_dict().keys()),
        sum(p.numel() for p in model.parameters() if p.requires_grad),
    )


def main(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("--out-dir", default=".")
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--compile-backend", default="inductor")
    args = parser.parse_args(argv)
    torch.manual_seed(0)
    x, y = make_data()
    model = MLPClassifier()
    compiled, optimizer, losses = fit(model, x, y, args.epochs, args.compile_backend)
    path = os.path.join(args.out_dir, "checkpoint.pt")
    save_checkpoint(path, compiled, optimizer, args.epochs, losses[-1])

    # resume: a fresh model and optimizer pick up where training stopped
    resumed = MLPClassifier()
    resumed_opt = torch.optim.AdamW(resumed.parameters(), lr=1e-2, weight_decay=1e-2)
    epoch, _ = load_checkpoint(path, resumed, resumed_opt)
    assert epoch == args.epochs
    losses += train_one_epoch(resumed, resumed_opt, x, y)

    x2, y2 = make_data(num_classes=3, seed=1)
    tuned, incompatible, ft_losses = fine_tune(path, x2, y2)
    return {
        "losses": losses,
        "eval": evaluate(resumed, x, y),
        "proba": predict_proba(resumed, x[:8]),
        "missing_keys": incompatible.missing_keys,
        "unexpected_keys": incompatible.unexpected_keys,
        "fine_tune_losses": ft_losses,
        "fine_tune_eval": evaluate(tuned, x2, y2),
        "description": describe(tuned),
    }


if __name__ == "__main__":
    main()
