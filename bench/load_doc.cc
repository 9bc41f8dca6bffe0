#include <string>

#include "bench/load_backend.h"

namespace tigerdoc::bench {

bson::BsonDoc MakeLoadDoc(int64_t id) {
  static const std::string payload(kPayloadBytes, 'x');
  bson::BsonDoc doc;
  BSON_APPEND_INT64(doc.mutable_get(), "_id", id);
  BSON_APPEND_INT32(doc.mutable_get(), "n", 0);
  BSON_APPEND_UTF8(doc.mutable_get(), "v", payload.c_str());
  return doc;
}

}  // namespace tigerdoc::bench
