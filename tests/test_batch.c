/* Many sequences in one context (lk_seq_*, lk_decode_batch): every
 * sequence's logits against a context that runs that sequence alone
 * (lk_decode, the same tokens in the same chunks), under random
 * interleavings of prefill chunks and decode steps, for every KV type, the
 * streaming policy and several architectures; forks (copy-on-write pages),
 * truncation, page accounting, threads, and the refusals.
 * The reference is the single-sequence decoder on the same file.
 * lk-test: sanitize */
#define LLMKIT_IMPLEMENTATION
#include "llmkit.h"
#include "tests/lk_test.h"
#include <math.h>

#define NS 5          /* sequences in the random test */
#define MAXT 96       /* tokens per sequence at most  */

static uint32_t rnd(uint64_t *s) { *s = *s * 6364136223846793005ull + 1442695040888963407ull; return (uint32_t)(*s >> 33); }

static lk_context_params cparams(lk_type kv, int n_seq, int threads) {
    lk_context_params cp = lk_context_default_params();
    cp.n_ctx = 256; cp.n_batch = 24; cp.kv_type = kv; cp.n_threads = threads; cp.n_seq_max = n_seq; cp.kv_page = 8;
    return cp;
}

/* One run: NS sequences with random prompts; each step a random subset of
 * the live sequences gets a random chunk (prompt pieces of 1..20 tokens,
 * then one greedy token at a time), the chunks interleaved at random in
 * one batch (longer than n_batch sometimes: several forwards). Every
 * sequence's logits are compared with its own single-sequence context fed
 * the same chunks. Returns the largest difference seen (-1 on an error). */
static float run_random(const lk_model *m, lk_context_params cp, uint64_t seed, int *mismatch) {
    const int V = lk_model_n_vocab(m);
    lk_context *c = NULL, *ref[NS];
    lk_token toks[NS][MAXT], bt[NS * 24];
    int bs[NS * 24], len[NS], fed[NS], plen[NS], id[NS], s, step, k;
    int8_t bl[NS * 24];
    float worst = 0;
    lk_context_params rp = cp;
    rp.n_seq_max = 0;
    cp.n_ctx = NS * MAXT;   /* the pool holds every sequence whole */
    *mismatch = 0;
    memset(ref, 0, sizeof ref);
    if (lk_context_new(m, &cp, &c)) { printf("  context: %s\n", lk_last_error()); return -1; }
    for (s = 0; s < NS; s++) {
        if (lk_context_new(m, &rp, &ref[s]) || lk_seq_add(c, &id[s])) { printf("  context: %s\n", lk_last_error()); worst = -1; goto done; }
        plen[s] = 3 + (int)(rnd(&seed) % 40);
        for (k = 0; k < plen[s]; k++) toks[s][k] = (lk_token)(1 + rnd(&seed) % (uint32_t)(V - 1));
        len[s] = plen[s]; fed[s] = 0;
    }
    for (step = 0; step < 60; step++) {
        int n = 0, chunk[NS], order[NS * 24], i, j, pick[NS];
        lk_batch b;
        for (s = 0; s < NS; s++) {
            chunk[s] = 0;
            pick[s] = fed[s] < MAXT - 1 && rnd(&seed) % 3 != 0;
            if (!pick[s]) continue;
            if (fed[s] < plen[s]) chunk[s] = 1 + (int)(rnd(&seed) % 20);
            else chunk[s] = 1;
            if (chunk[s] > len[s] - fed[s]) chunk[s] = len[s] - fed[s];
            for (k = 0; k < chunk[s]; k++) order[n++] = s;
        }
        if (!n) continue;
        for (i = n - 1; i > 0; i--) { j = (int)(rnd(&seed) % (uint32_t)(i + 1)); k = order[i]; order[i] = order[j]; order[j] = k; }
        {   /* each sequence's tokens in order, at the places the shuffle gave it */
            int next[NS];
            for (s = 0; s < NS; s++) next[s] = fed[s];
            for (i = 0; i < n; i++) { s = order[i]; bs[i] = id[s]; bt[i] = toks[s][next[s]++]; bl[i] = 0; }
            for (s = 0; s < NS; s++) if (chunk[s]) { for (i = n - 1; order[i] != s; i--) {} bl[i] = 1; }
        }
        memset(&b, 0, sizeof b);
        b.n = n; b.token = bt; b.seq = bs; b.logits = (step & 1) ? bl : NULL;   /* explicit flags or the default (the same rows) */
        if (lk_decode_batch(c, &b)) { printf("  batch: %s\n", lk_last_error()); worst = -1; goto done; }
        for (s = 0; s < NS; s++) {
            const float *a, *r;
            if (!chunk[s]) continue;
            for (i = n - 1; order[i] != s; i--) {}
            if (lk_decode(ref[s], toks[s] + fed[s], chunk[s])) { printf("  ref: %s\n", lk_last_error()); worst = -1; goto done; }
            fed[s] += chunk[s];
            a = lk_logits(c, i); r = lk_logits(ref[s], -1);
            if (!a || !r) { printf("  seq %d: no logits\n", s); worst = -1; goto done; }
            if (lk_t_maxdiff(a, r, V) > worst) worst = lk_t_maxdiff(a, r, V);
            if (lk_t_argmax(a, V) != lk_t_argmax(r, V)) (*mismatch)++;
            if (fed[s] == len[s] && len[s] < MAXT) toks[s][len[s]++] = (lk_token)lk_t_argmax(r, V);   /* greedy */
            if (lk_seq_n_past(c, id[s]) != fed[s]) { printf("  seq %d: n_past %d, want %d\n", s, lk_seq_n_past(c, id[s]), fed[s]); worst = -1; goto done; }
        }
        for (i = 0; i < n; i++)   /* rows not asked for have no logits */
            if (!bl[i] && lk_logits(c, i)) { printf("  batch row %d has logits it did not ask for\n", i); worst = -1; goto done; }
    }
    for (s = 0; s < NS; s++) lk_seq_remove(c, id[s]);
    if (lk_seq_free_rows(c) != lk_context_n_ctx(c)) { printf("  %d of %d rows free after removing every sequence\n", lk_seq_free_rows(c), lk_context_n_ctx(c)); worst = -1; }
done:
    for (s = 0; s < NS; s++) lk_context_free(ref[s]);
    lk_context_free(c);
    return worst;
}

