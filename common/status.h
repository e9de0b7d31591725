// Status and Result<T>: errors as values at module boundaries.
//
// Exceptions thrown by third-party libraries (yaml-cpp, SQLite wrappers, Asio)
// are caught in the one adapter that uses the library and converted to a
// Status there; everything above the adapters passes Status/Result values.
#pragma once

#include <cassert>
#include <string>
#include <utility>
#include <variant>

namespace clusterctl {

class Status {
 public:
  enum class Code {
    kOk,
    kInvalidArgument,     // bad input from a user: inventory, role, flag
    kNotFound,
    kAlreadyExists,
    kIoError,             // the OS refused a file or socket operation
    kCorruption,          // stored data does not parse
    kBusy,                // another process holds a lock
    kUnavailable,         // a host or service could not be reached
    kTimeout,
    kPermissionDenied,
    kFailedPrecondition,  // the world is not in a state that allows the request
    kUnsupported,
    kCancelled,           // the run was asked to stop (Ctrl-C, SIGTERM, an API call)
    kInternal,
  };

  Status() = default;
  static Status Ok() { return Status(); }
  static Status InvalidArgument(std::string m) { return {Code::kInvalidArgument, std::move(m)}; }
  static Status NotFound(std::string m) { return {Code::kNotFound, std::move(m)}; }
  static Status AlreadyExists(std::string m) { return {Code::kAlreadyExists, std::move(m)}; }
  static Status IoError(std::string m) { return {Code::kIoError, std::move(m)}; }
  static Status Corruption(std::string m) { return {Code::kCorruption, std::move(m)}; }
  static Status Busy(std::string m) { return {Code::kBusy, std::move(m)}; }
  static Status Unavailable(std::string m) { return {Code::kUnavailable, std::move(m)}; }
  static Status Timeout(std::string m) { return {Code::kTimeout, std::move(m)}; }
  static Status PermissionDenied(std::string m) { return {Code::kPermissionDenied, std::move(m)}; }
  static Status FailedPrecondition(std::string m) { return {Code::kFailedPrecondition, std::move(m)}; }
  static Status Unsupported(std::string m) { return {Code::kUnsupported, std::move(m)}; }
  static Status Cancelled(std::string m) { return {Code::kCancelled, std::move(m)}; }
  static Status Internal(std::string m) { return {Code::kInternal, std::move(m)}; }

  bool ok() const { return code_ == Code::kOk; }
  Code code() const { return code_; }
  const std::string& message() const { return message_; }

  // Returns a copy whose message is prefixed with `context: `.
  Status WithContext(const std::string& context) const {
    if (ok()) return *this;
    return Status(code_, context + ": " + message_);
  }

 private:
  Status(Code code, std::string message) : code_(code), message_(std::move(message)) {}

  Code code_ = Code::kOk;
  std::string message_;
};

// Result<T> holds either a value or a non-ok Status.
template <class T>
class Result {
 public:
  Result(T value) : data_(std::move(value)) {}  // NOLINT: implicit by design
  Result(Status status) : data_(std::move(status)) {  // NOLINT: implicit by design
    assert(!std::get<Status>(data_).ok() && "Result needs a value or an error");
  }

  bool ok() const { return std::holds_alternative<T>(data_); }
  const Status& status() const {
    static const Status kOk;
    return ok() ? kOk : std::get<Status>(data_);
  }

  // REQUIRES: ok()
  T& value() & { return std::get<T>(data_); }
  const T& value() const& { return std::get<T>(data_); }
  T&& value() && { return std::get<T>(std::move(data_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

 private:
  std::variant<T, Status> data_;
};

}  // namespace clusterctl

// Propagates a non-ok Status from an expression returning Status.
#define CLUSTERCTL_RETURN_IF_ERROR(expr)          \
  do {                                            \
    ::clusterctl::Status status_macro_ = (expr);  \
    if (!status_macro_.ok()) return status_macro_; \
  } while (0)
