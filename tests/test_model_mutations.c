/* Mutations of the fixture models: well-formed GGUF files with bad
 * contents: every hyperparameter key of each architecture set to 0, 1, 2, a
 * huge value, a negative one, a string or NaN, or removed; tensors removed,
 * transposed, widened, made 3-D or given another type; tokenizer ids out of
 * range and tokenizer arrays of the wrong length or type; and non-finite
 * weights. Each file goes through the whole public path (load with and
 * without check_tensors, context, decode, tokenize, sample) and must either
 * work or fail with a status and a message; never crash (this test is also
 * built with ASan + UBSan), never hand out non-finite logits, and a failed
 * decode must leave the context as it was.
 * The architectures of issue 32 have no fixture file: their bases are the
 * random-weight models of test_model.c's generator (gen_bases below, one row
 * per architecture), mutated as above plus the keys only they read (experts,
 * window patterns, YaRN, SWA RoPE base, attention temperature, latent ranks,
 * per-layer sizes: gen_suffixes) and their tensors (attention sinks, expert
 * biases, ...) removed, transposed, widened, made 3-D or retyped.
 *   test_model_mutations --write DIR   also writes every variant to DIR
 *   test_model_mutations --generated [LABEL]   only the generated bases (or that one)
 * lk-test: sanitize */
#define main lk_t_test_model_main   /* test_model.c's generator (gen_archs, gen_model); its main is not used */
#include "tests/test_model.c"
#undef main
#include <ctype.h>

static const char *write_dir;
static int n_variants, n_loaded, n_decoded, n_refused_load, n_refused_decode;

/* ---- building variants ---------------------------------------------------- */
typedef struct edit {
    const char *key;            /* KV to replace (v) or drop (v NULL)         */
    const lk_gguf_value *v;
    const char *tname;          /* tensor to change                           */
    int t_op;                   /* 0 none, 1 drop, 2 transpose, 3 widen ne0, 4 make 3-D, 5 retype f16, 6 retype i32, 7 poison */
    size_t poison_off;          /* op 7: byte offset; value below             */
    uint32_t poison_bits;
    int must_refuse;            /* check_tensors must refuse the file         */
} edit;
static int cur_must_refuse;
static const char *cur_tname;   /* the changed tensor: a refusal may name it instead of saying "tensor" */

static int name_is(lk_str s, const char *c) { return s.len == strlen(c) && memcmp(s.ptr, c, s.len) == 0; }

