#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include "controller/catalog/role.h"
#include "tests/unit/test_paths.h"

namespace clusterctl {
namespace {

TEST_CASE("a file step whose template is not a string is an error, not a crash (a fuzz find)") {
  Diagnostics diagnostics;
  Catalog::Sources sources{{}, {testing::SourceDir() + "/templates"}};
  auto role = Catalog::ParseRole("version: 1\ndescription: x\nsteps:\n  - name: f\n    file:\n      path: /etc/x\n"
                                 "      template: [a, b]\n",
                                 "/t/roles/t.yaml", "t", sources, diagnostics);
  (void)role;
  CHECK(diagnostics.has_errors());
  CHECK(diagnostics.ToString().find("/t/roles/t.yaml:7") != std::string::npos);
}

TEST_CASE("a wait's before: names a step of the role (did-you-mean otherwise); a handler's wait takes none") {
  Catalog::Sources sources{{}, {testing::SourceDir() + "/templates"}};
  const std::string head = "version: 3\ndescription: x\nwaits_for:\n  - {role: server, group: servers, before: ";
  const std::string steps = "}\nsteps:\n  - name: package\n    command: {argv: ['true']}\n"
                            "  - name: mounted\n    command: {argv: ['true']}\n";
  Diagnostics good;
  auto role = Catalog::ParseRole(head + "mounted" + steps, "/t/roles/t.yaml", "t", sources, good);
  REQUIRE(role);
  CHECK_FALSE(good.has_errors());
  CHECK(role->WaitsBefore("").empty());
  REQUIRE(role->WaitsBefore("mounted").size() == 1);
  CHECK(role->WaitsBefore("mounted")[0].role == "server");

  Diagnostics typo;
  (void)Catalog::ParseRole(head + "mountd" + steps, "/t/roles/t.yaml", "t", sources, typo);
  CHECK_MESSAGE(typo.ToString().find("/t/roles/t.yaml:4:5: error: waits_for before: 'mountd' is not a step of role t") !=
                    std::string::npos, typo.ToString());
  CHECK(typo.ToString().find("did you mean 'mounted'") != std::string::npos);

  Diagnostics handler;
  (void)Catalog::ParseRole("version: 3\ndescription: x\nhandlers:\n  - name: restart\n    waits_for:\n"
                           "      - {role: server, group: servers, before: restart}\n    command: {argv: ['true']}\n",
                           "/t/roles/t.yaml", "t", sources, handler);
  CHECK_MESSAGE(handler.ToString().find("before: is for a role's waits_for") != std::string::npos, handler.ToString());
}

TEST_CASE("a role declares value syntaxes for its variables; each is checked when the role loads") {
  Catalog::Sources sources{{}, {testing::SourceDir() + "/templates"}};
  Diagnostics good;
  auto role = Catalog::ParseRole("version: 2\nvars:\n  listen: null\n  keep: 15d\nsyntax:\n  listen: address:port\n"
                                 "  keep: duration\n",
                                 "/t/roles/t.yaml", "t", sources, good);
  REQUIRE(role);
  CHECK_FALSE(good.has_errors());
  CHECK(role->variables.at("listen").syntax == FindValueSyntax("address:port"));
  CHECK(role->variables.at("listen").inferred);

  Diagnostics bad;
  (void)Catalog::ParseRole("version: 2\nvars:\n  keep: forever\nsyntax:\n  keep: duration\n  other: word\n"
                           "  keep2: adress\n",
                           "/t/roles/t.yaml", "t", sources, bad);
  const std::string errors = bad.ToString();
  CHECK(errors.find("/t/roles/t.yaml:5:9: error: the default of 'keep' (forever) is not a duration") != std::string::npos);
  CHECK(errors.find("/t/roles/t.yaml:6:3: error: syntax of 'other': not a variable of this role's vars") !=
        std::string::npos);

  Diagnostics unknown;
  (void)Catalog::ParseRole("vars:\n  a: x\nsyntax:\n  a: adress\n", "/t/roles/t.yaml", "t", sources, unknown);
  CHECK(unknown.ToString().find("unknown syntax 'adress'") != std::string::npos);
  CHECK(unknown.ToString().find("did you mean 'address'") != std::string::npos);

  Diagnostics future;
  (void)Catalog::ParseRole("version: 4\n", "/t/roles/t.yaml", "t", sources, future);
  CHECK(future.ToString().find("role format version 4 is not supported (this clusterctl reads 1 to 3)") !=
        std::string::npos);
}

TEST_CASE("format 3 declares every variable; syntax: moves into the declaration") {
  Catalog::Sources sources{{}, {testing::SourceDir() + "/templates"}};
  Diagnostics good;
  auto role = Catalog::ParseRole("version: 3\nvars:\n  port: {default: 9100, syntax: port, description: the port}\n"
                                 "  other: {from: x}\n",
                                 "/t/roles/t.yaml", "t", sources, good);
  REQUIRE(role);
  CHECK_FALSE(good.has_errors());
  CHECK(role->vars["port"] == 9100);
  CHECK(role->variables.at("port").description == "the port");
  CHECK(role->variables.at("port").declared_by == "t");
  CHECK(role->variables_from.at("other") == "x");

  Diagnostics bad;
  (void)Catalog::ParseRole("version: 3\nvars:\n  port: 9100\nsyntax:\n  port: port\n", "/t/roles/t.yaml", "t",
                           sources, bad);
  CHECK(bad.ToString().find("/t/roles/t.yaml:3:9: error: variable 'port': expected a declaration") != std::string::npos);
  CHECK(bad.ToString().find("role format 3 declares a variable's syntax in its declaration") != std::string::npos);
}

TEST_CASE("a variable is declared by one role; others take it with from:") {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "role_loader_test_from";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir / "roles");
  auto write = [&](const std::string& name, const std::string& text) { std::ofstream(dir / "roles" / name) << text; };
  write("a.yaml", "version: 3\nvars:\n  v: {default: 1, description: d}\n");
  write("b.yaml", "version: 3\nvars:\n  v: {from: a}\n  w: {from: c}\n  u: {from: a}\n");
  write("c.yaml", "version: 1\nvars:\n  v: 2\n");  // inferred: no conflict, the declaration wins
  Diagnostics diagnostics;
  auto catalog = Catalog::Load({{(dir / "roles").string()}, {testing::SourceDir() + "/templates"}}, diagnostics);
  const std::string errors = diagnostics.ToString();
  CHECK(errors.find("variable 'w' of role b is from role c, which does not declare it") != std::string::npos);
  CHECK(errors.find("variable 'u' of role b is from role a, which does not declare it") != std::string::npos);

