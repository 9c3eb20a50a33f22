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

struct lk_threads; /* section 14 */

/* Scalar conversions, bit-exact with ggml: f32->f16 rounds to nearest even
 * (subnormals kept, overflow -> inf, NaN -> quiet NaN); f32->bf16 rounds to
 * nearest even, NaN made quiet. */
LKDEF float lk_fp16_to_fp32(uint16_t h);
LKDEF uint16_t lk_fp32_to_fp16(float f);
LKDEF float lk_bf16_to_fp32(uint16_t h);
LKDEF uint16_t lk_fp32_to_bf16(float f);

/* Row conversion through the type table; n must be a multiple of the block
 * size and the type must have the kernel (else nothing is written). */
LKDEF void lk_quantize_row(lk_type type, const float *x, void *y, int64_t n);
LKDEF void lk_dequantize_row(lk_type type, const void *x, float *y, int64_t n);
/* Quantize nrows rows of n_per_row floats (like ggml_quantize_chunk without
 * an importance matrix); *out_bytes (may be NULL) = bytes written. */
LKDEF lk_status lk_quantize(lk_type type, const float *src, void *dst, int64_t nrows, int64_t n_per_row, size_t *out_bytes);

/* y = W x for n_cols activation columns.
 *   W: ne = [n_in, n_out(, ne2, ne3)] rows of n_in elements (any type with a
 *      vec_dot); x: x[c*n_in + i]; y: y[c*n_out + r].
 * Each column of x is quantized once to W's vec_dot_type into scratch, then
 * the rows are split over lk_parallel_for tasks. The result does not depend
 * on the number of threads. scratch must hold lk_matmul_scratch_size bytes
 * (may be NULL when that size is 0, i.e. for f32 weights). */
LKDEF size_t lk_matmul_scratch_size(lk_type wtype, int64_t n_in, int64_t n_cols);
LKDEF lk_status lk_matmul(const lk_tensor *W, const float *x, int64_t n_cols, float *y,
                          void *scratch, size_t scratch_size, const struct lk_threads *th);