static unsigned char *build(const lk_gguf *src, const edit *e, size_t *len) {
    lk_gguf_writer *w;
    uint64_t i;
    unsigned char *buf;
    static float zeros[1 << 18];
    if (lk_gguf_writer_new(NULL, &w)) return NULL;
    for (i = 0; i < src->n_kv; i++) {
        char k[256];
        snprintf(k, sizeof k, "%.*s", (int)src->kv[i].key.len, src->kv[i].key.ptr);
        if (e->key && !strcmp(k, e->key)) { if (e->v) lk_gguf_writer_add_value(w, k, e->v); continue; }
        lk_gguf_writer_add_value(w, k, &src->kv[i].value);
    }
    if (e->key && e->v && lk_gguf_find_key(src, e->key) < 0) lk_gguf_writer_add_value(w, e->key, e->v);
    for (i = 0; i < src->n_tensors; i++) {
        const lk_gguf_tensor *t = &src->tensors[i];
        char n[256];
        int64_t ne[4];
        snprintf(n, sizeof n, "%.*s", (int)t->name.len, t->name.ptr);
        memcpy(ne, t->ne, sizeof ne);
        if (!e->tname || !name_is(t->name, e->tname) || e->t_op == 0) { lk_gguf_writer_add_tensor(w, n, t->type, t->n_dims, t->ne, t->data, 0); continue; }
        switch (e->t_op) {
        case 1: break;
        case 2: ne[0] = t->ne[1]; ne[1] = t->ne[0];   /* same bytes, rows and columns swapped (when the type allows) */
            if (lk_row_size(t->type, ne[0])) lk_gguf_writer_add_tensor(w, n, t->type, 2, ne, t->data, 0);
            break;
        case 3: ne[0] = t->ne[0] + lk_type_get(t->type)->blck_size; ne[1] = 1;   /* a wider single row of zeros */
            if (lk_row_size(t->type, ne[0]) <= sizeof zeros) lk_gguf_writer_add_tensor(w, n, t->type, 2, ne, zeros, 0);
            break;
        case 4: ne[0] = t->ne[0]; ne[1] = t->ne[1] > 1 && t->ne[1] % 2 == 0 ? t->ne[1] / 2 : t->ne[1]; ne[2] = t->ne[1] > 1 && t->ne[1] % 2 == 0 ? 2 : 1;
            lk_gguf_writer_add_tensor(w, n, t->type, 3, ne, t->data, 0);
            break;
        case 5: case 6: {   /* same shape, another type, zero data */
            lk_type ty = e->t_op == 5 ? LK_TYPE_F16 : LK_TYPE_I32;
            size_t bytes = lk_row_size(ty, t->ne[0]) * (size_t)(t->ne[1] * t->ne[2] * t->ne[3]);
            unsigned char *d = (unsigned char *)calloc(bytes ? bytes : 1, 1);
            lk_gguf_writer_add_tensor(w, n, ty, t->n_dims, t->ne, d, 1);
            free(d);
        } break;
        case 7: {
            unsigned char *d = (unsigned char *)malloc((size_t)t->nbytes);
            memcpy(d, t->data, (size_t)t->nbytes);
            if (e->poison_off + 4 <= t->nbytes) memcpy(d + e->poison_off, &e->poison_bits, 4);
            lk_gguf_writer_add_tensor(w, n, t->type, t->n_dims, t->ne, d, 1);
            free(d);
        } break;
        }
    }
    *len = (size_t)lk_gguf_writer_size(w);
    buf = (unsigned char *)malloc(*len ? *len : 1);
    if (buf && lk_gguf_writer_write_memory(w, buf, *len)) { free(buf); buf = NULL; }
    lk_gguf_writer_free(w);
    return buf;
}

/* ---- running one variant -------------------------------------------------- */
static int msg_ok(void) { const char *m = lk_last_error(); return m && m[0] && strcmp(m, "no error") != 0; }

