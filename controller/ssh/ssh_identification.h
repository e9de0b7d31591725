// What a server says first, read before libssh reads it: an SSH server
// starts with its identification line ("SSH-2.0-OpenSSH_9.2"); anything
// else (an HTTP server's reply, a line of text) is not an SSH server, which
// the admin should be told in those words, with what it said, rather than
// see a handshake time out or a generic libssh error.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace clusterctl {

// Pure. `first_bytes`: what the server sent first (at least one byte).
// Nullopt when it may be an SSH server: it starts with "SSH-" (or with the
// beginning of it), or an identification line follows lines of text in it
// (RFC 4253 allows them). Otherwise "not an SSH server (it said: '...')",
// quoting its first line, printable (other bytes as \xNN) and at most 60
// characters.
std::optional<std::string> NotAnSshServer(std::string_view first_bytes);

}  // namespace clusterctl
