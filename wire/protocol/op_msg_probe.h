#pragma once
// ParseOpMsg that also finds one top-level field of the body on the walk
// that checks it (ParseRequest's $db, byte_reader.h's TopLevelProbe). Only
// the protocol's own parser needs it, hence not in op_msg.h, which every
// command includes.

#include <cstddef>
#include <cstdint>

#include "wire/protocol/byte_reader.h"
#include "wire/protocol/op_msg.h"

namespace tigerdoc::wire {

// ParseOpMsg(message, len), with `body_probe` filled from the body section
// (unchanged when there is none: the parse then fails).
StatusWith<OpMsg> ParseOpMsg(const uint8_t* message, size_t len, TopLevelProbe* body_probe);

}  // namespace tigerdoc::wire
