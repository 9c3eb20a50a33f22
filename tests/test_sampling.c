/* lk-test: sanitize */
/* Sampling tests. Every expectation is computed here independently: a
 * reference PCG32 written from the published algorithm (plus the published
 * pcg32-demo vector), softmax / top-p / min-p / typical computed in double
 * from their definitions, penalty formulas worked by hand, and chi-square
 * goodness-of-fit tests of sampled frequencies. */
#define LLMKIT_IMPLEMENTATION
#include "llmkit.h"
#include "tests/lk_test.h"
#include <math.h>
#include <time.h>

/* ---- reference PCG32 (O'Neill, pcg32_srandom_r / pcg32_random_r) ---- */
typedef struct { uint64_t st, inc; } ref_pcg;
static uint32_t ref_next(ref_pcg *g) {
    uint64_t x = g->st;
    uint32_t word, r;
    g->st = x * UINT64_C(6364136223846793005) + g->inc;
    word = (uint32_t)(((x >> 18u) ^ x) >> 27u);
    r = (uint32_t)(x >> 59u);
    return r ? (word >> r) | (word << (32u - r)) : word;
}
static void ref_seed(ref_pcg *g, uint64_t initstate, uint64_t initseq) {
    g->st = 0u;
    g->inc = (initseq << 1u) | 1u;
    ref_next(g);
    g->st += initstate;
    ref_next(g);
}

/* ---- helpers ---- */
static ref_pcg g_data;   /* test data generator (reference PCG, separate from the library) */
static double urand(void) { return (ref_next(&g_data) + 0.5) / 4294967296.0; }
static double nrand(void) { double u = urand(), v = urand(); return sqrt(-2 * log(u)) * cos(6.283185307179586 * v); }

static void softmax_d(const float *l, int n, double t, double *p) {
    double mx = -HUGE_VAL, s = 0;
    int i;
    for (i = 0; i < n; i++) if (l[i] / t > mx) mx = l[i] / t;
    for (i = 0; i < n; i++) { p[i] = exp(l[i] / t - mx); s += p[i]; }
    for (i = 0; i < n; i++) p[i] /= s;
}
/* indices sorted by key descending (ties: lower index first), via qsort */
static const double *g_key;
static int cmp_desc(const void *a, const void *b) {
    int x = *(const int *)a, y = *(const int *)b;
    if (g_key[x] != g_key[y]) return g_key[x] > g_key[y] ? -1 : 1;
    return x < y ? -1 : x > y;
}
static void order_desc(const double *key, int n, int *idx) {
    int i;
    for (i = 0; i < n; i++) idx[i] = i;
    g_key = key;
    qsort(idx, (size_t)n, sizeof *idx, cmp_desc);
}
static int in_cands(const lk_candidates *c, int id) {
    size_t i;
    for (i = 0; i < c->size; i++) if (c->data[i].id == id) return 1;
    return 0;
}
/* chi-square statistic of counts against probabilities (only p > 0 cells) */
static double chi2(const long *cnt, const double *p, int n, long total) {
    double x = 0;
    int i;
    for (i = 0; i < n; i++) if (p[i] > 0) { double e = p[i] * total; x += (cnt[i] - e) * (cnt[i] - e) / e; }
    return x;
}
/* 0.999 quantiles of chi-square, df = 1..12 */
static const double chi2_999[13] = { 0, 10.828, 13.816, 16.266, 18.467, 20.515, 22.458, 24.322, 26.124, 27.877, 29.588, 31.264, 32.909 };

#define NV 8000
static float logits[NV];
static lk_token_data buf[NV];
static double pd[NV];
static int idx[NV];

static void rand_logits(int n, double scale) {
    int i;
    for (i = 0; i < n; i++) logits[i] = (float)(scale * nrand());
}

static void test_rng(void) {
    static const uint32_t demo[6] = { 0xa15c02b7u, 0x7b47f409u, 0xba1d3330u, 0x83d2f293u, 0xbfa4784bu, 0xcbed606eu };
    lk_rng r;
    ref_pcg g;
    int i, ok = 1;
    lk_t_begin("rng_pcg32_published_vector");
    lk_rng_seed_stream(&r, 42, 54);
    for (i = 0; i < 6; i++) { uint32_t x = lk_rng_u32(&r); CHECK(x == demo[i], "output %d: %08x != %08x", i, x, demo[i]); }
    lk_t_end();

    lk_t_begin("rng_matches_reference_impl");
    {
        static const uint64_t seeds[4] = { 0, 1, 12345, UINT64_C(0xffffffffffffffff) };
        int s;
        for (s = 0; s < 4; s++) {
            lk_rng_seed(&r, seeds[s]);
            ref_seed(&g, seeds[s], UINT64_C(0x9e3779b97f4a7c15));
            for (i = 0; i < 10000 && ok; i++) {
                uint32_t a = ref_next(&g), b;
                switch (i % 4) {
                case 0: b = lk_rng_u32(&r); CHECK(a == b, "seed %d i %d u32", s, i); ok = a == b; break;
                case 1: { float f = lk_rng_float(&r), e = (float)(a >> 8) / 16777216.0f;
                          CHECK(f == e && f >= 0 && f < 1, "seed %d i %d float", s, i); ok = f == e; break; }
                case 2: { uint32_t a2 = ref_next(&g); double d = lk_rng_double(&r);
                          double e = ((double)(a >> 5) * 67108864.0 + (double)(a2 >> 6)) / 9007199254740992.0;
                          CHECK(d == e && d >= 0 && d < 1, "seed %d i %d double", s, i); ok = d == e; break; }
                default: { float gm = lk_rng_gumbel(&r); double u = (a + 0.5) / 4294967296.0;
                           double e = -log(-log(u));
                           CHECK(fabs(gm - e) <= 1e-6 * (1 + fabs(e)), "seed %d i %d gumbel %g vs %g", s, i, gm, e); break; }
                }
            }
        }
        /* printed fixed values for cross-platform comparison by eye */
        lk_rng_seed(&r, 0);
        printf("  lk_rng_seed(0): %08x %08x %08x\n", lk_rng_u32(&r), lk_rng_u32(&r), lk_rng_u32(&r));
    }
    lk_t_end();

    lk_t_begin("rng_below_uniform_chi2");
    {
        long cnt[7] = { 0 };
        double p[7];
        for (i = 0; i < 7; i++) p[i] = 1.0 / 7;
        lk_rng_seed(&r, 7);
        for (i = 0; i < 70000; i++) { uint32_t x = lk_rng_below(&r, 7); if (x < 7) cnt[x]++; else CHECK(0, "below out of range %u", x); }
        CHECK(chi2(cnt, p, 7, 70000) < chi2_999[6], "chi2 %g", chi2(cnt, p, 7, 70000));
        CHECK(lk_rng_below(&r, 0) == 0 && lk_rng_below(&r, 1) == 0, "below(0/1)");
    }
    lk_t_end();

    lk_t_begin("gumbel_moments_and_gumbel_max");
    {
        /* mean = Euler-Mascheroni 0.5772..., variance pi^2/6 */
        double s = 0, s2 = 0;
        long cnt[6] = { 0 };
        float lg[6] = { 1.0f, 0.5f, -0.3f, 2.0f, 0.0f, -1.5f }, gb[6];
        double p[6];
        int n = 200000, k;
        lk_rng_seed(&r, 99);
        for (i = 0; i < n; i++) { double x = lk_rng_gumbel(&r); s += x; s2 += x * x; }
        s /= n; s2 = s2 / n - s * s;
        CHECK(fabs(s - 0.5772156649) < 0.01, "mean %g", s);
        CHECK(fabs(s2 - 1.6449340668) < 0.03, "var %g", s2);
        /* argmax(l + g) ~ softmax(l) */
        softmax_d(lg, 6, 1.0, p);
        for (i = 0; i < 100000; i++) {
            int best = 0;
            lk_rng_gumbel_fill(&r, gb, 6);
            for (k = 1; k < 6; k++) if (lg[k] + gb[k] > lg[best] + gb[best]) best = k;
            cnt[best]++;
        }
        CHECK(chi2(cnt, p, 6, 100000) < chi2_999[5], "gumbel-max chi2 %g", chi2(cnt, p, 6, 100000));
    }
    lk_t_end();
}

