/* spec-bench - speculative decoding (lk_spec) against plain decoding, side by side.
 *
 *   spec-bench -m TARGET [-md DRAFT] [--spec MODE[,MODE..]] [-n N] [-r REPS] [-t THREADS]
 *              [-P PROMPTS_FILE] [any option of the sampler and spec tables: --temp T, --seed S,
 *              --draft-max N, --draft-p-min P, --spec-nodes N, --spec-ngram N, --spec-k K, --spec-adaptive 0|1]
 *   spec-bench -m MODEL --tree-cost 1,4,16,64 [-t THREADS] [-r REPS] [-c CTX_BEFORE]
 *   spec-bench --help lists the options (llmkit.h's option tables).
 *
 * For every prompt (one per line of PROMPTS_FILE; default three story
 * openings) and repetition it generates N tokens (default 128; the context
 * is the model's training context, at most 4096, or the prompt plus N if
 * more) with plain
 * decoding (lk_decode one token at a time, lk_sampler) and then with each
 * MODE (default draft,tree,recycle,lookup; draft and tree need -md), the
 * same sampler settings (default --temp 0) and seed, alternating. It prints
 * one markdown row per mode: tokens per target forward (the prompt's forward
 * included: plain = 1.00), acceptance (accepted / proposed nodes), the
 * wall-clock tokens/s of plain and speculative generation (the prompt
 * excluded), the speedup, and at --temp 0 whether every output equals the
 * plain one.
 *
 * --tree-cost: after a prompt of CTX_BEFORE random tokens (default 64) it
 * times one lk_decode_tree of a chain of K tokens for each K (best of REPS,
 * default 5) and prints the cost per forward and per token relative to
 * K = 1: the verification cost of a step of K nodes. */
#include "lk_tool.h"
#define LLMKIT_IMPLEMENTATION
#include "llmkit.h"

#define USAGE \
    "spec-bench -m TARGET [-md DRAFT] [--spec MODE[,MODE..]] [-n N] [-r REPS] [-t THREADS] [-P PROMPTS] [OPTIONS]\n" \
    "       spec-bench -m MODEL --tree-cost K[,K..] [-t THREADS] [-r REPS] [-c CTX_BEFORE]\n" \
    "  -m TARGET                       the target model (GGUF)\n" \
    "  -md, --draft-model DRAFT        the draft model (draft and tree modes)\n" \
    "      --spec MODE[,MODE..]        the modes to compare (default draft,tree,recycle,lookup)\n" \
    "  -n N                            tokens per prompt (default 128, at most 4096)\n" \
    "  -r REPS                         repetitions (default 1; --tree-cost: best of, at least 3, default 5)\n" \
    "  -t THREADS                      threads (default 2)\n" \
    "  -P PROMPTS                      a file of prompts, one per line (default: three story openings)\n" \
    "      --tree-cost K[,K..]         time one token-tree forward of K nodes each\n" \
    "  -c CTX_BEFORE                   --tree-cost: tokens in the context before the tree (default 64)\n" \
    "  --temp is by default 0 here and --seed 1"
#define SETS (TOOL_OPTS_SAMPLER | TOOL_OPTS_SPEC)
static const char *const own[] = { "spec", NULL };   /* --spec takes a list here */

static int tree_cost(lk_model *m, const char *list, int threads, int reps, int before) {
    lk_context_params cp = lk_context_default_params();
    lk_context *c;
    lk_token toks[4096];
    int ks[32], nk = 0, i, r, k, par[512];
    double base = 0;
    const char *p = list;
    lk_rng rng;
    while (*p && nk < 32) {
        char *end;
        long v = strtol(p, &end, 10);
        if (end == p || v < 1 || v > 512) return tool_fail(2, "--tree-cost expects sizes in [1, 512], got '%s'", list);
        ks[nk++] = (int)v;
        p = *end == ',' ? end + 1 : end;
        if (*end && *end != ',') return tool_fail(2, "--tree-cost expects a comma-separated list, got '%s'", list);
    }
    cp.n_ctx = before + 520; cp.n_tree = 512; cp.n_threads = threads;
    if (before < 1 || before > 4096) return tool_fail(2, "-c expects 1..4096 tokens before the tree");
    if (lk_context_new(m, &cp, &c)) return tool_lk_fail(1);
    lk_rng_seed(&rng, 1);
    for (i = 0; i < before + 512; i++) toks[i] = (lk_token)lk_rng_below(&rng, (uint32_t)lk_model_n_vocab(m));
    for (i = 0; i < 512; i++) par[i] = i - 1;
    if (lk_decode(c, toks, before)) return tool_lk_fail(1);
    printf("| nodes | ms per forward | ms per node | forward cost vs 1 node |\n|---:|---:|---:|---:|\n");
    for (k = 0; k < nk; k++) {
        double best = 1e30;
        for (r = 0; r < reps + 1; r++) {   /* one warm-up */
            double t0 = tool_now(), dt;
            if (lk_decode_tree(c, toks + before, par, ks[k])) return tool_lk_fail(1);
            dt = tool_now() - t0;
            if (lk_context_tree_commit(c, NULL, 0)) return tool_lk_fail(1);
            if (r && dt < best) best = dt;
        }
        if (k == 0 || ks[k] == 1) base = ks[k] == 1 ? best : base;
        printf("| %d | %.3f | %.3f | %s%.2f |\n", ks[k], best * 1e3, best * 1e3 / ks[k], base > 0 ? "" : "~", base > 0 ? best / base : 0.0);
    }
    printf("\n%s, %d threads, %d tokens before the tree, best of %d\n", lk_arch_name(lk_model_hparams(m)->arch), threads, before, reps);
    lk_context_free(c);
    return 0;
}

