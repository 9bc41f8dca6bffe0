#pragma once
// WiredTigerYcsb: YCSB in-process on WiredTiger, the ceiling tigerdoc's
// numbers are compared with: the server's storage settings
// (bench/wt_backend.h OpenLikeServer), one table keyed like a collection
// sharded by _id (keystring(_id) ++ keystring(_id)) holding the same BSON
// document tigerdoc stores, each operation in its own transaction:
//  - read: search + copy of the value; update: search, rewrite the BSON
//    with the field replaced, update, commit; insert: insert, commit;
//  - scan: search_near to the start key, then next() up to n records,
//    copying each value.
// The CPU reported is this process's (client threads included: there is
// no other side).

#include <string>

#include "bench/ycsb/ycsb_backend.h"

struct __wt_connection;

namespace tigerdoc::bench::ycsb {

class WiredTigerYcsb : public Backend {
 public:
  // Creates a WiredTiger home in `home` (an empty directory the caller removes).
  static StatusWith<std::unique_ptr<WiredTigerYcsb>> Open(const std::string& home, int cache_size_mb);
  ~WiredTigerYcsb() override;
  std::string name() const override { return "wiredtiger"; }
  Status Reset() override;
  StatusWith<std::unique_ptr<Client>> NewClient() override;
  double ServerCpuSeconds() override;

 private:
  explicit WiredTigerYcsb(__wt_connection* conn) : conn_(conn) {}
  __wt_connection* conn_;
};

}  // namespace tigerdoc::bench::ycsb
