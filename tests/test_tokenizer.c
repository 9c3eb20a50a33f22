/* Tokenizer tests: llama.cpp's tokenizer test vectors for 7 vocabularies,
 * the stories260K vocabulary (ids and pieces from llama.cpp), detokenize
 * round trips, hostile inputs, and GGUFs with bad tokenizer metadata. */
/* lk-test: sanitize */
#define LLMKIT_IMPLEMENTATION
#include "llmkit.h"
#include "tests/lk_test.h"

static lk_vocab *load_vocab(const char *path, lk_gguf **gout) {
    lk_gguf *g = NULL;
    lk_vocab *v = NULL;
    if (lk_gguf_read_file(path, NULL, &g)) { printf("  read %s: %s\n", path, lk_last_error()); return NULL; }
    if (lk_vocab_load(g, NULL, &v)) { printf("  vocab %s: %s\n", path, lk_last_error()); lk_gguf_free(g); return NULL; }
    if (gout) *gout = g; else lk_gguf_free(g);   /* the vocab must not depend on the gguf */
    return v;
}

/* detokenize must reproduce the text exactly */
static int round_trip(const lk_vocab *v, const char *text, int len, int add_special) {
    lk_token toks[4096];
    int n, m;
    char out[16384];
    n = lk_tokenize(v, text, len, toks, 4096, add_special, 0);
    if (n < 0) return 0;
    m = lk_detokenize(v, toks, n, out, (int)sizeof out, add_special, 0);
    return m == len && memcmp(out, text, (size_t)len) == 0;
}

/* llama.cpp's clean_spaces rewrites " ?", " !", " .", " ,", " '" */
static int has_cleanup_pattern(const char *s, int n) {
    int i;
    for (i = 1; i < n; i++)
        if (s[i - 1] == ' ' && (s[i] == '?' || s[i] == '!' || s[i] == '.' || s[i] == ',' || s[i] == '\'')) return 1;
    return 0;
}

/* One vocabulary's vector files, as llama.cpp's test-tokenizer-0 reads them:
 * the .inp texts are separated by "\n__ggml_vocab_test__\n" (a text after
 * the last separator counts too), the .out has one line of ids per text;
 * tokenized without BOS/EOS and without parsing special tokens.
 * tname: the case name; want: the case count, or -1 for "as many as .out". */
static void run_vocab_vectors(const char *tname, const char *name, const char *gp, const char *ip, const char *op, int want) {
    unsigned char *inp, *outp;
    size_t ilen = 0, olen = 0;
    lk_vocab *v;
    size_t ipos = 0, opos = 0;
    int ncase = 0, npass = 0, nrt = 0, nrt_ok = 0, nout = 0;
    static const char sep[] = "\n__ggml_vocab_test__\n";
    lk_t_begin(tname);
    v = load_vocab(gp, NULL);
    inp = lk_t_read_file(ip, &ilen);
    outp = lk_t_read_file(op, &olen);
    CHECK(v && inp && outp, "load failed");
    if (v && inp && outp) {
        size_t k;
        for (k = 0; k < olen; k++) nout += outp[k] == '\n';
        if (olen && outp[olen - 1] != '\n') nout++;
        while (ipos < ilen) {
            /* next input string: up to the next separator, or to the end */
            size_t end = ipos, next;
            lk_token exp[1024], got[1024];
            int nexp = 0, ngot, i, ok;
            size_t lend;
            while (end + sizeof sep - 1 <= ilen && memcmp(inp + end, sep, sizeof sep - 1) != 0) end++;
            if (end + sizeof sep - 1 > ilen) { end = ilen; next = ilen; } else next = end + sizeof sep - 1;
            /* expected ids */
            lend = opos;
            while (lend < olen && outp[lend] != '\n') lend++;
            for (k = opos; k < lend;) {
                while (k < lend && (outp[k] == ' ' || outp[k] == '\r')) k++;
                if (k >= lend) break;
                if (nexp < 1024) exp[nexp++] = (lk_token)strtol((char *)outp + k, NULL, 10);
                while (k < lend && outp[k] != ' ') k++;
            }
            ngot = lk_tokenize(v, (const char *)inp + ipos, (int)(end - ipos), got, 1024, 0, 0);
            ok = ngot == nexp;
            for (i = 0; ok && i < ngot; i++) ok = got[i] == exp[i];
            if (ok) npass++;
            else if (ncase - npass < 6) {
                printf("  %s case %d: got %d tokens:", name, ncase, ngot);
                for (i = 0; i < ngot && i < 24; i++) printf(" %d", (int)got[i]);
                printf("\n      expected %d:", nexp);
                for (i = 0; i < nexp && i < 24; i++) printf(" %d", (int)exp[i]);
                printf("\n");
            }
            /* exact round trips where llama.cpp's detokenizer is lossless
             * (SPM; BPE, where clean_spaces has nothing to change) */
            if (lk_vocab_get_type(v) == LK_VOCAB_SPM || !strcmp(name, "deepseek-coder") ||
                (lk_vocab_get_type(v) == LK_VOCAB_BPE && !has_cleanup_pattern((const char *)inp + ipos, (int)(end - ipos)))) {
                nrt++;
                if (round_trip(v, (const char *)inp + ipos, (int)(end - ipos), 0)) nrt_ok++;
                else if (nrt - nrt_ok <= 3) printf("  %s case %d: detokenize round trip differs\n", name, ncase);
            }
            ncase++;
            ipos = next;
            opos = lend < olen ? lend + 1 : lend;
        }
        printf("  %s: %d/%d cases match llama.cpp", name, npass, ncase);
        if (nrt) printf(", %d/%d detokenize round trips", nrt_ok, nrt);
        printf("\n");
        CHECK(ncase == nout && (want < 0 || ncase == want), "%s: %d cases, %d lines in .out", name, ncase, nout);
        CHECK(npass == ncase, "%s: %d/%d cases match", name, npass, ncase);
        CHECK(nrt_ok == nrt, "%s: %d/%d round trips", name, nrt_ok, nrt);
    }
    free(inp); free(outp);
    lk_vocab_free(v);
    lk_t_end();
}

