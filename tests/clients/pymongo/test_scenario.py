"""The client scenario (tests/clients/README.md) through pymongo 3.11
(Debian's python3-pymongo), against the real server tigerdoc_server starts."""

import unittest

from pymongo import ASCENDING, DESCENDING, InsertOne, MongoClient, ReturnDocument
from pymongo.errors import BulkWriteError, OperationFailure, WriteError

from tigerdoc_server import TigerdocServer


def order(_id, customer, status, total):
    return {"_id": _id, "customer": customer, "status": status, "total": total}


class ScenarioThroughPymongo(unittest.TestCase):
    def setUp(self):
        self.server = TigerdocServer().start()
        # The driver's defaults and a plain mongodb:// URI.
        self.client = MongoClient("mongodb://127.0.0.1:%d/" % self.server.port)

    def tearDown(self):
        self.client.close()
        self.server.stop_expecting_clean_exit()

    def test_scenario(self):
        db = self.client.scenario_pymongo
        self.client.drop_database(db.name)

        # 1. create with tigerdoc's options
        customers = db.create_collection("customers")
        orders = db.create_collection("orders", shardKey={"customer": 1}, shards=3,
                                      maxDocumentBytes=2048)
        [info] = list(db.list_collections(filter={"name": "orders"}))
        self.assertEqual(info["options"]["shardKey"], {"customer": 1})
        self.assertEqual(info["options"]["maxDocumentBytes"], 2048)

        # 2. CRUD
        inserted = customers.insert_many([{"_id": "c1", "name": "Ada"}, {"_id": "c2", "name": "Bo"},
                                          {"_id": "c3", "name": "Cy"}])
        self.assertEqual(inserted.inserted_ids, ["c1", "c2", "c3"])
        orders.insert_one(order(1, "c1", "open", 10))
        self.assertEqual(orders.find_one({"_id": 1})["total"], 10)
        self.assertEqual(orders.update_one({"_id": 1}, {"$inc": {"total": 5}}).modified_count, 1)
        replaced = orders.replace_one({"_id": 1}, {"customer": "c1", "status": "open", "total": 15,
                                                   "note": "replaced"})
        self.assertEqual(replaced.modified_count, 1)
        self.assertEqual(orders.find_one({"_id": 1})["note"], "replaced")
        self.assertEqual(customers.delete_one({"_id": "c3"}).deleted_count, 1)

        # 3. bulk writes with a duplicate key, ordered and unordered
        with self.assertRaises(BulkWriteError) as e:
            orders.bulk_write([InsertOne(order(2, "c1", "open", 20)), InsertOne(order(2, "c1", "open", 20)),
                               InsertOne(order(3, "c2", "closed", 30))], ordered=True)
        errors = e.exception.details["writeErrors"]
        self.assertEqual([(w["index"], w["code"]) for w in errors], [(1, 11000)])
        self.assertEqual(e.exception.details["nInserted"], 1)
        self.assertIsNone(orders.find_one({"_id": 3}))
        with self.assertRaises(BulkWriteError) as e:
            orders.bulk_write([InsertOne(order(3, "c2", "closed", 30)), InsertOne(order(2, "c1", "open", 20)),
                               InsertOne(order(4, "c2", "open", 40))], ordered=False)
        errors = e.exception.details["writeErrors"]
        self.assertEqual([(w["index"], w["code"]) for w in errors], [(1, 11000)])
        self.assertEqual(e.exception.details["nInserted"], 2)

        # 4. findOneAndUpdate, the document after
        after = orders.find_one_and_update({"_id": 4}, {"$set": {"status": "shipped"}},
                                           return_document=ReturnDocument.AFTER)
        self.assertEqual((after["status"], after["total"]), ("shipped", 40))

        # 5. index create / list / drop
        name = orders.create_index([("status", ASCENDING), ("total", DESCENDING)], name="status_total")
        self.assertEqual(name, "status_total")
        indexes = {spec["name"]: spec for spec in orders.list_indexes()}
        self.assertIn("_id_", indexes)
        self.assertEqual(list(indexes["status_total"]["key"].items()), [("status", 1), ("total", -1)])
        orders.drop_index("status_total")
        self.assertNotIn("status_total", [spec["name"] for spec in orders.list_indexes()])

        # 6. aggregate with $lookup and $group
        totals = list(orders.aggregate([
            {"$lookup": {"from": "customers", "localField": "customer", "foreignField": "_id", "as": "c"}},
            {"$unwind": "$c"},
            {"$group": {"_id": "$c.name", "total": {"$sum": "$total"}, "n": {"$sum": 1}}},
            {"$sort": {"_id": 1}}]))
        self.assertEqual(totals, [{"_id": "Ada", "total": 35, "n": 2}, {"_id": "Bo", "total": 70, "n": 2}])

        # 7. a cursor paging past one batch
        db.pages.insert_many([{"_id": i, "i": i} for i in range(250)])
        self.assertEqual([d["i"] for d in db.pages.find().sort("_id", 1).batch_size(40)], list(range(250)))

        # 8. counts
        self.assertEqual(orders.count_documents({"status": "open"}), 2)
        self.assertEqual(orders.estimated_document_count(), 4)

        # 9. distinct
        self.assertEqual(sorted(orders.distinct("customer")), ["c1", "c2"])

        # 10. explain: one shard of three read for the shard key
        plan = orders.find({"customer": "c1"}).explain()
        self.assertIn("queryPlanner", plan)
        self.assertTrue(plan["sharding"]["targeted"])
        self.assertEqual(plan["sharding"]["numShards"], 3)
        self.assertEqual(len(plan["sharding"]["shardsRead"]), 1)

        # 11. server error codes as the driver exposes them
        with self.assertRaises(WriteError) as e:
            orders.insert_one({"_id": 5, "customer": "c1", "pad": "x" * 3000})
        self.assertEqual(e.exception.code, 10334)
        with self.assertRaises(OperationFailure) as e:
            db.command("tigerdocNoSuchCommand")
        self.assertEqual(e.exception.code, 59)
        self.assertEqual(e.exception.details["codeName"], "CommandNotFound")


if __name__ == "__main__":
    unittest.main()
