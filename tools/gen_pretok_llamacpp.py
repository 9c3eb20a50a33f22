#!/usr/bin/env python3
"""Token ids from llama.cpp's own tokenizer for every pre-tokenizer name.

    python3 tools/gen_pretok_llamacpp.py > tests/data/pretok_llamacpp.txt

Needs llama.cpp 0c1e570's tree and its llama-tokenize (tools/llamacpp.sh
builds both; $LLMKIT_CACHE, default ~/.cache/llmkit). For each name that
llama.cpp's llama_vocab::impl::load knows as tokenizer.ggml.pre, a
vocab-only GGUF is written with gguf-py: a vocabulary of the tree
(models/ggml-vocab-gpt-2.gguf, byte-level; models/ggml-vocab-gemma-4.gguf
with tokenizer.ggml.model = gpt2 for the pre-tokenizers that work on raw
UTF-8) with tokenizer.ggml.pre set to the name. llama-tokenize (BOS as the
vocabulary says, special tokens not parsed) then tokenizes each text below:
multilingual, code, emoji, white space and numbers, and random strings over
interesting codepoints. tests/test_tokenizer.c rebuilds the same GGUFs from
the tree and compares llmkit's ids.
Lines: "T <index> <text as UTF-8 hex>" once per text, then
"V <pre> <base vocab> <index> <ids, comma-separated>", or "X <pre> <base vocab>
<index>" where llama-tokenize aborts (pre "whitespace" on a run of white space).

A vocabulary trained with other splits hides many split differences (no
merge crosses them), so the word splits themselves are compared too:
tools/gen_pretok_splits.cpp runs llama.cpp's own unicode_regex_split
(libllama) with each pre-tokenizer's regexes, read from llama-vocab.cpp
(llm_tokenizer_bpe's switch, and the name -> type chain of
llama_vocab::impl::load), on the same texts: "W <pre> <index> <word lengths
in codepoints>". --splits prints only those (no llama-tokenize runs).
"""
import os
import random
import re
import subprocess
import sys
import tempfile

CACHE = os.environ.get("LLMKIT_CACHE") or os.path.expanduser("~/.cache/llmkit")
TREE = os.path.join(CACHE, "llama.cpp-0c1e570")
sys.path.insert(0, os.path.join(TREE, "gguf-py"))
import gguf  # noqa: E402

TOKENIZE = os.path.join(TREE, "build", "bin", "llama-tokenize")
# the pre-tokenizers that split raw UTF-8 (byte_encode = false in llama.cpp)
RAW = {"gemma4", "granite-embed-multi-311m", "sarvam-moe", "whitespace"}

