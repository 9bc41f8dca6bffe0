#include "tests/testutil/mongo_client.h"

#include <cstdio>
#include <cstdlib>
#include <mutex>

namespace tigerdoc::testutil {
namespace {

void InitMongocOnce() {
  static std::once_flag once;
  std::call_once(once, [] {
    mongoc_init();
    std::atexit(mongoc_cleanup);
  });
}

// Splits off the first component of a dotted path.
std::string_view Head(std::string_view path, std::string_view* rest) {
  size_t dot = path.find('.');
  if (dot == std::string_view::npos) {
    *rest = {};
    return path;
  }
  *rest = path.substr(dot + 1);
  return path.substr(0, dot);
}

}  // namespace

MongoClient::MongoClient(const std::string& uri) {
  InitMongocOnce();
  bson_error_t error;
  mongoc_uri_t* parsed = mongoc_uri_new_with_error(uri.c_str(), &error);
  if (parsed == nullptr) {
    std::fprintf(stderr, "MongoClient: bad URI %s: %s\n", uri.c_str(), error.message);
    std::abort();
  }
  client_ = mongoc_client_new_from_uri(parsed);
  mongoc_uri_destroy(parsed);
  INVARIANT(client_ != nullptr);
  mongoc_client_set_error_api(client_, MONGOC_ERROR_API_VERSION_2);
  mongoc_client_set_appname(client_, "tigerdoc-e2e");
}

MongoClient::~MongoClient() { mongoc_client_destroy(client_); }

BsonDoc MongoClient::ClientError(const bson_error_t& error) const {
  BsonDoc out;
  bson_t* b = out.mutable_get();
  BSON_APPEND_DOUBLE(b, "ok", 0.0);
  BSON_APPEND_UTF8(b, "clientError", error.message);
  BSON_APPEND_INT32(b, "clientErrorDomain", static_cast<int32_t>(error.domain));
  BSON_APPEND_INT32(b, "clientErrorCode", static_cast<int32_t>(error.code));
  return out;
}

BsonDoc MongoClient::RunCommand(std::string_view db, const BsonDoc& command) {
  bson_t reply;
  bson_error_t error;
  std::string db_name(db);
  bool ok = mongoc_client_command_simple(client_, db_name.c_str(), command.get(), nullptr, &reply,
                                         &error);
  if (!ok && bson_empty(&reply)) {
    bson_destroy(&reply);
    return ClientError(error);
  }
  return BsonDoc(&reply);
}

BsonDoc MongoClient::RunCommand(std::string_view db, std::string_view command_json) {
  return RunCommand(db, BsonDoc::FromJson(command_json));
}

BsonDoc MongoClient::InsertMany(std::string_view db, std::string_view coll,
                                const std::vector<BsonDoc>& docs, bool ordered) {
  std::string db_name(db), coll_name(coll);
  mongoc_collection_t* c = mongoc_client_get_collection(client_, db_name.c_str(), coll_name.c_str());
  // A plain array: bson_t is over-aligned, which std::vector<const bson_t*>
  // warns about (the attribute is dropped from the template argument).
  auto** ptrs = static_cast<const bson_t**>(bson_malloc0(sizeof(bson_t*) * (docs.size() + 1)));
  for (size_t i = 0; i < docs.size(); ++i) ptrs[i] = docs[i].get();
  bson_t opts = BSON_INITIALIZER;
  BSON_APPEND_BOOL(&opts, "ordered", ordered);
  bson_t reply;
  bson_error_t error;
  bool ok = mongoc_collection_insert_many(c, ptrs, docs.size(), &opts, &reply, &error);
  bson_free(ptrs);
  bson_destroy(&opts);
  mongoc_collection_destroy(c);
  if (!ok && bson_empty(&reply)) {
    bson_destroy(&reply);
    return ClientError(error);
  }
  return BsonDoc(&reply);
}

std::optional<bson_iter_t> Lookup(const BsonDoc& doc, std::string_view dotted_path) {
  bson_iter_t it;
  if (!bson_iter_init(&it, doc.get())) return std::nullopt;
  std::string_view rest = dotted_path;
  while (true) {
    std::string_view key = Head(rest, &rest);
    bool found = false;
    while (bson_iter_next(&it)) {
      if (std::string_view(bson_iter_key(&it)) == key) {
        found = true;
        break;
      }
    }
    if (!found) return std::nullopt;
    if (rest.empty()) return it;
    if (!BSON_ITER_HOLDS_DOCUMENT(&it) && !BSON_ITER_HOLDS_ARRAY(&it)) return std::nullopt;
    bson_iter_t child;
    if (!bson_iter_recurse(&it, &child)) return std::nullopt;
    it = child;
  }
}

bool Has(const BsonDoc& doc, std::string_view path) { return Lookup(doc, path).has_value(); }

std::optional<double> Number(const BsonDoc& doc, std::string_view path) {
  auto it = Lookup(doc, path);
  if (!it) return std::nullopt;
  switch (bson_iter_type(&*it)) {
    case BSON_TYPE_INT32:
      return bson_iter_int32(&*it);
    case BSON_TYPE_INT64:
      return static_cast<double>(bson_iter_int64(&*it));
    case BSON_TYPE_DOUBLE:
      return bson_iter_double(&*it);
    case BSON_TYPE_BOOL:
      return bson_iter_bool(&*it) ? 1.0 : 0.0;
    default:
      return std::nullopt;
  }
}

std::optional<int64_t> Integer(const BsonDoc& doc, std::string_view path) {
  auto it = Lookup(doc, path);
  if (!it) return std::nullopt;
  if (BSON_ITER_HOLDS_INT32(&*it)) return bson_iter_int32(&*it);
  if (BSON_ITER_HOLDS_INT64(&*it)) return bson_iter_int64(&*it);
  return std::nullopt;
}

std::optional<std::string> String(const BsonDoc& doc, std::string_view path) {
  auto it = Lookup(doc, path);
  if (!it || !BSON_ITER_HOLDS_UTF8(&*it)) return std::nullopt;
  uint32_t len = 0;
  const char* s = bson_iter_utf8(&*it, &len);
  return std::string(s, len);
}

bson_type_t TypeAt(const BsonDoc& doc, std::string_view path) {
  auto it = Lookup(doc, path);
  return it ? bson_iter_type(&*it) : BSON_TYPE_EOD;
}

BsonDoc SubDoc(const BsonDoc& doc, std::string_view path) {
  auto it = Lookup(doc, path);
  if (!it) return BsonDoc();
  const uint8_t* data = nullptr;
  uint32_t len = 0;
  if (BSON_ITER_HOLDS_DOCUMENT(&*it)) {
    bson_iter_document(&*it, &len, &data);
  } else if (BSON_ITER_HOLDS_ARRAY(&*it)) {
    bson_iter_array(&*it, &len, &data);
  } else {
    return BsonDoc();
  }
  return BsonDoc::CopyOf(data, len);
}

std::vector<BsonDoc> DocArray(const BsonDoc& doc, std::string_view path) {
  std::vector<BsonDoc> out;
  BsonDoc array = SubDoc(doc, path);
  bson_iter_t it;
  if (!bson_iter_init(&it, array.get())) return out;
  while (bson_iter_next(&it)) {
    if (!BSON_ITER_HOLDS_DOCUMENT(&it)) continue;
    const uint8_t* data = nullptr;
    uint32_t len = 0;
    bson_iter_document(&it, &len, &data);
    out.push_back(BsonDoc::CopyOf(data, len));
  }
  return out;
}

size_t ArrayLength(const BsonDoc& doc, std::string_view path) {
  BsonDoc array = SubDoc(doc, path);
  return bson_count_keys(array.get());
}

std::string CanonicalJson(const BsonDoc& doc) {
  size_t len = 0;
  char* json = bson_as_canonical_extended_json(doc.get(), &len);
  std::string out(json ? json : "", json ? len : 0);
  bson_free(json);
  return out;
}

std::string CanonicalJson(std::string_view relaxed_json) {
  return CanonicalJson(BsonDoc::FromJson(relaxed_json));
}

std::string Json(const BsonDoc& doc) { return doc.ToJson(); }

bool IsOk(const BsonDoc& reply) {
  auto ok = Number(reply, "ok");
  return ok && *ok == 1.0;
}

}  // namespace tigerdoc::testutil
