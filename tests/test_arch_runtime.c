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
    /* lfm2 (issue 33): short-conv layers keep a state per context or per
     * sequence (lk_decode_batch: the paths, the server's pool, and the
     * recurrent checks below); token trees (lk_decode_tree takes chains
     * only), KV policies but full and the zip format are refused naming its
     * recurrent layers; speculative decoding with chains (draft, lookup)
     * works through the state's rollback, the tree-building modes (tree,
     * recycle) are refused; the saved state carries the conv state */
    { "lfm2", RT_SPEC | RT_TREE | RT_KV | RT_POLICY, "recurrent layers", 0x17, 0, 0, 0x9 },
    /* mamba2 (no attention at all) and granitehybrid (Mamba 2 layers beside
     * attention): as lfm2 (a state per sequence too), their state a conv ring and the scan's snapshots
     * (granitehybrid's recycled drafts all come out as chains, so recycle
     * runs through the rollback and must equal plain greedy too) */
    { "mamba2", RT_SPEC | RT_TREE | RT_KV | RT_POLICY, "recurrent layers", 0x17, 0, 0, 0x9 },
    { "granitehybrid", RT_SPEC | RT_TREE | RT_KV | RT_POLICY, "recurrent layers", 0x17, 0, 0, 0xd },
    /* qwen35 (issue 33): its gated delta-net layers keep a state per
     * context or sequence (conv ring and matrix snapshots), refused and working as lfm2's */
    { "qwen35", RT_SPEC | RT_TREE | RT_KV | RT_POLICY, "recurrent layers", 0x17, 0, 0, 0x9 },
    /* qwen35moe: as qwen35; its q8_0 cache reaches 0.15 M at one position
     * (median 6.6e-3: a top-2 choice among 4 experts that the cache's
     * rounding flips there), so the KV tolerances x 3 */
    { "qwen35moe", RT_SPEC | RT_TREE | RT_KV | RT_POLICY, "recurrent layers", 0x17, 0, 3.0, 0x9 },
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

/* one request through the server's connection handler (the engine thread
 * running), over a socket pair; the reply (NUL-terminated) into reply[cap] */
static int rt_request(const char *body, size_t nb, char *reply, int cap) {
    conn *cn = (conn *)malloc(sizeof *cn);
    pthread_t th;
    char head[256];
    int sv[2], got = 0, n = snprintf(head, sizeof head, "POST /completion HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %zu\r\n\r\n", nb);
    if (!cn || socketpair(AF_UNIX, SOCK_STREAM, 0, sv)) { free(cn); return 0; }
    cn->fd = sv[1];
    pthread_mutex_lock(&g_mu); g_n_conn++; pthread_mutex_unlock(&g_mu);
    if (write(sv[0], head, (size_t)n) != n || write(sv[0], body, nb) != (ssize_t)nb || pthread_create(&th, NULL, conn_main, cn)) { close(sv[0]); close(sv[1]); free(cn); return 0; }
    while (got < cap - 1 && (n = (int)read(sv[0], reply + got, (size_t)(cap - 1 - got))) > 0) got += n;
    reply[got] = 0;
    pthread_join(th, NULL);
    close(sv[0]);
    return got;
}
/* the JSON "text" member greedy tokens ref[0, n) give, up to an end token */
static void rt_want(sbuf *want, const lk_token *ref, int n) {
    sbuf txt;
    char piece[256];
    int k, l;
    memset(&txt, 0, sizeof txt);
    for (k = 0; k < n && !is_end(ref[k]); k++) { l = token_piece(ref[k], piece, (int)sizeof piece, 0); if (l > 0) sb_put(&txt, piece, (size_t)l); }
    want->n = 0;
    sb_puts(want, "\"text\":");
    sb_json_str(want, txt.p ? txt.p : "", txt.n);
    free(txt.p);
}
/* one completion request through the server's connection handler and
 * engine; recurrent layers also: the prompt cache (cache_prompt) reuses a
 * cached sequence within n_rs_seq of its end (= greedy, its prefix counted
 * in g_reused) and computes the prompt anew beyond it (= greedy) */
