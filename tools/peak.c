/* peak - the machine's arithmetic peaks, the ceilings the matmul kernels are
 * measured against (tools/PERFORMANCE.md).
 *
 *   peak [-t THREADS] [-s SECONDS]
 *
 * Each thread runs a register-only loop of independent chains (no memory
 * traffic) for about SECONDS (default 0.5), best of 3:
 *   fp32 FMA      12 chains of 8-lane vfmadd: 16 flop per instruction
 *   int8 dot      the AVX2 pair the q4_0 / q8_0 kernels use (u8 x s8 pairs,
 *                 vpmaddubsw + vpmaddwd): 32 multiply-adds per vpmaddubsw
 *   fp32 FMA zmm  16-lane vfmadd (where compiled with AVX-512): 32 flop
 *   int8 VNNI     vpdpbusd ymm / zmm (where compiled with AVX512-VNNI): 32 / 64
 *                 multiply-adds per instruction
 *   bf16          vdpbf16ps zmm (where compiled with AVX512-BF16): 64 flop
 *   int8 VNNI + the exact float steps: vpdpbusd ymm with, per 8 of them, one
 *                 vcvtdq2ps + vmulps + vfmadd, the mix of the Q4_0 / Q4_K
 *                 interleaved-row kernels (8 column sums per block, then
 *                 acc = fma(float(isum), d_row * d_col, acc) to keep
 *                 llama.cpp's rounding): the ceiling those kernels can reach
 * and the memory-read bandwidth as tools/bench measures it. Prints one line
 * per figure. x86 with AVX2 only; elsewhere it says so and exits 0. */
#include "lk_tool.h"
#define LLMKIT_IMPLEMENTATION
#include "llmkit.h"
#if defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>

typedef struct { double secs; double ops; int kind; } pk_job;

static double pk_now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec; }

/* One chain step per kind, on twelve named registers (an array would live
 * in memory); an empty asm keeps the compiler from folding the loop. Each
 * kind's ops per instruction are in pk_kinds. PK_LOOPX also runs EXTRA once
 * per round of twelve steps (it may read x0..xb). */
#define PK_LOOP(T, INIT, STEP, SINKV) PK_LOOPX(T, INIT, STEP, SINKV, (void)0)
#define PK_LOOPX(T, INIT, STEP, SINKV, EXTRA)                                                            \
    {                                                                                                    \
        T x0 = INIT(0), x1 = INIT(1), x2 = INIT(2), x3 = INIT(3), x4 = INIT(4), x5 = INIT(5), x6 = INIT(6), \
          x7 = INIT(7), x8 = INIT(8), x9 = INIT(9), xa = INIT(10), xb = INIT(11);                        \
        while (1) {                                                                                      \
            int r;                                                                                       \
            for (r = 0; r < 256; r++) {                                                                  \
                STEP(x0); STEP(x1); STEP(x2); STEP(x3); STEP(x4); STEP(x5);                              \
                STEP(x6); STEP(x7); STEP(x8); STEP(x9); STEP(xa); STEP(xb);                              \
                EXTRA;                                                                                   \
                __asm__ volatile("" : "+x"(x0), "+x"(x1), "+x"(x2), "+x"(x3), "+x"(x4), "+x"(x5));      \
            }                                                                                            \
            it += 256;                                                                                   \
            if ((it & 4095) == 0 && pk_now() - t0 > secs) break;                                         \
        }                                                                                                \
        sink = SINKV(x0) + SINKV(x1) + SINKV(x2) + SINKV(x3) + SINKV(x4) + SINKV(x5) + SINKV(x6) +       \
               SINKV(x7) + SINKV(x8) + SINKV(x9) + SINKV(xa) + SINKV(xb);                                \
    }

enum { PK_F8, PK_I8, PK_F16, PK_V8, PK_V16, PK_B16, PK_VX };
typedef struct { int id; const char *what; double ops_per_step; const char *unit; } pk_kind;
static const pk_kind pk_kinds[] = {
    { PK_F8, "fp32 FMA peak, 8-lane vfmadd", 16.0, "GFLOP/s" },
    { PK_I8, "int8 dot peak, AVX2 pair (vpmaddubsw+vpmaddwd)", 32.0, "G multiply-adds/s" },
#if defined(__AVX512F__)
    { PK_F16, "fp32 FMA peak, 16-lane vfmadd (zmm)", 32.0, "GFLOP/s" },
#endif
#if defined(__AVX512VNNI__) && defined(__AVX512VL__)
    { PK_V8, "int8 dot peak, vpdpbusd ymm", 32.0, "G multiply-adds/s" },
    { PK_V16, "int8 dot peak, vpdpbusd zmm", 64.0, "G multiply-adds/s" },
    { PK_VX, "int8 dot, vpdpbusd ymm + per 8 one cvt, mul and fma (the interleaved-row kernels' mix)", 32.0, "G multiply-adds/s" },
#endif
#if defined(__AVX512BF16__) && defined(__AVX512VL__)
    { PK_B16, "bf16 dot peak, vdpbf16ps zmm", 64.0, "GFLOP/s" },        /* 32 products + 32 adds */
#endif
};
#define PK_NK ((int)(sizeof pk_kinds / sizeof pk_kinds[0]))

