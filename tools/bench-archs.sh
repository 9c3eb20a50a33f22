#!/usr/bin/env bash
# bench-archs.sh - issue 32's speed check: every generated architecture at a
# benchmark size against llama.cpp, on the same file, with compare-llamacpp.sh.
#
#   tools/bench-archs.sh [-t THREADS] [-r REPS] [-p N] [-n N] [--rounds K] [--size NAME]
#                        [--stories GGUF] OUT_DIR [LABEL...]
#
# For each row of ROWS below (or only the LABELs given) it writes
# OUT_DIR/<label>-<size>-F32.gguf with tools/gen_arch_fixtures.py --size (once),
# makes each of the row's types from it with llama.cpp's llama-quantize (once),
# then runs tools/compare-llamacpp.sh on all of them (llama-bench and build/bench
# alternately, the order flipping every round; raw JSON kept in OUT_DIR/cmp) and
# prints its table and, per file and test, the ratio llmkit / llama.cpp of each
# round's means and their median. Defaults: -t 1 -r 3 -p 128 -n 64 --rounds 3
# --size 100m, the fixtures' stories260K-F32.gguf for the vocabulary.
# A new architecture is one row: its gen_arch_fixtures.py label (the row's
# dimensions passed through dims()) and the llama-quantize types to time.
ROWS=(
  "smollm3 Q8_0 Q4_K_M"
  "mistral3 Q8_0 Q4_K_M"
  "glm4 Q8_0 Q4_K_M"
  "gpt-oss MXFP4_MOE"
  "glm4moe Q8_0 Q4_K_M"
  "deepseek2 Q8_0 Q4_K_M"
  "llama4 Q8_0 Q4_K_M"
  "gemma4 Q8_0 Q4_K_M"
)
set -u
T=1; R=3; P=128; N=64; ROUNDS=3; SIZE=100m
STORIES=$(dirname "$0")/../../shared/fixtures/stories260K/stories260K-F32.gguf
usage() { sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
while [ $# -gt 0 ]; do
  case "$1" in
    -t) T=$2; shift 2 ;;
    -r) R=$2; shift 2 ;;
    -p) P=$2; shift 2 ;;
    -n) N=$2; shift 2 ;;
    --rounds) ROUNDS=$2; shift 2 ;;
    --size) SIZE=$2; shift 2 ;;
    --stories) STORIES=$2; shift 2 ;;
    -h|--help) usage ;;
    -*) echo "bench-archs: unknown option $1" >&2; usage ;;
    *) break ;;
  esac
done
[ $# -ge 1 ] || usage
OUT=$1; shift
LB=$("$(dirname "$0")"/llamacpp.sh --dir) || { echo "bench-archs: no llama.cpp build: run tools/llamacpp.sh" >&2; exit 1; }
SRC=$(dirname "$LB")   # the tree (gguf-py) holds the build
[ -r "$STORIES" ] || { echo "bench-archs: cannot read $STORIES (pass --stories)" >&2; exit 1; }
mkdir -p "$OUT" || exit 1
files=()
for row in "${ROWS[@]}"; do
  read -ra f <<< "$row"
  label=${f[0]}
  if [ $# -gt 0 ]; then want=0; for l in "$@"; do [ "$l" = "$label" ] && want=1; done; [ $want = 1 ] || continue; fi
  base=$OUT/$label-$SIZE
  if [ ! -s "$base-F32.gguf" ]; then
    python3 "$(dirname "$0")"/gen_arch_fixtures.py --size "$SIZE" "$SRC" "$STORIES" "$OUT" "$label" || exit 1
  fi
  for ty in "${f[@]:1}"; do
    if [ ! -s "$base-$ty.gguf" ]; then
      "$LB"/bin/llama-quantize "$base-F32.gguf" "$base-$ty.gguf" "$ty" > "$base-$ty.log" 2>&1 ||
        { echo "bench-archs: llama-quantize $ty failed (see $base-$ty.log)" >&2; exit 1; }
    fi
    files+=("$base-$ty.gguf")
  done
done
[ ${#files[@]} -gt 0 ] || { echo "bench-archs: no row matches" >&2; exit 2; }
rm -rf "$OUT/cmp"
"$(dirname "$0")"/compare-llamacpp.sh -B "$LB" -t "$T" -r "$R" -p "$P" -n "$N" --rounds "$ROUNDS" --keep "$OUT/cmp" "${files[@]}" || exit 1
python3 - "$OUT/cmp" "${files[@]}" <<'EOF'
import json, glob, os, sys, statistics as st
out, models = sys.argv[1], sys.argv[2:]
runs = {}   # (model index, test, tool) -> [mean t/s of each round], in run order
for f in sorted(glob.glob(os.path.join(out, "*.json")), key=lambda p: int(os.path.basename(p).split(".")[0])):
    _, tool, mi, test, _ = os.path.basename(f).split(".", 4)
    try:
        recs = json.load(open(f))
    except ValueError:
        continue
    for rec in recs:
        if rec.get("n_prompt", 0) + rec.get("n_gen", 0) and rec.get("samples_ts"):
            runs.setdefault((int(mi[1:]), test, tool), []).append(st.mean(rec["samples_ts"]))
print("\n| file | test | llmkit / llama.cpp per round | median |")
print("| --- | --- | --- | ---: |")
for (mi, test, tool), ours in sorted(runs.items()):
    if tool != "ours": continue
    theirs = runs.get((mi, test, "llama"), [])
    r = [a / b for a, b in zip(ours, theirs) if b > 0]
    if r:
        print("| %s | %s | %s | %.3f |" % (os.path.basename(models[mi]), test, " ".join("%.3f" % x for x in r), st.median(r)))
EOF
