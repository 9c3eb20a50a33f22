/* main.c - llmkit on a microcontroller: a GGUF model linked into flash
 * (model.S) runs in place; context, KV cache and scratch come from one
 * static arena; the prompt is tokenized on the device and N tokens are
 * generated greedily and written to the UART. Built by `make firmware`
 * for mps2-an386 (Cortex-M4F) and mps3-an547 (Cortex-M55 with Helium),
 * run under qemu by `make run-firmware` (see examples/firmware/README.md).
 *
 * Board macros (from the Makefile): FW_UART0, FW_UART1 (CMSDK APB UART
 * bases: the text, the figures). Build-time settings: FW_PROMPT, FW_N,
 * FW_CTX, FW_KV (an lk_type), FW_BATCH, FW_ARENA (bytes). startup.c has
 * the vector table, the reset handler and fw_exit. */
#define LLMKIT_IMPLEMENTATION
#define LLMKIT_STATIC
#define LLMKIT_NO_STDIO        /* no files: the model is a const array   */
#define LLMKIT_NO_MALLOC       /* all memory from the arena below        */
#define LLMKIT_NO_THREADS
#define LLMKIT_NO_IQ           /* compile out what this model does not use */
#define LLMKIT_NO_QUANTIZE
#define LLMKIT_NO_KV_POLICIES
#include "llmkit.h"

#ifndef FW_PROMPT
#define FW_PROMPT "Once upon a time"
#endif
#ifndef FW_N
#define FW_N 32
#endif
#ifndef FW_CTX
#define FW_CTX 128
#endif
#ifndef FW_KV
#define FW_KV LK_TYPE_F16
#endif
#ifndef FW_BATCH
#define FW_BATCH 1       /* tokens per forward pass (more: faster prompts, more RAM) */
#endif
#ifndef FW_ARENA
#define FW_ARENA (128 * 1024)
#endif

extern const unsigned char fw_model[], fw_model_end[];
static unsigned char fw_arena[FW_ARENA] __attribute__((aligned(64)));
uint32_t fw_stack_used(void);
void fw_exit(int status);
void fw_fault(void);
void SysTick_Handler(void);

/* ---- UART (ARM CMSDK APB UART: DATA, STATE bit 0 = TX full, CTRL bit 0 = TX enable) */
#define FW_REG(base, off) (*(volatile uint32_t *)((uintptr_t)(base) + (off)))
static void uart_init(uintptr_t u) { FW_REG(u, 0x10) = 16; FW_REG(u, 8) = 1; }
static void uart_write(uintptr_t u, const char *s, int n) {
    int i;
    for (i = 0; i < n; i++) { while (FW_REG(u, 4) & 1) {} FW_REG(u, 0) = (uint32_t)(unsigned char)s[i]; }
}
static void uart_puts(uintptr_t u, const char *s) { uart_write(u, s, (int)strlen(s)); }
static void uart_putu(uintptr_t u, unsigned long long v) {
    char b[24];
    int i = 24;
    do { b[--i] = (char)('0' + v % 10); v /= 10; } while (v);
    uart_write(u, b + i, 24 - i);
}
static void fw_figure(const char *name, unsigned long long v) { uart_puts(FW_UART1, name); uart_puts(FW_UART1, " "); uart_putu(FW_UART1, v); uart_puts(FW_UART1, "\n"); }

/* ---- the timer: SysTick on the core clock, extended to 64 bits by its wrap interrupt */
static volatile uint32_t fw_wraps;
void SysTick_Handler(void) { fw_wraps++; }
static void timer_init(void) {   /* reload 2^24 - 1, clear, run on the core clock with the interrupt; wait for the first reload */
    FW_REG(0xE000E010, 4) = 0xFFFFFF; FW_REG(0xE000E010, 8) = 0; FW_REG(0xE000E010, 0) = 7;
    while (FW_REG(0xE000E010, 8) == 0) {}
}
static unsigned long long ticks(void) {
    uint32_t w, v;
    do { w = fw_wraps; v = FW_REG(0xE000E010, 8); } while (w != fw_wraps);   /* (a wrap in between: read again) */
    return ((unsigned long long)w << 24) + (0xFFFFFFu - v);
}
/* ticks of a loop of exactly 2,000,000 instructions: with qemu -icount the
 * clock runs on executed instructions, so this converts ticks to them */
static unsigned long long calibrate(void) {
    unsigned long long t0 = ticks();
    __asm volatile("mov r0, %0\n1:\n\tsubs r0, r0, #1\n\tbne 1b" :: "r"(1000000) : "r0", "cc");
    return ticks() - t0;
}

void fw_fault(void) { uart_puts(FW_UART1, "fault\n"); fw_exit(3); }

