/* quantize - convert a GGUF model to another tensor type, like llama-quantize.
 *
 *   quantize [options] IN.gguf OUT.gguf TYPE [nthreads]
 *
 * TYPE is a llama-quantize file type name (Q4_0, Q4_K_M, Q8_0, F16, ...).
 * All metadata is copied, general.quantization_version and general.file_type
 * are set, 2-D weights are quantized (norms, 1-D tensors, position
 * embeddings stay as they are), and the _S/_M/_L mixes pick per-tensor types
 * by the same rules as llama.cpp's llama_tensor_get_type (src/llama-quant.cpp
 * at the fixtures' commit). Rows that do not fit a type's block size fall
 * back to a compatible type (K -> legacy, then F16) instead of aborting.
 * Tensors are written in llama-quantize's order (by layer, then name), so
 * the output is byte-identical to llama-quantize's without an imatrix.
 *
 * Options: --pure (every weight gets TYPE), --leave-output-tensor,
 *          --output-tensor-type T, --token-embedding-type T (ggml type
 *          names, e.g. q8_0), --allow-requantize, -q/--quiet.
 * Progress goes to stderr. Define LK_QUANTIZE_NO_MAIN to use the functions
 * from a test. */
#ifndef LLMKIT_IMPLEMENTATION
#define LLMKIT_IMPLEMENTATION
#endif
#include "llmkit.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* llama_ftype values (stored in general.file_type) */
enum {
    LKQ_F32 = 0, LKQ_F16 = 1, LKQ_Q4_0 = 2, LKQ_Q4_1 = 3, LKQ_Q8_0 = 7, LKQ_Q5_0 = 8, LKQ_Q5_1 = 9,
    LKQ_Q2_K = 10, LKQ_Q3_K_S = 11, LKQ_Q3_K_M = 12, LKQ_Q3_K_L = 13, LKQ_Q4_K_S = 14, LKQ_Q4_K_M = 15,
    LKQ_Q5_K_S = 16, LKQ_Q5_K_M = 17, LKQ_Q6_K = 18, LKQ_IQ2_XXS = 19, LKQ_IQ2_XS = 20, LKQ_Q2_K_S = 21,
    LKQ_IQ3_XS = 22, LKQ_IQ3_XXS = 23, LKQ_IQ1_S = 24, LKQ_IQ4_NL = 25, LKQ_IQ3_S = 26, LKQ_IQ3_M = 27,
    LKQ_IQ2_S = 28, LKQ_IQ2_M = 29, LKQ_IQ4_XS = 30, LKQ_IQ1_M = 31, LKQ_BF16 = 32, LKQ_TQ1_0 = 36, LKQ_TQ2_0 = 37
};

typedef struct lkq_ftype_name { const char *name; int ftype; lk_type type; } lkq_ftype_name;
static const lkq_ftype_name lkq_ftypes[] = {
    { "Q4_0", LKQ_Q4_0, LK_TYPE_Q4_0 }, { "Q4_1", LKQ_Q4_1, LK_TYPE_Q4_1 }, { "Q5_0", LKQ_Q5_0, LK_TYPE_Q5_0 },
    { "Q5_1", LKQ_Q5_1, LK_TYPE_Q5_1 }, { "IQ2_XXS", LKQ_IQ2_XXS, LK_TYPE_IQ2_XXS }, { "IQ2_XS", LKQ_IQ2_XS, LK_TYPE_IQ2_XS },
    { "IQ2_S", LKQ_IQ2_S, LK_TYPE_IQ2_XS }, { "IQ2_M", LKQ_IQ2_M, LK_TYPE_IQ2_S }, { "IQ1_S", LKQ_IQ1_S, LK_TYPE_IQ1_S },
    { "IQ1_M", LKQ_IQ1_M, LK_TYPE_IQ1_M }, { "TQ1_0", LKQ_TQ1_0, LK_TYPE_TQ1_0 }, { "TQ2_0", LKQ_TQ2_0, LK_TYPE_TQ2_0 },
    { "Q2_K", LKQ_Q2_K, LK_TYPE_Q2_K }, { "Q2_K_S", LKQ_Q2_K_S, LK_TYPE_Q2_K }, { "IQ3_XXS", LKQ_IQ3_XXS, LK_TYPE_IQ3_XXS },
    { "IQ3_S", LKQ_IQ3_S, LK_TYPE_IQ3_S }, { "IQ3_M", LKQ_IQ3_M, LK_TYPE_IQ3_S }, { "Q3_K", LKQ_Q3_K_M, LK_TYPE_Q3_K },
    { "IQ3_XS", LKQ_IQ3_XS, LK_TYPE_IQ3_S }, { "Q3_K_S", LKQ_Q3_K_S, LK_TYPE_Q3_K }, { "Q3_K_M", LKQ_Q3_K_M, LK_TYPE_Q3_K },
    { "Q3_K_L", LKQ_Q3_K_L, LK_TYPE_Q3_K }, { "IQ4_NL", LKQ_IQ4_NL, LK_TYPE_IQ4_NL }, { "IQ4_XS", LKQ_IQ4_XS, LK_TYPE_IQ4_XS },
    { "Q4_K", LKQ_Q4_K_M, LK_TYPE_Q4_K }, { "Q4_K_S", LKQ_Q4_K_S, LK_TYPE_Q4_K }, { "Q4_K_M", LKQ_Q4_K_M, LK_TYPE_Q4_K },
    { "Q5_K", LKQ_Q5_K_M, LK_TYPE_Q5_K }, { "Q5_K_S", LKQ_Q5_K_S, LK_TYPE_Q5_K }, { "Q5_K_M", LKQ_Q5_K_M, LK_TYPE_Q5_K },
    { "Q6_K", LKQ_Q6_K, LK_TYPE_Q6_K }, { "Q8_0", LKQ_Q8_0, LK_TYPE_Q8_0 }, { "F16", LKQ_F16, LK_TYPE_F16 },
    { "BF16", LKQ_BF16, LK_TYPE_BF16 }, { "F32", LKQ_F32, LK_TYPE_F32 },
};

