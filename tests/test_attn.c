/* Attention core, scoring variants, KV storage types, KV policies and the
 * prefix cache. Random-data cases compare with naive O(n^2) references
 * written here from the definitions (double precision); model cases use
 * stories260K and compare runs that must agree by construction (chunked vs
 * whole prefill, packed vs separate prompts, budget >= context vs full,
 * restored vs recomputed prefix). */
/* lk-test: sanitize */
#define LLMKIT_IMPLEMENTATION
#include "llmkit.h"
#include "tests/lk_test.h"
#include <math.h>

static lk_rng R;
static float frand(void) { return 2.0f * lk_rng_float(&R) - 1.0f; }

/* ---- naive reference: softmax / LSSA / LSSAR over an explicit visible set */
static void ref_attn(int score, float scale, float p_pow, int qpos, const float *q, const float *K, const float *Vv,
                     const int *vis, int n, int d, double *out) {
    double s[1024], w[1024], mx = -1e300, sum = 0.0, qn = 0.0;
    int j, i, N = 0;
    for (i = 0; i < d; i++) { out[i] = 0.0; qn += (double)q[i] * q[i]; }
    qn = sqrt(qn);
    for (j = 0; j < n; j++) {
        double dot = 0.0, kn = 0.0;
        if (!vis[j]) continue;
        N++;
        for (i = 0; i < d; i++) { dot += (double)q[i] * K[j * d + i]; kn += (double)K[j * d + i] * K[j * d + i]; }
        kn = sqrt(kn);
        s[j] = score == 0 ? dot * scale : (qn > 0 && kn > 0 ? dot / (qn * kn) : 0.0);
        if (s[j] > mx) mx = s[j];
    }
    if (!N) return;
    for (j = 0; j < n; j++) {
        if (!vis[j]) { w[j] = 0; continue; }
        if (score == 0) w[j] = exp(s[j] - mx);
        else w[j] = log1p(exp(log((double)d) * log((double)N) * s[j]));   /* softplus */
        sum += w[j];
    }
    for (j = 0; j < n; j++) w[j] = score == 0 ? w[j] / sum : w[j] / (sum + 1e-8);
    if (score == 2) {   /* LSSAR: B = relu(N A - O)^p, A' = B / (sum B + 1e-8) (long double: no overflow for these sizes) */
        long double b[1024], sb = 0;
        double o = qpos < 3 ? 0.0 : 1.0;
        for (j = 0; j < n; j++) { double u = N * w[j] - o; b[j] = u > 0 ? powl((long double)u, p_pow) : 0; sb += b[j]; }
        for (j = 0; j < n; j++) w[j] = (double)(b[j] / (sb + 1e-8L));
    }
    for (j = 0; j < n; j++) for (i = 0; i < d; i++) out[i] += w[j] * Vv[j * d + i];
}
static double maxdiff(const float *a, const double *b, int d) {
    double m = 0;
    int i;
    for (i = 0; i < d; i++) if (fabs(a[i] - b[i]) > m) m = fabs(a[i] - b[i]);
    return m;
}

/* random rows of n tokens x d in an f32 view (one KV head) */
static void make_rows(float *K, float *Vv, int32_t *pos, int n, int d) {
    int i;
    for (i = 0; i < n * d; i++) { K[i] = frand(); Vv[i] = frand(); }
    for (i = 0; i < n; i++) pos[i] = i;
}
static lk_kv_view f32_view(const float *K, const float *Vv, const int32_t *pos, int n, int d) {
    lk_kv_view v;
    memset(&v, 0, sizeof v);
    v.type = LK_TYPE_F32; v.k = K; v.v = Vv; v.row_stride = sizeof(float) * d; v.head_stride = 0;
    v.pos = pos; v.n_rows = n;
    return v;
}

