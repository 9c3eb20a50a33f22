/* test_quant_mix.c - llama-quantize's file types and per-tensor mix rules
 * (llmkit.h 7c: lk_ftype_*, lk_quant_mix_*, lk_quant_fallback_type,
 * lk_quant_wants_quantize) and lk_quantize_gguf called directly.
 * References: the general.file_type and tensor types of the files
 * llama-quantize wrote (fixtures), llama.cpp's llama_ftype numbering, and
 * layer lists worked out by hand from llama.cpp's use_more_bits rule. */
/* lk-test: sanitize */
#define LLMKIT_IMPLEMENTATION
#include "llmkit.h"
#include "tests/lk_test.h"

/* ---- file type names ----------------------------------------------------- */
static void test_ftype_names(void) {
    /* llama.cpp's enum llama_ftype (include/llama.h) */
    static const struct { const char *name; int id; lk_type type; } want[] = {
        { "F32", 0, LK_TYPE_F32 }, { "F16", 1, LK_TYPE_F16 }, { "Q4_0", 2, LK_TYPE_Q4_0 }, { "Q4_1", 3, LK_TYPE_Q4_1 },
        { "Q8_0", 7, LK_TYPE_Q8_0 }, { "Q5_0", 8, LK_TYPE_Q5_0 }, { "Q5_1", 9, LK_TYPE_Q5_1 }, { "Q2_K", 10, LK_TYPE_Q2_K },
        { "Q3_K_S", 11, LK_TYPE_Q3_K }, { "Q3_K_M", 12, LK_TYPE_Q3_K }, { "Q3_K_L", 13, LK_TYPE_Q3_K },
        { "Q4_K_S", 14, LK_TYPE_Q4_K }, { "Q4_K_M", 15, LK_TYPE_Q4_K }, { "Q5_K_S", 16, LK_TYPE_Q5_K },
        { "Q5_K_M", 17, LK_TYPE_Q5_K }, { "Q6_K", 18, LK_TYPE_Q6_K }, { "IQ2_XXS", 19, LK_TYPE_IQ2_XXS },
        { "IQ2_XS", 20, LK_TYPE_IQ2_XS }, { "Q2_K_S", 21, LK_TYPE_Q2_K }, { "IQ3_XS", 22, LK_TYPE_IQ3_S },
        { "IQ3_XXS", 23, LK_TYPE_IQ3_XXS }, { "IQ1_S", 24, LK_TYPE_IQ1_S }, { "IQ4_NL", 25, LK_TYPE_IQ4_NL },
        { "IQ3_S", 26, LK_TYPE_IQ3_S }, { "IQ3_M", 27, LK_TYPE_IQ3_S }, { "IQ2_S", 28, LK_TYPE_IQ2_XS },
        { "IQ2_M", 29, LK_TYPE_IQ2_S }, { "IQ4_XS", 30, LK_TYPE_IQ4_XS }, { "IQ1_M", 31, LK_TYPE_IQ1_M },
        { "BF16", 32, LK_TYPE_BF16 }, { "TQ1_0", 36, LK_TYPE_TQ1_0 }, { "TQ2_0", 37, LK_TYPE_TQ2_0 },
        { "MXFP4_MOE", 38, LK_TYPE_MXFP4 }, { "Q1_0", 40, LK_TYPE_Q1_0 }, { "Q2_0", 41, LK_TYPE_Q2_0 },
    };
    size_t i;
    int n = 0;
    const lk_ftype_info *f;
    lk_t_begin("ftype_names");
    for (i = 0; i < sizeof want / sizeof want[0]; i++) {
        f = lk_ftype_find(want[i].name);
        CHECK(f && (int)f->ftype == want[i].id && f->type == want[i].type && strcmp(f->name, want[i].name) == 0, "%s", want[i].name);
        f = lk_ftype_get(want[i].id);
        CHECK(f && strcmp(f->name, want[i].name) == 0, "lk_ftype_get(%d) is not %s", want[i].id, want[i].name);
    }
    /* case-insensitive; the _M aliases */
    f = lk_ftype_find("q4_k_m");
    CHECK(f && f->ftype == 15, "q4_k_m");
    f = lk_ftype_find("Q4_k");
    CHECK(f && f->ftype == 15 && f->type == LK_TYPE_Q4_K, "Q4_K alias");
    f = lk_ftype_find("q3_K");
    CHECK(f && f->ftype == 12, "Q3_K alias");
    f = lk_ftype_find("Q5_K");
    CHECK(f && f->ftype == 17, "Q5_K alias");
    CHECK(lk_ftype_find("Q9_9") == NULL && lk_ftype_find("") == NULL && lk_ftype_find(NULL) == NULL &&
          lk_ftype_find("Q4_K_MM") == NULL && lk_ftype_find("Q4_") == NULL, "unknown names must give NULL");
    CHECK(lk_ftype_get(4) == NULL && lk_ftype_get(-1) == NULL && lk_ftype_get(99) == NULL, "unknown ids must give NULL");
    /* the list: every entry is found by its own name */
    for (n = 0; (f = lk_ftype_at(n)) != NULL; n++)
        CHECK(lk_ftype_find(f->name) == f && lk_ftype_get(f->ftype) && lk_ftype_get(f->ftype)->ftype == f->ftype, "entry %d", n);
    CHECK(n == (int)(sizeof want / sizeof want[0]) + 3, "%d entries (35 file types + 3 aliases expected)", n);
    CHECK(lk_ftype_at(-1) == NULL, "lk_ftype_at(-1)");
    lk_t_end();
}

