/* GGUF reader and writer against the fixtures and round trips.
 * lk-test: sanitize
 * lk-test: nomalloc   (the reader runs on an arena only) */
#define LLMKIT_IMPLEMENTATION
#include "llmkit.h"
#include "tests/lk_test.h"
#include <ctype.h>

static lk_arena warena2;
static lk_allocator warena2_alloc;
static const lk_allocator *walloc2(void) {
#ifdef LLMKIT_NO_MALLOC
    if (!warena2.base) { static unsigned char *mem; mem = (unsigned char *)malloc(16u << 20); lk_arena_init(&warena2, mem, 16u << 20); }
    warena2_alloc = lk_arena_allocator(&warena2);
    return &warena2_alloc;
#else
    (void)warena2; (void)warena2_alloc;
    return NULL;
#endif
}

/* Under LLMKIT_NO_MALLOC every reader allocation comes from this arena. */
static lk_arena arena;
static lk_allocator arena_alloc;
static lk_gguf_params params(void) {
    lk_gguf_params p = lk_gguf_default_params();
#ifdef LLMKIT_NO_MALLOC
    if (!arena.base) { static unsigned char *mem; mem = (unsigned char *)malloc(64u << 20); lk_arena_init(&arena, mem, 64u << 20); }
    lk_arena_reset(&arena);
    arena_alloc = lk_arena_allocator(&arena);
    p.alloc = &arena_alloc;
#else
    (void)arena; (void)arena_alloc;
#endif
    return p;
}
/* writer parameters with allocator a (NULL: the default) */
static const lk_gguf_params *wparams(const lk_allocator *a) {
    static lk_gguf_params p[4];
    static int k = 0;
    lk_gguf_params *q = &p[k++ & 3];
    *q = lk_gguf_default_params();
    q->alloc = a;
    return q;
}
/* allocator for writers: NULL (default) or, under LLMKIT_NO_MALLOC, a second arena */
static lk_arena warena;
static lk_allocator warena_alloc;
static const lk_allocator *walloc(void) {
#ifdef LLMKIT_NO_MALLOC
    if (!warena.base) { static unsigned char *mem; mem = (unsigned char *)malloc(64u << 20); lk_arena_init(&warena, mem, 64u << 20); }
    lk_arena_reset(&warena);
    warena_alloc = lk_arena_allocator(&warena);
    return &warena_alloc;
#else
    (void)warena; (void)warena_alloc;
    return NULL;
#endif
}

static int parse_shape(const char *s, int64_t *ne) {   /* "[64,512]" */
    int n = 0;
    if (*s++ != '[') return -1;
    while (*s && *s != ']' && n < 4) { ne[n++] = strtoll(s, (char **)&s, 10); if (*s == ',') s++; }
    return n;
}

/* Check every file listed in a tensor_types.txt against what we read. */
static void check_tensor_types(const char *list_rel, const char *dir_fmt) {
    const char *list = lk_t_fixture(list_rel);
    FILE *f;
    char line[1024], path[1024], name[512], type[64], shape[128];
    lk_gguf *g = NULL;
    long n_files = 0, n_tensors_checked = 0;
    long expect_n = -1, seen = 0;
    if (!list) { lk_t_skip(list_rel, "fixtures absent (../shared/fixtures)"); return; }
    lk_t_begin(list_rel);
    f = fopen(list, "r");
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#') {
            char file[256], arch[300];
            long ft = -1;
            char *p;
            lk_gguf_params pp = params();
            if (g) { CHECK(seen == expect_n, "%ld tensors listed, %ld in file", seen, expect_n); lk_gguf_free(g); g = NULL; }
            sscanf(line, "# %255s", file);
            p = strstr(line, "general.file_type="); if (p) ft = atol(p + 18);
            p = strstr(line, "n_tensors="); expect_n = p ? atol(p + 10) : -1;
            snprintf(arch, sizeof arch, "%s", file);
            if ((p = strchr(arch, '-'))) *p = 0;
            snprintf(path, sizeof path, dir_fmt, lk_t_fixtures(), arch, file);
            if (lk_gguf_read_file(path, &pp, &g) != LK_OK) { CHECK(0, "%s: %s", path, lk_last_error()); g = NULL; continue; }
            n_files++;
            CHECK((long)g->n_tensors == expect_n, "%s: %llu tensors, list says %ld", file, (unsigned long long)g->n_tensors, expect_n);
            if (ft >= 0) { uint32_t v = 0; CHECK_OK(lk_gguf_get_u32(g, "general.file_type", &v)); CHECK((long)v == ft, "%s file_type %u != %ld", file, v, ft); }
            seen = 0;
            continue;
        }
        if (!g || sscanf(line, "%511s %63s %127s", name, type, shape) != 3) continue;
        {
            int64_t ne[4] = {1, 1, 1, 1};
            int nd = parse_shape(shape, ne), d;
            int64_t ti = lk_gguf_find_tensor(g, name);
            seen++;
            CHECK(ti >= 0, "tensor %s missing", name);
            if (ti < 0) continue;
            CHECK(lk_type_from_name(type) == (int)g->tensors[ti].type, "%s: type %s, read %s", name, type, lk_type_name(g->tensors[ti].type));
            CHECK(nd == g->tensors[ti].n_dims, "%s: n_dims %d vs %d", name, nd, g->tensors[ti].n_dims);
            for (d = 0; d < nd; d++) CHECK(ne[d] == g->tensors[ti].ne[d], "%s: ne[%d]", name, d);
            n_tensors_checked++;
        }
    }
    if (g) { CHECK(seen == expect_n, "%ld tensors listed, %ld in file", seen, expect_n); lk_gguf_free(g); }
    fclose(f);
    CHECK(n_files > 0, "no files checked");
    printf("  %s: %ld files, %ld tensors checked\n", list_rel, n_files, n_tensors_checked);
    lk_t_end();
}

