/* lk-test: sanitize */
/* The model half of the attention tests (stories260K): chunked prefill =
 * one prefill, tiled / split-KV attention = direct, packed segments =
 * separate prompts, every policy with budget >= context = full attention
 * (bitwise), policy identities (h2o / keyformer with recent = budget =
 * streaming without sinks), KV types and LSSA/LSSAR end to end, and the
 * prefix cache (round trip, refusal of another model / settings, truncated
 * and corrupted buffers). The random-data references are in test_attn.c. */
#define LLMKIT_IMPLEMENTATION
#include "llmkit.h"
#include "tests/lk_test.h"
#include <math.h>

static lk_rng R;
static float frand(void) { return 2.0f * lk_rng_float(&R) - 1.0f; }

#define V 512
static lk_model *M;
static lk_token TOK[4096];
static int NTOK;
static lk_context *mk(int n_batch, lk_type kv, int zip, int threads, lk_kv_policy pol, int budget) {
    lk_context_params cp = lk_context_default_params();
    lk_context *c = NULL;
    cp.n_ctx = 256; cp.n_batch = n_batch; cp.kv_type = kv; cp.kv_zip_bits = zip; cp.logits_all = 1; cp.n_threads = threads;
    cp.kv_policy.policy = pol; cp.kv_policy.budget = budget;
    if (lk_context_new(M, &cp, &c)) printf("  context: %s\n", lk_last_error());
    return c;
}
/* logits of TOK[0..n) (every position) */
static int run(lk_context *c, int n, int chunk, float *out) {
    int done = 0, r;
    while (done < n) {
        int k = n - done < chunk ? n - done : chunk;
        if (lk_decode(c, TOK + done, k)) { printf("  decode: %s\n", lk_last_error()); return 1; }
        for (r = 0; r < k; r++) memcpy(out + (size_t)(done + r) * V, lk_logits(c, r), sizeof(float) * V);
        done += k;
    }
    return 0;
}

static void test_chunked(float *full, float *tmp) {
    int chunks[] = { 1, 2, 7, 33, 100 }, k;
    lk_context *c;
    lk_t_begin("stories260K: chunked prefill (1, 2, 7, 33, 100) = one prefill; tiled and split-KV attention");
    c = mk(200, LK_TYPE_F32, 0, 1, LK_KV_FULL, 0); run(c, 200, 200, full); lk_context_free(c);
    for (k = 0; k < 5; k++) {
        c = mk(chunks[k], LK_TYPE_F32, 0, 1, LK_KV_FULL, 0);
        run(c, 200, chunks[k], tmp);
        CHECK(lk_t_maxdiff(full, tmp, 200 * V) < 1e-4, "chunk %d: max |d| = %g", chunks[k], lk_t_maxdiff(full, tmp, 200 * V));
        lk_context_free(c);
    }
    {
        lk_context_params cp = lk_context_default_params();
        cp.n_ctx = 256; cp.n_batch = 200; cp.kv_type = LK_TYPE_F32; cp.logits_all = 1; cp.attn_tile = 16;
        CHECK_OK(lk_context_new(M, &cp, &c));
        run(c, 200, 200, tmp);
        CHECK(lk_t_maxdiff(full, tmp, 200 * V) < 1e-4, "tiled: max |d| = %g", lk_t_maxdiff(full, tmp, 200 * V));
        lk_context_free(c);
        cp.n_batch = 1; cp.attn_tile = 0; cp.attn_split = 4; cp.n_threads = 2;
        CHECK_OK(lk_context_new(M, &cp, &c));
        run(c, 200, 1, tmp);
        CHECK(lk_t_maxdiff(full, tmp, 200 * V) < 1e-4, "split-KV decode: max |d| = %g", lk_t_maxdiff(full, tmp, 200 * V));
        lk_context_free(c);
    }
    lk_t_end();
}

