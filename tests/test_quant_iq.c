/* test_quant_iq.c - IQ and ternary block formats (llmkit.h section 7b).
 *
 *   grids        expanded format grids vs checksums of ggml's full tables
 *   fp16         lk_fp32_to_fp16 / lk_fp16_to_fp32 vs a search over all halves
 *   quant_exact  our quantizers vs llama-quantize's bytes in the fixtures
 *   dequant      to_float vs a second, per-weight reading of the layouts
 *                (fixture blocks and random blocks), TQ requant stability
 *   vec_dot      every type's dot product vs a float64 reference
 *   rmse         dequantized vs F32 weights of the llama fixture (table)
 *   robustness   zero / NaN / inf / huge inputs do not break quantizers
 *
 * (Also passes as an aarch64 build under qemu-aarch64 in quick mode; not opted in to
 * the neon run because tests/run.sh runs those binaries without qemu.)
 *
 * lk-test: sanitize
 * lk-test: neon */
#define LLMKIT_IMPLEMENTATION
#include "llmkit.h"
#include "tests/lk_test.h"
#include <math.h>

#if defined(__SANITIZE_ADDRESS__)
#define T_SAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define T_SAN 1
#endif
#endif
#ifndef T_SAN
#define T_SAN 0
#endif
/* Sanitizer and aarch64 (qemu) builds run a subset of the fixture rows. */
#if T_SAN || defined(__aarch64__)
#define T_QUICK 1
#else
#define T_QUICK 0
#endif

/* ---------------------------------------------------------------- helpers */
static uint64_t t_rng = 0x9e3779b97f4a7c15ull;
static uint32_t t_u32(void) {                     /* xorshift64* */
    t_rng ^= t_rng >> 12; t_rng ^= t_rng << 25; t_rng ^= t_rng >> 27;
    return (uint32_t)((t_rng * 0x2545f4914f6cdd1dull) >> 32);
}
static float t_unif(void) { return (float)((t_u32() >> 8) * (1.0 / 16777216.0)); }   /* [0,1) */
static float t_gauss(void) {
    float u = t_unif() + 1e-7f, v = t_unif();
    return sqrtf(-2.f * logf(u)) * cosf(6.2831853f * v);
}
static unsigned t_bits(const uint8_t *p, unsigned off, unsigned n) {   /* LE bit field */
    unsigned v = 0, i;
    for (i = 0; i < n; i++) v |= (unsigned)((p[(off + i) / 8] >> ((off + i) % 8)) & 1) << i;
    return v;
}
static unsigned t_u16(const uint8_t *p) { return t_bits(p, 0, 16); }
static uint32_t t_u32le(const uint8_t *p) { return (uint32_t)t_bits(p, 0, 16) | ((uint32_t)t_bits(p, 16, 16) << 16); }

/* binary16 -> float, independently: sign * m * 2^(e-25) via ldexp */
static float t_half(unsigned h) {
    int e = (int)((h >> 10) & 31), m = (int)(h & 1023);
    double v;
    if (e == 31) v = m ? NAN : INFINITY;
    else if (e == 0) v = ldexp((double)m, -24);
    else v = ldexp((double)(m + 1024), e - 25);
    return (float)((h & 0x8000) ? -v : v);
}

/* ---------------------------------------------------- format grids (ggml) */
/* Expanded grids built from the header's compact tables through the header's
 * own expanders; test "grids" checks them against ggml's tables. */
