// kconform's side of one plug-in worker (worker.h): starts it, reads its
// Hello under the load limit, makes calls under the call limit, and ends
// it. A worker that died, hung or was stopped is ended the same way: the
// runner is killed first, so that its supervisor clears what it left and
// reports how it ended; no process of it outlives the WorkerProcess.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "backends/plugin/channel.h"
#include "backends/plugin/protocol.h"
#include "core/params.h"
#include "core/tensor.h"

namespace kc::plugin {

struct Limits {
  int call_ms = 10000;
  int load_ms = 60000;
  std::int64_t max_calls = 5000;           // then a fresh worker
  std::int64_t max_resident = 2048ll << 20;  // bytes; past it, a fresh worker
  std::int64_t max_output = 1024ll << 20;    // bytes, one call's outputs
  int settle_us = 2000;
  std::int64_t alignment = 0;
};

struct CallReply {
  Reply kind = Reply::outputs;
  std::vector<Tensor> outputs;                   // Reply::outputs
  std::int32_t status = 0;                       // Reply::status
  std::string operand, message, rule;
  Fault fault;                                   // Reply::fault
  Aftermath after;
};

class WorkerProcess {
 public:
  WorkerProcess(std::string path, Limits limits) : path_(std::move(path)), limits_(limits) {}
  ~WorkerProcess();
  WorkerProcess(const WorkerProcess&) = delete;
  WorkerProcess& operator=(const WorkerProcess&) = delete;

  // The library's Hello, with a live runner ready for calls (the zygote
  // and the runner started as needed). A library that does not load or
  // register (an error Hello aside) is a UsageError naming what happened:
  // it crashed, exited, or passed the load limit.
  const Hello& start();
  // One call. Throws KernelFault when the runner did not survive it or
  // passed the call limit (it is then ended), Interrupted on a stop request.
  CallReply call(std::string_view kernel, std::span<const Tensor> inputs, const Params& params, const CallSetup& setup);
  // Ends the runner (the next call gets a fresh copy of the zygote): closes
  // its connection, waits up to a second for it to go, then kills it.
  void end();
  // Ends the runner and the zygote.
  void end_all();
  // Kills them at once (a stop request), and waits for them.
  void kill_all();
  // In a forked child: the inherited processes are the parent's.
  void forget();

 private:
  void start_zygote();
  void start_runner();
  const Hello& read_hello_within_limit(Channel& ch);
  void send_call(std::string_view kernel, std::span<const Tensor> inputs, const Params& params, const CallSetup& setup);
  CallReply read_reply();
  // After the runner ended (or was killed): the zygote's report, as
  // "crashed (killed by SIGSEGV)". `kind` gets the KernelFault kind.
  std::string how_runner_ended(std::string& kind);
  // After the zygote's connection closed: how it ended (it is reaped).
  std::string how_zygote_ended();
  void kill_runner();

  std::string path_;
  Limits limits_;
  bool preload_ = true;  // false once the library started threads while loading
  pid_t zygote_ = -1, runner_ = -1;
  std::unique_ptr<Channel> control_, ch_;
  Hello hello_;
  bool have_hello_ = false;
  std::int64_t calls_ = 0;
  bool killed_ = false;  // kconform killed the runner (a timeout or a stop)
};

}  // namespace kc::plugin
