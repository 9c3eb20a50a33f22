/* bench-cuda - GPU prompt processing and generation speed (llmkit_cuda.h),
 * modelled on tools/bench and llama-bench.
 *
 *   bench-cuda -m FILE [-m FILE ...] [-p N] [-n N] [-d N] [-r REPS] [--kv f16|f32] [--cpu-check N] [--no-graph]
 *
 * Defaults: -p 512 -n 128 -d 0 -r 5. ppN: N random tokens in one
 * lk_cuda_decode call (chunks of 512); tgN: N single-token calls (each a
 * replayed CUDA graph; --no-graph launches the kernels one by one). Each
 * repetition starts from a cache holding -d tokens (llama-bench's depth,
 * decoded untimed; 0: empty); one untimed warm-up first; the best and the
 * mean of REPS are printed. Every call ends with
 * the logits copied to the host, so the timings include the launches and
 * that copy, as an application sees them.
 *
 * For tg the weight-read rate is reported: lk_cuda_model_bytes * t/s, and
 * that as a share of the GPU's read bandwidth measured in the same run (a
 * kernel summing a 2 GiB buffer, best of 5).
 *
 * --cpu-check N: also decode N tokens of the pp prompt on the CPU (this
 * build's lk_decode, same KV type) and print rms(gpu - cpu) / rms(cpu) of
 * the last position's logits and whether the argmax agrees. */
#include "lk_tool.h"
#define LLMKIT_IMPLEMENTATION
#include "llmkit.h"
#include "llmkit_cuda.h"
#include <math.h>
#include <time.h>

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
__global__ void bw_read(const float4 *p, size_t n, float *out) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    float s = 0.0f;
    for (; i < n; i += (size_t)gridDim.x * blockDim.x) { const float4 v = p[i]; s += v.x + v.y + v.z + v.w; }
    if (s == 12345.678f) out[0] = s;   /* keeps the loads */
}
static double gpu_read_gbs(void) {
    const size_t bytes = (size_t)2 << 30;
    float4 *buf = NULL;
    float *out = NULL;
    double best = 0;
    int r;
    cudaEvent_t a, b;
    if (cudaMalloc((void **)&buf, bytes) != cudaSuccess || cudaMalloc((void **)&out, 4) != cudaSuccess) { cudaGetLastError(); return 0; }
    cudaMemset(buf, 0, bytes);
    cudaEventCreate(&a); cudaEventCreate(&b);
    for (r = 0; r < 6; r++) {
        float ms = 0;
        cudaEventRecord(a);
        bw_read<<<132 * 16, 256>>>(buf, bytes / 16, out);
        cudaEventRecord(b);
        cudaEventSynchronize(b);
        cudaEventElapsedTime(&ms, a, b);
        if (r > 0 && bytes / (ms * 1e6) > best) best = bytes / (ms * 1e6);
    }
    cudaEventDestroy(a); cudaEventDestroy(b);
    cudaFree(buf); cudaFree(out);
    return best;
}
static int cmpd(const void *x, const void *y) { double a = *(const double *)x, b = *(const double *)y; return a < b ? -1 : a > b; }