static uint8_t t_g2xxs[256][8], t_g2xs[512][8], t_g2s[1024][8], t_g3xxs[256][4], t_g3s[512][4];
static int8_t t_g1[2048][8];
static void t_build_grids(void) {
    int i, j, v[8];
    for (i = 0; i < 256; i++) { lk__iq2_expand(lk__iq2xxs_grid, i, v); for (j = 0; j < 8; j++) t_g2xxs[i][j] = (uint8_t)v[j]; }
    for (i = 0; i < 512; i++) { lk__iq2_expand(lk__iq2xs_grid, i, v); for (j = 0; j < 8; j++) t_g2xs[i][j] = (uint8_t)v[j]; }
    for (i = 0; i < 1024; i++) { lk__iq2_expand(lk__iq2s_grid, i, v); for (j = 0; j < 8; j++) t_g2s[i][j] = (uint8_t)v[j]; }
    for (i = 0; i < 256; i++) { lk__iq3xxs_expand(i, v); for (j = 0; j < 4; j++) t_g3xxs[i][j] = (uint8_t)v[j]; }
    for (i = 0; i < 512; i++) { lk__iq3s_expand(i, v); for (j = 0; j < 4; j++) t_g3s[i][j] = (uint8_t)v[j]; }
    for (i = 0; i < 2048; i++) { lk__iq1_expand(i, v); for (j = 0; j < 8; j++) t_g1[i][j] = (int8_t)v[j]; }
}
static uint64_t t_fnv(const void *p, size_t n) {
    const uint8_t *b = (const uint8_t *)p; uint64_t h = 0xcbf29ce484222325ull; size_t i;
    for (i = 0; i < n; i++) { h ^= b[i]; h *= 0x100000001b3ull; }
    return h;
}
static void test_grids(void) {
    /* FNV-1a 64 of ggml's tables (ggml-common.h at c392e5094) as little-endian bytes */
    lk_t_begin("grids");
    CHECK(t_fnv(t_g2xxs, sizeof t_g2xxs) == 0xbb4ee025b5ac6e8eull, "iq2xxs grid checksum");
    CHECK(t_fnv(t_g2xs, sizeof t_g2xs) == 0xc9b1ee61e79909bdull, "iq2xs grid checksum");
    CHECK(t_fnv(t_g2s, sizeof t_g2s) == 0x123edd38a3b62b90ull, "iq2s grid checksum");
    CHECK(t_fnv(t_g3xxs, sizeof t_g3xxs) == 0xdfa5dc83d6a155d5ull, "iq3xxs grid checksum");
    CHECK(t_fnv(t_g3s, sizeof t_g3s) == 0xfa37020c25b44829ull, "iq3s grid checksum");
    CHECK(t_fnv(t_g1, sizeof t_g1) == 0x6703ed863501ae2eull, "iq1s grid checksum");
    /* spot values: ggml iq3xxs_grid[128] = 0x141c3e04, iq1s_grid[1024] = 0x0000000000ff0100 */
    CHECK(t_g3xxs[128][0] == 0x04 && t_g3xxs[128][1] == 0x3e && t_g3xxs[128][2] == 0x1c && t_g3xxs[128][3] == 0x14, "iq3xxs[128]");
    CHECK(t_g1[1024][0] == 0 && t_g1[1024][1] == 1 && t_g1[1024][2] == -1 && t_g1[1024][3] == 0, "iq1s[1024]");
    lk_t_end();
}

/* ------------------------------------------------------------------- fp16 */
static int t_cmpf(const void *a, const void *b) {
    float x = *(const float *)a, y = *(const float *)b; return x < y ? -1 : x > y;
}
static float t_halves[31744];   /* all finite non-negative halves, ascending */
/* nearest-even rounding of |f| to a half, by search */
static unsigned t_ref_f16(float f) {
    unsigned sign = signbit(f) ? 0x8000u : 0, lo = 0, hi = 31743, mid;
    double a = fabs((double)f);
    if (f != f) return 0x7e00;
    if (a >= 65520.0) return sign | 0x7c00;
    while (hi - lo > 1) { mid = (lo + hi) / 2; if ((double)t_halves[mid] <= a) lo = mid; else hi = mid; }
    if (a - t_halves[lo] < t_halves[hi] - a) return sign | lo;
    if (a - t_halves[lo] > t_halves[hi] - a) return sign | hi;
    return sign | ((lo & 1) ? hi : lo);
}
static void test_fp16(void) {
    unsigned h, bad = 0;
    int i;
    lk_t_begin("fp16");
    for (h = 0; h < 31744; h++) t_halves[h] = t_half(h);
    for (i = 1; i < 31744; i++) if (!(t_halves[i] > t_halves[i - 1])) bad++;
    CHECK(!bad, "half table not ascending");
    for (h = 0; h < 65536; h++) {
        float f = lk_fp16_to_fp32((uint16_t)h), r = t_half(h);
        if ((h & 0x7c00) == 0x7c00 && (h & 0x3ff)) { CHECK(f != f, "nan %x", h); continue; }
        CHECK(memcmp(&f, &r, 4) == 0, "f16_to_f32(%x)", h);
        CHECK(lk_fp32_to_fp16(f) == h, "roundtrip %x -> %x", h, lk_fp32_to_fp16(f));
    }
    for (h = 0; h + 1 < 31744; h++) {     /* midpoints and their neighbours: the tie cases */
        float m = (float)(((double)t_halves[h] + (double)t_halves[h + 1]) / 2), f;
        int k;
        for (k = -1; k <= 1; k++) {
            f = k < 0 ? nextafterf(m, 0) : k > 0 ? nextafterf(m, INFINITY) : m;
            CHECK(lk_fp32_to_fp16(f) == t_ref_f16(f), "f32_to_f16(%.9g)", (double)f);
            CHECK(lk_fp32_to_fp16(-f) == t_ref_f16(-f), "f32_to_f16(%.9g)", (double)-f);
        }
    }
    for (i = 0; i < 200000; i++) {
        uint32_t u = t_u32();
        float f;
        memcpy(&f, &u, 4);
        if (f != f) continue;
        CHECK(lk_fp32_to_fp16(f) == t_ref_f16(f), "f32_to_f16(%a)", (double)f);
    }
    lk_t_end();
    (void)t_cmpf;
}

