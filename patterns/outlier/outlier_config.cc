#include "patterns/outlier/outlier_config.h"

#include <cmath>

namespace tigerdoc::patterns::outlier {
namespace {

std::string FieldName(std::string_view command, std::string_view sub) {
  return "BSON field '" + std::string(command) + ".outlier" +
         (sub.empty() ? "" : "." + std::string(sub)) + "'";
}

Status WrongType(std::string_view command, std::string_view sub, const char* expected) {
  return Status(ErrorCode::kTypeMismatch,
                FieldName(command, sub) + " is the wrong type, expected " + expected);
}

Status Bad(std::string_view command, std::string_view sub, const std::string& why) {
  return Status(ErrorCode::kBadValue, FieldName(command, sub) + " " + why);
}

// A whole number >= 1 from int, long or a whole double.
StatusWith<int64_t> PositiveCount(std::string_view command, std::string_view sub,
                                  const bson_iter_t* it) {
  int64_t value = 0;
  if (BSON_ITER_HOLDS_INT32(it) || BSON_ITER_HOLDS_INT64(it)) {
    value = bson_iter_as_int64(it);
  } else if (BSON_ITER_HOLDS_DOUBLE(it)) {
    const double d = bson_iter_double(it);
    if (std::isnan(d) || d != std::floor(d) || std::fabs(d) > 9.0e15) {
      return Status(ErrorCode::kFailedToParse,
                    FieldName(command, sub) + " must be a whole number, got " + std::to_string(d));
    }
    value = static_cast<int64_t>(d);
  } else {
    return WrongType(command, sub, "int, long or a whole double");
  }
  // An upper bound keeps an embedded part or a chunk below 16 MiB for
  // small items; larger documents are refused by the size rules anyway.
  constexpr int64_t kMax = 1000000;
  if (value < 1 || value > kMax) {
    return Bad(command, sub, "must be between 1 and " + std::to_string(kMax) + ", got " +
                                 std::to_string(value));
  }
  return value;
}

Status CheckFieldName(std::string_view command, std::string_view sub, const std::string& name) {
  if (name.empty() || name[0] == '$' || name.find('.') != std::string::npos ||
      name.find('\0') != std::string::npos || name == "_id") {
    return Bad(command, sub,
               "must be a top-level field name other than _id (no '.', not starting with '$'), "
               "got \"" + name + "\"");
  }
  return Status::OK();
}

Status CheckCollectionName(std::string_view command, std::string_view sub,
                           const std::string& name) {
  if (name.empty() || name[0] == '.' || name.find('$') != std::string::npos ||
      name.find('\0') != std::string::npos || name.rfind("system.", 0) == 0) {
    return Bad(command, sub, "must be a collection name of the same database, got \"" + name + "\"");
  }
  return Status::OK();
}

StatusWith<std::string> String(std::string_view command, std::string_view sub,
                               const bson_iter_t* it) {
  if (!BSON_ITER_HOLDS_UTF8(it)) return WrongType(command, sub, "string");
  return std::string(bson_iter_utf8(it, nullptr));
}

}  // namespace

StatusWith<OutlierConfig> OutlierConfig::Parse(std::string_view command,
                                               const bson_iter_t* option) {
  if (!BSON_ITER_HOLDS_DOCUMENT(option)) return WrongType(command, "", "object");
  OutlierConfig config;
  bool has_threshold = false;
  bson_iter_t it;
  bson_iter_recurse(option, &it);
  while (bson_iter_next(&it)) {
    const std::string key = bson_iter_key(&it);
    if (key == "path") {
      ASSIGN_OR_RETURN(config.path, String(command, key, &it));
      RETURN_IF_ERROR(CheckFieldName(command, key, config.path));
    } else if (key == "threshold") {
      ASSIGN_OR_RETURN(config.threshold, PositiveCount(command, key, &it));
      has_threshold = true;
    } else if (key == "overflow") {
      ASSIGN_OR_RETURN(config.overflow, String(command, key, &it));
      RETURN_IF_ERROR(CheckCollectionName(command, key, config.overflow));
    } else if (key == "chunk") {
      ASSIGN_OR_RETURN(config.chunk, PositiveCount(command, key, &it));
    } else if (key == "flag") {
      ASSIGN_OR_RETURN(config.flag, String(command, key, &it));
      RETURN_IF_ERROR(CheckFieldName(command, key, config.flag));
    } else if (key == "countField") {
      ASSIGN_OR_RETURN(config.count_field, String(command, key, &it));
      RETURN_IF_ERROR(CheckFieldName(command, key, config.count_field));
    } else if (key == "view") {
      ASSIGN_OR_RETURN(config.view, String(command, key, &it));
      RETURN_IF_ERROR(CheckCollectionName(command, key, config.view));
    } else {
      return Status(ErrorCode::kLocation40415,
                    FieldName(command, key) + " is an unknown field.");
    }
  }
  for (const auto& [name, missing] :
       {std::pair<const char*, bool>{"path", config.path.empty()},
        {"threshold", !has_threshold},
        {"overflow", config.overflow.empty()}}) {
    if (missing) {
      return Status(ErrorCode::kLocation40414,
                    FieldName(command, name) + " is missing but a required field");
    }
  }
  if (config.flag == config.path) return Bad(command, "flag", "must differ from path");
  if (!config.count_field.empty()) {
    if (config.count_field == config.path || config.count_field == config.flag) {
      return Bad(command, "countField", "must differ from path and flag");
    }
  }
  if (!config.view.empty() && config.count_field.empty()) {
    return Bad(command, "view",
               "needs countField: the view reads a flagged document's overflow documents by _id, "
               "numbered from the count");
  }
  if (!config.view.empty() && config.view == config.overflow) {
    return Bad(command, "view", "must differ from overflow");
  }
  return config;
}

StatusWith<OutlierConfig> OutlierConfig::FromCanonical(const bson_t* config) {
  bson_t wrapper = BSON_INITIALIZER;
  BSON_APPEND_DOCUMENT(&wrapper, kOption, config);
  bson_iter_t it;
  bson_iter_init_find(&it, &wrapper, kOption);
  StatusWith<OutlierConfig> parsed = Parse("catalog", &it);
  bson_destroy(&wrapper);
  return parsed;
}

bson::BsonDoc OutlierConfig::ToCanonical() const {
  bson::BsonDoc out;
  bson_t* doc = out.mutable_get();
  BSON_APPEND_UTF8(doc, "path", path.c_str());
  BSON_APPEND_INT64(doc, "threshold", threshold);
  BSON_APPEND_UTF8(doc, "overflow", overflow.c_str());
  BSON_APPEND_INT64(doc, "chunk", chunk);
  BSON_APPEND_UTF8(doc, "flag", flag.c_str());
  if (!count_field.empty()) BSON_APPEND_UTF8(doc, "countField", count_field.c_str());
  if (!view.empty()) BSON_APPEND_UTF8(doc, "view", view.c_str());
  return out;
}

Status OutlierConfig::CheckAgainst(std::string_view command, std::string_view coll) const {
  if (overflow == coll) return Bad(command, "overflow", "must differ from the collection itself");
  if (view == coll) return Bad(command, "view", "must differ from the collection itself");
  return Status::OK();
}

Status OutlierConfig::CheckChange(std::string_view command, const OutlierConfig& previous) const {
  auto same = [&](const char* field, const std::string& now, const std::string& before) {
    if (now == before) return Status::OK();
    return Bad(command, field,
               "cannot change from \"" + before + "\" to \"" + now +
                   "\": stored documents and their overflow depend on it (only threshold and "
                   "view may change; remove the option and add it again to start over)");
  };
  RETURN_IF_ERROR(same("path", path, previous.path));
  RETURN_IF_ERROR(same("overflow", overflow, previous.overflow));
  RETURN_IF_ERROR(same("flag", flag, previous.flag));
  RETURN_IF_ERROR(same("countField", count_field, previous.count_field));
  return same("chunk", std::to_string(chunk), std::to_string(previous.chunk));
}

}  // namespace tigerdoc::patterns::outlier
