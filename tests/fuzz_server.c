/* libFuzzer target for examples/server.c's request parsing: the HTTP head
 * (http_parse_head), the JSON body (json_parse), the completion fields
 * (parse_common), the chat messages rendered with chatml (render_messages),
 * and the JSON writer on every string found.
 *   clang -O1 -g -fsanitize=fuzzer,address,undefined -I. tests/fuzz_server.c -o fuzz_server -lm -lpthread
 * The input is a request as it arrives: head, blank line, body. `make test`
 * runs it for FUZZ_TIME seconds from seeds that make writes. */
#define LK_SERVER_NO_MAIN
#include "examples/server.c"

static void walk(const jval *v, sbuf *b, int depth) {
    const jval *e;
    if (!v || depth > 70) return;
    if (v->t == J_STR) sb_json_str(b, v->str, v->len);
    if (v->key) sb_json_str(b, v->key, v->klen);
    for (e = v->kids; e; e = e->next) walk(e, b, depth + 1);
}
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *s = (const char *)data, *err;
    size_t i, head = size, at;
    http_req h;
    jval *o;
    for (i = 0; i + 3 < size; i++) if (!memcmp(s + i, "\r\n\r\n", 4)) { head = i + 4; break; }
    (void)http_parse_head(s, head, &h);
    o = json_parse(s + (head < size ? head : size), size - (head < size ? head : size), &err, &at);
    if (o) {
        char msg[512] = "", *text = NULL;
        int len = 0;
        req *r = (req *)calloc(1, sizeof *r);
        sbuf b, e;
        memset(&b, 0, sizeof b); memset(&e, 0, sizeof e);
        walk(o, &b, 0);
        error_body(&e, 400, b.p ? b.p : "");
        free(e.p);
        if (r) {
            (void)parse_common(o, r, msg, sizeof msg);
            for (i = 0; i < (size_t)r->n_stop; i++) free(r->stop[i]);
            free(r);
        }
        g_tmpl = "chatml";
        if (!render_messages(o, &text, &len, msg, sizeof msg)) free(text);
        free(b.p);
        jfree(o);
    }
    return 0;
}
