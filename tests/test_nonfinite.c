/* Non-finite weights: lk_validate_data on crafted blocks of every checked
 * type, lk_model_params.check_tensors naming the tensor and element, and a
 * decode whose logits are not finite failing without handing them on.
 * The models are fixture files with one value poisoned by the test.
 * lk-test: sanitize */
#define LLMKIT_IMPLEMENTATION
#include "llmkit.h"
#include "tests/lk_test.h"
#include <math.h>

/* f16 / bf16 bit patterns */
#define H_INF 0x7C00u
#define H_NAN 0x7E00u
#define B_INF 0x7F80u
#define B_NAN 0x7FC0u

static void put16(unsigned char *p, unsigned v) { p[0] = (unsigned char)(v & 0xFF); p[1] = (unsigned char)(v >> 8); }

/* n blocks of type t, all zero (finite), then one value poisoned at block
 * `at`, byte offset `off` with the 16-bit pattern `bits`; expect the index */
static void expect_block(lk_type t, int n, int at, int off, unsigned bits) {
    const lk_type_traits *tt = lk_type_get(t);
    size_t bytes = tt->type_size * (size_t)n;
    unsigned char *b = (unsigned char *)calloc(bytes, 1);
    int64_t bad = 0;
    lk_status st;
    CHECK(lk_validate_data(t, b, bytes, &bad) == LK_OK && bad == -1, "%s: zero blocks refused: %s", tt->name, lk_last_error());
    put16(b + (size_t)at * tt->type_size + off, bits);
    st = lk_validate_data(t, b, bytes, &bad);
    CHECK(st == LK_ERR_FORMAT && bad == at, "%s: poisoned block %d at byte %d: status %d, index %lld", tt->name, at, off, st, (long long)bad);
    put16(b + (size_t)at * tt->type_size + off, 0x3C00u);   /* 1.0: finite again */
    CHECK(lk_validate_data(t, b, bytes, &bad) == LK_OK, "%s: finite scale refused", tt->name);
    free(b);
}

