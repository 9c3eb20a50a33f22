/* lk-test: sanitize */
/* test_quant_formats.c - float, legacy and K-quant formats (llmkit.h section 7a).
 *
 * References: llama.cpp's quantized model files (byte-exact quantization),
 * IEEE rounding properties and the CPU's F16C instructions (conversions),
 * float64 dot products of dequantized data, naive matmul. */
#define LLMKIT_IMPLEMENTATION
#include "llmkit.h"
#include "tests/lk_test.h"
#include <math.h>
#if defined(__F16C__)
#include <immintrin.h>
#endif

static const lk_type kTypes[] = {
    LK_TYPE_F32, LK_TYPE_F16, LK_TYPE_BF16, LK_TYPE_Q4_0, LK_TYPE_Q4_1, LK_TYPE_Q5_0, LK_TYPE_Q5_1,
    LK_TYPE_Q8_0, LK_TYPE_Q2_K, LK_TYPE_Q3_K, LK_TYPE_Q4_K, LK_TYPE_Q5_K, LK_TYPE_Q6_K,
};
#define N_TYPES ((int)(sizeof kTypes / sizeof kTypes[0]))

static int is_my_type(int t) {
    int i;
    for (i = 0; i < N_TYPES; i++) if ((int)kTypes[i] == t) return 1;
    return t == LK_TYPE_Q8_1 || t == LK_TYPE_Q8_K;
}