/* end of 7a */

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
/* 7a kernels (defined in 15.7a) */
static void lk__to_float_f32(const void *x, float *y, int64_t n);
static void lk__from_float_f32(const float *x, void *y, int64_t n);
static void lk__vec_dot_f32(int64_t n, float *s, const void *x, const void *y);
static void lk__to_float_f16(const void *x, float *y, int64_t n);
static void lk__from_float_f16(const float *x, void *y, int64_t n);
static void lk__vec_dot_f16(int64_t n, float *s, const void *x, const void *y);
static void lk__to_float_bf16(const void *x, float *y, int64_t n);
static void lk__from_float_bf16(const float *x, void *y, int64_t n);
static void lk__vec_dot_bf16(int64_t n, float *s, const void *x, const void *y);
static void lk__dequantize_row_q4_0(const void *x, float *y, int64_t n);
static void lk__quantize_row_q4_0(const float *x, void *y, int64_t n);
static void lk__vec_dot_q4_0_q8_0(int64_t n, float *s, const void *x, const void *y);
static void lk__dequantize_row_q4_1(const void *x, float *y, int64_t n);
static void lk__quantize_row_q4_1(const float *x, void *y, int64_t n);
static void lk__vec_dot_q4_1_q8_1(int64_t n, float *s, const void *x, const void *y);
static void lk__dequantize_row_q5_0(const void *x, float *y, int64_t n);
static void lk__quantize_row_q5_0(const float *x, void *y, int64_t n);
static void lk__vec_dot_q5_0_q8_0(int64_t n, float *s, const void *x, const void *y);
static void lk__dequantize_row_q5_1(const void *x, float *y, int64_t n);
static void lk__quantize_row_q5_1(const float *x, void *y, int64_t n);
static void lk__vec_dot_q5_1_q8_1(int64_t n, float *s, const void *x, const void *y);
static void lk__dequantize_row_q8_0(const void *x, float *y, int64_t n);
static void lk__quantize_row_q8_0(const float *x, void *y, int64_t n);
static void lk__vec_dot_q8_0_q8_0(int64_t n, float *s, const void *x, const void *y);
static void lk__dequantize_row_q8_1(const void *x, float *y, int64_t n);
static void lk__quantize_row_q8_1(const float *x, void *y, int64_t n);
static void lk__dequantize_row_q2_K(const void *x, float *y, int64_t n);
static void lk__quantize_row_q2_K(const float *x, void *y, int64_t n);
static void lk__vec_dot_q2_K_q8_K(int64_t n, float *s, const void *x, const void *y);
static void lk__dequantize_row_q3_K(const void *x, float *y, int64_t n);
static void lk__quantize_row_q3_K(const float *x, void *y, int64_t n);
static void lk__vec_dot_q3_K_q8_K(int64_t n, float *s, const void *x, const void *y);
static void lk__dequantize_row_q4_K(const void *x, float *y, int64_t n);
static void lk__quantize_row_q4_K(const float *x, void *y, int64_t n);
static void lk__vec_dot_q4_K_q8_K(int64_t n, float *s, const void *x, const void *y);
static void lk__dequantize_row_q5_K(const void *x, float *y, int64_t n);
static void lk__quantize_row_q5_K(const float *x, void *y, int64_t n);
static void lk__vec_dot_q5_K_q8_K(int64_t n, float *s, const void *x, const void *y);
static void lk__dequantize_row_q6_K(const void *x, float *y, int64_t n);
static void lk__quantize_row_q6_K(const float *x, void *y, int64_t n);
static void lk__vec_dot_q6_K_q8_K(int64_t n, float *s, const void *x, const void *y);
static void lk__dequantize_row_q8_K(const void *x, float *y, int64_t n);
static void lk__quantize_row_q8_K(const float *x, void *y, int64_t n);
/* LK__TYPE_TABLE_BEGIN (section 7 fills the kernel columns) */
static const lk_type_traits lk__type_table[LK_TYPE_COUNT] = {
    /* name        blck  bytes  quant  to_float  from_float  vec_dot  vec_dot_type */
    /*  0 */ { "f32",       1,   4, 0, lk__to_float_f32, lk__from_float_f32, lk__vec_dot_f32, LK_TYPE_F32 },
    /*  1 */ { "f16",       1,   2, 0, lk__to_float_f16, lk__from_float_f16, lk__vec_dot_f16, LK_TYPE_F16 },
    /*  2 */ { "q4_0",     32,  18, 1, lk__dequantize_row_q4_0, lk__quantize_row_q4_0, lk__vec_dot_q4_0_q8_0, LK_TYPE_Q8_0 },
    /*  3 */ { "q4_1",     32,  20, 1, lk__dequantize_row_q4_1, lk__quantize_row_q4_1, lk__vec_dot_q4_1_q8_1, LK_TYPE_Q8_1 },
    /*  4 */ { NULL, 0, 0, 0, NULL, NULL, NULL, LK_TYPE_F32 },
    /*  5 */ { NULL, 0, 0, 0, NULL, NULL, NULL, LK_TYPE_F32 },
    /*  6 */ { "q5_0",     32,  22, 1, lk__dequantize_row_q5_0, lk__quantize_row_q5_0, lk__vec_dot_q5_0_q8_0, LK_TYPE_Q8_0 },
    /*  7 */ { "q5_1",     32,  24, 1, lk__dequantize_row_q5_1, lk__quantize_row_q5_1, lk__vec_dot_q5_1_q8_1, LK_TYPE_Q8_1 },
    /*  8 */ { "q8_0",     32,  34, 1, lk__dequantize_row_q8_0, lk__quantize_row_q8_0, lk__vec_dot_q8_0_q8_0, LK_TYPE_Q8_0 },
    /*  9 */ { "q8_1",     32,  36, 1, lk__dequantize_row_q8_1, lk__quantize_row_q8_1, NULL, LK_TYPE_Q8_1 },
    /* 10 */ { "q2_K",    256,  84, 1, lk__dequantize_row_q2_K, lk__quantize_row_q2_K, lk__vec_dot_q2_K_q8_K, LK_TYPE_Q8_K },
    /* 11 */ { "q3_K",    256, 110, 1, lk__dequantize_row_q3_K, lk__quantize_row_q3_K, lk__vec_dot_q3_K_q8_K, LK_TYPE_Q8_K },
    /* 12 */ { "q4_K",    256, 144, 1, lk__dequantize_row_q4_K, lk__quantize_row_q4_K, lk__vec_dot_q4_K_q8_K, LK_TYPE_Q8_K },
    /* 13 */ { "q5_K",    256, 176, 1, lk__dequantize_row_q5_K, lk__quantize_row_q5_K, lk__vec_dot_q5_K_q8_K, LK_TYPE_Q8_K },
    /* 14 */ { "q6_K",    256, 210, 1, lk__dequantize_row_q6_K, lk__quantize_row_q6_K, lk__vec_dot_q6_K_q8_K, LK_TYPE_Q8_K },
    /* 15 */ { "q8_K",    256, 292, 1, lk__dequantize_row_q8_K, lk__quantize_row_q8_K, NULL, LK_TYPE_Q8_K },
    /* 16 */ { "iq2_xxs", 256,  66, 1, NULL, NULL, NULL, LK_TYPE_Q8_K },
    /* 17 */ { "iq2_xs",  256,  74, 1, NULL, NULL, NULL, LK_TYPE_Q8_K },
    /* 18 */ { "iq3_xxs", 256,  98, 1, NULL, NULL, NULL, LK_TYPE_Q8_K },
    /* 19 */ { "iq1_s",   256,  50, 1, NULL, NULL, NULL, LK_TYPE_Q8_K },
    /* 20 */ { "iq4_nl",   32,  18, 1, NULL, NULL, NULL, LK_TYPE_Q8_0 },
    /* 21 */ { "iq3_s",   256, 110, 1, NULL, NULL, NULL, LK_TYPE_Q8_K },
    /* 22 */ { "iq2_s",   256,  82, 1, NULL, NULL, NULL, LK_TYPE_Q8_K },
    /* 23 */ { "iq4_xs",  256, 136, 1, NULL, NULL, NULL, LK_TYPE_Q8_K },
    /* 24 */ { "i8",        1,   1, 0, NULL, NULL, NULL, LK_TYPE_I8 },
    /* 25 */ { "i16",       1,   2, 0, NULL, NULL, NULL, LK_TYPE_I16 },
    /* 26 */ { "i32",       1,   4, 0, NULL, NULL, NULL, LK_TYPE_I32 },
    /* 27 */ { "i64",       1,   8, 0, NULL, NULL, NULL, LK_TYPE_I64 },
    /* 28 */ { "f64",       1,   8, 0, NULL, NULL, NULL, LK_TYPE_F64 },
    /* 29 */ { "iq1_m",   256,  56, 1, NULL, NULL, NULL, LK_TYPE_Q8_K },
    /* 30 */ { "bf16",      1,   2, 0, lk__to_float_bf16, lk__from_float_bf16, lk__vec_dot_bf16, LK_TYPE_BF16 },
    /* 31 */ { NULL, 0, 0, 0, NULL, NULL, NULL, LK_TYPE_F32 },
    /* 32 */ { NULL, 0, 0, 0, NULL, NULL, NULL, LK_TYPE_F32 },
    /* 33 */ { NULL, 0, 0, 0, NULL, NULL, NULL, LK_TYPE_F32 },
    /* 34 */ { "tq1_0",   256,  54, 1, NULL, NULL, NULL, LK_TYPE_Q8_K },
    /* 35 */ { "tq2_0",   256,  66, 1, NULL, NULL, NULL, LK_TYPE_Q8_K },
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
 * 15.7a float, legacy and K-quant formats
 * --------------------------------------------------------------------------
 * The reference quantizers must round exactly like ggml's (compiled without
 * FMA): no contraction of a*b+c into fused multiply-adds here. */
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#elif defined(__GNUC__)
#pragma GCC push_options
#pragma GCC optimize("fp-contract=off")
#endif

