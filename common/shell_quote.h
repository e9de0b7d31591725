// The one place where text becomes part of a POSIX shell command line.
//
// clusterctl never passes inventory or fact values through a shell: commands
// travel to the agent as argument vectors. The only shell strings are the
// few the controller itself sends over SSH to start or install the agent; any
// variable part of those goes through ShellQuote.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace clusterctl {

// 'text' with embedded single quotes as '\''; safe for any byte string.
std::string ShellQuote(std::string_view text);

// Words quoted and joined with spaces.
std::string ShellJoin(const std::vector<std::string>& words);

}  // namespace clusterctl
