/* lk_test.h - the tiny test harness used by every tests/test_*.c program.
 *
 * A test program runs named cases; each prints one line:
 *     PASS name          FAIL name: why          SKIP name: why
 * tests/run.sh collects these lines from all programs and prints the
 * closing "N passed, N failed, N skipped" line. */
#ifndef LK_TEST_H
#define LK_TEST_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdarg.h>
#include <math.h>

#if defined(__GNUC__) || defined(__clang__)
#define LK_T_UNUSED __attribute__((unused))
#else
#define LK_T_UNUSED
#endif
static int lk_t_failed_ = 0;      /* checks failed in the current case */
static int lk_t_total_fail_ = 0;  /* failed cases in this program      */
static const char *lk_t_name_ = "";

static void lk_t_begin(const char *name) { lk_t_name_ = name; lk_t_failed_ = 0; }
static void lk_t_fail(const char *file, int line, const char *fmt, ...) {
    va_list ap;
    if (lk_t_failed_ < 5) {
        fprintf(stdout, "  %s:%d: ", file, line);
        va_start(ap, fmt); vfprintf(stdout, fmt, ap); va_end(ap);
        fputc('\n', stdout);
    }
    lk_t_failed_++;
}
static void lk_t_end(void) {
    if (lk_t_failed_) { printf("FAIL %s: %d check(s) failed\n", lk_t_name_, lk_t_failed_); lk_t_total_fail_++; }
    else printf("PASS %s\n", lk_t_name_);
    fflush(stdout);
}
static LK_T_UNUSED void lk_t_skip(const char *name, const char *why) { printf("SKIP %s: %s\n", name, why); fflush(stdout); }

#define CHECK(cond, ...) do { if (!(cond)) lk_t_fail(__FILE__, __LINE__, __VA_ARGS__); } while (0)
#define CHECK_OK(expr) do { int st_ = (int)(expr); if (st_) lk_t_fail(__FILE__, __LINE__, "%s returned %d: %s", #expr, st_, lk_last_error()); } while (0)

/* Where the shared fixtures live: $LK_FIXTURES, else ../shared/fixtures. */
static const char *lk_t_fixtures(void) {
    const char *e = getenv("LK_FIXTURES");
    return e && *e ? e : "../shared/fixtures";
}
/* Path under the fixtures dir; returns NULL (and the caller skips) if absent. */
static LK_T_UNUSED const char *lk_t_fixture(const char *rel) {
    static char buf[8][1024];
    static int k = 0;
    FILE *f;
    char *p = buf[k++ & 7];
    snprintf(p, 1024, "%s/%s", lk_t_fixtures(), rel);
    f = fopen(p, "rb");
    if (!f) return NULL;
    fclose(f);
    return p;
}
/* Read a whole file; returns NULL if it cannot. */
static LK_T_UNUSED unsigned char *lk_t_read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    unsigned char *b;
    long n;
    if (!f) return NULL;
    fseek(f, 0, SEEK_END); n = ftell(f); fseek(f, 0, SEEK_SET);
    b = (unsigned char *)malloc(n > 0 ? (size_t)n : 1);
    if (b && n > 0 && fread(b, 1, (size_t)n, f) != (size_t)n) { free(b); b = NULL; }
    fclose(f);
    if (b) *len = (size_t)n;
    return b;
}
/* Path of a real model fetched by `make models` ($LLMKIT_MODELS/models, else
 * ~/.cache/llmkit/models); NULL (and the caller skips) if it is not there. */
static LK_T_UNUSED const char *lk_t_model(const char *file) {
    static char buf[4][1024];
    static int k = 0;
    const char *e = getenv("LLMKIT_MODELS"), *h = getenv("HOME");
    char *p = buf[k++ & 3];
    FILE *f;
    if (e && *e) snprintf(p, 1024, "%s/models/%s", e, file);
    else snprintf(p, 1024, "%s/.cache/llmkit/models/%s", h ? h : ".", file);
    f = fopen(p, "rb");
    if (!f) return NULL;
    fclose(f);
    return p;
}
/* Sequence A of the fixtures (sequences.txt: "A n id ..."): its ids into
 * toks[0..max); the count, or 0 when the file is absent or malformed. The
 * including file includes llmkit.h first (lk_token). */
