/* server: an OpenAI-compatible HTTP server over llmkit's multi-sequence
 * context (lk_decode_batch): every active request advances in the same
 * batched forward, and a finished one frees its sequence at once.
 *   build: cc -O2 -march=native -fopenmp -I. examples/server.c -lm -lpthread -o server
 *          (or make build/server)
 *   usage: server -m MODEL [--host 127.0.0.1] [--port 8080] [-np 4] [-c CTX] [-t N]
 *                 [-b BUDGET] [--api-key KEY] [--chat-template NAME] [--queue N]
 *                 [--max-body BYTES] [-n N] [--alias NAME] [MODEL AND CONTEXT OPTIONS]
 *          (server --help lists them all: the model's and the context's rows
 *          come from llmkit.h's option tables, e.g. --kv-type, --attn,
 *          --check-tensors; -c, -b, -t, -np and --kv-page are the server's own)
 * Flags follow llama-server's: -np sequences decode in parallel, each with
 * CTX / np tokens of context (prompt + reply); -b is the tokens one step
 * may feed (512; SARATHI: decodes first, prompt chunks fill the rest);
 * --queue waiting requests (64); --max-body (1 MiB); -n the default reply
 * length; --alias the model name /v1/models reports.
 * Endpoints:
 *   GET  /health                {"status":"ok", slots_idle, slots_processing,
 *                               queued, served, cached_prompts,
 *                               cached_tokens_reused, kv_rows_free};
 *                               open even with --api-key
 *   GET  /v1/models             the loaded model
 *   POST /v1/completions        {"prompt": "..." or [token ids], ...} (stream: SSE)
 *   POST /v1/chat/completions   {"messages": [...], ...}     (stream: SSE)
 *   POST /tokenize              {"content": "...", "add_special": false,
 *                               "with_pieces": false}
 *   POST /detokenize            {"tokens": [...]}
 * Request fields: temperature, top_p, top_k, min_p, seed, max_tokens (or
 * max_completion_tokens, n_predict), stop (a string or up to 4),
 * presence_penalty, frequency_penalty, repeat_penalty, ignore_eos,
 * cache_prompt. Streams are server-sent events ending with "data: [DONE]".
 * Prompt cache (cache_prompt, default true): a finished request's sequence
 * stays with its tokens (up to np of them); a new request forks the cached
 * sequence with the longest common prefix (lk_seq_fork: shared pages,
 * copy-on-write) and prefills only the rest, so requests with the same
 * system prompt compute it once. The least recently used goes first. Replies
 * are the same with and without it. A model with recurrent layers (lfm2)
 * keeps each sequence's state only for its last n_rs_seq tokens (option
 * --rs-checkpoints): a cached sequence is reused only when its prefix ends
 * at most that many tokens before its end (a follow-up that extends a
 * conversation always), else the prompt is computed anew.
 * Errors are JSON ({"error": {"code", "message", "type"}}): 400 malformed
 * JSON, wrong types, values out of range, a prompt longer than a sequence
 * holds, and what this server does not do (logprobs, tools, a
 * response_format other than text, n > 1, image content), each with a
 * message that says so; 401 a wrong or missing key (with --api-key); 404;
 * 405; 411 a chunked body; 413 a body over --max-body; 414 a path too long;
 * 431 headers over 16 KiB; 503 when the queue is full. A client that goes
 * away frees its sequence at the next step; one that stalls mid-request is
 * dropped after 30 s without holding anyone up.
 * The chat template is the model's (tokenizer.chat_template), else
 * --chat-template (a family name: chatml, llama3, gemma, ...), else chatml,
 * as llama-server does; a reply stops at the template's end-of-turn token
 * or the vocabulary's end-of-generation tokens. Greedy replies (temperature
 * 0) do not depend on what else runs: the batch computes each sequence as
 * if alone.
 * POSIX sockets and threads: one thread per connection (at most 256), one
 * engine thread that owns the context. With OpenMP on Linux it restarts
 * itself once with OMP_PROC_BIND=true unless OMP_PROC_BIND is set. Binds to 127.0.0.1 unless --host
 * says otherwise. Defining LK_SERVER_NO_MAIN leaves out main() so that a
 * test can include the parsers (tests/fuzz_server.c). Tests:
 * tests/test_server.py; load test against llama-server: tools/compare-server.sh. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "tools/lk_tool.h"
#define LLMKIT_IMPLEMENTATION
#include "llmkit.h"
#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <pthread.h>
#include <unistd.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <netdb.h>

/* ======================================================================
 * A growable string
 * ====================================================================== */
typedef struct sbuf { char *p; size_t n, cap; int oom; } sbuf;
static void sb_grow(sbuf *b, size_t add) {
    size_t cap;
    char *q;
    if (b->oom || b->n + add + 1 <= b->cap) return;
    cap = b->cap ? b->cap : 256;
    while (cap < b->n + add + 1) cap *= 2;
    if (!(q = (char *)realloc(b->p, cap))) { b->oom = 1; return; }
    b->p = q; b->cap = cap;
}
static void sb_put(sbuf *b, const char *s, size_t n) {
    sb_grow(b, n);
    if (b->oom) return;
    memcpy(b->p + b->n, s, n); b->n += n; b->p[b->n] = 0;
}
static void sb_puts(sbuf *b, const char *s) { sb_put(b, s, strlen(s)); }
static void TOOL_PRINTF(2, 3) sb_printf(sbuf *b, const char *fmt, ...) {
    va_list ap;
    char tmp[512];
    int k;
    va_start(ap, fmt); k = vsnprintf(tmp, sizeof tmp, fmt, ap); va_end(ap);
    if (k > 0) sb_put(b, tmp, (size_t)k < sizeof tmp ? (size_t)k : sizeof tmp - 1);
}
/* s[0..n) as a JSON string literal; bytes that are not valid UTF-8 become U+FFFD */
static void sb_json_str(sbuf *b, const char *s, size_t n) {
    size_t i = 0;
    sb_put(b, "\"", 1);
    while (i < n) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\') { char e[2] = { '\\', (char)c }; sb_put(b, e, 2); i++; }
        else if (c == '\n') { sb_puts(b, "\\n"); i++; }
        else if (c == '\r') { sb_puts(b, "\\r"); i++; }
        else if (c == '\t') { sb_puts(b, "\\t"); i++; }
        else if (c < 0x20) { sb_printf(b, "\\u%04x", c); i++; }
        else if (c < 0x80) { sb_put(b, s + i, 1); i++; }
        else {   /* a whole, valid UTF-8 sequence or U+FFFD */
            int len = c >= 0xF0 && c <= 0xF4 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 && c < 0xE0 ? 2 : 0, k, ok = len > 0 && i + (size_t)len <= n;
            for (k = 1; ok && k < len; k++) ok = ((unsigned char)s[i + k] & 0xC0) == 0x80;
            if (ok && len == 3) { unsigned c1 = (unsigned char)s[i + 1]; ok = !(c == 0xE0 && c1 < 0xA0) && !(c == 0xED && c1 >= 0xA0); }
            if (ok && len == 4) { unsigned c1 = (unsigned char)s[i + 1]; ok = !(c == 0xF0 && c1 < 0x90) && !(c == 0xF4 && c1 >= 0x90); }
            if (ok) { sb_put(b, s + i, (size_t)len); i += (size_t)len; }
            else { sb_puts(b, "\xEF\xBF\xBD"); i++; }
        }
    }
    sb_put(b, "\"", 1);
}

/* ======================================================================
 * JSON: a parser into a tree (objects keep their keys in order), with a
 * depth limit; every byte of the input is checked (RFC 8259).
 * ====================================================================== */
