#!/usr/bin/env bash
# llamacpp.sh - build the current llama.cpp (the peer every benchmark compares with).
#
#   tools/llamacpp.sh            build it (once) and print its build directory
#   tools/llamacpp.sh --dir      print the build directory only (exit 1 if not built)
#   tools/llamacpp.sh --server   also build llama-server (tools/load-server.py's peer)
#   tools/llamacpp.sh --tree     download and unpack the source tree only (no build; fast) and print
#                                its directory: the tokenizer tests read its models/ggml-vocab-*
#
# The source is the llama.cpp tree vendored in llama-cpp-python 0.3.36's source
# distribution (llama.cpp 0c1e570), from the Python package index; no git and no
# other network access. It goes to $LLMKIT_CACHE (default ~/.cache/llmkit):
#   pip/llama_cpp_python-0.3.36.tar.gz     the download (reused if present)
#   llama.cpp-0c1e570/                     the tree, built in build/ (CPU, Release,
#                                          GGML_NATIVE, shared libraries, no curl)
# tools/compare-llamacpp.sh uses that build by default. The older build
# c392e5094 that made ../shared/fixtures stays usable with -B.
set -eu
VER=0.3.36 REV=0c1e570
C=${LLMKIT_CACHE:-$HOME/.cache/llmkit}
SRC=$C/llama.cpp-$REV
B=$SRC/build
if [ "${1:-}" = "--dir" ]; then [ -x "$B/bin/llama-bench" ] && { echo "$B"; exit 0; }; exit 1; fi
if [ "${1:-}" = "--server" ]; then   # the tree is there: add the server to the same build
  [ -x "$B/bin/llama-server" ] && { echo "$B"; exit 0; }
  [ -x "$B/bin/llama-bench" ] || "$0" >/dev/null
  cmake -S "$SRC" -B "$B" -DLLAMA_BUILD_SERVER=ON -DLLAMA_BUILD_TOOLS=ON >&2
  cmake --build "$B" -j"$(nproc)" --target llama-server >&2
  echo "$B"; exit 0
fi
unpack() {   # the tree, once (it is moved into place whole, so one that is there is complete)
  [ -f "$SRC/CMakeLists.txt" ] && [ -d "$SRC/models" ] && return 0
  command -v python3 >/dev/null || { echo "llamacpp.sh: python3 is needed" >&2; exit 1; }
  mkdir -p "$C/pip"
  tgz=$C/pip/llama_cpp_python-$VER.tar.gz
  if [ ! -s "$tgz" ]; then
    python3 -m pip download --no-deps --no-binary :all: -d "$C/pip" "llama-cpp-python==$VER" >&2 ||
      { echo "llamacpp.sh: could not download llama-cpp-python $VER (no network or no pip?)" >&2; exit 1; }
  fi
  tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
  tar -xzf "$tgz" -C "$tmp" "llama_cpp_python-$VER/vendor/llama.cpp"
  rm -rf "$SRC"; mv "$tmp/llama_cpp_python-$VER/vendor/llama.cpp" "$SRC"
}
if [ "${1:-}" = "--tree" ]; then unpack; echo "$SRC"; exit 0; fi
if [ -x "$B/bin/llama-bench" ]; then echo "$B"; exit 0; fi
for t in cmake c++ python3; do command -v $t >/dev/null || { echo "llamacpp.sh: $t is needed" >&2; exit 1; }; done
unpack
cmake -S "$SRC" -B "$B" -DCMAKE_BUILD_TYPE=Release -DGGML_NATIVE=ON -DBUILD_SHARED_LIBS=ON -DLLAMA_CURL=OFF \
      -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_SERVER=OFF >&2
cmake --build "$B" -j"$(nproc)" --target llama-bench llama-perplexity llama-tokenize llama-quantize llama-simple llama-completion >&2
echo "$B"
