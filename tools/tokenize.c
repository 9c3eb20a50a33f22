/* tokenize: print the tokens of a text with the vocabulary of a GGUF file.
 *   build/tokenize MODEL.gguf "text" [--no-special] [--parse-special] [--ids]
 * Prints one line per token (id and piece), or just the ids with --ids, then
 * the detokenized text. Like llama.cpp's llama-tokenize. */
#define LLMKIT_IMPLEMENTATION
#include "llmkit.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
    lk_gguf *g = NULL;
    lk_vocab *v = NULL;
    int add_special = 1, parse_special = 0, ids_only = 0, i, n, cap;
    int *toks;
    char *buf;
    const char *text;
    if (argc < 3) {
        fprintf(stderr, "usage: %s MODEL.gguf TEXT [--no-special] [--parse-special] [--ids]\n", argv[0]);
        return 2;
    }
    for (i = 3; i < argc; i++) {
        if (!strcmp(argv[i], "--no-special")) add_special = 0;
        else if (!strcmp(argv[i], "--parse-special")) parse_special = 1;
        else if (!strcmp(argv[i], "--ids")) ids_only = 1;
        else { fprintf(stderr, "unknown option %s\n", argv[i]); return 2; }
    }
    if (lk_gguf_read_file(argv[1], NULL, &g) || lk_vocab_load(g, NULL, &v)) {
        fprintf(stderr, "%s: %s\n", argv[1], lk_last_error());
        lk_gguf_free(g);
        return 1;
    }
    text = argv[2];
    n = lk_tokenize(v, text, (int)strlen(text), NULL, 0, add_special, parse_special);
    if (n == LK_TOKENIZE_ERROR) { fprintf(stderr, "tokenize: %s\n", lk_last_error()); return 1; }
    cap = n < 0 ? -n : n;
    toks = (int *)malloc(sizeof(int) * (size_t)(cap ? cap : 1));
    n = lk_tokenize(v, text, (int)strlen(text), toks, cap, add_special, parse_special);
    if (ids_only) {
        printf("[");
        for (i = 0; i < n; i++) printf(i ? ", %d" : "%d", toks[i]);
        printf("]\n");
    } else {
        for (i = 0; i < n; i++) {
            char piece[256];
            int k = lk_token_to_piece(v, toks[i], piece, (int)sizeof piece, 1);
            printf("%6d -> '%.*s'\n", toks[i], k > 0 ? k : 0, piece);
        }
        cap = (int)strlen(text) * 2 + 64;
        buf = (char *)malloc((size_t)cap);
        i = lk_detokenize(v, toks, n, buf, cap, 0, 1);
        if (i < 0 && i != LK_TOKENIZE_ERROR) {
            cap = -i;
            free(buf);
            buf = (char *)malloc((size_t)cap);
            i = lk_detokenize(v, toks, n, buf, cap, 0, 1);
        }
        if (i >= 0) printf("detokenized: '%.*s'\n", i, buf);
        free(buf);
    }
    free(toks);
    lk_vocab_free(v);
    lk_gguf_free(g);
    return 0;
}
