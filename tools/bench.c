/* bench - prompt processing and generation speed, modelled on llama-bench.
 *
 *   bench -m FILE [-m FILE ...] [-p N[,N..]] [-n N[,N..]] [-d N[,N..]] [-t N[,N..]] [-r REPS]
 *         [-c CTX] [-b BATCH] [-o md|csv|json|jsonl] [--no-bw] [-v]
 *         [any other option of the model and context tables: --kv f16|f32|q8_0|q4_0|zip4|zip2,
 *          --attn, --kv-policy, --kv-budget N, ..., --check-tensors 0|1]
 *   bench --bw-only [-t N]   only the memory-read bandwidth: one JSON line {"mem_bw_gbs": ..., "n_threads": N}
 *   bench --help lists the options (llmkit.h's option tables).
 *
 * Defaults as llama-bench: -p 512 -n 128 -r 5 -o md, -t = all cores
 * (OpenMP), -b 512. Each value of -p is one "ppN" test (prefill N random
 * tokens in one lk_decode call, chunked by -b inside), each value of -n one
 * "tgN" test (N single-token lk_decode calls); -p 0 / -n 0 drop them. The
 * context size is -c, else n_prompt + n_gen of the test (llama-bench's
 * n_ctx). Every test runs one untimed warm-up (a prompt of min(N, 32) tokens
 * or one generated token; llama-bench uses the full prompt) and then
 * REPS timed repetitions, each from an empty KV cache (lk_context_truncate
 * to 0: the context is fresh, its buffers are reused). Tokens are random in
 * [0, n_vocab) from a fixed seed.
 *
 * -d N (llama-bench's depth) runs every test after N tokens already in the
 * context ("pp512 @ d4096"): N random tokens are decoded once per test,
 * untimed, the context's state saved (lk_context_state_save), and every
 * repetition (and the warm-up) starts from that state reloaded, untimed, as
 * llama-bench restores its cached depth state. The context is then
 * N + n_prompt + n_gen (or -c).
 *
 * For tg tests the achieved weight-read bandwidth is reported:
 * GB/s = lk_model_weight_bytes(m) * t/s / 1e9, and that as a percentage of a
 * memory-read bandwidth measured in the same run (sum of a 1 GiB buffer with
 * the same thread count, best of 5, measured after every tg test; the best
 * of the run is used; --no-bw skips it: the 1 GiB buffer counts in the
 * process's peak resident memory, so tools/compare-llamacpp.sh measures it
 * in a separate --bw-only process). Results print when all tests are
 * done (-v shows progress on stderr). The load time of each model (with the
 * repacking of its weights) is in the JSON as load_s and repacked_mib
 * (lk_model_repacked_bytes), and under the markdown table.
 *
 * JSON records carry llama-bench's field names (model_filename, model_type,
 * model_size, model_n_params, n_batch, n_threads, type_k, n_prompt, n_gen,
 * test_time, avg_ns, stddev_ns, avg_ts, stddev_ts, samples_ns, samples_ts)
 * plus weight_bytes, weight_gbs, mem_bw_gbs and bw_pct (0 for pp tests). */
#include "lk_tool.h"
#define LLMKIT_IMPLEMENTATION
#include "llmkit.h"
#include <math.h>
#if !defined(LLMKIT_NO_SIMD) && defined(__AVX2__)
#include <immintrin.h>
#endif

