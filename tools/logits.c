/* logits: write float32 logits for every position of a token sequence.
 *   build: cc -O2 -I. tools/logits.c -lm -o logits
 *   usage: logits -m MODEL --tokens 1,11,48,... -o OUT.bin
 *          [any option of the model and context tables: --kv f32|f16|q8_0|q4_0|zip4|zip2 (default f32),
 *           -t N, -b N_BATCH, --attn lssa, ..., --check-tensors 0|1]; logits --help lists them
 * OUT.bin holds [n_tokens][n_vocab] floats, row i = prediction after tokens
 * 0..i (the fixtures' format). Token ids are fed verbatim; no BOS is added. */
#include "lk_tool.h"
#define LLMKIT_IMPLEMENTATION
#include "llmkit.h"

#define USAGE \
    "logits -m MODEL --tokens ID,ID,... -o OUT.bin [OPTIONS]\n" \
    "  -m MODEL                        the GGUF file\n" \
    "      --tokens ID,ID,...          the token ids, fed verbatim (no BOS added)\n" \
    "  -o OUT.bin                      [n_tokens][n_vocab] float32 logits\n" \
    "  --kv-type is by default f32 here; -c at least the token count"
#define SETS (TOOL_OPTS_MODEL | TOOL_OPTS_CONTEXT)

int main(int argc, char **argv) {
    const char *model = NULL, *toks = NULL, *out = NULL;
    lk_model_params mp = lk_model_default_params();
    lk_context_params cp = lk_context_default_params();
    lk_model *m;
    lk_context *c;
    lk_token *ids;
    int n = 0, cap, i, done;
    FILE *f;
    tool_name = "logits";
    cp.kv_type = LK_TYPE_F32;
    for (i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) return tool_help(0, USAGE, SETS, NULL);
        if (!strcmp(a, "-m") && v) { model = v; i++; }
        else if (!strcmp(a, "--tokens") && v) { toks = v; i++; }
        else if (!strcmp(a, "-o") && v) { out = v; i++; }
        else if (v) {   /* -t, -b, --kv (f32 f16 q8_0 q4_0 zip4 zip2), --attn, ..., --check-tensors */
            lk_status st = tool_set_option(&mp, &cp, NULL, a, v);
            if (st == LK_ERR_NOT_FOUND) return tool_bad_usage(USAGE, SETS, NULL, "unknown option %s", a);
            if (st) return tool_lk_fail(2);
            i++;
        } else return tool_bad_usage(USAGE, SETS, NULL, "%s: unknown, or without a value", a);
    }
    if (!model || !toks || !out) return tool_bad_usage(USAGE, SETS, NULL, "-m, --tokens and -o are required");
    cap = (int)strlen(toks) / 2 + 2;
    ids = (lk_token *)malloc(sizeof(lk_token) * (size_t)cap);
    if (!ids) return tool_fail(1, "out of memory");
    for (const char *p = toks; *p; ) {
        char *e;
        long v = strtol(p, &e, 10);
        if (e == p || v < 0 || v > 0x7fffffff || n >= cap) return tool_fail(2, "bad --tokens list near '%s'", p);
        ids[n++] = (lk_token)v;
        p = *e == ',' ? e + 1 : e;
        if (*e && *e != ',') return tool_fail(2, "bad --tokens list near '%s'", e);
    }
    if (n == 0) return tool_fail(2, "no tokens");
    if (lk_model_load_file(model, &mp, &m)) return tool_lk_fail(1);
    if (cp.n_ctx < n) cp.n_ctx = n;
    if (cp.n_batch <= 0) cp.n_batch = 512;
    cp.logits_all = 1;
    if (lk_context_new(m, &cp, &c)) return tool_lk_fail(1);
    f = fopen(out, "wb");
    if (!f) return tool_fail(1, "cannot create %s: %s", out, strerror(errno));
    for (done = 0; done < n; ) {   /* logits_all: at most n_batch tokens per call */
        int k = n - done < cp.n_batch ? n - done : cp.n_batch, r;
        if (lk_decode(c, ids + done, k)) return tool_lk_fail(1);
        for (r = 0; r < k; r++)
            if (fwrite(lk_logits(c, r), sizeof(float), (size_t)lk_model_n_vocab(m), f) != (size_t)lk_model_n_vocab(m))
                return tool_fail(1, "cannot write %s", out);
        done += k;
    }
    if (fclose(f)) return tool_fail(1, "cannot write %s: %s", out, strerror(errno));
    lk_context_free(c);
    lk_model_free(m);
    free(ids);
    return 0;
}