static void test_vocab_vectors(const char *name) {
    char rel[256], tname[128];
    const char *gp, *ip, *op;
    snprintf(tname, sizeof tname, "tokenizer-vectors-%s", name);
    snprintf(rel, sizeof rel, "tokenizer/ggml-vocab-%s.gguf", name);
    gp = lk_t_fixture(rel);
    snprintf(rel, sizeof rel, "tokenizer/ggml-vocab-%s.gguf.inp", name);
    ip = lk_t_fixture(rel);
    snprintf(rel, sizeof rel, "tokenizer/ggml-vocab-%s.gguf.out", name);
    op = lk_t_fixture(rel);
    if (!gp || !ip || !op) { lk_t_skip(tname, "fixtures absent"); return; }
    run_vocab_vectors(tname, name, gp, ip, op, 46);
}

/* Every vocabulary with test vectors in llama.cpp 0c1e570's own tree
 * (models/ggml-vocab-NAME.gguf with .inp and .out), where tools/llamacpp.sh
 * (--tree) unpacks it: $LLMKIT_CACHE (default ~/.cache/llmkit)/llama.cpp-0c1e570. */
static void test_tree_vectors(void) {
    static const char *const names[] = {
        "bert-bge", "command-r", "deepseek-coder", "deepseek-llm", "falcon", "gemma-4", "gpt-2", "llama-bpe",
        "llama-spm", "mpt", "phi-3", "qwen2", "qwen35", "refact", "starcoder",
    };
    const char *c = getenv("LLMKIT_CACHE"), *home = getenv("HOME");
    char dir[1024], gp[1200], ip[1200], op[1200], tname[128];
    size_t i;
    FILE *f;
    if (c && *c) snprintf(dir, sizeof dir, "%s/llama.cpp-0c1e570/models", c);
    else snprintf(dir, sizeof dir, "%s/.cache/llmkit/llama.cpp-0c1e570/models", home ? home : ".");
    snprintf(gp, sizeof gp, "%s/ggml-vocab-gpt-2.gguf.inp", dir);
    if (!(f = fopen(gp, "rb"))) {
        printf("SKIP tokenizer-tree-vectors: %s is absent (tools/llamacpp.sh --tree unpacks it)\n", dir);
        return;
    }
    fclose(f);
    for (i = 0; i < sizeof names / sizeof names[0]; i++) {
        snprintf(tname, sizeof tname, "tokenizer-tree-vectors-%s", names[i]);
        snprintf(gp, sizeof gp, "%s/ggml-vocab-%s.gguf", dir, names[i]);
        snprintf(ip, sizeof ip, "%s/ggml-vocab-%s.gguf.inp", dir, names[i]);
        snprintf(op, sizeof op, "%s/ggml-vocab-%s.gguf.out", dir, names[i]);
        run_vocab_vectors(tname, names[i], gp, ip, op, -1);
    }
}

static int json_unescape(const char *s, char *out, int cap) {   /* s points after the opening quote */
    int n = 0;
    while (*s && *s != '"' && n < cap) {
        if (*s == '\\') {
            s++;
            switch (*s) {
            case 'n': out[n++] = '\n'; break;
            case 't': out[n++] = '\t'; break;
            case '"': out[n++] = '"'; break;
            case '\\': out[n++] = '\\'; break;
            default: return -1;   /* not needed by the fixture */
            }
            s++;
        } else out[n++] = *s++;
    }
    return n;
}