/* stories260K/tensor_types.txt: "== FILE bytes=N", "general.file_type=.. n_tensors=N",
 * then "name TYPE [a x b] offset=ABS bytes=B" (absolute data offsets, checked too). */
static void check_stories_types(void) {
    const char *list = lk_t_fixture("stories260K/tensor_types.txt");
    FILE *f;
    char line[1024], path[1024];
    lk_gguf *g = NULL;
    long n_files = 0, n_checked = 0, expect_n = -1, seen = 0;
    if (!list) { lk_t_skip("stories260K/tensor_types.txt", "fixtures absent (../shared/fixtures)"); return; }
    lk_t_begin("stories260K/tensor_types.txt");
    f = fopen(list, "r");
    while (fgets(line, sizeof line, f)) {
        char name[256], type[32], a[32], b[32];
        long long off, bytes, fbytes;
        char file[256];
        lk_gguf_params pp;
        if (sscanf(line, "== %255s bytes=%lld", file, &fbytes) == 2) {
            if (g) { CHECK(seen == expect_n, "listed %ld of %ld", seen, expect_n); lk_gguf_free(g); g = NULL; }
            snprintf(path, sizeof path, "%s/stories260K/%s", lk_t_fixtures(), file);
            pp = params();
            if (lk_gguf_read_file(path, &pp, &g)) { CHECK(0, "%s: %s", file, lk_last_error()); g = NULL; continue; }
            CHECK((long long)g->len == fbytes, "%s size", file);
            n_files++; seen = 0; expect_n = -1;
            continue;
        }
        if (!g) continue;
        if (strstr(line, "n_tensors=")) {
            char *p = strstr(line, "file_type=");
            expect_n = atol(strstr(line, "n_tensors=") + 10);
            CHECK((long)g->n_tensors == expect_n, "n_tensors");
            if (p && p[10] != '(') { uint32_t v = 0; CHECK_OK(lk_gguf_get_u32(g, "general.file_type", &v)); CHECK((long)v == atol(p + 10), "file_type"); }
            else CHECK(lk_gguf_find_key(g, "general.file_type") < 0, "file_type absent");
            continue;
        }
        a[0] = b[0] = 0;
        if (sscanf(line, " %255s %31s [%31[0-9] x %31[0-9]] offset=%lld bytes=%lld", name, type, a, b, &off, &bytes) == 6 ||
            (sscanf(line, " %255s %31s [%31[0-9]] offset=%lld bytes=%lld", name, type, a, &off, &bytes) == 5 && (b[0] = 0, 1))) {
            int64_t ti = lk_gguf_find_tensor(g, name);
            seen++;
            CHECK(ti >= 0, "%s missing", name);
            if (ti < 0) continue;
            CHECK(lk_type_from_name(type) == (int)g->tensors[ti].type, "%s type", name);
            CHECK(g->tensors[ti].ne[0] == atoll(a) && (b[0] ? g->tensors[ti].ne[1] == atoll(b) && g->tensors[ti].n_dims == 2 : g->tensors[ti].n_dims == 1), "%s shape", name);
            CHECK((long long)(g->data_offset + g->tensors[ti].offset) == off, "%s offset", name);
            CHECK((long long)g->tensors[ti].nbytes == bytes, "%s bytes", name);
            n_checked++;
        }
    }
    if (g) { CHECK(seen == expect_n, "listed %ld of %ld", seen, expect_n); lk_gguf_free(g); }
    fclose(f);
    CHECK(n_files == 8, "%ld files", n_files);
    printf("  stories260K: %ld files, %ld tensors checked (type, shape, offset, bytes)\n", n_files, n_checked);
    lk_t_end();
}

