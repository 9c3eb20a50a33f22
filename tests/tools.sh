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
*) echo "unknown check $1"; exit 2 ;;
esac
