/* test_quantize_tool.c - tools/quantize.c (its argument parser and
 * lk_quantize_gguf) must reproduce llama-quantize's output files byte for
 * byte (reference: the llama.cpp-made fixtures). */
#define LLMKIT_IMPLEMENTATION
#include "llmkit.h"
#include "tests/lk_test.h"
#define LK_QUANTIZE_NO_MAIN
#include "tools/quantize.c"

/* quantize `src_rel` with argv-style options and compare with `want_rel` */
static void check_file(const char *case_name, const char *src_rel, const char *want_rel, int pure, const char *type, const char *nthreads) {
    const char *src_path = lk_t_fixture(src_rel), *want_path = lk_t_fixture(want_rel);
    char *argv[7];
    int argc = 0;
    lkq_opts o;
    lk_threads th;
    const char *in_s, *out_s;
    lk_gguf *in = NULL;
    lk_gguf_writer *w = NULL;
    unsigned char *want = NULL, *got = NULL;
    size_t want_len = 0;
    uint64_t got_len;
    if (!src_path || !want_path) { lk_t_skip(case_name, "fixtures absent"); return; }
    lk_t_begin(case_name);
    argv[argc++] = (char *)"--quiet";
    if (pure) argv[argc++] = (char *)"--pure";
    argv[argc++] = (char *)src_path;
    argv[argc++] = (char *)"unused-out.gguf";
    argv[argc++] = (char *)type;
    if (nthreads) argv[argc++] = (char *)nthreads;
    CHECK(lkq_parse_args(argc, argv, &o, &in_s, &out_s) == 0, "argument parsing failed");
    memset(&th, 0, sizeof th);
    th.n_threads = o.n_threads;
    o.qp.threads = &th;
    CHECK_OK(lk_gguf_read_file(src_path, NULL, &in));
    if (in) CHECK_OK(lk_quantize_gguf(in, &o.qp, &w, NULL));
    want = lk_t_read_file(want_path, &want_len);
    CHECK(want != NULL, "cannot read %s", want_path);
    if (w && want) {
        got_len = lk_gguf_writer_size(w);
        got = (unsigned char *)malloc((size_t)got_len + 1);
        CHECK_OK(lk_gguf_writer_write_memory(w, got, (size_t)got_len));
        CHECK(got_len == want_len, "%s: %llu bytes, llama-quantize wrote %zu", want_rel, (unsigned long long)got_len, want_len);
        if (got_len == want_len) {
            size_t k;
            for (k = 0; k < want_len && got[k] == want[k]; k++) {}
            CHECK(k == want_len, "%s: first difference at byte %zu", want_rel, k);
        }
    }
    free(got); free(want);
    lk_gguf_writer_free(w);
    lk_gguf_free(in);
    lk_t_end();
}

/* lk_rotate_gguf must leave an F32 model's function unchanged (a math
 * identity: rms(H x) = rms(x), H^T H = 1): the rotated model's logits over 32
 * tokens against the original's, with an F32 KV cache (f16 rounding would
 * differ), within 1e-5 of the largest logit. want_refused: the rotation must
 * refuse the file (LK_ERR_UNSUPPORTED) instead. */
