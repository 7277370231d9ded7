#!/usr/bin/python3
"""qkv's attention against PyTorch's torch.nn.MultiheadAttention on the same weights.

For each n, runs `qkv bench --format json --dump-dir DIR` (which writes X, W_Q, W_K, W_V, W_O and
qkv's output as .npy files), loads them into nn.MultiheadAttention(bias=False, need_weights=False)
with the same thread count, checks that the outputs agree, and prints qkv's speed as a ratio to
PyTorch's. A tool for people, not a test: it exits 0 when PyTorch is missing.

    /usr/bin/python3 bench/compare_torch.py --qkv build/src/qkv --n 1024,4096 --threads 1

With --backward: `qkv bench --backward` dumps dZ and qkv's five gradients too; PyTorch's autograd
runs the same layer forward and backward on the same dZ, and the script prints the largest
relative difference of each gradient, the times of the forward (with autograd on) and of forward
+ backward, qkv's extra memory (what its plan allocates) and what PyTorch's autograd saves for
its backward (every tensor its forward saves, counted once).
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

import avx2_only
import peer_record
from torch_side import QKV_ENV, import_torch, layer_with_qkv_weights, median_ms


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--qkv", default=os.environ.get("QKV_BIN", "build/src/qkv"), help="the qkv program")
    ap.add_argument("--n", default="256,1024,4096", help="sequence lengths, comma-separated")
    ap.add_argument("--d-model", type=int, default=512)
    ap.add_argument("--heads", type=int, default=8)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--causal", action="store_true")
    ap.add_argument("--impl", default="fused", help="the qkv implementation to compare")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--tolerance", type=float, default=1e-4, help="largest |difference| / max(1, max |torch|)")
    ap.add_argument("--backward", action="store_true", help="the backward pass too: gradients, times, memory")
    ap.add_argument("--avx2", action="store_true",
                    help="the whole comparison on AVX2 kernels, with AVX-512 hidden from PyTorch and qkv alike "
                         "(bench/avx2_only.py; needs BUILD/bench/libhide_avx512.so beside BUILD/src/qkv)")
    peer_record.add_arguments(ap)
    return ap.parse_args()


def run_qkv(a, n, out_dir):
    """qkv's timing (ms) and output for size n; the inputs it used are left in out_dir."""
    cmd = [a.qkv, "bench", "--n", str(n), "--d-model", str(a.d_model), "--heads", str(a.heads),
           "--threads", str(a.threads), "--impl", a.impl, "--format", "json", "--dump-dir", out_dir]
    if a.repeats:
        cmd += ["--repeats", str(a.repeats)]
    if a.causal:
        cmd.append("--causal")
    if a.avx2:
        cmd += ["--kernels", "avx2"]
    report = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True, env=QKV_ENV).stdout)
    row = next(r for r in report["results"] if r["impl"] == a.impl and r["n"] == n)
    return row["ms"], report["peak_gflops"], np.load(os.path.join(out_dir, f"Z_{a.impl}_n{n}.npy")), report["fused_kernels"]


def torch_attention(torch, a, out_dir, n):
    """PyTorch's layer with qkv's weights; returns (its output on X, a function that reruns it)."""
    mha, X, mask = layer_with_qkv_weights(torch, a, out_dir, n)
    x = X.unsqueeze(0)  # [1, n, d_model]

    def run():
        with torch.no_grad():
            return mha(x, x, x, need_weights=False, attn_mask=mask)[0][0]
    return run(), run


def main():
    a = parse_args()
    if a.avx2:
        avx2_only.enter(a.qkv)  # starts this script again under the preload library, once
        print(avx2_only.describe(), "; numpy sees", avx2_only.check())
    if a.backward:
        import compare_torch_backward
        return compare_torch_backward.main(a)
    torch = import_torch(a.threads)
    if torch is None:
        return 0
    sizes = [int(s) for s in a.n.split(",")]
    print(f"qkv {a.impl} vs torch {torch.__version__} nn.MultiheadAttention: d_model = {a.d_model}, "
          f"h = {a.heads}, {a.threads} thread(s){', causal' if a.causal else ''}")
    print(f"{'n':>6} {'qkv ms':>10} {'torch ms':>10} {'qkv speed / torch':>18} {'max rel diff':>13}")
    worst, kept = 0.0, []
    with tempfile.TemporaryDirectory(prefix="qkv-torch-") as out_dir:
        for n in sizes:
            qkv_ms, peak, Z, kernels = run_qkv(a, n, out_dir)
            expect, run = torch_attention(torch, a, out_dir, n)
            expect = expect.numpy()
            diff = float(np.max(np.abs(Z - expect)) / max(1.0, float(np.max(np.abs(expect)))))
            worst = max(worst, diff)
            torch_ms = median_ms(run, a.repeats or 5)
            print(f"{n:>6} {qkv_ms:>10.2f} {torch_ms:>10.2f} {torch_ms / qkv_ms:>17.2f}× {diff:>13.2e}")
            kept.append(peer_record.one_round(a, "pytorch", torch.__version__, "forward", n, kernels, qkv_ms, torch_ms))
    print(f"(qkv's measured sgemm peak: {peak:.1f} GFLOP/s; a ratio above 1 means qkv is faster)")
    if worst > a.tolerance:
        print(f"outputs differ: {worst:.2e} > {a.tolerance:.0e}", file=sys.stderr)
        return 1
    print(f"outputs agree within {a.tolerance:.0e}")
    peer_record.keep(a, kept)
    return 0


if __name__ == "__main__":
    sys.exit(main())
