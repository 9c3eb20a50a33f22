#!/usr/bin/env python3
"""examples/server.c against real clients: raw HTTP (http.client, sockets),
curl, and the official openai package.

    python3 tests/test_server.py [basic|openai]

Prints PASS/FAIL/SKIP lines like the C tests (tests/run.sh counts them).
References: the greedy reply equals build/generate's (the single-sequence
library path, itself checked against llama.cpp), streaming equals the whole
reply, /tokenize equals build/tokenize, 8 concurrent requests equal each
alone. Needs ../shared/fixtures (stories260K); SmolLM2 from `make models`
adds the real-model checks when it is in the cache; llama.cpp's gguf-py
(LLAMA_CPP, the tree tools/gen_arch_fixtures.py reads) the lfm2 checks
(recurrent layers: a state per sequence)."""
import http.client
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time

FIX = os.environ.get("LK_FIXTURES", "../shared/fixtures")
B = "build"
STORIES = os.path.join(FIX, "stories260K", "stories260K-Q8_0.gguf")
STORIES_F32 = os.path.join(FIX, "stories260K", "stories260K-F32.gguf")
LLAMA_CPP = os.environ.get("LLAMA_CPP", os.path.expanduser("~/.cache/llmkit/llama.cpp-0c1e570"))
SMOL = os.path.join(os.environ.get("LLMKIT_MODELS", os.path.expanduser("~/.cache/llmkit")), "models", "SmolLM2-135M-Instruct.Q4_1.gguf")
failed = 0


