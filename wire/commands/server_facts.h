#pragma once
// Constants the server advertises to clients (hello, buildInfo). Their
// values are MongoDB's, since drivers size batches and choose wire features
// from them.

#include <cstdint>

namespace tigerdoc::wire {

inline constexpr int32_t kMaxBsonObjectSize = 16 * 1024 * 1024;   // 16777216
inline constexpr int32_t kMaxMessageSizeBytes = 48000000;
inline constexpr int32_t kMaxWriteBatchSize = 100000;
inline constexpr int32_t kLogicalSessionTimeoutMinutes = 30;
// Wire version 21 is MongoDB 7.0: the newest whose command set tigerdoc
// follows; 0 keeps old clients connecting.
inline constexpr int32_t kMinWireVersion = 0;
inline constexpr int32_t kMaxWireVersion = 21;
inline constexpr const char* kCompatibleMongoVersion = "7.0.0";
inline constexpr int32_t kCompatibleVersionArray[4] = {7, 0, 0, 0};
inline constexpr const char* kFeatureCompatibilityVersion = "7.0";
inline constexpr const char* kTigerdocVersion = "0.1.0";

}  // namespace tigerdoc::wire