static void test_greedy_temperature(void) {
    lk_candidates c;
    int trial, i;
    lk_t_begin("greedy_is_argmax");
    for (trial = 0; trial < 50; trial++) {
        int n = 1 + (int)(urand() * NV), best = 0;
        lk_token tok = -1;
        rand_logits(n, 3.0);
        if (trial % 5 == 0 && n > 3) logits[n - 1] = logits[n / 2] = 50.0f;   /* a tie: lowest id wins */
        for (i = 1; i < n; i++) if (logits[i] > logits[best]) best = i;
        CHECK_OK(lk_candidates_init(&c, buf, logits, n));
        CHECK_OK(lk_sample_greedy(&c, &tok));
        CHECK(tok == best, "trial %d: %d != %d", trial, (int)tok, best);
    }
    lk_t_end();

    lk_t_begin("temperature_is_softmax_of_logits_over_T");
    {
        static const float ts[4] = { 0.3f, 0.8f, 1.0f, 2.5f };
        int k;
        for (k = 0; k < 4; k++) {
            int n = 300;
            double maxerr = 0;
            rand_logits(n, 2.0);
            softmax_d(logits, n, ts[k], pd);
            CHECK_OK(lk_candidates_init(&c, buf, logits, n));
            CHECK_OK(lk_sample_temperature(&c, ts[k]));
            CHECK_OK(lk_sample_softmax(&c));
            CHECK(c.size == (size_t)n && c.sorted, "size");
            for (i = 0; i < n; i++) {
                double e = fabs(c.data[i].p - pd[c.data[i].id]);
                if (e > maxerr) maxerr = e;
                if (i) CHECK(c.data[i - 1].logit >= c.data[i].logit, "not sorted at %d", i);
            }
            CHECK(maxerr < 2e-6, "T=%g max |p - ref| = %g", ts[k], maxerr);
        }
        /* T <= 0: only the argmax keeps a finite logit */
        rand_logits(50, 1.0);
        CHECK_OK(lk_candidates_init(&c, buf, logits, 50));
        CHECK_OK(lk_sample_temperature(&c, 0.0f));
        CHECK_OK(lk_sample_softmax(&c));
        {
            int best = 0;
            for (i = 1; i < 50; i++) if (logits[i] > logits[best]) best = i;
            CHECK(c.data[0].id == best && c.data[0].p == 1.0f && c.data[1].p == 0.0f, "T=0 keeps argmax only");
        }
    }
    lk_t_end();
}

static void test_truncation(void) {
    lk_candidates c;
    int trial, i;

    lk_t_begin("top_k_keeps_k_largest");
    for (trial = 0; trial < 40; trial++) {
        int n = 2 + (int)(urand() * (NV - 2));
        int k = trial % 8 == 0 ? 0 : trial % 8 == 1 ? n : 1 + (int)(urand() * (trial % 2 ? 60 : n));
        size_t want = (k <= 0 || k >= n) ? (size_t)n : (size_t)k;
        double key[NV];
        rand_logits(n, 2.0);
        if (trial % 3 == 0) for (i = 0; i < n; i++) logits[i] = (float)floor(logits[i] * 2) / 2; /* many ties */
        for (i = 0; i < n; i++) key[i] = logits[i];
        order_desc(key, n, idx);
        CHECK_OK(lk_candidates_init(&c, buf, logits, n));
        CHECK_OK(lk_sample_top_k(&c, k));
        CHECK(c.size == want, "trial %d: size %zu != %zu", trial, c.size, want);
        if (k > 0 && k < n) {
            CHECK(c.sorted, "not marked sorted");
            for (i = 0; i < (int)c.size; i++) CHECK(c.data[i].id == idx[i], "trial %d pos %d: %d != %d", trial, i, (int)c.data[i].id, idx[i]);
        }
    }
    lk_t_end();

    lk_t_begin("top_p_smallest_prefix_ge_p");
    {
        int checked = 0;
        for (trial = 0; trial < 200; trial++) {
            /* n > 1024 exercises the incremental partial-sort path */
            int n = trial % 3 == 0 ? 1025 + (int)(urand() * 6000) : 2 + (int)(urand() * 300);
            int kept = n, min_keep = trial % 4 == 0 ? 5 : trial % 7 == 0 ? 300 : 0;
            float p = (float)(0.05 + 0.9 * urand());
            double cum = 0, margin = 1;
            rand_logits(n, 0.5 + (n > 1024 ? 6 : 3) * urand());
            softmax_d(logits, n, 1.0, pd);
            order_desc(pd, n, idx);
            for (i = 0; i < n; i++) {
                cum += pd[idx[i]];
                if (fabs(cum - p) < margin) margin = fabs(cum - p);
                if (cum >= p && i + 1 >= min_keep) { kept = i + 1; break; }
            }
            if (kept < min_keep) kept = min_keep < n ? min_keep : n;
            if (margin < 1e-5) continue;   /* too close to call in float */
            checked++;
            CHECK_OK(lk_candidates_init(&c, buf, logits, n));
            CHECK_OK(lk_sample_top_p(&c, p, min_keep));
            CHECK((int)c.size == kept, "trial %d: kept %zu, want %d (p %g)", trial, c.size, kept, p);
            for (i = 0; i < (int)c.size && i < kept; i++) CHECK(c.data[i].id == idx[i], "trial %d pos %d", trial, i);
        }
        CHECK(checked > 150, "only %d cases checked", checked);
        /* p >= 1 is a no-op */
        rand_logits(20, 1.0);
        CHECK_OK(lk_candidates_init(&c, buf, logits, 20));
        CHECK_OK(lk_sample_top_p(&c, 1.0f, 0));
        CHECK(c.size == 20, "p=1 no-op");
    }
    lk_t_end();

    lk_t_begin("min_p_keeps_p_ge_minp_pmax");
    for (trial = 0; trial < 200; trial++) {
        int n = 2 + (int)(urand() * 400), want = 0, near = 0, min_keep = trial % 5 == 0 ? 30 : 0;
        float mp = (float)(0.01 + 0.5 * urand());
        double pmax = 0;
        rand_logits(n, 0.5 + 3 * urand());
        if (trial % 2) { CHECK_OK(lk_candidates_init(&c, buf, logits, n)); CHECK_OK(lk_sample_top_k(&c, n - 1)); n--; for (i = 0; i < n; i++) logits[i] = c.data[i].logit; }
        softmax_d(logits, n, 1.0, pd);
        for (i = 0; i < n; i++) if (pd[i] > pmax) pmax = pd[i];
        for (i = 0; i < n; i++) {
            if (pd[i] >= mp * pmax) want++;
            if (fabs(pd[i] / (mp * pmax) - 1) < 1e-4) near = 1;
        }
        if (near) continue;
        CHECK_OK(lk_candidates_init(&c, buf, logits, n));
        if (trial % 2) c.sorted = 1;   /* logits were produced sorted above */
        CHECK_OK(lk_sample_min_p(&c, mp, min_keep));
        if (want >= min_keep) {
            CHECK((int)c.size == want, "trial %d: kept %zu want %d", trial, c.size, want);
            for (i = 0; i < (int)c.size; i++) CHECK(pd[c.data[i].id] >= mp * pmax, "trial %d: token %d below cutoff", trial, (int)c.data[i].id);
        } else {
            int w = min_keep < n ? min_keep : n;
            double key[NV];
            for (i = 0; i < n; i++) key[i] = logits[i];
            order_desc(key, n, idx);
            CHECK((int)c.size == w, "trial %d: min_keep: kept %zu want %d", trial, c.size, w);
            for (i = 0; i < (int)c.size; i++) CHECK(c.data[i].id == idx[i], "trial %d: min_keep order", trial);
        }
    }
    lk_t_end();

    lk_t_begin("typical_matches_definition");
    {
        int checked = 0;
        for (trial = 0; trial < 200; trial++) {
            int n = 2 + (int)(urand() * 200), kept = n, k2, min_keep = trial % 4 == 0 ? 3 : 0;
            float tp = (float)(0.1 + 0.85 * urand());
            double ent = 0, cum = 0, margin = 1, score[NV], negscore[NV];
            rand_logits(n, 0.5 + 2.5 * urand());
            softmax_d(logits, n, 1.0, pd);
            for (i = 0; i < n; i++) ent -= pd[i] * log(pd[i]);
            for (i = 0; i < n; i++) { score[i] = fabs(-log(pd[i]) - ent); negscore[i] = -score[i]; }
            order_desc(negscore, n, idx);    /* ascending score */
            for (i = 0; i < n; i++) {
                cum += pd[idx[i]];
                if (fabs(cum - tp) < margin) margin = fabs(cum - tp);
                if (cum > tp && i + 1 >= (min_keep > 1 ? min_keep : 1)) { kept = i + 1; break; }
            }
            /* skip ambiguous cases: cum close to p, or near-equal scores at the cut */
            if (margin < 1e-5) continue;
            if (kept < n && fabs(score[idx[kept]] - score[idx[kept - 1]]) < 1e-5) continue;
            checked++;
            CHECK_OK(lk_candidates_init(&c, buf, logits, n));
            CHECK_OK(lk_sample_typical(&c, tp, min_keep));
            CHECK((int)c.size == kept, "trial %d: kept %zu want %d", trial, c.size, kept);
            for (k2 = 0; k2 < kept && k2 < (int)c.size; k2++) CHECK(in_cands(&c, idx[k2]), "trial %d: token %d missing", trial, idx[k2]);
            for (k2 = 0; k2 < (int)c.size; k2++) CHECK(fabs(c.data[k2].p - pd[c.data[k2].id]) < 1e-6, "p restored");
        }
        CHECK(checked > 150, "only %d checked", checked);
    }
    lk_t_end();
}

