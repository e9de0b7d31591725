#include "controller/daemon/sd_notify.h"

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstddef>
#include <cstdlib>
#include <cstring>

namespace clusterctl {

bool NotifySystemd(const std::string& state) {
  const char* socket_path = std::getenv("NOTIFY_SOCKET");
  if (!socket_path || !*socket_path) return true;
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  const size_t length = std::strlen(socket_path);
  if ((socket_path[0] != '/' && socket_path[0] != '@') || length >= sizeof address.sun_path) return false;
  std::memcpy(address.sun_path, socket_path, length);
  if (address.sun_path[0] == '@') address.sun_path[0] = '\0';
  const int fd = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  const socklen_t size = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + length);
  const bool sent = ::sendto(fd, state.data(), state.size(), MSG_NOSIGNAL, reinterpret_cast<sockaddr*>(&address), size) ==
                    static_cast<ssize_t>(state.size());
  ::close(fd);
  return sent;
}

}  // namespace clusterctl
