#include "inventory/address.h"

#include <doctest/doctest.h>

namespace clusterctl {

TEST_CASE("CheckHostAddress accepts IPs and host names, rejects broken dotted quads") {
  CHECK_FALSE(CheckHostAddress("10.0.0.1"));
  CHECK_FALSE(CheckHostAddress("fd00::1"));
  CHECK_FALSE(CheckHostAddress("gpu01.cluster.example.org"));
  CHECK(*CheckHostAddress("10.0.0.300") == "not a valid IPv4 address");
  CHECK(*CheckHostAddress("10.0.0") == "not a valid IPv4 address");
  CHECK(*CheckHostAddress("fd00:::1") == "not a valid IPv6 address");
  CHECK(CheckHostAddress("bad host").value().find("not a valid host name") == 0);
  CHECK(CheckHostAddress("-lead.example").has_value());
  CHECK(*CheckHostAddress("") == "empty address");
}

TEST_CASE("CheckInterfaceAddress validates the prefix length") {
  CHECK_FALSE(CheckInterfaceAddress("10.10.0.1/16"));
  CHECK_FALSE(CheckInterfaceAddress("10.10.0.1"));
  CHECK_FALSE(CheckInterfaceAddress("fd00::1/64"));
  CHECK(*CheckInterfaceAddress("10.10.0.1/33") == "prefix length '/33' must be 0-32");
  CHECK(*CheckInterfaceAddress("10.10.0.1/") == "prefix length '/' must be 0-32");
  CHECK(*CheckInterfaceAddress("ib0.example/16") == "'ib0.example' is not a valid IP address");
}

TEST_CASE("CheckHostName rejects characters that could reach a shell or break slurm.conf") {
  CHECK_FALSE(CheckHostName("gpu001"));
  CHECK(CheckHostName("gpu;rm").has_value());
  CHECK(CheckHostName("gpu$(x)").has_value());
  CHECK(CheckHostName("a..b").has_value());
  CHECK(CheckHostName(std::string(64, 'a')).has_value());
}

}  // namespace clusterctl

namespace clusterctl {

TEST_CASE("IPoIB names: a parent, or a P_Key child with its parent and key") {
  auto child = ParseIpoibName("ib0.8001");
  REQUIRE(child);
  CHECK(child->parent == "ib0");
  CHECK(child->pkey == "0x8001");
  auto parent = ParseIpoibName("ib12");
  REQUIRE(parent);
  CHECK(parent->pkey.empty());
  CHECK(ParseIpoibName("ib0.80FF")->pkey == "0x80ff");
  CHECK_FALSE(ParseIpoibName("eth0"));
  CHECK_FALSE(ParseIpoibName("ib0.8"));
}

}  // namespace clusterctl
