#include "inventory/ini_value.h"

#include <doctest/doctest.h>

namespace clusterctl {

TEST_CASE("INI values stay strings unless they are plainly integers or booleans") {
  // Versions, floats, exponents, hex, octal and zero-padded numbers keep their text.
  for (const char* text : {"23.10", "1e3", "0x10", "010", "007", "1.0", "+5", "on", "off", "y", "1_000",
                           "22.05.8-4+deb12u3", "99999999999999999999", ""}) {
    CAPTURE(text);
    CHECK(IniValue(text) == nlohmann::json(text));
  }
}

TEST_CASE("quoted INI values lose their quotes and stay strings") {
  CHECK(IniValue("\"007\"") == "007");
  CHECK(IniValue("'23.10'") == "23.10");
  CHECK(IniValue("\"yes\"") == "yes");
  CHECK(IniValue("'42'") == "42");
  CHECK(IniValue("\"a b\"") == "a b");
  CHECK(IniValue("\"unbalanced'") == "\"unbalanced'");
}

TEST_CASE("true/false/yes/no in any case are booleans; plain decimal integers are integers") {
  CHECK(IniValue("true") == true);
  CHECK(IniValue("True") == true);
  CHECK(IniValue("YES") == true);
  CHECK(IniValue("no") == false);
  CHECK(IniValue("False") == false);
  CHECK(IniValue("0") == 0);
  CHECK(IniValue("22") == 22);
  CHECK(IniValue("-5") == -5);
  CHECK(IniValue(" 2222 ") == 2222);
  CHECK(IniValue("9223372036854775807") == 9223372036854775807LL);
}

}  // namespace clusterctl
