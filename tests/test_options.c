/* lk-test: sanitize */
/* The option tables (llmkit.h section 13: lk_options, lk_option_help and
 * the four setters lk_model_params_set, lk_context_params_set,
 * lk_sampler_params_set, lk_spec_params_set).
 *
 * Every expectation is written here, from the params structs' definitions
 * and the documented names, not read from the library's tables: each
 * option's name, alias, kind, field (offsetof / sizeof the struct member)
 * and range, and each choice's value. For every option: the name, its
 * dash forms and its alias set exactly that field (every other byte of the
 * struct unchanged); both range edges are accepted and the values just
 * outside refused with LK_ERR_INVALID_ARG and a message naming the flag,
 * leaving the struct unchanged; a choice maps each name to its value
 * (kv-type's zip4 / zip2 also set kv_zip_bits). Unknown names give
 * LK_ERR_NOT_FOUND with "unknown ... option NAME", NULL arguments
 * LK_ERR_INVALID_ARG with a message; each row's help line names the flag,
 * its alias and every choice. Built with LLMKIT_NO_STDIO: the tables and
 * their help text are there in firmware builds too. */
#define LLMKIT_NO_STDIO
#define LLMKIT_IMPLEMENTATION
#include "llmkit.h"
#include "tests/lk_test.h"
#include <limits.h>
#include <stddef.h>

enum { I = 'i', U = 'u', F = 'f', C = 'c' };   /* int, uint64, float, choice */
#define FLD(T, f) offsetof(T, f), sizeof(((T *)0)->f)
#define POL(f) offsetof(lk_context_params, kv_policy) + offsetof(lk_kv_policy_params, f), sizeof(((lk_kv_policy_params *)0)->f)
#define INF 1e30   /* an unbounded float range */
#define I64 LLONG_MAX

typedef struct exp_opt {
    int set;
    const char *name, *alias;
    int kind;
    size_t off, size;
    long long lo, hi;      /* I, U */
    double flo, fhi;       /* F   */
} exp_opt;

