/* convert-llama2c: turn a llama2.c checkpoint and tokenizer into a GGUF that
 * llmkit and llama.cpp both load.
 *   build: cc -O2 -I. tools/convert-llama2c.c -lm -o convert-llama2c
 *   usage: convert-llama2c MODEL.bin TOKENIZER.bin OUT.gguf [-c N_CTX]
 * MODEL.bin: int32 {dim, hidden_dim, n_layers, n_heads, n_kv_heads,
 *   vocab_size (negative = separate classifier), seq_len}, then float32
 *   token_embedding[vocab][dim], rms_att[L][dim], wq[L][dim][dim],
 *   wk[L][kv_dim][dim], wv[L][kv_dim][dim], wo[L][dim][dim], rms_ffn[L][dim],
 *   w1[L][hidden][dim], w2[L][dim][hidden], w3[L][hidden][dim], rms_final[dim],
 *   freq_cis_real/imag[seq_len][head_size/2], (wcls[vocab][dim]).
 *   Matrices are row-major [out][in], which is ggml's layout: no permutation
 *   (llama2.c rotates adjacent pairs, llama.cpp's "normal" RoPE).
 * TOKENIZER.bin: int32 max_token_length, then per token float32 score,
 *   int32 len, bytes. Spaces become U+2581 as in SentencePiece vocabularies.
 * N_CTX defaults to the checkpoint's seq_len (llama.cpp's converter writes
 * 128 unless told otherwise; logits do not depend on it). */
#include "lk_tool.h"
#define LLMKIT_IMPLEMENTATION
#include "llmkit.h"

int main(int argc, char **argv) {
    const char *min = NULL, *tin = NULL, *out = NULL;
    int32_t cfg[7], n_ctx = 0;
    int dim, hidden, L, nh, nkv, V, seq, shared, hs, kvd, i, l, k;
    size_t mlen, tlen, need_f;
    char *mfile, *tfile;
    unsigned char *mb, *tb;
    const float *w, *p;
    lk_gguf_writer *wr;
    char **toks;
    float *scores;
    int32_t *types;
    size_t off;
    char name[64];
    int pos = 0;
    tool_name = "convert-llama2c";
    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-c") && i + 1 < argc) n_ctx = atoi(argv[++i]);
        else if (pos == 0) { min = argv[i]; pos++; }
        else if (pos == 1) { tin = argv[i]; pos++; }
        else if (pos == 2) { out = argv[i]; pos++; }
        else pos = 9;
    }
    if (pos != 3) return tool_usage("convert-llama2c MODEL.bin TOKENIZER.bin OUT.gguf [-c N_CTX]");
    /* read both files whole */
    if (tool_read_file(min, &mfile, &mlen)) return tool_lk_fail(1);
    if (mlen < 28) return tool_fail(1, "model file is too short for a llama2.c header");
    if (tool_read_file(tin, &tfile, &tlen)) return tool_lk_fail(1);
    if (tlen < 4) return tool_fail(1, "tokenizer file is too short");
    mb = (unsigned char *)mfile; tb = (unsigned char *)tfile;
    memcpy(cfg, mb, sizeof cfg);
    dim = cfg[0]; hidden = cfg[1]; L = cfg[2]; nh = cfg[3]; nkv = cfg[4]; V = cfg[5]; seq = cfg[6];
    shared = V > 0; if (V < 0) V = -V;
    if (dim <= 0 || hidden <= 0 || L <= 0 || nh <= 0 || nkv <= 0 || V <= 0 || seq <= 0 || dim > (1 << 16) || hidden > (1 << 18) ||
        L > 1024 || V > (1 << 22) || seq > (1 << 22) || dim % nh || nh % nkv)
        return tool_fail(1, "the header is not a valid llama2.c config");
    hs = dim / nh; kvd = nkv * hs;
    need_f = (size_t)V * dim + (size_t)L * (2 * (size_t)dim + 2 * (size_t)dim * dim + 2 * (size_t)kvd * dim + 3 * (size_t)hidden * dim) + dim +
             (size_t)seq * hs + (shared ? 0 : (size_t)V * dim);
    if (need_f > (mlen - 28) / 4) return tool_fail(1, "the model file is shorter than its header says");
    w = (const float *)(mb + 28);

    /* tokenizer */
    toks = (char **)calloc((size_t)V, sizeof(char *)); scores = (float *)malloc(sizeof(float) * (size_t)V);
    types = (int32_t *)malloc(sizeof(int32_t) * (size_t)V);
    off = 4;
    for (i = 0; i < V; i++) {
        int32_t len; unsigned bv; char *t; int j, o = 0;
        if (off + 8 > tlen) return tool_fail(1, "the tokenizer file is truncated");
        memcpy(&scores[i], tb + off, 4); memcpy(&len, tb + off + 4, 4); off += 8;
        if (len < 0 || (size_t)len > tlen - off) return tool_fail(1, "the tokenizer file has a bad token length");
        t = (char *)malloc((size_t)len * 3 + 8);
        for (j = 0; j < len; j++) {   /* ' ' -> U+2581 (e2 96 81) */
            unsigned char ch = tb[off + j];
            if (ch == ' ') { t[o++] = (char)0xe2; t[o++] = (char)0x96; t[o++] = (char)0x81; } else t[o++] = (char)ch;
        }
        t[o] = 0; off += (size_t)len;
        types[i] = 1;                                             /* normal  */
        if (i == 0) { strcpy(t, "<unk>"); types[i] = 2; }         /* unknown */
        else if (i == 1) { strcpy(t, "<s>"); types[i] = 3; }      /* control */
        else if (i == 2) { strcpy(t, "</s>"); types[i] = 3; }
        else if (len == 0) types[i] = 3;
        else if (len == 6 && sscanf(t, "<0x%02X>", &bv) == 1) types[i] = 6;  /* byte */
        toks[i] = t;
    }

    if (lk_gguf_writer_new(NULL, &wr)) return tool_lk_fail(1);
