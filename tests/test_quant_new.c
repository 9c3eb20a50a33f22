/* test_quant_new.c - the block types MXFP4, NVFP4, Q1_0 and Q2_0 (llmkit.h
 * section 7a) against ggml 0c1e570's own results, which
 * tools/gen_quant_refs.c wrote to tests/data/quant_refs_new.txt from the
 * same inputs (rebuilt here by the same generator, t_fill):
 *   ggml_bytes   quantize: bytes == ggml_quantize_chunk's; dequantize: floats
 *                == ggml's to_float; Q8_0 activations (lk_matmul's quantizer)
 *                == ggml's CPU from_float (hashes)
 *   ggml_dots    scalar reference (lk__vec_dot_<t>_q8_0_ref) == the bits of
 *                ggml's generic C kernel; the type table's dot (the kernel
 *                table's SIMD kernel where the build has one, x86 or NEON)
 *                == the bits of ggml's x86 AVX2 kernel, without one (no
 *                SIMD) those of the generic kernel; random-byte blocks too
 *   hostile      NaN / inf / 3e38 / subnormal inputs: bytes == ggml's, no crash
 *   simd_ref     on random rows of 1..9 blocks (odd counts included): the
 *                SIMD kernel == the reference where ggml's order is the
 *                generic one (q2_0), else within 2 (nb + 16) 2^-23 sum |x y|
 *                (two float orders of the same exact block products);
 *                lk_matmul over 5 rows x 3 columns == the type's vec_dot
 *   table        names, sizes, lk_type_from_name, lk_row_size, lk_validate_data
 * A missing data file is a visible SKIP (run from the repository root).
 *
 * lk-test: sanitize
 * lk-test: neon */
#define LLMKIT_IMPLEMENTATION
#include "llmkit.h"
#include "tests/lk_test.h"
#include <math.h>

/* xorshift64*, as tools/gen_quant_refs.c */
static uint64_t t_rng;
static uint64_t t_rnd(void) { t_rng ^= t_rng >> 12; t_rng ^= t_rng << 25; t_rng ^= t_rng >> 27; return t_rng * 0x2545f4914f6cdd1dull; }
static float t_p2(int e) { float f = 1.0f; while (e > 0) { f *= 2.0f; e--; } while (e < 0) { f *= 0.5f; e++; } return f; }
static float t_rfloat(int s) { return (float)((int64_t)(t_rnd() >> 40) - (1 << 23)) * t_p2(s - 23); }
static uint64_t t_fnv(uint64_t h, const void *p, size_t n) {
    const unsigned char *c = (const unsigned char *)p;
    size_t i;
    for (i = 0; i < n; i++) { h ^= c[i]; h *= 1099511628211ull; }
    return h;
}
#define T_FNV0 14695981039346656037ull
static uint32_t t_bits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
/* the same bits, or both NaN (x86 and ARM set a new NaN's sign differently) */
static int t_same(uint32_t a, uint32_t b) { return a == b || ((a & 0x7fffffffu) > 0x7f800000u && (b & 0x7fffffffu) > 0x7f800000u); }
/* floats hashed with every NaN as 0x7fc00000 (0 * inf: x86 and ARM set its sign differently) */
static uint64_t t_fnvf(uint64_t h, const float *x, int64_t n) {
    int64_t i;
    for (i = 0; i < n; i++) { float f = x[i]; uint32_t u = 0x7fc00000u; if (f == f) memcpy(&u, &f, 4); h = t_fnv(h, &u, 4); }
    return h;
}

static void t_fill(float *x, int64_t n, int64_t blk, int row, uint64_t seed) {
    int64_t i;
    t_rng = seed;
    for (i = 0; i < n; i++) x[i] = t_rfloat(row % 9 - 4);
    if (n >= 2 * blk) {
        float *b = x + blk;
        switch (row % 4) {
        case 0: for (i = 0; i < blk; i++) b[i] = 0.0f; break;
        case 1: for (i = 0; i < blk; i++) b[i] = i == 3 ? 1e30f : 0.0f; break;
        case 2: for (i = 0; i < blk; i++) b[i] = (float)((int)(i % 13) - 6) * 0.25f; break;
        default: for (i = 0; i < blk; i++) b[i] = (float)((int)(i % 7) - 3) * t_p2(-140); break;
        }
    }
}
static void t_hostile(float *x, int64_t n) {
    static const float v[8] = { 0.0f, -0.0f, 3.0e38f, -3.0e38f, 1e-45f, -2.5f, 7.0f, 1e-38f };
    int64_t i;
    const float inf = t_p2(127) * 4.0f, nan = inf - inf;
    for (i = 0; i < n; i++) x[i] = v[i % 8];
    for (i = 0; i < n; i += 37) x[i] = nan;
    for (i = 5; i < n; i += 53) x[i] = inf;
    for (i = 11; i < n; i += 59) x[i] = -inf;
}

