#include "common/sha256.h"

#include <doctest/doctest.h>

namespace clusterctl {

TEST_CASE("SHA-256 matches the FIPS 180-4 examples and is chunking-independent") {
  CHECK(Sha256Hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  CHECK(Sha256Hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  CHECK(Sha256Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") ==
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  std::string million(1'000'000, 'a');
  CHECK(Sha256Hex(million) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
  Sha256 pieces;
  for (size_t i = 0; i < million.size(); i += 997) pieces.Update(std::string_view(million).substr(i, 997));
  CHECK(pieces.HexDigest() == Sha256Hex(million));
}

}  // namespace clusterctl
