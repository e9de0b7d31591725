#include "controller/catalog/template.h"

#include <doctest/doctest.h>

#include "controller/catalog/when.h"

namespace clusterctl {
namespace {

std::string Render(const std::string& text, const nlohmann::json& context, std::string* errors = nullptr) {
  Diagnostics d;
  auto t = Template::Parse(text, "t.mustache", d);
  if (!t) {
    if (errors) *errors = d.ToString();
    return "<parse error>";
  }
  std::string out = t->Render(context, d);
  if (errors) *errors = d.ToString();
  return out;
}

}  // namespace

TEST_CASE("templates render variables, dotted names, lists and booleans without escaping") {
  nlohmann::json context = {
      {"cluster", {{"name", "pod1"},
                   {"hosts", {{{"name", "gpu01"}, {"address", "10.0.2.1"}}, {{"name", "gpu02"}, {"address", "10.0.2.2"}}}}}},
      {"host", {{"name", "gpu01"}, {"facts", {{"cpu", {{"cpus", 64}}}}}}},
      {"servers", {"ntp1", "ntp2"}},
      {"local_server", false},
      {"quote", "a<b & \"c\""},
  };
  CHECK(Render("{{host.name}} has {{host.facts.cpu.cpus}} CPUs; {{quote}}", context) ==
        "gpu01 has 64 CPUs; a<b & \"c\"");
  CHECK(Render("{{#cluster.hosts}}\n{{address}} {{name}}\n{{/cluster.hosts}}\n", context) ==
        "10.0.2.1 gpu01\n10.0.2.2 gpu02\n");
  CHECK(Render("{{#servers}}server {{.}} iburst\n{{/servers}}", context) == "server ntp1 iburst\nserver ntp2 iburst\n");
  CHECK(Render("{{#local_server}}local stratum 10\n{{/local_server}}{{^local_server}}# no local server\n{{/local_server}}",
               context) == "# no local server\n");
  CHECK(Render("  {{! a comment }}\nx\n", context) == "x\n");
  CHECK(Render("{{#cluster}}{{name}}: {{host.name}}{{/cluster}}", context) == "pod1: gpu01");  // outer contexts visible
}

TEST_CASE("undefined names are errors with the template's file:line") {
  std::string errors;
  Render("line one\nserver {{ntp_server}}\n", {{"x", 1}}, &errors);
  CHECK(errors == "t.mustache:2:8: error: undefined variable 'ntp_server' in template\n");
  Render("{{#missing}}x{{/missing}}", nlohmann::json::object(), &errors);
  CHECK(errors == "t.mustache:1:1: error: undefined variable 'missing' in template\n");
  Render("{{servers}}", {{"servers", {"a"}}}, &errors);
  CHECK(errors.find("'servers' is a list; iterate it") != std::string::npos);
}

TEST_CASE("malformed templates are rejected at parse time") {
  std::string errors;
  CHECK(Render("{{#a}}x", {{"a", true}}, &errors) == "<parse error>");
  CHECK(errors.find("section {{#a}} is never closed") != std::string::npos);
  Render("{{#a}}x{{/b}}", {{"a", true}}, &errors);
  CHECK(errors.find("{{/b}} does not close {{#a}}") != std::string::npos);
  Render("{{> partial}}", {}, &errors);
  CHECK(errors.find("partials") != std::string::npos);
  Render("x {{ y", {}, &errors);
  CHECK(errors == "t.mustache:1:3: error: template tag '{{' is never closed\n");
}

TEST_CASE("RenderStrings renders every string of a parameter tree") {
  Diagnostics d;
  nlohmann::json params = {{"path", "/etc/{{name}}.conf"}, {"argv", {"hostname", "{{host}}"}}, {"mode", "0644"}};
  nlohmann::json context = {{"name", "chrony"}, {"host", "gpu01"}};
  nlohmann::json out = RenderStrings(params, {&context}, {"role.yaml", 3, 5}, d);
  CHECK_FALSE(d.has_errors());
  CHECK(out["path"] == "/etc/chrony.conf");
  CHECK(out["argv"][1] == "gpu01");
}

TEST_CASE("whole-value tags keep their type; optional ones drop the parameter") {
  Diagnostics d;
  nlohmann::json context = {{"item", {{"name", "alice"}, {"uid", 1001}, {"groups", {"wheel"}}}}};
  nlohmann::json params = {{"name", "{{item.name}}"}, {"uid", "{{item.uid}}"}, {"groups", "{{item.groups}}"},
                           {"shell", "{{item.shell?}}"}, {"comment", "user {{item.name}}"}};
  nlohmann::json out = RenderStrings(params, {&context}, {"users.yaml", 9, 7}, d);
  CHECK_FALSE(d.has_errors());
  CHECK(out == nlohmann::json({{"name", "alice"}, {"uid", 1001}, {"groups", {"wheel"}}, {"comment", "user alice"}}));
  CHECK(Render("{{#item.keys?}}k{{/item.keys?}}x", context) == "x");
  RenderStrings({{"uid", "{{item.gid}}"}}, {&context}, {"users.yaml", 9, 7}, d);
  CHECK(d.ToString() == "users.yaml:9:7: error: undefined variable 'item.gid' in parameter '{{item.gid}}'\n");
}

}  // namespace clusterctl