/* ------------------------------------------------------------ GGUF files */
/* The file through lk_gguf_read_file, tensors copied into a small table
 * with NUL-terminated names. */
typedef struct { char name[96]; int type; int64_t ne[4]; int nd; const uint8_t *data; } t_tensor;
typedef struct { lk_gguf *g; int n; t_tensor *t; } t_gguf;
static int t_gguf_load(const char *path, t_gguf *g) {
    uint64_t i;
    memset(g, 0, sizeof *g);
    if (lk_gguf_read_file(path, NULL, &g->g) != LK_OK) { printf("  %s: %s\n", path, lk_last_error()); return 0; }
    g->n = (int)g->g->n_tensors;
    g->t = (t_tensor *)calloc((size_t)g->n + 1, sizeof(t_tensor));
    if (!g->t) return 0;
    for (i = 0; i < g->g->n_tensors; i++) {
        const lk_gguf_tensor *src = &g->g->tensors[i];
        t_tensor *t = &g->t[i];
        int d;
        if (src->name.len >= sizeof t->name) return 0;
        memcpy(t->name, src->name.ptr, (size_t)src->name.len);
        t->type = (int)src->type; t->nd = src->n_dims;
        for (d = 0; d < 4; d++) t->ne[d] = d < src->n_dims ? src->ne[d] : 1;
        t->data = (const uint8_t *)src->data;
    }
    return 1;
}
static void t_gguf_free(t_gguf *g) { lk_gguf_free(g->g); free(g->t); memset(g, 0, sizeof *g); }
static const t_tensor *t_find(const t_gguf *g, const char *name) {
    int i;
    for (i = 0; i < g->n; i++) if (!strcmp(g->t[i].name, name)) return &g->t[i];
    return NULL;
}
static int64_t t_nel(const t_tensor *t) { return t->ne[0] * t->ne[1] * t->ne[2] * t->ne[3]; }

/* ------------------------------------------- independent per-weight decode */
/* Value of weight w (0..255, or 0..31 for IQ4_NL) of the block at b, read
 * field by field from ggml's struct layouts (block_* in ggml-common.h). */
