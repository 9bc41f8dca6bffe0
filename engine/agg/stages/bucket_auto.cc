// $bucketAuto: {groupBy, buckets, output, granularity}. Sorts the inputs by
// groupBy and cuts them into `buckets` buckets of about equal size, never
// splitting equal values; _id is {min, max} where max is the next bucket's
// min (the last bucket's max is its largest value). Output defaults to
// {count: {$sum: 1}}.
// `granularity` (preferred-number rounding) is not implemented yet:
// NotImplemented (238).

#include <algorithm>

#include "engine/agg/stage_registry.h"
#include "engine/agg/stages/group.h"
#include "engine/agg/stages/stage_util.h"

namespace tigerdoc::agg {

StatusWith<StageSpecPtr> ParseBucketAutoStage(const bson_iter_t* spec, const ExpressionContext& ctx) {
  if (!BSON_ITER_HOLDS_DOCUMENT(spec)) {
    return Error(40240, "The argument to $bucketAuto must be an object, but found type: " +
                            TypeNameOf(bson_iter_type(spec)));
  }
  bson_t doc = SubDocument(spec);
  ParseContext pctx(&ctx);
  std::shared_ptr<Expression> group_by;
  auto fields = std::make_shared<std::vector<AccumulationStatement>>();
  int64_t buckets = 0;
  bool have_output = false;
  bson_iter_t it;
  bson_iter_init(&it, &doc);
  while (bson_iter_next(&it)) {
    std::string key = bson_iter_key(&it);
    if (key == "groupBy") {
      bool ok = BSON_ITER_HOLDS_DOCUMENT(&it) ||
                (BSON_ITER_HOLDS_UTF8(&it) && bson_iter_utf8(&it, nullptr)[0] == '$');
      if (!ok) {
        return Error(40239, "The $bucketAuto 'groupBy' field must be defined as a $-prefixed path or an expression object, but found: " +
                                Value(&it).ToString());
      }
      ASSIGN_OR_RETURN(ExpressionPtr e, ParseOperand(&it, &pctx));
      group_by = std::move(e);
    } else if (key == "buckets") {
      Value v(&it);
      if (!v.numeric() || !v.AsInt64Exact(&buckets) || buckets > INT32_MAX) {
        return Error(40241, "The $bucketAuto 'buckets' field must be a numeric value, but found type: " + v.TypeName());
      }
      if (buckets <= 0) {
        return Error(40243, "The $bucketAuto 'buckets' field must be greater than 0, but found: " + v.ToString());
      }
    } else if (key == "output") {
      if (!BSON_ITER_HOLDS_DOCUMENT(&it)) {
        return Error(40244, "The $bucketAuto 'output' field must be an object, but found type: " +
                                TypeNameOf(bson_iter_type(&it)));
      }
      bson_t out = SubDocument(&it);
      RETURN_IF_ERROR(ParseAccumulatorFields(&out, &pctx, nullptr, fields.get()));
      have_output = true;
    } else if (key == "granularity") {
      return Error(static_cast<int>(ErrorCode::kNotImplemented),
                   "$bucketAuto 'granularity' is not supported by tigerdoc yet");
    } else {
      return Error(40245, "Unrecognized option to $bucketAuto: " + key + ".");
    }
  }
  if (!group_by || buckets == 0) {
    return Error(40246, "$bucketAuto requires 'groupBy' and 'buckets' to be specified");
  }
  if (!have_output) {
    AccumulationStatement count;
    count.field = "count";
    count.op = "$sum";
    count.argument = MakeConstant(Value::Int(1));
    count.factory = SimpleAccumulatorFactory("$sum");
    fields->push_back(std::move(count));
  }
  return MakeSpec("$bucketAuto", [group_by, fields, buckets](StagePtr in, const ExpressionContext* c) -> StatusWith<StagePtr> {
    std::shared_ptr<Stage> input = std::move(in);
    return MakeBlockingStage([input, group_by, fields, buckets, c]() -> StatusWith<std::vector<bson::BsonDoc>> {
      Variables vars(c);
      std::vector<std::pair<Value, bson::BsonDoc>> rows;
      size_t memory = 0;
      while (true) {
        ASSIGN_OR_RETURN(std::optional<bson::BsonDoc> doc, input->Next());
        if (!doc) break;
        vars.SetRoot(Value::Document(*doc));
        ASSIGN_OR_RETURN(Value key, group_by->Evaluate(&vars));
        if (key.missing()) key = Value::Null();
        memory += doc->size() + 64;
        if (memory > c->max_memory_bytes && !c->allow_disk_use) {
          return Error(292, "Exceeded memory limit for $bucketAuto, but didn't allow external sort. Pass allowDiskUse:true to opt in.");
        }
        rows.emplace_back(std::move(key), std::move(*doc));
      }
      std::stable_sort(rows.begin(), rows.end(),
                       [](const auto& a, const auto& b) { return Compare(a.first, b.first) < 0; });
      std::vector<bson::BsonDoc> out;
      if (rows.empty()) return out;
      const size_t n = rows.size();
      size_t approx = n / static_cast<size_t>(buckets);
      if (approx == 0) approx = 1;
      size_t i = 0;
      struct Bucket { size_t begin, end; };
      std::vector<Bucket> cuts;
      while (i < n) {
        size_t end = std::min(n, i + approx);
        // Never split equal values; the last bucket takes the remainder.
        while (end < n && Compare(rows[end].first, rows[end - 1].first) == 0) ++end;
        if (static_cast<int64_t>(cuts.size()) + 1 == buckets) end = n;
        cuts.push_back({i, end});
        i = end;
      }
      for (size_t b = 0; b < cuts.size(); ++b) {
        std::vector<std::unique_ptr<Accumulator>> accs;
        for (const auto& f : *fields) accs.push_back(f.factory());
        for (size_t r = cuts[b].begin; r < cuts[b].end; ++r) {
          vars.SetRoot(Value::Document(rows[r].second));
          for (size_t k = 0; k < accs.size(); ++k) {
            ASSIGN_OR_RETURN(Value arg, (*fields)[k].argument->Evaluate(&vars));
            RETURN_IF_ERROR(accs[k]->Process(arg));
          }
        }
        Value min = rows[cuts[b].begin].first;
        Value max = b + 1 < cuts.size() ? rows[cuts[b + 1].begin].first : rows[cuts[b].end - 1].first;
        std::vector<std::pair<std::string, Value>> f;
        f.emplace_back("_id", MakeDocument({{"min", min}, {"max", max}}));
        for (size_t k = 0; k < accs.size(); ++k) {
          ASSIGN_OR_RETURN(Value v, accs[k]->Finalize());
          f.emplace_back((*fields)[k].field, std::move(v));
        }
        out.push_back(MakeDocument(f).ToDoc());
      }
      return out;
    });
  });
}

}  // namespace tigerdoc::agg
