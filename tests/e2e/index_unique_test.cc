// Unique indexes through libmongoc: violations in ordered and unordered
// insert batches (reported at their index), in updates, upserts and
// findAndModify; uniqueness across 8 shards; sparse/partial semantics;
// multikey uniqueness; parallel arrays; what a duplicate key error reports
// (plain values, or hex collation keys for a collated index).

#include "tests/e2e/icu_sort_key.h"
#include "tests/e2e/index_test_base.h"

namespace tigerdoc::e2e {
namespace {

using testutil::DocArray;
using testutil::Integer;
using testutil::Json;
using testutil::String;

using IndexUniqueTest = IndexE2eTest;

TEST_F(IndexUniqueTest, OrderedBatchStopsAtTheViolation) {
  ASSERT_OK_REPLY(CreateIndexes("c", R"([{"key": {"u": 1}, "name": "u_1", "unique": true}])"));
  BsonDoc r = Run(R"({"insert": "c", "documents": [{"_id": 1, "u": 1}, {"_id": 2, "u": 2},
      {"_id": 3, "u": 1}, {"_id": 4, "u": 4}]})");
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(Integer(r, "n"), 2);
  auto errors = DocArray(r, "writeErrors");
  ASSERT_EQ(errors.size(), 1u) << Json(r);
  EXPECT_EQ(Integer(errors[0], "index"), 2);
  EXPECT_EQ(Integer(errors[0], "code"), 11000);
  EXPECT_EQ(String(errors[0], "errmsg"),
            "E11000 duplicate key error collection: " + db_ + ".c index: u_1 dup key: { u: 1 }");
  EXPECT_EQ(testutil::CanonicalJson(testutil::SubDoc(errors[0], "keyPattern")),
            testutil::CanonicalJson(R"({"u": 1})"));
  EXPECT_EQ(testutil::CanonicalJson(testutil::SubDoc(errors[0], "keyValue")),
            testutil::CanonicalJson(R"({"u": 1})"));
  EXPECT_EQ(Count("c"), 2);
}

TEST_F(IndexUniqueTest, UnorderedBatchReportsEveryViolation) {
  ASSERT_OK_REPLY(CreateIndexes("c", R"([{"key": {"a": 1, "b": 1}, "name": "ab", "unique": true}])"));
  BsonDoc r = Run(R"({"insert": "c", "ordered": false, "documents": [{"_id": 1, "a": 1, "b": 1},
      {"_id": 2, "a": 1, "b": 2}, {"_id": 3, "a": 1, "b": 1}, {"_id": 4, "a": 1, "b": 2},
      {"_id": 5, "a": 2, "b": 1}]})");
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(Integer(r, "n"), 3);
  auto errors = DocArray(r, "writeErrors");
  ASSERT_EQ(errors.size(), 2u) << Json(r);
  EXPECT_EQ(Integer(errors[0], "index"), 2);
  EXPECT_EQ(Integer(errors[1], "index"), 3);
  EXPECT_EQ(String(errors[1], "errmsg"),
            "E11000 duplicate key error collection: " + db_ + ".c index: ab dup key: { a: 1, b: 2 }");
  // A duplicate _id is still reported on _id_ first.
  BsonDoc id_dup = Run(R"({"insert": "c", "documents": [{"_id": 1, "a": 9, "b": 9}]})");
  EXPECT_NE(String(DocArray(id_dup, "writeErrors")[0], "errmsg")->find("index: _id_ dup key"),
            std::string::npos);
}

