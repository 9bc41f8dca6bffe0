#pragma once
// The checks of command_args.h's getters on one element the caller has
// already found (`found` null: the field is absent, nullopt). A parser that
// walks its command once (ParseFind) reads each option with these, so its
// values and errors are exactly those of GetObject, GetNonNegative, GetBool
// and GetMaxTimeMS. `command` and `field` name the field in messages.
//
// Thread-safety: pure functions.

#include <bson/bson.h>

#include <cstdint>
#include <optional>
#include <string_view>

#include "engine/base/status.h"
#include "engine/bson/bson_doc.h"

namespace tigerdoc::wire {

StatusWith<std::optional<bson::BsonDoc>> ObjectAt(const bson_iter_t* found, std::string_view command,
                                                   const char* field);
StatusWith<std::optional<int64_t>> NonNegativeAt(const bson_iter_t* found, std::string_view command,
                                                 const char* field);
StatusWith<std::optional<bool>> BoolAt(const bson_iter_t* found, std::string_view command,
                                       const char* field);
StatusWith<std::optional<int64_t>> MaxTimeMSAt(const bson_iter_t* found);

}  // namespace tigerdoc::wire
