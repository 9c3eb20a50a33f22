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
    double t0 = pk_now();
    long it = 0;
    const __m256 a = _mm256_set1_ps(1.0000001f), b = _mm256_set1_ps(0.9999999f);
    const __m256i u = _mm256_set1_epi8(3), s = _mm256_set1_epi8(-2), one = _mm256_set1_epi16(1);
    /* twelve named registers (an array would live in memory) */
    __m256 f0 = _mm256_set1_ps(0.f), f1 = _mm256_set1_ps(1.f), f2 = _mm256_set1_ps(2.f), f3 = _mm256_set1_ps(3.f), f4 = _mm256_set1_ps(4.f),
           f5 = _mm256_set1_ps(5.f), f6 = _mm256_set1_ps(6.f), f7 = _mm256_set1_ps(7.f), f8 = _mm256_set1_ps(8.f), f9 = _mm256_set1_ps(9.f),
           fa = _mm256_set1_ps(10.f), fb = _mm256_set1_ps(11.f);
    __m256i q0 = _mm256_set1_epi32(0), q1 = _mm256_set1_epi32(1), q2 = _mm256_set1_epi32(2), q3 = _mm256_set1_epi32(3), q4 = _mm256_set1_epi32(4),
            q5 = _mm256_set1_epi32(5), q6 = _mm256_set1_epi32(6), q7 = _mm256_set1_epi32(7), q8 = _mm256_set1_epi32(8), q9 = _mm256_set1_epi32(9),
            qa = _mm256_set1_epi32(10), qb = _mm256_set1_epi32(11);
#define PK_F(x) x = _mm256_fmadd_ps(x, a, b)
#define PK_I(x) x = _mm256_add_epi32(x, _mm256_madd_epi16(_mm256_maddubs_epi16(u, s), one))
    while (1) {
        int r;
        if (kind == 0)
            for (r = 0; r < 256; r++) { PK_F(f0); PK_F(f1); PK_F(f2); PK_F(f3); PK_F(f4); PK_F(f5); PK_F(f6); PK_F(f7); PK_F(f8); PK_F(f9); PK_F(fa); PK_F(fb); }
        else
            for (r = 0; r < 256; r++) {
                PK_I(q0); PK_I(q1); PK_I(q2); PK_I(q3); PK_I(q4); PK_I(q5); PK_I(q6); PK_I(q7); PK_I(q8); PK_I(q9); PK_I(qa); PK_I(qb);
                __asm__ volatile("" : "+x"(q0), "+x"(q1), "+x"(q2), "+x"(q3), "+x"(q4), "+x"(q5));   /* keep the products in the loop */
            }
        it += 256;
        if ((it & 4095) == 0 && pk_now() - t0 > secs) break;
    }
#undef PK_F
#undef PK_I
    {   /* keep the results alive */
        volatile float sink = _mm256_cvtss_f32(_mm256_add_ps(_mm256_add_ps(_mm256_add_ps(f0, f1), _mm256_add_ps(f2, f3)),
                                                 _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(f4, f5), _mm256_add_ps(f6, f7)),
                                                               _mm256_add_ps(_mm256_add_ps(f8, f9), _mm256_add_ps(fa, fb)))));
        volatile int isink = _mm256_cvtsi256_si32(_mm256_add_epi32(_mm256_add_epi32(_mm256_add_epi32(q0, q1), _mm256_add_epi32(q2, q3)),
                                                  _mm256_add_epi32(_mm256_add_epi32(_mm256_add_epi32(q4, q5), _mm256_add_epi32(q6, q7)),
                                                                   _mm256_add_epi32(_mm256_add_epi32(q8, q9), _mm256_add_epi32(qa, qb)))));
        (void)sink; (void)isink;
    }
    return (double)it * 12 * (kind == 0 ? 16.0 : 32.0);   /* flop (fp32) or multiply-adds (int8) */
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