/* the pure llama fixtures: name -> general.file_type and the base type */
static void test_ftype_fixtures(void) {
    static const char *names[] = { "F16", "BF16", "Q8_0", "Q6_K", "Q5_1", "Q5_0", "Q5_K_M", "Q4_1", "Q4_0", "Q4_K_M",
                                   "IQ4_NL", "IQ4_XS", "Q3_K_M", "IQ3_S", "IQ3_XXS", "Q2_K", "TQ2_0", "TQ1_0" };
    size_t i;
    int seen = 0;
    lk_t_begin("ftype_vs_llama_quantize_files");
    for (i = 0; i < sizeof names / sizeof names[0]; i++) {
        char rel[128];
        const char *path;
        lk_gguf *g = NULL;
        uint32_t id = 0;
        int64_t ti;
        const lk_ftype_info *f = lk_ftype_find(names[i]);
        snprintf(rel, sizeof rel, "models/llama/llama-%s.gguf", names[i]);
        if (!(path = lk_t_fixture(rel))) continue;
        seen++;
        CHECK_OK(lk_gguf_read_file(path, NULL, &g));
        if (!g) continue;
        CHECK_OK(lk_gguf_get_u32(g, "general.file_type", &id));
        ti = lk_gguf_find_tensor(g, "blk.0.attn_q.weight");
        CHECK(f && (int)id == (int)f->ftype, "%s: general.file_type %u, table %d", names[i], (unsigned)id, f ? (int)f->ftype : -1);
        CHECK(f && ti >= 0 && g->tensors[ti].type == f->type, "%s: --pure weights are %s, table says %s", names[i],
              ti >= 0 ? lk_type_name(g->tensors[ti].type) : "?", f ? lk_type_name(f->type) : "?");
        lk_gguf_free(g);
    }
    if (!seen) { lk_t_skip("ftype_vs_llama_quantize_files", "fixtures absent"); return; }
    lk_t_end();
}

