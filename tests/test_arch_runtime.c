/* The runtime features on the architectures of issue 32 (item 6), on the
 * random-weight models of test_model.c's generator (tools/gen_arch_fixtures.py
 * number for number; test_model.c checks them against llama.cpp). For each
 * (architecture, feature) the feature either works, checked against an
 * independent reference, or is refused with a status and a message naming
 * the feature (the rows' `refuse` column):
 *   paths    two sequences interleaved in lk_decode_batch (paged KV, pages of
 *            8, past the window of 16), split-KV and tiles = each sequence
 *            alone, one token at a time (test_model.c's check_gen_paths);
 *   spec     greedy speculative decoding (draft = tree with the model as its
 *            own draft, recycle, lookup) = plain greedy decoding, 20 tokens;
 *   tree     lk_decode_tree of 7 nodes after 18 tokens: each node's logits
 *            = sequential decoding of its root path (max|d| <= 1e-5 M, same
 *            argmax); after lk_context_tree_commit the next token's too;
 *   prefix   lk_context_state_save after 20 tokens, load into a new context,
 *            6 more tokens = one context that decoded all 26 (bit for bit);
 *   kv       f16, q8_0, q4_0, zip4 and rotated q8_0 caches against the f32
 *            cache over 30 tokens: max|d| / M at the median position and at
 *            every position within the type's tolerances (measured at
 *            up to 0.6 of them: glm4 q4_0 and zip4, gpt-oss q4_0 at max);
 *   policy   every KV policy with a budget >= the context = full attention
 *            bit for bit; with a budget of 16 rows (of 30) finite logits;
 *   server   one POST /completion (8 prompt token ids, 16 tokens at
 *            temperature 0) through examples/server.c's own connection
 *            handler and engine thread (its paged pool of 2 x 2 sequences),
 *            over a socket pair: the reply's text = plain greedy decoding's.
 * M = max(1, max |logit|) of the reference position.
 * Later architectures: one row in rt_rows (the gen_archs label of
 * test_model.c, and the features it refuses with the word its message
 * must carry). A label as the argument runs that row only. */
#define LK_SERVER_NO_MAIN          /* the server's handler and engine, without its main */
#include "examples/server.c"
#define main lk_t_test_model_main   /* the generator is test_model.c's; its main is not used */
#include "tests/test_model.c"
#undef main

#define RT_N 30   /* tokens per sequence */

