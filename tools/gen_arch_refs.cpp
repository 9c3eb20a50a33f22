// gen_arch_refs: llama.cpp's logits for a random-weight architecture fixture
// (tools/gen_arch_fixtures.py) over the fixtures' token sequence A, for
// tests/test_model.c. Build as tools/gen_real_refs.cpp says, then
//   GEN_FA=0 /tmp/gen_arch_refs MODEL.gguf ../shared/fixtures/sequences.txt OUT.bin
// OUT.bin: the logits (f32, n_vocab each) after tokens 3, 7, 11, ... of the
// sequence (every fourth position, so the file stays small), computed in
// one batch with an f32 KV cache and 2 threads. GEN_FA=0 turns flash
// attention off, as the c392e5094 fixtures had it: this llama.cpp's CPU
// flash-attention kernel moves the fixture llama-F32's logits by up to 1.2e-3
// from c392e5094's, its non-flash path by 4.5e-7.
// With a fourth argument GREEDY.txt it also writes the 32 tokens that greedy
// decoding (argmax, one token at a time) gives after the sequence's first 8,
// as decimal ids separated by spaces.
// GEN_POS0=P runs the sequence (and the greedy decoding) at positions P,
// P+1, ... instead of 0, 1, ... (llama4: across its attention chunk of 8192).
#include "llama.h"
#include <cstdio>
#include <cstdlib>
#include <vector>

static void quiet(ggml_log_level, const char *, void *) {}

int main(int argc, char **argv) {
    if (argc != 4 && argc != 5) { fprintf(stderr, "usage: gen_arch_refs MODEL SEQUENCES OUT [GREEDY.txt]\n"); return 2; }
    llama_log_set(quiet, nullptr);
    llama_backend_init();
    FILE *f = fopen(argv[2], "r");
    char tag[8];
    int n = 0;
    if (!f || fscanf(f, "%7s %d", tag, &n) != 2 || n <= 0) { fprintf(stderr, "bad %s\n", argv[2]); return 1; }
    std::vector<llama_token> t(n);
    for (int i = 0; i < n; i++) if (fscanf(f, "%d", &t[i]) != 1) return 1;
    fclose(f);
    llama_model *m = llama_model_load_from_file(argv[1], llama_model_default_params());
    if (!m) { fprintf(stderr, "cannot load %s\n", argv[1]); return 1; }
    llama_context_params cp = llama_context_default_params();
    cp.n_ctx = 512; cp.n_batch = cp.n_ubatch = 512; cp.n_threads = cp.n_threads_batch = 2;
    cp.type_k = cp.type_v = GGML_TYPE_F32;
    if (getenv("GEN_FA")) cp.flash_attn_type = (llama_flash_attn_type)atoi(getenv("GEN_FA"));   // -1 auto, 0 off, 1 on
    llama_context *c = llama_init_from_model(m, cp);
    llama_batch b = llama_batch_init(n, 0, 1);
    const int p0 = getenv("GEN_POS0") ? atoi(getenv("GEN_POS0")) : 0;
    for (int i = 0; i < n; i++) { b.token[i] = t[i]; b.pos[i] = p0 + i; b.n_seq_id[i] = 1; b.seq_id[i][0] = 0; b.logits[i] = 1; }
    b.n_tokens = n;
    if (!c || llama_decode(c, b)) { fprintf(stderr, "decode failed\n"); return 1; }
    const int V = llama_vocab_n_tokens(llama_model_get_vocab(m));
    FILE *o = fopen(argv[3], "wb");
    const int step = getenv("GEN_ALL") ? 1 : 4;   // GEN_ALL=1: every position (diagnosis)
    for (int i = step - 1; i < n; i += step) fwrite(llama_get_logits_ith(c, i), sizeof(float), V, o);
    if (!o || fclose(o)) return 1;
    if (argc == 5) {   // greedy: a fresh cache, the first 8 tokens, then 32 argmax tokens one at a time
        FILE *g = fopen(argv[4], "w");
        llama_memory_clear(llama_get_memory(c), true);
        int np = n < 8 ? n : 8, pos = p0;
        llama_token cur = 0;
        for (int i = 0; i < np; i++) { b.token[i] = t[i]; b.pos[i] = p0 + i; b.n_seq_id[i] = 1; b.seq_id[i][0] = 0; b.logits[i] = i == np - 1; }
        b.n_tokens = np;
        for (int k = 0; k < 32; k++) {
            if (llama_decode(c, b)) { fprintf(stderr, "greedy decode failed\n"); return 1; }
            pos += b.n_tokens;
            const float *l = llama_get_logits_ith(c, -1);
            cur = 0;
            for (int v = 1; v < V; v++) if (l[v] > l[cur]) cur = v;
            fprintf(g, k ? " %d" : "%d", cur);
            b.token[0] = cur; b.pos[0] = pos; b.n_seq_id[0] = 1; b.seq_id[0][0] = 0; b.logits[0] = 1; b.n_tokens = 1;
        }
        if (!g || fprintf(g, "\n") < 0 || fclose(g)) return 1;
    }
    llama_batch_free(b);
    llama_free(c);
    llama_model_free(m);
    return 0;
}
