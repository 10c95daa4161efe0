"""A small Hugging Face hub on 127.0.0.1 for the hub-fetch tests (no network): it serves model folders the
test builds, at a commit of its choosing, through the endpoints huggingface_hub's ``model_info`` and
``snapshot_download`` call (``HF_ENDPOINT`` points the workflow's jobs at it), and counts the files it sends."""

from __future__ import annotations

import hashlib
import json
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urlparse


class FakeHub:
    def __init__(self, repos: dict[str, tuple[str, Path]]):
        """``repos``: hub name -> (commit, model folder)."""
        self.repos = repos
        self.sent: list[str] = []  # "repo/file" of every file body sent
        hub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # quiet
                pass

            def do_HEAD(self):
                hub.answer(self, body=False)

            def do_GET(self):
                hub.answer(self, body=True)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def __enter__(self) -> FakeHub:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()

    def files(self, repo: str) -> dict[str, Path]:
        folder = self.repos[repo][1]
        return {path.relative_to(folder).as_posix(): path for path in sorted(folder.rglob("*")) if path.is_file()}

    def answer(self, handler: BaseHTTPRequestHandler, body: bool) -> None:
        path = unquote(urlparse(handler.path).path)
        for repo, (commit, _) in self.repos.items():
            info = re.fullmatch(rf"/api/models/{re.escape(repo)}(?:/revision/(?P<rev>[^/]+))?", path)
            tree = re.fullmatch(rf"/api/models/{re.escape(repo)}/tree/(?P<rev>[^/]+)/?", path)
            file = re.fullmatch(rf"/{re.escape(repo)}/resolve/(?P<rev>[^/]+)/(?P<file>.+)", path)
            if info and info["rev"] in (None, "main", commit):
                siblings = [{"rfilename": name, "size": p.stat().st_size} for name, p in self.files(repo).items()]
                return self.json(handler, {"id": repo, "modelId": repo, "sha": commit, "siblings": siblings}, body)
            if tree and tree["rev"] in ("main", commit):
                entries = [
                    {"type": "file", "path": name, "size": p.stat().st_size, "oid": sha1(p)}
                    for name, p in self.files(repo).items()
                ]
                return self.json(handler, entries, body)
            if file and file["rev"] in ("main", commit) and file["file"] in self.files(repo):
                data = self.files(repo)[file["file"]].read_bytes()
                handler.send_response(200)
                handler.send_header("Content-Length", str(len(data)))
                handler.send_header("ETag", f'"{hashlib.sha256(data).hexdigest()}"')
                handler.send_header("X-Repo-Commit", commit)
                handler.end_headers()
                if body:
                    self.sent.append(f"{repo}/{file['file']}")
                    handler.wfile.write(data)
                return None
        handler.send_response(404)
        handler.send_header("Content-Length", "0")
        handler.send_header("X-Error-Code", "RepoNotFound")
        handler.end_headers()

    @staticmethod
    def json(handler: BaseHTTPRequestHandler, payload, body: bool) -> None:
        data = json.dumps(payload).encode()
        handler.send_response(200)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(data)))
        handler.end_headers()
        if body:
            handler.wfile.write(data)


def sha1(path: Path) -> str:
    return hashlib.sha1(path.read_bytes()).hexdigest()
