/* Token trees (lk_decode_tree, lk_context_tree_commit) on stories260K:
 * every node's logits against sequential decoding of its root path (bit
 * for bit), the cache after a commit against the cache of sequential
 * decoding (every KV type bit for bit; Quest within rounding, and its page
 * bounds), and the refusals. The reference is the
 * plain decoder (lk_decode) on the same tokens. */
#define LLMKIT_IMPLEMENTATION
#include "llmkit.h"
#include "tests/lk_test.h"
#include <math.h>

static const lk_token P[8] = { 1, 403, 407, 261, 378, 432, 383, 286 };   /* prompt: the start of S1 */
#define NP 8
/* a tree of 9 nodes, two roots: 0 -> 1 -> 3 -> 5, 0 -> 2, 1 -> 6, 4 -> 7 -> 8 */
static const lk_token TT[9] = { 261, 376, 298, 315, 421, 395, 317, 426, 338 };
static const int TP[9] = { -1, 0, 0, 1, -1, 3, 1, 4, 7 };
#define NT 9

static lk_context *ctx(const lk_model *m, lk_type kv, int policy) {
    lk_context_params cp = lk_context_default_params();
    lk_context *c = NULL;
    cp.n_ctx = 64; cp.kv_type = kv; cp.n_tree = 16; cp.n_threads = 2;
    /* Quest with pages of 4 rows and a budget of `policy` rows: 32 holds every row of these tests, so
     * a node sees what sequential decoding sees (a smaller budget selects pages that mix the tree's
     * branches: see lk_decode_tree); 8 selects, for the rollback test */
    if (policy) { cp.kv_policy.policy = LK_KV_QUEST; cp.kv_policy.page_size = 4; cp.kv_policy.budget = policy; }
    if (lk_context_new(m, &cp, &c)) printf("  context: %s\n", lk_last_error());
    return c;
}
/* path of node i from its root, root first; returns its length */
static int root_path(int i, int *path) {
    int n = 0, k, t;
    for (; i >= 0; i = TP[i]) path[n++] = i;
    for (k = 0; k < n / 2; k++) { t = path[k]; path[k] = path[n - 1 - k]; path[n - 1 - k] = t; }
    return n;
}

static void test_tree_logits(const lk_model *m) {
    static const lk_type kvs[4] = { LK_TYPE_F32, LK_TYPE_F16, LK_TYPE_Q8_0, LK_TYPE_Q4_0 };
    const int V = lk_model_n_vocab(m);
    int ki, i, k;
    lk_t_begin("tree: every node's logits = sequential decoding of its root path");
    for (ki = 0; ki < 4; ki++) {
        lk_context *t = ctx(m, kvs[ki], 0), *s = ctx(m, kvs[ki], 0);
        float worst = 0;
        if (!t || !s) { CHECK(0, "no context"); lk_context_free(t); lk_context_free(s); continue; }
        CHECK_OK(lk_decode(t, P, NP));
        CHECK_OK(lk_decode_tree(t, TT, TP, NT));
        CHECK(lk_context_tree_pending(t) == NT && lk_context_n_past(t) == NP + NT, "pending %d, n_past %d", lk_context_tree_pending(t), lk_context_n_past(t));
        for (i = 0; i < NT; i++) {
            int path[NT], n = root_path(i, path);
            lk_token toks[NP + NT];
            const float *a = lk_logits(t, i), *b;
            memcpy(toks, P, sizeof P);
            for (k = 0; k < n; k++) toks[NP + k] = TT[path[k]];
            CHECK_OK(lk_context_truncate(s, 0));
            CHECK_OK(lk_decode(s, toks, NP + n));
            b = lk_logits(s, -1);
            if (!a || !b) { CHECK(0, "node %d: no logits", i); continue; }
            if (lk_t_maxdiff(a, b, V) > worst) worst = lk_t_maxdiff(a, b, V);
            CHECK(lk_t_maxdiff(a, b, V) == 0.0f, "kv %s node %d: logits differ by %g from sequential decoding", lk_type_name(kvs[ki]), i, lk_t_maxdiff(a, b, V));
            CHECK(lk_t_argmax(a, V) == lk_t_argmax(b, V), "kv %s node %d: greedy token %d vs %d", lk_type_name(kvs[ki]), i, lk_t_argmax(a, V), lk_t_argmax(b, V));
            /* the positions the tree gave: the last stored one + 1 + depth */
            CHECK(t->kv.pos[NP + i] == NP + n - 1, "node %d at position %d, want %d", i, t->kv.pos[NP + i], NP + n - 1);
        }
        printf("  kv %-5s largest logit difference to sequential decoding: %.2e\n", lk_type_name(kvs[ki]), worst);
        lk_context_free(t); lk_context_free(s);
    }
    lk_t_end();
}

