# llmkit build and test. `make` builds tools and examples into build/;
# `make test` builds and runs every test and ends with "N passed, N failed".
CC      ?= cc
# -ffp-contract=fast: fuse multiply-adds the way GCC does by default in GNU
# mode, which is how llama.cpp is built; our logits then follow its bits.
CFLAGS  ?= -O2 -march=native -ffp-contract=fast
WARN     = -Wall -Wextra -Wpedantic
OMP     ?= -fopenmp
B        = build
LIBS     = -lm
FUZZ_TIME ?= 30

TOOLS    = $(patsubst tools/%.c,$(B)/%,$(wildcard tools/*.c))
EXAMPLES = $(patsubst examples/%.c,$(B)/%,$(wildcard examples/*.c))
TESTS    = $(patsubst tests/%.c,$(B)/tests/%,$(wildcard tests/test_*.c))
# Tests opt in to extra builds with marker comments in their source:
#   lk-test: sanitize   also built and run with ASan+UBSan
#   lk-test: nomalloc   also built with -DLLMKIT_NO_MALLOC -DLLMKIT_NO_MMAP (arena + fread)
#   lk-test: neon       also cross-built for aarch64 and run under qemu
#   lk-test: tsan       also built with ThreadSanitizer (no OpenMP: its runtime is not instrumented)
SAN_TESTS  = $(patsubst tests/%.c,$(B)/tests-san/%,$(shell grep -l 'lk-test: sanitize' tests/test_*.c 2>/dev/null))
NOM_TESTS  = $(patsubst tests/%.c,$(B)/tests-nomalloc/%,$(shell grep -l 'lk-test: nomalloc' tests/test_*.c 2>/dev/null))
NEON_TESTS = $(patsubst tests/%.c,$(B)/tests-neon/%,$(shell grep -l 'lk-test: neon' tests/test_*.c 2>/dev/null))
TSAN_TESTS = $(patsubst tests/%.c,$(B)/tests-tsan/%,$(shell grep -l 'lk-test: tsan' tests/test_*.c 2>/dev/null))
AARCH64_CC ?= aarch64-linux-gnu-gcc
HAVE_AARCH64 := $(shell command -v $(AARCH64_CC) >/dev/null 2>&1 && command -v qemu-aarch64 >/dev/null 2>&1 && echo 1)
HAVE_CLANG := $(shell command -v clang >/dev/null 2>&1 && echo 1)
ARM_CC ?= arm-none-eabi-gcc
HAVE_ARM := $(shell command -v $(ARM_CC) >/dev/null 2>&1 && echo 1)
# CUDA (llmkit_cuda.h): built with nvcc when it is installed. CUDA_ARCH: the GPU
# code to build (sm_80 code plus its PTX, which later GPUs compile at load;
# -arch=sm_90 for an H100, -arch=native on a machine with the GPU);
# CUDA_HOST: the host compiler's flags for the C part.
NVCC      ?= nvcc
CUDA_ARCH ?= -arch=sm_80
CUDA_HOST ?= -O2 -march=native
HAVE_NVCC := $(shell command -v $(NVCC) >/dev/null 2>&1 && echo 1)
CUDA_BINS  = $(B)/tests/test_cuda $(B)/bench-cuda

.PHONY: all test fuzz fuzz-seeds clean compile-checks models demo firmware run-firmware firmware-figures cuda
# `make` alone builds every tool and example (the first goal would otherwise be models)
.DEFAULT_GOAL := all
# Real models (SmolLM2-135M-Instruct, Gemma 3 270M) into $$LLMKIT_MODELS or
# ~/.cache/llmkit: see tools/models.sh. Safe to re-run.
models:
	@bash tools/models.sh
# The README's first command: build, fetch SmolLM2 (make models), answer one
# chat question greedily, print the speed.
DEMO_Q ?= Why is the sky blue? Answer in two sentences.
demo: $(B)/chat
	@bash tools/models.sh >/dev/null || { echo "demo: the model could not be fetched (see above)"; exit 1; }
	@$(B)/chat -m "$${LLMKIT_MODELS:-$$HOME/.cache/llmkit}/models/SmolLM2-135M-Instruct.Q4_1.gguf" -t 2 --temp 0 -n 200 -p "$(DEMO_Q)" 
all: $(TOOLS) $(EXAMPLES)

$(B)/%: tools/%.c llmkit.h tools/lk_tool.h | $(B)
	$(CC) $(CFLAGS) $(OMP) $(WARN) -std=c99 -I. $< -o $@ $(LIBS)
$(B)/%: examples/%.c llmkit.h tools/lk_tool.h | $(B)
	$(CC) $(CFLAGS) $(OMP) $(WARN) -std=c99 -I. $< -o $@ $(LIBS) -pthread
$(B)/tests/%: tests/%.c llmkit.h tests/lk_test.h | $(B)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(OMP) $(WARN) -std=c99 -I. $< -o $@ $(LIBS) -pthread
# tests that include another test's or an example's source (test_model.c's generator, the server)
$(B)/tests/test_arch_runtime: tests/test_model.c examples/server.c
$(B)/tests/test_model_mutations $(B)/tests-san/test_model_mutations: tests/test_model.c
$(B)/tests-tsan/%: tests/%.c llmkit.h tests/lk_test.h | $(B)
	@mkdir -p $(dir $@)
	$(CC) -O1 -g -march=native -fsanitize=thread $(WARN) -std=c99 -I. $< -o $@ $(LIBS) -pthread
$(B)/tests-san/%: tests/%.c llmkit.h tests/lk_test.h | $(B)
	@mkdir -p $(dir $@)
	$(CC) -O1 -g -march=native -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer $(WARN) -std=c99 -I. $< -o $@ $(LIBS)
$(B)/tests-nomalloc/%: tests/%.c llmkit.h tests/lk_test.h | $(B)
	@mkdir -p $(dir $@)
	$(CC) -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all -DLLMKIT_NO_MALLOC -DLLMKIT_NO_MMAP $(WARN) -std=c99 -I. $< -o $@ $(LIBS)
$(B)/tests-neon/%: tests/%.c llmkit.h tests/lk_test.h | $(B)
	@mkdir -p $(dir $@)
	$(AARCH64_CC) -O2 -march=armv8.2-a+dotprod $(WARN) -std=c99 -static -I. $< -o $@ $(LIBS)
# nvcc compiles the C part with the host compiler: -Wall -Wextra there too
# (-Wpedantic is left out: nvcc's generated host code is not ISO C++)
$(B)/tests/test_cuda: tests/test_cuda.cu llmkit.h llmkit_cuda.h tests/lk_test.h | $(B)
	@mkdir -p $(dir $@)
	$(NVCC) -O2 $(CUDA_ARCH) -I. -Xcompiler "$(CUDA_HOST) $(OMP) -Wall -Wextra" -Werror all-warnings $< -o $@ $(LIBS)
$(B)/bench-cuda: tools/bench-cuda.cu llmkit.h llmkit_cuda.h tools/lk_tool.h | $(B)
	$(NVCC) -O2 $(CUDA_ARCH) -I. -Xcompiler "$(CUDA_HOST) $(OMP) -Wall -Wextra" -Werror all-warnings $< -o $@ $(LIBS)
cuda: $(CUDA_BINS)
$(B)/fuzz_gguf: tests/fuzz_gguf.c llmkit.h | $(B)
	clang -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -I. $< -o $@
$(B)/fuzz_server: tests/fuzz_server.c examples/server.c llmkit.h tools/lk_tool.h | $(B)
	clang -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -I. $< -o $@ -lm -lpthread
$(B):
	@mkdir -p $(B)

# The header must compile warning-free as C99 (gcc, clang) and C++11 (g++, clang++),
# with each compile-out switch and with the minimal firmware combination.
SWITCHES = LLMKIT_NO_TOKENIZER LLMKIT_NO_IQ LLMKIT_NO_QUANTIZE LLMKIT_NO_KV_POLICIES
FIRMWARE = $(SWITCHES) LLMKIT_NO_STDIO LLMKIT_NO_MALLOC LLMKIT_NO_THREADS LLMKIT_STATIC
compile-checks: | $(B)
	@printf '#define LLMKIT_IMPLEMENTATION\n#include "llmkit.h"\nint main(void){return 0;}\n' > $(B)/cc_check.c
	@cp $(B)/cc_check.c $(B)/cc_check.cpp
	@printf '#define LLMKIT_IMPLEMENTATION\n#define LLMKIT_NO_STDIO\n#define LLMKIT_NO_MALLOC\n#define LLMKIT_NO_SIMD\n#define LLMKIT_STATIC\n#include "llmkit.h"\nint main(void){return 0;}\n' > $(B)/cc_check_min.c
	@for sw in $(SWITCHES); do printf '#define LLMKIT_IMPLEMENTATION\n#define %s\n#include "llmkit.h"\nint main(void){return 0;}\n' $$sw > $(B)/cc_check_$$sw.c; cp $(B)/cc_check_$$sw.c $(B)/cc_check_$$sw.cpp; done
	@printf '#define LLMKIT_IMPLEMENTATION\n$(foreach sw,$(FIRMWARE),#define $(sw)\n)#include "llmkit.h"\nint main(void){return 0;}\n' > $(B)/cc_check_firmware.c
	@cp $(B)/cc_check_firmware.c $(B)/cc_check_firmware.cpp
	@printf '#define LLMKIT_IMPLEMENTATION\n#include "llmkit.h"\n#include "llmkit_cuda.h"\nint main(void){return lk_cuda_available();}\n' > $(B)/cc_check_cuda.c
	@cp $(B)/cc_check_cuda.c $(B)/cc_check_cuda.cpp

RUN_ARGS = \
  "compile-gcc-c99=gcc -std=c99 $(WARN) -Werror -I. -c $(B)/cc_check.c -o /dev/null" \
  "compile-gcc-c99-minimal=gcc -std=c99 $(WARN) -Werror -I. -c $(B)/cc_check_min.c -o /dev/null" \
  "compile-g++-c++11=g++ -std=c++11 $(WARN) -Werror -I. -c $(B)/cc_check.cpp -o /dev/null" \
  "compile-g++-c++11-native-O2=g++ -std=c++11 -O2 -march=native $(WARN) -Werror -I. -c $(B)/cc_check.cpp -o /dev/null" \
  "compile-gcc-c99-native-O2=gcc -std=c99 -O2 -march=native $(WARN) -Werror -I. -c $(B)/cc_check.c -o /dev/null" \
  "gguf-inspect-fixtures=tests/tools.sh gguf-inspect-fixtures" \
  "gguf-inspect-rejects=tests/tools.sh gguf-inspect-rejects" \
  "convert-llama2c=tests/tools.sh convert-llama2c" \
  "perplexity-vs-llama.cpp=tests/tools.sh perplexity" \
  "perplexity-kv-flags=tests/tools.sh perplexity-kv-flags" \
  "perplexity-real-models=tests/tools.sh perplexity-real" \
  "generate=tests/tools.sh generate" \
  "generate-help=tests/tools.sh generate-help" \
  "generate-spec=tests/tools.sh generate-spec" \
  "check-tensors=tests/tools.sh check-tensors" \
  "tokenize=tests/tools.sh tokenize" \
  "tokenize-vectors=tests/tools.sh tokenize-vectors" \
  "chat=tests/tools.sh chat" \
  "tools-build-alone=tests/tools.sh build-alone" \
  "simple=tests/tools.sh simple" \
  "paths-named-exist=bash tests/paths.sh" \
  $(foreach sw,$(SWITCHES),"compile-gcc-c99-$(sw)=gcc -std=c99 -O2 -march=native $(WARN) -Werror -I. -c $(B)/cc_check_$(sw).c -o /dev/null" \
  "compile-g++-c++11-$(sw)=g++ -std=c++11 $(WARN) -Werror -I. -c $(B)/cc_check_$(sw).cpp -o /dev/null") \
  "firmware-stories260K-qemu=tools/firmware.sh test" \
  "cortex-m-kernels-qemu=tools/firmware.sh mcu-test" \
  "compile-gcc-c99-firmware-Os=gcc -std=c99 -Os $(WARN) -Werror -I. -c $(B)/cc_check_firmware.c -o /dev/null" \
  "compile-g++-c++11-firmware-O2=g++ -std=c++11 -O2 -march=native $(WARN) -Werror -I. -c $(B)/cc_check_firmware.cpp -o /dev/null" \
  "compile-gcc-c99-cuda-stubs=gcc -std=c99 $(WARN) -Werror -I. -c $(B)/cc_check_cuda.c -o /dev/null" \
  "compile-g++-c++11-cuda-stubs=g++ -std=c++11 $(WARN) -Werror -I. -c $(B)/cc_check_cuda.cpp -o /dev/null"
ifeq ($(HAVE_NVCC),1)
CUDA_RUN = $(B)/tests/test_cuda
CUDA_BUILD = $(CUDA_BINS)
endif
ifeq ($(HAVE_CLANG),1)
RUN_ARGS += \
  "compile-clang-c99=clang -std=c99 $(WARN) -Werror -I. -c $(B)/cc_check.c -o /dev/null" \
  "compile-clang++-c++11=clang++ -std=c++11 $(WARN) -Werror -I. -c $(B)/cc_check.cpp -o /dev/null" \
  "compile-clang++-c++11-native-O2=clang++ -std=c++11 -O2 -march=native $(WARN) -Werror -I. -c $(B)/cc_check.cpp -o /dev/null" \
  "compile-clang-c99-firmware-Os=clang -std=c99 -Os $(WARN) -Werror -I. -c $(B)/cc_check_firmware.c -o /dev/null" \
  "fuzz-gguf-$(FUZZ_TIME)s=$(B)/fuzz_gguf -max_total_time=$(FUZZ_TIME) -max_len=65536 -rss_limit_mb=2048 -print_final_stats=0 $(B)/fuzz-corpus $(B)/fuzz-seeds 2>&1 | tail -5; exit \$${PIPESTATUS[0]}" \
  "fuzz-server-$(FUZZ_TIME)s=$(B)/fuzz_server -max_total_time=$(FUZZ_TIME) -max_len=8192 -rss_limit_mb=2048 -print_final_stats=0 $(B)/fuzz-server-corpus $(B)/fuzz-server-seeds 2>&1 | tail -5; exit \$${PIPESTATUS[0]}"
FUZZ_BIN = $(B)/fuzz_gguf $(B)/fuzz_server
endif
ifeq ($(HAVE_ARM),1)   # the header for Cortex-M (32-bit, short enums, newlib), C and C++
RUN_ARGS += \
  "compile-arm-none-eabi-m4-c99=$(ARM_CC) -mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16 -std=c99 -O2 $(WARN) -Werror -I. -c $(B)/cc_check.c -o /dev/null" \
  "compile-arm-none-eabi-m55-c++11-firmware=$(ARM_CC:gcc=g++) -mcpu=cortex-m55 -mthumb -mfloat-abi=hard -std=c++11 -O2 $(WARN) -Werror -I. -c $(B)/cc_check_firmware.cpp -o /dev/null"
endif
FUZZ_SEEDS = $(wildcard ../shared/fixtures/stories260K/stories260K-Q4_0.gguf ../shared/fixtures/tokenizer/ggml-vocab-bert-bge.gguf ../shared/fixtures/models/gpt2/gpt2-Q8_0.gguf)
ifeq ($(HAVE_AARCH64),1)
NEON_RUN = $(NEON_TESTS)
endif

# Firmware (examples/firmware, tools/firmware.sh): a bare-metal image with the model linked into
# flash, for qemu-system-arm's mps2-an386 (CPU=cortex-m4) or mps3-an547 (CPU=cortex-m55, Helium).
#   make firmware MODEL=FILE.gguf CPU=cortex-m4|cortex-m55 [PROMPT="..."] [N=32]  -> build/firmware-CPU.elf
#   make run-firmware MODEL=... CPU=... PROMPT="..." N=...   prints the text, exits with the program's status
#   make firmware-figures                                    the table in examples/firmware/README.md (flash, RAM, instructions per token)
MODEL  ?= ../shared/fixtures/stories260K/stories260K-Q8_0.gguf
CPU    ?= cortex-m55
PROMPT ?= Once upon a time
N      ?= 32
firmware: | $(B)
	@bash tools/firmware.sh build $(CPU) "$(MODEL)" "$(PROMPT)" $(N)
run-firmware: firmware
	@bash tools/firmware.sh run $(CPU)
firmware-figures: | $(B)
	@bash tools/firmware.sh figures

fuzz-seeds: | $(B)
	@mkdir -p $(B)/fuzz-corpus $(B)/fuzz-seeds $(B)/fuzz-server-corpus $(B)/fuzz-server-seeds
	@for f in $(FUZZ_SEEDS); do cp -f $$f $(B)/fuzz-seeds/; done
	@printf 'POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: 99\r\nAuthorization: Bearer k\r\n\r\n{"messages":[{"role":"system","content":"a\\u00e9\\ud83d\\ude00"},{"role":"user","content":"hi"}],"stop":["a","b"],"temperature":0.5}' > $(B)/fuzz-server-seeds/chat
	@printf 'POST /v1/completions HTTP/1.1\r\nContent-Length: 80\r\n\r\n{"prompt":[1,2,3],"max_tokens":16,"top_k":40,"top_p":0.9,"seed":7,"stream":true,"stop":"x"}' > $(B)/fuzz-server-seeds/completion
	@printf 'GET /health HTTP/1.0\r\n\r\n' > $(B)/fuzz-server-seeds/health
	@printf 'POST /v1/chat/completions HTTP/1.1\r\n\r\n{"messages":[{"role":"","content":""},{"role":"user"}]}' > $(B)/fuzz-server-seeds/empty

test: all compile-checks $(TESTS) $(SAN_TESTS) $(NOM_TESTS) $(TSAN_TESTS) $(NEON_RUN) $(FUZZ_BIN) fuzz-seeds $(CUDA_BUILD)
	@[ "$(HAVE_AARCH64)" = 1 ] || echo "SKIP neon: aarch64-linux-gnu-gcc or qemu-aarch64 missing (install gcc-aarch64-linux-gnu qemu-user)"
	@[ "$(HAVE_NVCC)" = 1 ] || echo "SKIP cuda: nvcc missing (the CUDA toolkit; llmkit_cuda.h's stubs are still compiled)"
	@[ "$(HAVE_CLANG)" = 1 ] || echo "SKIP clang checks and fuzzing: clang missing"
	@bash tests/run.sh $(RUN_ARGS) $(TESTS) $(SAN_TESTS) $(NOM_TESTS) $(TSAN_TESTS) $(NEON_RUN) $(CUDA_RUN) tests/test_server.py "tests/test_server.py openai"

fuzz: $(B)/fuzz_gguf $(B)/fuzz_server fuzz-seeds
	$(B)/fuzz_gguf -max_total_time=$(FUZZ_TIME) -max_len=65536 $(B)/fuzz-corpus $(B)/fuzz-seeds
	$(B)/fuzz_server -max_total_time=$(FUZZ_TIME) -max_len=8192 $(B)/fuzz-server-corpus $(B)/fuzz-server-seeds

clean:
	rm -rf $(B)
