#include "patterns/subset/subset_counters.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "engine/bson/shell_string.h"

namespace tigerdoc::patterns::subset {
namespace {

void AppendInteger(bson_t* doc, const char* key, int64_t v) {
  if (v >= std::numeric_limits<int32_t>::min() && v <= std::numeric_limits<int32_t>::max()) {
    BSON_APPEND_INT32(doc, key, static_cast<int32_t>(v));
  } else {
    BSON_APPEND_INT64(doc, key, v);
  }
}

// Keys of $countByValue in the order a reader expects: numbers by value
// ("2" before "10"), then the rest as text.
bool KeyBefore(const std::string& a, const std::string& b) {
  char* end_a = nullptr;
  char* end_b = nullptr;
  const double x = std::strtod(a.c_str(), &end_a);
  const double y = std::strtod(b.c_str(), &end_b);
  const bool num_a = !a.empty() && *end_a == '\0';
  const bool num_b = !b.empty() && *end_b == '\0';
  if (num_a != num_b) return num_a;
  if (num_a && x != y) return x < y;
  return a < b;
}

}  // namespace

std::string ValueKey(const bson_iter_t* it) {
  if (BSON_ITER_HOLDS_UTF8(it)) return bson_iter_utf8(it, nullptr);
  if (BSON_ITER_HOLDS_INT32(it) || BSON_ITER_HOLDS_INT64(it)) {
    return std::to_string(bson_iter_as_int64(it));
  }
  if (BSON_ITER_HOLDS_DOUBLE(it)) {
    const double d = bson_iter_double(it);
    if (d == std::trunc(d) && std::fabs(d) < 9.0e15) return std::to_string(static_cast<int64_t>(d));
  }
  return bson::ToShellString(it);
}

void CounterState::Apply(const SubsetConfig& config, const bson_t* child, int sign) {
  for (size_t k = 0; k < config.counters().size(); ++k) {
    const Counter& counter = config.counters()[k];
    CounterValue& value = counters_[k];
    if (counter.kind == Counter::Kind::kSumConstant) {
      value.n += sign;
      continue;
    }
    bson_iter_t root, it;
    if (!bson_iter_init(&root, child) || !bson_iter_find_descendant(&root, counter.field.c_str(), &it)) {
      continue;  // missing: not counted, as $sum/$avg ignore it
    }
    if (counter.kind == Counter::Kind::kCountByValue) {
      if (BSON_ITER_HOLDS_NULL(&it) || BSON_ITER_HOLDS_UNDEFINED(&it)) continue;
      const std::string key = ValueKey(&it);
      int64_t& n = value.values[key];
      n += sign;
      if (n == 0) value.values.erase(key);
      continue;
    }
    if (BSON_ITER_HOLDS_INT32(&it) || BSON_ITER_HOLDS_INT64(&it)) {
      value.n += sign;
      value.i += sign * bson_iter_as_int64(&it);
    } else if (BSON_ITER_HOLDS_DOUBLE(&it) || BSON_ITER_HOLDS_DECIMAL128(&it)) {
      double d = 0;
      if (BSON_ITER_HOLDS_DOUBLE(&it)) {
        d = bson_iter_double(&it);
      } else {
        bson_decimal128_t dec;
        bson_iter_decimal128(&it, &dec);
        char text[BSON_DECIMAL128_STRING];
        bson_decimal128_to_string(&dec, text);
        d = std::strtod(text, nullptr);
      }
      value.n += sign;
      value.nd += sign;
      value.d += sign * d;
      if (value.nd == 0) value.d = 0;
    }
    // Other types are ignored by $sum and $avg.
  }
}

void CounterState::Render(const SubsetConfig& config, bson_t* set) const {
  for (size_t k = 0; k < config.counters().size(); ++k) {
    const Counter& counter = config.counters()[k];
    const CounterValue& value = counters_[k];
    const char* path = counter.path.c_str();
    switch (counter.kind) {
      case Counter::Kind::kSumConstant:
        if (counter.constant_is_double) {
          BSON_APPEND_DOUBLE(set, path, counter.double_constant * static_cast<double>(value.n));
        } else {
          AppendInteger(set, path, counter.int_constant * value.n);
        }
        break;
      case Counter::Kind::kSumField:
        if (value.nd == 0) {
          AppendInteger(set, path, value.i);
        } else {
          BSON_APPEND_DOUBLE(set, path, static_cast<double>(value.i) + value.d);
        }
        break;
      case Counter::Kind::kAvg:
        if (value.n == 0) {
          BSON_APPEND_NULL(set, path);
        } else {
          BSON_APPEND_DOUBLE(set, path,
                             (static_cast<double>(value.i) + value.d) / static_cast<double>(value.n));
        }
        break;
      case Counter::Kind::kCountByValue: {
        std::vector<const std::pair<const std::string, int64_t>*> entries;
        for (const auto& entry : value.values) entries.push_back(&entry);
        std::sort(entries.begin(), entries.end(),
                  [](const auto* a, const auto* b) { return KeyBefore(a->first, b->first); });
        bson_t sub;
        BSON_APPEND_DOCUMENT_BEGIN(set, path, &sub);
        for (const auto* entry : entries) {
          AppendInteger(&sub, entry->first.c_str(), entry->second);
        }
        bson_append_document_end(set, &sub);
        break;
      }
    }
  }
}

bool CounterState::empty() const {
  for (const CounterValue& v : counters_) {
    if (v.n != 0 || !v.values.empty()) return false;
  }
  return true;
}

std::string CounterState::Encode() const {
  bson::BsonDoc out;
  bson_t list;
  BSON_APPEND_ARRAY_BEGIN(out.mutable_get(), "c", &list);
  for (size_t k = 0; k < counters_.size(); ++k) {
    const CounterValue& v = counters_[k];
    bson_t one, values;
    const std::string key = std::to_string(k);
    BSON_APPEND_DOCUMENT_BEGIN(&list, key.c_str(), &one);
    BSON_APPEND_INT64(&one, "n", v.n);
    BSON_APPEND_INT64(&one, "i", v.i);
    BSON_APPEND_DOUBLE(&one, "d", v.d);
    BSON_APPEND_INT64(&one, "nd", v.nd);
    BSON_APPEND_DOCUMENT_BEGIN(&one, "v", &values);
    for (const auto& [text, n] : v.values) {
      bson_append_int64(&values, text.data(), static_cast<int>(text.size()), n);
    }
    bson_append_document_end(&one, &values);
    bson_append_document_end(&list, &one);
  }
  bson_append_array_end(out.mutable_get(), &list);
  return std::string(out.bytes());
}

StatusWith<CounterState> CounterState::Decode(std::string_view bytes, size_t counters) {
  ASSIGN_OR_RETURN(bson::BsonDoc doc,
                   bson::BsonDoc::FromBytes(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()));
  CounterState state(counters);
  bson_iter_t list;
  if (!bson_iter_init_find(&list, doc.get(), "c") || !BSON_ITER_HOLDS_ARRAY(&list)) {
    return Status(ErrorCode::kInternalError, "malformed subset counters row");
  }
  bson_iter_t item;
  bson_iter_recurse(&list, &item);
  size_t k = 0;
  while (bson_iter_next(&item) && k < counters) {
    CounterValue& v = state.counters_[k++];
    bson_iter_t f;
    if (!BSON_ITER_HOLDS_DOCUMENT(&item)) continue;
    bson_iter_recurse(&item, &f);
    while (bson_iter_next(&f)) {
      const std::string_view key = bson_iter_key(&f);
      if (key == "n") v.n = bson_iter_as_int64(&f);
      else if (key == "i") v.i = bson_iter_as_int64(&f);
      else if (key == "d") v.d = bson_iter_double(&f);
      else if (key == "nd") v.nd = bson_iter_as_int64(&f);
      else if (key == "v" && BSON_ITER_HOLDS_DOCUMENT(&f)) {
        bson_iter_t values;
        bson_iter_recurse(&f, &values);
        while (bson_iter_next(&values)) v.values[bson_iter_key(&values)] = bson_iter_as_int64(&values);
      }
    }
  }
  return state;
}

}  // namespace tigerdoc::patterns::subset
