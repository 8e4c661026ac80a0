//===- tessel-opt.cpp - Tessel's mlir-opt-style driver --------------------===//
//
// Every flag of mlir-opt, plus Tessel's passes, pipelines and transform ops.
//
//===----------------------------------------------------------------------===//

#include "tessel/InitTessel.h"
#include "tessel/Version.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/CommandLine.h"

int main(int argc, char **argv) {
  llvm::cl::AddExtraVersionPrinter([](llvm::raw_ostream &os) {
    os << "Tessel " << tessel::getVersion() << "\n";
  });
  tessel::registerAllPasses();
  mlir::DialectRegistry registry;
  tessel::registerAllDialects(registry);
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "Tessel optimizer driver\n", registry));
}