enum { RT_PATHS = 1, RT_SPEC = 2, RT_TREE = 4, RT_PREFIX = 8, RT_KV = 16, RT_POLICY = 32, RT_SERVER = 64 };
typedef struct rt_row {
    const char *label;   /* a gen_archs row of test_model.c */
    unsigned refuse;     /* RT_* features this architecture refuses ... */
    const char *says;    /* ... with this word in the message */
    unsigned kv_ok, pol_ok;   /* ... but for these KV types (bit k of rt_kv's list)
                               * and policies (bit lk_kv_policy), which work */
    double kv_tol;            /* the KV types' tolerances times this (0: 1) */
    unsigned spec_ok;         /* with RT_SPEC: the speculative modes (bit k of
                               * rt_spec's list) that work all the same */
} rt_row;
static const rt_row rt_rows[] = {
    { "smollm3", 0, NULL, 0, 0, 0, 0 },
    { "mistral3", 0, NULL, 0, 0, 0, 0 },
    { "glm4", 0, NULL, 0, 0, 0, 0 },
    { "gpt-oss", 0, NULL, 0, 0, 0, 0 },
    /* its rotated q8_0 cache reaches 0.13 M at one position (median 6e-3) */
    { "glm4moe", 0, NULL, 0, 0, 2.5, 0 },
    { "llama4", 0, NULL, 0, 0, 0, 0 },
    /* the latent cache: f32 or f16 rows, the full or streaming policy */
    { "deepseek2", RT_KV | RT_POLICY, "latent", 1u << 0, 1u << LK_KV_STREAMING, 0, 0 },
    /* shared KV layers: the full cache only. Its attention is unscaled (scale
     * 1 over RMS-normed q and k: scores about 8x gemma3's), so a rounded
     * cache moves its logits 4-5x more (f16: 3.4e-3 M at the median, q8_0
     * 6.4e-2; llama.cpp's own f16 / q8_0 caches not yet measured beside it) */
    { "gemma4", RT_POLICY, "shared KV", 0, 0, 5.0, 0 },
    /* per-layer head sizes (window layers 4 KV heads of 32, full layers 1 of
     * 64, cache rows of the widest): the full cache, without zip, only; the
     * other KV types and the saved state work */
    { "gemma4-sizes", RT_KV | RT_POLICY, "per-layer head sizes", 0x17, 0, 5.0, 0 },
    /* lfm2 (issue 33): short-conv layers keep one state per context, so
     * sequences (lk_decode_batch: the paths, the server's pool), token trees
     * (lk_decode_tree takes chains only), KV policies but full and the zip
     * format are refused naming its recurrent layers; speculative decoding
     * with chains (draft, lookup) works through the state's rollback, the
     * tree-building modes (tree, recycle) are refused; the saved state
     * carries the conv state */
    { "lfm2", RT_PATHS | RT_SPEC | RT_TREE | RT_KV | RT_POLICY | RT_SERVER, "recurrent layers", 0x17, 0, 0, 0x9 },
    /* mamba2 (no attention at all) and granitehybrid (Mamba 2 layers beside
     * attention): as lfm2, their state a conv ring and the scan's snapshots
     * (granitehybrid's recycled drafts all come out as chains, so recycle
     * runs through the rollback and must equal plain greedy too) */
    { "mamba2", RT_PATHS | RT_SPEC | RT_TREE | RT_KV | RT_POLICY | RT_SERVER, "recurrent layers", 0x17, 0, 0, 0x9 },
    { "granitehybrid", RT_PATHS | RT_SPEC | RT_TREE | RT_KV | RT_POLICY | RT_SERVER, "recurrent layers", 0x17, 0, 0, 0xd },
    /* qwen35 (issue 33): its gated delta-net layers keep one state per
     * context (conv ring and matrix snapshots), refused and working as lfm2's */
    { "qwen35", RT_PATHS | RT_SPEC | RT_TREE | RT_KV | RT_POLICY | RT_SERVER, "recurrent layers", 0x17, 0, 0, 0x9 },
    /* qwen35moe: as qwen35; its q8_0 cache reaches 0.15 M at one position
     * (median 6.6e-3: a top-2 choice among 4 experts that the cache's
     * rounding flips there), so the KV tolerances x 3 */
    { "qwen35moe", RT_PATHS | RT_SPEC | RT_TREE | RT_KV | RT_POLICY | RT_SERVER, "recurrent layers", 0x17, 0, 3.0, 0x9 },
};

static lk_context *rt_ctx(const lk_model *m, lk_context_params cp) {
    lk_context *c = NULL;
    if (lk_context_new(m, &cp, &c)) { printf("  context: %s\n", lk_last_error()); return NULL; }
    return c;
}
static lk_context_params rt_params(void) {
    lk_context_params cp = lk_context_default_params();
    cp.n_ctx = 64; cp.n_threads = 2; cp.kv_type = LK_TYPE_F32;
    return cp;
}
/* logits of every position of toks[n], one lk_decode with logits_all; NULL on failure */
static float *rt_all(const lk_model *m, lk_context_params cp, const lk_token *toks, int n) {
    const int V = lk_model_n_vocab(m);
    lk_context *c;
    float *out;
    int k;
    cp.logits_all = 1; cp.n_batch = n;
    if (!(c = rt_ctx(m, cp))) return NULL;
    out = (float *)malloc(sizeof(float) * (size_t)n * V);
    if (lk_decode(c, toks, n)) { printf("  decode: %s\n", lk_last_error()); free(out); lk_context_free(c); return NULL; }
    for (k = 0; k < n; k++) memcpy(out + (size_t)k * V, lk_logits(c, k), sizeof(float) * V);
    lk_context_free(c);
    return out;
}
static double rt_scale(const float *w, int V) {
    double mx = 1.0;
    int i;
    for (i = 0; i < V; i++) if (fabs(w[i]) > mx) mx = fabs(w[i]);
    return mx;
}
static int rt_finite(const float *l, int V) {
    int i;
    for (i = 0; i < V; i++) if (!(l[i] - l[i] == 0.0f)) return 0;
    return 1;
}

