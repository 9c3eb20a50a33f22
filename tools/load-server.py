#!/usr/bin/env python3
"""load-server.py - a load test for an OpenAI-compatible server (examples/server.c,
llama-server): N concurrent clients, each sending streamed /v1/completions
requests back to back for a bounded time. Standard library only.

    tools/load-server.py --url http://127.0.0.1:8080 [-c 1,4,8,16] [-d 20] [-n 64]

Each request asks for exactly -n tokens (ignore_eos, temperature 0) after one
of a few fixed prompts, so two servers get the same work. Per concurrency it
prints: requests finished, aggregate generated tokens/s over the window,
time to first token (p50, p99), inter-token latency (gaps between streamed
tokens, p50, p99), and failures (a status other than 200, a broken stream, a
stream without data: [DONE]). --json FILE also writes the rows as JSON."""
import argparse
import asyncio
import json
import sys
import time
from urllib.parse import urlparse

PROMPTS = [
    "Once upon a time, in a small village by the sea, there lived an old fisherman who",
    "The history of the printing press begins in the fifteenth century, when",
    "Here is a short explanation of how a refrigerator keeps food cold:",
    "Dear friend, I am writing to tell you about the trip we took last summer to",
    "The three most important things to know about growing tomatoes are",
    "In computer science, a hash table is a data structure that",
    "The recipe for a simple bread needs flour, water, salt and yeast. First,",
    "On the morning of the race, the runners gathered at the starting line and",
]


def pct(v, p):
    if not v:
        return float("nan")
    v = sorted(v)
    k = min(len(v) - 1, max(0, int(round(p / 100.0 * (len(v) - 1)))))
    return v[k]


async def one_request(host, port, path, body, headers, st, deadline):
    """one streamed request; appends to st; returns False on a failure"""
    data = json.dumps(body).encode()
    t0 = time.perf_counter()
    try:
        r, w = await asyncio.wait_for(asyncio.open_connection(host, port), 30)
        head = "POST %s HTTP/1.1\r\nHost: %s:%d\r\nContent-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n%s\r\n" % (
            path, host, port, len(data), "".join("%s: %s\r\n" % kv for kv in headers.items()))
        w.write(head.encode() + data)
        await w.drain()
        status = await asyncio.wait_for(r.readline(), 120)
        if b" 200 " not in status:
            st["fail"] += 1
            st["why"].append(status.decode(errors="replace").strip())
            w.close()
            return False
        chunked = False
        while True:   # headers
            line = await asyncio.wait_for(r.readline(), 120)
            if line in (b"\r\n", b"\n", b""):
                break
            if line.lower().startswith(b"transfer-encoding:") and b"chunked" in line.lower():
                chunked = True
        buf, last, first, done, ntok = b"", None, None, False, 0
        while not done:
            k = await asyncio.wait_for(r.read(65536), 120)
            if not k:
                break
            buf += k
            while b"\n\n" in buf:
                ev, buf = buf.split(b"\n\n", 1)
                for line in ev.split(b"\n"):
                    if chunked and not line.startswith(b"data:"):
                        i = line.find(b"data:")
                        line = line[i:] if i >= 0 else b""
                    if not line.startswith(b"data:"):
                        continue
                    d = line[5:].strip()
                    if d == b"[DONE]":
                        done = True
                        break
                    j = json.loads(d)
                    ch = (j.get("choices") or [{}])[0]
                    text = ch.get("text") or (ch.get("delta") or {}).get("content") or ""
                    if not text:
                        continue
                    now = time.perf_counter()
                    if first is None:
                        first = now
                        st["ttft"].append(now - t0)
                    else:
                        st["itl"].append(now - last)
                    last = now
                    ntok += 1
                    if now <= deadline:
                        st["tokens"] += 1
        w.close()
        if not done:
            st["fail"] += 1
            st["why"].append("stream ended without data: [DONE]")
            return False
        st["done"] += 1
        st["req_tokens"].append(ntok)
        return True
    except Exception as e:   # a refused connection, a timeout, a bad event
        st["fail"] += 1
        st["why"].append("%s: %s" % (type(e).__name__, e))
        return False


async def client(i, a, st, deadline):
    u = urlparse(a.url)
    k = i
    headers = {"Authorization": "Bearer " + a.api_key} if a.api_key else {}
    while time.perf_counter() < deadline:
        body = {"prompt": PROMPTS[k % len(PROMPTS)], "max_tokens": a.n, "temperature": 0, "ignore_eos": True, "stream": True}
        if a.model:
            body["model"] = a.model
        k += 1
        await one_request(u.hostname, u.port or 80, "/v1/completions", body, headers, st, deadline)


async def level(a, n):
    st = {"ttft": [], "itl": [], "tokens": 0, "done": 0, "fail": 0, "why": [], "req_tokens": []}
    t0 = time.perf_counter()
    deadline = t0 + a.d
    await asyncio.gather(*[client(i, a, st, deadline) for i in range(n)])
    wall = time.perf_counter() - t0
    return {"clients": n, "requests": st["done"], "tok_s": st["tokens"] / a.d, "ttft_p50_ms": pct(st["ttft"], 50) * 1e3,
            "ttft_p99_ms": pct(st["ttft"], 99) * 1e3, "itl_p50_ms": pct(st["itl"], 50) * 1e3, "itl_p99_ms": pct(st["itl"], 99) * 1e3,
            "failures": st["fail"], "wall_s": wall, "why": st["why"][:3],
            "short": sum(1 for t in st["req_tokens"] if t != a.n)}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--url", required=True)
    ap.add_argument("-c", default="1,4,8,16", help="concurrency levels")
    ap.add_argument("-d", type=float, default=20, help="seconds per level")
    ap.add_argument("-n", type=int, default=64, help="tokens per reply")
    ap.add_argument("--api-key", default="")
    ap.add_argument("--model", default="")
    ap.add_argument("--label", default="")
    ap.add_argument("--json", default="")
    a = ap.parse_args()
    rows = []
    print("%-10s %7s %8s %10s %10s %9s %9s %8s" % ("server", "clients", "requests", "tok/s", "ttft p50", "ttft p99", "itl p50", "itl p99") + "  failures")
    for n in [int(x) for x in a.c.split(",")]:
        r = asyncio.run(level(a, n))
        r["label"] = a.label
        rows.append(r)
        print("%-10s %7d %8d %10.1f %8.0fms %7.0fms %7.1fms %7.1fms  %d%s" % (
            a.label or "-", n, r["requests"], r["tok_s"], r["ttft_p50_ms"], r["ttft_p99_ms"], r["itl_p50_ms"], r["itl_p99_ms"], r["failures"],
            ("  (" + "; ".join(r["why"]) + ")") if r["failures"] else ""))
        sys.stdout.flush()
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rows, f, indent=1)
    sys.exit(1 if any(r["failures"] for r in rows) else 0)


if __name__ == "__main__":
    main()
