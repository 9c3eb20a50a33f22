/* quantize - convert a GGUF model to another tensor type, like llama-quantize.
 *
 *   quantize [options] IN.gguf OUT.gguf TYPE [nthreads]
 *
 * TYPE is a llama-quantize file type name (Q4_0, Q4_K_M, Q8_0, F16, ...).
 * The work is lk_quantize_gguf (llmkit.h section 7c): all metadata is
 * copied, general.quantization_version and general.file_type are set, 2-D
 * weights are quantized (norms, 1-D tensors, position embeddings stay as
 * they are), and the _S/_M/_L mixes pick per-tensor types by llama.cpp's
 * rules (lk_quant_mix_type). Rows that do not fit a type's block size fall
 * back to a compatible type (K -> legacy, then F16) instead of aborting.
 * Tensors are written in llama-quantize's order (by layer, then name), so
 * the output is byte-identical to llama-quantize's without an imatrix.
 *
 * --rotate SEED first rotates the residual stream (lk_rotate_gguf: a
 * Hadamard rotation with random signs from SEED fused into the weights, the
 * F32 model's outputs unchanged; the input must be F32, F16 or BF16), then
 * quantizes; TYPE F32 writes the rotated model itself.
 *
 * Options: --pure (every weight gets TYPE), --leave-output-tensor,
 *          --output-tensor-type T, --token-embedding-type T (ggml type
 *          names, e.g. q8_0), --allow-requantize, -q/--quiet.
 * Progress goes to stderr. Define LK_QUANTIZE_NO_MAIN to use the argument
 * parser from a test. */
#include "lk_tool.h"
#ifndef LLMKIT_IMPLEMENTATION
#define LLMKIT_IMPLEMENTATION
#endif
#include "llmkit.h"

#define USAGE \
    "quantize [--pure] [--leave-output-tensor] [--allow-requantize] [--output-tensor-type T]\n" \
    "                [--token-embedding-type T] [--rotate SEED] [--quiet] IN.gguf OUT.gguf TYPE [nthreads]\n" \
    "TYPE: Q4_0 Q4_1 Q5_0 Q5_1 Q8_0 Q2_K Q2_K_S Q3_K_S Q3_K_M Q3_K_L Q4_K_S Q4_K_M Q5_K_S Q5_K_M Q6_K\n" \
    "      Q1_0 Q2_0 MXFP4_MOE F16 BF16 F32 (and the IQ/TQ names, where llmkit has the quantizer)"

typedef struct lkq_opts {
    lk_quantize_gguf_params qp;  /* threads left NULL: the caller points it at an lk_threads */
    const lk_ftype_info *ft;     /* the TYPE argument                                        */
    int n_threads;               /* <= 0: default (OpenMP: all cores)                        */
    int rotate;                  /* --rotate SEED given: lk_rotate_gguf first                 */
    uint64_t rot_seed;
    int quiet;
} lkq_opts;

/* Parse argv (without the program name); 0 on success, else prints usage/error. */
static int lkq_parse_args(int argc, char **argv, lkq_opts *o, const char **in, const char **outp) {
    int i = 0;
    tool_name = "quantize";
    memset(o, 0, sizeof *o);
    o->qp = lk_quantize_gguf_default_params();
    for (; i < argc && argv[i][0] == '-' && argv[i][1] == '-'; i++) {
        if (strcmp(argv[i], "--pure") == 0) o->qp.pure = 1;
        else if (strcmp(argv[i], "--leave-output-tensor") == 0) o->qp.leave_output = 1;
        else if (strcmp(argv[i], "--allow-requantize") == 0) o->qp.allow_requantize = 1;
        else if (strcmp(argv[i], "--quiet") == 0) o->quiet = 1;
        else if ((strcmp(argv[i], "--output-tensor-type") == 0 || strcmp(argv[i], "--token-embedding-type") == 0) && i + 1 < argc) {
            lk_type t = lk_type_from_name(argv[i + 1]);
            if (t == LK_TYPE_NONE) return tool_fail(1, "unknown tensor type '%s'", argv[i + 1]);
            if (argv[i][2] == 'o') o->qp.output_type = t; else o->qp.token_embd_type = t;
            i++;
        } else if (strcmp(argv[i], "--rotate") == 0 && i + 1 < argc) {
            int v;
            if (!tool_parse_int(argv[i + 1], 0, 2147483647, &v)) return tool_fail(1, "--rotate expects a seed in [0, 2147483647], got '%s'", argv[i + 1]);
            o->rotate = 1; o->rot_seed = (uint64_t)v;
            i++;
        } else return tool_fail(1, "unknown option '%s'", argv[i]);
    }
    if (i < argc && strcmp(argv[i], "-q") == 0) { o->quiet = 1; i++; }
    if (argc - i < 3 || argc - i > 4) { tool_usage(USAGE); return 1; }
    *in = argv[i]; *outp = argv[i + 1];
    o->ft = lk_ftype_find(argv[i + 2]);
    if (!o->ft) return tool_fail(1, "unknown type '%s'", argv[i + 2]);
    o->qp.ftype = o->ft->ftype;
    if (argc - i == 4 && !tool_parse_int(argv[i + 3], 1, 4096, &o->n_threads)) return tool_fail(1, "bad thread count '%s'", argv[i + 3]);
    return 0;
}

