#!/bin/bash
# kv-table.sh: the table of KV types and KV policies in tools/PERFORMANCE.md on stories260K.
#   usage: tools/kv-table.sh [MODEL] [TEXT]      (from the repository root)
#   defaults: ../shared/fixtures/stories260K/stories260K-F32.gguf, tests/data/stories-long.txt
# Runs build/perplexity at context 512 with -b 1 (every token is one decode
# step, so the speed column is decode tokens/s; the perplexity is scored as
# llama-perplexity does: second half of each 512-token window), one thread.
# Rows: each KV storage type with full attention, then each policy at
# budgets 64, 128 and 256 with an f32 cache (so the change column isolates
# the policy), then the LSSA/LSSAR scoring functions (stories260K was
# trained with softmax: these rows only show that they are not drop-in).
# Columns: perplexity, change vs full f32, KV bytes (lk_context_kv_bytes:
# for streaming/h2o/keyformer, what a cache evicting to the budget holds),
# decode tokens/s (machine dependent).
set -e
M=${1:-../shared/fixtures/stories260K/stories260K-F32.gguf}
T=${2:-tests/data/stories-long.txt}
C=512
THREADS=${THREADS:-1}
make -s build/perplexity >&2
base=""
row() {
    label=$1; shift
    out=$(build/perplexity -m "$M" -f "$T" -c $C -b 1 -t "$THREADS" "$@" 2>/dev/null)
    ppl=$(printf '%s\n' "$out" | sed -n 's/^Final estimate: PPL = \([0-9.]*\) .*/\1/p')
    bytes=$(printf '%s\n' "$out" | sed -n 's/^KV cache: \([0-9]*\) bytes.*/\1/p')
    tps=$(printf '%s\n' "$out" | sed -n 's/^Speed: .* = \([0-9.]*\) tokens\/s.*/\1/p')
    [ -n "$base" ] || base=$ppl
    awk -v l="$label" -v p="$ppl" -v b="$base" -v by="$bytes" -v t="$tps" \
        'BEGIN { printf "| %-34s | %9.4f | %+8.2f%% | %9d | %8.0f |\n", l, p, 100 * (p - b) / b, by, t }'
}
ntok=$(build/perplexity -m "$M" -f "$T" -c $C -b $C -t "$THREADS" 2>&1 >/dev/null | sed -n 's/^perplexity: \([0-9]*\) tokens.*/\1/p')
echo "stories260K-F32, $T ($ntok tokens), context $C, decode (-b 1), $THREADS thread(s)"
echo
echo "| configuration                      | perplexity | vs f32   | KV bytes  | decode t/s |"
echo "|------------------------------------|-----------:|---------:|----------:|-----------:|"
row "KV f32 (full attention)" --kv-type f32
for k in f16 q8_0 q4_0 zip4 zip2; do row "KV $k" --kv-type $k; done
for p in streaming h2o keyformer quest tokenselect twilight; do
    for b in 64 128 256; do
        extra=""
        [ $p = twilight ] && extra="--twilight-base quest --top-p-attn 0.95"
        row "$p budget $b" --kv-type f32 --kv-policy $p --kv-budget $b $extra
    done
done
row "attn lssa (not trained with it)" --kv-type f32 --attn lssa
row "attn lssar (not trained with it)" --kv-type f32 --attn lssar