static void check_kv(void) {
    const char *p = lk_t_fixture("models/llama/llama-F32.gguf");
    const char *q = lk_t_fixture("models/gemma2/gemma2-F32.gguf");
    const char *s = lk_t_fixture("stories260K/stories260K-F32.gguf");
    lk_gguf *g;
    lk_gguf_params pp;
    uint32_t u; uint64_t u64; int32_t i32; float f; lk_str str; int64_t i64; double d;
    lk_gguf_type et; uint64_t n; const lk_gguf_value *arr;
    if (!p || !q || !s) { lk_t_skip("gguf-kv-values", "fixtures absent"); return; }
    lk_t_begin("gguf-kv-values");
    pp = params();
    CHECK_OK(lk_gguf_read_file(p, &pp, &g));
    /* values from the fixtures README, table in section 1 */
    CHECK_OK(lk_gguf_get_u32(g, "llama.block_count", &u)); CHECK(u == 2, "block_count %u", u);
    CHECK_OK(lk_gguf_get_u64(g, "llama.embedding_length", &u64)); CHECK(u64 == 256, "n_embd");   /* u32 read as u64 */
    CHECK_OK(lk_gguf_get_i32(g, "llama.attention.head_count", &i32)); CHECK(i32 == 8, "n_head");
    CHECK_OK(lk_gguf_get_u64_at(g, "llama.attention.head_count_kv", 1, &u64)); CHECK(u64 == 2, "scalar via _at");
    CHECK_OK(lk_gguf_get_f32(g, "llama.attention.layer_norm_rms_epsilon", &f)); CHECK(f > 0.99e-5f && f < 1.01e-5f, "eps");
    CHECK_OK(lk_gguf_get_str(g, "general.name", &str)); CHECK(lk_str_eq(str, "fixture-a-llama"), "name");
    CHECK_OK(lk_gguf_get_str(g, "tokenizer.ggml.model", &str)); CHECK(lk_str_eq(str, "llama"), "tokenizer model");
    CHECK_OK(lk_gguf_get_arr(g, "tokenizer.ggml.tokens", &et, &n, &arr)); CHECK(et == LK_GGUF_STRING && n == 512, "tokens");
    CHECK(lk_str_eq(arr->v.strs[1], "<s>"), "token 1 is <s>");
    CHECK_OK(lk_gguf_get_arr(g, "tokenizer.ggml.scores", &et, &n, &arr)); CHECK(et == LK_GGUF_FLOAT32 && n == 512, "scores");
    CHECK_OK(lk_gguf_get_i64_at(g, "tokenizer.ggml.token_type", 1, &i64)); CHECK(i64 == 3, "token_type[1] = control (3)");
    CHECK(lk_gguf_get_u32(g, "general.name", &u) == LK_ERR_TYPE, "string read as u32 must fail");
    CHECK(lk_gguf_get_u32(g, "no.such.key", &u) == LK_ERR_NOT_FOUND, "absent key");
    CHECK(lk_gguf_get_u64(g, "tokenizer.ggml.scores", &u64) == LK_ERR_TYPE, "array via plain getter");
    CHECK(lk_gguf_get_f64_at(g, "tokenizer.ggml.scores", 512, &d) == LK_ERR_RANGE, "index out of range");
    CHECK(lk_gguf_find_tensor(g, "blk.1.ffn_down.weight") >= 0, "tensor lookup");
    CHECK(lk_gguf_find_tensor(g, "blk.2.ffn_down.weight") < 0, "absent tensor");
    {   /* zero-copy: tensor data points into the mapped file, inside it */
        int64_t ti = lk_gguf_find_tensor(g, "output_norm.weight");
        lk_tensor t;
        CHECK_OK(lk_gguf_tensor_view(g, ti, &t));
        CHECK((const unsigned char *)t.data >= g->buf && (const unsigned char *)t.data + lk_tensor_nbytes(&t) <= g->buf + g->len, "data inside buffer");
        CHECK(((const float *)t.data)[0] > 0.8f && ((const float *)t.data)[0] < 1.2f, "norm weight ~ 1 + N(0, .05)");
    }
    lk_gguf_free(g);
    pp = params();
    CHECK_OK(lk_gguf_read_file(q, &pp, &g));
    CHECK_OK(lk_gguf_get_u32(g, "gemma2.block_count", &u)); CHECK(u == 26, "gemma2 layers");
    CHECK_OK(lk_gguf_get_f32(g, "gemma2.attn_logit_softcapping", &f)); CHECK(f == 50.0f, "softcap");
    CHECK_OK(lk_gguf_get_u32(g, "gemma2.attention.sliding_window", &u)); CHECK(u == 16, "window");
    lk_gguf_free(g);
    pp = params();
    CHECK_OK(lk_gguf_read_file(s, &pp, &g));
    CHECK_OK(lk_gguf_get_u32(g, "llama.context_length", &u)); CHECK(u == 128, "stories ctx");
    CHECK_OK(lk_gguf_get_u32(g, "llama.feed_forward_length", &u)); CHECK(u == 172, "stories ff");
    lk_gguf_free(g);
    lk_t_end();
}

