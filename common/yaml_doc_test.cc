#include "common/yaml_doc.h"

#include <doctest/doctest.h>

#include <chrono>

namespace clusterctl {
namespace {

std::optional<YamlNode> Parse(const std::string& text, Diagnostics& diagnostics,
                              YamlLimits limits = {}) {
  return ParseYaml(text, "t.yaml", limits, diagnostics);
}

}  // namespace

TEST_CASE("ParseYaml keeps locations of keys and values") {
  Diagnostics d;
  auto root = Parse("a: 1\nb:\n  c: [x, \"y\"]\n", d);
  REQUIRE(root);
  REQUIRE(root->is_map());
  CHECK(root->key_locations[1].line == 2);
  const YamlNode* c = root->Find("b")->Find("c");
  REQUIRE(c);
  CHECK(c->location.line == 3);
  CHECK(c->location.column == 6);
  CHECK_FALSE(c->items[0].quoted);
  CHECK(c->items[1].quoted);
}

TEST_CASE("ParseYaml reports duplicate keys with both lines") {
  Diagnostics d;
  CHECK_FALSE(Parse("a: 1\nb: 2\na: 3\n", d));
  CHECK(d.ToString() == "t.yaml:3:1: error: duplicate key 'a' (first at line 1)\n");
}

TEST_CASE("ParseYaml turns syntax errors into located diagnostics") {
  Diagnostics d;
  CHECK_FALSE(Parse("a: [1, 2\nb: 3\n", d));
  CHECK(d.ToString().find("t.yaml:") == 0);
  CHECK(d.ToString().find("YAML syntax error") != std::string::npos);
}

TEST_CASE("ParseYaml rejects binary and non-UTF-8 input before parsing") {
  Diagnostics d1;
  CHECK_FALSE(Parse(std::string("a: 1\nb: \x01\x02\n"), d1));
  CHECK(d1.ToString() == "t.yaml:2:4: error: control character \\x01 in text; this looks like a binary file, not YAML\n");
  Diagnostics d2;
  CHECK_FALSE(Parse("cluster: caf\xe9\n", d2));
  CHECK(d2.ToString().find("t.yaml:1:13: error: invalid UTF-8") == 0);
}

TEST_CASE("ParseYaml bounds alias expansion (billion laughs)") {
  std::string bomb = "a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n";
  std::string previous = "a";
  for (char c = 'b'; c <= 'j'; ++c) {
    bomb += std::string(1, c) + ": &" + c + " [";
    for (int i = 0; i < 9; ++i) bomb += (i ? ", *" : "*") + previous;
    bomb += "]\n";
    previous = std::string(1, c);
  }
  Diagnostics d;
  auto start = std::chrono::steady_clock::now();
  CHECK_FALSE(Parse(bomb, d));
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(5));
  CHECK(d.ToString().find("billion laughs") != std::string::npos);
}

TEST_CASE("ParseYaml bounds nesting depth") {
  Diagnostics d;
  std::string deep(16384, '[');
  deep += std::string(16384, ']');
  CHECK_FALSE(Parse(deep, d));
  CHECK(d.ToString().find("nesting") != std::string::npos);

  Diagnostics d2;
  std::string medium(100, '[');
  medium += std::string(100, ']');
  CHECK_FALSE(Parse(medium, d2));
  CHECK(d2.ToString().find("nesting deeper than 64 levels") != std::string::npos);
}

TEST_CASE("ParseYaml refuses documents over the size limit") {
  YamlLimits limits;
  limits.max_bytes = 10;
  Diagnostics d;
  CHECK_FALSE(Parse("a: 123456789\n", d, limits));
}

TEST_CASE("ParseYaml refuses several documents in one file") {
  Diagnostics d;
  CHECK_FALSE(Parse("a: 1\n---\nb: 2\n", d));
  CHECK(d.ToString().find("more than one YAML document") != std::string::npos);
}