static const int t_kv[16] = {-127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113};
static double t_sign7(unsigned s7, int j) {          /* bit 7 = parity of the 7 bits */
    int bit;
    if (j < 7) bit = (s7 >> j) & 1;
    else { int c = 0, i; for (i = 0; i < 7; i++) c += (s7 >> i) & 1; bit = c & 1; }
    return bit ? -1.0 : 1.0;
}
static double t_decode(int type, const uint8_t *b, int w) {
    switch (type) {
    case LK_TYPE_IQ4_NL: {
        unsigned nib = w < 16 ? b[2 + w] & 15 : b[2 + w - 16] >> 4;
        return (double)t_half(t_u16(b)) * t_kv[nib];
    }
    case LK_TYPE_IQ4_XS: {
        int ib = w / 32, j = w % 32;
        unsigned nib = j < 16 ? b[8 + 16 * ib + j] & 15 : b[8 + 16 * ib + j - 16] >> 4;
        int ls = (int)(t_bits(b + 4, 4 * ib, 4) | (t_bits(b + 2, 2 * ib, 2) << 4));
        return (double)t_half(t_u16(b)) * (ls - 32) * t_kv[nib];
    }
    case LK_TYPE_IQ3_XXS: {
        uint32_t aux = t_u32le(b + 66 + 4 * (w / 32));
        unsigned s7 = (aux >> (7 * ((w % 32) / 8))) & 127;
        double db = (double)t_half(t_u16(b)) * (0.5 + (aux >> 28)) * 0.5;
        return db * t_g3xxs[b[2 + w / 4]][w % 4] * t_sign7(s7, w % 8);
    }
    case LK_TYPE_IQ3_S: {
        unsigned idx = b[2 + w / 4] | (t_bits(b + 66, (unsigned)w / 4, 1) << 8);
        double sg = t_bits(b + 74, (unsigned)w, 1) ? -1.0 : 1.0;
        double db = (double)t_half(t_u16(b)) * (1 + 2 * (int)t_bits(b + 106, 4 * (unsigned)(w / 32), 4));
        return db * t_g3s[idx][w % 4] * sg;
    }
    case LK_TYPE_IQ2_XXS: {
        const uint8_t *q = b + 2 + 8 * (w / 32);
        uint32_t aux = t_u32le(q + 4);
        unsigned s7 = (aux >> (7 * ((w % 32) / 8))) & 127;
        double db = (double)t_half(t_u16(b)) * (0.5 + (aux >> 28)) * 0.25;
        return db * t_g2xxs[q[(w % 32) / 8]][w % 8] * t_sign7(s7, w % 8);
    }
    case LK_TYPE_IQ2_XS: {
        unsigned q = t_u16(b + 2 + 2 * (w / 8));
        unsigned sc = t_bits(b + 66, 4 * (unsigned)(w / 16), 4);
        double db = (double)t_half(t_u16(b)) * (0.5 + sc) * 0.25;
        return db * t_g2xs[q & 511][w % 8] * t_sign7(q >> 9, w % 8);
    }
    case LK_TYPE_IQ2_S: {
        unsigned idx = b[2 + w / 8] | (t_bits(b + 66, 2 * (unsigned)(w / 8), 2) << 8);
        double sg = t_bits(b + 34, (unsigned)w, 1) ? -1.0 : 1.0;
        unsigned sc = t_bits(b + 74, 4 * (unsigned)(w / 16), 4);
        return (double)t_half(t_u16(b)) * (0.5 + sc) * 0.25 * t_g2s[idx][w % 8] * sg;
    }
    case LK_TYPE_IQ1_S: {
        unsigned qh = t_u16(b + 34 + 2 * (w / 32));
        unsigned idx = b[2 + w / 8] | (((qh >> (3 * ((w % 32) / 8))) & 7) << 8);
        double dl = (double)t_half(t_u16(b)) * (2 * ((qh >> 12) & 7) + 1);
        double delta = (qh & 0x8000) ? -0.125 : 0.125;
        return dl * (t_g1[idx][w % 8] + delta);
    }
    case LK_TYPE_IQ1_M: {
        int g = w / 8, ib = w / 32, l = (w % 32) / 8, k;
        unsigned idx = b[g] | (t_bits(b + 32, 4 * (unsigned)g, 3) << 8), dh = 0;
        double delta = t_bits(b + 32, 4 * (unsigned)g + 3, 1) ? -0.125 : 0.125;
        unsigned sc = t_bits(b + 48, (unsigned)(16 * (ib / 2) + 6 * (ib % 2) + 3 * (l / 2)), 3);
        for (k = 0; k < 4; k++) dh |= t_bits(b + 48, (unsigned)(16 * k + 12), 4) << (4 * k);
        return (double)t_half(dh) * (2 * sc + 1) * (t_g1[idx][w % 8] + delta);
    }
    case LK_TYPE_TQ1_0: {
        /* a byte q stores T (trits t0..t4, t0 most significant) as ceil(256 T / 243) */
        int byte, k, n, T, p;
        if (w < 160) { byte = w % 32; k = w / 32; n = 5; }
        else if (w < 240) { byte = 32 + (w - 160) % 16; k = (w - 160) / 16; n = 5; }
        else { byte = 48 + (w - 240) % 4; k = (w - 240) / 4; n = 5; }
        T = (int)((unsigned)b[byte] * 243u / 256u);
        for (p = 0; p < n - 1 - k; p++) T /= 3;
        return (double)t_half(t_u16(b + 52)) * (T % 3 - 1);
    }
    case LK_TYPE_TQ2_0: {
        int c = w / 128, k = (w % 128) / 32, m = w % 32;
        return (double)t_half(t_u16(b + 64)) * ((int)((b[32 * c + m] >> (2 * k)) & 3) - 1);
    }
    }
    return 0;
}

static const int t_types[11] = {LK_TYPE_IQ4_NL, LK_TYPE_IQ4_XS, LK_TYPE_IQ3_XXS, LK_TYPE_IQ3_S, LK_TYPE_TQ1_0, LK_TYPE_TQ2_0,
                                LK_TYPE_IQ2_XXS, LK_TYPE_IQ2_XS, LK_TYPE_IQ2_S, LK_TYPE_IQ1_S, LK_TYPE_IQ1_M};
