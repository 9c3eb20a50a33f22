/* llmkit_cuda.h - CUDA kernels and a GPU forward pass for llmkit.
 *
 * USAGE
 *   In the one file that defines LLMKIT_IMPLEMENTATION, compiled with nvcc:
 *       #define LLMKIT_IMPLEMENTATION
 *       #include "llmkit.h"
 *       #include "llmkit_cuda.h"
 *   Build: nvcc -O2 -arch=native -Xcompiler -fopenmp app.cu -o app
 *   (-arch=sm_90 for an H100 built on a machine without a GPU.) Other files
 *   include llmkit.h then llmkit_cuda.h for the declarations. Compiled by a
 *   plain C or C++ compiler the same header gives the same functions as
 *   stubs: lk_cuda_available() is 0 and the rest return LK_ERR_UNSUPPORTED,
 *   so an application can call them unconditionally.
 *
 *   lk_model *m;            lk_model_load_file("model.gguf", NULL, &m);
 *   lk_cuda_model *g;       lk_cuda_model_new(m, 0, &g);        (weights to GPU 0)
 *   lk_cuda_context *c;     lk_cuda_context_new(g, NULL, &c);   (KV cache on the GPU)
 *   lk_cuda_decode(c, toks, n);  lk_cuda_logits(c, -1) -> host floats [n_vocab]
 *
 * WHAT RUNS ON THE GPU
 *   The whole forward pass of the dense architectures of lk__archs (llama,
 *   qwen2, qwen3, gemma, gemma2, gemma3, phi3, gpt2): embedding, RMSNorm /
 *   LayerNorm, the matrix products, biases, per-head q/k norms, RoPE (every
 *   variant lk_rope_apply knows: the angles come from it, as a table), the
 *   KV cache (f16 or f32), causal attention with sliding windows and soft-
 *   caps, SwiGLU / GeGLU / GELU, post-norms, the output head and its soft-
 *   cap. Mixture-of-experts models, KV policies, token trees and the low-bit
 *   KV formats stay on the CPU (lk_cuda_model_new / _context_new say so).
 *
 * ARITHMETIC (what makes the GPU agree with the CPU and with llama.cpp)
 *   Weights stay in their GGUF blocks on the GPU and are dequantized on the
 *   fly, 32 elements at a time (lkc_dq32, one function per type, the same
 *   values as the type's to_float). Activations go through the same
 *   rounding the CPU's vec_dot applies before the product: q8_0 blocks for
 *   the legacy formats and IQ4_NL, q8_K for the K-quants and IQ4_XS, f16 for
 *   F16 weights, bf16 for BF16, with the CPU's formulas (lkc_actq writes
 *   the rounded values as floats; q8_1's block sums for Q4_1 / Q5_1 go
 *   beside them). Products then sum in f32. So a GPU product differs from
 *   the CPU's only in the order of f32 additions (tests/test_cuda.cu bounds
 *   it), not by a different quantization of the activations. Every output
 *   takes the same additions in the same order whatever the batch, so a
 *   token's logits do not depend on how many tokens a call holds. With an
 *   f16 KV cache q and the softmax weights are rounded to f16 as ggml does.
 *
 * SPEED: one token is one replayed CUDA graph; products run one warp per
 *   row (decode: the row and x staged in shared memory); attention is one
 *   block per (token, head). Prefill is not a tiled GEMM and long-context
 *   decode is not split over the keys yet. Formats without a GPU kernel
 *   (IQ1, IQ2, IQ3, TQ1_0) are dequantized on the host at upload into f16
 *   rows (f32 if a value exceeds f16's range), keeping their q8_K
 *   activation rounding; lk_cuda_model_converted counts them. Figures on an
 *   H100, what limits them and the next steps: tools/PERFORMANCE.md, "CUDA
 *   on an H100".
 *
 * LIMITS
 *   One sequence per context, positions 0..n-1 (as lk_decode without
 *   packed segments). The attention kernel keeps a row of scores in shared
 *   memory: n_ctx is limited to what the GPU's per-block shared memory holds
 *   (about 56,000 tokens on an H100); lk_cuda_context_new refuses beyond.
 *   The samplers, tokenizer and chat templates are the CPU's, unchanged.
 *
 * BUILD AND TESTS
 *   `make cuda` builds tests/test_cuda.cu and tools/bench-cuda.cu with nvcc
 *   (CUDA_ARCH=-arch=sm_90 for an H100; default sm_80 code plus PTX);
 *   `make test` compiles the stubs with gcc and g++ and, where nvcc is
 *   installed, builds and runs test_cuda (it SKIPs without a GPU). On a GPU
 *   machine tools/cuda-check.sh runs test_cuda (every type's product against
 *   the CPU's lk_matmul, the forward pass against llama.cpp's logits on the
 *   fixtures, batch independence, truncation, errors) and bench-cuda;
 *   BASE=REV also benches revision REV's llmkit_cuda.h, alternating.
 *
 * CONTENTS (search for the banner; "llmkit.h N" is the section of llmkit.h
 * whose CPU code each part mirrors, implemented there in 14.N)
 *   the API                  declarations below; llmkit.h 13 (lk_model,
 *                            lk_context, lk_decode, lk_logits)
 *   the stubs                "a build without nvcc: the API as stubs"
 *   dequantization           "---- dequantization": lkc_dq32, one case per
 *                            type with its to_float's values: llmkit.h 4,
 *                            7a, 7b
 *   reductions               "---- reductions": warp and block sums, maxima
 *   activation rounding      "---- activation rounding": lkc_actq_*, the
 *                            vec_dot_type quantizers (q8_0, q8_1, q8_K,
 *                            f16, bf16): llmkit.h 7a
 *   matrix products          "---- matrix products": lkc_k_mm (batched),
 *                            lkc_k_mv (decode), lkc_k_embed: llmkit.h 7
 *                            (lk_matmul), 13 (the embedding)
 *   ops                      "---- norms, RoPE, activations": lkc_norm,
 *                            lkc_add_norm, lkc_glu (SwiGLU, GeGLU, GELU
 *                            through ggml's f16 table), lkc_softcap:
 *                            llmkit.h 8
 *   attention and KV cache   "---- KV cache and attention": lkc_rope_store
 *                            (RoPE, llmkit.h 8, and the cache store, 10),
 *                            lkc_attn (the causal softmax of llmkit.h 9 over
 *                            f16 / f32 rows of 10; no policies)
 *   the model                "---- the model on the GPU": upload of the
 *                            weights (lkc_up_mat), lk_cuda_model_new:
 *                            llmkit.h 13 (weights binding, lk__archs)
 *   contexts                 "---- contexts": lk_cuda_context_new, the
 *                            RoPE angle tables: llmkit.h 13
 *   the forward pass         lkc_forward (lk__forward's order: embed, per
 *                            layer attention block and FFN block, output),
 *                            lkc_chunk, lk_cuda_decode (the CUDA graph),
 *                            lk_cuda_logits: llmkit.h 13
 *   one product              lk_cuda_matmul, for tests and benchmarks:
 *                            llmkit.h 7
 */
#ifndef LLMKIT_CUDA_H
#define LLMKIT_CUDA_H
#ifndef LLMKIT_H
#error "include llmkit.h before llmkit_cuda.h"
#endif
#ifdef __cplusplus
extern "C" {
#endif

typedef struct lk_cuda_model lk_cuda_model;       /* a model's weights on one GPU */
typedef struct lk_cuda_context lk_cuda_context;   /* KV cache and activations on that GPU */
typedef struct lk_cuda_context_params {
    int n_ctx;          /* positions the KV cache holds; 0: the model's training
                         * context, at most 4096                                  */
    int n_batch;        /* tokens per forward chunk (512)                         */
    lk_type kv_type;    /* LK_TYPE_F16 (default, as lk_context) or LK_TYPE_F32     */
    int logits_all;     /* 1: logits for every token of the last lk_cuda_decode    */
    int no_graph;       /* 1: launch each kernel of a single-token step instead of
                         * replaying it as a CUDA graph (profilers, debugging)     */
} lk_cuda_context_params;

/* 1 when this build has CUDA kernels and a CUDA device is present. */
LKDEF int lk_cuda_available(void);
/* The name of device `device` (e.g. "NVIDIA H100 80GB HBM3") into buf. */
LKDEF lk_status lk_cuda_device_name(int device, char *buf, size_t n);
/* Copy m's weights to GPU `device`. m must outlive the result. */
LKDEF lk_status lk_cuda_model_new(const lk_model *m, int device, lk_cuda_model **out);
LKDEF void lk_cuda_model_free(lk_cuda_model *g);
LKDEF size_t lk_cuda_model_bytes(const lk_cuda_model *g);     /* GPU memory of the weights */
LKDEF int lk_cuda_model_converted(const lk_cuda_model *g);    /* matrices converted to f16 at upload */
LKDEF lk_cuda_context_params lk_cuda_context_default_params(void);
LKDEF lk_status lk_cuda_context_new(lk_cuda_model *g, const lk_cuda_context_params *p, lk_cuda_context **out);
LKDEF void lk_cuda_context_free(lk_cuda_context *c);
LKDEF size_t lk_cuda_context_bytes(const lk_cuda_context *c); /* GPU memory of cache + activations */
/* Append n tokens (positions continue from lk_cuda_context_n_tokens) and
 * compute their logits, in chunks of n_batch. Errors leave the context as
 * it was before the call. */
LKDEF lk_status lk_cuda_decode(lk_cuda_context *c, const lk_token *tokens, int n);
/* Host copy of the logits of token i of the last call (-1: the last one);
 * NULL when not computed (i out of range, or not the last without logits_all). */
LKDEF const float *lk_cuda_logits(const lk_cuda_context *c, int i);
LKDEF int lk_cuda_context_n_tokens(const lk_cuda_context *c);
LKDEF lk_status lk_cuda_context_truncate(lk_cuda_context *c, int n);   /* keep the first n */
/* y[n_cols][n_out] = W x for a host tensor W (rows as in GGUF) and host
 * x[n_cols][n_in], on GPU 0 with the forward pass's kernels (W and x are
 * copied over for the call). For tests and benchmarks. */
LKDEF lk_status lk_cuda_matmul(const lk_tensor *W, const float *x, int64_t n_cols, float *y);

#ifdef __cplusplus
}
#endif
#endif /* LLMKIT_CUDA_H */

/* ==========================================================================
 * Implementation
 * ========================================================================== */
#if defined(LLMKIT_IMPLEMENTATION) && !defined(LLMKIT_CUDA_IMPLEMENTED)
#define LLMKIT_CUDA_IMPLEMENTED
#if !defined(__CUDACC__)
/* ---- a build without nvcc: the API as stubs ---------------------------------- */
static lk_status lkc__none(void) { return lk_set_error(LK_ERR_UNSUPPORTED, "llmkit_cuda.h was compiled without nvcc: no GPU kernels in this build"); }
LKDEF int lk_cuda_available(void) { return 0; }
LKDEF lk_status lk_cuda_device_name(int device, char *buf, size_t n) { (void)device; if (buf && n) buf[0] = 0; return lkc__none(); }
LKDEF lk_status lk_cuda_model_new(const lk_model *m, int device, lk_cuda_model **out) { (void)m; (void)device; if (out) *out = NULL; return lkc__none(); }
LKDEF void lk_cuda_model_free(lk_cuda_model *g) { (void)g; }
LKDEF size_t lk_cuda_model_bytes(const lk_cuda_model *g) { (void)g; return 0; }
LKDEF int lk_cuda_model_converted(const lk_cuda_model *g) { (void)g; return 0; }
LKDEF lk_cuda_context_params lk_cuda_context_default_params(void) {
    lk_cuda_context_params p;
    memset(&p, 0, sizeof p);
    p.n_batch = 512; p.kv_type = LK_TYPE_F16;
    return p;
}
LKDEF lk_status lk_cuda_context_new(lk_cuda_model *g, const lk_cuda_context_params *p, lk_cuda_context **out) { (void)g; (void)p; if (out) *out = NULL; return lkc__none(); }
LKDEF void lk_cuda_context_free(lk_cuda_context *c) { (void)c; }
LKDEF size_t lk_cuda_context_bytes(const lk_cuda_context *c) { (void)c; return 0; }
LKDEF lk_status lk_cuda_decode(lk_cuda_context *c, const lk_token *t, int n) { (void)c; (void)t; (void)n; return lkc__none(); }
LKDEF const float *lk_cuda_logits(const lk_cuda_context *c, int i) { (void)c; (void)i; return NULL; }
LKDEF int lk_cuda_context_n_tokens(const lk_cuda_context *c) { (void)c; return 0; }
LKDEF lk_status lk_cuda_context_truncate(lk_cuda_context *c, int n) { (void)c; (void)n; return lkc__none(); }
LKDEF lk_status lk_cuda_matmul(const lk_tensor *W, const float *x, int64_t n, float *y) { (void)W; (void)x; (void)n; (void)y; return lkc__none(); }
#else
/* ---- the CUDA implementation ------------------------------------------------ */
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>

#define LKC_CHECK(call, what) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) \
    return lk_set_error(LK_ERR_IO, "cuda: %s: %s", (what), cudaGetErrorString(e_)); } while (0)

/* Activation rounding before a product, by the weight type's vec_dot_type */
enum { LKC_AQ_F32, LKC_AQ_F16, LKC_AQ_BF16, LKC_AQ_Q8_0, LKC_AQ_Q8_1, LKC_AQ_Q8_K };

/* A matrix on the GPU: n_out rows of n_in elements, row r at d + r * row_bytes */
typedef struct lkc_w {
    int type, aq;
    const unsigned char *d;
    size_t row_bytes;
    int n_in, n_out;
} lkc_w;

/* ---- dequantization: 32 consecutive elements (group g) of one row ----------
 * Every block size is 32 or 256, so a row is a sequence of 32-element groups
 * (float types: the last group may be partial, elements >= K read as 0).
 * Layouts are ggml's (little-endian, f16 scales as binary16 bits); each case
 * gives the values of the type's to_float (the CPU reference, 14.7a/14.7b). */
