/* The runtime against llama.cpp: logits for every fixture model file
 * (../shared/fixtures/logits), held to the acceptance rules of
 * tests/lk_test.h (lk_t_f32_rule, lk_t_q_rule). M = max(1, max |logit|) of
 * the reference.
 *   F32 files: median-position max|d| <= 2e-4 M, every position <= 1e-2 M.
 *   other files: Q_p = rms(llama.cpp file - llama.cpp F32) at position p,
 *   floored at 1e-3 M; r_p = rms(ours - llama.cpp file) / Q_p;
 *   median r_p <= 0.2 and max r_p <= 0.5.
 * Bit for bit: every logit of every position equals llama.cpp's for files
 * whose weight types llama.cpp multiplies with the kernels we follow (the
 * F32 files with either KV type, F16, BF16, Q8_0, Q6_K, Q5_*, Q4_1, Q3_K,
 * IQ4_*, and Q4_0 where our build repacks it too: llama.cpp repacks Q4_0
 * and Q4_K at load into interleaved rows with their own summation order,
 * which our LK_LAYOUT_R8 kernel follows for Q4_0). Q4_K (ours is repacked
 * too, in the order read from today's llama.cpp AVX2 kernels, which does not
 * reproduce the fixtures' logits bit for bit) and llama.cpp's Q2_K / IQ3 / TQ kernels
 * differ from ours in the last bit, so files holding those types are held
 * to the rules above. */
#define LLMKIT_IMPLEMENTATION
#include "llmkit.h"
#include "tests/lk_test.h"
#include <math.h>

#define MAXT 64
#define NAME_W 28   /* the width of a file's name in the rules' lines */
static lk_token seq[MAXT]; static int nseq;
static int run_pos0;   /* > 0: the runs below put token i at position run_pos0 + i (llama4's file) */
static int run_repack; /* the runs' lk_model_params.repack (1: an in-memory load repacks too) */
static int run_exact;  /* the runs' lk_model_params.exact (1: llama.cpp's order, no Q8_0 interleaved rows) */

/* logits of all positions through the same path as tools/logits; the
 * model from path, or (path NULL) from buf[len] */
static float *run_model_mem(const char *path, const void *buf, size_t len, const lk_token *toks, int n, lk_type kv, int n_threads,
                            int n_batch, int *n_vocab) {
    lk_model *m; lk_context *c;
    lk_context_params cp = lk_context_default_params();
    float *out;
    lk_model_params mp = lk_model_default_params();
    int done = 0, r;
    mp.repack = run_repack;
    mp.exact = run_exact;
    if (path ? lk_model_load_file(path, &mp, &m) : lk_model_load_memory(buf, len, &mp, &m)) {
        printf("  load %s: %s\n", path ? path : "(memory)", lk_last_error());
        return NULL;
    }
    cp.n_ctx = n; cp.n_batch = n_batch; cp.kv_type = kv; cp.logits_all = 1; cp.n_threads = n_threads;
    if (lk_context_new(m, &cp, &c)) { printf("  context: %s\n", lk_last_error()); lk_model_free(m); return NULL; }
    *n_vocab = lk_model_n_vocab(m);
    out = (float *)malloc(sizeof(float) * (size_t)n * *n_vocab);
    while (done < n) {
        int k = n - done < n_batch ? n - done : n_batch;
        int pp[MAXT], i;
        for (i = 0; i < k && i < MAXT; i++) pp[i] = run_pos0 + done + i;
        if (run_pos0 && k > MAXT) { printf("  decode: positions for at most %d tokens\n", MAXT); free(out); out = NULL; break; }
        if (run_pos0 ? lk_decode_pos(c, toks + done, pp, k) : lk_decode(c, toks + done, k)) {
            printf("  decode: %s\n", lk_last_error()); free(out); out = NULL; break;
        }
        for (r = 0; r < k; r++) memcpy(out + (size_t)(done + r) * *n_vocab, lk_logits(c, r), sizeof(float) * *n_vocab);
        done += k;
    }
    lk_context_free(c); lk_model_free(m);
    return out;
}

static float *run_model(const char *path, const lk_token *toks, int n, lk_type kv, int n_threads, int n_batch, int *n_vocab) {
    return run_model_mem(path, NULL, 0, toks, n, kv, n_threads, n_batch, n_vocab);
}

/* 1 if the file, loaded with the default parameters, has interleaved rows */
static int repacked(const char *path) {
    lk_model *m;
    int r8 = 0;
    if (lk_model_load_file(path, NULL, &m) == LK_OK) { r8 = lk_model_repacked_bytes(m) > 0; lk_model_free(m); }
    return r8;
}
/* 1 if llama.cpp's kernels for every weight type in the file are ours bit for bit */
static int exact_types(const char *path) {
    lk_gguf *g;
    uint64_t i;
    int ok = 1, r8 = repacked(path);
    if (lk_gguf_read_file(path, NULL, &g)) return 0;
    for (i = 0; i < g->n_tensors; i++)
        switch (g->tensors[i].type) {
        case LK_TYPE_Q4_0: if (!r8) ok = 0; break;   /* (no fixture has a tied Q4_0 output head, which stays in rows) */
        case LK_TYPE_Q4_K: case LK_TYPE_Q2_K: case LK_TYPE_IQ3_S: case LK_TYPE_IQ3_XXS:
        case LK_TYPE_TQ1_0: case LK_TYPE_TQ2_0: ok = 0; break;
        default: break;
        }
    lk_gguf_free(g);
    return ok;
}

/* every type of one fixture architecture against llama.cpp's logits */
static void check_arch(const char *arch) {
    static const char *types[] = { "F32", "F16", "BF16", "Q8_0", "Q6_K", "Q5_1", "Q5_0", "Q5_K_M", "Q4_1", "Q4_0", "Q4_K_M",
        "Q4_K_M-mix", "IQ4_NL", "IQ4_XS", "Q3_K_M", "IQ3_S", "IQ3_XXS", "Q2_K", "TQ2_0", "TQ1_0" };
    char rel[256], name[128];
    float *ref32 = NULL;
    size_t k;
    int V = 512;
    for (k = 0; k < sizeof types / sizeof types[0]; k++) {
        const char *mp, *lp;
        float *ours, *ref;
        int kvi;
        for (kvi = 0; kvi < 2; kvi++) {
            const char *kvs = kvi ? "f16" : "f32";
            snprintf(rel, sizeof rel, "logits/%s/%s-%s.seqA.kv%s.bin", arch, arch, types[k], kvs);
            lp = lk_t_fixture(rel);
            if (!lp) continue;
            snprintf(rel, sizeof rel, "models/%s/%s-%s.gguf", arch, arch, types[k]);
            mp = lk_t_fixture(rel);
            snprintf(name, sizeof name, "logits %s-%s kv%s", arch, types[k], kvs);
            if (!mp) { lk_t_skip(name, "model file absent"); continue; }
            lk_t_begin(name);
            /* Q8_0's interleaved rows sum in another order than ggml's x86 q8_0 dot
             * (14.7r): the bit-for-bit check runs the exact path (lk_model_params.exact),
             * the default interleaved run is checked below */
            run_exact = 1;
            ours = run_model(mp, seq, nseq, kvi ? LK_TYPE_F16 : LK_TYPE_F32, 2, 512, &V);
            run_exact = 0;
            ref = lk_t_read_floats(lp, (size_t)nseq * 512);
            CHECK(ours && ref && V == 512, "could not run or read");
            if (ours && ref) {
                int p, bad = 0;
                for (p = 0; p < nseq; p++) bad += memcmp(ours + (size_t)p * V, ref + (size_t)p * V, sizeof(float) * V) != 0;
                printf("  %-28s %d of %d positions bit-identical to llama.cpp%s\n", name + 7, nseq - bad, nseq,
                       exact_types(mp) ? " (required)" : "");
                if (exact_types(mp)) CHECK(bad == 0, "%s: %d of %d positions differ from llama.cpp's logits in some bit", name + 7, bad, nseq);
            }
            if (ours && ref) {
                if (k == 0 && kvi == 0) { ref32 = (float *)malloc(sizeof(float) * nseq * V); memcpy(ref32, ref, sizeof(float) * nseq * V); }
                if (k == 0) lk_t_f32_rule(name + 7, NAME_W, ours, ref, nseq, V, LK_T_F32_MEDIAN);
                else if (ref32) lk_t_q_rule(name + 7, NAME_W, ours, ref, ref32, nseq, V, LK_T_Q_MEDIAN, LK_T_Q_MAX);
            }
            if (ours && ref && ref32 && !strcmp(types[k], "Q8_0") && repacked(mp)) {
                /* the default run (Q8_0 interleaved rows, another order) against
                 * llama.cpp's logits of this file: the quantized rule with the
                 * limits of the repacked Q4_K experts below (their own order too);
                 * these random-weight models move by whole percents on one ulp
                 * (tools/ulp-sensitivity), a trained model does not: its KL
                 * divergence is in tools/PERFORMANCE.md */
                float *r8 = run_model(mp, seq, nseq, kvi ? LK_TYPE_F16 : LK_TYPE_F32, 2, 512, &V);
                char rn[80];
                snprintf(rn, sizeof rn, "%.60s r8", name + 7);
                CHECK(r8 != NULL, "could not run %s", rn);
                if (r8) lk_t_q_rule(rn, NAME_W, r8, ref, ref32, nseq, V, 0.6, 1.0);
                free(r8);
            }
            free(ours); free(ref);
            lk_t_end();
        }
    }
    free(ref32);
}

/* ---- generated architectures ------------------------------------------------
 * Random-weight models of architectures no fixture file covers, rebuilt here
 * from tools/gen_arch_fixtures.py's generator (the same numbers, checked by
 * the hashes of every tensor in tests/data/arch/hashes.txt, which come from
 * the Python-written files), with the fixtures' 512-token vocabulary copied
 * from stories260K-F32.gguf. Q8_0 and Q4_K_M come from lk_quantize_gguf; the
 * hashes say whether they equal llama-quantize's bytes. Reference: llama.cpp
 * (llama-cpp-python 0.3.36's vendor tree, 0c1e570; flash attention off, f32
 * KV) logits after every fourth token of seq A,
 * tests/data/arch/<arch>-<type>.seqA.bin (tools/gen_arch_refs.cpp). Held to
 * the same rules as the fixture files; the Q8_0 files are bit-identical
 * (required where gen_opt_exact says), and every quantized tensor equals
 * llama-quantize's (required: the hashes). glm4-Q4_K_M's reference was
 * quantized with attn_qkv at Q5_K (tests/data/arch/README.md says why). */
typedef struct gen_tensor { const char *name; int64_t ne0, ne1, ne2; } gen_tensor;
enum { GK_STR, GK_F32, GK_U32, GK_I32S, GK_BOOL, GK_BOOLS };   /* GK_BOOLS: arr holds 0 / 1 */
typedef struct gen_key { const char *sfx; int kind; const char *str; double num; const int32_t *arr; int n; } gen_key;   /* "<arch>.<sfx>" */
typedef struct gen_arch {
    const char *label, *arch; uint64_t seed;
    int E, L, H, G, d, F, window; float eps, base;
    const gen_tensor *layer; int n_layer_t;
    const gen_tensor *glob; int n_glob;
    int X, K, Fe;   /* experts, experts per token, expert FFN width (0: the key is absent) */
    const gen_key *keys; int n_keys;   /* more keys */
    int opt;        /* an issue-32 file: greedy text against llama.cpp's; its
                     * types in gen_opt_types, the bit-identical ones in
                     * gen_opt_exact (3: check_gen_paths for the sinks; 4, 6:
                     * check_gen_paths too; 6: the latent KV size) */
} gen_arch;
/* shapes: ne0 = row length, ne1 = rows (0: 1-D), ne2 = experts (0: 2-D) */
#define GE 256
static const gen_tensor qwen3_layer[] = {
    { "attn_norm.weight", GE, 0, 0 }, { "attn_q.weight", GE, 8 * 64, 0 }, { "attn_k.weight", GE, 2 * 64, 0 }, { "attn_v.weight", GE, 2 * 64, 0 },
    { "attn_q_norm.weight", 64, 0, 0 }, { "attn_k_norm.weight", 64, 0, 0 }, { "attn_output.weight", 8 * 64, GE, 0 }, { "ffn_norm.weight", GE, 0, 0 },
    { "ffn_gate.weight", GE, 768, 0 }, { "ffn_up.weight", GE, 768, 0 }, { "ffn_down.weight", 768, GE, 0 } };
static const gen_tensor qwen3_glob[] = { { "token_embd.weight", GE, 512, 0 }, { "output_norm.weight", GE, 0, 0 }, { "output.weight", GE, 512, 0 } };
static const gen_tensor gemma3_layer[] = {
    { "attn_norm.weight", GE, 0, 0 }, { "attn_q.weight", GE, 4 * 64, 0 }, { "attn_k.weight", GE, 64, 0 }, { "attn_v.weight", GE, 64, 0 },
    { "attn_q_norm.weight", 64, 0, 0 }, { "attn_k_norm.weight", 64, 0, 0 }, { "attn_output.weight", 4 * 64, GE, 0 },
    { "post_attention_norm.weight", GE, 0, 0 }, { "ffn_norm.weight", GE, 0, 0 }, { "ffn_gate.weight", GE, 512, 0 }, { "ffn_up.weight", GE, 512, 0 },
    { "ffn_down.weight", 512, GE, 0 }, { "post_ffw_norm.weight", GE, 0, 0 } };
static const gen_tensor gemma3_glob[] = { { "token_embd.weight", GE, 512, 0 }, { "output_norm.weight", GE, 0, 0 } };
static const gen_tensor qwen3moe_layer[] = {
    { "attn_norm.weight", GE, 0, 0 }, { "attn_q.weight", GE, 8 * 64, 0 }, { "attn_k.weight", GE, 2 * 64, 0 }, { "attn_v.weight", GE, 2 * 64, 0 },
    { "attn_q_norm.weight", 64, 0, 0 }, { "attn_k_norm.weight", 64, 0, 0 }, { "attn_output.weight", 8 * 64, GE, 0 }, { "ffn_norm.weight", GE, 0, 0 },
    { "ffn_gate_inp.weight", GE, 8, 0 }, { "ffn_gate_exps.weight", GE, 256, 8 }, { "ffn_up_exps.weight", GE, 256, 8 },
    { "ffn_down_exps.weight", 256, GE, 8 } };
static const gen_tensor llama_moe_layer[] = {
    { "attn_norm.weight", GE, 0, 0 }, { "attn_q.weight", GE, 8 * 32, 0 }, { "attn_k.weight", GE, 2 * 32, 0 }, { "attn_v.weight", GE, 2 * 32, 0 },
    { "attn_output.weight", 8 * 32, GE, 0 }, { "ffn_norm.weight", GE, 0, 0 }, { "ffn_gate_inp.weight", GE, 4, 0 },
    { "ffn_gate_exps.weight", GE, 256, 4 }, { "ffn_up_exps.weight", GE, 256, 4 }, { "ffn_down_exps.weight", 256, GE, 4 } };
/* Issue 32's "-opt" files: every optional tensor llama.cpp's graph for the
 * architecture reads (biases, weight scales, input scales that it ignores,
 * rope_freqs, output.bias, fused or separate q/k/v), and keys at unusual but
 * valid values (rope.scaling.factor 0, expert_feed_forward_length 0,
 * expert_gating_func 0, a window pattern shorter than the layers) */
static const gen_tensor llama_opt_layer[] = {
    { "attn_norm.weight", 256, 0, 0 }, { "attn_q.weight", 256, 256, 0 }, { "attn_q.bias", 256, 0, 0 }, { "attn_q.scale", 1, 0, 0 },
    { "attn_q.input_scale", 1, 0, 0 }, { "attn_k.weight", 256, 64, 0 }, { "attn_k.bias", 64, 0, 0 }, { "attn_k.scale", 1, 0, 0 },
    { "attn_v.weight", 256, 64, 0 }, { "attn_v.bias", 64, 0, 0 }, { "attn_v.scale", 1, 0, 0 }, { "attn_output.weight", 256, 256, 0 },
    { "attn_output.bias", 256, 0, 0 }, { "attn_output.scale", 1, 0, 0 }, { "ffn_norm.weight", 256, 0, 0 },
    { "ffn_gate.weight", 256, 256, 0 }, { "ffn_gate.bias", 256, 0, 0 }, { "ffn_gate.scale", 1, 0, 0 }, { "ffn_up.weight", 256, 256, 0 },
    { "ffn_up.bias", 256, 0, 0 }, { "ffn_up.scale", 1, 0, 0 }, { "ffn_down.weight", 256, 256, 0 }, { "ffn_down.bias", 256, 0, 0 },
    { "ffn_down.scale", 1, 0, 0 }, { "ffn_down.input_scale", 1, 0, 0 } };
static const gen_tensor llama_opt_glob[] = {
    { "token_embd.weight", 256, 512, 0 }, { "output_norm.weight", 256, 0, 0 }, { "output.weight", 256, 512, 0 },
    { "rope_freqs.weight", 16, 0, 0 } };
static const gen_key llama_opt_keys[] = { { "rope.scaling.type", GK_STR, "linear", 0, NULL, 0 }, { "rope.scaling.factor", GK_F32, NULL, 0.0, NULL, 0 } };
static const gen_tensor qwen2_opt_layer[] = {
    { "attn_norm.weight", 256, 0, 0 }, { "attn_qkv.weight", 256, 384, 0 }, { "attn_qkv.scale", 1, 0, 0 }, { "attn_q.bias", 256, 0, 0 },
    { "attn_k.bias", 64, 0, 0 }, { "attn_v.bias", 64, 0, 0 }, { "attn_output.weight", 256, 256, 0 }, { "attn_output.scale", 1, 0, 0 },
    { "attn_output.input_scale", 1, 0, 0 }, { "ffn_norm.weight", 256, 0, 0 }, { "ffn_gate.weight", 256, 256, 0 },
    { "ffn_up.weight", 256, 256, 0 }, { "ffn_down.weight", 256, 256, 0 } };
static const gen_tensor qwen2_opt_glob[] = {
    { "token_embd.weight", 256, 512, 0 }, { "output_norm.weight", 256, 0, 0 }, { "output.weight", 256, 512, 0 },
    { "output.bias", 512, 0, 0 } };
static const gen_tensor qwen3_opt_layer[] = {
    { "attn_norm.weight", 256, 0, 0 }, { "attn_q.weight", 256, 512, 0 }, { "attn_q.bias", 512, 0, 0 }, { "attn_q.scale", 1, 0, 0 },
    { "attn_k.weight", 256, 128, 0 }, { "attn_k.bias", 128, 0, 0 }, { "attn_k.scale", 1, 0, 0 }, { "attn_v.weight", 256, 128, 0 },
    { "attn_v.bias", 128, 0, 0 }, { "attn_v.scale", 1, 0, 0 }, { "attn_q_norm.weight", 64, 0, 0 }, { "attn_k_norm.weight", 64, 0, 0 },
    { "attn_output.weight", 512, 256, 0 }, { "attn_output.scale", 1, 0, 0 }, { "ffn_norm.weight", 256, 0, 0 },
    { "ffn_gate.weight", 256, 768, 0 }, { "ffn_gate.scale", 1, 0, 0 }, { "ffn_up.weight", 256, 768, 0 }, { "ffn_up.scale", 1, 0, 0 },
    { "ffn_up.input_scale", 1, 0, 0 }, { "ffn_down.weight", 768, 256, 0 }, { "ffn_down.scale", 1, 0, 0 } };
static const gen_tensor qwen3_opt_glob[] = {
    { "token_embd.weight", 256, 512, 0 }, { "output_norm.weight", 256, 0, 0 }, { "output.weight", 256, 512, 0 } };
static const gen_tensor gemma3_opt_layer[] = {
    { "attn_norm.weight", 256, 0, 0 }, { "attn_q.weight", 256, 256, 0 }, { "attn_q.bias", 256, 0, 0 }, { "attn_q.scale", 1, 0, 0 },
    { "attn_k.weight", 256, 64, 0 }, { "attn_k.bias", 64, 0, 0 }, { "attn_k.scale", 1, 0, 0 }, { "attn_v.weight", 256, 64, 0 },
    { "attn_v.bias", 64, 0, 0 }, { "attn_v.scale", 1, 0, 0 }, { "attn_q_norm.weight", 64, 0, 0 }, { "attn_k_norm.weight", 64, 0, 0 },
    { "attn_output.weight", 256, 256, 0 }, { "attn_output.scale", 1, 0, 0 }, { "post_attention_norm.weight", 256, 0, 0 },
    { "ffn_norm.weight", 256, 0, 0 }, { "ffn_gate.weight", 256, 512, 0 }, { "ffn_up.weight", 256, 512, 0 },
    { "ffn_down.weight", 512, 256, 0 }, { "post_ffw_norm.weight", 256, 0, 0 } };
static const gen_tensor gemma3_opt_glob[] = {
    { "token_embd.weight", 256, 512, 0 }, { "output_norm.weight", 256, 0, 0 } };
static const int32_t gemma3_opt_pat[] = { 1, 0, 1, 1 };
static const gen_key gemma3_opt_keys[] = { { "attention.sliding_window_pattern", GK_I32S, NULL, 0, gemma3_opt_pat, 4 } };
static const gen_tensor gpt2_opt_layer[] = {
    { "attn_norm.weight", 256, 0, 0 }, { "attn_norm.bias", 256, 0, 0 }, { "attn_qkv.weight", 256, 768, 0 }, { "attn_qkv.bias", 768, 0, 0 },
    { "attn_qkv.scale", 1, 0, 0 }, { "attn_output.weight", 256, 256, 0 }, { "attn_output.bias", 256, 0, 0 },
    { "attn_output.scale", 1, 0, 0 }, { "ffn_norm.weight", 256, 0, 0 }, { "ffn_norm.bias", 256, 0, 0 }, { "ffn_up.weight", 256, 512, 0 },
    { "ffn_up.bias", 512, 0, 0 }, { "ffn_down.weight", 512, 256, 0 }, { "ffn_down.bias", 256, 0, 0 } };
static const gen_tensor gpt2_opt_glob[] = {
    { "token_embd.weight", 256, 512, 0 }, { "position_embd.weight", 256, 512, 0 }, { "output_norm.weight", 256, 0, 0 },
    { "output_norm.bias", 256, 0, 0 }, { "output.weight", 256, 512, 0 } };
static const gen_key gpt2_opt_keys[] = { { "attention.layer_norm_epsilon", GK_F32, NULL, 1e-05, NULL, 0 } };
static const gen_tensor phi3_opt_layer[] = {
    { "attn_norm.weight", 256, 0, 0 }, { "attn_q.weight", 256, 256, 0 }, { "attn_q.scale", 1, 0, 0 }, { "attn_k.weight", 256, 64, 0 },
    { "attn_k.scale", 1, 0, 0 }, { "attn_v.weight", 256, 64, 0 }, { "attn_v.scale", 1, 0, 0 }, { "attn_output.weight", 256, 256, 0 },
    { "attn_output.scale", 1, 0, 0 }, { "ffn_norm.weight", 256, 0, 0 }, { "ffn_up.weight", 256, 512, 0 },
    { "ffn_down.weight", 256, 256, 0 } };
static const gen_tensor phi3_opt_glob[] = {
    { "token_embd.weight", 256, 512, 0 }, { "output_norm.weight", 256, 0, 0 }, { "output.weight", 256, 512, 0 } };
static const gen_tensor llama_moe_opt_layer[] = {
    { "attn_norm.weight", 256, 0, 0 }, { "attn_q.weight", 256, 256, 0 }, { "attn_k.weight", 256, 64, 0 }, { "attn_v.weight", 256, 64, 0 },
    { "attn_output.weight", 256, 256, 0 }, { "ffn_norm.weight", 256, 0, 0 }, { "ffn_gate_inp.weight", 256, 4, 0 },
    { "ffn_gate_exps.weight", 256, 256, 4 }, { "ffn_up_exps.weight", 256, 256, 4 }, { "ffn_down_exps.weight", 256, 256, 4 },
    { "ffn_gate_exps.scale", 4, 0, 0 }, { "ffn_up_exps.scale", 4, 0, 0 }, { "ffn_down_exps.scale", 4, 0, 0 },
    { "ffn_up_exps.input_scale", 4, 0, 0 } };
static const gen_tensor llama_moe_opt_glob[] = {
    { "token_embd.weight", 256, 512, 0 }, { "output_norm.weight", 256, 0, 0 }, { "output.weight", 256, 512, 0 } };