static const char *t_files[6] = {"IQ4_NL", "IQ4_XS", "IQ3_XXS", "IQ3_S", "TQ1_0", "TQ2_0"};

/* compare to_float of nblk blocks with the per-weight decoder; returns mismatches */
static int t_check_decode(int type, const uint8_t *x, int64_t nblk, double *maxerr) {
    const lk_type_traits *tt = lk_type_get(type);
    const int bs = (int)tt->blck_size;
    float *y = (float *)malloc(sizeof(float) * (size_t)bs);
    int64_t i; int w, bad = 0;
    for (i = 0; i < nblk; i++) {
        const uint8_t *b = x + (size_t)i * tt->type_size;
        tt->to_float(b, y, bs);
        for (w = 0; w < bs; w++) {
            double r = t_decode(type, b, w), e = fabs(r - (double)y[w]);
            if (e > *maxerr) *maxerr = e;
            if (e > 1e-6 * fabs(r) + 1e-30) bad++;
        }
    }
    free(y);
    return bad;
}

/* random but valid block: random bytes, finite positive scale */
static void t_random_block(int type, uint8_t *b) {
    const lk_type_traits *tt = lk_type_get(type);
    size_t i;
    for (i = 0; i < tt->type_size; i++) b[i] = (uint8_t)t_u32();
    if (type == LK_TYPE_IQ1_M) {             /* fp16 d lives in the top nibbles of scales */
        unsigned d = 0x2000u + (t_u32() & 0xfff), k;
        for (k = 0; k < 4; k++) b[48 + 2 * k + 1] = (uint8_t)((b[48 + 2 * k + 1] & 0x0f) | (((d >> (4 * k)) & 15) << 4));
    } else if (type == LK_TYPE_TQ1_0) {
        /* only canonical trit bytes (what the quantizer writes) */
        for (i = 0; i < 52; i++) {
            unsigned T = t_u32() % 243;
            if (i >= 48) T = (T % 81) * 3;
            b[i] = (uint8_t)((T * 256 + 242) / 243);
        }
        lk__wr16(b + 52, (uint16_t)(0x2000u + (t_u32() & 0xfff)));
    } else if (type == LK_TYPE_TQ2_0) {
        lk__wr16(b + 64, (uint16_t)(0x2000u + (t_u32() & 0xfff)));
    } else {
        lk__wr16(b, (uint16_t)(0x2000u + (t_u32() & 0xfff)));    /* d in [2^-7, 2^-6) */
    }
}

/* ----------------------------------------------- activation blocks (7a) */
static double t_act(int type, const uint8_t *y, int64_t k) {   /* dequantized activation k */
    if (type == LK_TYPE_Q8_0) { const uint8_t *b = y + 34 * (size_t)(k / 32); return (double)t_half(t_u16(b)) * (int8_t)b[2 + k % 32]; }
    { const uint8_t *b = y + 292 * (size_t)(k / 256); float d; memcpy(&d, b, 4); return (double)d * (int8_t)b[4 + k % 256]; }
}

