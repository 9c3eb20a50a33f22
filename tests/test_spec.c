/* Speculative decoding (lk_spec): losslessness.
 *   - the acceptance walk by exact enumeration on a 5-token vocabulary (one
 *     draft, 2 and 3 siblings drawn without replacement, fixed tokens, a
 *     greedy target), with a wrong rule (no residual) as negative control;
 *   - the same by a chi-square test over 200,000 sampled steps;
 *   - temperature 0: every mode emits plain greedy decoding's tokens, on
 *     stories260K (draft: its Q4_0), SmolLM2 (its own draft) and Gemma 3
 *     (recycle, lookup) (make models);
 *   - temperature 0.8: the first speculated token's distribution against
 *     the target's (chi-square over 3,000 runs, stories260K);
 *   - the cache after speculation = sequential decoding of the emitted
 *     tokens, every KV type (bit for bit) and Quest;
 *   - the adaptive pause, the report counters and the refusals.
 * References: the target distribution p itself (enumeration, chi-square)
 * and plain decoding with lk_decode / lk_sampler (end to end). */
#define LLMKIT_IMPLEMENTATION
#include "llmkit.h"
#include "tests/lk_test.h"
#include <math.h>

/* ---- the walk, exactly ---------------------------------------------------- */
#define NV 5
static const float P0[NV] = { 0.4f, 0.25f, 0.2f, 0.1f, 0.05f }, Q0[NV] = { 0.1f, 0.3f, 0.3f, 0.2f, 0.1f };
typedef struct { unsigned mask; int used; double w; } coins;
static int coin_fixed(double a, void *user) {   /* outcome = bit `used` of mask; weight of that outcome */
    coins *c = (coins *)user;
    int b = (int)((c->mask >> c->used++) & 1u);
    c->w *= b ? a : 1.0 - a;
    return b;
}
/* the exact output distribution of one node's walk for fixed children */
static void walk_exact(const float *p, const lk_token *ct, const float *const *cq, int nc, int rule, double w, double *out) {
    unsigned mask;
    int j;
    for (mask = 0; mask < (1u << nc); mask++) {
        float pb[NV];
        coins c;
        int got;
        c.mask = mask; c.used = 0; c.w = w;
        memcpy(pb, p, sizeof pb);
        got = lk__spec_walk_node(pb, NV, ct, cq, nc, coin_fixed, &c, rule);
        if (mask >> c.used) continue;   /* coins it did not use: counted once, with them 0 */
        if (got >= 0) out[ct[got]] += c.w;
        else for (j = 0; j < NV; j++) out[j] += c.w * pb[j];
    }
}
/* children drawn from q without replacement (all ordered tuples of k), the exact output distribution */
static void enum_draws(const float *p, const float *q, int k, int rule, double *out) {
    lk_token ct[3];
    const float *cq[3] = { q, q, q };
    int a, b, c;
    for (a = 0; a < NV; a++) {
        double wa = q[a];
        ct[0] = a;
        if (k == 1) { walk_exact(p, ct, cq, 1, rule, wa, out); continue; }
        for (b = 0; b < NV; b++) {
            double wb;
            if (b == a) continue;
            wb = wa * q[b] / (1.0 - q[a]);
            ct[1] = b;
            if (k == 2) { walk_exact(p, ct, cq, 2, rule, wb, out); continue; }
            for (c = 0; c < NV; c++) {
                if (c == a || c == b) continue;
                ct[2] = c;
                walk_exact(p, ct, cq, 3, rule, wb * q[c] / (1.0 - q[a] - q[b]), out);
            }
        }
    }
}
static double dist_err(const double *a, const float *p) {
    double e = 0;
    int j;
    for (j = 0; j < NV; j++) if (fabs(a[j] - p[j]) > e) e = fabs(a[j] - p[j]);
    return e;
}
static void test_exact(void) {
    static const float G[NV] = { 0, 0, 1, 0, 0 };   /* a greedy target */
    double out[NV];
    int k, rule;
    lk_t_begin("spec rule: exact enumeration (draft, siblings without replacement, fixed tokens, greedy) + negative control");
    for (rule = 0; rule < 2; rule++) {
        double worst = 0;
        for (k = 1; k <= 3; k++) {
            memset(out, 0, sizeof out);
            enum_draws(P0, Q0, k, rule, out);
            if (rule == 0) CHECK(dist_err(out, P0) < 1e-6, "%d sibling(s) drawn from q: output differs from p by %g", k, dist_err(out, P0));
            if (dist_err(out, P0) > worst) worst = dist_err(out, P0);
        }
        {   /* fixed tokens: {1, 3} and {0, 2, 4} */
            static const lk_token f1[2] = { 1, 3 }, f2[3] = { 0, 2, 4 };
            const float *nq[3] = { NULL, NULL, NULL };
            memset(out, 0, sizeof out); walk_exact(P0, f1, nq, 2, rule, 1.0, out);
            if (rule == 0) CHECK(dist_err(out, P0) < 1e-6, "fixed tokens {1,3}: differs from p by %g", dist_err(out, P0));
            if (dist_err(out, P0) > worst) worst = dist_err(out, P0);
            memset(out, 0, sizeof out); walk_exact(P0, f2, nq, 3, rule, 1.0, out);
            if (rule == 0) CHECK(dist_err(out, P0) < 1e-6, "fixed tokens {0,2,4}: differs from p by %g", dist_err(out, P0));
            if (dist_err(out, P0) > worst) worst = dist_err(out, P0);
        }
        memset(out, 0, sizeof out);
        enum_draws(G, Q0, 2, rule, out);
        if (rule == 0) CHECK(dist_err(out, G) < 1e-6, "greedy target: differs by %g", dist_err(out, G));
        if (rule == 1) CHECK(worst > 0.01, "negative control: the rule without residual was not detected (largest error %g)", worst);
        printf("  rule %s: largest |output - p| %.2e\n", rule ? "without residual (must fail)" : "lk_spec", worst);
    }
    lk_t_end();
}

