/* stories260K (a real trained TinyStories model) against llama.cpp and
 * llama2.c: logits over S1, mean NLL for quantized files, greedy ids, the
 * 256-step story, and the context's error and determinism guarantees. */
#define LLMKIT_IMPLEMENTATION
#include "llmkit.h"
#include "tests/lk_test.h"
#include <math.h>

static const lk_token S1[21] = {1,403,407,261,378,432,383,286,261,376,298,315,421,395,317,426,338,401,396,267,337};
#define NS1 21
#define V 512

static lk_model *load(const char *rel) {
    const char *p = lk_t_fixture(rel);
    lk_model *m = NULL;
    if (p && lk_model_load_file(p, NULL, &m)) { printf("  %s: %s\n", rel, lk_last_error()); return NULL; }
    return m;
}
static lk_context *ctx(const lk_model *m, int n_ctx, int n_batch, lk_type kv, int all, int threads) {
    lk_context_params cp = lk_context_default_params();
    lk_context *c = NULL;
    cp.n_ctx = n_ctx; cp.n_batch = n_batch; cp.kv_type = kv; cp.logits_all = all; cp.n_threads = threads;
    if (lk_context_new(m, &cp, &c)) printf("  context: %s\n", lk_last_error());
    return c;
}
/* logits of S1 at every position */
static void run_s1(const lk_model *m, lk_type kv, int n_batch, int threads, float *out) {
    lk_context *c = ctx(m, 64, n_batch, kv, 1, threads);
    int done = 0, r;
    while (done < NS1) {
        int k = NS1 - done < n_batch ? NS1 - done : n_batch;
        CHECK_OK(lk_decode(c, S1 + done, k));
        for (r = 0; r < k; r++) memcpy(out + (size_t)(done + r) * V, lk_logits(c, r), sizeof(float) * V);
        done += k;
    }
    lk_context_free(c);
}
static float *read_ref(const char *rel) {
    const char *p = lk_t_fixture(rel);
    size_t len;
    unsigned char *b = p ? lk_t_read_file(p, &len) : NULL;
    if (b && len != sizeof(float) * NS1 * V) { free(b); b = NULL; }
    return (float *)b;
}

/* lk_test.h's F32 rule over the NS1 positions of S1 */
static void f32_rule(const char *name, const float *ours, const float *ref) {
    lk_t_f32_rule(name, 34, ours, ref, NS1, V, LK_T_F32_MEDIAN);
}

static void test_logits(void) {
    static const char *q[] = { "F16", "Q8_0", "Q5_1", "Q5_0", "Q4_K_M", "Q4_1", "Q4_0" };
    float *ours = (float *)malloc(sizeof(float) * NS1 * V), *ref;
    lk_model *m = load("stories260K/stories260K-F32.gguf");
    size_t k;
    char rel[128];
    if (!m) { lk_t_skip("stories-logits", "fixtures absent"); free(ours); return; }
    lk_t_begin("stories-F32-logits (llama.cpp kv f32, kv f16; llama2.c)");
    run_s1(m, LK_TYPE_F32, 512, 2, ours);
    if ((ref = read_ref("stories260K/logits/stories260K-F32.S1.kvf32.bin"))) { f32_rule("vs llama.cpp F32 kv f32", ours, ref); free(ref); }
    if ((ref = read_ref("stories260K/logits/llama2c-stories260K.S1.bin"))) { f32_rule("vs llama2.c fp32 forward", ours, ref); free(ref); }
    run_s1(m, LK_TYPE_F16, 512, 2, ours);
    if ((ref = read_ref("stories260K/logits/stories260K-F32.S1.kvf16.bin"))) { f32_rule("vs llama.cpp F32 kv f16", ours, ref); free(ref); }
    lk_t_end();
    lk_model_free(m);
    /* quantized files: teacher-forced mean NLL within 0.5% of llama.cpp's */
    lk_t_begin("stories-quantized-mean-nll");
    for (k = 0; k < sizeof q / sizeof q[0]; k++) {
        double a, b;
        snprintf(rel, sizeof rel, "stories260K/stories260K-%s.gguf", q[k]);
        if (!(m = load(rel))) { CHECK(0, "%s missing", rel); continue; }
        run_s1(m, LK_TYPE_F32, 512, 2, ours);
        snprintf(rel, sizeof rel, "stories260K/logits/stories260K-%s.S1.kvf32.bin", q[k]);
        ref = read_ref(rel);
        CHECK(ref != NULL, "%s", rel);
        if (ref) {
            a = lk_t_mean_nll(ours, S1, NS1, V); b = lk_t_mean_nll(ref, S1, NS1, V);
            CHECK(fabs(a - b) <= 0.005 * b, "%s: NLL %.5f vs llama.cpp %.5f", q[k], a, b);
            printf("  %-8s mean NLL %.5f, llama.cpp %.5f (%+.3f%%)\n", q[k], a, b, 100 * (a - b) / b);
            free(ref);
        }
        lk_model_free(m);
    }
    lk_t_end();
    free(ours);
}