static const exp_opt expected[] = {
    { LK_OPTIONS_MODEL, "check-tensors", NULL, I, FLD(lk_model_params, check_tensors), 0, 1, 0, 0 },
    { LK_OPTIONS_MODEL, "repack", NULL, I, FLD(lk_model_params, repack), -1, 1, 0, 0 },
    { LK_OPTIONS_MODEL, "exact", NULL, I, FLD(lk_model_params, exact), 0, 1, 0, 0 },

    { LK_OPTIONS_CONTEXT, "ctx-size", "c", I, FLD(lk_context_params, n_ctx), 0, INT_MAX, 0, 0 },
    { LK_OPTIONS_CONTEXT, "batch-size", "b", I, FLD(lk_context_params, n_batch), 1, INT_MAX, 0, 0 },
    { LK_OPTIONS_CONTEXT, "threads", "t", I, FLD(lk_context_params, n_threads), -1, 4096, 0, 0 },
    { LK_OPTIONS_CONTEXT, "attn", NULL, C, FLD(lk_context_params, attn_score), 0, 0, 0, 0 },
    { LK_OPTIONS_CONTEXT, "lssar-p", NULL, F, FLD(lk_context_params, lssar_p), 0, 0, 0, INF },
    { LK_OPTIONS_CONTEXT, "attn-split", NULL, I, FLD(lk_context_params, attn_split), 0, 1024, 0, 0 },
    { LK_OPTIONS_CONTEXT, "attn-tile", NULL, I, FLD(lk_context_params, attn_tile), 0, INT_MAX, 0, 0 },
    { LK_OPTIONS_CONTEXT, "kv-type", "kv", C, FLD(lk_context_params, kv_type), 0, 0, 0, 0 },
    { LK_OPTIONS_CONTEXT, "kv-window", NULL, I, FLD(lk_context_params, kv_zip_window), 1, INT_MAX, 0, 0 },
    { LK_OPTIONS_CONTEXT, "kv-rotate", NULL, I, FLD(lk_context_params, kv_rotate), 0, 1, 0, 0 },
    { LK_OPTIONS_CONTEXT, "tree-nodes", NULL, I, FLD(lk_context_params, n_tree), 0, INT_MAX, 0, 0 },
    { LK_OPTIONS_CONTEXT, "kv-policy", NULL, C, POL(policy), 0, 0, 0, 0 },
    { LK_OPTIONS_CONTEXT, "kv-budget", NULL, I, POL(budget), 0, INT_MAX, 0, 0 },
    { LK_OPTIONS_CONTEXT, "n-sink", NULL, I, POL(n_sink), 0, INT_MAX, 0, 0 },
    { LK_OPTIONS_CONTEXT, "kv-recent", NULL, I, POL(recent), 0, INT_MAX, 0, 0 },
    { LK_OPTIONS_CONTEXT, "page-size", NULL, I, POL(page_size), 1, 65536, 0, 0 },
    { LK_OPTIONS_CONTEXT, "top-p-attn", NULL, F, POL(top_p), 0, 0, 0, 1 },
    { LK_OPTIONS_CONTEXT, "twilight-base", NULL, C, POL(twilight_base), 0, 0, 0, 0 },
    { LK_OPTIONS_CONTEXT, "kv-seed", NULL, U, POL(seed), 0, I64, 0, 0 },
    { LK_OPTIONS_CONTEXT, "reuse-cos", NULL, F, POL(reuse_cos), 0, 0, 0, 1 },
    { LK_OPTIONS_CONTEXT, "parallel", "np", I, FLD(lk_context_params, n_seq_max), 0, 65536, 0, 0 },
    { LK_OPTIONS_CONTEXT, "kv-page", NULL, I, FLD(lk_context_params, kv_page), 1, 65536, 0, 0 },
    { LK_OPTIONS_CONTEXT, "rs-checkpoints", NULL, I, FLD(lk_context_params, n_rs_seq), 0, 65536, 0, 0 },

    { LK_OPTIONS_SAMPLER, "temp", NULL, F, FLD(lk_sampler_params, temperature), 0, 0, -INF, INF },
    { LK_OPTIONS_SAMPLER, "top-k", NULL, I, FLD(lk_sampler_params, top_k), INT_MIN, INT_MAX, 0, 0 },
    { LK_OPTIONS_SAMPLER, "top-p", NULL, F, FLD(lk_sampler_params, top_p), 0, 0, 0, 1 },
    { LK_OPTIONS_SAMPLER, "min-p", NULL, F, FLD(lk_sampler_params, min_p), 0, 0, 0, 1 },
    { LK_OPTIONS_SAMPLER, "typical", NULL, F, FLD(lk_sampler_params, typical_p), 0, 0, 0, 1 },
    { LK_OPTIONS_SAMPLER, "min-keep", NULL, I, FLD(lk_sampler_params, min_keep), 0, INT_MAX, 0, 0 },
    { LK_OPTIONS_SAMPLER, "repeat-penalty", NULL, F, FLD(lk_sampler_params, repeat_penalty), 0, 0, 0, INF },
    { LK_OPTIONS_SAMPLER, "repeat-last-n", NULL, I, FLD(lk_sampler_params, repeat_last_n), 0, INT_MAX, 0, 0 },
    { LK_OPTIONS_SAMPLER, "frequency-penalty", NULL, F, FLD(lk_sampler_params, frequency_penalty), 0, 0, -INF, INF },
    { LK_OPTIONS_SAMPLER, "presence-penalty", NULL, F, FLD(lk_sampler_params, presence_penalty), 0, 0, -INF, INF },
    { LK_OPTIONS_SAMPLER, "mirostat", NULL, I, FLD(lk_sampler_params, mirostat), 0, 2, 0, 0 },
    { LK_OPTIONS_SAMPLER, "mirostat-ent", NULL, F, FLD(lk_sampler_params, mirostat_tau), 0, 0, 0, INF },
    { LK_OPTIONS_SAMPLER, "mirostat-lr", NULL, F, FLD(lk_sampler_params, mirostat_eta), 0, 0, 0, INF },
    { LK_OPTIONS_SAMPLER, "seed", NULL, U, FLD(lk_sampler_params, seed), 0, I64, 0, 0 },

    { LK_OPTIONS_SPEC, "spec", NULL, C, FLD(lk_spec_params, mode), 0, 0, 0, 0 },
    { LK_OPTIONS_SPEC, "draft-max", NULL, I, FLD(lk_spec_params, draft_max), 1, 512, 0, 0 },
    { LK_OPTIONS_SPEC, "draft-p-min", NULL, F, FLD(lk_spec_params, draft_p_min), 0, 0, 0, 1 },
    { LK_OPTIONS_SPEC, "spec-nodes", NULL, I, FLD(lk_spec_params, n_nodes), 1, 512, 0, 0 },
    { LK_OPTIONS_SPEC, "spec-ngram", NULL, I, FLD(lk_spec_params, ngram_max), 1, 8, 0, 0 },
    { LK_OPTIONS_SPEC, "spec-k", NULL, I, FLD(lk_spec_params, recycle_k), 1, 512, 0, 0 },
    { LK_OPTIONS_SPEC, "spec-adaptive", NULL, I, FLD(lk_spec_params, adaptive), 0, 1, 0, 0 },
    { LK_OPTIONS_SPEC, "spec-seed", NULL, U, FLD(lk_spec_params, seed), -I64, I64, 0, 0 },
};
#define N_EXPECTED ((int)(sizeof expected / sizeof expected[0]))