TEST_F(IndexUniqueTest, UpdatesUpsertsAndFindAndModifyRespectUniqueness) {
  ASSERT_OK_REPLY(CreateIndexes("c", R"([{"key": {"u": 1}, "name": "u_1", "unique": true}])"));
  InsertJson("c", R"([{"_id": 1, "u": 1}, {"_id": 2, "u": 2}])");
  BsonDoc update = Run(R"({"update": "c", "updates": [{"q": {"_id": 2}, "u": {"$set": {"u": 1, "x": 1}}}]})");
  ASSERT_OK_REPLY(update);
  auto errors = DocArray(update, "writeErrors");
  ASSERT_EQ(errors.size(), 1u) << Json(update);
  EXPECT_EQ(Integer(errors[0], "code"), 11000);
  EXPECT_EQ(Count("c", R"({"x": 1})"), 0);  // nothing of the failed update stayed
  BsonDoc upsert = Run(R"({"update": "c", "updates": [{"q": {"_id": 3}, "u": {"$set": {"u": 2}}, "upsert": true}]})");
  ASSERT_EQ(DocArray(upsert, "writeErrors").size(), 1u) << Json(upsert);
  EXPECT_EQ(Count("c"), 2);
  BsonDoc fam = Run(R"({"findAndModify": "c", "query": {"_id": 1}, "update": {"$set": {"u": 2}}})");
  EXPECT_ERROR_REPLY(fam, 11000, "DuplicateKey");
  // Moving a key away frees it for another document.
  ASSERT_OK_REPLY(Run(R"({"update": "c", "updates": [{"q": {"_id": 2}, "u": {"$set": {"u": 20}}}]})"));
  ASSERT_OK_REPLY(Run(R"({"findAndModify": "c", "query": {"_id": 1}, "update": {"$set": {"u": 2}}})"));
  BsonDoc ok_upsert = Run(R"({"update": "c", "updates": [{"q": {"_id": 3}, "u": {"$set": {"u": 1}}, "upsert": true}]})");
  ASSERT_OK_REPLY(ok_upsert);
  EXPECT_EQ(DocArray(ok_upsert, "writeErrors").size(), 0u) << Json(ok_upsert);
  EXPECT_EQ(Count("c"), 3);
}

TEST_F(IndexUniqueTest, UniqueAcrossEightShards) {
  ASSERT_OK_REPLY(Run(R"({"create": "c", "shards": 8, "shardKey": {"tenant": 1}})"));
  ASSERT_OK_REPLY(CreateIndexes("c", R"([{"key": {"email": 1}, "name": "email_1", "unique": true}])"));
  // Many tenants spread over all shards; the same e-mail under any other
  // tenant (so, almost surely, another shard) is refused.
  std::string docs = "[";
  for (int i = 0; i < 64; ++i) {
    docs += (i ? "," : "") + std::string(R"({"_id": )") + std::to_string(i) + R"(, "tenant": )" +
            std::to_string(i) + R"(, "email": "user)" + std::to_string(i) + R"(@x"})";
  }
  InsertJson("c", docs + "]");
  int refused = 0;
  for (int i = 0; i < 64; ++i) {
    BsonDoc r = Run(R"({"insert": "c", "documents": [{"_id": )" + std::to_string(1000 + i) +
                    R"(, "tenant": )" + std::to_string(500 + i) + R"(, "email": "user)" +
                    std::to_string(i) + R"(@x"}]})");
    refused += DocArray(r, "writeErrors").size() == 1 ? 1 : 0;
  }
  EXPECT_EQ(refused, 64);
  // Changing the shard key moves the document; its unique entry follows.
  ASSERT_OK_REPLY(Run(R"({"update": "c", "updates": [{"q": {"_id": 0}, "u": {"$set": {"tenant": 777}}}]})"));
  BsonDoc still = Run(R"({"insert": "c", "documents": [{"_id": 5000, "tenant": 1, "email": "user0@x"}]})");
  EXPECT_EQ(DocArray(still, "writeErrors").size(), 1u) << Json(still);
  ASSERT_OK_REPLY(Run(R"({"delete": "c", "deletes": [{"q": {"_id": 0}, "limit": 1}]})"));
  InsertJson("c", R"([{"_id": 5000, "tenant": 1, "email": "user0@x"}])");
}

