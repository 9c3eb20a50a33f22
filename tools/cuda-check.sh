#!/usr/bin/env bash
# cuda-check.sh - everything llmkit_cuda.h needs a GPU for, in one run (for a
# GPU machine; `make cuda` and build/synth first, or point the variables at
# binaries built elsewhere):
#   1. tests/test_cuda: the kernels against the CPU, the forward pass against
#      llama.cpp's logits on the fixtures ($LK_FIXTURES), batch independence,
#      truncation, errors;
#   2. tools/bench-cuda on synthetic TinyLlama-1.1B files (Q4_0, Q8_0,
#      Q4_K_M, Q6_K, F16, BF16) and a SmolLM-135M-shaped Q4_0, made by
#      tools/synth: pp512 and tg128, the weights' read rate against the GPU's
#      read bandwidth, and GPU vs CPU logits after 32 tokens.
#   3. with BASE=REV: the same bench from llmkit_cuda.h as of git revision
#      REV (built here with nvcc $CUDA_ARCH), alternated with this build's,
#      twice, for a before/after on one machine in one run.
# Usage: tools/cuda-check.sh [OUTDIR]      (default build/cuda-check)
# Variables: TEST (build/tests/test_cuda), BENCH (build/bench-cuda),
#   SYNTH (build/synth), MODELS (a scratch folder, default $TMPDIR/llmkit-cuda),
#   TYPES (the 1.1B types), REPS (5), BASE (none), CUDA_ARCH (-arch=native).
set -uo pipefail
out=${1:-build/cuda-check}
TEST=${TEST:-build/tests/test_cuda}; BENCH=${BENCH:-build/bench-cuda}; SYNTH=${SYNTH:-build/synth}
MODELS=${MODELS:-${TMPDIR:-/tmp}/llmkit-cuda}; TYPES=${TYPES:-Q4_0 Q8_0 Q4_K_M Q6_K F16 BF16}; REPS=${REPS:-5}
mkdir -p "$out" "$MODELS" || exit 1
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$out/gpu.txt"
rc=0
timeout 400 "$TEST" > "$out/test.log" 2>&1; t=$?
grep -E '^(FAIL|SKIP)|^  [^ ]' "$out/test.log" | head -150
echo "test_cuda: $(grep -c '^PASS' "$out/test.log") passed, $(grep -c '^FAIL' "$out/test.log") failed, $(grep -c '^SKIP' "$out/test.log") skipped, exit $t"
[ $t -eq 0 ] || rc=1
files=()
for ty in $TYPES; do
  f=$MODELS/tinyllama-1.1b-$ty.gguf
  [ -s "$f" ] || "$SYNTH" --preset tinyllama-1.1b --type "$ty" -t "$(nproc)" -q -o "$f" || { echo "synth $ty failed"; rc=1; continue; }
  files+=(-m "$f")
done
f=$MODELS/smollm-135m-Q4_0.gguf
[ -s "$f" ] || "$SYNTH" --preset smollm-135m --type Q4_0 -t "$(nproc)" -q -o "$f" && files+=(-m "$f")
timeout 300 "$BENCH" "${files[@]}" -p 512 -n 128 -r "$REPS" --cpu-check 32 2>&1 | tee "$out/bench.md"; [ "${PIPESTATUS[0]}" -eq 0 ] || rc=1
if [ -n "${BASE:-}" ]; then
  b=$out/base; mkdir -p "$b"
  if git show "$BASE:llmkit_cuda.h" > "$b/llmkit_cuda.h" && git show "$BASE:llmkit.h" > "$b/llmkit.h" &&
     nvcc -O2 ${CUDA_ARCH:--arch=native} -I"$b" -Itools -Xcompiler -O2,-march=native,-fopenmp tools/bench-cuda.cu -o "$b/bench-cuda" -lm; then
    for k in 1 2; do
      echo "== $BASE (run $k)"; timeout 300 "$b/bench-cuda" "${files[@]}" -p 512 -n 128 -r "$REPS" 2>&1 | tee "$out/bench-base-$k.md"
      echo "== this build (run $k)"; timeout 300 "$BENCH" "${files[@]}" -p 512 -n 128 -r "$REPS" 2>&1 | tee "$out/bench-this-$k.md"
    done
  else echo "BASE=$BASE: could not build its bench-cuda"; rc=1; fi
fi
exit $rc
