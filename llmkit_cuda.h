/* llmkit_cuda.h - CUDA kernels for llmkit (compile with nvcc).
 *
 * Status: placeholder. No CUDA kernels exist yet; including this file after
 * llmkit.h compiles and adds only lk_cuda_available(), which reports 0.
 * Kernels will live here and only here, so llmkit.h stays plain C. */
#ifndef LLMKIT_CUDA_H
#define LLMKIT_CUDA_H
#ifdef __cplusplus
extern "C" {
#endif
/* 1 if this build has CUDA kernels for llmkit; currently always 0. */
static inline int lk_cuda_available(void) { return 0; }
#ifdef __cplusplus
}
#endif
#endif