/* the choices: each name and the value it stores (kv-type: and kv_zip_bits) */
typedef struct exp_choice { const char *option, *name; int value, zip; } exp_choice;
static const exp_choice choices[] = {
    { "attn", "softmax", LK_ATTN_SOFTMAX, -1 }, { "attn", "lssa", LK_ATTN_LSSA, -1 }, { "attn", "lssar", LK_ATTN_LSSAR, -1 },
    { "kv-type", "f32", LK_TYPE_F32, 0 }, { "kv-type", "f16", LK_TYPE_F16, 0 }, { "kv-type", "q8_0", LK_TYPE_Q8_0, 0 },
    { "kv-type", "q4_0", LK_TYPE_Q4_0, 0 }, { "kv-type", "zip4", LK_TYPE_F16, 4 }, { "kv-type", "zip2", LK_TYPE_F16, 2 },
    { "kv-policy", "full", LK_KV_FULL, -1 }, { "kv-policy", "streaming", LK_KV_STREAMING, -1 }, { "kv-policy", "h2o", LK_KV_H2O, -1 },
    { "kv-policy", "keyformer", LK_KV_KEYFORMER, -1 }, { "kv-policy", "quest", LK_KV_QUEST, -1 },
    { "kv-policy", "tokenselect", LK_KV_TOKENSELECT, -1 }, { "kv-policy", "twilight", LK_KV_TWILIGHT, -1 },
    { "twilight-base", "full", LK_KV_FULL, -1 }, { "twilight-base", "quest", LK_KV_QUEST, -1 },
    { "spec", "none", LK_SPEC_NONE, -1 }, { "spec", "draft", LK_SPEC_DRAFT, -1 }, { "spec", "tree", LK_SPEC_TREE, -1 },
    { "spec", "recycle", LK_SPEC_RECYCLE, -1 }, { "spec", "lookup", LK_SPEC_LOOKUP, -1 },
};
#define N_CHOICES ((int)(sizeof choices / sizeof choices[0]))

/* any of the four params structs, bytewise comparable (memcpy'd, never assigned) */
typedef union params { lk_model_params m; lk_context_params c; lk_sampler_params s; lk_spec_params x; } params;