static void check_vocab_files(void) {
    static const struct { const char *name; uint64_t n; const char *model; } v[] = {
        {"llama-spm", 32000, "llama"}, {"phi-3", 32064, "llama"}, {"gpt-2", 50257, "gpt2"},
        {"deepseek-coder", 32256, "gpt2"}, {"falcon", 65024, "gpt2"}, {"mpt", 50432, "gpt2"}, {"bert-bge", 30522, "bert"} };
    size_t i;
    char rel[256];
    snprintf(rel, sizeof rel, "tokenizer/ggml-vocab-%s.gguf", v[0].name);
    if (!lk_t_fixture(rel)) { lk_t_skip("gguf-vocab-files", "fixtures absent"); return; }
    lk_t_begin("gguf-vocab-files");
    for (i = 0; i < sizeof v / sizeof v[0]; i++) {
        lk_gguf *g; lk_str s; uint64_t n = 0;
        lk_gguf_params pp = params();
        snprintf(rel, sizeof rel, "tokenizer/ggml-vocab-%s.gguf", v[i].name);
        if (lk_gguf_read_file(lk_t_fixture(rel), &pp, &g)) { CHECK(0, "%s: %s", rel, lk_last_error()); continue; }
        CHECK(g->n_tensors == 0, "%s: vocab-only", rel);
        CHECK_OK(lk_gguf_get_str(g, "tokenizer.ggml.model", &s)); CHECK(lk_str_eq(s, v[i].model), "%s model", rel);
        CHECK_OK(lk_gguf_get_arr(g, "tokenizer.ggml.tokens", NULL, &n, NULL)); CHECK(n == v[i].n, "%s: %llu tokens", rel, (unsigned long long)n);
        lk_gguf_free(g);
    }
    lk_t_end();
}

/* Re-writing a fixture through the writer (all KVs copied with add_value,
 * tensors by reference) must reproduce the file byte for byte: gguf-py and
 * our writer share the layout rules (v3, alignment 32, padded tensors). */
