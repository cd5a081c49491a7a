// The byte stream between kconform and its plug-in worker process: a Unix
// socket pair, length-free framing of plain values (both ends are the same
// executable, so native endianness and sizes). Reads and writes never raise
// SIGPIPE; a closed peer is an error the caller handles.
#pragma once

#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace kc::plugin {

// The peer closed the stream, or a read timed out.
struct ChannelClosed : std::runtime_error {
  using std::runtime_error::runtime_error;
};
struct ChannelTimeout : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class Channel {
 public:
  explicit Channel(int fd) : fd_(fd) {}
  // The channel owns its end of the socket: closing it is how the worker
  // learns kconform is done with it (it reads EOF and exits). Without this
  // every plug-in run waited out Worker::stop's full second and killed a
  // worker that was still waiting for a call, and every restart after a
  // crash leaked a descriptor.
  ~Channel();
  Channel(const Channel&) = delete;
  Channel& operator=(const Channel&) = delete;
  int fd() const { return fd_; }
  // Reads give up when no byte arrives for `timeout_ms` (< 0: wait forever).
  void set_timeout_ms(int ms) { timeout_ms_ = ms; }

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
  int fd_;
  int timeout_ms_ = -1;
};

}  // namespace kc::plugin
