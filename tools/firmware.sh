#!/usr/bin/env bash
# firmware.sh - build and run examples/firmware under qemu-system-arm.
#
#   tools/firmware.sh build CPU MODEL [PROMPT] [N]  -> build/firmware-CPU.elf (model linked into flash)
#   tools/firmware.sh run CPU                        the image under qemu: the text on stdout, the
#                                                    figures in build/firmware-CPU.figures; exits
#                                                    with the program's status
#   tools/firmware.sh test                           make test's check (exit 77 = skipped)
#   tools/firmware.sh mcu-test                       tests/test_mcu.c on the M55 (Helium) and M4 (DSP) under qemu
#   tools/firmware.sh figures [MODEL...]             the table in examples/firmware/README.md (default: stories260K Q8_0, Q4_0)
#
# CPU: cortex-m4 (board mps2-an386, Cortex-M4F) or cortex-m55 (mps3-an547,
# Cortex-M55 with Helium). Environment: FW_CTX (128), FW_KV (q8_0 or f16;
# q8_0), FW_ARENA (bytes; 128 KiB), FW_BATCH (1), FW_CFLAGS (extra flags for main.c,
# e.g. -DLLMKIT_NO_SIMD), ARM_CC (arm-none-eabi-gcc),
# QEMU (qemu-system-arm). Needs Debian's gcc-arm-none-eabi,
# libnewlib-arm-none-eabi and qemu-system-arm.
set -u
B=build; FIX=${LK_FIXTURES:-../shared/fixtures}
ARM_CC=${ARM_CC:-arm-none-eabi-gcc}; QEMU=${QEMU:-qemu-system-arm}; NM=${ARM_CC%gcc}nm; SIZE=${ARM_CC%gcc}size
FW_CTX=${FW_CTX:-128}; FW_KV=${FW_KV:-q8_0}; FW_ARENA=${FW_ARENA:-131072}; FW_BATCH=${FW_BATCH:-1}
die() { echo "firmware: $*" >&2; exit 1; }
have_tools() { command -v "$ARM_CC" >/dev/null 2>&1 && command -v "$QEMU" >/dev/null 2>&1; }
board() {   # CPU -> flags, linker script, machine, UART0, UART1
  case "$1" in
    cortex-m4)  FLAGS="-mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16 -mfp16-format=ieee"; LD=mps2-an386.ld; MACH=mps2-an386
                UARTS="-DFW_UART0=0x40004000u -DFW_UART1=0x40005000u" ;;
    cortex-m55) FLAGS="-mcpu=cortex-m55 -mthumb -mfloat-abi=hard"; LD=mps3-an547.ld; MACH=mps3-an547
                UARTS="-DFW_UART0=0x49303000u -DFW_UART1=0x49304000u" ;;
    *) die "unknown CPU '$1' (cortex-m4 or cortex-m55)" ;;
  esac
}
cstr() { printf '%s' "$1" | sed 's/\\/\\\\/g; s/"/\\"/g' | awk 'NR > 1 { printf "\\n" } { printf "%s", $0 }'; }   # as a C string literal's body
build() {   # CPU MODEL PROMPT N
  local cpu=$1 model=$2 prompt=${3:-Once upon a time} n=${4:-32} kv o
  board "$cpu"; [ -r "$model" ] || die "cannot read model '$model'"
  case "$FW_KV" in q8_0) kv=LK_TYPE_Q8_0 ;; f16) kv=LK_TYPE_F16 ;; *) die "FW_KV: q8_0 or f16" ;; esac
  o=$B/fw-$cpu; mkdir -p "$o"
  printf '#define FW_PROMPT "%s"\n#define FW_N %d\n#define FW_CTX %d\n#define FW_KV %s\n#define FW_ARENA %d\n#define FW_BATCH %d\n' \
    "$(cstr "$prompt")" "$n" "$FW_CTX" "$kv" "$FW_ARENA" "$FW_BATCH" > "$o/config.h"
  $ARM_CC -std=c99 -O2 $FLAGS -Wall -Wextra -Wpedantic -Werror -I. $UARTS ${FW_CFLAGS:-} -include "$o/config.h" \
      -ffunction-sections -fdata-sections -c examples/firmware/main.c -o "$o/main.o" || exit 1
  $ARM_CC -std=c99 -O2 $FLAGS -Wall -Wextra -Wpedantic -Werror -c examples/firmware/startup.c -o "$o/startup.o" || exit 1
  $ARM_CC $FLAGS -DFW_MODEL_PATH="\"$(cd "$(dirname "$model")" && pwd)/$(basename "$model")\"" -c examples/firmware/model.S -o "$o/model.o" || exit 1
  $ARM_CC $FLAGS -nostartfiles -T examples/firmware/$LD -Lexamples/firmware -Wl,--gc-sections \
      "$o/startup.o" "$o/main.o" "$o/model.o" -lm -lc -lgcc -o "$B/firmware-$cpu.elf" || exit 1
}
run() {   # CPU
  board "$1"
  [ -f "$B/firmware-$1.elf" ] || die "$B/firmware-$1.elf not built (tools/firmware.sh build $1 MODEL)"
  # -icount shift=0: one instruction = 1 ns of virtual time, so the device's timer counts instructions
  timeout 600 $QEMU -M $MACH -display none -monitor none -serial stdio -serial "file:$B/firmware-$1.figures" \
      -semihosting-config enable=on,target=native -icount shift=0 -kernel "$B/firmware-$1.elf"
}
fig() { sed -n "s/^$1 //p" "$2" | head -1; }
case "${1:-}" in
build) shift; [ $# -ge 2 ] || die "usage: build CPU MODEL [PROMPT] [N]"; build "$@" ;;
run) shift; [ $# -ge 1 ] || die "usage: run CPU"; run "$1" ;;
test)
  have_tools || { echo "$ARM_CC or $QEMU missing (apt-get install gcc-arm-none-eabi libnewlib-arm-none-eabi qemu-system-arm)"; exit 77; }
  [ -f "$FIX/stories260K/stories260K-Q8_0.gguf" ] || { echo "fixtures absent"; exit 77; }
  [ -x $B/generate ] || die "$B/generate missing (make)"
  # The device must print the host's greedy text, all n tokens. (For a while
  # on 2026-11-28 only the first 24 were required: two decode functions had
  # stack frames larger than the whole 16 KiB stack, so their spills landed in
  # the arena's last KV rows and the logits left the host's bits after 32-37
  # positions. The frames are small now, and the M55 image sets MSPLIM so that
  # an overflow faults instead.)
  prompt="Once upon a time"; n=48
  for q in Q8_0 Q4_0; do
    m=$FIX/stories260K/stories260K-$q.gguf
    # the host with the device's settings (its KV type; context, batch and threads change no bits)
    want=$($B/generate -m "$m" -p "$prompt" -n $n --temp 0 --kv-type "$FW_KV" -c "$FW_CTX" 2>/dev/null) || die "host generate failed on $m"
    for cpu in cortex-m4 cortex-m55; do
      build $cpu "$m" "$prompt" $n
      # no allocator linked: the image runs from the static arena alone
      syms=$($NM "$B/firmware-$cpu.elf") || die "$NM failed"
      printf '%s\n' "$syms" | grep -q ' T main$' || die "$cpu: $NM found no main"
      if printf '%s\n' "$syms" | grep -wE 'malloc|_malloc_r|calloc|_calloc_r|realloc|_realloc_r|free|_free_r|_sbrk'; then
        echo "$cpu $q: the image links an allocator (above)"; exit 1
      fi
      got=$(run $cpu); rc=$?
      [ $rc -eq 0 ] || { echo "$cpu $q: exit status $rc"; cat "$B/firmware-$cpu.figures"; exit 1; }
      [ "$got" = "$want" ] || { printf '%s %s: the device printed\n%s\nthe host generate --temp 0 printed\n%s\n' "$cpu" "$q" "$got" "$want"; exit 1; }
      echo "$cpu $q: $(fig instructions-per-token "$B/firmware-$cpu.figures") instructions per token, $(fig stack-bytes "$B/firmware-$cpu.figures") stack bytes, the host's text for all $n tokens"
    done
  done ;;
