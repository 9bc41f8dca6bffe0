#include "wire/auth/scram.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include <cstdint>
#include <vector>

#include "engine/bson/hex.h"
#include "wire/auth/saslprep.h"

namespace tigerdoc::wire::auth {
namespace {

const EVP_MD* Digest(ScramMechanism mechanism) {
  return mechanism == ScramMechanism::kSha1 ? EVP_sha1() : EVP_sha256();
}

std::string Hash(const EVP_MD* md, std::string_view data) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(data.data(), data.size(), out, &len, md, nullptr);
  return std::string(reinterpret_cast<char*>(out), len);
}

std::string Hmac(ScramMechanism mechanism, std::string_view key, std::string_view data) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  HMAC(Digest(mechanism), key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(data.data()), data.size(), out, &len);
  return std::string(reinterpret_cast<char*>(out), len);
}

std::string RandomBytes(size_t n) {
  std::string out(n, '\0');
  // RAND_bytes fails only when the system RNG is unavailable; the server
  // cannot do anything safe without it.
  INVARIANT(RAND_bytes(reinterpret_cast<unsigned char*>(out.data()), static_cast<int>(n)) == 1);
  return out;
}

std::string Hex(std::string_view bytes) {
  std::string out;
  bson::AppendLowerHex(bytes, &out);
  return out;
}

// Splits "a=1,b=2" into its attributes, in order.
std::vector<std::string_view> Split(std::string_view s) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (true) {
    size_t comma = s.find(',', start);
    out.push_back(s.substr(start, comma == std::string_view::npos ? std::string_view::npos
                                                                  : comma - start));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return out;
}

// "x=value" -> value when the attribute is `name`.
std::optional<std::string_view> Attribute(std::string_view part, char name) {
  if (part.size() < 2 || part[0] != name || part[1] != '=') return std::nullopt;
  return part.substr(2);
}

// RFC 5802 saslname: "=2C" is ',' and "=3D" is '='; any other '=' is an
// error.
StatusWith<std::string> DecodeSaslName(std::string_view name) {
  std::string out;
  for (size_t i = 0; i < name.size(); ++i) {
    if (name[i] != '=') {
      out += name[i];
    } else if (name.substr(i, 3) == "=2C") {
      out += ',';
      i += 2;
    } else if (name.substr(i, 3) == "=3D") {
      out += '=';
      i += 2;
    } else {
      return Status(ErrorCode::kBadValue, "Invalid SCRAM user name: bad '=' escape");
    }
  }
  return out;
}

Status Malformed(std::string_view what) {
  return Status(ErrorCode::kBadValue, "Incorrect SCRAM " + std::string(what) + " format");
}

}  // namespace

std::string_view MechanismName(ScramMechanism mechanism) {
  return mechanism == ScramMechanism::kSha1 ? "SCRAM-SHA-1" : "SCRAM-SHA-256";
}

std::optional<ScramMechanism> ParseMechanism(std::string_view name) {
  if (name == "SCRAM-SHA-1") return ScramMechanism::kSha1;
  if (name == "SCRAM-SHA-256") return ScramMechanism::kSha256;
  return std::nullopt;
}

int DefaultIterationCount(ScramMechanism mechanism) {
  return mechanism == ScramMechanism::kSha1 ? 10000 : 15000;
}

StatusWith<std::string> PreparePassword(ScramMechanism mechanism, std::string_view user,
                                        std::string_view password) {
  if (password.empty()) return Status(ErrorCode::kBadValue, "Password cannot be empty");
  if (mechanism == ScramMechanism::kSha1) {
    // MongoDB's historical password digest (createPasswordDigest).
    std::string digest_input = std::string(user) + ":mongo:" + std::string(password);
    return Hex(Hash(EVP_md5(), digest_input));
  }
  return SaslPrep(password);
}

ScramCredential DeriveCredential(ScramMechanism mechanism, std::string_view prepared_password,
                                 std::string salt, int iteration_count) {
  const EVP_MD* md = Digest(mechanism);
  std::string salted(static_cast<size_t>(EVP_MD_get_size(md)), '\0');
  PKCS5_PBKDF2_HMAC(prepared_password.data(), static_cast<int>(prepared_password.size()),
                    reinterpret_cast<const unsigned char*>(salt.data()), static_cast<int>(salt.size()),
                    iteration_count, md, static_cast<int>(salted.size()),
                    reinterpret_cast<unsigned char*>(salted.data()));
  ScramCredential credential;
  credential.iteration_count = iteration_count;
  credential.salt = std::move(salt);
  credential.stored_key = Hash(md, Hmac(mechanism, salted, "Client Key"));
  credential.server_key = Hmac(mechanism, salted, "Server Key");
  OPENSSL_cleanse(salted.data(), salted.size());
  return credential;
}

std::string NewSalt(ScramMechanism mechanism) {
  return RandomBytes(static_cast<size_t>(EVP_MD_get_size(Digest(mechanism))) - 4);
}