TEST_CASE("YamlToJson types plain scalars and keeps quoted ones as strings") {
  Diagnostics d;
  auto root = Parse("a: yes\nb: \"yes\"\nc: 42\nd: 0x10\ne: 1.5\nf: ~\ng: text\nh: '7'\n", d);
  REQUIRE(root);
  nlohmann::json j = YamlToJson(*root);
  CHECK(j["a"] == true);
  CHECK(j["b"] == "yes");
  CHECK(j["c"] == 42);
  CHECK(j["d"] == 16);
  CHECK(j["e"] == 1.5);
  CHECK(j["f"].is_null());
  CHECK(j["g"] == "text");
  CHECK(j["h"] == "7");
}

TEST_CASE("JsonToYaml round-trips through ParseYaml") {
  nlohmann::ordered_json value = {{"name", "x"}, {"port", 22}, {"quoted", "22"},
                                  {"flag", "yes"}, {"list", {"a", "b"}}};
  Diagnostics d;
  auto root = Parse(JsonToYaml(value), d);
  REQUIRE(root);
  nlohmann::json back = YamlToJson(*root);
  CHECK(back["port"] == 22);
  CHECK(back["quoted"] == "22");
  CHECK(back["flag"] == "yes");
  CHECK(back["list"][1] == "b");
}

TEST_CASE("JsonToYaml quotes every string the reader would take for another type, and writes short doubles") {
  nlohmann::ordered_json value = {{"version", "23.10"}, {"exp", "1e3"},  {"hex", "0x10"},  {"zero", "010"},
                                  {"null", "NULL"},     {"tilde", "~"},  {"on", "On"},     {"empty", ""},
                                  {"real", 23.1},       {"plain", "23.02.7"}};
  std::string yaml = JsonToYaml(value);
  CHECK(yaml.find("real: 23.1\n") != std::string::npos);
  CHECK(yaml.find("plain: 23.02.7\n") != std::string::npos);
  Diagnostics d;
  auto root = Parse(yaml, d);
  REQUIRE(root);
  nlohmann::json back = YamlToJson(*root);
  for (const char* key : {"version", "exp", "hex", "zero", "null", "tilde", "on", "empty", "plain"}) {
    CAPTURE(key);
    CHECK(back[key] == value[key]);
  }
  CHECK(back["real"] == 23.1);
}

TEST_CASE("ParseYaml reads Ansible's !vault and !unsafe only when asked") {
  const std::string text = "secret: !vault |\n  $ANSIBLE_VAULT;1.1;AES256\n  6162\nraw: !unsafe '{{ x }}'\n";
  Diagnostics refused;
  CHECK_FALSE(Parse(text, refused));
  CHECK(refused.ToString().find("unsupported YAML tag '!vault'") != std::string::npos);
  YamlLimits ansible;
  ansible.ansible_tags = true;
  Diagnostics d;
  auto root = Parse(text, d, ansible);
  REQUIRE(root);
  CHECK(root->Find("secret")->vault);
  CHECK(root->Find("raw")->quoted);
  CHECK_FALSE(root->Find("raw")->vault);
}

TEST_CASE("text yaml-cpp 0.7 loops on forever is refused at once (fuzz/role_file_fuzz found it: 2.6 GB in 10 s)") {
  for (const char* text : {",\n", "  , name: unit\n", "# comment\t\t\t:\n  , name: unit\n    x\n"}) {
    CAPTURE(text);
    Diagnostics d;
    CHECK_FALSE(ParseYaml(text, "f.yaml", YamlLimits{}, d));
    CHECK(d.ToString().find("f.yaml:") == 0);
    CHECK(d.ToString().find("YAML syntax error: cannot read this") != std::string::npos);
  }
  Diagnostics empty;
  auto comments = ParseYaml("# only a comment\n---\n", "f.yaml", YamlLimits{}, empty);
  REQUIRE(comments);
  CHECK(comments->is_null());
  Diagnostics two;
  CHECK_FALSE(ParseYaml("a: 1\n---\n,\n", "f.yaml", YamlLimits{}, two));
  CHECK(two.ToString().find("f.yaml:3:1: error: more than one YAML document") != std::string::npos);
}

}  // namespace clusterctl