/* greedy speculative decoding in each mode = plain greedy decoding */
static void rt_spec(const lk_model *m, const unsigned char *buf, size_t len, const rt_row *r) {
    static const lk_spec_mode modes[] = { LK_SPEC_DRAFT, LK_SPEC_TREE, LK_SPEC_RECYCLE, LK_SPEC_LOOKUP };
    enum { NP = 8, NG = 20 };
    lk_token ref[NG], out[NG + 64];
    size_t mi;
    int ok = gen_greedy(buf, len, NP, ref, NG);
    CHECK(ok, "plain greedy decoding failed: %s", lk_last_error());
    for (mi = 0; ok && mi < sizeof modes / sizeof modes[0]; mi++) {
        lk_context_params cp = rt_params();
        lk_sampler_params sp = lk_sampler_default_params();
        lk_spec_params pp = lk_spec_default_params();
        lk_context *t, *d = NULL;
        lk_sampler *s = NULL;
        lk_spec *x = NULL;
        lk_status st = LK_OK;
        int k = 0, i, got, same = 0;
        cp.n_tree = 33;
        t = rt_ctx(m, cp);
        if (modes[mi] == LK_SPEC_DRAFT || modes[mi] == LK_SPEC_TREE) d = rt_ctx(m, cp);
        sp.temperature = 0.0f; sp.n_vocab = lk_model_n_vocab(m);
        pp.mode = modes[mi];
        if (!t || lk_sampler_new(&sp, &s)) { CHECK(0, "setup: %s", lk_last_error()); lk_context_free(t); lk_context_free(d); continue; }
        st = lk_spec_new(t, d, s, &pp, &x);
        if (!st) st = lk_spec_begin(x, seq, NP, &out[0]);
        for (k = 1; !st && k < NG;) {
            lk_token b[64];
            st = lk_spec_step(x, b, 64, &got);
            for (i = 0; !st && i < got; i++) out[k++] = b[i];
        }
        if ((r->refuse & RT_SPEC) && !(r->spec_ok >> mi & 1))
            CHECK(st == LK_ERR_UNSUPPORTED && strstr(lk_last_error(), r->says), "%s: status %d, '%s'", lk_spec_mode_name(modes[mi]), (int)st, lk_last_error());
        else {
            for (i = 0; !st && i < NG && out[i] == ref[i]; i++) same++;
            printf("  %-8s %d of %d tokens equal to plain greedy decoding\n", lk_spec_mode_name(modes[mi]), same, NG);
            CHECK(!st && same == NG, "%s: status %d (%s), first difference at token %d", lk_spec_mode_name(modes[mi]), (int)st, st ? lk_last_error() : "", same);
        }
        lk_spec_free(x); lk_sampler_free(s); lk_context_free(t); lk_context_free(d);
    }
}