namespace clusterctl {

TEST_CASE("a value may not break out of the file it lands in (the review's slurm.conf newline and SQL injection)") {
  std::string errors;
  // Lines (configuration files): one line per value; a raw tag is the admin's own text.
  CHECK(Render("DefMemPerCPU={{m}}\n", {{"m", "1024\nPartitionName=evil Nodes=ALL"}}, &errors) == "DefMemPerCPU=\n");
  CHECK(errors.find("t.mustache:1:14: error: the value of 'm' (1024\\x0aPartitionName=evil Nodes=ALL) contains a line "
                    "break: it would add a line to the file") != std::string::npos);
  CHECK(Render("x={{m}}\n", {{"m", std::string("a\0b", 3)}}, &errors) == "x=\n");
  CHECK(errors.find("contains a control character") != std::string::npos);
  CHECK(Render("{{&extra}}", {{"extra", "A=1\nB=2\n"}}, &errors) == "A=1\nB=2\n");
  CHECK(errors.empty());
  CHECK(Render("x={{m}}\n", {{"m", "tabs\tare fine, quotes ' \" too"}}) == "x=tabs\tare fine, quotes ' \" too\n");

  Diagnostics d;
  auto sql = Template::Parse("CREATE DATABASE IF NOT EXISTS {{db}};\n", "grants.sql.mustache", d, 1, 1,
                             Template::FormatOf("grants.sql.mustache"));
  REQUIRE(sql);
  CHECK(sql->format() == Template::Format::kSql);
  CHECK(sql->Render({{"db", "slurm_acct_db"}}, d) == "CREATE DATABASE IF NOT EXISTS slurm_acct_db;\n");
  CHECK_FALSE(d.has_errors());
  CHECK(sql->Render({{"db", "x; DROP DATABASE mysql; --"}}, d) == "CREATE DATABASE IF NOT EXISTS ;\n");
  CHECK(d.ToString().find("in SQL it could end the statement it is part of") != std::string::npos);
  Diagnostics raw;
  CHECK_FALSE(Template::Parse("{{&db}}", "x.sql.mustache", raw, 1, 1, Template::Format::kSql));
  CHECK(raw.ToString().find("which this SQL template may not do") != std::string::npos);
  Diagnostics raw_ldif;
  CHECK_FALSE(Template::Parse("gecos: {{&gecos}}", "x.ldif.mustache", raw_ldif, 1, 1, Template::Format::kLdif));
  CHECK(raw_ldif.ToString().find("which this LDIF template may not do") != std::string::npos);

  CHECK(Template::FormatOf("remove.sh.mustache") == Template::Format::kShell);
  CHECK(Template::UnsafeFor(Template::Format::kShell, "gpu01").empty());
  CHECK_FALSE(Template::UnsafeFor(Template::Format::kShell, "-rf").empty());
  CHECK_FALSE(Template::UnsafeFor(Template::Format::kShell, "$(id)").empty());
  CHECK_FALSE(Template::UnsafeFor(Template::Format::kShell, "a b").empty());
  CHECK(Template::FormatOf("slurm.conf.mustache") == Template::Format::kSlurm);
  CHECK(Template::FormatOf("chrony.conf.mustache") == Template::Format::kLines);
}

TEST_CASE("a value takes the syntax of its place in the file: bare, quoted or in a comment (issue 31)") {
  // Given slurm.conf with a bare value, a quoted one and a comment,
  // when a value with a space is rendered into each,
  // then only the bare one is refused, with the tag's file:line.
  Diagnostics d;
  auto t = Template::Parse("# of {{a}}\nSelectTypeParameters={{a}}\nX=\"{{a}}\"\n", "slurm.conf.mustache", d, 1, 1,
                           Template::FormatOf("slurm.conf.mustache"));
  REQUIRE(t);
  const std::string evil = "CR_Core_Memory Prolog=/tmp/evil.sh";
  t->Render({{"a", evil}}, d);
  CHECK(d.ToString().find("slurm.conf.mustache:2:22: error: the value of 'a' (CR_Core_Memory Prolog=/tmp/evil.sh) "
                          "contains a space") != std::string::npos);
  CHECK(d.ToString().find(":1:") == std::string::npos);
  CHECK(d.ToString().find(":3:") == std::string::npos);
  Diagnostics fine;
  CHECK(t->Render({{"a", "CR_Core_Memory"}}, fine) ==
        "# of CR_Core_Memory\nSelectTypeParameters=CR_Core_Memory\nX=\"CR_Core_Memory\"\n");
  CHECK_FALSE(fine.has_errors());
  // Raw insertion stays for admin text in configuration formats.
  CHECK(Template::Parse("{{&slurm_extra_config}}", "slurm.conf.mustache", d, 1, 1, Template::Format::kSlurm));
}

TEST_CASE("CheckedSlots lists what a template inserts as text, not raw or section names, with its place") {
  Diagnostics d;
  auto t = Template::Parse("{{a}} {{b.c}} {{&raw}} {{#list}}{{item?}}{{/list}} '{{a}}' \"{{{raw}}}{{a}}", "t.yml", d, 1, 1,
                           Template::Format::kYaml);
  REQUIRE(t);
  using S = Template::Slot;
  CHECK(t->CheckedSlots() == std::vector<S>{{"a", ValuePlace::kBare},
                                            {"a", ValuePlace::kDoubleQuoted},
                                            {"a", ValuePlace::kSingleQuoted},
                                            {"b", ValuePlace::kBare},
                                            {"item", ValuePlace::kBare}});
}

}  // namespace clusterctl

