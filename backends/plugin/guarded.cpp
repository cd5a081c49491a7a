#include "backends/plugin/guarded.h"

#include <signal.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>

#include <fmt/format.h>

namespace kc::plugin {

namespace {

constexpr std::size_t kPage = 4096;
constexpr auto kCanary = std::byte{0xC3};

// The handler's view of the live buffers: plain atomics in a fixed table
// (no allocation, readable from a signal handler in any thread).
struct Region {
  std::atomic<std::uintptr_t> lo{0}, hi{0};            // the whole mapping, guards included
  std::atomic<std::uintptr_t> data{0}, size{0};
  std::atomic<std::int32_t> role{0}, index{-1};
  std::atomic<bool> used{false};
  std::atomic<bool> earlier{false};  // a buffer of an earlier call, kept inaccessible
};
constexpr int kSlots = 512;
Region g_regions[kSlots];
std::atomic<int> g_phase{0};
// Who writes the next message to kconform: the main thread's reply, or the
// handler's fault report during a call; whoever claims it first (the
// other must not write a byte: the two would interleave).
enum Owner : int { kFree = 0, kReply = 1, kFaultReport = 2 };
std::atomic<int> g_owner{kFree};
int g_reply_fd = -1;
pid_t g_main_tid = 0, g_runner_pid = 0;
struct sigaction g_previous{};  // the handler before ours (a library's own), for faults not ours
bool g_have_previous = false;

// The one fault recorded after a return (by a thread that is then ended):
// claimed by one writer (state 0 -> 1), readable once published (2).
struct LateFault {
  std::atomic<int> state{0};
  std::int32_t role = 0, index = -1;
  bool write = false, earlier = false;
  std::uintptr_t addr = 0, data = 0, size = 0;
} g_late;

int take_slot() {
  for (int i = 0; i < kSlots; ++i) {
    bool expected = false;
    if (g_regions[i].used.compare_exchange_strong(expected, true)) return i;
  }
  return -1;
}

// ---- text without allocation (the handler's)

struct Text {
  char buf[512];
  std::size_t n = 0;
  void add(const char* s) {
    while (*s && n + 1 < sizeof buf) buf[n++] = *s++;
  }
  void add(std::uint64_t v) {
    char d[24];
    int k = 0;
    do d[k++] = static_cast<char>('0' + v % 10), v /= 10;
    while (v);
    while (k > 0 && n + 1 < sizeof buf) buf[n++] = d[--k];
  }
};

const char* role_kind(Role role, bool inside, bool write) {
  if (!inside) return write ? "out-of-bounds write" : "out-of-bounds read";
  if (role == Role::input && write) return "input modified";
  return write ? "write after return" : "read after return";
}

// "the kernel read at byte 3 past the end of {operand} (a 12-byte buffer)"
void describe(Text& t, Role role, bool write, bool earlier, std::uintptr_t addr, std::uintptr_t data, std::uintptr_t size) {
  const bool inside = addr >= data && addr < data + size;
  const char* of = earlier ? " of an earlier call" : "";
  if (inside) {
    if (role == Role::input && write && !earlier) {
      t.add("the kernel wrote into {operand}, which is read-only (at byte ");
    } else {
      t.add(write ? "a thread wrote into {operand}" : "a thread read {operand}");
      t.add(of);
      t.add(earlier ? " after that call returned (at byte " : " after the call returned (at byte ");
    }
    t.add(static_cast<std::uint64_t>(addr - data));
    t.add(" of ");
    t.add(static_cast<std::uint64_t>(size));
    t.add(")");
    return;
  }
  t.add(write ? "the kernel wrote at byte " : "the kernel read at byte ");
  if (addr < data) {
    t.add(static_cast<std::uint64_t>(data - addr));
    t.add(" before the start of {operand}");
  } else {
    t.add(static_cast<std::uint64_t>(addr - (data + size)));
    t.add(" past the end of {operand}");
  }
  t.add(of);
  t.add(" (a ");
  t.add(static_cast<std::uint64_t>(size));
  t.add("-byte buffer; byte 0 past the end is the first after it)");
}

// The reply a fault during a call makes, as protocol.cpp frames it: the
// fault, then an Aftermath that retires the worker.
void send_all(const void* p, std::size_t n) {
  const char* c = static_cast<const char*>(p);
  while (n > 0) {
    const ssize_t w = ::send(g_reply_fd, c, n, MSG_NOSIGNAL);
    if (w <= 0) return;
    c += w, n -= static_cast<std::size_t>(w);
  }
}
template <class T>
void send_value(const T& v) { send_all(&v, sizeof v); }
void send_string(const char* s, std::size_t n) {
  send_value<std::uint64_t>(n);
  send_all(s, n);
}

void report_and_exit(Role role, std::int32_t index, bool write, bool earlier, std::uintptr_t addr, std::uintptr_t data,
                     std::uintptr_t size) {
  const bool inside = addr >= data && addr < data + size;
  const char* kind = role_kind(role, inside, write);
  Text what;
  describe(what, role, write, earlier, addr, data, size);
  send_value(Reply::fault);
  send_string(kind, std::strlen(kind));
  send_value(role);
  send_value(index);
  send_string(what.buf, what.n);
  send_string("", 0);             // printed
  send_value<std::int64_t>(0);    // printed_bytes
  send_value<std::uint32_t>(0);   // notes
  send_value<std::int64_t>(0);    // resident_bytes
  send_value<std::uint8_t>(1);    // retire
  ::_exit(kExitFaultReported);
}

// Records a fault for the reply to report (the first only), then ends the
// calling thread alone.
[[noreturn]] void record_late_and_end_thread(Role role, std::int32_t index, bool write, bool earlier, std::uintptr_t addr,
                                             const Region& r) {
  int empty = 0;
  if (g_late.state.compare_exchange_strong(empty, 1)) {
    g_late.role = static_cast<std::int32_t>(role), g_late.index = index, g_late.write = write, g_late.earlier = earlier;
    g_late.addr = addr, g_late.data = r.data.load(), g_late.size = r.size.load();
    g_late.state.store(2);
  }
  for (;;) ::syscall(SYS_exit, 0);
}

void pass_on(int sig, siginfo_t* si, void* ctx) {
  // Not a guard: a library's own handler (a runtime's guard pages, a GC's
  // barriers) if it had one, else the kernel's crash, reported by the
  // signal that ends the process.
  if (g_have_previous && (g_previous.sa_flags & SA_SIGINFO) && g_previous.sa_sigaction) {
    g_previous.sa_sigaction(sig, si, ctx);
    return;
  }
  if (g_have_previous && !(g_previous.sa_flags & SA_SIGINFO) && g_previous.sa_handler != SIG_DFL &&
      g_previous.sa_handler != SIG_IGN) {
    g_previous.sa_handler(sig);
    return;
  }
  ::signal(sig, SIG_DFL);
}

void on_fault(int sig, siginfo_t* si, void* ctx) {
  // A process the kernel forked shares the handler, not the connection.
  if (::getpid() != g_runner_pid) {
    ::signal(sig, SIG_DFL);
    return;
  }
  const auto addr = reinterpret_cast<std::uintptr_t>(si->si_addr);
  for (auto& r : g_regions) {
    if (!r.used.load() || addr < r.lo.load() || addr >= r.hi.load()) continue;
    const auto* uc = static_cast<const ucontext_t*>(ctx);
    const bool write = (uc->uc_mcontext.gregs[REG_ERR] & 2) != 0;  // the page fault's error code: W
    const auto role = static_cast<Role>(r.role.load());
    const auto index = r.index.load();
    const bool earlier = r.earlier.load();
    const bool main_thread = static_cast<pid_t>(::syscall(SYS_gettid)) == g_main_tid;
    int free = kFree;
    if (g_phase.load() == static_cast<int>(Phase::in_call) && g_owner.compare_exchange_strong(free, kFaultReport))
      report_and_exit(role, index, write, earlier, addr, r.data.load(), r.size.load());
    // The call has returned (the main thread may be writing to kconform):
    // a thread left running is recorded and ended; the reply of this call,
    // or of the next, reports it.
    if (!main_thread) record_late_and_end_thread(role, index, write, earlier, addr, r);
    break;  // the worker's own code: a crash
  }
  pass_on(sig, si, ctx);
}

}  // namespace

std::optional<GuardedBuffer> GuardedBuffer::make(std::size_t bytes, std::size_t align, Placement p, Role role, int index,
                                                 std::byte fill, std::string& why) {
  if (align == 0) align = 1;
  const std::size_t pages = bytes == 0 ? 0 : (bytes + (p == Placement::tail ? align - 1 : 0) + kPage - 1) / kPage * kPage;
  GuardedBuffer b;
  b.map_bytes_ = pages + 2 * kGuardBytes;
  void* m = ::mmap(nullptr, b.map_bytes_, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (m == MAP_FAILED) {
    why = fmt::format("cannot map {} bytes: {}", b.map_bytes_, std::strerror(errno));
    return std::nullopt;
  }
  b.map_ = static_cast<std::byte*>(m);
  b.pages_bytes_ = pages;
  std::byte* first = b.map_ + kGuardBytes;
  if (pages > 0 && ::mprotect(first, pages, PROT_READ | PROT_WRITE) != 0) {
    why = fmt::format("cannot make {} bytes writable: {}", pages, std::strerror(errno));
    return std::nullopt;
  }
  b.size_ = bytes;
  const auto end = reinterpret_cast<std::uintptr_t>(first + pages);
  b.data_ = p == Placement::head ? first : reinterpret_cast<std::byte*>((end - bytes) / align * align);
  if (pages > 0) {
    std::memset(first, static_cast<int>(kCanary), pages);
    std::memset(b.data_, static_cast<int>(fill), bytes);
  }
  b.slot_ = take_slot();
  if (b.slot_ >= 0) {
    Region& r = g_regions[b.slot_];
    r.lo = reinterpret_cast<std::uintptr_t>(b.map_);
    r.hi = reinterpret_cast<std::uintptr_t>(b.map_ + b.map_bytes_);
    r.data = reinterpret_cast<std::uintptr_t>(b.data_);
    r.size = bytes;
    r.role = static_cast<std::int32_t>(role);
    r.index = index;
    r.earlier = false;
  }
  return b;
}

GuardedBuffer::~GuardedBuffer() { release(); }

void GuardedBuffer::release() {
  if (slot_ >= 0) {
    g_regions[slot_].lo = 0;
    g_regions[slot_].hi = 0;
    g_regions[slot_].used = false;
  }
  if (map_) ::munmap(map_, map_bytes_);
  map_ = nullptr, slot_ = -1;
}

GuardedBuffer::GuardedBuffer(GuardedBuffer&& o) noexcept { *this = std::move(o); }

GuardedBuffer& GuardedBuffer::operator=(GuardedBuffer&& o) noexcept {
  if (this == &o) return *this;
  release();
  map_ = o.map_, map_bytes_ = o.map_bytes_, pages_bytes_ = o.pages_bytes_, data_ = o.data_, size_ = o.size_, slot_ = o.slot_;
  o.map_ = nullptr, o.slot_ = -1;
  return *this;
}

void GuardedBuffer::read_only() {
  if (pages_bytes_ > 0) ::mprotect(map_ + kGuardBytes, pages_bytes_, PROT_READ);
}

void GuardedBuffer::quarantine() {
  if (pages_bytes_ > 0) ::mprotect(map_ + kGuardBytes, pages_bytes_, PROT_NONE);
  if (slot_ >= 0) g_regions[slot_].earlier = true;
}

std::string GuardedBuffer::slack_damage() const {
  if (pages_bytes_ == 0) return "";
  const std::byte* first = map_ + kGuardBytes;
  const std::byte* end = first + pages_bytes_;
  const std::byte* tail = data_ + size_;
  // The changed canaries nearest to and farthest from the data, on each side.
  std::ptrdiff_t near = -1, far = -1;
  for (const std::byte* q = tail; q < end; ++q)
    if (*q != kCanary) far = q - tail, near = near < 0 ? far : near;
  if (near >= 0)
    return near == far ? fmt::format("the kernel wrote at byte {} past the end of {{operand}} (a {}-byte buffer; byte 0 "
                                     "past the end is the first after it)",
                                     near, size_)
                       : fmt::format("the kernel wrote at bytes {} to {} past the end of {{operand}} (a {}-byte buffer; "
                                     "byte 0 past the end is the first after it)",
                                     near, far, size_);
  for (const std::byte* q = data_; q > first; --q)
    if (q[-1] != kCanary) far = data_ - (q - 1), near = near < 0 ? far : near;
  if (near < 0) return "";
  return near == far ? fmt::format("the kernel wrote at byte {} before the start of {{operand}} (a {}-byte buffer)", near, size_)
                     : fmt::format("the kernel wrote at bytes {} to {} before the start of {{operand}} (a {}-byte buffer)",
                                   far, near, size_);
}

void set_phase(Phase p) { g_phase.store(static_cast<int>(p)); }

void install_fault_handler(int reply_fd) {
  g_reply_fd = reply_fd;
  if (g_main_tid == 0) {
    g_main_tid = static_cast<pid_t>(::syscall(SYS_gettid));
    g_runner_pid = ::getpid();
    static char alt[256 * 1024];
    stack_t st{};
    st.ss_sp = alt;
    st.ss_size = sizeof alt;
    ::sigaltstack(&st, nullptr);
  }
  struct sigaction sa{}, before{};
  sa.sa_sigaction = on_fault;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
  sigemptyset(&sa.sa_mask);
  ::sigaction(SIGSEGV, &sa, &before);
  // A handler the library installed (at load or in a call) gets the faults
  // that are not ours.
  if (!((before.sa_flags & SA_SIGINFO) && before.sa_sigaction == on_fault)) {
    g_previous = before;
    g_have_previous = true;
  }
}

void claim_reply() {
  int free = kFree;
  if (!g_owner.compare_exchange_strong(free, kReply))
    for (;;) ::pause();  // a fault report is being written: the process ends with it
}

void release_reply() { g_owner.store(kFree); }

bool late_fault_pending() { return g_late.state.load() == 2; }

std::optional<Fault> take_late_fault() {
  if (g_late.state.load() != 2) return std::nullopt;
  Text what;
  const auto role = static_cast<Role>(g_late.role);
  describe(what, role, g_late.write, g_late.earlier, g_late.addr, g_late.data, g_late.size);
  const bool inside = g_late.addr >= g_late.data && g_late.addr < g_late.data + g_late.size;
  Fault f{role_kind(role, inside, g_late.write), role, g_late.index, std::string(what.buf, what.n)};
  g_late.state.store(0);
  return f;
}

}  // namespace kc::plugin
