/* generate: stream text from a GGUF model.
 *   build: cc -O2 -march=native -fopenmp -I. examples/generate.c -lm -o generate
 *   usage: generate -m MODEL [-p PROMPT] [-n N] [--ignore-eos] [--draft-model FILE]
 *                   [any option of the model, context, sampler and spec tables]
 *   generate --help lists them all: -c, -t, --temp, --top-k, --kv-type,
 *   --kv-policy, --spec, ... Flags are spelled as in llama.cpp's CLI; each
 *   table option is parsed by lk_model_params_set / lk_context_params_set /
 *   lk_sampler_params_set / lk_spec_params_set (llmkit.h's option tables),
 *   and --help prints the same rows. A bad value stops with a message naming
 *   the flag (exit 2).
 * The context (-c) is by default the model's training context, at most
 * 4096, and at least the prompt plus N; a model with learned positions
 * (gpt2) cannot go past its training context. When the context fills before
 * N tokens (a small -c), generation stops and stderr says so. Prompt and
 * generation speed are printed on stderr at the end. With --spec (lk_spec:
 * draft and tree need --draft-model, a GGUF with the same vocabulary) the
 * output is what plain decoding would give (the same tokens at --temp 0,
 * the same distribution otherwise), and stderr gets the line
 *   speculative: T tokens, F target forwards, X.XX tokens/forward, acceptance Y.Y %
 * (F counts the prompt's forward, so plain decoding shows 1.00). */
#include "tools/lk_tool.h"
#define LLMKIT_IMPLEMENTATION
#include "llmkit.h"

#define USAGE \
    "generate -m MODEL [-p PROMPT] [-n N] [--ignore-eos] [--draft-model FILE] [OPTIONS]\n" \
    "  -m MODEL                        the GGUF file\n" \
    "  -p PROMPT                       the text to continue (default: none)\n" \
    "  -n N                            tokens to generate (default 128)\n" \
    "      --ignore-eos                go on past end-of-generation tokens\n" \
    "  -md, --draft-model FILE         the draft model of --spec draft and tree\n" \
    "  -c is by default the model's training context (at most 4096), or the prompt plus N if more;\n" \
    "  --seed is by default the time"
#define SETS (TOOL_OPTS_MODEL | TOOL_OPTS_CONTEXT | TOOL_OPTS_SAMPLER | TOOL_OPTS_SPEC)

