/* synth - write a random-weight GGUF model of a named shape, for benchmarks.
 *
 *   synth [--arch llama|qwen2] --preset NAME [--type T] [--pure] [--layers N]
 *         [--seed S] [--vocab N] [--ctx N] [-t THREADS] [-q] -o FILE.gguf
 *
 * Presets (arch, n_embd, n_ff, layers, heads, kv heads, vocab, ctx, tied output):
 *   tinyllama-1.1b  llama  2048  5632 22 32  4  32000 2048 no
 *   llama-7b-shape  llama  4096 11008 32 32 32  32000 4096 no
 *   qwen2-0.5b      qwen2   896  4864 24 14  2 151936 4096 yes (q/k/v biases)
 *   smollm-135m     llama   576  1536 30  9  3  49152 2048 yes
 *   tiny            llama   256   512  2  4  2    512  256 no   (for tests)
 * --layers, --vocab and --ctx override the preset; --arch qwen2 adds biases.
 *
 * Weights: 2-D matrices and biases N(0, 0.02), norm weights 1 (F32). Every
 * value depends only on (seed, tensor name, row), so the thread count does
 * not change the file.
 *
 * Types: T is a llama-quantize file type name (Q4_0, Q8_0, Q4_K_M, F16, ...;
 * default F16). Without --pure the per-tensor types follow llama-quantize's
 * default mix rules (lk_quant_mix_type, as tools/quantize.c uses them
 * through lk_quantize_gguf): e.g. Q4_0 puts output.weight in Q6_K, Q4_K_M uses Q6_K for half
 * of attn_v/ffn_down. --pure: every 2-D weight gets T (rows that do not fit
 * the block size fall back like llama-quantize). 1-D tensors are always F32.
 *
 * Tokenizer: an SPM vocabulary (tokenizer.ggml.model "llama") of n_vocab
 * pieces: <unk>, <s>, </s>, the 256 byte tokens <0x00>..<0xFF>, then
 * synthetic unique pieces ("▁a", "a", "▁b", ...) with decreasing scores, so
 * llmkit and llama.cpp both load and tokenize with it.
 *
 * The file is written incrementally: header and tensor infos first, then
 * each tensor generated and quantized in chunks of rows (at most ~64 MiB of
 * floats at a time), so a 7B-shape model needs well under 1 GB of RAM. */
#include "lk_tool.h"
#define LLMKIT_IMPLEMENTATION
#include "llmkit.h"
#include <math.h>

typedef struct syn_preset {
    const char *name, *arch;
    int n_embd, n_ff, n_layer, n_head, n_head_kv, n_vocab, n_ctx, tied;
} syn_preset;
static const syn_preset syn_presets[] = {
    { "tinyllama-1.1b", "llama", 2048, 5632, 22, 32, 4, 32000, 2048, 0 },
    { "llama-7b-shape", "llama", 4096, 11008, 32, 32, 32, 32000, 4096, 0 },
    { "qwen2-0.5b", "qwen2", 896, 4864, 24, 14, 2, 151936, 4096, 1 },
    { "smollm-135m", "llama", 576, 1536, 30, 9, 3, 49152, 2048, 1 },
    { "tiny", "llama", 256, 512, 2, 4, 2, 512, 256, 0 },
};

enum { SYN_WEIGHT, SYN_NORM, SYN_BIAS };
typedef struct syn_tensor {
    char name[64];
    int kind, n_dims, layer;
    int64_t ne[2];
    lk_type type;
    uint64_t offset, nbytes;   /* in the data section */
} syn_tensor;