static const gen_key llama_moe_opt_keys[] = { { "expert_feed_forward_length", GK_U32, NULL, 0, NULL, 0 } };
static const gen_tensor qwen3moe_opt_layer[] = {
    { "attn_norm.weight", 256, 0, 0 }, { "attn_q.weight", 256, 512, 0 }, { "attn_k.weight", 256, 128, 0 }, { "attn_v.weight", 256, 128, 0 },
    { "attn_q_norm.weight", 64, 0, 0 }, { "attn_k_norm.weight", 64, 0, 0 }, { "attn_output.weight", 512, 256, 0 },
    { "ffn_norm.weight", 256, 0, 0 }, { "ffn_gate_inp.weight", 256, 8, 0 }, { "ffn_gate_exps.weight", 256, 256, 8 },
    { "ffn_up_exps.weight", 256, 256, 8 }, { "ffn_down_exps.weight", 256, 256, 8 }, { "ffn_gate_exps.scale", 8, 0, 0 },
    { "ffn_up_exps.scale", 8, 0, 0 }, { "ffn_down_exps.scale", 8, 0, 0 } };
static const gen_tensor qwen3moe_opt_glob[] = {
    { "token_embd.weight", 256, 512, 0 }, { "output_norm.weight", 256, 0, 0 }, { "output.weight", 256, 512, 0 } };
static const gen_key qwen3moe_opt_keys[] = { { "expert_gating_func", GK_U32, NULL, 0, NULL, 0 } };
/* smollm3: llama whose every fourth layer has no RoPE */
static const gen_tensor smollm3_layer[] = {
    { "attn_norm.weight", 256, 0, 0 }, { "attn_q.weight", 256, 256, 0 }, { "attn_q.bias", 256, 0, 0 }, { "attn_q.scale", 1, 0, 0 },
    { "attn_k.weight", 256, 64, 0 }, { "attn_k.bias", 64, 0, 0 }, { "attn_k.scale", 1, 0, 0 }, { "attn_v.weight", 256, 64, 0 },
    { "attn_v.bias", 64, 0, 0 }, { "attn_v.scale", 1, 0, 0 }, { "attn_output.weight", 256, 256, 0 }, { "attn_output.scale", 1, 0, 0 },
    { "ffn_norm.weight", 256, 0, 0 }, { "ffn_gate.weight", 256, 256, 0 }, { "ffn_up.weight", 256, 256, 0 },
    { "ffn_down.weight", 256, 256, 0 } };
static const gen_tensor smollm3_glob[] = {
    { "token_embd.weight", 256, 512, 0 }, { "output_norm.weight", 256, 0, 0 }, { "output.weight", 256, 512, 0 } };
/* mistral3: llama with YaRN (factor 4, betas, log multiplier, attention
 * factor) and the attention temperature (floor: the original context, 16) */
static const gen_tensor mistral3_layer[] = {
    { "attn_norm.weight", 256, 0, 0 }, { "attn_q.weight", 256, 256, 0 }, { "attn_q.bias", 256, 0, 0 }, { "attn_q.scale", 1, 0, 0 },
    { "attn_k.weight", 256, 64, 0 }, { "attn_k.bias", 64, 0, 0 }, { "attn_k.scale", 1, 0, 0 }, { "attn_v.weight", 256, 64, 0 },
    { "attn_v.bias", 64, 0, 0 }, { "attn_v.scale", 1, 0, 0 }, { "attn_output.weight", 256, 256, 0 }, { "attn_output.bias", 256, 0, 0 },
    { "attn_output.scale", 1, 0, 0 }, { "ffn_norm.weight", 256, 0, 0 }, { "ffn_gate.weight", 256, 256, 0 }, { "ffn_gate.bias", 256, 0, 0 },
    { "ffn_gate.scale", 1, 0, 0 }, { "ffn_up.weight", 256, 256, 0 }, { "ffn_up.bias", 256, 0, 0 }, { "ffn_up.scale", 1, 0, 0 },
    { "ffn_down.weight", 256, 256, 0 }, { "ffn_down.bias", 256, 0, 0 }, { "ffn_down.scale", 1, 0, 0 } };
static const gen_tensor mistral3_glob[] = {
    { "token_embd.weight", 256, 512, 0 }, { "output_norm.weight", 256, 0, 0 }, { "output.weight", 256, 512, 0 },
    { "rope_freqs.weight", 16, 0, 0 } };
static const gen_key mistral3_keys[] = {
    { "rope.scaling.type", GK_STR, "yarn", 0, NULL, 0 }, { "rope.scaling.factor", GK_F32, NULL, 4.0, NULL, 0 },
    { "rope.scaling.original_context_length", GK_U32, NULL, 16, NULL, 0 }, { "rope.scaling.yarn_beta_fast", GK_F32, NULL, 1.0, NULL, 0 },
    { "rope.scaling.yarn_beta_slow", GK_F32, NULL, 0.25, NULL, 0 }, { "rope.scaling.yarn_log_multiplier", GK_F32, NULL, 0.7, NULL, 0 },
    { "rope.scaling.attn_factor", GK_F32, NULL, 0.9, NULL, 0 }, { "attention.temperature_scale", GK_F32, NULL, 0.5, NULL, 0 } };
/* glm4: fused attn_qkv with bias and scale, RoPE on 16 of 32 dims, post
 * norms, fused gate+up, tied output */
static const gen_tensor glm4_layer[] = {
    { "attn_norm.weight", 256, 0, 0 }, { "attn_qkv.weight", 256, 384, 0 }, { "attn_qkv.bias", 384, 0, 0 }, { "attn_qkv.scale", 1, 0, 0 },
    { "attn_output.weight", 256, 256, 0 }, { "attn_output.scale", 1, 0, 0 }, { "post_attention_norm.weight", 256, 0, 0 },
    { "ffn_norm.weight", 256, 0, 0 }, { "ffn_up.weight", 256, 512, 0 }, { "ffn_down.weight", 256, 256, 0 },
    { "post_ffw_norm.weight", 256, 0, 0 } };
static const gen_tensor glm4_glob[] = { { "token_embd.weight", 256, 512, 0 }, { "output_norm.weight", 256, 0, 0 } };
static const gen_key glm4_keys[] = { { "rope.dimension_count", GK_U32, NULL, 16, NULL, 0 } };
/* gpt-oss: attention sinks, q/k/v/o biases, window 16 on even layers, YaRN,
 * 4 experts top-2 with router and expert biases, clamped SwiGLU */
static const gen_tensor gpt_oss_layer[] = {
    { "attn_norm.weight", 256, 0, 0 }, { "attn_q.weight", 256, 256, 0 }, { "attn_q.bias", 256, 0, 0 }, { "attn_k.weight", 256, 64, 0 },
    { "attn_k.bias", 64, 0, 0 }, { "attn_v.weight", 256, 64, 0 }, { "attn_v.bias", 64, 0, 0 }, { "attn_output.weight", 256, 256, 0 },
    { "attn_output.bias", 256, 0, 0 }, { "attn_sinks.weight", 8, 0, 0 }, { "post_attention_norm.weight", 256, 0, 0 },
    { "ffn_gate_inp.weight", 256, 4, 0 }, { "ffn_gate_inp.bias", 4, 0, 0 }, { "ffn_gate_exps.weight", 256, 128, 4 },
    { "ffn_gate_exps.bias", 128, 4, 0 }, { "ffn_up_exps.weight", 256, 128, 4 }, { "ffn_up_exps.bias", 128, 4, 0 },
    { "ffn_down_exps.weight", 128, 256, 4 }, { "ffn_down_exps.bias", 256, 4, 0 } };
static const gen_tensor gpt_oss_glob[] = {
    { "token_embd.weight", 256, 512, 0 }, { "output_norm.weight", 256, 0, 0 }, { "output.weight", 256, 512, 0 } };
static const gen_key gpt_oss_keys[] = {
    { "rope.scaling.type", GK_STR, "yarn", 0, NULL, 0 }, { "rope.scaling.factor", GK_F32, NULL, 4.0, NULL, 0 },
    { "rope.scaling.original_context_length", GK_U32, NULL, 128, NULL, 0 }, { "rope.freq_base_swa", GK_F32, NULL, 5000.0, NULL, 0 } };
/* glm4moe: block 0 dense, blocks 1-2 4 experts top-2 (sigmoid, selection
 * bias, normalised, scaled by 2.5) with a shared expert, block 3 a nextn
 * (multi-token prediction) block, loaded and not run; q/k/v biases and
 * attention scales; q and k norms on block 1, the k norm alone on block 2 */
#define GLM4MOE_ATTN(S) \
    { "attn_norm.weight", 256, 0, 0 }, { "attn_q.weight", 256, 256, 0 }, { "attn_q.bias", 256, 0, 0 }, S(attn_q) \
    { "attn_k.weight", 256, 64, 0 }, { "attn_k.bias", 64, 0, 0 }, S(attn_k) { "attn_v.weight", 256, 64, 0 }, { "attn_v.bias", 64, 0, 0 }, \
    S(attn_v) { "attn_output.weight", 256, 256, 0 }, S(attn_output)
#define GLM4MOE_SCALE(w) { #w ".scale", 1, 0, 0 },
#define GLM4MOE_NOSCALE(w)
#define GLM4MOE_MOE \
    { "post_attention_norm.weight", 256, 0, 0 }, { "ffn_gate_inp.weight", 256, 4, 0 }, { "exp_probs_b.bias", 4, 0, 0 }, \
    { "ffn_gate_exps.weight", 256, 128, 4 }, { "ffn_up_exps.weight", 256, 128, 4 }, { "ffn_down_exps.weight", 128, 256, 4 }, \
    { "ffn_gate_shexp.weight", 256, 128, 0 }, { "ffn_up_shexp.weight", 256, 128, 0 }, { "ffn_down_shexp.weight", 128, 256, 0 }
static const gen_tensor glm4moe_l0[] = {
    GLM4MOE_ATTN(GLM4MOE_SCALE) { "post_attention_norm.weight", 256, 0, 0 }, { "ffn_gate.weight", 256, 256, 0 },
    { "ffn_up.weight", 256, 256, 0 }, { "ffn_down.weight", 256, 256, 0 } };
static const gen_tensor glm4moe_l1[] = {
    GLM4MOE_ATTN(GLM4MOE_SCALE) { "attn_q_norm.weight", 32, 0, 0 }, { "attn_k_norm.weight", 32, 0, 0 }, GLM4MOE_MOE };
static const gen_tensor glm4moe_l2[] = { GLM4MOE_ATTN(GLM4MOE_SCALE) { "attn_k_norm.weight", 32, 0, 0 }, GLM4MOE_MOE };
static const gen_tensor glm4moe_l3[] = {
    GLM4MOE_ATTN(GLM4MOE_NOSCALE) { "attn_q_norm.weight", 32, 0, 0 }, { "attn_k_norm.weight", 32, 0, 0 }, GLM4MOE_MOE,
    { "nextn.eh_proj.weight", 512, 256, 0 }, { "nextn.enorm.weight", 256, 0, 0 }, { "nextn.hnorm.weight", 256, 0, 0 },
    { "nextn.embed_tokens.weight", 256, 512, 0 }, { "nextn.shared_head_head.weight", 256, 512, 0 }, { "nextn.shared_head_norm.weight", 256, 0, 0 } };
static const gen_tensor glm4moe_glob[] = {
    { "token_embd.weight", 256, 512, 0 }, { "output_norm.weight", 256, 0, 0 }, { "output.weight", 256, 512, 0 } };
static const gen_key glm4moe_keys[] = {
    { "rope.dimension_count", GK_U32, NULL, 16, NULL, 0 }, { "expert_shared_count", GK_U32, NULL, 1, NULL, 0 },
    { "leading_dense_block_count", GK_U32, NULL, 1, NULL, 0 }, { "expert_weights_scale", GK_F32, NULL, 2.5, NULL, 0 },
    { "expert_weights_norm", GK_BOOL, NULL, 1, NULL, 0 }, { "nextn_predict_layers", GK_U32, NULL, 1, NULL, 0 } };
/* glm4-nextn: glm4's file with a fourth block, a nextn (multi-token
 * prediction) block, loaded and not run: glm4's block tensors without
 * scales and the nextn ones */
static const gen_tensor glm4_nextn_l3[] = {
    { "attn_norm.weight", 256, 0, 0 }, { "attn_qkv.weight", 256, 384, 0 }, { "attn_qkv.bias", 384, 0, 0 },
    { "attn_output.weight", 256, 256, 0 }, { "post_attention_norm.weight", 256, 0, 0 },
    { "ffn_norm.weight", 256, 0, 0 }, { "ffn_up.weight", 256, 512, 0 }, { "ffn_down.weight", 256, 256, 0 },
    { "post_ffw_norm.weight", 256, 0, 0 },
    { "nextn.eh_proj.weight", 512, 256, 0 }, { "nextn.enorm.weight", 256, 0, 0 }, { "nextn.hnorm.weight", 256, 0, 0 },
    { "nextn.embed_tokens.weight", 256, 512, 0 }, { "nextn.shared_head_head.weight", 256, 512, 0 }, { "nextn.shared_head_norm.weight", 256, 0, 0 } };
static const gen_key glm4_nextn_keys[] = {
    { "rope.dimension_count", GK_U32, NULL, 16, NULL, 0 }, { "nextn_predict_layers", GK_U32, NULL, 1, NULL, 0 } };
/* gemma4-sizes: gemma4 with the published files' per-layer sizes: window
 * layers 0, 1, 2, 4 have 4 KV heads of 32 (key_length_swa; 16 dims
 * rotated), full layers 3, 5 one of 64 (key_length; head_count_kv an
 * array: their cache rows of 64 are narrower than the others' 128); layers 4, 5 reuse the KV of 2, 3 (gen_drops) and have an FFN of
 * 512 against 256 (feed_forward_length an array); layer 1 has no attn_v.
 * Blocks by kind: window / full, FFN 256 / 512 (gen_blocks) */
#define G4S_LAYER(d, G, F) { \
    { "attn_norm.weight", 256, 0, 0 }, { "attn_q.weight", 256, 4 * (d), 0 }, { "attn_k.weight", 256, (G) * (d), 0 }, \
    { "attn_v.weight", 256, (G) * (d), 0 }, { "attn_q_norm.weight", d, 0, 0 }, { "attn_k_norm.weight", d, 0, 0 }, \
    { "attn_output.weight", 4 * (d), 256, 0 }, { "post_attention_norm.weight", 256, 0, 0 }, { "ffn_norm.weight", 256, 0, 0 }, \
    { "ffn_gate.weight", 256, F, 0 }, { "ffn_up.weight", 256, F, 0 }, { "ffn_down.weight", F, 256, 0 }, \
    { "post_ffw_norm.weight", 256, 0, 0 }, { "inp_gate.weight", 256, 32, 0 }, { "proj.weight", 32, 256, 0 }, \
    { "post_norm.weight", 256, 0, 0 }, { "layer_output_scale.weight", 1, 0, 0 } }
static const gen_tensor g4s_win[] = G4S_LAYER(32, 4, 256), g4s_full[] = G4S_LAYER(64, 1, 256);
static const gen_tensor g4s_win2[] = G4S_LAYER(32, 4, 512), g4s_full2[] = G4S_LAYER(64, 1, 512);
/* lfm2 (issue 33): short-conv layers 0, 1, 3, 5 (head_count_kv entry 0:
 * shortconv.conv [3, E] drawn as v, in_proj [E, 3E], out_proj [E, E]) and
 * attention layers 2, 4 (2 KV heads of 32, q/k norms; gen_blocks); the
 * output norm is token_embd_norm; tied output; head size n_embd / n_head
 * (no key_length, as llama.cpp's converter writes none) */
#define LFM2_FFN { "ffn_norm.weight", 256, 0, 0 }, { "ffn_gate.weight", 256, 512, 0 }, { "ffn_up.weight", 256, 512, 0 }, \
    { "ffn_down.weight", 512, 256, 0 }
static const gen_tensor lfm2_conv[] = {
    { "attn_norm.weight", 256, 0, 0 }, { "shortconv.conv.weight", 3, 256, 0 }, { "shortconv.in_proj.weight", 256, 768, 0 },
    { "shortconv.out_proj.weight", 256, 256, 0 }, LFM2_FFN };
static const gen_tensor lfm2_attn[] = {
    { "attn_norm.weight", 256, 0, 0 }, { "attn_q.weight", 256, 256, 0 }, { "attn_k.weight", 256, 64, 0 }, { "attn_v.weight", 256, 64, 0 },
    { "attn_q_norm.weight", 32, 0, 0 }, { "attn_k_norm.weight", 32, 0, 0 }, { "attn_output.weight", 256, 256, 0 }, LFM2_FFN };
#undef LFM2_FFN
static const gen_tensor lfm2_glob[] = { { "token_embd.weight", 256, 512, 0 }, { "token_embd_norm.weight", 256, 0, 0 } };
static const int32_t lfm2_kvh[] = { 0, 0, 2, 0, 2, 0 };
static const gen_key lfm2_keys[] = { { "attention.head_count_kv", GK_I32S, NULL, 0, lfm2_kvh, 6 }, { "shortconv.l_cache", GK_U32, NULL, 3, NULL, 0 } };
/* mamba2 (issue 33): 4 Mamba 2 layers, no attention, no FFN (head_count,
 * head_count_kv, feed_forward_length 0); ssm.inner_size 512 = 8 heads of 64,
 * 2 groups of state 32, conv_kernel 4 over xBC (640 channels); in_proj rows
 * [z 512 | xBC 640 | dt 8]; ssm_norm [256, 2]; untied output */
#define M2_LAYER(Di, C, H, G, N) { \
    { "attn_norm.weight", 256, 0, 0 }, { "ssm_in.weight", 256, (Di) + (C) + (H), 0 }, { "ssm_conv1d.weight", 4, C, 0 }, \
    { "ssm_conv1d.bias", C, 0, 0 }, { "ssm_dt.bias", H, 0, 0 }, { "ssm_a", 1, H, 0 }, { "ssm_d", 1, H, 0 }, \
    { "ssm_norm.weight", (Di) / (G), G, 0 }, { "ssm_out.weight", Di, 256, 0 }
static const gen_tensor mamba2_layer[] = M2_LAYER(512, 640, 8, 2, 32) };
static const gen_key mamba2_keys[] = {
    { "ssm.conv_kernel", GK_U32, NULL, 4, NULL, 0 }, { "ssm.inner_size", GK_U32, NULL, 512, NULL, 0 }, { "ssm.state_size", GK_U32, NULL, 32, NULL, 0 },
    { "ssm.time_step_rank", GK_U32, NULL, 8, NULL, 0 }, { "ssm.group_count", GK_U32, NULL, 2, NULL, 0 } };
/* granitehybrid (issue 33): Mamba 2 layers 0, 2, 3 (head_count_kv entry 0;
 * 16 heads of 32, 1 group of state 16, conv_kernel 4 over 544 channels) and
 * attention layer 1 (8 heads, 2 KV heads of 32; gen_blocks); a SwiGLU FFN
 * of 512 on every layer; granite's embedding_scale 0.5, residual_scale 2,
 * attention.scale 0.125, logit_scale 6; tied output */
#define GH_FFN { "ffn_norm.weight", 256, 0, 0 }, { "ffn_gate.weight", 256, 512, 0 }, { "ffn_up.weight", 256, 512, 0 }, \
    { "ffn_down.weight", 512, 256, 0 }
static const gen_tensor gh_ssm[] = M2_LAYER(512, 544, 16, 1, 16), GH_FFN };
static const gen_tensor gh_attn[] = {
    { "attn_norm.weight", 256, 0, 0 }, { "attn_q.weight", 256, 256, 0 }, { "attn_k.weight", 256, 64, 0 }, { "attn_v.weight", 256, 64, 0 },
    { "attn_output.weight", 256, 256, 0 }, GH_FFN };
#undef GH_FFN
#undef M2_LAYER
static const gen_tensor gh_glob[] = { { "token_embd.weight", 256, 512, 0 }, { "output_norm.weight", 256, 0, 0 } };
static const int32_t gh_kvh[] = { 0, 2, 0, 0 };
#define GH_KEYS \
    { "attention.head_count_kv", GK_I32S, NULL, 0, gh_kvh, 4 }, { "ssm.conv_kernel", GK_U32, NULL, 4, NULL, 0 }, \
    { "ssm.inner_size", GK_U32, NULL, 512, NULL, 0 }, { "ssm.state_size", GK_U32, NULL, 16, NULL, 0 }, \
    { "ssm.time_step_rank", GK_U32, NULL, 16, NULL, 0 }, { "ssm.group_count", GK_U32, NULL, 1, NULL, 0 }, \
    { "embedding_scale", GK_F32, NULL, 0.5, NULL, 0 }, { "residual_scale", GK_F32, NULL, 2.0, NULL, 0 }, \
    { "attention.scale", GK_F32, NULL, 0.125, NULL, 0 }, { "logit_scale", GK_F32, NULL, 6.0, NULL, 0 }
static const gen_key gh_keys[] = { GH_KEYS };
/* granitehybrid-nope: the same with rope.scaling.finetuned false (Granite 4.0-H's files: no RoPE) */
static const gen_key gh_nope_keys[] = { GH_KEYS, { "rope.scaling.finetuned", GK_BOOL, NULL, 0, NULL, 0 } };
#undef GH_KEYS
/* qwen35 (issue 33): gated delta-net layers 0, 1, 3, 4 (full_attention_interval
 * 3: attn_qkv [E, 2 Dk + Dv = 256], attn_gate [E, Dv = 128], ssm_conv1d [4, 256]
 * drawn as v, ssm_dt.bias as v, ssm_a as v - 0.5, ssm_beta / ssm_alpha [E, 4],
 * ssm_norm [32], ssm_out [128, E]; 2 k heads, 4 v heads of 32) and gated
 * attention layers 2, 5 (attn_q [E, 2 H d]: each head's q then its gate; 2
 * KV heads of 64, q/k norms, 16 of 64 dims rotated in imrope sections
 * [3, 3, 2, 0]; gen_blocks); post_attention_norm is the FFN's norm; tied output */
#define Q35_FFN { "post_attention_norm.weight", 256, 0, 0 }, { "ffn_gate.weight", 256, 512, 0 }, { "ffn_up.weight", 256, 512, 0 }, \
    { "ffn_down.weight", 512, 256, 0 }
static const gen_tensor qwen35_gdn[] = {
    { "attn_norm.weight", 256, 0, 0 }, { "attn_qkv.weight", 256, 256, 0 }, { "attn_gate.weight", 256, 128, 0 }, { "ssm_conv1d.weight", 4, 256, 0 },
    { "ssm_dt.bias", 4, 0, 0 }, { "ssm_a", 4, 0, 0 }, { "ssm_beta.weight", 256, 4, 0 }, { "ssm_alpha.weight", 256, 4, 0 },
    { "ssm_norm.weight", 32, 0, 0 }, { "ssm_out.weight", 128, 256, 0 }, Q35_FFN };
#define Q35_ATTN \
    { "attn_norm.weight", 256, 0, 0 }, { "attn_q.weight", 256, 512, 0 }, { "attn_k.weight", 256, 128, 0 }, { "attn_v.weight", 256, 128, 0 }, \
    { "attn_q_norm.weight", 64, 0, 0 }, { "attn_k_norm.weight", 64, 0, 0 }, { "attn_output.weight", 256, 256, 0 }
static const gen_tensor qwen35_attn[] = { Q35_ATTN, Q35_FFN };
static const gen_tensor qwen35_glob[] = { { "token_embd.weight", 256, 512, 0 }, { "output_norm.weight", 256, 0, 0 } };
static const int32_t qwen35_sect[] = { 3, 3, 2, 0 }, qwen35_sect_e[] = { 2, 3, 3, 0 }, qwen35_sect_big[] = { 40, 40, 0, 0 },
                     qwen35_sect_0[] = { 0, 0, 0, 0 }, qwen35_sect_1[] = { 1, 1, 1, 0 };
#define Q35_KEYS \
    { "full_attention_interval", GK_U32, NULL, 3, NULL, 0 }, { "rope.dimension_count", GK_U32, NULL, 16, NULL, 0 }, \
    { "rope.dimension_sections", GK_I32S, NULL, 0, qwen35_sect, 4 }, { "ssm.conv_kernel", GK_U32, NULL, 4, NULL, 0 }, \
    { "ssm.state_size", GK_U32, NULL, 32, NULL, 0 }, { "ssm.group_count", GK_U32, NULL, 2, NULL, 0 }, \
    { "ssm.time_step_rank", GK_U32, NULL, 4, NULL, 0 }, { "ssm.inner_size", GK_U32, NULL, 128, NULL, 0 }