typedef void (*t_dot)(int64_t n, float *s, const void *x, const void *y);
static const struct { const char *name; lk_type t; t_dot ref; int ci; } kTypes[] = {
    { "mxfp4", LK_TYPE_MXFP4, lk__vec_dot_mxfp4_q8_0_ref, 0 },
    { "nvfp4", LK_TYPE_NVFP4, lk__vec_dot_nvfp4_q8_0_ref, 1 },
    { "q1_0", LK_TYPE_Q1_0, lk__vec_dot_q1_0_q8_0_ref, 2 },
    { "q2_0", LK_TYPE_Q2_0, lk__vec_dot_q2_0_q8_0_ref, 3 },
};
#define N_TYPES 4
static int t_type(const char *name) {
    int i;
    for (i = 0; i < N_TYPES; i++) if (!strcmp(kTypes[i].name, name)) return i;
    return -1;
}
/* does the type table's dot run a SIMD kernel in this build? (x86 and NEON
 * both keep the order of ggml's x86 AVX2 kernels) */
static int t_x86_kernel(lk_type t) { return lk__kernels_of(t)->vec_dot != NULL; }

#define T_ROWS 8
static int t_ncase, t_ndot, t_nraw, t_nhost;

/* one "case" line and the "dot" / "raw" / "hostile" lines after it */
static void t_case(FILE *f, int ti, int k, int64_t n, int rows, uint64_t hq, uint64_t hd, uint64_t ha) {
    const lk_type t = kTypes[ti].t;
    const lk_type_traits *tt = lk_type_get(t);
    const int c = kTypes[ti].ci;
    const size_t rs = lk_row_size(t, n), as = lk_row_size(LK_TYPE_Q8_0, n);
    float *x = (float *)malloc(sizeof(float) * (size_t)n * T_ROWS), *y = (float *)malloc(sizeof(float) * (size_t)n * T_ROWS);
    unsigned char *q = (unsigned char *)malloc(rs * T_ROWS), *a = (unsigned char *)malloc(as * T_ROWS);
    uint64_t gq = T_FNV0, gd = T_FNV0, ga = T_FNV0;
    char kind[16], name[16];
    long long nn;
    int r, rr, i;
    unsigned gn, gg;
    size_t z;
    CHECK(rows == T_ROWS, "%s: %d rows in the data, the test builds %d", kTypes[ti].name, rows, T_ROWS);
    for (r = 0; r < T_ROWS; r++) {
        t_fill(x + (size_t)r * n, n, tt->blck_size, r, 0x1234567ull * (uint64_t)(c * 16 + k * 4 + 1) + (uint64_t)r);
        t_rng = 0x9e3779b97f4a7c15ull ^ (uint64_t)(c * 64 + k * 8 + r);
        for (i = 0; i < n; i++) y[(size_t)r * n + i] = t_rfloat(0);
    }
    CHECK_OK(lk_quantize(t, x, q, T_ROWS, n, NULL));
    gq = t_fnv(gq, q, rs * T_ROWS);
    for (r = 0; r < T_ROWS; r++) {
        CHECK_OK(lk_dequantize_row(t, q + (size_t)r * rs, x + (size_t)r * n, n));
        gd = t_fnvf(gd, x + (size_t)r * n, n);
        lk__act_quantize_q8_0(y + (size_t)r * n, a + (size_t)r * as, n);   /* lk_matmul's, as ggml's CPU from_float */
        ga = t_fnv(ga, a + (size_t)r * as, as);
    }
    CHECK(gq == hq, "%s n=%lld: quantized bytes %016llx, ggml's %016llx", kTypes[ti].name, (long long)n, (unsigned long long)gq, (unsigned long long)hq);
    CHECK(gd == hd, "%s n=%lld: dequantized floats %016llx, ggml's %016llx", kTypes[ti].name, (long long)n, (unsigned long long)gd, (unsigned long long)hd);
    CHECK(ga == ha, "%s n=%lld: q8_0 activations %016llx, ggml's %016llx", kTypes[ti].name, (long long)n, (unsigned long long)ga, (unsigned long long)ha);
    t_ncase++;
    for (r = 0; r < T_ROWS; r++) {
        float sr, sd;
        if (fscanf(f, "%15s %15s %lld %d %x %x", kind, name, &nn, &rr, &gn, &gg) != 6 || strcmp(kind, "dot") || rr != r || nn != n) {
            CHECK(0, "%s n=%lld: malformed dot line %d", kTypes[ti].name, (long long)n, r);
            goto out;
        }
        kTypes[ti].ref(n, &sr, q + (size_t)r * rs, a + (size_t)r * as);
        tt->vec_dot(n, &sd, q + (size_t)r * rs, a + (size_t)r * as);
        CHECK(t_same(t_bits(sr), gg), "%s n=%lld row %d: reference dot %08x (%g), ggml's generic %08x", kTypes[ti].name, (long long)n, r, t_bits(sr), sr, gg);
        CHECK(t_same(t_bits(sd), t_x86_kernel(t) ? gn : gg), "%s n=%lld row %d: type-table dot %08x (%g), ggml's %s %08x", kTypes[ti].name, (long long)n, r,
              t_bits(sd), sd, t_x86_kernel(t) ? "x86" : "generic", t_x86_kernel(t) ? gn : gg);
        t_ndot++;
    }
    {   /* raw bytes, as the generator */
        uint64_t hr, h = T_FNV0;
        float sr, sd;
        if (fscanf(f, "%15s %15s %lld %llx %x %x", kind, name, &nn, (unsigned long long *)&hr, &gn, &gg) != 6 || strcmp(kind, "raw") || nn != n) {
            CHECK(0, "%s n=%lld: malformed raw line", kTypes[ti].name, (long long)n);
            goto out;
        }
        t_rng = 0xabcdef12345ull + (uint64_t)(c * 4 + k);
        for (z = 0; z < rs; z++) q[z] = (unsigned char)(t_rnd() >> 56);
        CHECK_OK(lk_dequantize_row(t, q, x, n));
        h = t_fnvf(h, x, n);
        CHECK(h == hr, "%s n=%lld: dequantized random blocks %016llx, ggml's %016llx", kTypes[ti].name, (long long)n, (unsigned long long)h, (unsigned long long)hr);
        if (t == LK_TYPE_MXFP4) for (z = 0; z < rs; z += 17) q[z] = (unsigned char)(100 + q[z] % 51);
        kTypes[ti].ref(n, &sr, q, a);
        tt->vec_dot(n, &sd, q, a);
        CHECK(t_same(t_bits(sr), gg), "%s n=%lld random blocks: reference dot %08x, ggml's generic %08x", kTypes[ti].name, (long long)n, t_bits(sr), gg);
        CHECK(t_same(t_bits(sd), t_x86_kernel(t) ? gn : gg), "%s n=%lld random blocks: type-table dot %08x, ggml's %08x", kTypes[ti].name, (long long)n,
              t_bits(sd), t_x86_kernel(t) ? gn : gg);
        t_nraw++;
    }
    {
        unsigned long long hh;
        if (fscanf(f, "%15s %15s %lld %llx", kind, name, &nn, &hh) != 4 || strcmp(kind, "hostile") || nn != n) {
            CHECK(0, "%s n=%lld: malformed hostile line", kTypes[ti].name, (long long)n);
            goto out;
        }
        t_hostile(x, n);
        CHECK_OK(lk_quantize_row(t, x, q, n));
        CHECK(t_fnv(T_FNV0, q, rs) == hh, "%s n=%lld: quantized hostile inputs %016llx, ggml's %016llx", kTypes[ti].name, (long long)n,
              (unsigned long long)t_fnv(T_FNV0, q, rs), hh);
        CHECK_OK(lk_dequantize_row(t, q, x, n));   /* and back: whatever came out decodes */
        t_nhost++;
    }
out:
    free(x); free(y); free(q); free(a);
}