static void check_rewrite_identical(const char *rel) {
    const char *p = lk_t_fixture(rel);
    size_t len;
    unsigned char *orig, *out;
    lk_gguf *g; lk_gguf_writer *w;
    uint64_t i;
    char name[300];
    snprintf(name, sizeof name, "gguf-rewrite-identical %s", rel);
    if (!p) { lk_t_skip(name, "fixtures absent"); return; }
    lk_t_begin(name);
    orig = lk_t_read_file(p, &len);
    { lk_gguf_params pp = params(); CHECK_OK(lk_gguf_read_memory(orig, len, &pp, &g)); }
    CHECK_OK(lk_gguf_writer_new(wparams(walloc()), &w));
    if (!g || !w) { lk_t_end(); return; }
    for (i = 0; i < g->n_kv; i++) {
        char key[256];
        snprintf(key, sizeof key, "%.*s", (int)g->kv[i].key.len, g->kv[i].key.ptr);
        if (strcmp(key, "general.alignment") == 0) continue;
        CHECK_OK(lk_gguf_writer_add_value(w, key, &g->kv[i].value));
    }
    for (i = 0; i < g->n_tensors; i++) {
        char tn[256];
        snprintf(tn, sizeof tn, "%.*s", (int)g->tensors[i].name.len, g->tensors[i].name.ptr);
        CHECK_OK(lk_gguf_writer_add_tensor(w, tn, g->tensors[i].type, g->tensors[i].n_dims, g->tensors[i].ne, g->tensors[i].data, 0));
    }
    CHECK(lk_gguf_writer_size(w) == len, "size %llu vs %zu", (unsigned long long)lk_gguf_writer_size(w), len);
    out = (unsigned char *)calloc(1, (size_t)lk_gguf_writer_size(w) + 1);
    CHECK_OK(lk_gguf_writer_write_memory(w, out, (size_t)lk_gguf_writer_size(w)));
    CHECK(lk_gguf_writer_size(w) == len && memcmp(out, orig, len) == 0, "bytes differ");
    /* and through a file */
    {
        const char *tmp = "build/tests/rewrite.gguf";
        size_t l2; unsigned char *b2;
        CHECK_OK(lk_gguf_writer_write_file(w, tmp));
        b2 = lk_t_read_file(tmp, &l2);
        CHECK(b2 && l2 == len && memcmp(b2, orig, len) == 0, "file bytes differ");
        free(b2); remove(tmp);
    }
    lk_gguf_writer_free(w); lk_gguf_free(g); free(orig); free(out);
    lk_t_end();
}

/* Writer -> reader round trip over every value type, nested arrays,
 * custom alignment and odd tensor sizes. */