/* ---- a small incremental GGUF v3 writer ---------------------------------- */
typedef struct syn_out { FILE *f; uint64_t pos; int err; } syn_out;
static void so_bytes(syn_out *o, const void *p, size_t n) {
    if (o->err || n == 0) return;
    if (fwrite(p, 1, n, o->f) != n) o->err = errno ? errno : EIO;
    o->pos += n;
}
static void so_u32(syn_out *o, uint32_t v) { so_bytes(o, &v, 4); }  /* GGUF is little-endian; so is every host we run on */
static void so_u64(syn_out *o, uint64_t v) { so_bytes(o, &v, 8); }
static void so_str(syn_out *o, const char *s) { size_t n = strlen(s); so_u64(o, n); so_bytes(o, s, n); }
static void so_pad(syn_out *o, uint64_t align) {
    static const unsigned char zeros[64] = { 0 };
    while (o->pos % align) so_bytes(o, zeros, (size_t)(align - o->pos % align > 64 ? 64 : align - o->pos % align));
}
static void kv_u32(syn_out *o, const char *k, uint32_t v) { so_str(o, k); so_u32(o, LK_GGUF_UINT32); so_u32(o, v); }
static void kv_f32(syn_out *o, const char *k, float v) { uint32_t b; memcpy(&b, &v, 4); so_str(o, k); so_u32(o, LK_GGUF_FLOAT32); so_u32(o, b); }
static void kv_bool(syn_out *o, const char *k, int v) { unsigned char b = (unsigned char)(v != 0); so_str(o, k); so_u32(o, LK_GGUF_BOOL); so_bytes(o, &b, 1); }
static void kv_str(syn_out *o, const char *k, const char *v) { so_str(o, k); so_u32(o, LK_GGUF_STRING); so_str(o, v); }
static void kv_arr_head(syn_out *o, const char *k, lk_gguf_type t, uint64_t n) {
    so_str(o, k); so_u32(o, LK_GGUF_ARRAY); so_u32(o, t); so_u64(o, n);
}

/* ---- vocabulary ---------------------------------------------------------- */
/* piece i >= 259: j = i - 259; letters of j/2 in bijective base 26, with the
 * SPM word-start mark U+2581 in front when j is even. */
static void syn_piece(int i, char *buf) {
    static const char *hex = "0123456789ABCDEF";
    char tmp[16];
    int n = 0, j, k = 0;
    if (i == 0) { strcpy(buf, "<unk>"); return; }
    if (i == 1) { strcpy(buf, "<s>"); return; }
    if (i == 2) { strcpy(buf, "</s>"); return; }
    if (i < 259) { sprintf(buf, "<0x%c%c>", hex[(i - 3) >> 4], hex[(i - 3) & 15]); return; }
    j = i - 259;
    if (j % 2 == 0) { buf[k++] = (char)0xE2; buf[k++] = (char)0x96; buf[k++] = (char)0x81; }
    j = j / 2 + 1;
    while (j > 0) { j--; tmp[n++] = (char)('a' + j % 26); j /= 26; }
    while (n > 0) buf[k++] = tmp[--n];
    buf[k] = 0;
}

/* ---- random values ------------------------------------------------------- */
static uint64_t syn_hash(const char *s, uint64_t h) {
    for (; *s; s++) { h ^= (unsigned char)*s; h *= 0x100000001b3ull; }
    return h;
}
/* n values N(0, sd) by Box-Muller from a PCG32 stream seeded by (key, row) */
static void syn_normal(float *y, int64_t n, uint64_t key, int64_t row, float sd) {
    lk_rng r;
    int64_t i;
    lk_rng_seed_stream(&r, key, (uint64_t)row);
    for (i = 0; i < n; i += 2) {
        float u1 = ((float)(lk_rng_u32(&r) >> 8) + 1.0f) * (1.0f / 16777216.0f);   /* (0, 1] */
        float u2 = (float)(lk_rng_u32(&r) >> 8) * (1.0f / 16777216.0f);            /* [0, 1) */
        float rad = sd * sqrtf(-2.0f * logf(u1)), th = 6.28318530718f * u2;
        y[i] = rad * cosf(th);
        if (i + 1 < n) y[i + 1] = rad * sinf(th);
    }
}