namespace clusterctl {

TEST_CASE("sections nested too deep are an error, not a stack overflow (a fuzz find)") {
  std::string text;
  for (int i = 0; i < 20000; ++i) text += "{{#list}}";
  for (int i = 0; i < 20000; ++i) text += "{{/list}}";
  Diagnostics diagnostics;
  CHECK_FALSE(Template::Parse(text, "deep.mustache", diagnostics, 1, 1, Template::Format::kLines));
  CHECK(diagnostics.ToString().find("nested deeper than 64 levels") != std::string::npos);
}

}  // namespace clusterctl

namespace clusterctl {
namespace {

TEST_CASE("the names a template reads: outside sections, and anywhere") {
  Diagnostics diagnostics;
  auto t = Template::Parse("a={{a.b}} {{#list}}{{name}}{{/list}}{{^flag?}}{{c}}{{/flag?}} {{! note}}", "t", diagnostics);
  REQUIRE(t);
  CHECK(t->TopLevelNames() == std::vector<std::string>{"a", "flag", "list"});
  CHECK(t->NamesAnywhere() == std::vector<std::string>{"a", "c", "flag", "list", "name"});
  auto when = WhenExpression::Parse("facts.pci.gpu_count > 0 and not nfs_rdma");
  REQUIRE(when.ok());
  CHECK(when->Names() == std::vector<std::string>{"facts", "nfs_rdma"});
}

}  // namespace
}  // namespace clusterctl