static void rt_server(lk_model *m, const unsigned char *buf, size_t len, const rt_row *r) {
    enum { NP = 8, NG = 16, NP2 = 5 };
    lk_token ref[NG], ref2[NG];
    lk_context_params cp = rt_params();
    pthread_t eng;
    sbuf want, q;
    char reply[8192];
    int k, got;
    memset(&want, 0, sizeof want); memset(&q, 0, sizeof q);
    CHECK(gen_greedy(buf, len, NP, ref, NG) && gen_greedy(buf, len, NP2, ref2, NG), "plain greedy decoding failed: %s", lk_last_error());
    g_m = m; g_v = lk_model_vocab(m); g_tmpl = "chatml"; g_np = 2; g_slot_ctx = 48; g_budget = 64; g_quit = 0;
    g_n_eot = 0; g_n_queued = g_n_active = g_n_conn = 0; g_qhead = g_qtail = NULL;
    cp.n_seq_max = 2 * g_np; cp.kv_page = 16; cp.n_ctx = g_np * 48; cp.n_batch = g_budget; cp.kv_type = LK_TYPE_F16;
    if (lk_context_new(g_m, &cp, &g_c)) {
        if (r->refuse & RT_SERVER) CHECK(strstr(lk_last_error(), r->says) != NULL, "'%s'", lk_last_error());
        else CHECK(0, "the server's context: %s", lk_last_error());
        return;
    }
    g_rs_back = lk_model_hparams(m)->n_layer_rec > 0 ? cp.n_rs_seq : INT_MAX; g_reused = 0;
    g_free_rows = lk_seq_free_rows(g_c);
    g_active = (req **)calloc((size_t)g_np, sizeof *g_active);
    g_cache = (cached *)calloc((size_t)g_np, sizeof *g_cache);
    g_n_cache = 0;
    sb_puts(&q, "{\"prompt\":[");
    for (k = 0; k < NP; k++) sb_printf(&q, "%s%d", k ? "," : "", (int)seq[k]);
    sb_printf(&q, "],\"n_predict\":%d,\"temperature\":0,\"repeat_penalty\":1,\"cache_prompt\":false}", NG);
    CHECK(pthread_create(&eng, NULL, engine_main, NULL) == 0, "engine thread");
    got = rt_request(q.p, q.n, reply, (int)sizeof reply);
    rt_want(&want, ref, NG);
    if (r->refuse & RT_SERVER) CHECK(strstr(reply, r->says) != NULL, "reply: %.300s", reply);
    else {
        printf("  POST /completion: %d reply bytes, %s\n", got, strstr(reply, want.p) ? "its text = plain greedy decoding's" : "its text differs");
        CHECK(!strncmp(reply, "HTTP/1.1 200", 12) && strstr(reply, want.p) != NULL, "reply %.400s\n    want %s", reply, want.p);
    }
    if (!(r->refuse & RT_SERVER) && lk_model_hparams(m)->n_layer_rec > 0) {
        static const int npred[3] = { 4, NG, NG };
        int i, n_c = 0;
        long long reused[3];
        for (i = 0; i < 3; i++) {   /* 4 tokens, cached; the same prompt again (its cached end 4 back: reused); the first NP2 tokens (beyond: anew) */
            q.n = 0;
            sb_puts(&q, "{\"prompt\":[");
            for (k = 0; k < (i == 2 ? NP2 : NP); k++) sb_printf(&q, "%s%d", k ? "," : "", (int)seq[k]);
            sb_printf(&q, "],\"n_predict\":%d,\"temperature\":0,\"repeat_penalty\":1,\"cache_prompt\":true}", npred[i]);
            if (i == 2) {   /* the cached sequence holds NP + NG - 1 tokens unless an end token came first */
                pthread_mutex_lock(&g_mu);
                for (k = 0; k < g_n_cache; k++) if (g_cache[k].n > n_c) n_c = g_cache[k].n;
                pthread_mutex_unlock(&g_mu);
            }
            got = rt_request(q.p, q.n, reply, (int)sizeof reply);
            pthread_mutex_lock(&g_mu); reused[i] = g_reused; pthread_mutex_unlock(&g_mu);
            rt_want(&want, i == 2 ? ref2 : ref, npred[i]);
            CHECK(!strncmp(reply, "HTTP/1.1 200", 12) && strstr(reply, want.p) != NULL, "cached request %d: reply %.400s\n    want %s", i, reply, want.p);
        }
        printf("  cache_prompt: prompt tokens reused %lld, %lld, %lld (the cached end 4 back: %d; %d back: 0, computed anew)\n", reused[0], reused[1] - reused[0],
               reused[2] - reused[1], NP - 1, n_c - (NP2 - 1));
        CHECK(reused[0] == 0 && reused[1] - reused[0] == NP - 1 && reused[2] == reused[1], "prompt tokens reused: %lld, %lld, %lld", reused[0], reused[1] - reused[0],
              reused[2] - reused[1]);
        CHECK(n_c - (NP2 - 1) > cp.n_rs_seq, "the third request's prefix is %d tokens back: within n_rs_seq %d, the test checks nothing", n_c - (NP2 - 1), cp.n_rs_seq);
    }
    pthread_mutex_lock(&g_mu); g_quit = 1; pthread_cond_signal(&g_engine_cv); pthread_mutex_unlock(&g_mu);
    pthread_join(eng, NULL);
    while (g_n_cache > 0) cache_drop(0);
    free(want.p); free(q.p); free(g_active); free(g_cache);
    lk_context_free(g_c); g_c = NULL;
}

