#!/usr/bin/env python3
"""Random-weight GGUF fixtures for architectures no real model here covers
(qwen3, gemma3, ...), written with llama.cpp's own gguf-py so that llama.cpp
is the judge of what the file means.

    python3 tools/gen_arch_fixtures.py LLAMA_CPP_DIR STORIES_F32_GGUF OUT_DIR [LABEL ...]
    python3 tools/gen_arch_fixtures.py --hash LLAMA_CPP_DIR LABEL FILE.gguf
    python3 tools/gen_arch_fixtures.py --size NAME LLAMA_CPP_DIR STORIES_F32_GGUF OUT_DIR LABEL...

--size NAME writes OUT_DIR/<label>-<NAME>-F32.gguf for the rows given, at one
of the sizes in SIZES below instead of the test size (for tools/compare-llamacpp.sh:
a file both llama.cpp and llmkit read, big enough to time); rows whose
dimensions go through dims() scale, the others keep the test size. No hashes.

writes OUT_DIR/<label>-F32.gguf (qwen3, gemma3, qwen3moe, llama-moe, and the
"-opt" files of issue 32: llama, qwen2, qwen3, gemma3, gpt2 and phi3 with every
optional tensor llama.cpp's graph for them reads - biases, weight scales,
input scales - and keys at unusual but valid values; and smollm3, mistral3, glm4, gpt-oss, glm4moe, glm4-nextn, deepseek2, llama4, gemma4, gemma4-sizes, gemma4-moe; issue 33's lfm2, mamba2, granitehybrid, qwen35, qwen35-nextn, qwen35moe) and prints one line per tensor,
"<arch> <name> <fnv1a-64 of the f32 data>", which tests/data/arch/hashes.txt
keeps. tests/test_model.c rebuilds exactly the same tensors in
memory from the same generator (below) and checks those hashes, so the
models themselves never need to be committed or shipped.

Generator (the C test has the same one): for tensor NAME of architecture
seed S, element i (0-based, row-major as stored):
    x = fnv1a64(NAME) ^ (S * 0x9E3779B97F4A7C15)  (mod 2^64)
    z = splitmix64(x + (i + 1) * 0x9E3779B97F4A7C15)
    v = float32(z >> 40) * 2^-24 - 0.5           (exact, in [-0.5, 0.5))
    matrices, embeddings: v * float32(W)         W = 0.07 (std ~0.02)
    MoE routers (ffn_gate_inp, its bias, exp_probs_b): v (wide, so that no top-k choice
                                                 is a near-tie that the last bit
                                                 of a sum could flip)
    lfm2's shortconv.conv (the short conv's taps): v (of either sign and large
                                                 enough that a wrong tap shows)
    Mamba 2's ssm_conv1d.weight, ssm_dt.bias, ssm_d: v (as the taps above; dt's
                                                 bias and the skip of either sign)
    Mamba 2's ssm_a:      -(1 + v * N)           (negative: a decay, as the
                                                 converter's -exp(A_log))
    qwen35's ssm_conv1d.weight, ssm_dt.bias: v; its ssm_a: v - 0.5 (negative, as
                                                 the converter's -exp(A_log))
    gpt-oss's ffn_gate/up_exps.bias: v * 16      (exact; wide enough that some of
                                                 the clamped SwiGLU's inputs pass 7)
    norm weights:         1 + v * float32(N)     N = 0.25 (a power of two: the
                                                 product is exact, so fused or not
                                                 the sum rounds once)
    weight scales (.scale, .input_scale), rope_freqs.weight, attn_sinks,
    gemma4's layer_output_scale and its MoE norms (*norm_1, *norm_2): as norm weights
A file's "drop" lists per-layer tensors some layers do not have (gemma4's
shared-KV layers hold no K, V).
all in float32 arithmetic. Tokenizer keys are copied from stories260K-F32.gguf
(the 512-token SentencePiece vocabulary of the other fixtures).
"""
import sys
import numpy as np

W, N = np.float32(0.07), np.float32(0.25)
GOLD = np.uint64(0x9E3779B97F4A7C15)

def fnv1a64(b):
    h = 0xcbf29ce484222325
    for c in b:
        h = ((h ^ c) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return h

def splitmix64(z):
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))

def unit(name):   # the tensors drawn as 1 + v * N
    return (name.endswith("norm.weight") or name.endswith(".scale") or name.endswith(".input_scale") or name == "rope_freqs.weight" or
            name.endswith("attn_sinks.weight") or name.endswith("layer_output_scale.weight") or name.endswith("norm_1.weight") or
            name.endswith("norm_2.weight"))

def router(name):  # the tensors drawn as v (and lfm2's short conv kernels: taps of either sign, large enough to matter)
    return (name.endswith("ffn_gate_inp.weight") or name.endswith("ffn_gate_inp.bias") or name.endswith("exp_probs_b.bias") or
            name.endswith("shortconv.conv.weight") or name.endswith("ssm_conv1d.weight") or name.endswith("ssm_dt.bias") or
            name.endswith(".ssm_d") or name.endswith(".ssm_a"))

def negative(name, arch):  # drawn as -(1 + v * N): Mamba 2's A (ssm_a), stored as the converter stores it, -exp(A_log) < 0
    return name.endswith(".ssm_a") and arch in ("mamba2", "granitehybrid")

def wide(name):    # the tensors drawn as v * 16
    return name.endswith("ffn_gate_exps.bias") or name.endswith("ffn_up_exps.bias")

def values(name, seed, n, norm, router=False):
    x = np.uint64((fnv1a64(name.encode()) ^ ((seed * 0x9E3779B97F4A7C15) & 0xFFFFFFFFFFFFFFFF)) & 0xFFFFFFFFFFFFFFFF)
    with np.errstate(over='ignore'):
        i = np.arange(1, n + 1, dtype=np.uint64)
        z = splitmix64(x + i * GOLD)
    v = (z >> np.uint64(40)).astype(np.float32) * np.float32(2.0 ** -24) - np.float32(0.5)
    if router:
        return v   # routers: v itself, so the experts' scores stand well apart
    return (np.float32(1.0) + v * N) if norm else (v * W)

# Benchmark sizes (--size): the test dimensions E, L, H, G, d, F (and X, Fe
# for experts) a row passes through dims() are replaced by these; heads keep
# their q/kv ratio, a sliding window becomes `window`, context_length `ctx`.
# 100m: ~91M parameters dense (8 layers of 1024, FFN 2816), and 8 experts of
# 1024 (top-k as the row says: ~70M active, ~200M in all).
SIZES = {
    "100m": dict(E=1024, L=8, H=16, d=64, F=2816, X=8, Fe=1024, window=128, ctx=4096),
}
SIZE = None   # the size --size chose; None: the test size