static void test_stories(void) {
    const char *gp = lk_t_fixture("stories260K/stories260K-F32.gguf");
    const char *gr = lk_t_fixture("stories260K/greedy.txt");
    static const lk_token s1[] = {1, 403, 407, 261, 378, 432, 383, 286, 261, 376, 298, 315, 421, 395, 317, 426, 338, 401, 396, 267, 337};
    const char *text = "Once upon a time, there was a little girl named Lily. She loved to play";
    lk_vocab *v;
    lk_token toks[64];
    int n, i, ok;
    char buf[512];
    if (!gp) { lk_t_skip("tokenizer-stories260K", "fixtures absent"); return; }
    lk_t_begin("tokenizer-stories260K");
    v = load_vocab(gp, NULL);
    CHECK(v != NULL, "load");
    if (v) {
        CHECK(lk_vocab_get_type(v) == LK_VOCAB_SPM, "type");
        CHECK(lk_vocab_n_tokens(v) == 512, "n_tokens %d", lk_vocab_n_tokens(v));
        CHECK(lk_vocab_bos(v) == 1 && lk_vocab_eos(v) == 2 && lk_vocab_unk(v) == 0, "special ids");
        CHECK(lk_vocab_add_bos(v) == 1 && lk_vocab_add_eos(v) == 0, "add_bos/add_eos defaults");
        CHECK(lk_vocab_is_eog(v, 2) && !lk_vocab_is_eog(v, 1), "eog");
        n = lk_tokenize(v, text, (int)strlen(text), toks, 64, 1, 0);
        ok = n == 21;
        for (i = 0; ok && i < n; i++) ok = toks[i] == s1[i];
        CHECK(ok, "S1: got %d tokens (first %d)", n, n > 0 ? (int)toks[0] : -1);
        /* n_max too small: -(needed) */
        CHECK(lk_tokenize(v, text, (int)strlen(text), toks, 5, 1, 0) == -21, "short buffer");
        CHECK(lk_tokenize(v, text, (int)strlen(text), NULL, 0, 1, 0) == -21, "count only");
        /* detokenize: remove_special drops BOS, SPM drops the prefix space */
        /* llama_detokenize: removing the BOS also keeps the first piece's
         * leading space; without a BOS the first piece loses it */
        n = lk_detokenize(v, s1, 21, buf, sizeof buf, 1, 0);
        CHECK(n == (int)strlen(text) + 1 && buf[0] == ' ' && !memcmp(buf + 1, text, (size_t)n - 1), "detokenize S1: %d '%.*s'", n, n > 0 ? n : 0, buf);
        n = lk_detokenize(v, s1, 21, buf, sizeof buf, 0, 0);   /* BOS printed as "" and takes the lstrip */
        CHECK(n == (int)strlen(text) + 1 && buf[0] == ' ', "detokenize S1 keeping BOS: %d", n);
        n = lk_detokenize(v, s1 + 1, 20, buf, sizeof buf, 1, 0);
        CHECK(n == (int)strlen(text) && !memcmp(buf, text, (size_t)n), "detokenize S1 without BOS: %d '%.*s'", n, n > 0 ? n : 0, buf);
        n = lk_detokenize(v, s1 + 1, 20, buf, 10, 1, 0);
        CHECK(n == -(int)strlen(text), "detokenize short buffer %d", n);
        n = lk_token_to_piece(v, 403, buf, sizeof buf, 0);
        CHECK(n == 5 && !memcmp(buf, " Once", 5), "piece 403");
        CHECK(lk_token_to_piece(v, 1, buf, sizeof buf, 0) == 0, "BOS piece hidden");
        n = lk_token_to_piece(v, 1, buf, sizeof buf, 1);
        CHECK(n == 3 && !memcmp(buf, "<s>", 3), "BOS piece shown");
        CHECK(lk_token_to_piece(v, 403, buf, 2, 0) == -5, "piece short buffer");
        CHECK(lk_token_to_piece(v, 512, buf, sizeof buf, 0) == LK_TOKENIZE_ERROR, "piece bad id");
        CHECK(lk_token_to_piece(v, 3 + 'A', buf, sizeof buf, 0) == 1 && buf[0] == 'A', "byte token piece");
        /* pieces of llama.cpp's greedy continuation, concatenated (special = true) */
        if (gr) {
            size_t glen = 0;
            char *g = (char *)lk_t_read_file(gr, &glen), *p, *q;
            char *gz = (char *)malloc(glen + 1);
            memcpy(gz, g, glen); gz[glen] = 0;
            p = strstr(gz, "gen_ids: ");
            q = p ? strstr(p, "text: \"") : NULL;
            if (p && q) {
                lk_token ids[128];
                int ni = 0, tl, pl = 0;
                char exp[2048], got[2048];
                p += 9;
                while (*p && *p != '\n' && ni < 128) { ids[ni++] = (lk_token)strtol(p, &p, 10); while (*p == ' ') p++; }
                tl = json_unescape(q + 7, exp, sizeof exp);
                for (i = 0; i < ni; i++) {
                    int k = lk_token_to_piece(v, ids[i], got + pl, (int)sizeof got - pl, 1);
                    if (k < 0) break;
                    pl += k;
                }
                CHECK(ni == 100 && tl > 0 && pl == tl && !memcmp(got, exp, (size_t)tl), "greedy text pieces (%d ids, %d vs %d bytes)", ni, pl, tl);
            } else CHECK(0, "greedy.txt format");
            free(g); free(gz);
        }
        /* the same through an arena allocator (vocab and tokenize scratch) */
        {
            static unsigned char mem[1 << 20];
            lk_arena ar;
            lk_allocator al;
            lk_vocab_params vp = lk_vocab_default_params();
            lk_gguf *g = NULL;
            lk_vocab *va = NULL;
            lk_arena_init(&ar, mem, sizeof mem);
            al = lk_arena_allocator(&ar);
            vp.alloc = &al;
            CHECK_OK(lk_gguf_read_file(gp, NULL, &g));
            if (g) {
                CHECK_OK(lk_vocab_load(g, &vp, &va));
                lk_gguf_free(g);
                n = va ? lk_tokenize(va, text, (int)strlen(text), toks, 64, 1, 0) : -1;
                ok = n == 21;
                for (i = 0; ok && i < n; i++) ok = toks[i] == s1[i];
                CHECK(ok, "S1 through an arena: n=%d (arena used %zu)", n, ar.used);
                lk_vocab_free(va);
                /* an arena too small: a clean error */
                lk_arena_init(&ar, mem, 2000);
                CHECK_OK(lk_gguf_read_file(gp, NULL, &g));
                va = NULL;
                CHECK(lk_vocab_load(g, &vp, &va) == LK_ERR_NOMEM && va == NULL, "small arena");
                lk_gguf_free(g);
            }
        }
        /* round trips */
        {
            static const char *const texts[] = { "Hello world", " leading space", "two  spaces\tand\ttabs\n\nnewlines ",
                                                 "bytes \xe2\x82\xac \xf0\x9f\x98\x80 \xc3\xa9", "" };
            for (i = 0; i < 5; i++)
                CHECK(round_trip(v, texts[i], (int)strlen(texts[i]), 0), "round trip '%s'", texts[i]);
        }
        lk_vocab_free(v);
    }
    lk_t_end();
}

