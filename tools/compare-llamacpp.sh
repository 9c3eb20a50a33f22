#!/usr/bin/env bash
# compare-llamacpp.sh - llmkit's bench against llama.cpp's llama-bench on the same files.
#
#   tools/compare-llamacpp.sh [-B LLAMA_BUILD_DIR] [-t THREADS] [-r REPS] [-p LIST] [-n LIST] [-d LIST]
#                             [--rounds K] [--bench PATH] [--keep DIR] MODEL.gguf...
#   tools/compare-llamacpp.sh --report DIR MODEL.gguf...   (table from a --keep DIR, e.g. of a cut-short run)
#
# Defaults: -B the current llama.cpp that tools/llamacpp.sh builds (0c1e570; pass
# -B /path/to/build for another, e.g. c392e5094 that made the fixtures), -t 2,
# -r 3, -p 64,512, -n 128, -d 0, --rounds 1, --bench build/bench. For every round, model and test (ppN for each -p value,
# tgN for each -n value, each at every depth of -d: "tg128@d4096", both tools' -d) it runs llama-bench and then our bench (the order
# flips every round), each with the same file, thread count and REPS
# repetitions, and collects the per-repetition t/s from both tools' -o json
# output. It prints a markdown table: mean ± stddev t/s over all samples of
# each tool, the ratio llmkit / llama.cpp of the means and of the best
# samples (robust to other load on the machine), and for tg tests the weight-read
# rate (lk_model_weight_bytes x t/s, GB/s) of both and that as a percentage of
# the memory-read bandwidth our bench measured in the same run.
# --keep DIR keeps the raw json files (written as they finish). Needs bash and python3.
set -u
LB=; T=2; R=3; P=64,512; N=128; D=0; ROUNDS=1
BENCH=build/bench; KEEP=; REPORT=
usage() { sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
models=()
while [ $# -gt 0 ]; do
  case "$1" in
    -B) LB=$2; shift 2 ;;
    -t) T=$2; shift 2 ;;
    -r) R=$2; shift 2 ;;
    -p) P=$2; shift 2 ;;
    -n) N=$2; shift 2 ;;
    -d) D=$2; shift 2 ;;
    --rounds) ROUNDS=$2; shift 2 ;;
    --bench) BENCH=$2; shift 2 ;;
    --keep) KEEP=$2; shift 2 ;;
    --report) REPORT=$2; shift 2 ;;
    -h|--help) usage ;;
    -*) echo "compare-llamacpp: unknown option $1" >&2; usage ;;
    *) models+=("$1"); shift ;;
  esac