#define CK(x) do { if (x) return tool_lk_fail(1); } while (0)
    CK(lk_gguf_writer_add_arr_str(wr, "tokenizer.ggml.tokens", (const char *const *)toks, (uint64_t)V));
    CK(lk_gguf_writer_add_arr(wr, "tokenizer.ggml.scores", LK_GGUF_FLOAT32, scores, (uint64_t)V));
    CK(lk_gguf_writer_add_arr(wr, "tokenizer.ggml.token_type", LK_GGUF_INT32, types, (uint64_t)V));
    CK(lk_gguf_writer_add_str(wr, "tokenizer.ggml.model", "llama"));
    CK(lk_gguf_writer_add_str(wr, "general.architecture", "llama"));
    CK(lk_gguf_writer_add_str(wr, "general.name", "llama"));
    CK(lk_gguf_writer_add_u32(wr, "tokenizer.ggml.unknown_token_id", 0));
    CK(lk_gguf_writer_add_u32(wr, "tokenizer.ggml.bos_token_id", 1));
    CK(lk_gguf_writer_add_u32(wr, "tokenizer.ggml.eos_token_id", 2));
    CK(lk_gguf_writer_add_u32(wr, "tokenizer.ggml.seperator_token_id", 0xffffffffu));  /* sic: the GGUF key's spelling */
    CK(lk_gguf_writer_add_u32(wr, "tokenizer.ggml.padding_token_id", 0xffffffffu));
    CK(lk_gguf_writer_add_u32(wr, "llama.context_length", (uint32_t)(n_ctx > 0 ? n_ctx : seq)));
    CK(lk_gguf_writer_add_u32(wr, "llama.embedding_length", (uint32_t)dim));
    CK(lk_gguf_writer_add_u32(wr, "llama.feed_forward_length", (uint32_t)hidden));
    CK(lk_gguf_writer_add_u32(wr, "llama.attention.head_count", (uint32_t)nh));
    CK(lk_gguf_writer_add_u32(wr, "llama.attention.head_count_kv", (uint32_t)nkv));
    CK(lk_gguf_writer_add_u32(wr, "llama.block_count", (uint32_t)L));
    CK(lk_gguf_writer_add_u32(wr, "llama.rope.dimension_count", (uint32_t)hs));
    CK(lk_gguf_writer_add_f32(wr, "llama.attention.layer_norm_rms_epsilon", 1e-5f));
    {
        /* offsets (in floats) of each llama2.c array */
        const float *emb = w, *rms_att = emb + (size_t)V * dim, *wq = rms_att + (size_t)L * dim;
        const float *wk = wq + (size_t)L * dim * dim, *wv = wk + (size_t)L * kvd * dim, *wo = wv + (size_t)L * kvd * dim;
        const float *rms_ffn = wo + (size_t)L * dim * dim, *w1 = rms_ffn + (size_t)L * dim, *w2 = w1 + (size_t)L * hidden * dim;
        const float *w3 = w2 + (size_t)L * dim * hidden, *rms_fin = w3 + (size_t)L * hidden * dim;
        const float *wcls = shared ? emb : rms_fin + dim + (size_t)seq * hs;   /* skip freq_cis real+imag */
        int64_t ne[2];
        ne[0] = dim; ne[1] = V; CK(lk_gguf_writer_add_tensor(wr, "token_embd.weight", LK_TYPE_F32, 2, ne, emb, 0));
        ne[0] = dim; CK(lk_gguf_writer_add_tensor(wr, "output_norm.weight", LK_TYPE_F32, 1, ne, rms_fin, 0));
        ne[0] = dim; ne[1] = V; CK(lk_gguf_writer_add_tensor(wr, "output.weight", LK_TYPE_F32, 2, ne, wcls, 0));
        for (l = 0; l < L; l++) {
            struct { const char *n; const float *base; int64_t in, out; int nd; } t[] = {
                { "attn_q", wq, dim, dim, 2 }, { "attn_k", wk, dim, kvd, 2 }, { "attn_v", wv, dim, kvd, 2 },
                { "attn_output", wo, dim, dim, 2 }, { "attn_norm", rms_att, dim, 1, 1 }, { "ffn_gate", w1, dim, hidden, 2 },
                { "ffn_down", w2, hidden, dim, 2 }, { "ffn_up", w3, dim, hidden, 2 }, { "ffn_norm", rms_ffn, dim, 1, 1 } };
            for (k = 0; k < (int)(sizeof t / sizeof t[0]); k++) {
                snprintf(name, sizeof name, "blk.%d.%s.weight", l, t[k].n);
                ne[0] = t[k].in; ne[1] = t[k].out;
                p = t[k].base + (size_t)l * t[k].in * t[k].out;
                CK(lk_gguf_writer_add_tensor(wr, name, LK_TYPE_F32, t[k].nd, ne, p, 0));
            }
        }
    }
    CK(lk_gguf_writer_write_file(wr, out));
    fprintf(stderr, "convert-llama2c: wrote %s (dim %d, %d layers, %d heads, %d kv heads, vocab %d, %s classifier)\n",
            out, dim, L, nh, nkv, V, shared ? "shared" : "separate");
    lk_gguf_writer_free(wr);
    for (i = 0; i < V; i++) free(toks[i]);
    free(toks); free(scores); free(types); free(mb); free(tb);
    return 0;
}
