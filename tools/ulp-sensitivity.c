/* ulp-sensitivity - how far a model's logits move when one weight moves by
 * one ulp: the floor for comparing two implementations that round
 * differently (the GPU against the CPU, llmkit against llama.cpp).
 *
 *   ulp-sensitivity -m FILE [-n N_TOKENS] [--tensor NAME] [--trials K] [-t THREADS]
 *
 * Decodes N random tokens (seed 1234, default 32) on the CPU, then again
 * with element 7 i of the f32 tensor NAME (default blk.0.attn_norm.weight)
 * raised by one ulp, for i = 0 .. K - 1 (default 3), and prints rms(d) /
 * rms(logits) of the last position and whether the argmax moved. A model
 * whose activations sit on rounding ties (random weights with unit norm
 * weights and quantized embeddings) moves by whole percents; a trained
 * model usually not at all, because a 1-ulp change rarely crosses a q8
 * rounding step of the activations. */
#include "lk_tool.h"
#define LLMKIT_IMPLEMENTATION
#include "llmkit.h"
#include <math.h>

#define USAGE "ulp-sensitivity -m FILE [-n N_TOKENS] [--tensor NAME] [--trials K] [-t THREADS]"

/* the last position's logits after toks, with element `at` of w moved by `ulps` (then restored) */
static float *run(const lk_model *m, float *w, int at, int ulps, const lk_token *toks, int n, int threads) {
    lk_context *c;
    lk_context_params cp = lk_context_default_params();
    const int V = lk_model_n_vocab(m);
    float *out = (float *)malloc(sizeof(float) * (size_t)V);
    uint32_t u;
    memcpy(&u, &w[at], 4); u += (uint32_t)ulps; memcpy(&w[at], &u, 4);
    cp.n_ctx = n; cp.n_threads = threads;
    if (!out || lk_context_new(m, &cp, &c) || lk_decode(c, toks, n)) {
        tool_lk_fail(1);
        exit(1);
    }
    memcpy(out, lk_logits(c, -1), sizeof(float) * (size_t)V);
    lk_context_free(c);
    memcpy(&u, &w[at], 4); u -= (uint32_t)ulps; memcpy(&w[at], &u, 4);
    return out;
}

int main(int argc, char **argv) {
    const char *path = NULL, *name = "blk.0.attn_norm.weight";
    int n = 32, trials = 3, threads = 0;
    size_t len = 0;
    char *buf;
    lk_model *m;
    lk_tensor t;
    lk_token *toks;
    float *base;
    int64_t ti;
    int i, k, V;
    tool_name = "ulp-sensitivity";
    for (i = 1; i < argc; i++)
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) { printf("usage: %s\n", USAGE); return 0; }
    for (i = 1; i < argc; i += 2) {   /* every option takes a value */
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v) return tool_usage(USAGE);
        if (!strcmp(a, "-m")) path = v;
        else if (!strcmp(a, "--tensor")) name = v;
        else if (!strcmp(a, "-n")) { if (!tool_parse_int(v, 1, 1 << 20, &n)) return tool_fail(2, "-n: expected a number in [1, 1048576], got '%s'", v); }
        else if (!strcmp(a, "--trials")) { if (!tool_parse_int(v, 1, 1000, &trials)) return tool_fail(2, "--trials: expected a number in [1, 1000], got '%s'", v); }
        else if (!strcmp(a, "-t")) { if (!tool_parse_int(v, 0, 4096, &threads)) return tool_fail(2, "-t: expected a number in [0, 4096], got '%s'", v); }
        else return tool_fail(2, "unknown option %s (usage: %s)", a, USAGE);
    }
    if (!path) return tool_usage(USAGE);
    if (tool_read_file(path, &buf, &len)) return tool_lk_fail(1);   /* in memory: the weights can be changed */
    if (lk_model_load_memory(buf, len, NULL, &m)) return tool_lk_fail(1);
    ti = lk_gguf_find_tensor(lk_model_gguf(m), name);
    if (ti < 0 || lk_gguf_tensor_view(lk_model_gguf(m), ti, &t) || t.type != LK_TYPE_F32 || lk_tensor_nelements(&t) < 7 * trials) {
        return tool_fail(1, "%s: no f32 tensor '%s' of at least %d elements", path, name, 7 * trials);
    }
    V = lk_model_n_vocab(m);
    toks = (lk_token *)malloc(sizeof(lk_token) * (size_t)n);
    if (!toks) return tool_fail(1, "out of memory");
    srand(1234);
    for (i = 0; i < n; i++) toks[i] = (lk_token)(rand() % V);
    base = run(m, (float *)t.data, 0, 0, toks, n, threads);
    for (k = 0; k < trials; k++) {
        float *b = run(m, (float *)t.data, 7 * k, 1, toks, n, threads);
        double d2 = 0, s2 = 0;
        int am = 0, bm = 0;
        for (i = 0; i < V; i++) {
            d2 += ((double)base[i] - b[i]) * ((double)base[i] - b[i]); s2 += (double)base[i] * base[i];
            if (base[i] > base[am]) am = i;
            if (b[i] > b[bm]) bm = i;
        }
        printf("%s[%d] + 1 ulp: logits after %d tokens move by rms(d)/rms = %.2e, argmax %s (%d, %d)\n", name, 7 * k, n,
               sqrt(d2 / (s2 + 1e-30)), am == bm ? "kept" : "moved", am, bm);
        free(b);
    }
    free(base); free(toks);
    lk_model_free(m);
    free(buf);
    return 0;
}
