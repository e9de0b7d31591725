#include "common/strings.h"

#include <doctest/doctest.h>

namespace clusterctl {

TEST_CASE("IsAlnumOr: letters, digits and the allowed bytes only, never empty") {
  CHECK(IsAlnumOr("/export/home-2", "/-"));
  CHECK_FALSE(IsAlnumOr("/home x", "/"));
  CHECK_FALSE(IsAlnumOr("rw\nfoo", ","));
  CHECK_FALSE(IsAlnumOr("", "/"));
}

TEST_CASE("ASCII case conversion") {
  CHECK(AsciiLower("IDLE+Drain_1") == "idle+drain_1");
  CHECK(AsciiUpper("not_responding") == "NOT_RESPONDING");
}

TEST_CASE("DidYouMean suggests a close key and nothing for an unrelated word") {
  std::vector<std::string> keys = {"address", "addresses", "vars", "connection"};
  CHECK(DidYouMean("adress", keys) == " (did you mean 'address'?)");
  CHECK(DidYouMean("conection", keys) == " (did you mean 'connection'?)");
  CHECK(DidYouMean("banana", keys).empty());
  CHECK(DidYouMean("var", keys) == " (did you mean 'vars'?)");
  // Swapped neighbours are one edit, the commonest typo of short words.
  CHECK(EditDistance("tpye", "type") == 1);
  CHECK(ShortNumber(1) == "1");
  CHECK(ShortNumber(0.5) == "0.5");
  CHECK(ShortNumber(65520) == "65520");
  CHECK(ShortNumber(0.000001) == "1e-06");
  CHECK(EditDistance("ab", "ba") == 1);
  CHECK(EditDistance("abc", "ca") == 3);  // optimal string alignment, not full Damerau (2)
  CHECK(DidYouMean("rdam", {"rdma", "hosts"}) == " (did you mean 'rdma'?)");
  CHECK(DidYouMean("slurm_acocunting", {"slurm_accounting"}) == " (did you mean 'slurm_accounting'?)");
}

TEST_CASE("ClosestMatch agrees with EditDistance and picks the first closest candidate") {
  const std::vector<std::string> names = {"node01", "node10", "gpu001", "head", "nodeX1"};
  for (std::string word : {"node1", "node01", "noed01", "gpu01", "hed", "heads", "xx", "node011", "nodeX", "ndoe01", "ehad"}) {
    const size_t limit = word.size() <= 4 ? 1 : 2;
    std::optional<std::string> expected;
    size_t best = limit + 1;
    for (const std::string& name : names) {
      if (EditDistance(word, name) < best) {
        best = EditDistance(word, name);
        expected = name;
      }
    }
    CAPTURE(word);
    CHECK(ClosestMatch(word, names) == expected);
  }
}

TEST_CASE("ClosestMatch of a long word against many long candidates stays within the typo limit") {
  // Every candidate but one differs from the word in each character (the
  // bounded distance gives up after three rows) or in length beyond the
  // limit (not compared at all); the one left differs by one substitution.
  std::vector<std::string> candidates(20000, std::string(4000, 'x'));
  for (size_t i = 0; i < 1000; ++i) candidates[i] = std::string(4003 + i, 'a');
  candidates.push_back(std::string(3999, 'a') + "b");
  const std::string word = std::string(3999, 'a') + "c";
  CHECK(ClosestMatch(word, candidates) == std::string(3999, 'a') + "b");
  CHECK_FALSE(ClosestMatch(std::string(4000, 'z'), candidates).has_value());
}

TEST_CASE("FindInvalidUtf8 finds the first bad byte") {
  CHECK_FALSE(FindInvalidUtf8("plain ascii").has_value());
  CHECK_FALSE(FindInvalidUtf8("gr\xc3\xbc\xc3\x9f \xe2\x82\xac \xf0\x9f\x98\x80").has_value());
  CHECK(FindInvalidUtf8("ab\xff").value() == 2);
  CHECK(FindInvalidUtf8("a\xc0\x80").value() == 1);          // overlong NUL
  CHECK(FindInvalidUtf8("a\xed\xa0\x80").value() == 1);      // UTF-16 surrogate
  CHECK(FindInvalidUtf8("a\xf4\x90\x80\x80").value() == 1);  // above U+10FFFF
  CHECK(FindInvalidUtf8("abc\xe2\x82").value() == 3);        // truncated sequence
}

TEST_CASE("LineColumnAt counts lines and columns from 1") {
  std::string text = "ab\ncd\nef";
  CHECK(LineColumnAt(text, 0).line == 1);
  CHECK(LineColumnAt(text, 4).line == 2);
  CHECK(LineColumnAt(text, 4).column == 2);
}

TEST_CASE("Split keeps empty fields and Trim strips whitespace") {
  CHECK(Split("a,,b", ',') == std::vector<std::string>{"a", "", "b"});
  CHECK(Trim("  x y \n") == "x y");
  CHECK(Trim("   ").empty());
}

TEST_CASE("Printable escapes non-printing bytes and truncates") {
  CHECK(Printable("a\x01z") == "a\\x01z");
  CHECK(Printable(std::string(100, 'x'), 5) == "xxxxx...");
}

}  // namespace clusterctl

namespace clusterctl {

TEST_CASE("GlobMatch matches * and ?") {
  CHECK(GlobMatch("slurm*", "slurmd"));
  CHECK(GlobMatch("slurm*", "slurm"));
  CHECK(GlobMatch("gpu0?", "gpu07"));
  CHECK_FALSE(GlobMatch("gpu0?", "gpu107"));
  CHECK(GlobMatch("*-ib0", "gpu01-ib0"));
  CHECK_FALSE(GlobMatch("nvidia*", "libnvidia-ml1"));
}

TEST_CASE("a UTF-8 prefix never ends inside a character") {
  const std::string text = "ab\xc3\xa9\xe2\x82\xac";  // a b é €
  CHECK(Utf8Prefix(text, 100) == text);
  CHECK(Utf8Prefix(text, 4) == "ab\xc3\xa9");
  CHECK(Utf8Prefix(text, 3) == "ab");
  CHECK(Utf8Prefix(text, 5) == "ab\xc3\xa9");
  CHECK(Utf8Prefix(text, 6) == "ab\xc3\xa9");
  CHECK(Utf8Prefix(text, 0).empty());
  CHECK_FALSE(FindInvalidUtf8(Utf8Prefix(text, 3)));
}

TEST_CASE("NormalizeGuid reads the GUID forms of ibstat, ibv_devinfo, sysfs and GIDs") {
  CHECK(NormalizeGuid("0x946dae0300cde72c") == "0x946dae0300cde72c");
  CHECK(NormalizeGuid("7cfe:9003:00a5:95c0") == "0x7cfe900300a595c0");
  CHECK(NormalizeGuid("fe80:0000:0000:0000:0C42:a103:0003:1234\n") == "0x0c42a10300031234");
  CHECK(NormalizeGuid("").empty());
  CHECK(NormalizeGuid("0x12").empty());
  CHECK(NormalizeGuid("zz80:0000:0000:0000").empty());
}

}  // namespace clusterctl
