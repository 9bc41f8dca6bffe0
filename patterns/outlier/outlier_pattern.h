#pragma once
// The outlier pattern (issue 13): option `outlier: {path, threshold,
// overflow, chunk, flag, countField, view}` on a parent collection
// (patterns/README.md). A parent keeps at most `threshold` items of its
// array `path`; the rest live in overflow documents of at most `chunk`
// items, changed in the parent write's transaction (outlier_hook.h).
// The optional view shows the whole array (outlier_view.h).

#include <memory>

#include "engine/write/pattern_registry.h"

namespace tigerdoc::patterns::outlier {

std::unique_ptr<engine::Pattern> MakeOutlierPattern();

}  // namespace tigerdoc::patterns::outlier
