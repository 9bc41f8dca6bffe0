#include "engine/storage/wt_statistics.h"

#include <wiredtiger.h>

#include "engine/storage/wt_error.h"

namespace tigerdoc::storage {

StatusWith<std::vector<WtStatistic>> ReadConnectionStatistics(Session& session) {
  WT_SESSION* wt = session.raw();
  WT_CURSOR* cursor = nullptr;
  int ret = wt->open_cursor(wt, "statistics:", nullptr, nullptr, &cursor);
  if (ret != 0) return WtToStatus(ret, "open statistics cursor");
  std::vector<WtStatistic> out;
  while ((ret = cursor->next(cursor)) == 0) {
    const char* desc = nullptr;
    const char* printable = nullptr;
    int64_t value = 0;
    ret = cursor->get_value(cursor, &desc, &printable, &value);
    if (ret != 0) break;
    std::string_view text(desc);
    const size_t colon = text.find(": ");
    if (colon == std::string_view::npos) continue;
    out.push_back(WtStatistic{std::string(text.substr(0, colon)), std::string(text.substr(colon + 2)), value});
  }
  cursor->close(cursor);
  if (ret != WT_NOTFOUND) return WtToStatus(ret, "read statistics cursor");
  return out;
}

}  // namespace tigerdoc::storage