int main(int argc, char **argv) {
    const char *files[16];
    int nf = 0, np = 512, ng = 128, reps = 5, check = 0, depth = 0, no_graph = 0, i, f;
    lk_type kv = LK_TYPE_F16;
    char dev[256];
    double bw;
    for (i = 1; i < argc; i += 2) {   /* every option but -h and --no-graph takes a value */
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            printf("bench-cuda -m FILE [-m FILE ...] [-p N] [-n N] [-d N] [-r REPS] [--kv f16|f32] [--cpu-check N] [--no-graph]\n");
            return 0;
        }
        if (!strcmp(a, "--no-graph")) { no_graph = 1; i--; continue; }
        if (!v) { fprintf(stderr, "bench-cuda: %s needs a value\n", a); return 2; }
        if (!strcmp(a, "-m")) { if (nf < 16) files[nf++] = v; }
        else if (!strcmp(a, "-p")) np = atoi(v);
        else if (!strcmp(a, "-n")) ng = atoi(v);
        else if (!strcmp(a, "-r")) reps = atoi(v);
        else if (!strcmp(a, "-d")) depth = atoi(v);
        else if (!strcmp(a, "--cpu-check")) check = atoi(v);
        else if (!strcmp(a, "--kv")) {
            if (!strcmp(v, "f16")) kv = LK_TYPE_F16;
            else if (!strcmp(v, "f32")) kv = LK_TYPE_F32;
            else { fprintf(stderr, "bench-cuda: --kv f16 or f32\n"); return 2; }
        } else { fprintf(stderr, "bench-cuda: unknown option %s\n", a); return 2; }
    }
    if (!nf || np < 0 || ng < 0 || depth < 0 || np + ng + depth > (1 << 20) || reps < 1 || reps > 100 || check < 0) {
        fprintf(stderr, "bench-cuda: -m FILE is required; -p, -n, -d >= 0; -r 1..100\n");
        return 2;
    }
    if (!lk_cuda_available()) { fprintf(stderr, "bench-cuda: no CUDA device (%s)\n", lk_cuda_device_name(0, dev, sizeof dev) ? lk_last_error() : "?"); return 1; }
    lk_cuda_device_name(0, dev, sizeof dev);
    bw = gpu_read_gbs();
    printf("device: %s, read bandwidth %.0f GB/s (sum of a 2 GiB buffer, best of 5)\n", dev, bw);
    printf("| model | GPU MiB | upload s | test | t/s best | t/s mean | weights GB/s | %% of read bw |\n|---|---:|---:|---|---:|---:|---:|---:|\n");
    for (f = 0; f < nf; f++) {
        lk_model *m;
        lk_cuda_model *g;
        lk_cuda_context *c;
        lk_cuda_context_params p = lk_cuda_context_default_params();
        lk_token *toks;
        double t0, up;
        int V, k, test;
        char dtag[32] = "";
        const char *base = strrchr(files[f], '/') ? strrchr(files[f], '/') + 1 : files[f];
        lk_model_params mp = lk_model_default_params();
        mp.repack = -1;   /* the GPU reads GGUF rows; no CPU repacking needed */
        t0 = now();
        if (lk_model_load_file(files[f], &mp, &m)) { fprintf(stderr, "bench-cuda: %s: %s\n", files[f], lk_last_error()); return 1; }
        if (lk_cuda_model_new(m, 0, &g)) { fprintf(stderr, "bench-cuda: %s: %s\n", files[f], lk_last_error()); return 1; }
        up = now() - t0;
        p.n_ctx = np + ng + depth + 1; p.kv_type = kv; p.no_graph = no_graph;
        if (lk_cuda_context_new(g, &p, &c)) { fprintf(stderr, "bench-cuda: %s: %s\n", files[f], lk_last_error()); return 1; }
        V = lk_model_n_vocab(m);
        if (depth) snprintf(dtag, sizeof dtag, " @ d%d", depth);
        toks = (lk_token *)malloc(sizeof(lk_token) * (size_t)(np + ng + depth + 1));
        srand(1234);
        for (k = 0; k < np + ng + depth + 1; k++) toks[k] = (lk_token)(rand() % V);
        for (test = 0; test < 2; test++) {
            const int n = test ? ng : np;
            double s[100], best = 0, mean = 0;
            int r;
            if (!n) continue;
            for (r = -1; r < reps; r++) {   /* r = -1: warm-up */
                double t;
                lk_cuda_context_truncate(c, 0);
                if (depth && lk_cuda_decode(c, toks + np + ng + 1, depth)) { fprintf(stderr, "bench-cuda: %s\n", lk_last_error()); return 1; }
                t = now();
                if (!test) { if (lk_cuda_decode(c, toks, n)) { fprintf(stderr, "bench-cuda: %s\n", lk_last_error()); return 1; } }
                else for (k = 0; k < n; k++) if (lk_cuda_decode(c, toks + k, 1)) { fprintf(stderr, "bench-cuda: %s\n", lk_last_error()); return 1; }
                t = now() - t;
                if (r >= 0) { s[r] = n / t; mean += s[r] / reps; }
            }
            qsort(s, (size_t)reps, sizeof s[0], cmpd);
            best = s[reps - 1];
            if (test) printf("| %s | %.0f | %.2f | tg%d%s | %.1f | %.1f | %.0f | %.0f %% |\n", base, lk_cuda_model_bytes(g) / 1048576.0, up, n, dtag, best, mean,
                             lk_cuda_model_bytes(g) * best / 1e9, bw > 0 ? 100.0 * lk_cuda_model_bytes(g) * best / 1e9 / bw : 0.0);
            else printf("| %s | %.0f | %.2f | pp%d%s | %.1f | %.1f | | |\n", base, lk_cuda_model_bytes(g) / 1048576.0, up, n, dtag, best, mean);
            fflush(stdout);
        }
        if (check > 0) {
            lk_context *cc;
            lk_context_params cp = lk_context_default_params();
            const int n = check < np + ng ? check : np + ng;
            cp.n_ctx = n; cp.kv_type = kv;
            lk_cuda_context_truncate(c, 0);
            if (lk_cuda_decode(c, toks, n) || lk_context_new(m, &cp, &cc) || lk_decode(cc, toks, n)) {
                fprintf(stderr, "bench-cuda: check: %s\n", lk_last_error());
            } else {
                const float *a = lk_cuda_logits(c, -1), *b = lk_logits(cc, -1);
                double d2 = 0, b2 = 0;
                int am = 0, bm = 0;
                for (k = 0; k < V; k++) {
                    d2 += ((double)a[k] - b[k]) * ((double)a[k] - b[k]); b2 += (double)b[k] * b[k];
                    if (a[k] > a[am]) am = k;
                    if (b[k] > b[bm]) bm = k;
                }
                printf("  %s: GPU vs CPU after %d tokens: rms(d)/rms = %.2e, argmax %s (%d, %d)\n", base, n, sqrt(d2 / (b2 + 1e-30)),
                       am == bm ? "agrees" : "differs", am, bm);
                lk_context_free(cc);
            }
        }
        free(toks);
        lk_cuda_context_free(c); lk_cuda_model_free(g); lk_model_free(m);
    }
    return 0;
}
