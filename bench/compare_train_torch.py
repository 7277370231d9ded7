#!/usr/bin/python3
"""qkv train against the same model trained in PyTorch, step for step.

Makes a step-0 model with `qkv train --steps 0 --save FILE`, rebuilds it in PyTorch from that file
(E, P, each layer's W_Q, W_K, W_V, W_O, U; the model README.md describes), and trains both on the
same batches (`qkv train --load FILE --format json --record-batches` hands them over) with the same
Adam, warm-up and clipping. Prints both losses for the first --steps steps and their largest
relative difference, then each side's time per step at every --threads count, measured in turn
--rounds times (the median, with the lowest and highest), and PyTorch's time over qkv's.
A tool for people, not a test: it exits 0 when PyTorch is missing.

    /usr/bin/python3 bench/compare_train_torch.py --qkv build/src/qkv --threads 1,2
"""
import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

QKV_ENV = dict(os.environ)


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--qkv", default=os.environ.get("QKV_BIN", "build/src/qkv"), help="the qkv program")
    ap.add_argument("--steps", type=int, default=20, help="steps whose losses are compared")
    ap.add_argument("--time-steps", type=int, default=300, help="steps each timing runs")
    ap.add_argument("--threads", default="1,2", help="thread counts to time, comma-separated")
    ap.add_argument("--rounds", type=int, default=3, help="timings of each side, taken in turn")
    ap.add_argument("--tolerance", type=float, default=1e-4, help="largest relative difference of a loss")
    ap.add_argument("train_options", nargs="*", help="more qkv train options for the model (after --): --vocab 16 …")
    return ap.parse_args()


def qkv_train(a, *options):
    cmd = [a.qkv, "train", *a.train_options, *options]
    return subprocess.run(cmd, check=True, capture_output=True, text=True, env=QKV_ENV).stdout


def read_model(path):
    """The config, the steps done and every tensor of a qkv model file (README.md: --save)."""
    with open(path, "rb") as f:
        first = f.readline().decode()
        if first.strip() != "qkv-model 1":
            sys.exit(f"{path}: not a qkv model of version 1 ({first.strip()!r})")
        head = json.loads(f.readline())
        data = np.frombuffer(f.read(), dtype="<f4")
    tensors = {t["name"]: data[t["offset"]:t["offset"] + t["shape"][0] * t["shape"][1]].reshape(t["shape"])
               for t in head["tensors"]}
    return head["config"], head["steps_done"], tensors


class model:
    """The attention-only transformer of README.md, in PyTorch, from a qkv model's tensors."""

    def __init__(self, torch, config, tensors):
        self.torch, self.c = torch, config
        p = lambda name: torch.nn.Parameter(torch.tensor(tensors[name].copy()))
        self.E, self.P, self.U = p("E"), p("P"), p("U")
        self.layers = [[p(f"layer{l}.{w}") for w in ("W_Q", "W_K", "W_V", "W_O")] for l in range(1, config["layers"] + 1)]
        self.params = [self.E, self.P] + [w for layer in self.layers for w in layer] + [self.U]
        T = config["seq"]
        self.mask = torch.triu(torch.full((T, T), float("-inf")), diagonal=1)

    def loss(self, tokens):
        torch, c = self.torch, self.c
        B, T, C, H = tokens.shape[0], c["seq"], c["d_model"], c["heads"]
        d_k = C // H
        x = self.E[tokens] + self.P
        for W_Q, W_K, W_V, W_O in self.layers:
            split = lambda m: m.view(B, T, H, d_k).transpose(1, 2)  # head h: columns h·d_k … (h+1)·d_k − 1
            q, k, v = split(x @ W_Q), split(x @ W_K), split(x @ W_V)
            a = torch.softmax(q @ k.transpose(2, 3) / math.sqrt(d_k) + self.mask, dim=-1)
            x = x + (a @ v).transpose(1, 2).reshape(B, T, C) @ W_O
        logits = x @ self.U
        return torch.nn.functional.cross_entropy(logits[:, :-1].reshape(-1, c["vocab"]), tokens[:, 1:].reshape(-1))