static void test_ggml(void) {
    FILE *f = fopen("tests/data/quant_refs_new.txt", "r");
    char kind[16], name[16];
    int last_ti = -1, k = 0;
    lk_t_begin("ggml_bytes_and_dots: quantize, dequantize, Q8_0, dots (reference and type table) == ggml 0c1e570's");
    if (!f) { lk_t_skip("ggml_bytes_and_dots", "tests/data/quant_refs_new.txt absent (run from the repository root)"); return; }
    while (fscanf(f, "%15s %15s", kind, name) == 2) {
        long long n;
        int rows, ti = t_type(name);
        unsigned long long hq, hd, ha;
        if (strcmp(kind, "case") || ti < 0 || fscanf(f, "%lld %d %llx %llx %llx", &n, &rows, &hq, &hd, &ha) != 5) { CHECK(0, "malformed line '%s %s'", kind, name); break; }
        k = ti == last_ti ? k + 1 : 0;
        last_ti = ti;
        t_case(f, ti, k, (int64_t)n, rows, hq, hd, ha);
    }
    fclose(f);
    CHECK(t_ncase == 16 && t_ndot == 128 && t_nraw == 16 && t_nhost == 16, "ran %d cases, %d dots, %d raw, %d hostile (want 16, 128, 16, 16)", t_ncase, t_ndot, t_nraw, t_nhost);
    printf("  %d cases, %d row dots, %d random-block dots, %d hostile rows; type-table dots compared with ggml's %s kernels\n", t_ncase, t_ndot, t_nraw,
           t_nhost, t_x86_kernel(LK_TYPE_MXFP4) ? "x86 AVX2 (SIMD kernels)" : "generic (no SIMD)");
    lk_t_end();
}