/* own PRNG (splitmix64) */
static uint64_t rng_state = 0x1234567887654321ull;
static uint64_t rng_u64(void) {
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
static double rng_unif(void) { return (double)(rng_u64() >> 11) * (1.0 / 9007199254740992.0); }
static float rng_normal(void) {
    double u1 = rng_unif(), u2 = rng_unif();
    if (u1 < 1e-300) u1 = 1e-300;
    return (float)(sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2));
}
static float f_from_bits(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
static uint32_t bits_of(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }

/* ---- conversions ---------------------------------------------------------- */
static double half_value(uint16_t h) {   /* independent decoder */
    int e = (h >> 10) & 31, m = h & 1023;
    double v = e == 0 ? ldexp((double)m, -24) : ldexp((double)(m | 1024), e - 25);
    return (h & 0x8000) ? -v : v;
}

static void test_fp16(void) {
    uint32_t k;
    int i;
    lk_t_begin("fp16_decode_all");
    for (k = 0; k < 65536; k++) {
        uint16_t h = (uint16_t)k;
        float f = lk_fp16_to_fp32(h);
        int e = (h >> 10) & 31;
        if (e == 31) {
            if (h & 1023) CHECK(f != f, "h=%x should be nan", (unsigned)h);
            else CHECK(isinf(f) && ((f < 0) == !!(h & 0x8000)), "h=%x should be inf", (unsigned)h);
        } else {
            CHECK((double)f == half_value(h), "h=%x decodes wrong", (unsigned)h);
            CHECK(lk_fp32_to_fp16(f) == h || (h == 0x8000 && lk_fp32_to_fp16(f) == 0x8000), "h=%x does not round-trip", (unsigned)h);
        }
    }
    lk_t_end();

    lk_t_begin("fp16_encode_rne");
    /* property: the result is the nearest half; ties go to the even mantissa */
    for (i = 0; i < 400000; i++) {
        uint32_t u = (uint32_t)rng_u64();
        float f;
        uint16_t h;
        if (i & 1) u = (u & 0x80000000u) | (0x33000000u + u % (0x47800000u - 0x33000000u)); /* the half range */
        f = f_from_bits(u);
        h = lk_fp32_to_fp16(f);
        if (f != f) { CHECK((h & 0x7fff) == 0x7e00, "nan -> %x", (unsigned)h); continue; }
        if (fabsf(f) >= 65520.0f) { CHECK((h & 0x7fff) == 0x7c00 && ((h >> 15) == (u >> 31)), "%x should overflow", (unsigned)u); continue; }
        {
            double v = half_value(h), fd = (double)f;
            uint16_t mag = h & 0x7fff;
            double up = mag < 0x7bff ? half_value((uint16_t)((h & 0x8000) | (mag + 1))) : 1e300;
            double dn = mag > 0 ? half_value((uint16_t)((h & 0x8000) | (mag - 1))) : -v;
            double err = fabs(fd - v);
            CHECK(err <= fabs(fd - up) && err <= fabs(fd - dn), "f=%x -> h=%x is not nearest", (unsigned)u, (unsigned)h);
            if (err == fabs(fd - up) || (mag > 0 && err == fabs(fd - dn)))
                CHECK(err == 0 || (h & 1) == 0, "f=%x tie -> h=%x not even", (unsigned)u, (unsigned)h);
            CHECK(((h >> 15) & 1) == (u >> 31), "sign lost for %x", (unsigned)u);
        }
    }
    CHECK(lk_fp32_to_fp16(65504.0f) == 0x7bff, "65504");
    CHECK(lk_fp32_to_fp16(65519.996f) == 0x7bff, "65519.996");
    CHECK(lk_fp32_to_fp16(65520.0f) == 0x7c00, "65520 -> inf");
    CHECK(lk_fp32_to_fp16(f_from_bits(0x33000000u)) == 0, "2^-25 tie -> 0");
    CHECK(lk_fp32_to_fp16(f_from_bits(0x33000001u)) == 1, "just above 2^-25 -> 1");
    CHECK(lk_fp32_to_fp16(f_from_bits(0x33c00000u)) == 2, "1.5*2^-24 tie -> 2");
    CHECK(lk_fp32_to_fp16(1.0f + 1.0f / 2048) == 0x3c00, "1+2^-11 tie -> 1");
    CHECK(lk_fp32_to_fp16(1.0f + 3.0f / 2048) == 0x3c02, "1+3*2^-11 tie -> even");
    CHECK(lk_fp32_to_fp16(-INFINITY) == 0xfc00, "-inf");
#if defined(__F16C__)
    /* the hardware conversion (round to nearest even) agrees on all non-NaN inputs */
    for (i = 0; i < 1000000; i++) {
        float f = f_from_bits((uint32_t)rng_u64());
        if (f != f) continue;
        CHECK(lk_fp32_to_fp16(f) == (uint16_t)_cvtss_sh(f, 0), "F16C disagrees on %x", (unsigned)bits_of(f));
    }
#endif
    lk_t_end();

    lk_t_begin("bf16_convert");
    for (i = 0; i < 400000; i++) {
        uint32_t u = (uint32_t)rng_u64();
        float f = f_from_bits(u);
        uint16_t h = lk_fp32_to_bf16(f);
        if (f != f) { CHECK(lk_bf16_to_fp32(h) != lk_bf16_to_fp32(h) && (h & 0x40), "nan %x -> %x not quiet nan", (unsigned)u, (unsigned)h); continue; }
        {
            /* nearest even among the two bf16 neighbours by truncation */
            uint32_t lo = u & 0xffff0000u, rem = u & 0xffffu;
            uint32_t want = rem > 0x8000u || (rem == 0x8000u && ((lo >> 16) & 1)) ? (lo >> 16) + 1 : lo >> 16;
            CHECK(h == (uint16_t)want, "bf16(%x) = %x want %x", (unsigned)u, (unsigned)h, (unsigned)want);
        }
        CHECK(bits_of(lk_bf16_to_fp32((uint16_t)(u >> 16))) == (u & 0xffff0000u), "bf16 decode %x", (unsigned)u);
    }
    CHECK(lk_fp32_to_bf16(f_from_bits(0x7f7fffffu)) == 0x7f80, "max float -> inf");
    CHECK(lk_fp32_to_bf16(f_from_bits(0x00000001u)) == 0x0000, "tiny subnormal -> 0");
    CHECK(lk_fp32_to_bf16(f_from_bits(0x00018000u)) == 0x0002, "subnormal tie -> even (kept, not flushed)");
    lk_t_end();
}

/* ---- byte-exact quantization against llama.cpp files ----------------------- */

static void compare_file(const char *case_name, const lk_gguf *src, const char *rel) {
    const char *path = lk_t_fixture(rel);
    lk_gguf *q = NULL;
    uint64_t i;
    int n_cmp = 0;
    if (!path) { lk_t_skip(case_name, "fixtures absent"); return; }
    lk_t_begin(case_name);
    CHECK_OK(lk_gguf_read_file(path, NULL, &q));
    for (i = 0; q && i < q->n_tensors; i++) {
        const lk_gguf_tensor *t = &q->tensors[i];
        char name[256];
        int64_t si, nrows;
        size_t nbytes = 0, want;
        unsigned char *buf;
        if (!is_my_type(t->type)) continue;
        if (t->name.len >= sizeof name) continue;
        memcpy(name, t->name.ptr, t->name.len); name[t->name.len] = 0;
        si = lk_gguf_find_tensor(src, name);
        CHECK(si >= 0, "%s: %s missing in F32 source", rel, name);
        if (si < 0) continue;
        CHECK(src->tensors[si].type == LK_TYPE_F32, "%s source not F32", name);
        nrows = t->ne[1] * t->ne[2] * t->ne[3];
        want = lk_row_size(t->type, t->ne[0]) * (size_t)nrows;
        buf = (unsigned char *)malloc(want ? want : 1);
        CHECK_OK(lk_quantize(t->type, (const float *)src->tensors[si].data, buf, nrows, t->ne[0], &nbytes));
        CHECK(nbytes == want, "%s: %zu bytes, want %zu", name, nbytes, want);
        if (nbytes == want) {
            size_t k, first = (size_t)-1, nbad = 0;
            for (k = 0; k < want; k++)
                if (buf[k] != ((const unsigned char *)t->data)[k]) { if (first == (size_t)-1) first = k; nbad++; }
            CHECK(nbad == 0, "%s %s (%s): %zu of %zu bytes differ, first at %zu", rel, name, lk_type_name(t->type), nbad, want, first);
        }
        free(buf);
        n_cmp++;
    }
    CHECK(n_cmp > 0, "%s: no tensors compared", rel);
    lk_t_end();
    lk_gguf_free(q);
}

static void test_files(void) {
    /* a row per fixture family: its files' stem (stem-F32.gguf is the source)
     * and the types llama-quantize made from it */
    static const char *llama[] = { "F16", "BF16", "Q8_0", "Q6_K", "Q5_1", "Q5_0", "Q5_K_M", "Q4_1", "Q4_0", "Q4_K_M", "Q2_K", "Q3_K_M", NULL };
    static const char *stories[] = { "F16", "Q8_0", "Q5_1", "Q5_0", "Q4_K_M", "Q4_1", "Q4_0", NULL };
    static const struct { const char *label, *stem; const char *const *types; } sets[] = {
        { "llama", "models/llama/llama", llama },
        { "stories260K", "stories260K/stories260K", stories },
    };
    char rel[256], cname[256];
    size_t k;
    int i;
    for (k = 0; k < sizeof sets / sizeof sets[0]; k++) {
        const char *p;
        lk_gguf *src = NULL;
        snprintf(rel, sizeof rel, "%s-F32.gguf", sets[k].stem);
        snprintf(cname, sizeof cname, "quantize_bytes_%s", sets[k].label);
        p = lk_t_fixture(rel);
        if (!p) { lk_t_skip(cname, "fixtures absent"); continue; }
        if (lk_gguf_read_file(p, NULL, &src) != LK_OK) { lk_t_begin(cname); CHECK(0, "cannot read %s: %s", p, lk_last_error()); lk_t_end(); continue; }
        for (i = 0; sets[k].types[i]; i++) {
            snprintf(rel, sizeof rel, "%s-%s.gguf", sets[k].stem, sets[k].types[i]);
            snprintf(cname, sizeof cname, "quantize_bytes_%s_%s", sets[k].label, sets[k].types[i]);
            compare_file(cname, src, rel);
        }
        lk_gguf_free(src);
    }
}

/* ---- dequantize -> requantize ------------------------------------------------- */
static double rmse(const float *a, const float *b, int64_t n) {
    double s = 0;
    int64_t i;
    for (i = 0; i < n; i++) s += ((double)a[i] - b[i]) * ((double)a[i] - b[i]);
    return sqrt(s / (double)n);
}

static void test_requantize(void) {
    enum { N = 256 * 64 };
    float *x = (float *)malloc(N * sizeof(float)), *d1 = (float *)malloc(N * sizeof(float)), *d2 = (float *)malloc(N * sizeof(float));
    unsigned char *q1 = (unsigned char *)malloc(N * 4), *q2 = (unsigned char *)malloc(N * 4);
    int ti, i;
    lk_t_begin("requantize_stable");
    for (i = 0; i < N; i++) x[i] = rng_normal() * (i % 512 < 256 ? 0.02f : 1.5f) + (i % 1024 < 512 ? 0.0f : 0.01f);
    for (ti = 0; ti < N_TYPES + 2; ti++) {
        lk_type t = ti < N_TYPES ? kTypes[ti] : ti == N_TYPES ? LK_TYPE_Q8_1 : LK_TYPE_Q8_K;
        size_t rs = lk_row_size(t, N);
        double e1, e2;
        /* exact for formats whose scale is recovered from the block maximum
         * (q8_1 only in d and qs: s = f16(d*sum) uses the unrounded d) */
        int exact = t == LK_TYPE_F32 || t == LK_TYPE_F16 || t == LK_TYPE_BF16 || t == LK_TYPE_Q4_0 ||
                    t == LK_TYPE_Q5_0 || t == LK_TYPE_Q8_0;
        lk_quantize_row(t, x, q1, N);
        lk_dequantize_row(t, q1, d1, N);
        lk_quantize_row(t, d1, q2, N);
        lk_dequantize_row(t, q2, d2, N);
        e1 = rmse(x, d1, N);
        e2 = rmse(x, d2, N);
        if (exact) CHECK(memcmp(q1, q2, rs) == 0, "%s: requantized bytes differ", lk_type_name(t));
        if (t == LK_TYPE_Q8_1) {
            const lk_block_q8_1 *b1 = (const lk_block_q8_1 *)q1, *b2 = (const lk_block_q8_1 *)q2;
            for (i = 0; i < N / 32; i++)
                CHECK(b1[i].d == b2[i].d && memcmp(b1[i].qs, b2[i].qs, 32) == 0, "q8_1 block %d: d or qs changed", i);
        }
        /* otherwise (searched scales) the second pass may move values, but by
         * less than the first error, and the error must not grow much */
        CHECK(e2 <= e1 * 1.05 + 1e-12, "%s: rmse grows %g -> %g", lk_type_name(t), e1, e2);
        if (e2 > e1 * (1 + 1e-9)) printf("  note: %s rmse after requantization %.4g -> %.4g (+%.2f%%)\n", lk_type_name(t), e1, e2, 100 * (e2 / e1 - 1));
        CHECK(rmse(d1, d2, N) <= e1 + 1e-12, "%s: requantization moves values by more than the first error", lk_type_name(t));
    }
    lk_t_end();
    free(x); free(d1); free(d2); free(q1); free(q2);
}

/* ---- vec_dot against float64 ---------------------------------------------------- */
static void test_vec_dot(void) {
    enum { N = 256 * 8 };
    float *x = (float *)malloc(N * sizeof(float)), *y = (float *)malloc(N * sizeof(float));
    float *dx = (float *)malloc(N * sizeof(float)), *dy = (float *)malloc(N * sizeof(float));
    unsigned char *qx = (unsigned char *)malloc(N * 4), *qy = (unsigned char *)malloc(N * 4);
    int ti, rep, i;
    lk_t_begin("vec_dot_vs_f64");
    for (ti = 0; ti < N_TYPES; ti++) {
        const lk_type_traits *tt = lk_type_get(kTypes[ti]);
        const lk_type_traits *vt = lk_type_get(tt->vec_dot_type);
        CHECK(tt->vec_dot && vt && vt->from_float && vt->to_float, "%s: kernels missing", tt->name);
        if (!tt->vec_dot || !vt || !vt->from_float) continue;
        for (rep = 0; rep < 20; rep++) {
            int n = rep < 10 ? N : (int)tt->blck_size * (1 + rep % 3) * (tt->blck_size == 1 ? 32 : 1);
            double ref = 0, mag = 0, tol, extra = 0;
            float s = 0;
            float scale = rep % 4 == 0 ? 1e-3f : rep % 4 == 1 ? 1.0f : 30.0f;
            for (i = 0; i < n; i++) { x[i] = rng_normal() * scale + (rep & 1 ? 0.3f * scale : 0.0f); y[i] = rng_normal(); }
            if (rep == 3) for (i = 0; i < n / 2; i++) x[i] = 0;   /* zero blocks */
            tt->from_float(x, qx, n);
            vt->from_float(y, qy, n);
            tt->to_float(qx, dx, n);
            vt->to_float(qy, dy, n);
            for (i = 0; i < n; i++) { ref += (double)dx[i] * dy[i]; mag += fabs((double)dx[i] * dy[i]); }
            if (tt->vec_dot_type == LK_TYPE_Q8_1) {
                /* the min term uses the f16-rounded block sum s = d*sum(q): up to 2^-11 relative */
                const lk_block_q8_1 *b = (const lk_block_q8_1 *)qy;
                for (i = 0; i < n / 32; i++) {
                    double m = tt->type_size == 20 ? lk_fp16_to_fp32(((const lk_block_q4_1 *)qx)[i].m)
                                                   : lk_fp16_to_fp32(((const lk_block_q5_1 *)qx)[i].m);
                    extra += fabs(m * lk_fp16_to_fp32(b[i].s)) * (1.0 / 1024);
                }
            }
            tt->vec_dot(n, &s, qx, qy);
            tol = 2e-6 * mag + extra + 1e-30;
            CHECK(fabs((double)s - ref) <= tol, "%s rep %d n %d: dot %.9g ref %.9g (tol %.3g)", tt->name, rep, n, (double)s, ref, tol);
        }
    }
    lk_t_end();
    free(x); free(y); free(dx); free(dy); free(qx); free(qy);
}

/* ---- matmul --------------------------------------------------------------------- */
static void reverse_pool(void *user, int n_tasks, lk_task_fn fn, void *arg) {
    int i;
    (void)user;
    for (i = n_tasks - 1; i >= 0; i--) fn(arg, i, n_tasks);
}

static void test_matmul(void) {
    const int64_t n_in = 512, n_out = 77, n_cols = 19;
    float *w = (float *)malloc(sizeof(float) * n_in * n_out), *x = (float *)malloc(sizeof(float) * n_in * n_cols);
    float *y1 = (float *)malloc(sizeof(float) * n_out * n_cols), *y2 = (float *)malloc(sizeof(float) * n_out * n_cols);
    float *y3 = (float *)malloc(sizeof(float) * n_out * n_cols), *wd = (float *)malloc(sizeof(float) * n_in);
    unsigned char *wq = (unsigned char *)malloc(n_in * n_out * 4), *xq = (unsigned char *)malloc(n_in * 4);
    int ti;
    int64_t i, r, c;
    lk_t_begin("matmul");
    for (i = 0; i < n_in * n_out; i++) w[i] = rng_normal() * 0.05f;
    for (i = 0; i < n_in * n_cols; i++) x[i] = rng_normal();
    for (ti = 0; ti < N_TYPES; ti++) {
        lk_type t = kTypes[ti];
        const lk_type_traits *tt = lk_type_get(t);
        lk_tensor W;
        int64_t ne[2];
        size_t ss = lk_matmul_scratch_size(t, n_in, n_cols);
        void *scratch = ss ? malloc(ss) : NULL;
        lk_threads th1, th4, thr;
        double num = 0, den = 0;
        ne[0] = n_in; ne[1] = n_out;
        memset(&th1, 0, sizeof th1); th1.n_threads = 1;
        memset(&th4, 0, sizeof th4); th4.n_threads = 4;
        memset(&thr, 0, sizeof thr); thr.n_threads = 3; thr.parallel_for = reverse_pool;
        CHECK_OK(lk_quantize(t, w, wq, n_out, n_in, NULL));
        CHECK_OK(lk_tensor_init(&W, t, 2, ne, wq));
        CHECK_OK(lk_matmul(&W, x, n_cols, y1, scratch, ss, &th1));
        CHECK_OK(lk_matmul(&W, x, n_cols, y2, scratch, ss, &th4));
        CHECK_OK(lk_matmul(&W, x, n_cols, y3, scratch, ss, &thr));
        CHECK(memcmp(y1, y2, sizeof(float) * n_out * n_cols) == 0, "%s: 1 vs 4 threads differ", tt->name);
        CHECK(memcmp(y1, y3, sizeof(float) * n_out * n_cols) == 0, "%s: 1 vs 3 reversed tasks differ", tt->name);
        /* exactly the per-element vec_dot with the column quantized once */
        for (c = 0; c < n_cols; c++) {
            const lk_type_traits *vt = lk_type_get(tt->vec_dot_type);
            vt->from_float(x + c * n_in, xq, n_in);
            for (r = 0; r < n_out; r++) {
                float s;
                double ref = 0;
                tt->vec_dot(n_in, &s, wq + (size_t)r * lk_row_size(t, n_in), xq);
                CHECK(s == y1[c * n_out + r], "%s: y[%lld][%lld] %g != vec_dot %g", tt->name, (long long)c, (long long)r, y1[c * n_out + r], s);
                /* and close to the float product with the dequantized weights */
                tt->to_float(wq + (size_t)r * lk_row_size(t, n_in), wd, n_in);
                for (i = 0; i < n_in; i++) ref += (double)wd[i] * x[c * n_in + i];
                num += (ref - y1[c * n_out + r]) * (ref - y1[c * n_out + r]);
                den += ref * ref;
            }
        }
        /* activation quantization error: q8 ~ 0.5%, f16 ~ 1e-4 */
        CHECK(sqrt(num / den) < (tt->vec_dot_type == LK_TYPE_F32 ? 1e-6 : 0.02), "%s: matmul rel error %g", tt->name, sqrt(num / den));
        if (ss) {
            CHECK(lk_matmul(&W, x, n_cols, y1, NULL, 0, &th1) == LK_ERR_INVALID_ARG, "%s: NULL scratch accepted", tt->name);
            CHECK(lk_matmul(&W, x, n_cols, y1, scratch, ss - 65, &th1) == LK_ERR_INVALID_ARG, "%s: short scratch accepted", tt->name);
        }
        free(scratch);
    }
    lk_t_end();
    free(w); free(x); free(y1); free(y2); free(y3); free(wd); free(wq); free(xq);
}

static void test_errors(void) {
    float x[64] = {0};
    unsigned char buf[256];
    size_t nb = 123;
    lk_t_begin("quantize_errors");
    CHECK(lk_quantize(LK_TYPE_Q4_0, x, buf, 1, 48, &nb) == LK_ERR_INVALID_ARG, "row 48 for q4_0 accepted");
    CHECK(nb == 0, "out_bytes not reset");
    CHECK(lk_quantize(LK_TYPE_Q4_K, x, buf, 1, 64, &nb) == LK_ERR_INVALID_ARG, "row 64 for q4_K accepted");
    CHECK(lk_quantize((lk_type)4, x, buf, 1, 32, &nb) == LK_ERR_UNSUPPORTED, "removed type 4 accepted");
    CHECK(lk_quantize((lk_type)99, x, buf, 1, 32, &nb) == LK_ERR_UNSUPPORTED, "type 99 accepted");
    CHECK(lk_quantize(LK_TYPE_Q8_0, NULL, buf, 1, 32, &nb) == LK_ERR_INVALID_ARG, "NULL src accepted");
    CHECK_OK(lk_quantize(LK_TYPE_Q8_0, x, buf, 2, 32, &nb));
    CHECK(nb == 68, "q8_0 2x32 -> %zu bytes", nb);
    CHECK(lk_matmul_scratch_size(LK_TYPE_Q4_0, 48, 1) == 0, "scratch for bad row");
    CHECK(lk_matmul_scratch_size(LK_TYPE_F32, 48, 1) == 0, "f32 needs no scratch");
    CHECK(lk_matmul(NULL, x, 1, x, NULL, 0, NULL) == LK_ERR_INVALID_ARG, "NULL W accepted");
    lk_t_end();
}

/* ---- RMSE table on the llama fixture weights ------------------------------------ */
static void test_rmse_table(void) {
    static const lk_type order[] = { LK_TYPE_F16, LK_TYPE_BF16, LK_TYPE_Q8_0, LK_TYPE_Q6_K, LK_TYPE_Q5_1, LK_TYPE_Q5_0,
                                     LK_TYPE_Q5_K, LK_TYPE_Q4_1, LK_TYPE_Q4_0, LK_TYPE_Q4_K, LK_TYPE_Q3_K, LK_TYPE_Q2_K };
    const char *p = lk_t_fixture("models/llama/llama-F32.gguf");
    lk_gguf *g = NULL;
    int k;
    if (!p) { lk_t_skip("rmse_table", "fixtures absent"); return; }
    lk_t_begin("rmse_table");
    CHECK_OK(lk_gguf_read_file(p, NULL, &g));
    if (g) {
        double prev = 0;
        printf("  %-6s %6s %12s %10s   (all 2-D weights of llama-F32.gguf)\n", "type", "bpw", "rmse", "rel.rmse");
        for (k = 0; k < (int)(sizeof order / sizeof order[0]); k++) {
            const lk_type_traits *tt = lk_type_get(order[k]);
            double se = 0, sx = 0, cnt = 0, r;
            uint64_t i;
            for (i = 0; i < g->n_tensors; i++) {
                const lk_gguf_tensor *t = &g->tensors[i];
                int64_t n = t->ne[0] * t->ne[1], j;
                unsigned char *q;
                float *d;
                const float *src = (const float *)t->data;
                if (t->n_dims != 2 || t->type != LK_TYPE_F32) continue;
                q = (unsigned char *)malloc(lk_row_size(order[k], t->ne[0]) * (size_t)t->ne[1]);
                d = (float *)malloc(sizeof(float) * (size_t)n);
                CHECK_OK(lk_quantize(order[k], src, q, t->ne[1], t->ne[0], NULL));
                for (j = 0; j < t->ne[1]; j++)
                    lk_dequantize_row(order[k], q + (size_t)j * lk_row_size(order[k], t->ne[0]), d + j * t->ne[0], t->ne[0]);
                for (j = 0; j < n; j++) { se += ((double)d[j] - src[j]) * ((double)d[j] - src[j]); sx += (double)src[j] * src[j]; }
                cnt += (double)n;
                free(q); free(d);
            }
            r = sqrt(se / cnt);
            printf("  %-6s %6.3f %12.4e %9.4f%%\n", tt->name, 8.0 * (double)tt->type_size / (double)tt->blck_size, r, 100.0 * sqrt(se / sx));
            /* the error grows as the bit rate falls within each family (table order) */
            if (k > 0 && order[k] != LK_TYPE_Q5_1 && order[k] != LK_TYPE_Q4_1) CHECK(r >= prev * 0.5, "%s rmse %g unexpectedly small", tt->name, r);
            CHECK(r < 0.02 * 0.5, "%s rmse %g too large for N(0, 0.02) weights", tt->name, r);
            prev = r;
        }
        lk_gguf_free(g);
    }
    lk_t_end();
}

/* hostile values: NaN, inf, huge, denormal must not crash (UBSan build) and
 * must leave finite blocks finite */
static void test_hostile_values(void) {
    enum { N = 256 * 4 };
    float x[N], d[N], y[N];
    unsigned char q[N * 4], qy[N * 4];
    int ti, i, k;
    lk_t_begin("hostile_values");
    for (k = 0; k < 4; k++) {
        for (i = 0; i < N; i++) x[i] = rng_normal();
        for (i = 0; i < N; i++) y[i] = rng_normal();
        for (i = 0; i < 256; i += 7) {          /* only the first super-block gets the specials */
            x[i] = k == 0 ? NAN : k == 1 ? INFINITY : k == 2 ? -3.0e38f : 1e-40f;
            y[i] = x[i];
        }
        for (ti = 0; ti < N_TYPES; ti++) {
            const lk_type_traits *tt = lk_type_get(kTypes[ti]);
            const lk_type_traits *vt = lk_type_get(tt->vec_dot_type);
            float s;
            tt->from_float(x, q, N);
            tt->to_float(q, d, N);
            vt->from_float(y, qy, N);
            tt->vec_dot(N, &s, q, qy);
            for (i = 256; i < N; i++) CHECK(isfinite(d[i]), "%s case %d: finite block became %g at %d", tt->name, k, (double)d[i], i);
            if (k == 3) CHECK(isfinite(s), "%s: denormals give non-finite dot", tt->name);
        }
    }
    lk_t_end();
}

int main(void) {
    (void)lk_t_read_file;
    test_fp16();
    test_errors();
    test_hostile_values();
    test_vec_dot();
    test_requantize();
    test_matmul();
    test_files();
    test_rmse_table();
    return lk_t_exit();
}