static void test_hostile(void) {
    static const char *const names[] = { "llama-spm", "gpt-2", "bert-bge", "falcon", "deepseek-coder" };
    int k;
    lk_t_begin("tokenizer-hostile");
    for (k = 0; k < 5; k++) {
        char rel[128];
        const char *gp;
        lk_vocab *v;
        unsigned char junk[3000];
        lk_token toks[8192];
        int i, n, n2;
        unsigned x = 12345u;
        snprintf(rel, sizeof rel, "tokenizer/ggml-vocab-%s.gguf", names[k]);
        gp = lk_t_fixture(rel);
        if (!gp) continue;
        v = load_vocab(gp, NULL);
        CHECK(v != NULL, "load %s", names[k]);
        if (!v) continue;
        /* invalid argument codes */
        CHECK(lk_tokenize(NULL, "a", 1, toks, 8, 0, 0) == LK_TOKENIZE_ERROR, "NULL vocab");
        CHECK(lk_tokenize(v, NULL, 1, toks, 8, 0, 0) == LK_TOKENIZE_ERROR, "NULL text");
        CHECK(lk_tokenize(v, "a", -1, toks, 8, 0, 0) == LK_TOKENIZE_ERROR, "negative len");
        CHECK(lk_tokenize(v, "a", 1, toks, -1, 0, 0) == LK_TOKENIZE_ERROR, "negative n_max");
        CHECK(lk_tokenize(v, "a", 1, NULL, 8, 0, 0) == LK_TOKENIZE_ERROR, "NULL tokens");
        CHECK(lk_tokenize(v, NULL, 0, NULL, 0, 0, 0) == 0, "empty");
        CHECK(lk_detokenize(v, toks, -1, NULL, 0, 0, 0) == LK_TOKENIZE_ERROR, "detok negative n");
        toks[0] = -5;
        CHECK(lk_detokenize(v, toks, 1, (char *)junk, 10, 0, 0) == LK_TOKENIZE_ERROR, "detok bad id");
        /* random bytes (invalid UTF-8, NULs, 0xF5.. sequences) */
        for (i = 0; i < 4; i++) {
            int j, len = 500 + 700 * i;
            for (j = 0; j < len; j++) { x = x * 1103515245u + 12345u; junk[j] = (unsigned char)(x >> 16); }
            if (i == 1) for (j = 0; j < len; j++) junk[j] = (unsigned char)(0x80 | junk[j]);
            if (i == 2) for (j = 0; j < len; j++) junk[j] = (unsigned char)(junk[j] % 3 == 0 ? 0 : junk[j] % 3 == 1 ? ' ' : 0xF4 + junk[j] % 4);
            n = lk_tokenize(v, (const char *)junk, len, toks, 8192, 1, 1);
            CHECK(n > 0, "%s junk %d: %d", names[k], i, n);
            n2 = lk_tokenize(v, (const char *)junk, len, toks, n - 1, 1, 1);
            CHECK(n2 == -n, "%s junk %d: short buffer %d vs %d", names[k], i, n2, n);
            n2 = lk_tokenize(v, (const char *)junk, len, toks, 0, 1, 1);
            CHECK(n2 == -n, "%s junk %d: zero buffer", names[k], i);
            n2 = lk_tokenize(v, (const char *)junk, len, toks, 2147483647, 1, 1);
            CHECK(n2 == n, "%s junk %d: huge n_max", names[k], i);
            if (n > 0) {
                char out[20000];
                CHECK(lk_detokenize(v, toks, n, out, sizeof out, 0, 1) >= 0, "%s junk %d: detokenize", names[k], i);
            }
            if (lk_vocab_get_type(v) == LK_VOCAB_SPM && i == 0)   /* SPM keeps every byte */
                CHECK(round_trip(v, (const char *)junk, len, 0), "%s junk round trip", names[k]);
        }
        /* embedded NUL via text_len: "a\0b" is three bytes of text */
        n = lk_tokenize(v, "a\0b", 3, toks, 16, 0, 0);
        n2 = lk_tokenize(v, "a", 1, toks, 16, 0, 0);
        if (lk_vocab_get_type(v) == LK_VOCAB_WPM) {   /* WPM drops U+0000 like llama.cpp: same as "ab" */
            lk_token t2[16], t3[16];
            int n3 = lk_tokenize(v, "ab", 2, t2, 16, 0, 0);
            n = lk_tokenize(v, "a\0b", 3, t3, 16, 0, 0);
            CHECK(n == n3 && !memcmp(t3, t2, sizeof(lk_token) * (size_t)(n > 0 ? n : 0)), "%s: NUL in WPM", names[k]);
        } else CHECK(n > n2, "%s: embedded NUL ignored (%d vs %d)", names[k], n, n2);
        lk_vocab_free(v);
    }
    lk_t_end();
}