/* ---- the walk, sampled ------------------------------------------------------ */
static double chi2_crit(int df) {   /* upper 1e-4 point, Wilson-Hilferty */
    const double z = 3.719, h = 2.0 / (9.0 * df), t = 1.0 - h + z * sqrt(h);
    return df * t * t * t;
}
static void test_chi2_walk(void) {
    const int N = 200000;
    lk_rng r;
    int rule, i, j;
    lk_t_begin("spec rule: chi-square over 200,000 sampled steps + negative control");
    for (rule = 0; rule < 2; rule++) {
        long cnt[NV] = { 0 };
        double x2 = 0;
        lk_rng_seed(&r, 11);
        for (i = 0; i < N; i++) {
            float pb[NV], qq[NV];
            lk_token ct[2];
            const float *cq[2] = { Q0, Q0 };
            int got;
            /* two siblings drawn from q without replacement */
            ct[0] = lk__spec_draw(Q0, NV, lk_rng_double(&r));
            memcpy(qq, Q0, sizeof qq); qq[ct[0]] = 0;
            ct[1] = lk__spec_draw(qq, NV, lk_rng_double(&r));
            memcpy(pb, P0, sizeof pb);
            got = lk__spec_walk_node(pb, NV, ct, cq, 2, lk__spec_coin, &r, rule);
            cnt[got >= 0 ? ct[got] : lk__spec_draw(pb, NV, lk_rng_double(&r))]++;
        }
        for (j = 0; j < NV; j++) { double e = N * (double)P0[j]; x2 += (cnt[j] - e) * (cnt[j] - e) / e; }
        if (rule == 0) CHECK(x2 < chi2_crit(NV - 1), "chi-square %.1f >= %.1f", x2, chi2_crit(NV - 1));
        else CHECK(x2 > chi2_crit(NV - 1), "negative control passed the test (chi-square %.1f)", x2);
        printf("  rule %s: chi-square %.1f (critical %.1f, 4 df, p = 1e-4)\n", rule ? "without residual" : "lk_spec", x2, chi2_crit(NV - 1));
    }
    lk_t_end();
}