__device__ __forceinline__ float lkc_h(const unsigned char *p) { return __half2float(__ushort_as_half((unsigned short)(p[0] | p[1] << 8))); }
__device__ __forceinline__ float lkc_bf(unsigned short h) { return __uint_as_float((unsigned)h << 16); }
__constant__ signed char lkc_iq4nl[16] = { -127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113 };

template <int TY>
__device__ __forceinline__ void lkc_dq32(const unsigned char *row, int g, int K, float *w, float *mo = NULL) {
    int j;
    if (TY == LK_TYPE_F32 || TY == LK_TYPE_F16 || TY == LK_TYPE_BF16) {
        const int e0 = g * 32;
#pragma unroll
        for (j = 0; j < 32; j++) {
            const int e = e0 + j;
            float v = 0.0f;
            if (e < K) {
                if (TY == LK_TYPE_F32) v = ((const float *)(const void *)row)[e];
                else if (TY == LK_TYPE_F16) v = __half2float(((const __half *)(const void *)row)[e]);
                else v = lkc_bf(((const unsigned short *)(const void *)row)[e]);
            }
            w[j] = v;
        }
    } else if (TY == LK_TYPE_Q4_0 || TY == LK_TYPE_IQ4_NL) {   /* 18 bytes {d; qs[16]}: low nibbles 0..15, high 16..31 */
        const unsigned char *b = row + (size_t)g * 18;
        const float d = lkc_h(b);
#pragma unroll
        for (j = 0; j < 16; j++) {
            const int q = b[2 + j];
            if (TY == LK_TYPE_Q4_0) { w[j] = (float)((q & 15) - 8) * d; w[j + 16] = (float)((q >> 4) - 8) * d; }
            else { w[j] = d * (float)lkc_iq4nl[q & 15]; w[j + 16] = d * (float)lkc_iq4nl[q >> 4]; }
        }
    } else if (TY == LK_TYPE_Q4_1) {   /* 20 bytes {d; m; qs[16]}: q d + m (mo: m apart, the products' form) */
        const unsigned char *b = row + (size_t)g * 20;
        const float d = lkc_h(b), m = lkc_h(b + 2);
        if (mo) *mo = m;
#pragma unroll
        for (j = 0; j < 16; j++) {
            const int q = b[4 + j];
            if (mo) { w[j] = (float)(q & 15) * d; w[j + 16] = (float)(q >> 4) * d; }
            else { w[j] = (float)(q & 15) * d + m; w[j + 16] = (float)(q >> 4) * d + m; }
        }
    } else if (TY == LK_TYPE_Q5_0 || TY == LK_TYPE_Q5_1) {   /* {d; [m;] qh[4]; qs[16]}: element j's fifth bit is qh bit j */
        const unsigned char *b = row + (size_t)g * (TY == LK_TYPE_Q5_0 ? 22 : 24);
        const int o = TY == LK_TYPE_Q5_0 ? 2 : 4;
        const float d = lkc_h(b), m = TY == LK_TYPE_Q5_1 ? lkc_h(b + 2) : 0.0f;
        if (mo) *mo = m;
        const unsigned qh = (unsigned)b[o] | (unsigned)b[o + 1] << 8 | (unsigned)b[o + 2] << 16 | (unsigned)b[o + 3] << 24;
#pragma unroll
        for (j = 0; j < 16; j++) {
            const int q = b[o + 4 + j];
            const int lo = (q & 15) | (int)((qh >> j) & 1) << 4, hi = (q >> 4) | (int)((qh >> (j + 16)) & 1) << 4;
            if (TY == LK_TYPE_Q5_0) { w[j] = (float)(lo - 16) * d; w[j + 16] = (float)(hi - 16) * d; }
            else if (mo) { w[j] = (float)lo * d; w[j + 16] = (float)hi * d; }
            else { w[j] = (float)lo * d + m; w[j + 16] = (float)hi * d + m; }
        }
    } else if (TY == LK_TYPE_Q8_0) {   /* 34 bytes {d; qs[32] int8} */
        const unsigned char *b = row + (size_t)g * 34;
        const float d = lkc_h(b);
#pragma unroll
        for (j = 0; j < 32; j++) w[j] = (float)(signed char)b[2 + j] * d;
    } else if (TY == LK_TYPE_Q2_K) {   /* 84 bytes: scales[16] qs[64] d dmin; 2-bit q, 4-bit scale and min per 16 */
        const unsigned char *sb = row + (size_t)(g >> 3) * 84;
        const int s = g & 7, n = s >> 2, jj = s & 3;   /* 128-element half n, shift 2 jj */
        const float d = lkc_h(sb + 80), dmin = lkc_h(sb + 82);
#pragma unroll
        for (j = 0; j < 32; j++) {
            const int half = j >> 4, sc = sb[n * 8 + jj * 2 + half];
            const int q = (sb[16 + n * 32 + half * 16 + (j & 15)] >> (2 * jj)) & 3;
            w[j] = d * (float)(sc & 15) * (float)q - dmin * (float)(sc >> 4);
        }
    } else if (TY == LK_TYPE_Q3_K) {   /* 110 bytes: hmask[32] qs[64] scales[12] d; 6-bit signed scales per 16 */
        const unsigned char *sb = row + (size_t)(g >> 3) * 110, *sc = sb + 96;
        const int s = g & 7, n = s >> 2, jj = s & 3;
        const float d = lkc_h(sb + 108);
#pragma unroll
        for (j = 0; j < 32; j++) {
            const int half = j >> 4, l = j & 15, is = n * 8 + jj * 2 + half;
            const int lo = is < 8 ? sc[is] & 15 : sc[is - 8] >> 4, hi2 = (sc[8 + (is & 3)] >> (2 * (is >> 2))) & 3;
            const int q = (sb[32 + n * 32 + half * 16 + l] >> (2 * jj)) & 3;
            const int h = (sb[half * 16 + l] >> (n * 4 + jj)) & 1;
            w[j] = d * (float)((lo | hi2 << 4) - 32) * (float)(q - (h ? 0 : 4));
        }
    } else if (TY == LK_TYPE_Q4_K || TY == LK_TYPE_Q5_K) {   /* d dmin scales[12] [qh[32]] qs[128]; 6-bit scale and min per 32 */
        const int bs = TY == LK_TYPE_Q4_K ? 144 : 176;
        const unsigned char *sb = row + (size_t)(g >> 3) * bs, *sc = sb + 4, *qs = sb + (TY == LK_TYPE_Q4_K ? 16 : 48);
        const int s = g & 7;
        const float d = lkc_h(sb), dmin = lkc_h(sb + 2);
        int scv, mv;
        if (s < 4) { scv = sc[s] & 63; mv = sc[s + 4] & 63; }
        else { scv = (sc[s + 4] & 15) | (sc[s - 4] >> 6) << 4; mv = (sc[s + 4] >> 4) | (sc[s] >> 6) << 4; }
        {
            const float d1 = d * (float)scv, m1 = dmin * (float)mv;
#pragma unroll
            for (j = 0; j < 32; j++) {
                int q = qs[(s >> 1) * 32 + j];
                q = (s & 1) ? q >> 4 : q & 15;
                if (TY == LK_TYPE_Q5_K) q += ((sb[16 + j] >> s) & 1) << 4;
                w[j] = d1 * (float)q - m1;
            }
        }
    } else if (TY == LK_TYPE_Q6_K) {   /* 210 bytes: ql[128] qh[64] scales[16] int8 d */
        const unsigned char *sb = row + (size_t)(g >> 3) * 210;
        const int s = g & 7, n = s >> 2, part = s & 3;
        const float d = lkc_h(sb + 208);
#pragma unroll
        for (j = 0; j < 32; j++) {
            const int qlb = sb[n * 64 + (part & 1) * 32 + j];
            const int nib = part >= 2 ? qlb >> 4 : qlb & 15;
            const int h = (sb[128 + n * 32 + j] >> (2 * part)) & 3;
            const float sc = (float)(signed char)sb[192 + n * 8 + (j >> 4) + 2 * part];
            w[j] = d * sc * (float)((nib | h << 4) - 32);
        }
    } else if (TY == LK_TYPE_IQ4_XS) {   /* 136 bytes: d scales_h(u16) scales_l[4] qs[128] */
        const unsigned char *sb = row + (size_t)(g >> 3) * 136;
        const int ib = g & 7;
        const unsigned sh = (unsigned)sb[2] | (unsigned)sb[3] << 8;
        const int ls = ((sb[4 + ib / 2] >> (4 * (ib % 2))) & 15) | (int)((sh >> (2 * ib)) & 3) << 4;
        const float dl = lkc_h(sb) * (float)(ls - 32);
        const unsigned char *q = sb + 8 + ib * 16;
#pragma unroll
        for (j = 0; j < 16; j++) { w[j] = dl * (float)lkc_iq4nl[q[j] & 15]; w[j + 16] = dl * (float)lkc_iq4nl[q[j] >> 4]; }
    } else if (TY == LK_TYPE_TQ2_0) {   /* 66 bytes: qs[64] d; element e: byte (e/128)*32 + e%32, shift 2 ((e%128)/32) */
        const unsigned char *sb = row + (size_t)(g >> 3) * 66;
        const int e0 = (g & 7) * 32, base = (e0 / 128) * 32, sh = 2 * ((e0 % 128) / 32);
        const float d = lkc_h(sb + 64);
#pragma unroll
        for (j = 0; j < 32; j++) w[j] = (float)(((sb[base + j] >> sh) & 3) - 1) * d;
    }
}

