"""TLS through pymongo 3.11 (Python's ssl module, so a second TLS stack
beside libmongoc's OpenSSL and mongosh's Node.js): a server with --tlsMode
requireTLS and a CA for client certificates, certificates made for the test
by tests/testutil/make_test_certificates.sh. pymongo with the CA and a client
certificate writes and reads, authenticates with SCRAM over TLS and uses
wire compression inside TLS; without TLS, without a client certificate, or
trusting another CA it cannot connect, and the server keeps serving."""

import os
import shutil
import subprocess
import tempfile
import unittest
import zlib  # noqa: F401  (pymongo's zlib compressor needs it)

import pymongo
from pymongo.errors import ServerSelectionTimeoutError

from tigerdoc_server import TigerdocServer

HERE = os.path.dirname(os.path.abspath(__file__))
MAKE_CERTIFICATES = os.path.join(HERE, "..", "..", "testutil", "make_test_certificates.sh")


class TlsThroughPymongo(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.certs = tempfile.mkdtemp(prefix="tigerdoc-pymongo-tls-")
        # Runs after tearDownClass, also when it or setUpClass fails.
        cls.addClassCleanup(shutil.rmtree, cls.certs, ignore_errors=True)
        subprocess.run(["bash", MAKE_CERTIFICATES, cls.certs], check=True)
        cls.ca = os.path.join(cls.certs, "ca.pem")
        cls.client_pem = os.path.join(cls.certs, "client.pem")
        cls.server = TigerdocServer(extra_args=[
            "--auth", "--tlsMode", "requireTLS",
            "--tlsCertificateKeyFile", os.path.join(cls.certs, "server.pem"),
            "--tlsCAFile", cls.ca]).start()

    @classmethod
    def tearDownClass(cls):
        cls.server.stop_expecting_clean_exit()

    def client(self, uri_suffix="", **kwargs):
        options = dict(tls=True, tlsCAFile=self.ca, tlsCertificateKeyFile=self.client_pem,
                       serverSelectionTimeoutMS=5000)
        options.update(kwargs)
        return pymongo.MongoClient(self.server.uri + uri_suffix, **options)

    def test_writes_reads_and_logs_in_over_tls(self):
        with self.client() as anonymous:
            # The localhost exception, over TLS.
            anonymous.admin.command("createUser", "tlsuser", pwd="pw", roles=["root"])
        with self.client("&authSource=admin", username="tlsuser", password="pw") as c:
            coll = c.pytls.docs
            coll.insert_many([{"i": i, "pad": "p" * 2000} for i in range(200)])
            docs = list(coll.find({}, sort=[("i", 1)]))
            # 400 KB of replies: many TLS records per message.
            self.assertEqual([d["i"] for d in docs], list(range(200)))
            status = c.admin.command("connectionStatus")
            self.assertEqual(status["authInfo"]["authenticatedUsers"],
                             [{"user": "tlsuser", "db": "admin"}])
        with self.client("&authSource=admin&compressors=zlib", username="tlsuser",
                         password="pw") as c:
            self.assertEqual(c.pytls.docs.count_documents({"i": {"$gte": 100}}), 100)

    def test_refusals_leave_the_server_serving(self):
        plain = pymongo.MongoClient(self.server.uri, serverSelectionTimeoutMS=1500)
        with self.assertRaises(ServerSelectionTimeoutError):
            plain.admin.command("ping")
        plain.close()
        without_certificate = pymongo.MongoClient(self.server.uri, tls=True, tlsCAFile=self.ca,
                                                  serverSelectionTimeoutMS=1500)
        with self.assertRaises(ServerSelectionTimeoutError):
            without_certificate.admin.command("ping")
        without_certificate.close()
        wrong_ca = self.client(tlsCAFile=os.path.join(self.certs, "other-ca.pem"),
                               serverSelectionTimeoutMS=1500)
        with self.assertRaises(ServerSelectionTimeoutError):
            wrong_ca.admin.command("ping")
        wrong_ca.close()
        with self.client() as c:
            self.assertEqual(c.admin.command("ping")["ok"], 1.0)


if __name__ == "__main__":
    unittest.main()
