"""A misbehaving server: the reference with what it sends garbled, seeded.

Everything the server sends (results, errors, its own `elicitation/create`
requests) passes through `Mischief`, which now and then omits an optional
field, empties a result's content, replaces a field by a wrong type, drops,
duplicates, delays past the next message, or truncates a message, answers
HTTP 500, or (stdio) exits mid-call. Which, and when, follows the seed, so a
failing run can be repeated. Each act is appended to the file `MISBEHAVE_LOG`.

- stdio: `python -m tests.misbehaving -- COMMAND...` relays COMMAND's stdio;
- HTTP: `uvicorn tests.misbehaving:asgi` serves the reference through it.

`MISBEHAVE_SEED` (default 0) and `MISBEHAVE_RATE` (the share of messages
touched, default 0.04) configure both. It exists to show that the suite's own
code never crashes on what a server sends (tests/test_misbehaving.py).
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import threading
from typing import Any

import anyio

OPTIONAL = ("requestState", "structuredContent", "_meta", "isError", "nextCursor", "resultType")
#: What may be done to one message, with how often (drops and delays cost a timeout each).
ACTS = {"omit": 6, "empty-content": 3, "wrong-type": 4, "truncate": 2, "duplicate": 3, "drop": 1,
        "delay": 1, "http-500": 1, "exit": 1}
#: How long a delayed message waits for a next one to follow (within the tests' 0.8 s timeout,
#: so it arrives late but still within the case).
DELAY = 0.5


class Mischief:
    def __init__(self, seed: int, rate: float, log: str | None, transport: str) -> None:
        self.random = random.Random(f"{seed}-{transport}")
        self.rate = rate
        self.log = log
        acts = {a: w for a, w in ACTS.items() if a != ("exit" if transport == "http" else "http-500")}
        self.acts, self.weights = list(acts), list(acts.values())

    def act(self, message: Any) -> str | None:
        """The act to do to this message, if any. The handshake and the tool list are
        left alone: the suite reaches a target through them before any case, and a
        target it cannot reach gets one usage error, which proves nothing about the cases."""
        result = message.get("result") if isinstance(message, dict) else None
        if isinstance(result, dict) and ("capabilities" in result or "tools" in result):
            return None
        if not isinstance(message, dict) or self.random.random() >= self.rate:
            return None
        act = self.random.choices(self.acts, self.weights)[0]
        if self.log:
            with open(self.log, "a") as out:
                out.write(f"{act} {json.dumps(message)[:160]}\n")
        return act

    def rewrite(self, message: dict[str, Any], act: str) -> dict[str, Any] | str:
        """The message after a rewriting act (the others are the transport's to do)."""
        result = message.get("result")
        if act == "omit" and isinstance(result, dict):
            present = [k for k in OPTIONAL if k in result]
            if present:
                del result[self.random.choice(present)]
        elif act == "empty-content" and isinstance(result, dict):
            result["content"] = []
            result.pop("structuredContent", None)
        elif act == "wrong-type":
            target = result if isinstance(result, dict) else message.get("params")
            if isinstance(target, dict) and target:
                key = self.random.choice(sorted(target))
                target[key] = self.random.choice([None, 7, "garbled", [1, 2], {"x": []}])
        elif act == "truncate":
            text = json.dumps(message)
            return text[: len(text) // 2]
        return message


def _mischief(transport: str) -> Mischief:
    return Mischief(int(os.environ.get("MISBEHAVE_SEED", "0")), float(os.environ.get("MISBEHAVE_RATE", "0.04")),
                    os.environ.get("MISBEHAVE_LOG"), transport)


# -- stdio: a relay around the real server's process ----------------------------


def relay(argv: list[str]) -> int:
    mischief = _mischief("stdio")
    child = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert child.stdin is not None and child.stdout is not None
    out = sys.stdout.buffer
    lock = threading.Lock()
    held: list[bytes] = []

    def inbound() -> None:
        for line in sys.stdin.buffer:
            child.stdin.write(line)
            child.stdin.flush()
        child.stdin.close()

    def emit(data: bytes) -> None:
        with lock:
            out.write(data)
            out.flush()

    threading.Thread(target=inbound, daemon=True).start()
    for line in child.stdout:
        try:
            message = json.loads(line)
        except ValueError:
            emit(line)
            continue
        act = mischief.act(message)
        if act == "exit":
            child.kill()
            os._exit(3)
        if act == "drop":
            continue
        rewritten = mischief.rewrite(message, act) if act else message
        data = (rewritten if isinstance(rewritten, str) else json.dumps(rewritten)).encode() + b"\n"
        if act == "delay":  # sent after the next message, or after DELAY seconds
            held.append(data)
            threading.Timer(DELAY, lambda d=data: held.count(d) and (held.remove(d), emit(d))).start()
            continue
        emit(data * (2 if act == "duplicate" else 1))
        while held:
            emit(held.pop(0))
    return child.wait()


# -- HTTP: an ASGI wrapper around the reference's app ----------------------------


def _wrap(app: Any) -> Any:
    mischief = _mischief("http")

    async def wrapped(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope["method"] != "POST":
            return await app(scope, receive, send)
        state: dict[str, Any] = {"start": None, "json": False, "body": b"", "sse": b""}

        async def garbled(event: dict[str, Any]) -> None:
            if event["type"] == "http.response.start":
                headers = dict(event.get("headers") or [])
                kind = headers.get(b"content-type", b"")
                state["json"] = kind.startswith(b"application/json")
                state["start"] = event
                if not state["json"]:
                    await send(event)
                return
            if event["type"] != "http.response.body":
                return await send(event)
            if state["json"]:
                state["body"] += event.get("body", b"")
                if event.get("more_body"):
                    return
                return await _json_body(state, send)
            # An event stream: each `data:` event is one message. sse-starlette ends lines with
            # CRLF; read as LF (the same stream to a client), or no event would ever be seen.
            state["sse"] += event.get("body", b"").replace(b"\r\n", b"\n")
            chunks = []
            while b"\n\n" in state["sse"]:
                block, _, state["sse"] = state["sse"].partition(b"\n\n")
                chunks.append(_sse_block(block))
            more = event.get("more_body", False)
            await send({"type": "http.response.body", "body": b"".join(chunks), "more_body": more})

        async def _json_body(state: dict[str, Any], send: Any) -> None:
            body = state["body"]
            try:
                message = json.loads(body)
            except ValueError:
                message = None
            act = mischief.act(message)
            start = state["start"]
            if act == "http-500":
                start = {**start, "status": 500, "headers": [(b"content-type", b"text/plain")]}
                body = b"Internal Server Error"
            elif act == "drop":
                body = b""
            elif act == "delay":  # a JSON answer cannot wait for the next one: it is sent late instead
                await anyio.sleep(DELAY)
            elif act:
                rewritten = mischief.rewrite(message, act)
                body = (rewritten if isinstance(rewritten, str) else json.dumps(rewritten)).encode()
                if act == "duplicate":
                    body = b"[" + body + b"," + body + b"]"
            headers = [(k, v) for k, v in start.get("headers", []) if k.lower() != b"content-length"]
            await send({**start, "headers": [*headers, (b"content-length", str(len(body)).encode())]})
            await send({"type": "http.response.body", "body": body})

        def _sse_block(block: bytes) -> bytes:
            lines = block.split(b"\n")
            data = [line[5:].strip() for line in lines if line.startswith(b"data:")]
            try:
                message = json.loads(b"".join(data)) if data else None
            except ValueError:
                message = None
            act = mischief.act(message)
            if act in (None, "http-500", "delay") or message is None:
                return block + b"\n\n"
            if act == "drop":
                return b""
            rewritten = mischief.rewrite(message, act)
            text = rewritten if isinstance(rewritten, str) else json.dumps(rewritten)
            others = b"\n".join(line for line in lines if not line.startswith(b"data:"))
            event = (others + b"\n" if others else b"") + b"data: " + text.encode() + b"\n\n"
            return event * (2 if act == "duplicate" else 1)

        await app(scope, receive, garbled)

    return wrapped


def __getattr__(name: str) -> Any:
    if name == "asgi":  # built on first use: importing the module for the relay needs no app
        from elicit_conformance.reference.asgi import asgi as reference

        globals()["asgi"] = _wrap(reference)
        return globals()["asgi"]
    raise AttributeError(name)


if __name__ == "__main__":
    arguments = sys.argv[1:]
    sys.exit(relay(arguments[arguments.index("--") + 1:] if "--" in arguments else arguments))
