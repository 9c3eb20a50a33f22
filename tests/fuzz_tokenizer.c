/* libFuzzer target for the tokenizer (not part of `make test`):
 *   clang -O1 -g -fsanitize=fuzzer,address,undefined -I. tests/fuzz_tokenizer.c -o build/fuzz_tokenizer
 *   build/fuzz_tokenizer -max_total_time=60 corpus/
 * Input byte 0 picks a fixture vocabulary (or, if >= 0xF0, treats the rest
 * as a GGUF file to load a vocab from); the rest is text to tokenize with
 * and without special-token parsing, then detokenize. */
#define LLMKIT_IMPLEMENTATION
#include "llmkit.h"
#include <stdio.h>
#include <stdlib.h>

static const char *const lk_fz_names[] = { "llama-spm", "phi-3", "gpt-2", "deepseek-coder", "falcon", "mpt", "bert-bge" };
static lk_vocab *lk_fz_vocabs[7];

static void lk_fz_run(const lk_vocab *v, const char *text, int len) {
    static lk_token toks[1 << 16];
    static char out[1 << 18];
    int ps, n;
    for (ps = 0; ps < 2; ps++) {
        n = lk_tokenize(v, text, len, toks, 1 << 16, ps, ps);
        if (n == LK_TOKENIZE_ERROR) abort();
        if (n > 0) {
            int m = lk_detokenize(v, toks, n, out, (int)sizeof out, ps, ps);
            if (m == LK_TOKENIZE_ERROR) abort();
            if (n > 1 && lk_tokenize(v, text, len, toks, n - 1, ps, ps) != -n) abort();
        }
    }
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size) {
    static int init = 0;
    if (!init) {
        int i;
        const char *dir = getenv("LK_FIXTURES");
        for (i = 0; i < 7; i++) {
            char path[512];
            lk_gguf *g = NULL;
            snprintf(path, sizeof path, "%s/tokenizer/ggml-vocab-%s.gguf", dir && *dir ? dir : "../shared/fixtures", lk_fz_names[i]);
            if (lk_gguf_read_file(path, NULL, &g) == LK_OK) { lk_vocab_load(g, NULL, &lk_fz_vocabs[i]); lk_gguf_free(g); }
        }
        init = 1;
    }
    if (size < 1) return 0;
    if (data[0] >= 0xF0) {
        lk_gguf *g = NULL;
        lk_vocab *v = NULL;
        if (lk_gguf_read_memory(data + 1, size - 1, NULL, &g) == LK_OK) {
            if (lk_vocab_load(g, NULL, &v) == LK_OK) {
                lk_fz_run(v, "Hello world <s> 123", 19);
                lk_vocab_free(v);
            }
            lk_gguf_free(g);
        }
        return 0;
    }
    if (lk_fz_vocabs[data[0] % 7] && size - 1 < (1 << 14)) lk_fz_run(lk_fz_vocabs[data[0] % 7], (const char *)data + 1, (int)(size - 1));
    return 0;
}
