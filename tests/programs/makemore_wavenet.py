"""The WaveNet-style character model of makemore part 5, as in the lecture: hand-written
Embedding, FlattenConsecutive, Linear, BatchNorm1d (reducing over batch and time for 3-d
input) and Tanh classes with a hand-written Sequential, trained with manual SGD; then the same
network from torch.nn (nn.Embedding, a FlattenConsecutive nn.Module, nn.Linear(bias=False),
a BatchNorm over the last dim, nn.Tanh) inside torch.nn.Sequential."""

import torch
import torch.nn as nn
import torch.nn.functional as F


def build_dataset(words, stoi, block_size=8):
    X, Y = [], []
    for w in words:
        context = [0] * block_size
        for ch in w + ".":
            ix = stoi[ch]
            X.append(context)
            Y.append(ix)
            context = context[1:] + [ix]  # crop and append
    return torch.tensor(X), torch.tensor(Y)


class Linear:
    def __init__(self, fan_in, fan_out, bias=True, generator=None):
        self.weight = torch.randn((fan_in, fan_out), generator=generator) / fan_in**0.5  # note: kaiming init
        self.bias = torch.zeros(fan_out) if bias else None

    def __call__(self, x):
        self.out = x @ self.weight
        if self.bias is not None:
            self.out += self.bias
        return self.out

    def parameters(self):
        return [self.weight] + ([] if self.bias is None else [self.bias])


class BatchNorm1d:
    def __init__(self, dim, eps=1e-5, momentum=0.1):
        self.eps = eps
        self.momentum = momentum
        self.training = True
        # parameters (trained with backprop)
        self.gamma = torch.ones(dim)
        self.beta = torch.zeros(dim)
        # buffers (trained with a running 'momentum update')
        self.running_mean = torch.zeros(dim)
        self.running_var = torch.ones(dim)

    def __call__(self, x):
        # calculate the forward pass
        if self.training:
            if x.ndim == 2:
                dim = 0
            elif x.ndim == 3:
                dim = (0, 1)
            xmean = x.mean(dim, keepdim=True)  # batch mean
            xvar = x.var(dim, keepdim=True)  # batch variance
        else:
            xmean = self.running_mean
            xvar = self.running_var
        xhat = (x - xmean) / torch.sqrt(xvar + self.eps)  # normalize to unit variance
        self.out = self.gamma * xhat + self.beta
        # update the buffers
        if self.training:
            with torch.no_grad():
                self.running_mean = (1 - self.momentum) * self.running_mean + self.momentum * xmean
                self.running_var = (1 - self.momentum) * self.running_var + self.momentum * xvar
        return self.out

    def parameters(self):
        return [self.gamma, self.beta]


class Tanh:
    def __call__(self, x):
        self.out = torch.tanh(x)
        return self.out

    def parameters(self):
        return []


class Embedding:
    def __init__(self, num_embeddings, embedding_dim, generator=None):
        self.weight = torch.randn((num_embeddings, embedding_dim), generator=generator)

    def __call__(self, IX):
        self.out = self.weight[IX]
        return self.out

    def parameters(self):
        return [self.weight]


