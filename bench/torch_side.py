"""PyTorch's side of compare_torch.py, forward and --backward: PyTorch on the thread count qkv gets,
nn.MultiheadAttention holding the weights qkv dumped, and the median time of a run.
"""
import os
import statistics
import time

import numpy as np

QKV_ENV = dict(os.environ)  # qkv sets its own thread counts; it gets the environment as it came


def import_torch(threads):
    """PyTorch on `threads` threads, or None (having said so) when it is not installed."""
    # Debian's torch does its products in OpenBLAS, whose own threads torch.set_num_threads does
    # not reach: without these it would use every core while qkv uses --threads.
    for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = str(threads)
    try:
        import torch
    except ImportError:
        print("PyTorch is not installed (Debian: apt install python3-torch); nothing to compare.")
        return None
    torch.set_num_threads(threads)
    return torch


def load(torch, out_dir, name):
    """One of the .npy files qkv bench --dump-dir wrote, as a tensor."""
    return torch.from_numpy(np.load(os.path.join(out_dir, name)))


def layer_with_qkv_weights(torch, a, out_dir, n):
    """nn.MultiheadAttention with the weights qkv dumped in out_dir, X for size n, and the causal
    mask (None without --causal)."""
    X = load(torch, out_dir, f"X_n{n}.npy")
    W_Q, W_K, W_V, W_O = (load(torch, out_dir, f"{W}.npy") for W in ("W_Q", "W_K", "W_V", "W_O"))
    mha = torch.nn.MultiheadAttention(a.d_model, a.heads, bias=False, batch_first=True)
    with torch.no_grad():
        # PyTorch computes x @ W^T; qkv's convention is Q = X @ W_Q, so PyTorch's W is W_Q^T
        mha.in_proj_weight.copy_(torch.cat([W_Q.T, W_K.T, W_V.T]))
        mha.out_proj.weight.copy_(W_O.T)
    # Training mode (dropout is 0, so the numbers are the same): in eval mode PyTorch 1.13 takes
    # its fused "fast path", which fails on bias=False (qkv_bias must be Tensor, not NoneType).
    mha.train()
    mask = torch.triu(torch.ones(n, n, dtype=torch.bool), diagonal=1) if a.causal else None
    return mha, X, mask


def median_ms(run, repeats):
    """The median of `repeats` timed runs (at least one), after one untimed warm-up run."""
    run()
    times = []
    for _ in range(max(1, repeats)):
        t0 = time.perf_counter()
        run()
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)