/* the SIMD kernel against the reference on random rows, and lk_matmul */
static void test_simd_ref(void) {
    int ti, nbk, it, r, c;
    lk_t_begin("simd_ref: kernel-table dots vs the scalar reference (1..9 blocks), lk_matmul 5 x 3 == vec_dot");
    t_rng = 0x5eed5eedull;
    for (ti = 0; ti < N_TYPES; ti++) {
        const lk_type t = kTypes[ti].t;
        const lk_type_traits *tt = lk_type_get(t);
        const lk__kernels *kk = lk__kernels_of(t);
        for (nbk = 1; nbk <= 9; nbk++)
            for (it = 0; it < 6; it++) {
                const int64_t n = nbk * tt->blck_size;
                const size_t rs = lk_row_size(t, n), as = lk_row_size(LK_TYPE_Q8_0, n);
                float *x = (float *)malloc(sizeof(float) * (size_t)n * 2), *y = x + n;
                unsigned char *q = (unsigned char *)malloc(rs), *a = (unsigned char *)malloc(as);
                float sr, sk;
                double S = 0;
                int64_t i;
                for (i = 0; i < n; i++) { x[i] = t_rfloat(it - 2); y[i] = t_rfloat(0); }
                CHECK_OK(lk_quantize_row(t, x, q, n));
                CHECK_OK(lk_quantize_row(LK_TYPE_Q8_0, y, a, n));
                lk_dequantize_row(t, q, x, n);
                lk_dequantize_row(LK_TYPE_Q8_0, a, y, n);
                for (i = 0; i < n; i++) S += fabs((double)x[i] * y[i]);
                kTypes[ti].ref(n, &sr, q, a);
                if (kk->vec_dot) {
                    kk->vec_dot(n, &sk, q, a);
                    if (t == LK_TYPE_Q2_0) CHECK(t_bits(sk) == t_bits(sr), "q2_0 %d blocks: kernel %08x, reference %08x (same order)", nbk, t_bits(sk), t_bits(sr));
                    else CHECK(fabs((double)sk - sr) <= 2.0 * (nbk + 16) * 0x1p-23 * S, "%s %d blocks: kernel %.9g, reference %.9g, sum |xy| %g", tt->name, nbk, sk, sr, S);
                }
                free(x); free(q); free(a);
            }
        {   /* lk_matmul: 5 rows (odd) x 3 columns, each output == vec_dot of its row and column */
            const int64_t n = 4 * tt->blck_size, ne[2] = { n, 5 };
            const size_t rs = lk_row_size(t, n), as = lk_row_size(LK_TYPE_Q8_0, n);
            float *x = (float *)malloc(sizeof(float) * (size_t)n * 8), yv[15], d;
            unsigned char *w = (unsigned char *)malloc(rs * 5), *a = (unsigned char *)malloc(as);
            size_t ss = lk_matmul_scratch_size(t, n, 3);
            void *scratch = malloc(ss ? ss : 1);
            lk_tensor W;
            int64_t i;
            for (i = 0; i < n * 8; i++) x[i] = t_rfloat(0);
            CHECK_OK(lk_quantize(t, x, w, 5, n, NULL));
            CHECK_OK(lk_tensor_init(&W, t, 2, ne, w));
            CHECK_OK(lk_matmul(&W, x + 5 * n, 3, yv, scratch, ss, NULL));
            for (c = 0; c < 3; c++) {
                CHECK_OK(lk_quantize_row(LK_TYPE_Q8_0, x + (5 + c) * n, a, n));
                for (r = 0; r < 5; r++) {
                    tt->vec_dot(n, &d, w + (size_t)r * rs, a);
                    CHECK(t_bits(d) == t_bits(yv[c * 5 + r]), "%s lk_matmul row %d col %d: %g, vec_dot %g", tt->name, r, c, yv[c * 5 + r], d);
                }
            }
            free(x); free(w); free(a); free(scratch);
        }
    }
    lk_t_end();
}