static void test_penalties(void) {
    lk_candidates c;
    int i;
    lk_t_begin("penalties_handcrafted");
    {
        /* history: token 3 x3, token 5 x2, token 7 x1, token 42 (not a candidate) */
        static const lk_token hist[7] = { 3, 5, 3, 7, 42, 3, 5 };
        float l[10] = { 0.5f, 1.0f, -1.0f, 2.0f, 0.0f, -2.0f, 3.0f, 1.5f, 0.25f, -0.75f };
        float want[10];
        const float rep = 1.3f, fr = 0.1f, pr = 0.5f;
        for (i = 0; i < 10; i++) want[i] = l[i];
        want[3] = 2.0f / 1.3f - 3 * 0.1f - 0.5f;     /* positive: divided */
        want[5] = -2.0f * 1.3f - 2 * 0.1f - 0.5f;    /* negative: multiplied */
        want[7] = 1.5f / 1.3f - 1 * 0.1f - 0.5f;
        CHECK_OK(lk_candidates_init(&c, buf, l, 10));
        CHECK_OK(lk_sample_penalties(&c, hist, 7, rep, fr, pr));
        for (i = 0; i < 10; i++) CHECK(fabsf(c.data[i].logit - want[i]) < 1e-6f, "token %d: %g != %g", i, c.data[i].logit, want[i]);
        /* shuffled candidates (not in id order) give the same result */
        CHECK_OK(lk_candidates_init(&c, buf, l, 10));
        CHECK_OK(lk_sample_top_k(&c, 9));   /* sorts; drops token 5 (lowest) */
        CHECK_OK(lk_sample_penalties(&c, hist, 7, rep, fr, pr));
        for (i = 0; i < (int)c.size; i++) CHECK(fabsf(c.data[i].logit - want[c.data[i].id]) < 1e-6f, "shuffled token %d", (int)c.data[i].id);
        /* zero logit counts as "<= 0": multiplied (stays 0), then minus */
        {
            float z[2] = { 0.0f, 1.0f };
            lk_token h[1] = { 0 };
            CHECK_OK(lk_candidates_init(&c, buf, z, 2));
            CHECK_OK(lk_sample_penalties(&c, h, 1, 2.0f, 0.0f, 0.25f));
            CHECK(c.data[0].logit == -0.25f, "zero logit: %g", c.data[0].logit);
        }
    }
    lk_t_end();

    lk_t_begin("chain_penalty_window_last_n");
    {
        /* repeat_last_n = 3: after accepting 1,1,1,2,2,2 only the 2s count */
        lk_sampler_params sp = lk_sampler_default_params();
        lk_sampler *s = NULL;
        float l[4] = { 0.0f, 1.0f, 1.05f, -3.0f };
        sp.temperature = 0.0f; sp.repeat_penalty = 2.0f; sp.repeat_last_n = 3;
        CHECK_OK(lk_sampler_new(&sp, &s));
        if (s) {
            CHECK(lk_sampler_sample(s, l, 4) == 2, "no history: argmax 2");
            for (i = 0; i < 3; i++) CHECK_OK(lk_sampler_accept(s, 1));
            CHECK(lk_sampler_sample(s, l, 4) == 2, "1 penalized: 0.5 < 1.05");
            for (i = 0; i < 3; i++) CHECK_OK(lk_sampler_accept(s, 2));
            CHECK(lk_sampler_sample(s, l, 4) == 1, "2 penalized (0.525), 1 out of window");
            CHECK_OK(lk_sampler_accept(s, 1));  /* window: 2,2,1 -> both penalized: 0.5 vs 0.525 */
            CHECK(lk_sampler_sample(s, l, 4) == 2, "both penalized");
            CHECK_OK(lk_sampler_accept(s, 5000)); /* id beyond vocab: ignored at sample time */
            CHECK(lk_sampler_sample(s, l, 4) >= 0, "token beyond vocab in history");
            lk_sampler_reset(s);
            CHECK(lk_sampler_sample(s, l, 4) == 2, "reset clears history");
            lk_sampler_free(s);
        }
    }
    lk_t_end();

    lk_t_begin("logit_bias");
    {
        lk_sampler_params sp = lk_sampler_default_params();
        lk_sampler *s = NULL;
        lk_logit_bias lb[2];
        float l[5] = { 1.0f, 4.0f, 2.0f, 3.0f, 0.0f };
        lb[0].token = 1; lb[0].bias = -(float)HUGE_VAL;   /* ban the argmax */
        lb[1].token = 4; lb[1].bias = 3.5f;               /* 0 + 3.5 beats 3 */
        sp.temperature = 0.0f; sp.logit_bias = lb; sp.n_logit_bias = 2;
        CHECK_OK(lk_sampler_new(&sp, &s));
        lb[1].bias = -100.0f;   /* params are copied at creation */
        if (s) { CHECK(lk_sampler_sample(s, l, 5) == 4, "biased argmax"); lk_sampler_free(s); }
        CHECK_OK(lk_candidates_init(&c, buf, l, 5));
        lb[1].bias = 2.5f;
        CHECK_OK(lk_sample_logit_bias(&c, lb, 2));
        CHECK(c.data[1].logit == -(float)HUGE_VAL && c.data[4].logit == 2.5f && c.data[0].logit == 1.0f, "bias values");
    }
    lk_t_end();
}

