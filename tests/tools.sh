#!/usr/bin/env bash
# Command-line checks of the tools. Usage: tests/tools.sh CHECK
# Exit 0 = pass, 77 = skip (fixtures absent), anything else = fail.
set -u
FIX=${LK_FIXTURES:-../shared/fixtures}
B=build
case "$1" in
gguf-inspect-fixtures)
  [ -d "$FIX" ] || { echo "fixtures absent"; exit 77; }
  n=0
  for f in "$FIX"/models/*/*.gguf "$FIX"/stories260K/*.gguf "$FIX"/tokenizer/*.gguf; do
    out=$($B/gguf-inspect "$f") || { echo "failed on $f"; exit 1; }
    # the tensor count it prints must equal the number of tensor rows
    nt=$(printf '%s\n' "$out" | sed -n 's/^\([0-9]*\) tensors:$/\1/p')
    rows=$(printf '%s\n' "$out" | sed -n '/tensors:$/,$p' | grep -cE '^ +[0-9]+  ')
    [ "$nt" = "$rows" ] || { echo "$f: $nt tensors but $rows rows"; exit 1; }
    n=$((n+1))
  done
  echo "$n files"; [ $n -ge 40 ] ;;
gguf-inspect-rejects)
  t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
  printf 'not a gguf file at all' > "$t/garbage"
  : > "$t/empty"
  printf 'GGUF\003\000\000\000\377\377\377\377\377\377\377\177\000\000\000\000\000\000\000\000' > "$t/hugecount"
  if [ -d "$FIX" ]; then head -c 5000 "$FIX/stories260K/stories260K-Q4_0.gguf" > "$t/truncated"; fi
  for f in "$t"/* "$t/does-not-exist"; do
    $B/gguf-inspect "$f" > "$t/out" 2> "$t/err"; rc=$?
    [ $rc -ne 0 ] || { echo "$f: exit 0"; exit 1; }
    [ $rc -lt 128 ] || { echo "$f: crashed ($rc)"; exit 1; }
    [ "$(wc -l < "$t/err")" = 1 ] || { echo "$f: stderr is not one line:"; cat "$t/err"; exit 1; }
  done ;;
convert-llama2c)
  S=$FIX/stories260K
  [ -f "$S/stories260K.bin" ] || { echo "fixtures absent"; exit 77; }
  t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
  # with llama.cpp's default context length the file is byte-identical to llama.cpp's conversion
  $B/convert-llama2c "$S/stories260K.bin" "$S/tok512.bin" "$t/c128.gguf" -c 128 2>/dev/null || exit 1
  cmp "$t/c128.gguf" "$S/stories260K-F32.gguf" || { echo "not byte-identical to llama.cpp's conversion"; exit 1; }
  # with the checkpoint's own context length (512) the logits are identical too
  $B/convert-llama2c "$S/stories260K.bin" "$S/tok512.bin" "$t/c512.gguf" 2>/dev/null || exit 1
  ids=1,403,407,261,378,432,383,286,261,376,298,315,421,395,317,426,338,401,396,267,337
  $B/logits -m "$t/c512.gguf" --tokens $ids -o "$t/a.bin" && $B/logits -m "$S/stories260K-F32.gguf" --tokens $ids -o "$t/b.bin" || exit 1
  cmp "$t/a.bin" "$t/b.bin" || { echo "logits differ"; exit 1; }
  # a truncated checkpoint is refused with one line on stderr
  head -c 1000 "$S/stories260K.bin" > "$t/short.bin"
  if $B/convert-llama2c "$t/short.bin" "$S/tok512.bin" "$t/x.gguf" 2> "$t/err"; then echo "truncated checkpoint accepted"; exit 1; fi
  [ "$(wc -l < "$t/err")" = 1 ] || { cat "$t/err"; exit 1; } ;;
perplexity)
  # llama-perplexity (llama.cpp c392e5094, KV f16 default) on tests/data/stories.txt:
  #   llama-perplexity -m stories260K-<T>.gguf -f tests/data/stories.txt -c <C> -b <C> -t 2
  S=$FIX/stories260K
  [ -f "$S/stories260K-F32.gguf" ] || { echo "fixtures absent"; exit 77; }
  for ref in "F32 128 3.3785" "F32 512 3.2702" "Q8_0 128 3.3754" "Q4_0 128 3.6313" "Q4_K_M 128 3.4033" "F16 256 3.2524"; do
    set -- $ref
    out=$($B/perplexity -m "$S/stories260K-$1.gguf" -f tests/data/stories.txt -c $2 -t 2 2>/dev/null | sed -n 's/^Final estimate: PPL = \([0-9.]*\) .*/\1/p')
    [ -n "$out" ] || { echo "$1 c$2: no Final estimate line"; exit 1; }
    awk -v a="$out" -v b="$3" -v n="$1 c$2" 'BEGIN { d = (a - b) / b; if (d < 0) d = -d; printf "%s: %s vs llama-perplexity %s (%.3f%%)\n", n, a, b, 100 * d; exit !(d <= 0.01) }' || exit 1
  done ;;