/* ---- recurrent layers in many sequences (issue 33 item 4) ----
 * Rows whose model has recurrent layers: each sequence of a context with
 * n_seq_max > 0 keeps its own state (rings, snapshots), so every check is
 * against a plain context (lk_decode) that ran the same tokens alone, in the
 * same chunks, bit for bit:
 *   random    5 sequences, random prompt chunks and greedy steps interleaved
 *             at random in lk_decode_batch (several forwards when a batch
 *             passes n_batch), some sequences taken back by 1..n_rs_seq
 *             tokens now and then (lk_seq_truncate; the reference:
 *             lk_context_truncate) and continued with another token;
 *   fork      (4 sequences in an arena of exactly lk_context_memory_size
 *             bytes; one sequence more costs one state + its rows and
 *             logits) a fork after 21 tokens: both continue differently in one
 *             batch (each = alone), a fork of the fork taken back within the
 *             window (= alone), further back refused naming rs-checkpoints
 *             (the sequence unchanged and still = alone), to 0 (refilled,
 *             taken back to 1) = fresh, a removed sequence's id reused (taken
 *             back to 1) = fresh, every page back;
 *   failure   a batch whose one sequence's last token has a NaN embedding
 *             (non-finite logits) fails: the other sequences of the chunk
 *             are as before (continuing = alone), one fed more tokens than
 *             n_rs_seq in the chunk is emptied and the message says so;
 *   prefix    (the KV cache has the attention layers' rows only)
 *             lk_context_state_save after 20 tokens, load, take back 12
 *             (within n_rs_seq) and continue = a fresh run: the saved state
 *             carries the snapshots. */
