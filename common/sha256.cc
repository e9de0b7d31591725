#include "common/sha256.h"

#include <openssl/evp.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <memory>

namespace clusterctl {
namespace {

struct DigestContext {
  DigestContext() : ctx(EVP_MD_CTX_new()) { EVP_DigestInit_ex(ctx, EVP_sha256(), nullptr); }
  ~DigestContext() { EVP_MD_CTX_free(ctx); }
  void Update(const void* data, size_t size) { EVP_DigestUpdate(ctx, data, size); }
  std::string HexDigest() {
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int length = 0;
    EVP_DigestFinal_ex(ctx, digest, &length);
    static const char* kHex = "0123456789abcdef";
    std::string out;
    for (unsigned int i = 0; i < length; ++i) {
      out += kHex[digest[i] >> 4];
      out += kHex[digest[i] & 0xF];
    }
    return out;
  }
  EVP_MD_CTX* ctx;
};

}  // namespace

std::string Sha256Hex(std::string_view data) {
  DigestContext context;
  context.Update(data.data(), data.size());
  return context.HexDigest();
}

Result<std::string> Sha256File(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::IoError("cannot read " + path + ": " + std::strerror(errno));
  DigestContext context;
  char buffer[1 << 16];
  while (in) {
    in.read(buffer, sizeof buffer);
    context.Update(buffer, static_cast<size_t>(in.gcount()));
  }
  return context.HexDigest();
}

}  // namespace clusterctl
