// The byte stream between kconform and its plug-in worker process: a Unix
// socket pair, framing of plain values (both ends are the same executable,
// so native endianness and sizes). Reads and writes never raise SIGPIPE; a
// closed peer is an error the caller handles. On kconform's side a wait
// has a deadline, ends when the worker's supervisor reports the worker
// dead (`watch`), and gives up within 100 ms of a stop request (a signal).
#pragma once

#include <chrono>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace kc::plugin {

// The peer closed the stream (or died), or a read passed its deadline.
struct ChannelClosed : std::runtime_error {
  using std::runtime_error::runtime_error;
};
struct ChannelTimeout : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class Channel {
 public:
  using Clock = std::chrono::steady_clock;
  explicit Channel(int fd) : fd_(fd) {}
  // The channel owns its end of the socket: closing it is how the worker
  // learns kconform is done with it (it reads EOF and exits).
  ~Channel();
  Channel(const Channel&) = delete;
  Channel& operator=(const Channel&) = delete;
  int fd() const { return fd_; }
  // Reads and writes give up at `deadline` (ChannelTimeout); none: wait forever.
  void set_deadline(Clock::time_point deadline) { deadline_ = deadline; has_deadline_ = true; }
  void clear_deadline() { has_deadline_ = false; }
  // A descriptor that becomes readable when the peer is dead: with no data
  // left to read, a wait ends as ChannelClosed.
  void watch(int fd) { watch_fd_ = fd; }
  // Waits also end on a stop request (kc::stop_signal), as kc::Interrupted.
  void stop_on_signal(bool on) { stop_on_signal_ = on; }

  // Waits until a read would not block, as a read waits (the deadline, the
  // watched descriptor, a stop request): before a recvmsg of a descriptor.
  void wait_readable();

  void write_bytes(std::span<const std::byte> b);
  void read_bytes(std::span<std::byte> b);

  template <class T>
  void put(const T& v) {
    write_bytes(std::as_bytes(std::span<const T>(&v, 1)));
  }
  template <class T>
  T get() {
    T v{};
    read_bytes(std::as_writable_bytes(std::span<T>(&v, 1)));
    return v;
  }
  void put_string(const std::string& s);
  std::string get_string(std::size_t max = 1 << 20);
  void put_blob(std::span<const std::byte> b);
  std::vector<std::byte> get_blob(std::size_t max);

 private:
  bool waits() const;  // false: plain blocking calls (the worker's side)
  // Waits until fd_ is ready for `events`; throws as the class comment says.
  void wait_for(short events);

  int fd_;
  int watch_fd_ = -1;
  bool has_deadline_ = false;
  bool stop_on_signal_ = false;
  Clock::time_point deadline_{};
};

}  // namespace kc::plugin