static void exercise(const char *what, const unsigned char *buf, size_t len) {
    int check;
    n_variants++;
    if (write_dir) {
        char path[1024];
        const char *w;
        FILE *f;
        int k;
        snprintf(path, sizeof path, "%s/%04d-", write_dir, n_variants);
        for (k = (int)strlen(path), w = what; *w && k < (int)sizeof path - 6; w++) path[k++] = (char)(isalnum((unsigned char)*w) || *w == '.' ? *w : '_');
        path[k] = 0;
        strcat(path, ".gguf");
        if ((f = fopen(path, "wb"))) { fwrite(buf, 1, len, f); fclose(f); }
    }
    for (check = 0; check < 2; check++) {
        lk_model_params mp = lk_model_default_params();
        lk_model *m = NULL;
        lk_context *c = NULL;
        lk_status st;
        mp.check_tensors = check;
        lk_clear_error();
        st = lk_model_load_memory(buf, len, &mp, &m);
        if (check && cur_must_refuse)
            CHECK(st == LK_ERR_FORMAT && (strstr(lk_last_error(), "tensor") || (cur_tname && strstr(lk_last_error(), cur_tname))),
                  "%s: check_tensors accepted it (%d: %s)", what, st, st ? lk_last_error() : "loaded");
        if (st) { CHECK(m == NULL && msg_ok(), "%s: refused (%d) without a message or with a model", what, st); n_refused_load++; continue; }
        n_loaded++;
        st = lk_context_new(m, NULL, &c);
        if (st) CHECK(c == NULL && msg_ok(), "%s: context refused without a message", what);
        if (c) {
            const lk_hparams *hp = lk_model_hparams(m);
            lk_token toks[6];
            int i, V = lk_model_n_vocab(m);
            for (i = 0; i < 6; i++) toks[i] = (lk_token)((i * 37 + 1) % V);
            st = lk_decode(c, toks, lk_context_n_ctx(c) < 6 ? lk_context_n_ctx(c) : 6);
            if (st) {
                CHECK(msg_ok() && lk_context_n_past(c) == 0 && lk_logits(c, -1) == NULL, "%s: failed decode (%d) left state or no message", what, st);
                if (getenv("LK_VERBOSE")) printf("  decode refused: %s: %s\n", what, lk_last_error());
                n_refused_decode++;
            } else {
                const float *l = lk_logits(c, -1);
                int bad = 0;
                lk_sampler *s = NULL;
                n_decoded++;
                for (i = 0; l && i < V; i++) bad += !(l[i] - l[i] == 0.0f);
                CHECK(l && bad == 0, "%s: decode OK with %d non-finite logits", what, bad);
                if (l && lk_sampler_new(NULL, &s) == LK_OK) { lk_token t = lk_sampler_sample(s, l, V); CHECK(t >= 0 && t < V, "%s: sampled %d", what, (int)t); }
                lk_sampler_free(s);
                if (lk_context_n_ctx(c) > 7) {   /* one more token, then roll back */
                    lk_token one = 2 % V;
                    if (lk_decode(c, &one, 1) == LK_OK) CHECK_OK(lk_context_truncate(c, 1));
                }
            }
            (void)hp;
            lk_context_free(c);
        }
#ifndef LLMKIT_NO_TOKENIZER
        if (lk_model_vocab(m)) {
            lk_token t[64];
            char text[256];
            int n = lk_tokenize(lk_model_vocab(m), "Once upon a time, <s> there was\n a <0x0A> \xe2\x96\x81 \xff\xfe girl.", 45, t, 64, 1, 1);
            CHECK(n != LK_TOKENIZE_ERROR || msg_ok(), "%s: tokenize error without a message", what);
            if (n > 0) (void)lk_detokenize(lk_model_vocab(m), t, n, text, (int)sizeof text, 0, 1);
        }
#endif
        lk_model_free(m);
    }
}
static void variant(const lk_gguf *src, const char *what, const edit *e) {
    size_t len = 0;
    unsigned char *b = build(src, e, &len);
    CHECK(b != NULL, "%s: could not build the variant: %s", what, lk_last_error());
    cur_must_refuse = e->must_refuse; cur_tname = e->tname;
    if (b) exercise(what, b, len);
    free(b);
}

