#include "common/json_text.h"

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include "tests/unit/test_paths.h"

namespace clusterctl {
namespace {

// Every C++ file under `folder` of the source tree.
std::vector<std::filesystem::path> SourcesUnder(const std::string& folder) {
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(testing::SourceDir() + "/" + folder)) {
    const std::string ext = entry.path().extension().string();
    if (entry.is_regular_file() && (ext == ".cc" || ext == ".h")) files.push_back(entry.path());
  }
  return files;
}

std::string ReadAll(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

TEST_CASE("JsonText: invalid UTF-8 becomes U+FFFD where dump() would throw; valid text is dump()'s") {
  const nlohmann::json node_text = {{"stderr", "caf\xe9 \xff\xfe"}, {"banner", std::string("SSH-2.0-\x80")}};
  CHECK_THROWS(node_text.dump());
  const std::string text = JsonText(node_text);
  CHECK(text.find("caf\xef\xbf\xbd \xef\xbf\xbd\xef\xbf\xbd") != std::string::npos);
  CHECK(nlohmann::json::parse(text)["banner"] == "SSH-2.0-\xef\xbf\xbd");

  const nlohmann::json valid = {{"name", "n\xc3\xa9ud"}, {"n", 3}, {"list", {1, "x"}}};
  CHECK(JsonText(valid) == valid.dump());
  CHECK(JsonText(valid, 2) == valid.dump(2));
}

// The strict dump() throws on a node's non-UTF-8 byte, and an uncaught throw
// aborts the controller or the daemon (issue 31). JsonText is the one place
// that serialises JSON; this keeps it so.
TEST_CASE("JsonText is the only caller of nlohmann's dump() in the controller, the agent and common") {
  const std::string call = std::string(".") + "dump(";
  const std::string arrow_call = std::string("->") + "dump(";
  int files = 0;
  for (const std::string folder : {"controller", "agent", "common", "inventory"}) {
    for (const auto& path : SourcesUnder(folder)) {
      ++files;
      // JsonText itself, and this file, which compares it with dump().
      if (path.parent_path().filename() == "common" && path.stem() == "json_text") continue;
      if (path.parent_path().filename() == "common" && path.stem() == "json_text_test") continue;
      const std::string text = ReadAll(path);
      CAPTURE(path.string());
      CHECK(text.find(call) == std::string::npos);
      CHECK(text.find(arrow_call) == std::string::npos);
    }
  }
  CHECK(files > 100);  // the tree was found
}

}  // namespace clusterctl