int main(int argc, char **argv) {
    const char *model = NULL, *draft = NULL, *modes = "draft,tree,recycle,lookup", *pfile = NULL, *tc = NULL;
    static const char *def_prompts[3] = { "Once upon a time", "The little dog", "Tom and Sue went to" };
    char *pbuf = NULL, *prompts[64];
    int n_prompts = 0, n_gen = 128, reps = 1, threads = 2, before = 64, i;
    lk_spec_params xp = lk_spec_default_params();
    lk_sampler_params sp = lk_sampler_default_params();
    lk_model *m = NULL, *dm = NULL;
    lk_context_params cp = lk_context_default_params();
    const lk_vocab *v;
    tool_name = "spec-bench";
    sp.temperature = 0.0f; sp.seed = 1;
    for (i = 1; i < argc; i += 2) {   /* every option takes a value */
        const char *a = argv[i], *x = i + 1 < argc ? argv[i + 1] : NULL;
        lk_status st;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) return tool_help(0, USAGE, SETS, own);
        if (!x) return tool_no_value(USAGE, SETS, own, a);
        if (!strcmp(a, "-m")) model = x;
        else if (!strcmp(a, "-md") || !strcmp(a, "--draft-model")) draft = x;
        else if (!strcmp(a, "--spec")) modes = x;
        else if (!strcmp(a, "-P")) pfile = x;
        else if (!strcmp(a, "--tree-cost")) tc = x;
        else if (!strcmp(a, "-n")) { if (!tool_parse_int(x, 1, 4096, &n_gen)) return tool_fail(2, "-n expects 1..4096, got '%s'", x); }
        else if (!strcmp(a, "-r")) { if (!tool_parse_int(x, 1, 1000, &reps)) return tool_fail(2, "-r expects 1..1000, got '%s'", x); }
        else if (!strcmp(a, "-t")) { if (!tool_parse_int(x, 1, 4096, &threads)) return tool_fail(2, "-t expects 1..4096, got '%s'", x); }
        else if (!strcmp(a, "-c")) { if (!tool_parse_int(x, 1, 4096, &before)) return tool_fail(2, "-c expects 1..4096, got '%s'", x); }
        else if ((st = lk_spec_params_set(&xp, a, x)) != LK_ERR_NOT_FOUND) { if (st) return tool_lk_fail(2); }
        else if ((st = lk_sampler_params_set(&sp, a, x)) != LK_ERR_NOT_FOUND) { if (st) return tool_lk_fail(2); }
        else return tool_bad_usage(USAGE, SETS, own, "unknown option %s", a);
    }
    if (!model) return tool_bad_usage(USAGE, SETS, own, "-m TARGET is required");
    if (lk_model_load_file(model, NULL, &m)) return tool_lk_fail(1);
    if (tc) { int rc = tree_cost(m, tc, threads, reps < 3 ? 5 : reps, before); lk_model_free(m); return rc; }
    if (draft && lk_model_load_file(draft, NULL, &dm)) return tool_lk_fail(1);
    if (!(v = lk_model_vocab(m))) return tool_fail(1, "%s has no tokenizer", model);
    if (pfile) {
        size_t len;
        char *q;
        if (tool_read_file(pfile, &pbuf, &len)) return tool_lk_fail(1);
        for (q = strtok(pbuf, "\n"); q && n_prompts < 64; q = strtok(NULL, "\n")) if (*q) prompts[n_prompts++] = q;
    } else for (i = 0; i < 3; i++) prompts[n_prompts++] = (char *)(size_t)def_prompts[i];
    if (!n_prompts) return tool_fail(2, "%s has no prompts", pfile);
    cp.n_threads = threads; cp.n_tree = 64;   /* n_ctx: per prompt, below */
    printf("| mode | tokens/forward | acceptance | plain t/s | spec t/s | speedup | same tokens |\n|---|---:|---:|---:|---:|---:|---|\n");
    {
        const char *mp = modes;
        while (*mp) {
            char name[32];
            size_t L = strcspn(mp, ",");
            lk_spec_params p = xp;
            int mi, pi, r, same = 1;
            double t_plain = 0, t_spec = 0;
            long long tok_plain = 0, tok_spec = 0, fwd = 0, prop = 0, acc = 0;
            if (L >= sizeof name) return tool_fail(2, "--spec: bad list '%s'", modes);
            memcpy(name, mp, L); name[L] = 0;
            mp += L + (mp[L] == ',');
            for (mi = 0; mi < 5 && strcmp(name, lk_spec_mode_name((lk_spec_mode)mi)); mi++) {}
            if (mi == 5 || mi == 0) return tool_fail(2, "--spec: unknown mode '%s' (draft, tree, recycle, lookup)", name);
            if ((mi == LK_SPEC_DRAFT || mi == LK_SPEC_TREE) && !dm) { fprintf(stderr, "spec-bench: %s needs -md DRAFT: skipped\n", name); continue; }
            p.mode = (lk_spec_mode)mi; p.now = tool_now_user;
            for (pi = 0; pi < n_prompts; pi++)
                for (r = 0; r < reps; r++) {
                    lk_token toks[512], a[4096], b[4096], buf[520];
                    int np, k, n, nb;
                    lk_context *c, *d = NULL;
                    lk_sampler *s;
                    lk_spec *x;
                    lk_spec_stats st;
                    double t0;
                    lk_sampler_params sr = sp;
                    sr.seed = sp.seed + (uint64_t)r;
                    np = lk_tokenize(v, prompts[pi], (int)strlen(prompts[pi]), toks, 512, 1, 0);
                    if (np <= 0) return tool_fail(1, "cannot tokenize prompt %d", pi + 1);
                    cp.n_ctx = tool_default_ctx(m, (long long)np + n_gen);
                    /* plain */
                    if (lk_context_new(m, &cp, &c) || lk_sampler_new(&sr, &s)) return tool_lk_fail(1);
                    n = n_gen < lk_context_n_ctx(c) - np ? n_gen : lk_context_n_ctx(c) - np;
                    if (n < 1) return tool_fail(1, "prompt %d (%d tokens) fills the context (%d)", pi + 1, np, lk_context_n_ctx(c));
                    if (n < n_gen && r == 0)   /* learned positions end there */
                        fprintf(stderr, "spec-bench: prompt %d: the context (%d tokens) holds %d of the %d tokens asked\n", pi + 1, lk_context_n_ctx(c), n, n_gen);
                    for (k = 0; k < np; k++) lk_sampler_accept(s, toks[k]);
                    if (lk_decode(c, toks, np)) return tool_lk_fail(1);
                    t0 = tool_now();
                    for (k = 0; k < n; k++) {
                        a[k] = lk_sampler_sample(s, lk_logits(c, -1), lk_model_n_vocab(m));
                        lk_sampler_accept(s, a[k]);
                        if (k + 1 < n && lk_decode(c, &a[k], 1)) return tool_lk_fail(1);
                    }
                    t_plain += tool_now() - t0; tok_plain += n;
                    lk_sampler_free(s); lk_context_free(c);
                    /* speculative */
                    if (lk_context_new(m, &cp, &c) || lk_sampler_new(&sr, &s)) return tool_lk_fail(1);
                    if (dm && (mi == LK_SPEC_DRAFT || mi == LK_SPEC_TREE) && lk_context_new(dm, &cp, &d)) return tool_lk_fail(1);
                    for (k = 0; k < np; k++) lk_sampler_accept(s, toks[k]);
                    if (lk_spec_new(c, d, s, &p, &x)) return tool_lk_fail(1);
                    if (lk_spec_begin(x, toks, np, &b[0])) return tool_lk_fail(1);   /* the prompt, untimed as plain's */
                    t0 = tool_now();
                    for (k = 1; k < n; k += nb)
                        if (lk_spec_step(x, buf, n - k < 512 ? n - k : 512, &nb)) return tool_lk_fail(1);
                        else memcpy(b + k, buf, sizeof(lk_token) * (size_t)nb);
                    t_spec += tool_now() - t0; tok_spec += n;
                    st = lk_spec_get_stats(x);
                    fwd += st.forwards; prop += st.proposed; acc += st.accepted;
                    if (memcmp(a, b, sizeof(lk_token) * (size_t)n)) same = 0;
                    lk_spec_free(x); lk_sampler_free(s); lk_context_free(c);
                    if (d) lk_context_free(d);
                }
            printf("| %s | %.2f | %.1f %% | %.1f | %.1f | %.2fx | %s |\n", name, (double)tok_spec / (double)(fwd ? fwd : 1),
                   prop ? 100.0 * (double)acc / (double)prop : 0.0, tok_plain / t_plain, tok_spec / t_spec, (tok_spec / t_spec) / (tok_plain / t_plain),
                   sp.temperature <= 0.0f ? (same ? "yes" : "NO") : "(sampled)");
            fflush(stdout);
        }
    }
    printf("\ntarget %s, draft %s, %d prompt(s) x %d rep(s) x %d tokens, %d threads, temp %.2f; t/s: generation after the prompt's forward (wall clock)\n",
           model, draft ? draft : "-", n_prompts, reps, n_gen, threads, (double)sp.temperature);
    free(pbuf);
    if (dm) lk_model_free(dm);
    lk_model_free(m);
    return 0;
}