static void test_masks(void) {
    enum { N = 200, D = 16 };
    static float K[N * D], Vv[N * D], q[D], out[D], scr[N + 16 * D + 80];
    static int32_t pos[N], seg[N], parent[40];
    int vis[N], j, qp, fails = 0;
    double ref[D], worst = 0;
    float lse;
    lk_attn_params p = lk_attn_default_params(D);
    lk_kv_view kv;
    lk_t_begin("attn masks: causal, window+sinks, segments, tree vs naive");
    make_rows(K, Vv, pos, N, D);
    for (j = 0; j < D; j++) q[j] = 3.0f * frand();
    kv = f32_view(K, Vv, pos, N, D);
    /* causal at several query positions, window 16 + 4 sinks */
    for (qp = 0; qp < N; qp += 37) {
        int w;
        for (w = 0; w < 2; w++) {
            p.window = w ? 16 : 0; p.n_sink = w ? 4 : 0;
            for (j = 0; j < N; j++) vis[j] = j <= qp && (!w || qp - j < 16 || j < 4);
            lk_attn(&p, q, qp, &kv, 0, out, &lse, scr);
            ref_attn(0, p.scale, 0, qp, q, K, Vv, vis, N, D, ref);
            if (maxdiff(out, ref, D) > worst) worst = maxdiff(out, ref, D);
        }
    }
    p.window = 0; p.n_sink = 0;
    /* packed segments: rows 0..99 segment 0 at pos 0..99, rows 100..199 segment 1 at pos 0..99 */
    for (j = 0; j < N; j++) { seg[j] = j >= 100; pos[j] = j % 100; }
    kv.seg = seg;
    for (qp = 0; qp < 100; qp += 33) {
        int s;
        for (s = 0; s < 2; s++) {
            p.qseg = s;
            for (j = 0; j < N; j++) vis[j] = seg[j] == s && pos[j] <= qp;
            lk_attn(&p, q, qp, &kv, 0, out, &lse, scr);
            ref_attn(0, p.scale, 0, qp, q, K, Vv, vis, N, D, ref);
            if (maxdiff(out, ref, D) > worst) worst = maxdiff(out, ref, D);
        }
    }
    kv.seg = NULL; p.qseg = 0;
    for (j = 0; j < N; j++) pos[j] = j;
    /* tree: rows 160..199 are nodes with random earlier parents; query = each node */
    for (j = 0; j < 40; j++) parent[j] = j == 0 ? -1 : (int32_t)lk_rng_below(&R, (uint32_t)j) - (lk_rng_below(&R, 4) == 0 ? j : 0);
    for (j = 0; j < 40; j++) if (parent[j] < -1) parent[j] = -1;
    p.tree_parent = parent; p.tree_row0 = 160; p.tree_n = 40;
    for (qp = 0; qp < 40; qp++) {
        int x;
        p.qrow = 160 + qp;
        for (j = 0; j < N; j++) vis[j] = j < 160;   /* the committed prefix */
        for (x = qp; x >= 0; x = parent[x]) vis[160 + x] = 1;
        /* tree nodes share the next positions; causal by position off for this check */
        p.causal = 0;
        lk_attn(&p, q, 1000, &kv, 0, out, &lse, scr);
        ref_attn(0, p.scale, 0, 1000, q, K, Vv, vis, N, D, ref);
        if (maxdiff(out, ref, D) > 1e-5) fails++;
        if (maxdiff(out, ref, D) > worst) worst = maxdiff(out, ref, D);
    }
    CHECK(worst < 1e-5, "max |out - ref| = %g", worst);
    CHECK(fails == 0, "%d tree queries differ", fails);
    /* malformed parents (cycle / forward): no hang, no crash */
    parent[5] = 7; parent[7] = 5;
    p.qrow = 160 + 7;
    lk_attn(&p, q, 1000, &kv, 0, out, &lse, scr);
    CHECK(lse == lse, "lse is NaN with a malformed tree");
    p.causal = 1;   /* every key after the query's position: all masked, out = 0 (lse NULL: nothing written) */
    p.tree_parent = NULL; p.tree_n = 0;
    for (j = 0; j < D; j++) out[j] = 1.0f;
    lk_attn(&p, q, -1, &kv, 0, out, NULL, scr);
    for (j = 0; j < D; j++) fails += out[j] != 0.0f;
    CHECK(fails == 0, "all keys masked, lse NULL: out not zeroed");
    lk_t_end();
}

