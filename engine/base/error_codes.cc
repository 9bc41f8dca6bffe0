#include "engine/base/error_codes.h"

#include <string>
#include <unordered_map>

namespace tigerdoc {

std::string_view ErrorCodeName(ErrorCode code) {
  // First name wins for numbers listed twice.
  static const auto* const kNames = [] {
    auto* names = new std::unordered_map<int, std::string>();
#define X(name, number) names->emplace(number, #name);
#include "engine/base/error_codes.def"
#undef X
    return names;
  }();
  auto it = kNames->find(static_cast<int>(code));
  if (it != kNames->end()) return it->second;
  // Unregistered numbers: cache a "Location<n>" string so the view stays valid.
  static thread_local std::unordered_map<int, std::string> location_names;
  auto [pos, inserted] = location_names.emplace(static_cast<int>(code), "");
  if (inserted) pos->second = "Location" + std::to_string(static_cast<int>(code));
  return pos->second;
}

}  // namespace tigerdoc
