// The default (read-only) write operations of CollectionResolver: a
// resolver that cannot write refuses $out and $merge.

#include "engine/agg/expression_context.h"

namespace tigerdoc::agg {
namespace {

Status NoWrites() {
  return Error(static_cast<int>(ErrorCode::kNotImplemented),
               "$out and $merge need a context that can write collections");
}

}  // namespace

StatusWith<WriteTarget> CollectionResolver::DescribeTarget(std::string_view, std::string_view) {
  return NoWrites();
}
Status CollectionResolver::Insert(std::string_view, std::string_view, std::vector<bson::BsonDoc>) {
  return NoWrites();
}
Status CollectionResolver::Replace(std::string_view, std::string_view, const bson_t*, const bson_t*,
                                   bool*) {
  return NoWrites();
}
StatusWith<std::string> CollectionResolver::CreateTemp(std::string_view, std::string_view) {
  return NoWrites();
}
Status CollectionResolver::ReplaceWithTemp(std::string_view, std::string_view, std::string_view,
                                           std::string_view) {
  return NoWrites();
}
Status CollectionResolver::DropTemp(std::string_view, std::string_view) { return NoWrites(); }

}  // namespace tigerdoc::agg
