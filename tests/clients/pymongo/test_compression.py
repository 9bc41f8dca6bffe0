"""Wire compression through pymongo 3.11: each compressor it supports
(zlib built in; snappy and zstd with Debian's python3-snappy and
python3-zstandard) is negotiated in hello and carries requests and replies,
as serverStatus's network.compression counters show."""

import unittest

import pymongo

from tigerdoc_server import TigerdocServer


class CompressionThroughPymongo(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.server = TigerdocServer().start()
        cls.plain = pymongo.MongoClient(cls.server.uri)

    @classmethod
    def tearDownClass(cls):
        cls.plain.close()
        cls.server.stop_expecting_clean_exit()

    def counters(self, name):
        return self.plain.admin.command("serverStatus")["network"]["compression"][name]

    def check(self, name):
        before = self.counters(name)
        with pymongo.MongoClient(self.server.uri + "&compressors=" + name) as client:
            coll = client.pycompress[name]
            coll.insert_many([{"i": i, "text": "z" * 400} for i in range(300)])
            docs = list(coll.find({}, sort=[("i", 1)]))
            self.assertEqual(len(docs), 300)
            self.assertEqual(docs[-1], {"_id": docs[-1]["_id"], "i": 299, "text": "z" * 400})
        after = self.counters(name)
        received = after["decompressor"]["bytesIn"] - before["decompressor"]["bytesIn"]
        sent = after["compressor"]["bytesOut"] - before["compressor"]["bytesOut"]
        sent_raw = after["compressor"]["bytesIn"] - before["compressor"]["bytesIn"]
        self.assertGreater(received, 0, name)
        self.assertGreater(sent_raw, 300 * 400, name)
        self.assertLess(sent, sent_raw / 5, name)

    def test_zlib(self):
        self.check("zlib")

    def test_snappy(self):
        try:
            import snappy  # noqa: F401
        except ImportError:
            self.skipTest("python3-snappy is not installed")
        self.check("snappy")

    def test_zstd(self):
        try:
            import zstandard  # noqa: F401
        except ImportError:
            self.skipTest("python3-zstandard is not installed")
        self.check("zstd")


if __name__ == "__main__":
    unittest.main()
