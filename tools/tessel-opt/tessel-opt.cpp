//===- tessel-opt.cpp - Tessel's mlir-opt-style driver --------------------===//
//
// Every flag of mlir-opt, plus Tessel's passes, pipelines and transform ops.
//
//===----------------------------------------------------------------------===//

#include "tessel/InitTessel.h"
#include "tessel/Runtime/InputFiles.h"
#include "tessel/Tuning/Mpi.h"
#include "tessel/Version.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/WithColor.h"

int main(int argc, char **argv) {
  // Under mpirun with --tessel-tune's measure=mpi, every rank but 0
  // measures the candidates rank 0 sends (docs/tuning.md).
  if (std::optional<int> status = tessel::serveMpiRank(argc, argv))
    return *status;
  llvm::cl::AddExtraVersionPrinter([](llvm::raw_ostream &os) {
    os << "Tessel " << tessel::getVersion() << "\n";
    os << "  tuning: SQLite database, measure=worker|process"
       << (tessel::mpiAvailable() ? "|mpi" : " (built without MPI)") << "\n";
  });
  tessel::registerAllPasses();
  mlir::DialectRegistry registry;
  tessel::registerAllDialects(registry);
  auto [input, output] = mlir::registerAndParseCLIOptions(
      argc, argv, "Tessel optimizer driver\n", registry);
  // The input, like every file Tessel reads, is a regular file of bounded
  // size: `tessel-opt /dev/zero` read until memory ran out. Standard input
  // ("-") and pipes (`tessel-opt <(...)`) stay allowed: they end when
  // their writer does.
  llvm::sys::fs::file_status status;
  bool pipe = !llvm::sys::fs::status(input, status) &&
              status.type() == llvm::sys::fs::file_type::fifo_file;
  if (input != "-" && !pipe) {
    llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> text =
        tessel::readInputFile(input);
    if (!text) {
      llvm::WithColor::error(llvm::errs(), "tessel-opt")
          << llvm::toString(text.takeError()) << "\n";
      return 1;
    }
    // Text Debian's MLIR 22 parser would crash on (docs/reliability.md).
    if (std::optional<tessel::TextIssue> issue =
            tessel::findParserCrash((*text)->getBuffer())) {
      llvm::errs() << input << ":" << issue->line << ":" << issue->column
                   << ": ";
      llvm::WithColor::error(llvm::errs()) << issue->message << "\n";
      return 1;
    }
  }
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, input, output, registry));
}