TEST_F(IndexUniqueTest, SparseAndPartialUniqueness) {
  ASSERT_OK_REPLY(CreateIndexes("s", R"([{"key": {"u": 1}, "name": "u_1", "unique": true, "sparse": true}])"));
  InsertJson("s", R"([{"_id": 1}, {"_id": 2}, {"_id": 3, "u": null}])");
  BsonDoc null_dup = Run(R"({"insert": "s", "documents": [{"_id": 4, "u": null}]})");
  EXPECT_EQ(DocArray(null_dup, "writeErrors").size(), 1u) << Json(null_dup);

  ASSERT_OK_REPLY(CreateIndexes("p", R"([{"key": {"u": 1}, "name": "u_1", "unique": true,
      "partialFilterExpression": {"active": true}}])"));
  InsertJson("p", R"([{"_id": 1, "u": 1, "active": true}, {"_id": 2, "u": 1, "active": false}, {"_id": 3, "u": 1}])");
  BsonDoc dup = Run(R"({"insert": "p", "documents": [{"_id": 4, "u": 1, "active": true}]})");
  EXPECT_EQ(DocArray(dup, "writeErrors").size(), 1u) << Json(dup);
  // Entering the filter through an update is checked too.
  BsonDoc enter = Run(R"({"update": "p", "updates": [{"q": {"_id": 2}, "u": {"$set": {"active": true}}}]})");
  EXPECT_EQ(DocArray(enter, "writeErrors").size(), 1u) << Json(enter);
  // Leaving it frees the key.
  ASSERT_OK_REPLY(Run(R"({"update": "p", "updates": [{"q": {"_id": 1}, "u": {"$set": {"active": false}}}]})"));
  ASSERT_OK_REPLY(Run(R"({"update": "p", "updates": [{"q": {"_id": 2}, "u": {"$set": {"active": true}}}]})"));
}

TEST_F(IndexUniqueTest, MultikeyUniqueAndParallelArrays) {
  ASSERT_OK_REPLY(CreateIndexes("m", R"([{"key": {"tags": 1}, "name": "tags_1", "unique": true}])"));
  InsertJson("m", R"([{"_id": 1, "tags": ["a", "b", "a"]}, {"_id": 2, "tags": ["c"]}])");
  BsonDoc dup = Run(R"({"insert": "m", "documents": [{"_id": 3, "tags": ["d", "b"]}]})");
  ASSERT_EQ(DocArray(dup, "writeErrors").size(), 1u) << Json(dup);
  EXPECT_NE(String(DocArray(dup, "writeErrors")[0], "errmsg")->find("dup key: { tags: \"b\" }"),
            std::string::npos);
  ASSERT_OK_REPLY(CreateIndexes("pa", R"([{"key": {"x": 1, "y": 1}, "name": "xy"}])"));
  BsonDoc parallel = Run(R"({"insert": "pa", "documents": [{"_id": 1, "x": [1, 2], "y": [3, 4]}]})");
  auto errors = DocArray(parallel, "writeErrors");
  ASSERT_EQ(errors.size(), 1u) << Json(parallel);
  EXPECT_EQ(Integer(errors[0], "code"), 171);
  EXPECT_EQ(String(errors[0], "errmsg"), "cannot index parallel arrays [y] [x]");
  InsertJson("pa", R"([{"_id": 2, "x": [1, 2], "y": 3}])");
  BsonDoc parallel_update = Run(R"({"update": "pa", "updates": [{"q": {"_id": 2}, "u": {"$set": {"y": [5]}}}]})");
  EXPECT_EQ(Integer(DocArray(parallel_update, "writeErrors")[0], "code"), 171) << Json(parallel_update);
}

// The field names of `doc`, in order.
std::vector<std::string> FieldNames(const BsonDoc& doc) {
  std::vector<std::string> names;
  bson_iter_t it;
  if (bson_iter_init(&it, doc.get())) {
    while (bson_iter_next(&it)) names.emplace_back(bson_iter_key(&it));
  }
  return names;
}

