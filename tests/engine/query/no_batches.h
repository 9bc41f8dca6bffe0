#pragma once
// NoBatches: a cursor's BatchSource that is exhausted at once, for unit
// tests of CursorManager that need a registered cursor but no data.

#include <vector>

#include "engine/query/cursor_manager.h"

namespace tigerdoc::query {

class NoBatches : public BatchSource {
 public:
  Status FillBatch(storage::Session&, int64_t, int64_t, std::vector<bson::BsonDoc>*, bool* exhausted) override {
    *exhausted = true;
    return Status::OK();
  }
  void SetInterrupt(const Interrupt&) override {}
};

}  // namespace tigerdoc::query
