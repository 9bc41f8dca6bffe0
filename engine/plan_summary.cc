#include "engine/plan_summary.h"

#include "engine/bson/shell_string.h"
#include "engine/operation_registry.h"

namespace tigerdoc::engine {

std::string PlanSummary(const query::PlanExecutor& exec, bool count_scan) {
  if (exec.index_plan()) {
    const char* stage = count_scan && exec.CanCountScan() ? "COUNT_SCAN "
                        : exec.distinct_scan()            ? "DISTINCT_SCAN "
                                                          : "IXSCAN ";
    std::string out;
    for (const auto& scan : exec.plan()->winner.scans) {
      if (!out.empty()) out += ", ";
      out += stage + bson::ToShellString(scan.index->key_pattern.get());
    }
    return out;
  }
  if (exec.collection() == nullptr) return "EOF";
  if (exec.point_reads()) return "IDHACK";
  if (exec.spec().hint == query::IndexHint::kIdIndex) return "IXSCAN { _id: 1 }";
  return exec.id_bounds() != nullptr ? "CLUSTERED_IXSCAN" : "COLLSCAN";
}

void RecordReadStats(const query::PlanExecutor& exec, int64_t keys_before, int64_t docs_before,
                     int64_t returned, bool count_scan) {
  Operation* op = CurrentOperation();
  if (op == nullptr) return;
  OperationStats& stats = op->stats();
  if (stats.plan_summary.empty()) stats.plan_summary = PlanSummary(exec, count_scan);
  stats.keys_examined += exec.total_keys_examined() - keys_before;
  stats.docs_examined += exec.total_docs_examined() - docs_before;
  if (returned >= 0) stats.n_returned = (stats.n_returned < 0 ? 0 : stats.n_returned) + returned;
}

void RecordIdPointReadStats(int64_t returned) {
  Operation* op = CurrentOperation();
  if (op == nullptr) return;
  OperationStats& stats = op->stats();
  if (stats.plan_summary.empty()) stats.plan_summary = "IDHACK";
  stats.keys_examined += returned;
  stats.docs_examined += returned;
  stats.n_returned = (stats.n_returned < 0 ? 0 : stats.n_returned) + returned;
}

void RecordReturned(int64_t returned) {
  Operation* op = CurrentOperation();
  if (op == nullptr) return;
  OperationStats& stats = op->stats();
  stats.n_returned = (stats.n_returned < 0 ? 0 : stats.n_returned) + returned;
}

}  // namespace tigerdoc::engine