/* ---- fallback and wants_quantize ------------------------------------------ */
static void test_fallback(void) {
    static const lk_type all[] = { LK_TYPE_Q4_K, LK_TYPE_Q5_K, LK_TYPE_Q6_K, LK_TYPE_Q2_K, LK_TYPE_Q3_K, LK_TYPE_IQ4_XS,
                                   LK_TYPE_IQ3_S, LK_TYPE_IQ3_XXS, LK_TYPE_TQ1_0, LK_TYPE_TQ2_0, LK_TYPE_Q8_0, LK_TYPE_Q4_0 };
    size_t i;
    lk_t_begin("fallback_types");
    /* 64-wide rows: blocks of 32 fit (llama.cpp's switch in llama_model_quantize_impl) */
    CHECK(lk_quant_fallback_type(LK_TYPE_Q4_K, 64) == LK_TYPE_Q5_0, "Q4_K -> Q5_0");
    CHECK(lk_quant_fallback_type(LK_TYPE_Q5_K, 64) == LK_TYPE_Q5_1, "Q5_K -> Q5_1");
    CHECK(lk_quant_fallback_type(LK_TYPE_Q6_K, 64) == LK_TYPE_Q8_0, "Q6_K -> Q8_0");
    CHECK(lk_quant_fallback_type(LK_TYPE_Q2_K, 64) == LK_TYPE_IQ4_NL, "Q2_K -> IQ4_NL");
    CHECK(lk_quant_fallback_type(LK_TYPE_Q3_K, 64) == LK_TYPE_IQ4_NL, "Q3_K -> IQ4_NL");
    CHECK(lk_quant_fallback_type(LK_TYPE_IQ4_XS, 128) == LK_TYPE_IQ4_NL, "IQ4_XS -> IQ4_NL");
    CHECK(lk_quant_fallback_type(LK_TYPE_IQ3_S, 96) == LK_TYPE_IQ4_NL, "IQ3_S -> IQ4_NL");
    CHECK(lk_quant_fallback_type(LK_TYPE_TQ1_0, 64) == LK_TYPE_Q4_0, "TQ1_0 -> Q4_0");
    CHECK(lk_quant_fallback_type(LK_TYPE_TQ2_0, 64) == LK_TYPE_Q4_0, "TQ2_0 -> Q4_0");
    CHECK(lk_quant_fallback_type(LK_TYPE_Q2_0, 96) == LK_TYPE_Q4_0, "Q2_0 -> Q4_0");
    CHECK(lk_quant_fallback_type(LK_TYPE_Q1_0, 96) == LK_TYPE_F16, "Q1_0 -> F16 (llama.cpp aborts)");
    CHECK(lk_quant_fallback_type(LK_TYPE_Q8_0, 64) == LK_TYPE_F16, "Q8_0 -> F16 (llama.cpp aborts)");
    /* 172-wide rows (stories260K's ffn_down): no block of 32 fits -> F16 */
    for (i = 0; i < sizeof all / sizeof all[0]; i++)
        CHECK(lk_quant_fallback_type(all[i], 172) == LK_TYPE_F16, "%s on 172-wide rows", lk_type_name(all[i]));
    lk_t_end();

    lk_t_begin("wants_quantize");
    CHECK(lk_quant_wants_quantize("blk.0.attn_q.weight", 2, 0), "attn_q");
    CHECK(lk_quant_wants_quantize("token_embd.weight", 2, 0), "token_embd");
    CHECK(lk_quant_wants_quantize("output.weight", 2, 0) && !lk_quant_wants_quantize("output.weight", 2, 1), "output / leave_output");
    CHECK(!lk_quant_wants_quantize("blk.0.attn_q.weight", 1, 0), "1-D");
    CHECK(!lk_quant_wants_quantize("blk.0.attn_q.bias", 2, 0), "bias");
    CHECK(!lk_quant_wants_quantize("blk.3.attn_norm.weight", 2, 0) && !lk_quant_wants_quantize("output_norm.weight", 2, 0), "norms");
    CHECK(!lk_quant_wants_quantize("blk.0.ffn_gate_inp.weight", 2, 0), "MoE router");
    CHECK(!lk_quant_wants_quantize("position_embd.weight", 2, 0) && !lk_quant_wants_quantize("token_types.weight", 2, 0), "position/token types");
    /* llama.cpp tests name.rfind("weight") == size - 6: "weight" itself qualifies */
    CHECK(lk_quant_wants_quantize("weight", 2, 0) == 1 && !lk_quant_wants_quantize("eight", 2, 0) && !lk_quant_wants_quantize(NULL, 2, 0), "short names");
    lk_t_end();
}

