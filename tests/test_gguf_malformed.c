/* Malformed GGUF input: every variant must be rejected with an error
 * (never a crash, an out-of-bounds read or a huge allocation). Built and run
 * under ASan+UBSan too; each variant lives in an exact-size heap buffer so
 * any over-read is caught.
 * lk-test: sanitize */
#define LLMKIT_IMPLEMENTATION
#include "llmkit.h"
#include "tests/lk_test.h"

/* ---- a raw GGUF byte builder (independent of the library's writer) ---- */
typedef struct { unsigned char *p; size_t n, cap; } buf;
static void put(buf *b, const void *d, size_t n) {
    if (b->n + n > b->cap) { b->cap = (b->n + n) * 2 + 64; b->p = (unsigned char *)realloc(b->p, b->cap); }
    memcpy(b->p + b->n, d, n); b->n += n;
}
static void u32(buf *b, uint32_t v) { unsigned char x[4]; int i; for (i = 0; i < 4; i++) x[i] = (unsigned char)(v >> 8 * i); put(b, x, 4); }
static void u64(buf *b, uint64_t v) { unsigned char x[8]; int i; for (i = 0; i < 8; i++) x[i] = (unsigned char)(v >> 8 * i); put(b, x, 8); }
static void str(buf *b, const char *s) { u64(b, strlen(s)); put(b, s, strlen(s)); }
static void pad(buf *b, size_t a) { static const unsigned char z[64] = {0}; while (b->n % a) put(b, z, 1); }

/* Describes one small, valid file; variants override single fields. */
typedef struct {
    uint32_t version, n_dims, ttype, align_type;
    uint64_t n_tensors, n_kv, ne0, ne1, off0, off1, align;
    const char *name0, *name1, *key2;
    int extra;            /* which corruption to splice in (see build) */
} spec;

static spec base(void) {
    spec s;
    memset(&s, 0, sizeof s);
    s.version = 3; s.n_tensors = 2; s.n_kv = 3; s.n_dims = 2; s.ttype = 0; s.ne0 = 4; s.ne1 = 2;
    s.off0 = 0; s.off1 = 32; s.align = 32; s.align_type = 4; s.name0 = "a"; s.name1 = "b"; s.key2 = "k.arr";
    return s;
}

static buf build(const spec *s) {
    buf b = {0, 0, 0};
    put(&b, "GGUF", 4); u32(&b, s->version); u64(&b, s->n_tensors); u64(&b, s->n_kv);
    /* kv 0: general.alignment */
    str(&b, "general.alignment"); u32(&b, s->align_type);
    if (s->align_type == 8) str(&b, "32"); else if (s->align_type == 10) u64(&b, s->align); else u32(&b, (uint32_t)s->align);
    /* kv 1: a string */
    str(&b, "general.name"); u32(&b, 8);
    switch (s->extra) {
    case 1: u64(&b, 1ull << 62); break;                       /* absurd string length */
    case 2: u64(&b, 100); put(&b, "abc", 3); break;           /* longer than the file */
    default: str(&b, "hostile"); break;
    }
    /* kv 2: an array, or one of the corrupt values */
    str(&b, s->key2);
    switch (s->extra) {
    case 3: u32(&b, 9); u32(&b, 4); u64(&b, 1ull << 61); break;      /* absurd array count */
    case 4: u32(&b, 9); u32(&b, 8); u64(&b, 1ull << 40); break;      /* absurd string array */
    case 5: u32(&b, 13); u32(&b, 0); break;                           /* unknown value type */
    case 6: u32(&b, 9); u32(&b, 77); u64(&b, 1); u32(&b, 0); break;  /* unknown element type */
    case 7: { int d; u32(&b, 9); for (d = 0; d < 64; d++) { u32(&b, 9); u64(&b, 1); } u32(&b, 4); u64(&b, 0); break; } /* deep nesting */
    case 8: u32(&b, 9); u32(&b, 9); u64(&b, 1ull << 50); break;      /* absurd nested count */
    case 9: u32(&b, 7); put(&b, "\x02", 1); break;                    /* bool = 2 */
    case 10: u32(&b, 0xffffffffu); break;                             /* huge type id */
    case 11: u32(&b, 9); u32(&b, 9); u64(&b, 2); u32(&b, 4); u64(&b, 1); u32(&b, 5); u32(&b, 9); u64(&b, 3); break; /* nested array with bad inner type 9 counts */
    case 12: u32(&b, 9); u32(&b, 7); u64(&b, 2); put(&b, "\x01\x05", 2); break; /* bool array element 5 */
    default: { uint32_t e[3] = {1, 2, 3}; int i; u32(&b, 9); u32(&b, 5); u64(&b, 3); for (i = 0; i < 3; i++) u32(&b, e[i]); break; }
    }
    /* tensor infos */
    if (s->n_tensors >= 1 && s->extra != 20) {
        uint32_t d;
        str(&b, s->name0); u32(&b, s->n_dims);
        for (d = 0; d < s->n_dims && d < 8; d++) u64(&b, d == 0 ? s->ne0 : s->ne1);
        u32(&b, s->ttype); u64(&b, s->off0);
        str(&b, s->name1); u32(&b, 1); u64(&b, 8); u32(&b, 0); u64(&b, s->off1);
    }
    pad(&b, 32);
    { unsigned char z[256]; memset(z, 0x3c, sizeof z); put(&b, z, 256); }
    return b;
}

