/* lk_tool.h - the few lines every llmkit command-line tool would repeat.
 *
 * Include it first, before any other header, then the library:
 *     #include "lk_tool.h"            (examples/: "tools/lk_tool.h")
 *     #define LLMKIT_IMPLEMENTATION
 *     #include "llmkit.h"
 * It asks for POSIX (clock_gettime), includes <stdio.h>, <stdlib.h>,
 * <string.h>, <time.h> and llmkit.h's declarations, and defines static
 * helpers. Messages follow llmkit's convention (llmkit.h section 2): one
 * line on stderr, "NAME: what went wrong", and the exit status 1 for a
 * failure or 2 for a bad command line. Each helper is marked unused, so a
 * tool compiles warning-free whatever it calls. Not part of the library:
 * examples/simple.c shows the bare API without it. */
#ifndef LK_TOOL_H
#define LK_TOOL_H

#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L   /* clock_gettime, CLOCK_MONOTONIC */
#endif
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "llmkit.h"

#if defined(__GNUC__) || defined(__clang__)
#define TOOL_UNUSED __attribute__((unused))
#define TOOL_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#define TOOL_UNUSED
#define TOOL_PRINTF(fmt, args)
#endif

/* The tool's name, the first word of every message: set it first in main. */
static TOOL_UNUSED const char *tool_name = "llmkit";

/* Seconds on a monotonic clock: subtract two readings for a duration. */
static TOOL_UNUSED double tool_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* tool_now as a callback (lk_spec_params.now) */
static TOOL_UNUSED double tool_now_user(void *user) { (void)user; return tool_now(); }

/* Print "usage: TEXT" on stderr and return 2 (a bad command line):
 *     return tool_usage("tokenize -m MODEL (-p TEXT | -f FILE)"); */
static TOOL_UNUSED int tool_usage(const char *text) {
    fprintf(stderr, "usage: %s\n", text);
    return 2;
}

/* "NAME: message\n" on stderr (the body of tool_fail and tool_bad_usage) */
static TOOL_UNUSED void tool_vmsg(const char *fmt, va_list ap) {
    fprintf(stderr, "%s: ", tool_name);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
}

/* Print "NAME: message" (printf-style) on stderr and return status:
 *     return tool_fail(1, "cannot create %s", path); */
static TOOL_UNUSED TOOL_PRINTF(2, 3) int tool_fail(int status, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    tool_vmsg(fmt, ap);
    va_end(ap);
    return status;
}

/* After a failed llmkit call: print "NAME: lk_last_error()" and return status:
 *     if (lk_model_load_file(path, NULL, &m)) return tool_lk_fail(1); */
static TOOL_UNUSED int tool_lk_fail(int status) {
    return tool_fail(status, "%s", lk_last_error());
}

/* Parse a whole string as a decimal integer in [lo, hi]: 1 and *out set,
 * or 0 (nothing but the number is allowed, not even spaces after it). */
static TOOL_UNUSED int tool_parse_int(const char *s, long lo, long hi, int *out) {
    char *end;
    long v;
    errno = 0;
    v = strtol(s, &end, 10);
    if (end == s || *end || errno == ERANGE || v < lo || v > hi) return 0;
    *out = (int)v;
    return 1;
}

/* Set one option by its command-line name on whichever params struct knows
 * it: the model's (--check-tensors), the context's (-t, -c, --kv-type, ...)
 * or, when sp is not NULL, the sampler's (--temp, --top-k, ...).
 * LK_ERR_NOT_FOUND when none does; another status for a bad value (then
 * lk_last_error() names the flag). */
static TOOL_UNUSED lk_status tool_set_option(lk_model_params *mp, lk_context_params *cp, lk_sampler_params *sp,
                                             const char *name, const char *value) {
    lk_status st = lk_model_params_set(mp, name, value);
    if (st == LK_ERR_NOT_FOUND) st = lk_context_params_set(cp, name, value);
    if (st == LK_ERR_NOT_FOUND && sp) st = lk_sampler_params_set(sp, name, value);
    return st;
}

/* The option sets a tool accepts, for tool_help: an OR of these bits. */
#define TOOL_OPTS_MODEL   (1u << LK_OPTIONS_MODEL)     /* --check-tensors, --repack */
#define TOOL_OPTS_CONTEXT (1u << LK_OPTIONS_CONTEXT)   /* -c, -b, -t, --kv-type, ... */
#define TOOL_OPTS_SAMPLER (1u << LK_OPTIONS_SAMPLER)   /* --temp, --top-k, ... */
#define TOOL_OPTS_SPEC    (1u << LK_OPTIONS_SPEC)      /* --spec, --draft-max, ... */

/* Print the rows of llmkit's option tables (lk_options, lk_option_help) for
 * the sets in `sets`, one line each under a heading per set, leaving out
 * the names in `own` (NULL-terminated, or NULL): options the tool parses
 * itself and lists in its usage. The rows are what the _params_set
 * functions accept, so this help cannot drift from the parser. */
static TOOL_UNUSED void tool_print_options(FILE *f, unsigned sets, const char *const *own) {
    static const char *const heading[LK_OPTIONS_COUNT] = { "model", "context", "sampling", "speculative decoding" };
    int set, i, n, k;
    char line[512];
    for (set = 0; set < LK_OPTIONS_COUNT; set++) {
        const lk_option *rows = lk_options((lk_option_set)set, &n);
        if (!(sets & (1u << set))) continue;
        fprintf(f, "%s options:\n", heading[set]);
        for (i = 0; i < n; i++) {
            for (k = 0; own && own[k] && strcmp(own[k], rows[i].name); k++) {}
            if (own && own[k]) continue;
            lk_option_help(&rows[i], line, sizeof line);
            fprintf(f, "%s\n", line);
        }
    }
}