/* ---- mix rules on a shape (reference: llama.cpp's rules worked by hand) --- */
static void test_mix_shape(void) {
    /* Q4_K_M on 32 layers: attn_v and ffn_down get Q6_K where
     * i < 4 || i >= 28 || (i - 4) % 3 == 2 */
    static const int q6[] = { 0, 1, 2, 3, 6, 9, 12, 15, 18, 21, 24, 27, 28, 29, 30, 31 };
    lk_quant_mix m;
    int il, k;
    char name[64];
    lk_t_begin("mix_q4_k_m_32_layers");
    lk_quant_mix_init_shape(&m, "llama", 32, 32, 8, 0);
    CHECK(m.n_attention_wv == 32 && m.n_ffn_down == 32 && m.has_output == 1 && m.is_70b == 0 && strcmp(m.arch, "llama") == 0, "init_shape");
    CHECK(lk_quant_mix_type(&m, LK_TYPE_Q4_K, "token_embd.weight", 4096, LK_FTYPE_Q4_K_M) == LK_TYPE_Q4_K, "token_embd");
    CHECK(lk_quant_mix_type(&m, LK_TYPE_Q4_K, "output.weight", 4096, LK_FTYPE_Q4_K_M) == LK_TYPE_Q6_K, "output");
    for (il = 0; il < 32; il++) {
        int more = 0;
        lk_type tv, tq, td;
        for (k = 0; k < (int)(sizeof q6 / sizeof q6[0]); k++) more |= q6[k] == il;
        snprintf(name, sizeof name, "blk.%d.attn_q.weight", il);
        tq = lk_quant_mix_type(&m, LK_TYPE_Q4_K, name, 4096, LK_FTYPE_Q4_K_M);
        snprintf(name, sizeof name, "blk.%d.attn_v.weight", il);
        tv = lk_quant_mix_type(&m, LK_TYPE_Q4_K, name, 4096, LK_FTYPE_Q4_K_M);
        snprintf(name, sizeof name, "blk.%d.ffn_down.weight", il);
        td = lk_quant_mix_type(&m, LK_TYPE_Q4_K, name, 14336, LK_FTYPE_Q4_K_M);
        CHECK(tq == LK_TYPE_Q4_K, "layer %d attn_q %s", il, lk_type_name(tq));
        CHECK(tv == (more ? LK_TYPE_Q6_K : LK_TYPE_Q4_K), "layer %d attn_v %s", il, lk_type_name(tv));
        CHECK(td == (more ? LK_TYPE_Q6_K : LK_TYPE_Q4_K), "layer %d ffn_down %s", il, lk_type_name(td));
    }
    CHECK(m.i_attention_wv == 32 && m.i_ffn_down == 32 && m.n_fallback == 0 && m.n_mixed == 2 + 3 * 32, "counters");
    /* not quantized base types pass through without counting */
    CHECK(lk_quant_mix_type(&m, LK_TYPE_F16, "output.weight", 4096, LK_FTYPE_F16) == LK_TYPE_F16 && m.n_mixed == 2 + 3 * 32, "F16");
    CHECK(lk_quant_mix_type(NULL, LK_TYPE_Q4_K, "output.weight", 4096, LK_FTYPE_Q4_K_M) == LK_TYPE_Q4_K, "NULL mix");
    CHECK(lk_quant_mix_type(&m, (lk_type)77, "output.weight", 4096, LK_FTYPE_Q4_K_M) == (lk_type)77, "bad type passes through");
    lk_t_end();

    lk_t_begin("mix_tied_and_misc");
    /* tied embeddings: token_embd is treated as the output tensor */
    lk_quant_mix_init_shape(&m, "qwen2", 24, 14, 2, 0);
    m.has_output = 0;
    CHECK(lk_quant_mix_type(&m, LK_TYPE_Q4_0, "token_embd.weight", 1024, LK_FTYPE_Q4_0) == LK_TYPE_Q6_K, "tied token_embd Q4_0 -> Q6_K");
    /* 896-wide rows (qwen2-0.5b) cannot hold Q6_K's 256: the Q6_K -> Q8_0 fallback, counted */
    CHECK(lk_quant_mix_type(&m, LK_TYPE_Q4_0, "token_embd.weight", 896, LK_FTYPE_Q4_0) == LK_TYPE_Q8_0 && m.n_fallback == 1,
          "tied token_embd Q4_0, 896 wide -> Q8_0");
    CHECK(lk_quant_mix_type(&m, LK_TYPE_Q8_0, "token_embd.weight", 896, LK_FTYPE_Q8_0) == LK_TYPE_Q8_0, "Q8_0 output stays");
    /* output rows that do not fit the base block: Q8_0 */
    CHECK(lk_quant_mix_type(&m, LK_TYPE_Q4_K, "output.weight", 64, LK_FTYPE_Q4_K_M) == LK_TYPE_Q8_0, "narrow output -> Q8_0");
    /* Q3_K_M: attn_v Q5_K for the first two, then Q4_K; attn_output Q4_K */
    lk_quant_mix_init_shape(&m, "llama", 4, 8, 8, 0);
    CHECK(lk_quant_mix_type(&m, LK_TYPE_Q3_K, "blk.0.attn_v.weight", 512, LK_FTYPE_Q3_K_M) == LK_TYPE_Q5_K, "Q3_K_M attn_v 0");
    CHECK(lk_quant_mix_type(&m, LK_TYPE_Q3_K, "blk.1.attn_v.weight", 512, LK_FTYPE_Q3_K_M) == LK_TYPE_Q5_K, "Q3_K_M attn_v 1");
    CHECK(lk_quant_mix_type(&m, LK_TYPE_Q3_K, "blk.2.attn_v.weight", 512, LK_FTYPE_Q3_K_M) == LK_TYPE_Q4_K, "Q3_K_M attn_v 2");
    CHECK(lk_quant_mix_type(&m, LK_TYPE_Q3_K, "blk.0.attn_output.weight", 512, LK_FTYPE_Q3_K_M) == LK_TYPE_Q4_K, "Q3_K_M attn_output");
    /* llama 70B (80 layers, GQA): Q3_K/Q4_K attn_v become Q5_K */
    lk_quant_mix_init_shape(&m, "llama", 80, 64, 8, 0);
    CHECK(m.is_70b == 1, "is_70b");
    m.i_attention_wv = 5;
    CHECK(lk_quant_mix_type(&m, LK_TYPE_Q3_K, "blk.5.attn_v.weight", 8192, LK_FTYPE_Q3_K_M) == LK_TYPE_Q5_K, "70B attn_v");
    /* long arch names are truncated, not overflowed */
    lk_quant_mix_init_shape(&m, "an-architecture-name-that-is-much-longer-than-the-sixty-three-bytes-kept", 1, 1, 1, 0);
    CHECK(strlen(m.arch) == 63, "arch truncated to %u bytes", (unsigned)strlen(m.arch));
    lk_t_end();
}

