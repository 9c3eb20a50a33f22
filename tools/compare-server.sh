#!/usr/bin/env bash
# compare-server.sh - examples/server.c against llama-server under the same load.
#
#   tools/compare-server.sh [-B LLAMA_BUILD_DIR] [-t THREADS] [-np N] [-c CTX] [-d SECONDS]
#                           [-n TOKENS] [--levels 1,4,8,16] MODEL.gguf
#
# Starts each server in turn on the same file with the same threads, -np and
# -c (llmkit first, then llama-server; each alone on the machine), and runs
# tools/load-server.py against it at every concurrency level. Prints both
# tables. Defaults: -B the llama.cpp build of tools/llamacpp.sh (build it with
# tools/llamacpp.sh --server), -t 2, -np 16, -c 8192 (512 per sequence), -d 20,
# -n 64, --levels 1,4,8,16.
set -u
LB=; T=2; NP=16; CTX=8192; D=20; N=64; LEVELS=1,4,8,16
usage() { sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
while [ $# -gt 0 ]; do
  case "$1" in
    -B) LB=$2; shift 2 ;;
    -t) T=$2; shift 2 ;;
    -np) NP=$2; shift 2 ;;
    -c) CTX=$2; shift 2 ;;
    -d) D=$2; shift 2 ;;
    -n) N=$2; shift 2 ;;
    --levels) LEVELS=$2; shift 2 ;;
    -h|--help) usage ;;
    -*) echo "compare-server.sh: unknown option $1" >&2; usage ;;
    *) break ;;
  esac
done
[ $# -eq 1 ] || usage
M=$1
[ -f "$M" ] || { echo "compare-server.sh: $M: no such file" >&2; exit 1; }
[ -n "$LB" ] || LB=$(bash "$(dirname "$0")/llamacpp.sh" --dir 2>/dev/null) || true
LS=$LB/bin/llama-server
[ -x "$LS" ] || { echo "compare-server.sh: no llama-server in '$LB' (tools/llamacpp.sh --server builds it)" >&2; exit 1; }
[ -x build/server ] || make -s build/server || exit 1
PORT=$((20000 + RANDOM % 20000))
wait_up() {   # until /health answers 200
  local i
  for i in $(seq 1 600); do
    curl -sf "http://127.0.0.1:$1/health" >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  return 1
}
run() {   # label, then the server's command line
  local label=$1; shift
  "$@" > "/tmp/compare-server-$label.log" 2>&1 &
  local pid=$!
  if ! wait_up "$PORT"; then echo "compare-server.sh: $label did not start (see /tmp/compare-server-$label.log)" >&2; kill $pid 2>/dev/null; return 1; fi
  python3 "$(dirname "$0")/load-server.py" --url "http://127.0.0.1:$PORT" -c "$LEVELS" -d "$D" -n "$N" --label "$label" --json "/tmp/compare-server-$label.json"
  local rc=$?
  kill $pid 2>/dev/null; wait $pid 2>/dev/null
  return $rc
}
echo "model $(basename "$M"), $T threads, -np $NP, -c $CTX, $D s per level, $N tokens per reply"
run llmkit build/server -m "$M" --port $PORT -t $T -np $NP -c $CTX
r1=$?
run llama.cpp "$LS" -m "$M" --port $PORT -t $T -tb $T -np $NP -c $CTX --no-webui
r2=$?
python3 - <<'PY'
import json
try:
    a = json.load(open("/tmp/compare-server-llmkit.json")); b = json.load(open("/tmp/compare-server-llama.cpp.json"))
except Exception as e:
    raise SystemExit("no comparison: %s" % e)
print("\n| clients | llmkit tok/s | llama-server tok/s | ratio | TTFT p50 / p99 (ms) llmkit | llama-server | ITL p50 / p99 (ms) llmkit | llama-server | failures |")
print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
for x, y in zip(a, b):
    print("| %d | %.1f | %.1f | %.2f | %.0f / %.0f | %.0f / %.0f | %.1f / %.1f | %.1f / %.1f | %d / %d |" % (
        x["clients"], x["tok_s"], y["tok_s"], x["tok_s"] / y["tok_s"] if y["tok_s"] else float("nan"),
        x["ttft_p50_ms"], x["ttft_p99_ms"], y["ttft_p50_ms"], y["ttft_p99_ms"], x["itl_p50_ms"], x["itl_p99_ms"], y["itl_p50_ms"], y["itl_p99_ms"],
        x["failures"], y["failures"]))
PY
[ $r1 -eq 0 ] && [ $r2 -eq 0 ]