#ifndef LK_QUANTIZE_NO_MAIN
/* one line per tensor, as llama-quantize prints them */
static void lkq_progress(void *user, const lk_quantize_gguf_progress *e) {
    (void)user;
    fprintf(stderr, "[%4lld/%4lld] %36s - [%5lld, %5lld, %5lld, %5lld], type = %6s, ", (long long)e->index + 1, (long long)e->count,
            e->name, (long long)e->ne[0], (long long)e->ne[1], (long long)e->ne[2], (long long)e->ne[3], lk_type_name(e->src_type));
    if (!e->converted)
        fprintf(stderr, "size = %8.3f MB\n", (double)e->dst_bytes / 1024.0 / 1024.0);
    else
        fprintf(stderr, "converting to %s .. size = %8.2f MiB -> %8.2f MiB\n", lk_type_name(e->dst_type),
                (double)e->src_bytes / 1024.0 / 1024.0, (double)e->dst_bytes / 1024.0 / 1024.0);
}

int main(int argc, char **argv) {
    lkq_opts o;
    lk_threads th;
    const char *in_path = NULL, *out_path = NULL;
    lk_gguf *in = NULL, *rot = NULL;
    lk_gguf_writer *w = NULL;
    void *rbuf = NULL;
    size_t rlen = 0;
    lk_quantize_gguf_stats stats;
    lk_status st;
    if (lkq_parse_args(argc - 1, argv + 1, &o, &in_path, &out_path)) return 2;
    memset(&th, 0, sizeof th);
    th.n_threads = o.n_threads;
    o.qp.threads = &th;
    if (!o.quiet) o.qp.progress = lkq_progress;
    if ((st = lk_gguf_read_file(in_path, NULL, &in))) return tool_fail(1, "%s: %s", in_path, lk_last_error());
    if (o.rotate) {   /* the rotated model, in memory, is what gets quantized */
        lk_rotate_params rp = lk_rotate_default_params();
        rp.seed = o.rot_seed;
        if ((st = lk_rotate_gguf(in, &rp, &w))) return tool_fail(1, "%s: %s", in_path, lk_last_error());
        rlen = (size_t)lk_gguf_writer_size(w);
        if (!(rbuf = malloc(rlen))) return tool_fail(1, "out of memory");
        if ((st = lk_gguf_writer_write_memory(w, rbuf, rlen)) || (st = lk_gguf_read_memory(rbuf, rlen, NULL, &rot)))
            return tool_fail(1, "%s: %s", in_path, lk_last_error());
        lk_gguf_writer_free(w);
        w = NULL;
        if (!o.quiet) fprintf(stderr, "quantize: rotated the residual stream (seed %llu)\n", (unsigned long long)o.rot_seed);
    }
    if (!o.quiet) fprintf(stderr, "quantize: %s -> %s as %s (general.file_type %d)\n", in_path, out_path, o.ft->name, o.ft->ftype);
    st = lk_quantize_gguf(rot ? rot : in, &o.qp, &w, &stats);
    if (!st && !o.quiet) {
        fprintf(stderr, "model size  = %8.2f MB\nquant size  = %8.2f MB\n", (double)stats.src_bytes / 1024.0 / 1024.0,
                (double)stats.dst_bytes / 1024.0 / 1024.0);
        if (stats.n_fallback)
            fprintf(stderr, "WARNING: %d of %d tensor(s) required fallback quantization\n", stats.n_fallback, stats.n_mixed + stats.n_fallback);
    }
    if (!st) st = lk_gguf_writer_write_file(w, out_path);
    if (st) tool_lk_fail(1);
    lk_gguf_writer_free(w);
    lk_gguf_free(rot);
    free(rbuf);
    lk_gguf_free(in);
    return st ? 1 : 0;
}
#endif
