"""compare_torch.py --backward: qkv's fused backward against PyTorch's autograd on the same layer.

qkv bench --backward --dump-dir writes X, the weights, dZ and qkv's gradients dX, dW_Q, dW_K, dW_V,
dW_O; PyTorch runs nn.MultiheadAttention forward with autograd on, then backward from the same dZ.
PyTorch holds x @ W^T where qkv holds X @ W, so each of its weight gradients is qkv's transposed.
"""
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

import peer_record
from torch_side import QKV_ENV, import_torch, layer_with_qkv_weights, load, median_ms


def run_qkv(a, n, out_dir, env):
    cmd = [a.qkv, "bench", "--backward", "--n", str(n), "--d-model", str(a.d_model), "--heads", str(a.heads),
           "--threads", str(a.threads), "--format", "json", "--dump-dir", out_dir]
    if a.repeats:
        cmd += ["--repeats", str(a.repeats)]
    if a.causal:
        cmd.append("--causal")
    if a.avx2:
        cmd += ["--kernels", "avx2"]
    report = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True, env=env).stdout)
    return {r["pass"]: r for r in report["results"] if r["n"] == n}, report["fused_kernels"]


def torch_layer(torch, a, out_dir, n):
    """PyTorch's layer with qkv's weights, X (requiring its gradient), dZ and the causal mask."""
    mha, X, mask = layer_with_qkv_weights(torch, a, out_dir, n)
    x = X.unsqueeze(0).clone().requires_grad_(True)  # [1, n, d_model]
    return mha, x, load(torch, out_dir, f"dZ_n{n}.npy").unsqueeze(0), mask


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


def torch_saved_bytes(torch, mha, x, dZ, mask):
    """Bytes autograd holds for PyTorch's backward: every tensor saved in one forward, each once."""
    seen = {}

    def pack(t):
        seen[(t.data_ptr(), t.numel())] = t.numel() * t.element_size()
        return t
    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        forward_backward(mha, x, dZ, mask)
    return sum(seen.values())


def main(a):
    torch = import_torch(a.threads)
    if torch is None:
        return 0
    print(f"qkv fused backward vs torch {torch.__version__} autograd of nn.MultiheadAttention: d_model = {a.d_model}, "
          f"h = {a.heads}, {a.threads} thread(s){', causal' if a.causal else ''}")
    print(f"{'n':>6} {'pass':>17} {'qkv ms':>10} {'torch ms':>10} {'torch/qkv':>10} {'qkv extra':>10} {'torch saved':>12}")
    worst, kept = 0.0, []
    with tempfile.TemporaryDirectory(prefix="qkv-torch-") as out_dir:
        for n in (int(s) for s in a.n.split(",")):
            rows, kernels = run_qkv(a, n, out_dir, QKV_ENV)
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
                kept.append(peer_record.one_round(a, "pytorch", torch.__version__, pass_name, n, kernels, q["ms"], t))
            print(f"{'':>6} largest relative difference (|qkv − torch| / max(1, max |torch|)): {', '.join(diffs)}")
    print("(torch/qkv above 1 means qkv is faster; torch's forward keeps autograd on, as training runs it)")
    if worst > a.tolerance:
        print(f"gradients differ: {worst:.2e} > {a.tolerance:.0e}", file=sys.stderr)
        return 1
    print(f"gradients agree within {a.tolerance:.0e}")
    peer_record.keep(a, kept)
    return 0