static void test_random(const char *name, const lk_model *m, float tol) {
    static const lk_type kvs[4] = { LK_TYPE_F32, LK_TYPE_F16, LK_TYPE_Q8_0, LK_TYPE_Q4_0 };
    static const char *const pnames[3] = { "full", "streaming", "kv-rotate" };
    char title[160];
    int ki, pol;
    snprintf(title, sizeof title, "batch %s: random interleavings of %d sequences = each alone (every KV type; full, streaming, kv-rotate)", name, NS);
    lk_t_begin(title);
    for (ki = 0; ki < 4; ki++)
        for (pol = 0; pol < 3; pol++) {
            lk_context_params cp = cparams(kvs[ki], NS, 2);
            int mism = 0;
            float w;
            if (pol == 1) { cp.kv_policy.policy = LK_KV_STREAMING; cp.kv_policy.budget = 24; cp.kv_policy.n_sink = 4; }
            if (pol == 2) cp.kv_rotate = 1;   /* Hadamard-rotated heads */
            w = run_random(m, cp, 0x1234 + (uint64_t)ki * 7 + (uint64_t)pol, &mism);
            printf("  kv %-5s %-9s largest logit difference %.3g, greedy mismatches %d\n", lk_type_name(kvs[ki]), pnames[pol], w, mism);
            CHECK(w >= 0 && w <= tol, "kv %s %s: difference %g (tolerance %g)", lk_type_name(kvs[ki]), pnames[pol], w, tol);
            CHECK(mism == 0, "kv %s: %d greedy tokens differ", lk_type_name(kvs[ki]), mism);
        }
    lk_t_end();
}

/* decode tokens [from, to) of toks into sequence s with per-token batches, and
 * return the last logits */
static const float *feed(lk_context *c, int s, const lk_token *toks, int from, int to) {
    int seq[64], i;
    lk_batch b;
    for (i = 0; i < 64; i++) seq[i] = s;
    memset(&b, 0, sizeof b);
    b.n = to - from; b.token = toks + from; b.seq = seq;
    if (b.n <= 0 || b.n > 64 || lk_decode_batch(c, &b)) { printf("  feed: %s\n", lk_last_error()); return NULL; }
    return lk_logits(c, -1);
}
static const float *alone(const lk_model *m, lk_type kv, const lk_token *toks, int n, lk_context **keep) {
    lk_context_params cp = cparams(kv, 0, 2);
    if (lk_context_new(m, &cp, keep) || lk_decode(*keep, toks, n)) { printf("  ref: %s\n", lk_last_error()); return NULL; }
    return lk_logits(*keep, -1);
}