/* ---- the corpus ----------------------------------------------------------- */
/* suffixes NULL: the common keys; brief: 12 of the 18 values (u32 0, 1, 7, 65535, max; no u64, no string): the generated bases */
static void hparam_variants(const lk_gguf *src, const char *label, const char *const *suffixes, int brief) {
    static const char *const base_suffixes[] = {
        "embedding_length", "block_count", "feed_forward_length", "attention.head_count", "attention.head_count_kv",
        "context_length", "attention.key_length", "attention.value_length", "rope.dimension_count", "rope.freq_base",
        "attention.layer_norm_rms_epsilon", "attention.layer_norm_epsilon", "attention.sliding_window",
        "attn_logit_softcapping", "final_logit_softcapping", "rope.scaling.factor", "rope.scaling.original_context_length",
        "rope.scaling.attn_factor", "vocab_size", NULL };
    static const uint32_t u32s[] = { 0, 1, 2, 3, 7, 65535, 0x7fffffffu, 0x80000000u, 0xffffffffu };
    lk_str arch;
    char key[128], what[256];
    int i, j;
    lk_gguf_value v;
    edit e;
    if (lk_gguf_get_str(src, "general.architecture", &arch)) return;
    if (!suffixes) suffixes = base_suffixes;
    for (i = 0; suffixes[i]; i++) {
        snprintf(key, sizeof key, "%.*s.%s", (int)arch.len, arch.ptr, suffixes[i]);
        memset(&e, 0, sizeof e); e.key = key;
        snprintf(what, sizeof what, "%s %s missing", label, key);
        variant(src, what, &e);
        memset(&v, 0, sizeof v); e.v = &v;
        for (j = 0; j < (int)(sizeof u32s / sizeof u32s[0]); j++) {
            if (brief && j != 0 && j != 1 && j != 4 && j != 5 && j != 8) continue;   /* 0, 1, 7, 65535, 0xffffffff */
            v.type = LK_GGUF_UINT32; v.v.u = u32s[j];
            snprintf(what, sizeof what, "%s %s=u32:%u", label, key, (unsigned)u32s[j]);
            variant(src, what, &e);
        }
        v.type = LK_GGUF_INT32; v.v.i = -1;
        snprintf(what, sizeof what, "%s %s=i32:-1", label, key); variant(src, what, &e);
        if (!brief) {
            v.type = LK_GGUF_UINT64; v.v.u = 0xffffffffffffffffull;
            snprintf(what, sizeof what, "%s %s=u64:max", label, key); variant(src, what, &e);
        }
        v.type = LK_GGUF_FLOAT32; v.v.f = NAN;
        snprintf(what, sizeof what, "%s %s=f32:nan", label, key); variant(src, what, &e);
        v.type = LK_GGUF_FLOAT32; v.v.f = 1e30;
        snprintf(what, sizeof what, "%s %s=f32:1e30", label, key); variant(src, what, &e);
        v.type = LK_GGUF_FLOAT32; v.v.f = -3.0;
        snprintf(what, sizeof what, "%s %s=f32:-3", label, key); variant(src, what, &e);
        if (!brief) {
            v.type = LK_GGUF_STRING; v.v.s.ptr = "yarn"; v.v.s.len = 4;
            snprintf(what, sizeof what, "%s %s=str", label, key); variant(src, what, &e);
        }
        {   /* a per-layer array with one odd entry, and an empty array */
            uint32_t arr[64];
            int n = 0;
            int64_t bc = 0;
            char bk[128];
            snprintf(bk, sizeof bk, "%.*s.block_count", (int)arch.len, arch.ptr);
            lk_gguf_get_i64(src, bk, &bc);
            n = bc > 0 && bc < 64 ? (int)bc : 2;
            for (j = 0; j < n; j++) arr[j] = 4;
            arr[n - 1] = 0;
            v.type = LK_GGUF_ARRAY; v.arr_type = LK_GGUF_UINT32; v.n = (uint64_t)n; v.v.arr = arr;
            snprintf(what, sizeof what, "%s %s=array", label, key); variant(src, what, &e);
            v.n = 0;
            snprintf(what, sizeof what, "%s %s=empty array", label, key); variant(src, what, &e);
        }
    }
    if (suffixes != base_suffixes) return;
    {   /* rope scaling types, other architectures for the same tensors */
        static const char *const strs[] = { "linear", "yarn", "none", "", "longrope" };
        static const char *const archs[] = { "llama", "qwen2", "gemma", "gemma2", "phi3", "gpt2", "mamba", "" };
        memset(&e, 0, sizeof e); memset(&v, 0, sizeof v); e.v = &v; v.type = LK_GGUF_STRING;
        snprintf(key, sizeof key, "%.*s.rope.scaling.type", (int)arch.len, arch.ptr); e.key = key;
        for (j = 0; j < 5; j++) { v.v.s.ptr = strs[j]; v.v.s.len = strlen(strs[j]); snprintf(what, sizeof what, "%s rope scaling %s", label, strs[j]); variant(src, what, &e); }
        e.key = "general.architecture";
        for (j = 0; j < 8; j++) { v.v.s.ptr = archs[j]; v.v.s.len = strlen(archs[j]); snprintf(what, sizeof what, "%s as arch '%s'", label, archs[j]); variant(src, what, &e); }
    }
}
/* the keys of issue 32's architectures (read by some of them, ignored by
 * the others): each missing, as u32 0, 1, 7, 65535, 0xffffffff, i32 -1, f32
 * NaN / 1e30 / -3, a per-layer array with an odd entry, empty */
