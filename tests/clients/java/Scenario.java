// The client scenario (tests/clients/README.md) through the Java driver 3.6
// (Debian's libmongodb-java), compiled and run by run.sh. Run by
// tests/clients/with-server, which sets TIGERDOC_URI. The 3.6 driver predates
// countDocuments/estimatedDocumentCount (3.8): it counts with count(), the
// count command.

import static com.mongodb.client.model.Filters.eq;
import static com.mongodb.client.model.Indexes.ascending;
import static com.mongodb.client.model.Indexes.compoundIndex;
import static com.mongodb.client.model.Indexes.descending;
import static com.mongodb.client.model.Updates.inc;
import static com.mongodb.client.model.Updates.set;

import com.mongodb.MongoBulkWriteException;
import com.mongodb.MongoClient;
import com.mongodb.MongoClientURI;
import com.mongodb.MongoCommandException;
import com.mongodb.MongoWriteException;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.Accumulators;
import com.mongodb.client.model.Aggregates;
import com.mongodb.client.model.BulkWriteOptions;
import com.mongodb.client.model.FindOneAndUpdateOptions;
import com.mongodb.client.model.IndexOptions;
import com.mongodb.client.model.InsertOneModel;
import com.mongodb.client.model.ReturnDocument;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import org.bson.Document;

public class Scenario {
  static void check(boolean ok, String what) {
    if (!ok) {
      System.err.println("java scenario: FAIL: " + what);
      System.exit(1);
    }
  }

  static long num(Object value) {
    check(value instanceof Number, "not a number: " + value);
    return ((Number) value).longValue();
  }

  static Document order(int id, String customer, String status, int total) {
    return new Document("_id", id).append("customer", customer).append("status", status).append("total", total);
  }

  static List<InsertOneModel<Document>> inserts(Document... docs) {
    List<InsertOneModel<Document>> models = new ArrayList<>();
    for (Document d : docs) models.add(new InsertOneModel<>(d));
    return models;
  }

  static List<String> indexNames(MongoCollection<Document> coll) {
    List<String> names = new ArrayList<>();
    for (Document spec : coll.listIndexes()) names.add(spec.getString("name"));
    return names;
  }