static void test_packed(float *tmp) {
    /* two prompts packed in one batch, positions restarting at 0 = separate runs */
    static float a[60 * V], b[80 * V];
    lk_token tok[140];
    int pos[140], seg[140], i;
    lk_context *c;
    lk_t_begin("stories260K: packed segments (Prepacking) = separate prompts");
    c = mk(256, LK_TYPE_F32, 0, 1, LK_KV_FULL, 0); run(c, 60, 60, a); lk_context_free(c);
    for (i = 0; i < 140; i++) { tok[i] = i < 60 ? TOK[i] : TOK[100 + i - 60]; pos[i] = i < 60 ? i : i - 60; seg[i] = i >= 60; }
    c = mk(256, LK_TYPE_F32, 0, 1, LK_KV_FULL, 0);
    CHECK_OK(lk_decode(c, TOK + 100, 80));
    for (i = 0; i < 80; i++) memcpy(b + (size_t)i * V, lk_logits(c, i), sizeof(float) * V);
    lk_context_free(c);
    c = mk(256, LK_TYPE_F32, 0, 1, LK_KV_FULL, 0);
    CHECK_OK(lk_decode_ext(c, tok, pos, seg, 140));
    for (i = 0; i < 140; i++) memcpy(tmp + (size_t)i * V, lk_logits(c, i), sizeof(float) * V);
    CHECK(lk_t_maxdiff(a, tmp, 60 * V) < 1e-4, "segment 0: %g", lk_t_maxdiff(a, tmp, 60 * V));
    CHECK(lk_t_maxdiff(b, tmp + 60 * V, 80 * V) < 1e-4, "segment 1: %g", lk_t_maxdiff(b, tmp + 60 * V, 80 * V));
    /* out of order within a segment is refused */
    pos[70] = 0; pos[71] = 5; pos[72] = 2;
    lk_context_truncate(c, 0);
    CHECK(lk_decode_ext(c, tok, pos, seg, 140) == LK_ERR_RANGE, "out-of-order positions accepted");
    lk_context_free(c);
    lk_t_end();
}

static void test_policies(const float *full, float *tmp) {
    int p;
    double nl_full = lk_t_mean_nll(full, TOK, 200, V);
    lk_t_begin("stories260K: every policy with budget >= context = full attention (bitwise)");
    for (p = 0; p < LK_KV_POLICY_COUNT; p++) {
        lk_context_params cp = lk_context_default_params();
        lk_context *c = NULL;
        cp.n_ctx = 256; cp.n_batch = 64; cp.kv_type = LK_TYPE_F32; cp.logits_all = 1; cp.n_threads = 1;
        cp.kv_policy.policy = (lk_kv_policy)p; cp.kv_policy.budget = 256; cp.kv_policy.top_p = 1.0f;
        CHECK_OK(lk_context_new(M, &cp, &c));
        if (!c) continue;
        run(c, 200, 64, tmp);
        CHECK(lk_t_maxdiff(full, tmp, 200 * V) == 0.0, "%s: max |d| = %g", lk_kv_policy_name((lk_kv_policy)p), lk_t_maxdiff(full, tmp, 200 * V));
        lk_context_free(c);
    }
    lk_t_end();
    lk_t_begin("stories260K: policies at budget 32 (identities and sanity)");
    {
        static float s0[200 * V];
        lk_context_params cp = lk_context_default_params();
        lk_context *c = NULL;
        double nl;
        cp.n_ctx = 256; cp.n_batch = 64; cp.kv_type = LK_TYPE_F32; cp.logits_all = 1;
        /* streaming with no sinks keeps the newest 32 = H2O / Keyformer with recent = budget */
        cp.kv_policy.policy = LK_KV_STREAMING; cp.kv_policy.budget = 32; cp.kv_policy.n_sink = 0;
        CHECK_OK(lk_context_new(M, &cp, &c)); run(c, 200, 64, s0); lk_context_free(c);
        CHECK(lk_t_maxdiff(full, s0, 32 * V) == 0.0, "streaming differs from full before the budget is reached");
        CHECK(lk_t_maxdiff(full, s0, 200 * V) > 1e-3, "streaming at budget 32 changed nothing");
        cp.kv_policy.policy = LK_KV_H2O; cp.kv_policy.recent = 32;
        CHECK_OK(lk_context_new(M, &cp, &c)); run(c, 200, 64, tmp); lk_context_free(c);
        CHECK(lk_t_maxdiff(s0, tmp, 200 * V) == 0.0, "h2o(recent = budget) != streaming(no sinks): %g", lk_t_maxdiff(s0, tmp, 200 * V));
        cp.kv_policy.policy = LK_KV_KEYFORMER;
        CHECK_OK(lk_context_new(M, &cp, &c)); run(c, 200, 64, tmp); lk_context_free(c);
        CHECK(lk_t_maxdiff(s0, tmp, 200 * V) == 0.0, "keyformer(recent = budget) != streaming(no sinks): %g", lk_t_maxdiff(s0, tmp, 200 * V));
        /* each policy at budget 64: finite, and not far from full */
        for (p = 1; p < LK_KV_POLICY_COUNT; p++) {
            cp.kv_policy = lk_kv_policy_default_params();
            cp.kv_policy.policy = (lk_kv_policy)p; cp.kv_policy.budget = 64; cp.kv_policy.reuse_cos = p == LK_KV_TOKENSELECT ? 0.9f : 0.0f;
            CHECK_OK(lk_context_new(M, &cp, &c));
            if (!c) continue;
            run(c, 200, 1 + p * 9, tmp);
            nl = lk_t_mean_nll(tmp, TOK, 200, V);
            CHECK(nl == nl && nl < nl_full + 0.5, "%s: nll %g vs full %g", lk_kv_policy_name((lk_kv_policy)p), nl, nl_full);
            printf("  %-12s budget 64: nll %.4f (full %.4f)\n", lk_kv_policy_name((lk_kv_policy)p), nl, nl_full);
            lk_context_free(c);
        }
    }
    lk_t_end();
}

