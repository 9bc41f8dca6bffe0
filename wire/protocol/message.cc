#include "wire/protocol/message.h"

#include <string_view>

#include "engine/bson/raw_fields.h"

#include "wire/protocol/op_compressed.h"
#include "wire/protocol/op_msg_probe.h"
#include "wire/protocol/op_query.h"

namespace tigerdoc::wire {
namespace {

constexpr std::string_view kCommandCollection = "$cmd";

// MongoDB's names for BSON types, as its IDL type-mismatch messages print them.
const char* BsonTypeName(bson_type_t type) {
  switch (type) {
    case BSON_TYPE_DOUBLE:
      return "double";
    case BSON_TYPE_UTF8:
      return "string";
    case BSON_TYPE_DOCUMENT:
      return "object";
    case BSON_TYPE_ARRAY:
      return "array";
    case BSON_TYPE_BINARY:
      return "binData";
    case BSON_TYPE_UNDEFINED:
      return "undefined";
    case BSON_TYPE_OID:
      return "objectId";
    case BSON_TYPE_BOOL:
      return "bool";
    case BSON_TYPE_DATE_TIME:
      return "date";
    case BSON_TYPE_NULL:
      return "null";
    case BSON_TYPE_REGEX:
      return "regex";
    case BSON_TYPE_DBPOINTER:
      return "dbPointer";
    case BSON_TYPE_CODE:
      return "javascript";
    case BSON_TYPE_SYMBOL:
      return "symbol";
    case BSON_TYPE_CODEWSCOPE:
      return "javascriptWithScope";
    case BSON_TYPE_INT32:
      return "int";
    case BSON_TYPE_TIMESTAMP:
      return "timestamp";
    case BSON_TYPE_INT64:
      return "long";
    case BSON_TYPE_DECIMAL128:
      return "decimal";
    case BSON_TYPE_MINKEY:
      return "minKey";
    case BSON_TYPE_MAXKEY:
      return "maxKey";
    default:
      return "unknown";
  }
}

Status EmptyDb() { return Status(ErrorCode::kInvalidNamespace, "Invalid database name: ''"); }

// Fills *out in place: the body moved through a returned CommandRequest
// three more times (issue #18, bench/README.md "CPU per find, round 5").
// `db_at`: where the check of the body saw its first top-level $db (0:
// nowhere), which is where bson_iter_find would stop, the body being valid.
Status FromOpMsg(OpMsg&& msg, uint32_t db_at, CommandRequest* out) {
  bson_iter_t iter;
  const bson_t* body = msg.body.get();
  if (db_at == 0 || !bson_iter_init_from_data_at_offset(&iter, bson_get_data(body), body->len,
                                                        db_at, sizeof "$db" - 1)) {
    return Status(static_cast<ErrorCode>(40571), "OP_MSG requests require a $db argument");
  }
  if (!BSON_ITER_HOLDS_UTF8(&iter)) {
    return Status(ErrorCode::kTypeMismatch, std::string("BSON field '$db' is the wrong type '") +
                                                BsonTypeName(bson_iter_type(&iter)) +
                                                "', expected type 'string'");
  }
  uint32_t db_len = 0;
  const char* db = bson_iter_utf8(&iter, &db_len);
  out->db.assign(db, db_len);
  if (out->db.empty()) return EmptyDb();
  out->body = std::move(msg.body);
  out->sequences = std::move(msg.sequences);
  out->more_to_come = (msg.flag_bits & kMoreToCome) != 0;
  out->exhaust_allowed = (msg.flag_bits & kExhaustAllowed) != 0;
  return Status::OK();
}

// Legacy drivers put read preference beside the command by nesting the
// command under $query (or query) as the first field.
StatusWith<bson::BsonDoc> UnwrapLegacyCommand(bson::BsonDoc query) {
  bson_iter_t iter;
  if (!bson_iter_init(&iter, query.get()) || !bson_iter_next(&iter)) return query;
  const std::string_view first = bson_iter_key(&iter);
  if (first != "$query" && first != "query") return query;
  if (!BSON_ITER_HOLDS_DOCUMENT(&iter)) {
    return Status(ErrorCode::kTypeMismatch, "Commands in $query wrappers must be objects");
  }
  bson_iter_t probe;
  if (bson_iter_init_find(&probe, query.get(), "$maxTimeMS")) {
    return Status(ErrorCode::kInvalidOptions,
                  "cannot use $maxTimeMS query option with commands; use maxTimeMS command "
                  "option instead");
  }
  uint32_t len = 0;
  const uint8_t* data = nullptr;
  bson_iter_document(&iter, &len, &data);
  // The outer document passed bson_validate, so the nested one is valid.
  bson::BsonDoc inner = bson::BsonDoc::CopyOf(data, len);
  bson_iter_t read_pref;
  bson_iter_t existing;
  if (bson_iter_init_find(&read_pref, query.get(), "$readPreference") &&
      !bson_iter_init_find(&existing, inner.get(), "$readPreference")) {
    bson_append_iter(inner.mutable_get(), "$readPreference", -1, &read_pref);
  }
  return inner;
}

StatusWith<CommandRequest> FromOpQuery(OpQuery query) {
  const std::string& ns = query.full_collection_name;
  const size_t dot = ns.find('.');
  if (dot == std::string::npos || std::string_view(ns).substr(dot + 1) != kCommandCollection) {
    // MongoDB 5.1 removed legacy OP_QUERY reads; only commands remain.
    return Status(static_cast<ErrorCode>(5739101),
                  "OP_QUERY is no longer supported. The client driver may require an upgrade. "
                  "For more details see https://dochub.mongodb.org/core/legacy-opcode-removal");
  }
  CommandRequest out;
  out.db = ns.substr(0, dot);
  if (out.db.empty()) return EmptyDb();
  ASSIGN_OR_RETURN(out.body, UnwrapLegacyCommand(std::move(query.query)));
  out.legacy_op_query = true;
  return out;
}

}  // namespace

StatusWith<ParsedRequest> ParseRequest(const uint8_t* data, size_t len) {
  ASSIGN_OR_RETURN(const MsgHeader header, ParseHeader(data, len));
  if (static_cast<size_t>(header.message_length) != len) {
    return Status(ErrorCode::kProtocolError, "message length " +
                                                 std::to_string(header.message_length) +
                                                 " in the header does not match the " +
                                                 std::to_string(len) + " bytes received");
  }
  ParsedRequest out;
  out.header = header;
  switch (header.op_code) {
    case kOpMsg: {
      TopLevelProbe db{"$db"};
      ASSIGN_OR_RETURN(OpMsg msg, ParseOpMsg(data, len, &db));
      RETURN_IF_ERROR(FromOpMsg(std::move(msg), db.at, &out.request));
      return out;
    }
    case kOpQuery: {
      ASSIGN_OR_RETURN(OpQuery query, ParseOpQuery(data, len));
      ASSIGN_OR_RETURN(out.request, FromOpQuery(std::move(query)));
      return out;
    }
    case kOpCompressed: {
      Compressor compressor = Compressor::kNoop;
      ASSIGN_OR_RETURN(std::vector<uint8_t> decompressed, DecompressMessage(data, len, &compressor));
      // The request's document sequences view these bytes: it keeps them.
      auto inner = std::make_shared<const std::vector<uint8_t>>(std::move(decompressed));
      // The wrapped message is OP_MSG or OP_QUERY (DecompressMessage checks),
      // so this recursion is one level deep.
      ASSIGN_OR_RETURN(out, ParseRequest(inner->data(), inner->size()));
      out.request.decompressed = std::move(inner);
      out.compressor = compressor;
      return out;
    }
    default:
      return Status(ErrorCode::kProtocolError,
                    "unsupported wire protocol opcode " + std::to_string(header.op_code));
  }
}

bool IsConnectionFatal(const Status& status) {
  switch (status.code()) {
    case ErrorCode::kProtocolError:
    case ErrorCode::kIllegalOpMsgFlag:
    case ErrorCode::kChecksumMismatch:
      return true;
    default:
      return false;
  }
}

std::string SerializeReply(const MsgHeader& request_header, int32_t reply_request_id,
                           const bson::BsonDoc& body) {
  if (request_header.op_code == kOpQuery) {
    return SerializeOpReply(reply_request_id, request_header.request_id, body);
  }
  return SerializeOpMsgReply(reply_request_id, request_header.request_id, body);
}

}  // namespace tigerdoc::wire
