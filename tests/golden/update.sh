#!/usr/bin/env bash
# Regenerates the golden text of every lesson (colour off, 100 columns) from build/src/qkv.
# Read the diff before committing: a golden file is a claim that this output is right.
set -euo pipefail
cd "$(dirname "$0")/../.."
qkv=${QKV_BIN:-build/src/qkv}
for n in $("$qkv" list --format json | python3 -c 'import json,sys; print(*[l["number"] for l in json.load(sys.stdin)["lessons"]])'); do
  for lang in en zh; do
    COLUMNS=100 "$qkv" lesson "$n" --lang "$lang" --color never > "tests/golden/lesson-$(printf %02d "$n").$lang.txt"
  done
done
