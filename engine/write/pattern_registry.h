#pragma once
// Pattern and PatternRegistry: the patterns a server has, and the
// collection options each one owns.
//
// wire/main.cc fills one registry (an alphabetical table, no static
// self-registration) and hands it to Engine::Open, which attaches every
// configured collection's hooks before serving. At create / collMod the
// registry parses the options that belong to patterns into canonical
// configs, stored in the catalog row as `patterns: {<name>: <config>}`
// (engine/README.md) and shown by listCollections under `options`.
//
// Errors a pattern's Configure returns (MongoDB's codes, naming the field as
// "BSON field '<command>.<option>[.<sub>]'"): 2 BadValue (out of range),
// 9 FailedToParse (malformed value), 14 TypeMismatch (wrong BSON type),
// 40415 (an unknown field inside a sub-document option).
//
// Thread-safety: a registry is immutable once the engine has it; Pattern
// methods are const and thread-safe.

#include <bson/bson.h>

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/base/status.h"
#include "engine/bson/bson_doc.h"
#include "engine/catalog/catalog.h"
#include "engine/storage/storage_engine.h"
#include "engine/write/hooks.h"

namespace tigerdoc::engine {

class Engine;
class Operation;

// Why a hook is being made.
enum class AttachReason {
  kOpen,    // the server starts with the collection configured
  kCreate,  // a new, empty collection
  kModify,  // collMod changed the config (the collection may hold data)
};

class Pattern {
 public:
  virtual ~Pattern() = default;

  // The key of its config in the catalog's `patterns` document.
  virtual std::string_view name() const = 0;
  // The collection options it owns (top-level fields of create / collMod).
  virtual std::vector<std::string> option_names() const = 0;

  // Parses `given` ({<option>: value} for this pattern's options present in
  // the command, in command order) on top of `previous` (the current config,
  // empty at create) into the new canonical config; an empty document means
  // the pattern is no longer configured. `command` names the command in
  // error messages ("create", "collMod").
  virtual StatusWith<bson::BsonDoc> Configure(std::string_view command, const bson_t* given,
                                              const bson_t* previous) const = 0;

  // Makes the hook of `coll` for `config`, preparing what it keeps beside
  // the documents (tables, counters built from existing data).
  // REQUIRES: no write runs on `coll` (its write mutex held exclusively, or
  // the server not yet serving).
  virtual StatusWith<std::shared_ptr<PatternHook>> Attach(storage::Session& session,
                                                          const catalog::CollectionEntry& coll,
                                                          const bson_t* config,
                                                          AttachReason reason) const = 0;
  // The pattern was removed from `coll` by collMod: forget what it kept (it
  // is rebuilt if the pattern comes back). Same REQUIRES as Attach.
  virtual Status Detach(storage::Session& /*session*/,
                        const catalog::CollectionEntry& /*coll*/) const {
    return Status::OK();
  }

  // A hook this pattern runs on the writes of `coll` although `coll` has no
  // config of it: a config on another collection names it (the parent a
  // subset writes into). Asked whenever a writer of `coll` is made, so it
  // must be cheap; nullptr when none. Only BeforeStore of a guard runs.
  virtual std::shared_ptr<PatternHook> GuardFor(const catalog::CollectionEntry& /*coll*/) const {
    return nullptr;
  }
  // Indexes (createIndexes specs: {key, name}) the pattern needs on the
  // collection `config` configures; the engine builds the missing ones
  // (no index with the same key pattern) after create and collMod.
  virtual std::vector<bson::BsonDoc> IndexesFor(const bson_t* /*config*/) const { return {}; }
  // The pattern keeps other collections in step with each document write
  // (the subset's parent, the outlier's overflow). $out, which replaces a
  // collection at once without per-document writes, is refused into a
  // collection configured with such a pattern ($merge works).
  virtual bool KeepsOtherCollectionsInStep() const { return false; }
  // Commands the pattern answers ({<command>: <collection>, ...}), listed
  // by name in the server's command table (wire/commands/command_registry.cc).
  // A long one reports progress through `operation` (currentOp) and stops
  // when its CheckInterrupt() fails (killOp, maxTimeMS); it may be null.
  virtual std::vector<std::string> command_names() const { return {}; }
  virtual StatusWith<bson::BsonDoc> RunCommand(Engine& /*engine*/, std::string_view command,
                                               std::string_view /*db*/, const bson_t* /*body*/,
                                               Operation* /*operation*/) const {
    return Status(ErrorCode::kCommandNotFound,
                  "no such command: '" + std::string(command) + "'");
  }

  // Views the pattern keeps beside a collection named `coll` configured
  // with `config` (a name and a pipeline on the collection): the engine
  // creates them after create, and creates or redefines them after collMod.
  // A name taken by a collection or another view refuses the command.
  struct CompanionView {
    std::string name;
    bson::BsonDoc pipeline;  // an array document
  };
  virtual std::vector<CompanionView> ViewsOf(std::string_view /*coll*/,
                                             const bson_t* /*config*/) const {
    return {};
  }

  // The catalog of the engine that uses this pattern, bound by Engine::Open
  // before any Attach, for hooks that read other collections outside writes
  // (collStats, validate, creating a view of their collection).
  void BindCatalog(catalog::Catalog* catalog) { catalog_ = catalog; }
  catalog::Catalog* catalog() const { return catalog_; }

 private:
  catalog::Catalog* catalog_ = nullptr;
};

class PatternRegistry {
 public:
  // REQUIRES: names and option names unique across patterns (a programming
  // error otherwise).
  void Add(std::unique_ptr<Pattern> pattern);

  const Pattern* ByName(std::string_view name) const;
  const Pattern* ForOption(std::string_view option) const;
  // The pattern answering `command` (Pattern::command_names), or nullptr.
  const Pattern* ForCommand(std::string_view command) const;
  // The guards patterns put on `coll` (Pattern::GuardFor).
  std::vector<std::shared_ptr<PatternHook>> GuardsFor(const catalog::CollectionEntry& coll) const;
  bool IsOption(std::string_view option) const { return ForOption(option) != nullptr; }
  const std::vector<std::unique_ptr<Pattern>>& patterns() const { return patterns_; }

  // The new `patterns` document after `command` with the fields `fields`
  // (the command's fields; those no pattern owns are skipped), on top of
  // `previous` (empty at create). Each pattern present in `fields` is
  // reconfigured; the others keep their config.
  StatusWith<bson::BsonDoc> Configure(std::string_view command, const bson_t* fields,
                                      const bson_t* previous) const;

  // Calls fn(pattern, config) for each entry of a `patterns` document
  // ({<pattern>: <config>}) whose pattern this registry has, in document
  // order; stops at the first non-OK status.
  Status ForEachConfigured(const bson_t* configs,
                           const std::function<Status(const Pattern&, const bson_t*)>& fn) const;

 private:
  std::vector<std::unique_ptr<Pattern>> patterns_;
};

}  // namespace tigerdoc::engine
