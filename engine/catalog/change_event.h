#pragma once
// The change log's row documents (format: engine/README.md "Change log"),
// built where changes happen: the collection writer (documents) and the
// catalog (namespaces and indexes). engine/changes/ turns them into
// MongoDB's change events.
//
//   { op: "insert" | "update" | "replace" | "delete" | "drop" | "rename" |
//         "dropDatabase" | "create" | "createIndexes" | "dropIndexes",
//     db: <string>, [coll: <string>],        (no coll for dropDatabase)
//     [key: <documentKey>],                  document events
//     [doc: <document>],                     insert, replace; update when
//                                            pre- and post-images are on
//     [pre: <document>],                     update, replace, delete when on
//     [upd: {updatedFields, removedFields, truncatedArrays}],   update
//     [to: {db, coll}],                      rename
//     [desc: <operationDescription>] }       rename, create, createIndexes,
//                                            dropIndexes
// The change log adds `wall` (a date) first when it writes the row.

#include <bson/bson.h>

#include <string_view>

#include "engine/bson/bson_doc.h"
#include "engine/catalog/catalog.h"

namespace tigerdoc::catalog {

// The collection option that stores pre- and post-images
// (changeStreamPreAndPostImages: {enabled: true}), kept as the config of
// the pattern of that name (engine/changes/pre_and_post_images.h).
inline constexpr const char* kPreAndPostImagesOption = "changeStreamPreAndPostImages";
bool PreAndPostImagesEnabled(const CollectionEntry& coll);

// MongoDB's documentKey: the shard key field (when it is not _id), then _id.
bson::BsonDoc DocumentKeyOf(const CollectionMetadata& md, const bson_t* doc);

// updateDescription of the change from `before` to `after`: fields set or
// changed (dotted paths for changes inside sub-documents and arrays),
// fields removed, arrays made shorter ({field, newSize}).
bson::BsonDoc UpdateDescriptionOf(const bson_t* before, const bson_t* after);

bson::BsonDoc InsertEvent(const CollectionEntry& coll, const bson_t* doc);
// `replace`: a replacement (the whole document given) rather than an update.
bson::BsonDoc UpdateEvent(const CollectionEntry& coll, const bson_t* before, const bson_t* after,
                          bool replace);
bson::BsonDoc DeleteEvent(const CollectionEntry& coll, const bson_t* before);
// drop, create, createIndexes, dropIndexes, dropDatabase (coll empty);
// `desc` (may be null) becomes operationDescription.
bson::BsonDoc NamespaceEvent(std::string_view op, std::string_view db, std::string_view coll,
                             const bson_t* desc = nullptr);
bson::BsonDoc RenameEvent(std::string_view db, std::string_view coll, std::string_view to_db,
                          std::string_view to_coll, bool drop_target);

// Records `event` in the running transaction of `session` when the catalog
// has a change recorder; OK (nothing recorded) otherwise.
Status RecordChange(const Catalog& catalog, storage::Session& session, bson::BsonDoc event);

}  // namespace tigerdoc::catalog