/* one thread: repeat a block of 12 independent chains of kind `kind` (an
 * index into pk_kinds) until secs pass; returns the operations done */
static double pk_run(int kind, double secs) {
    double t0 = pk_now();
    long it = 0;
    volatile float sink = 0;
    const int id = pk_kinds[kind].id;
    const __m256 a = _mm256_set1_ps(1.0000001f), b = _mm256_set1_ps(0.9999999f);
    const __m256i u = _mm256_set1_epi8(3), one = _mm256_set1_epi16(1);
#define PK_F8_I(i) _mm256_set1_ps((float)(i))
#define PK_F8_STEP(x) x = _mm256_fmadd_ps(x, a, b)
#define PK_F8_S(x) _mm256_cvtss_f32(x)
#define PK_I8_I(i) _mm256_set1_epi32(i)
/* the chain's own value is the signed operand: constant operands would let
 * the compiler hoist the products out of the loop (it did: the line
 * measured vpaddd) */
#define PK_I8_STEP(x) x = _mm256_add_epi32(x, _mm256_madd_epi16(_mm256_maddubs_epi16(u, x), one))
#define PK_I8_S(x) (float)_mm256_cvtsi256_si32(x)
    if (id == PK_F8) PK_LOOP(__m256, PK_F8_I, PK_F8_STEP, PK_F8_S)
    else if (id == PK_I8) PK_LOOP(__m256i, PK_I8_I, PK_I8_STEP, PK_I8_S)
#if defined(__AVX512F__)
    else if (id == PK_F16) {
        const __m512 a16 = _mm512_set1_ps(1.0000001f), b16 = _mm512_set1_ps(0.9999999f);
#define PK_F16_I(i) _mm512_set1_ps((float)(i))
#define PK_F16_STEP(x) x = _mm512_fmadd_ps(x, a16, b16)
#define PK_F16_S(x) _mm512_reduce_add_ps(x)
        PK_LOOP(__m512, PK_F16_I, PK_F16_STEP, PK_F16_S)
    }
#endif
#if defined(__AVX512VNNI__) && defined(__AVX512VL__)
    else if (id == PK_V8) {
        const __m256i s = _mm256_set1_epi8(-2);
#define PK_V8_STEP(x) x = _mm256_dpbusd_epi32(x, u, s)
        PK_LOOP(__m256i, PK_I8_I, PK_V8_STEP, PK_I8_S)
    } else if (id == PK_V16) {
        const __m512i u16 = _mm512_set1_epi8(3), s16 = _mm512_set1_epi8(-2);
#define PK_V16_I(i) _mm512_set1_epi32(i)
#define PK_V16_STEP(x) x = _mm512_dpbusd_epi32(x, u16, s16)
#define PK_V16_S(x) (float)_mm512_reduce_add_epi32(x)
        PK_LOOP(__m512i, PK_V16_I, PK_V16_STEP, PK_V16_S)
    } else if (id == PK_VX) {   /* 12 vpdpbusd chains, 3 fma chains fed by them and by 3 vmulps chains: 8 : 1 : 1 : 1 */
        const __m256i s = _mm256_set1_epi8(-2);
        __m256 f0 = a, f1 = a, f2 = a, g0 = b, g1 = b, g2 = b;
#define PK_VX_FLOAT                                                                                      \
    do {                                                                                                 \
        g0 = _mm256_mul_ps(g0, a); g1 = _mm256_mul_ps(g1, a); g2 = _mm256_mul_ps(g2, a);                 \
        f0 = _mm256_fmadd_ps(_mm256_cvtepi32_ps(x0), g0, f0); f1 = _mm256_fmadd_ps(_mm256_cvtepi32_ps(x4), g1, f1); \
        f2 = _mm256_fmadd_ps(_mm256_cvtepi32_ps(x8), g2, f2);                                            \
    } while (0)
        PK_LOOPX(__m256i, PK_I8_I, PK_V8_STEP, PK_I8_S, PK_VX_FLOAT)
        sink += PK_F8_S(f0) + PK_F8_S(f1) + PK_F8_S(f2) + PK_F8_S(g0) + PK_F8_S(g1) + PK_F8_S(g2);
    }
#endif
#if defined(__AVX512BF16__) && defined(__AVX512VL__)
    else if (id == PK_B16) {
        const __m512bh p = (__m512bh)_mm512_set1_epi16(0x3f80), q = (__m512bh)_mm512_set1_epi16(0x3f00);   /* 1.0, 0.5 */
#define PK_B16_STEP(x) x = _mm512_dpbf16_ps(x, p, q)
        PK_LOOP(__m512, PK_F16_I, PK_B16_STEP, PK_F16_S)
    }
#endif
    (void)sink;
    return (double)it * 12 * pk_kinds[kind].ops_per_step;
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
    for (kind = 0; kind < PK_NK; kind++) {
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
        printf("%s, %d threads: %.1f %s\n", pk_kinds[kind].what, nt, best / 1e9, pk_kinds[kind].unit);
    }
    return 0;
}
#else
int main(void) { printf("peak: needs x86 AVX2 + FMA\n"); return 0; }
#endif
