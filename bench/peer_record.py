"""The record of what bench/compare_ort.py and bench/compare_torch.py measured on this machine.

Each comparison that ends with outputs in agreement adds its rows to one JSON file, by default
$XDG_STATE_HOME/qkv/peers.json (else ~/.local/state/qkv/peers.json), the folder qkv keeps its
progress in; `qkv bench` reads it and says, for the kernels it runs, which of the peer cases were
measured and what they gave (README, "qkv bench and the peers"). A row replaces the row of the same
case: peer, pass, attention, threads, n, d_model, heads, qkv's kernels and the CPU.

    {"version": 1, "rows": [{"peer": "onnxruntime", "peer_version": "1.30.0", "pass": "forward",
      "attention": "full", "threads": 1, "n": 4096, "d_model": 512, "heads": 8, "kernels": "avx2",
      "cpu": "AMD EPYC 7B13", "qkv_ms": 729.1, "peer_ms": 942.0, "ratio": 1.29, "ratio_low": 1.05,
      "ratio_high": 1.53, "rounds": 5, "ratio_openblas_free": 1.27, "when": "2026-11-28T04:10:00Z",
      "command": "bench/compare_ort.py --avx2 --rounds 5"}]}

ratio is the peer's time over qkv's (above 1: qkv is faster), the median over the rounds;
ratio_low and ratio_high its lowest and highest. A file that is not such a record is never written
over: the script says so and leaves it.
"""
import datetime
import json
import os
import shlex
import sys
import tempfile

VERSION = 1
KEY = ("peer", "pass", "attention", "threads", "n", "d_model", "heads", "kernels", "cpu")


def default_path():
    state = os.environ.get("XDG_STATE_HOME", "")
    if not os.path.isabs(state):  # the XDG spec ignores a relative one
        state = os.path.join(os.path.expanduser("~"), ".local", "state")
    return os.path.join(state, "qkv", "peers.json")


def cpu_name():
    """The processor's name as /proc/cpuinfo's first "model name" gives it ("" when there is none)."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            for line in f:
                key, _, value = line.partition(":")
                if key.strip() == "model name":
                    return value.strip()
    except OSError:
        pass
    return ""


def command_line():
    """How this comparison was started, as a shell would read it back."""
    return " ".join(shlex.quote(w) for w in [os.path.relpath(sys.argv[0])] + sys.argv[1:])


def now():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def read(path):
    """The rows of the record at path ([] when there is none); SystemExit when it is not a record."""
    try:
        with open(path, encoding="utf-8") as f:
            record = json.load(f)
    except FileNotFoundError:
        return []
    except (OSError, ValueError) as e:
        raise SystemExit(f"{path}: not a record of peer comparisons ({e}); move it away, or pass --record FILE")
    if not isinstance(record, dict) or record.get("version") != VERSION or not isinstance(record.get("rows"), list):
        raise SystemExit(f"{path}: not a version {VERSION} record of peer comparisons; move it away, or pass --record FILE")
    return record["rows"]


def add(path, rows):
    """Adds rows to the record at path, each replacing the row of its case; written whole or not at all."""
    kept = [r for r in read(path) if not any(all(r.get(k) == new[k] for k in KEY) for new in rows)]
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    with tempfile.NamedTemporaryFile("w", encoding="utf-8", dir=folder, prefix=".peers-", suffix=".json", delete=False) as f:
        json.dump({"version": VERSION, "rows": kept + rows}, f, indent=1)
        f.write("\n")
        f.flush()
        os.fsync(f.fileno())
    os.replace(f.name, path)


def add_arguments(ap):
    ap.add_argument("--record", default=default_path(),
                    help="the file that keeps what was measured, for `qkv bench` (default: %(default)s)")
    ap.add_argument("--no-record", action="store_true", help="keep nothing of this comparison")


def one_round(a, peer, peer_version, pass_name, n, kernels, qkv_ms, peer_ms):
    """A case measured once, from a script's arguments (a.causal, a.threads, a.d_model, a.heads): its
    lowest and highest ratio are itself."""
    ratio = peer_ms / qkv_ms
    return {"peer": peer, "peer_version": peer_version, "pass": pass_name, "attention": "causal" if a.causal else "full",
            "threads": a.threads, "n": n, "d_model": a.d_model, "heads": a.heads, "kernels": kernels, "cpu": cpu_name(),
            "qkv_ms": qkv_ms, "peer_ms": peer_ms, "ratio": ratio, "ratio_low": ratio, "ratio_high": ratio, "rounds": 1,
            "when": now(), "command": command_line()}


def keep(a, rows):
    """Adds rows to a.record unless a.no_record, and says so on standard error."""
    if a.no_record or not rows:
        return
    add(a.record, rows)
    print(f"kept in {a.record} for qkv bench", file=sys.stderr)