/* commit a path, decode one more token; cache rows and next logits against
 * sequential decoding of prompt + path + that token */
static void test_commit(const lk_model *m) {
    static const lk_type kvs[4] = { LK_TYPE_F32, LK_TYPE_F16, LK_TYPE_Q8_0, LK_TYPE_Q4_0 };
    static const int paths[4][4] = { { 0, 1, 3, 5 }, { 4, 7, 8, -1 }, { 0, 2, -1, -1 }, { -1, -1, -1, -1 } };
    static const int plen[4] = { 4, 3, 2, 0 };
    const lk_token next = 401;
    const int V = lk_model_n_vocab(m);
    int ki, pi, pol;
    lk_t_begin("tree commit: cache and next logits = sequential decoding (every KV type, full and Quest)");
    for (pol = 0; pol < 2; pol++)
        for (ki = 0; ki < 4; ki++)
            for (pi = 0; pi < 4; pi++) {
                lk_context *t = ctx(m, kvs[ki], pol * 32), *s = ctx(m, kvs[ki], pol * 32);
                lk_token toks[NP + 5];
                int k, n = NP + plen[pi], il, r, g, bad = 0;
                unsigned char saved[4][4096];
                if (!t || !s) { CHECK(0, "no context"); lk_context_free(t); lk_context_free(s); continue; }
                memcpy(toks, P, sizeof P);
                for (k = 0; k < plen[pi]; k++) toks[NP + k] = TT[paths[pi][k]];
                toks[n] = next;
                CHECK_OK(lk_decode(t, P, NP));
                CHECK_OK(lk_decode_tree(t, TT, TP, NT));
                for (k = 0; k < plen[pi] && k < 4; k++)   /* the rows to keep, as the tree computed them (layer 0 K) */
                    memcpy(saved[k], t->kv.k + (size_t)(NP + paths[pi][k]) * t->kv.row_k, t->kv.row_k);
                CHECK_OK(lk_context_tree_commit(t, paths[pi], plen[pi]));
                CHECK(lk_context_tree_pending(t) == 0 && lk_context_n_past(t) == n, "after commit: pending %d, n_past %d (want %d)",
                      lk_context_tree_pending(t), lk_context_n_past(t), n);
                for (k = 0; k < plen[pi]; k++)   /* moved bit for bit */
                    CHECK(memcmp(saved[k], t->kv.k + (size_t)(NP + k) * t->kv.row_k, t->kv.row_k) == 0, "path node %d: row not moved intact", k);
                CHECK_OK(lk_decode(t, &next, 1));
                CHECK_OK(lk_decode(s, toks, n + 1));
                for (r = 0; r <= n; r++) CHECK(t->kv.pos[r] == s->kv.pos[r], "row %d at position %d, sequential %d", r, t->kv.pos[r], s->kv.pos[r]);
                for (il = 0; il < m->hp.n_layer; il++)   /* K and V rows, dequantized, within float tolerance */
                    for (r = 0; r <= n; r++)
                        for (g = 0; g < m->hp.n_head_kv; g++) {
                            float ka[512], va[512], kb[512], vb[512];
                            /* full: bit for bit; Quest reads the tree's rows through its page selection (mixed branches,
                             * other key order): a rounding flip, one quant step (q4_0, q8_0), one f16 step at |x| < 8 */
                            const float tol = !pol ? 0.0f : kvs[ki] == LK_TYPE_Q4_0 ? 0.3f : kvs[ki] == LK_TYPE_Q8_0 ? 0.03f : kvs[ki] == LK_TYPE_F16 ? 8e-3f : 1e-4f;
                            lk_kv_cache_read(&t->kv, il, r, g, ka, va);
                            lk_kv_cache_read(&s->kv, il, r, g, kb, vb);
                            if (lk_t_maxdiff(ka, kb, m->hp.head_dim_k) > tol || lk_t_maxdiff(va, vb, m->hp.head_dim_k) > tol) bad++;
                        }
                CHECK(bad == 0, "kv %s policy %d path %d: %d cache heads differ from sequential decoding", lk_type_name(kvs[ki]), pol, pi, bad);
                if (pol && t->kp.quest) {   /* Quest page bounds, from the same rows */
                    const size_t nq = (size_t)m->hp.n_layer * m->hp.n_head_kv * t->kp.n_pages * 2 * m->hp.head_dim_k;
                    int pg, lay, h, e, badq = 0;
                    for (lay = 0; lay < m->hp.n_layer; lay++)
                        for (h = 0; h < m->hp.n_head_kv; h++)
                            for (pg = 0; pg <= n / t->kp.pg; pg++)
                                for (e = 0; e < 2 * m->hp.head_dim_k; e++) {
                                    size_t o = (((size_t)lay * m->hp.n_head_kv + h) * t->kp.n_pages + pg) * 2 * m->hp.head_dim_k + e;
                                    if (o < nq && fabsf(t->kp.quest[o] - s->kp.quest[o]) > (kvs[ki] == LK_TYPE_Q4_0 ? 0.3f : 0.03f)) badq++;
                                }
                    CHECK(badq == 0, "kv %s path %d: %d Quest bounds differ from sequential decoding", lk_type_name(kvs[ki]), pi, badq);
                }
                {
                    const float *a = lk_logits(t, -1), *b = lk_logits(s, -1);
                    CHECK(a && b && lk_t_maxdiff(a, b, V) <= (!pol ? 0.0f : kvs[ki] == LK_TYPE_Q4_0 ? 0.05f : 1e-3f), "kv %s policy %d path %d: next logits differ by %g",
                          lk_type_name(kvs[ki]), pol, pi, a && b ? lk_t_maxdiff(a, b, V) : -1.0f);
                }
                lk_context_free(t); lk_context_free(s);
            }
    lk_t_end();
}

