// gen_chat_cases.cpp - writes tests/data/chat_cases.txt, the reference for
// tests/test_chat.c: what llama.cpp's built-in chat templates render
// (llama_chat_apply_template) and which family it detects
// (llm_chat_detect_template) for every family name and for real Jinja
// templates of real models.
//
// Reference: llama.cpp 0c1e570 as vendored by llama-cpp-python 0.3.36
// (vendor/llama.cpp). Build it (only the llama library is needed), then:
//
//   L=/path/to/llama_cpp_python-0.3.36/vendor/llama.cpp
//   cmake -S $L -B $L/build && cmake --build $L/build --target llama -j2
//   g++ -std=c++17 -O1 -I$L/include -I$L/ggml/include -I$L/src tools/gen_chat_cases.cpp
//       -L$L/build/bin -lllama -lggml-base -Wl,-rpath,$L/build/bin -o /tmp/gen_chat_cases
//   /tmp/gen_chat_cases $L ~/.cache/llmkit/models/SmolLM2-135M-Instruct.Q4_1.gguf > tests/data/chat_cases.txt
//
// Inputs: the family names (llama_chat_builtin_templates), the Jinja strings
// of llama.cpp's tests/test-chat-template.cpp (real models' templates from Hugging Face,
// read out of that file's string literals), a selection of
// models/templates/*.jinja, and tokenizer.chat_template of a few GGUF files.
//
// Format (text; every byte string is length-prefixed, so templates may hold
// newlines): lines starting with '#' are comments, then records
//   conv <id> <n>                 a conversation of n messages, each:
//   msg <role_len> <content_len>  followed by a line: role bytes, content bytes
//   tmpl <id> <len> <source>      followed by a line: the template's len bytes
//   detect <tmpl> <family|->      llama.cpp's family for it ('-': unknown)
//   case <tmpl> <conv> <add_ass> <ret>   llama_chat_apply_template's return;
//                                 when ret >= 0, followed by a line: ret bytes
// Every byte string is followed by one '\n' that is not part of it.
#include "llama.h"
#include "llama-chat.h"
#include "gguf.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

struct msg { std::string role, content; };
struct tmpl { std::string text, source; bool family_name; };

static std::string read_file(const std::string & path) {
    std::ifstream f(path, std::ios::binary);
    if (!f) { fprintf(stderr, "cannot read %s\n", path.c_str()); exit(1); }
    std::stringstream ss; ss << f.rdbuf();
    return ss.str();
}

// The C string literal starting at s[i] (just after its opening quote),
// with adjacent literals concatenated. Only the escapes the file uses.
static std::string parse_literal(const std::string & s, size_t i) {
    std::string out;
    for (;;) {
        for (; i < s.size() && s[i] != '"'; i++) {
            if (s[i] != '\\') { out += s[i]; continue; }
            char e = s[++i];
            switch (e) {
            case 'n': out += '\n'; break;
            case 't': out += '\t'; break;
            case '\\': case '"': case '\'': out += e; break;
            default: fprintf(stderr, "unknown escape \\%c\n", e); exit(1);
            }
        }
        size_t j = s.find_first_not_of(" \t\r\n", i + 1);
        if (j == std::string::npos || s[j] != '"') return out;
        i = j + 1;
    }
}

// name and template_str of every test case in llama.cpp's tests/test-chat-template.cpp
static std::vector<tmpl> test_file_templates(const std::string & path) {
    std::string s = read_file(path);
    std::vector<tmpl> r;
    size_t p = s.find("std::vector<TestCase> test_cases");
    while ((p = s.find("/* .name= */", p)) != std::string::npos) {
        size_t q = s.find('"', p);
        std::string name = parse_literal(s, q + 1);
        size_t t = s.find("/* .template_str", q);
        t = s.find('"', s.find("*/", t));
        r.push_back({ parse_literal(s, t + 1), "test-chat-template.cpp:" + name, false });
        p = t;
    }
    return r;
}

static std::string gguf_template(const std::string & path) {
    gguf_init_params gp = { true, nullptr };
    gguf_context * g = gguf_init_from_file(path.c_str(), gp);
    if (!g) { fprintf(stderr, "cannot read %s\n", path.c_str()); exit(1); }
    int64_t k = gguf_find_key(g, "tokenizer.chat_template");
    if (k < 0) { fprintf(stderr, "%s has no tokenizer.chat_template\n", path.c_str()); exit(1); }
    std::string t = gguf_get_val_str(g, k);
    gguf_free(g);
    return t;
}

static void put_bytes(const std::string & b) { fwrite(b.data(), 1, b.size(), stdout); fputc('\n', stdout); }
static std::string one_word(std::string s) { for (char & c : s) if (c == ' ' || c == '\n') c = '_'; return s; }

