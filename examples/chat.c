/* chat: talk with an instruct model, the prompt format taken from its GGUF.
 *   build: cc -O2 -march=native -fopenmp -I. examples/chat.c -lm -o chat
 *   usage: chat -m MODEL [-sys SYSTEM] [-p PROMPT] [-n N] [--template NAME]
 *               [any option of the model, context and sampler tables: -c, -t, --temp, ...]
 *   chat --help lists them (llmkit.h's option tables).
 * Each turn prefills only the new text (lk_chat_next): the KV cache keeps
 * the conversation. The answer streams to stdout and stops at the
 * template's end-of-turn token; tokens/s go to stderr. At the prompt,
 * /reset starts over, /exit or Ctrl-D quits. -p answers one message and
 * exits. A model without tokenizer.chat_template needs --template (a
 * family name: chatml, llama3, gemma, phi3, mistral-v7, ...); the gemma
 * architectures default to "gemma". The context (-c) is by default 4096
 * tokens for the whole conversation (a model with learned positions,
 * gpt2: its training context); when it fills, stderr says so and /reset
 * starts over. */
#include "tools/lk_tool.h"
#define LLMKIT_IMPLEMENTATION
#include "llmkit.h"

#define USAGE \
    "chat -m MODEL [-sys SYSTEM] [-p PROMPT] [-n N] [--template NAME] [OPTIONS]\n" \
    "  -m MODEL                        the GGUF file (an instruct model)\n" \
    "  -sys SYSTEM                     the system prompt\n" \
    "  -p PROMPT                       answer this one message and exit\n" \
    "  -n N                            most tokens per answer (default 512)\n" \
    "      --template NAME             the chat template family (chatml, llama3, gemma, phi3, ...)\n" \
    "  -c is by default 4096 for the whole conversation (learned positions: the training context);\n" \
    "  --seed is by default the time"
#define SETS (TOOL_OPTS_MODEL | TOOL_OPTS_CONTEXT | TOOL_OPTS_SAMPLER)

static lk_model *m; static lk_context *c; static lk_sampler *s; static lk_chat *chat;
static const lk_vocab *v;
static lk_chat_params chp;
static const char *sys_prompt;
static int n_max = 512;

/* A new conversation: empty KV cache, the system prompt (if any) as its first message. */
static int start(void) {
    lk_chat_free(chat); chat = NULL;
    if (lk_context_truncate(c, 0) || lk_chat_new(m, &chp, &chat)) return 0;
    return !sys_prompt || !lk_chat_add(chat, "system", sys_prompt);
}

/* One turn: add the user's message, prefill the new text, stream the reply. */
static int turn(const char *user) {
    const char *text; int len, n, i, n_gen = 0, cap, used = 0;
    char piece[256], *reply = NULL;
    lk_token *toks, t;
    double t0, t1, t2;
    if (lk_chat_add(chat, "user", user) || lk_chat_next(chat, &text, &len)) return 0;
    toks = (lk_token *)malloc(sizeof(lk_token) * (size_t)(len + 8));
    if (!toks) return 0;
    /* BOS once, at the start of the conversation; special tokens parsed */
    n = lk_tokenize(v, text, len, toks, len + 8, lk_context_n_past(c) == 0, 1);
    if (n < 0) { free(toks); return 0; }
    if (lk_context_n_past(c) + n >= lk_context_n_ctx(c)) {
        free(toks);
        return !fprintf(stderr, "chat: the context (%d tokens) is full; /reset starts over\n", lk_context_n_ctx(c));
    }
    t0 = tool_now();
    for (i = 0; i < n; i++) lk_sampler_accept(s, toks[i]);
    if (lk_decode(c, toks, n)) { free(toks); return 0; }
    free(toks);
    t1 = tool_now();
    cap = 1024; reply = (char *)malloc((size_t)cap);
    while (reply && n_gen < n_max) {
        if (lk_context_n_past(c) >= lk_context_n_ctx(c)) {   /* not silently: the answer is cut */
            fprintf(stderr, "\nchat: the context (%d tokens) is full; /reset starts over\n", lk_context_n_ctx(c));
            break;
        }
        t = lk_sampler_sample(s, lk_logits(c, -1), lk_model_n_vocab(m));
        if (t < 0) { free(reply); return 0; }
        if (lk_chat_is_eot(chat, t)) break;
        lk_sampler_accept(s, t);
        n_gen++;
        len = lk_token_to_piece(v, t, piece, (int)sizeof piece, 0);
        if (len > 0) {
            fwrite(piece, 1, (size_t)len, stdout); fflush(stdout);
            if (used + len + 1 > cap) { char *r = (char *)realloc(reply, (size_t)(cap *= 2)); if (!r) break; reply = r; }
            memcpy(reply + used, piece, (size_t)len); used += len;
        }
        if (lk_decode(c, &t, 1)) { free(reply); return 0; }
    }
    t2 = tool_now();
    printf("\n"); fflush(stdout);
    if (!reply) return 0;
    reply[used] = 0;
    fprintf(stderr, "[prompt %d tokens, %.1f t/s; answer %d tokens, %.1f t/s]\n", n, n / (t1 - t0 > 0 ? t1 - t0 : 1e-9),
            n_gen, n_gen / (t2 - t1 > 0 ? t2 - t1 : 1e-9));
    i = lk_chat_add(chat, "assistant", reply) == LK_OK;   /* the reply as generated (lk_chat_next's rule) */
    free(reply);
    return i;
}

