/* generate: stream text from a GGUF model.
 *   build: cc -O2 -march=native -fopenmp -I. examples/generate.c -lm -o generate
 *   usage: generate -m MODEL [-p PROMPT] [-n N] [-t THREADS] [-c CTX] [-b N_BATCH]
 *                   [--temp T] [--top-k K] [--top-p P] [--min-p P] [--repeat-penalty R]
 *                   [--repeat-last-n N] [--seed S] [--ignore-eos]
 *                   [--attn softmax|lssa|lssar] [--kv-type f32|f16|q8_0|q4_0|zip4|zip2] (--kv: alias)
 *                   [--kv-policy full|streaming|h2o|keyformer|quest|tokenselect|twilight]
 *                   [--kv-budget N] [--top-p-attn P] [--kv-window W] [--n-sink N] [--page-size P] [--twilight-base full|quest]
 * Flags are spelled as in llama.cpp's CLI. Prompt and generation speed are
 * printed on stderr at the end. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 199309L  /* clock_gettime */
#endif
#define LLMKIT_IMPLEMENTATION
#include "llmkit.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
/* --attn, --kv-type (--kv), --kv-policy, --kv-budget, --top-p-attn, --kv-window,
 * --n-sink, --page-size, --twilight-base: 1 = consumed, 0 = not one of these, -1 = bad value */
static int kv_flag(const char *a, const char *x, lk_context_params *cp) {
    if (!strcmp(a, "--attn")) {
        if (!strcmp(x, "softmax")) cp->attn_score = LK_ATTN_SOFTMAX;
        else if (!strcmp(x, "lssa")) cp->attn_score = LK_ATTN_LSSA;
        else if (!strcmp(x, "lssar")) cp->attn_score = LK_ATTN_LSSAR;
        else { fprintf(stderr, "--attn must be softmax, lssa or lssar\n"); return -1; }
    } else if (!strcmp(a, "--kv-type") || !strcmp(a, "--kv")) {
        cp->kv_zip_bits = 0;
        if (!strcmp(x, "f32")) cp->kv_type = LK_TYPE_F32;
        else if (!strcmp(x, "f16")) cp->kv_type = LK_TYPE_F16;
        else if (!strcmp(x, "q8_0")) cp->kv_type = LK_TYPE_Q8_0;
        else if (!strcmp(x, "q4_0")) cp->kv_type = LK_TYPE_Q4_0;
        else if (!strcmp(x, "zip4")) { cp->kv_type = LK_TYPE_F16; cp->kv_zip_bits = 4; }
        else if (!strcmp(x, "zip2")) { cp->kv_type = LK_TYPE_F16; cp->kv_zip_bits = 2; }
        else { fprintf(stderr, "--kv-type must be f32, f16, q8_0, q4_0, zip4 or zip2\n"); return -1; }
    } else if (!strcmp(a, "--kv-policy")) {
        int p = lk_kv_policy_from_name(x);
        if (p < 0) { fprintf(stderr, "--kv-policy must be full, streaming, h2o, keyformer, quest, tokenselect or twilight\n"); return -1; }
        cp->kv_policy.policy = (lk_kv_policy)p;
    } else if (!strcmp(a, "--kv-budget")) cp->kv_policy.budget = atoi(x);
    else if (!strcmp(a, "--top-p-attn")) cp->kv_policy.top_p = (float)atof(x);
    else if (!strcmp(a, "--kv-window")) cp->kv_zip_window = atoi(x);
    else if (!strcmp(a, "--n-sink")) cp->kv_policy.n_sink = atoi(x);
    else if (!strcmp(a, "--page-size")) cp->kv_policy.page_size = atoi(x);
    else if (!strcmp(a, "--twilight-base")) {
        if (!strcmp(x, "full")) cp->kv_policy.twilight_base = LK_KV_FULL;
        else if (!strcmp(x, "quest")) cp->kv_policy.twilight_base = LK_KV_QUEST;
        else { fprintf(stderr, "--twilight-base must be full or quest\n"); return -1; }
    }
    else return 0;
    return 1;
}
static int usage(void) {
    fprintf(stderr,
        "usage: generate -m MODEL [-p PROMPT] [-n N] [-t THREADS] [-c CTX] [-b N_BATCH]\n"
        "                [--temp T] [--top-k K] [--top-p P] [--min-p P] [--repeat-penalty R]\n"
        "                [--repeat-last-n N] [--seed S] [--ignore-eos]\n"
        "                [--attn softmax|lssa|lssar] [--kv-type f32|f16|q8_0|q4_0|zip4|zip2]\n"
        "                [--kv-policy full|streaming|h2o|keyformer|quest|tokenselect|twilight]\n"
        "                [--kv-budget N] [--top-p-attn P] [--kv-window W] [--n-sink N] [--page-size P] [--twilight-base full|quest]\n");
    return 2;
}