/* ---- mix rules vs the files llama-quantize wrote -------------------------- */
typedef struct order_item { int64_t idx; long layer; char name[128]; } order_item;
static int order_cmp(const void *a, const void *b) {
    const order_item *x = (const order_item *)a, *y = (const order_item *)b;
    if (x->layer != y->layer) return x->layer < y->layer ? -1 : 1;
    return strcmp(x->name, y->name);
}
static void check_mix_file(const char *case_name, const char *src_rel, const char *ref_rel, const char *type_name) {
    const char *src_path = lk_t_fixture(src_rel), *ref_path = lk_t_fixture(ref_rel);
    const lk_ftype_info *ft = lk_ftype_find(type_name);
    lk_gguf *src = NULL, *ref = NULL;
    order_item *items = NULL;
    lk_quant_mix m;
    uint32_t file_type = 0;
    int64_t i, n, bad = 0, checked = 0;
    if (!src_path || !ref_path) { lk_t_skip(case_name, "fixtures absent"); return; }
    lk_t_begin(case_name);
    CHECK(ft != NULL, "%s unknown", type_name);
    CHECK_OK(lk_gguf_read_file(src_path, NULL, &src));
    CHECK_OK(lk_gguf_read_file(ref_path, NULL, &ref));
    if (!src || !ref || !ft) goto out;
    CHECK_OK(lk_gguf_get_u32(ref, "general.file_type", &file_type));
    CHECK((int)file_type == (int)ft->ftype, "%s: general.file_type %u, lk_ftype_find says %d", ref_rel, (unsigned)file_type, (int)ft->ftype);
    CHECK(ref->n_tensors == src->n_tensors, "tensor counts differ");
    CHECK_OK(lk_quant_mix_init(&m, src));
    n = (int64_t)src->n_tensors;
    items = (order_item *)calloc((size_t)n + 1, sizeof *items);
    if (!items) goto out;
    /* llama-quantize's order, independently: by the number after "blk.", then name */
    for (i = 0; i < n; i++) {
        lk_str s = src->tensors[i].name;
        size_t len = s.len < sizeof items[i].name - 1 ? (size_t)s.len : sizeof items[i].name - 1;
        memcpy(items[i].name, s.ptr, len);
        items[i].idx = i;
        items[i].layer = strncmp(items[i].name, "blk.", 4) == 0 ? strtol(items[i].name + 4, NULL, 10) : -1;
    }
    qsort(items, (size_t)n, sizeof *items, order_cmp);
    for (i = 0; i < n; i++) {
        const lk_gguf_tensor *t = &src->tensors[items[i].idx];
        int64_t ri = lk_gguf_find_tensor(ref, items[i].name);
        int d, n_dims = 1;
        lk_type want, got = t->type;
        for (d = 1; d < t->n_dims; d++) if (t->ne[d] > 1) n_dims = d + 1;
        if (lk_quant_wants_quantize(items[i].name, n_dims, 0)) {
            got = lk_quant_mix_type(&m, ft->type, items[i].name, t->ne[0], ft->ftype);
            if (t->ne[0] % lk_type_get(got)->blck_size) got = lk_quant_fallback_type(got, t->ne[0]);
        }
        CHECK(ri >= 0, "%s missing in %s", items[i].name, ref_rel);
        if (ri < 0) continue;
        want = ref->tensors[ri].type;
        checked++;
        if (got != want) {
            bad++;
            CHECK(got == want, "%s: %s, llama-quantize wrote %s", items[i].name, lk_type_name(got), lk_type_name(want));
        }
    }
    CHECK(bad == 0 && checked == n, "%lld of %lld tensor types differ", (long long)bad, (long long)n);
out:
    free(items);
    lk_gguf_free(src);
    lk_gguf_free(ref);
    lk_t_end();
}