static LK_T_UNUSED int lk_t_read_seq_a(lk_token *toks, int max) {
    const char *p = lk_t_fixture("sequences.txt");
    FILE *f;
    char tag[8];
    int n, i, id;
    if (!p || !(f = fopen(p, "r"))) return 0;
    if (fscanf(f, "%7s %d", tag, &n) != 2 || n < 1 || n > max) { fclose(f); return 0; }
    for (i = 0; i < n; i++) {
        if (fscanf(f, "%d", &id) != 1) { fclose(f); return 0; }
        toks[i] = id;
    }
    fclose(f);
    return n;
}
/* A file of exactly n floats (malloc'd), or NULL */
static LK_T_UNUSED float *lk_t_read_floats(const char *path, size_t n) {
    size_t len;
    unsigned char *b = path ? lk_t_read_file(path, &len) : NULL;
    if (!b || len != n * sizeof(float)) { free(b); return NULL; }
    return (float *)b;
}
static LK_T_UNUSED int lk_t_cmpd(const void *a, const void *b) { double x = *(const double *)a, y = *(const double *)b; return x < y ? -1 : x > y; }
/* the median of v[0..n) (sorts v) */
static LK_T_UNUSED double lk_t_median(double *v, int n) { qsort(v, (size_t)n, sizeof *v, lk_t_cmpd); return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]); }
/* index of the largest of x[0..n) (the first of equal ones) */
static LK_T_UNUSED int lk_t_argmax(const float *x, int n) {
    int i, b = 0;
    for (i = 1; i < n; i++) if (x[i] > x[b]) b = i;
    return b;
}
/* max_i |a[i] - b[i]| (each difference in float); NaN when a difference is
 * NaN, so that a check against a limit fails */
static LK_T_UNUSED double lk_t_maxdiff(const float *a, const float *b, size_t n) {
    float d = 0;
    size_t i;
    for (i = 0; i < n; i++) if (!(fabsf(a[i] - b[i]) <= d)) d = fabsf(a[i] - b[i]);
    return d;
}
/* teacher-forced mean NLL over n positions: row p of l ([n][n_vocab]
 * logits) predicts toks[p + 1]. The including file includes llmkit.h first. */
static LK_T_UNUSED double lk_t_mean_nll(const float *l, const lk_token *toks, int n, int n_vocab) {
    double s = 0;
    int p, i;
    for (p = 0; p + 1 < n; p++) {
        const float *r = l + (size_t)p * (size_t)n_vocab;
        double mx = r[0], z = 0;
        for (i = 1; i < n_vocab; i++) if (r[i] > mx) mx = r[i];
        for (i = 0; i < n_vocab; i++) z += exp(r[i] - mx);
        s += -(r[toks[p + 1]] - mx - log(z));
    }
    return s / (n - 1);
}

/* ---- logits against a reference: the acceptance rules ------------------------
 * ours, ref: [n_pos][n_vocab] logits, one row per position of a sequence;
 * M = max(1, max |ref|), so the limits scale with the logits.
 * F32 rule, for a float model file against the reference's logits of the
 * same file: at every position max_i |ours - ref| <= 1e-2 M, and the median
 * over the positions of that maximum <= med_limit M (LK_T_F32_MEDIAN on the
 * CPU, whose arithmetic follows llama.cpp's; tests/test_cuda.cu widens it,
 * saying why).
 * Quantized rule, for a quantized file: Q_p = rms_i(ref - ref32) at position
 * p is the reference's own quantization error of the file (ref32: its logits
 * of the F32 file), floored at 1e-3 M; r_p = rms_i(ours - ref) / Q_p must
 * have a median <= lmed and a maximum <= lmax (LK_T_Q_MEDIAN, LK_T_Q_MAX on
 * the CPU): a difference well inside the file's own error.
 * Each CHECKs in the current case, prints one line of figures (the name in
 * a field of `width` characters) and returns the median. */
