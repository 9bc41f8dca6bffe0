#include "patterns/outlier/outlier_view.h"

#include <string>

namespace tigerdoc::patterns::outlier {
namespace {

// JSON string literal of a field name (names are validated: no quotes
// or control characters can break out, but escape them anyway).
std::string Quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

}  // namespace

bson::BsonDoc ViewPipeline(const OutlierConfig& config) {
  const std::string path = Quoted(config.path);
  const std::string ref = Quoted("$" + config.path);
  const std::string flagged = "{\"$eq\": [" + Quoted("$" + config.flag) + ", true]}";
  const std::string embedded = "{\"$ifNull\": [" + ref + ", []]}";
  const std::string chunks =
      "{\"$toInt\": {\"$ceil\": {\"$divide\": [{\"$subtract\": [" +
      Quoted("$" + config.count_field) + ", {\"$size\": " + embedded + "}]}, " +
      std::to_string(config.chunk) + "]}}}";
  const std::string json =
      "{\"0\": {\"$set\": {\"__outlierChunkIds\": {\"$cond\": [" + flagged +
      ", {\"$map\": {\"input\": {\"$range\": [0, " + chunks +
      "]}, \"in\": {\"parentId\": \"$_id\", \"seq\": {\"$toLong\": \"$$this\"}}}}, \"$$REMOVE\"]}}},"
      " \"1\": {\"$lookup\": {\"from\": " + Quoted(config.overflow) +
      ", \"localField\": \"__outlierChunkIds\", \"foreignField\": \"_id\", \"as\": "
      "\"__outlierChunks\"}},"
      " \"2\": {\"$set\": {" + path + ": {\"$cond\": [" + flagged + ", {\"$concatArrays\": [" +
      embedded +
      ", {\"$reduce\": {\"input\": {\"$sortArray\": {\"input\": \"$__outlierChunks\", \"sortBy\": "
      "{\"seq\": 1}}}, \"initialValue\": [], \"in\": {\"$concatArrays\": [\"$$value\", "
      "\"$$this.items\"]}}}]}, " + ref + "]}}},"
      " \"3\": {\"$unset\": [\"__outlierChunkIds\", \"__outlierChunks\"]}}";
  return bson::BsonDoc::FromJson(json);
}

}  // namespace tigerdoc::patterns::outlier