static void defaults(int set, params *p) {
    memset(p, 0, sizeof *p);
    if (set == LK_OPTIONS_MODEL) { lk_model_params d = lk_model_default_params(); memcpy(&p->m, &d, sizeof d); }
    if (set == LK_OPTIONS_CONTEXT) { lk_context_params d = lk_context_default_params(); memcpy(&p->c, &d, sizeof d); }
    if (set == LK_OPTIONS_SAMPLER) { lk_sampler_params d = lk_sampler_default_params(); memcpy(&p->s, &d, sizeof d); }
    if (set == LK_OPTIONS_SPEC) { lk_spec_params d = lk_spec_default_params(); memcpy(&p->x, &d, sizeof d); }
}
static lk_status set_opt(int set, params *p, const char *name, const char *v) {
    switch (set) {
    case LK_OPTIONS_MODEL: return lk_model_params_set(p ? &p->m : NULL, name, v);
    case LK_OPTIONS_CONTEXT: return lk_context_params_set(p ? &p->c : NULL, name, v);
    case LK_OPTIONS_SAMPLER: return lk_sampler_params_set(p ? &p->s : NULL, name, v);
    default: return lk_spec_params_set(p ? &p->x : NULL, name, v);
    }
}
/* write an integer of `size` bytes (the expected effect, done by hand) */
static void put_int(params *p, size_t off, size_t size, long long v) {
    unsigned char *f = (unsigned char *)p + off;
    if (size == 8) { int64_t x = (int64_t)v; memcpy(f, &x, 8); }
    else if (size == 4) { int32_t x = (int32_t)v; memcpy(f, &x, 4); }
    else if (size == 2) { int16_t x = (int16_t)v; memcpy(f, &x, 2); }
    else { int8_t x = (int8_t)v; memcpy(f, &x, 1); }
}
static const exp_opt *find_expected(int set, const char *name) {
    int i;
    for (i = 0; i < N_EXPECTED; i++) if (expected[i].set == set && !strcmp(expected[i].name, name)) return &expected[i];
    return NULL;
}

/* name (as given) = v: LK_OK, and the struct equals the defaults with `want` applied */
static void expect_set(const exp_opt *e, const char *name, const char *v, const params *want) {
    params p;
    defaults(e->set, &p);
    CHECK(set_opt(e->set, &p, name, v) == LK_OK, "%s %s refused: %s", name, v, lk_last_error());
    CHECK(memcmp(&p, want, sizeof p) == 0, "%s %s: not exactly the field %s changed", name, v, e->name);
}
/* name = v refused: LK_ERR_INVALID_ARG, a message naming the flag, nothing changed */
static void expect_refused(const exp_opt *e, const char *name, const char *v) {
    params p, d;
    defaults(e->set, &p);
    memcpy(&d, &p, sizeof p);
    lk_clear_error();
    CHECK(set_opt(e->set, &p, name, v) == LK_ERR_INVALID_ARG, "%s '%s' not refused with LK_ERR_INVALID_ARG", name, v);
    CHECK(strstr(lk_last_error(), name) != NULL, "%s '%s': the message does not name the flag: %s", name, v, lk_last_error());
    CHECK(memcmp(&p, &d, sizeof p) == 0, "%s '%s' refused but the struct changed", name, v);
}

/* the tables list exactly the expected rows, with their aliases and kinds */
static void test_rows(void) {
    int set, i, n, total = 0;
    lk_t_begin("options_rows");
    for (set = 0; set < LK_OPTIONS_COUNT; set++) {
        const lk_option *rows = lk_options((lk_option_set)set, &n);
        CHECK(rows != NULL && n > 0, "set %d: no rows", set);
        for (i = 0; rows && i < n; i++) {
            const exp_opt *e = find_expected(set, rows[i].name);
            static const int kinds[] = { I, U, F, C };
            CHECK(e != NULL, "set %d: row '%s' is not documented in this test", set, rows[i].name);
            if (!e) continue;
            CHECK((e->alias == NULL) == (rows[i].alias == NULL) && (!e->alias || !strcmp(e->alias, rows[i].alias)),
                  "%s: alias %s, wanted %s", e->name, rows[i].alias ? rows[i].alias : "none", e->alias ? e->alias : "none");
            CHECK((unsigned)rows[i].kind < 4u && kinds[rows[i].kind] == e->kind, "%s: kind %d", e->name, (int)rows[i].kind);
            CHECK(rows[i].help && strlen(rows[i].help) > 8, "%s: no help text", e->name);
        }
        total += n;
    }
    CHECK(total == N_EXPECTED, "%d rows in the tables, %d documented here", total, N_EXPECTED);
    CHECK(lk_options(LK_OPTIONS_COUNT, &n) == NULL && n == 0, "an unknown set gave rows");
    CHECK(lk_options((lk_option_set)-1, NULL) == NULL, "set -1 gave rows");
    lk_t_end();
}

