"""Fits y = 3x^2 - 2x + 1 with a tiny polynomial model, using only tensors and autograd.

Run: python examples/quickstart.py
"""

import ferrotorch as torch


def main() -> None:
    x = torch.linspace(-1, 1, 200)
    y = 3 * x**2 - 2 * x + 1
    w = torch.zeros(3, requires_grad=True)
    lr = 0.5
    for step in range(301):
        pred = w[0] * x**2 + w[1] * x + w[2]
        loss = ((pred - y) ** 2).mean()
        loss.backward()
        with torch.no_grad():
            w -= lr * w.grad
        w.grad = None
        if step % 100 == 0:
            print(f"step {step:3d}  loss {loss.item():.6f}")
    print("fitted coefficients:", [round(v, 3) for v in w.tolist()], "(true: [3, -2, 1])")


if __name__ == "__main__":
    main()