// Each duplicate-key write error is mongod 7's {index, code, errmsg,
// keyPattern, keyValue} in that order (write_ops::WriteError::serialize: the
// error's extra fields follow errmsg; no codeName), for a duplicate _id
// alone, in an unordered batch, and on a unique secondary index.
TEST_F(IndexUniqueTest, DuplicateKeyWriteErrorsHaveMongodsFieldsInMongodsOrder) {
  ASSERT_OK_REPLY(CreateIndexes("c", R"([{"key": {"u": 1}, "name": "u_1", "unique": true}])"));
  ASSERT_OK_REPLY(Run(R"({"insert": "c", "documents": [{"_id": 1, "u": 1}]})"));
  const std::vector<std::string> expected = {"index", "code", "errmsg", "keyPattern", "keyValue"};
  BsonDoc single = Run(R"({"insert": "c", "documents": [{"_id": 1, "u": 7}]})");
  ASSERT_OK_REPLY(single);
  auto errors = DocArray(single, "writeErrors");
  ASSERT_EQ(errors.size(), 1u) << Json(single);
  EXPECT_EQ(FieldNames(errors[0]), expected) << Json(single);
  BsonDoc batch = Run(R"({"insert": "c", "ordered": false, "documents": [{"_id": 2, "u": 2},
      {"_id": 1, "u": 3}, {"_id": 3, "u": 1}, {"_id": 4, "u": 4}]})");
  ASSERT_OK_REPLY(batch);
  EXPECT_EQ(Integer(batch, "n"), 2);
  errors = DocArray(batch, "writeErrors");
  ASSERT_EQ(errors.size(), 2u) << Json(batch);
  for (const BsonDoc& error : errors) EXPECT_EQ(FieldNames(error), expected) << Json(batch);
  EXPECT_EQ(Integer(errors[0], "index"), 1);
  EXPECT_EQ(testutil::CanonicalJson(testutil::SubDoc(errors[0], "keyPattern")),
            testutil::CanonicalJson(R"({"_id": 1})"));
  EXPECT_EQ(Integer(errors[1], "index"), 2);
  EXPECT_EQ(testutil::CanonicalJson(testutil::SubDoc(errors[1], "keyValue")),
            testutil::CanonicalJson(R"({"u": 1})"));
}

// A collated unique index reports what it stores, as mongod 7
// (buildDupKeyErrorStatus, DuplicateKeyErrorInfo::serialize): each string
// component's collation key, hex encoded ("0x..." in errmsg, bare in
// keyValue), then hexEncoded and the index's collation after keyValue. The
// expected keys come from ICU directly (icu_sort_key.h).
constexpr char kEnStrength2Spec[] =
    "{ locale: \"en\", caseLevel: false, caseFirst: \"off\", strength: 2, numericOrdering: false, "
    "alternate: \"non-ignorable\", maxVariable: \"punct\", normalization: false, backwards: false, "
    "version: \"57.1\" }";

const std::vector<std::string> kCollatedDupFields = {"index", "code", "errmsg", "keyPattern",
                                                     "keyValue", "hexEncoded", "collation"};