#define USAGE \
    "bench -m FILE [-m FILE ...] [-p N[,N..]] [-n N[,N..]] [-d N[,N..]] [-t N[,N..]] [-r REPS] [-c CTX] [-b BATCH]\n" \
    "             [-o md|csv|json|jsonl] [--no-bw] [-v] [OPTIONS]\n" \
    "       bench --bw-only [-t N]    (memory-read bandwidth only, one JSON line)\n" \
    "  -m FILE                         a GGUF file (repeat for more)\n" \
    "  -p N[,N..]                      a prefill test of N tokens each (default 512; 0: none)\n" \
    "  -n N[,N..]                      a generation test of N tokens each (default 128; 0: none)\n" \
    "  -d, --n-depth N[,N..]           run each test after N tokens in the context (default 0)\n" \
    "  -t, --threads N[,N..]           threads (default: all cores)\n" \
    "  -r REPS                         timed repetitions (default 5)\n" \
    "  -c, --ctx-size CTX              the context (default: n_prompt + n_gen of the test)\n" \
    "  -b, --batch-size BATCH          tokens per forward in a prefill (default 512)\n" \
    "  -o md|csv|json|jsonl            the output format (default md)\n" \
    "      --no-bw                     skip the memory-read bandwidth\n" \
    "  -v                              progress on stderr"
#define SETS (TOOL_OPTS_MODEL | TOOL_OPTS_CONTEXT)
static const char *const own[] = { "ctx-size", "batch-size", "threads", "n-depth", NULL };   /* bench's own -c, -b, -t */

/* ---- memory-read bandwidth ----------------------------------------------- */
typedef struct bw_job { const uint64_t *buf; size_t n; uint64_t sums[256]; } bw_job;
static uint64_t bw_sum(const uint64_t *p, size_t n) {
    size_t i = 0;
    uint64_t s = 0;
#if !defined(LLMKIT_NO_SIMD) && defined(__AVX2__)
    __m256i a0 = _mm256_setzero_si256(), a1 = a0, a2 = a0, a3 = a0;
    for (; i + 16 <= n; i += 16) {
        a0 = _mm256_add_epi64(a0, _mm256_loadu_si256((const __m256i *)(p + i)));
        a1 = _mm256_add_epi64(a1, _mm256_loadu_si256((const __m256i *)(p + i + 4)));
        a2 = _mm256_add_epi64(a2, _mm256_loadu_si256((const __m256i *)(p + i + 8)));
        a3 = _mm256_add_epi64(a3, _mm256_loadu_si256((const __m256i *)(p + i + 12)));
    }
    {
        uint64_t t[4];
        a0 = _mm256_add_epi64(_mm256_add_epi64(a0, a1), _mm256_add_epi64(a2, a3));
        _mm256_storeu_si256((__m256i *)t, a0);
        s = t[0] + t[1] + t[2] + t[3];
    }
#endif
    {   /* scalar reference (and the tail) */
        uint64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
        for (; i + 4 <= n; i += 4) { s0 += p[i]; s1 += p[i + 1]; s2 += p[i + 2]; s3 += p[i + 3]; }
        for (; i < n; i++) s0 += p[i];
        s += s0 + s1 + s2 + s3;
    }
    return s;
}
static void bw_task(void *arg, int task, int n_tasks) {
    bw_job *j = (bw_job *)arg;
    size_t i0 = j->n * (size_t)task / (size_t)n_tasks, i1 = j->n * (size_t)(task + 1) / (size_t)n_tasks;
    j->sums[task & 255] += bw_sum(j->buf + i0, i1 - i0);
}
/* GB/s reading 1 GiB with n_threads tasks, best of 5 (0 if no memory) */
static double measure_bw(int n_threads) {
    const size_t bytes = (size_t)1 << 30, n = bytes / 8;
    uint64_t *buf = (uint64_t *)malloc(bytes), chk = 0;
    lk_threads th;
    bw_job job;
    double best = 0;
    int rep, k, nt;
    size_t i;
    if (!buf) return 0;
    for (i = 0; i < n; i++) buf[i] = i;           /* touch every page before timing */
    memset(&th, 0, sizeof th);
    th.n_threads = n_threads;
    nt = lk_threads_count(&th);
    if (nt > 256) nt = 256;
    job.buf = buf; job.n = n;
    for (rep = 0; rep < 5; rep++) {
        double t0, t1;
        memset(job.sums, 0, sizeof job.sums);
        t0 = tool_now();
        lk_parallel_for(&th, nt, bw_task, &job);
        t1 = tool_now();
        for (k = 0; k < nt; k++) chk += job.sums[k];
        if (t1 > t0 && (double)bytes / (t1 - t0) / 1e9 > best) best = (double)bytes / (t1 - t0) / 1e9;
    }
    free(buf);
    /* sum of 0..n-1, five times: checks that the reads happened */
    if (chk != 5 * ((uint64_t)n * (uint64_t)(n - 1) / 2)) fprintf(stderr, "bench: bandwidth checksum mismatch\n");
    return best;
}

