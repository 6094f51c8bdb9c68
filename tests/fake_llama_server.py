"""A stand-in for llama-cpp-python's server, for testing how selfdx copes when it fails.

Standard library only, so it starts in a fraction of a second. It answers `GET /v1/models` and
`POST /v1/chat/completions` in the OpenAI format (a one-word reply with token usage) and, as told
by `--mode`, fails the way a broken build or a wedged server does:

    ok       answer every request
    sigill   answer the first N chat completions (--after N), then die of SIGILL on the
             next one, as a binary built for instructions the CPU lacks does on its first request
    hang     answer the first N chat completions (--after N), then never answer another
    exit     exit with code 3 at once, before listening
    silent   listen, but never accept a connection (clients wait until their own timeout)

    python tests/fake_llama_server.py --port 8123 --mode sigill --after 1
"""

from __future__ import annotations

import argparse
import json
import resource
import signal
import socket
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

REPLY = "Abstain."


def completion(model: str) -> dict:
    """A chat completion as the OpenAI API returns one."""
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": REPLY},
                "finish_reason": "stop",
                "logprobs": None,
            }
        ],
        "usage": {"prompt_tokens": 5, "completion_tokens": 2, "total_tokens": 7},
    }


def handler(mode: str, after: int, model: str) -> type[BaseHTTPRequestHandler]:
    chats = 0

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:  # quiet
            pass

        def send_json(self, body: dict) -> None:
            data = json.dumps(body).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            if self.path.rstrip("/").endswith("/models"):
                self.send_json({"object": "list", "data": [{"id": model, "object": "model"}]})
            else:
                self.send_error(404)

        def do_POST(self) -> None:
            nonlocal chats
            length = int(self.headers.get("Content-Length") or 0)
            self.rfile.read(length)
            if not self.path.rstrip("/").endswith("/chat/completions"):
                self.send_error(404)
                return
            chats += 1
            if mode == "sigill" and chats > after:
                resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # no core file
                # to this thread, as a faulting instruction would be: the process ends before it
                # can answer (os.kill may deliver it to another thread, and this one answer first)
                signal.pthread_kill(threading.get_ident(), signal.SIGILL)
                while True:
                    time.sleep(60)
            if mode == "hang" and chats > after:
                while True:
                    time.sleep(60)
            self.send_json(completion(model))

    return Handler


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--mode", choices=["ok", "sigill", "hang", "exit", "silent"], default="ok")
    parser.add_argument(
        "--after", type=int, default=0, help="sigill, hang: chat completions answered"
    )
    parser.add_argument("--model", default="smollm2")
    args = parser.parse_args()
    if args.mode == "exit":
        print("fake server: exiting at once", file=sys.stderr)
        sys.exit(3)
    if args.mode == "silent":
        with socket.create_server((args.host, args.port)):
            while True:
                time.sleep(60)
    server = ThreadingHTTPServer((args.host, args.port), handler(args.mode, args.after, args.model))
    server.serve_forever()


if __name__ == "__main__":
    main()
