#include "inventory/ansible_vars_files.h"

#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "common/json_text.h"

namespace clusterctl {
namespace {

namespace fs = std::filesystem;

// A scratch directory holding an inventory's group_vars/ and host_vars/.
struct ScratchDir {
  fs::path path;
  ScratchDir() {
    std::string pattern = (fs::temp_directory_path() / "vars-files-XXXXXX").string();
    path = ::mkdtemp(pattern.data());
  }
  ~ScratchDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  void Write(const std::string& relative, const std::string& text) const {
    fs::create_directories((path / relative).parent_path());
    std::ofstream(path / relative, std::ios::binary) << text;
  }
  std::optional<AnsibleVarsFiles> Read(Diagnostics& diagnostics, YamlLimits limits = {}) const {
    return ReadAnsibleVarsFiles(path.string(), {"slurm-node", "k8s_cluster"}, {"gpu01"}, limits, diagnostics);
  }
};

std::vector<std::string> Names(const std::vector<AnsibleVariable>& variables) {
  std::vector<std::string> names;
  for (const AnsibleVariable& v : variables) names.push_back(v.name + "=" + JsonText(v.value));
  return names;
}

}  // namespace

TEST_CASE("group_vars and host_vars files are read as Ansible finds them") {
  ScratchDir dir;
  dir.Write("group_vars/all.yml", "ntp: [a]\nversion: 23.10\n");
  dir.Write("group_vars/all.yaml", "ignored: 1\n");  // Ansible reads only the first of all, all.yml, ...
  dir.Write("group_vars/slurm-node/10-first.yml", "x: 1\n");
  dir.Write("group_vars/slurm-node/20-second", "x: 2\n");
  dir.Write("group_vars/slurm-node/.hidden.yml", "x: 3\n");
  dir.Write("group_vars/slurm-node/notes.txt", "x: 4\n");
  dir.Write("group_vars/netapp-trident.yml", "y: 1\n");
  dir.Write("host_vars/gpu01", "ansible_host: 10.0.2.1\n");
  Diagnostics d;
  std::optional<AnsibleVarsFiles> files = dir.Read(d);
  INFO(d.ToString());
  REQUIRE(files);
  CHECK(Names(files->groups["all"]) == std::vector<std::string>{"ntp=[\"a\"]", "version=23.1"});
  CHECK(files->groups["all"][1].where == (dir.path / "group_vars/all.yml").string() + ":2");
  CHECK(Names(files->groups["slurm-node"]) == std::vector<std::string>{"x=1", "x=2"});
  CHECK(Names(files->hosts["gpu01"]) == std::vector<std::string>{"ansible_host=\"10.0.2.1\""});
  INFO(files->notes[0], " / ", files->notes.back());
  REQUIRE(files->notes.size() == 2);
  CHECK(files->notes[1].find("all.yaml: not read: Ansible reads only the first of all, all.yml") !=
        std::string::npos);
  CHECK(files->notes[0].find("netapp-trident.yml: no group 'netapp-trident' in the inventory; not read") !=
        std::string::npos);
}

TEST_CASE("vault values are marked, vault-encrypted files are noted and not read") {
  ScratchDir dir;
  dir.Write("group_vars/all.yml", "db: !vault |\n  $ANSIBLE_VAULT;1.1;AES256\n  6162\nplain: 1\n");
  dir.Write("host_vars/gpu01.yml", "$ANSIBLE_VAULT;1.1;AES256\n616263\n");
  Diagnostics d;
  std::optional<AnsibleVarsFiles> files = dir.Read(d);
  INFO(d.ToString());
  REQUIRE(files);
  CHECK(files->groups["all"][0].vault);
  CHECK_FALSE(files->groups["all"][1].vault);
  CHECK(files->hosts.count("gpu01") == 1);
  CHECK(files->hosts["gpu01"].empty());
  REQUIRE(files->notes.size() == 1);
  CHECK(files->notes[0].find("gpu01.yml: encrypted with ansible-vault; not read") != std::string::npos);
}

TEST_CASE("bad or hostile group_vars are an error with file:line") {
  struct Case {
    std::string text, expected;
  };
  const Case cases[] = {
      {"a: [1, 2\nb: 3\n", "group_vars/all.yml:2:2: error: YAML syntax error"},
      {"- a\n- b\n", "group_vars/all.yml:1:1: error: expected a map of variables (name: value), got a list"},
      {"a: \xff\n", "group_vars/all.yml:1:4: error:"},
      {std::string(70, '[') + std::string(70, ']') + "\n", "group_vars/all.yml:1:"},
      {"a: 1\na: 2\n", "group_vars/all.yml:2:1: error: duplicate key 'a'"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.text);
    ScratchDir dir;
    dir.Write("group_vars/all.yml", c.text);
    Diagnostics d;
    CHECK_FALSE(dir.Read(d));
    INFO(d.ToString());
    CHECK(d.ToString().find((dir.path / c.expected).string()) != std::string::npos);
  }
}

TEST_CASE("the files together are bounded like one inventory file") {
  ScratchDir dir;
  dir.Write("group_vars/all.yml", "a: " + std::string(600, 'x') + "\n");
  dir.Write("host_vars/gpu01.yml", "b: " + std::string(600, 'y') + "\n");
  YamlLimits limits;
  limits.max_bytes = 1000;
  Diagnostics d;
  CHECK_FALSE(dir.Read(d, limits));
  CHECK(d.ToString().find("gpu01.yml: error: the group_vars and host_vars files together are larger than") !=
        std::string::npos);
}

TEST_CASE("a group_vars entry that is no regular file is refused, not read (a FIFO would block)") {
  ScratchDir dir;
  fs::create_directories(dir.path / "group_vars");
  REQUIRE(::mkfifo((dir.path / "group_vars/all").c_str(), 0600) == 0);
  Diagnostics d;
  CHECK_FALSE(dir.Read(d));
  CHECK(d.ToString().find("group_vars/all: error: not a regular file") != std::string::npos);
}

TEST_CASE("no group_vars or host_vars: nothing to read, no error") {
  ScratchDir dir;
  Diagnostics d;
  std::optional<AnsibleVarsFiles> files = dir.Read(d);
  REQUIRE(files);
  CHECK(files->groups.empty());
  CHECK(files->notes.empty());
}

}  // namespace clusterctl
