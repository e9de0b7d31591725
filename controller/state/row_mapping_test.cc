#include "controller/state/row_mapping.h"

#include <doctest/doctest.h>

namespace clusterctl {
namespace {

std::unique_ptr<SqliteDb> MemoryDb() {
  auto db = SqliteDb::Open(":memory:", SqliteDb::Mode::kReadWriteCreate);
  REQUIRE(db.ok());
  REQUIRE((*db)->Exec("CREATE TABLE t (i INTEGER, b INTEGER, s TEXT, o TEXT, n INTEGER, blob BLOB)").ok());
  return std::move(db).value();
}

}  // namespace

TEST_CASE("row mapping binds and reads by type: integers, bool, text, blob, and NULL as an empty optional") {
  std::unique_ptr<SqliteDb> db = MemoryDb();
  const std::string bytes("a\0b", 3);
  REQUIRE(ExecuteSql(*db, "INSERT INTO t VALUES (?, ?, ?, ?, ?, ?)", 42, true, "text", std::optional<std::string>(),
                     std::optional<int64_t>(7), SqlBlob{bytes})
              .ok());

  auto rows = SelectRows(*db, "SELECT i, b, s, o, n, blob, typeof(o), typeof(blob) FROM t WHERE i = ?",
                         [](const SqliteStatement& row) {
                           int i = 0;
                           bool b = false;
                           std::string s, blob, o_type, blob_type;
                           std::optional<std::string> o = "not read";
                           std::optional<int64_t> n;
                           ReadColumns(row, i, b, s, o, n, blob, o_type, blob_type);
                           CHECK(i == 42);
                           CHECK(b);
                           CHECK(s == "text");
                           CHECK(!o.has_value());
                           CHECK(n == 7);
                           CHECK(blob == std::string("a\0b", 3));
                           CHECK(o_type == "null");
                           CHECK(blob_type == "blob");
                           return i;
                         },
                         int64_t{42});
  REQUIRE(rows.ok());
  CHECK(rows->size() == 1);
}

TEST_CASE("ForEachRow stops at the first error its row reader returns") {
  std::unique_ptr<SqliteDb> db = MemoryDb();
  auto insert = db->Prepare("INSERT INTO t (i) VALUES (?)");
  REQUIRE(insert.ok());
  for (int i = 1; i <= 3; ++i) REQUIRE(RunWith(*insert, i).ok());

  int seen = 0;
  Status read = ForEachRow(*db, "SELECT i FROM t ORDER BY i", [&](const SqliteStatement& row) {
    ++seen;
    int i = 0;
    ReadColumns(row, i);
    return i == 2 ? Status::Corruption("row 2") : Status::Ok();
  });
  CHECK(read.code() == Status::Code::kCorruption);
  CHECK(seen == 2);
}

TEST_CASE("a failing statement is an error, not an empty result") {
  std::unique_ptr<SqliteDb> db = MemoryDb();
  CHECK(!SelectRows(*db, "SELECT nope FROM t", [](const SqliteStatement& row) { return row.Int64(0); }).ok());
  CHECK(!ExecuteSql(*db, "INSERT INTO missing VALUES (?)", 1).ok());
}

}  // namespace clusterctl
