#!/usr/bin/env bash
# Runs test programs (and command lines) and prints "N passed, N failed, N skipped".
# Usage: tests/run.sh BINARY... ; an argument "name=CMD" runs CMD and records
# one PASS/FAIL line for its exit status (77 = SKIP). Binaries (or "PROGRAM ARGS") print PASS/FAIL/SKIP lines.
pass=0; fail=0; skip=0
log=$(mktemp); trap 'rm -f "$log"' EXIT
for t in "$@"; do
  case "$t" in
    *=*) name=${t%%=*}; cmd=${t#*=}
         bash -c "$cmd" > "$log" 2>&1; rc=$?
         if [ $rc -eq 0 ]; then echo "PASS $name"; pass=$((pass+1))
         elif [ $rc -eq 77 ]; then echo "SKIP $name: $(tail -1 "$log")"; skip=$((skip+1))
         else echo "FAIL $name"; tail -20 "$log" | sed 's/^/  /'; fail=$((fail+1)); fi
         continue ;;
  esac
  echo "== $t"
  case "$t" in
    */tests-neon/*) qemu-aarch64 "$t" > "$log" 2>&1; rc=$? ;;   # aarch64 build under user-mode qemu
    *" "*) bash -c "$t" > "$log" 2>&1; rc=$? ;;                 # a program with arguments
    *) "$t" > "$log" 2>&1; rc=$? ;;
  esac
  cat "$log"
  p=$(grep -c '^PASS ' "$log"); f=$(grep -c '^FAIL ' "$log"); s=$(grep -c '^SKIP ' "$log")
  pass=$((pass+p)); fail=$((fail+f)); skip=$((skip+s))
  if [ $rc -ne 0 ] && [ $f -eq 0 ]; then echo "FAIL $t: exited with status $rc"; fail=$((fail+1)); fi
done
echo "$pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
