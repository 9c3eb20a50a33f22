/* perplexity: perplexity of a model over a text file, computed the way
 * llama.cpp's llama-perplexity does it.
 *   build: cc -O2 -march=native -fopenmp -I. tools/perplexity.c -lm -o perplexity
 *   usage: perplexity -m MODEL -f TEXT [-c N_CTX] [-b N_BATCH] [-t N] [--chunks N]
 *            [--attn softmax|lssa|lssar] [--kv-type f32|f16|q8_0|q4_0|zip4|zip2] (--kv: alias)
 *            [--kv-policy full|streaming|h2o|keyformer|quest|tokenselect|twilight]
 *            [--kv-budget N] [--top-p-attn P] [--kv-window W] [--n-sink N] [--page-size P] [--twilight-base full|quest]
 *            [--check-tensors 0|1]
 * The text is tokenized with BOS (if the vocabulary adds one) and cut into
 * non-overlapping windows of N_CTX tokens; each window starts fresh with
 * its first token replaced by BOS, and the second half of each window is
 * scored: NLL of token j+1 from the logits at j, for j in [N_CTX/2, N_CTX-1).
 * Prints a running [window]PPL list and llama-perplexity's closing line
 *   Final estimate: PPL = X +/- Y
 * (Y: the standard error of the mean NLL, times PPL), then the KV bytes
 * (lk_context_kv_bytes) and the evaluation speed in tokens/s (with -b 1
 * every token is a decode step). */
#include "lk_tool.h"
#define LLMKIT_IMPLEMENTATION
#include "llmkit.h"
#include <math.h>

#define USAGE \
    "perplexity -m MODEL -f TEXT [-c N_CTX] [-b N_BATCH] [-t THREADS] [--chunks N]\n" \
    "         [--attn softmax|lssa|lssar] [--kv-type f32|f16|q8_0|q4_0|zip4|zip2]\n" \
    "         [--kv-policy full|streaming|h2o|keyformer|quest|tokenselect|twilight]\n" \
    "         [--kv-budget N] [--top-p-attn P] [--kv-window W] [--n-sink N] [--page-size P] [--twilight-base full|quest]\n" \
    "         [--check-tensors 0|1]\n" \
    "         (any lk_context_params_set name: --attn-split --attn-tile --lssar-p --kv-recent --kv-seed --reuse-cos)"

/* log p(tok) from a row of logits (max-shifted, double sum as llama.cpp) */
static double log_prob(const float *l, int n, lk_token tok) {
    float mx = l[0];
    double sum = 0.0;
    int i;
    for (i = 1; i < n; i++) if (l[i] > mx) mx = l[i];
    for (i = 0; i < n; i++) sum += expf(l[i] - mx);
    return (double)(l[tok] - mx) - log(sum);
}