typedef struct syn_job {
    const syn_tensor *t;
    uint64_t key;
    int64_t row0, nrows;       /* rows of this chunk               */
    float *f32;                /* [nrows * ne0] scratch            */
    unsigned char *dst;        /* [nrows * row_size]               */
    size_t row_size;
    int fail;
} syn_job;
static void syn_task(void *arg, int task, int n_tasks) {
    syn_job *j = (syn_job *)arg;
    const syn_tensor *t = j->t;
    int64_t ne0 = t->ne[0], r0 = j->nrows * task / n_tasks, r1 = j->nrows * (task + 1) / n_tasks, r;
    if (r1 <= r0) return;
    for (r = r0; r < r1; r++) {
        float *y = j->f32 + r * ne0;
        if (t->kind == SYN_NORM) { int64_t i; for (i = 0; i < ne0; i++) y[i] = 1.0f; }
        else syn_normal(y, ne0, j->key, j->row0 + r, 0.02f);
    }
    if (t->type == LK_TYPE_F32) {
        memcpy(j->dst + (size_t)r0 * j->row_size, j->f32 + r0 * ne0, (size_t)(r1 - r0) * j->row_size);
    } else if (lk_quantize(t->type, j->f32 + r0 * ne0, j->dst + (size_t)r0 * j->row_size, r1 - r0, ne0, NULL)) {
        j->fail = 1;
    }
}

static int syn_cmp(const void *a, const void *b) {
    const syn_tensor *x = (const syn_tensor *)a, *y = (const syn_tensor *)b;
    if (x->layer != y->layer) return x->layer < y->layer ? -1 : 1;
    return strcmp(x->name, y->name);
}

static int usage(void) {
    size_t i;
    tool_usage("synth [--arch llama|qwen2] --preset NAME [--type T] [--pure] [--layers N] [--seed S]\n"
               "             [--vocab N] [--ctx N] [-t THREADS] [-q] -o FILE.gguf");
    fprintf(stderr, "presets:");
    for (i = 0; i < sizeof syn_presets / sizeof syn_presets[0]; i++) fprintf(stderr, " %s", syn_presets[i].name);
    fprintf(stderr, "\nT: a llama-quantize type name (Q4_0, Q8_0, Q4_K_M, F16, F32, ...), default F16\n");
    return 2;
}

int main(int argc, char **argv) {
    const char *arch = NULL, *preset_name = NULL, *type_name = "F16", *out_path = NULL;
    const syn_preset *pr = NULL;
    const lk_ftype_info *ft;
    int pure = 0, n_layer = -1, n_vocab = -1, n_ctx = -1, n_threads = 0, quiet = 0, il, qwen, n_kv, k, nt;
    uint64_t seed = 1, data_start, total_params = 0;
    syn_tensor *ts;
    int n_t = 0;
    lk_quant_mix mix;
    lk_threads th;
    syn_out o;
    size_t i;
    char piece[64];
    float *f32 = NULL;
    unsigned char *dst = NULL;
    size_t f32_cap = 0, dst_cap = 0;

    tool_name = "synth";
    for (k = 1; k < argc; k++) {
        const char *a = argv[k], *x = k + 1 < argc ? argv[k + 1] : NULL;
        if (!strcmp(a, "--pure")) { pure = 1; continue; }
        if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) { quiet = 1; continue; }
        if (!x) return usage();
        if (!strcmp(a, "--arch")) arch = x;
        else if (!strcmp(a, "--preset")) preset_name = x;
        else if (!strcmp(a, "--type")) type_name = x;
        else if (!strcmp(a, "-o")) out_path = x;
        else if (!strcmp(a, "--seed")) seed = strtoull(x, NULL, 10);
        else if (!strcmp(a, "--layers")) { if (!tool_parse_int(x, 1, 4096, &n_layer)) return usage(); }
        else if (!strcmp(a, "--vocab")) { if (!tool_parse_int(x, 300, 1L << 22, &n_vocab)) return usage(); }
        else if (!strcmp(a, "--ctx")) { if (!tool_parse_int(x, 1, 1L << 24, &n_ctx)) return usage(); }
        else if (!strcmp(a, "-t")) { if (!tool_parse_int(x, 1, 4096, &n_threads)) return usage(); }
        else return usage();
        k++;
    }
    if (!preset_name || !out_path) return usage();
    for (i = 0; i < sizeof syn_presets / sizeof syn_presets[0]; i++)
        if (!strcmp(syn_presets[i].name, preset_name)) pr = &syn_presets[i];
    if (!pr) { tool_fail(2, "unknown preset '%s'", preset_name); return usage(); }
    if (!arch) arch = pr->arch;
    if (strcmp(arch, "llama") && strcmp(arch, "qwen2")) return tool_fail(2, "--arch must be llama or qwen2");
    ft = lk_ftype_find(type_name);
    if (!ft) return tool_fail(2, "unknown type '%s'", type_name);
    if (n_layer < 0) n_layer = pr->n_layer;
    if (n_vocab < 0) n_vocab = pr->n_vocab;
    if (n_ctx < 0) n_ctx = pr->n_ctx;
    qwen = !strcmp(arch, "qwen2");
    n_kv = pr->n_embd / pr->n_head * pr->n_head_kv;

    /* ---- the tensor list -------------------------------------------------- */
    ts = (syn_tensor *)calloc((size_t)(3 + 12 * n_layer), sizeof *ts);
    if (!ts) return tool_fail(1, "out of memory");
