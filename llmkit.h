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

#ifdef __cplusplus
#define LK__CAST(T, x) static_cast<T>(x)
#else
#define LK__CAST(T, x) ((T)(x))
#endif

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
    /* 30 */ { "bf16",      1,   2, 0, NULL, NULL, NULL, LK_TYPE_BF16 },
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

/* LK__GGUF_IMPL */

/* --------------------------------------------------------------------------
 * 15.7 Quantization
 * -------------------------------------------------------------------------- */

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