static int lkq_strieq(const char *a, const char *b) {
    for (; *a && *b; a++, b++) {
        int ca = (unsigned char)*a, cb = (unsigned char)*b;
        if (ca >= 'a' && ca <= 'z') ca -= 32;
        if (cb >= 'a' && cb <= 'z') cb -= 32;
        if (ca != cb) return 0;
    }
    return *a == *b;
}
static const lkq_ftype_name *lkq_find_ftype(const char *name) {
    size_t i;
    for (i = 0; i < sizeof lkq_ftypes / sizeof lkq_ftypes[0]; i++)
        if (lkq_strieq(lkq_ftypes[i].name, name)) return &lkq_ftypes[i];
    return NULL;
}

typedef struct lkq_params {
    int ftype;                 /* llama_ftype value                          */
    lk_type default_type;
    int pure;                  /* every quantized tensor gets default_type   */
    int leave_output;          /* do not quantize output.weight              */
    int allow_requantize;
    int output_type;           /* lk_type or -1                              */
    int token_embd_type;       /* lk_type or -1                              */
    int quiet;
    const char *type_name;     /* as given on the command line               */
    int n_threads;             /* <= 0: default (OpenMP: all cores)          */
} lkq_params;

/* the model facts the mixing rules look at */
typedef struct lkq_state {
    const char *arch;          /* general.architecture (NUL-terminated copy) */
    int n_layer, n_head, n_head_kv, n_expert, is_70b, has_output;
    int n_attention_wv, i_attention_wv;
    int n_ffn_down, i_ffn_down, n_ffn_gate, i_ffn_gate, n_ffn_up, i_ffn_up;
    int n_k_quantized, n_fallback;
} lkq_state;

static int lkq_contains(const char *s, const char *sub) { return strstr(s, sub) != NULL; }
static int lkq_is_quantized_type(lk_type t) { const lk_type_traits *tt = lk_type_get(t); return tt && tt->is_quantized; }
static int lkq_use_more_bits(int i_layer, int n_layers) {
    return i_layer < n_layers / 8 || i_layer >= 7 * n_layers / 8 || (i_layer - n_layers / 8) % 3 == 2;
}
static int lkq_n_gqa(const lkq_state *s) { return s->n_head_kv > 0 ? s->n_head / s->n_head_kv : 0; }
/* layer of an expert tensor "blk.N." (only used when n_expert > 1) */
static int lkq_layer_of(const char *name, int fallback) {
    int l;
    if (sscanf(name, "blk.%d.", &l) == 1) return l;
    return fallback;
}

/* fallback for rows that are not a multiple of the chosen type's block:
 * llama.cpp's switch, with F16 where it would abort (as the fixtures'
 * quantfix patch does). */
static lk_type lkq_fallback(lk_type t, int64_t ne0) {
    switch (t) {
    case LK_TYPE_TQ1_0: case LK_TYPE_TQ2_0: t = LK_TYPE_Q4_0; break;
    case LK_TYPE_IQ2_XXS: case LK_TYPE_IQ2_XS: case LK_TYPE_IQ2_S: case LK_TYPE_IQ3_XXS: case LK_TYPE_IQ3_S:
    case LK_TYPE_IQ1_S: case LK_TYPE_IQ1_M: case LK_TYPE_Q2_K: case LK_TYPE_Q3_K: case LK_TYPE_IQ4_XS:
        t = LK_TYPE_IQ4_NL; break;
    case LK_TYPE_Q4_K: t = LK_TYPE_Q5_0; break;
    case LK_TYPE_Q5_K: t = LK_TYPE_Q5_1; break;
    case LK_TYPE_Q6_K: t = LK_TYPE_Q8_0; break;
    default: t = LK_TYPE_F16; break;
    }
    if (ne0 % lk_type_get(t)->blck_size) t = LK_TYPE_F16;
    return t;
}