/* a token tree after 8 tokens: node logits = sequential decoding of the root path */
static void rt_tree(const lk_model *m, const rt_row *r) {
    enum { NP = 18, NN = 7 };   /* the deepest node at position 21: past gpt-oss's window of 16 */
    static const int parents[NN] = { -1, 0, 0, 1, -1, 4, 3 };
    const int V = lk_model_n_vocab(m);
    lk_token nodes[NN], path[NP + NN];
    lk_context_params cp = rt_params();
    lk_context *c;
    lk_status st;
    int i, bits = 0, bad = 0;
    double worst = 0.0;
    for (i = 0; i < NN; i++) nodes[i] = seq[(i * 5 + 11) % nseq];
    cp.n_tree = 16;
    if (!(c = rt_ctx(m, cp)) || lk_decode(c, seq, NP)) { CHECK(0, "prompt: %s", lk_last_error()); lk_context_free(c); return; }
    st = lk_decode_tree(c, nodes, parents, NN);
    if (r->refuse & RT_TREE) {
        CHECK(st == LK_ERR_UNSUPPORTED && strstr(lk_last_error(), r->says), "status %d, '%s'", (int)st, lk_last_error());
        lk_context_free(c);
        return;
    }
    CHECK(st == LK_OK, "lk_decode_tree: %s", lk_last_error());
    for (i = 0; !st && i < NN; i++) {   /* the root path of node i, then the prompt + path in one context */
        int depth = 0, j, ok;
        float *ref;
        for (j = i; j >= 0; j = parents[j]) depth++;
        memcpy(path, seq, sizeof(lk_token) * NP);
        for (j = i; j >= 0; j = parents[j]) path[NP + --depth] = nodes[j];
        for (j = i, depth = 0; j >= 0; j = parents[j]) depth++;
        ref = rt_all(m, rt_params(), path, NP + depth);
        ok = ref != NULL;
        if (ok) {
            const float *w = ref + (size_t)(NP + depth - 1) * V, *g = lk_logits(c, i);
            double d = lk_t_maxdiff(g, w, (size_t)V) / rt_scale(w, V);
            if (d > worst) worst = d;
            bits += memcmp(g, w, sizeof(float) * V) == 0;
            bad += d > 1e-5 || lk_t_argmax(g, V) != lk_t_argmax(w, V);
        }
        CHECK(ok, "reference for node %d: %s", i, lk_last_error());
        free(ref);
    }
    if (!st) {   /* keep the path 0 -> 1 -> 3 -> 6, then one more token */
        static const int keep[4] = { 0, 1, 3, 6 };
        lk_token nx = seq[3], full[NP + 5];
        float *ref;
        memcpy(full, seq, sizeof(lk_token) * NP);
        for (i = 0; i < 4; i++) full[NP + i] = nodes[keep[i]];
        full[NP + 4] = nx;
        CHECK_OK(lk_context_tree_commit(c, keep, 4));
        CHECK(lk_context_n_past(c) == NP + 4, "n_past %d after the commit", lk_context_n_past(c));
        CHECK_OK(lk_decode(c, &nx, 1));
        ref = rt_all(m, rt_params(), full, NP + 5);
        if (ref && lk_logits(c, -1)) {
            const float *w = ref + (size_t)(NP + 4) * V;
            double d = lk_t_maxdiff(lk_logits(c, -1), w, (size_t)V) / rt_scale(w, V);
            if (d > worst) worst = d;
            bad += d > 1e-5;
        }
        CHECK(ref != NULL, "reference after the commit");
        free(ref);
    }
    printf("  %d nodes: %d bit-identical to sequential decoding, max|d| / M %.2e (nodes and the token after the commit)\n", NN, bits, worst);
    CHECK(bad == 0, "%d node(s) (or the token after the commit) differ from sequential decoding by more than 1e-5 M or in argmax", bad);
    lk_context_free(c);
}

/* prefix save after 20 tokens, load into a new context, 6 more = all 26 in one context */
static void rt_prefix(const lk_model *m, const rt_row *r) {
    enum { NA = 20, NB = 6 };
    const int V = lk_model_n_vocab(m);
    lk_context_params cp = rt_params();
    lk_context *a = rt_ctx(m, cp), *b = rt_ctx(m, cp), *full = rt_ctx(m, cp);
    void *state = NULL;
    size_t sz = 0;
    lk_status st;
    st = a && b && full ? lk_decode(a, seq, NA) : LK_ERR_INVALID_ARG;
    if (!st) st = lk_context_state_save(a, NULL, 0, &sz);
    if (!st) { state = malloc(sz); st = lk_context_state_save(a, state, sz, &sz); }
    if (r->refuse & RT_PREFIX) CHECK(st == LK_ERR_UNSUPPORTED && strstr(lk_last_error(), r->says), "save: status %d, '%s'", (int)st, lk_last_error());
    else {
        CHECK(st == LK_OK, "save: %s", lk_last_error());
        if (!st) {
            CHECK_OK(lk_context_state_load(b, state, sz));
            CHECK(lk_context_n_past(b) == NA, "n_past %d after the load", lk_context_n_past(b));
            CHECK_OK(lk_decode(b, seq + NA, NB));
            CHECK_OK(lk_decode(full, seq, NA));
            CHECK_OK(lk_decode(full, seq + NA, NB));
            CHECK(lk_logits(b, -1) && lk_logits(full, -1) && memcmp(lk_logits(b, -1), lk_logits(full, -1), sizeof(float) * V) == 0,
                  "the loaded prefix's next logits differ from decoding all %d tokens", NA + NB);
            printf("  %zu bytes of state for %d tokens; the last of %d more tokens bit-identical to one context\n", sz, NA, NB);
        }
    }
    free(state);
    lk_context_free(a); lk_context_free(b); lk_context_free(full);
}

