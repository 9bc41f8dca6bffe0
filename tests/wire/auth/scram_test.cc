// SCRAM against the published test vectors: RFC 5802 section 5 (SHA-1 over
// the plain password), RFC 7677 section 3 (SHA-256), and MongoDB's SHA-1
// over its "user:mongo:password" digest (the drivers' auth spec vector).

#include "wire/auth/scram.h"

#include <gtest/gtest.h>

#include "wire/auth/saslprep.h"

namespace tigerdoc::wire::auth {
namespace {

struct Vector {
  ScramMechanism mechanism;
  std::string prepared_password;
  std::string salt_b64;
  int iterations;
  std::string client_first;
  std::string server_nonce;  // the server's half
  std::string server_first;
  std::string client_final;
  std::string server_final;
};

ScramServerConversation Start(const Vector& v) {
  auto client_first = ParseClientFirst(v.client_first);
  EXPECT_TRUE(client_first.ok()) << client_first.status().ToString();
  auto salt = Base64Decode(v.salt_b64);
  EXPECT_TRUE(salt.ok());
  ScramCredential credential =
      DeriveCredential(v.mechanism, v.prepared_password, salt.value(), v.iterations);
  return ScramServerConversation(v.mechanism, client_first.value(), credential, v.server_nonce);
}

void ExpectConversation(const Vector& v) {
  ScramServerConversation conversation = Start(v);
  EXPECT_EQ(conversation.user(), "user");
  EXPECT_EQ(conversation.ServerFirst(), v.server_first);
  auto server_final = conversation.Finish(v.client_final);
  ASSERT_TRUE(server_final.ok()) << server_final.status().ToString();
  EXPECT_EQ(server_final.value(), v.server_final);
}

const Vector kRfc5802 = {ScramMechanism::kSha1, "pencil", "QSXCR+Q6sek8bf92", 4096,
                         "n,,n=user,r=fyko+d2lbbFgONRv9qkxdawL", "3rfcNHYJY1ZVvWVs7j",
                         "r=fyko+d2lbbFgONRv9qkxdawL3rfcNHYJY1ZVvWVs7j,s=QSXCR+Q6sek8bf92,i=4096",
                         "c=biws,r=fyko+d2lbbFgONRv9qkxdawL3rfcNHYJY1ZVvWVs7j,p=v0X8v3Bz2T0CJGbJQyF0X+HI4Ts=",
                         "v=rmF9pqV8S7suAoZWja4dJRkFsKQ="};

const Vector kRfc7677 = {
    ScramMechanism::kSha256, "pencil", "W22ZaJ0SNY7soEsUEjb6gQ==", 4096,
    "n,,n=user,r=rOprNGfwEbeRWgbNEkqO", "%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0",
    "r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096",
    "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=",
    "v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4="};

TEST(ScramTest, Rfc5802Sha1Vector) { ExpectConversation(kRfc5802); }

TEST(ScramTest, Rfc7677Sha256Vector) { ExpectConversation(kRfc7677); }

TEST(ScramTest, MongoSha1HashesTheUserMongoPasswordDigest) {
  auto prepared = PreparePassword(ScramMechanism::kSha1, "user", "pencil");
  ASSERT_TRUE(prepared.ok());
  // hex(MD5("user:mongo:pencil"))
  EXPECT_EQ(prepared.value(), "1c33006ec1ffd90f9cadcbcc0e118200");
  Vector v = {ScramMechanism::kSha1, prepared.value(), "rQ9ZY3MntBeuP3E1TDVC4w==", 10000,
              "n,,n=user,r=fyko+d2lbbFgONRv9qkxdawL", "Ho+Vgk7qvUOKUwuWLIWg4l/9SraGMHEE",
              "r=fyko+d2lbbFgONRv9qkxdawLHo+Vgk7qvUOKUwuWLIWg4l/9SraGMHEE,s=rQ9ZY3MntBeuP3E1TDVC4w==,i=10000",
              "c=biws,r=fyko+d2lbbFgONRv9qkxdawLHo+Vgk7qvUOKUwuWLIWg4l/9SraGMHEE,p=MC2T8BvbmWRckDw8oWl5IVghwCY=",
              "v=UMWeI25JD1yNYZRMpZ4VHvhZ9e0="};
  ExpectConversation(v);
}

TEST(ScramTest, WrongProofIsAuthenticationFailed) {
  ScramServerConversation conversation = Start(kRfc7677);
  std::string tampered = kRfc7677.client_final;
  tampered[tampered.size() - 3] = tampered[tampered.size() - 3] == 'A' ? 'B' : 'A';
  auto result = conversation.Finish(tampered);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), ErrorCode::kAuthenticationFailed);
  EXPECT_EQ(result.status().reason(), "Authentication failed.");
}