int main(int argc, char **argv) {
    const char *model = NULL, *prompt = "";
    int n_gen = 128, i, n_prompt, ignore_eos = 0;
    lk_context_params cp = lk_context_default_params();
    lk_sampler_params sp = lk_sampler_default_params();
    lk_model *m; lk_context *c; lk_sampler *s;
    const lk_vocab *v;
    int *toks, cap;
    double t0, t1, t2;
    int n_done = 0;
    char piece[256];
    sp.seed = (uint64_t)time(NULL);
    for (i = 1; i < argc; i++) {
        const char *a = argv[i], *x = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--ignore-eos")) { ignore_eos = 1; continue; }
        if (!x) return usage();
        if (!strcmp(a, "-m")) model = x;
        else if (!strcmp(a, "-p")) prompt = x;
        else if (!strcmp(a, "-n")) n_gen = atoi(x);
        else if (!strcmp(a, "-t")) cp.n_threads = atoi(x);
        else if (!strcmp(a, "-c")) cp.n_ctx = atoi(x);
        else if (!strcmp(a, "-b")) cp.n_batch = atoi(x);
        else if (!strcmp(a, "--temp")) sp.temperature = (float)atof(x);
        else if (!strcmp(a, "--top-k")) sp.top_k = atoi(x);
        else if (!strcmp(a, "--top-p")) sp.top_p = (float)atof(x);
        else if (!strcmp(a, "--min-p")) sp.min_p = (float)atof(x);
        else if (!strcmp(a, "--repeat-penalty")) sp.repeat_penalty = (float)atof(x);
        else if (!strcmp(a, "--repeat-last-n")) sp.repeat_last_n = atoi(x);
        else if (!strcmp(a, "--seed")) sp.seed = (uint64_t)strtoull(x, NULL, 10);
        else {
            int r = kv_flag(a, x, &cp);
            if (r < 0) return 2;
            if (r == 0) return usage();
        }
        i++;
    }
    if (!model || n_gen < 0) return usage();
    if (lk_model_load_file(model, NULL, &m)) { fprintf(stderr, "generate: %s\n", lk_last_error()); return 1; }
    v = lk_model_vocab(m);
    if (!v) { fprintf(stderr, "generate: %s has no tokenizer\n", model); return 1; }
    if (lk_context_new(m, &cp, &c)) { fprintf(stderr, "generate: %s\n", lk_last_error()); return 1; }
    cap = (int)strlen(prompt) + 8;
    toks = (int *)malloc(sizeof(int) * (size_t)cap);
    n_prompt = lk_tokenize(v, prompt, (int)strlen(prompt), toks, cap, 1, 0);
    if (n_prompt < 0) { fprintf(stderr, "generate: cannot tokenize the prompt: %s\n", lk_last_error()); return 1; }
    if (n_prompt == 0) { toks[0] = lk_vocab_bos(v) >= 0 ? lk_vocab_bos(v) : 0; n_prompt = 1; }
    if (n_prompt >= lk_context_n_ctx(c)) { fprintf(stderr, "generate: the prompt (%d tokens) does not fit the context (%d)\n", n_prompt, lk_context_n_ctx(c)); return 1; }
    sp.n_vocab = lk_model_n_vocab(m);
    if (lk_sampler_new(&sp, &s)) { fprintf(stderr, "generate: %s\n", lk_last_error()); return 1; }
    fputs(prompt, stdout);
    fflush(stdout);
    for (i = 0; i < n_prompt; i++) lk_sampler_accept(s, toks[i]);
    t0 = now_s();
    if (lk_decode(c, toks, n_prompt)) { fprintf(stderr, "\ngenerate: %s\n", lk_last_error()); return 1; }
    t1 = now_s();
    while (n_done < n_gen && lk_context_n_past(c) < lk_context_n_ctx(c)) {
        int t = lk_sampler_sample(s, lk_logits(c, -1), lk_model_n_vocab(m)), len;
        if (t < 0) { fprintf(stderr, "\ngenerate: %s\n", lk_last_error()); return 1; }
        lk_sampler_accept(s, t);
        n_done++;
        if (!ignore_eos && lk_vocab_is_eog(v, t)) break;
        len = lk_token_to_piece(v, t, piece, (int)sizeof piece, 0);
        if (len > 0) { fwrite(piece, 1, (size_t)len, stdout); fflush(stdout); }
        if (n_done == n_gen) break;
        if (lk_decode(c, &t, 1)) { fprintf(stderr, "\ngenerate: %s\n", lk_last_error()); return 1; }
    }
    t2 = now_s();
    printf("\n");
    fprintf(stderr, "\nprompt: %d tokens in %.3f s (%.1f t/s); generation: %d tokens in %.3f s (%.1f t/s)\n",
            n_prompt, t1 - t0, n_prompt / (t1 - t0 > 0 ? t1 - t0 : 1e-9), n_done, t2 - t1, n_done / (t2 - t1 > 0 ? t2 - t1 : 1e-9));
    fprintf(stderr, "KV cache: %llu bytes (policy %s, budget %d)\n", (unsigned long long)lk_context_kv_bytes(c),
            lk_kv_policy_name(cp.kv_policy.policy), cp.kv_policy.budget);
    lk_sampler_free(s); lk_context_free(c); lk_model_free(m); free(toks);
    return 0;
}
