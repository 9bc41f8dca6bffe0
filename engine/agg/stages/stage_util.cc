#include "engine/agg/stages/stage_util.h"

namespace tigerdoc::agg {
namespace {

class MapStage : public Stage {
 public:
  MapStage(StagePtr input, const ExpressionContext* ctx, DocFn fn)
      : input_(std::move(input)), vars_(ctx), fn_(std::move(fn)) {}
  StatusWith<std::optional<bson::BsonDoc>> Next() override {
    while (true) {
      ASSIGN_OR_RETURN(std::optional<bson::BsonDoc> doc, input_->Next());
      if (!doc) return std::optional<bson::BsonDoc>();
      ASSIGN_OR_RETURN(std::optional<bson::BsonDoc> out, fn_(std::move(*doc), &vars_));
      if (out) return out;
    }
  }

 private:
  StagePtr input_;
  Variables vars_;
  DocFn fn_;
};

class VectorStage : public Stage {
 public:
  explicit VectorStage(std::vector<bson::BsonDoc> docs) : docs_(std::move(docs)) {}
  StatusWith<std::optional<bson::BsonDoc>> Next() override {
    if (pos_ >= docs_.size()) return std::optional<bson::BsonDoc>();
    return std::optional<bson::BsonDoc>(std::move(docs_[pos_++]));
  }

 private:
  std::vector<bson::BsonDoc> docs_;
  size_t pos_ = 0;
};

class BlockingStage : public Stage {
 public:
  explicit BlockingStage(BlockingFn fn) : fn_(std::move(fn)) {}
  StatusWith<std::optional<bson::BsonDoc>> Next() override {
    if (fn_) {
      BlockingFn fn = std::move(fn_);
      fn_ = nullptr;
      ASSIGN_OR_RETURN(docs_, fn());
    }
    if (pos_ >= docs_.size()) return std::optional<bson::BsonDoc>();
    return std::optional<bson::BsonDoc>(std::move(docs_[pos_++]));
  }

 private:
  BlockingFn fn_;
  std::vector<bson::BsonDoc> docs_;
  size_t pos_ = 0;
};

class FnSpec : public StageSpec {
 public:
  FnSpec(std::string name, BuildFn build, bool is_source)
      : name_(std::move(name)), build_(std::move(build)), is_source_(is_source) {}
  std::string_view name() const override { return name_; }
  StatusWith<StagePtr> Build(StagePtr input, const ExpressionContext* ctx) const override {
    return build_(std::move(input), ctx);
  }
  bool is_source() const override { return is_source_; }

 private:
  std::string name_;
  BuildFn build_;
  bool is_source_;
};

class SourceStage : public Stage {
 public:
  explicit SourceStage(std::unique_ptr<DocumentSource> source) : source_(std::move(source)) {}
  StatusWith<std::optional<bson::BsonDoc>> Next() override {
    if (!source_) return std::optional<bson::BsonDoc>();
    return source_->Next();
  }

 private:
  std::unique_ptr<DocumentSource> source_;
};

}  // namespace

StagePtr MakeSourceStage(std::unique_ptr<DocumentSource> source) {
  return std::make_unique<SourceStage>(std::move(source));
}

StagePtr MakeMapStage(StagePtr input, const ExpressionContext* ctx, DocFn fn) {
  return std::make_unique<MapStage>(std::move(input), ctx, std::move(fn));
}

StagePtr MakeVectorStage(std::vector<bson::BsonDoc> docs) {
  return std::make_unique<VectorStage>(std::move(docs));
}

StagePtr MakeBlockingStage(BlockingFn fn) {
  return std::make_unique<BlockingStage>(std::move(fn));
}

StageSpecPtr MakeSpec(std::string name, BuildFn build, bool is_source) {
  return std::make_unique<FnSpec>(std::move(name), std::move(build), is_source);
}

bson::BsonDoc ToDoc(const Value& document) { return document.ToDoc(); }

Value GetNestedField(const Value& doc, const std::vector<std::string>& path) {
  Value cur = doc;
  for (const std::string& p : path) {
    if (!cur.is_document()) return Value::Missing();
    bson_t view = cur.View();
    bson_iter_t it;
    if (!bson_iter_init_find_w_len(&it, &view, p.data(), static_cast<int>(p.size()))) {
      return Value::Missing();
    }
    cur = Value(&it);
  }
  return cur;
}

Value SetNestedField(const Value& doc, const std::vector<std::string>& path, size_t i,
                     const Value& v) {
  std::vector<std::pair<std::string, Value>> fields;
  if (doc.is_document()) fields = doc.Fields();
  bool found = false;
  for (auto it = fields.begin(); it != fields.end(); ++it) {
    if (it->first != path[i]) continue;
    found = true;
    if (i + 1 == path.size()) {
      if (v.missing()) {
        fields.erase(it);
      } else {
        it->second = v;
      }
    } else {
      it->second = SetNestedField(it->second, path, i + 1, v);
    }
    break;
  }
  if (!found) {
    if (i + 1 == path.size()) {
      if (!v.missing()) fields.emplace_back(path[i], v);
    } else {
      fields.emplace_back(path[i], SetNestedField(Value::Missing(), path, i + 1, v));
    }
  }
  return MakeDocument(fields);
}

std::vector<std::string> SplitPath(std::string_view dotted) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    size_t dot = dotted.find('.', start);
    if (dot == std::string_view::npos) {
      parts.emplace_back(dotted.substr(start));
      return parts;
    }
    parts.emplace_back(dotted.substr(start, dot - start));
    start = dot + 1;
  }
}

std::string IterString(const bson_iter_t* it) {
  uint32_t length = 0;
  const char* data = bson_iter_utf8(it, &length);
  return std::string(data, length);
}

Status ValidateFieldPath(std::string_view path) {
  if (path.empty()) return Error(40352, "FieldPath cannot be constructed with empty string");
  if (path.back() == '.') return Error(40353, "FieldPath must not end with a '.'.");
  for (const std::string& p : SplitPath(path)) {
    if (p.empty()) return Error(15998, "FieldPath field names may not be empty strings.");
    if (p[0] == '$') {
      return Error(16410, "FieldPath field names may not start with '$'. Consider using $getField or $setField.");
    }
    if (p.find('\0') != std::string::npos) {
      return Error(16411, "FieldPath field names may not contain '\\0'.");
    }
  }
  return Status::OK();
}

}  // namespace tigerdoc::agg
