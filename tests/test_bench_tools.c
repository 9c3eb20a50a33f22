/* test_bench_tools.c - tools/synth writes a model our loader accepts and
 * runs, with the tensor types of llama-quantize's default mix and the SPM
 * vocabulary it documents; tools/bench runs on it and prints valid JSON with
 * llama-bench's fields. Runs build/synth and build/bench (made by `make`,
 * which `make test` runs first); skips when they are absent. */
#define _POSIX_C_SOURCE 200809L   /* popen, getpid */
#define LLMKIT_IMPLEMENTATION
#include "llmkit.h"
#include "tests/lk_test.h"
#include <math.h>
#include <unistd.h>

/* ---- a minimal JSON validator (RFC 8259 grammar, no semantics) ----------- */
typedef struct jp { const char *s; int depth; } jp;
static void j_ws(jp *p) { while (*p->s == ' ' || *p->s == '\t' || *p->s == '\n' || *p->s == '\r') p->s++; }
static int j_value(jp *p);
static int j_string(jp *p) {
    if (*p->s != '"') return 0;
    for (p->s++; *p->s != '"'; p->s++) {
        if ((unsigned char)*p->s < 0x20) return 0;
        if (*p->s == '\\') {
            p->s++;
            if (*p->s == 'u') { int k; for (k = 1; k <= 4; k++) if (!strchr("0123456789abcdefABCDEF", p->s[k]) || !p->s[k]) return 0; p->s += 4; }
            else if (!*p->s || !strchr("\"\\/bfnrt", *p->s)) return 0;
        }
    }
    p->s++;
    return 1;
}
static int j_number(jp *p) {
    const char *s = p->s;
    if (*s == '-') s++;
    if (*s == '0') s++; else if (*s >= '1' && *s <= '9') while (*s >= '0' && *s <= '9') s++; else return 0;
    if (*s == '.') { s++; if (!(*s >= '0' && *s <= '9')) return 0; while (*s >= '0' && *s <= '9') s++; }
    if (*s == 'e' || *s == 'E') { s++; if (*s == '+' || *s == '-') s++; if (!(*s >= '0' && *s <= '9')) return 0; while (*s >= '0' && *s <= '9') s++; }
    p->s = s;
    return 1;
}
static int j_value(jp *p) {
    int ok = 1;
    j_ws(p);
    if (++p->depth > 64) return 0;
    if (*p->s == '{' || *p->s == '[') {
        char close = *p->s == '{' ? '}' : ']';
        int obj = close == '}';
        p->s++; j_ws(p);
        if (*p->s == close) p->s++;
        else for (;;) {
            if (obj) { j_ws(p); if (!j_string(p)) return 0; j_ws(p); if (*p->s++ != ':') return 0; }
            if (!j_value(p)) return 0;
            j_ws(p);
            if (*p->s == ',') { p->s++; continue; }
            if (*p->s++ != close) return 0;
            break;
        }
    } else if (*p->s == '"') ok = j_string(p);
    else if (!strncmp(p->s, "true", 4)) p->s += 4;
    else if (!strncmp(p->s, "false", 5)) p->s += 5;
    else if (!strncmp(p->s, "null", 4)) p->s += 4;
    else ok = j_number(p);
    p->depth--;
    return ok;
}
static int json_valid(const char *s) {
    jp p;
    p.s = s; p.depth = 0;
    if (!j_value(&p)) return 0;
    j_ws(&p);
    return *p.s == 0;
}
/* number after the n-th (0-based) occurrence of "key": (-1 if absent) */
static double json_num(const char *s, const char *key, int nth) {
    char pat[64];
    const char *q = s;
    snprintf(pat, sizeof pat, "\"%s\":", key);
    for (;;) {
        q = strstr(q, pat);
        if (!q) return -1;
        if (nth-- == 0) return atof(q + strlen(pat));
        q += strlen(pat);
    }
}
static char *run_capture(const char *cmd) {
    FILE *f = popen(cmd, "r");
    size_t n = 0, cap = 4096;
    char *b;
    int rc;
    if (!f) return NULL;
    b = (char *)malloc(cap);
    while (b) {
        size_t r = fread(b + n, 1, cap - n - 1, f);
        n += r;
        if (r == 0) break;
        if (cap - n < 1024) { char *nb = (char *)realloc(b, cap * 2); if (!nb) { free(b); b = NULL; break; } b = nb; cap *= 2; }
    }
    rc = pclose(f);
    if (b) b[n] = 0;
    if (rc != 0) { free(b); return NULL; }
    return b;
}
static int file_exists(const char *p) { FILE *f = fopen(p, "rb"); if (f) fclose(f); return f != NULL; }