/* quantized and rotated KV caches against the f32 cache */
static void rt_kv(const lk_model *m, const rt_row *r) {
    static const struct { const char *name; lk_type type; int zip, rot; double med, max; } kv[] = {
        { "f16", LK_TYPE_F16, 0, 0, 1e-3, 3e-3 }, { "q8_0", LK_TYPE_Q8_0, 0, 0, 1.5e-2, 6e-2 }, { "q4_0", LK_TYPE_Q4_0, 0, 0, 0.25, 0.5 },
        { "zip4", LK_TYPE_F16, 4, 0, 0.25, 0.5 }, { "q8_0 rotated", LK_TYPE_Q8_0, 0, 1, 1.5e-2, 6e-2 },
    };
    const int V = lk_model_n_vocab(m);
    const double tol = r->kv_tol > 0.0 ? r->kv_tol : 1.0;
    float *ref = rt_all(m, rt_params(), seq, RT_N);
    size_t k;
    CHECK(ref != NULL, "the f32 cache run: %s", lk_last_error());
    for (k = 0; ref && k < sizeof kv / sizeof kv[0]; k++) {
        lk_context_params cp = rt_params();
        float *got;
        double d[RT_N], worst = 0.0, med;
        int p, bad = 0;
        cp.kv_type = kv[k].type; cp.kv_zip_bits = kv[k].zip; cp.kv_zip_window = 8; cp.kv_rotate = kv[k].rot;
        got = rt_all(m, cp, seq, RT_N);
        if ((r->refuse & RT_KV) && !(r->kv_ok >> k & 1)) { CHECK(!got && strstr(lk_last_error(), r->says), "%s: '%s'", kv[k].name, lk_last_error()); free(got); continue; }
        CHECK(got != NULL, "%s: %s", kv[k].name, lk_last_error());
        if (!got) continue;
        for (p = 0; p < RT_N; p++) {
            const float *g = got + (size_t)p * V, *w = ref + (size_t)p * V;
            d[p] = lk_t_maxdiff(g, w, (size_t)V) / rt_scale(w, V);
            if (d[p] > worst) worst = d[p];
            bad += !rt_finite(g, V);
        }
        med = lk_t_median(d, RT_N);
        printf("  kv %-13s max|d| / M: median %.2e, max %.2e (tolerances %.1e, %.1e)\n", kv[k].name, med, worst, kv[k].med * tol, kv[k].max * tol);
        CHECK(bad == 0 && med <= kv[k].med * tol && worst <= kv[k].max * tol, "kv %s: %d non-finite positions, or max|d| / M beyond the tolerances", kv[k].name, bad);
        free(got);
    }
    free(ref);
}

