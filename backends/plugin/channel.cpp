#include "backends/plugin/channel.h"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "core/error.h"
#include "core/stop.h"

namespace kc::plugin {

Channel::~Channel() {
  if (fd_ >= 0) ::close(fd_);
}

bool Channel::waits() const { return has_deadline_ || watch_fd_ >= 0 || stop_on_signal_; }

void Channel::wait_for(short events) {
  if (!waits()) return;  // (the worker's side: the call blocks)
  for (;;) {
    // Slices of at most 100 ms: a stop request that arrives between two
    // checks is seen within one slice, whatever the deadline.
    int slice = 100;
    if (has_deadline_) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline_ - Clock::now()).count();
      if (left <= 0) throw ChannelTimeout("no answer within the time limit");
      slice = static_cast<int>(std::min<long long>(slice, left));
    }
    if (stop_on_signal_ && kc::stop_signal().load() != 0) throw Interrupted("stopped by a signal");
    pollfd p[2] = {{fd_, events, 0}, {watch_fd_, POLLIN, 0}};
    const int r = ::poll(p, watch_fd_ >= 0 ? 2 : 1, slice);
    if (r < 0 && errno != EINTR) throw ChannelClosed(std::string("poll failed: ") + std::strerror(errno));
    if (r <= 0) continue;
    if (p[0].revents != 0) return;  // ready, or closed (the read or write says which)
    if (p[1].revents != 0) throw ChannelClosed("the worker died");
  }
}

void Channel::wait_readable() { wait_for(POLLIN); }

void Channel::write_bytes(std::span<const std::byte> b) {
  std::size_t done = 0;
  while (done < b.size()) {
    wait_for(POLLOUT);
    const ssize_t n = ::send(fd_, b.data() + done, b.size() - done, MSG_NOSIGNAL | (waits() ? MSG_DONTWAIT : 0));
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n <= 0) throw ChannelClosed(std::string("the stream is closed: ") + std::strerror(errno));
    done += static_cast<std::size_t>(n);
  }
}

void Channel::read_bytes(std::span<std::byte> b) {
  std::size_t done = 0;
  while (done < b.size()) {
    wait_for(POLLIN);
    const ssize_t n = ::recv(fd_, b.data() + done, b.size() - done, waits() ? MSG_DONTWAIT : 0);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n < 0 && errno == EBADF) throw ChannelClosed("the connection's descriptor is closed");
    if (n <= 0) throw ChannelClosed("the stream closed");
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
