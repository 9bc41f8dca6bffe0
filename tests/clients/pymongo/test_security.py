"""Authentication through pymongo 3.11 against a server started with --auth:
the localhost exception, logins with SCRAM-SHA-1, SCRAM-SHA-256 and the
driver's negotiated default (saslSupportedMechs, speculative authentication),
a wrong password (18 AuthenticationFailed), roles refusing with 13, and
several threads logging in at once."""

import threading
import unittest

import pymongo
from pymongo.errors import OperationFailure

from tigerdoc_server import TigerdocServer


class AuthThroughPymongo(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.server = TigerdocServer(extra_args=["--auth"]).start()
        anonymous = pymongo.MongoClient(cls.server.uri)
        # The localhost exception: the first user, from the server's machine.
        anonymous.admin.command("createUser", "admin", pwd="s3cret", roles=["root"])
        with cls.assertRaises(cls, OperationFailure) as e:
            anonymous.admin.command("createUser", "second", pwd="x", roles=[])
        assert e.exception.code == 13, e.exception.details
        anonymous.close()

    @classmethod
    def tearDownClass(cls):
        cls.server.stop_expecting_clean_exit()

    def client(self, user, pwd, **kwargs):
        return pymongo.MongoClient(self.server.uri, username=user, password=pwd,
                                   authSource="admin", **kwargs)

    def test_each_mechanism_logs_in(self):
        for mechanism in (None, "SCRAM-SHA-1", "SCRAM-SHA-256"):
            kwargs = {"authMechanism": mechanism} if mechanism else {}
            with self.client("admin", "s3cret", **kwargs) as c:
                status = c.admin.command("connectionStatus")
                self.assertEqual(status["authInfo"]["authenticatedUsers"],
                                 [{"user": "admin", "db": "admin"}], mechanism)
                c.pym.logins.insert_one({"mechanism": str(mechanism)})
        with self.client("admin", "s3cret") as c:
            self.assertEqual(c.pym.logins.count_documents({}), 3)

    def test_uri_form_logs_in(self):
        uri = self.server.uri.replace("mongodb://", "mongodb://admin:s3cret@") + "&authSource=admin"
        with pymongo.MongoClient(uri) as c:
            self.assertEqual(c.admin.command("ping")["ok"], 1.0)

    def test_wrong_password_is_authentication_failed(self):
        with self.client("admin", "wrong", serverSelectionTimeoutMS=3000) as c:
            with self.assertRaises(OperationFailure) as e:
                c.admin.command("ping")
            self.assertEqual(e.exception.code, 18)
            self.assertIn("Authentication failed.", str(e.exception))

    def test_roles_refuse_with_13(self):
        with self.client("admin", "s3cret") as root:
            root.admin.command("createUser", "pyreader", pwd="r",
                               roles=[{"role": "read", "db": "pyroles"}])
            root.pyroles.c.insert_one({"x": 1})
        with self.client("pyreader", "r") as reader:
            self.assertEqual(reader.pyroles.c.count_documents({}), 1)
            with self.assertRaises(OperationFailure) as e:
                reader.pyroles.c.insert_one({"x": 2})
            self.assertEqual(e.exception.code, 13)
            self.assertTrue(str(e.exception).startswith("not authorized on pyroles"),
                            str(e.exception))
            with self.assertRaises(OperationFailure) as e:
                reader.other.c.find_one()
            self.assertEqual(e.exception.code, 13)

    def test_threads_log_in_at_once(self):
        errors = []

        def work(i):
            try:
                with self.client("admin", "s3cret",
                                 authMechanism="SCRAM-SHA-1" if i % 2 else "SCRAM-SHA-256") as c:
                    for j in range(10):
                        c.pythreads.c.insert_one({"t": i, "j": j})
            except Exception as e:  # reported below
                errors.append(e)

        threads = [threading.Thread(target=work, args=(i,)) for i in range(6)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(errors, [])
        with self.client("admin", "s3cret") as c:
            self.assertEqual(c.pythreads.c.count_documents({}), 60)


if __name__ == "__main__":
    unittest.main()
