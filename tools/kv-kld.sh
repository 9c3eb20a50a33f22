#!/bin/bash
# kv-kld.sh: what the KV cache options cost on a real model, as perplexity
# change and KL divergence from the full-precision cache.
#   usage: tools/kv-kld.sh MODEL [TEXT] [CTX]     (from the repository root)
#   defaults: tests/data/agreement.txt, context 512
# First a base run with an f32 cache saves its log-probabilities
# (perplexity --kl-divergence-base, llama-perplexity's format); every other
# row runs on the same tokens with --kl-divergence. Every token is one decode
# step (-b 1), so the evicting policies act as they do while generating.
# Columns: perplexity, change vs f32, mean KL divergence, top-1 agreement
# with the f32 run, KV bytes (lk_context_kv_bytes).
set -e
M=$1; T=${2:-tests/data/agreement.txt}; C=${3:-512}
THREADS=${THREADS:-2}
B=$(mktemp -d); trap 'rm -rf "$B"' EXIT
make -s build/perplexity >&2
build/perplexity -m "$M" -f "$T" -c $C -b 1 -t "$THREADS" --kv-type f32 --kl-divergence-base "$B/base.kld" > "$B/base.out" 2>/dev/null
base=$(sed -n 's/^Final estimate: PPL = \([0-9.]*\) .*/\1/p' "$B/base.out")
bytes=$(sed -n 's/^KV cache: \([0-9]*\) bytes.*/\1/p' "$B/base.out")
echo "| KV cache | PPL | change | mean KLD | same top-1 | KV bytes |"
echo "| --- | ---: | ---: | ---: | ---: | ---: |"
printf '| %-30s | %8.4f | %8s | %9s | %8s | %9d |\n' "f32, full (base)" "$base" "" "" "" "$bytes"
row() {
    label=$1; shift
    out=$(build/perplexity -m "$M" -c $C -b 1 -t "$THREADS" --kl-divergence-base "$B/base.kld" --kl-divergence "$@" 2>/dev/null)
    ppl=$(printf '%s\n' "$out" | sed -n 's/^Mean PPL(Q) *: *\([0-9.]*\).*/\1/p')
    kld=$(printf '%s\n' "$out" | sed -n 's/^Mean    KLD: *\([-0-9.]*\).*/\1/p')
    top=$(printf '%s\n' "$out" | sed -n 's/^Same top p: *\([0-9.]*\).*/\1/p')
    by=$(printf '%s\n' "$out" | sed -n 's/^KV cache: \([0-9]*\) bytes.*/\1/p')
    awk -v l="$label" -v p="$ppl" -v b="$base" -v k="$kld" -v t="$top" -v by="$by" \
        'BEGIN { printf "| %-30s | %8.4f | %+7.2f%% | %9.5f | %7.2f%% | %9d |\n", l, p, 100 * (p - b) / b, k, t, by }'
}
row "f16" --kv-type f16
row "q8_0" --kv-type q8_0
row "q4_0" --kv-type q4_0
for pol in streaming h2o keyformer quest; do
    row "$pol, budget $((C / 2)), f32" --kv-type f32 --kv-policy $pol --kv-budget $((C / 2))
done