static void test_fork_truncate(const lk_model *m) {
    static const lk_type kvs[2] = { LK_TYPE_F32, LK_TYPE_Q8_0 };
    const int V = lk_model_n_vocab(m);
    lk_token A[48], B[48];
    int ki, i;
    for (i = 0; i < 48; i++) { A[i] = (lk_token)(1 + (i * 37 + 11) % (V - 1)); B[i] = i < 21 ? A[i] : (lk_token)(1 + (i * 53 + 5) % (V - 1)); }
    lk_t_begin("batch: fork shares pages copy-on-write, truncate and remove free them; logits = each sequence alone");
    for (ki = 0; ki < 2; ki++) {
        lk_context_params cp = cparams(kvs[ki], 4, 2);
        lk_context *c = NULL, *r1 = NULL, *r2 = NULL, *r3 = NULL;
        int a, bq, free0, free1;
        const float *x, *y;
        if (lk_context_new(m, &cp, &c)) { CHECK(0, "context: %s", lk_last_error()); continue; }
        free0 = lk_seq_free_rows(c);
        CHECK(free0 == 256, "free rows %d, want 256", free0);
        CHECK_OK(lk_seq_add(c, &a));
        CHECK(feed(c, a, A, 0, 21) != NULL, "prefill");
        CHECK(lk_seq_free_rows(c) == free0 - 24, "21 tokens take 3 pages of 8: free %d", lk_seq_free_rows(c));
        CHECK_OK(lk_seq_fork(c, a, &bq));
        CHECK(lk_seq_n_past(c, bq) == 21 && lk_seq_free_rows(c) == free0 - 24, "fork copies no page: n_past %d, free %d", lk_seq_n_past(c, bq), lk_seq_free_rows(c));
        /* both continue: the shared, partly filled page is copied for the first writer only */
        x = feed(c, bq, B, 21, 30);
        CHECK(lk_seq_free_rows(c) == free0 - 24 - 16, "B's copy of the shared page + one new page: free %d", lk_seq_free_rows(c));
        y = alone(m, kvs[ki], B, 30, &r1);
        CHECK(x && y && lk_t_maxdiff(x, y, V) == 0.0f, "kv %s: forked sequence differs from alone by %g", lk_type_name(kvs[ki]), x && y ? lk_t_maxdiff(x, y, V) : -1.0);
        x = feed(c, a, A, 21, 40);
        CHECK(lk_seq_free_rows(c) == free0 - 24 - 16 - 16, "A writes its own page in place: free %d", lk_seq_free_rows(c));
        y = alone(m, kvs[ki], A, 40, &r2);
        CHECK(x && y && lk_t_maxdiff(x, y, V) == 0.0f, "kv %s: source sequence differs from alone by %g", lk_type_name(kvs[ki]), x && y ? lk_t_maxdiff(x, y, V) : -1.0);
        /* truncate A into the shared prefix, and continue with B's tokens: it must equal B alone */
        CHECK_OK(lk_seq_truncate(c, a, 19));
        CHECK(lk_seq_n_past(c, a) == 19, "n_past after truncate %d", lk_seq_n_past(c, a));
        x = feed(c, a, B, 19, 30);
        CHECK(x && r1 && lk_t_maxdiff(x, lk_logits(r1, -1), V) == 0.0f, "kv %s: truncated and refilled sequence differs from alone", lk_type_name(kvs[ki]));
        /* removing A leaves B intact, and B keeps decoding */
        CHECK_OK(lk_seq_remove(c, a));
        CHECK(lk_seq_n_past(c, a) == -1, "removed sequence still live");
        x = feed(c, bq, B, 30, 48);
        y = alone(m, kvs[ki], B, 48, &r3);
        CHECK(x && y && lk_t_maxdiff(x, y, V) == 0.0f, "kv %s: B after A's removal differs from alone", lk_type_name(kvs[ki]));
        free1 = lk_seq_free_rows(c);
        CHECK(free1 == free0 - 48, "only B's 6 pages in use: free %d", free1);
        CHECK_OK(lk_seq_remove(c, bq));
        CHECK(lk_seq_free_rows(c) == free0, "every page back: free %d of %d", lk_seq_free_rows(c), free0);
        lk_context_free(c); lk_context_free(r1); lk_context_free(r2); lk_context_free(r3);
    }
    lk_t_end();
}