#define LK_T_F32_MEDIAN 2e-4
#define LK_T_Q_MEDIAN 0.2
#define LK_T_Q_MAX 0.5
/* the rules' common start: *M for ref, and an array of n_pos doubles (NULL,
 * with a failed check, when there are no positions or no memory) */
static LK_T_UNUSED double *lk_t_rule_start(const char *name, const float *ref, int n_pos, int n_vocab, double *M) {
    double *v = n_pos > 0 ? (double *)malloc(sizeof(double) * (size_t)n_pos) : NULL;
    size_t i;
    *M = 1.0;
    if (!v) { CHECK(0, "%s: %d positions", name, n_pos); return NULL; }
    for (i = 0; i < (size_t)n_pos * (size_t)n_vocab; i++) if (fabs(ref[i]) > *M) *M = fabs(ref[i]);
    return v;
}
static LK_T_UNUSED double lk_t_f32_rule(const char *name, int width, const float *ours, const float *ref, int n_pos, int n_vocab,
                                         double med_limit) {
    double M, worst = 0, med, *mx = lk_t_rule_start(name, ref, n_pos, n_vocab, &M);
    size_t i;
    int p;
    if (!mx) return 0;
    for (p = 0; p < n_pos; p++) {
        const float *o = ours + (size_t)p * (size_t)n_vocab, *r = ref + (size_t)p * (size_t)n_vocab;
        mx[p] = 0;
        for (i = 0; i < (size_t)n_vocab; i++) { const double d = fabs((double)o[i] - r[i]); if (d > mx[p]) mx[p] = d; }
        if (mx[p] > worst) worst = mx[p];
        CHECK(mx[p] <= 1e-2 * M, "%s pos %d: max|d| %.3g > 1e-2 M (M %.3g)", name, p, mx[p], M);
    }
    med = lk_t_median(mx, n_pos);
    CHECK(med <= med_limit * M, "%s: median-position max|d| %.3g > %g M (M %.3g)", name, med, med_limit, M);
    printf("  %-*s F32 rule: median max|d| = %.2e (limit %.2e), worst %.2e\n", width, name, med, med_limit * M, worst);
    free(mx);
    return med;
}
static LK_T_UNUSED double lk_t_q_rule(const char *name, int width, const float *ours, const float *ref, const float *ref32, int n_pos,
                                       int n_vocab, double lmed, double lmax) {
    double M, rmax = 0, med, *r = lk_t_rule_start(name, ref, n_pos, n_vocab, &M);
    size_t i;
    int p;
    if (!r) return 0;
    for (p = 0; p < n_pos; p++) {
        const size_t o = (size_t)p * (size_t)n_vocab;
        double dq = 0, d = 0, Q;
        for (i = 0; i < (size_t)n_vocab; i++) {
            const double a = (double)ref[o + i] - ref32[o + i], b = (double)ours[o + i] - ref[o + i];
            dq += a * a; d += b * b;
        }
        Q = sqrt(dq / n_vocab);
        if (Q < 1e-3 * M) Q = 1e-3 * M;
        r[p] = sqrt(d / n_vocab) / Q;
        if (r[p] > rmax) rmax = r[p];
    }
    CHECK(rmax <= lmax, "%s: max over positions of rms(d)/Q = %.3f > %g", name, rmax, lmax);
    med = lk_t_median(r, n_pos);
    CHECK(med <= lmed, "%s: median rms(d)/Q = %.3f > %g", name, med, lmed);
    printf("  %-*s quant rule: median rms(d)/Q = %.3f (limit %.1f), max %.3f (limit %.1f)\n", width, name, med, lmed, rmax, lmax);
    free(r);
    return med;
}
static int lk_t_exit(void) { return lk_t_total_fail_ ? 1 : 0; }
#endif