/* llama_tensor_get_type: the per-tensor type of the mixes */
static lk_type lkq_tensor_type(lkq_state *qs, lk_type new_type, const char *name, int64_t ne0, int ftype) {
    const int falcon = strcmp(qs->arch, "falcon") == 0;
    if (strcmp(name, "output.weight") == 0 || (!qs->has_output && strcmp(name, "token_embd.weight") == 0)) {
        if (falcon || ne0 % lk_type_get(new_type)->blck_size) new_type = LK_TYPE_Q8_0;
        else if (ftype == LKQ_IQ2_XXS || ftype == LKQ_IQ2_XS || ftype == LKQ_IQ3_XXS || ftype == LKQ_IQ1_S ||
                 ftype == LKQ_IQ2_S || ftype == LKQ_IQ2_M || ftype == LKQ_IQ1_M) new_type = LK_TYPE_Q5_K;
        else if (new_type != LK_TYPE_Q8_0) new_type = LK_TYPE_Q6_K;
    } else if (strcmp(name, "token_embd.weight") == 0) {
        if (ftype == LKQ_IQ2_XXS || ftype == LKQ_IQ2_XS || ftype == LKQ_IQ1_S || ftype == LKQ_IQ1_M) new_type = LK_TYPE_Q2_K;
        else if (ftype == LKQ_IQ2_S || ftype == LKQ_IQ2_M) new_type = LK_TYPE_IQ3_S;
        else if (ftype == LKQ_IQ3_XXS) new_type = LK_TYPE_IQ3_S;
        else if (ftype == LKQ_TQ1_0 || ftype == LKQ_TQ2_0) new_type = LK_TYPE_Q4_K;
    } else if (ftype == LKQ_IQ2_XXS || ftype == LKQ_IQ2_XS || ftype == LKQ_IQ1_S ||
               ftype == LKQ_IQ2_S || ftype == LKQ_IQ2_M || ftype == LKQ_IQ1_M) {
        if (lkq_contains(name, "attn_v.weight")) {
            if (lkq_n_gqa(qs) >= 4 || qs->n_expert >= 4) new_type = LK_TYPE_Q4_K;
            else new_type = ftype == LKQ_IQ2_S || ftype == LKQ_IQ2_M ? LK_TYPE_IQ3_S : LK_TYPE_Q2_K;
            ++qs->i_attention_wv;
        } else if (qs->n_expert == 8 && lkq_contains(name, "attn_k.weight")) {
            new_type = LK_TYPE_Q4_K;
        } else if (lkq_contains(name, "ffn_down")) {
            if (qs->i_ffn_down < qs->n_ffn_down / 8)
                new_type = ftype == LKQ_IQ2_S || ftype == LKQ_IQ2_M ? LK_TYPE_IQ3_S : LK_TYPE_Q2_K;
            ++qs->i_ffn_down;
        } else if (lkq_contains(name, "attn_output.weight")) {
            if (qs->n_expert == 8) new_type = LK_TYPE_Q5_K;
            else if (ftype == LKQ_IQ1_S || ftype == LKQ_IQ1_M) new_type = LK_TYPE_IQ2_XXS;
            else if (ftype == LKQ_IQ2_S || ftype == LKQ_IQ2_M) new_type = LK_TYPE_IQ3_S;
        }
    } else if (lkq_contains(name, "attn_v.weight")) {
        if (ftype == LKQ_Q2_K) new_type = lkq_n_gqa(qs) >= 4 ? LK_TYPE_Q4_K : LK_TYPE_Q3_K;
        else if (ftype == LKQ_Q2_K_S && lkq_n_gqa(qs) >= 4) new_type = LK_TYPE_Q4_K;
        else if (ftype == LKQ_IQ3_XXS) new_type = lkq_n_gqa(qs) >= 4 ? LK_TYPE_Q4_K : LK_TYPE_IQ3_S; /* no imatrix */
        else if ((ftype == LKQ_IQ3_XS || ftype == LKQ_IQ3_S) && lkq_n_gqa(qs) >= 4) new_type = LK_TYPE_Q4_K;
        else if (ftype == LKQ_IQ3_M) new_type = LK_TYPE_Q4_K;
        else if (ftype == LKQ_Q3_K_M) new_type = qs->i_attention_wv < 2 ? LK_TYPE_Q5_K : LK_TYPE_Q4_K;
        else if (ftype == LKQ_Q3_K_L) new_type = LK_TYPE_Q5_K;
        else if ((ftype == LKQ_IQ4_NL || ftype == LKQ_IQ4_XS) && lkq_n_gqa(qs) >= 4) new_type = LK_TYPE_Q5_K;
        else if ((ftype == LKQ_Q4_K_M || ftype == LKQ_Q5_K_M) && lkq_use_more_bits(qs->i_attention_wv, qs->n_attention_wv))
            new_type = LK_TYPE_Q6_K;
        else if (ftype == LKQ_Q4_K_S && qs->i_attention_wv < 4) new_type = LK_TYPE_Q5_K;
        if (qs->is_70b && (new_type == LK_TYPE_Q3_K || new_type == LK_TYPE_Q4_K)) new_type = LK_TYPE_Q5_K;
        if (qs->n_expert == 8) new_type = LK_TYPE_Q8_0;
        ++qs->i_attention_wv;
    } else if (lkq_contains(name, "attn_k.weight")) {
        if (qs->n_expert == 8) new_type = LK_TYPE_Q8_0;
        else if (ftype == LKQ_IQ3_XS) new_type = LK_TYPE_IQ3_XXS;
        else if (ftype == LKQ_IQ3_XXS) new_type = LK_TYPE_IQ2_S;
    } else if (lkq_contains(name, "attn_q.weight")) {
        if (ftype == LKQ_IQ3_XS) new_type = LK_TYPE_IQ3_XXS;
        else if (ftype == LKQ_IQ3_XXS) new_type = LK_TYPE_IQ2_S;
    } else if (lkq_contains(name, "ffn_down")) {
        int i_layer = qs->n_expert > 1 ? lkq_layer_of(name, qs->i_ffn_down) : qs->i_ffn_down, n_layer = qs->n_ffn_down;
        if (ftype == LKQ_Q2_K) new_type = LK_TYPE_Q3_K;
        else if (ftype == LKQ_Q2_K_S) { if (i_layer < n_layer / 8) new_type = LK_TYPE_Q4_K; }
        else if (ftype == LKQ_IQ3_XXS) new_type = i_layer < n_layer / 8 ? LK_TYPE_Q4_K : LK_TYPE_Q3_K; /* no imatrix */
        else if (ftype == LKQ_Q3_K_M)
            new_type = i_layer < n_layer / 16 ? LK_TYPE_Q5_K
                     : !falcon || lkq_use_more_bits(i_layer, n_layer) ? LK_TYPE_Q4_K : LK_TYPE_Q3_K;
        else if (ftype == LKQ_IQ3_M && (i_layer < n_layer / 8 || (qs->n_expert == 8 && lkq_use_more_bits(i_layer, n_layer))))
            new_type = LK_TYPE_Q4_K;
        else if (ftype == LKQ_Q3_K_L) new_type = falcon ? LK_TYPE_Q4_K : LK_TYPE_Q5_K;
        else if (ftype == LKQ_Q4_K_M) {
            if (falcon) new_type = i_layer < n_layer / 16 ? LK_TYPE_Q6_K : lkq_use_more_bits(i_layer, n_layer) ? LK_TYPE_Q5_K : LK_TYPE_Q4_K;
            else if (lkq_use_more_bits(i_layer, n_layer)) new_type = LK_TYPE_Q6_K;
        }
        else if (i_layer < n_layer / 8 && (ftype == LKQ_IQ4_NL || ftype == LKQ_IQ4_XS)) new_type = LK_TYPE_Q5_K; /* no imatrix */
        else if (ftype == LKQ_Q5_K_M && lkq_use_more_bits(i_layer, n_layer)) new_type = LK_TYPE_Q6_K;
        else if (ftype == LKQ_Q4_K_S && !falcon && i_layer < n_layer / 8) new_type = LK_TYPE_Q5_K;
        /* (the Q4_0/Q5_0 first-layers rule needs an imatrix) */
        ++qs->i_ffn_down;
    } else if (lkq_contains(name, "attn_output.weight")) {
        if (!falcon) {
            if (qs->n_expert == 8) {
                if (ftype == LKQ_Q2_K || ftype == LKQ_IQ3_XS || ftype == LKQ_IQ3_XXS || ftype == LKQ_Q3_K_S ||
                    ftype == LKQ_Q3_K_M || ftype == LKQ_IQ4_NL || ftype == LKQ_Q4_K_S || ftype == LKQ_Q4_K_M ||
                    ftype == LKQ_IQ3_S || ftype == LKQ_IQ3_M || ftype == LKQ_IQ4_XS) new_type = LK_TYPE_Q5_K;
            } else {
                if (ftype == LKQ_Q2_K) new_type = LK_TYPE_Q3_K;
                else if (ftype == LKQ_IQ3_XXS) new_type = LK_TYPE_IQ3_S;
                else if (ftype == LKQ_Q3_K_M) new_type = LK_TYPE_Q4_K;
                else if (ftype == LKQ_Q3_K_L) new_type = LK_TYPE_Q5_K;
                else if (ftype == LKQ_IQ3_M) new_type = LK_TYPE_Q4_K;
            }
        } else if (ftype == LKQ_Q3_K_L) new_type = LK_TYPE_Q4_K;
    } else if (lkq_contains(name, "attn_qkv.weight")) {
        if (ftype == LKQ_Q3_K_M || ftype == LKQ_Q3_K_L || ftype == LKQ_IQ3_M) new_type = LK_TYPE_Q4_K;
        else if (ftype == LKQ_Q4_K_M) new_type = LK_TYPE_Q5_K;
        else if (ftype == LKQ_Q5_K_M) new_type = LK_TYPE_Q6_K;
    } else if (lkq_contains(name, "ffn_gate")) {
        int i_layer = qs->n_expert > 1 ? lkq_layer_of(name, qs->i_ffn_gate) : qs->i_ffn_gate, n_layer = qs->n_ffn_gate;
        if (ftype == LKQ_IQ3_XS && i_layer >= n_layer / 8 && i_layer < 7 * n_layer / 8) new_type = LK_TYPE_IQ3_XXS;
        ++qs->i_ffn_gate;
    } else if (lkq_contains(name, "ffn_up")) {
        int i_layer = qs->n_expert > 1 ? lkq_layer_of(name, qs->i_ffn_up) : qs->i_ffn_up, n_layer = qs->n_ffn_up;
        if (ftype == LKQ_IQ3_XS && i_layer >= n_layer / 8 && i_layer < 7 * n_layer / 8) new_type = LK_TYPE_IQ3_XXS;
        ++qs->i_ffn_up;
    }
    if (ne0 % lk_type_get(new_type)->blck_size) {
        new_type = lkq_fallback(new_type, ne0);
        ++qs->n_fallback;
    } else {
        ++qs->n_k_quantized;
    }
    return new_type;
}

