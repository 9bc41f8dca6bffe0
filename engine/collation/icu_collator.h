#pragma once
// IcuCollator: bson::Collator over an ICU collator (ICU's
// icu::Collator, set up from a validated collation spec by
// collator_factory.cc). Compare() is ICU's UTF-8 comparison; sort keys are
// ICU's sort keys without their terminating 0x00 (ICU sort keys hold no
// other 0x00 byte), so they can be escaped into keystrings unchanged.
//
// Ownership: owns the ICU collator and the normalized spec.
// Thread-safety: ICU collators are safe for concurrent const use (compare,
// getSortKey) once set up; nothing here mutates after construction.

#include <unicode/coll.h>

#include <memory>

#include "engine/bson/bson_doc.h"
#include "engine/bson/collator.h"

namespace tigerdoc::collation {

class IcuCollator : public bson::Collator {
 public:
  // REQUIRES: `icu` is fully configured; `spec` is its normalized spec.
  IcuCollator(std::unique_ptr<icu::Collator> icu, bson::BsonDoc spec)
      : icu_(std::move(icu)), spec_(std::move(spec)) {}

  int Compare(std::string_view a, std::string_view b) const override;
  void AppendSortKey(std::string_view s, std::string* out) const override;
  const bson_t* spec() const override { return spec_.get(); }

 private:
  std::unique_ptr<icu::Collator> icu_;
  bson::BsonDoc spec_;
};

}  // namespace tigerdoc::collation
