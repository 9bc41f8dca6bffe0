// The client scenario (tests/clients/README.md) through the Go driver 1.8
// (Debian's golang-mongodb-mongo-driver-dev, built in GOPATH mode from
// /usr/share/gocode by run.sh). Run by tests/clients/with-server, which sets
// TIGERDOC_URI.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"reflect"
	"sort"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo"
	"go.mongodb.org/mongo-driver/mongo/options"
)

func check(cond bool, format string, args ...interface{}) {
	if !cond {
		fmt.Fprintf(os.Stderr, "go scenario: FAIL: "+format+"\n", args...)
		os.Exit(1)
	}
}

func must(err error, what string) {
	check(err == nil, "%s: %v", what, err)
}

// asInt reads a BSON number whichever width the server chose.
func asInt(v interface{}) int64 {
	switch n := v.(type) {
	case int32:
		return int64(n)
	case int64:
		return n
	case float64:
		return int64(n)
	}
	check(false, "not a number: %#v", v)
	return 0
}

func order(id int, customer, status string, total int) bson.D {
	return bson.D{{Key: "_id", Value: id}, {Key: "customer", Value: customer},
		{Key: "status", Value: status}, {Key: "total", Value: total}}
}

func inserts(docs ...bson.D) []mongo.WriteModel {
	models := make([]mongo.WriteModel, 0, len(docs))
	for _, d := range docs {
		models = append(models, mongo.NewInsertOneModel().SetDocument(d))
	}
	return models
}

func indexNames(ctx context.Context, coll *mongo.Collection) map[string]bson.M {
	cursor, err := coll.Indexes().List(ctx)
	must(err, "listIndexes")
	var specs []bson.M
	must(cursor.All(ctx, &specs), "listIndexes cursor")
	names := map[string]bson.M{}
	for _, s := range specs {
		names[s["name"].(string)] = s
	}
	return names
}