static void test_kv_types_model(const float *full, float *tmp) {
    struct { const char *n; lk_type t; int zip; double tol; } ty[] = {
        { "f16", LK_TYPE_F16, 0, 0.01 }, { "q8_0", LK_TYPE_Q8_0, 0, 0.02 }, { "q4_0", LK_TYPE_Q4_0, 0, 1.5 },
        { "zip4", LK_TYPE_F16, 4, 0.3 }, { "zip2", LK_TYPE_F16, 2, 1.0 } };
    int k;
    double nl_full = lk_t_mean_nll(full, TOK, 200, V);
    lk_t_begin("stories260K: KV types and LSSA/LSSAR run end to end (finite, NLL near f32)");
    for (k = 0; k < 5; k++) {
        lk_context *c = mk(1, ty[k].t, ty[k].zip, 1, LK_KV_FULL, 0);
        double nl;
        if (!c) { CHECK(0, "%s: no context", ty[k].n); continue; }
        run(c, 200, 1, tmp);
        nl = lk_t_mean_nll(tmp, TOK, 200, V);
        CHECK(nl == nl && fabs(nl - nl_full) < ty[k].tol, "%s: nll %g vs f32 %g", ty[k].n, nl, nl_full);
        printf("  %-5s nll %.4f (f32 %.4f), KV bytes %llu\n", ty[k].n, nl, nl_full, (unsigned long long)lk_context_kv_bytes(c));
        lk_context_free(c);
    }
    for (k = 1; k <= 2; k++) {
        lk_context_params cp = lk_context_default_params();
        lk_context *c = NULL;
        cp.n_ctx = 256; cp.n_batch = 64; cp.logits_all = 1; cp.attn_score = (lk_attn_score)k;
        CHECK_OK(lk_context_new(M, &cp, &c));
        if (!c) continue;
        run(c, 200, 64, tmp);
        CHECK(lk_t_mean_nll(tmp, TOK, 200, V) == lk_t_mean_nll(tmp, TOK, 200, V), "score %d: NaN", k);
        lk_context_free(c);
    }
    lk_t_end();
}

/* kv_rotate: lk_hadamard against the explicit matrix H_ij = (-1)^popcount(i & j) / sqrt(n);
 * rotating q, K, V and the output back leaves an f32 cache's logits equal up to
 * rounding (q.k and p.v are invariant); a quantized cache still runs; a head_dim
 * that is not a power of two is refused. */