/* Quest after a rollback: decode 10, truncate to 6, decode 4 other tokens:
 * page bounds equal a context that decoded the 10 kept tokens directly
 * (the bounds of the truncated page are rebuilt, not kept from dropped rows) */
static void test_quest_truncate(const lk_model *m) {
    static const lk_type kvs[2] = { LK_TYPE_F32, LK_TYPE_Q8_0 };
    static const lk_token A[10] = { 1, 403, 407, 261, 378, 432, 383, 286, 261, 376 }, B[4] = { 298, 315, 421, 395 };
    int ki;
    lk_t_begin("quest: page bounds after truncate = decoding the kept tokens");
    for (ki = 0; ki < 2; ki++) {
        lk_context *t = ctx(m, kvs[ki], 8), *s = ctx(m, kvs[ki], 8);
        lk_token seq[10];
        if (!t || !s) { CHECK(0, "no context"); lk_context_free(t); lk_context_free(s); continue; }
        memcpy(seq, A, 6 * sizeof(lk_token)); memcpy(seq + 6, B, sizeof B);
        CHECK_OK(lk_decode(t, A, 10));
        CHECK_OK(lk_context_truncate(t, 6));
        CHECK_OK(lk_decode(t, B, 4));
        CHECK_OK(lk_decode(s, seq, 10));
        CHECK(t->kp.quest && memcmp(t->kp.quest, s->kp.quest, sizeof(float) * (size_t)m->hp.n_layer * m->hp.n_head_kv * t->kp.n_pages * 2 * m->hp.head_dim_k) == 0,
              "kv %s: Quest bounds differ after truncate", lk_type_name(kvs[ki]));
        CHECK(memcmp(lk_logits(t, -1), lk_logits(s, -1), sizeof(float) * (size_t)lk_model_n_vocab(m)) == 0, "kv %s: logits differ after truncate", lk_type_name(kvs[ki]));
        lk_context_free(t); lk_context_free(s);
    }
    lk_t_end();
}