def trainer(torch, config, tensors):
    """A function that takes one step on a batch (as torch.long [B, T]) and returns its loss."""
    m = model(torch, config, tensors)
    opt = torch.optim.Adam(m.params, lr=config["lr"], betas=(config["beta1"], config["beta2"]), eps=config["eps"])
    step = [0]

    def one(tokens):
        step[0] += 1
        opt.zero_grad()
        loss = m.loss(tokens)
        loss.backward()
        if config["clip"] > 0:
            torch.nn.utils.clip_grad_norm_(m.params, config["clip"])
        warm = config["warmup"]
        for g in opt.param_groups:
            g["lr"] = config["lr"] * (min(1.0, step[0] / warm) if warm else 1.0)
        opt.step()
        return loss.item()

    return one


def batches(torch, report):
    c = report["config"]
    return [torch.tensor(s["tokens"], dtype=torch.long).view(c["batch"], c["seq"]) for s in report["steps"]]


def compare_losses(torch, a, path):
    config, _, tensors = read_model(path)
    report = json.loads(qkv_train(a, "--load", path, "--steps", str(a.steps), "--format", "json", "--record-batches"))
    torch.set_num_threads(1)
    step = trainer(torch, report["config"], tensors)
    worst = 0.0
    print(f"{'step':>5} {'qkv':>12} {'PyTorch':>12} {'relative':>10}")
    for s, tokens in zip(report["steps"], batches(torch, report)):
        theirs = step(tokens)
        rel = abs(s["loss"] - theirs) / abs(theirs)
        worst = max(worst, rel)
        print(f"{s['step']:>5} {s['loss']:>12.7f} {theirs:>12.7f} {rel:>10.2e}")
    verdict = "agree" if worst <= a.tolerance else "DISAGREE"
    print(f"the losses {verdict}: largest relative difference {worst:.2e} (tolerance {a.tolerance:g})\n")
    return worst <= a.tolerance


def time_qkv(a, path, threads):
    report = json.loads(qkv_train(a, "--load", path, "--steps", str(a.time_steps), "--threads", str(threads),
                                  "--checkpoint-every", str(a.time_steps), "--format", "json"))
    return 1e3 * report["seconds"] / a.time_steps


def time_torch(torch, tensors, report, threads):
    torch.set_num_threads(threads)
    step = trainer(torch, report["config"], tensors)
    data = batches(torch, report)
    step(data[0])  # PyTorch's first step allocates what the others reuse
    start = time.perf_counter()
    for tokens in data[1:]:
        step(tokens)
    return 1e3 * (time.perf_counter() - start) / (len(data) - 1)


def compare_times(torch, a, path):
    _, _, tensors = read_model(path)
    report = json.loads(qkv_train(a, "--load", path, "--steps", str(a.time_steps), "--format", "json", "--record-batches"))
    print(f"{'threads':>7} {'qkv ms/step':>22} {'PyTorch ms/step':>22} {'PyTorch / qkv':>22}")
    for threads in [int(t) for t in a.threads.split(",")]:
        ours, theirs, ratios = [], [], []
        for _ in range(a.rounds):  # in turn, so that a machine's drift touches both alike
            ours.append(time_qkv(a, path, threads))
            theirs.append(time_torch(torch, tensors, report, threads))
            ratios.append(theirs[-1] / ours[-1])
        spread = lambda xs: f"{statistics.median(xs):.3f} ({min(xs):.3f}-{max(xs):.3f})"
        print(f"{threads:>7} {spread(ours):>22} {spread(theirs):>22} {spread(ratios):>22}")


def main():
    a = parse_args()
    try:
        import torch
    except ImportError:
        print("PyTorch is not installed (apt-get install python3-torch); nothing to compare.")
        return 0
    with tempfile.TemporaryDirectory(prefix="qkv-train-torch-") as scratch:
        path = os.path.join(scratch, "step0.qkvm")
        qkv_train(a, "--steps", "0", "--save", path, "--format", "json")
        config, _, _ = read_model(path)
        print(f"qkv train against PyTorch {torch.__version__}: {json.dumps(config)}\n")
        agree = compare_losses(torch, a, path)
        compare_times(torch, a, path)
    return 0 if agree else 1


if __name__ == "__main__":
    sys.exit(main())