/* ---- end to end ------------------------------------------------------------ */
typedef struct { const lk_model *t, *d; lk_type kv; int policy; } setup;
static lk_context *mkctx(const lk_model *m, lk_type kv, int policy, int n_ctx) {
    lk_context_params cp = lk_context_default_params();
    lk_context *c = NULL;
    cp.n_ctx = n_ctx; cp.n_tree = 33; cp.kv_type = kv; cp.n_threads = 2;
    if (policy) { cp.kv_policy.policy = LK_KV_QUEST; cp.kv_policy.page_size = 16; cp.kv_policy.budget = n_ctx; }
    if (lk_context_new(m, &cp, &c)) printf("  context: %s\n", lk_last_error());
    return c;
}
static int g_wide = 0;   /* 1: no truncation samplers (a spread distribution for the chi-square test) */
static lk_sampler *mksampler(float temp, uint64_t seed, int V) {
    lk_sampler_params sp = lk_sampler_default_params();
    lk_sampler *s = NULL;
    sp.temperature = temp; sp.seed = seed; sp.n_vocab = V; sp.repeat_penalty = 1.1f; sp.repeat_last_n = 16; sp.top_k = 40; sp.top_p = 0.95f; sp.min_p = 0.05f;
    if (g_wide) { sp.top_k = 0; sp.top_p = 1.0f; sp.min_p = 0.0f; }
    if (lk_sampler_new(&sp, &s)) printf("  sampler: %s\n", lk_last_error());
    return s;
}
/* plain decoding: n tokens after the prompt */
static int plain(const lk_model *m, const lk_token *pr, int np, int n, float temp, uint64_t seed, lk_token *out) {
    lk_context *c = mkctx(m, LK_TYPE_F16, 0, 512);
    lk_sampler *s = mksampler(temp, seed, lk_model_n_vocab(m));
    int i, k = 0;
    if (!c || !s) return 0;
    for (i = 0; i < np; i++) lk_sampler_accept(s, pr[i]);
    if (lk_decode(c, pr, np)) return 0;
    for (k = 0; k < n; k++) {
        lk_token t = lk_sampler_sample(s, lk_logits(c, -1), lk_model_n_vocab(m));
        lk_sampler_accept(s, t);
        out[k] = t;
        if (k + 1 < n && lk_decode(c, &t, 1)) break;
    }
    lk_sampler_free(s); lk_context_free(c);
    return k;
}
/* speculative: n tokens after the prompt; the target context is kept in *keep if non-NULL */
/* ct, cd: contexts to reuse (emptied here), or NULL for new ones */
static int spec_in(const setup *su, lk_spec_mode mode, const lk_token *pr, int np, int n, float temp, uint64_t seed, lk_token *out,
                   lk_spec_stats *stats, lk_context **keep, const lk_spec_params *pp, lk_context *ct, lk_context *cd) {
    lk_context *t = ct ? ct : mkctx(su->t, su->kv, su->policy, 512), *d = cd ? cd : su->d ? mkctx(su->d, LK_TYPE_F16, 0, 512) : NULL;
    lk_sampler *s = mksampler(temp, seed, lk_model_n_vocab(su->t));
    lk_spec_params p = pp ? *pp : lk_spec_default_params();
    lk_spec *sp = NULL;
    int k = 0, i, m;
    lk_token buf[64];
    p.mode = mode; p.seed = seed;
    if (!t || !s) return 0;
    lk_context_truncate(t, 0);
    if (d) lk_context_truncate(d, 0);
    for (i = 0; i < np; i++) lk_sampler_accept(s, pr[i]);
    if (lk_spec_new(t, mode == LK_SPEC_DRAFT || mode == LK_SPEC_TREE ? d : NULL, s, &p, &sp)) { printf("  lk_spec_new: %s\n", lk_last_error()); return 0; }
    if (lk_spec_begin(sp, pr, np, &out[0])) { printf("  lk_spec_begin: %s\n", lk_last_error()); return 0; }
    for (k = 1; k < n;) {
        if (lk_spec_step(sp, buf, n - k < 64 ? n - k : 64, &m)) { printf("  lk_spec_step: %s\n", lk_last_error()); break; }
        for (i = 0; i < m; i++) out[k++] = buf[i];
    }
    if (stats) *stats = lk_spec_get_stats(sp);
    lk_spec_free(sp); lk_sampler_free(s);
    if (d && !cd) lk_context_free(d);
    if (keep) *keep = t; else if (!ct) lk_context_free(t);
    return k;
}
static int spec(const setup *su, lk_spec_mode mode, const lk_token *pr, int np, int n, float temp, uint64_t seed, lk_token *out,
                lk_spec_stats *stats, lk_context **keep, const lk_spec_params *pp) {
    return spec_in(su, mode, pr, np, n, temp, seed, out, stats, keep, pp, NULL, NULL);
}
static const lk_token PR[3][6] = { { 1, 403, 407, 261, 378, 432 }, { 1, 300, 267, 401, 299, 350 }, { 1, 261, 376, 298, 261, 376 } };