static void test_tiled_split(void) {
    enum { N = 300, D = 32 };
    static float K[N * D], Vv[N * D], q[D], out[D], o2[D], scr[64 * (D + 1 + N + 16 * D + 80) + 4096];
    static int32_t pos[N], idx[N];
    double worst = 0;
    float lse, lse2;
    int tiles[] = { 1, 3, 7, 64, 299 }, parts[] = { 2, 3, 8, 64 }, k, j;
    lk_attn_params p = lk_attn_default_params(D);
    lk_kv_view kv;
    lk_threads th;
    memset(&th, 0, sizeof th);
    lk_t_begin("attn tiled (online softmax) and split-KV equal direct");
    make_rows(K, Vv, pos, N, D);
    for (j = 0; j < D; j++) q[j] = 4.0f * frand();
    kv = f32_view(K, Vv, pos, N, D);
    p.window = 50; p.n_sink = 3;
    lk_attn(&p, q, N - 1, &kv, 0, out, &lse, scr);
    for (k = 0; k < 5; k++) {
        lk_attn_tiled(&p, q, N - 1, &kv, 0, o2, &lse2, scr, tiles[k]);
        for (j = 0; j < D; j++) if (fabs(o2[j] - out[j]) > worst) worst = fabs(o2[j] - out[j]);
        CHECK(fabsf(lse2 - lse) < 1e-4f, "tile %d lse %g vs %g", tiles[k], lse2, lse);
    }
    for (k = 0; k < 4; k++) {
        lk_attn_split(&p, q, N - 1, &kv, 0, o2, &lse2, scr, parts[k], &th);
        for (j = 0; j < D; j++) if (fabs(o2[j] - out[j]) > worst) worst = fabs(o2[j] - out[j]);
        CHECK(fabsf(lse2 - lse) < 1e-4f, "split %d lse %g vs %g", parts[k], lse2, lse);
    }
    /* index list views tile too */
    for (j = 0; j < N / 2; j++) idx[j] = 2 * j;
    kv.idx = idx; kv.n_idx = N / 2;
    lk_attn(&p, q, N - 1, &kv, 0, out, &lse, scr);
    lk_attn_tiled(&p, q, N - 1, &kv, 0, o2, &lse2, scr, 5);
    for (j = 0; j < D; j++) if (fabs(o2[j] - out[j]) > worst) worst = fabs(o2[j] - out[j]);
    CHECK(worst < 2e-6, "max |tiled/split - direct| = %g", worst);
    lk_t_end();
}

static void test_lssa(void) {
    enum { N = 400, D = 24 };
    static float K[N * D], Vv[N * D], q[D], out[D], scr[N + 16 * D + 80];
    static int32_t pos[N];
    int vis[N], s, qp, j;
    double ref[D], worst = 0;
    float lse;
    lk_attn_params p = lk_attn_default_params(D);
    lk_kv_view kv;
    lk_t_begin("attn LSSA and LSSAR (p=15, and p=40 for overflow) vs naive definition");
    make_rows(K, Vv, pos, N, D);
    for (j = 0; j < D; j++) q[j] = frand();
    kv = f32_view(K, Vv, pos, N, D);
    for (s = 1; s <= 2; s++) {
        int pw;
        for (pw = 0; pw < 2; pw++) {
            p.score = (lk_attn_score)s; p.lssar_p = pw ? 40.0f : 15.0f;
            for (qp = 0; qp < N; qp = qp * 2 + 1) {
                for (j = 0; j < N; j++) vis[j] = j <= qp;
                lk_attn(&p, q, qp, &kv, 0, out, &lse, scr);
                ref_attn(s, 0, p.lssar_p, qp, q, K, Vv, vis, N, D, ref);
                CHECK(maxdiff(out, ref, D) < 1e-4, "score %d p %g qpos %d: diff %g", s, p.lssar_p, qp, maxdiff(out, ref, D));
                if (maxdiff(out, ref, D) > worst) worst = maxdiff(out, ref, D);
                for (j = 0; j < D; j++) CHECK(out[j] == out[j], "NaN");
            }
        }
    }
    printf("  worst |lssa/lssar - ref| = %.3g\n", worst);
    lk_t_end();
}