perplexity-real)
  # real models against llama-perplexity (llama.cpp 0c1e570, its defaults: KV f16, flash attention)
  # on tests/data/agreement.txt: llama-perplexity -m MODEL -f tests/data/agreement.txt -c 256 -b 256 -t 2
  D=${LLMKIT_MODELS:-$HOME/.cache/llmkit}/models
  [ -f "$D/SmolLM2-135M-Instruct.Q4_1.gguf" ] || { echo "real models absent (make models)"; exit 77; }
  check() {
    out=$($B/perplexity -m "$D/$1" -f tests/data/agreement.txt -c 256 -t 2 2>/dev/null | sed -n 's/^Final estimate: PPL = \([0-9.]*\) .*/\1/p')
    awk -v a="$out" -v b="$2" -v n="$1" 'BEGIN { d = (a - b) / b; if (d < 0) d = -d; printf "%s c256: %s vs llama-perplexity %s (%.2f%%)\n", n, a, b, 100 * d; exit !(d <= 0.01) }'
  }
  check SmolLM2-135M-Instruct.Q4_1.gguf 38.3705 || exit 1
  [ -f "$D/gemma-3-270m-q4_k_m.gguf" ] && { check gemma-3-270m-q4_k_m.gguf 35.8029 || exit 1; } ;;
perplexity-kv-flags)
  # every --kv-type / --kv-policy runs and prints the closing line and the KV bytes;
  # a budget >= the context gives exactly the full-attention perplexity
  S=$FIX/stories260K
  [ -f "$S/stories260K-F32.gguf" ] || { echo "fixtures absent"; exit 77; }
  P="$B/perplexity -m $S/stories260K-F32.gguf -f tests/data/stories.txt -c 128 -t 2"
  full=$($P --kv-type f32 2>/dev/null | grep '^Final') || exit 1
  for kv in f32 f16 q8_0 q4_0 zip4 zip2; do
    out=$($P --kv-type $kv 2>/dev/null) || { echo "--kv-type $kv failed"; exit 1; }
    echo "$out" | grep -q '^Final estimate: PPL = ' || { echo "--kv-type $kv: no Final line"; exit 1; }
    echo "$out" | grep -qi 'KV' || { echo "--kv-type $kv: no KV bytes"; exit 1; }
  done
  for pol in streaming h2o keyformer quest tokenselect twilight; do
    out=$($P --kv-type f32 --kv-policy $pol --kv-budget 128 --top-p-attn 1 2>/dev/null | grep '^Final') || { echo "$pol failed"; exit 1; }
    [ "$out" = "$full" ] || { echo "$pol with budget = context: '$out' != '$full'"; exit 1; }
    $P --kv-type f32 --kv-policy $pol --kv-budget 32 2>/dev/null | grep -q '^Final' || { echo "$pol budget 32 failed"; exit 1; }
  done
  for a in lssa lssar; do $P --attn $a 2>/dev/null | grep -q '^Final' || { echo "--attn $a failed"; exit 1; }; done
  if $P --kv-type q3 2>/dev/null; then echo "bad --kv-type accepted"; exit 1; fi ;;