static void check_roundtrip_all_types(void) {
    lk_gguf_writer *w; lk_gguf *g;
    unsigned char *buf;
    uint64_t size, i;
    lk_gguf_value v, inner[2], deep[1];
    uint8_t u8s[3] = {1, 2, 255}; int16_t i16s[2] = {-5, 7}; double f64s[2] = {1.5, -2.25}; uint8_t bools[3] = {1, 0, 1};
    int64_t i64s[2] = {-1, INT64_MAX}; int32_t i32s[3] = {-3, 0, 3};
    const char *strs[3] = {"a", "", "hello world"};
    float t1[6] = {1, 2, 3, 4, 5, 6};
    uint16_t t2[3] = {0x3c00, 0x4000, 0x4200};
    int64_t ne1[2] = {3, 2}, ne2[1] = {3};
    lk_gguf_params pp = params();
    lk_t_begin("gguf-roundtrip-all-types");
    CHECK_OK(lk_gguf_writer_new(wparams(walloc()), &w));
    if (!w) { lk_t_end(); return; }
    CHECK_OK(lk_gguf_writer_set_alignment(w, 64));
    memset(&v, 0, sizeof v);
    v.type = LK_GGUF_UINT8; v.v.u = 200; CHECK_OK(lk_gguf_writer_add_value(w, "t.u8", &v));
    v.type = LK_GGUF_INT8; v.v.i = -100; CHECK_OK(lk_gguf_writer_add_value(w, "t.i8", &v));
    v.type = LK_GGUF_UINT16; v.v.u = 60000; CHECK_OK(lk_gguf_writer_add_value(w, "t.u16", &v));
    v.type = LK_GGUF_INT16; v.v.i = -30000; CHECK_OK(lk_gguf_writer_add_value(w, "t.i16", &v));
    CHECK_OK(lk_gguf_writer_add_u32(w, "t.u32", 4000000000u));
    CHECK_OK(lk_gguf_writer_add_i32(w, "t.i32", -2000000000));
    CHECK_OK(lk_gguf_writer_add_f32(w, "t.f32", 0.25f));
    CHECK_OK(lk_gguf_writer_add_bool(w, "t.bool", 1));
    CHECK_OK(lk_gguf_writer_add_str(w, "t.str", "h\xc3\xa9llo"));
    CHECK_OK(lk_gguf_writer_add_u64(w, "t.u64", 18000000000000000000ull));
    v.type = LK_GGUF_INT64; v.v.i = INT64_MIN; CHECK_OK(lk_gguf_writer_add_value(w, "t.i64", &v));
    v.type = LK_GGUF_FLOAT64; v.v.f = 3.141592653589793; CHECK_OK(lk_gguf_writer_add_value(w, "t.f64", &v));
    CHECK_OK(lk_gguf_writer_add_arr(w, "a.u8", LK_GGUF_UINT8, u8s, 3));
    CHECK_OK(lk_gguf_writer_add_arr(w, "a.i16", LK_GGUF_INT16, i16s, 2));
    CHECK_OK(lk_gguf_writer_add_arr(w, "a.i32", LK_GGUF_INT32, i32s, 3));
    CHECK_OK(lk_gguf_writer_add_arr(w, "a.i64", LK_GGUF_INT64, i64s, 2));
    CHECK_OK(lk_gguf_writer_add_arr(w, "a.f64", LK_GGUF_FLOAT64, f64s, 2));
    CHECK_OK(lk_gguf_writer_add_arr(w, "a.bool", LK_GGUF_BOOL, bools, 3));
    CHECK_OK(lk_gguf_writer_add_arr(w, "a.empty", LK_GGUF_UINT32, NULL, 0));
    CHECK_OK(lk_gguf_writer_add_arr_str(w, "a.str", strs, 3));
    /* nested: [[-3,0,3], [[...]]] (array of arrays of mixed element types) */
    memset(inner, 0, sizeof inner); memset(deep, 0, sizeof deep);
    inner[0].type = LK_GGUF_ARRAY; inner[0].arr_type = LK_GGUF_INT32; inner[0].n = 3; inner[0].v.arr = i32s;
    deep[0].type = LK_GGUF_ARRAY; deep[0].arr_type = LK_GGUF_UINT8; deep[0].n = 3; deep[0].v.arr = u8s;
    inner[1].type = LK_GGUF_ARRAY; inner[1].arr_type = LK_GGUF_ARRAY; inner[1].n = 1; inner[1].v.elems = deep;
    v.type = LK_GGUF_ARRAY; v.arr_type = LK_GGUF_ARRAY; v.n = 2; v.v.elems = inner;
    CHECK_OK(lk_gguf_writer_add_value(w, "a.nested", &v));
    CHECK(lk_gguf_writer_add_u32(w, "t.u32", 1) == LK_ERR_INVALID_ARG, "duplicate key must be refused");
    CHECK_OK(lk_gguf_writer_add_tensor(w, "w.f32", LK_TYPE_F32, 2, ne1, t1, 1));
    CHECK_OK(lk_gguf_writer_add_tensor(w, "w.f16", LK_TYPE_F16, 1, ne2, t2, 0));
    CHECK(lk_gguf_writer_add_tensor(w, "w.f16", LK_TYPE_F16, 1, ne2, t2, 0) == LK_ERR_INVALID_ARG, "duplicate tensor refused");
    { int64_t bad[1] = {33}; CHECK(lk_gguf_writer_add_tensor(w, "w.bad", LK_TYPE_Q4_0, 1, bad, t1, 0) != LK_OK, "row not multiple of block refused"); }
    size = lk_gguf_writer_size(w);
    CHECK(size % 64 == 0, "padded to alignment");
    buf = (unsigned char *)malloc((size_t)size);
    CHECK(lk_gguf_writer_write_memory(w, buf, (size_t)size - 1) == LK_ERR_RANGE, "short buffer refused");
    CHECK_OK(lk_gguf_writer_write_memory(w, buf, (size_t)size));
    CHECK_OK(lk_gguf_read_memory(buf, (size_t)size, &pp, &g));
    if (!g) { lk_t_end(); return; }
    {
        uint64_t u; int64_t s; double d; int b; lk_str str; const lk_gguf_value *a;
        CHECK(g->alignment == 64 && g->data_offset % 64 == 0, "alignment");
        CHECK_OK(lk_gguf_get_u64(g, "t.u8", &u)); CHECK(u == 200, "u8");
        CHECK_OK(lk_gguf_get_i64(g, "t.i8", &s)); CHECK(s == -100, "i8");
        CHECK(lk_gguf_get_u64(g, "t.i8", &u) == LK_ERR_RANGE, "negative as unsigned");
        CHECK_OK(lk_gguf_get_u64(g, "t.u16", &u)); CHECK(u == 60000, "u16");
        CHECK_OK(lk_gguf_get_i64(g, "t.i16", &s)); CHECK(s == -30000, "i16");
        CHECK_OK(lk_gguf_get_u64(g, "t.u32", &u)); CHECK(u == 4000000000u, "u32");
        { int32_t x; CHECK(lk_gguf_get_i32(g, "t.u32", &x) == LK_ERR_RANGE, "u32 > INT32_MAX as i32"); }
        CHECK_OK(lk_gguf_get_i64(g, "t.i32", &s)); CHECK(s == -2000000000, "i32");
        CHECK_OK(lk_gguf_get_f64(g, "t.f32", &d)); CHECK(d == 0.25, "f32");
        CHECK_OK(lk_gguf_get_bool(g, "t.bool", &b)); CHECK(b == 1, "bool");
        CHECK_OK(lk_gguf_get_str(g, "t.str", &str)); CHECK(lk_str_eq(str, "h\xc3\xa9llo"), "str");
        CHECK_OK(lk_gguf_get_u64(g, "t.u64", &u)); CHECK(u == 18000000000000000000ull, "u64");
        CHECK_OK(lk_gguf_get_i64(g, "t.i64", &s)); CHECK(s == INT64_MIN, "i64");
        CHECK_OK(lk_gguf_get_f64(g, "t.f64", &d)); CHECK(d == 3.141592653589793, "f64");
        CHECK_OK(lk_gguf_get_u64_at(g, "a.u8", 2, &u)); CHECK(u == 255, "a.u8[2]");
        CHECK_OK(lk_gguf_get_i64_at(g, "a.i16", 0, &s)); CHECK(s == -5, "a.i16[0]");
        CHECK_OK(lk_gguf_get_i64_at(g, "a.i64", 1, &s)); CHECK(s == INT64_MAX, "a.i64[1]");
        CHECK_OK(lk_gguf_get_f64_at(g, "a.f64", 1, &d)); CHECK(d == -2.25, "a.f64[1]");
        CHECK_OK(lk_gguf_get_u64_at(g, "a.bool", 1, &u)); CHECK(u == 0, "a.bool[1]");
        CHECK_OK(lk_gguf_get_arr(g, "a.empty", NULL, &u, NULL)); CHECK(u == 0, "empty array");
        CHECK_OK(lk_gguf_get_arr(g, "a.str", NULL, &u, &a));
        CHECK(u == 3 && lk_str_eq(a->v.strs[0], "a") && a->v.strs[1].len == 0 && lk_str_eq(a->v.strs[2], "hello world"), "a.str");
        CHECK_OK(lk_gguf_get_arr(g, "a.nested", NULL, &u, &a));
        CHECK(u == 2 && a->arr_type == LK_GGUF_ARRAY, "nested outer");
        if (u == 2) {
            int64_t e;
            CHECK(a->v.elems[0].arr_type == LK_GGUF_INT32 && a->v.elems[0].n == 3, "nested[0]");
            CHECK_OK(lk_gguf_value_i64_at(&a->v.elems[0], 2, &e)); CHECK(e == 3, "nested[0][2]");
            CHECK(a->v.elems[1].arr_type == LK_GGUF_ARRAY && a->v.elems[1].n == 1, "nested[1]");
            CHECK_OK(lk_gguf_value_i64_at(&a->v.elems[1].v.elems[0], 2, &e)); CHECK(e == 255, "nested[1][0][2]");
        }
        CHECK(g->n_tensors == 2, "tensors");
        i = (uint64_t)lk_gguf_find_tensor(g, "w.f32");
        CHECK(g->tensors[i].ne[0] == 3 && g->tensors[i].ne[1] == 2 && memcmp(g->tensors[i].data, t1, sizeof t1) == 0, "w.f32 data");
        CHECK(g->tensors[i].offset % 64 == 0, "aligned offset");
        i = (uint64_t)lk_gguf_find_tensor(g, "w.f16");
        CHECK(g->tensors[i].offset % 64 == 0 && memcmp(g->tensors[i].data, t2, sizeof t2) == 0, "w.f16 data");
    }
    lk_gguf_free(g);
    /* a second generation is byte-identical: everything survived */
    {
        lk_gguf_writer *w2; unsigned char *b2;
        pp = params();
        CHECK_OK(lk_gguf_read_memory(buf, (size_t)size, &pp, &g));
        CHECK_OK(lk_gguf_writer_new(wparams(walloc2()), &w2));
        if (!g || !w2) { lk_t_end(); return; }
        for (i = 0; i < g->n_kv; i++) {
            char key[64]; snprintf(key, sizeof key, "%.*s", (int)g->kv[i].key.len, g->kv[i].key.ptr);
            if (strcmp(key, "general.alignment") == 0) CHECK_OK(lk_gguf_writer_set_alignment(w2, 64));
            else CHECK_OK(lk_gguf_writer_add_value(w2, key, &g->kv[i].value));
        }
        for (i = 0; i < g->n_tensors; i++) {
            char tn[64]; snprintf(tn, sizeof tn, "%.*s", (int)g->tensors[i].name.len, g->tensors[i].name.ptr);
            CHECK_OK(lk_gguf_writer_add_tensor(w2, tn, g->tensors[i].type, g->tensors[i].n_dims, g->tensors[i].ne, g->tensors[i].data, 0));
        }
        CHECK(lk_gguf_writer_size(w2) == size, "same size");
        b2 = (unsigned char *)malloc((size_t)size);
        CHECK_OK(lk_gguf_writer_write_memory(w2, b2, (size_t)size));
        CHECK(memcmp(b2, buf, (size_t)size) == 0, "second generation identical");
        free(b2); lk_gguf_writer_free(w2); lk_gguf_free(g);
    }
    lk_gguf_writer_free(w); free(buf);
    lk_t_end();
}

