/* gen_quant_refs.c - reference data for the block types MXFP4, NVFP4, Q1_0 and
 * Q2_0, computed by ggml itself (llama.cpp 0c1e570's libggml), for
 * tests/test_quant_new.c. It loads the shared libraries tools/llamacpp.sh
 * builds (dlopen: this file builds alone, without ggml's headers):
 *
 *   make build/gen_quant_refs      (or: cc -O2 -I. tools/gen_quant_refs.c -o gen_quant_refs -lm)
 *   build/gen_quant_refs ~/.cache/llmkit/llama.cpp-0c1e570/build/bin > tests/data/quant_refs_new.txt
 *
 * Inputs (the test rebuilds them the same way): the xorshift64* generator
 * below, seeded per case; every float is an integer times a power of two,
 * so both sides get the same bits without a math library:
 *   weights  x[i] = (float)((r >> 40) - 2^23) * 2^(s - 23), r the next
 *            PRNG word, s = row % 9 - 4 (rows of different magnitudes);
 *            block 1 of every row holds special values (zeros, a single
 *            huge value, values at exact level midpoints, subnormals),
 *            fill below and t_fill in the test, written identically.
 *   activations the same with s = 0, quantized to Q8_0 by ggml's CPU
 *            quantize_row_q8_0 (what ggml's matmul runs on activations).
 *   raw      random bytes as blocks (every scale byte, every code), for
 *            the dequantizers and dots over bit patterns a quantizer
 *            never writes; MXFP4 exponents are kept in 100..150 for the dots.
 * Output, one line per case (hashes: FNV-1a 64 over the bytes, dequantized
 * floats with any NaN as 0x7fc00000; dot results as their bits, %08x):
 *   case TYPE N ROWS qhash dqhash q8hash      ggml_quantize_chunk's bytes, dequantize_row_TYPE of them, the q8_0 activations
 *   dot TYPE N ROW native generic            ggml_vec_dot_TYPE_q8_0 (the CPU type traits' vec_dot: AVX2 on x86)
 *                                             and ggml_vec_dot_TYPE_q8_0_generic (ggml's C kernel)
 *   raw TYPE N dqhash native generic          random-byte blocks: dequantized hash, dot bits
 *   hostile TYPE N qhash                      NaN / inf / 3e38 / subnormal inputs (hostile below)
 * Our code, written for llmkit: it calls ggml only through its exported
 * functions. */
#if !defined(_WIN32)
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#endif
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef void (*dot_fn)(int n, float *s, size_t bs, const void *x, size_t bx, const void *y, size_t by, int nrc);
typedef void (*row_fn)(const void *x, float *y, int64_t n);
typedef void (*q8_fn)(const float *x, void *y, int64_t n);
typedef size_t (*chunk_fn)(int type, const float *src, void *dst, int64_t start, int64_t nrows, int64_t n_per_row, const float *imatrix);
typedef void (*init_fn)(void);

#if !defined(_WIN32)
static void *sym(void *lib, const char *name) {
    void *p = dlsym(lib, name);
    if (!p) { fprintf(stderr, "gen_quant_refs: %s not found in libggml\n", name); exit(1); }
    return p;
}
#endif
static uint64_t g_rng;
static uint64_t rnd(void) { g_rng ^= g_rng >> 12; g_rng ^= g_rng << 25; g_rng ^= g_rng >> 27; return g_rng * 0x2545f4914f6cdd1dull; }
static float p2(int e) { float f = 1.0f; while (e > 0) { f *= 2.0f; e--; } while (e < 0) { f *= 0.5f; e++; } return f; }
static float rfloat(int s) { return (float)((int64_t)(rnd() >> 40) - (1 << 23)) * p2(s - 23); }
static uint64_t fnv(uint64_t h, const void *p, size_t n) {
    const unsigned char *c = (const unsigned char *)p;
    size_t i;
    for (i = 0; i < n; i++) { h ^= c[i]; h *= 1099511628211ull; }
    return h;
}
static uint32_t bits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
/* floats hashed with every NaN as 0x7fc00000: 0 * inf is NaN with the sign
 * bit set on x86 and clear on ARM */
