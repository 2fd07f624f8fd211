#!/usr/bin/env python3
"""Capture, byte for byte, the HTTP requests that the official pwpush CLI
(0.16.x) sends, for internal/api/testdata/pwpush-cli/ (replayed by
internal/api/cli_replay_test.go).

The CLI talks through python-requests; this script makes the same requests
calls as the CLI's pwpush/api/client.py (_send_single_request, and the
/api/v2/version probe of pwpush/api/capabilities.py) with the bodies its
commands build (push, push-file, list, audit, expire, login), against a
local socket that records each request. Host, the API token and the
url_token are replaced by {{HOST}}, {{TOKEN}} and {{URL_TOKEN}}; none of
them is inside a body, so Content-Length stays right.

    python3 scripts/capture-pwpush-cli.py internal/api/testdata/pwpush-cli
"""
import os
import socket
import sys
import tempfile
import threading

import requests

USER_AGENT = "pwpush-cli/0.16.0"
EMAIL = "cli@example.com"
TOKEN = "APIxKEYxPLACEHOLDER"
URL_TOKEN = "PUSHxPLACEHOLDER"


def auth_headers(with_token=True):
    # build_auth_headers in pwpush/api/client.py
    if not with_token:
        return {}
    return {"Authorization": f"Bearer {TOKEN}", "X-User-Email": EMAIL, "X-User-Token": TOKEN}


def flatten(data, prefix=""):
    # _flatten_form_data in pwpush/api/client.py
    out = {}
    for k, v in data.items():
        key = f"{prefix}[{k}]" if prefix else k
        if isinstance(v, dict):
            out.update(flatten(v, key))
        else:
            out[key] = v
    return out


class Recorder:
    def __init__(self):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(1)
        self.host = "127.0.0.1:%d" % self.sock.getsockname()[1]
        self.last = None

    def serve_one(self):
        conn, _ = self.sock.accept()
        data = b""
        while b"\r\n\r\n" not in data:
            data += conn.recv(65536)
        head, _, body = data.partition(b"\r\n\r\n")
        length = 0
        for line in head.split(b"\r\n")[1:]:
            k, _, v = line.partition(b":")
            if k.strip().lower() == b"content-length":
                length = int(v.strip())
        while len(body) < length:
            body += conn.recv(65536)
        self.last = head + b"\r\n\r\n" + body
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}")
        conn.close()

    def capture(self, send):
        t = threading.Thread(target=self.serve_one)
        t.start()
        send("http://" + self.host)
        t.join()
        raw = self.last
        for old, new in ((self.host, "{{HOST}}"), (TOKEN, "{{TOKEN}}"), (URL_TOKEN, "{{URL_TOKEN}}")):
            raw = raw.replace(old.encode(), new.encode())
        return raw


def main(out_dir):
    rec = Recorder()
    tmp = tempfile.mkdtemp()
    secret_file = os.path.join(tmp, "secret.txt")
    with open(secret_file, "wb") as f:
        f.write(b"ssh-ed25519 AAAAC3Nza hush@example\n")

    def get(path, with_token=True):
        return lambda base: requests.get(base + path, headers={**auth_headers(with_token), "User-Agent": USER_AGENT}, timeout=5)

    def post_json(path, body, with_token=True):
        return lambda base: requests.post(base + path, headers={**auth_headers(with_token), "User-Agent": USER_AGENT}, json=body, timeout=30)

    def post_file(path, body, field):
        def send(base):
            with open(secret_file, "rb") as fd:
                return requests.post(base + path, headers={**auth_headers(), "User-Agent": USER_AGENT},
                                     data=flatten(body), files={field: fd}, timeout=30)
        return send

    def delete(path):
        return lambda base: requests.delete(base + path, headers={**auth_headers(), "User-Agent": USER_AGENT}, timeout=5)

    steps = [
        # pwpush/api/capabilities.py: the profile probe sends the token alone.
        ("01-version-probe", lambda base: requests.get(base + "/api/v2/version", headers={"Authorization": f"Bearer {TOKEN}"}, timeout=5)),
        # login: validation_paths(v2) starts with the active list.
        ("02-login-active", get("/api/v2/pushes/active")),
        # push with the config file's defaults: every value a string.
        ("03-push-text", post_json("/api/v2/pushes", {"push": {
            "payload": "hunter2", "kind": "text", "expire_after_views": "5", "note": "ticket 42", "name": "db password",
            "deletable_by_viewer": "True", "retrieval_step": "False", "passphrase": "open sesame",
            "expire_after_duration": 13}})),
        # push --days 10 --views 3 --deletable --retrieval-step: typed values; 10 days has no duration.
        ("04-push-text-flags", post_json("/api/v2/pushes", {"push": {
            "payload": "s3cret", "kind": "text", "expire_after_views": 3,
            "deletable_by_viewer": True, "retrieval_step": True, "expire_after_days": 10}})),
        # push without a token.
        ("05-push-anonymous", post_json("/api/v2/pushes", {"push": {"payload": "anon", "kind": "text"}}, with_token=False)),
        # push-file secret.txt with the config file's defaults.
        ("06-push-file", post_file("/api/v2/pushes", {"push": {
            "payload": "", "kind": "file", "expire_after_views": "2", "note": "deploy key",
            "deletable_by_viewer": "False", "retrieval_step": "True", "expire_after_duration": 12}}, "push[files][]")),
        ("07-preview", get(f"/api/v2/pushes/{URL_TOKEN}/preview")),
        ("08-audit", get(f"/api/v2/pushes/{URL_TOKEN}/audit")),
        ("09-list-active", get("/api/v2/pushes/active")),
        ("10-list-expired", get("/api/v2/pushes/expired")),
        ("11-expire", delete(f"/api/v2/pushes/{URL_TOKEN}")),
        # The legacy profile (a server without /api/v2/version) and its fallbacks.
        ("12-legacy-list", get("/p/active.json")),
        ("13-legacy-locale-list", get("/en/d/active.json")),
        ("14-legacy-push", post_json("/p.json", {"password": {
            "kind": "text", "payload": "legacy", "expire_after_days": "7", "expire_after_views": "5",
            "deletable_by_viewer": "True", "retrieval_step": "False"}})),
        ("15-legacy-push-file", post_file("/f.json", {"file_push": {
            "payload": "", "kind": "file", "expire_after_days": 2, "expire_after_views": 4}}, "file_push[files][]")),
        ("16-legacy-preview", get(f"/p/{URL_TOKEN}/preview.json")),
        ("17-legacy-file-preview", get(f"/f/{URL_TOKEN}/preview.json")),
        ("18-legacy-audit", get(f"/p/{URL_TOKEN}/audit.json")),
        ("19-legacy-expire", delete(f"/p/{URL_TOKEN}.json")),
    ]
    for name, send in steps:
        raw = rec.capture(send)
        with open(os.path.join(out_dir, name + ".http"), "wb") as f:
            f.write(raw)
        print(name, len(raw))


if __name__ == "__main__":
    main(sys.argv[1])