/* ---- reductions -------------------------------------------------------------- */
__device__ __forceinline__ float lkc_wsum(float v) {
    int o;
    for (o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}
__device__ __forceinline__ float lkc_wmax(float v) {
    int o;
    for (o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
    return v;
}
/* block-wide sum or max; red: 32 floats of shared memory; every thread gets the result */
__device__ float lkc_bred(float v, float *red, int is_max) {
    const int lane = threadIdx.x & 31, wid = threadIdx.x >> 5, nw = (blockDim.x + 31) >> 5;
    v = is_max ? lkc_wmax(v) : lkc_wsum(v);
    __syncthreads();
    if (lane == 0) red[wid] = v;
    __syncthreads();
    v = lane < nw ? red[lane] : (is_max ? -INFINITY : 0.0f);
    v = is_max ? lkc_wmax(v) : lkc_wsum(v);
    return v;
}

/* ---- activation rounding (the CPU's vec_dot_type), written back as floats ----
 * The CPU's activation quantizers exactly (lk__act_quantize_q8_0_ref,
 * lk__quantize_row_q8_K_ref), since a value rounded the other way moves a
 * product by a whole quantum:
 * q8_0: per 32, q = nearest-even(x 127 / amax) clamped to [-128, 127], value
 *       q f16(amax / 127). q8_1: the same values, and s = f16(d sum q) per
 *       block (d = amax / 127 unrounded) into xs, for q4_1 / q5_1's m s term.
 * q8_K: per 256, the element of largest |x| (the first one) gives iscale =
 *       -127 / max, q = nearest-even(iscale x) clamped, value q (1 / iscale).
 * f16 / bf16: round to nearest even. x, y: [T, K], n = T K; xs: [n / 32]. */
/* The lane's element v of a warp's 32-element block, rounded as q8_0; *s (when
 * s is given, for the whole warp): the block's q8_1 sum f16(d sum q) */
__device__ __forceinline__ float lkc_round_q8_0(float v, float *s) {
    const float amax = lkc_wmax(fabsf(v));
    const float id = amax != 0.0f ? 127.0f / amax : 0.0f;
    float q = rintf(v * id);
    q = fminf(127.0f, fmaxf(-128.0f, q));
    if (q != q) q = 0.0f;
    if (s) *s = __half2float(__float2half_rn(amax / 127.0f * lkc_wsum(q)));   /* the sum is exact: |sum| <= 4096 */
    return q * __half2float(__float2half_rn(amax / 127.0f));
}
/* The same values as lkc_round_q8_0, by one thread for a whole block of 32
 * at p[0..31], in place (max and the integer sum are exact in any order);
 * returns the q8_1 block sum */
__device__ __forceinline__ float lkc_round_q8_0_seq(float *p) {
    float amax = fabsf(p[0]), sum = 0.0f, id, d;
    int j;
    for (j = 1; j < 32; j++) amax = fmaxf(amax, fabsf(p[j]));   /* fmaxf drops NaNs as lkc_wmax does (all NaN: NaN) */
    id = amax != 0.0f ? 127.0f / amax : 0.0f;
    d = __half2float(__float2half_rn(amax / 127.0f));
    for (j = 0; j < 32; j++) {
        float q = rintf(p[j] * id);
        q = fminf(127.0f, fmaxf(-128.0f, q));
        if (q != q) q = 0.0f;
        sum += q;
        p[j] = q * d;
    }
    return __half2float(__float2half_rn(amax / 127.0f * sum));
}
/* v[k] = element lane + 32 k of a warp's 256-element block, rounded in place as q8_K */
__device__ __forceinline__ void lkc_round_q8_K(float *v, int lane) {
    float amax = 0.0f, mx = 0.0f;
    int k, at = 1 << 30;
    for (k = 0; k < 8; k++) {
        const int e = lane + 32 * k;
        if (fabsf(v[k]) > amax) { amax = fabsf(v[k]); mx = v[k]; at = e; }
    }
    for (k = 16; k > 0; k >>= 1) {   /* the largest |x|, the lowest index among equals */
        const float oa = __shfl_xor_sync(0xffffffffu, amax, k), om = __shfl_xor_sync(0xffffffffu, mx, k);
        const int oat = __shfl_xor_sync(0xffffffffu, at, k);
        if (oa > amax || (oa == amax && oat < at)) { amax = oa; mx = om; at = oat; }
    }
    for (k = 0; k < 8; k++) {
        float q = 0.0f;
        if (amax != 0.0f) {
            const float is = -127.0f / mx;
            q = fminf(127.0f, fmaxf(-128.0f, rintf(is * v[k])));
            q = q * (1.0f / is);
        }
        v[k] = q;
    }
}
__device__ __forceinline__ float lkc_round_f16(float v, int bf) { return bf ? __bfloat162float(__float2bfloat16_rn(v)) : __half2float(__float2half_rn(v)); }
__global__ void lkc_actq_q8_0(const float *x, float *y, float *xs, long long n) {   /* one warp per 32 */
    const long long i = ((long long)blockIdx.x * blockDim.x + threadIdx.x);
    float s = 0.0f;
    const float q = lkc_round_q8_0(i < n ? x[i] : 0.0f, xs ? &s : NULL);
    if (i < n) y[i] = q;
    if (xs && (threadIdx.x & 31) == 0 && i < n) xs[i / 32] = s;
}
__global__ void lkc_actq_q8_K(const float *x, float *y, long long n) {   /* one warp per 256: 8 per lane */
    const long long base = (long long)blockIdx.x * 256 * (blockDim.x / 32) + (long long)(threadIdx.x >> 5) * 256;
    const int lane = threadIdx.x & 31;
    float v[8];
    int k;
    if (base >= n) return;
    for (k = 0; k < 8; k++) v[k] = x[base + lane + 32 * k];
    lkc_round_q8_K(v, lane);
    for (k = 0; k < 8; k++) y[base + lane + 32 * k] = v[k];
}
__global__ void lkc_actq_f16(const float *x, float *y, long long n, int bf) {
    const long long i = ((long long)blockIdx.x * blockDim.x + threadIdx.x);
    if (i < n) y[i] = lkc_round_f16(x[i], bf);
}

/* ---- matrix products ---------------------------------------------------------
 * Y[t][n] = sum_k W[n][k] X[t][k] (+ bias[n]); W: N rows of K, X: [T, K], Y: [T, N].
 * One warp per output row, NT columns (tokens) per warp: lane l dequantizes
 * groups l, l + 32, ... of the row once and uses them for all NT columns;
 * the lanes' partial sums meet in a warp sum. 4 warps (rows) per block.
 * Every output takes the same additions in the same order whatever NT and T
 * are (lkc_dot32 per group, groups in order per lane, then the warp sum), so
 * results do not depend on the batch size. q4_1 / q5_1: per group
 * dot(q d, x') + m s, s the q8_1 block sum of xs [T, K / 32], as the CPU. */
__device__ __forceinline__ float lkc_dot32(const float *w, const float *x, int aligned) {
    float s = 0.0f;
    int j;
    if (aligned) {   /* rows 16-byte aligned */
        const float4 *x4 = (const float4 *)(const void *)x;
#pragma unroll
        for (j = 0; j < 8; j++) {
            const float4 v = x4[j];
            s += w[4 * j] * v.x + w[4 * j + 1] * v.y + w[4 * j + 2] * v.z + w[4 * j + 3] * v.w;
        }
    } else {
#pragma unroll
        for (j = 0; j < 8; j++) s += w[4 * j] * x[4 * j] + w[4 * j + 1] * x[4 * j + 1] + w[4 * j + 2] * x[4 * j + 2] + w[4 * j + 3] * x[4 * j + 3];
    }
    return s;
}
/* bytes of 32 consecutive groups (1024 elements) of a row of type TY */
__host__ __device__ constexpr int lkc_chunk_bytes(int TY) {
    return TY == LK_TYPE_F32 ? 4096 : TY == LK_TYPE_F16 || TY == LK_TYPE_BF16 ? 2048 : TY == LK_TYPE_Q4_0 || TY == LK_TYPE_IQ4_NL ? 576 :
           TY == LK_TYPE_Q4_1 ? 640 : TY == LK_TYPE_Q5_0 ? 704 : TY == LK_TYPE_Q5_1 ? 768 : TY == LK_TYPE_Q8_0 ? 1088 : TY == LK_TYPE_Q2_K ? 336 :
           TY == LK_TYPE_Q3_K ? 440 : TY == LK_TYPE_Q4_K ? 576 : TY == LK_TYPE_Q5_K ? 704 : TY == LK_TYPE_Q6_K ? 840 : TY == LK_TYPE_IQ4_XS ? 544 :
           TY == LK_TYPE_TQ2_0 ? 264 : 16;
}
/* dst[0, len) = src[0, len) by the 32 lanes of a warp, with the widest loads
 * the alignment allows (len is even: every block size is) */
__device__ __forceinline__ void lkc_warp_copy(unsigned char *dst, const unsigned char *src, int len, int lane) {
    int i;
    if (!(((uintptr_t)src | (uintptr_t)len) & 15))
        for (i = lane; i < len / 16; i += 32) ((uint4 *)(void *)dst)[i] = ((const uint4 *)(const void *)src)[i];
    else if (!(((uintptr_t)src | (uintptr_t)len) & 3))
        for (i = lane; i < len / 4; i += 32) ((unsigned *)(void *)dst)[i] = ((const unsigned *)(const void *)src)[i];
    else
        for (i = lane; i < len / 2; i += 32) ((unsigned short *)(void *)dst)[i] = ((const unsigned short *)(const void *)src)[i];
}
/* The warp copies the row's next chunk (32 groups) into shared memory with
 * the widest loads its alignment allows, then each lane dequantizes its
 * group from there: the same values as from global memory. */
template <int TY, int NT>
__global__ void __launch_bounds__(128) lkc_k_mm(const unsigned char *W, size_t row_bytes, int N, int K, const float *X, const float *XS, int T, float *Y,
                                                const float *bias) {
    __shared__ __align__(16) unsigned char sh[4][lkc_chunk_bytes(TY)];
    const int lane = threadIdx.x & 31, wid = threadIdx.x >> 5, n = blockIdx.x * 4 + wid, t0 = blockIdx.y * NT;
    const int ng = (K + 31) / 32, aligned = (K & 3) == 0, CB = lkc_chunk_bytes(TY);
    const int flt = TY == LK_TYPE_F32 || TY == LK_TYPE_F16 || TY == LK_TYPE_BF16, m1 = TY == LK_TYPE_Q4_1 || TY == LK_TYPE_Q5_1;
    const unsigned char *row = W + (size_t)n * row_bytes;
    unsigned char *sw = sh[wid];
    float acc[NT];
    int base, tt, j;
    if (n >= N) return;   /* the whole warp: only __syncwarp below */
#pragma unroll
    for (tt = 0; tt < NT; tt++) acc[tt] = 0.0f;
    for (base = 0; base < ng; base += 32) {
        const int g = base + lane;
        const size_t off = (size_t)(base / 32) * CB;
        const int len = row_bytes - off < (size_t)CB ? (int)(row_bytes - off) : CB;
        lkc_warp_copy(sw, row + off, len, lane);
        __syncwarp();
        if (g < ng) {
            float w[32], m = 0.0f;
            lkc_dq32<TY>(sw, lane, K - base * 32, w, m1 ? &m : NULL);
            if (!flt || g * 32 + 32 <= K) {
#pragma unroll
                for (tt = 0; tt < NT; tt++)
                    if (t0 + tt < T) {
                        float s = lkc_dot32(w, X + (size_t)(t0 + tt) * K + g * 32, aligned);
                        if (m1) s += m * XS[(size_t)(t0 + tt) * ng + g];
                        acc[tt] += s;
                    }
            } else {   /* a partial last group (float types with K % 32 != 0); w is 0 past K */
                const int rem = K - g * 32;
#pragma unroll
                for (tt = 0; tt < NT; tt++)
                    if (t0 + tt < T) {
                        const float *x = X + (size_t)(t0 + tt) * K + g * 32;
                        float s = 0.0f;
#pragma unroll
                        for (j = 0; j < 32; j++) if (j < rem) s += w[j] * x[j];
                        acc[tt] += s;
                    }
            }
        }
        __syncwarp();
    }
#pragma unroll
    for (tt = 0; tt < NT; tt++) {
        const float s = lkc_wsum(acc[tt]);
        if (lane == 0 && t0 + tt < T) Y[(size_t)(t0 + tt) * N + n] = s + (bias ? bias[n] : 0.0f);
    }
}
/* Decode (one column): y_m = W_m x' (+ b_m) for up to LKC_MV_MAX matrices of
 * one type and row length that read the same x (Q, K, V; gate, up; or one),
 * in one launch, rows of at most LKC_MV_ROW bytes. Their rows are numbered
 * one after the other; each of the 4 warps owns rpw consecutive ones (1 or
 * 2: as many as fit 48 KiB of shared memory). Every load is put in flight
 * at once (cp.async to shared memory, sm_80 and later; older GPUs copy
 * through registers): x with one float of padding after every 32 (x[e]
 * at e + e / 32, so that lane l reading its group's 32 floats hits 32
 * different banks), then the warps' rows. Once x has landed the block
 * rounds it in place, to the values lkc_actq_* give (q8_0 / q8_1 by a
 * thread per block of 32, q8_K by a warp per 256, q8_1's block sums beside
 * x; a warp per 32 as in lkc_actq_q8_0 took 44 steps per warp for K = 5632
 * and cost more than the launch it saves) while the rows are
 * still arriving; then one wait for them and a barrier. Each row then
 * runs lkc_k_mm's arithmetic on the same values in the same order: the
 * same bits as the batched product. (A decode step so takes one
 * launch for Q, K and V and none for the rounding; a kernel that copied x,
 * waited, then copied one row per warp was slower: its loads did not
 * overlap.) */
#define LKC_MV_ROW 8192
#define LKC_MV_MAX 3
typedef struct lkc_mvset {
    const unsigned char *w[LKC_MV_MAX];
    float *y[LKC_MV_MAX];
    const float *b[LKC_MV_MAX];
    int n[LKC_MV_MAX];   /* rows of each; 0 past the last */
} lkc_mvset;
__host__ __device__ static int lkc_mv_xpad(int K) { return (K + K / 32 + 1 + 3) / 4 * 4; }   /* floats of x' padded */
__host__ __device__ static int lkc_mv_xfl(int K) { return lkc_mv_xpad(K) + ((K + 31) / 32 + 3) / 4 * 4; }   /* floats: x' padded, then the sums */
/* global row r of a set: row *nn of matrix m (the return) */
__device__ __forceinline__ int lkc_mv_row(const lkc_mvset &ms, int r, int *nn) {
    int m = 0;
    while (r >= ms.n[m]) r -= ms.n[m++];
    *nn = r;
    return m;
}
static size_t lkc_mv_smem(int K, size_t row_bytes, int rpw) {   /* bytes; over 48 KiB: not this kernel */
    return (size_t)lkc_mv_xfl(K) * 4 + (size_t)(4 * rpw) * ((row_bytes + 15) / 16 * 16);
}
/* dst = src, 4 or 16 bytes, without waiting (cp.async; lkc_cp_wait waits for all) */
template <int B>
__device__ __forceinline__ void lkc_cp(void *dst, const void *src) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    const unsigned d = (unsigned)__cvta_generic_to_shared(dst);
    if (B == 16) asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(d), "l"(src));
    else asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(d), "l"(src));
#else
    if (B == 16) *(uint4 *)dst = *(const uint4 *)src;
    else *(unsigned *)dst = *(const unsigned *)src;
#endif
}
__device__ __forceinline__ void lkc_cp_wait(void) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.wait_all;\n" ::: "memory");
#endif
}
/* close the group of copies issued so far; wait until all but the last group have landed */
__device__ __forceinline__ void lkc_cp_commit(void) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}
__device__ __forceinline__ void lkc_cp_wait_prior(void) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.wait_group 1;\n" ::: "memory");
#endif
}
/* lkc_warp_copy through lkc_cp where the alignment allows (2-byte aligned rows: copied at once) */
__device__ __forceinline__ void lkc_warp_copy_async(unsigned char *dst, const unsigned char *src, int len, int lane) {
    int i;
    if (!(((uintptr_t)src | (uintptr_t)len) & 15))
        for (i = lane; i < len / 16; i += 32) lkc_cp<16>(dst + 16 * i, src + 16 * i);
    else if (!(((uintptr_t)src | (uintptr_t)len) & 3))
        for (i = lane; i < len / 4; i += 32) lkc_cp<4>(dst + 4 * i, src + 4 * i);
    else lkc_warp_copy(dst, src, len, lane);
}
template <int TY>
__global__ void __launch_bounds__(128) lkc_k_mv(lkc_mvset ms, size_t row_bytes, int N, int K, const float *X, int aq, int rpw) {
    extern __shared__ uint4 lkc_dsh[];
    const int lane = threadIdx.x & 31, wid = threadIdx.x >> 5, n0 = (blockIdx.x * 4 + wid) * rpw;
    const int ng = (K + 31) / 32, rb = (int)row_bytes, stride = (rb + 15) / 16 * 16, xfl = lkc_mv_xfl(K);
    const int flt = TY == LK_TYPE_F32 || TY == LK_TYPE_F16 || TY == LK_TYPE_BF16, m1 = TY == LK_TYPE_Q4_1 || TY == LK_TYPE_Q5_1;
    float *xsh = (float *)(void *)lkc_dsh, *xssh = xsh + lkc_mv_xpad(K);
    unsigned char *sw0 = (unsigned char *)(void *)(xsh + xfl) + (size_t)wid * rpw * stride;
    int g, j, i, r, k;
    for (i = threadIdx.x; i < K; i += blockDim.x) lkc_cp<4>(xsh + i + i / 32, X + i);
    lkc_cp_commit();
    for (r = 0; r < rpw && n0 + r < N; r++) {   /* global row n0 + r: row nn of matrix m */
        int nn;
        const int m = lkc_mv_row(ms, n0 + r, &nn);
        lkc_warp_copy_async(sw0 + (size_t)r * stride, ms.w[m] + (size_t)nn * row_bytes, rb, lane);
    }
    lkc_cp_commit();
    lkc_cp_wait_prior();   /* x has landed; the rows may still be on their way */
    __syncthreads();
    if (aq == LKC_AQ_F16 || aq == LKC_AQ_BF16) {   /* then x' in place, from shared memory */
        for (i = threadIdx.x; i < K; i += blockDim.x) xsh[i + i / 32] = lkc_round_f16(xsh[i + i / 32], aq == LKC_AQ_BF16);
    } else if (aq == LKC_AQ_Q8_K) {   /* K % 256 == 0: a warp per 256 */
        for (g = wid; g < K / 256; g += 4) {
            float v[8];
            for (k = 0; k < 8; k++) v[k] = xsh[(g * 8 + k) * 33 + lane];
            lkc_round_q8_K(v, lane);
            for (k = 0; k < 8; k++) xsh[(g * 8 + k) * 33 + lane] = v[k];
        }
    } else if (aq != LKC_AQ_F32) {   /* q8_0 / q8_1, K % 32 == 0: a thread per 32 (stride 33: no bank conflicts) */
        for (g = threadIdx.x; g < ng; g += blockDim.x) xssh[g] = lkc_round_q8_0_seq(xsh + g * 33);
    }
    lkc_cp_wait();
    __syncthreads();
    for (r = 0; r < rpw && n0 + r < N; r++) {
        const unsigned char *sw = sw0 + (size_t)r * stride;
        int nn;
        const int m = lkc_mv_row(ms, n0 + r, &nn);
        float acc = 0.0f;
        for (g = lane; g < ng; g += 32) {
            float w[32], xv[32], mm = 0.0f, s;
            lkc_dq32<TY>(sw + (size_t)(g / 32) * lkc_chunk_bytes(TY), g % 32, K - (g / 32) * 32 * 32, w, m1 ? &mm : NULL);
#pragma unroll
            for (j = 0; j < 32; j++) xv[j] = g * 32 + j < K ? xsh[g * 33 + j] : 0.0f;
            if (!flt || g * 32 + 32 <= K) {
                s = lkc_dot32(w, xv, 0);
                if (m1) s += mm * xssh[g];
            } else {
                const int rem = K - g * 32;
                s = 0.0f;
#pragma unroll
                for (j = 0; j < 32; j++) if (j < rem) s += w[j] * xv[j];
            }
            acc += s;
        }
        acc = lkc_wsum(acc);
        if (lane == 0) ms.y[m][nn] = acc + (ms.b[m] ? ms.b[m][nn] : 0.0f);
    }
}
/* x[t] = row tok[t] of an embedding table * scale (+ row *pos0 + t of pos, an f32 table); x: [T, K] */
template <int TY>
__global__ void lkc_k_embed(const unsigned char *E, size_t row_bytes, int K, const int *tok, float scale, const float *pos, const int *pos0, float *x) {
    const int t = blockIdx.x, ng = (K + 31) / 32;
    int g, j;
    for (g = threadIdx.x; g < ng; g += blockDim.x) {
        float w[32];
        lkc_dq32<TY>(E + (size_t)tok[t] * row_bytes, g, K, w);
#pragma unroll
        for (j = 0; j < 32; j++)
            if (g * 32 + j < K) {
                float v = w[j] * scale;
                if (pos) v += pos[(size_t)(*pos0 + t) * K + g * 32 + j];
                x[(size_t)t * K + g * 32 + j] = v;
            }
    }
}

