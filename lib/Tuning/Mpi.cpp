//===- Mpi.cpp - Measuring candidates on the ranks of an MPI job ----------===//
//
// Rank 0's MpiMeasurer sends each candidate (its spec folder's files) to a
// measuring rank and waits for the record; a measuring rank relays them to
// its GPU's worker (createWorkerMeasurer). Messages are JSON text:
//   0 -> r  kConfig   {"runner", "timeout_s", "warmup_ms", "rep_ms"}
//   r -> 0  kHello    {"device", "gpu", "host"} or {"error"}
//   0 -> r  kMeasure  {"seed", "spec": file name, "files": [{"name", "size"}]}
//                     then a newline and the files' bytes, one after another
//   r -> 0  kResult   a record (toJSON(TuningRecord))
//   0 -> r  kStop     {}
// The tuner measures on several threads; MPI is called by one at a time
// (MPI_THREAD_SERIALIZED), with nonblocking calls polled so that a thread
// waiting for its rank does not hold the others up.
//
//===----------------------------------------------------------------------===//

#include "tessel/Tuning/Mpi.h"
#include "tessel/Tuning/WorkDirectory.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cstdlib>
#include <mutex>
#include <thread>

#ifdef TESSEL_HAVE_MPI
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>
#include <unistd.h>
#endif

using namespace tessel;