generate)
  S=$FIX/stories260K
  [ -f "$S/stories260K-Q8_0.gguf" ] || { echo "fixtures absent"; exit 77; }
  out=$($B/generate -m "$S/stories260K-Q8_0.gguf" -p "Once upon a time" -n 40 --temp 0 -t 2 2>/dev/null) || exit 1
  case "$out" in "Once upon a time, there was a little girl named Lily. She loved to play"*) ;; *) echo "unexpected: $out"; exit 1 ;; esac
  out=$($B/generate -m "$S/stories260K-Q8_0.gguf" -p "Once upon a time" -n 40 --temp 0.8 --top-k 40 --top-p 0.9 --seed 7 -t 1 2>&1) || exit 1
  case "$out" in *"t/s"*) ;; *) echo "no speed line"; exit 1 ;; esac
  if $B/generate -m /nonexistent.gguf -p x 2>/dev/null; then echo "missing model accepted"; exit 1; fi
  # a malformed flag value: exit 2 and one stderr line that names the flag
  for bad in "--top-k 4x" "--temp nan" "--top-p 2" "-c -5" "--kv-type q3" "--kv-policy lru" "-n -1" "--mirostat 3"; do
    set -- $bad
    err=$($B/generate -m "$S/stories260K-Q8_0.gguf" -p x "$@" 2>&1 >/dev/null); rc=$?
    [ $rc -eq 2 ] || { echo "'$bad': exit $rc, wanted 2"; exit 1; }
    [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] && case "$err" in *"$1"*) true ;; *) false ;; esac || { echo "'$bad': message '$err'"; exit 1; }
  done
  # the default context holds the prompt and -n: 200 tokens, past the model's 128-token
  # training context (the count: generate's closing "generation: N tokens" line)
  err=$($B/generate -m "$S/stories260K-Q8_0.gguf" -p "Once upon a time" -n 200 --ignore-eos --temp 0 -t 2 2>&1 >/dev/null) || { echo "-n 200: $err"; exit 1; }
  case "$err" in *"generation: 200 tokens in"*) ;; *) echo "-n 200 --ignore-eos did not give 200 tokens: $err"; exit 1 ;; esac
  case "$err" in *"context full"*) echo "-n 200: context full: $err"; exit 1 ;; esac
  # a small explicit -c is kept: generation stops when it is full and stderr says so (exit 0);
  # the prompt is 5 tokens (BOS + 4), so 59 fit in 64
  err=$($B/generate -m "$S/stories260K-Q8_0.gguf" -p "Once upon a time" -n 200 --ignore-eos --temp 0 -t 2 -c 64 2>&1 >/dev/null) || { echo "-c 64: $err"; exit 1; }
  case "$err" in *"generate: context full (64 tokens); stopped after 59 of 200 requested; raise -c"*) ;; *) echo "-c 64: no context-full line: $err"; exit 1 ;; esac
  case "$err" in *"generation: 59 tokens in"*) ;; *) echo "-c 64: not 59 tokens: $err"; exit 1 ;; esac ;;