static int tensor_type(const lk_gguf *g, const char *name) {
    int64_t i = lk_gguf_find_tensor(g, name);
    return i < 0 ? -1 : (int)g->tensors[i].type;
}

int main(void) {
    char path[256], path2[256], cmd[1024];
    lk_model *m = NULL;
    int have = file_exists("build/synth") && file_exists("build/bench");
    (void)&lk_t_read_file;
    snprintf(path, sizeof path, "/tmp/lk_test_synth_%d.gguf", (int)getpid());
    snprintf(path2, sizeof path2, "/tmp/lk_test_synth_%d_t1.gguf", (int)getpid());

    if (!have) {
        lk_t_skip("synth-tiny-loads-and-runs", "build/synth or build/bench absent (run make)");
        lk_t_skip("bench-json", "build/synth or build/bench absent (run make)");
        return lk_t_exit();
    }

    lk_t_begin("synth-tiny-loads-and-runs");
    snprintf(cmd, sizeof cmd, "build/synth --preset tiny --type Q4_0 -q -t 2 -o %s", path);
    CHECK(system(cmd) == 0, "%s failed", cmd);
    /* the file must not depend on the thread count */
    snprintf(cmd, sizeof cmd, "build/synth --preset tiny --type Q4_0 -q -t 1 -o %s && cmp -s %s %s", path2, path, path2);
    CHECK(system(cmd) == 0, "synth -t 1 and -t 2 wrote different files");
    remove(path2);
    CHECK_OK(lk_model_load_file(path, NULL, &m));
    if (m) {
        const lk_hparams *hp = lk_model_hparams(m);
        const lk_gguf *g = lk_model_gguf(m);
        const lk_vocab *v = lk_model_vocab(m);
        lk_context *c = NULL;
        lk_context_params cp = lk_context_default_params();
        lk_token toks[8] = { 1, 259, 261, 300, 400, 511, 3, 100 }, ids[8];
        int i, t, n;
        char piece[32];
        /* the preset: 256 / 512 / 2 layers / 4 heads / 2 kv heads / vocab 512 */
        CHECK(hp->arch == LK_ARCH_LLAMA && hp->n_embd == 256 && hp->n_ff == 512 && hp->n_layer == 2 && hp->n_head == 4 &&
              hp->n_head_kv == 2 && lk_model_n_vocab(m) == 512, "hparams differ from the tiny preset");
        /* llama-quantize's Q4_0 mix: output.weight Q6_K, other 2-D weights Q4_0, norms F32 */
        CHECK(tensor_type(g, "output.weight") == LK_TYPE_Q6_K, "output.weight: %d", tensor_type(g, "output.weight"));
        CHECK(tensor_type(g, "token_embd.weight") == LK_TYPE_Q4_0, "token_embd");
        CHECK(tensor_type(g, "blk.1.ffn_down.weight") == LK_TYPE_Q4_0, "ffn_down");
        CHECK(tensor_type(g, "blk.0.attn_norm.weight") == LK_TYPE_F32, "attn_norm");
        /* weights N(0, 0.02): sample mean and standard deviation of a dequantized matrix (65536 values) */
        {
            lk_tensor w;
            double s = 0, s2 = 0, mean, sd;
            float row[256];
            int64_t r, k, nrow;
            CHECK_OK(lk_gguf_tensor_view(g, lk_gguf_find_tensor(g, "blk.0.attn_q.weight"), &w));
            nrow = lk_tensor_nrows(&w);
            for (r = 0; r < nrow; r++) {
                lk_dequantize_row(w.type, (const unsigned char *)w.data + r * (int64_t)lk_tensor_row_size(&w), row, 256);
                for (k = 0; k < 256; k++) { s += row[k]; s2 += (double)row[k] * row[k]; }
            }
            mean = s / (double)(nrow * 256); sd = sqrt(s2 / (double)(nrow * 256) - mean * mean);
            CHECK(fabs(mean) < 0.001 && fabs(sd - 0.02) < 0.002, "attn_q: mean %d e-6, sd %d e-6", (int)(mean * 1e6), (int)(sd * 1e6));
            CHECK_OK(lk_gguf_tensor_view(g, lk_gguf_find_tensor(g, "output_norm.weight"), &w));
            for (k = 0; k < 256; k++) if (((const float *)w.data)[k] != 1.0f) break;
            CHECK(k == 256, "output_norm.weight is not all ones");
        }
        /* the documented vocabulary: <unk> <s> </s>, <0x00>.., then "▁a", "a", "▁b", ... */
        CHECK(v != NULL, "no vocabulary");
        if (v) {
            CHECK(!strcmp(lk_vocab_token_text(v, 0), "<unk>") && !strcmp(lk_vocab_token_text(v, 2), "</s>") &&
                  !strcmp(lk_vocab_token_text(v, 3), "<0x00>") && !strcmp(lk_vocab_token_text(v, 258), "<0xFF>") &&
                  !strcmp(lk_vocab_token_text(v, 259), "\xe2\x96\x81" "a") && !strcmp(lk_vocab_token_text(v, 260), "a") &&
                  !strcmp(lk_vocab_token_text(v, 309), "\xe2\x96\x81" "z") && !strcmp(lk_vocab_token_text(v, 311), "\xe2\x96\x81" "aa"),
                  "token texts differ from the documented scheme");
            CHECK(lk_vocab_bos(v) == 1 && lk_vocab_eos(v) == 2, "bos/eos");
            n = lk_tokenize(v, "a b", 3, ids, 8, 1, 0);   /* BOS "▁a" "▁b" */
            CHECK(n == 3 && ids[0] == 1 && ids[1] == 259 && ids[2] == 261, "tokenize \"a b\": n=%d", n);
            n = lk_token_to_piece(v, 13, piece, (int)sizeof piece, 0);   /* <0x0A> */
            CHECK(n == 1 && piece[0] == '\n', "byte token <0x0A>");
        }
        /* a few tokens: prefill, then single-token decodes; logits finite */
        cp.n_ctx = 64; cp.n_threads = 1;
        CHECK_OK(lk_context_new(m, &cp, &c));
        if (c) {
            CHECK_OK(lk_decode(c, toks, 4));
            for (i = 4; i < 8; i++) CHECK_OK(lk_decode(c, &toks[i], 1));
            CHECK(lk_context_n_past(c) == 8, "n_past %d", lk_context_n_past(c));
            {
                const float *lg = lk_logits(c, -1);
                int bad = 0;
                CHECK(lg != NULL, "no logits");
                for (t = 0; lg && t < 512; t++) if (!(fabsf(lg[t]) < 1e6f)) bad++;
                CHECK(bad == 0, "%d non-finite logits", bad);
            }
            lk_context_free(c);
        }
        lk_model_free(m);
    }
    lk_t_end();

    /* An F16 model with an output head of 10 MB (256 x 20000): the load-time
     * repack into interleaved rows (where the build has the kernel) copies it
     * in two slices; its logits must equal those of the file's row layout
     * (repack -1, other kernels) bit for bit, prefill and decode, 2 threads. */
    lk_t_begin("synth-f16-repacked = rows, bit for bit");
    {
        char p3[256];
        lk_model_params mp = lk_model_default_params();
        lk_model *m1 = NULL, *m2 = NULL;
        snprintf(p3, sizeof p3, "/tmp/lk_test_synth_%d_f16.gguf", (int)getpid());
        snprintf(cmd, sizeof cmd, "build/synth --preset tiny --type F16 --vocab 20000 -q -o %s", p3);
        CHECK(system(cmd) == 0, "%s failed", cmd);
        CHECK_OK(lk_model_load_file(p3, &mp, &m1));
        mp.repack = -1;
        CHECK_OK(lk_model_load_file(p3, &mp, &m2));
        if (m1 && m2) {
            lk_context *c1 = NULL, *c2 = NULL;
            lk_context_params cp = lk_context_default_params();
            const lk_token toks[8] = { 1, 19999, 261, 300, 12345, 511, 3, 100 };
            const int V = lk_model_n_vocab(m1);
            int i;
            /* all 2-D weights are F16 rows of 256 or 512: every matrix but the tied-off embedding is repacked */
            if (lk__kernels_of(LK_TYPE_F16)->r8_simd)
                CHECK(lk_model_repacked_bytes(m1) >= (size_t)256 * 20000 * 2 && lk_model_repacked_bytes(m2) == 0, "repacked %zu / %zu bytes",
                      lk_model_repacked_bytes(m1), lk_model_repacked_bytes(m2));
            else CHECK(lk_model_repacked_bytes(m1) == 0, "repacked %zu bytes without a kernel", lk_model_repacked_bytes(m1));
            cp.n_ctx = 64; cp.n_threads = 2; cp.logits_all = 1;
            CHECK_OK(lk_context_new(m1, &cp, &c1));
            CHECK_OK(lk_context_new(m2, &cp, &c2));
            if (c1 && c2) {
                int bad = 0;
                CHECK_OK(lk_decode(c1, toks, 5));
                CHECK_OK(lk_decode(c2, toks, 5));
                for (i = 0; i < 5; i++) if (memcmp(lk_logits(c1, i), lk_logits(c2, i), sizeof(float) * (size_t)V)) bad++;
                for (i = 5; i < 8; i++) {
                    CHECK_OK(lk_decode(c1, &toks[i], 1));
                    CHECK_OK(lk_decode(c2, &toks[i], 1));
                    if (memcmp(lk_logits(c1, 0), lk_logits(c2, 0), sizeof(float) * (size_t)V)) bad++;
                }
                CHECK(bad == 0, "%d of 8 positions differ", bad);
            }
            lk_context_free(c1); lk_context_free(c2);
        }
        lk_model_free(m1); lk_model_free(m2);
        remove(p3);
    }
    lk_t_end();

    lk_t_begin("bench-json");
    {
        char *out;
        snprintf(cmd, sizeof cmd, "build/bench -m %s -p 16 -n 4 -t 1 -r 2 -o json --no-bw", path);
        out = run_capture(cmd);
        CHECK(out != NULL, "%s failed", cmd);
        if (out) {
            static const char *keys[] = { "model_filename", "n_prompt", "n_gen", "n_threads", "avg_ts", "stddev_ts", "samples_ts", "weight_gbs" };
            size_t k;
            CHECK(json_valid(out), "not valid JSON:\n%s", out);
            for (k = 0; k < sizeof keys / sizeof keys[0]; k++) {
                char pat[64];
                const char *q = out;
                int cnt = 0;
                snprintf(pat, sizeof pat, "\"%s\":", keys[k]);
                while ((q = strstr(q, pat)) != NULL) { cnt++; q++; }
                CHECK(cnt == 2, "key %s appears %d times (want 2 records)", keys[k], cnt);
            }
            CHECK(json_num(out, "n_prompt", 0) == 16 && json_num(out, "n_gen", 0) == 0, "record 0 is not pp16");
            CHECK(json_num(out, "n_prompt", 1) == 0 && json_num(out, "n_gen", 1) == 4, "record 1 is not tg4");
            CHECK(json_num(out, "n_threads", 0) == 1, "n_threads");
            CHECK(json_num(out, "avg_ts", 0) > 0 && json_num(out, "avg_ts", 1) > 0, "avg_ts not positive");
            CHECK(json_num(out, "weight_gbs", 1) > 0, "tg weight_gbs not positive");
            free(out);
        }
        /* the csv and md forms run too */
        snprintf(cmd, sizeof cmd, "build/bench -m %s -p 8 -n 2 -t 1 -r 1 -o csv --no-bw", path);
        out = run_capture(cmd);
        CHECK(out && !strncmp(out, "model_filename,", 15) && strchr(out, '\n') && strstr(out, "\n\"/tmp/"), "csv output");
        free(out);
        snprintf(cmd, sizeof cmd, "build/bench -m %s -p 8 -n 2 -t 1 -r 1 --no-bw", path);
        out = run_capture(cmd);
        CHECK(out && strstr(out, "| model") && strstr(out, "pp8") && strstr(out, "tg2"), "md output");
        free(out);
        /* -d (llama-bench's depth): every test again after 24 tokens, which take room in the context */
        snprintf(cmd, sizeof cmd, "build/bench -m %s -p 8 -n 2 -d 0,24 -t 1 -r 1 -o json --no-bw", path);
        out = run_capture(cmd);
        CHECK(out && json_valid(out), "%s: not valid JSON", cmd);
        if (out) {
            int k;
            for (k = 0; k < 4; k++)
                CHECK(json_num(out, "n_depth", k) == (k < 2 ? 0 : 24) && json_num(out, "n_ctx", k) == (k < 2 ? 0 : 24) + (k % 2 ? 2 : 8) &&
                      json_num(out, "avg_ts", k) > 0, "record %d: n_depth %g n_ctx %g", k, json_num(out, "n_depth", k), json_num(out, "n_ctx", k));
            free(out);
        }
        snprintf(cmd, sizeof cmd, "build/bench -m %s -p 8 -n 0 -d 24 -t 1 -r 1 --no-bw", path);
        out = run_capture(cmd);
        CHECK(out && strstr(out, "pp8 @ d24"), "md output names the depth as llama-bench: %s", out ? out : "(failed)");
        free(out);
        snprintf(cmd, sizeof cmd, "build/bench -m %s -p 8 -n 0 -d 24 -c 31 -t 1 -r 1 --no-bw > /dev/null 2>&1", path);
        CHECK(system(cmd) == 256, "-c 31 < depth 24 + pp8 accepted");
        /* bad input: an error exit, not a crash */
        CHECK(system("build/bench -m /nonexistent.gguf -r 1 > /dev/null 2>&1") == 256, "missing model file");
        CHECK(system("build/bench -m /nonexistent.gguf -d -1 > /dev/null 2>&1") == 512, "negative depth");
        CHECK(system("build/synth --preset no-such -o /tmp/lk_x.gguf > /dev/null 2>&1") == 512, "unknown preset");
    }
    lk_t_end();

    /* the comparison scripts, where llama.cpp / llama2.c are installed */
    {   /* the current llama.cpp that tools/llamacpp.sh builds, else an older build in /tmp */
        char *lb = run_capture("tools/llamacpp.sh --dir 2>/dev/null");
        char bdir[512] = "";
        if (lb && lb[0] == '/') { snprintf(bdir, sizeof bdir, "%s", lb); bdir[strcspn(bdir, "\n")] = 0; }
        else if (file_exists("/tmp/llama.cpp/build/bin/llama-bench")) snprintf(bdir, sizeof bdir, "/tmp/llama.cpp/build");
        free(lb);
    if (!bdir[0]) {
        lk_t_skip("compare-llamacpp-script", "no llama.cpp build (tools/llamacpp.sh builds one)");
    } else {
        char *out;
        lk_t_begin("compare-llamacpp-script");
        snprintf(cmd, sizeof cmd, "tools/compare-llamacpp.sh -B %s -t 1 -r 1 -p 8 -n 4 -d 0,8 %s 2>/dev/null", bdir, path);
        out = run_capture(cmd);
        CHECK(out != NULL, "%s failed", cmd);
        if (out) {
            /* one row per test with two positive rates and a ratio */
            const char *q = strstr(out, "| pp8 | "), *q2 = strstr(out, "| tg4 | ");
            double a = 0, b = 0, r = 0, sa, sb;
            CHECK(q && q2 && strstr(out, "| tg4@d8 | ") && strstr(out, "| pp8@d8 | "), "rows missing:\n%s", out);
            if (q) CHECK(sscanf(q, "| pp8 | %lf ± %lf | %lf ± %lf | %lf |", &a, &sa, &b, &sb, &r) == 5 && a > 0 && b > 0 &&
                         fabs(r - a / b) < 0.01 * r + 0.002, "pp8 row: %s", q);
            if (q2) {   /* the last column: both programs' peak resident memory, MiB */
                const char *e = strchr(q2, '\n');
                const char *sl = e ? e : q2 + strlen(q2);
                double ra = 0, rb = 0;
                while (sl > q2 && sl[-1] != '|') sl--;       /* the closing bar */
                if (sl > q2) sl--;
                while (sl > q2 && sl[-1] != '|') sl--;       /* the last cell */
                CHECK(sscanf(sl, " %lf / %lf", &ra, &rb) == 2 && ra > 0 && rb > 0, "tg4 row has no peak RSS cell: %s", q2);
            }
            free(out);
        }
        lk_t_end();
    }
    }
    if (!file_exists("/tmp/llama2.c/run.c") || !lk_t_fixture("stories260K/stories260K.bin") || !file_exists("build/convert-llama2c")) {
        lk_t_skip("compare-llama2c-script", "/tmp/llama2.c, the stories260K fixture or build/convert-llama2c absent");
    } else {
        char *out;
        lk_t_begin("compare-llama2c-script");
        out = run_capture("tools/compare-llama2c.sh -r 1 -n 64 2>/dev/null");
        CHECK(out != NULL, "compare-llama2c.sh failed");
        CHECK(out && strstr(out, "| llama2.c run.c") && strstr(out, "| llmkit bench tg64") && strstr(out, "ratio llmkit / llama2.c"),
              "output:\n%s", out ? out : "");
        /* stories260K is a trained model: greedy text must agree with llama2.c's */
        CHECK(out && strstr(out, "bytes match llama2.c"), "greedy text differs");
        free(out);
        lk_t_end();
    }
    if (!file_exists("build/bench-matmul") || !file_exists("build/peak")) {
        lk_t_skip("bench-matmul-and-peak", "build/bench-matmul or build/peak absent (run make)");
    } else {   /* the kernel tools run and print a row per type / a positive rate per ceiling */
        static const char *types[] = { "q4_0", "q4_K", "q8_0" };
        char *out;
        size_t k;
        lk_t_begin("bench-matmul-and-peak");
        out = run_capture("build/bench-matmul -t 1 -r 256 -k 2048 -b 9 -n 1 --r8 q4_0 q4_K q8_0");
        CHECK(out && strstr(out, "interleaved rows (LK_LAYOUT_R8)"), "bench-matmul --r8 output:\n%s", out ? out : "(failed)");
        for (k = 0; out && k < sizeof types / sizeof types[0]; k++) {
            char pat[16];
            const char *row;
            double mib = 0, ms1 = 0, gbs = 0;
            snprintf(pat, sizeof pat, "| %s |", types[k]);
            row = strstr(out, pat);
            CHECK(row && sscanf(row + strlen(pat), " %lf | %lf | %lf", &mib, &ms1, &gbs) == 3 && mib > 0 && ms1 > 0 && gbs > 0,
                  "no %s row with positive numbers:\n%s", types[k], out);
        }
        free(out);
        out = run_capture("build/peak -t 1 -s 0.01");
        if (out && strstr(out, "needs x86 AVX2")) {   /* built without AVX2: nothing to measure */
            printf("  peak: %s", out);
            free(out);
            out = NULL;
        } else
            CHECK(out && strstr(out, "fp32 FMA peak, 8-lane vfmadd, 1 threads: ") && strstr(out, "int8 dot peak, AVX2 pair"),
                  "peak output:\n%s", out ? out : "(failed)");
        if (out) {   /* every line: "<what>, 1 threads: <positive rate> <unit>" */
            const char *l = out;
            int lines = 0;
            while (*l) {
                const char *c = strstr(l, "threads: ");
                const char *e = strchr(l, '\n');
                CHECK(c && (!e || c < e) && atof(c + 9) > 0, "peak line without a positive rate: %.*s", e ? (int)(e - l) : (int)strlen(l), l);
                lines++;
                l = e ? e + 1 : l + strlen(l);
            }
            CHECK(lines >= 2, "peak printed %d lines", lines);
        }
        free(out);
        lk_t_end();
    }
    remove(path);
    return lk_t_exit();
}