TEXTS = [
    "Hello world! \u00c7a va? Gr\u00fc\u00dfe aus M\u00fcnchen. \u041f\u0440\u0438\u0432\u0435\u0442, \u043c\u0438\u0440! "
    "\u4f60\u597d\uff0c\u4e16\u754c\u3002\u3053\u3093\u306b\u3061\u306f\u3001\u4e16\u754c\uff01\uc548\ub155\ud558\uc138\uc694 "
    "\uc138\uacc4. \u0645\u0631\u062d\u0628\u0627 \u0628\u0627\u0644\u0639\u0627\u0644\u0645. "
    "\u0928\u092e\u0938\u094d\u0924\u0947 \u0926\u0941\u0928\u093f\u092f\u093e\u0964 \u0393\u03b5\u03b9\u03ac \u03c3\u03bf\u03c5 "
    "\u0e2a\u0e27\u0e31\u0e2a\u0e14\u0e35 \u1796\u17b7\u1797\u1796\u179b\u17c4\u1780 \u3105\u3106\u3107 \u3131\u3134 \uff71\uff72\uff73",
    "def f(x):\n    return x**2 + 1234567 // 89\n\n\nif __name__ == '__main__':\n\tprint(f\"{f(3):>10}\")  # done\r\n"
    "int main(void) { return a->b[i++] <= c && d != e; } /* x */ // y\n<|endoftext|> <s> </s>",
    "\U0001f999\U0001f525 llama.cpp \u2764\ufe0f \U0001f468\u200d\U0001f469\u200d\U0001f467 ok \U0001f44d\U0001f3fd ... "
    "\U0001f1eb\U0001f1f7 \u00a9\u00ae\u2122 \u2192\u2190 \u20ac100 \u00bd \u2460\u2461",
    "I'm you'RE they'll 'S 'x HelloWORLD fooBAR \u00c0\u00c9\u00e9X don't O'Neil \u0130stanbul'da McDonald's "
    "iPhone XMLHttpRequest camelCaseWord ALLCAPS 's 'T 'Ll",
    "1 12 123 1234 12345 123456 1234567 12345678901 \u0661\u0662\u0663\u0664 \u2460\u2461 3.14159 1,000,000 x2y34z567 "
    "007 0000 v1.2.3-rc4 2026-11-29T03:00Z",
    "a  b   c    d\t\t\n\n\n   e \u3000 f\u00a0g\n \n  \n" + " " * 20 + "h" + " " * 9 + "\n\n" + "\t " * 6 + "z   ",
    " " * 700 + "x" + " " * 300 + "\n" + " " * 130 + "y" + " " * 64,
    "\u00e9 (e\u0301) n\u0303 \u0915\u094d\u0937\u0924\u094d\u0930\u093f\u092f \ufb01 \u01c4 \u01c5 \u01c6 a\u0308\u0301b "
    "\u05e9\u05b8\u05c1\u05dc\u05d5\u05b9\u05dd \u0e01\u0e34\u0e19",
    "\n", "\n\n\n", "   ", "", "<sentinel:12> IMGIMGABZ \u4e2d\u6587\u5b57 \u00b5\u0100 \uff21\uff22\uff01",
]
ALPHA = ([ord(c) for c in "abcXYZ019'sStTrReEvVmMlLdD .,!?$+<=>^~|`-_()[]{}@#%&*/\\:;\"\t\n\r"] +
         [0xA0, 0x3000, 0x2003, 0x85, 0xE9, 0xC9, 0xDF, 0x3B1, 0x416, 0x5D0, 0x627, 0x4E2D, 0x6587, 0xAC00, 0xD55C,
          0x3042, 0x30A2, 0x301, 0x308, 0x2026, 0x3002, 0xFF0C, 0x3001, 0x964, 0x6D4, 0x60C, 0x2014, 0x201C, 0xA9,
          0x20AC, 0x2192, 0x1F600, 0x1F44D, 0xB2, 0xBD, 0x663, 0x2160, 0xFF11, 0xFFFD, 0xAD, 0x200D, 0x3105, 0x3131,
          0xE40, 0x1780, 0x1000, 0xFF65, 0x2F00, 0x3400, 0x20000, 0xF900, 0x8C48, 0x212A, 0x130])


SPLITS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "build", "gen_pretok_splits")


def c_strings(block):
    """the C string literals of a block of C++ source, unescaped"""
    out = []
    for lit in re.findall(r'"((?:[^"\\\n]|\\.)*)"', block):
        t, i = "", 0
        while i < len(lit):
            if lit[i] == "\\":
                t += {"n": "\n", "r": "\r", "t": "\t"}.get(lit[i + 1], lit[i + 1])
                i += 2
            else:
                t += lit[i]
                i += 1
        out.append(t)
    return out


def regexes_by_name():
    """tokenizer.ggml.pre name -> its list of regexes, as llama-vocab.cpp has them"""
    src = open(os.path.join(TREE, "src", "llama-vocab.cpp"), encoding="utf-8").read()
    src = "\n".join(ln for ln in src.split("\n") if not ln.lstrip().startswith("//"))
    ctor = src[src.index("struct llm_tokenizer_bpe : llm_tokenizer"):]
    ctor = ctor[:ctor.index("std::vector<std::string> regex_exprs;")]
    by_type, pending = {}, []
    for m in re.finditer(r"case (LLAMA_VOCAB_PRE_TYPE_\w+):|default:|regex_exprs = \{(.*?)\};", ctor, re.S):
        if m.group(1):
            pending.append(m.group(1))
        elif m.group(0) == "default:":
            pending.append("LLAMA_VOCAB_PRE_TYPE_DEFAULT")
        else:
            for t in pending:
                by_type[t] = c_strings(m.group(2))
            pending = []
    load = src[src.index("} else if (tokenizer_pre == \"default\") {"):src.index("unknown pre-tokenizer type")]
    out = {}
    for chunk in re.split(r"\} else if \(", load):
        t = re.search(r"pre_type = (LLAMA_VOCAB_PRE_TYPE_\w+);", chunk)
        for name in re.findall(r'tokenizer_pre == "([^"]*)"', chunk):
            out[name] = by_type[t.group(1)]
    return out


