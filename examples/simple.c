/* simple: load a GGUF model and print its greedy continuation of "Once upon a time".
 * Build: cc -O2 -I. examples/simple.c -lm -o simple  (faster: -march=native -fopenmp). Run: ./simple MODEL.gguf */
#define LLMKIT_IMPLEMENTATION            /* in exactly one .c file */
#include "llmkit.h"
#include <stdio.h>
#include <string.h>

static int fail(const char *what, lk_status st) {
    fprintf(stderr, "simple: %s: %s (%s)\n", what, lk_last_error(), lk_status_str(st));
    return 1;
}

int main(int argc, char **argv) {
    const char *prompt = "Once upon a time";
    lk_model *model; lk_context *ctx; lk_sampler *smpl;
    lk_token toks[64]; lk_status st;
    if (argc != 2) { fprintf(stderr, "usage: simple MODEL.gguf\n"); return 2; }
    if ((st = lk_model_load_file(argv[1], NULL, &model))) return fail(argv[1], st);
    lk_context_params cp = lk_context_default_params();
    cp.n_ctx = 128;                      /* room for the prompt and 64 new tokens */
    if ((st = lk_context_new(model, &cp, &ctx))) return fail("context", st);
    lk_sampler_params sp = lk_sampler_default_params();
    sp.temperature = 0;                  /* greedy: always the most likely token */
    if ((st = lk_sampler_new(&sp, &smpl))) return fail("sampler", st);
    const lk_vocab *vocab = lk_model_vocab(model);
    int n = lk_tokenize(vocab, prompt, (int)strlen(prompt), toks, 64, 1, 0);   /* 1: BOS if the vocab wants it */
    if (n < 0) { fprintf(stderr, "simple: tokenize: %s\n", lk_last_error()); return 1; }
    printf("%s", prompt);
    for (int i = 0; i < 64; i++) {       /* run the pending tokens, pick the next one */
        lk_token t; char piece[256];
        if ((st = lk_decode(ctx, toks, n))) return fail("decode", st);
        if ((st = lk_sampler_sample_ex(smpl, lk_logits(ctx, -1), lk_model_n_vocab(model), &t))) return fail("sample", st);
        if (lk_vocab_is_eog(vocab, t)) break;
        int len = lk_token_to_piece(vocab, t, piece, (int)sizeof piece, 0);
        if (len > 0) { fwrite(piece, 1, (size_t)len, stdout); fflush(stdout); }
        toks[0] = t; n = 1;
    }
    printf("\n");
    lk_sampler_free(smpl); lk_context_free(ctx); lk_model_free(model);
    return 0;
}
