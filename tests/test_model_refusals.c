/* Model loading refuses bad metadata: every variant must be refused with an
 * error naming the problem (never a crash). Variants are built from a real
 * fixture model by rewriting one KV or one tensor with the GGUF writer.
 * lk-test: sanitize */
#define LLMKIT_IMPLEMENTATION
#include "llmkit.h"
#include "tests/lk_test.h"

static lk_gguf *src;

/* Rewrite src with KV `key` replaced by `v` (NULL: dropped) and tensor
 * `tname` dropped or given shape ne0 x ne1 (ne0 < 0: dropped), or added
 * (zeros) when src has no such tensor. */
static unsigned char *variant(const char *key, const lk_gguf_value *v, const char *tname, int64_t ne0, int64_t ne1, size_t *len) {
    lk_gguf_writer *w;
    uint64_t i;
    unsigned char *buf;
    static float zeros[1 << 20];
    lk_gguf_writer_new(NULL, &w);
    for (i = 0; i < src->n_kv; i++) {
        char k[256];
        snprintf(k, sizeof k, "%.*s", (int)src->kv[i].key.len, src->kv[i].key.ptr);
        if (key && !strcmp(k, key)) { if (v) lk_gguf_writer_add_value(w, k, v); continue; }
        lk_gguf_writer_add_value(w, k, &src->kv[i].value);
    }
    if (key && v && lk_gguf_find_key(src, key) < 0) lk_gguf_writer_add_value(w, key, v);
    for (i = 0; i < src->n_tensors; i++) {
        const lk_gguf_tensor *t = &src->tensors[i];
        char n[256];
        snprintf(n, sizeof n, "%.*s", (int)t->name.len, t->name.ptr);
        if (tname && !strcmp(n, tname)) {
            int64_t ne[2];
            if (ne0 < 0) continue;
            ne[0] = ne0; ne[1] = ne1;
            lk_gguf_writer_add_tensor(w, n, LK_TYPE_F32, ne1 > 1 ? 2 : 1, ne, zeros, 0);
            continue;
        }
        lk_gguf_writer_add_tensor(w, n, t->type, t->n_dims, t->ne, t->data, 0);
    }
    if (tname && ne0 >= 0 && lk_gguf_find_tensor(src, tname) < 0) {
        int64_t ne[2];
        ne[0] = ne0; ne[1] = ne1;
        lk_gguf_writer_add_tensor(w, tname, LK_TYPE_F32, ne1 > 1 ? 2 : 1, ne, zeros, 0);
    }
    *len = (size_t)lk_gguf_writer_size(w);
    buf = (unsigned char *)malloc(*len);
    lk_gguf_writer_write_memory(w, buf, *len);
    lk_gguf_writer_free(w);
    return buf;
}
static void expect(const char *what, const char *key, const lk_gguf_value *v, const char *tname, int64_t ne0, int64_t ne1, lk_status want) {
    size_t len;
    unsigned char *b = variant(key, v, tname, ne0, ne1, &len);
    lk_model *m = NULL;
    lk_status st = lk_model_load_memory(b, len, NULL, &m);
    if (want == LK_OK) {
        CHECK(st == LK_OK, "%s: refused: %s", what, lk_last_error());
        if (m) {   /* and it runs */
            lk_context *c; lk_token t = 1;
            lk_context_params cp = lk_context_default_params();
            cp.n_ctx = 8;
            CHECK_OK(lk_context_new(m, &cp, &c));
            if (c) { CHECK_OK(lk_decode(c, &t, 1)); lk_context_free(c); }
        }
    } else {
        CHECK(st != LK_OK && m == NULL, "%s: accepted", what);
        if (st != LK_OK && want != (lk_status)-1) CHECK(st == want, "%s: status %d (%s), want %d", what, st, lk_last_error(), want);
        if (getenv("LK_VERBOSE")) printf("  %-32s -> %s\n", what, lk_last_error());
    }
    lk_model_free(m);
    free(b);
}

/* issue 32's rule on fixture `file`: the extra tensor tname [ne0] is used
 * by the architecture's graph (want LK_OK: loads and runs) or refused with
 * its name in the message */