#define RQ_NS 5
#define RQ_T 64
static lk_context_params rq_params(int n_seq) {
    lk_context_params cp = rt_params();
    cp.n_ctx = n_seq > 0 ? n_seq * RQ_T : RQ_T; cp.n_batch = 24; cp.n_seq_max = n_seq; cp.kv_page = 8;
    return cp;
}
static uint32_t rq_rnd(uint64_t *s) { *s = *s * 6364136223846793005ull + 1442695040888963407ull; return (uint32_t)(*s >> 33); }
/* logits equal bit for bit; NULL on either side is a difference */
static int rq_same(const float *a, const float *b, int V) { return a && b && !memcmp(a, b, sizeof(float) * (size_t)V); }
static void rq_random(const lk_model *m) {
    const int V = lk_model_n_vocab(m), R = lk_context_default_params().n_rs_seq;
    lk_context_params cp = rq_params(RQ_NS), rp = rq_params(0);
    lk_context *c = rt_ctx(m, cp), *ref[RQ_NS];
    lk_token toks[RQ_NS][RQ_T], bt[RQ_NS * 20];
    int bs[RQ_NS * 20], len[RQ_NS], fed[RQ_NS], hi[RQ_NS], plen[RQ_NS], id[RQ_NS], s, k, step, cmp = 0, diff = 0, backs = 0, refused = 0, forwards = 0;
    uint64_t seed = 0x5eed;
    memset(ref, 0, sizeof ref);
    CHECK(c != NULL, "a context of %d sequences", RQ_NS);
    for (s = 0; c && s < RQ_NS; s++) {
        ref[s] = rt_ctx(m, rp);
        CHECK(ref[s] && !lk_seq_add(c, &id[s]), "setup: %s", lk_last_error());
        plen[s] = 3 + (int)(rq_rnd(&seed) % 30);
        for (k = 0; k < plen[s]; k++) toks[s][k] = seq[rq_rnd(&seed) % (uint32_t)nseq];
        len[s] = plen[s]; fed[s] = hi[s] = 0;
    }
    for (step = 0; c && !lk_t_failed_ && step < 60; step++) {
        int n = 0, chunk[RQ_NS], order[RQ_NS * 20], i, j, next[RQ_NS];
        lk_batch b;
        for (s = 0; s < RQ_NS; s++) {   /* now and then: take back 1..R + 4 tokens (both sides), continue with another token */
            lk_status s1, s2;
            if (!ref[s] || fed[s] < 4 || rq_rnd(&seed) % 5) continue;
            k = 1 + (int)(rq_rnd(&seed) % (uint32_t)(R + 4));
            if (k > fed[s] - 1) k = fed[s] - 1;
            s1 = lk_seq_truncate(c, id[s], fed[s] - k); s2 = lk_context_truncate(ref[s], fed[s] - k);
            if (hi[s] - (fed[s] - k) > R) {   /* rows written since the last start further on than n_rs_seq: refused, both sides */
                CHECK(s1 == LK_ERR_UNSUPPORTED && s2 == LK_ERR_UNSUPPORTED && lk_seq_n_past(c, id[s]) == fed[s], "take back %d of %d (%d written): status %d, %d",
                      k, fed[s], hi[s], (int)s1, (int)s2);
                refused++;
                continue;
            }
            CHECK(!s1 && !s2, "take back %d of %d (%d written): %s", k, fed[s], hi[s], lk_last_error());
            fed[s] -= k; backs++;
            toks[s][fed[s]] = seq[rq_rnd(&seed) % (uint32_t)nseq];
            len[s] = fed[s] + 1 > plen[s] ? fed[s] + 1 : plen[s];
        }
        for (s = 0; s < RQ_NS; s++) {
            chunk[s] = 0;
            if (fed[s] >= RQ_T - 1 || rq_rnd(&seed) % 3 == 0) continue;
            chunk[s] = fed[s] < plen[s] ? 1 + (int)(rq_rnd(&seed) % 20) : 1;
            if (chunk[s] > len[s] - fed[s]) chunk[s] = len[s] - fed[s];
            for (k = 0; k < chunk[s]; k++) order[n++] = s;
        }
        if (!n) continue;
        for (i = n - 1; i > 0; i--) { j = (int)(rq_rnd(&seed) % (uint32_t)(i + 1)); k = order[i]; order[i] = order[j]; order[j] = k; }
        for (s = 0; s < RQ_NS; s++) next[s] = fed[s];
        for (i = 0; i < n; i++) { s = order[i]; bs[i] = id[s]; bt[i] = toks[s][next[s]++]; }
        memset(&b, 0, sizeof b);
        b.n = n; b.token = bt; b.seq = bs;
        forwards += (n + cp.n_batch - 1) / cp.n_batch;
        if (lk_decode_batch(c, &b)) { CHECK(0, "step %d: batch: %s", step, lk_last_error()); break; }
        for (s = 0; s < RQ_NS; s++) {
            const float *w;
            if (!chunk[s]) continue;
            for (i = n - 1; order[i] != s; i--) {}
            if (lk_decode(ref[s], toks[s] + fed[s], chunk[s])) { CHECK(0, "reference: %s", lk_last_error()); break; }
            fed[s] += chunk[s];
            if (fed[s] > hi[s]) hi[s] = fed[s];
            w = lk_logits(ref[s], -1);
            cmp++;
            diff += !rq_same(lk_logits(c, i), w, V);
            if (fed[s] == len[s] && len[s] < RQ_T && w) toks[s][len[s]++] = (lk_token)lk_t_argmax(w, V);   /* greedy */
            CHECK(lk_seq_n_past(c, id[s]) == fed[s], "sequence %d: n_past %d, want %d", s, lk_seq_n_past(c, id[s]), fed[s]);
        }
    }
    printf("  %d sequences, %d forwards, %d take-backs (%d refused: past n_rs_seq): %d of %d compared logits rows differ from each sequence alone\n", RQ_NS,
           forwards, backs, refused, diff, cmp);
    CHECK(cmp > 100 && diff == 0 && backs > 5 && refused > 0, "%d of %d logits rows differ from alone (%d take-backs, %d refused)", diff, cmp, backs, refused);
    for (s = 0; c && s < RQ_NS; s++) CHECK_OK(lk_seq_remove(c, id[s]));
    CHECK(!c || lk_seq_free_rows(c) == lk_context_n_ctx(c), "pages left after removing every sequence");
    for (s = 0; s < RQ_NS; s++) lk_context_free(ref[s]);
    lk_context_free(c);
}
/* tokens [from, to) of t into sequence s, one batch; its last logits */
static const float *rq_feed(lk_context *c, int s, const lk_token *t, int from, int to) {
    int sq[RQ_T], i;
    lk_batch b;
    for (i = 0; i < RQ_T; i++) sq[i] = s;
    memset(&b, 0, sizeof b);
    b.n = to - from; b.token = t + from; b.seq = sq;
    if (b.n <= 0 || b.n > RQ_T || lk_decode_batch(c, &b)) { printf("  feed: %s\n", lk_last_error()); return NULL; }
    return lk_logits(c, -1);
}
/* the last logits of t[0, n) decoded alone by a plain context (in chunks of `chunk`), into out[V] */
static int rq_alone(const lk_model *m, const lk_token *t, int n, int chunk, float *out) {
    lk_context *c = rt_ctx(m, rq_params(0));
    int k, ok = c != NULL;
    for (k = 0; ok && k < n; k += chunk) ok = !lk_decode(c, t + k, n - k < chunk ? n - k : chunk);
    if (ok && lk_logits(c, -1)) memcpy(out, lk_logits(c, -1), sizeof(float) * (size_t)lk_model_n_vocab(m));
    else { printf("  alone: %s\n", lk_last_error()); ok = 0; }
    lk_context_free(c);
    return ok;
}
static void rq_fork(const lk_model *m) {
    const int V = lk_model_n_vocab(m), R = lk_context_default_params().n_rs_seq;
    const lk_hparams *hp = lk_model_hparams(m);
    lk_context_params cp = rq_params(4), c3 = rq_params(3);
    /* one owner's state: every recurrent layer's ring and snapshots (lk_context's rs, ss) */
    const size_t own = sizeof(float) * (size_t)hp->n_layer_rec * ((size_t)(R + hp->n_conv) * (size_t)hp->rs_ch + (size_t)(R + 1) * (size_t)hp->rs_state);
    const size_t need = lk_context_memory_size(m, &cp);
    size_t d3;
    void *mem = malloc(need);
    lk_arena ar;
    lk_allocator al;
    lk_context *c = NULL;
    lk_token A[48], B[48], C[48];
    float *w = (float *)malloc(sizeof(float) * (size_t)V);
    int a, b2, c2, i;
    lk_status st;
    c3.n_ctx = cp.n_ctx;   /* the same pool: one sequence fewer */
    d3 = need - lk_context_memory_size(m, &c3);
    printf("  lk_context_memory_size: %zu bytes for 4 sequences, %zu more than for 3 (one state: %zu; a sequence's rows and logits: %zu)\n", need, d3, own,
           sizeof(float) * (size_t)(cp.n_ctx + V));
    CHECK(d3 >= own && d3 <= own + sizeof(float) * (size_t)(cp.n_ctx + V) + 512, "a sequence more takes %zu bytes, its state alone %zu", d3, own);
    lk_arena_init(&ar, mem, need);   /* the context in exactly that much */
    al = lk_arena_allocator(&ar);
    cp.alloc = &al;
    c = rt_ctx(m, cp);
    for (i = 0; i < 48; i++) { A[i] = seq[(i * 5 + 1) % nseq]; B[i] = i < 21 ? A[i] : seq[(i * 11 + 7) % nseq]; C[i] = i < 24 ? B[i] : seq[(i * 3 + 2) % nseq]; }
    if (!c) { CHECK(0, "a context of sequences: %s", lk_last_error()); free(w); return; }
    CHECK_OK(lk_seq_add(c, &a));
    CHECK(rq_feed(c, a, A, 0, 21) != NULL, "prefill");
    CHECK_OK(lk_seq_fork(c, a, &b2));
    {   /* both continue in one batch, interleaved */
        lk_token bt[19 + 9];
        int bsq[19 + 9], n = 0, ka = 21, kb = 21;
        lk_batch b;
        while (ka < 40 || kb < 30) {
            if (ka < 40) { bsq[n] = a; bt[n++] = A[ka++]; }
            if (kb < 30) { bsq[n] = b2; bt[n++] = B[kb++]; }
        }
        memset(&b, 0, sizeof b);
        b.n = n; b.token = bt; b.seq = bsq;
        CHECK_OK(lk_decode_batch(c, &b));
        CHECK(rq_alone(m, A, 40, 40, w) && rq_same(lk_logits(c, n - 1), w, V), "the source after the fork differs from alone");
        CHECK(rq_alone(m, B, 30, 30, w) && rq_same(lk_logits(c, 2 * 9 - 1), w, V), "the fork differs from alone");
    }
    /* a fork of the fork, taken back 6 (within n_rs_seq) and continued with C */
    CHECK_OK(lk_seq_fork(c, b2, &c2));
    CHECK_OK(lk_seq_truncate(c, c2, 24));
    CHECK(rq_alone(m, C, 36, 36, w) && rq_same(rq_feed(c, c2, C, 24, 36), w, V), "fork + take back 6 + continue differs from alone");
    /* further back than n_rs_seq: refused, unchanged */
    st = lk_seq_truncate(c, a, 40 - R - 1);
    CHECK(st == LK_ERR_UNSUPPORTED && strstr(lk_last_error(), "rs-checkpoints") && lk_seq_n_past(c, a) == 40, "truncate 40 -> %d: status %d, '%s'", 40 - R - 1,
          (int)st, lk_last_error());
    CHECK(rq_alone(m, A, 48, 48, w) && rq_same(rq_feed(c, a, A, 40, 48), w, V), "the sequence after a refused truncation differs from alone");
    /* exactly n_rs_seq back works */
    CHECK_OK(lk_seq_truncate(c, a, 48 - R));
    CHECK(rq_same(rq_feed(c, a, A, 48 - R, 48), w, V), "%d tokens taken back and redone differ from alone", R);
    /* to 0: start over */
    CHECK_OK(lk_seq_truncate(c, b2, 0));
    CHECK(rq_feed(c, b2, C, 0, 12) != NULL, "refill");
    CHECK_OK(lk_seq_truncate(c, b2, 1));   /* only the rows since the start over count: taken back to 1 */
    CHECK(rq_alone(m, C, 30, 30, w) && rq_same(rq_feed(c, b2, C, 1, 30), w, V), "truncated to 0, refilled, taken back to 1: differs from fresh");
    /* a removed sequence's id reused: a fresh state */
    CHECK_OK(lk_seq_remove(c, c2));
    CHECK_OK(lk_seq_add(c, &c2));
    CHECK(rq_alone(m, B, 12, 12, w) && rq_same(rq_feed(c, c2, B, 0, 12), w, V), "a reused sequence id differs from fresh");
    CHECK_OK(lk_seq_truncate(c, c2, 1));   /* its 12 tokens only count: taken back to 1 */
    CHECK(rq_same(rq_feed(c, c2, B, 1, 12), w, V), "a reused sequence id taken back to 1 and refilled differs from fresh");
    printf("  fork, fork of a fork, take back 6 and %d, refuse %d, to 0, reuse: %s\n", R, R + 1, lk_t_failed_ ? "differ" : "each bit-identical to alone");
    CHECK_OK(lk_seq_remove(c, a)); CHECK_OK(lk_seq_remove(c, b2)); CHECK_OK(lk_seq_remove(c, c2));
    CHECK(lk_seq_free_rows(c) == lk_context_n_ctx(c), "pages left: %d free of %d", lk_seq_free_rows(c), lk_context_n_ctx(c));
    lk_context_free(c);
    free(w); free(mem);
}
/* the model with token `bad`'s embedding row NaN and an untied output head
 * (output.weight = the embeddings as they were): a chunk holding that token
 * fails at its logits, the other tokens' logits stay finite */