/* ---- independent reference quantizers (ggml block definitions) ---------- */
static float f16r(float x) { return lk_fp16_to_fp32(lk_fp32_to_fp16(x)); }
static void ref_q8_0(const float *x, float *y, int n) {   /* d = amax/127, q = round(x/d) */
    int b, i;
    for (b = 0; b < n; b += 32) {
        float amax = 0, d, id;
        for (i = 0; i < 32; i++) if (fabsf(x[b + i]) > amax) amax = fabsf(x[b + i]);
        d = amax / 127.0f; id = d ? 1.0f / d : 0.0f;
        for (i = 0; i < 32; i++) y[b + i] = (float)(int)roundf(x[b + i] * id) * f16r(d);
    }
}
static void ref_q4_0(const float *x, float *y, int n) {   /* d = (signed max-magnitude) / -8, q = min(15, trunc(x/d + 8.5)) */
    int b, i;
    for (b = 0; b < n; b += 32) {
        float amax = 0, mx = 0, d, id;
        for (i = 0; i < 32; i++) if (fabsf(x[b + i]) > amax) { amax = fabsf(x[b + i]); mx = x[b + i]; }
        d = mx / -8.0f; id = d ? 1.0f / d : 0.0f;
        for (i = 0; i < 32; i++) { int qv = (int)(x[b + i] * id + 8.5f); if (qv > 15) qv = 15; y[b + i] = (float)(qv - 8) * f16r(d); }
    }
}

/* cache of n rows, 2 KV heads of d, through lk_kv_cache_store; compare
 * lk_attn on the cache with the naive reference on reference-dequantized rows */