#define SYN_ADD(nm_fmt, lay, kind_, nd, e0, e1) do { \
        syn_tensor *t_ = &ts[n_t++]; \
        snprintf(t_->name, sizeof t_->name, nm_fmt, lay); \
        t_->kind = kind_; t_->n_dims = nd; t_->ne[0] = e0; t_->ne[1] = e1; t_->layer = -1; \
    } while (0)
    SYN_ADD("token_embd.weight%.0d", 0, SYN_WEIGHT, 2, pr->n_embd, n_vocab);
    SYN_ADD("output_norm.weight%.0d", 0, SYN_NORM, 1, pr->n_embd, 1);
    if (!pr->tied) SYN_ADD("output.weight%.0d", 0, SYN_WEIGHT, 2, pr->n_embd, n_vocab);
    for (il = 0; il < n_layer; il++) {
        int first = n_t;
        SYN_ADD("blk.%d.attn_norm.weight", il, SYN_NORM, 1, pr->n_embd, 1);
        SYN_ADD("blk.%d.attn_q.weight", il, SYN_WEIGHT, 2, pr->n_embd, pr->n_embd);
        SYN_ADD("blk.%d.attn_k.weight", il, SYN_WEIGHT, 2, pr->n_embd, n_kv);
        SYN_ADD("blk.%d.attn_v.weight", il, SYN_WEIGHT, 2, pr->n_embd, n_kv);
        if (qwen) {
            SYN_ADD("blk.%d.attn_q.bias", il, SYN_BIAS, 1, pr->n_embd, 1);
            SYN_ADD("blk.%d.attn_k.bias", il, SYN_BIAS, 1, n_kv, 1);
            SYN_ADD("blk.%d.attn_v.bias", il, SYN_BIAS, 1, n_kv, 1);
        }
        SYN_ADD("blk.%d.attn_output.weight", il, SYN_WEIGHT, 2, pr->n_embd, pr->n_embd);
        SYN_ADD("blk.%d.ffn_norm.weight", il, SYN_NORM, 1, pr->n_embd, 1);
        SYN_ADD("blk.%d.ffn_gate.weight", il, SYN_WEIGHT, 2, pr->n_embd, pr->n_ff);
        SYN_ADD("blk.%d.ffn_up.weight", il, SYN_WEIGHT, 2, pr->n_embd, pr->n_ff);
        SYN_ADD("blk.%d.ffn_down.weight", il, SYN_WEIGHT, 2, pr->n_ff, pr->n_embd);
        for (; first < n_t; first++) ts[first].layer = il;
    }
