#!/usr/bin/env bash
# compare-llama2c.sh - single-thread token rate of llmkit against llama2.c's run.c
# on the same llama2.c checkpoint (stories260K by default).
#
#   tools/compare-llama2c.sh [-L LLAMA2C] [-m MODEL.bin] [-z TOKENIZER.bin] [-n STEPS]
#                            [-r REPS] [--build] [--bench PATH] [--convert PATH]
#
# LLAMA2C: a llama2.c checkout (with run.c and/or a built `run`) or the `run`
# binary itself; default /tmp/llama2.c. --build (or a checkout without `run`)
# compiles run.c into a temp dir as the fixtures did:
#   gcc -O3 -march=native -ffast-math -fopenmp run.c -lm
# MODEL/TOKENIZER default to ../shared/fixtures/stories260K/{stories260K,tok512}.bin.
# STEPS (default 512 = stories260K's seq_len) and REPS (default 10; alternating
# llama2.c / llmkit). run.c's timer has 1 ms resolution: use many steps and reps.
#
# llama2.c: OMP_NUM_THREADS=1 run MODEL -z TOK -t 0 -n STEPS -i "Once upon a time"
#   prints "achieved tok/s: X" = (STEPS-1) / time after the first forward
#   (prompt tokens are fed one at a time, like generated ones).
# llmkit: the checkpoint is converted with build/convert-llama2c (F32, as
#   run.c uses it), then `build/bench -p 0 -n STEPS -t 1 --kv f32` times STEPS
#   single-token decodes from an empty F32 KV cache (the same work per token).
# Also checks that our greedy continuation of the same prompt (examples'
# generate, --temp 0) matches llama2.c's text and says so.
set -u
FIX=${LK_FIXTURES:-../shared/fixtures}
L2C=/tmp/llama2.c; MODEL=$FIX/stories260K/stories260K.bin; TOK=$FIX/stories260K/tok512.bin
STEPS=512; REPS=10; BUILD=0; BENCH=build/bench; CONVERT=build/convert-llama2c; GEN=build/generate
PROMPT="Once upon a time"
usage() { sed -n '2,24p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
while [ $# -gt 0 ]; do
  case "$1" in
    -L) L2C=$2; shift 2 ;;
    -m) MODEL=$2; shift 2 ;;
    -z) TOK=$2; shift 2 ;;
    -n) STEPS=$2; shift 2 ;;
    -r) REPS=$2; shift 2 ;;
    --build) BUILD=1; shift ;;
    --bench) BENCH=$2; shift 2 ;;
    --convert) CONVERT=$2; shift 2 ;;
    -h|--help) usage ;;
    *) echo "compare-llama2c: unknown argument $1" >&2; usage ;;
  esac
done
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
if [ -f "$L2C" ] && [ -x "$L2C" ]; then RUN=$L2C
elif [ -d "$L2C" ]; then
  if [ $BUILD = 1 ] || [ ! -x "$L2C/run" ]; then
    [ -f "$L2C/run.c" ] || { echo "compare-llama2c: no run.c in $L2C" >&2; exit 1; }
    gcc -O3 -march=native -ffast-math -fopenmp "$L2C/run.c" -lm -o "$tmp/run" || exit 1
    RUN=$tmp/run
  else RUN=$L2C/run; fi
else echo "compare-llama2c: llama2.c not found at $L2C (pass -L DIR or -L path/to/run)" >&2; exit 1; fi
for f in "$MODEL" "$TOK"; do [ -r "$f" ] || { echo "compare-llama2c: cannot read $f" >&2; exit 1; }; done
for f in "$BENCH" "$CONVERT"; do [ -x "$f" ] || { echo "compare-llama2c: $f not found (run make)" >&2; exit 1; }; done

"$CONVERT" "$MODEL" "$TOK" "$tmp/model.gguf" > "$tmp/convert.log" 2>&1 || { cat "$tmp/convert.log" >&2; exit 1; }

l2c=(); ours=()
for ((i = 1; i <= REPS; i++)); do
  OMP_NUM_THREADS=1 "$RUN" "$MODEL" -z "$TOK" -t 0 -n "$STEPS" -i "$PROMPT" > "$tmp/l2c.out" 2> "$tmp/l2c.err" || {
    echo "compare-llama2c: $RUN failed:" >&2; cat "$tmp/l2c.err" >&2; exit 1; }
  v=$(sed -n 's/^achieved tok\/s: *\([0-9.eE+-]*\).*/\1/p' "$tmp/l2c.err" "$tmp/l2c.out" | head -1)
  [ -n "$v" ] || { echo "compare-llama2c: no 'achieved tok/s' in llama2.c's output" >&2; cat "$tmp/l2c.err" >&2; exit 1; }
  l2c+=("$v")
  OMP_NUM_THREADS=1 "$BENCH" -m "$tmp/model.gguf" -p 0 -n "$STEPS" -t 1 -r 1 --kv f32 -o csv --no-bw > "$tmp/ours.csv" 2> "$tmp/ours.err" || {
    echo "compare-llama2c: $BENCH failed:" >&2; cat "$tmp/ours.err" >&2; exit 1; }
  # avg_ts is the 14th csv column (model_filename and model_type are quoted without commas)
  v=$(tail -1 "$tmp/ours.csv" | awk -F, '{print $14}')
  ours+=("$v")
done

stats() { printf '%s\n' "$@" | awk '{s+=$1; q+=$1*$1; n++; if (n==1||$1>mx) mx=$1} END {m=s/n; sd=(n>1)?sqrt((q-s*s/n)/(n-1)):0; if (sd!=sd) sd=0; printf "%.1f ± %.1f (best %.1f)", m, sd, mx}'; }
mean() { printf '%s\n' "$@" | awk '{s+=$1; n++} END {printf "%.6f", s/n}'; }
echo "| implementation | tok/s, 1 thread, $STEPS steps, $REPS reps |"
echo "| --- | ---: |"
echo "| llama2.c run.c ($RUN) | $(stats "${l2c[@]}") |"
echo "| llmkit bench tg$STEPS (F32 GGUF of the same checkpoint) | $(stats "${ours[@]}") |"
echo
echo "ratio llmkit / llama2.c (means): $(awk -v a="$(mean "${ours[@]}")" -v b="$(mean "${l2c[@]}")" 'BEGIN {printf "%.3f", a/b}')"

# same text? llama2.c prints the prompt and the continuation
if [ -x "$GEN" ]; then
  # run.c prints STEPS - (prompt tokens incl. BOS - 1) tokens; BOS + 4 tokens for this prompt
  "$GEN" -m "$tmp/model.gguf" -p "$PROMPT" -n $((STEPS - 4)) --temp 0 -t 1 > "$tmp/ours.txt" 2> /dev/null
  tr -d '\n' < "$tmp/l2c.out" > "$tmp/a"; tr -d '\n' < "$tmp/ours.txt" > "$tmp/b"
  n=$(wc -c < "$tmp/a"); nb=$(wc -c < "$tmp/b"); [ "$nb" -lt "$n" ] && n=$nb; [ "$n" -gt 300 ] && n=300
  if [ "$n" -gt 0 ] && cmp -s <(head -c "$n" "$tmp/a") <(head -c "$n" "$tmp/b"); then
    echo "greedy text: the first $n bytes match llama2.c's"
  else
    echo "greedy text: differs from llama2.c's in the first $n bytes (see the two outputs below)"
    head -c 300 "$tmp/l2c.out"; echo; echo ---; head -c 300 "$tmp/ours.txt"; echo
  fi
fi
