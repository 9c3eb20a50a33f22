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
 *   LLMKIT_ASSERT(x)     internal consistency checks (default: nothing). Never
 *                        used for input validation; bad input returns a status.
 *   LLMKIT_MALLOC(sz,u) / LLMKIT_FREE(p,u)   replace malloc/free (u = user ptr)
 *
 * LICENSE: MIT or public domain (Unlicense), your choice. See end of file.
 *
 * TABLE OF CONTENTS (the implementation follows the same order)
 *    1. Usage, configuration, version            (this block)
 *    2. Status codes and error messages           lk_status, lk_last_error
 *    3. Memory                                    lk_allocator, lk_arena
 *    4. Types                                     lk_type, lk_type_traits
 *    5. Tensors                                   lk_tensor
 *    6. GGUF                                      lk_gguf (reader), lk_gguf_writer
 *    7. Quantization                              block formats, dot products, matmul
 *    8. Ops                                       norms, RoPE, activations, softmax
 *    9. Attention                                 one core over a KV view
 *   10. KV cache                                  storage types, policies
 *   11. Sampling                                  samplers, chain, RNG
 *   12. Tokenizer                                 SPM, BPE, WPM from GGUF metadata
 *   13. Model                                     architectures, forward, context
 *   14. Threads                                   the parallel-for hook
 *   15. Implementation                            #ifdef LLMKIT_IMPLEMENTATION
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
 * Every fallible function returns lk_status (0 = success). lk_last_error()
 * returns a human-readable message for the last failure on this thread,
 * naming what was wrong and where (for files: the field and byte offset). */
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
 * 3. Memory
 * ==========================================================================
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
    LK_TYPE_COUNT = 39
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
LKDEF const lk_type_traits *lk_type_get(int type);
LKDEF const char *lk_type_name(int type);           /* "?" if unknown */
LKDEF int lk_type_from_name(const char *name);      /* case-insensitive, -1 if none */
/* Bytes of a row of n elements; 0 if n is not a multiple of the block size
 * or the type is unknown. */
LKDEF size_t lk_row_size(int type, int64_t n);

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
} lk_tensor;

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

typedef struct lk_gguf {
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
} lk_gguf;

typedef struct lk_gguf_params {
    const lk_allocator *alloc;      /* NULL = default allocator              */
} lk_gguf_params;

LKDEF lk_gguf_params lk_gguf_default_params(void);
LKDEF lk_status lk_gguf_read_memory(const void *buf, size_t len, const lk_gguf_params *p, lk_gguf **out);
#ifndef LLMKIT_NO_STDIO
LKDEF lk_status lk_gguf_read_file(const char *path, const lk_gguf_params *p, lk_gguf **out);
#endif
LKDEF void lk_gguf_free(lk_gguf *g);

LKDEF const char *lk_gguf_type_name(int t);          /* "u32", "str", ... */
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

typedef struct lk_gguf_writer lk_gguf_writer;

LKDEF lk_status lk_gguf_writer_new(const lk_allocator *alloc, lk_gguf_writer **out);
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
 *              matrix in ggml, so from_float is NULL for them.
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

/* ==========================================================================
 * 8. Ops
 * ========================================================================== */

/* ==========================================================================
 * 9. Attention
 * ========================================================================== */

/* ==========================================================================
 * 10. KV cache
 * ========================================================================== */

/* ==========================================================================
 * 11. Sampling
 * ========================================================================== */

/* ==========================================================================
 * 12. Tokenizer
 * ========================================================================== */

/* ==========================================================================
 * 13. Model
 * ========================================================================== */

/* ==========================================================================
 * 14. Threads
 * ==========================================================================
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

#ifdef __cplusplus
}
#endif
#endif /* LLMKIT_H */

/* ==========================================================================
 * 15. Implementation
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

/* --------------------------------------------------------------------------
 * 15.2 Status codes and error messages
 * -------------------------------------------------------------------------- */
