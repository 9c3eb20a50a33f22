/* gguf-inspect: print a GGUF file's header, metadata and tensor table.
 *   build: cc -O2 -I. tools/gguf-inspect.c -lm -o gguf-inspect
 *   usage: gguf-inspect [--all] FILE      (--all prints whole arrays)
 * Exit status 0 for a valid file; otherwise one line on stderr saying what
 * is wrong and exit status 1. */
#include "lk_tool.h"
#define LLMKIT_IMPLEMENTATION
#include "llmkit.h"

#define USAGE "gguf-inspect [--all] FILE"

static void print_str(lk_str s, uint64_t max) {
    uint64_t i;
    putchar('"');
    for (i = 0; i < s.len && i < max; i++) {
        unsigned char c = (unsigned char)s.ptr[i];
        if (c == '"' || c == '\\') printf("\\%c", c);
        else if (c == '\n') printf("\\n");
        else if (c < 0x20 || c == 0x7f) printf("\\x%02x", c);
        else putchar(c);
    }
    if (s.len > max) printf("...");
    putchar('"');
}

static void print_value(const lk_gguf_value *v, int all) {
    uint64_t i, shown;
    switch (v->type) {
    case LK_GGUF_UINT8: case LK_GGUF_UINT16: case LK_GGUF_UINT32: case LK_GGUF_UINT64:
        printf("%llu", (unsigned long long)v->v.u); break;
    case LK_GGUF_INT8: case LK_GGUF_INT16: case LK_GGUF_INT32: case LK_GGUF_INT64:
        printf("%lld", (long long)v->v.i); break;
    case LK_GGUF_FLOAT32: printf("%.9g", v->v.f); break;
    case LK_GGUF_FLOAT64: printf("%.17g", v->v.f); break;
    case LK_GGUF_BOOL: printf("%s", v->v.u ? "true" : "false"); break;
    case LK_GGUF_STRING: print_str(v->v.s, all ? UINT64_MAX : 200); break;
    case LK_GGUF_ARRAY:
        shown = all ? v->n : (v->n > 8 ? 8 : v->n);
        printf("[");
        for (i = 0; i < shown; i++) {
            if (i) printf(", ");
            if (v->arr_type == LK_GGUF_STRING) print_str(v->v.strs[i], all ? UINT64_MAX : 40);
            else if (v->arr_type == LK_GGUF_ARRAY) print_value(&v->v.elems[i], all);
            else {
                double f; int64_t s; uint64_t u;
                if (v->arr_type == LK_GGUF_FLOAT32 || v->arr_type == LK_GGUF_FLOAT64) { lk_gguf_value_f64_at(v, i, &f); printf("%.9g", f); }
                else if (v->arr_type == LK_GGUF_BOOL) { lk_gguf_value_u64_at(v, i, &u); printf("%s", u ? "true" : "false"); }
                else if (lk_gguf_value_i64_at(v, i, &s) == LK_OK) printf("%lld", (long long)s);
                else { lk_gguf_value_u64_at(v, i, &u); printf("%llu", (unsigned long long)u); }
            }
        }
        if (shown < v->n) printf(", ... (%llu more)", (unsigned long long)(v->n - shown));
        printf("]");
        break;
    default: printf("?"); break;
    }
}

int main(int argc, char **argv) {
    lk_gguf *g;
    uint64_t i;
    int all = 0, k;
    const char *path = NULL;
    tool_name = "gguf-inspect";
    for (k = 1; k < argc; k++) {
        if (strcmp(argv[k], "--all") == 0) all = 1;
        else if (strcmp(argv[k], "-h") == 0 || strcmp(argv[k], "--help") == 0) {
            printf("usage: %s\n", USAGE); return 0;
        } else path = argv[k];
    }
    if (!path) return tool_usage(USAGE);
    if (lk_gguf_read_file(path, NULL, &g) != LK_OK) return tool_lk_fail(1);
    printf("file:      %s\n", path);
    printf("version:   %u\n", (unsigned)g->version);
    printf("alignment: %llu\n", (unsigned long long)g->alignment);
    printf("data at:   %llu (file size %llu)\n", (unsigned long long)g->data_offset, (unsigned long long)g->len);
    printf("\n%llu key-value pairs:\n", (unsigned long long)g->n_kv);
    for (i = 0; i < g->n_kv; i++) {
        const lk_gguf_kv *kv = &g->kv[i];
        char type[32];
        if (kv->value.type == LK_GGUF_ARRAY)
            snprintf(type, sizeof type, "arr[%s,%llu]", lk_gguf_type_name(kv->value.arr_type), (unsigned long long)kv->value.n);
        else snprintf(type, sizeof type, "%s", lk_gguf_type_name(kv->value.type));
        printf("  %4llu: %-16s %.*s = ", (unsigned long long)i, type, (int)kv->key.len, kv->key.ptr);
        print_value(&kv->value, all);
        printf("\n");
    }
    printf("\n%llu tensors:\n", (unsigned long long)g->n_tensors);
    printf("  %4s  %-36s %-8s %-24s %12s %12s\n", "#", "name", "type", "shape (ne)", "offset", "bytes");
    for (i = 0; i < g->n_tensors; i++) {
        const lk_gguf_tensor *t = &g->tensors[i];
        char shape[96];
        int d, o = 0;
        for (d = 0; d < t->n_dims; d++)
            o += snprintf(shape + o, sizeof shape - (size_t)o, "%s%lld", d ? " x " : "", (long long)t->ne[d]);
        printf("  %4llu  %-36.*s %-8s %-24s %12llu %12llu\n", (unsigned long long)i, (int)t->name.len, t->name.ptr,
               lk_type_name(t->type), shape, (unsigned long long)t->offset, (unsigned long long)t->nbytes);
    }
    lk_gguf_free(g);
    return 0;
}