/* ---- lk_quantize_gguf directly -------------------------------------------- */
typedef struct prog_count { int64_t calls, last_index, count, converted; } prog_count;
static void on_progress(void *user, const lk_quantize_gguf_progress *e) {
    prog_count *c = (prog_count *)user;
    if (e->index == c->calls && e->name && e->ne) c->last_index = e->index;
    c->calls++;
    c->count = e->count;
    c->converted += e->converted;
}
static void test_quantize_gguf(void) {
    const char *src_path = lk_t_fixture("models/llama/llama-F32.gguf");
    const char *want_path = lk_t_fixture("models/llama/llama-Q4_K_M-mix.gguf");
    const char *q4_path = lk_t_fixture("models/llama/llama-Q4_0.gguf");
    lk_gguf *in = NULL, *q4 = NULL;
    lk_gguf_writer *w = NULL;
    lk_quantize_gguf_params p = lk_quantize_gguf_default_params();
    lk_quantize_gguf_stats stats;
    unsigned char *want = NULL, *got = NULL, *arena_buf = NULL;
    size_t want_len = 0;
    lk_status st;
    prog_count pc;
    lk_arena arena;
    lk_allocator al;

    lk_t_begin("quantize_gguf_args");
    CHECK(p.ftype == LK_FTYPE_Q8_0 && p.output_type == -1 && p.token_embd_type == -1 && !p.pure && !p.progress, "default params");
    w = (lk_gguf_writer *)&p;   /* must be reset to NULL on error */
    CHECK(lk_quantize_gguf(NULL, &p, &w, NULL) == LK_ERR_INVALID_ARG && w == NULL, "NULL input");
    CHECK(lk_quantize_gguf(NULL, &p, NULL, NULL) == LK_ERR_INVALID_ARG, "NULL out");
    lk_t_end();

    if (!src_path || !want_path || !q4_path) { lk_t_skip("quantize_gguf_llama_Q4_K_M_mix", "fixtures absent"); return; }
    lk_t_begin("quantize_gguf_llama_Q4_K_M_mix");
    CHECK_OK(lk_gguf_read_file(src_path, NULL, &in));
    CHECK_OK(lk_gguf_read_file(q4_path, NULL, &q4));
    want = lk_t_read_file(want_path, &want_len);
    CHECK(want != NULL, "cannot read %s", want_path);
    if (in && q4 && want) {
        /* errors: unknown file type, bad explicit type, requantizing, no quantizer */
        p.ftype = 4;
        CHECK(lk_quantize_gguf(in, &p, &w, NULL) == LK_ERR_INVALID_ARG && w == NULL, "ftype 4 accepted");
        CHECK(strstr(lk_last_error(), "file type 4") != NULL, "message: %s", lk_last_error());
        p.ftype = LK_FTYPE_Q4_K_M; p.output_type = 4;
        CHECK(lk_quantize_gguf(in, &p, &w, NULL) == LK_ERR_INVALID_ARG && w == NULL, "output type 4 accepted");
        p.output_type = -1;
        CHECK(lk_quantize_gguf(q4, &p, &w, NULL) == LK_ERR_UNSUPPORTED && w == NULL, "requantizing without allow_requantize");
        CHECK(strstr(lk_last_error(), "requantiz") != NULL, "message: %s", lk_last_error());
        p.ftype = LK_FTYPE_IQ2_XXS;
        CHECK(lk_quantize_gguf(in, &p, &w, NULL) == LK_ERR_UNSUPPORTED && w == NULL, "IQ2_XXS needs an imatrix");
        CHECK(strstr(lk_last_error(), "no quantizer") != NULL, "message: %s", lk_last_error());

        /* the default Q4_K_M mix, all memory from an arena, progress reported */
        p = lk_quantize_gguf_default_params();
        p.ftype = LK_FTYPE_Q4_K_M;
        arena_buf = (unsigned char *)malloc(16u << 20);
        lk_arena_init(&arena, arena_buf, arena_buf ? 16u << 20 : 0);
        al = lk_arena_allocator(&arena);
        p.alloc = &al;
        memset(&pc, 0, sizeof pc);
        pc.last_index = -1;
        p.progress = on_progress; p.progress_user = &pc;
        st = lk_quantize_gguf(in, &p, &w, &stats);
        CHECK_OK(st);
        if (!st && w) {
            uint64_t got_len = lk_gguf_writer_size(w);
            got = (unsigned char *)malloc((size_t)got_len + 1);
            CHECK_OK(lk_gguf_writer_write_memory(w, got, (size_t)got_len));
            CHECK(got_len == want_len, "%llu bytes, llama-quantize wrote %zu", (unsigned long long)got_len, want_len);
            CHECK(got_len == want_len && memcmp(got, want, want_len) == 0, "bytes differ from llama-quantize's");
            CHECK(pc.calls == (int64_t)in->n_tensors && pc.count == pc.calls && pc.last_index == pc.calls - 1, "progress: %lld calls",
                  (long long)pc.calls);
            /* 16 2-D weights converted (README: Q6_K for 3, Q4_K for 13), 5 norms copied */
            CHECK(stats.n_converted == 16 && pc.converted == 16 && stats.n_mixed == 16 && stats.n_fallback == 0,
                  "stats: %lld converted, %d mixed, %d fallback", (long long)stats.n_converted, stats.n_mixed, stats.n_fallback);
            {   /* tensor bytes before / after = the sums over the two files */
                lk_gguf *ref = NULL;
                uint64_t sum_in = 0, sum_ref = 0, k;
                for (k = 0; k < in->n_tensors; k++) sum_in += in->tensors[k].nbytes;
                CHECK_OK(lk_gguf_read_memory(want, want_len, NULL, &ref));
                if (ref) for (k = 0; k < ref->n_tensors; k++) sum_ref += ref->tensors[k].nbytes;
                CHECK(stats.src_bytes == sum_in && stats.dst_bytes == sum_ref, "stats bytes %llu -> %llu, files %llu -> %llu",
                      (unsigned long long)stats.src_bytes, (unsigned long long)stats.dst_bytes, (unsigned long long)sum_in,
                      (unsigned long long)sum_ref);
                lk_gguf_free(ref);
            }
        }
        lk_gguf_writer_free(w);
        w = NULL;
        /* an arena too small: an error, no crash */
        lk_arena_init(&arena, arena_buf, arena_buf ? 100000 : 0);
        p.progress = NULL;
        CHECK(lk_quantize_gguf(in, &p, &w, NULL) == LK_ERR_NOMEM && w == NULL, "small arena");
    }
    free(arena_buf); free(got); free(want);
    lk_gguf_free(in);
    lk_gguf_free(q4);
    lk_t_end();
}