static void test_table(void) {
    static const struct { lk_type t; const char *name; int64_t blk; size_t bytes; } rows[] = {
        { LK_TYPE_MXFP4, "mxfp4", 32, 17 }, { LK_TYPE_NVFP4, "nvfp4", 64, 36 }, { LK_TYPE_Q1_0, "q1_0", 128, 18 }, { LK_TYPE_Q2_0, "q2_0", 64, 18 },
    };
    unsigned char blk[36];
    int i;
    int64_t bad;
    lk_t_begin("table: ggml's ids, names, block sizes; lk_validate_data as ggml's");
    for (i = 0; i < 4; i++) {
        const lk_type_traits *tt = lk_type_get(rows[i].t);
        CHECK(tt && !strcmp(tt->name, rows[i].name) && tt->blck_size == rows[i].blk && tt->type_size == rows[i].bytes && tt->is_quantized,
              "row %d: %s", (int)rows[i].t, tt ? tt->name : "(none)");
        CHECK(tt && tt->vec_dot_type == LK_TYPE_Q8_0 && tt->to_float && tt->vec_dot, "%s: not a Q8_0 dot", rows[i].name);
        CHECK(lk_type_from_name(rows[i].name) == rows[i].t, "lk_type_from_name(%s)", rows[i].name);
        CHECK(lk_row_size(rows[i].t, 2 * rows[i].blk) == 2 * rows[i].bytes && lk_row_size(rows[i].t, rows[i].blk + 1) == 0, "%s: lk_row_size", rows[i].name);
        memset(blk, 0xff, sizeof blk);   /* every scale byte 255: only MXFP4's e = 255 and the f16 NaN d of Q1_0 / Q2_0 are invalid */
        CHECK((lk_validate_data(rows[i].t, blk, rows[i].bytes, &bad) == LK_OK) == (rows[i].t == LK_TYPE_NVFP4), "%s: lk_validate_data of 0xff blocks", rows[i].name);
        memset(blk, 0, sizeof blk);
        CHECK(lk_validate_data(rows[i].t, blk, rows[i].bytes, &bad) == LK_OK, "%s: lk_validate_data of zero blocks", rows[i].name);
    }
    {   /* UE4M3 scales ggml reads specially: 0x7f (NaN) is 0, bit 7 is ignored (0xff = 240), subnormals m 2^-9;
         * every code 7 (E2M1 6): x = the UE4M3 value * 6 */
        static const uint8_t sc[4] = { 0x7f, 0xff, 0x80, 0x01 };
        static const float want[4] = { 0.0f, 2880.0f, 0.0f, 6.0f / 512 };   /* 480 * 6, 0, 2^-9 * 6 */
        float y[64];
        int s;
        memcpy(blk, sc, 4);
        memset(blk + 4, 0x77, 32);
        CHECK_OK(lk_dequantize_row(LK_TYPE_NVFP4, blk, y, 64));
        for (s = 0; s < 4; s++) CHECK(y[16 * s] == want[s] && y[16 * s + 15] == want[s], "nvfp4 scale 0x%02x: %g, want %g", sc[s], y[16 * s], want[s]);
    }
    CHECK(sizeof(lk_block_mxfp4) == 17 && sizeof(lk_block_nvfp4) == 36 && sizeof(lk_block_q1_0) == 18 && sizeof(lk_block_q2_0) == 18, "struct sizes");
    lk_t_end();
}

int main(void) {
    test_table();
    test_ggml();
    test_simd_ref();
    return lk_t_exit();
}