  write("b.yaml", "version: 3\nvars:\n  v: {from: a}\n");
  Diagnostics fixed;
  catalog = Catalog::Load({{(dir / "roles").string()}, {testing::SourceDir() + "/templates"}}, fixed);
  REQUIRE(catalog);
  CHECK(catalog->Find("b")->vars["v"] == 1);
  CHECK(catalog->FindVariable("v")->declared_by == "a");
  CHECK(catalog->FindVariable("validate_gpu_ecc_required")->declared_by == "validate");

  write("c.yaml", "version: 3\nvars:\n  v: {default: 1, description: again}\n");
  Diagnostics twice;
  CHECK_FALSE(Catalog::Load({{(dir / "roles").string()}, {testing::SourceDir() + "/templates"}}, twice));
  CHECK(twice.ToString().find("variable 'v' is declared by a and by role c: declare it once and write 'v: {from: a}' "
                              "in the other role") != std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST_CASE("an argument {template: NAME.sh.mustache} is that shell template's text; one with tags is refused") {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "clusterctl-script-argument-test";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "check.sh.mustache") << "[ -n \"$1\" ] ||\n  exit 1\n";
  std::ofstream(dir / "tagged.sh.mustache") << "echo {{x}}\n";
  Catalog::Sources sources{{}, {dir.string()}};
  const std::string role = "version: 3\ndescription: x\nsteps:\n  - name: c\n    command:\n"
                           "      argv: [sh, -c, {template: check.sh.mustache}, sh, \"{{host.name}}\"]\n"
                           "      unless: [sh, -c, {template: ARG}]\n";
  const auto with = [&](const std::string& name) {
    std::string text = role;
    return text.replace(text.find("ARG"), 3, name);
  };
  Diagnostics good;
  auto parsed = Catalog::ParseRole(with("check.sh.mustache"), "/t/roles/t.yaml", "t", sources, good);
  REQUIRE_MESSAGE(parsed, good.ToString());
  CHECK_FALSE(good.has_errors());
  const nlohmann::json& params = parsed->steps.at(0).params;
  CHECK(params.at("argv") == nlohmann::json({"sh", "-c", "[ -n \"$1\" ] ||\n  exit 1\n", "sh", "{{host.name}}"}));
  CHECK(params.at("unless").at(2) == "[ -n \"$1\" ] ||\n  exit 1\n");

  Diagnostics tagged;
  (void)Catalog::ParseRole(with("tagged.sh.mustache"), "/t/roles/t.yaml", "t", sources, tagged);
  CHECK(tagged.ToString().find("/t/roles/t.yaml:7:") != std::string::npos);
  CHECK(tagged.ToString().find("takes values as its arguments") != std::string::npos);

  Diagnostics not_shell;
  (void)Catalog::ParseRole(with("check.conf.mustache"), "/t/roles/t.yaml", "t", sources, not_shell);
  CHECK(not_shell.ToString().find("a shell template: {template: NAME.sh.mustache}") != std::string::npos);

  Diagnostics missing;
  (void)Catalog::ParseRole(with("gone.sh.mustache"), "/t/roles/t.yaml", "t", sources, missing);
  CHECK(missing.ToString().find("template 'gone.sh.mustache' not found") != std::string::npos);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace clusterctl