/* block sizes must match ggml exactly (C99 static assert) */
typedef char lk__chk_q4_0[sizeof(lk_block_q4_0) == 18 ? 1 : -1];
typedef char lk__chk_q4_1[sizeof(lk_block_q4_1) == 20 ? 1 : -1];
typedef char lk__chk_q5_0[sizeof(lk_block_q5_0) == 22 ? 1 : -1];
typedef char lk__chk_q5_1[sizeof(lk_block_q5_1) == 24 ? 1 : -1];
typedef char lk__chk_q8_0[sizeof(lk_block_q8_0) == 34 ? 1 : -1];
typedef char lk__chk_q8_1[sizeof(lk_block_q8_1) == 36 ? 1 : -1];
typedef char lk__chk_q2_K[sizeof(lk_block_q2_K) == 84 ? 1 : -1];
typedef char lk__chk_q3_K[sizeof(lk_block_q3_K) == 110 ? 1 : -1];
typedef char lk__chk_q4_K[sizeof(lk_block_q4_K) == 144 ? 1 : -1];
typedef char lk__chk_q5_K[sizeof(lk_block_q5_K) == 176 ? 1 : -1];
typedef char lk__chk_q6_K[sizeof(lk_block_q6_K) == 210 ? 1 : -1];
typedef char lk__chk_q8_K[sizeof(lk_block_q8_K) == 292 ? 1 : -1];

/* ---- scalar float conversions ------------------------------------------ */
static uint32_t lk__f32_bits(float f) { uint32_t u; memcpy(&u, &f, sizeof u); return u; }
static float lk__f32_from_bits(uint32_t u) { float f; memcpy(&f, &u, sizeof f); return f; }