static void expect_extra(const char *what, const char *file, const char *tname, int64_t ne0, lk_status want) {
    lk_gguf *keep = src, *g = NULL;
    const char *p = lk_t_fixture(file);
    if (!p || lk_gguf_read_file(p, NULL, &g)) { CHECK(0, "%s: cannot read %s", what, file); return; }
    src = g;
    expect(what, NULL, NULL, tname, ne0, 1, want);
    if (want != LK_OK) CHECK(strstr(lk_last_error(), tname) != NULL, "%s: the message does not name %s: %s", what, tname, lk_last_error());
    src = keep;
    lk_gguf_free(g);
}

int main(void) {
    const char *p = lk_t_fixture("models/llama/llama-Q8_0.gguf");
    lk_gguf_value v;
    if (!p) { lk_t_skip("model-refusals", "fixtures absent"); return 0; }
    if (lk_gguf_read_file(p, NULL, &src)) { printf("%s\n", lk_last_error()); return 1; }
    memset(&v, 0, sizeof v);

    lk_t_begin("model-refusals-unchanged-loads");
    expect("unchanged copy", NULL, NULL, NULL, 0, 0, LK_OK);
    lk_t_end();

    lk_t_begin("model-refusals-hparams");
    v.type = LK_GGUF_STRING; v.v.s.ptr = "mamba"; v.v.s.len = 5;
    expect("unknown architecture", "general.architecture", &v, NULL, 0, 0, LK_ERR_UNSUPPORTED);
    expect("no architecture", "general.architecture", NULL, NULL, 0, 0, LK_ERR_FORMAT);
    v.type = LK_GGUF_UINT32;
    v.v.u = 0; expect("head_count 0", "llama.attention.head_count", &v, NULL, 0, 0, (lk_status)-1);
    v.v.u = 3; expect("head_count_kv 3 (8 % 3)", "llama.attention.head_count_kv", &v, NULL, 0, 0, LK_ERR_FORMAT);
    v.v.u = 16; expect("head_count_kv > head_count", "llama.attention.head_count_kv", &v, NULL, 0, 0, LK_ERR_FORMAT);
    v.v.u = 7; expect("head_count 7 (n_embd 256)", "llama.attention.head_count", &v, NULL, 0, 0, (lk_status)-1);
    v.v.u = 3; expect("block_count 3 (2 present)", "llama.block_count", &v, NULL, 0, 0, LK_ERR_FORMAT);
    v.v.u = 1u << 30; expect("block_count 2^30", "llama.block_count", &v, NULL, 0, 0, LK_ERR_FORMAT);
    v.v.u = 257; expect("embedding_length 257", "llama.embedding_length", &v, NULL, 0, 0, (lk_status)-1);
    v.v.u = 31; expect("rope dims odd", "llama.rope.dimension_count", &v, NULL, 0, 0, LK_ERR_FORMAT);
    v.v.u = 64; expect("rope dims > head dim", "llama.rope.dimension_count", &v, NULL, 0, 0, LK_ERR_FORMAT);
    v.v.u = 1000; expect("feed_forward_length 1000", "llama.feed_forward_length", &v, NULL, 0, 0, LK_ERR_FORMAT);
    expect("no feed_forward_length", "llama.feed_forward_length", NULL, NULL, 0, 0, LK_ERR_FORMAT);
    v.type = LK_GGUF_STRING; v.v.s.ptr = "x"; v.v.s.len = 1;
    expect("block_count is a string", "llama.block_count", &v, NULL, 0, 0, LK_ERR_TYPE);
    v.type = LK_GGUF_FLOAT32; v.v.f = -1.0;
    expect("negative rms epsilon", "llama.attention.layer_norm_rms_epsilon", &v, NULL, 0, 0, LK_ERR_FORMAT);
    v.v.f = 0.5; expect("rope.freq_base 0.5", "llama.rope.freq_base", &v, NULL, 0, 0, LK_ERR_FORMAT);
    v.type = LK_GGUF_STRING; v.v.s.ptr = "longrope9"; v.v.s.len = 9;
    expect("unknown rope scaling", "llama.rope.scaling.type", &v, NULL, 0, 0, LK_ERR_UNSUPPORTED);
    {   /* per-layer head counts that differ between layers */
        uint32_t hc[2] = {8, 4};
        v.type = LK_GGUF_ARRAY; v.arr_type = LK_GGUF_UINT32; v.n = 2; v.v.arr = hc;
        expect("head_count varies per layer", "llama.attention.head_count", &v, NULL, 0, 0, LK_ERR_UNSUPPORTED);
        hc[1] = 8;
        expect("head_count per-layer array, uniform", "llama.attention.head_count", &v, NULL, 0, 0, LK_OK);
    }
    lk_t_end();

    lk_t_begin("model-refusals-tensors");
    expect("missing attn_q", NULL, NULL, "blk.1.attn_q.weight", -1, 0, LK_ERR_FORMAT);
    expect("missing token_embd", NULL, NULL, "token_embd.weight", -1, 0, LK_ERR_FORMAT);
    expect("attn_k wrong shape", NULL, NULL, "blk.0.attn_k.weight", 256, 32, LK_ERR_FORMAT);
    expect("ffn_down transposed", NULL, NULL, "blk.0.ffn_down.weight", 256, 768, LK_ERR_FORMAT);
    expect("norm wrong length", NULL, NULL, "blk.0.attn_norm.weight", 128, 1, LK_ERR_FORMAT);
    expect("output wrong vocab", NULL, NULL, "output.weight", 256, 511, LK_ERR_FORMAT);
    expect("token_embd vocab != tokenizer", NULL, NULL, "token_embd.weight", 256, 500, (lk_status)-1);
    expect("missing output (tied) still loads", NULL, NULL, "output.weight", -1, 0, LK_OK);
    lk_t_end();

    /* every tensor is used by the graph or refused by name (llama.cpp's
     * loader: "wrong number of tensors"); the optional ones each graph reads
     * load (their effect on the logits: test_model's "-opt" files) */
    lk_t_begin("model-refusals-unused-tensors");
    expect_extra("llama: an unknown tensor", "models/llama/llama-Q8_0.gguf", "blk.0.attn_foo.weight", 256, LK_ERR_FORMAT);
    expect_extra("llama: an unknown global tensor", "models/llama/llama-Q8_0.gguf", "foo.weight", 16, LK_ERR_FORMAT);
    expect_extra("llama: a block past block_count", "models/llama/llama-Q8_0.gguf", "blk.2.attn_norm.weight", 256, LK_ERR_FORMAT);
    expect_extra("llama: output.scale (NVFP4 heads only)", "models/llama/llama-Q8_0.gguf", "output.scale", 1, LK_ERR_FORMAT);
    expect_extra("llama: attn_q.scale [2]", "models/llama/llama-Q8_0.gguf", "blk.0.attn_q.scale", 2, LK_ERR_FORMAT);
    expect_extra("llama: attn_output.bias is used", "models/llama/llama-Q8_0.gguf", "blk.0.attn_output.bias", 256, LK_OK);
    expect_extra("llama: ffn_gate.bias is used", "models/llama/llama-Q8_0.gguf", "blk.1.ffn_gate.bias", 768, LK_OK);
    expect_extra("llama: ffn_down.scale is used", "models/llama/llama-Q8_0.gguf", "blk.1.ffn_down.scale", 1, LK_OK);
    expect_extra("llama: attn_v.input_scale loads", "models/llama/llama-Q8_0.gguf", "blk.0.attn_v.input_scale", 1, LK_OK);
    expect_extra("llama: rope_freqs is read (zeros refused)", "models/llama/llama-Q8_0.gguf", "rope_freqs.weight", 16, LK_ERR_FORMAT);   /* zeros: not positive */
    expect_extra("qwen2: attn_output.bias (not in its graph)", "models/qwen2/qwen2-Q8_0.gguf", "blk.0.attn_output.bias", 256, LK_ERR_FORMAT);
    expect_extra("qwen2: ffn_up.scale (its graph ignores it)", "models/qwen2/qwen2-Q8_0.gguf", "blk.0.ffn_up.scale", 1, LK_ERR_FORMAT);
    expect_extra("qwen2: rope_freqs (llama only)", "models/qwen2/qwen2-Q8_0.gguf", "rope_freqs.weight", 16, LK_ERR_FORMAT);
    expect_extra("qwen2: output.bias is used", "models/qwen2/qwen2-Q8_0.gguf", "output.bias", 512, LK_OK);
    expect_extra("qwen2: attn_output.scale is used", "models/qwen2/qwen2-Q8_0.gguf", "blk.1.attn_output.scale", 1, LK_OK);
    expect_extra("gemma2: output.weight (always tied)", "models/gemma2/gemma2-Q8_0.gguf", "output.weight", 256, LK_ERR_FORMAT);
    expect_extra("gemma2: ffn_gate.bias", "models/gemma2/gemma2-Q8_0.gguf", "blk.0.ffn_gate.bias", 512, LK_ERR_FORMAT);
    expect_extra("phi3: attn_output.bias (not loaded by llama.cpp)", "models/phi3/phi3-Q8_0.gguf", "blk.0.attn_output.bias", 256, LK_ERR_FORMAT);
    expect_extra("phi3: rope_factors_long (longrope)", "models/phi3/phi3-Q8_0.gguf", "rope_factors_long.weight", 16, LK_ERR_FORMAT);
    expect_extra("gpt2: attn_q.bias beside attn_qkv", "models/gpt2/gpt2-Q8_0.gguf", "blk.0.attn_q.bias", 256, LK_ERR_FORMAT);
    lk_t_end();

    lk_t_begin("model-refusals-keys-as-llama-cpp-reads-them");
    v.type = LK_GGUF_FLOAT32; v.v.f = 0.0;
    expect("rope.scaling.factor 0 (none)", "llama.rope.scaling.factor", &v, NULL, 0, 0, LK_OK);
    v.v.f = -2.0;
    expect("rope.scaling.factor -2", "llama.rope.scaling.factor", &v, NULL, 0, 0, LK_ERR_FORMAT);
    v.type = LK_GGUF_UINT32; v.v.u = 0;
    expect("expert_feed_forward_length 0 in a dense llama (not read)", "llama.expert_feed_forward_length", &v, NULL, 0, 0, LK_OK);
    expect("expert_gating_func 0 in llama (not read)", "llama.expert_gating_func", &v, NULL, 0, 0, LK_OK);
    lk_t_end();

    lk_t_begin("model-refusals-alignment");
    {   /* weights are read in place: data that is not 4-byte aligned is refused, not read misaligned */
        lk_gguf_writer *w;
        uint64_t i;
        size_t len;
        unsigned char *buf, *al;
        lk_model *m = NULL;
        lk_gguf_writer_new(NULL, &w);
        lk_gguf_writer_set_alignment(w, 1);       /* allowed by ggml, not by the GGUF spec (a multiple of 8) */
        lk_gguf_writer_add_str(w, "zz.pad", "abc");   /* makes the data section start at an odd offset */
        for (i = 0; i < src->n_kv; i++) {
            char k[256];
            snprintf(k, sizeof k, "%.*s", (int)src->kv[i].key.len, src->kv[i].key.ptr);
            if (strcmp(k, "general.alignment")) lk_gguf_writer_add_value(w, k, &src->kv[i].value);
        }
        for (i = 0; i < src->n_tensors; i++) {
            const lk_gguf_tensor *t = &src->tensors[i];
            char n[256];
            snprintf(n, sizeof n, "%.*s", (int)t->name.len, t->name.ptr);
            lk_gguf_writer_add_tensor(w, n, t->type, t->n_dims, t->ne, t->data, 0);
        }
        len = (size_t)lk_gguf_writer_size(w);
        buf = (unsigned char *)malloc(len + 8);
        al = buf + (8 - (uintptr_t)buf % 8) % 8;   /* an 8-aligned start: the file's own offsets decide */
        if (buf && !lk_gguf_writer_write_memory(w, al, len)) {
            lk_status st = lk_model_load_memory(al, len, NULL, &m);
            CHECK(st == LK_ERR_FORMAT && m == NULL && strstr(lk_last_error(), "aligned"), "alignment 1: status %d, %s", st, lk_last_error());
            lk_model_free(m); m = NULL;
        }
        free(buf);
        lk_gguf_writer_free(w);
        /* a well-formed file handed over at an odd address */
        buf = variant(NULL, NULL, NULL, 0, 0, &len);
        al = (unsigned char *)malloc(len + 1);
        if (buf && al) {
            lk_status st;
            memcpy(al + 1, buf, len);
            st = lk_model_load_memory(al + 1, len, NULL, &m);
            CHECK(st == LK_ERR_FORMAT && m == NULL && strstr(lk_last_error(), "aligned"), "odd buffer: status %d, %s", st, lk_last_error());
            lk_model_free(m);
        }
        free(al);
        free(buf);
    }
    lk_t_end();

    lk_gguf_free(src);
    return lk_t_exit();
}