/* run the reader over exactly these bytes (fresh heap copy) */
static lk_status try_read(const unsigned char *p, size_t n) {
    unsigned char *c = (unsigned char *)malloc(n ? n : 1);
    lk_gguf *g = NULL;
    lk_status st;
    if (n) memcpy(c, p, n);
    st = lk_gguf_read_memory(c, n, NULL, &g);
    if (st == LK_OK) {   /* touch everything the reader handed out */
        uint64_t i; volatile unsigned char sink = 0;
        for (i = 0; i < g->n_tensors; i++) if (g->tensors[i].nbytes) sink ^= ((const unsigned char *)g->tensors[i].data)[g->tensors[i].nbytes - 1];
        (void)sink;
        lk_gguf_free(g);
    } else CHECK(g == NULL && strlen(lk_last_error()) > 10, "error without message");
    free(c);
    return st;
}

static void expect_reject(const char *what, const spec *s) {
    buf b = build(s);
    lk_status st = try_read(b.p, b.n);
    CHECK(st != LK_OK, "%s: accepted", what);
    if (st != LK_OK && getenv("LK_VERBOSE")) printf("  %-28s -> %s\n", what, lk_last_error());
    free(b.p);
}

int main(void) {
    spec s;
    buf b;
    size_t i;
    int nrej = 0;

    lk_t_begin("gguf-malformed-base-file-is-valid");
    s = base(); b = build(&s);
    CHECK(try_read(b.p, b.n) == LK_OK, "base must parse: %s", lk_last_error());
    lk_t_end();

    lk_t_begin("gguf-malformed-truncation-every-byte");
    for (i = 0; i < b.n - 256; i++) { if (try_read(b.p, i) != LK_OK) nrej++; else CHECK(0, "truncated at %zu accepted", i); }
    lk_t_end();
    free(b.p);

    lk_t_begin("gguf-malformed-header-fields");
    s = base(); s.version = 1; expect_reject("version 1", &s);
    s = base(); s.version = 4; expect_reject("version 4", &s);
    s = base(); s.version = 0x03000000u; expect_reject("big-endian", &s);
    s = base(); s.n_kv = 1ull << 60; expect_reject("n_kv huge", &s);
    s = base(); s.n_kv = 4; expect_reject("n_kv too many", &s);
    s = base(); s.n_tensors = 1ull << 62; expect_reject("n_tensors huge", &s);
    s = base(); s.n_tensors = 3; expect_reject("n_tensors too many", &s);
    { unsigned char bad[8] = {'G', 'G', 'U', 'X', 3, 0, 0, 0}; CHECK(try_read(bad, 8) != LK_OK, "bad magic"); }
    CHECK(try_read((const unsigned char *)"", 0) != LK_OK, "empty input");
    lk_t_end();

    lk_t_begin("gguf-malformed-values");
    s = base(); s.extra = 1; expect_reject("string len 2^62", &s);
    s = base(); s.extra = 2; expect_reject("string past end", &s);
    s = base(); s.extra = 3; expect_reject("array count 2^61", &s);
    s = base(); s.extra = 4; expect_reject("string array 2^40", &s);
    s = base(); s.extra = 5; expect_reject("value type 13", &s);
    s = base(); s.extra = 6; expect_reject("element type 77", &s);
    s = base(); s.extra = 7; expect_reject("nesting depth 64", &s);
    s = base(); s.extra = 8; expect_reject("nested count 2^50", &s);
    s = base(); s.extra = 9; expect_reject("bool 2", &s);
    s = base(); s.extra = 10; expect_reject("type 0xffffffff", &s);
    s = base(); s.extra = 11; expect_reject("bad nested payload", &s);
    s = base(); s.extra = 12; expect_reject("bool array element 5", &s);
    s = base(); s.key2 = "general.name"; expect_reject("duplicate key", &s);
    s = base(); s.key2 = ""; expect_reject("empty key", &s);
    s = base(); s.align = 0; expect_reject("alignment 0", &s);
    s = base(); s.align = 48; expect_reject("alignment 48", &s);
    s = base(); s.align_type = 8; expect_reject("alignment is a string", &s);
    s = base(); s.align_type = 10; s.align = 1ull << 40; expect_reject("alignment 2^40 (u64)", &s);
    lk_t_end();

    lk_t_begin("gguf-malformed-tensors");
    s = base(); s.n_dims = 0; expect_reject("n_dims 0", &s);
    s = base(); s.n_dims = 5; expect_reject("n_dims 5", &s);
    s = base(); s.ne1 = (uint64_t)-1; expect_reject("ne negative", &s);
    s = base(); s.ne0 = 1ull << 40; s.ne1 = 1ull << 40; expect_reject("element overflow", &s);
    s = base(); s.ne0 = 1ull << 31; s.ne1 = 1ull << 31; expect_reject("bytes beyond file", &s);
    s = base(); s.ne0 = 0; s.ne1 = 1ull << 63; expect_reject("zero-width row, 2^63 rows", &s);
    s = base(); s.ttype = 4; expect_reject("removed type 4", &s);
    s = base(); s.ttype = 31; expect_reject("removed type 31", &s);
    s = base(); s.ttype = 43; expect_reject("type 43 (past ggml 0c1e570's last, q2_0 = 42)", &s);
    s = base(); s.ttype = 0x7fffffff; expect_reject("type 2^31-1", &s);
    s = base(); s.ttype = LK_TYPE_Q4_0; s.ne0 = 33; expect_reject("q4_0 row 33", &s);
    s = base(); s.ttype = LK_TYPE_Q4_K; s.ne0 = 32; expect_reject("q4_K row 32", &s);
    s = base(); s.ttype = LK_TYPE_Q1_0; s.ne0 = 64; expect_reject("q1_0 row 64", &s);
    s = base(); s.off0 = 4; expect_reject("unaligned offset", &s);
    s = base(); s.off1 = 1ull << 40; expect_reject("offset out of range", &s);
    s = base(); s.off1 = 256; expect_reject("data ends past the file", &s);
    s = base(); s.off1 = (uint64_t)-32; expect_reject("offset wraps", &s);
    s = base(); s.off1 = 0; expect_reject("overlapping tensors", &s);
    s = base(); s.off0 = 32; s.off1 = 64; s.ne0 = 16; expect_reject("overlap inside another", &s);
    s = base(); s.name1 = "a"; expect_reject("duplicate tensor name", &s);
    s = base(); s.name0 = ""; expect_reject("empty tensor name", &s);
    lk_t_end();

    /* inputs the fuzzer once found: each must be handled cleanly, and every
     * accessor used on what is accepted (tests/data/fuzz-gguf-*.gguf) */
    {
        static const char *found[] = { "tests/data/fuzz-gguf-rows-overflow.gguf" };
        size_t k2, len2;
        lk_t_begin("gguf-malformed-fuzzer-regressions");
        for (k2 = 0; k2 < sizeof found / sizeof found[0]; k2++) {
            unsigned char *d = lk_t_read_file(found[k2], &len2);
            lk_gguf *g2 = NULL;
            CHECK(d != NULL, "%s missing", found[k2]);
            if (d && lk_gguf_read_memory(d, len2, NULL, &g2) == LK_OK) {
                uint64_t t;
                for (t = 0; t < g2->n_tensors; t++) {
                    lk_tensor tv;
                    if (lk_gguf_tensor_view(g2, (int64_t)t, &tv) == LK_OK) CHECK(lk_tensor_nrows(&tv) >= 0 && lk_tensor_nelements(&tv) >= 0, "counts");
                }
                lk_gguf_free(g2);
            }
            free(d);
        }
        lk_t_end();
    }

    /* deterministic random corruption of real fixture headers: whatever
     * happens must be an orderly accept or reject (ASan/UBSan watch) */
    {
        const char *p = lk_t_fixture("stories260K/stories260K-Q4_0.gguf");
        if (!p) lk_t_skip("gguf-malformed-fixture-mutations", "fixtures absent");
        else {
            size_t len = 0, hdr, k;
            unsigned char *orig = lk_t_read_file(p, &len), *m;
            uint64_t x = 88172645463325252ull;
            lk_gguf *g;
            lk_t_begin("gguf-malformed-fixture-mutations");
            CHECK_OK(lk_gguf_read_memory(orig, len, NULL, &g));
            hdr = (size_t)g->data_offset; lk_gguf_free(g);
            m = (unsigned char *)malloc(len);
            for (k = 0; k < 3000; k++) {
                int j, nflip;
                memcpy(m, orig, len);
                x ^= x << 13; x ^= x >> 7; x ^= x << 17;
                nflip = 1 + (int)(x % 4);
                for (j = 0; j < nflip; j++) {
                    x ^= x << 13; x ^= x >> 7; x ^= x << 17;
                    m[x % hdr] = (unsigned char)(x >> 40);
                }
                try_read(m, len);
            }
            /* truncation at every byte of the header region */
            for (k = 0; k < hdr; k += 1) CHECK(try_read(orig, k) != LK_OK, "truncated at %zu accepted", k);
            free(m); free(orig);
            lk_t_end();
        }
    }
    (void)nrej;
    return lk_t_exit();
}