static void test_greedy(const setup *su, const char *name, int n) {
    static const lk_spec_mode modes[5] = { LK_SPEC_NONE, LK_SPEC_DRAFT, LK_SPEC_TREE, LK_SPEC_RECYCLE, LK_SPEC_LOOKUP };
    lk_token ref[512], got[512];
    int pi, mi;
    char title[128];
    snprintf(title, sizeof title, "spec temperature 0: every mode = plain greedy decoding (%s, 3 prompts x %d tokens)", name, n);
    lk_t_begin(title);
    for (pi = 0; pi < 3; pi++) {
        const int np = 6;
        lk_token pr[6];
        int i;
        for (i = 0; i < np; i++) pr[i] = PR[pi][i] % lk_model_n_vocab(su->t);
        CHECK(plain(su->t, pr, np, n, 0.0f, 1, ref) == n, "plain decoding failed");
        for (mi = 0; mi < 5; mi++) {
            lk_spec_stats st;
            int k, same;
            if ((modes[mi] == LK_SPEC_DRAFT || modes[mi] == LK_SPEC_TREE) && !su->d) continue;
            k = spec(su, modes[mi], pr, np, n, 0.0f, 1, got, &st, NULL, NULL);
            for (same = 0; same < k && same < n && got[same] == ref[same]; same++) {}
            CHECK(k == n && same == n, "prompt %d, mode %s: %d tokens, first difference at %d", pi, lk_spec_mode_name(modes[mi]), k, same);
            CHECK(st.tokens == n && st.forwards >= 1 && st.forwards <= n && (modes[mi] != LK_SPEC_NONE || st.forwards == n),
                  "mode %s: stats tokens %lld forwards %lld", lk_spec_mode_name(modes[mi]), (long long)st.tokens, (long long)st.forwards);
            if (pi == 0)
                printf("  %-8s %.2f tokens/forward, acceptance %.1f %%\n", lk_spec_mode_name(modes[mi]), (double)st.tokens / (double)st.forwards,
                       st.proposed ? 100.0 * (double)st.accepted / (double)st.proposed : 0.0);
        }
    }
    lk_t_end();
}

/* temperature 0.8: runs whose first (plain-sampled) token is the most
 * frequent one; the next token (the first speculated) against the target's
 * distribution after it */
