/* perplexity: perplexity of a model over a text file, computed the way
 * llama.cpp's llama-perplexity does it.
 *   build: cc -O2 -march=native -fopenmp -I. tools/perplexity.c -lm -o perplexity
 *   usage: perplexity -m MODEL -f TEXT [--chunks N] [--kl-divergence-base FILE [--kl-divergence]]
 *            [any option of the model and context tables: -c N_CTX (512), -b N_BATCH (2048),
 *             -t N, --kv-type, --attn, --kv-policy, --kv-budget, ..., --check-tensors 0|1]
 *   perplexity --help lists them (llmkit.h's option tables).
 * The text is tokenized with BOS (if the vocabulary adds one) and cut into
 * non-overlapping windows of N_CTX tokens; each window starts fresh with
 * its first token replaced by BOS, and the second half of each window is
 * scored: NLL of token j+1 from the logits at j, for j in [N_CTX/2, N_CTX-1).
 * Prints a running [window]PPL list and llama-perplexity's closing line
 *   Final estimate: PPL = X +/- Y
 * (Y: the standard error of the mean NLL, times PPL), then the KV bytes
 * (lk_context_kv_bytes) and the evaluation speed in tokens/s (with -b 1
 * every token is a decode step).
 *
 * KL divergence, in llama-perplexity's file format (so either program can
 * write the base and either can compare against it):
 *   --kl-divergence-base FILE            save the log-probabilities of the
 *                                        scored positions (a full-precision run)
 *   --kl-divergence-base FILE --kl-divergence
 *                                        read them back, run this model on the
 *                                        file's own tokens (-f is not needed) and
 *                                        report PPL(Q) vs PPL(base), the KL
 *                                        divergence, top-1 agreement and dp.
 * File: "_logits_", u32 n_ctx, i32 n_vocab, i32 n_chunk, i32 tokens[n_chunk *
 * n_ctx], then per window and scored position (n_ctx - 1 - n_ctx/2 rows) a
 * row of nv = 2*((n_vocab+1)/2) + 4 u16: floats scale and min (the first 4
 * u16), then log p_i = min + scale * q_i over the top 16 nats (below: 0). */
#include "lk_tool.h"
#define LLMKIT_IMPLEMENTATION
#include "llmkit.h"
#include <math.h>

#define USAGE \
    "perplexity -m MODEL -f TEXT [--chunks N] [--kl-divergence-base FILE [--kl-divergence]] [OPTIONS]\n" \
    "  -m MODEL                        the GGUF file\n" \
    "  -f TEXT                         the text file\n" \
    "      --chunks N                  score at most N windows (<= 0: all)\n" \
    "      --kl-divergence-base FILE   save the log-probabilities (or, with --kl-divergence,\n" \
    "                                  compare against them; -f is then not needed)\n" \
    "  -c (the window) is by default 512 and -b 2048, llama-perplexity's defaults"
#define SETS (TOOL_OPTS_MODEL | TOOL_OPTS_CONTEXT)

/* log p(tok) from a row of logits (max-shifted, double sum as llama.cpp) */
static double log_prob(const float *l, int n, lk_token tok) {
    float mx = l[0];
    double sum = 0.0;
    int i;
    for (i = 1; i < n; i++) if (l[i] > mx) mx = l[i];
    for (i = 0; i < n; i++) sum += expf(l[i] - mx);
    return (double)(l[tok] - mx) - log(sum);
}

