#pragma once
// The `collation` option of find, aggregate, count, distinct, update and
// delete statements, findAndModify and create: parsed and validated
// (engine/collation/collator_factory.h has the grammar and MongoDB's
// errors) into the collator the engine runs the operation with.
//
// Thread-safety: pure function (collators are cached process-wide).

#include <bson/bson.h>

#include <optional>
#include <string_view>

#include "engine/base/status.h"
#include "engine/bson/collator.h"

namespace tigerdoc::wire {

// nullopt when `body` has no `collation` field (the collection's default
// applies); otherwise its collator, nullptr for {locale: "simple"}.
// `command` names the field in type errors ("find" -> 'find.collation').
StatusWith<std::optional<const bson::Collator*>> GetCollation(const bson_t* body,
                                                              std::string_view command);

}  // namespace tigerdoc::wire
