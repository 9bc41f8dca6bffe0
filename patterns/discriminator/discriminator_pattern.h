#pragma once
// The discriminator single-collection pattern (issue 12): option
// `discriminator: {field, required, validationLevel, types: {...}}`
// (patterns/README.md). Every write's discriminator value must name a
// declared type ("order.*" covers every value starting "order."; an exact
// key wins over prefixes, a longer prefix over a shorter one) and pass that
// type's validator; per-type {count, size} are exact (same transaction).
// collMod replaces the whole option; with validationLevel "strict" it is
// refused (121) when existing documents would break the new rules.

#include <memory>

#include "engine/write/pattern_registry.h"

namespace tigerdoc::patterns::discriminator {

std::unique_ptr<engine::Pattern> MakeDiscriminatorPattern();

}  // namespace tigerdoc::patterns::discriminator
