/* gen_quant_refs.c - reference data for the block types MXFP4, NVFP4, Q1_0 and
 * Q2_0, computed by ggml itself (llama.cpp 0c1e570's libggml), for
 * tests/test_quant_new.c. It links the libraries tools/llamacpp.sh builds:
 *
 *   L=~/.cache/llmkit/llama.cpp-0c1e570
 *   cc -O1 -std=c99 -I$L/ggml/include tools/gen_quant_refs.c -o /tmp/gen_quant_refs \
 *      -L$L/build/bin -lggml-cpu -lggml-base -lm -Wl,-rpath,$L/build/bin
 *   /tmp/gen_quant_refs > tests/data/quant_refs_new.txt
 *
 * Inputs (the test rebuilds them the same way): the xorshift64* generator
 * below, seeded per case; every float is an integer times a power of two,
 * so both sides get the same bits without a math library:
 *   weights  x[i] = (float)(int)(r >> 40 - 2^23) * 2^(s - 23), r the next
 *            PRNG word, s = row % 9 - 4 (rows of different magnitudes);
 *            block 1 of every row holds special values (zeros, a single
 *            large value, values at exact level midpoints, subnormals),
 *            see t_fill in the test: written out identically here.
 *   activations the same with s = 0, quantized to Q8_0 by ggml's CPU
 *            from_float.
 *   raw      random bytes as blocks (every scale byte, every code), for
 *            the dequantizers and dots over bit patterns a quantizer
 *            never writes; MXFP4 exponents are kept in 100..150 for the dots.
 * Output, one line per case (hashes: FNV-1a 64 over the bytes; floats as
 * their little-endian bits):
 *   case TYPE N ROWS qhash dqhash q8hash      quantize_chunk bytes, to_float of them, the q8_0 activations
 *   dot TYPE N ROW native generic            ggml_get_type_traits_cpu(t)->vec_dot and ggml's
 *                                             ggml_vec_dot_<t>_q8_0_generic, as %08x bits
 *   raw TYPE N dqhash native generic          random-byte blocks: to_float hash, dot bits
 *   hostile TYPE N qhash                      NaN / inf / huge / subnormal inputs (see t_hostile in the test)
 * Our code: written for llmkit; it uses ggml only through its public API
 * and the exported generic kernels. */
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "ggml.h"
#include "ggml-cpu.h"

typedef void (*dot_fn)(int n, float *s, size_t bs, const void *x, size_t bx, const void *y, size_t by, int nrc);
void ggml_vec_dot_mxfp4_q8_0_generic(int, float *, size_t, const void *, size_t, const void *, size_t, int);
void ggml_vec_dot_nvfp4_q8_0_generic(int, float *, size_t, const void *, size_t, const void *, size_t, int);
void ggml_vec_dot_q1_0_q8_0_generic(int, float *, size_t, const void *, size_t, const void *, size_t, int);
void ggml_vec_dot_q2_0_q8_0(int, float *, size_t, const void *, size_t, const void *, size_t, int);   /* x86: the generic one */

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

