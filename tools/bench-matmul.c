/* bench-matmul: throughput of lk_matmul per weight type.
 *
 *   cc -O2 -march=native -fopenmp -I. tools/bench-matmul.c -lm
 *   ./bench-matmul [-t THREADS] [-r ROWS] [-k COLS_IN] [-b COLS] [-n REPS] [--r8] [TYPE...]
 *
 * For each type: a ROWS x COLS_IN weight matrix (default 4096 x 4096) in
 * several copies that together exceed the last-level cache (so 1-column
 * runs stream weights from memory), timed with 1 activation column (GB/s of
 * weights read) and with COLS columns (default 64; GFLOP/s, 2 flops per
 * multiply-add). The memory line is a plain read of a 512 MiB buffer with
 * the same threads. Best of REPS runs (default 5) each: the machine may be
 * shared. --r8 first repacks the types that have interleaved rows (q4_0, f16,
 * q4_K, mxfp4, q8_0) as the runtime does for mapped files. Markdown table on stdout. */
#include "lk_tool.h"
#define LLMKIT_IMPLEMENTATION
#include "llmkit.h"

static uint64_t rs = 88172645463325252ull;
static float frand(void) { rs ^= rs << 13; rs ^= rs >> 7; rs ^= rs << 17; return (float)((double)(rs >> 11) / 9007199254740992.0 * 2.0 - 1.0); }

/* memory read bandwidth: each task sums its slice */
typedef struct { const uint64_t *p; size_t n; uint64_t out[64 * 8]; } rd_job;
static void rd_task(void *arg, int task, int n_tasks) {
    rd_job *j = (rd_job *)arg;
    size_t a = j->n * (size_t)task / (size_t)n_tasks, b = j->n * (size_t)(task + 1) / (size_t)n_tasks, i;
    uint64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0, s4 = 0, s5 = 0, s6 = 0, s7 = 0;
    for (i = a; i + 8 <= b; i += 8) {
        s0 += j->p[i]; s1 += j->p[i + 1]; s2 += j->p[i + 2]; s3 += j->p[i + 3];
        s4 += j->p[i + 4]; s5 += j->p[i + 5]; s6 += j->p[i + 6]; s7 += j->p[i + 7];
    }
    j->out[(task % 64) * 8] = s0 + s1 + s2 + s3 + s4 + s5 + s6 + s7;
}
static double mem_bw(const lk_threads *th, int reps) {
    size_t n = (size_t)512 << 20, i;
    rd_job *j = (rd_job *)calloc(1, sizeof *j);
    uint64_t *p = (uint64_t *)malloc(n);
    double best = 0;
    int rep, nt = lk_threads_count(th);
    for (i = 0; i < n / 8; i++) p[i] = i;
    j->p = p; j->n = n / 8;
    for (rep = 0; rep < 2 * reps; rep++) {
        double t0 = tool_now(), gb;
        lk_parallel_for(th, nt, rd_task, j);
        gb = (double)n / (tool_now() - t0) / 1e9;
        if (gb > best) best = gb;
    }
    free(p); free(j);
    return best;
}