static void check_arena_and_types(void) {
    unsigned char mem[256];
    lk_arena a;
    void *p1, *p2;
    lk_tensor t;
    int64_t ne[2] = {64, 3};
    lk_t_begin("arena-and-type-table");
    lk_arena_init(&a, mem, sizeof mem);
    p1 = lk_arena_alloc(&a, 10, 16); p2 = lk_arena_alloc(&a, 10, 64);
    CHECK(p1 && p2 && ((uintptr_t)p2 & 63) == 0 && (unsigned char *)p2 >= (unsigned char *)p1 + 10, "aligned bump");
    CHECK(lk_arena_alloc(&a, 1000, 16) == NULL, "overflow -> NULL");
    CHECK(lk_arena_alloc(&a, (size_t)-1, 16) == NULL, "huge -> NULL");
    lk_arena_reset(&a); CHECK(a.used == 0 && a.peak > 0, "reset keeps peak");
    /* block sizes and bytes per block from the ggml format definitions */
    CHECK(lk_row_size(LK_TYPE_Q4_0, 64) == 36, "q4_0: 2 blocks of 2+16 bytes");
    CHECK(lk_row_size(LK_TYPE_Q4_K, 256) == 144, "q4_K: 2+2+12+128");
    CHECK(lk_row_size(LK_TYPE_Q6_K, 512) == 420, "q6_K: 128+64+16+2 per block");
    CHECK(lk_row_size(LK_TYPE_Q8_0, 33) == 0, "not a multiple");
    CHECK(lk_row_size(4, 32) == 0 && lk_type_get(31) == NULL && lk_type_get(43) == NULL && lk_type_get(-1) == NULL, "removed ids");
    CHECK(lk_type_from_name("Q4_K") == LK_TYPE_Q4_K && lk_type_from_name("bf16") == LK_TYPE_BF16 && lk_type_from_name("x") == -1, "names");
    CHECK_OK(lk_tensor_init(&t, LK_TYPE_Q8_0, 2, ne, NULL));
    CHECK(t.nb[0] == 34 && t.nb[1] == 68 && t.nb[2] == 204 && lk_tensor_nbytes(&t) == 204 && lk_tensor_nrows(&t) == 3, "strides");
    { int64_t bad[2] = {64, -1}; CHECK(lk_tensor_init(&t, LK_TYPE_F32, 2, bad, NULL) == LK_ERR_RANGE, "negative ne"); }
    CHECK(lk_status_str(LK_ERR_FORMAT)[0] != 0 && lk_set_error(LK_ERR_IO, "x %d %s %llu", -5, "y", 7ull) == LK_ERR_IO, "errors");
    CHECK(strcmp(lk_last_error(), "x -5 y 7") == 0, "formatter: '%s'", lk_last_error());
    lk_t_end();
}

int main(void) {
    check_arena_and_types();
    check_tensor_types("tensor_types.txt", "%s/models/%s/%s");
    check_stories_types();
    check_kv();
    check_vocab_files();
    check_rewrite_identical("models/llama/llama-Q4_K_M-mix.gguf");
    check_rewrite_identical("stories260K/stories260K-Q8_0.gguf");
    check_rewrite_identical("tokenizer/ggml-vocab-gpt-2.gguf");
    check_roundtrip_all_types();
    return lk_t_exit();
}