static int fail(const char *what, int lib) {   /* lib: the library's message follows */
    uart_puts(FW_UART1, "error: "); uart_puts(FW_UART1, what);
    if (lib) { uart_puts(FW_UART1, ": "); uart_puts(FW_UART1, lk_last_error()); }
    uart_puts(FW_UART1, "\n");
    return 1;
}

int main(void) {
    static const char prompt[] = FW_PROMPT;
    static lk_token toks[FW_CTX];
    lk_arena arena;
    lk_allocator al;
    lk_model_params mp = lk_model_default_params();
    lk_context_params cp = lk_context_default_params();
    lk_model *m;
    lk_context *c;
    const lk_vocab *v;
    unsigned long long cal, t_prompt = 0, t_gen = 0;
    size_t model_bytes, need;
    int n, i, generated = 0, n_past = 0, n_dec = 0, V;
    static const int ctxs[3] = { 128, 256, 512 };
    static const lk_type kvs[2] = { LK_TYPE_F16, LK_TYPE_Q8_0 };

    uart_init(FW_UART0); uart_init(FW_UART1); timer_init();
    cal = calibrate();
    lk_arena_init(&arena, fw_arena, sizeof fw_arena);
    al = lk_arena_allocator(&arena);
    mp.alloc = &al; cp.alloc = &al;
    cp.n_ctx = FW_CTX; cp.kv_type = FW_KV; cp.n_batch = FW_BATCH;
    if (lk_model_load_memory(fw_model, (size_t)(fw_model_end - fw_model), &mp, &m)) return fail("model", 1);
    model_bytes = arena.used;
    need = lk_context_memory_size(m, &cp);
    if (need > arena.size - arena.used) { fw_figure("arena-bytes-needed", model_bytes + need); return fail("the arena is too small for the context (raise FW_ARENA)", 0); }
    if (lk_context_new(m, &cp, &c)) return fail("context", 1);
    v = lk_model_vocab(m); V = lk_model_n_vocab(m);
    if (!v) return fail("the model has no vocabulary", 0);
    n = lk_tokenize(v, prompt, (int)strlen(prompt), toks, FW_CTX, 1, 0);
    if (n < 0) return fail("tokenize", 1);
    uart_puts(FW_UART0, prompt);
    /* decode the pending tokens, take the most likely next one; stop where its
     * position would be past the context (as the host's generate) */
    for (i = 0; i < FW_N && n > 0 && n_past + n < FW_CTX; i++) {
        const unsigned long long t1 = ticks();
        const float *l;
        char piece[64];
        lk_token best = 0;
        int j, len;
        if (lk_decode(c, toks, n)) return fail("decode", 1);
        n_past += n;
        l = lk_logits(c, -1);
        for (j = 1; j < V; j++) if (l[j] > l[best]) best = (lk_token)j;   /* ties: the lowest id, as the greedy sampler */
        if (i == 0) t_prompt = ticks() - t1; else { t_gen += ticks() - t1; n_dec++; }
        if (lk_vocab_is_eog(v, best)) break;
        len = lk_token_to_piece(v, best, piece, (int)sizeof piece, 0);
        if (len > 0) uart_write(FW_UART0, piece, len);
        toks[0] = best; n = 1; generated++;
    }
    uart_puts(FW_UART0, "\n");
    /* figures (instructions = ticks x 2e6 / cal, exact under qemu -icount) */
    fw_figure("calibration-ticks-per-2M-instructions", cal);
    fw_figure("prompt-tokens", (unsigned long long)lk_tokenize(v, prompt, (int)strlen(prompt), toks, FW_CTX, 1, 0));
    fw_figure("prompt-instructions", t_prompt * 2000000ull / cal);
    fw_figure("generated-tokens", (unsigned long long)generated);
    if (n_dec) fw_figure("instructions-per-token", t_gen * 2000000ull / cal / (unsigned long long)n_dec);   /* one-token decodes */
    fw_figure("model-struct-bytes", model_bytes);
    fw_figure("context-bytes", arena.used - model_bytes);
    fw_figure("stack-bytes", fw_stack_used());
    for (i = 0; i < 6; i++) {   /* what the arena would need at other settings */
        lk_context_params q = cp;
        q.n_ctx = ctxs[i / 2]; q.kv_type = kvs[i % 2];
        uart_puts(FW_UART1, "arena-bytes ctx "); uart_putu(FW_UART1, (unsigned long long)q.n_ctx);
        uart_puts(FW_UART1, i % 2 ? " kv q8_0 " : " kv f16 "); uart_putu(FW_UART1, model_bytes + lk_context_memory_size(m, &q)); uart_puts(FW_UART1, "\n");
    }
    lk_context_free(c);
    lk_model_free(m);
    return 0;
}
