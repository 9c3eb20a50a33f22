#!/usr/bin/env bash
# Every tests/, tools/ or examples/ path named in the tree must exist.
# Usage: tests/paths.sh   (from make test). Exit 0: all exist; 1: the missing
# ones are listed as FILE:LINE: PATH; 77: not a git checkout (skip).
#
# What is read: the git-tracked text files llmkit.h, llmkit_cuda.h, *.md, *.c,
# *.cu, *.cpp, *.h, *.S, *.sh, *.py, *.ld, Makefile and .ci/run (tests/data/
# holds data, not prose, and is not read).
# What counts as a path, and what it must name:
#   - a word that starts with tests/, tools/ or examples/: at the start of a
#     line or after a space, quote, backtick, bracket, = or similar. A path
#     inside another one (build/tests/x, $(B)/tools/x, ../shared/..., URLs,
#     "L + "/tests/..." in a generator) is another tree and is not checked;
#   - it ends at white space, a quote, a backtick, a bracket, | , ; \ or #;
#     a :LINE suffix and trailing . : ! ? are dropped;
#   - placeholders are skipped: a path with % $ { } (make patterns, shell
#     variables, printf formats), with <word> (tests/data/real/<model>.ref),
#     or with a part in capitals only (tools/X.c, tools/NAME.c, tests/FILE);
#   - a glob (tests/test_*.c) must match at least one tracked file;
#   - a path without an extension may name a program by its source:
#     tools/bench is tools/bench.c (or .cu, .cpp, .sh, .py);
#   - another project's file, written right after "llama.cpp's" as in
#     llama.cpp's tests/test-chat-template.cpp, is not ours and is skipped;
#   - it must be a file git tracks, or a folder holding one.
cd "$(dirname "$0")/.." || exit 2
git rev-parse --is-inside-work-tree >/dev/null 2>&1 || { echo "not a git checkout: nothing to check paths against"; exit 77; }

declare -A tracked
while IFS= read -r f; do
  tracked[$f]=1
  d=$f
  while [ "${d%/*}" != "$d" ]; do d=${d%/*}; [ -n "${tracked[$d/]}" ] && break; tracked[$d]=1; tracked[$d/]=1; done
done < <(git ls-files)

# FILE:LINE PATH for every candidate word (awk: the character before a
# match and the text before it on the line decide whether it is one)
candidates() {
  git ls-files | grep -E '(^|/)(llmkit\.h|llmkit_cuda\.h|Makefile)$|^\.ci/run$|\.(md|c|cu|cpp|h|S|sh|py|ld)$' | grep -v '^tests/data/' |
  while IFS= read -r f; do [ -f "$f" ] && printf '%s\n' "$f"; done |
  xargs awk '
    {
      rest = $0; off = 0
      while (match(rest, /(tests|tools|examples)\/[^][ \t`"'"'"'(){}|,;\\#]*/)) {
        s = off + RSTART; p = substr($0, s, RLENGTH)
        off = s + RLENGTH - 1; rest = substr($0, off + 1)
        prev = s > 1 ? substr($0, s - 1, 1) : ""
        if (prev ~ /[A-Za-z0-9_.\/$@+-]/) continue            # inside a longer path
        if (substr($0, 1, s - 1) ~ /llama\.cpp'"'"'s `?$/) continue   # llama.cpp'"'"'s own files
        print FILENAME ":" FNR " " p
      }
    }'
}

missing=0; n=0
while read -r where p; do
  p=${p%%:*}                                   # tools/bench.c:22 -> tools/bench.c
  while :; do case "$p" in *[.:!?]) p=${p%?} ;; *) break ;; esac; done
  case "$p" in *[%\$\{\}]*|*\<*\>*) continue ;; esac
  case "$p" in *\**)                          # a glob: it must match a file
    n=$((n + 1))
    for k in "${!tracked[@]}"; do [[ $k == $p ]] && continue 2; done
    echo "$where: $p (matches nothing)"; missing=$((missing + 1)); continue ;;
  esac
  if printf '%s\n' "$p" | tr '/' '\n' | sed 's/\.[A-Za-z0-9]*$//' | grep -qx '[A-Z][A-Z_]*'; then continue; fi
  n=$((n + 1))
  [ -n "${tracked[$p]}" ] && continue
  case "${p##*/}" in
    *.*) ;;
    *) for e in c cu cpp sh py; do [ -n "${tracked[$p.$e]}" ] && continue 2; done ;;
  esac
  echo "$where: $p"
  missing=$((missing + 1))
done < <(candidates)
if [ $missing -gt 0 ]; then echo "$missing of $n named paths do not exist"; exit 1; fi
echo "$n named paths, all present"
