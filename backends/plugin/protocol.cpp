#include "backends/plugin/protocol.h"

#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace kc::plugin {

void write_hello(Channel& ch, const Hello& h) {
  ch.put_string(h.error);
  if (!h.error.empty()) return;
  ch.put_string(h.name);
  ch.put_string(h.version);
  ch.put_string(h.build_flags);
  ch.put<std::uint32_t>(static_cast<std::uint32_t>(h.kernels.size()));
  for (const auto& k : h.kernels) {
    ch.put_string(k.name);
    ch.put(k.dtype);
    ch.put(k.claim_metric);
    ch.put(k.claim_bound);
    ch.put_string(k.expected_failure);
  }
  // At most kMaxNotes notes, the last saying how many more there were.
  const std::size_t shown = std::min(h.notes.size(), kMaxNotes);
  ch.put<std::uint32_t>(static_cast<std::uint32_t>(shown));
  for (std::size_t i = 0; i + 1 < shown; ++i) ch.put_string(h.notes[i]);
  if (shown > 0)
    ch.put_string(h.notes.size() == shown ? h.notes[shown - 1]
                                          : "... and " + std::to_string(h.notes.size() - shown + 1) + " more notes");
}

// (Caps a little above the worker's own: the worker cuts at a character
// boundary only after repairing, so a cut string is never longer.)
Hello read_hello(Channel& ch) {
  Hello h;
  h.error = ch.get_string(4 * kTextCap);
  if (!h.error.empty()) return h;
  h.name = ch.get_string(kNameCap);
  h.version = ch.get_string(kNameCap);
  h.build_flags = ch.get_string(kTextCap);
  const auto n = ch.get<std::uint32_t>();
  if (n > static_cast<std::uint32_t>(kMaxKernelEntries)) throw ChannelClosed("the worker sent a malformed kernel list");
  for (std::uint32_t i = 0; i < n; ++i) {
    KernelEntry k;
    k.name = ch.get_string(kNameCap);
    k.dtype = ch.get<std::int32_t>();
    k.claim_metric = ch.get<std::int32_t>();
    k.claim_bound = ch.get<double>();
    k.expected_failure = ch.get_string(kTextCap);
    h.kernels.push_back(std::move(k));
  }
  const auto notes = ch.get<std::uint32_t>();
  if (notes > kMaxNotes) throw ChannelClosed("the worker sent a malformed note list");
  for (std::uint32_t i = 0; i < notes; ++i) h.notes.push_back(ch.get_string(kTextCap));
  return h;
}

void write_fault(Channel& ch, const Fault& f) {
  ch.put(Reply::fault);
  ch.put_string(f.kind);
  ch.put(f.role);
  ch.put(f.index);
  ch.put_string(f.what);
}

// (After Reply::fault.)
Fault read_fault(Channel& ch) {
  Fault f;
  f.kind = ch.get_string(kNameCap);
  f.role = ch.get<Role>();
  f.index = ch.get<std::int32_t>();
  f.what = ch.get_string(kTextCap);
  return f;
}

void write_aftermath(Channel& ch, const Aftermath& a) {
  ch.put_string(a.printed);
  ch.put(a.printed_bytes);
  ch.put<std::uint32_t>(static_cast<std::uint32_t>(a.notes.size()));
  for (const auto& [check, what] : a.notes) {
    ch.put_string(check);
    ch.put_string(what);
  }
  ch.put(a.resident_bytes);
  ch.put<std::uint8_t>(a.retire ? 1 : 0);
}

Aftermath read_aftermath(Channel& ch) {
  Aftermath a;
  a.printed = ch.get_string(kPrintedCap);
  a.printed_bytes = ch.get<std::int64_t>();
  const auto n = ch.get<std::uint32_t>();
  if (n > 16) throw ChannelClosed("the worker sent a malformed note list");
  for (std::uint32_t i = 0; i < n; ++i) {
    std::string check = ch.get_string(kNameCap);
    a.notes.emplace_back(std::move(check), ch.get_string(kTextCap));
  }
  a.resident_bytes = ch.get<std::int64_t>();
  a.retire = ch.get<std::uint8_t>() != 0;
  return a;
}

namespace {

// A one-byte message with room for one descriptor.
struct FdMessage {
  std::uint8_t tag = 0;
  iovec io{};
  alignas(cmsghdr) char ctl[CMSG_SPACE(sizeof(int))] = {};
  msghdr m{};
  FdMessage(const FdMessage&) = delete;  // (m points into it)
  FdMessage() {
    io = {&tag, 1};
    m.msg_iov = &io;
    m.msg_iovlen = 1;
    m.msg_control = ctl;
    m.msg_controllen = sizeof ctl;
  }
};

}  // namespace

bool send_fd(int sock, std::uint8_t tag, int fd) {
  FdMessage msg;
  msg.tag = tag;
  cmsghdr* c = CMSG_FIRSTHDR(&msg.m);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN(sizeof(int));
  std::memcpy(CMSG_DATA(c), &fd, sizeof fd);
  return ::sendmsg(sock, &msg.m, MSG_NOSIGNAL) == 1;
}

bool recv_fd(int sock, std::uint8_t& tag, int& fd) {
  FdMessage msg;
  fd = -1;
  ssize_t n;
  do n = ::recvmsg(sock, &msg.m, MSG_CMSG_CLOEXEC);
  while (n < 0 && errno == EINTR);
  if (n != 1) return false;
  tag = msg.tag;
  // (the descriptor is the caller's from here: it closes it on a wrong tag)
  for (cmsghdr* c = CMSG_FIRSTHDR(&msg.m); c; c = CMSG_NXTHDR(&msg.m, c))
    if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) std::memcpy(&fd, CMSG_DATA(c), sizeof fd);
  return true;
}

}  // namespace kc::plugin