/* should llama-quantize touch this tensor at all? */
static int lkq_wants_quantize(const char *name, int n_dims, const lkq_params *p) {
    size_t len = strlen(name);
    static const char *never[] = { "_norm.weight", "ffn_gate_inp.weight", "ssm_conv1d.weight", "time_mix_first.weight",
                                   "time_mix_w1.weight", "time_mix_w2.weight", "time_mix_decay_w1.weight",
                                   "time_mix_decay_w2.weight", "time_mix_lerp_fused.weight", "attn_rel_b.weight" };
    size_t i;
    if (len < 6 || strcmp(name + len - 6, "weight") != 0) return 0;
    if (n_dims < 2) return 0;
    for (i = 0; i < sizeof never / sizeof never[0]; i++) if (strstr(name, never[i])) return 0;
    if (p->leave_output && strcmp(name, "output.weight") == 0) return 0;
    if (strcmp(name, "position_embd.weight") == 0 || strcmp(name, "token_types.weight") == 0) return 0;
    return 1;
}

/* llama.cpp's model loader order: by layer number ("blk.N."; others -1), then by name */
typedef struct lkq_item { int64_t idx; int layer; char *name; } lkq_item;
static int lkq_cmp(const void *a, const void *b) {
    const lkq_item *x = (const lkq_item *)a, *y = (const lkq_item *)b;
    if (x->layer != y->layer) return x->layer < y->layer ? -1 : 1;
    return strcmp(x->name, y->name);
}