/* write a GGUF with a small SPM vocab plus `mutate`'s change, then load it */
static lk_status load_bad(int mutate, char *msg, size_t msgcap) {
    lk_gguf_writer *w = NULL;
    lk_gguf *g = NULL;
    lk_vocab *v = NULL;
    const char *toks[6] = { "<unk>", "<s>", "</s>", "\xe2\x96\x81" "a", "b", "c" };
    float scores[6] = { 0, 0, 0, -1, -2, -3 };
    int32_t types[6] = { 2, 3, 3, 1, 1, 1 };
    uint8_t types8[6] = { 2, 3, 3, 1, 1, 1 };
    unsigned char *buf = NULL;
    uint64_t size;
    lk_status st;
    CHECK_OK(lk_gguf_writer_new(NULL, &w));
    lk_gguf_writer_add_str(w, "general.architecture", "llama");
    lk_gguf_writer_add_str(w, "tokenizer.ggml.model", mutate == 1 ? "t5" : "llama");
    if (mutate == 2) lk_gguf_writer_add_u32(w, "tokenizer.ggml.tokens", 6);
    else if (mutate != 3) lk_gguf_writer_add_arr_str(w, "tokenizer.ggml.tokens", toks, 6);
    if (mutate == 4) lk_gguf_writer_add_arr(w, "tokenizer.ggml.scores", LK_GGUF_FLOAT32, scores, 5);
    else if (mutate == 5) lk_gguf_writer_add_arr(w, "tokenizer.ggml.scores", LK_GGUF_INT32, types, 6);
    else lk_gguf_writer_add_arr(w, "tokenizer.ggml.scores", LK_GGUF_FLOAT32, scores, 6);
    if (mutate == 6) lk_gguf_writer_add_arr(w, "tokenizer.ggml.token_type", LK_GGUF_UINT8, types8, 6);
    else lk_gguf_writer_add_arr(w, "tokenizer.ggml.token_type", LK_GGUF_INT32, types, 6);
    if (mutate == 7) lk_gguf_writer_add_u32(w, "tokenizer.ggml.bos_token_id", 6);
    if (mutate == 8) lk_gguf_writer_add_i32(w, "tokenizer.ggml.eos_token_id", -7);
    if (mutate == 9) lk_gguf_writer_add_str(w, "tokenizer.ggml.unknown_token_id", "0");
    if (mutate == 10) lk_gguf_writer_add_str(w, "tokenizer.ggml.add_bos_token", "yes");
    if (mutate == 12) lk_gguf_writer_add_i32(w, "tokenizer.ggml.seperator_token_id", -1);   /* "none" */
    if (mutate == 11) lk_gguf_writer_add_u32(w, "tokenizer.ggml.padding_token_id", 4000000000u);
    size = lk_gguf_writer_size(w);
    buf = (unsigned char *)malloc((size_t)size);
    CHECK_OK(lk_gguf_writer_write_memory(w, buf, (size_t)size));
    lk_gguf_writer_free(w);
    CHECK_OK(lk_gguf_read_memory(buf, (size_t)size, NULL, &g));
    st = g ? lk_vocab_load(g, NULL, &v) : LK_ERR_IO;
    snprintf(msg, msgcap, "%s", lk_last_error());
    if (st == LK_OK) {   /* the good file: check it tokenizes */
        /* "ab" -> BOS, "\u2581a", "b"; "a b" -> the lone U+2581 has no byte tokens: 3 x unk */
        lk_token t[8];
        int n = lk_tokenize(v, "ab", 2, t, 8, 1, 0);
        CHECK(n == 3 && t[0] == 1 && t[1] == 3 && t[2] == 4, "tiny vocab tokenize: n=%d", n);
        n = lk_tokenize(v, "a b", 3, t, 8, 0, 0);
        CHECK(n == 5 && t[0] == 3 && t[1] == 0 && t[2] == 0 && t[3] == 0 && t[4] == 4, "tiny vocab unk fallback: n=%d", n);
        CHECK(v == NULL || lk_vocab_n_tokens(v) == 6, "tiny n_tokens");
    }
    lk_vocab_free(v);
    lk_gguf_free(g);
    free(buf);
    return st;
}

static void test_bad_metadata(void) {
    static const struct { int mutate; lk_status want; } cases[] = {
        { 0, LK_OK }, { 1, LK_ERR_UNSUPPORTED }, { 2, LK_ERR_TYPE }, { 3, LK_ERR_NOT_FOUND }, { 4, LK_ERR_FORMAT },
        { 5, LK_ERR_TYPE }, { 6, LK_ERR_TYPE }, { 7, LK_ERR_RANGE }, { 8, LK_ERR_RANGE }, { 9, LK_ERR_TYPE },
        { 10, LK_ERR_TYPE }, { 11, LK_ERR_RANGE }, { 12, LK_OK },
    };
    size_t i;
    char msg[512];
    lk_t_begin("tokenizer-bad-metadata");
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        lk_status st = load_bad(cases[i].mutate, msg, sizeof msg);
        CHECK(st == cases[i].want, "case %d: got %s (%s), want %s", cases[i].mutate, lk_status_str(st), msg,
              lk_status_str(cases[i].want));
        if (st != LK_OK && i < 4) printf("  case %d: %s\n", cases[i].mutate, msg);
    }
    {   /* missing merges for gpt2 and a NULL gguf */
        lk_gguf_writer *w = NULL;
        lk_gguf *g = NULL;
        lk_vocab *v = NULL;
        const char *toks[2] = { "a", "b" };
        unsigned char *buf;
        uint64_t size;
        lk_gguf_writer_new(NULL, &w);
        lk_gguf_writer_add_str(w, "tokenizer.ggml.model", "gpt2");
        lk_gguf_writer_add_arr_str(w, "tokenizer.ggml.tokens", toks, 2);
        size = lk_gguf_writer_size(w);
        buf = (unsigned char *)malloc((size_t)size);
        lk_gguf_writer_write_memory(w, buf, (size_t)size);
        lk_gguf_writer_free(w);
        lk_gguf_read_memory(buf, (size_t)size, NULL, &g);
        CHECK(lk_vocab_load(g, NULL, &v) == LK_ERR_NOT_FOUND && v == NULL, "gpt2 without merges");
        lk_gguf_free(g);
        free(buf);
        CHECK(lk_vocab_load(NULL, NULL, &v) == LK_ERR_INVALID_ARG, "NULL gguf");
    }
    lk_t_end();
}

static void test_special(void) {
    /* parse_special and add_special on the llama-spm and bert vocabs */
    const char *gp = lk_t_fixture("tokenizer/ggml-vocab-llama-spm.gguf");
    const char *bp = lk_t_fixture("tokenizer/ggml-vocab-bert-bge.gguf");
    lk_vocab *v;
    lk_token t[64];
    int n;
    if (!gp || !bp) { lk_t_skip("tokenizer-special", "fixtures absent"); return; }
    lk_t_begin("tokenizer-special");
    v = load_vocab(gp, NULL);
    if (v) {
        /* "<s>" as text vs as a control token */
        n = lk_tokenize(v, "<s>Hi</s>", 9, t, 64, 0, 1);
        CHECK(n >= 3 && t[0] == 1 && t[n - 1] == 2, "parse_special: n=%d t0=%d", n, n > 0 ? (int)t[0] : -1);
        n = lk_tokenize(v, "<s>Hi</s>", 9, t, 64, 0, 0);
        CHECK(n > 3 && t[0] != 1, "no parse_special: n=%d", n);
        n = lk_tokenize(v, "Hi", 2, t, 64, 1, 0);
        CHECK(n == 2 && t[0] == 1, "add_special adds BOS");
        CHECK(lk_vocab_nl(v) == 13, "nl %d", (int)lk_vocab_nl(v));
        lk_vocab_free(v);
    }
    v = load_vocab(bp, NULL);
    if (v) {
        n = lk_tokenize(v, "hello", 5, t, 64, 1, 0);
        CHECK(n == 3 && t[0] == 101 && t[2] == 102, "WPM CLS/SEP: n=%d", n);
        lk_vocab_free(v);
    }
    lk_t_end();
}