def names():
    src = open(os.path.join(TREE, "src", "llama-vocab.cpp"), encoding="utf-8").read()
    return sorted(set(re.findall(r'tokenizer_pre == "([^"]*)"', src)))


def write_vocab(base, pre, path):
    r = gguf.GGUFReader(os.path.join(TREE, "models", "ggml-vocab-%s.gguf" % base))
    w = gguf.GGUFWriter(path, arch=str(r.fields["general.architecture"].contents()))
    for key, f in r.fields.items():
        if key.startswith("GGUF.") or key in ("general.architecture", "tokenizer.ggml.pre", "tokenizer.ggml.model"):
            continue
        vt = f.types[0]
        val = f.contents()
        if vt == gguf.GGUFValueType.ARRAY:
            w.add_key_value(key, val, vt, sub_type=f.types[-1])
        else:
            w.add_key_value(key, val, vt)
    w.add_string("tokenizer.ggml.model", "gpt2")
    w.add_string("tokenizer.ggml.pre", pre)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


def tokenize(path, text, tmp):
    tf = os.path.join(tmp, "text")
    with open(tf, "wb") as f:
        f.write(text.encode("utf-8"))
    out = subprocess.run([TOKENIZE, "-m", path, "-f", tf, "--ids", "--no-parse-special", "--no-escape", "--log-disable"],
                         capture_output=True, check=True).stdout.decode()
    line = [ln for ln in out.splitlines() if ln.startswith("[")][-1]
    return [int(t) for t in line.strip("[]").split(",") if t.strip()]


def splits(texts):
    rx = regexes_by_name()
    assert sorted(rx) == names(), "names and regex lists disagree"
    p = subprocess.Popen([SPLITS], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    for pre in names():
        p.stdin.write("R " + " ".join(r.encode("utf-8").hex() for r in rx[pre]) + "\n")
        for i, t in enumerate(texts):
            p.stdin.write("S " + (t.encode("utf-8").hex() or "00") + "\n")
            p.stdin.flush()
            lens = p.stdout.readline().strip()
            print("W", pre, i, "-" if not t else lens)
    p.stdin.close()
    p.wait()


def main():
    rnd = random.Random(20261129)
    texts = list(TEXTS)
    for _ in range(10):
        texts.append("".join(chr(rnd.choice(ALPHA)) for _ in range(rnd.randint(4, 40))))
    if sys.argv[1:] == ["--splits"]:
        splits(texts)
        return
    print("# made by tools/gen_pretok_llamacpp.py with llama.cpp 0c1e570's llama-tokenize")
    for i, t in enumerate(texts):
        print("T", i, t.encode("utf-8").hex())
    splits(texts)
    with tempfile.TemporaryDirectory() as tmp:
        for pre in names():
            base = "gemma-4" if pre in RAW else "gpt-2"
            path = os.path.join(tmp, "v.gguf")
            write_vocab(base, pre, path)
            for i, t in enumerate(texts):
                if len(t) > 400:   # the long white space runs: their word splits (W lines) suffice
                    continue
                try:
                    ids = tokenize(path, t, tmp)
                except subprocess.CalledProcessError:   # llama.cpp aborts (whitespace: a BPE merge over ' ')
                    print("X", pre, base, i)
                    continue
                print("V", pre, base, i, ",".join(str(x) for x in ids) or "-")
            sys.stdout.flush()


main()