generate-help)
  # generate --help lists every row of llmkit.h's four option tables (read here from the
  # source: each row's name and alias), with the flag at the start of a line; -h is the same;
  # an unknown flag exits 2 with the same list on stderr
  out=$($B/generate --help) || { echo "--help: exit $?"; exit 1; }
  [ "$out" = "$($B/generate -h)" ] || { echo "-h differs from --help"; exit 1; }
  rows=$(awk '/^static const lk_option lk__(model|context|sampler|spec)_options\[\] = \{/ { t = 1; next }
              t && /^\};/ { t = 0 } t && /^ *\{ "/ { print }' llmkit.h |
         sed -n 's/^ *{ "\([^"]*\)", *\(NULL\|"\([^"]*\)"\),.*/\1 \3/p')
  n=$(printf '%s\n' "$rows" | grep -c .)
  [ "$n" -ge 40 ] || { echo "only $n rows read from llmkit.h's tables"; exit 1; }
  # the rows follow the tool's own flags, from the first "... options:" heading on
  tab=$(printf '%s\n' "$out" | sed -n '/^[a-z ]* options:$/,$p')
  lines=$(printf '%s\n' "$tab" | grep -cE '^  (-[a-z], |    )--[a-z]')
  [ "$lines" -eq "$n" ] || { echo "--help has $lines option lines, the tables $n rows"; exit 1; }
  printf '%s\n' "$rows" | while read -r name alias; do
    if [ -z "$alias" ]; then pat="^      --$name "
    elif [ ${#alias} -eq 1 ]; then pat="^  -$alias, --$name "
    else pat="^      --$name, --$alias "; fi
    printf '%s\n' "$tab" | grep -q -- "$pat" || { echo "--help has no line '$pat'"; exit 1; }
  done || exit 1
  err=$($B/generate -m x --nonesuch 1 2>&1 >/dev/null); rc=$?
  [ $rc -eq 2 ] || { echo "an unknown flag: exit $rc, wanted 2"; exit 1; }
  [ "$(printf '%s\n' "$err" | sed -n '/^[a-z ]* options:$/,$p' | grep -cE '^  (-[a-z], |    )--[a-z]')" -eq "$n" ] ||
    { echo "an unknown flag: the rows are not on stderr"; exit 1; }
  echo "$n rows" ;;
generate-spec)
  # --spec: every mode prints what plain greedy decoding prints, and the report line in its exact form
  S=$FIX/stories260K
  [ -f "$S/stories260K-F32.gguf" ] && [ -f "$S/stories260K-Q4_0.gguf" ] || { echo "fixtures absent"; exit 77; }
  G="$B/generate -m $S/stories260K-F32.gguf -p Once -n 150 --temp 0 -t 1"
  ref=$($G 2>/dev/null) || exit 1
  for mode in draft tree recycle lookup; do
    out=$($G --spec $mode --draft-model "$S/stories260K-Q4_0.gguf" --draft-max 6 --spec-nodes 12 2>"$B/spec.err") || { cat "$B/spec.err"; exit 1; }
    [ "$out" = "$ref" ] || { echo "--spec $mode: output differs from plain decoding"; exit 1; }
    grep -Eq '^speculative: [0-9]+ tokens, [0-9]+ target forwards, [0-9]+\.[0-9]{2} tokens/forward, acceptance [0-9]+\.[0-9] %$' "$B/spec.err" ||
      { echo "--spec $mode: no report line"; cat "$B/spec.err"; exit 1; }
  done
  out=$($G --spec draft --draft-model "$S/stories260K-Q4_0.gguf" --temp 0.8 --seed 3 2>&1) || exit 1
  case "$out" in *"speculative: "*) ;; *) echo "--temp 0.8: no report line"; exit 1 ;; esac
  for bad in "--spec fast" "--draft-max 0" "--draft-p-min 1.5" "--spec-nodes x"; do
    set -- $bad
    err=$($G "$@" 2>&1 >/dev/null); rc=$?
    [ $rc -eq 2 ] && case "$err" in *"$1"*) true ;; *) false ;; esac || { echo "'$bad': exit $rc, message '$err'"; exit 1; }
  done
  err=$($G --spec draft 2>&1 >/dev/null); rc=$?
  [ $rc -eq 2 ] && case "$err" in *"--draft-model"*) true ;; *) false ;; esac || { echo "--spec draft without a draft: exit $rc, '$err'"; exit 1; } ;;
