"""TLS and mutual TLS on both ports (issue 19 item 6), with certificates this test makes (openssl CLI):
TLS and mTLS calls work from the SDK and the tournament CLI, plaintext is refused when TLS is on."""
from __future__ import annotations

import http.client
import json
import shutil
import ssl
import subprocess
import urllib.request

import grpc
import pytest

from clients import tournament
from clients.sdk import Client, Refused, call, make_channel
from gameengine.v1 import common_pb2
from tests.web.conftest import WebServer

pytestmark = pytest.mark.skipif(shutil.which("openssl") is None, reason="needs the openssl CLI")


def make_certs(d):
    """A CA, a server certificate for 127.0.0.1 and a client certificate, all signed by the CA."""
    def run(*args):
        subprocess.run(["openssl", *args], cwd=d, check=True, capture_output=True)
    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    run("req", "-x509", *ec, "-keyout", "ca.key", "-out", "ca.pem", "-days", "2", "-subj", "/CN=test-ca")
    (d / "san.ext").write_text("subjectAltName=IP:127.0.0.1,DNS:localhost\n")
    for name in ("server", "client"):
        run("req", *ec, "-keyout", f"{name}.key", "-out", f"{name}.csr", "-subj", f"/CN={name}")
        run("x509", "-req", "-in", f"{name}.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
            "-out", f"{name}.pem", "-days", "2", "-extfile", "san.ext")
    return {k: str(d / v) for k, v in {"ca": "ca.pem", "cert": "client.pem", "key": "client.key",
                                       "server_cert": "server.pem", "server_key": "server.key"}.items()}


class TLSServer(WebServer):
    def __init__(self, data_dir, certs, mtls: bool):
        env = {"GE_TLS_CERT": certs["server_cert"], "GE_TLS_KEY": certs["server_key"]}
        if mtls:
            env["GE_TLS_CLIENT_CA"] = certs["ca"]
        self.certs = certs
        super().__init__(data_dir, **env)

    def channel(self):
        return make_channel(self.target, ca=self.certs["ca"], cert=self.certs["cert"], key=self.certs["key"])


@pytest.fixture(scope="module")
def certs(tmp_path_factory):
    return make_certs(tmp_path_factory.mktemp("certs"))


def web_get(server, ctx) -> int:
    with urllib.request.urlopen(f"https://127.0.0.1:{server.web_port}/api/games", context=ctx, timeout=5) as r:
        return r.status


def test_tls_serves_both_ports_and_refuses_plaintext(tmp_path, certs):
    server = TLSServer(tmp_path / "d", certs, mtls=False).start()
    try:
        client = Client(server.target, "pompeii", ca=certs["ca"])
        game_id, tokens = client.create(2, seed=1)
        assert client.status(game_id).game_id == game_id
        plain = Client(server.target, "pompeii")
        with pytest.raises(Refused) as e:
            call(plain.common.GetGameStatus, common_pb2.GetGameStatusRequest(game_id=game_id), retries=0, timeout=5)
        assert e.value.code == grpc.StatusCode.UNAVAILABLE
        assert web_get(server, ssl.create_default_context(cafile=certs["ca"])) == 200
        with pytest.raises((OSError, http.client.HTTPException)):  # plain HTTP to the TLS web port
            urllib.request.urlopen(f"http://127.0.0.1:{server.web_port}/api/games", timeout=5).read()
        out = tmp_path / "t.json"
        code = tournament.main(["--server", server.target, "--game", "pompeii", "--seats", "2",
                                "--bots", "random,random", "--games", "2", "--parallel", "1",
                                "--tls", "--ca", certs["ca"],
                                "--json", str(out), "--quiet"])
        report = json.loads(out.read_text())
        assert code == 0 and report["errors"] == [] and report["results"][0]["outcome"]
    finally:
        server.stop()


def test_mutual_tls_needs_a_client_certificate(tmp_path, certs):
    server = TLSServer(tmp_path / "d", certs, mtls=True).start()
    try:
        client = Client(server.target, "pompeii", ca=certs["ca"], cert=certs["cert"], key=certs["key"])
        game_id, _ = client.create(2, seed=2)
        without = grpc.secure_channel(server.target, grpc.ssl_channel_credentials(
            root_certificates=open(certs["ca"], "rb").read()))
        with pytest.raises(grpc.RpcError) as e:
            Client(server.target, "pompeii", channel=without).common.GetGameStatus(
                common_pb2.GetGameStatusRequest(game_id=game_id), timeout=5)
        assert e.value.code() == grpc.StatusCode.UNAVAILABLE
        ctx = ssl.create_default_context(cafile=certs["ca"])
        ctx.load_cert_chain(certs["cert"], certs["key"])
        assert web_get(server, ctx) == 200
        with pytest.raises(OSError):  # no client certificate: the handshake fails
            web_get(server, ssl.create_default_context(cafile=certs["ca"]))
    finally:
        server.stop()


def test_a_tls_handshake_that_never_comes_is_closed_after_GE_WEB_HEADER_TIMEOUT_S(tmp_path, certs):
    import socket
    import time
    server = TLSServer(tmp_path / "d", certs, mtls=False)
    server.env["GE_WEB_HEADER_TIMEOUT_S"] = "1"
    server.start()
    try:
        with socket.create_connection(("127.0.0.1", server.web_port)) as s:
            s.settimeout(5)
            t0 = time.monotonic()
            try:
                assert s.recv(1) == b""
            except ConnectionResetError:
                pass
            assert time.monotonic() - t0 < 4, "closed after the 1 s timeout, not ssl's default of 60 s"
    finally:
        server.stop()