/* ---- KL divergence (llama-perplexity's --kl-divergence-base format) ---- */
static int nearest_int(float f) {   /* round half to even below 2^22, as ggml */
    float v = f + 12582912.f;
    int32_t i;
    memcpy(&i, &v, 4);
    return (i & 0x007fffff) - 0x00400000;
}
/* row of logits -> nv u16 log-probabilities: [scale f32][min f32][q...] */
static void pack_log_probs(const float *l, int n, uint16_t *out) {
    float mx = l[0], mn = l[0], scale, min_lp, lse;
    double sum = 0.0;
    int i;
    for (i = 1; i < n; i++) { if (l[i] > mx) mx = l[i]; if (l[i] < mn) mn = l[i]; }
    if (mn < mx - 16) mn = mx - 16;
    for (i = 0; i < n; i++) sum += expf(l[i] - mx);
    lse = (float)log(sum);
    min_lp = mn - mx - lse;
    scale = (mx - mn) / 65535.f;
    memcpy(out, &scale, 4); memcpy(out + 2, &min_lp, 4);
    for (i = 0; i < n; i++) out[4 + i] = (uint16_t)(scale != 0.0f && l[i] > mn ? nearest_int((l[i] - mn) / scale) : 0);
}
typedef struct kld_stats {
    double nll, nll2, nll_b, nll_b2, nll_nll_b, kld, kld2, dp, dp2;
    float max_dp;
    long same_top, count;
    float *klds;   /* every position's KL divergence, for the percentiles */
} kld_stats;
/* one scored position: our logits l against the base row b for token tok */
static void kld_add(kld_stats *k, const float *l, int n, const uint16_t *b, lk_token tok) {
    float mx = l[0], scale, min_lp, lse, nll, nll_b, best_b = 0, dp;
    double sum = 0.0, kl = 0.0;
    int i, imax = 0, imax_b = -1;
    for (i = 1; i < n; i++) if (l[i] > mx) { mx = l[i]; imax = i; }
    for (i = 0; i < n; i++) sum += expf(l[i] - mx);
    lse = (float)log(sum);
    memcpy(&scale, b, 4); memcpy(&min_lp, b + 2, 4);
    b += 4;
    nll = mx + lse - l[tok];
    nll_b = -(scale * b[tok] + min_lp);
    for (i = 0; i < n; i++) {   /* KL(base || ours) = sum p_b (log p_b - log p) */
        const float lp_b = scale * b[i] + min_lp;
        if (i == 0 || lp_b > best_b) { best_b = lp_b; imax_b = i; }
        if (lp_b > -16.f) kl += expf(lp_b) * (lp_b - (l[i] - mx - lse));
    }
    dp = expf(-nll) - expf(-nll_b);
    k->nll += nll; k->nll2 += (double)nll * nll; k->nll_b += nll_b; k->nll_b2 += (double)nll_b * nll_b;
    k->nll_nll_b += (double)nll * nll_b;
    k->kld += kl; k->kld2 += kl * kl; k->dp += dp; k->dp2 += (double)dp * dp;
    if (fabsf(dp) > k->max_dp) k->max_dp = fabsf(dp);
    k->same_top += imax == imax_b;
    k->klds[k->count++] = (float)kl;
}
static int cmp_float(const void *a, const void *b) {
    float x = *(const float *)a, y = *(const float *)b;
    return x < y ? -1 : x > y;
}
static void mean_unc(double sum, double sum2, long n, double *mean, double *unc) {
    double var;
    *mean = n > 0 ? sum / n : 0.0;
    var = n > 0 ? sum2 / n - *mean * *mean : 0.0;
    *unc = var > 0 && n > 10 ? sqrt(var / (n - 1)) : 0.0;
}
static void kld_report(kld_stats *k) {
    double m, u, mb, ub, mk, uk, md, ud, p;
    long n = k->count;
    if (n < 1) { printf("KL divergence: no scored positions\n"); return; }
    qsort(k->klds, (size_t)n, sizeof(float), cmp_float);
    mean_unc(k->nll, k->nll2, n, &m, &u);
    mean_unc(k->nll_b, k->nll_b2, n, &mb, &ub);
    mean_unc(k->kld, k->kld2, n, &mk, &uk);
    mean_unc(k->dp, k->dp2, n, &md, &ud);
    p = (double)k->same_top / n;
    printf("====== Perplexity statistics ======\n");
    printf("Mean PPL(Q)                   : %10.6f +/- %10.6f\n", exp(m), exp(m) * u);
    printf("Mean PPL(base)                : %10.6f +/- %10.6f\n", exp(mb), exp(mb) * ub);
    printf("Mean NLL(Q), NLL(base)        : %10.6f, %10.6f (%+.3f %%)\n", m, mb, mb != 0 ? 100.0 * (m - mb) / mb : 0.0);
    printf("Mean ln(PPL(Q)/PPL(base))     : %10.6f\n", m - mb);
    printf("====== KL divergence statistics ======\n");
    printf("Mean    KLD: %10.6f +/- %10.6f\n", mk, uk);
    printf("Maximum KLD: %10.6f\n", k->klds[n - 1]);
    printf("99.0%%   KLD: %10.6f\n", k->klds[(size_t)(0.99 * (n - 1))]);
    printf("Median  KLD: %10.6f\n", k->klds[n / 2]);
    printf("Minimum KLD: %10.6f\n", k->klds[0]);
    printf("====== Token probability statistics ======\n");
    printf("Mean    dp: %6.3f +/- %5.3f %%\n", 100.0 * md, 100.0 * ud);
    printf("Maximum dp: %6.3f %%\n", 100.0 * k->max_dp);
    printf("RMS     dp: %6.3f %%\n", 100.0 * sqrt(k->dp2 / n));
    printf("Same top p: %6.3f +/- %5.3f %% (%ld of %ld)\n", 100.0 * p, n > 1 ? 100.0 * sqrt(p * (1 - p) / (n - 1)) : 0.0, k->same_top, n);
}
static int read_all(FILE *f, void *p, size_t n) { return fread(p, 1, n, f) == n; }