/* every KV policy: a budget >= the context is full attention bit for bit; 16 rows give finite logits */
static void rt_policy(const lk_model *m, const rt_row *r) {
    const int V = lk_model_n_vocab(m);
    float *ref = rt_all(m, rt_params(), seq, RT_N);
    int pol, b;
    CHECK(ref != NULL, "the full-attention run: %s", lk_last_error());
    for (pol = 1; ref && pol < LK_KV_POLICY_COUNT; pol++)
        for (b = 0; b < 2; b++) {
            lk_context_params cp = rt_params();
            float *got;
            int p, fin = 1;
            cp.kv_policy = lk_kv_policy_default_params();
            cp.kv_policy.policy = (lk_kv_policy)pol;
            cp.kv_policy.budget = b ? 16 : 64;
            cp.kv_policy.top_p = b ? 0.95f : 1.0f;
            cp.kv_policy.page_size = 8;
            if (!b && pol == LK_KV_TOKENSELECT) cp.kv_policy.recent = 64;
            got = rt_all(m, cp, seq, RT_N);
            if ((r->refuse & RT_POLICY) && !(r->pol_ok >> pol & 1)) {
                CHECK(!got && strstr(lk_last_error(), r->says), "%s: '%s'", lk_kv_policy_name((lk_kv_policy)pol), lk_last_error());
                free(got);
                continue;
            }
            CHECK(got != NULL, "%s budget %d: %s", lk_kv_policy_name((lk_kv_policy)pol), cp.kv_policy.budget, lk_last_error());
            for (p = 0; got && p < RT_N; p++) fin &= rt_finite(got + (size_t)p * V, V);
            if (got && !b) CHECK(memcmp(got, ref, sizeof(float) * (size_t)RT_N * V) == 0, "%s with budget 64 differs from full attention", lk_kv_policy_name((lk_kv_policy)pol));
            if (got && b) CHECK(fin, "%s budget 16: non-finite logits", lk_kv_policy_name((lk_kv_policy)pol));
            free(got);
        }
    free(ref);
}

/* one completion request through the server's connection handler and engine */
static void rt_server(lk_model *m, const unsigned char *buf, size_t len, const rt_row *r) {
    enum { NP = 8, NG = 16 };
    lk_token ref[NG];
    lk_context_params cp = rt_params();
    pthread_t eng, th;
    conn *cn = (conn *)malloc(sizeof *cn);
    sbuf want, q;
    char reply[8192], piece[256];
    int sv[2], k, got = 0, n;
    memset(&want, 0, sizeof want); memset(&q, 0, sizeof q);
    CHECK(gen_greedy(buf, len, NP, ref, NG), "plain greedy decoding failed: %s", lk_last_error());
    g_m = m; g_v = lk_model_vocab(m); g_tmpl = "chatml"; g_np = 2; g_slot_ctx = 48; g_budget = 64; g_quit = 0;
    g_n_eot = 0; g_n_queued = g_n_active = g_n_conn = 0; g_qhead = g_qtail = NULL;
    cp.n_seq_max = 2 * g_np; cp.kv_page = 16; cp.n_ctx = g_np * 48; cp.n_batch = g_budget; cp.kv_type = LK_TYPE_F16;
    if (lk_context_new(g_m, &cp, &g_c)) {
        if (r->refuse & RT_SERVER) CHECK(strstr(lk_last_error(), r->says) != NULL, "'%s'", lk_last_error());
        else CHECK(0, "the server's context: %s", lk_last_error());
        free(cn);
        return;
    }
    g_free_rows = lk_seq_free_rows(g_c);
    g_active = (req **)calloc((size_t)g_np, sizeof *g_active);
    g_cache = (cached *)calloc((size_t)g_np, sizeof *g_cache);
    g_n_cache = 0;
    sb_puts(&q, "{\"prompt\":[");
    for (k = 0; k < NP; k++) sb_printf(&q, "%s%d", k ? "," : "", (int)seq[k]);
    sb_printf(&q, "],\"n_predict\":%d,\"temperature\":0,\"repeat_penalty\":1,\"cache_prompt\":false}", NG);
    n = snprintf(reply, sizeof reply, "POST /completion HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %zu\r\n\r\n%s", q.n, q.p);
    CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0 && pthread_create(&eng, NULL, engine_main, NULL) == 0, "socket pair or engine thread");
    cn->fd = sv[1]; g_n_conn = 1;
    CHECK(write(sv[0], reply, (size_t)n) == n && pthread_create(&th, NULL, conn_main, cn) == 0, "request");
    while (got < (int)sizeof reply - 1 && (n = (int)read(sv[0], reply + got, sizeof reply - 1 - (size_t)got)) > 0) got += n;
    reply[got] = 0;
    pthread_join(th, NULL);
    pthread_mutex_lock(&g_mu); g_quit = 1; pthread_cond_signal(&g_engine_cv); pthread_mutex_unlock(&g_mu);
    pthread_join(eng, NULL);
    close(sv[0]);
    /* the expected text: greedy tokens' pieces up to an end token, as the reply's JSON string */
    {
        sbuf txt;
        memset(&txt, 0, sizeof txt);
        for (k = 0; k < NG && !is_end(ref[k]); k++) { n = token_piece(ref[k], piece, (int)sizeof piece, 0); if (n > 0) sb_put(&txt, piece, (size_t)n); }
        sb_puts(&want, "\"text\":");
        sb_json_str(&want, txt.p ? txt.p : "", txt.n);
        free(txt.p);
    }
    if (r->refuse & RT_SERVER) CHECK(strstr(reply, r->says) != NULL, "reply: %.300s", reply);
    else {
        printf("  POST /completion: %d reply bytes, %s\n", got, strstr(reply, want.p) ? "its text = plain greedy decoding's" : "its text differs");
        CHECK(!strncmp(reply, "HTTP/1.1 200", 12) && strstr(reply, want.p) != NULL, "reply %.400s\n    want %s", reply, want.p);
    }
    while (g_n_cache > 0) cache_drop(0);
    free(want.p); free(q.p); free(g_active); free(g_cache);
    lk_context_free(g_c); g_c = NULL;
}