static void kv_type_case(const char *name, lk_type type, int zip_bits, int W) {
    enum { N = 150, D = 16, G = 2, E = G * D };
    static float K[N * E], Vv[N * E], KR[N * E], VR[N * E], q[D], out[D], scr[N + 16 * D + 80], kh[D], vh[D];
    static unsigned char mem[1 << 20];
    lk_kv_cache c;
    lk_kv_cache_params cp;
    lk_attn_params p = lk_attn_default_params(D);
    int t, j, i, h, vis[N], nolse_diff = 0;
    double ref[D], worst = 0, worst_read = 0;
    float lse, Kh[N * D], Vh[N * D], out2[D];
    char nm[128];
    snprintf(nm, sizeof nm, "kv type %s vs reference dequantization + naive attention", name);
    lk_t_begin(nm);
    memset(&cp, 0, sizeof cp);
    cp.type = type; cp.n_layer = 2; cp.n_ctx = N; cp.n_embd_k = E; cp.n_embd_v = E; cp.head_dim = D; cp.zip_bits = zip_bits; cp.zip_window = W;
    CHECK(lk_kv_cache_bytes(&cp) <= sizeof mem, "cache too big");
    CHECK_OK(lk_kv_cache_init(&c, &cp, mem));
    for (i = 0; i < N * E; i++) { K[i] = 2.0f * frand() + (i % E == 3 ? 5.0f : 0.0f); Vv[i] = frand(); }
    for (t = 0; t < N; t++) { lk_kv_cache_store(&c, 1, t, K + t * E, Vv + t * E); c.pos[t] = t; }
    c.n = N;
    /* reference dequantization */
    if (zip_bits) {
        int levels = (1 << zip_bits) - 1, wh;
        float sc[2][E];
        for (wh = 0; wh < 2; wh++) {
            const float *X = wh ? Vv : K;
            float *Y = wh ? VR : KR;
            for (i = 0; i < E; i++) { float m = 0; for (t = 0; t < W; t++) if (fabsf(f16r(X[t * E + i])) > m) m = fabsf(f16r(X[t * E + i])); sc[wh][i] = m > 0 ? sqrtf(m) : 1.0f; }
            for (t = 0; t < N; t++) {
                if (t >= N - W) { for (i = 0; i < E; i++) Y[t * E + i] = f16r(X[t * E + i]); continue; }
                for (h = 0; h < G; h++) {
                    float y[D], mn = 1e30f, mx = -1e30f, st;
                    for (i = 0; i < D; i++) { y[i] = f16r(X[t * E + h * D + i]) / sc[wh][h * D + i]; if (y[i] < mn) mn = y[i]; if (y[i] > mx) mx = y[i]; }
                    mn = f16r(mn); st = f16r((mx - mn) / levels);   /* stored as f16 */
                    for (i = 0; i < D; i++) {
                        int qv = st > 0 ? (int)floorf((y[i] - mn) / st + 0.5f) : 0;
                        qv = qv < 0 ? 0 : qv > levels ? levels : qv;
                        Y[t * E + h * D + i] = sc[wh][h * D + i] * (mn + st * qv);
                    }
                }
            }
        }
    } else {
        for (t = 0; t < N; t++) {
            if (type == LK_TYPE_Q8_0) { ref_q8_0(K + t * E, KR + t * E, E); ref_q8_0(Vv + t * E, VR + t * E, E); }
            else if (type == LK_TYPE_Q4_0) { ref_q4_0(K + t * E, KR + t * E, E); ref_q4_0(Vv + t * E, VR + t * E, E); }
            else for (i = 0; i < E; i++) { KR[t * E + i] = type == LK_TYPE_F16 ? f16r(K[t * E + i]) : K[t * E + i]; VR[t * E + i] = type == LK_TYPE_F16 ? f16r(Vv[t * E + i]) : Vv[t * E + i]; }
        }
    }
    for (h = 0; h < G; h++) {
        lk_kv_view kv = lk_kv_cache_view(&c, 1, D, N);
        for (t = 0; t < N; t++) {
            lk_kv_cache_read(&c, 1, t, h, kh, vh);
            for (i = 0; i < D; i++) {
                Kh[t * D + i] = KR[t * E + h * D + i]; Vh[t * D + i] = VR[t * E + h * D + i];
                if (fabs(kh[i] - Kh[t * D + i]) > worst_read) worst_read = fabs(kh[i] - Kh[t * D + i]);
                if (fabs(vh[i] - Vh[t * D + i]) > worst_read) worst_read = fabs(vh[i] - Vh[t * D + i]);
            }
        }
        for (j = 0; j < D; j++) q[j] = 2.0f * frand();
        for (t = 0; t < N; t++) vis[t] = 1;
        lk_attn(&p, q, N - 1, &kv, h, out, &lse, scr);
        ref_attn(0, p.scale, 0, N - 1, q, Kh, Vh, vis, N, D, ref);
        if (maxdiff(out, ref, D) > worst) worst = maxdiff(out, ref, D);
        lk_attn(&p, q, N - 1, &kv, h, out2, NULL, scr);   /* lse NULL: not computed, the same output */
        nolse_diff += memcmp(out, out2, sizeof out2) != 0;
        p.score = LK_ATTN_LSSA;
        lk_attn(&p, q, N - 1, &kv, h, out, &lse, scr);
        ref_attn(1, 0, 0, N - 1, q, Kh, Vh, vis, N, D, ref);
        if (maxdiff(out, ref, D) > worst) worst = maxdiff(out, ref, D);
        lk_attn(&p, q, N - 1, &kv, h, out2, NULL, scr);
        nolse_diff += memcmp(out, out2, sizeof out2) != 0;
        p.score = LK_ATTN_SOFTMAX;
    }
    CHECK(nolse_diff == 0, "%d outputs changed when lse was NULL", nolse_diff);
    CHECK(worst_read < 1e-5, "dequantized rows differ from the reference by %g", worst_read);
    CHECK(worst < 1e-4, "attention differs from the reference by %g", worst);
    printf("  %s: bytes %zu, |row - ref| %.2g, |attn - ref| %.2g\n", name, lk_kv_cache_bytes(&cp), worst_read, worst);
    lk_t_end();
}




/* The q8_0 / q4_0 head-slice dequantizer of the attention path against the
 * library's row dequantizer (to_float of the whole row, then the slice),
 * for head sizes inside one block, across two blocks and across several,
 * and every head of the row; values must be identical. */
