#!/usr/bin/env bash
# Line coverage of the engine by the fuzz corpus: fuzz/coverage.sh [TARGET...]
# Builds build-fuzzcov (clang, -Dfuzz=true plus source-based coverage), runs each target once over
# its corpus in build-fuzz/corpus/TARGET (made by fuzz/run.sh) and prints llvm-cov's table of the
# files in src/ that the target reached, then a total over all targets.
set -euo pipefail
cd "$(dirname "$0")/.."
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(formula lesson scenario csv answer exercise)
bash fuzz/setup.sh
flags='-fprofile-instr-generate -fcoverage-mapping'
# anything instrumented that runs while meson sets up or builds writes its profile here, not into
# the source tree
export LLVM_PROFILE_FILE="$PWD/build-fuzzcov/stray-%p.profraw"
[ -d build-fuzzcov ] || CXX=clang++ meson setup build-fuzzcov -Dfuzz=true -Dbuildtype=debugoptimized \
  -Dcpp_args="$flags" -Dcpp_link_args="$flags" >/dev/null
out=build-fuzzcov/profiles
rm -rf "$out"; mkdir -p "$out"
objects=()
for t in "${targets[@]}"; do
  meson compile -C build-fuzzcov "fuzz_$t" >/dev/null
  corpus=build-fuzz/corpus/$t
  [ -d "$corpus" ] || { echo "no corpus for $t: run fuzz/run.sh $t SECONDS first" >&2; exit 2; }
  LLVM_PROFILE_FILE="$out/$t.profraw" ASAN_OPTIONS=detect_leaks=0 OPENBLAS_NUM_THREADS=1 \
    "build-fuzzcov/fuzz/fuzz_$t" -runs=0 -artifact_prefix=build-fuzzcov/ "$corpus" >/dev/null 2>&1
  llvm-profdata merge -sparse "$out/$t.profraw" -o "$out/$t.profdata"
  echo "== $t: $(find "$corpus" -type f | wc -l) inputs"
  llvm-cov report "build-fuzzcov/fuzz/fuzz_$t" -instr-profile="$out/$t.profdata" src/ | sed -n '1,2p;/^TOTAL/p'
  objects+=(-object "build-fuzzcov/fuzz/fuzz_$t")
done
llvm-profdata merge -sparse "$out"/*.profraw -o "$out/all.profdata"
echo "== all targets together, per file"
llvm-cov report "${objects[@]:1}" -instr-profile="$out/all.profdata" src/