/* greedy decode: prompt then n new tokens, one decode per token */
static int greedy(const lk_model *m, lk_type kv, const lk_token *prompt, int np, int n, lk_token *out) {
    lk_context *c = ctx(m, np + n + 1, 64, kv, 0, 2);
    lk_token t;
    int i, j;
    if (!c || lk_decode(c, prompt, np)) { lk_context_free(c); return 0; }
    for (i = 0; i < n; i++) {
        const float *l = lk_logits(c, -1);
        for (t = 0, j = 1; j < V; j++) if (l[j] > l[t]) t = j;
        out[i] = t;
        if (i + 1 < n && lk_decode(c, &t, 1)) break;
    }
    lk_context_free(c);
    return i;
}
static void test_greedy(void) {
    const char *p = lk_t_fixture("stories260K/greedy.txt");
    FILE *f;
    char line[4096], file[128] = "", kvs[8] = "";
    lk_token prompt[5] = {1, 403, 407, 261, 378};
    int runs = 0;
    if (!p) { lk_t_skip("stories-greedy", "fixtures absent"); return; }
    lk_t_begin("stories-greedy-ids (every llama.cpp run in greedy.txt)");
    f = fopen(p, "r");
    while (fgets(line, sizeof line, f)) {
        if (sscanf(line, "[llama.cpp %127s kv=%7[^]]]", file, kvs) == 2) continue;
        if (!strncmp(line, "gen_ids:", 8) && file[0]) {
            lk_token ref[100], ours[100];
            int n = 0, first = -1, i;
            char *s = line + 8, rel[160];
            lk_model *m;
            while (n < 100) { char *e; long v = strtol(s, &e, 10); if (e == s) break; ref[n++] = (lk_token)v; s = e; }
            snprintf(rel, sizeof rel, "stories260K/%s", file);
            if (!(m = load(rel))) { CHECK(0, "%s", rel); file[0] = 0; continue; }
            CHECK(greedy(m, !strcmp(kvs, "f16") ? LK_TYPE_F16 : LK_TYPE_F32, prompt, 5, n, ours) == n, "%s: decode", file);
            for (i = 0; i < n; i++) if (ours[i] != ref[i]) { first = i; break; }
            /* F32 (either KV type), F16 and Q8_0 must give llama.cpp's 100 ids exactly.
             * The 4- and 5-bit files amplify single rounding flips in activation
             * quantization (the fixtures README), so there the ids must agree
             * for at least the first 50 tokens. */
            if (strstr(file, "F32") || strstr(file, "F16") || strstr(file, "Q8_0"))
                CHECK(first < 0, "%s kv=%s: first differing id at generated index %d", file, kvs, first);
            else
                CHECK(first < 0 || first >= 50, "%s kv=%s: first differing id at generated index %d (< 50)", file, kvs, first);
            if (first < 0) printf("  %-26s kv=%s: all 100 ids equal llama.cpp's\n", file, kvs);
            else printf("  %-26s kv=%s: ids equal llama.cpp's up to generated index %d\n", file, kvs, first);
            lk_model_free(m);
            file[0] = 0; runs++;
        }
    }
    fclose(f);
    CHECK(runs == 9, "%d runs checked", runs);
    lk_t_end();
}

/* llama2.c's 256-step greedy story, through the tokenizer and detokenizer */
static void test_story(void) {
    const char *p = lk_t_fixture("stories260K/llama2c_run_greedy.txt");
    lk_model *m = load("stories260K/stories260K-F32.gguf");
    char *want = NULL, *got;
    size_t len;
    lk_token toks[300], gen[300];
    int n, i, ng;
    if (!p || !m) { lk_t_skip("stories-llama2c-story", "fixtures absent"); lk_model_free(m); return; }
    lk_t_begin("stories-llama2c-story (256 steps, text identical)");
    {   /* the story is the block after the "# stdout" line, up to the blank line */
        unsigned char *b = lk_t_read_file(p, &len);
        char *s = strstr((char *)b, "# stdout");
        char *e;
        s = strchr(s, '\n') + 1;
        e = strstr(s, "\n\n");
        *e = 0;
        want = (char *)malloc(strlen(s) + 1); memcpy(want, s, strlen(s) + 1);
        free(b);
    }
    n = lk_tokenize(lk_model_vocab(m), "Once upon a time", 16, toks, 300, 1, 0);
    CHECK(n == 5 && toks[0] == 1 && toks[1] == 403 && toks[4] == 378, "prompt tokens");
    ng = greedy(m, LK_TYPE_F32, toks, n, 257 - n, gen);   /* llama2.c -n 256: positions 1..256 are printed */
    for (i = 0; i < ng; i++) toks[n + i] = gen[i];
    got = (char *)malloc(8192);
    len = (size_t)lk_detokenize(lk_model_vocab(m), toks + 1, n - 1 + ng, got, 8191, 0, 0);
    got[len] = 0;
    CHECK(strcmp(got, want) == 0, "story differs:\n--- ours\n%s\n--- llama2.c\n%s", got, want);
    free(got); free(want);
    lk_model_free(m);
    lk_t_end();
}

