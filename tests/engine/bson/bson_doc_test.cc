// BsonDoc's adopting constructor takes over stack and heap bson_t alike
// (bson_steal's contract: the source is destroyed, a heap one freed).
// The constructor used to bson_init() the source after the steal, writing
// into the freed struct of a heap bson_t. libbson is not instrumented, so
// AddressSanitizer does not see that write; FreedMemoryWatch does: libbson's
// frees go to a quarantine filled with a pattern that must stay intact.

#include "engine/bson/bson_doc.h"

#include <gtest/gtest.h>
#include <malloc.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace tigerdoc::bson {
namespace {

constexpr unsigned char kFreedByte = 0xDB;

// While alive, every block libbson frees is poisoned and kept; Intact()
// tells whether any of them was written after its free.
class FreedMemoryWatch {
 public:
  FreedMemoryWatch() {
    quarantine().clear();
    bson_mem_vtable_t vtable = {};
    vtable.malloc = [](size_t n) { return std::malloc(n); };
    vtable.calloc = [](size_t m, size_t n) { return std::calloc(m, n); };
    vtable.realloc = [](void* p, size_t n) { return std::realloc(p, n); };
    vtable.aligned_alloc = [](size_t a, size_t n) { return std::aligned_alloc(a, (n + a - 1) / a * a); };
    vtable.free = [](void* p) {
      if (p == nullptr) return;
      const size_t size = malloc_usable_size(p);
      std::memset(p, kFreedByte, size);
      quarantine().push_back({static_cast<unsigned char*>(p), size});
    };
    bson_mem_set_vtable(&vtable);
  }
  ~FreedMemoryWatch() {
    bson_mem_restore_vtable();
    for (auto& block : quarantine()) std::free(block.data);
    quarantine().clear();
  }
  size_t freed_blocks() const { return quarantine().size(); }
  bool Intact() const {
    for (const auto& block : quarantine()) {
      for (size_t i = 0; i < block.size; ++i) {
        if (block.data[i] != kFreedByte) return false;
      }
    }
    return true;
  }