/* llama.cpp 0c1e570's rules for the file types of the FP4 / 1-2 bit types
 * (src/llama-quant.cpp): MXFP4_MOE puts weights of more than one matrix
 * (the experts) in MXFP4, everything else (output included) in Q8_0; Q2_0
 * keeps token_embd in Q4_K and the output in Q6_K */
static void test_mix_new_types(void) {
    lk_quant_mix m;
    lk_t_begin("mix_new_types: MXFP4_MOE, Q2_0, Q1_0 as llama-quantize 0c1e570");
    lk_quant_mix_init_shape(&m, "qwen3moe", 2, 4, 2, 4);
    CHECK(lk_quant_mix_type3(&m, LK_TYPE_MXFP4, "blk.0.ffn_up_exps.weight", 128, 4, LK_FTYPE_MXFP4_MOE) == LK_TYPE_MXFP4, "experts");
    CHECK(lk_quant_mix_type3(&m, LK_TYPE_MXFP4, "blk.0.attn_q.weight", 128, 1, LK_FTYPE_MXFP4_MOE) == LK_TYPE_Q8_0, "attn_q");
    CHECK(lk_quant_mix_type(&m, LK_TYPE_MXFP4, "blk.0.ffn_up_exps.weight", 128, LK_FTYPE_MXFP4_MOE) == LK_TYPE_Q8_0, "one matrix (ne2 = 1)");
    CHECK(lk_quant_mix_type3(&m, LK_TYPE_MXFP4, "output.weight", 128, 1, LK_FTYPE_MXFP4_MOE) == LK_TYPE_Q8_0, "output");
    CHECK(lk_quant_mix_type3(&m, LK_TYPE_MXFP4, "token_embd.weight", 128, 1, LK_FTYPE_MXFP4_MOE) == LK_TYPE_Q8_0, "token_embd");
    lk_quant_mix_init_shape(&m, "bailingmoe3", 2, 4, 2, 4);
    CHECK(lk_quant_mix_type3(&m, LK_TYPE_MXFP4, "blk.0.attn_k_b.weight", 128, 4, LK_FTYPE_MXFP4_MOE) == LK_TYPE_Q8_0, "bailingmoe3: 3-D non-ffn");
    CHECK(lk_quant_mix_type3(&m, LK_TYPE_MXFP4, "blk.0.ffn_down_exps.weight", 128, 4, LK_FTYPE_MXFP4_MOE) == LK_TYPE_MXFP4, "bailingmoe3: experts");
    lk_quant_mix_init_shape(&m, "llama", 2, 4, 2, 0);
    CHECK(lk_quant_mix_type(&m, LK_TYPE_Q2_0, "token_embd.weight", 256, LK_FTYPE_Q2_0) == LK_TYPE_Q4_K, "Q2_0 token_embd");
    CHECK(lk_quant_mix_type(&m, LK_TYPE_Q2_0, "output.weight", 256, LK_FTYPE_Q2_0) == LK_TYPE_Q6_K, "Q2_0 output");
    CHECK(lk_quant_mix_type(&m, LK_TYPE_Q2_0, "blk.0.attn_v.weight", 96, LK_FTYPE_Q2_0) == LK_TYPE_Q4_0, "Q2_0 on 96-wide rows");
    CHECK(lk_quant_mix_type(&m, LK_TYPE_Q1_0, "blk.0.ffn_up.weight", 128, LK_FTYPE_Q1_0) == LK_TYPE_Q1_0, "Q1_0 ffn_up");
    lk_t_end();
}