/* Pre-tokenizer word splits against tests/data/pretok_cases.txt, made by
 * tools/gen_pretok_cases.py with Python's regex engine (see there). Calls
 * the private splitter directly. */
static void test_pretok_cases(void) {
    static const struct { const char *name; int pre; } pres[] = {
        { "default", LK__PRE_DEFAULT }, { "llama3", LK__PRE_LLAMA3 }, { "deepseek-coder", LK__PRE_DEEPSEEK_CODER },
        { "falcon", LK__PRE_FALCON }, { "gpt2", LK__PRE_GPT2 }, { "starcoder", LK__PRE_STARCODER },
        { "qwen2", LK__PRE_QWEN2 }, { "poro", LK__PRE_PORO }, { "viking", LK__PRE_VIKING },
        { "deepseek-llm", LK__PRE_DEEPSEEK_LLM }, { "deepseek-v3", LK__PRE_DEEPSEEK3 },
        { "chameleon", LK__PRE_CHAMELEON }, { "tekken", LK__PRE_TEKKEN },
    };
    enum { NPRE = sizeof pres / sizeof pres[0] };
    size_t flen = 0, pos = 0;
    unsigned char *f = lk_t_read_file("tests/data/pretok_cases.txt", &flen);
    int npass[NPRE] = {0}, ncase[NPRE] = {0}, k;
    if (!f) { lk_t_skip("tokenizer-pretok-splits", "tests/data/pretok_cases.txt absent (run from the repo root)"); return; }
    lk_t_begin("tokenizer-pretok-splits");
    while (pos < flen) {
        char name[32], hex[1024], lens[512];
        unsigned char text[512];
        uint32_t cps[512];
        unsigned short fl[512];
        unsigned char x[512];
        int sa[512], sb[512], *seg = sa, *nseg = sb, exp[512], nexp = 0, m = 0, tl = 0, nsg, i, pi = -1, ok;
        size_t eol = pos, off = 0;
        char *p;
        while (eol < flen && f[eol] != '\n') eol++;
        if (sscanf((const char *)f + pos, "%31s %1023s %511s", name, hex, lens) != 3) break;
        pos = eol + 1;
        for (i = 0; i < NPRE; i++) if (!strcmp(pres[i].name, name)) pi = i;
        if (pi < 0) { CHECK(0, "unknown pre %s", name); continue; }
        for (i = 0; hex[2 * i] && hex[2 * i + 1]; i++) {
            unsigned v; sscanf(hex + 2 * i, "%2x", &v); text[tl++] = (unsigned char)v;
        }
        for (p = lens; *p;) { exp[nexp++] = (int)strtol(p, &p, 10); if (*p == ',') p++; }
        while (off < (size_t)tl) {
            uint32_t c = lk__utf8_next(text, (size_t)tl, &off);
            int fg = lk__uflags(c);
            cps[m] = c; fl[m] = (unsigned short)fg; x[m] = lk__collapse(c, fg); m++;
        }
        nsg = lk__pre_split(pres[pi].pre, cps, fl, x, m, &seg, &nseg);
        ok = nsg == nexp;
        for (i = 0; ok && i < nsg; i++) ok = seg[i] == exp[i];
        ncase[pi]++;
        if (ok) npass[pi]++;
        else if (ncase[pi] - npass[pi] <= 3) {
            printf("  %s '%s': got", name, hex);
            for (i = 0; i < nsg; i++) printf(" %d", seg[i]);
            printf(", want %s\n", lens);
        }
    }
    for (k = 0; k < NPRE; k++) {
        printf("  pre %s: %d/%d splits match\n", pres[k].name, npass[k], ncase[k]);
        CHECK(ncase[k] > 0 && npass[k] == ncase[k], "pre %s: %d/%d", pres[k].name, npass[k], ncase[k]);
    }
    free(f);
    lk_t_end();
}

/* Every pre-tokenizer's split is a partition: word lengths > 0 summing to
 * the text's length, on random codepoint strings (ASan/UBSan watch the rest). */
static void test_pretok_partition(void) {
    static const uint32_t alpha[] = { 'a', 'Z', '0', '7', '\'', 's', 'T', ' ', '\t', '\n', '\r', '.', '/', '$', 0xA0, 0x3000,
                                      0x301, 0x308, 0x4E2D, 0xAC00, 0x3042, 0x3105, 0xE40, 0x663, 0x1F600, 0x200D, 0xFFFD, 0x85 };
    uint32_t cps[300];
    unsigned short fl[300];
    unsigned char x[300];
    int sa[300], sb[300], pre, it, bad = 0;
    unsigned r = 12345;
    lk_t_begin("tokenizer-pretok-partition");
    for (pre = 0; pre < LK__PRE_COUNT; pre++)
        for (it = 0; it < 300; it++) {
            int m = 1 + (int)((r = r * 1103515245u + 12345u) >> 16) % 299, i, nsg, sum = 0, *seg = sa, *nseg = sb;
            for (i = 0; i < m; i++) {
                int f;
                r = r * 1103515245u + 12345u;
                cps[i] = alpha[(r >> 16) % (sizeof alpha / sizeof alpha[0])];
                if (((r >> 8) & 7) == 0) cps[i] = ' ';   /* long runs of spaces now and then */
                f = lk__uflags(cps[i]);
                fl[i] = (unsigned short)f; x[i] = lk__collapse(cps[i], f);
            }
            nsg = lk__pre_split(pre, cps, fl, x, m, &seg, &nseg);
            for (i = 0; i < nsg; i++) { if (seg[i] <= 0) bad++; sum += seg[i]; }
            if (sum != m || nsg < 1 || nsg > m) bad++;
        }
    CHECK(bad == 0, "%d bad splits over %d pre-tokenizers", bad, LK__PRE_COUNT);
    lk_t_end();
}