/* a fork of a fork, the source removed first: pages are freed by their last user */
static void test_fork_chain(const lk_model *m) {
    const int V = lk_model_n_vocab(m);
    lk_context_params cp = cparams(LK_TYPE_F16, 8, 1);
    lk_context *c = NULL, *r = NULL;
    lk_token T[40];
    int s[4], i, k;
    lk_t_begin("batch: forks of forks (a shared system prompt), sources removed first");
    for (i = 0; i < 40; i++) T[i] = (lk_token)(1 + (i * 29 + 3) % (V - 1));
    if (lk_context_new(m, &cp, &c)) { CHECK(0, "context: %s", lk_last_error()); lk_t_end(); return; }
    CHECK_OK(lk_seq_add(c, &s[0]));
    CHECK(feed(c, s[0], T, 0, 16) != NULL, "prompt");   /* two full pages: shared, never copied */
    CHECK_OK(lk_seq_fork(c, s[0], &s[1]));
    CHECK_OK(lk_seq_fork(c, s[1], &s[2]));
    CHECK_OK(lk_seq_fork(c, s[2], &s[3]));
    CHECK(lk_seq_free_rows(c) == 256 - 16, "four sequences share two pages: free %d", lk_seq_free_rows(c));
    CHECK_OK(lk_seq_remove(c, s[0]));
    CHECK_OK(lk_seq_remove(c, s[1]));
    {   /* the three live ones (s[2], s[3] and a new s[0]) in one batch, each a different continuation */
        lk_token bt[3 * 8];
        int bs[3 * 8], n = 0, ns, who[3];
        lk_batch b;
        CHECK_OK(lk_seq_fork(c, s[3], &ns));
        who[0] = s[2]; who[1] = s[3]; who[2] = ns;
        for (i = 0; i < 8; i++) for (k = 0; k < 3; k++) { bs[n] = who[k]; bt[n++] = (lk_token)(1 + (i * 7 + k * 101) % (V - 1)); }
        memset(&b, 0, sizeof b);
        b.n = n; b.token = bt; b.seq = bs;
        CHECK_OK(lk_decode_batch(c, &b));
        for (k = 0; k < 3; k++) {
            lk_token full[24];
            const float *x = lk_logits(c, n - 3 + k), *y;
            memcpy(full, T, 16 * sizeof(lk_token));
            for (i = 0; i < 8; i++) full[16 + i] = (lk_token)(1 + (i * 7 + k * 101) % (V - 1));
            y = alone(m, LK_TYPE_F16, full, 24, &r);
            CHECK(x && y && lk_t_maxdiff(x, y, V) == 0.0f, "continuation %d differs from alone by %g", k, x && y ? lk_t_maxdiff(x, y, V) : -1.0);
            lk_context_free(r); r = NULL;
        }
        CHECK(lk_seq_free_rows(c) == 256 - 16 - 24, "shared prefix + one page each: free %d", lk_seq_free_rows(c));
        for (k = 0; k < 3; k++) CHECK_OK(lk_seq_remove(c, who[k]));
        CHECK(lk_seq_free_rows(c) == 256, "every page back: free %d", lk_seq_free_rows(c));
    }
    lk_context_free(c);
    lk_t_end();
}

/* 1 and 2 threads give the same bits */
static void test_threads(const lk_model *m) {
    const int V = lk_model_n_vocab(m);
    lk_t_begin("batch: 1 and 2 threads give the same logits");
    {
        lk_context_params p1 = cparams(LK_TYPE_F16, NS, 1), p2 = cparams(LK_TYPE_F16, NS, 2);
        lk_context *c1 = NULL, *c2 = NULL;
        lk_token bt[40];
        int bs[40], i, s1, s2, k;
        lk_batch b;
        if (lk_context_new(m, &p1, &c1) || lk_context_new(m, &p2, &c2)) CHECK(0, "context: %s", lk_last_error());
        else {
            for (k = 0; k < 3; k++) { CHECK_OK(lk_seq_add(c1, &s1)); CHECK_OK(lk_seq_add(c2, &s2)); }
            for (i = 0; i < 40; i++) { bs[i] = i % 3; bt[i] = (lk_token)(1 + (i * 13) % (V - 1)); }
            memset(&b, 0, sizeof b);
            b.n = 40; b.token = bt; b.seq = bs;
            CHECK_OK(lk_decode_batch(c1, &b));
            CHECK_OK(lk_decode_batch(c2, &b));
            for (i = 37; i < 40; i++) {
                const float *x = lk_logits(c1, i), *y = lk_logits(c2, i);
                CHECK(x && y && lk_t_maxdiff(x, y, V) == 0.0f, "row %d differs", i);
            }
        }
        lk_context_free(c1); lk_context_free(c2);
    }
    lk_t_end();
}