/* ------------------------------------------------------------------ tests */
static void test_quant_exact(void) {
    const char *pf = lk_t_fixture("models/llama/llama-F32.gguf");
    t_gguf f32;
    int fi;
    if (!pf) { lk_t_skip("quant_exact", "fixtures absent"); return; }
    if (!t_gguf_load(pf, &f32)) { lk_t_begin("quant_exact"); CHECK(0, "cannot read %s", pf); lk_t_end(); return; }
    for (fi = 0; fi < 6; fi++) {
        char rel[128], name[64];
        const char *pq;
        t_gguf q;
        int i, ncmp = 0, type = t_types[fi];
        int64_t nbytes = 0, nbad = 0;
        snprintf(rel, sizeof rel, "models/llama/llama-%s.gguf", t_files[fi]);
        snprintf(name, sizeof name, "quant_exact_%s", t_files[fi]);
        pq = lk_t_fixture(rel);
        if (!pq) { lk_t_skip(name, "fixtures absent"); continue; }
        lk_t_begin(name);
        if (!t_gguf_load(pq, &q)) { CHECK(0, "cannot read %s", pq); lk_t_end(); continue; }
        for (i = 0; i < q.n; i++) {
            const t_tensor *tq = &q.t[i], *tf = t_find(&f32, tq->name);
            const lk_type_traits *tt = lk_type_get(type);
            int64_t rows, r, rmax;
            size_t rs;
            uint8_t *out;
            if (tq->type != type) continue;          /* only our type (fallbacks are someone else's) */
            CHECK(tf && tf->type == LK_TYPE_F32 && t_nel(tf) == t_nel(tq), "%s: no matching F32 tensor", tq->name);
            if (!tf || tf->type != LK_TYPE_F32 || t_nel(tf) != t_nel(tq)) continue;
            rs = lk_row_size(type, tq->ne[0]);
            rows = t_nel(tq) / tq->ne[0];
            rmax = T_QUICK ? (rows < 16 ? rows : 16) : rows;  /* quick builds: a few rows */
            out = (uint8_t *)malloc(rs);
            for (r = 0; r < rmax; r++) {
                tt->from_float((const float *)(const void *)tf->data + r * tq->ne[0], out, tq->ne[0]);
                if (memcmp(out, tq->data + (size_t)r * rs, rs)) {
                    size_t k, nb = 0;
                    for (k = 0; k < rs; k++) nb += out[k] != tq->data[(size_t)r * rs + k];
                    if (nbad < 3) {
                        for (k = 0; k < rs && out[k] == tq->data[(size_t)r * rs + k]; k++) {}
                        printf("  %s row %lld: %zu bytes differ, first at %zu (block %zu byte %zu): ours %02x ggml %02x\n",
                               tq->name, (long long)r, nb, k, k / tt->type_size, k % tt->type_size, out[k], tq->data[(size_t)r * rs + k]);
                    }
                    nbad++;
                }
                nbytes += (int64_t)rs;
            }
            free(out);
            ncmp++;
        }
        CHECK(ncmp > 0, "no %s tensors compared", t_files[fi]);
        CHECK(nbad == 0, "%lld rows differ", (long long)nbad);
        printf("  %s: %d tensors, %lld bytes compared\n", t_files[fi], ncmp, (long long)nbytes);
        t_gguf_free(&q);
        lk_t_end();
    }
    t_gguf_free(&f32);
}

static void test_dequant(void) {
    int fi, ti;
    /* fixture blocks: the first 64 blocks of every tensor of each file */
    for (fi = 0; fi < 6; fi++) {
        char rel[128], name[64];
        const char *pq;
        t_gguf q;
        int i, bad = 0, type = t_types[fi];
        int64_t nblk = 0;
        double maxerr = 0;
        snprintf(rel, sizeof rel, "models/llama/llama-%s.gguf", t_files[fi]);
        snprintf(name, sizeof name, "dequant_fixture_%s", t_files[fi]);
        pq = lk_t_fixture(rel);
        if (!pq) { lk_t_skip(name, "fixtures absent"); continue; }
        lk_t_begin(name);
        if (!t_gguf_load(pq, &q)) { CHECK(0, "cannot read %s", pq); lk_t_end(); continue; }
        for (i = 0; i < q.n; i++) {
            const lk_type_traits *tt = lk_type_get(type);
            int64_t nb;
            if (q.t[i].type != type) continue;
            nb = t_nel(&q.t[i]) / tt->blck_size;
            if (nb > 64) nb = 64;
            bad += t_check_decode(type, q.t[i].data, nb, &maxerr);
            nblk += nb;
            /* ternary: dequantize then requantize gives the same bytes */
            if (type == LK_TYPE_TQ1_0 || type == LK_TYPE_TQ2_0) {
                float *y = (float *)malloc(sizeof(float) * 256 * (size_t)nb);
                uint8_t *z = (uint8_t *)malloc(tt->type_size * (size_t)nb);
                tt->to_float(q.t[i].data, y, 256 * nb);
                tt->from_float(y, z, 256 * nb);
                CHECK(!memcmp(z, q.t[i].data, tt->type_size * (size_t)nb), "%s: requantized bytes differ", q.t[i].name);
                free(y); free(z);
            }
        }
        CHECK(nblk > 0, "no blocks");
        CHECK(bad == 0, "%d weights differ (max abs err %g)", bad, maxerr);
        t_gguf_free(&q);
        lk_t_end();
    }
    /* random blocks, all eleven types */
    lk_t_begin("dequant_random");
    for (ti = 0; ti < 11; ti++) {
        const lk_type_traits *tt = lk_type_get(t_types[ti]);
        uint8_t blk[512];
        int k, bad = 0;
        double maxerr = 0;
        for (k = 0; k < 200; k++) {
            t_random_block(t_types[ti], blk);
            bad += t_check_decode(t_types[ti], blk, 1, &maxerr);
        }
        CHECK(bad == 0, "%s: %d weights differ (max abs err %g)", tt->name, bad, maxerr);
    }
    lk_t_end();
}