int main(int argc, char **argv) {
    const char *model = NULL, *file = NULL;
    int n_ctx = 512, n_batch = 2048, max_chunks = -1, i;
    lk_model_params mp = lk_model_default_params();
    lk_context_params cp = lk_context_default_params();
    lk_model *m; lk_context *c;
    const lk_vocab *v;
    char *text; size_t tlen;
    lk_token *toks;
    int n_tok, n_chunk, V, ch, count = 0;
    double t_start;
    double nll = 0.0, nll2 = 0.0;
    tool_name = "perplexity";
    cp.n_ctx = n_ctx; cp.n_batch = n_batch;   /* llama-perplexity's defaults */
    for (i = 1; i < argc; i += 2) {   /* every option takes a value */
        const char *a = argv[i], *x = i + 1 < argc ? argv[i + 1] : NULL;
        lk_status st;
        if (!x) return tool_usage(USAGE);
        if (!strcmp(a, "-m")) model = x;
        else if (!strcmp(a, "-f")) file = x;
        else if (!strcmp(a, "--chunks")) {
            if (!tool_parse_int(x, -1000000000L, 1000000000L, &max_chunks)) return tool_fail(2, "--chunks expects a count, got '%s'", x);
        } else if ((st = tool_set_option(&mp, &cp, NULL, a, x)) == LK_ERR_NOT_FOUND) return tool_usage(USAGE);
        else if (st) return tool_lk_fail(2);
    }
    n_ctx = cp.n_ctx; n_batch = cp.n_batch;
    if (!model || !file || n_ctx < 4 || n_batch < 1) return tool_usage(USAGE);
    if (tool_read_file(file, &text, &tlen)) return tool_lk_fail(1);
    if (tlen > 0x7fffffff) return tool_fail(1, "%s: too large (%zu bytes)", file, tlen);
    if (lk_model_load_file(model, &mp, &m)) return tool_lk_fail(1);
    if (!(v = lk_model_vocab(m))) return tool_fail(1, "%s has no tokenizer", model);
    V = lk_model_n_vocab(m);
    n_tok = lk_tokenize(v, text, (int)tlen, NULL, 0, 1, 0);
    if (n_tok == LK_TOKENIZE_ERROR) return tool_lk_fail(1);
    n_tok = n_tok < 0 ? -n_tok : n_tok;
    toks = (lk_token *)malloc(sizeof(lk_token) * (size_t)(n_tok + 1));
    if (!toks) return tool_fail(1, "out of memory");
    n_tok = lk_tokenize(v, text, (int)tlen, toks, n_tok + 1, 1, 0);
    if (n_tok / 2 < n_ctx)   /* two windows at least (n_ctx can be near INT_MAX: no 2 * n_ctx) */
        return tool_fail(1, "need at least 2 x %d tokens for a context of %d, the text has %d", n_ctx, n_ctx, n_tok);
    n_chunk = n_tok / n_ctx;
    if (max_chunks > 0 && max_chunks < n_chunk) n_chunk = max_chunks;
    cp.n_ctx = n_ctx; cp.n_batch = n_batch < n_ctx ? n_batch : n_ctx; cp.logits_all = 1;
    if (lk_context_new(m, &cp, &c)) return tool_lk_fail(1);
    fprintf(stderr, "perplexity: %d tokens, %d windows of %d, scoring the second half of each\n", n_tok, n_chunk, n_ctx);
    t_start = tool_now();
    for (ch = 0; ch < n_chunk; ch++) {
        int start = ch * n_ctx, first = n_ctx / 2, done = 0;
        lk_token save = toks[start];
        if (lk_context_truncate(c, 0)) return tool_lk_fail(1);
        if (lk_vocab_add_bos(v) && lk_vocab_bos(v) >= 0) toks[start] = lk_vocab_bos(v);
        while (done < n_ctx) {
            int k = n_ctx - done < cp.n_batch ? n_ctx - done : cp.n_batch, j;
            if (lk_decode(c, toks + start + done, k)) return tool_lk_fail(1);
            for (j = 0; j < k; j++) {
                int p = done + j;   /* position in the window */
                if (p >= first && p < n_ctx - 1) {
                    double lp = log_prob(lk_logits(c, j), V, toks[start + p + 1]);
                    nll -= lp; nll2 += lp * lp; count++;
                }
            }
            done += k;
        }
        toks[start] = save;
        printf("[%d]%.4f,", ch + 1, exp(nll / count));
        fflush(stdout);
    }
    printf("\n");
    {
        double mean = nll / count, var = nll2 / count - mean * mean, ppl = exp(mean);
        if (var > 0) printf("Final estimate: PPL = %.4f +/- %.5f\n", ppl, sqrt(var / (count - 1)) * ppl);
        else printf("Final estimate: PPL = %.4f +/- nan\n", ppl);
    }
    {
        const lk_kv_cache *kv = lk_context_kv(c);
        double dt = tool_now() - t_start;
        printf("KV cache: %llu bytes (%s%s, policy %s, budget %d, %d x %d rows)\n", (unsigned long long)lk_context_kv_bytes(c),
               kv->zip_bits == 4 ? "zip4 window " : kv->zip_bits == 2 ? "zip2 window " : "", lk_type_name(kv->type),
               lk_kv_policy_name(cp.kv_policy.policy), cp.kv_policy.budget, kv->n_layer, kv->n_ctx);
        printf("Speed: %d tokens in %.3f s = %.1f tokens/s (batch %d)\n", n_chunk * n_ctx, dt, dt > 0 ? n_chunk * n_ctx / dt : 0.0, cp.n_batch);
    }
    lk_context_free(c); lk_model_free(m); free(toks); free(text);
    return 0;
}
