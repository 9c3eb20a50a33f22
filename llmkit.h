/* llmkit.h - a single-file C toolkit for running large language models.
 *
 * USAGE
 *   In exactly one C or C++ file:
 *       #define LLMKIT_IMPLEMENTATION
 *       #include "llmkit.h"
 *   Everywhere else just #include "llmkit.h".
 *   Build: cc -O2 -march=native app.c -lm        (add -fopenmp to use all cores)
 *
 * CONFIGURATION (define before including, in the implementation file)
 *   LLMKIT_STATIC        every function gets static linkage (private copy per file)
 *   LLMKIT_NO_STDIO      no file functions at all (memory-only; firmware)
 *   LLMKIT_NO_MMAP       read files into memory with fread instead of mmap
 *   LLMKIT_NO_MALLOC     no malloc/free: all memory comes from caller arenas
 *   LLMKIT_NO_SIMD       scalar reference kernels only
 *   LLMKIT_NO_THREADS    ignore OpenMP even when compiled with -fopenmp
 *   LLMKIT_NO_TLS        the last-error message in one global buffer, not a
 *                        thread-local one (the default on Cortex-M: bare-metal
 *                        runtimes have no thread-local storage)
 *   LLMKIT_ASSERT(x)     internal consistency checks (default: nothing). Never
 *                        used for input validation; bad input returns a status.
 *   LLMKIT_MALLOC(sz,u) / LLMKIT_FREE(p,u)   replace malloc/free (u = user ptr)
 * Compile-out switches, so that firmware links only what it runs:
 *   LLMKIT_NO_TOKENIZER  leave out the tokenizer and chat templates (section 12;
 *                        only the lk_vocab type name remains): models load
 *                        without a vocabulary
 *   LLMKIT_NO_IQ         leave out the IQ and ternary formats (7b): the types
 *                        stay known, using them reports LK_ERR_UNSUPPORTED
 *   LLMKIT_NO_QUANTIZE   leave out the weight quantizers and model
 *                        quantization (7c); the activation quantizers and the
 *                        q8_0 / q4_0 ones the KV cache uses stay
 *   LLMKIT_NO_KV_POLICIES  full attention only (section 10's other policies
 *                        are refused at context creation)
 *
 * LICENSE: MIT or public domain (Unlicense), your choice. See end of file.
 *
 * TABLE OF CONTENTS (the implementation, section 14, follows the same order:
 * 14.N implements section N)
 *    1. Usage, configuration, version            (this block)
 *    2. Status codes and error messages           lk_status, lk_last_error, the error conventions
 *                                                 2b the handle types (lk_model, lk_context, ...)
 *    3. Memory and threads                        3a lk_allocator, lk_arena
 *                                                 3b lk_threads, the parallel-for hook
 *    4. Types                                     lk_type, lk_type_traits, lk_token
 *    5. Tensors                                   lk_tensor
 *    6. GGUF                                      lk_gguf (reader), lk_gguf_writer
 *    7. Quantization                              7a float, legacy and K-quant formats, matmul
 *                                                 7b IQ and ternary formats
 *                                                 7c model quantization (lk_quantize_gguf)
 *                                                 (14.7s: the SIMD kernels of 7a and 7b: x86,
 *                                                 NEON, Cortex-M; the kernel table)
 *    8. Ops                                       norms, RoPE, activations, softmax
 *    9. Attention                                 one core over a KV view
 *   10. KV cache                                  storage types (14.10), policies (14.10p)
 *   11. Sampling                                  samplers, chain, RNG
 *   12. Tokenizer                                 SPM, BPE, WPM from GGUF metadata
 *                                                 12b chat templates (lk_chat_apply, lk_chat)
 *   13. Model                                     architectures, forward, context
 *   14. Implementation                            #ifdef LLMKIT_IMPLEMENTATION
 *
 * WHERE TO FIND (search for the name)
 *   the forward pass        lk__forward: lk__embed, then per layer lk__attn_block and
 *                           lk__ffn_block, then lk__output (14.13)
 *   the architectures       lk__archs, one row each (14.13); a layer's window and RoPE
 *                           are set at bind (lk__model_bind_layer); mixture of experts:
 *                           lk__moe (router, top-k, experts on their rows)
 *   the attention layer     lk__kv_attend and the policy table lk__kv_policies (14.10p);
 *                           the core lk_attn and its stages lk__attn_dots, _mask_scale,
 *                           _exp, _weights, _vsum (14.9); prefill blocks of queries:
 *                           lk__attn_qblock (called by lk__rows_fn)
 *   the type table          lk__type_table (14.4)
 *   a format's reference    the type table's lk__quantize_row_<t>, lk__dequantize_row_<t>,
 *                           lk__vec_dot_<t>_<act>_ref (14.7a), one-line wrappers of the
 *                           family loops: lk__legacy_* (q4/q5), lk__q8_*, lk__kq_dot
 *                           (K-quants); lk__iq_group / _to_float / _dot (IQ2, IQ3, IQ1)
 *                           and lk__<type>_* (IQ4, TQ) in 14.7b
 *   a format's SIMD         the kernel table lk__kernel_table (end of 14.7s): for each
 *                           target (x86, NEON, Cortex-M, none) a row per type naming its
 *                           dot product, tiles and interleaved-row kernel. The kernels
 *                           (14.7s): lk__vd_<t>_t and the tile families lk__tile_<f>_x86
 *                           (x86), lk__vd_<t>_arm (NEON), lk__vd_<t>_mve / _dsp
 *                           (Cortex-M). Every reference names its SIMD kernels and every
 *                           kernel its reference.
 *   matmul                  lk_matmul (14.7a), with the kernels of the weight type's row
 *                           of lk__kernel_table; interleaved rows (LK_LAYOUT_R8):
 *                           lk_repack_r8, the layouts LK__R8_<type> and references
 *                           lk__r8_<type>_ref (14.7r, in 14.7a), the kernels
 *                           lk__r8_<type>_x86 (14.7s), the load-time repack
 *                           lk__model_repack (14.13)
 *   the tokenizer           lk_vocab_load (its steps: lk__vocab_*), lk_tokenize (14.12)
 *   chat templates          lk__chat_families (a row per family: its rules), lk__chat_detect
 *                           (llama.cpp's detection order), lk__chat_render (14.12b)
 *   the GGUF parser         lk__gguf_parse (14.6)
 *   the KV cache            lk_kv_cache_store, lk_kv_cache_view (14.10)
 *   the sampler chain       lk__sampler_run: lk_sampler_sample_ex, lk_sampler_probs (14.11)
 *   token trees, speculation lk_decode_tree, lk_context_tree_commit (14.13: the forward with
 *                           the tree mask; a node's rows by lk__tree_rows); lk_spec: the
 *                           proposals lk__spec_build_<mode>, the acceptance walk
 *                           lk__spec_verify / lk__spec_walk_node (14.13)
 *   many sequences          lk_decode_batch, the pages lk__seq_slot / lk__seq_cut, the
 *                           rows a token sees lk__tok_view (14.13); lk_sched_plan
 *   option names            the option tables, a row per option: lk__sampler_options
 *                           (14.11), lk__model_options, lk__context_options,
 *                           lk__spec_options (14.13); one setter applies them,
 *                           lk__options_set (14.2); tools print --help from the
 *                           same rows (lk_options, lk_option_help)
 *
 * DESIGN NOTES
 *   Tables, not if-chains: a type is a row of lk__type_table (and its SIMD
 *   kernels a row of lk__kernel_table), an architecture a row of lk__archs,
 *   a KV policy a row of lk__kv_policies, an option a row of its params_set
 *   table. A new one is a new row plus any truly new code.
 *   Arithmetic follows ggml's, op for op, including which kernel ggml
 *   dispatches (tinyBLAS 16-lane rows for batched F32/F16, vec_dot order for
 *   other widths, 8-lane integer sums for q8_0): that is what makes logits
 *   bit-identical to llama.cpp's. One exception by design: a decode step
 *   keeps the prefill's order, so results do not depend on batch size.
 *   Everything read from a file is untrusted: counts and sizes go through
 *   saturating arithmetic (lk__szm, lk__sza) before any allocation, tensor
 *   shapes are checked against the architecture before use, and non-finite
 *   logits are an error (LK_ERR_FORMAT), never handed to a sampler.
 *   Errors: section 2 gives one convention per kind of function.
 */
#ifndef LLMKIT_H
#define LLMKIT_H

#include <stddef.h>
#include <stdint.h>

#define LLMKIT_VERSION_MAJOR 0
#define LLMKIT_VERSION_MINOR 1
#define LLMKIT_VERSION_PATCH 0
#define LLMKIT_VERSION_STRING "0.1.0"

#ifndef LKDEF
#ifdef LLMKIT_STATIC
#if defined(__GNUC__) || defined(__clang__)
#define LKDEF static __attribute__((unused))
#else
#define LKDEF static
#endif
#else
#define LKDEF extern
#endif
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ==========================================================================
 * 2. Status codes and error messages
 * ==========================================================================
 * lk_last_error() returns a human-readable message for the last failure on
 * this thread, naming what was wrong and where (for files: the field and
 * byte offset). One convention per kind of function:
 *   operations that can fail (read, load, decode, quantize, sample_ex, ...)
 *     return lk_status: LK_OK (0), or an error with lk_last_error() set;
 *   constructors are lk_status lk_<thing>_new / _load / _read(..., const
 *     lk_<thing>_params *p, lk_<thing> **out): p NULL means the defaults of
 *     lk_<thing>_default_params(), *out is NULL after a failure, and the
 *     matching _free accepts NULL;
 *   queries that cannot fail return the value itself; an absent or invalid
 *     one is a documented sentinel (NULL, -1, 0, "?", LK_TYPE_NONE) and
 *     sets no error;
 *   the tokenizer's text functions (lk_tokenize, lk_token_to_piece,
 *     lk_detokenize) return a count: >= 0 items written, -(needed) when the
 *     buffer is too small, LK_TOKENIZE_ERROR for bad arguments (with
 *     lk_last_error() set);
 *   the chat template functions (lk_chat_apply, lk_chat_apply_template)
 *     return a length with snprintf semantics, or -1 with lk_last_error()
 *     set;
 *   convenience functions that return a token (lk_sampler_sample,
 *     lk_spec_accept) return -1 on failure, with lk_last_error() set;
 *   math kernels on caller buffers (lk_rmsnorm, lk_rope_apply, lk_attn, ...)
 *     return nothing: valid arguments are the caller's part of the contract. */
typedef enum lk_status {
    LK_OK = 0,
    LK_ERR_INVALID_ARG,   /* a caller-supplied argument is wrong        */
    LK_ERR_NOMEM,         /* an allocation (or arena) ran out           */
    LK_ERR_IO,            /* open/read/write/mmap failed                */
    LK_ERR_FORMAT,        /* input bytes are malformed                  */
    LK_ERR_UNSUPPORTED,   /* valid input we cannot handle (yet)         */
    LK_ERR_NOT_FOUND,     /* a key, tensor or name does not exist       */
    LK_ERR_TYPE,          /* a value exists but has an incompatible type*/
    LK_ERR_RANGE,         /* an index/position/size is out of range     */
    LK_ERR_COUNT_
} lk_status;

LKDEF const char *lk_status_str(lk_status st);
LKDEF const char *lk_last_error(void);
/* Set the message (printf-style) and return st; used by the library and
 * available to applications that want the same convention. */
LKDEF lk_status lk_set_error(lk_status st, const char *fmt, ...);
LKDEF void lk_clear_error(void);

/* ==========================================================================
 * 2b. Handles
 * ==========================================================================
 * The library's objects, declared once here so that any section can name
 * them. Each comes from its constructor (section 2's convention: _new,
 * _load or _read with a params struct) and goes back through its _free.
 * All but lk_gguf are opaque. */
typedef struct lk_gguf lk_gguf;               /* a parsed GGUF file over its buffer; fields public (6)     */
typedef struct lk_gguf_writer lk_gguf_writer; /* KVs and tensors collected for a new GGUF file (6)         */
typedef struct lk_sampler lk_sampler;         /* a sampler chain with its RNG and token history (11)       */
typedef struct lk_vocab lk_vocab;             /* a tokenizer vocabulary read from GGUF metadata (12); the
                                               * name stays under LLMKIT_NO_TOKENIZER                      */
typedef struct lk_chat lk_chat;               /* a conversation kept in step with a context's tokens (12b) */
typedef struct lk_model lk_model;             /* weights, hyperparameters and vocabulary of a model (13)   */
typedef struct lk_context lk_context;         /* one model's KV cache, buffers and threads for decoding (13) */
typedef struct lk_spec lk_spec;               /* speculative decoding of a target context (13)             */

/* ==========================================================================
 * 3. Memory and threads
 * ==========================================================================
 * (the two foundations every later section uses: where memory comes from,
 * and how work is split over threads) */

/* --------------------------------------------------------------------------
 * 3a. Memory
 * --------------------------------------------------------------------------
 * The library allocates only through an lk_allocator. NULL allocator
 * arguments mean the default (malloc/free, or "no memory" under
 * LLMKIT_NO_MALLOC). An lk_arena is a bump allocator over a caller buffer. */
typedef struct lk_allocator {
    void *(*alloc)(void *user, size_t size, size_t align); /* NULL on failure */
    void (*free)(void *user, void *ptr, size_t size);      /* may be NULL     */
    void *user;
} lk_allocator;

LKDEF lk_allocator lk_default_allocator(void);

typedef struct lk_arena {
    unsigned char *base;
    size_t size;  /* capacity in bytes          */
    size_t used;  /* bytes handed out so far    */
    size_t peak;  /* high-water mark of used    */
} lk_arena;

LKDEF void lk_arena_init(lk_arena *a, void *buf, size_t size);
LKDEF void *lk_arena_alloc(lk_arena *a, size_t size, size_t align); /* NULL if full */
LKDEF void lk_arena_reset(lk_arena *a);
LKDEF lk_allocator lk_arena_allocator(lk_arena *a); /* free is a no-op */

/* --------------------------------------------------------------------------
 * 3b. Threads
 * --------------------------------------------------------------------------
 * The library starts no threads of its own. Parallel work is split into
 * tasks through one hook; the default runs tasks with OpenMP when compiled
 * with -fopenmp (and not LLMKIT_NO_THREADS), else serially. A server or an
 * RTOS passes its own pool. Results never depend on the number of tasks. */
typedef void (*lk_task_fn)(void *arg, int task, int n_tasks);
typedef void (*lk_parallel_for_fn)(void *user, int n_tasks, lk_task_fn fn, void *arg);

typedef struct lk_threads {
    lk_parallel_for_fn parallel_for; /* NULL = default (OpenMP or serial)  */
    void *user;
    int n_threads;                   /* <= 0: default (all cores / 1)      */
} lk_threads;

/* Run fn(arg, i, n_tasks) for i in [0, n_tasks). t may be NULL. */
LKDEF void lk_parallel_for(const lk_threads *t, int n_tasks, lk_task_fn fn, void *arg);
LKDEF int lk_threads_count(const lk_threads *t);

/* ==========================================================================
 * 4. Types
 * ==========================================================================
 * Tensor element types with ggml/GGUF ids. One table row per type: name,
 * block size (elements), bytes per block, and the conversion and dot
 * product kernels (filled in by section 7). Adding a type = adding a row. */
typedef enum lk_type {
    LK_TYPE_F32 = 0, LK_TYPE_F16 = 1, LK_TYPE_Q4_0 = 2, LK_TYPE_Q4_1 = 3,
    /* 4, 5: removed Q4_2 / Q4_3 */
    LK_TYPE_Q5_0 = 6, LK_TYPE_Q5_1 = 7, LK_TYPE_Q8_0 = 8, LK_TYPE_Q8_1 = 9,
    LK_TYPE_Q2_K = 10, LK_TYPE_Q3_K = 11, LK_TYPE_Q4_K = 12, LK_TYPE_Q5_K = 13,
    LK_TYPE_Q6_K = 14, LK_TYPE_Q8_K = 15,
    LK_TYPE_IQ2_XXS = 16, LK_TYPE_IQ2_XS = 17, LK_TYPE_IQ3_XXS = 18,
    LK_TYPE_IQ1_S = 19, LK_TYPE_IQ4_NL = 20, LK_TYPE_IQ3_S = 21,
    LK_TYPE_IQ2_S = 22, LK_TYPE_IQ4_XS = 23,
    LK_TYPE_I8 = 24, LK_TYPE_I16 = 25, LK_TYPE_I32 = 26, LK_TYPE_I64 = 27,
    LK_TYPE_F64 = 28, LK_TYPE_IQ1_M = 29, LK_TYPE_BF16 = 30,
    /* 31..33: removed Q4_0_4_4 / Q4_0_4_8 / Q4_0_8_8 */
    LK_TYPE_TQ1_0 = 34, LK_TYPE_TQ2_0 = 35,
    /* 36..38: removed IQ4_NL_4_4 / _4_8 / _8_8 */
    LK_TYPE_COUNT = 39,
    LK_TYPE_NONE = -1     /* "no type": lk_type_from_name's miss, "keep" in options */
} lk_type;

/* y[0..n) = float(x)            n is a multiple of blck_size */
typedef void (*lk_to_float_fn)(const void *x, float *y, int64_t n);
/* y = quantize(x)               reference quantizer, ggml-identical bytes */
typedef void (*lk_from_float_fn)(const float *x, void *y, int64_t n);
/* *s = dot(x, y)  x: n elements of this type, y: n elements of vec_dot_type */
typedef void (*lk_vec_dot_fn)(int64_t n, float *s, const void *x, const void *y);

typedef struct lk_type_traits {
    const char *name;         /* "q4_0", as ggml spells it; NULL = unused id */
    int64_t blck_size;        /* elements per block                          */
    size_t type_size;         /* bytes per block                             */
    int is_quantized;
    lk_to_float_fn to_float;
    lk_from_float_fn from_float;
    lk_vec_dot_fn vec_dot;
    lk_type vec_dot_type;     /* activation format vec_dot expects           */
} lk_type_traits;

/* NULL for ids that are not (or no longer) valid tensor types */
LKDEF const lk_type_traits *lk_type_get(lk_type type);
LKDEF const char *lk_type_name(lk_type type);       /* "?" if unknown */
LKDEF lk_type lk_type_from_name(const char *name);  /* case-insensitive, LK_TYPE_NONE if none */
/* Bytes of a row of n elements; 0 if n is not a multiple of the block size
 * or the type is unknown. */
LKDEF size_t lk_row_size(lk_type type, int64_t n);

/* A token id: an index into a model's vocabulary. Every signature that
 * takes or returns tokens uses lk_token (tokenizer, decode, samplers). */
typedef int32_t lk_token;

/* ==========================================================================
 * 5. Tensors
 * ==========================================================================
 * ggml layout: ne[0] is the row length (contiguous), ne[1] rows, ...
 * nb[i] are byte strides; nb[0] is the block size in bytes. A weight matrix
 * W with ne = [in, out] holds `out` rows of `in` elements, y = W x. */
#define LK_MAX_DIMS 4
typedef struct lk_tensor {
    lk_type type;
    int n_dims;
    int64_t ne[LK_MAX_DIMS];  /* elements per dimension (unused dims = 1) */
    size_t nb[LK_MAX_DIMS];   /* byte strides                             */
    void *data;
    const char *name;         /* may be NULL; not owned                   */
    int layout;               /* LK_LAYOUT_ROWS (0): rows as in GGUF; LK_LAYOUT_R8:
                               * rows interleaved in groups of 8 (lk_repack_r8) */
} lk_tensor;
#define LK_LAYOUT_ROWS 0
#define LK_LAYOUT_R8 1

/* Fill ne/nb for a contiguous tensor; returns LK_ERR_RANGE on overflow or a
 * row length that is not a multiple of the block size. */
LKDEF lk_status lk_tensor_init(lk_tensor *t, lk_type type, int n_dims, const int64_t *ne, void *data);
LKDEF int64_t lk_tensor_nelements(const lk_tensor *t);
LKDEF size_t lk_tensor_nbytes(const lk_tensor *t);
LKDEF size_t lk_tensor_row_size(const lk_tensor *t);   /* bytes of one row (ne[0]) */
LKDEF int64_t lk_tensor_nrows(const lk_tensor *t);     /* ne[1]*ne[2]*ne[3]        */

/* ==========================================================================
 * 6. GGUF
 * ==========================================================================
 * Reader: zero-copy over (ptr, len). Strings and tensor data point into the
 * caller's buffer, which must outlive the lk_gguf. Every count, length and
 * offset is validated; malformed input returns LK_ERR_FORMAT with a message
 * naming the field and byte offset. Files are mmapped (or read, under
 * LLMKIT_NO_MMAP) by lk_gguf_read_file.
 * Writer: collects KVs and tensors, then writes a GGUF v3 file or buffer. */
typedef enum lk_gguf_type {
    LK_GGUF_UINT8 = 0, LK_GGUF_INT8 = 1, LK_GGUF_UINT16 = 2, LK_GGUF_INT16 = 3,
    LK_GGUF_UINT32 = 4, LK_GGUF_INT32 = 5, LK_GGUF_FLOAT32 = 6, LK_GGUF_BOOL = 7,
    LK_GGUF_STRING = 8, LK_GGUF_ARRAY = 9, LK_GGUF_UINT64 = 10, LK_GGUF_INT64 = 11,
    LK_GGUF_FLOAT64 = 12, LK_GGUF_TYPE_COUNT = 13
} lk_gguf_type;

#define LK_GGUF_DEFAULT_ALIGNMENT 32
#define LK_GGUF_MAX_DEPTH 8        /* nesting limit for arrays of arrays */

typedef struct lk_str {            /* not NUL-terminated */
    const char *ptr;
    uint64_t len;
} lk_str;

typedef struct lk_gguf_value {
    lk_gguf_type type;
    /* arrays: element type and count; data by element type:
     *   scalar types -> raw little-endian elements at `arr`
     *   STRING       -> `strs[n]`
     *   ARRAY        -> `elems[n]` (nested values)                      */
    lk_gguf_type arr_type;
    uint64_t n;
    union {
        uint64_t u;    /* UINT8..UINT64, BOOL (0/1)     */
        int64_t i;     /* INT8..INT64 (sign-extended)   */
        double f;      /* FLOAT32, FLOAT64              */
        lk_str s;      /* STRING                        */
        const void *arr;
        lk_str *strs;
        struct lk_gguf_value *elems;
    } v;
} lk_gguf_value;

typedef struct lk_gguf_kv {
    lk_str key;
    lk_gguf_value value;
    uint64_t offset;                /* byte offset of the key in the file */
} lk_gguf_kv;

typedef struct lk_gguf_tensor {
    lk_str name;
    lk_type type;
    int n_dims;
    int64_t ne[LK_MAX_DIMS];
    uint64_t offset;                /* relative to the data section       */
    uint64_t nbytes;
    const void *data;               /* points into the buffer             */
} lk_gguf_tensor;

struct lk_gguf {                    /* (the typedef is in section 2b) */
    uint32_t version;
    uint64_t n_kv;
    lk_gguf_kv *kv;
    uint64_t n_tensors;
    lk_gguf_tensor *tensors;
    uint64_t alignment;
    uint64_t data_offset;           /* absolute offset of the data section */
    const unsigned char *buf;       /* the whole file                       */
    uint64_t len;
    /* private */
    lk_allocator alloc_;
    uint32_t *kv_hash_;             /* open-addressing tables (index + 1)  */
    uint32_t *tensor_hash_;
    uint64_t kv_hash_cap_, tensor_hash_cap_;
    void *mapping_;                 /* file mapping / read buffer          */
    uint64_t mapping_size_;
    void *blocks_;                  /* allocation list                      */
    int mapping_fd_;                /* the mapped file's descriptor + 1 (0: none) */
};

typedef struct lk_gguf_params {
    const lk_allocator *alloc;      /* NULL = default allocator              */
} lk_gguf_params;

LKDEF lk_gguf_params lk_gguf_default_params(void);
LKDEF lk_status lk_gguf_read_memory(const void *buf, size_t len, const lk_gguf_params *p, lk_gguf **out);
#ifndef LLMKIT_NO_STDIO
LKDEF lk_status lk_gguf_read_file(const char *path, const lk_gguf_params *p, lk_gguf **out);
#endif
LKDEF void lk_gguf_free(lk_gguf *g);

LKDEF const char *lk_gguf_type_name(lk_gguf_type t);  /* "u32", "str", ...; "?" if unknown */
LKDEF int64_t lk_gguf_find_key(const lk_gguf *g, const char *key);      /* -1 = absent */
LKDEF int64_t lk_gguf_find_tensor(const lk_gguf *g, const char *name);  /* -1 = absent */
LKDEF const lk_gguf_value *lk_gguf_get(const lk_gguf *g, const char *key); /* NULL = absent */

/* Typed getters. Integer getters accept any integer type (and bool) whose
 * value fits; float getters accept floats and integers. When the stored
 * value is an array, the plain getters return LK_ERR_TYPE and the _at
 * getters index it (per-layer arrays); _at on a scalar returns the scalar
 * for any index. Absent keys return LK_ERR_NOT_FOUND and leave *out alone. */
LKDEF lk_status lk_gguf_get_u64(const lk_gguf *g, const char *key, uint64_t *out);
LKDEF lk_status lk_gguf_get_i64(const lk_gguf *g, const char *key, int64_t *out);
LKDEF lk_status lk_gguf_get_u32(const lk_gguf *g, const char *key, uint32_t *out);
LKDEF lk_status lk_gguf_get_i32(const lk_gguf *g, const char *key, int32_t *out);
LKDEF lk_status lk_gguf_get_f32(const lk_gguf *g, const char *key, float *out);
LKDEF lk_status lk_gguf_get_f64(const lk_gguf *g, const char *key, double *out);
LKDEF lk_status lk_gguf_get_bool(const lk_gguf *g, const char *key, int *out);
LKDEF lk_status lk_gguf_get_str(const lk_gguf *g, const char *key, lk_str *out);
LKDEF lk_status lk_gguf_get_u64_at(const lk_gguf *g, const char *key, uint64_t idx, uint64_t *out);
LKDEF lk_status lk_gguf_get_i64_at(const lk_gguf *g, const char *key, uint64_t idx, int64_t *out);
LKDEF lk_status lk_gguf_get_f64_at(const lk_gguf *g, const char *key, uint64_t idx, double *out);
/* Arrays: element type and count (LK_ERR_TYPE if not an array). */
LKDEF lk_status lk_gguf_get_arr(const lk_gguf *g, const char *key, lk_gguf_type *elem_type, uint64_t *n, const lk_gguf_value **v);
/* Element access for any array value (numeric or bool elements). */
LKDEF lk_status lk_gguf_value_u64_at(const lk_gguf_value *v, uint64_t idx, uint64_t *out);
LKDEF lk_status lk_gguf_value_i64_at(const lk_gguf_value *v, uint64_t idx, int64_t *out);
LKDEF lk_status lk_gguf_value_f64_at(const lk_gguf_value *v, uint64_t idx, double *out);
/* Compare an lk_str with a C string. */
LKDEF int lk_str_eq(lk_str s, const char *cstr);
/* Fill an lk_tensor view of tensor i (data points into the buffer). */
LKDEF lk_status lk_gguf_tensor_view(const lk_gguf *g, int64_t i, lk_tensor *t);

/* p: its alloc is used (NULL = defaults) */
LKDEF lk_status lk_gguf_writer_new(const lk_gguf_params *p, lk_gguf_writer **out);
LKDEF void lk_gguf_writer_free(lk_gguf_writer *w);
LKDEF lk_status lk_gguf_writer_set_alignment(lk_gguf_writer *w, uint32_t alignment); /* also writes general.alignment */
/* Add a KV of any type, including arrays and nested arrays (a value read
 * by lk_gguf_read_* can be passed directly: that is how KVs are copied). */
LKDEF lk_status lk_gguf_writer_add_value(lk_gguf_writer *w, const char *key, const lk_gguf_value *v);
LKDEF lk_status lk_gguf_writer_add_u32(lk_gguf_writer *w, const char *key, uint32_t v);
LKDEF lk_status lk_gguf_writer_add_i32(lk_gguf_writer *w, const char *key, int32_t v);
LKDEF lk_status lk_gguf_writer_add_u64(lk_gguf_writer *w, const char *key, uint64_t v);
LKDEF lk_status lk_gguf_writer_add_f32(lk_gguf_writer *w, const char *key, float v);
LKDEF lk_status lk_gguf_writer_add_bool(lk_gguf_writer *w, const char *key, int v);
LKDEF lk_status lk_gguf_writer_add_str(lk_gguf_writer *w, const char *key, const char *v);
/* Array of scalar elements (raw host-order data of `n` elements). */
LKDEF lk_status lk_gguf_writer_add_arr(lk_gguf_writer *w, const char *key, lk_gguf_type elem_type, const void *data, uint64_t n);
LKDEF lk_status lk_gguf_writer_add_arr_str(lk_gguf_writer *w, const char *key, const char *const *strs, uint64_t n);
/* Add a tensor. `data` (lk_row_size(type, ne[0]) * rows bytes) is copied
 * when copy != 0, else it must stay valid until the writer is written. */
LKDEF lk_status lk_gguf_writer_add_tensor(lk_gguf_writer *w, const char *name, lk_type type, int n_dims, const int64_t *ne, const void *data, int copy);
LKDEF uint64_t lk_gguf_writer_size(const lk_gguf_writer *w);   /* total bytes */
LKDEF lk_status lk_gguf_writer_write_memory(const lk_gguf_writer *w, void *buf, size_t len);
#ifndef LLMKIT_NO_STDIO
LKDEF lk_status lk_gguf_writer_write_file(const lk_gguf_writer *w, const char *path);
#endif

/* ==========================================================================
 * 7. Quantization
 * ==========================================================================
 * (block formats, reference quantizers, dequantizers, dot products, matmul) */

/* --------------------------------------------------------------------------
 * 7a. float, legacy and K-quant formats
 * --------------------------------------------------------------------------
 * Byte layouts are exactly ggml's (little-endian, no padding); the reference
 * quantizers reproduce ggml's *_ref functions bit for bit (what llama-quantize
 * writes without an importance matrix). Half floats are stored as raw bits.
 * Legacy formats: blocks of 32, x = d*q (+ m). K-quants: super-blocks of 256
 * with 6- or 4-bit sub-block scales. Q8_0 / Q8_1 / Q8_K are the activation
 * formats the dot products pair with (see lk_type_traits.vec_dot_type).
 * Bit-exactness needs IEEE float semantics: do not build the implementation
 * with -ffast-math (fused multiply-add contraction is switched off inside). */
#define LK_QK4_0 32
#define LK_QK4_1 32
#define LK_QK5_0 32
#define LK_QK5_1 32
#define LK_QK8_0 32
#define LK_QK8_1 32
#define LK_QK_K 256
#define LK_K_SCALE_SIZE 12

typedef struct lk_block_q4_0 {   /* 18 bytes: x = d * (q - 8)                  */
    uint16_t d;                  /* f16 scale                                  */
    uint8_t qs[LK_QK4_0 / 2];    /* q[j] low nibble, q[j+16] high nibble       */
} lk_block_q4_0;
typedef struct lk_block_q4_1 {   /* 20 bytes: x = d * q + m                    */
    uint16_t d, m;               /* f16 scale, f16 min                         */
    uint8_t qs[LK_QK4_1 / 2];
} lk_block_q4_1;
typedef struct lk_block_q5_0 {   /* 22 bytes: x = d * (q - 16), q 5 bits       */
    uint16_t d;
    uint8_t qh[4];               /* bit j = 5th bit of q[j] (u32 LE)           */
    uint8_t qs[LK_QK5_0 / 2];    /* low 4 bits as in q4_0                      */
} lk_block_q5_0;
typedef struct lk_block_q5_1 {   /* 24 bytes: x = d * q + m                    */
    uint16_t d, m;
    uint8_t qh[4];
    uint8_t qs[LK_QK5_1 / 2];
} lk_block_q5_1;
typedef struct lk_block_q8_0 {   /* 34 bytes: x = d * q                        */
    uint16_t d;
    int8_t qs[LK_QK8_0];
} lk_block_q8_0;
typedef struct lk_block_q8_1 {   /* 36 bytes: x = d * q, s = f16(d * sum(q))   */
    uint16_t d, s;
    int8_t qs[LK_QK8_1];
} lk_block_q8_1;
typedef struct lk_block_q2_K {   /* 84 bytes, 16 sub-blocks of 16              */
    uint8_t scales[LK_QK_K / 16];/* low nibble scale, high nibble min          */
    uint8_t qs[LK_QK_K / 4];     /* 2-bit quants                               */
    uint16_t d, dmin;            /* f16 super-scales for scales / mins         */
} lk_block_q2_K;
typedef struct lk_block_q3_K {   /* 110 bytes, 16 sub-blocks of 16             */
    uint8_t hmask[LK_QK_K / 8];  /* high bit of the 3-bit quants               */
    uint8_t qs[LK_QK_K / 4];     /* low 2 bits                                 */
    uint8_t scales[12];          /* 16 6-bit scales, packed                    */
    uint16_t d;
} lk_block_q3_K;
typedef struct lk_block_q4_K {   /* 144 bytes, 8 sub-blocks of 32              */
    uint16_t d, dmin;
    uint8_t scales[LK_K_SCALE_SIZE]; /* 8 6-bit scales + 8 6-bit mins          */
    uint8_t qs[LK_QK_K / 2];
} lk_block_q4_K;
typedef struct lk_block_q5_K {   /* 176 bytes, 8 sub-blocks of 32              */
    uint16_t d, dmin;
    uint8_t scales[LK_K_SCALE_SIZE];
    uint8_t qh[LK_QK_K / 8];
    uint8_t qs[LK_QK_K / 2];
} lk_block_q5_K;
typedef struct lk_block_q6_K {   /* 210 bytes, 16 sub-blocks of 16             */
    uint8_t ql[LK_QK_K / 2];     /* low 4 bits                                 */
    uint8_t qh[LK_QK_K / 4];     /* high 2 bits                                */
    int8_t scales[LK_QK_K / 16]; /* 8-bit signed scales                        */
    uint16_t d;
} lk_block_q6_K;
typedef struct lk_block_q8_K {   /* 292 bytes: activations for K-quant dots    */
    float d;
    int8_t qs[LK_QK_K];
    int16_t bsums[LK_QK_K / 16]; /* sums of qs in groups of 16                 */
} lk_block_q8_K;

/* Scalar conversions, bit-exact with ggml: f32->f16 rounds to nearest even
 * (subnormals kept, overflow -> inf, NaN -> quiet NaN); f32->bf16 rounds to
 * nearest even, NaN made quiet. */
LKDEF float lk_fp16_to_fp32(uint16_t h);
LKDEF uint16_t lk_fp32_to_fp16(float f);
LKDEF float lk_bf16_to_fp32(uint16_t h);
LKDEF uint16_t lk_fp32_to_bf16(float f);

/* Row conversion through the type table. LK_ERR_INVALID_ARG for an unknown
 * type, NULL pointers or n not a multiple of the block size,
 * LK_ERR_UNSUPPORTED when the type has no such kernel (nothing is written). */
LKDEF lk_status lk_quantize_row(lk_type type, const float *x, void *y, int64_t n);
LKDEF lk_status lk_dequantize_row(lk_type type, const void *x, float *y, int64_t n);
/* Quantize nrows rows of n_per_row floats (like ggml_quantize_chunk without
 * an importance matrix); *out_bytes (may be NULL) = bytes written. */
LKDEF lk_status lk_quantize(lk_type type, const float *src, void *dst, int64_t nrows, int64_t n_per_row, size_t *out_bytes);
/* Check data for values that poison a forward pass, as llama.cpp's
 * ggml_validate_row_data does: every element of F32 / F16 / BF16 / F64 must
 * be finite, and so must every block scale (d, and dmin or m where the
 * format has one). nbytes must be a whole number of blocks. LK_ERR_FORMAT
 * names the first bad element (float types) or block (others); *bad (may be
 * NULL) receives its index. */
LKDEF lk_status lk_validate_data(lk_type type, const void *data, size_t nbytes, int64_t *bad);

/* y = W x for n_cols activation columns.
 *   W: ne = [n_in, n_out(, ne2, ne3)] rows of n_in elements (any type with a
 *      vec_dot); x: x[c*n_in + i]; y: y[c*n_out + r].
 * Each column of x is quantized once to W's vec_dot_type into scratch, then
 * the rows are split over lk_parallel_for tasks (one per thread). Several
 * columns go through register-tiled kernels (4 rows x 4 columns) where the
 * type has one; every output equals the single-column vec_dot bit for bit,
 * so the result depends neither on the number of threads nor on n_cols.
 * The kernels are AVX2 / AVX-512 / NEON where compiled for (14.7s), else
 * the scalar references. scratch must hold lk_matmul_scratch_size bytes
 * (may be NULL when that size is 0, i.e. for f32 weights). */
LKDEF size_t lk_matmul_scratch_size(lk_type wtype, int64_t n_in, int64_t n_cols);
LKDEF lk_status lk_matmul(const lk_tensor *W, const float *x, int64_t n_cols, float *y,
                          void *scratch, size_t scratch_size, const lk_threads *th);

/* Interleaved rows (LK_LAYOUT_R8, 14.7r): the same bytes as W's rows,
 * reordered so that 8 rows are read together, their scales first; lk_matmul
 * then runs a GEMM micro-kernel over 8 rows x 4 columns (and the same kernel
 * on 1 column for decode). Q4_0 and Q4_K have their own summation order:
 * per output, per block, acc = fma((float)exact_int_dot, d_row * d_col, acc),
 * blocks in order (llama.cpp's repacked kernels' order), for any n_cols and
 * any thread count. F16 (rows of a multiple of 16 elements) keeps the rows'
 * order, so its results equal the row layout's bit for bit; decode then
 * reads 4 rows in one sequential stream. lk_model_load_* repacks the layer
 * matrices this way where the build has a SIMD kernel for the type (see
 * lk_model_params.repack).
 * lk_repack_r8_supported: 1 for the types that have the layout (Q4_0, Q4_K,
 * F16).
 * lk_repack_r8: W 2-D with ne[1] % 8 == 0 (F16: and ne[0] % 16 == 0); writes
 * lk_repack_r8_size(W) bytes to dst (the size of W's data for Q4_0 and F16;
 * 2.8 % more for Q4_K, whose scales are stored decoded), not overlapping W's
 * data, and makes *out a view of dst with the layout (out may be W itself).
 * Matrices of 1 MiB and more are shuffled on the default threads
 * (lk_parallel_for with NULL). */
LKDEF int lk_repack_r8_supported(lk_type type);
LKDEF size_t lk_repack_r8_size(const lk_tensor *W);   /* bytes lk_repack_r8 writes; 0: not possible */
LKDEF lk_status lk_repack_r8(const lk_tensor *W, void *dst, size_t dst_size, lk_tensor *out);
/* end of 7a */

/* --------------------------------------------------------------------------
 * 7b. IQ and ternary formats
 * --------------------------------------------------------------------------
 * ggml's "i-quants" (IQ1_S .. IQ4_XS) and the ternary TQ1_0 / TQ2_0, byte for
 * byte as ggml lays them out (little-endian, no padding; `d` fields are IEEE
 * binary16 bit patterns). Kernels are reached through the type table
 * (lk_type_get(t)->to_float / from_float / vec_dot):
 *   to_float   all eleven types
 *   from_float IQ4_NL, IQ4_XS, IQ3_XXS, IQ3_S, TQ1_0, TQ2_0: ggml-identical
 *              bytes to llama-quantize without an importance matrix.
 *              IQ2_XXS, IQ2_XS, IQ2_S, IQ1_S, IQ1_M need an importance
 *              matrix in ggml, so from_float is NULL for them (and
 *              lk_quantize reports LK_ERR_UNSUPPORTED).
 *   vec_dot    IQ4_NL with Q8_0 activations, all others with Q8_K.
 * Super-blocks hold 256 weights (QK_K); IQ4_NL blocks hold 32. */
typedef struct lk_block_iq4_nl {   /* 18 B / 32 w: 4.5 bpw              */
    uint16_t d;                    /* scale (fp16)                       */
    uint8_t qs[16];                /* lo nibble: w[j], hi nibble: w[j+16] */
} lk_block_iq4_nl;                 /* w = d * kvalues[nibble]            */
typedef struct lk_block_iq4_xs {   /* 136 B / 256 w: 4.25 bpw            */
    uint16_t d;
    uint16_t scales_h;             /* 2 high bits of 8 6-bit scales      */
    uint8_t scales_l[4];           /* 4 low bits of 8 6-bit scales       */
    uint8_t qs[128];               /* per 32: nibbles as in iq4_nl       */
} lk_block_iq4_xs;                 /* w = d * (scale - 32) * kvalues[q]  */
typedef struct lk_block_iq3_xxs {  /* 98 B / 256 w: 3.0625 bpw           */
    uint16_t d;
    uint8_t qs[96];                /* 64 grid indices (4 w each), then
                                      8 x u32: 4 x 7 sign bits | scale<<28 */
} lk_block_iq3_xxs;
typedef struct lk_block_iq3_s {    /* 110 B / 256 w: 3.4375 bpw          */
    uint16_t d;
    uint8_t qs[64];                /* grid index low 8 bits (4 w each)   */
    uint8_t qh[8];                 /* grid index bit 8                   */
    uint8_t signs[32];             /* one sign bit per weight            */
    uint8_t scales[4];             /* 4-bit scales, two per byte         */
} lk_block_iq3_s;
typedef struct lk_block_iq2_xxs {  /* 66 B / 256 w: 2.0625 bpw           */
    uint16_t d;
    uint16_t qs[32];               /* per 32 w: 4 grid bytes, then u32 of
                                      4 x 7 sign bits | scale << 28       */
} lk_block_iq2_xxs;
typedef struct lk_block_iq2_xs {   /* 74 B / 256 w: 2.3125 bpw           */
    uint16_t d;
    uint16_t qs[32];               /* 9-bit grid index | 7 sign bits << 9 */
    uint8_t scales[8];
} lk_block_iq2_xs;
typedef struct lk_block_iq2_s {    /* 82 B / 256 w: 2.5625 bpw           */
    uint16_t d;
    uint8_t qs[64];                /* 32 grid index low bytes, 32 sign bytes */
    uint8_t qh[8];                 /* grid index bits 8-9                */
    uint8_t scales[8];
} lk_block_iq2_s;
typedef struct lk_block_iq1_s {    /* 50 B / 256 w: 1.5625 bpw           */
    uint16_t d;
    uint8_t qs[32];                /* grid index low 8 bits (8 w each)   */
    uint16_t qh[8];                /* 4 x 3 index bits, 3-bit scale, delta sign */
} lk_block_iq1_s;
typedef struct lk_block_iq1_m {    /* 56 B / 256 w: 1.75 bpw             */
    uint8_t qs[32];
    uint8_t qh[16];                /* 3 index bits + delta sign, per 8 w */
    uint8_t scales[8];             /* 3-bit scales; fp16 d in the top nibbles */
} lk_block_iq1_m;
typedef struct lk_block_tq1_0 {    /* 54 B / 256 w: 1.6875 bpw           */
    uint8_t qs[48];                /* 5 trits per byte (base 3, scaled to 256) */
    uint8_t qh[4];                 /* 4 trits per byte                   */
    uint16_t d;
} lk_block_tq1_0;
typedef struct lk_block_tq2_0 {    /* 66 B / 256 w: 2.0625 bpw           */
    uint8_t qs[64];                /* 2 bits per weight, value - 1       */
    uint16_t d;
} lk_block_tq2_0;

/* Build the IQ3_XXS / IQ3_S quantizer search tables (static storage, about
 * 118 KiB) now. Optional: the quantizers build them on first use, safely
 * across threads on GCC, Clang and MSVC; with other compilers call this once
 * before quantizing IQ3 from several threads. */
LKDEF void lk_quant_iq_init(void);
/* end of 7b */

#ifndef LLMKIT_NO_QUANTIZE
/* --------------------------------------------------------------------------
 * 7c. Model quantization: llama-quantize's file types and per-tensor mixes
 * --------------------------------------------------------------------------
 * A "file type" (llama.cpp's llama_ftype, stored in general.file_type) names
 * a base tensor type plus a mix rule: Q4_K_M is Q4_K for most weights but
 * Q6_K for output.weight and for half of attn_v / ffn_down. The rules are
 * llama.cpp's llama_tensor_get_type (src/llama-quant.cpp at the fixtures'
 * commit) for quantizing without an importance matrix, so lk_quantize_gguf
 * writes the same bytes as llama-quantize. */
typedef enum lk_ftype {
    LK_FTYPE_F32 = 0, LK_FTYPE_F16 = 1, LK_FTYPE_Q4_0 = 2, LK_FTYPE_Q4_1 = 3,
    LK_FTYPE_Q8_0 = 7, LK_FTYPE_Q5_0 = 8, LK_FTYPE_Q5_1 = 9, LK_FTYPE_Q2_K = 10,
    LK_FTYPE_Q3_K_S = 11, LK_FTYPE_Q3_K_M = 12, LK_FTYPE_Q3_K_L = 13,
    LK_FTYPE_Q4_K_S = 14, LK_FTYPE_Q4_K_M = 15, LK_FTYPE_Q5_K_S = 16,
    LK_FTYPE_Q5_K_M = 17, LK_FTYPE_Q6_K = 18, LK_FTYPE_IQ2_XXS = 19,
    LK_FTYPE_IQ2_XS = 20, LK_FTYPE_Q2_K_S = 21, LK_FTYPE_IQ3_XS = 22,
    LK_FTYPE_IQ3_XXS = 23, LK_FTYPE_IQ1_S = 24, LK_FTYPE_IQ4_NL = 25,
    LK_FTYPE_IQ3_S = 26, LK_FTYPE_IQ3_M = 27, LK_FTYPE_IQ2_S = 28,
    LK_FTYPE_IQ2_M = 29, LK_FTYPE_IQ4_XS = 30, LK_FTYPE_IQ1_M = 31,
    LK_FTYPE_BF16 = 32, LK_FTYPE_TQ1_0 = 36, LK_FTYPE_TQ2_0 = 37
} lk_ftype;

typedef struct lk_ftype_info {
    const char *name;    /* as llama-quantize spells it: "Q4_K_M"              */
    lk_ftype ftype;      /* general.file_type                                  */
    lk_type type;        /* base tensor type of the mix (Q4_K for Q4_K_M)      */
} lk_ftype_info;

/* Look a file type up by name, case-insensitively ("q4_k_m"); llama-quantize's
 * aliases Q3_K, Q4_K, Q5_K mean the _M mixes. NULL if unknown. */
LKDEF const lk_ftype_info *lk_ftype_find(const char *name);
/* The entry of a file type id (the canonical name, never an alias); NULL if
 * unknown. */
LKDEF const lk_ftype_info *lk_ftype_get(lk_ftype ftype);
/* Entry i of the table (for listing the names), NULL for i out of range. */
LKDEF const lk_ftype_info *lk_ftype_at(int i);

/* The model facts and running counters the mix rules use. Initialise with
 * lk_quant_mix_init (from a GGUF) or lk_quant_mix_init_shape, then call
 * lk_quant_mix_type once per quantized tensor in llama-quantize's order
 * (by layer number "blk.N.", tensors without a layer first, then by name):
 * the attn_v / ffn_* counters advance with each call, and "use more bits"
 * decisions depend on them. */
typedef struct lk_quant_mix {
    char arch[64];           /* general.architecture ("llama", "falcon", ...)  */
    int n_layer, n_head, n_head_kv, n_expert;
    int is_70b;              /* llama, 80 layers, GQA                          */
    int has_output;          /* a separate output.weight exists (else the      */
                             /* tied token_embd.weight is treated as output)   */
    int n_attention_wv;      /* attn_v / attn_qkv / attn_kv_b tensors          */
    int n_ffn_down, n_ffn_gate, n_ffn_up;  /* = n_layer                        */
    int i_attention_wv, i_ffn_down, i_ffn_gate, i_ffn_up;  /* counters, 0      */
    int n_mixed;             /* tensors whose type fit their rows              */
    int n_fallback;          /* tensors that needed lk_quant_fallback_type     */
} lk_quant_mix;

/* From metadata (<arch>.block_count, .attention.head_count[_kv],
 * .expert_count) and the tensor names of g. LK_ERR_INVALID_ARG for NULL. */
LKDEF lk_status lk_quant_mix_init(lk_quant_mix *m, const lk_gguf *g);
/* From a shape, for models not (yet) in a GGUF: n_attention_wv and the
 * ffn counts are set to n_layer, has_output to 1 (set it to 0 for tied
 * embeddings). arch may be NULL (""); it is truncated to 63 bytes. */
LKDEF void lk_quant_mix_init_shape(lk_quant_mix *m, const char *arch, int n_layer, int n_head, int n_head_kv, int n_expert);
/* The type of one weight (name, row length ne0) in file type `ftype` whose
 * base type is default_type (normally lk_ftype_get(ftype)->type). Returns
 * default_type unchanged, counting nothing, when it is not a quantized type
 * (F32, F16, BF16). A result whose block does not divide ne0 is replaced by
 * lk_quant_fallback_type (counted in m->n_fallback). Call it only for
 * tensors lk_quant_wants_quantize accepts (and not with --pure). */
LKDEF lk_type lk_quant_mix_type(lk_quant_mix *m, lk_type default_type, const char *name, int64_t ne0, lk_ftype ftype);
/* llama-quantize's replacement for type t when rows of ne0 elements do not
 * fit its block: IQ/TQ/Q2_K/Q3_K -> IQ4_NL (TQ -> Q4_0), Q4_K -> Q5_0,
 * Q5_K -> Q5_1, Q6_K -> Q8_0, anything else -> F16; F16 again if the
 * replacement does not fit either (where llama.cpp would abort). */
LKDEF lk_type lk_quant_fallback_type(lk_type t, int64_t ne0);
/* 1 if llama-quantize quantizes this tensor at all: names ending in
 * "weight" with n_dims >= 2 (ne beyond the first dimension > 1), except
 * norms, MoE routers (ffn_gate_inp), position / token-type embeddings,
 * some SSM/RWKV tensors, and output.weight when leave_output != 0. */
LKDEF int lk_quant_wants_quantize(const char *name, int n_dims, int leave_output);

/* Whole-model quantization (llama-quantize without an importance matrix). */
typedef struct lk_quantize_gguf_progress {
    int64_t index, count;        /* tensor index in output order, of count   */
    const char *name;            /* NUL-terminated                            */
    const int64_t *ne;           /* [LK_MAX_DIMS]                             */
    lk_type src_type, dst_type;
    uint64_t src_bytes, dst_bytes;
    int converted;               /* 0: copied as it was                       */
} lk_quantize_gguf_progress;

typedef struct lk_quantize_gguf_params {
    lk_ftype ftype;              /* base type, mix, general.file_type           */
    int pure;                    /* every quantized weight gets the base type   */
    int leave_output;            /* do not touch output.weight                  */
    int allow_requantize;        /* accept quantized input tensors              */
    lk_type output_type;         /* for output.weight, or LK_TYPE_NONE          */
    lk_type token_embd_type;     /* for token_embd.weight, or LK_TYPE_NONE      */
    const lk_threads *threads;   /* rows split over tasks; NULL = default       */
    const lk_allocator *alloc;   /* writer and scratch memory; NULL = default   */
    /* called after each tensor (may be NULL); for progress output */
    void (*progress)(void *user, const lk_quantize_gguf_progress *ev);
    void *progress_user;
} lk_quantize_gguf_params;

typedef struct lk_quantize_gguf_stats {
    uint64_t src_bytes, dst_bytes;   /* tensor data, before and after          */
    int64_t n_converted;             /* tensors whose type changed             */
    int n_fallback, n_mixed;         /* as in lk_quant_mix                     */
} lk_quantize_gguf_stats;

/* ftype Q8_0, everything else off / -1 / NULL. */
LKDEF lk_quantize_gguf_params lk_quantize_gguf_default_params(void);
/* Quantize the model `in` into a new writer *out (free it with
 * lk_gguf_writer_free): metadata copied in order (minus file_type,
 * quantization_version and split.*), general.quantization_version = 2 and
 * general.file_type = p->ftype appended; tensors in llama-quantize's order
 * (by layer, then name) with the types of lk_quant_mix_type (or the base
 * type with pure), explicit output / token_embd types, and
 * lk_quant_fallback_type for rows that do not fit. The writer owns the
 * quantized data; tensors left as they were point into in's buffer, so `in`
 * must outlive *out. Rows are quantized independently, so the bytes do not
 * depend on the thread count. stats may be NULL. On error *out is NULL. */
LKDEF lk_status lk_quantize_gguf(const lk_gguf *in, const lk_quantize_gguf_params *p, lk_gguf_writer **out, lk_quantize_gguf_stats *stats);
/* end of 7c */
#endif /* LLMKIT_NO_QUANTIZE */

/* ==========================================================================
 * 8. Ops
 * ==========================================================================
 * Row operations on f32 vectors, written to match ggml's CPU arithmetic
 * (sums of squares in double, GELU through f16 rounding). */
/* y[n] = x / sqrt(mean(x^2) + eps) * w          (w may be NULL = 1)    */
LKDEF void lk_rmsnorm(float *y, const float *x, const float *w, int n, float eps);
/* y[n] = (x - mean) / sqrt(var + eps) * w + b    (w, b may be NULL)     */
LKDEF void lk_layernorm(float *y, const float *x, const float *w, const float *b, int n, float eps);
/* in-place softmax over x[n]; returns log(sum(exp(x - max))) + max     */
LKDEF float lk_softmax(float *x, int n);
LKDEF float lk_silu(float x);                  /* x * sigmoid(x)         */
/* x[n] = H x / sqrt(n), the orthonormal Walsh-Hadamard transform, in place;
 * n must be a power of two. It is its own inverse, and (H a).(H b) = a.b. */
LKDEF void lk_hadamard(float *x, int n);
/* y[n] = silu(x[n]) exactly as ggml's CPU backend computes it on AVX-512
 * machines: 16-wide groups use ggml's polynomial expf, the n % 16 tail uses
 * libm's expf. Deterministic on every platform (y may alias x). */
LKDEF void lk_silu_row(float *y, const float *x, int n);
/* ggml's GELU: tanh approximation evaluated through f16 rounding:
 * y = f16(gelu(f16(x))) for |x| < 10, y = x for x >= 10, 0 for x <= -10 */
LKDEF float lk_gelu(float x);

typedef enum lk_rope_mode { LK_ROPE_NORMAL = 0, LK_ROPE_NEOX = 2 } lk_rope_mode;
typedef struct lk_rope {
    lk_rope_mode mode;
    int n_rot;            /* rotated dims per head (<= head_dim)          */
    float freq_base;      /* 10000                                        */
    float freq_scale;     /* 1 / linear scaling factor                    */
    float ext_factor;     /* YaRN mix (0 = off)                           */
    float attn_factor;    /* YaRN magnitude scale (1)                     */
    float beta_fast, beta_slow; /* YaRN ramp (32, 1)                      */
    int n_ctx_orig;       /* YaRN original context                        */
    const float *freq_factors;  /* [n_rot/2] divisors (llama3/longrope) or NULL */
} lk_rope;
/* Rotate x[n_heads][head_dim] in place for position pos. */
LKDEF void lk_rope_apply(const lk_rope *r, float *x, int n_heads, int head_dim, int pos);

/* ==========================================================================
 * 9. Attention
 * ==========================================================================
 * One kernel: a query row (one head) attends to a set of keys in a KV view
 * and returns the output and the log-sum-exp of the scores, so partial
 * results over disjoint key sets merge exactly:
 *   o = (e^{s1} o1 + e^{s2} o2) / (e^{s1} + e^{s2})     (lk_attn_merge)
 * Keys are rows of the view, chosen by a range [row0, n_rows) or an index
 * list; each row has a position (and optionally a segment id) used by the
 * mask. Variants are parameters.
 *
 * Masks (all combine; a key is used only if no rule masks it):
 *   causal      kpos > qpos is masked
 *   window      qpos - kpos >= window is masked unless kpos < n_sink
 *   segments    kv->seg[r] != qseg is masked (packed prompts, Prepacking)
 *   tree        rows r in [tree_row0, tree_row0 + tree_n) are tree nodes:
 *               node r is visible to query node qrow only if r is qrow or an
 *               ancestor (tree_parent[r - tree_row0] = parent row relative to
 *               tree_row0, -1 = a root hanging off the rows before tree_row0)
 *
 * Scoring variants (score):
 *   LK_ATTN_SOFTMAX  p_j = softmax_j(scale * q.k_j + alibi)        (default)
 *   LK_ATTN_LSSA     "Softplus Attention with Re-weighting Boosts Length
 *                    Extrapolation" (Gao & Spratling, arXiv 2501.13428):
 *                    q^ = q/|q|, k^ = k/|k|, N = number of unmasked keys,
 *                    s_j = ln(d) ln(N) (q^.k^), a_j = softplus(s_j) (stable),
 *                    A_j = a_j / (sum_j a_j + 1e-8). scale/softcap/alibi unused.
 *   LK_ATTN_LSSAR    LSSA, then B_j = ReLU(N A_j - O)^p with O = 1, except
 *                    O = 0 for query positions 0, 1, 2; A'_j = B_j / (sum B + 1e-8);
 *                    p = lssar_p (15). The power is taken after dividing by
 *                    the row maximum, so it never overflows.
 *   (These formulas are this project's specification of LSSA and LSSAR; the
 *   paper's abstract matches their structure - softplus, l1 normalisation,
 *   an entropy-invariance length scale, power re-weighting - but the
 *   equations themselves were not checked against the paper text.)
 *   LSSA and LSSAR are meant for models TRAINED with them; on a softmax model
 *   they only show what the function does. Their normalisation depends on
 *   every key of the row (N, the re-weighting), so their partial results do
 *   not merge: lk_attn_tiled / lk_attn_split compute them directly; *lse is
 *   then log of the normaliser (sum a_j or sum B_j, before the 1e-8).
 *
 * KV storage read by lk_attn (kv->type / kv->zip):
 *   f32, f16         rows addressed by row_stride / head_stride
 *   q8_0, q4_0       ggml blocks over the whole row of n_head_kv*head_dim
 *                    elements (row_stride bytes per row); head h is elements
 *                    [h*head_dim, (h+1)*head_dim); blocks are dequantized
 *   zip (kv->zip)    the channel-separable token-wise 2/4-bit format of
 *                    section 10; dots are computed on the codes directly
 *                    (channel scales folded into q and into the output). */
typedef enum lk_attn_score { LK_ATTN_SOFTMAX = 0, LK_ATTN_LSSA = 1, LK_ATTN_LSSAR = 2 } lk_attn_score;

struct lk_kv_cache;
typedef struct lk_kv_view {
    lk_type type;             /* f32, f16, q8_0 or q4_0 (ignored with zip)   */
    const void *k, *v;        /* row r of head h at k + r*row_stride + h*head_stride */
    size_t row_stride;        /* bytes between token rows                    */
    size_t head_stride;       /* bytes between KV heads in a row (f32/f16)   */
    const int32_t *pos;       /* [n_rows] position of each row (NULL: row)   */
    int n_rows;               /* rows present                                */
    const int32_t *idx;       /* optional: attend only to these rows          */
    int n_idx;
    int row0;                 /* without idx: attend to rows [row0, n_rows)  */
    const int32_t *seg;       /* optional [n_rows] segment id of each row    */
    const struct lk_kv_cache *zip; /* non-NULL: zip rows of layer zip_layer  */
    int zip_layer;
} lk_kv_view;

typedef struct lk_attn_params {
    lk_attn_score score;
    int head_dim;
    float scale;              /* multiplies q.k (1/sqrt(head_dim) usually)   */
    float softcap;            /* s -> c*tanh(s/c) when > 0 (gemma2)          */
    float alibi_slope;        /* adds slope * (kpos - qpos) when != 0        */
    int causal;               /* keys with pos > qpos are masked             */
    int window;               /* > 0: also mask qpos - kpos >= window        */
    int n_sink;               /* with window: rows with pos < n_sink stay    */
    int f16_math;             /* round q and probabilities to f16 (ggml with an f16 cache) */
    int qseg;                 /* segment of the query (used when kv->seg)    */
    const int32_t *tree_parent; /* optional tree mask, see above             */
    int tree_row0, tree_n, qrow;
    float lssar_p;            /* LSSAR power (15)                            */
} lk_attn_params;

LKDEF lk_attn_params lk_attn_default_params(int head_dim);
/* out[head_dim] = attention of q (one head) over kv head `kv_head`; *lse is
 * the log-sum-exp of the scaled scores (-inf if every key is masked, and
 * then out = 0); lse may be NULL when the caller merges nothing (then no
 * logarithm is taken). scratch must hold lk_attn_scratch_floats(p, n) floats for
 * n = n_rows - row0 (or n_idx) keys. */
LKDEF void lk_attn(const lk_attn_params *p, const float *q, int qpos, const lk_kv_view *kv, int kv_head,
                   float *out, float *lse, float *scratch);
LKDEF size_t lk_attn_scratch_floats(const lk_attn_params *p, int n_keys);
/* Merge two partial results over disjoint key sets into (o1, lse1). */
LKDEF void lk_attn_merge(float *o1, float *lse1, const float *o2, float lse2, int head_dim);
/* Flash-style: keys in tiles of `tile`, online softmax (merge per tile);
 * never holds more than one tile of scores. scratch: lk_attn_scratch_floats
 * (p, tile) + head_dim floats. Softmax only (LSSA/LSSAR: direct). */
LKDEF void lk_attn_tiled(const lk_attn_params *p, const float *q, int qpos, const lk_kv_view *kv, int kv_head,
                         float *out, float *lse, float *scratch, int tile);
/* Split-KV: the keys cut into n_part parts run as tasks of lk_parallel_for
 * (section 3b) and merged by LSE. scratch: n_part * (head_dim + 1 +
 * lk_attn_scratch_floats(p, ceil(n/n_part))) floats, and at least
 * lk_attn_scratch_floats(p, n) (LSSA/LSSAR and n_part <= 1 run directly). */
LKDEF void lk_attn_split(const lk_attn_params *p, const float *q, int qpos, const lk_kv_view *kv, int kv_head,
                         float *out, float *lse, float *scratch, int n_part, const lk_threads *th);

/* ==========================================================================
 * 10. KV cache
 * ==========================================================================
 * Per layer, token rows of n_head_kv * head_dim keys and values, with the
 * position (and segment id) of each row. Rows are appended in order and can
 * be truncated (speculative rollback).
 *
 * Storage types: f32, f16, q8_0, q4_0 (ggml blocks over the whole row; the
 * row length must be a multiple of 32), and "zip": the channel-separable
 * token-wise format of ZipCache / KIVI in 4 or 2 bits:
 *   - per channel j a scale c_j = sqrt(max_t |x_tj|) over the first chunk
 *     (the first zip_window rows stored after a reset), kept afterwards
 *     (0 -> 1);
 *   - per token and KV head, over y = x/c: mn = f16(min y), step =
 *     f16((max y - mn) / (2^bits - 1)), code = clamp(round((y - mn) / step))
 *     (step 0: codes 0); mn and step are stored as f16;
 *   - the newest zip_window rows (32) stay in `type` (f16 or f32) in a ring
 *     and are quantized when they leave it (from their stored f16/f32 value).
 *   K and V have their own scales. A chunk's attention sees the rows as
 *   they are after the whole chunk was stored (so with zip, decoding token
 *   by token and prefilling in one batch differ slightly).
 *
 * Policies (lk_kv_policy_params, chosen per context in lk_context_params):
 *   FULL          every row.
 *   STREAMING     StreamingLLM: the first n_sink rows + the newest
 *                 budget - n_sink rows.
 *   H2O           per layer and KV head, each kept row accumulates the
 *                 attention probability it receives (summed over the query
 *                 heads of its KV head and over steps); when more than
 *                 budget rows are kept, keep the `recent` newest + the top
 *                 (budget - recent) by accumulated score; the rest are
 *                 evicted for good.
 *   KEYFORMER     H2O with the accumulated score taken from
 *                 softmax((z + G) / tau), G Gumbel noise (lk_rng_gumbel,
 *                 seeded by `seed`, one stream per layer and KV head), tau
 *                 rising linearly from tau_init to tau_end as the query
 *                 position goes from 0 to n_ctx - 1. Outputs use plain softmax.
 *   QUEST         Quest / LServe pages (no eviction): pages of page_size rows
 *                 keep per-channel min/max of K (per layer and KV head); page
 *                 score for query head q: sum_c max(q_c min_c, q_c max_c);
 *                 each query head attends to the newest page plus the top
 *                 pages that fit in budget rows.
 *   TOKENSELECT   per layer and token: s_h = softmax over rows of
 *                 scale * q_h.k (per query head h), summed over heads; keep
 *                 n_sink first rows, `recent` newest rows (budget/8 when 0)
 *                 and the top of the rest up to budget rows. reuse_cos > 0:
 *                 reuse the previous selection (plus the new rows) while
 *                 cos(q_now, q_prev) >= reuse_cos (0.9 in the paper).
 *   TWILIGHT      top-p on the candidates of `twilight_base` (FULL, or QUEST
 *                 with the same budget): per query head, the
 *                 smallest set whose softmax mass (estimated from the exact
 *                 f32 scores) reaches top_p; the threshold is found by binary
 *                 search on the probability, not by sorting.
 * budget <= 0 or budget >= the rows visible gives exactly full attention
 * (TWILIGHT also needs top_p >= 1). Eviction policies (STREAMING, H2O,
 * KEYFORMER) are applied to every query row in order, in prefill as in
 * decode; evicted rows stay in the (full-size) buffer but are never read
 * again: lk_context_kv_bytes reports what an evicting cache would hold. */
typedef enum lk_kv_policy {
    LK_KV_FULL = 0, LK_KV_STREAMING, LK_KV_H2O, LK_KV_KEYFORMER, LK_KV_QUEST, LK_KV_TOKENSELECT, LK_KV_TWILIGHT,
    LK_KV_POLICY_COUNT
} lk_kv_policy;

typedef struct lk_kv_policy_params {
    lk_kv_policy policy;
    int budget;               /* rows per layer (per KV head for H2O/Keyformer); <= 0: all */
    int n_sink;               /* streaming, tokenselect: first rows kept (4) */
    int recent;               /* h2o/keyformer: newest kept (0 = budget/2); tokenselect local (0 = budget/8) */
    int page_size;            /* quest: rows per page (16)                   */
    float top_p;              /* twilight: attention mass kept (0.95)        */
    lk_kv_policy twilight_base; /* twilight's selector (FULL)               */
    float tau_init, tau_end;  /* keyformer temperature ramp (1, 2)           */
    uint64_t seed;            /* keyformer Gumbel noise                      */
    float reuse_cos;          /* tokenselect selection reuse (0 = off)       */
} lk_kv_policy_params;

LKDEF lk_kv_policy_params lk_kv_policy_default_params(void);
LKDEF const char *lk_kv_policy_name(lk_kv_policy p);   /* "h2o"; "?" if unknown */
LKDEF int lk_kv_policy_from_name(const char *name);    /* -1 if none */

typedef struct lk_kv_cache {
    lk_type type;             /* f32, f16, q8_0, q4_0 (zip: the window type) */
    int n_layer, n_ctx;       /* capacity in rows                            */
    int n_embd_k, n_embd_v;   /* n_head_kv * head_dim                        */
    int n;                    /* rows in use (same for all layers)           */
    size_t row_k, row_v;      /* bytes per row                               */
    unsigned char *k, *v;     /* [n_layer][n_ctx][row] (zip: [n_layer][window][row]) */
    int32_t *pos;             /* [n_ctx]                                     */
    int32_t *seg;             /* [n_ctx] segment ids (0 by default)          */
    /* zip format (zip_bits 0 = off) */
    int zip_bits, zip_window, head_dim, n_head_kv;
    size_t zrow;              /* code bytes per row: n_embd * bits / 8       */
    unsigned char *zk, *zv;   /* [n_layer][n_ctx][zrow] codes                */
    uint16_t *zkp, *zvp;      /* [n_layer][n_ctx][n_head_kv][2]: mn, step (f16) */
    float *zks, *zvs;         /* [n_layer][n_embd] channel scales            */
    int32_t *zq;              /* [n_layer] rows [0, zq) are codes            */
} lk_kv_cache;

typedef struct lk_kv_cache_params {
    lk_type type;             /* f32, f16, q8_0, q4_0                        */
    int n_layer, n_ctx, n_embd_k, n_embd_v;
    int head_dim;             /* needed by zip (0 = n_embd_k)                */
    int zip_bits;             /* 0, 2 or 4 (then type is f16 or f32)         */
    int zip_window;           /* rows kept unquantized (32)                  */
} lk_kv_cache_params;

/* Bytes lk_kv_cache_init needs for these parameters (0 if they are invalid). */
LKDEF size_t lk_kv_cache_bytes(const lk_kv_cache_params *p);
/* Lay the cache out in `mem` (lk_kv_cache_bytes bytes, 64-byte aligned). */
LKDEF lk_status lk_kv_cache_init(lk_kv_cache *c, const lk_kv_cache_params *p, void *mem);
/* Store row `slot` of layer il from f32 k[n_embd_k], v[n_embd_v]. Rows of a
 * layer must be stored in order (slot = rows stored so far, any chunking). */
LKDEF void lk_kv_cache_store(lk_kv_cache *c, int il, int slot, const float *k, const float *v);
LKDEF void lk_kv_cache_truncate(lk_kv_cache *c, int n);
/* A view of layer il's rows [0, n_rows) for lk_attn. */
LKDEF lk_kv_view lk_kv_cache_view(const lk_kv_cache *c, int il, int head_dim, int n_rows);
/* Dequantize row r of layer il, KV head h into k[head_dim], v[head_dim]
 * (every storage type; for tests and references). */
LKDEF void lk_kv_cache_read(const lk_kv_cache *c, int il, int r, int h, float *k, float *v);


/* ==========================================================================
 * 11. Sampling
 * ==========================================================================
 * Semantics follow llama.cpp's samplers (src/llama-sampling.cpp and the
 * default chain of common/sampling.cpp); the random numbers come from our
 * own generator, so sampled tokens are reproducible on every platform but
 * differ from llama.cpp's (which uses std::mt19937).
 *
 * RNG: PCG32 (XSH-RR, 64-bit state, 32-bit output; O'Neill 2014). The
 * integer and float outputs are bit-identical everywhere. lk_rng_seed_stream
 * matches the reference pcg32_srandom_r(initstate, initseq). */
typedef struct lk_rng {
    uint64_t state;
    uint64_t inc;     /* stream selector, always odd */
} lk_rng;

#define LK_RNG_DEFAULT_STREAM 0x9e3779b97f4a7c15ull  /* stream of lk_rng_seed */
LKDEF void lk_rng_seed(lk_rng *r, uint64_t seed);   /* = seed_stream(seed, default) */
LKDEF void lk_rng_seed_stream(lk_rng *r, uint64_t seed, uint64_t stream);
LKDEF uint32_t lk_rng_u32(lk_rng *r);
LKDEF uint32_t lk_rng_below(lk_rng *r, uint32_t n);  /* uniform in [0, n); 0 if n == 0 */
LKDEF float lk_rng_float(lk_rng *r);    /* [0,1): top 24 bits of one u32 * 2^-24     */
LKDEF double lk_rng_double(lk_rng *r);  /* [0,1): 53 bits from two u32 (hi first)    */
/* Standard Gumbel noise -log(-log(u)), u = (x + 0.5) * 2^-32 in (0,1) from one
 * u32 (finite: |g| < 23). Uses libm's log. argmax(logit + gumbel) samples
 * softmax(logit) exactly. */
LKDEF float lk_rng_gumbel(lk_rng *r);
LKDEF void lk_rng_gumbel_fill(lk_rng *r, float *out, size_t n);

/* --- candidates ---------------------------------------------------------- */
typedef struct lk_token_data {
    lk_token id;      /* token id                                  */
    float logit;      /* log-odds, modified by the samplers         */
    float p;          /* probability, valid after a softmax step    */
} lk_token_data;

typedef struct lk_candidates {
    lk_token_data *data;
    size_t size;      /* live candidates data[0..size)              */
    int sorted;       /* 1: data is ordered by logit desc, id asc   */
} lk_candidates;

typedef struct lk_logit_bias {
    lk_token token;
    float bias;       /* added to the logit; -INFINITY bans the token */
} lk_logit_bias;

/* Fill buf[0..n_vocab) with (i, logits[i], 0) and point c at it. Errors:
 * NULL pointers, n_vocab <= 0, NaN or +inf logits, all logits -inf. */
LKDEF lk_status lk_candidates_init(lk_candidates *c, lk_token_data *buf, const float *logits, int n_vocab);

/* Individual samplers over a candidate array (llama.cpp semantics). Ties
 * in logit are broken by the lower token id, so results are deterministic.
 * Each returns LK_ERR_INVALID_ARG for NULL/empty input or bad parameters. */
/* Sort (logit desc) and set p = softmax(logit). */
LKDEF lk_status lk_sample_softmax(lk_candidates *c);
/* Token with the largest logit (lowest id on ties); does not modify c. */
LKDEF lk_status lk_sample_greedy(const lk_candidates *c, lk_token *out_token);
/* logit /= t (t finite). t <= 0: every logit but the largest becomes -inf.
 * If logit / t would overflow, (logit - max) / t is stored instead (same
 * softmax). */
LKDEF lk_status lk_sample_temperature(lk_candidates *c, float t);
/* Keep the k largest logits, sorted. k <= 0 or k >= size: no-op. */
LKDEF lk_status lk_sample_top_k(lk_candidates *c, int k);
/* Keep the smallest prefix (by probability) whose mass is >= p, and at
 * least min_keep tokens. p >= 1: no-op. */
LKDEF lk_status lk_sample_top_p(lk_candidates *c, float p, int min_keep);
/* Keep tokens with p_i >= p * p_max (logit_i >= max + log p), at least
 * min_keep. p <= 0: no-op. */
LKDEF lk_status lk_sample_min_p(lk_candidates *c, float p, int min_keep);
/* Locally typical sampling (Meister et al.): order by |-log p_i - H| and
 * keep the smallest such prefix with mass > p, at least max(min_keep, 1).
 * p >= 1: no-op. (llama.cpp at c392e5094 keeps everything when min_keep is
 * 0 due to an unsigned underflow; we implement the definition.) */
LKDEF lk_status lk_sample_typical(lk_candidates *c, float p, int min_keep);
/* Repetition / frequency / presence penalties for the tokens in history
 * (the caller passes the last N tokens). For a token seen `cnt` > 0 times:
 *   logit = logit <= 0 ? logit * repeat : logit / repeat;
 *   logit -= cnt * freq + present.
 * repeat must be > 0 (1 = off). Tokens not among the candidates are ignored.
 * Cost O(n_history^2 + n_history * size) here; the chain uses a faster path. */
LKDEF lk_status lk_sample_penalties(lk_candidates *c, const lk_token *history, int n_history,
                                    float repeat, float freq, float present);
/* logit[token] += bias for each entry (tokens absent from c are ignored). */
LKDEF lk_status lk_sample_logit_bias(lk_candidates *c, const lk_logit_bias *bias, int n_bias);
/* Softmax, then draw a token from p with r. */
LKDEF lk_status lk_sample_dist(lk_candidates *c, lk_rng *r, lk_token *out_token);
/* Mirostat 2.0: keep tokens with surprise -log2 p <= *mu (at least the top
 * one), renormalize, draw, then *mu -= eta * (-log2 p_drawn - tau), with
 * p_drawn the renormalized probability. Initialise *mu = 2 * tau. */
LKDEF lk_status lk_sample_mirostat_v2(lk_candidates *c, lk_rng *r, float tau, float eta,
                                      float *mu, lk_token *out_token);
/* Mirostat 1.0: Zipf exponent s_hat from the top m tokens, k from s_hat and
 * *mu over a vocabulary of n_vocab, top-k, draw, same mu update. */
LKDEF lk_status lk_sample_mirostat(lk_candidates *c, lk_rng *r, float tau, float eta, int m,
                                   int n_vocab, float *mu, lk_token *out_token);

/* --- the sampler chain --------------------------------------------------- */
typedef struct lk_sampler_params {
    float temperature;       /* <= 0: greedy                        0.8   */
    int top_k;               /* <= 0: off                           40    */
    float top_p;             /* >= 1 (or 0): off                    0.95  */
    float min_p;             /* <= 0: off                           0.05  */
    float typical_p;         /* >= 1 (or 0): off                    1.0   */
    int min_keep;            /* truncation samplers keep >= this    0     */
    float repeat_penalty;    /* 1 (or 0): off                       1.0   */
    int repeat_last_n;       /* history length for penalties        64    */
    float frequency_penalty; /* 0: off                              0     */
    float presence_penalty;  /* 0: off                              0     */
    int mirostat;            /* 0 off, 1 = mirostat, 2 = mirostat 2.0     */
    float mirostat_tau;      /* target surprise (bits)              5.0   */
    float mirostat_eta;      /* learning rate                       0.1   */
    uint64_t seed;           /* RNG seed                            0     */
    const lk_logit_bias *logit_bias; /* copied at creation; may be NULL   */
    int n_logit_bias;
    int n_vocab;             /* > 0: preallocate; 0: on first sample      */
    const lk_allocator *alloc;       /* NULL = default                     */
} lk_sampler_params;

LKDEF lk_sampler_params lk_sampler_default_params(void);
/* Set one field by its command-line name, llama.cpp's spelling: temp,
 * top-k, top-p, min-p, typical, min-keep, repeat-penalty, repeat-last-n,
 * frequency-penalty, presence-penalty, mirostat, mirostat-ent (tau),
 * mirostat-lr (eta), seed: the rows of lk_options(LK_OPTIONS_SAMPLER) (the
 * option tables, section 13). Leading dashes are ignored. LK_ERR_NOT_FOUND:
 * not one of these names (so a tool can try the next table);
 * LK_ERR_INVALID_ARG: the value does not parse or is out of range; NULL
 * arguments: LK_ERR_INVALID_ARG. Every error sets lk_last_error(), which
 * names the option and what it accepts. */
LKDEF lk_status lk_sampler_params_set(lk_sampler_params *p, const char *name, const char *value);
/* Build the chain in llama.cpp's default order:
 *   mirostat 0: logit bias, penalties, top-k, typical, top-p, min-p,
 *               temperature, dist          (temperature <= 0: greedy)
 *   mirostat 1/2: logit bias, temperature, mirostat (no penalties, no
 *               truncation samplers, as in llama.cpp's common_sampler)
 * params NULL = lk_sampler_default_params(). All memory is allocated here
 * (or on the first sample when n_vocab is 0, or again when a larger
 * vocabulary is passed); sampling itself never allocates. */
LKDEF lk_status lk_sampler_new(const lk_sampler_params *params, lk_sampler **out);
/* Sample a token from logits[0..n_vocab). Errors (token -1): NULL, n_vocab
 * <= 0, NaN/+inf logits, every candidate banned, bias token >= n_vocab. */
LKDEF lk_status lk_sampler_sample_ex(lk_sampler *s, const float *logits, int n_vocab, lk_token *out_token);
/* Convenience: the token, or -1 with lk_last_error() set. */
LKDEF lk_token lk_sampler_sample(lk_sampler *s, const float *logits, int n_vocab);
/* The distribution lk_sampler_sample would draw from for these logits and
 * the current history (after bias, penalties, truncation, temperature; a
 * one-hot vector for greedy), written to probs[0..n_vocab); draws nothing.
 * LK_ERR_UNSUPPORTED with mirostat. Speculative decoding preserves it. */
LKDEF lk_status lk_sampler_probs(lk_sampler *s, const float *logits, int n_vocab, float *probs);
/* Record a token as generated (or as part of the prompt): feeds the
 * penalty history. (Mirostat's mu is updated inside sample, as in llama.cpp.) */
LKDEF lk_status lk_sampler_accept(lk_sampler *s, lk_token token);
/* Forget the history, reset mu to 2*tau and reseed the RNG. */
LKDEF void lk_sampler_reset(lk_sampler *s);
LKDEF void lk_sampler_free(lk_sampler *s);
LKDEF float lk_sampler_mirostat_mu(const lk_sampler *s);
LKDEF lk_rng *lk_sampler_rng(lk_sampler *s);

/* --- speculative decoding -------------------------------------------------
 * Standard speculative-sampling acceptance (Leviathan et al. 2023, Chen et
 * al. 2023): the draft token x ~ q is accepted with probability
 * min(1, p(x)/q(x)); otherwise a token is drawn from norm(max(0, p - q)).
 * The result is distributed exactly as p. p_target and q_draft are
 * probability vectors over n_vocab tokens (non-negative, each summing to 1).
 * Returns the token (== draft_token iff accepted), or -1 on bad input with
 * lk_last_error() set. */
LKDEF lk_token lk_spec_accept(const float *p_target, const float *q_draft, int n_vocab,
                             lk_token draft_token, lk_rng *r);

/* ==========================================================================
 * 12. Tokenizer
 * ==========================================================================
 * A vocabulary (lk_vocab) built from the tokenizer.* KVs of a GGUF file,
 * and tokenization identical to llama.cpp's llama_tokenize (reference:
 * llama.cpp c392e5094, src/llama-vocab.cpp and src/unicode.cpp):
 *   SPM ("llama"): spaces -> U+2581, a leading space, bigram merges by
 *                  score, byte fallback to <0xXX> tokens.
 *   BPE ("gpt2"):  pre-tokenizer chosen by tokenizer.ggml.pre (hand-written
 *                  state machines for its regexes), GPT-2 byte-to-unicode
 *                  mapping, merges by rank.
 *   WPM ("bert"):  NFD (first codepoint) + lowercase, punctuation split,
 *                  greedy longest match with a U+2581 word prefix, [UNK].
 * Supported tokenizer.ggml.pre values: default, llama3 / llama-v3 /
 * llama-bpe / falcon3 / dbrx / smaug-bpe / chatglm-bpe, gpt-2 / phi-2 /
 * roberta-bpe / jina-* / gigachat / mpt / olmo / jais, deepseek-coder,
 * falcon, starcoder / refact / command-r / smollm / codeshell / exaone /
 * minerva-7b, qwen2 / deepseek-r1-qwen / megrez / stablelm2, bloom /
 * poro-chat / gpt3-finnish, viking, deepseek-llm, deepseek-v3, chameleon,
 * tekken. Others give LK_ERR_UNSUPPORTED.
 * Unicode categories come from tables generated by
 * tools/gen_unicode_tables.py (Unicode 14.0; llama.cpp's tables are 15.x:
 * the ~5100 codepoints assigned since 14.0 count as unassigned here).
 *
 * Memory: the vocab copies what it needs from the GGUF (which may be freed
 * afterwards) through the allocator of its lk_vocab_params; lk_tokenize
 * takes scratch memory from the same allocator and frees it
 * before returning (an arena allocator therefore grows on every call).
 *
 * LLMKIT_NO_TOKENIZER leaves all of this out except the lk_vocab type name
 * (section 2b; lk_model_vocab then returns NULL). */
#ifndef LLMKIT_NO_TOKENIZER

typedef enum lk_vocab_type {
    LK_VOCAB_SPM = 1,   /* tokenizer.ggml.model = "llama" */
    LK_VOCAB_BPE = 2,   /* "gpt2"                          */
    LK_VOCAB_WPM = 3    /* "bert"                          */
} lk_vocab_type;

/* Token attributes (llama.cpp's llama_token_attr values). token_type KV
 * values map as: 1 normal, 2 unknown, 3 control, 4 user-defined, 5 unused,
 * 6 byte, anything else undefined (attr 0). */
enum {
    LK_TOKEN_ATTR_UNDEFINED = 0,
    LK_TOKEN_ATTR_UNKNOWN = 1 << 0,
    LK_TOKEN_ATTR_UNUSED = 1 << 1,
    LK_TOKEN_ATTR_NORMAL = 1 << 2,
    LK_TOKEN_ATTR_CONTROL = 1 << 3,
    LK_TOKEN_ATTR_USER_DEFINED = 1 << 4,
    LK_TOKEN_ATTR_BYTE = 1 << 5,
    LK_TOKEN_ATTR_NORMALIZED = 1 << 6,
    LK_TOKEN_ATTR_LSTRIP = 1 << 7,
    LK_TOKEN_ATTR_RSTRIP = 1 << 8,
    LK_TOKEN_ATTR_SINGLE_WORD = 1 << 9
};

/* Returned by lk_tokenize / lk_token_to_piece / lk_detokenize for invalid
 * arguments (NULL vocab, negative lengths, NULL buffers with a nonzero
 * size, token ids out of range) or when scratch memory cannot be had;
 * lk_last_error() says which. Every other negative value is -(needed). */
#define LK_TOKENIZE_ERROR (-2147483647 - 1)

/* Build a vocabulary from tokenizer.* KVs. Errors: LK_ERR_NOT_FOUND
 * (tokenizer.ggml.model / tokens / merges absent), LK_ERR_TYPE (a KV of the
 * wrong type: tokens and merges must be string arrays, scores a float32
 * array, token_type an int32 array, ids integers, add_* bools),
 * LK_ERR_RANGE (a special-token id KV outside [0, n_tokens); -1 and
 * 0xFFFFFFFF mean "none" and keep the default),
 * LK_ERR_FORMAT (array lengths that differ from the token count, duplicate
 * token texts, a token text over 1 MiB),
 * LK_ERR_UNSUPPORTED (another tokenizer model or pre-tokenizer),
 * LK_ERR_NOMEM. p NULL = lk_vocab_default_params(); *out is NULL after a
 * failure. */
typedef struct lk_vocab_params {
    const lk_allocator *alloc;    /* NULL = default allocator                 */
} lk_vocab_params;

LKDEF lk_vocab_params lk_vocab_default_params(void);
LKDEF lk_status lk_vocab_load(const lk_gguf *g, const lk_vocab_params *p, lk_vocab **out);
LKDEF void lk_vocab_free(lk_vocab *v);

LKDEF lk_vocab_type lk_vocab_get_type(const lk_vocab *v);
LKDEF const char *lk_vocab_pre(const lk_vocab *v);     /* tokenizer.ggml.pre, "" if absent */
LKDEF int lk_vocab_n_tokens(const lk_vocab *v);
/* Special ids: -1 when the vocab has none. Defaults when the KV is absent
 * follow llama.cpp (SPM: bos 1, eos 2, unk 0; BPE: bos = eos = 11; WPM:
 * bos 101 (CLS), unk 100, sep 102, pad 0, mask 103), and are dropped (-1)
 * when they fall outside the vocab. eot/eom are also found by token text
 * ("<|eot_id|>", "<|im_end|>", "<end_of_turn>", ...) as llama.cpp does. */
LKDEF lk_token lk_vocab_bos(const lk_vocab *v);
LKDEF lk_token lk_vocab_eos(const lk_vocab *v);
LKDEF lk_token lk_vocab_eot(const lk_vocab *v);
LKDEF lk_token lk_vocab_eom(const lk_vocab *v);
LKDEF lk_token lk_vocab_unk(const lk_vocab *v);
LKDEF lk_token lk_vocab_sep(const lk_vocab *v);
LKDEF lk_token lk_vocab_pad(const lk_vocab *v);
LKDEF lk_token lk_vocab_mask(const lk_vocab *v);
LKDEF lk_token lk_vocab_nl(const lk_vocab *v);         /* newline token */
/* add_bos_token / add_eos_token, or the per-model default (SPM: bos yes;
 * BPE: bos only for llama3-style pre-tokenizers; WPM: bos yes). */
LKDEF int lk_vocab_add_bos(const lk_vocab *v);
LKDEF int lk_vocab_add_eos(const lk_vocab *v);
/* Token text as stored (NUL-terminated; SPM/WPM spaces appear as U+2581,
 * BPE bytes in the GPT-2 mapping); NULL if id is out of range. */
LKDEF const char *lk_vocab_token_text(const lk_vocab *v, lk_token id);
LKDEF float lk_vocab_token_score(const lk_vocab *v, lk_token id);   /* 0 if out of range */
LKDEF int lk_vocab_token_attr(const lk_vocab *v, lk_token id);      /* LK_TOKEN_ATTR_*, 0 if out of range */
LKDEF int lk_vocab_is_eog(const lk_vocab *v, lk_token id);          /* end of generation (eos, eot, eom, ...) */
LKDEF int lk_vocab_is_control(const lk_vocab *v, lk_token id);
/* id of the token whose text is exactly text[0..len), or -1. */
LKDEF lk_token lk_vocab_find(const lk_vocab *v, const char *text, int len);

/* Tokenize text[0..text_len) (may contain NULs; invalid UTF-8 is handled
 * like llama.cpp: U+FFFD for BPE/WPM, raw bytes for SPM). add_special adds
 * BOS/EOS per the vocab's flags (WPM: CLS ... SEP); parse_special turns the
 * text of control tokens into those tokens (user-defined tokens are always
 * split out first, as llama.cpp does). Returns the number of tokens written
 * to tokens[0..n_max), or -(number needed) if n_max is too small (nothing
 * useful is written then), or LK_TOKENIZE_ERROR (also for texts over
 * INT_MAX / 8 bytes). */
LKDEF int lk_tokenize(const lk_vocab *v, const char *text, int text_len, lk_token *tokens, int n_max,
                      int add_special, int parse_special);
/* The bytes of one token (llama_token_to_piece with lstrip 0): SPM/WPM
 * U+2581 -> space, byte tokens -> their byte; BPE: the byte mapping
 * reversed. Control/unknown tokens give "" unless special != 0. Returns the
 * length (no NUL written), -(length) if len is too small, or
 * LK_TOKENIZE_ERROR for a bad id. */
LKDEF int lk_token_to_piece(const lk_vocab *v, lk_token token, char *buf, int len, int special);
/* Text of a token sequence (llama_detokenize): remove_special drops a
 * leading BOS / trailing EOS the vocab adds; unparse_special prints
 * control tokens. SPM drops the leading space of the first piece; BPE and
 * WPM vocabs with clean_spaces apply llama.cpp's " ." / " 's" clean-up.
 * Returns the length, -(needed) if text_len_max is too small, or
 * LK_TOKENIZE_ERROR. */
LKDEF int lk_detokenize(const lk_vocab *v, const lk_token *tokens, int n_tokens, char *text, int text_len_max,
                        int remove_special, int unparse_special);
#endif /* LLMKIT_NO_TOKENIZER */

/* ==========================================================================
 * 12b. Chat templates
 * ==========================================================================
 * A conversation (role, content messages) as the text a chat model was
 * trained on, rendered byte for byte as llama.cpp's llama_chat_apply_template
 * renders it (reference: llama.cpp 0c1e570, src/llama-chat.cpp). Like
 * llama.cpp this is not a Jinja interpreter: the model's
 * tokenizer.chat_template is matched against known families, by the same
 * substring tests in the same order as llm_chat_detect_template, and each
 * family has a fixed renderer. Families (names as llama.cpp spells them):
 *   chatml (Qwen, SmolLM2, ...), llama2, llama2-sys, llama2-sys-bos,
 *   llama2-sys-strip, mistral-v1, mistral-v3, mistral-v3-tekken, mistral-v7,
 *   mistral-v7-tekken, phi3, phi4, falcon3, zephyr, monarch, gemma, orion,
 *   openchat, vicuna, vicuna-orca, deepseek, deepseek2, deepseek3,
 *   deepseek-ocr, command-r, llama3, chatglm3, chatglm4, glmedge, minicpm,
 *   exaone3, exaone4, exaone-moe, rwkv-world, granite, granite-4.0,
 *   granite-4.1, gigachat, megrez, yandex, bailing, bailing-think, bailing2,
 *   llama4, smolvlm, dots1, hunyuan-moe, gpt-oss, hunyuan-dense, hunyuan-vl,
 *   kimi-k2, seed_oss, grok-2, pangu-embedded, solar-open
 * ("dots1" is detected by llama.cpp but has no name there; here it has one).
 * What llama.cpp's renderers do, this does too: roles are free text (an
 * unknown role is printed, merged or dropped as the family's renderer does
 * it, never an error); no BOS is added (tokenize the first turn with
 * add_special); and a default system prompt that a model's Jinja adds when
 * the conversation has none (SmolLM2: "You are a helpful AI assistant named
 * SmolLM, ...") is not added: the chatml renderer has none.
 * One difference: a model without tokenizer.chat_template is an error here
 * (llama.cpp falls back to chatml); name a family instead.
 *
 * Text results follow snprintf: the return value is the full length in
 * bytes (no NUL counted); when it is >= cap, buf holds a NUL-terminated
 * prefix (nothing when cap is 0; llama.cpp's strncpy leaves no NUL) and
 * the caller retries with a larger buffer. -1 means an error, with
 * lk_last_error() set: a NULL or negative argument, a message with a NULL
 * role or content, an unknown template, a rendering over INT_MAX bytes.
 *
 * lk_chat keeps a conversation for an interactive program that holds the
 * KV cache across turns and prefills only what is new:
 *   lk_chat_new(m, NULL, &chat);          (the model's template)
 *   loop: lk_chat_add(chat, "user", line);
 *         lk_chat_next(chat, &text, &len); tokenize (add_special on the
 *                                          first turn, parse_special) and decode
 *         sample until lk_chat_is_eot(chat, tok) (do not decode that token)
 *         lk_chat_add(chat, "assistant", reply);
 * (the text handed out ends with the assistant prefix: the next message
 * added is the reply, else the caller rewinds its KV cache itself)
 * lk_chat_next renders the conversation with the assistant prefix and
 * returns the part not returned before. When the reply is added, the
 * rendering normally continues the text returned so far with the reply
 * itself: then the next lk_chat_next starts right after the reply, with the
 * template's end-of-turn text ("<|im_end|>\n..."), so the KV cache holds
 * exactly the rendered conversation. When it does not (a template that trims
 * the reply, or rewrites earlier text), the next one starts after the
 * rendering of the conversation with the reply, as llama.cpp's simple-chat
 * example does. Memory comes from lk_chat_params.alloc; messages are
 * copied. */
#ifndef LLMKIT_NO_TOKENIZER

typedef struct lk_chat_message {
    const char *role;     /* "system", "user", "assistant", ... */
    const char *content;
} lk_chat_message;

/* Render msgs[0..n) with the model's tokenizer.chat_template; with
 * add_assistant_prefix, end with what opens the assistant's reply. Returns
 * the length (see above) or -1: no template in the model
 * (LK_ERR_NOT_FOUND), a template of no known family, bad arguments. */
LKDEF int lk_chat_apply(const lk_model *m, const lk_chat_message *msgs, int n, int add_assistant_prefix,
                        char *buf, int cap);
/* The same with an explicit template: a family name ("chatml", "llama3",
 * ...) or the Jinja source of a template, detected as above. */
LKDEF int lk_chat_apply_template(const char *tmpl, const lk_chat_message *msgs, int n, int add_assistant_prefix,
                                 char *buf, int cap);
/* The family of a template (a family name or Jinja source), or NULL. */
LKDEF const char *lk_chat_template_detect(const char *tmpl);
/* The family of the model's tokenizer.chat_template, or NULL (none, or
 * not recognised). */
LKDEF const char *lk_chat_model_template(const lk_model *m);
/* Family names: the i-th for 0 <= i < count, NULL past the end. */
LKDEF const char *lk_chat_template_name(int i);
/* The end-of-turn marker a family writes right after an assistant message
 * ("<|im_end|>", "<|eot_id|>", "<end_of_turn>", "</s>", ...): "" when it
 * has none (the model ends its turn with its EOS), NULL for an unknown
 * template. */
LKDEF const char *lk_chat_template_eot(const char *tmpl);
/* Tokens that end the assistant's turn for model m and template tmpl (NULL
 * = the model's): the end-of-turn text when it is a single token, then the
 * vocabulary's end-of-generation tokens (eos, eot, eom, ...), each once.
 * Returns how many there are (ids[0..min(count, cap)) written), or -1. */
LKDEF int lk_chat_eot_tokens(const lk_model *m, const char *tmpl, lk_token *ids, int cap);

typedef struct lk_chat_params {
    const char *tmpl;             /* family name or Jinja; NULL = the model's */
    const lk_allocator *alloc;    /* NULL = default allocator                 */
} lk_chat_params;

LKDEF lk_chat_params lk_chat_default_params(void);
/* m may be NULL when p->tmpl is set (lk_chat_is_eot is then always 0: look
 * for lk_chat_template_eot's text instead); else it must outlive the chat.
 * Errors: LK_ERR_NOT_FOUND (the model has no template), LK_ERR_UNSUPPORTED
 * (a template of no known family), LK_ERR_INVALID_ARG, LK_ERR_NOMEM. */
LKDEF lk_status lk_chat_new(const lk_model *m, const lk_chat_params *p, lk_chat **out);
LKDEF void lk_chat_free(lk_chat *c);
LKDEF const char *lk_chat_family(const lk_chat *c);
LKDEF int lk_chat_n_messages(const lk_chat *c);
/* Append a message (role and content are copied). The reply to what
 * lk_chat_next returned is added as the text of the generated tokens,
 * unchanged (see above). */
LKDEF lk_status lk_chat_add(lk_chat *c, const char *role, const char *content);
/* The text to prefill now: *text (valid until the next lk_chat_* call on c)
 * and *len bytes, not NUL-terminated. */
LKDEF lk_status lk_chat_next(lk_chat *c, const char **text, int *len);
/* The whole conversation rendered, as lk_chat_apply_template renders it;
 * *text valid as lk_chat_next's. */
LKDEF lk_status lk_chat_render(lk_chat *c, int add_assistant_prefix, const char **text, int *len);
/* 1 if token t ends the assistant's turn (lk_chat_eot_tokens), else 0. */
LKDEF int lk_chat_is_eot(const lk_chat *c, lk_token t);
#endif /* LLMKIT_NO_TOKENIZER */

/* ==========================================================================
 * 13. Model
 * ==========================================================================
 * A model binds the weights of a GGUF file in place (zero-copy) and checks
 * every shape. A context owns the KV cache and all scratch, sized up front.
 *   lk_model *m;   lk_model_load_file("m.gguf", NULL, &m);
 *   lk_context *c; lk_context_new(m, NULL, &c);
 *   lk_decode(c, toks, n);  const float *logits = lk_logits(c, -1);   */
typedef enum lk_arch {
    LK_ARCH_LLAMA = 0, LK_ARCH_QWEN2, LK_ARCH_GEMMA, LK_ARCH_GEMMA2, LK_ARCH_PHI3, LK_ARCH_GPT2, LK_ARCH_GEMMA3,
    LK_ARCH_QWEN3, LK_ARCH_QWEN3MOE, LK_ARCH_SMOLLM3, LK_ARCH_GPT_OSS, LK_ARCH_COUNT
} lk_arch;

typedef struct lk_hparams {
    lk_arch arch;
    int n_vocab, n_ctx_train, n_embd, n_layer, n_head, n_head_kv, head_dim_k, head_dim_v, n_ff;
    float norm_eps;
    int norm_is_layernorm;        /* gpt2 */
    lk_rope rope;                 /* rope.n_rot = 0: no RoPE (gpt2)            */
    lk_rope rope_swa;             /* RoPE of the sliding-window layers (gemma3:
                                   * rope.freq_base_swa, 10000; else = rope)   */
    int sliding_window;           /* 0 = none                                  */
    int swa_pattern;              /* layers with the window, as llama.cpp:
                                   * 0 all; n: il % n < n - 1 (gemma2 2, gemma3
                                   * 6); -1: per layer (a bool array in the file) */
    float attn_softcap, final_softcap;
    float embd_scale;             /* gemma: sqrt(n_embd); else 1               */
    float q_scale;                /* applied to q after RoPE (1 = inside attn) */
    float attn_scale;             /* scale inside attention                    */
    /* mixture of experts (n_expert > 0: every layer's FFN is one) */
    int n_expert, n_expert_used;  /* expert_count, expert_used_count           */
    int n_ff_exp;                 /* expert_feed_forward_length (= n_ff)       */
    int expert_gating;            /* 1 softmax, 2 sigmoid (expert_gating_func); 3 the
                                   * k best logits, then the softmax of those k (gpt-oss) */
    int expert_weights_norm;      /* the k weights divided by their sum        */
    float expert_weights_scale;   /* then multiplied by this (0 = 1)           */
} lk_hparams;

typedef struct lk_model_params {
    const lk_allocator *alloc;    /* NULL = default                           */
    int check_tensors;            /* 1: validate every tensor's data at load
                                   * (llama.cpp's --check-tensors): floats must be
                                   * finite, and so must every block scale (d,
                                   * dmin) of the quantized types; the error names
                                   * the tensor and the first bad element. Without
                                   * it a decode whose logits are not finite fails
                                   * with LK_ERR_FORMAT instead.              */
    int repack;                   /* interleaved rows (LK_LAYOUT_R8, lk_repack_r8)
                                   * for the layer matrices and the output head,
                                   * where the build has a kernel (Q4_0, Q4_K:
                                   * x86 AVX2; F16: x86 AVX-512):
                                   *  0 (default): when the file is mapped
                                   *    (lk_model_load_file with mmap), whose
                                   *    pages are then dropped from the
                                   *    resident set: no extra memory, but
                                   *    the copy takes load time (a pass
                                   *    over every repacked weight);
                                   *  1: also for lk_model_load_memory and
                                   *    fread loads (a copy beside the buffer);
                                   * -1: never (the file's layout and the
                                   *    row kernels' summation order).       */
} lk_model_params;

/* lk_model: declared in section 12b, whose chat functions take one */

LKDEF lk_model_params lk_model_default_params(void);
/* Set one field by its command-line name (as lk_sampler_params_set; the
 * rows of lk_options(LK_OPTIONS_MODEL)): check-tensors 0|1, repack -1|0|1.
 * LK_ERR_NOT_FOUND for another name. */
LKDEF lk_status lk_model_params_set(lk_model_params *p, const char *name, const char *value);
#ifndef LLMKIT_NO_STDIO
LKDEF lk_status lk_model_load_file(const char *path, const lk_model_params *p, lk_model **out);
#endif
/* buf must outlive the model: weights are used in place. */
LKDEF lk_status lk_model_load_memory(const void *buf, size_t len, const lk_model_params *p, lk_model **out);
LKDEF void lk_model_free(lk_model *m);
LKDEF const lk_hparams *lk_model_hparams(const lk_model *m);
LKDEF const lk_gguf *lk_model_gguf(const lk_model *m);
LKDEF int lk_model_n_vocab(const lk_model *m);
/* The tokenizer of the file (NULL if it has no tokenizer.* metadata). */
LKDEF const lk_vocab *lk_model_vocab(const lk_model *m);
LKDEF const char *lk_arch_name(lk_arch a);
/* bytes of weights the forward pass reads per token (for bandwidth figures) */
LKDEF uint64_t lk_model_weight_bytes(const lk_model *m);
/* bytes of weights repacked into interleaved rows at load (0: none; see
 * lk_model_params.repack) */
LKDEF size_t lk_model_repacked_bytes(const lk_model *m);

#define LK_CTX_DEFAULT 4096       /* n_ctx when lk_context_params.n_ctx is 0 */
typedef struct lk_context_params {
    int n_ctx;                    /* 0 = the model's training context, at most
                                   * LK_CTX_DEFAULT (4096, llama.cpp's tools'
                                   * default); set it for longer contexts     */
    int n_batch;                  /* tokens per forward chunk (512)            */
    lk_type kv_type;              /* f32, f16 (default), q8_0, q4_0; with kv_zip_bits: the window type */
    int kv_zip_bits;              /* 0, or 4 / 2: the zip KV format (section 10) */
    int kv_zip_window;            /* zip: newest rows kept in kv_type (32)     */
    int kv_rotate;                /* 1: store every K and V head Hadamard-rotated
                                   * (lk_hadamard; q rotated alike, the output
                                   * rotated back), so a quantized cache spreads
                                   * outlier channels over the block; head_dim
                                   * must be a power of two                    */
    lk_attn_score attn_score;     /* softmax (default), LSSA, LSSAR (section 9) */
    float lssar_p;                /* LSSAR power (15)                          */
    int attn_split;               /* > 1: decode (1 token) splits each head's keys in this many parts across threads */
    int attn_tile;                /* > 0: flash-style tiles of this many keys  */
    lk_kv_policy_params kv_policy;/* which rows each query reads (section 10)  */
    int logits_all;               /* keep logits for every token of a batch    */
    int n_tree;                   /* token-tree nodes lk_decode_tree takes at most
                                   * (0: none unless logits_all, then n_batch);
                                   * their logits are kept: n_tree x n_vocab floats */
    int n_threads;                /* <= 0: all cores with OpenMP, else 1       */
    int n_seq_max;                /* > 0: that many independent sequences share
                                   * the KV pool (lk_decode_batch, below)     */
    int kv_page;                  /* with n_seq_max: rows per KV page (16)     */
    lk_parallel_for_fn parallel_for; /* optional hook (section 3b): NULL = OpenMP or serial */
    void *parallel_user;
    const lk_allocator *alloc;    /* NULL = default                            */
} lk_context_params;

LKDEF lk_context_params lk_context_default_params(void);
/* Set one field by its command-line name (as lk_sampler_params_set; the
 * rows of lk_options(LK_OPTIONS_CONTEXT)): ctx-size (c), batch-size (b),
 * threads (t), attn softmax|lssa|lssar, lssar-p, attn-split, attn-tile,
 * kv-type (kv) f32|f16|q8_0|q4_0|zip4|zip2 (zip4 / zip2 also set
 * kv_zip_bits; the others clear it), kv-window, kv-rotate 0|1, tree-nodes,
 * kv-policy (a name of lk_kv_policy_name), kv-budget, n-sink, kv-recent,
 * page-size, top-p-attn, twilight-base full|quest, kv-seed, reuse-cos,
 * parallel (np) = n_seq_max, kv-page. */
LKDEF lk_status lk_context_params_set(lk_context_params *p, const char *name, const char *value);
/* Bytes lk_context_new will allocate for these parameters. */
LKDEF size_t lk_context_memory_size(const lk_model *m, const lk_context_params *p);
LKDEF lk_status lk_context_new(const lk_model *m, const lk_context_params *p, lk_context **out);
LKDEF void lk_context_free(lk_context *c);
/* ---- decoding: run tokens through the model ----
 * lk_decode: tokens at positions n_past, n_past+1, ... (prefill in chunks of
 * n_batch). Logits: the last token's, or every token's with logits_all. A
 * failed call stores nothing: the context is as before it (as after
 * lk_context_truncate to the old length; rows that an evicting policy,
 * StreamingLLM, H2O or Keyformer, dropped during the call stay dropped). */
LKDEF lk_status lk_decode(lk_context *c, const lk_token *tokens, int n);
/* The same with explicit positions (non-decreasing, >= the last stored one). */
LKDEF lk_status lk_decode_pos(lk_context *c, const lk_token *tokens, const int *pos, int n);
/* Packed sequences (Prepacking): seg[i] is token i's segment id; a token
 * attends only to rows of its own segment (block-diagonal causal mask), and
 * positions are per segment (they may restart at 0 for a new segment; they
 * must not decrease within a segment). seg NULL = all segment 0; pos NULL =
 * continue from the last stored position. */
LKDEF lk_status lk_decode_ext(lk_context *c, const lk_token *tokens, const int *pos, const int *seg, int n);
/* Token trees (speculative decoding, SpecInfer-style verification).
 * lk_decode_tree: n nodes after the stored tokens; parents[i] < i is node
 * i's parent, -1 = it hangs off the last stored token. Node i sits at
 * position (last stored position + 1 + its depth) and attends to the stored
 * tokens, its ancestors and itself only. Logits for every node: lk_logits(c, i).
 * n <= n_tree (or n_batch with logits_all). Not with the zip KV format or the
 * policies that evict or keep per-step state (streaming, h2o, keyformer,
 * tokenselect): LK_ERR_UNSUPPORTED. The nodes' KV rows stay pending until
 * lk_context_tree_commit(c, path, m): path[0] a root, path[k]'s parent
 * path[k - 1]; it keeps those m rows, in order, as if the path's tokens had
 * been decoded one by one (positions, policy state), and drops the rest;
 * m = 0 drops the whole tree. While a tree is pending, lk_decode and
 * lk_context_state_save refuse (LK_ERR_INVALID_ARG); lk_context_truncate to
 * at most the tokens before the tree drops it. Node logits equal sequential
 * decoding of the node's root path bit for bit (each node reads its
 * ancestors' rows as an index list, keys numbered as in that decoding), and
 * so do the kept rows. With quest or twilight, a node reads the rows their
 * page selection picks with the other branches masked: within rounding of
 * sequential decoding while the budget holds every visible row, and with a
 * smaller budget the selection itself can differ (pages mix branches); the
 * policy's state after a commit is rebuilt from the kept rows either way. */
LKDEF lk_status lk_decode_tree(lk_context *c, const lk_token *tokens, const int *parents, int n);
LKDEF lk_status lk_context_tree_commit(lk_context *c, const int *path, int n);
/* nodes of the pending tree (0: none) */
LKDEF int lk_context_tree_pending(const lk_context *c);
/* ---- speculative decoding over a target context (lk_spec) ----
 * Each step verifies a token tree in one target forward (lk_decode_tree):
 * its root is the last sampled token (not yet in the cache), its other
 * nodes are proposals. The walk from the root (SpecInfer's multi-step
 * speculative sampling; Recursive Speculative Decoding's rule for siblings
 * drawn without replacement) accepts child x of a node with probability
 * min(1, p(x) / q(x)), p the sampler's distribution there (lk_sampler_probs:
 * temperature, top-k, top-p, min-p, penalties of the accepted history) and
 * q the proposal's; a rejected child turns p into norm(max(0, p - q)) and
 * the next sibling is tried; when no child is accepted a token is drawn
 * from p. Every emitted token is then distributed exactly as plain
 * sampling would draw it (greedy: the same tokens). Proposals:
 *   LK_SPEC_DRAFT    a draft model's chain of up to draft_max tokens, each
 *                    drawn from its distribution (the target sampler's chain
 *                    without penalties); stops when its top probability is
 *                    below draft_p_min
 *   LK_SPEC_TREE     a draft model's tree of up to n_nodes nodes, grown in
 *                    rounds by the largest path probability (DySpec's greedy
 *                    expansion); siblings drawn without replacement
 *                    (Gumbel-top-k); greedy targets take the draft's best
 *                    tokens instead (a proposal that is a fixed token is
 *                    always valid)
 *   LK_SPEC_RECYCLE  Token Recycling: no draft model; an adjacency table of
 *                    each token's recycle_k most likely successors, rewritten
 *                    from the logits of every target forward, expanded from
 *                    the root by BFS over a static template (child j of a
 *                    node at depth d exists while j < width[d] - rank of
 *                    the node among its siblings; widths 8, 4, 3, 2, 2, 1, ..)
 *                    up to n_nodes nodes
 *   LK_SPEC_LOOKUP   prompt lookup: the draft_max tokens that followed the
 *                    latest earlier occurrence of the last n tokens (n from
 *                    ngram_max down to 1) of the prompt and output
 * Fixed-token proposals (recycle, lookup, greedy trees) have q = 1 at the
 * token. Adaptive (adaptive = 1): the step's cost is measured with now()
 * (seconds, e.g. a monotonic clock; NULL: cost = 1 + node_cost per extra
 * node, in units of a one-token forward); when the tokens per unit of cost
 * fall below plain decoding's, draft_max / n_nodes halve, and at the
 * smallest size speculation pauses for 64 tokens (plain one-token steps,
 * also timed; each failed retry doubles the pause, up to 4096) before it is
 * tried again at full size.
 * The target context needs n_tree >= the tree size (lk_spec_new checks);
 * the draft context (draft, tree) the same vocabulary and n_tree for tree.
 * The caller owns the contexts and the sampler; lk_spec uses the sampler
 * for every draw (and feeds it the accepted tokens). Mirostat is refused. */
typedef enum lk_spec_mode { LK_SPEC_NONE = 0, LK_SPEC_DRAFT = 1, LK_SPEC_TREE = 2, LK_SPEC_RECYCLE = 3, LK_SPEC_LOOKUP = 4 } lk_spec_mode;
typedef struct lk_spec_params {
    lk_spec_mode mode;
    int draft_max;            /* draft, lookup: most proposals per step   8     */
    float draft_p_min;        /* draft, tree: least top probability      0.0   */
    int n_nodes;              /* tree, recycle: nodes per step, root incl. 16 / 32 (0: the mode's) */
    int ngram_max;            /* lookup: longest n-gram matched          3     */
    int recycle_k;            /* recycle: successors kept per token      8     */
    int adaptive;             /* 1: shrink or pause when it does not pay 1     */
    float node_cost;          /* cost of an extra node without now()     0.1   */
    double (*now)(void *user);/* optional clock for the adaptive rule         */
    void *now_user;
    uint64_t seed;            /* draws of the draft's proposals          0     */
    const lk_allocator *alloc;
} lk_spec_params;
typedef struct lk_spec_stats {
    int64_t tokens;           /* tokens emitted (lk_spec_begin's included)      */
    int64_t forwards;         /* target forwards, the prompt's included (plain
                               * decoding: one per token)                      */
    int64_t proposed;         /* proposal nodes verified                        */
    int64_t accepted;         /* proposals accepted                             */
    int64_t plain_steps;      /* one-token steps while paused                   */
} lk_spec_stats;
LKDEF lk_spec_params lk_spec_default_params(void);
/* Options by name (as lk_sampler_params_set; the rows of
 * lk_options(LK_OPTIONS_SPEC)): spec none|draft|tree|recycle|lookup,
 * draft-max, draft-p-min, spec-nodes, spec-ngram, spec-k, spec-adaptive 0|1,
 * spec-seed. LK_ERR_NOT_FOUND for other names. */
LKDEF lk_status lk_spec_params_set(lk_spec_params *p, const char *name, const char *value);
LKDEF const char *lk_spec_mode_name(lk_spec_mode m);

/* ---- option tables: the command-line names of the params structs ----
 * Each params struct that has a _params_set function has a table, one row
 * per option; the four setters (lk_model_params_set, lk_context_params_set,
 * lk_sampler_params_set, lk_spec_params_set) apply its rows, and a tool
 * prints its --help from the same rows, so the two cannot drift apart.
 * A value is parsed strictly (the whole string; integers in decimal, an
 * optional sign; floats as strtod, NaN refused) and checked against the
 * row's range or choices before the field is written. Every error sets
 * lk_last_error() naming the option: "unknown context option --foo",
 * "--top-p: expected a number in [0, 1], got '2'", "--kv-type must be one
 * of f32, f16, ... (got 'q3')". */
typedef enum lk_option_set {
    LK_OPTIONS_MODEL = 0,     /* lk_model_params                          */
    LK_OPTIONS_CONTEXT,       /* lk_context_params                        */
    LK_OPTIONS_SAMPLER,       /* lk_sampler_params                        */
    LK_OPTIONS_SPEC,          /* lk_spec_params                           */
    LK_OPTIONS_COUNT
} lk_option_set;
typedef enum lk_option_kind {
    LK_OPT_INT = 0,           /* an integer in [lo, hi] into an int field */
    LK_OPT_U64,               /* an integer in [lo, hi] into a uint64_t (a
                               * negative one as its two's complement)    */
    LK_OPT_FLOAT,             /* a number in [lo, hi] into a float; a bound
                               * of +-1e30 means unbounded (inf refused)  */
    LK_OPT_CHOICE             /* one of the names of choices, exact case  */
} lk_option_kind;
typedef struct lk_option_choices {
    const char *const *names;      /* NULL-terminated; or NULL, and then:  */
    const char *(*name_of)(int k); /* the k-th name, NULL past the last    */
    const int *values;             /* the field's value for the k-th name
                                    * (NULL: k itself)                     */
    size_t also;                   /* with also_values: the offset of an int
                                    * field that gets also_values[k] too
                                    * (kv-type: kv_zip_bits)               */
    const int *also_values;
} lk_option_choices;
typedef struct lk_option {
    const char *name;         /* "ctx-size": given as ctx-size, -ctx-size or --ctx-size */
    const char *alias;        /* "c", or NULL                              */
    lk_option_kind kind;
    size_t offset, size;      /* the field: offsetof and sizeof in its struct */
    double lo, hi;            /* INT, U64, FLOAT: the accepted range       */
    const lk_option_choices *choices;  /* CHOICE                           */
    const char *arg;          /* the value in help ("N", "0|1"); NULL for a
                               * choice: its names joined by '|'            */
    const char *help;         /* one line                                  */
} lk_option;
/* The rows of a set, *n of them (n may be NULL); NULL and 0 for an unknown
 * set. The same rows whatever the build (LLMKIT_NO_STDIO included). */
LKDEF const lk_option *lk_options(lk_option_set which, int *n);
/* The k-th name a CHOICE row accepts (k >= 0), NULL past the last or for
 * another kind. */
LKDEF const char *lk_option_choice(const lk_option *o, int k);
/* One line of help for a row, without a newline, e.g.
 *   "  -c, --ctx-size N            context size in tokens; ... [0, 2147483647]"
 * (an alias of one letter first with one dash, a longer one after the name:
 * "--parallel, --np N"; then the help text and the range, unless arg spells
 * the values; a choice's arg is its names, "f32|f16|..."). snprintf semantics:
 * returns the full length, writes at most cap - 1 characters and a NUL
 * (buf may be NULL when cap is 0). */
LKDEF int lk_option_help(const lk_option *o, char *buf, size_t cap);
LKDEF lk_status lk_spec_new(lk_context *target, lk_context *draft, lk_sampler *smp, const lk_spec_params *p, lk_spec **out);
/* Decode the prompt (both contexts must be empty) and draw the first token. */
LKDEF lk_status lk_spec_begin(lk_spec *s, const lk_token *prompt, int n, lk_token *first);
/* One step: up to cap tokens appended to out (*n_out >= 1: accepted
 * proposals, then the drawn token). cap >= 1; a step never emits more. The
 * target's cache then holds everything emitted but the last token. */
LKDEF lk_status lk_spec_step(lk_spec *s, lk_token *out, int cap, int *n_out);
LKDEF lk_spec_stats lk_spec_get_stats(const lk_spec *s);
/* Empty the contexts for a new prompt (lk_spec_begin next); keeps the
 * statistics and Token Recycling's table (a hot start, as in the paper). */
LKDEF lk_status lk_spec_reset(lk_spec *s);
LKDEF void lk_spec_free(lk_spec *s);
/* ---- many sequences in one context (continuous batching) ----
 * With n_seq_max > 0 a context holds up to n_seq_max independent sequences
 * (a server's requests, a game's characters) over one KV pool of n_ctx rows
 * (rounded up to whole pages). The pool is paged (PagedAttention): pages of
 * kv_page rows, a free list, and per sequence the list of its rows; a
 * sequence that grows takes a free page, one that is removed or truncated
 * gives whole pages back, and nothing is ever moved. lk_seq_fork shares the
 * source's pages copy-on-write: full pages are never written again, and a
 * partly filled shared page is copied (its filled rows only) when one of
 * the sequences appends to it. So requests that start with the same system
 * prompt decode it once and share its rows.
 * lk_decode_batch: token i goes to sequence seq[i] at position pos[i] (pos
 * NULL: each sequence's next position, counting the batch's earlier tokens
 * of that sequence); any mix of prefills and decodes, in chunks of n_batch,
 * each chunk one forward. A sequence's tokens come in order (positions
 * non-decreasing). Each token attends to its own sequence's rows only, as
 * an index list in the sequence's order, so every sequence gets what a
 * context running it alone gets (bit for bit where the kernels match, which
 * the tests check). Logits: the tokens with logits[i] != 0 (logits NULL:
 * the last token of each sequence in the batch), at most n_seq_max rows (or
 * n_batch with logits_all); lk_logits(c, i) takes the batch index i.
 * Everything is checked before anything changes; a batch that does not fit
 * in the free pages is refused (LK_ERR_RANGE) and one that fails leaves
 * every sequence as it was. KV types f32, f16, q8_0, q4_0 and kv_rotate;
 * policies full and streaming (per sequence); the zip format, the other
 * policies and token trees are refused. In this mode lk_decode*,
 * lk_decode_tree, lk_context_truncate and the prefix cache refuse
 * (LK_ERR_INVALID_ARG); lk_context_n_past is 0. */
typedef struct lk_batch {
    int n;                        /* tokens                                    */
    const lk_token *token;        /* [n]                                       */
    const int *seq;               /* [n] sequence of each token                */
    const int *pos;               /* [n] positions, or NULL                    */
    const int8_t *logits;         /* [n] 1: keep this token's logits, or NULL  */
} lk_batch;
/* A new empty sequence; *seq its id in [0, n_seq_max). LK_ERR_RANGE when
 * n_seq_max sequences are live. */
LKDEF lk_status lk_seq_add(lk_context *c, int *seq);
/* Forget a sequence; its pages go back to the free list (shared ones when
 * their last user lets go). */
LKDEF lk_status lk_seq_remove(lk_context *c, int seq);
/* Keep the first n tokens of a sequence (speculative rollback). */
LKDEF lk_status lk_seq_truncate(lk_context *c, int seq, int n);
/* A new sequence holding src's tokens, sharing src's pages (copy-on-write). */
LKDEF lk_status lk_seq_fork(lk_context *c, int src, int *dst);
/* tokens stored for seq; -1 if it is not live */
LKDEF int lk_seq_n_past(const lk_context *c, int seq);
/* rows on free pages: new tokens that fit whatever the sequences */
LKDEF int lk_seq_free_rows(const lk_context *c);
LKDEF lk_status lk_decode_batch(lk_context *c, const lk_batch *b);
/* One step of continuous batching by SARATHI's rule (Sarathi-Serve: chunked
 * prefills that piggyback on decodes): each step has a token budget;
 * requests that are decoding come first, one token each, in the order
 * given (when they alone exceed the budget the later ones wait: rotate the
 * order between steps); prefills then fill what is left, in the order given
 * (first come, first served), each a chunk of at most its remaining prompt
 * and chunk_max tokens (<= 0: no limit). left[i]: request i's prompt tokens
 * not yet decoded (0: it is decoding and feeds one token; < 0: it takes no
 * part). Writes take[i], the tokens request i feeds this step, and returns
 * their sum (<= budget). */
LKDEF int lk_sched_plan(const int *left, int n, int budget, int chunk_max, int *take);
/* Row i of the last batch's logits (i < 0 counts from the end); NULL if
 * that row was not computed (or the last decode failed). */
LKDEF const float *lk_logits(const lk_context *c, int i);
LKDEF int lk_context_n_past(const lk_context *c);
LKDEF int lk_context_n_ctx(const lk_context *c);
/* Forget everything after the first n tokens (speculative rollback). */
LKDEF lk_status lk_context_truncate(lk_context *c, int n);
LKDEF const lk_kv_cache *lk_context_kv(const lk_context *c);
/* Bytes of KV state: the cache buffer plus the policy's metadata; for the
 * eviction policies (streaming, h2o, keyformer) the rows counted are the
 * budget per layer (what an evicting cache holds), not the buffer. */
LKDEF uint64_t lk_context_kv_bytes(const lk_context *c);
/* Prefix cache: the KV state of the first n_past tokens with a header
 * (magic "LKKV", version, a 64-bit FNV-1a hash of the model's GGUF header +
 * tensor table, a hash of the KV settings, n). Policies with per-step state
 * (h2o, keyformer, tokenselect reuse) are refused (LK_ERR_UNSUPPORTED).
 * lk_context_state_save: buf NULL -> *size = bytes needed. Load refuses a
 * different model or settings (LK_ERR_INVALID_ARG), a corrupt or truncated
 * buffer (LK_ERR_FORMAT), and leaves the context empty on failure. */
LKDEF lk_status lk_context_state_save(const lk_context *c, void *buf, size_t cap, size_t *size);
LKDEF lk_status lk_context_state_load(lk_context *c, const void *buf, size_t len);
#ifndef LLMKIT_NO_STDIO
LKDEF lk_status lk_context_state_save_file(const lk_context *c, const char *path);
LKDEF lk_status lk_context_state_load_file(lk_context *c, const char *path);
#endif

#ifdef __cplusplus
}
#endif
#endif /* LLMKIT_H */

/* ==========================================================================
 * 14. Implementation
 * ========================================================================== */
#ifdef LLMKIT_IMPLEMENTATION
#ifndef LLMKIT_IMPLEMENTATION_DONE
#define LLMKIT_IMPLEMENTATION_DONE

#include <string.h>
#include <stdarg.h>
#include <stdlib.h>
#include <math.h>
#include <limits.h>
#ifndef LLMKIT_NO_STDIO
#include <stdio.h>
#endif
#if !defined(LLMKIT_NO_STDIO) && !defined(LLMKIT_NO_MMAP)
#if defined(_WIN32)
#define LK__MMAP_WIN32 1
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#include <windows.h>
#elif defined(__unix__) || defined(__APPLE__)
#define LK__MMAP_POSIX 1
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#endif
#endif
#if defined(_OPENMP) && !defined(LLMKIT_NO_THREADS)
#include <omp.h>
#define LK__OPENMP 1
#endif

#ifndef LLMKIT_ASSERT
#define LLMKIT_ASSERT(x) ((void)0)
#endif

/* explicit casts (void* does not convert implicitly in C++) */
#define LK__CAST(T, x) ((T)(x))

#if defined(__GNUC__) || defined(__clang__)
#define LK__UNUSED __attribute__((unused))
#else
#define LK__UNUSED
#endif

/* LK__STRICT_FP_BEGIN ... LK__STRICT_FP_END: no contraction of a*b + c into
 * fma between them (sections 14.7a and 14.9 round where the C says so, as
 * ggml does; fused steps are written as fmaf). Keep such regions few:
 * with GCC each push/pop pair changes how later functions are optimised
 * (a third pair once moved F32 logits off llama.cpp's bits), and
 * test_model's bit-identical counts catch that. */
#if defined(__clang__)
#define LK__STRICT_FP_BEGIN _Pragma("STDC FP_CONTRACT OFF")
#define LK__STRICT_FP_END _Pragma("STDC FP_CONTRACT DEFAULT")
#elif defined(__GNUC__) && !defined(__CUDACC__)
#define LK__STRICT_FP_BEGIN _Pragma("GCC push_options") _Pragma("GCC optimize(\"fp-contract=off\")")
#define LK__STRICT_FP_END _Pragma("GCC pop_options")
#else
#define LK__STRICT_FP_BEGIN
#define LK__STRICT_FP_END
#endif

/* --------------------------------------------------------------------------
 * 14.2 Status codes and error messages
 * -------------------------------------------------------------------------- */
#if defined(LLMKIT_NO_TLS) || (defined(__ARM_ARCH_PROFILE) && __ARM_ARCH_PROFILE == 'M')
#define LK__TLS                 /* one global message (microcontrollers have no TLS runtime) */
#elif defined(__cplusplus) && __cplusplus >= 201103L
#define LK__TLS thread_local
#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L && !defined(__STDC_NO_THREADS__)
#define LK__TLS _Thread_local
#elif defined(__GNUC__) || defined(__clang__)
#define LK__TLS __thread
#elif defined(_MSC_VER)
#define LK__TLS __declspec(thread)
#else
#define LK__TLS
#endif

static LK__TLS char lk__errbuf[512];

LKDEF const char *lk_status_str(lk_status st) {
    switch (st) {
    case LK_OK: return "ok";
    case LK_ERR_INVALID_ARG: return "invalid argument";
    case LK_ERR_NOMEM: return "out of memory";
    case LK_ERR_IO: return "I/O error";
    case LK_ERR_FORMAT: return "malformed input";
    case LK_ERR_UNSUPPORTED: return "unsupported";
    case LK_ERR_NOT_FOUND: return "not found";
    case LK_ERR_TYPE: return "type mismatch";
    case LK_ERR_RANGE: return "out of range";
    default: return "unknown status";
    }
}

LKDEF const char *lk_last_error(void) { return lk__errbuf[0] ? lk__errbuf : "no error"; }
LKDEF void lk_clear_error(void) { lk__errbuf[0] = 0; }

/* Minimal formatter so that LLMKIT_NO_STDIO builds still get messages.
 * Supports %s %d %u %ld %lu %lld %llu %zu %x %llx %c %% and %.*s. */
static void lk__vformat(char *out, size_t cap, const char *fmt, va_list ap) {
    size_t o = 0;
    const char *p;
    if (cap == 0) return;
    for (p = fmt; *p && o + 1 < cap; p++) {
        char tmp[32];
        const char *s = NULL;
        size_t slen = 0;
        int lng = 0, prec = -1, hex = 0, uns = 0, z = 0;
        if (*p != '%') { out[o++] = *p; continue; }
        p++;
        if (*p == '%') { out[o++] = '%'; continue; }
        if (p[0] == '.' && p[1] == '*') { prec = va_arg(ap, int); p += 2; }
        while (*p == 'l') { lng++; p++; }
        if (*p == 'z') { z = 1; p++; }
        switch (*p) {
        case 's':
            s = va_arg(ap, const char *);
            if (!s) s = "(null)";
            slen = strlen(s);
            if (prec >= 0 && (size_t)prec < slen) slen = (size_t)prec;
            break;
        case 'c': tmp[0] = (char)va_arg(ap, int); s = tmp; slen = 1; break;
        case 'x': case 'u': case 'd': {
            unsigned long long u; int neg = 0; size_t n = 0; char rev[24];
            if (*p != 'd') uns = 1;
            if (*p == 'x') hex = 1;
            if (z) u = va_arg(ap, size_t);
            else if (uns) u = lng >= 2 ? va_arg(ap, unsigned long long) : lng == 1 ? va_arg(ap, unsigned long) : va_arg(ap, unsigned);
            else {
                long long v = lng >= 2 ? va_arg(ap, long long) : lng == 1 ? va_arg(ap, long) : va_arg(ap, int);
                if (v < 0) { neg = 1; u = 0ull - (unsigned long long)v; } else u = (unsigned long long)v;
            }
            do { unsigned d = (unsigned)(u % (hex ? 16u : 10u)); rev[n++] = (char)(d < 10 ? '0' + d : 'a' + d - 10); u /= hex ? 16u : 10u; } while (u);
            slen = 0;
            if (neg) tmp[slen++] = '-';
            while (n) tmp[slen++] = rev[--n];
            s = tmp;
            break;
        }
        default: tmp[0] = '%'; tmp[1] = *p ? *p : '?'; s = tmp; slen = 2; if (!*p) p--; break;
        }
        while (slen-- && o + 1 < cap) out[o++] = *s++;
    }
    out[o] = 0;
}

/* snprintf replacement that works under LLMKIT_NO_STDIO */
static LK__UNUSED void lk__fmt(char *out, size_t cap, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    lk__vformat(out, cap, fmt, ap);
    va_end(ap);
}
LKDEF lk_status lk_set_error(lk_status st, const char *fmt, ...) {
    char msg[sizeof lk__errbuf];   /* the arguments may include lk_last_error() itself */
    va_list ap;
    va_start(ap, fmt);
    lk__vformat(msg, sizeof msg, fmt, ap);
    va_end(ap);
    memcpy(lk__errbuf, msg, sizeof msg);
    return st;
}

/* Option values from text (command lines, config files): strict parsing,
 * the whole string must be the number; the message names the option. */
static lk_status lk__opt_int(const char *name, const char *v, long long lo, long long hi, long long *out) {
    const char *s = v;
    int neg = 0;
    unsigned long long u = 0;
    if (*s == '-' || *s == '+') neg = *s++ == '-';
    if (*s < '0' || *s > '9') goto bad;
    for (; *s >= '0' && *s <= '9'; s++) {
        if (u > (~0ULL - 9) / 10) goto bad;
        u = u * 10 + (unsigned)(*s - '0');
    }
    if (*s || u > (~0ULL >> 1)) goto bad;   /* |value| <= LLONG_MAX is plenty */
    *out = neg ? -(long long)u : (long long)u;
    if (*out < lo || *out > hi) goto bad;
    return LK_OK;
bad:
    return lk_set_error(LK_ERR_INVALID_ARG, "%s: expected an integer in [%lld, %lld], got '%s'", name, lo, hi, v);
}
/* range: the allowed interval as text for the message ("[0, 1]") */
static lk_status lk__opt_float(const char *name, const char *v, double lo, double hi, const char *range, float *out) {
    char *end = NULL;
    double d = strtod(v, &end);
    if (end == v || *end || !(d >= lo && d <= hi)) /* !(..) also rejects NaN */
        return lk_set_error(LK_ERR_INVALID_ARG, "%s: expected a number in %s, got '%s'", name, range, v);
    *out = (float)d;
    return LK_OK;
}

/* ---- the option tables' one setter and their help text (section 13's
 * lk_option; the tables: lk__sampler_options in 14.11, lk__model_options,
 * lk__context_options and lk__spec_options in 14.13) ---- */
/* a row's field: its offset and size, for the offset and size columns */
#define LK__FIELD(T, f) offsetof(T, f), sizeof(((T *)0)->f)
/* a field of a struct inside the params (kv_policy.budget) */
#define LK__FIELD2(T, a, U, f) offsetof(T, a) + offsetof(U, f), sizeof(((U *)0)->f)
#define LK__OPT_INF 1e30                        /* an unbounded float range */
#define LK__OPT_I64 9223372036854775807.0       /* LLONG_MAX (rounds to 2^63) */
static const char *lk__opt_name(const char *name) { while (*name == '-') name++; return name; }
/* a row's bound as lk__opt_int's limit (the seeds' 2^63: LLONG_MAX, spelled
 * out: newlib's <limits.h> has no LLONG_MAX in C++) */
static long long lk__opt_ll(double d) {
    const long long mx = (long long)(~0ULL >> 1);
    return d >= LK__OPT_I64 ? mx : d <= -LK__OPT_I64 ? -mx : (long long)d;
}
/* text that keeps counting past the buffer (snprintf semantics) */
typedef struct lk__text { char *buf; size_t cap, n; } lk__text;
static void lk__text_put(lk__text *t, const char *s) {
    for (; *s; s++, t->n++) if (t->n + 1 < t->cap) t->buf[t->n] = *s;
}
static void lk__text_end(lk__text *t) { if (t->cap) t->buf[t->n < t->cap ? t->n : t->cap - 1] = 0; }
/* a bound: "inf", an integer, or up to 6 decimals */
static void lk__text_num(lk__text *t, double d) {
    char tmp[48];
    if (d >= LK__OPT_INF || d <= -LK__OPT_INF) { lk__text_put(t, d < 0 ? "-inf" : "inf"); return; }
    if (d >= LK__OPT_I64 || d <= -LK__OPT_I64 || d == (double)(long long)d) lk__fmt(tmp, sizeof tmp, "%lld", lk__opt_ll(d));
    else {   /* |d| < 2^63, not an integer */
        const double a = d < 0 ? -d : d;
        long long ip = (long long)a, fr = (long long)((a - (double)ip) * 1e6 + 0.5);
        char dig[8];
        int j;
        if (fr >= 1000000) { ip++; fr -= 1000000; }
        for (j = 5; j >= 0; j--) { dig[j] = (char)('0' + fr % 10); fr /= 10; }
        for (j = 6; j > 1 && dig[j - 1] == '0'; j--) {}
        dig[j] = 0;
        lk__fmt(tmp, sizeof tmp, "%s%lld.%s", d < 0 ? "-" : "", ip, dig);
    }
    lk__text_put(t, tmp);
}
/* "[0, 1]", "[0, inf)", "(-inf, inf)" */
static void lk__opt_range(lk__text *t, const lk_option *o) {
    lk__text_put(t, o->lo <= -LK__OPT_INF ? "(" : "[");
    lk__text_num(t, o->lo);
    lk__text_put(t, ", ");
    lk__text_num(t, o->hi);
    lk__text_put(t, o->hi >= LK__OPT_INF ? ")" : "]");
}
LKDEF const char *lk_option_choice(const lk_option *o, int k) {
    const lk_option_choices *c = o && o->kind == LK_OPT_CHOICE ? o->choices : NULL;
    int i;
    if (!c || k < 0) return NULL;
    if (!c->names) return c->name_of ? c->name_of(k) : NULL;
    for (i = 0; i < k && c->names[i]; i++) {}
    return c->names[i];
}
static void lk__opt_names(lk__text *t, const lk_option *o, const char *sep) {
    const char *s;
    int k;
    for (k = 0; (s = lk_option_choice(o, k)) != NULL; k++) { if (k) lk__text_put(t, sep); lk__text_put(t, s); }
}
/* the index of v among a choice row's names, or an error listing them */
static lk_status lk__opt_pick(const lk_option *o, const char *name, const char *v, int *k) {
    char msg[256];
    lk__text t;
    const char *s;
    for (*k = 0; (s = lk_option_choice(o, *k)) != NULL; ++*k) if (!strcmp(v, s)) return LK_OK;
    t.buf = msg; t.cap = sizeof msg; t.n = 0;
    lk__opt_names(&t, o, ", ");
    lk__text_end(&t);
    return lk_set_error(LK_ERR_INVALID_ARG, "%s must be one of %s (got '%s')", name, msg, v);
}
/* v into the field of `size` bytes at p + off (an int, an enum of any size, a uint64_t) */
static void lk__opt_store(void *p, size_t off, size_t size, long long v) {
    unsigned char *f = (unsigned char *)p + off;
    int64_t x8 = (int64_t)v; int32_t x4 = (int32_t)v; int16_t x2 = (int16_t)v; int8_t x1 = (int8_t)v;
    if (size == 8) memcpy(f, &x8, 8);
    else if (size == 4) memcpy(f, &x4, 4);
    else if (size == 2) memcpy(f, &x2, 2);
    else if (size == 1) memcpy(f, &x1, 1);
}
static lk_status lk__opt_apply(const lk_option *o, void *p, const char *name, const char *v) {
    long long i = 0;
    float f = 0.0f;
    int k = 0;
    char range[96];
    lk__text t;
    lk_status st;
    switch (o->kind) {
    case LK_OPT_INT: case LK_OPT_U64:
        if ((st = lk__opt_int(name, v, lk__opt_ll(o->lo), lk__opt_ll(o->hi), &i))) return st;
        lk__opt_store(p, o->offset, o->size, i);
        return LK_OK;
    case LK_OPT_FLOAT:
        t.buf = range; t.cap = sizeof range; t.n = 0;
        lk__opt_range(&t, o);
        lk__text_end(&t);
        if ((st = lk__opt_float(name, v, o->lo, o->hi, range, &f))) return st;
        memcpy((unsigned char *)p + o->offset, &f, sizeof f);
        return LK_OK;
    case LK_OPT_CHOICE:
        if ((st = lk__opt_pick(o, name, v, &k))) return st;
        lk__opt_store(p, o->offset, o->size, o->choices->values ? o->choices->values[k] : k);
        if (o->choices->also_values) lk__opt_store(p, o->choices->also, sizeof(int), o->choices->also_values[k]);
        return LK_OK;
    }
    return lk_set_error(LK_ERR_INVALID_ARG, "%s: the option's row has no kind", name);
}
/* The one setter of the tables: the row named name (leading dashes
 * ignored) or its alias, applied to the params p. what: "context" for the
 * messages; fn: the public function, for a NULL argument. */
static lk_status lk__options_set(const lk_option *rows, int n, const char *what, const char *fn, void *p, const char *name, const char *v) {
    const char *s;
    int i;
    if (!p || !name || !v) return lk_set_error(LK_ERR_INVALID_ARG, "%s: NULL argument", fn);
    s = lk__opt_name(name);
    for (i = 0; i < n; i++)
        if (!strcmp(s, rows[i].name) || (rows[i].alias && !strcmp(s, rows[i].alias))) return lk__opt_apply(&rows[i], p, name, v);
    return lk_set_error(LK_ERR_NOT_FOUND, "unknown %s option %s", what, name);
}
LKDEF int lk_option_help(const lk_option *o, char *buf, size_t cap) {
    const int letter = o && o->alias && o->alias[0] && !o->alias[1];   /* -c; a longer alias: --np */
    lk__text t;
    t.buf = buf; t.cap = buf ? cap : 0; t.n = 0;
    if (!o) { lk__text_end(&t); return 0; }
    if (letter) { lk__text_put(&t, "  -"); lk__text_put(&t, o->alias); lk__text_put(&t, ", --"); }
    else lk__text_put(&t, "      --");
    lk__text_put(&t, o->name);
    if (o->alias && !letter) { lk__text_put(&t, ", --"); lk__text_put(&t, o->alias); }
    lk__text_put(&t, " ");
    if (o->arg) lk__text_put(&t, o->arg);
    else lk__opt_names(&t, o, "|");
    do lk__text_put(&t, " "); while (t.n < 34);
    lk__text_put(&t, o->help ? o->help : "");
    if (o->kind != LK_OPT_CHOICE && !(o->arg && strchr(o->arg, '|'))) { lk__text_put(&t, " "); lk__opt_range(&t, o); }
    lk__text_end(&t);
    return (int)t.n;
}

/* --------------------------------------------------------------------------
 * 14.3 Memory and threads
 * -------------------------------------------------------------------------- */

/* --------------------------------------------------------------------------
 * 14.3a Memory
 * -------------------------------------------------------------------------- */
#if !defined(LLMKIT_MALLOC) && !defined(LLMKIT_NO_MALLOC)
#define LLMKIT_MALLOC(sz, u) ((void)(u), malloc(sz))
#define LLMKIT_FREE(p, u) ((void)(u), free(p))
#endif

#ifdef LLMKIT_MALLOC
/* Default allocator: over-allocate to honour alignment; the offset to the
 * original pointer is stored just before the returned block. */
static void *lk__default_alloc(void *user, size_t size, size_t align) {
    unsigned char *raw, *p;
    (void)user;
    if (align < sizeof(void *)) align = sizeof(void *);
    if (size > SIZE_MAX - align - sizeof(void *)) return NULL;
    raw = LK__CAST(unsigned char *, LLMKIT_MALLOC(size + align + sizeof(void *), user));
    if (!raw) return NULL;
    p = raw + sizeof(void *);
    p += (align - ((uintptr_t)p & (align - 1))) & (align - 1);
    memcpy(p - sizeof(void *), &raw, sizeof raw);
    return p;
}
static void lk__default_free(void *user, void *ptr, size_t size) {
    unsigned char *raw;
    (void)user; (void)size;
    if (!ptr) return;
    memcpy(&raw, LK__CAST(unsigned char *, ptr) - sizeof(void *), sizeof raw);
    LLMKIT_FREE(raw, user);
}
LKDEF lk_allocator lk_default_allocator(void) {
    lk_allocator a;
    a.alloc = lk__default_alloc; a.free = lk__default_free; a.user = NULL;
    return a;
}
#else
static void *lk__null_alloc(void *user, size_t size, size_t align) { (void)user; (void)size; (void)align; return NULL; }
LKDEF lk_allocator lk_default_allocator(void) {
    lk_allocator a;
    a.alloc = lk__null_alloc; a.free = NULL; a.user = NULL;
    return a;
}
#endif

LKDEF void lk_arena_init(lk_arena *a, void *buf, size_t size) {
    a->base = LK__CAST(unsigned char *, buf); a->size = buf ? size : 0; a->used = 0; a->peak = 0;
}
LKDEF void *lk_arena_alloc(lk_arena *a, size_t size, size_t align) {
    uintptr_t cur, aligned;
    size_t off;
    if (!a || !a->base) return NULL;
    if (align == 0 || (align & (align - 1))) align = 16;
    cur = (uintptr_t)(a->base + a->used);
    aligned = (cur + (align - 1)) & ~(uintptr_t)(align - 1);
    off = a->used + (size_t)(aligned - cur);
    if (off < a->used || off > a->size || size > a->size - off) return NULL;
    a->used = off + size;
    if (a->used > a->peak) a->peak = a->used;
    return a->base + off;
}
LKDEF void lk_arena_reset(lk_arena *a) { a->used = 0; }
static void *lk__arena_alloc_cb(void *user, size_t size, size_t align) {
    return lk_arena_alloc(LK__CAST(lk_arena *, user), size, align);
}
LKDEF lk_allocator lk_arena_allocator(lk_arena *a) {
    lk_allocator al;
    al.alloc = lk__arena_alloc_cb; al.free = NULL; al.user = a;
    return al;
}

LK__UNUSED static lk_allocator lk__resolve_alloc(const lk_allocator *a) {
    return a && a->alloc ? *a : lk_default_allocator();
}
LK__UNUSED static void *lk__alloc(const lk_allocator *a, size_t size) {
    return a->alloc(a->user, size ? size : 1, 64);
}
LK__UNUSED static void lk__free(const lk_allocator *a, void *p, size_t size) {
    if (p && a->free) a->free(a->user, p, size);
}

/* overflow-checked size arithmetic: return 0 on overflow */
/* Saturating size arithmetic for buffer sizes computed from file or caller
 * numbers: SIZE_MAX stands for "does not fit"; callers refuse totals of
 * half the address space or more (also on 32-bit targets). */
LK__UNUSED static size_t lk__szm(size_t a, size_t b) { return a && b > SIZE_MAX / a ? SIZE_MAX : a * b; }
LK__UNUSED static size_t lk__sza(size_t a, size_t b) { return b > SIZE_MAX - a ? SIZE_MAX : a + b; }
LK__UNUSED static int lk__mul_ok(uint64_t a, uint64_t b, uint64_t *r) {
    if (a && b > UINT64_MAX / a) return 0;
    *r = a * b; return 1;
}
LK__UNUSED static int lk__add_ok(uint64_t a, uint64_t b, uint64_t *r) {
    if (b > UINT64_MAX - a) return 0;
    *r = a + b; return 1;
}

/* FNV-1a over n bytes, continuing from h (start with LK__FNV0); used by
 * the tokenizer's hash tables and the model's prefix cache / state files */
#define LK__FNV0 14695981039346656037ull
LK__UNUSED static uint64_t lk__fnv(uint64_t h, const void *p, size_t n) {
    const unsigned char *s = LK__CAST(const unsigned char *, p);
    size_t i;
    for (i = 0; i < n; i++) { h ^= s[i]; h *= 1099511628211ull; }
    return h;
}

/* --------------------------------------------------------------------------
 * 14.3b Threads
 * -------------------------------------------------------------------------- */
LKDEF int lk_threads_count(const lk_threads *t) {
    if (t && t->n_threads > 0) return t->n_threads;
#ifdef LK__OPENMP
    return omp_get_max_threads();
#else
    return 1;
#endif
}
LKDEF void lk_parallel_for(const lk_threads *t, int n_tasks, lk_task_fn fn, void *arg) {
    int i;
    if (n_tasks <= 0) return;
    if (t && t->parallel_for) { t->parallel_for(t->user, n_tasks, fn, arg); return; }
#ifdef LK__OPENMP
    if (n_tasks > 1 && lk_threads_count(t) > 1) {
        int nt = lk_threads_count(t);
#pragma omp parallel for schedule(dynamic, 1) num_threads(nt)
        for (i = 0; i < n_tasks; i++) fn(arg, i, n_tasks);
        return;
    }
#endif
    for (i = 0; i < n_tasks; i++) fn(arg, i, n_tasks);
}

/* --------------------------------------------------------------------------
 * 14.4 Types
 * -------------------------------------------------------------------------- */
/* 7a kernels (defined in 14.7a; the dots lk__vec_dot_<type> are dispatchers,
 * defined in 14.7s, that run the kernel table's kernel for the type, else
 * the scalar reference lk__vec_dot_<type>_ref) */
#define LK__FLT_PROTO(t) static void lk__to_float_##t(const void *x, float *y, int64_t n); \
    static void lk__from_float_##t(const float *x, void *y, int64_t n); static void lk__vec_dot_##t(int64_t n, float *s, const void *x, const void *y);
#define LK__ROW_PROTO(t) static void lk__dequantize_row_##t(const void *x, float *y, int64_t n);
#define LK__QUANT_PROTO(t) static void lk__quantize_row_##t(const float *x, void *y, int64_t n);
#define LK__DOT_PROTO(t, a) static void lk__vec_dot_##t##_##a(int64_t n, float *s, const void *x, const void *y);
LK__FLT_PROTO(f32) LK__FLT_PROTO(f16) LK__FLT_PROTO(bf16)
LK__ROW_PROTO(q4_0) LK__ROW_PROTO(q4_1) LK__ROW_PROTO(q5_0) LK__ROW_PROTO(q5_1) LK__ROW_PROTO(q8_0) LK__ROW_PROTO(q8_1)
LK__ROW_PROTO(q2_K) LK__ROW_PROTO(q3_K) LK__ROW_PROTO(q4_K) LK__ROW_PROTO(q5_K) LK__ROW_PROTO(q6_K) LK__ROW_PROTO(q8_K)
LK__DOT_PROTO(q4_0, q8_0) LK__DOT_PROTO(q4_1, q8_1) LK__DOT_PROTO(q5_0, q8_0) LK__DOT_PROTO(q5_1, q8_1) LK__DOT_PROTO(q8_0, q8_0)
LK__DOT_PROTO(q2_K, q8_K) LK__DOT_PROTO(q3_K, q8_K) LK__DOT_PROTO(q4_K, q8_K) LK__DOT_PROTO(q5_K, q8_K) LK__DOT_PROTO(q6_K, q8_K)
LK__QUANT_PROTO(q4_0) LK__QUANT_PROTO(q8_0) LK__QUANT_PROTO(q8_K)   /* the KV cache's and the activations' */
#ifndef LLMKIT_NO_QUANTIZE
LK__QUANT_PROTO(q4_1) LK__QUANT_PROTO(q5_0) LK__QUANT_PROTO(q5_1) LK__QUANT_PROTO(q8_1)
LK__QUANT_PROTO(q2_K) LK__QUANT_PROTO(q3_K) LK__QUANT_PROTO(q4_K) LK__QUANT_PROTO(q5_K) LK__QUANT_PROTO(q6_K)
#endif
#undef LK__FLT_PROTO
#undef LK__ROW_PROTO
#undef LK__QUANT_PROTO
#undef LK__DOT_PROTO
#ifndef LLMKIT_NO_IQ
/* 7b. IQ and ternary kernels (defined in 14.7b; the dots dispatch in 14.7s) */
#define LK__IQ_PROTO(t) \
    static void lk__##t##_to_float(const void *x, float *y, int64_t n); \
    static void lk__##t##_vec_dot(int64_t n, float *s, const void *x, const void *y);
#define LK__IQ_QUANT_PROTO(t) static void lk__##t##_from_float(const float *x, void *y, int64_t n);
LK__IQ_PROTO(iq4_nl) LK__IQ_PROTO(iq4_xs) LK__IQ_PROTO(iq3_xxs) LK__IQ_PROTO(iq3_s)
LK__IQ_PROTO(iq2_xxs) LK__IQ_PROTO(iq2_xs) LK__IQ_PROTO(iq2_s) LK__IQ_PROTO(iq1_s)
LK__IQ_PROTO(iq1_m) LK__IQ_PROTO(tq1_0) LK__IQ_PROTO(tq2_0)
#ifndef LLMKIT_NO_QUANTIZE
LK__IQ_QUANT_PROTO(iq4_nl) LK__IQ_QUANT_PROTO(iq4_xs) LK__IQ_QUANT_PROTO(iq3_xxs) LK__IQ_QUANT_PROTO(iq3_s)
LK__IQ_QUANT_PROTO(tq1_0) LK__IQ_QUANT_PROTO(tq2_0)
#endif
#undef LK__IQ_PROTO
#undef LK__IQ_QUANT_PROTO
#endif
/* compiled-out kernels leave their table entries NULL (the type stays known;
 * using it reports LK_ERR_UNSUPPORTED); LK__IQK serves the kernel table too */
#ifndef LLMKIT_NO_IQ
#define LK__NO_IQ_HINT ""
#define LK__IQK(f) f
#else
#define LK__NO_IQ_HINT " (compiled with LLMKIT_NO_IQ)"
#define LK__IQK(f) NULL
#endif
#ifndef LLMKIT_NO_QUANTIZE
#define LK__QZ(f) f
#else
#define LK__QZ(f) NULL
#endif
/* LK__TYPE_TABLE_BEGIN (section 7 fills the kernel columns; vec_dot names
 * the type's dispatcher, which runs the kernel table's SIMD kernel where
 * this build has one: lk__kernel_table, 14.7s) */
static const lk_type_traits lk__type_table[LK_TYPE_COUNT] = {
    /* name        blck  bytes  quant  to_float  from_float  vec_dot  vec_dot_type */
    /*  0 */ { "f32",       1,   4, 0, lk__to_float_f32, lk__from_float_f32, lk__vec_dot_f32, LK_TYPE_F32 },
    /*  1 */ { "f16",       1,   2, 0, lk__to_float_f16, lk__from_float_f16, lk__vec_dot_f16, LK_TYPE_F16 },
    /*  2 */ { "q4_0",     32,  18, 1, lk__dequantize_row_q4_0, lk__quantize_row_q4_0, lk__vec_dot_q4_0_q8_0, LK_TYPE_Q8_0 },
    /*  3 */ { "q4_1",     32,  20, 1, lk__dequantize_row_q4_1, LK__QZ(lk__quantize_row_q4_1), lk__vec_dot_q4_1_q8_1, LK_TYPE_Q8_1 },
    /*  4 */ { NULL, 0, 0, 0, NULL, NULL, NULL, LK_TYPE_F32 },
    /*  5 */ { NULL, 0, 0, 0, NULL, NULL, NULL, LK_TYPE_F32 },
    /*  6 */ { "q5_0",     32,  22, 1, lk__dequantize_row_q5_0, LK__QZ(lk__quantize_row_q5_0), lk__vec_dot_q5_0_q8_0, LK_TYPE_Q8_0 },
    /*  7 */ { "q5_1",     32,  24, 1, lk__dequantize_row_q5_1, LK__QZ(lk__quantize_row_q5_1), lk__vec_dot_q5_1_q8_1, LK_TYPE_Q8_1 },
    /*  8 */ { "q8_0",     32,  34, 1, lk__dequantize_row_q8_0, lk__quantize_row_q8_0, lk__vec_dot_q8_0_q8_0, LK_TYPE_Q8_0 },
    /*  9 */ { "q8_1",     32,  36, 1, lk__dequantize_row_q8_1, LK__QZ(lk__quantize_row_q8_1), NULL, LK_TYPE_Q8_1 },
    /* 10 */ { "q2_K",    256,  84, 1, lk__dequantize_row_q2_K, LK__QZ(lk__quantize_row_q2_K), lk__vec_dot_q2_K_q8_K, LK_TYPE_Q8_K },
    /* 11 */ { "q3_K",    256, 110, 1, lk__dequantize_row_q3_K, LK__QZ(lk__quantize_row_q3_K), lk__vec_dot_q3_K_q8_K, LK_TYPE_Q8_K },
    /* 12 */ { "q4_K",    256, 144, 1, lk__dequantize_row_q4_K, LK__QZ(lk__quantize_row_q4_K), lk__vec_dot_q4_K_q8_K, LK_TYPE_Q8_K },
    /* 13 */ { "q5_K",    256, 176, 1, lk__dequantize_row_q5_K, LK__QZ(lk__quantize_row_q5_K), lk__vec_dot_q5_K_q8_K, LK_TYPE_Q8_K },
    /* 14 */ { "q6_K",    256, 210, 1, lk__dequantize_row_q6_K, LK__QZ(lk__quantize_row_q6_K), lk__vec_dot_q6_K_q8_K, LK_TYPE_Q8_K },
    /* 15 */ { "q8_K",    256, 292, 1, lk__dequantize_row_q8_K, lk__quantize_row_q8_K, NULL, LK_TYPE_Q8_K },
    /* 16 */ { "iq2_xxs", 256,  66, 1, LK__IQK(lk__iq2_xxs_to_float), NULL, LK__IQK(lk__iq2_xxs_vec_dot), LK_TYPE_Q8_K },
    /* 17 */ { "iq2_xs",  256,  74, 1, LK__IQK(lk__iq2_xs_to_float), NULL, LK__IQK(lk__iq2_xs_vec_dot), LK_TYPE_Q8_K },
    /* 18 */ { "iq3_xxs", 256,  98, 1, LK__IQK(lk__iq3_xxs_to_float), LK__IQK(LK__QZ(lk__iq3_xxs_from_float)), LK__IQK(lk__iq3_xxs_vec_dot), LK_TYPE_Q8_K },
    /* 19 */ { "iq1_s",   256,  50, 1, LK__IQK(lk__iq1_s_to_float), NULL, LK__IQK(lk__iq1_s_vec_dot), LK_TYPE_Q8_K },
    /* 20 */ { "iq4_nl",   32,  18, 1, LK__IQK(lk__iq4_nl_to_float), LK__IQK(LK__QZ(lk__iq4_nl_from_float)), LK__IQK(lk__iq4_nl_vec_dot), LK_TYPE_Q8_0 },
    /* 21 */ { "iq3_s",   256, 110, 1, LK__IQK(lk__iq3_s_to_float), LK__IQK(LK__QZ(lk__iq3_s_from_float)), LK__IQK(lk__iq3_s_vec_dot), LK_TYPE_Q8_K },
    /* 22 */ { "iq2_s",   256,  82, 1, LK__IQK(lk__iq2_s_to_float), NULL, LK__IQK(lk__iq2_s_vec_dot), LK_TYPE_Q8_K },
    /* 23 */ { "iq4_xs",  256, 136, 1, LK__IQK(lk__iq4_xs_to_float), LK__IQK(LK__QZ(lk__iq4_xs_from_float)), LK__IQK(lk__iq4_xs_vec_dot), LK_TYPE_Q8_K },
    /* 24 */ { "i8",        1,   1, 0, NULL, NULL, NULL, LK_TYPE_I8 },
    /* 25 */ { "i16",       1,   2, 0, NULL, NULL, NULL, LK_TYPE_I16 },
    /* 26 */ { "i32",       1,   4, 0, NULL, NULL, NULL, LK_TYPE_I32 },
    /* 27 */ { "i64",       1,   8, 0, NULL, NULL, NULL, LK_TYPE_I64 },
    /* 28 */ { "f64",       1,   8, 0, NULL, NULL, NULL, LK_TYPE_F64 },
    /* 29 */ { "iq1_m",   256,  56, 1, LK__IQK(lk__iq1_m_to_float), NULL, LK__IQK(lk__iq1_m_vec_dot), LK_TYPE_Q8_K },
    /* 30 */ { "bf16",      1,   2, 0, lk__to_float_bf16, lk__from_float_bf16, lk__vec_dot_bf16, LK_TYPE_BF16 },
    /* 31 */ { NULL, 0, 0, 0, NULL, NULL, NULL, LK_TYPE_F32 },
    /* 32 */ { NULL, 0, 0, 0, NULL, NULL, NULL, LK_TYPE_F32 },
    /* 33 */ { NULL, 0, 0, 0, NULL, NULL, NULL, LK_TYPE_F32 },
    /* 34 */ { "tq1_0",   256,  54, 1, LK__IQK(lk__tq1_0_to_float), LK__IQK(LK__QZ(lk__tq1_0_from_float)), LK__IQK(lk__tq1_0_vec_dot), LK_TYPE_Q8_K },
    /* 35 */ { "tq2_0",   256,  66, 1, LK__IQK(lk__tq2_0_to_float), LK__IQK(LK__QZ(lk__tq2_0_from_float)), LK__IQK(lk__tq2_0_vec_dot), LK_TYPE_Q8_K },
    /* 36 */ { NULL, 0, 0, 0, NULL, NULL, NULL, LK_TYPE_F32 },
    /* 37 */ { NULL, 0, 0, 0, NULL, NULL, NULL, LK_TYPE_F32 },
    /* 38 */ { NULL, 0, 0, 0, NULL, NULL, NULL, LK_TYPE_F32 },
};
#undef LK__QZ
/* LK__TYPE_TABLE_END */

LKDEF const lk_type_traits *lk_type_get(lk_type type) {
    if ((int)type < 0 || (int)type >= LK_TYPE_COUNT || !lk__type_table[type].name) return NULL;
    return &lk__type_table[type];
}
LKDEF const char *lk_type_name(lk_type type) {
    const lk_type_traits *t = lk_type_get(type);
    return t ? t->name : "?";
}
static int lk__strieq(const char *a, const char *b) {
    for (; *a && *b; a++, b++) {
        int ca = (unsigned char)*a, cb = (unsigned char)*b;
        if (ca >= 'A' && ca <= 'Z') ca += 32;
        if (cb >= 'A' && cb <= 'Z') cb += 32;
        if (ca != cb) return 0;
    }
    return *a == *b;
}
LKDEF lk_type lk_type_from_name(const char *name) {
    int i;
    if (!name) return LK_TYPE_NONE;
    for (i = 0; i < LK_TYPE_COUNT; i++)
        if (lk__type_table[i].name && lk__strieq(lk__type_table[i].name, name)) return (lk_type)i;
    return LK_TYPE_NONE;
}
LKDEF size_t lk_row_size(lk_type type, int64_t n) {
    const lk_type_traits *t = lk_type_get(type);
    uint64_t r;
    if (!t || n < 0 || n % t->blck_size) return 0;
    if (!lk__mul_ok((uint64_t)(n / t->blck_size), t->type_size, &r) || r > SIZE_MAX) return 0;
    return (size_t)r;
}

/* --------------------------------------------------------------------------
 * 14.5 Tensors
 * -------------------------------------------------------------------------- */
LKDEF lk_status lk_tensor_init(lk_tensor *t, lk_type type, int n_dims, const int64_t *ne, void *data) {
    const lk_type_traits *tt = lk_type_get(type);
    int i;
    uint64_t total;
    if (!t || !tt || n_dims < 1 || n_dims > LK_MAX_DIMS || !ne)
        return lk_set_error(LK_ERR_INVALID_ARG, "lk_tensor_init: bad type %d or n_dims %d", (int)type, n_dims);
    memset(t, 0, sizeof *t);
    t->type = type; t->n_dims = n_dims; t->data = data;
    for (i = 0; i < LK_MAX_DIMS; i++) t->ne[i] = i < n_dims ? ne[i] : 1;
    for (i = 0; i < LK_MAX_DIMS; i++)
        if (t->ne[i] < 0) return lk_set_error(LK_ERR_RANGE, "lk_tensor_init: ne[%d] = %lld is negative", i, (long long)t->ne[i]);
    {   /* rows and elements must fit int64 (lk_tensor_nrows / _nelements) */
        uint64_t rows = 1, nel = (uint64_t)t->ne[0];
        for (i = 1; i < LK_MAX_DIMS; i++)
            if (!lk__mul_ok(rows, (uint64_t)t->ne[i], &rows) || !lk__mul_ok(nel, (uint64_t)t->ne[i], &nel) ||
                rows > (uint64_t)INT64_MAX || nel > (uint64_t)INT64_MAX)
                return lk_set_error(LK_ERR_RANGE, "lk_tensor_init: element count overflows");
    }
    if (t->ne[0] % tt->blck_size)
        return lk_set_error(LK_ERR_RANGE, "lk_tensor_init: row length %lld is not a multiple of %s block size %lld",
                            (long long)t->ne[0], tt->name, (long long)tt->blck_size);
    t->nb[0] = tt->type_size;
    total = (uint64_t)(t->ne[0] / tt->blck_size) * tt->type_size;
    if (t->ne[0] && total / (uint64_t)(t->ne[0] / tt->blck_size) != tt->type_size) return lk_set_error(LK_ERR_RANGE, "lk_tensor_init: size overflow");
    t->nb[1] = (size_t)total;
    for (i = 1; i < LK_MAX_DIMS; i++) {
        if (!lk__mul_ok(total, (uint64_t)t->ne[i], &total) || total > SIZE_MAX)
            return lk_set_error(LK_ERR_RANGE, "lk_tensor_init: size overflow");
        if (i + 1 < LK_MAX_DIMS) t->nb[i + 1] = (size_t)total;
    }
    return LK_OK;
}
LKDEF int64_t lk_tensor_nelements(const lk_tensor *t) { return t->ne[0] * t->ne[1] * t->ne[2] * t->ne[3]; }
LKDEF int64_t lk_tensor_nrows(const lk_tensor *t) { return t->ne[1] * t->ne[2] * t->ne[3]; }
LKDEF size_t lk_tensor_row_size(const lk_tensor *t) { return lk_row_size(t->type, t->ne[0]); }
LKDEF size_t lk_tensor_nbytes(const lk_tensor *t) { return lk_tensor_row_size(t) * (size_t)lk_tensor_nrows(t); }

/* --------------------------------------------------------------------------
 * 14.6 GGUF
 * --------------------------------------------------------------------------
 * File layout (all little-endian):
 *   "GGUF" u32 version (2|3) u64 n_tensors u64 n_kv
 *   n_kv x { str key, u32 type, value }        str = u64 len + bytes
 *   n_tensors x { str name, u32 n_dims, u64 ne[n_dims], u32 type, u64 offset }
 *   padding to `alignment`, then the data section (offsets are relative to it). */
static const char *const lk__gguf_type_names[LK_GGUF_TYPE_COUNT] = {
    "u8", "i8", "u16", "i16", "u32", "i32", "f32", "bool", "str", "arr", "u64", "i64", "f64"
};
static const unsigned char lk__gguf_type_size[LK_GGUF_TYPE_COUNT] = { 1, 1, 2, 2, 4, 4, 4, 1, 0, 0, 8, 8, 8 };

LKDEF const char *lk_gguf_type_name(lk_gguf_type t) {
    return (unsigned)t < (unsigned)LK_GGUF_TYPE_COUNT ? lk__gguf_type_names[t] : "?";
}
LKDEF lk_gguf_params lk_gguf_default_params(void) {
    lk_gguf_params p;
    p.alloc = NULL;
    return p;
}
LKDEF int lk_str_eq(lk_str s, const char *c) {
    size_t n = c ? strlen(c) : 0;
    return c && s.len == n && (n == 0 || memcmp(s.ptr, c, n) == 0);
}

/* little-endian loads that work on any host and any alignment */
static uint16_t lk__ld16(const unsigned char *p) { return (uint16_t)(p[0] | (p[1] << 8)); }
static uint32_t lk__ld32(const unsigned char *p) {
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}
static uint64_t lk__ld64(const unsigned char *p) { return (uint64_t)lk__ld32(p) | ((uint64_t)lk__ld32(p + 4) << 32); }

/* Every allocation of a reader is chained so lk_gguf_free can release it. */
typedef struct lk__blk { struct lk__blk *next; size_t size; } lk__blk;
static void *lk__gguf_alloc(lk_gguf *g, uint64_t size) {
    lk__blk *b;
    if (size > (uint64_t)SIZE_MAX - 64) return NULL;
    b = LK__CAST(lk__blk *, g->alloc_.alloc(g->alloc_.user, (size_t)size + 64, 64));
    if (!b) return NULL;
    b->next = LK__CAST(lk__blk *, g->blocks_); b->size = (size_t)size + 64;
    g->blocks_ = b;
    memset(LK__CAST(unsigned char *, b) + 64, 0, (size_t)size);
    return LK__CAST(unsigned char *, b) + 64;
}

typedef struct lk__rd {          /* bounds-checked cursor over the file */
    const unsigned char *p;
    uint64_t len, off;
} lk__rd;

static lk_status lk__rd_need(lk__rd *r, uint64_t n, const char *what) {
    if (n > r->len - r->off)
        return lk_set_error(LK_ERR_FORMAT, "gguf: %s at byte offset %llu: needs %llu bytes, only %llu left (truncated file?)",
                            what, (unsigned long long)r->off, (unsigned long long)n, (unsigned long long)(r->len - r->off));
    return LK_OK;
}
static lk_status lk__rd_u32(lk__rd *r, uint32_t *v, const char *what) {
    lk_status st = lk__rd_need(r, 4, what);
    if (st) return st;
    *v = lk__ld32(r->p + r->off); r->off += 4;
    return LK_OK;
}
static lk_status lk__rd_u64(lk__rd *r, uint64_t *v, const char *what) {
    lk_status st = lk__rd_need(r, 8, what);
    if (st) return st;
    *v = lk__ld64(r->p + r->off); r->off += 8;
    return LK_OK;
}
static lk_status lk__rd_str(lk__rd *r, lk_str *s, const char *what) {
    uint64_t n, at = r->off;
    lk_status st = lk__rd_u64(r, &n, what);
    if (st) return st;
    if (n > r->len - r->off)
        return lk_set_error(LK_ERR_FORMAT, "gguf: %s at byte offset %llu: string length %llu exceeds the %llu bytes left",
                            what, (unsigned long long)at, (unsigned long long)n, (unsigned long long)(r->len - r->off));
    s->ptr = LK__CAST(const char *, r->p + r->off); s->len = n;
    r->off += n;
    return LK_OK;
}

static lk_status lk__rd_value(lk_gguf *g, lk__rd *r, lk_gguf_type type, lk_gguf_value *v, int depth, const char *key);

/* The little-endian scalar of type t at p into v's union: u for unsigned
 * types and bool, i (sign-extended) for signed ones, f for floats. 0 when t
 * is not a scalar type (nothing written). */
static int lk__gguf_scalar(lk_gguf_type t, const unsigned char *p, lk_gguf_value *v) {
    switch (t) {
    case LK_GGUF_UINT8: case LK_GGUF_BOOL: v->v.u = p[0]; break;
    case LK_GGUF_INT8: v->v.i = (int8_t)p[0]; break;
    case LK_GGUF_UINT16: v->v.u = lk__ld16(p); break;
    case LK_GGUF_INT16: v->v.i = (int16_t)lk__ld16(p); break;
    case LK_GGUF_UINT32: v->v.u = lk__ld32(p); break;
    case LK_GGUF_INT32: v->v.i = (int32_t)lk__ld32(p); break;
    case LK_GGUF_UINT64: v->v.u = lk__ld64(p); break;
    case LK_GGUF_INT64: v->v.i = (int64_t)lk__ld64(p); break;
    case LK_GGUF_FLOAT32: { uint32_t b = lk__ld32(p); float f; memcpy(&f, &b, 4); v->v.f = f; break; }
    case LK_GGUF_FLOAT64: { uint64_t b = lk__ld64(p); memcpy(&v->v.f, &b, 8); break; }
    default: return 0;
    }
    return 1;
}
static lk_status lk__rd_scalar(lk__rd *r, lk_gguf_type t, lk_gguf_value *v, const char *key) {
    const unsigned char *p;
    lk_status st = lk__rd_need(r, lk__gguf_type_size[t], key);
    if (st) return st;
    p = r->p + r->off;
    if (t == LK_GGUF_BOOL && p[0] > 1)
        return lk_set_error(LK_ERR_FORMAT, "gguf: value of key '%s' at byte offset %llu: bool byte is %u, not 0 or 1",
                            key, (unsigned long long)r->off, (unsigned)p[0]);
    lk__gguf_scalar(t, p, v);
    r->off += lk__gguf_type_size[t];
    return LK_OK;
}

static lk_status lk__rd_value(lk_gguf *g, lk__rd *r, lk_gguf_type type, lk_gguf_value *v, int depth, const char *key) {
    lk_status st;
    uint32_t et;
    uint64_t n, i, at, left, min_elem;
    v->type = type;
    if ((unsigned)type >= (unsigned)LK_GGUF_TYPE_COUNT)
        return lk_set_error(LK_ERR_FORMAT, "gguf: key '%s' at byte offset %llu: unknown value type %u",
                            key, (unsigned long long)r->off, (unsigned)type);
    if (type == LK_GGUF_STRING) return lk__rd_str(r, &v->v.s, key);
    if (type != LK_GGUF_ARRAY) return lk__rd_scalar(r, type, v, key);
    if (depth >= LK_GGUF_MAX_DEPTH)
        return lk_set_error(LK_ERR_FORMAT, "gguf: key '%s' at byte offset %llu: arrays nested deeper than %d",
                            key, (unsigned long long)r->off, LK_GGUF_MAX_DEPTH);
    at = r->off;
    if ((st = lk__rd_u32(r, &et, key)) || (st = lk__rd_u64(r, &n, key))) return st;
    if (et >= LK_GGUF_TYPE_COUNT)
        return lk_set_error(LK_ERR_FORMAT, "gguf: key '%s' at byte offset %llu: unknown array element type %u",
                            key, (unsigned long long)at, (unsigned)et);
    v->arr_type = (lk_gguf_type)et; v->n = n;
    left = r->len - r->off;
    /* every element occupies at least this many bytes: bounds n before any allocation */
    min_elem = et == LK_GGUF_STRING ? 8 : et == LK_GGUF_ARRAY ? 12 : lk__gguf_type_size[et];
    if (n > left / min_elem)
        return lk_set_error(LK_ERR_FORMAT, "gguf: key '%s' at byte offset %llu: array of %llu %s elements needs more than the %llu bytes left",
                            key, (unsigned long long)at, (unsigned long long)n, lk__gguf_type_names[et], (unsigned long long)left);
    if (et == LK_GGUF_STRING) {
        v->v.strs = LK__CAST(lk_str *, lk__gguf_alloc(g, n * sizeof(lk_str)));
        if (!v->v.strs) return lk_set_error(LK_ERR_NOMEM, "gguf: key '%s': out of memory for %llu strings", key, (unsigned long long)n);
        for (i = 0; i < n; i++)
            if ((st = lk__rd_str(r, &v->v.strs[i], key))) return st;
    } else if (et == LK_GGUF_ARRAY) {
        v->v.elems = LK__CAST(lk_gguf_value *, lk__gguf_alloc(g, n * sizeof(lk_gguf_value)));
        if (!v->v.elems) return lk_set_error(LK_ERR_NOMEM, "gguf: key '%s': out of memory for %llu nested arrays", key, (unsigned long long)n);
        for (i = 0; i < n; i++)
            if ((st = lk__rd_value(g, r, LK_GGUF_ARRAY, &v->v.elems[i], depth + 1, key))) return st;
    } else {
        if (et == LK_GGUF_BOOL) {
            for (i = 0; i < n; i++)
                if (r->p[r->off + i] > 1)
                    return lk_set_error(LK_ERR_FORMAT, "gguf: key '%s' at byte offset %llu: bool array element is %u, not 0 or 1",
                                        key, (unsigned long long)(r->off + i), (unsigned)r->p[r->off + i]);
        }
        v->v.arr = r->p + r->off;
        r->off += n * lk__gguf_type_size[et];
    }
    return LK_OK;
}

static uint64_t lk__hash(const char *s, uint64_t n) {   /* FNV-1a */
    uint64_t h = 1469598103934665603ull, i;
    for (i = 0; i < n; i++) { h ^= (unsigned char)s[i]; h *= 1099511628211ull; }
    return h;
}
/* Open-addressing set of names; returns the existing index or inserts idx. */
static int64_t lk__hash_insert(uint32_t *tab, uint64_t cap, lk_str name, uint32_t idx, const lk_str *(*get)(const lk_gguf *, uint32_t), const lk_gguf *g) {
    uint64_t h = lk__hash(name.ptr, name.len) & (cap - 1);
    for (;;) {
        const lk_str *o;
        if (!tab[h]) { tab[h] = idx + 1; return -1; }
        o = get(g, tab[h] - 1);
        if (o->len == name.len && memcmp(o->ptr, name.ptr, name.len) == 0) return tab[h] - 1;
        h = (h + 1) & (cap - 1);
    }
}
static int64_t lk__hash_find(const uint32_t *tab, uint64_t cap, const char *name, const lk_str *(*get)(const lk_gguf *, uint32_t), const lk_gguf *g) {
    uint64_t n, h;
    if (!tab || !name) return -1;
    n = strlen(name);
    h = lk__hash(name, n) & (cap - 1);
    for (;;) {
        const lk_str *o;
        if (!tab[h]) return -1;
        o = get(g, tab[h] - 1);
        if (o->len == n && memcmp(o->ptr, name, n) == 0) return tab[h] - 1;
        h = (h + 1) & (cap - 1);
    }
}
static const lk_str *lk__kv_name(const lk_gguf *g, uint32_t i) { return &g->kv[i].key; }
static const lk_str *lk__tensor_name(const lk_gguf *g, uint32_t i) { return &g->tensors[i].name; }
static uint32_t *lk__hash_new(lk_gguf *g, uint64_t n, uint64_t *cap) {
    uint64_t c = 16;
    while (c < 2 * n) c <<= 1;
    *cap = c;
    return LK__CAST(uint32_t *, lk__gguf_alloc(g, c * sizeof(uint32_t)));
}

/* Names must be non-empty, NUL-free (so C strings can look them up). */
static lk_status lk__check_name(lk_str s, const char *what, uint64_t at) {
    if (s.len == 0) return lk_set_error(LK_ERR_FORMAT, "gguf: %s at byte offset %llu is empty", what, (unsigned long long)at);
    if (memchr(s.ptr, 0, (size_t)s.len))
        return lk_set_error(LK_ERR_FORMAT, "gguf: %s at byte offset %llu contains a NUL byte", what, (unsigned long long)at);
    return LK_OK;
}

/* (data offset, tensor index) pairs, sorted by offset then index: the
 * comparison needs no context, so concurrent loads share no state */
typedef struct lk__off_idx { uint64_t off; uint64_t idx; } lk__off_idx;
static int lk__cmp_off_idx(const void *a, const void *b) {
    const lk__off_idx *x = LK__CAST(const lk__off_idx *, a), *y = LK__CAST(const lk__off_idx *, b);
    if (x->off != y->off) return x->off < y->off ? -1 : 1;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* magic, version, counts (bounded by the bytes left), and the arrays they size */
static lk_status lk__gguf_header(lk_gguf *g, lk__rd *r) {
    lk_status st;
    uint32_t version;
    uint64_t n_tensors, n_kv;
    if (g->len < 4 || memcmp(g->buf, "GGUF", 4) != 0)
        return lk_set_error(LK_ERR_FORMAT, "gguf: magic at byte offset 0: not a GGUF file (expected \"GGUF\")");
    r->off = 4;
    if ((st = lk__rd_u32(r, &version, "version"))) return st;
    if (version == 1) return lk_set_error(LK_ERR_UNSUPPORTED, "gguf: version at byte offset 4: GGUF v1 is not supported (v2 and v3 are)");
    if (version == 0x02000000u || version == 0x03000000u)
        return lk_set_error(LK_ERR_UNSUPPORTED, "gguf: version at byte offset 4: big-endian GGUF is not supported");
    if (version != 2 && version != 3)
        return lk_set_error(LK_ERR_FORMAT, "gguf: version at byte offset 4: unknown version %u", (unsigned)version);
    g->version = version;
    if ((st = lk__rd_u64(r, &n_tensors, "tensor count")) || (st = lk__rd_u64(r, &n_kv, "kv count"))) return st;
    /* each KV takes >= 12 bytes, each tensor info >= 32: bound counts by the file size */
    if (n_kv > (r->len - r->off) / 12 || n_kv >= 0x7fffffffu)
        return lk_set_error(LK_ERR_FORMAT, "gguf: kv count at byte offset 16: %llu key-value pairs cannot fit in the %llu bytes left",
                            (unsigned long long)n_kv, (unsigned long long)(r->len - r->off));
    if (n_tensors > (r->len - r->off) / 32 || n_tensors >= 0x7fffffffu)
        return lk_set_error(LK_ERR_FORMAT, "gguf: tensor count at byte offset 8: %llu tensors cannot fit in the %llu bytes left",
                            (unsigned long long)n_tensors, (unsigned long long)(r->len - r->off));
    g->n_kv = n_kv; g->n_tensors = n_tensors;
    g->kv = LK__CAST(lk_gguf_kv *, lk__gguf_alloc(g, n_kv * sizeof(lk_gguf_kv)));
    g->tensors = LK__CAST(lk_gguf_tensor *, lk__gguf_alloc(g, n_tensors * sizeof(lk_gguf_tensor)));
    g->kv_hash_ = lk__hash_new(g, n_kv, &g->kv_hash_cap_);
    g->tensor_hash_ = lk__hash_new(g, n_tensors, &g->tensor_hash_cap_);
    if (!g->kv || !g->tensors || !g->kv_hash_ || !g->tensor_hash_)
        return lk_set_error(LK_ERR_NOMEM, "gguf: out of memory for %llu KVs and %llu tensors", (unsigned long long)n_kv, (unsigned long long)n_tensors);
    return LK_OK;
}
/* the key-value pairs: unique, well-formed keys; values of known types */
static lk_status lk__gguf_kvs(lk_gguf *g, lk__rd *r) {
    lk_status st;
    uint64_t i, at;
    for (i = 0; i < g->n_kv; i++) {
        lk_gguf_kv *kv = &g->kv[i];
        uint32_t type;
        char key[96];
        at = r->off;
        kv->offset = at;
        if ((st = lk__rd_str(r, &kv->key, "kv key")) || (st = lk__check_name(kv->key, "kv key", at))) return st;
        /* a printable copy of the key for messages */
        { size_t m = kv->key.len < sizeof key - 1 ? (size_t)kv->key.len : sizeof key - 1; memcpy(key, kv->key.ptr, m); key[m] = 0; }
        if (lk__hash_insert(g->kv_hash_, g->kv_hash_cap_, kv->key, (uint32_t)i, lk__kv_name, g) >= 0)
            return lk_set_error(LK_ERR_FORMAT, "gguf: kv key at byte offset %llu: duplicate key '%s'", (unsigned long long)at, key);
        if ((st = lk__rd_u32(r, &type, key))) return st;
        if (type >= LK_GGUF_TYPE_COUNT)
            return lk_set_error(LK_ERR_FORMAT, "gguf: key '%s' at byte offset %llu: unknown value type %u",
                                key, (unsigned long long)(r->off - 4), (unsigned)type);
        if ((st = lk__rd_value(g, r, (lk_gguf_type)type, &kv->value, 0, key))) return st;
    }
    return LK_OK;
}
/* general.alignment: a power of two in [1, 2^30] (default 32) */
static lk_status lk__gguf_alignment(lk_gguf *g) {
    int64_t ai;
    g->alignment = LK_GGUF_DEFAULT_ALIGNMENT;
    ai = lk_gguf_find_key(g, "general.alignment");
    if (ai >= 0) {
        const lk_gguf_value *v = &g->kv[ai].value;
        uint64_t a = 0;
        if (v->type == LK_GGUF_UINT8 || v->type == LK_GGUF_UINT16 || v->type == LK_GGUF_UINT32 || v->type == LK_GGUF_UINT64) a = v->v.u;
        else if ((v->type == LK_GGUF_INT8 || v->type == LK_GGUF_INT16 || v->type == LK_GGUF_INT32 || v->type == LK_GGUF_INT64) && v->v.i > 0) a = (uint64_t)v->v.i;
        else return lk_set_error(LK_ERR_FORMAT, "gguf: key 'general.alignment' at byte offset %llu: type %s is not an integer",
                                 (unsigned long long)g->kv[ai].offset, lk_gguf_type_name(v->type));
        if (a == 0 || (a & (a - 1)) || a > (1u << 30))
            return lk_set_error(LK_ERR_FORMAT, "gguf: key 'general.alignment' at byte offset %llu: %llu is not a power of two in [1, 2^30]",
                                (unsigned long long)g->kv[ai].offset, (unsigned long long)a);
        g->alignment = a;
    }

    return LK_OK;
}
/* the tensor infos: unique names, 1..4 dims, a known type, whole blocks per
 * row, sizes that do not overflow, aligned offsets */
static lk_status lk__gguf_tensor_infos(lk_gguf *g, lk__rd *r) {
    lk_status st;
    uint64_t i, at;
    for (i = 0; i < g->n_tensors; i++) {
        lk_gguf_tensor *t = &g->tensors[i];
        const lk_type_traits *tt;
        uint32_t nd, type;
        uint64_t nrows = 1, rowbytes;
        int d;
        char name[96];
        at = r->off;
        if ((st = lk__rd_str(r, &t->name, "tensor name")) || (st = lk__check_name(t->name, "tensor name", at))) return st;
        { size_t m = t->name.len < sizeof name - 1 ? (size_t)t->name.len : sizeof name - 1; memcpy(name, t->name.ptr, m); name[m] = 0; }
        if (lk__hash_insert(g->tensor_hash_, g->tensor_hash_cap_, t->name, (uint32_t)i, lk__tensor_name, g) >= 0)
            return lk_set_error(LK_ERR_FORMAT, "gguf: tensor name at byte offset %llu: duplicate tensor '%s'", (unsigned long long)at, name);
        if ((st = lk__rd_u32(r, &nd, name))) return st;
        if (nd < 1 || nd > LK_MAX_DIMS)
            return lk_set_error(LK_ERR_FORMAT, "gguf: tensor '%s' n_dims at byte offset %llu: %u is not in 1..%d",
                                name, (unsigned long long)(r->off - 4), (unsigned)nd, LK_MAX_DIMS);
        t->n_dims = (int)nd;
        for (d = 0; d < LK_MAX_DIMS; d++) t->ne[d] = 1;
        for (d = 0; d < (int)nd; d++) {
            uint64_t ne;
            if ((st = lk__rd_u64(r, &ne, name))) return st;
            if (ne > (uint64_t)INT64_MAX)
                return lk_set_error(LK_ERR_FORMAT, "gguf: tensor '%s' ne[%d] at byte offset %llu: negative element count",
                                    name, d, (unsigned long long)(r->off - 8));
            t->ne[d] = (int64_t)ne;
        }
        if ((st = lk__rd_u32(r, &type, name))) return st;
        tt = lk_type_get((lk_type)type);
        if (!tt)
            return lk_set_error(LK_ERR_FORMAT, "gguf: tensor '%s' type at byte offset %llu: unknown or removed tensor type %u",
                                name, (unsigned long long)(r->off - 4), (unsigned)type);
        t->type = (lk_type)type;
        if ((st = lk__rd_u64(r, &t->offset, name))) return st;
        if (t->ne[0] % tt->blck_size)
            return lk_set_error(LK_ERR_FORMAT, "gguf: tensor '%s' at byte offset %llu: row length %lld is not a multiple of the %s block size %lld",
                                name, (unsigned long long)at, (long long)t->ne[0], tt->name, (long long)tt->blck_size);
        /* element count and byte size, overflow-checked (elements must fit int64) */
        {
            uint64_t nel = (uint64_t)t->ne[0];
            for (d = 1; d < LK_MAX_DIMS; d++) {
                if (!lk__mul_ok(nrows, (uint64_t)t->ne[d], &nrows) || !lk__mul_ok(nel, (uint64_t)t->ne[d], &nel) ||
                    nel > (uint64_t)INT64_MAX || nrows > (uint64_t)INT64_MAX)   /* rows too: ne[0] may be 0 */
                    return lk_set_error(LK_ERR_FORMAT, "gguf: tensor '%s' at byte offset %llu: element count overflows", name, (unsigned long long)at);
            }
        }
        rowbytes = (uint64_t)(t->ne[0] / tt->blck_size) * tt->type_size;
        if (!lk__mul_ok(rowbytes, nrows, &t->nbytes))
            return lk_set_error(LK_ERR_FORMAT, "gguf: tensor '%s' at byte offset %llu: byte size overflows", name, (unsigned long long)at);
        if (t->offset % g->alignment)
            return lk_set_error(LK_ERR_FORMAT, "gguf: tensor '%s' at byte offset %llu: data offset %llu is not a multiple of the alignment %llu",
                                name, (unsigned long long)at, (unsigned long long)t->offset, (unsigned long long)g->alignment);
    }

    return LK_OK;
}
/* the data section: every tensor inside it, no two sharing bytes */
static lk_status lk__gguf_data(lk_gguf *g, uint64_t header_end) {
    const uint64_t n_tensors = g->n_tensors;
    uint64_t i;
    /* data section: aligned after the header */
    g->data_offset = header_end + (g->alignment - header_end % g->alignment) % g->alignment;
    if (n_tensors > 0 && g->data_offset > g->len)
        return lk_set_error(LK_ERR_FORMAT, "gguf: data section at byte offset %llu: starts beyond the end of the file (%llu bytes)",
                            (unsigned long long)g->data_offset, (unsigned long long)g->len);
    if (g->data_offset > g->len) g->data_offset = g->len;
    for (i = 0; i < n_tensors; i++) {
        lk_gguf_tensor *t = &g->tensors[i];
        uint64_t end, avail = g->len - g->data_offset;
        if (!lk__add_ok(t->offset, t->nbytes, &end) || end > avail)
            return lk_set_error(LK_ERR_FORMAT, "gguf: tensor '%.*s': data [%llu, +%llu) lies outside the %llu-byte data section at byte offset %llu",
                                (int)(t->name.len > 80 ? 80 : t->name.len), t->name.ptr, (unsigned long long)t->offset,
                                (unsigned long long)t->nbytes, (unsigned long long)avail, (unsigned long long)g->data_offset);
        t->data = g->buf + g->data_offset + t->offset;
    }
    /* no two tensors may share bytes: sort by offset and compare neighbours */
    if (n_tensors > 1) {
        lk__off_idx *ord = LK__CAST(lk__off_idx *, lk__gguf_alloc(g, n_tensors * sizeof(lk__off_idx)));
        if (!ord) return lk_set_error(LK_ERR_NOMEM, "gguf: out of memory");
        for (i = 0; i < n_tensors; i++) { ord[i].off = g->tensors[i].offset; ord[i].idx = i; }
        qsort(ord, (size_t)n_tensors, sizeof *ord, lk__cmp_off_idx);
        for (i = 1; i < n_tensors; i++) {
            const lk_gguf_tensor *a = &g->tensors[ord[i - 1].idx], *b = &g->tensors[ord[i].idx];
            if (a->nbytes && b->nbytes && b->offset < a->offset + a->nbytes)
                return lk_set_error(LK_ERR_FORMAT, "gguf: tensors '%.*s' and '%.*s' overlap in the data section (offsets %llu and %llu)",
                                    (int)(a->name.len > 80 ? 80 : a->name.len), a->name.ptr, (int)(b->name.len > 80 ? 80 : b->name.len), b->name.ptr,
                                    (unsigned long long)a->offset, (unsigned long long)b->offset);
        }
    }
    return LK_OK;
}
static lk_status lk__gguf_parse(lk_gguf *g) {
    lk__rd r;
    lk_status st;
    r.p = g->buf; r.len = g->len; r.off = 0;
    if ((st = lk__gguf_header(g, &r)) || (st = lk__gguf_kvs(g, &r)) || (st = lk__gguf_alignment(g)) || (st = lk__gguf_tensor_infos(g, &r)))
        return st;
    return lk__gguf_data(g, r.off);
}

static lk_status lk__gguf_new(const lk_gguf_params *p, lk_gguf **out) {
    lk_allocator a = lk__resolve_alloc(p ? p->alloc : NULL);
    lk_gguf *g = LK__CAST(lk_gguf *, a.alloc(a.user, sizeof(lk_gguf), 16));
    if (!g) return lk_set_error(LK_ERR_NOMEM, "gguf: out of memory (no allocator? under LLMKIT_NO_MALLOC pass an arena allocator)");
    memset(g, 0, sizeof *g);
    g->alloc_ = a;
    *out = g;
    return LK_OK;
}

LKDEF lk_status lk_gguf_read_memory(const void *buf, size_t len, const lk_gguf_params *p, lk_gguf **out) {
    lk_gguf *g = NULL;
    lk_status st;
    if (!out) return lk_set_error(LK_ERR_INVALID_ARG, "lk_gguf_read_memory: out is NULL");
    *out = NULL;
    if (!buf && len) return lk_set_error(LK_ERR_INVALID_ARG, "lk_gguf_read_memory: buf is NULL");
    if ((st = lk__gguf_new(p, &g))) return st;
    g->buf = LK__CAST(const unsigned char *, buf); g->len = len;
    if ((st = lk__gguf_parse(g))) { lk_gguf_free(g); return st; }
    *out = g;
    return LK_OK;
}

#ifndef LLMKIT_NO_STDIO
LKDEF lk_status lk_gguf_read_file(const char *path, const lk_gguf_params *p, lk_gguf **out) {
    lk_gguf *g = NULL;
    lk_status st;
    if (!out || !path) return lk_set_error(LK_ERR_INVALID_ARG, "lk_gguf_read_file: NULL argument");
    *out = NULL;
    if ((st = lk__gguf_new(p, &g))) return st;
#if defined(LK__MMAP_POSIX)
    {
        struct stat sb;
        void *m;
        int fd = open(path, O_RDONLY);
        if (fd < 0) { lk_gguf_free(g); return lk_set_error(LK_ERR_IO, "gguf: cannot open '%s'", path); }
        if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) { close(fd); lk_gguf_free(g); return lk_set_error(LK_ERR_IO, "gguf: '%s' is not a regular file", path); }
        if (sb.st_size == 0) { close(fd); lk_gguf_free(g); return lk_set_error(LK_ERR_FORMAT, "gguf: '%s' is empty", path); }
        m = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (m == MAP_FAILED) { close(fd); lk_gguf_free(g); return lk_set_error(LK_ERR_IO, "gguf: cannot mmap '%s'", path); }
        g->mapping_ = m; g->mapping_size_ = (uint64_t)sb.st_size;
        g->mapping_fd_ = fd + 1;   /* kept to map ranges afresh (lk__gguf_release) */
        g->buf = LK__CAST(const unsigned char *, m); g->len = (uint64_t)sb.st_size;
    }
#elif defined(LK__MMAP_WIN32)
    {
        HANDLE f = CreateFileA(path, GENERIC_READ, FILE_SHARE_READ, NULL, OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL, NULL);
        HANDLE mh;
        LARGE_INTEGER sz;
        void *m;
        if (f == INVALID_HANDLE_VALUE) { lk_gguf_free(g); return lk_set_error(LK_ERR_IO, "gguf: cannot open '%s'", path); }
        if (!GetFileSizeEx(f, &sz) || sz.QuadPart == 0) { CloseHandle(f); lk_gguf_free(g); return lk_set_error(LK_ERR_FORMAT, "gguf: '%s' is empty or unreadable", path); }
        mh = CreateFileMappingA(f, NULL, PAGE_READONLY, 0, 0, NULL);
        CloseHandle(f);
        if (!mh) { lk_gguf_free(g); return lk_set_error(LK_ERR_IO, "gguf: cannot map '%s'", path); }
        m = MapViewOfFile(mh, FILE_MAP_READ, 0, 0, 0);
        CloseHandle(mh);
        if (!m) { lk_gguf_free(g); return lk_set_error(LK_ERR_IO, "gguf: cannot map '%s'", path); }
        g->mapping_ = m; g->mapping_size_ = (uint64_t)sz.QuadPart;
        g->buf = LK__CAST(const unsigned char *, m); g->len = (uint64_t)sz.QuadPart;
    }
#else
    {   /* portable fallback: read the whole file through the allocator */
        FILE *f = fopen(path, "rb");
        long n;
        unsigned char *b;
        if (!f) { lk_gguf_free(g); return lk_set_error(LK_ERR_IO, "gguf: cannot open '%s'", path); }
        if (fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
            fclose(f); lk_gguf_free(g); return lk_set_error(LK_ERR_IO, "gguf: cannot size '%s'", path);
        }
        if (n == 0) { fclose(f); lk_gguf_free(g); return lk_set_error(LK_ERR_FORMAT, "gguf: '%s' is empty", path); }
        b = LK__CAST(unsigned char *, lk__gguf_alloc(g, (uint64_t)n));
        if (!b) { fclose(f); lk_gguf_free(g); return lk_set_error(LK_ERR_NOMEM, "gguf: out of memory reading '%s' (%lld bytes)", path, (long long)n); }
        if (fread(b, 1, (size_t)n, f) != (size_t)n) { fclose(f); lk_gguf_free(g); return lk_set_error(LK_ERR_IO, "gguf: read error on '%s'", path); }
        fclose(f);
        g->buf = b; g->len = (uint64_t)n;
    }
#endif
    if ((st = lk__gguf_parse(g))) {
        char msg[512];
        size_t m = strlen(lk_last_error());
        if (m > sizeof msg - 1) m = sizeof msg - 1;
        memcpy(msg, lk_last_error(), m); msg[m] = 0;
        lk_gguf_free(g);
        return lk_set_error(st, "%s: %s", path, msg);
    }
    *out = g;
    return LK_OK;
}
#endif

LKDEF void lk_gguf_free(lk_gguf *g) {
    lk__blk *b;
    lk_allocator a;
    if (!g) return;
    a = g->alloc_;
#if defined(LK__MMAP_POSIX)
    if (g->mapping_) munmap(g->mapping_, (size_t)g->mapping_size_);
    if (g->mapping_fd_ > 0) close(g->mapping_fd_ - 1);
#elif defined(LK__MMAP_WIN32)
    if (g->mapping_) UnmapViewOfFile(g->mapping_);
#endif
    b = LK__CAST(lk__blk *, g->blocks_);
    while (b) { lk__blk *n = b->next; lk__free(&a, b, b->size); b = n; }
    lk__free(&a, g, sizeof *g);
}

/* Drop the resident pages inside [p, p + n) of the file mapping (weights
 * repacked into private memory, 14.7r, are no longer read there): the whole
 * pages of the range are mapped afresh from the file, so they stay readable
 * and cost no memory until touched. Returns the bytes released (0: none,
 * e.g. a file read into memory, or another platform). */
static LK__UNUSED size_t lk__gguf_release(const lk_gguf *g, const void *p, size_t n) {
#if defined(LK__MMAP_POSIX)
    const long pgl = sysconf(_SC_PAGESIZE);
    const uintptr_t base = (uintptr_t)g->mapping_, pg = pgl > 0 ? (uintptr_t)pgl : 4096u;
    uintptr_t a = (uintptr_t)p, e = a + n;
    if (!g->mapping_ || g->mapping_fd_ <= 0 || a < base || e > base + g->mapping_size_) return 0;
    a = (a + pg - 1) / pg * pg;
    e = e / pg * pg;
    if (e <= a) return 0;
    if (mmap((void *)a, (size_t)(e - a), PROT_READ, MAP_PRIVATE | MAP_FIXED, g->mapping_fd_ - 1, (off_t)(a - base)) == MAP_FAILED) return 0;
    return (size_t)(e - a);
#else
    (void)g; (void)p; (void)n;
    return 0;
#endif
}

LKDEF int64_t lk_gguf_find_key(const lk_gguf *g, const char *key) {
    return g ? lk__hash_find(g->kv_hash_, g->kv_hash_cap_, key, lk__kv_name, g) : -1;
}
LKDEF int64_t lk_gguf_find_tensor(const lk_gguf *g, const char *name) {
    return g ? lk__hash_find(g->tensor_hash_, g->tensor_hash_cap_, name, lk__tensor_name, g) : -1;
}
LKDEF const lk_gguf_value *lk_gguf_get(const lk_gguf *g, const char *key) {
    int64_t i = lk_gguf_find_key(g, key);
    return i < 0 ? NULL : &g->kv[i].value;
}

/* scalar conversions shared by the getters; `v` is a scalar of type t */
static lk_status lk__val_u64(lk_gguf_type t, const lk_gguf_value *v, uint64_t *out) {
    switch (t) {
    case LK_GGUF_UINT8: case LK_GGUF_UINT16: case LK_GGUF_UINT32: case LK_GGUF_UINT64: case LK_GGUF_BOOL: *out = v->v.u; return LK_OK;
    case LK_GGUF_INT8: case LK_GGUF_INT16: case LK_GGUF_INT32: case LK_GGUF_INT64:
        if (v->v.i < 0) return LK_ERR_RANGE;
        *out = (uint64_t)v->v.i; return LK_OK;
    default: return LK_ERR_TYPE;
    }
}
static lk_status lk__val_i64(lk_gguf_type t, const lk_gguf_value *v, int64_t *out) {
    switch (t) {
    case LK_GGUF_UINT8: case LK_GGUF_UINT16: case LK_GGUF_UINT32: case LK_GGUF_UINT64: case LK_GGUF_BOOL:
        if (v->v.u > (uint64_t)INT64_MAX) return LK_ERR_RANGE;
        *out = (int64_t)v->v.u; return LK_OK;
    case LK_GGUF_INT8: case LK_GGUF_INT16: case LK_GGUF_INT32: case LK_GGUF_INT64: *out = v->v.i; return LK_OK;
    default: return LK_ERR_TYPE;
    }
}
static lk_status lk__val_f64(lk_gguf_type t, const lk_gguf_value *v, double *out) {
    int64_t i;
    if (t == LK_GGUF_FLOAT32 || t == LK_GGUF_FLOAT64) { *out = v->v.f; return LK_OK; }
    if (t == LK_GGUF_UINT64 || t == LK_GGUF_UINT32 || t == LK_GGUF_UINT16 || t == LK_GGUF_UINT8) { *out = (double)v->v.u; return LK_OK; }
    if (lk__val_i64(t, v, &i) == LK_OK) { *out = (double)i; return LK_OK; }
    return LK_ERR_TYPE;
}
/* element idx of an array of scalars, decoded into a scalar value */
static lk_status lk__arr_elem(const lk_gguf_value *a, uint64_t idx, lk_gguf_value *e) {
    const unsigned char *p;
    if (a->type != LK_GGUF_ARRAY) return LK_ERR_TYPE;
    if (idx >= a->n) return LK_ERR_RANGE;
    if (a->arr_type == LK_GGUF_STRING || a->arr_type == LK_GGUF_ARRAY) return LK_ERR_TYPE;
    p = LK__CAST(const unsigned char *, a->v.arr) + idx * lk__gguf_type_size[a->arr_type];
    memset(e, 0, sizeof *e);
    e->type = a->arr_type;
    return lk__gguf_scalar(a->arr_type, p, e) ? LK_OK : LK_ERR_TYPE;
}
static lk_status lk__get_err(lk_status st, const char *key, const char *want, const lk_gguf_value *v) {
    if (st == LK_ERR_NOT_FOUND) return lk_set_error(st, "gguf: key '%s' not found", key);
    if (st == LK_ERR_RANGE) return lk_set_error(st, "gguf: key '%s': value out of range for %s", key, want);
    return lk_set_error(st, "gguf: key '%s' has type %s%s%s, expected %s", key, (v ? lk_gguf_type_name(v->type) : "?"),
                        v && v->type == LK_GGUF_ARRAY ? " of " : "", v && v->type == LK_GGUF_ARRAY ? lk_gguf_type_name(v->arr_type) : "", want);
}
/* kind: 0 = u64, 1 = i64, 2 = f64; idx < 0 = scalar only */
static lk_status lk__get_num(const lk_gguf *g, const char *key, int kind, int64_t idx, void *out) {
    const lk_gguf_value *v = lk_gguf_get(g, key);
    const char *want = kind == 0 ? "an unsigned integer" : kind == 1 ? "an integer" : "a number";
    lk_gguf_value e;
    lk_status st;
    if (!v) return lk__get_err(LK_ERR_NOT_FOUND, key, want, v);
    if (v->type == LK_GGUF_ARRAY) {
        if (idx < 0) return lk__get_err(LK_ERR_TYPE, key, want, v);
        if ((uint64_t)idx >= v->n && v->arr_type != LK_GGUF_STRING && v->arr_type != LK_GGUF_ARRAY)
            return lk_set_error(LK_ERR_RANGE, "gguf: key '%s': index %lld out of range (array of %llu)", key, (long long)idx, (unsigned long long)v->n);
        if ((st = lk__arr_elem(v, (uint64_t)idx, &e))) return lk__get_err(st, key, want, v);
        v = &e;
    }
    st = kind == 0 ? lk__val_u64(v->type, v, LK__CAST(uint64_t *, out))
       : kind == 1 ? lk__val_i64(v->type, v, LK__CAST(int64_t *, out))
       : lk__val_f64(v->type, v, LK__CAST(double *, out));
    return st ? lk__get_err(st, key, want, v) : LK_OK;
}
LKDEF lk_status lk_gguf_get_u64(const lk_gguf *g, const char *key, uint64_t *out) { return lk__get_num(g, key, 0, -1, out); }
LKDEF lk_status lk_gguf_get_i64(const lk_gguf *g, const char *key, int64_t *out) { return lk__get_num(g, key, 1, -1, out); }
LKDEF lk_status lk_gguf_get_f64(const lk_gguf *g, const char *key, double *out) { return lk__get_num(g, key, 2, -1, out); }
LKDEF lk_status lk_gguf_get_u64_at(const lk_gguf *g, const char *key, uint64_t idx, uint64_t *out) {
    return lk__get_num(g, key, 0, idx > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)idx, out);
}
LKDEF lk_status lk_gguf_get_i64_at(const lk_gguf *g, const char *key, uint64_t idx, int64_t *out) {
    return lk__get_num(g, key, 1, idx > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)idx, out);
}
LKDEF lk_status lk_gguf_get_f64_at(const lk_gguf *g, const char *key, uint64_t idx, double *out) {
    return lk__get_num(g, key, 2, idx > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)idx, out);
}
LKDEF lk_status lk_gguf_get_u32(const lk_gguf *g, const char *key, uint32_t *out) {
    uint64_t v = 0;
    lk_status st = lk_gguf_get_u64(g, key, &v);
    if (st) return st;
    if (v > UINT32_MAX) return lk_set_error(LK_ERR_RANGE, "gguf: key '%s': %llu does not fit in u32", key, (unsigned long long)v);
    *out = (uint32_t)v;
    return LK_OK;
}
LKDEF lk_status lk_gguf_get_i32(const lk_gguf *g, const char *key, int32_t *out) {
    int64_t v = 0;
    lk_status st = lk_gguf_get_i64(g, key, &v);
    if (st) return st;
    if (v > INT32_MAX || v < INT32_MIN) return lk_set_error(LK_ERR_RANGE, "gguf: key '%s': %lld does not fit in i32", key, (long long)v);
    *out = (int32_t)v;
    return LK_OK;
}
LKDEF lk_status lk_gguf_get_f32(const lk_gguf *g, const char *key, float *out) {
    double v = 0.0;
    lk_status st = lk_gguf_get_f64(g, key, &v);
    if (!st) *out = (float)v;
    return st;
}
LKDEF lk_status lk_gguf_get_bool(const lk_gguf *g, const char *key, int *out) {
    const lk_gguf_value *v = lk_gguf_get(g, key);
    uint64_t u;
    if (!v) return lk__get_err(LK_ERR_NOT_FOUND, key, "bool", v);
    if (v->type == LK_GGUF_BOOL) { *out = (int)v->v.u; return LK_OK; }
    if (lk__val_u64(v->type, v, &u) == LK_OK && u <= 1) { *out = (int)u; return LK_OK; }
    return lk__get_err(LK_ERR_TYPE, key, "bool", v);
}
LKDEF lk_status lk_gguf_get_str(const lk_gguf *g, const char *key, lk_str *out) {
    const lk_gguf_value *v = lk_gguf_get(g, key);
    if (!v) return lk__get_err(LK_ERR_NOT_FOUND, key, "str", v);
    if (v->type != LK_GGUF_STRING) return lk__get_err(LK_ERR_TYPE, key, "str", v);
    *out = v->v.s;
    return LK_OK;
}
LKDEF lk_status lk_gguf_get_arr(const lk_gguf *g, const char *key, lk_gguf_type *elem_type, uint64_t *n, const lk_gguf_value **out) {
    const lk_gguf_value *v = lk_gguf_get(g, key);
    if (!v) return lk__get_err(LK_ERR_NOT_FOUND, key, "arr", v);
    if (v->type != LK_GGUF_ARRAY) return lk__get_err(LK_ERR_TYPE, key, "arr", v);
    if (elem_type) *elem_type = v->arr_type;
    if (n) *n = v->n;
    if (out) *out = v;
    return LK_OK;
}
LKDEF lk_status lk_gguf_value_u64_at(const lk_gguf_value *v, uint64_t idx, uint64_t *out) {
    lk_gguf_value e;
    lk_status st = v ? lk__arr_elem(v, idx, &e) : LK_ERR_INVALID_ARG;
    return st ? st : lk__val_u64(e.type, &e, out);
}
LKDEF lk_status lk_gguf_value_i64_at(const lk_gguf_value *v, uint64_t idx, int64_t *out) {
    lk_gguf_value e;
    lk_status st = v ? lk__arr_elem(v, idx, &e) : LK_ERR_INVALID_ARG;
    return st ? st : lk__val_i64(e.type, &e, out);
}
LKDEF lk_status lk_gguf_value_f64_at(const lk_gguf_value *v, uint64_t idx, double *out) {
    lk_gguf_value e;
    lk_status st = v ? lk__arr_elem(v, idx, &e) : LK_ERR_INVALID_ARG;
    return st ? st : lk__val_f64(e.type, &e, out);
}
LKDEF lk_status lk_gguf_tensor_view(const lk_gguf *g, int64_t i, lk_tensor *t) {
    const lk_gguf_tensor *gt;
    lk_status st;
    if (!g || !t || i < 0 || (uint64_t)i >= g->n_tensors) return lk_set_error(LK_ERR_RANGE, "lk_gguf_tensor_view: tensor index %lld out of range", (long long)i);
    gt = &g->tensors[i];
    st = lk_tensor_init(t, gt->type, gt->n_dims, gt->ne, LK__CAST(void *, LK__CAST(uintptr_t, gt->data)));
    if (!st) t->name = gt->name.ptr;   /* not NUL-terminated: use gt->name.len */
    return st;
}

/* ---- writer ---------------------------------------------------------------- */
typedef struct lk__wtensor {
    char *name;
    lk_type type;
    int n_dims;
    int64_t ne[LK_MAX_DIMS];
    uint64_t nbytes, offset;
    const void *data;
    int owned;
} lk__wtensor;

struct lk_gguf_writer {
    lk_allocator a;
    unsigned char *kv; uint64_t kv_len, kv_cap, n_kv;   /* serialized KV section */
    char **keys; uint64_t keys_cap;                     /* for duplicate checks  */
    lk__wtensor *t; uint64_t n_t, t_cap;
    uint32_t alignment;
};

static void *lk__grow(const lk_allocator *a, void *old, uint64_t old_bytes, uint64_t new_bytes) {
    void *n;
    if (new_bytes > SIZE_MAX) return NULL;
    n = a->alloc(a->user, (size_t)new_bytes, 64);
    if (!n) return NULL;
    if (old) { memcpy(n, old, (size_t)old_bytes); lk__free(a, old, (size_t)old_bytes); }
    return n;
}
static lk_status lk__w_bytes(lk_gguf_writer *w, const void *p, uint64_t n) {
    if (n > UINT64_MAX - w->kv_len) return lk_set_error(LK_ERR_NOMEM, "gguf writer: too large");
    if (w->kv_len + n > w->kv_cap) {
        uint64_t c = w->kv_cap ? w->kv_cap : 1024;
        unsigned char *nb;
        while (c < w->kv_len + n) { if (c > UINT64_MAX / 2) return lk_set_error(LK_ERR_NOMEM, "gguf writer: too large"); c *= 2; }
        nb = LK__CAST(unsigned char *, lk__grow(&w->a, w->kv, w->kv_len, c));
        if (!nb) return lk_set_error(LK_ERR_NOMEM, "gguf writer: out of memory");
        w->kv = nb; w->kv_cap = c;
    }
    if (n) memcpy(w->kv + w->kv_len, p, (size_t)n);
    w->kv_len += n;
    return LK_OK;
}
static lk_status lk__w_u32(lk_gguf_writer *w, uint32_t v) {
    unsigned char b[4]; int i;
    for (i = 0; i < 4; i++) b[i] = (unsigned char)(v >> (8 * i));
    return lk__w_bytes(w, b, 4);
}
static lk_status lk__w_u64(lk_gguf_writer *w, uint64_t v) {
    unsigned char b[8]; int i;
    for (i = 0; i < 8; i++) b[i] = (unsigned char)(v >> (8 * i));
    return lk__w_bytes(w, b, 8);
}
static lk_status lk__w_str(lk_gguf_writer *w, const char *s, uint64_t n) {
    lk_status st = lk__w_u64(w, n);
    return st ? st : lk__w_bytes(w, s, n);
}
/* raw little-endian element of scalar type t from host memory */
static lk_status lk__w_scalar_raw(lk_gguf_writer *w, lk_gguf_type t, const unsigned char *p) {
    switch (lk__gguf_type_size[t]) {
    case 1: return lk__w_bytes(w, p, 1);
    case 2: { uint16_t v; unsigned char b[2]; memcpy(&v, p, 2); b[0] = (unsigned char)v; b[1] = (unsigned char)(v >> 8); return lk__w_bytes(w, b, 2); }
    case 4: { uint32_t v; memcpy(&v, p, 4); return lk__w_u32(w, v); }
    default: { uint64_t v; memcpy(&v, p, 8); return lk__w_u64(w, v); }
    }
}
static lk_status lk__w_value(lk_gguf_writer *w, const lk_gguf_value *v, int depth) {
    lk_status st;
    uint64_t i;
    if ((unsigned)v->type >= (unsigned)LK_GGUF_TYPE_COUNT) return lk_set_error(LK_ERR_INVALID_ARG, "gguf writer: bad value type %d", (int)v->type);
    if (v->type == LK_GGUF_BOOL && v->v.u > 1) return lk_set_error(LK_ERR_INVALID_ARG, "gguf writer: bool value must be 0 or 1");
    switch (v->type) {
    case LK_GGUF_STRING: return lk__w_str(w, v->v.s.ptr, v->v.s.len);
    case LK_GGUF_FLOAT32: { float f = (float)v->v.f; uint32_t b; memcpy(&b, &f, 4); return lk__w_u32(w, b); }
    case LK_GGUF_FLOAT64: { uint64_t b; memcpy(&b, &v->v.f, 8); return lk__w_u64(w, b); }
    case LK_GGUF_BOOL:
    case LK_GGUF_UINT8: case LK_GGUF_UINT16: case LK_GGUF_UINT32: case LK_GGUF_UINT64: {
        unsigned char b[8]; int k, sz = lk__gguf_type_size[v->type];
        for (k = 0; k < sz; k++) b[k] = (unsigned char)(v->v.u >> (8 * k));
        return lk__w_bytes(w, b, (uint64_t)sz);
    }
    case LK_GGUF_INT8: case LK_GGUF_INT16: case LK_GGUF_INT32: case LK_GGUF_INT64: {
        unsigned char b[8]; int k, sz = lk__gguf_type_size[v->type];
        for (k = 0; k < sz; k++) b[k] = (unsigned char)((uint64_t)v->v.i >> (8 * k));
        return lk__w_bytes(w, b, (uint64_t)sz);
    }
    case LK_GGUF_ARRAY:
        if (depth >= LK_GGUF_MAX_DEPTH) return lk_set_error(LK_ERR_INVALID_ARG, "gguf writer: arrays nested deeper than %d", LK_GGUF_MAX_DEPTH);
        if ((unsigned)v->arr_type >= (unsigned)LK_GGUF_TYPE_COUNT) return lk_set_error(LK_ERR_INVALID_ARG, "gguf writer: bad array element type");
        if ((st = lk__w_u32(w, (uint32_t)v->arr_type)) || (st = lk__w_u64(w, v->n))) return st;
        if (v->n && !v->v.arr) return lk_set_error(LK_ERR_INVALID_ARG, "gguf writer: array data is NULL");
        for (i = 0; i < v->n; i++) {
            if (v->arr_type == LK_GGUF_STRING) st = lk__w_str(w, v->v.strs[i].ptr, v->v.strs[i].len);
            else if (v->arr_type == LK_GGUF_ARRAY) st = lk__w_value(w, &v->v.elems[i], depth + 1);
            else if (v->arr_type == LK_GGUF_BOOL && LK__CAST(const unsigned char *, v->v.arr)[i] > 1) st = lk_set_error(LK_ERR_INVALID_ARG, "gguf writer: bool value must be 0 or 1");
            else st = lk__w_scalar_raw(w, v->arr_type, LK__CAST(const unsigned char *, v->v.arr) + i * lk__gguf_type_size[v->arr_type]);
            if (st) return st;
        }
        return LK_OK;
    default: return LK_OK;
    }
}
static char *lk__strdup_a(const lk_allocator *a, const char *s) {
    size_t n = strlen(s);
    char *d = LK__CAST(char *, a->alloc(a->user, n + 1, 1));
    if (d) memcpy(d, s, n + 1);
    return d;
}

LKDEF lk_status lk_gguf_writer_new(const lk_gguf_params *p, lk_gguf_writer **out) {
    lk_allocator a = lk__resolve_alloc(p ? p->alloc : NULL);
    lk_gguf_writer *w;
    if (!out) return lk_set_error(LK_ERR_INVALID_ARG, "lk_gguf_writer_new: out is NULL");
    w = LK__CAST(lk_gguf_writer *, a.alloc(a.user, sizeof *w, 16));
    if (!w) return lk_set_error(LK_ERR_NOMEM, "gguf writer: out of memory");
    memset(w, 0, sizeof *w);
    w->a = a; w->alignment = LK_GGUF_DEFAULT_ALIGNMENT;
    *out = w;
    return LK_OK;
}
LKDEF void lk_gguf_writer_free(lk_gguf_writer *w) {
    uint64_t i;
    if (!w) return;
    for (i = 0; i < w->n_kv; i++) lk__free(&w->a, w->keys[i], strlen(w->keys[i]) + 1);
    for (i = 0; i < w->n_t; i++) {
        lk__free(&w->a, w->t[i].name, strlen(w->t[i].name) + 1);
        if (w->t[i].owned) lk__free(&w->a, LK__CAST(void *, LK__CAST(uintptr_t, w->t[i].data)), (size_t)w->t[i].nbytes);
    }
    lk__free(&w->a, w->keys, w->keys_cap * sizeof(char *));
    lk__free(&w->a, w->t, w->t_cap * sizeof(lk__wtensor));
    lk__free(&w->a, w->kv, w->kv_cap);
    lk__free(&w->a, w, sizeof *w);
}
/* Start a KV: check the key, then write key and type. The caller writes the
 * payload and calls lk__w_kv_end (which rolls back on failure). */
static lk_status lk__w_kv_begin(lk_gguf_writer *w, const char *key, lk_gguf_type type, uint64_t *save) {
    uint64_t i;
    lk_status st;
    if (!w || !key || !*key) return lk_set_error(LK_ERR_INVALID_ARG, "gguf writer: NULL or empty key");
    for (i = 0; i < w->n_kv; i++)
        if (strcmp(w->keys[i], key) == 0) return lk_set_error(LK_ERR_INVALID_ARG, "gguf writer: duplicate key '%s'", key);
    if (w->n_kv == w->keys_cap) {
        uint64_t c = w->keys_cap ? w->keys_cap * 2 : 32;
        char **nk = LK__CAST(char **, lk__grow(&w->a, w->keys, w->keys_cap * sizeof(char *), c * sizeof(char *)));
        if (!nk) return lk_set_error(LK_ERR_NOMEM, "gguf writer: out of memory");
        w->keys = nk; w->keys_cap = c;
    }
    *save = w->kv_len;
    if ((st = lk__w_str(w, key, strlen(key))) || (st = lk__w_u32(w, (uint32_t)type))) w->kv_len = *save;
    return st;
}
static lk_status lk__w_kv_end(lk_gguf_writer *w, const char *key, uint64_t save, lk_status st) {
    if (!st && !(w->keys[w->n_kv] = lk__strdup_a(&w->a, key))) st = lk_set_error(LK_ERR_NOMEM, "gguf writer: out of memory");
    if (st) { w->kv_len = save; return st; }
    w->n_kv++;
    return LK_OK;
}
LKDEF lk_status lk_gguf_writer_add_value(lk_gguf_writer *w, const char *key, const lk_gguf_value *v) {
    uint64_t save;
    lk_status st;
    if (!v) return lk_set_error(LK_ERR_INVALID_ARG, "gguf writer: NULL value");
    if ((st = lk__w_kv_begin(w, key, v->type, &save))) return st;
    return lk__w_kv_end(w, key, save, lk__w_value(w, v, 0));
}
static lk_status lk__w_add_scalar(lk_gguf_writer *w, const char *key, lk_gguf_type t, uint64_t u, int64_t i, double f) {
    lk_gguf_value v;
    memset(&v, 0, sizeof v);
    v.type = t;
    if (t == LK_GGUF_FLOAT32 || t == LK_GGUF_FLOAT64) v.v.f = f;
    else if (t == LK_GGUF_INT32 || t == LK_GGUF_INT64) v.v.i = i;
    else v.v.u = u;
    return lk_gguf_writer_add_value(w, key, &v);
}
LKDEF lk_status lk_gguf_writer_add_u32(lk_gguf_writer *w, const char *key, uint32_t v) { return lk__w_add_scalar(w, key, LK_GGUF_UINT32, v, 0, 0); }
LKDEF lk_status lk_gguf_writer_add_i32(lk_gguf_writer *w, const char *key, int32_t v) { return lk__w_add_scalar(w, key, LK_GGUF_INT32, 0, v, 0); }
LKDEF lk_status lk_gguf_writer_add_u64(lk_gguf_writer *w, const char *key, uint64_t v) { return lk__w_add_scalar(w, key, LK_GGUF_UINT64, v, 0, 0); }
LKDEF lk_status lk_gguf_writer_add_f32(lk_gguf_writer *w, const char *key, float v) { return lk__w_add_scalar(w, key, LK_GGUF_FLOAT32, 0, 0, v); }
LKDEF lk_status lk_gguf_writer_add_bool(lk_gguf_writer *w, const char *key, int v) { return lk__w_add_scalar(w, key, LK_GGUF_BOOL, v != 0, 0, 0); }
LKDEF lk_status lk_gguf_writer_add_str(lk_gguf_writer *w, const char *key, const char *s) {
    lk_gguf_value v;
    if (!s) return lk_set_error(LK_ERR_INVALID_ARG, "gguf writer: NULL string for key '%s'", key ? key : "");
    memset(&v, 0, sizeof v);
    v.type = LK_GGUF_STRING; v.v.s.ptr = s; v.v.s.len = strlen(s);
    return lk_gguf_writer_add_value(w, key, &v);
}
LKDEF lk_status lk_gguf_writer_add_arr(lk_gguf_writer *w, const char *key, lk_gguf_type et, const void *data, uint64_t n) {
    lk_gguf_value v;
    if ((unsigned)et >= (unsigned)LK_GGUF_TYPE_COUNT || et == LK_GGUF_STRING || et == LK_GGUF_ARRAY)
        return lk_set_error(LK_ERR_INVALID_ARG, "gguf writer: add_arr needs a scalar element type (key '%s')", key ? key : "");
    memset(&v, 0, sizeof v);
    v.type = LK_GGUF_ARRAY; v.arr_type = et; v.n = n; v.v.arr = data;
    return lk_gguf_writer_add_value(w, key, &v);
}
LKDEF lk_status lk_gguf_writer_add_arr_str(lk_gguf_writer *w, const char *key, const char *const *strs, uint64_t n) {
    uint64_t i, save;
    lk_status st;
    if (n && !strs) return lk_set_error(LK_ERR_INVALID_ARG, "gguf writer: NULL string array");
    for (i = 0; i < n; i++) if (!strs[i]) return lk_set_error(LK_ERR_INVALID_ARG, "gguf writer: NULL string %llu", (unsigned long long)i);
    if ((st = lk__w_kv_begin(w, key, LK_GGUF_ARRAY, &save))) return st;
    if (!(st = lk__w_u32(w, LK_GGUF_STRING)) && !(st = lk__w_u64(w, n)))
        for (i = 0; i < n && !st; i++) st = lk__w_str(w, strs[i], strlen(strs[i]));
    return lk__w_kv_end(w, key, save, st);
}
LKDEF lk_status lk_gguf_writer_set_alignment(lk_gguf_writer *w, uint32_t alignment) {
    lk_status st;
    if (!w || alignment == 0 || (alignment & (alignment - 1)))
        return lk_set_error(LK_ERR_INVALID_ARG, "gguf writer: alignment %u is not a power of two", (unsigned)alignment);
    if ((st = lk_gguf_writer_add_u32(w, "general.alignment", alignment))) return st;
    w->alignment = alignment;
    return LK_OK;
}
LKDEF lk_status lk_gguf_writer_add_tensor(lk_gguf_writer *w, const char *name, lk_type type, int n_dims, const int64_t *ne, const void *data, int copy) {
    lk_tensor tmp;
    lk__wtensor *t;
    uint64_t i;
    lk_status st;
    if (!w || !name || !*name || !ne) return lk_set_error(LK_ERR_INVALID_ARG, "gguf writer: NULL tensor argument");
    for (i = 0; i < w->n_t; i++)
        if (strcmp(w->t[i].name, name) == 0) return lk_set_error(LK_ERR_INVALID_ARG, "gguf writer: duplicate tensor '%s'", name);
    if ((st = lk_tensor_init(&tmp, type, n_dims, ne, NULL))) return st;
    if (w->n_t == w->t_cap) {
        uint64_t c = w->t_cap ? w->t_cap * 2 : 64;
        lk__wtensor *nt = LK__CAST(lk__wtensor *, lk__grow(&w->a, w->t, w->t_cap * sizeof(lk__wtensor), c * sizeof(lk__wtensor)));
        if (!nt) return lk_set_error(LK_ERR_NOMEM, "gguf writer: out of memory");
        w->t = nt; w->t_cap = c;
    }
    t = &w->t[w->n_t];
    memset(t, 0, sizeof *t);
    t->type = type; t->n_dims = n_dims;
    for (i = 0; i < LK_MAX_DIMS; i++) t->ne[i] = tmp.ne[i];
    t->nbytes = lk_tensor_nbytes(&tmp);
    if (t->nbytes && !data) return lk_set_error(LK_ERR_INVALID_ARG, "gguf writer: tensor '%s' has no data", name);
    if (!(t->name = lk__strdup_a(&w->a, name))) return lk_set_error(LK_ERR_NOMEM, "gguf writer: out of memory");
    if (copy && t->nbytes) {
        void *d = w->a.alloc(w->a.user, (size_t)t->nbytes, 64);
        if (!d) { lk__free(&w->a, t->name, strlen(name) + 1); return lk_set_error(LK_ERR_NOMEM, "gguf writer: out of memory for tensor '%s'", name); }
        memcpy(d, data, (size_t)t->nbytes);
        t->data = d; t->owned = 1;
    } else t->data = data;
    w->n_t++;
    return LK_OK;
}
static uint64_t lk__align_up(uint64_t x, uint64_t a) { return x + (a - x % a) % a; }
static uint64_t lk__w_header_size(const lk_gguf_writer *w) {
    uint64_t n = 4 + 4 + 8 + 8 + w->kv_len, i;
    for (i = 0; i < w->n_t; i++) n += 8 + strlen(w->t[i].name) + 4 + 8 * (uint64_t)w->t[i].n_dims + 4 + 8;
    /* a file without tensors ends right after its metadata (as gguf-py writes it) */
    return w->n_t ? lk__align_up(n, w->alignment) : n;
}
LKDEF uint64_t lk_gguf_writer_size(const lk_gguf_writer *w) {
    uint64_t n, i;
    if (!w) return 0;
    n = lk__w_header_size(w);
    for (i = 0; i < w->n_t; i++) n += lk__align_up(w->t[i].nbytes, w->alignment);
    return n;
}
static void lk__st32(unsigned char *p, uint32_t v) { int i; for (i = 0; i < 4; i++) p[i] = (unsigned char)(v >> (8 * i)); }
static void lk__st64(unsigned char *p, uint64_t v) { int i; for (i = 0; i < 8; i++) p[i] = (unsigned char)(v >> (8 * i)); }
/* Header (magic .. padding before the data section) into p[0, lk__w_header_size). */
static void lk__w_header(const lk_gguf_writer *w, unsigned char *p) {
    uint64_t off = 24, data_off = 0, i;
    int d;
    memset(p, 0, (size_t)lk__w_header_size(w));
    memcpy(p, "GGUF", 4); lk__st32(p + 4, 3); lk__st64(p + 8, w->n_t); lk__st64(p + 16, w->n_kv);
    if (w->kv_len) memcpy(p + off, w->kv, (size_t)w->kv_len);
    off += w->kv_len;
    for (i = 0; i < w->n_t; i++) {
        const lk__wtensor *t = &w->t[i];
        uint64_t nl = strlen(t->name);
        lk__st64(p + off, nl); memcpy(p + off + 8, t->name, (size_t)nl); off += 8 + nl;
        lk__st32(p + off, (uint32_t)t->n_dims); off += 4;
        for (d = 0; d < t->n_dims; d++) { lk__st64(p + off, (uint64_t)t->ne[d]); off += 8; }
        lk__st32(p + off, (uint32_t)t->type); off += 4;
        lk__st64(p + off, data_off); off += 8;
        data_off += lk__align_up(t->nbytes, w->alignment);
    }
}
LKDEF lk_status lk_gguf_writer_write_memory(const lk_gguf_writer *w, void *buf, size_t len) {
    unsigned char *p = LK__CAST(unsigned char *, buf);
    uint64_t total, off, i;
    if (!w || !buf) return lk_set_error(LK_ERR_INVALID_ARG, "gguf writer: NULL argument");
    total = lk_gguf_writer_size(w);
    if (len < total) return lk_set_error(LK_ERR_RANGE, "gguf writer: buffer of %llu bytes is smaller than the %llu needed", (unsigned long long)len, (unsigned long long)total);
    lk__w_header(w, p);
    off = lk__w_header_size(w);
    for (i = 0; i < w->n_t; i++) {
        uint64_t padded = lk__align_up(w->t[i].nbytes, w->alignment);
        if (w->t[i].nbytes) memcpy(p + off, w->t[i].data, (size_t)w->t[i].nbytes);
        memset(p + off + w->t[i].nbytes, 0, (size_t)(padded - w->t[i].nbytes));
        off += padded;
    }
    return LK_OK;
}
#ifndef LLMKIT_NO_STDIO
LKDEF lk_status lk_gguf_writer_write_file(const lk_gguf_writer *w, const char *path) {
    /* stream: the header from one buffer, tensor data straight from its source */
    static const unsigned char zeros[64] = { 0 };
    FILE *f;
    unsigned char *hdr;
    uint64_t hsize, i, pad;
    if (!w || !path) return lk_set_error(LK_ERR_INVALID_ARG, "gguf writer: NULL argument");
    hsize = lk__w_header_size(w);
    hdr = LK__CAST(unsigned char *, w->a.alloc(w->a.user, (size_t)hsize, 64));
    if (!hdr) return lk_set_error(LK_ERR_NOMEM, "gguf writer: out of memory");
    lk__w_header(w, hdr);
    f = fopen(path, "wb");
    if (!f) { lk__free(&w->a, hdr, (size_t)hsize); return lk_set_error(LK_ERR_IO, "gguf writer: cannot create '%s'", path); }
    if (fwrite(hdr, 1, (size_t)hsize, f) != (size_t)hsize) goto ioerr;
    for (i = 0; i < w->n_t; i++) {
        uint64_t nb = w->t[i].nbytes;
        if (nb && fwrite(w->t[i].data, 1, (size_t)nb, f) != (size_t)nb) goto ioerr;
        for (pad = lk__align_up(nb, w->alignment) - nb; pad; ) {
            size_t k = pad > sizeof zeros ? sizeof zeros : (size_t)pad;
            if (fwrite(zeros, 1, k, f) != k) goto ioerr;
            pad -= k;
        }
    }
    lk__free(&w->a, hdr, (size_t)hsize);
    if (fclose(f) != 0) return lk_set_error(LK_ERR_IO, "gguf writer: error closing '%s'", path);
    return LK_OK;
ioerr:
    lk__free(&w->a, hdr, (size_t)hsize);
    fclose(f);
    return lk_set_error(LK_ERR_IO, "gguf writer: write error on '%s'", path);
}
#endif

/* --------------------------------------------------------------------------
 * 14.7 Quantization
 * -------------------------------------------------------------------------- */

/* --------------------------------------------------------------------------
 * 14.7a float, legacy and K-quant formats
 * --------------------------------------------------------------------------
 * The reference quantizers must round exactly like ggml's (compiled without
 * FMA): no contraction of a*b+c into fused multiply-adds here. */
/* ---- SIMD selection (compile time) ---------------------------------------
 * LLMKIT_NO_SIMD forces the scalar references everywhere. x86 needs AVX2 +
 * FMA + F16C; AVX512-VNNI/VL, AVX512-BW and AVX512-BF16 add faster paths.
 * AArch64 uses NEON, plus the SDOT instruction where __ARM_FEATURE_DOTPROD;
 * Cortex-M55/M85 use Helium (MVE) for the q8_0, q4_0 and f32 dot products,
 * other Cortex-M cores with the DSP extension SMLAD for q8_0 and q4_0. */
#if !defined(LLMKIT_NO_SIMD) && defined(__AVX2__) && defined(__FMA__) && defined(__F16C__)
#define LK__X86 1
#include <immintrin.h>
/* g++ before 13 reports its own AVX-512 intrinsics' placeholder operands
 * (_mm512_undefined_ps) as uninitialized once they are inlined into C++
 * (GCC bug 105593); the implementation turns that warning off. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__cplusplus) && __GNUC__ < 13
#define LK__GCC_AVX512_WORKAROUND 1
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#if defined(__AVX512VNNI__) && defined(__AVX512VL__)
#define LK__X86_VNNI 1
#endif
#if defined(__AVX512F__) && defined(__AVX512BW__) && defined(__AVX512VL__) && defined(__AVX512DQ__)
#define LK__X86_512 1
#endif
#if defined(LK__X86_512) && defined(__AVX512BF16__)
#define LK__X86_BF16 1
#endif
#elif !defined(LLMKIT_NO_SIMD) && defined(__aarch64__) && defined(__ARM_NEON)
#define LK__ARM 1
#include <arm_neon.h>
#elif !defined(LLMKIT_NO_SIMD) && defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)
#define LK__MVE 1               /* Cortex-M55/M85 Helium (M-profile vector extension) */
#include <arm_mve.h>
#elif !defined(LLMKIT_NO_SIMD) && defined(__ARM_FEATURE_SIMD32) && defined(__ARM_ARCH_PROFILE) && __ARM_ARCH_PROFILE == 'M'
#define LK__DSP 1               /* Cortex-M4/M7/M33 DSP extension: 2 x 16-bit multiply-accumulate (SMLAD) */
#include <arm_acle.h>
#if defined(__ARM_FEATURE_DOTPROD)
#define LK__ARM_DOT 1
#endif
#endif

/* 14.7s forward declarations (used by lk_matmul) */
static void lk__act_quantize_q8_0(const float *x, void *y, int64_t n);
static void lk__act_quantize_q8_1(const float *x, void *y, int64_t n);
/* A row of the kernel table (lk__kernel_table, at the end of 14.7s: one
 * row per type, filled once per target), what this build runs for a type:
 *   vec_dot  its dot product, which lk__type_table's dispatcher for the
 *            type calls (14.7s); NULL: the scalar reference
 *   tile     LK__TR weight rows (stride ws) x LK__TC activation columns
 *            (stride as) -> y[c * ys + r], running the variant `kind` of a
 *            kernel family (the families' enums, 14.7s); NULL: none
 *   tile1    the same family at LK__TR rows x 1 column
 *   kind     the variant tile and tile1 run (0 for families of one type)
 *   r8       the type's interleaved-row layout (LK_LAYOUT_R8, 14.7r):
 *            elements per block (0: no layout), bytes of a group's block,
 *            the repack of one group, the scalar reference kernel
 *   r8_simd  the SIMD kernel of that layout; NULL: the reference runs, and
 *            lk_model_load_* keeps the type's matrices in rows */
#define LK__TR 4
#define LK__TC 4
typedef void (*lk__tile_fn)(int64_t n, const unsigned char *w, size_t ws, const unsigned char *a, size_t as, float *y, int64_t ys, int kind);
/* 8 rows (group g) x C <= LK__R8_NC columns (stride as) -> y[c * ys + r];
 * for q8_0 columns ysum[2 (c nbk + i)] = 8 * (sum of column c's block i
 * quants), for kernels that fold the -8 offset in at the end, and
 * ysum[2 (c nbk + i) + 1] = the block's d as f32 (its bits) */
typedef void (*lk__r8_fn)(int64_t n, const unsigned char *g, const unsigned char *a, size_t as, const int32_t *ysum, int64_t nbk,
                          float *y, int64_t ys, int C);
/* one group of 8 rows (row_bytes apart) of nb layout blocks -> dst */
typedef void (*lk__repack_fn)(const unsigned char *src, size_t row_bytes, unsigned char *dst, int64_t nb);
typedef struct lk__r8_layout { int64_t qk; size_t blk; lk__repack_fn repack; lk__r8_fn ref; } lk__r8_layout;
typedef struct lk__kernels {
    lk_vec_dot_fn vec_dot;
    lk__tile_fn tile, tile1;
    int kind;
    lk__r8_layout r8;
    lk__r8_fn r8_simd;
} lk__kernels;
static const lk__kernels *lk__kernels_of(lk_type type);   /* the type's row (an all-NULL row for unknown types) */

LK__STRICT_FP_BEGIN

/* block sizes must match ggml exactly (C99 static assert) */
#define LK__BLOCK_BYTES(t, n) typedef char lk__chk_##t[sizeof(lk_block_##t) == n ? 1 : -1];
LK__BLOCK_BYTES(q4_0, 18) LK__BLOCK_BYTES(q4_1, 20) LK__BLOCK_BYTES(q5_0, 22) LK__BLOCK_BYTES(q5_1, 24) LK__BLOCK_BYTES(q8_0, 34) LK__BLOCK_BYTES(q8_1, 36)
LK__BLOCK_BYTES(q2_K, 84) LK__BLOCK_BYTES(q3_K, 110) LK__BLOCK_BYTES(q4_K, 144) LK__BLOCK_BYTES(q5_K, 176) LK__BLOCK_BYTES(q6_K, 210) LK__BLOCK_BYTES(q8_K, 292)
#undef LK__BLOCK_BYTES

/* ---- scalar float conversions ------------------------------------------ */
static uint32_t lk__f32_bits(float f) { uint32_t u; memcpy(&u, &f, sizeof u); return u; }
static float lk__f32_from_bits(uint32_t u) { float f; memcpy(&f, &u, sizeof f); return f; }

LKDEF float lk_fp16_to_fp32(uint16_t h) {
#if defined(LK__X86)
    return _cvtsh_ss(h);        /* F16C: the same exact conversion, one instruction */
#elif !defined(LLMKIT_NO_SIMD) && defined(__ARM_FP16_FORMAT_IEEE) && defined(__ARM_FP)
    __fp16 x;                   /* Arm's half-precision conversion instruction: exact; inf / NaN */
    if ((h & 0x7c00u) == 0x7c00u)   /* below (the hardware would quiet a signalling NaN) */
        return lk__f32_from_bits((uint32_t)(h & 0x8000u) << 16 | 0x7f800000u | (uint32_t)(h & 0x3ffu) << 13);
    memcpy(&x, &h, sizeof x);
    return (float)x;
#else
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
    if (e == 0x1f) return lk__f32_from_bits(sign | 0x7f800000u | (m << 13));    /* inf, nan */
    if (e == 0) {                                   /* zero / subnormal: m * 2^-24 (exact) */
        float v = (float)m * 5.9604644775390625e-8f;
        return sign ? -v : v;
    }
    return lk__f32_from_bits(sign | ((e + 112u) << 23) | (m << 13));          /* rebias 15 -> 127 */
#endif
}

/* Round to nearest even, as ggml's portable conversion (the one its
 * quantizers use): NaN -> 0x7e00 with the sign, overflow -> inf. */
LKDEF uint16_t lk_fp32_to_fp16(float f) {
    uint32_t u = lk__f32_bits(f);
    uint32_t sign = (u >> 16) & 0x8000u, a = u & 0x7fffffffu, r, rem;
    if (a > 0x7f800000u) return (uint16_t)(sign | 0x7e00u);                 /* NaN */
    if (a >= 0x477ff000u) return (uint16_t)(sign | 0x7c00u);                /* >= 65520: inf */
    if (a < 0x38800000u) {                                                   /* < 2^-14: subnormal */
        uint32_t e = a >> 23, m, shift, half;
        if (a <= 0x33000000u) return (uint16_t)sign;                         /* <= 2^-25: 0 (tie -> even) */
        m = (a & 0x7fffffu) | 0x800000u;                                     /* value = m * 2^(e-150) */
        shift = 126u - e;                                                    /* units of 2^-24: 14..24 */
        r = m >> shift;
        rem = m & ((1u << shift) - 1u);
        half = 1u << (shift - 1u);
        if (rem > half || (rem == half && (r & 1u))) r++;
        return (uint16_t)(sign | r);
    }
    r = (a - 0x38000000u) >> 13;                                             /* rebias 127 -> 15 */
    rem = a & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (r & 1u))) r++;                  /* may carry into exp */
    return (uint16_t)(sign | r);
}

LKDEF float lk_bf16_to_fp32(uint16_t h) { return lk__f32_from_bits((uint32_t)h << 16); }
LKDEF uint16_t lk_fp32_to_bf16(float f) {
    uint32_t u = lk__f32_bits(f);
    if ((u & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((u >> 16) | 64u);  /* quiet NaN */
    return (uint16_t)((u + (0x7fffu + ((u >> 16) & 1u))) >> 16);             /* nearest even */
}

#define LK__H2F(h) lk_fp16_to_fp32(h)
#define LK__F2H(f) lk_fp32_to_fp16(f)

/* ---- float rows ---------------------------------------------------------- */
static void lk__to_float_f32(const void *x, float *y, int64_t n) { memcpy(y, x, (size_t)n * sizeof(float)); }
static void lk__from_float_f32(const float *x, void *y, int64_t n) { memcpy(y, x, (size_t)n * sizeof(float)); }
static void lk__to_float_f16(const void *vx, float *y, int64_t n) {
    const uint16_t *x = LK__CAST(const uint16_t *, vx);
    int64_t i;
    for (i = 0; i < n; i++) y[i] = LK__H2F(x[i]);
}
static LK__UNUSED void lk__from_float_f16_ref(const float *x, void *vy, int64_t n) {
    uint16_t *y = LK__CAST(uint16_t *, vy);
    int64_t i;
    for (i = 0; i < n; i++) y[i] = LK__F2H(x[i]);
}
static void lk__to_float_bf16(const void *vx, float *y, int64_t n) {
    const uint16_t *x = LK__CAST(const uint16_t *, vx);
    int64_t i;
    for (i = 0; i < n; i++) y[i] = lk_bf16_to_fp32(x[i]);
}
static void lk__from_float_bf16(const float *x, void *vy, int64_t n) {
    uint16_t *y = LK__CAST(uint16_t *, vy);
    int64_t i;
    for (i = 0; i < n; i++) y[i] = lk_fp32_to_bf16(x[i]);
}
/* f32 / f16 dots in the order of llama.cpp's x86 AVX-512 build, which the
 * fixtures come from (SIMD: lk__vd_f32_x86 / lk__vd_f16_x86, the tile
 * kernels of 14.7s, and lk__dot64):
 *   n % 16 == 0: llamafile's tinyBLAS. Element i goes to lane i % 16 by
 *     fused multiply-add; the lanes are reduced as _mm512_reduce_add_ps
 *     (lk__hsum16: l + (8 + l), then 4 + l, then (0 + 2) + (1 + 3)).
 *   other n: ggml's vec_dot_f32 / vec_dot_f16 (tinyBLAS refuses such rows).
 *     Elements [0, n & ~63) go to accumulator (i / 16) % 4, lane i % 16, by
 *     fma; the accumulators are added (0 + 2), (1 + 3), then together, and
 *     reduced by lk__hsum16 (lk__dot64_ref). The remaining elements are
 *     added one by one: f32 rounds each product and adds it in float, f16
 *     adds the exact products in double (lk__vdot_tail).
 * llama.cpp sends one-column products (decode) through vec_dot for every n;
 * we keep tinyBLAS's order there too, so results do not depend on the
 * batch size. x, y: f16 bits when xh / yh, else floats. */
static float lk__ldf(const void *p, int h, int64_t i) {
    return h ? LK__H2F(LK__CAST(const uint16_t *, p)[i]) : LK__CAST(const float *, p)[i];
}
static float lk__hsum16(const float *a) {
    float t8[8], t4[4];
    int l;
    for (l = 0; l < 8; l++) t8[l] = a[8 + l] + a[l];
    for (l = 0; l < 4; l++) t4[l] = t8[4 + l] + t8[l];
    return (t4[0] + t4[2]) + (t4[1] + t4[3]);
}
/* n: a multiple of 64. SIMD: lk__dot64 (14.7s). */
static LK__UNUSED float lk__dot64_ref(const void *x, int xh, const void *y, int yh, int64_t n) {
    float a[4][16];
    int64_t i;
    int j, l;
    for (j = 0; j < 4; j++) for (l = 0; l < 16; l++) a[j][l] = 0.0f;
    for (i = 0; i < n; i += 64)
        for (j = 0; j < 4; j++)
            for (l = 0; l < 16; l++) a[j][l] = fmaf(lk__ldf(x, xh, i + 16 * j + l), lk__ldf(y, yh, i + 16 * j + l), a[j][l]);
    for (l = 0; l < 16; l++) { a[0][l] += a[2][l]; a[1][l] += a[3][l]; a[0][l] += a[1][l]; }
    return lk__hsum16(a[0]);
}
/* s + elements [i0, n) one by one: rounded products added in float, or
 * (dbl) in double */
static float lk__vdot_tail(float s, const void *x, int xh, const void *y, int yh, int64_t i0, int64_t n, int dbl) {
    const float *xf = LK__CAST(const float *, x), *yf = LK__CAST(const float *, y);
    double t = s;
    int64_t i;
    if (!dbl && !xh && !yh) {   /* f32 . f32, the common case */
        for (i = i0; i < n; i++) s = s + xf[i] * yf[i];
        return s;
    }
    if (!dbl) {
        for (i = i0; i < n; i++) s = s + lk__ldf(x, xh, i) * lk__ldf(y, yh, i);
        return s;
    }
    for (i = i0; i < n; i++) t += (double)(lk__ldf(x, xh, i) * lk__ldf(y, yh, i));
    return (float)t;
}
/* lk__vdot_tail (f32, not dbl) of four rows at once, their add chains
 * interleaved: s[r] + w_r[i] x[i] for i in [i0, n), in order */
static LK__UNUSED void lk__vdot_tail4_f32(float *s, const float *w0, const float *w1, const float *w2, const float *w3, const float *x, int64_t i0, int64_t n) {
    float s0 = s[0], s1 = s[1], s2 = s[2], s3 = s[3];
    int64_t i;
    for (i = i0; i < n; i++) { s0 = s0 + w0[i] * x[i]; s1 = s1 + w1[i] * x[i]; s2 = s2 + w2[i] * x[i]; s3 = s3 + w3[i] * x[i]; }
    s[0] = s0; s[1] = s1; s[2] = s2; s[3] = s3;
}
#if defined(LK__X86)
/* transpose 8 rows of 8 floats in registers: afterwards r<i> holds column i
 * (also used by the head_dim 8 attention of 14.9; #undef there) */
#define LK__TR8(r0, r1, r2, r3, r4, r5, r6, r7) do { \
            __m256 t0_ = _mm256_unpacklo_ps(r0, r1), t1_ = _mm256_unpackhi_ps(r0, r1), t2_ = _mm256_unpacklo_ps(r2, r3), t3_ = _mm256_unpackhi_ps(r2, r3); \
            __m256 t4_ = _mm256_unpacklo_ps(r4, r5), t5_ = _mm256_unpackhi_ps(r4, r5), t6_ = _mm256_unpacklo_ps(r6, r7), t7_ = _mm256_unpackhi_ps(r6, r7); \
            __m256 u0_ = _mm256_shuffle_ps(t0_, t2_, 0x44), u1_ = _mm256_shuffle_ps(t0_, t2_, 0xEE), u2_ = _mm256_shuffle_ps(t1_, t3_, 0x44), u3_ = _mm256_shuffle_ps(t1_, t3_, 0xEE); \
            __m256 u4_ = _mm256_shuffle_ps(t4_, t6_, 0x44), u5_ = _mm256_shuffle_ps(t4_, t6_, 0xEE), u6_ = _mm256_shuffle_ps(t5_, t7_, 0x44), u7_ = _mm256_shuffle_ps(t5_, t7_, 0xEE); \
            r0 = _mm256_permute2f128_ps(u0_, u4_, 0x20); r1 = _mm256_permute2f128_ps(u1_, u5_, 0x20); \
            r2 = _mm256_permute2f128_ps(u2_, u6_, 0x20); r3 = _mm256_permute2f128_ps(u3_, u7_, 0x20); \
            r4 = _mm256_permute2f128_ps(u0_, u4_, 0x31); r5 = _mm256_permute2f128_ps(u1_, u5_, 0x31); \
            r6 = _mm256_permute2f128_ps(u2_, u6_, 0x31); r7 = _mm256_permute2f128_ps(u3_, u7_, 0x31); } while (0)
#endif
/* lk__vdot_tail (f32, not dbl) of eight rows w + r ws (r < 8) at once:
 * s[r] + w_r[i] x[i] for i in [i0, n), in order. x86: the rows are the 8
 * lanes of one vector, each step the same rounded multiply and add per
 * lane (8 x 8 blocks of the rows transposed in registers, the last one
 * loaded under a mask), so one add chain serves eight rows. G groups of
 * eight rows (1 or 2, a constant at each call: lk__vdot_tail8_f32,
 * lk__f32_rows_g); two groups' chains interleave, so that one runs while
 * the other waits. Named registers, not arrays: an array indexed by
 * a variable would live on the stack. */
/* LK__AINL: inlined into each caller, so that constant arguments select code; LK__UNROLL: unroll the next loop */
#if (defined(__GNUC__) || defined(__clang__)) && !defined(__CUDACC__)
#define LK__AINL static inline __attribute__((always_inline))
#define LK__UNROLL _Pragma("GCC unroll 8")
#elif defined(__GNUC__)   /* nvcc's front end knows no GCC pragmas (host code of a .cu file) */
#define LK__AINL static inline __attribute__((always_inline))
#define LK__UNROLL
#else
#define LK__AINL static
#define LK__UNROLL
#endif
#if defined(LK__X86)
LK__AINL void lk__vdot_tail_g_f32(float *s, const float *w, size_t ws, const float *x, int64_t i0, int64_t n, int G) {
    const __m256i iota = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    const size_t w8 = 8 * ws;
    const float *w1 = w + ws, *w2 = w1 + ws, *w3 = w2 + ws, *w4 = w3 + ws, *w5 = w4 + ws, *w6 = w5 + ws, *w7 = w6 + ws;
    const __m256 z = _mm256_setzero_ps();
    __m256 acc = _mm256_loadu_ps(s), acd = G == 2 ? _mm256_loadu_ps(s + 8) : z;
    __m256 r0, r1, r2, r3, r4, r5, r6, r7, q0 = z, q1 = z, q2 = z, q3 = z, q4 = z, q5 = z, q6 = z, q7 = z;
    __m256i k = _mm256_setzero_si256();
    int64_t i;
#define LK__FULL(p) _mm256_loadu_ps((p) + i)
#define LK__PART(p) _mm256_maskload_ps((p) + i, k)
#define LK__LDG(R, o, L) do { R##0 = L(w + (o)); R##1 = L(w1 + (o)); R##2 = L(w2 + (o)); R##3 = L(w3 + (o)); \
                              R##4 = L(w4 + (o)); R##5 = L(w5 + (o)); R##6 = L(w6 + (o)); R##7 = L(w7 + (o)); \
                              LK__TR8(R##0, R##1, R##2, R##3, R##4, R##5, R##6, R##7); } while (0)   /* R<c> = element i + c of the rows */
#define LK__STEP(c) do { const __m256 x_ = _mm256_set1_ps(x[i + (c)]); acc = _mm256_add_ps(acc, _mm256_mul_ps(r##c, x_)); \
                         if (G == 2) acd = _mm256_add_ps(acd, _mm256_mul_ps(q##c, x_)); } while (0)
    for (i = i0; i + 8 <= n; i += 8) {
        LK__LDG(r, 0, LK__FULL);
        if (G == 2) LK__LDG(q, w8, LK__FULL);
        LK__STEP(0); LK__STEP(1); LK__STEP(2); LK__STEP(3); LK__STEP(4); LK__STEP(5); LK__STEP(6); LK__STEP(7);
    }
    if (i < n) {   /* the last m < 8 elements */
        const int m = (int)(n - i);
        k = _mm256_cmpgt_epi32(_mm256_set1_epi32(m), iota);
        LK__LDG(r, 0, LK__PART);
        if (G == 2) LK__LDG(q, w8, LK__PART);
        LK__STEP(0);
        if (m > 1) LK__STEP(1);
        if (m > 2) LK__STEP(2);
        if (m > 3) LK__STEP(3);
        if (m > 4) LK__STEP(4);
        if (m > 5) LK__STEP(5);
        if (m > 6) LK__STEP(6);
    }
#undef LK__STEP
#undef LK__LDG
#undef LK__PART
#undef LK__FULL
    _mm256_storeu_ps(s, acc);
    if (G == 2) _mm256_storeu_ps(s + 8, acd);
}
#endif
static LK__UNUSED void lk__vdot_tail8_f32(float *s, const float *w, size_t ws, const float *x, int64_t i0, int64_t n) {
#if defined(LK__X86)
    lk__vdot_tail_g_f32(s, w, ws, x, i0, n, 1);
#else
    int r;
    int64_t i;
    for (r = 0; r < 8; r++) for (i = i0; i < n; i++) s[r] = s[r] + w[(size_t)r * ws + i] * x[i];
#endif
}
static float lk__vdot_flt_ref(int64_t n, const void *x, int xh, const void *y, int yh, int dbl) {
    float a[16];
    int64_t i;
    if (n % 16 == 0) {
        for (i = 0; i < 16; i++) a[i] = 0.0f;
        for (i = 0; i < n; i++) a[i & 15] = fmaf(lk__ldf(x, xh, i), lk__ldf(y, yh, i), a[i & 15]);
        return lk__hsum16(a);
    }
    return lk__vdot_tail((n & ~(int64_t)63) ? lk__dot64_ref(x, xh, y, yh, n & ~(int64_t)63) : 0.0f, x, xh, y, yh, n & ~(int64_t)63, n, dbl);
}
/* SIMD: lk__vd_f32_x86 / lk__vd_f16_x86 (x86; AVX-512 tiles: lk__tile_flt_x86), lk__vd_f32_arm / lk__vd_f16_arm (NEON) */
static LK__UNUSED void lk__vec_dot_f32_ref(int64_t n, float *s, const void *vx, const void *vy) { *s = lk__vdot_flt_ref(n, vx, 0, vy, 0, 0); }
static LK__UNUSED void lk__vec_dot_f16_ref(int64_t n, float *s, const void *vx, const void *vy) { *s = lk__vdot_flt_ref(n, vx, 1, vy, 1, 1); }
/* bf16 . bf16. Rows that are a multiple of 32 use the arithmetic of the
 * x86 AVX512-BF16 dot-product instruction as llama.cpp's tinyBLAS drives it:
 * 16 fp32 lanes, lane j adds the (exact) products of elements 2j+1 then 2j
 * of every 32-element chunk, one rounding each, denormals flushed; then the
 * 16 lanes are summed pairwise (8 + 8, 4 + 4, 2 + 2, 1 + 1). Each step is
 * an explicit fma (lk__bf16_fma): a product of two bf16 values is exact
 * unless it is below FLT_MIN, so this is "round the product, then add" for
 * every product that is not tiny, and it does not depend on whether the
 * compiler contracts a * b + c (a tiny product is fused, never rounded on
 * its own). Other lengths accumulate in double. */
static float lk__ftz(float v) { return fabsf(v) < 1.17549435e-38f ? 0.0f * v : v; }
/* c + a b as one step of that instruction: rounded to nearest even, then
 * flushed to zero (sign kept) when tiny, tininess judged after rounding
 * with an unbounded exponent (x86's flush-to-zero). Measured on an AMD
 * EPYC's vdpbf16ps: FLT_MIN - 2^-150 gives 0, FLT_MIN - 2^-151 (a tie, to
 * even) and FLT_MIN - 2^-152 give FLT_MIN, FLT_MIN - 3 2^-152 gives 0.
 * fmaf rounds onto the denormal grid instead; the two differ only where
 * fmaf gives +-FLT_MIN for an exact sum below FLT_MIN - 2^-151, which is
 * decided exactly: the double product of two bf16 values is exact, a
 * two-sum gives p + c = s + err exactly, and s - T is exact (Sterbenz). */
static float lk__bf16_fma(float a, float b, float c) {
    const float r = fmaf(a, b, c);
    if (fabsf(r) == 1.17549435e-38f) {
        const double p = (double)a * (double)b, s = p + (double)c, bv = s - p;
        const double err = (p - (s - bv)) + ((double)c - bv), sg = r > 0.0f ? 1.0 : -1.0;
        const double T = 1.1754943157898259e-38;   /* FLT_MIN - 2^-151, exactly */
        return (sg * s - T) + sg * err < 0.0 ? 0.0f * r : r;
    }
    return lk__ftz(r);
}
static LK__UNUSED void lk__vec_dot_bf16_ref(int64_t n, float *s, const void *vx, const void *vy) {
    const uint16_t *x = LK__CAST(const uint16_t *, vx), *y = LK__CAST(const uint16_t *, vy);
    int64_t i;
    if (n % 32 == 0) {
        float acc[16] = { 0 }, t8[8], t4[4];
        int j;
        for (i = 0; i < n; i += 32)
            for (j = 0; j < 16; j++) {
                acc[j] = lk__bf16_fma(lk__ftz(lk_bf16_to_fp32(x[i + 2 * j + 1])), lk__ftz(lk_bf16_to_fp32(y[i + 2 * j + 1])), acc[j]);
                acc[j] = lk__bf16_fma(lk__ftz(lk_bf16_to_fp32(x[i + 2 * j])), lk__ftz(lk_bf16_to_fp32(y[i + 2 * j])), acc[j]);
            }
        for (j = 0; j < 8; j++) t8[j] = acc[8 + j] + acc[j];
        for (j = 0; j < 4; j++) t4[j] = t8[4 + j] + t8[j];
        *s = (t4[0] + t4[2]) + (t4[1] + t4[3]);
    } else {
        double sum = 0.0;
        for (i = 0; i < n; i++) sum += (double)(lk_bf16_to_fp32(x[i]) * lk_bf16_to_fp32(y[i]));
        *s = (float)sum;
    }
}

/* ---- legacy 32-element blocks ---------------------------------------------
 * float -> small int conversions below truncate like ggml's casts for every
 * finite in-range input and map NaN to 0 instead of undefined behaviour. */
static int lk__trunc_clamp(float v, int hi) {   /* (int)v for 0 <= v < hi+1, clamped */
    if (v >= (float)hi) return hi;
    if (v > 0.0f) return (int)v;
    return 0;
}
static int lk__round_i8(float v) {              /* roundf(v) clamped to int8 */
    if (v >= 127.0f) return 127;
    if (v <= -128.0f) return -128;
    if (v != v) return 0;
    return (int)roundf(v);
}

/* Legacy blocks, 32 weights each, byte layout (ggml):
 *   d f16 | m f16 (q4_1, q5_1) | qh u32 (q5_*) | qs[16]
 * weight j < 16 is the low nibble of qs[j], weight j + 16 its high nibble;
 * the 5-bit formats add bit j of qh as bit 4 of weight j.
 * Symmetric formats (q4_0, q5_0): x = d * (q - 2^(bits-1)); with a min
 * (q4_1, q5_1): x = d * q + m. */
static uint16_t lk__rd16(const uint8_t *p) { return (uint16_t)(p[0] | (p[1] << 8)); }
static void lk__wr16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }
static uint32_t lk__rd32(const uint8_t *p) {
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}
static int lk__legacy_bytes(int bits, int with_min) { return 18 + 2 * with_min + (bits == 5 ? 4 : 0); }
/* q[32] <- the levels of block b minus the format's offset (int8: -16..31) */
static void lk__legacy_unpack(const uint8_t *b, int bits, int with_min, int8_t q[32]) {
    const uint8_t *qs = b + lk__legacy_bytes(bits, with_min) - 16;
    uint32_t h = bits == 5 ? lk__rd32(b + 2 + 2 * with_min) : 0;
    int off = with_min ? 0 : 1 << (bits - 1), j;
    for (j = 0; j < 16; j++) {
        q[j] = (int8_t)((int)((qs[j] & 0xF) | (((h >> j) & 1u) << 4)) - off);
        q[j + 16] = (int8_t)((int)((qs[j] >> 4) | (((h >> (j + 16)) & 1u) << 4)) - off);
    }
}
/* ggml's quantize_row_q{4,5}_{0,1}_ref: the symmetric formats map the
 * largest magnitude to -2^(bits-1); the min formats spread [min, max] over
 * 2^bits - 1 steps. Levels truncate after +0.5 (+ the offset). */
static void lk__legacy_quantize(const float *x, void *vy, int64_t n, int bits, int with_min) {
    uint8_t *b = (uint8_t *)vy;
    const int nq = (1 << bits) - 1, bytes = lk__legacy_bytes(bits, with_min);
    int64_t i;
    int j;
    for (i = 0; i < n / 32; i++, x += 32, b += bytes) {
        uint8_t *qs = b + bytes - 16;
        float lo = 0.0f, add, d, id;
        uint32_t h = 0;
        if (with_min) {
            float max = -3.402823466e+38f;
            lo = 3.402823466e+38f;
            for (j = 0; j < 32; j++) {
                if (x[j] < lo) lo = x[j];
                if (x[j] > max) max = x[j];
            }
            d = (max - lo) / (float)nq;
            add = 0.5f;
            lk__wr16(b + 2, LK__F2H(lo));
        } else {
            float amax = 0.0f, max = 0.0f;
            for (j = 0; j < 32; j++)
                if (amax < fabsf(x[j])) { amax = fabsf(x[j]); max = x[j]; }
            d = max / (float)-(1 << (bits - 1));
            add = (float)(1 << (bits - 1)) + 0.5f;
        }
        id = d ? 1.0f / d : 0.0f;
        lk__wr16(b, LK__F2H(d));
        for (j = 0; j < 16; j++) {
            int q0 = lk__trunc_clamp((x[j] - lo) * id + add, nq);
            int q1 = lk__trunc_clamp((x[j + 16] - lo) * id + add, nq);
            qs[j] = (uint8_t)((q0 & 0xF) | ((q1 & 0xF) << 4));
            h |= (uint32_t)(q0 >> 4) << j | (uint32_t)(q1 >> 4) << (j + 16);
        }
        if (bits == 5) for (j = 0; j < 4; j++) b[2 + 2 * with_min + j] = (uint8_t)(h >> 8 * j);
    }
}
static void lk__legacy_dequantize(const void *vx, float *y, int64_t n, int bits, int with_min) {
    const uint8_t *b = (const uint8_t *)vx;
    const int bytes = lk__legacy_bytes(bits, with_min);
    int8_t q[32];
    int64_t i;
    int j;
    for (i = 0; i < n / 32; i++, b += bytes, y += 32) {
        float d = LK__H2F(lk__rd16(b)), m = with_min ? LK__H2F(lk__rd16(b + 2)) : 0.0f;
        lk__legacy_unpack(b, bits, with_min, q);
        for (j = 0; j < 32; j++) y[j] = with_min ? (float)q[j] * d + m : (float)q[j] * d;
    }
}
/* Sum of 8 float lanes in the order of an AVX 8-lane horizontal add:
 * (l0+l4 + l2+l6) + (l1+l5 + l3+l7). */
static float lk__hsum8(const float *l) {
    float t0 = l[4] + l[0], t1 = l[5] + l[1], t2 = l[6] + l[2], t3 = l[7] + l[3];
    return (t0 + t2) + (t1 + t3);
}
/* 8 lanes of ggml's x86 kernels: lane m = the integer sum of products
 * 4m..4m+3 of a block, acc[m] = fma(d, sum, acc[m]) */
static void lk__lanes8(const int8_t *a, const int8_t *b, float d, float acc[8]) {
    int m, k;
    for (m = 0; m < 8; m++) {
        int p = 0;
        for (k = 4 * m; k < 4 * m + 4; k++) p += a[k] * b[k];
        acc[m] = fmaf(d, (float)p, acc[m]);
    }
}
/* legacy . q8_0 (symmetric formats) or q8_1 (min formats), in the float
 * order of the ggml kernel llama.cpp runs for each:
 *   q4_0: sum += (float)isum * dx * dy            (ggml's reference)
 *   q5_0: sum += (dx * dy) * (float)isum          (ggml's reference)
 *   q5_1: sum += (dx * dy) * (float)isum + mx * sy
 *   q4_1: the x86 kernel's 8 lanes (lk__lanes8), the mx * sy terms summed
 *         apart (fma) and added after the horizontal sum: since
 *         sum(d*q + m)(dy*qy) = d*dy*sum(q*qy) + m*sy with sy = dy*sum(qy).
 * The q8 side: d f16 | s f16 (q8_1 only) | qs[32]. */
static void lk__legacy_dot(int64_t n, float *s, const void *vx, const void *vy, int bits, int with_min) {
    const uint8_t *x = (const uint8_t *)vx, *y = (const uint8_t *)vy;
    const int bytes = lk__legacy_bytes(bits, with_min), ybytes = 34 + 2 * with_min;
    float sum = 0.0f, acc[8] = { 0, 0, 0, 0, 0, 0, 0, 0 };
    int8_t q[32];
    int64_t i;
    int j;
    for (i = 0; i < n / 32; i++, x += bytes, y += ybytes) {
        const int8_t *qy = (const int8_t *)(y + ybytes - 32);
        float dx = LK__H2F(lk__rd16(x)), dy = LK__H2F(lk__rd16(y)), mx = 0.0f, sy = 0.0f;
        int isum = 0;
        if (with_min) { mx = LK__H2F(lk__rd16(x + 2)); sy = LK__H2F(lk__rd16(y + 2)); }
        lk__legacy_unpack(x, bits, with_min, q);
        if (bits == 4 && with_min) { lk__lanes8(q, qy, dx * dy, acc); sum = fmaf(mx, sy, sum); continue; }
        for (j = 0; j < 32; j++) isum += q[j] * qy[j];
        if (bits == 4) sum += (float)isum * dx * dy;
        else if (!with_min) sum += (dx * dy) * (float)isum;
        else sum += (dx * dy) * (float)isum + mx * sy;
    }
    *s = bits == 4 && with_min ? lk__hsum8(acc) + sum : sum;
}
/* q8_0: d f16 | qs[32];  q8_1: d f16 | s f16 = f16(d * sum(qs)) | qs[32].
 * d = amax / 127, levels round to nearest (ggml quantize_row_q8_{0,1}_ref). */
static void lk__q8_quantize(const float *x, void *vy, int64_t n, int with_sum) {
    uint8_t *b = (uint8_t *)vy;
    const int bytes = 34 + 2 * with_sum;
    int64_t i;
    int j;
    for (i = 0; i < n / 32; i++, x += 32, b += bytes) {
        int8_t *qs = (int8_t *)(b + bytes - 32);
        float amax = 0.0f, d, id;
        int sum = 0;
        for (j = 0; j < 32; j++) amax = amax > fabsf(x[j]) ? amax : fabsf(x[j]);
        d = amax / 127;
        id = d ? 1.0f / d : 0.0f;
        lk__wr16(b, LK__F2H(d));
        for (j = 0; j < 32; j++) {
            qs[j] = (int8_t)lk__round_i8(x[j] * id);
            sum += qs[j];
        }
        if (with_sum) lk__wr16(b + 2, LK__F2H((float)sum * d));   /* the unrounded d, as ggml */
    }
}
static void lk__q8_dequantize(const void *vx, float *y, int64_t n, int with_sum) {
    const uint8_t *b = (const uint8_t *)vx;
    const int bytes = 34 + 2 * with_sum;
    int64_t i;
    int j;
    for (i = 0; i < n / 32; i++, b += bytes, y += 32) {
        const int8_t *qs = (const int8_t *)(b + bytes - 32);
        float d = LK__H2F(lk__rd16(b));
        for (j = 0; j < 32; j++) y[j] = (float)qs[j] * d;
    }
}

/* The legacy formats' entries in the type table. SIMD kernels: lk__vd_<type>_t
 * (x86; q4_0 and q8_0 also lk__vd_<type>_arm, NEON, and lk__vd_<type>_mve /
 * _dsp, Cortex-M); the kernel table (14.7s) picks. */
static void lk__quantize_row_q4_0(const float *x, void *y, int64_t n) { lk__legacy_quantize(x, y, n, 4, 0); }
static void lk__quantize_row_q8_0(const float *x, void *y, int64_t n) { lk__q8_quantize(x, y, n, 0); }
#ifndef LLMKIT_NO_QUANTIZE
static void lk__quantize_row_q4_1(const float *x, void *y, int64_t n) { lk__legacy_quantize(x, y, n, 4, 1); }
static void lk__quantize_row_q5_0(const float *x, void *y, int64_t n) { lk__legacy_quantize(x, y, n, 5, 0); }
static void lk__quantize_row_q5_1(const float *x, void *y, int64_t n) { lk__legacy_quantize(x, y, n, 5, 1); }
static void lk__quantize_row_q8_1(const float *x, void *y, int64_t n) { lk__q8_quantize(x, y, n, 1); }
#endif
static void lk__dequantize_row_q4_0(const void *x, float *y, int64_t n) { lk__legacy_dequantize(x, y, n, 4, 0); }
static void lk__dequantize_row_q4_1(const void *x, float *y, int64_t n) { lk__legacy_dequantize(x, y, n, 4, 1); }
static void lk__dequantize_row_q5_0(const void *x, float *y, int64_t n) { lk__legacy_dequantize(x, y, n, 5, 0); }
static void lk__dequantize_row_q5_1(const void *x, float *y, int64_t n) { lk__legacy_dequantize(x, y, n, 5, 1); }
static void lk__dequantize_row_q8_0(const void *x, float *y, int64_t n) { lk__q8_dequantize(x, y, n, 0); }
static void lk__dequantize_row_q8_1(const void *x, float *y, int64_t n) { lk__q8_dequantize(x, y, n, 1); }
static LK__UNUSED void lk__vec_dot_q4_0_q8_0_ref(int64_t n, float *s, const void *x, const void *y) { lk__legacy_dot(n, s, x, y, 4, 0); }
static LK__UNUSED void lk__vec_dot_q4_1_q8_1_ref(int64_t n, float *s, const void *x, const void *y) { lk__legacy_dot(n, s, x, y, 4, 1); }
static LK__UNUSED void lk__vec_dot_q5_0_q8_0_ref(int64_t n, float *s, const void *x, const void *y) { lk__legacy_dot(n, s, x, y, 5, 0); }
static LK__UNUSED void lk__vec_dot_q5_1_q8_1_ref(int64_t n, float *s, const void *x, const void *y) { lk__legacy_dot(n, s, x, y, 5, 1); }
/* q8_0 . q8_0 with the arithmetic of ggml's x86 kernels (llamafile's
 * tinyBLAS, which llama.cpp uses for q8_0 weights): lk__lanes8 across
 * blocks, then an 8-lane horizontal add. Matching the rounding makes our
 * logits follow llama.cpp's bit for bit where the inputs agree. */
static LK__UNUSED void lk__vec_dot_q8_0_q8_0_ref(int64_t n, float *s, const void *vx, const void *vy) {
    const uint8_t *x = (const uint8_t *)vx, *y = (const uint8_t *)vy;
    float acc[8] = { 0, 0, 0, 0, 0, 0, 0, 0 };
    int64_t i;
    for (i = 0; i < n / 32; i++, x += 34, y += 34)
        lk__lanes8((const int8_t *)(x + 2), (const int8_t *)(y + 2), LK__H2F(lk__rd16(x)) * LK__H2F(lk__rd16(y)), acc);
    *s = lk__hsum8(acc);
}

/* ---- K-quants: 256-element super-blocks ------------------------------------ */
/* Round to nearest (ties to even) through the float mantissa, exactly as
 * ggml's nearest_int; valid for |f| < 2^22 (larger or non-finite inputs
 * give some int, and callers clamp it). */
static int lk__nearest_int(float f) {
    float v = f + 12582912.f;               /* 1.5 * 2^23 */
    int32_t i;
    memcpy(&i, &v, sizeof i);
    return (i & 0x007fffff) - 0x00400000;
}
#define LK__GROUP_MAX_EPS 1e-15f
static int lk__clampi(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }

/* Symmetric quantization of n values to [-nmax, nmax) with weights x^2
 * (ggml make_qx_quants, rmse_type 1, no importance): try 19 scales around
 * nmax/max and keep the best least-squares one. L[i] = l + nmax. */
#ifndef LLMKIT_NO_QUANTIZE
static float lk__make_qx_quants(int n, int nmax, const float *x, int8_t *L) {
    float max = 0, amax = 0, iscale, sumlx = 0, suml2 = 0, scale, best;
    int i, is;
    for (i = 0; i < n; i++)
        if (fabsf(x[i]) > amax) { amax = fabsf(x[i]); max = x[i]; }
    if (amax < LK__GROUP_MAX_EPS) { for (i = 0; i < n; i++) L[i] = 0; return 0.f; }
    iscale = -(float)nmax / max;
    for (i = 0; i < n; i++) {
        int l = lk__clampi(lk__nearest_int(iscale * x[i]), -nmax, nmax - 1);
        float w = x[i] * x[i];
        L[i] = (int8_t)(l + nmax);
        sumlx += w * x[i] * (float)l;
        suml2 += w * (float)l * (float)l;
    }
    scale = suml2 ? sumlx / suml2 : 0.0f;
    best = scale * sumlx;
    for (is = -9; is <= 9; is++) {
        if (is == 0) continue;
        iscale = -((float)nmax + 0.1f * (float)is) / max;
        sumlx = suml2 = 0;
        for (i = 0; i < n; i++) {
            int l = lk__clampi(lk__nearest_int(iscale * x[i]), -nmax, nmax - 1);
            float w = x[i] * x[i];
            sumlx += w * x[i] * (float)l;
            suml2 += w * (float)l * (float)l;
        }
        if (suml2 > 0 && sumlx * sumlx > best * suml2) {
            for (i = 0; i < n; i++)
                L[i] = (int8_t)(nmax + lk__clampi(lk__nearest_int(iscale * x[i]), -nmax, nmax - 1));
            scale = sumlx / suml2;
            best = scale * sumlx;
        }
    }
    return scale;
}
#endif

/* Symmetric 3-bit search (ggml make_q3_quants with rmse): start from
 * nmax/max, then up to 5 passes of coordinate descent on single levels.
 * L[i] = l + nmax in [0, 2*nmax). */
#ifndef LLMKIT_NO_QUANTIZE
static float lk__make_q3_quants(int n, int nmax, const float *x, int8_t *L) {
    float max = 0, amax = 0, iscale, sumlx = 0, suml2 = 0;
    int i, itry;
    for (i = 0; i < n; i++)
        if (fabsf(x[i]) > amax) { amax = fabsf(x[i]); max = x[i]; }
    if (amax < LK__GROUP_MAX_EPS) { for (i = 0; i < n; i++) L[i] = 0; return 0.f; }
    iscale = -(float)nmax / max;
    for (i = 0; i < n; i++) {
        int l = lk__clampi(lk__nearest_int(iscale * x[i]), -nmax, nmax - 1);
        float w = x[i] * x[i];
        L[i] = (int8_t)l;
        sumlx += w * x[i] * (float)l;
        suml2 += w * (float)l * (float)l;
    }
    for (itry = 0; itry < 5; itry++) {
        int n_changed = 0;
        for (i = 0; i < n; i++) {
            float w = x[i] * x[i];
            float slx = sumlx - w * x[i] * (float)L[i];
            if (slx > 0) {
                float sl2 = suml2 - w * (float)L[i] * (float)L[i];
                int new_l = lk__clampi(lk__nearest_int(x[i] * sl2 / slx), -nmax, nmax - 1);
                if (new_l != L[i]) {
                    slx += w * x[i] * (float)new_l;
                    sl2 += w * (float)new_l * (float)new_l;
                    if (sl2 > 0 && slx * slx * suml2 > sumlx * sumlx * sl2) {
                        L[i] = (int8_t)new_l; sumlx = slx; suml2 = sl2;
                        n_changed++;
                    }
                }
            }
        }
        if (!n_changed) break;
    }
    for (i = 0; i < n; i++) L[i] = (int8_t)(L[i] + nmax);
    return sumlx / suml2;
}
#endif

/* Asymmetric search x ~ scale*L - min with weights (ggml make_qkx2_quants):
 * try nstep+1 grid scales (rmin + rdelta*is + nmax)/(max - min), solve the
 * weighted least squares for (scale, min) for each and keep the smallest
 * weighted error (|diff| if use_mad, else diff^2). *the_min = -min >= 0. */
#ifndef LLMKIT_NO_QUANTIZE
static float lk__make_qkx2_quants(int n, int nmax, const float *x, const float *w, uint8_t *L, float *the_min,
                                  uint8_t *Laux, float rmin, float rdelta, int nstep, int use_mad) {
    float min = x[0], max = x[0], sum_w = w[0], sum_x = sum_w * x[0], iscale, scale, best_mad = 0;
    int i, is;
    for (i = 1; i < n; i++) {
        if (x[i] < min) min = x[i];
        if (x[i] > max) max = x[i];
        sum_w += w[i];
        sum_x += w[i] * x[i];
    }
    if (min > 0) min = 0;
    if (max == min) {
        for (i = 0; i < n; i++) L[i] = 0;
        *the_min = -min;
        return 0.f;
    }
    iscale = (float)nmax / (max - min);
    scale = 1 / iscale;
    for (i = 0; i < n; i++) {
        float diff;
        L[i] = (uint8_t)lk__clampi(lk__nearest_int(iscale * (x[i] - min)), 0, nmax);
        diff = scale * (float)L[i] + min - x[i];
        diff = use_mad ? fabsf(diff) : diff * diff;
        best_mad += w[i] * diff;
    }
    for (is = 0; is <= nstep; is++) {
        float sum_l = 0, sum_l2 = 0, sum_xl = 0, D;
        iscale = (rmin + rdelta * (float)is + (float)nmax) / (max - min);
        for (i = 0; i < n; i++) {
            int l = lk__clampi(lk__nearest_int(iscale * (x[i] - min)), 0, nmax);
            Laux[i] = (uint8_t)l;
            sum_l += w[i] * (float)l;
            sum_l2 += w[i] * (float)l * (float)l;
            sum_xl += w[i] * (float)l * x[i];
        }
        D = sum_w * sum_l2 - sum_l * sum_l;
        if (D > 0) {
            float this_scale = (sum_w * sum_xl - sum_x * sum_l) / D;
            float this_min = (sum_l2 * sum_x - sum_l * sum_xl) / D;
            float mad = 0;
            if (this_min > 0) {
                this_min = 0;
                this_scale = sum_xl / sum_l2;
            }
            for (i = 0; i < n; i++) {
                float diff = this_scale * (float)Laux[i] + this_min - x[i];
                diff = use_mad ? fabsf(diff) : diff * diff;
                mad += w[i] * diff;
            }
            if (mad < best_mad) {
                for (i = 0; i < n; i++) L[i] = Laux[i];
                best_mad = mad;
                scale = this_scale;
                min = this_min;
            }
        }
    }
    *the_min = -min;
    return scale;
}
#endif

/* 6-bit scale j and min j of q4_K / q5_K: bytes 0-3 scales, 4-7 mins (low
 * 6 bits) for j < 4; for j >= 4 low nibbles in bytes 8-11 and the top two
 * bits in the spare bits 6-7 of bytes j-4 (scale) and j (min). */
static void lk__get_scale_min_k4(int j, const uint8_t *q, uint8_t *d, uint8_t *m) {
    if (j < 4) {
        *d = q[j] & 63; *m = q[j + 4] & 63;
    } else {
        *d = (uint8_t)((q[j + 4] & 0xF) | ((q[j - 4] >> 6) << 4));
        *m = (uint8_t)((q[j + 4] >> 4) | ((q[j] >> 6) << 4));
    }
}
#ifndef LLMKIT_NO_QUANTIZE
static void lk__set_scale_min_k4(int j, uint8_t *q, int ls, int lm) {   /* q zeroed first for j >= 4 */
    if (j < 4) {
        q[j] = (uint8_t)ls; q[j + 4] = (uint8_t)lm;
    } else {
        q[j + 4] = (uint8_t)((ls & 0xF) | ((lm & 0xF) << 4));
        q[j - 4] |= (uint8_t)((ls >> 4) << 6);
        q[j] |= (uint8_t)((lm >> 4) << 6);
    }
}
#endif
/* 6-bit scale j (0..15) of q3_K, minus 32 */
static int lk__q3k_scale(const uint8_t *s, int j) {
    int lo = j < 8 ? (s[j] & 0xF) : (s[j - 8] >> 4);
    int hi = (s[8 + (j & 3)] >> (2 * (j / 4))) & 3;
    return (lo | (hi << 4)) - 32;
}
/* 2-bit packing shared by q2_K / q3_K: within each 128, byte l holds
 * L[l], L[l+32], L[l+64], L[l+96] in bits 0-1, 2-3, 4-5, 6-7. */
#ifndef LLMKIT_NO_QUANTIZE
static void lk__pack_2bit(const uint8_t *L, uint8_t *qs) {
    int j, l;
    for (j = 0; j < LK_QK_K; j += 128)
        for (l = 0; l < 32; l++)
            qs[j / 4 + l] = (uint8_t)(L[j + l] | (L[j + l + 32] << 2) | (L[j + l + 64] << 4) | (L[j + l + 96] << 6));
}

static void lk__quantize_row_q2_K(const float *x, void *vy, int64_t n) {
    lk_block_q2_K *y = LK__CAST(lk_block_q2_K *, vy);
    int64_t i, nb = n / LK_QK_K;
    uint8_t L[LK_QK_K], Laux[16];
    float w[16], mins[16], scales[16];
    const float q4scale = 15.f;
    int j, l;
    for (i = 0; i < nb; i++, x += LK_QK_K) {
        float max_scale = 0, max_min = 0;
        for (j = 0; j < 16; j++) {
            for (l = 0; l < 16; l++) w[l] = fabsf(x[16 * j + l]);
            scales[j] = lk__make_qkx2_quants(16, 3, x + 16 * j, w, L + 16 * j, &mins[j], Laux, -0.5f, 0.1f, 15, 1);
            if (scales[j] > max_scale) max_scale = scales[j];
            if (mins[j] > max_min) max_min = mins[j];
        }
        if (max_scale > 0) {
            float iscale = q4scale / max_scale;
            for (j = 0; j < 16; j++) y[i].scales[j] = (uint8_t)lk__nearest_int(iscale * scales[j]);
            y[i].d = LK__F2H(max_scale / q4scale);
        } else {
            for (j = 0; j < 16; j++) y[i].scales[j] = 0;
            y[i].d = LK__F2H(0.f);
        }
        if (max_min > 0) {
            float iscale = q4scale / max_min;
            for (j = 0; j < 16; j++) y[i].scales[j] |= (uint8_t)(lk__nearest_int(iscale * mins[j]) << 4);
            y[i].dmin = LK__F2H(max_min / q4scale);
        } else {
            y[i].dmin = LK__F2H(0.f);
        }
        for (j = 0; j < 16; j++) {   /* requantize with the rounded scales */
            float d = LK__H2F(y[i].d) * (float)(y[i].scales[j] & 0xF), dm;
            if (!d) continue;
            dm = LK__H2F(y[i].dmin) * (float)(y[i].scales[j] >> 4);
            for (l = 0; l < 16; l++)
                L[16 * j + l] = (uint8_t)lk__clampi(lk__nearest_int((x[16 * j + l] + dm) / d), 0, 3);
        }
        lk__pack_2bit(L, y[i].qs);
    }
}
#endif
static void lk__dequantize_row_q2_K(const void *vx, float *y, int64_t n) {
    const lk_block_q2_K *x = LK__CAST(const lk_block_q2_K *, vx);
    int64_t i, nb = n / LK_QK_K;
    for (i = 0; i < nb; i++) {
        float d = LK__H2F(x[i].d), min = LK__H2F(x[i].dmin);
        const uint8_t *q = x[i].qs;
        int is = 0, half, shift, l;
        for (half = 0; half < 2; half++, q += 32) {          /* 128 elements each */
            for (shift = 0; shift < 8; shift += 2) {         /* 32 elements, 2 scales */
                uint8_t sc = x[i].scales[is++];
                float dl = d * (float)(sc & 0xF), ml = min * (float)(sc >> 4);
                for (l = 0; l < 16; l++) *y++ = dl * (float)((q[l] >> shift) & 3) - ml;
                sc = x[i].scales[is++];
                dl = d * (float)(sc & 0xF); ml = min * (float)(sc >> 4);
                for (l = 0; l < 16; l++) *y++ = dl * (float)((q[l + 16] >> shift) & 3) - ml;
            }
        }
    }
}

#ifndef LLMKIT_NO_QUANTIZE
static void lk__quantize_row_q3_K(const float *x, void *vy, int64_t n) {
    lk_block_q3_K *y = LK__CAST(lk_block_q3_K *, vy);
    int64_t i, nb = n / LK_QK_K;
    int8_t L[LK_QK_K];
    float scales[16];
    int j, l;
    for (i = 0; i < nb; i++, x += LK_QK_K) {
        float max_scale = 0, amax = 0;
        int m;
        uint8_t hm;
        for (j = 0; j < 16; j++) {
            scales[j] = lk__make_q3_quants(16, 4, x + 16 * j, L + 16 * j);
            if (fabsf(scales[j]) > amax) { amax = fabsf(scales[j]); max_scale = scales[j]; }
        }
        memset(y[i].scales, 0, 12);
        if (max_scale) {
            float iscale = -32.f / max_scale;
            for (j = 0; j < 16; j++) {
                int ls = (int8_t)lk__nearest_int(iscale * scales[j]);
                ls = lk__clampi(ls, -32, 31) + 32;       /* 6 bits */
                if (j < 8) y[i].scales[j] = (uint8_t)(ls & 0xF);
                else y[i].scales[j - 8] |= (uint8_t)((ls & 0xF) << 4);
                y[i].scales[j % 4 + 8] |= (uint8_t)((ls >> 4) << (2 * (j / 4)));
            }
            y[i].d = LK__F2H(1 / iscale);
        } else {
            y[i].d = LK__F2H(0.f);
        }
        for (j = 0; j < 16; j++) {
            float d = LK__H2F(y[i].d) * (float)lk__q3k_scale(y[i].scales, j);
            if (!d) continue;
            for (l = 0; l < 16; l++)
                L[16 * j + l] = (int8_t)(lk__clampi(lk__nearest_int(x[16 * j + l] / d), -4, 3) + 4);
        }
        /* high bit of element j goes to hmask[j % 32], bit j / 32 */
        memset(y[i].hmask, 0, 32);
        for (j = 0, m = 0, hm = 1; j < LK_QK_K; j++) {
            if (L[j] > 3) { y[i].hmask[m] |= hm; L[j] = (int8_t)(L[j] - 4); }
            if (++m == 32) { m = 0; hm = (uint8_t)(hm << 1); }
        }
        lk__pack_2bit(LK__CAST(const uint8_t *, (const void *)L), y[i].qs);
    }
}
#endif
static void lk__dequantize_row_q3_K(const void *vx, float *y, int64_t n) {
    const lk_block_q3_K *x = LK__CAST(const lk_block_q3_K *, vx);
    int64_t i, nb = n / LK_QK_K;
    for (i = 0; i < nb; i++) {
        float d_all = LK__H2F(x[i].d);
        const uint8_t *q = x[i].qs, *hmk = x[i].hmask;
        uint8_t m = 1;
        int is = 0, half, shift, l;
        for (half = 0; half < 2; half++, q += 32) {
            for (shift = 0; shift < 8; shift += 2, m = (uint8_t)(m << 1)) {
                float dl = d_all * (float)lk__q3k_scale(x[i].scales, is++);
                for (l = 0; l < 16; l++) *y++ = dl * (float)((int)((q[l] >> shift) & 3) - ((hmk[l] & m) ? 0 : 4));
                dl = d_all * (float)lk__q3k_scale(x[i].scales, is++);
                for (l = 0; l < 16; l++) *y++ = dl * (float)((int)((q[l + 16] >> shift) & 3) - ((hmk[l + 16] & m) ? 0 : 4));
            }
        }
    }
}

/* shared by q4_K and q5_K: 8 sub-blocks of 32, weights av_x + |x| */
#ifndef LLMKIT_NO_QUANTIZE
static void lk__q45k_scales(const float *x, int nmax, float rmin, float rdelta, int nstep, uint8_t *L,
                            uint8_t *scales12, uint16_t *dh, uint16_t *dminh) {
    uint8_t Laux[32];
    float w[32], mins[8], scales[8], max_scale = 0, max_min = 0, inv_scale, inv_min;
    int j, l;
    for (j = 0; j < 8; j++) {
        float sum_x2 = 0, av_x;
        for (l = 0; l < 32; l++) sum_x2 += x[32 * j + l] * x[32 * j + l];
        av_x = sqrtf(sum_x2 / 32);
        for (l = 0; l < 32; l++) w[l] = av_x + fabsf(x[32 * j + l]);
        scales[j] = lk__make_qkx2_quants(32, nmax, x + 32 * j, w, L + 32 * j, &mins[j], Laux, rmin, rdelta, nstep, 0);
        if (scales[j] > max_scale) max_scale = scales[j];
        if (mins[j] > max_min) max_min = mins[j];
    }
    inv_scale = max_scale > 0 ? 63.f / max_scale : 0.f;
    inv_min = max_min > 0 ? 63.f / max_min : 0.f;
    memset(scales12, 0, 12);
    for (j = 0; j < 8; j++) {
        int ls = (uint8_t)lk__nearest_int(inv_scale * scales[j]);
        int lm = (uint8_t)lk__nearest_int(inv_min * mins[j]);
        lk__set_scale_min_k4(j, scales12, ls < 63 ? ls : 63, lm < 63 ? lm : 63);
    }
    *dh = LK__F2H(max_scale / 63.f);
    *dminh = LK__F2H(max_min / 63.f);
    for (j = 0; j < 8; j++) {    /* requantize with the rounded scales */
        uint8_t sc, m;
        float d, dm;
        lk__get_scale_min_k4(j, scales12, &sc, &m);
        d = LK__H2F(*dh) * (float)sc;
        if (!d) continue;
        dm = LK__H2F(*dminh) * (float)m;
        for (l = 0; l < 32; l++)
            L[32 * j + l] = (uint8_t)lk__clampi(lk__nearest_int((x[32 * j + l] + dm) / d), 0, nmax);
    }
}

static void lk__quantize_row_q4_K(const float *x, void *vy, int64_t n) {
    lk_block_q4_K *y = LK__CAST(lk_block_q4_K *, vy);
    int64_t i, nb = n / LK_QK_K;
    uint8_t L[LK_QK_K];
    int j, l;
    for (i = 0; i < nb; i++, x += LK_QK_K) {
        lk__q45k_scales(x, 15, -1.f, 0.1f, 20, L, y[i].scales, &y[i].d, &y[i].dmin);
        for (j = 0; j < 4; j++)          /* 64 elements per 32 bytes: low nibble first 32 */
            for (l = 0; l < 32; l++) y[i].qs[32 * j + l] = (uint8_t)(L[64 * j + l] | (L[64 * j + l + 32] << 4));
    }
}
#endif
static void lk__dequantize_row_q4_K(const void *vx, float *y, int64_t n) {
    const lk_block_q4_K *x = LK__CAST(const lk_block_q4_K *, vx);
    int64_t i, nb = n / LK_QK_K;
    for (i = 0; i < nb; i++) {
        const uint8_t *q = x[i].qs;
        float d = LK__H2F(x[i].d), min = LK__H2F(x[i].dmin);
        int j, l;
        for (j = 0; j < 4; j++, q += 32) {
            uint8_t sc, m;
            float d1, m1, d2, m2;
            lk__get_scale_min_k4(2 * j, x[i].scales, &sc, &m); d1 = d * (float)sc; m1 = min * (float)m;
            lk__get_scale_min_k4(2 * j + 1, x[i].scales, &sc, &m); d2 = d * (float)sc; m2 = min * (float)m;
            for (l = 0; l < 32; l++) *y++ = d1 * (float)(q[l] & 0xF) - m1;
            for (l = 0; l < 32; l++) *y++ = d2 * (float)(q[l] >> 4) - m2;
        }
    }
}

#ifndef LLMKIT_NO_QUANTIZE
static void lk__quantize_row_q5_K(const float *x, void *vy, int64_t n) {
    lk_block_q5_K *y = LK__CAST(lk_block_q5_K *, vy);
    int64_t i, nb = n / LK_QK_K;
    uint8_t L[LK_QK_K];
    int j, l;
    for (i = 0; i < nb; i++, x += LK_QK_K) {
        lk__q45k_scales(x, 31, -0.5f, 0.1f, 15, L, y[i].scales, &y[i].d, &y[i].dmin);
        /* low 4 bits as q4_K; bit 4 of element 64*j+l -> qh[l] bit 2j, of 64*j+32+l -> bit 2j+1 */
        memset(y[i].qh, 0, 32);
        for (j = 0; j < 4; j++)
            for (l = 0; l < 32; l++) {
                int l1 = L[64 * j + l], l2 = L[64 * j + l + 32];
                y[i].qh[l] |= (uint8_t)(((l1 >> 4) << (2 * j)) | ((l2 >> 4) << (2 * j + 1)));
                y[i].qs[32 * j + l] = (uint8_t)((l1 & 0xF) | ((l2 & 0xF) << 4));
            }
    }
}
#endif
static void lk__dequantize_row_q5_K(const void *vx, float *y, int64_t n) {
    const lk_block_q5_K *x = LK__CAST(const lk_block_q5_K *, vx);
    int64_t i, nb = n / LK_QK_K;
    for (i = 0; i < nb; i++) {
        const uint8_t *ql = x[i].qs, *qh = x[i].qh;
        float d = LK__H2F(x[i].d), min = LK__H2F(x[i].dmin);
        int j, l;
        for (j = 0; j < 4; j++, ql += 32) {
            uint8_t sc, m, u1 = (uint8_t)(1u << (2 * j)), u2 = (uint8_t)(2u << (2 * j));
            float d1, m1, d2, m2;
            lk__get_scale_min_k4(2 * j, x[i].scales, &sc, &m); d1 = d * (float)sc; m1 = min * (float)m;
            lk__get_scale_min_k4(2 * j + 1, x[i].scales, &sc, &m); d2 = d * (float)sc; m2 = min * (float)m;
            for (l = 0; l < 32; l++) *y++ = d1 * (float)((ql[l] & 0xF) + (qh[l] & u1 ? 16 : 0)) - m1;
            for (l = 0; l < 32; l++) *y++ = d2 * (float)((ql[l] >> 4) + (qh[l] & u2 ? 16 : 0)) - m2;
        }
    }
}

#ifndef LLMKIT_NO_QUANTIZE
static void lk__quantize_row_q6_K(const float *x, void *vy, int64_t n) {
    lk_block_q6_K *y = LK__CAST(lk_block_q6_K *, vy);
    int64_t i, nb = n / LK_QK_K;
    int8_t L[LK_QK_K];
    float scales[16];
    int j, l;
    for (i = 0; i < nb; i++, x += LK_QK_K) {
        float max_scale = 0, max_abs_scale = 0, iscale;
        uint8_t *ql, *qh;
        for (j = 0; j < 16; j++) {
            scales[j] = lk__make_qx_quants(16, 32, x + 16 * j, L + 16 * j);
            if (fabsf(scales[j]) > max_abs_scale) { max_abs_scale = fabsf(scales[j]); max_scale = scales[j]; }
        }
        if (max_abs_scale < LK__GROUP_MAX_EPS) {
            memset(&y[i], 0, sizeof y[i]);
            continue;
        }
        iscale = -128.f / max_scale;
        y[i].d = LK__F2H(1 / iscale);
        for (j = 0; j < 16; j++) {
            int v = lk__nearest_int(iscale * scales[j]);
            y[i].scales[j] = (int8_t)(v < 127 ? v : 127);
        }
        for (j = 0; j < 16; j++) {
            float d = LK__H2F(y[i].d) * (float)y[i].scales[j];
            if (!d) continue;
            for (l = 0; l < 16; l++)
                L[16 * j + l] = (int8_t)(lk__clampi(lk__nearest_int(x[16 * j + l] / d), -32, 31) + 32);
        }
        /* per 128: ql[l] = low4(L[l]) | low4(L[l+64])<<4, ql[l+32] = low4(L[l+32]) | low4(L[l+96])<<4,
         * qh[l] = high2 of L[l], L[l+32], L[l+64], L[l+96] in bits 0-1, 2-3, 4-5, 6-7 */
        ql = y[i].ql; qh = y[i].qh;
        for (j = 0; j < LK_QK_K; j += 128, ql += 64, qh += 32)
            for (l = 0; l < 32; l++) {
                int q1 = L[j + l], q2 = L[j + l + 32], q3 = L[j + l + 64], q4 = L[j + l + 96];
                ql[l] = (uint8_t)((q1 & 0xF) | ((q3 & 0xF) << 4));
                ql[l + 32] = (uint8_t)((q2 & 0xF) | ((q4 & 0xF) << 4));
                qh[l] = (uint8_t)((q1 >> 4) | ((q2 >> 4) << 2) | ((q3 >> 4) << 4) | ((q4 >> 4) << 6));
            }
    }
}
#endif
/* unpack the 6-bit quants of one q6_K block to a[256] in [-32, 32) */
static void lk__q6k_unpack(const lk_block_q6_K *b, int8_t *a) {
    const uint8_t *ql = b->ql, *qh = b->qh;
    int j, l;
    for (j = 0; j < LK_QK_K; j += 128, ql += 64, qh += 32, a += 128)
        for (l = 0; l < 32; l++) {
            a[l] = (int8_t)(((ql[l] & 0xF) | (((qh[l] >> 0) & 3) << 4)) - 32);
            a[l + 32] = (int8_t)(((ql[l + 32] & 0xF) | (((qh[l] >> 2) & 3) << 4)) - 32);
            a[l + 64] = (int8_t)(((ql[l] >> 4) | (((qh[l] >> 4) & 3) << 4)) - 32);
            a[l + 96] = (int8_t)(((ql[l + 32] >> 4) | (((qh[l] >> 6) & 3) << 4)) - 32);
        }
}
static void lk__dequantize_row_q6_K(const void *vx, float *y, int64_t n) {
    const lk_block_q6_K *x = LK__CAST(const lk_block_q6_K *, vx);
    int64_t i, nb = n / LK_QK_K;
    int8_t a[LK_QK_K];
    int j;
    for (i = 0; i < nb; i++, y += LK_QK_K) {
        float d = LK__H2F(x[i].d);
        lk__q6k_unpack(&x[i], a);
        for (j = 0; j < LK_QK_K; j++) y[j] = d * (float)x[i].scales[j / 16] * (float)a[j];
    }
}

/* Q8_K: activations for the K-quant dots; d = max/-127 (float, not f16). */
/* SIMD: lk__act_q8_K_x86 (x86) */
static LK__UNUSED void lk__quantize_row_q8_K_ref(const float *x, void *vy, int64_t n) {
    lk_block_q8_K *y = LK__CAST(lk_block_q8_K *, vy);
    int64_t i, nb = n / LK_QK_K;
    int j, l;
    for (i = 0; i < nb; i++, x += LK_QK_K) {
        float max = 0, amax = 0, iscale;
        for (j = 0; j < LK_QK_K; j++)
            if (fabsf(x[j]) > amax) { amax = fabsf(x[j]); max = x[j]; }
        if (!amax) {
            y[i].d = 0;
            memset(y[i].qs, 0, sizeof y[i].qs);
            memset(y[i].bsums, 0, sizeof y[i].bsums);
            continue;
        }
        iscale = -127.f / max;
        for (j = 0; j < LK_QK_K; j++) {
            int v = lk__nearest_int(iscale * x[j]);
            y[i].qs[j] = (int8_t)lk__clampi(v, -128, 127);
        }
        for (j = 0; j < 16; j++) {
            int sum = 0;
            for (l = 0; l < 16; l++) sum += y[i].qs[16 * j + l];
            y[i].bsums[j] = (int16_t)sum;
        }
        y[i].d = 1 / iscale;
    }
}
static void lk__dequantize_row_q8_K(const void *vx, float *y, int64_t n) {
    const lk_block_q8_K *x = LK__CAST(const lk_block_q8_K *, vx);
    int64_t i, nb = n / LK_QK_K;
    int j;
    for (i = 0; i < nb; i++, y += LK_QK_K)
        for (j = 0; j < LK_QK_K; j++) y[j] = x[i].d * (float)x[i].qs[j];
}

/* K-quant dots follow ggml's scalar path: integer sums per 16 elements
 * scaled by the integer sub-block scale, accumulated in 8 int32 lanes,
 * then 8 float lanes sums[l] += d * lane[l] per super-block, reduced at the
 * end (min terms go to a separate running float sum first). */
static void lk__ksum_lanes(const int8_t *a, const int8_t *q8, const int *sc16, int32_t *lanes) {
    int j, l;
    for (l = 0; l < 8; l++) lanes[l] = 0;
    for (j = 0; j < 32; j++, a += 8, q8 += 8)       /* 32 groups of 8; scale per 16 */
        for (l = 0; l < 8; l++) lanes[l] += sc16[j / 2] * (int32_t)(int16_t)(q8[l] * a[l]);
}

/* SIMD: lk__vd_q2_K_t (x86); the kernel table (14.7s) picks */
static LK__UNUSED void lk__vec_dot_q2_K_q8_K_ref(int64_t n, float *s, const void *vx, const void *vy) {
    const lk_block_q2_K *x = LK__CAST(const lk_block_q2_K *, vx);
    const lk_block_q8_K *y = LK__CAST(const lk_block_q8_K *, vy);
    int64_t i, nb = n / LK_QK_K;
    float sumf = 0;
    for (i = 0; i < nb; i++) {
        const uint8_t *q2 = x[i].qs, *sc = x[i].scales;
        const int8_t *q8 = y[i].qs;
        int summs = 0, isum = 0, is = 0, j, l, k, shift;
        float dall, dmin;
        for (j = 0; j < 16; j++) summs += y[i].bsums[j] * (sc[j] >> 4);
        dall = y[i].d * LK__H2F(x[i].d);
        dmin = y[i].d * LK__H2F(x[i].dmin);
        for (k = 0; k < 2; k++, q2 += 32)
            for (shift = 0; shift < 8; shift += 2, q8 += 32) {
                int s0 = 0, s1 = 0;
                for (l = 0; l < 16; l++) s0 += q8[l] * ((q2[l] >> shift) & 3);
                for (l = 16; l < 32; l++) s1 += q8[l] * ((q2[l] >> shift) & 3);
                isum += (sc[is] & 0xF) * s0 + (sc[is + 1] & 0xF) * s1;
                is += 2;
            }
        sumf += dall * (float)isum - dmin * (float)summs;
    }
    *s = sumf;
}

/* q3_K / q4_K / q5_K / q6_K . q8_K: lk__kq_unpack gives a super-block as
 * the scalar dot sees it: a[256] the integer weights, sc16[16] the scale of
 * each 16, and for q4_K / q5_K (returns 1) *msum = sum over the 32-blocks of
 * min * (the q8 block's bsums), the term that d_min multiplies. */
static int lk__kq_unpack(lk_type t, const unsigned char *b, const lk_block_q8_K *yb, int8_t *a, int *sc16,
                         int *msum, float *d, float *dmin) {
    int j, l;
    *msum = 0;
    *dmin = 0.0f;
    if (t == LK_TYPE_Q3_K) {
        const lk_block_q3_K *x = LK__CAST(const lk_block_q3_K *, (const void *)b);
        /* element 32*k + l (k = 0..7): 2 bits at qs[32*(k/4) + l] >> 2*(k%4), high bit hmask[l] bit k */
        for (j = 0; j < 8; j++)
            for (l = 0; l < 32; l++) {
                int lo = (x->qs[32 * (j / 4) + l] >> (2 * (j % 4))) & 3;
                a[32 * j + l] = (int8_t)(lo - ((x->hmask[l] >> j) & 1 ? 0 : 4));
            }
        for (j = 0; j < 16; j++) sc16[j] = lk__q3k_scale(x->scales, j);
        *d = LK__H2F(x->d);
        return 0;
    }
    if (t == LK_TYPE_Q6_K) {
        const lk_block_q6_K *x = LK__CAST(const lk_block_q6_K *, (const void *)b);
        lk__q6k_unpack(x, a);
        for (j = 0; j < 16; j++) sc16[j] = x->scales[j];
        *d = LK__H2F(x->d);
        return 0;
    }
    {   /* q4_K and q5_K share d, dmin, scales[12], qs[128]; q5_K adds qh[32] before qs */
        const lk_block_q5_K *x5 = LK__CAST(const lk_block_q5_K *, (const void *)b);
        const lk_block_q4_K *x4 = LK__CAST(const lk_block_q4_K *, (const void *)b);
        const int is5 = t == LK_TYPE_Q5_K;
        const uint8_t *qs = is5 ? x5->qs : x4->qs, *scales = is5 ? x5->scales : x4->scales;
        for (j = 0; j < 4; j++)
            for (l = 0; l < 32; l++) {
                int h0 = is5 ? ((x5->qh[l] >> (2 * j)) & 1) << 4 : 0;
                int h1 = is5 ? ((x5->qh[l] >> (2 * j + 1)) & 1) << 4 : 0;
                a[64 * j + l] = (int8_t)((qs[32 * j + l] & 0xF) | h0);
                a[64 * j + 32 + l] = (int8_t)((qs[32 * j + l] >> 4) | h1);
            }
        for (j = 0; j < 8; j++) {
            uint8_t sc, m;
            lk__get_scale_min_k4(j, scales, &sc, &m);
            sc16[2 * j] = sc16[2 * j + 1] = sc;
            *msum += (yb->bsums[2 * j] + yb->bsums[2 * j + 1]) * m;
        }
        *d = LK__H2F(is5 ? x5->d : x4->d);
        *dmin = LK__H2F(is5 ? x5->dmin : x4->dmin);
        return 1;
    }
}
/* per super-block: sums[l] += (d * dy) * lane[l] (8 float lanes),
 * sumf -= (dmin * dy) * msum; the lanes are added to sumf at the end. */
static void lk__kq_dot(lk_type t, size_t bytes, int64_t n, float *s, const void *vx, const void *vy) {
    const unsigned char *x = (const unsigned char *)vx;
    const lk_block_q8_K *y = LK__CAST(const lk_block_q8_K *, vy);
    int64_t i, nb = n / LK_QK_K;
    float sums[8] = {0, 0, 0, 0, 0, 0, 0, 0}, sumf = 0, d, dmin;
    int8_t a[LK_QK_K];
    int sc16[16], msum, l;
    int32_t lanes[8];
    for (i = 0; i < nb; i++, x += bytes) {
        int has_min = lk__kq_unpack(t, x, &y[i], a, sc16, &msum, &d, &dmin);
        float dd = d * y[i].d;
        lk__ksum_lanes(a, y[i].qs, sc16, lanes);
        for (l = 0; l < 8; l++) sums[l] += dd * (float)lanes[l];
        if (has_min) sumf -= (dmin * y[i].d) * (float)msum;
    }
    for (l = 0; l < 8; l++) sumf += sums[l];
    *s = sumf;
}
/* SIMD: lk__vd_q3_K_t, lk__vd_q4_K_t, lk__vd_q5_K_t, lk__vd_q6_K_t (x86);
 * lk__vd_q4_K_arm, lk__vd_q5_K_arm, lk__vd_q6_K_arm (NEON); the kernel
 * table (14.7s) picks */
static LK__UNUSED void lk__vec_dot_q3_K_q8_K_ref(int64_t n, float *s, const void *x, const void *y) { lk__kq_dot(LK_TYPE_Q3_K, sizeof(lk_block_q3_K), n, s, x, y); }
static LK__UNUSED void lk__vec_dot_q4_K_q8_K_ref(int64_t n, float *s, const void *x, const void *y) { lk__kq_dot(LK_TYPE_Q4_K, sizeof(lk_block_q4_K), n, s, x, y); }
static LK__UNUSED void lk__vec_dot_q5_K_q8_K_ref(int64_t n, float *s, const void *x, const void *y) { lk__kq_dot(LK_TYPE_Q5_K, sizeof(lk_block_q5_K), n, s, x, y); }
static LK__UNUSED void lk__vec_dot_q6_K_q8_K_ref(int64_t n, float *s, const void *x, const void *y) { lk__kq_dot(LK_TYPE_Q6_K, sizeof(lk_block_q6_K), n, s, x, y); }

/* ---- 14.7r interleaved rows (LK_LAYOUT_R8) -------------------------------------
 * Q4_0, a group of 8 rows of nb = n/32 blocks; block i of the group at
 * group + 144 i (the group starts where its first row did, and is as long as
 * its 8 rows):
 *   bytes 0..15     d of rows 0..7 (f16)
 *   bytes 16..143   4 chunks of 32: chunk k holds row r's qs[4k..4k+3] at
 *                   bytes 4r..4r+3, so its low nibbles are elements 4k..4k+3
 *                   of the 8 rows and its high nibbles elements 16+4k..19+4k.
 * Output (row r, column c of q8_0 activations), blocks in order, acc = 0:
 *   isum = sum_j (q_j - 8) y_j                  exact int32
 *   acc  = fma((float)isum, d_r * d_c, acc)     (d_r * d_c rounded first)
 * SIMD: lk__r8_q4_0_x86 (8 rows x up to LK__R8_NC columns, 14.7s). */
#define LK__R8_Q4_0_BLK 144
/* columns per call of a group kernel: 8 with VNNI (32 vector registers;
 * q4_0 keeps an int32 accumulator pair per column), else 4 */
#if defined(LK__X86_VNNI)
#define LK__R8_NC 8
#else
#define LK__R8_NC 4
#endif
static void lk__repack_q4_0_r8(const unsigned char *src, size_t row_bytes, unsigned char *dst, int64_t nb) {   /* one group */
    int64_t i;
    int r, k;
    for (i = 0; i < nb; i++) {
        unsigned char *o = dst + (size_t)i * LK__R8_Q4_0_BLK;
        for (r = 0; r < 8; r++) {
            const unsigned char *b = src + (size_t)r * row_bytes + (size_t)i * 18;
            memcpy(o + 2 * r, b, 2);
            for (k = 0; k < 4; k++) memcpy(o + 16 + 32 * k + 4 * r, b + 2 + 4 * k, 4);
        }
    }
}
/* y[0..7] = the group's 8 rows . one q8_0 column a (reference) */
static LK__UNUSED void lk__r8_q4_0_ref(int64_t n, const unsigned char *g, const unsigned char *a, float *y) {
    int64_t i, nb = n / 32;
    float acc[8] = { 0, 0, 0, 0, 0, 0, 0, 0 };
    int r, k, j;
    for (i = 0; i < nb; i++) {
        const unsigned char *b = g + (size_t)i * LK__R8_Q4_0_BLK, *ya = a + (size_t)i * 34;
        const float dy = LK__H2F((uint16_t)(ya[0] | ya[1] << 8));
        for (r = 0; r < 8; r++) {
            int32_t sum = 0;
            for (k = 0; k < 4; k++)
                for (j = 0; j < 4; j++) {
                    const int q = b[16 + 32 * k + 4 * r + j];
                    sum += ((q & 15) - 8) * (int8_t)ya[2 + 4 * k + j] + ((q >> 4) - 8) * (int8_t)ya[2 + 16 + 4 * k + j];
                }
            acc[r] = fmaf((float)sum, LK__H2F((uint16_t)(b[2 * r] | b[2 * r + 1] << 8)) * dy, acc[r]);
        }
    }
    memcpy(y, acc, sizeof acc);
}
/* Q4_K, a group of 8 rows of nb = n/256 super-blocks; super-block i of the
 * group at group + 1184 i (2.8 % more than the 8 rows: the scales decoded):
 *   0..15     d of rows 0..7 (f16)        16..31   dmin of rows 0..7 (f16)
 *   32..95    sc[sb][r]: 6-bit scale of sub-block sb (of 32) of row r
 *   96..159   mn[sb][r]: its 6-bit min
 *   160..1183 for chunk j < 4 (64 elements) and group k < 8: 32 bytes at
 *             160 + 256 j + 32 k holding row r's qs[32j + 4k .. 32j + 4k + 3]
 *             at bytes 4r..4r+3: low nibbles elements 64j + 4k.., sub-block
 *             2j; high nibbles 64j + 32 + 4k.., sub-block 2j + 1.
 * Output (row r, column c of q8_K activations), super-blocks in order (the
 * order of llama.cpp's repacked q4_K kernels), acc = accm = 0:
 *   isum = sum_sb sc[sb][r] * sum_{j in sb} q_j y_j          exact int32
 *   imin = sum_sb mn[sb][r] * (bsums[2 sb] + bsums[2 sb + 1])  exact int32
 *   acc  = fma((float)isum, d_r * d_c, acc)
 *   accm = fma((float)imin, dmin_r * d_c, accm);   y = acc - accm
 * SIMD: lk__r8_q4_K_x86. */
#define LK__R8_Q4_K_BLK 1184
static void lk__repack_q4_K_r8(const unsigned char *src, size_t row_bytes, unsigned char *dst, int64_t nb) {   /* one group */
    int64_t i;
    int r, j, k, sb;
    for (i = 0; i < nb; i++) {
        unsigned char *o = dst + (size_t)i * LK__R8_Q4_K_BLK;
        for (r = 0; r < 8; r++) {
            const lk_block_q4_K *b = LK__CAST(const lk_block_q4_K *, (const void *)(src + (size_t)r * row_bytes + (size_t)i * sizeof(lk_block_q4_K)));
            memcpy(o + 2 * r, &b->d, 2);
            memcpy(o + 16 + 2 * r, &b->dmin, 2);
            for (sb = 0; sb < 8; sb++) lk__get_scale_min_k4(sb, b->scales, o + 32 + 8 * sb + r, o + 96 + 8 * sb + r);
            for (j = 0; j < 4; j++)
                for (k = 0; k < 8; k++) memcpy(o + 160 + 256 * j + 32 * k + 4 * r, b->qs + 32 * j + 4 * k, 4);
        }
    }
}
/* y[0..7] = the group's 8 rows . one q8_K column a (reference) */
static LK__UNUSED void lk__r8_q4_K_ref(int64_t n, const unsigned char *g, const unsigned char *a, float *y) {
    int64_t i, nb = n / LK_QK_K;
    float acc[8] = { 0, 0, 0, 0, 0, 0, 0, 0 }, accm[8] = { 0, 0, 0, 0, 0, 0, 0, 0 };
    int r, j, k, e, sb;
    for (i = 0; i < nb; i++) {
        const unsigned char *b = g + (size_t)i * LK__R8_Q4_K_BLK;
        const lk_block_q8_K *yb = LK__CAST(const lk_block_q8_K *, (const void *)(a + (size_t)i * sizeof(lk_block_q8_K)));
        for (r = 0; r < 8; r++) {
            int32_t sub[8] = { 0, 0, 0, 0, 0, 0, 0, 0 }, isum = 0, imin = 0;
            for (j = 0; j < 4; j++)
                for (k = 0; k < 8; k++)
                    for (e = 0; e < 4; e++) {
                        const int q = b[160 + 256 * j + 32 * k + 4 * r + e];
                        sub[2 * j] += (q & 15) * yb->qs[64 * j + 4 * k + e];
                        sub[2 * j + 1] += (q >> 4) * yb->qs[64 * j + 32 + 4 * k + e];
                    }
            for (sb = 0; sb < 8; sb++) {
                isum += b[32 + 8 * sb + r] * sub[sb];
                imin += b[96 + 8 * sb + r] * (yb->bsums[2 * sb] + yb->bsums[2 * sb + 1]);
            }
            acc[r] = fmaf((float)isum, LK__H2F((uint16_t)(b[2 * r] | b[2 * r + 1] << 8)) * yb->d, acc[r]);
            accm[r] = fmaf((float)imin, LK__H2F((uint16_t)(b[16 + 2 * r] | b[17 + 2 * r] << 8)) * yb->d, accm[r]);
        }
    }
    for (r = 0; r < 8; r++) y[r] = acc[r] - accm[r];
}
/* F16, a group of 8 rows of n elements (n % 16 == 0), 16 n bytes: two
 * halves of 4 rows, half h at group + 8 n h; in a half, the 16 elements
 * 16k..16k+15 of its row q at bytes 128 k + 32 q (so a 1-column product
 * reads one sequential stream and still runs 4 rows' fma chains at once).
 * Output: the rows' own order (lk__vdot_flt_ref with n % 16 == 0: element i
 * into lane i % 16 by fma, lanes reduced by lk__hsum16), so an F16 matrix
 * gives the same bits in either layout. SIMD: lk__r8_f16_x86. */
#define LK__R8_F16_BLK 256  /* bytes of a group per 16 elements: 8 rows x 32 */
static void lk__repack_f16_r8(const unsigned char *src, size_t row_bytes, unsigned char *dst, int64_t nb) {   /* one group, nb blocks of 16 */
    const int64_t n = 16 * nb;
    int64_t k;
    int r;
    for (r = 0; r < 8; r++)
        for (k = 0; k < nb; k++) memcpy(dst + (size_t)(r / 4) * 8 * (size_t)n + 128 * (size_t)k + 32 * (size_t)(r % 4), src + (size_t)r * row_bytes + 32 * (size_t)k, 32);
}
/* y[0..7] = the group's 8 rows . one f16 column a (reference) */
static LK__UNUSED void lk__r8_f16_ref(int64_t n, const unsigned char *g, const unsigned char *a, float *y) {
    float acc[16];
    int64_t i;
    int r, l;
    for (r = 0; r < 8; r++) {
        const unsigned char *h = g + (size_t)(r / 4) * 8 * (size_t)n + 32 * (size_t)(r % 4);
        for (l = 0; l < 16; l++) acc[l] = 0.0f;
        for (i = 0; i < n; i++) {
            const unsigned char *p = h + 128 * (size_t)(i / 16) + 2 * (size_t)(i % 16);
            acc[i % 16] = fmaf(LK__H2F((uint16_t)(p[0] | p[1] << 8)), LK__H2F((uint16_t)(a[2 * i] | a[2 * i + 1] << 8)), acc[i % 16]);
        }
        y[r] = lk__hsum16(acc);
    }
}
/* the references as group kernels (lk__r8_fn): one column at a time */
static LK__UNUSED void lk__r8_q4_0_refc(int64_t n, const unsigned char *g, const unsigned char *a, size_t as, const int32_t *ysum, int64_t nbk,
                                        float *y, int64_t ys, int C) {
    int c;
    (void)ysum; (void)nbk;
    for (c = 0; c < C; c++) lk__r8_q4_0_ref(n, g, a + (size_t)c * as, y + c * ys);
}
static LK__UNUSED void lk__r8_f16_refc(int64_t n, const unsigned char *g, const unsigned char *a, size_t as, const int32_t *ysum, int64_t nbk,
                                       float *y, int64_t ys, int C) {
    int c;
    (void)ysum; (void)nbk;
    for (c = 0; c < C; c++) lk__r8_f16_ref(n, g, a + (size_t)c * as, y + c * ys);
}
static LK__UNUSED void lk__r8_q4_K_refc(int64_t n, const unsigned char *g, const unsigned char *a, size_t as, const int32_t *ysum, int64_t nbk,
                                        float *y, int64_t ys, int C) {
    int c;
    (void)ysum; (void)nbk;
    for (c = 0; c < C; c++) lk__r8_q4_K_ref(n, g, a + (size_t)c * as, y + c * ys);
}
/* The layouts as the kernel table's r8 column (lk__r8_layout): a block's
 * elements per row (rows hold a whole number of them), a group's bytes per
 * block, the repack, the reference. Every target's table names them (the
 * layout exists in every build; only its SIMD kernel is the target's). */
#define LK__R8_NONE { 0, 0, NULL, NULL }
#define LK__R8_Q4_0 { 32, LK__R8_Q4_0_BLK, lk__repack_q4_0_r8, lk__r8_q4_0_refc }
#define LK__R8_Q4_K { LK_QK_K, LK__R8_Q4_K_BLK, lk__repack_q4_K_r8, lk__r8_q4_K_refc }
#define LK__R8_F16 { 16, LK__R8_F16_BLK, lk__repack_f16_r8, lk__r8_f16_refc }
LKDEF int lk_repack_r8_supported(lk_type type) { return lk__kernels_of(type)->r8.qk != 0; }
LKDEF size_t lk_repack_r8_size(const lk_tensor *W) {
    const lk__r8_layout *L = W ? &lk__kernels_of(W->type)->r8 : NULL;
    uint64_t n;
    if (!L || !L->qk || W->ne[0] <= 0 || W->ne[1] < 0 || W->ne[1] % 8 || W->ne[0] % L->qk) return 0;
    if (!lk__mul_ok((uint64_t)(W->ne[1] / 8) * (uint64_t)(W->ne[0] / L->qk), L->blk, &n) || n > SIZE_MAX) return 0;
    return (size_t)n;
}
typedef struct lk__repack_job { const lk_tensor *W; unsigned char *dst; size_t gbytes; } lk__repack_job;
static void lk__repack_task(void *arg, int task, int n_tasks) {   /* groups [g0, g1) of the job */
    const lk__repack_job *j = LK__CAST(const lk__repack_job *, arg);
    const int64_t ng = j->W->ne[1] / 8, g0 = ng * task / n_tasks, g1 = ng * (task + 1) / n_tasks;
    int64_t g;
    for (g = g0; g < g1; g++) {
        const unsigned char *src = LK__CAST(const unsigned char *, j->W->data) + (size_t)g * 8 * j->W->nb[1];
        const lk__r8_layout *L = &lk__kernels_of(j->W->type)->r8;
        L->repack(src, j->W->nb[1], j->dst + (size_t)g * j->gbytes, j->W->ne[0] / L->qk);
    }
}
LKDEF lk_status lk_repack_r8(const lk_tensor *W, void *dst, size_t dst_size, lk_tensor *out) {
    size_t nbytes;
    int64_t ng;
    lk_tensor t;
    lk__repack_job job;
    if (!W || !dst || !out || !W->data) return lk_set_error(LK_ERR_INVALID_ARG, "lk_repack_r8: NULL argument");
    if (!lk_repack_r8_supported(W->type))
        return lk_set_error(LK_ERR_UNSUPPORTED, "lk_repack_r8: no interleaved layout for %s", lk_type_name(W->type));
    if (W->layout != LK_LAYOUT_ROWS || W->ne[2] != 1 || W->ne[3] != 1 || W->ne[1] % 8 || W->ne[0] <= 0 ||
        W->nb[1] != lk_row_size(W->type, W->ne[0]))
        return lk_set_error(LK_ERR_INVALID_ARG, "lk_repack_r8: W must be a contiguous 2-D %s matrix in rows with a multiple of 8 rows", lk_type_name(W->type));
    if (W->ne[0] % lk__kernels_of(W->type)->r8.qk)
        return lk_set_error(LK_ERR_INVALID_ARG, "lk_repack_r8: %s rows of %lld elements (the layout needs a multiple of %lld)", lk_type_name(W->type),
                            (long long)W->ne[0], (long long)lk__kernels_of(W->type)->r8.qk);
    nbytes = lk_repack_r8_size(W);
    if (!nbytes) return lk_set_error(LK_ERR_RANGE, "lk_repack_r8: size overflows");
    if (dst_size < nbytes) return lk_set_error(LK_ERR_INVALID_ARG, "lk_repack_r8: %zu bytes of room, need %zu", dst_size, nbytes);
    {   /* no overlap */
        const unsigned char *a = LK__CAST(const unsigned char *, W->data), *b = LK__CAST(const unsigned char *, dst);
        const size_t wn = lk_tensor_nbytes(W);
        if (a < b + nbytes && b < a + wn) return lk_set_error(LK_ERR_INVALID_ARG, "lk_repack_r8: dst overlaps the weights");
    }
    t = *W;
    ng = W->ne[1] / 8;
    job.W = W; job.dst = LK__CAST(unsigned char *, dst); job.gbytes = nbytes / (size_t)ng;
    {   /* large matrices over the default threads (a byte shuffle, bound by page faults and memory) */
        const int nt = lk_threads_count(NULL);
        if (nt > 1 && nbytes >= ((size_t)1 << 20)) lk_parallel_for(NULL, nt, lk__repack_task, &job);
        else lk__repack_task(&job, 0, 1);
    }
    t.data = dst;
    t.layout = LK_LAYOUT_R8;
    *out = t;
    return LK_OK;
}

/* ---- row API and matmul ------------------------------------------------------ */
static lk_status lk__row_check(const char *fn, const lk_type_traits *t, lk_type type, const void *x, const void *y, int64_t n, int has) {
    if (!t) return lk_set_error(LK_ERR_INVALID_ARG, "%s: unknown type %d", fn, (int)type);
    if (!x || !y || n < 0 || n % t->blck_size)
        return lk_set_error(LK_ERR_INVALID_ARG, "%s: NULL row or %lld elements (not a multiple of the %s block of %lld)", fn, (long long)n, t->name,
                            (long long)t->blck_size);
    if (!has) return lk_set_error(LK_ERR_UNSUPPORTED, "%s: no %s kernel for %s in this build", fn, fn[3] == 'q' ? "quantize" : "dequantize", t->name);
    return LK_OK;
}
LKDEF lk_status lk_quantize_row(lk_type type, const float *x, void *y, int64_t n) {
    const lk_type_traits *t = lk_type_get(type);
    lk_status st = lk__row_check("lk_quantize_row", t, type, x, y, n, t && t->from_float);
    if (!st && n) t->from_float(x, y, n);
    return st;
}
LKDEF lk_status lk_dequantize_row(lk_type type, const void *x, float *y, int64_t n) {
    const lk_type_traits *t = lk_type_get(type);
    lk_status st = lk__row_check("lk_dequantize_row", t, type, x, y, n, t && t->to_float);
    if (!st && n) t->to_float(x, y, n);
    return st;
}
LKDEF lk_status lk_quantize(lk_type type, const float *src, void *dst, int64_t nrows, int64_t n_per_row, size_t *out_bytes) {
    const lk_type_traits *t = lk_type_get(type);
    size_t row_size;
    uint64_t total;
    int64_t r;
    if (out_bytes) *out_bytes = 0;
    if (!t || !t->from_float)
        return lk_set_error(LK_ERR_UNSUPPORTED, "lk_quantize: no quantizer for type %d (%s)", (int)type, lk_type_name(type));
    if (nrows < 0 || n_per_row <= 0 || n_per_row % t->blck_size)
        return lk_set_error(LK_ERR_INVALID_ARG, "lk_quantize: row length %lld is not a positive multiple of the %s block size %lld",
                            (long long)n_per_row, t->name, (long long)t->blck_size);
    row_size = lk_row_size(type, n_per_row);
    if (!row_size || !lk__mul_ok((uint64_t)nrows, row_size, &total) || total > SIZE_MAX)
        return lk_set_error(LK_ERR_RANGE, "lk_quantize: %lld rows of %lld elements overflow", (long long)nrows, (long long)n_per_row);
    if (nrows && (!src || !dst)) return lk_set_error(LK_ERR_INVALID_ARG, "lk_quantize: NULL src or dst");
    for (r = 0; r < nrows; r++)
        t->from_float(src + r * n_per_row, LK__CAST(unsigned char *, dst) + (size_t)r * row_size, n_per_row);
    if (out_bytes) *out_bytes = (size_t)total;
    return LK_OK;
}

/* byte offsets of a block's f16 scales for lk_validate_data: d, and dmin / m
 * (-1: none; Q8_1's second one is its sum s). Q8_K's d is an f32; IQ1_M
 * packs its scale into the scales. */
static void lk__scale_offsets(lk_type t, int *d, int *m) {
    *d = 0; *m = -1;
    switch (t) {
    case LK_TYPE_Q4_1: case LK_TYPE_Q5_1: case LK_TYPE_Q8_1: *m = 2; break;
    case LK_TYPE_Q4_K: *m = (int)offsetof(lk_block_q4_K, dmin); break;
    case LK_TYPE_Q5_K: *m = (int)offsetof(lk_block_q5_K, dmin); break;
    case LK_TYPE_Q2_K: *d = (int)offsetof(lk_block_q2_K, d); *m = (int)offsetof(lk_block_q2_K, dmin); break;
    case LK_TYPE_Q3_K: *d = (int)offsetof(lk_block_q3_K, d); break;
    case LK_TYPE_Q6_K: *d = (int)offsetof(lk_block_q6_K, d); break;
    case LK_TYPE_TQ1_0: *d = (int)offsetof(lk_block_tq1_0, d); break;
    case LK_TYPE_TQ2_0: *d = (int)offsetof(lk_block_tq2_0, d); break;
    case LK_TYPE_I8: case LK_TYPE_I16: case LK_TYPE_I32: case LK_TYPE_I64: case LK_TYPE_IQ1_M: *d = -1; break;
    default: break;   /* d first: q4_0 q5_0 q8_0 q4_K q5_K q8_K iq* */
    }
}
static int lk__h_finite(const unsigned char *p) { return ((p[1] & 0x7C) != 0x7C); }   /* f16 bits, little-endian */
LKDEF lk_status lk_validate_data(lk_type type, const void *data, size_t nbytes, int64_t *bad) {
    const lk_type_traits *tt = lk_type_get(type);
    const unsigned char *p = LK__CAST(const unsigned char *, data);
    size_t nb, i;
    int od, om;
    if (bad) *bad = -1;
    if (!tt) return lk_set_error(LK_ERR_INVALID_ARG, "lk_validate_data: unknown type %d", (int)type);
    if (nbytes % tt->type_size) return lk_set_error(LK_ERR_INVALID_ARG, "lk_validate_data: %zu bytes is not a whole number of %s blocks", nbytes, tt->name);
    if (!data && nbytes) return lk_set_error(LK_ERR_INVALID_ARG, "lk_validate_data: data is NULL");
    nb = nbytes / tt->type_size;
    for (i = 0; i < nb; i++) {
        const unsigned char *b = p + i * tt->type_size;
        const char *what = NULL;
        uint32_t u;
        switch (type) {
        case LK_TYPE_F32: memcpy(&u, b, 4); if ((u & 0x7f800000u) == 0x7f800000u) what = u & 0x7fffffu ? "is NaN" : "is infinite"; break;
        case LK_TYPE_F64: { uint64_t v; memcpy(&v, b, 8); if ((v & 0x7ff0000000000000ull) == 0x7ff0000000000000ull) what = v & 0xfffffffffffffull ? "is NaN" : "is infinite"; } break;
        case LK_TYPE_F16: if (!lk__h_finite(b)) what = (b[1] & 3) || b[0] ? "is NaN" : "is infinite"; break;
        case LK_TYPE_BF16: if ((b[1] & 0x7F) == 0x7F && (b[0] & 0x80)) what = (b[0] & 0x7F) ? "is NaN" : "is infinite"; break;
        case LK_TYPE_Q8_K: memcpy(&u, b, 4); if ((u & 0x7f800000u) == 0x7f800000u) what = "has a non-finite scale d"; break;
        case LK_TYPE_IQ1_M: {   /* the f16 scale: top nibbles of the four u16 scale words */
            const lk_block_iq1_m *q = LK__CAST(const lk_block_iq1_m *, b);
            uint16_t sc[4], h;
            memcpy(sc, q->scales, 8);
            h = (uint16_t)((sc[0] >> 12) | ((sc[1] >> 8) & 0x00f0) | ((sc[2] >> 4) & 0x0f00) | (sc[3] & 0xf000));
            if ((h & 0x7C00) == 0x7C00) what = "has a non-finite scale";
        } break;
        default:
            lk__scale_offsets(type, &od, &om);
            if (od >= 0 && !lk__h_finite(b + od)) what = "has a non-finite scale d";
            else if (om >= 0 && !lk__h_finite(b + om))
                what = type == LK_TYPE_Q8_1 ? "has a non-finite sum s" : type == LK_TYPE_Q4_1 || type == LK_TYPE_Q5_1 ? "has a non-finite minimum m" : "has a non-finite scale dmin";
            break;
        }
        if (what) {
            const int elem = type == LK_TYPE_F32 || type == LK_TYPE_F64 || type == LK_TYPE_F16 || type == LK_TYPE_BF16;
            if (bad) *bad = (int64_t)i;
            return lk_set_error(LK_ERR_FORMAT, "%s %lld of the %s data %s", elem ? "element" : "block", (long long)i, tt->name, what);
        }
    }
    return LK_OK;
}

LKDEF size_t lk_matmul_scratch_size(lk_type wtype, int64_t n_in, int64_t n_cols) {
    const lk_type_traits *t = lk_type_get(wtype);
    size_t rs;
    uint64_t total;
    if (!t || !t->vec_dot || n_in <= 0 || n_cols <= 0) return 0;
    if (t->vec_dot_type == LK_TYPE_F32) return 0;        /* activations used as they are */
    rs = lk_row_size(t->vec_dot_type, n_in);
    if (rs && t->vec_dot_type == LK_TYPE_Q8_0) rs += (size_t)(n_in / 32) * 8;   /* block sums and scales for LK_LAYOUT_R8 (14.7r) */
    if (!rs || !lk__mul_ok((uint64_t)n_cols, rs, &total) || total > SIZE_MAX - 128) return 0;
    return (size_t)total + 128;                           /* + alignment slack */
}

typedef struct lk__matmul_job {
    const lk_type_traits *wt, *vt;
    const lk_tensor *W;
    const float *x;
    float *y;
    const unsigned char *xq;    /* quantized columns, xq_row bytes each (or x itself) */
    unsigned char *xq_w;        /* the same, writable (scratch)                      */
    size_t xq_row;
    int64_t n_in, n_out, n_cols;
    lk__tile_fn tile;           /* several rows x columns at once, or NULL */
    lk__tile_fn tile1;          /* several rows x 1 column, or NULL        */
    int kind;                   /* the variant tile and tile1 run          */
    lk__r8_fn r8;               /* LK_LAYOUT_R8: the group kernel          */
    int32_t *ysum;              /* LK_LAYOUT_R8: [n_cols][n_in / 32][2], see lk__r8_fn */
    int f32_rows8;              /* f32 rows of vec_dot's order with a tail (n_in % 16): 8 rows at once */
} lk__matmul_job;

/* 1 if no x[i] is NaN or infinite (exponent bits all ones); cheap next to
 * any product that reads x (x86: 8 at a time; gcc -O2 left the loop scalar) */
static int lk__all_finite(const float *x, size_t n) {
    uint32_t acc = 0;
    size_t i = 0;
#if defined(LK__X86)
    const __m256i e = _mm256_set1_epi32(0x7f800000);
    __m256i bad = _mm256_setzero_si256();
    for (; i + 8 <= n; i += 8) bad = _mm256_or_si256(bad, _mm256_cmpeq_epi32(_mm256_and_si256(_mm256_loadu_si256((const __m256i *)(const void *)(x + i)), e), e));
    acc = !_mm256_testz_si256(bad, bad);
#endif
    for (; i < n; i++) { uint32_t u; memcpy(&u, x + i, 4); acc |= (~u & 0x7f800000u) == 0; }
    return !acc;
}
static const unsigned char *lk__matmul_wrow(const lk_tensor *W, int64_t r) {
    int64_t i1, r2, i2, i3;
    if (W->ne[2] == 1 && W->ne[3] == 1) return LK__CAST(const unsigned char *, W->data) + (size_t)r * W->nb[1];   /* 2-D: no divisions */
    i1 = r % W->ne[1]; r2 = r / W->ne[1];
    i2 = r2 % W->ne[2]; i3 = r2 / W->ne[2];
    return LK__CAST(const unsigned char *, W->data) + (size_t)i1 * W->nb[1] + (size_t)i2 * W->nb[2] + (size_t)i3 * W->nb[3];
}
/* Activation quantizers for Q8_0 / Q8_1 as ggml's x86 CPU backend runs
 * them (the build llama.cpp's reference logits come from): the scale is
 * d = amax/127 but the multiplier is 127/amax (not 1/d), and values round
 * half to even. Weight files keep the reference quantizer (from_float),
 * which rounds half away from zero and multiplies by 1/d. */
static int lk__act_round(float v) {   /* round half to even, clamped to int8 */
    if (v != v) return 0;
    if (v >= 127.0f) return 127;
    if (v <= -128.0f) return -128;
    return lk__nearest_int(v);        /* exact for |v| < 2^22 */
}
/* SIMD: lk__act_q8_0_x86 (x86), lk__act_q8_0_arm (NEON) */
static LK__UNUSED void lk__act_quantize_q8_0_ref(const float *x, void *vy, int64_t n) {
    lk_block_q8_0 *y = LK__CAST(lk_block_q8_0 *, vy);
    int64_t i, nb = n / LK_QK8_0;
    int j;
    for (i = 0; i < nb; i++, x += LK_QK8_0) {
        float amax = 0.0f, id;
        for (j = 0; j < LK_QK8_0; j++) amax = amax > fabsf(x[j]) ? amax : fabsf(x[j]);
        y[i].d = LK__F2H(amax / 127.0f);
        id = amax != 0.0f ? 127.0f / amax : 0.0f;
        for (j = 0; j < LK_QK8_0; j++) y[i].qs[j] = (int8_t)lk__act_round(x[j] * id);
    }
}
/* SIMD: lk__act_q8_1_x86 (x86), lk__act_q8_1_arm (NEON) */
static LK__UNUSED void lk__act_quantize_q8_1_ref(const float *x, void *vy, int64_t n) {
    lk_block_q8_1 *y = LK__CAST(lk_block_q8_1 *, vy);
    int64_t i, nb = n / LK_QK8_1;
    int j;
    for (i = 0; i < nb; i++, x += LK_QK8_1) {
        float amax = 0.0f, id, d;
        int sum = 0;
        for (j = 0; j < LK_QK8_1; j++) amax = amax > fabsf(x[j]) ? amax : fabsf(x[j]);
        d = amax / 127.0f;
        y[i].d = LK__F2H(d);
        id = amax != 0.0f ? 127.0f / amax : 0.0f;
        for (j = 0; j < LK_QK8_1; j++) { y[i].qs[j] = (int8_t)lk__act_round(x[j] * id); sum += y[i].qs[j]; }
        y[i].s = LK__F2H(d * (float)sum);
    }
}
static lk_from_float_fn lk__act_quantizer(const lk_type_traits *vt) {
    if (vt == &lk__type_table[LK_TYPE_Q8_0]) return lk__act_quantize_q8_0;
    if (vt == &lk__type_table[LK_TYPE_Q8_1]) return lk__act_quantize_q8_1;
    return vt->from_float;
}
static void lk__matmul_quant_task(void *arg, int task, int n_tasks) {
    lk__matmul_job *j = LK__CAST(lk__matmul_job *, arg);
    int64_t c0 = j->n_cols * task / n_tasks, c1 = j->n_cols * (task + 1) / n_tasks, c;
    lk_from_float_fn q = lk__act_quantizer(j->vt);
    for (c = c0; c < c1; c++) {
        q(j->x + c * j->n_in, j->xq_w + (size_t)c * j->xq_row, j->n_in);
        if (j->ysum) {   /* q8_0 blocks: 8 x the sum of their 32 quants */
            const int64_t nbk = j->n_in / 32;
            const unsigned char *b = j->xq + (size_t)c * j->xq_row;
            int64_t i;
            for (i = 0; i < nbk; i++, b += 34) {
                int32_t sum = 0;
                int k;
                float d = LK__H2F((uint16_t)(b[0] | b[1] << 8));
                for (k = 0; k < 32; k++) sum += (int8_t)b[2 + k];
                j->ysum[2 * (c * nbk + i)] = 8 * sum;
                memcpy(&j->ysum[2 * (c * nbk + i) + 1], &d, 4);
            }
        }
    }
}
/* LK_LAYOUT_R8: groups of 8 rows split over tasks; columns in chunks of 64
 * (their activations stay in L2), LK__R8_NC at a time through the kernel */
static void lk__matmul_r8_task(void *arg, int task, int n_tasks) {
    lk__matmul_job *j = LK__CAST(lk__matmul_job *, arg);
    const int64_t ng = j->n_out / 8, g0 = ng * task / n_tasks, g1 = ng * (task + 1) / n_tasks, nbk = j->n_in / 32;
    const lk__r8_layout *L = &lk__kernels_of(j->W->type)->r8;
    const size_t gbytes = (size_t)(j->n_in / L->qk) * L->blk;
    const int64_t nc = LK__R8_NC;   /* columns per kernel call */
    int64_t cb, g, c;
    for (cb = 0; cb < j->n_cols; cb += 64) {
        const int64_t ce = cb + 64 < j->n_cols ? cb + 64 : j->n_cols;
        for (g = g0; g < g1; g++) {
            const unsigned char *wg = LK__CAST(const unsigned char *, j->W->data) + (size_t)g * gbytes;
            for (c = cb; c < ce; c += nc)
                j->r8(j->n_in, wg, j->xq + (size_t)c * j->xq_row, j->xq_row, j->ysum ? j->ysum + 2 * c * nbk : NULL, nbk, &j->y[c * j->n_out + 8 * g],
                      j->n_out, (int)(ce - c < nc ? ce - c : nc));
        }
    }
}
/* y[0..8) = vec_dot of f32 rows w + r ws (r < 8, ws in floats) with x, n % 16
 * != 0 (ggml's order: lk__dot64 over the 64-blocks, then the tail) */
static void lk__f32_rows8(int64_t n, const float *w, size_t ws, const float *x, float *y);
#if defined(LK__X86)
static void lk__f32_rows16(int64_t n, const float *w, size_t ws, const float *x, float *y);
#endif
static void lk__matmul_rows_task(void *arg, int task, int n_tasks) {
    lk__matmul_job *j = LK__CAST(lk__matmul_job *, arg);
    int64_t r0 = j->n_out * task / n_tasks, r1 = j->n_out * (task + 1) / n_tasks, rb, cb, r, c;
    const int64_t ne1 = j->W->ne[1];
    /* tiles of 32 weight rows x 16 columns stay in cache for prefill; inside,
     * LK__TR x LK__TC register tiles where the type has them. Every y element
     * is bit-identical to one vec_dot, whatever the split. */
    for (rb = r0; rb < r1; rb += 32) {
        int64_t re = rb + 32 < r1 ? rb + 32 : r1;
        for (cb = 0; cb < j->n_cols; cb += 16) {
            int64_t ce = cb + 16 < j->n_cols ? cb + 16 : j->n_cols;
            r = rb;
            if (j->f32_rows8) {
#if defined(LK__X86)
                for (; r + 16 <= re && r % ne1 + 16 <= ne1; r += 16) {   /* two groups, their tails' add chains interleaved */
                    const unsigned char *wrow = lk__matmul_wrow(j->W, r);
                    for (c = cb; c < ce; c++) lk__f32_rows16(j->n_in, LK__CAST(const float *, wrow), (size_t)j->W->nb[1] / sizeof(float),
                                                             LK__CAST(const float *, j->xq + (size_t)c * j->xq_row), &j->y[c * j->n_out + r]);
                }
#endif
                for (; r + 8 <= re && r % ne1 + 8 <= ne1; r += 8) {
                    const unsigned char *wrow = lk__matmul_wrow(j->W, r);
                    for (c = cb; c < ce; c++) lk__f32_rows8(j->n_in, LK__CAST(const float *, wrow), (size_t)j->W->nb[1] / sizeof(float),
                                                            LK__CAST(const float *, j->xq + (size_t)c * j->xq_row), &j->y[c * j->n_out + r]);
                }
            }
            if (j->tile1)
                for (; r + LK__TR <= re && r % ne1 + LK__TR <= ne1; r += LK__TR) {   /* rows in one 2-D slice */
                    const unsigned char *wrow = lk__matmul_wrow(j->W, r);
                    c = cb;
                    if (j->tile)
                        for (; c + LK__TC <= ce; c += LK__TC)
                            j->tile(j->n_in, wrow, j->W->nb[1], j->xq + (size_t)c * j->xq_row, j->xq_row, &j->y[c * j->n_out + r], j->n_out, j->kind);
                    for (; c < ce; c++)
                        j->tile1(j->n_in, wrow, j->W->nb[1], j->xq + (size_t)c * j->xq_row, j->xq_row, &j->y[c * j->n_out + r], j->n_out, j->kind);
                }
            for (; r < re; r++) {
                const unsigned char *wrow = lk__matmul_wrow(j->W, r);
                for (c = cb; c < ce; c++)    /* y[c][r] = dot(W[r], x[c]) */
                    j->wt->vec_dot(j->n_in, &j->y[c * j->n_out + r], wrow, j->xq + (size_t)c * j->xq_row);
            }
        }
    }
}

/* tasks a product is cut into (handed out dynamically): 4 per thread, 8
 * for prefill row tiles, where with 4 the last task leaves a thread idle
 * for a noticeable part of the product; decode and interleaved rows gain
 * nothing from more than 4 */
static int lk__mm_chunks(const lk__matmul_job *j, int nt) {
    const int64_t units = j->r8 ? j->n_out / 8 : j->n_out, ch = (int64_t)(j->n_cols > 1 && !j->r8 ? 8 : 4) * nt;
    return (int)(units < ch ? units : ch);
}
/* lk_matmul's checks and set-up: job filled in, the activations quantized
 * into scratch (once: with share, a job of the same input whose quantized
 * columns fit this one, they are reused). *n_tasks: how lk_matmul splits
 * it (0: nothing to do). */
static lk_status lk__matmul_prep(lk__matmul_job *jp, const lk_tensor *W, const float *x, int64_t n_cols, float *y,
                                 void *scratch, size_t scratch_size, const lk_threads *th, const lk__matmul_job *share, int *n_tasks_out) {
    lk__matmul_job job;
    const lk_type_traits *wt;
    const lk__kernels *kt;
    size_t need;
    int nt, n_tasks;
    *n_tasks_out = 0;
    if (!W || !x || !y || n_cols < 0 || !W->data)
        return lk_set_error(LK_ERR_INVALID_ARG, "lk_matmul: NULL argument or negative column count");
    wt = lk_type_get(W->type);
    if (!wt || !wt->vec_dot)
        return lk_set_error(LK_ERR_UNSUPPORTED, "lk_matmul: no dot product for weight type %s%s", lk_type_name(W->type), LK__NO_IQ_HINT);
    kt = lk__kernels_of(W->type);
    if (W->ne[0] <= 0 || W->ne[0] % wt->blck_size || W->ne[1] < 0 || W->ne[2] < 1 || W->ne[3] < 1)
        return lk_set_error(LK_ERR_INVALID_ARG, "lk_matmul: bad weight shape [%lld, %lld]", (long long)W->ne[0], (long long)W->ne[1]);
    if (W->layout != LK_LAYOUT_ROWS &&
        (W->layout != LK_LAYOUT_R8 || !lk_repack_r8_size(W) || W->ne[2] != 1 || W->ne[3] != 1))
        return lk_set_error(LK_ERR_INVALID_ARG, "lk_matmul: layout %d is not valid for this %s weight", W->layout, wt->name);
    memset(&job, 0, sizeof job);
    job.wt = wt;
    job.vt = lk_type_get(wt->vec_dot_type);
    job.W = W; job.x = x; job.y = y;
    job.n_in = W->ne[0];
    job.n_out = W->ne[1] * W->ne[2] * W->ne[3];
    job.n_cols = n_cols;
    if (n_cols == 0 || job.n_out == 0) { *jp = job; return LK_OK; }
    if (!job.vt || (wt->vec_dot_type != LK_TYPE_F32 && !job.vt->from_float))
        return lk_set_error(LK_ERR_UNSUPPORTED, "lk_matmul: cannot quantize activations to %s", lk_type_name(wt->vec_dot_type));
    if (job.n_in % job.vt->blck_size)
        return lk_set_error(LK_ERR_INVALID_ARG, "lk_matmul: row length %lld does not fit %s activations",
                            (long long)job.n_in, job.vt->name);
    need = lk_matmul_scratch_size(W->type, job.n_in, n_cols);
    nt = lk_threads_count(th);
    if (nt < 1) nt = 1;
    if (wt->vec_dot_type == LK_TYPE_F32) {
        job.xq = LK__CAST(const unsigned char *, (const void *)x);   /* f32: x is used in place */
        job.xq_row = (size_t)job.n_in * sizeof(float);
    } else if (share && share->x == x && share->n_cols == n_cols && share->n_in == job.n_in && share->wt->vec_dot_type == wt->vec_dot_type &&
               (share->ysum != NULL || !(W->layout == LK_LAYOUT_R8 && wt->vec_dot_type == LK_TYPE_Q8_0))) {
        job.xq = share->xq; job.xq_w = share->xq_w; job.xq_row = share->xq_row;   /* the same quantized columns */
        if (W->layout == LK_LAYOUT_R8) job.ysum = share->ysum;
    } else {
        uintptr_t p;
        if (!need) return lk_set_error(LK_ERR_RANGE, "lk_matmul: activation buffer size overflows");
        /* quantizing would turn NaN / inf into ordinary numbers: refuse them */
        if (!lk__all_finite(x, (size_t)(job.n_in * n_cols)))
            return lk_set_error(LK_ERR_FORMAT, "lk_matmul: NaN or infinite activations going into a %s product: the weights or inputs "
                                "upstream are not finite (check_tensors finds such weights at load)", wt->name);
        if (!scratch || scratch_size < need)
            return lk_set_error(LK_ERR_INVALID_ARG, "lk_matmul: scratch of %zu bytes, need %zu", scratch ? scratch_size : (size_t)0, need);
        p = ((uintptr_t)scratch + 63u) & ~(uintptr_t)63u;
        job.xq_w = LK__CAST(unsigned char *, (void *)p);
        job.xq = job.xq_w;
        job.xq_row = lk_row_size(wt->vec_dot_type, job.n_in);
        if (W->layout == LK_LAYOUT_R8 && wt->vec_dot_type == LK_TYPE_Q8_0)   /* after the columns, 64-byte aligned (the size has the slack) */
            job.ysum = LK__CAST(int32_t *, (void *)(((uintptr_t)(job.xq_w + (size_t)n_cols * job.xq_row) + 63u) & ~(uintptr_t)63u));
        n_tasks = (int)(n_cols < nt ? n_cols : nt);
        if (n_tasks <= 1 || n_cols * job.n_in < 65536) lk__matmul_quant_task(&job, 0, 1);   /* small: no fork */
        else lk_parallel_for(th, n_tasks, lk__matmul_quant_task, &job);
    }
    if (W->layout == LK_LAYOUT_R8) {
        job.r8 = kt->r8_simd ? kt->r8_simd : kt->r8.ref;
        if ((double)job.n_out * (double)job.n_in * (double)n_cols < 131072.0 || nt == 1) n_tasks = 1;
        else n_tasks = lk__mm_chunks(&job, nt);
        *jp = job; *n_tasks_out = n_tasks;
        return LK_OK;
    }
    job.tile = kt->tile;
    job.kind = kt->kind;
    /* 1 column (decode) keeps one row at a time: a single sequential weight
     * stream is faster than several rows read side by side (much faster on
     * wide rows, no slower on the 64-wide rows of stories260K; f16 gets
     * several rows in one stream from LK_LAYOUT_R8 instead), except
     * f32 rows of ggml's vec_dot order, whose scalar tails (the 44 last of
     * stories260K's 172) run four rows interleaved */
    job.tile1 = n_cols > 1 || (W->type == LK_TYPE_F32 && (job.n_in % 16 || job.n_in <= 256)) ? kt->tile1 : NULL;
#if defined(LK__X86)   /* (NEON's f32 vec_dot has other lanes) */
    job.f32_rows8 = W->type == LK_TYPE_F32 && job.n_in % 16 && W->nb[1] % sizeof(float) == 0;
#endif
    /* rows in 4 chunks per thread, handed out dynamically: a thread that the
     * OS pushes off a busy core no longer holds up the whole matmul. Tiny
     * matmuls run in the caller (a parallel region costs microseconds). */
    if ((double)job.n_out * (double)job.n_in * (double)n_cols < 131072.0 || nt == 1) n_tasks = 1;
    else n_tasks = lk__mm_chunks(&job, nt);
    *jp = job; *n_tasks_out = n_tasks;
    return LK_OK;
}
static void lk__matmul_task(void *arg, int task, int n_tasks) {
    const lk__matmul_job *j = LK__CAST(const lk__matmul_job *, arg);
    if (j->r8) lk__matmul_r8_task(arg, task, n_tasks);
    else lk__matmul_rows_task(arg, task, n_tasks);
}
LKDEF lk_status lk_matmul(const lk_tensor *W, const float *x, int64_t n_cols, float *y,
                          void *scratch, size_t scratch_size, const lk_threads *th) {
    lk__matmul_job job;
    int n_tasks;
    lk_status st = lk__matmul_prep(&job, W, x, n_cols, y, scratch, scratch_size, th, NULL, &n_tasks);
    if (st || n_tasks == 0) return st;
    if (n_tasks == 1) lk__matmul_task(&job, 0, 1);
    else lk_parallel_for(th, n_tasks, lk__matmul_task, &job);
    return LK_OK;
}
/* Up to four products of the same input x (Q, K and V; gate and up): the
 * activations quantized once and every product's row chunks in one
 * parallel region (one fork and one barrier instead of one per product,
 * and the small ones, which lk_matmul runs on one thread, shared out too).
 * Each output row is the same vec_dot as lk_matmul's (same results). */
typedef struct lk__matmul_multi { lk__matmul_job job[4]; int first[5]; int n; } lk__matmul_multi;
static void lk__matmul_multi_task(void *arg, int task, int n_tasks) {
    lk__matmul_multi *mm = LK__CAST(lk__matmul_multi *, arg);
    int k = 0;
    (void)n_tasks;
    while (task >= mm->first[k + 1]) k++;
    lk__matmul_task(&mm->job[k], task - mm->first[k], mm->first[k + 1] - mm->first[k]);
}
/* 1 if a product of W with x can use the quantized columns of job s (the
 * condition under which lk__matmul_prep reuses them) */
static int lk__matmul_shares(const lk__matmul_job *s, const lk_tensor *W, const float *x, int64_t n_cols) {
    const lk_type_traits *wt = lk_type_get(W->type);
    return wt && s->x == x && s->n_cols == n_cols && s->n_in == W->ne[0] && s->wt->vec_dot_type == wt->vec_dot_type &&
           (s->ysum != NULL || !(W->layout == LK_LAYOUT_R8 && wt->vec_dot_type == LK_TYPE_Q8_0));
}
static void lk__matmul_multi_run(lk__matmul_multi *mm, double work, int nt, const lk_threads *th) {
    int k;
    if (nt == 1 || work < 131072.0) { for (k = 0; k < mm->n; k++) lk__matmul_task(&mm->job[k], 0, 1); }   /* small: no fork */
    else lk_parallel_for(th, mm->first[mm->n], lk__matmul_multi_task, mm);
    mm->n = 0;
}
static lk_status lk__matmul_n(const lk_tensor *const *W, int n, const float *x, int64_t n_cols, float *const *y,
                              void *scratch, size_t scratch_size, const lk_threads *th) {
    lk__matmul_multi mm;
    const lk__matmul_job *base = NULL;   /* the pending job whose quantized columns are in scratch */
    double work = 0.0;
    int k, nt = lk_threads_count(th), nk;
    lk_status st;
    if (nt < 1) nt = 1;
    mm.n = 0; mm.first[0] = 0;
    for (k = 0; k < n && k < 4; k++) {
        const lk_type_traits *wt = W[k] ? lk_type_get(W[k]->type) : NULL;
        lk__matmul_job *j;
        /* a product that must quantize x its own way would overwrite the scratch: run what is pending first */
        if (base && wt && wt->vec_dot_type != LK_TYPE_F32 && !lk__matmul_shares(base, W[k], x, n_cols)) {
            lk__matmul_multi_run(&mm, work, nt, th);
            base = NULL; work = 0.0;
        }
        j = &mm.job[mm.n];
        if ((st = lk__matmul_prep(j, W[k], x, n_cols, y[k], scratch, scratch_size, th, base, &nk))) return st;
        if (nk == 0) continue;
        if (!base && j->xq_w) base = j;
        work += (double)j->n_out * (double)j->n_in * (double)n_cols;
        mm.first[mm.n + 1] = mm.first[mm.n] + lk__mm_chunks(j, nt);
        mm.n++;
    }
    if (mm.n) lk__matmul_multi_run(&mm, work, nt, th);
    return LK_OK;
}
/* end of 14.7a (its strict-FP region goes on through 14.7b and the Cortex-M kernels of 14.7s) */

#ifndef LLMKIT_NO_IQ
/* --------------------------------------------------------------------------
 * 14.7b IQ and ternary formats
 * --------------------------------------------------------------------------
 * Kernels read and write raw little-endian bytes at the ggml offsets (see
 * the lk_block_* structs in section 7b), so they need no alignment and work
 * on any host byte order. The quantizers follow ggml's reference search
 * (ggml-quants.c at c392e5094, called without an importance matrix exactly
 * as llama-quantize does) step by step, in the same float operation order,
 * because the goal is identical bytes. Compilers must not fuse a*b+c into
 * an FMA there (ggml's reference build has no FMA): 14.7b lies inside
 * 14.7a's LK__STRICT_FP_BEGIN/END region, contraction off.
 * Clang 14 ignores that pragma under -ffp-contract=fast (keep its default
 * "on"), and -ffast-math breaks byte-exactness with any compiler; the
 * formats stay valid either way.
 * One known divergence: ggml's IQ3_XXS reads an uninitialised on-grid flag
 * when a sub-block's whole scale search underflows (|x| near 1e-8); we start
 * from "off grid" there. */

#define LK__IQ_QK 256                     /* weights per super-block */

/* the documented structs have exactly ggml's sizes (no padding) */
typedef char lk__iq_size_check[(sizeof(lk_block_iq4_nl) == 18 && sizeof(lk_block_iq4_xs) == 136 &&
    sizeof(lk_block_iq3_xxs) == 98 && sizeof(lk_block_iq3_s) == 110 && sizeof(lk_block_iq2_xxs) == 66 &&
    sizeof(lk_block_iq2_xs) == 74 && sizeof(lk_block_iq2_s) == 82 && sizeof(lk_block_iq1_s) == 50 &&
    sizeof(lk_block_iq1_m) == 56 && sizeof(lk_block_tq1_0) == 54 && sizeof(lk_block_tq2_0) == 66) ? 1 : -1];

#ifndef LLMKIT_NO_QUANTIZE
static void lk__iq_wr32(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); p[2] = (uint8_t)(v >> 16); p[3] = (uint8_t)(v >> 24);
}
#endif
static float lk__iq_rdf32(const uint8_t *p) { uint32_t u = lk__rd32(p); float f; memcpy(&f, &u, 4); return f; }

/* fp16 <-> fp32: lk_fp16_to_fp32 / lk_fp32_to_fp16; rounding to nearest int:
 * lk__nearest_int (both 7a) */

/* ---- format data ----------------------------------------------------------
 * These tables define the ggml formats (they are not tuning parameters).
 * Each grid entry is stored compactly as its per-weight level indices;
 * the kernels expand an entry to its byte values when they read it. The
 * codes are the same numbers ggml's quantizer init uses (kgrid_*), and a
 * test checks the expanded grids against checksums of ggml's full tables.
 *   iq2 grids: 8 weights x 2 bits, level -> {8, 25, 43}
 *   iq3 grids: 4 weights x 3 bits, iq3_xxs level -> {4,12,20,28,36,44,52,62},
 *              iq3_s level l -> 2l+1
 *   iq1 grid:  8 weights x 2 bits, level -> {-1, 0, +1}
 * Sign bytes: ggml stores 7 sign bits per 8 weights and the 8th is the
 * parity (an even number of negative weights); kmask bit j is weight j. */
static const int8_t lk__iq4nl_values[16] = {-127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113};
static const uint8_t lk__iq2_levels[4] = {8, 25, 43, 0};
static const uint8_t lk__iq3xxs_levels[8] = {4, 12, 20, 28, 36, 44, 52, 62};
static const int8_t lk__iq1_levels[4] = {-1, 0, 1, 0};
#define LK__IQ1S_DELTA 0.125f
#define LK__IQ1M_DELTA 0.125f

/* The IQ grids as one table, in ggml's order (iq2xxs_grid, iq2xs_grid,
 * iq2s_grid, iq3xxs_grid, iq3s_grid, iq1s_grid), 16 entries per row:
 *   rows   0- 15  IQ2_XXS  256 entries x 8 weights
 *   rows  16- 47  IQ2_XS   512 entries x 8 weights
 *   rows  48-111  IQ2_S   1024 entries x 8 weights
 *   rows 112-127  IQ3_XXS  256 entries x 4 weights
 *   rows 128-159  IQ3_S    512 entries x 4 weights
 *   rows 160-287  IQ1_S / IQ1_M 2048 entries x 8 weights */
static const uint16_t lk__iq_grids[4608] = {
    0,2,5,8,10,17,20,32,34,40,42,65,68,80,88,97,
    100,128,130,138,162,257,260,272,277,320,388,408,512,514,546,642,
    1025,1028,1040,1057,1060,1088,1090,1096,1120,1153,1156,1168,1188,1280,1282,1288,
    1312,1350,1385,1408,1425,1545,1552,1600,1668,1700,2048,2053,2056,2068,2088,2113,
    2116,2128,2130,2184,2308,2368,2562,2580,4097,4100,4112,4129,4160,4192,4228,4240,
    4245,4352,4360,4384,4432,4442,4480,4644,4677,5120,5128,5152,5157,5193,5248,5400,
    5474,5632,5654,6145,6148,6160,6208,6273,6400,6405,6560,6737,8192,8194,8202,8260,
    8289,8320,8322,8489,8520,8704,8706,9217,9220,9232,9280,9302,9472,9537,9572,9872,
    10248,10272,10388,10820,16385,16388,16400,16408,16417,16420,16448,16456,16470,16480,16513,16516,
    16528,16640,16672,16737,16768,16773,16897,16912,16968,16982,17000,17408,17416,17440,17536,17561,
    17682,17700,17920,18433,18436,18448,18496,18501,18688,18776,18785,18818,19013,19088,20480,20488,
    20497,20505,20512,20608,20616,20740,20802,20900,21137,21648,21650,21770,22017,22100,22528,22545,
    22553,22628,22848,23048,24580,24592,24640,24680,24832,24917,25112,25184,25600,25605,25872,25874,
    25988,26690,32768,32770,32778,32833,32898,33028,33048,33088,33297,33793,33796,33808,33813,33856,
    33888,34048,34118,34196,34313,34368,34400,34818,35076,35345,36868,36880,36900,36928,37025,37142,
    37248,37445,37888,37922,37956,38225,39041,39200,40962,41040,41093,41225,41472,42008,43088,43268,
    0,2,5,8,10,17,20,22,25,32,34,37,40,65,68,70,
    73,80,82,85,88,97,100,128,130,133,136,145,148,153,160,257,
    260,262,265,272,274,277,280,282,289,292,320,322,325,328,337,340,
    352,360,385,388,400,512,514,517,520,529,532,544,577,580,592,597,
    640,650,1025,1028,1030,1033,1040,1042,1045,1048,1057,1060,1088,1090,1093,1096,
    1105,1108,1110,1120,1153,1156,1168,1280,1282,1285,1288,1297,1300,1312,1345,1348,
    1360,1377,1408,1537,1540,1552,1574,1600,1602,1668,2048,2050,2053,2056,2058,2065,
    2068,2080,2085,2113,2116,2128,2136,2176,2208,2218,2305,2308,2320,2368,2433,2441,
    2560,2592,2600,2710,2720,4097,4100,4102,4105,4112,4114,4117,4120,4129,4132,4160,
    4162,4165,4168,4177,4180,4192,4202,4225,4228,4240,4352,4354,4357,4360,4369,4372,
    4384,4417,4420,4432,4480,4500,4502,4609,4612,4614,4624,4672,4704,5120,5122,5125,
    5128,5137,5140,5152,5185,5188,5193,5200,5220,5248,5377,5380,5392,5440,5632,5652,
    5705,6145,6148,6160,6162,6208,6228,6278,6400,6405,6502,6737,6825,8192,8194,8197,
    8200,8202,8209,8212,8224,8257,8260,8272,8320,8352,8449,8452,8464,8512,8520,8549,
    8704,8738,8832,8872,9217,9220,9232,9257,9280,9472,9537,9554,9625,9729,9754,9894,
    10240,10248,10250,10272,10325,10376,10402,10600,10640,10760,10784,10882,10888,10890,16385,16388,
    16390,16393,16400,16402,16405,16408,16417,16420,16448,16450,16453,16456,16458,16465,16468,16480,
    16485,16513,16516,16528,16640,16642,16645,16648,16657,16660,16672,16705,16708,16720,16768,16773,
    16802,16897,16900,16912,16914,16937,16960,17408,17410,17413,17416,17425,17428,17433,17440,17473,
    17476,17488,17536,17556,17665,17668,17680,17700,17728,17818,17920,17930,17988,18000,18433,18436,
    18448,18496,18501,18516,18530,18688,18705,18756,18768,18793,18948,20480,20482,20485,20488,20497,
    20500,20512,20520,20545,20548,20560,20608,20737,20740,20752,20757,20800,20802,20992,21060,21162,
    21505,21508,21520,21537,21568,21600,21633,21665,21760,21768,21888,21896,22049,22120,22177,22528,
    22548,22593,22608,22681,22810,22848,22850,23173,24577,24580,24592,24640,24660,24674,24710,24745,
    24832,25124,25162,25234,25600,25622,25872,25920,25925,26020,26625,26730,26917,27142,27220,27234,
    32768,32770,32773,32776,32785,32788,32800,32810,32833,32836,32848,32896,32898,32936,32938,33025,
    33028,33030,33040,33088,33105,33113,33280,33312,33408,33410,33440,33448,33793,33796,33808,33810,
    33813,33856,33888,33929,34048,34116,34213,34328,34410,34816,34824,34853,34906,34944,34946,34984,
    35078,35362,35456,35464,35478,35496,36865,36868,36880,36928,36950,36996,37120,37154,37220,37462,
    37513,37888,37893,37956,37968,37976,38185,38288,38290,38465,38993,39078,39241,39445,39520,40960,
    40962,40968,40970,40992,41002,41120,41297,41305,41382,41472,41474,41480,41514,41600,41632,42048,
    42133,42597,42648,43018,43040,43042,43048,43168,43176,43268,43396,43398,43560,43562,43665,43690,
    0,2,5,8,10,17,20,22,25,32,34,37,40,65,68,70,
    73,80,82,85,88,97,100,102,105,128,130,133,136,145,148,160,
    165,170,257,260,262,265,272,274,277,280,289,292,320,322,325,328,
    337,340,342,345,352,357,360,385,388,400,402,405,417,420,512,514,
    517,520,529,532,544,554,577,580,582,585,592,597,640,645,650,660,
    674,1025,1028,1030,1033,1040,1042,1045,1048,1057,1060,1062,1065,1088,1090,1093,
    1096,1098,1105,1108,1110,1113,1120,1122,1125,1153,1156,1158,1161,1168,1173,1176,
    1185,1188,1280,1282,1285,1288,1290,1297,1300,1302,1305,1312,1317,1320,1345,1348,
    1350,1353,1360,1362,1365,1368,1377,1380,1408,1410,1413,1416,1425,1428,1440,1537,
    1540,1542,1545,1552,1557,1600,1605,1608,1617,1620,1632,1665,1668,1680,2048,2050,
    2053,2056,2065,2068,2070,2073,2080,2085,2090,2113,2116,2118,2121,2128,2130,2133,
    2136,2145,2148,2176,2181,2196,2218,2305,2308,2320,2322,2325,2328,2337,2368,2373,
    2376,2385,2388,2400,2433,2448,2560,2577,2580,2594,2600,2602,2640,2713,4097,4100,
    4102,4105,4112,4114,4117,4120,4129,4132,4134,4160,4162,4165,4168,4177,4180,4182,
    4185,4192,4194,4197,4200,4225,4228,4230,4240,4245,4248,4257,4260,4352,4354,4357,
    4360,4362,4369,4372,4374,4377,4384,4386,4389,4392,4417,4420,4422,4425,4432,4434,
    4437,4440,4449,4452,4480,4482,4485,4488,4497,4500,4609,4612,4617,4624,4629,4641,
    4644,4672,4677,4689,4692,4737,4740,4752,5120,5122,5125,5128,5137,5140,5142,5145,
    5152,5157,5160,5185,5188,5190,5193,5200,5202,5205,5208,5217,5220,5248,5250,5253,
    5256,5265,5268,5280,5377,5380,5382,5385,5392,5394,5397,5400,5409,5412,5440,5442,
    5445,5448,5457,5460,5472,5505,5508,5520,5632,5637,5640,5649,5652,5664,5697,5700,
    5712,5760,5802,6145,6148,6150,6153,6160,6165,6168,6177,6208,6210,6213,6216,6225,
    6228,6240,6273,6276,6400,6402,6405,6408,6417,6420,6432,6465,6468,6480,6505,6562,
    6660,6672,6720,6742,8192,8194,8197,8200,8209,8212,8214,8217,8224,8229,8234,8257,
    8260,8272,8274,8277,8292,8320,8330,8340,8362,8449,8452,8464,8466,8469,8481,8512,
    8514,8517,8529,8532,8544,8577,8580,8592,8704,8714,8738,8744,8746,8772,8784,8840,
    8842,8872,9217,9220,9222,9225,9232,9237,9240,9249,9252,9280,9282,9285,9288,9297,
    9300,9312,9345,9348,9360,9472,9477,9480,9489,9492,9504,9537,9540,9552,9574,9600,
    9729,9732,9744,9792,9817,10240,10245,10257,10260,10305,10308,10320,10378,10410,10497,10500,
    10512,10645,10762,10786,10852,10888,10890,16385,16388,16390,16393,16400,16402,16405,16408,16410,
    16417,16420,16422,16448,16450,16453,16456,16458,16465,16468,16470,16473,16480,16482,16485,16513,
    16516,16528,16533,16536,16545,16548,16640,16642,16645,16648,16657,16660,16662,16665,16672,16674,
    16677,16705,16708,16710,16713,16720,16722,16725,16728,16737,16740,16768,16770,16773,16776,16785,
    16788,16800,16897,16900,16912,16914,16917,16920,16932,16960,16965,16968,16977,16980,16992,17025,
    17028,17408,17410,17413,17416,17418,17425,17428,17430,17433,17440,17442,17445,17448,17473,17476,
    17478,17481,17488,17490,17493,17496,17505,17508,17536,17538,17541,17544,17553,17556,17568,17665,
    17668,17670,17673,17680,17682,17685,17688,17697,17700,17728,17730,17733,17736,17745,17748,17760,
    17770,17793,17796,17808,17920,17922,17925,17928,17937,17940,17952,17985,17988,18000,18048,18085,
    18433,18436,18441,18448,18450,18453,18456,18465,18468,18496,18498,18501,18504,18513,18516,18528,
    18564,18576,18688,18690,18693,18696,18705,18708,18720,18753,18756,18768,18816,18838,18945,18948,
    18960,19008,20480,20482,20485,20488,20497,20500,20502,20505,20512,20514,20517,20520,20545,20548,
    20550,20553,20560,20562,20565,20568,20577,20580,20608,20610,20613,20616,20625,20628,20737,20740,
    20742,20745,20752,20754,20757,20760,20769,20772,20800,20802,20805,20808,20817,20820,20832,20865,
    20868,20880,20992,20997,21000,21009,21012,21024,21057,21060,21072,21097,21120,21505,21508,21510,
    21513,21520,21522,21525,21528,21537,21540,21568,21570,21573,21576,21585,21588,21600,21633,21636,
    21648,21760,21762,21765,21768,21777,21780,21792,21825,21828,21840,21888,22017,22020,22032,22054,
    22080,22528,22530,22533,22536,22545,22548,22560,22593,22596,22608,22618,22656,22785,22788,22800,
    22848,23040,23065,23173,23208,24577,24580,24582,24592,24594,24597,24600,24609,24612,24640,24645,
    24648,24657,24660,24672,24708,24720,24832,24834,24837,24840,24849,24852,24864,24897,24900,24912,
    24960,24985,25092,25104,25152,25174,25249,25600,25605,25608,25617,25620,25632,25665,25668,25680,
    25728,25857,25860,25872,25920,25930,25960,26002,26112,26260,26625,26628,26640,26725,26776,26880,
    26922,27202,27297,32768,32770,32773,32776,32785,32788,32793,32800,32805,32833,32836,32848,32850,
    32853,32856,32865,32896,32901,32913,32916,33025,33028,33033,33040,33042,33045,33048,33057,33060,
    33088,33090,33093,33096,33105,33108,33153,33156,33168,33193,33280,33285,33290,33297,33300,33345,
    33348,33360,33793,33796,33798,33801,33808,33810,33813,33816,33825,33856,33858,33861,33864,33873,
    33876,33888,33921,33924,33936,34048,34050,34053,34056,34065,34068,34080,34113,34116,34128,34176,
    34186,34305,34308,34320,34345,34368,34816,34821,34833,34836,34881,34884,34896,34978,35073,35076,
    35136,35173,35362,35416,35418,35458,35490,36865,36868,36873,36880,36882,36885,36888,36900,36928,
    36930,36933,36936,36945,36948,36960,36993,36996,37008,37120,37125,37137,37140,37185,37188,37200,
    37210,37377,37380,37392,37440,37542,37888,37890,37893,37896,37905,37908,37920,37953,37956,37968,
    38016,38038,38145,38148,38160,38208,38296,38305,38400,38470,38500,38913,38916,38928,38950,38976,
    39081,39168,39241,39250,39568,40960,40965,40970,40980,40994,41002,41025,41028,41040,41122,41130,
    41280,41317,41474,41482,41506,41512,41514,41602,41608,41610,41640,41985,41988,42000,42048,42121,
    42148,42240,42265,42577,43018,43048,43170,43348,43398,43528,43530,43552,43554,43560,43656,43690,
    0,2,4,9,11,15,16,18,25,34,59,61,65,67,72,74,
    81,85,88,90,97,108,120,128,130,132,137,144,146,153,155,159,
    169,175,189,193,199,200,202,213,248,267,287,292,303,315,317,321,
    327,346,362,413,436,456,460,462,483,497,513,515,520,522,529,531,
    536,538,540,551,552,576,578,585,592,594,641,643,648,650,657,664,
    698,704,706,720,729,742,758,769,773,808,848,852,870,889,901,978,
    992,1024,1026,1033,1035,1040,1042,1046,1049,1058,1089,1091,1093,1096,1098,1105,
    1112,1139,1143,1144,1152,1154,1161,1167,1168,1170,1183,1184,1197,1217,1224,1228,
    1272,1276,1309,1323,1347,1367,1377,1404,1473,1475,1486,1509,1537,1544,1546,1553,
    1555,1576,1589,1594,1600,1602,1616,1625,1636,1638,1665,1667,1672,1685,1706,1722,
    1737,1755,1816,1831,1850,1856,1862,1874,1901,1932,1950,1971,2011,2032,2052,2063,
    2077,2079,2091,2095,2172,2192,2207,2208,2224,2230,2247,2277,2308,2345,2356,2389,
    2403,2424,2501,2504,2506,2520,2570,2593,2616,2624,2630,2646,2669,2700,2714,2746,
    2754,2795,2824,2835,2839,2874,2882,2905,2984,3028,3042,3092,3108,3110,3124,3153,
    3185,3215,3252,3288,3294,3364,3397,3434,3483,3523,3537,3587,3589,3591,3592,3610,
    3626,3670,3680,3722,3749,3754,3776,3789,3803,3824,3857,3873,3904,3906,3924,3992,
    0,1,2,5,7,8,9,10,12,14,16,17,21,27,32,34,
    37,39,41,43,48,50,57,60,63,64,65,66,68,72,73,77,
    80,83,87,89,93,100,113,117,122,128,129,133,135,136,139,142,
    145,149,152,156,162,165,167,169,171,184,187,195,201,205,208,210,
    217,219,222,228,232,234,247,249,253,256,267,271,273,276,282,288,
    291,297,312,322,324,336,338,342,347,353,357,359,374,379,390,393,
    395,409,426,441,448,450,452,464,466,470,475,488,492,512,513,514,
    516,520,521,523,525,527,528,530,537,540,542,556,558,561,570,576,
    577,579,582,584,588,593,600,603,609,616,618,632,638,640,650,653,
    655,656,660,666,672,675,685,688,698,705,708,711,712,715,721,727,
    728,732,737,754,760,771,773,778,780,793,795,802,806,808,812,833,
    840,843,849,856,858,873,912,916,919,932,934,961,963,968,970,977,
    989,993,1010,1016,1024,1025,1027,1029,1031,1032,1034,1036,1038,1041,1043,1047,
    1048,1050,1057,1059,1061,1064,1066,1079,1080,1083,1085,1088,1090,1096,1099,1103,
    1106,1109,1113,1116,1122,1129,1153,1156,1159,1169,1171,1176,1183,1185,1195,1199,
    1209,1212,1216,1218,1221,1225,1234,1236,1241,1243,1250,1256,1270,1281,1287,1296,
    1299,1306,1309,1313,1338,1341,1348,1353,1362,1375,1376,1387,1400,1408,1410,1415,
    1425,1453,1457,1477,1481,1494,1496,1507,1512,1538,1545,1547,1549,1551,1554,1561,
    1563,1565,1570,1572,1575,1577,1587,1593,1601,1603,1605,1612,1617,1619,1632,1648,
    1658,1662,1664,1674,1680,1690,1692,1704,1729,1736,1740,1745,1747,1751,1752,1761,
    1763,1767,1773,1787,1795,1801,1806,1810,1817,1834,1840,1844,1857,1864,1866,1877,
    1882,1892,1902,1915,1934,1953,1985,1987,2000,2002,2013,2048,2052,2058,2064,2068,
    2071,2074,2081,2088,2104,2114,2119,2121,2123,2130,2136,2141,2147,2153,2157,2177,
    2179,2184,2189,2193,2203,2208,2223,2226,2232,2244,2249,2251,2256,2258,2265,2269,
    2304,2306,2324,2335,2336,2361,2373,2375,2385,2418,2443,2460,2480,2504,2509,2520,
    2531,2537,2562,2568,2572,2578,2592,2596,2599,2602,2614,2620,2625,2627,2629,2634,
    2641,2650,2682,2688,2697,2707,2712,2718,2731,2754,2759,2760,2775,2788,2793,2805,
    2811,2817,2820,2832,2842,2854,2890,2902,2921,2923,2978,3010,3012,3026,3081,3083,
    3085,3097,3099,3120,3136,3152,3159,3188,3210,3228,3234,3245,3250,3256,3264,3276,
    3281,3296,3349,3363,3378,3392,3395,3420,3440,3461,3488,3529,3531,3584,3588,3591,
    3600,3602,3614,3616,3628,3634,3650,3657,3668,3683,3685,3713,3716,3720,3726,3729,
    3736,3753,3778,3802,3805,3819,3841,3845,3851,3856,3880,3922,3938,3970,3993,4032,
    0,2,5,8,10,17,21,32,34,40,42,69,81,84,86,101,
    128,130,136,138,149,160,162,168,170,260,261,273,276,278,281,282,
    293,321,326,329,338,341,346,353,356,358,360,389,401,404,406,421,
    512,514,520,522,533,544,546,552,554,581,593,601,612,617,640,642,
    648,650,657,661,665,672,674,680,682,1041,1044,1046,1061,1089,1097,1109,
    1114,1124,1125,1169,1177,1189,1281,1284,1285,1286,1301,1304,1306,1321,1344,1349,
    1354,1360,1361,1364,1365,1366,1369,1376,1378,1381,1384,1386,1409,1425,1429,1432,
    1434,1441,1444,1445,1446,1449,1556,1561,1601,1604,1616,1618,1621,1624,1632,1633,
    1638,1641,1669,1681,1684,1689,2048,2050,2056,2058,2069,2080,2082,2088,2090,2117,
    2129,2134,2149,2176,2178,2184,2186,2197,2208,2210,2216,2218,2309,2321,2324,2329,
    2340,2341,2369,2384,2385,2389,2401,2404,2409,2449,2452,2454,2457,2469,2560,2562,
    2568,2570,2581,2592,2594,2600,2602,2629,2641,2649,2657,2661,2688,2690,2693,2696,
    2698,2709,2720,2722,2728,2730,4112,4113,4116,4121,4132,4133,4161,4164,4176,4181,
    4184,4193,4196,4197,4201,4241,4244,4246,4257,4261,4353,4356,4358,4361,4368,4370,
    4373,4376,4385,4388,4393,4421,4426,4432,4433,4434,4436,4437,4438,4441,4448,4453,
    4484,4498,4501,4513,4516,4625,4628,4630,4645,4672,4678,4681,4690,4693,4696,4698,
    4708,4710,4741,4753,4756,4758,4773,5121,5126,5129,5140,5141,5144,5145,5153,5158,
    5185,5189,5190,5192,5194,5201,5204,5205,5206,5209,5218,5221,5224,5252,5257,5264,
    5268,5269,5272,5273,5274,5281,5284,5285,5289,5378,5381,5386,5393,5396,5397,5398,
    5401,5408,5410,5413,5416,5418,5441,5444,5445,5446,5457,5458,5460,5461,5462,5465,
    5466,5473,5476,5477,5478,5481,5504,5506,5508,5509,5512,5514,5520,5521,5524,5525,
    5526,5529,5530,5536,5538,5541,5633,5636,5637,5638,5653,5654,5656,5658,5665,5670,
    5696,5698,5700,5701,5704,5706,5713,5717,5718,5720,5721,5729,5732,5733,5736,5737,
    5738,5766,5770,5778,5781,5796,5801,6161,6166,6181,6209,6212,6214,6217,6224,6229,
    6232,6234,6240,6241,6244,6246,6249,6277,6289,6292,6309,6416,6418,6421,6426,6433,
    6437,6466,6468,6469,6472,6481,6484,6485,6486,6489,6490,6496,6501,6506,6537,6545,
    6546,6549,6552,6561,6566,6569,6665,6678,6692,6694,6724,6726,6729,6736,6738,6741,
    6744,6753,6758,6761,6789,6801,6806,6810,8192,8194,8200,8202,8213,8224,8226,8229,
    8232,8234,8261,8273,8281,8289,8293,8320,8322,8328,8330,8341,8352,8354,8357,8360,
    8362,8453,8465,8468,8473,8485,8514,8516,8521,8533,8536,8538,8545,8548,8549,8550,
    8581,8592,8598,8601,8613,8705,8712,8714,8721,8725,8736,8738,8744,8746,8773,8785,
    8790,8793,8805,8833,8840,8842,8849,8853,8864,8866,8872,8874,9221,9236,9238,9241,
    9253,9284,9285,9286,9289,9298,9301,9304,9306,9318,9349,9361,9364,9369,9377,9381,
    9481,9493,9505,9513,9536,9541,9544,9553,9556,9557,9561,9570,9573,9576,9609,9616,
    9620,9621,9624,9626,9633,9636,9638,9641,9733,9744,9746,9753,9765,9793,9801,9813,
    9824,9825,9833,9860,9862,9872,9882,10240,10242,10248,10250,10261,10272,10274,10280,10282,
    10309,10321,10324,10341,10368,10370,10376,10378,10400,10402,10408,10410,10505,10513,10516,10521,
    10533,10566,10569,10578,10581,10593,10596,10598,10601,10629,10640,10646,10649,10660,10661,10752,
    10754,10760,10762,10784,10786,10792,10794,10821,10833,10838,10841,10853,10880,10882,10888,10890,
    10901,10912,10914,10920,10922,16389,16401,16406,16421,16457,16466,16469,16472,16474,16481,16484,
    16486,16532,16537,16545,16550,16640,16641,16644,16646,16649,16658,16661,16662,16664,16666,16673,
    16678,16681,16709,16712,16714,16721,16724,16725,16726,16729,16730,16741,16744,16746,16769,16772,
    16774,16784,16786,16789,16800,16801,16802,16901,16913,16916,16918,16933,16961,16978,16981,16986,
    16996,17001,17033,17044,17061,17409,17429,17433,17449,17477,17480,17482,17489,17492,17493,17494,
    17505,17506,17509,17512,17514,17537,17542,17545,17552,17554,17557,17568,17569,17577,17665,17666,
    17669,17674,17681,17684,17685,17686,17689,17696,17701,17706,17729,17732,17733,17734,17737,17744,
    17745,17748,17749,17750,17752,17753,17761,17764,17765,17766,17769,17794,17796,17797,17800,17809,
    17812,17813,17814,17817,17818,17829,17832,17834,17921,17925,17929,17940,17941,17944,17946,17953,
    17956,17961,17984,17986,17989,17992,18000,18001,18002,18005,18006,18009,18018,18021,18024,18049,
    18053,18058,18068,18069,18081,18084,18086,18437,18449,18453,18458,18469,18498,18505,18512,18517,
    18520,18529,18532,18534,18537,18565,18577,18580,18582,18585,18597,18689,18693,18694,18698,18704,
    18708,18709,18712,18721,18724,18726,18752,18757,18762,18769,18770,18772,18773,18774,18777,18784,
    18786,18789,18790,18794,18822,18825,18834,18837,18838,18840,18849,18852,18854,18857,18966,19012,
    19014,19017,19029,19032,19034,19044,19049,19092,19109,20481,20484,20485,20486,20489,20498,20501,
    20506,20513,20516,20521,20544,20549,20552,20561,20564,20565,20566,20569,20581,20584,20614,20617,
    20629,20632,20640,20641,20646,20649,20741,20744,20745,20746,20753,20756,20757,20758,20760,20761,
    20768,20773,20774,20776,20778,20801,20804,20805,20806,20809,20816,20817,20818,20820,20821,20822,
    20824,20825,20826,20833,20836,20837,20838,20841,20866,20869,20881,20884,20885,20886,20889,20896,
    20901,20906,20993,20998,21010,21013,21018,21025,21028,21058,21061,21066,21073,21076,21077,21078,
    21081,21090,21093,21125,21136,21138,21141,21145,21146,21156,21508,21509,21521,21524,21525,21526,
    21528,21529,21537,21541,21544,21546,21569,21572,21573,21574,21577,21578,21584,21585,21588,21589,
    21590,21592,21593,21594,21601,21602,21604,21605,21606,21609,21632,21640,21642,21649,21652,21653,
    21654,21657,21665,21668,21669,21674,21761,21762,21764,21765,21766,21769,21776,21777,21778,21780,
    21781,21782,21785,21786,21793,21796,21797,21798,21801,21824,21825,21826,21828,21829,21830,21832,
    21833,21840,21841,21842,21844,21845,21846,21848,21849,21850,21856,21857,21860,21861,21862,21864,
    21865,21866,21889,21892,21893,21897,21898,21904,21905,21908,21909,21910,21912,21913,21921,21924,
    21925,21926,21929,22016,22017,22018,22020,22022,22024,22025,22033,22036,22037,22040,22041,22048,
    22049,22050,22052,22053,22054,22056,22057,22081,22085,22086,22088,22089,22090,22096,22097,22098,
    22100,22101,22102,22104,22105,22106,22113,22116,22117,22121,22146,22149,22150,22152,22153,22154,
    22161,22165,22170,22178,22181,22182,22184,22185,22532,22533,22534,22537,22544,22549,22552,22561,
    22570,22597,22600,22602,22609,22612,22613,22614,22616,22617,22624,22626,22628,22629,22658,22665,
    22672,22674,22677,22680,22689,22697,22785,22786,22789,22794,22801,22804,22805,22806,22809,22821,
    22849,22852,22853,22854,22857,22864,22865,22866,22868,22869,22870,22872,22873,22874,22881,22884,
    22885,22886,22889,22913,22917,22921,22929,22932,22933,22934,22936,22937,22949,23044,23048,23061,
    23066,23072,23077,23078,23081,23109,23112,23113,23121,23125,23126,23128,23129,23138,23141,23144,
    23146,23169,23178,23186,23189,23190,23192,23194,23201,24581,24596,24598,24601,24613,24644,24656,
    24661,24662,24664,24666,24673,24676,24678,24681,24705,24726,24741,24833,24836,24838,24841,24850,
    24853,24865,24866,24870,24873,24901,24905,24913,24917,24918,24921,24933,24934,24938,24964,24970,
    24978,24981,24993,24998,25001,25105,25110,25113,25152,25153,25158,25173,25174,25176,25184,25221,
    25233,25238,25253,25617,25618,25621,25622,25626,25633,25638,25641,25664,25666,25669,25672,25674,
    25681,25684,25685,25686,25689,25690,25696,25698,25701,25732,25733,25737,25744,25746,25748,25749,
    25750,25752,25754,25761,25764,25769,25861,25864,25866,25873,25877,25878,25881,25924,25925,25926,
    25929,25936,25937,25940,25941,25942,25945,25953,25956,25957,25958,25961,25990,25993,25994,26001,
    26005,26006,26009,26010,26018,26021,26022,26024,26114,26121,26133,26144,26150,26152,26153,26176,
    26181,26184,26186,26193,26196,26197,26198,26200,26202,26208,26213,26216,26240,26242,26245,26250,
    26260,26262,26264,26265,26272,26276,26278,26282,26646,26649,26661,26689,26706,26709,26714,26721,
    26729,26757,26769,26776,26790,26881,26884,26896,26901,26913,26916,26918,26921,26944,26945,26949,
    26950,26952,26961,26964,26965,26966,26969,26976,26981,26986,27010,27012,27018,27029,27041,27044,
    27045,27049,27153,27158,27160,27201,27204,27209,27216,27221,27224,27226,27236,27237,27241,27270,
    27284,27288,27290,27302,32768,32770,32776,32778,32800,32802,32808,32810,32837,32848,32849,32852,
    32854,32857,32869,32896,32898,32904,32906,32917,32928,32930,32936,32938,33029,33041,33044,33046,
    33049,33061,33089,33092,33097,33104,33106,33109,33110,33112,33113,33124,33126,33129,33157,33161,
    33172,33174,33177,33189,33280,33282,33288,33290,33301,33312,33314,33320,33322,33361,33364,33369,
    33381,33408,33410,33416,33418,33429,33440,33442,33448,33450,33812,33817,33857,33860,33873,33877,
    33882,33889,33892,33897,33940,33945,34049,34057,34066,34069,34074,34086,34089,34112,34113,34117,
    34120,34129,34132,34133,34134,34137,34138,34149,34150,34152,34154,34177,34180,34182,34185,34192,
    34194,34197,34200,34214,34321,34326,34329,34341,34369,34372,34377,34378,34384,34389,34393,34394,
    34401,34406,34410,34437,34449,34458,34468,34816,34818,34824,34826,34837,34848,34850,34856,34858,
    34881,34885,34897,34900,34905,34917,34921,34944,34946,34952,34954,34965,34976,34978,34984,34986,
    35077,35078,35089,35092,35094,35109,35137,35140,35142,35145,35152,35154,35157,35162,35169,35172,
    35205,35222,35225,35237,35328,35330,35336,35338,35349,35360,35362,35368,35370,35397,35409,35412,
    35414,35456,35458,35464,35466,35477,35488,35490,35496,35498,36869,36881,36886,36888,36889,36901,
    36929,36934,36937,36949,36952,36954,36969,36970,36997,37009,37012,37014,37017,37029,37121,37124,
    37126,37129,37136,37141,37144,37146,37153,37156,37158,37161,37184,37189,37200,37201,37204,37205,
    37206,37209,37218,37221,37252,37254,37266,37269,37272,37281,37284,37286,37289,37381,37393,37396,
    37401,37413,37444,37446,37449,37456,37458,37461,37464,37478,37481,37509,37524,37526,37545,37889,
    37892,37894,37904,37909,37912,37926,37952,37962,37969,37972,37973,37974,37976,37977,37984,37985,
    37986,37989,38020,38022,38034,38036,38037,38040,38049,38057,38144,38149,38152,38154,38160,38161,
    38164,38165,38166,38169,38177,38181,38185,38186,38209,38212,38213,38214,38217,38224,38225,38226,
    38228,38229,38230,38232,38233,38234,38241,38244,38245,38246,38249,38273,38277,38280,38289,38290,
    38292,38293,38294,38297,38298,38304,38306,38309,38312,38314,38401,38404,38416,38421,38425,38432,
    38438,38441,38469,38472,38473,38481,38482,38485,38486,38489,38501,38504,38530,38532,38537,38538,
    38546,38548,38549,38564,38566,38569,38917,38934,38937,38949,38977,38982,38992,38994,38997,38998,
    39002,39012,39013,39045,39057,39062,39065,39077,39172,39174,39177,39184,39186,39189,39192,39194,
    39200,39201,39204,39206,39232,39234,39237,39240,39242,39249,39252,39253,39254,39257,39266,39269,
    39270,39274,39297,39300,39312,39314,39317,39322,39329,39334,39429,39445,39461,39492,39494,39497,
    39504,39509,39512,39521,39557,39569,39572,39573,39574,40960,40962,40968,40970,40981,40992,40994,
    41000,41002,41029,41041,41044,41046,41049,41088,41090,41096,41098,41109,41120,41122,41128,41130,
    41221,41225,41233,41236,41238,41241,41242,41286,41289,41297,41301,41304,41306,41313,41316,41349,
    41360,41362,41366,41369,41474,41480,41482,41488,41497,41506,41512,41514,41541,41553,41558,41561,
    41573,41600,41602,41608,41610,41621,41632,41634,41640,41642,42009,42021,42049,42052,42064,42068,
    42069,42072,42074,42081,42085,42086,42088,42089,42117,42246,42249,42256,42258,42261,42264,42278,
    42281,42306,42309,42321,42324,42325,42326,42329,42341,42346,42369,42372,42373,42374,42377,42386,
    42389,42392,42501,42513,42518,42522,42529,42533,42564,42566,42570,42578,42581,42582,42584,42592,
    42594,42630,42640,42645,42646,42649,42657,42660,42662,43008,43010,43016,43018,43040,43042,43048,
    43050,43089,43092,43094,43097,43136,43138,43144,43146,43157,43168,43170,43176,43178,43269,43284,
    43289,43297,43301,43329,43344,43349,43354,43361,43366,43369,43408,43414,43520,43522,43528,43530,
    43552,43554,43560,43562,43601,43604,43606,43648,43650,43656,43658,43669,43680,43682,43688,43690,
};
static const uint16_t *const lk__iq2xxs_grid = lk__iq_grids + 0;
static const uint16_t *const lk__iq2xs_grid = lk__iq_grids + 256;
static const uint16_t *const lk__iq2s_grid = lk__iq_grids + 768;
static const uint16_t *const lk__iq3xxs_grid = lk__iq_grids + 1792;
static const uint16_t *const lk__iq3s_grid = lk__iq_grids + 2048;
static const uint16_t *const lk__iq1s_grid = lk__iq_grids + 2560;

/* Expand grid entries to weights (level values, before scale and sign). */
static void lk__iq2_expand(const uint16_t *grid, int idx, int out[8]) {
    unsigned c = grid[idx]; int j;
    for (j = 0; j < 8; j++) out[j] = lk__iq2_levels[(c >> 2 * j) & 3];
}
static void lk__iq3xxs_expand(int idx, int out[4]) {
    unsigned c = lk__iq3xxs_grid[idx]; int j;
    for (j = 0; j < 4; j++) out[j] = lk__iq3xxs_levels[(c >> 3 * j) & 7];
}
static void lk__iq3s_expand(int idx, int out[4]) {
    unsigned c = lk__iq3s_grid[idx]; int j;
    for (j = 0; j < 4; j++) out[j] = 2 * (int)((c >> 3 * j) & 7) + 1;
}
static void lk__iq1_expand(int idx, int out[8]) {
    unsigned c = lk__iq1s_grid[idx]; int j;
    for (j = 0; j < 8; j++) out[j] = lk__iq1_levels[(c >> 2 * j) & 3];
}
/* 7 stored sign bits -> 8 sign bits (bit 7 = parity of the other seven). */
static unsigned lk__iq_signs7(unsigned s7) {
    unsigned p = s7 ^ (s7 >> 4); p ^= p >> 2; p ^= p >> 1;
    return (s7 & 127u) | ((p & 1u) << 7);
}

/* ---- dequantization (to_float). x: n/blck blocks, y: n floats ---------- */
static void lk__iq4_nl_to_float(const void *vx, float *y, int64_t n) {
    const uint8_t *x = (const uint8_t *)vx;
    int64_t ib; int j;
    for (ib = 0; ib < n / 32; ib++, x += 18, y += 32) {
        const float d = lk_fp16_to_fp32(lk__rd16(x));
        for (j = 0; j < 16; j++) {
            y[j]      = d * lk__iq4nl_values[x[2 + j] & 0xf];
            y[j + 16] = d * lk__iq4nl_values[x[2 + j] >> 4];
        }
    }
}
static void lk__iq4_xs_to_float(const void *vx, float *y, int64_t n) {
    const uint8_t *x = (const uint8_t *)vx;
    int64_t i; int ib, j;
    for (i = 0; i < n / LK__IQ_QK; i++, x += 136) {
        const float d = lk_fp16_to_fp32(lk__rd16(x));
        const unsigned sh = lk__rd16(x + 2);
        const uint8_t *qs = x + 8;
        for (ib = 0; ib < 8; ib++, y += 32, qs += 16) {
            const int ls = (int)(((x[4 + ib / 2] >> 4 * (ib % 2)) & 0xf) | (((sh >> 2 * ib) & 3) << 4));
            const float dl = d * (float)(ls - 32);
            for (j = 0; j < 16; j++) {
                y[j]      = dl * lk__iq4nl_values[qs[j] & 0xf];
                y[j + 16] = dl * lk__iq4nl_values[qs[j] >> 4];
            }
        }
    }
}
/* TQ1_0: a byte q holds trits t0..t4 as q = ceil(256 * sum t_k 3^(4-k) / 243);
 * trit k is ((uint8)(q * 3^k) * 3) >> 8. Weights: qs bytes 0..31 give weights
 * 0..159 (trit k of byte m -> weight 32k + m), bytes 32..47 give 160..239
 * (16k + m), qh bytes give 240..255 (4k + m, trits 0..3). */
static int lk__tq1_trit(unsigned q, int k) {
    static const uint8_t pow3[6] = {1, 3, 9, 27, 81, 243};
    const unsigned v = (uint8_t)(q * pow3[k]);
    return (int)((v * 3) >> 8);
}
static void lk__tq1_0_to_float(const void *vx, float *y, int64_t n) {
    const uint8_t *x = (const uint8_t *)vx;
    int64_t i; int k, m;
    for (i = 0; i < n / LK__IQ_QK; i++, x += 54, y += LK__IQ_QK) {
        const float d = lk_fp16_to_fp32(lk__rd16(x + 52));
        for (k = 0; k < 5; k++)
            for (m = 0; m < 32; m++) y[32 * k + m] = (float)(lk__tq1_trit(x[m], k) - 1) * d;
        for (k = 0; k < 5; k++)
            for (m = 0; m < 16; m++) y[160 + 16 * k + m] = (float)(lk__tq1_trit(x[32 + m], k) - 1) * d;
        for (k = 0; k < 4; k++)
            for (m = 0; m < 4; m++) y[240 + 4 * k + m] = (float)(lk__tq1_trit(x[48 + m], k) - 1) * d;
    }
}
/* TQ2_0: byte 32c + m holds weights 128c + 32k + m in bits 2k..2k+1, as value+1. */
static void lk__tq2_0_to_float(const void *vx, float *y, int64_t n) {
    const uint8_t *x = (const uint8_t *)vx;
    int64_t i; int c, k, m;
    for (i = 0; i < n / LK__IQ_QK; i++, x += 66, y += LK__IQ_QK) {
        const float d = lk_fp16_to_fp32(lk__rd16(x + 64));
        for (c = 0; c < 2; c++)
            for (k = 0; k < 4; k++)
                for (m = 0; m < 32; m++)
                    y[128 * c + 32 * k + m] = (float)((int)((x[32 * c + m] >> 2 * k) & 3) - 1) * d;
    }
}

/* ---- dot products -----------------------------------------------------
 * x: n weights in the type's blocks; y: n activations as Q8_K blocks
 * (f32 d, int8 qs[256], int16 bsums[16]: 292 B) or, for IQ4_NL, Q8_0
 * blocks (fp16 d, int8 qs[32]: 34 B). Integer sums per sub-block, scaled
 * in float per super-block, as ggml's scalar code does. */
#define LK__Q8K_BYTES 292
/* SIMD: lk__vd_iq4_nl_t (x86); the kernel table (14.7s) picks */
static LK__UNUSED void lk__iq4_nl_vec_dot_ref(int64_t n, float *s, const void *vx, const void *vy) {
    const uint8_t *x = (const uint8_t *)vx, *y = (const uint8_t *)vy;
    int64_t ib; int j;
    float sumf = 0;
    for (ib = 0; ib < n / 32; ib++, x += 18, y += 34) {
        const int8_t *q8 = (const int8_t *)(y + 2);
        const float d = lk_fp16_to_fp32(lk__rd16(y)) * lk_fp16_to_fp32(lk__rd16(x));
        int sumi1 = 0, sumi2 = 0;
        for (j = 0; j < 16; j++) {
            sumi1 += q8[j]      * lk__iq4nl_values[x[2 + j] & 0xf];
            sumi2 += q8[j + 16] * lk__iq4nl_values[x[2 + j] >> 4];
        }
        sumf += d * (float)(sumi1 + sumi2);
    }
    *s = sumf;
}
/* SIMD: lk__vd_iq4_xs_t (x86); the kernel table (14.7s) picks */
static LK__UNUSED void lk__iq4_xs_vec_dot_ref(int64_t n, float *s, const void *vx, const void *vy) {
    const uint8_t *x = (const uint8_t *)vx, *y = (const uint8_t *)vy;
    int64_t i; int ib, j;
    float sumf = 0;
    for (i = 0; i < n / LK__IQ_QK; i++, x += 136, y += LK__Q8K_BYTES) {
        const float d4d8 = lk_fp16_to_fp32(lk__rd16(x)) * lk__iq_rdf32(y);
        const unsigned sh = lk__rd16(x + 2);
        const uint8_t *qs = x + 8;
        const int8_t *q8 = (const int8_t *)(y + 4);
        for (ib = 0; ib < 8; ib++, qs += 16, q8 += 32) {
            const int ls = (int)(((x[4 + ib / 2] >> 4 * (ib % 2)) & 0xf) | (((sh >> 2 * ib) & 3) << 4));
            int sumi1 = 0, sumi2 = 0;
            for (j = 0; j < 16; j++) {
                sumi1 += q8[j]      * lk__iq4nl_values[qs[j] & 0xf];
                sumi2 += q8[j + 16] * lk__iq4nl_values[qs[j] >> 4];
            }
            sumf += d4d8 * (float)(ls - 32) * (float)(sumi1 + sumi2);
        }
    }
    *s = sumf;
}
/* ---- IQ2 / IQ3 / IQ1: 256 weights = 8 sub-blocks (ib) x 4 groups (l) x 8.
 * lk__iq_group decodes group (ib, l) of block x: w[8] the signed grid
 * levels, the return value the group's odd scale ls = 2s + 1, *dneg (IQ1
 * only) 1 where the group's delta is negative. Every one of these formats
 * then reads  x = (d * ls * k) * (w + delta)  with
 *   k = 1/8 (IQ2), 1/4 (IQ3_XXS), 1 (IQ3_S, IQ1);  delta = 0, or +-1/8 (IQ1)
 * which is ggml's dequantization rounding for rounding (d * (0.5 + s) / 4 =
 * d * ls / 8 exactly), so to_float and the dot are one loop for all seven. */
typedef struct { int bytes; float k, delta; } lk__iqf;
static lk__iqf lk__iq_format(lk_type t) {
    lk__iqf f = { 66, 0.125f, 0.0f };                              /* IQ2_XXS */
    switch (t) {
    case LK_TYPE_IQ2_XS:  f.bytes = 74; break;
    case LK_TYPE_IQ2_S:   f.bytes = 82; break;
    case LK_TYPE_IQ3_XXS: f.bytes = 98; f.k = 0.25f; break;
    case LK_TYPE_IQ3_S:   f.bytes = 110; f.k = 1.0f; break;
    case LK_TYPE_IQ1_S:   f.bytes = 50; f.k = 1.0f; f.delta = LK__IQ1S_DELTA; break;
    case LK_TYPE_IQ1_M:   f.bytes = 56; f.k = 1.0f; f.delta = LK__IQ1M_DELTA; break;
    default: break;
    }
    return f;
}
/* IQ1_M keeps its fp16 super-block scale in the top nibbles of the four
 * little-endian u16 words of `scales`; the others start with it. */
static uint16_t lk__iq1m_d16(const uint8_t *sc) {
    const unsigned s0 = lk__rd16(sc), s1 = lk__rd16(sc + 2), s2 = lk__rd16(sc + 4), s3 = lk__rd16(sc + 6);
    return (uint16_t)((s0 >> 12) | ((s1 >> 8) & 0x00f0) | ((s2 >> 4) & 0x0f00) | (s3 & 0xf000));
}
static float lk__iq_d(lk_type t, const uint8_t *x) {
    return lk_fp16_to_fp32(t == LK_TYPE_IQ1_M ? lk__iq1m_d16(x + 48) : lk__rd16(x));
}
static int lk__iq_group(lk_type t, const uint8_t *x, int ib, int l, int w[8], int *dneg) {
    unsigned s = 0, q, h;                  /* s: 8 sign bits, bit j negates weight j */
    int g[8], ls, j;
    const uint8_t *qs;
    uint32_t aux;
    *dneg = 0;
    switch (t) {
    case LK_TYPE_IQ2_XXS:                  /* per ib: 4 grid bytes, u32 signs|scale */
        qs = x + 2 + 8 * ib;
        aux = lk__rd32(qs + 4);
        lk__iq2_expand(lk__iq2xxs_grid, qs[l], g);
        s = lk__iq_signs7((aux >> 7 * l) & 127);
        ls = (int)(2 * (aux >> 28) + 1);
        break;
    case LK_TYPE_IQ2_XS:                   /* u16 per group: 9 grid bits, 7 signs */
        q = lk__rd16(x + 2 + 2 * (4 * ib + l));
        lk__iq2_expand(lk__iq2xs_grid, (int)(q & 511), g);
        s = lk__iq_signs7(q >> 9);
        ls = (int)(2 * ((x[66 + ib] >> 4 * (l / 2)) & 0xf) + 1);
        break;
    case LK_TYPE_IQ2_S:                    /* qs[32] | signs[32] | qh[8] | scales[8] */
        h = x[66 + ib];
        lk__iq2_expand(lk__iq2s_grid, (int)(x[2 + 4 * ib + l] | ((h << (8 - 2 * l)) & 0x300)), g);
        s = x[34 + 4 * ib + l];
        ls = (int)(2 * ((x[74 + ib] >> 4 * (l / 2)) & 0xf) + 1);
        break;
    case LK_TYPE_IQ3_XXS:                  /* qs[64] | per ib u32 signs|scale */
        qs = x + 2 + 8 * ib;
        aux = lk__rd32(x + 66 + 4 * ib);
        lk__iq3xxs_expand(qs[2 * l], g);
        lk__iq3xxs_expand(qs[2 * l + 1], g + 4);
        s = lk__iq_signs7((aux >> 7 * l) & 127);
        ls = (int)(2 * (aux >> 28) + 1);
        break;
    case LK_TYPE_IQ3_S:                    /* qs[64] | qh[8] | signs[32] | scales[4] */
        qs = x + 2 + 8 * ib;
        h = x[66 + ib];
        lk__iq3s_expand((int)(qs[2 * l] | ((h << (8 - 2 * l)) & 256)), g);
        lk__iq3s_expand((int)(qs[2 * l + 1] | ((h << (7 - 2 * l)) & 256)), g + 4);
        s = x[74 + 4 * ib + l];
        ls = (int)(2 * ((x[106 + ib / 2] >> 4 * (ib % 2)) & 0xf) + 1);
        break;
    case LK_TYPE_IQ1_S:                    /* qs[32] | per ib u16: 3x4 index bits, scale, delta sign */
        h = lk__rd16(x + 34 + 2 * ib);
        lk__iq1_expand((int)(x[2 + 4 * ib + l] | (((h >> 3 * l) & 7) << 8)), g);
        *dneg = (int)(h >> 15);
        ls = (int)(2 * ((h >> 12) & 7) + 1);
        break;
    default:                               /* IQ1_M: qs[32] | qh[16] | scales[8] */
        h = x[32 + 2 * ib + l / 2] >> 4 * (l % 2);            /* 3 index bits, delta sign */
        q = lk__rd16(x + 48 + 2 * (ib / 2));
        lk__iq1_expand((int)(x[4 * ib + l] | ((h & 7) << 8)), g);
        *dneg = (int)((h >> 3) & 1);
        ls = (int)(2 * ((q >> (6 * (ib % 2) + 3 * (l / 2))) & 7) + 1);
        break;
    }
    for (j = 0; j < 8; j++) w[j] = s & (1u << j) ? -g[j] : g[j];
    return ls;
}
static void lk__iq_to_float(lk_type t, const void *vx, float *y, int64_t n) {
    const uint8_t *x = (const uint8_t *)vx;
    const lk__iqf f = lk__iq_format(t);
    int64_t i;
    int ib, l, j, w[8], dneg;
    for (i = 0; i < n / LK__IQ_QK; i++, x += f.bytes) {
        const float d = lk__iq_d(t, x);
        for (ib = 0; ib < 8; ib++)
            for (l = 0; l < 4; l++, y += 8) {
                const float db = d * (float)lk__iq_group(t, x, ib, l, w, &dneg) * f.k;
                const float delta = dneg ? -f.delta : f.delta;
                for (j = 0; j < 8; j++) y[j] = db * ((float)w[j] + delta);
            }
    }
}
/* . q8_K in ggml's integer order: per block sumi = sum ls * sum(w * q8),
 * sumi1 = sum (+-ls) * sum(q8) (IQ1's deltas); then
 * sumf += dx * dy * (sumi + delta * sumi1), and k * sumf at the end. */
static void lk__iq_dot(lk_type t, int64_t n, float *s, const void *vx, const void *vy) {
    const uint8_t *x = (const uint8_t *)vx, *y = (const uint8_t *)vy;
    const lk__iqf f = lk__iq_format(t);
    int64_t i;
    int ib, l, j, w[8], dneg;
    float sumf = 0;
    for (i = 0; i < n / LK__IQ_QK; i++, x += f.bytes, y += LK__Q8K_BYTES) {
        const int8_t *q8 = (const int8_t *)(y + 4);
        int32_t sumi = 0, sumi1 = 0;
        for (ib = 0; ib < 8; ib++)
            for (l = 0; l < 4; l++, q8 += 8) {
                const int ls = lk__iq_group(t, x, ib, l, w, &dneg);
                int32_t lsum = 0, ysum = 0;
                for (j = 0; j < 8; j++) { lsum += w[j] * q8[j]; ysum += q8[j]; }
                sumi += ls * lsum;
                sumi1 += (dneg ? -ls : ls) * ysum;
            }
        sumf += lk__iq_d(t, x) * lk__iq_rdf32(y) * ((float)sumi + f.delta * (float)sumi1);
    }
    *s = f.k * sumf;
}
static void lk__iq2_xxs_to_float(const void *x, float *y, int64_t n) { lk__iq_to_float(LK_TYPE_IQ2_XXS, x, y, n); }
static void lk__iq2_xs_to_float(const void *x, float *y, int64_t n) { lk__iq_to_float(LK_TYPE_IQ2_XS, x, y, n); }
static void lk__iq2_s_to_float(const void *x, float *y, int64_t n) { lk__iq_to_float(LK_TYPE_IQ2_S, x, y, n); }
static void lk__iq3_xxs_to_float(const void *x, float *y, int64_t n) { lk__iq_to_float(LK_TYPE_IQ3_XXS, x, y, n); }
static void lk__iq3_s_to_float(const void *x, float *y, int64_t n) { lk__iq_to_float(LK_TYPE_IQ3_S, x, y, n); }
static void lk__iq1_s_to_float(const void *x, float *y, int64_t n) { lk__iq_to_float(LK_TYPE_IQ1_S, x, y, n); }
static void lk__iq1_m_to_float(const void *x, float *y, int64_t n) { lk__iq_to_float(LK_TYPE_IQ1_M, x, y, n); }
/* the dots' references: the type table's lk__<type>_vec_dot (14.7s) runs them, or a
 * SIMD kernel where the kernel table has one */
static void lk__iq2_xxs_vec_dot_ref(int64_t n, float *s, const void *x, const void *y) { lk__iq_dot(LK_TYPE_IQ2_XXS, n, s, x, y); }
static void lk__iq2_xs_vec_dot_ref(int64_t n, float *s, const void *x, const void *y) { lk__iq_dot(LK_TYPE_IQ2_XS, n, s, x, y); }
static void lk__iq2_s_vec_dot_ref(int64_t n, float *s, const void *x, const void *y) { lk__iq_dot(LK_TYPE_IQ2_S, n, s, x, y); }
static void lk__iq3_xxs_vec_dot_ref(int64_t n, float *s, const void *x, const void *y) { lk__iq_dot(LK_TYPE_IQ3_XXS, n, s, x, y); }
static void lk__iq3_s_vec_dot_ref(int64_t n, float *s, const void *x, const void *y) { lk__iq_dot(LK_TYPE_IQ3_S, n, s, x, y); }
static void lk__iq1_s_vec_dot_ref(int64_t n, float *s, const void *x, const void *y) { lk__iq_dot(LK_TYPE_IQ1_S, n, s, x, y); }
static void lk__iq1_m_vec_dot_ref(int64_t n, float *s, const void *x, const void *y) { lk__iq_dot(LK_TYPE_IQ1_M, n, s, x, y); }
static void lk__tq1_0_vec_dot_ref(int64_t n, float *s, const void *vx, const void *vy) {
    const uint8_t *x = (const uint8_t *)vx, *y = (const uint8_t *)vy;
    int64_t i; int k, m;
    float sumf = 0;
    for (i = 0; i < n / LK__IQ_QK; i++, x += 54, y += LK__Q8K_BYTES) {
        const int8_t *q8 = (const int8_t *)(y + 4);
        int32_t sumi = 0;                  /* sum (t - 1) * q8 over the block */
        for (k = 0; k < 5; k++)
            for (m = 0; m < 32; m++) sumi += (lk__tq1_trit(x[m], k) - 1) * q8[32 * k + m];
        for (k = 0; k < 5; k++)
            for (m = 0; m < 16; m++) sumi += (lk__tq1_trit(x[32 + m], k) - 1) * q8[160 + 16 * k + m];
        for (k = 0; k < 4; k++)
            for (m = 0; m < 4; m++) sumi += (lk__tq1_trit(x[48 + m], k) - 1) * q8[240 + 4 * k + m];
        sumf += lk_fp16_to_fp32(lk__rd16(x + 52)) * lk__iq_rdf32(y) * (float)sumi;
    }
    *s = sumf;
}
static void lk__tq2_0_vec_dot_ref(int64_t n, float *s, const void *vx, const void *vy) {
    const uint8_t *x = (const uint8_t *)vx, *y = (const uint8_t *)vy;
    int64_t i; int c, k, m;
    float sumf = 0;
    for (i = 0; i < n / LK__IQ_QK; i++, x += 66, y += LK__Q8K_BYTES) {
        const int8_t *q8 = (const int8_t *)(y + 4);
        int32_t sumi = 0;                  /* sum (t - 1) * q8 = sum t q8 - sum q8 */
        for (c = 0; c < 2; c++)
            for (k = 0; k < 4; k++) {
                int32_t st = 0, sy = 0;
                for (m = 0; m < 32; m++) {
                    st += (int32_t)((x[32 * c + m] >> 2 * k) & 3) * q8[128 * c + 32 * k + m];
                    sy += q8[128 * c + 32 * k + m];
                }
                sumi += st - sy;
            }
        sumf += lk_fp16_to_fp32(lk__rd16(x + 64)) * lk__iq_rdf32(y) * (float)sumi;
    }
    *s = sumf;
}

#ifndef LLMKIT_NO_QUANTIZE
/* ---- quantization (from_float). x: n floats, y: n/blck blocks -----------
 * All follow ggml's quantizers with no importance matrix: the per-weight
 * importance is then w = x^2. */

/* Index of the IQ4_NL level nearest to x (ties to the upper level only if
 * strictly closer, as ggml's binary search decides). */
static int lk__iq4_best_index(float x) {
    const int8_t *v = lk__iq4nl_values;
    int lo = 0, hi = 15;
    if (x <= v[0]) return 0;
    if (x >= v[15]) return 15;
    while (hi - lo > 1) {
        int mid = (lo + hi) / 2;
        if (x < v[mid]) hi = mid; else lo = mid;
    }
    return x - v[hi - 1] < v[hi] - x ? hi - 1 : hi;
}

/* One IQ4 super-block of sbs = 32 (IQ4_NL) or 256 (IQ4_XS) weights, in
 * sub-blocks of 32: for each sub-block try 15 scales around max/-127 and
 * keep the one with the best weighted fit (ggml's ntry = 7); IQ4_XS then
 * quantizes the sub-block scales to 6 bits against d = -max_scale/32 and
 * re-picks the levels for the rounded scale. Writes d (fp16), for IQ4_XS
 * the scales, and the nibbles q4[sbs/2]. */
static void lk__iq4_quantize_block(int sbs, const float *x, uint8_t *dh, uint8_t *q4, uint8_t *scales_h, uint8_t *scales_l) {
    float scales[8] = { 0 }, weight[32];
    uint8_t L[256];
    float max_scale = 0, amax_scale = 0;
    const int nsub = sbs / 32;
    int ib, j, itry;
    memset(q4, 0, (size_t)sbs / 2);
    memset(L, 0, sizeof L);
    lk__wr16(dh, lk_fp32_to_fp16(0.f));
    for (ib = 0; ib < nsub; ib++) {
        const float *xb = x + 32 * ib;
        uint8_t *Lb = L + 32 * ib;
        float amax = 0, max = 0, d, id, sumqx, sumq2, best, abs_d;
        for (j = 0; j < 32; j++) weight[j] = xb[j] * xb[j];
        for (j = 0; j < 32; j++) {
            float ax = fabsf(xb[j]);
            if (ax > amax) { amax = ax; max = xb[j]; }
        }
        if (amax < 1e-15f) { scales[ib] = 0; continue; }
        d = -max / (float)lk__iq4nl_values[0];
        id = 1 / d;
        sumqx = 0; sumq2 = 0;
        for (j = 0; j < 32; j++) {
            float al = id * xb[j], q, w;
            int l = lk__iq4_best_index(al);
            Lb[j] = (uint8_t)l;
            q = (float)lk__iq4nl_values[l];
            w = weight[j];
            sumqx += w * q * xb[j];
            sumq2 += w * q * q;
        }
        d = sumqx / sumq2;
        best = d * sumqx;
        for (itry = -7; itry <= 7; itry++) {
            id = (float)(itry + lk__iq4nl_values[0]) / max;
            sumqx = 0; sumq2 = 0;
            for (j = 0; j < 32; j++) {
                float al = id * xb[j], q, w;
                int l = lk__iq4_best_index(al);
                q = (float)lk__iq4nl_values[l];
                w = weight[j];
                sumqx += w * q * xb[j];
                sumq2 += w * q * q;
            }
            if (sumq2 > 0 && sumqx * sumqx > best * sumq2) { d = sumqx / sumq2; best = d * sumqx; }
        }
        scales[ib] = d;
        abs_d = fabsf(d);
        if (abs_d > amax_scale) { amax_scale = abs_d; max_scale = d; }
    }
    if (nsub > 1) {
        const float d = -max_scale / 32;
        const float id = d != 0 ? 1 / d : 0.f;
        unsigned sh = 0;
        lk__wr16(dh, lk_fp32_to_fp16(d));
        for (ib = 0; ib < nsub; ib++) {
            int l = lk__nearest_int(id * scales[ib]);
            float dl, idl;
            l = l < -32 ? -32 : l > 31 ? 31 : l;
            dl = d * (float)l;
            idl = dl != 0 ? 1 / dl : 0.f;
            for (j = 0; j < 32; j++) L[32 * ib + j] = (uint8_t)lk__iq4_best_index(idl * x[32 * ib + j]);
            l += 32;
            if (ib % 2 == 0) scales_l[ib / 2] = (uint8_t)(l & 0xf);
            else scales_l[ib / 2] |= (uint8_t)((l & 0xf) << 4);
            sh |= (unsigned)(l >> 4) << 2 * (ib % 8);
        }
        lk__wr16(scales_h, (uint16_t)sh);
    } else {
        const float id = scales[0] != 0 ? 1 / scales[0] : 0;
        lk__wr16(dh, lk_fp32_to_fp16(scales[0]));
        for (j = 0; j < sbs; j++) L[j] = (uint8_t)lk__iq4_best_index(id * x[j]);
    }
    for (ib = 0; ib < sbs / 32; ib++)
        for (j = 0; j < 16; j++) q4[16 * ib + j] = (uint8_t)(L[32 * ib + j] | (L[32 * ib + 16 + j] << 4));
}
static void lk__iq4_nl_from_float(const float *x, void *vy, int64_t n) {
    uint8_t *y = (uint8_t *)vy;
    int64_t ib;
    for (ib = 0; ib < n / 32; ib++, x += 32, y += 18) lk__iq4_quantize_block(32, x, y, y + 2, NULL, NULL);
}
static void lk__iq4_xs_from_float(const float *x, void *vy, int64_t n) {
    uint8_t *y = (uint8_t *)vy;
    int64_t i;
    for (i = 0; i < n / LK__IQ_QK; i++, x += LK__IQ_QK, y += 136) lk__iq4_quantize_block(LK__IQ_QK, x, y, y + 8, y + 2, y + 4);
}

/* Ternary: d = max |x|, t = round(x / d) in {-1, 0, 1} (halves away from 0). */
static int lk__tq_trit(float v) {              /* -1,0,1 -> 0,1,2 */
    if (!(v > -1.5f && v < 1.5f)) return v > 0 ? 2 : v < 0 ? 0 : 1;   /* non-finite input */
    return (int)lroundf(v) + 1;
}
static void lk__tq1_0_from_float(const float *x, void *vy, int64_t n) {
    uint8_t *y = (uint8_t *)vy;
    int64_t i; int j, k, m;
    for (i = 0; i < n / LK__IQ_QK; i++, x += LK__IQ_QK, y += 54) {
        float amax = 0, id;
        for (j = 0; j < LK__IQ_QK; j++) amax = amax > fabsf(x[j]) ? amax : fabsf(x[j]);
        id = amax != 0 ? 1.0f / amax : 0.0f;
        lk__wr16(y + 52, lk_fp32_to_fp16(amax));
        for (m = 0; m < 32; m++) {          /* weights 0..159: 5 trits per byte */
            unsigned q = 0;
            for (k = 0; k < 5; k++) q = (uint8_t)(q * 3 + (unsigned)lk__tq_trit(x[m + 32 * k] * id));
            y[m] = (uint8_t)((q * 256 + 242) / 243);   /* ceil(q * 256 / 243) */
        }
        for (m = 0; m < 16; m++) {          /* weights 160..239 */
            unsigned q = 0;
            for (k = 0; k < 5; k++) q = (uint8_t)(q * 3 + (unsigned)lk__tq_trit(x[160 + m + 16 * k] * id));
            y[32 + m] = (uint8_t)((q * 256 + 242) / 243);
        }
        for (m = 0; m < 4; m++) {           /* weights 240..255: 4 trits, top-aligned */
            unsigned q = 0;
            for (k = 0; k < 4; k++) q = (uint8_t)(q * 3 + (unsigned)lk__tq_trit(x[240 + m + 4 * k] * id));
            q = (uint8_t)(q * 3);
            y[48 + m] = (uint8_t)((q * 256 + 242) / 243);
        }
    }
}
static void lk__tq2_0_from_float(const float *x, void *vy, int64_t n) {
    uint8_t *y = (uint8_t *)vy;
    int64_t i; int j, c, k, m;
    for (i = 0; i < n / LK__IQ_QK; i++, x += LK__IQ_QK, y += 66) {
        float amax = 0, id;
        for (j = 0; j < LK__IQ_QK; j++) amax = amax > fabsf(x[j]) ? amax : fabsf(x[j]);
        id = amax != 0 ? 1.0f / amax : 0.0f;
        lk__wr16(y + 64, lk_fp32_to_fp16(amax));
        for (c = 0; c < 2; c++)
            for (m = 0; m < 32; m++) {
                unsigned q = 0;
                for (k = 0; k < 4; k++) q += ((unsigned)lk__tq_trit(x[128 * c + 32 * k + m] * id) & 3u) << (2 * k);
                y[32 * c + m] = (uint8_t)q;
            }
    }
}

/* ---- IQ3 quantizer search tables ----------------------------------------
 * For every 4-weight point u of levels 0..7 (12-bit code, 3 bits/weight):
 * map[u] >= 0 is its grid index when u is on the grid; otherwise
 * nb[-map[u]-1] is a count c followed by c grid indices: the grid points
 * at the nwant smallest distinct squared distances from u (IQ3_XXS: 2,
 * IQ3_S: 3), ordered by (distance, index). This is the table ggml builds in
 * iq3xs_init_impl; its size is fixed by the grids (computed offline and
 * checked while building). Static storage, built once on first use. */
#define LK__IQ3_NB_XXS 22825
#define LK__IQ3_NB_S   28317
static int16_t lk__iq3_map[2][4096];
static uint16_t lk__iq3_nb_xxs[LK__IQ3_NB_XXS];
static uint16_t lk__iq3_nb_s[LK__IQ3_NB_S];

/* level of weight k (0..3) in code c, as the odd integer 2l+1 */
#define LK__IQ3_POS(c, k) (2 * (int)(((c) >> (3 * (k))) & 7) + 1)

static void lk__iq3_build(int gi) {
    const uint16_t *grid = gi ? lk__iq3s_grid : lk__iq3xxs_grid;
    const int ngrid = gi ? 512 : 256, nwant = gi ? 3 : 2;
    uint16_t *nb = gi ? lk__iq3_nb_s : lk__iq3_nb_xxs;
    const int cap = gi ? LK__IQ3_NB_S : LK__IQ3_NB_XXS;
    int16_t *map = lk__iq3_map[gi];
    int u, j, k, t, counter = 0;
    short d2[512];
    for (u = 0; u < 4096; u++) map[u] = -1;
    for (j = 0; j < ngrid; j++) map[grid[j]] = (int16_t)j;
    for (u = 0; u < 4096; u++) {
        uint16_t list[512];
        int cnt = 0, prev = -1;
        if (map[u] >= 0) continue;
        for (j = 0; j < ngrid; j++) {
            int s = 0;
            for (k = 0; k < 4; k++) {
                const int dk = LK__IQ3_POS(grid[j], k) - LK__IQ3_POS(u, k);
                s += dk * dk;
            }
            d2[j] = (short)s;
        }
        for (t = 0; t < nwant; t++) {                      /* next larger distance */
            int dmin = INT_MAX;
            for (j = 0; j < ngrid; j++) if (d2[j] > prev && d2[j] < dmin) dmin = d2[j];
            if (dmin == INT_MAX) break;
            for (j = 0; j < ngrid; j++) if (d2[j] == dmin) list[cnt++] = (uint16_t)j;
            prev = dmin;
        }
        if (counter + 1 + cnt > cap) break;               /* cannot happen: sized offline */
        map[u] = (int16_t)-(counter + 1);
        nb[counter++] = (uint16_t)cnt;
        for (j = 0; j < cnt; j++) nb[counter++] = list[j];
    }
    LLMKIT_ASSERT(counter == cap);
}

#if defined(__GNUC__) || defined(__clang__)
static int lk__iq3_state[2];                  /* 0 none, 1 building, 2 ready */
static void lk__iq3_init(int gi) {
    int expect = 0;
    if (__atomic_load_n(&lk__iq3_state[gi], __ATOMIC_ACQUIRE) == 2) return;
    if (__atomic_compare_exchange_n(&lk__iq3_state[gi], &expect, 1, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
        lk__iq3_build(gi);
        __atomic_store_n(&lk__iq3_state[gi], 2, __ATOMIC_RELEASE);
    } else {
        while (__atomic_load_n(&lk__iq3_state[gi], __ATOMIC_ACQUIRE) != 2) { /* another thread builds */ }
    }
}
#elif defined(_MSC_VER)
#include <intrin.h>
static volatile long lk__iq3_state[2];
static void lk__iq3_init(int gi) {
    if (lk__iq3_state[gi] == 2) return;        /* MSVC volatile: acquire/release on x86/x64 */
    if (_InterlockedCompareExchange(&lk__iq3_state[gi], 1, 0) == 0) {
        lk__iq3_build(gi);
        _InterlockedExchange(&lk__iq3_state[gi], 2);
    } else {
        while (lk__iq3_state[gi] != 2) { /* another thread builds */ }
    }
}
#else
/* Not thread-safe: call lk_quant_iq_init() once before quantizing in parallel. */
static int lk__iq3_state[2];
static void lk__iq3_init(int gi) {
    if (lk__iq3_state[gi] != 2) { lk__iq3_build(gi); lk__iq3_state[gi] = 2; }
}
#endif

LKDEF void lk_quant_iq_init(void) { lk__iq3_init(0); lk__iq3_init(1); }

/* Among the listed neighbours of an off-grid point, the grid point closest
 * to xval/scale under weights w; writes its levels to L[4], returns it. */
static int lk__iq3_best_neighbour(const uint16_t *nbl, const uint16_t *grid, const float *xval,
                                  const float *w, float scale, int8_t *L) {
    float best_d2 = 3.402823466e+38f;
    int j, i, gidx = nbl[1];                /* fallback only for NaN input */
    for (j = 1; j <= nbl[0]; j++) {
        float d2 = 0;
        for (i = 0; i < 4; i++) {
            float q = (float)LK__IQ3_POS(grid[nbl[j]], i);
            float diff = scale * q - xval[i];
            d2 += w[i] * diff * diff;
        }
        if (d2 < best_d2) { best_d2 = d2; gidx = nbl[j]; }
    }
    for (i = 0; i < 4; i++) L[i] = (int8_t)((grid[gidx] >> 3 * i) & 7);
    return gidx;
}

/* Levels of 4 weights for inverse scale id: l = round((id x - 1) / 2) in 0..7. */
static unsigned lk__iq3_levels(const float *xval, float id, int8_t *L) {
    unsigned u = 0;
    int i;
    for (i = 0; i < 4; i++) {
        int l = lk__nearest_int(0.5f * (id * xval[i] - 1));
        l = l < 0 ? 0 : l > 7 ? 7 : l;
        L[i] = (int8_t)l;
        u |= (unsigned)l << 3 * i;
    }
    return u;
}

/* Grid index for levels u (on grid, or best neighbour; L rewritten to it). */
static int lk__iq3_lookup(int gi, unsigned u, const float *xval, const float *w, float scale, int8_t *L, int *on_grid) {
    const int m = lk__iq3_map[gi][u & 4095];
    size_t off;
    *on_grid = m >= 0;
    if (m >= 0) return m;
    off = (size_t)(-(m + 1));                     /* list start: map = -(start + 1) */
    return lk__iq3_best_neighbour(gi ? &lk__iq3_nb_s[off] : &lk__iq3_nb_xxs[off],
                                  gi ? lk__iq3s_grid : lk__iq3xxs_grid, xval, w, scale, L);
}

/* Weighted least-squares scale of xval ~ s * (2L+1). */
static void lk__iq3_fit(const float *xval, const float *w, const int8_t *L, float *sumqx, float *sumq2) {
    float a = 0, b = 0;
    int i;
    for (i = 0; i < 32; i++) {
        const float q = (float)(2 * L[i] + 1);
        a += w[i] * xval[i] * q;
        b += w[i] * q * q;
    }
    *sumqx = a; *sumq2 = b;
}

/* One 32-weight sub-block of IQ3_XXS (gi 0) or IQ3_S (gi 1): fold signs
 * (IQ3_XXS keeps an even number of negatives per 8 by flipping the least
 * important one), scan scales max/(15 + 0.2 is), snap each group of 4 to
 * the grid, keep the best weighted fit, then re-snap off-grid groups at the
 * final scale. Outputs the levels L[32], the sign bytes, the scale. */
static float lk__iq3_subblock(int gi, const float *xb, int8_t *L, uint8_t signs[4], int *skip) {
    float weight[32], waux[32], xval[32], max, best = 0, scale;
    int8_t Laux[32];
    int on_grid[8], on_grid_aux[8];
    int i, k, is, n_off = 0;
    const int is_max = gi ? 9 : 15;
    for (i = 0; i < 32; i++) weight[i] = xb[i] * xb[i];
    for (i = 0; i < 32; i++) waux[i] = sqrtf(weight[i]);
    for (k = 0; k < 4; k++) {
        int nflip = 0;
        unsigned s = 0;
        for (i = 0; i < 8; i++) {
            if (xb[8 * k + i] >= 0) xval[8 * k + i] = xb[8 * k + i];
            else { xval[8 * k + i] = -xb[8 * k + i]; nflip++; s |= 1u << i; }
        }
        if (!gi && nflip % 2) {
            int imin = 0;
            float mn = weight[8 * k] * xb[8 * k] * xb[8 * k];
            for (i = 1; i < 8; i++) {
                const float ax = weight[8 * k + i] * xb[8 * k + i] * xb[8 * k + i];
                if (ax < mn) { mn = ax; imin = i; }
            }
            xval[8 * k + imin] = -xval[8 * k + imin];
            s ^= 1u << imin;
        }
        signs[k] = (uint8_t)(gi ? s : s & 127);
    }
    max = xval[0];
    for (i = 1; i < 32; i++) max = max > xval[i] ? max : xval[i];
    *skip = 0;
    if (gi ? !(max != 0) : max < 1e-8f) {   /* IQ3_S: max == 0; IQ3_XXS: max < eps */
        if (!gi) memset(L, 0, 32);
        *skip = 1;
        return 0;
    }
    scale = max / 15;
    for (k = 0; k < 8; k++) on_grid[k] = 0;
    for (is = -is_max; is <= is_max; is++) {
        const float id = (15 + (float)is * 0.2f) / max;
        const float this_scale = 1 / id;
        float sumqx, sumq2;
        for (k = 0; k < 8; k++) {
            const unsigned u = lk__iq3_levels(xval + 4 * k, id, Laux + 4 * k);
            lk__iq3_lookup(gi, u, xval + 4 * k, waux + 4 * k, this_scale, Laux + 4 * k, &on_grid_aux[k]);
        }
        lk__iq3_fit(xval, weight, Laux, &sumqx, &sumq2);
        if (sumq2 > 0 && sumqx * sumqx > best * sumq2) {
            scale = sumqx / sumq2; best = scale * sumqx;
            memcpy(L, Laux, 32);
            for (k = 0; k < 8; k++) on_grid[k] = on_grid_aux[k];
        }
    }
    for (k = 0; k < 8; k++) if (!on_grid[k]) n_off++;
    if (n_off > 0 && scale > 0) {
        const float id = 1 / scale;
        float sumqx, sumq2;
        for (k = 0; k < 8; k++) {
            unsigned u; int og, g;
            int8_t Lt[4];
            if (!gi && on_grid[k]) continue;              /* IQ3_S re-snaps every group */
            u = lk__iq3_levels(xval + 4 * k, id, Lt);
            g = lk__iq3_lookup(gi, u, xval + 4 * k, waux + 4 * k, scale, L + 4 * k, &og);
            for (i = 0; i < 4; i++) L[4 * k + i] = (int8_t)(((gi ? lk__iq3s_grid : lk__iq3xxs_grid)[g] >> 3 * i) & 7);
        }
        lk__iq3_fit(xval, weight, L, &sumqx, &sumq2);
        if (sumq2 > 0) scale = sumqx / sumq2;
    }
    if (scale < 0) {                     /* "should never happen" in ggml; same fix-up */
        scale = -scale;
        for (k = 0; k < 4; k++) signs[k] = (uint8_t)(gi ? ~signs[k] : ~signs[k] & 127);
    }
    return scale;
}

/* Grid index of levels L[4] (they are on the grid by construction; 0 if a
 * non-finite input left them elsewhere, where ggml would abort). */
static int lk__iq3_index(int gi, const int8_t *L) {
    const unsigned u = (unsigned)(L[0] | (L[1] << 3) | (L[2] << 6) | (L[3] << 9));
    const int m = lk__iq3_map[gi][u & 4095];
    return m >= 0 ? m : 0;
}

static void lk__iq3_xxs_from_float(const float *x, void *vy, int64_t n) {
    uint8_t *y = (uint8_t *)vy;
    int8_t L[32];
    int64_t ibl;
    lk__iq3_init(0);
    memset(L, 0, sizeof L);
    for (ibl = 0; ibl < n / LK__IQ_QK; ibl++, x += LK__IQ_QK, y += 98) {
        float scales[8], max_scale = 0, d, id;
        uint32_t sas[8];                      /* 4 x 7 sign bits | scale << 28 */
        int ib, k;
        memset(y, 0, 98);
        lk__wr16(y, lk_fp32_to_fp16(0.f));
        for (ib = 0; ib < 8; ib++) {
            uint8_t sg[4];
            int skip;
            const float scale = lk__iq3_subblock(0, x + 32 * ib, L, sg, &skip);
            sas[ib] = 0;
            if (skip) { scales[ib] = 0; continue; }
            for (k = 0; k < 8; k++) y[2 + 8 * ib + k] = (uint8_t)lk__iq3_index(0, L + 4 * k);
            sas[ib] = (uint32_t)sg[0] | ((uint32_t)sg[1] << 7) | ((uint32_t)sg[2] << 14) | ((uint32_t)sg[3] << 21);
            scales[ib] = scale;
            max_scale = max_scale > scale ? max_scale : scale;
        }
        if (!(max_scale != 0)) { memset(y + 2, 0, 96); continue; }
        d = max_scale / 31;
        lk__wr16(y, lk_fp32_to_fp16(d * 1.0125f));
        id = 1 / d;
        for (ib = 0; ib < 8; ib++) {
            int l = lk__nearest_int(0.5f * (id * scales[ib] - 1));
            l = l < 0 ? 0 : l > 15 ? 15 : l;
            lk__iq_wr32(y + 66 + 4 * ib, sas[ib] | ((uint32_t)l << 28));
        }
    }
}

static void lk__iq3_s_from_float(const float *x, void *vy, int64_t n) {
    uint8_t *y = (uint8_t *)vy;
    int8_t L[32];
    int64_t ibl;
    lk__iq3_init(1);
    memset(L, 0, sizeof L);
    for (ibl = 0; ibl < n / LK__IQ_QK; ibl++, x += LK__IQ_QK, y += 110) {
        float scales[8], max_scale = 0, d, id;
        uint8_t *qs = y + 2, *qh = y + 66, *signs = y + 74;
        int ib, k;
        memset(y, 0, 110);
        for (ib = 0; ib < 8; ib++) {
            uint8_t sg[4];
            int skip;
            const float scale = lk__iq3_subblock(1, x + 32 * ib, L, sg, &skip);
            if (skip) { scales[ib] = 0; continue; }
            for (k = 0; k < 8; k++) {
                const int g = lk__iq3_index(1, L + 4 * k);
                qs[k] = (uint8_t)(g & 255);
                qh[ib] |= (uint8_t)((g >> 8) << k);
            }
            /* ggml advances qs and signs only past coded sub-blocks (an
             * all-zero sub-block shifts the following ones); kept for
             * identical bytes. */
            qs += 8;
            for (k = 0; k < 4; k++) signs[k] = sg[k];
            signs += 4;
            scales[ib] = scale;
            max_scale = max_scale > scale ? max_scale : scale;
        }
        if (!(max_scale != 0)) continue;
        d = max_scale / 31;
        lk__wr16(y, lk_fp32_to_fp16(d * 1.033f));
        id = 1 / d;
        for (ib = 0; ib < 8; ib += 2) {
            int l1 = lk__nearest_int(0.5f * (id * scales[ib] - 1));
            int l2 = lk__nearest_int(0.5f * (id * scales[ib + 1] - 1));
            l1 = l1 < 0 ? 0 : l1 > 15 ? 15 : l1;
            l2 = l2 < 0 ? 0 : l2 > 15 ? 15 : l2;
            y[106 + ib / 2] = (uint8_t)(l1 | (l2 << 4));
        }
    }
}
/* end of 14.7b */

#else
LKDEF void lk_quant_iq_init(void) {}
#endif /* LLMKIT_NO_QUANTIZE */
#else
LKDEF void lk_quant_iq_init(void) {}
#endif /* LLMKIT_NO_IQ */
/* --------------------------------------------------------------------------
 * 14.7s SIMD kernels, in this order: Cortex-M (Helium, DSP), x86 (AVX2;
 * AVX-512, VNNI and BF16 variants inside the kernels), NEON, the
 * activation quantizers' choice, the interleaved-row kernels, and at the
 * end the kernel table (lk__kernel_table: per target, the kernels each type
 * runs) with the dot-product dispatchers that lk__type_table names. Each
 * kernel names its scalar reference (a *_ref function of 14.7a / 14.7b).
 * Integer parts are exact in every version; the f32, f16 and q4_1 dots
 * (x86), the q8_0 and bf16 dots and the activation quantizers are
 * bit-identical to their references; other dots may round their float sums
 * differently.
 * Float order of the x86 kernels (the vec_dot is the 1 x 1 tile):
 *   32-element blocks (q8_0 q4_0 q5_0 q4_1 q5_1 iq4_nl): 8 int32 lanes, lane
 *     m = products 4m..4m+3 of a block; acc = fma(dx*dy, lanes, acc) per
 *     block; lk__hsum8 at the end (+ the separate m*s sum for q4_1/q5_1).
 *   K-quants, iq4_xs: 8 int32 lanes of scale * int16 pair sums per
 *     super-block (q6_K / q3_K pairs of signed (q - 32|4) * y, as ggml);
 *     acc = fma(d, lanes, acc); min terms in a scalar float sum.
 *   f32 / f16: the reference's order (lk__vdot_flt_ref): rows of a multiple
 *     of 16 in 16 fma lanes (element 16k+j in lane j) reduced as lk__hsum16,
 *     other rows in ggml's vec_dot order. bf16: the AVX512-BF16 dot
 *     instruction or its AVX2 emulation, exactly the reference.
 * NEON: q8_0 as x86 (bit-identical); q4_0 as x86; K-quants with 4 lanes.
 * -------------------------------------------------------------------------- */
/* The Cortex-M kernels come first, still inside 14.7a's no-contraction
 * region (LK__STRICT_FP_BEGIN, which ends after them): unlike the x86 and
 * NEON kernels, whose float steps are explicit intrinsics, they repeat
 * their references' float arithmetic in plain C (sum += (float)isum * dx *
 * dy), which the compiler must not fuse into fma to keep the references'
 * bits. */
/* ---- Helium (MVE, Cortex-M55/M85): the dot products a microcontroller
 * model runs, each bit for bit its scalar reference (14.7a; tests/test_mcu.c
 * runs them under qemu's mps3-an547). Integer parts are exact whatever the
 * order (VMLADAV: multiply pairs of int8 lanes, sum across the vector into
 * a 32-bit scalar; the predicated form sums only the lanes whose bits are
 * set, which gives ggml's 4-element partial sums); float parts repeat the
 * reference's operations in its order: VFMA lanes are the reference's fmaf
 * accumulators (fused, one rounding, as fmaf). */
#if defined(LK__MVE)
/* lk__vec_dot_q8_0_q8_0_ref: lane m of the 8 = the products 4m..4m+3 */
static void lk__vd_q8_0_mve(int64_t n, float *s, const void *vx, const void *vy) {
    const uint8_t *x = (const uint8_t *)vx, *y = (const uint8_t *)vy;
    float acc[8] = { 0, 0, 0, 0, 0, 0, 0, 0 };
    int64_t i;
    int m;
    for (i = 0; i < n / 32; i++, x += 34, y += 34) {
        const int8x16_t a0 = vld1q_s8((const int8_t *)(x + 2)), a1 = vld1q_s8((const int8_t *)(x + 18));
        const int8x16_t b0 = vld1q_s8((const int8_t *)(y + 2)), b1 = vld1q_s8((const int8_t *)(y + 18));
        const float d = LK__H2F(lk__rd16(x)) * LK__H2F(lk__rd16(y));
        for (m = 0; m < 4; m++) {
            const mve_pred16_t g = (mve_pred16_t)(0xFu << (4 * m));   /* byte lanes 4m..4m+3 */
            acc[m] = fmaf(d, (float)vmladavq_p_s8(a0, b0, g), acc[m]);
            acc[4 + m] = fmaf(d, (float)vmladavq_p_s8(a1, b1, g), acc[4 + m]);
        }
    }
    *s = lk__hsum8(acc);
}
/* lk__vec_dot_q4_0_q8_0_ref (lk__legacy_dot, bits 4): the block's exact
 * integer sum, then sum += (float)isum * dx * dy. Nibbles: byte j holds
 * element j (low) and j + 16 (high), each stored + 8. */
static void lk__vd_q4_0_mve(int64_t n, float *s, const void *vx, const void *vy) {
    const uint8_t *x = (const uint8_t *)vx, *y = (const uint8_t *)vy;
    const uint8x16_t m4 = vdupq_n_u8(15);
    const int8x16_t k8 = vdupq_n_s8(8);
    float sum = 0.0f;
    int64_t i;
    for (i = 0; i < n / 32; i++, x += 18, y += 34) {
        const uint8x16_t q = vld1q_u8(x + 2);
        const int8x16_t lo = vsubq_s8(vreinterpretq_s8_u8(vandq_u8(q, m4)), k8), hi = vsubq_s8(vreinterpretq_s8_u8(vshrq_n_u8(q, 4)), k8);
        const int32_t isum = vmladavaq_s8(vmladavq_s8(lo, vld1q_s8((const int8_t *)(y + 2))), hi, vld1q_s8((const int8_t *)(y + 18)));
        sum += (float)isum * LK__H2F(lk__rd16(x)) * LK__H2F(lk__rd16(y));
    }
    *s = sum;
}
#if (__ARM_FEATURE_MVE & 2)
/* lk__vec_dot_f32_ref: rows of a multiple of 16 in 16 fma lanes (4 vectors
 * of 4), lk__hsum16; others ggml's order (lk__dot64_ref's 4 x 16 lanes,
 * 4 lanes per vector, then lk__vdot_tail) */
static void lk__vd_f32_mve(int64_t n, float *s, const void *vx, const void *vy) {
    const float *x = (const float *)vx, *y = (const float *)vy;
    float a[4][16];
    int64_t i;
    int j, l;
    if (n % 16 == 0) {
        float32x4_t v0 = vdupq_n_f32(0.0f), v1 = v0, v2 = v0, v3 = v0;
        for (i = 0; i < n; i += 16) {
            v0 = vfmaq_f32(v0, vld1q_f32(x + i), vld1q_f32(y + i));
            v1 = vfmaq_f32(v1, vld1q_f32(x + i + 4), vld1q_f32(y + i + 4));
            v2 = vfmaq_f32(v2, vld1q_f32(x + i + 8), vld1q_f32(y + i + 8));
            v3 = vfmaq_f32(v3, vld1q_f32(x + i + 12), vld1q_f32(y + i + 12));
        }
        vst1q_f32(a[0], v0); vst1q_f32(a[0] + 4, v1); vst1q_f32(a[0] + 8, v2); vst1q_f32(a[0] + 12, v3);
        *s = lk__hsum16(a[0]);
        return;
    }
    if (n >= 64) {
        const int64_t n64 = n & ~(int64_t)63;
        for (j = 0; j < 4; j++) {   /* group j: lanes 16j .. 16j + 15 of every 64 */
            float32x4_t v0 = vdupq_n_f32(0.0f), v1 = v0, v2 = v0, v3 = v0;
            for (i = 16 * j; i < n64; i += 64) {
                v0 = vfmaq_f32(v0, vld1q_f32(x + i), vld1q_f32(y + i));
                v1 = vfmaq_f32(v1, vld1q_f32(x + i + 4), vld1q_f32(y + i + 4));
                v2 = vfmaq_f32(v2, vld1q_f32(x + i + 8), vld1q_f32(y + i + 8));
                v3 = vfmaq_f32(v3, vld1q_f32(x + i + 12), vld1q_f32(y + i + 12));
            }
            vst1q_f32(a[j], v0); vst1q_f32(a[j] + 4, v1); vst1q_f32(a[j] + 8, v2); vst1q_f32(a[j] + 12, v3);
        }
        for (l = 0; l < 16; l++) { a[0][l] += a[2][l]; a[1][l] += a[3][l]; a[0][l] += a[1][l]; }
        *s = lk__vdot_tail(lk__hsum16(a[0]), x, 0, y, 0, n64, n, 0);
        return;
    }
    *s = lk__vdot_tail(0.0f, x, 0, y, 0, 0, n, 0);
}
#else
#define lk__vd_f32_mve lk__vec_dot_f32_ref
#endif
#define lk__vd_q8_0_mcu lk__vd_q8_0_mve
#define lk__vd_q4_0_mcu lk__vd_q4_0_mve
#define lk__vd_f32_mcu lk__vd_f32_mve
#endif /* LK__MVE */

/* ---- the DSP extension (Cortex-M4/M7/M33): SXTB16 sign-extends bytes 0
 * and 2 of a word (or 1 and 3, rotated by 8) into two 16-bit halves, SMLAD
 * multiplies both halves pairwise and adds the two products to an int32:
 * four int8 products per two SMLADs, exact. Same results as the references
 * (tests/test_mcu.c on qemu's mps2-an386). */
#if defined(LK__DSP)
static uint32_t lk__ror8(uint32_t v) { return v >> 8 | v << 24; }
/* sum of the four products of the int8 quadruples a, b */
static int32_t lk__dot4_dsp(uint32_t a, uint32_t b, int32_t acc) {
    return __smlad(__sxtb16(a), __sxtb16(b), __smlad(__sxtb16(lk__ror8(a)), __sxtb16(lk__ror8(b)), acc));
}
/* lk__vec_dot_q8_0_q8_0_ref: lane m = the products 4m..4m+3 */
static void lk__vd_q8_0_dsp(int64_t n, float *s, const void *vx, const void *vy) {
    const uint8_t *x = (const uint8_t *)vx, *y = (const uint8_t *)vy;
    float acc[8] = { 0, 0, 0, 0, 0, 0, 0, 0 };
    int64_t i;
    int m;
    for (i = 0; i < n / 32; i++, x += 34, y += 34) {
        const float d = LK__H2F(lk__rd16(x)) * LK__H2F(lk__rd16(y));
        for (m = 0; m < 8; m++) acc[m] = fmaf(d, (float)lk__dot4_dsp(lk__ld32(x + 2 + 4 * m), lk__ld32(y + 2 + 4 * m), 0), acc[m]);
    }
    *s = lk__hsum8(acc);
}
/* lk__vec_dot_q4_0_q8_0_ref: the exact block sum, then sum += (float)isum * dx * dy;
 * four nibbles at a time, minus 8 per byte (SSUB8) */
static void lk__vd_q4_0_dsp(int64_t n, float *s, const void *vx, const void *vy) {
    const uint8_t *x = (const uint8_t *)vx, *y = (const uint8_t *)vy;
    float sum = 0.0f;
    int64_t i;
    int j;
    for (i = 0; i < n / 32; i++, x += 18, y += 34) {
        int32_t isum = 0;
        for (j = 0; j < 16; j += 4) {
            const uint32_t q = lk__ld32(x + 2 + j);
            isum = lk__dot4_dsp((uint32_t)__ssub8(q & 0x0F0F0F0Fu, 0x08080808u), lk__ld32(y + 2 + j), isum);              /* elements j..j+3   */
            isum = lk__dot4_dsp((uint32_t)__ssub8(q >> 4 & 0x0F0F0F0Fu, 0x08080808u), lk__ld32(y + 18 + j), isum);        /* elements j+16..j+19 */
        }
        sum += (float)isum * LK__H2F(lk__rd16(x)) * LK__H2F(lk__rd16(y));
    }
    *s = sum;
}
#define lk__vd_q8_0_mcu lk__vd_q8_0_dsp
#define lk__vd_q4_0_mcu lk__vd_q4_0_dsp
#define lk__vd_f32_mcu lk__vec_dot_f32_ref
#endif /* LK__DSP */
LK__STRICT_FP_END   /* 14.7a, 14.7b and the Cortex-M kernels of 14.7s */
/* q4_K / q5_K: 12 packed bytes -> 8 six-bit scales and 8 mins */
static LK__UNUSED void lk__k4_scales(const uint8_t *q, uint8_t *sc, uint8_t *mn) {   /* 12 bytes -> 8 + 8 */
    uint32_t u[3], a[4];
    memcpy(u, q, 12);
    a[0] = u[0] & 0x3f3f3f3fu;                                       /* scales 0-3 */
    a[1] = (u[2] & 0x0f0f0f0fu) | ((u[0] >> 2) & 0x30303030u);       /* scales 4-7 */
    a[2] = u[1] & 0x3f3f3f3fu;                                       /* mins 0-3   */
    a[3] = ((u[2] >> 4) & 0x0f0f0f0fu) | ((u[1] >> 2) & 0x30303030u);/* mins 4-7   */
    memcpy(sc, a, 8); memcpy(mn, a + 2, 8);
}
/* iq4_nl levels + 128 as unsigned bytes (lk__iq4nl_values) */
static LK__UNUSED const uint8_t lk__iq4nl_u8[16] = { 1, 24, 45, 63, 79, 93, 106, 118, 129, 141, 153, 166, 181, 197, 217, 241 };
#if defined(LK__X86)
#define LK__LD256(p) _mm256_loadu_si256((const __m256i *)(const void *)(p))
#define LK__LD128(p) _mm_loadu_si128((const __m128i *)(const void *)(p))
static float lk__h2f_x(uint16_t h) { return _cvtsh_ss(h); }
LK__AINL uint32_t lk__ld32_x(const unsigned char *p) { uint32_t v; memcpy(&v, p, 4); return v; }   /* (lk__rd32 lies in another optimisation region: never inlined here) */
/* the two f16 at p (little-endian) as floats in lanes 0, 1 (one load, one conversion) */
LK__AINL __m128 lk__h2f2_x(const unsigned char *p) { int32_t v; memcpy(&v, p, 4); return _mm_cvtph_ps(_mm_cvtsi32_si128(v)); }
#ifndef LK__PFB
#define LK__PFB 2048   /* decode prefetch distance, bytes (a few KiB ahead: a short distance such as 512 does not hide the memory latency) */
#endif
/* decode streams each weight row once: fetch the block LK__PFB bytes ahead (bytes: its size) */
LK__AINL void lk__prefetch_blk(const unsigned char *p, size_t bytes) {
    size_t o;
    for (o = 0; o < bytes; o += 64) _mm_prefetch((const char *)p + o, _MM_HINT_T0);
}
/* 8-lane sum in the order of lk__hsum8: (l0+l4 + l2+l6) + (l1+l5 + l3+l7) */
static float lk__hsum8_x(__m256 v) {
    __m128 t = _mm_add_ps(_mm256_extractf128_ps(v, 1), _mm256_castps256_ps128(v));
    t = _mm_add_ps(t, _mm_movehl_ps(t, t));
    t = _mm_add_ss(t, _mm_movehdup_ps(t));
    return _mm_cvtss_f32(t);
}
static int32_t lk__hsum8i_x(__m256i v) {
    __m128i t = _mm_add_epi32(_mm256_extracti128_si256(v, 1), _mm256_castsi256_si128(v));
    t = _mm_add_epi32(t, _mm_shuffle_epi32(t, 0x4e));
    t = _mm_add_epi32(t, _mm_shuffle_epi32(t, 0xb1));
    return _mm_cvtsi128_si32(t);
}
/* acc[k] += sum over i < 4 of u[4k+i] * s[4k+i]  (u unsigned, s signed bytes;
 * without VNNI each pair sum must fit int16) */
static __m256i lk__dp4_x(__m256i acc, __m256i u, __m256i s) {
#if defined(LK__X86_VNNI)
    return _mm256_dpbusd_epi32(acc, u, s);
#else
    return _mm256_add_epi32(acc, _mm256_madd_epi16(_mm256_maddubs_epi16(u, s), _mm256_set1_epi16(1)));
#endif
}
/* signed x . signed y in 4-element groups (y != -128) */
static LK__UNUSED __m256i lk__dp4s_x(__m256i x, __m256i y) {
    return lk__dp4_x(_mm256_setzero_si256(), _mm256_sign_epi8(x, x), _mm256_sign_epi8(y, x));
}
/* 16 bytes of nibbles -> 32 bytes: low nibbles (elements 0-15) then high (16-31) */
static __m256i lk__nib32_x(const uint8_t *qs) {
    __m128i b = LK__LD128(qs);
    return _mm256_and_si256(_mm256_set_m128i(_mm_srli_epi16(b, 4), b), _mm256_set1_epi8(15));
}
/* 32 bits -> 32 bytes, byte j = 0xFF where bit j is set */
static __m256i lk__bits32_x(uint32_t b) {
#if defined(LK__X86_512)
    return _mm256_movm_epi8((__mmask32)b);
#else
    const __m256i shuf = _mm256_setr_epi8(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1,
                                          2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3);
    const __m256i bit = _mm256_set1_epi64x((long long)0x8040201008040201ull);
    __m256i v = _mm256_shuffle_epi8(_mm256_set1_epi32((int)b), shuf);
    return _mm256_cmpeq_epi8(_mm256_and_si256(v, bit), bit);
#endif
}

/* q2_K's scale pair for 32 bytes = two sub-blocks of 16: a for bytes 0-15, b for 16-31 */
static __m256i lk__sc2_x(int a, int b) { return _mm256_set_m128i(_mm_set1_epi16((short)b), _mm_set1_epi16((short)a)); }
/* f32 / f16 dots (semantics and scalar reference: lk__vdot_flt_ref in
 * 14.7a): rows of a multiple of 16 in 16 fma lanes as two registers,
 * others in ggml's vec_dot order (lk__dot64, then lk__vdot_tail) */
static float lk__red16_x(__m256 lo, __m256 hi) { return lk__hsum8_x(_mm256_add_ps(hi, lo)); }
static __m256 lk__ld8f_x(const void *p, int h, int64_t i) {
    return h ? _mm256_cvtph_ps(LK__LD128(LK__CAST(const uint16_t *, p) + i)) : _mm256_loadu_ps(LK__CAST(const float *, p) + i);
}
/* lk__dot64_ref: n a multiple of 64 (always inlined where xh, yh are constants) */
LK__AINL float lk__dot64_x(const void *x, int xh, const void *y, int yh, int64_t n) {
#if defined(LK__X86_512)
    __m512 v[4];
    int64_t i;
    int j;
    for (j = 0; j < 4; j++) v[j] = _mm512_setzero_ps();
    for (i = 0; i < n; i += 64)
        for (j = 0; j < 4; j++) {
            const int64_t e = i + 16 * j;
            __m512 a = xh ? _mm512_cvtph_ps(_mm256_loadu_si256(LK__CAST(const __m256i *, LK__CAST(const uint16_t *, x) + e))) : _mm512_loadu_ps(LK__CAST(const float *, x) + e);
            __m512 b = yh ? _mm512_cvtph_ps(_mm256_loadu_si256(LK__CAST(const __m256i *, LK__CAST(const uint16_t *, y) + e))) : _mm512_loadu_ps(LK__CAST(const float *, y) + e);
            v[j] = _mm512_fmadd_ps(a, b, v[j]);
        }
    return lk__hsum8_x(_mm256_add_ps(_mm512_extractf32x8_ps(_mm512_add_ps(_mm512_add_ps(v[0], v[2]), _mm512_add_ps(v[1], v[3])), 1),
                                     _mm512_castps512_ps256(_mm512_add_ps(_mm512_add_ps(v[0], v[2]), _mm512_add_ps(v[1], v[3])))));
#else
    __m256 lo[4], hi[4];
    int64_t i;
    int j;
    for (j = 0; j < 4; j++) lo[j] = hi[j] = _mm256_setzero_ps();
    for (i = 0; i < n; i += 64)
        for (j = 0; j < 4; j++) {
            const int64_t e = i + 16 * j;
            lo[j] = _mm256_fmadd_ps(lk__ld8f_x(x, xh, e), lk__ld8f_x(y, yh, e), lo[j]);
            hi[j] = _mm256_fmadd_ps(lk__ld8f_x(x, xh, e + 8), lk__ld8f_x(y, yh, e + 8), hi[j]);
        }
    return lk__red16_x(_mm256_add_ps(_mm256_add_ps(lo[0], lo[2]), _mm256_add_ps(lo[1], lo[3])),
                       _mm256_add_ps(_mm256_add_ps(hi[0], hi[2]), _mm256_add_ps(hi[1], hi[3])));
#endif
}
static float lk__dot64(const void *x, int xh, const void *y, int yh, int64_t n) { return lk__dot64_x(x, xh, y, yh, n); }
static float lk__vdot_flt_x86(int64_t n, const void *x, int xh, const void *y, int yh, int dbl) {
    __m256 a0 = _mm256_setzero_ps(), a1 = _mm256_setzero_ps();
    int64_t i;
    if (n % 16) {
        const int64_t n64 = n & ~(int64_t)63;
        return lk__vdot_tail(n64 ? lk__dot64(x, xh, y, yh, n64) : 0.0f, x, xh, y, yh, n64, n, dbl);
    }
    for (i = 0; i < n; i += 16) {
        if (xh) _mm_prefetch((const char *)x + 2 * i + LK__PFB, _MM_HINT_T0);   /* f16 weight rows (decode): fetch ahead */
        a0 = _mm256_fmadd_ps(lk__ld8f_x(x, xh, i), lk__ld8f_x(y, yh, i), a0);
        a1 = _mm256_fmadd_ps(lk__ld8f_x(x, xh, i + 8), lk__ld8f_x(y, yh, i + 8), a1);
    }
    return lk__red16_x(a0, a1);
}
static LK__UNUSED void lk__vd_f32_x86(int64_t n, float *s, const void *vx, const void *vy) { *s = lk__vdot_flt_x86(n, vx, 0, vy, 0, 0); }
static LK__UNUSED void lk__vd_f16_x86(int64_t n, float *s, const void *vx, const void *vy) { *s = lk__vdot_flt_x86(n, vx, 1, vy, 1, 1); }
/* f32 -> f16 rows with the F16C instruction (round to nearest even, as the
 * reference, for every finite value and infinity) */
static void lk__from_float_f16_x86(const float *x, void *vy, int64_t n) {
    uint16_t *y = LK__CAST(uint16_t *, vy);
    int64_t i = 0;
    for (; i + 8 <= n; i += 8)
        _mm_storeu_si128((__m128i *)(void *)(y + i), _mm256_cvtps_ph(_mm256_loadu_ps(x + i), _MM_FROUND_TO_NEAREST_INT));
    for (; i < n; i++) y[i] = lk_fp32_to_fp16(x[i]);
}
#if defined(LK__X86_BF16)
/* bf16 (n % 32 == 0): the AVX512-BF16 dot instruction is the reference's arithmetic */
static void lk__vd_bf16_512(int64_t n, float *s, const void *vx, const void *vy) {
    const uint16_t *x = LK__CAST(const uint16_t *, vx), *y = LK__CAST(const uint16_t *, vy);
    __m512 acc = _mm512_setzero_ps();
    int64_t i;
    for (i = 0; i < n; i += 32)
        acc = _mm512_dpbf16_ps(acc, (__m512bh)_mm512_loadu_si512((const void *)(x + i)), (__m512bh)_mm512_loadu_si512((const void *)(y + i)));
    *s = lk__hsum8_x(_mm256_add_ps(_mm512_extractf32x8_ps(acc, 1), _mm512_castps512_ps256(acc)));   /* lanes j + (8 + j), then lk__hsum8 */
}
#endif

/* activation quantizers, bit-identical to the references (finite input) */
static __m256i lk__pack32_x(__m256i i0, __m256i i1, __m256i i2, __m256i i3) {   /* 4 x 8 int32 -> 32 int8 in order */
    __m256i b = _mm256_packs_epi16(_mm256_packs_epi32(i0, i1), _mm256_packs_epi32(i2, i3));
    return _mm256_permutevar8x32_epi32(b, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
}
static float lk__amax32_x(const float *x, __m256 *v) {
    const __m256 sgn = _mm256_set1_ps(-0.0f);
    __m256 m;
    __m128 t;
    v[0] = _mm256_loadu_ps(x); v[1] = _mm256_loadu_ps(x + 8);
    v[2] = _mm256_loadu_ps(x + 16); v[3] = _mm256_loadu_ps(x + 24);
    m = _mm256_max_ps(_mm256_max_ps(_mm256_andnot_ps(sgn, v[0]), _mm256_andnot_ps(sgn, v[1])),
                      _mm256_max_ps(_mm256_andnot_ps(sgn, v[2]), _mm256_andnot_ps(sgn, v[3])));
    t = _mm_max_ps(_mm256_extractf128_ps(m, 1), _mm256_castps256_ps128(m));
    t = _mm_max_ps(t, _mm_movehl_ps(t, t));
    t = _mm_max_ss(t, _mm_movehdup_ps(t));
    return _mm_cvtss_f32(t);
}
static __m256i lk__q32_x(const __m256 *v, float id, __m256i *sum) {
    __m256 m = _mm256_set1_ps(id);
    __m256i i0 = _mm256_cvtps_epi32(_mm256_mul_ps(v[0], m)), i1 = _mm256_cvtps_epi32(_mm256_mul_ps(v[1], m));
    __m256i i2 = _mm256_cvtps_epi32(_mm256_mul_ps(v[2], m)), i3 = _mm256_cvtps_epi32(_mm256_mul_ps(v[3], m));
    if (sum) *sum = _mm256_add_epi32(_mm256_add_epi32(i0, i1), _mm256_add_epi32(i2, i3));
    return lk__pack32_x(i0, i1, i2, i3);
}
/* reference: lk__act_quantize_q8_0_ref (14.7a) */
static void lk__act_q8_0_x86(const float *x, void *vy, int64_t n) {
    lk_block_q8_0 *y = LK__CAST(lk_block_q8_0 *, vy);
    int64_t i, nb = n / LK_QK8_0;
    for (i = 0; i < nb; i++, x += LK_QK8_0) {
        __m256 v[4];
        float amax = lk__amax32_x(x, v);
        y[i].d = LK__F2H(amax / 127.0f);
        _mm256_storeu_si256((__m256i *)(void *)y[i].qs, lk__q32_x(v, amax != 0.0f ? 127.0f / amax : 0.0f, NULL));
    }
}
/* reference: lk__act_quantize_q8_1_ref (14.7a) */
static void lk__act_q8_1_x86(const float *x, void *vy, int64_t n) {
    lk_block_q8_1 *y = LK__CAST(lk_block_q8_1 *, vy);
    int64_t i, nb = n / LK_QK8_1;
    for (i = 0; i < nb; i++, x += LK_QK8_1) {
        __m256 v[4];
        __m256i sum;
        float amax = lk__amax32_x(x, v), d = amax / 127.0f;
        y[i].d = LK__F2H(d);
        _mm256_storeu_si256((__m256i *)(void *)y[i].qs, lk__q32_x(v, amax != 0.0f ? 127.0f / amax : 0.0f, &sum));
        y[i].s = LK__F2H(d * (float)lk__hsum8i_x(sum));
    }
}
/* reference: lk__quantize_row_q8_K_ref (14.7a) */
static void lk__act_q8_K_x86(const float *x, void *vy, int64_t n) {
    lk_block_q8_K *y = LK__CAST(lk_block_q8_K *, vy);
    int64_t i, nb = n / LK_QK_K;
    int j;
    for (i = 0; i < nb; i++, x += LK_QK_K) {
        __m256 v[32];
        float amax = 0.0f, max = 0.0f, iscale;
        for (j = 0; j < 8; j++) { float a = lk__amax32_x(x + 32 * j, v + 4 * j); if (a > amax) amax = a; }
        if (!amax) { memset(&y[i], 0, sizeof y[i]); continue; }
        for (j = 0; j < LK_QK_K; j++) if (fabsf(x[j]) == amax) { max = x[j]; break; }   /* first, as the reference */
        iscale = -127.f / max;
        for (j = 0; j < 8; j++) {
            __m256i s0, s1, b = lk__q32_x(v + 4 * j, iscale, NULL);
            _mm256_storeu_si256((__m256i *)(void *)(y[i].qs + 32 * j), b);
            /* bsums: sums of 16 consecutive int8 */
            s0 = _mm256_madd_epi16(_mm256_maddubs_epi16(_mm256_set1_epi8(1), b), _mm256_set1_epi16(1));   /* 8 x sums of 4 */
            s1 = _mm256_hadd_epi32(s0, s0);                          /* sums of 8: [0..7],[8..15] | [16..23],[24..31] */
            s1 = _mm256_hadd_epi32(s1, s1);                          /* sums of 16 in element 0 of each lane */
            y[i].bsums[2 * j] = (int16_t)_mm256_cvtsi256_si32(s1);
            y[i].bsums[2 * j + 1] = (int16_t)_mm_cvtsi128_si32(_mm256_extracti128_si256(s1, 1));
        }
        y[i].d = 1 / iscale;
    }
}
#endif /* LK__X86 */
#if defined(__GNUC__) || defined(__clang__)
#define LK__NOINL __attribute__((noinline))
#elif defined(_MSC_VER)
#define LK__NOINL __declspec(noinline)
#else
#define LK__NOINL
#endif
/* ---- register-tiled kernels (x86): R weight rows x C activation columns.
 * Each (row, column) pair runs exactly the instructions of the R = C = 1
 * case, which is the vec_dot, so tiled results equal vec_dot bit for bit.
 * y[c * ys + r] = dot(weight row r, activation column c).
 * A family kernel serves several types, told apart by its kind (an enum
 * below; the kernel table's kind column). Each family has two entries for
 * the kernel table, lk__tile44_<family> (LK__TR x LK__TC) and
 * lk__tile41_<family> (LK__TR x 1), which switch on the kind to always-
 * inlined copies: every (type, shape) runs code compiled for its own
 * constants, as if it were a kernel of its own. */
#if defined(LK__X86)
typedef enum lk__flt_kind { LK__FLT_F32, LK__FLT_F16, LK__FLT_BF16 } lk__flt_kind;   /* float rows */
/* 32-element blocks (lk__tile_b32_x86); the two with q8_1 activations,
 * whose blocks carry a min, come last */
typedef enum lk__b32_kind { LK__B32_Q8_0, LK__B32_Q4_0, LK__B32_Q5_0, LK__B32_IQ4_NL, LK__B32_Q4_1, LK__B32_Q5_1 } lk__b32_kind;
typedef enum lk__q45_kind { LK__Q45_Q4_K, LK__Q45_Q5_K } lk__q45_kind;   /* lk__tile_q45_K_x86 */
#if !defined(LK__X86_512)
/* f32 / f16 tiles without AVX-512: each pair keeps lk__vdot_flt_x86's two
 * 8-lane accumulators (so a tile equals the vec_dot bit for bit), 2 rows x
 * 2 columns at a time (8 accumulators and 8 loaded vectors fill the 16
 * registers); a 4 x 4 tile is four of them. */
LK__AINL void lk__tile_flt2_avx2(int64_t n, const unsigned char *w, size_t ws, const unsigned char *a, size_t as, float *y, int64_t ys,
                                 int R, int C, int h) {
    __m256 lo[2][2], hi[2][2];
    int64_t i;
    int r, c;
    LK__UNROLL for (r = 0; r < R; r++) LK__UNROLL for (c = 0; c < C; c++) lo[r][c] = hi[r][c] = _mm256_setzero_ps();
    for (i = 0; i < n; i += 16) {
        __m256 xl[2], xh[2], yl[2], yh[2];
        LK__UNROLL for (r = 0; r < R; r++) { xl[r] = lk__ld8f_x(w + (size_t)r * ws, h, i); xh[r] = lk__ld8f_x(w + (size_t)r * ws, h, i + 8); }
        LK__UNROLL for (c = 0; c < C; c++) { yl[c] = lk__ld8f_x(a + (size_t)c * as, h, i); yh[c] = lk__ld8f_x(a + (size_t)c * as, h, i + 8); }
        LK__UNROLL for (r = 0; r < R; r++) LK__UNROLL for (c = 0; c < C; c++) {
            lo[r][c] = _mm256_fmadd_ps(xl[r], yl[c], lo[r][c]);
            hi[r][c] = _mm256_fmadd_ps(xh[r], yh[c], hi[r][c]);
        }
    }
    LK__UNROLL for (r = 0; r < R; r++) LK__UNROLL for (c = 0; c < C; c++) y[c * ys + r] = lk__red16_x(lo[r][c], hi[r][c]);
}
#endif /* !LK__X86_512 */
/* lk__hsum8_x of four vectors at once, the same additions in the same
 * order: v_r -> t_r = hi + lo (4 lanes), (t0 + t2) + (t1 + t3); returns
 * [sum v0, sum v1, sum v2, sum v3] */
static __m128 lk__hsum8x4_x(__m256 v0, __m256 v1, __m256 v2, __m256 v3) {
    __m256 a = _mm256_add_ps(_mm256_permute2f128_ps(v0, v1, 0x31), _mm256_permute2f128_ps(v0, v1, 0x20));   /* [t0 | t1] */
    __m256 b = _mm256_add_ps(_mm256_permute2f128_ps(v2, v3, 0x31), _mm256_permute2f128_ps(v2, v3, 0x20));   /* [t2 | t3] */
    __m256 c;
    __m128 lo, hi;
    a = _mm256_add_ps(a, _mm256_shuffle_ps(a, a, 0x4e));   /* lanes 0, 1 of each half: t[0] + t[2], t[1] + t[3] */
    b = _mm256_add_ps(b, _mm256_shuffle_ps(b, b, 0x4e));
    c = _mm256_shuffle_ps(a, b, 0x44);                      /* half 0: rows 0, 2; half 1: rows 1, 3 */
    c = _mm256_add_ps(c, _mm256_shuffle_ps(c, c, 0xb1));   /* lanes 0, 2: (t0 + t2) + (t1 + t3) */
    lo = _mm256_castps256_ps128(c); hi = _mm256_extractf128_ps(c, 1);
    return _mm_permute_ps(_mm_shuffle_ps(lo, hi, 0x88), 0xd8);   /* [r0, r2, r1, r3] -> [r0, r1, r2, r3] */
}
/* lk__dot64's AVX2 accumulation of one f32 row before its horizontal sum:
 * returns H + L (lk__red16_x's first step), n a multiple of 64 */
LK__AINL __m256 lk__dot64v_f32(const float *a, const float *b, int64_t n) {
    __m256 l0 = _mm256_setzero_ps(), l1 = l0, l2 = l0, l3 = l0, h0 = l0, h1 = l0, h2 = l0, h3 = l0;
    int64_t i;
    for (i = 0; i < n; i += 64) {
        l0 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i), l0); h0 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i + 8), _mm256_loadu_ps(b + i + 8), h0);
        l1 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i + 16), _mm256_loadu_ps(b + i + 16), l1); h1 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i + 24), _mm256_loadu_ps(b + i + 24), h1);
        l2 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i + 32), _mm256_loadu_ps(b + i + 32), l2); h2 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i + 40), _mm256_loadu_ps(b + i + 40), h2);
        l3 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i + 48), _mm256_loadu_ps(b + i + 48), l3); h3 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i + 56), _mm256_loadu_ps(b + i + 56), h3);
    }
    return _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(h0, h2), _mm256_add_ps(h1, h3)), _mm256_add_ps(_mm256_add_ps(l0, l2), _mm256_add_ps(l1, l3)));
}
/* 8 G rows (G = 1 or 2 groups of 8, a constant at each call): lk__dot64
 * of four rows at a time with one joint horizontal sum, then the tails */
LK__AINL void lk__f32_rows_g(int64_t n, const float *w, size_t ws, const float *x, float *y, int G) {
    const int64_t n64 = n & ~(int64_t)63;
    int g;
    for (g = 0; g < 8 * G; g += 4) {
        const float *wg = w + (size_t)g * ws;
        if (n64) _mm_storeu_ps(y + g, lk__hsum8x4_x(lk__dot64v_f32(wg, x, n64), lk__dot64v_f32(wg + ws, x, n64),
                                                  lk__dot64v_f32(wg + 2 * ws, x, n64), lk__dot64v_f32(wg + 3 * ws, x, n64)));
        else _mm_storeu_ps(y + g, _mm_setzero_ps());
    }
    lk__vdot_tail_g_f32(y, w, ws, x, n64, n, G);
}
static void lk__f32_rows8(int64_t n, const float *w, size_t ws, const float *x, float *y) { lk__f32_rows_g(n, w, ws, x, y, 1); }
static void lk__f32_rows16(int64_t n, const float *w, size_t ws, const float *x, float *y) { lk__f32_rows_g(n, w, ws, x, y, 2); }
/* 4 rows x 1 column (decode), n a multiple of 16: each row lk__vdot_flt_x86's
 * two accumulators, eight fma chains in flight, one joint reduction. Row
 * r's elements 16k..16k+15 at w + r ws + k wb (rows: wb = the bytes of 16
 * elements; the f16 LK_LAYOUT_R8 halves: ws 32, wb 128, one stream). */
LK__AINL void lk__tile_flt4x1_xb(int64_t n, const unsigned char *w, size_t ws, size_t wb, const unsigned char *a, float *y, int h) {
    const unsigned char *w1 = w + ws, *w2 = w + 2 * ws, *w3 = w + 3 * ws;
    __m256 l0 = _mm256_setzero_ps(), l1 = l0, l2 = l0, l3 = l0, h0 = l0, h1 = l0, h2 = l0, h3 = l0;
    int64_t i;
    for (i = 0; i < n; i += 16) {
        const size_t o = (size_t)(i / 16) * wb;   /* the rows' block k = i / 16 */
        const __m256 xl = lk__ld8f_x(a, h, i), xh = lk__ld8f_x(a, h, i + 8);
        l0 = _mm256_fmadd_ps(lk__ld8f_x(w + o, h, 0), xl, l0); h0 = _mm256_fmadd_ps(lk__ld8f_x(w + o, h, 8), xh, h0);
        l1 = _mm256_fmadd_ps(lk__ld8f_x(w1 + o, h, 0), xl, l1); h1 = _mm256_fmadd_ps(lk__ld8f_x(w1 + o, h, 8), xh, h1);
        l2 = _mm256_fmadd_ps(lk__ld8f_x(w2 + o, h, 0), xl, l2); h2 = _mm256_fmadd_ps(lk__ld8f_x(w2 + o, h, 8), xh, h2);
        l3 = _mm256_fmadd_ps(lk__ld8f_x(w3 + o, h, 0), xl, l3); h3 = _mm256_fmadd_ps(lk__ld8f_x(w3 + o, h, 8), xh, h3);
    }
    _mm_storeu_ps(y, lk__hsum8x4_x(_mm256_add_ps(h0, l0), _mm256_add_ps(h1, l1), _mm256_add_ps(h2, l2), _mm256_add_ps(h3, l3)));
}
static void lk__tile_flt4x1_avx2(int64_t n, const unsigned char *w, size_t ws, const unsigned char *a, float *y, int h) {
    if (h) lk__tile_flt4x1_xb(n, w, ws, 32, a, y, 1);
    else lk__tile_flt4x1_xb(n, w, ws, 64, a, y, 0);
}
#if !defined(LK__X86_512)
static void lk__tile_flt_avx2(int64_t n, const unsigned char *w, size_t ws, const unsigned char *a, size_t as, float *y, int64_t ys,
                              int R, int C, int h) {
    int r, c;
    if (n % 16 == 0 && R == 4 && C == 1) {
        if (h) lk__tile_flt4x1_avx2(n, w, ws, a, y, 1);
        else lk__tile_flt4x1_avx2(n, w, ws, a, y, 0);
        return;
    }
    if (n % 16 && !h && R == 4) {   /* f32: ggml's vec_dot order, the four rows' scalar tails interleaved (four independent add chains) */
        const int64_t n64 = n & ~(int64_t)63;
        const float *w0 = LK__CAST(const float *, w), *w1 = LK__CAST(const float *, w + ws), *w2 = LK__CAST(const float *, w + 2 * ws), *w3 = LK__CAST(const float *, w + 3 * ws);
        for (c = 0; c < C; c++) {
            const float *x = LK__CAST(const float *, a + (size_t)c * as);
            float t[4] = { 0.0f, 0.0f, 0.0f, 0.0f };
            if (n64) { t[0] = lk__dot64_x(w0, 0, x, 0, n64); t[1] = lk__dot64_x(w1, 0, x, 0, n64); t[2] = lk__dot64_x(w2, 0, x, 0, n64); t[3] = lk__dot64_x(w3, 0, x, 0, n64); }
            lk__vdot_tail4_f32(t, w0, w1, w2, w3, x, n64, n);   /* (in 14.7a's no-contraction region, as lk__vdot_tail) */
            y[c * ys] = t[0]; y[c * ys + 1] = t[1]; y[c * ys + 2] = t[2]; y[c * ys + 3] = t[3];
        }
        return;
    }
    if (n % 16) {   /* ggml's vec_dot order with its tail */
        for (r = 0; r < R; r++) for (c = 0; c < C; c++) y[c * ys + r] = lk__vdot_flt_x86(n, w + (size_t)r * ws, h, a + (size_t)c * as, h, h);
        return;
    }
    for (r = 0; r < R; r += 2)
        for (c = 0; c < C; c += 2) {
            const unsigned char *wr = w + (size_t)r * ws, *ac = a + (size_t)c * as;
            float *yo = y + c * ys + r;
            if (R - r >= 2 && C - c >= 2) lk__tile_flt2_avx2(n, wr, ws, ac, as, yo, ys, 2, 2, h);
            else if (R - r >= 2) lk__tile_flt2_avx2(n, wr, ws, ac, as, yo, ys, 2, 1, h);
            else if (C - c >= 2) lk__tile_flt2_avx2(n, wr, ws, ac, as, yo, ys, 1, 2, h);
            else lk__tile_flt2_avx2(n, wr, ws, ac, as, yo, ys, 1, 1, h);
        }
}
#endif
#if !defined(LK__X86_BF16)
/* bf16 tiles without the AVX512-BF16 instruction (reference
 * lk__vec_dot_bf16_ref): its arithmetic is an f32 fma per pair element with
 * denormal inputs read as zero and tiny results flushed to zero, which is
 * what the FPU does by itself in the MXCSR modes DAZ + FTZ (tininess after
 * rounding, as the instruction and lk__bf16_fma). The tile runs in those
 * modes and then reads the underflow flag: set (some sum fell below
 * FLT_MIN: never on real weights) means the tile is recomputed by the
 * scalar reference, so an FPU that decided tininess otherwise could not
 * change a result. The final 16-lane sum runs in the caller's modes, as in
 * the reference. 3 instructions per 8 products instead of 11. */
/* R x C pairs, both 8-lane halves h (lanes 8h..8h+7 of the reference's 16)
 * in one pass: acc[(r * C + c) * 2 + h], 8 floats each */
LK__AINL void lk__tile_bf16h_avx2(int64_t n, const unsigned char *w, size_t ws, const unsigned char *a, size_t as, float *acc, int R, int C) {
    const __m256i hm = _mm256_set1_epi32((int)0xFFFF0000u);
    __m256 s[LK__TR][2][2];
    int64_t i;
    int r, c, h;
    LK__UNROLL for (r = 0; r < R; r++) LK__UNROLL for (c = 0; c < C; c++) s[r][c][0] = s[r][c][1] = _mm256_setzero_ps();
    for (i = 0; i < n; i += 32)   /* 32 bf16 = 16 (even, odd) pairs per row and column */
        LK__UNROLL for (h = 0; h < 2; h++) {
            __m256 wo[LK__TR], we[LK__TR], yo[2], ye[2];
            LK__UNROLL for (r = 0; r < R; r++) {
                const __m256i v = LK__LD256(w + (size_t)r * ws + 2 * i + 32 * h);
                if (C == 1 && h == 0) _mm_prefetch((const char *)w + (size_t)r * ws + 2 * i + LK__PFB, _MM_HINT_T0);   /* decode: fetch ahead */
                wo[r] = _mm256_castsi256_ps(_mm256_and_si256(v, hm));
                we[r] = _mm256_castsi256_ps(_mm256_slli_epi32(v, 16));
            }
            LK__UNROLL for (c = 0; c < C; c++) {
                const __m256i v = LK__LD256(a + (size_t)c * as + 2 * i + 32 * h);
                yo[c] = _mm256_castsi256_ps(_mm256_and_si256(v, hm));
                ye[c] = _mm256_castsi256_ps(_mm256_slli_epi32(v, 16));
            }
            LK__UNROLL for (r = 0; r < R; r++) LK__UNROLL for (c = 0; c < C; c++) {   /* odd element first */
                s[r][c][h] = _mm256_fmadd_ps(wo[r], yo[c], s[r][c][h]);
                s[r][c][h] = _mm256_fmadd_ps(we[r], ye[c], s[r][c][h]);
            }
        }
    LK__UNROLL for (r = 0; r < R; r++) LK__UNROLL for (c = 0; c < C; c++) LK__UNROLL for (h = 0; h < 2; h++)
        _mm256_storeu_ps(acc + ((r * C + c) * 2 + h) * 8, s[r][c][h]);
}
/* the arithmetic in a function of its own (not inlined): the compiler cannot
 * move it across the MXCSR writes and reads around the call */
static LK__NOINL void lk__tile_bf16_run(int64_t n, const unsigned char *w, size_t ws, const unsigned char *a, size_t as, float *acc, int R, int C) {
    if (R == LK__TR && C == 1) lk__tile_bf16h_avx2(n, w, ws, a, as, acc, LK__TR, 1);
    else if (R == 2 && C == 2) lk__tile_bf16h_avx2(n, w, ws, a, as, acc, 2, 2);
    else if (R == 2) lk__tile_bf16h_avx2(n, w, ws, a, as, acc, 2, 1);
    else if (C == 2) lk__tile_bf16h_avx2(n, w, ws, a, as, acc, 1, 2);
    else lk__tile_bf16h_avx2(n, w, ws, a, as, acc, 1, 1);
}
static LK__NOINL unsigned lk__tile_bf16_ftz(int64_t n, const unsigned char *w, size_t ws, const unsigned char *a, size_t as, float *acc, int R, int C) {
    const unsigned csr = _mm_getcsr();
    unsigned uf;
    _mm_setcsr((csr & 0x6000u) | 0x8000u | 0x1F80u | 0x0040u);   /* caller's rounding; FTZ, all exceptions masked, DAZ; flags clear */
    lk__tile_bf16_run(n, w, ws, a, as, acc, R, C);
    uf = _mm_getcsr() & 0x0010u;   /* underflow flag */
    _mm_setcsr(csr);
    return uf;
}
static void lk__tile_bf16_avx2(int64_t n, const unsigned char *w, size_t ws, const unsigned char *a, size_t as, float *y, int64_t ys, int R, int C) {
    float acc[LK__TR * 2 * 2 * 8];
    int r, c, r1 = 1, c1 = 1;
    if (n % 32) {
        for (r = 0; r < R; r++) for (c = 0; c < C; c++) lk__vec_dot_bf16_ref(n, &y[c * ys + r], w + (size_t)r * ws, a + (size_t)c * as);
        return;
    }
    for (r = 0; r < R; r += r1)   /* R x 1 (decode) in one pass, else 2 x 2 pieces */
        for (c = 0; c < C; c += c1) {
            const unsigned char *wr = w + (size_t)r * ws, *ac = a + (size_t)c * as;
            int i, j;
            if (C == 1 && R == LK__TR) r1 = LK__TR, c1 = 1;
            else r1 = R - r >= 2 ? 2 : 1, c1 = C - c >= 2 ? 2 : 1;
            if (lk__tile_bf16_ftz(n, wr, ws, ac, as, acc, r1, c1)) {   /* something tiny: the reference */
                for (i = 0; i < r1; i++) for (j = 0; j < c1; j++) lk__vec_dot_bf16_ref(n, &y[(c + j) * ys + r + i], wr + (size_t)i * ws, ac + (size_t)j * as);
                continue;
            }
            for (i = 0; i < r1; i++)
                for (j = 0; j < c1; j++) {
                    const float *p = acc + (i * c1 + j) * 16;
                    y[(c + j) * ys + r + i] = lk__red16_x(_mm256_loadu_ps(p), _mm256_loadu_ps(p + 8));   /* lanes j + (8 + j), then lk__hsum8 */
                }
        }
}
#endif
/* 32-element blocks (kind: lk__b32_kind, q8_0 q4_0 q5_0 iq4_nl q4_1 q5_1).
 * Weights as unsigned bytes u = value + off (off 128, 8, 16, 128, 0, 0);
 * int lanes = dp4(u, y) - off * dp4(1, y): exact integers of 4 products.
 * Then acc = fma(dx * dy, lanes, acc) per block and lk__hsum8; q4_1 / q5_1
 * add m * s per block in a separate float sum.
 * references: lk__vec_dot_<type>_q8_0 / _q8_1_ref (14.7a), lk__iq4_nl_vec_dot_ref (14.7b) */
LK__AINL void lk__tile_b32_x86(int64_t n, const unsigned char *w, size_t ws, const unsigned char *a, size_t as,
                               float *y, int64_t ys, int R, int C, int kind) {
    static const int bsz[6] = { 34, 18, 22, 18, 20, 24 }, off[6] = { 128, 8, 16, 128, 0, 0 };   /* by kind */
    const int ab = kind >= LK__B32_Q4_1 ? 36 : 34, aq = kind >= LK__B32_Q4_1 ? 4 : 2;   /* q8_1 or q8_0 activations */
    int64_t i, nb = n / 32;
    __m256 acc[LK__TR][LK__TC];
    __m128 summ[LK__TR][LK__TC];   /* lane 1: the m * s sum of q4_1 / q5_1 (lane 0 unused) */
    int r, c;
    LK__UNROLL for (r = 0; r < R; r++) LK__UNROLL for (c = 0; c < C; c++) { acc[r][c] = _mm256_setzero_ps(); summ[r][c] = _mm_setzero_ps(); }
    for (i = 0; i < nb; i++) {
        __m256i xu[LK__TR], ya[LK__TC];
#if defined(LK__X86_VNNI)
        __m256i nc[LK__TC];
#endif
        __m128 hx[LK__TR], hy[LK__TC];   /* the block's two leading f16 (d, and m or s) as floats in lanes 0, 1: one conversion */
        __m256 dxb[LK__TR], dyb[LK__TC];
        LK__UNROLL for (r = 0; r < R; r++) {
            const unsigned char *b = w + (size_t)r * ws + (size_t)i * bsz[kind];
            if (C == 1) _mm_prefetch((const char *)b + LK__PFB, _MM_HINT_T0);   /* decode streams the weights once */
            hx[r] = lk__h2f2_x(b);
            switch (kind) {
            case LK__B32_Q8_0: xu[r] = _mm256_xor_si256(LK__LD256(b + 2), _mm256_set1_epi8((char)0x80)); break;
            case LK__B32_Q4_0: xu[r] = lk__nib32_x(b + 2); break;
            case LK__B32_Q5_0: xu[r] = _mm256_or_si256(lk__nib32_x(b + 6), _mm256_and_si256(lk__bits32_x(lk__ld32_x(b + 2)), _mm256_set1_epi8(16))); break;
            case LK__B32_IQ4_NL: xu[r] = _mm256_shuffle_epi8(_mm256_broadcastsi128_si256(LK__LD128(lk__iq4nl_u8)), lk__nib32_x(b + 2)); break;
            case LK__B32_Q4_1: xu[r] = lk__nib32_x(b + 4); break;
            default: xu[r] = _mm256_or_si256(lk__nib32_x(b + 8), _mm256_and_si256(lk__bits32_x(lk__ld32_x(b + 4)), _mm256_set1_epi8(16))); break;
            }
        }
        LK__UNROLL for (c = 0; c < C; c++) {
            const unsigned char *b = a + (size_t)c * as + (size_t)i * ab;
            hy[c] = lk__h2f2_x(b);
            ya[c] = LK__LD256(b + aq);
#if defined(LK__X86_VNNI)
            nc[c] = off[kind] ? _mm256_sub_epi32(_mm256_setzero_si256(), lk__dp4_x(_mm256_setzero_si256(), _mm256_set1_epi8((char)off[kind]), ya[c]))
                              : _mm256_setzero_si256();
#endif
        }
        if (R > 1 || C > 1) {
            LK__UNROLL for (r = 0; r < R; r++) dxb[r] = _mm256_broadcastss_ps(hx[r]);
            LK__UNROLL for (c = 0; c < C; c++) dyb[c] = _mm256_broadcastss_ps(hy[c]);
        }
        LK__UNROLL for (r = 0; r < R; r++)
            LK__UNROLL for (c = 0; c < C; c++) {
                __m256i p;
#if defined(LK__X86_VNNI)
                p = _mm256_dpbusd_epi32(nc[c], xu[r], ya[c]);
#else           /* maddubs could saturate on u up to 255: signed values and the sign trick */
                if (kind >= LK__B32_Q4_1) p = lk__dp4_x(_mm256_setzero_si256(), xu[r], ya[c]);
                else if (off[kind] == 128) p = lk__dp4s_x(_mm256_xor_si256(xu[r], _mm256_set1_epi8((char)0x80)), ya[c]);
                else p = lk__dp4s_x(_mm256_sub_epi8(xu[r], _mm256_set1_epi8((char)off[kind])), ya[c]);
#endif
                /* dx * dy (one rounding, as the reference): one row and column multiply lane 0 and broadcast it,
                 * tiles broadcast each row's and column's d once (dxb, dyb); lane 1 (q4_1 / q5_1): summ = fma(m, s, summ) */
                const __m256 dd = R == 1 && C == 1 ? _mm256_broadcastss_ps(_mm_mul_ps(hx[r], hy[c])) : _mm256_mul_ps(dxb[r], dyb[c]);
                acc[r][c] = _mm256_fmadd_ps(dd, _mm256_cvtepi32_ps(p), acc[r][c]);
                if (kind >= LK__B32_Q4_1) summ[r][c] = _mm_fmadd_ps(hx[r], hy[c], summ[r][c]);
            }
    }
    LK__UNROLL for (r = 0; r < R; r++)
        LK__UNROLL for (c = 0; c < C; c++) y[c * ys + r] = lk__hsum8_x(acc[r][c]) + (kind >= LK__B32_Q4_1 ? _mm_cvtss_f32(_mm_movehdup_ps(summ[r][c])) : 0.0f);
}
/* the family's entries (kind: lk__b32_kind): one out-of-line copy per kind
 * and tile shape, so that each is compiled as its own function (one switch
 * over inlined copies made the q5_0 tile about 3 % more instructions) */
#define LK__B32_ONE(K) \
static LK__NOINL void lk__t44_b32_##K(int64_t n, const unsigned char *w, size_t ws, const unsigned char *a, size_t as, float *y, int64_t ys) { \
    lk__tile_b32_x86(n, w, ws, a, as, y, ys, LK__TR, LK__TC, LK__B32_##K); } \
static LK__NOINL void lk__t41_b32_##K(int64_t n, const unsigned char *w, size_t ws, const unsigned char *a, size_t as, float *y, int64_t ys) { \
    lk__tile_b32_x86(n, w, ws, a, as, y, ys, LK__TR, 1, LK__B32_##K); }
LK__B32_ONE(Q8_0) LK__B32_ONE(Q4_0) LK__B32_ONE(Q5_0) LK__B32_ONE(Q4_1) LK__B32_ONE(Q5_1)
#ifndef LLMKIT_NO_IQ
LK__B32_ONE(IQ4_NL)
#endif
#undef LK__B32_ONE
static void lk__tile44_b32(int64_t n, const unsigned char *w, size_t ws, const unsigned char *a, size_t as, float *y, int64_t ys, int kind) {
    switch (kind) {
    case LK__B32_Q8_0: lk__t44_b32_Q8_0(n, w, ws, a, as, y, ys); break;
    case LK__B32_Q4_0: lk__t44_b32_Q4_0(n, w, ws, a, as, y, ys); break;
    case LK__B32_Q5_0: lk__t44_b32_Q5_0(n, w, ws, a, as, y, ys); break;
#ifndef LLMKIT_NO_IQ
    case LK__B32_IQ4_NL: lk__t44_b32_IQ4_NL(n, w, ws, a, as, y, ys); break;
#endif
    case LK__B32_Q4_1: lk__t44_b32_Q4_1(n, w, ws, a, as, y, ys); break;
    default: lk__t44_b32_Q5_1(n, w, ws, a, as, y, ys); break;
    }
}
static void lk__tile41_b32(int64_t n, const unsigned char *w, size_t ws, const unsigned char *a, size_t as, float *y, int64_t ys, int kind) {
    switch (kind) {
    case LK__B32_Q8_0: lk__t41_b32_Q8_0(n, w, ws, a, as, y, ys); break;
    case LK__B32_Q4_0: lk__t41_b32_Q4_0(n, w, ws, a, as, y, ys); break;
    case LK__B32_Q5_0: lk__t41_b32_Q5_0(n, w, ws, a, as, y, ys); break;
#ifndef LLMKIT_NO_IQ
    case LK__B32_IQ4_NL: lk__t41_b32_IQ4_NL(n, w, ws, a, as, y, ys); break;
#endif
    case LK__B32_Q4_1: lk__t41_b32_Q4_1(n, w, ws, a, as, y, ys); break;
    default: lk__t41_b32_Q5_1(n, w, ws, a, as, y, ys); break;
    }
}
/* q4_K and q5_K . q8_K (kind: lk__q45_kind; q5: the fifth bits from qh)
 * references: lk__vec_dot_q4_K_q8_K_ref and lk__vec_dot_q5_K_q8_K_ref (14.7a) */
LK__AINL void lk__tile_q45_K_x86(int64_t n, const unsigned char *w, size_t ws, const unsigned char *a, size_t as,
                                 float *y, int64_t ys, int R, int C, int kind) {
    const int q5 = kind == LK__Q45_Q5_K;
    int64_t i, nb = n / LK_QK_K;
    const size_t bsz = q5 ? sizeof(lk_block_q5_K) : sizeof(lk_block_q4_K);
    const __m256i m4 = _mm256_set1_epi8(15), one = _mm256_set1_epi8(1);
    __m256 acc[LK__TR][LK__TC];
    float summ[LK__TR][LK__TC];
    int r, c, j;
    LK__UNROLL for (r = 0; r < R; r++) LK__UNROLL for (c = 0; c < C; c++) { acc[r][c] = _mm256_setzero_ps(); summ[r][c] = 0.0f; }
    for (i = 0; i < nb; i++) {
        /* both block types start with d, dmin, scales[12]; q5_K then has qh[32] */
        const unsigned char *xb[LK__TR], *qs[LK__TR];
        const lk_block_q8_K *yb[LK__TC];
        uint8_t sc[LK__TR][8], mn[LK__TR][8];
        __m128i mnv[LK__TR], bsp[LK__TC];
        __m256i scv[LK__TR];          /* the 8 scales as int16, in both 128-bit lanes */
        __m256i hb[LK__TR];
        __m256i ai[LK__TR][LK__TC];
        float dx[LK__TR], dmx[LK__TR];
        if (C == 1) LK__UNROLL for (r = 0; r < R; r++) lk__prefetch_blk(w + (size_t)r * ws + (size_t)i * bsz + LK__PFB, bsz);
        LK__UNROLL for (r = 0; r < R; r++) {
            uint16_t h[2];
            xb[r] = w + (size_t)r * ws + (size_t)i * bsz;
            memcpy(h, xb[r], 4);
            dx[r] = lk__h2f_x(h[0]); dmx[r] = lk__h2f_x(h[1]);
            lk__k4_scales(xb[r] + 4, sc[r], mn[r]);
            mnv[r] = _mm_cvtepu8_epi16(_mm_loadl_epi64((const __m128i *)(const void *)mn[r]));
            scv[r] = _mm256_broadcastsi128_si256(_mm_cvtepu8_epi16(_mm_loadl_epi64((const __m128i *)(const void *)sc[r])));
            hb[r] = q5 ? LK__LD256(xb[r] + 16) : _mm256_setzero_si256();
            qs[r] = xb[r] + (q5 ? 48 : 16);
        }
        LK__UNROLL for (c = 0; c < C; c++) {
            yb[c] = LK__CAST(const lk_block_q8_K *, (const void *)(a + (size_t)c * as)) + i;
            bsp[c] = _mm_hadd_epi16(LK__LD128(yb[c]->bsums), LK__LD128(yb[c]->bsums + 8));   /* sums of 32 */
        }
        LK__UNROLL for (r = 0; r < R; r++)
            LK__UNROLL for (c = 0; c < C; c++) {
                __m128i t = _mm_madd_epi16(mnv[r], bsp[c]);          /* sum_j min_j * bsum32_j */
                t = _mm_add_epi32(t, _mm_shuffle_epi32(t, 0x4e));
                t = _mm_add_epi32(t, _mm_shuffle_epi32(t, 0xb1));
                summ[r][c] -= (dmx[r] * yb[c]->d) * (float)_mm_cvtsi128_si32(t);
                ai[r][c] = _mm256_setzero_si256();
            }
        LK__UNROLL for (j = 0; j < 4; j++) {
            __m256i lo[LK__TR], hi[LK__TR], s0[LK__TR], s1[LK__TR], y0[LK__TC], y1[LK__TC];
            LK__UNROLL for (r = 0; r < R; r++) {
                __m256i q = LK__LD256(qs[r] + 32 * j);
                lo[r] = _mm256_and_si256(q, m4);
                hi[r] = _mm256_and_si256(_mm256_srli_epi16(q, 4), m4);
                if (q5) {   /* 5th bit: qh bit 2j for the low nibbles, 2j+1 for the high */
                    lo[r] = _mm256_or_si256(lo[r], _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(hb[r], 2 * j), one), 4));
                    hi[r] = _mm256_or_si256(hi[r], _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(hb[r], 2 * j + 1), one), 4));
                }
                /* broadcast int16 scale 2j / 2j+1: bytes 4j,4j+1 / 4j+2,4j+3 */
                s0[r] = _mm256_shuffle_epi8(scv[r], _mm256_set1_epi16((short)((4 * j) | ((4 * j + 1) << 8))));
                s1[r] = _mm256_shuffle_epi8(scv[r], _mm256_set1_epi16((short)((4 * j + 2) | ((4 * j + 3) << 8))));
            }
            LK__UNROLL for (c = 0; c < C; c++) { y0[c] = LK__LD256(yb[c]->qs + 64 * j); y1[c] = LK__LD256(yb[c]->qs + 64 * j + 32); }
            LK__UNROLL for (r = 0; r < R; r++)
                LK__UNROLL for (c = 0; c < C; c++) {
                    __m256i p0 = _mm256_madd_epi16(_mm256_maddubs_epi16(lo[r], y0[c]), s0[r]);
                    __m256i p1 = _mm256_madd_epi16(_mm256_maddubs_epi16(hi[r], y1[c]), s1[r]);
                    ai[r][c] = _mm256_add_epi32(ai[r][c], _mm256_add_epi32(p0, p1));
                }
        }
        LK__UNROLL for (r = 0; r < R; r++)
            LK__UNROLL for (c = 0; c < C; c++)
                acc[r][c] = _mm256_fmadd_ps(_mm256_set1_ps(dx[r] * yb[c]->d), _mm256_cvtepi32_ps(ai[r][c]), acc[r][c]);
    }
    LK__UNROLL for (r = 0; r < R; r++) LK__UNROLL for (c = 0; c < C; c++) y[c * ys + r] = summ[r][c] + lk__hsum8_x(acc[r][c]);
}
/* q6_K . q8_K */
/* reference: lk__vec_dot_q6_K_q8_K_ref (14.7a) */
LK__AINL void lk__tile_q6_K_x86(int64_t n, const unsigned char *w, size_t ws, const unsigned char *a, size_t as,
                                float *y, int64_t ys, int R, int C) {
    int64_t i, nb = n / LK_QK_K;
    const __m256i m4 = _mm256_set1_epi8(15), m3 = _mm256_set1_epi8(3);
    __m256 acc[LK__TR][LK__TC];
    int r, c, h;
    LK__UNROLL for (r = 0; r < R; r++) for (c = 0; c < C; c++) acc[r][c] = _mm256_setzero_ps();
    for (i = 0; i < nb; i++) {
        const lk_block_q6_K *xb[LK__TR];
        const lk_block_q8_K *yb[LK__TC];
        __m256i ai[LK__TR][LK__TC];
        LK__UNROLL for (r = 0; r < R; r++) xb[r] = LK__CAST(const lk_block_q6_K *, (const void *)(w + (size_t)r * ws)) + i;
        LK__UNROLL for (c = 0; c < C; c++) yb[c] = LK__CAST(const lk_block_q8_K *, (const void *)(a + (size_t)c * as)) + i;
        if (C == 1) LK__UNROLL for (r = 0; r < R; r++) lk__prefetch_blk((const unsigned char *)xb[r] + LK__PFB, sizeof(lk_block_q6_K));
        LK__UNROLL for (r = 0; r < R; r++) for (c = 0; c < C; c++) ai[r][c] = _mm256_setzero_si256();
        for (h = 0; h < 2; h++) {
            __m256i scv[LK__TR];      /* scales 8h..8h+7 as int16, in both 128-bit lanes */
            int k;
            LK__UNROLL for (r = 0; r < R; r++)
                scv[r] = _mm256_broadcastsi128_si256(_mm_cvtepi8_epi16(_mm_loadl_epi64((const __m128i *)(const void *)(xb[r]->scales + 8 * h))));
            LK__UNROLL for (k = 0; k < 4; k++) {     /* 32 elements 128h + 32k .. +31 */
                __m256i u[LK__TR], sv[LK__TR], yv[LK__TC], y32[LK__TC];
                LK__UNROLL for (r = 0; r < R; r++) {
                    const uint8_t *ql = xb[r]->ql + 64 * h + 32 * (k & 1), *qh = xb[r]->qh + 32 * h;
                    __m256i l = LK__LD256(ql), hh = LK__LD256(qh);
                    if (k >= 2) l = _mm256_srli_epi16(l, 4);
                    u[r] = _mm256_or_si256(_mm256_and_si256(l, m4), _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(hh, 2 * k), m3), 4));
                    /* low 128 bits: scale 2k, high: scale 2k+1 (int16 bytes 4k.. / 4k+2..) */
                    sv[r] = _mm256_shuffle_epi8(scv[r], _mm256_set_m128i(_mm_set1_epi16((short)((4 * k + 2) | ((4 * k + 3) << 8))),
                                                                          _mm_set1_epi16((short)((4 * k) | ((4 * k + 1) << 8)))));
                }
                LK__UNROLL for (c = 0; c < C; c++) {
                    yv[c] = LK__LD256(yb[c]->qs + 128 * h + 32 * k);
                    y32[c] = _mm256_maddubs_epi16(_mm256_set1_epi8(32), yv[c]);
                }
                LK__UNROLL for (r = 0; r < R; r++)   /* pairs of (u - 32) * y in int16, as ggml */
                    LK__UNROLL for (c = 0; c < C; c++)
                        ai[r][c] = _mm256_add_epi32(ai[r][c], _mm256_madd_epi16(_mm256_sub_epi16(_mm256_maddubs_epi16(u[r], yv[c]), y32[c]), sv[r]));
            }
        }
        LK__UNROLL for (r = 0; r < R; r++)
            LK__UNROLL for (c = 0; c < C; c++) {
                acc[r][c] = _mm256_fmadd_ps(_mm256_set1_ps(lk__h2f_x(xb[r]->d) * yb[c]->d), _mm256_cvtepi32_ps(ai[r][c]), acc[r][c]);
            }
    }
    LK__UNROLL for (r = 0; r < R; r++) for (c = 0; c < C; c++) y[c * ys + r] = lk__hsum8_x(acc[r][c]);
}
/* reference: lk__vec_dot_q8_0_q8_0_ref (14.7a) */
static void lk__vd_q8_0_t(int64_t n, float *s, const void *x, const void *y) {
    lk__tile_b32_x86(n, LK__CAST(const unsigned char *, x), 0, LK__CAST(const unsigned char *, y), 0, s, 0, 1, 1, LK__B32_Q8_0);
}
/* reference: lk__vec_dot_q4_0_q8_0_ref (14.7a) */
static void lk__vd_q4_0_t(int64_t n, float *s, const void *x, const void *y) {
    lk__tile_b32_x86(n, LK__CAST(const unsigned char *, x), 0, LK__CAST(const unsigned char *, y), 0, s, 0, 1, 1, LK__B32_Q4_0);
}
/* reference: lk__vec_dot_q5_0_q8_0_ref (14.7a) */
static void lk__vd_q5_0_t(int64_t n, float *s, const void *x, const void *y) {
    lk__tile_b32_x86(n, LK__CAST(const unsigned char *, x), 0, LK__CAST(const unsigned char *, y), 0, s, 0, 1, 1, LK__B32_Q5_0);
}
#ifndef LLMKIT_NO_IQ
/* reference: lk__iq4_nl_vec_dot_ref (14.7b) */
static void lk__vd_iq4_nl_t(int64_t n, float *s, const void *x, const void *y) {
    lk__tile_b32_x86(n, LK__CAST(const unsigned char *, x), 0, LK__CAST(const unsigned char *, y), 0, s, 0, 1, 1, LK__B32_IQ4_NL);
}
#endif
/* reference: lk__vec_dot_q4_1_q8_1_ref (14.7a) */
static void lk__vd_q4_1_t(int64_t n, float *s, const void *x, const void *y) {
    lk__tile_b32_x86(n, LK__CAST(const unsigned char *, x), 0, LK__CAST(const unsigned char *, y), 0, s, 0, 1, 1, LK__B32_Q4_1);
}
/* reference: lk__vec_dot_q5_1_q8_1_ref (14.7a) */
static void lk__vd_q5_1_t(int64_t n, float *s, const void *x, const void *y) {
    lk__tile_b32_x86(n, LK__CAST(const unsigned char *, x), 0, LK__CAST(const unsigned char *, y), 0, s, 0, 1, 1, LK__B32_Q5_1);
}
/* reference: lk__vec_dot_q4_K_q8_K_ref (14.7a) */
static void lk__vd_q4_K_t(int64_t n, float *s, const void *x, const void *y) {
    lk__tile_q45_K_x86(n, LK__CAST(const unsigned char *, x), 0, LK__CAST(const unsigned char *, y), 0, s, 0, 1, 1, LK__Q45_Q4_K);
}
/* reference: lk__vec_dot_q5_K_q8_K_ref (14.7a) */
static void lk__vd_q5_K_t(int64_t n, float *s, const void *x, const void *y) {
    lk__tile_q45_K_x86(n, LK__CAST(const unsigned char *, x), 0, LK__CAST(const unsigned char *, y), 0, s, 0, 1, 1, LK__Q45_Q5_K);
}
/* reference: lk__vec_dot_q6_K_q8_K_ref (14.7a) */
static void lk__vd_q6_K_t(int64_t n, float *s, const void *x, const void *y) {
    lk__tile_q6_K_x86(n, LK__CAST(const unsigned char *, x), 0, LK__CAST(const unsigned char *, y), 0, s, 0, 1, 1);
}
/* the entries of the q4_K / q5_K family (kind: lk__q45_kind) and of q6_K */
static void lk__tile44_q45_K(int64_t n, const unsigned char *w, size_t ws, const unsigned char *a, size_t as, float *y, int64_t ys, int kind) {
    if (kind == LK__Q45_Q5_K) lk__tile_q45_K_x86(n, w, ws, a, as, y, ys, LK__TR, LK__TC, LK__Q45_Q5_K);
    else lk__tile_q45_K_x86(n, w, ws, a, as, y, ys, LK__TR, LK__TC, LK__Q45_Q4_K);
}
static void lk__tile41_q45_K(int64_t n, const unsigned char *w, size_t ws, const unsigned char *a, size_t as, float *y, int64_t ys, int kind) {
    if (kind == LK__Q45_Q5_K) lk__tile_q45_K_x86(n, w, ws, a, as, y, ys, LK__TR, 1, LK__Q45_Q5_K);
    else lk__tile_q45_K_x86(n, w, ws, a, as, y, ys, LK__TR, 1, LK__Q45_Q4_K);
}
static void lk__tile44_q6_K(int64_t n, const unsigned char *w, size_t ws, const unsigned char *a, size_t as, float *y, int64_t ys, int kind) {
    (void)kind;
    lk__tile_q6_K_x86(n, w, ws, a, as, y, ys, LK__TR, LK__TC);
}
static void lk__tile41_q6_K(int64_t n, const unsigned char *w, size_t ws, const unsigned char *a, size_t as, float *y, int64_t ys, int kind) {
    (void)kind;
    lk__tile_q6_K_x86(n, w, ws, a, as, y, ys, LK__TR, 1);
}
/* q3_K . q8_K: u = low 2 bits + 4 * high bit, value u - 4; int16 pairs of
 * (u - 4) * y as ggml forms them, times the signed 6-bit scales */
/* reference: lk__vec_dot_q3_K_q8_K_ref (14.7a) */
LK__AINL void lk__tile_q3_K_x86(int64_t n, const unsigned char *w, size_t ws, const unsigned char *a, size_t as,
                                float *y, int64_t ys, int R, int C) {
    int64_t i, nb = n / LK_QK_K;
    const __m256i m3 = _mm256_set1_epi8(3), one = _mm256_set1_epi8(1);
    __m256 acc[LK__TR][LK__TC];
    int r, c, k;
    LK__UNROLL for (r = 0; r < R; r++) LK__UNROLL for (c = 0; c < C; c++) acc[r][c] = _mm256_setzero_ps();
    for (i = 0; i < nb; i++) {
        const lk_block_q3_K *xb[LK__TR];
        const lk_block_q8_K *yb[LK__TC];
        __m256i ai[LK__TR][LK__TC], hm[LK__TR], scv[LK__TR][2];
        LK__UNROLL for (r = 0; r < R; r++) {
            /* the 16 6-bit scales (lk__q3k_scale) with 32-bit operations: byte j of
             * u[j/4] = low nibble (bytes 0-7, high nibbles for j >= 8) | 2 bits of bytes 8-11 */
            uint32_t a[3], u[4];
            __m128i sv16;
            xb[r] = LK__CAST(const lk_block_q3_K *, (const void *)(w + (size_t)r * ws)) + i;
            memcpy(a, xb[r]->scales, 12);
            u[0] = (a[0] & 0x0f0f0f0fu) | ((a[2] & 0x03030303u) << 4);
            u[1] = (a[1] & 0x0f0f0f0fu) | (((a[2] >> 2) & 0x03030303u) << 4);
            u[2] = ((a[0] >> 4) & 0x0f0f0f0fu) | (((a[2] >> 4) & 0x03030303u) << 4);
            u[3] = ((a[1] >> 4) & 0x0f0f0f0fu) | (((a[2] >> 6) & 0x03030303u) << 4);
            sv16 = _mm_sub_epi8(LK__LD128(u), _mm_set1_epi8(32));
            scv[r][0] = _mm256_broadcastsi128_si256(_mm_cvtepi8_epi16(sv16));                    /* scales 0-7  */
            scv[r][1] = _mm256_broadcastsi128_si256(_mm_cvtepi8_epi16(_mm_srli_si128(sv16, 8))); /* scales 8-15 */
            hm[r] = LK__LD256(xb[r]->hmask);
        }
        LK__UNROLL for (c = 0; c < C; c++) yb[c] = LK__CAST(const lk_block_q8_K *, (const void *)(a + (size_t)c * as)) + i;
        LK__UNROLL for (r = 0; r < R; r++) LK__UNROLL for (c = 0; c < C; c++) ai[r][c] = _mm256_setzero_si256();
        LK__UNROLL for (k = 0; k < 8; k++) {       /* elements 32k .. 32k+31 */
            __m256i u[LK__TR], sv[LK__TR], yv[LK__TC], y4[LK__TC];
            LK__UNROLL for (r = 0; r < R; r++) {
                __m256i lo = _mm256_and_si256(_mm256_srli_epi16(LK__LD256(xb[r]->qs + 32 * (k / 4)), 2 * (k % 4)), m3);
                __m256i hi = _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(hm[r], k), one), 2);
                u[r] = _mm256_or_si256(lo, hi);
                /* low 128 bits: scale 2k, high: 2k+1 (int16 bytes of scv[k/4]) */
                sv[r] = _mm256_shuffle_epi8(scv[r][k / 4], _mm256_set_m128i(_mm_set1_epi16((short)((4 * (k % 4) + 2) | ((4 * (k % 4) + 3) << 8))),
                                                                            _mm_set1_epi16((short)((4 * (k % 4)) | ((4 * (k % 4) + 1) << 8)))));
            }
            LK__UNROLL for (c = 0; c < C; c++) {
                yv[c] = LK__LD256(yb[c]->qs + 32 * k);
                y4[c] = _mm256_maddubs_epi16(_mm256_set1_epi8(4), yv[c]);
            }
            LK__UNROLL for (r = 0; r < R; r++) LK__UNROLL for (c = 0; c < C; c++)
                ai[r][c] = _mm256_add_epi32(ai[r][c], _mm256_madd_epi16(_mm256_sub_epi16(_mm256_maddubs_epi16(u[r], yv[c]), y4[c]), sv[r]));
        }
        LK__UNROLL for (r = 0; r < R; r++) LK__UNROLL for (c = 0; c < C; c++)
            acc[r][c] = _mm256_fmadd_ps(_mm256_set1_ps(lk__h2f_x(xb[r]->d) * yb[c]->d), _mm256_cvtepi32_ps(ai[r][c]), acc[r][c]);
    }
    LK__UNROLL for (r = 0; r < R; r++) LK__UNROLL for (c = 0; c < C; c++) y[c * ys + r] = lk__hsum8_x(acc[r][c]);
}
/* q2_K . q8_K: unsigned 2-bit quants times 4-bit scales; mins apart */
/* reference: lk__vec_dot_q2_K_q8_K_ref (14.7a) */
LK__AINL void lk__tile_q2_K_x86(int64_t n, const unsigned char *w, size_t ws, const unsigned char *a, size_t as,
                                float *y, int64_t ys, int R, int C) {
    int64_t i, nb = n / LK_QK_K;
    const __m256i m3 = _mm256_set1_epi8(3);
    __m256 acc[LK__TR][LK__TC];
    float summ[LK__TR][LK__TC];
    int r, c, k;
    LK__UNROLL for (r = 0; r < R; r++) LK__UNROLL for (c = 0; c < C; c++) { acc[r][c] = _mm256_setzero_ps(); summ[r][c] = 0.0f; }
    for (i = 0; i < nb; i++) {
        const lk_block_q2_K *xb[LK__TR];
        const lk_block_q8_K *yb[LK__TC];
        __m256i ai[LK__TR][LK__TC], mins[LK__TR];
        LK__UNROLL for (r = 0; r < R; r++) {
            xb[r] = LK__CAST(const lk_block_q2_K *, (const void *)(w + (size_t)r * ws)) + i;
            mins[r] = _mm256_cvtepu8_epi16(_mm_and_si128(_mm_srli_epi16(LK__LD128(xb[r]->scales), 4), _mm_set1_epi8(15)));
        }
        LK__UNROLL for (c = 0; c < C; c++) yb[c] = LK__CAST(const lk_block_q8_K *, (const void *)(a + (size_t)c * as)) + i;
        LK__UNROLL for (r = 0; r < R; r++)
            LK__UNROLL for (c = 0; c < C; c++) {
                int32_t sm = lk__hsum8i_x(_mm256_madd_epi16(mins[r], LK__LD256(yb[c]->bsums)));
                summ[r][c] -= (yb[c]->d * lk__h2f_x(xb[r]->dmin)) * (float)sm;
                ai[r][c] = _mm256_setzero_si256();
            }
        LK__UNROLL for (k = 0; k < 8; k++) {      /* 32 elements: bytes 32(k/4).., bits 2(k%4), scales 2k, 2k+1 */
            __m256i u[LK__TR], sv[LK__TR], yv[LK__TC];
            LK__UNROLL for (r = 0; r < R; r++) {
                u[r] = _mm256_and_si256(_mm256_srli_epi16(LK__LD256(xb[r]->qs + 32 * (k / 4)), 2 * (k % 4)), m3);
                sv[r] = lk__sc2_x(xb[r]->scales[2 * k] & 15, xb[r]->scales[2 * k + 1] & 15);
            }
            LK__UNROLL for (c = 0; c < C; c++) yv[c] = LK__LD256(yb[c]->qs + 32 * k);
            LK__UNROLL for (r = 0; r < R; r++) LK__UNROLL for (c = 0; c < C; c++)
                ai[r][c] = _mm256_add_epi32(ai[r][c], _mm256_madd_epi16(_mm256_maddubs_epi16(u[r], yv[c]), sv[r]));
        }
        LK__UNROLL for (r = 0; r < R; r++) LK__UNROLL for (c = 0; c < C; c++)
            acc[r][c] = _mm256_fmadd_ps(_mm256_set1_ps(yb[c]->d * lk__h2f_x(xb[r]->d)), _mm256_cvtepi32_ps(ai[r][c]), acc[r][c]);
    }
    LK__UNROLL for (r = 0; r < R; r++) LK__UNROLL for (c = 0; c < C; c++) y[c * ys + r] = summ[r][c] + lk__hsum8_x(acc[r][c]);
}
/* reference: lk__vec_dot_q3_K_q8_K_ref (14.7a) */
static void lk__vd_q3_K_t(int64_t n, float *s, const void *x, const void *y) {
    lk__tile_q3_K_x86(n, LK__CAST(const unsigned char *, x), 0, LK__CAST(const unsigned char *, y), 0, s, 0, 1, 1);
}
/* reference: lk__vec_dot_q2_K_q8_K_ref (14.7a) */
static void lk__vd_q2_K_t(int64_t n, float *s, const void *x, const void *y) {
    lk__tile_q2_K_x86(n, LK__CAST(const unsigned char *, x), 0, LK__CAST(const unsigned char *, y), 0, s, 0, 1, 1);
}
/* AVX2's 16 registers: q3_K / q2_K as two 2 x 4 tiles (one 4 x 4 tile spills registers to the stack and is slower) */
#if defined(LK__X86_512)
#define LK__T44_RP(fn) fn(n, w, ws, a, as, y, ys, LK__TR, LK__TC)
#else
#define LK__T44_RP(fn) do { fn(n, w, ws, a, as, y, ys, 2, LK__TC); fn(n, w + 2 * ws, ws, a, as, y + 2, ys, 2, LK__TC); } while (0)
#endif
/* the entries of q3_K and q2_K (one kind each) */
static void lk__tile44_q3_K(int64_t n, const unsigned char *w, size_t ws, const unsigned char *a, size_t as, float *y, int64_t ys, int kind) { (void)kind; LK__T44_RP(lk__tile_q3_K_x86); }
static void lk__tile41_q3_K(int64_t n, const unsigned char *w, size_t ws, const unsigned char *a, size_t as, float *y, int64_t ys, int kind) { (void)kind; lk__tile_q3_K_x86(n, w, ws, a, as, y, ys, LK__TR, 1); }
static void lk__tile44_q2_K(int64_t n, const unsigned char *w, size_t ws, const unsigned char *a, size_t as, float *y, int64_t ys, int kind) { (void)kind; LK__T44_RP(lk__tile_q2_K_x86); }
static void lk__tile41_q2_K(int64_t n, const unsigned char *w, size_t ws, const unsigned char *a, size_t as, float *y, int64_t ys, int kind) { (void)kind; lk__tile_q2_K_x86(n, w, ws, a, as, y, ys, LK__TR, 1); }
#undef LK__T44_RP
#ifndef LLMKIT_NO_IQ
/* iq4_xs . q8_K: levels by table lookup, int16 pairs by the sign trick,
 * times the 6-bit sub-block scale minus 32 */
/* reference: lk__iq4_xs_vec_dot_ref (14.7b) */
LK__AINL void lk__tile_iq4_xs_x86(int64_t n, const unsigned char *w, size_t ws, const unsigned char *a, size_t as,
                                  float *y, int64_t ys, int R, int C) {
    const __m256i tab = _mm256_broadcastsi128_si256(LK__LD128(lk__iq4nl_values));
    int64_t i, nb = n / 256;
    __m256 acc[LK__TR][LK__TC];
    int r, c, ib;
    LK__UNROLL for (r = 0; r < R; r++) LK__UNROLL for (c = 0; c < C; c++) acc[r][c] = _mm256_setzero_ps();
    for (i = 0; i < nb; i++) {
        const unsigned char *xb[LK__TR], *yb[LK__TC];
        __m256i ai[LK__TR][LK__TC];
        float dx[LK__TR], dy[LK__TC];
        unsigned sh[LK__TR];
        LK__UNROLL for (r = 0; r < R; r++) {
            uint16_t h[2];
            xb[r] = w + (size_t)r * ws + (size_t)i * 136;
            memcpy(h, xb[r], 4);
            dx[r] = lk__h2f_x(h[0]); sh[r] = h[1];
        }
        LK__UNROLL for (c = 0; c < C; c++) { yb[c] = a + (size_t)c * as + (size_t)i * 292; memcpy(&dy[c], yb[c], 4); }
        LK__UNROLL for (r = 0; r < R; r++) LK__UNROLL for (c = 0; c < C; c++) ai[r][c] = _mm256_setzero_si256();
        for (ib = 0; ib < 8; ib++) {
            __m256i q[LK__TR], aq[LK__TR], sv[LK__TR], yv[LK__TC];
            LK__UNROLL for (r = 0; r < R; r++) {
                int ls = (int)(((xb[r][4 + ib / 2] >> 4 * (ib % 2)) & 0xf) | (((sh[r] >> 2 * ib) & 3) << 4)) - 32;
                q[r] = _mm256_shuffle_epi8(tab, lk__nib32_x(xb[r] + 8 + 16 * ib));
                aq[r] = _mm256_sign_epi8(q[r], q[r]);
                sv[r] = _mm256_set1_epi16((short)ls);
            }
            LK__UNROLL for (c = 0; c < C; c++) yv[c] = LK__LD256(yb[c] + 4 + 32 * ib);
            LK__UNROLL for (r = 0; r < R; r++) LK__UNROLL for (c = 0; c < C; c++)
                ai[r][c] = _mm256_add_epi32(ai[r][c], _mm256_madd_epi16(_mm256_maddubs_epi16(aq[r], _mm256_sign_epi8(yv[c], q[r])), sv[r]));
        }
        LK__UNROLL for (r = 0; r < R; r++) LK__UNROLL for (c = 0; c < C; c++)
            acc[r][c] = _mm256_fmadd_ps(_mm256_set1_ps(dx[r] * dy[c]), _mm256_cvtepi32_ps(ai[r][c]), acc[r][c]);
    }
    LK__UNROLL for (r = 0; r < R; r++) LK__UNROLL for (c = 0; c < C; c++) y[c * ys + r] = lk__hsum8_x(acc[r][c]);
}
#endif
#ifndef LLMKIT_NO_IQ
/* reference: lk__iq4_xs_vec_dot_ref (14.7b) */
static void lk__vd_iq4_xs_t(int64_t n, float *s, const void *x, const void *y) {
    lk__tile_iq4_xs_x86(n, LK__CAST(const unsigned char *, x), 0, LK__CAST(const unsigned char *, y), 0, s, 0, 1, 1);
}
#endif
#ifndef LLMKIT_NO_IQ   /* the entries of iq4_xs (one kind) */
static void lk__tile44_iq4_xs(int64_t n, const unsigned char *w, size_t ws, const unsigned char *a, size_t as, float *y, int64_t ys, int kind) { (void)kind; lk__tile_iq4_xs_x86(n, w, ws, a, as, y, ys, LK__TR, LK__TC); }
static void lk__tile41_iq4_xs(int64_t n, const unsigned char *w, size_t ws, const unsigned char *a, size_t as, float *y, int64_t ys, int kind) { (void)kind; lk__tile_iq4_xs_x86(n, w, ws, a, as, y, ys, LK__TR, 1); }
#endif
#if defined(LK__X86_512)
/* f32 / f16 / bf16 with one 16-lane zmm accumulator per pair: the same lanes
 * as the 2 x 8-lane AVX2 kernels (lane j takes elements 16k + j; bf16: the
 * dot instruction's lanes), reduced 8+8 then as lk__hsum8 */
static float lk__red16_z(__m512 v) {   /* lanes j + (8 + j), then lk__hsum8's order, in registers */
    return lk__hsum8_x(_mm256_add_ps(_mm512_extractf32x8_ps(v, 1), _mm512_castps512_ps256(v)));
}
LK__AINL __m512 lk__ld16_z(const unsigned char *p, int kind) {   /* LK__FLT_F32 or LK__FLT_F16 */
    return kind ? _mm512_maskz_cvtph_ps((__mmask16)0xFFFF, LK__LD256(p)) : _mm512_loadu_ps((const float *)(const void *)p);
}
/* kind: lk__flt_kind. References: lk__vec_dot_f32_ref, lk__vec_dot_f16_ref,
 * lk__vec_dot_bf16_ref (14.7a). f32 / f16 weight row r's elements 16k..16k+15 at w + r ws + k wb (wb: in
 * rows the bytes of 16 elements, 64 f32 or 32 f16; 128 in the f16
 * LK_LAYOUT_R8 halves, whose n % 16 == 0) */
LK__AINL void lk__tile_flt_xb(int64_t n, const unsigned char *w, size_t ws, size_t wb, const unsigned char *a, size_t as,
                              float *y, int64_t ys, int R, int C, int kind) {
    const int es = kind == LK__FLT_F32 ? 4 : 2;
    __m512 acc[LK__TR][LK__TC];
    int64_t i = 0;
    int r, c;
    if (kind == LK__FLT_BF16 && n % 32) {        /* bf16 rows of other lengths: the reference */
        for (r = 0; r < R; r++) for (c = 0; c < C; c++) lk__vec_dot_bf16_ref(n, &y[c * ys + r], w + (size_t)r * ws, a + (size_t)c * as);
        return;
    }
    if (kind != LK__FLT_BF16 && n % 16) {        /* ggml's vec_dot order (lk__vdot_flt_ref; kind 1: f16) */
        for (r = 0; r < R; r++) for (c = 0; c < C; c++) y[c * ys + r] = lk__vdot_flt_x86(n, w + (size_t)r * ws, kind, a + (size_t)c * as, kind, kind);
        return;
    }
    LK__UNROLL for (r = 0; r < R; r++) LK__UNROLL for (c = 0; c < C; c++) acc[r][c] = _mm512_setzero_ps();
    if (kind == LK__FLT_BF16) {
#if defined(LK__X86_BF16)
        for (; i < n; i += 32) {
            __m512i xv[LK__TR], yv[LK__TC];
            LK__UNROLL for (r = 0; r < R; r++) xv[r] = _mm512_loadu_si512((const void *)(w + (size_t)r * ws + 2 * i));
            LK__UNROLL for (c = 0; c < C; c++) yv[c] = _mm512_loadu_si512((const void *)(a + (size_t)c * as + 2 * i));
            LK__UNROLL for (r = 0; r < R; r++) LK__UNROLL for (c = 0; c < C; c++)
                acc[r][c] = _mm512_dpbf16_ps(acc[r][c], (__m512bh)xv[r], (__m512bh)yv[c]);
        }
#endif
        LK__UNROLL for (r = 0; r < R; r++) LK__UNROLL for (c = 0; c < C; c++) y[c * ys + r] = lk__red16_z(acc[r][c]);
        return;
    }
    for (; i + 16 <= n; i += 16) {
        __m512 xv[LK__TR], yv[LK__TC];
        LK__UNROLL for (r = 0; r < R; r++) xv[r] = lk__ld16_z(w + (size_t)r * ws + (size_t)(i / 16) * wb, kind);
        LK__UNROLL for (c = 0; c < C; c++) yv[c] = lk__ld16_z(a + (size_t)c * as + (size_t)(es * i), kind);
        LK__UNROLL for (r = 0; r < R; r++) LK__UNROLL for (c = 0; c < C; c++) acc[r][c] = _mm512_fmadd_ps(xv[r], yv[c], acc[r][c]);
    }
    LK__UNROLL for (r = 0; r < R; r++) LK__UNROLL for (c = 0; c < C; c++) y[c * ys + r] = lk__red16_z(acc[r][c]);
}
LK__AINL void lk__tile_flt_x86(int64_t n, const unsigned char *w, size_t ws, const unsigned char *a, size_t as,
                               float *y, int64_t ys, int R, int C, int kind) {
    lk__tile_flt_xb(n, w, ws, (size_t)(kind == LK__FLT_F32 ? 64 : 32), a, as, y, ys, R, C, kind);
}
static void lk__vd_f32_t(int64_t n, float *s, const void *x, const void *y) {
    lk__tile_flt_x86(n, LK__CAST(const unsigned char *, x), 0, LK__CAST(const unsigned char *, y), 0, s, 0, 1, 1, LK__FLT_F32);
}
static void lk__vd_f16_t(int64_t n, float *s, const void *x, const void *y) {
    lk__tile_flt_x86(n, LK__CAST(const unsigned char *, x), 0, LK__CAST(const unsigned char *, y), 0, s, 0, 1, 1, LK__FLT_F16);
}
/* f16 LK_LAYOUT_R8 (14.7r; reference lk__r8_f16_ref): the group's 8 rows x
 * C <= LK__R8_NC columns. Per half (4 rows; 32 bytes between rows, 128
 * between a row's blocks of 16), 1 column reads its blocks in one sequential
 * stream with 8 fma chains in flight (lk__tile_flt4x1_xb): one row at a time
 * is bound by the latency of its chain of dependent fma, and 4 rows of a
 * plain matrix are 4 streams, slower than one. More columns: 4 x 4 zmm
 * tiles (lk__tile_flt_xb). */
static void lk__r8_f16_x86(int64_t n, const unsigned char *g, const unsigned char *a, size_t as, const int32_t *ysum, int64_t nbk,
                           float *y, int64_t ys, int C) {
    int hf, c;
    (void)ysum; (void)nbk;
    for (hf = 0; hf < 2; hf++) {
        const unsigned char *h = g + (size_t)hf * 8 * (size_t)n;
        if (C == 1) { lk__tile_flt4x1_xb(n, h, 32, 128, a, y + 4 * hf, 1); continue; }
        for (c = 0; c < C; c += 4) {
            const unsigned char *ac = a + (size_t)c * as;
            float *yc = y + c * ys + 4 * hf;
            switch (C - c) {
            case 1: lk__tile_flt_xb(n, h, 32, 128, ac, as, yc, ys, 4, 1, LK__FLT_F16); break;
            case 2: lk__tile_flt_xb(n, h, 32, 128, ac, as, yc, ys, 4, 2, LK__FLT_F16); break;
            case 3: lk__tile_flt_xb(n, h, 32, 128, ac, as, yc, ys, 4, 3, LK__FLT_F16); break;
            default: lk__tile_flt_xb(n, h, 32, 128, ac, as, yc, ys, 4, 4, LK__FLT_F16); break;
            }
        }
    }
}
#endif /* LK__X86_512 */
/* the float family's entries (kind: lk__flt_kind): AVX-512 (lk__tile_flt_x86)
 * or AVX2 (lk__tile_flt_avx2, lk__tile_bf16_avx2) */
LK__AINL void lk__tile_flt_k(int64_t n, const unsigned char *w, size_t ws, const unsigned char *a, size_t as, float *y, int64_t ys,
                             int R, int C, int kind) {
    switch (kind) {
#if defined(LK__X86_512)
    case LK__FLT_F32:   /* decode: four rows at once in ymm halves with one joint reduction (the zmm tile's lanes and order) */
        if (R == 4 && C == 1 && n % 16 == 0) lk__tile_flt4x1_avx2(n, w, ws, a, y, 0);
        else lk__tile_flt_x86(n, w, ws, a, as, y, ys, R, C, LK__FLT_F32);
        break;
    case LK__FLT_F16:
        if (R == 4 && C == 1 && n % 16 == 0) lk__tile_flt4x1_avx2(n, w, ws, a, y, 1);
        else lk__tile_flt_x86(n, w, ws, a, as, y, ys, R, C, LK__FLT_F16);
        break;
#else
    case LK__FLT_F32: lk__tile_flt_avx2(n, w, ws, a, as, y, ys, R, C, 0); break;
    case LK__FLT_F16: lk__tile_flt_avx2(n, w, ws, a, as, y, ys, R, C, 1); break;
#endif
#if defined(LK__X86_BF16)
    default: lk__tile_flt_x86(n, w, ws, a, as, y, ys, R, C, LK__FLT_BF16); break;
#else
    default: lk__tile_bf16_avx2(n, w, ws, a, as, y, ys, R, C); break;
#endif
    }
}
static void lk__tile44_flt(int64_t n, const unsigned char *w, size_t ws, const unsigned char *a, size_t as, float *y, int64_t ys, int kind) { lk__tile_flt_k(n, w, ws, a, as, y, ys, LK__TR, LK__TC, kind); }
static void lk__tile41_flt(int64_t n, const unsigned char *w, size_t ws, const unsigned char *a, size_t as, float *y, int64_t ys, int kind) { lk__tile_flt_k(n, w, ws, a, as, y, ys, LK__TR, 1, kind); }
/* bf16 rows of a multiple of 32: the AVX512-BF16 instruction, else the
 * AVX2 kernel as a 1 x 1 tile; other lengths: the reference (its only
 * order; reference: lk__vec_dot_bf16_ref, 14.7a) */
static void lk__vd_bf16_x86(int64_t n, float *s, const void *x, const void *y) {
#if defined(LK__X86_BF16)
    if (n % 32 == 0) { lk__vd_bf16_512(n, s, x, y); return; }
#else
    if (n % 32 == 0) { lk__tile_bf16_avx2(n, LK__CAST(const unsigned char *, x), 0, LK__CAST(const unsigned char *, y), 0, s, 0, 1, 1); return; }
#endif
    lk__vec_dot_bf16_ref(n, s, x, y);
}
#endif /* LK__X86 */

#if defined(LK__ARM)
static float lk__h2f_a(uint16_t h) { return lk_fp16_to_fp32(h); }
/* 8 lanes held as lo (0-3), hi (4-7), summed in lk__hsum8's order */
static float lk__hsum8_a(float32x4_t lo, float32x4_t hi) {
    float32x4_t t = vaddq_f32(hi, lo);                               /* l4+l0 .. l7+l3 */
    float32x2_t u = vadd_f32(vget_low_f32(t), vget_high_f32(t));     /* t0+t2, t1+t3 */
    return vget_lane_f32(u, 0) + vget_lane_f32(u, 1);
}
/* int32 lane k += sum of the 4 products 4k..4k+3 */
static int32x4_t lk__dp4_a(int32x4_t acc, int8x16_t a, int8x16_t b) {
#if defined(LK__ARM_DOT)
    return vdotq_s32(acc, a, b);
#else
    int16x8_t p0 = vmull_s8(vget_low_s8(a), vget_low_s8(b)), p1 = vmull_s8(vget_high_s8(a), vget_high_s8(b));
    return vaddq_s32(acc, vpaddq_s32(vpaddlq_s16(p0), vpaddlq_s16(p1)));
#endif
}
/* reference: lk__vec_dot_q8_0_q8_0_ref (14.7a) */
static void lk__vd_q8_0_arm(int64_t n, float *s, const void *vx, const void *vy) {
    const lk_block_q8_0 *x = LK__CAST(const lk_block_q8_0 *, vx), *y = LK__CAST(const lk_block_q8_0 *, vy);
    int64_t i, nb = n / LK_QK8_0;
    float32x4_t lo = vdupq_n_f32(0.0f), hi = vdupq_n_f32(0.0f);
    for (i = 0; i < nb; i++) {
        int32x4_t p0 = lk__dp4_a(vdupq_n_s32(0), vld1q_s8(x[i].qs), vld1q_s8(y[i].qs));
        int32x4_t p1 = lk__dp4_a(vdupq_n_s32(0), vld1q_s8(x[i].qs + 16), vld1q_s8(y[i].qs + 16));
        float32x4_t d = vdupq_n_f32(lk__h2f_a(x[i].d) * lk__h2f_a(y[i].d));
        lo = vfmaq_f32(lo, d, vcvtq_f32_s32(p0));
        hi = vfmaq_f32(hi, d, vcvtq_f32_s32(p1));
    }
    *s = lk__hsum8_a(lo, hi);
}
/* reference: lk__vec_dot_q4_0_q8_0_ref (14.7a) */
static void lk__vd_q4_0_arm(int64_t n, float *s, const void *vx, const void *vy) {
    const lk_block_q4_0 *x = LK__CAST(const lk_block_q4_0 *, vx);
    const lk_block_q8_0 *y = LK__CAST(const lk_block_q8_0 *, vy);
    int64_t i, nb = n / LK_QK4_0;
    const uint8x16_t m4 = vdupq_n_u8(15);
    const int8x16_t s8 = vdupq_n_s8(8);
    float32x4_t lo = vdupq_n_f32(0.0f), hi = vdupq_n_f32(0.0f);
    for (i = 0; i < nb; i++) {
        uint8x16_t q = vld1q_u8(x[i].qs);
        int8x16_t a0 = vsubq_s8(vreinterpretq_s8_u8(vandq_u8(q, m4)), s8);
        int8x16_t a1 = vsubq_s8(vreinterpretq_s8_u8(vshrq_n_u8(q, 4)), s8);
        int32x4_t p0 = lk__dp4_a(vdupq_n_s32(0), a0, vld1q_s8(y[i].qs));
        int32x4_t p1 = lk__dp4_a(vdupq_n_s32(0), a1, vld1q_s8(y[i].qs + 16));
        float32x4_t d = vdupq_n_f32(lk__h2f_a(x[i].d) * lk__h2f_a(y[i].d));
        lo = vfmaq_f32(lo, d, vcvtq_f32_s32(p0));
        hi = vfmaq_f32(hi, d, vcvtq_f32_s32(p1));
    }
    *s = lk__hsum8_a(lo, hi);
}
/* float dots: 16 lanes (4 x 4), fma, reduced 8+8 then as lk__hsum8; tail in double */
/* reference: lk__vec_dot_f32_ref (14.7a; NEON lanes differ from it in the last bits) */
static void lk__vd_f32_arm(int64_t n, float *s, const void *vx, const void *vy) {
    const float *x = LK__CAST(const float *, vx), *y = LK__CAST(const float *, vy);
    float32x4_t a0 = vdupq_n_f32(0), a1 = a0, a2 = a0, a3 = a0;
    double tail = 0.0;
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        a0 = vfmaq_f32(a0, vld1q_f32(x + i), vld1q_f32(y + i));
        a1 = vfmaq_f32(a1, vld1q_f32(x + i + 4), vld1q_f32(y + i + 4));
        a2 = vfmaq_f32(a2, vld1q_f32(x + i + 8), vld1q_f32(y + i + 8));
        a3 = vfmaq_f32(a3, vld1q_f32(x + i + 12), vld1q_f32(y + i + 12));
    }
    for (; i < n; i++) tail += (double)(x[i] * y[i]);
    *s = (float)((double)lk__hsum8_a(vaddq_f32(a2, a0), vaddq_f32(a3, a1)) + tail);
}
static float32x4_t lk__f16x4_a(const uint16_t *p) { return vcvt_f32_f16(vreinterpret_f16_u16(vld1_u16(p))); }
/* reference: lk__vec_dot_f16_ref (14.7a; NEON lanes differ from it in the last bits) */
static void lk__vd_f16_arm(int64_t n, float *s, const void *vx, const void *vy) {
    const uint16_t *x = LK__CAST(const uint16_t *, vx), *y = LK__CAST(const uint16_t *, vy);
    float32x4_t a0 = vdupq_n_f32(0), a1 = a0, a2 = a0, a3 = a0;
    double tail = 0.0;
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        a0 = vfmaq_f32(a0, lk__f16x4_a(x + i), lk__f16x4_a(y + i));
        a1 = vfmaq_f32(a1, lk__f16x4_a(x + i + 4), lk__f16x4_a(y + i + 4));
        a2 = vfmaq_f32(a2, lk__f16x4_a(x + i + 8), lk__f16x4_a(y + i + 8));
        a3 = vfmaq_f32(a3, lk__f16x4_a(x + i + 12), lk__f16x4_a(y + i + 12));
    }
    for (; i < n; i++) tail += (double)(lk_fp16_to_fp32(x[i]) * lk_fp16_to_fp32(y[i]));
    *s = (float)((double)lk__hsum8_a(vaddq_f32(a2, a0), vaddq_f32(a3, a1)) + tail);
}
static void lk__from_float_f16_arm(const float *x, void *vy, int64_t n) {   /* FCVTN: round to nearest even */
    uint16_t *y = LK__CAST(uint16_t *, vy);
    int64_t i = 0;
    for (; i + 4 <= n; i += 4) vst1_u16(y + i, vreinterpret_u16_f16(vcvt_f16_f32(vld1q_f32(x + i))));
    for (; i < n; i++) y[i] = lk_fp32_to_fp16(x[i]);
}
/* activation quantizers: amax, then round half to even (FCVTNS), saturate */
static void lk__act_q8_a(const float *x, int8_t *q, float *amax_out, float (*idf)(float), int32_t *sum) {
    float32x4_t v[8], m = vdupq_n_f32(0.0f), id;
    int32x4_t iv[8];
    int16x8_t h[4];
    int k;
    float amax;
    for (k = 0; k < 8; k++) { v[k] = vld1q_f32(x + 4 * k); m = vmaxq_f32(m, vabsq_f32(v[k])); }
    amax = vmaxvq_f32(m);
    *amax_out = amax;
    id = vdupq_n_f32(idf(amax));
    for (k = 0; k < 8; k++) iv[k] = vcvtnq_s32_f32(vmulq_f32(v[k], id));
    for (k = 0; k < 4; k++) h[k] = vcombine_s16(vqmovn_s32(iv[2 * k]), vqmovn_s32(iv[2 * k + 1]));
    vst1q_s8(q, vcombine_s8(vqmovn_s16(h[0]), vqmovn_s16(h[1])));
    vst1q_s8(q + 16, vcombine_s8(vqmovn_s16(h[2]), vqmovn_s16(h[3])));
    if (sum) {
        int32x4_t t = vdupq_n_s32(0);
        for (k = 0; k < 8; k++) t = vaddq_s32(t, iv[k]);
        *sum = vaddvq_s32(t);
    }
}
static float lk__id127_a(float amax) { return amax != 0.0f ? 127.0f / amax : 0.0f; }
/* reference: lk__act_quantize_q8_0_ref (14.7a) */
static void lk__act_q8_0_arm(const float *x, void *vy, int64_t n) {
    lk_block_q8_0 *y = LK__CAST(lk_block_q8_0 *, vy);
    int64_t i, nb = n / LK_QK8_0;
    for (i = 0; i < nb; i++, x += LK_QK8_0) {
        float amax;
        lk__act_q8_a(x, y[i].qs, &amax, lk__id127_a, NULL);
        y[i].d = LK__F2H(amax / 127.0f);
    }
}
/* reference: lk__act_quantize_q8_1_ref (14.7a) */
static void lk__act_q8_1_arm(const float *x, void *vy, int64_t n) {
    lk_block_q8_1 *y = LK__CAST(lk_block_q8_1 *, vy);
    int64_t i, nb = n / LK_QK8_1;
    for (i = 0; i < nb; i++, x += LK_QK8_1) {
        float amax, d;
        int32_t sum;
        lk__act_q8_a(x, y[i].qs, &amax, lk__id127_a, &sum);
        d = amax / 127.0f;
        y[i].d = LK__F2H(d);
        y[i].s = LK__F2H(d * (float)sum);
    }
}
/* K-quants: per sub-block integer dots times the integer scale in 4 int32
 * lanes, one float fma per super-block; min / offset terms in integers */
/* q4_K and q5_K in one kernel, as on x86 (q5: a constant at each call).
 * Both blocks start with d, dmin, scales[12]; q5_K then has qh[32], its
 * fifth bits, before qs.
 * references: lk__vec_dot_q4_K_q8_K_ref and lk__vec_dot_q5_K_q8_K_ref (14.7a) */
LK__AINL void lk__vd_q45_K_a(int64_t n, float *s, const void *vx, const void *vy, int q5) {
    const unsigned char *x = LK__CAST(const unsigned char *, vx);
    const lk_block_q8_K *y = LK__CAST(const lk_block_q8_K *, vy);
    const size_t bsz = q5 ? sizeof(lk_block_q5_K) : sizeof(lk_block_q4_K);
    int64_t i, nb = n / LK_QK_K;
    const uint8x16_t m4 = vdupq_n_u8(15), one = vdupq_n_u8(1);
    float32x4_t acc = vdupq_n_f32(0.0f);
    float summ = 0.0f;
    for (i = 0; i < nb; i++, x += bsz) {
        uint8_t sc[8], mn[8];
        uint16_t dh[2];   /* d, dmin */
        const uint8_t *q4 = x + (q5 ? 48 : 16);
        const int8_t *q8 = y[i].qs;
        uint8x16_t hb[2];
        int32x4_t ai = vdupq_n_s32(0);
        int j, h, sm = 0;
        memcpy(dh, x, 4);
        hb[0] = q5 ? vld1q_u8(x + 16) : vdupq_n_u8(0); hb[1] = q5 ? vld1q_u8(x + 32) : vdupq_n_u8(0);
        lk__k4_scales(x + 4, sc, mn);
        for (j = 0; j < 8; j++) sm += mn[j] * (y[i].bsums[2 * j] + y[i].bsums[2 * j + 1]);
        for (j = 0; j < 4; j++, q4 += 32, q8 += 64) {
            int32x4_t p0 = vdupq_n_s32(0), p1 = vdupq_n_s32(0);
            for (h = 0; h < 2; h++) {
                const uint8x16_t q = vld1q_u8(q4 + 16 * h);
                uint8x16_t lo = vandq_u8(q, m4), hi = vshrq_n_u8(q, 4);
                if (q5) {   /* 5th bit: qh bit 2j for the low nibbles, 2j+1 for the high */
                    lo = vorrq_u8(lo, vshlq_n_u8(vandq_u8(vshlq_u8(hb[h], vdupq_n_s8((int8_t)(-2 * j))), one), 4));
                    hi = vorrq_u8(hi, vshlq_n_u8(vandq_u8(vshlq_u8(hb[h], vdupq_n_s8((int8_t)(-2 * j - 1))), one), 4));
                }
                p0 = lk__dp4_a(p0, vreinterpretq_s8_u8(lo), vld1q_s8(q8 + 16 * h));
                p1 = lk__dp4_a(p1, vreinterpretq_s8_u8(hi), vld1q_s8(q8 + 32 + 16 * h));
            }
            ai = vmlaq_n_s32(ai, p0, sc[2 * j]);
            ai = vmlaq_n_s32(ai, p1, sc[2 * j + 1]);
        }
        acc = vfmaq_f32(acc, vdupq_n_f32(lk__h2f_a(dh[0]) * y[i].d), vcvtq_f32_s32(ai));
        summ -= (lk__h2f_a(dh[1]) * y[i].d) * (float)sm;
    }
    *s = summ + vaddvq_f32(acc);
}
static void lk__vd_q4_K_arm(int64_t n, float *s, const void *vx, const void *vy) { lk__vd_q45_K_a(n, s, vx, vy, 0); }
static void lk__vd_q5_K_arm(int64_t n, float *s, const void *vx, const void *vy) { lk__vd_q45_K_a(n, s, vx, vy, 1); }
/* reference: lk__vec_dot_q6_K_q8_K_ref (14.7a) */
static void lk__vd_q6_K_arm(int64_t n, float *s, const void *vx, const void *vy) {
    const lk_block_q6_K *x = LK__CAST(const lk_block_q6_K *, vx);
    const lk_block_q8_K *y = LK__CAST(const lk_block_q8_K *, vy);
    int64_t i, nb = n / LK_QK_K;
    const uint8x16_t m4 = vdupq_n_u8(15), m3 = vdupq_n_u8(3);
    const int8x16_t o32 = vdupq_n_s8(32);
    float32x4_t acc = vdupq_n_f32(0.0f);
    for (i = 0; i < nb; i++) {
        int32x4_t ai = vdupq_n_s32(0);
        int hh, k, l;
        for (hh = 0; hh < 2; hh++)
            for (k = 0; k < 4; k++)
                for (l = 0; l < 2; l++) {   /* 16 elements 128hh + 32k + 16l, scale 8hh + 2k + l */
                    uint8x16_t ql = vld1q_u8(x[i].ql + 64 * hh + 32 * (k & 1) + 16 * l);
                    uint8x16_t qh = vld1q_u8(x[i].qh + 32 * hh + 16 * l);
                    uint8x16_t lo = k >= 2 ? vshrq_n_u8(ql, 4) : vandq_u8(ql, m4);
                    uint8x16_t hi = vshlq_n_u8(vandq_u8(vshlq_u8(qh, vdupq_n_s8((int8_t)(-2 * k))), m3), 4);
                    int8x16_t q = vsubq_s8(vreinterpretq_s8_u8(vorrq_u8(lo, hi)), o32);
                    int32x4_t p = lk__dp4_a(vdupq_n_s32(0), q, vld1q_s8(y[i].qs + 128 * hh + 32 * k + 16 * l));
                    ai = vmlaq_n_s32(ai, p, x[i].scales[8 * hh + 2 * k + l]);
                }
        acc = vfmaq_f32(acc, vdupq_n_f32(lk__h2f_a(x[i].d) * y[i].d), vcvtq_f32_s32(ai));
    }
    *s = vaddvq_f32(acc);
}
#endif /* LK__ARM */

/* ---- the quantizers and lk__dot64: SIMD where compiled, else the reference */
#if !defined(LK__X86)
static LK__UNUSED float lk__dot64(const void *x, int xh, const void *y, int yh, int64_t n) { return lk__dot64_ref(x, xh, y, yh, n); }
/* (x86 builds: beside lk__tile_flt_avx2; elsewhere lk_matmul does not pick it) */
static void lk__f32_rows8(int64_t n, const float *w, size_t ws, const float *x, float *y) {
    const int64_t n64 = n & ~(int64_t)63;
    int r;
    for (r = 0; r < 8; r++) y[r] = n64 ? lk__dot64(w + (size_t)r * ws, 0, x, 0, n64) : 0.0f;
    lk__vdot_tail8_f32(y, w, ws, x, n64, n);
}
#endif
#if defined(LK__X86)
#define LK__PICK(x86, arm, ref) x86
#elif defined(LK__ARM)
#define LK__PICK(x86, arm, ref) arm
#else
#define LK__PICK(x86, arm, ref) ref
#endif
static void lk__from_float_f16(const float *x, void *y, int64_t n) { LK__PICK(lk__from_float_f16_x86, lk__from_float_f16_arm, lk__from_float_f16_ref)(x, y, n); }
static void lk__quantize_row_q8_K(const float *x, void *y, int64_t n) { LK__PICK(lk__act_q8_K_x86, lk__quantize_row_q8_K_ref, lk__quantize_row_q8_K_ref)(x, y, n); }
static void lk__act_quantize_q8_0(const float *x, void *y, int64_t n) { LK__PICK(lk__act_q8_0_x86, lk__act_q8_0_arm, lk__act_quantize_q8_0_ref)(x, y, n); }
static void lk__act_quantize_q8_1(const float *x, void *y, int64_t n) { LK__PICK(lk__act_q8_1_x86, lk__act_q8_1_arm, lk__act_quantize_q8_1_ref)(x, y, n); }
#undef LK__PICK
/* ---- LK_LAYOUT_R8 kernels (14.7r): 8 rows in the 8 float lanes ---------
 * q4_0 x q8_0, reference lk__r8_q4_0_ref. Per block and column: the 8
 * chunks' nibbles (unsigned, 0..15) times the column's 4 broadcast quants
 * (maddubs: pairs <= 2 * 15 * 128 = 3840, eight of them <= 30720, no
 * saturation) summed in int16, pairs to int32 (madd), minus 8 x the block's
 * quant sum (ysum) = the exact isum of each row; then fma as the reference. */
#if defined(LK__X86)
LK__AINL __m256i lk__bcast4_x(const unsigned char *p) { int32_t v; memcpy(&v, p, 4); return _mm256_set1_epi32(v); }
LK__AINL void lk__r8_q4_0_xc(int64_t n, const unsigned char *g, const unsigned char *a, size_t as, const int32_t *ysum, int64_t nbk,
                             float *y, int64_t ys, int C) {
    const __m256i m4 = _mm256_set1_epi8(15), one = _mm256_set1_epi16(1);
    const int64_t nb = n / 32;
    __m256 acc[LK__R8_NC];
    int64_t i;
    int c, k;
    LK__UNROLL for (c = 0; c < C; c++) acc[c] = _mm256_setzero_ps();
    for (i = 0; i < nb; i++) {
        const unsigned char *b = g + (size_t)i * LK__R8_Q4_0_BLK;
        const __m256 dw = _mm256_cvtph_ps(LK__LD128(b));
        __m256i t[LK__R8_NC], u[LK__R8_NC];
        /* two sums per column (shorter dependency chains); with VNNI
             * they are int32 and t starts at -8 x the quant sum (the -8
             * offset of every nibble), else int16, the offset subtracted
             * after the pairs are widened */
        LK__UNROLL for (c = 0; c < C; c++) {
#if defined(LK__X86_VNNI)
            t[c] = _mm256_set1_epi32(-ysum[2 * (c * nbk + i)]);
#else
            t[c] = _mm256_setzero_si256();
#endif
            u[c] = _mm256_setzero_si256();
        }
        LK__UNROLL for (k = 0; k < 4; k++) {
            const __m256i p = LK__LD256(b + 16 + 32 * k);
            const __m256i lo = _mm256_and_si256(p, m4), hi = _mm256_and_si256(_mm256_srli_epi16(p, 4), m4);
            LK__UNROLL for (c = 0; c < C; c++) {
                const unsigned char *q = a + (size_t)c * as + (size_t)i * 34 + 2;
#if defined(LK__X86_VNNI)   /* u8 x s8 in groups of 4 straight into int32: the same exact sums */
                t[c] = _mm256_dpbusd_epi32(t[c], lo, lk__bcast4_x(q + 4 * k));
                u[c] = _mm256_dpbusd_epi32(u[c], hi, lk__bcast4_x(q + 16 + 4 * k));
#else
                t[c] = _mm256_add_epi16(t[c], _mm256_maddubs_epi16(lo, lk__bcast4_x(q + 4 * k)));
                u[c] = _mm256_add_epi16(u[c], _mm256_maddubs_epi16(hi, lk__bcast4_x(q + 16 + 4 * k)));
#endif
            }
        }
#if defined(LK__X86_VNNI)
        LK__UNROLL for (c = 0; c < C; c++) t[c] = _mm256_add_epi32(t[c], u[c]);
        (void)one;
#else
        LK__UNROLL for (c = 0; c < C; c++)
            t[c] = _mm256_sub_epi32(_mm256_madd_epi16(_mm256_add_epi16(t[c], u[c]), one), _mm256_set1_epi32(ysum[2 * (c * nbk + i)]));
#endif
        LK__UNROLL for (c = 0; c < C; c++) {
            float dy;
            memcpy(&dy, &ysum[2 * (c * nbk + i) + 1], 4);
            acc[c] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(t[c]), _mm256_mul_ps(dw, _mm256_set1_ps(dy)), acc[c]);
        }
    }
    LK__UNROLL for (c = 0; c < C; c++) _mm256_storeu_ps(y + c * ys, acc[c]);
}
static void lk__r8_q4_0_x86(int64_t n, const unsigned char *g, const unsigned char *a, size_t as, const int32_t *ysum, int64_t nbk,
                            float *y, int64_t ys, int C) {
    switch (C) {   /* constant column counts, so the loops unroll */
#if LK__R8_NC == 8
    case 8: lk__r8_q4_0_xc(n, g, a, as, ysum, nbk, y, ys, 8); break;
    case 7: lk__r8_q4_0_xc(n, g, a, as, ysum, nbk, y, ys, 7); break;
    case 6: lk__r8_q4_0_xc(n, g, a, as, ysum, nbk, y, ys, 6); break;
    case 5: lk__r8_q4_0_xc(n, g, a, as, ysum, nbk, y, ys, 5); break;
#endif
    case 4: lk__r8_q4_0_xc(n, g, a, as, ysum, nbk, y, ys, 4); break;
    case 3: lk__r8_q4_0_xc(n, g, a, as, ysum, nbk, y, ys, 3); break;
    case 2: lk__r8_q4_0_xc(n, g, a, as, ysum, nbk, y, ys, 2); break;
    default: lk__r8_q4_0_xc(n, g, a, as, ysum, nbk, y, ys, 1); break;
    }
}
/* q4_K x q8_K (reference lk__r8_q4_K_ref). Per super-block and column: for
 * each sub-block the 8 groups' nibbles times the column's 4 broadcast quants
 * (maddubs, pairs <= 3810, eight of them <= 30480) in int16, then madd with
 * each row's scale in both of its int16 lanes -> sc * dot per row (int32);
 * the mins: madd of (mn[sb][r] twice) with the bsums pair of sub-block sb. */
LK__AINL void lk__r8_q4_K_xc(int64_t n, const unsigned char *g, const unsigned char *a, size_t as, float *y, int64_t ys, int C) {
    const __m256i m4 = _mm256_set1_epi8(15);
    const int64_t nb = n / LK_QK_K;
    __m256 acc[LK__R8_NC], accm[LK__R8_NC];
    int64_t i;
    int c, j, k;
    LK__UNROLL for (c = 0; c < C; c++) acc[c] = accm[c] = _mm256_setzero_ps();
    for (i = 0; i < nb; i++) {
        const unsigned char *b = g + (size_t)i * LK__R8_Q4_K_BLK, *ai = a + (size_t)i * sizeof(lk_block_q8_K);
        const __m256 dw = _mm256_cvtph_ps(LK__LD128(b)), dmw = _mm256_cvtph_ps(LK__LD128(b + 16));
        __m256i is[LK__R8_NC], im[LK__R8_NC];
        LK__UNROLL for (c = 0; c < C; c++) is[c] = im[c] = _mm256_setzero_si256();
        for (j = 0; j < 4; j++) {
            const __m128i s8 = _mm_loadu_si128((const __m128i *)(const void *)(b + 32 + 16 * j));   /* sc[2j][0..7], sc[2j+1][0..7] */
#if defined(LK__X86_VNNI)   /* each row's scale of sub-blocks 2j, 2j+1 as int32; the sums int32 (vpdpbusd) */
            const __m256i sclo = _mm256_cvtepu8_epi32(s8), schi = _mm256_cvtepu8_epi32(_mm_srli_si128(s8, 8));
#else       /* each row's scale of sub-blocks 2j, 2j+1 in both int16 lanes of its pair; the sums int16 */
            const __m256i sclo = _mm256_cvtepu8_epi16(_mm_unpacklo_epi8(s8, s8)), schi = _mm256_cvtepu8_epi16(_mm_unpackhi_epi8(s8, s8));
#endif
            __m256i tl[LK__R8_NC], th[LK__R8_NC];
            LK__UNROLL for (c = 0; c < C; c++) tl[c] = th[c] = _mm256_setzero_si256();
            LK__UNROLL for (k = 0; k < 8; k++) {
                const __m256i p = LK__LD256(b + 160 + 256 * j + 32 * k);
                const __m256i lo = _mm256_and_si256(p, m4), hi = _mm256_and_si256(_mm256_srli_epi16(p, 4), m4);
                LK__UNROLL for (c = 0; c < C; c++) {
                    const unsigned char *q = ai + (size_t)c * as + 4 + 64 * j + 4 * k;   /* q8_K: d (f32) first */
#if defined(LK__X86_VNNI)
                    tl[c] = _mm256_dpbusd_epi32(tl[c], lo, lk__bcast4_x(q));
                    th[c] = _mm256_dpbusd_epi32(th[c], hi, lk__bcast4_x(q + 32));
#else
                    tl[c] = _mm256_add_epi16(tl[c], _mm256_maddubs_epi16(lo, lk__bcast4_x(q)));
                    th[c] = _mm256_add_epi16(th[c], _mm256_maddubs_epi16(hi, lk__bcast4_x(q + 32)));
#endif
                }
            }
            LK__UNROLL for (c = 0; c < C; c++)
#if defined(LK__X86_VNNI)
                is[c] = _mm256_add_epi32(is[c], _mm256_add_epi32(_mm256_mullo_epi32(tl[c], sclo), _mm256_mullo_epi32(th[c], schi)));
#else
                is[c] = _mm256_add_epi32(is[c], _mm256_add_epi32(_mm256_madd_epi16(tl[c], sclo), _mm256_madd_epi16(th[c], schi)));
#endif
        }
        {   /* mins: mn[sb][r] twice per row, times the pair bsums[2sb], bsums[2sb+1] */
            const __m128i m8a = _mm_loadu_si128((const __m128i *)(const void *)(b + 96)), m8b = _mm_loadu_si128((const __m128i *)(const void *)(b + 112));
            const __m128i m8c = _mm_loadu_si128((const __m128i *)(const void *)(b + 128)), m8d = _mm_loadu_si128((const __m128i *)(const void *)(b + 144));
            __m256i mv[8];
            int sb;
            mv[0] = _mm256_cvtepu8_epi16(_mm_unpacklo_epi8(m8a, m8a)); mv[1] = _mm256_cvtepu8_epi16(_mm_unpackhi_epi8(m8a, m8a));
            mv[2] = _mm256_cvtepu8_epi16(_mm_unpacklo_epi8(m8b, m8b)); mv[3] = _mm256_cvtepu8_epi16(_mm_unpackhi_epi8(m8b, m8b));
            mv[4] = _mm256_cvtepu8_epi16(_mm_unpacklo_epi8(m8c, m8c)); mv[5] = _mm256_cvtepu8_epi16(_mm_unpackhi_epi8(m8c, m8c));
            mv[6] = _mm256_cvtepu8_epi16(_mm_unpacklo_epi8(m8d, m8d)); mv[7] = _mm256_cvtepu8_epi16(_mm_unpackhi_epi8(m8d, m8d));
            LK__UNROLL for (c = 0; c < C; c++) {
                const unsigned char *bs = ai + (size_t)c * as + 4 + LK_QK_K;   /* bsums */
#if defined(LK__X86_VNNI)   /* vpdpwssd: the same int16 pair products, added in one instruction */
                LK__UNROLL for (sb = 0; sb < 8; sb++) im[c] = _mm256_dpwssd_epi32(im[c], mv[sb], lk__bcast4_x(bs + 4 * sb));
#else
                LK__UNROLL for (sb = 0; sb < 8; sb++) im[c] = _mm256_add_epi32(im[c], _mm256_madd_epi16(mv[sb], lk__bcast4_x(bs + 4 * sb)));
#endif
            }
        }
        LK__UNROLL for (c = 0; c < C; c++) {
            float dy;
            __m256 dd;
            memcpy(&dy, ai + (size_t)c * as, 4);
            dd = _mm256_set1_ps(dy);
            acc[c] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(is[c]), _mm256_mul_ps(dw, dd), acc[c]);
            accm[c] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(im[c]), _mm256_mul_ps(dmw, dd), accm[c]);
        }
    }
    LK__UNROLL for (c = 0; c < C; c++) _mm256_storeu_ps(y + c * ys, _mm256_sub_ps(acc[c], accm[c]));
}
static void lk__r8_q4_K_x86(int64_t n, const unsigned char *g, const unsigned char *a, size_t as, const int32_t *ysum, int64_t nbk,
                            float *y, int64_t ys, int C) {
    (void)ysum; (void)nbk;
    switch (C) {
#if LK__R8_NC == 8
    case 8: lk__r8_q4_K_xc(n, g, a, as, y, ys, 8); break;
    case 7: lk__r8_q4_K_xc(n, g, a, as, y, ys, 7); break;
    case 6: lk__r8_q4_K_xc(n, g, a, as, y, ys, 6); break;
    case 5: lk__r8_q4_K_xc(n, g, a, as, y, ys, 5); break;
#endif
    case 4: lk__r8_q4_K_xc(n, g, a, as, y, ys, 4); break;
    case 3: lk__r8_q4_K_xc(n, g, a, as, y, ys, 3); break;
    case 2: lk__r8_q4_K_xc(n, g, a, as, y, ys, 2); break;
    default: lk__r8_q4_K_xc(n, g, a, as, y, ys, 1); break;
    }
}
#endif

/* ==== the kernel table ====================================================
 * Per type, the kernels this build runs: one row per lk_type value (rows
 * after the last one written are all NULL), columns as lk__kernels
 * (14.7a), filled once per target: x86 (AVX2 + FMA + F16C; the AVX-512,
 * VNNI and BF16 variants are chosen inside the kernels), NEON (AArch64),
 * Cortex-M (Helium or the DSP extension) and none (LLMKIT_NO_SIMD or
 * another CPU: the scalar references). A new kernel for a type is one row
 * here, or a cell of its row (plus the kernel); a new type is a row in each
 * target that has a kernel for it (in all four if it has an interleaved
 * layout, LK__R8_<type> of 14.7r: the layout exists in every build),
 * besides its lk__type_table row and its dispatcher line below.
 * Why function pointers in a table plus one dispatcher per type (below),
 * rather than names the type table could hold directly: lk_type_get(t)->
 * vec_dot, in the static const lk__type_table (14.4), must be this table's
 * kernel, but a C static initializer can name a function and cannot read
 * another table. So lk__type_table names a fixed dispatcher per type,
 * which calls the kernel in this row (or the reference where the row has
 * none); the table is static const, so the compiler resolves each
 * dispatcher to one direct call or jump. No initialisation at run time,
 * nothing that threads could race on. The tile families take the kind as
 * an argument and switch on it to always-inlined copies, so a (type,
 * shape) still runs code compiled for its constants (LK__TR, LK__TC or 1,
 * the kind) without a wrapper per type.
 * ========================================================================== */
#define LK__K_NONE { NULL, NULL, NULL, 0, LK__R8_NONE, NULL }
#if defined(LK__X86)
#if defined(LK__X86_512)   /* f32 / f16 dots: the zmm 1 x 1 tile */
#define lk__vd_f32_x86 lk__vd_f32_t
#define lk__vd_f16_x86 lk__vd_f16_t
#define LK__R8_F16_X86 lk__r8_f16_x86
#else                      /* AVX2: no f16 interleaved-row kernel (the reference runs; models keep f16 in rows) */
#define LK__R8_F16_X86 NULL
#endif
static const lk__kernels lk__kernel_table[LK_TYPE_COUNT] = {
    /*               vec_dot                    tile (LK__TR x LK__TC)      tile1 (LK__TR x 1)          kind            r8 layout     r8 SIMD */
    /*  0 f32     */ { lk__vd_f32_x86,          lk__tile44_flt,             lk__tile41_flt,             LK__FLT_F32,    LK__R8_NONE,  NULL },
    /*  1 f16     */ { lk__vd_f16_x86,          lk__tile44_flt,             lk__tile41_flt,             LK__FLT_F16,    LK__R8_F16,   LK__R8_F16_X86 },
    /*  2 q4_0    */ { lk__vd_q4_0_t,           lk__tile44_b32,             lk__tile41_b32,             LK__B32_Q4_0,   LK__R8_Q4_0,  lk__r8_q4_0_x86 },
    /*  3 q4_1    */ { lk__vd_q4_1_t,           lk__tile44_b32,             lk__tile41_b32,             LK__B32_Q4_1,   LK__R8_NONE,  NULL },
    /*  4         */ LK__K_NONE,
    /*  5         */ LK__K_NONE,
    /*  6 q5_0    */ { lk__vd_q5_0_t,           lk__tile44_b32,             lk__tile41_b32,             LK__B32_Q5_0,   LK__R8_NONE,  NULL },
    /*  7 q5_1    */ { lk__vd_q5_1_t,           lk__tile44_b32,             lk__tile41_b32,             LK__B32_Q5_1,   LK__R8_NONE,  NULL },
    /*  8 q8_0    */ { lk__vd_q8_0_t,           lk__tile44_b32,             lk__tile41_b32,             LK__B32_Q8_0,   LK__R8_NONE,  NULL },
    /*  9 q8_1    */ LK__K_NONE,
    /* 10 q2_K    */ { lk__vd_q2_K_t,           lk__tile44_q2_K,            lk__tile41_q2_K,            0,              LK__R8_NONE,  NULL },
    /* 11 q3_K    */ { lk__vd_q3_K_t,           lk__tile44_q3_K,            lk__tile41_q3_K,            0,              LK__R8_NONE,  NULL },
    /* 12 q4_K    */ { lk__vd_q4_K_t,           lk__tile44_q45_K,           lk__tile41_q45_K,           LK__Q45_Q4_K,   LK__R8_Q4_K,  lk__r8_q4_K_x86 },
    /* 13 q5_K    */ { lk__vd_q5_K_t,           lk__tile44_q45_K,           lk__tile41_q45_K,           LK__Q45_Q5_K,   LK__R8_NONE,  NULL },
    /* 14 q6_K    */ { lk__vd_q6_K_t,           lk__tile44_q6_K,            lk__tile41_q6_K,            0,              LK__R8_NONE,  NULL },
    /* 15 q8_K    */ LK__K_NONE,
    /* 16 iq2_xxs */ LK__K_NONE,
    /* 17 iq2_xs  */ LK__K_NONE,
    /* 18 iq3_xxs */ LK__K_NONE,
    /* 19 iq1_s   */ LK__K_NONE,
    /* 20 iq4_nl  */ { LK__IQK(lk__vd_iq4_nl_t), LK__IQK(lk__tile44_b32),   LK__IQK(lk__tile41_b32),    LK__B32_IQ4_NL, LK__R8_NONE,  NULL },
    /* 21 iq3_s   */ LK__K_NONE,
    /* 22 iq2_s   */ LK__K_NONE,
    /* 23 iq4_xs  */ { LK__IQK(lk__vd_iq4_xs_t), LK__IQK(lk__tile44_iq4_xs), LK__IQK(lk__tile41_iq4_xs), 0,            LK__R8_NONE,  NULL },
    /* 24 i8      */ LK__K_NONE,
    /* 25 i16     */ LK__K_NONE,
    /* 26 i32     */ LK__K_NONE,
    /* 27 i64     */ LK__K_NONE,
    /* 28 f64     */ LK__K_NONE,
    /* 29 iq1_m   */ LK__K_NONE,
    /* 30 bf16    */ { lk__vd_bf16_x86,         lk__tile44_flt,             lk__tile41_flt,             LK__FLT_BF16,   LK__R8_NONE,  NULL },
};
#undef LK__R8_F16_X86
#elif defined(LK__ARM)
static const lk__kernels lk__kernel_table[LK_TYPE_COUNT] = {
    /*               vec_dot                    tile  tile1  kind  r8 layout     r8 SIMD */
    /*  0 f32     */ { lk__vd_f32_arm,          NULL, NULL,  0,    LK__R8_NONE,  NULL },
    /*  1 f16     */ { lk__vd_f16_arm,          NULL, NULL,  0,    LK__R8_F16,   NULL },
    /*  2 q4_0    */ { lk__vd_q4_0_arm,         NULL, NULL,  0,    LK__R8_Q4_0,  NULL },
    /*  3 q4_1    */ LK__K_NONE,
    /*  4         */ LK__K_NONE,
    /*  5         */ LK__K_NONE,
    /*  6 q5_0    */ LK__K_NONE,
    /*  7 q5_1    */ LK__K_NONE,
    /*  8 q8_0    */ { lk__vd_q8_0_arm,         NULL, NULL,  0,    LK__R8_NONE,  NULL },
    /*  9 q8_1    */ LK__K_NONE,
    /* 10 q2_K    */ LK__K_NONE,
    /* 11 q3_K    */ LK__K_NONE,
    /* 12 q4_K    */ { lk__vd_q4_K_arm,         NULL, NULL,  0,    LK__R8_Q4_K,  NULL },
    /* 13 q5_K    */ { lk__vd_q5_K_arm,         NULL, NULL,  0,    LK__R8_NONE,  NULL },
    /* 14 q6_K    */ { lk__vd_q6_K_arm,         NULL, NULL,  0,    LK__R8_NONE,  NULL },
};
#elif defined(LK__MVE) || defined(LK__DSP)
static const lk__kernels lk__kernel_table[LK_TYPE_COUNT] = {
    /*               vec_dot                    tile  tile1  kind  r8 layout     r8 SIMD */
    /*  0 f32     */ { lk__vd_f32_mcu,          NULL, NULL,  0,    LK__R8_NONE,  NULL },
    /*  1 f16     */ { NULL,                    NULL, NULL,  0,    LK__R8_F16,   NULL },
    /*  2 q4_0    */ { lk__vd_q4_0_mcu,         NULL, NULL,  0,    LK__R8_Q4_0,  NULL },
    /*  3 q4_1    */ LK__K_NONE,
    /*  4         */ LK__K_NONE,
    /*  5         */ LK__K_NONE,
    /*  6 q5_0    */ LK__K_NONE,
    /*  7 q5_1    */ LK__K_NONE,
    /*  8 q8_0    */ { lk__vd_q8_0_mcu,         NULL, NULL,  0,    LK__R8_NONE,  NULL },
    /*  9 q8_1    */ LK__K_NONE,
    /* 10 q2_K    */ LK__K_NONE,
    /* 11 q3_K    */ LK__K_NONE,
    /* 12 q4_K    */ { NULL,                    NULL, NULL,  0,    LK__R8_Q4_K,  NULL },
};
#else
static const lk__kernels lk__kernel_table[LK_TYPE_COUNT] = {
    /*               vec_dot                    tile  tile1  kind  r8 layout     r8 SIMD */
    /*  0 f32     */ LK__K_NONE,
    /*  1 f16     */ { NULL,                    NULL, NULL,  0,    LK__R8_F16,   NULL },
    /*  2 q4_0    */ { NULL,                    NULL, NULL,  0,    LK__R8_Q4_0,  NULL },
    /*  3 q4_1    */ LK__K_NONE,
    /*  4         */ LK__K_NONE,
    /*  5         */ LK__K_NONE,
    /*  6 q5_0    */ LK__K_NONE,
    /*  7 q5_1    */ LK__K_NONE,
    /*  8 q8_0    */ LK__K_NONE,
    /*  9 q8_1    */ LK__K_NONE,
    /* 10 q2_K    */ LK__K_NONE,
    /* 11 q3_K    */ LK__K_NONE,
    /* 12 q4_K    */ { NULL,                    NULL, NULL,  0,    LK__R8_Q4_K,  NULL },
};
#endif
static const lk__kernels *lk__kernels_of(lk_type type) {
    static const lk__kernels none = LK__K_NONE;
    return (int)type >= 0 && (int)type < LK_TYPE_COUNT ? &lk__kernel_table[type] : &none;
}
#undef LK__K_NONE
/* The dot products lk__type_table names (14.4): each runs its row's
 * vec_dot, or where that is NULL the scalar reference <name>_ref. The
 * table is static const, so the choice is made at compile time. */
#define LK__VEC_DOT(name, type) static void name(int64_t n, float *s, const void *x, const void *y) { \
        if (lk__kernel_table[type].vec_dot) lk__kernel_table[type].vec_dot(n, s, x, y); else name##_ref(n, s, x, y); }
LK__VEC_DOT(lk__vec_dot_f32, LK_TYPE_F32) LK__VEC_DOT(lk__vec_dot_f16, LK_TYPE_F16) LK__VEC_DOT(lk__vec_dot_bf16, LK_TYPE_BF16)
LK__VEC_DOT(lk__vec_dot_q4_0_q8_0, LK_TYPE_Q4_0) LK__VEC_DOT(lk__vec_dot_q4_1_q8_1, LK_TYPE_Q4_1)
LK__VEC_DOT(lk__vec_dot_q5_0_q8_0, LK_TYPE_Q5_0) LK__VEC_DOT(lk__vec_dot_q5_1_q8_1, LK_TYPE_Q5_1)
LK__VEC_DOT(lk__vec_dot_q8_0_q8_0, LK_TYPE_Q8_0)
LK__VEC_DOT(lk__vec_dot_q2_K_q8_K, LK_TYPE_Q2_K) LK__VEC_DOT(lk__vec_dot_q3_K_q8_K, LK_TYPE_Q3_K)
LK__VEC_DOT(lk__vec_dot_q4_K_q8_K, LK_TYPE_Q4_K) LK__VEC_DOT(lk__vec_dot_q5_K_q8_K, LK_TYPE_Q5_K)
LK__VEC_DOT(lk__vec_dot_q6_K_q8_K, LK_TYPE_Q6_K)
#ifndef LLMKIT_NO_IQ
LK__VEC_DOT(lk__iq2_xxs_vec_dot, LK_TYPE_IQ2_XXS) LK__VEC_DOT(lk__iq2_xs_vec_dot, LK_TYPE_IQ2_XS)
LK__VEC_DOT(lk__iq2_s_vec_dot, LK_TYPE_IQ2_S) LK__VEC_DOT(lk__iq3_xxs_vec_dot, LK_TYPE_IQ3_XXS)
LK__VEC_DOT(lk__iq3_s_vec_dot, LK_TYPE_IQ3_S) LK__VEC_DOT(lk__iq1_s_vec_dot, LK_TYPE_IQ1_S)
LK__VEC_DOT(lk__iq1_m_vec_dot, LK_TYPE_IQ1_M) LK__VEC_DOT(lk__iq4_nl_vec_dot, LK_TYPE_IQ4_NL)
LK__VEC_DOT(lk__iq4_xs_vec_dot, LK_TYPE_IQ4_XS)
LK__VEC_DOT(lk__tq1_0_vec_dot, LK_TYPE_TQ1_0) LK__VEC_DOT(lk__tq2_0_vec_dot, LK_TYPE_TQ2_0)
#endif
#undef LK__VEC_DOT
/* end of 14.7s */

#ifndef LLMKIT_NO_QUANTIZE
/* --------------------------------------------------------------------------
 * 14.7c Model quantization: file types, mix rules, lk_quantize_gguf
 * -------------------------------------------------------------------------- */
/* Canonical names first (lk_ftype_get returns the first entry of an id),
 * then llama-quantize's aliases. */
static const lk_ftype_info lk__ftypes[] = {
    { "F32", LK_FTYPE_F32, LK_TYPE_F32 }, { "F16", LK_FTYPE_F16, LK_TYPE_F16 }, { "BF16", LK_FTYPE_BF16, LK_TYPE_BF16 },
    { "Q4_0", LK_FTYPE_Q4_0, LK_TYPE_Q4_0 }, { "Q4_1", LK_FTYPE_Q4_1, LK_TYPE_Q4_1 },
    { "Q5_0", LK_FTYPE_Q5_0, LK_TYPE_Q5_0 }, { "Q5_1", LK_FTYPE_Q5_1, LK_TYPE_Q5_1 },
    { "Q8_0", LK_FTYPE_Q8_0, LK_TYPE_Q8_0 },
    { "Q2_K", LK_FTYPE_Q2_K, LK_TYPE_Q2_K }, { "Q2_K_S", LK_FTYPE_Q2_K_S, LK_TYPE_Q2_K },
    { "Q3_K_S", LK_FTYPE_Q3_K_S, LK_TYPE_Q3_K }, { "Q3_K_M", LK_FTYPE_Q3_K_M, LK_TYPE_Q3_K },
    { "Q3_K_L", LK_FTYPE_Q3_K_L, LK_TYPE_Q3_K },
    { "Q4_K_S", LK_FTYPE_Q4_K_S, LK_TYPE_Q4_K }, { "Q4_K_M", LK_FTYPE_Q4_K_M, LK_TYPE_Q4_K },
    { "Q5_K_S", LK_FTYPE_Q5_K_S, LK_TYPE_Q5_K }, { "Q5_K_M", LK_FTYPE_Q5_K_M, LK_TYPE_Q5_K },
    { "Q6_K", LK_FTYPE_Q6_K, LK_TYPE_Q6_K },
    { "IQ2_XXS", LK_FTYPE_IQ2_XXS, LK_TYPE_IQ2_XXS }, { "IQ2_XS", LK_FTYPE_IQ2_XS, LK_TYPE_IQ2_XS },
    { "IQ2_S", LK_FTYPE_IQ2_S, LK_TYPE_IQ2_XS }, { "IQ2_M", LK_FTYPE_IQ2_M, LK_TYPE_IQ2_S },
    { "IQ1_S", LK_FTYPE_IQ1_S, LK_TYPE_IQ1_S }, { "IQ1_M", LK_FTYPE_IQ1_M, LK_TYPE_IQ1_M },
    { "IQ3_XXS", LK_FTYPE_IQ3_XXS, LK_TYPE_IQ3_XXS }, { "IQ3_XS", LK_FTYPE_IQ3_XS, LK_TYPE_IQ3_S },
    { "IQ3_S", LK_FTYPE_IQ3_S, LK_TYPE_IQ3_S }, { "IQ3_M", LK_FTYPE_IQ3_M, LK_TYPE_IQ3_S },
    { "IQ4_NL", LK_FTYPE_IQ4_NL, LK_TYPE_IQ4_NL }, { "IQ4_XS", LK_FTYPE_IQ4_XS, LK_TYPE_IQ4_XS },
    { "TQ1_0", LK_FTYPE_TQ1_0, LK_TYPE_TQ1_0 }, { "TQ2_0", LK_FTYPE_TQ2_0, LK_TYPE_TQ2_0 },
    { "Q3_K", LK_FTYPE_Q3_K_M, LK_TYPE_Q3_K }, { "Q4_K", LK_FTYPE_Q4_K_M, LK_TYPE_Q4_K },
    { "Q5_K", LK_FTYPE_Q5_K_M, LK_TYPE_Q5_K },
};
#define LK__N_FTYPES ((int)(sizeof lk__ftypes / sizeof lk__ftypes[0]))

LKDEF const lk_ftype_info *lk_ftype_find(const char *name) {
    int i;
    if (!name) return NULL;
    for (i = 0; i < LK__N_FTYPES; i++)
        if (lk__strieq(lk__ftypes[i].name, name)) return &lk__ftypes[i];
    return NULL;
}
LKDEF const lk_ftype_info *lk_ftype_get(lk_ftype ftype) {
    int i;
    for (i = 0; i < LK__N_FTYPES; i++)
        if (lk__ftypes[i].ftype == ftype) return &lk__ftypes[i];
    return NULL;
}
LKDEF const lk_ftype_info *lk_ftype_at(int i) {
    return i >= 0 && i < LK__N_FTYPES ? &lk__ftypes[i] : NULL;
}

static int lk__qm_has(const char *s, const char *sub) { return strstr(s, sub) != NULL; }
static int lk__qm_str_has(lk_str s, const char *sub) {
    uint64_t n = strlen(sub), i;
    if (n > s.len) return 0;
    for (i = 0; i + n <= s.len; i++)
        if (memcmp(s.ptr + i, sub, (size_t)n) == 0) return 1;
    return 0;
}
/* The layer N of a "blk.N..." name (what sscanf("blk.%d.") reads), else dflt. */
static int lk__qm_layer(const char *name, int dflt) {
    const char *p = name + 4;
    int neg = 0;
    long v = 0;
    if (strncmp(name, "blk.", 4) != 0) return dflt;
    if (*p == '+' || *p == '-') { neg = *p == '-'; p++; }
    if (*p < '0' || *p > '9') return dflt;
    for (; *p >= '0' && *p <= '9'; p++) if (v < 100000000L) v = v * 10 + (*p - '0');
    return (int)(neg ? -v : v);
}
/* llama.cpp's "use more bits" layer pattern: the first and last eighth of
 * the layers and every third layer in between */
static int lk__qm_more_bits(int i_layer, int n_layers) {
    return i_layer < n_layers / 8 || i_layer >= 7 * n_layers / 8 || (i_layer - n_layers / 8) % 3 == 2;
}
static int lk__qm_n_gqa(const lk_quant_mix *m) { return m->n_head_kv > 0 ? m->n_head / m->n_head_kv : 0; }
/* <arch>.<suffix> as an int in [0, 2^31 - 1), else dflt */
static int lk__qm_meta_int(const lk_gguf *g, const char *arch, const char *suffix, int dflt) {
    char key[128];
    size_t a = strlen(arch), s = strlen(suffix);
    uint64_t v = 0;
    if (a + 1 + s + 1 > sizeof key) return dflt;
    memcpy(key, arch, a); key[a] = '.'; memcpy(key + a + 1, suffix, s + 1);
    if (lk_gguf_find_key(g, key) >= 0 && lk_gguf_get_u64_at(g, key, 0, &v) == LK_OK && v < 0x7fffffff) return (int)v;
    return dflt;
}

LKDEF void lk_quant_mix_init_shape(lk_quant_mix *m, const char *arch, int n_layer, int n_head, int n_head_kv, int n_expert) {
    size_t n = 0;
    if (!m) return;
    memset(m, 0, sizeof *m);
    if (arch) { while (arch[n] && n < sizeof m->arch - 1) n++; memcpy(m->arch, arch, n); }
    m->arch[n] = 0;
    m->n_layer = n_layer; m->n_head = n_head; m->n_head_kv = n_head_kv; m->n_expert = n_expert;
    m->is_70b = strcmp(m->arch, "llama") == 0 && n_layer == 80 && n_head != n_head_kv;
    m->has_output = 1;
    m->n_attention_wv = m->n_ffn_down = m->n_ffn_gate = m->n_ffn_up = n_layer;
}
LKDEF lk_status lk_quant_mix_init(lk_quant_mix *m, const lk_gguf *g) {
    char arch[64];
    lk_str s = { NULL, 0 };
    uint64_t i;
    int n_head;
    if (!m || !g) return lk_set_error(LK_ERR_INVALID_ARG, "lk_quant_mix_init: NULL argument");
    arch[0] = 0;
    if (lk_gguf_find_key(g, "general.architecture") >= 0 && lk_gguf_get_str(g, "general.architecture", &s) == LK_OK) {
        size_t n = s.len < sizeof arch - 1 ? (size_t)s.len : sizeof arch - 1;
        memcpy(arch, s.ptr, n);
        arch[n] = 0;
    }
    n_head = lk__qm_meta_int(g, arch, "attention.head_count", 0);
    lk_quant_mix_init_shape(m, arch, lk__qm_meta_int(g, arch, "block_count", 0), n_head,
                            lk__qm_meta_int(g, arch, "attention.head_count_kv", n_head), lk__qm_meta_int(g, arch, "expert_count", 0));
    m->n_attention_wv = 0;
    m->has_output = 0;
    for (i = 0; i < g->n_tensors; i++) {
        lk_str nm = g->tensors[i].name;
        if (lk__qm_str_has(nm, "attn_v.weight") || lk__qm_str_has(nm, "attn_qkv.weight") || lk__qm_str_has(nm, "attn_kv_b.weight"))
            m->n_attention_wv++;
        else if (lk_str_eq(nm, "output.weight"))
            m->has_output = 1;
    }
    return LK_OK;
}

LKDEF lk_type lk_quant_fallback_type(lk_type t, int64_t ne0) {
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
    if (ne0 % lk_type_get(t)->blck_size) t = LK_TYPE_F16;   /* blocks of 32 (or 1 for F16) */
    return t;
}

/* The rules below test the file type against sets of ids: LK__F(Q4_K_M) is
 * "ftype is LK_FTYPE_Q4_K_M". */
#define LK__F(x) (ftype == LK_FTYPE_##x)
LKDEF lk_type lk_quant_mix_type(lk_quant_mix *m, lk_type default_type, const char *name, int64_t ne0, lk_ftype ftype) {
    const lk_type_traits *tt = lk_type_get(default_type);
    lk_type t = default_type;
    int falcon;
    if (!m || !name || !tt || !tt->is_quantized) return default_type;
    falcon = strcmp(m->arch, "falcon") == 0;
    if (strcmp(name, "output.weight") == 0 || (!m->has_output && strcmp(name, "token_embd.weight") == 0)) {
        if (falcon || ne0 % tt->blck_size) t = LK_TYPE_Q8_0;
        else if (LK__F(IQ2_XXS) || LK__F(IQ2_XS) || LK__F(IQ3_XXS) || LK__F(IQ1_S) || LK__F(IQ2_S) || LK__F(IQ2_M) || LK__F(IQ1_M))
            t = LK_TYPE_Q5_K;
        else if (t != LK_TYPE_Q8_0) t = LK_TYPE_Q6_K;
    } else if (strcmp(name, "token_embd.weight") == 0) {
        if (LK__F(IQ2_XXS) || LK__F(IQ2_XS) || LK__F(IQ1_S) || LK__F(IQ1_M)) t = LK_TYPE_Q2_K;
        else if (LK__F(IQ2_S) || LK__F(IQ2_M) || LK__F(IQ3_XXS)) t = LK_TYPE_IQ3_S;
        else if (LK__F(TQ1_0) || LK__F(TQ2_0)) t = LK_TYPE_Q4_K;
    } else if (LK__F(IQ2_XXS) || LK__F(IQ2_XS) || LK__F(IQ1_S) || LK__F(IQ2_S) || LK__F(IQ2_M) || LK__F(IQ1_M)) {
        /* the 1- and 2-bit mixes */
        if (lk__qm_has(name, "attn_v.weight")) {
            if (lk__qm_n_gqa(m) >= 4 || m->n_expert >= 4) t = LK_TYPE_Q4_K;
            else t = LK__F(IQ2_S) || LK__F(IQ2_M) ? LK_TYPE_IQ3_S : LK_TYPE_Q2_K;
            ++m->i_attention_wv;
        } else if (m->n_expert == 8 && lk__qm_has(name, "attn_k.weight")) {
            t = LK_TYPE_Q4_K;
        } else if (lk__qm_has(name, "ffn_down")) {
            if (m->i_ffn_down < m->n_ffn_down / 8) t = LK__F(IQ2_S) || LK__F(IQ2_M) ? LK_TYPE_IQ3_S : LK_TYPE_Q2_K;
            ++m->i_ffn_down;
        } else if (lk__qm_has(name, "attn_output.weight")) {
            if (m->n_expert == 8) t = LK_TYPE_Q5_K;
            else if (LK__F(IQ1_S) || LK__F(IQ1_M)) t = LK_TYPE_IQ2_XXS;
            else if (LK__F(IQ2_S) || LK__F(IQ2_M)) t = LK_TYPE_IQ3_S;
        }
    } else if (lk__qm_has(name, "attn_v.weight")) {
        if (LK__F(Q2_K)) t = lk__qm_n_gqa(m) >= 4 ? LK_TYPE_Q4_K : LK_TYPE_Q3_K;
        else if (LK__F(Q2_K_S) && lk__qm_n_gqa(m) >= 4) t = LK_TYPE_Q4_K;
        else if (LK__F(IQ3_XXS)) t = lk__qm_n_gqa(m) >= 4 ? LK_TYPE_Q4_K : LK_TYPE_IQ3_S;   /* (no imatrix) */
        else if ((LK__F(IQ3_XS) || LK__F(IQ3_S)) && lk__qm_n_gqa(m) >= 4) t = LK_TYPE_Q4_K;
        else if (LK__F(IQ3_M)) t = LK_TYPE_Q4_K;
        else if (LK__F(Q3_K_M)) t = m->i_attention_wv < 2 ? LK_TYPE_Q5_K : LK_TYPE_Q4_K;
        else if (LK__F(Q3_K_L)) t = LK_TYPE_Q5_K;
        else if ((LK__F(IQ4_NL) || LK__F(IQ4_XS)) && lk__qm_n_gqa(m) >= 4) t = LK_TYPE_Q5_K;
        else if ((LK__F(Q4_K_M) || LK__F(Q5_K_M)) && lk__qm_more_bits(m->i_attention_wv, m->n_attention_wv)) t = LK_TYPE_Q6_K;
        else if (LK__F(Q4_K_S) && m->i_attention_wv < 4) t = LK_TYPE_Q5_K;
        if (m->is_70b && (t == LK_TYPE_Q3_K || t == LK_TYPE_Q4_K)) t = LK_TYPE_Q5_K;
        if (m->n_expert == 8) t = LK_TYPE_Q8_0;
        ++m->i_attention_wv;
    } else if (lk__qm_has(name, "attn_k.weight")) {
        if (m->n_expert == 8) t = LK_TYPE_Q8_0;
        else if (LK__F(IQ3_XS)) t = LK_TYPE_IQ3_XXS;
        else if (LK__F(IQ3_XXS)) t = LK_TYPE_IQ2_S;
    } else if (lk__qm_has(name, "attn_q.weight")) {
        if (LK__F(IQ3_XS)) t = LK_TYPE_IQ3_XXS;
        else if (LK__F(IQ3_XXS)) t = LK_TYPE_IQ2_S;
    } else if (lk__qm_has(name, "ffn_down")) {
        /* expert tensors hold all experts of a layer: their layer is in the name */
        int il = m->n_expert > 1 ? lk__qm_layer(name, m->i_ffn_down) : m->i_ffn_down, nl = m->n_ffn_down;
        if (LK__F(Q2_K)) t = LK_TYPE_Q3_K;
        else if (LK__F(Q2_K_S)) { if (il < nl / 8) t = LK_TYPE_Q4_K; }
        else if (LK__F(IQ3_XXS)) t = il < nl / 8 ? LK_TYPE_Q4_K : LK_TYPE_Q3_K;            /* (no imatrix) */
        else if (LK__F(Q3_K_M))
            t = il < nl / 16 ? LK_TYPE_Q5_K : !falcon || lk__qm_more_bits(il, nl) ? LK_TYPE_Q4_K : LK_TYPE_Q3_K;
        else if (LK__F(IQ3_M) && (il < nl / 8 || (m->n_expert == 8 && lk__qm_more_bits(il, nl)))) t = LK_TYPE_Q4_K;
        else if (LK__F(Q3_K_L)) t = falcon ? LK_TYPE_Q4_K : LK_TYPE_Q5_K;
        else if (LK__F(Q4_K_M)) {
            if (falcon) t = il < nl / 16 ? LK_TYPE_Q6_K : lk__qm_more_bits(il, nl) ? LK_TYPE_Q5_K : LK_TYPE_Q4_K;
            else if (lk__qm_more_bits(il, nl)) t = LK_TYPE_Q6_K;
        }
        else if (il < nl / 8 && (LK__F(IQ4_NL) || LK__F(IQ4_XS))) t = LK_TYPE_Q5_K;        /* (no imatrix) */
        else if (LK__F(Q5_K_M) && lk__qm_more_bits(il, nl)) t = LK_TYPE_Q6_K;
        else if (LK__F(Q4_K_S) && !falcon && il < nl / 8) t = LK_TYPE_Q5_K;
        /* (llama.cpp's Q4_0/Q5_0 first-layers rule needs an imatrix) */
        ++m->i_ffn_down;
    } else if (lk__qm_has(name, "attn_output.weight")) {
        if (!falcon) {
            if (m->n_expert == 8) {
                if (LK__F(Q2_K) || LK__F(IQ3_XS) || LK__F(IQ3_XXS) || LK__F(Q3_K_S) || LK__F(Q3_K_M) || LK__F(IQ4_NL) ||
                    LK__F(Q4_K_S) || LK__F(Q4_K_M) || LK__F(IQ3_S) || LK__F(IQ3_M) || LK__F(IQ4_XS)) t = LK_TYPE_Q5_K;
            } else {
                if (LK__F(Q2_K)) t = LK_TYPE_Q3_K;
                else if (LK__F(IQ3_XXS)) t = LK_TYPE_IQ3_S;
                else if (LK__F(Q3_K_M)) t = LK_TYPE_Q4_K;
                else if (LK__F(Q3_K_L)) t = LK_TYPE_Q5_K;
                else if (LK__F(IQ3_M)) t = LK_TYPE_Q4_K;
            }
        } else if (LK__F(Q3_K_L)) t = LK_TYPE_Q4_K;
    } else if (lk__qm_has(name, "attn_qkv.weight")) {
        if (LK__F(Q3_K_M) || LK__F(Q3_K_L) || LK__F(IQ3_M)) t = LK_TYPE_Q4_K;
        else if (LK__F(Q4_K_M)) t = LK_TYPE_Q5_K;
        else if (LK__F(Q5_K_M)) t = LK_TYPE_Q6_K;
    } else if (lk__qm_has(name, "ffn_gate")) {
        int il = m->n_expert > 1 ? lk__qm_layer(name, m->i_ffn_gate) : m->i_ffn_gate, nl = m->n_ffn_gate;
        if (LK__F(IQ3_XS) && il >= nl / 8 && il < 7 * nl / 8) t = LK_TYPE_IQ3_XXS;
        ++m->i_ffn_gate;
    } else if (lk__qm_has(name, "ffn_up")) {
        int il = m->n_expert > 1 ? lk__qm_layer(name, m->i_ffn_up) : m->i_ffn_up, nl = m->n_ffn_up;
        if (LK__F(IQ3_XS) && il >= nl / 8 && il < 7 * nl / 8) t = LK_TYPE_IQ3_XXS;
        ++m->i_ffn_up;
    }
    if (ne0 % lk_type_get(t)->blck_size) {
        t = lk_quant_fallback_type(t, ne0);
        ++m->n_fallback;
    } else {
        ++m->n_mixed;
    }
    return t;
}
#undef LK__F

LKDEF int lk_quant_wants_quantize(const char *name, int n_dims, int leave_output) {
    static const char *const never[] = { "_norm.weight", "ffn_gate_inp.weight", "ssm_conv1d.weight", "time_mix_first.weight",
                                         "time_mix_w1.weight", "time_mix_w2.weight", "time_mix_decay_w1.weight",
                                         "time_mix_decay_w2.weight", "time_mix_lerp_fused.weight", "attn_rel_b.weight" };
    size_t len, i;
    if (!name) return 0;
    len = strlen(name);
    if (len < 6 || strcmp(name + len - 6, "weight") != 0 || n_dims < 2) return 0;
    for (i = 0; i < sizeof never / sizeof never[0]; i++)
        if (strstr(name, never[i])) return 0;
    if (leave_output && strcmp(name, "output.weight") == 0) return 0;
    if (strcmp(name, "position_embd.weight") == 0 || strcmp(name, "token_types.weight") == 0) return 0;
    return 1;
}

LKDEF lk_quantize_gguf_params lk_quantize_gguf_default_params(void) {
    lk_quantize_gguf_params p;
    memset(&p, 0, sizeof p);
    p.ftype = LK_FTYPE_Q8_0;
    p.output_type = p.token_embd_type = LK_TYPE_NONE;
    p.threads = NULL; p.alloc = NULL; p.progress = NULL; p.progress_user = NULL;
    return p;
}

/* one tensor in llama.cpp's loader order: by layer ("blk.N."; others -1), then name */
typedef struct lk__qg_item { int64_t idx; int layer; const char *name; } lk__qg_item;
static int lk__qg_cmp(const void *a, const void *b) {
    const lk__qg_item *x = LK__CAST(const lk__qg_item *, a), *y = LK__CAST(const lk__qg_item *, b);
    if (x->layer != y->layer) return x->layer < y->layer ? -1 : 1;
    return strcmp(x->name, y->name);
}
/* rows are quantized independently, so splitting them over tasks gives the same bytes */
typedef struct lk__qg_job {
    lk_type type;
    const float *src;        /* [nrows][n_per_row]        */
    unsigned char *dst;      /* [nrows][row_size] bytes   */
    int64_t nrows, n_per_row;
    size_t row_size;
    int failed;
} lk__qg_job;
static void lk__qg_task(void *arg, int task, int n_tasks) {
    lk__qg_job *j = LK__CAST(lk__qg_job *, arg);
    int64_t r0 = j->nrows * task / n_tasks, r1 = j->nrows * (task + 1) / n_tasks;
    if (r1 > r0 && lk_quantize(j->type, j->src + r0 * j->n_per_row, j->dst + (size_t)r0 * j->row_size, r1 - r0, j->n_per_row, NULL))
        j->failed = 1;   /* (the message is thread-local: the caller sets its own) */
}
/* grow-only scratch buffer */
static void *lk__qg_reserve(const lk_allocator *a, void **buf, size_t *cap, size_t need) {
    if (need <= *cap) return *buf;
    lk__free(a, *buf, *cap);
    *cap = 0;
    *buf = lk__alloc(a, need);
    if (*buf) *cap = need;
    return *buf;
}

/* lk_quantize_gguf's working state: the allocator and grow-only buffers */
typedef struct lk__qg {
    lk_allocator a;
    const lk_quantize_gguf_params *p;
    const lk_ftype_info *fi;
    lk_quant_mix mix;
    int nt;                          /* threads                                   */
    void *key_buf, *f32_buf, *q_buf; /* a key; f32 rows of a tensor; its quantized rows */
    size_t key_cap, f32_cap, q_cap;
} lk__qg;

/* metadata copied in order (minus the keys the new file restates), then
 * quantization_version and file_type appended */
static lk_status lk__qg_metadata(lk__qg *q, const lk_gguf *in, lk_gguf_writer *w) {
    uint64_t k;
    lk_status st;
    for (k = 0; k < in->n_kv; k++) {
        const lk_gguf_kv *kv = &in->kv[k];
        char *key;
        if (lk_str_eq(kv->key, "general.quantization_version") || lk_str_eq(kv->key, "general.file_type") ||
            lk_str_eq(kv->key, "split.no") || lk_str_eq(kv->key, "split.count") || lk_str_eq(kv->key, "split.tensors.count"))
            continue;
        if (kv->key.len >= SIZE_MAX - 1 || !lk__qg_reserve(&q->a, &q->key_buf, &q->key_cap, (size_t)kv->key.len + 1))
            return lk_set_error(LK_ERR_NOMEM, "lk_quantize_gguf: out of memory");
        key = LK__CAST(char *, q->key_buf);
        memcpy(key, kv->key.ptr, (size_t)kv->key.len);
        key[kv->key.len] = 0;
        if (strcmp(key, "general.alignment") == 0 && kv->value.type == LK_GGUF_UINT32)
            st = lk_gguf_writer_set_alignment(w, (uint32_t)kv->value.v.u);
        else
            st = lk_gguf_writer_add_value(w, key, &kv->value);
        if (st) return st;
    }
    if ((st = lk_gguf_writer_add_u32(w, "general.quantization_version", 2))) return st;
    return lk_gguf_writer_add_u32(w, "general.file_type", (uint32_t)q->p->ftype);
}
/* the tensors' NUL-terminated names in names[], items[] sorted into
 * llama-quantize's order (caller frees both: n items, `total` name bytes) */
static lk_status lk__qg_order(lk__qg *q, const lk_gguf *in, lk__qg_item **items, char **names, size_t *names_size) {
    const int64_t n = (int64_t)in->n_tensors;
    uint64_t total = 0;
    size_t off = 0;
    int64_t i;
    for (i = 0; i < n; i++) total += in->tensors[i].name.len + 1;   /* <= file size */
    if (total > SIZE_MAX / 2) return lk_set_error(LK_ERR_RANGE, "lk_quantize_gguf: tensor names too long");
    *names_size = (size_t)total;
    *items = LK__CAST(lk__qg_item *, lk__alloc(&q->a, (size_t)(n ? n : 1) * sizeof **items));
    *names = LK__CAST(char *, lk__alloc(&q->a, *names_size));
    if (!*items || !*names) return lk_set_error(LK_ERR_NOMEM, "lk_quantize_gguf: out of memory");
    for (i = 0; i < n; i++) {
        lk_str nm = in->tensors[i].name;
        memcpy(*names + off, nm.ptr, (size_t)nm.len);
        (*names)[off + nm.len] = 0;
        (*items)[i].idx = i;
        (*items)[i].name = *names + off;
        (*items)[i].layer = lk__qm_layer((*items)[i].name, -1);
        off += (size_t)nm.len + 1;
    }
    if (n > 1) qsort(*items, (size_t)n, sizeof **items, lk__qg_cmp);
    return LK_OK;
}
/* the type one tensor gets: the file type's mix (or its base type with
 * pure), explicit output / token_embd types, a fallback when rows do not
 * fit; src_type when it is not quantized at all */
static lk_type lk__qg_pick(lk__qg *q, const lk_gguf_tensor *t, const char *name, const int64_t *ne, int n_dims) {
    const lk_quantize_gguf_params *p = q->p;
    lk_type type = q->fi->type;
    if (!lk_quant_wants_quantize(name, n_dims, p->leave_output)) return t->type;
    if (!p->pure) type = lk_quant_mix_type(&q->mix, type, name, ne[0], p->ftype);
    if (p->token_embd_type != LK_TYPE_NONE && strcmp(name, "token_embd.weight") == 0) type = p->token_embd_type;
    if (p->output_type != LK_TYPE_NONE && strcmp(name, "output.weight") == 0) type = p->output_type;
    if (ne[0] % lk_type_get(type)->blck_size) {      /* pure or explicit types */
        type = lk_quant_fallback_type(type, ne[0]);
        q->mix.n_fallback++;
    }
    return type;
}
/* quantize tensor t (nrows rows of ne0) to `type` into q->q_buf: from f32
 * directly, or dequantized first (floats; quantized types with
 * allow_requantize). *bytes = the new size */
static lk_status lk__qg_convert(lk__qg *q, const lk_gguf_tensor *t, const char *name, int64_t ne0, int64_t nrows, lk_type type, uint64_t *bytes) {
    const lk_type_traits *src_tt = lk_type_get(t->type), *dst_tt = lk_type_get(type);
    const size_t row_size = lk_row_size(type, ne0);
    uint64_t f32_bytes;
    const float *src;
    lk__qg_job job;
    if (!dst_tt->from_float) return lk_set_error(LK_ERR_UNSUPPORTED, "lk_quantize_gguf: %s: no quantizer for type %s", name, lk_type_name(type));
    if (!lk__mul_ok((uint64_t)ne0 * (uint64_t)nrows, sizeof(float), &f32_bytes) || !lk__mul_ok((uint64_t)nrows, row_size, bytes) ||
        f32_bytes > SIZE_MAX || *bytes > SIZE_MAX)
        return lk_set_error(LK_ERR_RANGE, "lk_quantize_gguf: %s: tensor too large", name);
    if (t->type == LK_TYPE_F32) src = LK__CAST(const float *, t->data);
    else if (src_tt && src_tt->to_float && (!src_tt->is_quantized || q->p->allow_requantize)) {
        const size_t src_row = lk_row_size(t->type, ne0);
        float *f = LK__CAST(float *, lk__qg_reserve(&q->a, &q->f32_buf, &q->f32_cap, (size_t)f32_bytes));
        int64_t r;
        if (!f) return lk_set_error(LK_ERR_NOMEM, "lk_quantize_gguf: %s: out of memory", name);
        for (r = 0; r < nrows; r++) src_tt->to_float(LK__CAST(const unsigned char *, t->data) + (size_t)r * src_row, f + r * ne0, ne0);
        src = f;
    } else
        return lk_set_error(LK_ERR_UNSUPPORTED, "lk_quantize_gguf: %s: requantizing from type %s is disabled (or impossible)", name,
                            lk_type_name(t->type));
    if (!lk__qg_reserve(&q->a, &q->q_buf, &q->q_cap, (size_t)*bytes)) return lk_set_error(LK_ERR_NOMEM, "lk_quantize_gguf: %s: out of memory", name);
    job.type = type; job.src = src; job.dst = LK__CAST(unsigned char *, q->q_buf);
    job.nrows = nrows; job.n_per_row = ne0; job.row_size = row_size; job.failed = 0;
    lk_parallel_for(q->p->threads, (int)(nrows < q->nt ? nrows : q->nt), lk__qg_task, &job);
    if (job.failed) return lk_set_error(LK_ERR_INVALID_ARG, "lk_quantize_gguf: %s: quantization to %s failed", name, lk_type_name(type));
    return LK_OK;
}

LKDEF lk_status lk_quantize_gguf(const lk_gguf *in, const lk_quantize_gguf_params *p, lk_gguf_writer **out, lk_quantize_gguf_stats *stats) {
    lk__qg q;
    lk_quantize_gguf_stats sum;
    lk__qg_item *items = NULL;
    char *names = NULL;
    size_t names_size = 0;
    int64_t i, n;
    lk_gguf_writer *w = NULL;
    lk_gguf_params wp = lk_gguf_default_params();
    lk_status st = LK_OK;

    if (out) *out = NULL;
    if (stats) memset(stats, 0, sizeof *stats);
    if (!in || !p || !out) return lk_set_error(LK_ERR_INVALID_ARG, "lk_quantize_gguf: NULL argument");
    memset(&q, 0, sizeof q);
    q.p = p;
    if (!(q.fi = lk_ftype_get(p->ftype))) return lk_set_error(LK_ERR_INVALID_ARG, "lk_quantize_gguf: unknown file type %d", (int)p->ftype);
    if ((p->output_type != LK_TYPE_NONE && !lk_type_get(p->output_type)) || (p->token_embd_type != LK_TYPE_NONE && !lk_type_get(p->token_embd_type)))
        return lk_set_error(LK_ERR_INVALID_ARG, "lk_quantize_gguf: unknown output (%d) or token embedding (%d) type", (int)p->output_type, (int)p->token_embd_type);
    if (in->n_tensors > (uint64_t)INT64_MAX / 2 || in->n_tensors > SIZE_MAX / sizeof(lk__qg_item))
        return lk_set_error(LK_ERR_RANGE, "lk_quantize_gguf: too many tensors");
    q.a = lk__resolve_alloc(p->alloc);
    q.nt = lk_threads_count(p->threads);
    n = (int64_t)in->n_tensors;
    memset(&sum, 0, sizeof sum);
    if ((st = lk_quant_mix_init(&q.mix, in))) return st;
    wp.alloc = &q.a;
    if ((st = lk_gguf_writer_new(&wp, &w))) return st;
    if ((st = lk__qg_metadata(&q, in, w)) || (st = lk__qg_order(&q, in, &items, &names, &names_size))) goto done;
    for (i = 0; i < n; i++) {   /* in llama-quantize's order */
        const lk_gguf_tensor *t = &in->tensors[items[i].idx];
        const char *name = items[i].name;
        int n_dims = 1, d, convert;
        int64_t ne[LK_MAX_DIMS];
        lk_type new_type;
        uint64_t new_size = t->nbytes;
        for (d = 0; d < LK_MAX_DIMS; d++) { ne[d] = d < t->n_dims ? t->ne[d] : 1; if (ne[d] > 1) n_dims = d + 1; }
        new_type = lk__qg_pick(&q, t, name, ne, n_dims);
        convert = new_type != t->type;
        if (convert && (st = lk__qg_convert(&q, t, name, ne[0], ne[1] * ne[2] * ne[3], new_type, &new_size))) goto done;
        if (convert) sum.n_converted++;
        /* quantized data is copied into the writer (q_buf is reused); the rest points into `in` */
        if ((st = lk_gguf_writer_add_tensor(w, name, new_type, n_dims, ne, convert ? q.q_buf : t->data, convert))) goto done;
        sum.src_bytes += t->nbytes;
        sum.dst_bytes += new_size;
        if (p->progress) {
            lk_quantize_gguf_progress ev;
            ev.index = i; ev.count = n; ev.name = name; ev.ne = ne;
            ev.src_type = t->type; ev.dst_type = new_type; ev.src_bytes = t->nbytes; ev.dst_bytes = new_size;
            ev.converted = convert;
            p->progress(p->progress_user, &ev);
        }
    }
    sum.n_fallback = q.mix.n_fallback;
    sum.n_mixed = q.mix.n_mixed;
done:
    lk__free(&q.a, items, (size_t)(n ? n : 1) * sizeof *items);
    lk__free(&q.a, names, names_size);
    lk__free(&q.a, q.key_buf, q.key_cap);
    lk__free(&q.a, q.f32_buf, q.f32_cap);
    lk__free(&q.a, q.q_buf, q.q_cap);
    if (st) { lk_gguf_writer_free(w); return st; }
    if (stats) *stats = sum;
    *out = w;
    return LK_OK;
}
/* end of 14.7c */

#endif /* LLMKIT_NO_QUANTIZE */
/* --------------------------------------------------------------------------
 * 14.8 Ops
 * -------------------------------------------------------------------------- */
/* y = x / sqrt(sum / n + eps) * w, given sum = the row's sum of squares */
static void lk__rmsnorm_fin(float *y, const float *x, const float *w, int n, float eps, double sum) {
    const float mean = (float)(sum / n), scale = 1.0f / sqrtf(mean + eps);
    int i;
    if (w) for (i = 0; i < n; i++) y[i] = (x[i] * scale) * w[i];
    else for (i = 0; i < n; i++) y[i] = x[i] * scale;
}
LKDEF void lk_rmsnorm(float *y, const float *x, const float *w, int n, float eps) {
    double sum = 0.0;     /* like ggml: float products, double accumulation in order */
    int i;
    for (i = 0; i < n; i++) sum += (double)(x[i] * x[i]);
    lk__rmsnorm_fin(y, x, w, n, eps, sum);
}
/* G contiguous rows of n (G <= 8, a constant at each call): each row's sum
 * is lk_rmsnorm's (the same products, added in the same order); the G
 * chains of dependent double adds run side by side */
LK__AINL void lk__rmsnorm_g(float *y, const float *x, const float *w, int n, float eps, int G) {
    double s[8] = { 0, 0, 0, 0, 0, 0, 0, 0 };
    int i, k;
    for (i = 0; i < n; i++)
        LK__UNROLL for (k = 0; k < G; k++) { const float v = x[(size_t)k * n + i]; s[k] += (double)(v * v); }
    LK__UNROLL for (k = 0; k < G; k++) lk__rmsnorm_fin(y + (size_t)k * n, x + (size_t)k * n, w, n, eps, s[k]);
}
/* rows x n, row r at x + r n (y may be x): lk_rmsnorm of each row, 8 or 4
 * at a time (one row alone is a chain of n dependent adds: its time is the
 * add latency, not the adds) */
static void lk__rmsnorm_rows(float *y, const float *x, const float *w, int n, int rows, float eps) {
    int r = 0;
    for (; r + 8 <= rows; r += 8) lk__rmsnorm_g(y + (size_t)r * n, x + (size_t)r * n, w, n, eps, 8);
    for (; r + 4 <= rows; r += 4) lk__rmsnorm_g(y + (size_t)r * n, x + (size_t)r * n, w, n, eps, 4);
    for (; r < rows; r++) lk_rmsnorm(y + (size_t)r * n, x + (size_t)r * n, w, n, eps);
}
LKDEF void lk_layernorm(float *y, const float *x, const float *w, const float *b, int n, float eps) {
    double sum = 0.0, sum2 = 0.0;
    float mean, var, scale;
    int i;
    for (i = 0; i < n; i++) sum += (double)x[i];
    mean = (float)(sum / n);
    for (i = 0; i < n; i++) { float d = x[i] - mean; y[i] = d; sum2 += (double)(d * d); }
    var = (float)(sum2 / n);
    scale = 1.0f / sqrtf(var + eps);
    for (i = 0; i < n; i++) {
        float v = y[i] * scale;
        if (w) v *= w[i];
        if (b) v += b[i];
        y[i] = v;
    }
}
LKDEF float lk_softmax(float *x, int n) {
    float mx = -INFINITY;
    double sum = 0.0;
    int i;
    for (i = 0; i < n; i++) if (x[i] > mx) mx = x[i];
    if (mx == -INFINITY) { for (i = 0; i < n; i++) x[i] = 0.0f; return -INFINITY; }
    for (i = 0; i < n; i++) { float e = expf(x[i] - mx); x[i] = e; sum += (double)e; }
    {
        float inv = (float)(1.0 / sum);
        for (i = 0; i < n; i++) x[i] *= inv;
    }
    return mx + (float)log(sum);
}
LKDEF float lk_silu(float x) { return x / (1.0f + expf(-x)); }
LKDEF void lk_hadamard(float *x, int n) {
    const float s = 1.0f / sqrtf((float)n);
    int h, i, j;
    for (h = 1; h < n; h *= 2)          /* butterflies: (a, b) -> (a + b, a - b) */
        for (i = 0; i < n; i += 2 * h)
            for (j = i; j < i + h; j++) { float a = x[j], b = x[j + h]; x[j] = a + b; x[j + h] = a - b; }
    for (i = 0; i < n; i++) x[i] *= s;
}
/* ggml's vector expf: n = round(x log2 e) by the 1.5*2^23 trick, b = x - n ln2
 * in two parts, a degree-5 polynomial j(b) ~ e^b, result j * 2^n; |n| > 192
 * saturates to 0 or inf. Every step is one float rounding (fmaf = fused). */
static float lk__expf_ggml(float x) {
    const float r = 1.258291200e+07f;             /* 0x1.8p23 */
    float z = fmaf(x, 1.442695022e+00f, r);
    float n = z - r;
    float b = fmaf(-n, 1.428606765e-06f, fmaf(-n, 6.931457520e-01f, x));
    float u = b * b;
    float j = fmaf(fmaf(fmaf(8.247390389e-03f, b, 4.189976677e-02f), u, fmaf(1.666839570e-01f, b, 4.999912679e-01f)), u,
                   fmaf(9.999994040e-01f, b, 1.0f));
    if (fabsf(n) > 192.0f) return n <= 0.0f ? 0.0f : INFINITY;
    return ldexpf(j, (int)n);
}
/* lk__expf_ggml on a vector, bit for bit: the same fused steps, and
 * j * 2^n by scalef (AVX-512: one rounding, = ldexpf) or, on AVX2, by an
 * exact power of two built in the exponent bits (|n| <= 126; vectors with a
 * larger |n| lane take the scalar function). */
#if defined(LK__X86_512)
LK__AINL __m512 lk__expf16_ggml(__m512 x) {
    const __m512 r = _mm512_set1_ps(1.258291200e+07f);
    __m512 z = _mm512_fmadd_ps(x, _mm512_set1_ps(1.442695022e+00f), r), n = _mm512_sub_ps(z, r);
    __m512 b = _mm512_fnmadd_ps(n, _mm512_set1_ps(1.428606765e-06f), _mm512_fnmadd_ps(n, _mm512_set1_ps(6.931457520e-01f), x));
    __m512 u = _mm512_mul_ps(b, b);
    __m512 j = _mm512_fmadd_ps(_mm512_fmadd_ps(_mm512_fmadd_ps(_mm512_set1_ps(8.247390389e-03f), b, _mm512_set1_ps(4.189976677e-02f)), u,
                                               _mm512_fmadd_ps(_mm512_set1_ps(1.666839570e-01f), b, _mm512_set1_ps(4.999912679e-01f))), u,
                               _mm512_fmadd_ps(_mm512_set1_ps(9.999994040e-01f), b, _mm512_set1_ps(1.0f)));
    __m512 e = _mm512_scalef_ps(j, n);
    __mmask16 big = _mm512_cmp_ps_mask(_mm512_abs_ps(n), _mm512_set1_ps(192.0f), _CMP_GT_OQ);
    if (big) {   /* 0 below, inf above (also -inf inputs) */
        __mmask16 neg = _mm512_cmp_ps_mask(n, _mm512_setzero_ps(), _CMP_LE_OQ);
        e = _mm512_mask_blend_ps(big, e, _mm512_mask_blend_ps(neg, _mm512_set1_ps(INFINITY), _mm512_setzero_ps()));
    }
    return e;
}
#endif
#if defined(LK__X86)
static LK__UNUSED __m256 lk__expf8_ggml(__m256 x) {
    const __m256 r = _mm256_set1_ps(1.258291200e+07f);
    __m256 z = _mm256_fmadd_ps(x, _mm256_set1_ps(1.442695022e+00f), r), n = _mm256_sub_ps(z, r);
    __m256 b = _mm256_fnmadd_ps(n, _mm256_set1_ps(1.428606765e-06f), _mm256_fnmadd_ps(n, _mm256_set1_ps(6.931457520e-01f), x));
    __m256 u = _mm256_mul_ps(b, b);
    __m256 j = _mm256_fmadd_ps(_mm256_fmadd_ps(_mm256_fmadd_ps(_mm256_set1_ps(8.247390389e-03f), b, _mm256_set1_ps(4.189976677e-02f)), u,
                                               _mm256_fmadd_ps(_mm256_set1_ps(1.666839570e-01f), b, _mm256_set1_ps(4.999912679e-01f))), u,
                               _mm256_fmadd_ps(_mm256_set1_ps(9.999994040e-01f), b, _mm256_set1_ps(1.0f)));
    __m256 an = _mm256_andnot_ps(_mm256_set1_ps(-0.0f), n);
    __m256 mid = _mm256_cmp_ps(an, _mm256_set1_ps(126.0f), _CMP_GT_OQ), e;
#define LK__POW2(k) _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(k), _mm256_set1_epi32(127)), 23))
    e = _mm256_mul_ps(j, LK__POW2(n));   /* |n| <= 126: exact powers of two (NaN lanes stay NaN through j) */
    if (_mm256_movemask_ps(mid)) {
        /* 126 < |n| <= 192: j 2^n1 (exact, normal) times 2^(n - n1), one
         * rounding like ldexpf; |n| > 192 (and infinite inputs): 0 or inf */
        __m256 n1 = _mm256_round_ps(_mm256_mul_ps(n, _mm256_set1_ps(0.5f)), _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
        __m256 big = _mm256_cmp_ps(an, _mm256_set1_ps(192.0f), _CMP_GT_OQ);
        __m256 sat = _mm256_blendv_ps(_mm256_set1_ps(INFINITY), _mm256_setzero_ps(), _mm256_cmp_ps(n, _mm256_setzero_ps(), _CMP_LE_OQ));
        e = _mm256_blendv_ps(e, _mm256_mul_ps(_mm256_mul_ps(j, LK__POW2(n1)), LK__POW2(_mm256_sub_ps(n, n1))), mid);
        e = _mm256_blendv_ps(e, sat, big);
    }
#undef LK__POW2
    return e;
}
#endif
LKDEF void lk_silu_row(float *y, const float *x, int n) {
    /* ggml's vector silu on multiples of 16, libm's expf on the rest */
    int i = 0, nv = n - n % 16;
#if defined(LK__X86_512)
    for (; i < nv; i += 16) {
        __m512 v = _mm512_loadu_ps(x + i);
        _mm512_storeu_ps(y + i, _mm512_div_ps(v, _mm512_add_ps(_mm512_set1_ps(1.0f), lk__expf16_ggml(_mm512_sub_ps(_mm512_setzero_ps(), v)))));
    }
#elif defined(LK__X86)
    for (; i < nv; i += 8) {
        __m256 v = _mm256_loadu_ps(x + i);
        _mm256_storeu_ps(y + i, _mm256_div_ps(v, _mm256_add_ps(_mm256_set1_ps(1.0f), lk__expf8_ggml(_mm256_sub_ps(_mm256_setzero_ps(), v)))));
    }
#endif
    for (; i < nv; i++) y[i] = x[i] / (1.0f + lk__expf_ggml(0.0f - x[i]));
    for (; i < n; i++) y[i] = lk_silu(x[i]);
}
static uint16_t lk__gelu_f16(uint16_t hb) {   /* the tanh GELU of an f16 value, rounded to f16 */
    const float c = 0.79788456080286535588f;  /* sqrt(2/pi) */
    const float h = lk_fp16_to_fp32(hb);
    return lk_fp32_to_fp16(0.5f * h * (1.0f + tanhf(c * h * (1.0f + 0.044715f * h * h))));
}
LKDEF float lk_gelu(float x) {
    if (x <= -10.0f) return 0.0f;
    if (x >= 10.0f) return x;
    return lk_fp16_to_fp32(lk__gelu_f16(lk_fp32_to_fp16(x)));
}

/* YaRN: the dims whose wavelength is between the fast and slow ramps */
static float lk__yarn_corr_dim(int n_dims, int n_ctx_orig, float n_rot, float base) {
    return (float)n_dims * logf((float)n_ctx_orig / (n_rot * 2.0f * 3.14159265358979323846f)) / (2.0f * logf(base));
}
LKDEF void lk_rope_apply(const lk_rope *r, float *x, int n_heads, int head_dim, int pos) {
    /* angle of pair i: pos * base^(-2i/n_rot), built by repeated
     * multiplication as ggml does; ext_factor mixes interpolated and
     * extrapolated angles (YaRN). x: [n_heads][head_dim] */
    float cs[2 * 512];
    float theta = (float)pos, theta_scale, lo = 0.0f, hi = 0.0f;
    int n_rot = r->n_rot, i, h;
    if (n_rot <= 0) return;
    if (n_rot > head_dim) n_rot = head_dim;
    if (n_rot > 1024) n_rot = 1024;
    theta_scale = powf(r->freq_base, -2.0f / (float)n_rot);
    if (r->ext_factor != 0.0f) {
        lo = floorf(lk__yarn_corr_dim(n_rot, r->n_ctx_orig, r->beta_fast, r->freq_base));
        hi = ceilf(lk__yarn_corr_dim(n_rot, r->n_ctx_orig, r->beta_slow, r->freq_base));
        if (lo < 0.0f) lo = 0.0f;
        if (hi > (float)(n_rot - 1)) hi = (float)(n_rot - 1);
    }
    for (i = 0; i < n_rot; i += 2) {
        float ff = r->freq_factors ? r->freq_factors[i / 2] : 1.0f;
        float extrap = theta / ff, interp = r->freq_scale * extrap, t = interp, ms = r->attn_factor;
        if (r->ext_factor != 0.0f) {
            float y = ((float)(i / 2) - lo) / (hi - lo > 0.001f ? hi - lo : 0.001f);
            float ramp = (1.0f - (y < 0.0f ? 0.0f : y > 1.0f ? 1.0f : y)) * r->ext_factor;
            t = interp * (1.0f - ramp) + extrap * ramp;
            ms *= 1.0f + 0.1f * logf(1.0f / r->freq_scale);
        }
        cs[i] = cosf(t) * ms; cs[i + 1] = sinf(t) * ms;
        theta *= theta_scale;
    }
    for (h = 0; h < n_heads; h++) {
        float *v = x + (size_t)h * head_dim;
        for (i = 0; i < n_rot; i += 2) {
            float c = cs[i], s = cs[i + 1];
            int a = r->mode == LK_ROPE_NEOX ? i / 2 : i;
            int b = r->mode == LK_ROPE_NEOX ? i / 2 + n_rot / 2 : i + 1;
            float x0 = v[a], x1 = v[b];
            v[a] = x0 * c - x1 * s;
            v[b] = x0 * s + x1 * c;
        }
    }
}

/* --------------------------------------------------------------------------
 * 14.9 Attention
 * -------------------------------------------------------------------------- */
/* No contraction of a*b + c in this section: ggml's attention ops round
 * where the C code says so, and fused steps are written as fmaf / fmadd. */
LK__STRICT_FP_BEGIN
LKDEF lk_attn_params lk_attn_default_params(int head_dim) {
    lk_attn_params p;
    memset(&p, 0, sizeof p);
    p.score = LK_ATTN_SOFTMAX; p.head_dim = head_dim;
    p.scale = head_dim > 0 ? 1.0f / sqrtf((float)head_dim) : 1.0f;
    p.causal = 1;
    p.lssar_p = 15.0f;
    return p;
}
LKDEF size_t lk_attn_scratch_floats(const lk_attn_params *p, int n_keys) {
    return (size_t)(n_keys > 0 ? n_keys : 0) + 16 * (size_t)(p && p->head_dim > 0 ? p->head_dim : 0) + 80;
}
/* 1 if key row r (position kpos) is masked for the query */
static int lk__attn_masked(const lk_attn_params *p, const lk_kv_view *kv, int r, int qpos, int kpos) {
    if (p->causal && kpos > qpos) return 1;
    if (p->window > 0 && qpos - kpos >= p->window && kpos >= p->n_sink) return 1;
    if (kv->seg && kv->seg[r] != p->qseg) return 1;
    if (p->tree_parent && r >= p->tree_row0 && r < p->tree_row0 + p->tree_n) {
        /* visible iff r is qrow or one of its ancestors; parents precede children */
        int x = p->qrow - p->tree_row0, want = r - p->tree_row0;
        if (x < 0 || x >= p->tree_n) return 1;
        while (x >= 0) {
            int par;
            if (x == want) return 0;
            if (x < want) return 1;
            par = p->tree_parent[x];
            if (par >= x) return 1;   /* malformed: parents must precede */
            x = par;
        }
        return 1;
    }
    return 0;
}
/* Row r, head h of K (which = 0) or V (1) as f32: a pointer into the cache
 * (f32) or into tmp (tmp: head_dim + 64 floats). Not for zip views. */
static const float *lk__kv_row(const lk_kv_view *kv, int which, int r, int h, int d, float *tmp) {
    const unsigned char *base = LK__CAST(const unsigned char *, which ? kv->v : kv->k) + (size_t)r * kv->row_stride;
    int i;
    if (kv->type == LK_TYPE_F32) return LK__CAST(const float *, base + (size_t)h * kv->head_stride);
    if (kv->type == LK_TYPE_F16) {
        const uint16_t *x = LK__CAST(const uint16_t *, base + (size_t)h * kv->head_stride);
        for (i = 0; i < d; i++) tmp[i] = lk_fp16_to_fp32(x[i]);
        return tmp;
    } else {   /* block types over the whole row: dequantize the blocks holding the head */
        const lk_type_traits *tt = lk_type_get(kv->type);
        int64_t e0 = (int64_t)h * d, bs = tt->blck_size, b0 = e0 / bs, b1 = (e0 + d - 1) / bs, b;
        for (b = b0; b <= b1; b++) tt->to_float(base + (size_t)b * tt->type_size, tmp + (b - b0) * bs, bs);
        return tmp + (e0 - b0 * bs);
    }
}
/* zip rows: codes of layer il, row r, head h */
static int lk__zip_code(const unsigned char *row, int bits, int i) {
    return bits == 4 ? (row[i >> 1] >> ((i & 1) * 4)) & 15 : (row[i >> 2] >> ((i & 3) * 2)) & 3;
}
static float lk__softplus(float x) { return (x > 0.0f ? x : 0.0f) + log1pf(expf(-fabsf(x))); }

/* Every variant, every storage type. s: scratch (n + 4 d floats). */
static void lk__attn_generic(const lk_attn_params *p, const float *q, int qpos, const lk_kv_view *kv, int kv_head,
                             float *out, float *lse, float *s) {
    const int d = p->head_dim, n = kv->idx ? kv->n_idx : kv->n_rows - kv->row0;
    const lk_kv_cache *z = kv->zip;
    float *qs = s + (n > 0 ? n : 0), *acc = qs + d, *tmp = acc + d;   /* tmp: 2d + 80 floats (>= d + 64 for block rows) */
    float mx = -INFINITY, qn = 0.0f, sumqs = 0.0f, accmn = 0.0f;
    double sum = 0.0;
    int j, i, cnt = 0, zq = 0, W = 1;
    const float *ks = NULL, *vs = NULL;
    for (i = 0; i < d; i++) { out[i] = 0.0f; acc[i] = 0.0f; qn += q[i] * q[i]; }
    qn = sqrtf(qn);
    if (z) {   /* fold the K channel scales into q: q.(c*(mn + step*code)) = mn sum(q c) + step (q c).code */
        zq = z->zq[kv->zip_layer]; W = z->zip_window;
        ks = z->zks + (size_t)kv->zip_layer * z->n_embd_k + (size_t)kv_head * d;
        vs = z->zvs + (size_t)kv->zip_layer * z->n_embd_v + (size_t)kv_head * d;
        for (i = 0; i < d; i++) { qs[i] = q[i] * ks[i]; sumqs += qs[i]; }
    }
    for (j = 0; j < n; j++) {
        int r = kv->idx ? kv->idx[j] : kv->row0 + j;
        int kpos = kv->pos ? kv->pos[r] : r;
        float dot = 0.0f, kn = 0.0f;
        if (lk__attn_masked(p, kv, r, qpos, kpos)) { s[j] = -INFINITY; continue; }
        if (z && r < zq) {
            const unsigned char *code = z->zk + ((size_t)kv->zip_layer * z->n_ctx + r) * z->zrow + (size_t)kv_head * d * z->zip_bits / 8;
            const uint16_t *ph = z->zkp + (((size_t)kv->zip_layer * z->n_ctx + r) * z->n_head_kv + kv_head) * 2;
            float cd = 0.0f, ps[2];
            ps[0] = lk_fp16_to_fp32(ph[0]); ps[1] = lk_fp16_to_fp32(ph[1]);
            for (i = 0; i < d; i++) cd += qs[i] * (float)lk__zip_code(code, z->zip_bits, i);
            dot = ps[0] * sumqs + ps[1] * cd;
            if (p->score != LK_ATTN_SOFTMAX)   /* |k| needs the dequantized row */
                for (i = 0; i < d; i++) { float x = ks[i] * (ps[0] + ps[1] * (float)lk__zip_code(code, z->zip_bits, i)); kn += x * x; }
        } else {
            lk_kv_view rv = *kv;
            const float *k;
            int rr = r;
            if (z) {   /* window ring row */
                rv.type = z->type; rv.row_stride = z->row_k; rv.head_stride = (size_t)d * (z->type == LK_TYPE_F16 ? 2 : 4);
                rv.k = z->k + (size_t)kv->zip_layer * W * z->row_k;
                rr = r % W;
            }
            k = lk__kv_row(&rv, 0, rr, kv_head, d, tmp);
            for (i = 0; i < d; i++) { dot += q[i] * k[i]; kn += k[i] * k[i]; }
        }
        cnt++;
        if (p->score == LK_ATTN_SOFTMAX) {
            if (p->softcap > 0.0f) dot = p->softcap * tanhf(dot * (1.0f / p->softcap));
            dot *= p->scale;
            if (p->alibi_slope != 0.0f) dot += p->alibi_slope * (float)(kpos - qpos);
        } else {
            kn = sqrtf(kn);
            dot = qn > 0.0f && kn > 0.0f ? dot / (qn * kn) : 0.0f;   /* q^.k^ */
        }
        s[j] = dot;
        if (dot > mx || dot != dot) mx = dot;   /* NaN sticks */
    }
    if (cnt == 0) { if (lse) *lse = -INFINITY; return; }
    if (p->score == LK_ATTN_SOFTMAX) {
        float inv;
        for (j = 0; j < n; j++) { float e = s[j] == -INFINITY ? 0.0f : expf(s[j] - mx); s[j] = e; sum += (double)e; }
        inv = (float)(1.0 / sum);
        for (j = 0; j < n; j++) s[j] *= inv;
        if (lse) *lse = mx + (float)log(sum);
    } else {
        /* LSSA: a = softplus(ln d ln N cos), A = a / (sum a + 1e-8) */
        float f = logf((float)d) * logf((float)cnt);
        double den;
        for (j = 0; j < n; j++) { float a = s[j] == -INFINITY ? 0.0f : lk__softplus(f * s[j]); s[j] = a; sum += (double)a; }
        den = sum + 1e-8;
        for (j = 0; j < n; j++) s[j] = (float)((double)s[j] / den);
        if (lse) *lse = (float)log(sum);
        if (p->score == LK_ATTN_LSSAR) {
            /* B = ReLU(N A - O)^p, O = 0 for the first 3 rows; divide by max first */
            double o = qpos < 3 ? 0.0 : 1.0, m = 0.0, sb = 0.0, pw = p->lssar_p, epsn;
            for (j = 0; j < n; j++) { double u = (double)cnt * s[j] - o; u = u > 0.0 ? u : 0.0; s[j] = (float)u; if (u > m) m = u; }
            for (i = 0; i < d; i++) out[i] = 0.0f;
            if (m <= 0.0) {
                for (j = 0; j < n; j++) s[j] = 0.0f;
                if (lse) *lse = -INFINITY;
            } else {
                for (j = 0; j < n; j++) { double b = s[j] > 0.0f ? pow((double)s[j] / m, pw) : 0.0; s[j] = (float)b; sb += b; }
                epsn = 1e-8 * exp(-pw * log(m));          /* 1e-8 / m^p, may be inf only when B is tiny */
                for (j = 0; j < n; j++) s[j] = (float)((double)s[j] / (sb + epsn));
                if (lse) *lse = (float)(pw * log(m) + log(sb));
            }
        }
    }
    for (j = 0; j < n; j++) {
        int r = kv->idx ? kv->idx[j] : kv->row0 + j;
        float w = s[j];
        if (w == 0.0f) continue;
        if (z && r < zq) {
            const unsigned char *code = z->zv + ((size_t)kv->zip_layer * z->n_ctx + r) * z->zrow + (size_t)kv_head * d * z->zip_bits / 8;
            const uint16_t *ph = z->zvp + (((size_t)kv->zip_layer * z->n_ctx + r) * z->n_head_kv + kv_head) * 2;
            float ps[2], ws;
            ps[0] = lk_fp16_to_fp32(ph[0]); ps[1] = lk_fp16_to_fp32(ph[1]);
            ws = w * ps[1];
            accmn += w * ps[0];
            for (i = 0; i < d; i++) acc[i] += ws * (float)lk__zip_code(code, z->zip_bits, i);
        } else {
            lk_kv_view rv = *kv;
            const float *v;
            int rr = r;
            if (z) {
                rv.type = z->type; rv.row_stride = z->row_v; rv.head_stride = (size_t)d * (z->type == LK_TYPE_F16 ? 2 : 4);
                rv.v = z->v + (size_t)kv->zip_layer * W * z->row_v;
                rr = r % W;
            }
            v = lk__kv_row(&rv, 1, rr, kv_head, d, tmp);
            for (i = 0; i < d; i++) out[i] += w * v[i];
        }
    }
    if (z) for (i = 0; i < d; i++) out[i] += vs[i] * (accmn + acc[i]);   /* fold the V channel scales into the output */
}

/* ---- K.Q, softmax and V.P in llama.cpp's order ---------------------------
 * llama.cpp (c392e5094, x86 AVX-512 build, no flash attention: the build
 * that made the fixtures) computes a layer's attention as three ggml ops,
 * and each op fixes a summation order. Following them makes every F32
 * fixture model agree with llama.cpp bit for bit at every position:
 *   K.Q   mul_mat(k, q). f32 cache: q is a permuted view, so ggml's
 *         vec_dot_f32 runs: elements [0, d & ~63) in 4 x 16 fused lanes
 *         (lk__dot64), then each further element's product is rounded and
 *         added (that build does not fuse this tail). f16 cache: q is first
 *         converted to f16, which makes it contiguous, and llamafile's
 *         tinyBLAS runs when d % 16 == 0: element i goes to lane i % 16 by
 *         fused multiply-add, the lanes are reduced as _mm512_reduce_add_ps
 *         (lk__hsum16). Other d fall back to ggml's vec_dot_f16: the
 *         lk__dot64 part, then the exact f16 x f16 products summed in double.
 *   softmax  ggml_vec_soft_max_f32 over the n_kv cells, a multiple of 32:
 *         exp of 16 keys at a time, each group reduced by lk__hsum16 and
 *         added to a double. Masked keys are exact zeros, so a key list that
 *         stops early gives the same sum when its last group is padded with
 *         zeros.
 *   V.P   mul_mat(v^T, p) of a batch of two or more tokens runs tinyBLAS:
 *         key j goes to lane j % 16 by fused multiply-add, and the lanes are
 *         reduced by lk__hsum16. (llama.cpp runs a one-token batch through
 *         ggml_vec_dot instead. We keep one order for every batch size, so
 *         results never depend on how a prompt is chunked; one-token decode
 *         then differs from llama.cpp's in the last bits.)
 * The implementation is compiled without contraction (see 14.9's pragma),
 * so a*b + c below is two roundings unless written as fmaf. */

/* ---- the softmax fast path, in stages: raw dots, mask + transform, exp,
 * weights, weighted sum of V. Each stage has a scalar reference (_ref) and,
 * where it pays, an x86 SIMD version with the same bits (test_simd.c). */
static const unsigned char *lk__key_ptr(const lk_kv_view *kv, const void *base, int j, size_t hoff) {
    int r = kv->idx ? kv->idx[j] : kv->row0 + j;
    return LK__CAST(const unsigned char *, base) + (size_t)r * kv->row_stride + hoff;
}
static float lk__kv_elem(const unsigned char *p, int f16, int i) {
    return f16 ? lk_fp16_to_fp32(LK__CAST(const uint16_t *, p)[i]) : LK__CAST(const float *, p)[i];
}
/* K.Q of one key in llama.cpp's order (see above; the float dots of 14.7a).
 * q: [d] floats, kp: the key's head, f16 or f32 */
static float lk__kq_ref(const float *q, const unsigned char *kp, int f16, int d) {
    const int d64 = d & ~63;
    if (f16) return lk__vdot_flt_ref(d, q, 0, kp, 1, 1);   /* tinyBLAS, or vec_dot_f16 */
    return lk__vdot_tail(d64 ? lk__dot64_ref(q, 0, kp, 0, d64) : 0.0f, q, 0, kp, 0, d64, d, 0);   /* vec_dot_f32 */
}
/* s[j] = q . k_j for keys [j0, n) of the view (head at byte offset hoff).
 * SIMD: lk__attn_dots. */
static void lk__attn_dots_ref(const float *q, const lk_kv_view *kv, size_t hoff, int d, int j0, int n, float *s) {
    const int f16 = kv->type == LK_TYPE_F16;
    int j;
    for (j = j0; j < n; j++) s[j] = lk__kq_ref(q, lk__key_ptr(kv, kv->k, j, hoff), f16, d);
}
#if defined(LK__X86)
#define LK__KV8(kp, c) (f16 ? _mm256_cvtph_ps(_mm_loadu_si128(LK__CAST(const __m128i *, (kp) + 2 * (c)))) : _mm256_loadu_ps(LK__CAST(const float *, (kp)) + (c)))
/* the 8 keys p[0..8) at elements [c, c + 8): afterwards R<i> = element c + i of keys 0..7 */
#define LK__LD8T(R, P, c) do { R##0 = LK__KV8(P[0], c); R##1 = LK__KV8(P[1], c); R##2 = LK__KV8(P[2], c); R##3 = LK__KV8(P[3], c); \
                               R##4 = LK__KV8(P[4], c); R##5 = LK__KV8(P[5], c); R##6 = LK__KV8(P[6], c); R##7 = LK__KV8(P[7], c); \
                               LK__TR8(R##0, R##1, R##2, R##3, R##4, R##5, R##6, R##7); } while (0)
/* 8 keys in the lanes, elements [e0, e1) in order (e1 - e0 a multiple of 8):
 * f32: acc += round(q_i k_i) (lk__kq_ref's tail); f16: the exact products
 * summed in double into lo (keys 0-3) and hi (keys 4-7). */
static __m256 lk__kq8_seq_x(const float *q, const unsigned char *const *p, int f16, int e0, int e1, __m256 acc, __m256d *lo, __m256d *hi) {
    __m256 r0, r1, r2, r3, r4, r5, r6, r7;
    int c;
    for (c = e0; c < e1; c += 8) {
        LK__LD8T(r, p, c);
#define LK__M1(x, i) do { __m256 pr_ = _mm256_mul_ps(_mm256_set1_ps(q[c + (i)]), r##x); \
            if (f16) { *lo = _mm256_add_pd(*lo, _mm256_cvtps_pd(_mm256_castps256_ps128(pr_))); *hi = _mm256_add_pd(*hi, _mm256_cvtps_pd(_mm256_extractf128_ps(pr_, 1))); } \
            else acc = _mm256_add_ps(acc, pr_); } while (0)
        LK__M1(0, 0); LK__M1(1, 1); LK__M1(2, 2); LK__M1(3, 3); LK__M1(4, 4); LK__M1(5, 5); LK__M1(6, 6); LK__M1(7, 7);
#undef LK__M1
    }
    return acc;
}
#endif
#if defined(LK__X86)
/* head_dim 8 (tiny models): keys [0, n & ~7) of lk__attn_dots_ref, 8 per step
 * through one in-register transpose, q's broadcasts held in registers, the
 * 8 key pointers in registers (f16 a compile-time constant at each call).
 * With q2 (a second query head of the same KV head) each transposed key
 * block serves both: s2[j] = q2 . k_j, the same operations. */
LK__AINL int lk__attn_dots8_x(const float *q, const float *q2, const lk_kv_view *kv, size_t hoff, int n, float *s, float *s2, int f16) {
    const __m256 q0 = _mm256_set1_ps(q[0]), q1 = _mm256_set1_ps(q[1]), q2_ = _mm256_set1_ps(q[2]), q3 = _mm256_set1_ps(q[3]);
    const __m256 q4 = _mm256_set1_ps(q[4]), q5 = _mm256_set1_ps(q[5]), q6 = _mm256_set1_ps(q[6]), q7 = _mm256_set1_ps(q[7]);
    const size_t rs = kv->row_stride;
    int j;
    for (j = 0; j + 8 <= n; j += 8) {
        const unsigned char *pk[8];
        __m256 r0, r1, r2, r3, r4, r5, r6, r7;
        if (kv->idx) {
            pk[0] = lk__key_ptr(kv, kv->k, j, hoff); pk[1] = lk__key_ptr(kv, kv->k, j + 1, hoff); pk[2] = lk__key_ptr(kv, kv->k, j + 2, hoff); pk[3] = lk__key_ptr(kv, kv->k, j + 3, hoff);
            pk[4] = lk__key_ptr(kv, kv->k, j + 4, hoff); pk[5] = lk__key_ptr(kv, kv->k, j + 5, hoff); pk[6] = lk__key_ptr(kv, kv->k, j + 6, hoff); pk[7] = lk__key_ptr(kv, kv->k, j + 7, hoff);
        } else {
            pk[0] = lk__key_ptr(kv, kv->k, j, hoff);
            pk[1] = pk[0] + rs; pk[2] = pk[1] + rs; pk[3] = pk[2] + rs; pk[4] = pk[3] + rs; pk[5] = pk[4] + rs; pk[6] = pk[5] + rs; pk[7] = pk[6] + rs;
        }
        LK__LD8T(r, pk, 0);
        if (f16) {   /* exact products summed in double (lk__vdot_tail with dbl) */
            __m256d lo = _mm256_setzero_pd(), hi = lo;
#define LK__M2(r, qq) do { const __m256 pr_ = _mm256_mul_ps(qq, r); lo = _mm256_add_pd(lo, _mm256_cvtps_pd(_mm256_castps256_ps128(pr_))); \
                           hi = _mm256_add_pd(hi, _mm256_cvtps_pd(_mm256_extractf128_ps(pr_, 1))); } while (0)
            LK__M2(r0, q0); LK__M2(r1, q1); LK__M2(r2, q2_); LK__M2(r3, q3); LK__M2(r4, q4); LK__M2(r5, q5); LK__M2(r6, q6); LK__M2(r7, q7);
            _mm256_storeu_ps(s + j, _mm256_set_m128(_mm256_cvtpd_ps(hi), _mm256_cvtpd_ps(lo)));
            if (q2) {
                lo = hi = _mm256_setzero_pd();
                LK__M2(r0, _mm256_set1_ps(q2[0])); LK__M2(r1, _mm256_set1_ps(q2[1])); LK__M2(r2, _mm256_set1_ps(q2[2])); LK__M2(r3, _mm256_set1_ps(q2[3]));
                LK__M2(r4, _mm256_set1_ps(q2[4])); LK__M2(r5, _mm256_set1_ps(q2[5])); LK__M2(r6, _mm256_set1_ps(q2[6])); LK__M2(r7, _mm256_set1_ps(q2[7]));
                _mm256_storeu_ps(s2 + j, _mm256_set_m128(_mm256_cvtpd_ps(hi), _mm256_cvtpd_ps(lo)));
            }
#undef LK__M2
        } else {   /* rounded products added in order, from 0 (0 + (-0) = +0, as the reference) */
#define LK__M3(out, a0, a1, a2, a3, a4, a5, a6, a7) do { __m256 acc_ = _mm256_add_ps(_mm256_setzero_ps(), _mm256_mul_ps(a0, r0)); \
            acc_ = _mm256_add_ps(acc_, _mm256_mul_ps(a1, r1)); acc_ = _mm256_add_ps(acc_, _mm256_mul_ps(a2, r2)); acc_ = _mm256_add_ps(acc_, _mm256_mul_ps(a3, r3)); \
            acc_ = _mm256_add_ps(acc_, _mm256_mul_ps(a4, r4)); acc_ = _mm256_add_ps(acc_, _mm256_mul_ps(a5, r5)); acc_ = _mm256_add_ps(acc_, _mm256_mul_ps(a6, r6)); \
            _mm256_storeu_ps(out, _mm256_add_ps(acc_, _mm256_mul_ps(a7, r7))); } while (0)
            LK__M3(s + j, q0, q1, q2_, q3, q4, q5, q6, q7);
            if (q2) LK__M3(s2 + j, _mm256_set1_ps(q2[0]), _mm256_set1_ps(q2[1]), _mm256_set1_ps(q2[2]), _mm256_set1_ps(q2[3]),
                           _mm256_set1_ps(q2[4]), _mm256_set1_ps(q2[5]), _mm256_set1_ps(q2[6]), _mm256_set1_ps(q2[7]));
#undef LK__M3
        }
    }
    return j;
}
#endif
static void lk__attn_dots(const float *q, const lk_kv_view *kv, size_t hoff, int d, int n, float *s) {
    int j = 0;
#if defined(LK__X86)
    const int f16 = kv->type == LK_TYPE_F16, d64 = d & ~63;
    if (d == 8) j = f16 ? lk__attn_dots8_x(q, NULL, kv, hoff, n, s, NULL, 1) : lk__attn_dots8_x(q, NULL, kv, hoff, n, s, NULL, 0);
    else if (f16 && d % 16 == 0) {   /* tinyBLAS: 16 lanes as two registers, one key at a time */
        for (; j < n; j++) {
            const unsigned char *kp = lk__key_ptr(kv, kv->k, j, hoff);
            __m256 lo = _mm256_setzero_ps(), hi = lo;
            int c;
            for (c = 0; c < d; c += 16) {
                lo = _mm256_fmadd_ps(_mm256_loadu_ps(q + c), LK__KV8(kp, c), lo);
                hi = _mm256_fmadd_ps(_mm256_loadu_ps(q + c + 8), LK__KV8(kp, c + 8), hi);
            }
            s[j] = lk__red16_x(lo, hi);
        }
    } else if (d % 8 == 0) {   /* 8 keys at a time, transposed so that each lane runs one key's sequence */
        for (; j + 8 <= n; j += 8) {
            const unsigned char *pk[8];
            __m256d lo, hi;
            __m256 acc = _mm256_setzero_ps();
            int l;
            for (l = 0; l < 8; l++) pk[l] = lk__key_ptr(kv, kv->k, j + l, hoff);
            if (d64) {   /* (built in registers: 8 scalar stores read back as one vector would stall) */
                acc = _mm256_setr_ps(lk__dot64(q, 0, pk[0], f16, d64), lk__dot64(q, 0, pk[1], f16, d64), lk__dot64(q, 0, pk[2], f16, d64), lk__dot64(q, 0, pk[3], f16, d64),
                                     lk__dot64(q, 0, pk[4], f16, d64), lk__dot64(q, 0, pk[5], f16, d64), lk__dot64(q, 0, pk[6], f16, d64), lk__dot64(q, 0, pk[7], f16, d64));
            }
            lo = _mm256_cvtps_pd(_mm256_castps256_ps128(acc)); hi = _mm256_cvtps_pd(_mm256_extractf128_ps(acc, 1));
            acc = lk__kq8_seq_x(q, pk, f16, d64, d, acc, &lo, &hi);
            if (f16) acc = _mm256_set_m128(_mm256_cvtpd_ps(hi), _mm256_cvtpd_ps(lo));
            _mm256_storeu_ps(s + j, acc);
        }
    }
#endif
    lk__attn_dots_ref(q, kv, hoff, d, j, n, s);
}

/* s[j] = exp(s[j] - mx) with ggml's vector expf (lk__expf_ggml), and their
 * sum as ggml's softmax forms it: each group of 16 keys (from key 0) reduced
 * by lk__hsum16 and added to a double; a last, shorter group is padded with
 * zeros. -inf gives 0. SIMD: lk__attn_exp. */
static double lk__attn_exp_ref(float *s, int j0, int n, float mx) {
    double sum = 0.0;
    int j, l;
    for (j = j0; j < n; j += 16) {
        float t[16];
        for (l = 0; l < 16; l++) t[l] = j + l < n ? (s[j + l] = lk__expf_ggml(s[j + l] - mx)) : 0.0f;
        sum += (double)lk__hsum16(t);
    }
    return sum;
}
static double lk__attn_exp(float *s, int n, float mx) {
    double sum = 0.0;
    int j = 0;
#if defined(LK__X86_512)
    for (; j + 16 <= n; j += 16) {
        __m512 e = lk__expf16_ggml(_mm512_sub_ps(_mm512_loadu_ps(s + j), _mm512_set1_ps(mx)));
        _mm512_storeu_ps(s + j, e);
        sum += (double)_mm512_reduce_add_ps(e);
    }
    if (j < n) {   /* the last group (m < 16 keys): the other lanes -inf (exp 0), masked load and store */
        const __mmask16 k = (__mmask16)((1u << (n - j)) - 1u);
        __m512 e = lk__expf16_ggml(_mm512_sub_ps(_mm512_mask_loadu_ps(_mm512_set1_ps(-INFINITY), k, s + j), _mm512_set1_ps(mx)));
        _mm512_mask_storeu_ps(s + j, k, e);
        sum += (double)_mm512_reduce_add_ps(e);
        j = n;
    }
#elif defined(LK__X86)
    for (; j + 16 <= n; j += 16) {
        const __m256 lo = lk__expf8_ggml(_mm256_sub_ps(_mm256_loadu_ps(s + j), _mm256_set1_ps(mx)));
        const __m256 hi = lk__expf8_ggml(_mm256_sub_ps(_mm256_loadu_ps(s + j + 8), _mm256_set1_ps(mx)));
        _mm256_storeu_ps(s + j, lo); _mm256_storeu_ps(s + j + 8, hi);
        sum += (double)lk__red16_x(lo, hi);
    }
    if (j < n) {   /* the last group (m < 16 keys) padded with -inf (exp 0), by masked loads and stores */
        const __m256i iota = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7), m = _mm256_set1_epi32(n - j);
        const __m256i k0 = _mm256_cmpgt_epi32(m, iota), k1 = _mm256_cmpgt_epi32(m, _mm256_add_epi32(iota, _mm256_set1_epi32(8)));
        const __m256 ninf = _mm256_set1_ps(-INFINITY);
        const __m256 lo = lk__expf8_ggml(_mm256_sub_ps(_mm256_blendv_ps(ninf, _mm256_maskload_ps(s + j, k0), _mm256_castsi256_ps(k0)), _mm256_set1_ps(mx)));
        const __m256 hi = lk__expf8_ggml(_mm256_sub_ps(_mm256_blendv_ps(ninf, _mm256_maskload_ps(s + j + 8, k1), _mm256_castsi256_ps(k1)), _mm256_set1_ps(mx)));
        _mm256_maskstore_ps(s + j, k0, lo); _mm256_maskstore_ps(s + j + 8, k1, hi);
        sum += (double)lk__red16_x(lo, hi);
        j = n;
    }
#endif
    return sum + lk__attn_exp_ref(s, j, n, mx);
}

/* s[j] *= inv: the softmax weights (rounded to f16 when f16w, as ggml
 * does for the V.P product with an f16 cache). */
static void lk__attn_weights(float *s, int n, float inv, int f16w) {
    int j = 0;
#if defined(LK__X86)
    const __m256 vi = _mm256_set1_ps(inv);
    for (; j + 8 <= n; j += 8) {
        __m256 w = _mm256_mul_ps(_mm256_loadu_ps(s + j), vi);
        if (f16w) w = _mm256_cvtph_ps(_mm256_cvtps_ph(w, _MM_FROUND_TO_NEAREST_INT));
        _mm256_storeu_ps(s + j, w);
    }
#endif
    for (; j < n; j++) { s[j] *= inv; if (f16w) s[j] = lk_fp16_to_fp32(lk_fp32_to_fp16(s[j])); }
}
/* y[i] = x[i] rounded to f16 and back, as lk_fp32_to_fp16 rounds (ggml's
 * f16 rounding of q for the f16 K.Q product): F16C for groups of 8 without
 * NaN (the same result for every other value), the scalar path otherwise */
static void lk__f16_round(float *y, const float *x, int n) {
    int i = 0;
#if defined(LK__X86)
    for (; i + 8 <= n; i += 8) {
        const __m256 v = _mm256_loadu_ps(x + i);
        if (_mm256_movemask_ps(_mm256_cmp_ps(v, v, _CMP_UNORD_Q))) break;
        _mm256_storeu_ps(y + i, _mm256_cvtph_ps(_mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT)));
    }
#endif
    for (; i < n; i++) y[i] = lk_fp16_to_fp32(lk_fp32_to_fp16(x[i]));
}
/* V.P in tinyBLAS's order, for V rows that come one at a time (dequantized
 * q8_0 / q4_0 rows): acc holds 16 lanes of d floats; key j adds w v_j into
 * lane j % 16 by fma (lk__vsum_add); lk__vsum_finish reduces the lanes of
 * each output element by lk__hsum16. A key of weight 0 adds exactly nothing
 * (finite V), so masked keys may be left out. */
static void lk__vsum_add(float *acc, int j, float w, const float *v, int d) {
    float *a = acc + (size_t)(j & 15) * d;
    int i = 0;
#if defined(LK__X86)
    const __m256 wv = _mm256_set1_ps(w);
    for (; i + 8 <= d; i += 8) _mm256_storeu_ps(a + i, _mm256_fmadd_ps(wv, _mm256_loadu_ps(v + i), _mm256_loadu_ps(a + i)));
#endif
    for (; i < d; i++) a[i] = fmaf(w, v[i], a[i]);
}
static void lk__vsum_finish(const float *acc, int d, float *out) {
    int i, l;
    for (i = 0; i < d; i++) {
        float t[16];
        for (l = 0; l < 16; l++) t[l] = acc[(size_t)l * d + i];
        out[i] = lk__hsum16(t);
    }
}
/* out[i] for i in [i0, d): sum_j w_j v_j over the n keys of the view, key j
 * into lane j % 16 by fma, the lanes reduced by lk__hsum16. SIMD:
 * lk__attn_vsum. */
static void lk__attn_vsum_ref(const lk_kv_view *kv, size_t hoff, int d, int i0, int n, const float *w, float *out) {
    const int f16 = kv->type == LK_TYPE_F16;
    int j, i, l;
    for (i = i0; i < d; i++) {
        float t[16];
        for (l = 0; l < 16; l++) t[l] = 0.0f;
        for (j = 0; j < n; j++) t[j & 15] = fmaf(w[j], lk__kv_elem(lk__key_ptr(kv, kv->v, j, hoff), f16, i), t[j & 15]);
        out[i] = lk__hsum16(t);
    }
}
#if defined(LK__X86)
/* x[l] (l < 8) = sum by fma of w_j v_j[c, c + 8) over keys j = j0 + l (mod 16),
 * j0 = 0 or 8: lanes j0 .. j0 + 7 of lk__attn_vsum_ref, in named registers
 * (an array indexed in the loop would live in memory) */
static void lk__vsum_lanes8(const lk_kv_view *kv, size_t hoff, int c, int j0, int n, const float *w, __m256 *x) {
    const int f16 = kv->type == LK_TYPE_F16;
    const size_t rs = kv->row_stride;
    const unsigned char *vb = LK__CAST(const unsigned char *, kv->v) + (size_t)kv->row0 * rs + hoff;   /* contiguous rows: key j at vb + j rs */
    __m256 x0 = _mm256_setzero_ps(), x1 = x0, x2 = x0, x3 = x0, x4 = x0, x5 = x0, x6 = x0, x7 = x0;
    int j = j0;
#define LK__VA(l) do { const unsigned char *vp_ = kv->idx ? lk__key_ptr(kv, kv->v, j + (l), hoff) : vb + (size_t)(j + (l)) * rs; \
                       x##l = _mm256_fmadd_ps(_mm256_set1_ps(w[j + (l)]), LK__KV8(vp_, c), x##l); } while (0)
#define LK__VB(l) do { x##l = _mm256_fmadd_ps(_mm256_set1_ps(w[j + (l)]), LK__KV8(vg + (size_t)(l) * rs, c), x##l); } while (0)
    if (!kv->idx)
        for (; j + 8 <= n; j += 16) {
            const unsigned char *vg = vb + (size_t)j * rs;
            LK__VB(0); LK__VB(1); LK__VB(2); LK__VB(3); LK__VB(4); LK__VB(5); LK__VB(6); LK__VB(7);
        }
    for (; j + 8 <= n; j += 16) { LK__VA(0); LK__VA(1); LK__VA(2); LK__VA(3); LK__VA(4); LK__VA(5); LK__VA(6); LK__VA(7); }
    if (j < n) {   /* the last, partial group: keys j .. n - 1 */
        const int m = n - j;
        if (m > 0) LK__VA(0);
        if (m > 1) LK__VA(1);
        if (m > 2) LK__VA(2);
        if (m > 3) LK__VA(3);
        if (m > 4) LK__VA(4);
        if (m > 5) LK__VA(5);
        if (m > 6) LK__VA(6);
    }
#undef LK__VA
#undef LK__VB
    x[0] = x0; x[1] = x1; x[2] = x2; x[3] = x3; x[4] = x4; x[5] = x5; x[6] = x6; x[7] = x7;
}
/* V.P of two query heads of one KV head, head_dim 8: lanes j0 .. j0 + 3
 * (keys j = j0 + l mod 16) of lk__attn_vsum_ref for weights wa and wb, each
 * V row loaded once for both; xa[l], xb[l] the lane sums */
static void lk__vsum_lanes4p(const lk_kv_view *kv, size_t hoff, int j0, int n, const float *wa, const float *wb, __m256 *xa, __m256 *xb) {
    const int f16 = kv->type == LK_TYPE_F16;
    const size_t rs = kv->row_stride;
    const unsigned char *vb = LK__CAST(const unsigned char *, kv->v) + (size_t)kv->row0 * rs + hoff;
    __m256 a0 = _mm256_setzero_ps(), a1 = a0, a2 = a0, a3 = a0, b0 = a0, b1 = a0, b2 = a0, b3 = a0;
    int j;
#define LK__VP(l) do { const unsigned char *vp_ = kv->idx ? lk__key_ptr(kv, kv->v, j + (l), hoff) : vb + (size_t)(j + (l)) * rs; const __m256 v_ = LK__KV8(vp_, 0); \
                       a##l = _mm256_fmadd_ps(_mm256_set1_ps(wa[j + (l)]), v_, a##l); b##l = _mm256_fmadd_ps(_mm256_set1_ps(wb[j + (l)]), v_, b##l); } while (0)
    for (j = j0; j < n; j += 16) {
        if (j + 4 <= n) { LK__VP(0); LK__VP(1); LK__VP(2); LK__VP(3); }
        else {
            LK__VP(0);
            if (n - j > 1) LK__VP(1);
            if (n - j > 2) LK__VP(2);
        }
    }
#undef LK__VP
    xa[0] = a0; xa[1] = a1; xa[2] = a2; xa[3] = a3; xb[0] = b0; xb[1] = b1; xb[2] = b2; xb[3] = b3;
}
/* lk__attn_vsum's reduction of 16 lane vectors (one per lane, 8 elements) */
static __m256 lk__vsum_reduce16(__m256 *a) {
    int l;
    for (l = 0; l < 8; l++) a[l] = _mm256_add_ps(a[8 + l], a[l]);
    for (l = 0; l < 4; l++) a[l] = _mm256_add_ps(a[4 + l], a[l]);
    return _mm256_add_ps(_mm256_add_ps(a[0], a[2]), _mm256_add_ps(a[1], a[3]));
}
#endif
static void lk__attn_vsum(const lk_kv_view *kv, size_t hoff, int d, int n, const float *w, float *out) {
    int c = 0;
#if defined(LK__X86)
    /* 8 output elements at a time; lanes 0-7 (keys j % 16 < 8) in a first
     * pass, lanes 8-15 in a second, each lane one register */
    for (; c + 8 <= d; c += 8) {
        __m256 a[8], b[8];
        int l;
        lk__vsum_lanes8(kv, hoff, c, 0, n, w, a);
        lk__vsum_lanes8(kv, hoff, c, 8, n, w, b);
        /* lk__hsum16 per element: b[l] is lane 8 + l, a[l] lane l */
        for (l = 0; l < 8; l++) a[l] = _mm256_add_ps(b[l], a[l]);
        for (l = 0; l < 4; l++) a[l] = _mm256_add_ps(a[4 + l], a[l]);
        _mm256_storeu_ps(out + c, _mm256_add_ps(_mm256_add_ps(a[0], a[2]), _mm256_add_ps(a[1], a[3])));
    }
#endif
    lk__attn_vsum_ref(kv, hoff, d, c, n, w, out);
}

#if defined(LK__X86_512)
/* Which of the keys j .. j + 15 of a contiguous view (the lanes under k)
 * the query at qpos sees: lk__attn_mask_scale's causal, window-with-sinks
 * and segment rules, 16 at a time (lk__attn_mask_scale, lk__attn_pair8_512) */
LK__AINL __mmask16 lk__attn_ok16_512(const lk_kv_view *kv, int j, __mmask16 k, int qpos, int causal, int window, int n_sink, int qseg) {
    const int r0 = kv->row0 + j;
    const __m512i vq = _mm512_set1_epi32(qpos);
    const __m512i kp = kv->pos ? _mm512_maskz_loadu_epi32(k, kv->pos + r0)
                               : _mm512_add_epi32(_mm512_set1_epi32(r0), _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15));
    __mmask16 ok = k;
    if (causal) ok &= _mm512_cmp_epi32_mask(kp, vq, _MM_CMPINT_LE);
    if (window > 0)   /* masked: qpos - kpos >= window and kpos >= n_sink */
        ok &= (__mmask16)~(_mm512_cmp_epi32_mask(_mm512_sub_epi32(vq, kp), _mm512_set1_epi32(window), _MM_CMPINT_NLT) &
                           _mm512_cmp_epi32_mask(kp, _mm512_set1_epi32(n_sink), _MM_CMPINT_NLT));
    if (kv->seg) ok &= _mm512_cmp_epi32_mask(_mm512_maskz_loadu_epi32(k, kv->seg + r0), _mm512_set1_epi32(qseg), _MM_CMPINT_EQ);
    return ok;
}
#endif
/* s[j] (raw q.k) -> the score: masked keys -inf, soft-cap, scale, ALiBi.
 * Returns the row maximum (-inf when every key is masked, NaN when a score
 * is NaN, so that NaN reaches the output as in ggml instead of vanishing). */
static float lk__attn_mask_scale(const lk_attn_params *p, int qpos, const lk_kv_view *kv, int n, float *s) {
    const int other = kv->seg || p->tree_parent;   /* masks that need lk__attn_masked */
    float mx = -INFINITY;
    int j;
    j = 0;
#if defined(LK__X86_512)
    /* contiguous rows, no tree, no cap, no ALiBi: 16 keys at a time */
    if (!kv->idx && !p->tree_parent && p->softcap <= 0.0f && p->alibi_slope == 0.0f) {
        const __m512 vs = _mm512_set1_ps(p->scale), ninf = _mm512_set1_ps(-INFINITY);
        __m512 vmx = ninf;
        __mmask16 nan = 0;
        for (; j < n; j += 16) {   /* the last group (under 16 keys): masked loads and store, the other lanes -inf */
            const __mmask16 k = j + 16 <= n ? (__mmask16)0xFFFF : (__mmask16)((1u << (n - j)) - 1u);
            const __mmask16 ok = lk__attn_ok16_512(kv, j, k, qpos, p->causal, p->window, p->n_sink, p->qseg);
            const __m512 sc = _mm512_mask_blend_ps(ok, ninf, _mm512_mul_ps(_mm512_maskz_loadu_ps(k, s + j), vs));
            _mm512_mask_storeu_ps(s + j, k, sc);
            vmx = _mm512_max_ps(vmx, sc);
            nan |= _mm512_cmp_ps_mask(sc, sc, _CMP_UNORD_Q);
        }
        mx = nan ? NAN : _mm512_reduce_max_ps(vmx);
    }
#elif defined(LK__X86)
    /* the same, 8 keys at a time */
    if (!kv->idx && !p->tree_parent && p->softcap <= 0.0f && p->alibi_slope == 0.0f) {
        const __m256i iota = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7), one = _mm256_set1_epi32(1);
        const __m256i vq = _mm256_set1_epi32(qpos), vw = _mm256_set1_epi32(p->window), vsink = _mm256_set1_epi32(p->n_sink);
        const __m256 vs = _mm256_set1_ps(p->scale), ninf = _mm256_set1_ps(-INFINITY);
        __m256 vmx = ninf, nan = _mm256_setzero_ps();
        __m128 m4;
        for (; j + 8 <= n; j += 8) {
            const int r0 = kv->row0 + j;
            __m256i kp = kv->pos ? _mm256_loadu_si256(LK__CAST(const __m256i *, kv->pos + r0)) : _mm256_add_epi32(_mm256_set1_epi32(r0), iota);
            __m256i bad = _mm256_setzero_si256();   /* all ones where masked */
            __m256 sc;
            if (p->causal) bad = _mm256_cmpgt_epi32(kp, vq);
            if (p->window > 0)   /* qpos - kpos >= window (> window - 1) and kpos >= n_sink (> n_sink - 1) */
                bad = _mm256_or_si256(bad, _mm256_and_si256(_mm256_cmpgt_epi32(_mm256_sub_epi32(vq, kp), _mm256_sub_epi32(vw, one)),
                                                            _mm256_cmpgt_epi32(kp, _mm256_sub_epi32(vsink, one))));
            if (kv->seg)
                bad = _mm256_or_si256(bad, _mm256_xor_si256(_mm256_cmpeq_epi32(_mm256_loadu_si256(LK__CAST(const __m256i *, kv->seg + r0)),
                                                                                _mm256_set1_epi32(p->qseg)), _mm256_set1_epi32(-1)));
            sc = _mm256_blendv_ps(_mm256_mul_ps(_mm256_loadu_ps(s + j), vs), ninf, _mm256_castsi256_ps(bad));
            _mm256_storeu_ps(s + j, sc);
            vmx = _mm256_max_ps(vmx, sc);
            nan = _mm256_or_ps(nan, _mm256_cmp_ps(sc, sc, _CMP_UNORD_Q));
        }
        m4 = _mm_max_ps(_mm256_castps256_ps128(vmx), _mm256_extractf128_ps(vmx, 1));
        m4 = _mm_max_ps(m4, _mm_movehl_ps(m4, m4));
        m4 = _mm_max_ss(m4, _mm_movehdup_ps(m4));
        mx = _mm256_movemask_ps(nan) ? NAN : _mm_cvtss_f32(m4);
    }
#endif
    for (; j < n; j++) {   /* mask, cap, scale, bias; the row maximum (scalar reference) */
        int r = kv->idx ? kv->idx[j] : kv->row0 + j;
        int kpos = kv->pos ? kv->pos[r] : r;
        float sc = s[j];
        if ((p->causal && kpos > qpos) || (p->window > 0 && qpos - kpos >= p->window && kpos >= p->n_sink) ||
            (other && lk__attn_masked(p, kv, r, qpos, kpos))) { s[j] = -INFINITY; continue; }
        if (p->softcap > 0.0f) sc = p->softcap * tanhf(sc * (1.0f / p->softcap));   /* ggml: cap, then scale */
        sc *= p->scale;
        if (p->alibi_slope != 0.0f) sc += p->alibi_slope * (float)(kpos - qpos);
        s[j] = sc;
        if (sc > mx || sc != sc) mx = sc;   /* NaN sticks: nothing compares greater */
    }
    return mx;
}
/* Softmax over q8_0 / q4_0 rows (ggml blocks spanning the whole KV row):
 * each key's head slice is dequantized into a tile of 16 f32 rows (8 when
 * d > 256), and the f32 stages run on the tile; V rows are dequantized one
 * by one into a fused multiply-add. d <= 512. */
/* Elements [h d, (h + 1) d) of a q8_0 / q4_0 row as f32 (the values the
 * row dequantizers give, element by element: q * d, (nibble - 8) * d). */
static void lk__kv_head_deq(const lk_kv_view *kv, int which, int r, int h, int d, float *y) {
    const unsigned char *row = LK__CAST(const unsigned char *, which ? kv->v : kv->k) + (size_t)r * kv->row_stride;
    int e = h * d;
    const int end = e + d;
    while (e < end) {   /* block by block: one scale conversion each (both block types start with the f16 scale) */
        const int b = e / 32, lim = (b + 1) * 32 < end ? (b + 1) * 32 : end, q8 = kv->type == LK_TYPE_Q8_0;
        const unsigned char *blk = row + (size_t)b * (q8 ? sizeof(lk_block_q8_0) : sizeof(lk_block_q4_0));
        uint16_t dh;
        float sc;
        int k = e % 32;
        memcpy(&dh, blk, 2);
#if defined(LK__X86)
        sc = lk__h2f_x(dh);
#else
        sc = LK__H2F(dh);
#endif
        if (q8) {
            const lk_block_q8_0 *x = LK__CAST(const lk_block_q8_0 *, blk);
            for (; e < lim; e++, k++) *y++ = (float)x->qs[k] * sc;
        } else {
            const lk_block_q4_0 *x = LK__CAST(const lk_block_q4_0 *, blk);
            for (; e < lim && k < 16; e++, k++) *y++ = (float)((x->qs[k] & 0xF) - 8) * sc;   /* low nibbles: elements 0-15 */
            for (; e < lim; e++, k++) *y++ = (float)((x->qs[k - 16] >> 4) - 8) * sc;          /* high nibbles: 16-31 */
        }
    }
}
static void lk__attn_blocks(const lk_attn_params *p, const float *q, int qpos, const lk_kv_view *kv, int kv_head,
                            float *out, float *lse, float *s) {
    /* s: [n] scores then weights, then 16 d floats of V.P lanes */
    const int d = p->head_dim, n = kv->idx ? kv->n_idx : kv->n_rows - kv->row0;
    float tmp[512], mx, *acc = s + n, *tile = acc;   /* tile: the dequantized keys, in acc's 16 d floats until V.P (not on the stack: a microcontroller's is small) */
    lk_kv_view tv;
    double sum;
    int j0, l, i;
    const int tn = d <= 256 ? 16 : 8;   /* keys per tile: 16 while 16 d floats fit */
    memset(&tv, 0, sizeof tv);
    tv.type = LK_TYPE_F32; tv.k = tile; tv.row_stride = sizeof(float) * (size_t)d;
    for (j0 = 0; j0 < n; j0 += tn) {   /* raw q.k */
        const int m = n - j0 < tn ? n - j0 : tn;
        for (l = 0; l < m; l++) {
            int r = kv->idx ? kv->idx[j0 + l] : kv->row0 + j0 + l;
            lk__kv_head_deq(kv, 0, r, kv_head, d, tile + (size_t)l * d);
        }
        tv.n_rows = m;
        lk__attn_dots(q, &tv, 0, d, m, s + j0);
    }
    mx = lk__attn_mask_scale(p, qpos, kv, n, s);
    for (i = 0; i < d; i++) out[i] = 0.0f;
    if (mx == -INFINITY) { if (lse) *lse = -INFINITY; return; }
    sum = lk__attn_exp(s, n, mx);
    lk__attn_weights(s, n, (float)(1.0 / sum), 0);
    for (i = 0; i < 16 * d; i++) acc[i] = 0.0f;
    for (j0 = 0; j0 < n; j0++) {
        int r = kv->idx ? kv->idx[j0] : kv->row0 + j0;
        if (s[j0] == 0.0f) continue;
        lk__kv_head_deq(kv, 1, r, kv_head, d, tmp);
        lk__vsum_add(acc, j0, s[j0], tmp, d);
    }
    lk__vsum_finish(acc, d, out);
    if (lse) *lse = mx + (float)log(sum);
}

/* lk_attn for LK__QB consecutive queries of one head at once (prefill):
 * each query q[b] sees the n[b] first keys of kv (non-decreasing), with
 * its position qpos[b] and segment qseg[b]; each key's K and V head is
 * loaded once for all of them. Every output and lse is bit-identical to
 * lk_attn's on the same query (the same operations per (query, key) pair,
 * in the same order). Only the softmax fast path of an f16 cache with
 * head_dim % 16 == 0 (lk__attn_qblock_ok). s: LK__QB rows of stride ss >= n. */
#define LK__QB 8
static int lk__attn_qblock_ok(const lk_attn_params *p, const lk_kv_view *kv, int d) {
    return p->score == LK_ATTN_SOFTMAX && !kv->zip && kv->type == LK_TYPE_F16 && d % 16 == 0 && d <= 512;
}
static void lk__attn_qblock(const lk_attn_params *p, int nq, const float *const *q_in, const int *qpos, const int *qseg, const lk_kv_view *kv,
                            const int *n, int kv_head, float *const *out, float *lse, float *s, size_t ss) {
    const int d = p->head_dim;
    const size_t hoff = (size_t)kv_head * kv->head_stride;
    float qh[LK__QB][512], mx[LK__QB];
    double sum[LK__QB];
    int b, j;
    for (b = 0; b < nq; b++) {   /* ggml rounds q to f16 for the f16 K.Q product */
        int i;
        if (p->f16_math) lk__f16_round(qh[b], q_in[b], d);
        else for (i = 0; i < d; i++) qh[b][i] = q_in[b][i];
    }
    /* K.Q: lk__attn_dots' f16 order (16 lanes as two registers) per pair */
#if defined(LK__X86)
    for (b = nq; b < LK__QB && b < ((nq + 3) & ~3); b++) memset(qh[b], 0, sizeof(float) * (size_t)d);   /* padding queries */
    {   /* 4 queries at a time, so that their 8 accumulators stay in registers */
        int b0;
        for (b0 = 0; b0 < nq; b0 += 4) {
            const int m = nq - b0 < 4 ? nq - b0 : 4;
            for (j = 0; j < n[b0 + m - 1]; j++) {
                const unsigned char *kp = lk__key_ptr(kv, kv->k, j, hoff);
                __m256 lo[4], hi[4];
                int c, e;
                LK__UNROLL for (e = 0; e < 4; e++) lo[e] = hi[e] = _mm256_setzero_ps();
                for (c = 0; c < d; c += 16) {
                    const __m256 k0 = _mm256_cvtph_ps(_mm_loadu_si128(LK__CAST(const __m128i *, kp + 2 * c)));
                    const __m256 k1 = _mm256_cvtph_ps(_mm_loadu_si128(LK__CAST(const __m128i *, kp + 2 * (c + 8))));
                    LK__UNROLL for (e = 0; e < 4; e++) {
                        lo[e] = _mm256_fmadd_ps(_mm256_loadu_ps(qh[b0 + e] + c), k0, lo[e]);
                        hi[e] = _mm256_fmadd_ps(_mm256_loadu_ps(qh[b0 + e] + c + 8), k1, hi[e]);
                    }
                }
                LK__UNROLL for (e = 0; e < 4; e++) if (e < m && j < n[b0 + e]) s[(size_t)(b0 + e) * ss + j] = lk__red16_x(lo[e], hi[e]);
            }
        }
    }
#else
    for (j = 0; j < n[nq - 1]; j++) {
        const unsigned char *kp = lk__key_ptr(kv, kv->k, j, hoff);
        for (b = 0; b < nq; b++) if (j < n[b]) s[(size_t)b * ss + j] = lk__kq_ref(qh[b], kp, 1, d);
    }
#endif
    for (b = 0; b < nq; b++) {   /* mask, scale, exp, weights: per query, as lk_attn */
        lk_attn_params pb = *p;
        float *sb = s + (size_t)b * ss;
        pb.qseg = qseg[b];
        mx[b] = lk__attn_mask_scale(&pb, qpos[b], kv, n[b], sb);
        if (mx[b] == -INFINITY) continue;
        sum[b] = lk__attn_exp(sb, n[b], mx[b]);
        lk__attn_weights(sb, n[b], (float)(1.0 / sum[b]), p->f16_math);
    }
    /* V.P: per query, key j into lane j % 16 by fma (lk__attn_vsum's order),
     * the 16 lanes reduced as lk__hsum16 */
#if defined(LK__X86)
    {   /* a small GEMM per lane l (the keys j = l mod 16, in order): 4 queries x
         * 16 dims of V in 8 registers; keys every query of the 4 sees first,
         * then the causal tail (at most 3 keys per lane) query by query */
        float lanes[LK__QB][16][16];   /* [query][lane][dim c..c+15] */
        int c, b0, l, e;
        for (c = 0; c < d; c += 16) {
            for (b0 = 0; b0 < nq; b0 += 4) {
                const int m = nq - b0 < 4 ? nq - b0 : 4, nf = n[b0], nl = n[b0 + m - 1];
                for (l = 0; l < 16; l++) {
                    __m256 a0[4], a1[4];
                    LK__UNROLL for (e = 0; e < 4; e++) a0[e] = a1[e] = _mm256_setzero_ps();
                    for (j = l; j < nf; j += 16) {   /* nf <= n of each of the 4 (ss >= n, so padding rows read in bounds) */
                        const unsigned char *vp = lk__key_ptr(kv, kv->v, j, hoff) + 2 * c;
                        const __m256 v0 = _mm256_cvtph_ps(_mm_loadu_si128(LK__CAST(const __m128i *, vp)));
                        const __m256 v1 = _mm256_cvtph_ps(_mm_loadu_si128(LK__CAST(const __m128i *, vp + 16)));
                        LK__UNROLL for (e = 0; e < 4; e++) {
                            const __m256 w = _mm256_broadcast_ss(s + (size_t)(b0 + e) * ss + j);
                            a0[e] = _mm256_fmadd_ps(w, v0, a0[e]);
                            a1[e] = _mm256_fmadd_ps(w, v1, a1[e]);
                        }
                    }
                    for (; j < nl; j += 16) {
                        const unsigned char *vp = lk__key_ptr(kv, kv->v, j, hoff) + 2 * c;
                        const __m256 v0 = _mm256_cvtph_ps(_mm_loadu_si128(LK__CAST(const __m128i *, vp)));
                        const __m256 v1 = _mm256_cvtph_ps(_mm_loadu_si128(LK__CAST(const __m128i *, vp + 16)));
                        LK__UNROLL for (e = 0; e < 4; e++)   /* constant indices: the accumulators stay in registers */
                            if (e < m && j < n[b0 + e]) {
                                const __m256 w = _mm256_broadcast_ss(s + (size_t)(b0 + e) * ss + j);
                                a0[e] = _mm256_fmadd_ps(w, v0, a0[e]);
                                a1[e] = _mm256_fmadd_ps(w, v1, a1[e]);
                            }
                    }
                    LK__UNROLL for (e = 0; e < 4; e++) { _mm256_storeu_ps(lanes[b0 + e][l], a0[e]); _mm256_storeu_ps(lanes[b0 + e][l] + 8, a1[e]); }
                }
            }
            for (b = 0; b < nq; b++) {   /* lk__hsum16 of each element, 8 at a time */
                int h;
                if (mx[b] == -INFINITY) continue;
                for (h = 0; h < 16; h += 8) {
                    __m256 r[8];
                    for (l = 0; l < 8; l++) r[l] = _mm256_add_ps(_mm256_loadu_ps(lanes[b][8 + l] + h), _mm256_loadu_ps(lanes[b][l] + h));
                    for (l = 0; l < 4; l++) r[l] = _mm256_add_ps(r[4 + l], r[l]);
                    _mm256_storeu_ps(out[b] + c + h, _mm256_add_ps(_mm256_add_ps(r[0], r[2]), _mm256_add_ps(r[1], r[3])));
                }
            }
        }
    }
#else
    {   /* reference: lane by lane, each key's V head loaded once for the block */
        int c, l, i;
        for (c = 0; c < d; c += 8) {
            float lanes[LK__QB][16][8];
            for (l = 0; l < 16; l++) {
                for (b = 0; b < nq; b++) for (i = 0; i < 8; i++) lanes[b][l][i] = 0.0f;
                for (j = l; j < n[nq - 1]; j += 16) {
                    const unsigned char *vp = lk__key_ptr(kv, kv->v, j, hoff);
                    for (b = 0; b < nq; b++)
                        if (j < n[b]) for (i = 0; i < 8; i++) lanes[b][l][i] = fmaf(s[(size_t)b * ss + j], lk__kv_elem(vp, 1, c + i), lanes[b][l][i]);
                }
            }
            for (b = 0; b < nq; b++) {
                if (mx[b] == -INFINITY) continue;
                for (i = 0; i < 8; i++) {
                    float t[16];
                    for (l = 0; l < 16; l++) t[l] = lanes[b][l][i];
                    out[b][c + i] = lk__hsum16(t);
                }
            }
        }
    }
#endif
    for (b = 0; b < nq; b++) {
        if (mx[b] == -INFINITY) { int i; for (i = 0; i < d; i++) out[b][i] = 0.0f; lse[b] = -INFINITY; }
        else lse[b] = mx[b] + (float)log(sum[b]);
    }
}
LKDEF void lk_attn(const lk_attn_params *p, const float *q_in, int qpos, const lk_kv_view *kv, int kv_head,
                   float *out, float *lse, float *s) {
    /* q: [d]; K, V rows: [n][d] at kv_head; s: [n] scores then weights, then 16 d floats */
    const int d = p->head_dim, n = kv->idx ? kv->n_idx : kv->n_rows - kv->row0;
    const size_t hoff = (size_t)kv_head * kv->head_stride;
    float qh[512];
    const float *q = q_in;
    float mx;
    double sum;
    int i;
    if (p->score == LK_ATTN_SOFTMAX && !kv->zip && (kv->type == LK_TYPE_Q8_0 || kv->type == LK_TYPE_Q4_0) && d > 0 && d <= 512) {
        lk__attn_blocks(p, q_in, qpos, kv, kv_head, out, lse, s);
        return;
    }
    if (p->score != LK_ATTN_SOFTMAX || kv->zip || (kv->type != LK_TYPE_F32 && kv->type != LK_TYPE_F16)) {
        lk__attn_generic(p, q_in, qpos, kv, kv_head, out, lse, s);
        return;
    }
    if (p->f16_math && d > 0 && d <= 512) {   /* ggml rounds q to f16 for the f16 K.Q product */
        lk__f16_round(qh, q_in, d);
        q = qh;
    }
    lk__attn_dots(q, kv, hoff, d, n, s);
    mx = lk__attn_mask_scale(p, qpos, kv, n, s);
    if (mx == -INFINITY) { for (i = 0; i < d; i++) out[i] = 0.0f; if (lse) *lse = -INFINITY; return; }
    sum = lk__attn_exp(s, n, mx);
    /* ggml scales by the float reciprocal of the double sum */
    lk__attn_weights(s, n, (float)(1.0 / sum), kv->type == LK_TYPE_F16 && p->f16_math);
    lk__attn_vsum(kv, hoff, d, n, s, out);
    if (lse) *lse = mx + (float)log(sum);
}

#if defined(LK__X86_512)
/* Keys a and b (head_dim 8, f32 or f16) as the halves of one zmm;
 * lk__tr16x8_512 wants zmm i to hold keys (i, i + 4) of its 16 for i < 4
 * and (i + 4, i + 8) for i >= 4. */
LK__AINL __m512 lk__ld2x8_512(const unsigned char *a, const unsigned char *b, int f16) {
    return f16 ? _mm512_cvtph_ps(_mm256_inserti128_si256(_mm256_castsi128_si256(_mm_loadu_si128(LK__CAST(const __m128i *, a))),
                                                         _mm_loadu_si128(LK__CAST(const __m128i *, b)), 1))
               : _mm512_insertf32x8(_mm512_castps256_ps512(_mm256_loadu_ps(LK__CAST(const float *, a))), _mm256_loadu_ps(LK__CAST(const float *, b)), 1);
}
/* r[0..8) loaded as above -> c[e] lane k = element e of key k (two 8 x 8
 * transposes side by side: LK__TR8's in-lane steps, then one 128-bit
 * shuffle per column that puts the keys in order) */
LK__AINL void lk__tr16x8_512(const __m512 *r, __m512 *c) {
    __m512 t[8], u[8];
    int i;
    LK__UNROLL for (i = 0; i < 8; i += 4) {
        t[i] = _mm512_unpacklo_ps(r[i], r[i + 1]); t[i + 1] = _mm512_unpackhi_ps(r[i], r[i + 1]);
        t[i + 2] = _mm512_unpacklo_ps(r[i + 2], r[i + 3]); t[i + 3] = _mm512_unpackhi_ps(r[i + 2], r[i + 3]);
        u[i] = _mm512_shuffle_ps(t[i], t[i + 2], 0x44); u[i + 1] = _mm512_shuffle_ps(t[i], t[i + 2], 0xEE);
        u[i + 2] = _mm512_shuffle_ps(t[i + 1], t[i + 3], 0x44); u[i + 3] = _mm512_shuffle_ps(t[i + 1], t[i + 3], 0xEE);
    }
    /* u[e] (e < 4), 128-bit lanes: e of keys 0-3, e + 4 of keys 0-3, e of keys 4-7, e + 4 of keys 4-7; u[4 + e]: keys 8-15 */
    LK__UNROLL for (i = 0; i < 4; i++) {
        c[i] = _mm512_shuffle_f32x4(u[i], u[4 + i], 0x88);       /* lanes 0, 2 of each */
        c[i + 4] = _mm512_shuffle_f32x4(u[i], u[4 + i], 0xDD);   /* lanes 1, 3 */
    }
}
/* q . k for 16 transposed keys c, lk__attn_dots8_x's operations per key:
 * f32: rounded products added in order from 0; f16: the f32 products
 * summed in double */
LK__AINL __m512 lk__dots16_512(const float *q, const __m512 *c, int f16) {
    int e;
    if (f16) {
        __m512d lo = _mm512_setzero_pd(), hi = lo;
        LK__UNROLL for (e = 0; e < 8; e++) {
            const __m512 pr = _mm512_mul_ps(_mm512_set1_ps(q[e]), c[e]);
            lo = _mm512_add_pd(lo, _mm512_cvtps_pd(_mm512_castps512_ps256(pr)));
            hi = _mm512_add_pd(hi, _mm512_cvtps_pd(_mm512_extractf32x8_ps(pr, 1)));
        }
        return _mm512_insertf32x8(_mm512_castps256_ps512(_mm512_cvtpd_ps(lo)), _mm512_cvtpd_ps(hi), 1);
    } else {
        __m512 acc = _mm512_add_ps(_mm512_setzero_ps(), _mm512_mul_ps(_mm512_set1_ps(q[0]), c[0]));
        LK__UNROLL for (e = 1; e < 8; e++) acc = _mm512_add_ps(acc, _mm512_mul_ps(_mm512_set1_ps(q[e]), c[e]));
        return acc;
    }
}
/* lk__attn_pair8 on contiguous rows without a tree, cap or ALiBi, AVX-512
 * (segments, windows, sinks and positions as lk__attn_mask_scale):
 * 1. 16 keys transposed at a time, both heads' dots, the mask and scale,
 *    the maxima (one pass instead of lk__attn_dots8_x + two mask passes);
 * 2. lk__attn_exp of both heads in one loop, inlined, without branches;
 * 3. lk__attn_weights of both heads, then V.P with each V row loaded once
 *    for both heads (lanes 0-7, then 8-15: 16 ymm accumulators).
 * Every element sees the separate stages' operations in their order, so
 * the bits are theirs (test_simd's test_attn_pair). f16: a constant at
 * each call. Full groups of 16 keys use plain loads and stores (masked
 * stores are slow on Zen 4 / 5), the last group masked ones. */
LK__AINL void lk__attn_pair8_512_f(const lk_attn_params *p, const float *qa, const float *qb, int qpos, const lk_kv_view *kv, int kv_head,
                                   float *oa, float *ob, float *lsea, float *lseb, float *sa, float *sb, int f16) {
    static const float zero_row[8] = { 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f };
    const int n = kv->n_rows - kv->row0, f16w = f16 && p->f16_math, causal = p->causal, window = p->window, n_sink = p->n_sink, qseg = p->qseg;
    const size_t rs = kv->row_stride, hoff = (size_t)kv_head * kv->head_stride, rs2 = 2 * rs, rs3 = 3 * rs, rs4 = 4 * rs;
    const unsigned char *kb = LK__CAST(const unsigned char *, kv->k) + (size_t)kv->row0 * rs + hoff;
    const unsigned char *vb = LK__CAST(const unsigned char *, kv->v) + (size_t)kv->row0 * rs + hoff;
    const __m512 vs = _mm512_set1_ps(p->scale), ninf = _mm512_set1_ps(-INFINITY);
    __m512 vmxa = ninf, vmxb = ninf;
    __mmask16 nana = 0, nanb = 0;
    float qh[2][8], mxa, mxb;
    const float *q0 = qa, *q1 = qb;
    double suma = 0.0, sumb = 0.0;
    int j, i;
    if (p->f16_math) {   /* ggml rounds q to f16 for the f16 K.Q product */
        lk__f16_round(qh[0], qa, 8);
        lk__f16_round(qh[1], qb, 8);
        q0 = qh[0]; q1 = qh[1];
    }
    /* 1: scores, mask, scale, maxima */
    for (j = 0; j < n; j += 16) {
        const int m = n - j < 16 ? n - j : 16;
        const __mmask16 k = (__mmask16)((1u << m) - 1u);
        const unsigned char *g = kb + (size_t)j * rs;
        __m512 r[8], c[8], da, db;
        __mmask16 ok;
        if (m == 16) {
            const unsigned char *g4 = g + rs4, *g8 = g4 + rs4, *g12 = g8 + rs4;
            r[0] = lk__ld2x8_512(g, g4, f16); r[1] = lk__ld2x8_512(g + rs, g4 + rs, f16);
            r[2] = lk__ld2x8_512(g + rs2, g4 + rs2, f16); r[3] = lk__ld2x8_512(g + rs3, g4 + rs3, f16);
            r[4] = lk__ld2x8_512(g8, g12, f16); r[5] = lk__ld2x8_512(g8 + rs, g12 + rs, f16);
            r[6] = lk__ld2x8_512(g8 + rs2, g12 + rs2, f16); r[7] = lk__ld2x8_512(g8 + rs3, g12 + rs3, f16);
        } else {   /* the last group: the zero row for keys >= m */
#define LK__PK(t) ((t) < m ? g + (size_t)(t) * rs : LK__CAST(const unsigned char *, zero_row))
            r[0] = lk__ld2x8_512(LK__PK(0), LK__PK(4), f16); r[1] = lk__ld2x8_512(LK__PK(1), LK__PK(5), f16);
            r[2] = lk__ld2x8_512(LK__PK(2), LK__PK(6), f16); r[3] = lk__ld2x8_512(LK__PK(3), LK__PK(7), f16);
            r[4] = lk__ld2x8_512(LK__PK(8), LK__PK(12), f16); r[5] = lk__ld2x8_512(LK__PK(9), LK__PK(13), f16);
            r[6] = lk__ld2x8_512(LK__PK(10), LK__PK(14), f16); r[7] = lk__ld2x8_512(LK__PK(11), LK__PK(15), f16);
#undef LK__PK
        }
        lk__tr16x8_512(r, c);
        da = lk__dots16_512(q0, c, f16); db = lk__dots16_512(q1, c, f16);
        ok = lk__attn_ok16_512(kv, j, k, qpos, causal, window, n_sink, qseg);
        da = _mm512_mask_blend_ps(ok, ninf, _mm512_mul_ps(da, vs)); db = _mm512_mask_blend_ps(ok, ninf, _mm512_mul_ps(db, vs));
        if (m == 16) { _mm512_storeu_ps(sa + j, da); _mm512_storeu_ps(sb + j, db); }
        else { _mm512_mask_storeu_ps(sa + j, k, da); _mm512_mask_storeu_ps(sb + j, k, db); }
        vmxa = _mm512_max_ps(vmxa, da); vmxb = _mm512_max_ps(vmxb, db);
        nana |= _mm512_cmp_ps_mask(da, da, _CMP_UNORD_Q); nanb |= _mm512_cmp_ps_mask(db, db, _CMP_UNORD_Q);
    }
    mxa = nana ? NAN : _mm512_reduce_max_ps(vmxa);
    mxb = nanb ? NAN : _mm512_reduce_max_ps(vmxb);
    if (mxa == -INFINITY) { for (i = 0; i < 8; i++) oa[i] = 0.0f; if (lsea) *lsea = -INFINITY; }
    if (mxb == -INFINITY) { for (i = 0; i < 8; i++) ob[i] = 0.0f; if (lseb) *lseb = -INFINITY; }
    if (mxa == -INFINITY && mxb == -INFINITY) return;
    {   /* 2: exp and the sums, both heads in one loop (a dead head's row,
         * all -inf, runs against 0: exp 0, sum unused); the last group's
         * other lanes -inf (exp 0) */
        const __m512 ma = _mm512_set1_ps(mxa == -INFINITY ? 0.0f : mxa), mb = _mm512_set1_ps(mxb == -INFINITY ? 0.0f : mxb);
        for (j = 0; j + 16 <= n; j += 16) {
            const __m512 ea = lk__expf16_ggml(_mm512_sub_ps(_mm512_loadu_ps(sa + j), ma)), eb = lk__expf16_ggml(_mm512_sub_ps(_mm512_loadu_ps(sb + j), mb));
            _mm512_storeu_ps(sa + j, ea); _mm512_storeu_ps(sb + j, eb);
            suma += (double)_mm512_reduce_add_ps(ea); sumb += (double)_mm512_reduce_add_ps(eb);
        }
        if (j < n) {
            const __mmask16 k = (__mmask16)((1u << (n - j)) - 1u);
            const __m512 ea = lk__expf16_ggml(_mm512_sub_ps(_mm512_mask_loadu_ps(ninf, k, sa + j), ma));
            const __m512 eb = lk__expf16_ggml(_mm512_sub_ps(_mm512_mask_loadu_ps(ninf, k, sb + j), mb));
            _mm512_mask_storeu_ps(sa + j, k, ea); _mm512_mask_storeu_ps(sb + j, k, eb);
            suma += (double)_mm512_reduce_add_ps(ea); sumb += (double)_mm512_reduce_add_ps(eb);
        }
    }
    if (lsea && mxa != -INFINITY) *lsea = mxa + (float)log(suma);
    if (lseb && mxb != -INFINITY) *lseb = mxb + (float)log(sumb);
    {   /* 3: the weights (lk__attn_weights; a dead head's are 0 * 0), then
         * V.P in two halves: lanes 0-7 (keys j mod 16 < 8), then lanes 8-15,
         * each lane of each head in a ymm, each V row loaded once, the
         * weights broadcast from memory */
        __m256 xa[16], xb[16];
        int h;
        lk__attn_weights(sa, n, mxa != -INFINITY ? (float)(1.0 / suma) : 0.0f, f16w);
        lk__attn_weights(sb, n, mxb != -INFINITY ? (float)(1.0 / sumb) : 0.0f, f16w);
        for (h = 0; h < 2; h++) {
            __m256 a0 = _mm256_setzero_ps(), a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0, a6 = a0, a7 = a0;
            __m256 b0 = a0, b1 = a0, b2 = a0, b3 = a0, b4 = a0, b5 = a0, b6 = a0, b7 = a0;
            const unsigned char *vp;
#define LK__PV(l) do { const __m256 v_ = f16 ? _mm256_cvtph_ps(_mm_loadu_si128(LK__CAST(const __m128i *, vp))) : _mm256_loadu_ps(LK__CAST(const float *, vp)); \
                       a##l = _mm256_fmadd_ps(_mm256_set1_ps(sa[j + (l)]), v_, a##l); b##l = _mm256_fmadd_ps(_mm256_set1_ps(sb[j + (l)]), v_, b##l); vp += rs; } while (0)
            for (j = 8 * h; j + 8 <= n; j += 16) {
                vp = vb + (size_t)j * rs;
                LK__PV(0); LK__PV(1); LK__PV(2); LK__PV(3); LK__PV(4); LK__PV(5); LK__PV(6); LK__PV(7);
            }
            if (j < n) {   /* the last, partial group: keys j .. n - 1 */
                const int m = n - j;
                vp = vb + (size_t)j * rs;
                LK__PV(0);
                if (m > 1) LK__PV(1);
                if (m > 2) LK__PV(2);
                if (m > 3) LK__PV(3);
                if (m > 4) LK__PV(4);
                if (m > 5) LK__PV(5);
                if (m > 6) LK__PV(6);
            }
#undef LK__PV
            xa[8 * h] = a0; xa[8 * h + 1] = a1; xa[8 * h + 2] = a2; xa[8 * h + 3] = a3; xa[8 * h + 4] = a4; xa[8 * h + 5] = a5; xa[8 * h + 6] = a6; xa[8 * h + 7] = a7;
            xb[8 * h] = b0; xb[8 * h + 1] = b1; xb[8 * h + 2] = b2; xb[8 * h + 3] = b3; xb[8 * h + 4] = b4; xb[8 * h + 5] = b5; xb[8 * h + 6] = b6; xb[8 * h + 7] = b7;
        }
        if (mxa != -INFINITY) _mm256_storeu_ps(oa, lk__vsum_reduce16(xa));
        if (mxb != -INFINITY) _mm256_storeu_ps(ob, lk__vsum_reduce16(xb));
    }
}
static void lk__attn_pair8_512(const lk_attn_params *p, const float *qa, const float *qb, int qpos, const lk_kv_view *kv, int kv_head,
                               float *oa, float *ob, float *lsea, float *lseb, float *sa, float *sb) {
    if (kv->type == LK_TYPE_F16) lk__attn_pair8_512_f(p, qa, qb, qpos, kv, kv_head, oa, ob, lsea, lseb, sa, sb, 1);
    else lk__attn_pair8_512_f(p, qa, qb, qpos, kv, kv_head, oa, ob, lsea, lseb, sa, sb, 0);
}
#endif
/* Two query heads qa, qb of one GQA group over the same KV head (head_dim 8,
 * softmax, f32/f16 rows): the K.Q and V.P stages load each key once for
 * both; every operation per (query, key) is lk_attn's, so (oa, lsea) and
 * (ob, lseb) equal two lk_attn calls bit for bit. sa, sb: lk_attn scratch
 * each. Elsewhere: the two calls. */
static void lk__attn_pair8(const lk_attn_params *p, const float *qa, const float *qb, int qpos, const lk_kv_view *kv, int kv_head,
                           float *oa, float *ob, float *lsea, float *lseb, float *sa, float *sb) {
#if defined(LK__X86)
    const int n = kv->idx ? kv->n_idx : kv->n_rows - kv->row0, f16 = kv->type == LK_TYPE_F16;
    const size_t hoff = (size_t)kv_head * kv->head_stride;
    float qh[2][8], mx[2];
    double sum[2];
    float *sc[2], *o[2], *lse[2];
    const float *q[2];
    int i, j, h, live = 0;
    if (p->score != LK_ATTN_SOFTMAX || kv->zip || p->head_dim != 8 || (kv->type != LK_TYPE_F32 && kv->type != LK_TYPE_F16)) {
        lk_attn(p, qa, qpos, kv, kv_head, oa, lsea, sa);
        lk_attn(p, qb, qpos, kv, kv_head, ob, lseb, sb);
        return;
    }
#if defined(LK__X86_512)
    if (!kv->idx && !p->tree_parent && p->softcap <= 0.0f && p->alibi_slope == 0.0f) {
        lk__attn_pair8_512(p, qa, qb, qpos, kv, kv_head, oa, ob, lsea, lseb, sa, sb);
        return;
    }
#endif
    q[0] = qa; q[1] = qb; sc[0] = sa; sc[1] = sb; o[0] = oa; o[1] = ob; lse[0] = lsea; lse[1] = lseb;
    if (p->f16_math)   /* ggml rounds q to f16 for the f16 K.Q product */
        for (h = 0; h < 2; h++) { for (i = 0; i < 8; i++) qh[h][i] = lk_fp16_to_fp32(lk_fp32_to_fp16(q[h][i])); q[h] = qh[h]; }
    j = f16 ? lk__attn_dots8_x(q[0], q[1], kv, hoff, n, sa, sb, 1) : lk__attn_dots8_x(q[0], q[1], kv, hoff, n, sa, sb, 0);
    for (h = 0; h < 2; h++) {
        lk__attn_dots_ref(q[h], kv, hoff, 8, j, n, sc[h]);
        mx[h] = lk__attn_mask_scale(p, qpos, kv, n, sc[h]);
        if (mx[h] == -INFINITY) { for (i = 0; i < 8; i++) o[h][i] = 0.0f; if (lse[h]) *lse[h] = -INFINITY; continue; }
        live |= 1 << h;
        sum[h] = lk__attn_exp(sc[h], n, mx[h]);
        lk__attn_weights(sc[h], n, (float)(1.0 / sum[h]), f16 && p->f16_math);
        if (lse[h]) *lse[h] = mx[h] + (float)log(sum[h]);
    }
    if (live == 3) {
        __m256 la[16], lb[16];
        int g;
        for (g = 0; g < 16; g += 4) lk__vsum_lanes4p(kv, hoff, g, n, sa, sb, la + g, lb + g);
        _mm256_storeu_ps(oa, lk__vsum_reduce16(la));
        _mm256_storeu_ps(ob, lk__vsum_reduce16(lb));
    } else
        for (h = 0; h < 2; h++) if (live >> h & 1) lk__attn_vsum(kv, hoff, 8, n, sc[h], o[h]);
#else
    lk_attn(p, qa, qpos, kv, kv_head, oa, lsea, sa);
    lk_attn(p, qb, qpos, kv, kv_head, ob, lseb, sb);
#endif
}

#if defined(LK__X86)
#undef LK__KV8
#undef LK__TR8
#undef LK__LD8T
#endif
LKDEF void lk_attn_merge(float *o1, float *lse1, const float *o2, float lse2, int d) {
    float m, a, b;
    int i;
    if (lse2 == -INFINITY) return;
    if (*lse1 == -INFINITY) { for (i = 0; i < d; i++) o1[i] = o2[i]; *lse1 = lse2; return; }
    m = *lse1 > lse2 ? *lse1 : lse2;
    a = expf(*lse1 - m); b = expf(lse2 - m);
    for (i = 0; i < d; i++) o1[i] = (a * o1[i] + b * o2[i]) / (a + b);
    *lse1 = m + logf(a + b);
}
/* keys [a, b) of the view's key list as a view of its own */
static lk_kv_view lk__kv_sub(const lk_kv_view *kv, int a, int b) {
    lk_kv_view s = *kv;
    if (kv->idx) { s.idx = kv->idx + a; s.n_idx = b - a; }
    else { s.row0 = kv->row0 + a; s.n_rows = kv->row0 + b; }
    return s;
}
LKDEF void lk_attn_tiled(const lk_attn_params *p, const float *q, int qpos, const lk_kv_view *kv, int kv_head,
                         float *out, float *lse, float *scratch, int tile) {
    const int d = p->head_dim, n = kv->idx ? kv->n_idx : kv->n_rows - kv->row0;
    float *o2 = scratch, *s = scratch + d, l2;
    int t0, i;
    if (p->score != LK_ATTN_SOFTMAX || tile <= 0 || tile >= n) { lk_attn(p, q, qpos, kv, kv_head, out, lse, scratch + d); return; }
    *lse = -INFINITY;
    for (i = 0; i < d; i++) out[i] = 0.0f;
    for (t0 = 0; t0 < n; t0 += tile) {   /* online softmax: one tile of scores at a time */
        lk_kv_view sub = lk__kv_sub(kv, t0, t0 + tile < n ? t0 + tile : n);
        lk_attn(p, q, qpos, &sub, kv_head, o2, &l2, s);
        lk_attn_merge(out, lse, o2, l2, d);
    }
}
typedef struct lk__split_task {
    const lk_attn_params *p; const float *q; int qpos; const lk_kv_view *kv; int kv_head, n, per;
    float *scratch; size_t stride;
} lk__split_task;
static void lk__split_fn(void *arg, int task, int n_tasks) {
    lk__split_task *a = LK__CAST(lk__split_task *, arg);
    float *o = a->scratch + (size_t)task * a->stride;
    int lo = task * a->per, hi = lo + a->per < a->n ? lo + a->per : a->n;
    lk_kv_view sub;
    (void)n_tasks;
    if (lo >= hi) { int i; for (i = 0; i < a->p->head_dim; i++) o[i] = 0.0f; o[a->p->head_dim] = -INFINITY; return; }
    sub = lk__kv_sub(a->kv, lo, hi);
    lk_attn(a->p, a->q, a->qpos, &sub, a->kv_head, o, o + a->p->head_dim, o + a->p->head_dim + 1);
}
LKDEF void lk_attn_split(const lk_attn_params *p, const float *q, int qpos, const lk_kv_view *kv, int kv_head,
                         float *out, float *lse, float *scratch, int n_part, const lk_threads *th) {
    const int d = p->head_dim, n = kv->idx ? kv->n_idx : kv->n_rows - kv->row0;
    lk__split_task t;
    int k, i;
    if (p->score != LK_ATTN_SOFTMAX || n_part <= 1 || n < 2) { lk_attn(p, q, qpos, kv, kv_head, out, lse, scratch); return; }
    if (n_part > n) n_part = n;
    t.p = p; t.q = q; t.qpos = qpos; t.kv = kv; t.kv_head = kv_head; t.n = n; t.per = (n + n_part - 1) / n_part;
    t.scratch = scratch; t.stride = (size_t)d + 1 + lk_attn_scratch_floats(p, t.per);
    lk_parallel_for(th, n_part, lk__split_fn, &t);
    *lse = -INFINITY;
    for (i = 0; i < d; i++) out[i] = 0.0f;
    for (k = 0; k < n_part; k++) { const float *o = scratch + (size_t)k * t.stride; lk_attn_merge(out, lse, o, o[d], d); }
}

LK__STRICT_FP_END

/* --------------------------------------------------------------------------
 * 14.10 KV cache
 * -------------------------------------------------------------------------- */
static size_t lk__pad64(size_t x) { return x > SIZE_MAX - 63 ? SIZE_MAX : (x + 63) & ~(size_t)63; }   /* saturating */
/* byte sizes of every part; 0 total = invalid parameters */
typedef struct lk__kv_sizes { size_t row_k, row_v, k, v, pos, seg, zrow, zk, zp, zs, zq, total; int W; } lk__kv_sizes;
static int lk__kv_sizes_get(const lk_kv_cache_params *p, lk__kv_sizes *s) {
    int hd = p->head_dim > 0 ? p->head_dim : p->n_embd_k, rows;
    memset(s, 0, sizeof *s);
    if (p->n_layer <= 0 || p->n_ctx <= 0 || p->n_embd_k <= 0 || p->n_embd_v <= 0 || p->n_embd_k != p->n_embd_v) return 0;
    if (p->zip_bits) {
        if ((p->zip_bits != 2 && p->zip_bits != 4) || (p->type != LK_TYPE_F16 && p->type != LK_TYPE_F32)) return 0;
        if (hd <= 0 || hd > 512 || p->n_embd_k % hd || (hd * p->zip_bits) % 8) return 0;
        s->W = p->zip_window > 0 ? p->zip_window : 32;
        if (s->W > p->n_ctx) s->W = p->n_ctx;
    }
    if (p->type == LK_TYPE_F32 || p->type == LK_TYPE_F16) {
        s->row_k = (size_t)p->n_embd_k * (p->type == LK_TYPE_F16 ? 2 : 4);
        s->row_v = (size_t)p->n_embd_v * (p->type == LK_TYPE_F16 ? 2 : 4);
    } else if (p->type == LK_TYPE_Q8_0 || p->type == LK_TYPE_Q4_0) {
        s->row_k = lk_row_size(p->type, p->n_embd_k); s->row_v = lk_row_size(p->type, p->n_embd_v);
        if (!s->row_k || !s->row_v) return 0;
    } else return 0;
    rows = p->zip_bits ? s->W : p->n_ctx;
    s->k = lk__pad64(lk__szm(lk__szm((size_t)p->n_layer, (size_t)rows), s->row_k));
    s->v = lk__pad64(lk__szm(lk__szm((size_t)p->n_layer, (size_t)rows), s->row_v));
    s->pos = lk__pad64(lk__szm((size_t)p->n_ctx, sizeof(int32_t)));
    s->seg = s->pos;
    if (p->zip_bits) {
        s->zrow = (size_t)p->n_embd_k * p->zip_bits / 8;
        s->zk = lk__pad64(lk__szm(lk__szm((size_t)p->n_layer, (size_t)p->n_ctx), s->zrow));
        s->zp = lk__pad64(lk__szm(lk__szm((size_t)p->n_layer, (size_t)p->n_ctx), (size_t)(p->n_embd_k / hd) * 2 * sizeof(uint16_t)));
        s->zs = lk__pad64(lk__szm((size_t)p->n_layer, (size_t)p->n_embd_k * sizeof(float)));
        s->zq = lk__pad64(lk__szm((size_t)p->n_layer, sizeof(int32_t)));
    }
    s->total = lk__sza(lk__sza(lk__sza(s->k, s->v), lk__sza(s->pos, s->seg)),
                       lk__sza(lk__sza(lk__szm(2, s->zk), lk__szm(2, s->zp)), lk__sza(lk__szm(2, s->zs), s->zq)));
    return s->total < SIZE_MAX / 2;
}
LKDEF size_t lk_kv_cache_bytes(const lk_kv_cache_params *p) {
    lk__kv_sizes s;
    return p && lk__kv_sizes_get(p, &s) ? s.total : 0;
}
LKDEF lk_status lk_kv_cache_init(lk_kv_cache *c, const lk_kv_cache_params *p, void *mem) {
    lk__kv_sizes s;
    unsigned char *q = LK__CAST(unsigned char *, mem);
    if (!c || !mem || !p) return lk_set_error(LK_ERR_INVALID_ARG, "kv cache: bad arguments");
    if (p->type != LK_TYPE_F32 && p->type != LK_TYPE_F16 && p->type != LK_TYPE_Q8_0 && p->type != LK_TYPE_Q4_0)
        return lk_set_error(LK_ERR_UNSUPPORTED, "kv cache: type %s is not supported (f32, f16, q8_0, q4_0)", lk_type_name(p->type));
    if (!lk__kv_sizes_get(p, &s))
        return lk_set_error(LK_ERR_INVALID_ARG, "kv cache: bad sizes (n_layer %d, n_ctx %d, n_embd %d/%d, head_dim %d, zip_bits %d, type %s)",
                            p->n_layer, p->n_ctx, p->n_embd_k, p->n_embd_v, p->head_dim, p->zip_bits, lk_type_name(p->type));
    memset(c, 0, sizeof *c);
    c->type = p->type; c->n_layer = p->n_layer; c->n_ctx = p->n_ctx; c->n_embd_k = p->n_embd_k; c->n_embd_v = p->n_embd_v;
    c->row_k = s.row_k; c->row_v = s.row_v;
    c->head_dim = p->head_dim > 0 ? p->head_dim : p->n_embd_k;
    c->n_head_kv = p->n_embd_k / c->head_dim;
    c->k = q; q += s.k;
    c->v = q; q += s.v;
    c->pos = LK__CAST(int32_t *, q); q += s.pos;
    c->seg = LK__CAST(int32_t *, q); q += s.seg;
    memset(c->seg, 0, s.seg);
    if (p->zip_bits) {
        c->zip_bits = p->zip_bits; c->zip_window = s.W; c->zrow = s.zrow;
        c->zk = q; q += s.zk;
        c->zv = q; q += s.zk;
        c->zkp = LK__CAST(uint16_t *, q); q += s.zp;
        c->zvp = LK__CAST(uint16_t *, q); q += s.zp;
        c->zks = LK__CAST(float *, q); q += s.zs;
        c->zvs = LK__CAST(float *, q); q += s.zs;
        c->zq = LK__CAST(int32_t *, q); q += s.zq;
        memset(c->zq, 0, s.zq);
    }
    return LK_OK;
}
static void lk__kv_put_row(lk_type type, unsigned char *dst, const float *x, int n) {
    if (type == LK_TYPE_F16) lk__from_float_f16(x, dst, n);   /* round to nearest even (F16C where there is one), as lk_fp32_to_fp16 */
    else if (type == LK_TYPE_F32) memcpy(dst, x, sizeof(float) * (size_t)n);
    else lk_type_get(type)->from_float(x, dst, n);
}
/* zip: quantize row r of layer il (its window copy in ring slot r % W) */
static void lk__zip_quantize(lk_kv_cache *c, int il, int r) {
    const int W = c->zip_window, d = c->head_dim, E = c->n_embd_k, levels = (1 << c->zip_bits) - 1;
    int which, h, i, t;
    if (c->zq[il] == 0) {   /* first chunk: channel scales over the W rows of the ring */
        for (which = 0; which < 2; which++) {
            float *sc = (which ? c->zvs : c->zks) + (size_t)il * E;
            const unsigned char *ring = (which ? c->v : c->k) + (size_t)il * W * c->row_k;
            for (i = 0; i < E; i++) sc[i] = 0.0f;
            for (t = 0; t < W; t++) {   /* element by element from the row (no row-sized buffer on the stack) */
                const unsigned char *row = ring + (size_t)t * c->row_k;
                for (i = 0; i < E; i++) {
                    const float a = fabsf(c->type == LK_TYPE_F16 ? lk_fp16_to_fp32(LK__CAST(const uint16_t *, row)[i]) : LK__CAST(const float *, row)[i]);
                    if (a > sc[i]) sc[i] = a;
                }
            }
            for (i = 0; i < E; i++) sc[i] = sc[i] > 0.0f ? sqrtf(sc[i]) : 1.0f;
        }
    }
    for (which = 0; which < 2; which++) {
        const float *sc = (which ? c->zvs : c->zks) + (size_t)il * E;
        const unsigned char *src = (which ? c->v : c->k) + ((size_t)il * W + (size_t)(r % W)) * c->row_k;
        unsigned char *code = (which ? c->zv : c->zk) + ((size_t)il * c->n_ctx + r) * c->zrow;
        uint16_t *ps = (which ? c->zvp : c->zkp) + ((size_t)il * c->n_ctx + r) * c->n_head_kv * 2;
        memset(code, 0, c->zrow);
        for (h = 0; h < c->n_head_kv; h++) {
            float mn = INFINITY, mx = -INFINITY, step, y[512];
            for (i = 0; i < d && i < 512; i++) {
                float v = c->type == LK_TYPE_F16 ? lk_fp16_to_fp32(LK__CAST(const uint16_t *, src)[h * d + i]) : LK__CAST(const float *, src)[h * d + i];
                y[i] = v / sc[h * d + i];
                if (y[i] < mn) mn = y[i];
                if (y[i] > mx) mx = y[i];
            }
            /* mn and step are stored (and used) as f16 */
            mn = lk_fp16_to_fp32(lk_fp32_to_fp16(mn));
            step = lk_fp16_to_fp32(lk_fp32_to_fp16((mx - mn) / (float)levels));
            ps[2 * h] = lk_fp32_to_fp16(mn); ps[2 * h + 1] = lk_fp32_to_fp16(step);
            for (i = 0; i < d && i < 512; i++) {
                int qv = step > 0.0f ? (int)floorf((y[i] - mn) / step + 0.5f) : 0, e = h * d + i;
                if (qv < 0) qv = 0;
                if (qv > levels) qv = levels;
                if (c->zip_bits == 4) code[e >> 1] |= (unsigned char)(qv << ((e & 1) * 4));
                else code[e >> 2] |= (unsigned char)(qv << ((e & 3) * 2));
            }
        }
    }
    c->zq[il] = r + 1;
}
LKDEF void lk_kv_cache_store(lk_kv_cache *c, int il, int slot, const float *k, const float *v) {
    if (c->zip_bits) {
        const int W = c->zip_window;
        unsigned char *kd, *vd;
        while (slot - c->zq[il] >= W) lk__zip_quantize(c, il, c->zq[il]);   /* rows leaving the window */
        kd = c->k + ((size_t)il * W + (size_t)(slot % W)) * c->row_k;
        vd = c->v + ((size_t)il * W + (size_t)(slot % W)) * c->row_v;
        lk__kv_put_row(c->type, kd, k, c->n_embd_k);
        lk__kv_put_row(c->type, vd, v, c->n_embd_v);
        return;
    }
    lk__kv_put_row(c->type, c->k + ((size_t)il * c->n_ctx + slot) * c->row_k, k, c->n_embd_k);
    lk__kv_put_row(c->type, c->v + ((size_t)il * c->n_ctx + slot) * c->row_v, v, c->n_embd_v);
}
LKDEF void lk_kv_cache_truncate(lk_kv_cache *c, int n) {
    int il;
    if (n >= 0 && n < c->n) c->n = n;
    if (c->zip_bits && n >= 0)
        for (il = 0; il < c->n_layer; il++) if (c->zq[il] > n || c->zq[il] < 0) c->zq[il] = c->zq[il] < 0 ? 0 : n;   /* n = 0: scales are recomputed */
}
LKDEF lk_kv_view lk_kv_cache_view(const lk_kv_cache *c, int il, int head_dim, int n_rows) {
    lk_kv_view v;
    size_t es = c->type == LK_TYPE_F16 ? 2 : 4;
    memset(&v, 0, sizeof v);
    v.type = c->type;
    v.k = c->k + (size_t)il * c->n_ctx * c->row_k;
    v.v = c->v + (size_t)il * c->n_ctx * c->row_v;
    v.row_stride = c->row_k;        /* K and V rows have the same width here */
    v.head_stride = (size_t)head_dim * es;
    v.pos = c->pos; v.seg = c->seg; v.n_rows = n_rows;
    if (c->zip_bits) { v.zip = c; v.zip_layer = il; v.k = v.v = NULL; }
    return v;
}
LKDEF void lk_kv_cache_read(const lk_kv_cache *c, int il, int r, int h, float *k, float *v) {
    const int d = c->head_dim;
    float row[4096 + 64];
    int which, i;
    for (which = 0; which < 2; which++) {
        float *dst = which ? v : k;
        if (c->zip_bits && r < c->zq[il]) {
            const unsigned char *code = (which ? c->zv : c->zk) + ((size_t)il * c->n_ctx + r) * c->zrow;
            const uint16_t *ph = (which ? c->zvp : c->zkp) + ((size_t)il * c->n_ctx + r) * c->n_head_kv * 2 + 2 * h;
            const float *sc = (which ? c->zvs : c->zks) + (size_t)il * c->n_embd_k + (size_t)h * d;
            float mn = lk_fp16_to_fp32(ph[0]), st = lk_fp16_to_fp32(ph[1]);
            for (i = 0; i < d; i++) dst[i] = sc[i] * (mn + st * (float)lk__zip_code(code, c->zip_bits, h * d + i));
        } else {
            const unsigned char *src = c->zip_bits ? (which ? c->v : c->k) + ((size_t)il * c->zip_window + (size_t)(r % c->zip_window)) * c->row_k
                                                   : (which ? c->v + ((size_t)il * c->n_ctx + r) * c->row_v : c->k + ((size_t)il * c->n_ctx + r) * c->row_k);
            lk_kv_view tv;
            memset(&tv, 0, sizeof tv);
            tv.type = c->type; tv.k = src; tv.v = src; tv.row_stride = 0; tv.head_stride = (size_t)d * (c->type == LK_TYPE_F16 ? 2 : 4);
            { const float *x = lk__kv_row(&tv, which, 0, h, d, row); for (i = 0; i < d; i++) dst[i] = x[i]; }
        }
    }
}


/* --------------------------------------------------------------------------
 * 14.10p KV policies: which rows each query reads
 * --------------------------------------------------------------------------
 * A context keeps its policy state and attention scratch in an lk__kvp.
 * The model's attention block (14.13) describes one layer's chunk in an
 * lk__attn_job and calls lk__kv_attend, which runs the policy's row of
 * lk__kv_policies:
 *   attend      how the chunk runs: lk__attend_rows (every query row and
 *               head on its own, in parallel, over the rows `select` picks),
 *               lk__attend_h2o (token by token, one task per KV head, evicting
 *               as it goes) or lk__attend_ts (token by token: one selection
 *               for all heads, then the heads);
 *   select      for lk__attend_rows: the rows one query head reads (NULL:
 *               every visible row);
 *   state       the per-context state it needs, as sizes (lk__kvp_sizes);
 *   evicts      an evicting cache holds budget rows per layer: that is what
 *               lk_context_kv_bytes counts;
 *   step_state  1: state built from every past step (H2O scores), 2: the
 *               same when reuse_cos > 0 (a reused TokenSelect selection); the
 *               prefix cache cannot save such state. */
typedef struct lk__sel_pair { float s; int32_t r; } lk__sel_pair;

typedef struct lk__kvp {
    lk_kv_policy_params pp;         /* the context's settings                      */
    int n_layer, n_head, n_head_kv, head_dim, n_ctx;
    /* attention scratch, one slice per task (max(threads, n_head) tasks) */
    float *scores; size_t scr_f;    /* [tasks][scr_f]: lk_attn scratch | logits | tmp */
    int32_t *scr_i;                 /* [tasks][2 n_ctx] row lists                  */
    lk__sel_pair *scr_p;            /* [tasks][n_ctx] scored rows                  */
    float *split_scr;               /* split-KV decode partial results             */
    /* state (zeroed at creation, NULL when the policy has none) */
    int pg, n_pages;                /* quest page size and pages per layer         */
    float *quest;                   /* [n_layer][G][n_pages][2][d] K min, max      */
    int32_t *h2o_kept;              /* [n_layer][G][n_ctx] kept rows, ascending    */
    float *h2o_acc;                 /* [n_layer][G][n_ctx] accumulated attention   */
    int *h2o_n;                     /* [n_layer][G] rows kept                      */
    lk_rng *h2o_rng;                /* [n_layer][G] Keyformer noise streams        */
    int32_t *ts_sel;                /* [n_layer][n_ctx] TokenSelect rows           */
    int *ts_n, *ts_prev_n;          /* [n_layer] rows selected; rows at the last full selection (-1: none) */
    float *ts_q;                    /* [n_layer][H d] query of the last full selection */
    float *ts_vote;                 /* [n_ctx] soft-vote scratch                   */
} lk__kvp;

/* bytes of each state array (0: not needed) */
typedef struct lk__kvp_sizes {
    size_t quest, h2o_kept, h2o_acc, h2o_n, h2o_rng, ts_sel, ts_n, ts_q, ts_vote, total;
    int pg, n_pages;
} lk__kvp_sizes;

/* one layer's attention for a chunk of T query rows at slots slot0.. */
typedef struct lk__attn_job {
    lk__kvp *kp;
    lk_kv_cache *kv;
    const lk_threads *th;
    int n_threads, attn_split, attn_tile;
    const float *q;                 /* [T, H, d] queries                           */
    float *att;                     /* [T, H, d] outputs                           */
    int il, T, slot0, t;            /* layer, rows, first slot; t: the token of the sequential policies */
    const int *pos, *seg;           /* [T] positions, segments (NULL: all 0)       */
    const int32_t *slot;            /* [T] sequences: token t's slot (NULL: slot0 + t) */
    const int32_t *const *trows;    /* [T] sequences: the rows token t sees, in order */
    const int *tn;                  /* [T] how many (its own included)             */
    float *lse;                     /* [T, H] or NULL: each query head's log-sum-exp, for
                                     * the attention sinks (lk__attn_sinks)        */
    lk_attn_params ap;
    void (*select)(struct lk__attn_job *a, int task, int t, int h, lk_kv_view *kv);   /* set by lk__kv_attend */
} lk__attn_job;

typedef struct lk__kv_policy_def {
    const char *name;
    void (*attend)(lk__attn_job *a);
    void (*select)(lk__attn_job *a, int task, int t, int h, lk_kv_view *kv);
    void (*state)(const lk__kvp *dims, lk__kvp_sizes *z);
    unsigned char evicts, step_state;
} lk__kv_policy_def;

/* per-task scratch: floats, ints, pairs */
static float *lk__task_f(const lk__kvp *kp, int task) { return kp->scores + (size_t)task * kp->scr_f; }

/* ---- ways to run a layer ---- */
/* the rows visible to token t: everything stored up to its own slot, or
 * (sequences) its sequence's rows up to its own, as an index list */
static lk_kv_view lk__tok_view(const lk__attn_job *a, int t) {
    lk_kv_view kv;
    if (!a->trows) return lk_kv_cache_view(a->kv, a->il, a->kp->head_dim, a->slot0 + t + 1);
    kv = lk_kv_cache_view(a->kv, a->il, a->kp->head_dim, a->kv->n_ctx);
    kv.idx = a->trows[t]; kv.n_idx = a->tn[t];
    return kv;
}
/* lk__attend_rows' tasks: (token, head) pairs, each over its own rows */
static int lk__rows_blocked(const lk__attn_job *a) {   /* queries in blocks of LK__QB (lk__attn_qblock) */
    lk_kv_view kv;
    if (a->T < 2 || a->select || a->attn_tile > 0 || a->ap.tree_parent) return 0;
    kv = lk__tok_view(a, 0);
    return lk__attn_qblock_ok(&a->ap, &kv, a->kp->head_dim);
}
/* lk_decode_tree without a selecting policy: node t reads the rows before
 * the tree and its ancestors (root first) and itself, as an index list, so
 * its keys are numbered as in sequential decoding of its root path and its
 * attention is that decoding's, bit for bit */
static void lk__tree_rows(const lk__attn_job *a, int task, int t, lk_kv_view *kv) {
    int32_t *idx = a->kp->scr_i + (size_t)task * 2 * (size_t)a->kp->n_ctx;
    const int s0 = a->ap.tree_row0;
    int m = 0, r, x, depth = 0;
    for (x = t; x > 0 && a->ap.tree_parent[x] == x - 1; x--) {}
    if (x == 0 && a->ap.tree_parent[0] < 0) return;   /* ancestors = nodes 0..t: the plain row range is the same list */
    for (r = kv->row0; r < s0; r++) idx[m++] = r;
    for (x = t; x >= 0; x = a->ap.tree_parent[x]) depth++;
    m += depth;
    for (x = t, r = m; x >= 0; x = a->ap.tree_parent[x]) idx[--r] = s0 + x;
    kv->idx = idx; kv->n_idx = m;
}
static void lk__rows_fn(void *arg, int task, int n_tasks) {
    lk__attn_job *a = LK__CAST(lk__attn_job *, arg);
    const lk__kvp *kp = a->kp;
    const int H = kp->n_head, d = kp->head_dim, gqa = kp->n_head / kp->n_head_kv;
    const int total = a->T * H, per = (total + n_tasks - 1) / n_tasks;
    int w, lo = task * per, hi = lo + per > total ? total : lo + per;
    float *s = lk__task_f(kp, task);
    if (lk__rows_blocked(a)) {   /* items: (block of LK__QB tokens, head) */
        /* dealt out in turn (w = task, task + n_tasks, ...): a causal block's
         * keys grow with its position, so halves in order would give the last
         * task most of the work; each item is computed alone either way */
        const int nblk = (a->T + LK__QB - 1) / LK__QB, tot = nblk * H;
        const size_t ss = (size_t)kp->n_ctx;
        for (w = task; w < tot; w += n_tasks) {
            const int t0 = (w / H) * LK__QB, h = w % H, nq = a->T - t0 < LK__QB ? a->T - t0 : LK__QB;
            const float *qs[LK__QB];
            float *outs[LK__QB], lses[LK__QB];
            int qpos[LK__QB], qseg[LK__QB], nk[LK__QB], b;
            lk_kv_view kv = lk__tok_view(a, t0 + nq - 1);
            int same = 1;
            for (b = 0; b < nq; b++) {
                const int t = t0 + b;
                const lk_kv_view kb = lk__tok_view(a, t);   /* the rows visible to token t */
                qs[b] = a->q + ((size_t)t * H + h) * d;
                outs[b] = a->att + ((size_t)t * H + h) * d;
                qpos[b] = a->pos[t];
                qseg[b] = a->seg ? a->seg[t] : 0;
                nk[b] = kb.idx ? kb.n_idx : kb.n_rows - kb.row0;
                /* one list whose prefixes the queries see, in non-decreasing lengths */
                same &= kb.idx == kv.idx && kb.row0 == kv.row0 && (b == 0 || nk[b] >= nk[b - 1]);
            }
            if (same) lk__attn_qblock(&a->ap, nq, qs, qpos, qseg, &kv, nk, h / gqa, outs, lses, s, ss);
            else
                for (b = 0; b < nq; b++) {   /* views that differ in more than their length: one query at a time */
                    lk_attn_params ap = a->ap;
                    lk_kv_view kb = lk__tok_view(a, t0 + b);
                    ap.qseg = qseg[b];
                    lk_attn(&ap, qs[b], qpos[b], &kb, h / gqa, outs[b], &lses[b], s);
                }
            if (a->lse) for (b = 0; b < nq; b++) a->lse[(size_t)(t0 + b) * H + h] = lses[b];
        }
        return;
    }
    for (w = lo; w < hi; w++) {
        const int t = w / H, h = w % H;
        const float *q = a->q + ((size_t)t * H + h) * d;
        float *out = a->att + ((size_t)t * H + h) * d, lse;
        lk_attn_params ap = a->ap;
        lk_kv_view kv = lk__tok_view(a, t);
        ap.qseg = a->seg ? a->seg[t] : 0; ap.qrow = a->slot ? a->slot[t] : a->slot0 + t;
        if (a->select) a->select(a, task, t, h, &kv);
        else if (ap.tree_parent) lk__tree_rows(a, task, t, &kv);
        if (a->attn_tile > 0) lk_attn_tiled(&ap, q, a->pos[t], &kv, h / gqa, out, a->lse ? a->lse + w : &lse, s, a->attn_tile);
        else if (d == 8 && gqa % 2 == 0 && h % 2 == 0 && w + 1 < hi && !a->select) {   /* heads h, h + 1 share their KV head */
            lk__attn_pair8(&ap, q, q + d, a->pos[t], &kv, h / gqa, out, out + d, a->lse ? a->lse + w : NULL, a->lse ? a->lse + w + 1 : NULL,
                           s, s + kp->n_ctx);
            w++;
        } else lk_attn(&ap, q, a->pos[t], &kv, h / gqa, out, a->lse ? a->lse + w : NULL, s);   /* no merge: no lse (but the sinks') */
    }
}
static void lk__attend_rows(lk__attn_job *a) {
    const lk__kvp *kp = a->kp;
    const int H = kp->n_head, T = a->T, d = kp->head_dim;
    /* multiply-adds of this layer's attention: below ~64K a parallel region
     * costs more than it saves (tiny models decode in microseconds) */
    const int small = (double)T * H * (a->trows ? a->tn[T - 1] : a->slot0 + T) * d < 65536.0;
    if (T == 1 && a->attn_split > 1 && !a->select) {   /* split-KV decode: each head's keys across threads */
        int h;
        for (h = 0; h < H; h++) {
            float lse;
            lk_attn_params ap = a->ap;
            lk_kv_view kv = lk__tok_view(a, 0);
            ap.qseg = a->seg ? a->seg[0] : 0; ap.qrow = a->slot ? a->slot[0] : a->slot0;
            lk_attn_split(&ap, a->q + (size_t)h * d, a->pos[0], &kv, h / (H / kp->n_head_kv), a->att + (size_t)h * d, &lse, kp->split_scr,
                          a->attn_split, a->th);
            if (a->lse) a->lse[h] = lse;
        }
        return;
    }
    lk_parallel_for(a->th, small ? 1 : T * H < a->n_threads ? T * H : a->n_threads, lk__rows_fn, a);
}

/* ---- state sizes (dims: n_layer, n_head(_kv), head_dim, n_ctx, pp); the
 * other policies' come with them below ---- */
static void lk__state_none(const lk__kvp *k, lk__kvp_sizes *z) { (void)k; (void)z; }

/* ---- the policies (LLMKIT_NO_KV_POLICIES leaves them out) ---- */
#ifndef LLMKIT_NO_KV_POLICIES
static int lk__sel_cmp(const void *a, const void *b) {   /* score desc, then row asc */
    const lk__sel_pair *x = LK__CAST(const lk__sel_pair *, a), *y = LK__CAST(const lk__sel_pair *, b);
    if (x->s != y->s) return x->s > y->s ? -1 : 1;
    return x->r < y->r ? -1 : x->r > y->r;
}
static int lk__int_cmp(const void *a, const void *b) {
    int32_t x = *LK__CAST(const int32_t *, a), y = *LK__CAST(const int32_t *, b);
    return x < y ? -1 : x > y;
}

static int32_t *lk__task_i(const lk__kvp *kp, int task) { return kp->scr_i + (size_t)task * 2 * (size_t)kp->n_ctx; }
static lk__sel_pair *lk__task_p(const lk__kvp *kp, int task) { return kp->scr_p + (size_t)task * kp->n_ctx; }

/* q.k for row r, KV head h of a view, any storage type (tmp: 2 d floats) */
static float lk__key_dot(const lk_kv_view *kv, int r, int h, int d, const float *q, float *tmp) {
    float dot = 0.0f;
    int i;
    if (kv->zip) {
        const lk_kv_cache *z = kv->zip;
        lk_kv_cache_read(z, kv->zip_layer, r, h, tmp, tmp + d);
    } else {
        const float *k = lk__kv_row(kv, 0, r, h, d, tmp);
        if (k != tmp) for (i = 0; i < d; i++) tmp[i] = k[i];
    }
    for (i = 0; i < d; i++) dot += q[i] * tmp[i];
    return dot;
}

/* scaled logits z[j] of the view's keys (-inf where masked) */
static void lk__attn_logits(const lk_attn_params *p, const float *q, int qpos, const lk_kv_view *kv, int h, float *z, float *tmp) {
    const int n = kv->idx ? kv->n_idx : kv->n_rows - kv->row0;
    int j;
    for (j = 0; j < n; j++) {
        int r = kv->idx ? kv->idx[j] : kv->row0 + j, kpos = kv->pos ? kv->pos[r] : r;
        float s;
        if (lk__attn_masked(p, kv, r, qpos, kpos)) { z[j] = -INFINITY; continue; }
        s = lk__key_dot(kv, r, h, p->head_dim, q, tmp);
        if (p->softcap > 0.0f) s = p->softcap * tanhf(s * (1.0f / p->softcap));
        s *= p->scale;
        if (p->alibi_slope != 0.0f) s += p->alibi_slope * (float)(kpos - qpos);
        z[j] = s;
    }
}

/* ---- selections for lk__attend_rows ---- */
/* StreamingLLM: the first n_sink rows + the newest budget - n_sink */
static void lk__select_streaming(lk__attn_job *a, int task, int t, int h, lk_kv_view *kv) {
    const lk_kv_policy_params *pp = &a->kp->pp;
    const int n = a->trows ? a->tn[t] : a->slot0 + t + 1;
    const int32_t *rows = a->trows ? a->trows[t] : NULL;   /* sequences: the n rows of token t's sequence */
    int32_t *idx = lk__task_i(a->kp, task);
    int m = 0, j, ns, rc;
    (void)h;
    if (pp->budget <= 0 || pp->budget >= n) return;
    ns = pp->n_sink < pp->budget ? pp->n_sink : pp->budget - 1;
    rc = pp->budget - ns;
    for (j = 0; j < ns; j++) idx[m++] = rows ? rows[j] : j;
    for (j = n - rc; j < n; j++) idx[m++] = rows ? rows[j] : j;
    kv->idx = idx; kv->n_idx = m;
}

/* Quest: the newest page plus the top-scoring pages that fit in budget rows;
 * page score for query q: sum_c max(q_c min_c, q_c max_c) */
static void lk__select_quest(lk__attn_job *a, int task, int t, int h, lk_kv_view *kv) {
    const lk__kvp *kp = a->kp;
    const lk_kv_policy_params *pp = &kp->pp;
    const int P = kp->pg, d = kp->head_dim, n = a->slot0 + t + 1, np = (n + P - 1) / P, g = h / (kp->n_head / kp->n_head_kv);
    const float *q = a->q + ((size_t)t * kp->n_head + h) * d;
    const float *meta = kp->quest + ((size_t)a->il * kp->n_head_kv + g) * kp->n_pages * 2 * d;
    int32_t *idx = lk__task_i(kp, task), *pages = idx + n;   /* idx has room for 2n */
    lk__sel_pair *pr = lk__task_p(kp, task);
    int k, i, cnt = 0, room = pp->budget - (n - (np - 1) * P), npk = 0;
    if (pp->budget <= 0 || pp->budget >= n) return;
    for (k = 0; k < np - 1; k++) {
        const float *mn = meta + (size_t)k * 2 * d, *mx = mn + d;
        float s = 0.0f;
        for (i = 0; i < d; i++) { float x = q[i] * mn[i], y = q[i] * mx[i]; s += x > y ? x : y; }
        pr[k].s = s; pr[k].r = k;
    }
    qsort(pr, (size_t)(np - 1), sizeof *pr, lk__sel_cmp);
    while (npk < np - 1 && room >= P) { room -= P; npk++; }
    for (k = 0; k < npk; k++) pages[k] = pr[k].r;   /* the chosen pages' rows in ascending order, then the newest page */
    qsort(pages, (size_t)npk, sizeof *pages, lk__int_cmp);
    for (k = 0; k < npk; k++) { int r; for (r = pages[k] * P; r < pages[k] * P + P; r++) idx[cnt++] = r; }
    for (i = (np - 1) * P; i < n; i++) idx[cnt++] = i;
    kv->idx = idx; kv->n_idx = cnt;
}

/* Twilight: top-p over the candidates of the base selector (full or Quest):
 * per query head, the smallest set whose softmax mass, estimated from the
 * exact scores, reaches top_p; the threshold is found by binary search on
 * the probability */
static void lk__select_twilight(lk__attn_job *a, int task, int t, int h, lk_kv_view *kv) {
    const lk__kvp *kp = a->kp;
    const lk_kv_policy_params *pp = &kp->pp;
    const int n = a->slot0 + t + 1, d = kp->head_dim, g = h / (kp->n_head / kp->n_head_kv);
    const float *q = a->q + ((size_t)t * kp->n_head + h) * d;
    float *z = lk__task_f(kp, task), mx = -INFINITY, lo_t = 0.0f, hi_t, *tmp = z + n;
    int32_t *idx = lk__task_i(kp, task);
    lk_attn_params ap = a->ap;
    double sum = 0.0;
    int it, cnt = 0, m, j;
    if (pp->twilight_base == LK_KV_QUEST) lk__select_quest(a, task, t, h, kv);
    if (pp->top_p >= 1.0f) return;
    ap.qseg = a->seg ? a->seg[t] : 0; ap.qrow = a->slot0 + t;
    if (!kv->idx) { for (j = 0; j < n; j++) idx[j] = j; kv->idx = idx; kv->n_idx = n; }
    m = kv->n_idx;
    lk__attn_logits(&ap, q, a->pos[t], kv, g, z, tmp);
    for (j = 0; j < m; j++) if (z[j] > mx) mx = z[j];
    if (mx == -INFINITY) return;
    for (j = 0; j < m; j++) { z[j] = z[j] == -INFINITY ? 0.0f : expf(z[j] - mx); sum += z[j]; }
    for (j = 0; j < m; j++) z[j] = (float)(z[j] / sum);
    hi_t = 1.0f;
    for (it = 0; it < 40; it++) {   /* the largest threshold whose kept mass still reaches top_p */
        float mid = 0.5f * (lo_t + hi_t);
        double mass = 0.0;
        for (j = 0; j < m; j++) if (z[j] >= mid) mass += z[j];
        if (mass >= pp->top_p) lo_t = mid; else hi_t = mid;
    }
    for (j = 0; j < m; j++) if (z[j] >= lo_t && z[j] > 0.0f) idx[cnt++] = kv->idx[j];
    kv->n_idx = cnt;
}

/* H2O / Keyformer, token a->t: task = KV head g. The new row joins the kept
 * set; past the budget the `recent` newest and the top (budget - recent)
 * by accumulated score stay, the rest are evicted for good; then each query
 * head of g attends and adds its attention (Keyformer: softmax((z + G)/tau))
 * to the kept rows' scores. */
static void lk__h2o_fn(void *arg, int g, int n_tasks) {
    lk__attn_job *a = LK__CAST(lk__attn_job *, arg);
    lk__kvp *kp = a->kp;
    const lk_kv_policy_params *pp = &kp->pp;
    const int H = kp->n_head, d = kp->head_dim, gqa = kp->n_head / kp->n_head_kv, t = a->t, slot = a->slot0 + t;
    const size_t st = (size_t)a->il * kp->n_head_kv + g;
    int32_t *kept = kp->h2o_kept + st * kp->n_ctx;
    float *acc = kp->h2o_acc + st * kp->n_ctx, *s = lk__task_f(kp, g), *z = s + lk_attn_scratch_floats(&a->ap, kp->n_ctx) + 48;
    int *nk = kp->h2o_n + st, h, j;
    lk_attn_params ap = a->ap;
    (void)n_tasks;
    ap.qseg = a->seg ? a->seg[t] : 0; ap.qrow = a->slot0 + t;
    kept[(*nk)++] = slot; acc[slot] = 0.0f;
    if (pp->budget > 0 && *nk > pp->budget) {   /* evict before attending: keep `recent` newest + top heavy */
        int recent = pp->recent > 0 ? pp->recent : pp->budget / 2, heavy, nc, m = 0;
        lk__sel_pair *pr = lk__task_p(kp, g);
        int32_t *keep = lk__task_i(kp, g);
        if (recent > pp->budget) recent = pp->budget;
        if (recent < 1) recent = 1;   /* the new row itself */
        heavy = pp->budget - recent;
        nc = *nk - recent;
        for (j = 0; j < nc; j++) { pr[j].s = acc[kept[j]]; pr[j].r = kept[j]; }
        qsort(pr, (size_t)nc, sizeof *pr, lk__sel_cmp);
        for (j = 0; j < heavy && j < nc; j++) keep[m++] = pr[j].r;
        qsort(keep, (size_t)m, sizeof *keep, lk__int_cmp);
        for (j = nc; j < *nk; j++) keep[m++] = kept[j];
        memcpy(kept, keep, sizeof(int32_t) * (size_t)m);
        *nk = m;
    }
    for (h = g * gqa; h < (g + 1) * gqa; h++) {
        const float *q = a->q + ((size_t)t * H + h) * d;
        float lse, *tmp = z + kp->n_ctx;
        lk_kv_view kv = lk_kv_cache_view(a->kv, a->il, d, slot + 1);
        kv.idx = kept; kv.n_idx = *nk;
        lk_attn(&ap, q, a->pos[t], &kv, g, a->att + ((size_t)t * H + h) * d, &lse, s);
        if (a->lse) a->lse[(size_t)t * H + h] = lse;
        lk__attn_logits(&ap, q, a->pos[t], &kv, g, z, tmp);
        if (pp->policy == LK_KV_KEYFORMER) {
            /* softmax((z + G) / tau), tau from tau_init to tau_end over the context */
            float frac = kp->n_ctx > 1 ? (float)a->pos[t] / (float)(kp->n_ctx - 1) : 1.0f, tau, mx = -INFINITY;
            double sum = 0.0;
            lk_rng *rng = kp->h2o_rng + st;
            if (frac > 1.0f) frac = 1.0f;
            tau = pp->tau_init + (pp->tau_end - pp->tau_init) * frac;
            if (!(tau > 0.0f)) tau = 1.0f;
            for (j = 0; j < *nk; j++) { float gn = lk_rng_gumbel(rng); if (z[j] != -INFINITY) { z[j] = (z[j] + gn) / tau; if (z[j] > mx) mx = z[j]; } }
            if (mx > -INFINITY) {
                for (j = 0; j < *nk; j++) { z[j] = z[j] == -INFINITY ? 0.0f : expf(z[j] - mx); sum += z[j]; }
                for (j = 0; j < *nk; j++) acc[kept[j]] += (float)(z[j] / sum);
            }
        } else if (lse > -INFINITY) {
            for (j = 0; j < *nk; j++) if (z[j] != -INFINITY) acc[kept[j]] += expf(z[j] - lse);
        }
    }
}
static void lk__attend_h2o(lk__attn_job *a) {
    for (a->t = 0; a->t < a->T; a->t++) lk_parallel_for(a->th, a->kp->n_head_kv, lk__h2o_fn, a);
}

/* TokenSelect, token a->t: task = query head h over the layer's selection */
static void lk__ts_fn(void *arg, int h, int n_tasks) {
    lk__attn_job *a = LK__CAST(lk__attn_job *, arg);
    const lk__kvp *kp = a->kp;
    const int H = kp->n_head, d = kp->head_dim, gqa = kp->n_head / kp->n_head_kv, t = a->t;
    float lse;
    lk_attn_params ap = a->ap;
    lk_kv_view kv = lk_kv_cache_view(a->kv, a->il, d, a->slot0 + t + 1);
    (void)n_tasks;
    ap.qseg = a->seg ? a->seg[t] : 0; ap.qrow = a->slot0 + t;
    kv.idx = kp->ts_sel + (size_t)a->il * kp->n_ctx; kv.n_idx = kp->ts_n[a->il];
    lk_attn(&ap, a->q + ((size_t)t * H + h) * d, a->pos[t], &kv, h / gqa, a->att + ((size_t)t * H + h) * d, &lse, lk__task_f(kp, h));
    if (a->lse) a->lse[(size_t)t * H + h] = lse;
}

/* the selection for token a->t of layer il: n_sink first rows, `recent`
 * newest, and the top of the rest by the heads' summed softmax (soft vote);
 * with reuse_cos, the previous selection (plus the new rows) while the
 * query's cosine to the last full selection's stays >= reuse_cos */
static void lk__ts_select(lk__attn_job *a) {
    lk__kvp *kp = a->kp;
    const lk_kv_policy_params *pp = &kp->pp;
    const int H = kp->n_head, d = kp->head_dim, gqa = H / kp->n_head_kv, t = a->t, n = a->slot0 + t + 1, il = a->il;
    int32_t *sel = kp->ts_sel + (size_t)il * kp->n_ctx;
    float *qp = kp->ts_q + (size_t)il * H * d;
    const float *qt = a->q + (size_t)t * H * d;
    int *ns = kp->ts_n + il, j, h, m = 0;
    lk_attn_params ap = a->ap;
    ap.qseg = a->seg ? a->seg[t] : 0; ap.qrow = a->slot0 + t;
    if (pp->budget <= 0 || pp->budget >= n) {
        for (j = 0; j < n; j++) sel[j] = j;
        *ns = n; kp->ts_prev_n[il] = -1;
        return;
    }
    if (pp->reuse_cos > 0.0f && kp->ts_prev_n[il] >= 0) {
        double dot = 0.0, a2 = 0.0, b2 = 0.0;
        for (j = 0; j < H * d; j++) { dot += (double)qt[j] * qp[j]; a2 += (double)qt[j] * qt[j]; b2 += (double)qp[j] * qp[j]; }
        if (a2 > 0.0 && b2 > 0.0 && dot / sqrt(a2 * b2) >= pp->reuse_cos) {
            for (j = kp->ts_prev_n[il]; j < n; j++) sel[(*ns)++] = j;   /* previous selection + the new rows */
            kp->ts_prev_n[il] = n;
            return;
        }
    }
    {
        float *vote = kp->ts_vote, *z = lk__task_f(kp, 0), *tmp = z + kp->n_ctx;
        lk__sel_pair *pr = lk__task_p(kp, 0);
        lk_kv_view kv = lk_kv_cache_view(a->kv, il, d, n);
        int sinks = pp->n_sink < pp->budget ? pp->n_sink : 0, local = pp->recent > 0 ? pp->recent : pp->budget / 8, k, np = 0;
        if (local < 1) local = 1;
        if (sinks + local > pp->budget) local = pp->budget - sinks;
        k = pp->budget - sinks - local;
        for (j = 0; j < n; j++) vote[j] = 0.0f;
        for (h = 0; h < H; h++) {   /* soft vote: per-head softmax of the scores, summed */
            float mx = -INFINITY;
            double sum = 0.0;
            lk__attn_logits(&ap, qt + (size_t)h * d, a->pos[t], &kv, h / gqa, z, tmp);
            for (j = 0; j < n; j++) if (z[j] > mx) mx = z[j];
            if (mx == -INFINITY) continue;
            for (j = 0; j < n; j++) { z[j] = z[j] == -INFINITY ? 0.0f : expf(z[j] - mx); sum += z[j]; }
            for (j = 0; j < n; j++) vote[j] += (float)(z[j] / sum);
        }
        for (j = sinks; j < n - local; j++) { pr[np].s = vote[j]; pr[np].r = j; np++; }
        qsort(pr, (size_t)np, sizeof *pr, lk__sel_cmp);
        for (j = 0; j < sinks; j++) sel[m++] = j;
        for (j = 0; j < k && j < np; j++) sel[m++] = pr[j].r;
        qsort(sel + sinks, (size_t)(m - sinks), sizeof *sel, lk__int_cmp);
        for (j = n - local; j < n; j++) sel[m++] = j;
        *ns = m;
        memcpy(qp, qt, sizeof(float) * (size_t)H * d);
        kp->ts_prev_n[il] = n;
    }
}
static void lk__attend_ts(lk__attn_job *a) {
    for (a->t = 0; a->t < a->T; a->t++) { lk__ts_select(a); lk_parallel_for(a->th, a->kp->n_head, lk__ts_fn, a); }
}

static void lk__state_quest(const lk__kvp *k, lk__kvp_sizes *z) {
    z->pg = k->pp.page_size > 0 ? k->pp.page_size : 16;
    z->n_pages = (k->n_ctx + z->pg - 1) / z->pg;
    z->quest = lk__pad64(lk__szm(lk__szm(sizeof(float) * 2 * (size_t)k->n_layer * k->n_head_kv, (size_t)z->n_pages), (size_t)k->head_dim));
}
static void lk__state_h2o(const lk__kvp *k, lk__kvp_sizes *z) {
    const size_t LG = (size_t)k->n_layer * k->n_head_kv;
    z->h2o_kept = lk__pad64(lk__szm(sizeof(int32_t) * LG, (size_t)k->n_ctx));
    z->h2o_acc = lk__pad64(lk__szm(sizeof(float) * LG, (size_t)k->n_ctx));
    z->h2o_n = lk__pad64(sizeof(int) * LG);
    z->h2o_rng = lk__pad64(sizeof(lk_rng) * LG);
}
static void lk__state_ts(const lk__kvp *k, lk__kvp_sizes *z) {
    z->ts_sel = lk__pad64(lk__szm(sizeof(int32_t) * (size_t)k->n_layer, (size_t)k->n_ctx));
    z->ts_n = lk__pad64(sizeof(int) * (size_t)k->n_layer);
    z->ts_q = lk__pad64(sizeof(float) * (size_t)k->n_layer * k->n_head * k->head_dim);
    z->ts_vote = lk__pad64(sizeof(float) * (size_t)k->n_ctx);
}
static void lk__state_twilight(const lk__kvp *k, lk__kvp_sizes *z) { if (k->pp.twilight_base == LK_KV_QUEST) lk__state_quest(k, z); }
#endif /* LLMKIT_NO_KV_POLICIES */

#ifndef LLMKIT_NO_KV_POLICIES
#define LK__POL(f) f
#else                      /* only FULL runs; the others are refused at context creation */
#define LK__POL(f) NULL
#endif
static const lk__kv_policy_def lk__kv_policies[LK_KV_POLICY_COUNT] = {
    /* name          attend                    select                        state                        evicts step_state */
    { "full",        lk__attend_rows,          NULL,                         lk__state_none,              0, 0 },
    { "streaming",   LK__POL(lk__attend_rows), LK__POL(lk__select_streaming), lk__state_none,             1, 0 },
    { "h2o",         LK__POL(lk__attend_h2o),  NULL,                         LK__POL(lk__state_h2o),      1, 1 },
    { "keyformer",   LK__POL(lk__attend_h2o),  NULL,                         LK__POL(lk__state_h2o),      1, 1 },
    { "quest",       LK__POL(lk__attend_rows), LK__POL(lk__select_quest),    LK__POL(lk__state_quest),    0, 0 },
    { "tokenselect", LK__POL(lk__attend_ts),   NULL,                         LK__POL(lk__state_ts),       0, 2 },
    { "twilight",    LK__POL(lk__attend_rows), LK__POL(lk__select_twilight), LK__POL(lk__state_twilight), 0, 0 },
};
#undef LK__POL

LKDEF const char *lk_kv_policy_name(lk_kv_policy p) { return (unsigned)p < (unsigned)LK_KV_POLICY_COUNT ? lk__kv_policies[p].name : "?"; }
LKDEF int lk_kv_policy_from_name(const char *name) {
    int i;
    if (!name) return -1;
    for (i = 0; i < LK_KV_POLICY_COUNT; i++) if (!strcmp(name, lk__kv_policies[i].name)) return i;
    return -1;
}
LKDEF lk_kv_policy_params lk_kv_policy_default_params(void) {
    lk_kv_policy_params p;
    memset(&p, 0, sizeof p);
    p.policy = LK_KV_FULL; p.budget = 0; p.n_sink = 4; p.recent = 0; p.page_size = 16; p.top_p = 0.95f;
    p.twilight_base = LK_KV_FULL; p.tau_init = 1.0f; p.tau_end = 2.0f; p.seed = 0; p.reuse_cos = 0.0f;
    return p;
}

/* Check the settings and size the state for the dims in k (k->pp set). */
static lk_status lk__kvp_sizes_get(const lk__kvp *k, lk__kvp_sizes *z) {
    const lk_kv_policy_params *pp = &k->pp;
    memset(z, 0, sizeof *z);
    if ((unsigned)pp->policy >= (unsigned)LK_KV_POLICY_COUNT) return lk_set_error(LK_ERR_INVALID_ARG, "context: unknown kv policy %d", (int)pp->policy);
    if (pp->policy == LK_KV_TWILIGHT && pp->twilight_base != LK_KV_FULL && pp->twilight_base != LK_KV_QUEST)
        return lk_set_error(LK_ERR_UNSUPPORTED, "context: twilight_base must be full or quest");
    if (pp->budget < 0 || pp->n_sink < 0 || pp->recent < 0 || pp->page_size < 0)
        return lk_set_error(LK_ERR_INVALID_ARG, "context: negative kv policy parameter");
    if (!lk__kv_policies[pp->policy].attend)
        return lk_set_error(LK_ERR_UNSUPPORTED, "context: kv policy %s is compiled out (LLMKIT_NO_KV_POLICIES)", lk__kv_policies[pp->policy].name);
    lk__kv_policies[pp->policy].state(k, z);
    {
        const size_t parts[] = { z->quest, z->h2o_kept, z->h2o_acc, z->h2o_n, z->h2o_rng, z->ts_sel, z->ts_n, z->ts_n, z->ts_q, z->ts_vote };
        size_t i;
        for (i = 0; i < sizeof parts / sizeof parts[0]; i++) z->total = lk__sza(z->total, parts[i]);
    }
    return LK_OK;
}
/* Lay the state out in mem (z->total bytes, zeroed) */
static void lk__kvp_bind(lk__kvp *k, const lk__kvp_sizes *z, unsigned char *mem) {
#define LK__TAKE(ptr, T, sz) do { if (sz) { ptr = LK__CAST(T, mem); mem += (sz); } } while (0)
    k->pg = z->pg; k->n_pages = z->n_pages;
    LK__TAKE(k->quest, float *, z->quest);
    LK__TAKE(k->h2o_kept, int32_t *, z->h2o_kept); LK__TAKE(k->h2o_acc, float *, z->h2o_acc);
    LK__TAKE(k->h2o_n, int *, z->h2o_n); LK__TAKE(k->h2o_rng, lk_rng *, z->h2o_rng);
    LK__TAKE(k->ts_sel, int32_t *, z->ts_sel); LK__TAKE(k->ts_n, int *, z->ts_n); LK__TAKE(k->ts_prev_n, int *, z->ts_n);
    LK__TAKE(k->ts_q, float *, z->ts_q); LK__TAKE(k->ts_vote, float *, z->ts_vote);
#undef LK__TAKE
}
/* forget the state of rows >= n (n = 0: everything) */
static void lk__kvp_truncate(lk__kvp *k, int n) {
    int i, j;
    if (k->h2o_n)
        for (i = 0; i < k->n_layer * k->n_head_kv; i++) {
            int32_t *kept = k->h2o_kept + (size_t)i * k->n_ctx;
            int m = 0;
            for (j = 0; j < k->h2o_n[i]; j++) if (kept[j] < n) kept[m++] = kept[j];
            k->h2o_n[i] = m;
            if (n == 0) lk_rng_seed_stream(&k->h2o_rng[i], k->pp.seed, (uint64_t)i);
        }
    if (k->ts_n) for (i = 0; i < k->n_layer; i++) { k->ts_n[i] = 0; k->ts_prev_n[i] = -1; }
}
/* a stored K row (kr: [G, d]) at slot of layer il: Quest page bounds */
static void lk__kvp_store(lk__kvp *k, int il, int slot, const float *kr) {
    const int d = k->head_dim;
    int g, i;
    if (!k->quest) return;
    for (g = 0; g < k->n_head_kv; g++) {   /* per-channel min / max of K */
        float *mn = k->quest + (((size_t)il * k->n_head_kv + g) * k->n_pages + (size_t)(slot / k->pg)) * 2 * d, *mx = mn + d;
        const float *x = kr + (size_t)g * d;
        for (i = 0; i < d; i++) {
            if (slot % k->pg == 0 || x[i] < mn[i]) mn[i] = x[i];
            if (slot % k->pg == 0 || x[i] > mx[i]) mx[i] = x[i];
        }
    }
}
/* bytes of state kept for `rows` rows per layer (KV byte reports) */
static uint64_t lk__kvp_bytes(const lk__kvp *k, int rows) {
    uint64_t b = 0;
    if (k->h2o_n) b += (uint64_t)k->n_layer * k->n_head_kv * (uint64_t)rows * 8;   /* row ids and scores of the kept rows */
    if (k->quest) b += (uint64_t)k->n_layer * k->n_head_kv * k->n_pages * 2 * k->head_dim * sizeof(float);
    return b;
}
/* 1 if the state depends on every past step, so a prefix cannot be saved */
static int lk__kvp_has_step_state(const lk__kvp *k) {
    const int s = lk__kv_policies[k->pp.policy].step_state;
    return s == 1 || (s == 2 && k->pp.reuse_cos > 0.0f);
}
/* one layer's attention for the job's chunk, as the policy runs it */
static void lk__kv_attend(lk__attn_job *a) {
    const lk__kv_policy_def *pd = &lk__kv_policies[a->kp->pp.policy];
    a->select = pd->select;
    pd->attend(a);
}

/* --------------------------------------------------------------------------
 * 14.11 Sampling
 * -------------------------------------------------------------------------- */
/* --- RNG: PCG32 XSH-RR ------------------------------------------------------
 * state' = state * 6364136223846793005 + inc   (mod 2^64)
 * out    = rotr32(((old >> 18) ^ old) >> 27, old >> 59)                      */
#define LK__PCG_MULT 6364136223846793005ull

LKDEF uint32_t lk_rng_u32(lk_rng *r) {
    uint64_t old = r->state;
    uint32_t xs, rot;
    r->state = old * LK__PCG_MULT + r->inc;
    xs = (uint32_t)(((old >> 18) ^ old) >> 27);
    rot = (uint32_t)(old >> 59);
    return (xs >> rot) | (xs << ((32u - rot) & 31u));
}
LKDEF void lk_rng_seed_stream(lk_rng *r, uint64_t seed, uint64_t stream) {
    r->state = 0;
    r->inc = (stream << 1) | 1u;
    (void)lk_rng_u32(r);
    r->state += seed;
    (void)lk_rng_u32(r);
}
LKDEF void lk_rng_seed(lk_rng *r, uint64_t seed) { lk_rng_seed_stream(r, seed, LK_RNG_DEFAULT_STREAM); }
LKDEF uint32_t lk_rng_below(lk_rng *r, uint32_t n) {
    /* rejection of the low (2^32 mod n) values: exact uniformity */
    uint32_t thr, x;
    if (n == 0) return 0;
    thr = (0u - n) % n;
    do { x = lk_rng_u32(r); } while (x < thr);
    return x % n;
}
LKDEF float lk_rng_float(lk_rng *r) {
    return (float)(lk_rng_u32(r) >> 8) * (1.0f / 16777216.0f);
}
LKDEF double lk_rng_double(lk_rng *r) {
    uint64_t hi = lk_rng_u32(r) >> 5, lo = lk_rng_u32(r) >> 6; /* 27 + 26 bits */
    return (double)((hi << 26) | lo) * (1.0 / 9007199254740992.0);
}
LKDEF float lk_rng_gumbel(lk_rng *r) {
    double u = ((double)lk_rng_u32(r) + 0.5) * (1.0 / 4294967296.0); /* (0,1) */
    return (float)-log(-log(u));
}
LKDEF void lk_rng_gumbel_fill(lk_rng *r, float *out, size_t n) {
    size_t i;
    if (!r || !out) return;
    for (i = 0; i < n; i++) out[i] = lk_rng_gumbel(r);
}

/* --- ordering and sorting (in place, no allocation, deterministic) ---------
 * mode 0: logit desc, then id asc (the "sorted" order)
 * mode 1: p asc (typical's shifted score is parked in p), then mode 0     */
static int lk__tok_lt(const lk_token_data *a, const lk_token_data *b, int mode) {
    if (mode == 1 && a->p != b->p) return a->p < b->p;
    if (a->logit != b->logit) return a->logit > b->logit;
    return a->id < b->id;
}
/* max-heap where the root is the element that comes last in the order */
static void lk__sift(lk_token_data *d, size_t n, size_t i, int mode) {
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        lk_token_data t;
        if (l < n && lk__tok_lt(&d[m], &d[l], mode)) m = l;
        if (r < n && lk__tok_lt(&d[m], &d[r], mode)) m = r;
        if (m == i) return;
        t = d[i]; d[i] = d[m]; d[m] = t;
        i = m;
    }
}
static void lk__heapify(lk_token_data *d, size_t n, int mode) {
    size_t i = n / 2;
    while (i-- > 0) lk__sift(d, n, i, mode);
}
static void lk__heap_sort_out(lk_token_data *d, size_t n, int mode) {
    while (n > 1) {
        lk_token_data t = d[0]; d[0] = d[n - 1]; d[n - 1] = t;
        n--;
        lk__sift(d, n, 0, mode);
    }
}
static void lk__sort_tokens(lk_token_data *d, size_t n, int mode) {
    lk__heapify(d, n, mode);
    lk__heap_sort_out(d, n, mode);
}
/* Move the first k (in mode order) to d[0..k), sorted. O(n log k). */
static void lk__partial_sort(lk_token_data *d, size_t n, size_t k, int mode) {
    size_t i;
    if (k > n) k = n;
    if (k == 0) return;
    lk__heapify(d, k, mode);
    for (i = k; i < n; i++) {
        if (lk__tok_lt(&d[i], &d[0], mode)) {
            lk_token_data t = d[0]; d[0] = d[i]; d[i] = t;
            lk__sift(d, k, 0, mode);
        }
    }
    lk__heap_sort_out(d, k, mode);
}

static lk_status lk__cand_check(const lk_candidates *c, const char *fn) {
    if (!c || !c->data) return lk_set_error(LK_ERR_INVALID_ARG, "%s: NULL candidates", fn);
    if (c->size == 0) return lk_set_error(LK_ERR_INVALID_ARG, "%s: empty candidate array", fn);
    return LK_OK;
}
static int lk__isnan(float x) { return x != x; }
static int lk__isfinite(float x) { return x == x && x - x == 0.0f; }
static size_t lk__min_keep(int min_keep) { return min_keep > 0 ? (size_t)min_keep : 0; }

LKDEF lk_status lk_candidates_init(lk_candidates *c, lk_token_data *buf, const float *logits, int n_vocab) {
    int i, any = 0;
    if (!c || !buf || !logits) return lk_set_error(LK_ERR_INVALID_ARG, "lk_candidates_init: NULL argument");
    if (n_vocab <= 0) return lk_set_error(LK_ERR_INVALID_ARG, "lk_candidates_init: n_vocab %d <= 0", n_vocab);
    for (i = 0; i < n_vocab; i++) {
        float l = logits[i];
        if (lk__isnan(l) || l == (float)HUGE_VAL)
            return lk_set_error(LK_ERR_INVALID_ARG, "lk_candidates_init: logit %d is %s", i, lk__isnan(l) ? "NaN" : "+inf");
        if (l != -(float)HUGE_VAL) any = 1;
        buf[i].id = i; buf[i].logit = l; buf[i].p = 0.0f;
    }
    if (!any) return lk_set_error(LK_ERR_INVALID_ARG, "lk_candidates_init: all %d logits are -inf", n_vocab);
    c->data = buf; c->size = (size_t)n_vocab; c->sorted = 0;
    return LK_OK;
}

/* Largest logit of d[0..n). A logit can reach +inf only through overflow
 * (huge logits divided by a penalty < 1 or a tiny temperature); softmax's
 * limit then gives the +inf tokens equal mass and the rest none, so rewrite
 * +inf -> 0 and everything else -> -inf (order among the +inf tokens kept). */
static float lk__max_logit(lk_token_data *d, size_t n) {
    float mx = d[0].logit;
    size_t i;
    for (i = 1; i < n; i++) if (d[i].logit > mx) mx = d[i].logit;
    if (mx == (float)HUGE_VAL) {
        for (i = 0; i < n; i++) d[i].logit = d[i].logit == (float)HUGE_VAL ? 0.0f : -(float)HUGE_VAL;
        mx = 0.0f;
    }
    return mx;
}

/* p over data[0..n) = softmax(logit); data must be sorted (max first). */
static lk_status lk__softmax_sorted(lk_token_data *d, size_t n) {
    float mx = lk__max_logit(d, n);
    double sum = 0.0;
    size_t i;
    if (!(mx > -(float)HUGE_VAL) || lk__isnan(mx) || mx == (float)HUGE_VAL)
        return lk_set_error(LK_ERR_INVALID_ARG, "softmax: largest logit is not finite (all tokens banned?)");
    for (i = 0; i < n; i++) { float e = expf(d[i].logit - mx); d[i].p = e; sum += e; }
    for (i = 0; i < n; i++) d[i].p = (float)(d[i].p / sum);
    return LK_OK;
}
LKDEF lk_status lk_sample_softmax(lk_candidates *c) {
    lk_status st = lk__cand_check(c, "lk_sample_softmax");
    if (st) return st;
    if (!c->sorted) { lk__sort_tokens(c->data, c->size, 0); c->sorted = 1; }
    return lk__softmax_sorted(c->data, c->size);
}

LKDEF lk_status lk_sample_greedy(const lk_candidates *c, lk_token *out_token) {
    size_t i, best = 0;
    lk_status st = lk__cand_check(c, "lk_sample_greedy");
    if (st) return st;
    if (!out_token) return lk_set_error(LK_ERR_INVALID_ARG, "lk_sample_greedy: NULL out_token");
    for (i = 1; i < c->size; i++)
        if (lk__tok_lt(&c->data[i], &c->data[best], 0)) best = i;
    *out_token = c->data[best].id;
    return LK_OK;
}

LKDEF lk_status lk_sample_temperature(lk_candidates *c, float t) {
    size_t i;
    lk_status st = lk__cand_check(c, "lk_sample_temperature");
    if (st) return st;
    if (!lk__isfinite(t)) return lk_set_error(LK_ERR_INVALID_ARG, "lk_sample_temperature: temperature is NaN or inf");
    if (t <= 0.0f) {
        size_t best = 0;
        for (i = 1; i < c->size; i++)
            if (lk__tok_lt(&c->data[i], &c->data[best], 0)) best = i;
        for (i = 0; i < c->size; i++)
            if (i != best) c->data[i].logit = -(float)HUGE_VAL;
        return LK_OK;
    }
    {
        /* logit /= t; if that would overflow (tiny t), use (logit - max) / t
         * instead: softmax and every truncation are shift-invariant. */
        float mx = -(float)HUGE_VAL, mn = (float)HUGE_VAL;
        for (i = 0; i < c->size; i++) {
            float l = c->data[i].logit;
            if (l > -(float)HUGE_VAL && l < (float)HUGE_VAL) { if (l > mx) mx = l; if (l < mn) mn = l; }
        }
        if (mx >= mn && (fabsf(mx) > t * 1e37f || fabsf(mn) > t * 1e37f)) {
            for (i = 0; i < c->size; i++) c->data[i].logit = (c->data[i].logit - mx) / t;
        } else {
            for (i = 0; i < c->size; i++) c->data[i].logit /= t;   /* order preserved */
        }
    }
    return LK_OK;
}

LKDEF lk_status lk_sample_top_k(lk_candidates *c, int k) {
    lk_status st = lk__cand_check(c, "lk_sample_top_k");
    if (st) return st;
    if (k <= 0 || (size_t)k >= c->size) return LK_OK;
    if (!c->sorted) { lk__partial_sort(c->data, c->size, (size_t)k, 0); c->sorted = 1; }
    c->size = (size_t)k;
    return LK_OK;
}

LKDEF lk_status lk_sample_top_p(lk_candidates *c, float p, int min_keep) {
    double cum = 0.0;
    size_t i, keep, mk = lk__min_keep(min_keep);
    lk_status st = lk__cand_check(c, "lk_sample_top_p");
    if (st) return st;
    if (lk__isnan(p)) return lk_set_error(LK_ERR_INVALID_ARG, "lk_sample_top_p: p is NaN");
    if (p >= 1.0f) return LK_OK;
    if (!c->sorted && c->size > 1024) {
        /* Large unsorted input: sort only a growing prefix (O(n log k) per
         * round, k = 256, 4096, ...) until it holds mass >= p. Same result
         * as a full sort: p_i = e^(l_i - max) / sum over all candidates. */
        float mx = lk__max_logit(c->data, c->size);
        double sum = 0.0;
        size_t k;
        if (!(mx > -(float)HUGE_VAL))
            return lk_set_error(LK_ERR_INVALID_ARG, "lk_sample_top_p: all tokens banned");
        for (i = 0; i < c->size; i++) sum += expf(c->data[i].logit - mx);
        for (k = 256; k < c->size; k *= 16) {
            lk__partial_sort(c->data, c->size, k, 0);
            cum = 0.0;
            for (i = 0; i < k; i++) {
                c->data[i].p = (float)(expf(c->data[i].logit - mx) / sum);
                cum += c->data[i].p;
                if (cum >= p && i + 1 >= mk) { c->size = i + 1; c->sorted = 1; return LK_OK; }
            }
        }
    }
    if ((st = lk_sample_softmax(c)) != LK_OK) return st;
    keep = c->size;
    cum = 0.0;
    for (i = 0; i < c->size; i++) {
        cum += c->data[i].p;
        if (cum >= p && i + 1 >= mk) { keep = i + 1; break; }
    }
    c->size = keep;
    return LK_OK;
}

LKDEF lk_status lk_sample_min_p(lk_candidates *c, float p, int min_keep) {
    size_t i, n = 0, mk = lk__min_keep(min_keep);
    float mx, thr;
    lk_status st = lk__cand_check(c, "lk_sample_min_p");
    if (st) return st;
    if (lk__isnan(p)) return lk_set_error(LK_ERR_INVALID_ARG, "lk_sample_min_p: p is NaN");
    if (p <= 0.0f) return LK_OK;
    mx = lk__max_logit(c->data, c->size);
    thr = mx + logf(p);          /* p_i >= p * p_max  <=>  logit_i >= max + log p */
    for (i = 0; i < c->size; i++) if (c->data[i].logit >= thr) n++;
    if (n >= mk || n >= c->size) {
        if (!c->sorted) {        /* stable compaction keeps the current order */
            size_t o = 0;
            for (i = 0; i < c->size; i++) if (c->data[i].logit >= thr) c->data[o++] = c->data[i];
        }
        c->size = n > 0 ? n : 1;
        return LK_OK;
    }
    /* fewer than min_keep pass: keep the min_keep largest */
    if (!c->sorted) { lk__partial_sort(c->data, c->size, mk, 0); c->sorted = 1; }
    c->size = mk < c->size ? mk : c->size;
    return LK_OK;
}

LKDEF lk_status lk_sample_typical(lk_candidates *c, float p, int min_keep) {
    double ent = 0.0, cum = 0.0, sum = 0.0;
    float mx;
    size_t i, keep, mk = lk__min_keep(min_keep);
    lk_status st = lk__cand_check(c, "lk_sample_typical");
    if (st) return st;
    if (lk__isnan(p)) return lk_set_error(LK_ERR_INVALID_ARG, "lk_sample_typical: p is NaN");
    if (p >= 1.0f) return LK_OK;
    if ((st = lk_sample_softmax(c)) != LK_OK) return st;
    if (mk < 1) mk = 1;
    /* H = -sum p log p  (nats; p = 0 terms contribute 0) */
    for (i = 0; i < c->size; i++) { double q = c->data[i].p; if (q > 0) ent -= q * log(q); }
    /* park the shifted score |-log p - H| in p, sort by it, restore p */
    mx = c->data[0].logit;
    for (i = 0; i < c->size; i++) {
        double q = c->data[i].p;
        c->data[i].p = q > 0 ? (float)fabs(-log(q) - ent) : (float)HUGE_VAL;
        sum += expf(c->data[i].logit - mx);
    }
    lk__sort_tokens(c->data, c->size, 1);
    for (i = 0; i < c->size; i++) c->data[i].p = (float)(expf(c->data[i].logit - mx) / sum);
    keep = c->size;
    for (i = 0; i < c->size; i++) {
        cum += c->data[i].p;
        if (cum > p && i + 1 >= mk) { keep = i + 1; break; }
    }
    c->size = keep;
    c->sorted = 0;
    return LK_OK;
}

static float lk__penalize(float logit, int cnt, float repeat, float freq, float present) {
    logit = logit <= 0.0f ? logit * repeat : logit / repeat;
    return logit - ((float)cnt * freq + (cnt > 0 ? present : 0.0f));
}
static lk_status lk__check_penalties(const char *fn, float repeat, float freq, float present) {
    if (!(repeat > 0.0f) || !lk__isfinite(repeat))
        return lk_set_error(LK_ERR_INVALID_ARG, "%s: repeat penalty must be finite and > 0", fn);
    if (!lk__isfinite(freq) || !lk__isfinite(present))
        return lk_set_error(LK_ERR_INVALID_ARG, "%s: frequency/presence penalty not finite", fn);
    return LK_OK;
}

LKDEF lk_status lk_sample_penalties(lk_candidates *c, const lk_token *history, int n_history,
                                    float repeat, float freq, float present) {
    int i, j;
    lk_status st = lk__cand_check(c, "lk_sample_penalties");
    if (st) return st;
    if (n_history < 0 || (n_history > 0 && !history))
        return lk_set_error(LK_ERR_INVALID_ARG, "lk_sample_penalties: bad history (n %d)", n_history);
    if ((st = lk__check_penalties("lk_sample_penalties", repeat, freq, present)) != LK_OK) return st;
    if (repeat == 1.0f && freq == 0.0f && present == 0.0f) return LK_OK;
    for (i = 0; i < n_history; i++) {
        lk_token t = history[i];
        int cnt = 0, dup = 0;
        size_t k;
        for (j = 0; j < i; j++) if (history[j] == t) { dup = 1; break; }
        if (dup) continue;   /* each distinct token once */
        for (j = i; j < n_history; j++) cnt += history[j] == t;
        if (t >= 0 && (size_t)t < c->size && c->data[t].id == t) k = (size_t)t;
        else for (k = 0; k < c->size && c->data[k].id != t; k++) {}
        if (k < c->size) c->data[k].logit = lk__penalize(c->data[k].logit, cnt, repeat, freq, present);
    }
    c->sorted = 0;
    return LK_OK;
}

LKDEF lk_status lk_sample_logit_bias(lk_candidates *c, const lk_logit_bias *bias, int n_bias) {
    int j;
    lk_status st = lk__cand_check(c, "lk_sample_logit_bias");
    if (st) return st;
    if (n_bias < 0 || (n_bias > 0 && !bias))
        return lk_set_error(LK_ERR_INVALID_ARG, "lk_sample_logit_bias: bad bias list (n %d)", n_bias);
    for (j = 0; j < n_bias; j++) {
        lk_token t = bias[j].token;
        size_t k;
        if (lk__isnan(bias[j].bias) || bias[j].bias == (float)HUGE_VAL)
            return lk_set_error(LK_ERR_INVALID_ARG, "lk_sample_logit_bias: bias %d for token %d is NaN or +inf", j, (int)t);
        if (t >= 0 && (size_t)t < c->size && c->data[t].id == t) k = (size_t)t;
        else for (k = 0; k < c->size && c->data[k].id != t; k++) {}
        if (k < c->size) c->data[k].logit += bias[j].bias;
    }
    if (n_bias > 0) c->sorted = 0;
    return LK_OK;
}

/* Draw index from d[0..n) by p (need not sum exactly to 1). */
static size_t lk__draw(const lk_token_data *d, size_t n, lk_rng *r) {
    double tot = 0.0, u, cum = 0.0;
    size_t i, last = 0;
    for (i = 0; i < n; i++) tot += d[i].p;
    u = lk_rng_double(r) * tot;
    for (i = 0; i < n; i++) {
        if (d[i].p <= 0.0f) continue;
        last = i;
        cum += d[i].p;
        if (u < cum) return i;
    }
    return last;   /* rounding: the last token with p > 0 */
}

LKDEF lk_status lk_sample_dist(lk_candidates *c, lk_rng *r, lk_token *out_token) {
    lk_status st = lk__cand_check(c, "lk_sample_dist");
    if (st) return st;
    if (!r || !out_token) return lk_set_error(LK_ERR_INVALID_ARG, "lk_sample_dist: NULL rng or out_token");
    if ((st = lk_sample_softmax(c)) != LK_OK) return st;
    *out_token = c->data[lk__draw(c->data, c->size, r)].id;
    return LK_OK;
}

static lk_status lk__check_mirostat(const char *fn, lk_rng *r, float tau, float eta, float *mu, lk_token *out) {
    if (!r || !mu || !out) return lk_set_error(LK_ERR_INVALID_ARG, "%s: NULL rng, mu or out_token", fn);
    if (!lk__isfinite(tau) || !lk__isfinite(eta) || !lk__isfinite(*mu))
        return lk_set_error(LK_ERR_INVALID_ARG, "%s: tau, eta and mu must be finite", fn);
    return LK_OK;
}

LKDEF lk_status lk_sample_mirostat_v2(lk_candidates *c, lk_rng *r, float tau, float eta,
                                      float *mu, lk_token *out_token) {
    float mx;
    double sum = 0.0;
    size_t i, n = 0, idx;
    lk_status st = lk__cand_check(c, "lk_sample_mirostat_v2");
    if (st) return st;
    if ((st = lk__check_mirostat("lk_sample_mirostat_v2", r, tau, eta, mu, out_token)) != LK_OK) return st;
    /* softmax over all without sorting: p_i = e^(l_i - max) / sum */
    mx = lk__max_logit(c->data, c->size);
    if (!(mx > -(float)HUGE_VAL))
        return lk_set_error(LK_ERR_INVALID_ARG, "lk_sample_mirostat_v2: all tokens banned");
    for (i = 0; i < c->size; i++) { float e = expf(c->data[i].logit - mx); c->data[i].p = e; sum += e; }
    /* keep surprise -log2 p_i <= mu, i.e. p_i >= 2^-mu (a prefix in sorted order) */
    for (i = 0; i < c->size; i++) {
        float q = (float)(c->data[i].p / sum);
        if (!(-log2f(q) > *mu)) { c->data[n] = c->data[i]; c->data[n].p = q; n++; }
    }
    if (n == 0) {   /* keep the top token */
        size_t best = 0;
        for (i = 1; i < c->size; i++) if (lk__tok_lt(&c->data[i], &c->data[best], 0)) best = i;
        c->data[0] = c->data[best];
        n = 1;
    }
    c->size = n;
    lk__sort_tokens(c->data, n, 0);
    c->sorted = 1;
    if ((st = lk__softmax_sorted(c->data, n)) != LK_OK) return st;
    idx = lk__draw(c->data, n, r);
    *out_token = c->data[idx].id;
    *mu -= eta * (-log2f(c->data[idx].p) - tau);
    return LK_OK;
}

LKDEF lk_status lk_sample_mirostat(lk_candidates *c, lk_rng *r, float tau, float eta, int m,
                                   int n_vocab, float *mu, lk_token *out_token) {
    double sti = 0.0, stt = 0.0, s_hat, eps, k;
    size_t i, mm, kk, idx;
    lk_status st = lk__cand_check(c, "lk_sample_mirostat");
    if (st) return st;
    if ((st = lk__check_mirostat("lk_sample_mirostat", r, tau, eta, mu, out_token)) != LK_OK) return st;
    if (m < 1 || n_vocab < 1)
        return lk_set_error(LK_ERR_INVALID_ARG, "lk_sample_mirostat: m %d and n_vocab %d must be >= 1", m, n_vocab);
    /* Zipf exponent from the top m: t_i = log((i+2)/(i+1)), b_i = log(p_i/p_{i+1}) */
    mm = (size_t)m < c->size ? (size_t)m : c->size;
    (void)lk__max_logit(c->data, c->size);
    if (!c->sorted) lk__partial_sort(c->data, c->size, mm, 0);
    if (!(c->data[0].logit > -(float)HUGE_VAL))
        return lk_set_error(LK_ERR_INVALID_ARG, "lk_sample_mirostat: all tokens banned");
    for (i = 0; i + 1 < mm; i++) {
        double t = log((double)(i + 2) / (double)(i + 1));
        double b = (double)c->data[i].logit - (double)c->data[i + 1].logit; /* = log(p_i/p_{i+1}) */
        sti += t * b; stt += t * t;
    }
    s_hat = stt > 0 ? sti / stt : 0.0;
    eps = s_hat - 1.0;
    k = pow(eps * pow(2.0, (double)*mu) / (1.0 - pow((double)n_vocab, -eps)), 1.0 / s_hat);
    if (!(k >= 1.0)) kk = 1;              /* also NaN */
    else if (k >= (double)c->size) kk = c->size;
    else kk = (size_t)k;
    if (!c->sorted) {
        if (kk > mm) lk__partial_sort(c->data, c->size, kk, 0);
        if (kk == c->size) c->sorted = 1;
    }
    c->size = kk;
    c->sorted = 1;
    if ((st = lk__softmax_sorted(c->data, kk)) != LK_OK) return st;
    idx = lk__draw(c->data, kk, r);
    *out_token = c->data[idx].id;
    *mu -= eta * (-log2f(c->data[idx].p) - tau);
    return LK_OK;
}

/* --- the chain ------------------------------------------------------------ */
struct lk_sampler {
    lk_sampler_params p;        /* logit_bias points at bias below       */
    lk_allocator al;
    lk_token_data *cand;        /* [cap]                                  */
    int32_t *counts;            /* [cap], all zero between calls          */
    int cap;
    lk_token *ring;             /* [ring_cap] last tokens, oldest at head */
    int ring_cap, ring_len, ring_head;
    lk_logit_bias *bias;        /* [n_logit_bias]                         */
    lk_rng rng;
    float mu;
};

LKDEF lk_sampler_params lk_sampler_default_params(void) {
    lk_sampler_params p;
    memset(&p, 0, sizeof p);
    p.temperature = 0.8f; p.top_k = 40; p.top_p = 0.95f; p.min_p = 0.05f;
    p.typical_p = 1.0f; p.min_keep = 0;
    p.repeat_penalty = 1.0f; p.repeat_last_n = 64;
    p.frequency_penalty = 0.0f; p.presence_penalty = 0.0f;
    p.mirostat = 0; p.mirostat_tau = 5.0f; p.mirostat_eta = 0.1f;
    p.seed = 0; p.logit_bias = NULL; p.n_logit_bias = 0; p.n_vocab = 0; p.alloc = NULL;
    return p;
}

/* The sampler's options (section 13's option tables; llama.cpp's names). */
#define LK__S lk_sampler_params
static const lk_option lk__sampler_options[] = {
    /* name              alias kind          field (offset, size)                   lo            hi            choices arg    help */
    { "temp",              NULL, LK_OPT_FLOAT, LK__FIELD(LK__S, temperature),       -LK__OPT_INF, LK__OPT_INF,  NULL, "T",   "temperature; <= 0: greedy (the most likely token)" },
    { "top-k",             NULL, LK_OPT_INT,   LK__FIELD(LK__S, top_k),             INT_MIN,      INT_MAX,      NULL, "K",   "keep the K most likely tokens; <= 0: off" },
    { "top-p",             NULL, LK_OPT_FLOAT, LK__FIELD(LK__S, top_p),             0,            1,            NULL, "P",   "keep the most likely tokens up to probability mass P; 1: off" },
    { "min-p",             NULL, LK_OPT_FLOAT, LK__FIELD(LK__S, min_p),             0,            1,            NULL, "P",   "drop tokens below P times the top probability; 0: off" },
    { "typical",           NULL, LK_OPT_FLOAT, LK__FIELD(LK__S, typical_p),         0,            1,            NULL, "P",   "locally typical sampling, mass P; 1: off" },
    { "min-keep",          NULL, LK_OPT_INT,   LK__FIELD(LK__S, min_keep),          0,            INT_MAX,      NULL, "N",   "the truncating samplers keep at least N tokens" },
    { "repeat-penalty",    NULL, LK_OPT_FLOAT, LK__FIELD(LK__S, repeat_penalty),    0,            LK__OPT_INF,  NULL, "R",   "penalize tokens of the last repeat-last-n; 1: off" },
    { "repeat-last-n",     NULL, LK_OPT_INT,   LK__FIELD(LK__S, repeat_last_n),     0,            INT_MAX,      NULL, "N",   "tokens of history the penalties look at" },
    { "frequency-penalty", NULL, LK_OPT_FLOAT, LK__FIELD(LK__S, frequency_penalty), -LK__OPT_INF, LK__OPT_INF,  NULL, "F",   "minus F times a token's count in that history; 0: off" },
    { "presence-penalty",  NULL, LK_OPT_FLOAT, LK__FIELD(LK__S, presence_penalty),  -LK__OPT_INF, LK__OPT_INF,  NULL, "P",   "minus P for a token present in that history; 0: off" },
    { "mirostat",          NULL, LK_OPT_INT,   LK__FIELD(LK__S, mirostat),          0,            2,            NULL, "0|1|2", "Mirostat: 0 off, 1 Mirostat, 2 Mirostat 2.0" },
    { "mirostat-ent",      NULL, LK_OPT_FLOAT, LK__FIELD(LK__S, mirostat_tau),      0,            LK__OPT_INF,  NULL, "TAU", "Mirostat's target surprise (bits)" },
    { "mirostat-lr",       NULL, LK_OPT_FLOAT, LK__FIELD(LK__S, mirostat_eta),      0,            LK__OPT_INF,  NULL, "ETA", "Mirostat's learning rate" },
    { "seed",              NULL, LK_OPT_U64,   LK__FIELD(LK__S, seed),              0,            LK__OPT_I64,  NULL, "S",   "seed of the random draws" },
};
#undef LK__S
LKDEF lk_status lk_sampler_params_set(lk_sampler_params *p, const char *name, const char *v) {
    return lk__options_set(lk__sampler_options, (int)(sizeof lk__sampler_options / sizeof lk__sampler_options[0]), "sampler",
                           "lk_sampler_params_set", p, name, v);
}

static lk_status lk__sampler_check_params(const lk_sampler_params *p) {
    const char *fn = "lk_sampler_new";
    int i;
    if (!lk__isfinite(p->temperature)) return lk_set_error(LK_ERR_INVALID_ARG, "%s: temperature is NaN or inf", fn);
    if (lk__isnan(p->top_p) || p->top_p < 0.0f) return lk_set_error(LK_ERR_INVALID_ARG, "%s: top_p must be >= 0", fn);
    if (lk__isnan(p->min_p) || p->min_p < 0.0f || p->min_p > 1.0f) return lk_set_error(LK_ERR_INVALID_ARG, "%s: min_p must be in [0, 1]", fn);
    if (lk__isnan(p->typical_p) || p->typical_p < 0.0f) return lk_set_error(LK_ERR_INVALID_ARG, "%s: typical_p must be >= 0", fn);
    if (p->min_keep < 0) return lk_set_error(LK_ERR_INVALID_ARG, "%s: min_keep %d < 0", fn, p->min_keep);
    if (p->repeat_last_n < 0) return lk_set_error(LK_ERR_INVALID_ARG, "%s: repeat_last_n %d < 0 (pass an explicit count)", fn, p->repeat_last_n);
    if (p->repeat_penalty != 0.0f && lk__check_penalties(fn, p->repeat_penalty, p->frequency_penalty, p->presence_penalty)) return LK_ERR_INVALID_ARG;
    if (!lk__isfinite(p->frequency_penalty) || !lk__isfinite(p->presence_penalty)) return lk_set_error(LK_ERR_INVALID_ARG, "%s: frequency/presence penalty not finite", fn);
    if (p->mirostat < 0 || p->mirostat > 2) return lk_set_error(LK_ERR_INVALID_ARG, "%s: mirostat %d is not 0, 1 or 2", fn, p->mirostat);
    if (p->mirostat && (!lk__isfinite(p->mirostat_tau) || !lk__isfinite(p->mirostat_eta) || p->mirostat_tau < 0.0f || p->mirostat_eta < 0.0f))
        return lk_set_error(LK_ERR_INVALID_ARG, "%s: mirostat tau and eta must be finite and >= 0", fn);
    if (p->n_vocab < 0) return lk_set_error(LK_ERR_INVALID_ARG, "%s: n_vocab %d < 0", fn, p->n_vocab);
    if (p->n_logit_bias < 0 || (p->n_logit_bias > 0 && !p->logit_bias)) return lk_set_error(LK_ERR_INVALID_ARG, "%s: bad logit_bias list (n %d)", fn, p->n_logit_bias);
    for (i = 0; i < p->n_logit_bias; i++) {
        lk_token t = p->logit_bias[i].token;
        float b = p->logit_bias[i].bias;
        if (t < 0 || (p->n_vocab > 0 && t >= p->n_vocab)) return lk_set_error(LK_ERR_RANGE, "%s: logit_bias[%d] token %d out of range", fn, i, (int)t);
        if (lk__isnan(b) || b == (float)HUGE_VAL) return lk_set_error(LK_ERR_INVALID_ARG, "%s: logit_bias[%d] is NaN or +inf", fn, i);
    }
    return LK_OK;
}

static lk_status lk__sampler_reserve(lk_sampler *s, int n_vocab) {
    lk_token_data *cand;
    int32_t *counts;
    size_t nc, nn;
    if (n_vocab <= s->cap) return LK_OK;
    nc = (size_t)n_vocab * sizeof(lk_token_data);
    nn = (size_t)n_vocab * sizeof(int32_t);
    if ((uint64_t)n_vocab > (uint64_t)SIZE_MAX / sizeof(lk_token_data))
        return lk_set_error(LK_ERR_NOMEM, "lk_sampler: n_vocab %d too large", n_vocab);
    cand = LK__CAST(lk_token_data *, lk__alloc(&s->al, nc));
    counts = LK__CAST(int32_t *, lk__alloc(&s->al, nn));
    if (!cand || !counts) {
        lk__free(&s->al, cand, nc); lk__free(&s->al, counts, nn);
        return lk_set_error(LK_ERR_NOMEM, "lk_sampler: cannot allocate buffers for %d tokens", n_vocab);
    }
    memset(counts, 0, nn);
    lk__free(&s->al, s->cand, (size_t)s->cap * sizeof(lk_token_data));
    lk__free(&s->al, s->counts, (size_t)s->cap * sizeof(int32_t));
    s->cand = cand; s->counts = counts; s->cap = n_vocab;
    return LK_OK;
}

LKDEF void lk_sampler_free(lk_sampler *s) {
    lk_allocator al;
    if (!s) return;
    al = s->al;
    lk__free(&al, s->cand, (size_t)s->cap * sizeof(lk_token_data));
    lk__free(&al, s->counts, (size_t)s->cap * sizeof(int32_t));
    lk__free(&al, s->ring, (size_t)s->ring_cap * sizeof(lk_token));
    lk__free(&al, s->bias, (size_t)s->p.n_logit_bias * sizeof(lk_logit_bias));
    lk__free(&al, s, sizeof *s);
}

LKDEF void lk_sampler_reset(lk_sampler *s) {
    if (!s) return;
    s->ring_len = 0; s->ring_head = 0;
    s->mu = 2.0f * s->p.mirostat_tau;
    lk_rng_seed(&s->rng, s->p.seed);
}

LKDEF lk_status lk_sampler_new(const lk_sampler_params *params, lk_sampler **out) {
    lk_sampler_params p = params ? *params : lk_sampler_default_params();
    lk_allocator al = lk__resolve_alloc(p.alloc);
    lk_sampler *s;
    lk_status st;
    if (!out) return lk_set_error(LK_ERR_INVALID_ARG, "lk_sampler_new: NULL out");
    *out = NULL;
    if ((st = lk__sampler_check_params(&p)) != LK_OK) return st;
    if (p.repeat_penalty == 0.0f) p.repeat_penalty = 1.0f;    /* zero-init = off */
    if (p.top_p <= 0.0f) p.top_p = 1.0f;
    if (p.typical_p <= 0.0f) p.typical_p = 1.0f;
    s = LK__CAST(lk_sampler *, lk__alloc(&al, sizeof *s));
    if (!s) return lk_set_error(LK_ERR_NOMEM, "lk_sampler_new: out of memory");
    memset(s, 0, sizeof *s);
    s->al = al;
    s->p = p;
    s->p.alloc = NULL;
    s->p.logit_bias = NULL;
    s->p.n_logit_bias = 0;
    if (p.n_logit_bias > 0) {
        s->bias = LK__CAST(lk_logit_bias *, lk__alloc(&al, (size_t)p.n_logit_bias * sizeof(lk_logit_bias)));
        if (!s->bias) { lk_sampler_free(s); return lk_set_error(LK_ERR_NOMEM, "lk_sampler_new: out of memory"); }
        memcpy(s->bias, p.logit_bias, (size_t)p.n_logit_bias * sizeof(lk_logit_bias));
        s->p.n_logit_bias = p.n_logit_bias;
        s->p.logit_bias = s->bias;
    }
    if (p.repeat_last_n > 0) {
        s->ring = LK__CAST(lk_token *, lk__alloc(&al, (size_t)p.repeat_last_n * sizeof(lk_token)));
        if (!s->ring) { lk_sampler_free(s); return lk_set_error(LK_ERR_NOMEM, "lk_sampler_new: out of memory"); }
        s->ring_cap = p.repeat_last_n;
    }
    if (p.n_vocab > 0 && (st = lk__sampler_reserve(s, p.n_vocab)) != LK_OK) { lk_sampler_free(s); return st; }
    lk_sampler_reset(s);
    *out = s;
    return LK_OK;
}

LKDEF lk_status lk_sampler_accept(lk_sampler *s, lk_token token) {
    if (!s) return lk_set_error(LK_ERR_INVALID_ARG, "lk_sampler_accept: NULL sampler");
    if (token < 0) return lk_set_error(LK_ERR_RANGE, "lk_sampler_accept: token %d < 0", (int)token);
    if (s->ring_cap == 0) return LK_OK;
    if (s->ring_len < s->ring_cap) {
        s->ring[(s->ring_head + s->ring_len) % s->ring_cap] = token;
        s->ring_len++;
    } else {   /* full: overwrite the oldest */
        s->ring[s->ring_head] = token;
        s->ring_head = (s->ring_head + 1) % s->ring_cap;
    }
    return LK_OK;
}

LKDEF float lk_sampler_mirostat_mu(const lk_sampler *s) { return s ? s->mu : 0.0f; }
LKDEF lk_rng *lk_sampler_rng(lk_sampler *s) { return s ? &s->rng : NULL; }

/* Penalties over candidates still in id order (data[t].id == t). */
static void lk__sampler_penalties(lk_sampler *s, lk_candidates *c) {
    const lk_sampler_params *p = &s->p;
    int i;
    if (s->ring_len == 0 || (p->repeat_penalty == 1.0f && p->frequency_penalty == 0.0f && p->presence_penalty == 0.0f)) return;
    for (i = 0; i < s->ring_len; i++) {
        lk_token t = s->ring[(s->ring_head + i) % s->ring_cap];
        if ((size_t)t < c->size) s->counts[t]++;
    }
    for (i = 0; i < s->ring_len; i++) {
        lk_token t = s->ring[(s->ring_head + i) % s->ring_cap];
        if ((size_t)t < c->size && s->counts[t] > 0) {
            c->data[t].logit = lk__penalize(c->data[t].logit, s->counts[t], p->repeat_penalty,
                                            p->frequency_penalty, p->presence_penalty);
            s->counts[t] = 0;   /* once per distinct token; leaves counts zeroed */
        }
    }
    c->sorted = 0;
}

/* the chain; probs != NULL: instead of drawing, write the distribution the
 * draw would use (one-hot for greedy) into probs[0..n_vocab) */
static lk_status lk__sampler_run(lk_sampler *s, const float *logits, int n_vocab, lk_token *out_token, float *probs) {
    const lk_sampler_params *p;
    lk_candidates c;
    lk_status st;
    int i;
    if (out_token) *out_token = -1;
    if (!s || !logits || !out_token) return lk_set_error(LK_ERR_INVALID_ARG, "lk_sampler_sample: NULL argument");
    if (n_vocab <= 0) return lk_set_error(LK_ERR_INVALID_ARG, "lk_sampler_sample: n_vocab %d <= 0", n_vocab);
    p = &s->p;
    for (i = 0; i < p->n_logit_bias; i++)
        if (p->logit_bias[i].token >= n_vocab)
            return lk_set_error(LK_ERR_RANGE, "lk_sampler_sample: logit_bias token %d >= n_vocab %d", (int)p->logit_bias[i].token, n_vocab);
    if ((st = lk__sampler_reserve(s, n_vocab)) != LK_OK) return st;
    if ((st = lk_candidates_init(&c, s->cand, logits, n_vocab)) != LK_OK) return st;
    if ((st = lk_sample_logit_bias(&c, p->logit_bias, p->n_logit_bias)) != LK_OK) return st;

    if (p->mirostat) {
        if (probs) return lk_set_error(LK_ERR_UNSUPPORTED, "lk_sampler_probs: not with mirostat (its distribution depends on its state)");
        if ((st = lk_sample_temperature(&c, p->temperature)) != LK_OK) return st;
        if (p->mirostat == 2) return lk_sample_mirostat_v2(&c, &s->rng, p->mirostat_tau, p->mirostat_eta, &s->mu, out_token);
        return lk_sample_mirostat(&c, &s->rng, p->mirostat_tau, p->mirostat_eta, 100, n_vocab, &s->mu, out_token);
    }
    lk__sampler_penalties(s, &c);
    if (p->temperature <= 0.0f && p->typical_p >= 1.0f) {
        /* top-k, top-p and min-p always keep the argmax: skip them */
        st = lk_sample_greedy(&c, out_token);
        if (!st && !(c.data[*out_token].logit > -(float)HUGE_VAL)) {
            *out_token = -1;
            return lk_set_error(LK_ERR_INVALID_ARG, "lk_sampler_sample: all tokens banned");
        }
        if (!st && probs) { for (i = 0; i < n_vocab; i++) probs[i] = 0.0f; probs[*out_token] = 1.0f; }
        return st;
    }
    if ((st = lk_sample_top_k(&c, p->top_k)) != LK_OK) return st;
    if ((st = lk_sample_typical(&c, p->typical_p, p->min_keep)) != LK_OK) return st;
    if ((st = lk_sample_top_p(&c, p->top_p, p->min_keep)) != LK_OK) return st;
    if ((st = lk_sample_min_p(&c, p->min_p, p->min_keep)) != LK_OK) return st;
    if (p->temperature <= 0.0f) {
        st = lk_sample_greedy(&c, out_token);
        if (!st && probs) { for (i = 0; i < n_vocab; i++) probs[i] = 0.0f; probs[*out_token] = 1.0f; }
        return st;
    }
    if ((st = lk_sample_temperature(&c, p->temperature)) != LK_OK) return st;
    if (probs) {
        size_t k;
        if ((st = lk_sample_softmax(&c)) != LK_OK) return st;
        for (i = 0; i < n_vocab; i++) probs[i] = 0.0f;
        for (k = 0; k < c.size; k++) probs[c.data[k].id] = c.data[k].p;
        *out_token = c.data[0].id;
        return LK_OK;
    }
    return lk_sample_dist(&c, &s->rng, out_token);
}
LKDEF lk_status lk_sampler_sample_ex(lk_sampler *s, const float *logits, int n_vocab, lk_token *out_token) {
    return lk__sampler_run(s, logits, n_vocab, out_token, NULL);
}
LKDEF lk_status lk_sampler_probs(lk_sampler *s, const float *logits, int n_vocab, float *probs) {
    lk_token t;
    if (!probs) return lk_set_error(LK_ERR_INVALID_ARG, "lk_sampler_probs: NULL probs");
    return lk__sampler_run(s, logits, n_vocab, &t, probs);
}

LKDEF lk_token lk_sampler_sample(lk_sampler *s, const float *logits, int n_vocab) {
    lk_token t = -1;
    if (lk_sampler_sample_ex(s, logits, n_vocab, &t) != LK_OK) return -1;
    return t;
}

/* --- speculative acceptance ----------------------------------------------- */
LKDEF lk_token lk_spec_accept(const float *p_target, const float *q_draft, int n_vocab,
                              lk_token draft_token, lk_rng *r) {
    double px, qx, res = 0.0, u, cum = 0.0;
    int i, last = -1;
    if (!p_target || !q_draft || !r) { lk_set_error(LK_ERR_INVALID_ARG, "lk_spec_accept: NULL argument"); return -1; }
    if (n_vocab <= 0) { lk_set_error(LK_ERR_INVALID_ARG, "lk_spec_accept: n_vocab %d <= 0", n_vocab); return -1; }
    if (draft_token < 0 || draft_token >= n_vocab) { lk_set_error(LK_ERR_RANGE, "lk_spec_accept: draft token %d out of range", (int)draft_token); return -1; }
    for (i = 0; i < n_vocab; i++) {
        if (!(p_target[i] >= 0.0f) || !(q_draft[i] >= 0.0f) || !lk__isfinite(p_target[i]) || !lk__isfinite(q_draft[i])) {
            lk_set_error(LK_ERR_INVALID_ARG, "lk_spec_accept: probability %d is negative, NaN or inf", i);
            return -1;
        }
    }
    px = p_target[draft_token]; qx = q_draft[draft_token];
    /* accept with probability min(1, p/q); q(x) = 0 accepts iff p(x) > 0 */
    u = lk_rng_double(r);
    if (px >= qx ? px > 0.0 : u * qx < px) return draft_token;
    /* residual r_i = max(0, p_i - q_i) / sum */
    for (i = 0; i < n_vocab; i++) { double d = (double)p_target[i] - q_draft[i]; if (d > 0) res += d; }
    if (!(res > 0.0)) {   /* p == q up to rounding: draw from p */
        for (i = 0; i < n_vocab; i++) res += p_target[i];
        if (!(res > 0.0)) { lk_set_error(LK_ERR_INVALID_ARG, "lk_spec_accept: p_target sums to 0"); return -1; }
        u = lk_rng_double(r) * res;
        for (i = 0; i < n_vocab; i++) { if (p_target[i] > 0) { last = i; cum += p_target[i]; if (u < cum) return i; } }
        return last;
    }
    u = lk_rng_double(r) * res;
    for (i = 0; i < n_vocab; i++) {
        double d = (double)p_target[i] - q_draft[i];
        if (d > 0) { last = i; cum += d; if (u < cum) return i; }
    }
    return last;
}

/* --------------------------------------------------------------------------
 * 14.12 Tokenizer
 * -------------------------------------------------------------------------- */
#ifndef LLMKIT_NO_TOKENIZER
/* LK__UNICODE_TABLES_BEGIN */
/* generated by tools/gen_unicode_tables.py from Unicode 14.0.0 (Python unicodedata) */
#define LK__UCAT_N 2236
static const uint32_t lk__ucat_ranges[LK__UCAT_N] = {
    0x80, 0x2008, 0x2120, 0x2440, 0x2520, 0x2b40, 0x2c20, 0x3002,
    0x3a20, 0x3c40, 0x3f20, 0x4104, 0x5b20, 0x5e40, 0x5f20, 0x6040,
    0x6104, 0x7b20, 0x7c40, 0x7d20, 0x7e40, 0x7f80, 0xa008, 0xa120,
    0xa240, 0xa720, 0xa840, 0xaa04, 0xab20, 0xac40, 0xad80, 0xae40,
    0xb202, 0xb440, 0xb504, 0xb620, 0xb840, 0xb902, 0xba04, 0xbb20,
    0xbc02, 0xbf20, 0xc004, 0xd740, 0xd804, 0xf740, 0xf804, 0x2c240,
    0x2c604, 0x2d240, 0x2e004, 0x2e540, 0x2ec04, 0x2ed40, 0x2ee04, 0x2ef40,
    0x30010, 0x37004, 0x37540, 0x37604, 0x37801, 0x37a04, 0x37e20, 0x37f04,
    0x38001, 0x38440, 0x38604, 0x38720, 0x38804, 0x38b01, 0x38c04, 0x38d01,
    0x38e04, 0x3a201, 0x3a304, 0x3f640, 0x3f704, 0x48240, 0x48310, 0x48a04,
    0x53001, 0x53104, 0x55701, 0x55904, 0x55a20, 0x56004, 0x58920, 0x58b01,
    0x58d40, 0x59001, 0x59110, 0x5be20, 0x5bf10, 0x5c020, 0x5c110, 0x5c320,
    0x5c410, 0x5c620, 0x5c710, 0x5c801, 0x5d004, 0x5eb01, 0x5ef04, 0x5f320,
    0x5f501, 0x60080, 0x60640, 0x60920, 0x60b40, 0x60c20, 0x60e40, 0x61010,
    0x61b20, 0x61c80, 0x61d20, 0x62004, 0x64b10, 0x66002, 0x66a20, 0x66e04,
    0x67010, 0x67104, 0x6d420, 0x6d504, 0x6d610, 0x6dd80, 0x6de40, 0x6df10,
    0x6e504, 0x6e710, 0x6e940, 0x6ea10, 0x6ee04, 0x6f002, 0x6fa04, 0x6fd40,
    0x6ff04, 0x70020, 0x70e01, 0x70f80, 0x71004, 0x71110, 0x71204, 0x73010,
    0x74b01, 0x74d04, 0x7a610, 0x7b104, 0x7b201, 0x7c002, 0x7ca04, 0x7eb10,
    0x7f404, 0x7f640, 0x7f720, 0x7fa04, 0x7fb01, 0x7fd10, 0x7fe40, 0x80004,
    0x81610, 0x81a04, 0x81b10, 0x82404, 0x82510, 0x82804, 0x82910, 0x82e01,
    0x83020, 0x83f01, 0x84004, 0x85910, 0x85c01, 0x85e20, 0x85f01, 0x86004,
    0x86b01, 0x87004, 0x88840, 0x88904, 0x88f01, 0x89080, 0x89201, 0x89810,
    0x8a004, 0x8ca10, 0x8e280, 0x8e310, 0x90404, 0x93a10, 0x93d04, 0x93e10,
    0x95004, 0x95110, 0x95804, 0x96210, 0x96420, 0x96602, 0x97020, 0x97104,
    0x98110, 0x98401, 0x98504, 0x98d01, 0x98f04, 0x99101, 0x99304, 0x9a901,
    0x9aa04, 0x9b101, 0x9b204, 0x9b301, 0x9b604, 0x9ba01, 0x9bc10, 0x9bd04,
    0x9be10, 0x9c501, 0x9c710, 0x9c901, 0x9cb10, 0x9ce04, 0x9cf01, 0x9d710,
    0x9d801, 0x9dc04, 0x9de01, 0x9df04, 0x9e210, 0x9e401, 0x9e602, 0x9f004,
    0x9f240, 0x9f402, 0x9fa40, 0x9fc04, 0x9fd20, 0x9fe10, 0x9ff01, 0xa0110,
    0xa0401, 0xa0504, 0xa0b01, 0xa0f04, 0xa1101, 0xa1304, 0xa2901, 0xa2a04,
    0xa3101, 0xa3204, 0xa3401, 0xa3504, 0xa3701, 0xa3804, 0xa3a01, 0xa3c10,
    0xa3d01, 0xa3e10, 0xa4301, 0xa4710, 0xa4901, 0xa4b10, 0xa4e01, 0xa5110,
    0xa5201, 0xa5904, 0xa5d01, 0xa5e04, 0xa5f01, 0xa6602, 0xa7010, 0xa7204,
    0xa7510, 0xa7620, 0xa7701, 0xa8110, 0xa8401, 0xa8504, 0xa8e01, 0xa8f04,
    0xa9201, 0xa9304, 0xaa901, 0xaaa04, 0xab101, 0xab204, 0xab401, 0xab504,
    0xaba01, 0xabc10, 0xabd04, 0xabe10, 0xac601, 0xac710, 0xaca01, 0xacb10,
    0xace01, 0xad004, 0xad101, 0xae004, 0xae210, 0xae401, 0xae602, 0xaf020,
    0xaf140, 0xaf201, 0xaf904, 0xafa10, 0xb0001, 0xb0110, 0xb0401, 0xb0504,
    0xb0d01, 0xb0f04, 0xb1101, 0xb1304, 0xb2901, 0xb2a04, 0xb3101, 0xb3204,
    0xb3401, 0xb3504, 0xb3a01, 0xb3c10, 0xb3d04, 0xb3e10, 0xb4501, 0xb4710,
    0xb4901, 0xb4b10, 0xb4e01, 0xb5510, 0xb5801, 0xb5c04, 0xb5e01, 0xb5f04,
    0xb6210, 0xb6401, 0xb6602, 0xb7040, 0xb7104, 0xb7202, 0xb7801, 0xb8210,
    0xb8304, 0xb8401, 0xb8504, 0xb8b01, 0xb8e04, 0xb9101, 0xb9204, 0xb9601,
    0xb9904, 0xb9b01, 0xb9c04, 0xb9d01, 0xb9e04, 0xba001, 0xba304, 0xba501,
    0xba804, 0xbab01, 0xbae04, 0xbba01, 0xbbe10, 0xbc301, 0xbc610, 0xbc901,
    0xbca10, 0xbce01, 0xbd004, 0xbd101, 0xbd710, 0xbd801, 0xbe602, 0xbf340,
    0xbfb01, 0xc0010, 0xc0504, 0xc0d01, 0xc0e04, 0xc1101, 0xc1204, 0xc2901,
    0xc2a04, 0xc3a01, 0xc3c10, 0xc3d04, 0xc3e10, 0xc4501, 0xc4610, 0xc4901,
    0xc4a10, 0xc4e01, 0xc5510, 0xc5701, 0xc5804, 0xc5b01, 0xc5d04, 0xc5e01,
    0xc6004, 0xc6210, 0xc6401, 0xc6602, 0xc7001, 0xc7720, 0xc7802, 0xc7f40,
    0xc8004, 0xc8110, 0xc8420, 0xc8504, 0xc8d01, 0xc8e04, 0xc9101, 0xc9204,
    0xca901, 0xcaa04, 0xcb401, 0xcb504, 0xcba01, 0xcbc10, 0xcbd04, 0xcbe10,
    0xcc501, 0xcc610, 0xcc901, 0xcca10, 0xcce01, 0xcd510, 0xcd701, 0xcdd04,
    0xcdf01, 0xce004, 0xce210, 0xce401, 0xce602, 0xcf001, 0xcf104, 0xcf301,
    0xd0010, 0xd0404, 0xd0d01, 0xd0e04, 0xd1101, 0xd1204, 0xd3b10, 0xd3d04,
    0xd3e10, 0xd4501, 0xd4610, 0xd4901, 0xd4a10, 0xd4e04, 0xd4f40, 0xd5001,
    0xd5404, 0xd5710, 0xd5802, 0xd5f04, 0xd6210, 0xd6401, 0xd6602, 0xd7940,
    0xd7a04, 0xd8001, 0xd8110, 0xd8401, 0xd8504, 0xd9701, 0xd9a04, 0xdb201,
    0xdb304, 0xdbc01, 0xdbd04, 0xdbe01, 0xdc004, 0xdc701, 0xdca10, 0xdcb01,
    0xdcf10, 0xdd501, 0xdd610, 0xdd701, 0xdd810, 0xde001, 0xde602, 0xdf001,
    0xdf210, 0xdf420, 0xdf501, 0xe0104, 0xe3110, 0xe3204, 0xe3410, 0xe3b01,
    0xe3f40, 0xe4004, 0xe4710, 0xe4f20, 0xe5002, 0xe5a20, 0xe5c01, 0xe8104,
    0xe8301, 0xe8404, 0xe8501, 0xe8604, 0xe8b01, 0xe8c04, 0xea401, 0xea504,
    0xea601, 0xea704, 0xeb110, 0xeb204, 0xeb410, 0xebd04, 0xebe01, 0xec004,
    0xec501, 0xec604, 0xec701, 0xec810, 0xece01, 0xed002, 0xeda01, 0xedc04,
    0xee001, 0xf0004, 0xf0140, 0xf0420, 0xf1340, 0xf1420, 0xf1540, 0xf1810,
    0xf1a40, 0xf2002, 0xf3440, 0xf3510, 0xf3640, 0xf3710, 0xf3840, 0xf3910,
    0xf3a20, 0xf3e10, 0xf4004, 0xf4801, 0xf4904, 0xf6d01, 0xf7110, 0xf8520,
    0xf8610, 0xf8804, 0xf8d10, 0xf9801, 0xf9910, 0xfbd01, 0xfbe40, 0xfc610,
    0xfc740, 0xfcd01, 0xfce40, 0xfd020, 0xfd540, 0xfd920, 0xfdb01, 0x100004,
    0x102b10, 0x103f04, 0x104002, 0x104a20, 0x105004, 0x105610, 0x105a04, 0x105e10,
    0x106104, 0x106210, 0x106504, 0x106710, 0x106e04, 0x107110, 0x107504, 0x108210,
    0x108e04, 0x108f10, 0x109002, 0x109a10, 0x109e40, 0x10a004, 0x10c601, 0x10c704,
    0x10c801, 0x10cd04, 0x10ce01, 0x10d004, 0x10fb20, 0x10fc04, 0x124901, 0x124a04,
    0x124e01, 0x125004, 0x125701, 0x125804, 0x125901, 0x125a04, 0x125e01, 0x126004,
    0x128901, 0x128a04, 0x128e01, 0x129004, 0x12b101, 0x12b204, 0x12b601, 0x12b804,
    0x12bf01, 0x12c004, 0x12c101, 0x12c204, 0x12c601, 0x12c804, 0x12d701, 0x12d804,
    0x131101, 0x131204, 0x131601, 0x131804, 0x135b01, 0x135d10, 0x136020, 0x136902,
    0x137d01, 0x138004, 0x139040, 0x139a01, 0x13a004, 0x13f601, 0x13f804, 0x13fe01,
    0x140020, 0x140104, 0x166d40, 0x166e20, 0x166f04, 0x168008, 0x168104, 0x169b20,
    0x169d01, 0x16a004, 0x16eb20, 0x16ee02, 0x16f104, 0x16f901, 0x170004, 0x171210,
    0x171601, 0x171f04, 0x173210, 0x173520, 0x173701, 0x174004, 0x175210, 0x175401,
    0x176004, 0x176d01, 0x176e04, 0x177101, 0x177210, 0x177401, 0x178004, 0x17b410,
    0x17d420, 0x17d704, 0x17d820, 0x17db40, 0x17dc04, 0x17dd10, 0x17de01, 0x17e002,
    0x17ea01, 0x17f002, 0x17fa01, 0x180020, 0x180b10, 0x180e80, 0x180f10, 0x181002,
    0x181a01, 0x182004, 0x187901, 0x188004, 0x188510, 0x188704, 0x18a910, 0x18aa04,
    0x18ab01, 0x18b004, 0x18f601, 0x190004, 0x191f01, 0x192010, 0x192c01, 0x193010,
    0x193c01, 0x194040, 0x194101, 0x194420, 0x194602, 0x195004, 0x196e01, 0x197004,
    0x197501, 0x198004, 0x19ac01, 0x19b004, 0x19ca01, 0x19d002, 0x19db01, 0x19de40,
    0x1a0004, 0x1a1710, 0x1a1c01, 0x1a1e20, 0x1a2004, 0x1a5510, 0x1a5f01, 0x1a6010,
    0x1a7d01, 0x1a7f10, 0x1a8002, 0x1a8a01, 0x1a9002, 0x1a9a01, 0x1aa020, 0x1aa704,
    0x1aa820, 0x1aae01, 0x1ab010, 0x1acf01, 0x1b0010, 0x1b0504, 0x1b3410, 0x1b4504,
    0x1b4d01, 0x1b5002, 0x1b5a20, 0x1b6140, 0x1b6b10, 0x1b7440, 0x1b7d20, 0x1b7f01,
    0x1b8010, 0x1b8304, 0x1ba110, 0x1bae04, 0x1bb002, 0x1bba04, 0x1be610, 0x1bf401,
    0x1bfc20, 0x1c0004, 0x1c2410, 0x1c3801, 0x1c3b20, 0x1c4002, 0x1c4a01, 0x1c4d04,
    0x1c5002, 0x1c5a04, 0x1c7e20, 0x1c8004, 0x1c8901, 0x1c9004, 0x1cbb01, 0x1cbd04,
    0x1cc020, 0x1cc801, 0x1cd010, 0x1cd320, 0x1cd410, 0x1ce904, 0x1ced10, 0x1cee04,
    0x1cf410, 0x1cf504, 0x1cf710, 0x1cfa04, 0x1cfb01, 0x1d0004, 0x1dc010, 0x1e0004,
    0x1f1601, 0x1f1804, 0x1f1e01, 0x1f2004, 0x1f4601, 0x1f4804, 0x1f4e01, 0x1f5004,
    0x1f5801, 0x1f5904, 0x1f5a01, 0x1f5b04, 0x1f5c01, 0x1f5d04, 0x1f5e01, 0x1f5f04,
    0x1f7e01, 0x1f8004, 0x1fb501, 0x1fb604, 0x1fbd40, 0x1fbe04, 0x1fbf40, 0x1fc204,
    0x1fc501, 0x1fc604, 0x1fcd40, 0x1fd004, 0x1fd401, 0x1fd604, 0x1fdc01, 0x1fdd40,
    0x1fe004, 0x1fed40, 0x1ff001, 0x1ff204, 0x1ff501, 0x1ff604, 0x1ffd40, 0x1fff01,
    0x200008, 0x200b80, 0x201020, 0x202808, 0x202a80, 0x202f08, 0x203020, 0x204440,
    0x204520, 0x205240, 0x205320, 0x205f08, 0x206080, 0x206501, 0x206680, 0x207002,
    0x207104, 0x207201, 0x207402, 0x207a40, 0x207d20, 0x207f04, 0x208002, 0x208a40,
    0x208d20, 0x208f01, 0x209004, 0x209d01, 0x20a040, 0x20c101, 0x20d010, 0x20f101,
    0x210040, 0x210204, 0x210340, 0x210704, 0x210840, 0x210a04, 0x211440, 0x211504,
    0x211640, 0x211904, 0x211e40, 0x212404, 0x212540, 0x212604, 0x212740, 0x212804,
    0x212940, 0x212a04, 0x212e40, 0x212f04, 0x213a40, 0x213c04, 0x214040, 0x214504,
    0x214a40, 0x214e04, 0x214f40, 0x215002, 0x218304, 0x218502, 0x218a40, 0x218c01,
    0x219040, 0x230820, 0x230c40, 0x232920, 0x232b40, 0x242701, 0x244040, 0x244b01,
    0x246002, 0x249c40, 0x24ea02, 0x250040, 0x276820, 0x277602, 0x279440, 0x27c520,
    0x27c740, 0x27e620, 0x27f040, 0x298320, 0x299940, 0x29d820, 0x29dc40, 0x29fc20,
    0x29fe40, 0x2b7401, 0x2b7640, 0x2b9601, 0x2b9740, 0x2c0004, 0x2ce540, 0x2ceb04,
    0x2cef10, 0x2cf204, 0x2cf401, 0x2cf920, 0x2cfd02, 0x2cfe20, 0x2d0004, 0x2d2601,
    0x2d2704, 0x2d2801, 0x2d2d04, 0x2d2e01, 0x2d3004, 0x2d6801, 0x2d6f04, 0x2d7020,
    0x2d7101, 0x2d7f10, 0x2d8004, 0x2d9701, 0x2da004, 0x2da701, 0x2da804, 0x2daf01,
    0x2db004, 0x2db701, 0x2db804, 0x2dbf01, 0x2dc004, 0x2dc701, 0x2dc804, 0x2dcf01,
    0x2dd004, 0x2dd701, 0x2dd804, 0x2ddf01, 0x2de010, 0x2e0020, 0x2e2f04, 0x2e3020,
    0x2e5040, 0x2e5220, 0x2e5e01, 0x2e8040, 0x2e9a01, 0x2e9b40, 0x2ef401, 0x2f0040,
    0x2fd601, 0x2ff040, 0x2ffc01, 0x300008, 0x300120, 0x300440, 0x300504, 0x300702,
    0x300820, 0x301240, 0x301420, 0x302040, 0x302102, 0x302a10, 0x303020, 0x303104,
    0x303640, 0x303802, 0x303b04, 0x303d20, 0x303e40, 0x304001, 0x304104, 0x309701,
    0x309910, 0x309b40, 0x309d04, 0x30a020, 0x30a104, 0x30fb20, 0x30fc04, 0x310001,
    0x310504, 0x313001, 0x313104, 0x318f01, 0x319040, 0x319202, 0x319640, 0x31a004,
    0x31c040, 0x31e401, 0x31f004, 0x320040, 0x321f01, 0x322002, 0x322a40, 0x324802,
    0x325040, 0x325102, 0x326040, 0x328002, 0x328a40, 0x32b102, 0x32c040, 0x340004,
    0x4dc040, 0x4e0004, 0xa48d01, 0xa49040, 0xa4c701, 0xa4d004, 0xa4fe20, 0xa50004,
    0xa60d20, 0xa61004, 0xa62002, 0xa62a04, 0xa62c01, 0xa64004, 0xa66f10, 0xa67320,
    0xa67410, 0xa67e20, 0xa67f04, 0xa69e10, 0xa6a004, 0xa6e602, 0xa6f010, 0xa6f220,
    0xa6f801, 0xa70040, 0xa71704, 0xa72040, 0xa72204, 0xa78940, 0xa78b04, 0xa7cb01,
    0xa7d004, 0xa7d201, 0xa7d304, 0xa7d401, 0xa7d504, 0xa7da01, 0xa7f204, 0xa80210,
    0xa80304, 0xa80610, 0xa80704, 0xa80b10, 0xa80c04, 0xa82310, 0xa82840, 0xa82c10,
    0xa82d01, 0xa83002, 0xa83640, 0xa83a01, 0xa84004, 0xa87420, 0xa87801, 0xa88010,
    0xa88204, 0xa8b410, 0xa8c601, 0xa8ce20, 0xa8d002, 0xa8da01, 0xa8e010, 0xa8f204,
    0xa8f820, 0xa8fb04, 0xa8fc20, 0xa8fd04, 0xa8ff10, 0xa90002, 0xa90a04, 0xa92610,
    0xa92e20, 0xa93004, 0xa94710, 0xa95401, 0xa95f20, 0xa96004, 0xa97d01, 0xa98010,
    0xa98404, 0xa9b310, 0xa9c120, 0xa9ce01, 0xa9cf04, 0xa9d002, 0xa9da01, 0xa9de20,
    0xa9e004, 0xa9e510, 0xa9e604, 0xa9f002, 0xa9fa04, 0xa9ff01, 0xaa0004, 0xaa2910,
    0xaa3701, 0xaa4004, 0xaa4310, 0xaa4404, 0xaa4c10, 0xaa4e01, 0xaa5002, 0xaa5a01,
    0xaa5c20, 0xaa6004, 0xaa7740, 0xaa7a04, 0xaa7b10, 0xaa7e04, 0xaab010, 0xaab104,
    0xaab210, 0xaab504, 0xaab710, 0xaab904, 0xaabe10, 0xaac004, 0xaac110, 0xaac204,
    0xaac301, 0xaadb04, 0xaade20, 0xaae004, 0xaaeb10, 0xaaf020, 0xaaf204, 0xaaf510,
    0xaaf701, 0xab0104, 0xab0701, 0xab0904, 0xab0f01, 0xab1104, 0xab1701, 0xab2004,
    0xab2701, 0xab2804, 0xab2f01, 0xab3004, 0xab5b40, 0xab5c04, 0xab6a40, 0xab6c01,
    0xab7004, 0xabe310, 0xabeb20, 0xabec10, 0xabee01, 0xabf002, 0xabfa01, 0xac0004,
    0xd7a401, 0xd7b004, 0xd7c701, 0xd7cb04, 0xd7fc01, 0xd80080, 0xf90004, 0xfa6e01,
    0xfa7004, 0xfada01, 0xfb0004, 0xfb0701, 0xfb1304, 0xfb1801, 0xfb1d04, 0xfb1e10,
    0xfb1f04, 0xfb2940, 0xfb2a04, 0xfb3701, 0xfb3804, 0xfb3d01, 0xfb3e04, 0xfb3f01,
    0xfb4004, 0xfb4201, 0xfb4304, 0xfb4501, 0xfb4604, 0xfbb240, 0xfbc301, 0xfbd304,
    0xfd3e20, 0xfd4040, 0xfd5004, 0xfd9001, 0xfd9204, 0xfdc801, 0xfdcf40, 0xfdd001,
    0xfdf004, 0xfdfc40, 0xfe0010, 0xfe1020, 0xfe1a01, 0xfe2010, 0xfe3020, 0xfe5301,
    0xfe5420, 0xfe6240, 0xfe6320, 0xfe6440, 0xfe6701, 0xfe6820, 0xfe6940, 0xfe6a20,
    0xfe6c01, 0xfe7004, 0xfe7501, 0xfe7604, 0xfefd01, 0xfeff80, 0xff0001, 0xff0120,
    0xff0440, 0xff0520, 0xff0b40, 0xff0c20, 0xff1002, 0xff1a20, 0xff1c40, 0xff1f20,
    0xff2104, 0xff3b20, 0xff3e40, 0xff3f20, 0xff4040, 0xff4104, 0xff5b20, 0xff5c40,
    0xff5d20, 0xff5e40, 0xff5f20, 0xff6604, 0xffbf01, 0xffc204, 0xffc801, 0xffca04,
    0xffd001, 0xffd204, 0xffd801, 0xffda04, 0xffdd01, 0xffe040, 0xffe701, 0xffe840,
    0xffef01, 0xfff980, 0xfffc40, 0xfffe01, 0x1000004, 0x1000c01, 0x1000d04, 0x1002701,
    0x1002804, 0x1003b01, 0x1003c04, 0x1003e01, 0x1003f04, 0x1004e01, 0x1005004, 0x1005e01,
    0x1008004, 0x100fb01, 0x1010020, 0x1010301, 0x1010702, 0x1013401, 0x1013740, 0x1014002,
    0x1017940, 0x1018a02, 0x1018c40, 0x1018f01, 0x1019040, 0x1019d01, 0x101a040, 0x101a101,
    0x101d040, 0x101fd10, 0x101fe01, 0x1028004, 0x1029d01, 0x102a004, 0x102d101, 0x102e010,
    0x102e102, 0x102fc01, 0x1030004, 0x1032002, 0x1032401, 0x1032d04, 0x1034102, 0x1034204,
    0x1034a02, 0x1034b01, 0x1035004, 0x1037610, 0x1037b01, 0x1038004, 0x1039e01, 0x1039f20,
    0x103a004, 0x103c401, 0x103c804, 0x103d020, 0x103d102, 0x103d601, 0x1040004, 0x1049e01,
    0x104a002, 0x104aa01, 0x104b004, 0x104d401, 0x104d804, 0x104fc01, 0x1050004, 0x1052801,
    0x1053004, 0x1056401, 0x1056f20, 0x1057004, 0x1057b01, 0x1057c04, 0x1058b01, 0x1058c04,
    0x1059301, 0x1059404, 0x1059601, 0x1059704, 0x105a201, 0x105a304, 0x105b201, 0x105b304,
    0x105ba01, 0x105bb04, 0x105bd01, 0x1060004, 0x1073701, 0x1074004, 0x1075601, 0x1076004,
    0x1076801, 0x1078004, 0x1078601, 0x1078704, 0x107b101, 0x107b204, 0x107bb01, 0x1080004,
    0x1080601, 0x1080804, 0x1080901, 0x1080a04, 0x1083601, 0x1083704, 0x1083901, 0x1083c04,
    0x1083d01, 0x1083f04, 0x1085601, 0x1085720, 0x1085802, 0x1086004, 0x1087740, 0x1087902,
    0x1088004, 0x1089f01, 0x108a702, 0x108b001, 0x108e004, 0x108f301, 0x108f404, 0x108f601,
    0x108fb02, 0x1090004, 0x1091602, 0x1091c01, 0x1091f20, 0x1092004, 0x1093a01, 0x1093f20,
    0x1094001, 0x1098004, 0x109b801, 0x109bc02, 0x109be04, 0x109c002, 0x109d001, 0x109d202,
    0x10a0004, 0x10a0110, 0x10a0401, 0x10a0510, 0x10a0701, 0x10a0c10, 0x10a1004, 0x10a1401,
    0x10a1504, 0x10a1801, 0x10a1904, 0x10a3601, 0x10a3810, 0x10a3b01, 0x10a3f10, 0x10a4002,
    0x10a4901, 0x10a5020, 0x10a5901, 0x10a6004, 0x10a7d02, 0x10a7f20, 0x10a8004, 0x10a9d02,
    0x10aa001, 0x10ac004, 0x10ac840, 0x10ac904, 0x10ae510, 0x10ae701, 0x10aeb02, 0x10af020,
    0x10af701, 0x10b0004, 0x10b3601, 0x10b3920, 0x10b4004, 0x10b5601, 0x10b5802, 0x10b6004,
    0x10b7301, 0x10b7802, 0x10b8004, 0x10b9201, 0x10b9920, 0x10b9d01, 0x10ba902, 0x10bb001,
    0x10c0004, 0x10c4901, 0x10c8004, 0x10cb301, 0x10cc004, 0x10cf301, 0x10cfa02, 0x10d0004,
    0x10d2410, 0x10d2801, 0x10d3002, 0x10d3a01, 0x10e6002, 0x10e7f01, 0x10e8004, 0x10eaa01,
    0x10eab10, 0x10ead20, 0x10eae01, 0x10eb004, 0x10eb201, 0x10f0004, 0x10f1d02, 0x10f2704,
    0x10f2801, 0x10f3004, 0x10f4610, 0x10f5102, 0x10f5520, 0x10f5a01, 0x10f7004, 0x10f8210,
    0x10f8620, 0x10f8a01, 0x10fb004, 0x10fc502, 0x10fcc01, 0x10fe004, 0x10ff701, 0x1100010,
    0x1100304, 0x1103810, 0x1104720, 0x1104e01, 0x1105202, 0x1107010, 0x1107104, 0x1107310,
    0x1107504, 0x1107601, 0x1107f10, 0x1108304, 0x110b010, 0x110bb20, 0x110bd80, 0x110be20,
    0x110c210, 0x110c301, 0x110cd80, 0x110ce01, 0x110d004, 0x110e901, 0x110f002, 0x110fa01,
    0x1110010, 0x1110304, 0x1112710, 0x1113501, 0x1113602, 0x1114020, 0x1114404, 0x1114510,
    0x1114704, 0x1114801, 0x1115004, 0x1117310, 0x1117420, 0x1117604, 0x1117701, 0x1118010,
    0x1118304, 0x111b310, 0x111c104, 0x111c520, 0x111c910, 0x111cd20, 0x111ce10, 0x111d002,
    0x111da04, 0x111db20, 0x111dc04, 0x111dd20, 0x111e001, 0x111e102, 0x111f501, 0x1120004,
    0x1121201, 0x1121304, 0x1122c10, 0x1123820, 0x1123e10, 0x1123f01, 0x1128004, 0x1128701,
    0x1128804, 0x1128901, 0x1128a04, 0x1128e01, 0x1128f04, 0x1129e01, 0x1129f04, 0x112a920,
    0x112aa01, 0x112b004, 0x112df10, 0x112eb01, 0x112f002, 0x112fa01, 0x1130010, 0x1130401,
    0x1130504, 0x1130d01, 0x1130f04, 0x1131101, 0x1131304, 0x1132901, 0x1132a04, 0x1133101,
    0x1133204, 0x1133401, 0x1133504, 0x1133a01, 0x1133b10, 0x1133d04, 0x1133e10, 0x1134501,
    0x1134710, 0x1134901, 0x1134b10, 0x1134e01, 0x1135004, 0x1135101, 0x1135710, 0x1135801,
    0x1135d04, 0x1136210, 0x1136401, 0x1136610, 0x1136d01, 0x1137010, 0x1137501, 0x1140004,
    0x1143510, 0x1144704, 0x1144b20, 0x1145002, 0x1145a20, 0x1145c01, 0x1145d20, 0x1145e10,
    0x1145f04, 0x1146201, 0x1148004, 0x114b010, 0x114c404, 0x114c620, 0x114c704, 0x114c801,
    0x114d002, 0x114da01, 0x1158004, 0x115af10, 0x115b601, 0x115b810, 0x115c120, 0x115d804,
    0x115dc10, 0x115de01, 0x1160004, 0x1163010, 0x1164120, 0x1164404, 0x1164501, 0x1165002,
    0x1165a01, 0x1166020, 0x1166d01, 0x1168004, 0x116ab10, 0x116b804, 0x116b920, 0x116ba01,
    0x116c002, 0x116ca01, 0x1170004, 0x1171b01, 0x1171d10, 0x1172c01, 0x1173002, 0x1173c20,
    0x1173f40, 0x1174004, 0x1174701, 0x1180004, 0x1182c10, 0x1183b20, 0x1183c01, 0x118a004,
    0x118e002, 0x118f301, 0x118ff04, 0x1190701, 0x1190904, 0x1190a01, 0x1190c04, 0x1191401,
    0x1191504, 0x1191701, 0x1191804, 0x1193010, 0x1193601, 0x1193710, 0x1193901, 0x1193b10,
    0x1193f04, 0x1194010, 0x1194104, 0x1194210, 0x1194420, 0x1194701, 0x1195002, 0x1195a01,
    0x119a004, 0x119a801, 0x119aa04, 0x119d110, 0x119d801, 0x119da10, 0x119e104, 0x119e220,
    0x119e304, 0x119e410, 0x119e501, 0x11a0004, 0x11a0110, 0x11a0b04, 0x11a3310, 0x11a3a04,
    0x11a3b10, 0x11a3f20, 0x11a4710, 0x11a4801, 0x11a5004, 0x11a5110, 0x11a5c04, 0x11a8a10,
    0x11a9a20, 0x11a9d04, 0x11a9e20, 0x11aa301, 0x11ab004, 0x11af901, 0x11c0004, 0x11c0901,
    0x11c0a04, 0x11c2f10, 0x11c3701, 0x11c3810, 0x11c4004, 0x11c4120, 0x11c4601, 0x11c5002,
    0x11c6d01, 0x11c7020, 0x11c7204, 0x11c9001, 0x11c9210, 0x11ca801, 0x11ca910, 0x11cb701,
    0x11d0004, 0x11d0701, 0x11d0804, 0x11d0a01, 0x11d0b04, 0x11d3110, 0x11d3701, 0x11d3a10,
    0x11d3b01, 0x11d3c10, 0x11d3e01, 0x11d3f10, 0x11d4604, 0x11d4710, 0x11d4801, 0x11d5002,
    0x11d5a01, 0x11d6004, 0x11d6601, 0x11d6704, 0x11d6901, 0x11d6a04, 0x11d8a10, 0x11d8f01,
    0x11d9010, 0x11d9201, 0x11d9310, 0x11d9804, 0x11d9901, 0x11da002, 0x11daa01, 0x11ee004,
    0x11ef310, 0x11ef720, 0x11ef901, 0x11fb004, 0x11fb101, 0x11fc002, 0x11fd540, 0x11ff201,
    0x11fff20, 0x1200004, 0x1239a01, 0x1240002, 0x1246f01, 0x1247020, 0x1247501, 0x1248004,
    0x1254401, 0x12f9004, 0x12ff120, 0x12ff301, 0x1300004, 0x1342f01, 0x1343080, 0x1343901,
    0x1440004, 0x1464701, 0x1680004, 0x16a3901, 0x16a4004, 0x16a5f01, 0x16a6002, 0x16a6a01,
    0x16a6e20, 0x16a7004, 0x16abf01, 0x16ac002, 0x16aca01, 0x16ad004, 0x16aee01, 0x16af010,
    0x16af520, 0x16af601, 0x16b0004, 0x16b3010, 0x16b3720, 0x16b3c40, 0x16b4004, 0x16b4420,
    0x16b4540, 0x16b4601, 0x16b5002, 0x16b5a01, 0x16b5b02, 0x16b6201, 0x16b6304, 0x16b7801,
    0x16b7d04, 0x16b9001, 0x16e4004, 0x16e8002, 0x16e9720, 0x16e9b01, 0x16f0004, 0x16f4b01,
    0x16f4f10, 0x16f5004, 0x16f5110, 0x16f8801, 0x16f8f10, 0x16f9304, 0x16fa001, 0x16fe004,
    0x16fe220, 0x16fe304, 0x16fe410, 0x16fe501, 0x16ff010, 0x16ff201, 0x1700004, 0x187f801,
    0x1880004, 0x18cd601, 0x18d0004, 0x18d0901, 0x1aff004, 0x1aff401, 0x1aff504, 0x1affc01,
    0x1affd04, 0x1afff01, 0x1b00004, 0x1b12301, 0x1b15004, 0x1b15301, 0x1b16404, 0x1b16801,
    0x1b17004, 0x1b2fc01, 0x1bc0004, 0x1bc6b01, 0x1bc7004, 0x1bc7d01, 0x1bc8004, 0x1bc8901,
    0x1bc9004, 0x1bc9a01, 0x1bc9c40, 0x1bc9d10, 0x1bc9f20, 0x1bca080, 0x1bca401, 0x1cf0010,
    0x1cf2e01, 0x1cf3010, 0x1cf4701, 0x1cf5040, 0x1cfc401, 0x1d00040, 0x1d0f601, 0x1d10040,
    0x1d12701, 0x1d12940, 0x1d16510, 0x1d16a40, 0x1d16d10, 0x1d17380, 0x1d17b10, 0x1d18340,
    0x1d18510, 0x1d18c40, 0x1d1aa10, 0x1d1ae40, 0x1d1eb01, 0x1d20040, 0x1d24210, 0x1d24540,
    0x1d24601, 0x1d2e002, 0x1d2f401, 0x1d30040, 0x1d35701, 0x1d36002, 0x1d37901, 0x1d40004,
    0x1d45501, 0x1d45604, 0x1d49d01, 0x1d49e04, 0x1d4a001, 0x1d4a204, 0x1d4a301, 0x1d4a504,
    0x1d4a701, 0x1d4a904, 0x1d4ad01, 0x1d4ae04, 0x1d4ba01, 0x1d4bb04, 0x1d4bc01, 0x1d4bd04,
    0x1d4c401, 0x1d4c504, 0x1d50601, 0x1d50704, 0x1d50b01, 0x1d50d04, 0x1d51501, 0x1d51604,
    0x1d51d01, 0x1d51e04, 0x1d53a01, 0x1d53b04, 0x1d53f01, 0x1d54004, 0x1d54501, 0x1d54604,
    0x1d54701, 0x1d54a04, 0x1d55101, 0x1d55204, 0x1d6a601, 0x1d6a804, 0x1d6c140, 0x1d6c204,
    0x1d6db40, 0x1d6dc04, 0x1d6fb40, 0x1d6fc04, 0x1d71540, 0x1d71604, 0x1d73540, 0x1d73604,
    0x1d74f40, 0x1d75004, 0x1d76f40, 0x1d77004, 0x1d78940, 0x1d78a04, 0x1d7a940, 0x1d7aa04,
    0x1d7c340, 0x1d7c404, 0x1d7cc01, 0x1d7ce02, 0x1d80040, 0x1da0010, 0x1da3740, 0x1da3b10,
    0x1da6d40, 0x1da7510, 0x1da7640, 0x1da8410, 0x1da8540, 0x1da8720, 0x1da8c01, 0x1da9b10,
    0x1daa001, 0x1daa110, 0x1dab001, 0x1df0004, 0x1df1f01, 0x1e00010, 0x1e00701, 0x1e00810,
    0x1e01901, 0x1e01b10, 0x1e02201, 0x1e02310, 0x1e02501, 0x1e02610, 0x1e02b01, 0x1e10004,
    0x1e12d01, 0x1e13010, 0x1e13704, 0x1e13e01, 0x1e14002, 0x1e14a01, 0x1e14e04, 0x1e14f40,
    0x1e15001, 0x1e29004, 0x1e2ae10, 0x1e2af01, 0x1e2c004, 0x1e2ec10, 0x1e2f002, 0x1e2fa01,
    0x1e2ff40, 0x1e30001, 0x1e7e004, 0x1e7e701, 0x1e7e804, 0x1e7ec01, 0x1e7ed04, 0x1e7ef01,
    0x1e7f004, 0x1e7ff01, 0x1e80004, 0x1e8c501, 0x1e8c702, 0x1e8d010, 0x1e8d701, 0x1e90004,
    0x1e94410, 0x1e94b04, 0x1e94c01, 0x1e95002, 0x1e95a01, 0x1e95e20, 0x1e96001, 0x1ec7102,
    0x1ecac40, 0x1ecad02, 0x1ecb040, 0x1ecb102, 0x1ecb501, 0x1ed0102, 0x1ed2e40, 0x1ed2f02,
    0x1ed3e01, 0x1ee0004, 0x1ee0401, 0x1ee0504, 0x1ee2001, 0x1ee2104, 0x1ee2301, 0x1ee2404,
    0x1ee2501, 0x1ee2704, 0x1ee2801, 0x1ee2904, 0x1ee3301, 0x1ee3404, 0x1ee3801, 0x1ee3904,
    0x1ee3a01, 0x1ee3b04, 0x1ee3c01, 0x1ee4204, 0x1ee4301, 0x1ee4704, 0x1ee4801, 0x1ee4904,
    0x1ee4a01, 0x1ee4b04, 0x1ee4c01, 0x1ee4d04, 0x1ee5001, 0x1ee5104, 0x1ee5301, 0x1ee5404,
    0x1ee5501, 0x1ee5704, 0x1ee5801, 0x1ee5904, 0x1ee5a01, 0x1ee5b04, 0x1ee5c01, 0x1ee5d04,
    0x1ee5e01, 0x1ee5f04, 0x1ee6001, 0x1ee6104, 0x1ee6301, 0x1ee6404, 0x1ee6501, 0x1ee6704,
    0x1ee6b01, 0x1ee6c04, 0x1ee7301, 0x1ee7404, 0x1ee7801, 0x1ee7904, 0x1ee7d01, 0x1ee7e04,
    0x1ee7f01, 0x1ee8004, 0x1ee8a01, 0x1ee8b04, 0x1ee9c01, 0x1eea104, 0x1eea401, 0x1eea504,
    0x1eeaa01, 0x1eeab04, 0x1eebc01, 0x1eef040, 0x1eef201, 0x1f00040, 0x1f02c01, 0x1f03040,
    0x1f09401, 0x1f0a040, 0x1f0af01, 0x1f0b140, 0x1f0c001, 0x1f0c140, 0x1f0d001, 0x1f0d140,
    0x1f0f601, 0x1f10002, 0x1f10d40, 0x1f1ae01, 0x1f1e640, 0x1f20301, 0x1f21040, 0x1f23c01,
    0x1f24040, 0x1f24901, 0x1f25040, 0x1f25201, 0x1f26040, 0x1f26601, 0x1f30040, 0x1f6d801,
    0x1f6dd40, 0x1f6ed01, 0x1f6f040, 0x1f6fd01, 0x1f70040, 0x1f77401, 0x1f78040, 0x1f7d901,
    0x1f7e040, 0x1f7ec01, 0x1f7f040, 0x1f7f101, 0x1f80040, 0x1f80c01, 0x1f81040, 0x1f84801,
    0x1f85040, 0x1f85a01, 0x1f86040, 0x1f88801, 0x1f89040, 0x1f8ae01, 0x1f8b040, 0x1f8b201,
    0x1f90040, 0x1fa5401, 0x1fa6040, 0x1fa6e01, 0x1fa7040, 0x1fa7501, 0x1fa7840, 0x1fa7d01,
    0x1fa8040, 0x1fa8701, 0x1fa9040, 0x1faad01, 0x1fab040, 0x1fabb01, 0x1fac040, 0x1fac601,
    0x1fad040, 0x1fada01, 0x1fae040, 0x1fae801, 0x1faf040, 0x1faf701, 0x1fb0040, 0x1fb9301,
    0x1fb9440, 0x1fbcb01, 0x1fbf002, 0x1fbfa01, 0x2000004, 0x2a6e001, 0x2a70004, 0x2b73901,
    0x2b74004, 0x2b81e01, 0x2b82004, 0x2cea201, 0x2ceb004, 0x2ebe101, 0x2f80004, 0x2fa1e01,
    0x3000004, 0x3134b01, 0xe000180, 0xe000201, 0xe002080, 0xe008001, 0xe010010, 0xe01f001,
    0xf000080, 0xffffe01, 0x10000080, 0x10fffe01,
};
#define LK__ULOWER_N 183
static const int32_t lk__ulower[LK__ULOWER_N][4] = {
    {0x41,26,1,32}, {0xc0,23,1,32}, {0xd8,7,1,32}, {0x100,24,2,1},
    {0x130,1,1,-199}, {0x132,3,2,1}, {0x139,8,2,1}, {0x14a,23,2,1},
    {0x178,1,1,-121}, {0x179,3,2,1}, {0x181,1,1,210}, {0x182,2,2,1},
    {0x186,1,1,206}, {0x187,1,1,1}, {0x189,2,1,205}, {0x18b,1,1,1},
    {0x18e,1,1,79}, {0x18f,1,1,202}, {0x190,1,1,203}, {0x191,1,1,1},
    {0x193,1,1,205}, {0x194,1,1,207}, {0x196,1,1,211}, {0x197,1,1,209},
    {0x198,1,1,1}, {0x19c,1,1,211}, {0x19d,1,1,213}, {0x19f,1,1,214},
    {0x1a0,3,2,1}, {0x1a6,1,1,218}, {0x1a7,1,1,1}, {0x1a9,1,1,218},
    {0x1ac,1,1,1}, {0x1ae,1,1,218}, {0x1af,1,1,1}, {0x1b1,2,1,217},
    {0x1b3,2,2,1}, {0x1b7,1,1,219}, {0x1b8,1,1,1}, {0x1bc,1,1,1},
    {0x1c4,1,1,2}, {0x1c5,1,1,1}, {0x1c7,1,1,2}, {0x1c8,1,1,1},
    {0x1ca,1,1,2}, {0x1cb,9,2,1}, {0x1de,9,2,1}, {0x1f1,1,1,2},
    {0x1f2,2,2,1}, {0x1f6,1,1,-97}, {0x1f7,1,1,-56}, {0x1f8,20,2,1},
    {0x220,1,1,-130}, {0x222,9,2,1}, {0x23a,1,1,10795}, {0x23b,1,1,1},
    {0x23d,1,1,-163}, {0x23e,1,1,10792}, {0x241,1,1,1}, {0x243,1,1,-195},
    {0x244,1,1,69}, {0x245,1,1,71}, {0x246,5,2,1}, {0x370,2,2,1},
    {0x376,1,1,1}, {0x37f,1,1,116}, {0x386,1,1,38}, {0x388,3,1,37},
    {0x38c,1,1,64}, {0x38e,2,1,63}, {0x391,17,1,32}, {0x3a3,9,1,32},
    {0x3cf,1,1,8}, {0x3d8,12,2,1}, {0x3f4,1,1,-60}, {0x3f7,1,1,1},
    {0x3f9,1,1,-7}, {0x3fa,1,1,1}, {0x3fd,3,1,-130}, {0x400,16,1,80},
    {0x410,32,1,32}, {0x460,17,2,1}, {0x48a,27,2,1}, {0x4c0,1,1,15},
    {0x4c1,7,2,1}, {0x4d0,48,2,1}, {0x531,38,1,48}, {0x10a0,38,1,7264},
    {0x10c7,1,1,7264}, {0x10cd,1,1,7264}, {0x13a0,80,1,38864}, {0x13f0,6,1,8},
    {0x1c90,43,1,-3008}, {0x1cbd,3,1,-3008}, {0x1e00,75,2,1}, {0x1e9e,1,1,-7615},
    {0x1ea0,48,2,1}, {0x1f08,8,1,-8}, {0x1f18,6,1,-8}, {0x1f28,8,1,-8},
    {0x1f38,8,1,-8}, {0x1f48,6,1,-8}, {0x1f59,4,2,-8}, {0x1f68,8,1,-8},
    {0x1f88,8,1,-8}, {0x1f98,8,1,-8}, {0x1fa8,8,1,-8}, {0x1fb8,2,1,-8},
    {0x1fba,2,1,-74}, {0x1fbc,1,1,-9}, {0x1fc8,4,1,-86}, {0x1fcc,1,1,-9},
    {0x1fd8,2,1,-8}, {0x1fda,2,1,-100}, {0x1fe8,2,1,-8}, {0x1fea,2,1,-112},
    {0x1fec,1,1,-7}, {0x1ff8,2,1,-128}, {0x1ffa,2,1,-126}, {0x1ffc,1,1,-9},
    {0x2126,1,1,-7517}, {0x212a,1,1,-8383}, {0x212b,1,1,-8262}, {0x2132,1,1,28},
    {0x2160,16,1,16}, {0x2183,1,1,1}, {0x24b6,26,1,26}, {0x2c00,48,1,48},
    {0x2c60,1,1,1}, {0x2c62,1,1,-10743}, {0x2c63,1,1,-3814}, {0x2c64,1,1,-10727},
    {0x2c67,3,2,1}, {0x2c6d,1,1,-10780}, {0x2c6e,1,1,-10749}, {0x2c6f,1,1,-10783},
    {0x2c70,1,1,-10782}, {0x2c72,1,1,1}, {0x2c75,1,1,1}, {0x2c7e,2,1,-10815},
    {0x2c80,50,2,1}, {0x2ceb,2,2,1}, {0x2cf2,1,1,1}, {0xa640,23,2,1},
    {0xa680,14,2,1}, {0xa722,7,2,1}, {0xa732,31,2,1}, {0xa779,2,2,1},
    {0xa77d,1,1,-35332}, {0xa77e,5,2,1}, {0xa78b,1,1,1}, {0xa78d,1,1,-42280},
    {0xa790,2,2,1}, {0xa796,10,2,1}, {0xa7aa,1,1,-42308}, {0xa7ab,1,1,-42319},
    {0xa7ac,1,1,-42315}, {0xa7ad,1,1,-42305}, {0xa7ae,1,1,-42308}, {0xa7b0,1,1,-42258},
    {0xa7b1,1,1,-42282}, {0xa7b2,1,1,-42261}, {0xa7b3,1,1,928}, {0xa7b4,8,2,1},
    {0xa7c4,1,1,-48}, {0xa7c5,1,1,-42307}, {0xa7c6,1,1,-35384}, {0xa7c7,2,2,1},
    {0xa7d0,1,1,1}, {0xa7d6,2,2,1}, {0xa7f5,1,1,1}, {0xff21,26,1,32},
    {0x10400,40,1,40}, {0x104b0,36,1,40}, {0x10570,19,2,39}, {0x10571,5,2,39},
    {0x1057d,7,2,39}, {0x1058d,3,2,39}, {0x10595,1,1,39}, {0x10c80,51,1,64},
    {0x118a0,32,1,32}, {0x16e40,32,1,32}, {0x1e900,34,1,34},
};
#define LK__UNFD_N 1827
static const uint32_t lk__unfd[LK__UNFD_N][3] = {
    {0xc0,0xc5,0x41}, {0xc7,0xc7,0x43}, {0xc8,0xcb,0x45}, {0xcc,0xcf,0x49}, {0xd1,0xd1,0x4e},
    {0xd2,0xd6,0x4f}, {0xd9,0xdc,0x55}, {0xdd,0xdd,0x59}, {0xe0,0xe5,0x61}, {0xe7,0xe7,0x63},
    {0xe8,0xeb,0x65}, {0xec,0xef,0x69}, {0xf1,0xf1,0x6e}, {0xf2,0xf6,0x6f}, {0xf9,0xfc,0x75},
    {0xfd,0xfd,0x79}, {0xff,0xff,0x79}, {0x100,0x100,0x41}, {0x101,0x101,0x61}, {0x102,0x102,0x41},
    {0x103,0x103,0x61}, {0x104,0x104,0x41}, {0x105,0x105,0x61}, {0x106,0x106,0x43}, {0x107,0x107,0x63},
    {0x108,0x108,0x43}, {0x109,0x109,0x63}, {0x10a,0x10a,0x43}, {0x10b,0x10b,0x63}, {0x10c,0x10c,0x43},
    {0x10d,0x10d,0x63}, {0x10e,0x10e,0x44}, {0x10f,0x10f,0x64}, {0x112,0x112,0x45}, {0x113,0x113,0x65},
    {0x114,0x114,0x45}, {0x115,0x115,0x65}, {0x116,0x116,0x45}, {0x117,0x117,0x65}, {0x118,0x118,0x45},
    {0x119,0x119,0x65}, {0x11a,0x11a,0x45}, {0x11b,0x11b,0x65}, {0x11c,0x11c,0x47}, {0x11d,0x11d,0x67},
    {0x11e,0x11e,0x47}, {0x11f,0x11f,0x67}, {0x120,0x120,0x47}, {0x121,0x121,0x67}, {0x122,0x122,0x47},
    {0x123,0x123,0x67}, {0x124,0x124,0x48}, {0x125,0x125,0x68}, {0x128,0x128,0x49}, {0x129,0x129,0x69},
    {0x12a,0x12a,0x49}, {0x12b,0x12b,0x69}, {0x12c,0x12c,0x49}, {0x12d,0x12d,0x69}, {0x12e,0x12e,0x49},
    {0x12f,0x12f,0x69}, {0x130,0x130,0x49}, {0x134,0x134,0x4a}, {0x135,0x135,0x6a}, {0x136,0x136,0x4b},
    {0x137,0x137,0x6b}, {0x139,0x139,0x4c}, {0x13a,0x13a,0x6c}, {0x13b,0x13b,0x4c}, {0x13c,0x13c,0x6c},
    {0x13d,0x13d,0x4c}, {0x13e,0x13e,0x6c}, {0x143,0x143,0x4e}, {0x144,0x144,0x6e}, {0x145,0x145,0x4e},
    {0x146,0x146,0x6e}, {0x147,0x147,0x4e}, {0x148,0x148,0x6e}, {0x14c,0x14c,0x4f}, {0x14d,0x14d,0x6f},
    {0x14e,0x14e,0x4f}, {0x14f,0x14f,0x6f}, {0x150,0x150,0x4f}, {0x151,0x151,0x6f}, {0x154,0x154,0x52},
    {0x155,0x155,0x72}, {0x156,0x156,0x52}, {0x157,0x157,0x72}, {0x158,0x158,0x52}, {0x159,0x159,0x72},
    {0x15a,0x15a,0x53}, {0x15b,0x15b,0x73}, {0x15c,0x15c,0x53}, {0x15d,0x15d,0x73}, {0x15e,0x15e,0x53},
    {0x15f,0x15f,0x73}, {0x160,0x160,0x53}, {0x161,0x161,0x73}, {0x162,0x162,0x54}, {0x163,0x163,0x74},
    {0x164,0x164,0x54}, {0x165,0x165,0x74}, {0x168,0x168,0x55}, {0x169,0x169,0x75}, {0x16a,0x16a,0x55},
    {0x16b,0x16b,0x75}, {0x16c,0x16c,0x55}, {0x16d,0x16d,0x75}, {0x16e,0x16e,0x55}, {0x16f,0x16f,0x75},
    {0x170,0x170,0x55}, {0x171,0x171,0x75}, {0x172,0x172,0x55}, {0x173,0x173,0x75}, {0x174,0x174,0x57},
    {0x175,0x175,0x77}, {0x176,0x176,0x59}, {0x177,0x177,0x79}, {0x178,0x178,0x59}, {0x179,0x179,0x5a},
    {0x17a,0x17a,0x7a}, {0x17b,0x17b,0x5a}, {0x17c,0x17c,0x7a}, {0x17d,0x17d,0x5a}, {0x17e,0x17e,0x7a},
    {0x1a0,0x1a0,0x4f}, {0x1a1,0x1a1,0x6f}, {0x1af,0x1af,0x55}, {0x1b0,0x1b0,0x75}, {0x1cd,0x1cd,0x41},
    {0x1ce,0x1ce,0x61}, {0x1cf,0x1cf,0x49}, {0x1d0,0x1d0,0x69}, {0x1d1,0x1d1,0x4f}, {0x1d2,0x1d2,0x6f},
    {0x1d3,0x1d3,0x55}, {0x1d4,0x1d4,0x75}, {0x1d5,0x1d5,0x55}, {0x1d6,0x1d6,0x75}, {0x1d7,0x1d7,0x55},
    {0x1d8,0x1d8,0x75}, {0x1d9,0x1d9,0x55}, {0x1da,0x1da,0x75}, {0x1db,0x1db,0x55}, {0x1dc,0x1dc,0x75},
    {0x1de,0x1de,0x41}, {0x1df,0x1df,0x61}, {0x1e0,0x1e0,0x41}, {0x1e1,0x1e1,0x61}, {0x1e2,0x1e2,0xc6},
    {0x1e3,0x1e3,0xe6}, {0x1e6,0x1e6,0x47}, {0x1e7,0x1e7,0x67}, {0x1e8,0x1e8,0x4b}, {0x1e9,0x1e9,0x6b},
    {0x1ea,0x1ea,0x4f}, {0x1eb,0x1eb,0x6f}, {0x1ec,0x1ec,0x4f}, {0x1ed,0x1ed,0x6f}, {0x1ee,0x1ee,0x1b7},
    {0x1ef,0x1ef,0x292}, {0x1f0,0x1f0,0x6a}, {0x1f4,0x1f4,0x47}, {0x1f5,0x1f5,0x67}, {0x1f8,0x1f8,0x4e},
    {0x1f9,0x1f9,0x6e}, {0x1fa,0x1fa,0x41}, {0x1fb,0x1fb,0x61}, {0x1fc,0x1fc,0xc6}, {0x1fd,0x1fd,0xe6},
    {0x1fe,0x1fe,0xd8}, {0x1ff,0x1ff,0xf8}, {0x200,0x200,0x41}, {0x201,0x201,0x61}, {0x202,0x202,0x41},
    {0x203,0x203,0x61}, {0x204,0x204,0x45}, {0x205,0x205,0x65}, {0x206,0x206,0x45}, {0x207,0x207,0x65},
    {0x208,0x208,0x49}, {0x209,0x209,0x69}, {0x20a,0x20a,0x49}, {0x20b,0x20b,0x69}, {0x20c,0x20c,0x4f},
    {0x20d,0x20d,0x6f}, {0x20e,0x20e,0x4f}, {0x20f,0x20f,0x6f}, {0x210,0x210,0x52}, {0x211,0x211,0x72},
    {0x212,0x212,0x52}, {0x213,0x213,0x72}, {0x214,0x214,0x55}, {0x215,0x215,0x75}, {0x216,0x216,0x55},
    {0x217,0x217,0x75}, {0x218,0x218,0x53}, {0x219,0x219,0x73}, {0x21a,0x21a,0x54}, {0x21b,0x21b,0x74},
    {0x21e,0x21e,0x48}, {0x21f,0x21f,0x68}, {0x226,0x226,0x41}, {0x227,0x227,0x61}, {0x228,0x228,0x45},
    {0x229,0x229,0x65}, {0x22a,0x22a,0x4f}, {0x22b,0x22b,0x6f}, {0x22c,0x22c,0x4f}, {0x22d,0x22d,0x6f},
    {0x22e,0x22e,0x4f}, {0x22f,0x22f,0x6f}, {0x230,0x230,0x4f}, {0x231,0x231,0x6f}, {0x232,0x232,0x59},
    {0x233,0x233,0x79}, {0x340,0x340,0x300}, {0x341,0x341,0x301}, {0x343,0x343,0x313}, {0x344,0x344,0x308},
    {0x374,0x374,0x2b9}, {0x37e,0x37e,0x3b}, {0x385,0x385,0xa8}, {0x386,0x386,0x391}, {0x387,0x387,0xb7},
    {0x388,0x388,0x395}, {0x389,0x389,0x397}, {0x38a,0x38a,0x399}, {0x38c,0x38c,0x39f}, {0x38e,0x38e,0x3a5},
    {0x38f,0x38f,0x3a9}, {0x390,0x390,0x3b9}, {0x3aa,0x3aa,0x399}, {0x3ab,0x3ab,0x3a5}, {0x3ac,0x3ac,0x3b1},
    {0x3ad,0x3ad,0x3b5}, {0x3ae,0x3ae,0x3b7}, {0x3af,0x3af,0x3b9}, {0x3b0,0x3b0,0x3c5}, {0x3ca,0x3ca,0x3b9},
    {0x3cb,0x3cb,0x3c5}, {0x3cc,0x3cc,0x3bf}, {0x3cd,0x3cd,0x3c5}, {0x3ce,0x3ce,0x3c9}, {0x3d3,0x3d4,0x3d2},
    {0x400,0x401,0x415}, {0x403,0x403,0x413}, {0x407,0x407,0x406}, {0x40c,0x40c,0x41a}, {0x40d,0x40d,0x418},
    {0x40e,0x40e,0x423}, {0x419,0x419,0x418}, {0x439,0x439,0x438}, {0x450,0x451,0x435}, {0x453,0x453,0x433},
    {0x457,0x457,0x456}, {0x45c,0x45c,0x43a}, {0x45d,0x45d,0x438}, {0x45e,0x45e,0x443}, {0x476,0x476,0x474},
    {0x477,0x477,0x475}, {0x4c1,0x4c1,0x416}, {0x4c2,0x4c2,0x436}, {0x4d0,0x4d0,0x410}, {0x4d1,0x4d1,0x430},
    {0x4d2,0x4d2,0x410}, {0x4d3,0x4d3,0x430}, {0x4d6,0x4d6,0x415}, {0x4d7,0x4d7,0x435}, {0x4da,0x4da,0x4d8},
    {0x4db,0x4db,0x4d9}, {0x4dc,0x4dc,0x416}, {0x4dd,0x4dd,0x436}, {0x4de,0x4de,0x417}, {0x4df,0x4df,0x437},
    {0x4e2,0x4e2,0x418}, {0x4e3,0x4e3,0x438}, {0x4e4,0x4e4,0x418}, {0x4e5,0x4e5,0x438}, {0x4e6,0x4e6,0x41e},
    {0x4e7,0x4e7,0x43e}, {0x4ea,0x4ea,0x4e8}, {0x4eb,0x4eb,0x4e9}, {0x4ec,0x4ec,0x42d}, {0x4ed,0x4ed,0x44d},
    {0x4ee,0x4ee,0x423}, {0x4ef,0x4ef,0x443}, {0x4f0,0x4f0,0x423}, {0x4f1,0x4f1,0x443}, {0x4f2,0x4f2,0x423},
    {0x4f3,0x4f3,0x443}, {0x4f4,0x4f4,0x427}, {0x4f5,0x4f5,0x447}, {0x4f8,0x4f8,0x42b}, {0x4f9,0x4f9,0x44b},
    {0x622,0x623,0x627}, {0x624,0x624,0x648}, {0x625,0x625,0x627}, {0x626,0x626,0x64a}, {0x6c0,0x6c0,0x6d5},
    {0x6c2,0x6c2,0x6c1}, {0x6d3,0x6d3,0x6d2}, {0x929,0x929,0x928}, {0x931,0x931,0x930}, {0x934,0x934,0x933},
    {0x958,0x958,0x915}, {0x959,0x959,0x916}, {0x95a,0x95a,0x917}, {0x95b,0x95b,0x91c}, {0x95c,0x95c,0x921},
    {0x95d,0x95d,0x922}, {0x95e,0x95e,0x92b}, {0x95f,0x95f,0x92f}, {0x9cb,0x9cc,0x9c7}, {0x9dc,0x9dc,0x9a1},
    {0x9dd,0x9dd,0x9a2}, {0x9df,0x9df,0x9af}, {0xa33,0xa33,0xa32}, {0xa36,0xa36,0xa38}, {0xa59,0xa59,0xa16},
    {0xa5a,0xa5a,0xa17}, {0xa5b,0xa5b,0xa1c}, {0xa5e,0xa5e,0xa2b}, {0xb48,0xb48,0xb47}, {0xb4b,0xb4c,0xb47},
    {0xb5c,0xb5c,0xb21}, {0xb5d,0xb5d,0xb22}, {0xb94,0xb94,0xb92}, {0xbca,0xbca,0xbc6}, {0xbcb,0xbcb,0xbc7},
    {0xbcc,0xbcc,0xbc6}, {0xc48,0xc48,0xc46}, {0xcc0,0xcc0,0xcbf}, {0xcc7,0xcc8,0xcc6}, {0xcca,0xccb,0xcc6},
    {0xd4a,0xd4a,0xd46}, {0xd4b,0xd4b,0xd47}, {0xd4c,0xd4c,0xd46}, {0xdda,0xdda,0xdd9}, {0xddc,0xdde,0xdd9},
    {0xf43,0xf43,0xf42}, {0xf4d,0xf4d,0xf4c}, {0xf52,0xf52,0xf51}, {0xf57,0xf57,0xf56}, {0xf5c,0xf5c,0xf5b},
    {0xf69,0xf69,0xf40}, {0xf73,0xf73,0xf71}, {0xf75,0xf75,0xf71}, {0xf76,0xf76,0xfb2}, {0xf78,0xf78,0xfb3},
    {0xf81,0xf81,0xf71}, {0xf93,0xf93,0xf92}, {0xf9d,0xf9d,0xf9c}, {0xfa2,0xfa2,0xfa1}, {0xfa7,0xfa7,0xfa6},
    {0xfac,0xfac,0xfab}, {0xfb9,0xfb9,0xf90}, {0x1026,0x1026,0x1025}, {0x1b06,0x1b06,0x1b05}, {0x1b08,0x1b08,0x1b07},
    {0x1b0a,0x1b0a,0x1b09}, {0x1b0c,0x1b0c,0x1b0b}, {0x1b0e,0x1b0e,0x1b0d}, {0x1b12,0x1b12,0x1b11}, {0x1b3b,0x1b3b,0x1b3a},
    {0x1b3d,0x1b3d,0x1b3c}, {0x1b40,0x1b40,0x1b3e}, {0x1b41,0x1b41,0x1b3f}, {0x1b43,0x1b43,0x1b42}, {0x1e00,0x1e00,0x41},
    {0x1e01,0x1e01,0x61}, {0x1e02,0x1e02,0x42}, {0x1e03,0x1e03,0x62}, {0x1e04,0x1e04,0x42}, {0x1e05,0x1e05,0x62},
    {0x1e06,0x1e06,0x42}, {0x1e07,0x1e07,0x62}, {0x1e08,0x1e08,0x43}, {0x1e09,0x1e09,0x63}, {0x1e0a,0x1e0a,0x44},
    {0x1e0b,0x1e0b,0x64}, {0x1e0c,0x1e0c,0x44}, {0x1e0d,0x1e0d,0x64}, {0x1e0e,0x1e0e,0x44}, {0x1e0f,0x1e0f,0x64},
    {0x1e10,0x1e10,0x44}, {0x1e11,0x1e11,0x64}, {0x1e12,0x1e12,0x44}, {0x1e13,0x1e13,0x64}, {0x1e14,0x1e14,0x45},
    {0x1e15,0x1e15,0x65}, {0x1e16,0x1e16,0x45}, {0x1e17,0x1e17,0x65}, {0x1e18,0x1e18,0x45}, {0x1e19,0x1e19,0x65},
    {0x1e1a,0x1e1a,0x45}, {0x1e1b,0x1e1b,0x65}, {0x1e1c,0x1e1c,0x45}, {0x1e1d,0x1e1d,0x65}, {0x1e1e,0x1e1e,0x46},
    {0x1e1f,0x1e1f,0x66}, {0x1e20,0x1e20,0x47}, {0x1e21,0x1e21,0x67}, {0x1e22,0x1e22,0x48}, {0x1e23,0x1e23,0x68},
    {0x1e24,0x1e24,0x48}, {0x1e25,0x1e25,0x68}, {0x1e26,0x1e26,0x48}, {0x1e27,0x1e27,0x68}, {0x1e28,0x1e28,0x48},
    {0x1e29,0x1e29,0x68}, {0x1e2a,0x1e2a,0x48}, {0x1e2b,0x1e2b,0x68}, {0x1e2c,0x1e2c,0x49}, {0x1e2d,0x1e2d,0x69},
    {0x1e2e,0x1e2e,0x49}, {0x1e2f,0x1e2f,0x69}, {0x1e30,0x1e30,0x4b}, {0x1e31,0x1e31,0x6b}, {0x1e32,0x1e32,0x4b},
    {0x1e33,0x1e33,0x6b}, {0x1e34,0x1e34,0x4b}, {0x1e35,0x1e35,0x6b}, {0x1e36,0x1e36,0x4c}, {0x1e37,0x1e37,0x6c},
    {0x1e38,0x1e38,0x4c}, {0x1e39,0x1e39,0x6c}, {0x1e3a,0x1e3a,0x4c}, {0x1e3b,0x1e3b,0x6c}, {0x1e3c,0x1e3c,0x4c},
    {0x1e3d,0x1e3d,0x6c}, {0x1e3e,0x1e3e,0x4d}, {0x1e3f,0x1e3f,0x6d}, {0x1e40,0x1e40,0x4d}, {0x1e41,0x1e41,0x6d},
    {0x1e42,0x1e42,0x4d}, {0x1e43,0x1e43,0x6d}, {0x1e44,0x1e44,0x4e}, {0x1e45,0x1e45,0x6e}, {0x1e46,0x1e46,0x4e},
    {0x1e47,0x1e47,0x6e}, {0x1e48,0x1e48,0x4e}, {0x1e49,0x1e49,0x6e}, {0x1e4a,0x1e4a,0x4e}, {0x1e4b,0x1e4b,0x6e},
    {0x1e4c,0x1e4c,0x4f}, {0x1e4d,0x1e4d,0x6f}, {0x1e4e,0x1e4e,0x4f}, {0x1e4f,0x1e4f,0x6f}, {0x1e50,0x1e50,0x4f},
    {0x1e51,0x1e51,0x6f}, {0x1e52,0x1e52,0x4f}, {0x1e53,0x1e53,0x6f}, {0x1e54,0x1e54,0x50}, {0x1e55,0x1e55,0x70},
    {0x1e56,0x1e56,0x50}, {0x1e57,0x1e57,0x70}, {0x1e58,0x1e58,0x52}, {0x1e59,0x1e59,0x72}, {0x1e5a,0x1e5a,0x52},
    {0x1e5b,0x1e5b,0x72}, {0x1e5c,0x1e5c,0x52}, {0x1e5d,0x1e5d,0x72}, {0x1e5e,0x1e5e,0x52}, {0x1e5f,0x1e5f,0x72},
    {0x1e60,0x1e60,0x53}, {0x1e61,0x1e61,0x73}, {0x1e62,0x1e62,0x53}, {0x1e63,0x1e63,0x73}, {0x1e64,0x1e64,0x53},
    {0x1e65,0x1e65,0x73}, {0x1e66,0x1e66,0x53}, {0x1e67,0x1e67,0x73}, {0x1e68,0x1e68,0x53}, {0x1e69,0x1e69,0x73},
    {0x1e6a,0x1e6a,0x54}, {0x1e6b,0x1e6b,0x74}, {0x1e6c,0x1e6c,0x54}, {0x1e6d,0x1e6d,0x74}, {0x1e6e,0x1e6e,0x54},
    {0x1e6f,0x1e6f,0x74}, {0x1e70,0x1e70,0x54}, {0x1e71,0x1e71,0x74}, {0x1e72,0x1e72,0x55}, {0x1e73,0x1e73,0x75},
    {0x1e74,0x1e74,0x55}, {0x1e75,0x1e75,0x75}, {0x1e76,0x1e76,0x55}, {0x1e77,0x1e77,0x75}, {0x1e78,0x1e78,0x55},
    {0x1e79,0x1e79,0x75}, {0x1e7a,0x1e7a,0x55}, {0x1e7b,0x1e7b,0x75}, {0x1e7c,0x1e7c,0x56}, {0x1e7d,0x1e7d,0x76},
    {0x1e7e,0x1e7e,0x56}, {0x1e7f,0x1e7f,0x76}, {0x1e80,0x1e80,0x57}, {0x1e81,0x1e81,0x77}, {0x1e82,0x1e82,0x57},
    {0x1e83,0x1e83,0x77}, {0x1e84,0x1e84,0x57}, {0x1e85,0x1e85,0x77}, {0x1e86,0x1e86,0x57}, {0x1e87,0x1e87,0x77},
    {0x1e88,0x1e88,0x57}, {0x1e89,0x1e89,0x77}, {0x1e8a,0x1e8a,0x58}, {0x1e8b,0x1e8b,0x78}, {0x1e8c,0x1e8c,0x58},
    {0x1e8d,0x1e8d,0x78}, {0x1e8e,0x1e8e,0x59}, {0x1e8f,0x1e8f,0x79}, {0x1e90,0x1e90,0x5a}, {0x1e91,0x1e91,0x7a},
    {0x1e92,0x1e92,0x5a}, {0x1e93,0x1e93,0x7a}, {0x1e94,0x1e94,0x5a}, {0x1e95,0x1e95,0x7a}, {0x1e96,0x1e96,0x68},
    {0x1e97,0x1e97,0x74}, {0x1e98,0x1e98,0x77}, {0x1e99,0x1e99,0x79}, {0x1e9b,0x1e9b,0x17f}, {0x1ea0,0x1ea0,0x41},
    {0x1ea1,0x1ea1,0x61}, {0x1ea2,0x1ea2,0x41}, {0x1ea3,0x1ea3,0x61}, {0x1ea4,0x1ea4,0x41}, {0x1ea5,0x1ea5,0x61},
    {0x1ea6,0x1ea6,0x41}, {0x1ea7,0x1ea7,0x61}, {0x1ea8,0x1ea8,0x41}, {0x1ea9,0x1ea9,0x61}, {0x1eaa,0x1eaa,0x41},
    {0x1eab,0x1eab,0x61}, {0x1eac,0x1eac,0x41}, {0x1ead,0x1ead,0x61}, {0x1eae,0x1eae,0x41}, {0x1eaf,0x1eaf,0x61},
    {0x1eb0,0x1eb0,0x41}, {0x1eb1,0x1eb1,0x61}, {0x1eb2,0x1eb2,0x41}, {0x1eb3,0x1eb3,0x61}, {0x1eb4,0x1eb4,0x41},
    {0x1eb5,0x1eb5,0x61}, {0x1eb6,0x1eb6,0x41}, {0x1eb7,0x1eb7,0x61}, {0x1eb8,0x1eb8,0x45}, {0x1eb9,0x1eb9,0x65},
    {0x1eba,0x1eba,0x45}, {0x1ebb,0x1ebb,0x65}, {0x1ebc,0x1ebc,0x45}, {0x1ebd,0x1ebd,0x65}, {0x1ebe,0x1ebe,0x45},
    {0x1ebf,0x1ebf,0x65}, {0x1ec0,0x1ec0,0x45}, {0x1ec1,0x1ec1,0x65}, {0x1ec2,0x1ec2,0x45}, {0x1ec3,0x1ec3,0x65},
    {0x1ec4,0x1ec4,0x45}, {0x1ec5,0x1ec5,0x65}, {0x1ec6,0x1ec6,0x45}, {0x1ec7,0x1ec7,0x65}, {0x1ec8,0x1ec8,0x49},
    {0x1ec9,0x1ec9,0x69}, {0x1eca,0x1eca,0x49}, {0x1ecb,0x1ecb,0x69}, {0x1ecc,0x1ecc,0x4f}, {0x1ecd,0x1ecd,0x6f},
    {0x1ece,0x1ece,0x4f}, {0x1ecf,0x1ecf,0x6f}, {0x1ed0,0x1ed0,0x4f}, {0x1ed1,0x1ed1,0x6f}, {0x1ed2,0x1ed2,0x4f},
    {0x1ed3,0x1ed3,0x6f}, {0x1ed4,0x1ed4,0x4f}, {0x1ed5,0x1ed5,0x6f}, {0x1ed6,0x1ed6,0x4f}, {0x1ed7,0x1ed7,0x6f},
    {0x1ed8,0x1ed8,0x4f}, {0x1ed9,0x1ed9,0x6f}, {0x1eda,0x1eda,0x4f}, {0x1edb,0x1edb,0x6f}, {0x1edc,0x1edc,0x4f},
    {0x1edd,0x1edd,0x6f}, {0x1ede,0x1ede,0x4f}, {0x1edf,0x1edf,0x6f}, {0x1ee0,0x1ee0,0x4f}, {0x1ee1,0x1ee1,0x6f},
    {0x1ee2,0x1ee2,0x4f}, {0x1ee3,0x1ee3,0x6f}, {0x1ee4,0x1ee4,0x55}, {0x1ee5,0x1ee5,0x75}, {0x1ee6,0x1ee6,0x55},
    {0x1ee7,0x1ee7,0x75}, {0x1ee8,0x1ee8,0x55}, {0x1ee9,0x1ee9,0x75}, {0x1eea,0x1eea,0x55}, {0x1eeb,0x1eeb,0x75},
    {0x1eec,0x1eec,0x55}, {0x1eed,0x1eed,0x75}, {0x1eee,0x1eee,0x55}, {0x1eef,0x1eef,0x75}, {0x1ef0,0x1ef0,0x55},
    {0x1ef1,0x1ef1,0x75}, {0x1ef2,0x1ef2,0x59}, {0x1ef3,0x1ef3,0x79}, {0x1ef4,0x1ef4,0x59}, {0x1ef5,0x1ef5,0x79},
    {0x1ef6,0x1ef6,0x59}, {0x1ef7,0x1ef7,0x79}, {0x1ef8,0x1ef8,0x59}, {0x1ef9,0x1ef9,0x79}, {0x1f00,0x1f07,0x3b1},
    {0x1f08,0x1f0f,0x391}, {0x1f10,0x1f15,0x3b5}, {0x1f18,0x1f1d,0x395}, {0x1f20,0x1f27,0x3b7}, {0x1f28,0x1f2f,0x397},
    {0x1f30,0x1f37,0x3b9}, {0x1f38,0x1f3f,0x399}, {0x1f40,0x1f45,0x3bf}, {0x1f48,0x1f4d,0x39f}, {0x1f50,0x1f57,0x3c5},
    {0x1f59,0x1f59,0x3a5}, {0x1f5b,0x1f5b,0x3a5}, {0x1f5d,0x1f5d,0x3a5}, {0x1f5f,0x1f5f,0x3a5}, {0x1f60,0x1f67,0x3c9},
    {0x1f68,0x1f6f,0x3a9}, {0x1f70,0x1f71,0x3b1}, {0x1f72,0x1f73,0x3b5}, {0x1f74,0x1f75,0x3b7}, {0x1f76,0x1f77,0x3b9},
    {0x1f78,0x1f79,0x3bf}, {0x1f7a,0x1f7b,0x3c5}, {0x1f7c,0x1f7d,0x3c9}, {0x1f80,0x1f87,0x3b1}, {0x1f88,0x1f8f,0x391},
    {0x1f90,0x1f97,0x3b7}, {0x1f98,0x1f9f,0x397}, {0x1fa0,0x1fa7,0x3c9}, {0x1fa8,0x1faf,0x3a9}, {0x1fb0,0x1fb4,0x3b1},
    {0x1fb6,0x1fb7,0x3b1}, {0x1fb8,0x1fbc,0x391}, {0x1fbe,0x1fbe,0x3b9}, {0x1fc1,0x1fc1,0xa8}, {0x1fc2,0x1fc4,0x3b7},
    {0x1fc6,0x1fc7,0x3b7}, {0x1fc8,0x1fc9,0x395}, {0x1fca,0x1fcc,0x397}, {0x1fcd,0x1fcf,0x1fbf}, {0x1fd0,0x1fd3,0x3b9},
    {0x1fd6,0x1fd7,0x3b9}, {0x1fd8,0x1fdb,0x399}, {0x1fdd,0x1fdf,0x1ffe}, {0x1fe0,0x1fe3,0x3c5}, {0x1fe4,0x1fe5,0x3c1},
    {0x1fe6,0x1fe7,0x3c5}, {0x1fe8,0x1feb,0x3a5}, {0x1fec,0x1fec,0x3a1}, {0x1fed,0x1fee,0xa8}, {0x1fef,0x1fef,0x60},
    {0x1ff2,0x1ff4,0x3c9}, {0x1ff6,0x1ff7,0x3c9}, {0x1ff8,0x1ff9,0x39f}, {0x1ffa,0x1ffc,0x3a9}, {0x1ffd,0x1ffd,0xb4},
    {0x2000,0x2000,0x2002}, {0x2001,0x2001,0x2003}, {0x2126,0x2126,0x3a9}, {0x212a,0x212a,0x4b}, {0x212b,0x212b,0x41},
    {0x219a,0x219a,0x2190}, {0x219b,0x219b,0x2192}, {0x21ae,0x21ae,0x2194}, {0x21cd,0x21cd,0x21d0}, {0x21ce,0x21ce,0x21d4},
    {0x21cf,0x21cf,0x21d2}, {0x2204,0x2204,0x2203}, {0x2209,0x2209,0x2208}, {0x220c,0x220c,0x220b}, {0x2224,0x2224,0x2223},
    {0x2226,0x2226,0x2225}, {0x2241,0x2241,0x223c}, {0x2244,0x2244,0x2243}, {0x2247,0x2247,0x2245}, {0x2249,0x2249,0x2248},
    {0x2260,0x2260,0x3d}, {0x2262,0x2262,0x2261}, {0x226d,0x226d,0x224d}, {0x226e,0x226e,0x3c}, {0x226f,0x226f,0x3e},
    {0x2270,0x2270,0x2264}, {0x2271,0x2271,0x2265}, {0x2274,0x2274,0x2272}, {0x2275,0x2275,0x2273}, {0x2278,0x2278,0x2276},
    {0x2279,0x2279,0x2277}, {0x2280,0x2280,0x227a}, {0x2281,0x2281,0x227b}, {0x2284,0x2284,0x2282}, {0x2285,0x2285,0x2283},
    {0x2288,0x2288,0x2286}, {0x2289,0x2289,0x2287}, {0x22ac,0x22ac,0x22a2}, {0x22ad,0x22ad,0x22a8}, {0x22ae,0x22ae,0x22a9},
    {0x22af,0x22af,0x22ab}, {0x22e0,0x22e0,0x227c}, {0x22e1,0x22e1,0x227d}, {0x22e2,0x22e2,0x2291}, {0x22e3,0x22e3,0x2292},
    {0x22ea,0x22ea,0x22b2}, {0x22eb,0x22eb,0x22b3}, {0x22ec,0x22ec,0x22b4}, {0x22ed,0x22ed,0x22b5}, {0x2329,0x2329,0x3008},
    {0x232a,0x232a,0x3009}, {0x2adc,0x2adc,0x2add}, {0x304c,0x304c,0x304b}, {0x304e,0x304e,0x304d}, {0x3050,0x3050,0x304f},
    {0x3052,0x3052,0x3051}, {0x3054,0x3054,0x3053}, {0x3056,0x3056,0x3055}, {0x3058,0x3058,0x3057}, {0x305a,0x305a,0x3059},
    {0x305c,0x305c,0x305b}, {0x305e,0x305e,0x305d}, {0x3060,0x3060,0x305f}, {0x3062,0x3062,0x3061}, {0x3065,0x3065,0x3064},
    {0x3067,0x3067,0x3066}, {0x3069,0x3069,0x3068}, {0x3070,0x3071,0x306f}, {0x3073,0x3074,0x3072}, {0x3076,0x3077,0x3075},
    {0x3079,0x307a,0x3078}, {0x307c,0x307d,0x307b}, {0x3094,0x3094,0x3046}, {0x309e,0x309e,0x309d}, {0x30ac,0x30ac,0x30ab},
    {0x30ae,0x30ae,0x30ad}, {0x30b0,0x30b0,0x30af}, {0x30b2,0x30b2,0x30b1}, {0x30b4,0x30b4,0x30b3}, {0x30b6,0x30b6,0x30b5},
    {0x30b8,0x30b8,0x30b7}, {0x30ba,0x30ba,0x30b9}, {0x30bc,0x30bc,0x30bb}, {0x30be,0x30be,0x30bd}, {0x30c0,0x30c0,0x30bf},
    {0x30c2,0x30c2,0x30c1}, {0x30c5,0x30c5,0x30c4}, {0x30c7,0x30c7,0x30c6}, {0x30c9,0x30c9,0x30c8}, {0x30d0,0x30d1,0x30cf},
    {0x30d3,0x30d4,0x30d2}, {0x30d6,0x30d7,0x30d5}, {0x30d9,0x30da,0x30d8}, {0x30dc,0x30dd,0x30db}, {0x30f4,0x30f4,0x30a6},
    {0x30f7,0x30f7,0x30ef}, {0x30f8,0x30f8,0x30f0}, {0x30f9,0x30f9,0x30f1}, {0x30fa,0x30fa,0x30f2}, {0x30fe,0x30fe,0x30fd},
    {0xac00,0xae4b,0x1100}, {0xae4c,0xb097,0x1101}, {0xb098,0xb2e3,0x1102}, {0xb2e4,0xb52f,0x1103}, {0xb530,0xb77b,0x1104},
    {0xb77c,0xb9c7,0x1105}, {0xb9c8,0xbc13,0x1106}, {0xbc14,0xbe5f,0x1107}, {0xbe60,0xc0ab,0x1108}, {0xc0ac,0xc2f7,0x1109},
    {0xc2f8,0xc543,0x110a}, {0xc544,0xc78f,0x110b}, {0xc790,0xc9db,0x110c}, {0xc9dc,0xcc27,0x110d}, {0xcc28,0xce73,0x110e},
    {0xce74,0xd0bf,0x110f}, {0xd0c0,0xd30b,0x1110}, {0xd30c,0xd557,0x1111}, {0xd558,0xd7a3,0x1112}, {0xf900,0xf900,0x8c48},
    {0xf901,0xf901,0x66f4}, {0xf902,0xf902,0x8eca}, {0xf903,0xf903,0x8cc8}, {0xf904,0xf904,0x6ed1}, {0xf905,0xf905,0x4e32},
    {0xf906,0xf906,0x53e5}, {0xf907,0xf908,0x9f9c}, {0xf909,0xf909,0x5951}, {0xf90a,0xf90a,0x91d1}, {0xf90b,0xf90b,0x5587},
    {0xf90c,0xf90c,0x5948}, {0xf90d,0xf90d,0x61f6}, {0xf90e,0xf90e,0x7669}, {0xf90f,0xf90f,0x7f85}, {0xf910,0xf910,0x863f},
    {0xf911,0xf911,0x87ba}, {0xf912,0xf912,0x88f8}, {0xf913,0xf913,0x908f}, {0xf914,0xf914,0x6a02}, {0xf915,0xf915,0x6d1b},
    {0xf916,0xf916,0x70d9}, {0xf917,0xf917,0x73de}, {0xf918,0xf918,0x843d}, {0xf919,0xf919,0x916a}, {0xf91a,0xf91a,0x99f1},
    {0xf91b,0xf91b,0x4e82}, {0xf91c,0xf91c,0x5375}, {0xf91d,0xf91d,0x6b04}, {0xf91e,0xf91e,0x721b}, {0xf91f,0xf91f,0x862d},
    {0xf920,0xf920,0x9e1e}, {0xf921,0xf921,0x5d50}, {0xf922,0xf922,0x6feb}, {0xf923,0xf923,0x85cd}, {0xf924,0xf924,0x8964},
    {0xf925,0xf925,0x62c9}, {0xf926,0xf926,0x81d8}, {0xf927,0xf927,0x881f}, {0xf928,0xf928,0x5eca}, {0xf929,0xf929,0x6717},
    {0xf92a,0xf92a,0x6d6a}, {0xf92b,0xf92b,0x72fc}, {0xf92c,0xf92c,0x90ce}, {0xf92d,0xf92d,0x4f86}, {0xf92e,0xf92e,0x51b7},
    {0xf92f,0xf92f,0x52de}, {0xf930,0xf930,0x64c4}, {0xf931,0xf931,0x6ad3}, {0xf932,0xf932,0x7210}, {0xf933,0xf933,0x76e7},
    {0xf934,0xf934,0x8001}, {0xf935,0xf935,0x8606}, {0xf936,0xf936,0x865c}, {0xf937,0xf937,0x8def}, {0xf938,0xf938,0x9732},
    {0xf939,0xf939,0x9b6f}, {0xf93a,0xf93a,0x9dfa}, {0xf93b,0xf93b,0x788c}, {0xf93c,0xf93c,0x797f}, {0xf93d,0xf93d,0x7da0},
    {0xf93e,0xf93e,0x83c9}, {0xf93f,0xf93f,0x9304}, {0xf940,0xf940,0x9e7f}, {0xf941,0xf941,0x8ad6}, {0xf942,0xf942,0x58df},
    {0xf943,0xf943,0x5f04}, {0xf944,0xf944,0x7c60}, {0xf945,0xf945,0x807e}, {0xf946,0xf946,0x7262}, {0xf947,0xf947,0x78ca},
    {0xf948,0xf948,0x8cc2}, {0xf949,0xf949,0x96f7}, {0xf94a,0xf94a,0x58d8}, {0xf94b,0xf94b,0x5c62}, {0xf94c,0xf94c,0x6a13},
    {0xf94d,0xf94d,0x6dda}, {0xf94e,0xf94e,0x6f0f}, {0xf94f,0xf94f,0x7d2f}, {0xf950,0xf950,0x7e37}, {0xf951,0xf951,0x964b},
    {0xf952,0xf952,0x52d2}, {0xf953,0xf953,0x808b}, {0xf954,0xf954,0x51dc}, {0xf955,0xf955,0x51cc}, {0xf956,0xf956,0x7a1c},
    {0xf957,0xf957,0x7dbe}, {0xf958,0xf958,0x83f1}, {0xf959,0xf959,0x9675}, {0xf95a,0xf95a,0x8b80}, {0xf95b,0xf95b,0x62cf},
    {0xf95c,0xf95c,0x6a02}, {0xf95d,0xf95d,0x8afe}, {0xf95e,0xf95e,0x4e39}, {0xf95f,0xf95f,0x5be7}, {0xf960,0xf960,0x6012},
    {0xf961,0xf961,0x7387}, {0xf962,0xf962,0x7570}, {0xf963,0xf963,0x5317}, {0xf964,0xf964,0x78fb}, {0xf965,0xf965,0x4fbf},
    {0xf966,0xf966,0x5fa9}, {0xf967,0xf967,0x4e0d}, {0xf968,0xf968,0x6ccc}, {0xf969,0xf969,0x6578}, {0xf96a,0xf96a,0x7d22},
    {0xf96b,0xf96b,0x53c3}, {0xf96c,0xf96c,0x585e}, {0xf96d,0xf96d,0x7701}, {0xf96e,0xf96e,0x8449}, {0xf96f,0xf96f,0x8aaa},
    {0xf970,0xf970,0x6bba}, {0xf971,0xf971,0x8fb0}, {0xf972,0xf972,0x6c88}, {0xf973,0xf973,0x62fe}, {0xf974,0xf974,0x82e5},
    {0xf975,0xf975,0x63a0}, {0xf976,0xf976,0x7565}, {0xf977,0xf977,0x4eae}, {0xf978,0xf978,0x5169}, {0xf979,0xf979,0x51c9},
    {0xf97a,0xf97a,0x6881}, {0xf97b,0xf97b,0x7ce7}, {0xf97c,0xf97c,0x826f}, {0xf97d,0xf97d,0x8ad2}, {0xf97e,0xf97e,0x91cf},
    {0xf97f,0xf97f,0x52f5}, {0xf980,0xf980,0x5442}, {0xf981,0xf981,0x5973}, {0xf982,0xf982,0x5eec}, {0xf983,0xf983,0x65c5},
    {0xf984,0xf984,0x6ffe}, {0xf985,0xf985,0x792a}, {0xf986,0xf986,0x95ad}, {0xf987,0xf987,0x9a6a}, {0xf988,0xf988,0x9e97},
    {0xf989,0xf989,0x9ece}, {0xf98a,0xf98a,0x529b}, {0xf98b,0xf98b,0x66c6}, {0xf98c,0xf98c,0x6b77}, {0xf98d,0xf98d,0x8f62},
    {0xf98e,0xf98e,0x5e74}, {0xf98f,0xf98f,0x6190}, {0xf990,0xf990,0x6200}, {0xf991,0xf991,0x649a}, {0xf992,0xf992,0x6f23},
    {0xf993,0xf993,0x7149}, {0xf994,0xf994,0x7489}, {0xf995,0xf995,0x79ca}, {0xf996,0xf996,0x7df4}, {0xf997,0xf997,0x806f},
    {0xf998,0xf998,0x8f26}, {0xf999,0xf999,0x84ee}, {0xf99a,0xf99a,0x9023}, {0xf99b,0xf99b,0x934a}, {0xf99c,0xf99c,0x5217},
    {0xf99d,0xf99d,0x52a3}, {0xf99e,0xf99e,0x54bd}, {0xf99f,0xf99f,0x70c8}, {0xf9a0,0xf9a0,0x88c2}, {0xf9a1,0xf9a1,0x8aaa},
    {0xf9a2,0xf9a2,0x5ec9}, {0xf9a3,0xf9a3,0x5ff5}, {0xf9a4,0xf9a4,0x637b}, {0xf9a5,0xf9a5,0x6bae}, {0xf9a6,0xf9a6,0x7c3e},
    {0xf9a7,0xf9a7,0x7375}, {0xf9a8,0xf9a8,0x4ee4}, {0xf9a9,0xf9a9,0x56f9}, {0xf9aa,0xf9aa,0x5be7}, {0xf9ab,0xf9ab,0x5dba},
    {0xf9ac,0xf9ac,0x601c}, {0xf9ad,0xf9ad,0x73b2}, {0xf9ae,0xf9ae,0x7469}, {0xf9af,0xf9af,0x7f9a}, {0xf9b0,0xf9b0,0x8046},
    {0xf9b1,0xf9b1,0x9234}, {0xf9b2,0xf9b2,0x96f6}, {0xf9b3,0xf9b3,0x9748}, {0xf9b4,0xf9b4,0x9818}, {0xf9b5,0xf9b5,0x4f8b},
    {0xf9b6,0xf9b6,0x79ae}, {0xf9b7,0xf9b7,0x91b4}, {0xf9b8,0xf9b8,0x96b8}, {0xf9b9,0xf9b9,0x60e1}, {0xf9ba,0xf9ba,0x4e86},
    {0xf9bb,0xf9bb,0x50da}, {0xf9bc,0xf9bc,0x5bee}, {0xf9bd,0xf9bd,0x5c3f}, {0xf9be,0xf9be,0x6599}, {0xf9bf,0xf9bf,0x6a02},
    {0xf9c0,0xf9c0,0x71ce}, {0xf9c1,0xf9c1,0x7642}, {0xf9c2,0xf9c2,0x84fc}, {0xf9c3,0xf9c3,0x907c}, {0xf9c4,0xf9c4,0x9f8d},
    {0xf9c5,0xf9c5,0x6688}, {0xf9c6,0xf9c6,0x962e}, {0xf9c7,0xf9c7,0x5289}, {0xf9c8,0xf9c8,0x677b}, {0xf9c9,0xf9c9,0x67f3},
    {0xf9ca,0xf9ca,0x6d41}, {0xf9cb,0xf9cb,0x6e9c}, {0xf9cc,0xf9cc,0x7409}, {0xf9cd,0xf9cd,0x7559}, {0xf9ce,0xf9ce,0x786b},
    {0xf9cf,0xf9cf,0x7d10}, {0xf9d0,0xf9d0,0x985e}, {0xf9d1,0xf9d1,0x516d}, {0xf9d2,0xf9d2,0x622e}, {0xf9d3,0xf9d3,0x9678},
    {0xf9d4,0xf9d4,0x502b}, {0xf9d5,0xf9d5,0x5d19}, {0xf9d6,0xf9d6,0x6dea}, {0xf9d7,0xf9d7,0x8f2a}, {0xf9d8,0xf9d8,0x5f8b},
    {0xf9d9,0xf9d9,0x6144}, {0xf9da,0xf9da,0x6817}, {0xf9db,0xf9db,0x7387}, {0xf9dc,0xf9dc,0x9686}, {0xf9dd,0xf9dd,0x5229},
    {0xf9de,0xf9de,0x540f}, {0xf9df,0xf9df,0x5c65}, {0xf9e0,0xf9e0,0x6613}, {0xf9e1,0xf9e1,0x674e}, {0xf9e2,0xf9e2,0x68a8},
    {0xf9e3,0xf9e3,0x6ce5}, {0xf9e4,0xf9e4,0x7406}, {0xf9e5,0xf9e5,0x75e2}, {0xf9e6,0xf9e6,0x7f79}, {0xf9e7,0xf9e7,0x88cf},
    {0xf9e8,0xf9e8,0x88e1}, {0xf9e9,0xf9e9,0x91cc}, {0xf9ea,0xf9ea,0x96e2}, {0xf9eb,0xf9eb,0x533f}, {0xf9ec,0xf9ec,0x6eba},
    {0xf9ed,0xf9ed,0x541d}, {0xf9ee,0xf9ee,0x71d0}, {0xf9ef,0xf9ef,0x7498}, {0xf9f0,0xf9f0,0x85fa}, {0xf9f1,0xf9f1,0x96a3},
    {0xf9f2,0xf9f2,0x9c57}, {0xf9f3,0xf9f3,0x9e9f}, {0xf9f4,0xf9f4,0x6797}, {0xf9f5,0xf9f5,0x6dcb}, {0xf9f6,0xf9f6,0x81e8},
    {0xf9f7,0xf9f7,0x7acb}, {0xf9f8,0xf9f8,0x7b20}, {0xf9f9,0xf9f9,0x7c92}, {0xf9fa,0xf9fa,0x72c0}, {0xf9fb,0xf9fb,0x7099},
    {0xf9fc,0xf9fc,0x8b58}, {0xf9fd,0xf9fd,0x4ec0}, {0xf9fe,0xf9fe,0x8336}, {0xf9ff,0xf9ff,0x523a}, {0xfa00,0xfa00,0x5207},
    {0xfa01,0xfa01,0x5ea6}, {0xfa02,0xfa02,0x62d3}, {0xfa03,0xfa03,0x7cd6}, {0xfa04,0xfa04,0x5b85}, {0xfa05,0xfa05,0x6d1e},
    {0xfa06,0xfa06,0x66b4}, {0xfa07,0xfa07,0x8f3b}, {0xfa08,0xfa08,0x884c}, {0xfa09,0xfa09,0x964d}, {0xfa0a,0xfa0a,0x898b},
    {0xfa0b,0xfa0b,0x5ed3}, {0xfa0c,0xfa0c,0x5140}, {0xfa0d,0xfa0d,0x55c0}, {0xfa10,0xfa10,0x585a}, {0xfa12,0xfa12,0x6674},
    {0xfa15,0xfa15,0x51de}, {0xfa16,0xfa16,0x732a}, {0xfa17,0xfa17,0x76ca}, {0xfa18,0xfa18,0x793c}, {0xfa19,0xfa19,0x795e},
    {0xfa1a,0xfa1a,0x7965}, {0xfa1b,0xfa1b,0x798f}, {0xfa1c,0xfa1c,0x9756}, {0xfa1d,0xfa1d,0x7cbe}, {0xfa1e,0xfa1e,0x7fbd},
    {0xfa20,0xfa20,0x8612}, {0xfa22,0xfa22,0x8af8}, {0xfa25,0xfa25,0x9038}, {0xfa26,0xfa26,0x90fd}, {0xfa2a,0xfa2a,0x98ef},
    {0xfa2b,0xfa2b,0x98fc}, {0xfa2c,0xfa2c,0x9928}, {0xfa2d,0xfa2d,0x9db4}, {0xfa2e,0xfa2e,0x90de}, {0xfa2f,0xfa2f,0x96b7},
    {0xfa30,0xfa30,0x4fae}, {0xfa31,0xfa31,0x50e7}, {0xfa32,0xfa32,0x514d}, {0xfa33,0xfa33,0x52c9}, {0xfa34,0xfa34,0x52e4},
    {0xfa35,0xfa35,0x5351}, {0xfa36,0xfa36,0x559d}, {0xfa37,0xfa37,0x5606}, {0xfa38,0xfa38,0x5668}, {0xfa39,0xfa39,0x5840},
    {0xfa3a,0xfa3a,0x58a8}, {0xfa3b,0xfa3b,0x5c64}, {0xfa3c,0xfa3c,0x5c6e}, {0xfa3d,0xfa3d,0x6094}, {0xfa3e,0xfa3e,0x6168},
    {0xfa3f,0xfa3f,0x618e}, {0xfa40,0xfa40,0x61f2}, {0xfa41,0xfa41,0x654f}, {0xfa42,0xfa42,0x65e2}, {0xfa43,0xfa43,0x6691},
    {0xfa44,0xfa44,0x6885}, {0xfa45,0xfa45,0x6d77}, {0xfa46,0xfa46,0x6e1a}, {0xfa47,0xfa47,0x6f22}, {0xfa48,0xfa48,0x716e},
    {0xfa49,0xfa49,0x722b}, {0xfa4a,0xfa4a,0x7422}, {0xfa4b,0xfa4b,0x7891}, {0xfa4c,0xfa4c,0x793e}, {0xfa4d,0xfa4d,0x7949},
    {0xfa4e,0xfa4e,0x7948}, {0xfa4f,0xfa4f,0x7950}, {0xfa50,0xfa50,0x7956}, {0xfa51,0xfa51,0x795d}, {0xfa52,0xfa52,0x798d},
    {0xfa53,0xfa53,0x798e}, {0xfa54,0xfa54,0x7a40}, {0xfa55,0xfa55,0x7a81}, {0xfa56,0xfa56,0x7bc0}, {0xfa57,0xfa57,0x7df4},
    {0xfa58,0xfa58,0x7e09}, {0xfa59,0xfa59,0x7e41}, {0xfa5a,0xfa5a,0x7f72}, {0xfa5b,0xfa5b,0x8005}, {0xfa5c,0xfa5c,0x81ed},
    {0xfa5d,0xfa5e,0x8279}, {0xfa5f,0xfa5f,0x8457}, {0xfa60,0xfa60,0x8910}, {0xfa61,0xfa61,0x8996}, {0xfa62,0xfa62,0x8b01},
    {0xfa63,0xfa63,0x8b39}, {0xfa64,0xfa64,0x8cd3}, {0xfa65,0xfa65,0x8d08}, {0xfa66,0xfa66,0x8fb6}, {0xfa67,0xfa67,0x9038},
    {0xfa68,0xfa68,0x96e3}, {0xfa69,0xfa69,0x97ff}, {0xfa6a,0xfa6a,0x983b}, {0xfa6b,0xfa6b,0x6075}, {0xfa6c,0xfa6c,0x242ee},
    {0xfa6d,0xfa6d,0x8218}, {0xfa70,0xfa70,0x4e26}, {0xfa71,0xfa71,0x51b5}, {0xfa72,0xfa72,0x5168}, {0xfa73,0xfa73,0x4f80},
    {0xfa74,0xfa74,0x5145}, {0xfa75,0xfa75,0x5180}, {0xfa76,0xfa76,0x52c7}, {0xfa77,0xfa77,0x52fa}, {0xfa78,0xfa78,0x559d},
    {0xfa79,0xfa79,0x5555}, {0xfa7a,0xfa7a,0x5599}, {0xfa7b,0xfa7b,0x55e2}, {0xfa7c,0xfa7c,0x585a}, {0xfa7d,0xfa7d,0x58b3},
    {0xfa7e,0xfa7e,0x5944}, {0xfa7f,0xfa7f,0x5954}, {0xfa80,0xfa80,0x5a62}, {0xfa81,0xfa81,0x5b28}, {0xfa82,0xfa82,0x5ed2},
    {0xfa83,0xfa83,0x5ed9}, {0xfa84,0xfa84,0x5f69}, {0xfa85,0xfa85,0x5fad}, {0xfa86,0xfa86,0x60d8}, {0xfa87,0xfa87,0x614e},
    {0xfa88,0xfa88,0x6108}, {0xfa89,0xfa89,0x618e}, {0xfa8a,0xfa8a,0x6160}, {0xfa8b,0xfa8b,0x61f2}, {0xfa8c,0xfa8c,0x6234},
    {0xfa8d,0xfa8d,0x63c4}, {0xfa8e,0xfa8e,0x641c}, {0xfa8f,0xfa8f,0x6452}, {0xfa90,0xfa90,0x6556}, {0xfa91,0xfa91,0x6674},
    {0xfa92,0xfa92,0x6717}, {0xfa93,0xfa93,0x671b}, {0xfa94,0xfa94,0x6756}, {0xfa95,0xfa95,0x6b79}, {0xfa96,0xfa96,0x6bba},
    {0xfa97,0xfa97,0x6d41}, {0xfa98,0xfa98,0x6edb}, {0xfa99,0xfa99,0x6ecb}, {0xfa9a,0xfa9a,0x6f22}, {0xfa9b,0xfa9b,0x701e},
    {0xfa9c,0xfa9c,0x716e}, {0xfa9d,0xfa9d,0x77a7}, {0xfa9e,0xfa9e,0x7235}, {0xfa9f,0xfa9f,0x72af}, {0xfaa0,0xfaa0,0x732a},
    {0xfaa1,0xfaa1,0x7471}, {0xfaa2,0xfaa2,0x7506}, {0xfaa3,0xfaa3,0x753b}, {0xfaa4,0xfaa4,0x761d}, {0xfaa5,0xfaa5,0x761f},
    {0xfaa6,0xfaa6,0x76ca}, {0xfaa7,0xfaa7,0x76db}, {0xfaa8,0xfaa8,0x76f4}, {0xfaa9,0xfaa9,0x774a}, {0xfaaa,0xfaaa,0x7740},
    {0xfaab,0xfaab,0x78cc}, {0xfaac,0xfaac,0x7ab1}, {0xfaad,0xfaad,0x7bc0}, {0xfaae,0xfaae,0x7c7b}, {0xfaaf,0xfaaf,0x7d5b},
    {0xfab0,0xfab0,0x7df4}, {0xfab1,0xfab1,0x7f3e}, {0xfab2,0xfab2,0x8005}, {0xfab3,0xfab3,0x8352}, {0xfab4,0xfab4,0x83ef},
    {0xfab5,0xfab5,0x8779}, {0xfab6,0xfab6,0x8941}, {0xfab7,0xfab7,0x8986}, {0xfab8,0xfab8,0x8996}, {0xfab9,0xfab9,0x8abf},
    {0xfaba,0xfaba,0x8af8}, {0xfabb,0xfabb,0x8acb}, {0xfabc,0xfabc,0x8b01}, {0xfabd,0xfabd,0x8afe}, {0xfabe,0xfabe,0x8aed},
    {0xfabf,0xfabf,0x8b39}, {0xfac0,0xfac0,0x8b8a}, {0xfac1,0xfac1,0x8d08}, {0xfac2,0xfac2,0x8f38}, {0xfac3,0xfac3,0x9072},
    {0xfac4,0xfac4,0x9199}, {0xfac5,0xfac5,0x9276}, {0xfac6,0xfac6,0x967c}, {0xfac7,0xfac7,0x96e3}, {0xfac8,0xfac8,0x9756},
    {0xfac9,0xfac9,0x97db}, {0xfaca,0xfaca,0x97ff}, {0xfacb,0xfacb,0x980b}, {0xfacc,0xfacc,0x983b}, {0xfacd,0xfacd,0x9b12},
    {0xface,0xface,0x9f9c}, {0xfacf,0xfacf,0x2284a}, {0xfad0,0xfad0,0x22844}, {0xfad1,0xfad1,0x233d5}, {0xfad2,0xfad2,0x3b9d},
    {0xfad3,0xfad3,0x4018}, {0xfad4,0xfad4,0x4039}, {0xfad5,0xfad5,0x25249}, {0xfad6,0xfad6,0x25cd0}, {0xfad7,0xfad7,0x27ed3},
    {0xfad8,0xfad8,0x9f43}, {0xfad9,0xfad9,0x9f8e}, {0xfb1d,0xfb1d,0x5d9}, {0xfb1f,0xfb1f,0x5f2}, {0xfb2a,0xfb2d,0x5e9},
    {0xfb2e,0xfb30,0x5d0}, {0xfb31,0xfb31,0x5d1}, {0xfb32,0xfb32,0x5d2}, {0xfb33,0xfb33,0x5d3}, {0xfb34,0xfb34,0x5d4},
    {0xfb35,0xfb35,0x5d5}, {0xfb36,0xfb36,0x5d6}, {0xfb38,0xfb38,0x5d8}, {0xfb39,0xfb39,0x5d9}, {0xfb3a,0xfb3a,0x5da},
    {0xfb3b,0xfb3b,0x5db}, {0xfb3c,0xfb3c,0x5dc}, {0xfb3e,0xfb3e,0x5de}, {0xfb40,0xfb40,0x5e0}, {0xfb41,0xfb41,0x5e1},
    {0xfb43,0xfb43,0x5e3}, {0xfb44,0xfb44,0x5e4}, {0xfb46,0xfb46,0x5e6}, {0xfb47,0xfb47,0x5e7}, {0xfb48,0xfb48,0x5e8},
    {0xfb49,0xfb49,0x5e9}, {0xfb4a,0xfb4a,0x5ea}, {0xfb4b,0xfb4b,0x5d5}, {0xfb4c,0xfb4c,0x5d1}, {0xfb4d,0xfb4d,0x5db},
    {0xfb4e,0xfb4e,0x5e4}, {0x1109a,0x1109a,0x11099}, {0x1109c,0x1109c,0x1109b}, {0x110ab,0x110ab,0x110a5}, {0x1112e,0x1112e,0x11131},
    {0x1112f,0x1112f,0x11132}, {0x1134b,0x1134c,0x11347}, {0x114bb,0x114bc,0x114b9}, {0x114be,0x114be,0x114b9}, {0x115ba,0x115ba,0x115b8},
    {0x115bb,0x115bb,0x115b9}, {0x11938,0x11938,0x11935}, {0x1d15e,0x1d15e,0x1d157}, {0x1d15f,0x1d164,0x1d158}, {0x1d1bb,0x1d1bb,0x1d1b9},
    {0x1d1bc,0x1d1bc,0x1d1ba}, {0x1d1bd,0x1d1bd,0x1d1b9}, {0x1d1be,0x1d1be,0x1d1ba}, {0x1d1bf,0x1d1bf,0x1d1b9}, {0x1d1c0,0x1d1c0,0x1d1ba},
    {0x2f800,0x2f800,0x4e3d}, {0x2f801,0x2f801,0x4e38}, {0x2f802,0x2f802,0x4e41}, {0x2f803,0x2f803,0x20122}, {0x2f804,0x2f804,0x4f60},
    {0x2f805,0x2f805,0x4fae}, {0x2f806,0x2f806,0x4fbb}, {0x2f807,0x2f807,0x5002}, {0x2f808,0x2f808,0x507a}, {0x2f809,0x2f809,0x5099},
    {0x2f80a,0x2f80a,0x50e7}, {0x2f80b,0x2f80b,0x50cf}, {0x2f80c,0x2f80c,0x349e}, {0x2f80d,0x2f80d,0x2063a}, {0x2f80e,0x2f80e,0x514d},
    {0x2f80f,0x2f80f,0x5154}, {0x2f810,0x2f810,0x5164}, {0x2f811,0x2f811,0x5177}, {0x2f812,0x2f812,0x2051c}, {0x2f813,0x2f813,0x34b9},
    {0x2f814,0x2f814,0x5167}, {0x2f815,0x2f815,0x518d}, {0x2f816,0x2f816,0x2054b}, {0x2f817,0x2f817,0x5197}, {0x2f818,0x2f818,0x51a4},
    {0x2f819,0x2f819,0x4ecc}, {0x2f81a,0x2f81a,0x51ac}, {0x2f81b,0x2f81b,0x51b5}, {0x2f81c,0x2f81c,0x291df}, {0x2f81d,0x2f81d,0x51f5},
    {0x2f81e,0x2f81e,0x5203}, {0x2f81f,0x2f81f,0x34df}, {0x2f820,0x2f820,0x523b}, {0x2f821,0x2f821,0x5246}, {0x2f822,0x2f822,0x5272},
    {0x2f823,0x2f823,0x5277}, {0x2f824,0x2f824,0x3515}, {0x2f825,0x2f825,0x52c7}, {0x2f826,0x2f826,0x52c9}, {0x2f827,0x2f827,0x52e4},
    {0x2f828,0x2f828,0x52fa}, {0x2f829,0x2f829,0x5305}, {0x2f82a,0x2f82a,0x5306}, {0x2f82b,0x2f82b,0x5317}, {0x2f82c,0x2f82c,0x5349},
    {0x2f82d,0x2f82d,0x5351}, {0x2f82e,0x2f82e,0x535a}, {0x2f82f,0x2f82f,0x5373}, {0x2f830,0x2f830,0x537d}, {0x2f831,0x2f833,0x537f},
    {0x2f834,0x2f834,0x20a2c}, {0x2f835,0x2f835,0x7070}, {0x2f836,0x2f836,0x53ca}, {0x2f837,0x2f837,0x53df}, {0x2f838,0x2f838,0x20b63},
    {0x2f839,0x2f839,0x53eb}, {0x2f83a,0x2f83a,0x53f1}, {0x2f83b,0x2f83b,0x5406}, {0x2f83c,0x2f83c,0x549e}, {0x2f83d,0x2f83d,0x5438},
    {0x2f83e,0x2f83e,0x5448}, {0x2f83f,0x2f83f,0x5468}, {0x2f840,0x2f840,0x54a2}, {0x2f841,0x2f841,0x54f6}, {0x2f842,0x2f842,0x5510},
    {0x2f843,0x2f843,0x5553}, {0x2f844,0x2f844,0x5563}, {0x2f845,0x2f846,0x5584}, {0x2f847,0x2f847,0x5599}, {0x2f848,0x2f848,0x55ab},
    {0x2f849,0x2f849,0x55b3}, {0x2f84a,0x2f84a,0x55c2}, {0x2f84b,0x2f84b,0x5716}, {0x2f84c,0x2f84c,0x5606}, {0x2f84d,0x2f84d,0x5717},
    {0x2f84e,0x2f84e,0x5651}, {0x2f84f,0x2f84f,0x5674}, {0x2f850,0x2f850,0x5207}, {0x2f851,0x2f851,0x58ee}, {0x2f852,0x2f852,0x57ce},
    {0x2f853,0x2f853,0x57f4}, {0x2f854,0x2f854,0x580d}, {0x2f855,0x2f855,0x578b}, {0x2f856,0x2f856,0x5832}, {0x2f857,0x2f857,0x5831},
    {0x2f858,0x2f858,0x58ac}, {0x2f859,0x2f859,0x214e4}, {0x2f85a,0x2f85a,0x58f2}, {0x2f85b,0x2f85b,0x58f7}, {0x2f85c,0x2f85c,0x5906},
    {0x2f85d,0x2f85d,0x591a}, {0x2f85e,0x2f85e,0x5922}, {0x2f85f,0x2f85f,0x5962}, {0x2f860,0x2f860,0x216a8}, {0x2f861,0x2f861,0x216ea},
    {0x2f862,0x2f862,0x59ec}, {0x2f863,0x2f863,0x5a1b}, {0x2f864,0x2f864,0x5a27}, {0x2f865,0x2f865,0x59d8}, {0x2f866,0x2f866,0x5a66},
    {0x2f867,0x2f867,0x36ee}, {0x2f868,0x2f868,0x36fc}, {0x2f869,0x2f869,0x5b08}, {0x2f86a,0x2f86b,0x5b3e}, {0x2f86c,0x2f86c,0x219c8},
    {0x2f86d,0x2f86d,0x5bc3}, {0x2f86e,0x2f86e,0x5bd8}, {0x2f86f,0x2f86f,0x5be7}, {0x2f870,0x2f870,0x5bf3}, {0x2f871,0x2f871,0x21b18},
    {0x2f872,0x2f872,0x5bff}, {0x2f873,0x2f873,0x5c06}, {0x2f874,0x2f874,0x5f53}, {0x2f875,0x2f875,0x5c22}, {0x2f876,0x2f876,0x3781},
    {0x2f877,0x2f877,0x5c60}, {0x2f878,0x2f878,0x5c6e}, {0x2f879,0x2f879,0x5cc0}, {0x2f87a,0x2f87a,0x5c8d}, {0x2f87b,0x2f87b,0x21de4},
    {0x2f87c,0x2f87c,0x5d43}, {0x2f87d,0x2f87d,0x21de6}, {0x2f87e,0x2f87e,0x5d6e}, {0x2f87f,0x2f87f,0x5d6b}, {0x2f880,0x2f880,0x5d7c},
    {0x2f881,0x2f881,0x5de1}, {0x2f882,0x2f882,0x5de2}, {0x2f883,0x2f883,0x382f}, {0x2f884,0x2f884,0x5dfd}, {0x2f885,0x2f885,0x5e28},
    {0x2f886,0x2f886,0x5e3d}, {0x2f887,0x2f887,0x5e69}, {0x2f888,0x2f888,0x3862}, {0x2f889,0x2f889,0x22183}, {0x2f88a,0x2f88a,0x387c},
    {0x2f88b,0x2f88b,0x5eb0}, {0x2f88c,0x2f88c,0x5eb3}, {0x2f88d,0x2f88d,0x5eb6}, {0x2f88e,0x2f88e,0x5eca}, {0x2f88f,0x2f88f,0x2a392},
    {0x2f890,0x2f890,0x5efe}, {0x2f891,0x2f892,0x22331}, {0x2f893,0x2f893,0x8201}, {0x2f894,0x2f895,0x5f22}, {0x2f896,0x2f896,0x38c7},
    {0x2f897,0x2f897,0x232b8}, {0x2f898,0x2f898,0x261da}, {0x2f899,0x2f899,0x5f62}, {0x2f89a,0x2f89a,0x5f6b}, {0x2f89b,0x2f89b,0x38e3},
    {0x2f89c,0x2f89c,0x5f9a}, {0x2f89d,0x2f89d,0x5fcd}, {0x2f89e,0x2f89e,0x5fd7}, {0x2f89f,0x2f89f,0x5ff9}, {0x2f8a0,0x2f8a0,0x6081},
    {0x2f8a1,0x2f8a1,0x393a}, {0x2f8a2,0x2f8a2,0x391c}, {0x2f8a3,0x2f8a3,0x6094}, {0x2f8a4,0x2f8a4,0x226d4}, {0x2f8a5,0x2f8a5,0x60c7},
    {0x2f8a6,0x2f8a6,0x6148}, {0x2f8a7,0x2f8a7,0x614c}, {0x2f8a8,0x2f8a8,0x614e}, {0x2f8a9,0x2f8a9,0x614c}, {0x2f8aa,0x2f8aa,0x617a},
    {0x2f8ab,0x2f8ab,0x618e}, {0x2f8ac,0x2f8ac,0x61b2}, {0x2f8ad,0x2f8ad,0x61a4}, {0x2f8ae,0x2f8ae,0x61af}, {0x2f8af,0x2f8af,0x61de},
    {0x2f8b0,0x2f8b0,0x61f2}, {0x2f8b1,0x2f8b1,0x61f6}, {0x2f8b2,0x2f8b2,0x6210}, {0x2f8b3,0x2f8b3,0x621b}, {0x2f8b4,0x2f8b4,0x625d},
    {0x2f8b5,0x2f8b5,0x62b1}, {0x2f8b6,0x2f8b6,0x62d4}, {0x2f8b7,0x2f8b7,0x6350}, {0x2f8b8,0x2f8b8,0x22b0c}, {0x2f8b9,0x2f8b9,0x633d},
    {0x2f8ba,0x2f8ba,0x62fc}, {0x2f8bb,0x2f8bb,0x6368}, {0x2f8bc,0x2f8bc,0x6383}, {0x2f8bd,0x2f8bd,0x63e4}, {0x2f8be,0x2f8be,0x22bf1},
    {0x2f8bf,0x2f8bf,0x6422}, {0x2f8c0,0x2f8c0,0x63c5}, {0x2f8c1,0x2f8c1,0x63a9}, {0x2f8c2,0x2f8c2,0x3a2e}, {0x2f8c3,0x2f8c3,0x6469},
    {0x2f8c4,0x2f8c4,0x647e}, {0x2f8c5,0x2f8c5,0x649d}, {0x2f8c6,0x2f8c6,0x6477}, {0x2f8c7,0x2f8c7,0x3a6c}, {0x2f8c8,0x2f8c8,0x654f},
    {0x2f8c9,0x2f8c9,0x656c}, {0x2f8ca,0x2f8ca,0x2300a}, {0x2f8cb,0x2f8cb,0x65e3}, {0x2f8cc,0x2f8cc,0x66f8}, {0x2f8cd,0x2f8cd,0x6649},
    {0x2f8ce,0x2f8ce,0x3b19}, {0x2f8cf,0x2f8cf,0x6691}, {0x2f8d0,0x2f8d0,0x3b08}, {0x2f8d1,0x2f8d1,0x3ae4}, {0x2f8d2,0x2f8d2,0x5192},
    {0x2f8d3,0x2f8d3,0x5195}, {0x2f8d4,0x2f8d4,0x6700}, {0x2f8d5,0x2f8d5,0x669c}, {0x2f8d6,0x2f8d6,0x80ad}, {0x2f8d7,0x2f8d7,0x43d9},
    {0x2f8d8,0x2f8d8,0x6717}, {0x2f8d9,0x2f8d9,0x671b}, {0x2f8da,0x2f8da,0x6721}, {0x2f8db,0x2f8db,0x675e}, {0x2f8dc,0x2f8dc,0x6753},
    {0x2f8dd,0x2f8dd,0x233c3}, {0x2f8de,0x2f8de,0x3b49}, {0x2f8df,0x2f8df,0x67fa}, {0x2f8e0,0x2f8e0,0x6785}, {0x2f8e1,0x2f8e1,0x6852},
    {0x2f8e2,0x2f8e2,0x6885}, {0x2f8e3,0x2f8e3,0x2346d}, {0x2f8e4,0x2f8e4,0x688e}, {0x2f8e5,0x2f8e5,0x681f}, {0x2f8e6,0x2f8e6,0x6914},
    {0x2f8e7,0x2f8e7,0x3b9d}, {0x2f8e8,0x2f8e8,0x6942}, {0x2f8e9,0x2f8e9,0x69a3}, {0x2f8ea,0x2f8ea,0x69ea}, {0x2f8eb,0x2f8eb,0x6aa8},
    {0x2f8ec,0x2f8ec,0x236a3}, {0x2f8ed,0x2f8ed,0x6adb}, {0x2f8ee,0x2f8ee,0x3c18}, {0x2f8ef,0x2f8ef,0x6b21}, {0x2f8f0,0x2f8f0,0x238a7},
    {0x2f8f1,0x2f8f1,0x6b54}, {0x2f8f2,0x2f8f2,0x3c4e}, {0x2f8f3,0x2f8f3,0x6b72}, {0x2f8f4,0x2f8f4,0x6b9f}, {0x2f8f5,0x2f8f5,0x6bba},
    {0x2f8f6,0x2f8f6,0x6bbb}, {0x2f8f7,0x2f8f7,0x23a8d}, {0x2f8f8,0x2f8f8,0x21d0b}, {0x2f8f9,0x2f8f9,0x23afa}, {0x2f8fa,0x2f8fa,0x6c4e},
    {0x2f8fb,0x2f8fb,0x23cbc}, {0x2f8fc,0x2f8fc,0x6cbf}, {0x2f8fd,0x2f8fd,0x6ccd}, {0x2f8fe,0x2f8fe,0x6c67}, {0x2f8ff,0x2f8ff,0x6d16},
    {0x2f900,0x2f900,0x6d3e}, {0x2f901,0x2f901,0x6d77}, {0x2f902,0x2f902,0x6d41}, {0x2f903,0x2f903,0x6d69}, {0x2f904,0x2f904,0x6d78},
    {0x2f905,0x2f905,0x6d85}, {0x2f906,0x2f906,0x23d1e}, {0x2f907,0x2f907,0x6d34}, {0x2f908,0x2f908,0x6e2f}, {0x2f909,0x2f909,0x6e6e},
    {0x2f90a,0x2f90a,0x3d33}, {0x2f90b,0x2f90b,0x6ecb}, {0x2f90c,0x2f90c,0x6ec7}, {0x2f90d,0x2f90d,0x23ed1}, {0x2f90e,0x2f90e,0x6df9},
    {0x2f90f,0x2f90f,0x6f6e}, {0x2f910,0x2f910,0x23f5e}, {0x2f911,0x2f911,0x23f8e}, {0x2f912,0x2f912,0x6fc6}, {0x2f913,0x2f913,0x7039},
    {0x2f914,0x2f914,0x701e}, {0x2f915,0x2f915,0x701b}, {0x2f916,0x2f916,0x3d96}, {0x2f917,0x2f917,0x704a}, {0x2f918,0x2f918,0x707d},
    {0x2f919,0x2f919,0x7077}, {0x2f91a,0x2f91a,0x70ad}, {0x2f91b,0x2f91b,0x20525}, {0x2f91c,0x2f91c,0x7145}, {0x2f91d,0x2f91d,0x24263},
    {0x2f91e,0x2f91e,0x719c}, {0x2f91f,0x2f91f,0x243ab}, {0x2f920,0x2f920,0x7228}, {0x2f921,0x2f921,0x7235}, {0x2f922,0x2f922,0x7250},
    {0x2f923,0x2f923,0x24608}, {0x2f924,0x2f924,0x7280}, {0x2f925,0x2f925,0x7295}, {0x2f926,0x2f926,0x24735}, {0x2f927,0x2f927,0x24814},
    {0x2f928,0x2f928,0x737a}, {0x2f929,0x2f929,0x738b}, {0x2f92a,0x2f92a,0x3eac}, {0x2f92b,0x2f92b,0x73a5}, {0x2f92c,0x2f92d,0x3eb8},
    {0x2f92e,0x2f92e,0x7447}, {0x2f92f,0x2f92f,0x745c}, {0x2f930,0x2f930,0x7471}, {0x2f931,0x2f931,0x7485}, {0x2f932,0x2f932,0x74ca},
    {0x2f933,0x2f933,0x3f1b}, {0x2f934,0x2f934,0x7524}, {0x2f935,0x2f935,0x24c36}, {0x2f936,0x2f936,0x753e}, {0x2f937,0x2f937,0x24c92},
    {0x2f938,0x2f938,0x7570}, {0x2f939,0x2f939,0x2219f}, {0x2f93a,0x2f93a,0x7610}, {0x2f93b,0x2f93b,0x24fa1}, {0x2f93c,0x2f93c,0x24fb8},
    {0x2f93d,0x2f93d,0x25044}, {0x2f93e,0x2f93e,0x3ffc}, {0x2f93f,0x2f93f,0x4008}, {0x2f940,0x2f940,0x76f4}, {0x2f941,0x2f941,0x250f3},
    {0x2f942,0x2f942,0x250f2}, {0x2f943,0x2f943,0x25119}, {0x2f944,0x2f944,0x25133}, {0x2f945,0x2f945,0x771e}, {0x2f946,0x2f947,0x771f},
    {0x2f948,0x2f948,0x774a}, {0x2f949,0x2f949,0x4039}, {0x2f94a,0x2f94a,0x778b}, {0x2f94b,0x2f94b,0x4046}, {0x2f94c,0x2f94c,0x4096},
    {0x2f94d,0x2f94d,0x2541d}, {0x2f94e,0x2f94e,0x784e}, {0x2f94f,0x2f94f,0x788c}, {0x2f950,0x2f950,0x78cc}, {0x2f951,0x2f951,0x40e3},
    {0x2f952,0x2f952,0x25626}, {0x2f953,0x2f953,0x7956}, {0x2f954,0x2f954,0x2569a}, {0x2f955,0x2f955,0x256c5}, {0x2f956,0x2f956,0x798f},
    {0x2f957,0x2f957,0x79eb}, {0x2f958,0x2f958,0x412f}, {0x2f959,0x2f959,0x7a40}, {0x2f95a,0x2f95a,0x7a4a}, {0x2f95b,0x2f95b,0x7a4f},
    {0x2f95c,0x2f95c,0x2597c}, {0x2f95d,0x2f95e,0x25aa7}, {0x2f95f,0x2f95f,0x7aee}, {0x2f960,0x2f960,0x4202}, {0x2f961,0x2f961,0x25bab},
    {0x2f962,0x2f962,0x7bc6}, {0x2f963,0x2f963,0x7bc9}, {0x2f964,0x2f964,0x4227}, {0x2f965,0x2f965,0x25c80}, {0x2f966,0x2f966,0x7cd2},
    {0x2f967,0x2f967,0x42a0}, {0x2f968,0x2f968,0x7ce8}, {0x2f969,0x2f969,0x7ce3}, {0x2f96a,0x2f96a,0x7d00}, {0x2f96b,0x2f96b,0x25f86},
    {0x2f96c,0x2f96c,0x7d63}, {0x2f96d,0x2f96d,0x4301}, {0x2f96e,0x2f96e,0x7dc7}, {0x2f96f,0x2f96f,0x7e02}, {0x2f970,0x2f970,0x7e45},
    {0x2f971,0x2f971,0x4334}, {0x2f972,0x2f972,0x26228}, {0x2f973,0x2f973,0x26247}, {0x2f974,0x2f974,0x4359}, {0x2f975,0x2f975,0x262d9},
    {0x2f976,0x2f976,0x7f7a}, {0x2f977,0x2f977,0x2633e}, {0x2f978,0x2f978,0x7f95}, {0x2f979,0x2f979,0x7ffa}, {0x2f97a,0x2f97a,0x8005},
    {0x2f97b,0x2f97b,0x264da}, {0x2f97c,0x2f97c,0x26523}, {0x2f97d,0x2f97d,0x8060}, {0x2f97e,0x2f97e,0x265a8}, {0x2f97f,0x2f97f,0x8070},
    {0x2f980,0x2f980,0x2335f}, {0x2f981,0x2f981,0x43d5}, {0x2f982,0x2f982,0x80b2}, {0x2f983,0x2f983,0x8103}, {0x2f984,0x2f984,0x440b},
    {0x2f985,0x2f985,0x813e}, {0x2f986,0x2f986,0x5ab5}, {0x2f987,0x2f987,0x267a7}, {0x2f988,0x2f988,0x267b5}, {0x2f989,0x2f989,0x23393},
    {0x2f98a,0x2f98a,0x2339c}, {0x2f98b,0x2f98b,0x8201}, {0x2f98c,0x2f98c,0x8204}, {0x2f98d,0x2f98d,0x8f9e}, {0x2f98e,0x2f98e,0x446b},
    {0x2f98f,0x2f98f,0x8291}, {0x2f990,0x2f990,0x828b}, {0x2f991,0x2f991,0x829d}, {0x2f992,0x2f992,0x52b3}, {0x2f993,0x2f993,0x82b1},
    {0x2f994,0x2f994,0x82b3}, {0x2f995,0x2f995,0x82bd}, {0x2f996,0x2f996,0x82e6}, {0x2f997,0x2f997,0x26b3c}, {0x2f998,0x2f998,0x82e5},
    {0x2f999,0x2f999,0x831d}, {0x2f99a,0x2f99a,0x8363}, {0x2f99b,0x2f99b,0x83ad}, {0x2f99c,0x2f99c,0x8323}, {0x2f99d,0x2f99d,0x83bd},
    {0x2f99e,0x2f99e,0x83e7}, {0x2f99f,0x2f99f,0x8457}, {0x2f9a0,0x2f9a0,0x8353}, {0x2f9a1,0x2f9a1,0x83ca}, {0x2f9a2,0x2f9a2,0x83cc},
    {0x2f9a3,0x2f9a3,0x83dc}, {0x2f9a4,0x2f9a4,0x26c36}, {0x2f9a5,0x2f9a5,0x26d6b}, {0x2f9a6,0x2f9a6,0x26cd5}, {0x2f9a7,0x2f9a7,0x452b},
    {0x2f9a8,0x2f9a8,0x84f1}, {0x2f9a9,0x2f9a9,0x84f3}, {0x2f9aa,0x2f9aa,0x8516}, {0x2f9ab,0x2f9ab,0x273ca}, {0x2f9ac,0x2f9ac,0x8564},
    {0x2f9ad,0x2f9ad,0x26f2c}, {0x2f9ae,0x2f9ae,0x455d}, {0x2f9af,0x2f9af,0x4561}, {0x2f9b0,0x2f9b0,0x26fb1}, {0x2f9b1,0x2f9b1,0x270d2},
    {0x2f9b2,0x2f9b2,0x456b}, {0x2f9b3,0x2f9b3,0x8650}, {0x2f9b4,0x2f9b4,0x865c}, {0x2f9b5,0x2f9b5,0x8667}, {0x2f9b6,0x2f9b6,0x8669},
    {0x2f9b7,0x2f9b7,0x86a9}, {0x2f9b8,0x2f9b8,0x8688}, {0x2f9b9,0x2f9b9,0x870e}, {0x2f9ba,0x2f9ba,0x86e2}, {0x2f9bb,0x2f9bb,0x8779},
    {0x2f9bc,0x2f9bc,0x8728}, {0x2f9bd,0x2f9bd,0x876b}, {0x2f9be,0x2f9be,0x8786}, {0x2f9bf,0x2f9bf,0x45d7}, {0x2f9c0,0x2f9c0,0x87e1},
    {0x2f9c1,0x2f9c1,0x8801}, {0x2f9c2,0x2f9c2,0x45f9}, {0x2f9c3,0x2f9c3,0x8860}, {0x2f9c4,0x2f9c4,0x8863}, {0x2f9c5,0x2f9c5,0x27667},
    {0x2f9c6,0x2f9c6,0x88d7}, {0x2f9c7,0x2f9c7,0x88de}, {0x2f9c8,0x2f9c8,0x4635}, {0x2f9c9,0x2f9c9,0x88fa}, {0x2f9ca,0x2f9ca,0x34bb},
    {0x2f9cb,0x2f9cb,0x278ae}, {0x2f9cc,0x2f9cc,0x27966}, {0x2f9cd,0x2f9cd,0x46be}, {0x2f9ce,0x2f9ce,0x46c7}, {0x2f9cf,0x2f9cf,0x8aa0},
    {0x2f9d0,0x2f9d0,0x8aed}, {0x2f9d1,0x2f9d1,0x8b8a}, {0x2f9d2,0x2f9d2,0x8c55}, {0x2f9d3,0x2f9d3,0x27ca8}, {0x2f9d4,0x2f9d4,0x8cab},
    {0x2f9d5,0x2f9d5,0x8cc1}, {0x2f9d6,0x2f9d6,0x8d1b}, {0x2f9d7,0x2f9d7,0x8d77}, {0x2f9d8,0x2f9d8,0x27f2f}, {0x2f9d9,0x2f9d9,0x20804},
    {0x2f9da,0x2f9da,0x8dcb}, {0x2f9db,0x2f9db,0x8dbc}, {0x2f9dc,0x2f9dc,0x8df0}, {0x2f9dd,0x2f9dd,0x208de}, {0x2f9de,0x2f9de,0x8ed4},
    {0x2f9df,0x2f9df,0x8f38}, {0x2f9e0,0x2f9e0,0x285d2}, {0x2f9e1,0x2f9e1,0x285ed}, {0x2f9e2,0x2f9e2,0x9094}, {0x2f9e3,0x2f9e3,0x90f1},
    {0x2f9e4,0x2f9e4,0x9111}, {0x2f9e5,0x2f9e5,0x2872e}, {0x2f9e6,0x2f9e6,0x911b}, {0x2f9e7,0x2f9e7,0x9238}, {0x2f9e8,0x2f9e8,0x92d7},
    {0x2f9e9,0x2f9e9,0x92d8}, {0x2f9ea,0x2f9ea,0x927c}, {0x2f9eb,0x2f9eb,0x93f9}, {0x2f9ec,0x2f9ec,0x9415}, {0x2f9ed,0x2f9ed,0x28bfa},
    {0x2f9ee,0x2f9ee,0x958b}, {0x2f9ef,0x2f9ef,0x4995}, {0x2f9f0,0x2f9f0,0x95b7}, {0x2f9f1,0x2f9f1,0x28d77}, {0x2f9f2,0x2f9f2,0x49e6},
    {0x2f9f3,0x2f9f3,0x96c3}, {0x2f9f4,0x2f9f4,0x5db2}, {0x2f9f5,0x2f9f5,0x9723}, {0x2f9f6,0x2f9f6,0x29145}, {0x2f9f7,0x2f9f7,0x2921a},
    {0x2f9f8,0x2f9f8,0x4a6e}, {0x2f9f9,0x2f9f9,0x4a76}, {0x2f9fa,0x2f9fa,0x97e0}, {0x2f9fb,0x2f9fb,0x2940a}, {0x2f9fc,0x2f9fc,0x4ab2},
    {0x2f9fd,0x2f9fd,0x29496}, {0x2f9fe,0x2f9ff,0x980b}, {0x2fa00,0x2fa00,0x9829}, {0x2fa01,0x2fa01,0x295b6}, {0x2fa02,0x2fa02,0x98e2},
    {0x2fa03,0x2fa03,0x4b33}, {0x2fa04,0x2fa04,0x9929}, {0x2fa05,0x2fa05,0x99a7}, {0x2fa06,0x2fa06,0x99c2}, {0x2fa07,0x2fa07,0x99fe},
    {0x2fa08,0x2fa08,0x4bce}, {0x2fa09,0x2fa09,0x29b30}, {0x2fa0a,0x2fa0a,0x9b12}, {0x2fa0b,0x2fa0b,0x9c40}, {0x2fa0c,0x2fa0c,0x9cfd},
    {0x2fa0d,0x2fa0d,0x4cce}, {0x2fa0e,0x2fa0e,0x4ced}, {0x2fa0f,0x2fa0f,0x9d67}, {0x2fa10,0x2fa10,0x2a0ce}, {0x2fa11,0x2fa11,0x4cf8},
    {0x2fa12,0x2fa12,0x2a105}, {0x2fa13,0x2fa13,0x2a20e}, {0x2fa14,0x2fa14,0x2a291}, {0x2fa15,0x2fa15,0x9ebb}, {0x2fa16,0x2fa16,0x4d56},
    {0x2fa17,0x2fa17,0x9ef9}, {0x2fa18,0x2fa18,0x9efe}, {0x2fa19,0x2fa19,0x9f05}, {0x2fa1a,0x2fa1a,0x9f0f}, {0x2fa1b,0x2fa1b,0x9f16},
    {0x2fa1c,0x2fa1c,0x9f3b}, {0x2fa1d,0x2fa1d,0x2a600},
};
/* LK__UNICODE_TABLES_END */

/* codepoint flags: general category (one bit) plus white space */
#define LK__UF_UNDEF 0x01
#define LK__UF_N 0x02
#define LK__UF_L 0x04
#define LK__UF_Z 0x08
#define LK__UF_M 0x10
#define LK__UF_P 0x20
#define LK__UF_S 0x40
#define LK__UF_C 0x80
#define LK__UF_WS 0x100

static int lk__ucat(uint32_t cp) {
    int lo = 0, hi = LK__UCAT_N - 1;
    if (cp >= 0x110000) return LK__UF_UNDEF;
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if ((lk__ucat_ranges[mid] >> 8) <= cp) lo = mid; else hi = mid - 1;
    }
    return (int)(lk__ucat_ranges[lo] & 0xff);
}
/* White_Space as llama.cpp lists it (PropList.txt) */
static int lk__uws(uint32_t cp) {
    if (cp < 0x80) return (cp >= 9 && cp <= 13) || cp == 32;
    return cp == 0x85 || cp == 0xA0 || cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200A) ||
           cp == 0x2028 || cp == 0x2029 || cp == 0x202F || cp == 0x205F || cp == 0x3000;
}
static int lk__uflags(uint32_t cp) { return lk__ucat(cp) | (lk__uws(cp) ? LK__UF_WS : 0); }
static uint32_t lk__ulower_cp(uint32_t cp) {
    int i;
    if (cp < 0x80) return cp >= 'A' && cp <= 'Z' ? cp + 32 : cp;
    for (i = 0; i < LK__ULOWER_N; i++) {
        uint32_t first = (uint32_t)lk__ulower[i][0], n = (uint32_t)lk__ulower[i][1], st = (uint32_t)lk__ulower[i][2];
        if (cp >= first && cp < first + n * st && (cp - first) % st == 0) return (uint32_t)((int32_t)cp + lk__ulower[i][3]);
    }
    return cp;
}
static uint32_t lk__unfd_cp(uint32_t cp) {
    int lo = 0, hi = LK__UNFD_N - 1;
    if (cp < 0xC0) return cp;
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if (lk__unfd[mid][0] <= cp) lo = mid; else hi = mid - 1;
    }
    return lk__unfd[lo][0] <= cp && cp <= lk__unfd[lo][1] ? lk__unfd[lo][2] : cp;
}
/* llama.cpp's unicode_len_utf8: sequence length from the lead byte alone */
static int lk__utf8_len(unsigned char c) {
    static const unsigned char t[16] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 3, 4};
    return t[c >> 4];
}
/* Decode one codepoint as llama.cpp does: no overlong/surrogate checks; a
 * bad sequence consumes one byte and gives U+FFFD. (Sequences above
 * U+10FFFF, where llama.cpp throws, are also U+FFFD here.) */
static uint32_t lk__utf8_next(const unsigned char *s, size_t n, size_t *off) {
    size_t o = *off;
    unsigned c = s[o];
    uint32_t cp;
    if (!(c & 0x80)) { *off = o + 1; return c; }
    if (!(c & 0x40)) goto bad;
    if (!(c & 0x20)) {
        if (o + 1 >= n || (s[o + 1] & 0xc0) != 0x80) goto bad;
        *off = o + 2;
        return ((c & 0x1fu) << 6) | (s[o + 1] & 0x3fu);
    }
    if (!(c & 0x10)) {
        if (o + 2 >= n || (s[o + 1] & 0xc0) != 0x80 || (s[o + 2] & 0xc0) != 0x80) goto bad;
        *off = o + 3;
        return ((c & 0x0fu) << 12) | ((s[o + 1] & 0x3fu) << 6) | (s[o + 2] & 0x3fu);
    }
    if (!(c & 0x08)) {
        if (o + 3 >= n || (s[o + 1] & 0xc0) != 0x80 || (s[o + 2] & 0xc0) != 0x80 || (s[o + 3] & 0xc0) != 0x80) goto bad;
        cp = ((c & 0x07u) << 18) | ((s[o + 1] & 0x3fu) << 12) | ((s[o + 2] & 0x3fu) << 6) | (s[o + 3] & 0x3fu);
        if (cp > 0x10FFFF) goto bad;
        *off = o + 4;
        return cp;
    }
bad:
    *off = o + 1;
    return 0xFFFD;
}
static int lk__utf8_put(uint32_t cp, unsigned char *o) {   /* cp <= 0x10FFFF */
    if (cp < 0x80) { o[0] = (unsigned char)cp; return 1; }
    if (cp < 0x800) { o[0] = (unsigned char)(0xc0 | (cp >> 6)); o[1] = (unsigned char)(0x80 | (cp & 0x3f)); return 2; }
    if (cp < 0x10000) {
        o[0] = (unsigned char)(0xe0 | (cp >> 12)); o[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
        o[2] = (unsigned char)(0x80 | (cp & 0x3f)); return 3;
    }
    o[0] = (unsigned char)(0xf0 | (cp >> 18)); o[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3f));
    o[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f)); o[3] = (unsigned char)(0x80 | (cp & 0x3f)); return 4;
}

/* pre-tokenizers: each is a list of split passes (see lk__rx_match) */
enum {
    LK__PRE_DEFAULT, LK__PRE_LLAMA3, LK__PRE_DEEPSEEK_CODER, LK__PRE_FALCON, LK__PRE_GPT2,
    LK__PRE_STARCODER, LK__PRE_QWEN2, LK__PRE_PORO, LK__PRE_VIKING, LK__PRE_DEEPSEEK_LLM, LK__PRE_DEEPSEEK3,
    LK__PRE_CHAMELEON, LK__PRE_TEKKEN, LK__PRE_COUNT
};
enum {
    LK__RX_END, LK__RX_GPT2, LK__RX_LLAMA3, LK__RX_QWEN2, LK__RX_PUNCT_RUN, LK__RX_PUNCT_RUN_FALCON,
    LK__RX_NUM_RUN, LK__RX_DIGIT3, LK__RX_NUM1, LK__RX_CRLF, LK__RX_SP_LETTERS, LK__RX_SP_PUNCT,
    LK__RX_CJK, LK__RX_PORO, LK__RX_DSL_LETTERS, LK__RX_DSL_PUNCT, LK__RX_TRAIL_WS, LK__RX_NUM3, LK__RX_CJK_KANA,
    LK__RX_DS3, LK__RX_SENTINEL, LK__RX_IMG, LK__RX_TABSP, LK__RX_PUNCT1, LK__RX_TEKKEN
};
static const unsigned char lk__pre_passes[LK__PRE_COUNT][6] = {
    /* default: [\p{P}\$\+<=>\^~\|]+ , gpt2 , \p{N}+ , [0-9][0-9][0-9] */
    { LK__RX_PUNCT_RUN, LK__RX_GPT2, LK__RX_NUM_RUN, LK__RX_DIGIT3, 0, 0 },
    { LK__RX_LLAMA3, 0, 0, 0, 0, 0 },
    /* deepseek-coder: [\r\n] , \s?\p{L}+ , \s?\p{P}+ , [一-龥ࠀ-一가-퟿]+ , \p{N} */
    { LK__RX_CRLF, LK__RX_SP_LETTERS, LK__RX_SP_PUNCT, LK__RX_CJK, LK__RX_NUM1, 0 },
    /* falcon: [\p{P}\$\+<=>\^~\|`]+ , gpt2 , [0-9][0-9][0-9] */
    { LK__RX_PUNCT_RUN_FALCON, LK__RX_GPT2, LK__RX_DIGIT3, 0, 0, 0 },
    { LK__RX_GPT2, 0, 0, 0, 0, 0 },
    { LK__RX_NUM1, LK__RX_GPT2, 0, 0, 0, 0 },
    { LK__RX_QWEN2, 0, 0, 0, 0, 0 },
    /*  ?[^(\s|.,!?…。，、।۔،)]+  */
    { LK__RX_PORO, 0, 0, 0, 0, 0 },
    { LK__RX_PORO, LK__RX_NUM1, 0, 0, 0, 0 },
    /* deepseek-llm: [\r\n] , \s?[A-Za-zµÀ-Ö...]+ , \s?[!-/:-~！-／：-～‘-‟　-。]+ , \s+$ , [一-龥ࠀ-一가-퟿]+ , \p{N}+ */
    { LK__RX_CRLF, LK__RX_DSL_LETTERS, LK__RX_DSL_PUNCT, LK__RX_TRAIL_WS, LK__RX_CJK, LK__RX_NUM_RUN },
    /* deepseek-v3: \p{N}{1,3} , [一-龥぀-ゟ゠-ヿ]+ , (see LK__RX_DS3) */
    { LK__RX_NUM3, LK__RX_CJK_KANA, LK__RX_DS3, 0, 0, 0 },
    /* chameleon: <sentinel:[0-9]+> , (IMGIMG)((A|B|C|D|E|F|G|H|I){1,4})Z , ([\t\n]|    |  ) , \p{N} ,
     * [\p{P}!-/:-@\[-`{-~] , gpt2 */
    { LK__RX_SENTINEL, LK__RX_IMG, LK__RX_TABSP, LK__RX_NUM1, LK__RX_PUNCT1, LK__RX_GPT2 },
    { LK__RX_TEKKEN, 0, 0, 0, 0, 0 },
};
/* deepseek-llm's letter class [A-Za-zµÀ-Ö...] as codepoint ranges */
static const uint32_t lk__dsl_letters[][2] = {
    {0x41,0x5a}, {0x61,0x7a}, {0xb5,0xb5}, {0xc0,0xd6}, {0xd8,0xf6}, {0xf8,0x1ba}, {0x1bc,0x1bf}, {0x1c4,0x293},
    {0x295,0x2af}, {0x370,0x373}, {0x376,0x377}, {0x37b,0x37d}, {0x37f,0x37f}, {0x386,0x386}, {0x388,0x38a},
    {0x38c,0x38c}, {0x38e,0x3a1}, {0x3a3,0x3f5}, {0x3f7,0x481}, {0x48a,0x52f}, {0x531,0x556}, {0x10a0,0x10c5},
    {0x13a0,0x13f5}, {0x13f8,0x13fd}, {0x1c90,0x1cba}, {0x1cbd,0x1cbf}, {0x1d00,0x1d2b}, {0x1d6b,0x1d77},
    {0x1d79,0x1d9a}, {0x1e00,0x1f15}, {0x1f18,0x1f1d}, {0x1f20,0x1f45}, {0x1f48,0x1f4d}, {0x1f50,0x1f57},
    {0x1f59,0x1f59}, {0x1f5b,0x1f5b}, {0x1f5d,0x1f5d}, {0x1f5f,0x1f7d}, {0x1f80,0x1fb4}, {0x1fb6,0x1fbc},
    {0x1fbe,0x1fbe}, {0x1fc2,0x1fc4}, {0x1fc6,0x1fcc}, {0x1fd0,0x1fd3}, {0x1fd6,0x1fdb}, {0x1fe0,0x1fec},
    {0x1ff2,0x1ff4}, {0x1ff6,0x1ffc}, {0x2102,0x2102}, {0x2107,0x2107}, {0x210a,0x2113}, {0x2115,0x2115},
    {0x2119,0x211d}, {0x2124,0x2124}, {0x2126,0x2126}, {0x2128,0x2128}, {0x212a,0x212d}, {0x212f,0x2134},
    {0x2139,0x2139}, {0x213c,0x213f}, {0x2145,0x2149}, {0x214e,0x214e}, {0x2183,0x2184}, {0x2c00,0x2c7b},
    {0x2c7e,0x2ce4}, {0x2ceb,0x2cee}, {0x2cf2,0x2cf3}, {0xa640,0xa66d}, {0xa680,0xa69b}, {0xa722,0xa76f},
    {0xa771,0xa787}, {0xa78b,0xa78e}, {0xab70,0xabbf}, {0xfb00,0xfb06}, {0xfb13,0xfb17}, {0xff21,0xff3a},
    {0xff41,0xff5a}, {0x10400,0x1044f}, {0x104b0,0x104d3}, {0x104d8,0x104fb}, {0x10c80,0x10cb2}, {0x10cc0,0x10cf2},
    {0x118a0,0x118df}, {0x1e900,0x1e943}
};
static int lk__dsl_letter(uint32_t cp, int fl) {
    size_t i;
    if (fl & LK__UF_WS) return 0;
    for (i = 0; i < sizeof lk__dsl_letters / sizeof lk__dsl_letters[0]; i++)
        if (cp >= lk__dsl_letters[i][0] && cp <= lk__dsl_letters[i][1]) return 1;
    return 0;
}
static int lk__dsl_punct(uint32_t cp, int fl) {   /* [!-/:-~！-／：-～‘-‟　-。] */
    if (fl & LK__UF_WS) return 0;
    return (cp >= 0x21 && cp <= 0x2F) || (cp >= 0x3A && cp <= 0x7E) || (cp >= 0xFF01 && cp <= 0xFF0F) ||
           (cp >= 0xFF1A && cp <= 0xFF5E) || (cp >= 0x2018 && cp <= 0x201F) || (cp >= 0x3000 && cp <= 0x3002);
}

/* Classes of llama.cpp's "collapsed" text, on which std::regex runs the
 * \p{..} patterns: ASCII stays itself, other white space becomes 0x0B,
 * other codepoints become one byte per category (N D1, L D2, P D3, M D4,
 * S D5, anything else D0). \p{X} then matches that byte plus the ASCII
 * members llama.cpp lists (note: ASCII '~' is in neither P nor S). */
static unsigned char lk__collapse(uint32_t cp, int fl) {
    if (cp < 0x80) return (unsigned char)cp;
    if (fl & LK__UF_WS) return 0x0B;
    switch (fl & 0xff) {
    case LK__UF_N: return 0xD1;
    case LK__UF_L: return 0xD2;
    case LK__UF_P: return 0xD3;
    case LK__UF_M: return 0xD4;
    case LK__UF_S: return 0xD5;
    default: return 0xD0;
    }
}
static int lk__cx_n(int x) { return x == 0xD1 || (x >= '0' && x <= '9'); }
static int lk__cx_l(int x) { return x == 0xD2 || (x >= 'A' && x <= 'Z') || (x >= 'a' && x <= 'z'); }
static int lk__cx_p(int x) {
    return x == 0xD3 || (x >= 0x21 && x <= 0x23) || (x >= 0x25 && x <= 0x2A) || (x >= 0x2C && x <= 0x2F) ||
           x == 0x3A || x == 0x3B || x == 0x3F || x == 0x40 || (x >= 0x5B && x <= 0x5D) || x == 0x5F ||
           x == 0x7B || x == 0x7D;
}
static int lk__cx_s(int x) { return (x >= 9 && x <= 13) || x == 32; }   /* \s */
static int lk__cx_rn(int x) { return x == '\r' || x == '\n'; }
/* [^\s\p{L}\p{N}] */
static int lk__cx_q(int x) { return x >= 0 && !lk__cx_s(x) && !lk__cx_l(x) && !lk__cx_n(x); }
static int lk__cx_sym(int x) { return x == 0xD5 || x == '$' || x == '+' || x == '<' || x == '=' || x == '>' || x == '^' || x == '`' || x == '|'; }
static int lk__cx_apunct(int x) { return (x >= 0x21 && x <= 0x2F) || (x >= 0x3A && x <= 0x40) || (x >= 0x5B && x <= 0x60) || (x >= 0x7B && x <= 0x7E); }
static int lk__cx_az(int x) { return (x >= 'A' && x <= 'Z') || (x >= 'a' && x <= 'z'); }
static int lk__cx_lm(int x) { return lk__cx_l(x) || x == 0xD4; }
static int lk__cx_ps(int x) { return lk__cx_p(x) || lk__cx_sym(x); }
static int lk__cx_upper(int x) { return x == 0xD2 || (x >= 'A' && x <= 'Z'); }   /* (?=\p{L})[^a-z] */
static int lk__cx_lower(int x) { return x == 0xD2 || (x >= 'a' && x <= 'z'); }   /* (?=\p{L})[^A-Z] */
/* \s*[\r\n]+|\s+(?!\S)|\s+ on the collapsed text, at pos; 0 if none */
static int lk__cx_ws_tail(const unsigned char *x, int pos, int end) {
    int w = pos, k, lastrn = -1;
    while (w < end && lk__cx_s(x[w])) w++;
    for (k = pos; k < w; k++) if (lk__cx_rn(x[k])) lastrn = k;
    if (lastrn >= 0) return lastrn + 1 - pos;     /* \s*[\r\n]+ */
    if (w > pos && w == end) return w - pos;      /* \s+(?!\S) at the end */
    if (w - pos >= 2) return w - pos - 1;         /* \s+(?!\S) */
    return w - pos;                               /* \s+ (or 0) */
}
static int lk__cx_run(int (*cls)(int), const unsigned char *x, int p, int end) {
    while (p < end && cls(x[p])) p++;
    return p;
}
/* tekken: U* W+ (alt 1) or U+ W* (alt 2) from i, U = (?=\p{L})[^a-z], W = (?=\p{L})[^A-Z]; end or -1 */
static int lk__tekken_letters(const unsigned char *x, int i, int end, int alt) {
    int u = lk__cx_run(lk__cx_upper, x, i, end), k;
    if (alt == 2) return u > i ? lk__cx_run(lk__cx_lower, x, u, end) : -1;
    for (k = u; k >= i; k--)   /* U* backtracks until W+ can start */
        if (k < end && lk__cx_lower(x[k])) return lk__cx_run(lk__cx_lower, x, k, end);
    return -1;
}
static int lk__poro_neg(uint32_t cp, int fl) {  /* [^(\s|.,!?…。，、।۔،)] on wide text */
    if (fl & LK__UF_WS) return 0;   /* \s, incl. non-ASCII white space (mapped to 0x0B) */
    switch (cp) {
    case '(': case ')': case '|': case '.': case ',': case '!': case '?':
    case 0x2026: case 0x3002: case 0xFF0C: case 0x3001: case 0x0964: case 0x06D4: case 0x060C: return 0;
    default: return 1;
    }
}

/* The passes with many alternatives, one function each: the length of the
 * match starting at pos in [pos, end) (cp: codepoints, fl: lk__uflags,
 * x: collapsed classes). GPT2 and LLAMA3 follow llama.cpp's hand-written
 * splitters (always >= 1); the others follow what std::regex (ECMAScript:
 * leftmost, ordered alternation, greedy with backtracking) does with
 * llama.cpp's pattern. */
#define LK__F(i) ((i) < end ? (int)fl[i] : 0)
/* 's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+ */
static int lk__rx_gpt2(const uint32_t *cp, const unsigned short *fl, int pos, int end) {
    const int WLN = LK__UF_WS | LK__UF_L | LK__UF_N;
    uint32_t c = cp[pos];
    int p, f2, nw;
    if (c == '\'' && pos + 1 < end) {
        uint32_t n1 = cp[pos + 1];
        if (n1 == 's' || n1 == 't' || n1 == 'm' || n1 == 'd') return 2;
        if (pos + 2 < end) {
            uint32_t n2 = cp[pos + 2];
            if ((n1 == 'r' && n2 == 'e') || (n1 == 'v' && n2 == 'e') || (n1 == 'l' && n2 == 'l')) return 3;
        }
    }
    f2 = c == ' ' ? LK__F(pos + 1) : LK__F(pos);
    p = pos + (c == ' ');
    if (f2 & LK__UF_L) { while (LK__F(p) & LK__UF_L) p++; return p - pos; }
    if (f2 & LK__UF_N) { while (LK__F(p) & LK__UF_N) p++; return p - pos; }
    if (!(f2 & WLN) && f2) { while (!(LK__F(p) & WLN) && LK__F(p)) p++; return p - pos; }
    nw = 0;
    while (LK__F(pos + nw) & LK__UF_WS) nw++;
    if (nw > 1 && pos + nw < end) return nw - 1;
    if (nw > 0) return nw;
    return 1;
}
/* (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+ */
static int lk__rx_llama3(const uint32_t *cp, const unsigned short *fl, int pos, int end) {
    const int WLN = LK__UF_WS | LK__UF_L | LK__UF_N;
    uint32_t c = cp[pos];
    int p, f, f2, nw, last = -1;
    f = LK__F(pos);
    if (c == '\'' && pos + 1 < end) {
        uint32_t n1 = lk__ulower_cp(cp[pos + 1]);
        if (n1 == 's' || n1 == 't' || n1 == 'm' || n1 == 'd') return 2;
        if (pos + 2 < end) {
            uint32_t n2 = lk__ulower_cp(cp[pos + 2]);
            if ((n1 == 'r' && n2 == 'e') || (n1 == 'v' && n2 == 'e') || (n1 == 'l' && n2 == 'l')) return 3;
        }
    }
    if (!(c == '\r' || c == '\n' || (f & LK__UF_N))) {
        if ((f & LK__UF_L) || (LK__F(pos + 1) & LK__UF_L)) {
            p = pos + 1;
            while (LK__F(p) & LK__UF_L) p++;
            return p - pos;
        }
    }
    if (f & LK__UF_N) {
        p = pos;
        while (p - pos < 3 && (LK__F(p) & LK__UF_N)) p++;
        return p - pos;
    }
    f2 = c == ' ' ? LK__F(pos + 1) : f;
    if (!(f2 & WLN) && f) {
        p = pos + (c == ' ');
        while (!(LK__F(p) & WLN) && LK__F(p)) p++;
        while (p < end && (cp[p] == '\r' || cp[p] == '\n')) p++;
        return p - pos;
    }
    nw = 0;
    while (LK__F(pos + nw) & LK__UF_WS) {
        if (cp[pos + nw] == '\r' || cp[pos + nw] == '\n') last = pos + nw + 1;
        nw++;
    }
    if (last >= 0) return last - pos;
    if (nw > 1 && pos + nw < end) return nw - 1;
    if (nw > 0) return nw;
    return 1;
}
#undef LK__F
/* (?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}
 * | ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+   (on the collapsed text) */
static int lk__rx_qwen2(const unsigned char *x, int pos, int end) {
    int x0 = x[pos], p;
    if (x0 == '\'' && pos + 1 < end) {
        int n1 = x[pos + 1] | 0x20;   /* ASCII case fold (only letters are compared) */
        if ((n1 == 's' || n1 == 't' || n1 == 'm' || n1 == 'd') && lk__cx_l(x[pos + 1])) return 2;
        if (pos + 2 < end && lk__cx_l(x[pos + 1]) && lk__cx_l(x[pos + 2])) {
            int n2 = x[pos + 2] | 0x20;
            if ((n1 == 'r' && n2 == 'e') || (n1 == 'v' && n2 == 'e') || (n1 == 'l' && n2 == 'l')) return 3;
        }
    }
    if (!lk__cx_rn(x0) && !lk__cx_l(x0) && !lk__cx_n(x0) && pos + 1 < end && lk__cx_l(x[pos + 1])) {
        p = pos + 1;
        while (p < end && lk__cx_l(x[p])) p++;
        return p - pos;
    }
    if (lk__cx_l(x0)) { p = pos; while (p < end && lk__cx_l(x[p])) p++; return p - pos; }
    if (lk__cx_n(x0)) return 1;
    p = -1;
    if (x0 == ' ' && pos + 1 < end && lk__cx_q(x[pos + 1])) p = pos + 1;
    else if (lk__cx_q(x0)) p = pos;
    if (p >= 0) {
        while (p < end && lk__cx_q(x[p])) p++;
        while (p < end && lk__cx_rn(x[p])) p++;
        return p - pos;
    }
    return lk__cx_ws_tail(x, pos, end);
}
/* deepseek-v3's last pass:
 * [!"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~][A-Za-z]+|[^\r\n\p{L}\p{P}\p{S}]?[\p{L}\p{M}]+
 * | ?[\p{P}\p{S}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+   (collapsed) */
static int lk__rx_deepseek3(const unsigned char *x, int pos, int end) {
    int x0 = x[pos], p;
    if (lk__cx_apunct(x0) && pos + 1 < end && lk__cx_az(x[pos + 1])) return lk__cx_run(lk__cx_az, x, pos + 1, end) - pos;
    if (!lk__cx_rn(x0) && !lk__cx_l(x0) && !lk__cx_p(x0) && !lk__cx_sym(x0) && pos + 1 < end && lk__cx_lm(x[pos + 1]))
        return lk__cx_run(lk__cx_lm, x, pos + 1, end) - pos;
    if (lk__cx_lm(x0)) return lk__cx_run(lk__cx_lm, x, pos, end) - pos;
    p = -1;
    if (x0 == ' ' && pos + 1 < end && lk__cx_ps(x[pos + 1])) p = pos + 1;
    else if (lk__cx_ps(x0)) p = pos;
    if (p >= 0) return lk__cx_run(lk__cx_rn, x, lk__cx_run(lk__cx_ps, x, p, end), end) - pos;
    return lk__cx_ws_tail(x, pos, end);
}
/* [^\r\n\p{L}\p{N}]?((?=[\p{L}])([^a-z]))*((?=[\p{L}])([^A-Z]))+
 * |[^\r\n\p{L}\p{N}]?((?=[\p{L}])([^a-z]))+((?=[\p{L}])([^A-Z]))*
 * |\p{N}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+   (collapsed) */
static int lk__rx_tekken(const unsigned char *x, int pos, int end) {
    int x0 = x[pos], opt = !lk__cx_rn(x0) && !lk__cx_l(x0) && !lk__cx_n(x0), alt, e, p;
    for (alt = 1; alt <= 2; alt++) {
        if (opt && pos + 1 < end && (e = lk__tekken_letters(x, pos + 1, end, alt)) > 0) return e - pos;
        if ((e = lk__tekken_letters(x, pos, end, alt)) > pos) return e - pos;
    }
    if (lk__cx_n(x0)) return 1;
    p = -1;
    if (x0 == ' ' && pos + 1 < end && lk__cx_q(x[pos + 1])) p = pos + 1;
    else if (lk__cx_q(x0)) p = pos;
    if (p >= 0) {
        p = lk__cx_run(lk__cx_q, x, p, end);
        while (p < end && (lk__cx_rn(x[p]) || x[p] == '/')) p++;
        return p - pos;
    }
    return lk__cx_ws_tail(x, pos, end);
}

/* Length of the match of pass `kind` starting at pos in [pos, end), or 0
 * (arguments as above). */
static int lk__rx_match(int kind, const uint32_t *cp, const unsigned short *fl, const unsigned char *x, int pos, int end) {
    uint32_t c = cp[pos];
    int p;
    switch (kind) {
    case LK__RX_GPT2: return lk__rx_gpt2(cp, fl, pos, end);
    case LK__RX_LLAMA3: return lk__rx_llama3(cp, fl, pos, end);
    case LK__RX_QWEN2: return lk__rx_qwen2(x, pos, end);
    case LK__RX_DS3: return lk__rx_deepseek3(x, pos, end);
    case LK__RX_TEKKEN: return lk__rx_tekken(x, pos, end);
    case LK__RX_PUNCT_RUN:
    case LK__RX_PUNCT_RUN_FALCON:
        /* [\p{P}\$\+<=>\^~\|]+   (falcon adds `) */
        for (p = pos; p < end; p++) {
            int xp = x[p];
            if (!(lk__cx_p(xp) || xp == '$' || xp == '+' || xp == '<' || xp == '=' || xp == '>' || xp == '^' ||
                  xp == '~' || xp == '|' || (kind == LK__RX_PUNCT_RUN_FALCON && xp == '`'))) break;
        }
        return p - pos;
    case LK__RX_NUM_RUN:
        for (p = pos; p < end && lk__cx_n(x[p]); p++) {}
        return p - pos;
    case LK__RX_NUM1:
        return lk__cx_n(x[pos]) ? 1 : 0;
    case LK__RX_DIGIT3:
        return pos + 3 <= end && cp[pos] >= '0' && cp[pos] <= '9' && cp[pos + 1] >= '0' && cp[pos + 1] <= '9' &&
               cp[pos + 2] >= '0' && cp[pos + 2] <= '9' ? 3 : 0;
    case LK__RX_CRLF:
        return c == '\r' || c == '\n';
    case LK__RX_SP_LETTERS:
    case LK__RX_SP_PUNCT: {
        /* \s?\p{L}+  /  \s?\p{P}+ */
        int (*cls)(int) = kind == LK__RX_SP_LETTERS ? lk__cx_l : lk__cx_p;
        p = pos;
        if (lk__cx_s(x[pos]) && pos + 1 < end && cls(x[pos + 1])) p = pos + 1;
        else if (!cls(x[pos])) return 0;
        while (p < end && cls(x[p])) p++;
        return p - pos;
    }
    case LK__RX_CJK:
        /* [一-龥ࠀ-一가-퟿]+ : U+0800..U+9FA5, U+AC00..U+D7FF (non-ASCII white space was replaced) */
        for (p = pos; p < end; p++) {
            uint32_t q = cp[p];
            if ((fl[p] & LK__UF_WS) || !((q >= 0x800 && q <= 0x9FA5) || (q >= 0xAC00 && q <= 0xD7FF))) break;
        }
        return p - pos;
    case LK__RX_PORO:
        p = pos;
        if (c == ' ' && pos + 1 < end && lk__poro_neg(cp[pos + 1], fl[pos + 1])) p = pos + 1;
        else if (!lk__poro_neg(c, fl[pos])) return 0;
        while (p < end && lk__poro_neg(cp[p], fl[p])) p++;
        return p - pos;
    case LK__RX_DSL_LETTERS:
    case LK__RX_DSL_PUNCT: {
        /* \s?[class]+ on wide text */
        int (*cls)(uint32_t, int) = kind == LK__RX_DSL_LETTERS ? lk__dsl_letter : lk__dsl_punct;
        p = pos;
        if ((fl[pos] & LK__UF_WS) && pos + 1 < end && cls(cp[pos + 1], fl[pos + 1])) p = pos + 1;
        else if (!cls(c, fl[pos])) return 0;
        while (p < end && cls(cp[p], fl[p])) p++;
        return p - pos;
    }
    case LK__RX_TRAIL_WS:   /* \s+$ */
        for (p = pos; p < end && (fl[p] & LK__UF_WS); p++) {}
        return p > pos && p == end ? p - pos : 0;
    case LK__RX_NUM3:       /* \p{N}{1,3} */
        for (p = pos; p < end && p - pos < 3 && lk__cx_n(x[p]); p++) {}
        return p - pos;
    case LK__RX_CJK_KANA:   /* [一-龥぀-ゟ゠-ヿ]+ */
        for (p = pos; p < end; p++) {
            uint32_t q = cp[p];
            if ((fl[p] & LK__UF_WS) || !((q >= 0x4E00 && q <= 0x9FA5) || (q >= 0x3040 && q <= 0x30FF))) break;
        }
        return p - pos;
    case LK__RX_SENTINEL: { /* <sentinel:[0-9]+> */
        static const char pfx[] = "<sentinel:";
        int k;
        for (k = 0; k < 10; k++) if (pos + k >= end || cp[pos + k] != (uint32_t)pfx[k]) return 0;
        for (p = pos + 10; p < end && cp[p] >= '0' && cp[p] <= '9'; p++) {}
        return p > pos + 10 && p < end && cp[p] == '>' ? p + 1 - pos : 0;
    }
    case LK__RX_IMG: {      /* (IMGIMG)((A|B|C|D|E|F|G|H|I){1,4})Z */
        static const char pfx[] = "IMGIMG";
        int k;
        for (k = 0; k < 6; k++) if (pos + k >= end || cp[pos + k] != (uint32_t)pfx[k]) return 0;
        for (p = pos + 6; p < end && p - pos < 10 && cp[p] >= 'A' && cp[p] <= 'I'; p++) {}
        return p > pos + 6 && p < end && cp[p] == 'Z' ? p + 1 - pos : 0;
    }
    case LK__RX_TABSP: {    /* ([\t\n]|    |  ) */
        int k = 0;
        if (c == '\t' || c == '\n') return 1;
        while (k < 4 && pos + k < end && cp[pos + k] == ' ') k++;
        return k == 4 ? 4 : k >= 2 ? 2 : 0;
    }
    case LK__RX_PUNCT1:     /* [\p{P}!-/:-@\[-`{-~] */
        return lk__cx_p(x[pos]) || lk__cx_apunct(x[pos]) ? 1 : 0;
    default:
        return 0;
    }
}

/* Pre-tokenizer: split m codepoints into words by the passes of `pre`.
 * *seg and *nseg are two scratch arrays of m ints (swapped as passes run);
 * on return (*seg)[0..count) holds the word lengths in codepoints. */
static int lk__pre_split(int pre, const uint32_t *cps, const unsigned short *fl, const unsigned char *x, int m,
                         int **seg, int **nseg) {
    int nsg = 1, pass, si, start;
    (*seg)[0] = m;
    for (pass = 0; pass < 6 && lk__pre_passes[pre][pass]; pass++) {
        int kind = lk__pre_passes[pre][pass], nn = 0, *tmp, *in = *seg, *o = *nseg;
        start = 0;
        for (si = 0; si < nsg; si++) {
            int end = start + in[si], pos = start, gap = start;
            while (pos < end) {
                int l = lk__rx_match(kind, cps, fl, x, pos, end);
                if (l > 0) {
                    if (pos > gap) o[nn++] = pos - gap;
                    o[nn++] = l;
                    pos += l; gap = pos;
                } else pos++;
            }
            if (end > gap) o[nn++] = end - gap;
            start = end;
        }
        tmp = *seg; *seg = *nseg; *nseg = tmp; nsg = nn;
    }
    return nsg;
}

/* ---- the vocabulary ---- */
typedef struct lk__tok { const char *text; int len; float score; int attr; } lk__tok;
typedef struct lk__merge { const char *s; int len; int split; } lk__merge;
#define LK__VOCAB_BLOCKS 12
#define LK__MAX_TOKEN_BYTES (1 << 20)   /* longest token text accepted */
#define LK__VOCAB_MAX_EOG 32

struct lk_vocab {
    lk_allocator alloc;
    lk_vocab_type type;
    int pre;
    char pre_name[64];
    int n_tokens;
    lk__tok *toks;
    uint32_t *hash;               /* open addressing, id + 1, 0 = empty */
    uint32_t hash_mask;
    int n_merges;
    lk__merge *merges;
    uint32_t *mhash;              /* merge index + 1 */
    uint32_t mhash_mask;
    lk_token *special;            /* control/user-defined/unknown ids, longest text first */
    int n_special;
    lk_token eog[LK__VOCAB_MAX_EOG];
    int n_eog;
    lk_token bos, eos, eot, eom, unk, sep, pad, mask, nl;
    lk_token fim_pre, fim_suf, fim_mid, fim_pad, fim_rep, fim_sep;
    int add_bos, add_eos, add_space_prefix, ignore_merges, clean_spaces;
    int max_token_len;
    lk_token spm_byte[256];       /* SPM byte fallback: <0xXX> or the 1-byte token, -1 */
    lk_token one_byte[256];       /* token whose text is that single byte, -1 */
    unsigned char benc[256][2];   /* GPT-2 byte -> unicode, as UTF-8 */
    unsigned char benc_len[256];
    short bdec[0x144];            /* mapped codepoint -> byte, -1 */
    void *blocks[LK__VOCAB_BLOCKS];
    size_t block_size[LK__VOCAB_BLOCKS];
    int n_blocks;
};

static void *lk__vocab_alloc(lk_vocab *v, size_t size) {
    void *p;
    if (v->n_blocks >= LK__VOCAB_BLOCKS) return NULL;
    p = lk__alloc(&v->alloc, size);
    if (!p) return NULL;
    v->blocks[v->n_blocks] = p; v->block_size[v->n_blocks] = size; v->n_blocks++;
    return p;
}

LKDEF lk_token lk_vocab_find(const lk_vocab *v, const char *text, int len) {
    uint32_t i;
    if (!v || len < 0 || (!text && len)) return -1;
    i = (uint32_t)lk__fnv(LK__FNV0, text, (size_t)len) & v->hash_mask;
    for (;; i = (i + 1) & v->hash_mask) {
        uint32_t e = v->hash[i];
        const lk__tok *t;
        if (!e) return -1;
        t = &v->toks[e - 1];
        if (t->len == len && (len == 0 || memcmp(t->text, text, (size_t)len) == 0)) return (lk_token)(e - 1);
    }
}

/* rank of the merge (left, right), or -1 */
static int lk__merge_rank(const lk_vocab *v, const char *l, int ln, const char *r, int rn) {
    uint32_t i;
    uint64_t h;
    if (!v->n_merges) return -1;
    h = lk__fnv(LK__FNV0, l, (size_t)ln);
    h = lk__fnv(h, " ", 1);
    h = lk__fnv(h, r, (size_t)rn);
    for (i = (uint32_t)h & v->mhash_mask;; i = (i + 1) & v->mhash_mask) {
        uint32_t e = v->mhash[i];
        const lk__merge *m;
        if (!e) return -1;
        m = &v->merges[e - 1];
        if (m->split == ln && m->len == ln + 1 + rn && memcmp(m->s, l, (size_t)ln) == 0 &&
            memcmp(m->s + ln + 1, r, (size_t)rn) == 0)
            return (int)(e - 1);
    }
}

LKDEF void lk_vocab_free(lk_vocab *v) {
    int i;
    lk_allocator a;
    if (!v) return;
    a = v->alloc;
    for (i = v->n_blocks - 1; i >= 0; i--) lk__free(&a, v->blocks[i], v->block_size[i]);
    lk__free(&a, v, sizeof *v);
}

static uint32_t lk__rd_u32le(const unsigned char *p) {
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

/* an optional token-id KV: absent or -1 (as i32 or u32) = keep *id;
 * otherwise it must be an integer in range (llama.cpp warns and keeps the
 * default; we refuse the file) */
static lk_status lk__vocab_id_kv(const lk_gguf *g, const char *key, int n, lk_token *id) {
    const lk_gguf_value *val = lk_gguf_get(g, key);
    int64_t x;
    if (!val) return LK_OK;
    if (lk_gguf_get_i64(g, key, &x) != LK_OK)
        return lk_set_error(LK_ERR_TYPE, "lk_vocab_load: %s must be an integer token id, not %s", key,
                            lk_gguf_type_name(val->type));
    if (x == -1 || x == 0xFFFFFFFFll) return LK_OK;   /* "none" (converters write -1 / UINT32_MAX): keep the default */
    if (x < 0 || x >= n)
        return lk_set_error(LK_ERR_RANGE, "lk_vocab_load: %s = %lld is outside the vocabulary [0, %d)", key,
                            (long long)x, n);
    *id = (lk_token)x;
    return LK_OK;
}
static lk_status lk__vocab_bool_kv(const lk_gguf *g, const char *key, int *out) {
    const lk_gguf_value *val = lk_gguf_get(g, key);
    int b = 0;
    if (!val) return LK_OK;
    if (lk_gguf_get_bool(g, key, &b) != LK_OK)
        return lk_set_error(LK_ERR_TYPE, "lk_vocab_load: %s must be a bool, not %s", key, lk_gguf_type_name(val->type));
    *out = b;
    return LK_OK;
}
/* an array KV of element type et (et2 also accepted; -1 = none) and, if n >= 0, n elements */
static lk_status lk__vocab_arr_kv(const lk_gguf *g, const char *key, int et, int et2, int64_t n, const lk_gguf_value **out) {
    const lk_gguf_value *val = lk_gguf_get(g, key);
    *out = NULL;
    if (!val) return LK_OK;
    if (val->type != LK_GGUF_ARRAY || ((int)val->arr_type != et && (int)val->arr_type != et2))
        return lk_set_error(LK_ERR_TYPE, "lk_vocab_load: %s must be an array of %s, not %s%s", key, lk_gguf_type_name((lk_gguf_type)et),
                            val->type == LK_GGUF_ARRAY ? "an array of " : "",
                            lk_gguf_type_name(val->type == LK_GGUF_ARRAY ? val->arr_type : val->type));
    if (n >= 0 && val->n != (uint64_t)n)
        return lk_set_error(LK_ERR_FORMAT, "lk_vocab_load: %s has %llu elements, expected %lld (one per token)", key,
                            (unsigned long long)val->n, (long long)n);
    *out = val;
    return LK_OK;
}

typedef struct lk__sp_item { int len; lk_token id; } lk__sp_item;
static int lk__sp_cmp(const void *a, const void *b) {
    const lk__sp_item *x = LK__CAST(const lk__sp_item *, a), *y = LK__CAST(const lk__sp_item *, b);
    if (x->len != y->len) return x->len > y->len ? -1 : 1;
    return x->id < y->id ? -1 : x->id > y->id;
}

static int lk__str_has(lk_str s, const char *sub) {
    size_t n = strlen(sub), i;
    if (s.len < n) return 0;
    for (i = 0; i + n <= s.len; i++) if (memcmp(s.ptr + i, sub, n) == 0) return 1;
    return 0;
}

static int lk__tokenize_impl(const lk_vocab *v, const char *text, int text_len, lk_token *tokens, int n_max,
                             int add_special, int parse_special);

static const struct { const char *name; int pre; int clean_spaces; int flags; } lk__pre_names[] = {
    /* name, pre-tokenizer, clean_spaces, flags: 1 ignore_merges, 2 add_bos */
    { "default", LK__PRE_DEFAULT, 1, 0 },
    { "llama3", LK__PRE_LLAMA3, 1, 3 }, { "llama-v3", LK__PRE_LLAMA3, 1, 3 },
    { "llama-bpe", LK__PRE_LLAMA3, 1, 3 }, { "falcon3", LK__PRE_LLAMA3, 1, 3 },
    { "dbrx", LK__PRE_LLAMA3, 1, 0 }, { "smaug-bpe", LK__PRE_LLAMA3, 1, 0 },
    { "chatglm-bpe", LK__PRE_LLAMA3, 1, 0 },
    { "deepseek-coder", LK__PRE_DEEPSEEK_CODER, 0, 0 },
    { "falcon", LK__PRE_FALCON, 1, 0 },
    { "mpt", LK__PRE_GPT2, 1, 0 }, { "gpt-2", LK__PRE_GPT2, 1, 0 }, { "phi-2", LK__PRE_GPT2, 1, 0 },
    { "jina-es", LK__PRE_GPT2, 1, 0 }, { "jina-de", LK__PRE_GPT2, 1, 0 }, { "gigachat", LK__PRE_GPT2, 1, 0 },
    { "jina-v1-en", LK__PRE_GPT2, 1, 0 }, { "jina-v2-es", LK__PRE_GPT2, 1, 0 }, { "jina-v2-de", LK__PRE_GPT2, 1, 0 },
    { "jina-v2-code", LK__PRE_GPT2, 1, 0 }, { "roberta-bpe", LK__PRE_GPT2, 1, 0 },
    { "olmo", LK__PRE_GPT2, 1, 0 }, { "jais", LK__PRE_GPT2, 1, 0 },
    { "starcoder", LK__PRE_STARCODER, 1, 0 }, { "refact", LK__PRE_STARCODER, 1, 0 },
    { "command-r", LK__PRE_STARCODER, 0, 0 }, { "smollm", LK__PRE_STARCODER, 0, 0 },
    { "codeshell", LK__PRE_STARCODER, 1, 0 }, { "exaone", LK__PRE_STARCODER, 1, 0 },
    { "minerva-7b", LK__PRE_STARCODER, 1, 0 },
    { "qwen2", LK__PRE_QWEN2, 0, 0 }, { "deepseek-r1-qwen", LK__PRE_QWEN2, 0, 0 },
    { "megrez", LK__PRE_QWEN2, 1, 0 }, { "stablelm2", LK__PRE_QWEN2, 1, 0 },
    { "poro-chat", LK__PRE_PORO, 0, 0 }, { "bloom", LK__PRE_PORO, 1, 0 }, { "gpt3-finnish", LK__PRE_PORO, 1, 0 },
    { "viking", LK__PRE_VIKING, 0, 0 },
    { "deepseek-llm", LK__PRE_DEEPSEEK_LLM, 0, 0 }, { "deepseek-v3", LK__PRE_DEEPSEEK3, 0, 0 },
    { "chameleon", LK__PRE_CHAMELEON, 0, 2 }, { "tekken", LK__PRE_TEKKEN, 0, 3 },
};

static int lk__is_eog_text(const char *t, int n) {
    static const char *const names[] = { "<|eot_id|>", "<|im_end|>", "<|end|>", "<end_of_turn>", "<|endoftext|>",
                                         "<|eom_id|>", "<EOT>" };
    size_t i;
    for (i = 0; i < sizeof names / sizeof names[0]; i++)
        if ((size_t)n == strlen(names[i]) && memcmp(t, names[i], (size_t)n) == 0) return 1;
    return 0;
}
static int lk__text_in(const char *t, int n, const char *const *names) {
    for (; *names; names++)
        if ((size_t)n == strlen(*names) && memcmp(t, *names, (size_t)n) == 0) return 1;
    return 0;
}
static void lk__eog_add(lk_vocab *v, lk_token id) {
    int i;
    if (id < 0) return;
    for (i = 0; i < v->n_eog; i++) if (v->eog[i] == id) return;
    if (v->n_eog < LK__VOCAB_MAX_EOG) v->eog[v->n_eog++] = id;
}

/* ---- lk_vocab_load, one step at a time ---- */
#define LK__VOCAB_OOM() lk_set_error(LK_ERR_NOMEM, "lk_vocab_load: out of memory")

/* model type and per-model defaults (llama.cpp llama_vocab::impl::load);
 * *pre is tokenizer.ggml.pre ("" when absent) */
static lk_status lk__vocab_model(lk_vocab *v, const lk_gguf *g, lk_str *pre) {
    lk_str model;
    int have_pre;
    if (!lk_gguf_get(g, "tokenizer.ggml.model"))
        return lk_set_error(LK_ERR_NOT_FOUND, "lk_vocab_load: tokenizer.ggml.model is absent");
    if (lk_gguf_get_str(g, "tokenizer.ggml.model", &model) != LK_OK)
        return lk_set_error(LK_ERR_TYPE, "lk_vocab_load: tokenizer.ggml.model must be a string");
    have_pre = lk_gguf_get(g, "tokenizer.ggml.pre") != NULL;
    pre->ptr = ""; pre->len = 0;
    if (have_pre && lk_gguf_get_str(g, "tokenizer.ggml.pre", pre) != LK_OK)
        return lk_set_error(LK_ERR_TYPE, "lk_vocab_load: tokenizer.ggml.pre must be a string");
    memcpy(v->pre_name, pre->ptr, pre->len < sizeof v->pre_name ? (size_t)pre->len : sizeof v->pre_name - 1);
    v->eot = v->eom = v->sep = v->pad = v->mask = v->nl = -1;
    v->fim_pre = v->fim_suf = v->fim_mid = v->fim_pad = v->fim_rep = v->fim_sep = -1;
    if (lk_str_eq(model, "llama")) {
        v->type = LK_VOCAB_SPM;
        v->bos = 1; v->eos = 2; v->unk = 0;
        v->add_space_prefix = 1; v->clean_spaces = 0; v->add_bos = 1; v->add_eos = 0;
        v->pre = LK__PRE_DEFAULT;
    } else if (lk_str_eq(model, "bert")) {
        v->type = LK_VOCAB_WPM;
        v->bos = 101; v->eos = -1; v->unk = 100; v->sep = 102; v->pad = 0; v->mask = 103;
        v->add_space_prefix = 0; v->clean_spaces = 1; v->add_bos = 1; v->add_eos = 0;
        v->pre = LK__PRE_DEFAULT;
    } else if (lk_str_eq(model, "gpt2")) {
        size_t k;
        v->type = LK_VOCAB_BPE;
        v->bos = 11; v->eos = 11; v->unk = -1;
        v->add_space_prefix = 0; v->clean_spaces = 1;
        v->pre = LK__PRE_DEFAULT;
        if (have_pre) {
            for (k = 0; k < sizeof lk__pre_names / sizeof lk__pre_names[0]; k++)
                if (lk_str_eq(*pre, lk__pre_names[k].name)) break;
            if (k == sizeof lk__pre_names / sizeof lk__pre_names[0])
                return lk_set_error(LK_ERR_UNSUPPORTED, "lk_vocab_load: unsupported pre-tokenizer tokenizer.ggml.pre = '%.*s'",
                                    (int)(pre->len > 64 ? 64 : pre->len), pre->ptr);
            v->pre = lk__pre_names[k].pre;
            v->clean_spaces = lk__pre_names[k].clean_spaces;
            if (lk__pre_names[k].flags & 1) v->ignore_merges = 1;
            if (lk__pre_names[k].flags & 2) v->add_bos = 1;
            if (lk_str_eq(*pre, "chatglm-bpe")) v->bos = -1;
        }
    } else {
        return lk_set_error(LK_ERR_UNSUPPORTED, "lk_vocab_load: unsupported tokenizer.ggml.model '%.*s' (llama, gpt2 and bert are supported)",
                            (int)(model.len > 64 ? 64 : model.len), model.ptr);
    }
    return lk__vocab_bool_kv(g, "tokenizer.ggml.add_space_prefix", &v->add_space_prefix);
}

/* the array KVs, checked for type and length before anything is built */
typedef struct lk__vocab_arrays { const lk_gguf_value *tokens, *scores, *types, *merges; } lk__vocab_arrays;
static lk_status lk__vocab_get_arrays(const lk_vocab *v, const lk_gguf *g, lk__vocab_arrays *kv) {
    lk_status st;
    int64_t n;
    kv->tokens = kv->scores = kv->types = kv->merges = NULL;
    if ((st = lk__vocab_arr_kv(g, "tokenizer.ggml.tokens", LK_GGUF_STRING, -1, -1, &kv->tokens))) return st;
    if (!kv->tokens) return lk_set_error(LK_ERR_NOT_FOUND, "lk_vocab_load: tokenizer.ggml.tokens is absent");
    if (kv->tokens->n == 0 || kv->tokens->n > 0x7fffffffull / 4)
        return lk_set_error(LK_ERR_FORMAT, "lk_vocab_load: tokenizer.ggml.tokens has %llu entries", (unsigned long long)kv->tokens->n);
    n = (int64_t)kv->tokens->n;
    if ((st = lk__vocab_arr_kv(g, "tokenizer.ggml.scores", LK_GGUF_FLOAT32, -1, n, &kv->scores))) return st;
    if ((st = lk__vocab_arr_kv(g, "tokenizer.ggml.token_type", LK_GGUF_INT32, LK_GGUF_UINT32, n, &kv->types))) return st;
    if (v->type == LK_VOCAB_BPE) {
        if ((st = lk__vocab_arr_kv(g, "tokenizer.ggml.merges", LK_GGUF_STRING, -1, -1, &kv->merges))) return st;
        if (!kv->merges) return lk_set_error(LK_ERR_NOT_FOUND, "lk_vocab_load: tokenizer.ggml.merges is absent (required for gpt2)");
        if (kv->merges->n > 0x7fffffffull / 4)
            return lk_set_error(LK_ERR_FORMAT, "lk_vocab_load: tokenizer.ggml.merges has %llu entries", (unsigned long long)kv->merges->n);
    }
    return LK_OK;
}

/* token_type KV value -> LK_TOKEN_ATTR_* */
static int lk__token_type_attr(int32_t tt) {
    switch (tt) {
    case 1: return LK_TOKEN_ATTR_NORMAL;
    case 2: return LK_TOKEN_ATTR_UNKNOWN;
    case 3: return LK_TOKEN_ATTR_CONTROL;
    case 4: return LK_TOKEN_ATTR_USER_DEFINED;
    case 5: return LK_TOKEN_ATTR_UNUSED;
    case 6: return LK_TOKEN_ATTR_BYTE;
    default: return LK_TOKEN_ATTR_UNDEFINED;
    }
}

/* llama.cpp renames empty tokens "[EMPTY_<id>]"; writes it to dst (room
 * for 24 bytes) and returns its length */
static int lk__empty_token_name(char *dst, int id) {
    char num[16];
    int k = 0, x = id, j;
    do { num[k++] = (char)('0' + x % 10); x /= 10; } while (x);
    memcpy(dst, "[EMPTY_", 7);
    for (j = 0; j < k; j++) dst[7 + j] = num[k - 1 - j];
    dst[7 + k] = ']';
    return 8 + k;
}

/* token texts (copied into one block), scores, attributes and the
 * text -> id hash; duplicate texts are refused */
static lk_status lk__vocab_tokens(lk_vocab *v, const lk__vocab_arrays *kv) {
    const int n = (int)kv->tokens->n;
    size_t blob_size = 0, off = 0;
    uint64_t cap;
    char *blob;
    int i;
    v->n_tokens = n;
    v->toks = LK__CAST(lk__tok *, lk__vocab_alloc(v, sizeof(lk__tok) * (size_t)n));
    for (cap = 16; cap < (uint64_t)n * 2; cap <<= 1) {}
    v->hash = LK__CAST(uint32_t *, lk__vocab_alloc(v, sizeof(uint32_t) * (size_t)cap));
    if (!v->toks || !v->hash) return lk_set_error(LK_ERR_NOMEM, "lk_vocab_load: out of memory for %d tokens", n);
    memset(v->hash, 0, sizeof(uint32_t) * (size_t)cap);
    v->hash_mask = (uint32_t)(cap - 1);
    for (i = 0; i < n; i++) {
        uint64_t l = kv->tokens->v.strs[i].len;
        if (l > LK__MAX_TOKEN_BYTES)
            return lk_set_error(LK_ERR_FORMAT, "lk_vocab_load: token %d is %llu bytes long (limit %d)", i, (unsigned long long)l, LK__MAX_TOKEN_BYTES);
        blob_size += (l ? (size_t)l : 24) + 1;
        if (blob_size > (size_t)0x7fffffff) return lk_set_error(LK_ERR_FORMAT, "lk_vocab_load: token texts exceed 2 GiB");
    }
    blob = LK__CAST(char *, lk__vocab_alloc(v, blob_size));
    if (!blob) return lk_set_error(LK_ERR_NOMEM, "lk_vocab_load: out of memory for token texts");
    for (i = 0; i < n; i++) {
        lk__tok *t = &v->toks[i];
        lk_str s = kv->tokens->v.strs[i];
        uint32_t h;
        t->text = blob + off;
        if (s.len) { memcpy(blob + off, s.ptr, (size_t)s.len); t->len = (int)s.len; }
        else t->len = lk__empty_token_name(blob + off, i);
        blob[off + (size_t)t->len] = 0;
        off += (size_t)t->len + 1;
        if (t->len > v->max_token_len) v->max_token_len = t->len;
        t->score = 0.0f;
        if (kv->scores) {
            uint32_t u = lk__rd_u32le(LK__CAST(const unsigned char *, kv->scores->v.arr) + 4 * (size_t)i);
            memcpy(&t->score, &u, 4);
        }
        t->attr = LK_TOKEN_ATTR_NORMAL;
        if (kv->types) t->attr = lk__token_type_attr((int32_t)lk__rd_u32le(LK__CAST(const unsigned char *, kv->types->v.arr) + 4 * (size_t)i));
        if (lk_vocab_find(v, t->text, t->len) >= 0)
            return lk_set_error(LK_ERR_FORMAT, "lk_vocab_load: token %d duplicates the text of token %d ('%.*s')", i,
                                (int)lk_vocab_find(v, t->text, t->len), t->len > 40 ? 40 : t->len, t->text);
        for (h = (uint32_t)lk__fnv(LK__FNV0, t->text, (size_t)t->len) & v->hash_mask; v->hash[h]; h = (h + 1) & v->hash_mask) {}
        v->hash[h] = (uint32_t)i + 1;
    }
    return LK_OK;
}

/* special ids from KVs: defaults outside the vocab are dropped; KVs must
 * be in range. Read in this order (the prefix/suffix/middle KVs override
 * fim_pre/suf/mid). */
static lk_status lk__vocab_special_ids(lk_vocab *v, const lk_gguf *g) {
    const struct { const char *key; lk_token *id; } ids[] = {
        { "tokenizer.ggml.bos_token_id", &v->bos }, { "tokenizer.ggml.eos_token_id", &v->eos },
        { "tokenizer.ggml.eot_token_id", &v->eot }, { "tokenizer.ggml.eom_token_id", &v->eom },
        { "tokenizer.ggml.unknown_token_id", &v->unk }, { "tokenizer.ggml.seperator_token_id", &v->sep },
        { "tokenizer.ggml.padding_token_id", &v->pad }, { "tokenizer.ggml.mask_token_id", &v->mask },
        { "tokenizer.ggml.fim_pre_token_id", &v->fim_pre }, { "tokenizer.ggml.fim_suf_token_id", &v->fim_suf },
        { "tokenizer.ggml.fim_mid_token_id", &v->fim_mid }, { "tokenizer.ggml.fim_pad_token_id", &v->fim_pad },
        { "tokenizer.ggml.fim_rep_token_id", &v->fim_rep }, { "tokenizer.ggml.fim_sep_token_id", &v->fim_sep },
        { "tokenizer.ggml.prefix_token_id", &v->fim_pre }, { "tokenizer.ggml.suffix_token_id", &v->fim_suf },
        { "tokenizer.ggml.middle_token_id", &v->fim_mid },
    };
    const int n = v->n_tokens;
    size_t k;
    lk_status st;
    if (v->bos >= n) v->bos = -1;
    if (v->eos >= n) v->eos = -1;
    if (v->unk >= n) v->unk = -1;
    if (v->sep >= n) v->sep = -1;
    if (v->pad >= n) v->pad = -1;
    if (v->mask >= n) v->mask = -1;
    for (k = 0; k < sizeof ids / sizeof ids[0]; k++)
        if ((st = lk__vocab_id_kv(g, ids[k].key, n, ids[k].id))) return st;
    if ((st = lk__vocab_bool_kv(g, "tokenizer.ggml.add_bos_token", &v->add_bos))) return st;
    return lk__vocab_bool_kv(g, "tokenizer.ggml.add_eos_token", &v->add_eos);
}

/* eot/eom/fim tokens not set by KVs are found by text (first in id
 * order) and marked control */
static void lk__vocab_find_by_text(lk_vocab *v) {
    static const char *const eot_names[] = { "<|eot_id|>", "<|im_end|>", "<|end|>", "<end_of_turn>", "<|endoftext|>",
                                             "<EOT>", "<\xef\xbd\x9c" "end\xe2\x96\x81" "of\xe2\x96\x81" "sentence\xef\xbd\x9c>", NULL };
    static const char *const eom_names[] = { "<|eom_id|>", NULL };
    static const char *const fpre_names[] = { "<|fim_prefix|>", "<fim-prefix>", "<\xef\xbd\x9c" "fim\xe2\x96\x81" "begin\xef\xbd\x9c>", "<PRE>", NULL };
    static const char *const fsuf_names[] = { "<|fim_suffix|>", "<fim-suffix>", "<\xef\xbd\x9c" "fim\xe2\x96\x81" "hole\xef\xbd\x9c>", "<SUF>", NULL };
    static const char *const fmid_names[] = { "<|fim_middle|>", "<fim-middle>", "<\xef\xbd\x9c" "fim\xe2\x96\x81" "end\xef\xbd\x9c>", "<MID>", NULL };
    static const char *const fpad_names[] = { "<|fim_pad|>", "<fim-pad>", "<PAD>", NULL };
    static const char *const frep_names[] = { "<|fim_repo|>", "<|repo_name|>", "<fim-repo>", "<REPO>", NULL };
    static const char *const fsep_names[] = { "<|file_sep|>", NULL };
    static const char *const *const names[8] = { eot_names, eom_names, fpre_names, fsuf_names, fmid_names, fpad_names,
                                                 frep_names, fsep_names };
    lk_token *const ids[8] = { &v->eot, &v->eom, &v->fim_pre, &v->fim_suf, &v->fim_mid, &v->fim_pad, &v->fim_rep, &v->fim_sep };
    int i, k;
    for (i = 0; i < v->n_tokens; i++) {
        lk__tok *t = &v->toks[i];
        int hit = 0;
        for (k = 0; k < 8; k++)
            if (*ids[k] < 0 && lk__text_in(t->text, t->len, names[k])) { *ids[k] = i; hit = 1; }
        if (hit) t->attr |= LK_TOKEN_ATTR_CONTROL;
    }
}

/* the end-of-generation set: fim pad/rep/sep, tokens with an
 * end-of-generation text (marked control), eos, eot, eom */
static void lk__vocab_eog_set(lk_vocab *v) {
    int i;
    lk__eog_add(v, v->fim_pad); lk__eog_add(v, v->fim_rep); lk__eog_add(v, v->fim_sep);
    for (i = 0; i < v->n_tokens; i++)
        if (lk__is_eog_text(v->toks[i].text, v->toks[i].len)) { lk__eog_add(v, i); v->toks[i].attr |= LK_TOKEN_ATTR_CONTROL; }
    lk__eog_add(v, v->eos); lk__eog_add(v, v->eot); lk__eog_add(v, v->eom);
}

/* control, user-defined and unknown tokens, longest text first: the
 * texts lk_tokenize partitions out before tokenizing */
static lk_status lk__vocab_special_list(lk_vocab *v) {
    const int mask = LK_TOKEN_ATTR_CONTROL | LK_TOKEN_ATTR_USER_DEFINED | LK_TOKEN_ATTR_UNKNOWN;
    int ns = 0, i, k;
    size_t isz;
    lk__sp_item *items;
    for (i = 0; i < v->n_tokens; i++)
        if (v->toks[i].attr & mask) ns++;
    isz = sizeof(lk__sp_item) * (size_t)(ns ? ns : 1);
    v->special = LK__CAST(lk_token *, lk__vocab_alloc(v, sizeof(lk_token) * (size_t)(ns ? ns : 1)));
    items = LK__CAST(lk__sp_item *, lk__alloc(&v->alloc, isz));
    if (!v->special || !items) { lk__free(&v->alloc, items, isz); return LK__VOCAB_OOM(); }
    for (i = 0, k = 0; i < v->n_tokens; i++)
        if (v->toks[i].attr & mask) { items[k].len = v->toks[i].len; items[k].id = i; k++; }
    qsort(items, (size_t)ns, sizeof *items, lk__sp_cmp);
    for (k = 0; k < ns; k++) v->special[k] = items[k].id;
    v->n_special = ns;
    lk__free(&v->alloc, items, isz);
    return LK_OK;
}

/* per-model token attributes llama.cpp sets by name: jina-v2 <mask>
 * lstrip; phi-3 (general.name) rstrip on the special tokens */
static void lk__vocab_attr_fixups(lk_vocab *v, const lk_gguf *g, lk_str pre) {
    lk_str gname;
    if (lk__str_has(pre, "jina-v2-de") || lk__str_has(pre, "jina-v2-es") || lk__str_has(pre, "jina-v2-code")) {
        lk_token id = lk_vocab_find(v, "<mask>", 6);
        if (id >= 0) v->toks[id].attr |= LK_TOKEN_ATTR_LSTRIP;
    } else if (lk_gguf_get_str(g, "general.name", &gname) == LK_OK) {
        char low[256];
        lk_str ls;
        size_t k, ln = gname.len < sizeof low ? (size_t)gname.len : sizeof low;
        lk_token id;
        int i;
        for (k = 0; k < ln; k++) {
            char ch = gname.ptr[k];
            low[k] = (char)(ch >= 'A' && ch <= 'Z' ? ch + 32 : ch);
        }
        ls.ptr = low; ls.len = ln;
        if (!lk__str_has(ls, "phi-3") && !lk__str_has(ls, "phi3")) return;
        for (i = 0; i < v->n_special; i++) v->toks[v->special[i]].attr |= LK_TOKEN_ATTR_RSTRIP;
        if ((id = lk_vocab_find(v, "</s>", 4)) >= 0) v->toks[id].attr |= LK_TOKEN_ATTR_RSTRIP;
        if ((id = lk_vocab_find(v, "<unk>", 5)) >= 0) v->toks[id].attr &= ~LK_TOKEN_ATTR_RSTRIP;
        if ((id = lk_vocab_find(v, "<s>", 3)) >= 0) v->toks[id].attr &= ~LK_TOKEN_ATTR_RSTRIP;
        if ((id = lk_vocab_find(v, "<|endoftext|>", 13)) >= 0) v->toks[id].attr &= ~LK_TOKEN_ATTR_RSTRIP;
    }
}

/* byte tables: SPM byte fallback (<0xXX>, else the 1-byte token), the
 * 1-byte tokens, and GPT-2's byte <-> unicode mapping */
static void lk__vocab_byte_tables(lk_vocab *v) {
    static const char hex[] = "0123456789ABCDEF";
    int b, k = 0;
    for (b = 0; b < 0x144; b++) v->bdec[b] = -1;
    for (b = 0; b < 256; b++) {
        char buf[6];
        unsigned char c1 = (unsigned char)b;
        uint32_t mcp;
        buf[0] = '<'; buf[1] = '0'; buf[2] = 'x'; buf[3] = hex[b >> 4]; buf[4] = hex[b & 15]; buf[5] = '>';
        v->one_byte[b] = lk_vocab_find(v, (const char *)&c1, 1);
        v->spm_byte[b] = lk_vocab_find(v, buf, 6);
        if (v->spm_byte[b] < 0) v->spm_byte[b] = v->one_byte[b];
        /* GPT-2 bytes_to_unicode: printable Latin-1 maps to itself, the
         * other 68 bytes to U+0100.. in byte order */
        if ((b >= 0x21 && b <= 0x7E) || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF)) mcp = (uint32_t)b;
        else mcp = 256u + (uint32_t)k++;
        v->benc_len[b] = (unsigned char)lk__utf8_put(mcp, v->benc[b]);
        v->bdec[mcp] = (short)b;
    }
}

/* merges: "left right" split at the first space after position 0; the
 * first occurrence of a pair keeps its rank */
static lk_status lk__vocab_merges(lk_vocab *v, const lk_gguf_value *merges_v) {
    uint64_t mcap;
    size_t mblob = 0, off = 0;
    char *mb;
    int nm, i;
    if (!merges_v || !merges_v->n) return LK_OK;
    nm = (int)merges_v->n;
    for (i = 0; i < nm; i++) {
        if (merges_v->v.strs[i].len > 2 * LK__MAX_TOKEN_BYTES + 1)
            return lk_set_error(LK_ERR_FORMAT, "lk_vocab_load: merge %d is %llu bytes long", i, (unsigned long long)merges_v->v.strs[i].len);
        mblob += (size_t)merges_v->v.strs[i].len + 1;
        if (mblob > (size_t)0x7fffffff) return lk_set_error(LK_ERR_FORMAT, "lk_vocab_load: merges exceed 2 GiB");
    }
    for (mcap = 16; mcap < (uint64_t)nm * 2; mcap <<= 1) {}
    v->merges = LK__CAST(lk__merge *, lk__vocab_alloc(v, sizeof(lk__merge) * (size_t)nm));
    v->mhash = LK__CAST(uint32_t *, lk__vocab_alloc(v, sizeof(uint32_t) * (size_t)mcap));
    mb = LK__CAST(char *, lk__vocab_alloc(v, mblob ? mblob : 1));
    if (!v->merges || !v->mhash || !mb) return lk_set_error(LK_ERR_NOMEM, "lk_vocab_load: out of memory for %d merges", nm);
    memset(v->mhash, 0, sizeof(uint32_t) * (size_t)mcap);
    v->mhash_mask = (uint32_t)(mcap - 1);
    v->n_merges = nm;
    for (i = 0; i < nm; i++) {
        lk_str s = merges_v->v.strs[i];
        lk__merge *m = &v->merges[i];
        int sp = -1, k;
        uint32_t h;
        memcpy(mb + off, s.ptr, (size_t)s.len);
        mb[off + (size_t)s.len] = 0;
        m->s = mb + off; m->len = (int)s.len;
        off += (size_t)s.len + 1;
        for (k = 1; k < m->len; k++) if (m->s[k] == ' ') { sp = k; break; }
        m->split = sp;
        if (sp < 0) continue;   /* no pair: llama.cpp stores ("", "") which never matches */
        if (lk__merge_rank(v, m->s, sp, m->s + sp + 1, m->len - sp - 1) >= 0) continue;
        for (h = (uint32_t)lk__fnv(LK__FNV0, m->s, (size_t)m->len) & v->mhash_mask; v->mhash[h]; h = (h + 1) & v->mhash_mask) {}
        v->mhash[h] = (uint32_t)i + 1;
    }
    return LK_OK;
}

/* the newline token: SPM <0x0A> (or the "\n" token), BPE whatever "\n"
 * tokenizes to; otherwise the padding token */
static void lk__vocab_newline(lk_vocab *v) {
    if (v->type == LK_VOCAB_SPM) v->nl = v->spm_byte[10] >= 0 ? v->spm_byte[10] : v->pad;
    else if (v->type == LK_VOCAB_WPM) v->nl = v->pad;
    else {
        lk_token t1[8];
        int k = lk__tokenize_impl(v, "\n", 1, t1, 8, 0, 0);
        v->nl = k > 0 ? t1[0] : v->pad;
    }
}

LKDEF lk_vocab_params lk_vocab_default_params(void) { lk_vocab_params p; p.alloc = NULL; return p; }
LKDEF lk_status lk_vocab_load(const lk_gguf *g, const lk_vocab_params *p, lk_vocab **out) {
    lk_allocator a;
    lk_vocab *v;
    lk_status st;
    lk_str pre;
    lk__vocab_arrays kv;
    if (!out) return lk_set_error(LK_ERR_INVALID_ARG, "lk_vocab_load: out is NULL");
    *out = NULL;
    if (!g) return lk_set_error(LK_ERR_INVALID_ARG, "lk_vocab_load: gguf is NULL");
    a = lk__resolve_alloc(p ? p->alloc : NULL);
    v = LK__CAST(lk_vocab *, a.alloc(a.user, sizeof(lk_vocab), 64));
    if (!v) return LK__VOCAB_OOM();
    memset(v, 0, sizeof *v);
    v->alloc = a;
#define LK__VCHECK(expr) do { if ((st = (expr)) != LK_OK) goto fail; } while (0)
    LK__VCHECK(lk__vocab_model(v, g, &pre));
    LK__VCHECK(lk__vocab_get_arrays(v, g, &kv));
    LK__VCHECK(lk__vocab_tokens(v, &kv));
    LK__VCHECK(lk__vocab_special_ids(v, g));
    lk__vocab_find_by_text(v);
    lk__vocab_eog_set(v);
    LK__VCHECK(lk__vocab_special_list(v));
    lk__vocab_attr_fixups(v, g, pre);
    lk__vocab_byte_tables(v);
    LK__VCHECK(lk__vocab_merges(v, kv.merges));
    lk__vocab_newline(v);
#undef LK__VCHECK
    *out = v;
    return LK_OK;
fail:
    lk_vocab_free(v);
    return st;
}
#undef LK__VOCAB_OOM

LKDEF lk_vocab_type lk_vocab_get_type(const lk_vocab *v) { return v ? v->type : (lk_vocab_type)0; }
LKDEF const char *lk_vocab_pre(const lk_vocab *v) { return v ? v->pre_name : ""; }
LKDEF int lk_vocab_n_tokens(const lk_vocab *v) { return v ? v->n_tokens : 0; }
LKDEF lk_token lk_vocab_bos(const lk_vocab *v) { return v ? v->bos : -1; }
LKDEF lk_token lk_vocab_eos(const lk_vocab *v) { return v ? v->eos : -1; }
LKDEF lk_token lk_vocab_eot(const lk_vocab *v) { return v ? v->eot : -1; }
LKDEF lk_token lk_vocab_eom(const lk_vocab *v) { return v ? v->eom : -1; }
LKDEF lk_token lk_vocab_unk(const lk_vocab *v) { return v ? v->unk : -1; }
LKDEF lk_token lk_vocab_sep(const lk_vocab *v) { return v ? v->sep : -1; }
LKDEF lk_token lk_vocab_pad(const lk_vocab *v) { return v ? v->pad : -1; }
LKDEF lk_token lk_vocab_mask(const lk_vocab *v) { return v ? v->mask : -1; }
LKDEF lk_token lk_vocab_nl(const lk_vocab *v) { return v ? v->nl : -1; }
LKDEF int lk_vocab_add_bos(const lk_vocab *v) { return v ? v->add_bos : 0; }
LKDEF int lk_vocab_add_eos(const lk_vocab *v) { return v ? v->add_eos : 0; }
LKDEF const char *lk_vocab_token_text(const lk_vocab *v, lk_token id) {
    return v && id >= 0 && id < v->n_tokens ? v->toks[id].text : NULL;
}
LKDEF float lk_vocab_token_score(const lk_vocab *v, lk_token id) {
    return v && id >= 0 && id < v->n_tokens ? v->toks[id].score : 0.0f;
}
LKDEF int lk_vocab_token_attr(const lk_vocab *v, lk_token id) {
    return v && id >= 0 && id < v->n_tokens ? v->toks[id].attr : 0;
}
LKDEF int lk_vocab_is_eog(const lk_vocab *v, lk_token id) {
    int i;
    if (!v || id < 0) return 0;
    for (i = 0; i < v->n_eog; i++) if (v->eog[i] == id) return 1;
    return 0;
}
LKDEF int lk_vocab_is_control(const lk_vocab *v, lk_token id) {
    return (lk_vocab_token_attr(v, id) & LK_TOKEN_ATTR_CONTROL) != 0;
}

/* ---- tokenization ---- */
typedef struct lk__sbuf { void *p; size_t cap; } lk__sbuf;
typedef struct lk__frag { int off, len; lk_token tok; } lk__frag;   /* tok < 0: raw text */
typedef struct lk__sym { int off, n, prev, next; } lk__sym;
typedef struct lk__bigram { double key; int left, right, lsz, rsz; } lk__bigram;
enum { LK__B_FRAG0, LK__B_FRAG1, LK__B_TEXT, LK__B_SYM, LK__B_HEAP, LK__B_CP, LK__B_FL, LK__B_X, LK__B_SEG0,
       LK__B_SEG1, LK__B_WORD, LK__B_COUNT };

typedef struct lk__tk {
    const lk_vocab *v;
    lk_token *out;
    int n_max;
    long long n;
    int oom;
    lk__sbuf b[LK__B_COUNT];
} lk__tk;

/* scratch of at least n elements of size elem (contents not kept on growth) */
static void *lk__tk_buf(lk__tk *t, int which, size_t n, size_t elem) {
    lk__sbuf *b = &t->b[which];
    size_t need;
    if (t->oom) return NULL;
    if (n == 0) n = 1;
    if (n > SIZE_MAX / elem) { t->oom = 1; return NULL; }
    need = n * elem;
    if (need <= b->cap) return b->p;
    if (b->p) lk__free(&t->v->alloc, b->p, b->cap);
    if (need < SIZE_MAX / 2 && need < 2 * b->cap) need = 2 * b->cap;
    b->p = lk__alloc(&t->v->alloc, need);
    b->cap = b->p ? need : 0;
    if (!b->p) t->oom = 1;
    return b->p;
}
static void lk__tk_emit(lk__tk *t, lk_token id) {
    if (t->n < t->n_max) t->out[t->n] = id;
    t->n++;
}

/* max-heap of bigrams: larger key first, then smaller left */
static int lk__bg_before(const lk__bigram *a, const lk__bigram *b) {
    return a->key > b->key || (a->key == b->key && a->left < b->left);
}
static void lk__heap_push(lk__bigram *h, int *n, lk__bigram e) {
    int i = (*n)++;
    while (i > 0) {
        int p = (i - 1) / 2;
        if (!lk__bg_before(&e, &h[p])) break;
        h[i] = h[p]; i = p;
    }
    h[i] = e;
}
static lk__bigram lk__heap_pop(lk__bigram *h, int *n) {
    lk__bigram top = h[0], e = h[--(*n)];
    int i = 0;
    for (;;) {
        int c = 2 * i + 1;
        if (c >= *n) break;
        if (c + 1 < *n && lk__bg_before(&h[c + 1], &h[c])) c++;
        if (!lk__bg_before(&h[c], &e)) break;
        h[i] = h[c]; i = c;
    }
    if (*n > 0) h[i] = e;
    return top;
}

/* Split s[0..len) into symbols of one UTF-8 sequence each (length from the
 * lead byte, cut at the end) and merge adjacent pairs. SPM: the pair must
 * be a token, best score first. BPE: the pair must be a merge, lowest rank
 * first. Returns the number of symbols (chain starts at 0), -1 on OOM. */
static int lk__merge_symbols(lk__tk *t, const char *s, int len, int bpe) {
    const lk_vocab *v = t->v;
    lk__sym *sym;
    lk__bigram *heap;
    int nsym = 0, nh = 0, off = 0, i;
    sym = LK__CAST(lk__sym *, lk__tk_buf(t, LK__B_SYM, (size_t)len, sizeof(lk__sym)));
    heap = LK__CAST(lk__bigram *, lk__tk_buf(t, LK__B_HEAP, 3 * (size_t)len + 1, sizeof(lk__bigram)));
    if (!sym || !heap) return -1;
    while (off < len) {
        int l = lk__utf8_len((unsigned char)s[off]);
        if (l > len - off) l = len - off;
        sym[nsym].off = off; sym[nsym].n = l;
        sym[nsym].prev = nsym - 1;
        off += l;
        sym[nsym].next = off == len ? -1 : nsym + 1;
        nsym++;
    }
#define LK__TRY_PAIR(L, R) do { \
        int l_ = (L), r_ = (R); \
        if (l_ >= 0 && r_ >= 0) { \
            lk__bigram b_; \
            if (bpe) { \
                int rk_ = lk__merge_rank(v, s + sym[l_].off, sym[l_].n, s + sym[r_].off, sym[r_].n); \
                if (rk_ >= 0) { b_.key = -(double)rk_; b_.left = l_; b_.right = r_; b_.lsz = sym[l_].n; b_.rsz = sym[r_].n; lk__heap_push(heap, &nh, b_); } \
            } else { \
                lk_token id_ = lk_vocab_find(v, s + sym[l_].off, sym[l_].n + sym[r_].n); \
                if (id_ >= 0) { b_.key = (double)v->toks[id_].score; b_.left = l_; b_.right = r_; b_.lsz = sym[l_].n; b_.rsz = sym[r_].n; lk__heap_push(heap, &nh, b_); } \
            } \
        } \
    } while (0)
    for (i = 1; i < nsym; i++) LK__TRY_PAIR(i - 1, i);
    while (nh > 0) {
        lk__bigram b = lk__heap_pop(heap, &nh);
        lk__sym *ls = &sym[b.left], *rs = &sym[b.right];
        /* stale if either side changed since the pair was queued */
        if (ls->n == 0 || rs->n == 0 || ls->n != b.lsz || rs->n != b.rsz) continue;
        ls->n += rs->n;
        rs->n = 0;
        ls->next = rs->next;
        if (rs->next >= 0) sym[rs->next].prev = b.left;
        LK__TRY_PAIR(ls->prev, b.left);
        LK__TRY_PAIR(b.left, sym[b.left].next);
    }
#undef LK__TRY_PAIR
    return nsym;
}
/* Merge s[0..len) (lk__merge_symbols) and emit each symbol's token; a
 * symbol that is no token goes byte by byte through byte_tok, a byte
 * without one as unk (nothing when unk < 0). Returns the symbol count,
 * <= 0 when nothing was merged (empty text, or out of memory). */
static int lk__tk_emit_merged(lk__tk *t, const char *s, int len, int bpe, const lk_token *byte_tok, lk_token unk) {
    const lk__sym *sym;
    int i, nsym = lk__merge_symbols(t, s, len, bpe);
    if (nsym <= 0) return nsym;
    sym = LK__CAST(const lk__sym *, t->b[LK__B_SYM].p);
    for (i = 0; i != -1; i = sym[i].next) {
        lk_token id = lk_vocab_find(t->v, s + sym[i].off, sym[i].n), b;
        int j;
        if (id >= 0) { lk__tk_emit(t, id); continue; }
        for (j = 0; j < sym[i].n; j++) {   /* byte fallback */
            b = byte_tok[(unsigned char)s[sym[i].off + j]];
            if (b < 0) b = unk;
            if (b >= 0) lk__tk_emit(t, b);
        }
    }
    return nsym;
}

/* SPM on one raw fragment (llm_tokenizer_spm_session) */
static void lk__spm_fragment(lk__tk *t, const char *s, int len, int prefix) {
    const lk_vocab *v = t->v;
    size_t elen = 0;
    int i;
    char *e;
    for (i = 0; i < len; i++) elen += s[i] == ' ' ? 3 : 1;
    if (prefix) elen += 3;
    e = LK__CAST(char *, lk__tk_buf(t, LK__B_TEXT, elen, 1));
    if (!e) return;
    elen = 0;
    if (prefix) { e[0] = '\xe2'; e[1] = '\x96'; e[2] = '\x81'; elen = 3; }
    for (i = 0; i < len; i++) {
        if (s[i] == ' ') { e[elen++] = '\xe2'; e[elen++] = '\x96'; e[elen++] = '\x81'; }
        else e[elen++] = s[i];
    }
    if (elen == 0) return;
    lk__tk_emit_merged(t, e, (int)elen, 0, v->spm_byte, v->unk);   /* a byte without a token: unk (llama.cpp throws) */
}

/* decode text to codepoints with flags and collapsed classes; returns count or -1 */
static int lk__decode_cps(lk__tk *t, const char *s, int len, uint32_t **cps, unsigned short **fls, unsigned char **xs) {
    size_t off = 0;
    int m = 0;
    *cps = LK__CAST(uint32_t *, lk__tk_buf(t, LK__B_CP, (size_t)len, sizeof(uint32_t)));
    *fls = LK__CAST(unsigned short *, lk__tk_buf(t, LK__B_FL, (size_t)len, sizeof(unsigned short)));
    *xs = LK__CAST(unsigned char *, lk__tk_buf(t, LK__B_X, (size_t)len, 1));
    if (!*cps || !*fls || !*xs) return -1;
    while (off < (size_t)len) {
        uint32_t c = lk__utf8_next(LK__CAST(const unsigned char *, s), (size_t)len, &off);
        int f = lk__uflags(c);
        (*cps)[m] = c; (*fls)[m] = (unsigned short)f; (*xs)[m] = lk__collapse(c, f);
        m++;
    }
    return m;
}

/* BPE on one raw fragment (unicode_regex_split + llm_tokenizer_bpe_session) */
static void lk__bpe_fragment(lk__tk *t, const char *s, int len) {
    const lk_vocab *v = t->v;
    uint32_t *cps;
    unsigned short *fl;
    unsigned char *x;
    int *seg, *nseg, nsg, m, si, start;
    m = lk__decode_cps(t, s, len, &cps, &fl, &x);
    if (m <= 0) return;
    seg = LK__CAST(int *, lk__tk_buf(t, LK__B_SEG0, (size_t)m, sizeof(int)));
    nseg = LK__CAST(int *, lk__tk_buf(t, LK__B_SEG1, (size_t)m, sizeof(int)));
    if (!seg || !nseg) return;
    nsg = lk__pre_split(v->pre, cps, fl, x, m, &seg, &nseg);
    start = 0;
    for (si = 0; si < nsg; si++) {
        /* the word as UTF-8, then each byte through the GPT-2 byte mapping */
        int wl = 0, k;
        char *w = LK__CAST(char *, lk__tk_buf(t, LK__B_WORD, 8 * (size_t)seg[si], 1));
        if (!w) return;
        for (k = start; k < start + seg[si]; k++) {
            unsigned char u[4];
            int ul = lk__utf8_put(cps[k], u), j;
            for (j = 0; j < ul; j++) {
                memcpy(w + wl, v->benc[u[j]], v->benc_len[u[j]]);
                wl += v->benc_len[u[j]];
            }
        }
        start += seg[si];
        if (v->ignore_merges) {
            lk_token id = lk_vocab_find(v, w, wl);
            if (id >= 0) { lk__tk_emit(t, id); continue; }
        }
        if (lk__tk_emit_merged(t, w, wl, 1, v->one_byte, -1) <= 0) return;
    }
}

static int lk__wpm_chinese(uint32_t c) {
    return (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF) || (c >= 0x20000 && c <= 0x2A6DF) ||
           (c >= 0x2A700 && c <= 0x2B73F) || (c >= 0x2B740 && c <= 0x2B81F) || (c >= 0x2B920 && c <= 0x2CEAF) ||
           (c >= 0xF900 && c <= 0xFAFF) || (c >= 0x2F800 && c <= 0x2FA1F);
}
/* one WPM word (w[0..3) = U+2581, then the word): greedy longest match */
static void lk__wpm_word(lk__tk *t, const char *w, int n) {
    const lk_vocab *v = t->v;
    long long start = t->n;
    int i;
    if (n <= 3) return;   /* empty word */
    for (i = 0; i < n; i++) {
        int j = n < i + v->max_token_len + 1 ? n : i + v->max_token_len + 1, found = 0;
        for (; j > i; j--) {
            lk_token id = lk_vocab_find(v, w + i, j - i);
            if (id >= 0) { lk__tk_emit(t, id); found = 1; i = j - 1; break; }
        }
        if (!found) { t->n = start; break; }
    }
    if (t->n == start && v->unk >= 0) lk__tk_emit(t, v->unk);
}
/* WPM on one raw fragment (llm_tokenizer_wpm_session) */
static void lk__wpm_fragment(lk__tk *t, const char *s, int len) {
    uint32_t *cps;
    unsigned short *fl;
    unsigned char *x;
    char *w;
    int m, i, wl = 3;
    m = lk__decode_cps(t, s, len, &cps, &fl, &x);
    if (m <= 0) return;
    w = LK__CAST(char *, lk__tk_buf(t, LK__B_WORD, 4 * (size_t)m + 8, 1));
    if (!w) return;
    w[0] = '\xe2'; w[1] = '\x96'; w[2] = '\x81';
    for (i = 0; i < m; i++) {
        uint32_t c = lk__unfd_cp(cps[i]);
        int f = lk__uflags(c);
        unsigned char u[4];
        int ul;
        if (f & LK__UF_WS) { lk__wpm_word(t, w, wl); wl = 3; continue; }
        if (c == 0 || c == 0xFFFD || (f & LK__UF_C)) continue;
        ul = lk__utf8_put(lk__ulower_cp(c), u);
        if ((f & LK__UF_P) || (c < 0x7F && (f & LK__UF_S)) || lk__wpm_chinese(c)) {
            char one[7];
            lk__wpm_word(t, w, wl); wl = 3;
            memcpy(one, w, 3); memcpy(one + 3, u, (size_t)ul);
            lk__wpm_word(t, one, 3 + ul);
        } else {
            memcpy(w + wl, u, (size_t)ul); wl += ul;
        }
    }
    lk__wpm_word(t, w, wl);
}

static int lk__is_space_c(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'; }

static int lk__tokenize_impl(const lk_vocab *v, const char *text, int text_len, lk_token *tokens, int n_max,
                             int add_special, int parse_special) {
    lk__tk t;
    lk__frag *fr, *nf;
    int nfr = 0, k, i, prev_special = 1, result;
    memset(&t, 0, sizeof t);
    t.v = v; t.out = tokens; t.n_max = n_max;
    fr = LK__CAST(lk__frag *, lk__tk_buf(&t, LK__B_FRAG0, 2 * (size_t)text_len + 2, sizeof(lk__frag)));
    nf = LK__CAST(lk__frag *, lk__tk_buf(&t, LK__B_FRAG1, 2 * (size_t)text_len + 2, sizeof(lk__frag)));
    if (fr && text_len > 0) { fr[0].off = 0; fr[0].len = text_len; fr[0].tok = -1; nfr = 1; }
    /* split special-token texts out of the raw text (tokenizer_st_partition) */
    for (k = 0; fr && nf && nfr && k < v->n_special; k++) {
        const lk__tok *st = &v->toks[v->special[k]];
        int nn = 0;
        lk__frag *tmp;
        if (!parse_special && (st->attr & (LK_TOKEN_ATTR_CONTROL | LK_TOKEN_ATTR_UNKNOWN))) continue;
        for (i = 0; i < nfr; i++) {
            int cur = fr[i].off, rem = fr[i].len;
            if (fr[i].tok >= 0 || rem < st->len) { nf[nn++] = fr[i]; continue; }
            for (;;) {
                int p, match = -1;
                for (p = cur; p + st->len <= cur + rem; p++) {
                    const char *q = LK__CAST(const char *, memchr(text + p, st->text[0], (size_t)(cur + rem - st->len - p + 1)));
                    if (!q) break;
                    p = (int)(q - text);
                    if (memcmp(text + p, st->text, (size_t)st->len) == 0) { match = p; break; }
                }
                if (match < 0) {
                    if (rem > 0) { nf[nn].off = cur; nf[nn].len = rem; nf[nn].tok = -1; nn++; }
                    break;
                }
                if (match > cur) {
                    int ll = match - cur;
                    if (st->attr & LK_TOKEN_ATTR_LSTRIP) while (ll > 0 && lk__is_space_c(text[cur + ll - 1])) ll--;
                    if (ll > 0) { nf[nn].off = cur; nf[nn].len = ll; nf[nn].tok = -1; nn++; }
                }
                nf[nn].off = match; nf[nn].len = st->len; nf[nn].tok = v->special[k]; nn++;
                rem = cur + rem - (match + st->len);
                cur = match + st->len;
                if (rem <= 0) break;
                if (st->attr & LK_TOKEN_ATTR_RSTRIP) while (rem > 0 && lk__is_space_c(text[cur])) { cur++; rem--; }
            }
        }
        tmp = fr; fr = nf; nf = tmp; nfr = nn;
    }
    if (add_special) {
        if (v->type == LK_VOCAB_WPM) { if (v->bos >= 0) lk__tk_emit(&t, v->bos); }
        else if (v->add_bos && v->bos >= 0) lk__tk_emit(&t, v->bos);
    }
    for (i = 0; i < nfr && !t.oom; i++) {
        if (fr[i].tok >= 0) { lk__tk_emit(&t, fr[i].tok); prev_special = 1; continue; }
        switch (v->type) {
        case LK_VOCAB_SPM: lk__spm_fragment(&t, text + fr[i].off, fr[i].len, v->add_space_prefix && prev_special); break;
        case LK_VOCAB_BPE: lk__bpe_fragment(&t, text + fr[i].off, fr[i].len); break;
        case LK_VOCAB_WPM: lk__wpm_fragment(&t, text + fr[i].off, fr[i].len); break;
        default: break;
        }
        prev_special = 0;
    }
    if (add_special) {
        if (v->type == LK_VOCAB_WPM) { if (v->sep >= 0) lk__tk_emit(&t, v->sep); }
        else if (v->add_eos && v->eos >= 0) lk__tk_emit(&t, v->eos);
    }
    for (k = 0; k < LK__B_COUNT; k++) lk__free(&v->alloc, t.b[k].p, t.b[k].cap);
    if (t.oom) { lk_set_error(LK_ERR_NOMEM, "lk_tokenize: out of scratch memory"); return LK_TOKENIZE_ERROR; }
    if (t.n > 0x7fffffffll) { lk_set_error(LK_ERR_RANGE, "lk_tokenize: too many tokens"); return LK_TOKENIZE_ERROR; }
    result = (int)t.n;
    return result > n_max ? -result : result;
}

LKDEF int lk_tokenize(const lk_vocab *v, const char *text, int text_len, lk_token *tokens, int n_max,
                      int add_special, int parse_special) {
    if (!v) { lk_set_error(LK_ERR_INVALID_ARG, "lk_tokenize: vocab is NULL"); return LK_TOKENIZE_ERROR; }
    if (text_len < 0 || (!text && text_len > 0)) {
        lk_set_error(LK_ERR_INVALID_ARG, "lk_tokenize: bad text (len %d)", text_len);
        return LK_TOKENIZE_ERROR;
    }
    if (text_len > 0x7fffffff / 8) {
        lk_set_error(LK_ERR_RANGE, "lk_tokenize: text of %d bytes is too long (limit %d)", text_len, 0x7fffffff / 8);
        return LK_TOKENIZE_ERROR;
    }
    if (n_max < 0 || (!tokens && n_max > 0)) {
        lk_set_error(LK_ERR_INVALID_ARG, "lk_tokenize: bad output buffer (n_max %d)", n_max);
        return LK_TOKENIZE_ERROR;
    }
    return lk__tokenize_impl(v, text, text_len, tokens, n_max, add_special, parse_special);
}

/* ---- pieces ---- */
typedef struct lk__pw { char *buf; int cap; long long n; int skip; } lk__pw;
static void lk__pw_put(lk__pw *w, const char *s, int n) {
    int i = 0;
    while (w->n == 0 && w->skip > 0 && i < n && s[i] == ' ') { w->skip--; i++; }   /* lstrip */
    if (!w->buf || w->n + (n - i) > w->cap) { w->n += n - i; return; }              /* count only */
    memcpy(w->buf + w->n, s + i, (size_t)(n - i));
    w->n += n - i;
}
static void lk__piece(const lk_vocab *v, lk_token token, int special, lk__pw *w) {
    const lk__tok *t = &v->toks[token];
    int attr = t->attr, i;
    if (!special && (attr & (LK_TOKEN_ATTR_UNKNOWN | LK_TOKEN_ATTR_CONTROL))) return;
    if (attr & (LK_TOKEN_ATTR_UNKNOWN | LK_TOKEN_ATTR_CONTROL | LK_TOKEN_ATTR_USER_DEFINED)) {
        lk__pw_put(w, t->text, t->len);
        return;
    }
    if (v->type == LK_VOCAB_BPE) {
        size_t off = 0;
        if (!(attr & LK_TOKEN_ATTR_NORMAL)) return;
        while (off < (size_t)t->len) {
            uint32_t c = lk__utf8_next(LK__CAST(const unsigned char *, t->text), (size_t)t->len, &off);
            if (c < 0x144 && v->bdec[c] >= 0) {
                char b = (char)v->bdec[c];
                lk__pw_put(w, &b, 1);
            } else {   /* llama.cpp's marker for a codepoint outside the byte mapping */
                static const char hx[] = "0123456789abcdef";
                unsigned char u[4];
                int ul = lk__utf8_put(c, u), j;
                lk__pw_put(w, "[UNK_BYTE_0x", 12);
                for (j = 0; j < ul; j++) { char h2[2]; h2[0] = hx[u[j] >> 4]; h2[1] = hx[u[j] & 15]; lk__pw_put(w, h2, 2); }
                lk__pw_put(w, t->text, t->len);
                lk__pw_put(w, "]", 1);
            }
        }
        return;
    }
    if (attr & LK_TOKEN_ATTR_NORMAL) {   /* SPM / WPM: U+2581 -> space */
        for (i = 0; i < t->len; i++) {
            if (i + 2 < t->len && t->text[i] == '\xe2' && t->text[i + 1] == '\x96' && t->text[i + 2] == '\x81') {
                lk__pw_put(w, " ", 1); i += 2;
            } else lk__pw_put(w, t->text + i, 1);
        }
        return;
    }
    if ((attr & LK_TOKEN_ATTR_BYTE) && v->type == LK_VOCAB_SPM) {
        /* "<0xXX>": strtol of the two characters after "<0x" */
        int val = 0, k;
        for (k = 3; k < 5 && k < t->len; k++) {
            char c = t->text[k];
            int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
            if (d < 0) break;
            val = val * 16 + d;
        }
        {
            char b = (char)val;
            lk__pw_put(w, &b, 1);
        }
    }
}

LKDEF int lk_token_to_piece(const lk_vocab *v, lk_token token, char *buf, int len, int special) {
    lk__pw w;
    if (!v || token < 0 || token >= v->n_tokens || len < 0 || (!buf && len > 0)) {
        lk_set_error(LK_ERR_INVALID_ARG, "lk_token_to_piece: bad argument (token %d, len %d)", (int)token, len);
        return LK_TOKENIZE_ERROR;
    }
    w.buf = NULL; w.cap = 0; w.n = 0; w.skip = 0;
    lk__piece(v, token, special, &w);
    if (w.n > 0x7fffffffll) { lk_set_error(LK_ERR_RANGE, "lk_token_to_piece: piece too long"); return LK_TOKENIZE_ERROR; }
    if (w.n > len) return -(int)w.n;
    w.buf = buf; w.cap = len; w.n = 0;
    lk__piece(v, token, special, &w);
    return (int)w.n;
}

LKDEF int lk_detokenize(const lk_vocab *v, const lk_token *tokens, int n_tokens, char *text, int text_len_max,
                        int remove_special, int unparse_special) {
    long long total = 0;
    int i, remove_space, avail;
    char *out = text;
    if (!v || n_tokens < 0 || (!tokens && n_tokens > 0) || text_len_max < 0 || (!text && text_len_max > 0)) {
        lk_set_error(LK_ERR_INVALID_ARG, "lk_detokenize: bad argument");
        return LK_TOKENIZE_ERROR;
    }
    for (i = 0; i < n_tokens; i++)
        if (tokens[i] < 0 || tokens[i] >= v->n_tokens) {
            lk_set_error(LK_ERR_RANGE, "lk_detokenize: token %d at position %d is outside the vocabulary", (int)tokens[i], i);
            return LK_TOKENIZE_ERROR;
        }
    remove_space = v->add_space_prefix;
    if (remove_special && v->add_bos && n_tokens > 0 && tokens[0] == v->bos) { remove_space = 0; n_tokens--; tokens++; }
    if (remove_special && v->add_eos && n_tokens > 0 && tokens[n_tokens - 1] == v->eos) n_tokens--;
    avail = text_len_max;
    for (i = 0; i < n_tokens; i++) {
        lk__pw w;
        w.buf = NULL; w.cap = 0; w.n = 0; w.skip = remove_space;
        lk__piece(v, tokens[i], unparse_special, &w);
        if (w.n > avail) avail = 0;      /* does not fit: count only from here on */
        else if (w.n > 0) {
            w.buf = out; w.cap = avail; w.n = 0; w.skip = remove_space;
            lk__piece(v, tokens[i], unparse_special, &w);
            out += w.n; avail -= (int)w.n;
        }
        total += w.n;
        remove_space = 0;
        if (total > 0x7fffffffll) { lk_set_error(LK_ERR_RANGE, "lk_detokenize: text too long"); return LK_TOKENIZE_ERROR; }
    }
    if (total > text_len_max) return -(int)total;
    if (v->clean_spaces && total > 0) {
        int t1 = (int)total, n = 1, t2, t3;
        /* " ?", " !", " .", " ," lose the space */
        for (i = 1; i < t1; i++) {
            char c = text[i];
            if (text[i - 1] == ' ' && (c == '?' || c == '!' || c == '.' || c == ',')) n--;
            text[n++] = c;
        }
        /* " ' " -> "'" */
        t2 = n; n = 1;
        for (i = 1; i < t2; i++) {
            char c = text[i];
            if (c == '\'' && i + 1 < t2 && text[i - 1] == ' ' && text[i + 1] == ' ') { n--; text[++i] = 0; }
            text[n++] = c;
        }
        /* " 's", " 'm", " 're", " 've" lose the space */
        t3 = n; n = 1;
        for (i = 1; i < t3; i++) {
            char c = text[i];
            if (text[i - 1] == ' ' && c == '\'' && i + 1 < t3) {
                char c1 = text[i + 1];
                if (c1 == 's' || c1 == 'm') n--;
                else if (i + 2 < t3 && ((c1 == 'r' && text[i + 2] == 'e') || (c1 == 'v' && text[i + 2] == 'e'))) n--;
            }
            text[n++] = c;
        }
        total = n;
    }
    return (int)total;
}
#endif /* LLMKIT_NO_TOKENIZER */

/* --------------------------------------------------------------------------
 * 14.12b Chat templates
 * -------------------------------------------------------------------------- */
#ifndef LLMKIT_NO_TOKENIZER
/* Non-ASCII pieces of some families' markers, as UTF-8 bytes */
#define LK__U_BAR "\xef\xbd\x9c"                /* U+FF5C fullwidth vertical line */
#define LK__U_SP "\xe2\x96\x81"                 /* U+2581 lower one eighth block  */
#define LK__U_EOS_DS "<" LK__U_BAR "end" LK__U_SP "of" LK__U_SP "sentence" LK__U_BAR ">"
#define LK__U_HY(x) "<" LK__U_BAR "hy_" x LK__U_BAR ">"
#define LK__U_HY_PH(d) LK__U_HY("place" LK__U_SP "holder" LK__U_SP "no" LK__U_SP d)
#define LK__U_RU_ASSISTANT "\xd0\x90\xd1\x81\xd1\x81\xd0\xb8\xd1\x81\xd1\x82\xd0\xb5\xd0\xbd\xd1\x82" /* Ассистент */
#define LK__U_RU_USER "\xd0\x9f\xd0\xbe\xd0\xbb\xd1\x8c\xd0\xb7\xd0\xbe\xd0\xb2\xd0\xb0\xd1\x82\xd0\xb5\xd0\xbb\xd1\x8c" /* Пользователь */
#define LK__U_ZH(x) "[unused9]" x "\xef\xbc\x9a"   /* x followed by U+FF1A fullwidth colon */
#define LK__U_ZH_SYSTEM "\xe7\xb3\xbb\xe7\xbb\x9f"   /* 系统 */
#define LK__U_ZH_USER "\xe7\x94\xa8\xe6\x88\xb7"     /* 用户 */
#define LK__U_ZH_ASSISTANT "\xe5\x8a\xa9\xe6\x89\x8b" /* 助手 */

/* A family's renderer is a list of rules. Each message takes the first rule
 * whose role matches (NULL matches any role) and is written as
 * pre + content + post, where in pre %r stands for the role, %R for it in
 * upper case and %T with its first letter in upper case; a message that no
 * rule matches writes nothing. */
enum {
    LK__CR_TRIM = 1,    /* content without leading and trailing whitespace      */
    LK__CR_FIRST = 2,   /* the rule matches only the first message              */
    LK__CR_MERGE = 4,   /* write nothing now: the content joins the pending
                         * system text (gemma, orion merge system messages into
                         * the next user turn)                                   */
    LK__CR_SYS = 8,     /* after pre, the pending system text and "\n\n", if any */
    LK__CR_END = 16     /* the message closes the turn (see turn)               */
};
enum {
    LK__CF_TURN_OPEN = 1,     /* a turn is open at the start (begin opened it)        */
    LK__CF_NOSYS_EMPTY = 2,   /* nosys also when there are no messages                */
    LK__CF_GEN_LAST_USER = 4  /* gen follows a last "user" message, whatever
                               * add_assistant_prefix says (rwkv-world)                */
};
#define LK__CHAT_RULES 6
typedef struct lk__chat_rule {
    const char *role, *pre, *post;
    unsigned char flags;        /* LK__CR_* */
} lk__chat_rule;
typedef struct lk__chat_family {
    const char *name;
    const char *eot;            /* lk_chat_template_eot                                  */
    const char *begin, *gen;    /* before the messages; after them with add_assistant_prefix */
    const char *turn;           /* before a message when no turn is open (mistral, llama2) */
    const char *nosys;          /* before a first message whose role is not "system"     */
    unsigned char flags;        /* LK__CF_* */
    lk__chat_rule rule[LK__CHAT_RULES];
} lk__chat_family;

/* One row per llm_chat_template of llama.cpp's llm_chat_apply_template. */
static const lk__chat_family lk__chat_families[] = {
    { "chatml", "<|im_end|>", "", "<|im_start|>assistant\n", 0, 0, 0,
      { { 0, "<|im_start|>%r\n", "<|im_end|>\n", 0 } } },
    { "llama2", "</s>", "[INST] ", 0, "[INST] ", 0, LK__CF_TURN_OPEN,
      { { "system", "", "\n", 0 }, { "user", "", " [/INST]", 0 }, { 0, "", "</s>", LK__CR_END } } },
    { "llama2-sys", "</s>", "[INST] ", 0, "[INST] ", 0, LK__CF_TURN_OPEN,
      { { "system", "<<SYS>>\n", "\n<</SYS>>\n\n", 0 }, { "user", "", " [/INST]", 0 }, { 0, "", "</s>", LK__CR_END } } },
    { "llama2-sys-bos", "</s>", "[INST] ", 0, "<s>[INST] ", 0, LK__CF_TURN_OPEN,
      { { "system", "<<SYS>>\n", "\n<</SYS>>\n\n", 0 }, { "user", "", " [/INST]", 0 }, { 0, "", "</s>", LK__CR_END } } },
    { "llama2-sys-strip", "</s>", "[INST] ", 0, "[INST] ", 0, LK__CF_TURN_OPEN,
      { { "system", "<<SYS>>\n", "\n<</SYS>>\n\n", LK__CR_TRIM }, { "user", "", " [/INST]", LK__CR_TRIM },
        { 0, "", "</s>", LK__CR_END | LK__CR_TRIM } } },
    { "mistral-v1", "</s>", "", 0, " [INST] ", 0, 0,
      { { "system", "", "\n\n", 0 }, { "user", "", " [/INST]", 0 }, { 0, " ", "</s>", LK__CR_END } } },
    { "mistral-v3", "</s>", "", 0, "[INST] ", 0, 0,
      { { "system", "", "\n\n", 0 }, { "user", "", "[/INST]", 0 }, { 0, " ", "</s>", LK__CR_END | LK__CR_TRIM } } },
    { "mistral-v3-tekken", "</s>", "", 0, "[INST]", 0, 0,
      { { "system", "", "\n\n", 0 }, { "user", "", "[/INST]", 0 }, { 0, "", "</s>", LK__CR_END } } },
    { "mistral-v7", "</s>", "", 0, 0, 0, 0,
      { { "system", "[SYSTEM_PROMPT] ", "[/SYSTEM_PROMPT]", 0 }, { "user", "[INST] ", "[/INST]", 0 }, { 0, " ", "</s>", 0 } } },
    { "mistral-v7-tekken", "</s>", "", 0, 0, 0, 0,
      { { "system", "[SYSTEM_PROMPT]", "[/SYSTEM_PROMPT]", 0 }, { "user", "[INST]", "[/INST]", 0 }, { 0, "", "</s>", 0 } } },
    { "phi3", "<|end|>", "", "<|assistant|>\n", 0, 0, 0,
      { { 0, "<|%r|>\n", "<|end|>\n", 0 } } },
    { "phi4", "<|im_end|>", "", "<|im_start|>assistant<|im_sep|>", 0, 0, 0,
      { { 0, "<|im_start|>%r<|im_sep|>", "<|im_end|>", 0 } } },
    { "falcon3", "", "", "<|assistant|>\n", 0, 0, 0,
      { { 0, "<|%r|>\n", "\n", 0 } } },
    { "zephyr", "<|endoftext|>", "", "<|assistant|>\n", 0, 0, 0,
      { { 0, "<|%r|>\n", "<|endoftext|>\n", 0 } } },
    { "monarch", "</s>", "", "<s>assistant\n", 0, 0, 0,
      { { 0, "%r\n", "</s>\n", LK__CR_FIRST }, { 0, "<s>%r\n", "</s>\n", 0 } } },
    { "gemma", "<end_of_turn>", "", "<start_of_turn>model\n", 0, 0, 0,
      { { "system", "", "", LK__CR_MERGE | LK__CR_TRIM },
        { "assistant", "<start_of_turn>model\n", "<end_of_turn>\n", LK__CR_TRIM },
        { "model", "<start_of_turn>model\n", "<end_of_turn>\n", LK__CR_TRIM },
        { 0, "<start_of_turn>%r\n", "<end_of_turn>\n", LK__CR_SYS | LK__CR_TRIM } } },
    { "orion", "</s>", "", 0, 0, 0, 0,
      { { "system", "", "", LK__CR_MERGE }, { "user", "Human: ", "\n\nAssistant: </s>", LK__CR_SYS }, { 0, "", "</s>", 0 } } },
    { "openchat", "<|end_of_turn|>", "", "GPT4 Correct Assistant:", 0, 0, 0,
      { { "system", "", "<|end_of_turn|>", 0 }, { 0, "GPT4 Correct %T: ", "<|end_of_turn|>", 0 } } },
    { "vicuna", "</s>", "", "ASSISTANT:", 0, 0, 0,
      { { "system", "", "\n\n", 0 }, { "user", "USER: ", "\n", 0 }, { "assistant", "ASSISTANT: ", "</s>\n", 0 } } },
    { "vicuna-orca", "</s>", "", "ASSISTANT:", 0, 0, 0,
      { { "system", "SYSTEM: ", "\n", 0 }, { "user", "USER: ", "\n", 0 }, { "assistant", "ASSISTANT: ", "</s>\n", 0 } } },
    { "deepseek", "<|EOT|>", "", "### Response:\n", 0, 0, 0,
      { { "system", "", "", 0 }, { "user", "### Instruction:\n", "\n", 0 }, { "assistant", "### Response:\n", "\n<|EOT|>\n", 0 } } },
    { "deepseek2", LK__U_EOS_DS, "", "Assistant:", 0, 0, 0,
      { { "system", "", "\n\n", 0 }, { "user", "User: ", "\n\n", 0 }, { "assistant", "Assistant: ", LK__U_EOS_DS, 0 } } },
    { "deepseek3", LK__U_EOS_DS, "", "<" LK__U_BAR "Assistant" LK__U_BAR ">", 0, 0, 0,
      { { "system", "", "\n\n", 0 }, { "user", "<" LK__U_BAR "User" LK__U_BAR ">", "", 0 },
        { "assistant", "<" LK__U_BAR "Assistant" LK__U_BAR ">", LK__U_EOS_DS, 0 } } },
    { "deepseek-ocr", "", "", 0, 0, 0, 0,
      { { 0, "", "", 0 } } },
    { "command-r", "<|END_OF_TURN_TOKEN|>", "", "<|START_OF_TURN_TOKEN|><|CHATBOT_TOKEN|>", 0, 0, 0,
      { { "system", "<|START_OF_TURN_TOKEN|><|SYSTEM_TOKEN|>", "<|END_OF_TURN_TOKEN|>", LK__CR_TRIM },
        { "user", "<|START_OF_TURN_TOKEN|><|USER_TOKEN|>", "<|END_OF_TURN_TOKEN|>", LK__CR_TRIM },
        { "assistant", "<|START_OF_TURN_TOKEN|><|CHATBOT_TOKEN|>", "<|END_OF_TURN_TOKEN|>", LK__CR_TRIM } } },
    { "llama3", "<|eot_id|>", "", "<|start_header_id|>assistant<|end_header_id|>\n\n", 0, 0, 0,
      { { 0, "<|start_header_id|>%r<|end_header_id|>\n\n", "<|eot_id|>", LK__CR_TRIM } } },
    { "chatglm3", "", "[gMASK]sop", "<|assistant|>", 0, 0, 0,
      { { 0, "<|%r|>\n ", "", 0 } } },
    { "chatglm4", "", "[gMASK]<sop>", "<|assistant|>\n", 0, 0, 0,
      { { 0, "<|%r|>\n", "", 0 } } },
    { "glmedge", "", "", "<|assistant|>", 0, 0, 0,
      { { 0, "<|%r|>\n", "", 0 } } },
    { "minicpm", "", "", 0, 0, 0, 0,
      { { "user", "<" LK__U_ZH_USER ">", "<AI>", LK__CR_TRIM }, { 0, "", "", LK__CR_TRIM } } },
    { "exaone3", "[|endofturn|]", "", "[|assistant|]", 0, 0, 0,
      { { "system", "[|system|]", "[|endofturn|]\n", LK__CR_TRIM }, { "user", "[|user|]", "\n", LK__CR_TRIM },
        { "assistant", "[|assistant|]", "[|endofturn|]\n", LK__CR_TRIM } } },
    { "exaone4", "[|endofturn|]", "", "[|assistant|]", 0, 0, 0,
      { { "system", "[|system|]", "[|endofturn|]\n", LK__CR_TRIM }, { "user", "[|user|]", "\n", LK__CR_TRIM },
        { "assistant", "[|assistant|]", "[|endofturn|]\n", LK__CR_TRIM }, { "tool", "[|tool|]", "[|endofturn|]\n", LK__CR_TRIM } } },
    { "exaone-moe", "<|endofturn|>", "", "<|assistant|>\n", 0, 0, 0,
      { { "system", "<|system|>\n", "<|endofturn|>\n", LK__CR_TRIM }, { "user", "<|user|>\n", "<|endofturn|>\n", LK__CR_TRIM },
        { "assistant", "<|assistant|>\n", "<|endofturn|>\n", LK__CR_TRIM }, { "tool", "<|tool|>\n", "<|endofturn|>\n", LK__CR_TRIM } } },
    { "rwkv-world", "\n\n", "", "Assistant:", 0, 0, LK__CF_GEN_LAST_USER,
      { { "system", "System: ", "\n\n", LK__CR_TRIM }, { "user", "User: ", "\n\n", LK__CR_TRIM },
        { "assistant", "Assistant: ", "\n\n", LK__CR_TRIM } } },
    { "granite", "<|end_of_text|>", "", "<|start_of_role|>assistant<|end_of_role|>", 0, 0, 0,
      { { "assistant_tool_call", "<|start_of_role|>%r<|end_of_role|><|tool_call|>", "<|end_of_text|>\n", 0 },
        { 0, "<|start_of_role|>%r<|end_of_role|>", "<|end_of_text|>\n", 0 } } },
    { "granite-4.0", "<|end_of_text|>", "", "<|start_of_role|>assistant<|end_of_role|>", 0, 0, 0,
      { { "assistant_tool_call", "<|start_of_role|>assistant<|end_of_role|><|tool_call|>", "<|end_of_text|>\n", 0 },
        { 0, "<|start_of_role|>%r<|end_of_role|>", "<|end_of_text|>\n", 0 } } },
    { "granite-4.1", "<|end_of_text|>", "", "<|start_of_role|>assistant<|end_of_role|>", 0, 0, 0,
      { { "assistant_tool_call", "<|start_of_role|>assistant<|end_of_role|><|tool_call|>", "<|end_of_text|>\n", 0 },
        { 0, "<|start_of_role|>%r<|end_of_role|>", "<|end_of_text|>\n", 0 } } },
    { "gigachat", "<|message_sep|>", "<s>", "assistant<|role_sep|>", 0, 0, 0,
      { { "system", "", "<|message_sep|>", LK__CR_FIRST },
        { "user", "user<|role_sep|>", "<|message_sep|>available functions<|role_sep|>[]<|message_sep|>", 0 },
        { "assistant", "assistant<|role_sep|>", "<|message_sep|>", 0 } } },
    { "megrez", "<|turn_end|>", "", "<|role_start|>assistant<|role_end|>", 0, 0, 0,
      { { 0, "<|role_start|>%r<|role_end|>", "<|turn_end|>", 0 } } },
    { "yandex", "\n\n", "", " " LK__U_RU_ASSISTANT ":[SEP]", 0, 0, 0,
      { { "user", " " LK__U_RU_USER ": ", "\n\n", 0 }, { "assistant", " " LK__U_RU_ASSISTANT ": ", "\n\n", 0 } } },
    { "bailing", "", "", "<role>ASSISTANT</role>", 0, 0, 0,
      { { "user", "<role>HUMAN</role>", "", 0 }, { 0, "<role>%R</role>", "", 0 } } },
    { "bailing-think", "", "", "<role>ASSISTANT</role><think>", 0, 0, 0,
      { { "user", "<role>HUMAN</role>", "", 0 }, { 0, "<role>%R</role>", "", 0 } } },
    { "bailing2", "<|role_end|>", "", "<role>ASSISTANT</role>", 0, "<role>SYSTEM</role>detailed thinking off<|role_end|>",
      LK__CF_NOSYS_EMPTY,
      { { "user", "<role>HUMAN</role>", "<|role_end|>", 0 }, { 0, "<role>%R</role>", "<|role_end|>", 0 } } },
    { "llama4", "<|eot|>", "", "<|header_start|>assistant<|header_end|>\n\n", 0, 0, 0,
      { { 0, "<|header_start|>%r<|header_end|>\n\n", "<|eot|>", LK__CR_TRIM } } },
    { "smolvlm", "<end_of_utterance>", "<|im_start|>", "Assistant:", 0, 0, 0,
      { { "system", "", "\n\n", 0 }, { "user", "User: ", "<end_of_utterance>\n", 0 },
        { 0, "Assistant: ", "<end_of_utterance>\n", 0 } } },
    { "dots1", "<|endofresponse|>", "", "<|response|>", 0, 0, 0,
      { { "system", "<|system|>", "<|endofsystem|>", 0 }, { "user", "<|userprompt|>", "<|endofuserprompt|>", 0 },
        { 0, "<|response|>", "<|endofresponse|>", 0 } } },
    { "hunyuan-moe", "<|eos|>", "", 0, 0, 0, 0,
      { { "system", "<|startoftext|>", "<|extra_4|>", 0 }, { "assistant", "", "<|eos|>", 0 },
        { 0, "<|startoftext|>", "<|extra_0|>", 0 } } },
    { "gpt-oss", "<|return|>", "", "<|start|>assistant", 0, 0, 0,
      { { "assistant", "<|start|>%r<|message|>", "<|return|>", 0 }, { 0, "<|start|>%r<|message|>", "<|end|>", 0 } } },
    { "hunyuan-dense", LK__U_HY_PH("2"), "", 0, 0, 0, 0,
      { { "system", "", LK__U_HY_PH("3"), LK__CR_FIRST }, { "assistant", LK__U_HY("Assistant"), LK__U_HY_PH("2"), 0 },
        { "user", LK__U_HY("User"), LK__U_HY("Assistant"), 0 } } },
    { "hunyuan-vl", "", LK__U_HY("begin" LK__U_SP "of" LK__U_SP "sentence"), 0, 0, 0, 0,
      { { "system", "", LK__U_HY_PH("3"), LK__CR_FIRST }, { "user", "", LK__U_HY("User"), 0 },
        { "assistant", "", LK__U_HY("Assistant"), 0 } } },
    { "kimi-k2", "<|im_end|>", "", "<|im_assistant|>assistant<|im_middle|>", 0, 0, 0,
      { { "system", "<|im_system|>system<|im_middle|>", "<|im_end|>", 0 }, { "user", "<|im_user|>user<|im_middle|>", "<|im_end|>", 0 },
        { "assistant", "<|im_assistant|>assistant<|im_middle|>", "<|im_end|>", 0 },
        { "tool", "<|im_system|>tool<|im_middle|>", "<|im_end|>", 0 }, { 0, "", "<|im_end|>", 0 } } },
    { "seed_oss", "<seed:eos>", "", "<seed:bos>assistant\n", 0, 0, 0,
      { { "assistant", "<seed:bos>%r\n", "<seed:eos>", LK__CR_TRIM }, { 0, "<seed:bos>%r\n", "<seed:eos>", 0 } } },
    { "grok-2", "<|separator|>", "", "Assistant:", 0, 0, 0,
      { { "system", "System: ", "<|separator|>\n\n", LK__CR_TRIM }, { "user", "Human: ", "<|separator|>\n\n", LK__CR_TRIM },
        { "assistant", "Assistant: ", "<|separator|>\n\n", 0 } } },
    { "pangu-embedded", "[unused10]", "", LK__U_ZH(LK__U_ZH_ASSISTANT), 0, LK__U_ZH(LK__U_ZH_SYSTEM) "[unused10]", 0,
      { { "system", LK__U_ZH(LK__U_ZH_SYSTEM), "[unused10]", 0 }, { "user", LK__U_ZH(LK__U_ZH_USER), "[unused10]", 0 },
        { "assistant", LK__U_ZH(LK__U_ZH_ASSISTANT), "[unused10]", 0 },
        { "tool", LK__U_ZH("\xe5\xb7\xa5\xe5\x85\xb7"), "[unused10]", 0 },       /* 工具 */
        { "function", LK__U_ZH("\xe6\x96\xb9\xe6\xb3\x95"), "[unused10]", 0 } } }, /* 方法 */
    { "solar-open", "<|end|>", "", "<|begin|>assistant", 0, 0, 0,
      { { 0, "<|begin|>%r<|content|>", "<|end|>", 0 } } },
};
#define LK__CHAT_N_FAMILIES ((int)(sizeof lk__chat_families / sizeof lk__chat_families[0]))

/* llm_chat_detect_template's substring tests, flattened in its order: the
 * first row whose clauses all hold names the family. A clause holds when one
 * of its (up to two) needles occurs in the template; "^x" means the template
 * starts with x. (llama.cpp nests the tests; each nested group ends with
 * a row that has only the group's own clauses, so flat order is the same.) */
static const struct { const char *family; const char *c[4][2]; } lk__chat_detect[] = {
    { "phi4", { { "<|im_start|>" }, { "<|im_sep|>" } } },
    { "smolvlm", { { "<|im_start|>" }, { "<end_of_utterance>" } } },
    { "chatml", { { "<|im_start|>" } } },
    { "mistral-v7", { { "^mistral", "[INST]" }, { "[SYSTEM_PROMPT]" } } },
    { "mistral-v1", { { "^mistral", "[INST]" }, { "' [INST] ' + system_message", "[AVAILABLE_TOOLS]" }, { " [INST]" } } },
    { "mistral-v3-tekken", { { "^mistral", "[INST]" }, { "' [INST] ' + system_message", "[AVAILABLE_TOOLS]" }, { "\"[INST]\"" } } },
    { "mistral-v3", { { "^mistral", "[INST]" }, { "' [INST] ' + system_message", "[AVAILABLE_TOOLS]" } } },
    { "llama2-sys-strip", { { "^mistral", "[INST]" }, { "content.strip()" } } },
    { "llama2-sys-bos", { { "^mistral", "[INST]" }, { "bos_token + '[INST]" } } },
    { "llama2-sys", { { "^mistral", "[INST]" }, { "<<SYS>>" } } },
    { "llama2", { { "^mistral", "[INST]" } } },
    { "phi3", { { "<|assistant|>" }, { "<|end|>" } } },
    { "chatglm4", { { "[gMASK]<sop>" } } },
    { "exaone-moe", { { "<|assistant|>" }, { "<|user|>" }, { "<|tool_declare|>" } } },
    { "falcon3", { { "<|assistant|>" }, { "<|user|>" }, { "</s>" } } },
    { "glmedge", { { "<|assistant|>" }, { "<|user|>" } } },
    { "glmedge", { { "<|{{ item['role'] }}|>" }, { "<|begin_of_image|>" } } },
    { "zephyr", { { "<|user|>" }, { "<|endoftext|>" } } },
    { "monarch", { { "bos_token + message['role']" } } },
    { "gemma", { { "<start_of_turn>" } } },
    { "orion", { { "'\\n\\nAssistant: ' + eos_token" } } },
    { "openchat", { { "GPT4 Correct " } } },
    { "vicuna-orca", { { "USER: " }, { "ASSISTANT: " }, { "SYSTEM: " } } },
    { "vicuna", { { "USER: " }, { "ASSISTANT: " } } },
    { "deepseek", { { "### Instruction:" }, { "<|EOT|>" } } },
    { "command-r", { { "<|START_OF_TURN_TOKEN|>" }, { "<|USER_TOKEN|>" } } },
    { "llama3", { { "<|start_header_id|>" }, { "<|end_header_id|>" } } },
    { "chatglm3", { { "[gMASK]sop" } } },
    { "minicpm", { { "<" LK__U_ZH_USER ">" } } },
    { "deepseek2", { { "'Assistant: ' + message['content'] + eos_token" } } },
    { "deepseek3", { { "<" LK__U_BAR "Assistant" LK__U_BAR ">" }, { "<" LK__U_BAR "User" LK__U_BAR ">" }, { LK__U_EOS_DS } } },
    { "exaone4", { { "[|system|]" }, { "[|assistant|]" }, { "[|endofturn|]" }, { "[|tool|]" } } },
    { "exaone3", { { "[|system|]" }, { "[|assistant|]" }, { "[|endofturn|]" } } },
    { "rwkv-world", { { "rwkv-world", "{{- 'User: ' + message['content']|trim + '\\n\\n' -}}" } } },
    { "granite-4.0", { { "<|start_of_role|>" }, { "<tool_call>", "<tools>" }, { "g4_default_system_message" } } },
    { "granite-4.1", { { "<|start_of_role|>" }, { "<tool_call>", "<tools>" } } },
    { "granite", { { "<|start_of_role|>" } } },
    { "gigachat", { { "message['role'] + additional_special_tokens[0] + message['content'] + additional_special_tokens[1]" } } },
    { "megrez", { { "<|role_start|>" } } },
    { "yandex", { { " " LK__U_RU_ASSISTANT ":" } } },
    { "bailing", { { "<role>ASSISTANT</role>" }, { "'HUMAN'" } } },
    { "bailing-think", { { "<role>ASSISTANT</role>" }, { "\"HUMAN\"" }, { "<think>" } } },
    { "bailing2", { { "<role>ASSISTANT</role>" }, { "<role>HUMAN</role>" }, { "<|role_end|>" } } },
    { "llama4", { { "<|header_start|>" }, { "<|header_end|>" } } },
    { "dots1", { { "<|endofuserprompt|>" } } },
    { "hunyuan-moe", { { "<|extra_0|>" }, { "<|extra_4|>" } } },
    { "gpt-oss", { { "<|start|>" }, { "<|channel|>" } } },
    { "hunyuan-vl", { { LK__U_HY("Assistant") }, { LK__U_HY("begin" LK__U_SP "of" LK__U_SP "sentence") } } },
    { "hunyuan-dense", { { LK__U_HY("Assistant") }, { LK__U_HY_PH("3") } } },
    { "kimi-k2", { { "<|im_assistant|>assistant<|im_middle|>" } } },
    { "seed_oss", { { "<seed:bos>" } } },
    { "grok-2", { { "'Assistant: '  + message['content'] + '<|separator|>" } } },
    { "pangu-embedded", { { LK__U_ZH(LK__U_ZH_SYSTEM) "[unused10]" } } },
    { "solar-open", { { "<|begin|>" }, { "<|end|>" }, { "<|content|>" } } },
};

static int lk__chat_contains(const char *s, size_t n, const char *needle) {
    size_t k = strlen(needle), i;
    if (needle[0] == '^') return n >= k - 1 && memcmp(s, needle + 1, k - 1) == 0;
    for (i = 0; k <= n && i <= n - k; i++)
        if (s[i] == needle[0] && memcmp(s + i, needle, k) == 0) return 1;
    return 0;
}
static const lk__chat_family *lk__chat_family_named(const char *s, size_t n) {
    int i;
    for (i = 0; i < LK__CHAT_N_FAMILIES; i++)
        if (strlen(lk__chat_families[i].name) == n && memcmp(lk__chat_families[i].name, s, n) == 0) return &lk__chat_families[i];
    return NULL;
}
/* the family of template s[0..n): a family name, else the detection table */
static const lk__chat_family *lk__chat_find(const char *s, size_t n) {
    const lk__chat_family *f = lk__chat_family_named(s, n);
    size_t r;
    int c;
    if (f) return f;
    for (r = 0; r < sizeof lk__chat_detect / sizeof lk__chat_detect[0]; r++) {
        const char *const (*cl)[2] = lk__chat_detect[r].c;
        for (c = 0; c < 4 && cl[c][0]; c++)   /* clause c: one of its needles occurs */
            if (!lk__chat_contains(s, n, cl[c][0]) && !(cl[c][1] && lk__chat_contains(s, n, cl[c][1]))) break;
        if (c == 4 || !cl[c][0]) return lk__chat_family_named(lk__chat_detect[r].family, strlen(lk__chat_detect[r].family));
    }
    return NULL;
}

/* output with snprintf semantics: len counts every byte, buf gets what fits */
typedef struct lk__chat_out {
    char *buf;
    size_t cap, len;
} lk__chat_out;
static void lk__chat_put(lk__chat_out *o, const char *s, size_t n) {
    if (o->len < o->cap) {
        size_t room = o->cap - o->len;
        memcpy(o->buf + o->len, s, n < room ? n : room);
    }
    o->len = lk__sza(o->len, n);
}
static void lk__chat_puts(lk__chat_out *o, const char *s) { if (s) lk__chat_put(o, s, strlen(s)); }
/* pre with %r (role), %R (role in upper case), %T (first letter upper case) */
static void lk__chat_put_pre(lk__chat_out *o, const char *pre, const char *role) {
    const char *p;
    for (p = pre; *p; p++) {
        if (p[0] == '%' && (p[1] == 'r' || p[1] == 'R' || p[1] == 'T')) {
            const char *r;
            for (r = role; *r; r++) {
                char ch = *r;
                if ((p[1] == 'R' || (p[1] == 'T' && r == role)) && ch >= 'a' && ch <= 'z') ch = (char)(ch - 'a' + 'A');
                lk__chat_put(o, &ch, 1);
            }
            p++;
        } else {
            lk__chat_put(o, p, 1);
        }
    }
}
static int lk__chat_space(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }   /* isspace in the C locale */
static void lk__chat_put_content(lk__chat_out *o, const char *s, int trim) {
    size_t a = 0, b = strlen(s);
    if (trim) {
        while (a < b && lk__chat_space(s[a])) a++;
        while (b > a && lk__chat_space(s[b - 1])) b--;
    }
    lk__chat_put(o, s + a, b - a);
}
static const lk__chat_rule *lk__chat_rule_for(const lk__chat_family *f, const char *role, int i) {
    int k;
    for (k = 0; k < LK__CHAT_RULES && f->rule[k].pre; k++) {
        const lk__chat_rule *r = &f->rule[k];
        if ((!r->role || !strcmp(r->role, role)) && (!(r->flags & LK__CR_FIRST) || i == 0)) return r;
    }
    return NULL;
}
/* the pending system text: the contents of the messages [from, to) whose
 * rule merges them */
static void lk__chat_put_pending(const lk__chat_family *f, const lk_chat_message *m, int from, int to, lk__chat_out *o) {
    int j;
    for (j = from; j < to; j++) {
        const lk__chat_rule *r = lk__chat_rule_for(f, m[j].role, j);
        if (r && (r->flags & LK__CR_MERGE)) lk__chat_put_content(o, m[j].content, r->flags & LK__CR_TRIM);
    }
}
static void lk__chat_render(const lk__chat_family *f, const lk_chat_message *m, int n, int add_ass, lk__chat_out *o) {
    int i, inside = (f->flags & LK__CF_TURN_OPEN) != 0, sys_from = 0;
    lk__chat_puts(o, f->begin);
    if (f->nosys && (n > 0 ? strcmp(m[0].role, "system") != 0 : (f->flags & LK__CF_NOSYS_EMPTY) != 0))
        lk__chat_puts(o, f->nosys);
    for (i = 0; i < n; i++) {
        const lk__chat_rule *r;
        if (f->turn && !inside) { lk__chat_puts(o, f->turn); inside = 1; }
        if (!(r = lk__chat_rule_for(f, m[i].role, i)) || (r->flags & LK__CR_MERGE)) continue;
        lk__chat_put_pre(o, r->pre, m[i].role);
        if (r->flags & LK__CR_SYS) {
            size_t before = o->len;
            lk__chat_put_pending(f, m, sys_from, i, o);
            if (o->len != before) lk__chat_puts(o, "\n\n");
            sys_from = i + 1;
        }
        lk__chat_put_content(o, m[i].content, r->flags & LK__CR_TRIM);
        lk__chat_puts(o, r->post);
        if (r->flags & LK__CR_END) inside = 0;
    }
    if (f->flags & LK__CF_GEN_LAST_USER ? n > 0 && !strcmp(m[n - 1].role, "user") : add_ass)
        lk__chat_puts(o, f->gen);
}

static lk_status lk__chat_check(const char *fn, const lk_chat_message *msgs, int n, char *buf, int cap) {
    int i;
    if (n < 0 || cap < 0) return lk_set_error(LK_ERR_INVALID_ARG, "%s: negative %s", fn, n < 0 ? "message count" : "cap");
    if (n > 0 && !msgs) return lk_set_error(LK_ERR_INVALID_ARG, "%s: msgs is NULL", fn);
    if (cap > 0 && !buf) return lk_set_error(LK_ERR_INVALID_ARG, "%s: buf is NULL with cap %d", fn, cap);
    for (i = 0; i < n; i++)
        if (!msgs[i].role || !msgs[i].content)
            return lk_set_error(LK_ERR_INVALID_ARG, "%s: message %d has a NULL %s", fn, i, msgs[i].role ? "content" : "role");
    return LK_OK;
}
static lk_status lk__chat_unknown(const char *fn) {
    return lk_set_error(LK_ERR_UNSUPPORTED, "%s: the chat template is not one of the %d known families; pass a "
                        "family name instead (\"chatml\", \"llama3\", \"gemma\", ...; lk_chat_template_name lists them)",
                        fn, LK__CHAT_N_FAMILIES);
}
/* render into buf[0..cap) (NUL-terminated), return the length or -1 */
static int lk__chat_apply(const char *fn, const lk__chat_family *f, const lk_chat_message *msgs, int n, int add_ass,
                          char *buf, int cap) {
    lk__chat_out o;
    o.buf = buf; o.cap = cap > 0 ? (size_t)cap - 1 : 0; o.len = 0;
    lk__chat_render(f, msgs, n, add_ass, &o);
    if (cap > 0) buf[o.len < o.cap ? o.len : o.cap] = 0;
    if (o.len > (size_t)INT_MAX - 1) { lk_set_error(LK_ERR_RANGE, "%s: the rendering is over INT_MAX bytes", fn); return -1; }
    return (int)o.len;
}
/* the model's tokenizer.chat_template */
static lk_status lk__chat_model_tmpl(const char *fn, const lk_model *m, lk_str *s) {
    lk_status st;
    if (!m) return lk_set_error(LK_ERR_INVALID_ARG, "%s: model is NULL", fn);
    st = lk_gguf_get_str(lk_model_gguf(m), "tokenizer.chat_template", s);
    if (st == LK_ERR_NOT_FOUND)
        return lk_set_error(st, "%s: the model has no tokenizer.chat_template; name a family instead (\"chatml\", ...)", fn);
    if (st) return lk_set_error(st, "%s: tokenizer.chat_template is not a string", fn);
    return LK_OK;
}

LKDEF int lk_chat_apply_template(const char *tmpl, const lk_chat_message *msgs, int n, int add_assistant_prefix,
                                 char *buf, int cap) {
    static const char fn[] = "lk_chat_apply_template";
    const lk__chat_family *f;
    if (!tmpl) { lk_set_error(LK_ERR_INVALID_ARG, "%s: tmpl is NULL", fn); return -1; }
    if (lk__chat_check(fn, msgs, n, buf, cap)) return -1;
    if (!(f = lk__chat_find(tmpl, strlen(tmpl)))) { lk__chat_unknown(fn); return -1; }
    return lk__chat_apply(fn, f, msgs, n, add_assistant_prefix, buf, cap);
}
LKDEF int lk_chat_apply(const lk_model *m, const lk_chat_message *msgs, int n, int add_assistant_prefix, char *buf, int cap) {
    static const char fn[] = "lk_chat_apply";
    const lk__chat_family *f;
    lk_str s;
    if (lk__chat_model_tmpl(fn, m, &s) || lk__chat_check(fn, msgs, n, buf, cap)) return -1;
    if (!(f = lk__chat_find(s.ptr, (size_t)s.len))) { lk__chat_unknown(fn); return -1; }
    return lk__chat_apply(fn, f, msgs, n, add_assistant_prefix, buf, cap);
}
LKDEF const char *lk_chat_template_detect(const char *tmpl) {
    const lk__chat_family *f = tmpl ? lk__chat_find(tmpl, strlen(tmpl)) : NULL;
    return f ? f->name : NULL;
}
LKDEF const char *lk_chat_model_template(const lk_model *m) {
    const lk__chat_family *f = NULL;
    lk_str s;
    if (m && lk_gguf_get_str(lk_model_gguf(m), "tokenizer.chat_template", &s) == LK_OK) f = lk__chat_find(s.ptr, (size_t)s.len);
    return f ? f->name : NULL;
}
LKDEF const char *lk_chat_template_name(int i) { return i >= 0 && i < LK__CHAT_N_FAMILIES ? lk__chat_families[i].name : NULL; }
LKDEF const char *lk_chat_template_eot(const char *tmpl) {
    const lk__chat_family *f = tmpl ? lk__chat_find(tmpl, strlen(tmpl)) : NULL;
    return f ? f->eot : NULL;
}
/* the family's end of turn when it is a single token of v, else -1 */
static lk_token lk__chat_eot_token(const lk_vocab *v, const lk__chat_family *f) {
    lk_token t[2];
    int len = (int)strlen(f->eot);
    return v && len && lk_tokenize(v, f->eot, len, t, 2, 0, 1) == 1 ? t[0] : -1;
}
static int lk__chat_eot_list(const lk_vocab *v, const lk__chat_family *f, lk_token *ids, int cap) {
    lk_token e = lk__chat_eot_token(v, f);
    int n = 0, i;
    if (e >= 0) { if (n < cap) ids[n] = e; n++; }
    for (i = 0; v && i < v->n_eog; i++) {
        if (v->eog[i] == e) continue;
        if (n < cap) ids[n] = v->eog[i];
        n++;
    }
    return n;
}
LKDEF int lk_chat_eot_tokens(const lk_model *m, const char *tmpl, lk_token *ids, int cap) {
    static const char fn[] = "lk_chat_eot_tokens";
    const lk__chat_family *f;
    lk_str s;
    if (!m) { lk_set_error(LK_ERR_INVALID_ARG, "%s: model is NULL", fn); return -1; }
    if (cap < 0 || (cap > 0 && !ids)) { lk_set_error(LK_ERR_INVALID_ARG, "%s: bad ids / cap", fn); return -1; }
    if (!tmpl && lk__chat_model_tmpl(fn, m, &s)) return -1;
    f = tmpl ? lk__chat_find(tmpl, strlen(tmpl)) : lk__chat_find(s.ptr, (size_t)s.len);
    if (!f) { lk__chat_unknown(fn); return -1; }
    return lk__chat_eot_list(lk_model_vocab(m), f, ids, cap);
}

/* ---- lk_chat: a conversation kept across turns ---- */
struct lk_chat {
    lk_allocator a;
    const lk__chat_family *f;
    const lk_vocab *v;            /* NULL without a model                        */
    lk_token eot;                 /* the family's end of turn as a token, or -1  */
    lk_chat_message *msgs;        /* each role + content in one allocation       */
    int n, cap;
    char *buf[2];                 /* 0: lk_chat_next's rendering; 1: scratch     */
    size_t bcap[2], blen[2];
    size_t fed;                   /* bytes of buf[0] handed out so far           */
    int pending;                  /* lk_chat_next ran, no message added since    */
};

LKDEF lk_chat_params lk_chat_default_params(void) {
    lk_chat_params p;
    p.tmpl = NULL; p.alloc = NULL;
    return p;
}
LKDEF lk_status lk_chat_new(const lk_model *m, const lk_chat_params *p, lk_chat **out) {
    static const char fn[] = "lk_chat_new";
    lk_chat_params d = p ? *p : lk_chat_default_params();
    lk_allocator a = lk__resolve_alloc(d.alloc);
    const lk__chat_family *f;
    lk_chat *c;
    lk_str s;
    lk_status st;
    if (!out) return lk_set_error(LK_ERR_INVALID_ARG, "%s: out is NULL", fn);
    *out = NULL;
    if (!d.tmpl && (st = lk__chat_model_tmpl(fn, m, &s))) return st;
    f = d.tmpl ? lk__chat_find(d.tmpl, strlen(d.tmpl)) : lk__chat_find(s.ptr, (size_t)s.len);
    if (!f) return lk__chat_unknown(fn);
    if (!(c = LK__CAST(lk_chat *, lk__alloc(&a, sizeof *c)))) return lk_set_error(LK_ERR_NOMEM, "%s: out of memory", fn);
    memset(c, 0, sizeof *c);
    c->a = a; c->f = f;
    c->v = m ? lk_model_vocab(m) : NULL;
    c->eot = lk__chat_eot_token(c->v, f);
    *out = c;
    return LK_OK;
}
LKDEF void lk_chat_free(lk_chat *c) {
    int i;
    if (!c) return;
    for (i = 0; i < c->n; i++)
        lk__free(&c->a, LK__CAST(void *, c->msgs[i].role), strlen(c->msgs[i].role) + strlen(c->msgs[i].content) + 2);
    lk__free(&c->a, c->msgs, sizeof *c->msgs * (size_t)c->cap);
    for (i = 0; i < 2; i++) lk__free(&c->a, c->buf[i], c->bcap[i]);
    lk__free(&c->a, c, sizeof *c);
}
LKDEF const char *lk_chat_family(const lk_chat *c) { return c ? c->f->name : NULL; }
LKDEF int lk_chat_n_messages(const lk_chat *c) { return c ? c->n : 0; }
LKDEF int lk_chat_is_eot(const lk_chat *c, lk_token t) {
    return c && t >= 0 && (t == c->eot || lk_vocab_is_eog(c->v, t));
}
/* render the conversation into buf[k] (grown as needed) */
static lk_status lk__chat_render_into(lk_chat *c, int k, int add_ass) {
    lk__chat_out o;
    o.buf = c->buf[k]; o.cap = c->bcap[k]; o.len = 0;
    lk__chat_render(c->f, c->msgs, c->n, add_ass, &o);
    if (o.len > (size_t)INT_MAX - 1) return lk_set_error(LK_ERR_RANGE, "lk_chat: the rendering is over INT_MAX bytes");
    if (o.len > c->bcap[k]) {
        size_t cap = o.len + o.len / 2 + 256;
        char *nb = LK__CAST(char *, lk__alloc(&c->a, cap));
        if (!nb) return lk_set_error(LK_ERR_NOMEM, "lk_chat: out of memory for a %zu-byte rendering", o.len);
        lk__free(&c->a, c->buf[k], c->bcap[k]);
        c->buf[k] = nb; c->bcap[k] = cap;
        o.buf = nb; o.cap = cap; o.len = 0;
        lk__chat_render(c->f, c->msgs, c->n, add_ass, &o);
    }
    c->blen[k] = o.len;
    return LK_OK;
}
LKDEF lk_status lk_chat_add(lk_chat *c, const char *role, const char *content) {
    static const char fn[] = "lk_chat_add";
    size_t rl, cl;
    char *s;
    lk_status st;
    if (!c || !role || !content) return lk_set_error(LK_ERR_INVALID_ARG, "%s: %s is NULL", fn, !c ? "chat" : !role ? "role" : "content");
    if (c->n == INT_MAX) return lk_set_error(LK_ERR_RANGE, "%s: too many messages", fn);
    if (c->n == c->cap) {
        int ncap = c->cap < 8 ? 8 : c->cap > INT_MAX / 2 ? INT_MAX : c->cap * 2;
        lk_chat_message *nm = LK__CAST(lk_chat_message *, lk__alloc(&c->a, lk__szm(sizeof *nm, (size_t)ncap)));
        if (!nm) return lk_set_error(LK_ERR_NOMEM, "%s: out of memory", fn);
        if (c->n) memcpy(nm, c->msgs, sizeof *nm * (size_t)c->n);
        lk__free(&c->a, c->msgs, sizeof *c->msgs * (size_t)c->cap);
        c->msgs = nm; c->cap = ncap;
    }
    rl = strlen(role); cl = strlen(content);
    if (!(s = LK__CAST(char *, lk__alloc(&c->a, lk__sza(lk__sza(rl, cl), 2))))) return lk_set_error(LK_ERR_NOMEM, "%s: out of memory", fn);
    memcpy(s, role, rl + 1); memcpy(s + rl + 1, content, cl + 1);
    c->msgs[c->n].role = s; c->msgs[c->n].content = s + rl + 1;
    c->n++;
    if (c->pending && !strcmp(role, "assistant")) {
        /* the reply to what lk_chat_next returned: does the rendering go on
         * from the text handed out with the reply itself? */
        if ((st = lk__chat_render_into(c, 1, 0))) {
            c->n--;
            lk__free(&c->a, s, rl + cl + 2);
            return st;
        }
        if (c->blen[1] >= c->fed + cl && (!c->fed || memcmp(c->buf[1], c->buf[0], c->fed) == 0) &&
            (!cl || memcmp(c->buf[1] + c->fed, content, cl) == 0))
            c->fed += cl;
        else
            c->fed = c->blen[1];
    }
    c->pending = 0;
    return LK_OK;
}
LKDEF lk_status lk_chat_next(lk_chat *c, const char **text, int *len) {
    lk_status st;
    if (!c || !text || !len) return lk_set_error(LK_ERR_INVALID_ARG, "lk_chat_next: NULL argument");
    if ((st = lk__chat_render_into(c, 0, 1))) return st;
    if (c->fed > c->blen[0]) c->fed = c->blen[0];
    *text = c->buf[0] ? c->buf[0] + c->fed : "";
    *len = (int)(c->blen[0] - c->fed);
    c->fed = c->blen[0];
    c->pending = 1;
    return LK_OK;
}
LKDEF lk_status lk_chat_render(lk_chat *c, int add_assistant_prefix, const char **text, int *len) {
    lk_status st;
    if (!c || !text || !len) return lk_set_error(LK_ERR_INVALID_ARG, "lk_chat_render: NULL argument");
    if ((st = lk__chat_render_into(c, 1, add_assistant_prefix))) return st;
    *text = c->buf[1] ? c->buf[1] : "";
    *len = (int)c->blen[1];
    return LK_OK;
}
#endif /* LLMKIT_NO_TOKENIZER */

/* --------------------------------------------------------------------------
 * 14.13 Model
 * -------------------------------------------------------------------------- */
/* ---- architectures -----------------------------------------------------------
 * One row per architecture says what llama.cpp's graph builder for it does;
 * hyperparameters, binding and the forward pass read the row instead of
 * testing the architecture. A new architecture is a new row, plus whatever
 * operation it truly adds. */
typedef enum lk__ffn_kind {
    LK__FFN_SWIGLU,         /* down(silu(gate x) * up x)                           */
    LK__FFN_SWIGLU_FUSED,   /* up holds rows [gate | up] (phi3)                    */
    LK__FFN_GEGLU,          /* down(gelu(gate x) * up x)                           */
    LK__FFN_GELU,           /* down(gelu(up x + b_up)) + b_down                    */
    LK__FFN_SWIGLU_OAI      /* experts only: down(g sigmoid(1.702 g) * (u + 1)),
                             * g = min(gate x, 7), u = clamp(up x, -7, 7) (gpt-oss) */
} lk__ffn_kind;
/* The optional tensors a row's graph reads, as llama.cpp's loader creates
 * them for the architecture and its graph uses them. A tensor of the file
 * that no row flag or required binding claims is refused by name
 * (lk__model_check_used), as llama.cpp refuses a file holding more tensors
 * than it created. */
enum {
    LK__T_BIAS   = 1 << 0,   /* every linear layer and norm has a bias, required (LayerNorm MLP) */
    LK__T_QKV_B  = 1 << 1,   /* attn_q/k/v.bias, or attn_qkv.bias, when present       */
    LK__T_WO_B   = 1 << 2,   /* attn_output.bias when present                         */
    LK__T_FFN_B  = 1 << 3,   /* ffn_gate/up/down.bias when present                    */
    LK__T_FFN_S  = 1 << 4,   /* ffn_gate/up/down(_exps).scale: the FFN weights' scales */
    LK__T_OUT_B  = 1 << 5,   /* output.bias when present                              */
    LK__T_FREQS  = 1 << 6,   /* rope_freqs.weight when present                        */
    LK__T_UNTIED = 1 << 7,   /* output.weight when present (else the head is token_embd) */
    LK__T_SINKS  = 1 << 8,   /* attn_sinks.weight [n_head], required: a learned logit per head
                              * in every softmax's denominator, with no value (gpt-oss) */
    LK__T_EXP_B  = 1 << 9,   /* ffn_gate_inp.bias [X] and ffn_gate/up_exps.bias [Fe, X],
                              * ffn_down_exps.bias [E, X], required (gpt-oss)   */
    LK__T_PAN    = 1 << 10   /* the FFN's input norm is named post_attention_norm (gpt-oss) */
};
/* Every row: the attention weights' scales (attn_q/k/v/qkv/output.scale,
 * [1]) multiply the product before the bias, y = (W x) s + b; the FFN's,
 * where LK__T_FFN_S, after it, y = (W x + b) s (experts: one scale per
 * expert, [n_expert]). A weight's .input_scale ([1], experts [n_expert]; the
 * activations' quantization step of an FP8 / NVFP4 checkpoint) is accepted
 * and not used: llama.cpp's graphs do not read it, and with f32 activations
 * there is no activation quantization for it to undo. */
typedef struct lk__arch_info {
    const char *name;           /* general.architecture and the key prefix          */
    signed char rope;           /* lk_rope_mode, or -1: no RoPE                      */
    unsigned char layernorm;    /* LayerNorm with bias; else RMSNorm                 */
    unsigned char fused_qkv;    /* attn_qkv (rows [Q | K | V]) required; else the file holds
                                 * attn_qkv or attn_q, attn_k, attn_v                */
    unsigned short opt;         /* LK__T_*: the optional tensors its graph uses      */
    unsigned char ffn;          /* lk__ffn_kind                                      */
    unsigned char post_norms;   /* RMSNorm of the attention and FFN outputs          */
    unsigned char swa;          /* window layers (when the file sets a window): 0 all, 1
                                 * none, n: il % n < n - 1 (attention.sliding_window_pattern) */
    unsigned char qk_norm;      /* RMSNorm of each q and k head (attn_q/k_norm), before RoPE */
    unsigned char embd_scale;   /* x = token_embd * sqrt(n_embd)                      */
    unsigned char q_prescale;   /* q *= 1/sqrt(head_dim) after RoPE, no scale inside  */
    unsigned char pos_embd;     /* learned position_embd added to x                  */
    unsigned char ffe_key;      /* experts: the row of lk__moe_kinds (0 llama, 1 qwen3moe,
                                 * 2 gpt-oss)                                        */
    float attn_softcap, final_softcap;  /* soft-caps when the keys are absent (0 = none) */
    float rope_base;            /* rope.freq_base when the key is absent             */
    float rope_base_swa;        /* window layers' rope.freq_base_swa default (0: rope's, not
                                 * read; < 0: read, default rope.freq_base, and scaled as
                                 * the other layers, as gpt-oss)                     */
    int window;                 /* attention.sliding_window when the key is absent (-1: required) */
    int nope;                   /* n > 0: layer il has no RoPE when (il + 1) % n == 0 */
} lk__arch_info;
#define LK__T_LLAMA (LK__T_QKV_B | LK__T_WO_B | LK__T_FFN_B | LK__T_FFN_S | LK__T_FREQS | LK__T_UNTIED)
static const lk__arch_info lk__archs[LK_ARCH_COUNT] = {
    /* name     rope            ln qkv opt                                      ffn                   post swa qkn esc qpre pos ffe caps         base  base_swa win nope */
    { "llama",  LK_ROPE_NORMAL, 0, 0, LK__T_LLAMA,                              LK__FFN_SWIGLU,       0,   0,  0,  0,  0,   0,  0,   0.f,  0.f, 1e4f, 0.f, 0, 0 },
    { "qwen2",  LK_ROPE_NEOX,   0, 0, LK__T_QKV_B | LK__T_OUT_B | LK__T_UNTIED, LK__FFN_SWIGLU,       0,   0,  0,  0,  0,   0,  0,   0.f,  0.f, 1e6f, 0.f, 0, 0 },
    { "gemma",  LK_ROPE_NEOX,   0, 0, LK__T_QKV_B,                              LK__FFN_GEGLU,        0,   1,  0,  1,  1,   0,  0,   0.f,  0.f, 1e4f, 0.f, 0, 0 },
    { "gemma2", LK_ROPE_NEOX,   0, 0, LK__T_QKV_B,                              LK__FFN_GEGLU,        1,   2,  0,  1,  1,   0,  0,  50.f, 30.f, 1e4f, 0.f, 4096, 0 },
    { "phi3",   LK_ROPE_NEOX,   0, 0, LK__T_QKV_B | LK__T_UNTIED,               LK__FFN_SWIGLU_FUSED, 0,   0,  0,  0,  1,   0,  0,   0.f,  0.f, 1e4f, 0.f, 0, 0 },
    { "gpt2",   -1,             1, 1, LK__T_BIAS | LK__T_UNTIED,                LK__FFN_GELU,         0,   0,  0,  0,  0,   1,  0,   0.f,  0.f, 1e4f, 0.f, 0, 0 },
    { "gemma3", LK_ROPE_NEOX,   0, 0, LK__T_QKV_B | LK__T_UNTIED,               LK__FFN_GEGLU,        1,   6,  1,  1,  1,   0,  0,   0.f,  0.f, 1e4f, 1e4f, 0, 0 },
    { "qwen3",  LK_ROPE_NEOX,   0, 0, LK__T_QKV_B | LK__T_FFN_S | LK__T_UNTIED, LK__FFN_SWIGLU,       0,   0,  1,  0,  0,   0,  0,   0.f,  0.f, 1e6f, 0.f, 0, 0 },
    { "qwen3moe", LK_ROPE_NEOX, 0, 0, LK__T_QKV_B | LK__T_FFN_S | LK__T_UNTIED, LK__FFN_SWIGLU,       0,   0,  1,  0,  0,   0,  1,   0.f,  0.f, 1e6f, 0.f, 0, 0 },
    { "smollm3", LK_ROPE_NORMAL, 0, 0, LK__T_QKV_B | LK__T_UNTIED,             LK__FFN_SWIGLU,       0,   0,  0,  0,  0,   0,  0,   0.f,  0.f, 1e4f, 0.f, 0, 4 },
    { "gpt-oss", LK_ROPE_NEOX,  0, 0, LK__T_QKV_B | LK__T_WO_B | LK__T_UNTIED | LK__T_SINKS | LK__T_EXP_B | LK__T_PAN,
                                                                                LK__FFN_SWIGLU_OAI,   0,   2,  0,  0,  0,   0,  2,   0.f,  0.f, 1e4f, -1.f, -1, 0 },
};
/* How a row's experts are sized and routed (its ffe_key column), as
 * llama.cpp's graph for it does. need: expert_count required (and > 0);
 * ffe: 0 experts as wide as feed_forward_length, 1 expert_feed_forward_length
 * (0 or absent: n_ff / n_expert_used), 2 expert_feed_forward_length required;
 * gating, norm: lk_hparams' expert_gating and expert_weights_norm. The files'
 * expert_gating_func, expert_weights_norm and expert_weights_scale keys are
 * not read: none of these graphs reads them. */
typedef struct lk__moe_kind { unsigned char need, ffe, gating, norm; } lk__moe_kind;
static const lk__moe_kind lk__moe_kinds[] = {
    /* need ffe gating norm */
    { 0, 0, 1, 1 },   /* llama (Mixtral): softmax, top k, normalised */
    { 1, 1, 1, 1 },   /* qwen3moe                                    */
    { 1, 2, 3, 0 },   /* gpt-oss: router bias, top k of the logits, softmax of those k */
};
LKDEF const char *lk_arch_name(lk_arch a) { return (unsigned)a < (unsigned)LK_ARCH_COUNT ? lk__archs[a].name : "?"; }

/* One transformer block's weights, bound in place (E = n_embd, F = n_ff,
 * Q = n_head * head_dim, K = n_head_kv * head_dim; [in, out] = out rows of
 * in elements). Absent optional tensors have data NULL. */
typedef struct lk__layer {
    lk_tensor attn_norm, attn_norm_b;      /* [E] (bias: LayerNorm)                 */
    lk_tensor wq, wk, wv, bq, bk, bv;      /* [E, Q], [E, K], [E, K]; biases [Q], [K], [K] */
    lk_tensor wqkv, bqkv;                  /* fused: [E, Q + 2K], [Q + 2K]          */
    lk_tensor q_norm, k_norm;              /* [d] per-head RMSNorm weights (qk_norm) */
    lk_tensor wo, bo;                      /* [Q, E], [E]                           */
    lk_tensor post_attn_norm;              /* [E]                                   */
    lk_tensor ffn_norm, ffn_norm_b;        /* [E]                                   */
    lk_tensor ffn_gate, ffn_up, b_up;      /* [E, F]; fused up [E, 2F]; bias [F]    */
    lk_tensor b_gate;                      /* [F]                                   */
    lk_tensor ffn_down, b_down;            /* [F, E], [E]                           */
    lk_tensor sq, sk, sv, sqkv, so;        /* the weights' scales, [1] (LK__T_*)    */
    lk_tensor s_gate, s_up, s_down;        /* [1]                                   */
    lk_tensor s_gate_exps, s_up_exps, s_down_exps;   /* [n_expert]                  */
    lk_tensor gate_inp;                    /* MoE router [E, n_expert]              */
    lk_tensor gate_exps, up_exps;          /* MoE [E, Fe, n_expert] (Fe = n_ff_exp) */
    lk_tensor down_exps;                   /* MoE [Fe, E, n_expert]                 */
    lk_tensor b_gate_inp;                  /* router bias [n_expert] (LK__T_EXP_B)  */
    lk_tensor b_gate_exps, b_up_exps;      /* [Fe, n_expert]: expert e's bias is row e */
    lk_tensor b_down_exps;                 /* [E, n_expert]                         */
    lk_tensor sinks;                       /* attn_sinks [n_head] (LK__T_SINKS)     */
    lk_tensor post_ffw_norm;               /* [E]                                   */
    int window;                            /* sliding window of this layer, 0 = none */
    const lk_rope *rope;                   /* &hp.rope, &hp.rope_swa for window layers, or NULL: no RoPE (nope) */
} lk__layer;

struct lk_model {
    lk_gguf *g;
    lk_allocator a;
    lk_hparams hp;
    const lk__arch_info *ai;               /* the architecture's row               */
    lk_tensor tok_embd;                    /* [E, n_vocab]                          */
    lk_tensor pos_embd;                    /* [E, n_ctx_train] (learned positions)  */
    lk_tensor output_norm, output_norm_b;  /* [E]                                   */
    lk_tensor output, output_b;            /* [E, n_vocab] (tied: token_embd); [n_vocab] */
    lk_tensor rope_freqs;                  /* [n_rot / 2] or absent                 */
    lk__layer *layers;                     /* [n_layer]                             */
    lk_vocab *vocab;
    void *repack_buf;                      /* the repacked weights (14.7r), or NULL */
    size_t repack_size;
    uint16_t *gelu_tab;                    /* GELU archs: lk_gelu of every f16 input, or NULL */
    unsigned char *used;                   /* while binding: [n_tensors], 1 = bound  */
};

LKDEF lk_model_params lk_model_default_params(void) { lk_model_params p; memset(&p, 0, sizeof p); return p; }
/* The model's options (section 13's option tables). */
static const lk_option lk__model_options[] = {
    /* name            alias kind        field (offset, size)                          lo  hi  choices arg       help */
    { "check-tensors", NULL, LK_OPT_INT, LK__FIELD(lk_model_params, check_tensors), 0,  1,  NULL,   "0|1",    "1: check every weight at load (finite floats and block scales)" },
    { "repack",        NULL, LK_OPT_INT, LK__FIELD(lk_model_params, repack),        -1, 1,  NULL,   "-1|0|1", "interleaved weight rows: 0 when the file is mapped, 1 always, -1 never" },
};
LKDEF lk_status lk_model_params_set(lk_model_params *p, const char *name, const char *v) {
    return lk__options_set(lk__model_options, (int)(sizeof lk__model_options / sizeof lk__model_options[0]), "model",
                           "lk_model_params_set", p, name, v);
}
LKDEF const lk_hparams *lk_model_hparams(const lk_model *m) { return &m->hp; }
LKDEF const lk_gguf *lk_model_gguf(const lk_model *m) { return m->g; }
LKDEF int lk_model_n_vocab(const lk_model *m) { return m->hp.n_vocab; }
LKDEF const lk_vocab *lk_model_vocab(const lk_model *m) { return m->vocab; }

/* "<arch>.<suffix>" as an int in [lo, hi]; missing -> def (def < 0: required) */
static lk_status lk__hp_int(const lk_gguf *g, const char *arch, const char *suffix, int64_t def, int64_t lo, int64_t hi, int *out) {
    char key[128];
    int64_t v = 0;
    uint64_t n = 0, i;
    lk_status st;
    lk__fmt(key, sizeof key, "%s.%s", arch, suffix);
    if (lk_gguf_find_key(g, key) < 0) {
        if (def < 0) return lk_set_error(LK_ERR_FORMAT, "model: required key '%s' is missing", key);
        *out = (int)def;
        return LK_OK;
    }
    if (lk_gguf_get_arr(g, key, NULL, &n, NULL) == LK_OK) {
        /* per-layer array: all entries must agree (uniform layers only) */
        if (n == 0) return lk_set_error(LK_ERR_FORMAT, "model: key '%s' is an empty array", key);
        if ((st = lk_gguf_get_i64_at(g, key, 0, &v))) return st;
        for (i = 1; i < n; i++) {
            int64_t w = 0;
            if ((st = lk_gguf_get_i64_at(g, key, i, &w))) return st;
            if (w != v) return lk_set_error(LK_ERR_UNSUPPORTED, "model: key '%s' varies per layer (not supported)", key);
        }
    } else if ((st = lk_gguf_get_i64(g, key, &v))) return st;
    if (v < lo || v > hi)
        return lk_set_error(LK_ERR_FORMAT, "model: key '%s' = %lld is outside [%lld, %lld]", key, (long long)v, (long long)lo, (long long)hi);
    *out = (int)v;
    return LK_OK;
}
static lk_status lk__hp_float(const lk_gguf *g, const char *arch, const char *suffix, float def, float *out) {
    char key[128];
    double v = 0.0;
    lk_status st;
    lk__fmt(key, sizeof key, "%s.%s", arch, suffix);
    if (lk_gguf_find_key(g, key) < 0) { *out = def; return LK_OK; }
    if ((st = lk_gguf_get_f64(g, key, &v))) return st;
    if (!(v == v) || v > 1e30 || v < -1e30) return lk_set_error(LK_ERR_FORMAT, "model: key '%s' is not a finite number", key);
    *out = (float)v;
    return LK_OK;
}

/* Bind tensor `name` with exactly shape [ne0], [ne0, ne1] or (lk__bind3)
 * [ne0, ne1, ne2]. kind: 0 = a 1-D f32 vector, 1 = a matmul weight (needs
 * vec_dot), 2 = an embedding table (needs to_float). required = 0: absent
 * leaves t->data NULL. */
enum { LK__VEC, LK__MAT, LK__EMB };
static lk_status lk__bind3(lk_model *m, const char *name, int kind, int64_t ne0, int64_t ne1, int64_t ne2, int required, lk_tensor *t) {
    int64_t i = lk_gguf_find_tensor(m->g, name);
    const lk_gguf_tensor *gt;
    const lk_type_traits *tt;
    int d;
    memset(t, 0, sizeof *t);
    if (i < 0) return required ? lk_set_error(LK_ERR_FORMAT, "model: missing tensor '%s'", name) : LK_OK;
    gt = &m->g->tensors[i];
    for (d = 3; d < LK_MAX_DIMS; d++)
        if (gt->ne[d] != 1) return lk_set_error(LK_ERR_FORMAT, "model: tensor '%s' has %d dimensions, expected %d", name, gt->n_dims, ne2 ? 3 : ne1 ? 2 : 1);
    if (gt->ne[0] != ne0 || gt->ne[1] != (ne1 ? ne1 : 1) || gt->ne[2] != (ne2 ? ne2 : 1))
        return lk_set_error(LK_ERR_FORMAT, "model: tensor '%s' has shape [%lld, %lld, %lld], expected [%lld, %lld, %lld]", name,
                            (long long)gt->ne[0], (long long)gt->ne[1], (long long)gt->ne[2], (long long)ne0, (long long)(ne1 ? ne1 : 1),
                            (long long)(ne2 ? ne2 : 1));
    tt = lk_type_get(gt->type);
    if (kind == LK__VEC && gt->type != LK_TYPE_F32)
        return lk_set_error(LK_ERR_UNSUPPORTED, "model: tensor '%s' is %s; 1-D tensors must be f32", name, lk_type_name(gt->type));
    if (kind == LK__MAT && (!tt || !tt->vec_dot))
        return lk_set_error(LK_ERR_UNSUPPORTED, "model: tensor '%s' has type %s, which this build has no dot product for%s", name,
                            lk_type_name(gt->type), LK__NO_IQ_HINT);
    if (kind == LK__EMB && (!tt || !tt->to_float))
        return lk_set_error(LK_ERR_UNSUPPORTED, "model: tensor '%s' has type %s, which this build cannot dequantize%s", name,
                            lk_type_name(gt->type), LK__NO_IQ_HINT);
    lk_gguf_tensor_view(m->g, i, t);
    t->name = NULL;   /* the GGUF's names are not NUL-terminated */
    if (m->used) m->used[i] = 1;
    /* weights are read in place as floats and block structs (alignment <= 4) */
    if ((uintptr_t)t->data % 4)
        return lk_set_error(LK_ERR_FORMAT, "model: tensor '%s' data is not 4-byte aligned (general.alignment %llu; the GGUF spec asks "
                            "for a multiple of 8, and a model read from memory needs a 4-byte aligned buffer)", name,
                            (unsigned long long)m->g->alignment);
    return LK_OK;
}
static lk_status lk__bind(lk_model *m, const char *name, int kind, int64_t ne0, int64_t ne1, int required, lk_tensor *t) {
    return lk__bind3(m, name, kind, ne0, ne1, 0, required, t);
}

/* RoPE hyperparameters: rope.dimension_count, freq_base, linear / YaRN scaling */
static lk_status lk__model_rope(const lk_gguf *g, const char *arch, const lk__arch_info *ai, lk_hparams *hp) {
    lk_str rs = { NULL, 0 };
    char key[96];
    float f = 1.0f;
    int n_rot = 0;
    lk_status st;
    if ((st = lk__hp_int(g, arch, "rope.dimension_count", hp->head_dim_k, 2, hp->head_dim_k, &n_rot))) return st;
    if (n_rot % 2) return lk_set_error(LK_ERR_FORMAT, "model: rope.dimension_count %d is odd", n_rot);
    hp->rope.mode = (lk_rope_mode)ai->rope;
    hp->rope.n_rot = n_rot;
    if ((st = lk__hp_float(g, arch, "rope.freq_base", ai->rope_base, &hp->rope.freq_base))) return st;
    if (!(hp->rope.freq_base > 1.0f)) return lk_set_error(LK_ERR_FORMAT, "model: rope.freq_base must be > 1");
    hp->rope.freq_scale = 1.0f; hp->rope.attn_factor = 1.0f; hp->rope.beta_fast = 32.0f; hp->rope.beta_slow = 1.0f;
    if ((st = lk__hp_int(g, arch, "rope.scaling.original_context_length", hp->n_ctx_train, 1, 1 << 24, &hp->rope.n_ctx_orig))) return st;
    /* as llama.cpp reads them: the factor (or the older rope.scale_linear), 0
     * or absent meaning none, scales positions unless the type is "none"; no
     * type is "linear" */
    lk__fmt(key, sizeof key, "%s.rope.scaling.factor", arch);
    if ((st = lk__hp_float(g, arch, lk_gguf_find_key(g, key) >= 0 ? "rope.scaling.factor" : "rope.scale_linear", 0.0f, &f))) return st;
    if (f < 0.0f) return lk_set_error(LK_ERR_FORMAT, "model: rope.scaling.factor is negative");
    lk__fmt(key, sizeof key, "%s.rope.scaling.type", arch);
    if (lk_gguf_find_key(g, key) < 0) { rs.ptr = "linear"; rs.len = 6; }
    else if ((st = lk_gguf_get_str(g, key, &rs))) return st;
    if (f == 0.0f) f = 1.0f;
    if (!lk_str_eq(rs, "none")) {
        if (lk_str_eq(rs, "linear")) hp->rope.freq_scale = 1.0f / f;
        else if (lk_str_eq(rs, "yarn")) {
            hp->rope.freq_scale = 1.0f / f; hp->rope.ext_factor = 1.0f;
            if ((st = lk__hp_float(g, arch, "rope.scaling.attn_factor", 1.0f, &hp->rope.attn_factor))) return st;
        } else return lk_set_error(LK_ERR_UNSUPPORTED, "model: rope scaling type '%.*s' is not supported (none, linear, yarn)",
                                   (int)(rs.len > 20 ? 20 : rs.len), rs.ptr);
    }
    /* window layers: their own base, unscaled (llama.cpp's freq_base_swa, freq_scale_swa 1) */
    hp->rope_swa = hp->rope;
    if (ai->rope_base_swa > 0.0f) {
        if ((st = lk__hp_float(g, arch, "rope.freq_base_swa", ai->rope_base_swa, &hp->rope_swa.freq_base))) return st;
        if (!(hp->rope_swa.freq_base > 1.0f)) return lk_set_error(LK_ERR_FORMAT, "model: rope.freq_base_swa must be > 1");
        hp->rope_swa.freq_scale = 1.0f;
    } else if (ai->rope_base_swa < 0.0f) {   /* gpt-oss: the key may set the base; scaled as the others */
        if ((st = lk__hp_float(g, arch, "rope.freq_base_swa", hp->rope.freq_base, &hp->rope_swa.freq_base))) return st;
        if (!(hp->rope_swa.freq_base > 1.0f)) return lk_set_error(LK_ERR_FORMAT, "model: rope.freq_base_swa must be > 1");
    }
    return LK_OK;
}

static lk_status lk__model_hparams(lk_model *m) {
    const lk_gguf *g = m->g;
    lk_hparams *hp = &m->hp;
    const lk__arch_info *ai;
    const char *arch;
    lk_str s = { NULL, 0 };
    int i, hd;
    lk_status st;
    memset(hp, 0, sizeof *hp);
    if ((st = lk_gguf_get_str(g, "general.architecture", &s)))
        return lk_set_error(LK_ERR_FORMAT, "model: general.architecture is missing or not a string");
    for (i = 0; i < LK_ARCH_COUNT; i++) if (lk_str_eq(s, lk__archs[i].name)) break;
    if (i == LK_ARCH_COUNT)
        return lk_set_error(LK_ERR_UNSUPPORTED, "model: architecture '%.*s' is not supported (llama, qwen2, qwen3, qwen3moe, gemma, gemma2, gemma3, phi3, gpt2, smollm3, gpt-oss)",
                            (int)(s.len > 40 ? 40 : s.len), s.ptr);
    hp->arch = (lk_arch)i;
    m->ai = ai = &lk__archs[i];
    arch = ai->name;
    if ((st = lk__hp_int(g, arch, "embedding_length", -1, 1, 1 << 20, &hp->n_embd)) ||
        (st = lk__hp_int(g, arch, "block_count", -1, 1, 4096, &hp->n_layer)) ||
        (st = lk__hp_int(g, arch, "feed_forward_length", -1, 1, 1 << 22, &hp->n_ff)) ||
        (st = lk__hp_int(g, arch, "attention.head_count", -1, 1, 4096, &hp->n_head)) ||
        (st = lk__hp_int(g, arch, "context_length", 2048, 1, 1 << 24, &hp->n_ctx_train)))
        return st;
    if ((st = lk__hp_int(g, arch, "attention.head_count_kv", hp->n_head, 1, hp->n_head, &hp->n_head_kv))) return st;
    if (hp->n_head % hp->n_head_kv)
        return lk_set_error(LK_ERR_FORMAT, "model: head_count %d is not a multiple of head_count_kv %d", hp->n_head, hp->n_head_kv);
    hd = hp->n_embd % hp->n_head == 0 ? hp->n_embd / hp->n_head : 0;
    if ((st = lk__hp_int(g, arch, "attention.key_length", hd ? hd : -1, 1, 512, &hp->head_dim_k)) ||
        (st = lk__hp_int(g, arch, "attention.value_length", hp->head_dim_k, 1, 512, &hp->head_dim_v)))
        return st;
    if (hp->head_dim_k != hp->head_dim_v)
        return lk_set_error(LK_ERR_UNSUPPORTED, "model: key_length %d != value_length %d is not supported", hp->head_dim_k, hp->head_dim_v);
    hp->norm_is_layernorm = ai->layernorm;
    if ((st = lk__hp_float(g, arch, ai->layernorm ? "attention.layer_norm_epsilon" : "attention.layer_norm_rms_epsilon",
                           ai->layernorm ? 1e-5f : 1e-6f, &hp->norm_eps)))
        return st;
    if (!(hp->norm_eps >= 0.0f)) return lk_set_error(LK_ERR_FORMAT, "model: negative norm epsilon");
    if (ai->rope >= 0 && (st = lk__model_rope(g, arch, ai, hp))) return st;
    /* scales: inside attention, or on q after RoPE (as llama.cpp's builder does) */
    hp->embd_scale = ai->embd_scale ? sqrtf((float)hp->n_embd) : 1.0f;
    hp->attn_scale = 1.0f / sqrtf((float)hp->head_dim_k);
    hp->q_scale = 1.0f;
    /* gemma3 27B (62 layers): llama.cpp scales q by 1/sqrt(n_embd / n_head) */
    if (hp->arch == LK_ARCH_GEMMA3 && hp->n_layer == 62) hp->attn_scale = 1.0f / sqrtf((float)(hp->n_embd / hp->n_head));
    if (ai->q_prescale) { hp->q_scale = hp->attn_scale; hp->attn_scale = 1.0f; }
    if ((st = lk__hp_int(g, arch, "attention.sliding_window", ai->window, 0, 1 << 24, &hp->sliding_window))) return st;
    hp->swa_pattern = ai->swa;
    if (ai->swa == 1) hp->sliding_window = 0;
    else if (hp->sliding_window > 0 && ai->swa > 1) {
        /* the file may give the pattern: a number, or an array as llama.cpp
         * reads it (bool, int32 or uint32, at most 512 entries): layer il has
         * the window when entry il is present and not 0 */
        char key[96];
        lk_gguf_type et = LK_GGUF_BOOL;
        uint64_t n = 0;
        const lk_gguf_value *v = NULL;
        lk__fmt(key, sizeof key, "%s.attention.sliding_window_pattern", arch);
        if (lk_gguf_get_arr(g, key, &et, &n, &v) == LK_OK) {
            if ((et != LK_GGUF_BOOL && et != LK_GGUF_INT32 && et != LK_GGUF_UINT32) || n > 512)
                return lk_set_error(LK_ERR_FORMAT, "model: %s must be an array of at most 512 bools or 32-bit integers", key);
            hp->swa_pattern = -1;
        } else if ((st = lk__hp_int(g, arch, "attention.sliding_window_pattern", ai->swa, 0, 4096, &hp->swa_pattern))) return st;
    }
    /* mixture of experts, as the row's lk__moe_kinds entry says llama.cpp's
     * graph routes and sizes them */
    {
        const lk__moe_kind *mk = &lk__moe_kinds[ai->ffe_key];
        if ((st = lk__hp_int(g, arch, "expert_count", mk->need ? -1 : 0, 0, 1024, &hp->n_expert))) return st;
        if (hp->n_expert > 0) {
            if ((st = lk__hp_int(g, arch, "expert_used_count", -1, 1, hp->n_expert, &hp->n_expert_used))) return st;
            hp->n_ff_exp = hp->n_ff;
            if (mk->ffe) {
                if ((st = lk__hp_int(g, arch, "expert_feed_forward_length", mk->ffe == 2 ? -1 : 0, mk->ffe == 2 ? 1 : 0, 1 << 22, &hp->n_ff_exp))) return st;
                if (!hp->n_ff_exp) hp->n_ff_exp = hp->n_ff / hp->n_expert_used;
                if (!hp->n_ff_exp) return lk_set_error(LK_ERR_FORMAT, "model: feed_forward_length %d / expert_used_count %d leaves the experts no width", hp->n_ff, hp->n_expert_used);
            }
            hp->expert_gating = mk->gating; hp->expert_weights_norm = mk->norm; hp->expert_weights_scale = 0.0f;
            if (hp->n_expert_used > 64) return lk_set_error(LK_ERR_UNSUPPORTED, "model: expert_used_count %d > 64", hp->n_expert_used);
        } else if (mk->need) return lk_set_error(LK_ERR_FORMAT, "model: %s needs expert_count > 0", arch);
    }
    if (ai->attn_softcap > 0.0f && (st = lk__hp_float(g, arch, "attn_logit_softcapping", ai->attn_softcap, &hp->attn_softcap))) return st;
    if (ai->post_norms && (st = lk__hp_float(g, arch, "final_logit_softcapping", ai->final_softcap, &hp->final_softcap))) return st;
    if (hp->attn_softcap < 0.0f || hp->final_softcap < 0.0f) return lk_set_error(LK_ERR_FORMAT, "model: negative soft-cap");
    return LK_OK;
}

/* the model-wide tensors: embeddings, output norm and head, rope factors */
static lk_status lk__model_bind_globals(lk_model *m) {
    lk_hparams *hp = &m->hp;
    const int E = hp->n_embd, ln = m->ai->layernorm;
    int64_t ti = lk_gguf_find_tensor(m->g, "token_embd.weight");
    lk_status st;
    int i;
    if (ti < 0) return lk_set_error(LK_ERR_FORMAT, "model: missing tensor 'token_embd.weight'");
    hp->n_vocab = (int)(m->g->tensors[ti].ne[1] > (1 << 24) ? 0 : m->g->tensors[ti].ne[1]);
    if (hp->n_vocab <= 0) return lk_set_error(LK_ERR_FORMAT, "model: token_embd.weight has an unusable vocabulary size");
    if ((st = lk__bind(m, "token_embd.weight", LK__EMB, E, hp->n_vocab, 1, &m->tok_embd))) return st;
    if (m->ai->pos_embd && (st = lk__bind(m, "position_embd.weight", LK__EMB, E, hp->n_ctx_train, 1, &m->pos_embd))) return st;
    if ((st = lk__bind(m, "output_norm.weight", LK__VEC, E, 0, 1, &m->output_norm))) return st;
    if (ln && (st = lk__bind(m, "output_norm.bias", LK__VEC, E, 0, 1, &m->output_norm_b))) return st;
    if ((m->ai->opt & LK__T_UNTIED) && (st = lk__bind(m, "output.weight", LK__MAT, E, hp->n_vocab, 0, &m->output))) return st;
    if (!m->output.data && (st = lk__bind(m, "token_embd.weight", LK__MAT, E, hp->n_vocab, 1, &m->output))) return st;   /* tied */
    if ((m->ai->opt & LK__T_OUT_B) && (st = lk__bind(m, "output.bias", LK__VEC, hp->n_vocab, 0, 0, &m->output_b))) return st;
    if ((m->ai->opt & LK__T_FREQS) && hp->rope.n_rot &&
        (st = lk__bind(m, "rope_freqs.weight", LK__VEC, hp->rope.n_rot / 2, 0, 0, &m->rope_freqs)))
        return st;
    if (m->rope_freqs.data) {
        const float *ff = LK__CAST(const float *, m->rope_freqs.data);
        for (i = 0; i < hp->rope.n_rot / 2; i++)
            if (!(ff[i] > 0.0f) || ff[i] > 1e30f) return lk_set_error(LK_ERR_FORMAT, "model: rope_freqs.weight[%d] is not a positive number", i);
        hp->rope.freq_factors = hp->rope_swa.freq_factors = ff;
    }
    return LK_OK;
}
/* A weight's scale and input scale, when the file has them: "blk.il.<w>.scale"
 * into *s where the row's graph multiplies it in (use), else left for
 * lk__model_check_used to refuse; "<w>.input_scale" accepted, not used
 * (section 14.13's note at LK__T_*). n: 1, or n_expert for 3-D experts. */
static lk_status lk__bind_scales(lk_model *m, int il, const char *w, int n, int use, lk_tensor *s) {
    char nm[96];
    lk_tensor in;
    lk_status st;
    lk__fmt(nm, sizeof nm, "blk.%d.%s.scale", il, w);
    if (use && (st = lk__bind(m, nm, LK__VEC, n, 0, 0, s))) return st;
    lk__fmt(nm, sizeof nm, "blk.%d.%s.input_scale", il, w);
    return lk__bind(m, nm, LK__VEC, n, 0, 0, &in);
}
/* the weights of block il, as the architecture's row lays them out */
static lk_status lk__model_bind_layer(lk_model *m, int il, lk__layer *L) {
    const lk_hparams *hp = &m->hp;
    const lk__arch_info *ai = m->ai;
    const int E = hp->n_embd, F = hp->n_ff, nq = hp->n_head * hp->head_dim_k, nkv = hp->n_head_kv * hp->head_dim_k;
    const int ln = ai->layernorm, all = (ai->opt & LK__T_BIAS) != 0, ffn_s = (ai->opt & LK__T_FFN_S) != 0;
    const int qkv_b = (ai->opt & LK__T_QKV_B) != 0, ffn_b = (ai->opt & LK__T_FFN_B) != 0;
    char nm[96];
    lk_status st;
#define LK__B(field, sfx, kind, a, b, req) \
    do { lk__fmt(nm, sizeof nm, "blk.%d.%s", il, sfx); if ((st = lk__bind(m, nm, kind, a, b, req, &L->field))) return st; } while (0)
#define LK__S(w, n, use, field) do { if ((st = lk__bind_scales(m, il, w, n, use, &L->field))) return st; } while (0)
    LK__B(attn_norm, "attn_norm.weight", LK__VEC, E, 0, 1);
    if (ln) LK__B(attn_norm_b, "attn_norm.bias", LK__VEC, E, 0, 1);
    /* fused rows [Q | K | V] when the row needs them or the file has them */
    LK__B(wqkv, "attn_qkv.weight", LK__MAT, E, nq + 2 * nkv, ai->fused_qkv);
    if (L->wqkv.data) {
        if (all || qkv_b) LK__B(bqkv, "attn_qkv.bias", LK__VEC, nq + 2 * nkv, 0, all);
        LK__S("attn_qkv", 1, 1, sqkv);
    } else {
        LK__B(wq, "attn_q.weight", LK__MAT, E, nq, 1);
        LK__B(wk, "attn_k.weight", LK__MAT, E, nkv, 1);
        LK__B(wv, "attn_v.weight", LK__MAT, E, nkv, 1);
        LK__S("attn_q", 1, 1, sq);
        LK__S("attn_k", 1, 1, sk);
        LK__S("attn_v", 1, 1, sv);
    }
    if (qkv_b && !L->bqkv.data) {   /* apart, also beside fused weights */
        LK__B(bq, "attn_q.bias", LK__VEC, nq, 0, 0);
        LK__B(bk, "attn_k.bias", LK__VEC, nkv, 0, 0);
        LK__B(bv, "attn_v.bias", LK__VEC, nkv, 0, 0);
    }
    if (ai->qk_norm) {
        LK__B(q_norm, "attn_q_norm.weight", LK__VEC, hp->head_dim_k, 0, 1);
        LK__B(k_norm, "attn_k_norm.weight", LK__VEC, hp->head_dim_k, 0, 1);
    }
    LK__B(wo, "attn_output.weight", LK__MAT, nq, E, 1);
    if (all || (ai->opt & LK__T_WO_B)) LK__B(bo, "attn_output.bias", LK__VEC, E, 0, all);
    LK__S("attn_output", 1, 1, so);
    if (ai->opt & LK__T_SINKS) LK__B(sinks, "attn_sinks.weight", LK__VEC, hp->n_head, 0, 1);
    if (ai->post_norms) {
        LK__B(post_attn_norm, "post_attention_norm.weight", LK__VEC, E, 0, 1);
        LK__B(post_ffw_norm, "post_ffw_norm.weight", LK__VEC, E, 0, 1);
    }
    LK__B(ffn_norm, ai->opt & LK__T_PAN ? "post_attention_norm.weight" : "ffn_norm.weight", LK__VEC, E, 0, 1);
    if (ln) LK__B(ffn_norm_b, "ffn_norm.bias", LK__VEC, E, 0, 1);
    if (hp->n_expert > 0) {   /* mixture of experts: a router and 3-D expert weights (SwiGLU experts) */
        const int X = hp->n_expert, Fe = hp->n_ff_exp;
        if (ai->ffn != LK__FFN_SWIGLU && ai->ffn != LK__FFN_SWIGLU_OAI)
            return lk_set_error(LK_ERR_UNSUPPORTED, "model: experts in a %s model are not supported", ai->name);
        LK__B(gate_inp, "ffn_gate_inp.weight", LK__MAT, E, X, 1);
#define LK__B3(field, sfx, a, b) \
    do { lk__fmt(nm, sizeof nm, "blk.%d.%s", il, sfx); if ((st = lk__bind3(m, nm, LK__MAT, a, b, X, 1, &L->field))) return st; } while (0)
        LK__B3(gate_exps, "ffn_gate_exps.weight", E, Fe);
        LK__B3(up_exps, "ffn_up_exps.weight", E, Fe);
        LK__B3(down_exps, "ffn_down_exps.weight", Fe, E);
#undef LK__B3
        LK__S("ffn_gate_exps", X, ffn_s, s_gate_exps);
        LK__S("ffn_up_exps", X, ffn_s, s_up_exps);
        LK__S("ffn_down_exps", X, ffn_s, s_down_exps);
        if (ai->opt & LK__T_EXP_B) {
            LK__B(b_gate_inp, "ffn_gate_inp.bias", LK__VEC, X, 0, 1);
            LK__B(b_gate_exps, "ffn_gate_exps.bias", LK__VEC, Fe, X, 1);   /* f32, as 1-D tensors */
            LK__B(b_up_exps, "ffn_up_exps.bias", LK__VEC, Fe, X, 1);
            LK__B(b_down_exps, "ffn_down_exps.bias", LK__VEC, E, X, 1);
        }
    } else {
        LK__B(ffn_up, "ffn_up.weight", LK__MAT, E, ai->ffn == LK__FFN_SWIGLU_FUSED ? 2 * F : F, 1);
        if (ai->ffn == LK__FFN_SWIGLU || ai->ffn == LK__FFN_GEGLU) LK__B(ffn_gate, "ffn_gate.weight", LK__MAT, E, F, 1);
        LK__B(ffn_down, "ffn_down.weight", LK__MAT, F, E, 1);
        if (all || ffn_b) { LK__B(b_up, "ffn_up.bias", LK__VEC, F, 0, all); LK__B(b_down, "ffn_down.bias", LK__VEC, E, 0, all); }
        if (ffn_b && L->ffn_gate.data) LK__B(b_gate, "ffn_gate.bias", LK__VEC, F, 0, 0);
        LK__S("ffn_up", 1, ffn_s, s_up);
        if (L->ffn_gate.data) LK__S("ffn_gate", 1, ffn_s, s_gate);
        LK__S("ffn_down", 1, ffn_s, s_down);
    }
#undef LK__S
#undef LK__B
    {   /* does the sliding window apply to this layer (llama.cpp's is_swa) */
        const int n = hp->swa_pattern;
        int swa = n == 0 || (n > 0 && il % n < n - 1);
        if (n < 0) {
            int64_t b = 0;
            lk__fmt(nm, sizeof nm, "%s.attention.sliding_window_pattern", ai->name);
            swa = lk_gguf_get_i64_at(m->g, nm, (uint64_t)il, &b) == LK_OK && b;
        }
        L->window = swa ? hp->sliding_window : 0;
        L->rope = swa && hp->sliding_window > 0 ? &hp->rope_swa : &hp->rope;
        if (ai->nope > 0 && (il + 1) % ai->nope == 0) L->rope = NULL;   /* a layer without RoPE */
    }
    return LK_OK;
}
/* every tensor of the file is one the graph reads (bound), or the load
 * fails naming it, as llama.cpp's loader fails on a file with more tensors
 * than it created */
static lk_status lk__model_check_used(const lk_model *m) {
    uint64_t i;
    for (i = 0; i < m->g->n_tensors; i++)
        if (!m->used[i]) {
            const lk_str n = m->g->tensors[i].name;
            return lk_set_error(LK_ERR_FORMAT, "model: tensor '%.*s' is not used by the %s graph", (int)(n.len > 96 ? 96 : n.len), n.ptr, m->ai->name);
        }
    return LK_OK;
}
static lk_status lk__model_bind(lk_model *m) {
    const int n_layer = m->hp.n_layer;
    const size_t nu = m->g->n_tensors ? (size_t)m->g->n_tensors : 1;
    lk_status st = LK_OK;
    int il;
    m->used = LK__CAST(unsigned char *, m->a.alloc(m->a.user, nu, 16));
    if (!m->used) return lk_set_error(LK_ERR_NOMEM, "model: out of memory");
    memset(m->used, 0, nu);
    if ((st = lk__model_bind_globals(m))) goto done;
    m->layers = LK__CAST(lk__layer *, m->a.alloc(m->a.user, sizeof(lk__layer) * (size_t)n_layer, 16));
    if (!m->layers) { st = lk_set_error(LK_ERR_NOMEM, "model: out of memory"); goto done; }
    memset(m->layers, 0, sizeof(lk__layer) * (size_t)n_layer);
    for (il = 0; il < n_layer; il++)
        if ((st = lk__model_bind_layer(m, il, &m->layers[il]))) goto done;
    st = lk__model_check_used(m);
done:
    lk__free(&m->a, m->used, nu);
    m->used = NULL;
    return st;
}
/* check_tensors: every tensor's data through lk_validate_data */
static lk_status lk__model_check_tensors(const lk_model *m) {
    uint64_t i;
    for (i = 0; i < m->g->n_tensors; i++) {
        const lk_gguf_tensor *t = &m->g->tensors[i];
        int64_t bad;
        if (lk_validate_data(t->type, t->data, (size_t)t->nbytes, &bad))
            return lk_set_error(LK_ERR_FORMAT, "model: tensor '%.*s': %s", (int)(t->name.len > 80 ? 80 : t->name.len), t->name.ptr, lk_last_error());
    }
    return LK_OK;
}

static void lk__gelu_table(uint16_t *tab) {   /* tab[h] = GELU of the f16 value h (lk_gelu without its cut-offs) */
    uint32_t h;
    for (h = 0; h < 65536; h++) tab[h] = lk__gelu_f16((uint16_t)h);
}
/* Repack the layer matrices and an untied output head into interleaved
 * rows (14.7r) in one private buffer, where this build has a SIMD kernel
 * for their type (the kernel table's r8 SIMD column, 14.7s); release the file pages they came from, slice by slice
 * (about 8 MiB of rows each), so the resident set grows by at most a slice
 * over the file's own pages. Optional: without the memory for the buffer
 * the weights stay as they are. */
static void lk__model_repack(lk_model *m) {
    lk_tensor *ts[16];
    size_t total = 0, off = 0;
    int pass, il, k;
    unsigned char *buf = NULL;
    for (pass = 0; pass < 2; pass++) {
        for (il = -1; il < m->hp.n_layer; il++) {
            int n = 0;
            if (il < 0) { if (m->output.data && m->output.data != m->tok_embd.data) ts[n++] = &m->output; }
            else {
                lk__layer *L = &m->layers[il];
                ts[n++] = &L->wq; ts[n++] = &L->wk; ts[n++] = &L->wv; ts[n++] = &L->wqkv; ts[n++] = &L->wo;
                ts[n++] = &L->ffn_gate; ts[n++] = &L->ffn_up; ts[n++] = &L->ffn_down;
            }
            for (k = 0; k < n; k++) {
                lk_tensor *t = ts[k], v, o;
                const size_t size = t->data && lk__kernels_of(t->type)->r8_simd ? lk_repack_r8_size(t) : 0, nb = (size + 63) & ~(size_t)63;
                const unsigned char *src = LK__CAST(const unsigned char *, t->data);
                int64_t r0, step;
                if (!size || t->layout != LK_LAYOUT_ROWS || t->ne[2] != 1 || t->ne[3] != 1 || t->nb[1] != lk_row_size(t->type, t->ne[0])) continue;
                if (!pass) { total += nb; continue; }
                step = (int64_t)(((size_t)8 << 20) / t->nb[1]) & ~(int64_t)7;
                if (step < 8) step = 8;
                v = *t;
                for (r0 = 0; r0 < t->ne[1]; r0 += step) {
                    const size_t at = size / (size_t)(t->ne[1] / 8) * (size_t)(r0 / 8);   /* a group's bytes x groups before */
                    v.ne[1] = t->ne[1] - r0 < step ? t->ne[1] - r0 : step;
                    v.data = LK__CAST(void *, (const void *)(src + (size_t)r0 * t->nb[1]));
                    if (lk_repack_r8(&v, buf + off + at, size - at, &o)) break;   /* cannot fail for the tensors selected */
                    lk__gguf_release(m->g, v.data, (size_t)v.ne[1] * t->nb[1]);
                }
                if (r0 < t->ne[1]) continue;
                lk__gguf_release(m->g, src, lk_tensor_nbytes(t));   /* the pages across slice boundaries */
                o = *t;
                o.data = buf + off;
                o.layout = LK_LAYOUT_R8;
                *t = o;
                off += nb;
            }
        }
        if (!pass) {
            if (!total) return;
            buf = LK__CAST(unsigned char *, m->a.alloc(m->a.user, total, 64));
            if (!buf) return;   /* not enough memory: keep the file's layout */
            m->repack_buf = buf; m->repack_size = total;
        }
    }
}

static lk_status lk__model_finish(lk_model *m, const lk_model_params *p, lk_model **out) {
    lk_status st;
    if ((st = lk__model_hparams(m)) || (st = lk__model_bind(m)) || (p && p->check_tensors && (st = lk__model_check_tensors(m)))) {
        lk_model_free(m);
        return st;
    }
    if ((p ? p->repack : 0) > 0 || ((p ? p->repack : 0) == 0 && m->g->mapping_fd_ > 0)) lk__model_repack(m);
    if (m->ai->ffn == LK__FFN_GELU || m->ai->ffn == LK__FFN_GEGLU) {
        /* lk_gelu depends only on the f16 value of its input (|x| < 10):
         * one table of 65536 f16 results, as ggml's; without memory for it
         * lk__gelu_rows computes each value */
        m->gelu_tab = LK__CAST(uint16_t *, m->a.alloc(m->a.user, 65536 * sizeof(uint16_t), 64));
        if (m->gelu_tab) lk__gelu_table(m->gelu_tab);
    }
#ifndef LLMKIT_NO_TOKENIZER
    if (lk_gguf_find_key(m->g, "tokenizer.ggml.model") >= 0) {
        lk_vocab_params vp = lk_vocab_default_params();
        vp.alloc = &m->a;
        if ((st = lk_vocab_load(m->g, &vp, &m->vocab))) { lk_model_free(m); return st; }
        if (lk_vocab_n_tokens(m->vocab) != m->hp.n_vocab) {
            st = lk_set_error(LK_ERR_FORMAT, "model: the tokenizer has %d tokens but token_embd.weight has %d rows",
                              lk_vocab_n_tokens(m->vocab), m->hp.n_vocab);
            lk_model_free(m);
            return st;
        }
    }
#endif
    *out = m;
    return LK_OK;
}
static lk_model *lk__model_new(const lk_model_params *p) {
    lk_allocator a = lk__resolve_alloc(p ? p->alloc : NULL);
    lk_model *m = LK__CAST(lk_model *, a.alloc(a.user, sizeof(lk_model), 16));
    if (!m) return NULL;
    memset(m, 0, sizeof *m);
    m->a = a;
    return m;
}
LKDEF lk_status lk_model_load_memory(const void *buf, size_t len, const lk_model_params *p, lk_model **out) {
    lk_model *m;
    lk_gguf_params gp = lk_gguf_default_params();
    lk_status st;
    if (!out) return lk_set_error(LK_ERR_INVALID_ARG, "lk_model_load_memory: out is NULL");
    *out = NULL;
    if (!(m = lk__model_new(p))) return lk_set_error(LK_ERR_NOMEM, "model: out of memory");
    gp.alloc = &m->a;
    if ((st = lk_gguf_read_memory(buf, len, &gp, &m->g))) { lk_model_free(m); return st; }
    return lk__model_finish(m, p, out);
}
#ifndef LLMKIT_NO_STDIO
LKDEF lk_status lk_model_load_file(const char *path, const lk_model_params *p, lk_model **out) {
    lk_model *m;
    lk_gguf_params gp = lk_gguf_default_params();
    lk_status st;
    if (!out) return lk_set_error(LK_ERR_INVALID_ARG, "lk_model_load_file: out is NULL");
    *out = NULL;
    if (!(m = lk__model_new(p))) return lk_set_error(LK_ERR_NOMEM, "model: out of memory");
    gp.alloc = &m->a;
    if ((st = lk_gguf_read_file(path, &gp, &m->g))) { lk_model_free(m); return st; }
    return lk__model_finish(m, p, out);
}
#endif
LKDEF void lk_model_free(lk_model *m) {
    lk_allocator a;
    if (!m) return;
    a = m->a;
    if (m->layers) lk__free(&a, m->layers, sizeof(lk__layer) * (size_t)m->hp.n_layer);
    if (m->repack_buf) lk__free(&a, m->repack_buf, m->repack_size);
    if (m->gelu_tab) lk__free(&a, m->gelu_tab, 65536 * sizeof(uint16_t));
#ifndef LLMKIT_NO_TOKENIZER
    lk_vocab_free(m->vocab);
#endif
    lk_gguf_free(m->g);
    lk__free(&a, m, sizeof *m);
}
LKDEF size_t lk_model_repacked_bytes(const lk_model *m) { return m ? m->repack_size : 0; }
LKDEF uint64_t lk_model_weight_bytes(const lk_model *m) {
    uint64_t n = 0;
    int il;
    const lk_tensor *ts;
    for (il = 0; il < m->hp.n_layer; il++) {
        const lk__layer *L = &m->layers[il];
        const lk_tensor *w[] = { &L->wq, &L->wk, &L->wv, &L->wqkv, &L->wo, &L->ffn_gate, &L->ffn_up, &L->ffn_down };
        size_t k;
        for (k = 0; k < sizeof w / sizeof w[0]; k++) if (w[k]->data) n += lk_tensor_nbytes(w[k]);
    }
    ts = &m->output;
    return n + lk_tensor_nbytes(ts);
}

/* ---- context ---------------------------------------------------------------- */
struct lk_context {
    const lk_model *m;
    lk_context_params p;
    lk_threads th;
    lk_allocator a;
    void *mem; size_t mem_size;     /* one block for everything below but the policy state */
    lk_kv_cache kv;                 /* [n_layer][n_ctx] K and V rows          */
    int n_ctx, n_batch, n_threads;
    /* activations of one chunk of up to B = n_batch tokens (E = n_embd,
     * F = n_ff, H = n_head, G = n_head_kv, d = head_dim, V = n_vocab) */
    float *x;                       /* [B, E] residual stream                 */
    float *xn;                      /* [B, E] normed input of a block; output rows */
    float *q;                       /* [B, H, d] queries                      */
    float *k, *v;                   /* [B, G, d] this chunk's keys, values    */
    float *att;                     /* [B, H, d] attention output             */
    float *o;                       /* [B, E] a block's output; a position embedding row */
    float *ff1;                     /* [B, max(2F, H d + 2 G d, Fe)] gate, fused up or fused qkv */
    float *ff2;                     /* [B, max(F, Fe)] up, then the FFN hidden state */
    /* mixture of experts (X = n_expert, k = n_expert_used, Fe = n_ff_exp) */
    float *moe_p;                   /* [B, X] router scores                   */
    float *lse;                     /* [B, H] attention log-sum-exps (attention sinks only) */
    float *moe_w;                   /* [B, k] the chosen experts' weights     */
    int *moe_sel;                   /* [B, k] the chosen experts, best first  */
    int *moe_row;                   /* [B] (token k + rank) of each gathered row */
    float *moe_x;                   /* [B, E] the rows routed to one expert   */
    float *moe_y;                   /* [B, k, E] expert outputs, by token and rank */
    float *logits;                  /* [1 or B (logits_all), V]               */
    int *posbuf, *segbuf;           /* [B] positions and segments of the chunk */
    int32_t *tree_par;              /* [B] parents of the pending token tree   */
    int tree_n, tree_slot0;         /* its nodes (0: none) and first slot      */
    void *mm; size_t mm_size;       /* lk_matmul scratch: quantized activations */
    int n_logit_rows;               /* rows of logits held from the last batch */
    int logit_row0;                 /* batch row of logits row 0               */
    lk__kvp kp;                     /* KV policy state and attention scratch (14.10p) */
    void *pol; size_t pol_size;     /* the policy state's allocation           */
    /* sequences (n_seq_max > 0; S = n_seq_max, P = pages = n_ctx / pg) */
    int n_seq, pg, n_pages, n_free; /* S, rows per page, P, free pages          */
    int32_t *seq_rows;              /* [S][n_ctx] each sequence's rows, in order */
    int *seq_n;                     /* [S] its tokens (-1: not live)            */
    int *seq_tmp;                   /* [4 S] a batch's per-sequence scratch     */
    int32_t *page_ref;              /* [P] sequences using each page (0: free)  */
    int32_t *page_free;             /* [P] the free pages (a stack)             */
    int32_t *bslot;                 /* [B] a chunk's slots                      */
    const int32_t **brows;          /* [B] the rows each token of a chunk sees  */
    int *bn;                        /* [B] how many                             */
    int32_t *logit_tok;             /* [logits rows] the batch index of each row */
    int n_logit_cap, batch_n;       /* logits rows held at most; the last batch's size */
};

LKDEF lk_context_params lk_context_default_params(void) {
    lk_context_params p;
    memset(&p, 0, sizeof p);
    p.n_ctx = 0; p.n_batch = 512; p.kv_type = LK_TYPE_F16; p.logits_all = 0;
    p.kv_zip_window = 32; p.attn_score = LK_ATTN_SOFTMAX; p.lssar_p = 15.0f;
    p.kv_policy = lk_kv_policy_default_params();
    return p;
}

/* The context's options (section 13's option tables). kv-type's zip4 and
 * zip2 are an f16 window plus 4- or 2-bit codes (kv_zip_bits). */
static const char *const lk__attn_names[] = { "softmax", "lssa", "lssar", NULL };
static const int lk__attn_values[] = { LK_ATTN_SOFTMAX, LK_ATTN_LSSA, LK_ATTN_LSSAR };
static const lk_option_choices lk__attn_choices = { lk__attn_names, NULL, lk__attn_values, 0, NULL };
static const char *const lk__kvt_names[] = { "f32", "f16", "q8_0", "q4_0", "zip4", "zip2", NULL };
static const int lk__kvt_values[] = { LK_TYPE_F32, LK_TYPE_F16, LK_TYPE_Q8_0, LK_TYPE_Q4_0, LK_TYPE_F16, LK_TYPE_F16 };
static const int lk__kvt_zip[] = { 0, 0, 0, 0, 4, 2 };
static const lk_option_choices lk__kvt_choices = { lk__kvt_names, NULL, lk__kvt_values, offsetof(lk_context_params, kv_zip_bits), lk__kvt_zip };
static const char *lk__kv_policy_choice(int k) { return k < LK_KV_POLICY_COUNT ? lk_kv_policy_name((lk_kv_policy)k) : NULL; }
static const lk_option_choices lk__kv_policy_choices = { NULL, lk__kv_policy_choice, NULL, 0, NULL };
static const char *const lk__twilight_names[] = { "full", "quest", NULL };
static const int lk__twilight_values[] = { LK_KV_FULL, LK_KV_QUEST };
static const lk_option_choices lk__twilight_choices = { lk__twilight_names, NULL, lk__twilight_values, 0, NULL };
#define LK__C lk_context_params
#define LK__P(f) LK__FIELD2(LK__C, kv_policy, lk_kv_policy_params, f)
static const lk_option lk__context_options[] = {
    /* name            alias kind           field (offset, size)             lo  hi           choices                 arg    help */
    { "ctx-size",      "c",  LK_OPT_INT,    LK__FIELD(LK__C, n_ctx),         0,  INT_MAX,     NULL,                   "N",   "context size in tokens; 0: the model's training context, at most 4096" },
    { "batch-size",    "b",  LK_OPT_INT,    LK__FIELD(LK__C, n_batch),       1,  INT_MAX,     NULL,                   "N",   "tokens per forward in a prompt's prefill" },
    { "threads",       "t",  LK_OPT_INT,    LK__FIELD(LK__C, n_threads),     -1, 4096,        NULL,                   "N",   "threads; <= 0: all cores (with OpenMP)" },
    { "attn",          NULL, LK_OPT_CHOICE, LK__FIELD(LK__C, attn_score),    0,  0,           &lk__attn_choices,      NULL,  "attention scores (section 9)" },
    { "lssar-p",       NULL, LK_OPT_FLOAT,  LK__FIELD(LK__C, lssar_p),       0,  LK__OPT_INF, NULL,                   "P",   "the LSSAR power" },
    { "attn-split",    NULL, LK_OPT_INT,    LK__FIELD(LK__C, attn_split),    0,  1024,        NULL,                   "N",   "> 1: a one-token decode splits each head's keys in N parts" },
    { "attn-tile",     NULL, LK_OPT_INT,    LK__FIELD(LK__C, attn_tile),     0,  INT_MAX,     NULL,                   "N",   "> 0: flash-style tiles of N keys" },
    { "kv-type",       "kv", LK_OPT_CHOICE, LK__FIELD(LK__C, kv_type),       0,  0,           &lk__kvt_choices,       NULL,  "KV cache type (zip4, zip2: f16 window, 4- / 2-bit codes)" },
    { "kv-window",     NULL, LK_OPT_INT,    LK__FIELD(LK__C, kv_zip_window), 1,  INT_MAX,     NULL,                   "N",   "zip: the newest rows kept in f16" },
    { "kv-rotate",     NULL, LK_OPT_INT,    LK__FIELD(LK__C, kv_rotate),     0,  1,           NULL,                   "0|1", "1: store K and V Hadamard-rotated (head_dim a power of two)" },
    { "tree-nodes",    NULL, LK_OPT_INT,    LK__FIELD(LK__C, n_tree),        0,  INT_MAX,     NULL,                   "N",   "most token-tree nodes per lk_decode_tree" },
    { "kv-policy",     NULL, LK_OPT_CHOICE, LK__P(policy),                   0,  0,           &lk__kv_policy_choices, NULL,  "which KV rows each query reads (section 10)" },
    { "kv-budget",     NULL, LK_OPT_INT,    LK__P(budget),                   0,  INT_MAX,     NULL,                   "N",   "the policy's rows per layer; 0: all" },
    { "n-sink",        NULL, LK_OPT_INT,    LK__P(n_sink),                   0,  INT_MAX,     NULL,                   "N",   "streaming, tokenselect: first rows always kept" },
    { "kv-recent",     NULL, LK_OPT_INT,    LK__P(recent),                   0,  INT_MAX,     NULL,                   "N",   "h2o, keyformer, tokenselect: newest rows kept (0: from the budget)" },
    { "page-size",     NULL, LK_OPT_INT,    LK__P(page_size),                1,  65536,       NULL,                   "N",   "quest: rows per page" },
    { "top-p-attn",    NULL, LK_OPT_FLOAT,  LK__P(top_p),                    0,  1,           NULL,                   "P",   "twilight: the attention mass kept" },
    { "twilight-base", NULL, LK_OPT_CHOICE, LK__P(twilight_base),            0,  0,           &lk__twilight_choices,  NULL,  "twilight: the candidates' selector" },
    { "kv-seed",       NULL, LK_OPT_U64,    LK__P(seed),                     0,  LK__OPT_I64, NULL,                   "S",   "keyformer: seed of the Gumbel noise" },
    { "reuse-cos",     NULL, LK_OPT_FLOAT,  LK__P(reuse_cos),                0,  1,           NULL,                   "C",   "tokenselect: reuse the selection while cos(q, last q) >= C; 0: off" },
    { "parallel",      "np", LK_OPT_INT,    LK__FIELD(LK__C, n_seq_max),     0,  65536,       NULL,                   "N",   "independent sequences in one KV pool (lk_decode_batch)" },
    { "kv-page",       NULL, LK_OPT_INT,    LK__FIELD(LK__C, kv_page),       1,  65536,       NULL,                   "N",   "with parallel: rows per KV page" },
};
#undef LK__P
#undef LK__C
LKDEF lk_status lk_context_params_set(lk_context_params *p, const char *name, const char *v) {
    return lk__options_set(lk__context_options, (int)(sizeof lk__context_options / sizeof lk__context_options[0]), "context",
                           "lk_context_params_set", p, name, v);
}

/* the sizes of every buffer, shared by memory_size and new */
typedef struct lk__ctx_sizes {
    size_t posb, x, q, kvr, ff1, ff2, logits, scores, scr_i, scr_p, split, mm, kv, total;
    size_t moe_p, moe_k, moe_y;     /* [B, X] floats; [B, k] floats or ints; [B, k, E] floats */
    size_t lse;                     /* [B, H] floats (attention sinks)        */
    size_t seq_rows, seq_n, pages, bptr, logit_tok;   /* sequences (n_seq_max > 0) */
    int n_ctx, n_batch, n_thr, n_tasks, n_logit, pg;   /* pg: rows per KV page (sequences) */
    size_t scr_f;
    lk_kv_cache_params kvp;
    lk__kvp dims;                   /* the policy's settings and the model's dims */
    lk__kvp_sizes pol;              /* its state (a second allocation)            */
} lk__ctx_sizes;
static size_t lk__mm_max(const lk_model *m, int nb) {
    size_t mx = 0, s;
    int il;
#define LK__MM(t) do { if ((t).data && (s = lk_matmul_scratch_size((t).type, (t).ne[0], nb)) > mx) mx = s; } while (0)
    for (il = 0; il < m->hp.n_layer; il++) {
        const lk__layer *L = &m->layers[il];
        LK__MM(L->wq); LK__MM(L->wk); LK__MM(L->wv); LK__MM(L->wqkv); LK__MM(L->wo);
        LK__MM(L->ffn_gate); LK__MM(L->ffn_up); LK__MM(L->ffn_down);
        LK__MM(L->gate_inp); LK__MM(L->gate_exps); LK__MM(L->up_exps); LK__MM(L->down_exps);
    }
    LK__MM(m->output);
#undef LK__MM
    return mx;
}
static lk_status lk__ctx_sizes_get(const lk_model *m, const lk_context_params *p, lk__ctx_sizes *z) {
    const lk_hparams *hp = &m->hp;
    int nq = hp->n_head * hp->head_dim_k, nkv = hp->n_head_kv * hp->head_dim_k, f1, d = hp->head_dim_k, L = hp->n_layer;
    lk_status st;
    memset(z, 0, sizeof *z);
    z->n_ctx = p->n_ctx > 0 ? p->n_ctx : hp->n_ctx_train < LK_CTX_DEFAULT ? hp->n_ctx_train : LK_CTX_DEFAULT;
    z->n_batch = p->n_batch > 0 ? p->n_batch : 512;
    if (z->n_ctx > (1 << 24)) return lk_set_error(LK_ERR_INVALID_ARG, "context: n_ctx %d is too large", z->n_ctx);
    if (p->n_seq_max < 0 || p->n_seq_max > 65536 || p->kv_page < 0 || p->kv_page > 65536)
        return lk_set_error(LK_ERR_INVALID_ARG, "context: n_seq_max %d and kv_page %d must be in [0, 65536]", p->n_seq_max, p->kv_page);
    if (p->n_seq_max > 0) {   /* the pool: whole pages */
        const lk_kv_policy pol = p->kv_policy.policy;
        if (p->kv_zip_bits || (pol != LK_KV_FULL && pol != LK_KV_STREAMING) || p->n_tree > 0)
            return lk_set_error(LK_ERR_UNSUPPORTED, "context: n_seq_max > 0 works with the full and streaming KV policies, without the zip format or token trees");
        z->pg = p->kv_page > 0 ? p->kv_page : 16;
        z->n_ctx = (z->n_ctx + z->pg - 1) / z->pg * z->pg;
    }
    if (z->n_batch > z->n_ctx) z->n_batch = z->n_ctx;
    if (p->kv_type != LK_TYPE_F32 && p->kv_type != LK_TYPE_F16 && p->kv_type != LK_TYPE_Q8_0 && p->kv_type != LK_TYPE_Q4_0)
        return lk_set_error(LK_ERR_UNSUPPORTED, "context: kv_type %s is not supported (f32, f16, q8_0, q4_0)", lk_type_name(p->kv_type));
    if ((p->kv_type == LK_TYPE_Q8_0 || p->kv_type == LK_TYPE_Q4_0) && nkv % 32)
        return lk_set_error(LK_ERR_UNSUPPORTED, "context: kv_type %s needs n_head_kv*head_dim (%d) to be a multiple of 32", lk_type_name(p->kv_type), nkv);
    if (p->kv_zip_bits && ((p->kv_zip_bits != 2 && p->kv_zip_bits != 4) || (p->kv_type != LK_TYPE_F16 && p->kv_type != LK_TYPE_F32) || (d * p->kv_zip_bits) % 8 || d > 512))
        return lk_set_error(LK_ERR_UNSUPPORTED, "context: kv_zip_bits %d needs 2 or 4 bits, an f16/f32 window and head_dim*bits %% 8 == 0", p->kv_zip_bits);
    if (p->kv_rotate && (d & (d - 1)))
        return lk_set_error(LK_ERR_UNSUPPORTED, "context: kv_rotate needs a head_dim that is a power of two (this model's is %d)", d);
    if ((unsigned)p->attn_score > (unsigned)LK_ATTN_LSSAR) return lk_set_error(LK_ERR_INVALID_ARG, "context: unknown attn_score %d", (int)p->attn_score);
    if ((m->ai->opt & LK__T_SINKS) && p->attn_score != LK_ATTN_SOFTMAX)
        return lk_set_error(LK_ERR_UNSUPPORTED, "context: attn_score %d with attention sinks (%s) is not supported: the sinks are softmax terms",
                            (int)p->attn_score, m->ai->name);
    if (p->attn_split < 0 || p->attn_tile < 0 || p->attn_split > 1024)
        return lk_set_error(LK_ERR_INVALID_ARG, "context: negative attention parameter (or attn_split > 1024)");
    z->dims.pp = p->kv_policy;
    z->dims.n_layer = L; z->dims.n_head = hp->n_head; z->dims.n_head_kv = hp->n_head_kv; z->dims.head_dim = d; z->dims.n_ctx = z->n_ctx;
    if ((st = lk__kvp_sizes_get(&z->dims, &z->pol))) return st;
    {
        lk_threads th;
        th.parallel_for = p->parallel_for; th.user = p->parallel_user; th.n_threads = p->n_threads;
        z->n_thr = lk_threads_count(&th);
    }
    if (z->n_thr < 1) z->n_thr = 1;
    /* task scratch: full attention runs at most n_thr tasks at once (lk__attend_rows); the
     * other policies run one task per head (lk__h2o_fn, lk__ts_fn) */
    z->n_tasks = z->n_thr > hp->n_head || p->kv_policy.policy == LK_KV_FULL ? z->n_thr : hp->n_head;
    f1 = 2 * hp->n_ff > nq + 2 * nkv ? 2 * hp->n_ff : nq + 2 * nkv;
    if (hp->n_ff_exp > f1) f1 = hp->n_ff_exp;
    /* every size saturates (lk__szm): a model or setting that cannot be
     * addressed is refused below instead of wrapping around */
    z->posb = lk__pad64(lk__szm(sizeof(int), (size_t)z->n_batch));
    z->x = lk__pad64(lk__szm(sizeof(float) * (size_t)z->n_batch, (size_t)hp->n_embd));
    z->q = lk__pad64(lk__szm(sizeof(float) * (size_t)z->n_batch, (size_t)nq));
    z->kvr = lk__pad64(lk__szm(sizeof(float) * (size_t)z->n_batch, (size_t)nkv));
    z->ff1 = lk__pad64(lk__szm(sizeof(float) * (size_t)z->n_batch, (size_t)f1));
    z->ff2 = lk__pad64(lk__szm(sizeof(float) * (size_t)z->n_batch, (size_t)(hp->n_ff > hp->n_ff_exp ? hp->n_ff : hp->n_ff_exp)));
    if (hp->n_expert > 0) {
        z->moe_p = lk__pad64(lk__szm(sizeof(float) * (size_t)z->n_batch, (size_t)hp->n_expert));
        z->moe_k = lk__pad64(lk__szm(sizeof(float) * (size_t)z->n_batch, (size_t)hp->n_expert_used));
        z->moe_y = lk__pad64(lk__szm(lk__szm(sizeof(float) * (size_t)z->n_batch, (size_t)hp->n_expert_used), (size_t)hp->n_embd));
    }
    if (m->ai->opt & LK__T_SINKS) z->lse = lk__pad64(lk__szm(sizeof(float) * (size_t)z->n_batch, (size_t)hp->n_head));
    if (p->n_tree < 0 || p->n_tree > z->n_batch)
        return lk_set_error(LK_ERR_INVALID_ARG, "context: n_tree %d must be in [0, n_batch %d]", p->n_tree, z->n_batch);
    z->n_logit = p->logits_all ? z->n_batch : p->n_tree > 1 ? p->n_tree : p->n_seq_max > 1 ? p->n_seq_max : 1;
    z->logits = lk__pad64(lk__szm(sizeof(float) * (size_t)z->n_logit, (size_t)hp->n_vocab));
    if (p->n_seq_max > 0) {
        const int np = z->n_ctx / z->pg;
        z->seq_rows = lk__pad64(lk__szm(sizeof(int32_t) * (size_t)p->n_seq_max, (size_t)z->n_ctx));
        z->seq_n = lk__pad64(sizeof(int) * 5 * (size_t)p->n_seq_max);
        z->pages = lk__pad64(sizeof(int32_t) * 2 * (size_t)np);
        z->bptr = lk__pad64((sizeof(int32_t) + sizeof(int32_t *) + sizeof(int)) * (size_t)z->n_batch);
        z->logit_tok = lk__pad64(sizeof(int32_t) * (size_t)z->n_logit);
    }
    /* see lk__h2o_fn: lk_attn scratch | logits | tmp; lk__attn_qblock (an f16 cache, head_dim % 16 == 0):
     * LK__QB rows of n_ctx; lk__attn_pair8: two lk_attn scratches */
    z->scr_f = (p->kv_policy.policy != LK_KV_FULL || (p->kv_type == LK_TYPE_F16 && d % 16 == 0) ? LK__QB : 2) * (size_t)z->n_ctx + 20 * (size_t)d + 256;
    z->scores = lk__pad64(lk__szm(sizeof(float) * (size_t)z->n_tasks, z->scr_f));
    z->scr_i = lk__pad64(lk__szm(sizeof(int32_t) * 2 * (size_t)z->n_tasks, (size_t)z->n_ctx));
    z->scr_p = lk__pad64(lk__szm(sizeof(lk__sel_pair) * (size_t)z->n_tasks, (size_t)z->n_ctx));
    if (p->attn_split > 1) {
        int per = (z->n_ctx + p->attn_split - 1) / p->attn_split;
        lk_attn_params ap = lk_attn_default_params(d);
        z->split = lk__pad64(sizeof(float) * ((size_t)p->attn_split * ((size_t)d + 1 + lk_attn_scratch_floats(&ap, per)) + lk_attn_scratch_floats(&ap, z->n_ctx)));
    }
    z->mm = lk__pad64(lk__mm_max(m, z->n_batch));
    memset(&z->kvp, 0, sizeof z->kvp);
    z->kvp.type = p->kv_type; z->kvp.n_layer = L; z->kvp.n_ctx = z->n_ctx; z->kvp.n_embd_k = nkv; z->kvp.n_embd_v = nkv;
    z->kvp.head_dim = d; z->kvp.zip_bits = p->kv_zip_bits; z->kvp.zip_window = p->kv_zip_window;
    z->kv = lk__pad64(lk_kv_cache_bytes(&z->kvp));
    if (!z->kv) return lk_set_error(LK_ERR_NOMEM, "context: the KV cache for n_ctx %d cannot be addressed (or its settings are invalid)", z->n_ctx);
    /* x, xn, o: 3 x; q, att: 2 q; k, v: 2 kvr; posbuf, segbuf: 2 posb */
    {   /* x, xn, o: 3 x; q, att: 2 q; k, v: 2 kvr; posbuf, segbuf: 2 posb */
        const size_t parts[] = { z->posb, z->posb, z->posb, z->x, z->x, z->x, z->q, z->q, z->kvr, z->kvr, z->ff1, z->ff2, z->logits,
                                 z->scores, z->scr_i, z->scr_p, z->split, z->mm, z->kv, 64,
                                 z->moe_p, z->moe_k, z->moe_k, z->moe_y, hp->n_expert > 0 ? z->posb + z->x : 0,
                                 z->seq_rows, z->seq_n, z->pages, z->bptr, z->logit_tok, z->lse };
        size_t k;
        for (k = 0; k < sizeof parts / sizeof parts[0]; k++) z->total = lk__sza(z->total, parts[k]);
    }
    if (z->total >= SIZE_MAX / 2 || z->pol.total >= SIZE_MAX / 2)
        return lk_set_error(LK_ERR_NOMEM, "context: n_ctx %d with this model needs more memory than can be addressed", z->n_ctx);
    return LK_OK;
}
LKDEF size_t lk_context_memory_size(const lk_model *m, const lk_context_params *p) {
    lk__ctx_sizes z;
    lk_context_params d = lk_context_default_params();
    /* lk_context_new's three allocations (the struct, the buffers, the policy state), each
     * with room for its alignment */
    return m && lk__ctx_sizes_get(m, p ? p : &d, &z) == LK_OK ? sizeof(lk_context) + 16 + z.total + 64 + z.pol.total + 64 : 0;
}
LKDEF lk_status lk_context_new(const lk_model *m, const lk_context_params *pp, lk_context **out) {
    lk_context_params p = pp ? *pp : lk_context_default_params();
    lk__ctx_sizes z;
    lk_context *c;
    lk_allocator a = lk__resolve_alloc(p.alloc);
    unsigned char *q;
    size_t pol_bytes;
    lk_status st;
    if (!m || !out) return lk_set_error(LK_ERR_INVALID_ARG, "lk_context_new: NULL argument");
    *out = NULL;
    if ((st = lk__ctx_sizes_get(m, &p, &z))) return st;
    c = LK__CAST(lk_context *, a.alloc(a.user, sizeof *c, 16));
    if (!c) return lk_set_error(LK_ERR_NOMEM, "context: out of memory");
    memset(c, 0, sizeof *c);
    c->m = m; c->p = p; c->a = a;
    if (c->p.lssar_p == 0.0f) c->p.lssar_p = 15.0f;
    c->th.parallel_for = p.parallel_for; c->th.user = p.parallel_user; c->th.n_threads = p.n_threads;
    c->n_ctx = z.n_ctx; c->n_batch = z.n_batch; c->n_threads = z.n_thr;
    pol_bytes = z.pol.total + 64;
    c->mem = a.alloc(a.user, z.total, 64);
    c->pol = a.alloc(a.user, pol_bytes, 64);
    if (!c->mem || !c->pol) {
        if (c->mem) lk__free(&a, c->mem, z.total);
        if (c->pol) lk__free(&a, c->pol, pol_bytes);
        lk__free(&a, c, sizeof *c);
        return lk_set_error(LK_ERR_NOMEM, "context: cannot allocate %llu bytes (n_ctx %d, n_batch %d)", (unsigned long long)(z.total + pol_bytes), z.n_ctx, z.n_batch);
    }
    c->mem_size = z.total; c->pol_size = pol_bytes;
    memset(c->pol, 0, pol_bytes);
    q = LK__CAST(unsigned char *, c->mem);
#define LK__TAKE(ptr, T, sz) do { ptr = LK__CAST(T, q); q += (sz); } while (0)
    LK__TAKE(c->x, float *, z.x); LK__TAKE(c->xn, float *, z.x); LK__TAKE(c->o, float *, z.x);
    LK__TAKE(c->q, float *, z.q); LK__TAKE(c->att, float *, z.q);
    LK__TAKE(c->k, float *, z.kvr); LK__TAKE(c->v, float *, z.kvr);
    LK__TAKE(c->ff1, float *, z.ff1); LK__TAKE(c->ff2, float *, z.ff2);
    if (m->hp.n_expert > 0) {
        LK__TAKE(c->moe_p, float *, z.moe_p); LK__TAKE(c->moe_w, float *, z.moe_k); LK__TAKE(c->moe_sel, int *, z.moe_k);
        LK__TAKE(c->moe_y, float *, z.moe_y); LK__TAKE(c->moe_row, int *, z.posb); LK__TAKE(c->moe_x, float *, z.x);
    }
    if (z.lse) LK__TAKE(c->lse, float *, z.lse);
    LK__TAKE(c->logits, float *, z.logits);
    LK__TAKE(c->mm, void *, z.mm); LK__TAKE(c->posbuf, int *, z.posb); LK__TAKE(c->segbuf, int *, z.posb);
    LK__TAKE(c->tree_par, int32_t *, z.posb);
    c->n_logit_cap = z.n_logit;
    if (p.n_seq_max > 0) {   /* every sequence free, every page free */
        int i;
        c->n_seq = p.n_seq_max; c->pg = z.pg; c->n_pages = c->n_free = z.n_ctx / z.pg;
        LK__TAKE(c->seq_rows, int32_t *, z.seq_rows); LK__TAKE(c->seq_n, int *, z.seq_n);
        c->seq_tmp = c->seq_n + p.n_seq_max;
        LK__TAKE(c->page_ref, int32_t *, z.pages);
        c->page_free = c->page_ref + c->n_pages;
        LK__TAKE(c->brows, const int32_t **, z.bptr);
        c->bslot = LK__CAST(int32_t *, c->brows + z.n_batch);
        c->bn = LK__CAST(int *, c->bslot + z.n_batch);
        LK__TAKE(c->logit_tok, int32_t *, z.logit_tok);
        for (i = 0; i < c->n_seq; i++) c->seq_n[i] = -1;
        for (i = 0; i < c->n_pages; i++) { c->page_ref[i] = 0; c->page_free[i] = c->n_pages - 1 - i; }   /* page 0 on top */
    }
    c->kp = z.dims;
    LK__TAKE(c->kp.scores, float *, z.scores); LK__TAKE(c->kp.scr_i, int32_t *, z.scr_i); LK__TAKE(c->kp.scr_p, lk__sel_pair *, z.scr_p);
    if (z.split) LK__TAKE(c->kp.split_scr, float *, z.split);
#undef LK__TAKE
    c->kp.scr_f = z.scr_f;
    c->mm_size = z.mm;
    if ((st = lk_kv_cache_init(&c->kv, &z.kvp, q))) {
        lk_context_free(c);
        return st;
    }
    lk__kvp_bind(&c->kp, &z.pol, LK__CAST(unsigned char *, c->pol));
    lk__kvp_truncate(&c->kp, 0);
    *out = c;
    return LK_OK;
}
LKDEF void lk_context_free(lk_context *c) {
    lk_allocator a;
    if (!c) return;
    a = c->a;
    lk__free(&a, c->mem, c->mem_size);
    if (c->pol) lk__free(&a, c->pol, c->pol_size);
    lk__free(&a, c, sizeof *c);
}
LKDEF int lk_context_n_past(const lk_context *c) { return c->kv.n; }
LKDEF int lk_context_n_ctx(const lk_context *c) { return c->n_ctx; }
LKDEF const lk_kv_cache *lk_context_kv(const lk_context *c) { return &c->kv; }
static void lk__kvp_rebuild(lk_context *c, int from, int n);   /* 14.13 */
LKDEF lk_status lk_context_truncate(lk_context *c, int n) {
    if (c && c->n_seq) return lk_set_error(LK_ERR_INVALID_ARG, "context: it holds sequences (n_seq_max > 0): truncate one with lk_seq_truncate");
    if (!c || n < 0 || n > c->kv.n) return lk_set_error(LK_ERR_RANGE, "context: cannot truncate to %d tokens (have %d)", n, c ? c->kv.n : 0);
    if (c->tree_n > 0 && n > c->tree_slot0)
        return lk_set_error(LK_ERR_INVALID_ARG, "context: a token tree is pending after token %d: commit it (lk_context_tree_commit) or truncate to at most %d", c->tree_slot0, c->tree_slot0);
    c->tree_n = 0;
    lk_kv_cache_truncate(&c->kv, n);
    lk__kvp_truncate(&c->kp, n);
    if (n % (c->kp.pg > 0 ? c->kp.pg : 1)) lk__kvp_rebuild(c, n, n);   /* Quest: the bounds of n's page, without the dropped rows */
    c->n_logit_rows = 0;
    return LK_OK;
}
LKDEF const float *lk_logits(const lk_context *c, int i) {
    if (!c || c->n_logit_rows == 0) return NULL;
    if (c->n_seq) {   /* batch index i: binary search of the rows kept (ascending) */
        int lo = 0, hi = c->n_logit_rows;
        if (i < 0) i += c->batch_n;
        while (lo < hi) { int mid = (lo + hi) / 2; if (c->logit_tok[mid] < i) lo = mid + 1; else hi = mid; }
        return lo < c->n_logit_rows && c->logit_tok[lo] == i ? c->logits + (size_t)lo * c->m->hp.n_vocab : NULL;
    }
    if (i < 0) i += c->logit_row0 + c->n_logit_rows;
    i -= c->logit_row0;
    if (i < 0 || i >= c->n_logit_rows) return NULL;
    return c->logits + (size_t)i * c->m->hp.n_vocab;
}

/* y[k] = gelu(x[k]) (mul 0) or y[k] *= gelu(x[k]) (mul 1), k < n: lk_gelu
 * through the model's table (the same values: x <= -10 and x >= 10 as
 * lk_gelu, else the table at x's f16 bits, which is lk__gelu_f16 of them) */
static void lk__gelu_range(const lk_model *m, float *y, const float *x, size_t n, int mul) {
    const uint16_t *tab = m->gelu_tab;
    size_t k = 0;
    if (!tab) {
        for (; k < n; k++) y[k] = mul ? y[k] * lk_gelu(x[k]) : lk_gelu(x[k]);
        return;
    }
#if defined(LK__X86)
    for (; k + 8 <= n; k += 8) {   /* F16C rounds to nearest even, as lk_fp32_to_fp16 */
        uint16_t hb[8], tb[8];
        float gt[8];
        int i;
        _mm_storeu_si128((__m128i *)(void *)hb, _mm256_cvtps_ph(_mm256_loadu_ps(x + k), 0));
        for (i = 0; i < 8; i++) tb[i] = tab[hb[i]];
        _mm256_storeu_ps(gt, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(const void *)tb)));   /* exact, as lk_fp16_to_fp32 */
        for (i = 0; i < 8; i++) {
            const float v = x[k + i], g = v <= -10.0f ? 0.0f : v >= 10.0f ? v : gt[i];
            y[k + i] = mul ? y[k + i] * g : g;
        }
    }
#endif
    for (; k < n; k++) {
        const float v = x[k], g = v <= -10.0f ? 0.0f : v >= 10.0f ? v : lk_fp16_to_fp32(tab[lk_fp32_to_fp16(v)]);
        y[k] = mul ? y[k] * g : g;
    }
}
/* y [T, n] *= s (one scale for the whole weight) */
static void lk__scale_rows(float *y, int64_t n, int T, float s) {
    int64_t i, N = n * T;
    for (i = 0; i < N; i++) y[i] *= s;
}
/* a matmul's optional bias b [n] and scale s [1] (W has rows of n_in, n
 * rows; y [T, n]), in the order llama.cpp's graph applies them: s_first,
 * y = (W x) s + b (attention projections); else y = (W x + b) s (FFN) */
static void lk__bias(const lk_tensor *W, const lk_tensor *s, const lk_tensor *b, int s_first, int T, float *y) {
    const int64_t n = W->ne[1];
    const int sc = s && s->data;
    if (sc && s_first) lk__scale_rows(y, n, T, *LK__CAST(const float *, s->data));
    if (b && b->data) {
        const float *bb = LK__CAST(const float *, b->data);
        int64_t t, i;
        for (t = 0; t < T; t++) for (i = 0; i < n; i++) y[t * n + i] += bb[i];
    }
    if (sc && !s_first) lk__scale_rows(y, n, T, *LK__CAST(const float *, s->data));
}
static lk_status lk__mm_sb(lk_context *c, const lk_tensor *W, const lk_tensor *s, const lk_tensor *b, int s_first, const float *x, int T, float *y) {
    lk_status st = lk_matmul(W, x, T, y, c->mm, c->mm_size, &c->th);
    if (!st) lk__bias(W, s, b, s_first, T, y);
    return st;
}
static lk_status lk__mm(lk_context *c, const lk_tensor *W, const lk_tensor *b, const float *x, int T, float *y) {
    return lk__mm_sb(c, W, NULL, b, 0, x, T, y);
}
/* two or three products of the same x in one parallel region (lk__matmul_n); b, s entries may be NULL */
static lk_status lk__mm_n(lk_context *c, int n, const lk_tensor *const *W, const lk_tensor *const *s, const lk_tensor *const *b, int s_first,
                          const float *x, int T, float *const *y) {
    lk_status st = lk__matmul_n(W, n, x, T, y, c->mm, c->mm_size, &c->th);
    int k;
    for (k = 0; !st && k < n; k++) lk__bias(W[k], s[k], b[k], s_first, T, y[k]);
    return st;
}

/* Store the chunk's K, V rows (c->k, c->v: [T, G, d]) of layer il at slots
 * slot0.., with the policy's per-row state and (layer 0) the positions and
 * segments. */
/* the policy's per-row state of the row stored at slot (Quest's page
 * bounds): from the key as stored (read back when the cache quantizes), so
 * that it can be rebuilt from the cache after a rollback (lk__kvp_rebuild) */
static LK__NOINL void lk__kvp_store_read(lk_context *c, int il, int slot) {   /* apart: its 33 KB of stack only where Quest reads back */
    const int G = c->m->hp.n_head_kv, d = c->m->hp.head_dim_k;
    float *kr = c->att, vtmp[4096];   /* att: [B, H, d] >= G d floats, free until the attention runs */
    int g;
    for (g = 0; g < G; g++) lk_kv_cache_read(&c->kv, il, slot, g, kr + (size_t)g * d, vtmp);
    lk__kvp_store(&c->kp, il, slot, kr);
}
static void lk__kvp_store_slot(lk_context *c, int il, int slot, const float *k) {
    if (!c->kp.quest) return;
    if (k && c->kv.type == LK_TYPE_F32 && !c->kv.zip_bits) { lk__kvp_store(&c->kp, il, slot, k); return; }
    lk__kvp_store_read(c, il, slot);
}
/* rebuild the per-row state of rows [from, n) (and of the rest of from's
 * Quest page before it) from the cache, after rows were dropped or moved */
static void lk__kvp_rebuild(lk_context *c, int from, int n) {
    int il, r;
    if (!c->kp.quest) return;
    from -= from % c->kp.pg;
    for (il = 0; il < c->m->hp.n_layer; il++)
        for (r = from; r < n; r++) lk__kvp_store_slot(c, il, r, NULL);
}
/* rows t0..t1-1 of the chunk's K, V into their cache slots */
static void lk__store_range(lk_context *c, int il, int t0, int t1, int slot0, const int *pos, const int *seg) {
    const int nkv = c->m->hp.n_head_kv * c->m->hp.head_dim_k;
    int t;
    for (t = t0; t < t1; t++) {
        const int r = c->n_seq ? c->bslot[t] : slot0 + t;   /* sequences: the slots lk_decode_batch gave */
        lk_kv_cache_store(&c->kv, il, r, c->k + (size_t)t * nkv, c->v + (size_t)t * nkv);
        lk__kvp_store_slot(c, il, r, c->k + (size_t)t * nkv);
        if (il == 0) { c->kv.pos[r] = pos[t]; c->kv.seg[r] = seg ? seg[t] : 0; }
    }
}
/* the attention of layer il for the chunk (q, att of the context) */
static lk__attn_job lk__layer_job(lk_context *c, int il, int T, const int *pos, const int *seg) {
    const lk_hparams *hp = &c->m->hp;
    lk__attn_job j;
    memset(&j, 0, sizeof j);
    j.kp = &c->kp; j.kv = &c->kv; j.th = &c->th;
    j.n_threads = c->n_threads; j.attn_split = c->p.attn_split; j.attn_tile = c->p.attn_tile;
    j.q = c->q; j.att = c->att;
    j.il = il; j.T = T; j.slot0 = c->kv.n; j.pos = pos; j.seg = seg;
    if (c->n_seq) { j.slot = c->bslot; j.trows = c->brows; j.tn = c->bn; }
    if (c->m->layers[il].sinks.data) j.lse = c->lse;
    j.ap = lk_attn_default_params(hp->head_dim_k);
    j.ap.scale = hp->attn_scale; j.ap.softcap = hp->attn_softcap;
    j.ap.window = c->m->layers[il].window;
    j.ap.f16_math = c->kv.type == LK_TYPE_F16 && !c->kv.zip_bits;
    j.ap.score = c->p.attn_score; j.ap.lssar_p = c->p.lssar_p;
    if (c->tree_n > 0) { j.ap.tree_parent = c->tree_par; j.ap.tree_row0 = c->kv.n; j.ap.tree_n = c->tree_n; }   /* lk_decode_tree */
    return j;
}

/* ---- the forward pass --------------------------------------------------------
 * Read like llama2.c's forward(): embed, then per layer an attention block
 * and an FFN block that each add to the residual stream x, then the output
 * head. Shapes: T tokens of the chunk, E = n_embd, F = n_ff, H = n_head,
 * G = n_head_kv, d = head_dim, V = n_vocab; rows are tokens. */

/* y[t] = norm(x[t]) * w (+ b) for the T rows: RMSNorm or LayerNorm by the
 * architecture. y, x: [T, E] */
static void lk__norm_range(const lk_model *m, float *y, const float *x, const lk_tensor *w, const lk_tensor *b, int t0, int T) {
    const int E = m->hp.n_embd;
    const float *wf = LK__CAST(const float *, w->data), *bf = LK__CAST(const float *, b ? b->data : NULL);
    int t;
    if (!m->ai->layernorm) { lk__rmsnorm_rows(y + (size_t)t0 * E, x + (size_t)t0 * E, wf, E, T - t0, m->hp.norm_eps); return; }
    for (t = t0; t < T; t++) lk_layernorm(y + (size_t)t * E, x + (size_t)t * E, wf, bf, E, m->hp.norm_eps);
}
/* Element-wise passes of a prefill chunk split over the context's threads
 * (each row or element is computed alone, so the split changes no result).
 * A job is one op over T units (rows, or units of 8 values for GELU); the
 * fields each op reads are named beside it. */
typedef enum lk__ew_op {
    LK__EW_NORM,       /* norm rows y = norm(x) * w (+ b) (lk__norm_rows): y, x, w, b */
    LK__EW_GELU,       /* GELU of n values (lk__gelu_rows): y, x, n, mul */
    LK__EW_SWIGLU,     /* SwiGLU rows of F (lk__swiglu): F */
    LK__EW_RESIDUAL,   /* residual rows, w the post-norm (lk__residual): w */
    LK__EW_STORE,      /* K / V rows into the cache (lk__store_rows): il, slot0, pos, seg */
    LK__EW_QK          /* q / k norms and RoPE (lk__qk_rows): il, pos */
} lk__ew_op;
typedef struct lk__ew_job {
    lk_context *c; lk__ew_op op; int T, F, il, mul; float *y; const float *x; const lk_tensor *w, *b; size_t n;
    const int *pos, *seg; int slot0;
} lk__ew_job;
static void lk__gelu_range(const lk_model *m, float *y, const float *x, size_t n, int mul);
static void lk__swiglu_range(lk_context *c, int t0, int t1, int F);
static void lk__residual_range(lk_context *c, const lk_tensor *post_norm, int t0, int t1);
static void lk__store_range(lk_context *c, int il, int t0, int t1, int slot0, const int *pos, const int *seg);
static void lk__qk_range(lk_context *c, int il, int t0, int t1, const int *pos);
static void lk__ew_task(void *arg, int task, int n_tasks) {
    const lk__ew_job *j = LK__CAST(const lk__ew_job *, arg);
    const int t0 = (int)((int64_t)j->T * task / n_tasks), t1 = (int)((int64_t)j->T * (task + 1) / n_tasks);
    switch (j->op) {
    case LK__EW_NORM: lk__norm_range(j->c->m, j->y, j->x, j->w, j->b, t0, t1); break;
    case LK__EW_GELU: {   /* T = n / 8 units of 8 values (the last unit takes the rest) */
        const size_t k0 = (size_t)t0 * 8, k1 = task == n_tasks - 1 ? j->n : (size_t)t1 * 8;
        lk__gelu_range(j->c->m, j->y + k0, j->x + k0, k1 - k0, j->mul);
        break;
    }
    case LK__EW_SWIGLU: lk__swiglu_range(j->c, t0, t1, j->F); break;
    case LK__EW_STORE: lk__store_range(j->c, j->il, t0, t1, j->slot0, j->pos, j->seg); break;
    case LK__EW_QK: lk__qk_range(j->c, j->il, t0, t1, j->pos); break;
    case LK__EW_RESIDUAL: lk__residual_range(j->c, j->w, t0, t1); break;
    }
}
static void lk__ew_run(lk_context *c, lk__ew_job *j, size_t work) {
    const int nt = c->n_threads;   /* lk_threads_count of c->th, taken at lk_context_new */
    j->c = c;
    if (nt > 1 && work >= 65536 && j->T >= nt) lk_parallel_for(&c->th, nt, lk__ew_task, j);
    else lk__ew_task(j, 0, 1);
}
static void lk__gelu_rows(lk_context *c, float *y, const float *x, size_t n, int mul) {
    lk__ew_job j;
    memset(&j, 0, sizeof j);
    j.op = LK__EW_GELU; j.y = y; j.x = x; j.n = n; j.mul = mul; j.T = (int)(n / 8);
    lk__ew_run(c, &j, n);
}
static void lk__norm_rows(lk_context *c, float *y, const float *x, const lk_tensor *w, const lk_tensor *b, int T) {
    lk__ew_job j;
    memset(&j, 0, sizeof j);
    j.op = LK__EW_NORM; j.y = y; j.x = x; j.w = w; j.b = b; j.T = T;
    lk__ew_run(c, &j, (size_t)T * (size_t)c->m->hp.n_embd * 4);   /* a norm: ~4 passes over its row */
}
/* Each row goes to its own slot; split over the threads unless a store
 * touches state shared between rows: the low-bit cache's window (rows
 * leaving it are quantized in order) or Quest's pages (and its scratch). */
static void lk__store_rows(lk_context *c, int il, int T, int slot0, const int *pos, const int *seg) {
    lk__ew_job j;
    if (c->kv.zip_bits || c->kp.quest) { lk__store_range(c, il, 0, T, slot0, pos, seg); return; }
    memset(&j, 0, sizeof j);
    j.op = LK__EW_STORE; j.T = T; j.il = il; j.slot0 = slot0; j.pos = pos; j.seg = seg;
    lk__ew_run(c, &j, (size_t)T * (size_t)(c->m->hp.n_head_kv * c->m->hp.head_dim_k) * 2);
}
/* x[t] = token_embd[tok[t]] * embd_scale (+ position_embd[pos[t]]); x: [T, E] */
static void lk__embed(lk_context *c, const lk_token *tok, const int *pos, int T) {
    const lk_model *m = c->m;
    const int E = m->hp.n_embd;
    int t, i;
    for (t = 0; t < T; t++) {
        float *xt = c->x + (size_t)t * E;
        lk_dequantize_row(m->tok_embd.type, LK__CAST(const unsigned char *, m->tok_embd.data) + (size_t)tok[t] * m->tok_embd.nb[1], xt, E);
        if (m->hp.embd_scale != 1.0f) for (i = 0; i < E; i++) xt[i] *= m->hp.embd_scale;
        if (m->pos_embd.data) {
            float *pe = c->o;   /* [E] */
            lk_dequantize_row(m->pos_embd.type, LK__CAST(const unsigned char *, m->pos_embd.data) + (size_t)pos[t] * m->pos_embd.nb[1], pe, E);
            for (i = 0; i < E; i++) xt[i] += pe[i];
        }
    }
}
/* x += o (optionally RMSNorm(o) * post_norm first); x, o: [T, E] */
static void lk__residual_range(lk_context *c, const lk_tensor *post_norm, int t0, int t1) {
    const int E = c->m->hp.n_embd;
    size_t i, n = (size_t)t1 * (size_t)E;
    if (post_norm->data)
        lk__rmsnorm_rows(c->o + (size_t)t0 * E, c->o + (size_t)t0 * E, LK__CAST(const float *, post_norm->data), E, t1 - t0, c->m->hp.norm_eps);
    for (i = (size_t)t0 * (size_t)E; i < n; i++) c->x[i] += c->o[i];
}
static void lk__residual(lk_context *c, const lk_tensor *post_norm, int T) {
    lk__ew_job j;
    memset(&j, 0, sizeof j);
    j.op = LK__EW_RESIDUAL; j.w = post_norm; j.T = T;
    lk__ew_run(c, &j, (size_t)T * (size_t)c->m->hp.n_embd * (post_norm->data ? 5 : 1));
}

/* tokens t0..t1 - 1 of layer il's q [T, H, d], k and v [T, G, d]: per-head
 * RMSNorm (before RoPE), RoPE, q scale, the cache's rotation */
static void lk__qk_range(lk_context *c, int il, int t0, int t1, const int *pos) {
    const lk_hparams *hp = &c->m->hp;
    const lk__layer *L = &c->m->layers[il];
    const int H = hp->n_head, G = hp->n_head_kv, d = hp->head_dim_k, nq = H * d, nkv = G * d;
    int t, i;
    if (L->q_norm.data) {   /* the tokens' heads are contiguous rows of d */
        lk__rmsnorm_rows(c->q + (size_t)t0 * nq, c->q + (size_t)t0 * nq, LK__CAST(const float *, L->q_norm.data), d, (t1 - t0) * H, hp->norm_eps);
        lk__rmsnorm_rows(c->k + (size_t)t0 * nkv, c->k + (size_t)t0 * nkv, LK__CAST(const float *, L->k_norm.data), d, (t1 - t0) * G, hp->norm_eps);
    }
    for (t = t0; t < t1; t++) {
        float *qt = c->q + (size_t)t * nq, *kt = c->k + (size_t)t * nkv;
        if (hp->rope.n_rot && L->rope) {
            lk_rope_apply(L->rope, qt, H, d, pos[t]);
            lk_rope_apply(L->rope, kt, G, d, pos[t]);
        }
        if (hp->q_scale != 1.0f) for (i = 0; i < nq; i++) qt[i] *= hp->q_scale;
        if (c->p.kv_rotate) {   /* q.k and p.v are unchanged by an orthonormal rotation of each head */
            float *vt = c->v + (size_t)t * nkv;
            for (i = 0; i < H; i++) lk_hadamard(qt + (size_t)i * d, d);
            for (i = 0; i < G; i++) { lk_hadamard(kt + (size_t)i * d, d); lk_hadamard(vt + (size_t)i * d, d); }
        }
    }
}
static void lk__qk_rows(lk_context *c, int il, int T, const int *pos) {
    lk__ew_job j;
    memset(&j, 0, sizeof j);
    j.op = LK__EW_QK; j.T = T; j.il = il; j.pos = pos;
    lk__ew_run(c, &j, (size_t)T * (size_t)((c->m->hp.n_head + c->m->hp.n_head_kv) * c->m->hp.head_dim_k) * 4);
}

/* Attention sinks (gpt-oss): head h's softmax has one more term, exp(sink[h]),
 * in its denominator, with no value row. With the attention's log-sum-exp
 * lse = log sum_j exp(s_j), each weight p_j = exp(s_j - lse) becomes
 * exp(s_j) / (exp(lse) + exp(sink)) = p_j / (1 + exp(sink - lse)), so the
 * output of every path (paged sequences, split, tiled, policies) is scaled
 * once after it. att: [T, H, d], c->lse [T, H] */
static void lk__attn_sinks(lk_context *c, const lk__layer *L, int T) {
    const int H = c->m->hp.n_head, d = c->m->hp.head_dim_k;
    const float *sk = LK__CAST(const float *, L->sinks.data);
    int t, h, i;
    for (t = 0; t < T; t++)
        for (h = 0; h < H; h++) {
            float *o = c->att + ((size_t)t * H + h) * d;
            const float f = 1.0f / (1.0f + expf(sk[h] - c->lse[(size_t)t * H + h]));   /* lse -inf (no key): 0, as o */
            for (i = 0; i < d; i++) o[i] *= f;
        }
}
/* x += Wo attention(RoPE(Wq xn), RoPE(Wk xn), Wv xn), xn = norm(x).
 * The chunk's K, V rows are stored at slots kv.n .. kv.n + T - 1 first. */
static lk_status lk__attn_block(lk_context *c, int il, const int *pos, const int *seg, int T) {
    const lk_model *m = c->m;
    const lk_hparams *hp = &m->hp;
    const lk__layer *L = &m->layers[il];
    const int H = hp->n_head, G = hp->n_head_kv, d = hp->head_dim_k, nq = H * d, nkv = G * d;
    lk__attn_job job;
    lk_status st;
    int t, i;
    lk__norm_rows(c, c->xn, c->x, &L->attn_norm, &L->attn_norm_b, T);
    if (L->wqkv.data) {   /* fused: rows [Q | K | V] into ff1 [T, nq + 2 nkv], then split */
        if ((st = lk__mm_sb(c, &L->wqkv, &L->sqkv, &L->bqkv, 1, c->xn, T, c->ff1))) return st;
        for (t = 0; t < T; t++) {
            const float *r = c->ff1 + (size_t)t * (nq + 2 * nkv);
            memcpy(c->q + (size_t)t * nq, r, sizeof(float) * nq);
            memcpy(c->k + (size_t)t * nkv, r + nq, sizeof(float) * nkv);
            memcpy(c->v + (size_t)t * nkv, r + nq + nkv, sizeof(float) * nkv);
        }
        if (L->bq.data) {   /* q, k, v biases apart from fused weights: q [T, nq] += bq, ... */
            for (t = 0; t < T; t++) {
                const float *bq = LK__CAST(const float *, L->bq.data), *bk = LK__CAST(const float *, L->bk.data), *bv = LK__CAST(const float *, L->bv.data);
                float *q = c->q + (size_t)t * nq, *k = c->k + (size_t)t * nkv, *v = c->v + (size_t)t * nkv;
                for (i = 0; i < nq; i++) q[i] += bq[i];
                for (i = 0; i < nkv; i++) { k[i] += bk[i]; v[i] += bv[i]; }
            }
        }
    } else {
        const lk_tensor *w3[3], *b3[3], *s3[3];
        float *y3[3];
        w3[0] = &L->wq; w3[1] = &L->wk; w3[2] = &L->wv; b3[0] = &L->bq; b3[1] = &L->bk; b3[2] = &L->bv;
        s3[0] = &L->sq; s3[1] = &L->sk; s3[2] = &L->sv;
        y3[0] = c->q; y3[1] = c->k; y3[2] = c->v;
        if ((st = lk__mm_n(c, 3, w3, s3, b3, 1, c->xn, T, y3))) return st;
    }
    lk__qk_rows(c, il, T, pos);
    lk__store_rows(c, il, T, c->kv.n, pos, seg);
    job = lk__layer_job(c, il, T, pos, seg);
    lk__kv_attend(&job);   /* att: [T, H, d], over the rows the KV policy picks */
    if (L->sinks.data) lk__attn_sinks(c, L, T);
    if (c->p.kv_rotate)    /* the output is a mix of rotated V rows: rotate it back */
        for (t = 0; t < T; t++) for (i = 0; i < H; i++) lk_hadamard(c->att + (size_t)t * nq + (size_t)i * d, d);
    if ((st = lk__mm_sb(c, &L->wo, &L->so, &L->bo, 1, c->att, T, c->o))) return st;
    lk__residual(c, &L->post_attn_norm, T);
    return LK_OK;
}

/* ff2[t] *= silu(ff1[t]) for n rows of F: SwiGLU's hidden state (ff1 is overwritten) */
static void lk__swiglu_range(lk_context *c, int t0, int t1, int F) {
    int t, i;
    for (t = t0; t < t1; t++) {
        float *g = c->ff1 + (size_t)t * F, *u = c->ff2 + (size_t)t * F;
        lk_silu_row(g, g, F);
        for (i = 0; i < F; i++) u[i] *= g[i];
    }
}
static void lk__swiglu(lk_context *c, int n, int F) {
    lk__ew_job j;
    memset(&j, 0, sizeof j);
    j.op = LK__EW_SWIGLU; j.T = n; j.F = F;
    lk__ew_run(c, &j, (size_t)n * (size_t)F);
}
/* Expert e of a 3-D weight [in, out, X] as a 2-D view [in, out] */
static lk_tensor lk__expert(const lk_tensor *w, int e) {
    lk_tensor v = *w;
    v.data = LK__CAST(unsigned char *, w->data) + (size_t)e * w->nb[2];
    v.ne[2] = 1;
    return v;
}
/* Expert e's bias, row e of a 2-D f32 bias [n, X], as a 1-D view [n]
 * (data NULL when the model has none) */
static lk_tensor lk__expert_bias(const lk_tensor *b, int e) {
    lk_tensor v = *b;
    if (b->data) v.data = LK__CAST(unsigned char *, b->data) + (size_t)e * b->nb[1];
    v.ne[1] = 1;
    return v;
}
/* gpt-oss's clamped SwiGLU (ggml_swiglu_oai, alpha 1.702, limit 7), scalar:
 * u[i] = x sigmoid(1.702 x) * (y + 1), x = min(g[i], 7), y = clamp(u[i], -7, 7);
 * g, u: [n] */
static void lk__swiglu_oai_row(const float *g, float *u, size_t n) {
    const float alpha = 1.702f, limit = 7.0f;
    size_t i;
    for (i = 0; i < n; i++) {
        const float x = g[i] < limit ? g[i] : limit;
        const float y = u[i] < -limit ? -limit : u[i] > limit ? limit : u[i];
        u[i] = x / (1.0f + expf(alpha * -x)) * (y + 1.0f);
    }
}
/* o = MoE(xn) for T rows, as llama.cpp's build_moe_ffn: router scores p =
 * softmax (or sigmoid) of gate_inp xn (+ router bias); the k best experts per
 * token (ties: the lower index); their weights p, divided by their sum (at
 * least 2^-14) when expert_weights_norm, times expert_weights_scale (gating
 * 3: p the biased logits themselves, the weights the softmax of the k
 * chosen); each expert runs down(silu(gate x) * up x) (or the row's clamped
 * SwiGLU, with the expert's biases after each product) on the rows routed to
 * it only; then per token o = w_0 y_0 + w_1 y_1 + ..., products first, summed
 * in rank order.
 * Shapes: moe_p [T, X], moe_sel/moe_w [T, k], moe_x [n_e, E] (the n_e rows
 * routed to expert e), ff1/ff2 [n_e, Fe], moe_y [T, k, E]. */
static lk_status lk__moe(lk_context *c, const lk__layer *L, int T) {
    const lk_hparams *hp = &c->m->hp;
    const int X = hp->n_expert, K = hp->n_expert_used, E = hp->n_embd, Fe = hp->n_ff_exp;
    lk_status st;
    int t, j, e, i;
    if ((st = lk__mm(c, &L->gate_inp, &L->b_gate_inp, c->xn, T, c->moe_p))) return st;
    for (t = 0; t < T; t++) {
        float *p = c->moe_p + (size_t)t * X, *w = c->moe_w + (size_t)t * K;
        int *sel = c->moe_sel + (size_t)t * K;
        double sum = 0.0;
        if (hp->expert_gating == 2) for (e = 0; e < X; e++) p[e] = 1.0f / (1.0f + expf(-p[e]));
        else if (hp->expert_gating != 3) lk_softmax(p, X);
        for (j = 0; j < K; j++) {   /* selection: K passes over X (K, X small) */
            int best = -1;
            for (e = 0; e < X; e++) {
                int taken = 0, q;
                for (q = 0; q < j; q++) taken |= sel[q] == e;
                if (!taken && (best < 0 || p[e] > p[best])) best = e;
            }
            sel[j] = best; w[j] = p[best]; sum += w[j];
        }
        if (hp->expert_gating == 3) lk_softmax(w, K);   /* [K]: the chosen logits' softmax */
        if (hp->expert_weights_norm) {
            float den = (float)sum < 6.103515625e-5f ? 6.103515625e-5f : (float)sum;
            for (j = 0; j < K; j++) w[j] /= den;
        }
        if (hp->expert_weights_scale != 0.0f && hp->expert_weights_scale != 1.0f)
            for (j = 0; j < K; j++) w[j] *= hp->expert_weights_scale;
    }
    for (e = 0; e < X; e++) {
        lk_tensor gw = lk__expert(&L->gate_exps, e), uw = lk__expert(&L->up_exps, e), dw = lk__expert(&L->down_exps, e);
        lk_tensor gb = lk__expert_bias(&L->b_gate_exps, e), ub = lk__expert_bias(&L->b_up_exps, e), db = lk__expert_bias(&L->b_down_exps, e);
        int n = 0;
        for (t = 0; t < T; t++)
            for (j = 0; j < K; j++)
                if (c->moe_sel[(size_t)t * K + j] == e) {
                    memcpy(c->moe_x + (size_t)n * E, c->xn + (size_t)t * E, sizeof(float) * E);
                    c->moe_row[n++] = t * K + j;
                }
        if (!n) continue;
        if ((st = lk__mm(c, &gw, &gb, c->moe_x, n, c->ff1)) || (st = lk__mm(c, &uw, &ub, c->moe_x, n, c->ff2))) return st;
        /* the expert's scales (LK__T_FFN_S): ff1, ff2 [n, Fe] *= s[e] before SwiGLU, o [n, E] *= s[e] before the weights */
        if (L->s_gate_exps.data) lk__scale_rows(c->ff1, Fe, n, LK__CAST(const float *, L->s_gate_exps.data)[e]);
        if (L->s_up_exps.data) lk__scale_rows(c->ff2, Fe, n, LK__CAST(const float *, L->s_up_exps.data)[e]);
        if (c->m->ai->ffn == LK__FFN_SWIGLU_OAI) lk__swiglu_oai_row(c->ff1, c->ff2, (size_t)n * (size_t)Fe);
        else lk__swiglu(c, n, Fe);
        if ((st = lk__mm(c, &dw, &db, c->ff2, n, c->o))) return st;
        if (L->s_down_exps.data) lk__scale_rows(c->o, E, n, LK__CAST(const float *, L->s_down_exps.data)[e]);
        for (t = 0; t < n; t++) {   /* y[token, rank] = w * down(...) */
            const float wt = c->moe_w[c->moe_row[t]];
            float *y = c->moe_y + (size_t)c->moe_row[t] * E;
            const float *d = c->o + (size_t)t * E;
            for (i = 0; i < E; i++) y[i] = d[i] * wt;
        }
    }
    for (t = 0; t < T; t++) {
        float *o = c->o + (size_t)t * E;
        const float *y = c->moe_y + (size_t)t * K * E;
        memcpy(o, y, sizeof(float) * E);
        for (j = 1; j < K; j++) for (i = 0; i < E; i++) o[i] += y[(size_t)j * E + i];
    }
    return LK_OK;
}

/* x += FFN(norm(x)), the architecture's kind: SwiGLU (separate or fused
 * gate/up), GeGLU or a GELU MLP, or a mixture of SwiGLU experts (lk__moe).
 * hidden h: ff2 [T, F] */
static lk_status lk__ffn_block(lk_context *c, int il, int T) {
    const lk_model *m = c->m;
    const lk__layer *L = &m->layers[il];
    const int F = m->hp.n_ff;
    const size_t TF = (size_t)T * (size_t)F;
    lk_status st;
    int t, i;
    lk__norm_rows(c, c->xn, c->x, &L->ffn_norm, &L->ffn_norm_b, T);
    if (L->gate_inp.data) {
        if ((st = lk__moe(c, L, T))) return st;
        lk__residual(c, &L->post_ffw_norm, T);
        return LK_OK;
    }
    switch ((lk__ffn_kind)m->ai->ffn) {
    case LK__FFN_GELU:          /* h = gelu(up xn + b_up) */
        if ((st = lk__mm_sb(c, &L->ffn_up, &L->s_up, &L->b_up, 0, c->xn, T, c->ff2))) return st;
        lk__gelu_rows(c, c->ff2, c->ff2, TF, 0);
        break;
    case LK__FFN_SWIGLU_FUSED:  /* u = up xn: [T, 2F] = [gate | up]; h = silu(gate) * up */
        if ((st = lk__mm_sb(c, &L->ffn_up, &L->s_up, &L->b_up, 0, c->xn, T, c->ff1))) return st;
        for (t = 0; t < T; t++) {
            const float *u = c->ff1 + (size_t)t * 2 * F;
            float *h = c->ff2 + (size_t)t * F;
            lk_silu_row(h, u, F);
            for (i = 0; i < F; i++) h[i] *= u[F + i];
        }
        break;
    case LK__FFN_GEGLU:         /* h = gelu(gate xn) * up xn */
    case LK__FFN_SWIGLU_OAI:    /* (experts only: its rows require them, so never here) */
    case LK__FFN_SWIGLU: {      /* h = silu(gate xn) * up xn */
        const lk_tensor *w2[2], *b2[2], *s2[2];
        float *y2[2];
        w2[0] = &L->ffn_gate; w2[1] = &L->ffn_up; y2[0] = c->ff1; y2[1] = c->ff2;
        b2[0] = &L->b_gate; b2[1] = &L->b_up; s2[0] = &L->s_gate; s2[1] = &L->s_up;
        if ((st = lk__mm_n(c, 2, w2, s2, b2, 0, c->xn, T, y2))) return st;
        if ((lk__ffn_kind)m->ai->ffn == LK__FFN_GEGLU) lk__gelu_rows(c, c->ff2, c->ff1, TF, 1);
        else lk__swiglu(c, T, F);
        break;
    }
    }
    if ((st = lk__mm_sb(c, &L->ffn_down, &L->s_down, &L->b_down, 0, c->ff2, T, c->o))) return st;
    lk__residual(c, &L->post_ffw_norm, T);
    return LK_OK;
}

/* logits [T - out_from, V] = output(norm(x[t])) for rows t >= out_from, with
 * the final soft-cap; non-finite logits are an error, never handed on
 * (tok0: the index of the chunk's first token in the lk_decode call). */
static lk_status lk__output_rows(lk_context *c, const float *x, int n_out, float *dst, const int32_t *tok_of, int tok0) {
    const lk_model *m = c->m;
    const int V = m->hp.n_vocab;
    const float cap = m->hp.final_softcap;
    size_t i, n;
    lk_status st;
    if (n_out <= 0) return LK_OK;
    lk__norm_rows(c, c->xn, x, &m->output_norm, &m->output_norm_b, n_out);
    if ((st = lk__mm(c, &m->output, &m->output_b, c->xn, n_out, dst))) return st;
    n = (size_t)n_out * V;
    if (cap > 0.0f) for (i = 0; i < n; i++) dst[i] = cap * tanhf(dst[i] * (1.0f / cap));
    if (!lk__all_finite(dst, n)) {
        int r;
        for (i = 0; i < n && dst[i] - dst[i] == 0.0f; i++) {}
        r = (int)(i / (size_t)V);
        return lk_set_error(LK_ERR_FORMAT, "lk_decode: the logits after token %d of the call are %s (vocabulary index %d): the model's weights "
                            "or activations are not finite (check_tensors finds such weights at load)", tok_of ? tok_of[r] : tok0 + r,
                            dst[i] != dst[i] ? "NaN" : "infinite", (int)(i % (size_t)V));
    }
    return LK_OK;
}
static lk_status lk__output(lk_context *c, int T, int out_from, int tok0) {
    lk_status st;
    c->n_logit_rows = 0;
    if (T - out_from <= 0) return LK_OK;
    if ((st = lk__output_rows(c, c->x + (size_t)out_from * c->m->hp.n_embd, T - out_from, c->logits, NULL, tok0 + out_from))) return st;
    c->n_logit_rows = T - out_from;
    return LK_OK;
}

/* One chunk of T <= n_batch tokens stored at slots kv.n .. kv.n + T - 1;
 * kv.n advances only when the whole chunk succeeded (lk__decode). tok0:
 * the chunk's first token's index in the call (for messages). */
static lk_status lk__forward(lk_context *c, const lk_token *tok, const int *pos, const int *seg, int T, int out_from, int tok0) {
    lk_status st;
    int il;
    lk__embed(c, tok, pos, T);
    for (il = 0; il < c->m->hp.n_layer; il++)
        if ((st = lk__attn_block(c, il, pos, seg, T)) || (st = lk__ffn_block(c, il, T))) return st;
    return lk__output(c, T, out_from, tok0);
}

/* Shared by lk_decode, lk_decode_pos and lk_decode_ext: pos == NULL
 * continues from the last stored position. Everything is validated before
 * any state changes; a chunk that fails (non-finite logits, a matmul
 * refusing non-finite activations) takes back the chunks of the same call
 * stored before it (lk_context_truncate to n0). */
static lk_status lk__decode(lk_context *c, const lk_token *tokens, const int *pos, const int *seg, int n) {
    int i, done = 0, V, n0;
    int last, base;
    lk_status st;
    if (!c || !tokens || n <= 0) return lk_set_error(LK_ERR_INVALID_ARG, "lk_decode: no tokens");
    if (c->n_seq) return lk_set_error(LK_ERR_INVALID_ARG, "lk_decode: the context holds sequences (n_seq_max > 0): use lk_decode_batch");
    if (c->tree_n > 0) return lk_set_error(LK_ERR_INVALID_ARG, "lk_decode: a token tree is pending: commit it first (lk_context_tree_commit)");
    V = c->m->hp.n_vocab;
    if (n > c->n_ctx - c->kv.n)
        return lk_set_error(LK_ERR_RANGE, "lk_decode: context overflow: %d tokens stored + %d new > n_ctx %d", c->kv.n, n, c->n_ctx);
    if (c->p.logits_all && n > c->n_batch)
        return lk_set_error(LK_ERR_RANGE, "lk_decode: with logits_all a call takes at most n_batch (%d) tokens, got %d", c->n_batch, n);
    last = c->kv.n ? c->kv.pos[c->kv.n - 1] : -1;
    base = last + 1;
    for (i = 0; i < n; i++) {
        int p = pos ? pos[i] : base + i;
        if (tokens[i] < 0 || tokens[i] >= V) return lk_set_error(LK_ERR_RANGE, "lk_decode: token %d at index %d is outside [0, %d)", (int)tokens[i], i, V);
        if (seg) {   /* positions are per segment: non-decreasing within one */
            int j;
            if (p < 0) return lk_set_error(LK_ERR_RANGE, "lk_decode: negative position %d at index %d", (int)p, i);
            for (j = i - 1; j >= 0; j--)
                if (seg[j] == seg[i]) {
                    if (pos[j] > p) return lk_set_error(LK_ERR_RANGE, "lk_decode: position %d at index %d is out of order in segment %d", (int)p, i, seg[i]);
                    break;
                }
        } else if (p < 0 || p < last)
            return lk_set_error(LK_ERR_RANGE, "lk_decode: position %d at index %d is out of order (previous %d)", (int)p, i, (int)last);
        if (c->m->pos_embd.data && p >= c->m->hp.n_ctx_train)
            return lk_set_error(LK_ERR_RANGE, "lk_decode: position %d exceeds the model's %d learned positions", (int)p, c->m->hp.n_ctx_train);
        last = p;
    }
    c->n_logit_rows = 0;
    n0 = c->kv.n;
    while (done < n) {
        int T = n - done < c->n_batch ? n - done : c->n_batch;
        int out_from = done + T < n ? T : c->p.logits_all ? 0 : T - 1;
        for (i = 0; i < T; i++) { c->posbuf[i] = pos ? pos[done + i] : base + done + i; c->segbuf[i] = seg ? seg[done + i] : 0; }
        if ((st = lk__forward(c, tokens + done, c->posbuf, seg ? c->segbuf : NULL, T, out_from, done))) {
            lk_context_truncate(c, n0);   /* keeps the message: it only fails for n0 > kv.n */
            return st;
        }
        c->kv.n += T;
        done += T;
    }
    c->logit_row0 = c->p.logits_all ? 0 : n - 1;
    return LK_OK;
}
LKDEF lk_status lk_decode_pos(lk_context *c, const lk_token *tokens, const int *pos, int n) {
    if (!pos) return lk_set_error(LK_ERR_INVALID_ARG, "lk_decode_pos: pos is NULL");
    return lk__decode(c, tokens, pos, NULL, n);
}
LKDEF lk_status lk_decode(lk_context *c, const lk_token *tokens, int n) { return lk__decode(c, tokens, NULL, NULL, n); }
LKDEF lk_status lk_decode_ext(lk_context *c, const lk_token *tokens, const int *pos, const int *seg, int n) {
    if (seg && !pos) return lk_set_error(LK_ERR_INVALID_ARG, "lk_decode_ext: segments need explicit positions");
    return lk__decode(c, tokens, pos, seg, n);
}
/* ---- sequences (n_seq_max > 0) ----
 * seq_rows[s][j]: the slot of token j of sequence s. Token j always sits at
 * offset j % pg of the sequence's page j / pg, so the page table is
 * seq_rows[s][k pg] / pg; the expanded list is what attention reads (an
 * index list per token, its prefix). page_ref: the sequences using a page. */
static int lk__seq_live(const lk_context *c, int s) { return c->n_seq && s >= 0 && s < c->n_seq && c->seq_n[s] >= 0; }
static int32_t *lk__seq_rows(const lk_context *c, int s) { return c->seq_rows + (size_t)s * (size_t)c->n_ctx; }
static int lk__page_take(lk_context *c) { const int p = c->page_free[--c->n_free]; c->page_ref[p] = 1; return p; }
static void lk__page_drop(lk_context *c, int p) { if (--c->page_ref[p] == 0) c->page_free[c->n_free++] = p; }
/* drop tokens n.. of sequence s: the pages it no longer uses */
static void lk__seq_cut(lk_context *c, int s, int n) {
    const int pg = c->pg, keep = (n + pg - 1) / pg, have = (c->seq_n[s] + pg - 1) / pg;
    const int32_t *rows = lk__seq_rows(c, s);
    int k;
    for (k = keep; k < have; k++) lk__page_drop(c, rows[(size_t)k * pg] / pg);
    c->seq_n[s] = n;
}
static lk_status lk__seq_check(const lk_context *c, int s, const char *fn) {
    if (!c) return lk_set_error(LK_ERR_INVALID_ARG, "%s: NULL context", fn);
    if (!c->n_seq) return lk_set_error(LK_ERR_INVALID_ARG, "%s: the context has no sequences (set n_seq_max)", fn);
    if (!lk__seq_live(c, s)) return lk_set_error(LK_ERR_INVALID_ARG, "%s: sequence %d is not live (ids are in [0, %d))", fn, s, c->n_seq);
    return LK_OK;
}
LKDEF lk_status lk_seq_add(lk_context *c, int *seq) {
    int s;
    if (!c || !seq) return lk_set_error(LK_ERR_INVALID_ARG, "lk_seq_add: NULL argument");
    if (!c->n_seq) return lk_set_error(LK_ERR_INVALID_ARG, "lk_seq_add: the context has no sequences (set n_seq_max)");
    for (s = 0; s < c->n_seq && c->seq_n[s] >= 0; s++) {}
    if (s == c->n_seq) return lk_set_error(LK_ERR_RANGE, "lk_seq_add: all %d sequences are in use", c->n_seq);
    c->seq_n[s] = 0;
    *seq = s;
    return LK_OK;
}
LKDEF lk_status lk_seq_remove(lk_context *c, int seq) {
    lk_status st = lk__seq_check(c, seq, "lk_seq_remove");
    if (st) return st;
    lk__seq_cut(c, seq, 0);
    c->seq_n[seq] = -1;
    return LK_OK;
}
LKDEF lk_status lk_seq_truncate(lk_context *c, int seq, int n) {
    lk_status st = lk__seq_check(c, seq, "lk_seq_truncate");
    if (st) return st;
    if (n < 0 || n > c->seq_n[seq]) return lk_set_error(LK_ERR_RANGE, "lk_seq_truncate: cannot keep %d tokens of sequence %d (it has %d)", n, seq, c->seq_n[seq]);
    lk__seq_cut(c, seq, n);
    return LK_OK;
}
LKDEF lk_status lk_seq_fork(lk_context *c, int src, int *dst) {
    lk_status st = lk__seq_check(c, src, "lk_seq_fork");
    int d, k, n;
    if (st) return st;
    if ((st = lk_seq_add(c, &d))) return st;
    n = c->seq_n[src];
    memcpy(lk__seq_rows(c, d), lk__seq_rows(c, src), sizeof(int32_t) * (size_t)n);
    for (k = 0; k < n; k += c->pg) c->page_ref[lk__seq_rows(c, src)[k] / c->pg]++;
    c->seq_n[d] = n;
    if (dst) *dst = d;
    return LK_OK;
}
LKDEF int lk_seq_n_past(const lk_context *c, int seq) { return c && lk__seq_live(c, seq) ? c->seq_n[seq] : -1; }
LKDEF int lk_seq_free_rows(const lk_context *c) { return c && c->n_seq ? c->n_free * c->pg : 0; }
/* the slot of sequence s's next token: a free page at a page boundary; a
 * private copy of a shared, partly filled page (its filled rows, every
 * layer) before writing into it */
static int lk__seq_slot(lk_context *c, int s) {
    const int pg = c->pg, j = c->seq_n[s], off = j % pg;
    int32_t *rows = lk__seq_rows(c, s);
    int page, np, il, r;
    if (off == 0) page = lk__page_take(c);
    else if (c->page_ref[page = rows[j - off] / pg] > 1) {
        lk_kv_cache *kv = &c->kv;
        np = lk__page_take(c);
        for (il = 0; il < kv->n_layer; il++) {
            const size_t L = (size_t)il * kv->n_ctx;
            memcpy(kv->k + (L + (size_t)np * pg) * kv->row_k, kv->k + (L + (size_t)page * pg) * kv->row_k, kv->row_k * (size_t)off);
            memcpy(kv->v + (L + (size_t)np * pg) * kv->row_v, kv->v + (L + (size_t)page * pg) * kv->row_v, kv->row_v * (size_t)off);
        }
        for (r = 0; r < off; r++) {
            kv->pos[np * pg + r] = kv->pos[page * pg + r];
            kv->seg[np * pg + r] = kv->seg[page * pg + r];
            rows[j - off + r] = np * pg + r;
        }
        lk__page_drop(c, page);
        page = np;
    }
    rows[j] = page * pg + off;
    c->seq_n[s] = j + 1;
    return rows[j];
}
/* Every check first (tokens, sequences, positions, logits rows, free
 * pages); then chunks of n_batch tokens: slots, one forward each, the kept
 * rows' logits appended. A chunk that fails gives every sequence back its
 * old length. Per-sequence scratch (seq_tmp): cnt new tokens, old length,
 * next position, last batch index. */
LKDEF lk_status lk_decode_batch(lk_context *c, const lk_batch *b) {
    int *cnt, *old, *nextp, *lasti;
    int i, s, V, E, n, need = 0, nkeep = 0, nout = 0, done = 0;
    lk_status st = LK_OK;
    if (!c || !b || b->n <= 0 || !b->token || !b->seq) return lk_set_error(LK_ERR_INVALID_ARG, "lk_decode_batch: NULL argument or no tokens");
    if (!c->n_seq) return lk_set_error(LK_ERR_INVALID_ARG, "lk_decode_batch: the context has no sequences (set n_seq_max)");
    n = b->n; V = c->m->hp.n_vocab; E = c->m->hp.n_embd;
    cnt = c->seq_tmp; old = cnt + c->n_seq; nextp = old + c->n_seq; lasti = nextp + c->n_seq;
    for (s = 0; s < c->n_seq; s++) {
        cnt[s] = 0; lasti[s] = -1; old[s] = c->seq_n[s];
        nextp[s] = c->seq_n[s] > 0 ? c->kv.pos[lk__seq_rows(c, s)[c->seq_n[s] - 1]] : -1;   /* the last position, for now */
    }
    for (i = 0; i < n; i++) {
        int p;
        s = b->seq[i];
        if (!lk__seq_live(c, s)) return lk_set_error(LK_ERR_INVALID_ARG, "lk_decode_batch: token %d: sequence %d is not live", i, s);
        if (b->token[i] < 0 || b->token[i] >= V) return lk_set_error(LK_ERR_RANGE, "lk_decode_batch: token %d at index %d is outside [0, %d)", (int)b->token[i], i, V);
        p = b->pos ? b->pos[i] : nextp[s] + 1;
        if (p < 0 || p < nextp[s])
            return lk_set_error(LK_ERR_RANGE, "lk_decode_batch: position %d at index %d is out of order in sequence %d (previous %d)", p, i, s, nextp[s]);
        if (c->m->pos_embd.data && p >= c->m->hp.n_ctx_train)
            return lk_set_error(LK_ERR_RANGE, "lk_decode_batch: position %d exceeds the model's %d learned positions", p, c->m->hp.n_ctx_train);
        nextp[s] = p; cnt[s]++; lasti[s] = i;
        if (b->logits && b->logits[i]) nkeep++;
    }
    for (s = 0; s < c->n_seq; s++) {
        const int pg = c->pg, j = c->seq_n[s];
        if (!cnt[s]) continue;
        if (!b->logits) nkeep++;
        if (cnt[s] > c->n_ctx - j)
            return lk_set_error(LK_ERR_RANGE, "lk_decode_batch: sequence %d: %d tokens stored + %d new > n_ctx %d", s, j, cnt[s], c->n_ctx);
        need += (j + cnt[s] + pg - 1) / pg - (j + pg - 1) / pg + (j % pg && c->page_ref[lk__seq_rows(c, s)[j - j % pg] / pg] > 1);
        nextp[s] = j > 0 ? c->kv.pos[lk__seq_rows(c, s)[j - 1]] + 1 : 0;   /* now the next position */
    }
    if (nkeep > c->n_logit_cap)
        return lk_set_error(LK_ERR_RANGE, "lk_decode_batch: %d logits rows asked for, the context holds %d (n_seq_max, or n_batch with logits_all)", nkeep, c->n_logit_cap);
    if (need > c->n_free)
        return lk_set_error(LK_ERR_RANGE, "lk_decode_batch: the KV pool is full: the batch needs %d free pages of %d rows, %d are free", need, c->pg, c->n_free);
    c->n_logit_rows = 0;
    c->batch_n = n;
    while (done < n) {
        const int T = n - done < c->n_batch ? n - done : c->n_batch;
        int t, k = 0;
        for (t = 0; t < T; t++) {   /* slots, positions, the rows each token sees */
            s = b->seq[done + t];
            c->posbuf[t] = b->pos ? b->pos[done + t] : nextp[s];
            nextp[s] = c->posbuf[t] + 1;
            c->bslot[t] = lk__seq_slot(c, s);
            c->brows[t] = lk__seq_rows(c, s);
            c->bn[t] = c->seq_n[s];
        }
        if ((st = lk__forward(c, b->token + done, c->posbuf, NULL, T, T, done))) break;
        for (t = 0; t < T; t++) {   /* the kept rows of x, moved to the front, in order */
            i = done + t;
            if (b->logits ? !b->logits[i] : lasti[b->seq[i]] != i) continue;
            if (k != t) memcpy(c->x + (size_t)k * E, c->x + (size_t)t * E, sizeof(float) * (size_t)E);
            c->logit_tok[nout + k++] = i;
        }
        if ((st = lk__output_rows(c, c->x, k, c->logits + (size_t)nout * V, c->logit_tok + nout, 0))) break;
        nout += k;
        done += T;
    }
    if (st) {
        for (s = 0; s < c->n_seq; s++) if (cnt[s]) lk__seq_cut(c, s, old[s]);
        c->n_logit_rows = 0;
        return st;
    }
    c->n_logit_rows = nout;
    return LK_OK;
}
LKDEF int lk_sched_plan(const int *left, int n, int budget, int chunk_max, int *take) {
    int i, used = 0;
    if (!left || !take || n <= 0) return 0;
    for (i = 0; i < n; i++) {   /* decodes first */
        take[i] = 0;
        if (left[i] == 0 && used < budget) { take[i] = 1; used++; }
    }
    for (i = 0; i < n && used < budget; i++) {   /* then prefill chunks, in order */
        int k = left[i];
        if (k <= 0) continue;
        if (chunk_max > 0 && k > chunk_max) k = chunk_max;
        if (k > budget - used) k = budget - used;
        take[i] = k; used += k;
    }
    return used;
}
LKDEF int lk_context_tree_pending(const lk_context *c) { return c ? c->tree_n : 0; }
/* One forward of all n nodes (one chunk), with the tree mask set by
 * lk__layer_job from c->tree_*; positions = base + depth. */
LKDEF lk_status lk_decode_tree(lk_context *c, const lk_token *tokens, const int *parents, int n) {
    const lk_kv_policy pol = c ? c->p.kv_policy.policy : LK_KV_FULL;
    int i, base, max_n, V;
    lk_status st;
    if (!c || !tokens || !parents || n <= 0) return lk_set_error(LK_ERR_INVALID_ARG, "lk_decode_tree: NULL argument or no nodes");
    if (c->n_seq) return lk_set_error(LK_ERR_INVALID_ARG, "lk_decode_tree: the context holds sequences (n_seq_max > 0): not supported");
    if (c->tree_n > 0) return lk_set_error(LK_ERR_INVALID_ARG, "lk_decode_tree: a token tree is already pending: commit it first");
    max_n = c->p.logits_all ? c->n_batch : c->p.n_tree > 1 ? c->p.n_tree : 1;   /* one logits row always exists */
    if (n > max_n)
        return lk_set_error(LK_ERR_RANGE, "lk_decode_tree: %d nodes, the context takes at most %d (lk_context_params.n_tree, option tree-nodes)", n, max_n);
    if (n > c->n_ctx - c->kv.n)
        return lk_set_error(LK_ERR_RANGE, "lk_decode_tree: context overflow: %d tokens stored + %d nodes > n_ctx %d", c->kv.n, n, c->n_ctx);
    if (c->kv.zip_bits) return lk_set_error(LK_ERR_UNSUPPORTED, "lk_decode_tree: not with the zip KV format");
    if (lk__kv_policies[pol].evicts || lk__kv_policies[pol].step_state)
        return lk_set_error(LK_ERR_UNSUPPORTED, "lk_decode_tree: not with kv policy %s (it evicts rows or keeps per-step state)", lk__kv_policies[pol].name);
    V = c->m->hp.n_vocab;
    base = c->kv.n ? c->kv.pos[c->kv.n - 1] + 1 : 0;
    for (i = 0; i < n; i++) {
        if (tokens[i] < 0 || tokens[i] >= V) return lk_set_error(LK_ERR_RANGE, "lk_decode_tree: token %d of node %d is outside [0, %d)", (int)tokens[i], i, V);
        if (parents[i] < -1 || parents[i] >= i)
            return lk_set_error(LK_ERR_INVALID_ARG, "lk_decode_tree: parent %d of node %d must be -1 or an earlier node", parents[i], i);
        c->tree_par[i] = parents[i];
        c->posbuf[i] = parents[i] < 0 ? base : c->posbuf[parents[i]] + 1;
        if (c->m->pos_embd.data && c->posbuf[i] >= c->m->hp.n_ctx_train)
            return lk_set_error(LK_ERR_RANGE, "lk_decode_tree: position %d exceeds the model's %d learned positions", c->posbuf[i], c->m->hp.n_ctx_train);
    }
    c->n_logit_rows = 0;
    c->tree_n = n; c->tree_slot0 = c->kv.n;
    if ((st = lk__forward(c, tokens, c->posbuf, NULL, n, 0, 0))) {
        c->tree_n = 0;
        lk_context_truncate(c, c->tree_slot0);
        return st;
    }
    c->kv.n += n;
    c->logit_row0 = 0;
    return LK_OK;
}
LKDEF lk_status lk_context_tree_commit(lk_context *c, const int *path, int n) {
    int k, il, s0;
    if (!c) return lk_set_error(LK_ERR_INVALID_ARG, "lk_context_tree_commit: NULL context");
    if (c->tree_n <= 0) return lk_set_error(LK_ERR_INVALID_ARG, "lk_context_tree_commit: no token tree is pending");
    if (n < 0 || n > c->tree_n || (n > 0 && !path)) return lk_set_error(LK_ERR_INVALID_ARG, "lk_context_tree_commit: path of %d nodes (tree of %d)", n, c->tree_n);
    for (k = 0; k < n; k++)
        if (path[k] < 0 || path[k] >= c->tree_n || c->tree_par[path[k]] != (k ? path[k - 1] : -1))
            return lk_set_error(LK_ERR_INVALID_ARG, "lk_context_tree_commit: path[%d] = %d is not %s", k, path[k], k ? "a child of path[k - 1]" : "a root of the tree");
    s0 = c->tree_slot0;
    for (k = 0; k < n; k++) {   /* path[k] >= k: moving forward never overwrites a row still to be moved */
        const int src = s0 + path[k], dst = s0 + k;
        if (src == dst) continue;
        for (il = 0; il < c->kv.n_layer; il++) {
            memcpy(c->kv.k + ((size_t)il * c->kv.n_ctx + dst) * c->kv.row_k, c->kv.k + ((size_t)il * c->kv.n_ctx + src) * c->kv.row_k, c->kv.row_k);
            memcpy(c->kv.v + ((size_t)il * c->kv.n_ctx + dst) * c->kv.row_v, c->kv.v + ((size_t)il * c->kv.n_ctx + src) * c->kv.row_v, c->kv.row_v);
        }
        c->kv.pos[dst] = c->kv.pos[src]; c->kv.seg[dst] = c->kv.seg[src];
    }
    c->tree_n = 0;
    lk_kv_cache_truncate(&c->kv, s0 + n);
    lk__kvp_truncate(&c->kp, s0 + n);
    lk__kvp_rebuild(c, s0, s0 + n);
    c->n_logit_rows = 0;
    return LK_OK;
}
/* ---- speculative decoding (lk_spec) ------------------------------------------ */
struct lk_spec {
    lk_spec_params p;
    lk_allocator al;
    lk_context *t, *d;              /* target, draft (draft / tree modes)              */
    lk_sampler *smp, *dsmp;         /* the caller's sampler; the draft's (no penalties) */
    int V, cap;                     /* vocabulary; most nodes per step                 */
    lk_token *hist; int n_hist, hist_cap;   /* prompt + emitted; the last one is pending (not in the target's cache) */
    lk_token *tok; int *par, *qrow, *rank, *depth, *path, *dpar;   /* [cap] the step's tree; dpar: the draft tree's parents */
    float *val;                     /* [cap] path probability (tree)                   */
    float *q;                       /* [cap][V] proposal distributions, by row        */
    int *qnext;                     /* [cap] tree: next candidate rank of each node's children */
    int32_t *order;                 /* [cap][cap] tree: each expanded node's candidates, best first */
    float *pb;                      /* [V] the walk's p                                */
    int32_t *adj;                   /* recycle: [V][recycle_k] successors, -1 = none   */
    unsigned char *blk; size_t blk_size;   /* the arrays above, one allocation */
    int cur_draft, cur_nodes, pause, pause_len;
    double rate_spec, rate_plain;   /* tokens per unit of cost (EMAs; 0 = unknown)     */
    int n_rate;
    lk_rng rng;
    lk_spec_stats st;
};
LKDEF lk_spec_params lk_spec_default_params(void) {
    lk_spec_params p;
    memset(&p, 0, sizeof p);
    p.mode = LK_SPEC_NONE; p.draft_max = 8; p.draft_p_min = 0.0f; p.n_nodes = 0; p.ngram_max = 3; p.recycle_k = 8;
    p.adaptive = 1; p.node_cost = 0.1f;
    return p;
}
static const char *const lk__spec_mode_names[] = { "none", "draft", "tree", "recycle", "lookup", NULL };   /* by lk_spec_mode */
LKDEF const char *lk_spec_mode_name(lk_spec_mode m) { return (unsigned)m < 5u ? lk__spec_mode_names[m] : "?"; }
/* The speculative decoder's options (section 13's option tables). */
static const lk_option_choices lk__spec_choices = { lk__spec_mode_names, NULL, NULL, 0, NULL };
#define LK__X lk_spec_params
static const lk_option lk__spec_options[] = {
    /* name            alias kind           field (offset, size)           lo            hi           choices            arg    help */
    { "spec",          NULL, LK_OPT_CHOICE, LK__FIELD(LK__X, mode),        0,            0,           &lk__spec_choices, NULL,  "speculative decoding (draft, tree: with a draft model)" },
    { "draft-max",     NULL, LK_OPT_INT,    LK__FIELD(LK__X, draft_max),   1,            512,         NULL,              "N",   "draft, lookup: most proposals per step" },
    { "draft-p-min",   NULL, LK_OPT_FLOAT,  LK__FIELD(LK__X, draft_p_min), 0,            1,           NULL,              "P",   "draft, tree: least top probability of a proposal" },
    { "spec-nodes",    NULL, LK_OPT_INT,    LK__FIELD(LK__X, n_nodes),     1,            512,         NULL,              "N",   "tree, recycle: nodes per step, the root included" },
    { "spec-ngram",    NULL, LK_OPT_INT,    LK__FIELD(LK__X, ngram_max),   1,            8,           NULL,              "N",   "lookup: the longest n-gram matched" },
    { "spec-k",        NULL, LK_OPT_INT,    LK__FIELD(LK__X, recycle_k),   1,            512,         NULL,              "K",   "recycle: successors kept per token" },
    { "spec-adaptive", NULL, LK_OPT_INT,    LK__FIELD(LK__X, adaptive),    0,            1,           NULL,              "0|1", "1: shrink or pause speculation when it does not pay" },
    { "spec-seed",     NULL, LK_OPT_U64,    LK__FIELD(LK__X, seed),        -LK__OPT_I64, LK__OPT_I64, NULL,              "S",   "seed of the draft's draws (negative: modulo 2^64)" },
};
#undef LK__X
LKDEF lk_status lk_spec_params_set(lk_spec_params *p, const char *name, const char *v) {
    return lk__options_set(lk__spec_options, (int)(sizeof lk__spec_options / sizeof lk__spec_options[0]), "speculative",
                           "lk_spec_params_set", p, name, v);
}
/* every option table, by lk_option_set */
LKDEF const lk_option *lk_options(lk_option_set which, int *n) {
    static const struct { const lk_option *rows; int n; } sets[LK_OPTIONS_COUNT] = {
        { lk__model_options, (int)(sizeof lk__model_options / sizeof lk__model_options[0]) },
        { lk__context_options, (int)(sizeof lk__context_options / sizeof lk__context_options[0]) },
        { lk__sampler_options, (int)(sizeof lk__sampler_options / sizeof lk__sampler_options[0]) },
        { lk__spec_options, (int)(sizeof lk__spec_options / sizeof lk__spec_options[0]) },
    };
    const int ok = (unsigned)which < (unsigned)LK_OPTIONS_COUNT;
    if (n) *n = ok ? sets[which].n : 0;
    return ok ? sets[which].rows : NULL;
}
static int lk__spec_nodes(const lk_spec_params *p) {   /* most nodes per step, root included */
    if (p->mode == LK_SPEC_DRAFT || p->mode == LK_SPEC_LOOKUP) return p->draft_max + 1;
    if (p->mode == LK_SPEC_TREE) return p->n_nodes > 0 ? p->n_nodes : 16;
    if (p->mode == LK_SPEC_RECYCLE) return p->n_nodes > 0 ? p->n_nodes : 32;
    return 1;
}
static int lk__ctx_tree_max(const lk_context *c) { return c->p.logits_all ? c->n_batch : c->p.n_tree > 1 ? c->p.n_tree : 1; }
LKDEF void lk_spec_free(lk_spec *s) {
    lk_allocator a;
    if (!s) return;
    a = s->al;
    if (s->dsmp) lk_sampler_free(s->dsmp);
    lk__free(&a, s->hist, sizeof(lk_token) * (size_t)s->hist_cap);
    lk__free(&a, s->blk, s->blk_size);
    lk__free(&a, s, sizeof *s);
}
LKDEF lk_status lk_spec_new(lk_context *target, lk_context *draft, lk_sampler *smp, const lk_spec_params *pp, lk_spec **out) {
    lk_spec_params p = pp ? *pp : lk_spec_default_params();
    lk_allocator a = lk__resolve_alloc(p.alloc);
    lk_spec *s;
    size_t need, V, cap, off = 0;
    unsigned char *blk;
    lk_status st;
    if (!target || !smp || !out) return lk_set_error(LK_ERR_INVALID_ARG, "lk_spec_new: NULL target, sampler or out");
    *out = NULL;
    if ((unsigned)p.mode > (unsigned)LK_SPEC_LOOKUP) return lk_set_error(LK_ERR_INVALID_ARG, "lk_spec_new: unknown mode %d", (int)p.mode);
    if (p.draft_max < 1 || p.draft_max > 512 || p.n_nodes < 0 || p.n_nodes > 512 || p.ngram_max < 1 || p.ngram_max > 8 || p.recycle_k < 1 || p.recycle_k > 64 ||
        !(p.draft_p_min >= 0.0f && p.draft_p_min <= 1.0f) || !(p.node_cost >= 0.0f))
        return lk_set_error(LK_ERR_INVALID_ARG, "lk_spec_new: parameter out of range (draft_max 1..512, n_nodes 0..512, ngram_max 1..8, recycle_k 1..64, draft_p_min 0..1)");
    if (smp->p.mirostat) return lk_set_error(LK_ERR_UNSUPPORTED, "lk_spec_new: not with mirostat (its draws depend on its state, not on a distribution)");
    if ((p.mode == LK_SPEC_DRAFT || p.mode == LK_SPEC_TREE) && !draft) return lk_set_error(LK_ERR_INVALID_ARG, "lk_spec_new: mode %s needs a draft context", lk_spec_mode_name(p.mode));
    if (draft && draft->m->hp.n_vocab != target->m->hp.n_vocab)
        return lk_set_error(LK_ERR_INVALID_ARG, "lk_spec_new: the draft's vocabulary (%d) differs from the target's (%d)", draft->m->hp.n_vocab, target->m->hp.n_vocab);
    if (lk_context_n_past(target) || (draft && lk_context_n_past(draft))) return lk_set_error(LK_ERR_INVALID_ARG, "lk_spec_new: the contexts must be empty");
    cap = (size_t)lk__spec_nodes(&p);
    if ((int)cap > lk__ctx_tree_max(target))
        return lk_set_error(LK_ERR_INVALID_ARG, "lk_spec_new: %zu nodes per step, the target context takes %d (set lk_context_params.n_tree, option tree-nodes)", cap, lk__ctx_tree_max(target));
    if (p.mode == LK_SPEC_TREE && (int)cap - 1 > lk__ctx_tree_max(draft))
        return lk_set_error(LK_ERR_INVALID_ARG, "lk_spec_new: the draft context takes %d tree nodes, tree mode needs %zu (n_tree)", lk__ctx_tree_max(draft), cap - 1);
    V = (size_t)target->m->hp.n_vocab;
    s = LK__CAST(lk_spec *, lk__alloc(&a, sizeof *s));
    if (!s) return lk_set_error(LK_ERR_NOMEM, "lk_spec_new: out of memory");
    memset(s, 0, sizeof *s);
    s->p = p; s->al = a; s->t = target; s->d = draft; s->smp = smp; s->V = (int)V; s->cap = (int)cap;
    s->hist_cap = target->n_ctx + 1;
    /* one block: tok par qrow rank depth path qnext dpar [cap] ints, val [cap], q [cap][V], pb [V], order [cap][cap], adj [V][k] */
    need = cap * (8 * sizeof(int) + sizeof(float)) + cap * V * sizeof(float) + V * sizeof(float) + cap * cap * sizeof(int32_t) +
           (p.mode == LK_SPEC_RECYCLE ? V * (size_t)p.recycle_k * sizeof(int32_t) : 0) + 64;
    s->hist = LK__CAST(lk_token *, lk__alloc(&a, sizeof(lk_token) * (size_t)s->hist_cap));
    blk = LK__CAST(unsigned char *, lk__alloc(&a, need));
    s->blk = blk; s->blk_size = need;
    if (!s->hist || !blk) {
        lk_spec_free(s);
        return lk_set_error(LK_ERR_NOMEM, "lk_spec_new: out of memory (%zu bytes)", need);
    }
#define LK__SP(ptr, T, n) do { ptr = LK__CAST(T, (void *)(blk + off)); off += (n); } while (0)
    LK__SP(s->q, float *, cap * V * sizeof(float)); LK__SP(s->pb, float *, V * sizeof(float));
    LK__SP(s->val, float *, cap * sizeof(float)); LK__SP(s->order, int32_t *, cap * cap * sizeof(int32_t));
    LK__SP(s->tok, lk_token *, cap * sizeof(lk_token)); LK__SP(s->dpar, int *, cap * sizeof(int));
    LK__SP(s->par, int *, cap * sizeof(int)); LK__SP(s->qrow, int *, cap * sizeof(int)); LK__SP(s->rank, int *, cap * sizeof(int));
    LK__SP(s->depth, int *, cap * sizeof(int)); LK__SP(s->path, int *, cap * sizeof(int)); LK__SP(s->qnext, int *, cap * sizeof(int));
    if (p.mode == LK_SPEC_RECYCLE) { LK__SP(s->adj, int32_t *, V * (size_t)p.recycle_k * sizeof(int32_t)); memset(s->adj, 0xff, V * (size_t)p.recycle_k * sizeof(int32_t)); }
#undef LK__SP
    if (draft) {
        lk_sampler_params dp = smp->p;
        dp.repeat_penalty = 1.0f; dp.frequency_penalty = 0.0f; dp.presence_penalty = 0.0f; dp.logit_bias = smp->bias; dp.alloc = NULL;
        dp.n_vocab = (int)V; dp.seed = p.seed;
        if ((st = lk_sampler_new(&dp, &s->dsmp))) { lk_spec_free(s); return st; }
    }
    lk_rng_seed_stream(&s->rng, p.seed, 0x5eedULL);
    s->cur_draft = p.draft_max; s->cur_nodes = (int)cap; s->pause_len = 64;
    *out = s;
    return LK_OK;
}
LKDEF lk_spec_stats lk_spec_get_stats(const lk_spec *s) {
    lk_spec_stats z;
    if (s) return s->st;
    memset(&z, 0, sizeof z);
    return z;
}
/* a draw from p[0..V) (sums to about 1) with u ~ U[0, 1) */
static lk_token lk__spec_draw(const float *p, int V, double u) {
    double sum = 0.0, cum = 0.0;
    int i, last = -1;
    for (i = 0; i < V; i++) sum += p[i];
    u *= sum;
    for (i = 0; i < V; i++) if (p[i] > 0.0f) { last = i; cum += p[i]; if (u < cum) return i; }
    return last;
}
/* the top k of x[0..V) (largest first, lower id first on ties) into idx; returns how many (x > -inf) */
static int lk__spec_topk(const float *x, int V, int k, int32_t *idx) {
    int n = 0, i, j;
    for (i = 0; i < V; i++) {
        if (!(x[i] > -HUGE_VAL)) continue;
        if (n == k && !(x[i] > x[idx[n - 1]])) continue;
        j = n < k ? n++ : n - 1;
        while (j > 0 && x[i] > x[idx[j - 1]]) { idx[j] = idx[j - 1]; j--; }
        idx[j] = i;
    }
    return n;
}
/* Token Recycling (no-op in other modes): the logits after token t rewrite
 * t's row of the adjacency table with their recycle_k best tokens */
static void lk__spec_learn(lk_spec *s, lk_token t, const float *logits) {
    int32_t top[64];
    int k, j;
    if (!s->adj) return;
    k = lk__spec_topk(logits, s->V, s->p.recycle_k, top);
    for (j = 0; j < s->p.recycle_k; j++) s->adj[(size_t)t * s->p.recycle_k + j] = j < k ? top[j] : -1;
}
/* One node of the walk. p[0..V): the sampler's distribution at the node;
 * its children in order: tokens ct[i], proposals cq[i] (NULL: the fixed
 * token, q = 1 there; children with the same cq were drawn from it without
 * replacement, in this order). coin(a) is true with probability a. Returns
 * the accepted child's index, or -1 with p turned into the distribution to
 * draw the next token from. rule 1 skips the residual (a wrong rule, kept
 * as the tests' negative control). */
static int lk__spec_walk_node(float *p, int V, const lk_token *ct, const float *const *cq, int nc,
                              int (*coin)(double a, void *user), void *user, int rule) {
    double removed = 0.0, keep;
    int c, e, j;
    for (c = 0; c < nc; c++) {
        const lk_token x = ct[c];
        const double px = p[x], qx = !cq[c] ? 1.0 : removed < 1.0 ? cq[c][x] / (1.0 - removed) : 0.0;
        /* accept with probability min(1, p(x) / q(x)); q(x) = 0 accepts iff p(x) > 0 */
        if (coin(px >= qx ? (px > 0.0 ? 1.0 : 0.0) : px / qx, user)) return c;
        if (rule == 1) continue;
        if (!cq[c]) { keep = 1.0 - px; p[x] = 0.0f; }   /* p <- norm(max(0, p - q)) */
        else {
            const double scale = removed < 1.0 ? 1.0 / (1.0 - removed) : 0.0;
            keep = 0.0;
            for (j = 0; j < V; j++) {
                double qj = cq[c][j] * scale, d;
                for (e = 0; e < c; e++) if (cq[e] == cq[c] && ct[e] == j) { qj = 0.0; break; }   /* drawn before: not in q */
                d = (double)p[j] - qj;
                p[j] = d > 0.0 ? (float)d : 0.0f;
                keep += p[j];
            }
            removed += cq[c][x];
        }
        if (!(keep > 1e-30)) return -2;   /* p == q up to rounding */
        for (j = 0; j < V; j++) p[j] = (float)(p[j] / keep);
    }
    return -1;
}
static int lk__spec_coin(double a, void *user) { return lk_rng_double(LK__CAST(lk_rng *, user)) < a; }
/* The rejection walk over the step's tree (nodes 0..n-1, node 0 the pending
 * token) after one target forward: emits the accepted tokens and a drawn
 * one, commits the accepted path (SpecInfer's multi-step speculative
 * sampling; siblings from one q row checked as Recursive Speculative
 * Decoding does, lk__spec_walk_node). */
static lk_status lk__spec_verify(lk_spec *s, int n, lk_token *out, int cap, int *n_out) {
    const int V = s->V;
    lk_rng *r = lk_sampler_rng(s->smp);
    int u = 0, m = 1, emitted = 0, i;
    lk_status st;
    lk_token x;
    s->path[0] = 0;
    if ((st = lk_decode_tree(s->t, s->tok, s->par, n))) return st;
    s->st.forwards++; s->st.proposed += n - 1;
    for (i = 0; i < n; i++) lk__spec_learn(s, s->tok[i], lk_logits(s->t, i));   /* every node's logits */
    for (;;) {
        lk_token ct[512];
        const float *cq[512];
        int ci[512], nc = 0, c, got;
        if ((st = lk_sampler_probs(s->smp, lk_logits(s->t, u), V, s->pb))) return st;
        if (emitted + 1 >= cap) break;   /* room for the drawn token only */
        for (c = u + 1; c < n; c++)
            if (s->par[c] == u) { ct[nc] = s->tok[c]; cq[nc] = s->qrow[c] < 0 ? NULL : s->q + (size_t)s->qrow[c] * V; ci[nc++] = c; }
        got = lk__spec_walk_node(s->pb, V, ct, cq, nc, lk__spec_coin, r, 0);
        if (got == -2 && (st = lk_sampler_probs(s->smp, lk_logits(s->t, u), V, s->pb))) return st;   /* rounding: p itself */
        if (got < 0) break;
        x = ct[got];
        if ((st = lk_sampler_accept(s->smp, x))) return st;
        out[emitted++] = x;
        u = s->path[m++] = ci[got];
    }
    x = lk__spec_draw(s->pb, V, lk_rng_double(r));
    if (x < 0) return lk_set_error(LK_ERR_INVALID_ARG, "lk_spec_step: the sampler's distribution is empty");
    if ((st = lk_sampler_accept(s->smp, x))) return st;
    out[emitted++] = x;
    if ((st = lk_context_tree_commit(s->t, s->path, m))) return st;
    s->st.accepted += m - 1;
    for (i = 0; i < emitted; i++) s->hist[s->n_hist++] = out[i];
    *n_out = emitted;
    return LK_OK;
}
/* the draft context through the pending token (its last logits: q at the root) */
static lk_status lk__spec_draft_sync(lk_spec *s) {
    int dn = lk_context_n_past(s->d);
    if (dn >= s->n_hist) { lk_status st = lk_context_truncate(s->d, s->n_hist - 1); if (st) return st; dn = s->n_hist - 1; }
    return lk_decode(s->d, s->hist + dn, s->n_hist - dn);
}
static void lk__spec_node(lk_spec *s, int i, lk_token t, int par, int qrow) {
    s->tok[i] = t; s->par[i] = par; s->qrow[i] = qrow;
    s->depth[i] = par < 0 ? 0 : s->depth[par] + 1;
}
/* draft mode: a chain drawn from the draft; returns the nodes (root incl.) */
static lk_status lk__spec_build_draft(lk_spec *s, int k, int *n) {
    int i;
    lk_status st;
    if ((st = lk__spec_draft_sync(s))) return st;
    for (i = 1; i <= k; i++) {
        float *q = s->q + (size_t)(i - 1) * s->V, top = 0.0f;
        int j;
        lk_token x;
        if ((st = lk_sampler_probs(s->dsmp, lk_logits(s->d, -1), s->V, q))) return st;
        for (j = 0; j < s->V; j++) if (q[j] > top) top = q[j];
        if (top < s->p.draft_p_min) break;
        x = lk__spec_draw(q, s->V, lk_rng_double(&s->rng));
        lk__spec_node(s, i, x, i - 1, i - 1);
        if (i == k || lk_context_n_past(s->d) >= s->d->n_ctx) { i++; break; }
        if ((st = lk_decode(s->d, &x, 1))) return st;
    }
    *n = i;   /* nodes 0 .. i - 1 */
    return LK_OK;
}
/* tree mode: rounds of draft tree forwards; each round adds the best
 * candidates (value = path probability) below nodes whose q is known */
static lk_status lk__spec_build_tree(lk_spec *s, int budget, int *n_out) {
    const int V = s->V, greedy = s->smp->p.temperature <= 0.0f;
    int n = 1, expanded = 0, round, i;
    int *pp = s->dpar;   /* the draft tree's parents (int, as lk_decode_tree takes them; int32_t may be long) */
    lk_status st;
    if ((st = lk__spec_draft_sync(s))) return st;
    s->val[0] = 1.0f;
    for (round = 0; n < budget; round++) {
        int add, a;
        for (i = expanded; i < n; i++) {   /* q and the candidate order of the nodes added last round */
            const float *lg = i == 0 ? lk_logits(s->d, -1) : lk_logits(s->d, i - 1);
            float *q = s->q + (size_t)i * V;
            int32_t *ord = s->order + (size_t)i * s->cap;
            int k, j;
            if (!lg) return lk_set_error(LK_ERR_INVALID_ARG, "lk_spec_step: no draft logits");
            if (greedy) {   /* fixed tokens: the draft's most likely ones; q its softmax (for the values) */
                double mx, z = 0.0;
                k = lk__spec_topk(lg, V, budget, ord);
                mx = lg[ord[0]];
                for (j = 0; j < V; j++) z += exp((double)lg[j] - mx);
                for (j = 0; j < V; j++) q[j] = (float)(exp((double)lg[j] - mx) / z);
            } else {        /* Gumbel-top-k of q: the order of drawing without replacement */
                float *g = s->pb;
                if ((st = lk_sampler_probs(s->dsmp, lg, V, q))) return st;
                for (j = 0; j < V; j++) g[j] = q[j] > 0.0f ? (float)(log((double)q[j]) - log(-log(1.0 - lk_rng_double(&s->rng)))) : -(float)HUGE_VAL;
                k = lk__spec_topk(g, V, budget, ord);
            }
            for (j = k; j < budget; j++) ord[j] = -1;
            s->qnext[i] = 0;
        }
        expanded = n;
        if (lk_context_tree_pending(s->d) && (st = lk_context_tree_commit(s->d, NULL, 0))) return st;   /* drop the draft's tree rows */
        add = round < 7 ? (budget - n + 1) / 2 : budget - n;   /* about half of what is left per round */
        if (add < 1) add = 1;
        for (a = 0; a < add && n < budget; a++) {   /* the best next child over all expanded nodes (DySpec) */
            int best = -1;
            float bv = 0.0f;
            for (i = 0; i < expanded; i++) {
                const int32_t t = s->qnext[i] < budget ? s->order[(size_t)i * s->cap + s->qnext[i]] : -1;
                float v;
                if (t < 0) continue;
                v = s->val[i] * s->q[(size_t)i * V + t];
                if (v > bv) { bv = v; best = i; }
            }
            if (best < 0 || bv <= 0.0f || bv < s->p.draft_p_min) break;
            lk__spec_node(s, n, s->order[(size_t)best * s->cap + s->qnext[best]], best, greedy ? -1 : best);
            s->val[n] = bv; s->qnext[best]++;
            n++;
        }
        if (n == expanded || n >= budget || round == 7) break;
        for (i = 1; i < n; i++) pp[i - 1] = s->par[i] - 1;   /* the draft's tree: node i is its node i - 1 */
        if ((st = lk_decode_tree(s->d, s->tok + 1, pp, n - 1))) return st;
    }
    if (lk_context_tree_pending(s->d) && (st = lk_context_tree_commit(s->d, NULL, 0))) return st;
    *n_out = n;
    return LK_OK;
}
/* recycle mode: BFS over the template from the pending token */
static void lk__spec_build_recycle(lk_spec *s, int budget, int *n_out) {
    static const int width[8] = { 8, 4, 3, 2, 2, 1, 1, 1 };
    const int K = s->p.recycle_k;
    int n = 1, head = 0;
    s->rank[0] = 0;
    while (head < n && n < budget) {
        const int u = head++, d = s->depth[u], w = (d < 8 ? width[d] : 1) - s->rank[u];
        int j, made = 0;
        for (j = 0; j < K && made < w && n < budget; j++) {
            const int32_t t = s->adj[(size_t)s->tok[u] * K + j];
            int e, dup = 0;
            if (t < 0) break;
            for (e = u + 1; e < n; e++) if (s->par[e] == u && s->tok[e] == t) dup = 1;
            if (dup) continue;
            lk__spec_node(s, n, t, u, -1);
            s->rank[n] = made++;
            n++;
        }
    }
    *n_out = n;
}
/* lookup mode: what followed the latest earlier occurrence of the last n-gram */
static void lk__spec_build_lookup(lk_spec *s, int k, int *n_out) {
    const lk_token *h = s->hist;
    const int L = s->n_hist;
    int g, j, n = 1;
    for (g = s->p.ngram_max < L ? s->p.ngram_max : L - 1; g >= 1 && n == 1; g--)
        for (j = L - g - 1; j >= 0; j--) {
            if (memcmp(h + j, h + L - g, sizeof(lk_token) * (size_t)g)) continue;
            for (; n <= k && j + g + n - 1 < L; n++) lk__spec_node(s, n, h[j + g + n - 1], n - 1, -1);
            break;
        }
    *n_out = n;
}
LKDEF lk_status lk_spec_reset(lk_spec *s) {
    lk_status st;
    if (!s) return lk_set_error(LK_ERR_INVALID_ARG, "lk_spec_reset: NULL");
    if ((st = lk_context_truncate(s->t, 0)) || (s->d && (st = lk_context_truncate(s->d, 0)))) return st;
    s->n_hist = 0; s->pause = 0; s->n_rate = 0; s->rate_spec = 0.0;
    s->cur_draft = s->p.draft_max; s->cur_nodes = s->cap;
    return LK_OK;
}
LKDEF lk_status lk_spec_begin(lk_spec *s, const lk_token *prompt, int n, lk_token *first) {
    lk_status st;
    lk_token t;
    if (!s || !prompt || n <= 0 || !first) return lk_set_error(LK_ERR_INVALID_ARG, "lk_spec_begin: NULL argument or empty prompt");
    if (n + 1 > s->hist_cap - 1) return lk_set_error(LK_ERR_RANGE, "lk_spec_begin: the prompt (%d tokens) does not fit the context", n);
    if (lk_context_n_past(s->t)) return lk_set_error(LK_ERR_INVALID_ARG, "lk_spec_begin: the target context is not empty");
    if ((st = lk_decode(s->t, prompt, n))) return st;
    s->st.forwards++;
    if ((st = lk_sampler_sample_ex(s->smp, lk_logits(s->t, -1), s->V, &t))) return st;
    if ((st = lk_sampler_accept(s->smp, t))) return st;
    lk__spec_learn(s, prompt[n - 1], lk_logits(s->t, -1));
    memcpy(s->hist, prompt, sizeof(lk_token) * (size_t)n);
    s->n_hist = n;
    s->hist[s->n_hist++] = t;
    s->st.tokens++;
    *first = t;
    return LK_OK;
}
LKDEF lk_status lk_spec_step(lk_spec *s, lk_token *out, int cap, int *n_out) {
    const int room = s ? s->t->n_ctx - lk_context_n_past(s->t) : 0;
    int n = 1, plain, budget;
    double t0 = 0.0, cost;
    lk_status st;
    if (!s || !out || !n_out || cap < 1) return lk_set_error(LK_ERR_INVALID_ARG, "lk_spec_step: NULL argument or cap < 1");
    *n_out = 0;
    if (s->n_hist == 0) return lk_set_error(LK_ERR_INVALID_ARG, "lk_spec_step: call lk_spec_begin first");
    if (room < 1) return lk_set_error(LK_ERR_RANGE, "lk_spec_step: the context is full (%d tokens)", s->t->n_ctx);
    plain = s->p.mode == LK_SPEC_NONE || s->pause > 0;
    budget = s->cur_nodes < room ? s->cur_nodes : room;
    if (s->p.now) t0 = s->p.now(s->p.now_user);
    lk__spec_node(s, 0, s->hist[s->n_hist - 1], -1, -1);
    if (!plain && budget > 1) {
        switch (s->p.mode) {
        case LK_SPEC_DRAFT: st = lk__spec_build_draft(s, s->cur_draft < budget - 1 ? s->cur_draft : budget - 1, &n); break;
        case LK_SPEC_TREE: st = lk__spec_build_tree(s, budget, &n); break;
        case LK_SPEC_RECYCLE: lk__spec_build_recycle(s, budget, &n); st = LK_OK; break;
        default: lk__spec_build_lookup(s, s->cur_draft < budget - 1 ? s->cur_draft : budget - 1, &n); st = LK_OK; break;
        }
        if (st) return st;
    }
    if (n == 1) {   /* a plain step: lk_decode and a draw, as plain decoding (the same logits and draw) */
        lk_token x = s->tok[0];
        if ((st = lk_decode(s->t, &x, 1))) return st;
        s->st.forwards++;
        lk__spec_learn(s, x, lk_logits(s->t, -1));   /* Token Recycling learns from this forward too */
        if ((st = lk_sampler_sample_ex(s->smp, lk_logits(s->t, -1), s->V, &x)) || (st = lk_sampler_accept(s->smp, x))) return st;
        out[0] = x; *n_out = 1;
        s->hist[s->n_hist++] = x;
    } else if ((st = lk__spec_verify(s, n, out, cap, n_out))) return st;
    if (s->d && lk_context_n_past(s->d) > s->n_hist - 1) {   /* the draft keeps the accepted prefix */
        if ((st = lk_context_truncate(s->d, s->n_hist - 1))) return st;
    }
    s->st.tokens += *n_out;
    if (plain) s->st.plain_steps++;
    if (s->p.adaptive && s->p.mode != LK_SPEC_NONE) {   /* tokens per unit of cost, against plain decoding's */
        double rate;
        cost = s->p.now ? s->p.now(s->p.now_user) - t0 : 1.0 + s->p.node_cost * (n - 1);
        if (!(cost > 0.0)) cost = 1e-9;
        rate = *n_out / cost;
        if (plain) { s->rate_plain = s->rate_plain > 0.0 ? 0.8 * s->rate_plain + 0.2 * rate : rate; if (s->pause > 0) s->pause--; }
        else {
            s->rate_spec = s->n_rate ? 0.8 * s->rate_spec + 0.2 * rate : rate;
            s->n_rate++;
        }
        if (!s->p.now && s->rate_plain == 0.0) s->rate_plain = 1.0;
        if (!plain && s->n_rate >= 8 && s->rate_plain > 0.0 && s->rate_spec < s->rate_plain) {
            if (s->cur_draft > 1 || s->cur_nodes > 2) {
                s->cur_draft = s->cur_draft > 1 ? s->cur_draft / 2 : 1;
                s->cur_nodes = s->cur_nodes > 2 ? (s->cur_nodes + 1) / 2 : 2;
                if (s->p.mode == LK_SPEC_DRAFT || s->p.mode == LK_SPEC_LOOKUP) s->cur_nodes = s->cur_draft + 1;
            } else {   /* pause; each failed retry doubles the next pause (up to 4096 tokens) */
                s->pause = s->pause_len;
                if (s->pause_len < 4096) s->pause_len *= 2;
                s->cur_draft = s->p.draft_max; s->cur_nodes = s->cap;
            }
            s->n_rate = 0;
        } else if (!plain && s->n_rate >= 8 && s->rate_spec >= s->rate_plain) s->pause_len = 64;   /* it pays: back to short pauses */
        if (s->p.now && s->rate_plain == 0.0 && !plain && s->n_rate == 1) s->pause = 4;   /* measure plain decoding once, early */
    }
    return LK_OK;
}
LKDEF uint64_t lk_context_kv_bytes(const lk_context *c) {
    const lk_kv_policy_params *pp = &c->p.kv_policy;
    lk_kv_cache_params kp;
    memset(&kp, 0, sizeof kp);
    kp.type = c->kv.type; kp.n_layer = c->kv.n_layer; kp.n_ctx = c->kv.n_ctx; kp.n_embd_k = c->kv.n_embd_k; kp.n_embd_v = c->kv.n_embd_v;
    kp.head_dim = c->kv.head_dim; kp.zip_bits = c->kv.zip_bits; kp.zip_window = c->kv.zip_window;
    if (lk__kv_policies[pp->policy].evicts && pp->budget > 0 && pp->budget < c->n_ctx)
        kp.n_ctx = pp->budget;   /* an evicting cache holds budget rows per layer */
    return lk_kv_cache_bytes(&kp) + lk__kvp_bytes(&c->kp, kp.n_ctx);
}

/* ---- prefix cache ------------------------------------------------------------- */
/* the model: GGUF header, KVs and tensor table (everything before the data) */
static uint64_t lk__model_hash(const lk_model *m) {
    const lk_gguf *g = m->g;
    uint64_t n = g->data_offset <= g->len ? g->data_offset : g->len;
    return lk__fnv(LK__FNV0, g->buf, (size_t)n);
}
static uint64_t lk__settings_hash(const lk_context *c) {
    int32_t v[12];
    v[0] = (int32_t)c->kv.type; v[1] = c->kv.zip_bits; v[2] = c->kv.zip_window; v[3] = c->kv.n_layer; v[4] = c->kv.n_embd_k;
    v[5] = c->kv.head_dim; v[6] = (int32_t)c->p.attn_score; v[7] = (int32_t)c->p.kv_policy.policy; v[8] = c->kp.pg;
    v[9] = c->p.kv_policy.policy == LK_KV_TWILIGHT ? (int32_t)c->p.kv_policy.twilight_base : -1; v[10] = 0x4c4b; v[11] = 1 + 2 * (c->p.kv_rotate != 0);
    return lk__fnv(LK__FNV0, v, sizeof v);
}
#define LK__STATE_MAGIC 0x564b4b4cu   /* "LKKV" */
#define LK__STATE_HDR 48
/* payload: walk every piece of state for rows [0, n); dir 0 = write, 1 = read */
static int lk__state_io(lk_context *c, int n, unsigned char *buf, const unsigned char *in, size_t *off, size_t cap) {
    const lk_kv_cache *kv = &c->kv;
    const lk_hparams *hp = &c->m->hp;
    int il;
#define LK__IO(ptr, bytes) do { size_t nb_ = (bytes); if (*off + nb_ > cap) return 0; \
        if (buf) memcpy(buf + *off, (ptr), nb_); else if (in) memcpy((ptr), in + *off, nb_); *off += nb_; } while (0)
    LK__IO(kv->pos, sizeof(int32_t) * (size_t)n);
    LK__IO(kv->seg, sizeof(int32_t) * (size_t)n);
    for (il = 0; il < kv->n_layer; il++) {
        if (kv->zip_bits) {
            const int W = kv->zip_window;
            int32_t zq = kv->zq[il] < n ? kv->zq[il] : n;
            LK__IO(&kv->zq[il], sizeof(int32_t));
            if (in && (kv->zq[il] < 0 || kv->zq[il] > n)) return 0;
            zq = kv->zq[il] < n ? kv->zq[il] : n;
            LK__IO(kv->zks + (size_t)il * kv->n_embd_k, sizeof(float) * (size_t)kv->n_embd_k);
            LK__IO(kv->zvs + (size_t)il * kv->n_embd_v, sizeof(float) * (size_t)kv->n_embd_v);
            LK__IO(kv->zk + (size_t)il * kv->n_ctx * kv->zrow, kv->zrow * (size_t)zq);
            LK__IO(kv->zv + (size_t)il * kv->n_ctx * kv->zrow, kv->zrow * (size_t)zq);
            LK__IO(kv->zkp + (size_t)il * kv->n_ctx * kv->n_head_kv * 2, sizeof(uint16_t) * 2 * (size_t)kv->n_head_kv * zq);
            LK__IO(kv->zvp + (size_t)il * kv->n_ctx * kv->n_head_kv * 2, sizeof(uint16_t) * 2 * (size_t)kv->n_head_kv * zq);
            LK__IO(kv->k + (size_t)il * W * kv->row_k, kv->row_k * (size_t)W);
            LK__IO(kv->v + (size_t)il * W * kv->row_v, kv->row_v * (size_t)W);
        } else {
            LK__IO(kv->k + (size_t)il * kv->n_ctx * kv->row_k, kv->row_k * (size_t)n);
            LK__IO(kv->v + (size_t)il * kv->n_ctx * kv->row_v, kv->row_v * (size_t)n);
        }
    }
    if (c->kp.quest) {
        int g;
        size_t pages = (size_t)(n + c->kp.pg - 1) / c->kp.pg;
        for (il = 0; il < hp->n_layer; il++)
            for (g = 0; g < hp->n_head_kv; g++)
                LK__IO(c->kp.quest + (((size_t)il * hp->n_head_kv + g) * c->kp.n_pages) * 2 * hp->head_dim_k, sizeof(float) * pages * 2 * hp->head_dim_k);
    }
#undef LK__IO
    return 1;
}
static void lk__put_u64(unsigned char *p, uint64_t v) { int i; for (i = 0; i < 8; i++) p[i] = (unsigned char)(v >> (8 * i)); }
static uint64_t lk__get_u64(const unsigned char *p) { uint64_t v = 0; int i; for (i = 7; i >= 0; i--) v = (v << 8) | p[i]; return v; }
LKDEF lk_status lk_context_state_save(const lk_context *c, void *buf, size_t cap, size_t *size) {
    size_t off = 0;
    unsigned char *b = LK__CAST(unsigned char *, buf);
    lk_kv_policy pol;
    if (!c || !size) return lk_set_error(LK_ERR_INVALID_ARG, "state save: NULL argument");
    if (c->n_seq) return lk_set_error(LK_ERR_INVALID_ARG, "state save: the context holds sequences (n_seq_max > 0): not supported");
    pol = c->p.kv_policy.policy;
    if (c->tree_n > 0) return lk_set_error(LK_ERR_INVALID_ARG, "state save: a token tree is pending: commit it first");
    if (lk__kvp_has_step_state(&c->kp))
        return lk_set_error(LK_ERR_UNSUPPORTED, "state save: policy %s keeps per-step state that is not saved", lk_kv_policy_name(pol));
    lk__state_io(LK__CAST(lk_context *, c), c->kv.n, NULL, NULL, &off, (size_t)-1);
    *size = LK__STATE_HDR + off;
    if (!buf) return LK_OK;
    if (cap < *size) return lk_set_error(LK_ERR_RANGE, "state save: buffer of %zu bytes, need %zu", cap, *size);
    off = 0;
    lk__state_io(LK__CAST(lk_context *, c), c->kv.n, b + LK__STATE_HDR, NULL, &off, cap - LK__STATE_HDR);
    lk__put_u64(b, (uint64_t)LK__STATE_MAGIC | ((uint64_t)1 << 32));   /* magic, version 1 */
    lk__put_u64(b + 8, lk__model_hash(c->m));
    lk__put_u64(b + 16, lk__settings_hash(c));
    lk__put_u64(b + 24, (uint64_t)c->kv.n);
    lk__put_u64(b + 32, (uint64_t)off);
    lk__put_u64(b + 40, lk__fnv(LK__FNV0, b + LK__STATE_HDR, off));
    return LK_OK;
}
LKDEF lk_status lk_context_state_load(lk_context *c, const void *buf, size_t len) {
    const unsigned char *b = LK__CAST(const unsigned char *, buf);
    uint64_t n, plen;
    size_t off = 0;
    if (!c || !buf) return lk_set_error(LK_ERR_INVALID_ARG, "state load: NULL argument");
    if (c->n_seq) return lk_set_error(LK_ERR_INVALID_ARG, "state load: the context holds sequences (n_seq_max > 0): not supported");
    lk_context_truncate(c, 0);
    if (len < LK__STATE_HDR) return lk_set_error(LK_ERR_FORMAT, "state load: %zu bytes is shorter than the header", len);
    if (lk__get_u64(b) != ((uint64_t)LK__STATE_MAGIC | ((uint64_t)1 << 32))) return lk_set_error(LK_ERR_FORMAT, "state load: bad magic or version");
    if (lk__get_u64(b + 8) != lk__model_hash(c->m)) return lk_set_error(LK_ERR_INVALID_ARG, "state load: saved for a different model");
    if (lk__get_u64(b + 16) != lk__settings_hash(c)) return lk_set_error(LK_ERR_INVALID_ARG, "state load: saved with different KV / attention settings");
    n = lk__get_u64(b + 24); plen = lk__get_u64(b + 32);
    if (n > (uint64_t)c->n_ctx) return lk_set_error(LK_ERR_RANGE, "state load: %llu tokens do not fit n_ctx %d", (unsigned long long)n, c->n_ctx);
    if (plen != (uint64_t)(len - LK__STATE_HDR)) return lk_set_error(LK_ERR_FORMAT, "state load: payload is %llu bytes, buffer holds %zu", (unsigned long long)plen, len - LK__STATE_HDR);
    if (lk__get_u64(b + 40) != lk__fnv(LK__FNV0, b + LK__STATE_HDR, (size_t)plen)) return lk_set_error(LK_ERR_FORMAT, "state load: checksum mismatch (corrupt)");
    if (!lk__state_io(c, (int)n, NULL, b + LK__STATE_HDR, &off, (size_t)plen) || off != plen) {
        lk_context_truncate(c, 0);
        return lk_set_error(LK_ERR_FORMAT, "state load: payload does not match the settings");
    }
    {   /* positions must leave room to continue (no int overflow later) */
        int i;
        for (i = 0; i < (int)n; i++)
            if (c->kv.pos[i] < 0 || c->kv.pos[i] >= (1 << 30) || (i && c->kv.seg[i] == c->kv.seg[i - 1] && c->kv.pos[i] < c->kv.pos[i - 1])) {
                lk_context_truncate(c, 0);
                return lk_set_error(LK_ERR_FORMAT, "state load: position %d of row %d is invalid", (int)c->kv.pos[i], i);
            }
    }
    c->kv.n = (int)n;
    c->n_logit_rows = 0;
    return LK_OK;
}
#ifndef LLMKIT_NO_STDIO
LKDEF lk_status lk_context_state_save_file(const lk_context *c, const char *path) {
    size_t sz = 0;
    void *buf;
    FILE *f;
    lk_status st;
    lk_allocator a;
    if (!c || !path) return lk_set_error(LK_ERR_INVALID_ARG, "state save: NULL argument");
    if ((st = lk_context_state_save(c, NULL, 0, &sz))) return st;
    a = c->a;
    if (!(buf = a.alloc(a.user, sz, 16))) return lk_set_error(LK_ERR_NOMEM, "state save: out of memory");
    if ((st = lk_context_state_save(c, buf, sz, &sz))) { lk__free(&a, buf, sz); return st; }
    if (!(f = fopen(path, "wb"))) { lk__free(&a, buf, sz); return lk_set_error(LK_ERR_IO, "state save: cannot open %s", path); }
    st = fwrite(buf, 1, sz, f) == sz ? LK_OK : lk_set_error(LK_ERR_IO, "state save: write to %s failed", path);
    if (fclose(f) && !st) st = lk_set_error(LK_ERR_IO, "state save: close of %s failed", path);
    lk__free(&a, buf, sz);
    return st;
}
LKDEF lk_status lk_context_state_load_file(lk_context *c, const char *path) {
    FILE *f;
    long len;
    void *buf;
    lk_status st;
    lk_allocator a;
    if (!c || !path) return lk_set_error(LK_ERR_INVALID_ARG, "state load: NULL argument");
    if (!(f = fopen(path, "rb"))) return lk_set_error(LK_ERR_IO, "state load: cannot open %s", path);
    if (fseek(f, 0, SEEK_END) || (len = ftell(f)) < 0 || fseek(f, 0, SEEK_SET)) { fclose(f); return lk_set_error(LK_ERR_IO, "state load: cannot size %s", path); }
    a = c->a;
    if (!(buf = a.alloc(a.user, (size_t)len + 1, 16))) { fclose(f); return lk_set_error(LK_ERR_NOMEM, "state load: out of memory"); }
    if (fread(buf, 1, (size_t)len, f) != (size_t)len) { fclose(f); lk__free(&a, buf, (size_t)len + 1); return lk_set_error(LK_ERR_IO, "state load: read of %s failed", path); }
    fclose(f);
    st = lk_context_state_load(c, buf, (size_t)len);
    lk__free(&a, buf, (size_t)len + 1);
    return st;
}
#endif

#if defined(LK__GCC_AVX512_WORKAROUND)
#pragma GCC diagnostic pop
#endif
#endif /* LLMKIT_IMPLEMENTATION_DONE */
#endif /* LLMKIT_IMPLEMENTATION */

/*
------------------------------------------------------------------------------
This software is available under 2 licenses -- choose whichever you prefer.
------------------------------------------------------------------------------
ALTERNATIVE A - MIT License
Copyright (c) 2026 llmkit authors
Permission is hereby granted, free of charge, to any person obtaining a copy of
this software and associated documentation files (the "Software"), to deal in
the Software without restriction, including without limitation the rights to
use, copy, modify, merge, publish, distribute, sublicense, and/or sell copies
of the Software, and to permit persons to whom the Software is furnished to do
so, subject to the following conditions:
The above copyright notice and this permission notice shall be included in all
copies or substantial portions of the Software.
THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE
SOFTWARE.
------------------------------------------------------------------------------
ALTERNATIVE B - Public Domain (www.unlicense.org)
This is free and unencumbered software released into the public domain.
Anyone is free to copy, modify, publish, use, compile, sell, or distribute this
software, either in source code form or as a compiled binary, for any purpose,
commercial or non-commercial, and by any means.
In jurisdictions that recognize copyright laws, the author or authors of this
software dedicate any and all copyright interest in the software to the public
domain. We make this dedication in the spirit of advancing human knowledge and
to benefit the public. We believe that a good system of copyright law is
detrimental to the future of software.
THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE
SOFTWARE.
------------------------------------------------------------------------------
*/