/* ---- tests and results --------------------------------------------------- */
#define MAX_LIST 32
typedef struct res {
    const char *file;
    char model_type[96];
    uint64_t model_size, n_params, weight_bytes;
    int n_prompt, n_gen, n_depth, n_threads, n_batch, n_ctx;
    int ti;                    /* index into the thread list */
    int n_samples;
    double *ns;                /* per repetition, nanoseconds */
    double avg_ns, stddev_ns, avg_ts, stddev_ts, gbs, bw, bw_pct, load_s, repacked_mib;
    char time_str[32];
} res;

static void stats(res *r) {
    int i, n = r->n_samples, ntok = r->n_prompt + r->n_gen;
    double s = 0, s2 = 0, t = 0, t2 = 0;
    for (i = 0; i < n; i++) {
        double ts = 1e9 * ntok / r->ns[i];
        s += r->ns[i]; s2 += r->ns[i] * r->ns[i];
        t += ts; t2 += ts * ts;
    }
    r->avg_ns = n ? s / n : 0;
    r->avg_ts = n ? t / n : 0;
    r->stddev_ns = n > 1 ? sqrt((s2 - s * s / n) / (n - 1)) : 0;
    r->stddev_ts = n > 1 ? sqrt(fmax(0.0, (t2 - t * t / n) / (n - 1))) : 0;
}

static int parse_list(const char *s, int *out, int *n, int lo) {
    while (*s) {
        char *end;
        long v = strtol(s, &end, 10);
        if (end == s || v < lo || v > 1000000 || *n >= MAX_LIST) return 1;
        out[(*n)++] = (int)v;
        s = end;
        if (*s == ',') s++;
        else if (*s) return 1;
    }
    return 0;
}

static const char *ftype_name(uint32_t ft) {
    static const char *names[] = { "all F32", "F16", "Q4_0", "Q4_1", "?", "?", "?", "Q8_0", "Q5_0", "Q5_1", "Q2_K - Medium",
        "Q3_K - Small", "Q3_K - Medium", "Q3_K - Large", "Q4_K - Small", "Q4_K - Medium", "Q5_K - Small", "Q5_K - Medium",
        "Q6_K", "IQ2_XXS", "IQ2_XS", "Q2_K - Small", "IQ3_XS", "IQ3_XXS", "IQ1_S", "IQ4_NL", "IQ3_S", "IQ3_M", "IQ2_S",
        "IQ2_M", "IQ4_XS", "IQ1_M", "BF16", "?", "?", "?", "TQ1_0", "TQ2_0" };
    return ft < sizeof names / sizeof names[0] ? names[ft] : "?";
}

/* "llama 1B Q4_0" like llama-bench's model_type */
static void model_desc(const lk_model *m, uint64_t n_params, char *buf, size_t len) {
    const lk_gguf *g = lk_model_gguf(m);
    uint32_t ft = 0;
    char sz[32];
    double b = (double)n_params / 1e9;
    if (b >= 1.0) snprintf(sz, sizeof sz, "%.0fB", b);
    else if (b >= 0.001) snprintf(sz, sizeof sz, "%.0fM", b * 1000.0);
    else snprintf(sz, sizeof sz, "?B");
    if (lk_gguf_get_u32(g, "general.file_type", &ft) != LK_OK) ft = 0xffffffffu;
    snprintf(buf, len, "%s %s %s", lk_arch_name(lk_model_hparams(m)->arch), sz, ftype_name(ft));
}