static void test_validate(void) {
    float f[64];
    double dd[4] = { 0, 1, -2, 3 };
    uint16_t h[40];
    int64_t bad;
    int i;
    lk_t_begin("lk_validate_data: float types, every element");
    for (i = 0; i < 64; i++) f[i] = (float)i - 30.0f;
    CHECK(lk_validate_data(LK_TYPE_F32, f, sizeof f, &bad) == LK_OK, "finite f32 refused");
    f[37] = NAN;
    CHECK(lk_validate_data(LK_TYPE_F32, f, sizeof f, &bad) == LK_ERR_FORMAT && bad == 37, "f32 NaN at 37: %lld", (long long)bad);
    CHECK(strstr(lk_last_error(), "37") && strstr(lk_last_error(), "NaN"), "message: %s", lk_last_error());
    f[37] = 0.0f; f[5] = -INFINITY;
    CHECK(lk_validate_data(LK_TYPE_F32, f, sizeof f, &bad) == LK_ERR_FORMAT && bad == 5, "f32 -inf at 5");
    CHECK(strstr(lk_last_error(), "infinite") != NULL, "message: %s", lk_last_error());
    f[5] = 3.4e38f;   /* the largest finite values pass */
    CHECK(lk_validate_data(LK_TYPE_F32, f, sizeof f, &bad) == LK_OK, "large finite f32 refused");
    for (i = 0; i < 40; i++) h[i] = (uint16_t)(0x3C00 + i);   /* finite f16 */
    h[39] = 0x7BFF;                                            /* 65504, the largest finite */
    CHECK(lk_validate_data(LK_TYPE_F16, h, sizeof h, &bad) == LK_OK, "finite f16 refused");
    h[20] = H_INF;
    CHECK(lk_validate_data(LK_TYPE_F16, h, sizeof h, &bad) == LK_ERR_FORMAT && bad == 20, "f16 inf at 20");
    h[20] = 0xFE01;   /* a negative NaN */
    CHECK(lk_validate_data(LK_TYPE_F16, h, sizeof h, &bad) == LK_ERR_FORMAT && bad == 20, "f16 -NaN at 20");
    for (i = 0; i < 40; i++) h[i] = (uint16_t)(0x3F80 + i);   /* finite bf16 */
    h[39] = 0x7F7F;
    CHECK(lk_validate_data(LK_TYPE_BF16, h, sizeof h, &bad) == LK_OK, "finite bf16 refused");
    h[3] = B_NAN;
    CHECK(lk_validate_data(LK_TYPE_BF16, h, sizeof h, &bad) == LK_ERR_FORMAT && bad == 3, "bf16 NaN at 3");
    h[3] = B_INF | 0x8000u;
    CHECK(lk_validate_data(LK_TYPE_BF16, h, sizeof h, &bad) == LK_ERR_FORMAT && bad == 3, "bf16 -inf at 3");
    CHECK(lk_validate_data(LK_TYPE_F64, dd, sizeof dd, &bad) == LK_OK, "finite f64 refused");
    dd[2] = HUGE_VAL;
    CHECK(lk_validate_data(LK_TYPE_F64, dd, sizeof dd, &bad) == LK_ERR_FORMAT && bad == 2, "f64 inf at 2");
    CHECK(lk_validate_data(LK_TYPE_F32, f, 7, &bad) == LK_ERR_INVALID_ARG, "a partial element accepted");
    CHECK(lk_validate_data((lk_type)4, f, 8, &bad) == LK_ERR_INVALID_ARG, "a removed type accepted");
    lk_t_end();

    lk_t_begin("lk_validate_data: block scales d and dmin of the quantized types");
    expect_block(LK_TYPE_Q4_0, 5, 3, 0, H_INF);
    expect_block(LK_TYPE_Q4_1, 5, 1, 2, H_NAN);                           /* m */
    expect_block(LK_TYPE_Q5_0, 5, 4, 0, H_NAN);
    expect_block(LK_TYPE_Q5_1, 5, 0, 0, H_INF);
    expect_block(LK_TYPE_Q8_0, 5, 2, 0, H_NAN);
    expect_block(LK_TYPE_Q8_1, 5, 1, 0, H_INF);
    expect_block(LK_TYPE_Q8_1, 5, 3, 2, H_NAN);                           /* s */
    expect_block(LK_TYPE_Q2_K, 3, 2, 82, H_INF);                          /* dmin after scales[16] qs[64] d */
    expect_block(LK_TYPE_Q3_K, 3, 1, 108, H_NAN);                         /* d after hmask, qs, scales */
    expect_block(LK_TYPE_Q4_K, 3, 1, 2, H_INF);                           /* dmin */
    expect_block(LK_TYPE_Q5_K, 3, 2, 0, H_NAN);
    expect_block(LK_TYPE_Q6_K, 3, 0, 208, H_INF);                         /* d after ql, qh, scales */
    expect_block(LK_TYPE_IQ4_NL, 4, 3, 0, H_NAN);
    expect_block(LK_TYPE_IQ4_XS, 2, 1, 0, H_INF);
    expect_block(LK_TYPE_IQ3_XXS, 2, 1, 0, H_INF);
    expect_block(LK_TYPE_IQ2_XXS, 2, 0, 0, H_NAN);
    expect_block(LK_TYPE_TQ1_0, 2, 1, 52, H_INF);                         /* d after qs[48] qh[4] */
    expect_block(LK_TYPE_TQ2_0, 2, 1, 64, H_NAN);
    {   /* Q8_K: an f32 d */
        unsigned char b[292 * 2];
        float inf = INFINITY;
        memset(b, 0, sizeof b);
        memcpy(b + 292, &inf, 4);
        CHECK(lk_validate_data(LK_TYPE_Q8_K, b, sizeof b, &bad) == LK_ERR_FORMAT && bad == 1, "q8_K inf d");
    }
    {   /* IQ1_M: the f16 scale lives in the top nibbles of the four scale words */
        unsigned char b[56 * 2];
        uint16_t sc[4];
        memset(b, 0, sizeof b);
        CHECK(lk_validate_data(LK_TYPE_IQ1_M, b, sizeof b, &bad) == LK_OK, "iq1_m zero refused");
        sc[0] = 0x0000; sc[1] = 0x0000; sc[2] = 0xC000; sc[3] = 0x7000;   /* top nibbles 0, 0, C, 7: the f16 0x7C00 = inf */
        memcpy(b + 56 + 48, sc, 8);
        CHECK(lk_validate_data(LK_TYPE_IQ1_M, b, sizeof b, &bad) == LK_ERR_FORMAT && bad == 1, "iq1_m inf scale: %s", lk_last_error());
    }
    lk_t_end();
}

/* a copy of the fixture with one 16- or 32-bit value of tensor `tname`
 * replaced (at byte offset off of its data) */