static char *lkq_cstr(lk_str s) {
    char *c = (char *)malloc((size_t)s.len + 1);
    if (!c) return NULL;
    memcpy(c, s.ptr, (size_t)s.len);
    c[s.len] = 0;
    return c;
}
static int lkq_get_int(const lk_gguf *g, const char *arch, const char *suffix, int dflt) {
    char key[256];
    uint64_t v;
    snprintf(key, sizeof key, "%s.%s", arch, suffix);
    if (lk_gguf_get_u64_at(g, key, 0, &v) == LK_OK && v < 0x7fffffff) return (int)v;
    return dflt;
}

/* rows are quantized independently, so splitting them over threads gives
 * the same bytes */
typedef struct lkq_job { lk_type type; const float *src; unsigned char *dst; int64_t nrows, n_per_row; size_t row_size; lk_status st; } lkq_job;
static void lkq_quant_task(void *arg, int task, int n_tasks) {
    lkq_job *j = (lkq_job *)arg;
    int64_t r0 = j->nrows * task / n_tasks, r1 = j->nrows * (task + 1) / n_tasks;
    if (r1 > r0 && lk_quantize(j->type, j->src + r0 * j->n_per_row, j->dst + (size_t)r0 * j->row_size, r1 - r0, j->n_per_row, NULL))
        j->st = LK_ERR_INVALID_ARG;
}