static const char *const gen_suffixes[] = {
    "expert_count", "expert_used_count", "expert_feed_forward_length", "expert_shared_count", "expert_gating_func",
    "expert_weights_scale", "expert_weights_norm", "leading_dense_block_count", "interleave_moe_layer_step",
    "attention.sliding_window_pattern", "attention.temperature_scale", "attention.temperature_length",
    "attention.chunk_size", "attention.q_lora_rank", "attention.kv_lora_rank", "attention.shared_kv_layers",
    "embedding_length_per_layer_input", "rope.freq_base_swa", "rope.scaling.yarn_beta_fast", "rope.scaling.yarn_beta_slow",
    "rope.scaling.yarn_log_multiplier", "rope.dimension_sections", "nextn_predict_layers", "no_rope_layer_step", "shortconv.l_cache",
    "ssm.conv_kernel", "ssm.inner_size", "ssm.state_size", "ssm.time_step_rank", "ssm.group_count", "embedding_scale", "residual_scale",
    "attention.scale", "logit_scale", "rope.scaling.finetuned", NULL };
/* window patterns as llama.cpp writes them (one bool per layer) but of the
 * wrong length or all false / all true, and as signed ints */
static void pattern_variants(const lk_gguf *src, const char *label) {
    static uint8_t bools[70];
    static int32_t ints[70];
    static const int lens[] = { 0, 1, 3, 5, 64, 70 };
    lk_str arch;
    char key[128], what[256];
    lk_gguf_value v;
    edit e;
    int i, j;
    if (lk_gguf_get_str(src, "general.architecture", &arch)) return;
    snprintf(key, sizeof key, "%.*s.attention.sliding_window_pattern", (int)arch.len, arch.ptr);
    memset(&e, 0, sizeof e); memset(&v, 0, sizeof v); e.key = key; e.v = &v;
    for (j = 0; j < (int)(sizeof lens / sizeof lens[0]); j++)
        for (i = 0; i < 3; i++) {
            int k;
            for (k = 0; k < 70; k++) { bools[k] = (uint8_t)(i == 2 ? k % 2 : i); ints[k] = k % 3 - 1; }
            v.type = LK_GGUF_ARRAY; v.arr_type = LK_GGUF_BOOL; v.n = (uint64_t)lens[j]; v.v.arr = bools;
            snprintf(what, sizeof what, "%s %s=bool[%d] %s", label, key, lens[j], i == 0 ? "false" : i == 1 ? "true" : "alternating");
            variant(src, what, &e);
        }
    v.type = LK_GGUF_ARRAY; v.arr_type = LK_GGUF_INT32; v.v.arr = ints;
    for (j = 0; j < (int)(sizeof lens / sizeof lens[0]); j++) {
        v.n = (uint64_t)lens[j];
        snprintf(what, sizeof what, "%s %s=i32[%d] -1,0,1", label, key, lens[j]);
        variant(src, what, &e);
    }
}
static void tensor_variants(const lk_gguf *src, const char *label) {
    uint64_t i;
    int op;
    char what[256], name[128];
    edit e;
    for (i = 0; i < src->n_tensors; i++) {
        const lk_gguf_tensor *t = &src->tensors[i];
        /* every global tensor, and layer 0 / 1 ones */
        if (t->name.len > 6 && !memcmp(t->name.ptr, "blk.", 4) && t->name.ptr[4] != '0' && t->name.ptr[4] != '1') continue;
        if (t->name.len > 6 && !memcmp(t->name.ptr, "blk.1", 5) && t->name.ptr[5] != '.') continue;
        snprintf(name, sizeof name, "%.*s", (int)t->name.len, t->name.ptr);
        for (op = 1; op <= 6; op++) {
            memset(&e, 0, sizeof e); e.tname = name; e.t_op = op;
            snprintf(what, sizeof what, "%s %s op%d", label, name, op);
            variant(src, what, &e);
        }
        {   /* NaN and inf at the start of the data: an element, or a block's scale */
            memset(&e, 0, sizeof e); e.tname = name; e.t_op = 7; e.poison_off = 0;
            e.poison_bits = t->type == LK_TYPE_F32 ? 0x7fc00000u : 0x7c007c00u;   /* f32 NaN; else two f16 infinities */
            switch (t->type) {   /* formats whose first bytes are an f16 value or scale d (ggml's layouts) */
            case LK_TYPE_F32: case LK_TYPE_F16: case LK_TYPE_Q4_0: case LK_TYPE_Q4_1: case LK_TYPE_Q5_0: case LK_TYPE_Q5_1:
            case LK_TYPE_Q8_0: case LK_TYPE_Q4_K: case LK_TYPE_Q5_K: case LK_TYPE_IQ4_NL: case LK_TYPE_IQ4_XS: e.must_refuse = 1; break;
            default: break;
            }
            snprintf(what, sizeof what, "%s %s poisoned", label, name);
            variant(src, what, &e);
        }
    }
}
static void vocab_variants(const lk_gguf *src, const char *label) {
    static const char *const ids[] = { "tokenizer.ggml.bos_token_id", "tokenizer.ggml.eos_token_id", "tokenizer.ggml.unknown_token_id",
                                       "tokenizer.ggml.padding_token_id", "tokenizer.ggml.eot_token_id", NULL };
    static const uint32_t vals[] = { 0, 511, 512, 100000, 0x7fffffffu, 0xfffffffeu };
    static const char *const arrays[] = { "tokenizer.ggml.tokens", "tokenizer.ggml.scores", "tokenizer.ggml.token_type", "tokenizer.ggml.merges", NULL };
    lk_gguf_value v;
    edit e;
    char what[256];
    int i, j;
    memset(&v, 0, sizeof v);
    for (i = 0; ids[i]; i++)
        for (j = 0; j < 6; j++) {
            memset(&e, 0, sizeof e); e.key = ids[i]; e.v = &v;
            v.type = LK_GGUF_UINT32; v.v.u = vals[j];
            snprintf(what, sizeof what, "%s %s=%u", label, ids[i], (unsigned)vals[j]);
            variant(src, what, &e);
        }
    for (i = 0; arrays[i]; i++) {
        const lk_gguf_value *orig = lk_gguf_get(src, arrays[i]);
        lk_gguf_value cut;
        memset(&e, 0, sizeof e); e.key = arrays[i];
        snprintf(what, sizeof what, "%s %s missing", label, arrays[i]); variant(src, what, &e);
        if (!orig || orig->type != LK_GGUF_ARRAY || orig->n < 2) continue;
        cut = *orig; cut.n = orig->n - 1; e.v = &cut;
        snprintf(what, sizeof what, "%s %s one short", label, arrays[i]); variant(src, what, &e);
        cut.n = 1;
        snprintf(what, sizeof what, "%s %s one entry", label, arrays[i]); variant(src, what, &e);
        v.type = LK_GGUF_UINT32; v.v.u = 7; e.v = &v;
        snprintf(what, sizeof what, "%s %s not an array", label, arrays[i]); variant(src, what, &e);
    }
    {   /* token types out of range */
        const lk_gguf_value *orig = lk_gguf_get(src, "tokenizer.ggml.token_type");
        if (orig && orig->type == LK_GGUF_ARRAY && orig->arr_type == LK_GGUF_INT32 && orig->n < 200000) {
            int32_t *tt = (int32_t *)malloc(sizeof(int32_t) * (size_t)orig->n);
            lk_gguf_value nv = *orig;
            uint64_t k;
            for (k = 0; k < orig->n; k++) tt[k] = (int32_t)(k % 9) - 1;
            nv.v.arr = tt;
            memset(&e, 0, sizeof e); e.key = "tokenizer.ggml.token_type"; e.v = &nv;
            snprintf(what, sizeof what, "%s token types -1..7", label); variant(src, what, &e);
            free(tt);
        }
        memset(&e, 0, sizeof e); e.key = "tokenizer.ggml.model"; e.v = &v;
        v.type = LK_GGUF_STRING; v.v.s.ptr = "gpt2"; v.v.s.len = 4;
        snprintf(what, sizeof what, "%s tokenizer model gpt2 without merges", label); variant(src, what, &e);
        v.v.s.ptr = "rwkv"; v.v.s.len = 4;
        snprintf(what, sizeof what, "%s tokenizer model rwkv", label); variant(src, what, &e);
    }
}