#undef SYN_ADD
    /* llama-quantize's order (by layer, then name): the mix counters see the
     * tensors in the same order as when quantizing a converted model */
    qsort(ts, (size_t)n_t, sizeof *ts, syn_cmp);

    /* ---- per-tensor types (llama-quantize's rules, llmkit.h 7c) ---------- */
    lk_quant_mix_init_shape(&mix, arch, n_layer, pr->n_head, pr->n_head_kv, 0);
    mix.has_output = !pr->tied;
    {
        uint64_t off = 0;
        for (k = 0; k < n_t; k++) {
            syn_tensor *t = &ts[k];
            t->type = LK_TYPE_F32;
            if (t->n_dims == 2 && ft->type != LK_TYPE_F32 && lk_quant_wants_quantize(t->name, 2, 0)) {
                lk_type nt_ = ft->type;
                if (!pure) nt_ = lk_quant_mix_type(&mix, nt_, t->name, t->ne[0], ft->ftype);
                if (t->ne[0] % lk_type_get(nt_)->blck_size) nt_ = lk_quant_fallback_type(nt_, t->ne[0]);
                t->type = nt_;
            }
            if (!lk_type_get(t->type) || (t->type != LK_TYPE_F32 && !lk_type_get(t->type)->from_float))
                return tool_fail(1, "no quantizer for %s", lk_type_name(t->type));
            t->nbytes = (uint64_t)lk_row_size(t->type, t->ne[0]) * (uint64_t)t->ne[1];
            t->offset = off;
            off += (t->nbytes + 31) / 32 * 32;
            total_params += (uint64_t)t->ne[0] * (uint64_t)t->ne[1];
        }
    }

    /* ---- header and metadata --------------------------------------------- */
    o.f = fopen(out_path, "wb");
    o.pos = 0; o.err = 0;
    if (!o.f) return tool_fail(1, "cannot create %s: %s", out_path, strerror(errno));
    so_bytes(&o, "GGUF", 4);
    so_u32(&o, 3);
    so_u64(&o, (uint64_t)n_t);
    so_u64(&o, 24);                       /* number of KVs below: keep in sync */
    {
        char key[128], name[128];
#define AK(suffix) (snprintf(key, sizeof key, "%s.%s", arch, suffix), key)
        kv_str(&o, "general.architecture", arch);                                        /* 1 */
        snprintf(name, sizeof name, "synth-%s-%s", pr->name, ft->name);
        kv_str(&o, "general.name", name);                                                /* 2 */
        kv_u32(&o, "general.alignment", 32);                                             /* 3 */
        kv_u32(&o, "general.file_type", (uint32_t)ft->ftype);                            /* 4 */
        kv_u32(&o, "general.quantization_version", 2);                                   /* 5 */
        kv_u32(&o, AK("context_length"), (uint32_t)n_ctx);                               /* 6 */
        kv_u32(&o, AK("embedding_length"), (uint32_t)pr->n_embd);                        /* 7 */
        kv_u32(&o, AK("block_count"), (uint32_t)n_layer);                                /* 8 */
        kv_u32(&o, AK("feed_forward_length"), (uint32_t)pr->n_ff);                       /* 9 */
        kv_u32(&o, AK("attention.head_count"), (uint32_t)pr->n_head);                    /* 10 */
        kv_u32(&o, AK("attention.head_count_kv"), (uint32_t)pr->n_head_kv);              /* 11 */
        kv_u32(&o, AK("rope.dimension_count"), (uint32_t)(pr->n_embd / pr->n_head));     /* 12 */
        kv_f32(&o, AK("rope.freq_base"), qwen ? 1000000.0f : 10000.0f);                  /* 13 */
        kv_f32(&o, AK("attention.layer_norm_rms_epsilon"), qwen ? 1e-6f : 1e-5f);        /* 14 */
        kv_u32(&o, AK("vocab_size"), (uint32_t)n_vocab);                                 /* 15 */
#undef AK
        kv_str(&o, "tokenizer.ggml.model", "llama");                                     /* 16 */
        kv_arr_head(&o, "tokenizer.ggml.tokens", LK_GGUF_STRING, (uint64_t)n_vocab);     /* 17 */
        for (k = 0; k < n_vocab; k++) { syn_piece(k, piece); so_str(&o, piece); }
        kv_arr_head(&o, "tokenizer.ggml.scores", LK_GGUF_FLOAT32, (uint64_t)n_vocab);    /* 18 */
        for (k = 0; k < n_vocab; k++) { float s = k < 259 ? 0.0f : -(float)(k - 259); so_bytes(&o, &s, 4); }
        kv_arr_head(&o, "tokenizer.ggml.token_type", LK_GGUF_INT32, (uint64_t)n_vocab);  /* 19 */
        for (k = 0; k < n_vocab; k++) { int32_t tt = k == 0 ? 2 : k < 3 ? 3 : k < 259 ? 6 : 1; so_bytes(&o, &tt, 4); }
        kv_u32(&o, "tokenizer.ggml.unknown_token_id", 0);                                /* 20 */
        kv_u32(&o, "tokenizer.ggml.bos_token_id", 1);                                    /* 21 */
        kv_u32(&o, "tokenizer.ggml.eos_token_id", 2);                                    /* 22 */
        kv_bool(&o, "tokenizer.ggml.add_bos_token", 1);                                  /* 23 */
        kv_bool(&o, "tokenizer.ggml.add_eos_token", 0);                                  /* 24 */
    }
    for (k = 0; k < n_t; k++) {
        int d;
        so_str(&o, ts[k].name);
        so_u32(&o, (uint32_t)ts[k].n_dims);
        for (d = 0; d < ts[k].n_dims; d++) so_u64(&o, (uint64_t)ts[k].ne[d]);
        so_u32(&o, (uint32_t)ts[k].type);
        so_u64(&o, ts[k].offset);
    }
    so_pad(&o, 32);
    data_start = o.pos;

    /* ---- tensor data, in chunks of rows ----------------------------------- */
    memset(&th, 0, sizeof th);
    th.n_threads = n_threads;
    nt = lk_threads_count(&th);
    for (k = 0; k < n_t && !o.err; k++) {
        const syn_tensor *t = &ts[k];
        size_t row_size = lk_row_size(t->type, t->ne[0]);
        int64_t rows_per_chunk = ((int64_t)1 << 24) / t->ne[0], r;   /* <= 16M floats = 64 MiB */
        if (rows_per_chunk < 1) rows_per_chunk = 1;
        if (rows_per_chunk > t->ne[1]) rows_per_chunk = t->ne[1];
        if ((size_t)(rows_per_chunk * t->ne[0]) > f32_cap) {
            free(f32); f32_cap = (size_t)(rows_per_chunk * t->ne[0]);
            f32 = (float *)malloc(f32_cap * sizeof(float));
        }
        if ((size_t)rows_per_chunk * row_size > dst_cap) {
            free(dst); dst_cap = (size_t)rows_per_chunk * row_size;
            dst = (unsigned char *)malloc(dst_cap);
        }
        if (!f32 || !dst) return tool_fail(1, "out of memory");
        if (o.pos != data_start + t->offset) return tool_fail(1, "internal error: offset mismatch at %s", t->name);
        if (!quiet)
            fprintf(stderr, "[%3d/%3d] %-28s %6lld x %6lld  %-6s\n", k + 1, n_t, t->name, (long long)t->ne[0],
                    (long long)t->ne[1], lk_type_name(t->type));
        for (r = 0; r < t->ne[1]; r += rows_per_chunk) {
            syn_job job;
            job.t = t;
            job.key = syn_hash(t->name, 0xcbf29ce484222325ull ^ (seed * 0x9e3779b97f4a7c15ull));
            job.row0 = r;
            job.nrows = t->ne[1] - r < rows_per_chunk ? t->ne[1] - r : rows_per_chunk;
            job.f32 = f32; job.dst = dst; job.row_size = row_size; job.fail = 0;
            lk_parallel_for(&th, (int)(job.nrows < nt ? job.nrows : nt), syn_task, &job);
            if (job.fail) return tool_fail(1, "quantizing %s to %s failed", t->name, lk_type_name(t->type));
            so_bytes(&o, dst, (size_t)job.nrows * row_size);
        }
        so_pad(&o, 32);
    }
    free(f32); free(dst); free(ts);
    if (fclose(o.f) != 0 && !o.err) o.err = errno ? errno : EIO;
    if (o.err) { remove(out_path); return tool_fail(1, "writing %s failed: %s", out_path, strerror(o.err)); }
    if (!quiet)
        fprintf(stderr, "synth: wrote %s: %s %s, %d layers, %.3f B params, %.2f MiB\n", out_path, arch, ft->name, n_layer,
                (double)total_params / 1e9, (double)o.pos / 1048576.0);
    return 0;
}