check-tensors)
  # --check-tensors 1 (all four model tools) refuses a NaN weight at load, naming the tensor;
  # without it the decode that meets the NaN fails instead of printing NaN results
  S=$FIX/stories260K
  [ -f "$S/stories260K-F32.gguf" ] || { echo "fixtures absent"; exit 77; }
  t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
  cp "$S/stories260K-F32.gguf" "$t/nan.gguf"
  info=$($B/gguf-inspect "$t/nan.gguf") || exit 1
  base=$(printf '%s\n' "$info" | sed -n 's/^data at: *\([0-9]*\).*/\1/p')
  off=$(printf '%s\n' "$info" | awk '$2 == "blk.4.ffn_up.weight" { print $(NF-1) }')
  [ -n "$base" ] && [ -n "$off" ] || { echo "gguf-inspect: no data offset or no blk.4.ffn_up.weight"; exit 1; }
  # element 3 of blk.4.ffn_up.weight becomes a quiet NaN (f32 0x7fc00000, little-endian)
  printf '\000\000\300\177' | dd of="$t/nan.gguf" bs=1 seek=$((base + off + 12)) conv=notrunc 2>/dev/null
  printf 'Once upon a time there was a little girl named Lily. She loved to play outside.\n' > "$t/text"
  for tool in generate logits perplexity bench; do
    case $tool in
      generate) args="-p x -n 4" ;;
      logits) args="--tokens 1,403,407 -o $t/out.bin" ;;
      perplexity) args="-f $t/text -c 8" ;;
      bench) args="-p 8 -n 4 -r 1 --no-bw" ;;
    esac
    err=$($B/$tool -m "$t/nan.gguf" $args --check-tensors 1 2>&1 >/dev/null); rc=$?
    [ $rc -eq 1 ] || { echo "$tool --check-tensors 1 on a NaN weight: exit $rc, wanted 1 ($err)"; exit 1; }
    case "$err" in *blk.4.ffn_up.weight*) ;; *) echo "$tool: the message does not name the tensor: $err"; exit 1 ;; esac
    err=$($B/$tool -m "$t/nan.gguf" $args 2>&1 >/dev/null); rc=$?
    [ $rc -eq 1 ] || { echo "$tool on a NaN weight without the check: exit $rc, wanted 1 ($err)"; exit 1; }
    case "$err" in *finite*|*NaN*) ;; *) echo "$tool: no word of the NaN: $err"; exit 1 ;; esac
    $B/$tool -m "$S/stories260K-F32.gguf" $args --check-tensors 1 > /dev/null 2>&1 || { echo "$tool --check-tensors 1 refused the clean model"; exit 1; }
    $B/$tool -m "$S/stories260K-F32.gguf" $args --check-tensors 2 > /dev/null 2>&1; rc=$?
    [ $rc -eq 2 ] || { echo "$tool --check-tensors 2: exit $rc, wanted 2"; exit 1; }
    echo "$tool: ok"
  done ;;