int main(int argc, char **argv) {   /* argv[1]: one row's label only (default: every row) */
    size_t i, j;
    if (!(nseq = lk_t_read_seq_a(seq, MAXT)) || !lk_t_fixture("stories260K/stories260K-F32.gguf")) {
        lk_t_skip("arch runtime", "fixtures absent (../shared/fixtures: seq A, stories260K's vocabulary)");
        return lk_t_exit();
    }
    for (i = 0; i < sizeof rt_rows / sizeof rt_rows[0]; i++) {
        const rt_row *r = &rt_rows[i];
        const gen_arch *a = NULL;
        unsigned char *buf = NULL;
        size_t len = 0;
        lk_model *m = NULL;
        char name[160];
        if (argc > 1 && strcmp(argv[1], r->label)) continue;
        for (j = 0; j < sizeof gen_archs / sizeof gen_archs[0]; j++) if (!strcmp(gen_archs[j].label, r->label)) a = &gen_archs[j];
        snprintf(name, sizeof name, "runtime %s: the generated model", r->label);
        lk_t_begin(name);
        CHECK(a != NULL, "no gen_archs row '%s' in test_model.c", r->label);
        if (a) buf = gen_model(a, &len);
        CHECK(buf && !lk_model_load_memory(buf, len, NULL, &m), "build or load: %s", lk_last_error());
        lk_t_end();
        if (!m) { free(buf); continue; }
        if (r->refuse & RT_PATHS) {
            snprintf(name, sizeof name, "runtime %s: paged sequences refused naming %s", r->label, r->says);
            lk_t_begin(name);
            {
                lk_context_params cp = rt_params();
                lk_context *c = NULL;
                cp.n_seq_max = 2; cp.kv_page = 8;
                CHECK(lk_context_new(m, &cp, &c) == LK_ERR_UNSUPPORTED && strstr(lk_last_error(), r->says), "'%s'", lk_last_error());
                lk_context_free(c);
            }
            lk_t_end();
        } else check_gen_paths(a, buf, len);
#define RT_CASE(what, call) do { snprintf(name, sizeof name, "runtime %s: %s", r->label, what); lk_t_begin(name); call; lk_t_end(); } while (0)
        RT_CASE("speculative decoding (draft, tree, recycle, lookup) = plain greedy", rt_spec(m, buf, len, r));
        RT_CASE("token tree = sequential decoding of each root path", rt_tree(m, r));
        RT_CASE("prefix save + load = recompute", rt_prefix(m, r));
        RT_CASE("KV types f16, q8_0, q4_0, zip4, rotated within tolerance of f32", rt_kv(m, r));
        RT_CASE("KV policies: full budget = full attention, small budget finite", rt_policy(m, r));
        RT_CASE("server: POST /completion through examples/server.c's handler = plain greedy", rt_server(m, buf, len, r));
#undef RT_CASE
        lk_model_free(m);
        free(buf);
    }
    return lk_t_exit();
}