typedef enum { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ } jtype;
typedef struct jval {
    jtype t;
    double num;                 /* J_NUM, J_BOOL (0/1) */
    char *str; size_t len;      /* J_STR (NUL-terminated, may hold NULs); J_OBJ: key of a member */
    struct jval *kids;          /* J_ARR, J_OBJ: the first element / member */
    struct jval *next;          /* the next sibling */
    char *key; size_t klen;     /* a member's key */
    int n;                      /* elements / members */
} jval;
typedef struct jparser { const char *s; size_t n, i; int depth; const char *err; size_t err_at; } jparser;
#define J_MAX_DEPTH 64
static void jfree(jval *v) {
    while (v) {
        jval *nx = v->next;
        jfree(v->kids); free(v->str); free(v->key); free(v);
        v = nx;
    }
}
static int jfail(jparser *p, const char *msg) { if (!p->err) { p->err = msg; p->err_at = p->i; } return 0; }
static void jws(jparser *p) { while (p->i < p->n && (p->s[p->i] == ' ' || p->s[p->i] == '\t' || p->s[p->i] == '\n' || p->s[p->i] == '\r')) p->i++; }
static int jhex4(jparser *p, unsigned *u) {
    int k;
    *u = 0;
    if (p->i + 4 > p->n) return jfail(p, "truncated \\u escape");
    for (k = 0; k < 4; k++) {
        char c = p->s[p->i++];
        *u <<= 4;
        if (c >= '0' && c <= '9') *u |= (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f') *u |= (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F') *u |= (unsigned)(c - 'A' + 10);
        else return jfail(p, "bad \\u escape");
    }
    return 1;
}
static void sb_utf8(sbuf *b, unsigned u) {
    char e[4];
    if (u < 0x80) { e[0] = (char)u; sb_put(b, e, 1); }
    else if (u < 0x800) { e[0] = (char)(0xC0 | (u >> 6)); e[1] = (char)(0x80 | (u & 63)); sb_put(b, e, 2); }
    else if (u < 0x10000) { e[0] = (char)(0xE0 | (u >> 12)); e[1] = (char)(0x80 | ((u >> 6) & 63)); e[2] = (char)(0x80 | (u & 63)); sb_put(b, e, 3); }
    else { e[0] = (char)(0xF0 | (u >> 18)); e[1] = (char)(0x80 | ((u >> 12) & 63)); e[2] = (char)(0x80 | ((u >> 6) & 63)); e[3] = (char)(0x80 | (u & 63)); sb_put(b, e, 4); }
}
/* a string at p->i (after its opening quote) into out */
static int jstring(jparser *p, char **out, size_t *olen) {
    sbuf b;
    memset(&b, 0, sizeof b);
    sb_grow(&b, 16);
    if (!b.p) return jfail(p, "out of memory");
    b.p[0] = 0;   /* an empty string is "" too */
    for (;;) {
        unsigned char c;
        if (p->i >= p->n) { free(b.p); return jfail(p, "unterminated string"); }
        c = (unsigned char)p->s[p->i++];
        if (c == '"') break;
        if (c < 0x20) { free(b.p); return jfail(p, "control character in a string"); }
        if (c == '\\') {
            char e;
            if (p->i >= p->n) { free(b.p); return jfail(p, "unterminated string"); }
            e = p->s[p->i++];
            switch (e) {
            case '"': sb_put(&b, "\"", 1); break;
            case '\\': sb_put(&b, "\\", 1); break;
            case '/': sb_put(&b, "/", 1); break;
            case 'b': sb_put(&b, "\b", 1); break;
            case 'f': sb_put(&b, "\f", 1); break;
            case 'n': sb_put(&b, "\n", 1); break;
            case 'r': sb_put(&b, "\r", 1); break;
            case 't': sb_put(&b, "\t", 1); break;
            case 'u': {
                unsigned u, lo;
                if (!jhex4(p, &u)) { free(b.p); return 0; }
                if (u >= 0xD800 && u < 0xDC00) {   /* a surrogate pair, or U+FFFD */
                    if (p->i + 6 <= p->n && p->s[p->i] == '\\' && p->s[p->i + 1] == 'u') {
                        size_t save = p->i;
                        p->i += 2;
                        if (!jhex4(p, &lo)) { free(b.p); return 0; }
                        if (lo >= 0xDC00 && lo < 0xE000) u = 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00);
                        else { u = 0xFFFD; p->i = save; }
                    } else u = 0xFFFD;
                } else if (u >= 0xDC00 && u < 0xE000) u = 0xFFFD;
                sb_utf8(&b, u);
                break;
            }
            default: free(b.p); return jfail(p, "bad escape in a string");
            }
        } else sb_put(&b, (const char *)&p->s[p->i - 1], 1);
    }
    if (b.oom) { free(b.p); return jfail(p, "out of memory"); }
    *out = b.p; *olen = b.n;
    return 1;
}
static jval *jnew(jparser *p, jtype t) {
    jval *v = (jval *)calloc(1, sizeof *v);
    if (!v) { jfail(p, "out of memory"); return NULL; }
    v->t = t;
    return v;
}
static jval *jvalue(jparser *p);
static jval *jcompound(jparser *p, int obj) {
    jval *v = jnew(p, obj ? J_OBJ : J_ARR), **tail;
    if (!v) return NULL;
    if (++p->depth > J_MAX_DEPTH) { jfail(p, "nested too deeply"); free(v); return NULL; }
    tail = &v->kids;
    p->i++;
    jws(p);
    if (p->i < p->n && p->s[p->i] == (obj ? '}' : ']')) { p->i++; p->depth--; return v; }
    for (;;) {
        char *key = NULL;
        size_t klen = 0;
        jval *e;
        jws(p);
        if (obj) {
            if (p->i >= p->n || p->s[p->i] != '"') { jfail(p, "expected a member name"); jfree(v); return NULL; }
            p->i++;
            if (!jstring(p, &key, &klen)) { jfree(v); return NULL; }
            jws(p);
            if (p->i >= p->n || p->s[p->i] != ':') { free(key); jfail(p, "expected ':'"); jfree(v); return NULL; }
            p->i++;
        }
        if (!(e = jvalue(p))) { free(key); jfree(v); return NULL; }
        e->key = key; e->klen = klen;
        *tail = e; tail = &e->next; v->n++;
        jws(p);
        if (p->i < p->n && p->s[p->i] == ',') { p->i++; continue; }
        if (p->i < p->n && p->s[p->i] == (obj ? '}' : ']')) { p->i++; break; }
        jfail(p, obj ? "expected ',' or '}'" : "expected ',' or ']'");
        jfree(v);
        return NULL;
    }
    p->depth--;
    return v;
}
static jval *jvalue(jparser *p) {
    jval *v;
    jws(p);
    if (p->i >= p->n) { jfail(p, "unexpected end of input"); return NULL; }
    switch (p->s[p->i]) {
    case '{': return jcompound(p, 1);
    case '[': return jcompound(p, 0);
    case '"':
        if (!(v = jnew(p, J_STR))) return NULL;
        p->i++;
        if (!jstring(p, &v->str, &v->len)) { free(v); return NULL; }
        return v;
    case 't': case 'f': case 'n': {
        static const char *const lit[3] = { "true", "false", "null" };
        int k;
        for (k = 0; k < 3; k++) {
            size_t L = strlen(lit[k]);
            if (p->n - p->i >= L && !memcmp(p->s + p->i, lit[k], L)) {
                if (!(v = jnew(p, k == 2 ? J_NULL : J_BOOL))) return NULL;
                v->num = k == 0;
                p->i += L;
                return v;
            }
        }
        jfail(p, "bad literal");
        return NULL;
    }
    default: {   /* a number: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
        size_t st = p->i;
        char tmp[64];
        if (p->i < p->n && p->s[p->i] == '-') p->i++;
        if (p->i < p->n && p->s[p->i] == '0') p->i++;
        else if (p->i < p->n && p->s[p->i] >= '1' && p->s[p->i] <= '9') while (p->i < p->n && isdigit((unsigned char)p->s[p->i])) p->i++;
        else { jfail(p, "unexpected character"); return NULL; }
        if (p->i < p->n && p->s[p->i] == '.') {
            p->i++;
            if (p->i >= p->n || !isdigit((unsigned char)p->s[p->i])) { jfail(p, "bad number"); return NULL; }
            while (p->i < p->n && isdigit((unsigned char)p->s[p->i])) p->i++;
        }
        if (p->i < p->n && (p->s[p->i] == 'e' || p->s[p->i] == 'E')) {
            p->i++;
            if (p->i < p->n && (p->s[p->i] == '+' || p->s[p->i] == '-')) p->i++;
            if (p->i >= p->n || !isdigit((unsigned char)p->s[p->i])) { jfail(p, "bad number"); return NULL; }
            while (p->i < p->n && isdigit((unsigned char)p->s[p->i])) p->i++;
        }
        if (p->i - st >= sizeof tmp) { jfail(p, "number too long"); return NULL; }
        if (!(v = jnew(p, J_NUM))) return NULL;
        memcpy(tmp, p->s + st, p->i - st); tmp[p->i - st] = 0;
        v->num = strtod(tmp, NULL);
        return v;
    }
    }
}
/* The document s[0..n), or NULL with *err (and *at, the byte offset) set. */
static jval *json_parse(const char *s, size_t n, const char **err, size_t *at) {
    jparser p;
    jval *v;
    memset(&p, 0, sizeof p);
    p.s = s; p.n = n;
    v = jvalue(&p);
    if (v) { jws(&p); if (p.i != p.n) { jfail(&p, "trailing characters after the value"); jfree(v); v = NULL; } }
    if (!v) { *err = p.err ? p.err : "invalid JSON"; *at = p.err_at; }
    return v;
}
static const jval *jget(const jval *o, const char *key) {
    const jval *e;
    size_t L = strlen(key);
    if (!o || o->t != J_OBJ) return NULL;
    for (e = o->kids; e; e = e->next) if (e->klen == L && !memcmp(e->key, key, L)) return e;   /* the first one */
    return NULL;
}

/* ======================================================================
 * HTTP: one request per connection (Connection: close)
 * ====================================================================== */
#define HTTP_MAX_HEAD 16384
typedef struct http_req {
    char method[16], path[256];
    long long content_length;     /* -1: none */
    int chunked;                  /* Transfer-Encoding: chunked (refused)  */
    char auth[256];               /* Authorization value                   */
    int expect_continue;
} http_req;
static int ci_eq(const char *a, size_t an, const char *b) {
    size_t i, bn = strlen(b);
    if (an != bn) return 0;
    for (i = 0; i < an; i++) if (tolower((unsigned char)a[i]) != tolower((unsigned char)b[i])) return 0;
    return 1;
}
/* Parse the request line and headers in h[0..n) (up to and including the
 * blank line). 0 on success, else an HTTP status (400, 431, 501, 505). */
static int http_parse_head(const char *h, size_t n, http_req *r) {
    size_t i = 0, j, k;
    memset(r, 0, sizeof *r);
    r->content_length = -1;
    /* request line: METHOD SP PATH SP HTTP/1.x CRLF */
    for (j = i; j < n && h[j] != ' ' && h[j] != '\r' && h[j] != '\n'; j++) {}
    if (j == i || j >= n || h[j] != ' ' || j - i >= sizeof r->method) return 400;
    memcpy(r->method, h + i, j - i); r->method[j - i] = 0;
    for (k = 0; r->method[k]; k++) if (!isupper((unsigned char)r->method[k])) return 400;
    i = j + 1;
    for (j = i; j < n && h[j] != ' ' && h[j] != '\r' && h[j] != '\n'; j++) {}
    if (j == i || j >= n || h[j] != ' ') return 400;
    if (j - i >= sizeof r->path) return 414;
    memcpy(r->path, h + i, j - i); r->path[j - i] = 0;
    if (r->path[0] != '/') return 400;
    for (k = 0; r->path[k]; k++) if ((unsigned char)r->path[k] < 0x21 || (unsigned char)r->path[k] > 0x7e) return 400;
    { char *q = strchr(r->path, '?'); if (q) *q = 0; }   /* no query parameters are used */
    i = j + 1;
    if (n - i < 8 || memcmp(h + i, "HTTP/", 5) || !isdigit((unsigned char)h[i + 5]) || h[i + 6] != '.' || !isdigit((unsigned char)h[i + 7])) return 400;
    if (h[i + 5] != '1' || (h[i + 7] != '0' && h[i + 7] != '1')) return 505;
    i += 8;
    if (i < n && h[i] == '\r') i++;
    if (i >= n || h[i] != '\n') return 400;
    i++;
    for (;;) {   /* headers: NAME ":" OWS VALUE OWS CRLF, until an empty line */
        size_t ns, ne, vs, ve;
        if (i >= n) return 400;
        if (h[i] == '\r' && i + 1 < n && h[i + 1] == '\n') return 0;
        if (h[i] == '\n') return 0;
        ns = i;
        while (i < n && h[i] != ':' && h[i] != '\r' && h[i] != '\n') {
            unsigned char c = (unsigned char)h[i];
            if (c <= 0x20 || c >= 0x7f) return 400;
            i++;
        }
        if (i >= n || h[i] != ':' || i == ns) return 400;
        ne = i++;
        while (i < n && (h[i] == ' ' || h[i] == '\t')) i++;
        vs = i;
        while (i < n && h[i] != '\r' && h[i] != '\n') {
            if ((unsigned char)h[i] < 0x20 && h[i] != '\t') return 400;
            i++;
        }
        ve = i;
        while (ve > vs && (h[ve - 1] == ' ' || h[ve - 1] == '\t')) ve--;
        if (i < n && h[i] == '\r') i++;
        if (i >= n || h[i] != '\n') return 400;
        i++;
        if (ci_eq(h + ns, ne - ns, "content-length")) {
            long long v = 0;
            size_t q;
            if (ve == vs || r->content_length >= 0) return 400;   /* empty, or given twice */
            for (q = vs; q < ve; q++) {
                if (!isdigit((unsigned char)h[q]) || v > (1LL << 40)) return 400;
                v = v * 10 + (h[q] - '0');
            }
            r->content_length = v;
        } else if (ci_eq(h + ns, ne - ns, "transfer-encoding")) {
            r->chunked = 1;
        } else if (ci_eq(h + ns, ne - ns, "authorization")) {
            size_t L = ve - vs < sizeof r->auth - 1 ? ve - vs : sizeof r->auth - 1;
            memcpy(r->auth, h + vs, L); r->auth[L] = 0;
        } else if (ci_eq(h + ns, ne - ns, "expect")) {
            r->expect_continue = ci_eq(h + vs, ve - vs, "100-continue");
        }
    }
}
static const char *http_reason(int code) {
    switch (code) {
    case 200: return "OK"; case 400: return "Bad Request"; case 401: return "Unauthorized"; case 404: return "Not Found";
    case 405: return "Method Not Allowed"; case 408: return "Request Timeout"; case 411: return "Length Required";
    case 413: return "Payload Too Large"; case 414: return "URI Too Long"; case 431: return "Request Header Fields Too Large";
    case 500: return "Internal Server Error"; case 501: return "Not Implemented"; case 503: return "Service Unavailable";
    case 505: return "HTTP Version Not Supported"; default: return "Error";
    }
}
/* The JSON error body OpenAI clients read */
static void error_body(sbuf *b, int code, const char *msg) {
    const char *type = code == 401 ? "authentication_error" : code == 404 ? "not_found_error" : code == 503 ? "unavailable_error"
                     : code >= 500 ? "server_error" : "invalid_request_error";
    sb_printf(b, "{\"error\":{\"code\":%d,\"message\":", code);
    sb_json_str(b, msg, strlen(msg));
    sb_printf(b, ",\"type\":\"%s\"}}", type);
}

/* ======================================================================
 * Requests: what a completion asks for (parsed and checked in the
 * connection's thread), and its state while the engine runs it.
 * ====================================================================== */
#define MAX_STOP 4
typedef struct req {
    /* asked for */
    int chat, stream;
    lk_token *prompt; int n_prompt;
    lk_sampler_params sp;
    int max_tokens;                /* -1: until the context ends          */
    int ignore_eos;                /* end-of-generation tokens do not stop it */
    int cache_prompt;              /* reuse a cached prefix (default 1)   */
    char *stop[MAX_STOP]; int n_stop;
    /* engine state (engine thread, under g_mu where shared) */
    int seq, n_fed, n_gen, n_cached;
    lk_token *gen; int gen_cap;    /* the sampled tokens                  */
    lk_sampler *smp;
    lk_token last;
    sbuf out;                      /* the reply so far                    */
    size_t safe;                   /* bytes of out that may be sent       */
    int done, released, cancelled; /* finished; the engine let go; the client went */
    int admitted;                  /* the engine took it from the queue   */
    const char *finish;            /* "stop" / "length"                   */
    char err[256];                 /* an engine error (500)               */
    double t_arrive, t_first, t_last, itl_sum;
    pthread_cond_t cv;
    struct req *next;
} req;

/* ---- the server's state ---- */
static lk_model *g_m;
static lk_context *g_c;
static const lk_vocab *g_v;
static const char *g_tmpl;         /* chat family: --chat-template, the model's, or chatml */
static const char *g_api_key;
static char g_name[256];
static int g_np = 4, g_slot_ctx, g_budget = 512, g_queue_max = 64, g_n_default = -1;
static long long g_max_body = 1 << 20;
static lk_token g_eot[32]; static int g_n_eot;
static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;      /* the queue, the slots, every req's shared fields */
static pthread_mutex_t g_tok_mu = PTHREAD_MUTEX_INITIALIZER;  /* the tokenizer and chat renderer */
static pthread_cond_t g_engine_cv = PTHREAD_COND_INITIALIZER;
static req *g_qhead, *g_qtail, **g_active;
static int g_n_queued, g_n_active, g_n_conn, g_free_rows;   /* g_free_rows: the engine's copy, for /health */
static long long g_served;
static volatile sig_atomic_t g_quit;


/* A sampling field: a number in [lo, hi]; absent leaves *out. 0 or 400 */
static int field_num(const jval *o, const char *key, double lo, double hi, double *out, char *msg, size_t cap) {
    const jval *v = jget(o, key);
    if (!v || v->t == J_NULL) return 0;
    if (v->t != J_NUM) { snprintf(msg, cap, "'%s' must be a number", key); return 400; }
    if (!(v->num >= lo && v->num <= hi)) { snprintf(msg, cap, "'%s' must be in [%g, %g]", key, lo, hi); return 400; }
    *out = v->num;
    return 0;
}
static int field_int(const jval *o, const char *key, double lo, double hi, int *out, char *msg, size_t cap) {
    double d = *out;
    int st = field_num(o, key, lo, hi, &d, msg, cap);
    if (st) return st;
    if (d != floor(d)) { snprintf(msg, cap, "'%s' must be an integer", key); return 400; }
    *out = (int)d;
    return 0;
}
static void req_free(req *r) {
    int i;
    if (!r) return;
    free(r->prompt); free(r->gen);
    for (i = 0; i < r->n_stop; i++) free(r->stop[i]);
    lk_sampler_free(r->smp);
    free(r->out.p);
    pthread_cond_destroy(&r->cv);
    free(r);
}
/* The fields every completion shares (sampling, limits, stop, stream).
 * 0, or an HTTP status with msg. */
static int parse_common(const jval *o, req *r, char *msg, size_t cap) {
    double d;
    int st, k, n = 1;
    const jval *v;
    uint64_t seed_def = 0;
    r->sp = lk_sampler_default_params();
    r->sp.temperature = 0.8f; r->sp.top_k = 40; r->sp.top_p = 0.95f; r->sp.min_p = 0.05f;
    r->max_tokens = g_n_default;
#define NUMF(key, lo, hi, dst) do { d = (dst); if ((st = field_num(o, key, lo, hi, &d, msg, cap))) return st; (dst) = (float)d; } while (0)
    NUMF("temperature", 0, 100, r->sp.temperature);
    NUMF("top_p", 0, 1, r->sp.top_p);
    NUMF("min_p", 0, 1, r->sp.min_p);
    NUMF("presence_penalty", -2, 2, r->sp.presence_penalty);
    NUMF("frequency_penalty", -2, 2, r->sp.frequency_penalty);
    NUMF("repeat_penalty", 0, 100, r->sp.repeat_penalty);
#undef NUMF
    if ((st = field_int(o, "top_k", 0, 1e9, &r->sp.top_k, msg, cap))) return st;
    if ((st = field_int(o, "max_tokens", 0, 2147483647.0, &r->max_tokens, msg, cap))) return st;
    if (jget(o, "max_completion_tokens") && (st = field_int(o, "max_completion_tokens", 0, 2147483647.0, &r->max_tokens, msg, cap))) return st;
    if (jget(o, "n_predict") && (st = field_int(o, "n_predict", -1, 2147483647.0, &r->max_tokens, msg, cap))) return st;
    {   /* fields a client may send that this server cannot honour: said, not ignored */
        const jval *lp = jget(o, "logprobs"), *tl = jget(o, "tools"), *rf = jget(o, "response_format");
        const jval *rt = rf ? jget(rf, "type") : NULL;
        if (lp && !(lp->t == J_NULL || (lp->t == J_BOOL && lp->num == 0) || (lp->t == J_NUM && lp->num == 0))) {
            snprintf(msg, cap, "'logprobs' is not supported by this server"); return 400;
        }
        if (tl && !(tl->t == J_NULL || (tl->t == J_ARR && tl->n == 0))) { snprintf(msg, cap, "'tools' (function calling) is not supported by this server"); return 400; }
        if (rf && rf->t != J_NULL && !(rt && rt->t == J_STR && !strcmp(rt->str, "text"))) {
            snprintf(msg, cap, "'response_format' other than {\"type\": \"text\"} is not supported by this server"); return 400;
        }
    }
    if ((st = field_int(o, "n", 1, 1e9, &n, msg, cap))) return st;
    if (n != 1) { snprintf(msg, cap, "'n' must be 1 (one choice per request)"); return 400; }
    d = -1;
    if ((st = field_num(o, "seed", -1, 18446744073709551615.0, &d, msg, cap))) return st;
    if (d < 0) {   /* no seed: a fresh one per request */
        static unsigned long long ctr;
        pthread_mutex_lock(&g_tok_mu);
        seed_def = (uint64_t)time(NULL) * 0x9E3779B97F4A7C15ull + (++ctr) * 0xBF58476D1CE4E5B9ull;
        pthread_mutex_unlock(&g_tok_mu);
        r->sp.seed = seed_def;
    } else r->sp.seed = (uint64_t)d;
    r->cache_prompt = 1;
    if ((v = jget(o, "cache_prompt")) && v->t != J_NULL) {
        if (v->t != J_BOOL) { snprintf(msg, cap, "'cache_prompt' must be a boolean"); return 400; }
        r->cache_prompt = v->num != 0;
    }
    if ((v = jget(o, "ignore_eos")) && v->t != J_NULL) {
        if (v->t != J_BOOL) { snprintf(msg, cap, "'ignore_eos' must be a boolean"); return 400; }
        r->ignore_eos = v->num != 0;
    }
    if ((v = jget(o, "stream")) && v->t != J_NULL) {
        if (v->t != J_BOOL) { snprintf(msg, cap, "'stream' must be a boolean"); return 400; }
        r->stream = v->num != 0;
    }
    if ((v = jget(o, "stop")) && v->t != J_NULL) {
        const jval *e;
        if (v->t == J_STR) e = v;
        else if (v->t == J_ARR) e = v->kids;
        else { snprintf(msg, cap, "'stop' must be a string or an array of strings"); return 400; }
        if (v->t == J_ARR && v->n > MAX_STOP) { snprintf(msg, cap, "'stop' holds at most %d strings", MAX_STOP); return 400; }
        for (k = 0; e && k < MAX_STOP; k++, e = v->t == J_ARR ? e->next : NULL) {
            if (e->t != J_STR) { snprintf(msg, cap, "'stop' must be a string or an array of strings"); return 400; }
            if (e->len == 0) continue;
            if (e->len > 256) { snprintf(msg, cap, "a stop string is longer than 256 bytes"); return 400; }
            if (!(r->stop[r->n_stop] = (char *)malloc(e->len + 1))) { snprintf(msg, cap, "out of memory"); return 500; }
            memcpy(r->stop[r->n_stop], e->str, e->len + 1);
            r->n_stop++;
        }
    }
    return 0;
}
/* tokens of text (BOS as the vocabulary adds it, special tokens parsed, as llama-server) */
static int tokenize_text(const char *text, size_t len, int add_special, lk_token **out, int *n_out, char *msg, size_t cap) {
    int n, cap_t;
    lk_token *t;
    if (len > 64u << 20) { snprintf(msg, cap, "the text is too long"); return 413; }
    cap_t = (int)len + 8;
    if (!(t = (lk_token *)malloc(sizeof(lk_token) * (size_t)cap_t))) { snprintf(msg, cap, "out of memory"); return 500; }
    pthread_mutex_lock(&g_tok_mu);
    n = lk_tokenize(g_v, text, (int)len, t, cap_t, add_special, 1);
    pthread_mutex_unlock(&g_tok_mu);
    if (n < 0) { free(t); snprintf(msg, cap, "the text cannot be tokenized: %.200s", lk_last_error()); return 400; }
    *out = t; *n_out = n;
    return 0;
}
/* prompt (a string, an array of one string, or an array of token ids) */
static int parse_prompt(const jval *o, req *r, char *msg, size_t cap) {
    const jval *p = jget(o, "prompt"), *e;
    int k, V = lk_model_n_vocab(g_m);
    if (!p) { snprintf(msg, cap, "'prompt' is required"); return 400; }
    if (p->t == J_ARR && p->n == 1 && p->kids->t == J_STR) p = p->kids;
    if (p->t == J_STR) return tokenize_text(p->str, p->len, 1, &r->prompt, &r->n_prompt, msg, cap);
    if (p->t != J_ARR) { snprintf(msg, cap, "'prompt' must be a string or an array of token ids"); return 400; }
    if (!(r->prompt = (lk_token *)malloc(sizeof(lk_token) * (size_t)(p->n + 1)))) { snprintf(msg, cap, "out of memory"); return 500; }
    for (k = 0, e = p->kids; e; e = e->next, k++) {
        if (e->t != J_NUM || e->num != floor(e->num) || e->num < 0 || e->num >= V) {
            snprintf(msg, cap, "'prompt' element %d is not a token id in [0, %d)", k, V);
            return 400;
        }
        r->prompt[k] = (lk_token)e->num;
    }
    r->n_prompt = k;
    return 0;
}
/* messages -> the template's text (*out, malloc'd) */
static int render_messages(const jval *o, char **out, int *out_len, char *msg, size_t cap) {
    const jval *ms = jget(o, "messages"), *e;
    lk_chat_message *cm;
    char *buf = NULL;
    int k, len;
    if (!ms || ms->t != J_ARR || ms->n == 0) { snprintf(msg, cap, "'messages' must be a non-empty array"); return 400; }
    if (ms->n > 4096) { snprintf(msg, cap, "'messages' holds too many messages"); return 400; }
    if (!(cm = (lk_chat_message *)calloc((size_t)ms->n, sizeof *cm))) { snprintf(msg, cap, "out of memory"); return 500; }
    for (k = 0, e = ms->kids; e; e = e->next, k++) {
        const jval *role = jget(e, "role"), *content = jget(e, "content");
        if (e->t != J_OBJ || !role || role->t != J_STR) { free(cm); snprintf(msg, cap, "message %d needs a string 'role'", k); return 400; }
        if (!content || content->t != J_STR) {
            if (content && content->t == J_ARR) { free(cm); snprintf(msg, cap, "message %d: only text content (a string) is supported", k); return 400; }
            if (content && content->t != J_NULL) { free(cm); snprintf(msg, cap, "message %d: 'content' must be a string", k); return 400; }
            cm[k].content = "";
        } else cm[k].content = content->str;
        if (memchr(role->str, 0, role->len) || (content && content->t == J_STR && memchr(content->str, 0, content->len))) {
            free(cm); snprintf(msg, cap, "message %d holds a NUL character", k); return 400;
        }
        cm[k].role = role->str;
    }
    pthread_mutex_lock(&g_tok_mu);
    len = lk_chat_apply_template(g_tmpl, cm, ms->n, 1, NULL, 0);
    if (len >= 0 && (buf = (char *)malloc((size_t)len + 1))) len = lk_chat_apply_template(g_tmpl, cm, ms->n, 1, buf, len + 1);
    pthread_mutex_unlock(&g_tok_mu);
    free(cm);
    if (len < 0 || !buf) { free(buf); snprintf(msg, cap, "the conversation cannot be rendered: %.200s", lk_last_error()); return len < 0 ? 400 : 500; }
    *out = buf; *out_len = len;
    return 0;
}
/* messages -> the template's text -> tokens */
static int parse_messages(const jval *o, req *r, char *msg, size_t cap) {
    char *buf = NULL;
    int len = 0, st = render_messages(o, &buf, &len, msg, cap);
    if (st) return st;
    st = tokenize_text(buf, (size_t)len, 1, &r->prompt, &r->n_prompt, msg, cap);
    free(buf);
    return st;
}
/* A completion request from its JSON body: 0 and *out, or a status and msg */
static int req_from_json(const jval *o, int chat, req **out, char *msg, size_t cap) {
    req *r;
    int st;
    *out = NULL;
    if (!o || o->t != J_OBJ) { snprintf(msg, cap, "the body must be a JSON object"); return 400; }
    if (!(r = (req *)calloc(1, sizeof *r))) { snprintf(msg, cap, "out of memory"); return 500; }
    pthread_cond_init(&r->cv, NULL);
    r->chat = chat; r->seq = -1;
    if ((st = parse_common(o, r, msg, cap)) || (st = chat ? parse_messages(o, r, msg, cap) : parse_prompt(o, r, msg, cap))) {
        if (st == 500 && !msg[0]) snprintf(msg, cap, "out of memory");
        req_free(r);
        return st;
    }
    if (r->n_prompt == 0) { req_free(r); snprintf(msg, cap, "the prompt is empty"); return 400; }
    if (r->n_prompt >= g_slot_ctx) {
        snprintf(msg, cap, "the prompt has %d tokens; a request holds at most %d (the context -c %d over -np %d sequences) with its reply",
                 r->n_prompt, g_slot_ctx - 1, g_slot_ctx * g_np, g_np);
        req_free(r);
        return 400;
    }
    r->sp.n_vocab = lk_model_n_vocab(g_m);
    if (lk_sampler_new(&r->sp, &r->smp)) { snprintf(msg, cap, "sampler: %.200s", lk_last_error()); req_free(r); return 400; }
    *out = r;
    return 0;
}

/* ======================================================================
 * The engine: one thread owns the context. Each step admits waiting
 * requests into free sequences, plans the batch (lk_sched_plan: decodes
 * first, prompt chunks after), runs lk_decode_batch without the lock, then
 * samples each sequence that produced logits.
 * ====================================================================== */
static double now_s(void) { return tool_now(); }
/* bytes at the end of s[0..n) that begin a UTF-8 sequence not yet complete */
static size_t utf8_partial(const char *s, size_t n) {
    size_t k;
    for (k = 1; k <= 3 && k <= n; k++) {
        unsigned char c = (unsigned char)s[n - k];
        if ((c & 0xC0) == 0x80) continue;   /* a continuation byte: look further back */
        if (c >= 0xC0) { size_t need = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : 2; return need > k ? k : 0; }
        return 0;
    }
    return 0;
}
/* ---- the prompt cache (as llama-server's cache_prompt) ----
 * A finished request's sequence stays in the context, with its tokens, as
 * long as there is room: up to np of them beside the np running ones. A new
 * request forks the cached sequence that shares the longest prefix with its
 * prompt (lk_seq_fork: the pages are shared, not copied), truncates the fork
 * to that prefix and prefills only the rest. The least recently used one
 * goes first when the context needs the sequence or the rows. The KV of a
 * prefix is the same whoever computed it (lk_decode_batch equals decoding
 * alone), so a cached prefix changes no result. */
typedef struct cached { int seq; lk_token *tok; int n; double used; } cached;
static cached *g_cache;
static int g_n_cache;
static int g_rs_back = INT_MAX;    /* recurrent layers: how far back a sequence can be taken (n_rs_seq) */
static long long g_reused;         /* prompt tokens taken from the cache, all requests */
static void cache_drop(int k) {
    lk_seq_remove(g_c, g_cache[k].seq);
    free(g_cache[k].tok);
    g_cache[k] = g_cache[--g_n_cache];
}
/* drop the least recently used entry other than `keep`; 0 if none */
static int cache_evict(int keep) {
    int k, lru = -1;
    for (k = 0; k < g_n_cache; k++) if (k != keep && (lru < 0 || g_cache[k].used < g_cache[lru].used)) lru = k;
    if (lru < 0) return 0;
    cache_drop(lru);
    return 1;
}
static int lcp(const lk_token *a, int na, const lk_token *b, int nb) {
    int i = 0;
    while (i < na && i < nb && a[i] == b[i]) i++;
    return i;
}
/* a finished request's sequence into the cache (its tokens: the prompt,
 * then the sampled tokens that were decoded) */
static void cache_put(req *r) {
    const int n = lk_seq_n_past(g_c, r->seq);
    lk_token *tok = n > 0 ? (lk_token *)malloc(sizeof(lk_token) * (size_t)n) : NULL;
    int k, i;
    if (!tok || n < r->n_prompt || n - r->n_prompt > r->n_gen) { free(tok); lk_seq_remove(g_c, r->seq); return; }
    memcpy(tok, r->prompt, sizeof(lk_token) * (size_t)r->n_prompt);
    for (i = r->n_prompt; i < n; i++) tok[i] = r->gen[i - r->n_prompt];
    for (k = 0; k < g_n_cache; k++)   /* an entry this one extends says nothing new */
        if (g_cache[k].n <= n && lcp(g_cache[k].tok, g_cache[k].n, tok, n) == g_cache[k].n) cache_drop(k--);
    if (g_n_cache == g_np) cache_evict(-1);
    g_cache[g_n_cache].seq = r->seq; g_cache[g_n_cache].tok = tok; g_cache[g_n_cache].n = n; g_cache[g_n_cache].used = now_s();
    g_n_cache++;
}
/* a sequence for r: a fork of the cached sequence with the longest usable
 * common prefix (at least one prompt token is left to decode; recurrent
 * layers: at most g_rs_back tokens before the cached end), else a new one.
 * A truncation refused all the same (a state taken back before) computes
 * the prompt anew. */
static lk_status seq_for(req *r) {
    int k, best = -1, keep = 0;
    lk_status st;
    r->seq = -1;
    for (k = 0; r->cache_prompt && k < g_n_cache; k++) {
        int l = lcp(g_cache[k].tok, g_cache[k].n, r->prompt, r->n_prompt);
        if (l > r->n_prompt - 1) l = r->n_prompt - 1;
        if (g_cache[k].n - l > g_rs_back) l = 0;   /* its state there is gone */
        if (l > keep) { keep = l; best = k; }
    }
    if (best >= 0 && keep > 0) {
        while ((st = lk_seq_fork(g_c, g_cache[best].seq, &r->seq)) == LK_ERR_RANGE && cache_evict(best)) {}
        if (!st && !(st = lk_seq_truncate(g_c, r->seq, keep))) {
            g_cache[best].used = now_s();
            r->n_fed = r->n_cached = keep;
            g_reused += keep;
            return LK_OK;
        }
        if (r->seq >= 0) { lk_seq_remove(g_c, r->seq); r->seq = -1; }
    }
    while ((st = lk_seq_add(g_c, &r->seq)) == LK_ERR_RANGE && cache_evict(-1)) {}
    return st;
}
/* done: cache or free the sequence, wake the connection (under g_mu) */
static void finish(req *r, const char *why) {
    int i;
    r->finish = why;
    r->done = 1;
    r->safe = r->out.n;
    if (r->seq >= 0) {
        if (r->cache_prompt && !r->err[0] && !r->cancelled) cache_put(r);
        else lk_seq_remove(g_c, r->seq);
        r->seq = -1;
    }
    for (i = 0; i < g_n_active; i++)
        if (g_active[i] == r) { g_active[i] = g_active[--g_n_active]; break; }
    r->released = 1;
    g_served++;
    g_free_rows = lk_seq_free_rows(g_c);
    if (r->n_gen > 0)
        fprintf(stderr, "server: request done: prompt %d tokens (%d cached), reply %d tokens (%s), time to first token %.1f ms, inter-token %.1f ms\n",
                r->n_prompt, r->n_cached, r->n_gen, why, (r->t_first - r->t_arrive) * 1e3, r->n_gen > 1 ? r->itl_sum / (r->n_gen - 1) * 1e3 : 0.0);
    pthread_cond_broadcast(&r->cv);
}
/* the text of token t (special: control tokens printed), under the tokenizer's lock */
static int token_piece(lk_token t, char *buf, int cap, int special) {
    int len;
    pthread_mutex_lock(&g_tok_mu);
    len = lk_token_to_piece(g_v, t, buf, cap, special);
    pthread_mutex_unlock(&g_tok_mu);
    return len;
}
static int is_end(lk_token t) {
    int i;
    if (lk_vocab_is_eog(g_v, t)) return 1;
    for (i = 0; i < g_n_eot; i++) if (g_eot[i] == t) return 1;
    return 0;
}
/* a sampled token: text, stop strings, limits (under g_mu) */
static void on_token(req *r, lk_token t) {
    char piece[512];
    int len, i;
    size_t hold = 0, from;
    double tn = now_s();
    if (r->max_tokens >= 0 && r->n_gen >= r->max_tokens) { finish(r, "length"); return; }   /* max_tokens 0 */
    if (r->n_gen == r->gen_cap) {
        int nc = r->gen_cap ? 2 * r->gen_cap : 64;
        lk_token *g = (lk_token *)realloc(r->gen, sizeof(lk_token) * (size_t)nc);
        if (!g) { snprintf(r->err, sizeof r->err, "out of memory"); finish(r, "stop"); return; }
        r->gen = g; r->gen_cap = nc;
    }
    r->gen[r->n_gen] = t;
    r->n_gen++;
    if (r->n_gen == 1) r->t_first = tn; else r->itl_sum += tn - r->t_last;
    r->t_last = tn;
    lk_sampler_accept(r->smp, t);
    r->last = t;
    if (!r->ignore_eos && is_end(t)) { finish(r, "stop"); return; }
    len = token_piece(t, piece, (int)sizeof piece, 0);
    from = r->out.n;
    if (len > 0) sb_put(&r->out, piece, (size_t)len);
    for (i = 0; i < r->n_stop; i++) {   /* a stop string ends the reply before it */
        size_t L = strlen(r->stop[i]), s0 = from >= L ? from - L + 1 : 0, k;
        for (k = s0; k + L <= r->out.n; k++)
            if (!memcmp(r->out.p + k, r->stop[i], L)) { r->out.n = k; r->out.p[k] = 0; finish(r, "stop"); return; }
    }
    if (r->out.oom) { snprintf(r->err, sizeof r->err, "out of memory"); finish(r, "stop"); return; }
    if ((r->max_tokens >= 0 && r->n_gen >= r->max_tokens) || r->n_prompt + r->n_gen >= g_slot_ctx) { finish(r, "length"); return; }
    for (i = 0; i < r->n_stop; i++) {   /* hold back a tail that may begin a stop string */
        size_t L = strlen(r->stop[i]), k;
        for (k = L - 1; k > hold; k--)
            if (k <= r->out.n && !memcmp(r->out.p + r->out.n - k, r->stop[i], k)) { hold = k; break; }
    }
    if (utf8_partial(r->out.p, r->out.n) > hold) hold = utf8_partial(r->out.p, r->out.n);
    r->safe = r->out.n - hold;
    pthread_cond_broadcast(&r->cv);
}
static void *engine_main(void *arg) {
    const int V = lk_model_n_vocab(g_m), cap = g_budget + g_np;
    lk_token *bt = (lk_token *)malloc(sizeof(lk_token) * (size_t)cap);
    int *bs = (int *)malloc(sizeof(int) * (size_t)cap), *left = (int *)malloc(sizeof(int) * (size_t)g_np);
    int *take = (int *)malloc(sizeof(int) * (size_t)g_np), *row = (int *)malloc(sizeof(int) * (size_t)g_np);
    int8_t *bl = (int8_t *)malloc((size_t)cap);
    req **run = (req **)malloc(sizeof(req *) * (size_t)g_np);
    int rot = 0;
    (void)arg;
    if (!bt || !bs || !left || !take || !row || !bl || !run) { fprintf(stderr, "server: out of memory\n"); exit(1); }
    pthread_mutex_lock(&g_mu);
    while (!g_quit) {
        int i, n = 0, nr;
        lk_batch b;
        lk_status st;
        /* let go of cancelled requests, then admit waiting ones */
        for (i = 0; i < g_n_active; i++) if (g_active[i]->cancelled) { finish(g_active[i], "stop"); i = -1; }
        while (g_qhead && g_n_active < g_np) {
            req *r = g_qhead;
            g_qhead = r->next; if (!g_qhead) g_qtail = NULL;
            g_n_queued--;
            r->admitted = 1;
            if (r->cancelled) { r->released = 1; pthread_cond_broadcast(&r->cv); continue; }
            if (seq_for(r)) { snprintf(r->err, sizeof r->err, "%.200s", lk_last_error()); finish(r, "stop"); continue; }
            for (i = 0; i < r->n_prompt; i++) lk_sampler_accept(r->smp, r->prompt[i]);
            g_active[g_n_active++] = r;
        }
        if (!g_n_active) { pthread_cond_wait(&g_engine_cv, &g_mu); continue; }
        /* the plan: decodes first, then prompt chunks; the order rotates so
         * that no decode waits twice when they alone exceed the budget */
        nr = g_n_active;
        for (i = 0; i < nr; i++) run[i] = g_active[(i + rot) % nr];
        rot++;
        for (i = 0; i < nr; i++) left[i] = run[i]->n_fed < run[i]->n_prompt ? run[i]->n_prompt - run[i]->n_fed : 0;
        lk_sched_plan(left, nr, g_budget, 0, take);
        for (i = n = 0; i < nr; i++) n += take[i];
        while (lk_seq_free_rows(g_c) < n + 16 * nr && cache_evict(-1)) {}   /* room for the step (and copy-on-write pages) */
        n = 0;
        for (i = 0; i < nr; i++) {
            req *r = run[i];
            int k;
            row[i] = -1;
            if (!take[i]) continue;
            if (left[i] == 0) { bt[n] = r->last; bs[n] = r->seq; bl[n] = 1; row[i] = n++; continue; }
            for (k = 0; k < take[i]; k++) { bt[n] = r->prompt[r->n_fed + k]; bs[n] = r->seq; bl[n] = 0; n++; }
            if (r->n_fed + take[i] == r->n_prompt) { bl[n - 1] = 1; row[i] = n - 1; }
        }
        memset(&b, 0, sizeof b);
        b.n = n; b.token = bt; b.seq = bs; b.logits = bl;
        pthread_mutex_unlock(&g_mu);
        st = lk_decode_batch(g_c, &b);   /* the connections' threads keep running meanwhile */
        pthread_mutex_lock(&g_mu);
        g_free_rows = lk_seq_free_rows(g_c);
        for (i = 0; i < nr; i++) {
            req *r = run[i];
            lk_token t;
            if (!take[i]) continue;
            if (st) { snprintf(r->err, sizeof r->err, "decode failed: %.200s", lk_last_error()); finish(r, "stop"); continue; }
            if (left[i] > 0) r->n_fed += take[i];
            if (row[i] < 0 || r->done) continue;
            if (lk_sampler_sample_ex(r->smp, lk_logits(g_c, row[i]), V, &t)) { snprintf(r->err, sizeof r->err, "sampling failed: %.200s", lk_last_error()); finish(r, "stop"); continue; }
            on_token(r, t);
        }
    }
    pthread_mutex_unlock(&g_mu);
    free(bt); free(bs); free(left); free(take); free(row); free(bl); free(run);
    return NULL;
}

/* ======================================================================
 * Connections
 * ====================================================================== */
static int send_all(int fd, const char *p, size_t n) {
    while (n) {
        ssize_t k = send(fd, p, n, MSG_NOSIGNAL);
        if (k <= 0) { if (k < 0 && errno == EINTR) continue; return -1; }
        p += k; n -= (size_t)k;
    }
    return 0;
}
static int client_gone(int fd) {
    char c;
    ssize_t k = recv(fd, &c, 1, MSG_PEEK | MSG_DONTWAIT);
    return k == 0 || (k < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR);
}
static int respond(int fd, int code, const char *ctype, const char *body, size_t n) {
    char head[256];
    int k = snprintf(head, sizeof head, "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\nConnection: close\r\n\r\n",
                     code, http_reason(code), ctype, n);
    return send_all(fd, head, (size_t)k) || send_all(fd, body, n);
}
static void respond_error(int fd, int code, const char *msg) {
    sbuf b;
    memset(&b, 0, sizeof b);
    error_body(&b, code, msg);
    if (!b.oom) respond(fd, code, "application/json", b.p, b.n);
    free(b.p);
}
static void respond_json(int fd, sbuf *b) {
    if (b->oom) respond_error(fd, 500, "out of memory");
    else respond(fd, 200, "application/json", b->p, b->n);
}
/* what every completion object starts with: id, object, created, model */
static void reply_head(sbuf *b, const req *r, long long id, long long created, int chunk) {
    static const char *const obj[2][2] = { { "text_completion", "text_completion" }, { "chat.completion", "chat.completion.chunk" } };
    sb_printf(b, "{\"id\":\"%s-%lld\",\"object\":\"%s\",\"created\":%lld,\"model\":", r->chat ? "chatcmpl" : "cmpl", id, obj[r->chat][chunk], created);
    sb_json_str(b, g_name, strlen(g_name));
}
static void reply_usage(sbuf *b, const req *r) {
    sb_printf(b, ",\"usage\":{\"prompt_tokens\":%d,\"completion_tokens\":%d,\"total_tokens\":%d}", r->n_prompt, r->n_gen, r->n_prompt + r->n_gen);
}
/* the chunk of a stream: text (or none) and the finish reason (or null) */
static void stream_chunk(sbuf *b, const req *r, long long id, long long created, const char *text, size_t n, const char *finish, int first) {
    b->n = 0; if (b->p) b->p[0] = 0;
    sb_puts(b, "data: ");
    reply_head(b, r, id, created, 1);
    if (r->chat) {
        sb_puts(b, ",\"choices\":[{\"index\":0,\"delta\":{");
        if (first) sb_puts(b, "\"role\":\"assistant\"");
        if (text) { if (first) sb_puts(b, ","); sb_puts(b, "\"content\":"); sb_json_str(b, text, n); }
        sb_puts(b, "},\"logprobs\":null,\"finish_reason\":");
    } else {
        sb_puts(b, ",\"choices\":[{\"index\":0,\"text\":");
        sb_json_str(b, text ? text : "", text ? n : 0);
        sb_puts(b, ",\"logprobs\":null,\"finish_reason\":");
    }
    if (finish) sb_printf(b, "\"%s\"", finish); else sb_puts(b, "null");
    sb_puts(b, "}]");
    if (finish) reply_usage(b, r);
    sb_puts(b, "}\n\n");
}
/* Queue a request, then stream or collect its reply. Frees r. */
static void run_completion(int fd, req *r) {
    static long long next_id;
    long long id, created = (long long)time(NULL);
    size_t sent = 0;
    sbuf b;
    int gone = 0, first = 1;
    memset(&b, 0, sizeof b);
    pthread_mutex_lock(&g_mu);
    if (g_n_queued >= g_queue_max + (g_np - g_n_active)) {   /* the ones a free sequence takes at once do not wait */
        pthread_mutex_unlock(&g_mu);
        respond_error(fd, 503, "the server is busy: the queue is full, retry later");
        req_free(r);
        return;
    }
    id = ++next_id;
    r->t_arrive = now_s();
    if (g_qtail) g_qtail->next = r; else g_qhead = r;
    g_qtail = r; g_n_queued++;
    pthread_cond_signal(&g_engine_cv);
    if (r->stream) {
        static const char head[] = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\nConnection: close\r\n\r\n";
        pthread_mutex_unlock(&g_mu);
        gone = send_all(fd, head, sizeof head - 1) != 0;
        pthread_mutex_lock(&g_mu);
    }
    while (!gone) {   /* wake on new text, the end, or every 100 ms to see whether the client is still there */
        struct timespec ts;
        if (r->done && (!r->stream || sent >= r->safe)) break;
        if (r->stream && r->safe > sent) {
            size_t n = r->safe - sent;
            stream_chunk(&b, r, id, created, r->out.p + sent, n, NULL, first);
            sent += n; first = 0;
            pthread_mutex_unlock(&g_mu);
            gone = b.oom || send_all(fd, b.p, b.n) != 0;
            pthread_mutex_lock(&g_mu);
            continue;
        }
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += 100 * 1000 * 1000;
        if (ts.tv_nsec >= 1000000000L) { ts.tv_sec++; ts.tv_nsec -= 1000000000L; }
        pthread_cond_timedwait(&r->cv, &g_mu, &ts);
        if (!r->done) {
            pthread_mutex_unlock(&g_mu);
            gone = client_gone(fd);
            pthread_mutex_lock(&g_mu);
        }
    }
    if (gone && !r->admitted) {   /* still in the queue: take it out */
        req **pp = &g_qhead, *prev = NULL;
        while (*pp && *pp != r) { prev = *pp; pp = &(*pp)->next; }
        if (*pp) { *pp = r->next; if (g_qtail == r) g_qtail = prev; g_n_queued--; r->released = 1; }
    }
    if (gone) {   /* the client went away: the engine frees the sequence at its next step */
        r->cancelled = 1;
        pthread_cond_signal(&g_engine_cv);
        while (!r->released) pthread_cond_wait(&r->cv, &g_mu);
        pthread_mutex_unlock(&g_mu);
        fprintf(stderr, "server: a client went away; its sequence is free\n");
        free(b.p); req_free(r);
        return;
    }
    pthread_mutex_unlock(&g_mu);
    if (r->err[0] && (!r->stream || first)) {
        if (r->stream) {   /* the 200 is out already: the error as an event */
            sbuf e; memset(&e, 0, sizeof e);
            sb_puts(&e, "data: "); error_body(&e, 500, r->err); sb_puts(&e, "\n\ndata: [DONE]\n\n");
            if (!e.oom) send_all(fd, e.p, e.n);
            free(e.p);
        } else respond_error(fd, 500, r->err);
    } else if (r->stream) {
        stream_chunk(&b, r, id, created, NULL, 0, r->finish ? r->finish : "stop", first);
        if (!b.oom && !send_all(fd, b.p, b.n)) send_all(fd, "data: [DONE]\n\n", 14);
    } else {
        b.n = 0;
        reply_head(&b, r, id, created, 0);
        sb_puts(&b, r->chat ? ",\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":" : ",\"choices\":[{\"index\":0,\"text\":");
        sb_json_str(&b, r->out.p ? r->out.p : "", r->out.n);
        sb_printf(&b, "%s,\"logprobs\":null,\"finish_reason\":\"%s\"}]", r->chat ? "}" : "", r->finish ? r->finish : "stop");
        reply_usage(&b, r);
        sb_puts(&b, "}");
        respond_json(fd, &b);
    }
    free(b.p);
    req_free(r);
}
static void handle_tokenize(int fd, const jval *o) {
    const jval *c = jget(o, "content"), *as = jget(o, "add_special"), *wp = jget(o, "with_pieces");
    lk_token *t = NULL;
    char msg[256] = "";
    int n = 0, i, st;
    sbuf b;
    if (!c || c->t != J_STR) { respond_error(fd, 400, "'content' must be a string"); return; }
    if ((as && as->t != J_BOOL && as->t != J_NULL) || (wp && wp->t != J_BOOL && wp->t != J_NULL)) { respond_error(fd, 400, "'add_special' and 'with_pieces' must be booleans"); return; }
    if ((st = tokenize_text(c->str, c->len, as && as->t == J_BOOL && as->num != 0, &t, &n, msg, sizeof msg))) { respond_error(fd, st, msg); return; }
    memset(&b, 0, sizeof b);
    sb_puts(&b, "{\"tokens\":[");
    for (i = 0; i < n; i++) {
        if (i) sb_puts(&b, ",");
        if (wp && wp->t == J_BOOL && wp->num != 0) {
            char piece[512];
            const int len = token_piece(t[i], piece, (int)sizeof piece, 1);
            sb_printf(&b, "{\"id\":%d,\"piece\":", (int)t[i]);
            sb_json_str(&b, piece, len > 0 ? (size_t)len : 0);
            sb_puts(&b, "}");
        } else sb_printf(&b, "%d", (int)t[i]);
    }
    sb_puts(&b, "]}");
    respond_json(fd, &b);
    free(b.p); free(t);
}
static void handle_detokenize(int fd, const jval *o) {
    const jval *ts = jget(o, "tokens"), *e;
    const int V = lk_model_n_vocab(g_m);
    lk_token *t;
    char *text;
    int n = 0, len;
    sbuf b;
    if (!ts || ts->t != J_ARR) { respond_error(fd, 400, "'tokens' must be an array of token ids"); return; }
    if (!(t = (lk_token *)malloc(sizeof(lk_token) * (size_t)(ts->n + 1)))) { respond_error(fd, 500, "out of memory"); return; }
    for (e = ts->kids; e; e = e->next, n++) {
        if (e->t != J_NUM || e->num != floor(e->num) || e->num < 0 || e->num >= V) {
            char msg[128];
            snprintf(msg, sizeof msg, "'tokens' element %d is not a token id in [0, %d)", n, V);
            respond_error(fd, 400, msg); free(t); return;
        }
        t[n] = (lk_token)e->num;
    }
    pthread_mutex_lock(&g_tok_mu);
    len = lk_detokenize(g_v, t, n, NULL, 0, 0, 0);
    text = (char *)malloc(len < 0 ? (size_t)-len + 1 : 1);
    if (text && len < 0) len = lk_detokenize(g_v, t, n, text, -len + 1, 0, 0);
    pthread_mutex_unlock(&g_tok_mu);
    free(t);
    if (!text || len < 0) { free(text); respond_error(fd, 500, "detokenize failed"); return; }
    memset(&b, 0, sizeof b);
    sb_puts(&b, "{\"content\":");
    sb_json_str(&b, text, (size_t)len);
    sb_puts(&b, "}");
    respond_json(fd, &b);
    free(b.p); free(text);
}
/* read the head (up to the blank line) and the body; 0 or an HTTP status */
static int read_request(int fd, http_req *h, char **body, size_t *blen) {
    char *buf = (char *)malloc(HTTP_MAX_HEAD + 1), *end;
    size_t n = 0;
    int st;
    *body = NULL; *blen = 0;
    if (!buf) return 500;
    for (;;) {
        ssize_t k;
        if (n == HTTP_MAX_HEAD) { free(buf); return 431; }
        k = recv(fd, buf + n, HTTP_MAX_HEAD - n, 0);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) { free(buf); return n ? 400 : -1; }   /* -1: nothing came (the client closed or timed out) */
        n += (size_t)k; buf[n] = 0;
        if ((end = strstr(buf, "\r\n\r\n")) != NULL) { end += 4; break; }
        if ((end = strstr(buf, "\n\n")) != NULL) { end += 2; break; }
    }
    if ((st = http_parse_head(buf, (size_t)(end - buf), h))) { free(buf); return st; }
    if (h->chunked) { free(buf); return 411; }
    if (h->content_length > g_max_body) { free(buf); return 413; }
    if (h->content_length > 0) {
        size_t want = (size_t)h->content_length, have = n - (size_t)(end - buf);
        char *bd = (char *)malloc(want + 1);
        if (!bd) { free(buf); return 500; }
        if (have > want) have = want;
        memcpy(bd, end, have);
        if (h->expect_continue && have < want) send_all(fd, "HTTP/1.1 100 Continue\r\n\r\n", 25);
        while (have < want) {
            ssize_t k = recv(fd, bd + have, want - have, 0);
            if (k < 0 && errno == EINTR) continue;
            if (k <= 0) { free(bd); free(buf); return 400; }
            have += (size_t)k;
        }
        bd[want] = 0;
        *body = bd; *blen = want;
    }
    free(buf);
    return 0;
}
/* Is the request allowed? (--api-key: "Authorization: Bearer KEY") */
static int authorized(const http_req *h) {
    size_t i, L, diff = 0;
    if (!g_api_key) return 1;
    if (strncmp(h->auth, "Bearer ", 7)) return 0;
    L = strlen(g_api_key);
    if (strlen(h->auth + 7) != L) return 0;
    for (i = 0; i < L; i++) diff |= (size_t)(h->auth[7 + i] ^ g_api_key[i]);   /* the same time for every wrong key */
    return diff == 0;
}
static void handle(int fd) {
    http_req h;
    char *body = NULL, msg[512] = "";
    size_t blen = 0;
    int st = read_request(fd, &h, &body, &blen), get, post;
    if (st) {
        if (st > 0) {
            const char *why = st == 431 ? "the request headers are larger than 16 KiB" : st == 413 ? "the body is larger than --max-body"
                            : st == 411 ? "chunked bodies are not supported: send Content-Length" : st == 414 ? "the path is too long"
                            : st == 505 ? "HTTP/1.0 or HTTP/1.1 only" : "malformed HTTP request";
            respond_error(fd, st, why);
        }
        free(body);
        return;
    }
    get = !strcmp(h.method, "GET"); post = !strcmp(h.method, "POST");
    if (!strcmp(h.path, "/health") || !strcmp(h.path, "/v1/health")) {
        sbuf b; memset(&b, 0, sizeof b);
        pthread_mutex_lock(&g_mu);
        sb_printf(&b, "{\"status\":\"ok\",\"slots_idle\":%d,\"slots_processing\":%d,\"queued\":%d,\"served\":%lld,\"cached_prompts\":%d,"
                  "\"cached_tokens_reused\":%lld,\"kv_rows_free\":%d}", g_np - g_n_active, g_n_active, g_n_queued, g_served, g_n_cache, g_reused, g_free_rows);
        pthread_mutex_unlock(&g_mu);
        if (get) respond_json(fd, &b); else respond_error(fd, 405, "use GET");
        free(b.p); free(body);
        return;
    }
    if (!authorized(&h)) { respond_error(fd, 401, "invalid or missing API key (Authorization: Bearer KEY)"); free(body); return; }
    if (!strcmp(h.path, "/v1/models") || !strcmp(h.path, "/models")) {
        sbuf b; memset(&b, 0, sizeof b);
        sb_puts(&b, "{\"object\":\"list\",\"data\":[{\"id\":");
        sb_json_str(&b, g_name, strlen(g_name));
        sb_printf(&b, ",\"object\":\"model\",\"created\":%lld,\"owned_by\":\"llmkit\",\"meta\":{\"n_vocab\":%d,\"n_ctx_train\":%d,\"n_ctx_slot\":%d}}]}",
                  (long long)time(NULL), lk_model_n_vocab(g_m), lk_model_hparams(g_m)->n_ctx_train, g_slot_ctx);
        if (get) respond_json(fd, &b); else respond_error(fd, 405, "use GET");
        free(b.p); free(body);
        return;
    }
    {
        static const char *const posts[] = { "/v1/completions", "/completions", "/completion", "/v1/chat/completions", "/chat/completions",
                                             "/tokenize", "/detokenize", NULL };
        int k, kind = -1;
        const char *err;
        size_t at;
        jval *o;
        for (k = 0; posts[k]; k++) if (!strcmp(h.path, posts[k])) kind = k;
        if (kind < 0) { snprintf(msg, sizeof msg, "no endpoint %.200s", h.path); respond_error(fd, 404, msg); free(body); return; }
        if (!post) { respond_error(fd, 405, "use POST"); free(body); return; }
        if (!(o = json_parse(body ? body : "", blen, &err, &at))) {
            snprintf(msg, sizeof msg, "the body is not valid JSON: %s at byte %zu", err, at);
            respond_error(fd, 400, msg); free(body); return;
        }
        if (o->t != J_OBJ) respond_error(fd, 400, "the body must be a JSON object");
        else if (kind == 5) handle_tokenize(fd, o);
        else if (kind == 6) handle_detokenize(fd, o);
        else {
            req *r;
            if ((st = req_from_json(o, kind >= 3, &r, msg, sizeof msg))) respond_error(fd, st, msg);
            else run_completion(fd, r);
        }
        jfree(o);
    }
    free(body);
}
typedef struct conn { int fd; } conn;
static void *conn_main(void *arg) {
    conn *cn = (conn *)arg;
    handle(cn->fd);
    shutdown(cn->fd, SHUT_WR);
    close(cn->fd);
    free(cn);
    pthread_mutex_lock(&g_mu); g_n_conn--; pthread_mutex_unlock(&g_mu);
    return NULL;
}

#ifndef LK_SERVER_NO_MAIN
static void on_signal(int sig) { (void)sig; g_quit = 1; }
#define USAGE "server -m MODEL [--host ADDR] [--port N] [-np N] [-c CTX] [-t THREADS] [-b BUDGET] [--api-key KEY]\n" \
              "              [--chat-template NAME] [--queue N] [--max-body BYTES] [-n N] [--alias NAME] [OPTIONS]\n" \
              "  -m, --model MODEL               the GGUF file\n" \
              "      --host ADDR                 the address to bind (default 127.0.0.1)\n" \
              "      --port N                    the port (default 8080)\n" \
              "  -np, --parallel N               sequences decoded in parallel (default 4)\n" \
              "  -c, --ctx-size CTX              tokens of context in all, CTX / N per sequence (default 4096)\n" \
              "  -t, --threads N                 threads (default 0: all cores)\n" \
              "  -b, --batch-size BUDGET         tokens one step may feed (default 512)\n" \
              "      --api-key KEY               require \"Authorization: Bearer KEY\"\n" \
              "      --chat-template NAME        the chat family when the model has none we know (default chatml)\n" \
              "      --queue N                   waiting requests at most (default 64)\n" \
              "      --max-body BYTES            the largest request body (default 1 MiB)\n" \
              "  -n, --n-predict N               a request's max_tokens by default (-1: until its context ends)\n" \
              "      --alias NAME                the model's name in the API (default: the file name)"
#define SETS (TOOL_OPTS_MODEL | TOOL_OPTS_CONTEXT)
/* the context options the server sets itself (above, and kv-page 16) */
static const char *const own[] = { "ctx-size", "batch-size", "threads", "parallel", "kv-page", NULL };
int main(int argc, char **argv) {
    const char *model = NULL, *host = "127.0.0.1", *tmpl = NULL, *alias = NULL;
    int port = 8080, n_ctx = 4096, threads = 0, i, k, lfd, one = 1;
    lk_model_params mp = lk_model_default_params();
    lk_context_params cp = lk_context_default_params();   /* the table's options; the server's own set below */
    const lk_option *o;
    struct addrinfo hints, *ai = NULL;
    char ports[16];
    pthread_t eng;
    tool_name = "server";
#if defined(_OPENMP) && defined(__linux__)
    /* The connection threads wake once per token; unbound, the scheduler
     * moves the OpenMP threads around them and every parallel region waits
     * for the one that moved (SmolLM2, 1 client: 106 -> 117 tokens/s bound).
     * libgomp reads OMP_PROC_BIND when it loads, before main: so set it and
     * start again, once. An OMP_PROC_BIND of the user's own is kept. */
    if (!getenv("OMP_PROC_BIND") && !getenv("LK_SERVER_NO_BIND")) {
        setenv("OMP_PROC_BIND", "true", 1);
        setenv("LK_SERVER_NO_BIND", "1", 1);
        execv("/proc/self/exe", argv);   /* returns only on failure: go on unbound */
    }
#endif
    for (i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
#define NEEDV() do { if (!v) { fprintf(stderr, "server: %s needs a value\n" USAGE "\n", a); return 2; } i++; } while (0)
#define INTV(dst, lo, hi) do { char *e_; long x_; NEEDV(); errno = 0; x_ = strtol(v, &e_, 10); \
        if (errno || *e_ || e_ == v || x_ < (lo) || x_ > (hi)) { fprintf(stderr, "server: %s takes an integer in [%ld, %ld], not '%s'\n", a, (long)(lo), (long)(hi), v); return 2; } (dst) = (int)x_; } while (0)
        if (!strcmp(a, "-m") || !strcmp(a, "--model")) { NEEDV(); model = v; }
        else if (!strcmp(a, "--host")) { NEEDV(); host = v; }
        else if (!strcmp(a, "--port")) INTV(port, 0, 65535);
        else if (!strcmp(a, "-np") || !strcmp(a, "--parallel")) INTV(g_np, 1, 256);
        else if (!strcmp(a, "-c") || !strcmp(a, "--ctx-size")) INTV(n_ctx, 16, 1 << 22);
        else if (!strcmp(a, "-t") || !strcmp(a, "--threads")) INTV(threads, 0, 4096);
        else if (!strcmp(a, "-b") || !strcmp(a, "--batch-size")) INTV(g_budget, 1, 1 << 16);
        else if (!strcmp(a, "--queue")) INTV(g_queue_max, 0, 1 << 20);
        else if (!strcmp(a, "-n") || !strcmp(a, "--n-predict")) INTV(g_n_default, -1, 1 << 30);
        else if (!strcmp(a, "--max-body")) { long long x; INTV(x, 1024, 1 << 30); g_max_body = x; }
        else if (!strcmp(a, "--api-key")) { NEEDV(); g_api_key = v; }
        else if (!strcmp(a, "--chat-template")) { NEEDV(); tmpl = v; }
        else if (!strcmp(a, "--alias")) { NEEDV(); alias = v; }
        else if (!strcmp(a, "-h") || !strcmp(a, "--help")) return tool_help(0, USAGE, SETS, own);
        else if ((o = tool_find_option(SETS, a)) != NULL) {   /* --kv-type, --attn, --check-tensors, ... */
            for (k = 0; own[k] && strcmp(own[k], o->name); k++) {}
            if (own[k]) { fprintf(stderr, "server: %s: the server sets %s itself\n", a, o->name); return 2; }
            NEEDV();
            if (tool_set_option(&mp, &cp, NULL, a, v)) { fprintf(stderr, "server: %s\n", lk_last_error()); return 2; }
        }
        else return tool_bad_usage(USAGE, SETS, own, "unknown option %s", a);
    }
    if (!model) return tool_bad_usage(USAGE, SETS, own, "-m MODEL is required");
    if (lk_model_load_file(model, &mp, &g_m)) { fprintf(stderr, "server: %s: %s\n", model, lk_last_error()); return 1; }
    if (!(g_v = lk_model_vocab(g_m))) { fprintf(stderr, "server: %s has no tokenizer\n", model); return 1; }
    /* the chat family: --chat-template, the model's, else chatml (as llama-server) */
    if (tmpl) {
        if (!lk_chat_template_detect(tmpl)) { fprintf(stderr, "server: --chat-template %s: not a known template family\n", tmpl); return 2; }
        g_tmpl = tmpl;
    } else g_tmpl = lk_chat_model_template(g_m);
    if (!g_tmpl) {
        g_tmpl = "chatml";
        fprintf(stderr, "server: the model has no chat template we know; the chat endpoint uses chatml\n");
    }
    g_n_eot = lk_chat_eot_tokens(g_m, g_tmpl, g_eot, 32);
    if (g_n_eot < 0) g_n_eot = 0;
    if (g_n_eot > 32) g_n_eot = 32;
    /* the pool: np sequences of CTX / np tokens each, in whole pages */
    g_slot_ctx = n_ctx / g_np;
    if (g_slot_ctx < 8) { fprintf(stderr, "server: -c %d over -np %d leaves %d tokens per sequence\n", n_ctx, g_np, g_slot_ctx); return 2; }
    cp.n_seq_max = 2 * g_np; cp.kv_page = 16;   /* np running, np cached */
    cp.n_ctx = g_np * ((g_slot_ctx + 15) / 16 * 16);
    cp.n_batch = g_budget;
    cp.n_threads = threads;
    if (lk_context_new(g_m, &cp, &g_c)) { fprintf(stderr, "server: context: %s\n", lk_last_error()); return 1; }
    if (lk_model_hparams(g_m)->n_layer_rec > 0) g_rs_back = cp.n_rs_seq;
    if (alias) snprintf(g_name, sizeof g_name, "%s", alias);
    else { const char *s = strrchr(model, '/'); snprintf(g_name, sizeof g_name, "%s", s ? s + 1 : model); }
    g_free_rows = lk_seq_free_rows(g_c);
    g_active = (req **)calloc((size_t)g_np, sizeof *g_active);
    g_cache = (cached *)calloc((size_t)g_np, sizeof *g_cache);
    if (!g_active || !g_cache) { fprintf(stderr, "server: out of memory\n"); return 1; }
    /* listen */
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC; hints.ai_socktype = SOCK_STREAM; hints.ai_flags = AI_PASSIVE;
    snprintf(ports, sizeof ports, "%d", port);
    if (getaddrinfo(host, ports, &hints, &ai) || !ai) { fprintf(stderr, "server: cannot resolve --host %s\n", host); return 1; }
    lfd = socket(ai->ai_family, ai->ai_socktype, ai->ai_protocol);
    if (lfd < 0) { perror("server: socket"); return 1; }
    setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (bind(lfd, ai->ai_addr, ai->ai_addrlen) || listen(lfd, 128)) { fprintf(stderr, "server: cannot listen on %s:%d: %s\n", host, port, strerror(errno)); return 1; }
    freeaddrinfo(ai);
    {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_signal;   /* no SA_RESTART: accept() returns on SIGINT / SIGTERM */
        sigaction(SIGINT, &sa, NULL); sigaction(SIGTERM, &sa, NULL);
        signal(SIGPIPE, SIG_IGN);
    }
    if (pthread_create(&eng, NULL, engine_main, NULL)) { fprintf(stderr, "server: cannot start the engine thread\n"); return 1; }
    {
        struct sockaddr_storage sa;
        socklen_t sl = sizeof sa;
        char addr[64] = "?";
        getsockname(lfd, (struct sockaddr *)&sa, &sl);
        if (sa.ss_family == AF_INET) inet_ntop(AF_INET, &((struct sockaddr_in *)&sa)->sin_addr, addr, sizeof addr);
        else if (sa.ss_family == AF_INET6) inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&sa)->sin6_addr, addr, sizeof addr);
        fprintf(stderr, "server: %s (%s), %d sequences of %d tokens, batch budget %d, template %s\n", g_name, lk_arch_name(lk_model_hparams(g_m)->arch),
                g_np, g_slot_ctx, g_budget, g_tmpl);
        fprintf(stderr, "server: listening on http://%s:%d\n", addr, ntohs(sa.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&sa)->sin6_port : ((struct sockaddr_in *)&sa)->sin_port));
        fflush(stderr);
    }
    while (!g_quit) {
        int fd = accept(lfd, NULL, NULL);
        struct timeval tv;
        pthread_t th;
        pthread_attr_t at;
        conn *cn;
        if (fd < 0) { if (errno == EINTR) continue; if (errno == EMFILE || errno == ENFILE) usleep(10000); continue; }
        tv.tv_sec = 30; tv.tv_usec = 0;   /* a client that stalls mid-request is dropped after 30 s */
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        pthread_mutex_lock(&g_mu);
        if (g_n_conn >= 256) {
            pthread_mutex_unlock(&g_mu);
            respond_error(fd, 503, "too many connections");
            close(fd);
            continue;
        }
        g_n_conn++;
        pthread_mutex_unlock(&g_mu);
        if (!(cn = (conn *)malloc(sizeof *cn))) { close(fd); pthread_mutex_lock(&g_mu); g_n_conn--; pthread_mutex_unlock(&g_mu); continue; }
        cn->fd = fd;
        pthread_attr_init(&at);
        pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
        pthread_attr_setstacksize(&at, 1 << 20);
        if (pthread_create(&th, &at, conn_main, cn)) { close(fd); free(cn); pthread_mutex_lock(&g_mu); g_n_conn--; pthread_mutex_unlock(&g_mu); }
        pthread_attr_destroy(&at);
    }
    fprintf(stderr, "server: stopping\n");
    pthread_mutex_lock(&g_mu);
    pthread_cond_signal(&g_engine_cv);
    pthread_mutex_unlock(&g_mu);
    pthread_join(eng, NULL);
    close(lfd);
    lk_context_free(g_c);
    lk_model_free(g_m);
    free(g_active);
    return 0;
}
#endif