/* every name, dash form and alias sets its field; ranges: edges in, just outside out */
static void test_ranges(void) {
    char lo[48], hi[48], below[48], above[48], name[64];
    int i;
    lk_t_begin("options_ranges");
    for (i = 0; i < N_EXPECTED; i++) {
        const exp_opt *e = &expected[i];
        params want;
        if (e->kind == C) continue;
        snprintf(name, sizeof name, "--%s", e->name);
        if (e->kind == I || e->kind == U) {
            const long long mid = e->lo / 2 + e->hi / 2 + (e->hi > e->lo + 1);   /* inside, no overflow */
            char smid[48];
            snprintf(lo, sizeof lo, "%lld", e->lo); snprintf(hi, sizeof hi, "%lld", e->hi); snprintf(smid, sizeof smid, "%lld", mid);
            if (e->lo == -I64) snprintf(below, sizeof below, "-9223372036854775808");
            else snprintf(below, sizeof below, "%lld", e->lo - 1);
            if (e->hi == I64) snprintf(above, sizeof above, "9223372036854775808");
            else snprintf(above, sizeof above, "%lld", e->hi + 1);
            defaults(e->set, &want); put_int(&want, e->off, e->size, e->lo); expect_set(e, name, lo, &want);
            defaults(e->set, &want); put_int(&want, e->off, e->size, e->hi); expect_set(e, name, hi, &want);
            defaults(e->set, &want); put_int(&want, e->off, e->size, mid);
            expect_set(e, name, smid, &want);
            expect_set(e, e->name, smid, &want);                 /* no dashes */
            snprintf(name, sizeof name, "-%s", e->name);
            expect_set(e, name, smid, &want);                    /* one dash */
            if (e->alias) {
                snprintf(name, sizeof name, "-%s", e->alias);  expect_set(e, name, smid, &want);
                snprintf(name, sizeof name, "--%s", e->alias); expect_set(e, name, smid, &want);
            }
            snprintf(name, sizeof name, "--%s", e->name);
            expect_refused(e, name, below);
            expect_refused(e, name, above);
            expect_refused(e, name, "1.5");
            expect_refused(e, name, "");
            expect_refused(e, name, "7x");
            expect_refused(e, name, " 1");
        } else {   /* F: finite edges in (an unbounded side: 1e30 is the edge), just outside out */
            const double l = e->flo <= -INF ? -1e30 : e->flo, h = e->fhi >= INF ? 1e30 : e->fhi;
            float f;
            snprintf(lo, sizeof lo, "%.17g", l); snprintf(hi, sizeof hi, "%.17g", h);
            defaults(e->set, &want); f = (float)l; memcpy((unsigned char *)&want + e->off, &f, sizeof f); expect_set(e, name, lo, &want);
            defaults(e->set, &want); f = (float)h; memcpy((unsigned char *)&want + e->off, &f, sizeof f); expect_set(e, name, hi, &want);
            defaults(e->set, &want); f = 0.25f; memcpy((unsigned char *)&want + e->off, &f, sizeof f);
            expect_set(e, name, "0.25", &want);
            expect_set(e, e->name, "0.25", &want);
            snprintf(below, sizeof below, "%.17g", e->flo <= -INF ? -1e31 : e->flo - 1e-6);
            snprintf(above, sizeof above, "%.17g", e->fhi >= INF ? 1e31 : e->fhi + 1e-6);
            expect_refused(e, name, below);
            expect_refused(e, name, above);
            expect_refused(e, name, "nan");
            expect_refused(e, name, "inf");
            expect_refused(e, name, "-inf");
            expect_refused(e, name, "0.5x");
            expect_refused(e, name, "");
        }
    }
    lk_t_end();
}