mcu-test)   # tests/test_mcu.c: Helium kernels on the M55, DSP kernels on the M4
  have_tools || { echo "$ARM_CC or $QEMU missing"; exit 77; }
  for cpu in cortex-m55 cortex-m4; do
    board $cpu; o=$B/fw-test-$cpu; mkdir -p $o
    $ARM_CC -std=c99 -O2 $FLAGS -Wall -Wextra -Wpedantic -Werror -I. -c tests/test_mcu.c -o $o/test_mcu.o || exit 1
    $ARM_CC -std=c99 -O2 $FLAGS -c examples/firmware/startup.c -o $o/startup.o || exit 1
    $ARM_CC $FLAGS -nostartfiles --specs=rdimon.specs -T examples/firmware/$LD -Lexamples/firmware -Wl,--defsym=HEAP_SIZE=131072 \
        $o/startup.o $o/test_mcu.o -lm -o $o/test_mcu.elf || exit 1
    out=$(timeout 300 $QEMU -M $MACH -display none -monitor none -serial null -semihosting-config enable=on,target=native -kernel $o/test_mcu.elf); rc=$?
    printf '%s: %s\n' "$cpu" "$out"
    [ $rc -eq 0 ] && ! printf '%s\n' "$out" | grep -q '^FAIL' && [ "$(printf '%s\n' "$out" | grep -c '^PASS')" -ge 2 ] || exit 1
  done ;;