/* the generated bases: labels of test_model.c's gen_archs rows */
static const char *const gen_bases[] = { "smollm3", "mistral3", "glm4", "gpt-oss", "glm4moe", "deepseek2", "llama4", "gemma4", "gemma4-sizes", "lfm2", "mamba2",
                                         "granitehybrid", "qwen35" };

int main(int argc, char **argv) {
    static const char *const bases[][2] = {
        { "models/llama/llama-Q8_0.gguf", "llama-q8" }, { "models/gemma2/gemma2-F32.gguf", "gemma2" },
        { "models/gpt2/gpt2-F32.gguf", "gpt2" }, { "models/phi3/phi3-Q8_0.gguf", "phi3" },
        { "models/qwen2/qwen2-Q4_K_M-mix.gguf", "qwen2" }, { "stories260K/stories260K-F16.gguf", "stories" },
    };
    size_t b;
    const char *gen_label = NULL;   /* --generated [LABEL]: only the generated bases (or that one) */
    int gen_only = 0, i;
    for (i = 1; i < argc; i++) if (!strcmp(argv[i], "--generated")) { gen_only = 1; gen_label = i + 1 < argc ? argv[i + 1] : NULL; }
    if (argc > 2 && !strcmp(argv[1], "--write")) write_dir = argv[2];
    if (!lk_t_fixture(bases[0][0])) { lk_t_skip("model mutations", "fixtures absent (../shared/fixtures)"); return 0; }
    for (b = 0; !gen_only && b < sizeof bases / sizeof bases[0]; b++) {
        lk_gguf *src = NULL;
        const char *p = lk_t_fixture(bases[b][0]);
        char name[128];
        snprintf(name, sizeof name, "model mutations from %s: hyperparameters, tensors, vocabulary", bases[b][1]);
        if (!p) { lk_t_skip(name, "fixture absent"); continue; }
        lk_t_begin(name);
        CHECK_OK(lk_gguf_read_file(p, NULL, &src));
        if (src) {
            hparam_variants(src, bases[b][1], NULL, 0);
            tensor_variants(src, bases[b][1]);
            if (b == 0 || b == 5) vocab_variants(src, bases[b][1]);
        }
        lk_gguf_free(src);
        lk_t_end();
    }
    if (!(nseq = lk_t_read_seq_a(seq, MAXT)) || !lk_t_fixture("stories260K/stories260K-F32.gguf"))
        lk_t_skip("model mutations of the generated architectures", "fixtures absent (seq A, stories260K's vocabulary)");
    else
        for (b = 0; b < sizeof gen_bases / sizeof gen_bases[0]; b++) {
            const gen_arch *a = NULL;
            unsigned char *buf = NULL;
            size_t j, len = 0;
            lk_gguf *src = NULL;
            char name[160];
            if (gen_label && strcmp(gen_label, gen_bases[b])) continue;
            for (j = 0; j < sizeof gen_archs / sizeof gen_archs[0]; j++) if (!strcmp(gen_archs[j].label, gen_bases[b])) a = &gen_archs[j];
            snprintf(name, sizeof name, "model mutations from generated %s: hyperparameters, its own keys, window patterns, tensors", gen_bases[b]);
            lk_t_begin(name);
            CHECK(a != NULL, "no gen_archs row '%s' in test_model.c", gen_bases[b]);
            if (a) buf = gen_model(a, &len);
            CHECK(buf && lk_gguf_read_memory(buf, len, NULL, &src) == LK_OK, "build: %s", lk_last_error());
            if (src) {
                hparam_variants(src, gen_bases[b], NULL, 1);
                hparam_variants(src, gen_bases[b], gen_suffixes, 1);
                pattern_variants(src, gen_bases[b]);
                tensor_variants(src, gen_bases[b]);
            }
            lk_gguf_free(src);
            free(buf);
            lk_t_end();
        }
    printf("  %d variants: %d loads, %d refused at load, %d decodes, %d refused at decode\n", n_variants, n_loaded, n_refused_load,
           n_decoded, n_refused_decode);
    return lk_t_exit();
}