static void test_chi2_model(const setup *su) {
    static const lk_spec_mode modes[3] = { LK_SPEC_DRAFT, LK_SPEC_TREE, LK_SPEC_RECYCLE };
    const int V = lk_model_n_vocab(su->t), R = 2000;
    lk_context *ct = mkctx(su->t, LK_TYPE_F16, 0, 64), *cd = mkctx(su->d, LK_TYPE_F16, 0, 64);
    float *p = (float *)malloc(sizeof(float) * (size_t)V);
    long *cnt = (long *)calloc((size_t)V, sizeof(long)), *first = (long *)calloc((size_t)V, sizeof(long));
    /* a story prefix whose next token is nearly certain (p 0.98) and the one after it is not (24 tokens
     * with an expected count >= 5 in 2,000 draws): runs mostly start alike, the test token is spread */
    static const lk_token pr[21] = { 1, 261, 376, 298, 315, 421, 395, 317, 263, 377, 267, 265, 282, 295, 433, 335, 311, 357, 426, 338, 394 };
    lk_token out[4], t0 = 0;
    int mi, i, j;
    lk_t_begin("spec temperature 0.8: first speculated token ~ the target's distribution (chi-square, 2,000 runs per mode)");
    g_wide = 1;   /* temperature 0.8 and the repeat penalty, no truncation: many tokens with mass */
    for (i = 0; i < 200; i++) { if (spec_in(su, LK_SPEC_NONE, pr, 21, 1, 0.8f, 1000 + (uint64_t)i, out, NULL, NULL, NULL, ct, cd) == 1) first[out[0]]++; }
    for (j = 0; j < V; j++) if (first[j] > first[t0]) t0 = j;
    {   /* the target's distribution after prompt + t0, with the sampler's history */
        lk_context *c = mkctx(su->t, LK_TYPE_F16, 0, 64);
        lk_sampler *s = mksampler(0.8f, 1, V);
        for (i = 0; i < 21; i++) lk_sampler_accept(s, pr[i]);
        lk_sampler_accept(s, t0);
        CHECK_OK(lk_decode(c, pr, 21)); CHECK_OK(lk_decode(c, &t0, 1));
        CHECK_OK(lk_sampler_probs(s, lk_logits(c, -1), V, p));
        lk_sampler_free(s); lk_context_free(c);
    }
    for (mi = 0; mi < 3; mi++) {   /* one lk_spec per mode, reset between runs (recycle's table stays warm) */
        lk_sampler *sm = mksampler(0.8f, 1, V);
        lk_spec_params pp = lk_spec_default_params();
        lk_spec *sp = NULL;
        long n = 0, acc0 = 0;
        double x2 = 0, e, o;
        int df = 0, seed, m;
        lk_token buf[2];
        pp.mode = modes[mi];
        memset(cnt, 0, sizeof(long) * (size_t)V);
        lk_context_truncate(ct, 0); lk_context_truncate(cd, 0);
        CHECK_OK(lk_spec_new(ct, modes[mi] == LK_SPEC_RECYCLE ? NULL : cd, sm, &pp, &sp));
        if (!sp) break;
        for (seed = 0; n < R && seed < 40 * R; seed++) {
            lk_spec_stats s0 = lk_spec_get_stats(sp), s1;
            const int warm = modes[mi] == LK_SPEC_RECYCLE && seed < 20;   /* recycle: fill the table first */
            lk_sampler_reset(sm);
            lk_rng_seed(lk_sampler_rng(sm), 5000 + (uint64_t)seed);
            for (i = 0; i < 21; i++) lk_sampler_accept(sm, pr[i]);
            CHECK_OK(lk_spec_reset(sp));
            CHECK_OK(lk_spec_begin(sp, pr, 21, &out[0]));
            if (warm) { for (i = 0; i < 20; i++) CHECK_OK(lk_spec_step(sp, buf, 2, &m)); continue; }
            if (out[0] != t0) continue;
            /* cap 2: the step's first token can be an accepted proposal */
            CHECK_OK(lk_spec_step(sp, buf, 2, &m));
            s1 = lk_spec_get_stats(sp);
            cnt[buf[0]]++; n++;
            acc0 += s1.accepted > s0.accepted;
        }
        lk_spec_free(sp); lk_sampler_free(sm);
        CHECK(n == R, "mode %s: only %ld runs started with token %d", lk_spec_mode_name(modes[mi]), n, (int)t0);
        e = 0; o = 0;
        for (j = 0; j < V; j++) {   /* bins with an expected count under 5 pooled */
            if (p[j] * n >= 5.0) { x2 += (cnt[j] - p[j] * n) * (cnt[j] - p[j] * n) / (p[j] * n); df++; }
            else { e += p[j] * n; o += cnt[j]; if (p[j] == 0.0f) CHECK(cnt[j] == 0, "mode %s emitted token %d of probability 0", lk_spec_mode_name(modes[mi]), j); }
        }
        if (e > 0) { x2 += (o - e) * (o - e) / (e > 1e-9 ? e : 1e-9); df++; }
        df--;
        CHECK(df >= 8, "mode %s: only %d degrees of freedom (the distribution is too narrow for the test)", lk_spec_mode_name(modes[mi]), df);
        CHECK(acc0 >= n / 20, "mode %s: a proposal was accepted in only %ld of %ld runs (the walk is hardly exercised)", lk_spec_mode_name(modes[mi]), acc0, n);
        CHECK(df < 1 || x2 < chi2_crit(df), "mode %s: chi-square %.1f >= %.1f (%d df)", lk_spec_mode_name(modes[mi]), x2, chi2_crit(df), df);
        printf("  %-8s chi-square %.1f, %d df (critical %.1f at p = 1e-4); a proposal accepted in %ld of %ld runs\n", lk_spec_mode_name(modes[mi]), x2, df,
               chi2_crit(df), acc0, n);
    }
    free(p); free(cnt); free(first);
    lk_context_free(ct); lk_context_free(cd);
    g_wide = 0;
    lk_t_end();
}