static void test_block_head_slices(void) {
    static const int dims[] = { 8, 16, 24, 48, 64, 80, 96 };
    static float row[8 * 96], full[8 * 96], got[96];
    static unsigned char qrow[8 * 96 * 2];
    size_t di;
    int t, h, i, bad = 0;
    lk_t_begin("q8_0 / q4_0 head slices = row dequantization");
    for (t = 0; t < 2; t++) {
        const lk_type ty = t ? LK_TYPE_Q4_0 : LK_TYPE_Q8_0;
        for (di = 0; di < sizeof dims / sizeof *dims; di++) {
            const int d = dims[di], nh = 8, ne = nh * d;   /* a multiple of 32 for every d here */
            lk_kv_view kv;
            for (i = 0; i < ne; i++) row[i] = frand() * 3.0f;
            lk_quantize_row(ty, row, qrow, ne);
            lk_type_get(ty)->to_float(qrow, full, ne);
            memset(&kv, 0, sizeof kv);
            kv.type = ty; kv.k = qrow; kv.v = qrow; kv.row_stride = lk_row_size(ty, ne); kv.n_rows = 1;
            for (h = 0; h < nh; h++) {
                lk__kv_head_deq(&kv, h & 1, 0, h, d, got);
                if (memcmp(got, full + h * d, sizeof(float) * (size_t)d)) { if (bad++ < 5) CHECK(0, "%s d=%d head %d differs", lk_type_name(ty), d, h); }
            }
        }
    }
    lk_t_end();
}

/* Multi-head latent attention's cache (deepseek2): one f16 head of 576 =
 * kv_lora_rank 512 + 64 RoPE dims whose rows are also the values (the view's
 * v is its k), past the 512 of other heads. With f16 math ggml rounds q to
 * f16 for the K.Q product and the probabilities to f16 for V.P; the reference
 * does both in double from the definitions: scores of the f16 q and keys,
 * the softmax, each probability rounded to f16, the sum of the key rows. A
 * q left unrounded moves the output by 4e-4 here (this code: 9e-8). */
static void test_latent_head(void) {
    enum { D = 576, N = 40, H = 3 };
    static float q[H * D], K16[N * D], qr[D];
    static uint16_t kh[N * D];
    static int32_t pos[N];
    static float out[D], s[N + 16 * D + 80];
    double ref[D], sc[N], mx, sum, worst = 0.0;
    lk_attn_params p = lk_attn_default_params(D);
    lk_kv_view kv;
    int h, j, i;
    lk_t_begin("attention over a latent (MLA) f16 head of 576 whose rows are the values = reference (q and probabilities in f16)");
    for (i = 0; i < N * D; i++) { kh[i] = lk_fp32_to_fp16(frand()); K16[i] = lk_fp16_to_fp32(kh[i]); }
    for (i = 0; i < H * D; i++) q[i] = frand();
    for (i = 0; i < N; i++) pos[i] = i;
    memset(&kv, 0, sizeof kv);
    kv.type = LK_TYPE_F16; kv.k = kh; kv.v = kh; kv.row_stride = 2 * D; kv.pos = pos; kv.n_rows = N;
    p.scale = 0.25f; p.causal = 1; p.f16_math = 1;
    for (h = 0; h < H; h++) {
        const int qpos = N - 1 - 7 * h;
        for (i = 0; i < D; i++) qr[i] = lk_fp16_to_fp32(lk_fp32_to_fp16(q[h * D + i]));
        lk_attn(&p, q + h * D, qpos, &kv, 0, out, NULL, s);
        mx = -1e300; sum = 0.0;
        for (j = 0; j <= qpos; j++) {
            double dot = 0.0;
            for (i = 0; i < D; i++) dot += (double)qr[i] * K16[j * D + i];
            sc[j] = dot * 0.25;
            if (sc[j] > mx) mx = sc[j];
        }
        for (j = 0; j <= qpos; j++) { sc[j] = exp(sc[j] - mx); sum += sc[j]; }
        for (i = 0; i < D; i++) ref[i] = 0.0;
        for (j = 0; j <= qpos; j++) {
            const double w = lk_fp16_to_fp32(lk_fp32_to_fp16((float)(sc[j] / sum)));
            for (i = 0; i < D; i++) ref[i] += w * K16[j * D + i];
        }
        if (maxdiff(out, ref, D) > worst) worst = maxdiff(out, ref, D);
    }
    printf("  max|d| %.2e over %d queries of %d keys\n", worst, H, N);
    CHECK(worst < 1e-5, "max|d| %.3g from the reference", worst);
    lk_t_end();
}