static void test_refusals(const lk_model *m) {
    lk_context *c = ctx(m, LK_TYPE_F16, 0), *z = NULL;
    lk_context_params cp = lk_context_default_params();
    static const int bad1[3] = { -1, 1, 0 }, bad2[2] = { -1, -2 };
    lk_token big[17];
    int pbig[17], k, path[2];
    lk_t_begin("tree: refusals and pending-state rules");
    if (!c) { CHECK(0, "no context"); lk_t_end(); return; }
    for (k = 0; k < 17; k++) { big[k] = 300; pbig[k] = k - 1; }
    CHECK_OK(lk_decode(c, P, NP));
    CHECK(lk_decode_tree(c, TT, bad1, 3) == LK_ERR_INVALID_ARG, "a parent after its child accepted");
    CHECK(lk_decode_tree(c, TT, bad2, 2) == LK_ERR_INVALID_ARG, "parent -2 accepted");
    CHECK(lk_decode_tree(c, big, pbig, 17) == LK_ERR_RANGE, "17 nodes accepted with n_tree 16");
    big[0] = 99999;
    CHECK(lk_decode_tree(c, big, pbig, 2) == LK_ERR_RANGE, "token out of range accepted");
    CHECK(lk_decode_tree(c, TT, NULL, 2) == LK_ERR_INVALID_ARG, "NULL parents accepted");
    CHECK(lk_context_tree_commit(c, NULL, 0) == LK_ERR_INVALID_ARG, "commit without a tree accepted");
    CHECK(lk_context_n_past(c) == NP && lk_context_tree_pending(c) == 0, "a refused call changed the context");
    CHECK_OK(lk_decode_tree(c, TT, TP, NT));
    CHECK(lk_decode(c, P, 1) == LK_ERR_INVALID_ARG, "lk_decode accepted while a tree is pending");
    CHECK(lk_decode_tree(c, TT, TP, 2) == LK_ERR_INVALID_ARG, "a second tree accepted while one is pending");
    { size_t sz = 0; CHECK(lk_context_state_save(c, NULL, 0, &sz) == LK_ERR_INVALID_ARG, "state save accepted while a tree is pending"); }
    CHECK(lk_context_truncate(c, NP + 1) == LK_ERR_INVALID_ARG, "truncate into the pending tree accepted");
    path[0] = 1; path[1] = 3;
    CHECK(lk_context_tree_commit(c, path, 2) == LK_ERR_INVALID_ARG, "a path not starting at a root accepted");
    path[0] = 0; path[1] = 3;
    CHECK(lk_context_tree_commit(c, path, 2) == LK_ERR_INVALID_ARG, "a path with a non-child accepted");
    CHECK(lk_context_tree_commit(c, path, NT + 1) == LK_ERR_INVALID_ARG, "a path longer than the tree accepted");
    CHECK(lk_context_tree_pending(c) == NT, "a refused commit changed the tree");
    CHECK_OK(lk_context_truncate(c, NP));   /* drops the tree */
    CHECK(lk_context_tree_pending(c) == 0 && lk_context_n_past(c) == NP, "truncate did not drop the tree");
    CHECK_OK(lk_decode(c, P, 1));
    lk_context_free(c);
    /* contexts that cannot run trees */
    cp.n_ctx = 64; cp.n_tree = 4; cp.kv_zip_bits = 4;
    if (lk_context_new(m, &cp, &z) == LK_OK) {
        CHECK_OK(lk_decode(z, P, 2));
        CHECK(lk_decode_tree(z, TT, TP, 2) == LK_ERR_UNSUPPORTED, "zip KV accepted");
        lk_context_free(z); z = NULL;
    }
    cp.kv_zip_bits = 0; cp.kv_policy.policy = LK_KV_H2O; cp.kv_policy.budget = 16;
    if (lk_context_new(m, &cp, &z) == LK_OK) {
        CHECK(lk_decode_tree(z, TT, TP, 2) == LK_ERR_UNSUPPORTED, "h2o accepted");
        lk_context_free(z); z = NULL;
    }
    cp = lk_context_default_params(); cp.n_ctx = 64;   /* n_tree 0 */
    if (lk_context_new(m, &cp, &z) == LK_OK) {
        CHECK(lk_decode_tree(z, TT, TP, 2) == LK_ERR_RANGE, "a tree accepted with n_tree 0");
        lk_context_free(z); z = NULL;
    }
    cp.n_tree = 600;
    CHECK(lk_context_new(m, &cp, &z) == LK_ERR_INVALID_ARG, "n_tree > n_batch accepted");
    lk_context_free(z);
    CHECK(lk_context_params_set(&cp, "tree-nodes", "8") == LK_OK && cp.n_tree == 8, "option tree-nodes");
    lk_t_end();
}

int main(void) {
    const char *p = lk_t_fixture("stories260K/stories260K-F32.gguf");
    lk_model *m = NULL;
    if (!p) { lk_t_skip("tree", "fixtures absent (stories260K-F32.gguf)"); return 0; }
    if (lk_model_load_file(p, NULL, &m)) { printf("FAIL load: %s\n", lk_last_error()); return 1; }
    test_tree_logits(m);
    test_commit(m);
    test_quest_truncate(m);
    test_refusals(m);
    lk_model_free(m);
    return lk_t_exit();
}