int main(int argc, char **argv) {
    static const char *deflt[] = { "q4_0", "q8_0", "q4_K", "q5_K", "q6_K", "f16", "q5_0", "q4_1", "q5_1", "q2_K", "q3_K", "iq4_nl", "iq4_xs", "bf16", "f32" };
    const char *names[64];
    int n_names = 0, nt = 2, i, k, reps = 5, r8 = 0;
    int64_t rows = 4096, cols_in = 4096, nb = 64;
    lk_threads th;
    double bw;
    tool_name = "bench-matmul";
    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-t") && i + 1 < argc) nt = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-r") && i + 1 < argc) rows = atoll(argv[++i]);
        else if (!strcmp(argv[i], "-k") && i + 1 < argc) cols_in = atoll(argv[++i]);
        else if (!strcmp(argv[i], "-b") && i + 1 < argc) nb = atoll(argv[++i]);
        else if (!strcmp(argv[i], "-n") && i + 1 < argc) reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--r8")) r8 = 1;
        else if (argv[i][0] == '-') return tool_usage("bench-matmul [-t threads] [-r rows] [-k cols_in] [-b cols] [-n reps] [--r8] [type...]");
        else if (n_names < 64) names[n_names++] = argv[i];
    }
    if (!n_names) for (i = 0; i < (int)(sizeof deflt / sizeof deflt[0]); i++) names[n_names++] = deflt[i];
    memset(&th, 0, sizeof th);
    th.n_threads = nt;
    bw = mem_bw(&th, reps);
    printf("threads %d, weights %lld x %lld, %lld columns for prefill%s\n\n", nt, (long long)rows, (long long)cols_in, (long long)nb,
           r8 ? ", interleaved rows (LK_LAYOUT_R8) where the type has them" : "");
    printf("| type | weights MiB | 1 col: ms | 1 col: GB/s | %% of memory | %lld cols: ms | %lld cols: GFLOP/s |\n", (long long)nb, (long long)nb);
    printf("|------|------------:|----------:|------------:|------------:|-----------:|-----------------:|\n");
    printf("| memory read | | | %.1f | 100%% | | |\n", bw);
    for (k = 0; k < n_names; k++) {
        lk_type type = lk_type_from_name(names[k]);
        int n_copies, c, rep;
        const lk_type_traits *tt = lk_type_get(type);
        size_t rsz, msz, scr_n;
        unsigned char *w, *scr;
        float *x, *y, *tmp;
        int64_t ne[2], r;
        lk_tensor W[64];
        double t1 = 1e30, tb = 1e30;
        if (!tt || !tt->vec_dot || !tt->from_float || cols_in % tt->blck_size) { printf("| %s | (no kernel) | | | | | |\n", names[k]); continue; }
        rsz = lk_row_size(type, cols_in);
        msz = rsz * (size_t)rows;
        n_copies = (int)((256u << 20) / msz) + 1;
        if (n_copies > 64) n_copies = 64;
        w = (unsigned char *)malloc(msz * (size_t)n_copies);
        tmp = (float *)malloc(sizeof(float) * (size_t)cols_in);
        /* 64 distinct quantized rows, replicated */
        for (r = 0; r < 64 && r < rows; r++) {
            int64_t j;
            for (j = 0; j < cols_in; j++) tmp[j] = frand() * 0.1f;
            tt->from_float(tmp, w + (size_t)r * rsz, cols_in);
        }
        for (r = 64; r < rows; r++) memcpy(w + (size_t)r * rsz, w + (size_t)(r % 64) * rsz, rsz);
        for (c = 1; c < n_copies; c++) memcpy(w + msz * (size_t)c, w, msz);
        ne[0] = cols_in; ne[1] = rows;
        for (c = 0; c < n_copies; c++) lk_tensor_init(&W[c], type, 2, ne, w + msz * (size_t)c);
        if (r8 && lk_repack_r8_supported(type) && lk_repack_r8_size(&W[0])) {   /* the layout the runtime uses for mapped files */
            const size_t rb = lk_repack_r8_size(&W[0]);
            unsigned char *w8 = (unsigned char *)malloc(rb * (size_t)n_copies);
            for (c = 0; c < n_copies; c++)
                if (lk_repack_r8(&W[c], w8 + rb * (size_t)c, rb, &W[c])) return tool_lk_fail(1);
            free(w);
            w = w8;
        }
        x = (float *)malloc(sizeof(float) * (size_t)(cols_in * nb));
        y = (float *)malloc(sizeof(float) * (size_t)(rows * nb));
        for (r = 0; r < cols_in * nb; r++) x[r] = frand();
        scr_n = lk_matmul_scratch_size(type, cols_in, nb);
        scr = (unsigned char *)malloc(scr_n ? scr_n : 1);
        for (rep = 0; rep < reps; rep++) {   /* 1 column: one pass over all copies */
            double t0 = tool_now();
            for (c = 0; c < n_copies; c++)
                if (lk_matmul(&W[c], x, 1, y, scr, scr_n, &th)) return tool_lk_fail(1);
            t0 = (tool_now() - t0) / n_copies;
            if (t0 < t1) t1 = t0;
        }
        for (rep = 0; rep < reps; rep++) {
            double t0 = tool_now();
            if (lk_matmul(&W[rep % n_copies], x, nb, y, scr, scr_n, &th)) return tool_lk_fail(1);
            t0 = tool_now() - t0;
            if (t0 < tb) tb = t0;
        }
        printf("| %s | %.1f | %.3f | %.1f | %.0f%% | %.1f | %.1f |\n", tt->name, (double)msz / 1048576.0, t1 * 1e3,
               (double)msz / t1 / 1e9, 100.0 * (double)msz / t1 / 1e9 / bw, tb * 1e3,
               2.0 * (double)rows * (double)cols_in * (double)nb / tb / 1e9);
        fflush(stdout);
        free(w); free(tmp); free(x); free(y); free(scr);
    }
    return 0;
}
