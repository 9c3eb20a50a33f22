/* tokenize: print the token ids of a text, separated by spaces.
 *   build: cc -O2 -I. tools/tokenize.c -lm -o tokenize
 *   usage: tokenize -m MODEL [--no-bos] [--special] [--pieces] (-p TEXT | -f FILE)
 * BOS/EOS are added as the vocabulary says unless --no-bos. --special turns
 * the text of control tokens (e.g. "<s>") into those tokens (llama_tokenize's
 * parse_special); by default such text is tokenized as plain text.
 * --pieces prints one "id -> 'piece'" line per token instead. */
#include "lk_tool.h"
#define LLMKIT_IMPLEMENTATION
#include "llmkit.h"

#define USAGE "tokenize -m MODEL [--no-bos] [--special] [--pieces] (-p TEXT | -f FILE)"

int main(int argc, char **argv) {
    const char *model = NULL, *text = NULL, *file = NULL;
    int bos = 1, special = 0, pieces = 0, i, n;
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
        else if (!strcmp(argv[i], "-m") && i + 1 < argc) model = argv[++i];
        else if (!strcmp(argv[i], "-p") && i + 1 < argc) text = argv[++i];
        else if (!strcmp(argv[i], "-f") && i + 1 < argc) file = argv[++i];
        else return tool_usage(USAGE);
    }
    if (!model || (!text == !file)) return tool_usage(USAGE);
    if (file) {
        if (tool_read_file(file, &buf, &len)) return tool_lk_fail(1);
        text = buf;
    } else len = strlen(text);
    if (len > 0x7fffffff) return tool_fail(1, "the text is too large (%zu bytes)", len);
    /* only the tokenizer is needed: read the metadata, not the weights */
    if (lk_gguf_read_file(model, NULL, &g) || lk_vocab_load(g, NULL, &v)) return tool_lk_fail(1);
    n = lk_tokenize(v, text, (int)len, NULL, 0, bos, special);
    if (n == LK_TOKENIZE_ERROR) return tool_lk_fail(1);
    if (n < 0) n = -n;
    toks = (lk_token *)malloc(sizeof(lk_token) * (size_t)(n + 1));
    if (!toks) return tool_fail(1, "out of memory");
    n = lk_tokenize(v, text, (int)len, toks, n + 1, bos, special);
    if (n < 0) return tool_lk_fail(1);
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
