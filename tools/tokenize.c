/* tokenize: print the token ids of a text, separated by spaces.
 *   build: cc -O2 -I. tools/tokenize.c -lm -o tokenize
 *   usage: tokenize -m MODEL [--no-bos] [--special] [--pieces] (-p TEXT | -f FILE)
 * BOS/EOS are added as the vocabulary says unless --no-bos. --special turns
 * the text of control tokens (e.g. "<s>") into those tokens (llama_tokenize's
 * parse_special); by default such text is tokenized as plain text.
 * --pieces prints one "id -> 'piece'" line per token instead.
 * --vectors runs llama.cpp's tokenizer test files MODEL.inp and MODEL.out (as in
 * its tree: models/ggml-vocab-NAME.gguf.inp/.out; texts separated by a line
 * "__ggml_vocab_test__", one line of ids per text, no BOS/EOS, no special
 * parsing), prints the cases that differ and "N/M cases match", and exits 1
 * unless all match. */
#include "lk_tool.h"
#define LLMKIT_IMPLEMENTATION
#include "llmkit.h"

#define USAGE "tokenize -m MODEL [--no-bos] [--special] [--pieces] (-p TEXT | -f FILE | --vectors)"

/* the ids of text[0..len) into a new array (*out, *n); 0 or a status */
static int tok_all(const lk_vocab *v, const char *text, size_t len, int bos, int special, lk_token **out, int *n) {
    int k = lk_tokenize(v, text, (int)len, NULL, 0, bos, special);
    if (k == LK_TOKENIZE_ERROR) return 1;
    if (k < 0) k = -k;
    *out = (lk_token *)malloc(sizeof(lk_token) * (size_t)(k + 1));
    if (!*out) return lk_set_error(LK_ERR_NOMEM, "out of memory");
    *n = lk_tokenize(v, text, (int)len, *out, k + 1, bos, special);
    return *n < 0;
}

/* --vectors: MODEL.inp against MODEL.out (see the top of the file) */
static int run_vectors(const lk_vocab *v, const char *model) {
    static const char sep[] = "\n__ggml_vocab_test__\n";
    const size_t sl = sizeof sep - 1;
    char *path, *inp = NULL, *outp = NULL;
    size_t ilen = 0, olen = 0, ip = 0, op = 0, ml = strlen(model);
    int ncase = 0, npass = 0;
    path = (char *)malloc(ml + 5);
    if (!path) return tool_fail(1, "out of memory");
    memcpy(path, model, ml); memcpy(path + ml, ".inp", 5);
    if (tool_read_file(path, &inp, &ilen)) return tool_lk_fail(1);
    memcpy(path + ml, ".out", 5);
    if (tool_read_file(path, &outp, &olen)) return tool_lk_fail(1);
    while (ip < ilen) {
        const char *hit = NULL;
        size_t end = ilen, next = ilen, le = op, k;
        lk_token *got = NULL;
        int ngot = 0, nexp = 0, ok = 1, i;
        for (k = ip; k + sl <= ilen; k++)
            if (inp[k] == '\n' && memcmp(inp + k, sep, sl) == 0) { hit = inp + k; break; }
        if (hit) { end = (size_t)(hit - inp); next = end + sl; }
        while (le < olen && outp[le] != '\n') le++;
        if (op >= olen) return tool_fail(1, "%s: fewer lines than the %d texts of the .inp", path, ncase + 1);
        if (tok_all(v, inp + ip, end - ip, 0, 0, &got, &ngot)) return tool_lk_fail(1);
        for (k = op; k < le;) {   /* compare with the expected ids as they are read */
            long e;
            char *q;
            while (k < le && (outp[k] == ' ' || outp[k] == '\r')) k++;
            if (k >= le) break;
            e = strtol(outp + k, &q, 10);
            if (nexp >= ngot || got[nexp] != (lk_token)e) ok = 0;
            nexp++;
            k = (size_t)(q - outp);
            while (k < le && outp[k] != ' ') k++;
        }
        if (nexp != ngot) ok = 0;
        if (ok) npass++;
        else {
            printf("case %d: %.*s\n  got     ", ncase, (int)(end - ip > 60 ? 60 : end - ip), inp + ip);
            for (i = 0; i < ngot; i++) printf(" %d", (int)got[i]);
            printf("\n  expected %.*s\n", (int)(le - op), outp + op);
        }
        free(got);
        ncase++;
        ip = next;
        op = le < olen ? le + 1 : le;
    }
    if (op < olen) return tool_fail(1, "%s: more lines than the %d texts of the .inp", path, ncase);
    printf("%d/%d cases match\n", npass, ncase);
    free(inp); free(outp); free(path);
    return npass == ncase && ncase > 0 ? 0 : 1;
}

int main(int argc, char **argv) {
    const char *model = NULL, *text = NULL, *file = NULL;
    int bos = 1, special = 0, pieces = 0, vectors = 0, i, n;
    size_t len = 0;
    char *buf = NULL;
    lk_token *toks;
    lk_gguf *g;
    lk_vocab *v;
    tool_name = "tokenize";
    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--no-bos")) bos = 0;
        else if (!strcmp(argv[i], "--special")) special = 1;
        else if (!strcmp(argv[i], "--pieces")) pieces = 1;
        else if (!strcmp(argv[i], "--vectors")) vectors = 1;
        else if (!strcmp(argv[i], "-m") && i + 1 < argc) model = argv[++i];
        else if (!strcmp(argv[i], "-p") && i + 1 < argc) text = argv[++i];
        else if (!strcmp(argv[i], "-f") && i + 1 < argc) file = argv[++i];
        else return tool_usage(USAGE);
    }
    if (!model || (!!text + !!file + vectors != 1)) return tool_usage(USAGE);
    if (vectors) {
        if (lk_gguf_read_file(model, NULL, &g) || lk_vocab_load(g, NULL, &v)) return tool_lk_fail(1);
        i = run_vectors(v, model);
        lk_vocab_free(v); lk_gguf_free(g);
        return i;
    }
    if (file) {
        if (tool_read_file(file, &buf, &len)) return tool_lk_fail(1);
        text = buf;
    } else len = strlen(text);
    if (len > 0x7fffffff) return tool_fail(1, "the text is too large (%zu bytes)", len);
    /* only the tokenizer is needed: read the metadata, not the weights */
    if (lk_gguf_read_file(model, NULL, &g) || lk_vocab_load(g, NULL, &v)) return tool_lk_fail(1);
    if (tok_all(v, text, len, bos, special, &toks, &n)) return tool_lk_fail(1);
    for (i = 0; i < n; i++) {
        if (pieces) {
            char piece[256];
            int k = lk_token_to_piece(v, toks[i], piece, (int)sizeof piece - 1, 1);
            piece[k > 0 ? k : 0] = 0;
            printf("%6d -> '%s'\n", (int)toks[i], piece);
        } else printf(i ? " %d" : "%d", (int)toks[i]);
    }
    if (!pieces) printf("\n");
    free(toks); free(buf); lk_vocab_free(v); lk_gguf_free(g);
    return 0;
}