int main(void) {
    static const struct { enum ggml_type t; const char *name; dot_fn generic; int64_t n[4]; } cases[] = {
        { GGML_TYPE_MXFP4, "mxfp4", ggml_vec_dot_mxfp4_q8_0_generic, { 32, 96, 224, 4096 } },
        { GGML_TYPE_NVFP4, "nvfp4", ggml_vec_dot_nvfp4_q8_0_generic, { 64, 192, 448, 4096 } },
        { GGML_TYPE_Q1_0, "q1_0", ggml_vec_dot_q1_0_q8_0_generic, { 128, 384, 896, 4096 } },
        { GGML_TYPE_Q2_0, "q2_0", ggml_vec_dot_q2_0_q8_0, { 64, 192, 448, 4096 } },
    };
    const int rows = 8;
    int c, k, r;
    ggml_cpu_init();
    for (c = 0; c < 4; c++) {
        const struct ggml_type_traits_cpu *tc = ggml_get_type_traits_cpu(cases[c].t);
        const struct ggml_type_traits_cpu *t8 = ggml_get_type_traits_cpu(GGML_TYPE_Q8_0);
        const int64_t blk = ggml_blck_size(cases[c].t);
        for (k = 0; k < 4; k++) {
            const int64_t n = cases[c].n[k];
            const size_t rs = ggml_row_size(cases[c].t, n), as = ggml_row_size(GGML_TYPE_Q8_0, n);
            float *x = (float *)malloc(sizeof(float) * (size_t)n * rows), *y = (float *)malloc(sizeof(float) * (size_t)n * rows);
            unsigned char *q = (unsigned char *)malloc(rs * rows), *a = (unsigned char *)malloc(as * rows);
            uint64_t hq, hd = 14695981039346656037ull, ha = 14695981039346656037ull;
            float gn[8], gg[8];
            for (r = 0; r < rows; r++) {
                fill(x + (size_t)r * n, n, blk, r, 0x1234567ull * (uint64_t)(c * 16 + k * 4 + 1) + (uint64_t)r);
                g_rng = 0x9e3779b97f4a7c15ull ^ (uint64_t)(c * 64 + k * 8 + r);
                { int64_t i; for (i = 0; i < n; i++) y[(size_t)r * n + i] = rfloat(0); }
            }
            ggml_quantize_chunk(cases[c].t, x, q, 0, rows, n, NULL);
            hq = fnv(14695981039346656037ull, q, rs * rows);
            for (r = 0; r < rows; r++) {
                ggml_get_type_traits(cases[c].t)->to_float(q + (size_t)r * rs, x + (size_t)r * n, n);
                hd = fnv(hd, x + (size_t)r * n, sizeof(float) * (size_t)n);
                t8->from_float(y + (size_t)r * n, a + (size_t)r * as, n);
                ha = fnv(ha, a + (size_t)r * as, as);
                tc->vec_dot((int)n, &gn[r], 0, q + (size_t)r * rs, 0, a + (size_t)r * as, 0, 1);
                cases[c].generic((int)n, &gg[r], 0, q + (size_t)r * rs, 0, a + (size_t)r * as, 0, 1);
            }
            printf("case %s %lld %d %016llx %016llx %016llx\n", cases[c].name, (long long)n, rows,
                   (unsigned long long)hq, (unsigned long long)hd, (unsigned long long)ha);
            for (r = 0; r < rows; r++) printf("dot %s %lld %d %08x %08x\n", cases[c].name, (long long)n, r, bits(gn[r]), bits(gg[r]));
            /* raw bytes: row 0 of q as random blocks */
            {
                size_t i;
                float dn, dg;
                g_rng = 0xabcdef12345ull + (uint64_t)(c * 4 + k);
                for (i = 0; i < rs; i++) q[i] = (unsigned char)(rnd() >> 56);
                ggml_get_type_traits(cases[c].t)->to_float(q, x, n);
                hd = fnv(14695981039346656037ull, x, sizeof(float) * (size_t)n);
                if (cases[c].t == GGML_TYPE_MXFP4) for (i = 0; i < rs; i += 17) q[i] = (unsigned char)(100 + q[i] % 51);
                tc->vec_dot((int)n, &dn, 0, q, 0, a, 0, 1);
                cases[c].generic((int)n, &dg, 0, q, 0, a, 0, 1);
                printf("raw %s %lld %016llx %08x %08x\n", cases[c].name, (long long)n, (unsigned long long)hd, bits(dn), bits(dg));
            }
            hostile(x, n);
            ggml_quantize_chunk(cases[c].t, x, q, 0, 1, n, NULL);
            printf("hostile %s %lld %016llx\n", cases[c].name, (long long)n, (unsigned long long)fnv(14695981039346656037ull, q, rs));
            free(x); free(y); free(q); free(a);
        }
    }
    return 0;
}
