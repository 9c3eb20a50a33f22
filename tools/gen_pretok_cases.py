#!/usr/bin/env python3
"""Reference word splits for llmkit's BPE pre-tokenizers.

    python3 tools/gen_pretok_cases.py > tests/data/pretok_cases.txt

For each pre-tokenizer, random strings over an alphabet of interesting
codepoints are split the way llama.cpp (c392e5094; \\p{S} as in 0c1e570) splits them, computed
independently of llmkit with Python's regex engine:
  * patterns with \\p{..} run on llama.cpp's "collapsed" text (ASCII kept,
    other white space -> 0x0B, other codepoints -> one byte per category,
    \\p{X} -> that byte plus llama.cpp's ASCII members), as unicode_regex_split
    does with std::regex;
  * patterns without \\p{..} run on the codepoints (non-ASCII white space ->
    0x0B), as it does with std::wregex;
  * the GPT-2 and LLAMA3 patterns, which llama.cpp runs through hand-written
    splitters, run as the original regexes with Unicode properties (the
    `regex` module) -- the behaviour those splitters implement.
\\s is spelled out as C's isspace set (what std::regex uses), not Python's.
Each line: <pre> <text as UTF-8 hex> <word lengths in codepoints, comma-separated>
"""
import random
import re
import unicodedata

import regex

WS = set(range(9, 14)) | {32, 0x85, 0xA0, 0x1680, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000} | set(range(0x2000, 0x200B))
S = "\t\n\x0b\x0c\r "
CN = "\xd10-9"
CL = "\xd2A-Za-z"
CP = "\xd3!-#%-*,-/:-;?-@\\[-\\]_\\{\\}"
CS = "\xd5\\$\\+<->\\^`\\|~"   # llama.cpp 0c1e570 lists ~ in \p{S}
# deepseek-llm's letter class, as written in llama.cpp's pattern
DSL = "A-Za-zµÀ-ÖØ-öø-ƺƼ-ƿǄ-ʓʕ-ʯͰ-ͳͶͷͻ-ͽͿΆΈ-ΊΌΎ-ΡΣ-ϵϷ-ҁҊ-ԯԱ-ՖႠ-ჅᎠ-Ᏽᏸ-ᏽᲐ-ᲺᲽ-Ჿᴀ-ᴫᵫ-ᵷᵹ-ᶚḀ-ἕἘ-Ἕἠ-ὅὈ-Ὅὐ-ὗὙὛὝὟ-ώᾀ-ᾴᾶ-ᾼιῂ-ῄῆ-ῌῐ-ΐῖ-Ίῠ-Ῥῲ-ῴῶ-ῼℂℇℊ-ℓℕℙ-ℝℤΩℨK-ℭℯ-ℴℹℼ-ℿⅅ-ⅉⅎↃↄⰀ-ⱻⱾ-ⳤⳫ-ⳮⳲⳳꙀ-ꙭꚀ-ꚛꜢ-ꝯꝱ-ꞇꞋ-ꞎꭰ-ꮿﬀ-ﬆﬓ-ﬗＡ-Ｚａ-ｚ𐐀-𐑏𐒰-𐓓𐓘-𐓻𐲀-𐲲𐳀-𐳲𑢠-𑣟𞤀-𞥃"


def collapse(c):
    if c < 128:
        return chr(c)
    if c in WS:
        return "\x0b"
    g = unicodedata.category(chr(c))[0]
    return {"N": "\xd1", "L": "\xd2", "P": "\xd3", "M": "\xd4", "S": "\xd5"}.get(g, "\xd0")


def wide(c):
    return "\x0b" if c > 0x7F and c in WS else chr(c)


