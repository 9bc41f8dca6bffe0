#include <string>

#include "bench/load_backend.h"

namespace tigerdoc::bench {

bson::BsonDoc MakeLoadDoc(int64_t id) {
  static const std::string payload(kPayloadBytes, 'x');
  bson::BsonDoc doc;
  // Three document types, for collections with a discriminator (--create).
  static const char* const kTypes[] = {"order.created", "order.paid", "user.login"};
  BSON_APPEND_INT64(doc.mutable_get(), "_id", id);
  BSON_APPEND_UTF8(doc.mutable_get(), "type", kTypes[id % 3]);
  BSON_APPEND_INT32(doc.mutable_get(), "n", 0);
  BSON_APPEND_UTF8(doc.mutable_get(), "v", payload.c_str());
  return doc;
}

}  // namespace tigerdoc::bench