static void print_md_header(void) {
    printf("| %-30s | %10s | %10s | %-7s | %7s | %16s | %20s | %8s | %6s |\n", "model", "size", "params", "backend", "threads",
           "test", "t/s", "GB/s", "% bw");
    printf("| %-30s | %10s | %10s | %-7s | %7s | %16s | %20s | %8s | %6s |\n", "------------------------------", "---------:",
           "---------:", "-------", "------:", "---------------:", "-------------------:", "-------:", "-----:");
}
static void print_md(const res *r) {
    char size[32], params[32], test[48], ts[48], gbs[16] = "", pct[16] = "";
    size_t tl;
    if (r->model_size >= (1ull << 30)) snprintf(size, sizeof size, "%.2f GiB", (double)r->model_size / 1073741824.0);
    else snprintf(size, sizeof size, "%.2f MiB", (double)r->model_size / 1048576.0);
    if (r->n_params >= 1000000000ull) snprintf(params, sizeof params, "%.2f B", (double)r->n_params / 1e9);
    else snprintf(params, sizeof params, "%.2f M", (double)r->n_params / 1e6);
    if (r->n_prompt && !r->n_gen) snprintf(test, sizeof test, "pp%d", r->n_prompt);
    else if (!r->n_prompt) snprintf(test, sizeof test, "tg%d", r->n_gen);
    else snprintf(test, sizeof test, "pp%d+tg%d", r->n_prompt, r->n_gen);
    tl = strlen(test);
    if (r->n_depth > 0) snprintf(test + tl, sizeof test - tl, " @ d%d", r->n_depth);   /* llama-bench's name */
    snprintf(ts, sizeof ts, "%.2f ± %.2f", r->avg_ts, r->stddev_ts);
    if (r->n_gen && !r->n_prompt) {
        snprintf(gbs, sizeof gbs, "%.2f", r->gbs);
        if (r->bw > 0) snprintf(pct, sizeof pct, "%.1f", r->bw_pct);
    }
    printf("| %-30s | %10s | %10s | %-7s | %7d | %16s | %20s | %8s | %6s |\n", r->model_type, size, params, "CPU", r->n_threads,
           test, ts, gbs, pct);
}
static void print_csv_header(void) {
    printf("model_filename,model_type,model_size,model_n_params,n_batch,n_threads,n_ctx,type_k,n_prompt,n_gen,n_depth,test_time,"
           "avg_ns,stddev_ns,avg_ts,stddev_ts,weight_bytes,weight_gbs,mem_bw_gbs,bw_pct\n");
}
static void print_csv(const res *r, const char *type_k) {
    printf("\"%s\",\"%s\",%llu,%llu,%d,%d,%d,%s,%d,%d,%d,%s,%.0f,%.0f,%.6f,%.6f,%llu,%.4f,%.4f,%.2f\n", r->file, r->model_type,
           (unsigned long long)r->model_size, (unsigned long long)r->n_params, r->n_batch, r->n_threads, r->n_ctx, type_k,
           r->n_prompt, r->n_gen, r->n_depth, r->time_str, r->avg_ns, r->stddev_ns, r->avg_ts, r->stddev_ts,
           (unsigned long long)r->weight_bytes, r->gbs, r->bw, r->bw_pct);
}
static void print_json_str(const char *s) {
    putchar('"');
    for (; *s; s++) {
        if (*s == '"' || *s == '\\') printf("\\%c", *s);
        else if ((unsigned char)*s < 0x20) printf("\\u%04x", (unsigned)(unsigned char)*s);
        else putchar(*s);
    }
    putchar('"');
}
static void print_json(const res *r, const char *type_k, int first, int jsonl) {
    int i;
    const char *nl = jsonl ? "" : "\n", *ind = jsonl ? " " : "    ";
    if (!jsonl) printf(first ? "[\n  {\n" : ",\n  {\n"); else printf("{");
    printf("%s\"build\": \"llmkit %s\",%s", ind, LLMKIT_VERSION_STRING, nl);
    printf("%s\"model_filename\": ", ind); print_json_str(r->file); printf(",%s", nl);
    printf("%s\"model_type\": ", ind); print_json_str(r->model_type); printf(",%s", nl);
    printf("%s\"model_size\": %llu,%s", ind, (unsigned long long)r->model_size, nl);
    printf("%s\"model_n_params\": %llu,%s", ind, (unsigned long long)r->n_params, nl);
    printf("%s\"n_batch\": %d,%s", ind, r->n_batch, nl);
    printf("%s\"n_threads\": %d,%s", ind, r->n_threads, nl);
    printf("%s\"n_ctx\": %d,%s", ind, r->n_ctx, nl);
    printf("%s\"type_k\": \"%s\",%s", ind, type_k, nl);
    printf("%s\"n_prompt\": %d,%s", ind, r->n_prompt, nl);
    printf("%s\"n_gen\": %d,%s", ind, r->n_gen, nl);
    printf("%s\"n_depth\": %d,%s", ind, r->n_depth, nl);
    printf("%s\"test_time\": \"%s\",%s", ind, r->time_str, nl);
    printf("%s\"avg_ns\": %.0f,%s", ind, r->avg_ns, nl);
    printf("%s\"stddev_ns\": %.0f,%s", ind, r->stddev_ns, nl);
    printf("%s\"avg_ts\": %.6f,%s", ind, r->avg_ts, nl);
    printf("%s\"stddev_ts\": %.6f,%s", ind, r->stddev_ts, nl);
    printf("%s\"weight_bytes\": %llu,%s", ind, (unsigned long long)r->weight_bytes, nl);
    printf("%s\"weight_gbs\": %.4f,%s", ind, r->gbs, nl);
    printf("%s\"mem_bw_gbs\": %.4f,%s", ind, r->bw, nl);
    printf("%s\"load_s\": %.4f,%s", ind, r->load_s, nl);
    printf("%s\"repacked_mib\": %.2f,%s", ind, r->repacked_mib, nl);
    printf("%s\"bw_pct\": %.2f,%s", ind, r->bw_pct, nl);
    printf("%s\"samples_ns\": [", ind);
    for (i = 0; i < r->n_samples; i++) printf("%s%.0f", i ? ", " : " ", r->ns[i]);
    printf(" ],%s%s\"samples_ts\": [", nl, ind);
    for (i = 0; i < r->n_samples; i++) printf("%s%.6f", i ? ", " : " ", 1e9 * (r->n_prompt + r->n_gen) / r->ns[i]);
    printf(" ]%s", nl);
    printf(jsonl ? "}\n" : "  }");
}

