// The zygote (worker.h): loads the library once, then forks a runner
// whenever kconform asks, watches it through a pidfd, and when it ends
// kills whatever it left (it is this process's child, or reparented here:
// this is a child subreaper) and reports its wait status. It never calls a
// kernel.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>

#include <fmt/format.h>

#include "backends/plugin/hygiene.h"
#include "backends/plugin/protocol.h"
#include "backends/plugin/registration.h"
#include "backends/plugin/worker.h"

namespace kc::plugin {

namespace {

// Becomes a runner: a fresh connection, this process's state (the library
// as registered, when preloaded), signals at their defaults.
[[noreturn]] void become_runner(const std::string& path, int zygote, int control_fd, int fd,
                                const kc_plugin_info* preloaded) {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // dies with the zygote
  if (::getppid() != zygote) ::_exit(0);
  ::close(control_fd);
  ::prctl(PR_SET_CHILD_SUBREAPER, 1);
  // A fault ends the runner with its signal, which the zygote reports.
  for (int sig : {SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTERM, SIGPIPE}) ::signal(sig, SIG_DFL);
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  run_runner(path, fd, preloaded);
}

// The zygote's own setup: dies with kconform, leaves Ctrl-C to it, adopts
// what its runners leave, keeps only the control descriptor.
void enter_zygote(int control_fd, int parent_pid) {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // dies with kconform
  if (::getppid() != parent_pid) ::_exit(0);
  ::setpgid(0, 0);  // a Ctrl-C is kconform's to act on
  ::prctl(PR_SET_CHILD_SUBREAPER, 1);
  for (int sig : {SIGINT, SIGHUP, SIGPIPE}) ::signal(sig, SIG_IGN);
  // A crash while the library loads ends this process with its signal,
  // which kconform reports (no handler inherited from kconform, or a
  // sanitizer's, turns it into an abort or an exit status).
  for (int sig : {SIGTERM, SIGCHLD, SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) ::signal(sig, SIG_DFL);
  close_other_descriptors(control_fd, -1);
}

// Preloading, the library loaded and registered into info here, its hello
// (and whether this process can be copied: one thread) sent to kconform;
// ends the zygote where it cannot serve. Otherwise the standard streams
// go to /dev/null (nothing of kconform's reaches a runner, its terminal
// included).
void load_or_silence(const std::string& path, bool preload, Channel& control, kc_plugin_info& info) {
  if (!preload) {
    const int null = ::open("/dev/null", O_RDWR);
    for (int fd : {0, 1, 2}) ::dup2(null, fd);
    if (null > 2) ::close(null);
    return;
  }
  Capture cap;  // what loading prints is counted, not kept
  cap.start();
  set_default_fp_env();
  Hello hello = load_and_register(path, info);
  std::int64_t printed = 0;
  cap.take(0, printed);
  if (printed > 0) hello.notes.push_back(fmt::format("it printed {} bytes while loading (not kept)", printed));
  const bool copyable = thread_ids().size() == 1;
  write_hello(control, hello);
  control.put<std::uint8_t>(copyable ? 1 : 0);
  if (!hello.error.empty() || !copyable) ::_exit(kExitDone);
}

// From here kconform's death is a SIGTERM read from the returned signalfd,
// so that whatever the kernels started is killed first (during loading it
// stayed SIGKILL: a registration that hangs must not outlive kconform).
int watch_for_kconform_death(int parent_pid) {
  sigset_t term;
  sigemptyset(&term);
  sigaddset(&term, SIGTERM);
  ::sigprocmask(SIG_BLOCK, &term, nullptr);
  const int sigfd = ::signalfd(-1, &term, SFD_CLOEXEC);
  ::prctl(PR_SET_PDEATHSIG, SIGTERM);
  if (::getppid() != parent_pid) ::_exit(0);
  return sigfd;
}

// The runner has ended (its pidfd readable): reaps it, kills whatever it
// left and reports its wait status to kconform.
void report_ended(Channel& control, pid_t& runner, int& pidfd) {
  int status = 0;
  while (::waitpid(runner, &status, 0) < 0 && errno == EINTR) {
  }
  ::close(pidfd);
  pidfd = -1;
  kill_descendants();
  control.put(Control::ended);
  control.put(runner);
  control.put(status);
  runner = -1;
}

// Forks a runner on a fresh connection and hands kconform its end and the
// runner's pid; runner and its pidfd kept to watch it.
void spawn_runner(const std::string& path, Channel& control, int control_fd, pid_t self,
                  const kc_plugin_info* preloaded, pid_t& runner, int& pidfd) {
  int sv[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) ::_exit(kExitInternal);
  runner = ::fork();
  if (runner == 0) {
    ::close(sv[0]);
    become_runner(path, self, control_fd, sv[1], preloaded);
  }
  ::close(sv[1]);
  if (runner < 0) ::_exit(kExitInternal);
  pidfd = static_cast<int>(::syscall(SYS_pidfd_open, runner, 0));
  if (pidfd < 0 || !send_fd(control_fd, static_cast<std::uint8_t>(Control::spawned), sv[0])) ::_exit(kExitInternal);
  ::close(sv[0]);
  control.put(runner);
}

}  // namespace

void run_zygote(const std::string& path, int control_fd, int parent_pid, bool preload) {
  enter_zygote(control_fd, parent_pid);
  Channel control(control_fd);
  kc_plugin_info info{};
  try {
    load_or_silence(path, preload, control, info);
    const int sigfd = watch_for_kconform_death(parent_pid);
    const pid_t self = ::getpid();
    pid_t runner = -1;
    int pidfd = -1;
    for (;;) {
      pollfd p[3] = {{control_fd, POLLIN, 0}, {sigfd, POLLIN, 0}, {pidfd, POLLIN, 0}};
      if (::poll(p, pidfd >= 0 ? 3 : 2, -1) < 0) continue;
      if (p[1].revents) throw ChannelClosed("kconform is gone");
      if (pidfd >= 0 && p[2].revents) {
        report_ended(control, runner, pidfd);
        continue;
      }
      if (!p[0].revents) continue;
      if (control.get<Control>() != Control::spawn || runner > 0) ::_exit(kExitProtocol);
      spawn_runner(path, control, control_fd, self, preload ? &info : nullptr, runner, pidfd);
    }
  } catch (const ChannelClosed&) {
    kill_descendants();  // kconform is done (or gone): the runner and all it left go too
    ::_exit(kExitDone);
  } catch (...) {
    kill_descendants();
    ::_exit(kExitInternal);
  }
}

}  // namespace kc::plugin