ULS = "".join(chr(c) for c in sorted(WS))
UWS = "[" + re.escape(ULS) + "]"
UNWS = "[^" + re.escape(ULS) + "]"
PASS = {
    "punct_run": ("c", "[" + CP + "\\$\\+<=>\\^~\\|]+"),
    "punct_run_falcon": ("c", "[" + CP + "\\$\\+<=>\\^~\\|`]+"),
    "num_run": ("c", "[" + CN + "]+"),
    "num1": ("c", "[" + CN + "]"),
    "sp_letters": ("c", "[" + S + "]?[" + CL + "]+"),
    "sp_punct": ("c", "[" + S + "]?[" + CP + "]+"),
    "qwen2": ("c", "(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\\r\\n" + CL + CN + "]?[" + CL + "]+|[" + CN +
              "]| ?[^" + S + CL + CN + "]+[\\r\\n]*|[" + S + "]*[\\r\\n]+|[" + S + "]+(?![^" + S + "])|[" + S + "]+"),
    "crlf": ("w", "[\\r\\n]"),
    "digit3": ("w", "[0-9][0-9][0-9]"),
    "cjk": ("w", "[\u4e00-\u9fa5\u0800-\u4e00\uac00-\ud7ff]+"),
    "poro": ("w", " ?[^(" + S + "|.,!?\u2026\u3002\uff0c\u3001\u0964\u06d4\u060c)]+"),
    "dsl_letters": ("w", "[" + S + "]?[" + DSL + "]+"),
    "dsl_punct": ("w", "[" + S + "]?[!-/:-~\uff01-\uff0f\uff1a-\uff5e\u2018-\u201f\u3000-\u3002]+"),
    "trail_ws": ("w", "[" + S + "]+\\Z"),   # std::regex $ = end of the range only
    "num3": ("c", "[" + CN + "]{1,3}"),
    "cjk_kana": ("w", "[\u4e00-\u9fa5\u3040-\u309f\u30a0-\u30ff]+"),
    "ds3": ("c", "[!\"#$%&'()*+,\\-./:;<=>?@\\[\\\\\\]^_`{|}~][A-Za-z]+|[^\\r\\n" + CL + CP + CS + "]?[" + CL + "\xd4]+| ?[" +
            CP + CS + "]+[\\r\\n]*|[" + S + "]*[\\r\\n]+|[" + S + "]+(?![^" + S + "])|[" + S + "]+"),
    "sentinel": ("w", "<sentinel:[0-9]+>"),
    "img": ("w", "(IMGIMG)((A|B|C|D|E|F|G|H|I){1,4})Z"),
    "tabsp": ("w", "([\t\n]|    |  )"),
    "punct1": ("c", "[" + CP + "!-/:-@\\[-`{-~]"),
    "tekken": ("c", "[^\\r\\n" + CL + CN + "]?((?=[" + CL + "])([^a-z]))*((?=[" + CL + "])([^A-Z]))+|[^\\r\\n" + CL + CN +
               "]?((?=[" + CL + "])([^a-z]))+((?=[" + CL + "])([^A-Z]))*|[" + CN + "]| ?[^" + S + CL + CN + "]+[\\r\\n/]*|[" +
               S + "]*[\\r\\n]+|[" + S + "]+(?![^" + S + "])|[" + S + "]+"),
    "gpt2": ("u", "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?(?:(?!" + UWS + ")[^\\p{L}\\p{N}])+|" + UWS + "+(?!" + UNWS + ")|" + UWS + "+"),
    "llama3": ("u", "(?i:'s|'t|'re|'ve|'m|'ll|'d)|(?:(?![\\r\\n])[^\\p{L}\\p{N}])?\\p{L}+|\\p{N}{1,3}| ?(?:(?!" + UWS +
               ")[^\\p{L}\\p{N}])+[\\r\\n]*|" + UWS + "*[\\r\\n]+|" + UWS + "+(?!" + UNWS + ")|" + UWS + "+"),
}
PRE = {
    "default": ["punct_run", "gpt2", "num_run", "digit3"],
    "llama3": ["llama3"],
    "deepseek-coder": ["crlf", "sp_letters", "sp_punct", "cjk", "num1"],
    "falcon": ["punct_run_falcon", "gpt2", "digit3"],
    "gpt2": ["gpt2"],
    "starcoder": ["num1", "gpt2"],
    "qwen2": ["qwen2"],
    "poro": ["poro"],
    "viking": ["poro", "num1"],
    "deepseek-llm": ["crlf", "dsl_letters", "dsl_punct", "trail_ws", "cjk", "num_run"],
    "deepseek-v3": ["num3", "cjk_kana", "ds3"],
    "chameleon": ["sentinel", "img", "tabsp", "num1", "punct1", "gpt2"],
    "tekken": ["tekken"],
}