static void test_vec_dot(void) {
    const int64_t n = 1024;
    float *xf = (float *)malloc(sizeof(float) * n), *xd = (float *)malloc(sizeof(float) * n);
    float *af = (float *)malloc(sizeof(float) * n);
    uint8_t *xq = (uint8_t *)malloc(8192), *aq = (uint8_t *)malloc(8192);
    int ti, it;
    lk_t_begin("vec_dot");
    for (ti = 0; ti < 11; ti++) {
        const int type = t_types[ti];
        const lk_type_traits *tt = lk_type_get(type);
        double worst = 0;
        CHECK(tt && tt->to_float && tt->vec_dot, "%d: kernels missing", type);
        CHECK((tt->from_float != NULL) == (ti < 6), "%s: from_float presence", tt->name);
        for (it = 0; it < 20; it++) {
            int64_t k, nb = n / tt->blck_size;
            double ref = 0, mag = 0;
            float s = 0;
            for (k = 0; k < n; k++) { xf[k] = t_gauss(); af[k] = t_gauss() * (1 + (float)(k % 7)); }
            if (tt->from_float) tt->from_float(xf, xq, n);
            else for (k = 0; k < nb; k++) t_random_block(type, xq + (size_t)k * tt->type_size);
            tt->to_float(xq, xd, n);
            lk_type_get(tt->vec_dot_type)->from_float(af, aq, n);   /* Q8_0 / Q8_K from 7a */
            for (k = 0; k < n; k++) {
                double a = t_act(tt->vec_dot_type, aq, k);
                ref += (double)xd[k] * a;
                mag += fabs((double)xd[k] * a);
            }
            tt->vec_dot(n, &s, xq, aq);
            {
                double e = fabs((double)s - ref) / (mag > 0 ? mag : 1);
                if (e > worst) worst = e;
            }
        }
        CHECK(worst < 2e-6, "%s: relative error %g", tt->name, worst);
    }
    lk_t_end();
    free(xf); free(xd); free(af); free(xq); free(aq);
}

static void test_rmse(void) {
    const char *pf = lk_t_fixture("models/llama/llama-F32.gguf");
    t_gguf f32;
    int ti;
    if (!pf) { lk_t_skip("rmse", "fixtures absent"); return; }
    if (T_QUICK) { lk_t_skip("rmse", "skipped in the sanitizer / aarch64 build (slow)"); return; }
    lk_t_begin("rmse");
    if (!t_gguf_load(pf, &f32)) { CHECK(0, "cannot read %s", pf); lk_t_end(); return; }
    printf("  %-8s %6s %12s %12s   (llama-F32.gguf, all 2-D weights)\n", "type", "bpw", "rmse", "rmse/rms");
    for (ti = 0; ti < 6; ti++) {
        const lk_type_traits *tt = lk_type_get(t_types[ti]);
        double se = 0, sx = 0;
        int64_t cnt = 0;
        int i;
        for (i = 0; i < f32.n; i++) {
            const t_tensor *t = &f32.t[i];
            int64_t nel = t_nel(t), k;
            uint8_t *q; float *y;
            const float *x = (const float *)(const void *)t->data;
            if (t->nd != 2 || t->ne[0] % tt->blck_size) continue;
            q = (uint8_t *)malloc(lk_row_size(t_types[ti], t->ne[0]) * (size_t)t->ne[1]);
            y = (float *)malloc(sizeof(float) * (size_t)nel);
            tt->from_float(x, q, nel);
            tt->to_float(q, y, nel);
            for (k = 0; k < nel; k++) { double e = (double)y[k] - x[k]; se += e * e; sx += (double)x[k] * x[k]; }
            cnt += nel;
            free(q); free(y);
        }
        CHECK(cnt > 0, "no tensors");
        printf("  %-8s %6.4f %12.4e %12.4f\n", tt->name, 8.0 * (double)tt->type_size / (double)tt->blck_size,
               sqrt(se / (double)cnt), sqrt(se / sx));
        /* sanity bounds for N(0, 0.02) weights (ternary keeps only |x| > max/2) */
        CHECK(sqrt(se / sx) < (ti < 2 ? 0.1 : ti < 4 ? 0.3 : 0.9),
              "%s: relative rmse %g too large", tt->name, sqrt(se / sx));
    }
    t_gguf_free(&f32);
    lk_t_end();
}

