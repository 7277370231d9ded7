#!/usr/bin/python3
"""qkv's attention against ONNX Runtime's fused CPU MultiHeadAttention on the same weights.

For each n, full and causal attention, and each thread count: runs `qkv bench --format json
--dump-dir DIR` (which writes X, W_Q, W_K, W_V, W_O and qkv's output Z as .npy files), builds an ONNX
graph of the same layer from them (bench/compare_ort_model.py: MatMuls and com.microsoft.
MultiHeadAttention, unidirectional = 1 when causal) in a scratch folder, times it in npm's
onnxruntime-node with as many intra-op threads (bench/compare_ort_run.mjs), checks that the outputs
agree and prints qkv's speed as a ratio to ORT's. A tool for people, not a test: it exits 0, saying
how to install them, when python3-onnx, node or onnxruntime-node is missing.

    apt-get install python3-onnx nodejs npm
    ORT_DIR=$(mktemp -d) && (cd "$ORT_DIR" && npm install --ignore-scripts onnxruntime-node)
    /usr/bin/python3 bench/compare_ort.py --ort-dir "$ORT_DIR" --qkv build/src/qkv --openblas-free
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

import avx2_only
import peer_record

try:
    import numpy as np
except ImportError:  # another python3 than Debian's (pyenv, a venv): missing_tools says which to use
    np = None

HERE = os.path.dirname(os.path.abspath(__file__))
RUNNER = os.path.join(HERE, "compare_ort_run.mjs")
WEIGHTS = ("W_Q", "W_K", "W_V", "W_O")
QKV_ENV = dict(os.environ)  # qkv sets its own thread counts; it gets the environment as it came
# The same less OPENBLAS_CORETYPE, for --openblas-free: OpenBLAS then picks the kernel for this CPU.
# Only the qkv command gets it; this process and its environment keep the variable as they found it.
QKV_ENV_FREE = {k: v for k, v in os.environ.items() if k != "OPENBLAS_CORETYPE"}

INSTALL_ORT = """onnxruntime-node is not installed{where}; nothing to compare. Install it in a scratch
folder (--ignore-scripts: its install script would otherwise try to fetch a GPU provider):

    ORT_DIR=$(mktemp -d) && (cd "$ORT_DIR" && npm install --ignore-scripts onnxruntime-node)