/* The tree's vocabulary `base` (models/ggml-vocab-BASE.gguf, read once into
 * *g) with tokenizer.ggml.model = gpt2 and tokenizer.ggml.pre = pre, rebuilt
 * in memory as tools/gen_pretok_llamacpp.py wrote it for llama-tokenize. */
static lk_vocab *vocab_with_pre(const lk_gguf *g, const char *pre) {
    lk_gguf_writer *w = NULL;
    lk_gguf *g2 = NULL;
    lk_vocab *v = NULL;
    unsigned char *buf = NULL;
    uint64_t k, size;
    if (lk_gguf_writer_new(NULL, &w)) return NULL;
    for (k = 0; k < g->n_kv; k++) {
        char key[256];
        lk_str ks = g->kv[k].key;
        if (ks.len >= sizeof key || lk_str_eq(ks, "tokenizer.ggml.pre") || lk_str_eq(ks, "tokenizer.ggml.model") ||
            lk_str_eq(ks, "general.alignment")) continue;
        memcpy(key, ks.ptr, ks.len); key[ks.len] = 0;
        if (lk_gguf_writer_add_value(w, key, &g->kv[k].value)) goto done;
    }
    if (lk_gguf_writer_add_str(w, "tokenizer.ggml.model", "gpt2") || lk_gguf_writer_add_str(w, "tokenizer.ggml.pre", pre)) goto done;
    size = lk_gguf_writer_size(w);
    buf = (unsigned char *)malloc((size_t)size);
    if (!buf || lk_gguf_writer_write_memory(w, buf, (size_t)size) || lk_gguf_read_memory(buf, (size_t)size, NULL, &g2)) goto done;
    if (lk_vocab_load(g2, NULL, &v)) printf("  pre %s: %s\n", pre, lk_last_error());
done:
    lk_gguf_free(g2); free(buf); lk_gguf_writer_free(w);
    return v;
}

/* Every pre-tokenizer name against llama.cpp's llama-tokenize:
 * tests/data/pretok_llamacpp.txt, made by tools/gen_pretok_llamacpp.py on
 * vocab-only GGUFs of the tree's vocabularies with each name as
 * tokenizer.ggml.pre (BOS as the vocabulary says, specials not parsed). */