static void test_distributions(void) {
    lk_candidates c;
    lk_rng r;
    int i;
    lk_t_begin("dist_chi2_100k");
    {
        float l[10] = { 0.1f, 1.2f, -0.5f, 2.0f, 0.7f, -1.0f, 1.5f, 0.0f, -2.0f, 0.9f };
        long cnt[10] = { 0 };
        double x;
        softmax_d(l, 10, 1.0, pd);
        lk_rng_seed(&r, 2024);
        for (i = 0; i < 100000; i++) {
            lk_token t = -1;
            lk_candidates_init(&c, buf, l, 10);
            CHECK_OK(lk_sample_dist(&c, &r, &t));
            if (t >= 0 && t < 10) cnt[t]++;
        }
        x = chi2(cnt, pd, 10, 100000);
        printf("  dist chi2 = %.2f (df 9, 0.999 crit %.3f)\n", x, chi2_999[9]);
        CHECK(x < chi2_999[9], "chi2 %g", x);
    }
    lk_t_end();

    lk_t_begin("default_chain_chi2_against_independent_pipeline");
    {
        /* 12-token vocab through the default chain: top-k 40 (no-op), top-p
         * 0.95 and min-p 0.05 on softmax(logits), then softmax(logits/0.8)
         * over the survivors. */
        float l[12] = { 3.0f, 2.6f, 2.2f, 1.9f, 1.5f, 1.2f, 0.8f, 0.3f, -0.5f, -1.0f, -2.0f, -3.0f };
        double p[12], q[12], cum = 0, pmax, x, tot = 0;
        long cnt[12] = { 0 };
        int keep = 12, n = 200000, df = -1;
        lk_sampler *s = NULL;
        lk_sampler_params sp = lk_sampler_default_params();
        softmax_d(l, 12, 1.0, p);                /* l is sorted descending */
        for (i = 0; i < 12; i++) { cum += p[i]; if (cum >= 0.95) { keep = i + 1; break; } }
        pmax = p[0];
        for (i = 0; i < keep; i++) if (p[i] < 0.05 * pmax) { keep = i; break; }
        softmax_d(l, keep, 0.8, q);
        for (i = keep; i < 12; i++) q[i] = 0;
        for (i = 0; i < 12; i++) { tot += q[i]; if (q[i] > 0) df++; }
        sp.seed = 77;
        CHECK_OK(lk_sampler_new(&sp, &s));
        if (s) {
            for (i = 0; i < n; i++) { lk_token t = lk_sampler_sample(s, l, 12); if (t >= 0 && t < 12) cnt[t]++; else CHECK(0, "bad token"); }
            for (i = keep; i < 12; i++) CHECK(cnt[i] == 0, "truncated token %d drawn %ld times", i, cnt[i]);
            x = chi2(cnt, q, 12, n);
            printf("  chain: %d survivors, chi2 = %.2f (df %d, crit %.3f)\n", keep, x, df, chi2_999[df]);
            CHECK(x < chi2_999[df], "chi2 %g", x);
            lk_sampler_free(s);
        }
        CHECK(fabs(tot - 1) < 1e-12 && keep >= 3 && keep < 12, "test setup (keep %d)", keep);
    }
    lk_t_end();

    lk_t_begin("spec_accept_output_distributed_as_p");
    {
        float p[8] = { 0.30f, 0.05f, 0.15f, 0.10f, 0.20f, 0.0f, 0.12f, 0.08f };
        float q[8] = { 0.10f, 0.25f, 0.15f, 0.05f, 0.10f, 0.20f, 0.05f, 0.10f };
        double pd8[8], qc[8], cum;
        long cnt[8] = { 0 }, acc = 0;
        int n = 100000, k;
        double x, acc_rate_ref = 0;
        for (i = 0; i < 8; i++) { pd8[i] = p[i]; acc_rate_ref += p[i] < q[i] ? p[i] : q[i]; }
        cum = 0;
        for (i = 0; i < 8; i++) { cum += q[i]; qc[i] = cum; }
        lk_rng_seed(&r, 5);
        for (i = 0; i < n; i++) {
            double u = lk_rng_double(&r);
            lk_token d = 7, t;
            for (k = 0; k < 8; k++) if (u < qc[k]) { d = k; break; }
            t = lk_spec_accept(p, q, 8, d, &r);
            if (t < 0 || t >= 8) { CHECK(0, "bad token %d", (int)t); continue; }
            cnt[t]++;
            acc += t == d;
        }
        x = chi2(cnt, pd8, 8, n);
        printf("  spec: chi2 = %.2f, acceptance %.4f (theory %.4f)\n", x, (double)acc / n, acc_rate_ref);
        CHECK(x < chi2_999[6], "chi2 %g", x);   /* 7 cells with p > 0 */
        CHECK(cnt[5] == 0, "p=0 token emitted");
        CHECK(fabs((double)acc / n - acc_rate_ref) < 0.01, "acceptance rate %g vs %g", (double)acc / n, acc_rate_ref);
        /* p == q: always accepted */
        for (i = 0; i < 100; i++) CHECK(lk_spec_accept(q, q, 8, i % 8 == 5 ? 4 : i % 8, &r) == (i % 8 == 5 ? 4 : i % 8), "p == q must accept");
    }
    lk_t_end();
}

static void test_mirostat(void) {
    lk_candidates c;
    lk_rng r;
    int i, step;
    lk_t_begin("mirostat_v2_mu_update");
    {
        const float tau = 3.0f, eta = 0.2f;
        float mu = 2 * tau;
        lk_rng_seed(&r, 11);
        for (step = 0; step < 300; step++) {
            int n = 50 + step % 100, kept = 0, top = 0;
            lk_token t = -1;
            double zs = 0, expect, mu0 = mu;
            rand_logits(n, 1.0 + (step % 7));
            softmax_d(logits, n, 1.0, pd);
            for (i = 0; i < n; i++) if (pd[i] > pd[top]) top = i;
            CHECK_OK(lk_candidates_init(&c, buf, logits, n));
            CHECK_OK(lk_sample_mirostat_v2(&c, &r, tau, eta, &mu, &t));
            if (t < 0 || t >= n) { CHECK(0, "bad token"); break; }
            for (i = 0; i < n; i++) if (-log2(pd[i]) <= mu0) { kept++; zs += pd[i]; }
            if (kept == 0) { zs = pd[top]; CHECK(t == top, "step %d: empty set must give the top token", step); }
            else CHECK(-log2(pd[t]) <= mu0 + 1e-4, "step %d: token surprise %g > mu %g", step, -log2(pd[t]), mu0);
            expect = mu0 - eta * (-log2(pd[t] / zs) - tau);
            CHECK(fabs(mu - expect) < 1e-3, "step %d: mu %g, want %g", step, mu, expect);
        }
    }
    lk_t_end();

    lk_t_begin("mirostat_v2_chain");
    {
        lk_sampler_params sp = lk_sampler_default_params();
        lk_sampler *s = NULL;
        sp.mirostat = 2; sp.mirostat_tau = 4.0f; sp.mirostat_eta = 0.1f; sp.temperature = 0.7f;
        sp.seed = 3;
        CHECK_OK(lk_sampler_new(&sp, &s));
        if (s) {
            CHECK(lk_sampler_mirostat_mu(s) == 8.0f, "mu starts at 2*tau");
            for (step = 0; step < 100; step++) {
                int n = 200, kept = 0;
                double zs = 0, mu0 = lk_sampler_mirostat_mu(s), expect;
                lk_token t;
                rand_logits(n, 3.0);
                softmax_d(logits, n, 0.7, pd);
                t = lk_sampler_sample(s, logits, n);
                if (t < 0) { CHECK(0, "sample failed: %s", lk_last_error()); break; }
                for (i = 0; i < n; i++) if (-log2(pd[i]) <= mu0) { kept++; zs += pd[i]; }
                if (!kept) zs = pd[t];
                expect = mu0 - 0.1 * (-log2(pd[t] / zs) - 4.0);
                CHECK(fabs(lk_sampler_mirostat_mu(s) - expect) < 1e-3, "step %d: mu %g want %g", step, lk_sampler_mirostat_mu(s), expect);
            }
            lk_sampler_reset(s);
            CHECK(lk_sampler_mirostat_mu(s) == 8.0f, "reset mu");
            lk_sampler_free(s);
        }
    }
    lk_t_end();

    lk_t_begin("mirostat_v1_topk_and_mu");
    {
        const float tau = 5.0f, eta = 0.1f;
        float mu = 2 * tau;
        int checked = 0;
        lk_rng_seed(&r, 12);
        for (step = 0; step < 100; step++) {
            int n = 500, m = 100, kk, rank = -1;
            double key[NV], sti = 0, stt = 0, sh, eps, k, zs = 0, expect, mu0 = mu;
            lk_token t = -1;
            rand_logits(n, 2.0);
            for (i = 0; i < n; i++) key[i] = logits[i];
            order_desc(key, n, idx);
            softmax_d(logits, n, 1.0, pd);
            for (i = 0; i < m - 1; i++) {
                double ti = log((i + 2.0) / (i + 1.0)), bi = log(pd[idx[i]] / pd[idx[i + 1]]);
                sti += ti * bi; stt += ti * ti;
            }
            sh = sti / stt; eps = sh - 1;
            k = pow(eps * pow(2.0, mu0) / (1 - pow((double)n, -eps)), 1 / sh);
            kk = k < 1 ? 1 : k > n ? n : (int)k;
            CHECK_OK(lk_candidates_init(&c, buf, logits, n));
            CHECK_OK(lk_sample_mirostat(&c, &r, tau, eta, m, n, &mu, &t));
            for (i = 0; i < n; i++) if (idx[i] == t) rank = i;
            /* skip k within float rounding of an integer (k is computed in double here) */
            if (k < n && k - floor(k) > 1e-3 && k - floor(k) < 1 - 1e-3) {
                CHECK(rank >= 0 && rank < kk, "step %d: rank %d >= k %d", step, rank, kk);
                for (i = 0; i < kk; i++) zs += pd[idx[i]];
                expect = mu0 - eta * (-log2(pd[t] / zs) - tau);
                CHECK(fabs(mu - expect) < 1e-3, "step %d: mu %g want %g", step, mu, expect);
                checked++;
            }
        }
        CHECK(checked > 50, "only %d steps checked", checked);
        printf("  mirostat v1: %d steps checked, final mu %.3f\n", checked, mu);
    }
    lk_t_end();
}

