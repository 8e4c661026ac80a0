//===- InitTessel.cpp - Everything a Tessel tool registers ----------------===//

#include "tessel/InitTessel.h"

#include "tessel/Pipelines/Pipelines.h"
#include "tessel/TransformOps/TesselTransformOps.h"
#include "tessel/Transforms/Passes.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"

void tessel::registerAllDialects(mlir::DialectRegistry &registry) {
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mlir::registerAllToLLVMIRTranslations(registry);
  tessel::registerTransformDialectExtension(registry);
}

void tessel::registerAllPasses() {
  mlir::registerAllPasses();
  tessel::registerTesselPasses();
  tessel::registerPipelines();
}