/* the target's cache after speculation = sequential decoding of the emitted tokens */
static void test_cache(const setup *su0) {
    static const lk_type kvs[4] = { LK_TYPE_F32, LK_TYPE_F16, LK_TYPE_Q8_0, LK_TYPE_Q4_0 };
    int ki, pol;
    lk_t_begin("spec: the target's cache = sequential decoding of the emitted tokens (every KV type bit for bit, Quest)");
    for (pol = 0; pol < 2; pol++)
        for (ki = 0; ki < 4; ki++) {
            setup su = *su0;
            lk_context *t = NULL, *s;
            lk_token out[128], all[140];
            int n, np = 6, il, bad = 0, r;
            su.kv = kvs[ki]; su.policy = pol;
            n = spec(&su, LK_SPEC_DRAFT, PR[1], np, 100, 0.8f, 3, out, NULL, &t, NULL);
            CHECK(n == 100 && t, "speculation failed");
            if (!t) continue;
            memcpy(all, PR[1], sizeof(lk_token) * (size_t)np);
            memcpy(all + np, out, sizeof(lk_token) * (size_t)(n - 1));   /* the last emitted token is not in the cache */
            CHECK(lk_context_n_past(t) == np + n - 1, "cache holds %d tokens, want %d", lk_context_n_past(t), np + n - 1);
            s = mkctx(su.t, su.kv, su.policy, 512);
            CHECK_OK(lk_decode(s, all, np + n - 1));
            for (r = 0; r < np + n - 1; r++) CHECK(t->kv.pos[r] == s->kv.pos[r], "row %d: position %d vs %d", r, t->kv.pos[r], s->kv.pos[r]);
            for (il = 0; il < su.t->hp.n_layer; il++) {
                const size_t off = (size_t)il * t->kv.n_ctx * t->kv.row_k, len = (size_t)(np + n - 1) * t->kv.row_k;
                if (!pol) bad += memcmp(t->kv.k + off, s->kv.k + off, len) != 0 || memcmp(t->kv.v + off, s->kv.v + off, len) != 0;
                else {   /* Quest with a budget of every row: within rounding */
                    int g;
                    for (r = 0; r < np + n - 1; r++)
                        for (g = 0; g < su.t->hp.n_head_kv; g++) {
                            float ka[512], va[512], kb[512], vb[512];
                            int e;
                            lk_kv_cache_read(&t->kv, il, r, g, ka, va); lk_kv_cache_read(&s->kv, il, r, g, kb, vb);
                            for (e = 0; e < su.t->hp.head_dim_k; e++)
                                if (fabsf(ka[e] - kb[e]) > 0.3f || fabsf(va[e] - vb[e]) > 0.3f) { bad++; break; }
                        }
                }
            }
            CHECK(bad == 0, "kv %s%s: %d layers/heads differ from sequential decoding", lk_type_name(kvs[ki]), pol ? " quest" : "", bad);
            lk_context_free(s); lk_context_free(t);
        }
    lk_t_end();
}