  public static void main(String[] args) {
    String uri = System.getenv("TIGERDOC_URI");
    check(uri != null && uri.startsWith("mongodb://"), "TIGERDOC_URI must be a mongodb:// URI");
    MongoClient client = new MongoClient(new MongoClientURI(uri));  // the driver's defaults
    try {
      MongoDatabase db = client.getDatabase("scenario_java");
      db.drop();

      // 1. create with tigerdoc's options (CreateCollectionOptions knows only
      // MongoDB's, so the options go through a create command)
      db.createCollection("customers");
      db.runCommand(new Document("create", "orders").append("shardKey", new Document("customer", 1))
          .append("shards", 3).append("maxDocumentBytes", 2048));
      Document info = db.listCollections().filter(eq("name", "orders")).first();
      Document options = info.get("options", Document.class);
      check(options.get("shardKey", Document.class).equals(new Document("customer", 1)), "options " + options);
      check(num(options.get("maxDocumentBytes")) == 2048, "options " + options);

      // 2. CRUD
      MongoCollection<Document> customers = db.getCollection("customers");
      MongoCollection<Document> orders = db.getCollection("orders");
      customers.insertMany(Arrays.asList(new Document("_id", "c1").append("name", "Ada"),
          new Document("_id", "c2").append("name", "Bo"), new Document("_id", "c3").append("name", "Cy")));
      check(customers.count() == 3, "three customers");
      orders.insertOne(order(1, "c1", "open", 10));
      check(num(orders.find(eq("_id", 1)).first().get("total")) == 10, "findOne total 10");
      check(orders.updateOne(eq("_id", 1), inc("total", 5)).getModifiedCount() == 1, "updateOne");
      check(orders.replaceOne(eq("_id", 1), new Document("customer", "c1").append("status", "open")
          .append("total", 15).append("note", "replaced")).getModifiedCount() == 1, "replaceOne");
      check("replaced".equals(orders.find(eq("_id", 1)).first().getString("note")), "after replaceOne");
      check(customers.deleteOne(eq("_id", "c3")).getDeletedCount() == 1, "deleteOne");

      // 3. bulk writes with a duplicate key, ordered and unordered
      try {
        orders.bulkWrite(inserts(order(2, "c1", "open", 20), order(2, "c1", "open", 20),
            order(3, "c2", "closed", 30)), new BulkWriteOptions().ordered(true));
        check(false, "ordered bulkWrite with a duplicate succeeded");
      } catch (MongoBulkWriteException e) {
        check(e.getWriteErrors().size() == 1 && e.getWriteErrors().get(0).getIndex() == 1
            && e.getWriteErrors().get(0).getCode() == 11000, "ordered errors " + e.getWriteErrors());
        check(e.getWriteResult().getInsertedCount() == 1, "ordered inserted " + e.getWriteResult());
      }
      check(orders.find(eq("_id", 3)).first() == null, "ordered bulkWrite went on past its error");
      try {
        orders.bulkWrite(inserts(order(3, "c2", "closed", 30), order(2, "c1", "open", 20),
            order(4, "c2", "open", 40)), new BulkWriteOptions().ordered(false));
        check(false, "unordered bulkWrite with a duplicate succeeded");
      } catch (MongoBulkWriteException e) {
        check(e.getWriteErrors().size() == 1 && e.getWriteErrors().get(0).getIndex() == 1
            && e.getWriteErrors().get(0).getCode() == 11000, "unordered errors " + e.getWriteErrors());
        check(e.getWriteResult().getInsertedCount() == 2, "unordered inserted " + e.getWriteResult());
      }

      // 4. findOneAndUpdate, the document after
      Document after = orders.findOneAndUpdate(eq("_id", 4), set("status", "shipped"),
          new FindOneAndUpdateOptions().returnDocument(ReturnDocument.AFTER));
      check("shipped".equals(after.getString("status")) && num(after.get("total")) == 40, "after " + after);

      // 5. index create / list / drop
      String name = orders.createIndex(compoundIndex(ascending("status"), descending("total")),
          new IndexOptions().name("status_total"));
      check("status_total".equals(name), "createIndex name " + name);
      check(indexNames(orders).containsAll(Arrays.asList("_id_", "status_total")), "listIndexes " + indexNames(orders));
      for (Document spec : orders.listIndexes()) {
        if (spec.getString("name").equals("status_total")) {
          check(spec.get("key", Document.class).equals(new Document("status", 1).append("total", -1)), "key " + spec);
        }
      }
      orders.dropIndex("status_total");
      check(!indexNames(orders).contains("status_total"), "status_total still listed");

      // 6. aggregate with $lookup and $group
      List<Document> totals = orders.aggregate(Arrays.asList(
          Aggregates.lookup("customers", "customer", "_id", "c"),
          Aggregates.unwind("$c"),
          Aggregates.group("$c.name", Accumulators.sum("total", "$total"), Accumulators.sum("n", 1)),
          Aggregates.sort(ascending("_id")))).into(new ArrayList<>());
      check(totals.size() == 2, "aggregate " + totals);
      check("Ada".equals(totals.get(0).getString("_id")) && num(totals.get(0).get("total")) == 35
          && num(totals.get(0).get("n")) == 2, "aggregate " + totals);
      check("Bo".equals(totals.get(1).getString("_id")) && num(totals.get(1).get("total")) == 70
          && num(totals.get(1).get("n")) == 2, "aggregate " + totals);

      // 7. a cursor paging past one batch
      MongoCollection<Document> pages = db.getCollection("pages");
      List<Document> docs = new ArrayList<>();
      for (int i = 0; i < 250; i++) docs.add(new Document("_id", i).append("i", i));
      pages.insertMany(docs);
      long next = 0;
      for (Document d : pages.find().sort(ascending("_id")).batchSize(40)) {
        check(num(d.get("i")) == next, "page document " + next + " out of order: " + d);
        next++;
      }
      check(next == 250, "paged " + next);

      // 8. counts (the count command: see the header)
      check(orders.count(eq("status", "open")) == 2, "count open");
      check(orders.count() == 4, "count all");

      // 9. distinct
      List<String> distinct = orders.distinct("customer", String.class).into(new ArrayList<>());
      Collections.sort(distinct);
      check(distinct.equals(Arrays.asList("c1", "c2")), "distinct " + distinct);

      // 10. explain: one shard of three read for the shard key
      Document plan = db.runCommand(new Document("explain",
          new Document("find", "orders").append("filter", new Document("customer", "c1"))));
      check(plan.containsKey("queryPlanner"), "explain " + plan.toJson());
      Document sharding = plan.get("sharding", Document.class);
      check(Boolean.TRUE.equals(sharding.getBoolean("targeted")) && num(sharding.get("numShards")) == 3
          && ((List<?>) sharding.get("shardsRead")).size() == 1, "explain sharding " + sharding.toJson());

      // 11. server error codes as the driver exposes them
      try {
        char[] pad = new char[3000];
        Arrays.fill(pad, 'x');
        orders.insertOne(new Document("_id", 5).append("customer", "c1").append("pad", new String(pad)));
        check(false, "an oversized order was accepted");
      } catch (MongoWriteException e) {
        check(e.getError().getCode() == 10334, "oversized insert code " + e.getError().getCode());
      }
      try {
        db.runCommand(new Document("tigerdocNoSuchCommand", 1));
        check(false, "an unknown command succeeded");
      } catch (MongoCommandException e) {
        check(e.getErrorCode() == 59, "unknown command code " + e.getErrorCode());
        check("CommandNotFound".equals(e.getResponse().getString("codeName").getValue()), "codeName " + e.getResponse());
      }
      System.out.println("java scenario: PASS");
    } finally {
      client.close();
    }
  }
}