figures) shift
  have_tools || die "$ARM_CC or $QEMU missing"
  [ $# -gt 0 ] || set -- "$FIX/stories260K/stories260K-Q8_0.gguf" "$FIX/stories260K/stories260K-Q4_0.gguf"
  echo "| model | CPU | code bytes | model bytes | RAM ctx 128 f16 / q8_0 KV | RAM ctx 256 f16 / q8_0 | RAM ctx 512 f16 / q8_0 | stack | instructions / token | est. t/s @150 MHz | @240 MHz |"
  echo "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
  for m in "$@"; do
    for cpu in cortex-m4 cortex-m55; do
      build $cpu "$m" "Once upon a time" 64 || exit 1
      run $cpu > /dev/null || { cat "$B/firmware-$cpu.figures"; die "$cpu: the run failed"; }
      f=$B/firmware-$cpu.figures
      # code: everything in flash but the model; RAM: the arena each setting needs (model
      # structures + lk_context_memory_size, reported by the device) + the other static data +
      # the stack's high-water mark. Instructions: per generated token, 64 tokens after the
      # 5-token prompt, counted by the device's timer under qemu -icount.
      read -r text model data bss <<< "$($SIZE -A "$B/firmware-$cpu.elf" | awk '$1==".vectors"||$1==".text"||$1==".ARM.exidx"{t+=$2} $1==".model"{m=$2} $1==".data"{d=$2} $1==".bss"{b=$2} END{print t+0, m+0, d+0, b+0}')"
      stack=$(fig stack-bytes $f)
      ram() { echo $(( $(sed -n "s/^arena-bytes ctx $1 kv $2 //p" $f) + data + bss - FW_ARENA + stack )); }
      ipt=$(fig instructions-per-token $f)
      printf '| %s | %s | %d | %d | %d / %d | %d / %d | %d / %d | %d | %d | %.1f | %.1f |\n' "$(basename "$m" .gguf)" "$cpu" "$text" "$model" \
        "$(ram 128 f16)" "$(ram 128 q8_0)" "$(ram 256 f16)" "$(ram 256 q8_0)" "$(ram 512 f16)" "$(ram 512 q8_0)" "$stack" "$ipt" \
        "$(echo "$ipt" | awk '{print 150e6 / $1}')" "$(echo "$ipt" | awk '{print 240e6 / $1}')"
    done
  done ;;
*) sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
esac