static void check_rotate(const char *case_name, const char *rel, uint64_t seed, int want_refused) {
    const char *path = lk_t_fixture(rel);
    lk_gguf *in = NULL;
    lk_gguf_writer *w = NULL;
    lk_rotate_params rp = lk_rotate_default_params();
    lk_model_params mp = lk_model_default_params();
    lk_context_params cp = lk_context_default_params();
    lk_model *m0 = NULL, *m1 = NULL;
    lk_context *c0 = NULL, *c1 = NULL;
    unsigned char *buf = NULL;
    size_t len = 0;
    lk_status st;
    if (!path) { lk_t_skip(case_name, "fixtures absent"); return; }
    lk_t_begin(case_name);
    rp.seed = seed;
    CHECK_OK(lk_gguf_read_file(path, NULL, &in));
    st = in ? lk_rotate_gguf(in, &rp, &w) : LK_ERR_IO;
    if (want_refused) {
        CHECK(st == LK_ERR_UNSUPPORTED && w == NULL, "%s: rotation not refused (status %d)", rel, (int)st);
        printf("  refused as expected: %s\n", lk_last_error());
    } else if (st != LK_OK) {
        CHECK(0, "%s: %s", rel, lk_last_error());
    } else {
        len = (size_t)lk_gguf_writer_size(w);
        buf = (unsigned char *)malloc(len);
        CHECK(buf && lk_gguf_writer_write_memory(w, buf, len) == LK_OK, "writing the rotated model");
        cp.n_ctx = 64; cp.logits_all = 1; cp.kv_type = LK_TYPE_F32; cp.n_threads = 1;
        CHECK_OK(lk_model_load_file(path, &mp, &m0));
        if (buf) CHECK_OK(lk_model_load_memory(buf, len, &mp, &m1));
        if (m0 && m1) { CHECK_OK(lk_context_new(m0, &cp, &c0)); CHECK_OK(lk_context_new(m1, &cp, &c1)); }
        if (c0 && c1) {
            const int V = lk_model_n_vocab(m0);
            lk_token t[32];
            double md = 0, mx = 0;
            int i, j;
            for (i = 0; i < 32; i++) t[i] = (lk_token)((1 + (unsigned)i * 2654435761u) % (unsigned)V);
            CHECK_OK(lk_decode(c0, t, 32));
            CHECK_OK(lk_decode(c1, t, 32));
            for (i = 0; i < 32; i++) {
                const float *a = lk_logits(c0, i), *b = lk_logits(c1, i);
                for (j = 0; a && b && j < V; j++) {
                    if (fabs((double)a[j] - b[j]) > md) md = fabs((double)a[j] - b[j]);
                    if (fabs((double)a[j]) > mx) mx = fabs((double)a[j]);
                }
            }
            printf("  %s seed %llu: max |logit diff| %.3g of max |logit| %.3g\n", rel, (unsigned long long)seed, md, mx);
            CHECK(mx > 0 && md <= 1e-5 * mx, "rotated %s: logits differ by %.3g (max |logit| %.3g)", rel, md, mx);
        }
        lk_context_free(c0); lk_context_free(c1);
        lk_model_free(m0); lk_model_free(m1);
        free(buf);
    }
    lk_gguf_writer_free(w);
    lk_gguf_free(in);
    lk_t_end();
}

