// $sample {size: n}: n documents chosen uniformly at random (reservoir
// sampling), in random order.

#include <algorithm>
#include <chrono>
#include <random>

#include "engine/agg/stage_registry.h"
#include "engine/agg/stages/stage_util.h"

namespace tigerdoc::agg {

StatusWith<StageSpecPtr> ParseSampleStage(const bson_iter_t* spec, const ExpressionContext&) {
  if (!BSON_ITER_HOLDS_DOCUMENT(spec)) {
    return Error(28745, "the $sample stage specification must be an object");
  }
  bson_t doc = bson::SubDocumentView(spec);
  bson_iter_t it;
  bson_iter_init(&it, &doc);
  std::optional<int64_t> size;
  while (bson_iter_next(&it)) {
    std::string key = bson_iter_key(&it);
    if (key != "size") return Error(28748, "unrecognized option to $sample: " + key);
    Value v(&it);
    int64_t n;
    if (!v.numeric() || !v.AsInt64Exact(&n)) {
      return Error(28746, "size argument to $sample must be a number");
    }
    if (n < 0) return Error(28747, "size argument to $sample must not be negative");
    size = n;
  }
  if (!size) return Error(28749, "$sample stage must specify a size");
  int64_t n = *size;
  return MakeSpec("$sample", [n](StagePtr in, const ExpressionContext* c) -> StatusWith<StagePtr> {
    std::shared_ptr<Stage> input = std::move(in);
    uint64_t seed = c->random_seed != 0
                        ? c->random_seed
                        : static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
    return MakeBlockingStage([input, n, seed]() -> StatusWith<std::vector<bson::BsonDoc>> {
      std::mt19937_64 rng(seed);
      std::vector<bson::BsonDoc> reservoir;
      int64_t seen = 0;
      while (true) {
        ASSIGN_OR_RETURN(std::optional<bson::BsonDoc> doc, input->Next());
        if (!doc) break;
        ++seen;
        if (static_cast<int64_t>(reservoir.size()) < n) {
          reservoir.push_back(std::move(*doc));
        } else if (n > 0) {
          std::uniform_int_distribution<int64_t> pick(0, seen - 1);
          int64_t j = pick(rng);
          if (j < n) reservoir[j] = std::move(*doc);
        }
      }
      std::shuffle(reservoir.begin(), reservoir.end(), rng);
      return reservoir;
    });
  });
}

}  // namespace tigerdoc::agg
