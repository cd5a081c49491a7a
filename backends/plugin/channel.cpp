#include "backends/plugin/channel.h"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

namespace kc::plugin {

Channel::~Channel() {
  if (fd_ >= 0) ::close(fd_);
}

void Channel::write_bytes(std::span<const std::byte> b) {
  std::size_t done = 0;
  while (done < b.size()) {
    const ssize_t n = ::send(fd_, b.data() + done, b.size() - done, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw ChannelClosed(std::string("the worker's stream is closed: ") + std::strerror(errno));
    done += static_cast<std::size_t>(n);
  }
}

void Channel::read_bytes(std::span<std::byte> b) {
  using clock = std::chrono::steady_clock;
  const auto deadline = clock::now() + std::chrono::milliseconds(timeout_ms_ < 0 ? 0 : timeout_ms_);
  std::size_t done = 0;
  while (done < b.size()) {
    if (timeout_ms_ >= 0) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - clock::now()).count();
      if (left <= 0) throw ChannelTimeout("no answer within the time limit");
      pollfd p{fd_, POLLIN, 0};
      const int r = ::poll(&p, 1, static_cast<int>(left));
      if (r < 0 && errno == EINTR) continue;
      if (r == 0) throw ChannelTimeout("no answer within the time limit");
    }
    const ssize_t n = ::recv(fd_, b.data() + done, b.size() - done, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw ChannelClosed("the worker's stream closed");
    done += static_cast<std::size_t>(n);
  }
}

void Channel::put_string(const std::string& s) { put_blob(std::as_bytes(std::span<const char>(s.data(), s.size()))); }

std::string Channel::get_string(std::size_t max) {
  const auto b = get_blob(max);
  return {reinterpret_cast<const char*>(b.data()), b.size()};
}

void Channel::put_blob(std::span<const std::byte> b) {
  put<std::uint64_t>(b.size());
  write_bytes(b);
}

std::vector<std::byte> Channel::get_blob(std::size_t max) {
  const auto n = get<std::uint64_t>();
  if (n > max) throw ChannelClosed("the worker sent a malformed message");
  std::vector<std::byte> b(n);
  read_bytes(b);
  return b;
}

}  // namespace kc::plugin
