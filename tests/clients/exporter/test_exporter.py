"""Debian's prometheus-mongodb-exporter scraping a real tigerdoc server:
the exporter (an mgo-based client) connects, reads serverStatus and top, and
its /metrics shows the values this test caused (operations, documents,
connections, network, memory, WiredTiger's cache, per-collection top), cross-checked with
serverStatus and top themselves."""

import os
import re
import subprocess
import time
import unittest
import urllib.request

import pymongo

from tigerdoc_server import TigerdocServer, free_port

EXPORTER = "/usr/bin/prometheus-mongodb-exporter"


def metric(text, name, labels=""):
    """The value of `name{labels}` in a Prometheus text page, or None."""
    pattern = "^" + re.escape(name + ("{" + labels + "}" if labels else "")) + r" (\S+)$"
    m = re.search(pattern, text, re.MULTILINE)
    return float(m.group(1)) if m else None


class ExporterScrapesTigerdoc(unittest.TestCase):
    def setUp(self):
        self.assertTrue(os.access(EXPORTER, os.X_OK),
                        "Debian prometheus-mongodb-exporter is not installed (scripts/install-deps --test)")
        self.server = TigerdocServer().start()
        self.client = pymongo.MongoClient(self.server.uri)
        self.port = free_port()
        self.exporter = subprocess.Popen(
            [EXPORTER, "-mongodb.uri", "mongodb://127.0.0.1:%d" % self.server.port,
             "-web.listen-address", "127.0.0.1:%d" % self.port, "-logtostderr",
             "-mongodb.collect.oplog=false", "-mongodb.collect.replset=false", "-mongodb.collect.top"],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)

    def tearDown(self):
        self.exporter.terminate()
        self.exporter.wait(timeout=10)
        self.exporter.stdout.close()
        self.client.close()
        self.assertEqual(self.server.stop(), 0)

    def scrape(self):
        deadline = time.time() + 20
        while True:
            try:
                with urllib.request.urlopen("http://127.0.0.1:%d/metrics" % self.port, timeout=5) as r:
                    text = r.read().decode()
                if metric(text, "mongodb_up") == 1:
                    return text
            except OSError:
                pass
            if time.time() > deadline:
                self.fail("the exporter never saw the server up")
            time.sleep(0.2)

    def test_metrics_show_real_values(self):
        coll = self.client.exporter_db.items
        coll.insert_many([{"_id": i} for i in range(250)])
        coll.update_many({"_id": {"$lt": 10}}, {"$set": {"x": 1}})
        coll.delete_many({"_id": {"$gte": 240}})
        self.assertEqual(len(list(coll.find().batch_size(100))), 240)
        status = self.client.admin.command("serverStatus")
        text = self.scrape()
        self.assertEqual(metric(text, "mongodb_up"), 1)
        # Monotonic counters: at least what this test did, and the exporter
        # reports what serverStatus says (it read it just after us).
        self.assertGreaterEqual(metric(text, "mongodb_op_counters_total", 'type="insert"'), 250)
        self.assertGreaterEqual(metric(text, "mongodb_op_counters_total", 'type="update"'), 1)
        self.assertGreaterEqual(metric(text, "mongodb_op_counters_total", 'type="delete"'), 1)
        self.assertGreaterEqual(metric(text, "mongodb_op_counters_total", 'type="query"'), 1)
        self.assertGreaterEqual(metric(text, "mongodb_op_counters_total", 'type="getmore"'), 2)
        self.assertEqual(metric(text, "mongodb_metrics_document_total", 'state="inserted"'), 250)
        self.assertEqual(metric(text, "mongodb_metrics_document_total", 'state="updated"'), 10)
        self.assertEqual(metric(text, "mongodb_metrics_document_total", 'state="deleted"'), 10)
        self.assertEqual(metric(text, "mongodb_metrics_document_total", 'state="returned"'), 240)
        self.assertEqual(status["metrics"]["document"]["inserted"], 250)
        self.assertGreaterEqual(metric(text, "mongodb_connections", 'state="current"'), 2)
        self.assertGreaterEqual(metric(text, "mongodb_network_bytes_total", 'state="in_bytes"'),
                                status["network"]["bytesIn"])
        self.assertGreater(metric(text, "mongodb_network_metrics_num_requests_total"), 0)
        self.assertGreater(metric(text, "mongodb_memory", 'type="resident"'), 0)
        self.assertGreater(status["mem"]["resident"], 0)
        self.assertGreaterEqual(status["opLatencies"]["writes"]["ops"], 3)
        # WiredTiger's cache, from its statistics cursor: the configured
        # size (the server runs with --cacheSizeMB 64) and what it holds now.
        cache = status["wiredTiger"]["cache"]
        self.assertEqual(cache["maximum bytes configured"], 64 * 1024 * 1024)
        self.assertEqual(metric(text, "mongodb_wiredtiger_cache_max_bytes"), 64 * 1024 * 1024)
        self.assertGreater(cache["bytes currently in the cache"], 0)
        self.assertGreater(metric(text, "mongodb_wiredtiger_cache_bytes", 'type="total"'), 0)
        # top, per collection: one insert command, one update, one delete.
        top = self.client.admin.command("top")["totals"]["exporter_db.items"]
        self.assertEqual((top["insert"]["count"], top["update"]["count"], top["remove"]["count"]), (1, 1, 1))
        self.assertEqual(top["writeLock"]["count"], 3)
        self.assertGreaterEqual(top["queries"]["count"], 1)
        self.assertGreaterEqual(top["total"]["time"], top["insert"]["time"])
        labels = 'collection="items",database="exporter_db",type="%s"'
        self.assertEqual(metric(text, "mongodb_top_count_total", labels % "Insert"), 1)
        self.assertEqual(metric(text, "mongodb_top_count_total", labels % "Remove"), 1)
        self.assertGreaterEqual(metric(text, "mongodb_top_count_total", labels % "Queries"), 1)


if __name__ == "__main__":
    unittest.main()
