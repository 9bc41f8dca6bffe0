#include "bench/ycsb/ycsb_postgres.h"

#include <libpq-fe.h>

#include <cstring>

#include "bench/pg_connect.h"
#include "bench/process_cpu.h"

namespace tigerdoc::bench::ycsb {
namespace {

constexpr PgStatement kStatements[] = {
    {"read", "SELECT doc FROM usertable WHERE ycsb_key = $1", 1},
    {"update",
     "UPDATE usertable SET doc = jsonb_set(doc, ARRAY[$2::text], to_jsonb($3::text)) "
     "WHERE ycsb_key = $1",
     3},
    {"insert", "INSERT INTO usertable (ycsb_key, doc) VALUES ($1, $2::jsonb)", 2},
    {"scan", "SELECT doc FROM usertable WHERE ycsb_key >= $1 ORDER BY ycsb_key LIMIT $2::int", 2},
};

// Appends `s` as a JSON string (the field values are printable ASCII; '"'
// and '\\' still need escaping).
void AppendJsonString(std::string* out, const std::string& s) {
  out->push_back('"');
  for (char c : s) {
    if (c == '"' || c == '\\') out->push_back('\\');
    out->push_back(c);
  }
  out->push_back('"');
}

class PostgresClient : public Client {
 public:
  explicit PostgresClient(PGconn* conn) : conn_(conn) {}
  ~PostgresClient() override { PQfinish(conn_); }

  Status Prepare() { return PgPrepareAll(conn_, kStatements); }

  bool Insert(const std::string& key, const std::vector<std::string>& fields) override {
    json_.clear();
    json_.push_back('{');
    for (int i = 0; i < kFieldCount; ++i) {
      if (i > 0) json_.push_back(',');
      AppendJsonString(&json_, FieldName(i));
      json_.push_back(':');
      AppendJsonString(&json_, fields[static_cast<size_t>(i)]);
    }
    json_.push_back('}');
    const char* params[] = {key.c_str(), json_.c_str()};
    return Modified("insert", 2, params);
  }

  bool Read(const std::string& key) override {
    const char* params[] = {key.c_str()};
    return Rows("read", 1, params) == 1;
  }

  bool Update(const std::string& key, int field, const std::string& value) override {
    const char* params[] = {key.c_str(), FieldName(field).c_str(), value.c_str()};
    return Modified("update", 3, params);
  }

  int64_t Scan(const std::string& start, int count) override {
    std::string limit = std::to_string(count);
    const char* params[] = {start.c_str(), limit.c_str()};
    return Rows("scan", 2, params);
  }

 private:
  // Rows returned, -1 on error.
  int64_t Rows(const char* statement, int nparams, const char* const* params) {
    PGresult* res = PQexecPrepared(conn_, statement, nparams, params, nullptr, nullptr, 0);
    int64_t n = PQresultStatus(res) == PGRES_TUPLES_OK ? PQntuples(res) : -1;
    PQclear(res);
    return n;
  }

  // True when the statement changed exactly one row.
  bool Modified(const char* statement, int nparams, const char* const* params) {
    PGresult* res = PQexecPrepared(conn_, statement, nparams, params, nullptr, nullptr, 0);
    bool ok = PQresultStatus(res) == PGRES_COMMAND_OK && std::strcmp(PQcmdTuples(res), "1") == 0;
    PQclear(res);
    return ok;
  }

  PGconn* conn_;
  std::string json_;
};

}  // namespace

Status PostgresYcsb::Exec(const std::string& sql) {
  ASSIGN_OR_RETURN(PGconn* conn, ConnectPostgres(conninfo_));
  Status status = PgExec(conn, sql);
  PQfinish(conn);
  return status;
}

Status PostgresYcsb::Reset() {
  RETURN_IF_ERROR(Exec("DROP TABLE IF EXISTS usertable"));
  return Exec("CREATE TABLE usertable (ycsb_key text COLLATE \"C\" PRIMARY KEY, doc jsonb NOT NULL)");
}

// Statistics for the planner (tigerdoc needs none); outside the timed runs.
Status PostgresYcsb::FinishLoad() { return Exec("VACUUM ANALYZE usertable"); }

StatusWith<std::unique_ptr<Client>> PostgresYcsb::NewClient() {
  ASSIGN_OR_RETURN(PGconn* conn, ConnectPostgres(conninfo_));
  auto client = std::make_unique<PostgresClient>(conn);
  RETURN_IF_ERROR(client->Prepare());
  return std::unique_ptr<Client>(std::move(client));
}

double PostgresYcsb::ServerCpuSeconds() {
  return postmaster_pid_ > 0 ? ProcessTreeCpuSeconds(postmaster_pid_) : -1;
}

}  // namespace tigerdoc::bench::ycsb
