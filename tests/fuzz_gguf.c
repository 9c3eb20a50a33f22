/* libFuzzer target for the GGUF reader.
 *   clang -O1 -g -fsanitize=fuzzer,address,undefined -I. tests/fuzz_gguf.c -o fuzz_gguf
 *   ./fuzz_gguf -max_total_time=60 CORPUS_DIR SEED_DIR
 * `make fuzz FUZZ_TIME=600` runs it; `make test` runs it for FUZZ_TIME (30 s). */
#define LLMKIT_IMPLEMENTATION
#include "llmkit.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    lk_gguf *g = NULL;
    if (lk_gguf_read_memory(data, size, NULL, &g) == LK_OK) {
        /* exercise every accessor on whatever was accepted */
        uint64_t i, u, j;
        volatile uint64_t sink = 0;
        for (i = 0; i < g->n_kv; i++) {
            const lk_gguf_value *v = &g->kv[i].value;
            char key[128];
            double d;
            size_t n = g->kv[i].key.len < sizeof key - 1 ? (size_t)g->kv[i].key.len : sizeof key - 1;
            memcpy(key, g->kv[i].key.ptr, n); key[n] = 0;
            if (lk_gguf_get_u64(g, key, &u) == LK_OK) sink += u;
            if (lk_gguf_get_f64_at(g, key, 0, &d) == LK_OK) sink += (uint64_t)(d == d);
            if (v->type == LK_GGUF_ARRAY && v->arr_type != LK_GGUF_STRING && v->arr_type != LK_GGUF_ARRAY)
                for (j = 0; j < v->n && j < 64; j++) if (lk_gguf_value_u64_at(v, j, &u) == LK_OK) sink += u;
            if (v->type == LK_GGUF_ARRAY && v->arr_type == LK_GGUF_STRING)
                for (j = 0; j < v->n && j < 64; j++) sink += v->v.strs[j].len ? (unsigned char)v->v.strs[j].ptr[v->v.strs[j].len - 1] : 0;
        }
        for (i = 0; i < g->n_tensors; i++) {
            lk_tensor t;
            if (g->tensors[i].nbytes) sink += ((const uint8_t *)g->tensors[i].data)[g->tensors[i].nbytes - 1];
            if (lk_gguf_tensor_view(g, (int64_t)i, &t) == LK_OK) sink += lk_tensor_nbytes(&t);
        }
        (void)sink;
        lk_gguf_free(g);
    }
    return 0;
}