/* ---- allocation accounting ---- */
static long n_allocs, n_frees;
static void *cnt_alloc(void *u, size_t sz, size_t al) { lk_allocator d = lk_default_allocator(); (void)u; n_allocs++; return d.alloc(d.user, sz, al); }
static void cnt_free(void *u, void *p, size_t sz) { lk_allocator d = lk_default_allocator(); (void)u; if (p) n_frees++; d.free(d.user, p, sz); }

static void test_chain_misc(void) {
    int i;
    lk_t_begin("chain_no_alloc_per_sample_and_reproducible");
    {
        lk_allocator a;
        lk_sampler_params sp = lk_sampler_default_params();
        lk_sampler *s1 = NULL, *s2 = NULL;
        lk_token seq[200];
        long after_new;
        a.alloc = cnt_alloc; a.free = cnt_free; a.user = NULL;
        sp.alloc = &a; sp.n_vocab = NV; sp.seed = 1234; sp.repeat_penalty = 1.1f;
        sp.typical_p = 0.9f; sp.top_k = 0;
        CHECK_OK(lk_sampler_new(&sp, &s1));
        after_new = n_allocs;
        if (s1) {
            for (i = 0; i < 200; i++) { rand_logits(NV, 2.0); seq[i] = lk_sampler_sample(s1, logits, NV); CHECK(seq[i] >= 0, "sample"); lk_sampler_accept(s1, seq[i]); }
            CHECK(n_allocs == after_new, "allocated during sampling: %ld", n_allocs - after_new);
            /* same seed, same logits -> same tokens; reset -> same again */
            g_data.st = 0; ref_seed(&g_data, 777, 1);
            sp.alloc = NULL; sp.n_vocab = 0;
            CHECK_OK(lk_sampler_new(&sp, &s2));
            lk_sampler_reset(s1);
            if (s2) {
                for (i = 0; i < 100; i++) {
                    lk_token a1, a2;
                    rand_logits(NV, 2.0);
                    a1 = lk_sampler_sample(s1, logits, NV); a2 = lk_sampler_sample(s2, logits, NV);
                    CHECK(a1 == a2, "step %d: %d != %d", i, (int)a1, (int)a2);
                    lk_sampler_accept(s1, a1); lk_sampler_accept(s2, a2);
                }
                lk_sampler_free(s2);
            }
            lk_sampler_free(s1);
        }
        CHECK(n_allocs == n_frees, "allocs %ld frees %ld", n_allocs, n_frees);
    }
    lk_t_end();

    lk_t_begin("chain_arena_allocator");
    {
        static unsigned char mem[1 << 16];
        lk_arena ar;
        lk_allocator a;
        lk_sampler_params sp = lk_sampler_default_params();
        lk_sampler *s = NULL;
        lk_arena_init(&ar, mem, sizeof mem);
        a = lk_arena_allocator(&ar);
        sp.alloc = &a; sp.n_vocab = 1000;
        CHECK_OK(lk_sampler_new(&sp, &s));
        if (s) { rand_logits(1000, 1.0); CHECK(lk_sampler_sample(s, logits, 1000) >= 0, "arena sample"); lk_sampler_free(s); }
        sp.n_vocab = 100000;   /* does not fit: clean error */
        CHECK(lk_sampler_new(&sp, &s) == LK_ERR_NOMEM && s == NULL, "arena too small -> NOMEM");
    }
    lk_t_end();

    lk_t_begin("large_vocab_timing");
    {
        int n = 150000, reps = 20, k;
        float *big = (float *)malloc(sizeof(float) * (size_t)n);
        lk_sampler_params sp = lk_sampler_default_params();
        lk_sampler *s = NULL;
        if (big) {
            static const char *names[3] = { "default chain", "top_k=0 (full sort for top-p)", "mirostat 2" };
            for (k = 0; k < 3; k++) {
                clock_t t0;
                double ms;
                sp = lk_sampler_default_params();
                if (k == 1) sp.top_k = 0;
                if (k == 2) sp.mirostat = 2;
                sp.n_vocab = n;
                CHECK_OK(lk_sampler_new(&sp, &s));
                if (!s) break;
                for (i = 0; i < n; i++) big[i] = (float)(2.0 * nrand());
                t0 = clock();
                for (i = 0; i < reps; i++) { lk_token t = lk_sampler_sample(s, big, n); CHECK(t >= 0 && t < n, "token"); lk_sampler_accept(s, t); }
                ms = 1000.0 * (double)(clock() - t0) / CLOCKS_PER_SEC / reps;
                printf("  n_vocab %d, %s: %.2f ms/sample\n", n, names[k], ms);
                lk_sampler_free(s); s = NULL;
            }
            free(big);
        }
    }
    lk_t_end();
}