then pass --ort-dir "$ORT_DIR" (or set QKV_ORT_DIR)."""


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--qkv", default=os.environ.get("QKV_BIN", "build/src/qkv"),
                    help="the qkv program (default: $QKV_BIN, else build/src/qkv)")
    ap.add_argument("--ort-dir", default=os.environ.get("QKV_ORT_DIR"),
                    help="the folder where `npm install --ignore-scripts onnxruntime-node` was run "
                         "(default: $QKV_ORT_DIR)")
    ap.add_argument("--n", default="4096", help="sequence lengths, comma-separated (default 4096)")
    ap.add_argument("--d-model", type=int, default=512, help="width of each token (default 512)")
    ap.add_argument("--heads", type=int, default=8, help="attention heads h (default 8)")
    ap.add_argument("--threads", default="1,2", help="thread counts, comma-separated (both sides use as many; default 1,2)")
    ap.add_argument("--attention", default="full,causal", help="full, causal or both, comma-separated (default both)")
    ap.add_argument("--impl", default="fused", help="the qkv implementation to compare (default fused)")
    ap.add_argument("--repeats", type=int, default=5, help="timed runs on each side, after one warm-up (default 5)")
    ap.add_argument("--rounds", type=int, default=1,
                    help="times each case is run, qkv and ORT in turn; the table then gives the median of "
                         "the rounds' ratios and their lowest and highest, since a shared machine's speed "
                         "drifts by several percent from minute to minute (default 1)")
    ap.add_argument("--openblas-free", action="store_true",
                    help="also time qkv with OPENBLAS_CORETYPE unset (only in the qkv command), so the "
                         "table has a column for the environment as it is and one with OpenBLAS free (with --avx2, "
                         "Haswell: what it picks on an AVX2 processor)")
    ap.add_argument("--tolerance", type=float, default=1e-4,
                    help="largest |qkv - ORT| / max(1, max |ORT|) allowed. Both are float32 but sum in "
                         "different orders (blocked, online softmax against ORT's own): over d_model "
                         "and n terms that stays under 1e-6 relative (2e-7 to 4e-7 measured at n = 100 "
                         "and 4096); 1e-4 leaves room for larger sizes and is "
                         "still far below a real mistake (the other mask, or one head for eight, gives 0.4 "
                         "to 1); default 1e-4")
    ap.add_argument("--avx2", action="store_true",
                    help="the whole comparison on AVX2 kernels, with AVX-512 hidden from ORT and qkv alike "
                         "(bench/avx2_only.py; needs BUILD/bench/libhide_avx512.so beside BUILD/src/qkv)")
    ap.add_argument("--format", choices=("text", "json"), default="text", help="text (default) or json")
    peer_record.add_arguments(ap)
    return ap.parse_args()


def missing_tools(a):
    """Why the comparison cannot run here, with how to install what is missing; None when it can."""
    try:
        import onnx  # noqa: F401  (compare_ort_model needs it)
    except ImportError:
        onnx = None
    if np is None or onnx is None:
        return (f"{'numpy' if np is None else 'onnx'} is missing from {sys.executable} (Debian: apt-get install "
                "python3-onnx, which brings python3-numpy, and run /usr/bin/python3); nothing to compare.")
    if shutil.which("node") is None:
        return "node is not installed (Debian: apt-get install nodejs npm); nothing to compare."
    if not a.ort_dir or not os.path.isfile(os.path.join(a.ort_dir, "node_modules", "onnxruntime-node", "package.json")):
        return INSTALL_ORT.format(where=f" in {a.ort_dir}" if a.ort_dir else " (no --ort-dir, no QKV_ORT_DIR)")
    return None


def run_qkv(a, n, threads, causal, out_dir, env):
    """qkv's median ms, the OpenBLAS kernel it loaded, and its inputs and output, for one case."""
    cmd = [a.qkv, "bench", "--n", str(n), "--d-model", str(a.d_model), "--heads", str(a.heads),
           "--threads", str(threads), "--impl", a.impl, "--format", "json", "--dump-dir", out_dir]
    if a.repeats:
        cmd += ["--repeats", str(a.repeats)]
    if causal:
        cmd.append("--causal")
    if a.avx2:
        cmd += ["--kernels", "avx2"]
    report = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True, env=env).stdout)
    row = next(r for r in report["results"] if r["impl"] == a.impl and r["n"] == n)
    load = lambda name: np.load(os.path.join(out_dir, name))
    arrays = {name: load(f"{name}.npy") for name in WEIGHTS}
    arrays["X"] = load(f"X_n{n}.npy")
    Z = load(f"Z_{a.impl}_n{n}.npy")
    return {"ms": row["ms"], "corename": report.get("openblas_corename"), "kernels": report.get("fused_kernels"),
            "arrays": arrays, "Z": Z}


def run_ort(a, arrays, n, threads, causal, scratch):
    """ORT's median ms, its version and its output Z for the same inputs and weights."""
    from compare_ort_model import save_attention_model
    tag = f"n{n}_{'causal' if causal else 'full'}"
    model = save_attention_model(os.path.join(scratch, f"attention_{tag}.onnx"), arrays, n, a.d_model, a.heads, causal)
    x_bin, z_bin = os.path.join(scratch, f"X_{tag}.bin"), os.path.join(scratch, f"Z_ort_{tag}_t{threads}.bin")
    np.ascontiguousarray(arrays["X"], dtype="<f4").tofile(x_bin)
    cmd = ["node", RUNNER, a.ort_dir, model, x_bin, str(n), str(a.d_model), str(threads), str(a.repeats), z_bin]
    out = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
    Z = np.fromfile(z_bin, dtype="<f4").reshape(n, a.d_model)
    return {"ms": out["ms"], "version": out["onnxruntime_node"], "Z": Z}


def rel_diff(Z, expect):
    return float(np.max(np.abs(Z - expect)) / max(1.0, float(np.max(np.abs(expect)))))


def same_inputs(x, y):
    return all(np.array_equal(x[k], y[k]) for k in x)