class Server:
    def __init__(self, model, *args):
        self.p = subprocess.Popen([B + "/server", "-m", model, "--port", "0", "-t", "2", *args],
                                  stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
        self.log = []
        self.port = None
        t0 = time.time()
        while time.time() - t0 < 60:
            line = self.p.stderr.readline()
            if not line:
                break
            self.log.append(line)
            m = re.search(r"listening on http://[^:]+:(\d+)", line)
            if m:
                self.port = int(m.group(1))
                break
        if self.port is None:
            self.p.kill()
            raise RuntimeError("server did not start: " + "".join(self.log))
        threading.Thread(target=self._drain, daemon=True).start()

    def _drain(self):
        for line in self.p.stderr:
            self.log.append(line)

    def stop(self):
        self.p.terminate()
        try:
            self.p.wait(10)
        except subprocess.TimeoutExpired:
            self.p.kill()
        return self.p.returncode

    def alive(self):
        return self.p.poll() is None


def hreq(port, method, path, body=None, headers=None, timeout=120):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    data = body if isinstance(body, (bytes, type(None))) else json.dumps(body).encode()
    h = {"Content-Type": "application/json"}
    h.update(headers or {})
    c.request(method, path, body=data, headers=h)
    r = c.getresponse()
    out = r.read()
    c.close()
    return r.status, out


def jhttp(port, method, path, body=None, headers=None):
    st, out = hreq(port, method, path, body, headers)
    try:
        return st, json.loads(out)
    except ValueError:
        return st, {"_raw": out}


def raw(port, data, timeout=10):
    """send bytes, return the whole response (the server closes)"""
    s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    s.sendall(data)
    out = b""
    while True:
        try:
            k = s.recv(65536)
        except socket.timeout:
            break
        if not k:
            break
        out += k
    s.close()
    return out


def sse(port, path, body, headers=None):
    """stream: the list of decoded events (the last one the string [DONE])"""
    st, out = hreq(port, "POST", path, dict(body, stream=True), headers)
    events = []
    for block in out.decode().split("\n\n"):
        if not block.strip():
            continue
        assert block.startswith("data: "), block
        d = block[6:]
        events.append(d if d == "[DONE]" else json.loads(d))
    return st, events


class Case:
    def __init__(self, name):
        self.name, self.errs = name, []

    def check(self, cond, msg):
        if not cond:
            self.errs.append(msg)
        return cond

    def __enter__(self):
        return self

    def __exit__(self, et, ev, tb):
        global failed
        if et is not None:
            self.errs.append("%s: %s" % (et.__name__, ev))
        if self.errs:
            failed += 1
            for e in self.errs[:6]:
                print("  " + str(e)[:400])
            print("FAIL %s: %d check(s) failed" % (self.name, len(self.errs)))
        else:
            print("PASS " + self.name)
        sys.stdout.flush()
        return True


def generate_ref(model, prompt, n):
    out = subprocess.run([B + "/generate", "-m", model, "-p", prompt, "-n", str(n), "--temp", "0", "-t", "2"],
                         capture_output=True, text=True, check=True).stdout
    if not out.startswith(prompt):
        return None
    out = out[len(prompt):]
    return out[:-1] if out.endswith("\n") else out   # generate ends its output with a newline


def basic():
    if not os.path.exists(STORIES):
        print("SKIP server: ../shared/fixtures/stories260K is absent")
        return
    s = Server(STORIES, "-np", "8", "-c", "4096")
    port = s.port
    try:
        with Case("server: /health, /v1/models") as c:
            st, j = jhttp(port, "GET", "/health")
            c.check(st == 200 and j.get("status") == "ok" and j.get("slots_idle") == 8, (st, j))
            st, j = jhttp(port, "GET", "/v1/models")
            c.check(st == 200 and j["data"][0]["id"] == "stories260K-Q8_0.gguf" and j["object"] == "list", (st, j))

        prompt = "Once upon a time"
        ref = generate_ref(STORIES, prompt, 24)
        with Case("server: greedy completion = the library's single-sequence generation (build/generate)") as c:
            st, j = jhttp(port, "POST", "/v1/completions", {"prompt": prompt, "max_tokens": 24, "temperature": 0})
            c.check(st == 200, (st, j))
            text = j["choices"][0]["text"]
            c.check(text == ref, "server %r vs generate %r" % (text, ref))
            u = j["usage"]
            c.check(u["prompt_tokens"] == 5 and u["completion_tokens"] <= 24 and u["total_tokens"] == 5 + u["completion_tokens"], u)
            c.check(j["choices"][0]["finish_reason"] in ("length", "stop") and j["object"] == "text_completion", j)

        with Case("server: streamed completion = the whole reply, ends with data: [DONE]") as c:
            st, ev = sse(port, "/v1/completions", {"prompt": prompt, "max_tokens": 24, "temperature": 0})
            c.check(st == 200 and ev and ev[-1] == "[DONE]", (st, ev[-2:]))
            text = "".join(e["choices"][0]["text"] for e in ev[:-1])
            c.check(text == ref, "stream %r vs %r" % (text, ref))
            c.check(ev[-2]["choices"][0]["finish_reason"] in ("length", "stop"), ev[-2])
            c.check(all(e["choices"][0]["finish_reason"] is None for e in ev[:-2]), "finish_reason before the end")

        with Case("server: chat (chatml fallback), whole and streamed agree") as c:
            body = {"messages": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Tell me a story."}],
                    "max_tokens": 20, "temperature": 0}
            st, j = jhttp(port, "POST", "/v1/chat/completions", body)
            c.check(st == 200 and j["object"] == "chat.completion" and j["choices"][0]["message"]["role"] == "assistant", (st, j))
            whole = j["choices"][0]["message"]["content"]
            # the prompt the template makes: chatml, as lk_chat_apply_template renders it
            c.check(j["usage"]["prompt_tokens"] > 10, j["usage"])
            st, ev = sse(port, "/v1/chat/completions", body)
            c.check(ev[0]["choices"][0]["delta"].get("role") == "assistant" and ev[0]["object"] == "chat.completion.chunk", ev[0])
            streamed = "".join(e["choices"][0]["delta"].get("content", "") for e in ev[:-1])
            c.check(streamed == whole, "stream %r vs %r" % (streamed, whole))
            c.check(ev[-1] == "[DONE]", ev[-1])

        with Case("server: /tokenize = build/tokenize, /detokenize inverts it") as c:
            ref_t = subprocess.run([B + "/tokenize", "-m", STORIES, "-p", prompt], capture_output=True, text=True).stdout.split()
            st, j = jhttp(port, "POST", "/tokenize", {"content": prompt, "add_special": True})
            c.check(st == 200 and [str(t) for t in j["tokens"]] == ref_t, (j, ref_t))
            st, j2 = jhttp(port, "POST", "/tokenize", {"content": prompt})
            c.check(j2["tokens"] == j["tokens"][1:], ("without BOS", j2))
            st, j3 = jhttp(port, "POST", "/detokenize", {"tokens": j2["tokens"]})
            c.check(st == 200 and j3["content"] == prompt, j3)
            st, j4 = jhttp(port, "POST", "/tokenize", {"content": prompt, "with_pieces": True})
            c.check("".join(p["piece"] for p in j4["tokens"]).strip() == prompt, j4)

        with Case("server: stop strings, max_tokens, seeds") as c:
            full = jhttp(port, "POST", "/v1/completions", {"prompt": prompt, "max_tokens": 40, "temperature": 0})[1]["choices"][0]["text"]
            cut = full.find(" the")
            st, j = jhttp(port, "POST", "/v1/completions", {"prompt": prompt, "max_tokens": 40, "temperature": 0, "stop": [" the", "zzz"]})
            if cut >= 0:
                c.check(j["choices"][0]["text"] == full[:cut] and j["choices"][0]["finish_reason"] == "stop", (j, full))
            st, ev = sse(port, "/v1/completions", {"prompt": prompt, "max_tokens": 40, "temperature": 0, "stop": " the"})
            if cut >= 0:
                c.check("".join(e["choices"][0]["text"] for e in ev[:-1]) == full[:cut], "streamed stop")
            st, j = jhttp(port, "POST", "/v1/completions", {"prompt": prompt, "max_tokens": 7, "temperature": 0, "ignore_eos": True})
            c.check(j["usage"]["completion_tokens"] == 7 and j["choices"][0]["finish_reason"] == "length", j)
            a = jhttp(port, "POST", "/v1/completions", {"prompt": prompt, "max_tokens": 30, "temperature": 1.0, "seed": 42})[1]
            b = jhttp(port, "POST", "/v1/completions", {"prompt": prompt, "max_tokens": 30, "temperature": 1.0, "seed": 42})[1]
            c.check(a["choices"][0]["text"] == b["choices"][0]["text"], "the same seed gave different replies")
            st, j = jhttp(port, "POST", "/v1/completions", {"prompt": prompt, "max_tokens": 0})
            c.check(st == 200 and j["choices"][0]["text"] == "" and j["usage"]["completion_tokens"] == 0, j)

        with Case("server: the prompt cache (a forked prefix) changes no reply") as c:
            sysmsg = {"role": "system", "content": "You are a storyteller. Tell short, happy stories about animals and children."}
            qs = ["Tell me about a cat.", "Tell me about a dog.", "Tell me about a bird."]
            def chat(q, cache):
                return jhttp(port, "POST", "/v1/chat/completions", {"messages": [sysmsg, {"role": "user", "content": q}], "max_tokens": 24,
                                                                    "temperature": 0, "cache_prompt": cache})[1]
            fresh = [chat(q, False)["choices"][0]["message"]["content"] for q in qs]
            nlog = len(s.log)
            cached = [chat(q, True)["choices"][0]["message"]["content"] for q in qs] + [chat(qs[0], True)["choices"][0]["message"]["content"]]
            c.check(cached == fresh + fresh[:1], (cached, fresh))
            time.sleep(0.2)
            hits = [int(m.group(1)) for l in s.log[nlog:] for m in [re.search(r"\((\d+) cached\)", l)] if m]
            c.check(len(hits) >= 4 and all(h > 15 for h in hits[1:4]), "cached prompt tokens per request: %s (the system prompt should be reused)" % hits)
            st, j = jhttp(port, "GET", "/health")
            c.check(j.get("cached_prompts", 0) >= 1, j)

        prompts = ["Once upon a time", "The little dog", "Lily and Ben went to the park", "One day, a big bird",
                   "Tom had a red ball", "The sun was hot", "Sue liked to sing", "There was a boy named"]
        with Case("server: 8 concurrent greedy requests = each alone") as c:
            def one(p, stream=False):
                body = {"prompt": p, "max_tokens": 48, "temperature": 0}
                if stream:
                    return "".join(e["choices"][0]["text"] for e in sse(port, "/v1/completions", body)[1][:-1])
                return jhttp(port, "POST", "/v1/completions", body)[1]["choices"][0]["text"]
            alone = [one(p) for p in prompts]
            for rnd in range(3):
                res = [None] * 8
                ths = [threading.Thread(target=lambda i=i: res.__setitem__(i, one(prompts[i], stream=(i + rnd) % 2 == 1))) for i in range(8)]
                for t in ths:
                    t.start()
                for t in ths:
                    t.join()
                for i in range(8):
                    c.check(res[i] == alone[i], "round %d, prompt %d: %r vs alone %r" % (rnd, i, res[i], alone[i]))
            c.check(len(set(alone)) > 4, "the prompts gave the same replies: the test cannot tell them apart")

        with Case("server: bad requests get 4xx JSON errors and the server stays up") as c:
            bad = [
                (b"{not json", 400), (b'{"prompt": "x", }', 400), (b"[1,2]", 400), (b"", 400), (b'"str"', 400),
                (b'{"prompt": 5}', 400), (b'{"prompt": "x", "temperature": "hot"}', 400), (b'{"prompt": "x", "max_tokens": -3}', 400),
                (b'{"prompt": "x", "max_tokens": 1e12}', 400), (b'{"prompt": "x", "top_p": 5}', 400), (b'{"prompt": "x", "n": 2}', 400),
                (b'{"prompt": "x", "stream": "yes"}', 400), (b'{"prompt": "x", "stop": [1]}', 400), (b'{"prompt": ""}', 200),   # "": BOS alone, as llama-server
                (b'{"prompt": [99999999]}', 400), (b'{"prompt": [1.5]}', 400), (b'{"prompt": "x", "max_tokens": 2.5}', 400),
                (b'{"prompt": "' + b"a" * 20000 + b'"}', 400), (b'{"prompt": "x", "seed": -5}', 400), (b"\xff\xfe", 400),
                (b"[" * 100000 + b"]" * 100000, 400), (b'{"prompt": "\\ud800"}', 200), (b'{"prompt": "x", "stop": [""], "max_tokens": 2}', 200),
                (b'{"prompt": "x", "logprobs": 2}', 400), (b'{"prompt": "x", "logprobs": null, "tools": [], "max_tokens": 1}', 200),
                (b'{"prompt": "x", "tools": [{"type": "function"}]}', 400), (b'{"prompt": "x", "response_format": {"type": "json_object"}}', 400),
            ]
            for body, want in bad:
                st, j = jhttp(port, "POST", "/v1/completions", body)
                c.check(st == want and (want == 200 or ("error" in j and j["error"]["code"] == want and j["error"]["message"])),
                        "%r -> %s %s" % (body[:40], st, str(j)[:120]))
            st, j = jhttp(port, "POST", "/v1/chat/completions", b'{"messages": [{"role": "", "content": ""}, {"role": "user", "content": null}], "max_tokens": 2}')
            c.check(st == 200, ("empty role and content (fuzzer-found: an empty JSON string was not NUL-terminated)", st, j))
            for body in [b'{"messages": []}', b'{"messages": [{"content": "x"}]}', b'{"messages": "hi"}',
                         b'{"messages": [{"role": "user", "content": [{"type": "image_url"}]}]}', b'{"messages": [{"role": 1, "content": "x"}]}']:
                st, j = jhttp(port, "POST", "/v1/chat/completions", body)
                c.check(st == 400 and "error" in j, "%r -> %s" % (body, st))
            st, j = jhttp(port, "POST", "/detokenize", {"tokens": [1, -1]})
            c.check(st == 400, ("detokenize -1", st))
            st, j = jhttp(port, "POST", "/tokenize", {"content": 7})
            c.check(st == 400, ("tokenize 7", st))
            st, j = jhttp(port, "GET", "/v1/nothing")
            c.check(st == 404 and j["error"]["code"] == 404, (st, j))
            st, j = jhttp(port, "GET", "/v1/completions")
            c.check(st == 405, ("GET completions", st))
            r = raw(port, b"POST /v1/completions HTTP/1.1\r\nContent-Length: 2000000\r\n\r\n{")
            c.check(r.startswith(b"HTTP/1.1 413"), r[:60])
            r = raw(port, b"GET /health HTTP/1.1\r\nX: " + b"a" * 20000 + b"\r\n\r\n")
            c.check(r.startswith(b"HTTP/1.1 431"), r[:60])
            r = raw(port, b"HELLO\r\n\r\n")
            c.check(r.startswith(b"HTTP/1.1 400"), r[:60])
            r = raw(port, b"POST /v1/completions HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n")
            c.check(r.startswith(b"HTTP/1.1 411"), r[:60])
            r = raw(port, b"POST /v1/completions HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n{}")
            c.check(r.startswith(b"HTTP/1.1 400"), r[:60])
            r = raw(port, b"GET /health HTTP/2.0\r\n\r\n")
            c.check(r.startswith(b"HTTP/1.1 505"), r[:60])
            r = raw(port, b"POST /v1/completions HTTP/1.1\r\nContent-Length: 100\r\n\r\n{\"prompt\"")   # body cut short
            c.check(r == b"" or r.startswith(b"HTTP/1.1 400"), r[:60])
            st, j = jhttp(port, "GET", "/health")
            c.check(st == 200 and s.alive(), "the server died")

        with Case("server: a stalled client does not stall the others") as c:
            stall = socket.create_connection(("127.0.0.1", port))
            stall.sendall(b"POST /v1/completions HTTP/1.1\r\nContent-Length: 50\r\n\r\n{\"pro")
            t0 = time.time()
            st, j = jhttp(port, "POST", "/v1/completions", {"prompt": prompt, "max_tokens": 8, "temperature": 0})
            c.check(st == 200 and time.time() - t0 < 10, (st, time.time() - t0))
            stall.close()

        with Case("server: curl (completion, streaming, error)") as c:
            if not shutil.which("curl"):
                c.check(False, "curl is not installed")
            else:
                out = subprocess.run(["curl", "-s", "http://127.0.0.1:%d/v1/completions" % port, "-H", "Content-Type: application/json",
                                      "-d", json.dumps({"prompt": prompt, "max_tokens": 24, "temperature": 0})], capture_output=True, text=True).stdout
                c.check(json.loads(out)["choices"][0]["text"] == ref, out)
                out = subprocess.run(["curl", "-sN", "http://127.0.0.1:%d/v1/chat/completions" % port, "-d",
                                      json.dumps({"messages": [{"role": "user", "content": "hi"}], "max_tokens": 5, "stream": True})],
                                     capture_output=True, text=True).stdout
                c.check(out.rstrip().endswith("data: [DONE]") and out.count("data: ") >= 2, out[-200:])
                out = subprocess.run(["curl", "-s", "-o", "/dev/null", "-w", "%{http_code}", "http://127.0.0.1:%d/v1/completions" % port,
                                      "-d", "{bad"], capture_output=True, text=True).stdout
                c.check(out == "400", out)
    finally:
        rc = s.stop()
    with Case("server: stops cleanly on SIGTERM") as c:
        c.check(rc == 0, "exit status %s; log tail: %s" % (rc, "".join(s.log[-5:])))

    # a client that goes away mid-stream frees its sequence at once
    s = Server(STORIES, "-np", "2", "-c", "65536")
    try:
        with Case("server: a client that disconnects mid-stream frees its sequence") as c:
            body = json.dumps({"prompt": "Once upon a time", "max_tokens": 30000, "ignore_eos": True, "stream": True, "temperature": 0}).encode()
            k = socket.create_connection(("127.0.0.1", s.port))
            k.sendall(b"POST /v1/completions HTTP/1.1\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n" % len(body) + body)
            got = k.recv(4096)
            c.check(b"data: " in got or b"200 OK" in got, got[:100])
            t0 = time.time()
            k.close()
            idle = False
            while time.time() - t0 < 10:
                j = jhttp(s.port, "GET", "/health")[1]
                if j["slots_processing"] == 0:
                    idle = True
                    break
                time.sleep(0.05)
            c.check(idle, "the sequence was not freed within 10 s")
            while not any("went away" in l for l in s.log) and time.time() - t0 < 10:   # the log is read by another thread
                time.sleep(0.05)
            c.check(any("went away" in l for l in s.log), "no 'went away' in the log: the reply ran to its end instead")
            j = jhttp(s.port, "GET", "/health")[1]
            c.check(j["kv_rows_free"] >= 65536 - 16, ("rows free", j))
    finally:
        s.stop()

    s = Server(STORIES, "-np", "1", "--queue", "1", "-c", "65536")
    try:
        with Case("server: -np 1 --queue 1: 503 while one runs and one waits; a waiting client that leaves frees its place") as c:
            def send_raw(body):
                k = socket.create_connection(("127.0.0.1", s.port))
                data = json.dumps(body).encode()
                k.sendall(b"POST /v1/completions HTTP/1.1\r\nContent-Length: %d\r\n\r\n" % len(data) + data)
                return k
            def wait_health(key, want, limit=5):
                t0 = time.time()
                while time.time() - t0 < limit:
                    j = jhttp(s.port, "GET", "/health")[1]
                    if j[key] == want:
                        return j
                    time.sleep(0.01)
                return jhttp(s.port, "GET", "/health")[1]
            a = send_raw({"prompt": "Once upon a time", "max_tokens": 60000, "ignore_eos": True, "stream": True, "temperature": 0})
            a.recv(4096)   # running
            b = send_raw({"prompt": "The dog", "max_tokens": 4, "temperature": 0})
            c.check(wait_health("queued", 1)["queued"] == 1, "the second request is not waiting")
            st, j = jhttp(s.port, "POST", "/v1/completions", {"prompt": "The cat", "max_tokens": 4})
            c.check(st == 503 and j["error"]["code"] == 503, (st, j))
            b.close()   # the waiting client leaves: its place in the queue is free again, while the first still runs
            j = wait_health("queued", 0)
            c.check(j["queued"] == 0 and j["slots_processing"] == 1, ("after the waiting client left", j))
            res = {}
            te = threading.Thread(target=lambda: res.__setitem__("e", jhttp(s.port, "POST", "/v1/completions", {"prompt": "The bird", "max_tokens": 4, "temperature": 0})))
            te.start()
            c.check(wait_health("queued", 1)["queued"] == 1, "the next request is not waiting")
            a.close()   # the running one goes: the waiting one runs
            te.join(30)
            c.check(res.get("e", (0,))[0] == 200, res.get("e"))
    finally:
        s.stop()

    s = Server(STORIES, "--api-key", "sekrit", "-np", "2")
    try:
        with Case("server: --api-key: 401 without or with a wrong key, /health open") as c:
            c.check(jhttp(s.port, "GET", "/v1/models")[0] == 401, "no key")
            c.check(jhttp(s.port, "GET", "/v1/models", headers={"Authorization": "Bearer nope"})[0] == 401, "wrong key")
            c.check(jhttp(s.port, "POST", "/v1/completions", {"prompt": "x"}, headers={"Authorization": "Bearer sekri"})[0] == 401, "prefix of the key")
            c.check(jhttp(s.port, "GET", "/v1/models", headers={"Authorization": "Bearer sekrit"})[0] == 200, "right key")
            c.check(jhttp(s.port, "GET", "/health")[0] == 200, "/health")
    finally:
        s.stop()

    if not os.path.exists(SMOL):
        print("SKIP server: SmolLM2 (real model): not in the cache (make models)")
        return
    s = Server(SMOL, "-np", "4", "-c", "4096")
    try:
        with Case("server SmolLM2: its chat template, a right answer, concurrent = alone") as c:
            q = {"messages": [{"role": "user", "content": "What is the capital of France?"}], "max_tokens": 32, "temperature": 0}
            st, j = jhttp(s.port, "POST", "/v1/chat/completions", q)
            c.check(st == 200 and "Paris" in j["choices"][0]["message"]["content"], j)
            c.check(any("template chatml" in l for l in s.log), "the model's template (chatml) was not used")
            qs = ["What is 2+2?", "Name a color.", "Who wrote Hamlet?", "Say hello in French."]
            def ask(x):
                return jhttp(s.port, "POST", "/v1/chat/completions", {"messages": [{"role": "user", "content": x}], "max_tokens": 24, "temperature": 0})[1]["choices"][0]["message"]["content"]
            alone = [ask(x) for x in qs]
            res = [None] * 4
            ths = [threading.Thread(target=lambda i=i: res.__setitem__(i, ask(qs[i]))) for i in range(4)]
            for t in ths:
                t.start()
            for t in ths:
                t.join()
            c.check(res == alone, (res, alone))
    finally:
        s.stop()


def recurrent():
    """lfm2's random-weight model (tools/gen_arch_fixtures.py, stories260K's vocabulary): short-conv layers whose
    state each sequence keeps for its last n_rs_seq (16) tokens"""
    if not os.path.exists(STORIES_F32) or not os.path.isdir(os.path.join(LLAMA_CPP, "gguf-py")):
        print("SKIP server lfm2: needs ../shared/fixtures/stories260K and llama.cpp's gguf-py (LLAMA_CPP=%s)" % LLAMA_CPP)
        return
    tmp = tempfile.mkdtemp()
    try:
        g = subprocess.run([sys.executable, "tools/gen_arch_fixtures.py", LLAMA_CPP, STORIES_F32, tmp, "lfm2"], capture_output=True, text=True)
        model = os.path.join(tmp, "lfm2-F32.gguf")
        if g.returncode or not os.path.exists(model):
            print("SKIP server lfm2: tools/gen_arch_fixtures.py could not write the model: %s" % g.stderr.strip()[-200:])
            return
        s = Server(model, "-np", "4", "-c", "1024")
        try:
            # (prompts whose random-weight continuations are whole UTF-8: build/generate prints raw bytes)
            prompts = ["Once upon a time", "Lily and Ben went to the park", "Tom had a red ball", "The sun was hot"]
            with Case("server lfm2: greedy completions = build/generate (a sequence alone), 4 concurrent = the same") as c:
                def one(p):
                    return jhttp(s.port, "POST", "/v1/completions", {"prompt": p, "max_tokens": 24, "temperature": 0, "cache_prompt": False})[1]["choices"][0]["text"]
                ref = [generate_ref(model, p, 24) for p in prompts]
                alone = [one(p) for p in prompts]
                c.check(alone == ref, (alone, ref))
                res = [None] * 4
                ths = [threading.Thread(target=lambda i=i: res.__setitem__(i, one(prompts[i]))) for i in range(4)]
                for t in ths:
                    t.start()
                for t in ths:
                    t.join()
                c.check(res == ref, (res, ref))
        finally:
            s.stop()
        s = Server(model, "-np", "2", "-c", "512")
        try:
            with Case("server lfm2: the prompt cache: a prefix more than n_rs_seq before a cached end is computed anew or taken from another entry "
                      "within it; replies unchanged") as c:
                def comp(p, n, **kw):
                    return jhttp(s.port, "POST", "/v1/completions", dict({"prompt": p, "max_tokens": n, "temperature": 0}, **kw))[1]["choices"][0]["text"]
                long_p, short_p, cat_p = ("Once upon a time there was a little girl named Lily. She", "Once upon a time there was a dog",
                                          "Once upon a time there was a little cat")
                comp(long_p, 24, ignore_eos=True)        # X cached: its 16 prompt tokens + 23
                a = comp(short_p, 4, ignore_eos=True)     # shares 8 tokens with X, 31 before X's end: anew; Y cached: 10 + 3
                z = comp(cat_p, 4)                        # 9 with X (30 before its end), 8 with Y (5 before): Y's 8
                b = comp(short_p, 16)                     # its own prompt, 4 before Y's end: 9 reused
                c.check(a.startswith(generate_ref(model, short_p, 4)), (a, "anew"))
                c.check(z == generate_ref(model, cat_p, 4), (z, "from the shorter entry"))
                c.check(b == generate_ref(model, short_p, 16), (b, "reused"))
                time.sleep(0.2)
                hits = [int(m.group(1)) for l in s.log for m in [re.search(r"\((\d+) cached\)", l)] if m]
                c.check(len(hits) == 4 and hits[0] == 0 and hits[1] == 0 and hits[2] > 4 and hits[3] > 4,
                        "cached prompt tokens per request: %s (want 0, 0, > 4, > 4)" % hits)
                st, j = jhttp(s.port, "GET", "/health")
                c.check(len(hits) == 4 and j.get("cached_tokens_reused") == hits[2] + hits[3], j)
        finally:
            s.stop()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def openai_mode():
    try:
        import openai
    except ImportError:
        print("SKIP server openai: the openai package is not installed (pip install openai)")
        return
    if not os.path.exists(STORIES):
        print("SKIP server openai: ../shared/fixtures/stories260K is absent")
        return
    model = SMOL if os.path.exists(SMOL) else STORIES
    s = Server(model, "-np", "4", "-c", "2048", "--api-key", "sk-llmkit")
    try:
        with Case("server openai: models, completions, chat, streaming, a wrong key (%s)" % os.path.basename(model)) as c:
            cl = openai.OpenAI(base_url="http://127.0.0.1:%d/v1" % s.port, api_key="sk-llmkit", max_retries=0)
            ids = [m.id for m in cl.models.list()]
            c.check(ids == [os.path.basename(model)], ids)
            r = cl.completions.create(model=ids[0], prompt="Once upon a time", max_tokens=16, temperature=0)
            raw_r = jhttp(s.port, "POST", "/v1/completions", {"prompt": "Once upon a time", "max_tokens": 16, "temperature": 0},
                          headers={"Authorization": "Bearer sk-llmkit"})[1]
            c.check(r.choices[0].text == raw_r["choices"][0]["text"] and r.usage.completion_tokens > 0, (r, raw_r))
            msgs = [{"role": "user", "content": "What is the capital of France?"}]
            r = cl.chat.completions.create(model=ids[0], messages=msgs, max_tokens=24, temperature=0)
            whole = r.choices[0].message.content
            c.check(r.choices[0].message.role == "assistant" and r.choices[0].finish_reason in ("stop", "length"), r)
            if model == SMOL:
                c.check("Paris" in whole, whole)
            parts = [ch.choices[0].delta.content or "" for ch in cl.chat.completions.create(model=ids[0], messages=msgs, max_tokens=24, temperature=0, stream=True)]
            c.check("".join(parts) == whole, ("".join(parts), whole))
            parts = [ch.choices[0].text for ch in cl.completions.create(model=ids[0], prompt="Once upon a time", max_tokens=16, temperature=0, stream=True)]
            c.check("".join(parts) == raw_r["choices"][0]["text"], parts)
            bad = openai.OpenAI(base_url="http://127.0.0.1:%d/v1" % s.port, api_key="wrong", max_retries=0)
            try:
                bad.models.list()
                c.check(False, "a wrong key was accepted")
            except openai.AuthenticationError:
                pass
            try:
                cl.completions.create(model=ids[0], prompt="x", max_tokens=-1)
                c.check(False, "max_tokens -1 accepted")
            except openai.BadRequestError:
                pass
    finally:
        s.stop()


if __name__ == "__main__":
    if not os.path.exists(B + "/server"):
        print("FAIL server: build/server is missing (make)")
        sys.exit(1)
    mode = sys.argv[1] if len(sys.argv) > 1 else "basic"
    if mode == "openai":
        openai_mode()
    else:
        basic()
        recurrent()
    sys.exit(1 if failed else 0)
