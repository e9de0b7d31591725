// SHA-256 (FIPS 180-4), self-contained so the static agent and the controller
// share one implementation.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "common/status.h"

namespace clusterctl {

class Sha256 {
 public:
  Sha256();
  void Update(std::string_view data);
  std::string HexDigest();  // finishes the hash; call once

 private:
  void Block(const unsigned char* block);

  std::array<uint32_t, 8> state_;
  unsigned char buffer_[64];
  size_t buffered_ = 0;
  uint64_t length_ = 0;  // bytes
};

// Lowercase hex digest of `data`.
std::string Sha256Hex(std::string_view data);

// Lowercase hex digest of a file's content, or of its first `limit` bytes.
Result<std::string> Sha256File(const std::string& path, uint64_t limit = UINT64_MAX);

}  // namespace clusterctl