#if defined(__cplusplus) && __cplusplus >= 201103L
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
        case 'x': hex = 1; uns = 1; /* fallthrough */
        case 'u': uns = 1; /* fallthrough */
        case 'd': {
            unsigned long long u; int neg = 0; size_t n = 0; char rev[24];
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

LKDEF lk_status lk_set_error(lk_status st, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    lk__vformat(lk__errbuf, sizeof lk__errbuf, fmt, ap);
    va_end(ap);
    return st;
}

/* --------------------------------------------------------------------------
 * 15.3 Memory
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
LK__UNUSED static int lk__mul_ok(uint64_t a, uint64_t b, uint64_t *r) {
    if (a && b > UINT64_MAX / a) return 0;
    *r = a * b; return 1;
}
LK__UNUSED static int lk__add_ok(uint64_t a, uint64_t b, uint64_t *r) {
    if (b > UINT64_MAX - a) return 0;
    *r = a + b; return 1;
}

/* --------------------------------------------------------------------------
 * 15.4 Types
 * -------------------------------------------------------------------------- */
/* 7b. IQ and ternary kernels (defined in 15.7, sub-section 7b) */
#define LK__IQ_PROTO(t) \
    static void lk__##t##_to_float(const void *x, float *y, int64_t n); \
    static void lk__##t##_vec_dot(int64_t n, float *s, const void *x, const void *y);
LK__IQ_PROTO(iq4_nl) LK__IQ_PROTO(iq4_xs) LK__IQ_PROTO(iq3_xxs) LK__IQ_PROTO(iq3_s)
LK__IQ_PROTO(iq2_xxs) LK__IQ_PROTO(iq2_xs) LK__IQ_PROTO(iq2_s) LK__IQ_PROTO(iq1_s)
LK__IQ_PROTO(iq1_m) LK__IQ_PROTO(tq1_0) LK__IQ_PROTO(tq2_0)
#undef LK__IQ_PROTO
static void lk__iq4_nl_from_float(const float *x, void *y, int64_t n);
static void lk__iq4_xs_from_float(const float *x, void *y, int64_t n);
static void lk__iq3_xxs_from_float(const float *x, void *y, int64_t n);
static void lk__iq3_s_from_float(const float *x, void *y, int64_t n);
static void lk__tq1_0_from_float(const float *x, void *y, int64_t n);
static void lk__tq2_0_from_float(const float *x, void *y, int64_t n);
/* LK__TYPE_TABLE_BEGIN (section 7 fills the kernel columns) */
static const lk_type_traits lk__type_table[LK_TYPE_COUNT] = {
    /* name        blck  bytes  quant  to_float  from_float  vec_dot  vec_dot_type */
    /*  0 */ { "f32",       1,   4, 0, NULL, NULL, NULL, LK_TYPE_F32 },
    /*  1 */ { "f16",       1,   2, 0, NULL, NULL, NULL, LK_TYPE_F16 },
    /*  2 */ { "q4_0",     32,  18, 1, NULL, NULL, NULL, LK_TYPE_Q8_0 },
    /*  3 */ { "q4_1",     32,  20, 1, NULL, NULL, NULL, LK_TYPE_Q8_1 },
    /*  4 */ { NULL, 0, 0, 0, NULL, NULL, NULL, LK_TYPE_F32 },
    /*  5 */ { NULL, 0, 0, 0, NULL, NULL, NULL, LK_TYPE_F32 },
    /*  6 */ { "q5_0",     32,  22, 1, NULL, NULL, NULL, LK_TYPE_Q8_0 },
    /*  7 */ { "q5_1",     32,  24, 1, NULL, NULL, NULL, LK_TYPE_Q8_1 },
    /*  8 */ { "q8_0",     32,  34, 1, NULL, NULL, NULL, LK_TYPE_Q8_0 },
    /*  9 */ { "q8_1",     32,  36, 1, NULL, NULL, NULL, LK_TYPE_Q8_1 },
    /* 10 */ { "q2_K",    256,  84, 1, NULL, NULL, NULL, LK_TYPE_Q8_K },
    /* 11 */ { "q3_K",    256, 110, 1, NULL, NULL, NULL, LK_TYPE_Q8_K },
    /* 12 */ { "q4_K",    256, 144, 1, NULL, NULL, NULL, LK_TYPE_Q8_K },
    /* 13 */ { "q5_K",    256, 176, 1, NULL, NULL, NULL, LK_TYPE_Q8_K },
    /* 14 */ { "q6_K",    256, 210, 1, NULL, NULL, NULL, LK_TYPE_Q8_K },
    /* 15 */ { "q8_K",    256, 292, 1, NULL, NULL, NULL, LK_TYPE_Q8_K },
    /* 16 */ { "iq2_xxs", 256,  66, 1, lk__iq2_xxs_to_float, NULL, lk__iq2_xxs_vec_dot, LK_TYPE_Q8_K },
    /* 17 */ { "iq2_xs",  256,  74, 1, lk__iq2_xs_to_float, NULL, lk__iq2_xs_vec_dot, LK_TYPE_Q8_K },
    /* 18 */ { "iq3_xxs", 256,  98, 1, lk__iq3_xxs_to_float, lk__iq3_xxs_from_float, lk__iq3_xxs_vec_dot, LK_TYPE_Q8_K },
    /* 19 */ { "iq1_s",   256,  50, 1, lk__iq1_s_to_float, NULL, lk__iq1_s_vec_dot, LK_TYPE_Q8_K },
    /* 20 */ { "iq4_nl",   32,  18, 1, lk__iq4_nl_to_float, lk__iq4_nl_from_float, lk__iq4_nl_vec_dot, LK_TYPE_Q8_0 },
    /* 21 */ { "iq3_s",   256, 110, 1, lk__iq3_s_to_float, lk__iq3_s_from_float, lk__iq3_s_vec_dot, LK_TYPE_Q8_K },
    /* 22 */ { "iq2_s",   256,  82, 1, lk__iq2_s_to_float, NULL, lk__iq2_s_vec_dot, LK_TYPE_Q8_K },
    /* 23 */ { "iq4_xs",  256, 136, 1, lk__iq4_xs_to_float, lk__iq4_xs_from_float, lk__iq4_xs_vec_dot, LK_TYPE_Q8_K },
    /* 24 */ { "i8",        1,   1, 0, NULL, NULL, NULL, LK_TYPE_I8 },
    /* 25 */ { "i16",       1,   2, 0, NULL, NULL, NULL, LK_TYPE_I16 },
    /* 26 */ { "i32",       1,   4, 0, NULL, NULL, NULL, LK_TYPE_I32 },
    /* 27 */ { "i64",       1,   8, 0, NULL, NULL, NULL, LK_TYPE_I64 },
    /* 28 */ { "f64",       1,   8, 0, NULL, NULL, NULL, LK_TYPE_F64 },
    /* 29 */ { "iq1_m",   256,  56, 1, lk__iq1_m_to_float, NULL, lk__iq1_m_vec_dot, LK_TYPE_Q8_K },
    /* 30 */ { "bf16",      1,   2, 0, NULL, NULL, NULL, LK_TYPE_BF16 },
    /* 31 */ { NULL, 0, 0, 0, NULL, NULL, NULL, LK_TYPE_F32 },
    /* 32 */ { NULL, 0, 0, 0, NULL, NULL, NULL, LK_TYPE_F32 },
    /* 33 */ { NULL, 0, 0, 0, NULL, NULL, NULL, LK_TYPE_F32 },
    /* 34 */ { "tq1_0",   256,  54, 1, lk__tq1_0_to_float, lk__tq1_0_from_float, lk__tq1_0_vec_dot, LK_TYPE_Q8_K },
    /* 35 */ { "tq2_0",   256,  66, 1, lk__tq2_0_to_float, lk__tq2_0_from_float, lk__tq2_0_vec_dot, LK_TYPE_Q8_K },
    /* 36 */ { NULL, 0, 0, 0, NULL, NULL, NULL, LK_TYPE_F32 },
    /* 37 */ { NULL, 0, 0, 0, NULL, NULL, NULL, LK_TYPE_F32 },
    /* 38 */ { NULL, 0, 0, 0, NULL, NULL, NULL, LK_TYPE_F32 },
};
/* LK__TYPE_TABLE_END */

LKDEF const lk_type_traits *lk_type_get(int type) {
    if (type < 0 || type >= LK_TYPE_COUNT || !lk__type_table[type].name) return NULL;
    return &lk__type_table[type];
}
LKDEF const char *lk_type_name(int type) {
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
LKDEF int lk_type_from_name(const char *name) {
    int i;
    if (!name) return -1;
    for (i = 0; i < LK_TYPE_COUNT; i++)
        if (lk__type_table[i].name && lk__strieq(lk__type_table[i].name, name)) return i;
    return -1;
}
LKDEF size_t lk_row_size(int type, int64_t n) {
    const lk_type_traits *t = lk_type_get(type);
    uint64_t r;
    if (!t || n < 0 || n % t->blck_size) return 0;
    if (!lk__mul_ok((uint64_t)(n / t->blck_size), t->type_size, &r) || r > SIZE_MAX) return 0;
    return (size_t)r;
}

/* --------------------------------------------------------------------------
 * 15.5 Tensors
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
 * 15.6 GGUF
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

LKDEF const char *lk_gguf_type_name(int t) {
    return t >= 0 && t < LK_GGUF_TYPE_COUNT ? lk__gguf_type_names[t] : "?";
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

static lk_status lk__rd_scalar(lk__rd *r, lk_gguf_type t, lk_gguf_value *v, const char *key) {
    const unsigned char *p;
    lk_status st = lk__rd_need(r, lk__gguf_type_size[t], key);
    if (st) return st;
    p = r->p + r->off;
    switch (t) {
    case LK_GGUF_UINT8: v->v.u = p[0]; break;
    case LK_GGUF_INT8: v->v.i = (int8_t)p[0]; break;
    case LK_GGUF_UINT16: v->v.u = lk__ld16(p); break;
    case LK_GGUF_INT16: v->v.i = (int16_t)lk__ld16(p); break;
    case LK_GGUF_UINT32: v->v.u = lk__ld32(p); break;
    case LK_GGUF_INT32: v->v.i = (int32_t)lk__ld32(p); break;
    case LK_GGUF_UINT64: v->v.u = lk__ld64(p); break;
    case LK_GGUF_INT64: v->v.i = (int64_t)lk__ld64(p); break;
    case LK_GGUF_FLOAT32: { uint32_t b = lk__ld32(p); float f; memcpy(&f, &b, 4); v->v.f = f; break; }
    case LK_GGUF_FLOAT64: { uint64_t b = lk__ld64(p); memcpy(&v->v.f, &b, 8); break; }
    case LK_GGUF_BOOL:
        if (p[0] > 1)
            return lk_set_error(LK_ERR_FORMAT, "gguf: value of key '%s' at byte offset %llu: bool byte is %u, not 0 or 1",
                                key, (unsigned long long)r->off, (unsigned)p[0]);
        v->v.u = p[0]; break;
    default: break;
    }
    r->off += lk__gguf_type_size[t];
    return LK_OK;
}

static lk_status lk__rd_value(lk_gguf *g, lk__rd *r, lk_gguf_type type, lk_gguf_value *v, int depth, const char *key) {
    lk_status st;
    uint32_t et;
    uint64_t n, i, at, left, min_elem;
    v->type = type;
    if ((int)type < 0 || type >= LK_GGUF_TYPE_COUNT)
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

static lk_gguf *lk__sort_g;   /* qsort has no context argument */
static int lk__cmp_tensor_off(const void *a, const void *b) {
    uint64_t x = lk__sort_g->tensors[*LK__CAST(const uint32_t *, a)].offset;
    uint64_t y = lk__sort_g->tensors[*LK__CAST(const uint32_t *, b)].offset;
    return x < y ? -1 : x > y;
}

static lk_status lk__gguf_parse(lk_gguf *g) {
    lk__rd r;
    lk_status st;
    uint32_t version;
    uint64_t i, n_tensors, n_kv, at;
    int64_t ai;
    r.p = g->buf; r.len = g->len; r.off = 0;

    if (g->len < 4 || memcmp(g->buf, "GGUF", 4) != 0)
        return lk_set_error(LK_ERR_FORMAT, "gguf: magic at byte offset 0: not a GGUF file (expected \"GGUF\")");
    r.off = 4;
    if ((st = lk__rd_u32(&r, &version, "version"))) return st;
    if (version == 1) return lk_set_error(LK_ERR_UNSUPPORTED, "gguf: version at byte offset 4: GGUF v1 is not supported (v2 and v3 are)");
    if (version == 0x02000000u || version == 0x03000000u)
        return lk_set_error(LK_ERR_UNSUPPORTED, "gguf: version at byte offset 4: big-endian GGUF is not supported");
    if (version != 2 && version != 3)
        return lk_set_error(LK_ERR_FORMAT, "gguf: version at byte offset 4: unknown version %u", (unsigned)version);
    g->version = version;
    if ((st = lk__rd_u64(&r, &n_tensors, "tensor count")) || (st = lk__rd_u64(&r, &n_kv, "kv count"))) return st;
    /* each KV takes >= 12 bytes, each tensor info >= 32: bound counts by the file size */
    if (n_kv > (r.len - r.off) / 12 || n_kv >= 0x7fffffffu)
        return lk_set_error(LK_ERR_FORMAT, "gguf: kv count at byte offset 16: %llu key-value pairs cannot fit in the %llu bytes left",
                            (unsigned long long)n_kv, (unsigned long long)(r.len - r.off));
    if (n_tensors > (r.len - r.off) / 32 || n_tensors >= 0x7fffffffu)
        return lk_set_error(LK_ERR_FORMAT, "gguf: tensor count at byte offset 8: %llu tensors cannot fit in the %llu bytes left",
                            (unsigned long long)n_tensors, (unsigned long long)(r.len - r.off));
    g->n_kv = n_kv; g->n_tensors = n_tensors;
    g->kv = LK__CAST(lk_gguf_kv *, lk__gguf_alloc(g, n_kv * sizeof(lk_gguf_kv)));
    g->tensors = LK__CAST(lk_gguf_tensor *, lk__gguf_alloc(g, n_tensors * sizeof(lk_gguf_tensor)));
    g->kv_hash_ = lk__hash_new(g, n_kv, &g->kv_hash_cap_);
    g->tensor_hash_ = lk__hash_new(g, n_tensors, &g->tensor_hash_cap_);
    if (!g->kv || !g->tensors || !g->kv_hash_ || !g->tensor_hash_)
        return lk_set_error(LK_ERR_NOMEM, "gguf: out of memory for %llu KVs and %llu tensors", (unsigned long long)n_kv, (unsigned long long)n_tensors);

    for (i = 0; i < n_kv; i++) {
        lk_gguf_kv *kv = &g->kv[i];
        uint32_t type;
        char key[96];
        at = r.off;
        kv->offset = at;
        if ((st = lk__rd_str(&r, &kv->key, "kv key")) || (st = lk__check_name(kv->key, "kv key", at))) return st;
        /* a printable copy of the key for messages */
        { size_t m = kv->key.len < sizeof key - 1 ? (size_t)kv->key.len : sizeof key - 1; memcpy(key, kv->key.ptr, m); key[m] = 0; }
        if ((ai = lk__hash_insert(g->kv_hash_, g->kv_hash_cap_, kv->key, (uint32_t)i, lk__kv_name, g)) >= 0)
            return lk_set_error(LK_ERR_FORMAT, "gguf: kv key at byte offset %llu: duplicate key '%s'", (unsigned long long)at, key);
        if ((st = lk__rd_u32(&r, &type, key))) return st;
        if (type >= LK_GGUF_TYPE_COUNT)
            return lk_set_error(LK_ERR_FORMAT, "gguf: key '%s' at byte offset %llu: unknown value type %u",
                                key, (unsigned long long)(r.off - 4), (unsigned)type);
        if ((st = lk__rd_value(g, &r, (lk_gguf_type)type, &kv->value, 0, key))) return st;
    }

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

    for (i = 0; i < n_tensors; i++) {
        lk_gguf_tensor *t = &g->tensors[i];
        const lk_type_traits *tt;
        uint32_t nd, type;
        uint64_t nrows = 1, rowbytes;
        int d;
        char name[96];
        at = r.off;
        if ((st = lk__rd_str(&r, &t->name, "tensor name")) || (st = lk__check_name(t->name, "tensor name", at))) return st;
        { size_t m = t->name.len < sizeof name - 1 ? (size_t)t->name.len : sizeof name - 1; memcpy(name, t->name.ptr, m); name[m] = 0; }
        if (lk__hash_insert(g->tensor_hash_, g->tensor_hash_cap_, t->name, (uint32_t)i, lk__tensor_name, g) >= 0)
            return lk_set_error(LK_ERR_FORMAT, "gguf: tensor name at byte offset %llu: duplicate tensor '%s'", (unsigned long long)at, name);
        if ((st = lk__rd_u32(&r, &nd, name))) return st;
        if (nd < 1 || nd > LK_MAX_DIMS)
            return lk_set_error(LK_ERR_FORMAT, "gguf: tensor '%s' n_dims at byte offset %llu: %u is not in 1..%d",
                                name, (unsigned long long)(r.off - 4), (unsigned)nd, LK_MAX_DIMS);
        t->n_dims = (int)nd;
        for (d = 0; d < LK_MAX_DIMS; d++) t->ne[d] = 1;
        for (d = 0; d < (int)nd; d++) {
            uint64_t ne;
            if ((st = lk__rd_u64(&r, &ne, name))) return st;
            if (ne > (uint64_t)INT64_MAX)
                return lk_set_error(LK_ERR_FORMAT, "gguf: tensor '%s' ne[%d] at byte offset %llu: negative element count",
                                    name, d, (unsigned long long)(r.off - 8));
            t->ne[d] = (int64_t)ne;
        }
        if ((st = lk__rd_u32(&r, &type, name))) return st;
        tt = lk_type_get((int)type);
        if (!tt)
            return lk_set_error(LK_ERR_FORMAT, "gguf: tensor '%s' type at byte offset %llu: unknown or removed tensor type %u",
                                name, (unsigned long long)(r.off - 4), (unsigned)type);
        t->type = (lk_type)type;
        if ((st = lk__rd_u64(&r, &t->offset, name))) return st;
        if (t->ne[0] % tt->blck_size)
            return lk_set_error(LK_ERR_FORMAT, "gguf: tensor '%s' at byte offset %llu: row length %lld is not a multiple of the %s block size %lld",
                                name, (unsigned long long)at, (long long)t->ne[0], tt->name, (long long)tt->blck_size);
        /* element count and byte size, overflow-checked (elements must fit int64) */
        {
            uint64_t nel = (uint64_t)t->ne[0];
            for (d = 1; d < LK_MAX_DIMS; d++) {
                if (!lk__mul_ok(nrows, (uint64_t)t->ne[d], &nrows) || !lk__mul_ok(nel, (uint64_t)t->ne[d], &nel) || nel > (uint64_t)INT64_MAX)
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

    /* data section: aligned after the header */
    g->data_offset = r.off + (g->alignment - r.off % g->alignment) % g->alignment;
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
        uint32_t *ord = LK__CAST(uint32_t *, lk__gguf_alloc(g, n_tensors * sizeof(uint32_t)));
        if (!ord) return lk_set_error(LK_ERR_NOMEM, "gguf: out of memory");
        for (i = 0; i < n_tensors; i++) ord[i] = (uint32_t)i;
        lk__sort_g = g;
        qsort(ord, (size_t)n_tensors, sizeof *ord, lk__cmp_tensor_off);
        for (i = 1; i < n_tensors; i++) {
            const lk_gguf_tensor *a = &g->tensors[ord[i - 1]], *b = &g->tensors[ord[i]];
            if (a->nbytes && b->nbytes && b->offset < a->offset + a->nbytes)
                return lk_set_error(LK_ERR_FORMAT, "gguf: tensors '%.*s' and '%.*s' overlap in the data section (offsets %llu and %llu)",
                                    (int)(a->name.len > 80 ? 80 : a->name.len), a->name.ptr, (int)(b->name.len > 80 ? 80 : b->name.len), b->name.ptr,
                                    (unsigned long long)a->offset, (unsigned long long)b->offset);
        }
    }
    return LK_OK;
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
    lk_gguf *g;
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
    lk_gguf *g;
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
        close(fd);
        if (m == MAP_FAILED) { lk_gguf_free(g); return lk_set_error(LK_ERR_IO, "gguf: cannot mmap '%s'", path); }
        g->mapping_ = m; g->mapping_size_ = (uint64_t)sb.st_size;
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
#elif defined(LK__MMAP_WIN32)
    if (g->mapping_) UnmapViewOfFile(g->mapping_);
#endif
    b = LK__CAST(lk__blk *, g->blocks_);
    while (b) { lk__blk *n = b->next; lk__free(&a, b, b->size); b = n; }
    lk__free(&a, g, sizeof *g);
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
    switch (a->arr_type) {
    case LK_GGUF_UINT8: case LK_GGUF_BOOL: e->v.u = p[0]; break;
    case LK_GGUF_INT8: e->v.i = (int8_t)p[0]; break;
    case LK_GGUF_UINT16: e->v.u = lk__ld16(p); break;
    case LK_GGUF_INT16: e->v.i = (int16_t)lk__ld16(p); break;
    case LK_GGUF_UINT32: e->v.u = lk__ld32(p); break;
    case LK_GGUF_INT32: e->v.i = (int32_t)lk__ld32(p); break;
    case LK_GGUF_UINT64: e->v.u = lk__ld64(p); break;
    case LK_GGUF_INT64: e->v.i = (int64_t)lk__ld64(p); break;
    case LK_GGUF_FLOAT32: { uint32_t b = lk__ld32(p); float f; memcpy(&f, &b, 4); e->v.f = f; break; }
    case LK_GGUF_FLOAT64: { uint64_t b = lk__ld64(p); memcpy(&e->v.f, &b, 8); break; }
    default: return LK_ERR_TYPE;
    }
    return LK_OK;
}
static lk_status lk__get_err(lk_status st, const char *key, const char *want, const lk_gguf_value *v) {
    if (st == LK_ERR_NOT_FOUND) return lk_set_error(st, "gguf: key '%s' not found", key);
    if (st == LK_ERR_RANGE) return lk_set_error(st, "gguf: key '%s': value out of range for %s", key, want);
    return lk_set_error(st, "gguf: key '%s' has type %s%s%s, expected %s", key, lk_gguf_type_name(v ? (int)v->type : -1),
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
    uint64_t v;
    lk_status st = lk_gguf_get_u64(g, key, &v);
    if (st) return st;
    if (v > UINT32_MAX) return lk_set_error(LK_ERR_RANGE, "gguf: key '%s': %llu does not fit in u32", key, (unsigned long long)v);
    *out = (uint32_t)v;
    return LK_OK;
}
LKDEF lk_status lk_gguf_get_i32(const lk_gguf *g, const char *key, int32_t *out) {
    int64_t v;
    lk_status st = lk_gguf_get_i64(g, key, &v);
    if (st) return st;
    if (v > INT32_MAX || v < INT32_MIN) return lk_set_error(LK_ERR_RANGE, "gguf: key '%s': %lld does not fit in i32", key, (long long)v);
    *out = (int32_t)v;
    return LK_OK;
}
LKDEF lk_status lk_gguf_get_f32(const lk_gguf *g, const char *key, float *out) {
    double v;
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
    if ((int)v->type < 0 || v->type >= LK_GGUF_TYPE_COUNT) return lk_set_error(LK_ERR_INVALID_ARG, "gguf writer: bad value type %d", (int)v->type);
    switch (v->type) {
    case LK_GGUF_STRING: return lk__w_str(w, v->v.s.ptr, v->v.s.len);
    case LK_GGUF_FLOAT32: { float f = (float)v->v.f; uint32_t b; memcpy(&b, &f, 4); return lk__w_u32(w, b); }
    case LK_GGUF_FLOAT64: { uint64_t b; memcpy(&b, &v->v.f, 8); return lk__w_u64(w, b); }
    case LK_GGUF_BOOL:
        if (v->v.u > 1) return lk_set_error(LK_ERR_INVALID_ARG, "gguf writer: bool value must be 0 or 1");
        /* fallthrough */
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
        if ((int)v->arr_type < 0 || v->arr_type >= LK_GGUF_TYPE_COUNT) return lk_set_error(LK_ERR_INVALID_ARG, "gguf writer: bad array element type");
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

LKDEF lk_status lk_gguf_writer_new(const lk_allocator *alloc, lk_gguf_writer **out) {
    lk_allocator a = lk__resolve_alloc(alloc);
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
    if ((int)et < 0 || et >= LK_GGUF_TYPE_COUNT || et == LK_GGUF_STRING || et == LK_GGUF_ARRAY)
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
 * 15.7 Quantization
 * -------------------------------------------------------------------------- */

/* --------------------------------------------------------------------------
 * 7b. IQ and ternary formats (implementation)
 * --------------------------------------------------------------------------
 * Kernels read and write raw little-endian bytes at the ggml offsets (see
 * the lk_block_* structs in section 7b), so they need no alignment and work
 * on any host byte order. The quantizers follow ggml's reference search
 * (ggml-quants.c at c392e5094, called without an importance matrix exactly
 * as llama-quantize does) step by step, in the same float operation order,
 * because the goal is identical bytes. Compilers must not fuse a*b+c into
 * an FMA there (ggml's reference build has no FMA): LK__IQ_STRICT_FP turns
 * contraction off per function for GCC and Clang. Clang ignores that pragma
 * under -ffp-contract=fast (use fast-honor-pragmas), and -ffast-math breaks
 * byte-exactness with any compiler; the formats stay valid either way.
 * One known divergence: ggml's IQ3_XXS reads an uninitialised on-grid flag
 * when a sub-block's whole scale search underflows (|x| near 1e-8); we start
 * from "off grid" there. */
#if defined(__clang__)
#define LK__IQ_STRICT_FP _Pragma("clang fp contract(off)")
#define LK__IQ_STRICT_FN
#elif defined(__GNUC__)
#define LK__IQ_STRICT_FP
#define LK__IQ_STRICT_FN __attribute__((optimize("fp-contract=off")))
#else
#define LK__IQ_STRICT_FP
#define LK__IQ_STRICT_FN
#endif

#define LK__IQ_QK 256                     /* weights per super-block */

static uint16_t lk__iq_rd16(const uint8_t *p) { return (uint16_t)(p[0] | (p[1] << 8)); }
static uint32_t lk__iq_rd32(const uint8_t *p) {
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}
static void lk__iq_wr16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }
static void lk__iq_wr32(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); p[2] = (uint8_t)(v >> 16); p[3] = (uint8_t)(v >> 24);
}
static float lk__iq_rdf32(const uint8_t *p) { uint32_t u = lk__iq_rd32(p); float f; memcpy(&f, &u, 4); return f; }

/* IEEE binary16 <-> binary32. f16->f32 is exact; f32->f16 rounds to nearest
 * even (as F16C's vcvtps2ph and ggml's portable fallback do), overflows to
 * inf, keeps NaN a (quiet) NaN. */
static float lk__iq_f16_to_f32(uint16_t h) {
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu, bits;
    float f;
    if (e == 0x1f) bits = sign | 0x7f800000u | (m << 13);
    else if (e == 0) {
        f = (float)m * 5.9604644775390625e-8f;            /* m * 2^-24, exact */
        return sign ? -f : f;
    } else bits = sign | ((e + 112u) << 23) | (m << 13);   /* rebias 15 -> 127 */
    memcpy(&f, &bits, 4);
    return f;
}
static uint16_t lk__iq_f32_to_f16(float f) {
    uint32_t x, sign, a;
    memcpy(&x, &f, 4);
    sign = (x >> 16) & 0x8000u;
    a = x & 0x7fffffffu;
    if (a > 0x7f800000u) return (uint16_t)(sign | 0x7e00u | ((a >> 13) & 0x3ffu));  /* NaN */
    if (a >= 0x477ff000u) return (uint16_t)(sign | 0x7c00u);   /* >= 65520: inf       */
    if (a >= 0x38800000u) {                                     /* normal: >= 2^-14    */
        a += 0xfffu + ((a >> 13) & 1u);                         /* round half to even  */
        return (uint16_t)(sign | ((a - 0x38000000u) >> 13));
    } else {                                                    /* subnormal or zero   */
        uint32_t e = a >> 23, m, s, r, rem, half;
        if (e < 102) return (uint16_t)sign;                     /* < 2^-25: rounds to 0 */
        m = (a & 0x7fffffu) | 0x800000u;                        /* value = m 2^(e-150)  */
        s = 126 - e;                                            /* result = m 2^(e-126) */
        r = m >> s; rem = m & ((1u << s) - 1u); half = 1u << (s - 1);
        if (rem > half || (rem == half && (r & 1u))) r++;
        return (uint16_t)(sign | r);
    }
}

/* Round to nearest, ties to even, for |f| < 2^22 (the float trick ggml uses;
 * larger or non-finite inputs give some int, and callers clamp it). */
static int lk__iq_nearest_int(float f) {
    float v = f + 12582912.f;               /* 1.5 * 2^23 */
    int32_t i;
    memcpy(&i, &v, 4);
    return (i & 0x007fffff) - 0x00400000;
}

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

/* IQ2_XXS grid: 256 entries x 8 weights */
static const uint16_t lk__iq2xxs_grid[256] = {
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
};
/* IQ2_XS grid: 512 entries x 8 weights */
static const uint16_t lk__iq2xs_grid[512] = {
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
};
/* IQ2_S grid: 1024 entries x 8 weights */
static const uint16_t lk__iq2s_grid[1024] = {
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
};
/* IQ3_XXS grid: 256 entries x 4 weights */
static const uint16_t lk__iq3xxs_grid[256] = {
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
};
/* IQ3_S grid: 512 entries x 4 weights */
static const uint16_t lk__iq3s_grid[512] = {
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
};
/* IQ1_S / IQ1_M grid: 2048 entries x 8 weights */
static const uint16_t lk__iq1s_grid[2048] = {
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
        const float d = lk__iq_f16_to_f32(lk__iq_rd16(x));
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
        const float d = lk__iq_f16_to_f32(lk__iq_rd16(x));
        const unsigned sh = lk__iq_rd16(x + 2);
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
static void lk__iq3_xxs_to_float(const void *vx, float *y, int64_t n) {
    const uint8_t *x = (const uint8_t *)vx;
    int64_t i; int ib, l, j, g1[4], g2[4];
    for (i = 0; i < n / LK__IQ_QK; i++, x += 98) {
        const float d = lk__iq_f16_to_f32(lk__iq_rd16(x));
        const uint8_t *qs = x + 2;
        for (ib = 0; ib < 8; ib++, qs += 8) {
            const uint32_t aux = lk__iq_rd32(x + 2 + 64 + 4 * ib);
            const float db = d * (0.5f + (float)(aux >> 28)) * 0.5f;
            for (l = 0; l < 4; l++, y += 8) {
                const unsigned s = lk__iq_signs7((aux >> 7 * l) & 127);
                lk__iq3xxs_expand(qs[2 * l], g1);
                lk__iq3xxs_expand(qs[2 * l + 1], g2);
                for (j = 0; j < 4; j++) {
                    y[j]     = db * (float)g1[j] * (s & (1u << j) ? -1.f : 1.f);
                    y[j + 4] = db * (float)g2[j] * (s & (1u << (j + 4)) ? -1.f : 1.f);
                }
            }
        }
    }
}
static void lk__iq3_s_to_float(const void *vx, float *y, int64_t n) {
    const uint8_t *x = (const uint8_t *)vx;
    int64_t i; int ib, l, j, g1[4], g2[4];
    for (i = 0; i < n / LK__IQ_QK; i++, x += 110) {
        const float d = lk__iq_f16_to_f32(lk__iq_rd16(x));
        const uint8_t *qs = x + 2, *qh = x + 66, *signs = x + 74, *sc = x + 106;
        for (ib = 0; ib < 8; ib++, qs += 8, signs += 4) {
            const float db = d * (float)(1 + 2 * ((sc[ib / 2] >> 4 * (ib % 2)) & 0xf));
            for (l = 0; l < 4; l++, y += 8) {
                lk__iq3s_expand(qs[2 * l]     | (((unsigned)qh[ib] << (8 - 2 * l)) & 256), g1);
                lk__iq3s_expand(qs[2 * l + 1] | (((unsigned)qh[ib] << (7 - 2 * l)) & 256), g2);
                for (j = 0; j < 4; j++) {
                    y[j]     = db * (float)g1[j] * (signs[l] & (1u << j) ? -1.f : 1.f);
                    y[j + 4] = db * (float)g2[j] * (signs[l] & (1u << (j + 4)) ? -1.f : 1.f);
                }
            }
        }
    }
}
static void lk__iq2_xxs_to_float(const void *vx, float *y, int64_t n) {
    const uint8_t *x = (const uint8_t *)vx;
    int64_t i; int ib, l, j, g[8];
    for (i = 0; i < n / LK__IQ_QK; i++, x += 66) {
        const float d = lk__iq_f16_to_f32(lk__iq_rd16(x));
        for (ib = 0; ib < 8; ib++) {
            const uint8_t *q = x + 2 + 8 * ib;          /* 4 grid bytes, u32 signs|scale */
            const uint32_t aux = lk__iq_rd32(q + 4);
            const float db = d * (0.5f + (float)(aux >> 28)) * 0.25f;
            for (l = 0; l < 4; l++, y += 8) {
                const unsigned s = lk__iq_signs7((aux >> 7 * l) & 127);
                lk__iq2_expand(lk__iq2xxs_grid, q[l], g);
                for (j = 0; j < 8; j++) y[j] = db * (float)g[j] * (s & (1u << j) ? -1.f : 1.f);
            }
        }
    }
}
static void lk__iq2_xs_to_float(const void *vx, float *y, int64_t n) {
    const uint8_t *x = (const uint8_t *)vx;
    int64_t i; int ib, l, j, g[8];
    for (i = 0; i < n / LK__IQ_QK; i++, x += 74) {
        const float d = lk__iq_f16_to_f32(lk__iq_rd16(x));
        for (ib = 0; ib < 8; ib++) {
            const uint8_t sc = x[66 + ib];
            for (l = 0; l < 4; l++, y += 8) {
                const unsigned q = lk__iq_rd16(x + 2 + 2 * (4 * ib + l));
                const float db = d * (0.5f + (float)(l < 2 ? sc & 0xf : sc >> 4)) * 0.25f;
                const unsigned s = lk__iq_signs7(q >> 9);
                lk__iq2_expand(lk__iq2xs_grid, (int)(q & 511), g);
                for (j = 0; j < 8; j++) y[j] = db * (float)g[j] * (s & (1u << j) ? -1.f : 1.f);
            }
        }
    }
}
static void lk__iq2_s_to_float(const void *vx, float *y, int64_t n) {
    const uint8_t *x = (const uint8_t *)vx;
    int64_t i; int ib, l, j, g[8];
    for (i = 0; i < n / LK__IQ_QK; i++, x += 82) {
        const float d = lk__iq_f16_to_f32(lk__iq_rd16(x));
        const uint8_t *qs = x + 2, *signs = x + 34, *qh = x + 66, *sc = x + 74;
        for (ib = 0; ib < 8; ib++, qs += 4, signs += 4) {
            for (l = 0; l < 4; l++, y += 8) {
                const float db = d * (0.5f + (float)(l < 2 ? sc[ib] & 0xf : sc[ib] >> 4)) * 0.25f;
                lk__iq2_expand(lk__iq2s_grid, (int)(qs[l] | (((unsigned)qh[ib] << (8 - 2 * l)) & 0x300)), g);
                for (j = 0; j < 8; j++) y[j] = db * (float)g[j] * (signs[l] & (1u << j) ? -1.f : 1.f);
            }
        }
    }
}
static void lk__iq1_s_to_float(const void *vx, float *y, int64_t n) {
    const uint8_t *x = (const uint8_t *)vx;
    int64_t i; int ib, l, j, g[8];
    for (i = 0; i < n / LK__IQ_QK; i++, x += 50) {
        const float d = lk__iq_f16_to_f32(lk__iq_rd16(x));
        for (ib = 0; ib < 8; ib++) {
            const unsigned qh = lk__iq_rd16(x + 34 + 2 * ib);
            const float dl = d * (float)(2 * ((qh >> 12) & 7) + 1);
            const float delta = qh & 0x8000 ? -LK__IQ1S_DELTA : LK__IQ1S_DELTA;
            for (l = 0; l < 4; l++, y += 8) {
                lk__iq1_expand((int)(x[2 + 4 * ib + l] | (((qh >> 3 * l) & 7) << 8)), g);
                for (j = 0; j < 8; j++) y[j] = dl * ((float)g[j] + delta);
            }
        }
    }
}
/* IQ1_M keeps its fp16 super-block scale in the top nibbles of the four
 * little-endian u16 words of `scales`. */
static uint16_t lk__iq1m_d16(const uint8_t *sc) {
    const unsigned s0 = lk__iq_rd16(sc), s1 = lk__iq_rd16(sc + 2), s2 = lk__iq_rd16(sc + 4), s3 = lk__iq_rd16(sc + 6);
    return (uint16_t)((s0 >> 12) | ((s1 >> 8) & 0x00f0) | ((s2 >> 4) & 0x0f00) | (s3 & 0xf000));
}
static void lk__iq1_m_to_float(const void *vx, float *y, int64_t n) {
    const uint8_t *x = (const uint8_t *)vx;
    int64_t i; int ib, l, j, g[8];
    for (i = 0; i < n / LK__IQ_QK; i++, x += 56) {
        const uint8_t *qs = x, *qh = x + 32, *sc = x + 48;
        const float d = lk__iq_f16_to_f32(lk__iq1m_d16(sc));
        for (ib = 0; ib < 8; ib++, qs += 4, qh += 2) {
            const unsigned s = lk__iq_rd16(sc + 2 * (ib / 2));
            const float dl1 = d * (float)(2 * ((s >> (6 * (ib % 2) + 0)) & 7) + 1);
            const float dl2 = d * (float)(2 * ((s >> (6 * (ib % 2) + 3)) & 7) + 1);
            for (l = 0; l < 4; l++, y += 8) {
                const unsigned h = qh[l / 2] >> (4 * (l % 2));      /* 3 index bits, delta sign */
                const float delta = h & 8 ? -LK__IQ1M_DELTA : LK__IQ1M_DELTA;
                const float dl = l < 2 ? dl1 : dl2;
                lk__iq1_expand((int)(qs[l] | ((h & 7) << 8)), g);
                for (j = 0; j < 8; j++) y[j] = dl * ((float)g[j] + delta);
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
        const float d = lk__iq_f16_to_f32(lk__iq_rd16(x + 52));
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
        const float d = lk__iq_f16_to_f32(lk__iq_rd16(x + 64));
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
static void lk__iq4_nl_vec_dot(int64_t n, float *s, const void *vx, const void *vy) {
    const uint8_t *x = (const uint8_t *)vx, *y = (const uint8_t *)vy;
    int64_t ib; int j;
    float sumf = 0;
    for (ib = 0; ib < n / 32; ib++, x += 18, y += 34) {
        const int8_t *q8 = (const int8_t *)(y + 2);
        const float d = lk__iq_f16_to_f32(lk__iq_rd16(y)) * lk__iq_f16_to_f32(lk__iq_rd16(x));
        int sumi1 = 0, sumi2 = 0;
        for (j = 0; j < 16; j++) {
            sumi1 += q8[j]      * lk__iq4nl_values[x[2 + j] & 0xf];
            sumi2 += q8[j + 16] * lk__iq4nl_values[x[2 + j] >> 4];
        }
        sumf += d * (float)(sumi1 + sumi2);
    }
    *s = sumf;
}
static void lk__iq4_xs_vec_dot(int64_t n, float *s, const void *vx, const void *vy) {
    const uint8_t *x = (const uint8_t *)vx, *y = (const uint8_t *)vy;
    int64_t i; int ib, j;
    float sumf = 0;
    for (i = 0; i < n / LK__IQ_QK; i++, x += 136, y += LK__Q8K_BYTES) {
        const float d4d8 = lk__iq_f16_to_f32(lk__iq_rd16(x)) * lk__iq_rdf32(y);
        const unsigned sh = lk__iq_rd16(x + 2);
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
static void lk__iq3_xxs_vec_dot(int64_t n, float *s, const void *vx, const void *vy) {
    const uint8_t *x = (const uint8_t *)vx, *y = (const uint8_t *)vy;
    int64_t i; int ib, l, j, g1[4], g2[4];
    float sumf = 0;
    for (i = 0; i < n / LK__IQ_QK; i++, x += 98, y += LK__Q8K_BYTES) {
        const float d = lk__iq_f16_to_f32(lk__iq_rd16(x)) * lk__iq_rdf32(y);
        const uint8_t *q3 = x + 2;
        const int8_t *q8 = (const int8_t *)(y + 4);
        int32_t bsum = 0;
        for (ib = 0; ib < 8; ib++, q3 += 8) {
            const uint32_t aux = lk__iq_rd32(x + 66 + 4 * ib);
            const int32_t ls = (int32_t)(2 * (aux >> 28) + 1);
            int32_t sumi = 0;
            for (l = 0; l < 4; l++, q8 += 8) {
                const unsigned sg = lk__iq_signs7((aux >> 7 * l) & 127);
                lk__iq3xxs_expand(q3[2 * l], g1);
                lk__iq3xxs_expand(q3[2 * l + 1], g2);
                for (j = 0; j < 4; j++) {
                    sumi += g1[j] * q8[j]     * (sg & (1u << j) ? -1 : 1);
                    sumi += g2[j] * q8[j + 4] * (sg & (1u << (j + 4)) ? -1 : 1);
                }
            }
            bsum += sumi * ls;
        }
        sumf += d * (float)bsum;
    }
    *s = 0.25f * sumf;
}
static void lk__iq3_s_vec_dot(int64_t n, float *s, const void *vx, const void *vy) {
    const uint8_t *x = (const uint8_t *)vx, *y = (const uint8_t *)vy;
    int64_t i; int ib, l, j, g1[4], g2[4];
    float sumf = 0;
    for (i = 0; i < n / LK__IQ_QK; i++, x += 110, y += LK__Q8K_BYTES) {
        const float d = lk__iq_f16_to_f32(lk__iq_rd16(x)) * lk__iq_rdf32(y);
        const uint8_t *qs = x + 2, *qh = x + 66, *signs = x + 74, *sc = x + 106;
        const int8_t *q8 = (const int8_t *)(y + 4);
        int32_t bsum = 0;
        for (ib = 0; ib < 8; ib++, qs += 8, signs += 4) {
            const int32_t ls = 2 * ((sc[ib / 2] >> 4 * (ib % 2)) & 0xf) + 1;
            int32_t sumi = 0;
            for (l = 0; l < 4; l++, q8 += 8) {
                lk__iq3s_expand(qs[2 * l]     | (((unsigned)qh[ib] << (8 - 2 * l)) & 256), g1);
                lk__iq3s_expand(qs[2 * l + 1] | (((unsigned)qh[ib] << (7 - 2 * l)) & 256), g2);
                for (j = 0; j < 4; j++) {
                    sumi += g1[j] * q8[j]     * (signs[l] & (1u << j) ? -1 : 1);
                    sumi += g2[j] * q8[j + 4] * (signs[l] & (1u << (j + 4)) ? -1 : 1);
                }
            }
            bsum += sumi * ls;
        }
        sumf += d * (float)bsum;
    }
    *s = sumf;
}
static void lk__iq2_xxs_vec_dot(int64_t n, float *s, const void *vx, const void *vy) {
    const uint8_t *x = (const uint8_t *)vx, *y = (const uint8_t *)vy;
    int64_t i; int ib, l, j, g[8];
    float sumf = 0;
    for (i = 0; i < n / LK__IQ_QK; i++, x += 66, y += LK__Q8K_BYTES) {
        const float d = lk__iq_f16_to_f32(lk__iq_rd16(x)) * lk__iq_rdf32(y);
        const int8_t *q8 = (const int8_t *)(y + 4);
        int32_t bsum = 0;
        for (ib = 0; ib < 8; ib++) {
            const uint8_t *q = x + 2 + 8 * ib;
            const uint32_t aux = lk__iq_rd32(q + 4);
            const int32_t ls = (int32_t)(2 * (aux >> 28) + 1);
            int32_t sumi = 0;
            for (l = 0; l < 4; l++, q8 += 8) {
                const unsigned sg = lk__iq_signs7((aux >> 7 * l) & 127);
                lk__iq2_expand(lk__iq2xxs_grid, q[l], g);
                for (j = 0; j < 8; j++) sumi += g[j] * q8[j] * (sg & (1u << j) ? -1 : 1);
            }
            bsum += sumi * ls;
        }
        sumf += d * (float)bsum;
    }
    *s = 0.125f * sumf;
}
static void lk__iq2_xs_vec_dot(int64_t n, float *s, const void *vx, const void *vy) {
    const uint8_t *x = (const uint8_t *)vx, *y = (const uint8_t *)vy;
    int64_t i; int ib, l, j, g[8];
    float sumf = 0;
    for (i = 0; i < n / LK__IQ_QK; i++, x += 74, y += LK__Q8K_BYTES) {
        const float d = lk__iq_f16_to_f32(lk__iq_rd16(x)) * lk__iq_rdf32(y);
        const int8_t *q8 = (const int8_t *)(y + 4);
        int32_t bsum = 0;
        for (ib = 0; ib < 8; ib++) {
            const unsigned sc = x[66 + ib];
            int32_t sumi[2] = {0, 0};
            for (l = 0; l < 4; l++, q8 += 8) {
                const unsigned q = lk__iq_rd16(x + 2 + 2 * (4 * ib + l));
                const unsigned sg = lk__iq_signs7(q >> 9);
                lk__iq2_expand(lk__iq2xs_grid, (int)(q & 511), g);
                for (j = 0; j < 8; j++) sumi[l / 2] += g[j] * q8[j] * (sg & (1u << j) ? -1 : 1);
            }
            bsum += sumi[0] * (int32_t)(2 * (sc & 0xf) + 1) + sumi[1] * (int32_t)(2 * (sc >> 4) + 1);
        }
        sumf += d * (float)bsum;
    }
    *s = 0.125f * sumf;
}
static void lk__iq2_s_vec_dot(int64_t n, float *s, const void *vx, const void *vy) {
    const uint8_t *x = (const uint8_t *)vx, *y = (const uint8_t *)vy;
    int64_t i; int ib, l, j, g[8];
    float sumf = 0;
    for (i = 0; i < n / LK__IQ_QK; i++, x += 82, y += LK__Q8K_BYTES) {
        const float d = lk__iq_f16_to_f32(lk__iq_rd16(x)) * lk__iq_rdf32(y);
        const uint8_t *qs = x + 2, *signs = x + 34, *qh = x + 66, *sc = x + 74;
        const int8_t *q8 = (const int8_t *)(y + 4);
        int32_t bsum = 0;
        for (ib = 0; ib < 8; ib++, qs += 4, signs += 4) {
            int32_t sumi[2] = {0, 0};
            for (l = 0; l < 4; l++, q8 += 8) {
                lk__iq2_expand(lk__iq2s_grid, (int)(qs[l] | (((unsigned)qh[ib] << (8 - 2 * l)) & 0x300)), g);
                for (j = 0; j < 8; j++) sumi[l / 2] += g[j] * q8[j] * (signs[l] & (1u << j) ? -1 : 1);
            }
            bsum += sumi[0] * (int32_t)(2 * (sc[ib] & 0xf) + 1) + sumi[1] * (int32_t)(2 * (sc[ib] >> 4) + 1);
        }
        sumf += d * (float)bsum;
    }
    *s = 0.125f * sumf;
}
static void lk__iq1_s_vec_dot(int64_t n, float *s, const void *vx, const void *vy) {
    const uint8_t *x = (const uint8_t *)vx, *y = (const uint8_t *)vy;
    int64_t i; int ib, l, j, g[8];
    float sumf = 0;
    for (i = 0; i < n / LK__IQ_QK; i++, x += 50, y += LK__Q8K_BYTES) {
        const int8_t *q8 = (const int8_t *)(y + 4);
        int sumi = 0, sumi1 = 0;
        for (ib = 0; ib < 8; ib++) {
            const unsigned qh = lk__iq_rd16(x + 34 + 2 * ib);
            const int ls = (int)(2 * ((qh >> 12) & 7) + 1);
            const int delta = qh & 0x8000 ? -1 : 1;
            int lsum = 0, ysum = 0;
            for (l = 0; l < 4; l++, q8 += 8) {
                lk__iq1_expand((int)(x[2 + 4 * ib + l] | (((qh >> 3 * l) & 7) << 8)), g);
                for (j = 0; j < 8; j++) { lsum += q8[j] * g[j]; ysum += q8[j]; }
            }
            sumi += ls * lsum;
            sumi1 += ls * delta * ysum;
        }
        sumf += lk__iq_f16_to_f32(lk__iq_rd16(x)) * lk__iq_rdf32(y) * ((float)sumi + LK__IQ1S_DELTA * (float)sumi1);
    }
    *s = sumf;
}
static void lk__iq1_m_vec_dot(int64_t n, float *s, const void *vx, const void *vy) {
    const uint8_t *x = (const uint8_t *)vx, *y = (const uint8_t *)vy;
    int64_t i; int ib, l, j, g[8];
    float sumf = 0;
    for (i = 0; i < n / LK__IQ_QK; i++, x += 56, y += LK__Q8K_BYTES) {
        const uint8_t *qs = x, *qh = x + 32, *sc = x + 48;
        const int8_t *q8 = (const int8_t *)(y + 4);
        int sumi1 = 0, sumi2 = 0;
        for (ib = 0; ib < 8; ib++, qs += 4, qh += 2) {
            const unsigned sw = lk__iq_rd16(sc + 2 * (ib / 2));
            const int ls1 = (int)(2 * ((sw >> (6 * (ib % 2) + 0)) & 7) + 1);
            const int ls2 = (int)(2 * ((sw >> (6 * (ib % 2) + 3)) & 7) + 1);
            int sum1[2] = {0, 0}, sum2[2] = {0, 0};
            for (l = 0; l < 4; l++, q8 += 8) {
                const unsigned h = qh[l / 2] >> (4 * (l % 2));
                const int delta = h & 8 ? -1 : 1;
                int lsum1 = 0, lsum2 = 0;
                lk__iq1_expand((int)(qs[l] | ((h & 7) << 8)), g);
                for (j = 0; j < 8; j++) { lsum1 += q8[j] * g[j]; lsum2 += q8[j]; }
                sum1[l / 2] += lsum1;
                sum2[l / 2] += lsum2 * delta;
            }
            sumi1 += sum1[0] * ls1 + sum1[1] * ls2;
            sumi2 += sum2[0] * ls1 + sum2[1] * ls2;
        }
        sumf += lk__iq_f16_to_f32(lk__iq1m_d16(sc)) * lk__iq_rdf32(y) * ((float)sumi1 + LK__IQ1M_DELTA * (float)sumi2);
    }
    *s = sumf;
}
static void lk__tq1_0_vec_dot(int64_t n, float *s, const void *vx, const void *vy) {
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
        sumf += lk__iq_f16_to_f32(lk__iq_rd16(x + 52)) * lk__iq_rdf32(y) * (float)sumi;
    }
    *s = sumf;
}
static void lk__tq2_0_vec_dot(int64_t n, float *s, const void *vx, const void *vy) {
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
        sumf += lk__iq_f16_to_f32(lk__iq_rd16(x + 64)) * lk__iq_rdf32(y) * (float)sumi;
    }
    *s = sumf;
}

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
LK__IQ_STRICT_FN
static void lk__iq4_quantize_block(int sbs, const float *x, uint8_t *dh, uint8_t *q4, uint8_t *scales_h, uint8_t *scales_l) {
    LK__IQ_STRICT_FP
    float scales[8], weight[32];
    uint8_t L[256];
    float max_scale = 0, amax_scale = 0;
    const int nsub = sbs / 32;
    int ib, j, itry;
    memset(q4, 0, (size_t)sbs / 2);
    memset(L, 0, sizeof L);
    lk__iq_wr16(dh, lk__iq_f32_to_f16(0.f));
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
        lk__iq_wr16(dh, lk__iq_f32_to_f16(d));
        for (ib = 0; ib < nsub; ib++) {
            int l = lk__iq_nearest_int(id * scales[ib]);
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
        lk__iq_wr16(scales_h, (uint16_t)sh);
    } else {
        const float id = scales[0] != 0 ? 1 / scales[0] : 0;
        lk__iq_wr16(dh, lk__iq_f32_to_f16(scales[0]));
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
LK__IQ_STRICT_FN
static void lk__tq1_0_from_float(const float *x, void *vy, int64_t n) {
    LK__IQ_STRICT_FP
    uint8_t *y = (uint8_t *)vy;
    int64_t i; int j, k, m;
    for (i = 0; i < n / LK__IQ_QK; i++, x += LK__IQ_QK, y += 54) {
        float amax = 0, id;
        for (j = 0; j < LK__IQ_QK; j++) amax = amax > fabsf(x[j]) ? amax : fabsf(x[j]);
        id = amax != 0 ? 1.0f / amax : 0.0f;
        lk__iq_wr16(y + 52, lk__iq_f32_to_f16(amax));
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
LK__IQ_STRICT_FN
static void lk__tq2_0_from_float(const float *x, void *vy, int64_t n) {
    LK__IQ_STRICT_FP
    uint8_t *y = (uint8_t *)vy;
    int64_t i; int j, c, k, m;
    for (i = 0; i < n / LK__IQ_QK; i++, x += LK__IQ_QK, y += 66) {
        float amax = 0, id;
        for (j = 0; j < LK__IQ_QK; j++) amax = amax > fabsf(x[j]) ? amax : fabsf(x[j]);
        id = amax != 0 ? 1.0f / amax : 0.0f;
        lk__iq_wr16(y + 64, lk__iq_f32_to_f16(amax));
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
LK__IQ_STRICT_FN
static int lk__iq3_best_neighbour(const uint16_t *nbl, const uint16_t *grid, const float *xval,
                                  const float *w, float scale, int8_t *L) {
    LK__IQ_STRICT_FP
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
LK__IQ_STRICT_FN
static unsigned lk__iq3_levels(const float *xval, float id, int8_t *L) {
    LK__IQ_STRICT_FP
    unsigned u = 0;
    int i;
    for (i = 0; i < 4; i++) {
        int l = lk__iq_nearest_int(0.5f * (id * xval[i] - 1));
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
LK__IQ_STRICT_FN
static void lk__iq3_fit(const float *xval, const float *w, const int8_t *L, float *sumqx, float *sumq2) {
    LK__IQ_STRICT_FP
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
LK__IQ_STRICT_FN
static float lk__iq3_subblock(int gi, const float *xb, int8_t *L, uint8_t signs[4], int *skip) {
    LK__IQ_STRICT_FP
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

LK__IQ_STRICT_FN
static void lk__iq3_xxs_from_float(const float *x, void *vy, int64_t n) {
    LK__IQ_STRICT_FP
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
        lk__iq_wr16(y, lk__iq_f32_to_f16(0.f));
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
        lk__iq_wr16(y, lk__iq_f32_to_f16(d * 1.0125f));
        id = 1 / d;
        for (ib = 0; ib < 8; ib++) {
            int l = lk__iq_nearest_int(0.5f * (id * scales[ib] - 1));
            l = l < 0 ? 0 : l > 15 ? 15 : l;
            lk__iq_wr32(y + 66 + 4 * ib, sas[ib] | ((uint32_t)l << 28));
        }
    }
}

LK__IQ_STRICT_FN
static void lk__iq3_s_from_float(const float *x, void *vy, int64_t n) {
    LK__IQ_STRICT_FP
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
        lk__iq_wr16(y, lk__iq_f32_to_f16(d * 1.033f));
        id = 1 / d;
        for (ib = 0; ib < 8; ib += 2) {
            int l1 = lk__iq_nearest_int(0.5f * (id * scales[ib] - 1));
            int l2 = lk__iq_nearest_int(0.5f * (id * scales[ib + 1] - 1));
            l1 = l1 < 0 ? 0 : l1 > 15 ? 15 : l1;
            l2 = l2 < 0 ? 0 : l2 > 15 ? 15 : l2;
            y[106 + ib / 2] = (uint8_t)(l1 | (l2 << 4));
        }
    }
}

/* --------------------------------------------------------------------------
 * 15.8 Ops
 * -------------------------------------------------------------------------- */

/* --------------------------------------------------------------------------
 * 15.9 Attention
 * -------------------------------------------------------------------------- */

/* --------------------------------------------------------------------------
 * 15.10 KV cache
 * -------------------------------------------------------------------------- */

/* --------------------------------------------------------------------------
 * 15.11 Sampling
 * -------------------------------------------------------------------------- */

/* --------------------------------------------------------------------------
 * 15.12 Tokenizer
 * -------------------------------------------------------------------------- */

/* --------------------------------------------------------------------------
 * 15.13 Model
 * -------------------------------------------------------------------------- */

/* --------------------------------------------------------------------------
 * 15.14 Threads
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
#pragma omp parallel for schedule(static) num_threads(nt)
        for (i = 0; i < n_tasks; i++) fn(arg, i, n_tasks);
        return;
    }
#endif
    for (i = 0; i < n_tasks; i++) fn(arg, i, n_tasks);
}

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