static int popc(unsigned v) { int n = 0; while (v) { n += v & 1; v >>= 1; } return n; }
static void test_rotate(float *tmp, float *tmp2) {
    static const int ns[] = { 1, 2, 8, 64 };
    int k, i, j;
    lk_t_begin("kv_rotate: Walsh-Hadamard = its matrix, rotated f32 cache = plain, q4_0 runs, refusal");
    for (k = 0; k < 4; k++) {
        const int n = ns[k];
        float x[64], y[64], z[64];
        double worst = 0;
        for (i = 0; i < n; i++) x[i] = y[i] = z[i] = frand();
        lk_hadamard(y, n);
        for (i = 0; i < n; i++) {
            double r = 0;
            for (j = 0; j < n; j++) r += (popc((unsigned)(i & j)) & 1 ? -1.0 : 1.0) * x[j];
            r /= sqrt((double)n);
            if (fabs(r - y[i]) > worst) worst = fabs(r - y[i]);
        }
        lk_hadamard(y, n);   /* its own inverse */
        for (i = 0; i < n; i++) if (fabs(y[i] - z[i]) > worst) worst = fabs(y[i] - z[i]);
        CHECK(worst < 1e-5, "n %d: |H x - matrix| or |H H x - x| = %g", n, worst);
    }
    {
        lk_context_params cp = lk_context_default_params();
        lk_context *a = NULL, *b = NULL;
        double d, nl0, nl1;
        cp.n_ctx = 256; cp.n_batch = 64; cp.logits_all = 1; cp.kv_type = LK_TYPE_F32;
        CHECK_OK(lk_context_new(M, &cp, &a));
        cp.kv_rotate = 1;
        CHECK_OK(lk_context_new(M, &cp, &b));
        if (a && b && !run(a, 200, 64, tmp) && !run(b, 200, 64, tmp2)) {
            d = lk_t_maxdiff(tmp, tmp2, (size_t)200 * V);
            CHECK(d < 1e-4, "rotated f32 cache: max |d logits| %g", d);
            printf("  rotated f32 cache vs plain: max |d logits| %.2g\n", d);
        }
        lk_context_free(a); lk_context_free(b); a = b = NULL;
        cp.kv_type = LK_TYPE_Q4_0; cp.kv_rotate = 0;
        CHECK_OK(lk_context_new(M, &cp, &a));
        cp.kv_rotate = 1;
        CHECK_OK(lk_context_new(M, &cp, &b));
        if (a && b && !run(a, 200, 64, tmp) && !run(b, 200, 64, tmp2)) {
            nl0 = lk_t_mean_nll(tmp, TOK, 200, V); nl1 = lk_t_mean_nll(tmp2, TOK, 200, V);
            CHECK(nl1 == nl1 && nl1 < 10, "q4_0 + rotation: nll %g", nl1);
            printf("  q4_0 cache: nll %.4f, rotated %.4f (head_dim 8: a block spans 4 heads)\n", nl0, nl1);
        }
        lk_context_free(a); lk_context_free(b);
    }
    {   /* a 1-layer llama with head_dim 12 */
        lk_gguf_writer *w = NULL;
        static float buf[24 * 32];
        static const struct { const char *n; int64_t a, b; } ts[] = {
            { "token_embd.weight", 24, 16 }, { "output_norm.weight", 24, 0 }, { "output.weight", 24, 16 },
            { "blk.0.attn_norm.weight", 24, 0 }, { "blk.0.attn_q.weight", 24, 24 }, { "blk.0.attn_k.weight", 24, 24 },
            { "blk.0.attn_v.weight", 24, 24 }, { "blk.0.attn_output.weight", 24, 24 }, { "blk.0.ffn_norm.weight", 24, 0 },
            { "blk.0.ffn_gate.weight", 24, 32 }, { "blk.0.ffn_up.weight", 24, 32 }, { "blk.0.ffn_down.weight", 32, 24 } };
        unsigned char *mem = NULL;
        size_t len = 0;
        lk_model *m12 = NULL;
        lk_context *c = NULL;
        lk_context_params cp = lk_context_default_params();
        for (i = 0; i < 24 * 32; i++) buf[i] = 0.1f * frand();
        CHECK_OK(lk_gguf_writer_new(NULL, &w));
        if (w) {
            lk_gguf_writer_add_str(w, "general.architecture", "llama");
            lk_gguf_writer_add_u32(w, "llama.embedding_length", 24); lk_gguf_writer_add_u32(w, "llama.block_count", 1);
            lk_gguf_writer_add_u32(w, "llama.feed_forward_length", 32); lk_gguf_writer_add_u32(w, "llama.attention.head_count", 2);
            for (k = 0; k < 12; k++) {
                int64_t ne[2];
                ne[0] = ts[k].a; ne[1] = ts[k].b;
                lk_gguf_writer_add_tensor(w, ts[k].n, LK_TYPE_F32, ts[k].b ? 2 : 1, ne, buf, 1);
            }
            len = (size_t)lk_gguf_writer_size(w);
            mem = (unsigned char *)malloc(len);
            CHECK_OK(lk_gguf_writer_write_memory(w, mem, len));
            lk_gguf_writer_free(w);
            CHECK_OK(lk_model_load_memory(mem, len, NULL, &m12));
        }
        cp.n_ctx = 16; cp.kv_rotate = 1;
        if (m12) {
            lk_status st = lk_context_new(m12, &cp, &c);
            CHECK(st == LK_ERR_UNSUPPORTED && strstr(lk_last_error(), "power of two"), "head_dim 12 with kv_rotate: status %d, '%s'", (int)st, lk_last_error());
            cp.kv_rotate = 0;
            CHECK_OK(lk_context_new(m12, &cp, &c));   /* the model itself is fine */
        }
        lk_context_free(c); lk_model_free(m12); free(mem);
    }
    lk_t_end();
}