/* The types with kernels; every other type is converted at upload */
#define LKC_TYPES(X) X(LK_TYPE_F32) X(LK_TYPE_F16) X(LK_TYPE_BF16) X(LK_TYPE_Q4_0) X(LK_TYPE_Q4_1) X(LK_TYPE_Q5_0) X(LK_TYPE_Q5_1) \
    X(LK_TYPE_Q8_0) X(LK_TYPE_Q2_K) X(LK_TYPE_Q3_K) X(LK_TYPE_Q4_K) X(LK_TYPE_Q5_K) X(LK_TYPE_Q6_K) X(LK_TYPE_IQ4_NL) X(LK_TYPE_IQ4_XS) X(LK_TYPE_TQ2_0)
static int lkc_has_kernel(lk_type t) {
    switch (t) {
#define LKC_CASE(T) case T: return 1;
    LKC_TYPES(LKC_CASE)
#undef LKC_CASE
    default: return 0;
    }
}
/* Columns per warp of lkc_k_mm: one width for every batch (and for decode
 * rows too long for lkc_k_mv). Each instantiation costs compile time (nvcc
 * compiles every type once per width); the width does not change any
 * result. */
#define LKC_NT 8
template <int TY>
static void lkc_launch_mm(const lkc_w *w, const float *x, const float *xs, int T, float *y, const float *bias, cudaStream_t st) {
    lkc_k_mm<TY, LKC_NT><<<dim3((unsigned)(w->n_out + 3) / 4, (unsigned)(T + LKC_NT - 1) / LKC_NT), 128, 0, st>>>(w->d, w->row_bytes, w->n_out, w->n_in, x, xs, T,
                                                                                                             y, bias);
}
/* rows per warp of lkc_k_mv for rows of K elements and row_bytes (0: too long for it) */
static int lkc_mv_rpw(int K, size_t row_bytes) {
    if (row_bytes > LKC_MV_ROW) return 0;
    return lkc_mv_smem(K, row_bytes, 2) <= 48 * 1024 ? 2 : lkc_mv_smem(K, row_bytes, 1) <= 48 * 1024 ? 1 : 0;
}
template <int TY>
static void lkc_launch_mv(const lkc_mvset *ms, const lkc_w *w, int N, const float *x, int rpw, cudaStream_t st) {
    lkc_k_mv<TY><<<(unsigned)(N + 4 * rpw - 1) / (4 * rpw), 128, lkc_mv_smem(w->n_in, w->row_bytes, rpw), st>>>(*ms, w->row_bytes, N, w->n_in, x, w->aq, rpw);
}
template <int TY>
static void lkc_launch_embed(const lkc_w *w, const int *tok, int T, float scale, const float *pos, const int *pos0, float *x, cudaStream_t st) {
    lkc_k_embed<TY><<<(unsigned)T, 128, 0, st>>>(w->d, w->row_bytes, w->n_in, tok, scale, pos, pos0, x);
}
static lk_status lkc_mm_run(const lkc_w *w, const float *xq, const float *xs, int T, float *y, const float *bias, cudaStream_t st) {
    switch (w->type) {
#define LKC_CASE(TY) case TY: lkc_launch_mm<TY>(w, xq, xs, T, y, bias, st); break;
    LKC_TYPES(LKC_CASE)
#undef LKC_CASE
    default: return lk_set_error(LK_ERR_UNSUPPORTED, "cuda: no matmul kernel for %s", lk_type_name((lk_type)w->type));
    }
    LKC_CHECK(cudaGetLastError(), "matmul launch");
    return LK_OK;
}
static lk_status lkc_mv_run(const lkc_mvset *ms, const lkc_w *w, int N, const float *x, int rpw, cudaStream_t st) {
    switch (w->type) {
#define LKC_CASE(TY) case TY: lkc_launch_mv<TY>(ms, w, N, x, rpw, st); break;
    LKC_TYPES(LKC_CASE)
#undef LKC_CASE
    default: return lk_set_error(LK_ERR_UNSUPPORTED, "cuda: no matmul kernel for %s", lk_type_name((lk_type)w->type));
    }
    LKC_CHECK(cudaGetLastError(), "matmul launch");
    return LK_OK;
}
static lk_status lkc_embed_run(const lkc_w *w, const int *tok, int T, float scale, const float *pos, const int *pos0, float *x, cudaStream_t st) {
    switch (w->type) {
#define LKC_CASE(TY) case TY: lkc_launch_embed<TY>(w, tok, T, scale, pos, pos0, x, st); break;
    LKC_TYPES(LKC_CASE)
#undef LKC_CASE
    default: return lk_set_error(LK_ERR_UNSUPPORTED, "cuda: no embedding kernel for %s", lk_type_name((lk_type)w->type));
    }
    LKC_CHECK(cudaGetLastError(), "embedding launch");
    return LK_OK;
}
static int lkc_aq_of(lk_type t) {
    const lk_type_traits *tt = lk_type_get(t);
    switch (tt ? tt->vec_dot_type : LK_TYPE_F32) {
    case LK_TYPE_F16: return LKC_AQ_F16;
    case LK_TYPE_BF16: return LKC_AQ_BF16;
    case LK_TYPE_Q8_0: return LKC_AQ_Q8_0;
    case LK_TYPE_Q8_1: return LKC_AQ_Q8_1;
    case LK_TYPE_Q8_K: return LKC_AQ_Q8_K;
    default: return LKC_AQ_F32;
    }
}
/* y = the activations x [T, K] rounded as mode says */
static lk_status lkc_actq_run(int mode, const float *x, float *y, float *xs, int T, int K, cudaStream_t st) {
    const long long n = (long long)T * K;
    if (mode == LKC_AQ_Q8_0 || mode == LKC_AQ_Q8_1) lkc_actq_q8_0<<<(unsigned)((n + 255) / 256), 256, 0, st>>>(x, y, mode == LKC_AQ_Q8_1 ? xs : NULL, n);
    else if (mode == LKC_AQ_Q8_K) lkc_actq_q8_K<<<(unsigned)((n / 256 + 3) / 4), 128, 0, st>>>(x, y, n);
    else if (mode == LKC_AQ_F16 || mode == LKC_AQ_BF16) lkc_actq_f16<<<(unsigned)((n + 255) / 256), 256, 0, st>>>(x, y, n, mode == LKC_AQ_BF16);
    LKC_CHECK(cudaGetLastError(), "activation rounding launch");
    return LK_OK;
}

/* ---- norms, RoPE, activations ------------------------------------------------ */
/* y[r] = norm(x[r]) * w (+ b) for each block's row r of n: RMSNorm (ln 0) or
 * LayerNorm (ln 1); w, b may be NULL; y may be x. As lk_rmsnorm /
 * lk_layernorm: f32 products (squares), double sums, f32 mean and scale. */