def median(xs):
    xs = sorted(xs)
    mid = len(xs) // 2
    return xs[mid] if len(xs) % 2 else (xs[mid - 1] + xs[mid]) / 2


def run_case(a, n, causal, threads, scratch):
    """One row of the table: ORT against qkv as is (and with OpenBLAS free when asked), a.rounds
    times in turn, so both sides meet the machine's drift alike."""
    label = f"n = {n}, {'causal' if causal else 'full'}, {threads} thread(s)"
    ort_ms, qkv_ms, free_ms, diff, first = [], [], [], 0.0, None
    for r in range(a.rounds):
        round_text = f", round {r + 1} of {a.rounds}" if a.rounds > 1 else ""
        print(f"  qkv {label}{round_text} …", file=sys.stderr, flush=True)
        as_is = run_qkv(a, n, threads, causal, os.path.join(scratch, "as_is"), QKV_ENV)
        if first is None:
            first = as_is
        elif not same_inputs(first["arrays"], as_is["arrays"]):
            raise SystemExit("qkv wrote different inputs on two rounds; cannot compare them to one another")
        print(f"  ORT {label}{round_text} …", file=sys.stderr, flush=True)
        ort = run_ort(a, as_is["arrays"], n, threads, causal, scratch)
        qkv_ms.append(as_is["ms"])
        ort_ms.append(ort["ms"])
        diff = max(diff, rel_diff(as_is["Z"], ort["Z"]))
        if a.openblas_free:
            print(f"  qkv {label}{round_text}, OpenBLAS free …", file=sys.stderr, flush=True)
            free = run_qkv(a, n, threads, causal, os.path.join(scratch, "free"), QKV_ENV if a.avx2 else QKV_ENV_FREE)
            if not same_inputs(as_is["arrays"], free["arrays"]):
                raise SystemExit("qkv wrote different inputs on its two runs; cannot compare them to one ORT run")
            free_ms.append(free["ms"])
            diff = max(diff, rel_diff(free["Z"], ort["Z"]))
    ratios = [o / q for o, q in zip(ort_ms, qkv_ms)]
    row = {"n": n, "attention": "causal" if causal else "full", "threads": threads, "rounds": a.rounds,
           "ort_ms": median(ort_ms), "qkv_ms": median(qkv_ms), "ratio": median(ratios),
           "ratio_low": min(ratios), "ratio_high": max(ratios), "max_rel_diff": diff,
           "openblas_corename": first["corename"], "ort_version": ort["version"], "kernels": first["kernels"]}
    if a.openblas_free:
        free_ratios = [o / q for o, q in zip(ort_ms, free_ms)]
        row.update({"qkv_ms_openblas_free": median(free_ms), "ratio_openblas_free": median(free_ratios),
                    "ratio_openblas_free_low": min(free_ratios), "ratio_openblas_free_high": max(free_ratios),
                    "openblas_free_corename": free["corename"]})
    return row


def render_text(a, rows):
    first = rows[0]
    coretype = os.environ.get("OPENBLAS_CORETYPE")
    env_text = f"OPENBLAS_CORETYPE={coretype}" if coretype else "OPENBLAS_CORETYPE unset"
    lines = [f"qkv {a.impl} vs ONNX Runtime {first['ort_version']} (onnxruntime-node, CPU) "
             f"com.microsoft.MultiHeadAttention: d_model = {a.d_model}, h = {a.heads}",
             f"OpenBLAS kernel qkv loaded: {first['openblas_corename']} (environment as is: {env_text})"
             + (f"; {first['openblas_free_corename']} (OpenBLAS free)" if a.openblas_free else "")]
    if a.avx2:
        lines.append(avx2_only.describe())
    spread = a.rounds > 1  # then each ratio has its rounds' lowest and highest beside it
    head = f"{'n':>6} {'attention':>9} {'threads':>7} {'ORT ms':>10} {'qkv ms':>10} {'ORT/qkv':>8}"
    head += f" {'low–high':>11}" if spread else ""
    if a.openblas_free:
        head += f" {'qkv ms free':>12} {'ORT/free':>9}" + (f" {'low–high':>11}" if spread else "")
    lines.append(head + f" {'max rel diff':>13}")
    for r in rows:
        line = (f"{r['n']:>6} {r['attention']:>9} {r['threads']:>7} {r['ort_ms']:>10.2f} {r['qkv_ms']:>10.2f} "
                f"{r['ratio']:>7.2f}×")
        line += f" {r['ratio_low']:>5.2f}–{r['ratio_high']:.2f}" if spread else ""
        if a.openblas_free:
            line += f" {r['qkv_ms_openblas_free']:>12.2f} {r['ratio_openblas_free']:>8.2f}×"
            line += f" {r['ratio_openblas_free_low']:>5.2f}–{r['ratio_openblas_free_high']:.2f}" if spread else ""
        lines.append(line + f" {r['max_rel_diff']:>13.2e}")
    lines.append("(ORT/qkv is qkv's speed ÷ ORT's, ORT ms / qkv ms: above 1 means qkv is faster; "
                 f"medians of {a.repeats} runs after a warm-up"
                 + (f"; over {a.rounds} rounds, qkv and ORT in turn, the medians of the rounds' times and "
                    "ratios, and the lowest and highest ratio)" if spread else ")"))
    return "\n".join(lines)