static const gen_key qwen35_keys[] = { Q35_KEYS };
/* qwen35-nextn: qwen35 with a seventh block, a multi-token-prediction block
 * (nextn_predict_layers 1): an attention block as layer 5 and the nextn
 * tensors eh_proj, enorm, hnorm, shared_head_norm; loaded, checked, not run */
static const gen_tensor qwen35_nextn_l6[] = {
    Q35_ATTN, Q35_FFN, { "nextn.eh_proj.weight", 512, 256, 0 }, { "nextn.enorm.weight", 256, 0, 0 },
    { "nextn.hnorm.weight", 256, 0, 0 }, { "nextn.shared_head_norm.weight", 256, 0, 0 } };
static const gen_key qwen35_nextn_keys[] = { Q35_KEYS, { "nextn_predict_layers", GK_U32, NULL, 1, NULL, 0 } };
#undef Q35_KEYS
#undef Q35_ATTN
#undef Q35_FFN
/* qwen35moe: qwen35's layers with experts for the FFN (4 of 128, top 2) and
 * a shared expert of 192 (expert_shared_feed_forward_length) gated by
 * sigmoid(ffn_gate_inp_shexp . x) */
#define Q35M_FFN { "post_attention_norm.weight", 256, 0, 0 }, { "ffn_gate_inp.weight", 256, 4, 0 }, { "ffn_gate_exps.weight", 256, 128, 4 }, \
    { "ffn_up_exps.weight", 256, 128, 4 }, { "ffn_down_exps.weight", 128, 256, 4 }, { "ffn_gate_inp_shexp.weight", 256, 0, 0 }, \
    { "ffn_gate_shexp.weight", 256, 192, 0 }, { "ffn_up_shexp.weight", 256, 192, 0 }, { "ffn_down_shexp.weight", 192, 256, 0 }
static const gen_tensor qwen35moe_gdn[] = {
    { "attn_norm.weight", 256, 0, 0 }, { "attn_qkv.weight", 256, 256, 0 }, { "attn_gate.weight", 256, 128, 0 }, { "ssm_conv1d.weight", 4, 256, 0 },
    { "ssm_dt.bias", 4, 0, 0 }, { "ssm_a", 4, 0, 0 }, { "ssm_beta.weight", 256, 4, 0 }, { "ssm_alpha.weight", 256, 4, 0 },
    { "ssm_norm.weight", 32, 0, 0 }, { "ssm_out.weight", 128, 256, 0 }, Q35M_FFN };
static const gen_tensor qwen35moe_attn[] = {
    { "attn_norm.weight", 256, 0, 0 }, { "attn_q.weight", 256, 512, 0 }, { "attn_k.weight", 256, 128, 0 }, { "attn_v.weight", 256, 128, 0 },
    { "attn_q_norm.weight", 64, 0, 0 }, { "attn_k_norm.weight", 64, 0, 0 }, { "attn_output.weight", 256, 256, 0 }, Q35M_FFN };
#undef Q35M_FFN
static const gen_key qwen35moe_keys[] = {
    { "full_attention_interval", GK_U32, NULL, 3, NULL, 0 }, { "rope.dimension_count", GK_U32, NULL, 16, NULL, 0 },
    { "rope.dimension_sections", GK_I32S, NULL, 0, qwen35_sect, 4 }, { "ssm.conv_kernel", GK_U32, NULL, 4, NULL, 0 },
    { "ssm.state_size", GK_U32, NULL, 32, NULL, 0 }, { "ssm.group_count", GK_U32, NULL, 2, NULL, 0 },
    { "ssm.time_step_rank", GK_U32, NULL, 4, NULL, 0 }, { "ssm.inner_size", GK_U32, NULL, 128, NULL, 0 },
    { "expert_shared_feed_forward_length", GK_U32, NULL, 192, NULL, 0 } };
/* blocks whose tensors differ from their architecture's row (gen_arch.layer) */
typedef struct gen_block { const char *label; int il; const gen_tensor *t; int n; } gen_block;
#define GEN_N(a) (int)(sizeof a / sizeof a[0])
static const gen_block gen_blocks[] = {
    { "glm4moe", 0, glm4moe_l0, GEN_N(glm4moe_l0) }, { "glm4moe", 2, glm4moe_l2, GEN_N(glm4moe_l2) },
    { "glm4moe", 3, glm4moe_l3, GEN_N(glm4moe_l3) },
    { "glm4-nextn", 3, glm4_nextn_l3, GEN_N(glm4_nextn_l3) },
    { "gemma4-sizes", 3, g4s_full, GEN_N(g4s_full) }, { "gemma4-sizes", 4, g4s_win2, GEN_N(g4s_win2) },
    { "gemma4-sizes", 5, g4s_full2, GEN_N(g4s_full2) },
    { "lfm2", 2, lfm2_attn, GEN_N(lfm2_attn) }, { "lfm2", 4, lfm2_attn, GEN_N(lfm2_attn) },
    { "granitehybrid", 1, gh_attn, GEN_N(gh_attn) }, { "granitehybrid-nope", 1, gh_attn, GEN_N(gh_attn) },
    { "qwen35", 2, qwen35_attn, GEN_N(qwen35_attn) }, { "qwen35", 5, qwen35_attn, GEN_N(qwen35_attn) },
    { "qwen35-nextn", 2, qwen35_attn, GEN_N(qwen35_attn) }, { "qwen35-nextn", 5, qwen35_attn, GEN_N(qwen35_attn) },
    { "qwen35-nextn", 6, qwen35_nextn_l6, GEN_N(qwen35_nextn_l6) },
    { "qwen35moe", 2, qwen35moe_attn, GEN_N(qwen35moe_attn) }, { "qwen35moe", 5, qwen35moe_attn, GEN_N(qwen35moe_attn) },
};
/* deepseek2: multi-head latent attention (q low rank 64 with its norm, kv
 * latent 64 + a 32-dim RoPE part shared by the 4 heads, q heads 32 + 32,
 * value heads 32), YaRN, a leading dense layer, then 4 experts top-2
 * (sigmoid, exp_probs_b, normalised, scale 2.5) with a shared expert.
 * Layer tensors marked "<": the leading dense layers only; ">": the others. */
static const gen_tensor deepseek2_layer[] = {
    { "attn_norm.weight", 256, 0, 0 }, { "attn_q_a.weight", 256, 64, 0 }, { "attn_q_a_norm.weight", 64, 0, 0 },
    { "attn_q_b.weight", 64, 256, 0 }, { "attn_kv_a_mqa.weight", 256, 96, 0 }, { "attn_kv_a_norm.weight", 64, 0, 0 },
    { "attn_k_b.weight", 32, 64, 4 }, { "attn_v_b.weight", 64, 32, 4 }, { "attn_output.weight", 128, 256, 0 },
    { "ffn_norm.weight", 256, 0, 0 }, { "<ffn_gate.weight", 256, 256, 0 }, { "<ffn_up.weight", 256, 256, 0 },
    { "<ffn_down.weight", 256, 256, 0 }, { ">ffn_gate_inp.weight", 256, 4, 0 }, { ">exp_probs_b.bias", 4, 0, 0 },
    { ">ffn_gate_exps.weight", 256, 64, 4 }, { ">ffn_up_exps.weight", 256, 64, 4 }, { ">ffn_down_exps.weight", 64, 256, 4 },
    { ">ffn_gate_shexp.weight", 256, 64, 0 }, { ">ffn_up_shexp.weight", 256, 64, 0 }, { ">ffn_down_shexp.weight", 64, 256, 0 } };
static const gen_tensor deepseek2_glob[] = {
    { "token_embd.weight", 256, 512, 0 }, { "output_norm.weight", 256, 0, 0 }, { "output.weight", 256, 512, 0 } };
static const gen_key deepseek2_keys[] = {
    { "attention.key_length", GK_U32, NULL, 96, NULL, 0 }, { "attention.value_length", GK_U32, NULL, 64, NULL, 0 },
    { "rope.dimension_count", GK_U32, NULL, 32, NULL, 0 }, { "attention.q_lora_rank", GK_U32, NULL, 64, NULL, 0 },
    { "attention.kv_lora_rank", GK_U32, NULL, 64, NULL, 0 }, { "attention.key_length_mla", GK_U32, NULL, 64, NULL, 0 },
    { "attention.value_length_mla", GK_U32, NULL, 32, NULL, 0 }, { "leading_dense_block_count", GK_U32, NULL, 1, NULL, 0 },
    { "expert_shared_count", GK_U32, NULL, 1, NULL, 0 }, { "expert_weights_scale", GK_F32, NULL, 2.5, NULL, 0 },
    { "expert_weights_norm", GK_BOOL, NULL, 1, NULL, 0 }, { "expert_gating_func", GK_U32, NULL, 2, NULL, 0 },
    { "rope.scaling.type", GK_STR, "yarn", 0, NULL, 0 }, { "rope.scaling.factor", GK_F32, NULL, 4.0, NULL, 0 },
    { "rope.scaling.original_context_length", GK_U32, NULL, 16, NULL, 0 }, { "rope.scaling.yarn_log_multiplier", GK_F32, NULL, 0.0707, NULL, 0 } };
/* deepseek2 as the Lite files: q_lora_rank 0 (a plain attn_q), no YaRN,
 * softmax gating without normalisation (keys absent), no exp_probs_b, two
 * shared experts */
static const gen_tensor deepseek2_lite_layer[] = {
    { "attn_norm.weight", 256, 0, 0 }, { "attn_q.weight", 256, 256, 0 }, { "attn_kv_a_mqa.weight", 256, 96, 0 },
    { "attn_kv_a_norm.weight", 64, 0, 0 }, { "attn_k_b.weight", 32, 64, 4 }, { "attn_v_b.weight", 64, 32, 4 },
    { "attn_output.weight", 128, 256, 0 }, { "ffn_norm.weight", 256, 0, 0 }, { "<ffn_gate.weight", 256, 256, 0 },
    { "<ffn_up.weight", 256, 256, 0 }, { "<ffn_down.weight", 256, 256, 0 }, { ">ffn_gate_inp.weight", 256, 4, 0 },
    { ">ffn_gate_exps.weight", 256, 64, 4 }, { ">ffn_up_exps.weight", 256, 64, 4 }, { ">ffn_down_exps.weight", 64, 256, 4 },
    { ">ffn_gate_shexp.weight", 256, 128, 0 }, { ">ffn_up_shexp.weight", 256, 128, 0 }, { ">ffn_down_shexp.weight", 128, 256, 0 } };
static const gen_key deepseek2_lite_keys[] = {
    { "attention.key_length", GK_U32, NULL, 96, NULL, 0 }, { "attention.value_length", GK_U32, NULL, 64, NULL, 0 },
    { "rope.dimension_count", GK_U32, NULL, 32, NULL, 0 }, { "attention.q_lora_rank", GK_U32, NULL, 0, NULL, 0 },
    { "attention.kv_lora_rank", GK_U32, NULL, 64, NULL, 0 }, { "attention.key_length_mla", GK_U32, NULL, 64, NULL, 0 },
    { "attention.value_length_mla", GK_U32, NULL, 32, NULL, 0 }, { "leading_dense_block_count", GK_U32, NULL, 1, NULL, 0 },
    { "expert_shared_count", GK_U32, NULL, 2, NULL, 0 } };
/* deepseek2 with the published files' latent head: kv_lora_rank 512 + 64
 * RoPE dims = 576 cached values (past the 512 of other heads), 2 heads of
 * 64 + 64, values of 64; softmax gating, weights normalised */
static const gen_tensor deepseek2_576_layer[] = {
    { "attn_norm.weight", 256, 0, 0 }, { "attn_q_a.weight", 256, 64, 0 }, { "attn_q_a_norm.weight", 64, 0, 0 },
    { "attn_q_b.weight", 64, 256, 0 }, { "attn_kv_a_mqa.weight", 256, 576, 0 }, { "attn_kv_a_norm.weight", 512, 0, 0 },
    { "attn_k_b.weight", 64, 512, 2 }, { "attn_v_b.weight", 512, 64, 2 }, { "attn_output.weight", 128, 256, 0 },
    { "ffn_norm.weight", 256, 0, 0 }, { "<ffn_gate.weight", 256, 256, 0 }, { "<ffn_up.weight", 256, 256, 0 },
    { "<ffn_down.weight", 256, 256, 0 }, { ">ffn_gate_inp.weight", 256, 4, 0 }, { ">ffn_gate_exps.weight", 256, 64, 4 },
    { ">ffn_up_exps.weight", 256, 64, 4 }, { ">ffn_down_exps.weight", 64, 256, 4 }, { ">ffn_gate_shexp.weight", 256, 64, 0 },
    { ">ffn_up_shexp.weight", 256, 64, 0 }, { ">ffn_down_shexp.weight", 64, 256, 0 } };
static const gen_key deepseek2_576_keys[] = {
    { "attention.key_length", GK_U32, NULL, 576, NULL, 0 }, { "attention.value_length", GK_U32, NULL, 512, NULL, 0 },
    { "rope.dimension_count", GK_U32, NULL, 64, NULL, 0 }, { "attention.q_lora_rank", GK_U32, NULL, 64, NULL, 0 },
    { "attention.kv_lora_rank", GK_U32, NULL, 512, NULL, 0 }, { "attention.key_length_mla", GK_U32, NULL, 128, NULL, 0 },
    { "attention.value_length_mla", GK_U32, NULL, 64, NULL, 0 }, { "leading_dense_block_count", GK_U32, NULL, 1, NULL, 0 },
    { "expert_shared_count", GK_U32, NULL, 1, NULL, 0 }, { "expert_weights_norm", GK_BOOL, NULL, 1, NULL, 0 } };
/* llama4: chunked attention (llama.cpp's chunks of 8192: the file runs at
 * positions 8176.., gen_pos0s) on RoPE layers 0-2 with the L2 norm of q and
 * k, layer 3 without RoPE with full attention and the temperature, experts
 * (4, top-2, sigmoid weights on the input) with a shared expert on layers 1
 * and 3, dense FFNs on 0 and 2; attention.sliding_window 16 is not read */
static const gen_tensor llama4_layer[] = {
    { "attn_norm.weight", 256, 0, 0 }, { "attn_q.weight", 256, 256, 0 }, { "attn_q.bias", 256, 0, 0 }, { "attn_q.scale", 1, 0, 0 },
    { "attn_q.input_scale", 1, 0, 0 }, { "attn_k.weight", 256, 64, 0 }, { "attn_k.bias", 64, 0, 0 }, { "attn_k.scale", 1, 0, 0 },
    { "attn_v.weight", 256, 64, 0 }, { "attn_v.bias", 64, 0, 0 }, { "attn_v.scale", 1, 0, 0 }, { "attn_output.weight", 256, 256, 0 },
    { "attn_output.scale", 1, 0, 0 }, { "ffn_norm.weight", 256, 0, 0 }, { "ffn_gate.weight", 256, 256, 0 }, { "ffn_up.weight", 256, 256, 0 },
    { "ffn_down.weight", 256, 256, 0 }, { "ffn_gate_inp.weight", 256, 4, 0 }, { "ffn_gate_exps.weight", 256, 256, 4 },
    { "ffn_up_exps.weight", 256, 256, 4 }, { "ffn_down_exps.weight", 256, 256, 4 }, { "ffn_gate_shexp.weight", 256, 256, 0 },
    { "ffn_up_shexp.weight", 256, 256, 0 }, { "ffn_down_shexp.weight", 256, 256, 0 } };
static const gen_tensor llama4_glob[] = {
    { "token_embd.weight", 256, 512, 0 }, { "output_norm.weight", 256, 0, 0 }, { "output.weight", 256, 512, 0 },
    { "rope_freqs.weight", 16, 0, 0 } };
static const gen_key llama4_keys[] = {
    { "interleave_moe_layer_step", GK_U32, NULL, 2, NULL, 0 }, { "rope.freq_base_swa", GK_F32, NULL, 5000.0, NULL, 0 } };
/* the files run at positions pos0, pos0 + 1, ... (the references: GEN_POS0) */
static const struct { const char *label; int pos0; } gen_pos0s[] = { { "llama4", 8176 } };
static int gen_pos0(const char *label) {
    size_t i;
    for (i = 0; i < sizeof gen_pos0s / sizeof gen_pos0s[0]; i++) if (!strcmp(gen_pos0s[i].label, label)) return gen_pos0s[i].pos0;
    return 0;
}
/* gemma4: window 8 on layers 0, 1, 2, 4 (bools), full attention on 3 and 5
 * (rope_freqs, base 1e6, 64 dims; window layers base 5000 over 32 dims);
 * layers 4, 5 reuse the KV of 2, 3 and hold no attn_k, attn_k_norm, attn_v
 * (gen_drops); layer 1 has no attn_v; per-layer embeddings of 32; layer
 * output scales; final soft-cap 30; tied output */
static const gen_tensor gemma4_layer[] = {
    { "attn_norm.weight", 256, 0, 0 }, { "attn_q.weight", 256, 256, 0 }, { "attn_k.weight", 256, 128, 0 }, { "attn_v.weight", 256, 128, 0 },
    { "attn_q_norm.weight", 64, 0, 0 }, { "attn_k_norm.weight", 64, 0, 0 }, { "attn_output.weight", 256, 256, 0 },
    { "post_attention_norm.weight", 256, 0, 0 }, { "ffn_norm.weight", 256, 0, 0 }, { "ffn_gate.weight", 256, 512, 0 },
    { "ffn_up.weight", 256, 512, 0 }, { "ffn_down.weight", 512, 256, 0 }, { "post_ffw_norm.weight", 256, 0, 0 },
    { "inp_gate.weight", 256, 32, 0 }, { "proj.weight", 32, 256, 0 }, { "post_norm.weight", 256, 0, 0 },
    { "layer_output_scale.weight", 1, 0, 0 } };
static const gen_tensor gemma4_glob[] = {
    { "token_embd.weight", 256, 512, 0 }, { "output_norm.weight", 256, 0, 0 }, { "rope_freqs.weight", 32, 0, 0 },
    { "per_layer_token_embd.weight", 192, 512, 0 }, { "per_layer_model_proj.weight", 256, 192, 0 }, { "per_layer_proj_norm.weight", 32, 0, 0 } };
static const int32_t gemma4_pat[] = { 1, 1, 1, 0, 1, 0 };
static const gen_key gemma4_keys[] = {
    { "attention.sliding_window_pattern", GK_BOOLS, NULL, 0, gemma4_pat, 6 }, { "attention.shared_kv_layers", GK_U32, NULL, 2, NULL, 0 },
    { "attention.key_length_swa", GK_U32, NULL, 64, NULL, 0 }, { "attention.value_length_swa", GK_U32, NULL, 64, NULL, 0 },
    { "rope.dimension_count", GK_U32, NULL, 64, NULL, 0 }, { "rope.dimension_count_swa", GK_U32, NULL, 32, NULL, 0 },
    { "rope.freq_base_swa", GK_F32, NULL, 5000.0, NULL, 0 }, { "embedding_length_per_layer_input", GK_U32, NULL, 32, NULL, 0 },
    { "final_logit_softcapping", GK_F32, NULL, 30.0, NULL, 0 } };
static const int32_t g4s_kvh[] = { 4, 4, 4, 1, 4, 1 }, g4s_ff[] = { 256, 256, 256, 256, 512, 512 };
static const gen_key gemma4_sizes_keys[] = {
    { "attention.head_count_kv", GK_I32S, NULL, 0, g4s_kvh, 6 }, { "feed_forward_length", GK_I32S, NULL, 0, g4s_ff, 6 },
    { "attention.sliding_window_pattern", GK_BOOLS, NULL, 0, gemma4_pat, 6 }, { "attention.shared_kv_layers", GK_U32, NULL, 2, NULL, 0 },
    { "attention.key_length_swa", GK_U32, NULL, 32, NULL, 0 }, { "attention.value_length_swa", GK_U32, NULL, 32, NULL, 0 },
    { "rope.dimension_count", GK_U32, NULL, 64, NULL, 0 }, { "rope.dimension_count_swa", GK_U32, NULL, 16, NULL, 0 },
    { "rope.freq_base_swa", GK_F32, NULL, 5000.0, NULL, 0 }, { "embedding_length_per_layer_input", GK_U32, NULL, 32, NULL, 0 },
    { "final_logit_softcapping", GK_F32, NULL, 30.0, NULL, 0 } };
/* gemma4's MoE variant: 4 GeGLU experts of 128, top 2, beside the dense FFN
 * in layers 1-3 (layer 0 has no router, gen_drops), routed by RMSNorm(x) /
 * sqrt(E) * ffn_gate_inp.scale; windows on layers 0, 2 */
static const gen_tensor gemma4_moe_layer[] = {
    { "attn_norm.weight", 256, 0, 0 }, { "attn_q.weight", 256, 256, 0 }, { "attn_k.weight", 256, 128, 0 }, { "attn_v.weight", 256, 128, 0 },
    { "attn_q_norm.weight", 64, 0, 0 }, { "attn_k_norm.weight", 64, 0, 0 }, { "attn_output.weight", 256, 256, 0 },
    { "post_attention_norm.weight", 256, 0, 0 }, { "ffn_norm.weight", 256, 0, 0 }, { "ffn_gate.weight", 256, 256, 0 },
    { "ffn_up.weight", 256, 256, 0 }, { "ffn_down.weight", 256, 256, 0 }, { "post_ffw_norm.weight", 256, 0, 0 },
    { "ffn_gate_inp.weight", 256, 4, 0 }, { "ffn_gate_inp.scale", 256, 0, 0 }, { "pre_ffw_norm_2.weight", 256, 0, 0 },
    { "post_ffw_norm_1.weight", 256, 0, 0 }, { "post_ffw_norm_2.weight", 256, 0, 0 }, { "ffn_gate_exps.weight", 256, 128, 4 },
    { "ffn_up_exps.weight", 256, 128, 4 }, { "ffn_down_exps.weight", 128, 256, 4 }, { "ffn_down_exps.scale", 4, 0, 0 },
    { "layer_output_scale.weight", 1, 0, 0 } };
static const gen_tensor gemma4_moe_glob[] = {
    { "token_embd.weight", 256, 512, 0 }, { "output_norm.weight", 256, 0, 0 }, { "rope_freqs.weight", 32, 0, 0 } };
static const int32_t gemma4_moe_pat[] = { 1, 0, 1, 0 };
static const gen_key gemma4_moe_keys[] = {
    { "attention.sliding_window_pattern", GK_BOOLS, NULL, 0, gemma4_moe_pat, 4 }, { "attention.key_length_swa", GK_U32, NULL, 64, NULL, 0 },
    { "attention.value_length_swa", GK_U32, NULL, 64, NULL, 0 }, { "embedding_length_per_layer_input", GK_U32, NULL, 0, NULL, 0 } };
/* the types each file is checked in, by opt: bit k = types[k] of
 * check_generated (F32, Q8_0, Q4_K_M, MXFP4_MOE) */
static const unsigned gen_opt_types[] = {
    0x7,   /* 0: the first files: F32, Q8_0, Q4_K_M */
    0x1,   /* 1: -opt files: F32 */
    0x7,   /* 2: smollm3, mistral3, glm4: F32, Q8_0, Q4_K_M */
    0xf,   /* 3: gpt-oss: also MXFP4_MOE (its experts MXFP4, as its published files) */
    0x7,   /* 4: glm4moe, llama4, gemma4: F32, Q8_0, Q4_K_M */
    0x1,   /* 5: glm4-nextn: F32 */
    0x7,   /* 6: deepseek2: F32, Q8_0, Q4_K_M */
    0x7,   /* 7: gemma4-moe: F32, Q8_0, Q4_K_M (the experts' rule: none exact) */
    0x7,   /* 8: lfm2 (recurrent layers: check_gen_rec): F32, Q8_0, Q4_K_M */
    0x7,   /* 9: mamba2, granitehybrid (check_gen_rec): F32, Q8_0, Q4_K_M */
    0x7,   /* 10: qwen35moe: F32, Q8_0, Q4_K_M (the experts' rule) */
    0x7,   /* 11: qwen35 (recurrent layers: check_gen_rec): F32, Q8_0, Q4_K_M */
};
/* the types whose logits must equal llama.cpp's bit for bit, by opt: Q8_0
 * where ggml's order is kept (one 8-bit rounding of the activations, the
 * same block sums); Q4_K_M is not (ggml's Q4_K/Q6_K dots sum in another
 * order: the quantized rule). Required on the references' kind of machine
 * (x86 without AVX-512): the AVX-512 build sums in another order */