static void test_refusals(const lk_model *m) {
    const int V = lk_model_n_vocab(m);
    lk_context_params cp = cparams(LK_TYPE_F16, 2, 1);
    lk_context *c = NULL, *plain = NULL;
    lk_token t[300];
    int s[300], a, b2, x, i;
    int8_t fl[300];
    lk_batch b;
    lk_t_begin("batch: bad calls are refused with a message and change nothing");
    for (i = 0; i < 300; i++) { t[i] = (lk_token)(1 + i % (V - 1)); fl[i] = 1; }
    if (lk_context_new(m, &cp, &c)) { CHECK(0, "context: %s", lk_last_error()); lk_t_end(); return; }
    {   /* settings that cannot hold sequences */
        lk_context_params q = cp;
        lk_context *z = NULL;
        q.kv_policy.policy = LK_KV_H2O;
        CHECK(lk_context_new(m, &q, &z) == LK_ERR_UNSUPPORTED, "h2o with sequences accepted");
        q = cp; q.kv_zip_bits = 4;
        CHECK(lk_context_new(m, &q, &z) == LK_ERR_UNSUPPORTED, "zip with sequences accepted");
        q = cp; q.n_seq_max = -1;
        CHECK(lk_context_new(m, &q, &z) == LK_ERR_INVALID_ARG, "negative n_seq_max accepted");
        CHECK(z == NULL, "a refused context was returned");
    }
    CHECK_OK(lk_seq_add(c, &a));
    CHECK_OK(lk_seq_add(c, &b2));
    CHECK(lk_seq_add(c, &x) == LK_ERR_RANGE, "a third sequence in a context of 2");
    CHECK(lk_decode(c, t, 3) == LK_ERR_INVALID_ARG, "lk_decode on a context of sequences");
    CHECK(lk_context_truncate(c, 0) == LK_ERR_INVALID_ARG, "lk_context_truncate on a context of sequences");
    for (i = 0; i < 300; i++) s[i] = a;
    memset(&b, 0, sizeof b);
    b.n = 10; b.token = t; b.seq = s;
    CHECK_OK(lk_decode_batch(c, &b));
    {
        const int free0 = lk_seq_free_rows(c);
        int bad[3] = { 0, 1, 0 }, pos[3] = { 10, 3, 11 };
        lk_token tb[3] = { 1, 2, (lk_token)V };
        lk_batch e = b;
        e.n = 3; e.seq = bad; e.token = tb;
        CHECK(lk_decode_batch(c, &e) == LK_ERR_RANGE, "token %d = n_vocab accepted", V);
        tb[2] = 5; bad[1] = 7;
        CHECK(lk_decode_batch(c, &e) == LK_ERR_INVALID_ARG, "sequence 7 accepted");
        bad[1] = 1; e.pos = pos; pos[1] = 0; pos[2] = 9;
        CHECK(lk_decode_batch(c, &e) == LK_ERR_RANGE, "position 9 after 10 in one sequence accepted");
        e.pos = NULL; e.logits = fl; e.n = 3;
        CHECK(lk_decode_batch(c, &e) == LK_ERR_RANGE, "3 logits rows in a context that holds 2");
        e = b; e.n = 300;   /* 310 rows > 256 */
        CHECK(lk_decode_batch(c, &e) == LK_ERR_RANGE, "a batch larger than the pool accepted");
        e.n = 0;
        CHECK(lk_decode_batch(c, &e) == LK_ERR_INVALID_ARG, "an empty batch accepted");
        CHECK(lk_decode_batch(c, NULL) == LK_ERR_INVALID_ARG, "a NULL batch accepted");
        CHECK(lk_seq_n_past(c, a) == 10 && lk_seq_n_past(c, b2) == 0 && lk_seq_free_rows(c) == free0, "a refused batch changed the state");
        CHECK(lk_seq_truncate(c, a, 11) == LK_ERR_RANGE && lk_seq_truncate(c, b2, -1) == LK_ERR_RANGE, "truncate beyond the end accepted");
        CHECK(lk_seq_remove(c, 5) == LK_ERR_INVALID_ARG && lk_seq_fork(c, -1, &x) == LK_ERR_INVALID_ARG, "a dead sequence accepted");
        CHECK(strlen(lk_last_error()) > 10, "no message");
    }
    {   /* the pool fills exactly, then refuses */
        lk_batch e = b;
        e.seq = s; e.n = 246;
        CHECK_OK(lk_decode_batch(c, &e));
        CHECK(lk_seq_free_rows(c) == 0, "free %d after filling", lk_seq_free_rows(c));
        e.n = 1;
        CHECK(lk_decode_batch(c, &e) == LK_ERR_RANGE, "a full pool accepted a token");
        CHECK_OK(lk_seq_truncate(c, a, 250));
        CHECK_OK(lk_decode_batch(c, &e));
    }
    {   /* the plain API refuses sequences */
        lk_context_params q = cparams(LK_TYPE_F16, 0, 1);
        if (lk_context_new(m, &q, &plain) == LK_OK) {
            CHECK(lk_seq_add(plain, &x) == LK_ERR_INVALID_ARG, "lk_seq_add on a plain context");
            CHECK(lk_decode_batch(plain, &b) == LK_ERR_INVALID_ARG, "lk_decode_batch on a plain context");
        }
    }
    lk_context_free(plain);
    lk_context_free(c);
    lk_t_end();
}