static void test_bad_inputs(void) {
    lk_candidates c;
    lk_rng r;
    lk_sampler *s = NULL;
    lk_sampler_params sp;
    float l[4] = { 1, 2, 3, 4 };
    lk_token t;
    lk_t_begin("bad_inputs_return_errors");
    lk_rng_seed(&r, 1);
    CHECK_OK(lk_sampler_new(NULL, &s));
    if (s) {
        float bad[4] = { 1, 2, 3, 4 };
        bad[2] = (float)NAN;
        CHECK(lk_sampler_sample(s, bad, 4) == -1, "NaN logits accepted");
        CHECK(strstr(lk_last_error(), "NaN") != NULL, "message: %s", lk_last_error());
        bad[2] = (float)HUGE_VAL;
        CHECK(lk_sampler_sample_ex(s, bad, 4, &t) == LK_ERR_INVALID_ARG && t == -1, "+inf logits accepted");
        bad[0] = bad[1] = bad[2] = bad[3] = -(float)HUGE_VAL;
        CHECK(lk_sampler_sample(s, bad, 4) == -1, "all -inf accepted");
        CHECK(lk_sampler_sample(s, l, 0) == -1, "n_vocab 0");
        CHECK(lk_sampler_sample(s, l, -5) == -1, "n_vocab < 0");
        CHECK(lk_sampler_sample(s, NULL, 4) == -1, "NULL logits");
        CHECK(lk_sampler_sample_ex(s, l, 4, NULL) != LK_OK, "NULL out");
        CHECK(lk_sampler_accept(s, -3) != LK_OK, "negative token accepted");
        CHECK(lk_sampler_sample(s, l, 4) >= 0, "still usable after errors");
        {
            /* overflow: huge logits and a penalty < 1 push logits to +inf;
             * the limit of softmax is uniform over those tokens */
            lk_sampler_params q = lk_sampler_default_params();
            lk_sampler *s2 = NULL;
            float h[4] = { 3e38f, -1.0f, 3.1e38f, 2.0f };
            long cnt[4] = { 0 };
            int k;
            q.repeat_penalty = 0.5f; q.top_k = 0; q.top_p = 1.0f; q.min_p = 0.0f; q.seed = 9;
            CHECK_OK(lk_sampler_new(&q, &s2));
            if (s2) {
                lk_sampler_accept(s2, 0); lk_sampler_accept(s2, 2);
                for (k = 0; k < 2000; k++) { lk_token x = lk_sampler_sample(s2, h, 4); if (x >= 0) cnt[x]++; else CHECK(0, "overflow: %s", lk_last_error()); }
                CHECK(cnt[1] == 0 && cnt[3] == 0 && cnt[0] > 800 && cnt[2] > 800, "overflow counts %ld %ld %ld %ld", cnt[0], cnt[1], cnt[2], cnt[3]);
                lk_sampler_free(s2);
            }
            /* tiny temperature: no overflow, behaves like greedy */
            q = lk_sampler_default_params();
            q.temperature = 1e-39f; q.seed = 4;
            CHECK_OK(lk_sampler_new(&q, &s2));
            if (s2) {
                float g[4] = { 5.0f, 4.999f, -7.0f, 1.0f };
                for (k = 0; k < 100; k++) CHECK(lk_sampler_sample(s2, g, 4) == 0, "tiny T not greedy");
                lk_sampler_free(s2);
            }
            CHECK_OK(lk_candidates_init(&c, buf, l, 4));
            CHECK(lk_sample_temperature(&c, (float)HUGE_VAL) != LK_OK, "temp inf");
        }
        lk_sampler_free(s); s = NULL;
    }
    CHECK(lk_sampler_sample(NULL, l, 4) == -1, "NULL sampler");
    CHECK(lk_sampler_accept(NULL, 1) != LK_OK, "NULL sampler accept");
    lk_sampler_free(NULL); lk_sampler_reset(NULL);
    CHECK(lk_sampler_new(NULL, NULL) != LK_OK, "NULL out");
#define BADP(field, val) do { sp = lk_sampler_default_params(); sp.field = val; s = (lk_sampler *)&sp; \
        CHECK(lk_sampler_new(&sp, &s) != LK_OK && s == NULL, "accepted " #field " = " #val); } while (0)
    BADP(temperature, (float)NAN);
    BADP(temperature, (float)HUGE_VAL);
    BADP(top_p, -0.5f);
    BADP(min_p, 1.5f);
    BADP(min_p, (float)NAN);
    BADP(typical_p, (float)NAN);
    BADP(min_keep, -1);
    BADP(repeat_last_n, -1);
    BADP(repeat_penalty, -1.0f);
    BADP(repeat_penalty, (float)HUGE_VAL);
    BADP(frequency_penalty, (float)NAN);
    BADP(mirostat, 3);
    BADP(n_vocab, -1);
    BADP(n_logit_bias, 2);  /* with NULL list */
#undef BADP
    {
        lk_logit_bias lb;
        sp = lk_sampler_default_params();
        lb.token = 10; lb.bias = 1.0f;
        sp.logit_bias = &lb; sp.n_logit_bias = 1; sp.n_vocab = 5;
        CHECK(lk_sampler_new(&sp, &s) == LK_ERR_RANGE, "bias token >= n_vocab");
        sp.n_vocab = 0;
        CHECK_OK(lk_sampler_new(&sp, &s));
        if (s) { CHECK(lk_sampler_sample(s, l, 4) == -1, "bias token >= n_vocab at sample"); lk_sampler_free(s); s = NULL; }
        lb.token = -1;
        CHECK(lk_sampler_new(&sp, &s) != LK_OK, "negative bias token");
        lb.token = 1; lb.bias = (float)NAN;
        CHECK(lk_sampler_new(&sp, &s) != LK_OK, "NaN bias");
    }
    /* individual samplers */
    CHECK(lk_candidates_init(&c, buf, l, 0) != LK_OK, "init n 0");
    CHECK(lk_candidates_init(&c, NULL, l, 4) != LK_OK, "init NULL buf");
    c.data = buf; c.size = 0; c.sorted = 0;
    CHECK(lk_sample_softmax(&c) != LK_OK, "softmax empty");
    CHECK(lk_sample_greedy(&c, &t) != LK_OK, "greedy empty");
    CHECK(lk_sample_dist(&c, &r, &t) != LK_OK, "dist empty");
    CHECK(lk_sample_top_k(NULL, 3) != LK_OK, "top_k NULL");
    CHECK_OK(lk_candidates_init(&c, buf, l, 4));
    CHECK(lk_sample_top_p(&c, (float)NAN, 0) != LK_OK, "top_p NaN");
    CHECK(lk_sample_min_p(&c, (float)NAN, 0) != LK_OK, "min_p NaN");
    CHECK(lk_sample_typical(&c, (float)NAN, 0) != LK_OK, "typical NaN");
    CHECK(lk_sample_temperature(&c, (float)NAN) != LK_OK, "temp NaN");
    CHECK(lk_sample_penalties(&c, NULL, 3, 1.1f, 0, 0) != LK_OK, "penalties NULL history");
    CHECK(lk_sample_penalties(&c, &t, 1, 0.0f, 0, 0) != LK_OK, "penalty 0");
    CHECK(lk_sample_logit_bias(&c, NULL, 1) != LK_OK, "bias NULL");
    CHECK(lk_sample_dist(&c, NULL, &t) != LK_OK, "dist NULL rng");
    {
        float mu = (float)NAN;
        CHECK(lk_sample_mirostat_v2(&c, &r, 5, 0.1f, &mu, &t) != LK_OK, "mirostat NaN mu");
        mu = 10;
        CHECK(lk_sample_mirostat(&c, &r, 5, 0.1f, 0, 4, &mu, &t) != LK_OK, "mirostat m 0");
    }
    {
        float p[3] = { 0.5f, 0.5f, 0.0f }, q[3] = { 0.2f, 0.3f, 0.5f };
        CHECK(lk_spec_accept(p, q, 3, 3, &r) == -1, "draft out of range");
        CHECK(lk_spec_accept(p, q, 3, -1, &r) == -1, "draft negative");
        CHECK(lk_spec_accept(p, q, 0, 0, &r) == -1, "n 0");
        CHECK(lk_spec_accept(NULL, q, 3, 0, &r) == -1, "NULL p");
        p[1] = (float)NAN;
        CHECK(lk_spec_accept(p, q, 3, 0, &r) == -1, "NaN p");
        p[1] = -0.1f;
        CHECK(lk_spec_accept(p, q, 3, 0, &r) == -1, "negative p");
    }
    lk_t_end();
}

/* ---- llama.cpp fixtures: argmax of row 31 is greedy.txt's first id ---- */
static float *load_logits(const char *rel, size_t *n_floats) {
    const char *path = lk_t_fixture(rel);
    unsigned char *b;
    float *f;
    size_t len = 0, i;
    if (!path || !(b = lk_t_read_file(path, &len))) return NULL;
    f = (float *)malloc(len / 4 * sizeof(float) + 1);
    for (i = 0; f && i < len / 4; i++) {   /* little-endian float32 */
        uint32_t u = (uint32_t)b[4 * i] | (uint32_t)b[4 * i + 1] << 8 | (uint32_t)b[4 * i + 2] << 16 | (uint32_t)b[4 * i + 3] << 24;
        memcpy(&f[i], &u, 4);
    }
    free(b);
    *n_floats = len / 4;
    return f;
}

static void test_fixtures(void) {
    const char *gpath = lk_t_fixture("greedy.txt");
    size_t glen = 0;
    char *g;
    if (!gpath || !(g = (char *)lk_t_read_file(gpath, &glen))) { lk_t_skip("fixture_greedy_first_token", "fixtures absent"); lk_t_skip("fixture_default_chain_chi2", "fixtures absent"); return; }
    g = (char *)realloc(g, glen + 1);
    g[glen] = 0;
    lk_t_begin("fixture_greedy_first_token");
    {
        char *line = g, *next;
        int files = 0;
        for (; line && *line; line = next) {
            char model[256], kv[16], arch[64], rel[512];
            int first = -1, n_prompt = 0;
            next = strchr(line, '\n');
            if (next) *next++ = 0;
            if (line[0] == '#' || sscanf(line, "%255s %15s %d : %d", model, kv, &n_prompt, &first) != 4) continue;
            {
                char *dot = strstr(model, ".gguf"), *dash = strchr(model, '-');
                size_t nf = 0;
                float *lg;
                lk_sampler_params sp = lk_sampler_default_params();
                lk_sampler *s = NULL;
                if (!dot || !dash) continue;
                *dot = 0;
                snprintf(arch, sizeof arch, "%.*s", (int)(dash - model), model);
                snprintf(rel, sizeof rel, "logits/%s/%s.seqA.kv%s.bin", arch, model, kv);
                lg = load_logits(rel, &nf);
                if (!lg) { CHECK(0, "missing %s", rel); continue; }
                CHECK(nf == (size_t)n_prompt * 512, "%s: %zu floats", rel, nf);
                sp.temperature = 0.0f;
                CHECK_OK(lk_sampler_new(&sp, &s));
                if (s && nf >= (size_t)n_prompt * 512) {
                    lk_token t = lk_sampler_sample(s, lg + (size_t)(n_prompt - 1) * 512, 512);
                    CHECK(t == first, "%s: greedy %d, llama.cpp %d", model, (int)t, first);
                    files++;
                }
                lk_sampler_free(s);
                free(lg);
            }
        }
        printf("  %d logit files checked\n", files);
        CHECK(files >= 30, "only %d files", files);
    }
    lk_t_end();
    free(g);

    lk_t_begin("fixture_default_chain_chi2");
    {
        /* real (gemma2, logit rms ~2) rows through the default chain vs an
         * independent pipeline: top-k 40, top-p 0.95, min-p 0.05 on
         * softmax(l), then softmax(l / 0.8) over the survivors. */
        size_t nf = 0;
        float *lg = load_logits("logits/gemma2/gemma2-F32.seqA.kvf32.bin", &nf);
        int row;
        if (!lg || nf < 32 * 512) { CHECK(0, "gemma2 logits missing"); free(lg); lk_t_end(); return; }
        for (row = 3; row < 32; row += 9) {
            const float *l = lg + (size_t)row * 512;
            double key[512], p[512], q[512], cum = 0, x, crit, z = 3.090232, h, mx = -HUGE_VAL, zs = 0;
            long cnt[512];
            int keep, i, df, n = 100000, k;
            lk_sampler *s = NULL;
            lk_sampler_params sp = lk_sampler_default_params();
            for (i = 0; i < 512; i++) key[i] = l[i];
            order_desc(key, 512, idx);
            keep = 40;
            softmax_d(l, 512, 1.0, pd);
            { double s40 = 0; for (i = 0; i < 40; i++) s40 += pd[idx[i]]; for (i = 0; i < 40; i++) p[i] = pd[idx[i]] / s40; }
            for (i = 0; i < 40; i++) { cum += p[i]; if (cum >= 0.95) { keep = i + 1; break; } }
            for (i = 1; i < keep; i++) if (p[i] < 0.05 * p[0]) { keep = i; break; }
            for (i = 0; i < keep; i++) if (l[idx[i]] / 0.8 > mx) mx = l[idx[i]] / 0.8;
            for (i = 0; i < 512; i++) q[i] = 0;
            for (i = 0; i < keep; i++) { q[idx[i]] = exp(l[idx[i]] / 0.8 - mx); zs += q[idx[i]]; }
            for (i = 0; i < keep; i++) q[idx[i]] /= zs;
            memset(cnt, 0, sizeof cnt);
            sp.seed = (uint64_t)row;
            CHECK_OK(lk_sampler_new(&sp, &s));
            if (!s) break;
            for (k = 0; k < n; k++) { lk_token t = lk_sampler_sample(s, l, 512); if (t >= 0 && t < 512) cnt[t]++; }
            lk_sampler_free(s);
            for (i = 0; i < 512; i++) if (q[i] == 0) CHECK(cnt[i] == 0, "row %d: truncated token %d drawn", row, i);
            df = keep - 1;
            x = chi2(cnt, q, 512, n);
            /* Wilson-Hilferty 0.999 quantile */
            h = 2.0 / (9.0 * (df > 0 ? df : 1));
            crit = df < 13 ? chi2_999[df > 0 ? df : 1] : df * pow(1 - h + z * sqrt(h), 3);
            printf("  gemma2 row %d: %d survivors, chi2 %.2f (crit %.2f)\n", row, keep, x, crit);
            CHECK(df == 0 || x < crit, "row %d: chi2 %g >= %g", row, x, crit);
        }
        free(lg);
    }
    lk_t_end();
}

/* lk_sampler_params_set / lk_context_params_set: every name lands in its
 * field with the value written here, aliases and dash forms agree, and
 * every malformed value is refused with the option named and the field
 * left as it was. */
static void test_params_from_text(void) {
    lk_sampler_params sp = lk_sampler_default_params(), sp0;
    lk_context_params cp = lk_context_default_params(), cp0;
    static const char *const bad_int[] = { "", "-", "+", "1x", "x1", " 1", "1 ", "1.5", "0x10", "99999999999999999999", "-99999999999999999999" };
    static const char *const bad_float[] = { "", "nan", "NaN", "1e", "0.5x", "--1", "inf" };
    size_t i;
    lk_t_begin("params_from_text");
    CHECK_OK(lk_sampler_params_set(&sp, "--temp", "0.25"));       CHECK(sp.temperature == 0.25f, "temp %g", sp.temperature);
    CHECK_OK(lk_sampler_params_set(&sp, "temp", "-1"));           CHECK(sp.temperature == -1.0f, "temp %g", sp.temperature);
    CHECK_OK(lk_sampler_params_set(&sp, "--top-k", "7"));         CHECK(sp.top_k == 7, "top_k %d", sp.top_k);
    CHECK_OK(lk_sampler_params_set(&sp, "--top-k", "-1"));        CHECK(sp.top_k == -1, "top_k %d", sp.top_k);
    CHECK_OK(lk_sampler_params_set(&sp, "--top-p", "0.5"));       CHECK(sp.top_p == 0.5f, "top_p %g", sp.top_p);
    CHECK_OK(lk_sampler_params_set(&sp, "--min-p", "1e-2"));      CHECK(sp.min_p == 0.01f, "min_p %g", sp.min_p);
    CHECK_OK(lk_sampler_params_set(&sp, "--typical", "0.75"));    CHECK(sp.typical_p == 0.75f, "typical %g", sp.typical_p);
    CHECK_OK(lk_sampler_params_set(&sp, "--min-keep", "3"));      CHECK(sp.min_keep == 3, "min_keep %d", sp.min_keep);
    CHECK_OK(lk_sampler_params_set(&sp, "--repeat-penalty", "1.125")); CHECK(sp.repeat_penalty == 1.125f, "rp %g", sp.repeat_penalty);
    CHECK_OK(lk_sampler_params_set(&sp, "--repeat-last-n", "32")); CHECK(sp.repeat_last_n == 32, "rln %d", sp.repeat_last_n);
    CHECK_OK(lk_sampler_params_set(&sp, "--frequency-penalty", "-0.5")); CHECK(sp.frequency_penalty == -0.5f, "fp %g", sp.frequency_penalty);
    CHECK_OK(lk_sampler_params_set(&sp, "--presence-penalty", "0.5")); CHECK(sp.presence_penalty == 0.5f, "pp %g", sp.presence_penalty);
    CHECK_OK(lk_sampler_params_set(&sp, "--mirostat", "2"));      CHECK(sp.mirostat == 2, "mirostat %d", sp.mirostat);
    CHECK_OK(lk_sampler_params_set(&sp, "--mirostat-ent", "3"));  CHECK(sp.mirostat_tau == 3.0f, "tau %g", sp.mirostat_tau);
    CHECK_OK(lk_sampler_params_set(&sp, "--mirostat-lr", "0.2")); CHECK(sp.mirostat_eta == 0.2f, "eta %g", sp.mirostat_eta);
    CHECK_OK(lk_sampler_params_set(&sp, "--seed", "18446744073")); CHECK(sp.seed == UINT64_C(18446744073), "seed");
    { lk_sampler *s = NULL; CHECK_OK(lk_sampler_new(&sp, &s)); lk_sampler_free(s); }

    CHECK_OK(lk_context_params_set(&cp, "-c", "256"));             CHECK(cp.n_ctx == 256, "n_ctx %d", cp.n_ctx);
    CHECK_OK(lk_context_params_set(&cp, "--ctx-size", "128"));     CHECK(cp.n_ctx == 128, "n_ctx %d", cp.n_ctx);
    CHECK_OK(lk_context_params_set(&cp, "-b", "16"));              CHECK(cp.n_batch == 16, "n_batch %d", cp.n_batch);
    CHECK_OK(lk_context_params_set(&cp, "--batch-size", "8"));     CHECK(cp.n_batch == 8, "n_batch %d", cp.n_batch);
    CHECK_OK(lk_context_params_set(&cp, "-t", "2"));               CHECK(cp.n_threads == 2, "threads %d", cp.n_threads);
    CHECK_OK(lk_context_params_set(&cp, "--attn", "lssar"));       CHECK(cp.attn_score == LK_ATTN_LSSAR, "attn");
    CHECK_OK(lk_context_params_set(&cp, "--lssar-p", "7.5"));      CHECK(cp.lssar_p == 7.5f, "lssar_p %g", cp.lssar_p);
    CHECK_OK(lk_context_params_set(&cp, "--attn-split", "4"));     CHECK(cp.attn_split == 4, "split %d", cp.attn_split);
    CHECK_OK(lk_context_params_set(&cp, "--attn-tile", "64"));     CHECK(cp.attn_tile == 64, "tile %d", cp.attn_tile);
    CHECK_OK(lk_context_params_set(&cp, "--kv-type", "zip2"));     CHECK(cp.kv_type == LK_TYPE_F16 && cp.kv_zip_bits == 2, "zip2");
    CHECK_OK(lk_context_params_set(&cp, "--kv", "q4_0"));          CHECK(cp.kv_type == LK_TYPE_Q4_0 && cp.kv_zip_bits == 0, "q4_0 clears zip");
    CHECK_OK(lk_context_params_set(&cp, "--kv-type", "zip4"));     CHECK(cp.kv_type == LK_TYPE_F16 && cp.kv_zip_bits == 4, "zip4");
    CHECK_OK(lk_context_params_set(&cp, "--kv-type", "f32"));      CHECK(cp.kv_type == LK_TYPE_F32 && cp.kv_zip_bits == 0, "f32");
    CHECK_OK(lk_context_params_set(&cp, "--kv-window", "48"));     CHECK(cp.kv_zip_window == 48, "window %d", cp.kv_zip_window);
    CHECK_OK(lk_context_params_set(&cp, "--kv-policy", "keyformer")); CHECK(cp.kv_policy.policy == LK_KV_KEYFORMER, "policy");
    CHECK_OK(lk_context_params_set(&cp, "--kv-policy", "twilight")); CHECK(cp.kv_policy.policy == LK_KV_TWILIGHT, "policy");
    CHECK_OK(lk_context_params_set(&cp, "--kv-budget", "96"));     CHECK(cp.kv_policy.budget == 96, "budget %d", cp.kv_policy.budget);
    CHECK_OK(lk_context_params_set(&cp, "--n-sink", "2"));         CHECK(cp.kv_policy.n_sink == 2, "sink %d", cp.kv_policy.n_sink);
    CHECK_OK(lk_context_params_set(&cp, "--kv-recent", "10"));     CHECK(cp.kv_policy.recent == 10, "recent %d", cp.kv_policy.recent);
    CHECK_OK(lk_context_params_set(&cp, "--page-size", "32"));     CHECK(cp.kv_policy.page_size == 32, "page %d", cp.kv_policy.page_size);
    CHECK_OK(lk_context_params_set(&cp, "--top-p-attn", "0.9"));   CHECK(cp.kv_policy.top_p == 0.9f, "top_p %g", cp.kv_policy.top_p);
    CHECK_OK(lk_context_params_set(&cp, "--twilight-base", "quest")); CHECK(cp.kv_policy.twilight_base == LK_KV_QUEST, "base");
    CHECK_OK(lk_context_params_set(&cp, "--kv-seed", "5"));        CHECK(cp.kv_policy.seed == 5, "kv seed");
    CHECK_OK(lk_context_params_set(&cp, "--reuse-cos", "0.95"));   CHECK(cp.kv_policy.reuse_cos == 0.95f, "reuse %g", cp.kv_policy.reuse_cos);

    /* unknown names: NOT_FOUND, so a tool can try the other table */
    CHECK(lk_sampler_params_set(&sp, "--kv-type", "f16") == LK_ERR_NOT_FOUND, "sampler took --kv-type");
    CHECK(lk_context_params_set(&cp, "--temp", "1") == LK_ERR_NOT_FOUND, "context took --temp");
    CHECK(lk_context_params_set(&cp, "--", "1") == LK_ERR_NOT_FOUND, "context took --");
    CHECK(lk_context_params_set(NULL, "-c", "1") == LK_ERR_INVALID_ARG, "NULL params");
    CHECK(lk_sampler_params_set(&sp, "--temp", NULL) == LK_ERR_INVALID_ARG, "NULL value");

    /* malformed values: refused, named, field unchanged */
    memcpy(&sp0, &sp, sizeof sp); memcpy(&cp0, &cp, sizeof cp);   /* bytewise, so memcmp below is exact */
    for (i = 0; i < sizeof bad_int / sizeof *bad_int; i++) {
        CHECK(lk_sampler_params_set(&sp, "--top-k", bad_int[i]) == LK_ERR_INVALID_ARG, "top-k '%s' accepted", bad_int[i]);
        CHECK(strstr(lk_last_error(), "--top-k") != NULL, "message: %s", lk_last_error());
        CHECK(lk_context_params_set(&cp, "--kv-budget", bad_int[i]) == LK_ERR_INVALID_ARG, "kv-budget '%s' accepted", bad_int[i]);
    }
    for (i = 0; i < sizeof bad_float / sizeof *bad_float; i++) {
        CHECK(lk_sampler_params_set(&sp, "--top-p", bad_float[i]) == LK_ERR_INVALID_ARG, "top-p '%s' accepted", bad_float[i]);
        CHECK(lk_context_params_set(&cp, "--top-p-attn", bad_float[i]) == LK_ERR_INVALID_ARG, "top-p-attn '%s' accepted", bad_float[i]);
    }
    CHECK(lk_sampler_params_set(&sp, "--top-p", "1.01") == LK_ERR_INVALID_ARG, "top-p > 1 accepted");
    CHECK(lk_sampler_params_set(&sp, "--min-p", "-0.1") == LK_ERR_INVALID_ARG, "min-p < 0 accepted");
    CHECK(lk_sampler_params_set(&sp, "--mirostat", "3") == LK_ERR_INVALID_ARG, "mirostat 3 accepted");
    CHECK(lk_sampler_params_set(&sp, "--repeat-last-n", "-1") == LK_ERR_INVALID_ARG, "repeat-last-n -1 accepted");
    CHECK(lk_sampler_params_set(&sp, "--seed", "-1") == LK_ERR_INVALID_ARG, "seed -1 accepted");
    CHECK(lk_context_params_set(&cp, "-c", "-1") == LK_ERR_INVALID_ARG, "n_ctx -1 accepted");
    CHECK(lk_context_params_set(&cp, "-c", "2147483648") == LK_ERR_INVALID_ARG, "n_ctx 2^31 accepted");
    CHECK(lk_context_params_set(&cp, "-b", "0") == LK_ERR_INVALID_ARG, "n_batch 0 accepted");
    CHECK(lk_context_params_set(&cp, "--kv-type", "q5_0") == LK_ERR_INVALID_ARG, "kv q5_0 accepted");
    CHECK(strstr(lk_last_error(), "zip2") != NULL, "message lists the choices: %s", lk_last_error());
    CHECK(lk_context_params_set(&cp, "--kv-policy", "H2O") == LK_ERR_INVALID_ARG, "policy is case sensitive");
    CHECK(lk_context_params_set(&cp, "--attn", "") == LK_ERR_INVALID_ARG, "empty attn accepted");
    CHECK(lk_context_params_set(&cp, "--page-size", "0") == LK_ERR_INVALID_ARG, "page 0 accepted");
    CHECK(memcmp(&sp, &sp0, sizeof sp) == 0, "a refused value changed the sampler params");
    CHECK(memcmp(&cp, &cp0, sizeof cp) == 0, "a refused value changed the context params");
    lk_t_end();
}

int main(void) {
    ref_seed(&g_data, 20261122, 7);
    test_rng();
    test_greedy_temperature();
    test_truncation();
    test_penalties();
    test_distributions();
    test_mirostat();
    test_chain_misc();
    test_bad_inputs();
    test_params_from_text();
    test_fixtures();
    return lk_t_exit();
}