/* lk_attn_params.chunk (llama4's chunked attention): a key is seen only
 * from the query's chunk, pos >= qpos - qpos % chunk, with or without a
 * window; every way in (contiguous rows, an index list, segments, tiles,
 * split-KV) against the naive reference over that visible set */
static void test_chunks(void) {
    enum { N = 200, D = 32, C = 48, P0 = 1000 };
    static float K[N * D], Vv[N * D], q[D], out[D], scr[64 * (D + 1 + N + 16 * D + 80) + 4096];
    static int32_t pos[N], idx[N], seg[N];
    int vis[N], j, qi, w, way, seen = 0;
    double ref[D], worst = 0;
    float lse;
    lk_attn_params p = lk_attn_default_params(D);
    lk_kv_view kv;
    lk_threads th;
    memset(&th, 0, sizeof th);
    lk_t_begin("attn chunks (llama4): keys from the query's chunk only, every path vs naive");
    make_rows(K, Vv, pos, N, D);
    for (j = 0; j < N; j++) { pos[j] = P0 + j; idx[j] = j; seg[j] = 0; }   /* chunk starts at 1008, 1056, 1104, 1152 */
    for (j = 0; j < D; j++) q[j] = 3.0f * frand();
    p.chunk = C;
    for (qi = 5; qi < N; qi += 13)
        for (w = 0; w < 2; w++)
            for (way = 0; way < 5; way++) {
                const int qp = P0 + qi;
                p.window = w ? 20 : 0;
                kv = f32_view(K, Vv, pos, qi + 1, D);
                if (way == 1) { kv.idx = idx; kv.n_idx = qi + 1; }
                if (way == 2) kv.seg = seg;
                for (j = 0; j <= qi; j++) vis[j] = pos[j] >= qp - qp % C && (!w || qp - pos[j] < 20);
                if (!w) for (j = 0; j <= qi; j++) seen += !vis[j];
                if (way == 3) lk_attn_tiled(&p, q, qp, &kv, 0, out, &lse, scr, 7);
                else if (way == 4) lk_attn_split(&p, q, qp, &kv, 0, out, &lse, scr, 3, &th);
                else lk_attn(&p, q, qp, &kv, 0, out, &lse, scr);
                ref_attn(0, p.scale, 0, qp, q, K, Vv, vis, qi + 1, D, ref);
                if (maxdiff(out, ref, D) > worst) worst = maxdiff(out, ref, D);
            }
    CHECK(seen > 0, "no key was masked by a chunk");
    CHECK(worst < 1e-5, "max |out - ref| = %g", worst);
    lk_t_end();
}

int main(void) {
    lk_rng_seed(&R, 1234);
    (void)lk_t_fixture; (void)lk_t_skip; (void)lk_t_read_file;
    test_masks();
    test_tiled_split();
    test_lssa();
    test_block_head_slices();
    test_latent_head();
    kv_type_case("f32", LK_TYPE_F32, 0, 0);
    kv_type_case("f16", LK_TYPE_F16, 0, 0);
    kv_type_case("q8_0", LK_TYPE_Q8_0, 0, 0);
    kv_type_case("q4_0", LK_TYPE_Q4_0, 0, 0);
    kv_type_case("zip4 (window 32)", LK_TYPE_F16, 4, 32);
    kv_type_case("zip2 (window 32)", LK_TYPE_F16, 2, 32);
    kv_type_case("zip4 (window 7)", LK_TYPE_F16, 4, 7);
    test_chunks();
    return lk_t_exit();
}
