// gen_real_refs: reference data from llama.cpp for llmkit's real-model test
// (tests/test_real_models.c). Not built by make; build it against a llama.cpp
// tree (the one in llama-cpp-python 0.3.36's sdist, vendor/llama.cpp at
// 0c1e570, built with cmake -DCMAKE_BUILD_TYPE=Release):
//   L=/path/to/llama.cpp
//   g++ -O2 -std=c++17 -I$L/include -I$L/ggml/include tools/gen_real_refs.cpp \
//       -L$L/build/bin -lllama -lggml -lggml-base -Wl,-rpath,$L/build/bin -o /tmp/gen_real_refs
//   /tmp/gen_real_refs MODEL.gguf tests/data/agreement.txt tests/data/tokenize-mixed.txt > tests/data/real/NAME.ref
// Output (text, one record per line):
//   tokenize N id...                the tokens of the mixed text (BOS as the vocab adds it, no special parsing)
//   teacher N id...                 the agreement text's tokens, then N-1 lines "argmax margin nll": the logits after token i of the
//                                   agreement text (one batch, all logits): their argmax, the gap between
//                                   the two largest logits, and -log p(token i+1)
//   greedy P N                      then the P prompt tokens on one line, then N lines "id margin": the
//                                   greedy continuation (one token per decode step) and its top-2 gap
// Everything runs with 2 threads and llama.cpp's default context settings
// (f16 KV cache, flash attention as llama.cpp picks it; GEN_FA=0|1 and
// GEN_KV_F32=1 in the environment change those, for diagnosis).
#include "llama.h"
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

static std::string slurp(const char *path) {
    std::string s;
    FILE *f = fopen(path, "rb");
    if (!f) { fprintf(stderr, "cannot open %s\n", path); exit(1); }
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) s.append(buf, n);
    fclose(f);
    return s;
}
static std::vector<llama_token> tokenize(const llama_vocab *v, const std::string &s) {
    int n = -llama_tokenize(v, s.data(), (int)s.size(), nullptr, 0, true, false);
    std::vector<llama_token> t(n);
    llama_tokenize(v, s.data(), (int)s.size(), t.data(), n, true, false);
    return t;
}
static void top2(const float *l, int n, int *best, float *margin) {
    int b = 0;
    for (int i = 1; i < n; i++) if (l[i] > l[b]) b = i;
    float second = -INFINITY;
    for (int i = 0; i < n; i++) if (i != b && l[i] > second) second = l[i];
    *best = b; *margin = l[b] - second;
}
static void quiet(ggml_log_level, const char *, void *) {}

int main(int argc, char **argv) {
    if (argc != 4) { fprintf(stderr, "usage: gen_real_refs MODEL TEXT MIXED_TEXT\n"); return 2; }
    llama_log_set(quiet, nullptr);
    llama_backend_init();
    llama_model_params mp = llama_model_default_params();
    llama_model *m = llama_model_load_from_file(argv[1], mp);
    if (!m) { fprintf(stderr, "cannot load %s\n", argv[1]); return 1; }
    const llama_vocab *v = llama_model_get_vocab(m);
    const int V = llama_vocab_n_tokens(v);
    std::vector<llama_token> mixed = tokenize(v, slurp(argv[3]));
    printf("tokenize %zu", mixed.size());
    for (llama_token t : mixed) printf(" %d", t);
    printf("\n");

    std::vector<llama_token> text = tokenize(v, slurp(argv[2]));
    const int N = (int)text.size();
    llama_context_params cp = llama_context_default_params();
    cp.n_ctx = (uint32_t)(N + 256); cp.n_batch = cp.n_ubatch = (uint32_t)N;
    cp.n_threads = cp.n_threads_batch = 2;
    if (getenv("GEN_FA")) cp.flash_attn_type = (llama_flash_attn_type)atoi(getenv("GEN_FA"));   // -1 auto, 0 off, 1 on
    if (getenv("GEN_KV_F32")) cp.type_k = cp.type_v = GGML_TYPE_F32;
    llama_context *c = llama_init_from_model(m, cp);
    if (!c) { fprintf(stderr, "cannot create a context\n"); return 1; }
    llama_batch b = llama_batch_init(N, 0, 1);
    for (int i = 0; i < N; i++) {
        b.token[i] = text[i]; b.pos[i] = i; b.n_seq_id[i] = 1; b.seq_id[i][0] = 0; b.logits[i] = 1;
    }
    b.n_tokens = N;
    if (llama_decode(c, b)) { fprintf(stderr, "decode failed\n"); return 1; }
    printf("teacher %d", N);
    for (llama_token t : text) printf(" %d", t);
    printf("\n");
    for (int i = 0; i + 1 < N; i++) {
        const float *l = llama_get_logits_ith(c, i);
        int best; float margin;
        top2(l, V, &best, &margin);
        float mx = l[best];
        double sum = 0;
        for (int k = 0; k < V; k++) sum += expf(l[k] - mx);
        printf("%d %.6f %.6f\n", best, margin, (double)(mx - l[text[i + 1]]) + log(sum));
    }
    llama_batch_free(b);

    llama_memory_clear(llama_get_memory(c), true);
    const int P = N < 40 ? N : 40, G = 128;
    std::vector<llama_token> prompt(text.begin(), text.begin() + P);
    printf("greedy %d %d\n", P, G);
    for (int i = 0; i < P; i++) printf("%s%d", i ? " " : "", prompt[i]);
    printf("\n");
    if (llama_decode(c, llama_batch_get_one(prompt.data(), P))) { fprintf(stderr, "decode failed\n"); return 1; }
    for (int g = 0; g < G; g++) {
        int best; float margin;
        top2(llama_get_logits_ith(c, -1), V, &best, &margin);
        printf("%d %.6f\n", best, margin);
        llama_token t = best;
        if (llama_decode(c, llama_batch_get_one(&t, 1))) { fprintf(stderr, "decode failed\n"); return 1; }
    }
    llama_free(c);
    llama_model_free(m);
    return 0;
}