int main(int argc, char **argv) {
    const char *model = NULL, *file = NULL, *kld_file = NULL;
    int kld_mode = 0;   /* 1: --kl-divergence (compare against kld_file) */
    FILE *kf = NULL;
    uint16_t *rows = NULL;
    kld_stats ks;
    int nv = 0;
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
    memset(&ks, 0, sizeof ks);
    for (i = 1; i < argc; i += 2) {   /* every option but --kl-divergence takes a value */
        const char *a = argv[i], *x = i + 1 < argc ? argv[i + 1] : NULL;
        lk_status st;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) return tool_help(0, USAGE, SETS, NULL);
        if (!strcmp(a, "--kl-divergence")) { kld_mode = 1; i--; continue; }
        if (!x) return tool_no_value(USAGE, SETS, NULL, a);
        if (!strcmp(a, "-m")) model = x;
        else if (!strcmp(a, "--kl-divergence-base")) kld_file = x;
        else if (!strcmp(a, "-f")) file = x;
        else if (!strcmp(a, "--chunks")) {
            if (!tool_parse_int(x, -1000000000L, 1000000000L, &max_chunks)) return tool_fail(2, "--chunks expects a count, got '%s'", x);
        } else if ((st = tool_set_option(&mp, &cp, NULL, a, x)) == LK_ERR_NOT_FOUND) return tool_bad_usage(USAGE, SETS, NULL, "unknown option %s", a);
        else if (st) return tool_lk_fail(2);
    }
    n_ctx = cp.n_ctx; n_batch = cp.n_batch;
    if (kld_mode && !kld_file) return tool_fail(2, "--kl-divergence needs --kl-divergence-base FILE");
    if (!model || (!file && !kld_mode)) return tool_bad_usage(USAGE, SETS, NULL, "-m MODEL and -f TEXT are required");
    if (n_ctx < 4) return tool_fail(2, "-c %d: a window needs at least 4 tokens", n_ctx);
    if (lk_model_load_file(model, &mp, &m)) return tool_lk_fail(1);
    if (!(v = lk_model_vocab(m))) return tool_fail(1, "%s has no tokenizer", model);
    V = lk_model_n_vocab(m);
    nv = 2 * ((V + 1) / 2) + 4;
    if (kld_mode) {   /* the base file's context, chunks and tokens */
        char magic[8];
        uint32_t fctx;
        int32_t fv, fch;
        if (!(kf = fopen(kld_file, "rb"))) return tool_fail(1, "%s: cannot open", kld_file);
        if (!read_all(kf, magic, 8) || memcmp(magic, "_logits_", 8) || !read_all(kf, &fctx, 4) || !read_all(kf, &fv, 4) || !read_all(kf, &fch, 4))
            return tool_fail(1, "%s: not a log-probability file (llama-perplexity --kl-divergence-base)", kld_file);
        if (fv != V) return tool_fail(1, "%s: vocabulary of %d tokens, the model has %d", kld_file, (int)fv, V);
        if (fctx < 4 || fctx > (1u << 20) || fch < 1 || (uint64_t)fctx * (uint64_t)fch > (1u << 28))
            return tool_fail(1, "%s: implausible n_ctx %u / n_chunk %d", kld_file, (unsigned)fctx, (int)fch);
        n_ctx = (int)fctx; n_chunk = (int)fch; n_tok = n_ctx * n_chunk;
        toks = (lk_token *)malloc(sizeof(lk_token) * (size_t)n_tok);
        if (!toks || !read_all(kf, toks, sizeof(lk_token) * (size_t)n_tok)) return tool_fail(1, "%s: truncated token list", kld_file);
        for (i = 0; i < n_tok; i++) if (toks[i] < 0 || toks[i] >= V) return tool_fail(1, "%s: token %d out of range", kld_file, (int)toks[i]);
        if (max_chunks > 0 && max_chunks < n_chunk) n_chunk = max_chunks;
        text = NULL;
    } else {
        if (tool_read_file(file, &text, &tlen)) return tool_lk_fail(1);
        if (tlen > 0x7fffffff) return tool_fail(1, "%s: too large (%zu bytes)", file, tlen);
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
        if (kld_file) {   /* write the base: header and tokens now, rows per window */
            uint32_t fctx = (uint32_t)n_ctx;
            int32_t fv = V, fch = n_chunk;
            if (!(kf = fopen(kld_file, "wb"))) return tool_fail(1, "%s: cannot create", kld_file);
            if (fwrite("_logits_", 1, 8, kf) != 8 || fwrite(&fctx, 4, 1, kf) != 1 || fwrite(&fv, 4, 1, kf) != 1 || fwrite(&fch, 4, 1, kf) != 1 ||
                fwrite(toks, sizeof(lk_token), (size_t)n_chunk * n_ctx, kf) != (size_t)n_chunk * n_ctx)
                return tool_fail(1, "%s: write failed", kld_file);
        }
    }
    if (kld_file) {
        rows = (uint16_t *)malloc(sizeof(uint16_t) * (size_t)nv * (size_t)n_ctx);
        ks.klds = (float *)malloc(sizeof(float) * (size_t)n_ctx * (size_t)n_chunk);
        if (!rows || !ks.klds) return tool_fail(1, "out of memory");
    }
    cp.n_ctx = n_ctx; cp.n_batch = n_batch < n_ctx ? n_batch : n_ctx; cp.logits_all = 1;
    if (lk_context_new(m, &cp, &c)) return tool_lk_fail(1);
    fprintf(stderr, "perplexity: %d tokens, %d windows of %d, scoring the second half of each\n", n_tok, n_chunk, n_ctx);
    t_start = tool_now();
    for (ch = 0; ch < n_chunk; ch++) {
        int start = ch * n_ctx, first = n_ctx / 2, done = 0;
        lk_token save = toks[start];
        if (lk_context_truncate(c, 0)) return tool_lk_fail(1);
        if (lk_vocab_add_bos(v) && lk_vocab_bos(v) >= 0) toks[start] = lk_vocab_bos(v);
        if (kld_mode && !read_all(kf, rows, sizeof(uint16_t) * (size_t)nv * (size_t)(n_ctx - 1 - first)))
            return tool_fail(1, "%s: truncated at window %d", kld_file, ch + 1);
        while (done < n_ctx) {
            int k = n_ctx - done < cp.n_batch ? n_ctx - done : cp.n_batch, j;
            if (lk_decode(c, toks + start + done, k)) return tool_lk_fail(1);
            for (j = 0; j < k; j++) {
                int p = done + j;   /* position in the window */
                if (p >= first && p < n_ctx - 1) {
                    double lp = log_prob(lk_logits(c, j), V, toks[start + p + 1]);
                    nll -= lp; nll2 += lp * lp; count++;
                    if (kld_mode) kld_add(&ks, lk_logits(c, j), V, rows + (size_t)(p - first) * nv, toks[start + p + 1]);
                    else if (kld_file) pack_log_probs(lk_logits(c, j), V, rows + (size_t)(p - first) * nv);
                }
            }
            done += k;
        }
        toks[start] = save;
        if (kld_file && !kld_mode && fwrite(rows, sizeof(uint16_t) * (size_t)nv, (size_t)(n_ctx - 1 - first), kf) != (size_t)(n_ctx - 1 - first))
            return tool_fail(1, "%s: write failed", kld_file);
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
    if (kld_mode) kld_report(&ks);
    if (kf && fclose(kf)) return tool_fail(1, "%s: write failed", kld_file);
    lk_context_free(c); lk_model_free(m); free(toks); free(text); free(rows); free(ks.klds);
    return 0;
}
