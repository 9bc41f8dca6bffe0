#include "wire/commands/collation_option.h"

#include "engine/collation/collator_factory.h"

namespace tigerdoc::wire {

StatusWith<std::optional<const bson::Collator*>> GetCollation(const bson_t* body,
                                                              std::string_view command) {
  bson_iter_t it;
  if (!bson_iter_init_find(&it, body, "collation")) return std::optional<const bson::Collator*>();
  ASSIGN_OR_RETURN(const bson::Collator* collator, collation::CollatorForField(&it, command));
  return std::optional<const bson::Collator*>(collator);
}

}  // namespace tigerdoc::wire
