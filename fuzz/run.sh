#!/usr/bin/env bash
# Fuzz one target for a while: fuzz/run.sh TARGET SECONDS
#   TARGET: formula | lesson | scenario | csv | answer | exercise | toml | progress
# Builds build-fuzz (clang, -Dfuzz=true) when needed, seeds the corpus from lessons/, data/,
# tests/data/ and lessons/exercises/, runs libFuzzer on one core and prints its final figures.
# Corpus, log and any crash input go to build-fuzz/{corpus,logs,crashes}/; keep each crash as a
# regression in tests/data/fuzz-regressions/TARGET/ (tests/test_fuzz_regressions.cpp replays them).
set -euo pipefail
cd "$(dirname "$0")/.."
target=${1:?usage: fuzz/run.sh TARGET SECONDS}
seconds=${2:?usage: fuzz/run.sh TARGET SECONDS}
case "$target" in formula|lesson|scenario|csv|answer|exercise|toml|progress) ;; *) echo "unknown target '$target'" >&2; exit 2;; esac

bash fuzz/setup.sh
[ -d build-fuzz ] || CXX=clang++ meson setup build-fuzz -Dfuzz=true -Dbuildtype=debugoptimized >/dev/null
meson compile -C build-fuzz "fuzz_$target" >/dev/null

corpus=build-fuzz/corpus/$target seeds=build-fuzz/seeds/$target
mkdir -p "$corpus" "$seeds" build-fuzz/logs build-fuzz/crashes
regressions=tests/data/fuzz-regressions/$target
copy() { for f in "$@"; do [ -f "$f" ] && cp "$f" "$seeds/$(echo "$f" | tr / _)"; done; return 0; }
shopt -s nullglob
case "$target" in
  formula)   # every formula, setup, expected value and mistake the lessons and exercises hold
    python3 - "$seeds" lessons/*.toml lessons/exercises/*.toml <<'PY'
import sys, tomllib, hashlib, pathlib
out = pathlib.Path(sys.argv[1])
def walk(v):
    if isinstance(v, dict):
        for k, x in v.items():
            if k in ("formula", "setup", "expected") and isinstance(x, str): yield x
            elif k == "mistakes" and isinstance(x, dict):
                for m in x.values(): yield from ([m] if isinstance(m, str) else m)
            else: yield from walk(x)
    elif isinstance(v, list):
        for x in v: yield from walk(x)
for f in sys.argv[2:]:
    for text in walk(tomllib.load(open(f, "rb"))):
        if "=" not in text: text = "Y = " + text
        (out / hashlib.sha1(text.encode()).hexdigest()).write_text(text)
PY
    extra=(-dict=fuzz/formula.dict -max_len=4096) ;;  # long enough for 1000-deep chains and nesting
  lesson)    copy lessons/*.toml tests/data/bad/lessons/*.toml; extra=(-max_len=16384) ;;
  scenario)  copy data/*.toml tests/data/bad/*.toml; extra=(-max_len=8192) ;;
  csv)       copy tests/data/bad/*.csv; extra=(-max_len=4096) ;;
  exercise)  copy lessons/exercises/[0-9]*.toml; extra=(-max_len=16384) ;;
  toml)      # every TOML file qkv reads, and keys dotted deep, under a header and inline
    copy lessons/*.toml lessons/exercises/*.toml data/*.toml tests/data/bad/*.toml
    python3 -c 'print(".".join(["a"] * 250) + " = 1")' > "$seeds/dotted-250"
    python3 -c 'print("[t]\nx = { " + ".".join(["b"] * 250) + " = 1 }")' > "$seeds/inline-dotted-250"
    extra=(-max_len=16384) ;;
  progress)  # a progress file as qkv writes it, and as a hand edit may leave it
    printf '{"version":1,"lessons_read":[1,2],"exercises":{"3.1":{"status":"wrong","attempts":1,"hints":4}}}' > "$seeds/hints"
    printf '{"version":1,"exercises":{"1.2":{"status":"right","attempts":2,"hints":1}}}' > "$seeds/right"
    extra=(-max_len=4096) ;;
  answer)    # first byte: 0 choice, 1 shape, 2 number, 3 matrix
    printf '\0B' > "$seeds/choice"; printf '\1(100, 64)' > "$seeds/shape"; printf '\1100×100' > "$seeds/shape2"
    printf '\2 1/4' > "$seeds/number"; printf '\2-.5e-1' > "$seeds/number2"
    printf '\3[[1, 2], [3, 4]]' > "$seeds/matrix"; printf '\3[1, 2, 3]' > "$seeds/matrix2"
    for f in tests/data/bad/*.csv; do { printf '\3'; cat "$f"; } > "$seeds/$(basename "$f")"; done
    extra=(-max_len=1024) ;;
esac
[ -d "$regressions" ] && copy "$regressions"/*

log=build-fuzz/logs/$target.log
echo "fuzzing $target for ${seconds}s (log: $log)" >&2
status=0
ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=0 \
UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 OPENBLAS_NUM_THREADS=1 \
  "build-fuzz/fuzz/fuzz_$target" "$corpus" "$seeds" "${extra[@]}" \
    -max_total_time="$seconds" -timeout=25 -rss_limit_mb=3072 -malloc_limit_mb=1100 \
    -artifact_prefix="build-fuzz/crashes/$target-" -print_final_stats=1 >"$log" 2>&1 || status=$?
grep -E '^(#[0-9]+.*(DONE|pulse)|stat::)' "$log" | tail -n 12
grep -E '^(==[0-9]+==ERROR|SUMMARY|.*runtime error)|Test unit written' "$log" || true
exit "$status"