/* SARATHI's rule against a direct statement of it */
static void test_sched(void) {
    uint64_t seed = 99;
    int it;
    lk_t_begin("sched: decodes first, then prefill chunks in order, within the budget");
    for (it = 0; it < 2000; it++) {
        int n = 1 + (int)(rnd(&seed) % 12), budget = (int)(rnd(&seed) % 40), chunk = (int)(rnd(&seed) % 10) - 2;
        int left[12], take[12], i, sum = 0, used = 0, dec = 0, ret;
        for (i = 0; i < n; i++) left[i] = (int)(rnd(&seed) % 4) == 0 ? 0 : (int)(rnd(&seed) % 30) - 3;
        ret = lk_sched_plan(left, n, budget, chunk, take);
        for (i = 0; i < n; i++) {
            sum += take[i];
            if (left[i] < 0) CHECK(take[i] == 0, "a request that takes no part fed %d", take[i]);
            if (left[i] == 0) { CHECK(take[i] == (dec < budget), "decode %d: take %d with %d of %d used", i, take[i], dec, budget); dec += take[i]; }
        }
        CHECK(ret == sum && sum <= (budget > 0 ? budget : 0), "sum %d, returned %d, budget %d", sum, ret, budget);
        used = dec;
        for (i = 0; i < n; i++) {   /* prefill i gets min(left, chunk, what is left) */
            int want;
            if (left[i] <= 0) continue;
            want = left[i];
            if (chunk > 0 && want > chunk) want = chunk;
            if (want > budget - used) want = budget - used > 0 ? budget - used : 0;
            CHECK(take[i] == want, "prefill %d: take %d, want %d", i, take[i], want);
            used += take[i];
        }
    }
    lk_t_end();
}

int main(void) {
    static const struct { const char *name, *file; float tol; } arch[] = {
        { "llama", "models/llama/llama-F32.gguf", 0.0f },
        { "gemma2", "models/gemma2/gemma2-Q8_0.gguf", 0.0f },   /* sliding window, soft-caps */
        { "gpt2", "models/gpt2/gpt2-F32.gguf", 0.0f },          /* learned positions */
        { "qwen2", "models/qwen2/qwen2-Q4_K_M-mix.gguf", 0.0f },
    };
    const char *p = lk_t_fixture("stories260K/stories260K-F32.gguf");
    lk_model *m = NULL;
    size_t k;
    test_sched();
    if (!p) {
        lk_t_skip("batch: sequences", "../shared/fixtures/stories260K is absent");
        return lk_t_exit();
    }
    if (lk_model_load_file(p, NULL, &m)) { printf("FAIL load: %s\n", lk_last_error()); return 1; }
    test_random("stories260K", m, 0.0f);
    test_fork_truncate(m);
    test_fork_chain(m);
    test_threads(m);
    test_refusals(m);
    lk_model_free(m);
    for (k = 0; k < sizeof arch / sizeof arch[0]; k++) {
        const char *f = lk_t_fixture(arch[k].file);
        char title[96];
        snprintf(title, sizeof title, "batch %s", arch[k].name);
        if (!f) { lk_t_skip(title, "fixture absent"); continue; }
        if (lk_model_load_file(f, NULL, &m)) { printf("FAIL load %s: %s\n", f, lk_last_error()); lk_t_total_fail_++; continue; }
        test_random(arch[k].name, m, arch[k].tol);
        lk_model_free(m);
    }
    return lk_t_exit();
}