int main(void) {
    static const char *stories_types[] = { "F16", "Q8_0", "Q5_1", "Q5_0", "Q4_K_M", "Q4_1", "Q4_0" };
    static const char *archs[] = { "qwen2", "gemma2", "phi3", "gpt2" };
    char name[128], src[256], ref[256];
    size_t i;
    test_ftype_names();
    test_ftype_fixtures();
    test_fallback();
    test_mix_shape();
    test_mix_new_types();
    check_mix_file("mix_vs_llama_quantize_llama_Q4_K_M", "models/llama/llama-F32.gguf", "models/llama/llama-Q4_K_M-mix.gguf", "Q4_K_M");
    for (i = 0; i < sizeof archs / sizeof archs[0]; i++) {
        snprintf(src, sizeof src, "models/%s/%s-F32.gguf", archs[i], archs[i]);
        snprintf(ref, sizeof ref, "models/%s/%s-Q4_K_M-mix.gguf", archs[i], archs[i]);
        snprintf(name, sizeof name, "mix_vs_llama_quantize_%s_Q4_K_M", archs[i]);
        check_mix_file(name, src, ref, "Q4_K_M");
        snprintf(ref, sizeof ref, "models/%s/%s-Q8_0.gguf", archs[i], archs[i]);
        snprintf(name, sizeof name, "mix_vs_llama_quantize_%s_Q8_0", archs[i]);
        check_mix_file(name, src, ref, "Q8_0");
    }
    /* 64-wide rows (fallbacks to legacy types) and 172-wide ffn_down (F16) */
    for (i = 0; i < sizeof stories_types / sizeof stories_types[0]; i++) {
        snprintf(ref, sizeof ref, "stories260K/stories260K-%s.gguf", stories_types[i]);
        snprintf(name, sizeof name, "mix_vs_llama_quantize_stories260K_%s", stories_types[i]);
        check_mix_file(name, "stories260K/stories260K-F32.gguf", ref, stories_types[i]);
    }
    test_quantize_gguf();
    return lk_t_exit();
}
