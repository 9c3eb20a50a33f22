/* lk-test: sanitize */
/* lk-test: neon */
/* test_simd.c - the SIMD kernels of llmkit.h section 14.7s against the scalar
 * references (the *_ref functions kept beside them).
 *
 * References: the scalar kernels, run on the same inputs.
 *   exact mode: random quants with all scales 1 and small activations, so
 *     every float operation is exact: SIMD and reference must be equal.
 *   real mode: quantized random data; q8_0, q4_1 and bf16 dots and the
 *     activation quantizers bit-identical, other dots within 1e-5 of
 *     sum |w_i a_i| (float rounding only).
 *   matmul: lk_matmul (tiled kernels) equals one vec_dot per element, for
 *     several column counts and 1 or 2 threads. */
#define LLMKIT_IMPLEMENTATION
#include "llmkit.h"
#include "tests/lk_test.h"
#include <math.h>

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint64_t rng_u64(void) {
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
static int rng_int(int lo, int hi) { return lo + (int)(rng_u64() % (uint64_t)(hi - lo + 1)); }
static float rng_f(void) { return (float)((double)(rng_u64() >> 11) * (2.0 / 9007199254740992.0) - 1.0); }

typedef void (*dot_fn)(int64_t, float *, const void *, const void *);
typedef struct { lk_type t; dot_fn ref; int exact; } tcase;
/* the x86 float kernels keep the reference's order (llama.cpp's x86 one);
 * the NEON ones sum in their own lanes */
#if defined(LK__X86)
#define FLT_EXACT 1
#else
#define FLT_EXACT 0
#endif
static const tcase kCases[] = {
    { LK_TYPE_F32, lk__vec_dot_f32_ref, FLT_EXACT },  { LK_TYPE_F16, lk__vec_dot_f16_ref, FLT_EXACT },
    { LK_TYPE_BF16, lk__vec_dot_bf16_ref, 1 }, { LK_TYPE_Q4_0, lk__vec_dot_q4_0_q8_0_ref, 0 },
    { LK_TYPE_Q4_1, lk__vec_dot_q4_1_q8_1_ref, 1 }, { LK_TYPE_Q5_0, lk__vec_dot_q5_0_q8_0_ref, 0 },
    { LK_TYPE_Q5_1, lk__vec_dot_q5_1_q8_1_ref, 0 }, { LK_TYPE_Q8_0, lk__vec_dot_q8_0_q8_0_ref, 1 },
    { LK_TYPE_Q2_K, lk__vec_dot_q2_K_q8_K_ref, 0 }, { LK_TYPE_Q3_K, lk__vec_dot_q3_K_q8_K_ref, 0 },
    { LK_TYPE_Q4_K, lk__vec_dot_q4_K_q8_K_ref, 0 }, { LK_TYPE_Q5_K, lk__vec_dot_q5_K_q8_K_ref, 0 },
    { LK_TYPE_Q6_K, lk__vec_dot_q6_K_q8_K_ref, 0 }, { LK_TYPE_IQ4_NL, lk__iq4_nl_vec_dot_ref, 0 },
    { LK_TYPE_IQ4_XS, lk__iq4_xs_vec_dot_ref, 0 },
    { LK_TYPE_MXFP4, lk__vec_dot_mxfp4_q8_0_ref, 0 }, { LK_TYPE_NVFP4, lk__vec_dot_nvfp4_q8_0_ref, 0 },
    { LK_TYPE_Q1_0, lk__vec_dot_q1_0_q8_0_ref, 0 }, { LK_TYPE_Q2_0, lk__vec_dot_q2_0_q8_0_ref, 1 },
};
#define N_CASES ((int)(sizeof kCases / sizeof kCases[0]))

static void put16(unsigned char *p, uint16_t v) { memcpy(p, &v, 2); }
/* reference activation quantizer for a vec_dot type */
static void act_ref(lk_type vt, const float *x, void *y, int64_t n) {
    if (vt == LK_TYPE_Q8_0) lk__act_quantize_q8_0_ref(x, y, n);
    else if (vt == LK_TYPE_Q8_1) lk__act_quantize_q8_1_ref(x, y, n);
    else if (vt == LK_TYPE_Q8_K) lk__quantize_row_q8_K_ref(x, y, n);
    else if (vt == LK_TYPE_F16) lk__from_float_f16_ref(x, y, n);
    else lk_type_get(vt)->from_float(x, y, n);
}

/* exact mode: weights with unit scales, activations in [-7, 7] with unit scale */
static void fill_exact(lk_type t, unsigned char *w, unsigned char *a, int64_t n) {
    const lk_type_traits *tt = lk_type_get(t);
    lk_type vt = tt->vec_dot_type;
    size_t ws = lk_row_size(t, n), as = lk_row_size(vt, n), i;
    int64_t b, nb = n / tt->blck_size, j;
    for (i = 0; i < ws; i++) w[i] = (unsigned char)rng_u64();
    if (t == LK_TYPE_F32 || t == LK_TYPE_F16 || t == LK_TYPE_BF16) {
        for (j = 0; j < n; j++) {
            float v = (float)rng_int(-8, 8), u = (float)rng_int(-8, 8);
            if (t == LK_TYPE_F32) { memcpy(w + 4 * j, &v, 4); memcpy(a + 4 * j, &u, 4); }
            else if (t == LK_TYPE_F16) { put16(w + 2 * j, lk_fp32_to_fp16(v)); put16(a + 2 * j, lk_fp32_to_fp16(u)); }
            else { put16(w + 2 * j, lk_fp32_to_bf16(v)); put16(a + 2 * j, lk_fp32_to_bf16(u)); }
        }
        return;
    }
    for (b = 0; b < nb; b++) {
        unsigned char *p = w + (size_t)b * tt->type_size;
        switch (t) {
        case LK_TYPE_Q4_1: case LK_TYPE_Q5_1: put16(p, 0x3C00); put16(p + 2, 0x3C00); break;
        case LK_TYPE_Q4_K: case LK_TYPE_Q5_K: put16(p, 0x3C00); put16(p + 2, 0x3C00); break;
        case LK_TYPE_Q2_K: put16(p + 80, 0x3C00); put16(p + 82, 0x3C00); break;
        case LK_TYPE_Q3_K: put16(p + 108, 0x3C00); break;
        case LK_TYPE_Q6_K: put16(p + 208, 0x3C00); break;
        case LK_TYPE_MXFP4: p[0] = 128; break;                  /* 2^(e-128) = 1 */
        case LK_TYPE_NVFP4: memset(p, 0x40, 4); break;            /* UE4M3 2, halved: 1 */
        default: put16(p, 0x3C00); break;     /* q4_0 q5_0 q8_0 iq4_nl iq4_xs: d first */
        }
    }
    memset(a, 0, as);
    if (vt == LK_TYPE_Q8_K) {
        for (b = 0; b < n / 256; b++) {
            lk_block_q8_K *y = (lk_block_q8_K *)(void *)(a + (size_t)b * sizeof(lk_block_q8_K));
            y->d = 1.0f;
            for (j = 0; j < 256; j++) y->qs[j] = (int8_t)rng_int(-7, 7);
            for (j = 0; j < 16; j++) { int s = 0, l; for (l = 0; l < 16; l++) s += y->qs[16 * j + l]; y->bsums[j] = (int16_t)s; }
        }
    } else {
        size_t bs = vt == LK_TYPE_Q8_1 ? 36 : 34;
        for (b = 0; b < n / 32; b++) {
            unsigned char *p = a + (size_t)b * bs;
            int s = 0;
            put16(p, 0x3C00);
            for (j = 0; j < 32; j++) { int8_t q = (int8_t)rng_int(-7, 7); s += q; p[bs - 32 + j] = (unsigned char)q; }
            if (vt == LK_TYPE_Q8_1) put16(p + 2, lk_fp32_to_fp16((float)s));
        }
    }
}

static double abs_dot(lk_type t, const void *w, const void *a, int64_t n, float *f1, float *f2) {
    const lk_type_traits *tt = lk_type_get(t), *vt = lk_type_get(tt->vec_dot_type);
    double s = 0;
    int64_t i;
    tt->to_float(w, f1, n);
    vt->to_float(a, f2, n);
    for (i = 0; i < n; i++) s += fabs((double)f1[i] * f2[i]);
    return s;
}

static void test_dots(void) {
    /* 172 and 200: rows that are not a multiple of 16 (ggml's vec_dot order) */
    static const int64_t lens[] = { 256, 512, 4096, 768 + 32, 172, 200 };
    int c, li, rep;
    for (c = 0; c < N_CASES; c++) {
        const tcase *tc = &kCases[c];
        const lk_type_traits *tt = lk_type_get(tc->t);
        char name[64];
        snprintf(name, sizeof name, "vec_dot %s", tt->name);
        lk_t_begin(name);
        for (li = 0; li < (int)(sizeof lens / sizeof lens[0]); li++) {
            int64_t n = lens[li];
            size_t ws, as;
            unsigned char *w, *a;
            float *xf, *f1, *f2;
            int64_t j;
            if (n % tt->blck_size) continue;
            ws = lk_row_size(tc->t, n); as = lk_row_size(tt->vec_dot_type, n);
            w = (unsigned char *)malloc(ws); a = (unsigned char *)malloc(as);
            xf = (float *)malloc(sizeof(float) * (size_t)n);
            f1 = (float *)malloc(sizeof(float) * (size_t)n); f2 = (float *)malloc(sizeof(float) * (size_t)n);
            for (rep = 0; rep < 6; rep++) {
                float r1 = 0, r2 = 0;
                /* exact mode */
                fill_exact(tc->t, w, a, n);
                tt->vec_dot(n, &r1, w, a);
                tc->ref(n, &r2, w, a);
                CHECK(r1 == r2, "%s n=%lld exact mode: simd %.9g ref %.9g", tt->name, (long long)n, r1, r2);
                /* real mode */
                for (j = 0; j < n; j++) xf[j] = rng_f() * (rep & 1 ? 3.0f : 0.05f);
                tt->from_float(xf, w, n);
                for (j = 0; j < n; j++) xf[j] = rng_f() * (rep & 2 ? 10.0f : 1.0f) * (j % 7 == 0 ? 4.0f : 1.0f);
                act_ref(tt->vec_dot_type, xf, a, n);
                tt->vec_dot(n, &r1, w, a);
                tc->ref(n, &r2, w, a);
                if (tc->exact) CHECK(memcmp(&r1, &r2, 4) == 0, "%s n=%lld: simd %.9g ref %.9g (must be bit-identical)", tt->name, (long long)n, r1, r2);
                else {
                    double S = abs_dot(tc->t, w, a, n, f1, f2);
                    CHECK(fabs((double)r1 - r2) <= 1e-5 * S + 1e-30, "%s n=%lld: simd %.9g ref %.9g (S %.3g)", tt->name, (long long)n, r1, r2, S);
                }
            }
            free(w); free(a); free(xf); free(f1); free(f2);
        }
        lk_t_end();
    }
}

static void test_act_quant(void) {
    static const lk_type vts[] = { LK_TYPE_Q8_0, LK_TYPE_Q8_1, LK_TYPE_Q8_K, LK_TYPE_F16 };
    int k, rep;
    int64_t n = 1024, j;
    float *x = (float *)malloc(sizeof(float) * (size_t)n);
    unsigned char *a = (unsigned char *)malloc(4096), *b = (unsigned char *)malloc(4096);
    for (k = 0; k < 4; k++) {
        char name[64];
        size_t as = lk_row_size(vts[k], n);
        snprintf(name, sizeof name, "activation quantizer %s", lk_type_name(vts[k]));
        lk_t_begin(name);
        for (rep = 0; rep < 40; rep++) {
            for (j = 0; j < n; j++) {
                float v = rng_f();
                switch (rep % 5) {
                case 0: x[j] = v * 10; break;
                case 1: x[j] = (float)rng_int(-300, 300) * 0.25f; break;        /* many ties */
                case 2: x[j] = (j / 32) % 3 == 0 ? 0.0f : v * 1e-3f; break;      /* zero blocks */
                case 3: x[j] = v * 70000.0f; break;                               /* f16 overflow */
                default: x[j] = v * 1e-6f; break;                                 /* f16 subnormals */
                }
            }
            if (rep % 5 == 1) { x[5] = 127.0f * 0.25f; x[37] = -127.0f * 0.25f; }
            memset(a, 0, as); memset(b, 0, as);
            act_ref(vts[k], x, a, n);
            if (vts[k] == LK_TYPE_Q8_0) lk__act_quantize_q8_0(x, b, n);
            else if (vts[k] == LK_TYPE_Q8_1) lk__act_quantize_q8_1(x, b, n);
            else lk_type_get(vts[k])->from_float(x, b, n);
            CHECK(memcmp(a, b, as) == 0, "rep %d: SIMD output differs from the reference", rep);
        }
        lk_t_end();
    }
    free(x); free(a); free(b);
}

/* The kernel table (14.7s), row by row: every type with a row has a
 * reference in kCases, and each kernel of the row, called as lk_matmul
 * calls it (tiles with the row's kind), equals that reference on every
 * output of exact-mode inputs (every float operation exact, so any order
 * gives the same bits): vec_dot, the LK__TR x LK__TC tile and the LK__TR x
 * 1 tile. A row that names another type's kernel, family or kind fails
 * here, whichever column it is in; a row with an interleaved layout must
 * be one of test_repack_r8's types (which checks its kernels). */
static void test_kernel_table(void) {
    static const lk_type r8_tested[] = { LK_TYPE_Q4_0, LK_TYPE_Q4_K, LK_TYPE_F16, LK_TYPE_MXFP4, LK_TYPE_Q8_0 };   /* test_repack_r8's types */
    static const int64_t lens[] = { 256, 512, 172 };
    int t, li, r, c, rows = 0, i;
    lk_t_begin("kernel table: every row's vec_dot and tiles = the type's scalar reference (exact mode)");
    for (t = 0; t < LK_TYPE_COUNT; t++) {
        const lk__kernels *k = lk__kernels_of((lk_type)t);
        const lk_type_traits *tt = lk_type_get((lk_type)t);
        const tcase *tc = NULL;
        if (!k->vec_dot && !k->tile && !k->tile1 && !k->r8.qk && !k->r8_simd) continue;
        rows++;
        for (i = 0; i < N_CASES; i++) if (kCases[i].t == (lk_type)t) tc = &kCases[i];
        CHECK(tt && tt->vec_dot, "type %d has a kernel-table row but no type-table dot", t);
        if (!tt || !tt->vec_dot) continue;
        CHECK(tc != NULL, "%s has a kernel-table row but no reference in this test (kCases)", tt->name);
        CHECK((k->tile == NULL) == (k->tile1 == NULL), "%s: one tile shape without the other", tt->name);
        CHECK(!k->dec || k->tile1, "%s: dec (decode runs the 1-column tile) without a 1-column tile", tt->name);
        if (k->r8.qk || k->r8_simd) {
            int tested = 0;
            for (i = 0; i < (int)(sizeof r8_tested / sizeof r8_tested[0]); i++) tested |= r8_tested[i] == (lk_type)t;
            CHECK(tested && k->r8.qk > 0 && k->r8.blk > 0 && k->r8.repack && k->r8.ref, "%s: an interleaved layout that test_repack_r8 does not cover, or an incomplete one",
                  tt->name);
        }
        if (!tc) continue;
        for (li = 0; li < (int)(sizeof lens / sizeof lens[0]); li++) {
            const int64_t n = lens[li];
            const lk_type vt = tt->vec_dot_type;
            size_t ws, as;
            unsigned char *w, *a, *wx, *ax;
            float ref[LK__TC][LK__TR], y[LK__TC * LK__TR], got;
            if (n % tt->blck_size || n % lk_type_get(vt)->blck_size) continue;
            ws = lk_row_size((lk_type)t, n); as = lk_row_size(vt, n);
            w = (unsigned char *)malloc(ws * LK__TR); a = (unsigned char *)malloc(as * LK__TC);
            wx = (unsigned char *)malloc(ws); ax = (unsigned char *)malloc(as);
            for (r = 0; r < LK__TR; r++) fill_exact((lk_type)t, w + (size_t)r * ws, ax, n);
            for (c = 0; c < LK__TC; c++) fill_exact((lk_type)t, wx, a + (size_t)c * as, n);
            for (r = 0; r < LK__TR; r++)
                for (c = 0; c < LK__TC; c++) tc->ref(n, &ref[c][r], w + (size_t)r * ws, a + (size_t)c * as);
            if (k->vec_dot)
                for (r = 0; r < LK__TR; r++)
                    for (c = 0; c < LK__TC; c++) {
                        k->vec_dot(n, &got, w + (size_t)r * ws, a + (size_t)c * as);
                        CHECK(memcmp(&got, &ref[c][r], 4) == 0, "%s n=%lld: vec_dot %.9g, reference %.9g", tt->name, (long long)n, got, ref[c][r]);
                    }
            if (k->tile) {
                memset(y, 0, sizeof y);
                k->tile(n, w, ws, a, as, y, LK__TR, k->kind);
                for (r = 0; r < LK__TR; r++)
                    for (c = 0; c < LK__TC; c++)
                        CHECK(memcmp(&y[c * LK__TR + r], &ref[c][r], 4) == 0, "%s n=%lld: tile row %d column %d %.9g, reference %.9g", tt->name, (long long)n, r, c,
                              y[c * LK__TR + r], ref[c][r]);
            }
            if (k->tile1) {
                memset(y, 0, sizeof y);
                k->tile1(n, w, ws, a, as, y, LK__TR, k->kind);
                for (r = 0; r < LK__TR; r++)
                    CHECK(memcmp(&y[r], &ref[0][r], 4) == 0, "%s n=%lld: 1-column tile row %d %.9g, reference %.9g", tt->name, (long long)n, r, y[r], ref[0][r]);
            }
            free(w); free(a); free(wx); free(ax);
        }
    }
    CHECK(rows >= 3, "%d rows (every build has at least the three interleaved layouts)", rows);
    lk_t_end();
}

/* MXFP4 at its extremes, where exact mode's scale 1 and activations within
 * +-7 do not reach: levels +-12 against Q8_0 quants +-127 (the largest
 * pair sums of the x86 kernels' unsigned-offset lanes), mixed signs, and
 * exponents 127..129 with activation scale 1 (every product and sum an
 * exact float: any order gives the reference's bits). vec_dot and
 * lk_matmul of 1 column (decode: the kernel table's dec tile where the row
 * has one) and 5 columns against lk__vec_dot_mxfp4_q8_0_ref per element;
 * on x86 also every E8M0 byte's scale from lk__e8m0_half_bits against
 * lk__e8m0_half. */
static void test_mxfp4_extremes(void) {
    enum { N_IN = 32 * 33, N_OUT = 11, NC = 5 };
    static unsigned char w[N_OUT * (N_IN / 32) * 17], aq[NC * (N_IN / 32) * 34];
    static float x[NC * N_IN], y1[NC * N_OUT], y2[NC * N_OUT];
    int64_t ne[2] = { N_IN, N_OUT };
    const size_t ws = (N_IN / 32) * 17, as = (N_IN / 32) * 34;
    size_t scr_n = lk_matmul_scratch_size(LK_TYPE_MXFP4, N_IN, NC);
    unsigned char *scr = (unsigned char *)malloc(scr_n ? scr_n : 1);
    lk_tensor W;
    int r, c, j, b, mode, nc;
    lk_t_begin("mxfp4 extremes: levels +-12 x quants +-127, exponents 127..129 = reference (vec_dot, matmul 1 and 5 columns)");
#if defined(LK__X86)
    for (j = 0; j < 256; j++) {
        const float f = lk__e8m0_half((unsigned)j);
        CHECK(memcmp(&lk__e8m0_half_bits[j], &f, 4) == 0, "E8M0 %d: table %08x, lk__e8m0_half %a", j, (unsigned)lk__e8m0_half_bits[j], f);
    }
#endif
    for (mode = 0; mode < 3; mode++) {
        for (r = 0; r < N_OUT; r++)
            for (b = 0; b < N_IN / 32; b++) {
                unsigned char *p = w + (size_t)r * ws + (size_t)b * 17;
                p[0] = (unsigned char)(mode == 2 ? rng_int(127, 129) : 128);
                for (j = 0; j < 16; j++)   /* codes 7 (+12) and 15 (-12); mode 1: any code */
                    p[1 + j] = mode == 1 ? (unsigned char)rng_u64() : (unsigned char)((rng_int(0, 1) ? 0x07 : 0x0f) | (rng_int(0, 1) ? 0x70 : 0xf0));
            }
        ne[0] = N_IN; ne[1] = N_OUT;
        CHECK_OK(lk_tensor_init(&W, LK_TYPE_MXFP4, 2, ne, w));
        for (c = 0; c < NC; c++)   /* activations whose Q8_0 quants are +-127 (mode 0: all of one sign per block) */
            for (j = 0; j < N_IN; j++) x[c * N_IN + j] = mode == 0 ? ((j / 32 + c) % 2 ? -1.0f : 1.0f) : (rng_int(0, 1) ? 1.0f : -1.0f);
        for (c = 0; c < NC; c++) {
            lk__act_quantize_q8_0(x + c * N_IN, aq + (size_t)c * as, N_IN);
            for (r = 0; r < N_OUT; r++) {
                float got;
                lk__vec_dot_mxfp4_q8_0_ref(N_IN, &y1[c * N_OUT + r], w + (size_t)r * ws, aq + (size_t)c * as);
                lk_type_get(LK_TYPE_MXFP4)->vec_dot(N_IN, &got, w + (size_t)r * ws, aq + (size_t)c * as);
                CHECK(memcmp(&got, &y1[c * N_OUT + r], 4) == 0, "mode %d row %d column %d: vec_dot %a, reference %a", mode, r, c, got, y1[c * N_OUT + r]);
            }
        }
        for (nc = 1; nc <= NC; nc += NC - 1) {
            lk_threads T;
            memset(&T, 0, sizeof T); T.n_threads = 1;
            memset(y2, 0, sizeof y2);
            CHECK_OK(lk_matmul(&W, x, nc, y2, scr, scr_n, &T));
            CHECK(memcmp(y1, y2, sizeof(float) * (size_t)N_OUT * nc) == 0, "mode %d, %d columns: lk_matmul differs from the reference", mode, nc);
        }
    }
    free(scr);
    lk_t_end();
}

/* lk_matmul (tiled for prefill) against one vec_dot per output element */
/* bf16 matmul where the FPU's flush modes could differ from the reference:
 * denormal inputs, a sum FLT_MIN - 2^-150 (tiny before rounding to the
 * denormal grid, FLT_MIN after: the FPU flushes it, the reference keeps it,
 * so the kernel must notice the underflow flag) and sums that cancel into
 * the denormal range. Tiles of every shape, 1 and 2
 * threads, against lk__vec_dot_bf16_ref per element. */
static void test_bf16_tiny(void) {
    enum { N_IN = 256, N_OUT = 13, NC = 5 };
    static unsigned char w[N_OUT * N_IN * 2], aq[NC * N_IN * 2];
    static float x[NC * N_IN], y1[NC * N_OUT], y2[NC * N_OUT];
    int64_t ne[2] = { N_IN, N_OUT };
    size_t scr_n = lk_matmul_scratch_size(LK_TYPE_BF16, N_IN, NC);
    unsigned char *scr = (unsigned char *)malloc(scr_n ? scr_n : 1);
    lk_tensor W;
    int r, c, j, th, nc, mode;
    lk_t_begin("bf16 matmul with denormals and tiny products = reference");
    for (mode = 0; mode < 3; mode++) {
        for (r = 0; r < N_OUT; r++)
            for (j = 0; j < N_IN; j++) {
                float v = rng_f();
                if (mode == 0 && r % 3 == 1 && j % 7 == 0) v = 3e-39f * (j % 2 ? 1.0f : -1.0f);   /* denormal weights */
                if (mode == 1 && r % 2 == 0) v = (j % 2) ? 1.0f : -ldexpf(1.0f, -75 + r % 3);         /* FLT_MIN - 2^-150: tiny only if rounded */
                if (mode == 2 && r == 5) v = (j < 2) ? (j ? -1.5e-38f : 1.2e-38f) : 0.0f;           /* a sum that cancels */
                put16(w + ((size_t)r * N_IN + j) * 2, lk_fp32_to_bf16(v));
            }
        for (j = 0; j < NC * N_IN; j++) x[j] = mode == 1 ? ((j % 2) ? ldexpf(1.0f, -126) : ldexpf(1.0f, -75)) : mode == 2 ? 1.0f : rng_f();
        CHECK_OK(lk_tensor_init(&W, LK_TYPE_BF16, 2, ne, w));
        for (c = 0; c < NC; c++) {
            lk_type_get(LK_TYPE_BF16)->from_float(x + c * N_IN, aq + (size_t)c * N_IN * 2, N_IN);
            for (r = 0; r < N_OUT; r++) lk__vec_dot_bf16_ref(N_IN, &y1[c * N_OUT + r], w + (size_t)r * N_IN * 2, aq + (size_t)c * N_IN * 2);
        }
        for (nc = 1; nc <= NC; nc++)
            for (th = 1; th <= 2; th++) {
                lk_threads T;
                memset(&T, 0, sizeof T); T.n_threads = th;
                CHECK_OK(lk_matmul(&W, x, nc, y2, scr, scr_n, &T));
                CHECK(memcmp(y1, y2, sizeof(float) * (size_t)N_OUT * nc) == 0, "case %d, %d columns, %d threads: differs from the reference", mode, nc, th);
            }
    }
    {   /* the reference against what vdpbf16ps gave on an AMD EPYC (AVX512-BF16) for one lane:
         * 1 * 2^-126 (element 1, first) then w0 * x0: a result tiny after rounding with an
         * unbounded exponent is flushed, one that rounds up to FLT_MIN is kept */
        static const float w0[5] = { -0x1p-75f, -0x1p-76f, -0x1p-76f, -0x3p-77f, -0x1p-75f }, x0[5] = { 0x1p-75f, 0x1p-75f, 0x1p-76f, 0x1p-75f, 0x1p-75f };
        static const float x1[5] = { 0x1p-126f, 0x1p-126f, 0x1p-126f, 0x1p-126f, 0x1p-125f };
        static const float want[5] = { 0.0f, 0x1p-126f, 0x1p-126f, 0.0f, 0x1p-125f };   /* FLT_MIN - 2^-150, - 2^-151, - 2^-152, - 3 2^-152; 2 FLT_MIN - 2^-150 */
        unsigned char wr[64], xr[64];
        float got;
        for (mode = 0; mode < 5; mode++) {
            memset(wr, 0, sizeof wr); memset(xr, 0, sizeof xr);
            put16(wr, lk_fp32_to_bf16(w0[mode])); put16(xr, lk_fp32_to_bf16(x0[mode]));
            put16(wr + 2, lk_fp32_to_bf16(1.0f)); put16(xr + 2, lk_fp32_to_bf16(x1[mode]));
            lk__vec_dot_bf16_ref(32, &got, wr, xr);
            CHECK(memcmp(&got, &want[mode], sizeof got) == 0, "instruction case %d: reference %a, the instruction gave %a", mode, got, want[mode]);
            lk__vec_dot_bf16(32, &got, wr, xr);
            CHECK(memcmp(&got, &want[mode], sizeof got) == 0, "instruction case %d: vec_dot %a, the instruction gave %a", mode, got, want[mode]);
        }
    }
    free(scr);
    lk_t_end();
}

static void test_matmul(void) {
    static const lk_type types[] = { LK_TYPE_Q4_0, LK_TYPE_Q8_0, LK_TYPE_Q4_K, LK_TYPE_Q6_K, LK_TYPE_Q5_K, LK_TYPE_Q5_0, LK_TYPE_Q4_1,
                                     LK_TYPE_Q5_1, LK_TYPE_Q3_K, LK_TYPE_Q2_K, LK_TYPE_IQ4_NL, LK_TYPE_IQ4_XS, LK_TYPE_F16, LK_TYPE_F32, LK_TYPE_BF16,
                                     LK_TYPE_MXFP4 };
    static const int cols[] = { 1, 2, 3, 4, 5, 8, 13, 16, 33 };
    int64_t n_in = 512;
    const int64_t n_out = 45;
    size_t k;
    const size_t nt = sizeof types / sizeof types[0];
    for (k = 0; k < nt + 8; k++) {
        /* then f32 and f16 with 172-wide rows (stories260K's FFN), a tail after the 16-lane chunks, and
         * with 64-wide rows (its attention): decode runs both through the 4-row tiles; then f16, bf16
         * and f32 rows of the 1.1B shapes' length class (2,080 and 1,056: many 16- and 32-element
         * steps, rows that leave L1); last mxfp4 with 33 blocks a row (its tiles' odd last block) */
        static const lk_type longt[3] = { LK_TYPE_F16, LK_TYPE_BF16, LK_TYPE_F32 };
        lk_type t = k < nt ? types[k] : k < nt + 4 ? ((k - nt) % 2 == 0 ? LK_TYPE_F32 : LK_TYPE_F16) : k < nt + 7 ? longt[k - nt - 4] : LK_TYPE_MXFP4;
        const lk_type_traits *tt = lk_type_get(t);
        lk_type vt = tt->vec_dot_type;
        size_t ws = lk_row_size(t, n_in), as = lk_row_size(vt, n_in), scr_n;
        int64_t ne[2], j, r, c;
        unsigned char *w, *aq, *scr;
        float *xf, *x, *y1, *y2;
        lk_tensor W;
        char name[64];
        int ci;
        n_in = k < nt ? 512 : k < nt + 2 ? 172 : k < nt + 4 ? 64 : k == nt + 7 || t == LK_TYPE_F32 ? 1056 : 2080;
        ws = lk_row_size(t, n_in); as = lk_row_size(vt, n_in);
        snprintf(name, sizeof name, "matmul tiles %s n_in %d", tt->name, (int)n_in);
        lk_t_begin(name);
        w = (unsigned char *)malloc(ws * (size_t)n_out);
        xf = (float *)malloc(sizeof(float) * (size_t)n_in);
        x = (float *)malloc(sizeof(float) * (size_t)n_in * 33);
        y1 = (float *)malloc(sizeof(float) * (size_t)n_out * 33);
        y2 = (float *)malloc(sizeof(float) * (size_t)n_out * 33);
        aq = (unsigned char *)malloc(as * 33);
        scr_n = lk_matmul_scratch_size(t, n_in, 33);
        scr = (unsigned char *)malloc(scr_n ? scr_n : 1);
        for (r = 0; r < n_out; r++) {
            for (j = 0; j < n_in; j++) xf[j] = rng_f() * (float)(1 + r % 3);
            tt->from_float(xf, w + (size_t)r * ws, n_in);
        }
        for (j = 0; j < n_in * 33; j++) x[j] = rng_f() * (j % 11 == 0 ? 5.0f : 1.0f);
        ne[0] = n_in; ne[1] = n_out;
        CHECK_OK(lk_tensor_init(&W, t, 2, ne, w));
        for (ci = 0; ci < (int)(sizeof cols / sizeof cols[0]); ci++) {
            int nc = cols[ci], th;
            for (c = 0; c < nc; c++) {
                if (vt == LK_TYPE_F32) memcpy(aq + (size_t)c * as, x + c * n_in, as);
                else if (vt == LK_TYPE_Q8_0) lk__act_quantize_q8_0(x + c * n_in, aq + (size_t)c * as, n_in);
                else if (vt == LK_TYPE_Q8_1) lk__act_quantize_q8_1(x + c * n_in, aq + (size_t)c * as, n_in);
                else lk_type_get(vt)->from_float(x + c * n_in, aq + (size_t)c * as, n_in);
                for (r = 0; r < n_out; r++) tt->vec_dot(n_in, &y1[c * n_out + r], w + (size_t)r * ws, aq + (size_t)c * as);
            }
            for (th = 1; th <= 2; th++) {
                lk_threads T;
                memset(&T, 0, sizeof T); T.n_threads = th;
                memset(y2, 0, sizeof(float) * (size_t)n_out * nc);
                CHECK_OK(lk_matmul(&W, x, nc, y2, scr, scr_n, &T));
                CHECK(memcmp(y1, y2, sizeof(float) * (size_t)n_out * nc) == 0, "%d columns, %d threads: differs from vec_dot", nc, th);
            }
        }
        free(w); free(xf); free(x); free(y1); free(y2); free(aq); free(scr);
        lk_t_end();
    }
}

/* Interleaved rows (LK_LAYOUT_R8, 14.7r): lk_repack_r8 then lk_matmul
 * against the scalar references lk__r8_<type>_ref (their own summation
 * order), bit for bit, for column counts 1..70 and 1 or 2 threads (so the
 * result is independent of both); against the row layout within float
 * rounding (f16, whose layout keeps the rows' order: bit for bit, except
 * on NEON, whose f16 rows have other lanes; mxfp4, which keeps the x86
 * dot's order: bit for bit on x86); and the refusals (row count,
 * f16 row length, type, overlap, bad layout). */
/* mxfp4's interleaved layout read back by its description (14.7r), not by
 * llmkit's code: block i of row r of group g is at position i / 2 (even i),
 * np + i / 2 (odd i < 2 np), or 2 np (an odd nb's last block), np = nb / 2;
 * a position holds the rows' 8 exponents then their 16 nibble bytes each.
 * The round trip must give the rows' bytes back, and the group reference
 * must equal the type's dot of each row (within rounding; bit for bit on
 * x86, whose dot sums in the layout's order). */
static void check_mxfp4_r8_layout(const unsigned char *w, size_t ws, int64_t n_in, int64_t n_out, const unsigned char *w8, size_t rsz) {
    const int64_t nb = n_in / 32, np = nb / 2;
    const size_t gb = rsz / (size_t)(n_out / 8);
    unsigned char *back = (unsigned char *)malloc(ws * (size_t)n_out), *aq = (unsigned char *)malloc((size_t)nb * 34);
    float *x = (float *)malloc(sizeof(float) * (size_t)n_in);
    int64_t g, i, j;
    int r, bad = 0;
    CHECK(gb == (size_t)nb * 136 && rsz == ws * (size_t)n_out, "mxfp4 r8: %zu bytes per group, %zu in all", gb, rsz);
    for (g = 0; g < n_out / 8; g++)
        for (i = 0; i < nb; i++) {
            const int64_t p = i % 2 == 0 ? (i / 2 < np ? i / 2 : 2 * np) : np + i / 2;
            const unsigned char *b = w8 + (size_t)g * gb + (size_t)p * 136;
            for (r = 0; r < 8; r++) {
                unsigned char *o = back + (size_t)(8 * g + r) * ws + (size_t)i * 17;
                o[0] = b[r];
                memcpy(o + 1, b + 8 + 16 * r, 16);
            }
        }
    CHECK(memcmp(back, w, ws * (size_t)n_out) == 0, "mxfp4 r8 [%d x %d]: the layout read back differs from the rows", (int)n_in, (int)n_out);
    for (j = 0; j < n_in; j++) x[j] = rng_f() * (j % 11 == 0 ? 6.0f : 1.0f);
    lk__act_quantize_q8_0(x, aq, n_in);
    for (g = 0; g < n_out / 8; g++) {
        float yg[8], yd;
        lk__r8_mxfp4_ref(n_in, w8 + (size_t)g * gb, aq, yg);
        for (r = 0; r < 8; r++) {
            lk_type_get(LK_TYPE_MXFP4)->vec_dot(n_in, &yd, w + (size_t)(8 * g + r) * ws, aq);
#if defined(LK__X86)
            bad += memcmp(&yd, &yg[r], 4) != 0;
#else
            bad += fabsf(yd - yg[r]) > 1e-5f * (fabsf(yd) + 1.0f);
#endif
        }
    }
    CHECK(bad == 0, "mxfp4 r8 [%d x %d]: %d rows' reference differs from the type's dot", (int)n_in, (int)n_out, bad);
    free(back); free(aq); free(x);
}
static void test_repack_r8(void) {
    static const int cols[] = { 1, 2, 3, 4, 5, 7, 8, 13, 33, 70 };
    /* (a shape whose rows the type's layout cannot hold is skipped: q4_K
     * takes 160 / 32 in neither; mxfp4's odd block counts 5 and 1 put a
     * last block after the pairs) */
    static const int64_t shapes[][2] = { { 256, 8 }, { 512, 48 }, { 2048, 24 }, { 160, 16 }, { 32, 8 } };
    static const lk_type types[] = { LK_TYPE_Q4_0, LK_TYPE_Q4_K, LK_TYPE_F16, LK_TYPE_MXFP4, LK_TYPE_Q8_0 };
    size_t si, ti;
    for (ti = 0; ti < sizeof types / sizeof types[0]; ti++) {
    const lk_type wtp = types[ti], vtp = lk_type_get(wtp)->vec_dot_type;
    char title[96];
    snprintf(title, sizeof title, "repack r8 %s: lk_matmul = scalar reference, any columns / threads", lk_type_name(wtp));
    lk_t_begin(title);
    for (si = 0; si < sizeof shapes / sizeof shapes[0]; si++) {
        const int64_t n_in = shapes[si][0], n_out = shapes[si][1];
        const size_t ws = lk_row_size(wtp, n_in), as = lk_row_size(vtp, n_in), scr_n = lk_matmul_scratch_size(wtp, n_in, 70);
        size_t rsz;
        if (n_in % lk__kernels_of(wtp)->r8.qk) continue;
        unsigned char *w = (unsigned char *)malloc(ws * (size_t)n_out), *w8;
        unsigned char *aq = (unsigned char *)malloc(as), *scr = (unsigned char *)malloc(scr_n);
        float *x = (float *)malloc(sizeof(float) * (size_t)n_in * 70), *xf = (float *)malloc(sizeof(float) * (size_t)n_in);
        float *yr = (float *)malloc(sizeof(float) * (size_t)n_out * 70), *y = (float *)malloc(sizeof(float) * (size_t)n_out * 70);
        float *yrow = (float *)malloc(sizeof(float) * (size_t)n_out * 70);
        int64_t ne[2], j, r, c;
        lk_tensor W, W8;
        int ci, th;
        for (r = 0; r < n_out; r++) {
            for (j = 0; j < n_in; j++) xf[j] = rng_f() * (float)(1 + r % 5) + (wtp == LK_TYPE_Q4_K ? 0.3f * (float)(j % 7) : 0.0f);
            if (wtp == LK_TYPE_MXFP4)   /* blocks 2^-4 .. 2^4 apart: their products round in the sums, so the order shows */
                for (j = 0; j < n_in; j++) xf[j] *= ldexpf(1.0f, (int)(j / 32 % 9) - 4);
            lk_quantize_row(wtp, xf, w + (size_t)r * ws, n_in);
        }
        for (j = 0; j < n_in * 70; j++) x[j] = rng_f() * (j % 13 == 0 ? 8.0f : 1.0f);
        ne[0] = n_in; ne[1] = n_out;
        CHECK_OK(lk_tensor_init(&W, wtp, 2, ne, w));
        rsz = lk_repack_r8_size(&W);
        CHECK(rsz >= ws * (size_t)n_out, "repacked size %zu", rsz);
        w8 = (unsigned char *)malloc(rsz);
        CHECK_OK(lk_repack_r8(&W, w8, rsz, &W8));
        CHECK(W8.layout == LK_LAYOUT_R8 && W8.data == w8 && W.layout == LK_LAYOUT_ROWS, "repacked view");
        if (wtp == LK_TYPE_MXFP4) check_mxfp4_r8_layout(w, ws, n_in, n_out, w8, rsz);
        for (c = 0; c < 70; c++) {   /* the reference, one group and column at a time */
            if (vtp == LK_TYPE_Q8_0) lk__act_quantize_q8_0(x + c * n_in, aq, n_in);
            else lk_type_get(vtp)->from_float(x + c * n_in, aq, n_in);
            for (r = 0; r < n_out; r += 8) {
                const unsigned char *grp = w8 + (size_t)(r / 8) * (rsz / (size_t)(n_out / 8));
                lk__kernels_of(wtp)->r8.ref(n_in, grp, aq, 0, NULL, 0, yr + c * n_out + r, n_out, 1);   /* the layout's scalar reference */
            }
        }
        for (ci = 0; ci < (int)(sizeof cols / sizeof cols[0]); ci++)
            for (th = 1; th <= 2; th++) {
                lk_threads T;
                const int nc = cols[ci];
                double md = 0, mref = 0;
                memset(&T, 0, sizeof T); T.n_threads = th;
                memset(y, 0, sizeof(float) * (size_t)n_out * nc);
                CHECK_OK(lk_matmul(&W8, x, nc, y, scr, scr_n, &T));
                CHECK(memcmp(y, yr, sizeof(float) * (size_t)n_out * nc) == 0, "[%d x %d] %d columns, %d threads: differs from the reference",
                      (int)n_in, (int)n_out, nc, th);
                CHECK_OK(lk_matmul(&W, x, nc, yrow, scr, scr_n, &T));
                for (j = 0; j < n_out * nc; j++) {
                    double d = fabs((double)y[j] - yrow[j]);
                    if (d > md) md = d;
                    if (fabs(yrow[j]) > mref) mref = fabs(yrow[j]);
                }
                CHECK(md <= 1e-5 * (mref + 1), "[%d x %d] %d columns: r8 vs rows max |d| %g (max |y| %g)", (int)n_in, (int)n_out, nc, md, mref);
#if !defined(LK__ARM)
                if (wtp == LK_TYPE_F16)
                    CHECK(memcmp(y, yrow, sizeof(float) * (size_t)n_out * nc) == 0, "[%d x %d] %d columns, %d threads: f16 r8 differs from rows",
                          (int)n_in, (int)n_out, nc, th);
#endif
#if defined(LK__X86)   /* mxfp4's layout keeps the x86 vec_dot's order (ggml's AVX2 lanes); NEON and scalar rows sum otherwise */
                if (wtp == LK_TYPE_MXFP4)
                    CHECK(memcmp(y, yrow, sizeof(float) * (size_t)n_out * nc) == 0, "[%d x %d] %d columns, %d threads: mxfp4 r8 differs from rows",
                          (int)n_in, (int)n_out, nc, th);
#endif
            }
        /* refusals */
        CHECK(lk_repack_r8(&W, w, rsz, &W8) == LK_ERR_INVALID_ARG, "overlapping dst accepted");
        CHECK(lk_repack_r8(&W, w8, rsz - 1, &W8) == LK_ERR_INVALID_ARG, "short dst accepted");
        ne[1] = n_out - 1;
        {
            lk_tensor W7, Wq8;
            CHECK_OK(lk_tensor_init(&W7, wtp, 2, ne, w));
            CHECK(lk_repack_r8(&W7, w8, rsz, &Wq8) == LK_ERR_INVALID_ARG, "%d rows accepted", (int)ne[1]);
            CHECK(lk_repack_r8_size(&W7) == 0, "size of %d rows", (int)ne[1]);
            if (wtp == LK_TYPE_F16) {   /* f16 rows must hold a multiple of 16 elements */
                int64_t ne2[2];
                ne2[0] = n_in - 8; ne2[1] = 8;
                CHECK_OK(lk_tensor_init(&W7, wtp, 2, ne2, w));
                CHECK(lk_repack_r8_size(&W7) == 0, "size of f16 rows of %d", (int)ne2[0]);
                CHECK(lk_repack_r8(&W7, w8, rsz, &Wq8) == LK_ERR_INVALID_ARG, "f16 rows of %d accepted", (int)ne2[0]);
                Wq8 = W8; Wq8.ne[0] = n_in - 8;
                CHECK(lk_matmul(&Wq8, x, 1, y, scr, scr_n, NULL) == LK_ERR_INVALID_ARG, "f16 r8 rows of %d accepted", (int)Wq8.ne[0]);
            }
            CHECK_OK(lk_tensor_init(&Wq8, LK_TYPE_Q5_0, 2, ne, w));
            CHECK(lk_repack_r8(&Wq8, w8, rsz, &W7) == LK_ERR_UNSUPPORTED, "q5_0 (no layout) accepted");
            W7 = W; W7.layout = 7;
            CHECK(lk_matmul(&W7, x, 1, y, scr, scr_n, NULL) == LK_ERR_INVALID_ARG, "layout 7 accepted");
            W7 = W8; W7.ne[1] = n_out - 1;
            CHECK(lk_matmul(&W7, x, 1, y, scr, scr_n, NULL) == LK_ERR_INVALID_ARG, "r8 with %d rows accepted", (int)W7.ne[1]);
        }
        free(w); free(w8); free(aq); free(scr); free(x); free(xf); free(yr); free(y); free(yrow);
    }
    lk_t_end();
    }
    {   /* a matrix of more than 1 MiB is shuffled on several threads: the same bytes as one pass */
        const int64_t n_in = 4096, n_out = 512;
        const size_t ws = lk_row_size(LK_TYPE_Q4_K, n_in);
        unsigned char *w = (unsigned char *)malloc(ws * (size_t)n_out), *d1, *d2;
        int64_t ne[2] = { n_in, n_out }, j;
        lk_tensor W, W8;
        lk__repack_job job;
        size_t rsz;
        lk_t_begin("repack r8 of a large matrix: threads = one pass");
        for (j = 0; j < (int64_t)(ws * (size_t)n_out); j++) w[j] = (unsigned char)rng_u64();
        for (j = 0; j < n_out; j++) { w[(size_t)j * ws] = 0; w[(size_t)j * ws + 1] = 0x3c; }   /* finite d */
        CHECK_OK(lk_tensor_init(&W, LK_TYPE_Q4_K, 2, ne, w));
        rsz = lk_repack_r8_size(&W);
        d1 = (unsigned char *)malloc(rsz); d2 = (unsigned char *)malloc(rsz);
        CHECK_OK(lk_repack_r8(&W, d1, rsz, &W8));
        job.W = &W; job.dst = d2; job.gbytes = rsz / (size_t)(n_out / 8);
        lk__repack_task(&job, 0, 1);
        CHECK(memcmp(d1, d2, rsz) == 0, "threaded repack differs");
        free(w); free(d1); free(d2);
        lk_t_end();
    }
}

/* GELU through the model's f16 table (lk__gelu_range, SIMD conversion and
 * scalar tail) = lk_gelu computed directly: every f16 value, values around
 * the +-10 cut-offs, NaN, and random floats, in both modes (set, multiply). */
static void test_gelu_table(void) {
    static uint16_t tab[65536];
    lk_model fm;
    const int n = 65536 + 4096 + 5;
    float *x = (float *)malloc(sizeof(float) * (size_t)n), *y = (float *)malloc(sizeof(float) * (size_t)n);
    float *y2 = (float *)malloc(sizeof(float) * (size_t)n);
    int i, bad = 0, bad2 = 0;
    lk_t_begin("gelu table rows = lk_gelu");
    memset(&fm, 0, sizeof fm);
    lk__gelu_table(tab);
    fm.gelu_tab = tab;
    for (i = 0; i < 65536; i++) x[i] = lk_fp16_to_fp32((uint16_t)i);
    for (; i < n - 5; i++) x[i] = rng_f() * 12.0f;
    x[n - 5] = -10.0f; x[n - 4] = 10.0f; x[n - 3] = 9.99f; x[n - 2] = -9.999f; x[n - 1] = NAN;
    for (i = 0; i < n; i++) y2[i] = 1.5f;
    lk__gelu_range(&fm, y, x, (size_t)n, 0);
    lk__gelu_range(&fm, y2, x, (size_t)n, 1);
    for (i = 0; i < n; i++) {
        const float g = lk_gelu(x[i]);
        if (memcmp(&g, &y[i], 4) && !(g != g && y[i] != y[i])) { if (bad < 4) printf("  x %a: %a vs %a\n", x[i], g, y[i]); bad++; }
        if (!(1.5f * g == y2[i]) && !(g != g && y2[i] != y2[i])) bad2++;
    }
    CHECK(bad == 0, "%d of %d values differ from lk_gelu", bad, n);
    CHECK(bad2 == 0, "%d of %d products differ from 1.5 * lk_gelu", bad2, n);
    free(x); free(y); free(y2);
    lk_t_end();
}

/* The attention stages of lk_attn (section 14.9): each SIMD stage against
 * its scalar reference on the same inputs, bit for bit (the SIMD code keeps
 * the reference's order of operations). Head sizes cover the small-head path
 * (multiples of 8), the ggml-order path (multiples of 64) and the plain
 * sequential one; K/V in f32 and f16, contiguous and through an index list,
 * with a key count that leaves tails. */
static void test_attn_stages(void) {
    static const int dims[] = { 8, 16, 24, 32, 48, 80, 96, 64, 128, 12 };
    enum { N = 83, HK = 2, DMAX = 128 };
    static float Kf[N * HK * DMAX], Vf[N * HK * DMAX], q[DMAX], s1[N + 16 * DMAX + 80], s2[N + 16 * DMAX + 80], o1[DMAX], o2[DMAX];
    static uint16_t Kh[N * HK * DMAX], Vh[N * HK * DMAX];
    static int32_t idx[N];
    size_t di;
    int f16, use_idx, i, j, bad = 0;
    lk_t_begin("attn stages: dots, exp, weights, vsum = scalar reference");
    for (i = 0; i < N; i++) idx[i] = (i * 37 + 5) % N;
    for (di = 0; di < sizeof dims / sizeof *dims; di++) {
        const int d = dims[di];
        for (i = 0; i < N * HK * d; i++) {
            Kf[i] = rng_f(); Vf[i] = rng_f();
            Kh[i] = lk_fp32_to_fp16(Kf[i]); Vh[i] = lk_fp32_to_fp16(Vf[i]);
        }
        for (i = 0; i < d; i++) q[i] = 2.0f * rng_f();
        for (f16 = 0; f16 < 2; f16++)
            for (use_idx = 0; use_idx < 2; use_idx++) {
                lk_kv_view kv;
                const size_t es = f16 ? 2 : 4, hoff = (size_t)d * es;   /* KV head 1 */
                float mx = -INFINITY;
                double sum1, sum2;
                int n = N - 3;
                memset(&kv, 0, sizeof kv);
                kv.type = f16 ? LK_TYPE_F16 : LK_TYPE_F32;
                kv.k = f16 ? (const void *)Kh : (const void *)Kf; kv.v = f16 ? (const void *)Vh : (const void *)Vf;
                kv.row_stride = HK * (size_t)d * es; kv.head_stride = (size_t)d * es;
                kv.n_rows = N; kv.row0 = 3;
                if (use_idx) { kv.idx = idx; kv.n_idx = n = N; }
                lk__attn_dots(q, &kv, hoff, d, n, s1);
                lk__attn_dots_ref(q, &kv, hoff, d, 0, n, s2);
                for (j = 0; j < n; j++) if (memcmp(&s1[j], &s2[j], 4)) { if (bad++ < 5) CHECK(0, "dots d=%d f16=%d idx=%d key %d: %.9g vs %.9g", d, f16, use_idx, j, s1[j], s2[j]); }
                for (j = 0; j < n; j++) { if (j % 7 == 3) s1[j] = s2[j] = -INFINITY; if (s1[j] > mx) mx = s1[j]; }   /* some masked keys */
                sum1 = lk__attn_exp(s1, n, mx);
                sum2 = lk__attn_exp_ref(s2, 0, n, mx);
                CHECK(sum1 == sum2, "exp sum d=%d: %.17g vs %.17g", d, sum1, sum2);
                for (j = 0; j < n; j++) if (memcmp(&s1[j], &s2[j], 4)) { if (bad++ < 5) CHECK(0, "exp d=%d key %d: %.9g vs %.9g", d, j, s1[j], s2[j]); }
                lk__attn_weights(s1, n, (float)(1.0 / sum1), f16);
                for (j = 0; j < n; j++) { s2[j] *= (float)(1.0 / sum2); if (f16) s2[j] = lk_fp16_to_fp32(lk_fp32_to_fp16(s2[j])); }
                for (j = 0; j < n; j++) if (memcmp(&s1[j], &s2[j], 4)) { if (bad++ < 5) CHECK(0, "weights d=%d key %d", d, j); }
                lk__attn_vsum(&kv, hoff, d, n, s1, o1);
                lk__attn_vsum_ref(&kv, hoff, d, 0, n, s2, o2);
                for (i = 0; i < d; i++) if (memcmp(&o1[i], &o2[i], 4)) { if (bad++ < 5) CHECK(0, "vsum d=%d f16=%d idx=%d dim %d: %.9g vs %.9g", d, f16, use_idx, i, o1[i], o2[i]); }
            }
    }
    /* lk__dot64 (heads of 64, 128, ...) against its scalar reference */
    for (f16 = 0; f16 < 2; f16++) {
        static const int d64[] = { 64, 128, 256 };
        for (di = 0; di < 3; di++) {
            const int d = d64[di];
            float r1, r2;
            for (i = 0; i < d; i++) { Kf[i] = rng_f(); Kh[i] = lk_fp32_to_fp16(Kf[i]); q[i % DMAX] = rng_f(); }
            for (i = 0; i < d && i < DMAX; i++) s1[i] = q[i];
            for (; i < d; i++) s1[i] = rng_f();
            r1 = lk__dot64(s1, 0, f16 ? (const void *)Kh : (const void *)Kf, f16, d);
            r2 = lk__dot64_ref(s1, 0, f16 ? (const void *)Kh : (const void *)Kf, f16, d);
            CHECK(memcmp(&r1, &r2, 4) == 0, "dot64 d=%d f16=%d: %.9g vs %.9g", d, f16, r1, r2);
        }
    }
    /* the exp stage is ggml's expf: close to libm's exp over the softmax range */
    {
        float x[64], y[64];
        double worst = 0.0;
        for (i = 0; i < 64; i++) x[i] = y[i] = -20.0f * (float)i / 63.0f;
        lk__attn_exp(x, 64, 0.0f);
        for (i = 0; i < 64; i++) { double r = fabs(x[i] - exp((double)y[i])) / exp((double)y[i]); if (r > worst) worst = r; }
        CHECK(worst < 4e-7, "expf relative error %.3g", worst);
    }
    lk_t_end();
}

/* The mask-and-scale stage (lk__attn_mask_scale: vector groups of 16 or
 * 8 keys, the last one masked) against its definition written out here:
 * a key is hidden (-inf) when causal and kpos > qpos, when a window is set
 * and qpos - kpos >= window with kpos >= n_sink, or when its segment is not
 * the query's; the others are score * scale; the result is their maximum.
 * Every key count 0..40, positions from the view or from the row index. */
static void test_attn_mask(void) {
    enum { N = 48 };
    static int32_t pos[N + 8], seg[N + 8];
    float s0[N], s1[N + 16];
    int n, j, bad = 0, cfg;
    lk_t_begin("attn mask and scale (causal, window + sinks, segments, tails) = its definition");
    for (j = 0; j < N + 8; j++) { pos[j] = j * 2 + (j % 3); seg[j] = j % 4 == 1; }
    for (cfg = 0; cfg < 4; cfg++)
        for (n = 0; n <= 40; n++) {
            lk_attn_params p = lk_attn_default_params(8);
            lk_kv_view kv;
            const int qpos = cfg == 3 ? 1000 : 45;
            float mx = -INFINITY, got;
            memset(&kv, 0, sizeof kv);
            kv.type = LK_TYPE_F32; kv.row0 = 5; kv.n_rows = 5 + n;
            kv.pos = cfg == 1 ? NULL : pos;
            kv.seg = cfg == 2 ? seg : NULL;
            p.scale = 0.37f; p.qseg = 0;
            if (cfg == 0) { p.window = 9; p.n_sink = 12; }
            for (j = 0; j < n; j++) s0[j] = s1[j] = rng_f() * 4.0f;
            s1[n] = 123.0f;   /* past the keys: must stay */
            got = lk__attn_mask_scale(&p, qpos, &kv, n, s1);
            for (j = 0; j < n; j++) {
                const int r = kv.row0 + j, kpos = kv.pos ? kv.pos[r] : r;
                const int hide = (p.causal && kpos > qpos) || (p.window > 0 && qpos - kpos >= p.window && kpos >= p.n_sink) ||
                                 (kv.seg && kv.seg[r] != p.qseg);
                const float want = hide ? -INFINITY : s0[j] * p.scale;
                if (!hide && want > mx) mx = want;
                if (memcmp(&want, &s1[j], 4) && bad++ < 5) CHECK(0, "cfg %d n %d key %d: %.9g, want %.9g", cfg, n, j, s1[j], want);
            }
            if (got != mx && bad++ < 5) CHECK(0, "cfg %d n %d: max %.9g, want %.9g", cfg, n, got, mx);
            if (s1[n] != 123.0f && bad++ < 5) CHECK(0, "cfg %d n %d: wrote past the keys", cfg, n);
        }
    CHECK(bad == 0, "%d mismatches", bad);
    lk_t_end();
}

/* lk__all_finite (the check before quantizing activations and on the
 * logits) against isfinite, for every length 0..40 and every position of
 * one NaN, +inf or -inf among finite values (huge, tiny, -0) */
static void test_all_finite(void) {
    static const float specials[3] = { NAN, INFINITY, -INFINITY };
    float x[40];
    int n, pos, k, bad = 0;
    lk_t_begin("all_finite = isfinite over every element");
    for (n = 0; n <= 40; n++) {
        for (pos = 0; pos < n; pos++) x[pos] = pos % 3 == 0 ? 3.0e38f : pos % 3 == 1 ? -1e-40f : -0.0f;
        if (!lk__all_finite(x, (size_t)n) && bad++ < 5) CHECK(0, "n %d: finite values refused", n);
        for (pos = 0; pos < n; pos++)
            for (k = 0; k < 3; k++) {
                const float keep = x[pos];
                x[pos] = specials[k];
                if (isfinite(x[pos]) || lk__all_finite(x, (size_t)n)) { if (bad++ < 5) CHECK(0, "n %d: special %d at %d not found", n, k, pos); }
                x[pos] = keep;
            }
    }
    CHECK(bad == 0, "%d mismatches", bad);
    lk_t_end();
}

/* lk__f16_round (F16C where a group of 8 has no NaN) = the scalar round
 * trip lk_fp16_to_fp32(lk_fp32_to_fp16(x)), bit for bit: 2^22 bit patterns
 * spread over all 2^32 (every sign, exponent, subnormals, NaN payloads),
 * the rounding boundaries (65504, 65520, 2^-24, 2^-25, ties) and NaN in
 * each lane of a group and in the tail */
static void test_f16_round(void) {
    static const uint32_t edge[] = { 0x477fe000u, 0x477fefffu, 0x477ff000u, 0x477ff001u, 0x7f800000u, 0x7f800001u, 0x7fc00000u,
                                     0x33000000u, 0x33000001u, 0x33800000u, 0x387fe000u, 0x387ff000u, 0x38800000u, 0x00000001u,
                                     0x3f801000u, 0x3f803000u, 0x3f800fffu, 0x3f801001u, 0x00000000u, 0x80000000u };
    float x[37], y[37];
    uint32_t u = 0x9e3779b9u, k;
    int i, n, bad = 0, ne = (int)(sizeof edge / sizeof edge[0]);
    lk_t_begin("f16 round trip of q: F16C groups = the scalar conversion, bit for bit");
    for (k = 0; k < (1u << 22) / 37; k++) {
        n = (int)(k % 38);
        for (i = 0; i < n; i++) {
            u = u * 1664525u + 1013904223u;
            x[i] = lk__f32_from_bits(k % 3 == 0 ? edge[(u >> 8) % (uint32_t)ne] ^ (u & 0x80000000u) : (u ^ (u >> 16)) + k * 1024u);
        }
        if (k % 5 == 0 && n) x[k % (uint32_t)n] = lk__f32_from_bits(0x7f800000u | (k & 0x7fffffu) | 1u);   /* NaN with a payload */
        lk__f16_round(y, x, n);
        for (i = 0; i < n; i++) {
            const uint32_t want = lk__f32_bits(lk_fp16_to_fp32(lk_fp32_to_fp16(x[i]))), got = lk__f32_bits(y[i]);
            if (want != got && bad++ < 5) CHECK(0, "x 0x%08x: 0x%08x, scalar 0x%08x", (unsigned)lk__f32_bits(x[i]), (unsigned)got, (unsigned)want);
        }
    }
    CHECK(bad == 0, "%d mismatches", bad);
    lk_t_end();
}

/* lk__rmsnorm_rows (8 and 4 rows side by side) = lk_rmsnorm of each row,
 * bit for bit: 1-21 rows, widths 1-300 and 640, with and without weights,
 * in place and not */
static void test_rmsnorm_rows(void) {
    static const int widths[] = { 1, 3, 8, 17, 64, 255, 300, 640 };
    float *x = (float *)malloc(sizeof(float) * 21 * 640), *y = (float *)malloc(sizeof(float) * 21 * 640);
    float *ref = (float *)malloc(sizeof(float) * 21 * 640), w[640];
    int wi, rows, r, i, useW, inpl, bad = 0;
    lk_t_begin("rmsnorm of rows, 4 and 8 at a time = lk_rmsnorm per row, bit for bit");
    for (i = 0; i < 640; i++) w[i] = 0.5f + rng_f();
    for (wi = 0; wi < 8; wi++)
        for (rows = 1; rows <= 21; rows++)
            for (useW = 0; useW < 2; useW++)
                for (inpl = 0; inpl < 2; inpl++) {
                    const int n = widths[wi];
                    for (i = 0; i < rows * n; i++) x[i] = rng_f() * (i % 7 == 0 ? 1000.0f : 1.0f);
                    for (r = 0; r < rows; r++) lk_rmsnorm(ref + (size_t)r * n, x + (size_t)r * n, useW ? w : NULL, n, 1e-6f);
                    if (inpl) { lk__rmsnorm_rows(x, x, useW ? w : NULL, n, rows, 1e-6f); memcpy(y, x, sizeof(float) * (size_t)(rows * n)); }
                    else lk__rmsnorm_rows(y, x, useW ? w : NULL, n, rows, 1e-6f);
                    for (i = 0; i < rows * n; i++)
                        if (lk__f32_bits(y[i]) != lk__f32_bits(ref[i]) && bad++ < 5) CHECK(0, "n %d rows %d w %d in place %d: element %d", n, rows, useW, inpl, i);
                }
    CHECK(bad == 0, "%d mismatches", bad);
    free(x); free(y); free(ref);
    lk_t_end();
}

/* Mamba 2's selective scan of one head (lk__ssm_scan_head, AVX2) against
 * its scalar reference, bit for bit: state sizes with and without a tail of
 * 8 (1-200), from the zero state (token 0) and from a previous one, in place
 * (s0 = s, as with n_rs_seq 0) and not. */
static void test_ssm_scan(void) {
    static const int sizes[] = { 1, 7, 8, 16, 19, 32, 64, 128, 200 };
    enum { P = 5, NMAX = 200 };
    float s0[P * NMAX], s1[P * NMAX], s2[P * NMAX], x[P], B[NMAX], Cm[NMAX], y1[P], y2[P];
    int k, i, mode, bad = 0;
    lk_t_begin("Mamba 2 scan of one head = its scalar reference, bit for bit");
    for (k = 0; k < (int)(sizeof sizes / sizeof sizes[0]); k++)
        for (mode = 0; mode < 3; mode++) {   /* 0: zero state, 1: from s0, 2: in place */
            const int N = sizes[k];
            const float dt = 0.1f + 0.9f * (rng_f() + 1.0f), a = 0.5f * (rng_f() + 1.0f);
            for (i = 0; i < P * N; i++) s0[i] = rng_f() * 4.0f;
            for (i = 0; i < P; i++) x[i] = rng_f();
            for (i = 0; i < N; i++) { B[i] = rng_f(); Cm[i] = rng_f(); }
            memcpy(s1, s0, sizeof(float) * (size_t)(P * N));
            memcpy(s2, s0, sizeof(float) * (size_t)(P * N));
            lk__ssm_scan_head_ref(s1, mode == 2 ? s1 : mode ? s0 : NULL, x, B, Cm, dt, a, P, N, y1);
            lk__ssm_scan_head(s2, mode == 2 ? s2 : mode ? s0 : NULL, x, B, Cm, dt, a, P, N, y2);
            for (i = 0; i < P; i++)
                if (lk__f32_bits(y1[i]) != lk__f32_bits(y2[i]) && bad++ < 5) CHECK(0, "N %d mode %d: y[%d] %.9g != %.9g", N, mode, i, y2[i], y1[i]);
            for (i = 0; i < P * N; i++)
                if (lk__f32_bits(s1[i]) != lk__f32_bits(s2[i]) && bad++ < 5) CHECK(0, "N %d mode %d: state %d %.9g != %.9g", N, mode, i, s2[i], s1[i]);
        }
    CHECK(bad == 0, "%d mismatches", bad);
    lk_t_end();
}

/* The gated delta net's dot (qwen35: lk__gdn_dot, ggml's AVX2 vec_dot_f32
 * order) = its scalar reference lk__gdn_dot_ref bit for bit, lengths with
 * and without a tail past the last 32, offsets that leave the rows
 * unaligned; and both within 1e-5 (relative to sum |x y|) of the sum in
 * double, an independent check of the order's arithmetic. */
static void test_gdn_dot(void) {
    static const int lens[] = { 1, 7, 31, 32, 33, 64, 100, 128, 256, 257 };
    float x[260], y[260];
    int li, off, i, bad = 0, far = 0;
    lk_t_begin("gated delta net dot, row update, decay (lk__gdn_dot, _mad, _scale) = their scalar references, bit for bit");
    for (li = 0; li < 10; li++)
        for (off = 0; off < 3; off++) {
            const int n = lens[li];
            double d = 0.0, a = 0.0;
            float s, r;
            for (i = 0; i < n + off; i++) { x[i] = rng_f(); y[i] = rng_f() * (i % 5 == 0 ? 30.0f : 1.0f); }
            s = lk__gdn_dot(x + off, y + off, n);
            r = lk__gdn_dot_ref(x + off, y + off, n);
            for (i = off; i < n + off; i++) { d += (double)x[i] * y[i]; a += fabs((double)x[i] * y[i]); }
            if (lk__f32_bits(s) != lk__f32_bits(r) && bad++ < 5) CHECK(0, "n %d offset %d: %.9g, reference %.9g", n, off, s, r);
            if (fabs((double)r - d) > 1e-5 * (a > 1.0 ? a : 1.0) && far++ < 5) CHECK(0, "n %d offset %d: %.9g, double %.9g", n, off, r, d);
        }
    CHECK(bad == 0 && far == 0, "%d mismatches, %d far from the double sum", bad, far);
    for (li = 0; li < 10; li++)   /* its row update and decay: lk__gdn_mad, lk__gdn_scale = their references */
        for (off = 0; off < 3; off++) {
            const int n = lens[li];
            float r1[260], r2[260], a = rng_f();
            for (i = 0; i < n + off; i++) { x[i] = rng_f(); r1[i] = r2[i] = rng_f(); }
            lk__gdn_mad(r1 + off, x + off, a, n); lk__gdn_mad_ref(r2 + off, x + off, a, n);
            for (i = off; i < n + off; i++) if (lk__f32_bits(r1[i]) != lk__f32_bits(r2[i]) && bad++ < 5) CHECK(0, "mad n %d offset %d: element %d", n, off, i);
            lk__gdn_scale(r1 + off, x + off, a, (size_t)n); lk__gdn_scale_ref(r2 + off, x + off, a, (size_t)n);
            for (i = off; i < n + off; i++) if (lk__f32_bits(r1[i]) != lk__f32_bits(r2[i]) && bad++ < 5) CHECK(0, "scale n %d offset %d: element %d", n, off, i);
        }
    CHECK(bad == 0, "%d mismatches (mad, scale)", bad);
    lk_t_end();
}

/* Two query heads of one GQA group, head_dim 8 (lk__attn_pair8, the
 * decode path of tiny models): each output and lse equal two lk_attn calls
 * bit for bit; K/V f32 and f16 (with and without ggml's f16 rounding),
 * contiguous rows and an index list, key counts with tails (1-298: the
 * AVX-512 path's groups of 16 and its last group), causal masks that hide
 * some keys or all of them, no mask, a window with sinks, positions from
 * the rows, rows of another sequence (segments). */
static void test_attn_pair(void) {
    enum { N = 300, HK = 3, D = 8 };
    static float Kf[N * HK * D], Vf[N * HK * D], q[2 * D], sa[N + 16 * D + 80], sb[N + 16 * D + 80], s1[N + 16 * D + 80];
    static uint16_t Kh[N * HK * D], Vh[N * HK * D];
    static int32_t pos[N], idx[N], segs[N];
    static const int counts[] = { 1, 3, 8, 15, 16, 17, 31, 33, 40, 80, 255, 298 };
    int i, f16, fm, use_idx, ci, qp, h, mk;
    lk_t_begin("attn head pairs (head_dim 8) = two lk_attn calls");
    for (i = 0; i < N * HK * D; i++) {
        Kf[i] = rng_f(); Vf[i] = rng_f();
        Kh[i] = lk_fp32_to_fp16(Kf[i]); Vh[i] = lk_fp32_to_fp16(Vf[i]);
    }
    for (i = 0; i < N; i++) { pos[i] = i; idx[i] = (i * 37 + 5) % N; segs[i] = i % 5 == 1 ? 2 : 1; }
    for (i = 0; i < 2 * D; i++) q[i] = 3.0f * rng_f();
    q[3] = 0.0f; q[D + 5] = -0.0f;
    for (f16 = 0; f16 < 2; f16++)
        for (fm = 0; fm <= f16; fm++)
            for (use_idx = 0; use_idx < 2; use_idx++)
                for (ci = 0; ci < (int)(sizeof counts / sizeof *counts); ci++)
                    for (qp = 0; qp < 3; qp++)
                        for (mk = 0; mk < 5; mk++) {
                            const size_t es = f16 ? 2 : 4;
                            lk_attn_params p = lk_attn_default_params(D);
                            lk_kv_view kv;
                            float oa[D], ob[D], ra[D], rb[D], la, lb, lra, lrb;
                            const int n = counts[ci];
                            /* query position: after every key, in the middle (some masked), before all (all masked) */
                            const int qpos = qp == 0 ? N : qp == 1 ? n / 2 + 2 : -1;
                            p.f16_math = fm; p.causal = mk != 1;
                            if (mk == 2) { p.window = 7; p.n_sink = 3; }   /* a sliding window with sinks */
                            memset(&kv, 0, sizeof kv);
                            kv.type = f16 ? LK_TYPE_F16 : LK_TYPE_F32;
                            kv.k = f16 ? (const void *)Kh : (const void *)Kf; kv.v = f16 ? (const void *)Vh : (const void *)Vf;
                            kv.row_stride = HK * D * es; kv.head_stride = D * es; kv.pos = mk == 3 ? NULL : pos;   /* mk 3: positions = rows */
                            if (use_idx) { kv.idx = idx + (N - n); kv.n_idx = n; kv.n_rows = N; }
                            else { kv.row0 = 2; kv.n_rows = 2 + n; }
                            if (mk == 4) { kv.seg = segs; p.qseg = 1; }   /* another sequence's rows among them */
                            for (h = 0; h < HK; h += 2) {
                                lk__attn_pair8(&p, q, q + D, qpos, &kv, h, oa, ob, &la, &lb, sa, sb);
                                lk_attn(&p, q, qpos, &kv, h, ra, &lra, s1);
                                lk_attn(&p, q + D, qpos, &kv, h, rb, &lrb, s1);
                                CHECK(!memcmp(oa, ra, sizeof oa) && !memcmp(&la, &lra, 4) && !memcmp(ob, rb, sizeof ob) && !memcmp(&lb, &lrb, 4),
                                      "f16 %d f16_math %d idx %d n %d qpos %d mask %d kv head %d: pair differs from lk_attn", f16, fm, use_idx, n, qpos, mk, h);
                            }
                        }
    lk_t_end();
}

/* lk_silu_row (ggml's vector silu on multiples of 16) and the vector expf
 * helpers against the scalar lk__expf_ggml, bit for bit, over the whole
 * float range that matters (and -inf, huge, tiny). */
static void test_silu_exp(void) {
    enum { N = 4096 + 7 };
    static float x[N], y[N];
    int i, bad = 0;
    lk_t_begin("silu row and vector expf = scalar ggml expf");
    for (i = 0; i < N; i++) x[i] = (float)(rng_f() * (i % 3 == 0 ? 120.0 : 12.0));
    x[0] = -INFINITY; x[1] = 0.0f; x[2] = -0.0f; x[3] = 88.0f; x[4] = -104.0f; x[5] = 1e-30f; x[6] = INFINITY;
    for (i = 7; i < 407; i++) x[i] = -140.0f + 0.7f * (float)(i - 7);   /* subnormal results, overflow, the 126..192 exponents */
    lk_silu_row(y, x, N);
    for (i = 0; i < N - N % 16; i++) {
        float r = x[i] / (1.0f + lk__expf_ggml(0.0f - x[i]));
        if (memcmp(&r, &y[i], 4) && !(r != r && y[i] != y[i])) { if (bad++ < 5) CHECK(0, "silu x=%.9g: %.9g vs %.9g", x[i], y[i], r); }
    }
    for (; i < N; i++) { float r = lk_silu(x[i]); if (memcmp(&r, &y[i], 4)) { if (bad++ < 5) CHECK(0, "silu tail x=%.9g", x[i]); } }
#if defined(LK__X86)
    for (i = 0; i + 8 <= N; i += 8) {
        float e[8];
        int l;
        _mm256_storeu_ps(e, lk__expf8_ggml(_mm256_loadu_ps(x + i)));
        for (l = 0; l < 8; l++) { float r = lk__expf_ggml(x[i + l]); if (memcmp(&r, &e[l], 4)) { if (bad++ < 5) CHECK(0, "expf8 x=%.9g: %.9g vs %.9g", x[i + l], e[l], r); } }
    }
#endif
#if defined(LK__X86_512)
    for (i = 0; i + 16 <= N; i += 16) {
        float e[16];
        int l;
        _mm512_storeu_ps(e, lk__expf16_ggml(_mm512_loadu_ps(x + i)));
        for (l = 0; l < 16; l++) { float r = lk__expf_ggml(x[i + l]); if (memcmp(&r, &e[l], 4)) { if (bad++ < 5) CHECK(0, "expf16 x=%.9g: %.9g vs %.9g", x[i + l], e[l], r); } }
    }
#endif
    lk_t_end();
}

int main(void) {
    (void)lk_t_fixture; (void)lk_t_read_file; (void)lk_t_skip;
#if defined(LK__X86)
    printf("SIMD: x86 AVX2%s%s%s\n",
#if defined(LK__X86_512)
           " AVX512",
#else
           "",
#endif
#if defined(LK__X86_VNNI)
           " VNNI",
#else
           "",
#endif
#if defined(LK__X86_BF16)
           " BF16"
#else
           ""
#endif
    );
#elif defined(LK__ARM)
    printf("SIMD: NEON%s\n",
#if defined(LK__ARM_DOT)
           " dotprod"
#else
           ""
#endif
    );
#else
    printf("SIMD: none (scalar references only)\n");
#endif
    test_act_quant();
    test_ssm_scan();
    test_dots();
    test_gdn_dot();
    test_kernel_table();
    test_mxfp4_extremes();
    test_matmul();
    test_bf16_tiny();
    test_repack_r8();
    test_gelu_table();
    test_attn_stages();
    test_attn_mask();
    test_all_finite();
    test_f16_round();
    test_rmsnorm_rows();
    test_attn_pair();
    test_silu_exp();
    return lk_t_exit();
}