static void test_adaptive_refusals(const setup *su) {
    lk_spec_params p = lk_spec_default_params();
    lk_spec_stats st;
    lk_token out[200], ref[200];
    lk_context *t, *d;
    lk_sampler *s;
    lk_sampler_params mp = lk_sampler_default_params();
    lk_spec *sp = NULL;
    int n, same;
    lk_t_begin("spec: adaptive pause, options and refusals");
    p.node_cost = 10.0f;   /* nothing pays: shrink, then pause */
    n = spec(su, LK_SPEC_RECYCLE, PR[0], 6, 150, 0.0f, 1, out, &st, NULL, &p);
    plain(su->t, PR[0], 6, 150, 0.0f, 1, ref);
    for (same = 0; same < n && out[same] == ref[same]; same++) {}
    CHECK(n == 150 && same == 150 && st.plain_steps > 0, "node cost 10: %d tokens, %d equal, %lld plain steps", n, same, (long long)st.plain_steps);
    CHECK(lk_spec_params_set(&p, "--spec", "tree") == LK_OK && p.mode == LK_SPEC_TREE, "--spec tree");
    CHECK(lk_spec_params_set(&p, "draft-max", "4") == LK_OK && p.draft_max == 4, "draft-max");
    CHECK(lk_spec_params_set(&p, "draft-p-min", "0.5") == LK_OK && p.draft_p_min == 0.5f, "draft-p-min");
    CHECK(lk_spec_params_set(&p, "spec-nodes", "24") == LK_OK && p.n_nodes == 24, "spec-nodes");
    CHECK(lk_spec_params_set(&p, "spec", "fast") == LK_ERR_INVALID_ARG, "spec fast accepted");
    CHECK(lk_spec_params_set(&p, "draft-max", "0") == LK_ERR_INVALID_ARG, "draft-max 0 accepted");
    CHECK(lk_spec_params_set(&p, "draft-p-min", "2") == LK_ERR_INVALID_ARG, "draft-p-min 2 accepted");
    CHECK(lk_spec_params_set(&p, "temp", "1") == LK_ERR_NOT_FOUND, "a sampler option claimed");
    t = mkctx(su->t, LK_TYPE_F16, 0, 64); d = mkctx(su->t, LK_TYPE_F16, 0, 64);
    s = mksampler(0.0f, 1, lk_model_n_vocab(su->t));
    p = lk_spec_default_params(); p.mode = LK_SPEC_DRAFT;
    CHECK(lk_spec_new(t, NULL, s, &p, &sp) == LK_ERR_INVALID_ARG, "draft mode without a draft accepted");
    p.draft_max = 40;
    CHECK(lk_spec_new(t, d, s, &p, &sp) == LK_ERR_INVALID_ARG, "41 nodes accepted with n_tree 33");
    p.draft_max = 8;
    CHECK_OK(lk_decode(t, PR[0], 2));
    CHECK(lk_spec_new(t, d, s, &p, &sp) == LK_ERR_INVALID_ARG, "a non-empty target accepted");
    lk_context_truncate(t, 0);
    CHECK_OK(lk_spec_new(t, d, s, &p, &sp));
    { int m; lk_token b[4]; CHECK(lk_spec_step(sp, b, 4, &m) == LK_ERR_INVALID_ARG, "a step before begin accepted"); }
    lk_spec_free(sp); sp = NULL;
    lk_sampler_free(s);
    mp.mirostat = 2;
    CHECK_OK(lk_sampler_new(&mp, &s));
    CHECK(lk_spec_new(t, d, s, &p, &sp) == LK_ERR_UNSUPPORTED, "mirostat accepted");
    { float lg[8] = { 0, 1, 2, 3, 4, 5, 6, 7 }, pr[8]; CHECK(lk_sampler_probs(s, lg, 8, pr) == LK_ERR_UNSUPPORTED, "lk_sampler_probs with mirostat accepted"); }
    lk_sampler_free(s); lk_context_free(t); lk_context_free(d);
    lk_t_end();
}

int main(void) {
    const char *tp = lk_t_fixture("stories260K/stories260K-F32.gguf"), *dp = lk_t_fixture("stories260K/stories260K-Q4_0.gguf");
    const char *smol = lk_t_model("SmolLM2-135M-Instruct.Q4_1.gguf");
    lk_model *tm = NULL, *dm = NULL, *sm = NULL;
    setup su;
    test_exact();
    test_chi2_walk();
    if (!tp || !dp) { lk_t_skip("spec end to end (stories260K)", "fixtures absent"); return lk_t_exit(); }
    if (lk_model_load_file(tp, NULL, &tm) || lk_model_load_file(dp, NULL, &dm)) { printf("FAIL load: %s\n", lk_last_error()); return 1; }
    su.t = tm; su.d = dm; su.kv = LK_TYPE_F16; su.policy = 0;
    test_greedy(&su, "stories260K, draft Q4_0", 256);
    test_chi2_model(&su);
    test_cache(&su);
    test_adaptive_refusals(&su);
    if (!smol) lk_t_skip("spec temperature 0 on SmolLM2", "model absent (make models)");
    else if (lk_model_load_file(smol, NULL, &sm)) { printf("FAIL load %s: %s\n", smol, lk_last_error()); lk_t_total_fail_++; }
    else {
        su.t = sm; su.d = sm;   /* its own draft: every proposal the target's own choice */
        test_greedy(&su, "SmolLM2-135M, recycle / lookup, draft = itself", 200);
        lk_model_free(sm); sm = NULL;
    }
    smol = lk_t_model("gemma-3-270m-q4_k_m.gguf");
    if (!smol) lk_t_skip("spec temperature 0 on Gemma 3 270M", "model absent (make models)");
    else if (lk_model_load_file(smol, NULL, &sm)) { printf("FAIL load %s: %s\n", smol, lk_last_error()); lk_t_total_fail_++; }
    else {
        su.t = sm; su.d = NULL;   /* the draft-free modes */
        test_greedy(&su, "Gemma 3 270M, recycle / lookup", 200);
        lk_model_free(sm);
    }
    lk_model_free(tm); lk_model_free(dm);
    return lk_t_exit();
}
