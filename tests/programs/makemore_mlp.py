"""A character-level MLP language model in the makemore style (Karpathy's "makemore" parts 2
and 3): integer context windows, an embedding table C indexed by integer tensors, a tanh
hidden layer with a hand-written batch norm, F.cross_entropy on the logits, manual SGD with
p.data += -lr * p.grad and a learning-rate step decay, a no_grad split-loss evaluation, and
sampling with torch.multinomial from a seeded torch.Generator. The names are synthetic
(syllables drawn with Python's random), standing in for names.txt."""

import random

import torch
import torch.nn.functional as F


def make_names(n=600, seed=1234):
    """Pronounceable made-up names: two or three syllables, a few with a trailing letter."""
    rng = random.Random(seed)
    onsets = ["b", "d", "k", "l", "m", "n", "r", "s", "t", "v", "z", "sh", "ch", ""]
    vowels = ["a", "e", "i", "o", "u", "ia", "ey"]
    words = []
    for _ in range(n):
        w = "".join(rng.choice(onsets) + rng.choice(vowels) for _ in range(rng.randint(2, 3)))
        if rng.random() < 0.3:
            w += rng.choice("nlrsh")
        words.append(w)
    return words


def build_vocab(words):
    chars = sorted(list(set("".join(words))))
    stoi = {s: i + 1 for i, s in enumerate(chars)}
    stoi["."] = 0
    itos = {i: s for s, i in stoi.items()}
    return stoi, itos


def build_dataset(words, stoi, block_size=3):
    X, Y = [], []
    for w in words:
        context = [0] * block_size
        for ch in w + ".":
            ix = stoi[ch]
            X.append(context)
            Y.append(ix)
            context = context[1:] + [ix]  # crop and append
    X = torch.tensor(X)
    Y = torch.tensor(Y)
    return X, Y


def splits(words, stoi, block_size=3):
    random.seed(42)
    words = list(words)
    random.shuffle(words)
    n1 = int(0.8 * len(words))
    n2 = int(0.9 * len(words))
    return (
        build_dataset(words[:n1], stoi, block_size),
        build_dataset(words[n1:n2], stoi, block_size),
        build_dataset(words[n2:], stoi, block_size),
    )


def init_params(vocab_size, n_embd=10, n_hidden=64, block_size=3, seed=2147483647):
    g = torch.Generator().manual_seed(seed)  # for reproducibility
    C = torch.randn((vocab_size, n_embd), generator=g)
    W1 = torch.randn((n_embd * block_size, n_hidden), generator=g) * (5 / 3) / ((n_embd * block_size) ** 0.5)
    b1 = torch.randn(n_hidden, generator=g) * 0.01
    W2 = torch.randn((n_hidden, vocab_size), generator=g) * 0.01
    b2 = torch.randn(vocab_size, generator=g) * 0
    # BatchNorm parameters and running statistics
    bngain = torch.ones((1, n_hidden))
    bnbias = torch.zeros((1, n_hidden))
    params = {"C": C, "W1": W1, "b1": b1, "W2": W2, "b2": b2, "bngain": bngain, "bnbias": bnbias}
    for p in params.values():
        p.requires_grad = True
    buffers = {"bnmean_running": torch.zeros((1, n_hidden)), "bnstd_running": torch.ones((1, n_hidden))}
    return params, buffers


def forward(params, Xb, buffers=None, training=True):
    C, W1, b1, W2, b2 = params["C"], params["W1"], params["b1"], params["W2"], params["b2"]
    emb = C[Xb]  # embed the characters into vectors
    embcat = emb.view(emb.shape[0], -1)  # concatenate the vectors
    hpreact = embcat @ W1 + b1  # hidden layer pre-activation
    if training:
        bnmeani = hpreact.mean(0, keepdim=True)
        bnstdi = hpreact.std(0, keepdim=True)
        hpreact = params["bngain"] * (hpreact - bnmeani) / bnstdi + params["bnbias"]
        if buffers is not None:
            with torch.no_grad():
                buffers["bnmean_running"] = 0.999 * buffers["bnmean_running"] + 0.001 * bnmeani
                buffers["bnstd_running"] = 0.999 * buffers["bnstd_running"] + 0.001 * bnstdi
    else:
        hpreact = params["bngain"] * (hpreact - buffers["bnmean_running"]) / buffers["bnstd_running"] + params["bnbias"]
    h = torch.tanh(hpreact)
    logits = h @ W2 + b2
    return logits


def train(params, buffers, Xtr, Ytr, max_steps=2000, batch_size=32, g=None, batch_indices=None):
    """Minibatch SGD as in the lecture; batch_indices replaces the torch.randint draws when given."""
    parameters = list(params.values())
    lossi = []
    for i in range(max_steps):
        # minibatch construct
        if batch_indices is None:
            ix = torch.randint(0, Xtr.shape[0], (batch_size,), generator=g)
        else:
            ix = batch_indices[i]
        Xb, Yb = Xtr[ix], Ytr[ix]  # batch X,Y

        # forward pass
        logits = forward(params, Xb, buffers)
        loss = F.cross_entropy(logits, Yb)  # loss function

        # backward pass
        for p in parameters:
            p.grad = None
        loss.backward()

        # update
        lr = 0.1 if i < max_steps * 3 // 4 else 0.01  # step learning rate decay
        for p in parameters:
            p.data += -lr * p.grad

        # track stats
        if i % 500 == 0:
            print(f"{i:7d}/{max_steps:7d}: {loss.item():.4f}")
        lossi.append(loss.log10().item())
    return lossi


@torch.no_grad()  # this decorator disables gradient tracking
def split_loss(params, buffers, x, y):
    logits = forward(params, x, buffers, training=False)
    loss = F.cross_entropy(logits, y)
    return loss.item()


def sample(params, buffers, itos, block_size=3, n=20, seed=2147483647 + 10):
    g = torch.Generator().manual_seed(seed)
    names = []
    for _ in range(n):
        out = []
        context = [0] * block_size  # initialize with all ...
        while True:
            logits = forward(params, torch.tensor([context]), buffers, training=False)
            probs = F.softmax(logits, dim=1)
            ix = torch.multinomial(probs, num_samples=1, generator=g).item()
            context = context[1:] + [ix]
            out.append(ix)
            if ix == 0 or len(out) > 30:
                break
        names.append("".join(itos[i] for i in out))
    return names


def main(max_steps=2000):
    words = make_names()
    stoi, itos = build_vocab(words)
    (Xtr, Ytr), (Xdev, Ydev), (Xte, Yte) = splits(words, stoi)
    params, buffers = init_params(len(stoi))
    print(sum(p.nelement() for p in params.values()))  # number of parameters in total
    g = torch.Generator().manual_seed(2147483647)
    train(params, buffers, Xtr, Ytr, max_steps=max_steps, g=g)
    losses = {"train": split_loss(params, buffers, Xtr, Ytr), "val": split_loss(params, buffers, Xdev, Ydev)}
    print(losses)
    return losses, sample(params, buffers, itos)


if __name__ == "__main__":
    main()
