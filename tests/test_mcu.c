/* The Cortex-M dot products against their scalar references, bit for bit
 * (section 14.7s): Helium (MVE) q8_0 . q8_0, q4_0 . q8_0 and f32 . f32 on
 * the Cortex-M55, the DSP extension's q8_0 and q4_0 on the Cortex-M4.
 * `make test` compiles this file for both and runs it under
 * qemu-system-arm (mps3-an547, mps2-an386; semihosting for the output). A
 * host build has neither and says so (SKIP). Inputs: random blocks, the
 * int8 extremes (-128 x -128 products), zero and subnormal scales, rows of
 * every length class (f32: multiples of 16, of 64 plus a tail, shorter
 * than 64). */
#define LLMKIT_IMPLEMENTATION
#define LLMKIT_NO_IQ
#define LLMKIT_NO_KV_POLICIES
#include "llmkit.h"
#include "tests/lk_test.h"

static uint32_t rng_s = 12345u;
static uint32_t rng(void) { rng_s = rng_s * 1664525u + 1013904223u; return rng_s >> 8; }
static float rng_f(void) { return (float)rng() / 8388608.0f * 2.0f - 1.0f; }

#if defined(LK__MVE) || defined(LK__DSP)
static void put16(unsigned char *p, uint16_t v) { p[0] = (unsigned char)v; p[1] = (unsigned char)(v >> 8); }
/* n/32 blocks of (f16 d | qb bytes): random quants, some blocks at the extremes, some scales 0 or subnormal */
static void fill(unsigned char *p, int64_t n, int qb, int rep) {
    int64_t b;
    int j;
    for (b = 0; b < n / 32; b++, p += 2 + qb) {
        const int kind = (int)((b + rep) % 5);
        put16(p, kind == 3 ? 0 : kind == 4 ? 0x0003 : lk_fp32_to_fp16(rng_f() * (rep & 1 ? 0.5f : 0.01f)));
        for (j = 0; j < qb; j++) p[2 + j] = (unsigned char)(kind == 2 ? 0x80 : rng());
    }
}
static void test_q(const char *name, int qb, void (*fn)(int64_t, float *, const void *, const void *), void (*ref)(int64_t, float *, const void *, const void *)) {
    static const int64_t lens[] = { 32, 64, 96, 256, 4096 };
    static unsigned char x[4096 / 32 * 34], y[4096 / 32 * 34];
    size_t k;
    int rep;
    lk_t_begin(name);
    for (k = 0; k < sizeof lens / sizeof *lens; k++)
        for (rep = 0; rep < 8; rep++) {
            float a, b;
            fill(x, lens[k], qb, rep); fill(y, lens[k], 32, rep + 1);
            fn(lens[k], &a, x, y); ref(lens[k], &b, x, y);
            CHECK(!memcmp(&a, &b, 4), "n %lld rep %d: kernel %.9g, reference %.9g", (long long)lens[k], rep, a, b);
        }
    lk_t_end();
}
#endif
#if defined(LK__MVE)
static void test_f32(void) {
    static const int64_t lens[] = { 16, 48, 64, 100, 128, 172, 200, 1000, 4096 };
    static float x[4096], y[4096];
    size_t k;
    int rep, i;
    lk_t_begin("helium f32 . f32 = lk__vec_dot_f32_ref");
    for (k = 0; k < sizeof lens / sizeof *lens; k++)
        for (rep = 0; rep < 8; rep++) {
            float a, b;
            for (i = 0; i < lens[k]; i++) { x[i] = rng_f() * (rep & 2 ? 100.0f : 1.0f); y[i] = rng_f() * (i % 7 == 0 ? 1e-30f : 1.0f); }
            lk__vd_f32_mve(lens[k], &a, x, y); lk__vec_dot_f32_ref(lens[k], &b, x, y);
            CHECK(!memcmp(&a, &b, 4), "n %lld rep %d: kernel %.9g, reference %.9g", (long long)lens[k], rep, a, b);
        }
    lk_t_end();
}
#endif

int main(void) {
#if defined(LK__MVE)
    test_q("helium q8_0 . q8_0 = lk__vec_dot_q8_0_q8_0_ref", 32, lk__vd_q8_0_mve, lk__vec_dot_q8_0_q8_0_ref);
    test_q("helium q4_0 . q8_0 = lk__vec_dot_q4_0_q8_0_ref", 16, lk__vd_q4_0_mve, lk__vec_dot_q4_0_q8_0_ref);
    test_f32();
#elif defined(LK__DSP)
    test_q("dsp q8_0 . q8_0 = lk__vec_dot_q8_0_q8_0_ref", 32, lk__vd_q8_0_dsp, lk__vec_dot_q8_0_q8_0_ref);
    test_q("dsp q4_0 . q8_0 = lk__vec_dot_q4_0_q8_0_ref", 16, lk__vd_q4_0_dsp, lk__vec_dot_q4_0_q8_0_ref);
#endif
#if !defined(LK__MVE) && !defined(LK__DSP)
    (void)rng_f; (void)lk_t_begin; (void)lk_t_end; (void)lk_t_fail;
    lk_t_skip("Cortex-M dot products", "this build has neither Helium nor the DSP extension; make test runs this file for the Cortex-M55 and M4 under qemu");
#endif
    return lk_t_exit();
}