static unsigned char *poisoned(const lk_gguf *src, const char *tname, size_t off, const void *val, size_t vlen, size_t *len) {
    lk_gguf_writer *w;
    uint64_t i;
    unsigned char *buf;
    lk_gguf_writer_new(NULL, &w);
    for (i = 0; i < src->n_kv; i++) {
        char k[256];
        snprintf(k, sizeof k, "%.*s", (int)src->kv[i].key.len, src->kv[i].key.ptr);
        lk_gguf_writer_add_value(w, k, &src->kv[i].value);
    }
    for (i = 0; i < src->n_tensors; i++) {
        const lk_gguf_tensor *t = &src->tensors[i];
        char n[256];
        snprintf(n, sizeof n, "%.*s", (int)t->name.len, t->name.ptr);
        if (!strcmp(n, tname)) {
            unsigned char *d = (unsigned char *)malloc((size_t)t->nbytes);
            memcpy(d, t->data, (size_t)t->nbytes);
            memcpy(d + off, val, vlen);
            lk_gguf_writer_add_tensor(w, n, t->type, t->n_dims, t->ne, d, 1);
            free(d);
        } else lk_gguf_writer_add_tensor(w, n, t->type, t->n_dims, t->ne, t->data, 0);
    }
    *len = (size_t)lk_gguf_writer_size(w);
    buf = (unsigned char *)malloc(*len);
    lk_gguf_writer_write_memory(w, buf, *len);
    lk_gguf_writer_free(w);
    return buf;
}

/* check_tensors refuses the file naming the tensor; without it the model
 * loads and the decode fails (no logits, nothing stored) */
static void expect_model(const char *fixture, const char *tname, size_t off, const void *val, size_t vlen, const char *where) {
    const char *path = lk_t_fixture(fixture);
    lk_gguf *src;
    unsigned char *b;
    size_t len;
    lk_model *m = NULL;
    lk_model_params mp = lk_model_default_params();
    lk_context *c = NULL;
    lk_context_params cp = lk_context_default_params();
    lk_token toks[10] = { 1, 11, 48, 85, 2, 3, 4, 5, 6, 7 };
    lk_status st;
    if (!path || lk_gguf_read_file(path, NULL, &src)) { CHECK(0, "cannot read %s", fixture); return; }
    b = poisoned(src, tname, off, val, vlen, &len);
    mp.check_tensors = 1;
    st = lk_model_load_memory(b, len, &mp, &m);
    CHECK(st == LK_ERR_FORMAT && m == NULL, "%s: check_tensors accepted a poisoned %s", fixture, tname);
    CHECK(strstr(lk_last_error(), tname) && strstr(lk_last_error(), where), "%s: message lacks '%s' / '%s': %s", fixture, tname, where, lk_last_error());
    if (getenv("LK_VERBOSE")) printf("  check_tensors: %s\n", lk_last_error());
    lk_model_free(m); m = NULL;
    CHECK_OK(lk_model_load_memory(b, len, NULL, &m));   /* without the check it loads */
    cp.n_ctx = 16;
    cp.n_batch = 3;   /* chunks of 3, 3, 3, 1: the first three are stored before the last one fails */
    if (m && lk_context_new(m, &cp, &c) == LK_OK) {
        st = lk_decode(c, toks, 10);
        CHECK(st == LK_ERR_FORMAT, "%s: decode with a poisoned %s returned %d", fixture, tname, st);
        /* the logits check names the call's token 9 (the only one with logits); a matmul may refuse its activations first */
        CHECK(strstr(lk_last_error(), "not finite") && (!strstr(lk_last_error(), "logits after") || strstr(lk_last_error(), "after token 9 of the call")),
              "decode message: %s", lk_last_error());
        if (getenv("LK_VERBOSE")) printf("  decode: %s\n", lk_last_error());
        CHECK(lk_logits(c, -1) == NULL && lk_context_n_past(c) == 0, "logits handed on / tokens kept after the failure");
        lk_context_free(c);
    }
    lk_model_free(m);
    free(b);
    lk_gguf_free(src);
}

int main(void) {
    float nanv = NAN, infv = INFINITY;
    unsigned char hinf[2] = { 0x00, 0x7C }, hnan[2] = { 0x00, 0x7E };
    test_validate();
    if (!lk_t_fixture("models/llama/llama-F32.gguf")) { lk_t_skip("non-finite models", "fixtures absent (../shared/fixtures)"); return lk_t_exit(); }
    lk_t_begin("check_tensors and decode: NaN / inf in f32 weights");
    expect_model("models/llama/llama-F32.gguf", "blk.0.attn_q.weight", 4 * 1000, &nanv, 4, "element 1000");
    expect_model("models/llama/llama-F32.gguf", "blk.1.ffn_norm.weight", 4 * 7, &infv, 4, "element 7");
    expect_model("models/gemma2/gemma2-F32.gguf", "token_embd.weight", 4 * 64 * 11, &nanv, 4, "element 704");   /* row of token 11 */
    lk_t_end();
    lk_t_begin("check_tensors and decode: non-finite block scales");
    expect_model("models/llama/llama-Q8_0.gguf", "blk.1.ffn_down.weight", 34 * 5, hinf, 2, "block 5");
    expect_model("models/llama/llama-Q4_K_M.gguf", "blk.0.attn_v.weight", 144 * 1, hnan, 2, "block 1");
    lk_t_end();
    return lk_t_exit();
}