static unsigned char *rq_poisoned(const unsigned char *buf, size_t len, int bad, size_t *out_len) {
    lk_gguf *g = NULL;
    lk_gguf_writer *w = NULL;
    unsigned char *out = NULL;
    float *emb = NULL;
    char nm[160];
    uint64_t i;
    int64_t k;
    if (lk_gguf_read_memory(buf, len, NULL, &g) || lk_gguf_writer_new(NULL, &w)) goto done;
    for (i = 0; i < g->n_kv; i++) {
        snprintf(nm, sizeof nm, "%.*s", (int)g->kv[i].key.len, g->kv[i].key.ptr);
        lk_gguf_writer_add_value(w, nm, &g->kv[i].value);
    }
    for (i = 0; i < g->n_tensors; i++) {
        const lk_gguf_tensor *t = &g->tensors[i];
        snprintf(nm, sizeof nm, "%.*s", (int)t->name.len, t->name.ptr);
        if (!strcmp(nm, "token_embd.weight") && t->type == LK_TYPE_F32) {
            emb = (float *)malloc((size_t)t->nbytes);
            memcpy(emb, t->data, (size_t)t->nbytes);
            for (k = 0; k < t->ne[0]; k++) emb[(size_t)bad * (size_t)t->ne[0] + (size_t)k] = NAN;
            lk_gguf_writer_add_tensor(w, nm, t->type, t->n_dims, t->ne, emb, 1);
            lk_gguf_writer_add_tensor(w, "output.weight", t->type, t->n_dims, t->ne, t->data, 1);
        } else lk_gguf_writer_add_tensor(w, nm, t->type, t->n_dims, t->ne, t->data, 1);
    }
    if (!emb) goto done;
    *out_len = (size_t)lk_gguf_writer_size(w);
    out = (unsigned char *)malloc(*out_len);
    if (out && lk_gguf_writer_write_memory(w, out, *out_len)) { free(out); out = NULL; }
done:
    free(emb);
    lk_gguf_writer_free(w);
    lk_gguf_free(g);
    return out;
}
/* a batch that fails in its forward (non-finite logits): the chunk's other sequences as before */
static void rq_fail(const unsigned char *buf, size_t len) {
    enum { P = 20 };
    const int poison = 7;
    size_t plen = 0;
    unsigned char *cp = rq_poisoned(buf, len, poison, &plen);
    lk_model *m = NULL;
    lk_context *c = NULL;
    lk_context_params pp = rq_params(3);
    lk_token A[P + 20];
    float *w = NULL;
    int V = 0, a, b2, d, i, n = 0, bsq[40], R = pp.n_rs_seq;
    lk_token bt[40];
    lk_batch b;
    lk_status st;
    CHECK(cp && !lk_model_load_memory(cp, plen, NULL, &m), "the poisoned model: %s", lk_last_error());
    pp.n_batch = 40;
    if (m) CHECK((c = rt_ctx(m, pp)) != NULL, "a context of 3 sequences");
    if (c) {
        V = lk_model_n_vocab(m);
        w = (float *)malloc(sizeof(float) * (size_t)V);
        for (i = 0; i < P + 20; i++) { A[i] = seq[(i * 5 + 1) % nseq]; if (A[i] == poison) A[i] = poison + 1; }
        CHECK(!lk_seq_add(c, &a) && !lk_seq_add(c, &b2) && !lk_seq_add(c, &d), "sequences");
        CHECK(rq_feed(c, a, A, 0, P) && rq_feed(c, b2, A, 0, P) && rq_feed(c, d, A, 0, P), "prefill: %s", lk_last_error());
        for (i = 0; i < R + 2; i++) {   /* a: 3 tokens, b2: 4 (its last poisoned), d: R + 2 (more than can be taken back) */
            if (i < 3) { bsq[n] = a; bt[n++] = A[P + i]; }
            if (i < 4) { bsq[n] = b2; bt[n++] = i == 3 ? (lk_token)poison : A[P + i]; }
            bsq[n] = d; bt[n++] = A[P + i];
        }
        memset(&b, 0, sizeof b);
        b.n = n; b.token = bt; b.seq = bsq;
        st = lk_decode_batch(c, &b);
        printf("  the failed batch: %s\n", lk_last_error());
        CHECK(st != LK_OK && strstr(lk_last_error(), "not finite"), "status %d, '%s'", (int)st, lk_last_error());
        CHECK(strstr(lk_last_error(), "sequence 2") && strstr(lk_last_error(), "rs-checkpoints"), "the message does not say sequence 2's state was lost: '%s'",
              lk_last_error());
        CHECK(lk_seq_n_past(c, a) == P && lk_seq_n_past(c, b2) == P && lk_seq_n_past(c, d) == 0, "after the failure n_past %d %d %d, want %d %d 0",
              lk_seq_n_past(c, a), lk_seq_n_past(c, b2), lk_seq_n_past(c, d), P, P);
        CHECK(rq_alone(m, A, P + 6, P + 6, w) && rq_same(rq_feed(c, a, A, P, P + 6), w, V) && rq_same(rq_feed(c, b2, A, P, P + 6), w, V),
              "a sequence of the failed chunk continued differs from alone");
        CHECK(rq_alone(m, A, P, P, w) && rq_same(rq_feed(c, d, A, 0, P), w, V), "the emptied sequence refilled differs from fresh");
    }
    lk_context_free(c);
    lk_model_free(m);
    free(cp); free(w);
}
/* save after 20 tokens, load, take back 12, continue = fresh */
static void rq_prefix(const lk_model *m) {
    const int V = lk_model_n_vocab(m);
    lk_context_params cp = rq_params(0);
    lk_context *a = rt_ctx(m, cp), *b = rt_ctx(m, cp);
    lk_token t[30];
    float *w = (float *)malloc(sizeof(float) * (size_t)V);
    void *state = NULL;
    size_t sz = 0;
    int i;
    for (i = 0; i < 30; i++) t[i] = seq[(i * 7 + 4) % nseq];
    {   /* the KV cache holds the attention layers' rows only */
        const lk_hparams *hp = lk_model_hparams(m);
        const int want = hp->n_layer - hp->n_layer_rec > 0 ? hp->n_layer - hp->n_layer_rec : 1;   /* none (mamba2): one layer of rows never stored */
        CHECK(a && lk_context_kv(a)->n_layer == want, "KV cache layers %d, want %d (attention layers of %d)",
              a ? lk_context_kv(a)->n_layer : -1, want, hp->n_layer);
    }
    CHECK(a && b && !lk_decode(a, t, 20) && !lk_context_state_save(a, NULL, 0, &sz), "save: %s", lk_last_error());
    if (sz && (state = malloc(sz)) != NULL) {
        CHECK_OK(lk_context_state_save(a, state, sz, &sz));
        CHECK_OK(lk_context_state_load(b, state, sz));
        CHECK_OK(lk_context_truncate(b, 8));
        CHECK(!lk_decode(b, t + 8, 22) && rq_alone(m, t, 30, 30, w) && rq_same(lk_logits(b, -1), w, V), "loaded, 12 taken back, 22 more: differs from fresh");
        CHECK_OK(lk_context_state_load(b, state, sz));
        CHECK(lk_context_truncate(b, 3) == LK_ERR_UNSUPPORTED && lk_context_n_past(b) == 20, "loaded: 17 taken back accepted");
        printf("  %zu bytes saved after 20 tokens; loaded, 12 taken back and 22 more: %s\n", sz, lk_t_failed_ ? "differ" : "bit-identical to fresh");
    }
    free(state); free(w);
    lk_context_free(a); lk_context_free(b);
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
        if (lk_model_hparams(m)->n_layer_rec > 0) {   /* recurrent layers: a state per sequence */
            RT_CASE("recurrent sequences: random interleavings and take-backs = each alone, bit for bit", rq_random(m));
            RT_CASE("recurrent sequences: fork, take back within n_rs_seq, refuse beyond, to 0, reuse = alone", rq_fork(m));
            RT_CASE("recurrent sequences: a failed batch leaves each sequence as before or says so", rq_fail(buf, len));
            RT_CASE("recurrent prefix: save, load, take back within n_rs_seq = fresh", rq_prefix(m));
        }
#undef RT_CASE
        lk_model_free(m);
        free(buf);
    }
    return lk_t_exit();
}