/* type_k as llama-bench writes it (zip formats by their option name) */
static const char *kv_name(const lk_context_params *p) {
    if (p->kv_zip_bits) return p->kv_zip_bits == 4 ? "zip4" : "zip2";
    return lk_type_name(p->kv_type);
}

/* one timed run (or warm-up) of a test, from an empty context or (depth:
 * n bytes) the depth's saved state; returns seconds, < 0 on error */
static double run_once(lk_context *c, const void *depth, size_t n, const lk_token *toks, int n_prompt, int n_gen) {
    double t0, t1;
    int i;
    if (depth ? lk_context_state_load(c, depth, n) : lk_context_truncate(c, 0)) return -1;
    t0 = tool_now();
    if (n_prompt > 0 && lk_decode(c, toks, n_prompt)) return -1;
    for (i = 0; i < n_gen; i++)
        if (lk_decode(c, &toks[n_prompt + i], 1)) return -1;
    t1 = tool_now();
    return t1 - t0;
}

int main(int argc, char **argv) {
    const char *models[MAX_LIST];
    int n_models = 0, pp[MAX_LIST], n_pp = 0, tg[MAX_LIST], n_tg = 0, thr[MAX_LIST], n_thr = 0, dep[MAX_LIST], n_dep = 0;
    int reps = 5, n_ctx_arg = 0, n_batch = 512, verbose = 0, no_bw = 0, bw_only = 0, first = 1, fmt = 0, k, im, it;
    lk_context_params base = lk_context_default_params();   /* every other context option (--kv-type, --attn, --kv-policy, ...) */
    lk_model_params mp = lk_model_default_params();          /* --check-tensors */
    double bw_cache[MAX_LIST];
    int bw_have[MAX_LIST];
    res *all;
    int n_all = 0;

    tool_name = "bench";
    for (k = 1; k < argc; k++) {
        const char *a = argv[k], *x = k + 1 < argc ? argv[k + 1] : NULL;
        if (!strcmp(a, "-v")) { verbose = 1; continue; }
        if (!strcmp(a, "--no-bw")) { no_bw = 1; continue; }
        if (!strcmp(a, "--bw-only")) { bw_only = 1; continue; }
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) return tool_help(0, USAGE, SETS, own);
        if (!x) return tool_no_value(USAGE, SETS, own, a);
        if (!strcmp(a, "-m")) { if (n_models >= MAX_LIST) return tool_fail(2, "at most %d models", MAX_LIST); models[n_models++] = x; }
        else if (!strcmp(a, "-p")) { if (parse_list(x, pp, &n_pp, 0)) return tool_fail(2, "-p expects counts in [0, 1000000], got '%s'", x); }
        else if (!strcmp(a, "-n")) { if (parse_list(x, tg, &n_tg, 0)) return tool_fail(2, "-n expects counts in [0, 1000000], got '%s'", x); }
        else if (!strcmp(a, "-d") || !strcmp(a, "--n-depth")) { if (parse_list(x, dep, &n_dep, 0)) return tool_fail(2, "%s expects counts in [0, 1000000], got '%s'", a, x); }
        else if (!strcmp(a, "-t") || !strcmp(a, "--threads")) { if (parse_list(x, thr, &n_thr, 1)) return tool_fail(2, "%s expects counts in [1, 1000000], got '%s'", a, x); }
        else if (!strcmp(a, "-r")) { if (!tool_parse_int(x, 1, 10000, &reps)) return tool_fail(2, "-r expects a count in [1, 10000], got '%s'", x); }
        else if (!strcmp(a, "-c") || !strcmp(a, "--ctx-size")) { if (!tool_parse_int(x, 0, 1 << 24, &n_ctx_arg)) return tool_fail(2, "%s expects a size in [0, 16777216], got '%s'", a, x); }
        else if (!strcmp(a, "-b") || !strcmp(a, "--batch-size")) { if (!tool_parse_int(x, 1, 1 << 24, &n_batch)) return tool_fail(2, "%s expects a size in [1, 16777216], got '%s'", a, x); }
        else if (!strcmp(a, "-o")) {
            if (!strcmp(x, "md")) fmt = 0; else if (!strcmp(x, "csv")) fmt = 1;
            else if (!strcmp(x, "json")) fmt = 2; else if (!strcmp(x, "jsonl")) fmt = 3;
            else return tool_fail(2, "-o expects md, csv, json or jsonl, got '%s'", x);
        } else {
            lk_status st = tool_set_option(&mp, &base, NULL, a, x);   /* --kv / --kv-type, --attn, --kv-policy, ..., --check-tensors */
            if (st == LK_ERR_NOT_FOUND) return tool_bad_usage(USAGE, SETS, own, "unknown option %s", a);
            if (st) return tool_lk_fail(2);
        }
        k++;
    }
    if (bw_only) {
        int nt = n_thr ? thr[0] : 0;
        if (!nt) { lk_threads th; memset(&th, 0, sizeof th); nt = lk_threads_count(&th); }
        printf("{\"mem_bw_gbs\": %.4f, \"n_threads\": %d}\n", measure_bw(nt), nt);
        return 0;
    }
    if (!n_models) return tool_bad_usage(USAGE, SETS, own, "-m FILE is required");
    if (!n_pp) pp[n_pp++] = 512;
    if (!n_tg) tg[n_tg++] = 128;
    if (!n_dep) dep[n_dep++] = 0;
    if (!n_thr) { lk_threads th; memset(&th, 0, sizeof th); thr[n_thr++] = lk_threads_count(&th); }
    for (k = 0; k < n_thr; k++) { bw_have[k] = 0; bw_cache[k] = 0; }
    all = (res *)calloc((size_t)(n_models * n_thr * n_dep * (n_pp + n_tg)), sizeof *all);
    if (!all) return tool_fail(1, "out of memory");

    for (im = 0; im < n_models; im++) {
        lk_model *m;
        const lk_gguf *g;
        uint64_t size = 0, n_params = 0, wbytes;
        char desc[96];
        int n_vocab, ti;
        uint64_t i;
        double tl = tool_now();
        if (lk_model_load_file(models[im], &mp, &m)) return tool_fail(1, "%s: %s", models[im], lk_last_error());
        tl = tool_now() - tl;   /* parse, bind, repack into interleaved rows */
        g = lk_model_gguf(m);
        for (i = 0; i < g->n_tensors; i++) {
            lk_tensor t;
            if (lk_gguf_tensor_view(g, (int64_t)i, &t) == LK_OK) { size += lk_tensor_nbytes(&t); n_params += (uint64_t)lk_tensor_nelements(&t); }
        }
        wbytes = lk_model_weight_bytes(m);
        n_vocab = lk_model_n_vocab(m);
        model_desc(m, n_params, desc, sizeof desc);
        for (ti = 0; ti < n_thr; ti++) {
            /* the tests: every -p value as ppN, then every -n value as tgN, at each depth */
            for (it = 0; it < (n_pp + n_tg) * n_dep; it++) {
                const int ix = it % (n_pp + n_tg), n_depth = dep[it / (n_pp + n_tg)];
                int n_prompt = ix < n_pp ? pp[ix] : 0, n_gen = ix < n_pp ? 0 : tg[ix - n_pp], rep;
                void *dstate = NULL;
                size_t dn = 0;
                lk_context_params cp = base;
                lk_token *toks;
                lk_context *c;
                lk_rng rng;
                res r;
                time_t now;
                if (n_prompt + n_gen == 0) continue;
                memset(&r, 0, sizeof r);
                r.file = models[im];
                snprintf(r.model_type, sizeof r.model_type, "%s", desc);
                r.model_size = size; r.n_params = n_params; r.weight_bytes = wbytes;
                r.load_s = tl; r.repacked_mib = (double)lk_model_repacked_bytes(m) / 1048576.0;
                r.n_prompt = n_prompt; r.n_gen = n_gen; r.n_depth = n_depth; r.n_threads = thr[ti]; r.n_batch = n_batch; r.ti = ti;
                r.n_ctx = n_ctx_arg ? n_ctx_arg : n_depth + n_prompt + n_gen;
                if (r.n_ctx < n_depth + n_prompt + n_gen)
                    return tool_fail(1, "-c %d < n_depth + n_prompt + n_gen = %d", r.n_ctx, n_depth + n_prompt + n_gen);
                now = time(NULL);
                strftime(r.time_str, sizeof r.time_str, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
                cp.n_ctx = r.n_ctx; cp.n_batch = n_batch; cp.n_threads = thr[ti];
                if (lk_context_new(m, &cp, &c)) return tool_fail(1, "%s: %s", models[im], lk_last_error());
                toks = (lk_token *)malloc(sizeof(lk_token) * (size_t)(n_prompt + n_gen));
                r.ns = (double *)malloc(sizeof(double) * (size_t)reps);
                if (!toks || !r.ns) return tool_fail(1, "out of memory");
                lk_rng_seed(&rng, 1234);
                for (k = 0; k < n_prompt + n_gen; k++) toks[k] = (lk_token)lk_rng_below(&rng, (uint32_t)n_vocab);
                if (n_depth > 0) {   /* the depth: decoded once, its state kept for every run */
                    lk_token *dt = (lk_token *)malloc(sizeof(lk_token) * (size_t)n_depth);
                    lk_status st;
                    if (!dt) return tool_fail(1, "out of memory");
                    lk_rng_seed(&rng, 4321);
                    for (k = 0; k < n_depth; k++) dt[k] = (lk_token)lk_rng_below(&rng, (uint32_t)n_vocab);
                    st = lk_decode(c, dt, n_depth);
                    free(dt);
                    if (st || lk_context_state_save(c, NULL, 0, &dn) || !(dstate = malloc(dn)) || lk_context_state_save(c, dstate, dn, &dn))
                        return tool_fail(1, "%s: depth %d: %s", models[im], n_depth, dstate || st ? lk_last_error() : "out of memory");
                    if (verbose) fprintf(stderr, "bench: %s depth %d: state of %.1f MiB\n", models[im], n_depth, (double)dn / 1048576.0);
                }
                /* warm-up (touches every weight page and the scratch): a prompt of
                 * min(n_prompt, 32) tokens, or one generated token. llama-bench
                 * warms up with the full prompt; ours is shorter to save time. */
                if (run_once(c, dstate, dn, toks, n_prompt < 32 ? n_prompt : 32, n_prompt ? 0 : 1) < 0)
                    return tool_fail(1, "%s: %s", models[im], lk_last_error());
                for (rep = 0; rep < reps; rep++) {
                    double s = run_once(c, dstate, dn, toks, n_prompt, n_gen);
                    if (s < 0) return tool_fail(1, "%s: %s", models[im], lk_last_error());
                    r.ns[r.n_samples++] = s * 1e9;
                    if (verbose) fprintf(stderr, "bench: %s pp%d tg%d d%d t%d rep %d: %.3f s\n", models[im], n_prompt, n_gen, n_depth, thr[ti], rep, s);
                }
                lk_context_free(c);
                free(toks);
                free(dstate);
                stats(&r);
                if (n_gen && !n_prompt) {
                    r.gbs = (double)wbytes * r.avg_ts / 1e9;
                    if (!no_bw) {
                        /* measured right after each tg test (same machine load);
                         * the best over the run is the reference */
                        double bw = measure_bw(thr[ti]);
                        if (bw > bw_cache[ti]) bw_cache[ti] = bw;
                        bw_have[ti] = 1;
                    }
                }
                all[n_all++] = r;
                if (verbose) fprintf(stderr, "bench: %s %s: %.2f t/s\n", models[im], r.n_prompt ? "pp" : "tg", r.avg_ts);
            }
        }
        lk_model_free(m);
    }
    if (fmt == 0) print_md_header();
    if (fmt == 1) print_csv_header();
    for (k = 0; k < n_all; k++) {
        res *r = &all[k];
        if (r->n_gen && !r->n_prompt && bw_have[r->ti]) {
            r->bw = bw_cache[r->ti];
            r->bw_pct = r->bw > 0 ? 100.0 * r->gbs / r->bw : 0;
        }
        if (fmt == 0) print_md(r);
        else if (fmt == 1) print_csv(r, kv_name(&base));
        else print_json(r, kv_name(&base), first, fmt == 3);
        first = 0;
        free(r->ns);
    }
    if (fmt == 2) printf(first ? "[]\n" : "\n]\n");
    if (fmt == 0) {
        printf("\n");
        for (k = 0; k < n_thr; k++)
            if (bw_have[k]) printf("memory read bandwidth (1 GiB sum, %d threads, best of 5 after each tg test): %.2f GB/s\n", thr[k], bw_cache[k]);
        for (k = 0; k < n_all; k++)
            if (k == 0 || strcmp(all[k].file, all[k - 1].file))
                printf("load %s: %.3f s (%.1f MiB of weights repacked into interleaved rows)\n", all[k].file, all[k].load_s, all[k].repacked_mib);
        printf("GB/s = lk_model_weight_bytes x t/s; %% bw = GB/s / memory read bandwidth\nbuild: llmkit %s\n", LLMKIT_VERSION_STRING);
    }
    free(all);
    return 0;
}