__device__ double lkc_bsum_d(double v, double *red) {
    const int lane = threadIdx.x & 31, wid = threadIdx.x >> 5, nw = (blockDim.x + 31) >> 5;
    int o;
    for (o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    __syncthreads();
    if (lane == 0) red[wid] = v;
    __syncthreads();
    v = lane < nw ? red[lane] : 0.0;
    for (o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}
/* the rest of a norm once each thread holds s, its part of sum x (LayerNorm)
 * or of sum x^2 (RMSNorm) over the row xr: y = norm(x) * w (+ b) */
#define LKC_NU 8   /* elements per thread loaded before any is stored */
__device__ __forceinline__ void lkc_norm_tail(const float *xr, float *yr, const float *w, const float *b, int n, float eps, int ln, double s, double *red) {
    float mean = 0.0f, scale;
    int i;
    if (ln) {
        mean = (float)(lkc_bsum_d(s, red) / n);
        s = 0.0;
        for (i = threadIdx.x; i < n; i += blockDim.x) { const float d = xr[i] - mean; s += (double)(d * d); }
    }
    scale = 1.0f / sqrtf((float)(lkc_bsum_d(s, red) / n) + eps);
    for (i = threadIdx.x; i < n; i += LKC_NU * blockDim.x) {   /* LKC_NU loads in flight before the stores (y may be x) */
        float v[LKC_NU];
        int k;
#pragma unroll
        for (k = 0; k < LKC_NU; k++) {
            const int e = i + k * blockDim.x;
            if (e < n) {
                v[k] = ln ? (xr[e] - mean) * scale : xr[e] * scale;
                if (w) v[k] *= w[e];
                if (b) v[k] += b[e];
            }
        }
#pragma unroll
        for (k = 0; k < LKC_NU; k++) if (i + k * blockDim.x < n) yr[i + k * blockDim.x] = v[k];
    }
}
__global__ void lkc_norm(const float *x, float *y, const float *w, const float *b, int n, float eps, int ln) {
    __shared__ double red[32];
    const float *xr = x + (size_t)blockIdx.x * n;
    double s = 0.0;
    int i;
    if (ln) for (i = threadIdx.x; i < n; i += blockDim.x) s += (double)xr[i];
    else for (i = threadIdx.x; i < n; i += blockDim.x) s += (double)(xr[i] * xr[i]);
    lkc_norm_tail(xr, y + (size_t)blockIdx.x * n, w, b, n, eps, ln, s, red);
}
/* mode 0: ff2 = silu(ff1) ff2 (SwiGLU); 1: ff2 = gelu(ff1) ff2 (GeGLU);
 * 2: ff2 = gelu(ff2). GELU is ggml's: f16 in, the f16 table gtab, f16 out. */
__global__ void lkc_glu(const float *ff1, float *ff2, long long n, int mode, const unsigned short *gtab) {
    const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    float a, g;
    if (i >= n) return;
    a = mode == 2 ? ff2[i] : ff1[i];
    if (mode == 0) g = a / (1.0f + expf(-a));
    else g = a <= -10.0f ? 0.0f : a >= 10.0f ? a : __half2float(__ushort_as_half(gtab[__half_as_ushort(__float2half_rn(a))]));
    ff2[i] = mode == 2 ? g : g * ff2[i];
}
/* x[r] += o[r], then y[r] = norm(x[r]) * w (+ b), as lkc_norm (the residual
 * add and the next block's norm in one pass; a block per row of n). Each
 * thread loads LKC_NU elements before it stores any: x, o and y may alias
 * as far as the compiler knows, so a load-add-store loop waited for one
 * memory latency per element. */
__global__ void lkc_add_norm(float *x, const float *o, float *y, const float *w, const float *b, int n, float eps, int ln) {
    __shared__ double red[32];
    float *xr = x + (size_t)blockIdx.x * n;
    const float *orow = o + (size_t)blockIdx.x * n;
    double s = 0.0;
    int i;
    for (i = threadIdx.x; i < n; i += LKC_NU * blockDim.x) {   /* the same order of additions, the loads first */
        float v[LKC_NU];
        int k;
#pragma unroll
        for (k = 0; k < LKC_NU; k++) v[k] = i + k * blockDim.x < n ? xr[i + k * blockDim.x] + orow[i + k * blockDim.x] : 0.0f;
#pragma unroll
        for (k = 0; k < LKC_NU; k++)
            if (i + k * blockDim.x < n) {
                xr[i + k * blockDim.x] = v[k];
                s += ln ? (double)v[k] : (double)(v[k] * v[k]);
            }
    }
    lkc_norm_tail(xr, y + (size_t)blockIdx.x * n, w, b, n, eps, ln, s, red);
}
__global__ void lkc_add(float *x, const float *o, long long n) {
    const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] += o[i];
}
__global__ void lkc_softcap(float *x, long long n, float cap) {
    const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = cap * tanhf(x[i] * (1.0f / cap));
}

/* ---- KV cache and attention ---------------------------------------------------
 * Layer l's cache: K, V [n_ctx, G d] rows in f16 or f32, slot = position. */
template <typename KT> __device__ __forceinline__ KT lkc_to(float v);
template <> __device__ __forceinline__ float lkc_to<float>(float v) { return v; }
template <> __device__ __forceinline__ __half lkc_to<__half>(float v) { return __float2half_rn(v); }
__device__ __forceinline__ float lkc_fl(float v) { return v; }
__device__ __forceinline__ float lkc_fl(__half v) { return __half2float(v); }
/* q: [T, H, d], k, v: [T, G, d]: RoPE (angles from tab, *pos0 the first
 * position) on q (then * qscale) and k, and k, v into the cache rows from
 * slot *pos0 (row = G d elements). One thread per element pair of a head;
 * n_rot = 0: no rotation (tab unused). */
template <typename KT>
__global__ void lkc_rope_store(float *q, const float *k, const float *v, KT *kc, KT *vc, int T, int H, int G, int d, int n_rot, int neox,
                               const float *tab, const int *pos0, float qscale) {
    const long long id = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const int half = d / 2, hh = (int)((id / half) % (H + G)), t = (int)(id / ((long long)half * (H + G))), i = (int)(id % half);
    int a, b;
    float ca = 1.0f, sa = 0.0f, x0, x1, y0, y1;
    if (id >= (long long)T * (H + G) * half) return;
    if (i < n_rot / 2) {
        const float *cs = tab + (size_t)(*pos0 + t) * n_rot + 2 * i;
        ca = cs[0]; sa = cs[1];
        a = neox ? i : 2 * i; b = neox ? i + n_rot / 2 : 2 * i + 1;
    } else {
        a = n_rot + 2 * (i - n_rot / 2); b = a + 1;
    }
    if (hh < H) {
        float *r = q + ((size_t)t * H + hh) * d;
        x0 = r[a]; x1 = r[b];
        if (i < n_rot / 2) { y0 = x0 * ca - x1 * sa; y1 = x0 * sa + x1 * ca; }
        else { y0 = x0; y1 = x1; }
        r[a] = y0 * qscale; r[b] = y1 * qscale;
    } else {
        const size_t src = ((size_t)t * G + (hh - H)) * d, dst = (size_t)(*pos0 + t) * G * d + (size_t)(hh - H) * d;
        x0 = k[src + a]; x1 = k[src + b];
        if (i < n_rot / 2) { y0 = x0 * ca - x1 * sa; y1 = x0 * sa + x1 * ca; }
        else { y0 = x0; y1 = x1; }
        kc[dst + a] = lkc_to<KT>(y0); kc[dst + b] = lkc_to<KT>(y1);
        vc[dst + a] = lkc_to<KT>(v[src + a]); vc[dst + b] = lkc_to<KT>(v[src + b]);
    }
}
/* One block per (token t, head h): the scores of the visible keys in shared
 * memory (s = q.k, soft-cap, scale), softmax, then out = sum_j w_j v_j.
 * Query t sits at position *slot0 + t; keys at slots [lo, slot0 + t] with
 * lo = qpos - window + 1 (>= 0) when the layer has a window.
 * q, att: [T, H, d]; shared memory: d + n_ctx + LKC_ATTN_THREADS floats
 * (q, the scores, the V sums' partials). f16m: q and the
 * weights rounded to f16 (ggml with an f16 cache). */
#define LKC_ATTN_THREADS 256
template <typename KT>
__global__ void __launch_bounds__(LKC_ATTN_THREADS) lkc_attn(const KT *kc, const KT *vc, const float *q, float *att, int H, int G, int d, const int *slot0, float scale, float softcap,
                         int window, int f16m, int n_ctx) {
    extern __shared__ float sm[];
    __shared__ float red[32];
    const int t = blockIdx.x / H, h = blockIdx.x % H, g = h / (H / G), row = G * d;
    const int qpos = *slot0 + t, lo = window > 0 && qpos - window + 1 > 0 ? qpos - window + 1 : 0, n = qpos - lo + 1;
    const int lane = threadIdx.x & 31, wid = threadIdx.x >> 5, nw = blockDim.x >> 5;
    float *qs = sm, *s = sm + d;
    float mx = -INFINITY, sum = 0.0f, inv;
    int i, j;
    for (i = threadIdx.x; i < d; i += blockDim.x) {
        const float v = q[((size_t)t * H + h) * d + i];
        qs[i] = f16m ? __half2float(__float2half_rn(v)) : v;
    }
    __syncthreads();
    for (j = wid; j < n; j += nw) {   /* a warp per key, lanes over d */
        const KT *kr = kc + (size_t)(lo + j) * row + (size_t)g * d;
        float dot = 0.0f;
        for (i = lane; i < d; i += 32) dot += qs[i] * lkc_fl(kr[i]);
        dot = lkc_wsum(dot);
        if (softcap > 0.0f) dot = softcap * tanhf(dot * (1.0f / softcap));   /* ggml: cap, then scale */
        if (lane == 0) s[j] = dot * scale;
    }
    __syncthreads();
    for (j = threadIdx.x; j < n; j += blockDim.x) mx = fmaxf(mx, s[j]);
    mx = lkc_bred(mx, red, 1);
    for (j = threadIdx.x; j < n; j += blockDim.x) { const float e = expf(s[j] - mx); s[j] = e; sum += e; }
    sum = lkc_bred(sum, red, 0);
    inv = 1.0f / sum;
    for (j = threadIdx.x; j < n; j += blockDim.x) {
        const float w = s[j] * inv;
        s[j] = f16m ? __half2float(__float2half_rn(w)) : w;
    }
    __syncthreads();
    {   /* out[i] = sum_j w_j v_j[i]: ngr groups of d threads take keys j = grp, grp + ngr, ...; their sums meet in order */
        const int ngr = d <= (int)blockDim.x ? (int)blockDim.x / d : 1, grp = threadIdx.x / d;
        float *part = s + n_ctx;   /* [ngr][d] */
        if (ngr > 1) {
            if (grp < ngr) {
                const int ii = threadIdx.x % d;
                const KT *vr = vc + (size_t)lo * row + (size_t)g * d + ii;
                float acc = 0.0f;
                for (j = grp; j < n; j += ngr) acc += s[j] * lkc_fl(vr[(size_t)j * row]);
                part[grp * d + ii] = acc;
            }
            __syncthreads();
            for (i = threadIdx.x; i < d; i += blockDim.x) {
                float acc = part[i];
                for (j = 1; j < ngr; j++) acc += part[j * d + i];
                att[((size_t)t * H + h) * d + i] = acc;
            }
        } else {
            for (i = threadIdx.x; i < d; i += blockDim.x) {
                const KT *vr = vc + (size_t)lo * row + (size_t)g * d + i;
                float acc = 0.0f;
                for (j = 0; j < n; j++) acc += s[j] * lkc_fl(vr[(size_t)j * row]);
                att[((size_t)t * H + h) * d + i] = acc;
            }
        }
    }
}

/* ---- the model on the GPU ------------------------------------------------------ */
typedef struct lkc_layer {
    const float *attn_norm, *attn_norm_b, *bq, *bk, *bv, *q_norm, *k_norm, *bo, *post_attn_norm;
    const float *ffn_norm, *ffn_norm_b, *b_up, *b_down, *post_ffw_norm;
    lkc_w wq, wk, wv, wo, gate, up, down;
    int window, rope;   /* rope: 0 = hp.rope, 1 = hp.rope_swa */
} lkc_layer;
struct lk_cuda_model {
    const lk_model *m;
    int dev;
    lkc_layer *L;                /* [n_layer]                                        */
    lkc_w tok_embd, output;
    const float *pos_embd, *out_norm, *out_norm_b;
    unsigned short *gelu_tab;    /* [65536] ggml's f16 GELU of every f16 (GELU / GeGLU) */
    void **allocs;               /* every cudaMalloc of the weights                  */
    int n_allocs, cap_allocs, n_converted;
    size_t bytes;
};

static lk_status lkc_alloc(lk_cuda_model *g, size_t n, void **out) {
    void *p = NULL;
    if (g->n_allocs == g->cap_allocs) {
        const int cap = g->cap_allocs ? 2 * g->cap_allocs : 64;
        void **a = (void **)realloc(g->allocs, sizeof(void *) * (size_t)cap);
        if (!a) return lk_set_error(LK_ERR_NOMEM, "cuda: out of host memory");
        g->allocs = a; g->cap_allocs = cap;
    }
    LKC_CHECK(cudaMalloc(&p, n ? n : 1), "cudaMalloc of the weights");
    g->allocs[g->n_allocs++] = p;
    g->bytes += n;
    *out = p;
    return LK_OK;
}
static lk_status lkc_up_vec(lk_cuda_model *g, const lk_tensor *t, const float **out) {
    void *p;
    lk_status st;
    size_t n;
    *out = NULL;
    if (!t->data) return LK_OK;
    if (t->type != LK_TYPE_F32) return lk_set_error(LK_ERR_UNSUPPORTED, "cuda: a 1-D tensor is %s, not f32", lk_type_name(t->type));
    n = (size_t)lk_tensor_nelements(t) * sizeof(float);
    if ((st = lkc_alloc(g, n, &p))) return st;
    LKC_CHECK(cudaMemcpy(p, t->data, n, cudaMemcpyHostToDevice), "copying a vector");
    *out = (const float *)p;
    return LK_OK;
}
/* A matrix (2-D weight or embedding table) as lkc_w. Interleaved
 * (LK_LAYOUT_R8) matrices are read in GGUF row order from the file, by name.
 * Types without a kernel become f16 rows (f32 when a value is beyond f16's
 * range), dequantized on the host by the type's to_float. */
static lk_status lkc_up_mat(lk_cuda_model *g, const lk_tensor *t0, const char *name, lkc_w *w) {
    lk_tensor view;
    const lk_tensor *t = t0;
    const int64_t K = t0->ne[0], N = t0->ne[1] * t0->ne[2] * t0->ne[3];
    void *p;
    lk_status st;
    memset(w, 0, sizeof *w);
    if (!t0->data) return LK_OK;
    if (t0->layout != LK_LAYOUT_ROWS) {
        const int64_t i = name && g->m ? lk_gguf_find_tensor(g->m->g, name) : -1;
        if (i < 0 || lk_gguf_tensor_view(g->m->g, i, &view) || view.type != t0->type || view.ne[0] != K)
            return lk_set_error(LK_ERR_UNSUPPORTED, "cuda: tensor %s has interleaved rows and its GGUF rows were not found", name ? name : "?");
        t = &view;
    }
    if (K <= 0 || N <= 0 || K > INT_MAX || N > INT_MAX) return lk_set_error(LK_ERR_RANGE, "cuda: tensor %s has a bad shape", name ? name : "?");
    w->n_in = (int)K; w->n_out = (int)N; w->aq = lkc_aq_of(t->type);
    if (lkc_has_kernel(t->type)) {
        const size_t rb = t->nb[1], n = rb * (size_t)N;
        if (rb != lk_row_size(t->type, K)) return lk_set_error(LK_ERR_UNSUPPORTED, "cuda: tensor %s is not contiguous", name ? name : "?");
        if ((st = lkc_alloc(g, n, &p))) return st;
        LKC_CHECK(cudaMemcpy(p, t->data, n, cudaMemcpyHostToDevice), "copying a matrix");
        w->type = t->type; w->d = (const unsigned char *)p; w->row_bytes = rb;
    } else {
        float *row = (float *)malloc(sizeof(float) * (size_t)K);
        unsigned char *buf;
        int64_t r, k;
        int f32 = 0;
        size_t es;
        if (!row) return lk_set_error(LK_ERR_NOMEM, "cuda: out of host memory");
        for (r = 0; r < N && !f32; r++) {
            if ((st = lk_dequantize_row(t->type, (const unsigned char *)t->data + (size_t)r * t->nb[1], row, K))) { free(row); return st; }
            for (k = 0; k < K; k++) if (!(fabsf(row[k]) < 65504.0f)) f32 = 1;
        }
        es = f32 ? 4 : 2;
        buf = (unsigned char *)malloc(es * (size_t)K * (size_t)N);
        if (!buf) { free(row); return lk_set_error(LK_ERR_NOMEM, "cuda: out of host memory converting %s", name ? name : "?"); }
        for (r = 0; r < N; r++) {
            lk_dequantize_row(t->type, (const unsigned char *)t->data + (size_t)r * t->nb[1], row, K);
            for (k = 0; k < K; k++) {
                if (f32) memcpy(buf + 4 * ((size_t)r * K + k), &row[k], 4);
                else { const uint16_t h = lk_fp32_to_fp16(row[k]); memcpy(buf + 2 * ((size_t)r * K + k), &h, 2); }
            }
        }
        free(row);
        st = lkc_alloc(g, es * (size_t)K * (size_t)N, &p);
        if (!st && cudaMemcpy(p, buf, es * (size_t)K * (size_t)N, cudaMemcpyHostToDevice) != cudaSuccess)
            st = lk_set_error(LK_ERR_IO, "cuda: copying the converted %s failed", name ? name : "?");
        free(buf);
        if (st) return st;
        w->type = f32 ? LK_TYPE_F32 : LK_TYPE_F16; w->d = (const unsigned char *)p; w->row_bytes = es * (size_t)K;
        g->n_converted++;
    }
    return LK_OK;
}
/* rows [r0, r0 + n) of w (fused Q|K|V or gate|up) */
static lkc_w lkc_rows(const lkc_w *w, int r0, int n) {
    lkc_w v = *w;
    v.d = w->d + (size_t)r0 * w->row_bytes; v.n_out = n;
    return v;
}

LKDEF int lk_cuda_available(void) {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) { cudaGetLastError(); return 0; }
    return n > 0;
}
LKDEF lk_status lk_cuda_device_name(int device, char *buf, size_t n) {
    cudaDeviceProp pr;
    if (!buf || !n) return lk_set_error(LK_ERR_INVALID_ARG, "lk_cuda_device_name: NULL buffer");
    buf[0] = 0;
    LKC_CHECK(cudaGetDeviceProperties(&pr, device), "cudaGetDeviceProperties");
    snprintf(buf, n, "%s", pr.name);
    return LK_OK;
}
LKDEF void lk_cuda_model_free(lk_cuda_model *g) {
    int i;
    if (!g) return;
    cudaSetDevice(g->dev);
    for (i = 0; i < g->n_allocs; i++) cudaFree(g->allocs[i]);
    free(g->allocs); free(g->L); free(g);
}
LKDEF size_t lk_cuda_model_bytes(const lk_cuda_model *g) { return g ? g->bytes : 0; }
LKDEF int lk_cuda_model_converted(const lk_cuda_model *g) { return g ? g->n_converted : 0; }