 private:
  struct Block {
    unsigned char* data;
    size_t size;
  };
  static std::vector<Block>& quarantine() {
    static std::vector<Block> blocks;
    return blocks;
  }
};

// Large enough that libbson keeps the bytes in a heap buffer, not inline.
std::string BigJson() { return R"({"a": ")" + std::string(500, 'x') + R"(", "b": 2})"; }

TEST(BsonDocAdopt, HeapDocumentFromJson) {
  bson_error_t error;
  bson_t* heap = bson_new_from_json(reinterpret_cast<const uint8_t*>(R"({"a": 1})"), -1, &error);
  ASSERT_NE(heap, nullptr) << error.message;
  std::string json;
  {
    FreedMemoryWatch watch;
    BsonDoc doc(heap);  // frees `heap`; nothing may touch it afterwards
    EXPECT_EQ(watch.freed_blocks(), 1u);  // the bson_t struct itself
    EXPECT_TRUE(watch.Intact()) << "the adopted bson_t was written after it was freed";
    json = doc.ToJson();
  }
  EXPECT_EQ(json, BsonDoc::FromJson(R"({"a": 1})").ToJson());
}

TEST(BsonDocAdopt, HeapDocumentWithHeapBuffer) {
  const std::string json = BigJson();
  bson_error_t error;
  bson_t* heap = bson_new_from_json(reinterpret_cast<const uint8_t*>(json.data()),
                                    static_cast<ssize_t>(json.size()), &error);
  ASSERT_NE(heap, nullptr) << error.message;
  FreedMemoryWatch watch;
  BsonDoc doc(heap);
  EXPECT_TRUE(watch.Intact()) << "the adopted bson_t was written after it was freed";
  BsonDoc moved = std::move(doc);
  EXPECT_EQ(moved.ToJson(), BsonDoc::FromJson(json).ToJson());
  EXPECT_TRUE(doc.empty());
}

TEST(BsonDocAdopt, StackDocumentInlineAndHeapBuffer) {
  for (const std::string& json : {std::string(R"({"a": 1})"), BigJson()}) {
    bson_t stack;
    bson_error_t error;
    ASSERT_TRUE(bson_init_from_json(&stack, json.data(), static_cast<ssize_t>(json.size()), &error))
        << error.message;
    BsonDoc doc(&stack);  // `stack` is destroyed: no bson_destroy here
    EXPECT_EQ(doc.ToJson(), BsonDoc::FromJson(json).ToJson());
  }
}

TEST(BsonDocAdopt, NewEmptyDocumentGrownByAppends) {
  bson_t* heap = bson_new();
  for (int i = 0; i < 50; ++i) {
    char key[16];
    std::snprintf(key, sizeof key, "k%d", i);
    BSON_APPEND_INT32(heap, key, i);
  }
  FreedMemoryWatch watch;
  BsonDoc doc(heap);
  EXPECT_TRUE(watch.Intact());
  EXPECT_EQ(bson_count_keys(doc.get()), 50u);
}

// Moves of empty documents take a shortcut (bson_doc.cc): the target is a
// fresh empty document and the source keeps its (empty) bytes. Both must
// stay ordinary documents: appendable, movable again, destroyed once.
TEST(BsonDocMove, EmptyDocumentsMoveAndStayUsable) {
  BsonDoc empty;
  BsonDoc moved(std::move(empty));
  EXPECT_TRUE(moved.empty());
  EXPECT_TRUE(empty.empty());  // NOLINT(bugprone-use-after-move): the moved-from state is part of the contract
  BSON_APPEND_INT32(empty.mutable_get(), "a", 1);
  BSON_APPEND_INT32(moved.mutable_get(), "b", 2);
  EXPECT_EQ(empty.ToJson(), BsonDoc::FromJson(R"({"a": 1})").ToJson());
  EXPECT_EQ(moved.ToJson(), BsonDoc::FromJson(R"({"b": 2})").ToJson());

  // An empty document whose buffer is on the heap (grown, then emptied by
  // bson_reinit) moves like an inline one.
  BsonDoc grown = BsonDoc::FromJson(BigJson());
  bson_reinit(grown.mutable_get());
  BsonDoc target = BsonDoc::FromJson(R"({"old": true})");
  target = std::move(grown);
  EXPECT_TRUE(target.empty());
  EXPECT_TRUE(grown.empty());  // NOLINT(bugprone-use-after-move)
  BSON_APPEND_UTF8(grown.mutable_get(), "c", "again");
  EXPECT_EQ(grown.ToJson(), BsonDoc::FromJson(R"({"c": "again"})").ToJson());

  // A non-empty document still moves its bytes and empties the source.
  BsonDoc big = BsonDoc::FromJson(BigJson());
  BsonDoc taken = BsonDoc::FromJson(R"({"x": 1})");
  taken = std::move(big);
  EXPECT_EQ(taken.ToJson(), BsonDoc::FromJson(BigJson()).ToJson());
  EXPECT_TRUE(big.empty());  // NOLINT(bugprone-use-after-move)
  EXPECT_TRUE(BsonDoc::CopyOf(BsonDoc().get()).empty());
}

// BsonDoc's moves and CopyOf rely on the flag values libbson gives a
// document that bson_init made (inline | static) and one that grew onto
// the heap or was copied there (static): libbson's ABI, checked here.
TEST(BsonDocMove, LibbsonFlagsAreTheOnesTheMovesAssume) {
  const BsonDoc fresh;
  EXPECT_EQ(fresh.get()->flags, 3u);
  EXPECT_EQ(BsonDoc::FromJson(R"({"a": 1})").get()->flags, 3u);
  const BsonDoc grown = BsonDoc::FromJson(BigJson());
  EXPECT_EQ(grown.get()->flags, 2u);
  EXPECT_EQ(BsonDoc::CopyOf(grown.get()).get()->flags, 2u);
  BsonDoc appended;
  const std::string big(200, 'x');
  BSON_APPEND_UTF8(appended.mutable_get(), "x", big.c_str());
  EXPECT_EQ(appended.get()->flags, 2u);
}

// A document of `len` bytes: {"s": "<x...>"} (len >= 13).
std::string DocOfLength(size_t len) {
  const size_t chars = len - 13;  // 4 size, 1 type, "s\0", 4 length, NUL, terminator
  return R"({"s": ")" + std::string(chars, 'x') + R"("})";
}

// CopyOf keeps a document of up to 120 bytes in the inline buffer and
// moves copy that buffer as a block (issue #18): below, at and above the
// inline room, the bytes survive copies, moves both ways and appends that
// grow a copy onto the heap, and nothing freed is written afterwards.
TEST(BsonDocMove, InlineAndHeapCopiesMoveAndGrow) {
  FreedMemoryWatch watch;
  for (size_t len : {13u, 119u, 120u, 121u, 300u}) {
    SCOPED_TRACE(len);
    const BsonDoc original = BsonDoc::FromJson(DocOfLength(len));
    ASSERT_EQ(original.get()->len, len);
    BsonDoc copy = BsonDoc::CopyOf(bson_get_data(original.get()), len);
    EXPECT_TRUE(bson_equal(copy.get(), original.get()));

    BsonDoc moved(std::move(copy));
    EXPECT_TRUE(bson_equal(moved.get(), original.get()));
    EXPECT_TRUE(copy.empty());  // NOLINT(bugprone-use-after-move)
    BsonDoc assigned = BsonDoc::FromJson(R"({"old": 1})");
    assigned = std::move(moved);
    EXPECT_TRUE(bson_equal(assigned.get(), original.get()));
    EXPECT_TRUE(moved.empty());  // NOLINT(bugprone-use-after-move)

    // Both the moved-from and the moved-to document keep working, grown
    // past the inline room.
    const std::string big(200, 'y');
    BSON_APPEND_UTF8(assigned.mutable_get(), "t", big.c_str());
    BSON_APPEND_UTF8(moved.mutable_get(), "t", big.c_str());
    bson_iter_t it;
    ASSERT_TRUE(bson_iter_init_find(&it, assigned.get(), "s"));
    EXPECT_EQ(std::string(bson_iter_utf8(&it, nullptr)), std::string(len - 13, 'x'));
    ASSERT_TRUE(bson_iter_init_find(&it, assigned.get(), "t"));
    EXPECT_EQ(std::string(bson_iter_utf8(&it, nullptr)), big);
    EXPECT_EQ(moved.ToJson(), BsonDoc::FromJson(R"({"t": ")" + big + R"("})").ToJson());
    BsonDoc back(std::move(assigned));  // a heap document moves too
    EXPECT_TRUE(bson_validate(back.get(), BSON_VALIDATE_NONE, nullptr));
    EXPECT_TRUE(assigned.empty());  // NOLINT(bugprone-use-after-move)
  }
  EXPECT_TRUE(watch.Intact());
}

}  // namespace
}  // namespace tigerdoc::bson