/* each choice name stores its value (kv-type also kv_zip_bits); other names are refused listing them */
static void test_choices(void) {
    int i, k, set;
    char name[64], help[512];
    lk_t_begin("options_choices");
    for (i = 0; i < N_CHOICES; i++) {
        const exp_choice *x = &choices[i];
        const exp_opt *e = NULL;
        params want;
        for (set = 0; set < LK_OPTIONS_COUNT && !e; set++) e = find_expected(set, x->option);
        CHECK(e && e->kind == C, "%s: not a documented choice", x->option);
        if (!e) continue;
        defaults(e->set, &want);
        put_int(&want, e->off, e->size, x->value);
        if (x->zip >= 0) put_int(&want, offsetof(lk_context_params, kv_zip_bits), sizeof(int), x->zip);
        snprintf(name, sizeof name, "--%s", x->option);
        expect_set(e, name, x->name, &want);
        if (e->alias) { snprintf(name, sizeof name, "-%s", e->alias); expect_set(e, name, x->name, &want); }
    }
    /* zip clears when another type follows */
    {
        lk_context_params cp = lk_context_default_params();
        CHECK_OK(lk_context_params_set(&cp, "--kv-type", "zip2"));
        CHECK_OK(lk_context_params_set(&cp, "--kv", "q8_0"));
        CHECK(cp.kv_type == LK_TYPE_Q8_0 && cp.kv_zip_bits == 0, "zip2 then q8_0: type %d zip %d", (int)cp.kv_type, cp.kv_zip_bits);
    }
    for (i = 0; i < N_EXPECTED; i++) {
        const exp_opt *e = &expected[i];
        const lk_option *rows;
        int n, r, listed = 0;
        if (e->kind != C) continue;
        snprintf(name, sizeof name, "--%s", e->name);
        expect_refused(e, name, "nonesuch");
        expect_refused(e, name, "");
        /* the message and the row list every choice, in the order written here */
        rows = lk_options((lk_option_set)e->set, &n);
        for (r = 0; r < n && strcmp(rows[r].name, e->name); r++) {}
        if (r == n) { CHECK(0, "%s: no row", e->name); continue; }
        lk_option_help(&rows[r], help, sizeof help);
        set_opt(e->set, NULL, name, "x");   /* leaves an unrelated message: the next call must set its own */
        { params p; defaults(e->set, &p); set_opt(e->set, &p, name, "nonesuch"); }
        for (k = 0; k < N_CHOICES; k++) {
            if (strcmp(choices[k].option, e->name)) continue;
            CHECK(lk_option_choice(&rows[r], listed) && !strcmp(lk_option_choice(&rows[r], listed), choices[k].name),
                  "%s: choice %d is %s, wanted %s", e->name, listed, lk_option_choice(&rows[r], listed) ? lk_option_choice(&rows[r], listed) : "NULL", choices[k].name);
            CHECK(strstr(lk_last_error(), choices[k].name) != NULL, "%s: the message does not list %s: %s", e->name, choices[k].name, lk_last_error());
            CHECK(strstr(help, choices[k].name) != NULL, "%s: the help does not list %s: %s", e->name, choices[k].name, help);
            listed++;
        }
        CHECK(lk_option_choice(&rows[r], listed) == NULL, "%s: more than %d choices", e->name, listed);
        CHECK(lk_option_choice(&rows[r], -1) == NULL, "%s: choice -1", e->name);
    }
    /* a non-choice row has no choices */
    CHECK(lk_option_choice(lk_options(LK_OPTIONS_MODEL, NULL), 0) == NULL, "an int row has choice 0");
    CHECK(lk_option_choice(NULL, 0) == NULL, "NULL row has choice 0");
    lk_t_end();
}

/* unknown names: NOT_FOUND with a message; NULL arguments: INVALID_ARG with a message */
static void test_errors(void) {
    static const char *const unknown[] = { "--nonesuch", "-x", "--", "", "-", "ctx_size", "--Temp", "--kv-typ", "--ctx-size=5" };
    int set, i;
    params p, d;
    lk_t_begin("options_errors");
    for (set = 0; set < LK_OPTIONS_COUNT; set++) {
        for (i = 0; i < (int)(sizeof unknown / sizeof unknown[0]); i++) {
            defaults(set, &p); memcpy(&d, &p, sizeof p);
            lk_clear_error();
            CHECK(set_opt(set, &p, unknown[i], "1") == LK_ERR_NOT_FOUND, "set %d: '%s' not LK_ERR_NOT_FOUND", set, unknown[i]);
            CHECK(strstr(lk_last_error(), "unknown") && strstr(lk_last_error(), "option") && strstr(lk_last_error(), unknown[i]),
                  "set %d '%s': message '%s'", set, unknown[i], lk_last_error());
            CHECK(memcmp(&p, &d, sizeof p) == 0, "set %d: '%s' changed the struct", set, unknown[i]);
        }
        /* another set's names are unknown here (a tool tries the tables in turn) */
        for (i = 0; i < N_EXPECTED; i++) {
            if (expected[i].set == set || find_expected(set, expected[i].name)) continue;
            defaults(set, &p);
            CHECK(set_opt(set, &p, expected[i].name, "1") == LK_ERR_NOT_FOUND, "set %d took %s", set, expected[i].name);
        }
        defaults(set, &p);
        lk_clear_error();
        CHECK(set_opt(set, NULL, "--seed", "1") == LK_ERR_INVALID_ARG && strcmp(lk_last_error(), "no error"), "set %d: NULL params", set);
        lk_clear_error();
        CHECK(set_opt(set, &p, NULL, "1") == LK_ERR_INVALID_ARG && strcmp(lk_last_error(), "no error"), "set %d: NULL name", set);
        lk_clear_error();
        CHECK(set_opt(set, &p, "--seed", NULL) == LK_ERR_INVALID_ARG && strcmp(lk_last_error(), "no error"), "set %d: NULL value", set);
        CHECK(strstr(lk_last_error(), "_params_set") != NULL, "set %d: the NULL message names no function: %s", set, lk_last_error());
    }
    lk_t_end();
}