LKDEF lk_status lk_cuda_model_new(const lk_model *m, int device, lk_cuda_model **out) {
    const lk_hparams *hp;
    lk_cuda_model *g;
    lk_status st = LK_OK;
    int il, ndev = 0;
    char nm[96];
    if (!out) return lk_set_error(LK_ERR_INVALID_ARG, "lk_cuda_model_new: NULL out");
    *out = NULL;
    if (!m) return lk_set_error(LK_ERR_INVALID_ARG, "lk_cuda_model_new: NULL model");
    hp = &m->hp;
    if (hp->n_layer_rec > 0)   /* named before any device is looked for */
        return lk_set_error(LK_ERR_UNSUPPORTED, "cuda: recurrent layers (%s: %d of %d blocks, %s) run on the CPU only", lk_arch_name(hp->arch),
                            hp->n_layer_rec, hp->n_layer, lk__rec_kinds[m->ai->rec].name);
    if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev <= 0) { cudaGetLastError(); return lk_set_error(LK_ERR_UNSUPPORTED, "cuda: no CUDA device"); }
    if (device < 0 || device >= ndev) return lk_set_error(LK_ERR_RANGE, "cuda: device %d does not exist (%d present)", device, ndev);
    if (m->layers[0].sinks.data) return lk_set_error(LK_ERR_UNSUPPORTED, "cuda: attention sinks (%s) run on the CPU only", lk_arch_name(hp->arch));
    if (hp->n_lora_kv > 0)
        return lk_set_error(LK_ERR_UNSUPPORTED, "cuda: multi-head latent attention (%s, its latent KV cache) runs on the CPU only", lk_arch_name(hp->arch));
    for (il = 0; il < hp->n_layer; il++)   /* llama4's attention (lk__attn_kinds): named before its experts */
        if (m->layers[il].chunk || m->layers[il].kq_l2)
            return lk_set_error(LK_ERR_UNSUPPORTED, "cuda: %s (%s, block %d) runs on the CPU only",
                                m->layers[il].chunk ? "chunked attention" : "the L2 norm of q and k after RoPE", lk_arch_name(hp->arch), il);
    if (hp->n_expert > 0) return lk_set_error(LK_ERR_UNSUPPORTED, "cuda: mixture-of-experts models (%s) run on the CPU only", lk_arch_name(hp->arch));
    if (hp->head_dim_k != hp->head_dim_v) return lk_set_error(LK_ERR_UNSUPPORTED, "cuda: key and value head sizes differ (%d, %d)", hp->head_dim_k, hp->head_dim_v);
    if (m->output_b.data) return lk_set_error(LK_ERR_UNSUPPORTED, "cuda: output.bias runs on the CPU only");
    if (hp->n_layer_nextn > 0) return lk_set_error(LK_ERR_UNSUPPORTED, "cuda: nextn (multi-token prediction) blocks (%s) are loaded on the CPU only", lk_arch_name(hp->arch));
    if (hp->attn_temp_scale != 0.0f) return lk_set_error(LK_ERR_UNSUPPORTED, "cuda: attention temperature scaling (attention.temperature_scale) runs on the CPU only");
    /* gemma4's features the GPU graph does not have yet */
    for (il = 0; il < hp->n_layer; il++)   /* one head size, KV head count and FFN width on the GPU */
        if (m->layers[il].hd != hp->head_dim_k || m->layers[il].n_kv != hp->n_head_kv || m->layers[il].ff != hp->n_ff)
            return lk_set_error(LK_ERR_UNSUPPORTED, "cuda: per-layer head sizes, KV heads or FFN widths (%s, block %d: %d KV heads of %d, FFN %d) "
                                "run on the CPU only", lk_arch_name(hp->arch), il, m->layers[il].n_kv, m->layers[il].hd, m->layers[il].ff);
    if (hp->n_embd_per_layer > 0) return lk_set_error(LK_ERR_UNSUPPORTED, "cuda: per-layer embeddings (%s: embedding_length_per_layer_input) run on the CPU only", lk_arch_name(hp->arch));
    if (hp->n_layer_kv < hp->n_layer) return lk_set_error(LK_ERR_UNSUPPORTED, "cuda: shared KV layers (%s: attention.shared_kv_layers) run on the CPU only", lk_arch_name(hp->arch));
    if (m->ai->opt & LK__T_VNORM) return lk_set_error(LK_ERR_UNSUPPORTED, "cuda: the RMS-normed V of %s runs on the CPU only", lk_arch_name(hp->arch));
    for (il = 0; il < hp->n_layer; il++) {   /* the optional tensors the GPU graph does not have yet */
        const lk__layer *L = &m->layers[il];
        const char *what = L->sq.data || L->sk.data || L->sv.data || L->sqkv.data || L->so.data ? "attention weight scales (.scale)"
                         : L->s_gate.data || L->s_up.data || L->s_down.data ? "FFN weight scales (.scale)"
                         : L->b_gate.data ? "ffn_gate.bias" : L->wqkv.data && L->bq.data ? "q, k, v biases beside a fused attn_qkv"
                         : hp->rope.n_rot && !L->rope ? "layers without RoPE" : L->out_scale.data ? "layer_output_scale"
                         : !L->wv.data && !L->wqkv.data ? "V from the K projection (no attn_v)"
                         : !L->q_norm.data != !L->k_norm.data ? "a q or k norm alone (attn_q_norm / attn_k_norm)" : NULL;
        if (what) return lk_set_error(LK_ERR_UNSUPPORTED, "cuda: %s (block %d) run on the CPU only", what, il);
    }
    if (hp->n_layer < 1 || hp->n_head_kv <= 0 || hp->n_head % hp->n_head_kv || hp->head_dim_k % 2)
        return lk_set_error(LK_ERR_FORMAT, "cuda: n_layer %d, n_head %d, n_head_kv %d, head_dim %d", hp->n_layer, hp->n_head, hp->n_head_kv, hp->head_dim_k);
    LKC_CHECK(cudaSetDevice(device), "cudaSetDevice");
    g = (lk_cuda_model *)calloc(1, sizeof *g);
    if (!g || !(g->L = (lkc_layer *)calloc((size_t)hp->n_layer, sizeof(lkc_layer)))) { free(g); return lk_set_error(LK_ERR_NOMEM, "cuda: out of host memory"); }
    g->m = m; g->dev = device;
    if ((st = lkc_up_mat(g, &m->tok_embd, "token_embd.weight", &g->tok_embd))) goto fail;
    if (m->output.data == m->tok_embd.data && m->output.layout == m->tok_embd.layout) g->output = g->tok_embd;   /* tied */
    else if ((st = lkc_up_mat(g, &m->output, m->output.data == m->tok_embd.data ? "token_embd.weight" : "output.weight", &g->output))) goto fail;
    if ((st = lkc_up_vec(g, &m->pos_embd, &g->pos_embd)) || (st = lkc_up_vec(g, &m->output_norm, &g->out_norm)) ||
        (st = lkc_up_vec(g, &m->output_norm_b, &g->out_norm_b)))
        goto fail;
    for (il = 0; il < hp->n_layer; il++) {
        const lk__layer *L = &m->layers[il];
        lkc_layer *D = &g->L[il];
        const int nq = hp->n_head * hp->head_dim_k, nkv = hp->n_head_kv * hp->head_dim_k, F = hp->n_ff;
#define LKC_MAT(field, dst, gname) (snprintf(nm, sizeof nm, "blk.%d." gname ".weight", il), lkc_up_mat(g, &L->field, nm, dst))
        if ((st = lkc_up_vec(g, &L->attn_norm, &D->attn_norm)) || (st = lkc_up_vec(g, &L->attn_norm_b, &D->attn_norm_b)) ||
            (st = lkc_up_vec(g, &L->q_norm, &D->q_norm)) || (st = lkc_up_vec(g, &L->k_norm, &D->k_norm)) ||
            (st = lkc_up_vec(g, &L->bo, &D->bo)) || (st = lkc_up_vec(g, &L->post_attn_norm, &D->post_attn_norm)) ||
            (st = lkc_up_vec(g, &L->ffn_norm, &D->ffn_norm)) || (st = lkc_up_vec(g, &L->ffn_norm_b, &D->ffn_norm_b)) ||
            (st = lkc_up_vec(g, &L->b_up, &D->b_up)) || (st = lkc_up_vec(g, &L->b_down, &D->b_down)) ||
            (st = lkc_up_vec(g, &L->post_ffw_norm, &D->post_ffw_norm)) ||
            (st = LKC_MAT(wo, &D->wo, "attn_output")) || (st = LKC_MAT(ffn_down, &D->down, "ffn_down")))
            goto fail;
        if (L->wqkv.data) {   /* fused rows [Q | K | V] */
            lkc_w f;
            const float *b = NULL;
            if ((st = LKC_MAT(wqkv, &f, "attn_qkv")) || (st = lkc_up_vec(g, &L->bqkv, &b))) goto fail;
            D->wq = lkc_rows(&f, 0, nq); D->wk = lkc_rows(&f, nq, nkv); D->wv = lkc_rows(&f, nq + nkv, nkv);
            if (b) { D->bq = b; D->bk = b + nq; D->bv = b + nq + nkv; }
        } else if ((st = LKC_MAT(wq, &D->wq, "attn_q")) || (st = LKC_MAT(wk, &D->wk, "attn_k")) || (st = LKC_MAT(wv, &D->wv, "attn_v")) ||
                   (st = lkc_up_vec(g, &L->bq, &D->bq)) || (st = lkc_up_vec(g, &L->bk, &D->bk)) || (st = lkc_up_vec(g, &L->bv, &D->bv)))
            goto fail;
        if (m->ai->ffn == LK__FFN_SWIGLU_FUSED) {   /* up holds rows [gate | up] */
            lkc_w f;
            if ((st = LKC_MAT(ffn_up, &f, "ffn_up"))) goto fail;
            D->gate = lkc_rows(&f, 0, F); D->up = lkc_rows(&f, F, F);
        } else if ((st = LKC_MAT(ffn_up, &D->up, "ffn_up")) || (st = LKC_MAT(ffn_gate, &D->gate, "ffn_gate"))) goto fail;
#undef LKC_MAT
        D->window = L->window;
        D->rope = L->rope == &hp->rope_swa ? 1 : 0;
    }
    if (m->ai->ffn == LK__FFN_GEGLU || m->ai->ffn == LK__FFN_GELU) {
        unsigned short *tab = (unsigned short *)malloc(sizeof(unsigned short) * 65536);
        void *p;
        unsigned i;
        if (!tab) { st = lk_set_error(LK_ERR_NOMEM, "cuda: out of host memory"); goto fail; }
        for (i = 0; i < 65536; i++) tab[i] = lk_fp32_to_fp16(lk_gelu(lk_fp16_to_fp32((uint16_t)i)));
        st = lkc_alloc(g, sizeof(unsigned short) * 65536, &p);
        if (!st && cudaMemcpy(p, tab, sizeof(unsigned short) * 65536, cudaMemcpyHostToDevice) != cudaSuccess)
            st = lk_set_error(LK_ERR_IO, "cuda: copying the GELU table failed");
        free(tab);
        if (st) goto fail;
        g->gelu_tab = (unsigned short *)p;
    }
    *out = g;
    return LK_OK;
fail:
    lk_cuda_model_free(g);
    return st;
}

/* ---- contexts -------------------------------------------------------------------- */
struct lk_cuda_context {
    lk_cuda_model *g;
    lk_cuda_context_params p;
    int n_ctx, n_batch, n, smem;
    int call_n, n_logit_rows, logit_row0;   /* tokens of the last call; its index of logits row 0 */
    void *kc, *vc;                 /* [n_layer][n_ctx][G d] each                          */
    size_t es;                     /* bytes per cache element (2 or 4)                    */
    float *x, *xn, *xq, *xs, *q, *k, *v, *att, *o, *ff1, *ff2, *logits;   /* device activations */
    float *rope_tab[2];            /* [n_ctx, n_rot] cos, sin (hp.rope, hp.rope_swa)      */
    int *tok, *pos;                /* device: [n_batch] token ids, [1] the chunk's first position */
    int *h_io;                     /* pinned host: [n_batch] token ids, then the position  */
    float *logits_h;               /* pinned host [n_batch or 1][V]                       */
    cudaStream_t st;
    cudaGraphExec_t graph;         /* one decode step (T = 1) as a CUDA graph, or NULL     */
    int graph_failed;
    const float *aq_src; int aq_mode, aq_T, aq_K;   /* what xq holds                      */
    size_t bytes;
};
LKDEF lk_cuda_context_params lk_cuda_context_default_params(void) {
    lk_cuda_context_params p;
    memset(&p, 0, sizeof p);
    p.n_batch = 512; p.kv_type = LK_TYPE_F16;
    return p;
}
LKDEF void lk_cuda_context_free(lk_cuda_context *c) {
    if (!c) return;
    cudaSetDevice(c->g->dev);
    if (c->graph) cudaGraphExecDestroy(c->graph);
    if (c->st) cudaStreamDestroy(c->st);
    cudaFree(c->kc); cudaFree(c->vc); cudaFree(c->x); cudaFree(c->rope_tab[0]); cudaFree(c->rope_tab[1]); cudaFree(c->tok);
    cudaFreeHost(c->h_io); cudaFreeHost(c->logits_h);
    free(c);
}
LKDEF size_t lk_cuda_context_bytes(const lk_cuda_context *c) { return c ? c->bytes : 0; }
LKDEF int lk_cuda_context_n_tokens(const lk_cuda_context *c) { return c ? c->n : 0; }
LKDEF lk_status lk_cuda_context_truncate(lk_cuda_context *c, int n) {
    if (!c) return lk_set_error(LK_ERR_INVALID_ARG, "lk_cuda_context_truncate: NULL context");
    if (n < 0 || n > c->n) return lk_set_error(LK_ERR_RANGE, "lk_cuda_context_truncate: %d is outside [0, %d]", n, c->n);
    c->n = n; c->n_logit_rows = 0;
    return LK_OK;
}
/* The angles lk_rope_apply uses at every position, read off by rotating
 * (1, 0) pairs: tab [n_ctx][n_rot] = cos, sin of each pair. */