done
[ ${#models[@]} -gt 0 ] || usage
[ -n "$LB" ] || [ -n "$REPORT" ] || LB=$("$(dirname "$0")"/llamacpp.sh --dir) ||
  { echo "compare-llamacpp: no llama.cpp build: run tools/llamacpp.sh (or pass -B LLAMA_BUILD_DIR)" >&2; exit 1; }
LBENCH=$LB/bin/llama-bench
if [ -n "$REPORT" ]; then out=$REPORT; ROUNDS=0; LBENCH=/bin/true; BENCH=/bin/true; fi
[ -x "$LBENCH" ] || { echo "compare-llamacpp: $LBENCH not found (pass -B LLAMA_BUILD_DIR)" >&2; exit 1; }
[ -x "$BENCH" ] || { echo "compare-llamacpp: $BENCH not found (run make, or pass --bench)" >&2; exit 1; }
command -v python3 >/dev/null || { echo "compare-llamacpp: python3 is needed to read the JSON" >&2; exit 1; }
for m in "${models[@]}"; do [ -r "$m" ] || { echo "compare-llamacpp: cannot read $m" >&2; exit 1; }; done
if [ -n "$REPORT" ]; then :
elif [ -n "$KEEP" ]; then mkdir -p "$KEEP"; out=$KEEP; else out=$(mktemp -d); trap 'rm -rf "$out"' EXIT; fi

tests=()
IFS=, read -ra ds <<< "$D"
for d in "${ds[@]}"; do
  [ "$d" -ge 0 ] 2>/dev/null || { echo "compare-llamacpp: -d expects depths >= 0, got '$d'" >&2; exit 2; }
  if [ "$d" -gt 0 ]; then at="@d$d"; else at=; fi
  IFS=, read -ra ps <<< "$P"; for p in "${ps[@]}"; do [ "$p" -gt 0 ] 2>/dev/null && tests+=("pp$p$at"); done
  IFS=, read -ra ns <<< "$N"; for n in "${ns[@]}"; do [ "$n" -gt 0 ] 2>/dev/null && tests+=("tg$n$at"); done
done
[ ${#tests[@]} -gt 0 ] || { echo "compare-llamacpp: no tests" >&2; exit 2; }

echo "# llama.cpp: $LBENCH; llmkit: $BENCH; threads $T; $R reps x $ROUNDS round(s); tests ${tests[*]}" >&2
k=0
for ((round = 1; round <= ROUNDS; round++)); do
  for mi in "${!models[@]}"; do
    m=${models[$mi]}
    for t in "${tests[@]}"; do
      tt=${t%@d*}; da=0; [ "$tt" != "$t" ] && da=${t#*@d}
      case "$tt" in pp*) pa=${tt#pp}; na=0 ;; tg*) pa=0; na=${tt#tg} ;; esac
      if [ $((round % 2)) = 1 ]; then order="llama ours"; else order="ours llama"; fi
      for tool in $order; do
        k=$((k + 1))
        f="$out/$k.$tool.m$mi.$t.json"
        echo "# round $round: $tool $t $(basename "$m")" >&2
        start=$(date +%s)
        if [ $tool = llama ]; then exe=$LBENCH; bw=; else exe=$BENCH; bw=--no-bw; fi
        # run it as a child of python to read its peak resident memory (ru_maxrss, KiB) into $f.rss
        python3 -c 'import resource, subprocess, sys
rc = subprocess.call(sys.argv[3:], stdout=open(sys.argv[1], "w"), stderr=open(sys.argv[2], "w"))
open(sys.argv[1] + ".rss", "w").write("%d\n" % resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
sys.exit(rc)' "$f" "$f.err" "$exe" -m "$m" -p "$pa" -n "$na" -d "$da" -t "$T" -r "$R" -o json $bw
        rc=$?
        if [ $rc -ne 0 ]; then echo "compare-llamacpp: $tool failed on $m $t (exit $rc):" >&2; tail -5 "$f.err" >&2; exit 1; fi
        echo "#   $(( $(date +%s) - start )) s" >&2
      done
      # memory-read bandwidth after each tg test, in its own process (its buffer would count in the RSS)
      case "$t" in tg*) k=$((k + 1)); "$BENCH" --bw-only -t "$T" > "$out/$k.bw" 2>/dev/null || rm -f "$out/$k.bw" ;; esac
    done
  done
done

python3 - "$out" "$T" "${models[@]}" <<'EOF'
import json, glob, os, sys, statistics as st
out, threads, models = sys.argv[1], sys.argv[2], sys.argv[3:]
samples = {}   # (model index, test, tool) -> [t/s]
rss = {}       # (model index, test, tool) -> peak resident MiB of the whole run
info = {}      # model index -> weight_bytes
for f in sorted(glob.glob(os.path.join(out, "*.json"))):
    _, tool, mi, test, _ = os.path.basename(f).split(".", 4)
    mi = int(mi[1:])
    try:
        r = int(open(f + ".rss").read()) / 1024.0
        rss[(mi, test, tool)] = max(rss.get((mi, test, tool), 0), r)
    except (OSError, ValueError):
        pass
    try:
        recs = json.load(open(f))
    except ValueError:
        continue          # a run that was cut short
    for rec in recs:
        if rec.get("n_prompt", 0) + rec.get("n_gen", 0) == 0: continue
        samples.setdefault((mi, test, tool), []).extend(rec["samples_ts"])
        if tool == "ours":
            info[mi] = rec.get("weight_bytes", info.get(mi, 0))
bwbest = 0.0
for f in glob.glob(os.path.join(out, "*.bw")):
    try:
        bwbest = max(bwbest, json.load(open(f))["mem_bw_gbs"])
    except (OSError, ValueError, KeyError):
        pass
def ms(v):
    return (st.mean(v), st.stdev(v) if len(v) > 1 else 0.0) if v else (float("nan"), 0.0)
print("| model | test | llmkit t/s | llama.cpp t/s | llmkit / llama.cpp | ratio of best samples | llmkit GB/s (% bw) | llama.cpp GB/s (% bw) | peak RSS MiB llmkit / llama.cpp |")
print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
def tkey(t):   # ppN before tgN, by depth then size: "tg128@d4096"
    n, _, d = t.partition("@d")
    return (int(d or 0), n[:2] != "pp", int(n[2:]))
tests = sorted({k[1] for k in samples}, key=tkey)
bws = set()
for mi, m in enumerate(models):
    for t in tests:
        a, b = samples.get((mi, t, "ours"), []), samples.get((mi, t, "llama"), [])
        if not a and not b: continue
        (am, asd), (bm, bsd) = ms(a), ms(b)
        ratio = am / bm if b and a and bm > 0 else float("nan")
        rbest = max(a) / max(b) if a and b and max(b) > 0 else float("nan")
        g1 = g2 = ""
        if t.startswith("tg") and mi in info:   # (at depth the cache is read too: GB/s counts the weights only)
            wb, bw = info[mi], bwbest
            bws.add(round(bw, 2))
            def fmt(x):
                gbs = wb * x / 1e9
                return "%.2f (%.1f%%)" % (gbs, 100 * gbs / bw) if bw > 0 else "%.2f" % gbs
            g1, g2 = fmt(am), fmt(bm)
        ra, rb = rss.get((mi, t, "ours")), rss.get((mi, t, "llama"))
        rs = "%.0f / %.0f" % (ra, rb) if ra and rb else ""
        print("| %s | %s | %.2f ± %.2f | %.2f ± %.2f | %.3f | %.3f | %s | %s | %s |" % (os.path.basename(m), t, am, asd, bm, bsd, ratio, rbest, g1, g2, rs))
print()
print("threads: %s; t/s: mean ± stddev over repetitions x rounds; ratio of best: max llmkit sample / max llama.cpp sample" % threads)
print("(less sensitive to other load on a shared machine); GB/s = lk_model_weight_bytes x mean t/s;")
print("peak RSS: the largest resident set of one whole benchmark process (load, context of prompt + generated tokens, all repetitions);")
print("%% bw = of the best memory-read bandwidth measured after the tg tests (bench --bw-only: 1 GiB sum, same threads): %s GB/s" %
      ", ".join("%.2f" % x for x in sorted(bws)) if bws else "(no tg tests)")
EOF
