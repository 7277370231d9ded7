"""compare_torch.py --backward: qkv's fused backward against PyTorch's autograd on the same layer.

qkv bench --backward --dump-dir writes X, the weights, dZ and qkv's gradients dX, dW_Q, dW_K, dW_V,
dW_O; PyTorch runs nn.MultiheadAttention forward with autograd on, then backward from the same dZ.
PyTorch holds x @ W^T where qkv holds X @ W, so each of its weight gradients is qkv's transposed.
"""
import json
import os
import subprocess
import sys
import time

import numpy as np


def run_qkv(a, n, out_dir, env):
    cmd = [a.qkv, "bench", "--backward", "--n", str(n), "--d-model", str(a.d_model), "--heads", str(a.heads),
           "--threads", str(a.threads), "--format", "json", "--dump-dir", out_dir]
    if a.repeats:
        cmd += ["--repeats", str(a.repeats)]
    if a.causal:
        cmd.append("--causal")
    report = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True, env=env).stdout)
    return {r["pass"]: r for r in report["results"] if r["n"] == n}


def torch_layer(torch, a, out_dir, n):
    """PyTorch's layer with qkv's weights, X (requiring its gradient), dZ and the causal mask."""
    load = lambda name: torch.from_numpy(np.load(os.path.join(out_dir, name)))
    X, W_Q, W_K, W_V, W_O, dZ = (load(f) for f in (f"X_n{n}.npy", "W_Q.npy", "W_K.npy", "W_V.npy", "W_O.npy",
                                                   f"dZ_n{n}.npy"))
    mha = torch.nn.MultiheadAttention(a.d_model, a.heads, bias=False, batch_first=True)
    with torch.no_grad():
        mha.in_proj_weight.copy_(torch.cat([W_Q.T, W_K.T, W_V.T]))
        mha.out_proj.weight.copy_(W_O.T)
    mha.train()  # dropout is 0; eval mode's fast path refuses bias=False in PyTorch 1.13
    x = X.unsqueeze(0).clone().requires_grad_(True)  # [1, n, d_model]
    mask = torch.triu(torch.ones(n, n, dtype=torch.bool), diagonal=1) if a.causal else None
    return mha, x, dZ.unsqueeze(0), mask


def forward_backward(mha, x, dZ, mask, backward=True):
    mha.zero_grad(set_to_none=True)
    x.grad = None
    Z = mha(x, x, x, need_weights=False, attn_mask=mask)[0]
    if backward:
        Z.backward(dZ)


def torch_gradients(mha, x, a):
    d = a.d_model
    g = mha.in_proj_weight.grad
    return {"dX": x.grad[0], "dW_Q": g[:d].T, "dW_K": g[d:2 * d].T, "dW_V": g[2 * d:].T, "dW_O": mha.out_proj.weight.grad.T}


def median_ms(run, repeats):
    run()
    times = []
    for _ in range(max(1, repeats)):
        t0 = time.perf_counter()
        run()
        times.append((time.perf_counter() - t0) * 1e3)
    return sorted(times)[len(times) // 2]


def torch_saved_bytes(torch, mha, x, dZ, mask):
    """Bytes autograd holds for PyTorch's backward: every tensor saved in one forward, each once."""
    seen = {}

    def pack(t):
        seen[(t.data_ptr(), t.numel())] = t.numel() * t.element_size()
        return t
    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        forward_backward(mha, x, dZ, mask)
    return sum(seen.values())


def main(a, base):
    for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = str(a.threads)
    try:
        import torch
    except ImportError:
        print("PyTorch is not installed (Debian: apt install python3-torch); nothing to compare.")
        return 0
    torch.set_num_threads(a.threads)
    import tempfile
    print(f"qkv fused backward vs torch {torch.__version__} autograd of nn.MultiheadAttention: d_model = {a.d_model}, "
          f"h = {a.heads}, {a.threads} thread(s){', causal' if a.causal else ''}")
    print(f"{'n':>6} {'pass':>17} {'qkv ms':>10} {'torch ms':>10} {'torch/qkv':>10} {'qkv extra':>10} {'torch saved':>12}")
    worst = 0.0
    with tempfile.TemporaryDirectory(prefix="qkv-torch-") as out_dir:
        for n in (int(s) for s in a.n.split(",")):
            rows = run_qkv(a, n, out_dir, base.QKV_ENV)
            mha, x, dZ, mask = torch_layer(torch, a, out_dir, n)
            forward_backward(mha, x, dZ, mask)
            diffs = []
            for name, want in torch_gradients(mha, x, a).items():
                got = np.load(os.path.join(out_dir, f"{name}_n{n}.npy"))
                want = want.detach().numpy()
                diff = float(np.max(np.abs(got - want)) / max(1.0, float(np.max(np.abs(want)))))
                diffs.append(f"{name} {diff:.1e}")
                worst = max(worst, diff)
            t_fwd = median_ms(lambda: forward_backward(mha, x, dZ, mask, backward=False), a.repeats or 5)
            t_both = median_ms(lambda: forward_backward(mha, x, dZ, mask), a.repeats or 5)
            extra = torch_saved_bytes(torch, mha, x, dZ, mask)
            mib = lambda b: f"{b / 2**20:.1f} MiB"
            for pass_name, t in (("forward", t_fwd), ("forward+backward", t_both)):
                q = rows[pass_name]
                print(f"{n:>6} {pass_name:>17} {q['ms']:>10.2f} {t:>10.2f} {t / q['ms']:>9.2f}× "
                      f"{mib(q['extra_bytes']):>10} {mib(extra) if pass_name != 'forward' else '':>12}")
            print(f"{'':>6} largest relative difference (|qkv − torch| / max(1, max |torch|)): {', '.join(diffs)}")
    print("(torch/qkv above 1 means qkv is faster; torch's forward keeps autograd on, as training runs it)")
    if worst > a.tolerance:
        print(f"gradients differ: {worst:.2e} > {a.tolerance:.0e}", file=sys.stderr)
        return 1
    print(f"gradients agree within {a.tolerance:.0e}")
    return 0