static lk_status lkc_rope_table(const lk_rope *r, int n_ctx, int d, float **out) {
    const int n_rot = r->n_rot < d ? r->n_rot : d, w = n_rot > 0 ? n_rot : 1;
    float *tab = (float *)calloc((size_t)n_ctx * (size_t)w, sizeof(float)), *v = (float *)malloc(sizeof(float) * (size_t)d);
    void *p = NULL;
    int pos, i;
    if (!tab || !v) { free(tab); free(v); return lk_set_error(LK_ERR_NOMEM, "cuda: out of host memory"); }
    for (pos = 0; pos < n_ctx && n_rot > 0; pos++) {
        memset(v, 0, sizeof(float) * (size_t)d);
        for (i = 0; i < n_rot / 2; i++) v[r->mode == LK_ROPE_NEOX ? i : 2 * i] = 1.0f;
        lk_rope_apply(r, v, 1, d, pos);
        for (i = 0; i < n_rot / 2; i++) {
            const int a = r->mode == LK_ROPE_NEOX ? i : 2 * i, b = r->mode == LK_ROPE_NEOX ? i + n_rot / 2 : 2 * i + 1;
            tab[(size_t)pos * n_rot + 2 * i] = v[a]; tab[(size_t)pos * n_rot + 2 * i + 1] = v[b];
        }
    }
    free(v);
    if (cudaMalloc(&p, sizeof(float) * (size_t)n_ctx * (size_t)w) != cudaSuccess ||
        cudaMemcpy(p, tab, sizeof(float) * (size_t)n_ctx * (size_t)w, cudaMemcpyHostToDevice) != cudaSuccess) {
        cudaGetLastError(); cudaFree(p); free(tab);
        return lk_set_error(LK_ERR_NOMEM, "cuda: the RoPE table (%d positions) does not fit", n_ctx);
    }
    free(tab);
    *out = (float *)p;
    return LK_OK;
}
LKDEF lk_status lk_cuda_context_new(lk_cuda_model *g, const lk_cuda_context_params *pp, lk_cuda_context **out) {
    lk_cuda_context_params p = pp ? *pp : lk_cuda_context_default_params();
    const lk_hparams *hp;
    lk_cuda_context *c;
    int B, E, H, G, d, F, V, maxsm = 0, wmax;
    size_t nf, kvn;
    lk_status st;
    if (!out) return lk_set_error(LK_ERR_INVALID_ARG, "lk_cuda_context_new: NULL out");
    *out = NULL;
    if (!g) return lk_set_error(LK_ERR_INVALID_ARG, "lk_cuda_context_new: NULL model");
    hp = &g->m->hp;
    if (p.kv_type != LK_TYPE_F16 && p.kv_type != LK_TYPE_F32)
        return lk_set_error(LK_ERR_UNSUPPORTED, "cuda: KV cache type %s (the GPU cache is f16 or f32)", lk_type_name(p.kv_type));
    if (p.n_ctx < 0 || p.n_batch < 0 || p.n_ctx > (1 << 24) || p.n_batch > (1 << 16))
        return lk_set_error(LK_ERR_RANGE, "cuda: n_ctx %d / n_batch %d out of range", p.n_ctx, p.n_batch);
    if (!p.n_ctx) p.n_ctx = hp->n_ctx_train > 0 && hp->n_ctx_train < 4096 ? hp->n_ctx_train : 4096;
    if (!p.n_batch) p.n_batch = 512;
    if (p.n_batch > p.n_ctx) p.n_batch = p.n_ctx;
    E = hp->n_embd; H = hp->n_head; G = hp->n_head_kv; d = hp->head_dim_k; F = hp->n_ff; V = hp->n_vocab; B = p.n_batch;
    LKC_CHECK(cudaSetDevice(g->dev), "cudaSetDevice");
    LKC_CHECK(cudaDeviceGetAttribute(&maxsm, cudaDevAttrMaxSharedMemoryPerBlockOptin, g->dev), "cudaDeviceGetAttribute");
    if ((size_t)(p.n_ctx + d + LKC_ATTN_THREADS) * sizeof(float) + 256 > (size_t)maxsm)
        return lk_set_error(LK_ERR_UNSUPPORTED, "cuda: n_ctx %d is beyond the attention kernel's limit on this GPU (%d positions)", p.n_ctx,
                            (int)(((size_t)maxsm - 256) / sizeof(float)) - d - LKC_ATTN_THREADS);
    c = (lk_cuda_context *)calloc(1, sizeof *c);
    if (!c) return lk_set_error(LK_ERR_NOMEM, "cuda: out of host memory");
    c->g = g; c->p = p; c->n_ctx = p.n_ctx; c->n_batch = B; c->es = p.kv_type == LK_TYPE_F16 ? 2 : 4;
    c->smem = (int)((size_t)(p.n_ctx + d + LKC_ATTN_THREADS) * sizeof(float));
    kvn = (size_t)hp->n_layer * (size_t)p.n_ctx * (size_t)G * (size_t)d * c->es;
    wmax = F > H * d ? F : H * d;
    if (wmax < E) wmax = E;
    /* x, xn, o [B, E]; xq [B, wmax]; xs [B, wmax / 32]; q, att [B, H d]; k, v [B, G d]; ff1, ff2 [B, F];
     * logits [B, V]; each starts at a multiple of 64 floats (the products read rows as float4) */
#define LKC_A64(n) (((size_t)(n) + 63) / 64 * 64)
    nf = 3 * LKC_A64((size_t)B * E) + LKC_A64((size_t)B * wmax) + LKC_A64((size_t)B * (wmax / 32 + 1)) + 2 * LKC_A64((size_t)B * H * d) +
         2 * LKC_A64((size_t)B * G * d) + 2 * LKC_A64((size_t)B * F) + LKC_A64((size_t)B * V);
    if (cudaMalloc(&c->kc, kvn) != cudaSuccess || cudaMalloc(&c->vc, kvn) != cudaSuccess || cudaMalloc((void **)&c->x, nf * sizeof(float)) != cudaSuccess ||
        cudaMalloc((void **)&c->tok, sizeof(int) * ((size_t)B + 1)) != cudaSuccess ||
        cudaMallocHost((void **)&c->h_io, sizeof(int) * ((size_t)B + 1)) != cudaSuccess ||
        cudaMallocHost((void **)&c->logits_h, sizeof(float) * (size_t)V * (size_t)(p.logits_all ? B : 1)) != cudaSuccess ||
        cudaStreamCreateWithFlags(&c->st, cudaStreamNonBlocking) != cudaSuccess) {
        cudaGetLastError();
        lk_cuda_context_free(c);
        return lk_set_error(LK_ERR_NOMEM, "cuda: the KV cache (%llu MiB) and activations do not fit in GPU memory", (unsigned long long)(2 * kvn >> 20));
    }
    c->pos = c->tok + B;
    c->xn = c->x + LKC_A64((size_t)B * E); c->o = c->xn + LKC_A64((size_t)B * E); c->xq = c->o + LKC_A64((size_t)B * E);
    c->xs = c->xq + LKC_A64((size_t)B * wmax); c->q = c->xs + LKC_A64((size_t)B * (wmax / 32 + 1));
    c->att = c->q + LKC_A64((size_t)B * H * d); c->k = c->att + LKC_A64((size_t)B * H * d);
    c->v = c->k + LKC_A64((size_t)B * G * d); c->ff1 = c->v + LKC_A64((size_t)B * G * d); c->ff2 = c->ff1 + LKC_A64((size_t)B * F);
    c->logits = c->ff2 + LKC_A64((size_t)B * F);
#undef LKC_A64
    c->bytes = 2 * kvn + nf * sizeof(float);
    if (hp->rope.n_rot &&
        ((st = lkc_rope_table(&hp->rope, p.n_ctx, d, &c->rope_tab[0])) || (st = lkc_rope_table(&hp->rope_swa, p.n_ctx, d, &c->rope_tab[1])))) {
        lk_cuda_context_free(c);
        return st;
    }
    if (cudaFuncSetAttribute(lkc_attn<__half>, cudaFuncAttributeMaxDynamicSharedMemorySize, c->smem) != cudaSuccess ||
        cudaFuncSetAttribute(lkc_attn<float>, cudaFuncAttributeMaxDynamicSharedMemorySize, c->smem) != cudaSuccess) {
        cudaGetLastError();
        lk_cuda_context_free(c);
        return lk_set_error(LK_ERR_UNSUPPORTED, "cuda: the attention kernel cannot have %d bytes of shared memory", c->smem);
    }
    *out = c;
    return LK_OK;
}

static unsigned lkc_blocks(long long n, int per) { return (unsigned)((n + per - 1) / per); }
/* y_i = W_i x' (+ b_i), i < n (<= LKC_MV_MAX, one type and row length), one
 * lkc_k_mv launch. It does not write c->xq, so the cached rounding is dropped
 * (a later "same" call must not take c->xq for this x). */
static lk_status lkc_mv_set(lk_cuda_context *c, int n, const lkc_w *const *w, const float *x, float *const *y, const float *const *b, int rpw) {
    lkc_mvset ms;
    int i, N = 0;
    memset(&ms, 0, sizeof ms);
    for (i = 0; i < n; i++) { ms.w[i] = w[i]->d; ms.y[i] = y[i]; ms.b[i] = b[i]; ms.n[i] = w[i]->n_out; N += w[i]->n_out; }
    c->aq_src = NULL;
    return lkc_mv_run(&ms, w[0], N, x, rpw, c->st);
}
/* y = W x' (+ b), x' = x rounded for W's type. same: x is unchanged since
 * the previous call (Q, K, V; gate, up), so its rounding may be reused. */
static lk_status lkc_matmul(lk_cuda_context *c, const lkc_w *w, const float *x, int T, float *y, const float *b, int same) {
    const float *xq = x;
    lk_status st;
    const int rpw = T == 1 ? lkc_mv_rpw(w->n_in, w->row_bytes) : 0;
    if (rpw) return lkc_mv_set(c, 1, &w, x, &y, &b, rpw);   /* decode: lkc_k_mv rounds x itself */
    if (w->aq != LKC_AQ_F32) {
        if (!(same && c->aq_src == x && c->aq_mode == w->aq && c->aq_T == T && c->aq_K == w->n_in)) {
            if ((st = lkc_actq_run(w->aq, x, c->xq, c->xs, T, w->n_in, c->st))) return st;
            c->aq_src = x; c->aq_mode = w->aq; c->aq_T = T; c->aq_K = w->n_in;
        }
        xq = c->xq;
    }
    return lkc_mm_run(w, xq, c->xs, T, y, b, c->st);
}
/* y_i = W_i x' (+ b_i), i < n, matrices reading the same x: one lkc_k_mv
 * launch when T == 1 and they share a type and row length that it takes,
 * else lkc_matmul each (x rounded once) */
static lk_status lkc_matmuls(lk_cuda_context *c, int n, const lkc_w *const *w, const float *x, int T, float *const *y, const float *const *b) {
    int i, rpw = T == 1 ? lkc_mv_rpw(w[0]->n_in, w[0]->row_bytes) : 0;
    lk_status st;
    for (i = 1; i < n; i++)
        if (w[i]->type != w[0]->type || w[i]->n_in != w[0]->n_in || w[i]->row_bytes != w[0]->row_bytes) rpw = 0;
    if (rpw && n <= LKC_MV_MAX) return lkc_mv_set(c, n, w, x, y, b, rpw);
    for (i = 0; i < n; i++)
        if ((st = lkc_matmul(c, w[i], x, T, y[i], b[i], i > 0))) return st;
    return LK_OK;
}
/* ln: the architecture's norm (RMSNorm or LayerNorm); else RMSNorm (q/k norms, post-norms) */
static void lkc_norm_rows(const lk_cuda_context *c, const float *x, float *y, const float *w, const float *b, int rows, int n, int ln) {
    lkc_norm<<<(unsigned)rows, 256, 0, c->st>>>(x, y, w, b, n, c->g->m->hp.norm_eps, ln && c->g->m->ai->layernorm);
}
/* One chunk of T tokens (in c->tok) at positions *c->pos .. *c->pos + T - 1,
 * as lk__forward, queued on c->st; logits of rows out_from .. T - 1 are
 * copied to c->logits_h (the caller synchronizes). Every argument but the
 * device buffers' contents is the same for every decode step, so a T = 1
 * step can be captured once as a CUDA graph and replayed. */
