// SHA-256 (OpenSSL's libcrypto, which libssh already links).
#pragma once

#include <string>
#include <string_view>

#include "common/status.h"

namespace clusterctl {

// Lowercase hex digest of `data`.
std::string Sha256Hex(std::string_view data);

// Lowercase hex digest of a file's content.
Result<std::string> Sha256File(const std::string& path);

}  // namespace clusterctl
