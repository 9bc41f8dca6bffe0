#pragma once
// Hand-laid-out wire messages shared by the protocol tests. Each array is
// annotated field by field; checksums were computed with an independent
// bit-at-a-time CRC-32C.

#include <cstdint>
#include <vector>

namespace tigerdoc::wire::golden {

// OP_MSG, requestID 7, flags 0, one kind-0 section {ping: 1, $db: "admin"}.
inline const std::vector<uint8_t> kOpMsgPing = {
    0x33, 0x00, 0x00, 0x00,                                      // messageLength 51
    0x07, 0x00, 0x00, 0x00,                                      // requestID 7
    0x00, 0x00, 0x00, 0x00,                                      // responseTo 0
    0xDD, 0x07, 0x00, 0x00,                                      // opCode 2013
    0x00, 0x00, 0x00, 0x00,                                      // flagBits 0
    0x00,                                                        // section kind 0
    0x1E, 0x00, 0x00, 0x00,                                      // document size 30
    0x10, 'p',  'i',  'n',  'g',  0x00, 0x01, 0x00, 0x00, 0x00,  // ping: int32 1
    0x02, '$',  'd',  'b',  0x00, 0x06, 0x00, 0x00, 0x00, 'a',  'd', 'm', 'i', 'n', 0x00,  // $db
    0x00,  // document terminator
};

// OP_MSG, requestID 8: kind 0 {insert: "c", $db: "test"} then kind 1
// "documents" holding {_id: 1} and {_id: 2}.
inline const std::vector<uint8_t> kOpMsgInsert = {
    0x61, 0x00, 0x00, 0x00,  // messageLength 97
    0x08, 0x00, 0x00, 0x00,  // requestID 8
    0x00, 0x00, 0x00, 0x00,  // responseTo 0
    0xDD, 0x07, 0x00, 0x00,  // opCode 2013
    0x00, 0x00, 0x00, 0x00,  // flagBits 0
    0x00,                    // section kind 0
    0x21, 0x00, 0x00, 0x00,  // document size 33
    0x02, 'i',  'n',  's',  'e',  'r',  't',  0x00, 0x02, 0x00,
    0x00, 0x00, 'c',  0x00,  // insert: "c"
    0x02, '$',  'd',  'b',  0x00, 0x05, 0x00, 0x00, 0x00, 't',
    'e',  's',  't',  0x00,                                      // $db: "test"
    0x00,                                                        // document terminator
    0x01,                                                        // section kind 1
    0x2A, 0x00, 0x00, 0x00,                                      // section size 42
    'd',  'o',  'c',  'u',  'm',  'e',  'n',  't',  's',  0x00,  // identifier
    0x0E, 0x00, 0x00, 0x00, 0x10, '_',  'i',  'd',  0x00, 0x01,
    0x00, 0x00, 0x00, 0x00,  // {_id: 1}
    0x0E, 0x00, 0x00, 0x00, 0x10, '_',  'i',  'd',  0x00, 0x02,
    0x00, 0x00, 0x00, 0x00,  // {_id: 2}
};

// OP_MSG, requestID 9, flags checksumPresent, {ping: 1, $db: "admin"},
// CRC-32C 0xDBF1A930 of the preceding 51 bytes.
inline const std::vector<uint8_t> kOpMsgPingChecksum = {
    0x37, 0x00, 0x00, 0x00,  // messageLength 55
    0x09, 0x00, 0x00, 0x00,  // requestID 9
    0x00, 0x00, 0x00, 0x00,  // responseTo 0
    0xDD, 0x07, 0x00, 0x00,  // opCode 2013
    0x01, 0x00, 0x00, 0x00,  // flagBits checksumPresent
    0x00,                    // section kind 0
    0x1E, 0x00, 0x00, 0x00,  // document size 30
    0x10, 'p',  'i',  'n',  'g', 0x00, 0x01, 0x00, 0x00, 0x00, 0x02, '$',  'd',  'b',  0x00, 0x06,
    0x00, 0x00, 0x00, 'a',  'd', 'm',  'i',  'n',  0x00, 0x00, 0x30, 0xA9, 0xF1, 0xDB,  // checksum
};

// OP_QUERY, requestID 3, "admin.$cmd", skip 0, return -1, {isMaster: 1}.
inline const std::vector<uint8_t> kOpQueryIsMaster = {
    0x3A, 0x00, 0x00, 0x00,                                       // messageLength 58
    0x03, 0x00, 0x00, 0x00,                                       // requestID 3
    0x00, 0x00, 0x00, 0x00,                                       // responseTo 0
    0xD4, 0x07, 0x00, 0x00,                                       // opCode 2004
    0x00, 0x00, 0x00, 0x00,                                       // flags 0
    'a',  'd',  'm',  'i',  'n', '.', '$', 'c', 'm', 'd',  0x00,  // fullCollectionName
    0x00, 0x00, 0x00, 0x00,                                       // numberToSkip 0
    0xFF, 0xFF, 0xFF, 0xFF,                                       // numberToReturn -1
    0x13, 0x00, 0x00, 0x00,                                       // document size 19
    0x10, 'i',  's',  'M',  'a', 's', 't', 'e', 'r', 0x00, 0x01, 0x00, 0x00, 0x00,  // isMaster: 1
    0x00,
};

// OP_REPLY, requestID 100, responseTo 3, one document {ok: 1.0}.
inline const std::vector<uint8_t> kOpReplyOk = {
    0x35, 0x00, 0x00, 0x00,                                                  // messageLength 53
    0x64, 0x00, 0x00, 0x00,                                                  // requestID 100
    0x03, 0x00, 0x00, 0x00,                                                  // responseTo 3
    0x01, 0x00, 0x00, 0x00,                                                  // opCode 1
    0x00, 0x00, 0x00, 0x00,                                                  // responseFlags 0
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,                          // cursorID 0
    0x00, 0x00, 0x00, 0x00,                                                  // startingFrom 0
    0x01, 0x00, 0x00, 0x00,                                                  // numberReturned 1
    0x11, 0x00, 0x00, 0x00,                                                  // document size 17
    0x01, 'o',  'k',  0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xF0, 0x3F,  // ok: 1.0
    0x00,
};

// OP_MSG reply, requestID 100, responseTo 7, flags 0, {ok: 1.0}.
inline const std::vector<uint8_t> kOpMsgReplyOk = {
    0x26, 0x00, 0x00, 0x00,                                                  // messageLength 38
    0x64, 0x00, 0x00, 0x00,                                                  // requestID 100
    0x07, 0x00, 0x00, 0x00,                                                  // responseTo 7
    0xDD, 0x07, 0x00, 0x00,                                                  // opCode 2013
    0x00, 0x00, 0x00, 0x00,                                                  // flagBits 0
    0x00,                                                                    // section kind 0
    0x11, 0x00, 0x00, 0x00,                                                  // document size 17
    0x01, 'o',  'k',  0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xF0, 0x3F,  // ok: 1.0
    0x00,
};

}  // namespace tigerdoc::wire::golden
