// gen_pretok_splits: word splits by llama.cpp's own pre-tokenizer code
// (unicode_regex_split, exported by libllama 0c1e570), for
// tools/gen_pretok_llamacpp.py. Reads lines from stdin:
//   R <hex> <hex> ...   the regexes of one pre-tokenizer (UTF-8 hex), in order
//   S <hex>             a text (UTF-8 hex): prints its word lengths in codepoints,
//                       comma-separated (empty words, from zero-width matches, left out)
// Build (tools/llamacpp.sh has built libllama):
//   B=$(tools/llamacpp.sh --dir); c++ -O1 tools/gen_pretok_splits.cpp -o build/gen_pretok_splits \
//     -L$B/bin -Wl,-rpath,$B/bin -lllama
#include <cstdio>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

// llama.cpp's src/unicode.h declares it so
std::vector<std::string> unicode_regex_split(const std::string & text, const std::vector<std::string> & regex_exprs, bool byte_encode);

static std::string unhex(const std::string & h) {
    std::string s;
    for (size_t i = 0; i + 1 < h.size(); i += 2) s += (char) std::stoi(h.substr(i, 2), nullptr, 16);
    return s;
}

static size_t n_cpts(const std::string & w) {
    size_t n = 0;
    for (unsigned char c : w) n += (c & 0xC0) != 0x80;
    return n;
}

int main() {
    std::vector<std::string> rx;
    std::string line;
    while (std::getline(std::cin, line)) {
        std::istringstream in(line);
        std::string tag, h;
        in >> tag;
        if (tag == "R") {
            rx.clear();
            while (in >> h) rx.push_back(unhex(h));
        } else if (tag == "S") {
            in >> h;
            std::string out;
            for (const auto & w : unicode_regex_split(unhex(h), rx, false)) {
                if (w.empty()) continue;
                if (!out.empty()) out += ',';
                out += std::to_string(n_cpts(w));
            }
            std::printf("%s\n", out.empty() ? "-" : out.c_str());
            std::fflush(stdout);
        }
    }
    return 0;
}
