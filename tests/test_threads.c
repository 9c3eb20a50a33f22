/* Several threads using the library at once: loading GGUF files and models
 * (from files and from memory), decoding, tokenizing, and quantizing IQ3
 * rows (whose search tables are built on first use). Each thread's logits
 * must equal the ones computed beforehand on the main thread, and make test
 * also builds this file with ThreadSanitizer, which reports any data race.
 * lk-test: tsan */
#define LLMKIT_IMPLEMENTATION
#include "llmkit.h"
#include "tests/lk_test.h"
#include <pthread.h>

#define NT 6
static const char *const files[] = { "models/llama/llama-Q8_0.gguf", "models/gemma2/gemma2-F32.gguf", "models/qwen2/qwen2-Q4_K_M-mix.gguf",
                                     "stories260K/stories260K-Q4_0.gguf", "models/gpt2/gpt2-F32.gguf", "models/phi3/phi3-Q8_0.gguf" };
static const lk_token toks[6] = { 1, 11, 48, 85, 122, 159 };

typedef struct job {
    char path[1024];
    int from_memory;
    float ref[512], got[512];
    int ok, n_tok;
    float iq[512];
    unsigned char iqq[512];
} job;

static int run_one(job *j, float *logits) {
    lk_model *m = NULL;
    lk_context *c = NULL;
    lk_context_params cp = lk_context_default_params();
    unsigned char *buf = NULL;
    size_t len = 0;
    int ok = 0;
    lk_token t[64];
    if (j->from_memory) {
        buf = lk_t_read_file(j->path, &len);
        if (!buf || lk_model_load_memory(buf, len, NULL, &m)) goto done;
    } else if (lk_model_load_file(j->path, NULL, &m)) goto done;
    cp.n_ctx = 16; cp.n_threads = 1;
    if (lk_context_new(m, &cp, &c) || lk_decode(c, toks, 6)) goto done;
    memcpy(logits, lk_logits(c, -1), sizeof(float) * 512);
    j->n_tok = lk_model_vocab(m) ? lk_tokenize(lk_model_vocab(m), "Once upon a time, there was", 27, t, 64, 1, 0) : 0;
    ok = 1;
done:
    lk_context_free(c);
    lk_model_free(m);
    free(buf);
    return ok;
}
static void *thread_main(void *arg) {
    job *j = (job *)arg;
    size_t bytes = 0;
    j->ok = run_one(j, j->got);
    /* IQ3 quantization builds shared search tables on first use */
    lk_quantize(LK_TYPE_IQ3_XXS, j->iq, j->iqq, 1, 256, &bytes);
    return NULL;
}

int main(void) {
    static job jobs[NT];
    pthread_t th[NT];
    int i, k;
    for (i = 0; i < NT; i++) {
        const char *p = lk_t_fixture(files[i]);
        if (!p) { lk_t_skip("threads: concurrent loads and decodes", "fixtures absent (../shared/fixtures)"); return 0; }
        snprintf(jobs[i].path, sizeof jobs[i].path, "%s", p);
        jobs[i].from_memory = i % 2;
        for (k = 0; k < 512; k++) jobs[i].iq[k] = (float)((k * 37 + i) % 101) / 50.0f - 1.0f;
    }
    lk_t_begin("threads: concurrent model loads, decodes, tokenization, IQ3 quantization");
    for (i = 0; i < NT; i++) {   /* references, one at a time */
        job tmp = jobs[i];
        CHECK(run_one(&tmp, jobs[i].ref), "reference run of %s: %s", files[i], lk_last_error());
    }
    for (i = 0; i < NT; i++) CHECK(pthread_create(&th[i], NULL, thread_main, &jobs[i]) == 0, "pthread_create");
    for (i = 0; i < NT; i++) pthread_join(th[i], NULL);
    for (i = 0; i < NT; i++) {
        CHECK(jobs[i].ok, "%s failed in its thread", files[i]);
        CHECK(memcmp(jobs[i].ref, jobs[i].got, sizeof jobs[i].ref) == 0, "%s: logits differ from the single-thread run", files[i]);
        CHECK(jobs[i].n_tok > 0, "%s: tokenizer gave %d", files[i], jobs[i].n_tok);
    }
    lk_t_end();
    return lk_t_exit();
}
