#pragma once
// The collection option changeStreamPreAndPostImages: {enabled: <bool>}
// (create, collMod), as MongoDB's. When enabled, the change log rows of
// the collection's updates, replacements and deletes keep the document
// before the change (and updates the one after), which change streams
// return as fullDocumentBeforeChange / fullDocument (whenAvailable,
// required).
//
// It is registered as a pattern (engine/write/pattern_registry.h) because
// that is how the engine parses, persists (catalog `patterns`) and shows a
// collection option it owns; its hook does nothing: the collection writer
// reads the config (catalog::PreAndPostImagesEnabled) when it builds rows.
//
// Errors: 14 when the value is not an object or `enabled` not a bool,
// 40414 without `enabled`, 40415 an unknown field inside.

#include <memory>

#include "engine/write/pattern_registry.h"

namespace tigerdoc::engine {

std::unique_ptr<Pattern> MakePreAndPostImagesOption();

}  // namespace tigerdoc::engine