static lk_status dec(lk_context *c, const lk_token *t, int n) {   /* chunks of 32 (logits_all) */
    lk_status st = LK_OK;
    while (n > 0 && !st) { int k = n < 32 ? n : 32; st = lk_decode(c, t, k); t += k; n -= k; }
    return st;
}
static void test_prefix(void) {
    static float a[V], b[V];
    struct { lk_type t; int zip; lk_kv_policy pol; } cfg[] = { { LK_TYPE_F16, 0, LK_KV_FULL }, { LK_TYPE_F32, 0, LK_KV_QUEST }, { LK_TYPE_F16, 4, LK_KV_FULL }, { LK_TYPE_Q8_0, 0, LK_KV_FULL } };
    int k, P = 90;
    lk_t_begin("prefix cache: save / restore + continue = recompute; refusal; corrupt buffers");
    for (k = 0; k < 4; k++) {
        lk_context *c = mk(32, cfg[k].t, cfg[k].zip, 1, cfg[k].pol, cfg[k].pol == LK_KV_QUEST ? 48 : 0), *d;
        size_t sz = 0, i;
        unsigned char *buf;
        if (!c) continue;
        CHECK_OK(dec(c, TOK, P));   /* reference: the same chunks without a save in between */
        CHECK_OK(dec(c, TOK + P, 150 - P));
        memcpy(a, lk_logits(c, -1), sizeof a);
        lk_context_truncate(c, 0);
        CHECK_OK(dec(c, TOK, P));
        CHECK_OK(lk_context_state_save(c, NULL, 0, &sz));
        buf = (unsigned char *)malloc(sz);
        CHECK_OK(lk_context_state_save(c, buf, sz, &sz));
        d = mk(32, cfg[k].t, cfg[k].zip, 1, cfg[k].pol, cfg[k].pol == LK_KV_QUEST ? 48 : 0);
        CHECK_OK(lk_context_state_load(d, buf, sz));
        CHECK(lk_context_n_past(d) == P, "n_past %d", lk_context_n_past(d));
        CHECK_OK(dec(d, TOK + P, 150 - P));
        memcpy(b, lk_logits(d, -1), sizeof b);
        CHECK(lk_t_maxdiff(a, b, V) == 0.0, "config %d: restored + continued differs by %g", k, lk_t_maxdiff(a, b, V));
        if (k == 0) {
            lk_context *e = mk(32, LK_TYPE_F32, 0, 1, LK_KV_FULL, 0);
            CHECK(lk_context_state_load(e, buf, sz) == LK_ERR_INVALID_ARG, "different kv type accepted");
            lk_context_free(e);
            {   /* a different model (Q8_0 file) */
                const char *p2 = lk_t_fixture("stories260K/stories260K-Q8_0.gguf");
                lk_model *m2 = NULL;
                if (p2 && lk_model_load_file(p2, NULL, &m2) == LK_OK) {
                    lk_context_params cp = lk_context_default_params();
                    cp.n_ctx = 256; cp.n_batch = 32;
                    if (lk_context_new(m2, &cp, &e) == LK_OK) {
                        CHECK(lk_context_state_load(e, buf, sz) == LK_ERR_INVALID_ARG, "different model accepted");
                        lk_context_free(e);
                    }
                    lk_model_free(m2);
                }
            }
            for (i = 0; i < sz; i += (i < 64 ? 1 : 97)) {   /* truncated */
                lk_status st = lk_context_state_load(d, buf, i);
                CHECK(st != LK_OK, "truncated to %zu accepted", i);
                CHECK(lk_context_n_past(d) == 0, "failed load left state");
            }
            for (i = 0; i < sz; i += (i < 64 ? 1 : 131)) {   /* one flipped byte */
                lk_status st;
                buf[i] ^= 0x5a;
                st = lk_context_state_load(d, buf, sz);
                CHECK(st != LK_OK, "byte %zu flipped accepted", i);
                buf[i] ^= 0x5a;
            }
            {   /* a well-formed buffer (checksum recomputed) with a huge position is refused */
                uint64_t h = 14695981039346656037ull;
                size_t q;
                int32_t big = 0x7fffffff;
                memcpy(buf + 48 + 4 * (P - 1), &big, 4);
                for (q = 48; q < sz; q++) { h ^= buf[q]; h *= 1099511628211ull; }
                for (q = 0; q < 8; q++) buf[40 + q] = (unsigned char)(h >> (8 * q));
                CHECK(lk_context_state_load(d, buf, sz) == LK_ERR_FORMAT, "position INT_MAX accepted");
                CHECK_OK(lk_context_state_save(c, buf, sz, &sz));
            }
            CHECK_OK(lk_context_state_load(d, buf, sz));
            {   /* file round trip */
                const char *path = "build/test_attn_state.bin";
                CHECK_OK(lk_context_state_save_file(c, path));
                CHECK_OK(lk_context_state_load_file(d, path));
                CHECK(lk_context_n_past(d) == P, "file load n_past %d", lk_context_n_past(d));
                remove(path);
            }
        }
        free(buf);
        lk_context_free(c); lk_context_free(d);
    }
    {   /* policies with per-step state are refused */
        lk_context *c = mk(32, LK_TYPE_F16, 0, 1, LK_KV_H2O, 64);
        size_t sz;
        CHECK(lk_context_state_save(c, NULL, 0, &sz) == LK_ERR_UNSUPPORTED, "h2o state save not refused");
        lk_context_free(c);
    }
    lk_t_end();
}


/* ---- policies on random K, V, q through the context's own code path, vs
 * a naive reference of each policy's definition (double precision) ------- */