def dims(E, L, H, G, d, F, X=None, K=None, Fe=None):
    """A row's dimensions at the chosen size: (E, L, H, G, d, F[, X, K[, Fe]])"""
    if SIZE:
        z = SIZES[SIZE]
        G = max(1, z["H"] * G // H)
        E, L, H, d, F = z["E"], z["L"], z["H"], z["d"], z["F"]
        if X is not None: X = max(X, z["X"])
        if Fe is not None: Fe = z["Fe"]
    return (E, L, H, G, d, F) + (() if X is None else (X, K)) + (() if Fe is None else (Fe,))

def window(w):
    return SIZES[SIZE]["window"] if SIZE and w else w

# Architectures: (arch, seed, hparams, per-layer tensors, globals). Shapes are
# ggml ne = [row length, rows]; numpy arrays are [rows, row length].
def specs():
    out = []
    # qwen3: q/k RMS norms per head, no biases, head_dim 64 != n_embd / n_head
    E, L, H, G, d, F = 256, 2, 8, 2, 64, 768
    out.append(("qwen3", "qwen3", 11, dict(E=E, L=L, H=H, G=G, d=d, F=F, eps=1e-6, base=1e6, window=0), [
        ("attn_norm.weight", [E]), ("attn_q.weight", [E, H * d]), ("attn_k.weight", [E, G * d]),
        ("attn_v.weight", [E, G * d]), ("attn_q_norm.weight", [d]), ("attn_k_norm.weight", [d]),
        ("attn_output.weight", [H * d, E]), ("ffn_norm.weight", [E]), ("ffn_gate.weight", [E, F]),
        ("ffn_up.weight", [E, F]), ("ffn_down.weight", [F, E])],
        [("token_embd.weight", [E, 512]), ("output_norm.weight", [E]), ("output.weight", [E, 512])]))
    # gemma3: 5 local (window 8, rope base 10000) to 1 global layer (base 1e6),
    # q/k norms, post-norms, embedding scale, GeGLU, tied output
    E, L, H, G, d, F = 256, 6, 4, 1, 64, 512
    out.append(("gemma3", "gemma3", 12, dict(E=E, L=L, H=H, G=G, d=d, F=F, eps=1e-6, base=1e6, window=8), [
        ("attn_norm.weight", [E]), ("attn_q.weight", [E, H * d]), ("attn_k.weight", [E, G * d]),
        ("attn_v.weight", [E, G * d]), ("attn_q_norm.weight", [d]), ("attn_k_norm.weight", [d]),
        ("attn_output.weight", [H * d, E]), ("post_attention_norm.weight", [E]), ("ffn_norm.weight", [E]),
        ("ffn_gate.weight", [E, F]), ("ffn_up.weight", [E, F]), ("ffn_down.weight", [F, E]),
        ("post_ffw_norm.weight", [E])],
        [("token_embd.weight", [E, 512]), ("output_norm.weight", [E])]))
    # qwen3moe: qwen3 attention, 8 SwiGLU experts of 256, top-2, softmax
    # router, weights normalised; no dense FFN
    E, L, H, G, d, F, X, K, Fe = 256, 2, 8, 2, 64, 768, 8, 2, 256
    out.append(("qwen3moe", "qwen3moe", 13, dict(E=E, L=L, H=H, G=G, d=d, F=F, eps=1e-6, base=1e6, window=0, X=X, K=K, Fe=Fe), [
        ("attn_norm.weight", [E]), ("attn_q.weight", [E, H * d]), ("attn_k.weight", [E, G * d]),
        ("attn_v.weight", [E, G * d]), ("attn_q_norm.weight", [d]), ("attn_k_norm.weight", [d]),
        ("attn_output.weight", [H * d, E]), ("ffn_norm.weight", [E]), ("ffn_gate_inp.weight", [E, X]),
        ("ffn_gate_exps.weight", [E, Fe, X]), ("ffn_up_exps.weight", [E, Fe, X]), ("ffn_down_exps.weight", [Fe, E, X])],
        [("token_embd.weight", [E, 512]), ("output_norm.weight", [E]), ("output.weight", [E, 512])]))
    # llama with experts (Mixtral layout): 4 experts of 256, top-2
    E, L, H, G, d, F, X, K = 256, 2, 8, 2, 32, 256, 4, 2
    out.append(("llama-moe", "llama", 14, dict(E=E, L=L, H=H, G=G, d=d, F=F, eps=1e-5, base=1e4, window=0, X=X, K=K), [
        ("attn_norm.weight", [E]), ("attn_q.weight", [E, H * d]), ("attn_k.weight", [E, G * d]),
        ("attn_v.weight", [E, G * d]), ("attn_output.weight", [H * d, E]), ("ffn_norm.weight", [E]),
        ("ffn_gate_inp.weight", [E, X]), ("ffn_gate_exps.weight", [E, F, X]), ("ffn_up_exps.weight", [E, F, X]),
        ("ffn_down_exps.weight", [F, E, X])],
        [("token_embd.weight", [E, 512]), ("output_norm.weight", [E]), ("output.weight", [E, 512])]))
    out += opt_specs()
    return out

# Issue 32's files: every optional tensor llama.cpp's graph for the
# architecture reads, and keys at unusual but valid values ("keys": extra
# (suffix, gguf-py writer, value)). F32 only.
def wsb(w, ne, out, bias=True, scale=True, in_scale=False):   # a weight with its bias / scale / input scale
    t = [(w + ".weight", [ne, out])]
    if bias: t.append((w + ".bias", [out]))
    if scale: t.append((w + ".scale", [1]))
    if in_scale: t.append((w + ".input_scale", [1]))
    return t

def opt_specs():
    out = []
    # llama: q/k/v/o and gate/up/down biases and scales, input scales, rope_freqs;
    # rope.scaling.type linear with factor 0 (= none)
    E, L, H, G, d, F = 256, 2, 8, 2, 32, 256
    out.append(("llama-opt", "llama", 21, dict(E=E, L=L, H=H, G=G, d=d, F=F, eps=1e-5, base=1e4, window=0,
        keys=[("rope.scaling.type", "str", "linear"), ("rope.scaling.factor", "f32", 0.0)]),
        [("attn_norm.weight", [E])] + wsb("attn_q", E, H * d, in_scale=True) + wsb("attn_k", E, G * d) + wsb("attn_v", E, G * d) +
        wsb("attn_output", H * d, E) + [("ffn_norm.weight", [E])] + wsb("ffn_gate", E, F) + wsb("ffn_up", E, F) +
        wsb("ffn_down", F, E, in_scale=True),
        [("token_embd.weight", [E, 512]), ("output_norm.weight", [E]), ("output.weight", [E, 512]), ("rope_freqs.weight", [d // 2])]))
    # qwen2: fused attn_qkv with q/k/v biases apart, its scale, attn_output's scale, output.bias
    E, L, H, G, d, F = 256, 2, 8, 2, 32, 256
    out.append(("qwen2-opt", "qwen2", 22, dict(E=E, L=L, H=H, G=G, d=d, F=F, eps=1e-6, base=1e6, window=0, keys=[]),
        [("attn_norm.weight", [E]), ("attn_qkv.weight", [E, H * d + 2 * G * d]), ("attn_qkv.scale", [1]),
         ("attn_q.bias", [H * d]), ("attn_k.bias", [G * d]), ("attn_v.bias", [G * d])] + wsb("attn_output", H * d, E, bias=False, in_scale=True) +
        [("ffn_norm.weight", [E]), ("ffn_gate.weight", [E, F]), ("ffn_up.weight", [E, F]), ("ffn_down.weight", [F, E])],
        [("token_embd.weight", [E, 512]), ("output_norm.weight", [E]), ("output.weight", [E, 512]), ("output.bias", [512])]))
    # qwen3: q/k/v biases, attention and FFN scales
    E, L, H, G, d, F = 256, 2, 8, 2, 64, 768
    out.append(("qwen3-opt", "qwen3", 23, dict(E=E, L=L, H=H, G=G, d=d, F=F, eps=1e-6, base=1e6, window=0, keys=[]),
        [("attn_norm.weight", [E])] + wsb("attn_q", E, H * d) + wsb("attn_k", E, G * d) + wsb("attn_v", E, G * d) +
        [("attn_q_norm.weight", [d]), ("attn_k_norm.weight", [d])] + wsb("attn_output", H * d, E, bias=False) +
        [("ffn_norm.weight", [E])] + wsb("ffn_gate", E, F, bias=False) + wsb("ffn_up", E, F, bias=False, in_scale=True) +
        wsb("ffn_down", F, E, bias=False),
        [("token_embd.weight", [E, 512]), ("output_norm.weight", [E]), ("output.weight", [E, 512])]))
    # gemma3: q/k/v biases, attention scales; a window pattern of 4 int32s for 6 layers
    E, L, H, G, d, F = 256, 6, 4, 1, 64, 512
    out.append(("gemma3-opt", "gemma3", 24, dict(E=E, L=L, H=H, G=G, d=d, F=F, eps=1e-6, base=1e6, window=8,
        keys=[("attention.sliding_window_pattern", "i32s", [1, 0, 1, 1])]),
        [("attn_norm.weight", [E])] + wsb("attn_q", E, H * d) + wsb("attn_k", E, G * d) + wsb("attn_v", E, G * d) +
        [("attn_q_norm.weight", [d]), ("attn_k_norm.weight", [d])] + wsb("attn_output", H * d, E, bias=False) +
        [("post_attention_norm.weight", [E]), ("ffn_norm.weight", [E]), ("ffn_gate.weight", [E, F]), ("ffn_up.weight", [E, F]),
         ("ffn_down.weight", [F, E]), ("post_ffw_norm.weight", [E])],
        [("token_embd.weight", [E, 512]), ("output_norm.weight", [E])]))
    # gpt2: its required biases, and the attention weights' scales
    E, L, H, G, d, F = 256, 2, 8, 8, 32, 512
    out.append(("gpt2-opt", "gpt2", 25, dict(E=E, L=L, H=H, G=G, d=d, F=F, eps=1e-6, base=1e4, window=0,
        keys=[("attention.layer_norm_epsilon", "f32", 1e-5)]),
        [("attn_norm.weight", [E]), ("attn_norm.bias", [E])] + wsb("attn_qkv", E, 3 * E) + wsb("attn_output", E, E) +
        [("ffn_norm.weight", [E]), ("ffn_norm.bias", [E])] + wsb("ffn_up", E, F, scale=False) + wsb("ffn_down", F, E, scale=False),
        [("token_embd.weight", [E, 512]), ("position_embd.weight", [E, 512]), ("output_norm.weight", [E]), ("output_norm.bias", [E]),
         ("output.weight", [E, 512])]))
    # phi3 with q, k, v apart instead of fused, with their scales
    E, L, H, G, d, F = 256, 2, 8, 2, 32, 256
    out.append(("phi3-opt", "phi3", 26, dict(E=E, L=L, H=H, G=G, d=d, F=F, eps=1e-5, base=1e4, window=0, keys=[]),
        [("attn_norm.weight", [E])] + wsb("attn_q", E, H * d, bias=False) + wsb("attn_k", E, G * d, bias=False) +
        wsb("attn_v", E, G * d, bias=False) + wsb("attn_output", H * d, E, bias=False) +
        [("ffn_norm.weight", [E]), ("ffn_up.weight", [E, 2 * F]), ("ffn_down.weight", [F, E])],
        [("token_embd.weight", [E, 512]), ("output_norm.weight", [E]), ("output.weight", [E, 512])]))
    # llama experts sized by feed_forward_length (expert_feed_forward_length 0), with scales per expert
    E, L, H, G, d, F, X, K = 256, 2, 8, 2, 32, 256, 4, 2
    out.append(("llama-moe-opt", "llama", 27, dict(E=E, L=L, H=H, G=G, d=d, F=F, eps=1e-5, base=1e4, window=0, X=X, K=K,
        keys=[("expert_feed_forward_length", "u32", 0)]),
        [("attn_norm.weight", [E]), ("attn_q.weight", [E, H * d]), ("attn_k.weight", [E, G * d]),
         ("attn_v.weight", [E, G * d]), ("attn_output.weight", [H * d, E]), ("ffn_norm.weight", [E]),
         ("ffn_gate_inp.weight", [E, X]), ("ffn_gate_exps.weight", [E, F, X]), ("ffn_up_exps.weight", [E, F, X]),
         ("ffn_down_exps.weight", [F, E, X]), ("ffn_gate_exps.scale", [X]), ("ffn_up_exps.scale", [X]), ("ffn_down_exps.scale", [X]),
         ("ffn_up_exps.input_scale", [X])],
        [("token_embd.weight", [E, 512]), ("output_norm.weight", [E]), ("output.weight", [E, 512])]))
    # qwen3moe with expert_gating_func 0 (its graph always takes the softmax), scales per expert
    E, L, H, G, d, F, X, K, Fe = 256, 2, 8, 2, 64, 768, 8, 2, 256
    out.append(("qwen3moe-opt", "qwen3moe", 28, dict(E=E, L=L, H=H, G=G, d=d, F=F, eps=1e-6, base=1e6, window=0, X=X, K=K, Fe=Fe,
        keys=[("expert_gating_func", "u32", 0)]),
        [("attn_norm.weight", [E]), ("attn_q.weight", [E, H * d]), ("attn_k.weight", [E, G * d]),
         ("attn_v.weight", [E, G * d]), ("attn_q_norm.weight", [d]), ("attn_k_norm.weight", [d]),
         ("attn_output.weight", [H * d, E]), ("ffn_norm.weight", [E]), ("ffn_gate_inp.weight", [E, X]),
         ("ffn_gate_exps.weight", [E, Fe, X]), ("ffn_up_exps.weight", [E, Fe, X]), ("ffn_down_exps.weight", [Fe, E, X]),
         ("ffn_gate_exps.scale", [X]), ("ffn_up_exps.scale", [X]), ("ffn_down_exps.scale", [X])],
        [("token_embd.weight", [E, 512]), ("output_norm.weight", [E]), ("output.weight", [E, 512])]))
    # smollm3: llama whose every fourth layer has no RoPE (layer 3 of 4 here), with
    # the optional tensors its graph reads (q/k/v biases, attention scales)
    E, L, H, G, d, F = dims(256, 4, 8, 2, 32, 256)
    out.append(("smollm3", "smollm3", 29, dict(E=E, L=L, H=H, G=G, d=d, F=F, eps=1e-6, base=1e4, window=0, keys=[]),
        [("attn_norm.weight", [E])] + wsb("attn_q", E, H * d) + wsb("attn_k", E, G * d) + wsb("attn_v", E, G * d) +
        wsb("attn_output", H * d, E, bias=False) +
        [("ffn_norm.weight", [E]), ("ffn_gate.weight", [E, F]), ("ffn_up.weight", [E, F]), ("ffn_down.weight", [F, E])],
        [("token_embd.weight", [E, 512]), ("output_norm.weight", [E]), ("output.weight", [E, 512])]))
    # mistral3: llama with YaRN (factor 4, its betas and log multiplier, an
    # attention factor) and the attention temperature, whose floor is the
    # original context (16: positions 16 and 32 step the scale); the optional
    # tensors of the llama graph
    E, L, H, G, d, F = dims(256, 3, 8, 2, 32, 256)
    out.append(("mistral3", "mistral3", 30, dict(E=E, L=L, H=H, G=G, d=d, F=F, eps=1e-5, base=1e4, window=0,
        keys=[("rope.scaling.type", "str", "yarn"), ("rope.scaling.factor", "f32", 4.0),
              ("rope.scaling.original_context_length", "u32", 16), ("rope.scaling.yarn_beta_fast", "f32", 1.0),
              ("rope.scaling.yarn_beta_slow", "f32", 0.25), ("rope.scaling.yarn_log_multiplier", "f32", 0.7),
              ("rope.scaling.attn_factor", "f32", 0.9), ("attention.temperature_scale", "f32", 0.5)]),
        [("attn_norm.weight", [E])] + wsb("attn_q", E, H * d) + wsb("attn_k", E, G * d) + wsb("attn_v", E, G * d) +
        wsb("attn_output", H * d, E) + [("ffn_norm.weight", [E])] + wsb("ffn_gate", E, F) + wsb("ffn_up", E, F) + wsb("ffn_down", F, E),
        [("token_embd.weight", [E, 512]), ("output_norm.weight", [E]), ("output.weight", [E, 512]), ("rope_freqs.weight", [d // 2])]))
    # glm4: fused attn_qkv with its bias and scale, RoPE on half of each head
    # (rope.dimension_count 16 of 32, adjacent pairs), post-attention and
    # post-FFN norms, fused gate+up, tied output
    E, L, H, G, d, F = dims(256, 3, 8, 2, 32, 256)
    out.append(("glm4", "glm4", 31, dict(E=E, L=L, H=H, G=G, d=d, F=F, eps=1e-5, base=1e4, window=0,
        keys=[("rope.dimension_count", "u32", d // 2)]),
        [("attn_norm.weight", [E])] + wsb("attn_qkv", E, H * d + 2 * G * d) + wsb("attn_output", H * d, E, bias=False) +
        [("post_attention_norm.weight", [E]), ("ffn_norm.weight", [E]), ("ffn_up.weight", [E, 2 * F]), ("ffn_down.weight", [F, E]),
         ("post_ffw_norm.weight", [E])],
        [("token_embd.weight", [E, 512]), ("output_norm.weight", [E])]))
    # gpt-oss: attention sinks, q/k/v/o biases, a window of 16 on even layers
    # (the sequence is 32 long), YaRN (factor 4 over 128 positions) and its own
    # base on the window layers, 4 experts top-2 with router and expert biases,
    # the clamped SwiGLU (gate/up biases drawn wide so that some values pass
    # the clamp at 7), softmax of the two chosen logits
    E, L, H, G, d, F, X, K, Fe = dims(256, 4, 8, 2, 32, 128, 4, 2, 128)
    out.append(("gpt-oss", "gpt-oss", 30, dict(E=E, L=L, H=H, G=G, d=d, F=F, eps=1e-5, base=1e4, window=window(16), X=X, K=K, Fe=Fe,
        keys=[("rope.scaling.type", "str", "yarn"), ("rope.scaling.factor", "f32", 4.0),
              ("rope.scaling.original_context_length", "u32", 128), ("rope.freq_base_swa", "f32", 5000.0)]),
        [("attn_norm.weight", [E])] + wsb("attn_q", E, H * d, scale=False) + wsb("attn_k", E, G * d, scale=False) +
        wsb("attn_v", E, G * d, scale=False) + wsb("attn_output", H * d, E, scale=False) +
        [("attn_sinks.weight", [H]), ("post_attention_norm.weight", [E]), ("ffn_gate_inp.weight", [E, X]), ("ffn_gate_inp.bias", [X]),
         ("ffn_gate_exps.weight", [E, Fe, X]), ("ffn_gate_exps.bias", [Fe, X]), ("ffn_up_exps.weight", [E, Fe, X]),
         ("ffn_up_exps.bias", [Fe, X]), ("ffn_down_exps.weight", [Fe, E, X]), ("ffn_down_exps.bias", [E, X])],
        [("token_embd.weight", [E, 512]), ("output_norm.weight", [E]), ("output.weight", [E, 512])]))
    # glm4moe: block 0 dense (leading_dense_block_count 1), blocks 1-2 with 4
    # experts top-2 (sigmoid router, exp_probs_b selection bias, weights
    # normalised and scaled by 2.5) and a shared expert; block 3 a
    # multi-token-prediction block (nextn_predict_layers 1: loaded, not run);
    # q/k/v biases and the attention weights' scales; q and k norms on block 1,
    # the k norm alone on block 2; NeoX RoPE on 16 of 32 dims; untied output;
    # expert_gating_func absent (llama.cpp: sigmoid)
    E, L, H, G, d, F, X, K, Fe = dims(256, 4, 8, 2, 32, 256, 4, 2, 128)
    attn = [("attn_norm.weight", [E])] + wsb("attn_q", E, H * d) + wsb("attn_k", E, G * d) + wsb("attn_v", E, G * d) + \
        wsb("attn_output", H * d, E, bias=False)
    moe = [("post_attention_norm.weight", [E]), ("ffn_gate_inp.weight", [E, X]), ("exp_probs_b.bias", [X]),
           ("ffn_gate_exps.weight", [E, Fe, X]), ("ffn_up_exps.weight", [E, Fe, X]), ("ffn_down_exps.weight", [Fe, E, X]),
           ("ffn_gate_shexp.weight", [E, Fe]), ("ffn_up_shexp.weight", [E, Fe]), ("ffn_down_shexp.weight", [Fe, E])]
    dense = [("post_attention_norm.weight", [E]), ("ffn_gate.weight", [E, F]), ("ffn_up.weight", [E, F]), ("ffn_down.weight", [F, E])]
    qk = [("attn_q_norm.weight", [d]), ("attn_k_norm.weight", [d])]
    mtp = [(n, s) for n, s in attn + qk + moe if not n.endswith(".scale")] + [
        ("nextn.eh_proj.weight", [2 * E, E]), ("nextn.enorm.weight", [E]), ("nextn.hnorm.weight", [E]),
        ("nextn.embed_tokens.weight", [E, 512]), ("nextn.shared_head_head.weight", [E, 512]), ("nextn.shared_head_norm.weight", [E])]
    out.append(("glm4moe", "glm4moe", 32, dict(E=E, L=L, H=H, G=G, d=d, F=F, eps=1e-5, base=1e4, window=0, X=X, K=K, Fe=Fe,
        keys=[("rope.dimension_count", "u32", d // 2), ("expert_shared_count", "u32", 1), ("leading_dense_block_count", "u32", 1),
              ("expert_weights_scale", "f32", 2.5), ("expert_weights_norm", "bool", True), ("nextn_predict_layers", "u32", 1)]),
        lambda il, L=L: attn + dense if il == 0 else mtp if il == L - 1 else attn + qk + moe if il == 1 else attn + qk[1:] + moe,
        [("token_embd.weight", [E, 512]), ("output_norm.weight", [E]), ("output.weight", [E, 512])]))
    # glm4-nextn: glm4's file with a fourth block, a multi-token-prediction
    # block (nextn_predict_layers 1: llama.cpp loads it and does not run it):
    # glm4's block tensors without scales, and the nextn tensors
    E, L, H, G, d, F = 256, 4, 8, 2, 32, 256
    g4 = [("attn_norm.weight", [E])] + wsb("attn_qkv", E, H * d + 2 * G * d) + wsb("attn_output", H * d, E, bias=False) + \
        [("post_attention_norm.weight", [E]), ("ffn_norm.weight", [E]), ("ffn_up.weight", [E, 2 * F]), ("ffn_down.weight", [F, E]),
         ("post_ffw_norm.weight", [E])]
    g4_mtp = [(n, s) for n, s in g4 if not n.endswith(".scale")] + [
        ("nextn.eh_proj.weight", [2 * E, E]), ("nextn.enorm.weight", [E]), ("nextn.hnorm.weight", [E]),
        ("nextn.embed_tokens.weight", [E, 512]), ("nextn.shared_head_head.weight", [E, 512]), ("nextn.shared_head_norm.weight", [E])]
    out.append(("glm4-nextn", "glm4", 33, dict(E=E, L=L, H=H, G=G, d=d, F=F, eps=1e-5, base=1e4, window=0,
        keys=[("rope.dimension_count", "u32", 16), ("nextn_predict_layers", "u32", 1)]),
        lambda il, g4=g4, g4_mtp=g4_mtp: g4 if il < 3 else g4_mtp,
        [("token_embd.weight", [E, 512]), ("output_norm.weight", [E])]))
    # deepseek2 (multi-head latent attention): q through the low rank 64 with
    # its norm, kv latent 64 with a 32-dim RoPE part shared by the 4 heads
    # (key_length 96 = 64 + 32 and value_length 64: the cached head), q heads
    # of 32 + 32, value heads of 32; YaRN (factor 4 over 16 positions, log
    # multiplier 0.0707 as converters write 0.1 x mscale_all_dim); one leading
    # dense layer, then 4 experts top-2 with sigmoid gating, the selection
    # bias exp_probs_b (drawn wide, as routers), weights normalised and scaled
    # by 2.5, and a shared expert. Layer tensors marked "<" are the dense
    # layers' (il < leading_dense_block_count), ">" the others'.
    # (--size: q and kv ranks of 2 x the head, q heads of d + d, value heads of d)
    E, L, H, _, d, F, X, K, Fe = dims(256, 3, 4, 1, 32, 256, 4, 2, 64)
    Lq, R, n, r, dv = 2 * d, 2 * d, d, d, d
    out.append(("deepseek2", "deepseek2", 32, dict(E=E, L=L, H=H, G=1, d=0, F=F, eps=1e-6, base=1e4, window=0, X=X, K=K, Fe=Fe, lead=1,
        keys=[("attention.key_length", "u32", R + r), ("attention.value_length", "u32", R), ("rope.dimension_count", "u32", r),
              ("attention.q_lora_rank", "u32", Lq), ("attention.kv_lora_rank", "u32", R),
              ("attention.key_length_mla", "u32", n + r), ("attention.value_length_mla", "u32", dv),
              ("leading_dense_block_count", "u32", 1), ("expert_shared_count", "u32", 1),
              ("expert_weights_scale", "f32", 2.5), ("expert_weights_norm", "bool", True), ("expert_gating_func", "u32", 2),
              ("rope.scaling.type", "str", "yarn"), ("rope.scaling.factor", "f32", 4.0),
              ("rope.scaling.original_context_length", "u32", 16), ("rope.scaling.yarn_log_multiplier", "f32", 0.0707)]),
        [("attn_norm.weight", [E]), ("attn_q_a.weight", [E, Lq]), ("attn_q_a_norm.weight", [Lq]), ("attn_q_b.weight", [Lq, H * (n + r)]),
         ("attn_kv_a_mqa.weight", [E, R + r]), ("attn_kv_a_norm.weight", [R]), ("attn_k_b.weight", [n, R, H]),
         ("attn_v_b.weight", [R, dv, H]), ("attn_output.weight", [H * dv, E]), ("ffn_norm.weight", [E]),
         ("<ffn_gate.weight", [E, F]), ("<ffn_up.weight", [E, F]), ("<ffn_down.weight", [F, E]),
         (">ffn_gate_inp.weight", [E, X]), (">exp_probs_b.bias", [X]), (">ffn_gate_exps.weight", [E, Fe, X]),
         (">ffn_up_exps.weight", [E, Fe, X]), (">ffn_down_exps.weight", [Fe, E, X]), (">ffn_gate_shexp.weight", [E, Fe]),
         (">ffn_up_shexp.weight", [E, Fe]), (">ffn_down_shexp.weight", [Fe, E])],
        [("token_embd.weight", [E, 512]), ("output_norm.weight", [E]), ("output.weight", [E, 512])]))
    # deepseek2 as the Lite files: q_lora_rank 0 (a plain attn_q), no YaRN,
    # expert_gating_func and expert_weights_norm absent (softmax, no norm), no
    # exp_probs_b; 1 dense layer then 1 MoE layer with 2 shared experts
    E, L, H, F, X, K, Fe, R, n, r, dv = 256, 2, 4, 256, 4, 2, 64, 64, 32, 32, 32
    out.append(("deepseek2-lite", "deepseek2", 33, dict(E=E, L=L, H=H, G=1, d=0, F=F, eps=1e-6, base=1e4, window=0, X=X, K=K, Fe=Fe, lead=1,
        keys=[("attention.key_length", "u32", R + r), ("attention.value_length", "u32", R), ("rope.dimension_count", "u32", r),
              ("attention.q_lora_rank", "u32", 0), ("attention.kv_lora_rank", "u32", R),
              ("attention.key_length_mla", "u32", n + r), ("attention.value_length_mla", "u32", dv),
              ("leading_dense_block_count", "u32", 1), ("expert_shared_count", "u32", 2)]),
        [("attn_norm.weight", [E]), ("attn_q.weight", [E, H * (n + r)]),
         ("attn_kv_a_mqa.weight", [E, R + r]), ("attn_kv_a_norm.weight", [R]), ("attn_k_b.weight", [n, R, H]),
         ("attn_v_b.weight", [R, dv, H]), ("attn_output.weight", [H * dv, E]), ("ffn_norm.weight", [E]),
         ("<ffn_gate.weight", [E, F]), ("<ffn_up.weight", [E, F]), ("<ffn_down.weight", [F, E]),
         (">ffn_gate_inp.weight", [E, X]), (">ffn_gate_exps.weight", [E, Fe, X]),
         (">ffn_up_exps.weight", [E, Fe, X]), (">ffn_down_exps.weight", [Fe, E, X]), (">ffn_gate_shexp.weight", [E, 2 * Fe]),
         (">ffn_up_shexp.weight", [E, 2 * Fe]), (">ffn_down_shexp.weight", [2 * Fe, E])],
        [("token_embd.weight", [E, 512]), ("output_norm.weight", [E]), ("output.weight", [E, 512])]))
    # deepseek2 with the published files' latent head: kv_lora_rank 512 + 64
    # RoPE dims = 576 cached values per token and layer (past the 512 of other
    # heads), q heads of 64 + 64, value heads of 64, 2 heads
    E, L, H, F, X, K, Fe, Lq, R, n, r, dv = 256, 2, 2, 256, 4, 2, 64, 64, 512, 64, 64, 64
    out.append(("deepseek2-576", "deepseek2", 34, dict(E=E, L=L, H=H, G=1, d=0, F=F, eps=1e-6, base=1e4, window=0, X=X, K=K, Fe=Fe, lead=1,
        keys=[("attention.key_length", "u32", R + r), ("attention.value_length", "u32", R), ("rope.dimension_count", "u32", r),
              ("attention.q_lora_rank", "u32", Lq), ("attention.kv_lora_rank", "u32", R),
              ("attention.key_length_mla", "u32", n + r), ("attention.value_length_mla", "u32", dv),
              ("leading_dense_block_count", "u32", 1), ("expert_shared_count", "u32", 1), ("expert_weights_norm", "bool", True)]),
        [("attn_norm.weight", [E]), ("attn_q_a.weight", [E, Lq]), ("attn_q_a_norm.weight", [Lq]), ("attn_q_b.weight", [Lq, H * (n + r)]),
         ("attn_kv_a_mqa.weight", [E, R + r]), ("attn_kv_a_norm.weight", [R]), ("attn_k_b.weight", [n, R, H]),
         ("attn_v_b.weight", [R, dv, H]), ("attn_output.weight", [H * dv, E]), ("ffn_norm.weight", [E]),
         ("<ffn_gate.weight", [E, F]), ("<ffn_up.weight", [E, F]), ("<ffn_down.weight", [F, E]),
         (">ffn_gate_inp.weight", [E, X]), (">ffn_gate_exps.weight", [E, Fe, X]),
         (">ffn_up_exps.weight", [E, Fe, X]), (">ffn_down_exps.weight", [Fe, E, X]), (">ffn_gate_shexp.weight", [E, Fe]),
         (">ffn_up_shexp.weight", [E, Fe]), (">ffn_down_shexp.weight", [Fe, E])],
        [("token_embd.weight", [E, 512]), ("output_norm.weight", [E]), ("output.weight", [E, 512])]))
    # gemma4: window 8 on layers 0, 1, 2, 4 (the pattern array), full attention
    # on 3 and 5 with rope_freqs, base 1e6 and all 64 dims rotated; window
    # layers base 5000 over 32 dims (rope.dimension_count_swa); the last 2
    # layers reuse the KV of layers 2 (window) and 3 (full) and hold no K, V;
    # layer 1 has no attn_v (V = the K projection); V RMS-normed without
    # weight; attention scale 1; per-layer embeddings of 32 per layer; a
    # scalar layer_output_scale; final soft-cap 30; tied output
    # (--size: full attention on the third-last and last layers, the last 2 shared)
    E, L, H, G, d, F = dims(256, 6, 4, 2, 64, 512)
    P = 32
    out.append(("gemma4", "gemma4", 32, dict(E=E, L=L, H=H, G=G, d=d, F=F, eps=1e-6, base=1e6, window=window(8),
        keys=[("attention.sliding_window_pattern", "bools", [0 if il in (L - 3, L - 1) else 1 for il in range(L)]),
              ("attention.shared_kv_layers", "u32", 2),
              ("attention.key_length_swa", "u32", d), ("attention.value_length_swa", "u32", d),
              ("rope.dimension_count", "u32", d), ("rope.dimension_count_swa", "u32", 32), ("rope.freq_base_swa", "f32", 5000.0),
              ("embedding_length_per_layer_input", "u32", P), ("final_logit_softcapping", "f32", 30.0)],
        drop={"attn_k.weight": [L - 2, L - 1], "attn_k_norm.weight": [L - 2, L - 1], "attn_v.weight": [1, L - 2, L - 1]}),
        [("attn_norm.weight", [E]), ("attn_q.weight", [E, H * d]), ("attn_k.weight", [E, G * d]), ("attn_v.weight", [E, G * d]),
         ("attn_q_norm.weight", [d]), ("attn_k_norm.weight", [d]), ("attn_output.weight", [H * d, E]),
         ("post_attention_norm.weight", [E]), ("ffn_norm.weight", [E]), ("ffn_gate.weight", [E, F]), ("ffn_up.weight", [E, F]),
         ("ffn_down.weight", [F, E]), ("post_ffw_norm.weight", [E]), ("inp_gate.weight", [E, P]), ("proj.weight", [P, E]),
         ("post_norm.weight", [E]), ("layer_output_scale.weight", [1])],
        [("token_embd.weight", [E, 512]), ("output_norm.weight", [E]), ("rope_freqs.weight", [d // 2]),
         ("per_layer_token_embd.weight", [P * L, 512]), ("per_layer_model_proj.weight", [E, P * L]),
         ("per_layer_proj_norm.weight", [P])]))
    # gemma4-sizes: gemma4 with the published files' per-layer sizes: window
    # layers (0, 1, 2, 4) have 4 KV heads of 32 (key_length_swa), full layers
    # (3, 5) 1 KV head of 64 (key_length; attention.head_count_kv an array),
    # window layers rotate 16 of their 32 dims; the last 2 layers reuse the
    # KV of layers 2 and 3 and have an FFN of 512 against 256 (feed_forward_length
    # an array, as use_double_wide_mlp writes it); layer 1 has no attn_v. The
    # full layers' cache rows (64 values) are narrower than the window layers'
    # (128), as in the 31B file (16 x 256 against 4 x 512)
    E, L, H, P, dF, dS, GF, GS = 256, 6, 4, 32, 64, 32, 1, 4
    pat = [1, 1, 1, 0, 1, 0]
    Fs = [256, 256, 256, 256, 512, 512]
    def g4s_layer(il, E=E, H=H, P=P, pat=pat, Fs=Fs, dF=dF, dS=dS, GF=GF, GS=GS):   # bound now: specs() reuses names
        d, G, F = (dS, GS, Fs[il]) if pat[il] else (dF, GF, Fs[il])
        return [("attn_norm.weight", [E]), ("attn_q.weight", [E, H * d]), ("attn_k.weight", [E, G * d]), ("attn_v.weight", [E, G * d]),
                ("attn_q_norm.weight", [d]), ("attn_k_norm.weight", [d]), ("attn_output.weight", [H * d, E]),
                ("post_attention_norm.weight", [E]), ("ffn_norm.weight", [E]), ("ffn_gate.weight", [E, F]), ("ffn_up.weight", [E, F]),
                ("ffn_down.weight", [F, E]), ("post_ffw_norm.weight", [E]), ("inp_gate.weight", [E, P]), ("proj.weight", [P, E]),
                ("post_norm.weight", [E]), ("layer_output_scale.weight", [1])]
    out.append(("gemma4-sizes", "gemma4", 35, dict(E=E, L=L, H=H, G=GS, d=dF, F=Fs[0], eps=1e-6, base=1e6, window=8,
        keys=[("attention.head_count_kv", "i32s", [GS if w else GF for w in pat]), ("feed_forward_length", "i32s", Fs),
              ("attention.sliding_window_pattern", "bools", pat), ("attention.shared_kv_layers", "u32", 2),
              ("attention.key_length_swa", "u32", dS), ("attention.value_length_swa", "u32", dS),
              ("rope.dimension_count", "u32", dF), ("rope.dimension_count_swa", "u32", 16), ("rope.freq_base_swa", "f32", 5000.0),
              ("embedding_length_per_layer_input", "u32", P), ("final_logit_softcapping", "f32", 30.0)],
        drop={"attn_k.weight": [L - 2, L - 1], "attn_k_norm.weight": [L - 2, L - 1], "attn_v.weight": [1, L - 2, L - 1]}),
        g4s_layer,
        [("token_embd.weight", [E, 512]), ("output_norm.weight", [E]), ("rope_freqs.weight", [dF // 2]),
         ("per_layer_token_embd.weight", [P * L, 512]), ("per_layer_model_proj.weight", [E, P * L]),
         ("per_layer_proj_norm.weight", [P])]))
    # gemma4's MoE variant: 4 experts of 128, top 2, beside the dense FFN in
    # layers 1-3 (layer 0 has no router: dense only), the router on
    # RMSNorm(x) / sqrt(E) * ffn_gate_inp.scale, per-expert down scales;
    # window 8 on layers 0, 2; no per-layer embeddings, no shared KV
    E, L, H, G, d, F, X, K, Fe = 256, 4, 4, 2, 64, 256, 4, 2, 128
    exp = ["ffn_gate_inp.weight", "ffn_gate_inp.scale", "pre_ffw_norm_2.weight", "post_ffw_norm_1.weight", "post_ffw_norm_2.weight",
           "ffn_gate_exps.weight", "ffn_up_exps.weight", "ffn_down_exps.weight", "ffn_down_exps.scale"]
    out.append(("gemma4-moe", "gemma4", 33, dict(E=E, L=L, H=H, G=G, d=d, F=F, eps=1e-6, base=1e6, window=8, X=X, K=K, Fe=Fe,
        keys=[("attention.sliding_window_pattern", "bools", [1, 0, 1, 0]), ("attention.key_length_swa", "u32", d),
              ("attention.value_length_swa", "u32", d), ("embedding_length_per_layer_input", "u32", 0)],
        drop={n: [0] for n in exp}),
        [("attn_norm.weight", [E]), ("attn_q.weight", [E, H * d]), ("attn_k.weight", [E, G * d]), ("attn_v.weight", [E, G * d]),
         ("attn_q_norm.weight", [d]), ("attn_k_norm.weight", [d]), ("attn_output.weight", [H * d, E]),
         ("post_attention_norm.weight", [E]), ("ffn_norm.weight", [E]), ("ffn_gate.weight", [E, F]), ("ffn_up.weight", [E, F]),
         ("ffn_down.weight", [F, E]), ("post_ffw_norm.weight", [E]), ("ffn_gate_inp.weight", [E, X]), ("ffn_gate_inp.scale", [E]),
         ("pre_ffw_norm_2.weight", [E]), ("post_ffw_norm_1.weight", [E]), ("post_ffw_norm_2.weight", [E]),
         ("ffn_gate_exps.weight", [E, Fe, X]), ("ffn_up_exps.weight", [E, Fe, X]), ("ffn_down_exps.weight", [Fe, E, X]),
         ("ffn_down_exps.scale", [X]), ("layer_output_scale.weight", [1])],
        [("token_embd.weight", [E, 512]), ("output_norm.weight", [E]), ("rope_freqs.weight", [d // 2])]))
    # llama4: chunked attention on the RoPE layers 0-2 (llama.cpp's chunk of
    # 8192; the sequence is run at positions 8176.. so that it crosses a
    # chunk boundary, tools/gen_arch_refs.cpp's GEN_POS0), layer 3 without
    # RoPE, full attention and the attention temperature, the L2 norm of q
    # and k on the RoPE layers, rope.freq_base_swa for the chunked layers,
    # attention.sliding_window 16 (its value is not read); experts on every
    # second layer (4 of 256, top-2, the sigmoid of the chosen logits
    # scaling each expert's input) with a shared expert, dense FFNs on the
    # others; q/k/v biases, attention scales, an input scale, rope_freqs
    E, L, H, G, d, F, X, K, Fe = dims(256, 4, 8, 2, 32, 256, 4, 2, 256)
    out.append(("llama4", "llama4", 32, dict(E=E, L=L, H=H, G=G, d=d, F=F, eps=1e-5, base=1e4, window=16, X=X, K=K, Fe=Fe, step=2,
        keys=[("interleave_moe_layer_step", "u32", 2), ("rope.freq_base_swa", "f32", 5000.0)]),
        [("attn_norm.weight", [E])] + wsb("attn_q", E, H * d, in_scale=True) + wsb("attn_k", E, G * d) + wsb("attn_v", E, G * d) +
        wsb("attn_output", H * d, E, bias=False) +
        [("ffn_norm.weight", [E]), ("ffn_gate.weight", [E, F]), ("ffn_up.weight", [E, F]), ("ffn_down.weight", [F, E]),
         ("ffn_gate_inp.weight", [E, X]), ("ffn_gate_exps.weight", [E, Fe, X]), ("ffn_up_exps.weight", [E, Fe, X]),
         ("ffn_down_exps.weight", [Fe, E, X]), ("ffn_gate_shexp.weight", [E, Fe]), ("ffn_up_shexp.weight", [E, Fe]),
         ("ffn_down_shexp.weight", [Fe, E])],
        [("token_embd.weight", [E, 512]), ("output_norm.weight", [E]), ("output.weight", [E, 512]), ("rope_freqs.weight", [d // 2])]))
    # lfm2 (dense, no window): short-conv layers 0, 1, 3, 5 (head_count_kv
    # entry 0) and attention layers 2, 4 (2 KV heads of 32, q/k RMS norms);
    # a conv layer: in_proj [E, 3E] -> B, C, x; B x through the causal
    # depthwise conv of shortconv.l_cache 3 taps ([3, E], drawn as v),
    # times C, out_proj [E, E]; the output norm is token_embd_norm; tied
    # output; head size n_embd / n_head (no key_length, as the converter)
    E, L, H, G, F, K = 256, 6, 8, 2, 512, 3
    kinds = [0, 0, 1, 0, 1, 0]   # 1: attention
    def lfm2_layer(il, E=E, H=H, G=G, F=F, K=K, kinds=kinds):   # bound now: specs() reuses names
        d = E // H
        mix = ([("attn_q.weight", [E, H * d]), ("attn_k.weight", [E, G * d]), ("attn_v.weight", [E, G * d]),
                ("attn_q_norm.weight", [d]), ("attn_k_norm.weight", [d]), ("attn_output.weight", [H * d, E])] if kinds[il] else
               [("shortconv.conv.weight", [K, E]), ("shortconv.in_proj.weight", [E, 3 * E]), ("shortconv.out_proj.weight", [E, E])])
        return [("attn_norm.weight", [E])] + mix + [("ffn_norm.weight", [E]), ("ffn_gate.weight", [E, F]), ("ffn_up.weight", [E, F]),
                                                   ("ffn_down.weight", [F, E])]
    out.append(("lfm2", "lfm2", 38, dict(E=E, L=L, H=H, G=G, d=0, F=F, eps=1e-5, base=1e6, window=0,
        keys=[("attention.head_count_kv", "i32s", [G if k else 0 for k in kinds]), ("shortconv.l_cache", "u32", K)]),
        lfm2_layer,
        [("token_embd.weight", [E, 512]), ("token_embd_norm.weight", [E])]))
    # mamba2: 4 Mamba 2 layers, no attention, no FFN (head_count 0,
    # feed_forward_length 0, as the converter writes them); ssm.inner_size 512
    # = 8 heads (time_step_rank) of 64 in 2 groups of B, C (group_count) of
    # state_size 32; conv_kernel 4 over xBC (512 + 2 * 2 * 32 = 640 channels);
    # in_proj [E, 2 * 512 + 2 * 2 * 32 + 8] -> z, xBC, dt; ssm_norm grouped
    # [512 / 2, 2]; untied output
    E, L, Di, N, Hs, Gs, K = 256, 4, 512, 32, 8, 2, 4
    if SIZE:   # --size: a published Mamba 2's proportions (head 64, state 128, one group)
        E, L, Di, N, Hs, Gs = SIZES[SIZE]["E"], SIZES[SIZE]["L"], 2 * SIZES[SIZE]["E"], 128, 2 * SIZES[SIZE]["E"] // 64, 1
    C = Di + 2 * Gs * N
    out.append(("mamba2", "mamba2", 40, dict(E=E, L=L, H=0, G=0, d=0, F=0, eps=1e-5, base=1e4, window=0,
        keys=[("ssm.conv_kernel", "u32", K), ("ssm.inner_size", "u32", Di), ("ssm.state_size", "u32", N),
              ("ssm.time_step_rank", "u32", Hs), ("ssm.group_count", "u32", Gs)]),
        [("attn_norm.weight", [E]), ("ssm_in.weight", [E, Di + C + Hs]), ("ssm_conv1d.weight", [K, C]), ("ssm_conv1d.bias", [C]),
         ("ssm_dt.bias", [Hs]), ("ssm_a", [1, Hs]), ("ssm_d", [1, Hs]), ("ssm_norm.weight", [Di // Gs, Gs]), ("ssm_out.weight", [Di, E])],
        [("token_embd.weight", [E, 512]), ("output_norm.weight", [E]), ("output.weight", [E, 512])]))
    # granitehybrid (dense): Mamba 2 layers 0, 2, 3 (head_count_kv entry 0)
    # and an attention layer 1 (8 heads, 2 KV heads of 32); ssm.inner_size
    # 512 = 2 E (llama.cpp's only expansion) = 16 heads of 32, 1 group of
    # state_size 16, conv_kernel 4; granite's scalars: embedding_scale 0.5,
    # residual_scale 2, attention.scale 0.125, logit_scale 6 (the published
    # files have 12 and 0.22: with these random weights the embedding then
    # outweighs the layers and the greedy text repeats its last token);
    # SwiGLU FFN of 512 on every layer; tied output; seed 42 (41's greedy
    # text is fine too)
    E, L, H, G, d, F, Di, N, Hs, Gs, K = 256, 4, 8, 2, 32, 512, 512, 16, 16, 1, 4
    gkinds = [0, 1, 0, 0]   # 1: attention
    if SIZE:   # --size: Granite 4.0-H's proportions (one attention layer in 4, head 64, state 128, one group)
        E, L, H, G, d, F = dims(E, L, H, G, d, F)
        Di, N, Hs = 2 * E, 128, 2 * E // 64
        gkinds = [1 if il % 4 == 3 else 0 for il in range(L)]
    C = Di + 2 * Gs * N
    def granite_layer(il, E=E, H=H, G=G, d=d, F=F, Di=Di, N=N, Hs=Hs, Gs=Gs, K=K, C=C, kinds=gkinds):
        mix = ([("attn_q.weight", [E, H * d]), ("attn_k.weight", [E, G * d]), ("attn_v.weight", [E, G * d]),
                ("attn_output.weight", [H * d, E])] if kinds[il] else
               [("ssm_in.weight", [E, Di + C + Hs]), ("ssm_conv1d.weight", [K, C]), ("ssm_conv1d.bias", [C]), ("ssm_dt.bias", [Hs]),
                ("ssm_a", [1, Hs]), ("ssm_d", [1, Hs]), ("ssm_norm.weight", [Di // Gs, Gs]), ("ssm_out.weight", [Di, E])])
        return [("attn_norm.weight", [E])] + mix + [("ffn_norm.weight", [E]), ("ffn_gate.weight", [E, F]), ("ffn_up.weight", [E, F]),
                                                   ("ffn_down.weight", [F, E])]
    out.append(("granitehybrid", "granitehybrid", 42, dict(E=E, L=L, H=H, G=G, d=d, F=F, eps=1e-5, base=1e4, window=0,
        keys=[("attention.head_count_kv", "i32s", [G if k else 0 for k in gkinds]), ("ssm.conv_kernel", "u32", K),
              ("ssm.inner_size", "u32", Di), ("ssm.state_size", "u32", N), ("ssm.time_step_rank", "u32", Hs),
              ("ssm.group_count", "u32", Gs), ("embedding_scale", "f32", 0.5), ("residual_scale", "f32", 2.0),
              ("attention.scale", "f32", 0.125), ("logit_scale", "f32", 6.0)]),
        granite_layer,
        [("token_embd.weight", [E, 512]), ("output_norm.weight", [E])]))
    # granitehybrid-nope: the same with rope.scaling.finetuned false, as the
    # converter writes Granite 4.0-H's files (no RoPE on any layer); F32 only
    if not SIZE:
        out.append(("granitehybrid-nope", "granitehybrid", 43, dict(out[-1][3], keys=out[-1][3]["keys"] + [("rope.scaling.finetuned", "bool", False)]),
            granite_layer, [("token_embd.weight", [E, 512]), ("output_norm.weight", [E])]))
    # qwen35 (issue 33): gated delta-net layers 0, 1, 3, 4 and gated full
    # attention layers 2, 5 (full_attention_interval 3, not the default 4);
    # a delta-net layer: attn_qkv [E, 2 Dk + Dv] through the causal
    # depthwise conv of ssm.conv_kernel 4 taps (ssm_conv1d [4, 2 Dk + Dv],
    # drawn as v), attn_gate (z) [E, Dv], ssm_alpha / ssm_beta [E, Hv],
    # ssm_dt.bias and ssm_a [Hv] (ssm_a drawn as v - 0.5: negative, as the
    # converter's -exp(A_log)), ssm_norm [Sv], ssm_out [Dv, E]; 2 k heads
    # (ssm.group_count) of 32 (ssm.state_size), 4 v heads (ssm.time_step_rank),
    # so a v head's k head is h % 2 (llama.cpp's repeat), not h / 2; an
    # attention layer: attn_q [E, 2 H d] (each head's q then its gate), q/k
    # RMS norms, 2 KV heads of 64, rope.dimension_count 16 of 64 (partial)
    # in rope.dimension_sections [3, 3, 2, 0] (imrope: every pair a text
    # position); post_attention_norm before the FFN; tied output
    E, L, H, G, d, F, K, Sk, Gk, Hv = 256, 6, 4, 2, 64, 512, 4, 32, 2, 4
    R, SEC = 16, [3, 3, 2, 0]   # rope.dimension_count and its imrope sections
    if SIZE:   # --size: Qwen3.5-0.8B's proportions (8 heads of 256, 64 dims rotated in [11, 11, 10]; 16 + 16 delta-net heads of 128)
        E, L, H, G, d, F, K, Sk, Gk, Hv = SIZES[SIZE]["E"], SIZES[SIZE]["L"], 8, 2, 256, 3584, 4, 128, 16, 16
        R, SEC = 64, [11, 11, 10, 0]
    def qwen35_layer(il, E=E, H=H, G=G, d=d, F=F, K=K, Sk=Sk, Gk=Gk, Hv=Hv):
        Dk, Dv = Sk * Gk, Sk * Hv
        mix = ([("attn_q.weight", [E, 2 * H * d]), ("attn_k.weight", [E, G * d]), ("attn_v.weight", [E, G * d]),
                ("attn_q_norm.weight", [d]), ("attn_k_norm.weight", [d]), ("attn_output.weight", [H * d, E])] if (il + 1) % 3 == 0 else
               [("attn_qkv.weight", [E, 2 * Dk + Dv]), ("attn_gate.weight", [E, Dv]), ("ssm_conv1d.weight", [K, 2 * Dk + Dv]),
                ("ssm_dt.bias", [Hv]), ("ssm_a", [Hv]), ("ssm_beta.weight", [E, Hv]), ("ssm_alpha.weight", [E, Hv]),
                ("ssm_norm.weight", [Sk]), ("ssm_out.weight", [Dv, E])])
        return [("attn_norm.weight", [E])] + mix + [("post_attention_norm.weight", [E]), ("ffn_gate.weight", [E, F]),
                                                   ("ffn_up.weight", [E, F]), ("ffn_down.weight", [F, E])]
    out.append(("qwen35", "qwen35", 39, dict(E=E, L=L, H=H, G=G, d=d, F=F, eps=1e-6, base=1e7, window=0,
        keys=[("full_attention_interval", "u32", 3), ("rope.dimension_count", "u32", R), ("rope.dimension_sections", "i32s", SEC),
              ("ssm.conv_kernel", "u32", K), ("ssm.state_size", "u32", Sk), ("ssm.group_count", "u32", Gk),
              ("ssm.time_step_rank", "u32", Hv), ("ssm.inner_size", "u32", Sk * Hv)]),
        qwen35_layer,
        [("token_embd.weight", [E, 512]), ("output_norm.weight", [E])]))
    # qwen35-nextn: qwen35's file with a seventh block, a multi-token-prediction
    # block (nextn_predict_layers 1: an attention block, as layer 5, and the
    # nextn tensors eh_proj, enorm, hnorm, shared_head_norm; llama.cpp loads
    # it and does not run it)
    q35_mtp = qwen35_layer(5) + [("nextn.eh_proj.weight", [2 * E, E]), ("nextn.enorm.weight", [E]), ("nextn.hnorm.weight", [E]),
                                 ("nextn.shared_head_norm.weight", [E])]
    out.append(("qwen35-nextn", "qwen35", 41, dict(E=E, L=L + 1, H=H, G=G, d=d, F=F, eps=1e-6, base=1e7, window=0,
        keys=[("full_attention_interval", "u32", 3), ("rope.dimension_count", "u32", 16), ("rope.dimension_sections", "i32s", [3, 3, 2, 0]),
              ("ssm.conv_kernel", "u32", K), ("ssm.state_size", "u32", Sk), ("ssm.group_count", "u32", Gk),
              ("ssm.time_step_rank", "u32", Hv), ("ssm.inner_size", "u32", Sk * Hv), ("nextn_predict_layers", "u32", 1)]),
        lambda il, L=L, q35_mtp=q35_mtp, qwen35_layer=qwen35_layer: q35_mtp if il == L else qwen35_layer(il),
        [("token_embd.weight", [E, 512]), ("output_norm.weight", [E])]))
    # qwen35moe: qwen35's layers (the same delta-net and gated attention
    # layers) with experts in place of the dense FFN: 4 experts of 128,
    # top 2 (softmax, normalised), and a shared expert of 192
    # (expert_shared_feed_forward_length) gated by sigmoid(ffn_gate_inp_shexp
    # . x) in every layer (llama.cpp's loader requires it)
    X, Kx, Fe, Fs = 4, 2, 128, 192
    def qwen35moe_layer(il, X=X, Fe=Fe, Fs=Fs, E=E):
        base = [t for t in qwen35_layer(il) if not t[0].startswith("ffn_")]
        sh = [("ffn_gate_inp_shexp.weight", [E]), ("ffn_gate_shexp.weight", [E, Fs]), ("ffn_up_shexp.weight", [E, Fs]),
              ("ffn_down_shexp.weight", [Fs, E])]
        return base + [("ffn_gate_inp.weight", [E, X]), ("ffn_gate_exps.weight", [E, Fe, X]), ("ffn_up_exps.weight", [E, Fe, X]),
                       ("ffn_down_exps.weight", [Fe, E, X])] + sh
    out.append(("qwen35moe", "qwen35moe", 40, dict(E=E, L=L, H=H, G=G, d=d, F=F, eps=1e-6, base=1e7, window=0, X=X, K=Kx, Fe=Fe,
        keys=[("full_attention_interval", "u32", 3), ("rope.dimension_count", "u32", 16), ("rope.dimension_sections", "i32s", [3, 3, 2, 0]),
              ("ssm.conv_kernel", "u32", K), ("ssm.state_size", "u32", Sk), ("ssm.group_count", "u32", Gk),
              ("ssm.time_step_rank", "u32", Hv), ("ssm.inner_size", "u32", Sk * Hv), ("expert_shared_feed_forward_length", "u32", Fs)]),
        qwen35moe_layer,
        [("token_embd.weight", [E, 512]), ("output_norm.weight", [E])]))
    return out

def in_layer(name, il, hp):   # "<": only the leading dense layers; ">": only the others
    lead = hp.get("lead", 0)
    return name[1:] if (name[0] == "<" and il < lead) or (name[0] == ">" and il >= lead) else name if name[0] not in "<>" else None

# with hp["step"] (interleaved experts): layer il has the expert tensors when
# (il + 1) % step == 0, the dense FFN (ffn_gate/up/down) otherwise
def on_layer(hp, il, name):
    if not hp.get("step"):
        return True
    moe = (il + 1) % hp["step"] == 0
    expert = "_exps." in name or "_shexp." in name or name.startswith("ffn_gate_inp.")
    dense = name.split(".")[0] in ("ffn_gate", "ffn_up", "ffn_down")
    return (expert or not dense) if moe else not expert

def main():
    global SIZE
    if sys.argv[1] == "--size":   # --size NAME LLAMA_CPP_DIR STORIES OUT_DIR LABEL...
        SIZE = sys.argv[2]
        if SIZE not in SIZES: sys.exit("gen_arch_fixtures: --size: one of " + ", ".join(SIZES))
        del sys.argv[1:3]
    if sys.argv[1] == "--hash":   # --hash LLAMA_CPP_DIR LABEL FILE: "<label> <name> <type> <fnv1a-64 of the data>"
        sys.path.insert(0, sys.argv[2] + "/gguf-py")
        import gguf
        for t in gguf.GGUFReader(sys.argv[4]).tensors:
            print(sys.argv[3], t.name, t.tensor_type.name, "%016x" % fnv1a64(bytes(t.data.tobytes())))
        return
    lcpp, stories, out_dir = sys.argv[1:4]
    only = sys.argv[4:]
    sys.path.insert(0, lcpp + "/gguf-py")
    import gguf
    r = gguf.GGUFReader(stories)
    tok = {f.name: f for f in r.fields.values() if f.name.startswith("tokenizer.")}
    only = sys.argv[4:]   # labels to write (default: all)
    for label, arch, seed, hp, layer, glob in specs():
        if only and label not in only: continue
        w = gguf.GGUFWriter(f"{out_dir}/{label}-{SIZE}-F32.gguf" if SIZE else f"{out_dir}/{label}-F32.gguf", arch)
        w.add_uint32(f"{arch}.context_length", SIZES[SIZE]["ctx"] if SIZE else 512)
        w.add_uint32(f"{arch}.embedding_length", hp["E"])
        w.add_uint32(f"{arch}.block_count", hp["L"])
        given = [k[0] for k in hp.get("keys", [])]   # per-layer arrays among the keys replace F, G
        if "feed_forward_length" not in given: w.add_uint32(f"{arch}.feed_forward_length", hp["F"])
        w.add_uint32(f"{arch}.attention.head_count", hp["H"])
        if "attention.head_count_kv" not in given: w.add_uint32(f"{arch}.attention.head_count_kv", hp["G"])
        if hp["d"]:   # 0: given among the keys
            w.add_uint32(f"{arch}.attention.key_length", hp["d"])
            w.add_uint32(f"{arch}.attention.value_length", hp["d"])
        w.add_float32(f"{arch}.attention.layer_norm_rms_epsilon", hp["eps"])
        w.add_float32(f"{arch}.rope.freq_base", hp["base"])
        if hp["window"]:
            w.add_uint32(f"{arch}.attention.sliding_window", hp["window"])
        if hp.get("X"):
            w.add_uint32(f"{arch}.expert_count", hp["X"])
            w.add_uint32(f"{arch}.expert_used_count", hp["K"])
            if hp.get("Fe"):
                w.add_uint32(f"{arch}.expert_feed_forward_length", hp["Fe"])
        for sfx, kind, v in hp.get("keys", []):
            k = f"{arch}.{sfx}"
            if kind == "str": w.add_string(k, v)
            elif kind == "f32": w.add_float32(k, v)
            elif kind == "u32": w.add_uint32(k, v)
            elif kind == "i32s": w.add_array(k, [int(x) for x in v])
            elif kind == "bool": w.add_bool(k, v)
            elif kind == "bools": w.add_array(k, [bool(x) for x in v])
        w.add_uint32("general.file_type", 0)
        for name, f in tok.items():   # copy the vocabulary verbatim, same value types
            t = f.types[0]
            if t == gguf.GGUFValueType.ARRAY:
                et = f.types[1]
                if et == gguf.GGUFValueType.STRING:
                    vals = [bytes(f.parts[i]).decode("utf-8") for i in f.data]
                else:
                    vals = [f.parts[i][0].item() for i in f.data]
                w.add_key_value(name, vals, t, sub_type=et)
            elif t == gguf.GGUFValueType.STRING:
                w.add_key_value(name, bytes(f.parts[f.data[0]]).decode("utf-8"), t)
            else:
                w.add_key_value(name, f.parts[f.data[0]][0].item(), t)
        drop = hp.get("drop", {})
        names = [(n, s) for n, s in glob] + [(f"blk.{il}.{in_layer(n, il, hp)}", s) for il in range(hp["L"])
                                             for n, s in (layer(il) if callable(layer) else layer)
                                             if in_layer(n, il, hp) and on_layer(hp, il, in_layer(n, il, hp))
                                             and il not in drop.get(in_layer(n, il, hp), [])]
        for name, shape in names:
            n = int(np.prod(shape))
            a = values(name, seed, n, unit(name), router(name) or wide(name))
            if wide(name):
                a = a * np.float32(16.0)
            if negative(name, arch):
                a = values(name, seed, n, True) * np.float32(-1.0)
            elif name.endswith(".ssm_a"):   # qwen35's -exp(A_log): negative, in [-1, 0)
                a = a - np.float32(0.5)
            a = a.reshape(list(reversed(shape)))
            w.add_tensor(name, a)
            if not SIZE: print(label + "-F32", name, "F32", "%016x" % fnv1a64(a.tobytes()))
        if SIZE:
            print("%s-%s-F32: %.1fM parameters" % (label, SIZE, sum(int(np.prod(sh)) for _, sh in names) / 1e6), file=sys.stderr)
        w.write_header_to_file()
        w.write_kv_data_to_file()
        w.write_tensors_to_file()
        w.close()

if __name__ == "__main__":
    main()
