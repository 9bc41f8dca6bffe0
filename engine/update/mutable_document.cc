#include "engine/update/mutable_document.h"

#include <cstring>

#include "engine/bson/compare.h"
#include "engine/bson/field_path.h"
#include "engine/bson/shell_string.h"

namespace tigerdoc::update {

MutableValue::MutableValue() : kind_(Kind::kScalar) {}
MutableValue::MutableValue(query::OwnedValue scalar) : kind_(Kind::kScalar), scalar_(std::move(scalar)) {}
MutableValue::MutableValue(MutableValue&&) noexcept = default;
MutableValue& MutableValue::operator=(MutableValue&&) noexcept = default;
MutableValue::MutableValue(const MutableValue&) = default;
MutableValue& MutableValue::operator=(const MutableValue&) = default;
MutableValue::~MutableValue() = default;

MutableValue MutableValue::Null() { return MutableValue(); }

MutableValue MutableValue::EmptyDocument() {
  MutableValue v;
  v.kind_ = Kind::kDocument;
  return v;
}

MutableValue MutableValue::EmptyArray() {
  MutableValue v;
  v.kind_ = Kind::kArray;
  return v;
}

namespace {

void ParseChildren(const bson_t* container, std::vector<MutableField>* out) {
  bson_iter_t it;
  bson_iter_init(&it, container);
  while (bson_iter_next(&it)) {
    out->push_back(MutableField{bson_iter_key(&it), MutableValue::FromIter(&it)});
  }
}

}  // namespace

MutableValue MutableValue::FromIter(const bson_iter_t* it) {
  if (BSON_ITER_HOLDS_DOCUMENT(it) || BSON_ITER_HOLDS_ARRAY(it)) {
    MutableValue v;
    v.kind_ = BSON_ITER_HOLDS_ARRAY(it) ? Kind::kArray : Kind::kDocument;
    bson_t sub;
    bson::OpenSubdocument(it, &sub);
    ParseChildren(&sub, &v.fields_);
    return v;
  }
  return MutableValue(query::OwnedValue(it));
}

MutableValue MutableValue::FromValue(const bson_value_t* value) {
  if (value->value_type == BSON_TYPE_DOCUMENT || value->value_type == BSON_TYPE_ARRAY) {
    MutableValue v;
    v.kind_ = value->value_type == BSON_TYPE_ARRAY ? Kind::kArray : Kind::kDocument;
    bson_t sub;
    if (bson_init_static(&sub, value->value.v_doc.data, value->value.v_doc.data_len)) {
      ParseChildren(&sub, &v.fields_);
    }
    return v;
  }
  return MutableValue(query::OwnedValue(value));
}

MutableValue MutableValue::FromDocument(const bson_t* doc) {
  MutableValue v = EmptyDocument();
  ParseChildren(doc, &v.fields_);
  return v;
}

bson_type_t MutableValue::type() const {
  switch (kind_) {
    case Kind::kDocument: return BSON_TYPE_DOCUMENT;
    case Kind::kArray: return BSON_TYPE_ARRAY;
    default: return scalar_.type();
  }
}

MutableValue* MutableValue::Find(std::string_view name) {
  return const_cast<MutableValue*>(static_cast<const MutableValue*>(this)->Find(name));
}

const MutableValue* MutableValue::Find(std::string_view name) const {
  if (kind_ == Kind::kArray) {
    auto index = bson::ParseArrayIndex(name);
    if (!index || *index >= fields_.size()) return nullptr;
    return &fields_[*index].value;
  }
  for (const MutableField& f : fields_) {
    if (f.name == name) return &f.value;
  }
  return nullptr;
}

bool MutableValue::Remove(std::string_view name) {
  for (auto it = fields_.begin(); it != fields_.end(); ++it) {
    if (it->name == name) {
      fields_.erase(it);
      return true;
    }
  }
  return false;
}

void MutableValue::AppendTo(bson_t* out, std::string_view key) const {
  const int key_len = static_cast<int>(key.size());
  if (kind_ == Kind::kScalar) {
    bson_append_value(out, key.data(), key_len, scalar_.get());
    return;
  }
  bson_t child;
  if (kind_ == Kind::kArray) {
    bson_append_array_begin(out, key.data(), key_len, &child);
    char buf[16];
    for (size_t i = 0; i < fields_.size(); ++i) {
      const char* index_key = nullptr;
      size_t len = bson_uint32_to_string(static_cast<uint32_t>(i), &index_key, buf, sizeof(buf));
      fields_[i].value.AppendTo(&child, std::string_view(index_key, len));
    }
    bson_append_array_end(out, &child);
  } else {
    bson_append_document_begin(out, key.data(), key_len, &child);
    for (const MutableField& f : fields_) f.value.AppendTo(&child, f.name);
    bson_append_document_end(out, &child);
  }
}

bson::BsonDoc MutableValue::ToDocument() const {
  bson::BsonDoc out;
  for (const MutableField& f : fields_) f.value.AppendTo(out.mutable_get(), f.name);
  return out;
}

bool MutableValue::BinaryEquals(const MutableValue& other) const {
  if (type() != other.type()) return false;
  bson::BsonDoc a, b;
  AppendTo(a.mutable_get(), "");
  other.AppendTo(b.mutable_get(), "");
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size()) == 0;
}

std::string MutableValue::ToShellString() const {
  bson::BsonDoc wrapper;
  AppendTo(wrapper.mutable_get(), "v");
  bson_iter_t it;
  bson_iter_init_find(&it, wrapper.get(), "v");
  return bson::ToShellString(&it);
}

int CompareValues(const MutableValue& a, const MutableValue& b) {
  bson::BsonDoc da, db;
  a.AppendTo(da.mutable_get(), "");
  b.AppendTo(db.mutable_get(), "");
  bson_iter_t ia, ib;
  bson_iter_init(&ia, da.get());
  bson_iter_next(&ia);
  bson_iter_init(&ib, db.get());
  bson_iter_next(&ib);
  return bson::CompareValues(&ia, &ib);
}

std::string ElementToString(std::string_view name, const MutableValue& value) {
  std::string out = "{";
  out.append(name);
  out.append(": ");
  out.append(value.ToShellString());
  out.push_back('}');
  return out;
}

}  // namespace tigerdoc::update