LKDEF float lk_fp16_to_fp32(uint16_t h) {
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
    if (e == 0x1f) return lk__f32_from_bits(sign | 0x7f800000u | (m << 13));    /* inf, nan */
    if (e == 0) {                                   /* zero / subnormal: m * 2^-24 (exact) */
        float v = (float)m * 5.9604644775390625e-8f;
        return sign ? -v : v;
    }
    return lk__f32_from_bits(sign | ((e + 112u) << 23) | (m << 13));          /* rebias 15 -> 127 */
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
static void lk__from_float_f16(const float *x, void *vy, int64_t n) {
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
/* ggml's scalar float dots: products in float, sum in double */
static void lk__vec_dot_f32(int64_t n, float *s, const void *vx, const void *vy) {
    const float *x = LK__CAST(const float *, vx), *y = LK__CAST(const float *, vy);
    double sum = 0.0;
    int64_t i;
    for (i = 0; i < n; i++) sum += (double)(x[i] * y[i]);
    *s = (float)sum;
}
static void lk__vec_dot_f16(int64_t n, float *s, const void *vx, const void *vy) {
    const uint16_t *x = LK__CAST(const uint16_t *, vx), *y = LK__CAST(const uint16_t *, vy);
    double sum = 0.0;
    int64_t i;
    for (i = 0; i < n; i++) sum += (double)(LK__H2F(x[i]) * LK__H2F(y[i]));
    *s = (float)sum;
}
static void lk__vec_dot_bf16(int64_t n, float *s, const void *vx, const void *vy) {
    const uint16_t *x = LK__CAST(const uint16_t *, vx), *y = LK__CAST(const uint16_t *, vy);
    double sum = 0.0;
    int64_t i;
    for (i = 0; i < n; i++) sum += (double)(lk_bf16_to_fp32(x[i]) * lk_bf16_to_fp32(y[i]));
    *s = (float)sum;
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

static void lk__quantize_row_q4_0(const float *x, void *vy, int64_t n) {
    lk_block_q4_0 *y = LK__CAST(lk_block_q4_0 *, vy);
    int64_t i, nb = n / LK_QK4_0;
    int j;
    for (i = 0; i < nb; i++, x += LK_QK4_0) {
        float amax = 0.0f, max = 0.0f, d, id;
        for (j = 0; j < LK_QK4_0; j++)
            if (amax < fabsf(x[j])) { amax = fabsf(x[j]); max = x[j]; }
        d = max / -8;                     /* the largest magnitude maps to -8 */
        id = d ? 1.0f / d : 0.0f;
        y[i].d = LK__F2H(d);
        for (j = 0; j < LK_QK4_0 / 2; j++) {
            int q0 = lk__trunc_clamp(x[j] * id + 8.5f, 15);
            int q1 = lk__trunc_clamp(x[j + 16] * id + 8.5f, 15);
            y[i].qs[j] = (uint8_t)(q0 | (q1 << 4));
        }
    }
}
static void lk__dequantize_row_q4_0(const void *vx, float *y, int64_t n) {
    const lk_block_q4_0 *x = LK__CAST(const lk_block_q4_0 *, vx);
    int64_t i, nb = n / LK_QK4_0;
    int j;
    for (i = 0; i < nb; i++, y += LK_QK4_0) {
        float d = LK__H2F(x[i].d);
        for (j = 0; j < 16; j++) {
            y[j] = (float)((x[i].qs[j] & 0xF) - 8) * d;
            y[j + 16] = (float)((x[i].qs[j] >> 4) - 8) * d;
        }
    }
}
static void lk__vec_dot_q4_0_q8_0(int64_t n, float *s, const void *vx, const void *vy) {
    const lk_block_q4_0 *x = LK__CAST(const lk_block_q4_0 *, vx);
    const lk_block_q8_0 *y = LK__CAST(const lk_block_q8_0 *, vy);
    int64_t i, nb = n / LK_QK4_0;
    float sum = 0.0f;
    int j;
    for (i = 0; i < nb; i++) {
        int8_t a[LK_QK4_0];
        int si = 0;
        /* unpack to int8 first: gcc 12 miscompiles the fused form
         * sum(((u8 & 15) - 8) * s8) with AVX512-VNNI (-march=native) */
        for (j = 0; j < 16; j++) {
            a[j] = (int8_t)((x[i].qs[j] & 0xF) - 8);
            a[j + 16] = (int8_t)((x[i].qs[j] >> 4) - 8);
        }
        for (j = 0; j < LK_QK4_0; j++) si += a[j] * y[i].qs[j];
        sum += (float)si * LK__H2F(x[i].d) * LK__H2F(y[i].d);
    }
    *s = sum;
}

static void lk__quantize_row_q4_1(const float *x, void *vy, int64_t n) {
    lk_block_q4_1 *y = LK__CAST(lk_block_q4_1 *, vy);
    int64_t i, nb = n / LK_QK4_1;
    int j;
    for (i = 0; i < nb; i++, x += LK_QK4_1) {
        float min = 3.402823466e+38f, max = -3.402823466e+38f, d, id;
        for (j = 0; j < LK_QK4_1; j++) {
            if (x[j] < min) min = x[j];
            if (x[j] > max) max = x[j];
        }
        d = (max - min) / 15;
        id = d ? 1.0f / d : 0.0f;
        y[i].d = LK__F2H(d);
        y[i].m = LK__F2H(min);
        for (j = 0; j < 16; j++) {
            int q0 = lk__trunc_clamp((x[j] - min) * id + 0.5f, 15);
            int q1 = lk__trunc_clamp((x[j + 16] - min) * id + 0.5f, 15);
            y[i].qs[j] = (uint8_t)(q0 | (q1 << 4));
        }
    }
}
static void lk__dequantize_row_q4_1(const void *vx, float *y, int64_t n) {
    const lk_block_q4_1 *x = LK__CAST(const lk_block_q4_1 *, vx);
    int64_t i, nb = n / LK_QK4_1;
    int j;
    for (i = 0; i < nb; i++, y += LK_QK4_1) {
        float d = LK__H2F(x[i].d), m = LK__H2F(x[i].m);
        for (j = 0; j < 16; j++) {
            y[j] = (float)(x[i].qs[j] & 0xF) * d + m;
            y[j + 16] = (float)(x[i].qs[j] >> 4) * d + m;
        }
    }
}
static void lk__vec_dot_q4_1_q8_1(int64_t n, float *s, const void *vx, const void *vy) {
    const lk_block_q4_1 *x = LK__CAST(const lk_block_q4_1 *, vx);
    const lk_block_q8_1 *y = LK__CAST(const lk_block_q8_1 *, vy);
    int64_t i, nb = n / LK_QK4_1;
    float sum = 0.0f;
    int j;
    for (i = 0; i < nb; i++) {
        int s0 = 0, s1 = 0;
        for (j = 0; j < 16; j++) {
            s0 += (x[i].qs[j] & 0xF) * y[i].qs[j];
            s1 += (x[i].qs[j] >> 4) * y[i].qs[j + 16];
        }
        /* sum(d*q + m)(dy*qy) = d*dy*sum(q*qy) + m*s  with s = dy*sum(qy) */
        sum += (LK__H2F(x[i].d) * LK__H2F(y[i].d)) * (float)(s0 + s1) + LK__H2F(x[i].m) * LK__H2F(y[i].s);
    }
    *s = sum;
}

static void lk__quantize_row_q5_0(const float *x, void *vy, int64_t n) {
    lk_block_q5_0 *y = LK__CAST(lk_block_q5_0 *, vy);
    int64_t i, nb = n / LK_QK5_0;
    int j;
    for (i = 0; i < nb; i++, x += LK_QK5_0) {
        float amax = 0.0f, max = 0.0f, d, id;
        uint32_t qh = 0;
        for (j = 0; j < LK_QK5_0; j++)
            if (amax < fabsf(x[j])) { amax = fabsf(x[j]); max = x[j]; }
        d = max / -16;
        id = d ? 1.0f / d : 0.0f;
        y[i].d = LK__F2H(d);
        for (j = 0; j < 16; j++) {
            int q0 = lk__trunc_clamp(x[j] * id + 16.5f, 31);
            int q1 = lk__trunc_clamp(x[j + 16] * id + 16.5f, 31);
            y[i].qs[j] = (uint8_t)((q0 & 0xF) | ((q1 & 0xF) << 4));
            qh |= (uint32_t)(q0 >> 4) << j;
            qh |= (uint32_t)(q1 >> 4) << (j + 16);
        }
        y[i].qh[0] = (uint8_t)qh; y[i].qh[1] = (uint8_t)(qh >> 8);
        y[i].qh[2] = (uint8_t)(qh >> 16); y[i].qh[3] = (uint8_t)(qh >> 24);
    }
}
static uint32_t lk__qh32(const uint8_t *p) {
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}
static void lk__dequantize_row_q5_0(const void *vx, float *y, int64_t n) {
    const lk_block_q5_0 *x = LK__CAST(const lk_block_q5_0 *, vx);
    int64_t i, nb = n / LK_QK5_0;
    int j;
    for (i = 0; i < nb; i++, y += LK_QK5_0) {
        float d = LK__H2F(x[i].d);
        uint32_t qh = lk__qh32(x[i].qh);
        for (j = 0; j < 16; j++) {
            int q0 = (int)((x[i].qs[j] & 0xF) | (((qh >> j) & 1u) << 4));
            int q1 = (int)((x[i].qs[j] >> 4) | (((qh >> (j + 16)) & 1u) << 4));
            y[j] = (float)(q0 - 16) * d;
            y[j + 16] = (float)(q1 - 16) * d;
        }
    }
}
static void lk__vec_dot_q5_0_q8_0(int64_t n, float *s, const void *vx, const void *vy) {
    const lk_block_q5_0 *x = LK__CAST(const lk_block_q5_0 *, vx);
    const lk_block_q8_0 *y = LK__CAST(const lk_block_q8_0 *, vy);
    int64_t i, nb = n / LK_QK5_0;
    float sum = 0.0f;
    int j;
    for (i = 0; i < nb; i++) {
        uint32_t qh = lk__qh32(x[i].qh);
        int s0 = 0, s1 = 0;
        for (j = 0; j < 16; j++) {
            int q0 = (int)((x[i].qs[j] & 0xF) | (((qh >> j) & 1u) << 4)) - 16;
            int q1 = (int)((x[i].qs[j] >> 4) | (((qh >> (j + 16)) & 1u) << 4)) - 16;
            s0 += q0 * y[i].qs[j];
            s1 += q1 * y[i].qs[j + 16];
        }
        sum += (LK__H2F(x[i].d) * LK__H2F(y[i].d)) * (float)(s0 + s1);
    }
    *s = sum;
}

static void lk__quantize_row_q5_1(const float *x, void *vy, int64_t n) {
    lk_block_q5_1 *y = LK__CAST(lk_block_q5_1 *, vy);
    int64_t i, nb = n / LK_QK5_1;
    int j;
    for (i = 0; i < nb; i++, x += LK_QK5_1) {
        float min = 3.402823466e+38f, max = -3.402823466e+38f, d, id;
        uint32_t qh = 0;
        for (j = 0; j < LK_QK5_1; j++) {
            if (x[j] < min) min = x[j];
            if (x[j] > max) max = x[j];
        }
        d = (max - min) / 31;
        id = d ? 1.0f / d : 0.0f;
        y[i].d = LK__F2H(d);
        y[i].m = LK__F2H(min);
        for (j = 0; j < 16; j++) {
            int q0 = lk__trunc_clamp((x[j] - min) * id + 0.5f, 31);
            int q1 = lk__trunc_clamp((x[j + 16] - min) * id + 0.5f, 31);
            y[i].qs[j] = (uint8_t)((q0 & 0xF) | ((q1 & 0xF) << 4));
            qh |= (uint32_t)(q0 >> 4) << j;
            qh |= (uint32_t)(q1 >> 4) << (j + 16);
        }
        y[i].qh[0] = (uint8_t)qh; y[i].qh[1] = (uint8_t)(qh >> 8);
        y[i].qh[2] = (uint8_t)(qh >> 16); y[i].qh[3] = (uint8_t)(qh >> 24);
    }
}
static void lk__dequantize_row_q5_1(const void *vx, float *y, int64_t n) {
    const lk_block_q5_1 *x = LK__CAST(const lk_block_q5_1 *, vx);
    int64_t i, nb = n / LK_QK5_1;
    int j;
    for (i = 0; i < nb; i++, y += LK_QK5_1) {
        float d = LK__H2F(x[i].d), m = LK__H2F(x[i].m);
        uint32_t qh = lk__qh32(x[i].qh);
        for (j = 0; j < 16; j++) {
            int q0 = (int)((x[i].qs[j] & 0xF) | (((qh >> j) & 1u) << 4));
            int q1 = (int)((x[i].qs[j] >> 4) | (((qh >> (j + 16)) & 1u) << 4));
            y[j] = (float)q0 * d + m;
            y[j + 16] = (float)q1 * d + m;
        }
    }
}
static void lk__vec_dot_q5_1_q8_1(int64_t n, float *s, const void *vx, const void *vy) {
    const lk_block_q5_1 *x = LK__CAST(const lk_block_q5_1 *, vx);
    const lk_block_q8_1 *y = LK__CAST(const lk_block_q8_1 *, vy);
    int64_t i, nb = n / LK_QK5_1;
    float sum = 0.0f;
    int j;
    for (i = 0; i < nb; i++) {
        uint32_t qh = lk__qh32(x[i].qh);
        int s0 = 0, s1 = 0;
        for (j = 0; j < 16; j++) {
            int q0 = (int)((x[i].qs[j] & 0xF) | (((qh >> j) & 1u) << 4));
            int q1 = (int)((x[i].qs[j] >> 4) | (((qh >> (j + 16)) & 1u) << 4));
            s0 += q0 * y[i].qs[j];
            s1 += q1 * y[i].qs[j + 16];
        }
        sum += (LK__H2F(x[i].d) * LK__H2F(y[i].d)) * (float)(s0 + s1) + LK__H2F(x[i].m) * LK__H2F(y[i].s);
    }
    *s = sum;
}

static void lk__quantize_row_q8_0(const float *x, void *vy, int64_t n) {
    lk_block_q8_0 *y = LK__CAST(lk_block_q8_0 *, vy);
    int64_t i, nb = n / LK_QK8_0;
    int j;
    for (i = 0; i < nb; i++, x += LK_QK8_0) {
        float amax = 0.0f, d, id;
        for (j = 0; j < LK_QK8_0; j++) amax = amax > fabsf(x[j]) ? amax : fabsf(x[j]);
        d = amax / 127;
        id = d ? 1.0f / d : 0.0f;
        y[i].d = LK__F2H(d);
        for (j = 0; j < LK_QK8_0; j++) y[i].qs[j] = (int8_t)lk__round_i8(x[j] * id);
    }
}
static void lk__dequantize_row_q8_0(const void *vx, float *y, int64_t n) {
    const lk_block_q8_0 *x = LK__CAST(const lk_block_q8_0 *, vx);
    int64_t i, nb = n / LK_QK8_0;
    int j;
    for (i = 0; i < nb; i++, y += LK_QK8_0) {
        float d = LK__H2F(x[i].d);
        for (j = 0; j < LK_QK8_0; j++) y[j] = (float)x[i].qs[j] * d;
    }
}
static void lk__vec_dot_q8_0_q8_0(int64_t n, float *s, const void *vx, const void *vy) {
    const lk_block_q8_0 *x = LK__CAST(const lk_block_q8_0 *, vx);
    const lk_block_q8_0 *y = LK__CAST(const lk_block_q8_0 *, vy);
    int64_t i, nb = n / LK_QK8_0;
    float sum = 0.0f;
    int j;
    for (i = 0; i < nb; i++) {
        int si = 0;
        for (j = 0; j < LK_QK8_0; j++) si += x[i].qs[j] * y[i].qs[j];
        sum += (float)si * (LK__H2F(x[i].d) * LK__H2F(y[i].d));
    }
    *s = sum;
}

static void lk__quantize_row_q8_1(const float *x, void *vy, int64_t n) {
    lk_block_q8_1 *y = LK__CAST(lk_block_q8_1 *, vy);
    int64_t i, nb = n / LK_QK8_1;
    int j;
    for (i = 0; i < nb; i++, x += LK_QK8_1) {
        float amax = 0.0f, d, id;
        int sum = 0;
        for (j = 0; j < LK_QK8_1; j++) amax = amax > fabsf(x[j]) ? amax : fabsf(x[j]);
        d = amax / 127;
        id = d ? 1.0f / d : 0.0f;
        y[i].d = LK__F2H(d);
        for (j = 0; j < LK_QK8_1; j++) {
            y[i].qs[j] = (int8_t)lk__round_i8(x[j] * id);
            sum += y[i].qs[j];
        }
        y[i].s = LK__F2H((float)sum * d);   /* the unrounded d, as ggml */
    }
}
static void lk__dequantize_row_q8_1(const void *vx, float *y, int64_t n) {
    const lk_block_q8_1 *x = LK__CAST(const lk_block_q8_1 *, vx);
    int64_t i, nb = n / LK_QK8_1;
    int j;
    for (i = 0; i < nb; i++, y += LK_QK8_1) {
        float d = LK__H2F(x[i].d);
        for (j = 0; j < LK_QK8_1; j++) y[j] = (float)x[i].qs[j] * d;
    }
}

/* ---- K-quants: 256-element super-blocks ------------------------------------ */
/* Round to nearest (ties to even) through the float mantissa, exactly as
 * ggml's nearest_int; valid for |f| < 2^22. */
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

/* Symmetric 3-bit search (ggml make_q3_quants with rmse): start from
 * nmax/max, then up to 5 passes of coordinate descent on single levels.
 * L[i] = l + nmax in [0, 2*nmax). */
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

/* Asymmetric search x ~ scale*L - min with weights (ggml make_qkx2_quants):
 * try nstep+1 grid scales (rmin + rdelta*is + nmax)/(max - min), solve the
 * weighted least squares for (scale, min) for each and keep the smallest
 * weighted error (|diff| if use_mad, else diff^2). *the_min = -min >= 0. */
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
static void lk__set_scale_min_k4(int j, uint8_t *q, int ls, int lm) {   /* q zeroed first for j >= 4 */
    if (j < 4) {
        q[j] = (uint8_t)ls; q[j + 4] = (uint8_t)lm;
    } else {
        q[j + 4] = (uint8_t)((ls & 0xF) | ((lm & 0xF) << 4));
        q[j - 4] |= (uint8_t)((ls >> 4) << 6);
        q[j] |= (uint8_t)((lm >> 4) << 6);
    }
}
/* 6-bit scale j (0..15) of q3_K, minus 32 */
static int lk__q3k_scale(const uint8_t *s, int j) {
    int lo = j < 8 ? (s[j] & 0xF) : (s[j - 8] >> 4);
    int hi = (s[8 + (j & 3)] >> (2 * (j / 4))) & 3;
    return (lo | (hi << 4)) - 32;
}
/* 2-bit packing shared by q2_K / q3_K: within each 128, byte l holds
 * L[l], L[l+32], L[l+64], L[l+96] in bits 0-1, 2-3, 4-5, 6-7. */
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
static void lk__quantize_row_q8_K(const float *x, void *vy, int64_t n) {
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

static void lk__vec_dot_q2_K_q8_K(int64_t n, float *s, const void *vx, const void *vy) {
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

static void lk__vec_dot_q3_K_q8_K(int64_t n, float *s, const void *vx, const void *vy) {
    const lk_block_q3_K *x = LK__CAST(const lk_block_q3_K *, vx);
    const lk_block_q8_K *y = LK__CAST(const lk_block_q8_K *, vy);
    int64_t i, nb = n / LK_QK_K;
    float sums[8] = {0, 0, 0, 0, 0, 0, 0, 0}, sumf = 0;
    int8_t a[LK_QK_K];
    int sc16[16];
    int32_t lanes[8];
    int j, l;
    for (i = 0; i < nb; i++) {
        float d;
        /* element 32*k + l (k = 0..7): 2 bits at qs[32*(k/4) + l] >> 2*(k%4), high bit hmask[l] bit k */
        for (j = 0; j < 8; j++)
            for (l = 0; l < 32; l++) {
                int lo = (x[i].qs[32 * (j / 4) + l] >> (2 * (j % 4))) & 3;
                a[32 * j + l] = (int8_t)(lo - ((x[i].hmask[l] >> j) & 1 ? 0 : 4));
            }
        for (j = 0; j < 16; j++) sc16[j] = lk__q3k_scale(x[i].scales, j);
        lk__ksum_lanes(a, y[i].qs, sc16, lanes);
        d = LK__H2F(x[i].d) * y[i].d;
        for (l = 0; l < 8; l++) sums[l] += d * (float)lanes[l];
    }
    for (l = 0; l < 8; l++) sumf += sums[l];
    *s = sumf;
}

/* q4_K / q5_K: a[] holds the unsigned quants; scale/min per 32 */
static void lk__q45k_dot_block(const int8_t *a, const uint8_t *scales12, float dx, float dminx,
                               const lk_block_q8_K *yb, float *sums, float *sumf) {
    int sc16[16], j, l, sumi = 0;
    int32_t lanes[8];
    float d, dmin;
    for (j = 0; j < 8; j++) {
        uint8_t sc, m;
        lk__get_scale_min_k4(j, scales12, &sc, &m);
        sc16[2 * j] = sc16[2 * j + 1] = sc;
        sumi += (yb->bsums[2 * j] + yb->bsums[2 * j + 1]) * m;
    }
    lk__ksum_lanes(a, yb->qs, sc16, lanes);
    d = dx * yb->d;
    for (l = 0; l < 8; l++) sums[l] += d * (float)lanes[l];
    dmin = dminx * yb->d;
    *sumf -= dmin * (float)sumi;
}
static void lk__vec_dot_q4_K_q8_K(int64_t n, float *s, const void *vx, const void *vy) {
    const lk_block_q4_K *x = LK__CAST(const lk_block_q4_K *, vx);
    const lk_block_q8_K *y = LK__CAST(const lk_block_q8_K *, vy);
    int64_t i, nb = n / LK_QK_K;
    float sums[8] = {0, 0, 0, 0, 0, 0, 0, 0}, sumf = 0;
    int8_t a[LK_QK_K];
    int j, l;
    for (i = 0; i < nb; i++) {
        for (j = 0; j < 4; j++)
            for (l = 0; l < 32; l++) {
                a[64 * j + l] = (int8_t)(x[i].qs[32 * j + l] & 0xF);
                a[64 * j + 32 + l] = (int8_t)(x[i].qs[32 * j + l] >> 4);
            }
        lk__q45k_dot_block(a, x[i].scales, LK__H2F(x[i].d), LK__H2F(x[i].dmin), &y[i], sums, &sumf);
    }
    for (l = 0; l < 8; l++) sumf += sums[l];
    *s = sumf;
}
static void lk__vec_dot_q5_K_q8_K(int64_t n, float *s, const void *vx, const void *vy) {
    const lk_block_q5_K *x = LK__CAST(const lk_block_q5_K *, vx);
    const lk_block_q8_K *y = LK__CAST(const lk_block_q8_K *, vy);
    int64_t i, nb = n / LK_QK_K;
    float sums[8] = {0, 0, 0, 0, 0, 0, 0, 0}, sumf = 0;
    int8_t a[LK_QK_K];
    int j, l;
    for (i = 0; i < nb; i++) {
        for (j = 0; j < 4; j++)
            for (l = 0; l < 32; l++) {
                a[64 * j + l] = (int8_t)((x[i].qs[32 * j + l] & 0xF) | (((x[i].qh[l] >> (2 * j)) & 1) << 4));
                a[64 * j + 32 + l] = (int8_t)((x[i].qs[32 * j + l] >> 4) | (((x[i].qh[l] >> (2 * j + 1)) & 1) << 4));
            }
        lk__q45k_dot_block(a, x[i].scales, LK__H2F(x[i].d), LK__H2F(x[i].dmin), &y[i], sums, &sumf);
    }
    for (l = 0; l < 8; l++) sumf += sums[l];
    *s = sumf;
}
static void lk__vec_dot_q6_K_q8_K(int64_t n, float *s, const void *vx, const void *vy) {
    const lk_block_q6_K *x = LK__CAST(const lk_block_q6_K *, vx);
    const lk_block_q8_K *y = LK__CAST(const lk_block_q8_K *, vy);
    int64_t i, nb = n / LK_QK_K;
    float sums[8] = {0, 0, 0, 0, 0, 0, 0, 0}, sumf = 0;
    int8_t a[LK_QK_K];
    int sc16[16];
    int32_t lanes[8];
    int j, l;
    for (i = 0; i < nb; i++) {
        float d;
        lk__q6k_unpack(&x[i], a);
        for (j = 0; j < 16; j++) sc16[j] = x[i].scales[j];
        lk__ksum_lanes(a, y[i].qs, sc16, lanes);
        d = LK__H2F(x[i].d) * y[i].d;
        for (l = 0; l < 8; l++) sums[l] += d * (float)lanes[l];
    }
    for (l = 0; l < 8; l++) sumf += sums[l];
    *s = sumf;
}

/* ---- row API and matmul ------------------------------------------------------ */
LKDEF void lk_quantize_row(lk_type type, const float *x, void *y, int64_t n) {
    const lk_type_traits *t = lk_type_get(type);
    if (!t || !t->from_float || n <= 0 || n % t->blck_size) return;
    t->from_float(x, y, n);
}
LKDEF void lk_dequantize_row(lk_type type, const void *x, float *y, int64_t n) {
    const lk_type_traits *t = lk_type_get(type);
    if (!t || !t->to_float || n <= 0 || n % t->blck_size) return;
    t->to_float(x, y, n);
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

LKDEF size_t lk_matmul_scratch_size(lk_type wtype, int64_t n_in, int64_t n_cols) {
    const lk_type_traits *t = lk_type_get(wtype);
    size_t rs;
    uint64_t total;
    if (!t || !t->vec_dot || n_in <= 0 || n_cols <= 0) return 0;
    if (t->vec_dot_type == LK_TYPE_F32) return 0;        /* activations used as they are */
    rs = lk_row_size(t->vec_dot_type, n_in);
    if (!rs || !lk__mul_ok((uint64_t)n_cols, rs, &total) || total > SIZE_MAX - 64) return 0;
    return (size_t)total + 64;                            /* + alignment slack */
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
} lk__matmul_job;

static const unsigned char *lk__matmul_wrow(const lk_tensor *W, int64_t r) {
    int64_t i1 = r % W->ne[1], r2 = r / W->ne[1];
    int64_t i2 = r2 % W->ne[2], i3 = r2 / W->ne[2];
    return LK__CAST(const unsigned char *, W->data) + (size_t)i1 * W->nb[1] + (size_t)i2 * W->nb[2] + (size_t)i3 * W->nb[3];
}
static void lk__matmul_quant_task(void *arg, int task, int n_tasks) {
    lk__matmul_job *j = LK__CAST(lk__matmul_job *, arg);
    int64_t c0 = j->n_cols * task / n_tasks, c1 = j->n_cols * (task + 1) / n_tasks, c;
    for (c = c0; c < c1; c++) j->vt->from_float(j->x + c * j->n_in, j->xq_w + (size_t)c * j->xq_row, j->n_in);
}
static void lk__matmul_rows_task(void *arg, int task, int n_tasks) {
    lk__matmul_job *j = LK__CAST(lk__matmul_job *, arg);
    int64_t r0 = j->n_out * task / n_tasks, r1 = j->n_out * (task + 1) / n_tasks, rb, cb, r, c;
    /* tiles of 32 weight rows x 16 columns stay in cache for prefill; every
     * y element is still exactly one vec_dot, whatever the split */
    for (rb = r0; rb < r1; rb += 32) {
        int64_t re = rb + 32 < r1 ? rb + 32 : r1;
        for (cb = 0; cb < j->n_cols; cb += 16) {
            int64_t ce = cb + 16 < j->n_cols ? cb + 16 : j->n_cols;
            for (r = rb; r < re; r++) {
                const unsigned char *wrow = lk__matmul_wrow(j->W, r);
                for (c = cb; c < ce; c++)    /* y[c][r] = dot(W[r], x[c]) */
                    j->wt->vec_dot(j->n_in, &j->y[c * j->n_out + r], wrow, j->xq + (size_t)c * j->xq_row);
            }
        }
    }
}

LKDEF lk_status lk_matmul(const lk_tensor *W, const float *x, int64_t n_cols, float *y,
                          void *scratch, size_t scratch_size, const lk_threads *th) {
    lk__matmul_job job;
    const lk_type_traits *wt;
    size_t need;
    int nt, n_tasks;
    if (!W || !x || !y || n_cols < 0 || !W->data)
        return lk_set_error(LK_ERR_INVALID_ARG, "lk_matmul: NULL argument or negative column count");
    wt = lk_type_get(W->type);
    if (!wt || !wt->vec_dot)
        return lk_set_error(LK_ERR_UNSUPPORTED, "lk_matmul: no dot product for weight type %s", lk_type_name(W->type));
    if (W->ne[0] <= 0 || W->ne[0] % wt->blck_size || W->ne[1] < 0 || W->ne[2] < 1 || W->ne[3] < 1)
        return lk_set_error(LK_ERR_INVALID_ARG, "lk_matmul: bad weight shape [%lld, %lld]", (long long)W->ne[0], (long long)W->ne[1]);
    memset(&job, 0, sizeof job);
    job.wt = wt;
    job.vt = lk_type_get(wt->vec_dot_type);
    job.W = W; job.x = x; job.y = y;
    job.n_in = W->ne[0];
    job.n_out = W->ne[1] * W->ne[2] * W->ne[3];
    job.n_cols = n_cols;
    if (n_cols == 0 || job.n_out == 0) return LK_OK;
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
    } else {
        uintptr_t p;
        if (!need) return lk_set_error(LK_ERR_RANGE, "lk_matmul: activation buffer size overflows");
        if (!scratch || scratch_size < need)
            return lk_set_error(LK_ERR_INVALID_ARG, "lk_matmul: scratch of %zu bytes, need %zu", scratch ? scratch_size : (size_t)0, need);
        p = ((uintptr_t)scratch + 63u) & ~(uintptr_t)63u;
        job.xq_w = LK__CAST(unsigned char *, (void *)p);
        job.xq = job.xq_w;
        job.xq_row = lk_row_size(wt->vec_dot_type, job.n_in);
        n_tasks = (int)(n_cols < nt ? n_cols : nt);
        lk_parallel_for(th, n_tasks, lk__matmul_quant_task, &job);
    }
    n_tasks = (int)(job.n_out < nt ? job.n_out : nt);
    lk_parallel_for(th, n_tasks, lk__matmul_rows_task, &job);
    return LK_OK;
}
#if defined(__clang__)
#pragma STDC FP_CONTRACT DEFAULT
#elif defined(__GNUC__)
#pragma GCC pop_options
#endif
/* end of 15.7a */

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