int main(void) {
    static const char *pure_types[] = { "F16", "BF16", "Q8_0", "Q6_K", "Q5_1", "Q5_0", "Q5_K_M", "Q4_1", "Q4_0", "Q4_K_M", "Q2_K", "Q3_K_M" };
    static const char *stories_types[] = { "F16", "Q8_0", "Q5_1", "Q5_0", "Q4_K_M", "Q4_1", "Q4_0" };
    static const char *archs[] = { "qwen2", "gemma2", "phi3", "gpt2" };
    char name[128], rel[256], want[256];
    size_t i;
    /* the default Q4_K_M mix (use_more_bits layers, output Q6_K, ...) */
    check_file("quantize_tool_llama_Q4_K_M_mix", "models/llama/llama-F32.gguf", "models/llama/llama-Q4_K_M-mix.gguf", 0, "Q4_K_M", NULL);
    /* rows split over threads: same bytes */
    check_file("quantize_tool_llama_Q4_K_M_mix_3threads", "models/llama/llama-F32.gguf", "models/llama/llama-Q4_K_M-mix.gguf", 0, "Q4_K_M", "3");
    for (i = 0; i < sizeof pure_types / sizeof pure_types[0]; i++) {
        snprintf(name, sizeof name, "quantize_tool_llama_pure_%s", pure_types[i]);
        snprintf(want, sizeof want, "models/llama/llama-%s.gguf", pure_types[i]);
        check_file(name, "models/llama/llama-F32.gguf", want, 1, pure_types[i], NULL);
    }
    /* 64-wide rows and 172-wide ffn_down: K -> legacy / F16 fallbacks */
    for (i = 0; i < sizeof stories_types / sizeof stories_types[0]; i++) {
        snprintf(name, sizeof name, "quantize_tool_stories260K_%s", stories_types[i]);
        snprintf(want, sizeof want, "stories260K/stories260K-%s.gguf", stories_types[i]);
        check_file(name, "stories260K/stories260K-F32.gguf", want, 0, stories_types[i], NULL);
    }
    /* tied embeddings, fused qkv, biases, position embeddings */
    for (i = 0; i < sizeof archs / sizeof archs[0]; i++) {
        snprintf(rel, sizeof rel, "models/%s/%s-F32.gguf", archs[i], archs[i]);
        snprintf(name, sizeof name, "quantize_tool_%s_Q4_K_M_mix", archs[i]);
        snprintf(want, sizeof want, "models/%s/%s-Q4_K_M-mix.gguf", archs[i], archs[i]);
        check_file(name, rel, want, 0, "Q4_K_M", NULL);
        snprintf(want, sizeof want, "models/%s/%s-Q8_0.gguf", archs[i], archs[i]);
        snprintf(name, sizeof name, "quantize_tool_%s_Q8_0", archs[i]);
        if (lk_t_fixture(want)) check_file(name, rel, want, 0, "Q8_0", NULL);
    }
    /* rotation before quantization: the F32 model's function unchanged (tied
     * head untied: qwen2; fused qkv and gate-up: phi3; biases: qwen2) */
    check_rotate("rotate_llama_identity", "models/llama/llama-F32.gguf", 1, 0);
    check_rotate("rotate_llama_identity_no_signs", "models/llama/llama-F32.gguf", 0, 0);
    check_rotate("rotate_stories260K_identity", "stories260K/stories260K-F32.gguf", 7, 0);
    check_rotate("rotate_qwen2_identity", "models/qwen2/qwen2-F32.gguf", 3, 0);
    check_rotate("rotate_phi3_identity", "models/phi3/phi3-F32.gguf", 5, 0);
    /* refused: post norms (gemma2), LayerNorm (gpt2), quantized tensors */
    check_rotate("rotate_gemma2_refused", "models/gemma2/gemma2-F32.gguf", 1, 1);
    check_rotate("rotate_gpt2_refused", "models/gpt2/gpt2-F32.gguf", 1, 1);
    check_rotate("rotate_quantized_refused", "stories260K/stories260K-Q4_0.gguf", 1, 1);
    /* argument errors */
    lk_t_begin("quantize_tool_args");
    {
        lkq_opts o;
        const char *a, *b;
        char *bad1[] = { (char *)"in.gguf", (char *)"out.gguf", (char *)"Q9_9" };
        char *bad2[] = { (char *)"--nope", (char *)"in.gguf", (char *)"out.gguf", (char *)"Q4_0" };
        char *ok[] = { (char *)"--output-tensor-type", (char *)"q8_0", (char *)"in.gguf", (char *)"out.gguf", (char *)"q4_k", (char *)"4" };
        fprintf(stderr, "(the next four usage/error lines on stderr are expected)\n");
        CHECK(lkq_parse_args(3, bad1, &o, &a, &b) != 0, "unknown type accepted");
        CHECK(lkq_parse_args(4, bad2, &o, &a, &b) != 0, "unknown option accepted");
        CHECK(lkq_parse_args(2, bad1, &o, &a, &b) != 0, "missing type accepted");
        {
            char *rot[] = { (char *)"--rotate", (char *)"42", (char *)"in.gguf", (char *)"out.gguf", (char *)"Q4_0" };
            char *rotbad[] = { (char *)"--rotate", (char *)"x", (char *)"in.gguf", (char *)"out.gguf", (char *)"Q4_0" };
            CHECK(lkq_parse_args(5, rot, &o, &a, &b) == 0 && o.rotate && o.rot_seed == 42, "--rotate 42 not parsed");
            CHECK(lkq_parse_args(5, rotbad, &o, &a, &b) != 0, "--rotate x accepted");
        }
        CHECK(lkq_parse_args(6, ok, &o, &a, &b) == 0 && o.qp.ftype == 15 /* llama.cpp's LLAMA_FTYPE_MOSTLY_Q4_K_M */ &&
              o.qp.output_type == LK_TYPE_Q8_0 && o.ft && o.ft->type == LK_TYPE_Q4_K && o.qp.token_embd_type == -1 && o.n_threads == 4,
              "Q4_K alias / output type / nthreads not parsed");
    }
    lk_t_end();
    return lk_t_exit();
}