TEST_F(IndexUniqueTest, CollatedUniqueIndexReportsHexCollationKeysOnInsertUpdateAndUpsert) {
  ASSERT_OK_REPLY(CreateIndexes("c", R"([{"key": {"name": 1}, "name": "name_1", "unique": true,
      "collation": {"locale": "en", "strength": 2}}])"));
  InsertJson("c", R"([{"_id": 1, "name": "apple"}, {"_id": 2, "name": "pear"}])");
  const std::string key = IcuSortKeyHex("en", 2, "apple");
  ASSERT_EQ(IcuSortKeyHex("en", 2, "APPLE"), key);  // one key for every case
  const std::string errmsg = "E11000 duplicate key error collection: " + db_ +
                             ".c index: name_1 collation: " + kEnStrength2Spec +
                             " dup key: { name: \"0x" + key + "\" }";
  auto expect_collated_dup = [&](const BsonDoc& error, const BsonDoc& reply) {
    EXPECT_EQ(Integer(error, "code"), 11000) << Json(reply);
    EXPECT_EQ(FieldNames(error), kCollatedDupFields) << Json(reply);
    EXPECT_EQ(String(error, "errmsg"), errmsg);
    EXPECT_EQ(testutil::CanonicalJson(testutil::SubDoc(error, "keyPattern")),
              testutil::CanonicalJson(R"({"name": 1})"));
    EXPECT_EQ(testutil::CanonicalJson(testutil::SubDoc(error, "keyValue")),
              testutil::CanonicalJson(R"({"name": ")" + key + R"("})"));
    EXPECT_EQ(testutil::CanonicalJson(testutil::SubDoc(error, "hexEncoded")),
              testutil::CanonicalJson(R"({"0": true})"));
    EXPECT_EQ(testutil::CanonicalJson(testutil::SubDoc(error, "collation")),
              testutil::CanonicalJson(R"({"locale": "en", "caseLevel": false, "caseFirst": "off",
                  "strength": 2, "numericOrdering": false, "alternate": "non-ignorable",
                  "maxVariable": "punct", "normalization": false, "backwards": false,
                  "version": "57.1"})"));
  };
  BsonDoc insert = Run(R"({"insert": "c", "documents": [{"_id": 3, "name": "APPLE"}]})");
  ASSERT_OK_REPLY(insert);
  ASSERT_EQ(DocArray(insert, "writeErrors").size(), 1u) << Json(insert);
  expect_collated_dup(DocArray(insert, "writeErrors")[0], insert);
  BsonDoc update = Run(R"({"update": "c", "updates": [{"q": {"_id": 2}, "u": {"$set": {"name": "Apple"}}}]})");
  ASSERT_OK_REPLY(update);
  ASSERT_EQ(DocArray(update, "writeErrors").size(), 1u) << Json(update);
  expect_collated_dup(DocArray(update, "writeErrors")[0], update);
  BsonDoc upsert = Run(R"({"update": "c", "updates": [{"q": {"_id": 4}, "u": {"$set": {"name": "aPPLE"}},
      "upsert": true}]})");
  ASSERT_OK_REPLY(upsert);
  ASSERT_EQ(DocArray(upsert, "writeErrors").size(), 1u) << Json(upsert);
  expect_collated_dup(DocArray(upsert, "writeErrors")[0], upsert);
  // A command error carries the same fields after codeName.
  BsonDoc fam = Run(R"({"findAndModify": "c", "query": {"_id": 2}, "update": {"$set": {"name": "APPle"}}})");
  EXPECT_ERROR_REPLY(fam, 11000, "DuplicateKey");
  EXPECT_EQ(String(fam, "errmsg"), errmsg);
  EXPECT_EQ(String(fam, "keyValue.name"), key);
  EXPECT_EQ(String(fam, "collation.locale"), "en");
  EXPECT_EQ(Count("c"), 2);
}

// Compound keys under strength 1 (accents and case ignored): only the
// string components are hex encoded; a number stays as it is; a string
// inside a subdocument component is the raw collation key (mongod hex
// encodes top-level components only).
TEST_F(IndexUniqueTest, CollatedCompoundUniqueKeyHexEncodesOnlyItsStringComponents) {
  ASSERT_OK_REPLY(CreateIndexes("c", R"([{"key": {"name": 1, "n": -1, "d": 1}, "name": "cmp",
      "unique": true, "collation": {"locale": "en", "strength": 1}}])"));
  InsertJson("c", R"([{"_id": 1, "name": "Élan", "n": 7, "d": {"s": "X"}}])");
  BsonDoc r = Run(R"({"insert": "c", "documents": [{"_id": 2, "name": "elan", "n": 7, "d": {"s": "x"}}]})");
  ASSERT_OK_REPLY(r);
  ASSERT_EQ(DocArray(r, "writeErrors").size(), 1u) << Json(r);
  BsonDoc error = DocArray(r, "writeErrors")[0].Copy();
  EXPECT_EQ(FieldNames(error), kCollatedDupFields);
  const std::string name_key = IcuSortKeyHex("en", 1, "elan");
  ASSERT_EQ(IcuSortKeyHex("en", 1, "Élan"), name_key);
  const std::string nested_key = IcuSortKey("en", 1, "x");
  EXPECT_EQ(String(error, "keyValue.name"), name_key);
  EXPECT_EQ(Integer(error, "keyValue.n"), 7);
  EXPECT_EQ(String(error, "keyValue.d.s"), nested_key);
  EXPECT_EQ(testutil::CanonicalJson(testutil::SubDoc(error, "hexEncoded")),
            testutil::CanonicalJson(R"({"0": true, "1": false, "2": false})"));
  EXPECT_EQ(Integer(error, "collation.strength"), 1);
  const std::string errmsg = *String(error, "errmsg");
  const std::string tail = " dup key: { name: \"0x" + name_key + "\", n: 7, d: { s: \"" + nested_key + "\" } }";
  ASSERT_GE(errmsg.size(), tail.size());
  EXPECT_EQ(errmsg.substr(errmsg.size() - tail.size()), tail);
  EXPECT_NE(errmsg.find("index: cmp collation: { locale: \"en\", caseLevel: false, caseFirst: \"off\", "
                        "strength: 1,"),
            std::string::npos)
      << errmsg;
  // Strength 1 and 2 disagree on accents: a second index of strength 2
  // lets "Élan" and "elan" coexist where strength 1 refuses them.
  ASSERT_OK_REPLY(CreateIndexes("s2", R"([{"key": {"name": 1}, "name": "n2", "unique": true,
      "collation": {"locale": "en", "strength": 2}}])"));
  InsertJson("s2", R"([{"_id": 1, "name": "Élan"}, {"_id": 2, "name": "elan"}])");
  BsonDoc s2 = Run(R"({"insert": "s2", "documents": [{"_id": 3, "name": "ELAN"}]})");
  EXPECT_EQ(String(s2, "writeErrors.0.keyValue.name"), IcuSortKeyHex("en", 2, "elan")) << Json(s2);
  EXPECT_NE(IcuSortKeyHex("en", 2, "elan"), IcuSortKeyHex("en", 2, "Élan"));
}