/* Build the quantized model of `in` into a new writer (*out). Buffers the
 * writer points to are returned in *bufs / *n_bufs (free after writing). */
static lk_status lkq_quantize_model(const lk_gguf *in, const lkq_params *p, lk_gguf_writer **out, void ***bufs, int64_t *n_bufs) {
    lkq_state qs;
    lkq_item *items = NULL;
    void **owned = NULL;
    int64_t n_owned = 0, i, n = (int64_t)in->n_tensors;
    lk_gguf_writer *w = NULL;
    lk_status st = LK_OK;
    lk_str s;
    uint64_t k;
    double size_org = 0, size_new = 0;

    *out = NULL; *bufs = NULL; *n_bufs = 0;
    memset(&qs, 0, sizeof qs);
    qs.arch = "";
    if (lk_gguf_get_str(in, "general.architecture", &s) == LK_OK) qs.arch = lkq_cstr(s);
    if (!qs.arch) return lk_set_error(LK_ERR_NOMEM, "out of memory");
    qs.n_layer = lkq_get_int(in, qs.arch, "block_count", 0);
    qs.n_head = lkq_get_int(in, qs.arch, "attention.head_count", 0);
    qs.n_head_kv = lkq_get_int(in, qs.arch, "attention.head_count_kv", qs.n_head);
    qs.n_expert = lkq_get_int(in, qs.arch, "expert_count", 0);
    qs.is_70b = strcmp(qs.arch, "llama") == 0 && qs.n_layer == 80 && qs.n_head != qs.n_head_kv;
    qs.n_ffn_down = qs.n_ffn_gate = qs.n_ffn_up = qs.n_layer;

    if ((st = lk_gguf_writer_new(NULL, &w))) goto fail;
    /* metadata: copied in order, then quantization_version and file_type appended */
    for (k = 0; k < in->n_kv; k++) {
        char *key = lkq_cstr(in->kv[k].key);
        if (!key) { st = lk_set_error(LK_ERR_NOMEM, "out of memory"); goto fail; }
        if (strcmp(key, "general.quantization_version") == 0 || strcmp(key, "general.file_type") == 0 ||
            strcmp(key, "split.no") == 0 || strcmp(key, "split.count") == 0 || strcmp(key, "split.tensors.count") == 0) {
            free(key);
            continue;
        }
        if (strcmp(key, "general.alignment") == 0 && in->kv[k].value.type == LK_GGUF_UINT32)
            st = lk_gguf_writer_set_alignment(w, (uint32_t)in->kv[k].value.v.u);
        else
            st = lk_gguf_writer_add_value(w, key, &in->kv[k].value);
        free(key);
        if (st) goto fail;
    }
    if ((st = lk_gguf_writer_add_u32(w, "general.quantization_version", 2))) goto fail;
    if ((st = lk_gguf_writer_add_u32(w, "general.file_type", (uint32_t)p->ftype))) goto fail;

    items = (lkq_item *)calloc((size_t)(n ? n : 1), sizeof *items);
    owned = (void **)calloc((size_t)(n ? n : 1), sizeof *owned);
    if (!items || !owned) { st = lk_set_error(LK_ERR_NOMEM, "out of memory"); goto fail; }
    for (i = 0; i < n; i++) {
        items[i].idx = i;
        items[i].name = lkq_cstr(in->tensors[i].name);
        if (!items[i].name) { st = lk_set_error(LK_ERR_NOMEM, "out of memory"); goto fail; }
        items[i].layer = -1;
        sscanf(items[i].name, "blk.%d.", &items[i].layer);
        if (lkq_contains(items[i].name, "attn_v.weight") || lkq_contains(items[i].name, "attn_qkv.weight") ||
            lkq_contains(items[i].name, "attn_kv_b.weight")) qs.n_attention_wv++;
        else if (strcmp(items[i].name, "output.weight") == 0) qs.has_output = 1;
    }
    qsort(items, (size_t)n, sizeof *items, lkq_cmp);

    for (i = 0; i < n; i++) {
        const lk_gguf_tensor *t = &in->tensors[items[i].idx];
        const char *name = items[i].name;
        int n_dims = 1, d, quantize;
        int64_t ne[LK_MAX_DIMS], nrows, nel;
        lk_type new_type = t->type;
        size_t new_size;
        const void *new_data = t->data;
        for (d = 0; d < LK_MAX_DIMS; d++) { ne[d] = d < t->n_dims ? t->ne[d] : 1; if (ne[d] > 1) n_dims = d + 1; }
        nrows = ne[1] * ne[2] * ne[3];
        nel = ne[0] * nrows;
        quantize = lkq_wants_quantize(name, n_dims, p);
        if (quantize) {
            new_type = p->default_type;
            if (!p->pure && lkq_is_quantized_type(p->default_type))
                new_type = lkq_tensor_type(&qs, new_type, name, ne[0], p->ftype);
            if (p->token_embd_type >= 0 && strcmp(name, "token_embd.weight") == 0) new_type = (lk_type)p->token_embd_type;
            if (p->output_type >= 0 && strcmp(name, "output.weight") == 0) new_type = (lk_type)p->output_type;
            if (ne[0] % lk_type_get(new_type)->blck_size) {       /* --pure or explicit types */
                new_type = lkq_fallback(new_type, ne[0]);
                qs.n_fallback++;
            }
            quantize = t->type != new_type;
        }
        if (!p->quiet)
            fprintf(stderr, "[%4lld/%4lld] %36s - [%5lld, %5lld, %5lld, %5lld], type = %6s, ", (long long)i + 1, (long long)n, name,
                    (long long)ne[0], (long long)ne[1], (long long)ne[2], (long long)ne[3], lk_type_name(t->type));
        if (!quantize) {
            new_type = t->type;
            new_size = (size_t)t->nbytes;
            if (!p->quiet) fprintf(stderr, "size = %8.3f MB\n", (double)new_size / 1024.0 / 1024.0);
        } else {
            const lk_type_traits *src_tt = lk_type_get(t->type), *dst_tt = lk_type_get(new_type);
            float *f32 = NULL;
            const float *src;
            void *q;
            if (!dst_tt || !dst_tt->from_float) {
                st = lk_set_error(LK_ERR_UNSUPPORTED, "%s: no quantizer for type %s", name, lk_type_name(new_type));
                goto fail;
            }
            if (t->type == LK_TYPE_F32) {
                src = (const float *)t->data;
            } else if (src_tt && src_tt->to_float && (!src_tt->is_quantized || p->allow_requantize)) {
                f32 = (float *)malloc(sizeof(float) * (size_t)nel);
                if (!f32) { st = lk_set_error(LK_ERR_NOMEM, "out of memory"); goto fail; }
                for (d = 0; d < nrows; d++)
                    src_tt->to_float((const unsigned char *)t->data + (size_t)d * lk_row_size(t->type, ne[0]), f32 + d * ne[0], ne[0]);
                src = f32;
            } else {
                st = lk_set_error(LK_ERR_UNSUPPORTED, "%s: requantizing from type %s is disabled (or impossible)", name, lk_type_name(t->type));
                goto fail;
            }
            if (!p->quiet) fprintf(stderr, "converting to %s .. ", lk_type_name(new_type));
            q = malloc(lk_row_size(new_type, ne[0]) * (size_t)nrows + 1);
            if (!q) { free(f32); st = lk_set_error(LK_ERR_NOMEM, "out of memory"); goto fail; }
            owned[n_owned++] = q;
            {
                lkq_job job;
                lk_threads th;
                int nt;
                memset(&th, 0, sizeof th);
                th.n_threads = p->n_threads;
                nt = lk_threads_count(&th);
                job.type = new_type; job.src = src; job.dst = (unsigned char *)q; job.nrows = nrows; job.n_per_row = ne[0];
                job.row_size = lk_row_size(new_type, ne[0]); job.st = LK_OK;
                new_size = job.row_size * (size_t)nrows;
                lk_parallel_for(&th, (int)(nrows < nt ? nrows : nt), lkq_quant_task, &job);
                free(f32);
                if (job.st) { st = lk_set_error(LK_ERR_INVALID_ARG, "%s: quantization to %s failed", name, lk_type_name(new_type)); goto fail; }
            }
            new_data = q;
            if (!p->quiet) fprintf(stderr, "size = %8.2f MiB -> %8.2f MiB\n", (double)t->nbytes / 1024.0 / 1024.0, (double)new_size / 1024.0 / 1024.0);
        }
        size_org += (double)t->nbytes;
        size_new += (double)new_size;
        if ((st = lk_gguf_writer_add_tensor(w, name, new_type, n_dims, ne, new_data, 0))) goto fail;
    }
    if (!p->quiet) {
        fprintf(stderr, "model size  = %8.2f MB\nquant size  = %8.2f MB\n", size_org / 1024.0 / 1024.0, size_new / 1024.0 / 1024.0);
        if (qs.n_fallback)
            fprintf(stderr, "WARNING: %d of %d tensor(s) required fallback quantization\n", qs.n_fallback, qs.n_k_quantized + qs.n_fallback);
    }
    for (i = 0; i < n; i++) free(items[i].name);
    free(items);
    if (qs.arch[0]) free((void *)qs.arch);
    *out = w; *bufs = owned; *n_bufs = n_owned;
    return LK_OK;
fail:
    if (items) for (i = 0; i < n; i++) free(items[i].name);
    free(items);
    if (owned) for (i = 0; i < n_owned; i++) free(owned[i]);
    free(owned);
    lk_gguf_writer_free(w);
    if (qs.arch && qs.arch[0]) free((void *)qs.arch);
    return st;
}

