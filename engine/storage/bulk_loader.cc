// BulkLoader: a WiredTiger "bulk" cursor, closed to finish the load.

#include "engine/storage/bulk_loader.h"

#include <wiredtiger.h>

#include "engine/base/invariant.h"
#include "engine/storage/wt_error.h"

namespace tigerdoc::storage {
namespace {

// How often Append looks at the file system's free space.
constexpr int64_t kSpaceCheckEveryRows = 4096;

}  // namespace

StatusWith<std::unique_ptr<BulkLoader>> BulkLoader::Open(StorageEngine& engine, Session& session,
                                                         std::string_view table) {
  RETURN_IF_ERROR(engine.CheckSpaceForWrite());
  const std::string uri = "table:" + std::string(table);
  WT_SESSION* raw = session.raw();
  WT_CURSOR* cursor = nullptr;
  int ret = raw->open_cursor(raw, uri.c_str(), nullptr, "bulk", &cursor);
  if (ret != 0) return WtToStatus(ret, "bulk load into " + std::string(table));
  return std::unique_ptr<BulkLoader>(new BulkLoader(&engine, cursor, std::string(table)));
}

BulkLoader::~BulkLoader() {
  if (cursor_ != nullptr) cursor_->close(cursor_);
}

Status BulkLoader::Append(std::string_view key, std::string_view value) {
  INVARIANT(cursor_ != nullptr);
  if (++appended_ % kSpaceCheckEveryRows == 0) RETURN_IF_ERROR(engine_->CheckSpaceForWrite());
  WT_ITEM k{};
  k.data = key.data();
  k.size = key.size();
  WT_ITEM v{};
  v.data = value.data();
  v.size = value.size();
  cursor_->set_key(cursor_, &k);
  cursor_->set_value(cursor_, &v);
  int ret = cursor_->insert(cursor_);
  if (ret != 0) return WtToStatus(ret, "bulk load into " + table_);
  return Status::OK();
}

Status BulkLoader::Finish() {
  INVARIANT(cursor_ != nullptr);
  WT_CURSOR* cursor = cursor_;
  cursor_ = nullptr;
  int ret = cursor->close(cursor);
  if (ret != 0) return WtToStatus(ret, "finish bulk load into " + table_);
  return Status::OK();
}

}  // namespace tigerdoc::storage