/* The row of the sets in `sets` that name (leading dashes ignored) or its
 * alias names, or NULL: for a tool that must tell table options from its
 * own before it sets one. */
static TOOL_UNUSED const lk_option *tool_find_option(unsigned sets, const char *name) {
    int set, i, n;
    while (*name == '-') name++;
    for (set = 0; set < LK_OPTIONS_COUNT; set++) {
        const lk_option *rows = lk_options((lk_option_set)set, &n);
        if (sets & (1u << set))
            for (i = 0; i < n; i++)
                if (!strcmp(name, rows[i].name) || (rows[i].alias && !strcmp(name, rows[i].alias))) return &rows[i];
    }
    return NULL;
}

/* --help (status 0: on stdout) or a bad command line (status 2: on
 * stderr): "usage: USAGE", then the option rows of `sets` (as
 * tool_print_options). Returns status:
 *     if (!strcmp(a, "-h") || !strcmp(a, "--help")) return tool_help(0, USAGE, TOOL_OPTS_MODEL, NULL); */
static TOOL_UNUSED int tool_help(int status, const char *usage, unsigned sets, const char *const *own) {
    FILE *f = status ? stderr : stdout;
    fprintf(f, "usage: %s\n", usage);
    tool_print_options(f, sets, own);
    return status;
}

/* A bad command line: "NAME: message" (printf-style), then the usage and
 * the option rows as tool_help, on stderr; returns 2:
 *     return tool_bad_usage(USAGE, sets, NULL, "unknown option %s", a); */
static TOOL_UNUSED TOOL_PRINTF(4, 5) int tool_bad_usage(const char *usage, unsigned sets, const char *const *own, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    tool_vmsg(fmt, ap);
    va_end(ap);
    return tool_help(2, usage, sets, own);
}

/* A flag at the end of the command line, with no value after it: a bad
 * command line (tool_bad_usage) that says whether the flag is a table
 * option missing its value or not an option the tool knows:
 *     if (!x) return tool_no_value(USAGE, sets, NULL, a); */
static TOOL_UNUSED int tool_no_value(const char *usage, unsigned sets, const char *const *own, const char *flag) {
    if (tool_find_option(sets, flag)) return tool_bad_usage(usage, sets, own, "%s needs a value", flag);
    return tool_bad_usage(usage, sets, own, "%s: an unknown option, or its value is missing", flag);
}

/* The context a generating tool makes when -c is not given: the model's
 * training context, at most 4096 (as llama.cpp's tools), and at least
 * `need` tokens (the prompt plus those asked for), unless the model has
 * learned positions (no RoPE, gpt2): they end at its training context. */
static TOOL_UNUSED int tool_default_ctx(const lk_model *m, long long need) {
    const lk_hparams *hp = lk_model_hparams(m);
    long long n = hp->n_ctx_train < 4096 ? hp->n_ctx_train : 4096;
    if (need > n) n = need;
    if (hp->rope.n_rot == 0 && n > hp->n_ctx_train) n = hp->n_ctx_train;
    return n > 0x7fffffff ? 0x7fffffff : (int)n;
}

/* Read a whole file into *data (malloc'd, NUL-terminated, free() it) and its
 * length into *size. On failure *data is NULL and lk_last_error() says why
 * ("cannot open PATH: reason"); returns LK_ERR_IO or LK_ERR_NOMEM. */
static TOOL_UNUSED lk_status tool_read_file(const char *path, char **data, size_t *size) {
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    size_t len = 0, cap = 65536;
    long n;
    *data = NULL;
    *size = 0;
    if (!f) return lk_set_error(LK_ERR_IO, "cannot open %s: %s", path, strerror(errno));
    /* a regular file: its size (+ NUL + 1 byte to see the end) in one buffer;
     * a pipe cannot seek: the buffer doubles as it fills */
    if (fseek(f, 0, SEEK_END) == 0) {
        if ((n = ftell(f)) >= 0) cap = (size_t)n + 2;
        rewind(f);
    }
    for (;;) {
        size_t got;
        if (!buf || cap - len < 2) {   /* room for a read and the NUL */
            size_t ncap = !buf ? cap : cap > ((size_t)-1) / 4 ? 0 : 2 * cap;
            char *nb = ncap ? (char *)realloc(buf, ncap) : NULL;
            if (!nb && !buf && cap > 65536) { cap = 65536; continue; }   /* a size we cannot trust (a directory) */
            if (!nb) { free(buf); fclose(f); return lk_set_error(LK_ERR_NOMEM, "%s: out of memory", path); }
            buf = nb;
            cap = ncap;
        }
        got = fread(buf + len, 1, cap - len - 1, f);
        len += got;
        if (got == 0) break;
    }
    if (ferror(f)) { free(buf); fclose(f); return lk_set_error(LK_ERR_IO, "cannot read %s: %s", path, strerror(errno)); }
    fclose(f);
    buf[len] = 0;
    *data = buf;
    *size = len;
    return LK_OK;
}

#endif /* LK_TOOL_H */