/* help lines: "-c, --ctx-size N ...", the flag, alias and range; snprintf semantics */
static void test_help(void) {
    char buf[512], small[8], want[64];
    int set, i, n, len;
    lk_t_begin("options_help");
    for (set = 0; set < LK_OPTIONS_COUNT; set++) {
        const lk_option *rows = lk_options((lk_option_set)set, &n);
        for (i = 0; i < n; i++) {
            const exp_opt *e = find_expected(set, rows[i].name);
            len = lk_option_help(&rows[i], buf, sizeof buf);
            CHECK(len > 0 && (size_t)len == strlen(buf), "%s: length %d vs %d", rows[i].name, len, (int)strlen(buf));
            CHECK(!strchr(buf, '\n'), "%s: a newline in the help", rows[i].name);
            snprintf(want, sizeof want, "--%s ", rows[i].name);
            if (rows[i].alias && strlen(rows[i].alias) > 1) snprintf(want, sizeof want, "--%s, --%s ", rows[i].name, rows[i].alias);
            CHECK(strstr(buf, want) != NULL, "'%s' not in: %s", want, buf);
            if (rows[i].alias && strlen(rows[i].alias) == 1) {
                snprintf(want, sizeof want, "  -%s, --%s ", rows[i].alias, rows[i].name);
                CHECK(!strncmp(buf, want, strlen(want)), "'%s' does not start: %s", want, buf);
            }
            CHECK(strstr(buf, rows[i].help) != NULL, "%s: the help text is not in the line", rows[i].name);
            if (e && (e->kind == I || e->kind == U) && !strchr(rows[i].arg ? rows[i].arg : "", '|')) {
                snprintf(want, sizeof want, "[%lld, %lld]", e->lo, e->hi);
                CHECK(strstr(buf, want) != NULL, "%s: range %s not in: %s", rows[i].name, want, buf);
            }
            /* a small buffer: truncated, terminated, the full length returned */
            memset(small, 'x', sizeof small);
            CHECK(lk_option_help(&rows[i], small, sizeof small) == len && small[sizeof small - 1] == 0 && !strncmp(small, buf, sizeof small - 1),
                  "%s: truncation", rows[i].name);
            CHECK(lk_option_help(&rows[i], NULL, 0) == len, "%s: the length without a buffer", rows[i].name);
        }
    }
    /* the float ranges, as text */
    {
        const lk_option *rows = lk_options(LK_OPTIONS_SAMPLER, &n);
        for (i = 0; i < n; i++) {
            lk_option_help(&rows[i], buf, sizeof buf);
            if (!strcmp(rows[i].name, "temp")) CHECK(strstr(buf, "(-inf, inf)") != NULL, "temp: %s", buf);
            if (!strcmp(rows[i].name, "top-p")) CHECK(strstr(buf, "[0, 1]") != NULL, "top-p: %s", buf);
            if (!strcmp(rows[i].name, "repeat-penalty")) CHECK(strstr(buf, "[0, inf)") != NULL, "repeat-penalty: %s", buf);
        }
    }
    CHECK(lk_option_help(NULL, buf, sizeof buf) == 0 && buf[0] == 0, "NULL row");
    lk_t_end();
}

int main(void) {
    test_rows();
    test_ranges();
    test_choices();
    test_errors();
    test_help();
    return lk_t_exit();
}