class FlattenConsecutive:
    def __init__(self, n):
        self.n = n

    def __call__(self, x):
        B, T, C = x.shape
        x = x.view(B, T // self.n, C * self.n)
        if x.shape[1] == 1:
            x = x.squeeze(1)
        self.out = x
        return self.out

    def parameters(self):
        return []


class Sequential:
    def __init__(self, layers):
        self.layers = layers

    def __call__(self, x):
        for layer in self.layers:
            x = layer(x)
        self.out = x
        return self.out

    def parameters(self):
        # get parameters of all layers and stretch them out into one list
        return [p for layer in self.layers for p in layer.parameters()]


def build_model(vocab_size, n_embd=10, n_hidden=68, seed=42):
    g = torch.Generator().manual_seed(seed)
    model = Sequential(
        [
            Embedding(vocab_size, n_embd, generator=g),
            FlattenConsecutive(2), Linear(n_embd * 2, n_hidden, bias=False, generator=g), BatchNorm1d(n_hidden), Tanh(),
            FlattenConsecutive(2), Linear(n_hidden * 2, n_hidden, bias=False, generator=g), BatchNorm1d(n_hidden), Tanh(),
            FlattenConsecutive(2), Linear(n_hidden * 2, n_hidden, bias=False, generator=g), BatchNorm1d(n_hidden), Tanh(),
            Linear(n_hidden, vocab_size, generator=g),
        ]
    )  # fmt: skip
    # parameter init
    with torch.no_grad():
        model.layers[-1].weight *= 0.1  # last layer make less confident
    parameters = model.parameters()
    for p in parameters:
        p.requires_grad = True
    return model, parameters


def train(model, parameters, Xtr, Ytr, max_steps=1000, batch_size=32, g=None, batch_indices=None):
    lossi = []
    for i in range(max_steps):
        # minibatch construct
        if batch_indices is None:
            ix = torch.randint(0, Xtr.shape[0], (batch_size,), generator=g)
        else:
            ix = batch_indices[i]
        Xb, Yb = Xtr[ix], Ytr[ix]  # batch X,Y

        # forward pass
        logits = model(Xb)
        loss = F.cross_entropy(logits, Yb)  # loss function

        # backward pass
        for p in parameters:
            p.grad = None
        loss.backward()

        # update: simple SGD
        lr = 0.1 if i < max_steps * 3 // 4 else 0.01  # step learning rate decay
        for p in parameters:
            p.data += -lr * p.grad

        lossi.append(loss.log10().item())
    return lossi


@torch.no_grad()  # this decorator disables gradient tracking inside pytorch
def split_loss(model, x, y):
    for layer in model.layers:
        layer.training = False
    logits = model(x)
    loss = F.cross_entropy(logits, y)
    for layer in model.layers:
        layer.training = True
    return loss.item()


# ---- the same network from torch.nn ----


class TorchFlattenConsecutive(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.n = n

    def forward(self, x):
        B, T, C = x.shape
        x = x.view(B, T // self.n, C * self.n)
        if x.shape[1] == 1:
            x = x.squeeze(1)
        return x


class LastDimBatchNorm(nn.BatchNorm1d):
    """nn.BatchNorm1d normalizes dim 1; the WaveNet's (B, T, C) activations carry channels last."""

    def forward(self, x):
        if x.ndim == 3:
            return super().forward(x.transpose(1, 2)).transpose(1, 2).contiguous()
        return super().forward(x)


def build_torch_model(vocab_size, n_embd=10, n_hidden=68):
    model = nn.Sequential(
        nn.Embedding(vocab_size, n_embd),
        TorchFlattenConsecutive(2), nn.Linear(n_embd * 2, n_hidden, bias=False), LastDimBatchNorm(n_hidden), nn.Tanh(),
        TorchFlattenConsecutive(2), nn.Linear(n_hidden * 2, n_hidden, bias=False), LastDimBatchNorm(n_hidden), nn.Tanh(),
        TorchFlattenConsecutive(2), nn.Linear(n_hidden * 2, n_hidden, bias=False), LastDimBatchNorm(n_hidden), nn.Tanh(),
        nn.Linear(n_hidden, vocab_size),
    )  # fmt: skip
    with torch.no_grad():
        model[-1].weight *= 0.1
    return model


def train_torch_model(model, Xtr, Ytr, max_steps=1000, batch_size=32, batch_indices=None, g=None):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = torch.optim.lr_scheduler.MultiStepLR(optimizer, milestones=[max_steps * 3 // 4], gamma=0.1)
    model.train()
    losses = []
    for i in range(max_steps):
        ix = torch.randint(0, Xtr.shape[0], (batch_size,), generator=g) if batch_indices is None else batch_indices[i]
        loss = F.cross_entropy(model(Xtr[ix]), Ytr[ix])
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        scheduler.step()
        losses.append(loss.item())
    return losses


def main(words, max_steps=1000, block_size=8):
    chars = sorted(list(set("".join(words))))
    stoi = {s: i + 1 for i, s in enumerate(chars)}
    stoi["."] = 0
    n = int(0.9 * len(words))
    Xtr, Ytr = build_dataset(words[:n], stoi, block_size)
    Xdev, Ydev = build_dataset(words[n:], stoi, block_size)
    model, parameters = build_model(len(stoi))
    print(sum(p.nelement() for p in parameters))
    g = torch.Generator().manual_seed(2147483647)
    train(model, parameters, Xtr, Ytr, max_steps=max_steps, g=g)
    return {"train": split_loss(model, Xtr, Ytr), "val": split_loss(model, Xdev, Ydev)}