int main(int argc, char ** argv) {
    if (argc < 3) { fprintf(stderr, "usage: %s <llama.cpp dir> <SmolLM2-135M-Instruct gguf>\n", argv[0]); return 1; }
    const std::string L = argv[1];

    // the conversations
    const std::vector<std::vector<msg>> convs = {
        { {"system", "You are a helpful assistant"}, {"user", "Hello"}, {"assistant", "Hi there"}, {"user", "Who are you"} },
        { {"user", "Hello"}, {"assistant", "  Hi there  "}, {"user", "How are you?"} },
        { {"system", "R\xc3\xa9ponds en fran\xc3\xa7" "ais \xf0\x9f\x99\x82"}, {"user", "Gr\xc3\xbc\xc3\x9f" "e, \xe4\xb8\x96\xe7\x95\x8c! \xf0\x9f\x91\x8b\xf0\x9f\x8f\xbd\n\tline two"},
          {"assistant", "\xc3\x87" "a va \xe2\x9c\x93"}, {"user", "ok"} },
        { {"system", ""}, {"user", ""}, {"assistant", ""}, {"user", ""} },
        { {"system", "  sys \t"}, {"user", " \n hi \r\n"}, {"assistant", "\x0b\x0c ok \n"}, {"user", "   "} },
        { {"system", "S1"}, {"system", "S2"}, {"user", "U"}, {"tool", "T"}, {"assistant", "A"}, {"", "E"}, {"USER", "u2"},
          {"assistant_tool_call", "[call]"}, {"function", "f"}, {"model", "m"}, {"x%ry", "%r"}, {"system", "S3"}, {"user", "last"} },
        { {"user", "Hi"} },
        { },
        { {"user", "U"}, {"assistant", "Reply42"} },
        { {"assistant", "A0"}, {"user", "U1"}, {"user", "U2"}, {"assistant", "A"} },
    };

    // the templates: family names first
    std::vector<tmpl> tmpls;
    std::vector<const char *> names(llama_chat_builtin_templates(nullptr, 0));
    llama_chat_builtin_templates(names.data(), names.size());
    std::map<int, std::string> family_of;   // llm_chat_template -> name
    for (const char * n : names) {
        tmpls.push_back({ n, std::string("family:") + n, true });
        family_of[llm_chat_template_from_str(n)] = n;
    }
    family_of[LLM_CHAT_TEMPLATE_DOTS1] = "dots1";   // detected, but llama.cpp has no name for it
    for (const tmpl & t : test_file_templates(L + "/tests/test-chat-template.cpp")) tmpls.push_back(t);
    const char * jinja_files[] = {
        "microsoft-Phi-3.5-mini-instruct", "google-gemma-2-2b-it", "llama-cpp-rwkv-world", "LFM2-8B-A1B",
        "moonshotai-Kimi-K2", "deepseek-ai-DeepSeek-R1-Distill-Llama-8B", "Qwen-Qwen2.5-7B-Instruct",
        "GLM-4.7-Flash", "meta-llama-Llama-3.2-3B-Instruct", "ibm-granite-granite-3.3-2B-Instruct",
        "Mistral-Small-3.2-24B-Instruct-2506", "MiniMax-M1",   // the last one: no family (unknown)
    };
    for (const char * f : jinja_files)
        tmpls.push_back({ read_file(L + "/models/templates/" + f + ".jinja"), std::string("models/templates/") + f + ".jinja", false });
    const char * gguf_files[] = { "ggml-vocab-phi-3", "ggml-vocab-qwen2", "ggml-vocab-command-r" };
    for (const char * f : gguf_files)
        tmpls.push_back({ gguf_template(L + "/models/" + f + ".gguf"), std::string("models/") + f + ".gguf", false });
    tmpls.push_back({ gguf_template(argv[2]), "SmolLM2-135M-Instruct.Q4_1.gguf", false });

    printf("# llmkit chat template cases: llama.cpp 0c1e570 (llama-cpp-python 0.3.36)'s\n"
           "# llama_chat_apply_template and llm_chat_detect_template. Generated by\n"
           "# tools/gen_chat_cases.cpp (format described there); do not edit.\n");
    for (size_t c = 0; c < convs.size(); c++) {
        printf("conv %zu %zu\n", c, convs[c].size());
        for (const msg & m : convs[c]) { printf("msg %zu %zu\n", m.role.size(), m.content.size()); put_bytes(m.role + m.content); }
    }
    for (size_t t = 0; t < tmpls.size(); t++) {
        printf("tmpl %zu %zu %s\n", t, tmpls[t].text.size(), one_word(tmpls[t].source).c_str());
        put_bytes(tmpls[t].text);
        llm_chat_template d = llm_chat_detect_template(tmpls[t].text);
        printf("detect %zu %s\n", t, d == LLM_CHAT_TEMPLATE_UNKNOWN ? "-" : family_of.at(d).c_str());
        for (size_t c = 0; c < convs.size(); c++) {
            for (int add = 0; add <= 1; add++) {
                // a family name gets every conversation with add_ass 1, and 0 for three of
                // them; a Jinja template, which renders as its family does, two cases
                bool want = tmpls[t].family_name ? add == 1 || c == 0 || c == 7 || c == 8
                                                 : (c == 0 && add == 1) || (c == 1 && add == 0);
                if (!want) continue;
                std::vector<llama_chat_message> cm;
                for (const msg & m : convs[c]) cm.push_back({ m.role.c_str(), m.content.c_str() });
                std::vector<char> buf(1 << 16);
                int32_t r = llama_chat_apply_template(tmpls[t].text.c_str(), cm.data(), cm.size(), add, buf.data(), (int32_t)buf.size());
                if (r >= (int32_t)buf.size()) { fprintf(stderr, "buffer too small\n"); return 1; }
                printf("case %zu %zu %d %d\n", t, c, add, r);
                if (r >= 0) put_bytes(std::string(buf.data(), (size_t)r));
            }
        }
    }
    return 0;
}
