#include "bench/ycsb/ycsb_mongo_wire.h"

#include <cstdio>

#include "bench/process_cpu.h"
#include "bench/wire_client.h"
#include "bench/ycsb/ycsb_mongo_commands.h"

namespace tigerdoc::bench::ycsb {
namespace {

constexpr char kDb[] = "ycsb";
constexpr char kCollection[] = "usertable_wire";
// A broken connection fails every later operation: say why a few times,
// not a hundred thousand.
constexpr int kMaxReportedFailures = 5;

class WireYcsbClient : public Client {
 public:
  WireYcsbClient(std::unique_ptr<WireClient> conn, std::string db, std::string collection)
      : conn_(std::move(conn)), db_(std::move(db)), collection_(std::move(collection)) {}
  ~WireYcsbClient() override { bson_destroy(&cmd_); }

  bool Insert(const std::string& key, const std::vector<std::string>& fields) override {
    bson_reinit(&cmd_);
    BuildInsertCommand(&cmd_, collection_, key, fields);
    return Write("insert", key);
  }

  bool Read(const std::string& key) override {
    bson_reinit(&cmd_);
    BuildReadCommand(&cmd_, collection_, key);
    int64_t n = Find("read", key, 1);
    return n == 0 ? Failed("read", key, "the record was not found") : n == 1;
  }

  bool Update(const std::string& key, int field, const std::string& value) override {
    bson_reinit(&cmd_);
    BuildUpdateCommand(&cmd_, collection_, key, field, value);
    return Write("update", key);
  }

  int64_t Scan(const std::string& start, int count) override {
    bson_reinit(&cmd_);
    BuildScanCommand(&cmd_, collection_, start, count);
    return Find("scan", start, count);
  }

 private:
  // Documents found (at most `limit`), -1 on error.
  int64_t Find(const char* op, const std::string& key, int limit) {
    bson_t reply;
    Status status = conn_->Run(&cmd_, db_, &reply);
    if (!status.ok()) {
      Failed(op, key, status.ToString());
      return -1;
    }
    int64_t n = ScanLength(&reply, limit);
    if (n < 0) Failed(op, key, "not an exhausted cursor of at most " + std::to_string(limit));
    return n;
  }

  bool Write(const char* op, const std::string& key) {
    bson_t reply;
    Status status = conn_->Run(&cmd_, db_, &reply);
    if (!status.ok()) return Failed(op, key, status.ToString());
    if (WroteOne(&reply)) return true;
    char* json = bson_as_relaxed_extended_json(&reply, nullptr);
    bool ok = Failed(op, key, std::string("did not write one document: ") + json);
    bson_free(json);
    return ok;
  }

  // Prints the first few failures; always false.
  bool Failed(const char* op, const std::string& key, const std::string& why) {
    if (failures_++ < kMaxReportedFailures) {
      std::fprintf(stderr, "[tigerdoc-wire] %s %s: %s\n", op, key.c_str(), why.c_str());
    }
    return false;
  }

  std::unique_ptr<WireClient> conn_;
  std::string db_, collection_;
  bson_t cmd_ = BSON_INITIALIZER;  // refilled by every operation
  int64_t failures_ = 0;
};

}  // namespace

StatusWith<std::unique_ptr<Client>> NewMongoWireClient(const std::string& host, int port,
                                                       const std::string& db,
                                                       const std::string& collection) {
  ASSIGN_OR_RETURN(std::unique_ptr<WireClient> conn, WireClient::Connect(host, port));
  return std::unique_ptr<Client>(std::make_unique<WireYcsbClient>(std::move(conn), db, collection));
}

StatusWith<std::unique_ptr<MongoWireYcsb>> MongoWireYcsb::Connect(const std::string& uri,
                                                                  pid_t server_pid) {
  std::string host;
  int port = 0;
  RETURN_IF_ERROR(FirstHostOfUri(uri, &host, &port));
  // One handshake now, so that a missing server fails before any measurement.
  ASSIGN_OR_RETURN(std::unique_ptr<WireClient> probe, WireClient::Connect(host, port));
  return std::unique_ptr<MongoWireYcsb>(new MongoWireYcsb(host, port, server_pid));
}

Status MongoWireYcsb::Reset() {
  ASSIGN_OR_RETURN(std::unique_ptr<WireClient> conn, WireClient::Connect(host_, port_));
  bson_t cmd = BSON_INITIALIZER, reply;
  BSON_APPEND_UTF8(&cmd, "drop", kCollection);
  Status status = conn->Run(&cmd, kDb, &reply);
  if (status.code() == ErrorCode::kNamespaceNotFound) status = Status::OK();  // absent is fine
  if (status.ok()) {
    bson_reinit(&cmd);
    BSON_APPEND_UTF8(&cmd, "create", kCollection);
    status = conn->Run(&cmd, kDb, &reply);
  }
  bson_destroy(&cmd);
  return status.WithContext("reset: ");
}

StatusWith<std::unique_ptr<Client>> MongoWireYcsb::NewClient() {
  return NewMongoWireClient(host_, port_, kDb, kCollection);
}

double MongoWireYcsb::ServerCpuSeconds() {
  return server_pid_ > 0 ? ProcessCpuSeconds(server_pid_) : -1;
}

}  // namespace tigerdoc::bench::ycsb
