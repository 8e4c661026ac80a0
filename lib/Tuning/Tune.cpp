//===- Tune.cpp - The tessel-tune pass ------------------------------------===//

#include "tessel/Transforms/FuseEpilogues.h"
#include "tessel/Transforms/LaunchMetadata.h"
#include "tessel/Transforms/Passes.h"
#include "tessel/Tuning/Tuner.h"

#include "mlir/Pass/PassManager.h"

namespace tessel {
#define GEN_PASS_DEF_TESSELTUNE
#include "tessel/Transforms/Passes.h.inc"
} // namespace tessel

using namespace mlir;

namespace {
struct Tune : tessel::impl::TesselTuneBase<Tune> {
  using Base::Base;
  void runOnOperation() override;
};
} // namespace

void Tune::runOnOperation() {
  ModuleOp module = getOperation();
  // Fused as tessel-apply-schedule fuses them, so that the records' key is
  // the one it looks up (a chain numbers its constants per generic).
  tessel::fuseEpilogueChains(module);
  tessel::TuneOptions o;
  o.schedule = schedule;
  o.entry = entry;
  o.strategy = strategy;
  o.start = start;
  o.budget = budget;
  o.timeBudgetS = timeBudget;
  o.db = db;
  o.seed = seed;
  o.jobs = jobs;
  o.runner = runner;
  o.deviceOrdinal = device;
  o.devices = devices;
  o.measure = measure;
  o.progress = progress;
  o.timeoutS = timeout;
  o.warmupMs = warmupMs;
  o.repeatMs = repeatMs;
  o.chip = chip;
  o.features = features;
  o.ptxas = ptxas;
  o.replay = replay;
  o.replayDevice = replayDevice;
  o.faults = faults;
  llvm::Expected<std::map<std::string, std::string>> best =
      tessel::runTuning(module, o, llvm::errs());
  if (!best) {
    emitError(tessel::payloadLocation(module))
        << "tessel-tune: " << llvm::toString(best.takeError());
    return signalPassFailure();
  }

  // Apply the winner, exactly as --tessel-apply-schedule would.
  tessel::TesselApplyScheduleOptions apply;
  apply.schedules = {schedule};
  apply.entry = entry;
  for (auto &[name, value] : *best)
    apply.knobs.push_back(name + "=" + value);
  apply.givenSource = replay.empty()
                          ? "tuned by tessel-tune in " + db
                          : "tessel-tune replaying " + replay.getValue();
  OpPassManager pm(ModuleOp::getOperationName());
  pm.addPass(tessel::createTesselApplySchedule(apply));
  if (failed(runPipeline(pm, module)))
    signalPassFailure();
}