static uint64_t fnvf(uint64_t h, const float *x, int64_t n) {
    int64_t i;
    for (i = 0; i < n; i++) { float f = x[i]; uint32_t u = 0x7fc00000u; if (f == f) memcpy(&u, &f, 4); h = fnv(h, &u, 4); }
    return h;
}

/* block 1 of a row (elements blk..2 blk-1) gets special values: byte-exact
 * twins of the test's t_fill */
static void fill(float *x, int64_t n, int64_t blk, int row, uint64_t seed) {
    int64_t i;
    g_rng = seed;
    for (i = 0; i < n; i++) x[i] = rfloat(row % 9 - 4);
    if (n >= 2 * blk) {
        float *b = x + blk;
        switch (row % 4) {
        case 0: for (i = 0; i < blk; i++) b[i] = 0.0f; break;                                  /* all zero */
        case 1: for (i = 0; i < blk; i++) b[i] = i == 3 ? 1e30f : 0.0f; break;               /* one huge, rest zero */
        case 2: for (i = 0; i < blk; i++) b[i] = (float)((int)(i % 13) - 6) * 0.25f; break;   /* exact levels and midpoints */
        default: for (i = 0; i < blk; i++) b[i] = (float)((int)(i % 7) - 3) * p2(-140); break; /* subnormal */
        }
    }
}
/* hostile inputs: the test's t_hostile */
static void hostile(float *x, int64_t n) {
    static const float v[8] = { 0.0f, -0.0f, 3.0e38f, -3.0e38f, 1e-45f, -2.5f, 7.0f, 1e-38f };
    int64_t i;
    const float inf = p2(127) * 4.0f, nan = inf - inf;
    for (i = 0; i < n; i++) x[i] = v[i % 8];
    for (i = 0; i < n; i += 37) x[i] = nan;
    for (i = 5; i < n; i += 53) x[i] = inf;
    for (i = 11; i < n; i += 59) x[i] = -inf;
}