static llvm::Error fail(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// Whether the command line asks for measure=mpi (the tune pass's option).
static bool asksForMpi(int argc, char **argv) {
  for (int i = 1; i < argc; ++i) {
    llvm::StringRef arg(argv[i]);
    size_t at = arg.find("measure=mpi");
    // measure=mpi as a whole option, not the tail of another one.
    if (at != llvm::StringRef::npos &&
        (at == 0 || arg[at - 1] == ' ' || arg[at - 1] == '"' ||
         arg[at - 1] == '\'' || arg[at - 1] == '=' || arg[at - 1] == '{'))
      return true;
  }
  return false;
}

/// The rank the launcher gives this process (Open MPI, PMIx, MPICH); none
/// outside an MPI job.
static std::optional<int> launcherRank() {
  for (const char *name : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK"})
    if (const char *value = std::getenv(name)) {
      int rank;
      if (!llvm::StringRef(value).getAsInteger(10, rank))
        return rank;
    }
  return std::nullopt;
}

#ifndef TESSEL_HAVE_MPI

bool tessel::mpiAvailable() { return false; }

std::optional<int> tessel::serveMpiRank(int argc, char **argv) {
  if (launcherRank().value_or(0) == 0 || !asksForMpi(argc, argv))
    return std::nullopt;
  // Every rank would tune on its own: say so once per rank and stop.
  llvm::WithColor::error(llvm::errs(), "tessel-opt")
      << "measure=mpi: this tessel-opt was built without MPI (install "
         "Debian's libopenmpi-dev and rebuild)\n";
  return 1;
}

llvm::Expected<std::unique_ptr<Measurer>>
tessel::createMpiMeasurer(const MeasureOptions &) {
  return fail("measure=mpi: this tessel-opt was built without MPI (install "
              "Debian's libopenmpi-dev and rebuild)");
}

#else

bool tessel::mpiAvailable() { return true; }

namespace {
enum Tag : int { kConfig = 1, kHello, kMeasure, kResult, kStop };

std::mutex mpiMutex;

/// Waits for `request` (an MPI_Isend or MPI_Irecv) to complete, calling MPI
/// only under the lock.
void wait(MPI_Request &request) {
  for (int done = 0;;) {
    {
      std::lock_guard<std::mutex> lock(mpiMutex);
      MPI_Test(&request, &done, MPI_STATUS_IGNORE);
    }
    if (done)
      return;
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
}

void send(int rank, Tag tag, const std::string &text) {
  MPI_Request request;
  {
    std::lock_guard<std::mutex> lock(mpiMutex);
    MPI_Isend(text.data(), (int)text.size(), MPI_CHAR, rank, tag,
              MPI_COMM_WORLD, &request);
  }
  wait(request);
}

/// Receives the next message from `rank` with one of `tags` (a tag of
/// MPI_ANY_TAG: any); none when `deadline` passes first.
std::optional<std::pair<Tag, std::string>>
receive(int rank, int tag,
        std::optional<std::chrono::steady_clock::time_point> deadline = {}) {
  for (;;) {
    {
      std::lock_guard<std::mutex> lock(mpiMutex);
      int flag = 0;
      MPI_Status status;
      MPI_Iprobe(rank, tag, MPI_COMM_WORLD, &flag, &status);
      if (flag) {
        int count = 0;
        MPI_Get_count(&status, MPI_CHAR, &count);
        std::string text(count, '\0');
        MPI_Recv(text.data(), count, MPI_CHAR, status.MPI_SOURCE,
                 status.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        return std::make_pair(Tag(status.MPI_TAG), std::move(text));
      }
    }
    if (deadline && std::chrono::steady_clock::now() > *deadline)
      return std::nullopt;
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
}

std::string text(const llvm::json::Value &value) {
  return llvm::formatv("{0}", value).str();
}

/// Starts MPI (once per process); false when it was already finalized.
bool initialize() {
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (finalized)
    return false;
  if (!initialized) {
    int provided;
    MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided);
  }
  return true;
}

/// The GPU of this rank: its index among the ranks of its host other than
/// rank 0 (a collective call: every rank makes it once, after initialize).
int localMeasuringIndex() {
  int world;
  MPI_Comm_rank(MPI_COMM_WORLD, &world);
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, world,
                      MPI_INFO_NULL, &node);
  int size;
  MPI_Comm_size(node, &size);
  std::vector<int> ranks(size);
  MPI_Allgather(&world, 1, MPI_INT, ranks.data(), 1, MPI_INT, node);
  MPI_Comm_free(&node);
  int index = 0;
  for (int r : ranks)
    if (r != 0 && r < world)
      ++index;
  return index;
}

std::string hostName() {
  char name[256] = {};
  gethostname(name, sizeof(name) - 1);
  return name;
}

/// The fields of `from` a measurement sets.
void copyMeasurement(const TuningRecord &from, TuningRecord &to) {
  to.status = from.status;
  to.medianMs = from.medianMs;
  to.minMs = from.minMs;
  to.maxMs = from.maxMs;
  to.tflops = from.tflops;
  to.relativeError = from.relativeError;
  to.error = from.error;
  to.measureMs = from.measureMs;
}

class MpiMeasurer : public Measurer {
public:
  struct Rank {
    int rank;
    int gpu;
    std::string host;
  };

  static llvm::Expected<std::unique_ptr<Measurer>>
  create(const MeasureOptions &options) {
    if (!initialize())
      return fail("measure=mpi: MPI was already finalized in this process "
                  "(one MPI tuning run per process)");
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    (void)localMeasuringIndex(); // The collective every rank makes.
    auto m = std::unique_ptr<MpiMeasurer>(new MpiMeasurer(options));
    if (size < 2)
      return fail("measure=mpi needs an MPI job of at least 2 ranks (mpirun "
                  "-np N tessel-opt ..., N >= 2): rank 0 searches, the others "
                  "measure");
    llvm::json::Object config{{"runner", options.runner},
                              {"timeout_s", (int64_t)options.timeoutS},
                              {"warmup_ms", options.warmupMs},
                              {"rep_ms", options.repeatMs}};
    for (int r = 1; r < size; ++r)
      send(r, kConfig, text(llvm::json::Value(llvm::json::Object(config))));
    std::set<std::string> names;
    std::string errors;
    for (int r = 1; r < size; ++r) {
      auto hello = receive(r, kHello);
      llvm::Expected<llvm::json::Value> json = llvm::json::parse(hello->second);
      const llvm::json::Object *o = json ? json->getAsObject() : nullptr;
      if (!json)
        llvm::consumeError(json.takeError());
      std::string host(o ? o->getString("host").value_or("") : "");
      if (!o || o->getString("error")) {
        errors += llvm::formatv("\n  rank {0} ({1}): {2}", r, host,
                                o ? *o->getString("error") : "no answer")
                      .str();
        continue;
      }
      names.insert(o->getString("device").value_or("").str());
      m->ranks.push_back({r, (int)o->getInteger("gpu").value_or(-1), host});
    }
    if (!errors.empty())
      return fail("measure=mpi: measuring ranks could not start:" + errors);
    if (llvm::Error e = m->setDevice(names))
      return std::move(e);
    return std::unique_ptr<Measurer>(std::move(m));
  }

  ~MpiMeasurer() override {
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int r = 1; r < size; ++r)
      send(r, kStop, "{}");
    MPI_Finalize();
  }

  unsigned slots() const override { return ranks.size(); }
  int gpu(unsigned slot) const override { return ranks[slot].gpu; }

  void measure(unsigned slot, const MeasureRequest &request,
               TuningRecord &record) override {
    const Rank &target = ranks[slot];
    auto start = std::chrono::steady_clock::now();
    // The spec's folder holds the launch spec and its images: send them all,
    // after a JSON line naming them and their sizes.
    llvm::json::Array names;
    std::string contents;
    std::error_code ec;
    llvm::StringRef dir = llvm::sys::path::parent_path(request.specPath);
    for (llvm::sys::fs::directory_iterator it(dir, ec), end; it != end && !ec;
         it.increment(ec)) {
      if (!llvm::sys::fs::is_regular_file(it->path()))
        continue;
      llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
          llvm::MemoryBuffer::getFile(it->path());
      if (!buffer)
        continue;
      names.push_back(llvm::json::Object{
          {"name", llvm::sys::path::filename(it->path()).str()},
          {"size", (int64_t)(*buffer)->getBufferSize()}});
      contents += (*buffer)->getBuffer();
    }
    llvm::json::Object header{
        {"seed", (int64_t)request.seed},
        {"spec", llvm::sys::path::filename(request.specPath).str()},
        {"files", std::move(names)}};
    send(target.rank, kMeasure,
         text(llvm::json::Value(std::move(header))) + "\n" + contents);
    // The rank kills a hung candidate after timeout_s; this deadline is for
    // a rank that no longer answers at all.
    auto answer =
        receive(target.rank, kResult,
                start + std::chrono::seconds(3 * options.timeoutS + 120));
    TuningRecord measured;
    llvm::json::Path::Root root("record");
    llvm::Expected<llvm::json::Value> json =
        answer ? llvm::json::parse(answer->second)
               : llvm::Expected<llvm::json::Value>(fail("no answer"));
    if (!json || !fromJSON(*json, measured, root)) {
      record.status = answer ? "run-error" : "timeout";
      record.error =
          llvm::formatv("rank {0} ({1}) {2}", target.rank, target.host,
                        answer ? "sent an invalid record"
                               : "did not answer in time")
              .str();
      if (!json)
        llvm::consumeError(json.takeError());
      return;
    }
    copyMeasurement(measured, record);
  }

private:
  explicit MpiMeasurer(const MeasureOptions &options) : options(options) {}
  MeasureOptions options;
  std::vector<Rank> ranks;
};

/// A measuring rank's work: one candidate, a JSON header line and then the
/// files' bytes.
TuningRecord measureOne(Measurer &worker, llvm::StringRef message,
                        llvm::StringRef workDir) {
  TuningRecord record;
  record.status = "run-error";
  auto [line, contents] = message.split('\n');
  llvm::Expected<llvm::json::Value> json = llvm::json::parse(line);
  const llvm::json::Object *header = json ? json->getAsObject() : nullptr;
  const llvm::json::Array *files = header ? header->getArray("files") : nullptr;
  if (!files) {
    if (!json)
      llvm::consumeError(json.takeError());
    record.error = "invalid request from rank 0";
    return record;
  }
  llvm::SmallString<256> dir;
  if (std::error_code ec = llvm::sys::fs::createUniqueDirectory(
          llvm::Twine(workDir) + "/candidate", dir)) {
    record.error = "cannot create a folder: " + ec.message();
    return record;
  }
  for (const llvm::json::Value &file : *files) {
    const llvm::json::Object *f = file.getAsObject();
    std::string name =
        llvm::sys::path::filename(f ? f->getString("name").value_or("") : "")
            .str();
    int64_t size = f ? f->getInteger("size").value_or(-1) : -1;
    if (name.empty() || size < 0 || (uint64_t)size > contents.size()) {
      record.error = "invalid request from rank 0";
      llvm::sys::fs::remove_directories(dir);
      return record;
    }
    llvm::SmallString<256> path(dir);
    llvm::sys::path::append(path, name);
    std::error_code ec;
    llvm::raw_fd_ostream os(path, ec);
    if (ec) {
      record.error = "cannot write '" + path.str().str() + "': " + ec.message();
      llvm::sys::fs::remove_directories(dir);
      return record;
    }
    os << contents.take_front(size);
    contents = contents.drop_front(size);
  }
  record.status.clear();
  MeasureRequest request;
  llvm::SmallString<256> spec(dir);
  llvm::sys::path::append(
      spec, llvm::sys::path::filename(header->getString("spec").value_or("")));
  request.specPath = spec.str().str();
  request.seed = header->getInteger("seed").value_or(1);
  worker.measure(0, request, record);
  llvm::sys::fs::remove_directories(dir);
  return record;
}
} // namespace

std::optional<int> tessel::serveMpiRank(int argc, char **argv) {
  std::optional<int> rank = launcherRank();
  if (!rank || *rank == 0 || !asksForMpi(argc, argv))
    return std::nullopt;
  if (!initialize())
    return 1;
  int gpu = localMeasuringIndex();
  auto config = receive(0, kConfig);
  llvm::Expected<llvm::json::Value> json = llvm::json::parse(config->second);
  const llvm::json::Object *o = json ? json->getAsObject() : nullptr;
  if (!json)
    llvm::consumeError(json.takeError());
  std::string host = hostName();
  MeasureOptions options;
  if (o) {
    options.runner = o->getString("runner").value_or("").str();
    options.timeoutS = o->getInteger("timeout_s").value_or(60);
    options.warmupMs = o->getNumber("warmup_ms").value_or(20);
    options.repeatMs = o->getNumber("rep_ms").value_or(100);
  }
  options.devices = {gpu};
  llvm::Expected<WorkDirectory> work = WorkDirectory::create("tessel-mpi");
  std::unique_ptr<Measurer> worker;
  std::string error = !o ? "invalid configuration from rank 0" : "";
  if (error.empty() && !work)
    error = llvm::toString(work.takeError());
  if (error.empty()) {
    options.workDir = work->str();
    llvm::Expected<std::unique_ptr<Measurer>> made =
        createWorkerMeasurer(options);
    if (made)
      worker = std::move(*made);
    else
      error = llvm::toString(made.takeError());
  }
  if (!work)
    llvm::consumeError(work.takeError());
  llvm::json::Object hello{{"host", host}, {"gpu", gpu}};
  if (worker)
    hello["device"] = worker->device();
  else
    hello["error"] = error;
  send(0, kHello, text(llvm::json::Value(std::move(hello))));

  // Candidates until rank 0 says stop (also after an error: rank 0 ends
  // the job then).
  for (;;) {
    auto message = receive(0, MPI_ANY_TAG);
    if (message->first == kStop)
      break;
    if (message->first != kMeasure)
      continue;
    TuningRecord record;
    if (!worker) {
      record.status = "run-error";
      record.error = error;
    } else {
      record = measureOne(*worker, message->second, work->str());
    }
    send(0, kResult, text(toJSON(record)));
  }
  int status = worker ? 0 : 1;
  worker.reset();
  MPI_Finalize();
  return status;
}

llvm::Expected<std::unique_ptr<Measurer>>
tessel::createMpiMeasurer(const MeasureOptions &options) {
  return MpiMeasurer::create(options);
}

#endif // TESSEL_HAVE_MPI