static const unsigned gen_opt_exact[] = { 0x0, 0x0, 0x2, 0x2, 0x2, 0x0, 0x2, 0x0, 0x2, 0x0, 0x2, 0x2 };
static const gen_arch gen_archs[] = {
    { "qwen3", "qwen3", 11, GE, 2, 8, 2, 64, 768, 0, 1e-6f, 1e6f, qwen3_layer, 11, qwen3_glob, 3, 0, 0, 0, NULL, 0, 0 },
    { "gemma3", "gemma3", 12, GE, 6, 4, 1, 64, 512, 8, 1e-6f, 1e6f, gemma3_layer, 13, gemma3_glob, 2, 0, 0, 0, NULL, 0, 0 },
    { "qwen3moe", "qwen3moe", 13, GE, 2, 8, 2, 64, 768, 0, 1e-6f, 1e6f, qwen3moe_layer, 12, qwen3_glob, 3, 8, 2, 256, NULL, 0, 0 },
    { "llama-moe", "llama", 14, GE, 2, 8, 2, 32, 256, 0, 1e-5f, 1e4f, llama_moe_layer, 10, qwen3_glob, 3, 4, 2, 0, NULL, 0, 0 },
    { "llama-opt", "llama", 21, GE, 2, 8, 2, 32, 256, 0, 1e-05f, 10000.0f, llama_opt_layer, 25, llama_opt_glob, 4, 0, 0, 0, llama_opt_keys, 2, 1 },
    { "qwen2-opt", "qwen2", 22, GE, 2, 8, 2, 32, 256, 0, 1e-06f, 1000000.0f, qwen2_opt_layer, 13, qwen2_opt_glob, 4, 0, 0, 0, NULL, 0, 1 },
    { "qwen3-opt", "qwen3", 23, GE, 2, 8, 2, 64, 768, 0, 1e-06f, 1000000.0f, qwen3_opt_layer, 22, qwen3_opt_glob, 3, 0, 0, 0, NULL, 0, 1 },
    { "gemma3-opt", "gemma3", 24, GE, 6, 4, 1, 64, 512, 8, 1e-06f, 1000000.0f, gemma3_opt_layer, 20, gemma3_opt_glob, 2, 0, 0, 0, gemma3_opt_keys, 1, 1 },
    { "gpt2-opt", "gpt2", 25, GE, 2, 8, 8, 32, 512, 0, 1e-06f, 10000.0f, gpt2_opt_layer, 14, gpt2_opt_glob, 5, 0, 0, 0, gpt2_opt_keys, 1, 1 },
    { "phi3-opt", "phi3", 26, GE, 2, 8, 2, 32, 256, 0, 1e-05f, 10000.0f, phi3_opt_layer, 12, phi3_opt_glob, 3, 0, 0, 0, NULL, 0, 1 },
    { "llama-moe-opt", "llama", 27, GE, 2, 8, 2, 32, 256, 0, 1e-05f, 10000.0f, llama_moe_opt_layer, 14, llama_moe_opt_glob, 3, 4, 2, 0, llama_moe_opt_keys, 1, 1 },
    { "qwen3moe-opt", "qwen3moe", 28, GE, 2, 8, 2, 64, 768, 0, 1e-06f, 1000000.0f, qwen3moe_opt_layer, 15, qwen3moe_opt_glob, 3, 8, 2, 256, qwen3moe_opt_keys, 1, 1 },
    { "smollm3", "smollm3", 29, GE, 4, 8, 2, 32, 256, 0, 1e-06f, 10000.0f, smollm3_layer, 16, smollm3_glob, 3, 0, 0, 0, NULL, 0, 2 },
    { "mistral3", "mistral3", 30, GE, 3, 8, 2, 32, 256, 0, 1e-05f, 10000.0f, mistral3_layer, 23, mistral3_glob, 4, 0, 0, 0, mistral3_keys, 8, 2 },
    { "glm4", "glm4", 31, GE, 3, 8, 2, 32, 256, 0, 1e-05f, 10000.0f, glm4_layer, 11, glm4_glob, 2, 0, 0, 0, glm4_keys, 1, 2 },
    { "gpt-oss", "gpt-oss", 30, GE, 4, 8, 2, 32, 128, 16, 1e-05f, 10000.0f, gpt_oss_layer, 19, gpt_oss_glob, 3, 4, 2, 128, gpt_oss_keys, 4, 3 },
    { "glm4moe", "glm4moe", 32, GE, 4, 8, 2, 32, 256, 0, 1e-05f, 10000.0f, glm4moe_l1, GEN_N(glm4moe_l1), glm4moe_glob, 3, 4, 2, 128, glm4moe_keys, 6, 4 },
    { "glm4-nextn", "glm4", 33, GE, 4, 8, 2, 32, 256, 0, 1e-05f, 10000.0f, glm4_layer, 11, glm4_glob, 2, 0, 0, 0, glm4_nextn_keys, 2, 5 },
    { "deepseek2", "deepseek2", 32, GE, 3, 4, 1, 0, 256, 0, 1e-06f, 10000.0f, deepseek2_layer, 21, deepseek2_glob, 3, 4, 2, 64, deepseek2_keys, 16, 6 },
    { "deepseek2-lite", "deepseek2", 33, GE, 2, 4, 1, 0, 256, 0, 1e-06f, 10000.0f, deepseek2_lite_layer, 18, deepseek2_glob, 3, 4, 2, 64, deepseek2_lite_keys, 9, 1 },
    { "deepseek2-576", "deepseek2", 34, GE, 2, 2, 1, 0, 256, 0, 1e-06f, 10000.0f, deepseek2_576_layer, 20, deepseek2_glob, 3, 4, 2, 64, deepseek2_576_keys, 10, 1 },
    { "llama4", "llama4", 32, GE, 4, 8, 2, 32, 256, 16, 1e-05f, 10000.0f, llama4_layer, 24, llama4_glob, 4, 4, 2, 256, llama4_keys, 2, 4 },
    { "gemma4", "gemma4", 32, GE, 6, 4, 2, 64, 512, 8, 1e-06f, 1000000.0f, gemma4_layer, 17, gemma4_glob, 6, 0, 0, 0, gemma4_keys, 9, 4 },
    { "gemma4-moe", "gemma4", 33, GE, 4, 4, 2, 64, 256, 8, 1e-06f, 1000000.0f, gemma4_moe_layer, 23, gemma4_moe_glob, 3, 4, 2, 128, gemma4_moe_keys, 4, 7 },
    { "gemma4-sizes", "gemma4", 35, GE, 6, 4, 4, 64, 256, 8, 1e-06f, 1000000.0f, g4s_win, GEN_N(g4s_win), gemma4_glob, 6, 0, 0, 0,
      gemma4_sizes_keys, GEN_N(gemma4_sizes_keys), 4 },
    { "lfm2", "lfm2", 38, GE, 6, 8, 2, 0, 512, 0, 1e-05f, 1000000.0f, lfm2_conv, GEN_N(lfm2_conv), lfm2_glob, 2, 0, 0, 0,
      lfm2_keys, GEN_N(lfm2_keys), 8 },
    { "mamba2", "mamba2", 40, GE, 4, 0, 0, 0, 0, 0, 1e-05f, 10000.0f, mamba2_layer, GEN_N(mamba2_layer), qwen3_glob, 3, 0, 0, 0,
      mamba2_keys, GEN_N(mamba2_keys), 9 },
    { "granitehybrid", "granitehybrid", 42, GE, 4, 8, 2, 32, 512, 0, 1e-05f, 10000.0f, gh_ssm, GEN_N(gh_ssm), gh_glob, 2, 0, 0, 0,
      gh_keys, GEN_N(gh_keys), 9 },
    { "granitehybrid-nope", "granitehybrid", 43, GE, 4, 8, 2, 32, 512, 0, 1e-05f, 10000.0f, gh_ssm, GEN_N(gh_ssm), gh_glob, 2, 0, 0, 0,
      gh_nope_keys, GEN_N(gh_nope_keys), 1 },
    { "qwen35", "qwen35", 39, GE, 6, 4, 2, 64, 512, 0, 1e-06f, 10000000.0f, qwen35_gdn, GEN_N(qwen35_gdn), qwen35_glob, 2, 0, 0, 0,
      qwen35_keys, GEN_N(qwen35_keys), 11 },
    { "qwen35-nextn", "qwen35", 41, GE, 7, 4, 2, 64, 512, 0, 1e-06f, 10000000.0f, qwen35_gdn, GEN_N(qwen35_gdn), qwen35_glob, 2, 0, 0, 0,
      qwen35_nextn_keys, GEN_N(qwen35_nextn_keys), 5 },
    { "qwen35moe", "qwen35moe", 40, GE, 6, 4, 2, 64, 512, 0, 1e-06f, 10000000.0f, qwen35moe_gdn, GEN_N(qwen35moe_gdn), qwen35_glob, 2, 4, 2, 128,
      qwen35moe_keys, GEN_N(qwen35moe_keys), 10 },
};
/* per-layer tensors some layers of a file do not have (gen_arch_fixtures.py's "drop") */
static const struct { const char *label, *name; int from, to; } gen_drops[] = {
    { "gemma4", "attn_k.weight", 4, 5 }, { "gemma4", "attn_k_norm.weight", 4, 5 }, { "gemma4", "attn_v.weight", 4, 5 },
    { "gemma4", "attn_v.weight", 1, 1 },
    { "gemma4-sizes", "attn_k.weight", 4, 5 }, { "gemma4-sizes", "attn_k_norm.weight", 4, 5 }, { "gemma4-sizes", "attn_v.weight", 4, 5 },
    { "gemma4-sizes", "attn_v.weight", 1, 1 },
    { "gemma4-moe", "ffn_gate_inp.weight", 0, 0 }, { "gemma4-moe", "ffn_gate_inp.scale", 0, 0 }, { "gemma4-moe", "pre_ffw_norm_2.weight", 0, 0 },
    { "gemma4-moe", "post_ffw_norm_1.weight", 0, 0 }, { "gemma4-moe", "post_ffw_norm_2.weight", 0, 0 },
    { "gemma4-moe", "ffn_gate_exps.weight", 0, 0 }, { "gemma4-moe", "ffn_up_exps.weight", 0, 0 }, { "gemma4-moe", "ffn_down_exps.weight", 0, 0 },
    { "gemma4-moe", "ffn_down_exps.scale", 0, 0 },
};
static int gen_dropped(const gen_arch *a, const char *name, int il) {
    size_t k;
    for (k = 0; k < sizeof gen_drops / sizeof gen_drops[0]; k++)
        if (!strcmp(gen_drops[k].label, a->label) && !strcmp(gen_drops[k].name, name) && il >= gen_drops[k].from && il <= gen_drops[k].to) return 1;
    return 0;
}
static uint64_t fnv1a64(const void *p, size_t n) {
    const unsigned char *b = (const unsigned char *)p;
    uint64_t h = 0xcbf29ce484222325ull;
    size_t i;
    for (i = 0; i < n; i++) h = (h ^ b[i]) * 0x100000001b3ull;
    return h;
}
static uint64_t splitmix64(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
/* the generator of tools/gen_arch_fixtures.py, element by element */
static void gen_values(const char *name, uint64_t seed, float *out, size_t n, int norm, int router) {
    const uint64_t gold = 0x9E3779B97F4A7C15ull, x = fnv1a64(name, strlen(name)) ^ (seed * gold);
    size_t i;
    for (i = 0; i < n; i++) {
        float v = (float)(splitmix64(x + (uint64_t)(i + 1) * gold) >> 40) * 0x1p-24f - 0.5f;
        out[i] = router ? v : norm ? 1.0f + v * 0.25f : v * 0.07f;   /* v * 0.25f is exact: one rounding, fused or not */
    }
}
/* the tensors drawn as 1 + v N: norm weights, weight scales, rope_freqs */
static int gen_unit(const char *name, size_t nl) {
    return (nl >= 11 && !strcmp(name + nl - 11, "norm.weight")) || (nl >= 6 && !strcmp(name + nl - 6, ".scale")) ||
           (nl >= 12 && !strcmp(name + nl - 12, ".input_scale")) ||
           !strcmp(name, "rope_freqs.weight") || !strcmp(name, "attn_sinks.weight") || !strcmp(name, "layer_output_scale.weight") ||
           (nl >= 13 && (!strcmp(name + nl - 13, "norm_1.weight") || !strcmp(name + nl - 13, "norm_2.weight")));
}
/* drawn as v: routers (and their biases, and selection biases); as v * 16: gpt-oss's gate/up expert biases */
static int gen_router(const char *name) {
    return !strcmp(name, "ffn_gate_inp.weight") || !strcmp(name, "ffn_gate_inp.bias") || !strcmp(name, "exp_probs_b.bias") ||
           !strcmp(name, "shortconv.conv.weight") ||   /* lfm2's conv taps: of either sign, large enough that a wrong tap shows */
           !strcmp(name, "ssm_conv1d.weight") || !strcmp(name, "ssm_dt.bias") || !strcmp(name, "ssm_d") ||   /* Mamba 2's likewise */
           !strcmp(name, "ssm_a");   /* qwen35's (ssm_a: v - 0.5; Mamba 2's drawn again in gen_model) */
}
static int gen_wide(const char *name) { return !strcmp(name, "ffn_gate_exps.bias") || !strcmp(name, "ffn_up_exps.bias"); }
/* "<label> <name> <type> <hash>" from tests/data/arch/hashes.txt; 0 if absent */
static uint64_t ref_hash(const char *label, const char *name) {
    FILE *f = fopen("tests/data/arch/hashes.txt", "r");
    char l[64], nm[128], ty[16];
    unsigned long long h;
    uint64_t r = 0;
    if (!f) return 0;
    while (fscanf(f, "%63s %127s %15s %llx", l, nm, ty, &h) == 4) if (!strcmp(l, label) && !strcmp(nm, name)) { r = h; break; }
    fclose(f);
    return r;
}
/* with the key interleave_moe_layer_step (llama4), layer il holds the expert
 * tensors (ffn_gate_inp, *_exps, *_shexp) when (il + 1) % step == 0 and the
 * dense ffn_gate/up/down otherwise (gen_arch_fixtures.py's on_layer) */
static int gen_on_layer(const gen_arch *a, int il, const char *name) {
    int k, step = 0, moe, expert, dense;
    for (k = 0; k < a->n_keys; k++) if (!strcmp(a->keys[k].sfx, "interleave_moe_layer_step")) step = (int)a->keys[k].num;
    if (!step) return 1;
    moe = (il + 1) % step == 0;
    expert = strstr(name, "_exps.") || strstr(name, "_shexp.") || !strncmp(name, "ffn_gate_inp.", 13);
    dense = !strcmp(name, "ffn_gate.weight") || !strcmp(name, "ffn_up.weight") || !strcmp(name, "ffn_down.weight");
    return moe ? expert || !dense : !expert;
}
static int gen_has_key(const gen_arch *a, const char *sfx) {
    int k;
    for (k = 0; k < a->n_keys; k++) if (!strcmp(a->keys[k].sfx, sfx)) return 1;
    return 0;
}
/* the F32 model as a GGUF in memory (NULL on failure; hash mismatches are checks) */
static unsigned char *gen_model(const gen_arch *a, size_t *len) {
    const char *sp = lk_t_fixture("stories260K/stories260K-F32.gguf");
    lk_gguf *st = NULL;
    lk_gguf_writer *w = NULL;
    unsigned char *buf = NULL;
    char key[128], name[128], label[64];
    float *data[128];
    int n_data = 0, il, k, i, lead = 0;
    if (!sp || lk_gguf_read_file(sp, NULL, &st) || lk_gguf_writer_new(NULL, &w)) { lk_gguf_free(st); return NULL; }
#define KEY(sfx) (snprintf(key, sizeof key, "%s.%s", a->arch, sfx), key)
    lk_gguf_writer_add_str(w, "general.architecture", a->arch);
    lk_gguf_writer_add_u32(w, KEY("context_length"), 512);
    lk_gguf_writer_add_u32(w, KEY("embedding_length"), (uint32_t)a->E);
    lk_gguf_writer_add_u32(w, KEY("block_count"), (uint32_t)a->L);
    if (!gen_has_key(a, "feed_forward_length")) lk_gguf_writer_add_u32(w, KEY("feed_forward_length"), (uint32_t)a->F);   /* else an array below */
    lk_gguf_writer_add_u32(w, KEY("attention.head_count"), (uint32_t)a->H);
    if (!gen_has_key(a, "attention.head_count_kv")) lk_gguf_writer_add_u32(w, KEY("attention.head_count_kv"), (uint32_t)a->G);
    if (a->d) {   /* 0: given among the keys */
        lk_gguf_writer_add_u32(w, KEY("attention.key_length"), (uint32_t)a->d);
        lk_gguf_writer_add_u32(w, KEY("attention.value_length"), (uint32_t)a->d);
    }
    lk_gguf_writer_add_f32(w, KEY("attention.layer_norm_rms_epsilon"), a->eps);
    lk_gguf_writer_add_f32(w, KEY("rope.freq_base"), a->base);
    if (a->window) lk_gguf_writer_add_u32(w, KEY("attention.sliding_window"), (uint32_t)a->window);
    if (a->X) { lk_gguf_writer_add_u32(w, KEY("expert_count"), (uint32_t)a->X); lk_gguf_writer_add_u32(w, KEY("expert_used_count"), (uint32_t)a->K); }
    if (a->Fe) lk_gguf_writer_add_u32(w, KEY("expert_feed_forward_length"), (uint32_t)a->Fe);
    for (k = 0; k < a->n_keys; k++) {
        const gen_key *gk = &a->keys[k];
        if (gk->kind == GK_STR) lk_gguf_writer_add_str(w, KEY(gk->sfx), gk->str);
        else if (gk->kind == GK_F32) lk_gguf_writer_add_f32(w, KEY(gk->sfx), (float)gk->num);
        else if (gk->kind == GK_U32) lk_gguf_writer_add_u32(w, KEY(gk->sfx), (uint32_t)gk->num);
        else if (gk->kind == GK_BOOL) lk_gguf_writer_add_bool(w, KEY(gk->sfx), gk->num != 0.0);
        else {
            lk_gguf_value v;
            unsigned char b8[64];
            int j;
            memset(&v, 0, sizeof v);
            for (j = 0; j < gk->n && j < 64; j++) b8[j] = (unsigned char)(gk->arr[j] != 0);
            v.type = LK_GGUF_ARRAY; v.arr_type = gk->kind == GK_BOOLS ? LK_GGUF_BOOL : LK_GGUF_INT32; v.n = (uint64_t)gk->n;
            v.v.arr = gk->kind == GK_BOOLS ? (const void *)b8 : (const void *)gk->arr;
            lk_gguf_writer_add_value(w, KEY(gk->sfx), &v);
        }
    }
#undef KEY
    lk_gguf_writer_add_u32(w, "general.file_type", 0);
    for (k = 0; k < (int)st->n_kv; k++)
        if (st->kv[k].key.len > 10 && !memcmp(st->kv[k].key.ptr, "tokenizer.", 10)) {
            snprintf(key, sizeof key, "%.*s", (int)st->kv[k].key.len, st->kv[k].key.ptr);
            lk_gguf_writer_add_value(w, key, &st->kv[k].value);
        }
    snprintf(label, sizeof label, "%s-F32", a->label);
    for (k = 0; k < a->n_keys; k++) if (!strcmp(a->keys[k].sfx, "leading_dense_block_count")) lead = (int)a->keys[k].num;
    for (il = -1; il < a->L; il++) {
        const gen_tensor *ts = il < 0 ? a->glob : a->layer;
        int nt = il < 0 ? a->n_glob : a->n_layer_t;
        size_t b;
        for (b = 0; il >= 0 && b < sizeof gen_blocks / sizeof gen_blocks[0]; b++)
            if (gen_blocks[b].il == il && !strcmp(gen_blocks[b].label, a->label)) { ts = gen_blocks[b].t; nt = gen_blocks[b].n; }
        for (k = 0; k < nt && n_data < 128; k++) {
            int64_t ne[3];
            size_t n = (size_t)ts[k].ne0 * (size_t)(ts[k].ne1 ? ts[k].ne1 : 1) * (size_t)(ts[k].ne2 ? ts[k].ne2 : 1);
            float *v;
            const char *tn = ts[k].name;
            size_t nl;
            if (tn[0] == '<' || tn[0] == '>') {   /* the leading dense layers' only, or the others' only */
                if ((tn[0] == '<') != (il < lead)) continue;
                tn++;
            }
            if (il >= 0 && (!gen_on_layer(a, il, tn) || gen_dropped(a, tn, il))) continue;   /* interleaved experts: their layers' only; gemma4's drop */
            nl = strlen(tn);
            v = (float *)malloc(sizeof(float) * n);
            if (il < 0) snprintf(name, sizeof name, "%s", tn);
            else snprintf(name, sizeof name, "blk.%d.%s", il, tn);
            ne[0] = ts[k].ne0; ne[1] = ts[k].ne1; ne[2] = ts[k].ne2;
            gen_values(name, a->seed, v, n, gen_unit(tn, nl), gen_router(tn) || gen_wide(tn));
            if (gen_wide(tn)) for (i = 0; i < (int)n; i++) v[i] *= 16.0f;
            if (!strcmp(tn, "ssm_a") && (!strcmp(a->arch, "mamba2") || !strcmp(a->arch, "granitehybrid"))) {
                gen_values(name, a->seed, v, n, 1, 0);   /* Mamba 2's A: -(1 + v N), a decay */
                for (i = 0; i < (int)n; i++) v[i] = -v[i];
            } else if (!strcmp(tn, "ssm_a")) for (i = 0; i < (int)n; i++) v[i] -= 0.5f;   /* qwen35's -exp(A_log): negative */
            CHECK(fnv1a64(v, sizeof(float) * n) == ref_hash(label, name), "%s: the generated data does not hash as gen_arch_fixtures.py's", name);
            lk_gguf_writer_add_tensor(w, name, LK_TYPE_F32, ts[k].ne2 ? 3 : ts[k].ne1 ? 2 : 1, ne, v, 0);
            data[n_data++] = v;
        }
    }
    *len = (size_t)lk_gguf_writer_size(w);
    buf = (unsigned char *)malloc(*len);
    if (buf && lk_gguf_writer_write_memory(w, buf, *len)) { free(buf); buf = NULL; }
    for (i = 0; i < n_data; i++) free(data[i]);
    lk_gguf_writer_free(w);
    lk_gguf_free(st);
    return buf;
}
/* lk_quantize_gguf of an in-memory model; counts tensors equal to llama-quantize's */
static unsigned char *gen_quantize(const unsigned char *in, size_t in_len, lk_ftype ft, const char *label, size_t *len, int *same, int *total) {
    lk_gguf *g = NULL;
    lk_gguf_writer *w = NULL;
    lk_quantize_gguf_params qp = lk_quantize_gguf_default_params();
    unsigned char *buf = NULL;
    uint64_t i;
    qp.ftype = ft;
    if (lk_gguf_read_memory(in, in_len, NULL, &g) || lk_quantize_gguf(g, &qp, &w, NULL)) { lk_gguf_free(g); return NULL; }
    *len = (size_t)lk_gguf_writer_size(w);
    buf = (unsigned char *)malloc(*len);
    if (buf && lk_gguf_writer_write_memory(w, buf, *len)) { free(buf); buf = NULL; }
    lk_gguf_writer_free(w);
    lk_gguf_free(g);
    *same = *total = 0;
    if (buf && !lk_gguf_read_memory(buf, *len, NULL, &g)) {
        for (i = 0; i < g->n_tensors; i++) {
            char name[128];
            snprintf(name, sizeof name, "%.*s", (int)g->tensors[i].name.len, g->tensors[i].name.ptr);
            *same += fnv1a64(g->tensors[i].data, (size_t)g->tensors[i].nbytes) == ref_hash(label, name);
            (*total)++;
        }
        lk_gguf_free(g);
    }
    return buf;
}
/* greedy decoding from memory: the first np tokens of seq A, then n argmax tokens (ties: the lower id) */
static int gen_greedy(const unsigned char *buf, size_t len, int np, lk_token *out, int n) {
    lk_model *m = NULL;
    lk_context *c = NULL;
    lk_context_params cp = lk_context_default_params();
    int k, v, ok = 0;
    int pp[MAXT];
    for (k = 0; k < np && k < MAXT; k++) pp[k] = run_pos0 + k;
    cp.n_ctx = 64; cp.n_threads = 2;
    cp.kv_type = LK_TYPE_F32;   /* as the reference's: an f16 cache moves gemma4's unscaled attention by 1e-2 M */
    if (lk_model_load_memory(buf, len, NULL, &m) || lk_context_new(m, &cp, &c) || np > MAXT || lk_decode_pos(c, seq, pp, np)) goto done;
    for (k = 0; k < n; k++) {
        const float *l = lk_logits(c, -1);
        lk_token t = 0;
        if (!l) goto done;
        for (v = 1; v < lk_model_n_vocab(m); v++) if (l[v] > l[t]) t = v;
        out[k] = t;
        if (lk_decode(c, &t, 1)) goto done;   /* the next position */
    }
    ok = 1;
done:
    lk_context_free(c);
    lk_model_free(m);
    return ok;
}
/* 32 greedy tokens after seq A's first 8 against llama.cpp's (tools/gen_arch_refs.cpp's fourth argument) */
static void check_greedy(const gen_arch *a, const unsigned char *f32, size_t len) {
    char rel[128], name[128];
    lk_token ours[32], ref[32];
    FILE *f;
    int k, n = 0, same = 0;
    snprintf(rel, sizeof rel, "tests/data/arch/%s-F32.greedy.txt", a->label);
    snprintf(name, sizeof name, "greedy %s-F32 (generated)", a->label);
    lk_t_begin(name);
    if ((f = fopen(rel, "r"))) { while (n < 32 && fscanf(f, "%d", &ref[n]) == 1) n++; fclose(f); }
    CHECK(n == 32, "cannot read 32 tokens from %s", rel);
    CHECK(gen_greedy(f32, len, 8, ours, 32), "greedy decoding failed: %s", lk_last_error());
    for (k = 0; k < n && ours[k] == ref[k]; k++) same++;
    printf("  %-28s %d of 32 greedy tokens equal to llama.cpp's\n", name + 7, same);
    CHECK(same == 32, "greedy text differs from llama.cpp's at token %d", same);
    lk_t_end();
}
/* issue 32's rule on the generated files: a tensor the architecture's graph
 * in llama.cpp does not read is refused naming it; a key its loader reads
 * to a feature llmkit lacks is refused naming it; a key it does not read
 * loads (want LK_OK) */
typedef struct gen_refusal {
    const char *label, *what;
    gen_key key;                 /* added when key.sfx */
    const char *tensor; int64_t ne0;   /* added (ones, f32, 1-D) when tensor */
    lk_status want; const char *named;
} gen_refusal;
static const int32_t glm4_mrope[] = { 8, 4, 4, 0 };
static const int32_t g4s_ff7[] = { 256, 256, 256, 256, 512, 512, 512 }, g4s_ff0[] = { 256, 256, 0, 256, 512, 512 },
                     g4s_ffbig[] = { 256, 256, 256, 256, 512, 8388608 }, g4s_kv8[] = { 8, 4, 4, 1, 4, 1 }, g4s_kv0[] = { 4, 4, 4, 0, 4, 1 },
                     g4s_kv3[] = { 4, 4, 4, 3, 4, 3 }, g4s_kv2[] = { 4, 4, 4, 2, 4, 2 }, g4s_kvsh[] = { 4, 4, 4, 1, 4, 2 };
static const int32_t lfm2_kv3[] = { 0, 0, 3, 0, 2, 0 }, lfm2_kv9[] = { 0, 0, 9, 0, 2, 0 }, lfm2_kvc[] = { 0, 0, 0, 0, 2, 0 };
static const int32_t gh_kv5[] = { 0, 2, 0 }, gh_kvall[] = { 0, 0, 0, 0 }, gh_kvattn[] = { 2, 2, 0, 0 };
static const gen_refusal gen_refusals[] = {
    /* Mamba 2: sizes out of range or against the tensors, groups not dividing the heads, heads not dividing inner_size */
    { "mamba2", "mamba2: ssm.state_size 0", { "ssm.state_size", GK_U32, NULL, 0, NULL, 0 }, NULL, 0, LK_ERR_FORMAT, "mamba2.ssm.state_size' = 0" },
    { "mamba2", "mamba2: ssm.state_size 2^20", { "ssm.state_size", GK_U32, NULL, 1048576, NULL, 0 }, NULL, 0, LK_ERR_FORMAT, "mamba2.ssm.state_size" },
    { "mamba2", "mamba2: ssm.state_size 64 (its tensors have 32)", { "ssm.state_size", GK_U32, NULL, 64, NULL, 0 }, NULL, 0, LK_ERR_FORMAT, "blk.0.ssm_in.weight" },
    { "mamba2", "mamba2: ssm.group_count 3 (8 heads)", { "ssm.group_count", GK_U32, NULL, 3, NULL, 0 }, NULL, 0, LK_ERR_FORMAT, "ssm.group_count 3" },
    { "mamba2", "mamba2: ssm.group_count 0", { "ssm.group_count", GK_U32, NULL, 0, NULL, 0 }, NULL, 0, LK_ERR_FORMAT, "mamba2.ssm.group_count' = 0" },
    { "mamba2", "mamba2: ssm.group_count 16 > 8 heads", { "ssm.group_count", GK_U32, NULL, 16, NULL, 0 }, NULL, 0, LK_ERR_FORMAT, "ssm.group_count 16" },
    { "mamba2", "mamba2: ssm.conv_kernel 0", { "ssm.conv_kernel", GK_U32, NULL, 0, NULL, 0 }, NULL, 0, LK_ERR_FORMAT, "mamba2.ssm.conv_kernel' = 0" },
    { "mamba2", "mamba2: ssm.conv_kernel 2^20", { "ssm.conv_kernel", GK_U32, NULL, 1048576, NULL, 0 }, NULL, 0, LK_ERR_FORMAT, "mamba2.ssm.conv_kernel' = 1048576" },
    { "mamba2", "mamba2: ssm.conv_kernel 5 (its taps' tensors have 4)", { "ssm.conv_kernel", GK_U32, NULL, 5, NULL, 0 }, NULL, 0, LK_ERR_FORMAT, "blk.0.ssm_conv1d.weight" },
    { "mamba2", "mamba2: ssm.inner_size 500 (8 heads)", { "ssm.inner_size", GK_U32, NULL, 500, NULL, 0 }, NULL, 0, LK_ERR_FORMAT, "ssm.inner_size 500" },
    { "mamba2", "mamba2: ssm.inner_size 2^30", { "ssm.inner_size", GK_U32, NULL, 1073741824, NULL, 0 }, NULL, 0, LK_ERR_FORMAT, "mamba2.ssm.inner_size" },
    { "mamba2", "mamba2: ssm.time_step_rank 0", { "ssm.time_step_rank", GK_U32, NULL, 0, NULL, 0 }, NULL, 0, LK_ERR_FORMAT, "mamba2.ssm.time_step_rank' = 0" },
    { "mamba2", "mamba2: ssm.time_step_rank 16 (its tensors have 8)", { "ssm.time_step_rank", GK_U32, NULL, 16, NULL, 0 }, NULL, 0, LK_ERR_FORMAT, "blk.0.ssm_in.weight" },
    { "mamba2", "mamba2: ssm_conv1d.scale (its graph passes none)", { NULL, 0, NULL, 0, NULL, 0 }, "blk.0.ssm_conv1d.scale", 1, LK_ERR_FORMAT, "blk.0.ssm_conv1d.scale" },
    { "mamba2", "mamba2: attention.sliding_window 8", { "attention.sliding_window", GK_U32, NULL, 8, NULL, 0 }, NULL, 0, LK_ERR_UNSUPPORTED, "sliding-window" },
    /* granitehybrid: its layer-kind array, inner_size = 2 n_embd (llama.cpp asserts it), its scalars finite */
    { "granitehybrid", "granitehybrid: head_count_kv of 3 entries for 4 layers", { "attention.head_count_kv", GK_I32S, NULL, 0, gh_kv5, 3 }, NULL, 0, LK_ERR_FORMAT, "has 3 entries for 4 layers" },
    { "granitehybrid", "granitehybrid: head_count_kv 0 for its attention layer", { "attention.head_count_kv", GK_I32S, NULL, 0, gh_kvall, 4 }, NULL, 0, LK_ERR_FORMAT, "blk.1.ssm_in.weight" },
    { "granitehybrid", "granitehybrid: head_count_kv 2 for a Mamba 2 layer", { "attention.head_count_kv", GK_I32S, NULL, 0, gh_kvattn, 4 }, NULL, 0, LK_ERR_FORMAT, "blk.0.attn_q.weight" },
    { "granitehybrid", "granitehybrid: ssm.inner_size 256 != 2 n_embd", { "ssm.inner_size", GK_U32, NULL, 256, NULL, 0 }, NULL, 0, LK_ERR_UNSUPPORTED, "2 embedding_length" },
    { "granitehybrid", "granitehybrid: logit_scale inf", { "logit_scale", GK_F32, NULL, INFINITY, NULL, 0 }, NULL, 0, LK_ERR_FORMAT, "logit_scale' is not a finite number" },
    { "granitehybrid", "granitehybrid: expert_count 4 (its MoE variant)", { "expert_count", GK_U32, NULL, 4, NULL, 0 }, NULL, 0, LK_ERR_UNSUPPORTED, "expert_count 4" },
    { "granitehybrid", "granitehybrid: residual_scale 0 (none) loads", { "residual_scale", GK_F32, NULL, 0, NULL, 0 }, NULL, 0, LK_OK, NULL },
    { "granitehybrid", "granitehybrid: rope.scaling.finetuned 2 (not a bool)", { "rope.scaling.finetuned", GK_U32, NULL, 2, NULL, 0 }, NULL, 0, LK_ERR_FORMAT, "must be a bool" },
    { "mistral3", "mistral3: post_attention_norm (not in its graph)", { NULL, 0, NULL, 0, NULL, 0 }, "blk.0.post_attention_norm.weight", 256, LK_ERR_FORMAT, "blk.0.post_attention_norm.weight" },
    { "mistral3", "mistral3: rope_factors_long (longrope only)", { NULL, 0, NULL, 0, NULL, 0 }, "rope_factors_long.weight", 16, LK_ERR_FORMAT, "rope_factors_long.weight" },
    { "glm4", "glm4: ffn_gate.weight (gate+up are fused)", { NULL, 0, NULL, 0, NULL, 0 }, "blk.1.ffn_gate.weight", 256, LK_ERR_FORMAT, "blk.1.ffn_gate.weight" },
    { "glm4", "glm4: attn_output.bias (its graph passes none)", { NULL, 0, NULL, 0, NULL, 0 }, "blk.0.attn_output.bias", 256, LK_ERR_FORMAT, "blk.0.attn_output.bias" },
    { "glm4", "glm4: ffn_up.scale (its graph passes none)", { NULL, 0, NULL, 0, NULL, 0 }, "blk.0.ffn_up.scale", 1, LK_ERR_FORMAT, "blk.0.ffn_up.scale" },
    { "glm4", "glm4: rope_freqs (not created)", { NULL, 0, NULL, 0, NULL, 0 }, "rope_freqs.weight", 8, LK_ERR_FORMAT, "rope_freqs.weight" },
    { "glm4", "glm4: M-RoPE sections", { "rope.dimension_sections", GK_I32S, NULL, 0, glm4_mrope, 4 }, NULL, 0, LK_ERR_UNSUPPORTED, "rope.dimension_sections" },
    { "glm4", "glm4: nextn_predict_layers 1", { "nextn_predict_layers", GK_U32, NULL, 1, NULL, 0 }, NULL, 0, LK_ERR_FORMAT, "blk.2.nextn.eh_proj.weight" },
    { "glm4", "glm4: final_logit_softcapping (not read)", { "final_logit_softcapping", GK_F32, NULL, 30.0, NULL, 0 }, NULL, 0, LK_OK, NULL },
    { "glm4moe", "glm4moe: attn_output.bias (its graph passes none)", { NULL, 0, NULL, 0, NULL, 0 }, "blk.1.attn_output.bias", 256, LK_ERR_FORMAT, "blk.1.attn_output.bias" },
    { "glm4moe", "glm4moe: ffn_up_shexp.scale (its graph passes none)", { NULL, 0, NULL, 0, NULL, 0 }, "blk.1.ffn_up_shexp.scale", 1, LK_ERR_FORMAT, "blk.1.ffn_up_shexp.scale" },
    { "glm4moe", "glm4moe: ffn_gate_exps.scale (its graph passes none)", { NULL, 0, NULL, 0, NULL, 0 }, "blk.2.ffn_gate_exps.scale", 4, LK_ERR_FORMAT, "blk.2.ffn_gate_exps.scale" },
    { "glm4moe", "glm4moe: a nextn block's attn_q.scale (not created)", { NULL, 0, NULL, 0, NULL, 0 }, "blk.3.attn_q.scale", 1, LK_ERR_FORMAT, "blk.3.attn_q.scale" },
    { "glm4moe", "glm4moe: rope_freqs (not created)", { NULL, 0, NULL, 0, NULL, 0 }, "rope_freqs.weight", 8, LK_ERR_FORMAT, "rope_freqs.weight" },
    { "glm4moe", "glm4moe: M-RoPE sections", { "rope.dimension_sections", GK_I32S, NULL, 0, glm4_mrope, 4 }, NULL, 0, LK_ERR_UNSUPPORTED, "rope.dimension_sections" },
    { "glm4moe", "glm4moe: expert_gating_func 4", { "expert_gating_func", GK_U32, NULL, 4, NULL, 0 }, NULL, 0, LK_ERR_UNSUPPORTED, "expert_gating_func" },
    { "glm4moe", "glm4moe: expert_group_count 2", { "expert_group_count", GK_U32, NULL, 2, NULL, 0 }, NULL, 0, LK_ERR_UNSUPPORTED, "expert_group_count" },
    { "glm4moe", "glm4moe: attention.sliding_window (not read)", { "attention.sliding_window", GK_U32, NULL, 8, NULL, 0 }, NULL, 0, LK_OK, NULL },
    /* gemma4-sizes: per-layer arrays of the wrong length or with values out of range, sizes its tensors or shared KV contradict */
    { "gemma4-sizes", "gemma4-sizes: head_count_kv of 5 entries for 6 layers", { "attention.head_count_kv", GK_I32S, NULL, 0, g4s_kvh, 5 }, NULL, 0, LK_ERR_FORMAT, "has 5 entries for 6 layers" },
    { "gemma4-sizes", "gemma4-sizes: feed_forward_length of 7 entries", { "feed_forward_length", GK_I32S, NULL, 0, g4s_ff7, 7 }, NULL, 0, LK_ERR_FORMAT, "gemma4.feed_forward_length' has 7 entries" },
    { "gemma4-sizes", "gemma4-sizes: feed_forward_length entry 0", { "feed_forward_length", GK_I32S, NULL, 0, g4s_ff0, 6 }, NULL, 0, LK_ERR_FORMAT, "gemma4.feed_forward_length' entry 2 = 0" },
    { "gemma4-sizes", "gemma4-sizes: feed_forward_length entry 2^23", { "feed_forward_length", GK_I32S, NULL, 0, g4s_ffbig, 6 }, NULL, 0, LK_ERR_FORMAT, "entry 5 = 8388608" },
    { "gemma4-sizes", "gemma4-sizes: head_count_kv entry 8 > head_count 4", { "attention.head_count_kv", GK_I32S, NULL, 0, g4s_kv8, 6 }, NULL, 0, LK_ERR_FORMAT, "gemma4.attention.head_count_kv' entry 0 = 8" },
    { "gemma4-sizes", "gemma4-sizes: head_count_kv entry 0", { "attention.head_count_kv", GK_I32S, NULL, 0, g4s_kv0, 6 }, NULL, 0, LK_ERR_FORMAT, "gemma4.attention.head_count_kv' entry 3 = 0" },
    { "gemma4-sizes", "gemma4-sizes: head_count_kv 3 (4 heads)", { "attention.head_count_kv", GK_I32S, NULL, 0, g4s_kv3, 6 }, NULL, 0, LK_ERR_FORMAT, "layer 3's head_count_kv 3" },
    { "gemma4-sizes", "gemma4-sizes: head_count_kv the tensors contradict", { "attention.head_count_kv", GK_I32S, NULL, 0, g4s_kv2, 6 }, NULL, 0, LK_ERR_FORMAT, "blk.3.attn_k.weight" },
    { "gemma4-sizes", "gemma4-sizes: a shared layer's KV heads differ from its cache's", { "attention.head_count_kv", GK_I32S, NULL, 0, g4s_kvsh, 6 }, NULL, 0, LK_ERR_FORMAT, "reuse the KV cache of layer 3" },
    { "gemma4-sizes", "gemma4-sizes: value_length_swa != key_length_swa", { "attention.value_length_swa", GK_U32, NULL, 16, NULL, 0 }, NULL, 0, LK_ERR_FORMAT, "value_length_swa 16" },
    { "gemma4-sizes", "gemma4-sizes: key_length_swa 1024", { "attention.key_length_swa", GK_U32, NULL, 1024, NULL, 0 }, NULL, 0, LK_ERR_FORMAT, "gemma4.attention.key_length_swa' = 1024" },
    { "gemma4-sizes", "gemma4-sizes: key_length_swa 0", { "attention.key_length_swa", GK_U32, NULL, 0, NULL, 0 }, NULL, 0, LK_ERR_FORMAT, "gemma4.attention.key_length_swa' = 0" },
    { "gemma4-sizes", "gemma4-sizes: rope.dimension_count_swa 64 > key_length_swa 32", { "rope.dimension_count_swa", GK_U32, NULL, 64, NULL, 0 }, NULL, 0, LK_ERR_FORMAT, "rope.dimension_count_swa" },
    /* lfm2: the conv's width out of range or against its tensors, layer-kind arrays of the wrong length or values, the SWA variant */
    { "lfm2", "lfm2: shortconv.l_cache 0", { "shortconv.l_cache", GK_U32, NULL, 0, NULL, 0 }, NULL, 0, LK_ERR_FORMAT, "lfm2.shortconv.l_cache' = 0" },
    { "lfm2", "lfm2: shortconv.l_cache 1 (no past input)", { "shortconv.l_cache", GK_U32, NULL, 1, NULL, 0 }, NULL, 0, LK_ERR_FORMAT, "lfm2.shortconv.l_cache' = 1" },
    { "lfm2", "lfm2: shortconv.l_cache 2^20", { "shortconv.l_cache", GK_U32, NULL, 1048576, NULL, 0 }, NULL, 0, LK_ERR_FORMAT, "lfm2.shortconv.l_cache' = 1048576" },
    { "lfm2", "lfm2: shortconv.l_cache 4 (its taps' tensors have 3)", { "shortconv.l_cache", GK_U32, NULL, 4, NULL, 0 }, NULL, 0, LK_ERR_FORMAT, "blk.0.shortconv.conv.weight" },
    { "lfm2", "lfm2: head_count_kv of 5 entries for 6 layers", { "attention.head_count_kv", GK_I32S, NULL, 0, lfm2_kvh, 5 }, NULL, 0, LK_ERR_FORMAT, "has 5 entries for 6 layers" },
    { "lfm2", "lfm2: head_count_kv entry 3 (8 heads)", { "attention.head_count_kv", GK_I32S, NULL, 0, lfm2_kv3, 6 }, NULL, 0, LK_ERR_FORMAT, "is not a multiple of head_count_kv 3" },
    { "lfm2", "lfm2: head_count_kv entry 9 > head_count 8", { "attention.head_count_kv", GK_I32S, NULL, 0, lfm2_kv9, 6 }, NULL, 0, LK_ERR_FORMAT, "lfm2.attention.head_count_kv' entry 2 = 9" },
    { "lfm2", "lfm2: head_count_kv 0 for an attention layer", { "attention.head_count_kv", GK_I32S, NULL, 0, lfm2_kvc, 6 }, NULL, 0, LK_ERR_FORMAT, "blk.2.shortconv.conv.weight" },
    { "lfm2", "lfm2: attention.sliding_window 8 (the SWA variant)", { "attention.sliding_window", GK_U32, NULL, 8, NULL, 0 }, NULL, 0, LK_ERR_UNSUPPORTED, "sliding-window variant" },
    { "lfm2", "lfm2: output_norm (its output norm is token_embd_norm)", { NULL, 0, NULL, 0, NULL, 0 }, "output_norm.weight", 256, LK_ERR_FORMAT, "output_norm.weight" },
    { "lfm2", "lfm2: shortconv.in_proj.scale (its graph passes none)", { NULL, 0, NULL, 0, NULL, 0 }, "blk.0.shortconv.in_proj.scale", 1, LK_ERR_FORMAT, "blk.0.shortconv.in_proj.scale" },
    { "lfm2", "lfm2: shortconv.conv on an attention layer", { NULL, 0, NULL, 0, NULL, 0 }, "blk.2.shortconv.conv.weight", 3, LK_ERR_FORMAT, "blk.2.shortconv.conv.weight" },
    /* qwen35: the layer interval, the delta net's sizes against each other and its tensors, imrope sections text cannot take */
    { "qwen35", "qwen35: full_attention_interval 0", { "full_attention_interval", GK_U32, NULL, 0, NULL, 0 }, NULL, 0, LK_ERR_FORMAT, "qwen35.full_attention_interval' = 0" },
    { "qwen35", "qwen35: full_attention_interval 7 > 6 layers (all recurrent)", { "full_attention_interval", GK_U32, NULL, 7, NULL, 0 }, NULL, 0, LK_ERR_FORMAT, "blk.2.attn_qkv.weight" },
    { "qwen35", "qwen35: full_attention_interval 2 (layer 1 attention)", { "full_attention_interval", GK_U32, NULL, 2, NULL, 0 }, NULL, 0, LK_ERR_FORMAT, "blk.1.attn_q.weight" },
    { "qwen35", "qwen35: ssm.group_count 3 does not divide 4 v heads", { "ssm.group_count", GK_U32, NULL, 3, NULL, 0 }, NULL, 0, LK_ERR_FORMAT, "ssm.group_count 3" },
    { "qwen35", "qwen35: ssm.group_count 4 (its tensors have 2 k heads)", { "ssm.group_count", GK_U32, NULL, 4, NULL, 0 }, NULL, 0, LK_ERR_FORMAT, "blk.0.attn_qkv.weight" },
    { "qwen35", "qwen35: ssm.conv_kernel 0", { "ssm.conv_kernel", GK_U32, NULL, 0, NULL, 0 }, NULL, 0, LK_ERR_FORMAT, "qwen35.ssm.conv_kernel' = 0" },
    { "qwen35", "qwen35: ssm.conv_kernel 2^20", { "ssm.conv_kernel", GK_U32, NULL, 1048576, NULL, 0 }, NULL, 0, LK_ERR_FORMAT, "qwen35.ssm.conv_kernel' = 1048576" },
    { "qwen35", "qwen35: ssm.conv_kernel 3 (its taps' tensors have 4)", { "ssm.conv_kernel", GK_U32, NULL, 3, NULL, 0 }, NULL, 0, LK_ERR_FORMAT, "blk.0.ssm_conv1d.weight" },
    { "qwen35", "qwen35: ssm.state_size 0", { "ssm.state_size", GK_U32, NULL, 0, NULL, 0 }, NULL, 0, LK_ERR_FORMAT, "qwen35.ssm.state_size' = 0" },
    { "qwen35", "qwen35: ssm.state_size 16 != inner_size / time_step_rank 32", { "ssm.state_size", GK_U32, NULL, 16, NULL, 0 }, NULL, 0, LK_ERR_FORMAT, "must equal ssm.state_size 16" },
    { "qwen35", "qwen35: ssm.inner_size 64 (v heads of 16, k heads of 32)", { "ssm.inner_size", GK_U32, NULL, 64, NULL, 0 }, NULL, 0, LK_ERR_FORMAT, "must equal ssm.state_size 32" },
    { "qwen35", "qwen35: ssm.time_step_rank 0", { "ssm.time_step_rank", GK_U32, NULL, 0, NULL, 0 }, NULL, 0, LK_ERR_FORMAT, "qwen35.ssm.time_step_rank' = 0" },
    { "qwen35", "qwen35: rope.dimension_sections [2, 3, 3, 0] (pair 6 in the 4th)", { "rope.dimension_sections", GK_I32S, NULL, 0, qwen35_sect_e, 4 }, NULL, 0, LK_ERR_UNSUPPORTED, "rotated pair 6 in the 4th section" },
    { "qwen35", "qwen35: rope.dimension_sections of 3 entries", { "rope.dimension_sections", GK_I32S, NULL, 0, qwen35_sect, 3 }, NULL, 0, LK_ERR_FORMAT, "has 3 entries" },
    { "qwen35", "qwen35: rope.dimension_sections sum 80 > 64", { "rope.dimension_sections", GK_I32S, NULL, 0, qwen35_sect_big, 4 }, NULL, 0, LK_ERR_FORMAT, "sums to 80" },
    { "qwen35", "qwen35: rope.dimension_sections all 0", { "rope.dimension_sections", GK_I32S, NULL, 0, qwen35_sect_0, 4 }, NULL, 0, LK_ERR_FORMAT, "sums to 0" },
    { "qwen35", "qwen35: rope.dimension_sections [1, 1, 1, 0] (repeating: text as NEOX)", { "rope.dimension_sections", GK_I32S, NULL, 0, qwen35_sect_1, 4 }, NULL, 0, LK_OK, NULL },
    { "qwen35", "qwen35: ssm_a on an attention layer", { NULL, 0, NULL, 0, NULL, 0 }, "blk.2.ssm_a", 4, LK_ERR_FORMAT, "blk.2.ssm_a" },
    { "qwen35", "qwen35: attn_qkv on an attention layer (gated q: apart only)", { NULL, 0, NULL, 0, NULL, 0 }, "blk.5.attn_qkv.weight", 256, LK_ERR_FORMAT, "blk.5.attn_qkv.weight" },
    { "qwen35", "qwen35: ffn_norm (its FFN norm is post_attention_norm)", { NULL, 0, NULL, 0, NULL, 0 }, "blk.0.ffn_norm.weight", 256, LK_ERR_FORMAT, "blk.0.ffn_norm.weight" },
    { "qwen35moe", "qwen35moe: expert_shared_feed_forward_length 128 (its tensors have 192)", { "expert_shared_feed_forward_length", GK_U32, NULL, 128, NULL, 0 }, NULL, 0, LK_ERR_FORMAT, "blk.0.ffn_gate_shexp.weight" },
    { "qwen35moe", "qwen35moe: expert_count 0", { "expert_count", GK_U32, NULL, 0, NULL, 0 }, NULL, 0, LK_ERR_FORMAT, "qwen35moe needs expert_count > 0" },
};
static void gen_add_key(lk_gguf_writer *w, const char *arch, const gen_key *gk) {
    char key[128];
    snprintf(key, sizeof key, "%s.%s", arch, gk->sfx);
    if (gk->kind == GK_STR) lk_gguf_writer_add_str(w, key, gk->str);
    else if (gk->kind == GK_F32) lk_gguf_writer_add_f32(w, key, (float)gk->num);
    else if (gk->kind == GK_U32) lk_gguf_writer_add_u32(w, key, (uint32_t)gk->num);
    else if (gk->kind == GK_BOOL) lk_gguf_writer_add_bool(w, key, gk->num != 0.0);
    else {
        lk_gguf_value v;
        unsigned char b8[64];
        int j;
        memset(&v, 0, sizeof v);
        for (j = 0; j < gk->n && j < 64; j++) b8[j] = (unsigned char)(gk->arr[j] != 0);
        v.type = LK_GGUF_ARRAY; v.arr_type = gk->kind == GK_BOOLS ? LK_GGUF_BOOL : LK_GGUF_INT32; v.n = (uint64_t)gk->n;
        v.v.arr = gk->kind == GK_BOOLS ? (const void *)b8 : (const void *)gk->arr;
        lk_gguf_writer_add_value(w, key, &v);
    }
}
static void check_refusals(const gen_arch *a, const unsigned char *f32, size_t len) {
    static float ones[256];
    size_t r;
    int i;
    for (i = 0; i < 256; i++) ones[i] = 1.0f;
    for (r = 0; r < sizeof gen_refusals / sizeof gen_refusals[0]; r++) {
        const gen_refusal *x = &gen_refusals[r];
        lk_gguf *g = NULL;
        lk_gguf_writer *w = NULL;
        lk_model *m = NULL;
        unsigned char *buf = NULL;
        size_t n = 0;
        uint64_t k;
        lk_status st;
        char nm[256];
        if (strcmp(x->label, a->label)) continue;
        lk_t_begin(x->what);
        if (lk_gguf_read_memory(f32, len, NULL, &g) || lk_gguf_writer_new(NULL, &w)) { CHECK(0, "cannot rewrite the file"); lk_gguf_free(g); lk_t_end(); continue; }
        for (k = 0; k < g->n_kv; k++) {
            char rk[160];
            snprintf(nm, sizeof nm, "%.*s", (int)g->kv[k].key.len, g->kv[k].key.ptr);
            snprintf(rk, sizeof rk, "%s.%s", a->arch, x->key.sfx ? x->key.sfx : "");
            if (!x->key.sfx || strcmp(nm, rk)) lk_gguf_writer_add_value(w, nm, &g->kv[k].value);   /* a key the row gives is replaced */
        }
        if (x->key.sfx) gen_add_key(w, a->arch, &x->key);
        for (k = 0; k < g->n_tensors; k++) {
            const lk_gguf_tensor *t = &g->tensors[k];
            snprintf(nm, sizeof nm, "%.*s", (int)t->name.len, t->name.ptr);
            lk_gguf_writer_add_tensor(w, nm, t->type, t->n_dims, t->ne, t->data, 0);
        }
        if (x->tensor) lk_gguf_writer_add_tensor(w, x->tensor, LK_TYPE_F32, 1, &x->ne0, ones, 0);
        n = (size_t)lk_gguf_writer_size(w);
        buf = (unsigned char *)malloc(n);
        CHECK(buf && lk_gguf_writer_write_memory(w, buf, n) == LK_OK, "cannot write the variant");
        st = buf ? lk_model_load_memory(buf, n, NULL, &m) : LK_ERR_NOMEM;
        CHECK(st == x->want, "status %d, want %d: %s", (int)st, (int)x->want, st ? lk_last_error() : "loaded");
        if (st && x->named) CHECK(strstr(lk_last_error(), x->named) != NULL, "the message does not name %s: %s", x->named, lk_last_error());
        if (!st && m) {   /* a key the loader does not read changes nothing */
            const lk_hparams *hp = lk_model_hparams(m);
            CHECK(hp->final_softcap == 0.0f && hp->attn_softcap == 0.0f && hp->n_layer + hp->n_layer_nextn == a->L && hp->sliding_window == 0,
                  "the key was read (soft-caps %g, %g; %d layers; window %d)", (double)hp->final_softcap, (double)hp->attn_softcap, hp->n_layer,
                  hp->sliding_window);
        }
        lk_model_free(m); free(buf); lk_gguf_writer_free(w); lk_gguf_free(g);
        lk_t_end();
    }
}
/* The attention sinks on every attention path: two sequences interleaved in
 * lk_decode_batch (paged KV, pages of 8 rows, past the window of 16) against
 * each sequence alone, and one-token decoding with split-KV (attn_split 2)
 * and with tiles (attn_tile 8) against the plain path; same argmax, max|d| <=
 * 1e-5 M (paged) or 5e-3 M (split and tiles: their merges round otherwise,
 * up to 3e-4 M on smollm3 and llama-moe-opt, 8e-4 M here without sinks). The
 * sinks are applied after the attention from its log-sum-exp
 * (lk__attn_sinks); a path that lost them is off by 1e-2 M and more. */
static float *gen_run(const unsigned char *buf, size_t len, lk_context_params cp, const lk_token *const *toks, const int *n, int ns, int V) {
    lk_model *m = NULL;
    lk_context *c = NULL;
    float *out = (float *)calloc((size_t)2 * 40 * V, sizeof(float));
    int s, k, id[2];
    if (!out || lk_model_load_memory(buf, len, NULL, &m) || lk_context_new(m, &cp, &c)) goto fail;
    if (cp.n_seq_max > 0) {   /* chunks of 5: seq 0's, then seq 1's, interleaved token by token in one batch */
        int fed = 0;
        for (s = 0; s < ns; s++) if (lk_seq_add(c, &id[s])) goto fail;
        while (fed < n[0]) {
            lk_token bt[10]; int bs[10], bi = 0, at[2] = { -1, -1 };
            lk_batch b;
            for (k = 0; k < 5 && fed + k < n[0]; k++)
                for (s = 0; s < ns; s++) { bt[bi] = toks[s][fed + k]; bs[bi] = id[s]; at[s] = bi; bi++; }
            int bp[10];
            for (s = 0; s < bi; s++) bp[s] = run_pos0 + fed + s / ns;
            memset(&b, 0, sizeof b);
            b.n = bi; b.token = bt; b.seq = bs; b.pos = bp;
            if (lk_decode_batch(c, &b)) goto fail;
            fed += k;
            for (s = 0; s < ns; s++) memcpy(out + ((size_t)s * 40 + fed - 1) * V, lk_logits(c, at[s]), sizeof(float) * V);
        }
    } else
        for (k = 0; k < n[0]; k++) {   /* one token at a time */
            const int pk = run_pos0 + k;
            if (lk_decode_pos(c, &toks[0][k], &pk, 1)) goto fail;
            memcpy(out + (size_t)k * V, lk_logits(c, -1), sizeof(float) * V);
        }
    lk_context_free(c);
    lk_model_free(m);
    return out;
fail:
    printf("  run: %s\n", lk_last_error());
    lk_context_free(c);
    lk_model_free(m);
    free(out);
    return NULL;
}
static void check_gen_paths(const gen_arch *a, const unsigned char *f32, size_t len) {
    const int V = 512, N = 30;
    lk_token s1[40];
    const lk_token *toks[2];
    int n[2], k, s, r, bad = 0;
    char name[128];
    double worst[3] = { 0.0, 0.0, 0.0 };
    static const double tol[3] = { 1e-5, 5e-3, 5e-3 };
    lk_context_params cp = lk_context_default_params();
    snprintf(name, sizeof name, "attention paths %s-F32 (generated): paged sequences, split, tiles = plain", a->label);
    lk_t_begin(name);
    for (k = 0; k < N; k++) s1[k] = seq[(k * 7 + 3) % nseq];
    toks[0] = seq; toks[1] = s1; n[0] = n[1] = N;
    cp.n_ctx = 128; cp.n_batch = 24; cp.n_threads = 2;
    /* gemma4-sizes with an f32 cache: its unscaled attention over the default
     * f16 rows moves split and tiles 5.7e-3 M from plain (gemma4's 4.3e-3);
     * over f32 rows 3e-4 M (gemma4's 5.7e-4), the paths' own difference;
     * qwen35moe's f16 rows flip a top-2 expert choice at one position (split
     * and tiles 1.0e-2 M), its f32 rows 8e-7 M */
    if (!strcmp(a->label, "gemma4-sizes") || !strcmp(a->label, "qwen35moe")) cp.kv_type = LK_TYPE_F32;
    for (r = 0; r < 3; r++) {
        lk_context_params pc = cp, one = cp;
        float *got, *ref[2] = { NULL, NULL };
        if (r == 0) { pc.n_seq_max = 2; pc.kv_page = 8; }
        if (r == 1) pc.attn_split = 2;
        if (r == 2) pc.attn_tile = 8;
        got = gen_run(f32, len, pc, toks, n, r == 0 ? 2 : 1, V);
        for (s = 0; s < (r == 0 ? 2 : 1); s++) ref[s] = gen_run(f32, len, one, toks + s, n, 1, V);
        CHECK(got && ref[0] && (r || ref[1]), "could not run");
        for (s = 0; got && ref[0] && (r || ref[1]) && s < (r == 0 ? 2 : 1); s++)
            for (k = 0; k < N; k++) {
                const float *g = got + ((size_t)s * 40 + k) * V, *w = ref[s] + (size_t)k * V;
                double d, mx = 1.0;
                int i;
                if (r == 0 && k % 5 != 4 && k != N - 1) continue;   /* the batches keep each chunk's last logits */
                for (i = 0; i < V; i++) if (fabs(w[i]) > mx) mx = fabs(w[i]);
                d = lk_t_maxdiff(g, w, (size_t)V) / mx;
                if (d > worst[r]) worst[r] = d;
                bad += d > tol[r] || lk_t_argmax(g, V) != lk_t_argmax(w, V);
            }
        free(got); free(ref[0]); free(ref[1]);
    }
    printf("  %-28s max|d| / M: paged %.2e, split %.2e, tiles %.2e\n", a->label, worst[0], worst[1], worst[2]);
    CHECK(bad == 0, "%d positions differ by more than 1e-5 M (paged) or 5e-3 M (split, tiles), or in their argmax", bad);
    lk_t_end();
}
/* A copy of an in-memory GGUF without key drop_key and tensor drop_t, and
 * with an extra f32 tensor add_t [n] (each NULL: none); set0: drop_key
 * comes back as a u32 0 */
static unsigned char *gen_variant(const unsigned char *in, size_t in_len, const char *drop_key, const char *drop_t, const char *add_t, int64_t n,
                                  int set0, size_t *len) {
    lk_gguf *g = NULL;
    lk_gguf_writer *w = NULL;
    unsigned char *buf = NULL;
    float *extra = add_t ? (float *)calloc((size_t)n, sizeof(float)) : NULL;
    char nm[160];
    uint64_t i;
    if (lk_gguf_read_memory(in, in_len, NULL, &g) || lk_gguf_writer_new(NULL, &w)) goto done;
    for (i = 0; i < g->n_kv; i++) {
        snprintf(nm, sizeof nm, "%.*s", (int)g->kv[i].key.len, g->kv[i].key.ptr);
        if (!drop_key || strcmp(nm, drop_key)) lk_gguf_writer_add_value(w, nm, &g->kv[i].value);
    }
    if (drop_key && set0) lk_gguf_writer_add_u32(w, drop_key, 0);
    for (i = 0; i < g->n_tensors; i++) {
        const lk_gguf_tensor *t = &g->tensors[i];
        snprintf(nm, sizeof nm, "%.*s", (int)t->name.len, t->name.ptr);
        if (!drop_t || strcmp(nm, drop_t)) lk_gguf_writer_add_tensor(w, nm, t->type, t->n_dims, t->ne, t->data, 1);
    }
    if (add_t) lk_gguf_writer_add_tensor(w, add_t, LK_TYPE_F32, 1, &n, extra, 1);
    *len = (size_t)lk_gguf_writer_size(w);
    buf = (unsigned char *)malloc(*len);
    if (buf && lk_gguf_writer_write_memory(w, buf, *len)) { free(buf); buf = NULL; }
done:
    lk_gguf_writer_free(w);
    lk_gguf_free(g);
    free(extra);
    return buf;
}
/* The required keys and tensors of gpt-oss, glm4moe, glm4-nextn,
 * deepseek2 and llama4, as llama.cpp's loader requires them, and a tensor their graphs
 * do not read: each refused with a message naming it (says NULL: a file
 * llama.cpp loads, which must load). glm4moe's nextn block: required as
 * llama.cpp's loader skips it (its q/k/v and, without nextn.eh_proj, all of
 * it optional);
 * glm4's: the same but nextn.eh_proj, enorm, hnorm always required; without
 * nextn_predict_layers it is a block to run, whose nextn tensors no graph
 * reads; gemma4 and gemma4-moe: their keys, per-layer embeddings, own-KV
 * tensors and experts beside the FFN; deepseek2 without key_length_mla: the older conversion llama.cpp
 * runs without the latent cache, refused as not supported. */
static void check_gen_refusals(const gen_arch *a, const unsigned char *f32, size_t len) {
    static const struct { const char *label, *key, *drop, *add; int64_t n; const char *says; lk_status want; int set0; } v[] = {
        { "gpt-oss", "gpt-oss.attention.sliding_window", NULL, NULL, 0, "gpt-oss.attention.sliding_window", LK_ERR_FORMAT, 0 },
        { "gpt-oss", "gpt-oss.expert_feed_forward_length", NULL, NULL, 0, "gpt-oss.expert_feed_forward_length", LK_ERR_FORMAT, 0 },
        { "gpt-oss", "gpt-oss.expert_count", NULL, NULL, 0, "gpt-oss.expert_count", LK_ERR_FORMAT, 0 },
        { "gpt-oss", NULL, "blk.1.attn_sinks.weight", NULL, 0, "blk.1.attn_sinks.weight", LK_ERR_FORMAT, 0 },
        { "gpt-oss", NULL, "blk.0.ffn_gate_inp.bias", NULL, 0, "blk.0.ffn_gate_inp.bias", LK_ERR_FORMAT, 0 },
        { "gpt-oss", NULL, "blk.2.ffn_down_exps.bias", NULL, 0, "blk.2.ffn_down_exps.bias", LK_ERR_FORMAT, 0 },
        { "gpt-oss", NULL, "blk.3.post_attention_norm.weight", NULL, 0, "blk.3.post_attention_norm.weight", LK_ERR_FORMAT, 0 },
        { "gpt-oss", NULL, NULL, "blk.0.ffn_up_exps.scale", 4, "blk.0.ffn_up_exps.scale", LK_ERR_FORMAT, 0 },
        { "gpt-oss", NULL, NULL, "blk.1.ffn_norm.weight", 256, "blk.1.ffn_norm.weight", LK_ERR_FORMAT, 0 },
        { "glm4moe", "glm4moe.expert_shared_count", NULL, NULL, 0, "glm4moe.expert_shared_count", LK_ERR_FORMAT, 0 },
        { "glm4moe", "glm4moe.expert_feed_forward_length", NULL, NULL, 0, "glm4moe.expert_feed_forward_length", LK_ERR_FORMAT, 0 },
        { "glm4moe", "glm4moe.expert_count", NULL, NULL, 0, "glm4moe.expert_count", LK_ERR_FORMAT, 0 },
        { "glm4moe", "glm4moe.leading_dense_block_count", NULL, NULL, 0, "blk.0.ffn_gate_inp.weight", LK_ERR_FORMAT, 0 },
        { "glm4moe", "glm4moe.nextn_predict_layers", NULL, NULL, 0, "blk.3.nextn.", LK_ERR_FORMAT, 0 },
        { "glm4moe", NULL, "blk.1.exp_probs_b.bias", NULL, 0, "blk.1.exp_probs_b.bias", LK_ERR_FORMAT, 0 },
        { "glm4moe", NULL, "blk.2.ffn_down_shexp.weight", NULL, 0, "blk.2.ffn_down_shexp.weight", LK_ERR_FORMAT, 0 },
        { "glm4moe", NULL, "blk.0.ffn_gate.weight", NULL, 0, "blk.0.ffn_gate.weight", LK_ERR_FORMAT, 0 },
        { "glm4moe", NULL, "blk.3.nextn.enorm.weight", NULL, 0, "blk.3.nextn.enorm.weight", LK_ERR_FORMAT, 0 },
        { "glm4moe", NULL, "blk.3.ffn_gate_inp.weight", NULL, 0, "blk.3.ffn_gate_inp.weight", LK_ERR_FORMAT, 0 },
        { "glm4moe", NULL, NULL, "blk.0.exp_probs_b.bias", 4, "blk.0.exp_probs_b.bias", LK_ERR_FORMAT, 0 },
        { "glm4moe", NULL, NULL, "blk.1.ffn_norm.weight", 256, "blk.1.ffn_norm.weight", LK_ERR_FORMAT, 0 },
        { "glm4moe", NULL, NULL, "blk.4.attn_norm.weight", 256, "blk.4.attn_norm.weight", LK_ERR_FORMAT, 0 },
        { "glm4moe", NULL, "blk.3.attn_q.weight", NULL, 0, NULL, LK_OK, 0 },
        { "glm4moe", NULL, "blk.3.nextn.eh_proj.weight", NULL, 0, NULL, LK_OK, 0 },
        { "glm4moe", NULL, "blk.3.nextn.shared_head_head.weight", NULL, 0, NULL, LK_OK, 0 },
        { "glm4-nextn", "glm4.nextn_predict_layers", NULL, NULL, 0, "blk.3.nextn.", LK_ERR_FORMAT, 0 },
        { "glm4-nextn", NULL, "blk.3.nextn.eh_proj.weight", NULL, 0, "blk.3.nextn.eh_proj.weight", LK_ERR_FORMAT, 0 },
        { "glm4-nextn", NULL, "blk.3.nextn.hnorm.weight", NULL, 0, "blk.3.nextn.hnorm.weight", LK_ERR_FORMAT, 0 },
        { "glm4-nextn", NULL, "blk.3.ffn_up.weight", NULL, 0, "blk.3.ffn_up.weight", LK_ERR_FORMAT, 0 },
        { "glm4-nextn", NULL, "blk.3.post_ffw_norm.weight", NULL, 0, "blk.3.post_ffw_norm.weight", LK_ERR_FORMAT, 0 },
        { "glm4-nextn", NULL, NULL, "blk.3.attn_output.scale", 1, "blk.3.attn_output.scale", LK_ERR_FORMAT, 0 },
        { "glm4-nextn", NULL, NULL, "blk.4.attn_norm.weight", 256, "blk.4.attn_norm.weight", LK_ERR_FORMAT, 0 },
        { "glm4-nextn", NULL, "blk.3.attn_qkv.weight", NULL, 0, NULL, LK_OK, 0 },
        { "glm4-nextn", NULL, "blk.3.nextn.shared_head_head.weight", NULL, 0, NULL, LK_OK, 0 },
        { "qwen35", "qwen35.rope.dimension_sections", NULL, NULL, 0, "qwen35.rope.dimension_sections", LK_ERR_FORMAT, 0 },
        { "qwen35", "qwen35.ssm.state_size", NULL, NULL, 0, "qwen35.ssm.state_size", LK_ERR_FORMAT, 0 },
        { "qwen35", "qwen35.ssm.conv_kernel", NULL, NULL, 0, "qwen35.ssm.conv_kernel", LK_ERR_FORMAT, 0 },
        { "qwen35", "qwen35.full_attention_interval", NULL, NULL, 0, "blk.2.attn_qkv.weight", LK_ERR_FORMAT, 0 },   /* default 4: layer 2 recurrent */
        { "qwen35", NULL, "blk.1.ssm_a", NULL, 0, "blk.1.ssm_a", LK_ERR_FORMAT, 0 },
        { "qwen35", NULL, "blk.4.ssm_alpha.weight", NULL, 0, "blk.4.ssm_alpha.weight", LK_ERR_FORMAT, 0 },
        { "qwen35", NULL, "blk.5.attn_q_norm.weight", NULL, 0, "blk.5.attn_q_norm.weight", LK_ERR_FORMAT, 0 },
        { "qwen35", NULL, "blk.0.post_attention_norm.weight", NULL, 0, "blk.0.post_attention_norm.weight", LK_ERR_FORMAT, 0 },
        { "qwen35-nextn", "qwen35.nextn_predict_layers", NULL, NULL, 0, "blk.6.attn_qkv.weight", LK_ERR_FORMAT, 0 },   /* block 6 run: recurrent */
        { "qwen35-nextn", NULL, "blk.6.nextn.eh_proj.weight", NULL, 0, "blk.6.nextn.eh_proj.weight", LK_ERR_FORMAT, 0 },
        { "qwen35-nextn", NULL, "blk.6.attn_q_norm.weight", NULL, 0, "blk.6.attn_q_norm.weight", LK_ERR_FORMAT, 0 },
        { "qwen35-nextn", NULL, NULL, "blk.6.ssm_a", 4, "blk.6.ssm_a", LK_ERR_FORMAT, 0 },
        { "qwen35moe", NULL, "blk.3.ffn_gate_inp_shexp.weight", NULL, 0, "blk.3.ffn_gate_inp_shexp.weight", LK_ERR_FORMAT, 0 },
        { "qwen35moe", NULL, "blk.1.ffn_down_shexp.weight", NULL, 0, "blk.1.ffn_down_shexp.weight", LK_ERR_FORMAT, 0 },
        { "qwen35moe", "qwen35moe.expert_shared_feed_forward_length", NULL, NULL, 0, "blk.0.ffn_gate_shexp.weight", LK_ERR_FORMAT, 0 },   /* default F = 512 */
        { "deepseek2", "deepseek2.attention.q_lora_rank", NULL, NULL, 0, "deepseek2.attention.q_lora_rank", LK_ERR_FORMAT, 0 },
        { "deepseek2", "deepseek2.attention.kv_lora_rank", NULL, NULL, 0, "deepseek2.attention.kv_lora_rank", LK_ERR_FORMAT, 0 },
        { "deepseek2", "deepseek2.expert_shared_count", NULL, NULL, 0, "deepseek2.expert_shared_count", LK_ERR_FORMAT, 0 },
        { "deepseek2", "deepseek2.expert_feed_forward_length", NULL, NULL, 0, "deepseek2.expert_feed_forward_length", LK_ERR_FORMAT, 0 },
        { "deepseek2", "deepseek2.attention.key_length_mla", NULL, NULL, 0, "key_length_mla", LK_ERR_UNSUPPORTED, 0 },
        { "deepseek2", NULL, "blk.1.attn_k_b.weight", NULL, 0, "blk.1.attn_k_b.weight", LK_ERR_FORMAT, 0 },
        { "deepseek2", NULL, "blk.2.attn_q_a_norm.weight", NULL, 0, "blk.2.attn_q_a_norm.weight", LK_ERR_FORMAT, 0 },
        { "deepseek2", NULL, "blk.0.ffn_gate.weight", NULL, 0, "blk.0.ffn_gate.weight", LK_ERR_FORMAT, 0 },
        { "deepseek2", NULL, "blk.1.ffn_up_shexp.weight", NULL, 0, "blk.1.ffn_up_shexp.weight", LK_ERR_FORMAT, 0 },
        { "deepseek2", NULL, NULL, "blk.0.attn_kv_b.weight", 64, "blk.0.attn_kv_b.weight", LK_ERR_FORMAT, 0 },
        { "deepseek2", NULL, NULL, "blk.0.exp_probs_b.bias", 4, "blk.0.exp_probs_b.bias", LK_ERR_FORMAT, 0 },
        { "deepseek2", NULL, NULL, "blk.1.ffn_up_shexp.scale", 1, "blk.1.ffn_up_shexp.scale", LK_ERR_FORMAT, 0 },
        { "deepseek2", NULL, NULL, "blk.2.attn_q.weight", 256, "blk.2.attn_q.weight", LK_ERR_FORMAT, 0 },
        { "llama4", "llama4.interleave_moe_layer_step", NULL, NULL, 0, "llama4.interleave_moe_layer_step", LK_ERR_FORMAT, 0 },
        { "llama4", "llama4.expert_feed_forward_length", NULL, NULL, 0, "llama4.expert_feed_forward_length", LK_ERR_FORMAT, 0 },
        { "llama4", "llama4.expert_count", NULL, NULL, 0, "llama4.expert_count", LK_ERR_FORMAT, 0 },
        { "llama4", NULL, "blk.1.ffn_gate_shexp.weight", NULL, 0, "blk.1.ffn_gate_shexp.weight", LK_ERR_FORMAT, 0 },
        { "llama4", NULL, "blk.3.ffn_down_shexp.weight", NULL, 0, "blk.3.ffn_down_shexp.weight", LK_ERR_FORMAT, 0 },
        { "llama4", NULL, "blk.1.ffn_gate_inp.weight", NULL, 0, "blk.1.ffn_gate_inp.weight", LK_ERR_FORMAT, 0 },
        { "llama4", NULL, "blk.2.ffn_up.weight", NULL, 0, "blk.2.ffn_up.weight", LK_ERR_FORMAT, 0 },
        { "llama4", NULL, NULL, "blk.1.ffn_up_shexp.scale", 1, "blk.1.ffn_up_shexp.scale", LK_ERR_FORMAT, 0 },
        { "llama4", NULL, NULL, "blk.3.ffn_gate_exps.scale", 4, "blk.3.ffn_gate_exps.scale", LK_ERR_FORMAT, 0 },
        { "llama4", NULL, NULL, "blk.0.ffn_down.scale", 1, "blk.0.ffn_down.scale", LK_ERR_FORMAT, 0 },
        { "llama4", NULL, NULL, "blk.0.attn_output.bias", 256, "blk.0.attn_output.bias", LK_ERR_FORMAT, 0 },
        { "llama4", NULL, NULL, "blk.2.ffn_gate.bias", 256, "blk.2.ffn_gate.bias", LK_ERR_FORMAT, 0 },
        { "llama4", NULL, NULL, "blk.0.ffn_gate_shexp.weight", 256, "blk.0.ffn_gate_shexp.weight", LK_ERR_FORMAT, 0 },
        { "llama4", NULL, NULL, "blk.1.ffn_up.weight", 256, "blk.1.ffn_up.weight", LK_ERR_FORMAT, 0 },
        { "llama4", NULL, NULL, "blk.0.attn_q_norm.weight", 32, "blk.0.attn_q_norm.weight", LK_ERR_FORMAT, 0 },
        { "llama4", "llama4.attention.sliding_window", NULL, NULL, 0, "llama4.attention.sliding_window", LK_ERR_UNSUPPORTED, 1 },   /* set to 0 */
    { "gemma4", "gemma4.attention.sliding_window", NULL, NULL, 0, "gemma4.attention.sliding_window", LK_ERR_FORMAT, 0 },
    { "gemma4", "gemma4.attention.sliding_window_pattern", NULL, NULL, 0, "gemma4.attention.sliding_window_pattern", LK_ERR_FORMAT, 0 },
    { "gemma4", "gemma4.attention.key_length_swa", NULL, NULL, 0, "gemma4.attention.key_length_swa", LK_ERR_FORMAT, 0 },
    { "gemma4", "gemma4.embedding_length_per_layer_input", NULL, NULL, 0, "gemma4.embedding_length_per_layer_input", LK_ERR_FORMAT, 0 },
    { "gemma4", NULL, "rope_freqs.weight", NULL, 0, "rope_freqs.weight", LK_ERR_FORMAT, 0 },
    { "gemma4", NULL, "per_layer_token_embd.weight", NULL, 0, "per_layer_token_embd.weight", LK_ERR_FORMAT, 0 },
    { "gemma4", NULL, "per_layer_model_proj.weight", NULL, 0, "per_layer_model_proj.weight", LK_ERR_FORMAT, 0 },
    { "gemma4", NULL, "per_layer_proj_norm.weight", NULL, 0, "per_layer_proj_norm.weight", LK_ERR_FORMAT, 0 },
    { "gemma4", NULL, "blk.2.inp_gate.weight", NULL, 0, "blk.2.inp_gate.weight", LK_ERR_FORMAT, 0 },
    { "gemma4", NULL, "blk.5.proj.weight", NULL, 0, "blk.5.proj.weight", LK_ERR_FORMAT, 0 },
    { "gemma4", NULL, "blk.0.post_norm.weight", NULL, 0, "blk.0.post_norm.weight", LK_ERR_FORMAT, 0 },
    { "gemma4", NULL, "blk.3.attn_k.weight", NULL, 0, "blk.3.attn_k.weight", LK_ERR_FORMAT, 0 },          /* a layer with its own KV */
    { "gemma4", NULL, "blk.3.attn_k_norm.weight", NULL, 0, "blk.3.attn_k_norm.weight", LK_ERR_FORMAT, 0 },
    { "gemma4", NULL, NULL, "blk.0.attn_q.bias", 256, "blk.0.attn_q.bias", LK_ERR_FORMAT, 0 },            /* its graph has no biases */
    { "gemma4", NULL, NULL, "blk.1.attn_output.bias", 256, "blk.1.attn_output.bias", LK_ERR_FORMAT, 0 },
    { "gemma4", NULL, NULL, "output.bias", 512, "output.bias", LK_ERR_FORMAT, 0 },
    { "gemma4", NULL, NULL, "blk.2.attn_sinks.weight", 4, "blk.2.attn_sinks.weight", LK_ERR_FORMAT, 0 },
    { "gemma4-moe", "gemma4.expert_feed_forward_length", NULL, NULL, 0, "gemma4.expert_feed_forward_length", LK_ERR_FORMAT, 0 },
    { "gemma4-moe", NULL, "blk.2.ffn_gate_inp.scale", NULL, 0, "blk.2.ffn_gate_inp.scale", LK_ERR_FORMAT, 0 },
    { "gemma4-moe", NULL, "blk.1.pre_ffw_norm_2.weight", NULL, 0, "blk.1.pre_ffw_norm_2.weight", LK_ERR_FORMAT, 0 },
    { "gemma4-moe", NULL, "blk.3.post_ffw_norm_2.weight", NULL, 0, "blk.3.post_ffw_norm_2.weight", LK_ERR_FORMAT, 0 },
    { "gemma4-moe", NULL, "blk.1.ffn_down_exps.weight", NULL, 0, "blk.1.ffn_down_exps.weight", LK_ERR_FORMAT, 0 },
    { "gemma4-moe", NULL, "blk.2.ffn_gate.weight", NULL, 0, "blk.2.ffn_gate.weight", LK_ERR_FORMAT, 0 },   /* the dense FFN beside */
    { "gemma4-moe", NULL, NULL, "blk.0.post_ffw_norm_1.weight", 256, "blk.0.post_ffw_norm_1.weight", LK_ERR_FORMAT, 0 },   /* no router in layer 0 */
    { "gemma4-moe", NULL, NULL, "blk.1.ffn_gate_inp.bias", 4, "blk.1.ffn_gate_inp.bias", LK_ERR_FORMAT, 0 },
        /* without rope.dimension_count_swa the window layers would rotate rope.dimension_count's 64 of their 32 dims */
    { "gemma4-sizes", "gemma4.rope.dimension_count_swa", NULL, NULL, 0, "rope.dimension_count_swa 64 is odd or more than key_length_swa 32", LK_ERR_FORMAT, 0 },
    { "gemma4-sizes", "gemma4.attention.value_length_swa", NULL, NULL, 0, "gemma4.attention.value_length_swa", LK_ERR_FORMAT, 0 },
    { "lfm2", "lfm2.shortconv.l_cache", NULL, NULL, 0, "lfm2.shortconv.l_cache", LK_ERR_FORMAT, 0 },
    { "lfm2", "lfm2.attention.layer_norm_rms_epsilon", NULL, NULL, 0, "lfm2.attention.layer_norm_rms_epsilon", LK_ERR_FORMAT, 0 },
    { "lfm2", NULL, "blk.1.shortconv.in_proj.weight", "blk.1.shortconv.in_proj.weight", 768, "blk.1.shortconv.in_proj.weight' has shape", LK_ERR_FORMAT, 0 },
    { "lfm2", NULL, "blk.3.shortconv.out_proj.weight", NULL, 0, "blk.3.shortconv.out_proj.weight", LK_ERR_FORMAT, 0 },
    { "lfm2", NULL, "blk.5.shortconv.conv.weight", NULL, 0, "blk.5.shortconv.conv.weight", LK_ERR_FORMAT, 0 },
    { "lfm2", NULL, "token_embd_norm.weight", NULL, 0, "token_embd_norm.weight", LK_ERR_FORMAT, 0 },
    { "lfm2", NULL, "blk.2.attn_k_norm.weight", NULL, 0, "blk.2.attn_k_norm.weight", LK_ERR_FORMAT, 0 },
    /* Mamba 2: every ssm key required (as llama.cpp's loaders), each layer's ssm tensors; granitehybrid's conv bias optional */
    { "mamba2", "mamba2.ssm.state_size", NULL, NULL, 0, "mamba2.ssm.state_size", LK_ERR_FORMAT, 0 },
    { "mamba2", "mamba2.ssm.group_count", NULL, NULL, 0, "mamba2.ssm.group_count", LK_ERR_FORMAT, 0 },
    { "mamba2", "mamba2.ssm.conv_kernel", NULL, NULL, 0, "mamba2.ssm.conv_kernel", LK_ERR_FORMAT, 0 },
    { "mamba2", "mamba2.ssm.inner_size", NULL, NULL, 0, "mamba2.ssm.inner_size", LK_ERR_FORMAT, 0 },
    { "mamba2", "mamba2.ssm.time_step_rank", NULL, NULL, 0, "mamba2.ssm.time_step_rank", LK_ERR_FORMAT, 0 },
    { "mamba2", "mamba2.ssm.time_step_rank", NULL, NULL, 0, "mamba2.ssm.time_step_rank", LK_ERR_FORMAT, 1 },
    { "mamba2", NULL, "blk.1.ssm_a", NULL, 0, "blk.1.ssm_a", LK_ERR_FORMAT, 0 },
    { "mamba2", NULL, "blk.3.ssm_d", NULL, 0, "blk.3.ssm_d", LK_ERR_FORMAT, 0 },
    { "mamba2", NULL, "blk.0.ssm_conv1d.bias", NULL, 0, "blk.0.ssm_conv1d.bias", LK_ERR_FORMAT, 0 },
    { "mamba2", NULL, "blk.2.ssm_conv1d.weight", NULL, 0, "blk.2.ssm_conv1d.weight", LK_ERR_FORMAT, 0 },
    { "mamba2", NULL, "blk.2.ssm_dt.bias", NULL, 0, "blk.2.ssm_dt.bias", LK_ERR_FORMAT, 0 },
    { "mamba2", NULL, "blk.1.ssm_norm.weight", NULL, 0, "blk.1.ssm_norm.weight", LK_ERR_FORMAT, 0 },
    { "mamba2", NULL, "blk.0.ssm_in.weight", NULL, 0, "blk.0.ssm_in.weight", LK_ERR_FORMAT, 0 },
    { "mamba2", NULL, "blk.3.ssm_out.weight", NULL, 0, "blk.3.ssm_out.weight", LK_ERR_FORMAT, 0 },
    { "mamba2", NULL, NULL, "blk.0.ffn_norm.weight", 256, "blk.0.ffn_norm.weight", LK_ERR_FORMAT, 0 },
    { "granitehybrid", NULL, "blk.2.ssm_a", NULL, 0, "blk.2.ssm_a", LK_ERR_FORMAT, 0 },
    { "granitehybrid", NULL, "blk.1.attn_k.weight", NULL, 0, "blk.1.attn_k.weight", LK_ERR_FORMAT, 0 },
    { "granitehybrid", NULL, "blk.3.ffn_down.weight", NULL, 0, "blk.3.ffn_down.weight", LK_ERR_FORMAT, 0 },
    { "granitehybrid", NULL, NULL, "blk.1.ssm_d", 16, "blk.1.ssm_d", LK_ERR_FORMAT, 0 },
    { "granitehybrid", "granitehybrid.ssm.state_size", NULL, NULL, 0, "granitehybrid.ssm.state_size", LK_ERR_FORMAT, 0 },
    };
    char name[128];
    size_t k;
    int rows = 0;
    for (k = 0; k < sizeof v / sizeof v[0]; k++) rows += !strcmp(v[k].label, a->label);
    if (!rows) return;
    snprintf(name, sizeof name, "refusals %s-F32 (generated): required keys and tensors, unused tensors named", a->label);
    lk_t_begin(name);
    for (k = 0; k < sizeof v / sizeof v[0]; k++) {
        size_t vl = 0;
        unsigned char *b;
        lk_model *m = NULL;
        lk_status st;
        if (strcmp(v[k].label, a->label)) continue;
        b = gen_variant(f32, len, v[k].key, v[k].drop, v[k].add, v[k].n, v[k].set0, &vl);
        st = b ? lk_model_load_memory(b, vl, NULL, &m) : LK_ERR_NOMEM;
        if (v[k].says)
            CHECK(b && st == v[k].want && strstr(lk_last_error(), v[k].says), "%s%s%s: status %d, '%s'", v[k].key ? v[k].key : "",
                  v[k].drop ? v[k].drop : "", v[k].add ? v[k].add : "", (int)st, lk_last_error());
        else
            CHECK(b && st == LK_OK && lk_model_hparams(m)->n_layer == a->L - 1, "without %s: status %d, '%s'", v[k].drop, (int)st,
                  st ? lk_last_error() : "");
        lk_model_free(m);
        free(b);
    }
    if (!strcmp(a->label, "glm4moe") || !strcmp(a->label, "glm4-nextn")) {   /* the nextn block is not run and has no KV: n_layer 3, and a context's memory as a 3-block file's */
        lk_model *m = NULL;
        CHECK(!lk_model_load_memory(f32, len, NULL, &m) && lk_model_hparams(m)->n_layer == a->L - 1 &&
              lk_model_hparams(m)->n_layer_nextn == 1 && lk_model_hparams(m)->n_layer_dense_lead == !strcmp(a->label, "glm4moe") &&
              lk_model_hparams(m)->n_ff_shexp == (!strcmp(a->label, "glm4moe") ? 128 : 0),
              "hparams: %d blocks run, %d nextn", m ? lk_model_hparams(m)->n_layer : -1, m ? lk_model_hparams(m)->n_layer_nextn : -1);
        lk_model_free(m);
    }
    if (a->opt == 6) {   /* the latent cache: KV settings it cannot hold are refused by name */
        static const char *const opts[][2] = { { "kv-type", "q8_0" }, { "kv-type", "q4_0" }, { "kv-type", "zip4" }, { "kv-rotate", "1" },
                                               { "kv-policy", "h2o" } };
        static const char *const says[] = { "q8_0", "q4_0", "kv_zip_bits", "kv_rotate", "h2o" };
        lk_model *m = NULL;
        CHECK(!lk_model_load_memory(f32, len, NULL, &m), "load: %s", lk_last_error());
        for (k = 0; m && k < sizeof opts / sizeof opts[0]; k++) {
            lk_context *c = NULL;
            lk_context_params cp = lk_context_default_params();
            lk_status st;
            cp.n_ctx = 64;
            CHECK(lk_context_params_set(&cp, opts[k][0], opts[k][1]) == LK_OK, "option %s %s", opts[k][0], opts[k][1]);
            st = lk_context_new(m, &cp, &c);
            CHECK(st == LK_ERR_UNSUPPORTED && strstr(lk_last_error(), says[k]) && strstr(lk_last_error(), "latent"),
                  "%s %s with the latent cache: status %d, '%s'", opts[k][0], opts[k][1], (int)st, lk_last_error());
            lk_context_free(c);
        }
        lk_model_free(m);
    }
    if (a->opt == 3) {   /* the sinks are softmax terms: another attention score is refused by name */
        lk_model *m = NULL;
        lk_context *c = NULL;
        lk_context_params cp = lk_context_default_params();
        cp.n_ctx = 64; cp.attn_score = LK_ATTN_LSSA;
        CHECK(!lk_model_load_memory(f32, len, NULL, &m) && lk_context_new(m, &cp, &c) == LK_ERR_UNSUPPORTED && strstr(lk_last_error(), "attention sinks"),
              "attn_score LSSA with sinks: '%s'", lk_last_error());
        lk_context_free(c);
        lk_model_free(m);
    }
    lk_t_end();
}
/* The latent cache holds per token and layer one row of kv_lora_rank +
 * rope.n_rot values and nothing else (llama.cpp's MLA cache): the context's
 * K and V storage (from the cache's first row to its positions, which
 * follow them) is exactly L n_ctx (R + r) f16 values (a cache that also
 * stored values, or full heads, would hold more), its rows are R + r values
 * and the values are read from them; a saved state grows by the same rows
 * (and each token's position and segment), and loads back exactly. */
static void check_gen_kv(const gen_arch *a, const unsigned char *f32, size_t len) {
    lk_model *m = NULL;
    lk_context *c = NULL;
    lk_context_params cp = lk_context_default_params();
    char name[128];
    size_t want = 0, got = 0;
    int R = 0, r = 0;
    snprintf(name, sizeof name, "latent KV cache %s-F32 (generated): memory = layers x n_ctx x (kv_lora_rank + n_rot)", a->label);
    lk_t_begin(name);
    cp.n_ctx = 64;
    CHECK(!lk_model_load_memory(f32, len, NULL, &m), "load: %s", lk_last_error());
    if (m) {
        const lk_hparams *hp = lk_model_hparams(m);
        R = hp->n_lora_kv; r = hp->rope.n_rot;
        want = (size_t)a->L * 64 * (size_t)(R + r) * 2;   /* a multiple of 64: no padding */
        CHECK(R == 64 && r == 32, "kv_lora_rank %d, n_rot %d", R, r);
        if (!lk_context_new(m, &cp, &c)) {
            const lk_kv_cache *kv = lk_context_kv(c);
            got = (size_t)((const unsigned char *)kv->pos - kv->k);
            CHECK(got == want, "K and V storage %zu bytes, want %zu (= %d layers x 64 x %d x 2)", got, want, a->L, R + r);
            CHECK(kv->row_k == (size_t)(R + r) * 2 && kv->n_embd_v == 0 && kv->v == kv->k, "cache rows %zu bytes, n_embd_v %d, v %s k",
                  kv->row_k, kv->n_embd_v, kv->v == kv->k ? "==" : "!=");
            {   /* the saved state holds the same: 8 more tokens add 8 x (position, segment, L rows of R + r f16) bytes,
                 * and a state loaded into a fresh context decodes as the original */
                lk_context *c2 = NULL;
                size_t s8 = 0, s16 = 0, need = (size_t)8 * (8 + (size_t)a->L * (size_t)(R + r) * 2);
                void *st = NULL;
                float *l1 = NULL;
                lk_token nx = seq[16];
                int ok = !lk_decode(c, seq, 8) && !lk_context_state_save(c, NULL, 0, &s8) && !lk_decode(c, seq + 8, 8) &&
                         !lk_context_state_save(c, NULL, 0, &s16) && (st = malloc(s16)) != NULL && !lk_context_state_save(c, st, s16, &s16) &&
                         !lk_context_new(m, &cp, &c2) && !lk_context_state_load(c2, st, s16) && !lk_decode(c, &nx, 1) && !lk_decode(c2, &nx, 1);
                CHECK(ok, "decode or state save / load: %s", lk_last_error());
                CHECK(s16 - s8 == need, "8 tokens add %zu bytes to the saved state, want %zu", s16 - s8, need);
                if (ok) {
                    l1 = (float *)malloc(sizeof(float) * 512);
                    memcpy(l1, lk_logits(c, -1), sizeof(float) * 512);
                    CHECK(memcmp(l1, lk_logits(c2, -1), sizeof(float) * 512) == 0, "a loaded state decodes otherwise");
                }
                printf("  %-28s saved state: %zu bytes per 8 tokens\n", a->label, s16 - s8);
                free(l1); free(st);
                lk_context_free(c2);
            }
        } else CHECK(0, "context: %s", lk_last_error());
        printf("  %-28s KV %zu bytes for 64 tokens in %d layers (f16): %d values per token and layer\n", a->label, got, a->L, R + r);
    }
    lk_context_free(c);
    lk_model_free(m);
    lk_t_end();
}
/* gemma4's shared KV: the cache holds the 4 layers that own one (layers 4
 * and 5 read those of 2 and 3), lk_context_memory_size counts no more, and
 * the KV policies other than the full cache are refused by name */
static void check_gen_shared_kv(const gen_arch *a, const unsigned char *f32, size_t len) {
    if (!strcmp(a->label, "gemma4")) {
        lk_model *m = NULL;
        lk_context *c = NULL;
        lk_context_params cp = lk_context_default_params();
        size_t bytes = 0;
        lk_t_begin("shared KV gemma4-F32 (generated): 4 cache layers for 6, memory size, other KV policies refused");
        cp.n_ctx = 64; cp.kv_type = LK_TYPE_F32;
        CHECK(!lk_model_load_memory(f32, len, NULL, &m), "load: %s", lk_last_error());
        if (m) {
            bytes = lk_context_memory_size(m, &cp);
            CHECK(!lk_context_new(m, &cp, &c), "context: %s", lk_last_error());
            /* the cache: 4 layers of 64 rows (lk_context_memory_size and
             * lk_context_new share one sizing, lk__ctx_sizes_get) */
            CHECK(c && lk_context_kv(c)->n_layer == 4 && lk_model_hparams(m)->n_layer_kv == 4, "the cache has %d layers, want 4",
                  c ? lk_context_kv(c)->n_layer : -1);
            CHECK(c && bytes > 0 && lk_context_kv(c)->n_ctx == 64, "lk_context_memory_size %zu", bytes);
            lk_context_free(c); c = NULL;
            cp.kv_policy.policy = LK_KV_H2O;
            CHECK(lk_context_new(m, &cp, &c) == LK_ERR_UNSUPPORTED && strstr(lk_last_error(), "shared KV layers"), "H2O: '%s'", lk_last_error());
            lk_context_free(c);
        }
        lk_model_free(m);
        lk_t_end();
    }
}
/* The expert files checked repacked, by file type: the experts' weight
 * type, and whether the layout's kernel keeps the rows' summation order
 * (mxfp4's keeps the x86 vec_dot's: the logits must then equal the rows'
 * bit for bit; q4_K's has its own order). */
static const struct { lk_ftype ft; lk_type et; int same_bits; } gen_r8_files[] = {
    { LK_FTYPE_Q4_K_M, LK_TYPE_Q4_K, 0 },
    { LK_FTYPE_MXFP4_MOE, LK_TYPE_MXFP4, 1 },
};
/* An expert file repacked (repack 1; the in-memory loads above keep rows):
 * its experts [E, Fe, X] become interleaved rows (LK_LAYOUT_R8), which
 * lk__moe reads one expert's 2-D view of. The repacked bytes must cover
 * every expert tensor of the file in the row's type, and the logits at the
 * reference's positions meet the same rule against llama.cpp's (whose own
 * experts run its repacked kernels) as the rows did; where the layout keeps
 * the rows' order, every logit of every position equals the rows' run
 * (rows: its logits, all nseq positions), loaded exact (lk_model_params:
 * no layout of another order for the file's other types). */
static void check_gen_r8(const char *label, int fi, const unsigned char *q, size_t q_len, const float *ref, const float *ref32, int T, const int *pos,
                         const float *rows) {
    char name[128];
    lk_model_params mp = lk_model_default_params();
    lk_model *m;
    lk_gguf *g;
    float *ours, *sel;
    size_t rb = 0, eb = 0;
    uint64_t i;
    int V = 512, p;
    snprintf(name, sizeof name, "logits %s (generated) repacked experts", label);
    lk_t_begin(name);
    mp.repack = 1;
    mp.exact = gen_r8_files[fi].same_bits;   /* the other types' layouts then keep the order too (no Q8_0 interleaving) */
    if (lk_model_load_memory(q, q_len, &mp, &m) == LK_OK) { rb = lk_model_repacked_bytes(m); lk_model_free(m); }
    if (lk_gguf_read_memory(q, q_len, NULL, &g) == LK_OK) {
        for (i = 0; i < g->n_tensors; i++)
            if (g->tensors[i].type == gen_r8_files[fi].et && strstr(g->tensors[i].name.ptr, "_exps.weight") == g->tensors[i].name.ptr + g->tensors[i].name.len - 12)
                eb += (size_t)g->tensors[i].nbytes;
        lk_gguf_free(g);
    }
    CHECK(eb > 0 && rb >= eb, "%s: %zu bytes repacked, the %s experts alone hold %zu", label, rb, lk_type_name(gen_r8_files[fi].et), eb);
    run_repack = 1; run_exact = gen_r8_files[fi].same_bits;
    ours = run_model_mem(NULL, q, q_len, seq, nseq, LK_TYPE_F32, 2, 512, &V);
    run_repack = 0; run_exact = 0;
    CHECK(ours && V == 512, "could not run the repacked %s", label);
    if (ours && V == 512) {
        sel = (float *)malloc(sizeof(float) * (size_t)T * V);
        for (p = 0; p < T; p++) memcpy(sel + (size_t)p * V, ours + (size_t)pos[p] * V, sizeof(float) * V);
        printf("  %-28s %zu of %zu bytes repacked (%s experts %zu)\n", name + 7, rb, q_len, gen_r8_files[fi].et == LK_TYPE_Q4_K ? "Q4_K" : "MXFP4", eb);
        if (gen_r8_files[fi].same_bits) {
            int bad = 0;
            for (p = 0; p < nseq; p++) bad += memcmp(ours + (size_t)p * V, rows + (size_t)p * V, sizeof(float) * V) != 0;
            printf("  %-28s %d of %d positions bit-identical to the rows' run (required)\n", name + 7, nseq - bad, nseq);
            CHECK(bad == 0, "%s: %d of %d positions differ from the rows' run in some bit", label, bad, nseq);
        }
        lk_t_q_rule(name + 7, NAME_W, sel, ref, ref32, T, V, 0.6, 1.0);
        free(sel);
    }
    free(ours);
    lk_t_end();
}
/* A model with recurrent layers (lfm2's short conv), against itself:
 *   chunks    prefill in chunks of 1, 7 and 64 (and 2 threads) = the same
 *             logits bit for bit: the state runs token by token, so the conv
 *             sums in one order whatever the chunking (the 64-token run is the
 *             one check_generated holds to llama.cpp's);
 *   rollback  60 tokens (seq A's, reordered), 8 wrong ones after the first 52
 *             (a rejected draft), lk_context_truncate back to 52, the right
 *             8: the last logits = a fresh context's over the 60, bit for
 *             bit; again with 16 (the default n_rs_seq) taken back;
 *   refusals  truncating further back than n_rs_seq (from 60 to 20) is
 *             refused naming rs-checkpoints and leaves the context as it was;
 *             to 0 then starts over (= fresh); n_rs_seq 0 takes back nothing
 *             but 0; segments (lk_decode_ext) refused. */
static float *rec_last(const unsigned char *f32, size_t len, lk_context_params cp, const lk_token *t, int n, int V) {
    lk_model *m = NULL;
    lk_context *c = NULL;
    float *out = NULL;
    if (!lk_model_load_memory(f32, len, NULL, &m) && !lk_context_new(m, &cp, &c) && !lk_decode(c, t, n) && lk_logits(c, -1)) {
        out = (float *)malloc(sizeof(float) * (size_t)V);
        memcpy(out, lk_logits(c, -1), sizeof(float) * (size_t)V);
    }
    lk_context_free(c); lk_model_free(m);
    return out;
}
static void check_gen_rec(const gen_arch *a, const unsigned char *f32, size_t len) {
    static const int chunks[] = { 1, 7, 64 };
    char name[160];
    lk_model *m = NULL;
    lk_context *c = NULL;
    lk_context_params cp = lk_context_default_params();
    float *ref = NULL, *fresh = NULL;
    lk_token wrong[16], toks[60];
    int V = 512, V2 = 0, k, th, i, n = 60;
    if (lk_model_load_memory(f32, len, NULL, &m) || lk_model_hparams(m)->n_layer_rec == 0) { lk_model_free(m); return; }
    for (i = 0; i < n; i++) toks[i] = seq[(i * 3 + i / nseq) % nseq];   /* seq A's tokens, 60 of them in another order */
    snprintf(name, sizeof name, "recurrent %s-F32: prefill in chunks of 1, 7, 64 (1, 2 threads) bit-identical", a->label);
    lk_t_begin(name);
    ref = run_model_mem(NULL, f32, len, toks, n, LK_TYPE_F32, 1, 1, &V);
    CHECK(ref != NULL, "one token at a time: %s", lk_last_error());
    for (k = 0; ref && k < 3; k++)
        for (th = 1; th <= 2; th++) {
            float *got = run_model_mem(NULL, f32, len, toks, n, LK_TYPE_F32, th, chunks[k], &V2);
            CHECK(got && V2 == V && !memcmp(got, ref, sizeof(float) * (size_t)n * V), "chunks of %d, %d threads: logits differ from token by token",
                  chunks[k], th);
            free(got);
        }
    printf("  %-28s %d positions, chunks of 1, 7, 64 x 1, 2 threads: %s\n", a->label, n, lk_t_failed_ ? "differ" : "bit-identical");
    lk_t_end();
    snprintf(name, sizeof name, "recurrent %s-F32: rollback (truncate after a rejected draft) = a fresh run, bit for bit", a->label);
    lk_t_begin(name);
    for (i = 0; i < 16; i++) wrong[i] = seq[(i * 7 + 5) % nseq];
    cp.n_ctx = 64; cp.n_threads = 2; cp.kv_type = LK_TYPE_F32;
    fresh = rec_last(f32, len, cp, toks, n, V);
    CHECK(fresh != NULL, "the fresh run: %s", lk_last_error());
    for (k = 0; fresh && k < 2; k++) {   /* take back 8, then 16 (= n_rs_seq) */
        const int back = k ? 16 : 8;
        CHECK_OK(lk_context_new(m, &cp, &c));
        if (!c) break;
        CHECK_OK(lk_decode(c, toks, n - back));
        for (i = 0; i < back; i++) CHECK_OK(lk_decode(c, &wrong[i], 1));   /* a draft, token by token */
        CHECK_OK(lk_context_truncate(c, n - back));
        CHECK_OK(lk_decode(c, toks + n - back, back));
        CHECK(lk_logits(c, -1) && !memcmp(lk_logits(c, -1), fresh, sizeof(float) * V), "%d tokens taken back: logits differ from the fresh run", back);
        printf("  %-28s %d of %d tokens taken back and redone: %s\n", a->label, back, n, lk_t_failed_ ? "differ" : "bit-identical to a fresh run");
        if (k) {   /* further back than n_rs_seq: refused, the context unchanged; to 0: start over */
            lk_status st = lk_context_truncate(c, 20);
            CHECK(st == LK_ERR_UNSUPPORTED && strstr(lk_last_error(), "rs-checkpoints") && lk_context_n_past(c) == n, "truncate %d -> 20: status %d, '%s'",
                  n, (int)st, lk_last_error());
            CHECK_OK(lk_context_truncate(c, 0));
            CHECK_OK(lk_decode(c, toks, n));
            CHECK(lk_logits(c, -1) && !memcmp(lk_logits(c, -1), fresh, sizeof(float) * V), "after truncating to 0: logits differ from the fresh run");
            {   /* segments: refused naming the recurrent layers */
                int pos[2] = { 0, 1 }, sg[2] = { 0, 1 };
                CHECK_OK(lk_context_truncate(c, 0));
                st = lk_decode_ext(c, seq, pos, sg, 2);
                CHECK(st == LK_ERR_UNSUPPORTED && strstr(lk_last_error(), "recurrent layers"), "segments: status %d, '%s'", (int)st, lk_last_error());
            }
        }
        lk_context_free(c); c = NULL;
    }
    {   /* n_rs_seq 0: nothing to take back but everything */
        lk_context_params c0 = cp;
        c0.n_rs_seq = 0;
        CHECK_OK(lk_context_new(m, &c0, &c));
        if (c) {
            lk_status st;
            CHECK_OK(lk_decode(c, seq, 10));
            st = lk_context_truncate(c, 9);
            CHECK(st == LK_ERR_UNSUPPORTED && strstr(lk_last_error(), "rs-checkpoints"), "n_rs_seq 0, truncate 10 -> 9: status %d", (int)st);
            CHECK_OK(lk_context_truncate(c, 10));
            CHECK_OK(lk_context_truncate(c, 0));
        }
        lk_context_free(c);
    }
    lk_t_end();
    snprintf(name, sizeof name, "recurrent %s-F32: the Hadamard rotation before quantization (lk_rotate_gguf) leaves its function unchanged", a->label);
    lk_t_begin(name);
    {   /* a math identity: rms(H x) = rms(x), H^T H = 1 (MambaQuant's rotation fused into the weights) */
        lk_gguf *g = NULL;
        lk_gguf_writer *w = NULL;
        lk_rotate_params rp = lk_rotate_default_params();
        unsigned char *rb = NULL;
        size_t rl = 0;
        float *rot = NULL;
        CHECK_OK(lk_gguf_read_memory(f32, len, NULL, &g));
        if (g && strstr(a->label, "nextn")) {   /* multi-token-prediction blocks: not carried, refused by name */
            lk_status st = lk_rotate_gguf(g, &rp, &w);
            CHECK(st == LK_ERR_UNSUPPORTED && w == NULL && strstr(lk_last_error(), "nextn"), "nextn blocks: status %d, '%s'", (int)st, lk_last_error());
            printf("  %-28s rotation refused: %s\n", a->label, lk_last_error());
            lk_gguf_free(g);
            g = NULL;
        }
        if (g) CHECK_OK(lk_rotate_gguf(g, &rp, &w));
        if (w && (rb = (unsigned char *)malloc(rl = (size_t)lk_gguf_writer_size(w))) && lk_gguf_writer_write_memory(w, rb, rl) == LK_OK)
            rot = run_model_mem(NULL, rb, rl, toks, n, LK_TYPE_F32, 1, 1, &V2);
        CHECK(!g || (rot != NULL && V2 == V), "the rotated model does not run: %s", lk_last_error());
        if (rot && ref) {
            double md = 0, mx = 0;
            for (i = 0; i < n * V; i++) {
                if (fabs((double)rot[i] - ref[i]) > md) md = fabs((double)rot[i] - ref[i]);
                if (fabs((double)ref[i]) > mx) mx = fabs((double)ref[i]);
            }
            CHECK(mx > 0 && md <= 1e-5 * mx, "rotated: logits differ by %.3g (max |logit| %.3g)", md, mx);
            printf("  %-28s rotated (seed 1): max |logit diff| %.3g of %.3g\n", a->label, md, mx);
        }
        free(rot); free(rb);
        lk_gguf_writer_free(w); lk_gguf_free(g);
    }
    lk_t_end();
    free(ref); free(fresh);
    lk_model_free(m);
}
static void check_generated(const gen_arch *a) {
    static const char *types[] = { "F32", "Q8_0", "Q4_K_M", "MXFP4_MOE" };
    static const lk_ftype fts[] = { LK_FTYPE_F32, LK_FTYPE_Q8_0, LK_FTYPE_Q4_K_M, LK_FTYPE_MXFP4_MOE };
    char name[128], rel[128], label[64];
    unsigned char *f32 = NULL;
    size_t f32_len = 0;
    float *ref32 = NULL;
    int k, V = 512, T = 0, p, pos[MAXT], fi;
    for (p = 3; p < nseq; p += 4) pos[T++] = p;   /* the positions the reference keeps */
    snprintf(name, sizeof name, "generated %s-F32 model", a->label);
    if (!lk_t_fixture("stories260K/stories260K-F32.gguf")) { lk_t_skip(name, "stories260K-F32.gguf (its vocabulary) absent"); return; }
    lk_t_begin(name);
    f32 = gen_model(a, &f32_len);
    CHECK(f32 != NULL, "could not build the model: %s", lk_last_error());
    lk_t_end();
    run_pos0 = gen_pos0(a->label);
    for (k = 0; f32 && k < 4; k++) {
        if (!(gen_opt_types[a->opt] >> k & 1)) continue;
        unsigned char *q = NULL;
        size_t q_len = 0;
        float *ours, *ref, *sel;
        int same = 0, total = 0, bad = 0;
        if (!(gen_opt_types[a->opt] >> k & 1)) continue;
        snprintf(name, sizeof name, "logits %s-%s (generated) kvf32", a->label, types[k]);
        snprintf(rel, sizeof rel, "tests/data/arch/%s-%s.seqA.bin", a->label, types[k]);
        snprintf(label, sizeof label, "%s-%s", a->label, types[k]);
        lk_t_begin(name);
        if (k) {
            q = gen_quantize(f32, f32_len, fts[k], label, &q_len, &same, &total);
            CHECK(q != NULL, "lk_quantize_gguf: %s", lk_last_error());
            printf("  %-28s %d of %d tensors byte-identical to llama-quantize's\n", name + 7, same, total);
            CHECK(same == total, "%s: %d of %d tensors differ from llama-quantize's (the hashes)", label, total - same, total);
        }
        ours = k == 0 || q ? run_model_mem(NULL, k ? q : f32, k ? q_len : f32_len, seq, nseq, LK_TYPE_F32, 2, 512, &V) : NULL;
        ref = lk_t_read_floats(rel, (size_t)T * 512);
        CHECK(ours && ref && V == 512, "could not run, or read %s", rel);
        if (ours && ref) {
            sel = (float *)malloc(sizeof(float) * (size_t)T * V);
            for (p = 0; p < T; p++) {
                memcpy(sel + (size_t)p * V, ours + (size_t)pos[p] * V, sizeof(float) * V);
                bad += memcmp(sel + (size_t)p * V, ref + (size_t)p * V, sizeof(float) * V) != 0;
            }
            printf("  %-28s %d of %d positions bit-identical to llama.cpp%s\n", name + 7, T - bad, T,
                   gen_opt_exact[a->opt] >> k & 1 ? " (required on AVX2)" : "");
#if defined(LK__X86) && !defined(LK__X86_512)
            /* glm4moe-Q8_0: ggml's order kept throughout (sigmoid router, selection bias, the
             * weights' sum, scale, shared expert's sum), so bit for bit; deepseek2's: every
             * product in ggml's order (its per-head attn_k_b / attn_v_b products quantize
             * their inputs to q8_0 as ggml does); llama4's, gemma4's likewise */
            if (gen_opt_exact[a->opt] >> k & 1) CHECK(bad == 0, "%s: %d of %d positions differ from llama.cpp's in some bit", label, bad, T);
#endif
            /* gemma4: its attention is unscaled (scale 1 over RMS-normed q and
             * k, scores ~8x gemma3's) and V is RMS-normed, so the f32 sums the
             * AVX2 reference orders otherwise than the AVX-512 order we follow
             * (section 14.7s) move its F32 logits ~3x more (median 2.9e-4 M;
             * the MoE file 4e-4 M, its experts' products taking ggml's vec_dot
             * order there); its dense Q8_0 file, whose products are exact
             * integers, is bit-identical to llama.cpp's at every position */
            if (k == 0) {
                lk_t_f32_rule(name + 7, NAME_W, sel, ref, T, V, !strcmp(a->arch, "gemma4") ? 5e-4 : LK_T_F32_MEDIAN);
                ref32 = ref; ref = NULL;
            }
            else if (ref32 && !a->X) lk_t_q_rule(name + 7, NAME_W, sel, ref, ref32, T, V, LK_T_Q_MEDIAN, LK_T_Q_MAX);
            /* Experts: the reference machine (AVX2) rounds attention sums in
             * other lanes than the AVX-512 order we follow; a last-bit
             * difference that flips one 8-bit activation rounding moves a
             * router's weights (qwen3moe-Q8_0: the attention of token 4 of
             * layer 0 differs by 1 ulp in 3 of 8 heads; the router then
             * gives 0.5344 / 0.4656 for llama.cpp's 0.5326 / 0.4674). Our
             * deviation must stay under llama.cpp's own quantization error. */
            else if (ref32) lk_t_q_rule(name + 7, NAME_W, sel, ref, ref32, T, V, 0.6, 1.0);
            free(sel);
        }
        lk_t_end();
        /* (where this build has the type's interleaved kernel: else nothing repacks) */
        for (fi = 0; fi < (int)(sizeof gen_r8_files / sizeof gen_r8_files[0]); fi++)
            if (q && ref && ref32 && ours && a->X && fts[k] == gen_r8_files[fi].ft && lk__kernels_of(gen_r8_files[fi].et)->r8_simd)
                check_gen_r8(label, fi, q, q_len, ref, ref32, T, pos, ours);
        free(ours); free(ref); free(q);
    }
    if (f32 && a->opt) check_greedy(a, f32, f32_len);
    if (f32) check_gen_rec(a, f32, f32_len);
    if (f32) check_refusals(a, f32, f32_len);
    if (f32 && (a->opt == 3 || a->opt == 4 || a->opt == 6)) check_gen_paths(a, f32, f32_len);
    if (f32 && a->opt) check_gen_refusals(a, f32, f32_len);
    if (f32 && a->opt == 6) check_gen_kv(a, f32, f32_len);
    run_pos0 = 0;
    if (f32) check_gen_shared_kv(a, f32, f32_len);
    free(ref32); free(f32);
}

/* Prefill runs the attention for blocks of 4 queries at once (f16 cache,
 * head_dim % 16 == 0): its logits must equal one-token-at-a-time decoding,
 * which takes lk_attn's one-query path, bit for bit; with chunks that leave
 * partial blocks and start past row 0, with 1 and 2 threads, on llama (GQA)
 * and gemma2 (sliding window, soft-cap). */
static void check_query_blocks(void) {
    static const char *files[] = { "models/llama/llama-F32.gguf", "models/gemma2/gemma2-F32.gguf" };
    static const int batches[] = { 37, 7, 5, 4, 2 };
    size_t f, k;
    lk_t_begin("attention query blocks = one query at a time, bit for bit (f16 cache)");
    for (f = 0; f < 2; f++) {
        const char *path = lk_t_fixture(files[f]);
        const int n = nseq < 37 ? nseq : 37;
        int nv = 0, nv2 = 0, th;
        float *ref = path ? run_model(path, seq, n, LK_TYPE_F16, 1, 1, &nv) : NULL;
        CHECK(ref != NULL, "%s: one-token run failed", files[f]);
        if (!ref) continue;
        for (k = 0; k < sizeof batches / sizeof batches[0]; k++)
            for (th = 1; th <= 2; th++) {
                float *got = run_model(path, seq, n, LK_TYPE_F16, th, batches[k], &nv2);
                CHECK(got && nv2 == nv && memcmp(got, ref, sizeof(float) * (size_t)n * nv) == 0,
                      "%s: batch %d, %d threads: logits differ from one-token decoding", files[f], batches[k], th);
                free(got);
            }
        free(ref);
    }
    lk_t_end();
}

/* A prefill chunk's element-wise passes (norms, GELU or SwiGLU, residual
 * with post-norm) are split over the threads once a chunk holds >= 65536
 * values (lk__ew_run): 1100 tokens of 64 (gemma2: GeGLU, post-norms; llama:
 * SwiGLU) with 2 threads must give the 1-thread logits bit for bit. */
static void check_ew_threads(void) {
    static const char *files[] = { "models/gemma2/gemma2-F32.gguf", "models/llama/llama-F32.gguf" };
    enum { N = 1100 };
    static lk_token toks[N];
    size_t f;
    int i;
    lk_t_begin("prefill element-wise passes over 2 threads = 1 thread, bit for bit (1100-token chunk)");
    for (i = 0; i < N; i++) toks[i] = seq[i % nseq];
    for (f = 0; f < 2; f++) {
        const char *path = lk_t_fixture(files[f]);
        int nv = 0, nv2 = 0;
        float *a = path ? run_model(path, toks, N, LK_TYPE_F32, 1, N, &nv) : NULL;
        float *b = a ? run_model(path, toks, N, LK_TYPE_F32, 2, N, &nv2) : NULL;
        CHECK(a && b && nv == nv2 && memcmp(a, b, sizeof(float) * (size_t)N * (size_t)nv) == 0,
              "%s: 2-thread logits differ from 1-thread ones (or a run failed)", files[f]);
        free(a); free(b);
    }
    lk_t_end();
}

/* lk_model_params.repack: the option's parsing; -1 keeps rows, the default
 * repacks a mapped file (where the build has the kernel) but not an
 * in-memory load, 1 repacks that too (the same bytes). The logits of the
 * repacked file are checked against llama.cpp's by check_arch (bit for bit
 * for llama-Q4_0). */
static void check_repack_modes(void) {
    const char *path = lk_t_fixture("models/llama/llama-Q4_0.gguf");
    lk_model_params mp = lk_model_default_params();
    lk_model *m = NULL;
    size_t len = 0, rb_file = 0, rb_none = 1, rb_mem = 0, rb_mem1 = 0;
    unsigned char *buf;
    lk_t_begin("model option repack: parsing and modes");
    CHECK(lk_model_params_set(&mp, "repack", "-1") == LK_OK && mp.repack == -1, "repack -1");
    CHECK(lk_model_params_set(&mp, "--repack", "1") == LK_OK && mp.repack == 1, "--repack 1");
    CHECK(lk_model_params_set(&mp, "repack", "2") != LK_OK && mp.repack == 1, "repack 2 accepted");
    CHECK(lk_model_params_set(&mp, "repack", "x") != LK_OK, "repack x accepted");
    buf = path ? lk_t_read_file(path, &len) : NULL;
    CHECK(buf != NULL, "cannot read %s", path ? path : "llama-Q4_0.gguf");
    if (buf) {
        mp = lk_model_default_params();
        if (lk_model_load_file(path, &mp, &m) == LK_OK) { rb_file = lk_model_repacked_bytes(m); lk_model_free(m); }
        if (lk_model_load_memory(buf, len, &mp, &m) == LK_OK) { rb_mem = lk_model_repacked_bytes(m); lk_model_free(m); }
        mp.repack = -1;
        if (lk_model_load_file(path, &mp, &m) == LK_OK) { rb_none = lk_model_repacked_bytes(m); lk_model_free(m); }
        mp.repack = 1;
        if (lk_model_load_memory(buf, len, &mp, &m) == LK_OK) { rb_mem1 = lk_model_repacked_bytes(m); lk_model_free(m); }
        CHECK(rb_none == 0, "repack -1 repacked %zu bytes", rb_none);
        CHECK(rb_mem == 0, "a memory load repacked %zu bytes by default", rb_mem);
#if defined(LK__X86)
        CHECK(rb_file > 0 && rb_mem1 == rb_file, "repacked bytes: file %zu, memory with repack 1 %zu", rb_file, rb_mem1);
#else
        CHECK(rb_file == 0 && rb_mem1 == 0, "a build without the kernel repacked");
#endif
        free(buf);
    }
    lk_t_end();
}

int main(int argc, char **argv) {
    const char *only = argc > 1 ? argv[1] : NULL;
    static const char *archs[] = { "llama", "qwen2", "gemma2", "phi3", "gpt2" };
    size_t a;
    if (!(nseq = lk_t_read_seq_a(seq, MAXT))) { lk_t_skip("model-logits", "fixtures absent (../shared/fixtures)"); return 0; }
    if (!only) { check_query_blocks(); check_ew_threads(); check_repack_modes(); }
    for (a = 0; a < sizeof archs / sizeof archs[0]; a++)
        if (!only || !strcmp(only, archs[a])) check_arch(archs[a]);
    for (a = 0; a < sizeof gen_archs / sizeof gen_archs[0]; a++)
        if (!only || !strcmp(only, gen_archs[a].label)) check_generated(&gen_archs[a]);
    return lk_t_exit();
}
