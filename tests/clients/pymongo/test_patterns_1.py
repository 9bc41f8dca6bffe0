"""Built-in patterns 1 through pymongo 3.11 (issue #12): size limits,
MongoDB's validator and the discriminator, configured with the driver's own
create_collection / command helpers, seen in list_collections and collStats,
refused with code, codeName and a message that says what to change."""

import threading
import unittest

import bson
import pymongo
from pymongo.errors import BulkWriteError, OperationFailure, WriteError

from tigerdoc_server import TigerdocServer

PARTITION_LIMIT_CODE = 91000001
SHARD_LIMIT_CODE = 91000002


class PatternsThroughPymongo(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.server = TigerdocServer().start()
        cls.client = pymongo.MongoClient(cls.server.uri)
        cls.db = cls.client.pymongo_patterns

    @classmethod
    def tearDownClass(cls):
        cls.client.close()
        # The server must still be alive and stop cleanly after everything.
        cls.server.stop_expecting_clean_exit()

    def options_of(self, name):
        infos = list(self.db.list_collections(filter={"name": name}))
        self.assertEqual(len(infos), 1)
        return infos[0]["options"]

    def test_size_limits(self):
        coll = self.db.create_collection(
            "limited", maxDocumentBytes=1024, maxPartitionBytes=4096, maxShardBytes=1 << 30)
        options = self.options_of("limited")
        self.assertEqual(options["maxDocumentBytes"], 1024)
        self.assertEqual(options["maxPartitionBytes"], 4096)

        # Per document: just below, at and above the limit (BSON bytes).
        def doc_of_size(size, _id):
            base = len(bson.BSON.encode({"_id": _id, "pad": ""}))
            return {"_id": _id, "pad": "x" * (size - base)}

        coll.insert_one(doc_of_size(1023, 1))
        coll.insert_one(doc_of_size(1024, 2))
        with self.assertRaises(WriteError) as e:
            coll.insert_one(doc_of_size(1025, 3))
        self.assertEqual(e.exception.code, 10334)
        self.assertIn("1024", str(e.exception))
        with self.assertRaises(WriteError) as e:
            coll.update_one({"_id": 1}, {"$set": {"more": "y" * 10}})
        self.assertEqual(e.exception.code, 17419)
        self.assertEqual(coll.count_documents({}), 2)

    def test_partition_limit_refuses_and_frees(self):
        # Partitions are the documents sharing one shard-key value.
        self.db.command({"create": "orders", "shardKey": {"tenant": 1}, "maxPartitionBytes": 2000})
        coll = self.db.orders
        row = len(bson.BSON.encode({"_id": 0, "tenant": "a", "pad": "x" * 100}))
        fits = 2000 // row
        coll.insert_many([{"_id": i, "tenant": "a", "pad": "x" * 100} for i in range(fits)])
        with self.assertRaises(WriteError) as e:
            coll.insert_one({"_id": fits, "tenant": "a", "pad": "x" * 100})
        self.assertEqual(e.exception.code, PARTITION_LIMIT_CODE)
        # A command error (findAndModify) carries the codeName as well.
        with self.assertRaises(OperationFailure) as e2:
            coll.find_one_and_update({"_id": 1}, {"$set": {"pad": "x" * 300}})
        self.assertEqual(e2.exception.code, PARTITION_LIMIT_CODE)
        self.assertEqual(e2.exception.details["codeName"], "PartitionSizeLimitExceeded")
        self.assertIn("pymongo_patterns.orders", str(e.exception))
        self.assertIn("2000", str(e.exception))
        # Another partition is not affected; deleting frees the space.
        coll.insert_one({"_id": "b0", "tenant": "b", "pad": "x" * 100})
        coll.delete_one({"_id": 0})
        coll.insert_one({"_id": fits, "tenant": "a", "pad": "x" * 100})
        self.assertEqual(coll.count_documents({"tenant": "a"}), fits)

        # Raised through collMod, a larger write passes.
        self.db.command({"collMod": "orders", "maxPartitionBytes": 10000})
        coll.insert_one({"_id": "big", "tenant": "a", "pad": "x" * 1500})
        self.assertEqual(self.options_of("orders")["maxPartitionBytes"], 10000)

        stats = self.db.command({"collStats": "orders"})
        limits = stats["patterns"]["sizeLimits"]
        self.assertEqual(limits["maxPartitionBytes"], 10000)
        self.assertEqual(sum(s["count"] for s in limits["shards"]), fits + 2)
        largest = limits["largestPartitions"][0]
        self.assertEqual(largest["count"], fits + 1)

    def test_bad_configuration_names_the_field(self):
        cases = [
            ({"maxDocumentBytes": 10}, 2, "maxDocumentBytes"),
            ({"maxDocumentBytes": "big"}, 14, "maxDocumentBytes"),
            ({"discriminator": {"field": "type", "types": {}, "bogus": 1}}, 40415, "bogus"),
            ({"discriminator": {"field": "", "types": {"a": {}}}}, 2, "discriminator.field"),
            ({"discriminator": {"field": "type", "types": {"a": {"$nope": 1}}}}, None, "$nope"),
        ]
        for i, (options, code, field) in enumerate(cases):
            with self.assertRaises(OperationFailure) as e:
                self.db.command(dict({"create": "bad%d" % i}, **options))
            if code is not None:
                self.assertEqual(e.exception.code, code, str(e.exception))
            self.assertIn(field, str(e.exception))
            self.assertNotIn("bad%d" % i, self.db.list_collection_names())

    def test_validator_and_bypass(self):
        coll = self.db.create_collection("people", validator={"$jsonSchema": {
            "bsonType": "object", "required": ["name"],
            "properties": {"age": {"bsonType": "int", "minimum": 0}}}})
        self.assertIn("$jsonSchema", self.options_of("people")["validator"])
        coll.insert_one({"name": "ann", "age": 3})
        with self.assertRaises(WriteError) as e:
            coll.insert_one({"age": -1})
        self.assertEqual(e.exception.code, 121)
        self.assertEqual(e.exception.details["errInfo"]["details"]["operatorName"], "$jsonSchema")
        coll.insert_one({"age": -1}, bypass_document_validation=True)
        self.assertEqual(coll.count_documents({"$jsonSchema": {"required": ["name"]}}), 1)
        self.db.command({"collMod": "people", "validationAction": "warn"})
        coll.insert_one({"age": -2})
        self.assertEqual(self.options_of("people")["validationAction"], "warn")

    def test_discriminator_from_several_connections(self):
        self.db.create_collection("events", discriminator={
            "field": "type", "required": True,
            "types": {"user.login": {}, "order.*": {"orderId": {"$exists": True}}}})
        self.assertEqual(self.options_of("events")["discriminator"]["field"], "type")
        with self.assertRaises(BulkWriteError) as e:
            self.db.events.insert_many(
                [{"type": "user.login"}, {"type": "payment.failed"}, {"type": "order.created"}],
                ordered=False)
        errors = e.exception.details["writeErrors"]
        self.assertEqual([err["code"] for err in errors], [121, 121])
        self.assertEqual(errors[0]["errInfo"]["details"]["value"], "payment.failed")
        self.assertEqual(e.exception.details["nInserted"], 1)

        # Four clients insert at once; the per-type counts stay exact.
        def writer(n):
            client = pymongo.MongoClient(self.server.uri)
            events = client.pymongo_patterns.events
            for i in range(250):
                events.insert_one({"type": "order.created" if i % 2 else "user.login",
                                   "orderId": i, "writer": n})
            client.close()

        threads = [threading.Thread(target=writer, args=(n,)) for n in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        types = self.db.command({"collStats": "events"})["patterns"]["discriminator"]["types"]
        self.assertEqual(types["order.*"]["count"], 500)
        self.assertEqual(types["user.login"]["count"], 501)
        self.assertEqual(self.db.events.count_documents({"type": {"$regex": "^order\\."}}), 500)
        self.assertTrue(self.db.command({"validate": "events"})["valid"])


if __name__ == "__main__":
    unittest.main()