chat)
  # examples/chat.c: a model without a template is refused naming --template;
  # with one, -p answers once; piped turns, /reset (the same first turn gives
  # the same prompt count and answer) and end of input (exit 0)
  S=$FIX/stories260K
  [ -f "$S/stories260K-Q8_0.gguf" ] || { echo "fixtures absent"; exit 77; }
  err=$($B/chat -m "$S/stories260K-Q8_0.gguf" -p hi 2>&1 >/dev/null); rc=$?
  [ $rc -eq 1 ] && [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] && case "$err" in *--template*) true ;; *) false ;; esac ||
    { echo "no template: exit $rc, message '$err'"; exit 1; }
  out=$($B/chat -m "$S/stories260K-Q8_0.gguf" --template chatml -p "Once upon a time" --temp 0 -n 16 -t 2 2>&1) || exit 1
  case "$out" in *"answer "*" t/s]"*) ;; *) echo "-p: no speed line: $out"; exit 1 ;; esac
  out=$(printf 'Lily had a cat.\nWhat did Lily have?\n/reset\nLily had a cat.\n' |
        $B/chat -m "$S/stories260K-Q8_0.gguf" --template chatml --temp 0 -n 12 -t 2 2>&1) || { echo "piped turns: exit $?"; exit 1; }
  p=$(printf '%s\n' "$out" | sed -n 's/.*\[prompt \([0-9]*\) tokens.*/\1/p' | tr '\n' ' ')
  set -- $p
  [ $# -eq 3 ] && [ "$1" = "$3" ] || { echo "prompt counts per turn: $p (wanted three, the first equal to the third)"; exit 1; }
  # stdout: "> answer" per turn; /reset's prompt shares the next line ("> > answer")
  a1=$(printf '%s\n' "$out" | grep '^> ' | sed -n 1p | sed 's/^\(> \)*//'); a3=$(printf '%s\n' "$out" | grep '^> ' | sed -n 3p | sed 's/^\(> \)*//')
  [ -n "$a1" ] && [ "$a3" = "$a1" ] || { echo "/reset: '$a1' then '$a3'"; exit 1; }
  M=${LLMKIT_MODELS:-$HOME/.cache/llmkit}/models/SmolLM2-135M-Instruct.Q4_1.gguf
  if [ -f "$M" ]; then
    out=$($B/chat -m "$M" -p "What is the capital of France?" --temp 0 -n 32 -t 2 2>/dev/null) || exit 1
    case "$out" in *Paris*) ;; *) echo "SmolLM2: '$out'"; exit 1 ;; esac
  else echo "SmolLM2 not in the cache (make models): its turn was not run"; fi ;;
tokenize)
  S=$FIX/stories260K
  [ -f "$S/stories260K-F32.gguf" ] || { echo "fixtures absent"; exit 77; }
  out=$($B/tokenize -m "$S/stories260K-F32.gguf" -p "Once upon a time, there was a little girl named Lily. She loved to play")
  [ "$(echo $out)" = "1 403 407 261 378 432 383 286 261 376 298 315 421 395 317 426 338 401 396 267 337" ] || { echo "got: $out"; exit 1; } ;;
tokenize-vectors)
  # llama.cpp 0c1e570's own tokenizer vectors, every vocabulary of its tree (tools/llamacpp.sh --tree)
  T=${LLMKIT_CACHE:-$HOME/.cache/llmkit}/llama.cpp-0c1e570/models
  ls "$T"/ggml-vocab-*.gguf.inp > /dev/null 2>&1 || { echo "$T absent (tools/llamacpp.sh --tree)"; exit 77; }
  n=0; bad=0
  for f in "$T"/ggml-vocab-*.gguf.inp; do
    out=$($B/tokenize -m "${f%.inp}" --vectors 2>&1) || { echo "$(basename "${f%.inp}"):"; printf '%s\n' "$out" | tail -8; bad=1; }
    echo "$(basename "${f%.inp}"): $(printf '%s\n' "$out" | tail -1)"; n=$((n+1))
  done
  [ $bad = 0 ] && [ $n -ge 15 ] ;;