enum { PT = 100, PB = 24 };
static int pr_cmp(const void *a, const void *b) {   /* (score desc, row asc) */
    const double *x = (const double *)a, *y = (const double *)b;
    if (x[0] != y[0]) return x[0] > y[0] ? -1 : 1;
    return x[1] < y[1] ? -1 : x[1] > y[1];
}
static int int_cmp(const void *a, const void *b) { int x = *(const int *)a, y = *(const int *)b; return x < y ? -1 : x > y; }
/* softmax attention of q over rows sel[0..m) of head g; z (optional) gets the scaled logits */
static void pref_attn(const float *q, const float *K, const float *Vv, int nkv, int g, int d, float scale, const int *sel, int m, double *out, double *z, double *lse) {
    double s[PT], mx = -1e300, sum = 0;
    int j, i;
    for (j = 0; j < m; j++) {
        double dot = 0;
        for (i = 0; i < d; i++) dot += (double)q[i] * K[(size_t)sel[j] * nkv + g * d + i];
        s[j] = dot * scale;
        if (z) z[j] = s[j];
        if (s[j] > mx) mx = s[j];
    }
    for (j = 0; j < m; j++) sum += exp(s[j] - mx);
    for (i = 0; i < d; i++) out[i] = 0;
    for (j = 0; j < m; j++) for (i = 0; i < d; i++) out[i] += exp(s[j] - mx) / sum * Vv[(size_t)sel[j] * nkv + g * d + i];
    if (lse) *lse = mx + log(sum);
}
static int quest_ref(const float *q, const float *K, int nkv, int g, int d, int n, int P, int B, int *sel) {
    int np = (n + P - 1) / P, k, i, m = 0, room = B - (n - (np - 1) * P), npk = 0, pages[PT];
    double pr[PT][2];
    for (k = 0; k < np - 1; k++) {
        double s = 0;
        for (i = 0; i < d; i++) {
            double mn = 1e300, mx = -1e300, a, b;
            int r;
            for (r = k * P; r < k * P + P; r++) { double x = K[(size_t)r * nkv + g * d + i]; if (x < mn) mn = x; if (x > mx) mx = x; }
            a = q[i] * mn; b = q[i] * mx; s += a > b ? a : b;
        }
        pr[k][0] = s; pr[k][1] = k;
    }
    qsort(pr, (size_t)(np - 1), sizeof pr[0], pr_cmp);
    while (npk < np - 1 && room >= P) { room -= P; npk++; }
    for (k = 0; k < npk; k++) pages[k] = (int)pr[k][1];
    qsort(pages, (size_t)npk, sizeof(int), int_cmp);
    for (k = 0; k < npk; k++) for (i = pages[k] * P; i < pages[k] * P + P; i++) sel[m++] = i;
    for (i = (np - 1) * P; i < n; i++) sel[m++] = i;
    return m;
}
static void test_policy_ref(void) {
    static float Q[PT * 64], K[PT * 32], Vv[PT * 32];
    static double ref[PT * 64];
    int pol;
    static float qprev[64];
    static int prev_sel[PT * 2];
    lk_t_begin("policies on random K/V/q (budget 24) vs naive references of their definitions");
    for (pol = LK_KV_STREAMING; pol <= LK_KV_POLICY_COUNT; pol++) {
        const int reuse = pol == LK_KV_POLICY_COUNT;   /* last round: tokenselect with selection reuse */
        const int P = reuse ? LK_KV_TOKENSELECT : pol;
        lk_context_params cp = lk_context_default_params();
        lk_context *c = NULL;
        const lk_hparams *hp = lk_model_hparams(M);
        const int H = hp->n_head, G = hp->n_head_kv, d = hp->head_dim_k, nkv = G * d, gqa = H / G;
        const float scale = hp->attn_scale;
        int pos[PT], t, h, g, i, j, prev_n = -1, prev_m = 0, n_reused = 0;
        lk__attn_job at;
        double worst = 0;
        cp.n_ctx = 128; cp.n_batch = 128; cp.kv_type = LK_TYPE_F32; cp.n_threads = 1;
        cp.kv_policy.policy = (lk_kv_policy)P; cp.kv_policy.budget = PB; cp.kv_policy.n_sink = 2; cp.kv_policy.page_size = 4;
        cp.kv_policy.recent = P == LK_KV_TOKENSELECT ? 4 : 8; cp.kv_policy.top_p = 0.9f; cp.kv_policy.seed = 5;
        cp.kv_policy.twilight_base = LK_KV_QUEST; cp.kv_policy.reuse_cos = reuse ? 0.9f : 0.0f;
        if (lk_context_new(M, &cp, &c)) { CHECK(0, "context: %s", lk_last_error()); continue; }
        if (H * d > 64 || nkv > 32) { lk_context_free(c); lk_t_skip("policy refs", "model dims"); return; }
        for (i = 0; i < PT * H * d; i++) Q[i] = 2.0f * frand();
        if (reuse)   /* slowly drifting queries, so that the cosine test passes and fails */
            for (t = 1; t < PT; t++) for (i = 0; i < H * d; i++) Q[t * H * d + i] = 0.97f * Q[(t - 1) * H * d + i] + (t % 9 == 0 ? 1.5f : 0.2f) * frand();
        for (i = 0; i < PT * nkv; i++) { K[i] = 2.0f * frand(); Vv[i] = frand(); }
        for (t = 0; t < PT; t++) pos[t] = t;
        memcpy(c->q, Q, sizeof(float) * PT * H * d);
        memcpy(c->k, K, sizeof(float) * PT * nkv);
        memcpy(c->v, Vv, sizeof(float) * PT * nkv);
        lk__store_rows(c, 0, PT, 0, pos, NULL);
        at = lk__layer_job(c, 0, PT, pos, NULL);
        at.ap = lk_attn_default_params(d); at.ap.scale = scale;
        lk__kv_attend(&at);
        /* reference */
        if (P == LK_KV_H2O || P == LK_KV_KEYFORMER) {
            for (g = 0; g < G; g++) {
                int kept[PT], nk = 0;
                double acc[PT];
                lk_rng rng;
                lk_rng_seed_stream(&rng, 5, (uint64_t)g);
                for (t = 0; t < PT; t++) {
                    kept[nk++] = t; acc[t] = 0;
                    if (nk > PB) {
                        int recent = 8, heavy = PB - recent, nc = nk - recent, m = 0, keep[PT];
                        double pr[PT][2];
                        for (j = 0; j < nc; j++) { pr[j][0] = (float)acc[kept[j]]; pr[j][1] = kept[j]; }
                        qsort(pr, (size_t)nc, sizeof pr[0], pr_cmp);
                        for (j = 0; j < heavy; j++) keep[m++] = (int)pr[j][1];
                        qsort(keep, (size_t)m, sizeof(int), int_cmp);
                        for (j = nc; j < nk; j++) keep[m++] = kept[j];
                        memcpy(kept, keep, sizeof(int) * (size_t)m); nk = m;
                    }
                    for (h = g * gqa; h < (g + 1) * gqa; h++) {
                        double z[PT], lse;
                        pref_attn(Q + ((size_t)t * H + h) * d, K, Vv, nkv, g, d, scale, kept, nk, ref + ((size_t)t * H + h) * d, z, &lse);
                        if (P == LK_KV_H2O) for (j = 0; j < nk; j++) acc[kept[j]] = (float)(acc[kept[j]] + (float)exp(z[j] - lse));
                        else {
                            double tau = 1.0 + (double)t / 127.0, mx = -1e300, sum = 0;
                            for (j = 0; j < nk; j++) { z[j] = (z[j] + lk_rng_gumbel(&rng)) / tau; if (z[j] > mx) mx = z[j]; }
                            for (j = 0; j < nk; j++) sum += exp(z[j] - mx);
                            for (j = 0; j < nk; j++) acc[kept[j]] = (float)(acc[kept[j]] + (float)(exp(z[j] - mx) / sum));
                        }
                    }
                }
            }
        } else {
            for (t = 0; t < PT; t++) {
                int n = t + 1, sel[PT * 2], m = 0;
                int reused = 0;
                if (P == LK_KV_TOKENSELECT && n <= PB) prev_n = -1;
                if (reuse && n > PB && prev_n >= 0) {
                    double dt = 0, a2 = 0, b2 = 0;
                    const float *qt = Q + (size_t)t * H * d;
                    for (j = 0; j < H * d; j++) { dt += (double)qt[j] * qprev[j]; a2 += (double)qt[j] * qt[j]; b2 += (double)qprev[j] * qprev[j]; }
                    if (dt / sqrt(a2 * b2) >= 0.9) {
                        m = prev_m;
                        memcpy(sel, prev_sel, sizeof(int) * (size_t)m);
                        for (j = prev_n; j < n; j++) sel[m++] = j;
                        memcpy(prev_sel, sel, sizeof(int) * (size_t)m); prev_m = m; prev_n = n;
                        reused = 1; n_reused++;
                    }
                }
                if (P == LK_KV_TOKENSELECT && n > PB && !reused) {
                    double vote[PT], pr[PT][2];
                    int local = 4, sinks = 2, k = PB - sinks - local, np = 0;
                    for (j = 0; j < n; j++) vote[j] = 0;
                    for (h = 0; h < H; h++) {
                        double z[PT], o[64], lse;
                        int all[PT];
                        for (j = 0; j < n; j++) all[j] = j;
                        pref_attn(Q + ((size_t)t * H + h) * d, K, Vv, nkv, h / gqa, d, scale, all, n, o, z, &lse);
                        for (j = 0; j < n; j++) vote[j] += exp(z[j] - lse);
                    }
                    for (j = sinks; j < n - local; j++) { pr[np][0] = vote[j]; pr[np][1] = j; np++; }
                    qsort(pr, (size_t)np, sizeof pr[0], pr_cmp);
                    for (j = 0; j < sinks; j++) sel[m++] = j;
                    for (j = 0; j < k; j++) sel[m++] = (int)pr[j][1];
                    qsort(sel + sinks, (size_t)k, sizeof(int), int_cmp);
                    for (j = n - local; j < n; j++) sel[m++] = j;
                    memcpy(prev_sel, sel, sizeof(int) * (size_t)m); prev_m = m; prev_n = n;
                    memcpy(qprev, Q + (size_t)t * H * d, sizeof(float) * (size_t)H * d);
                }
                for (h = 0; h < H; h++) {
                    const float *q = Q + ((size_t)t * H + h) * d;
                    g = h / gqa;
                    if (P == LK_KV_TOKENSELECT) {
                        if (n <= PB) for (m = 0; m < n; m++) sel[m] = m;
                        else m = prev_m;
                    } else if (P == LK_KV_STREAMING) {
                        m = 0;
                        if (n <= PB) for (j = 0; j < n; j++) sel[m++] = j;
                        else { for (j = 0; j < 2; j++) sel[m++] = j; for (j = n - (PB - 2); j < n; j++) sel[m++] = j; }
                    } else {   /* quest, twilight on quest candidates */
                        if (n <= PB) for (m = 0; m < n; m++) sel[m] = m;
                        else m = quest_ref(q, K, nkv, g, d, n, 4, PB, sel);
                        if (P == LK_KV_TWILIGHT) {   /* smallest prefix (by probability) with mass >= 0.9 */
                            double z[PT], o[64], lse, pr[PT][2], mass = 0;
                            int cnt = 0, keep[PT];
                            pref_attn(q, K, Vv, nkv, g, d, scale, sel, m, o, z, &lse);
                            for (j = 0; j < m; j++) { pr[j][0] = exp(z[j] - lse); pr[j][1] = sel[j]; }
                            qsort(pr, (size_t)m, sizeof pr[0], pr_cmp);
                            while (cnt < m && mass < 0.9) { mass += pr[cnt][0]; keep[cnt] = (int)pr[cnt][1]; cnt++; }
                            qsort(keep, (size_t)cnt, sizeof(int), int_cmp);
                            memcpy(sel, keep, sizeof(int) * (size_t)cnt); m = cnt;
                        }
                    }
                    pref_attn(q, K, Vv, nkv, g, d, scale, sel, m, ref + ((size_t)t * H + h) * d, NULL, NULL);
                }
            }
        }
        for (i = 0; i < PT * H * d; i++) if (fabs(c->att[i] - ref[i]) > worst) worst = fabs(c->att[i] - ref[i]);
        CHECK(worst < 1e-4, "%s: max |out - ref| = %g", lk_kv_policy_name((lk_kv_policy)P), worst);
        if (reuse) CHECK(n_reused > 5 && n_reused < PT - PB - 5, "reuse happened %d times (the case does not exercise it)", n_reused);
        printf("  %-12s%s max |out - ref| %.2g\n", lk_kv_policy_name((lk_kv_policy)P), reuse ? " (reuse)" : "", worst);
        if (reuse) printf("  tokenselect reused its selection at %d of %d steps\n", n_reused, PT - PB);
        lk_context_free(c);
    }
    lk_t_end();
}

