// Row mapping: how the state's records meet SQL, in one place. Values bind
// to parameters ?1..?N and columns 0..N-1 read into fields by their C++ type:
//
//   bool                         INTEGER 0/1 (read: non-zero is true)
//   other integers               INTEGER
//   std::string, string_view,
//   const char*                  TEXT
//   SqlBlob                      BLOB
//   an outcome enum              TEXT: its stored word (stored_words.h; read:
//                                an unknown word is an error)
//   std::optional<T>             T, or NULL when empty (read: NULL is empty)
//
// A NULL read into a plain field gives SQLite's conversion (0, ""); fields
// whose column may be NULL are optionals. JSON columns bind as JsonText(...)
// and are parsed where they are read, since each says differently what a
// malformed document means.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "common/status.h"
#include "controller/state/sqlite.h"
#include "controller/state/stored_words.h"

namespace clusterctl {

// Bytes stored as a BLOB (a file's backup), not as TEXT.
struct SqlBlob {
  std::string_view bytes;
};

namespace row_mapping_internal {

template <typename T>
struct IsOptional : std::false_type {};
template <typename T>
struct IsOptional<std::optional<T>> : std::true_type {};

// A row reader's answer: a row, or Result<row> when reading may fail.
template <typename T>
struct RowOf {
  using type = T;
  static constexpr bool kFallible = false;
};
template <typename T>
struct RowOf<Result<T>> {
  using type = T;
  static constexpr bool kFallible = true;
};
template <typename ReadRow>
using RowAnswer = std::invoke_result_t<ReadRow&, const SqliteStatement&>;

template <typename T>
void BindValue(SqliteStatement& statement, int index, const T& value) {
  if constexpr (IsOptional<T>::value) {
    if (value) {
      BindValue(statement, index, *value);
    } else {
      statement.BindNull(index);
    }
  } else if constexpr (std::is_same_v<T, bool>) {
    statement.Bind(index, int64_t{value ? 1 : 0});
  } else if constexpr (std::is_integral_v<T>) {
    statement.Bind(index, static_cast<int64_t>(value));
  } else if constexpr (std::is_same_v<T, SqlBlob>) {
    statement.BindBlob(index, value.bytes);
  } else if constexpr (std::is_enum_v<T>) {
    statement.Bind(index, StoredWord(value));
  } else {
    statement.Bind(index, std::string_view(value));
  }
}

template <typename T>
Status ReadColumn(const SqliteStatement& row, int column, T& field) {
  if constexpr (IsOptional<T>::value) {
    if (row.IsNull(column)) {
      field.reset();
    } else {
      typename T::value_type value{};
      Status read = ReadColumn(row, column, value);
      field = std::move(value);
      return read;
    }
  } else if constexpr (std::is_same_v<T, bool>) {
    field = row.Int64(column) != 0;
  } else if constexpr (std::is_integral_v<T>) {
    field = static_cast<T>(row.Int64(column));
  } else if constexpr (std::is_enum_v<T>) {
    return FromStoredWord(row.Text(column), field);
  } else {
    static_assert(std::is_same_v<T, std::string>, "a column reads into an integer, bool, string, enum or optional");
    field = row.Text(column);
  }
  return Status::Ok();
}

}  // namespace row_mapping_internal

// Binds `values` to the parameters ?1..?N, in order.
template <typename... T>
void BindValues(SqliteStatement& statement, const T&... values) {
  int index = 0;
  (row_mapping_internal::BindValue(statement, ++index, values), ...);
}

// Reads the row's columns 0..N-1 into `fields`, in order. Every column is
// read; the answer is the first enum column's unknown stored word
// (Corruption), so a row without enum columns always reads.
template <typename... T>
Status ReadColumns(const SqliteStatement& row, T&... fields) {
  int column = 0;
  Status first;
  (
      [&] {
        Status read = row_mapping_internal::ReadColumn(row, column++, fields);
        if (first.ok()) first = std::move(read);
      }(),
      ...);
  return first;
}

// Runs a prepared statement again with new values (one row of a batch).
template <typename... T>
Status RunWith(SqliteStatement& statement, const T&... values) {
  statement.Reset();
  BindValues(statement, values...);
  return statement.Run();
}

// Prepares `sql` and runs it once with `values`; for statements that return no rows.
template <typename... T>
Status ExecuteSql(SqliteDb& db, std::string_view sql, const T&... values) {
  Result<SqliteStatement> statement = db.Prepare(sql);
  if (!statement.ok()) return statement.status();
  return RunWith(*statement, values...);
}

// Prepares `sql`, binds `values` and calls on_row(row) at each result row;
// on_row reads the row's columns (ReadColumns). An on_row that returns a
// Status stops the query at its first error, which is returned.
template <typename OnRow, typename... T>
Status ForEachRow(SqliteDb& db, std::string_view sql, OnRow&& on_row, const T&... values) {
  Result<SqliteStatement> query = db.Prepare(sql);
  if (!query.ok()) return query.status();
  BindValues(*query, values...);
  const SqliteStatement& row = *query;
  while (true) {
    Result<bool> more = query->Step();
    if (!more.ok()) return more.status();
    if (!*more) return Status::Ok();
    if constexpr (std::is_same_v<std::invoke_result_t<OnRow&, const SqliteStatement&>, Status>) {
      CLUSTERCTL_RETURN_IF_ERROR(on_row(row));
    } else {
      on_row(row);
    }
  }
}

// The rows of a query, each mapped by read_row(row). A read_row that
// answers Result<Row> stops the query at its first error, which is returned.
template <typename ReadRow, typename... T>
auto SelectRows(SqliteDb& db, std::string_view sql, ReadRow&& read_row, const T&... values)
    -> Result<std::vector<typename row_mapping_internal::RowOf<row_mapping_internal::RowAnswer<ReadRow>>::type>> {
  using Answer = row_mapping_internal::RowOf<row_mapping_internal::RowAnswer<ReadRow>>;
  std::vector<typename Answer::type> rows;
  Status read = ForEachRow(
      db, sql,
      [&](const SqliteStatement& row) -> Status {
        if constexpr (Answer::kFallible) {
          auto answer = read_row(row);
          if (!answer.ok()) return answer.status();
          rows.push_back(std::move(answer).value());
        } else {
          rows.push_back(read_row(row));
        }
        return Status::Ok();
      },
      values...);
  if (!read.ok()) return read;
  return rows;
}

}  // namespace clusterctl