build-alone)
  # every tool and example builds by itself with the plainest command line,
  # cc -O2 -I. FILE -lm, without a warning; and is warning-free as strict C99
  # with gcc, with and without -fopenmp (the Makefile builds with it; <omp.h>
  # can hide a missing _POSIX_C_SOURCE), and with clang (syntax only, quick)
  t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
  W="-Wall -Wextra -Wpedantic -Werror"
  bad=0
  for f in tools/*.c examples/*.c; do
    n=$(basename "$f" .c)
    cc -O2 -I. $W "$f" -o "$t/$n" -lm 2> "$t/err" || { echo "FAILED: cc -O2 -I. $W $f -lm"; head -20 "$t/err"; bad=1; }
    for omp in "" -fopenmp; do
      gcc -std=c99 $omp -fsyntax-only -I. $W "$f" 2> "$t/err" || { echo "FAILED: gcc -std=c99 $omp $W $f"; head -20 "$t/err"; bad=1; }
    done
    if command -v clang > /dev/null; then
      clang -std=c99 -fsyntax-only -I. $W "$f" 2> "$t/err" || { echo "FAILED: clang -std=c99 $W $f"; head -20 "$t/err"; bad=1; }
    fi
    echo "$f"
  done
  exit $bad ;;
simple)
  # the README's quick start is examples/simple.c, verbatim
  t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
  awk '/^## / { q = ($0 == "## Quick start") } q && $0 == "```c" { p = 1; next } p && $0 == "```" { exit } p' README.md > "$t/readme.c"
  cmp -s "$t/readme.c" examples/simple.c || { echo "README's quick start is not examples/simple.c:"; diff "$t/readme.c" examples/simple.c | head -20; exit 1; }
  # a bad command line: exit 2; a missing model: exit 1 and one stderr line naming it
  $B/simple > /dev/null 2>&1; rc=$?
  [ $rc -eq 2 ] || { echo "no argument: exit $rc, wanted 2"; exit 1; }
  err=$($B/simple /nonexistent.gguf 2>&1 > /dev/null); rc=$?
  [ $rc -eq 1 ] && [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] && case "$err" in *nonexistent.gguf*) true ;; *) false ;; esac ||
    { echo "missing model: exit $rc, message '$err'"; exit 1; }
  S=$FIX/stories260K
  [ -f "$S/stories260K-F32.gguf" ] && [ -f "$S/greedy.txt" ] && [ -f "$S/tok512.bin" ] || { echo "fixtures absent"; exit 77; }
  out=$($B/simple "$S/stories260K-F32.gguf") || exit 1
  # reference: the first 64 ids of llama.cpp's greedy continuation (F32, KV f32; llama2.c gives the
  # same ids), spelled with llama2.c's tokenizer file tok512.bin (per piece: float32 score, int32
  # length, the bytes; "<0xXX>" is that byte), after the prompt
  ids=$(sed -n '/^\[llama.cpp stories260K-F32.gguf kv=f32\]/,/^gen_ids:/s/^gen_ids: //p' "$S/greedy.txt" | tr ' ' '\n' | head -64 | tr '\n' ' ')
  [ "$(echo $ids | wc -w)" -eq 64 ] || { echo "greedy.txt: no gen_ids for stories260K-F32.gguf kv=f32"; exit 1; }
  ref="Once upon a time"$(od -An -v -tu1 "$S/tok512.bin" | LC_ALL=C awk -v ids="$ids" '
    { for (i = 1; i <= NF; i++) b[n++] = $i }
    function u32(p) { return b[p] + 256 * (b[p + 1] + 256 * (b[p + 2] + 256 * b[p + 3])) }
    END {
      h = "0123456789ABCDEF"
      for (p = 4; p + 8 <= n; t++) {
        len = u32(p + 4); p += 8; s = ""
        for (j = 0; j < len; j++) s = s sprintf("%c", b[p + j])
        p += len
        if (s ~ /^<0x[0-9A-F][0-9A-F]>$/) s = sprintf("%c", 16 * (index(h, substr(s, 4, 1)) - 1) + index(h, substr(s, 5, 1)) - 1)
        piece[t] = s
      }
      k = split(ids, id, " ")
      for (i = 1; i <= k; i++) printf "%s", piece[id[i]]
    }')
  [ "$out" = "$ref" ] || { printf 'simple printed:\n%s\nllama.cpp greedy (64 tokens):\n%s\n' "$out" "$ref"; exit 1; }
  # and that is how llama2.c's own greedy story begins
  story=$(sed -n '/^# stdout/,/^$/p' "$S/llama2c_run_greedy.txt" | sed 1d)
  case "$story" in "$out"*) ;; *) echo "not the beginning of llama2.c's story"; exit 1 ;; esac
  printf '%s\n' "$out" ;;
*) echo "unknown check $1"; exit 2 ;;
esac