StatusWith<ScramCredential> MakeCredential(ScramMechanism mechanism, std::string_view user,
                                           std::string_view password) {
  ASSIGN_OR_RETURN(std::string prepared, PreparePassword(mechanism, user, password));
  ScramCredential credential = DeriveCredential(mechanism, prepared, NewSalt(mechanism),
                                                DefaultIterationCount(mechanism));
  OPENSSL_cleanse(prepared.data(), prepared.size());
  return credential;
}

StatusWith<ClientFirst> ParseClientFirst(std::string_view message) {
  // gs2-header: "n," (no channel binding) then an empty authzid.
  if (message.substr(0, 3) != "n,,") {
    if (message.substr(0, 2) == "y," || message.substr(0, 2) == "p=") {
      return Status(ErrorCode::kBadValue, "Server does not support channel binding");
    }
    if (message.substr(0, 4) == "n,a=") {
      return Status(ErrorCode::kBadValue, "SCRAM authorization identities are not supported");
    }
    return Malformed("client first message");
  }
  ClientFirst out;
  out.bare = std::string(message.substr(3));
  std::vector<std::string_view> parts = Split(out.bare);
  if (parts.size() < 2) return Malformed("client first message");
  auto user = Attribute(parts[0], 'n');
  auto nonce = Attribute(parts[1], 'r');
  if (!user || !nonce || user->empty() || nonce->empty()) return Malformed("client first message");
  ASSIGN_OR_RETURN(out.user, DecodeSaslName(*user));
  out.nonce = std::string(*nonce);
  return out;
}

std::string RandomNonce() { return Base64Encode(RandomBytes(24)); }

ScramServerConversation::ScramServerConversation(ScramMechanism mechanism, ClientFirst client_first,
                                                 ScramCredential credential,
                                                 std::string server_nonce)
    : mechanism_(mechanism),
      client_first_(std::move(client_first)),
      credential_(std::move(credential)),
      combined_nonce_(client_first_.nonce + server_nonce) {}

std::string ScramServerConversation::ServerFirst() const {
  return "r=" + combined_nonce_ + ",s=" + Base64Encode(credential_.salt) +
         ",i=" + std::to_string(credential_.iteration_count);
}

StatusWith<std::string> ScramServerConversation::Finish(std::string_view client_final) const {
  // "c=<channel binding>,r=<nonce>[,extensions],p=<proof>": the proof is
  // last and everything before ",p=" is signed.
  const size_t proof_at = client_final.rfind(",p=");
  if (proof_at == std::string_view::npos) return Malformed("client final message");
  std::string_view without_proof = client_final.substr(0, proof_at);
  std::vector<std::string_view> parts = Split(without_proof);
  if (parts.size() < 2) return Malformed("client final message");
  auto binding = Attribute(parts[0], 'c');
  auto nonce = Attribute(parts[1], 'r');
  if (!binding || !nonce) return Malformed("client final message");
  // base64("n,,"): the gs2 header the client sent first.
  if (*binding != "biws") {
    return Status(ErrorCode::kBadValue, "Unexpected SCRAM channel binding attribute");
  }
  const Status failed(ErrorCode::kAuthenticationFailed, "Authentication failed.");
  if (*nonce != combined_nonce_) return failed;
  auto proof = Base64Decode(client_final.substr(proof_at + 3));
  if (!proof.ok()) return Malformed("client final message");

  const std::string auth_message =
      client_first_.bare + "," + ServerFirst() + "," + std::string(without_proof);
  const std::string client_signature = Hmac(mechanism_, credential_.stored_key, auth_message);
  if (proof.value().size() != client_signature.size()) return failed;
  std::string client_key(client_signature.size(), '\0');
  for (size_t i = 0; i < client_key.size(); ++i) client_key[i] = proof.value()[i] ^ client_signature[i];
  const std::string computed_stored_key = Hash(Digest(mechanism_), client_key);
  if (computed_stored_key.size() != credential_.stored_key.size() ||
      CRYPTO_memcmp(computed_stored_key.data(), credential_.stored_key.data(),
                    computed_stored_key.size()) != 0) {
    return failed;
  }
  return "v=" + Base64Encode(Hmac(mechanism_, credential_.server_key, auth_message));
}

std::string Base64Encode(std::string_view bytes) {
  std::string out(4 * ((bytes.size() + 2) / 3), '\0');
  const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(bytes.data()),
                                static_cast<int>(bytes.size()));
  out.resize(static_cast<size_t>(n));
  return out;
}

StatusWith<std::string> Base64Decode(std::string_view text) {
  if (text.size() % 4 != 0) return Status(ErrorCode::kBadValue, "invalid base64");
  std::string out(3 * (text.size() / 4), '\0');
  const int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(text.data()),
                                static_cast<int>(text.size()));
  if (n < 0) return Status(ErrorCode::kBadValue, "invalid base64");
  // EVP_DecodeBlock counts the bytes the '=' padding stands for.
  size_t padding = 0;
  if (!text.empty() && text.back() == '=') ++padding;
  if (text.size() > 1 && text[text.size() - 2] == '=') ++padding;
  out.resize(static_cast<size_t>(n) - padding);
  return out;
}

}  // namespace tigerdoc::wire::auth
