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
  ~WorkerProcess() { end(); }
  WorkerProcess(const WorkerProcess&) = delete;
  WorkerProcess& operator=(const WorkerProcess&) = delete;

  // The Hello of a live worker, started if there is none. A library that
  // does not load or register (an error Hello aside) is a UsageError
  // naming what happened: it crashed, exited, or passed the load limit.
  const Hello& start();
  // One call. Throws KernelFault when the worker did not survive it or
  // passed the call limit (it is then ended), Interrupted on a stop request.
  CallReply call(std::string_view kernel, std::span<const Tensor> inputs, const Params& params, const CallSetup& setup);
  // Closes the connection and waits up to a second for the worker to go,
  // then kills it. A no-op without one.
  void end();
  // In a forked child: the inherited worker is the parent's.
  void forget();
  std::int64_t max_output() const { return limits_.max_output; }

 private:
  void spawn();
  void send_call(std::string_view kernel, std::span<const Tensor> inputs, const Params& params, const CallSetup& setup);
  CallReply read_reply();
  // After the runner ended (or was killed): its supervisor's report, as
  // "crashed (killed by SIGSEGV)"; waits for the supervisor. `kind` gets
  // the KernelFault kind.
  std::string how_it_ended(std::string& kind);
  void kill_runner();

  std::string path_;
  Limits limits_;
  pid_t supervisor_ = -1, runner_ = -1;
  int status_fd_ = -1;
  std::unique_ptr<Channel> ch_;
  Hello hello_;
  std::int64_t calls_ = 0;
  bool killed_ = false;  // kconform killed the runner (a timeout or a stop)
};

}  // namespace kc::plugin