/* errors, determinism, chunking */
static void test_context_rules(void) {
    lk_model *m = load("stories260K/stories260K-Q8_0.gguf");
    lk_context *c;
    float *a, *b;
    lk_token bad[2] = {1, 512};
    int pos[3] = {0, 1, 2}, i, nb[] = {1, 3, 7, 21};
    if (!m) { lk_t_skip("stories-context-rules", "fixtures absent"); return; }
    lk_t_begin("context-errors (overflow, token range, position order)");
    c = ctx(m, 8, 4, LK_TYPE_F16, 0, 1);
    CHECK(lk_decode(c, bad, 2) == LK_ERR_RANGE, "token 512 >= n_vocab");
    CHECK(lk_context_n_past(c) == 0, "nothing stored after an error");
    bad[1] = -1; CHECK(lk_decode(c, bad, 2) == LK_ERR_RANGE, "negative token");
    CHECK(lk_decode(c, S1, 9) == LK_ERR_RANGE, "9 tokens into n_ctx 8");
    CHECK_OK(lk_decode_pos(c, S1, pos, 3));
    pos[0] = 1; pos[1] = 0;
    CHECK(lk_decode_pos(c, S1, pos, 2) == LK_ERR_RANGE, "position 1 before 2");
    CHECK(lk_decode_pos(c, S1, pos + 1, 1) == LK_ERR_RANGE, "position 0 after 2");
    CHECK_OK(lk_decode(c, S1 + 3, 5));
    CHECK(lk_decode(c, S1, 1) == LK_ERR_RANGE && strstr(lk_last_error(), "overflow"), "full context: %s", lk_last_error());
    CHECK(lk_decode(c, S1, 0) == LK_ERR_INVALID_ARG && lk_decode(NULL, S1, 1) == LK_ERR_INVALID_ARG, "bad arguments");
    CHECK_OK(lk_context_truncate(c, 2));
    CHECK(lk_context_truncate(c, 3) == LK_ERR_RANGE, "truncate beyond");
    lk_context_free(c);
    lk_t_end();

    lk_t_begin("context-memory (lk_context_memory_size is what it takes)");
    {   /* an arena of exactly the reported size (+ the context struct) is enough;
         * 4 KiB less fails cleanly with LK_ERR_NOMEM */
        lk_context_params cp = lk_context_default_params();
        size_t need, slack = 4096;
        unsigned char *mem;
        lk_arena ar;
        lk_allocator al;
        cp.n_ctx = 256; cp.n_batch = 32;
        need = lk_context_memory_size(m, &cp);
        CHECK(need > 0, "memory size");
        mem = (unsigned char *)malloc(need + slack);
        lk_arena_init(&ar, mem, need + slack); al = lk_arena_allocator(&ar); cp.alloc = &al;
        CHECK_OK(lk_context_new(m, &cp, &c));
        if (c) { CHECK_OK(lk_decode(c, S1, NS1)); lk_context_free(c); }
        lk_arena_init(&ar, mem, need - slack);
        CHECK(lk_context_new(m, &cp, &c) == LK_ERR_NOMEM, "too small an arena must fail with NOMEM");
        free(mem);
    }
    lk_t_end();

    lk_t_begin("context-determinism (threads, batch sizes, truncate)");
    a = (float *)malloc(sizeof(float) * NS1 * V); b = (float *)malloc(sizeof(float) * NS1 * V);
    run_s1(m, LK_TYPE_F16, 512, 1, a);
    run_s1(m, LK_TYPE_F16, 512, 2, b);
    CHECK(memcmp(a, b, sizeof(float) * NS1 * V) == 0, "1 vs 2 threads differ");
    for (i = 0; i < (int)(sizeof nb / sizeof nb[0]); i++) {
        run_s1(m, LK_TYPE_F16, nb[i], 2, b);
        CHECK(memcmp(a, b, sizeof(float) * NS1 * V) == 0, "n_batch %d differs from one full prefill", nb[i]);
    }
    /* rollback: decode, truncate to 10, re-decode the same tokens -> same last logits */
    c = ctx(m, 32, 512, LK_TYPE_F16, 0, 2);
    CHECK_OK(lk_decode(c, S1, NS1));
    CHECK_OK(lk_context_truncate(c, 10));
    CHECK_OK(lk_decode(c, S1 + 10, NS1 - 10));
    CHECK(memcmp(lk_logits(c, -1), a + (size_t)(NS1 - 1) * V, sizeof(float) * V) == 0, "truncate + re-decode differs");
    lk_context_free(c);
    free(a); free(b);
    lk_model_free(m);
    lk_t_end();
}

int main(void) {
    test_logits();
    test_greedy();
    test_story();
    test_context_rules();
    return lk_t_exit();
}