func main() {
	uri := os.Getenv("TIGERDOC_URI")
	check(strings.HasPrefix(uri, "mongodb://"), "TIGERDOC_URI must be a mongodb:// URI, got %q", uri)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	client, err := mongo.Connect(ctx, options.Client().ApplyURI(uri)) // the driver's defaults
	must(err, "connect")
	defer client.Disconnect(ctx)
	db := client.Database("scenario_go")
	must(db.Drop(ctx), "dropDatabase")

	// 1. create with tigerdoc's options (the driver's CreateCollectionOptions
	// know only MongoDB's, so the options go through a create command).
	must(db.CreateCollection(ctx, "customers"), "create customers")
	must(db.RunCommand(ctx, bson.D{{Key: "create", Value: "orders"},
		{Key: "shardKey", Value: bson.D{{Key: "customer", Value: 1}}},
		{Key: "shards", Value: 3}, {Key: "maxDocumentBytes", Value: 2048}}).Err(), "create orders")
	cursor, err := db.ListCollections(ctx, bson.D{{Key: "name", Value: "orders"}})
	must(err, "listCollections")
	var infos []bson.M
	must(cursor.All(ctx, &infos), "listCollections cursor")
	check(len(infos) == 1, "listCollections: %v", infos)
	opts := infos[0]["options"].(bson.M)
	check(asInt(opts["shardKey"].(bson.M)["customer"]) == 1, "options.shardKey: %v", opts)
	check(asInt(opts["maxDocumentBytes"]) == 2048, "options.maxDocumentBytes: %v", opts)

	// 2. CRUD
	customers := db.Collection("customers")
	orders := db.Collection("orders")
	many, err := customers.InsertMany(ctx, []interface{}{
		bson.D{{Key: "_id", Value: "c1"}, {Key: "name", Value: "Ada"}},
		bson.D{{Key: "_id", Value: "c2"}, {Key: "name", Value: "Bo"}},
		bson.D{{Key: "_id", Value: "c3"}, {Key: "name", Value: "Cy"}}})
	must(err, "insertMany")
	check(len(many.InsertedIDs) == 3, "insertMany ids: %v", many.InsertedIDs)
	_, err = orders.InsertOne(ctx, order(1, "c1", "open", 10))
	must(err, "insertOne")
	var doc bson.M
	must(orders.FindOne(ctx, bson.D{{Key: "_id", Value: 1}}).Decode(&doc), "findOne")
	check(asInt(doc["total"]) == 10, "findOne: %v", doc)
	updated, err := orders.UpdateOne(ctx, bson.D{{Key: "_id", Value: 1}},
		bson.D{{Key: "$inc", Value: bson.D{{Key: "total", Value: 5}}}})
	must(err, "updateOne")
	check(updated.ModifiedCount == 1, "updateOne modified %d", updated.ModifiedCount)
	replaced, err := orders.ReplaceOne(ctx, bson.D{{Key: "_id", Value: 1}},
		bson.D{{Key: "customer", Value: "c1"}, {Key: "status", Value: "open"},
			{Key: "total", Value: 15}, {Key: "note", Value: "replaced"}})
	must(err, "replaceOne")
	check(replaced.ModifiedCount == 1, "replaceOne modified %d", replaced.ModifiedCount)
	must(orders.FindOne(ctx, bson.D{{Key: "_id", Value: 1}}).Decode(&doc), "findOne")
	check(doc["note"] == "replaced", "after replaceOne: %v", doc)
	deleted, err := customers.DeleteOne(ctx, bson.D{{Key: "_id", Value: "c3"}})
	must(err, "deleteOne")
	check(deleted.DeletedCount == 1, "deleteOne deleted %d", deleted.DeletedCount)

	// 3. bulk writes with a duplicate key, ordered and unordered
	res, err := orders.BulkWrite(ctx, inserts(order(2, "c1", "open", 20), order(2, "c1", "open", 20),
		order(3, "c2", "closed", 30)), options.BulkWrite().SetOrdered(true))
	var bulkErr mongo.BulkWriteException
	check(errors.As(err, &bulkErr), "ordered bulkWrite: expected BulkWriteException, got %T %v", err, err)
	check(len(bulkErr.WriteErrors) == 1 && bulkErr.WriteErrors[0].Index == 1 &&
		bulkErr.WriteErrors[0].Code == 11000, "ordered bulkWrite errors: %v", bulkErr.WriteErrors)
	check(mongo.IsDuplicateKeyError(err), "IsDuplicateKeyError(%v)", err)
	check(res.InsertedCount == 1, "ordered bulkWrite inserted %d", res.InsertedCount)
	check(errors.Is(orders.FindOne(ctx, bson.D{{Key: "_id", Value: 3}}).Err(), mongo.ErrNoDocuments),
		"ordered bulkWrite went on past its error")
	res, err = orders.BulkWrite(ctx, inserts(order(3, "c2", "closed", 30), order(2, "c1", "open", 20),
		order(4, "c2", "open", 40)), options.BulkWrite().SetOrdered(false))
	check(errors.As(err, &bulkErr), "unordered bulkWrite: expected BulkWriteException, got %T %v", err, err)
	check(len(bulkErr.WriteErrors) == 1 && bulkErr.WriteErrors[0].Index == 1 &&
		bulkErr.WriteErrors[0].Code == 11000, "unordered bulkWrite errors: %v", bulkErr.WriteErrors)
	check(res.InsertedCount == 2, "unordered bulkWrite inserted %d", res.InsertedCount)

	// 4. findOneAndUpdate, the document after
	var after bson.M
	must(orders.FindOneAndUpdate(ctx, bson.D{{Key: "_id", Value: 4}},
		bson.D{{Key: "$set", Value: bson.D{{Key: "status", Value: "shipped"}}}},
		options.FindOneAndUpdate().SetReturnDocument(options.After)).Decode(&after), "findOneAndUpdate")
	check(after["status"] == "shipped" && asInt(after["total"]) == 40, "findOneAndUpdate: %v", after)

	// 5. index create / list / drop
	name, err := orders.Indexes().CreateOne(ctx, mongo.IndexModel{
		Keys:    bson.D{{Key: "status", Value: 1}, {Key: "total", Value: -1}},
		Options: options.Index().SetName("status_total")})
	must(err, "createIndex")
	check(name == "status_total", "createIndex name %q", name)
	names := indexNames(ctx, orders)
	_, hasID := names["_id_"]
	check(hasID, "listIndexes: %v", names)
	key := names["status_total"]["key"].(bson.M)
	check(len(key) == 2 && asInt(key["status"]) == 1 && asInt(key["total"]) == -1, "index key: %v", key)
	_, err = orders.Indexes().DropOne(ctx, "status_total")
	must(err, "dropIndex")
	_, still := indexNames(ctx, orders)["status_total"]
	check(!still, "status_total still listed after dropIndex")

	// 6. aggregate with $lookup and $group
	cursor, err = orders.Aggregate(ctx, mongo.Pipeline{
		{{Key: "$lookup", Value: bson.D{{Key: "from", Value: "customers"}, {Key: "localField", Value: "customer"},
			{Key: "foreignField", Value: "_id"}, {Key: "as", Value: "c"}}}},
		{{Key: "$unwind", Value: "$c"}},
		{{Key: "$group", Value: bson.D{{Key: "_id", Value: "$c.name"},
			{Key: "total", Value: bson.D{{Key: "$sum", Value: "$total"}}},
			{Key: "n", Value: bson.D{{Key: "$sum", Value: 1}}}}}},
		{{Key: "$sort", Value: bson.D{{Key: "_id", Value: 1}}}}})
	must(err, "aggregate")
	var totals []bson.M
	must(cursor.All(ctx, &totals), "aggregate cursor")
	check(len(totals) == 2 && totals[0]["_id"] == "Ada" && asInt(totals[0]["total"]) == 35 &&
		asInt(totals[0]["n"]) == 2 && totals[1]["_id"] == "Bo" && asInt(totals[1]["total"]) == 70 &&
		asInt(totals[1]["n"]) == 2, "aggregate: %v", totals)

	// 7. a cursor paging past one batch
	pages := db.Collection("pages")
	docs := make([]interface{}, 250)
	for i := range docs {
		docs[i] = bson.D{{Key: "_id", Value: i}, {Key: "i", Value: i}}
	}
	_, err = pages.InsertMany(ctx, docs)
	must(err, "insertMany pages")
	cursor, err = pages.Find(ctx, bson.D{}, options.Find().SetSort(bson.D{{Key: "_id", Value: 1}}).SetBatchSize(40))
	must(err, "find pages")
	next := int64(0)
	for cursor.Next(ctx) {
		check(int64(cursor.Current.Lookup("i").AsInt64()) == next, "page document %d out of order", next)
		next++
	}
	must(cursor.Err(), "paging")
	check(next == 250, "paged %d documents", next)

	// 8. counts
	open, err := orders.CountDocuments(ctx, bson.D{{Key: "status", Value: "open"}})
	must(err, "countDocuments")
	check(open == 2, "countDocuments %d", open)
	estimated, err := orders.EstimatedDocumentCount(ctx)
	must(err, "estimatedDocumentCount")
	check(estimated == 4, "estimatedDocumentCount %d", estimated)

	// 9. distinct
	values, err := orders.Distinct(ctx, "customer", bson.D{})
	must(err, "distinct")
	var distinct []string
	for _, v := range values {
		distinct = append(distinct, v.(string))
	}
	sort.Strings(distinct)
	check(reflect.DeepEqual(distinct, []string{"c1", "c2"}), "distinct: %v", distinct)

	// 10. explain: one shard of three read for the shard key
	var plan bson.M
	must(db.RunCommand(ctx, bson.D{{Key: "explain", Value: bson.D{{Key: "find", Value: "orders"},
		{Key: "filter", Value: bson.D{{Key: "customer", Value: "c1"}}}}}}).Decode(&plan), "explain")
	_, hasPlanner := plan["queryPlanner"]
	check(hasPlanner, "explain: %v", plan)
	sharding := plan["sharding"].(bson.M)
	check(sharding["targeted"] == true && asInt(sharding["numShards"]) == 3 &&
		len(sharding["shardsRead"].(bson.A)) == 1, "explain sharding: %v", sharding)

	// 11. server error codes as the driver exposes them
	_, err = orders.InsertOne(ctx, bson.D{{Key: "_id", Value: 5}, {Key: "customer", Value: "c1"},
		{Key: "pad", Value: strings.Repeat("x", 3000)}})
	var writeErr mongo.WriteException
	check(errors.As(err, &writeErr) && len(writeErr.WriteErrors) == 1 && writeErr.WriteErrors[0].Code == 10334,
		"oversized insert: %T %v", err, err)
	err = db.RunCommand(ctx, bson.D{{Key: "tigerdocNoSuchCommand", Value: 1}}).Err()
	var cmdErr mongo.CommandError
	check(errors.As(err, &cmdErr) && cmdErr.Code == 59 && cmdErr.Name == "CommandNotFound",
		"unknown command: %T %v", err, err)
	fmt.Println("go scenario: PASS")
}
