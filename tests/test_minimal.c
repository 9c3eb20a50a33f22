/* The minimal firmware build: the library compiled without the tokenizer,
 * the IQ/ternary formats, the quantizers, the KV policies, stdio, malloc and
 * threads (the compile-out switches of section 1). The test reads the
 * stories260K model into memory itself, hands the library one arena, runs
 * the fixture sequence S1 and compares the logits with llama.cpp's
 * (../shared/fixtures/stories260K/logits), as the full build does. It also
 * checks that what was compiled out says so. */
#define LLMKIT_NO_TOKENIZER
#define LLMKIT_NO_IQ
#define LLMKIT_NO_QUANTIZE
#define LLMKIT_NO_KV_POLICIES
#define LLMKIT_NO_STDIO
#define LLMKIT_NO_MALLOC
#define LLMKIT_NO_THREADS
#define LLMKIT_STATIC
#define LLMKIT_IMPLEMENTATION
#include "llmkit.h"
#include "tests/lk_test.h"
#include <math.h>

int main(void) {
    static const lk_token s1[21] = { 1, 403, 407, 261, 378, 432, 383, 286, 261, 376, 298, 315, 421, 395, 317, 426, 338, 401, 396, 267, 337 };
    const char *mp = lk_t_fixture("stories260K/stories260K-F32.gguf"), *lp = lk_t_fixture("stories260K/logits/stories260K-F32.S1.kvf32.bin");
    unsigned char *model, *ref, *mem;
    size_t mlen, rlen, cap = 64u << 20;
    lk_arena arena;
    lk_allocator al;
    lk_model_params mp_ = lk_model_default_params();
    lk_context_params cp = lk_context_default_params();
    lk_model *m = NULL;
    lk_context *c = NULL;
    double worst = 0.0, M = 1.0;
    int i, j;
    if (!mp || !lp) { lk_t_skip("minimal build (no tokenizer/IQ/quantizers/policies/stdio/malloc/threads)", "fixtures absent (../shared/fixtures)"); return 0; }
    model = lk_t_read_file(mp, &mlen);
    ref = lk_t_read_file(lp, &rlen);
    mem = (unsigned char *)malloc(cap);   /* the test's memory; the library only sees the arena */
    lk_t_begin("minimal build: stories260K S1 logits equal llama.cpp's, from one arena");
    CHECK(model && ref && mem && rlen == sizeof(float) * 21 * 512, "cannot read the fixtures");
    if (model && ref && mem) {
        lk_arena_init(&arena, mem, cap);
        al = lk_arena_allocator(&arena);
        mp_.alloc = &al; cp.alloc = &al;
        cp.n_ctx = 32; cp.logits_all = 1; cp.kv_type = LK_TYPE_F32;
        CHECK_OK(lk_model_load_memory(model, mlen, &mp_, &m));
        CHECK(m && lk_model_vocab(m) == NULL, "the vocabulary should be compiled out");
        if (m) CHECK_OK(lk_context_new(m, &cp, &c));
        if (c) {
            CHECK_OK(lk_decode(c, s1, 21));
            for (i = 0; i < 21 * 512; i++) { float r; memcpy(&r, ref + 4 * (size_t)i, 4); if (fabs(r) > M) M = fabs(r); }
            for (i = 0; i < 21; i++) {
                const float *l = lk_logits(c, i);
                for (j = 0; l && j < 512; j++) {
                    float r;
                    memcpy(&r, ref + 4 * ((size_t)i * 512 + (size_t)j), 4);
                    if (fabs((double)l[j] - r) > worst) worst = fabs((double)l[j] - r);
                }
                CHECK(l != NULL, "no logits for row %d", i);
            }
            /* the same rule as the full build's stories260K test: within 1e-3 M */
            CHECK(worst <= 1e-3 * M, "max |logit - llama.cpp| %.3g (M %.3g)", worst, M);
            printf("  max |logit - llama.cpp| = %.2e, arena used %zu bytes (peak %zu)\n", worst, arena.used, arena.peak);
        }
    }
    lk_t_end();

    /* lk_context_memory_size is what a firmware sizes its arena by: an arena of
     * exactly that much after the model must hold the context, for every KV
     * type, context and batch size */
    lk_t_begin("minimal build: lk_context_memory_size is enough for lk_context_new, and not wasteful");
    if (m) {
        static const lk_type kv[4] = { LK_TYPE_F32, LK_TYPE_F16, LK_TYPE_Q8_0, LK_TYPE_Q4_0 };
        static const int ctxs[3] = { 16, 64, 200 }, batches[3] = { 1, 7, 64 };
        const size_t base = arena.used;
        int a, b2, k;
        for (k = 0; k < 4; k++)
            for (a = 0; a < 3; a++)
                for (b2 = 0; b2 < 3; b2++) {
                    lk_context_params q = cp;
                    lk_context *c3 = NULL;
                    size_t need;
                    q.kv_type = kv[k]; q.n_ctx = ctxs[a]; q.n_batch = batches[b2]; q.logits_all = b2 == 1;
                    need = lk_context_memory_size(m, &q);
                    arena.used = base; arena.size = base + need;   /* exactly the stated size left */
                    CHECK(need > 0 && lk_context_new(m, &q, &c3) == LK_OK && c3, "kv %s ctx %d batch %d: %zu bytes are not enough: %s",
                          lk_type_name(kv[k]), ctxs[a], batches[b2], need, lk_last_error());
                    /* the slack is the three allocations' alignment room, no more */
                    if (c3) CHECK(base + need - arena.used <= 16 + 64 + 64, "kv %s ctx %d batch %d: %zu bytes stated, %zu used",
                                  lk_type_name(kv[k]), ctxs[a], batches[b2], need, arena.used - base);
                    if (c3) {   /* and it runs */
                        CHECK_OK(lk_decode(c3, s1, 5));
                        lk_context_free(c3);
                    }
                }
        arena.used = base; arena.size = cap;
    }
    lk_t_end();

    lk_t_begin("minimal build: compiled-out parts report LK_ERR_UNSUPPORTED");
    {
        float x[256] = { 0 };
        unsigned char y[256];
        lk_context_params q = cp;
        lk_context *c2 = NULL;
        CHECK(lk_quantize_row(LK_TYPE_Q4_K, x, y, 256) == LK_ERR_UNSUPPORTED, "q4_K quantizer present");
        CHECK(lk_quantize_row(LK_TYPE_Q8_0, x, y, 32) == LK_OK, "q8_0 (the KV cache's) quantizer missing");
        CHECK(lk_dequantize_row(LK_TYPE_IQ4_NL, y, x, 32) == LK_ERR_UNSUPPORTED, "iq4_nl dequantizer present");
        CHECK(lk_type_get(LK_TYPE_IQ4_NL) != NULL, "iq4_nl should stay a known type");
        q.kv_policy.policy = LK_KV_H2O; q.kv_policy.budget = 8;
        if (m) CHECK(lk_context_new(m, &q, &c2) == LK_ERR_UNSUPPORTED && c2 == NULL, "h2o should be compiled out");
        {   /* a model in an IQ format is refused at load, and the message says why */
            const char *ip = lk_t_fixture("models/llama/llama-IQ4_NL.gguf");
            size_t ilen;
            unsigned char *iq = ip ? lk_t_read_file(ip, &ilen) : NULL;
            lk_model *m2 = NULL;
            if (iq) {
                CHECK(lk_model_load_memory(iq, ilen, &mp_, &m2) == LK_ERR_UNSUPPORTED && m2 == NULL, "an iq4_nl model loaded");
                CHECK(strstr(lk_last_error(), "iq4_nl") && strstr(lk_last_error(), "LLMKIT_NO_IQ"), "message: %s", lk_last_error());
                lk_model_free(m2);
                free(iq);
            }
        }
    }
    lk_t_end();
    lk_context_free(c);
    lk_model_free(m);
    free(model); free(ref); free(mem);
    return lk_t_exit();
}