def main():
    a = parse_args()
    if a.avx2:
        avx2_only.enter(a.qkv)  # starts this script again under the preload library, once
    why_not = missing_tools(a)
    if why_not:
        print(json.dumps({"skipped": why_not}) if a.format == "json" else why_not)
        return 0
    if not os.access(a.qkv, os.X_OK):
        print(f"no qkv program at {a.qkv} (build it, or pass --qkv / set QKV_BIN)", file=sys.stderr)
        return 2
    if a.avx2:
        avx2_only.check()
    if a.rounds < 1:
        print(f"--rounds takes 1 or more, not {a.rounds}", file=sys.stderr)
        return 2
    sizes = [int(s) for s in a.n.split(",")]
    thread_counts = [int(t) for t in a.threads.split(",")]
    kinds = [k.strip() for k in a.attention.split(",")]
    if not set(kinds) <= {"full", "causal"}:
        print(f"--attention takes full and causal, not {a.attention}", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="qkv-ort-") as scratch:
        try:
            rows = [run_case(a, n, kind == "causal", t, scratch) for n in sizes for kind in kinds for t in thread_counts]
        except subprocess.CalledProcessError as e:  # qkv refused the sizes, or node/ORT failed: say what it said
            print(f"{os.path.basename(e.cmd[0])} failed ({e.returncode}): {e.stderr.strip()}", file=sys.stderr)
            return 2
    worst = max(r["max_rel_diff"] for r in rows)
    agree = worst <= a.tolerance
    if a.format == "json":
        print(json.dumps({"d_model": a.d_model, "heads": a.heads, "impl": a.impl, "repeats": a.repeats,
                          "rounds": a.rounds,
                          "openblas_coretype": os.environ.get("OPENBLAS_CORETYPE"), "tolerance": a.tolerance,
                          "avx2_only": a.avx2,
                          "agree": agree, "rows": rows}, indent=2))
    else:
        print(render_text(a, rows))
        if agree:
            print(f"outputs agree within {a.tolerance:.0e}")
    if not agree:
        print(f"outputs differ: {worst:.2e} > {a.tolerance:.0e}", file=sys.stderr)
        return 1
    record(a, rows)
    return 0


def record(a, rows):
    """The rows, kept for `qkv bench` (bench/peer_record.py); said on standard error."""
    cpu, when, command = peer_record.cpu_name(), peer_record.now(), peer_record.command_line()
    kept = []
    for r in rows:
        row = {"peer": "onnxruntime", "peer_version": r["ort_version"], "pass": "forward", "attention": r["attention"],
               "threads": r["threads"], "n": r["n"], "d_model": a.d_model, "heads": a.heads, "kernels": r["kernels"],
               "cpu": cpu, "qkv_ms": r["qkv_ms"], "peer_ms": r["ort_ms"], "ratio": r["ratio"], "ratio_low": r["ratio_low"],
               "ratio_high": r["ratio_high"], "rounds": r["rounds"], "when": when, "command": command}
        if a.openblas_free:
            row["ratio_openblas_free"] = r["ratio_openblas_free"]
        kept.append(row)
    peer_record.keep(a, kept)


if __name__ == "__main__":
    sys.exit(main())