static void test_pretok_llamacpp(void) {
    enum { MAXT = 64 };
    const char *c = getenv("LLMKIT_CACHE"), *home = getenv("HOME");
    char dir[1024], path[1200], cur_pre[64] = "", cur_base[32] = "";
    unsigned char *f, *texts[MAXT] = {0};
    int tlen[MAXT] = {0}, npre = 0, npass = 0, ncase = 0, pre_bad = 0, nbadpre = 0, nsplit = 0, nsplit_ok = 0;
    char split_bad[64] = "";
    int nabort = 0;
    size_t flen = 0, pos = 0;
    lk_gguf *bases[2] = {NULL, NULL};
    static const char *const base_names[2] = { "gpt-2", "gemma-4" };
    lk_vocab *v = NULL;
    lk_token *got = (lk_token *)malloc(sizeof(lk_token) * 8192), *exp = (lk_token *)malloc(sizeof(lk_token) * 8192);
    if (c && *c) snprintf(dir, sizeof dir, "%s/llama.cpp-0c1e570/models", c);
    else snprintf(dir, sizeof dir, "%s/.cache/llmkit/llama.cpp-0c1e570/models", home ? home : ".");
    f = lk_t_read_file("tests/data/pretok_llamacpp.txt", &flen);
    if (!f) { lk_t_skip("tokenizer-pretok-llamacpp", "tests/data/pretok_llamacpp.txt absent (run from the repo root)"); free(got); free(exp); return; }
    snprintf(path, sizeof path, "%s/ggml-vocab-gpt-2.gguf", dir);
    if (lk_gguf_read_file(path, NULL, &bases[0])) {
        printf("SKIP tokenizer-pretok-llamacpp: %s is absent (tools/llamacpp.sh --tree unpacks it)\n", path);
        free(f); free(got); free(exp); return;
    }
    snprintf(path, sizeof path, "%s/ggml-vocab-gemma-4.gguf", dir);
    lk_t_begin("tokenizer-pretok-llamacpp");
    CHECK_OK(lk_gguf_read_file(path, NULL, &bases[1]));
    while (pos < flen && got && exp) {
        size_t eol = pos;
        char *line, *p, pre[64], base[32];
        int idx, n, nexp = 0, ngot, i, ok;
        while (eol < flen && f[eol] != '\n') eol++;
        line = (char *)f + pos;
        f[eol] = 0;
        pos = eol + 1;
        if (line[0] == 'T' && sscanf(line, "T %d %n", &idx, &n) == 1 && idx >= 0 && idx < MAXT) {
            size_t hl = strlen(line + n), k;
            texts[idx] = (unsigned char *)malloc(hl / 2 + 1);
            for (k = 0; texts[idx] && k + 1 < hl; k += 2) {
                unsigned hv; sscanf(line + n + k, "%2x", &hv); texts[idx][k / 2] = (unsigned char)hv;
            }
            tlen[idx] = (int)(hl / 2);
            continue;
        }
        if (line[0] == 'W' && sscanf(line, "W %63s %d %n", pre, &idx, &n) == 2 && idx >= 0 && idx < MAXT && texts[idx]) {
            /* llama.cpp's word splits (unicode_regex_split): lk__pre_split of the name's pre-tokenizer */
            size_t k, off = 0;
            int m = 0, ne = 0, nsg, ok2, *seg, *nseg, *sa = (int *)malloc(sizeof(int) * (size_t)(tlen[idx] + 1) * 4);
            uint32_t *cps = (uint32_t *)(sa ? sa + 2 * (tlen[idx] + 1) : NULL);
            unsigned short *fls = (unsigned short *)malloc(sizeof(unsigned short) * (size_t)(tlen[idx] + 1));
            unsigned char *xs = (unsigned char *)malloc((size_t)tlen[idx] + 1);
            for (k = 0; k < sizeof lk__pre_names / sizeof lk__pre_names[0] && strcmp(lk__pre_names[k].name, pre); k++) {}
            CHECK(k < sizeof lk__pre_names / sizeof lk__pre_names[0], "W: unknown pre %s", pre);
            if (k < sizeof lk__pre_names / sizeof lk__pre_names[0] && sa && fls && xs) {
                seg = sa; nseg = sa + (tlen[idx] + 1);
                while (off < (size_t)tlen[idx]) {
                    uint32_t cc = lk__utf8_next(texts[idx], (size_t)tlen[idx], &off);
                    int fg = lk__uflags(cc);
                    cps[m] = cc; fls[m] = (unsigned short)fg; xs[m] = lk__collapse(cc, fg); m++;
                }
                nsg = m ? lk__pre_split(lk__pre_names[k].pre, cps, fls, xs, m, &seg, &nseg) : 0;
                ok2 = 1;
                for (p = line + n; *p && *p != '-';) {
                    int e = (int)strtol(p, &p, 10);
                    if (ne >= nsg || seg[ne] != e) ok2 = 0;
                    ne++;
                    if (*p == ',') p++; else break;
                }
                ok2 = ok2 && ne == nsg;
                nsplit++;
                if (ok2) nsplit_ok++;
                else if (strcmp(split_bad, pre)) {
                    snprintf(split_bad, sizeof split_bad, "%s", pre);
                    printf("  pre %s text %d: %d words, llama.cpp %d:", pre, idx, nsg, ne);
                    for (k = 0; k < (size_t)nsg && k < 16; k++) printf(" %d", seg[k]);
                    printf(" / %.60s\n", line + n);
                }
            }
            free(sa); free(fls); free(xs);
            continue;
        }
        if (line[0] == 'X') { nabort++; continue; }   /* llama-tokenize aborted on this one */
        if (line[0] != 'V' || sscanf(line, "V %63s %31s %d %n", pre, base, &idx, &n) != 3 || idx < 0 || idx >= MAXT || !texts[idx]) continue;
        if (strcmp(pre, cur_pre) || strcmp(base, cur_base)) {   /* next name: rebuild its vocabulary */
            if (pre_bad) nbadpre++;
            lk_vocab_free(v);
            v = vocab_with_pre(bases[strcmp(base, base_names[1]) == 0], pre);
            CHECK(v != NULL, "pre %s: no vocabulary", pre);
            snprintf(cur_pre, sizeof cur_pre, "%s", pre); snprintf(cur_base, sizeof cur_base, "%s", base);
            npre++; pre_bad = 0;
        }
        for (p = line + n; *p && *p != '-' && nexp < 8192;) { exp[nexp++] = (lk_token)strtol(p, &p, 10); if (*p == ',') p++; else break; }
        if (!v) continue;
        ngot = lk_tokenize(v, (const char *)texts[idx], tlen[idx], got, 8192, 1, 0);
        ok = ngot == nexp;
        for (i = 0; ok && i < ngot; i++) ok = got[i] == exp[i];
        ncase++;
        if (ok) npass++;
        else if (!pre_bad++) {
            int j = 0;
            while (j < ngot && j < nexp && got[j] == exp[j]) j++;
            printf("  pre %s text %d: %d tokens, llama.cpp %d; first difference at %d (%d vs %d)\n", pre, idx, ngot, nexp, j,
                   j < ngot ? (int)got[j] : -1, j < nexp ? (int)exp[j] : -1);
        }
    }
    if (pre_bad) nbadpre++;
    printf("  %d/%d word splits are llama.cpp's; %d pre-tokenizer names, %d/%d texts give llama.cpp's ids (%d names differ;"
           " %d where llama-tokenize aborts)\n", nsplit_ok, nsplit, npre, npass, ncase, nbadpre, nabort);
    CHECK(nsplit > 0 && nsplit_ok == nsplit, "%d/%d word splits", nsplit_ok, nsplit);
    CHECK(npre >= 91 && ncase > 0 && npass == ncase, "%d/%d texts, %d names", npass, ncase, npre);
    lk_vocab_free(v);
    for (pos = 0; pos < MAXT; pos++) free(texts[pos]);
    lk_gguf_free(bases[0]); lk_gguf_free(bases[1]);
    free(f); free(got); free(exp);
    lk_t_end();
}

int main(void) {
    static const char *const names[] = { "llama-spm", "phi-3", "gpt-2", "deepseek-coder", "falcon", "mpt", "bert-bge" };
    size_t i;
    for (i = 0; i < sizeof names / sizeof names[0]; i++) test_vocab_vectors(names[i]);
    test_tree_vectors();
    test_pretok_cases();
    test_pretok_llamacpp();
    test_pretok_partition();
    test_stories();
    test_special();
    test_hostile();
    test_bad_metadata();
    return lk_t_exit();
}