static void lkq_free_bufs(void **bufs, int64_t n) {
    int64_t i;
    if (!bufs) return;
    for (i = 0; i < n; i++) free(bufs[i]);
    free(bufs);
}

/* Parse argv (without the program name); 0 on success, else prints usage/error. */
static int lkq_parse_args(int argc, char **argv, lkq_params *p, const char **in, const char **outp) {
    int i = 0;
    const lkq_ftype_name *ft;
    memset(p, 0, sizeof *p);
    p->output_type = p->token_embd_type = -1;
    for (; i < argc && argv[i][0] == '-' && argv[i][1] == '-'; i++) {
        if (strcmp(argv[i], "--pure") == 0) p->pure = 1;
        else if (strcmp(argv[i], "--leave-output-tensor") == 0) p->leave_output = 1;
        else if (strcmp(argv[i], "--allow-requantize") == 0) p->allow_requantize = 1;
        else if (strcmp(argv[i], "--quiet") == 0) p->quiet = 1;
        else if ((strcmp(argv[i], "--output-tensor-type") == 0 || strcmp(argv[i], "--token-embedding-type") == 0) && i + 1 < argc) {
            int t = lk_type_from_name(argv[i + 1]);
            if (t < 0) { fprintf(stderr, "quantize: unknown tensor type '%s'\n", argv[i + 1]); return 1; }
            if (argv[i][2] == 'o') p->output_type = t; else p->token_embd_type = t;
            i++;
        } else { fprintf(stderr, "quantize: unknown option '%s'\n", argv[i]); return 1; }
    }
    if (i < argc && strcmp(argv[i], "-q") == 0) { p->quiet = 1; i++; }
    if (argc - i < 3 || argc - i > 4) {
        fprintf(stderr, "usage: quantize [--pure] [--leave-output-tensor] [--allow-requantize] [--output-tensor-type T]\n"
                        "                [--token-embedding-type T] [--quiet] IN.gguf OUT.gguf TYPE [nthreads]\n"
                        "TYPE: Q4_0 Q4_1 Q5_0 Q5_1 Q8_0 Q2_K Q2_K_S Q3_K_S Q3_K_M Q3_K_L Q4_K_S Q4_K_M Q5_K_S Q5_K_M Q6_K\n"
                        "      F16 BF16 F32 (and the IQ/TQ names, where llmkit has the quantizer)\n");
        return 1;
    }
    *in = argv[i]; *outp = argv[i + 1];
    ft = lkq_find_ftype(argv[i + 2]);
    if (!ft) { fprintf(stderr, "quantize: unknown type '%s'\n", argv[i + 2]); return 1; }
    p->ftype = ft->ftype;
    p->default_type = ft->type;
    p->type_name = ft->name;
    if (argc - i == 4) {
        char *end;
        long nt = strtol(argv[i + 3], &end, 10);
        if (*end || nt < 1 || nt > 4096) { fprintf(stderr, "quantize: bad thread count '%s'\n", argv[i + 3]); return 1; }
        p->n_threads = (int)nt;
    }
    return 0;
}

#ifndef LK_QUANTIZE_NO_MAIN
int main(int argc, char **argv) {
    lkq_params p;
    const char *in_path, *out_path;
    lk_gguf *in = NULL;
    lk_gguf_writer *w = NULL;
    void **bufs = NULL;
    int64_t n_bufs = 0;
    lk_status st;
    if (lkq_parse_args(argc - 1, argv + 1, &p, &in_path, &out_path)) return 2;
    if ((st = lk_gguf_read_file(in_path, NULL, &in))) { fprintf(stderr, "quantize: %s: %s\n", in_path, lk_last_error()); return 1; }
    if (!p.quiet) fprintf(stderr, "quantize: %s -> %s as %s (general.file_type %d)\n", in_path, out_path, p.type_name, p.ftype);
    st = lkq_quantize_model(in, &p, &w, &bufs, &n_bufs);
    if (!st) st = lk_gguf_writer_write_file(w, out_path);
    if (st) fprintf(stderr, "quantize: %s\n", lk_last_error());
    lk_gguf_writer_free(w);
    lkq_free_bufs(bufs, n_bufs);
    lk_gguf_free(in);
    return st ? 1 : 0;
}
#endif