int main(void) {
    static float full[256 * V], tmp[256 * V], tmp2[256 * V];
    const char *mp;
    lk_rng_seed(&R, 99);
    mp = lk_t_fixture("stories260K/stories260K-F32.gguf");
    if (!mp || lk_model_load_file(mp, NULL, &M)) {
        const char *names[] = { "chunked", "packed", "policies", "kv types (model)", "kv rotate", "prefix cache", "policy references" };
        int i;
        for (i = 0; i < 7; i++) lk_t_skip(names[i], "fixtures absent");
        return lk_t_exit();
    }
    {   /* a token stream: the model's own tokenization of the test text, else a fixed pattern */
        const char *tp = "tests/data/stories.txt";
        size_t len = 0;
        unsigned char *txt = lk_t_read_file(tp, &len);
        NTOK = 0;
        if (txt && lk_model_vocab(M)) NTOK = lk_tokenize(lk_model_vocab(M), (const char *)txt, (int)(len > 4000 ? 4000 : len), TOK, 4096, 1, 0);
        if (NTOK < 256) { int i; for (i = 0; i < 400; i++) TOK[i] = 1 + (i * 37) % 500; NTOK = 400; }
        free(txt);
    }
    test_chunked(full, tmp);
    test_packed(tmp);
    test_policies(full, tmp);
    test_kv_types_model(full, tmp);
    test_rotate(tmp, tmp2);
    test_prefix();
    test_policy_ref();
    lk_model_free(M);
    return lk_t_exit();
}