int main(int argc, char **argv) {
#if defined(_WIN32)
    (void)argc; (void)argv;
    fprintf(stderr, "gen_quant_refs: needs dlopen (Linux or macOS)\n");
    return 1;
#else
    static const struct { int t; const char *name, *dq, *dot, *gen; int64_t blk; size_t bytes; int64_t n[4]; } cases[] = {
        { 39, "mxfp4", "dequantize_row_mxfp4", "ggml_vec_dot_mxfp4_q8_0", "ggml_vec_dot_mxfp4_q8_0_generic", 32, 17, { 32, 96, 224, 4096 } },
        { 40, "nvfp4", "dequantize_row_nvfp4", "ggml_vec_dot_nvfp4_q8_0", "ggml_vec_dot_nvfp4_q8_0_generic", 64, 36, { 64, 192, 448, 4096 } },
        { 41, "q1_0", "dequantize_row_q1_0", "ggml_vec_dot_q1_0_q8_0", "ggml_vec_dot_q1_0_q8_0_generic", 128, 18, { 128, 384, 896, 4096 } },
        { 42, "q2_0", "dequantize_row_q2_0", "ggml_vec_dot_q2_0_q8_0", "ggml_vec_dot_q2_0_q8_0", 64, 18, { 64, 192, 448, 4096 } },   /* x86: generic */
    };
    const int rows = 8;
    char path[4096];
    void *base, *cpu, *p;
    chunk_fn chunk;
    q8_fn q8;
    init_fn init;
    int c, k, r;
    if (argc != 2) { fprintf(stderr, "usage: gen_quant_refs LIBDIR   (llama.cpp 0c1e570's build/bin)\n"); return 2; }
    snprintf(path, sizeof path, "%s/libggml-base.so", argv[1]);
    base = dlopen(path, RTLD_NOW | RTLD_GLOBAL);
    snprintf(path, sizeof path, "%s/libggml-cpu.so", argv[1]);
    cpu = base ? dlopen(path, RTLD_NOW | RTLD_GLOBAL) : NULL;
    if (!cpu) { fprintf(stderr, "gen_quant_refs: %s\n", dlerror()); return 1; }
    p = sym(cpu, "ggml_cpu_init"); memcpy(&init, &p, sizeof p);
    p = sym(base, "ggml_quantize_chunk"); memcpy(&chunk, &p, sizeof p);
    p = sym(cpu, "quantize_row_q8_0"); memcpy(&q8, &p, sizeof p);
    init();
    for (c = 0; c < 4; c++) {
        row_fn dq;
        dot_fn dn, dg;
        const int64_t blk = cases[c].blk;
        p = sym(base, cases[c].dq); memcpy(&dq, &p, sizeof p);
        p = sym(cpu, cases[c].dot); memcpy(&dn, &p, sizeof p);
        p = sym(cpu, cases[c].gen); memcpy(&dg, &p, sizeof p);
        for (k = 0; k < 4; k++) {
            const int64_t n = cases[c].n[k];
            const size_t rs = (size_t)(n / blk) * cases[c].bytes, as = (size_t)(n / 32) * 34;
            float *x = (float *)malloc(sizeof(float) * (size_t)n * rows), *y = (float *)malloc(sizeof(float) * (size_t)n * rows);
            unsigned char *q = (unsigned char *)malloc(rs * rows), *a = (unsigned char *)malloc(as * rows);
            uint64_t hq, hd = 14695981039346656037ull, ha = 14695981039346656037ull;
            float gn[8], gg[8];
            for (r = 0; r < rows; r++) {
                int64_t i;
                fill(x + (size_t)r * n, n, blk, r, 0x1234567ull * (uint64_t)(c * 16 + k * 4 + 1) + (uint64_t)r);
                g_rng = 0x9e3779b97f4a7c15ull ^ (uint64_t)(c * 64 + k * 8 + r);
                for (i = 0; i < n; i++) y[(size_t)r * n + i] = rfloat(0);
            }
            chunk(cases[c].t, x, q, 0, rows, n, NULL);
            hq = fnv(14695981039346656037ull, q, rs * rows);
            for (r = 0; r < rows; r++) {
                dq(q + (size_t)r * rs, x + (size_t)r * n, n);
                hd = fnvf(hd, x + (size_t)r * n, n);
                q8(y + (size_t)r * n, a + (size_t)r * as, n);
                ha = fnv(ha, a + (size_t)r * as, as);
                dn((int)n, &gn[r], 0, q + (size_t)r * rs, 0, a + (size_t)r * as, 0, 1);
                dg((int)n, &gg[r], 0, q + (size_t)r * rs, 0, a + (size_t)r * as, 0, 1);
            }
            printf("case %s %lld %d %016llx %016llx %016llx\n", cases[c].name, (long long)n, rows,
                   (unsigned long long)hq, (unsigned long long)hd, (unsigned long long)ha);
            for (r = 0; r < rows; r++) printf("dot %s %lld %d %08x %08x\n", cases[c].name, (long long)n, r, (unsigned)bits(gn[r]), (unsigned)bits(gg[r]));
            {   /* raw bytes: row 0 of q as random blocks */
                size_t i;
                float sn, sg;
                g_rng = 0xabcdef12345ull + (uint64_t)(c * 4 + k);
                for (i = 0; i < rs; i++) q[i] = (unsigned char)(rnd() >> 56);
                dq(q, x, n);
                hd = fnvf(14695981039346656037ull, x, n);
                if (cases[c].t == 39) for (i = 0; i < rs; i += 17) q[i] = (unsigned char)(100 + q[i] % 51);
                dn((int)n, &sn, 0, q, 0, a, 0, 1);
                dg((int)n, &sg, 0, q, 0, a, 0, 1);
                printf("raw %s %lld %016llx %08x %08x\n", cases[c].name, (long long)n, (unsigned long long)hd, (unsigned)bits(sn), (unsigned)bits(sg));
            }
            hostile(x, n);
            chunk(cases[c].t, x, q, 0, 1, n, NULL);
            printf("hostile %s %lld %016llx\n", cases[c].name, (long long)n, (unsigned long long)fnv(14695981039346656037ull, q, rs));
            free(x); free(y); free(q); free(a);
        }
    }
    return 0;
#endif
}
