#pragma once
// The archive pattern (issue 14): collection option
//   archive: {to, filter, olderThan, set, whenMatched, batchSize, unionView, every}
// (patterns/README.md; the fields are the archive command's,
// engine/archive/archive_spec.h, plus `every`, the seconds between two
// moves). The pattern owns the option: create / collMod validate it, the
// catalog keeps its canonical form, listCollections shows it. It adds
// nothing to writes; ArchiveScheduler (archive_scheduler.h) runs the moves.

#include <memory>
#include <string_view>

#include "engine/write/pattern_registry.h"

namespace tigerdoc::patterns::archive {

inline constexpr std::string_view kPatternName = "archive";
inline constexpr char kOption[] = "archive";

std::unique_ptr<engine::Pattern> MakeArchivePattern();

}  // namespace tigerdoc::patterns::archive