TEST(ScramTest, WrongNonceIsAuthenticationFailed) {
  ScramServerConversation conversation = Start(kRfc7677);
  auto result = conversation.Finish(
      "c=biws,r=rOprNGfwEbeRWgbNEkqOXXX,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=");
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), ErrorCode::kAuthenticationFailed);
}

TEST(ScramTest, ProofOfTheWrongLengthIsAuthenticationFailed) {
  ScramServerConversation conversation = Start(kRfc7677);
  auto result = conversation.Finish(
      "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=AAAA");
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), ErrorCode::kAuthenticationFailed);
}

TEST(ScramTest, MalformedMessagesAreBadValue) {
  for (const char* bad : {"", "n,,", "y,,n=user,r=abc", "p=tls-unique,,n=user,r=x",
                          "n,a=admin,n=user,r=x", "n,,r=abc,n=user", "n,,n=,r=abc",
                          "n,,n=us=er,r=abc", "n,,n=user"}) {
    auto parsed = ParseClientFirst(bad);
    EXPECT_FALSE(parsed.ok()) << bad;
    if (!parsed.ok()) EXPECT_EQ(parsed.status().code(), ErrorCode::kBadValue) << bad;
  }
  ScramServerConversation conversation = Start(kRfc7677);
  for (const char* bad : {"", "c=biws", "c=biws,p=abc", "c=eSws,r=x,p=AAAA",
                          "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=!!!!"}) {
    auto result = conversation.Finish(bad);
    EXPECT_FALSE(result.ok()) << bad;
    if (!result.ok()) EXPECT_EQ(result.status().code(), ErrorCode::kBadValue) << bad;
  }
}

TEST(ScramTest, SaslNameEscapesAreDecoded) {
  auto parsed = ParseClientFirst("n,,n=a=2Cb=3Dc,r=xyz");
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(parsed.value().user, "a,b=c");
  EXPECT_EQ(parsed.value().bare, "n=a=2Cb=3Dc,r=xyz");
}

TEST(ScramTest, NewCredentialsUseMongoDefaultsAndFreshSalts) {
  auto a = MakeCredential(ScramMechanism::kSha256, "u", "secret");
  auto b = MakeCredential(ScramMechanism::kSha256, "u", "secret");
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a.value().iteration_count, 15000);
  EXPECT_EQ(a.value().salt.size(), 28u);
  EXPECT_EQ(a.value().stored_key.size(), 32u);
  EXPECT_NE(a.value().salt, b.value().salt);
  EXPECT_NE(a.value().stored_key, b.value().stored_key);
  auto sha1 = MakeCredential(ScramMechanism::kSha1, "u", "secret");
  ASSERT_TRUE(sha1.ok());
  EXPECT_EQ(sha1.value().iteration_count, 10000);
  EXPECT_EQ(sha1.value().salt.size(), 16u);
  EXPECT_FALSE(MakeCredential(ScramMechanism::kSha256, "u", "").ok());
}

TEST(ScramTest, Base64RoundTripsEveryLength) {
  std::string bytes;
  for (int n = 0; n < 70; ++n) {
    auto decoded = Base64Decode(Base64Encode(bytes));
    ASSERT_TRUE(decoded.ok()) << n;
    EXPECT_EQ(decoded.value(), bytes) << n;
    bytes += static_cast<char>(n * 37);
  }
  EXPECT_FALSE(Base64Decode("abc").ok());
  EXPECT_FALSE(Base64Decode("ab!=").ok());
}

// RFC 4013 section 3's examples.
TEST(SaslPrepTest, Rfc4013Examples) {
  EXPECT_EQ(SaslPrep("I\xC2\xADX").value(), "IX");      // SOFT HYPHEN mapped to nothing
  EXPECT_EQ(SaslPrep("user").value(), "user");
  EXPECT_EQ(SaslPrep("USER").value(), "USER");
  EXPECT_EQ(SaslPrep("\xC2\xAA").value(), "a");         // FEMININE ORDINAL -> a (NFKC)
  EXPECT_EQ(SaslPrep("\xE2\x85\xA8").value(), "IX");    // ROMAN NUMERAL NINE
  EXPECT_EQ(SaslPrep("a\xC2\xA0" "b").value(), "a b");  // NO-BREAK SPACE -> SPACE
  EXPECT_FALSE(SaslPrep("\x07").ok());                  // prohibited control character
  EXPECT_FALSE(SaslPrep("\xD8\xA7" "1").ok());          // bidi: RandALCat then L/number
  EXPECT_FALSE(SaslPrep("\xC2\xAD").ok());              // maps to the empty string
}

TEST(SaslPrepTest, Sha256PasswordIsPreparedBeforeHashing) {
  // Two spellings of one password derive the same key.
  auto a = PreparePassword(ScramMechanism::kSha256, "u", "I\xC2\xADX");
  auto b = PreparePassword(ScramMechanism::kSha256, "u", "IX");
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a.value(), b.value());
}

}  // namespace
}  // namespace tigerdoc::wire::auth