static void test_robustness(void) {
    static float x[512];
    static uint8_t q[512 * 2];
    static float y[512];
    int ti, c, k;
    lk_t_begin("robustness");
    for (ti = 0; ti < 6; ti++) {
        const lk_type_traits *tt = lk_type_get(t_types[ti]);
        for (c = 0; c < 6; c++) {
            for (k = 0; k < 512; k++) {
                float v = t_gauss() * 0.02f;
                switch (c) {
                case 0: v = 0; break;                                   /* all zero */
                case 1: if (k < 32 || (k >= 256 && k < 300)) v = 0; break; /* zero sub-blocks */
                case 2: if (k % 97 == 0) v = NAN; break;
                case 3: if (k % 89 == 0) v = (k & 1) ? INFINITY : -INFINITY; break;
                case 4: v *= 1e30f; break;                              /* huge */
                case 5: v *= 1e-30f; break;                             /* tiny */
                }
                x[k] = v;
            }
            tt->from_float(x, q, 512);
            tt->to_float(q, y, 512);
            if (c == 0) {
                int nz = 0;
                for (k = 0; k < 512; k++) nz += y[k] != 0;
                CHECK(nz == 0, "%s: zeros do not dequantize to zeros", tt->name);
            }
            if (c == 1 || c == 5) {
                int bad = 0;
                for (k = 0; k < 512; k++) bad += !(y[k] == y[k]) || fabsf(y[k]) > 1;
                CHECK(bad == 0, "%s case %d: non-finite or wild output", tt->name, c);
            }
        }
    }
    /* zero sub-blocks: the quantizers must still match a direct re-read */
    lk_t_end();
}

/* First use of the IQ3 quantizers from several threads at once: the lazily
 * built search tables must come out the same as in a serial run. */
static void test_threads_first_use(void) {
    enum { ROWS = 8, N = 512 };
    static float x[ROWS][N];
    static uint8_t par[2][ROWS][N], ser[2][ROWS][N];
    int r, k, g;
    lk_t_begin("iq3_first_use_threads");
    for (r = 0; r < ROWS; r++) for (k = 0; k < N; k++) x[r][k] = t_gauss() * 0.02f;
#ifdef _OPENMP
#pragma omp parallel for schedule(static, 1) num_threads(4)
#endif
    for (r = 0; r < 2 * ROWS; r++) {
        const int gi = r % 2;
        lk_type_get(gi ? LK_TYPE_IQ3_S : LK_TYPE_IQ3_XXS)->from_float(x[r / 2], par[gi][r / 2], N);
    }
    for (g = 0; g < 2; g++)
        for (r = 0; r < ROWS; r++) {
            lk_type_get(g ? LK_TYPE_IQ3_S : LK_TYPE_IQ3_XXS)->from_float(x[r], ser[g][r], N);
            CHECK(!memcmp(par[g][r], ser[g][r], lk_row_size(g ? LK_TYPE_IQ3_S : LK_TYPE_IQ3_XXS, N)), "grid %d row %d differs", g, r);
        }
    lk_t_end();
}

/* lk_quantize (7a) through our table rows: the six quantizable types give
 * from_float's bytes; the imatrix-only types report LK_ERR_UNSUPPORTED. */
static void test_lk_quantize(void) {
    enum { N = 512, ROWS = 3 };
    static float x[ROWS * N];
    static uint8_t a[ROWS * N * 2], b[ROWS * N * 2];
    int ti, k;
    lk_t_begin("lk_quantize");
    for (k = 0; k < ROWS * N; k++) x[k] = t_gauss() * 0.02f;
    for (ti = 0; ti < 11; ti++) {
        const int type = t_types[ti];
        size_t nbytes = 0;
        const lk_status st = lk_quantize((lk_type)type, x, a, ROWS, N, &nbytes);
        if (ti < 6) {
            CHECK(st == LK_OK, "%s: %s", lk_type_name(type), lk_last_error());
            CHECK(nbytes == ROWS * lk_row_size(type, N), "%s: %zu bytes", lk_type_name(type), nbytes);
            lk_type_get(type)->from_float(x, b, ROWS * N);
            CHECK(st != LK_OK || !memcmp(a, b, nbytes), "%s: bytes differ from from_float", lk_type_name(type));
        } else {
            CHECK(st == LK_ERR_UNSUPPORTED, "%s: status %d, want LK_ERR_UNSUPPORTED", lk_type_name(type), (int)st);
        }
    }
    lk_t_end();
}

int main(void) {
    (void)lk_t_read_file;
    test_threads_first_use();       /* must run before anything else quantizes IQ3 */
    t_build_grids();
    test_grids();
    test_fp16();
    test_dequant();
    test_vec_dot();
    test_robustness();
    test_lk_quantize();
    test_quant_exact();
    test_rmse();
    return lk_t_exit();
}