static lk_status lkc_forward(lk_cuda_context *c, int T, int out_from) {
    const lk_cuda_model *g = c->g;
    const lk_hparams *hp = &g->m->hp;
    const int E = hp->n_embd, H = hp->n_head, G = hp->n_head_kv, d = hp->head_dim_k, F = hp->n_ff, V = hp->n_vocab, n_out = T - out_from;
    const int ffn = g->m->ai->ffn;
    const long long TE = (long long)T * E, TF = (long long)T * F;
    cudaStream_t s = c->st;
    lk_status st;
    int il;
    if ((st = lkc_embed_run(&g->tok_embd, c->tok, T, hp->embd_scale, g->pos_embd, c->pos, c->x, s))) return st;
    lkc_norm_rows(c, c->x, c->xn, g->L[0].attn_norm, g->L[0].attn_norm_b, T, E, 1);
    for (il = 0; il < hp->n_layer; il++) {   /* xn = attn_norm(x) on entry */
        const lkc_layer *L = &g->L[il];
        const size_t lo = (size_t)il * c->n_ctx * G * d;
        const lk_rope *r = L->rope ? &hp->rope_swa : &hp->rope;
        const int n_rot = hp->rope.n_rot ? (r->n_rot < d ? r->n_rot : d) : 0, neox = r->mode == LK_ROPE_NEOX;
        const unsigned nb = lkc_blocks((long long)T * (H + G) * (d / 2), 256);
        {
            const lkc_w *w3[3] = { &L->wq, &L->wk, &L->wv };
            float *y3[3] = { c->q, c->k, c->v };
            const float *b3[3] = { L->bq, L->bk, L->bv };
            if ((st = lkc_matmuls(c, 3, w3, c->xn, T, y3, b3))) return st;
        }
        if (L->q_norm) { lkc_norm_rows(c, c->q, c->q, L->q_norm, NULL, T * H, d, 0); lkc_norm_rows(c, c->k, c->k, L->k_norm, NULL, T * G, d, 0); }
        /* RoPE on q, k (q *= q_scale after it), then k, v into the cache */
        if (c->es == 2) {
            lkc_rope_store<__half><<<nb, 256, 0, s>>>(c->q, c->k, c->v, (__half *)c->kc + lo, (__half *)c->vc + lo, T, H, G, d, n_rot, neox,
                                                     c->rope_tab[L->rope], c->pos, hp->q_scale);
            lkc_attn<__half><<<(unsigned)(T * H), LKC_ATTN_THREADS, c->smem, s>>>((const __half *)c->kc + lo, (const __half *)c->vc + lo, c->q, c->att, H, G, d, c->pos,
                                                                   hp->attn_scale, hp->attn_softcap, L->window, 1, c->n_ctx);
        } else {
            lkc_rope_store<float><<<nb, 256, 0, s>>>(c->q, c->k, c->v, (float *)c->kc + lo, (float *)c->vc + lo, T, H, G, d, n_rot, neox,
                                                    c->rope_tab[L->rope], c->pos, hp->q_scale);
            lkc_attn<float><<<(unsigned)(T * H), LKC_ATTN_THREADS, c->smem, s>>>((const float *)c->kc + lo, (const float *)c->vc + lo, c->q, c->att, H, G, d, c->pos,
                                                                  hp->attn_scale, hp->attn_softcap, L->window, 0, c->n_ctx);
        }
        LKC_CHECK(cudaGetLastError(), "attention launch");
        if ((st = lkc_matmul(c, &L->wo, c->att, T, c->o, L->bo, 0))) return st;
        if (L->post_attn_norm) lkc_norm_rows(c, c->o, c->o, L->post_attn_norm, NULL, T, E, 0);
        lkc_add_norm<<<(unsigned)T, 256, 0, s>>>(c->x, c->o, c->xn, L->ffn_norm, L->ffn_norm_b, E, hp->norm_eps, g->m->ai->layernorm);   /* x += o; xn = ffn_norm(x) */
        if (ffn == LK__FFN_GELU) {   /* h = gelu(up xn + b_up) */
            if ((st = lkc_matmul(c, &L->up, c->xn, T, c->ff2, L->b_up, 0))) return st;
            lkc_glu<<<lkc_blocks(TF, 256), 256, 0, s>>>(c->ff2, c->ff2, TF, 2, g->gelu_tab);
        } else {                     /* h = act(gate xn) * up xn */
            const lkc_w *w2[2] = { &L->gate, &L->up };
            float *y2[2] = { c->ff1, c->ff2 };
            const float *b2[2] = { NULL, NULL };
            if ((st = lkc_matmuls(c, 2, w2, c->xn, T, y2, b2))) return st;
            lkc_glu<<<lkc_blocks(TF, 256), 256, 0, s>>>(c->ff1, c->ff2, TF, ffn == LK__FFN_GEGLU ? 1 : 0, g->gelu_tab);
        }
        if ((st = lkc_matmul(c, &L->down, c->ff2, T, c->o, L->b_down, 0))) return st;
        if (L->post_ffw_norm) lkc_norm_rows(c, c->o, c->o, L->post_ffw_norm, NULL, T, E, 0);
        if (il + 1 < hp->n_layer)   /* x += o; xn = the next layer's attn_norm(x) */
            lkc_add_norm<<<(unsigned)T, 256, 0, s>>>(c->x, c->o, c->xn, g->L[il + 1].attn_norm, g->L[il + 1].attn_norm_b, E, hp->norm_eps, g->m->ai->layernorm);
        else lkc_add<<<lkc_blocks(TE, 256), 256, 0, s>>>(c->x, c->o, TE);
    }
    if (n_out <= 0) { LKC_CHECK(cudaGetLastError(), "forward launch"); return LK_OK; }
    lkc_norm_rows(c, c->x + (size_t)out_from * E, c->xn, g->out_norm, g->out_norm_b, n_out, E, 1);
    if ((st = lkc_matmul(c, &g->output, c->xn, n_out, c->logits, NULL, 0))) return st;
    if (hp->final_softcap > 0.0f) lkc_softcap<<<lkc_blocks((long long)n_out * V, 256), 256, 0, s>>>(c->logits, (long long)n_out * V, hp->final_softcap);
    LKC_CHECK(cudaGetLastError(), "forward launch");
    LKC_CHECK(cudaMemcpyAsync(c->logits_h, c->logits, sizeof(float) * (size_t)n_out * V, cudaMemcpyDeviceToHost, s), "forward (copying the logits)");
    return LK_OK;
}
/* One chunk: tokens and position from the pinned buffer to the GPU, the
 * forward pass (a replayed graph for single tokens with logits), wait. */
static lk_status lkc_chunk(lk_cuda_context *c, int T, int out_from) {
    lk_status st = LK_OK;
    cudaError_t e;
    if (T == 1 && out_from == 0 && !c->graph && !c->graph_failed && !c->p.no_graph) {   /* capture the decode step once */
        cudaGraph_t gr = NULL;
        c->graph_failed = 1;
        if (cudaStreamBeginCapture(c->st, cudaStreamCaptureModeThreadLocal) == cudaSuccess) {
            cudaMemcpyAsync(c->tok, c->h_io, sizeof(int), cudaMemcpyHostToDevice, c->st);
            cudaMemcpyAsync(c->pos, c->h_io + c->n_batch, sizeof(int), cudaMemcpyHostToDevice, c->st);
            c->aq_src = NULL;
            st = lkc_forward(c, 1, 0);
            if (cudaStreamEndCapture(c->st, &gr) == cudaSuccess && !st && cudaGraphInstantiate(&c->graph, gr, 0) == cudaSuccess) c->graph_failed = 0;
            else c->graph = NULL;
            if (gr) cudaGraphDestroy(gr);
        }
        cudaGetLastError();
        c->aq_src = NULL;
        st = LK_OK;
    }
    if (T == 1 && out_from == 0 && c->graph) {
        e = cudaGraphLaunch(c->graph, c->st);
        if (e != cudaSuccess) return lk_set_error(LK_ERR_IO, "cuda: decode step: %s", cudaGetErrorString(e));
    } else {
        LKC_CHECK(cudaMemcpyAsync(c->tok, c->h_io, sizeof(int) * (size_t)T, cudaMemcpyHostToDevice, c->st), "copying tokens");
        LKC_CHECK(cudaMemcpyAsync(c->pos, c->h_io + c->n_batch, sizeof(int), cudaMemcpyHostToDevice, c->st), "copying the position");
        c->aq_src = NULL;
        if ((st = lkc_forward(c, T, out_from))) { cudaStreamSynchronize(c->st); cudaGetLastError(); return st; }
    }
    e = cudaStreamSynchronize(c->st);
    if (e != cudaSuccess) return lk_set_error(LK_ERR_IO, "cuda: forward: %s", cudaGetErrorString(e));
    return LK_OK;
}
LKDEF lk_status lk_cuda_decode(lk_cuda_context *c, const lk_token *tokens, int n) {
    const lk_hparams *hp;
    int i, done = 0, n0;
    lk_status st;
    if (!c || !tokens) return lk_set_error(LK_ERR_INVALID_ARG, "lk_cuda_decode: NULL argument");
    hp = &c->g->m->hp;
    n0 = c->n;
    if (n <= 0) return lk_set_error(LK_ERR_INVALID_ARG, "lk_cuda_decode: %d tokens", n);
    if (n > c->n_ctx - c->n) return lk_set_error(LK_ERR_RANGE, "lk_cuda_decode: %d tokens after %d do not fit the context of %d", n, c->n, c->n_ctx);
    for (i = 0; i < n; i++)
        if (tokens[i] < 0 || tokens[i] >= hp->n_vocab)
            return lk_set_error(LK_ERR_RANGE, "lk_cuda_decode: token %d (index %d) is outside the vocabulary (%d)", tokens[i], i, hp->n_vocab);
    if (c->g->pos_embd && n0 + n > hp->n_ctx_train)
        return lk_set_error(LK_ERR_RANGE, "lk_cuda_decode: position %d is beyond the learned positions (%d)", n0 + n - 1, hp->n_ctx_train);
    LKC_CHECK(cudaSetDevice(c->g->dev), "cudaSetDevice");
    c->n_logit_rows = 0; c->call_n = n;
    while (done < n) {   /* chunks of n_batch; logits: the last token, or every token of the last chunk (logits_all) */
        const int T = n - done < c->n_batch ? n - done : c->n_batch;
        const int last = done + T == n;
        const int out_from = !last ? T : c->p.logits_all ? 0 : T - 1;
        memcpy(c->h_io, tokens + done, sizeof(int) * (size_t)T);   /* tokens, and at [n_batch] the position */
        c->h_io[c->n_batch] = c->n;
        if ((st = lkc_chunk(c, T, out_from))) { c->n = n0; return st; }
        if (last) { c->n_logit_rows = T - out_from; c->logit_row0 = done + out_from; }
        c->n += T; done += T;
    }
    {
        const size_t nv = (size_t)c->n_logit_rows * hp->n_vocab;
        size_t k;
        for (k = 0; k < nv; k++)
            if (!(c->logits_h[k] - c->logits_h[k] == 0.0f)) {
                c->n = n0; c->n_logit_rows = 0;
                return lk_set_error(LK_ERR_FORMAT, "lk_cuda_decode: the logits are not finite (vocabulary index %d): the weights or activations are not finite",
                                    (int)(k % (size_t)hp->n_vocab));
            }
    }
    return LK_OK;
}
LKDEF const float *lk_cuda_logits(const lk_cuda_context *c, int i) {
    if (!c || !c->n_logit_rows) return NULL;
    if (i < 0) i += c->call_n;
    i -= c->logit_row0;
    return i >= 0 && i < c->n_logit_rows ? c->logits_h + (size_t)i * c->g->m->hp.n_vocab : NULL;
}
LKDEF lk_status lk_cuda_matmul(const lk_tensor *W, const float *x, int64_t n_cols, float *y) {
    lk_cuda_model g;
    lk_cuda_context c;
    lkc_w w;
    float *dx = NULL, *dy = NULL, *dq = NULL, *ds = NULL;
    lk_status st;
    int i;
    if (!W || !x || !y || n_cols <= 0 || n_cols > 65535 * 16) return lk_set_error(LK_ERR_INVALID_ARG, "lk_cuda_matmul: bad argument");
    if (W->ne[2] != 1 || W->ne[3] != 1) return lk_set_error(LK_ERR_INVALID_ARG, "lk_cuda_matmul: W must be 2-D");
    if (!lk_cuda_available()) return lk_set_error(LK_ERR_UNSUPPORTED, "cuda: no CUDA device");
    memset(&g, 0, sizeof g); memset(&c, 0, sizeof c);
    if ((st = lkc_up_mat(&g, W, NULL, &w))) goto done;
    if (cudaMalloc((void **)&dx, sizeof(float) * (size_t)n_cols * w.n_in) != cudaSuccess ||
        cudaMalloc((void **)&dq, sizeof(float) * (size_t)n_cols * w.n_in) != cudaSuccess ||
        cudaMalloc((void **)&ds, sizeof(float) * ((size_t)n_cols * w.n_in / 32 + 1)) != cudaSuccess ||
        cudaMalloc((void **)&dy, sizeof(float) * (size_t)n_cols * w.n_out) != cudaSuccess) {
        cudaGetLastError(); st = lk_set_error(LK_ERR_NOMEM, "cuda: out of GPU memory"); goto done;
    }
    if (cudaMemcpy(dx, x, sizeof(float) * (size_t)n_cols * w.n_in, cudaMemcpyHostToDevice) != cudaSuccess) { st = lk_set_error(LK_ERR_IO, "cuda: copy failed"); goto done; }
    c.xq = dq; c.xs = ds; c.st = 0;
    if ((st = lkc_matmul(&c, &w, dx, (int)n_cols, dy, NULL, 0))) goto done;
    if (cudaMemcpy(y, dy, sizeof(float) * (size_t)n_cols * w.n_out, cudaMemcpyDeviceToHost) != cudaSuccess)
        st = lk_set_error(LK_ERR_IO, "cuda: %s", cudaGetErrorString(cudaGetLastError()));
done:
    cudaFree(dx); cudaFree(dy); cudaFree(dq); cudaFree(ds);
    for (i = 0; i < g.n_allocs; i++) cudaFree(g.allocs[i]);
    free(g.allocs);
    return st;
}
#endif /* __CUDACC__ */
#endif /* LLMKIT_IMPLEMENTATION */