int main(int argc, char **argv) {
    const char *model = NULL, *prompt = "", *draft_model = NULL;
    lk_spec_params xp = lk_spec_default_params();
    lk_model *dm = NULL; lk_context *dc = NULL; lk_spec *spec = NULL;
    int n_gen = 128, i, n_prompt, ignore_eos = 0;
    lk_model_params mp = lk_model_default_params();
    lk_context_params cp = lk_context_default_params();
    lk_sampler_params sp = lk_sampler_default_params();
    lk_model *m; lk_context *c; lk_sampler *s;
    const lk_vocab *v;
    lk_token *toks;
    int cap;
    double t0, t1, t2;
    int n_done = 0, eos = 0;
    char piece[256];
    tool_name = "generate";
    sp.seed = (uint64_t)time(NULL);
    cp.n_ctx = -1;   /* not given: set from the model, the prompt and -n below */
    for (i = 1; i < argc; i++) {
        const char *a = argv[i], *x = i + 1 < argc ? argv[i + 1] : NULL;
        lk_status st;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) return tool_help(0, USAGE, SETS, NULL);
        if (!strcmp(a, "--ignore-eos")) { ignore_eos = 1; continue; }
        if (!x) return tool_no_value(USAGE, SETS, NULL, a);
        if (!strcmp(a, "-m")) model = x;
        else if (!strcmp(a, "--draft-model") || !strcmp(a, "-md")) draft_model = x;
        else if ((st = lk_spec_params_set(&xp, a, x)) != LK_ERR_NOT_FOUND) { if (st) return tool_lk_fail(2); }
        else if (!strcmp(a, "-p")) prompt = x;
        else if (!strcmp(a, "-n")) {
            if (!tool_parse_int(x, 0, 1000000000L, &n_gen)) return tool_fail(2, "-n expects a count >= 0, got '%s'", x);
        } else if ((st = tool_set_option(&mp, &cp, &sp, a, x)) == LK_ERR_NOT_FOUND)
            return tool_bad_usage(USAGE, SETS, NULL, "unknown option %s", a);
        else if (st) return tool_lk_fail(2);
        i++;
    }
    if (!model) return tool_bad_usage(USAGE, SETS, NULL, "-m MODEL is required");
    if (lk_model_load_file(model, &mp, &m)) return tool_lk_fail(1);
    v = lk_model_vocab(m);
    if (!v) return tool_fail(1, "%s has no tokenizer", model);
    cap = (int)strlen(prompt) + 8;
    toks = (lk_token *)malloc(sizeof(lk_token) * (size_t)cap);
    if (!toks) return tool_fail(1, "out of memory");
    n_prompt = lk_tokenize(v, prompt, (int)strlen(prompt), toks, cap, 1, 0);
    if (n_prompt < 0) return tool_fail(1, "cannot tokenize the prompt: %s", lk_last_error());
    if (n_prompt == 0) { toks[0] = lk_vocab_bos(v) >= 0 ? lk_vocab_bos(v) : 0; n_prompt = 1; }
    if (cp.n_ctx < 0) cp.n_ctx = tool_default_ctx(m, (long long)n_prompt + n_gen);
    if (xp.mode != LK_SPEC_NONE) {   /* the tree the target verifies per step */
        const int nodes = xp.mode == LK_SPEC_DRAFT || xp.mode == LK_SPEC_LOOKUP ? xp.draft_max + 1 : xp.n_nodes > 0 ? xp.n_nodes : xp.mode == LK_SPEC_TREE ? 16 : 32;
        if (cp.n_tree < nodes) cp.n_tree = nodes;
        if ((xp.mode == LK_SPEC_DRAFT || xp.mode == LK_SPEC_TREE) && !draft_model) return tool_fail(2, "--spec %s needs --draft-model FILE", lk_spec_mode_name(xp.mode));
        xp.now = tool_now_user;
    }
    if (lk_context_new(m, &cp, &c)) return tool_lk_fail(1);
    if (draft_model && (xp.mode == LK_SPEC_DRAFT || xp.mode == LK_SPEC_TREE)) {
        lk_model_params dmp = lk_model_default_params();
        if (lk_model_load_file(draft_model, &dmp, &dm) || lk_context_new(dm, &cp, &dc)) return tool_lk_fail(1);
    }
    if (n_prompt >= lk_context_n_ctx(c)) return tool_fail(1, "the prompt (%d tokens) does not fit the context (%d)", n_prompt, lk_context_n_ctx(c));
    sp.n_vocab = lk_model_n_vocab(m);
    if (lk_sampler_new(&sp, &s)) return tool_lk_fail(1);
    fputs(prompt, stdout);
    fflush(stdout);
    for (i = 0; i < n_prompt; i++) lk_sampler_accept(s, toks[i]);
    t0 = tool_now();
    if (xp.mode != LK_SPEC_NONE) {   /* speculative: lk_spec decodes the prompt and draws the tokens */
        lk_token first, buf[520];
        const int lim = n_gen < lk_context_n_ctx(c) - n_prompt ? n_gen : lk_context_n_ctx(c) - n_prompt;   /* as many as the plain loop */
        int nb = 0, k, stop = 0;
        if (lk_spec_new(c, dc, s, &xp, &spec) || lk_spec_begin(spec, toks, n_prompt, &first)) { fputc('\n', stderr); return tool_lk_fail(1); }
        t1 = tool_now();
        buf[nb++] = first;
        while (!stop && n_done < lim) {
            for (k = 0; k < nb && !stop; k++) {
                int len;
                n_done++;
                if (!ignore_eos && lk_vocab_is_eog(v, buf[k])) { stop = eos = 1; break; }
                len = lk_token_to_piece(v, buf[k], piece, (int)sizeof piece, 0);
                if (len > 0) { fwrite(piece, 1, (size_t)len, stdout); fflush(stdout); }
                if (n_done == lim) stop = 1;
            }
            if (stop) break;
            if (lk_spec_step(spec, buf, lim - n_done < 512 ? lim - n_done : 512, &nb)) { fputc('\n', stderr); return tool_lk_fail(1); }
        }
    } else {
    if (lk_decode(c, toks, n_prompt)) { fputc('\n', stderr); return tool_lk_fail(1); }
    t1 = tool_now();
    while (n_done < n_gen && lk_context_n_past(c) < lk_context_n_ctx(c)) {
        lk_token t = lk_sampler_sample(s, lk_logits(c, -1), lk_model_n_vocab(m));
        int len;
        if (t < 0) { fputc('\n', stderr); return tool_lk_fail(1); }
        lk_sampler_accept(s, t);
        n_done++;
        if (!ignore_eos && lk_vocab_is_eog(v, t)) { eos = 1; break; }
        len = lk_token_to_piece(v, t, piece, (int)sizeof piece, 0);
        if (len > 0) { fwrite(piece, 1, (size_t)len, stdout); fflush(stdout); }
        if (n_done == n_gen) break;
        if (lk_decode(c, &t, 1)) { fputc('\n', stderr); return tool_lk_fail(1); }
    }
    }
    t2 = tool_now();
    printf("\n");
    if (!eos && n_done < n_gen) {   /* neither -n nor an end token: the context is full */
        const lk_hparams *hp = lk_model_hparams(m);
        const int learned = hp->rope.n_rot == 0 && lk_context_n_ctx(c) >= hp->n_ctx_train;   /* no position past these */
        fprintf(stderr, "generate: context full (%d tokens); stopped after %d of %d requested; %s\n", lk_context_n_ctx(c), n_done, n_gen,
                learned ? "the model has no more learned positions" : "raise -c");
    }
    fprintf(stderr, "\nprompt: %d tokens in %.3f s (%.1f t/s); generation: %d tokens in %.3f s (%.1f t/s)\n",
            n_prompt, t1 - t0, n_prompt / (t1 - t0 > 0 ? t1 - t0 : 1e-9), n_done, t2 - t1, n_done / (t2 - t1 > 0 ? t2 - t1 : 1e-9));
    fprintf(stderr, "KV cache: %llu bytes (policy %s, budget %d)\n", (unsigned long long)lk_context_kv_bytes(c),
            lk_kv_policy_name(cp.kv_policy.policy), cp.kv_policy.budget);
    if (spec) {
        const lk_spec_stats st = lk_spec_get_stats(spec);
        fprintf(stderr, "speculative: %lld tokens, %lld target forwards, %.2f tokens/forward, acceptance %.1f %%\n", (long long)st.tokens,
                (long long)st.forwards, st.forwards ? (double)st.tokens / (double)st.forwards : 0.0,
                st.proposed ? 100.0 * (double)st.accepted / (double)st.proposed : 0.0);
        lk_spec_free(spec);
    }
    if (dc) lk_context_free(dc);
    if (dm) lk_model_free(dm);
    lk_sampler_free(s); lk_context_free(c); lk_model_free(m); free(toks);
    return 0;
}
