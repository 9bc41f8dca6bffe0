#pragma once
// Projection: a find() projection of inclusions or exclusions on dotted
// paths, with MongoDB's rules (4.4+ projection semantics):
//  * {a: 1, "b.c": true}  inclusion: only those paths (plus _id) are kept;
//    {a: 0, "b.c": false} exclusion: everything but those paths is kept.
//    Any number or bool works: non-zero/true includes, 0/false excludes.
//  * _id is included unless the spec says {_id: 0}; _id's setting may be
//    mixed with either kind. Mixing the others fails: 31254 "Cannot do
//    exclusion on field x in inclusion projection", 31253 the converse.
//  * Nested documents in the spec are paths: {a: {b: 1}} is {"a.b": 1}.
//  * Paths through arrays apply to every element: inclusion keeps the
//    projected documents (and arrays, recursively) of an array and drops its
//    scalars; exclusion removes the field from each document element.
//  * Fields keep the document's order.
// Not yet: $slice, $elemMatch, $meta, positional "a.$" and computed fields;
// they answer NotImplemented (238).
//
// Ownership: owns its parsed tree; Apply() returns a new document.
// Thread-safety: immutable after Parse(); Apply() may run concurrently.

#include <bson/bson.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "engine/base/status.h"
#include "engine/bson/bson_doc.h"

namespace tigerdoc::query {

class Projection {
 public:
  static StatusWith<Projection> Parse(const bson_t* spec);

  bson::BsonDoc Apply(const bson_t* doc) const;

  bool is_inclusion() const { return inclusion_; }

  // Tree of projected paths: {"a.b": 1, "a.c": 1, d: 1}
  //
  //   root ─┬─ a ─┬─ b (leaf)
  //         │     └─ c (leaf)
  //         └─ d (leaf)
  struct Node {
    bool leaf = false;
    std::vector<std::pair<std::string, std::unique_ptr<Node>>> children;
    const Node* Find(std::string_view name) const;
  };

 private:
  Projection(bool inclusion, std::unique_ptr<Node> root)
      : inclusion_(inclusion), root_(std::move(root)) {}

  bool inclusion_;
  std::unique_ptr<Node> root_;
};

}  // namespace tigerdoc::query