def split(cps, passes):
    segs = [len(cps)]
    for name in passes:
        mode, pat = PASS[name]
        rx = regex.compile(pat) if mode == "u" else re.compile(pat)
        out, start = [], 0
        for n in segs:
            part = cps[start:start + n]
            if mode == "c":
                s = "".join(collapse(c) for c in part)
            elif mode == "w":
                s = "".join(wide(c) for c in part)
            else:
                s = "".join(chr(c) for c in part)
            prev = 0
            for m in rx.finditer(s):
                assert m.end() > m.start()
                if m.start() > prev:
                    out.append(m.start() - prev)
                out.append(m.end() - m.start())
                prev = m.end()
            if prev < n:
                out.append(n - prev)
            start += n
        segs = out
    return segs


ALPHA = ([ord(c) for c in "abcXYZ019'sStTrReEvVmMlLdD .,!?$+<=>^~|`-_()[]{}@#%&*/\\:;\"\t\n\r\x0b\x0cIMGZ<>"] +
         [0xA0, 0x3000, 0x2003, 0x85, 0xE9, 0xC9, 0xDF, 0x3B1, 0x416, 0x5D0, 0x627, 0x4E2D, 0x6587, 0xAC00, 0xD55C,
          0x3042, 0x30A2, 0x301, 0x308, 0x2026, 0x3002, 0xFF0C, 0x3001, 0x964, 0x6D4, 0x60C, 0x2014, 0x201C, 0xA9,
          0x20AC, 0x2192, 0x1F600, 0x1F44D, 0xB2, 0xBD, 0x663, 0x2160, 0xFF11, 0xFFFD, 0x7F, 0x1, 0xAD, 0x200D,
          0xE000, 0x9FA5, 0x9FA6, 0x800, 0xD7FF, 0xB5, 0x100, 0x561, 0x1E00, 0xFF21, 0xFF01, 0xFF1A, 0x2018, 0x3040, 0x30FF,
          0x212A, 0x1F0])


def main():
    rnd = random.Random(20261122)
    fixed = ["Hello world", "  lead", "trail  ", "a  b\t\tc\n\n d", "I'm you'RE they'll 'S 'x", "123456789 12345",
             "x\r\n\r\n  y", "\u00e9t\u00e9 na\u00efve caf\u00e9", "\u4e2d\u6587\u5b57 \ud55c\uad6d\uc5b4", "$$+<=>^~|``",
             "..., !!! ???", "   ", "\n", "e\u0301\u0308x", "\u3000\u3000a\u00a0b", "<sentinel:123>x<sentinel:>",
             "IMGIMGABZ IMGIMGABCDEZ IMGIMGAAAAZ IMGIMGZ", "a    b  c   d\t\n e", "HelloWORLDfooBAR \u00c0\u00c9\u00e9X",
             "abcDEF/\n/x", "\uff01\uff1a\u2018\u3001 \u3042\u30a2\u4e00", "x \t\n ", "\u00b5\u0100\u0561 \u1e00\uff21"]
    for pre, passes in PRE.items():
        cases = [[ord(c) for c in t] for t in fixed]
        for _ in range(120):
            n = rnd.randint(1, 24)
            cases.append([rnd.choice(ALPHA) for _ in range(n)])
        for cps in cases:
            segs = split(cps, passes)
            assert sum(segs) == len(cps)
            text = "".join(chr(c) for c in cps).encode("utf-8").hex()
            print(pre, text, ",".join(str(s) for s in segs))


main()