int main(int argc, char **argv) {
    const char *model = NULL, *prompt = NULL;
    lk_model_params mp = lk_model_default_params();
    lk_context_params cp = lk_context_default_params();
    lk_sampler_params sp = lk_sampler_default_params();
    char *line = NULL;
    size_t line_cap = 0;
    int i;
    tool_name = "chat";
    chp = lk_chat_default_params();
    sp.seed = (uint64_t)time(NULL);
    cp.n_ctx = -1;   /* not given: 4096, or the model's learned positions */
    for (i = 1; i < argc; i += 2) {
        const char *a = argv[i], *x = i + 1 < argc ? argv[i + 1] : NULL;
        lk_status st;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) return tool_help(0, USAGE, SETS, NULL);
        if (!x) return tool_no_value(USAGE, SETS, NULL, a);
        if (!strcmp(a, "-m")) model = x;
        else if (!strcmp(a, "-p")) prompt = x;
        else if (!strcmp(a, "-sys")) sys_prompt = x;
        else if (!strcmp(a, "--template")) chp.tmpl = x;
        else if (!strcmp(a, "-n")) { if (!tool_parse_int(x, 1, 1000000000L, &n_max)) return tool_fail(2, "-n expects a count, got '%s'", x); }
        else if ((st = tool_set_option(&mp, &cp, &sp, a, x)) == LK_ERR_NOT_FOUND) return tool_bad_usage(USAGE, SETS, NULL, "unknown option %s", a);
        else if (st) return tool_lk_fail(2);
    }
    if (!model) return tool_bad_usage(USAGE, SETS, NULL, "-m MODEL is required");
    if (lk_model_load_file(model, &mp, &m)) return tool_lk_fail(1);
    if (!(v = lk_model_vocab(m))) return tool_fail(1, "%s has no tokenizer", model);
    if (!chp.tmpl && !lk_chat_model_template(m)) {
        lk_arch a = lk_model_hparams(m)->arch;
        if (a != LK_ARCH_GEMMA && a != LK_ARCH_GEMMA2 && a != LK_ARCH_GEMMA3)
            return tool_fail(1, "%s has no chat template this build recognises; pick one with --template (chatml, llama3, gemma, phi3, ...)", model);
        chp.tmpl = "gemma";
    }
    if (cp.n_ctx < 0) cp.n_ctx = tool_default_ctx(m, 4096);
    if (lk_context_new(m, &cp, &c)) return tool_lk_fail(1);
    sp.n_vocab = lk_model_n_vocab(m);
    if (lk_sampler_new(&sp, &s) || !start()) return tool_lk_fail(1);
    if (prompt) return turn(prompt) ? 0 : tool_lk_fail(1);
    fprintf(stderr, "chat with %s (template %s). /reset starts over, /exit or Ctrl-D quits.\n", model, lk_chat_family(chat));
    for (;;) {
        size_t n;
        printf("> "); fflush(stdout);
        if (getline(&line, &line_cap, stdin) < 0) break;   /* any length; Ctrl-D ends */
        n = strlen(line);
        while (n && (line[n - 1] == '\n' || line[n - 1] == '\r')) line[--n] = 0;
        if (!strcmp(line, "/exit")) break;
        if (!strcmp(line, "/reset")) { if (!start()) return tool_lk_fail(1); lk_sampler_reset(s); continue; }
        if (n && !turn(line)) return tool_lk_fail(1);
    }
    printf("\n");
    free(line);
    lk_chat_free(chat); lk_sampler_free(s); lk_context_free(c); lk_model_free(m);
    return 0;
}