// A unique index with the simple collation, in a collection whose default
// collation is not simple, reports the plain values: no hex, no
// hexEncoded, no collation. The collection's _id index takes the default
// collation, so a duplicate _id (byte-equal or collation-equal) reports
// its hex key.
TEST_F(IndexUniqueTest, SimpleCollationUniqueIndexKeepsThePlainValue) {
  ASSERT_OK_REPLY(Run(R"({"create": "c", "collation": {"locale": "en", "strength": 2}})"));
  ASSERT_OK_REPLY(CreateIndexes("c", R"([{"key": {"code": 1}, "name": "code_1", "unique": true,
      "collation": {"locale": "simple"}}])"));
  InsertJson("c", R"([{"_id": "k1", "code": "Ab"}, {"_id": "k2", "code": "ab"}])");
  BsonDoc r = Run(R"({"insert": "c", "documents": [{"_id": "k3", "code": "Ab"}]})");
  ASSERT_OK_REPLY(r);
  ASSERT_EQ(DocArray(r, "writeErrors").size(), 1u) << Json(r);
  BsonDoc error = DocArray(r, "writeErrors")[0].Copy();
  EXPECT_EQ(FieldNames(error),
            (std::vector<std::string>{"index", "code", "errmsg", "keyPattern", "keyValue"}));
  EXPECT_EQ(String(error, "errmsg"),
            "E11000 duplicate key error collection: " + db_ + ".c index: code_1 dup key: { code: \"Ab\" }");
  EXPECT_EQ(testutil::CanonicalJson(testutil::SubDoc(error, "keyValue")),
            testutil::CanonicalJson(R"({"code": "Ab"})"));
  for (const char* id : {"k1", "K1"}) {
    BsonDoc dup = Run(std::string(R"({"insert": "c", "documents": [{"_id": ")") + id + R"(", "code": "z"}]})");
    ASSERT_EQ(DocArray(dup, "writeErrors").size(), 1u) << Json(dup);
    BsonDoc id_error = DocArray(dup, "writeErrors")[0].Copy();
    EXPECT_EQ(FieldNames(id_error), kCollatedDupFields) << Json(dup);
    EXPECT_EQ(String(id_error, "errmsg"), "E11000 duplicate key error collection: " + db_ +
                                              ".c index: _id_ collation: " + kEnStrength2Spec +
                                              " dup key: { _id: \"0x" + IcuSortKeyHex("en", 2, "k1") + "\" }");
    EXPECT_EQ(String(id_error, "keyValue._id"), IcuSortKeyHex("en", 2, "k1"));
  }
  EXPECT_EQ(Count("c"), 2);
}

}  // namespace
}  // namespace tigerdoc::e2e
