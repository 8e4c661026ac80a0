//===- ExportKernels.cpp - Write PTX and launch metadata to files ---------===//

#include "tessel/Transforms/LaunchMetadata.h"
#include "tessel/Transforms/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/ToolOutputFile.h"

namespace tessel {
#define GEN_PASS_DEF_TESSELEXPORTKERNELS
#include "tessel/Transforms/Passes.h.inc"
} // namespace tessel

using namespace mlir;

namespace {

struct ExportKernels : tessel::impl::TesselExportKernelsBase<ExportKernels> {
  using Base::Base;
  void runOnOperation() override;

private:
  /// Writes `contents` to `<dir>/<name>`, reporting errors at `loc`.
  LogicalResult writeFile(Location loc, StringRef name, StringRef contents);
};

/// File extension of a GPU object by its format.
static StringRef extensionOf(gpu::CompilationTarget format) {
  switch (format) {
  case gpu::CompilationTarget::Assembly:
    return "ptx";
  case gpu::CompilationTarget::Binary:
    return "cubin";
  case gpu::CompilationTarget::Fatbin:
    return "fatbin";
  case gpu::CompilationTarget::Offload:
    return "ll";
  }
  llvm_unreachable("unknown compilation target");
}

/// The largest `.ptr .align N` among the parameters of `.entry kernel` in
/// PTX text: the alignment the kernel assumes for its buffer arguments (set
/// by tessel-set-vector-alignment), 1 when it declares none.
/// `kernel`'s entry in `ptx`, from its `.entry` to the next one (empty
/// when there is none).
static StringRef entryText(StringRef ptx, StringRef kernel) {
  size_t entry = ptx.find((".entry " + kernel + "(").str());
  if (entry == StringRef::npos)
    return {};
  StringRef text = ptx.drop_front(entry);
  return text.take_front(text.find(".entry ", /*From=*/1));
}

static int64_t declaredPointerAlignment(StringRef ptx, StringRef kernel) {
  StringRef params = entryText(ptx, kernel);
  params = params.take_front(params.find(')'));
  int64_t align = 1;
  llvm::Regex re("\\.ptr \\.align ([0-9]+)");
  SmallVector<StringRef> groups;
  while (re.match(params, &groups)) {
    align = std::max<int64_t>(align, std::stoll(groups[1].str()));
    params = params.drop_front(params.find(groups[0]) + groups[0].size());
  }
  return align;
}

/// Whether `kernel`'s entry in `ptx` waits for the grid before it
/// (griddepcontrol.wait, inserted by tessel-overlap-launches).
static bool waitsForPrevious(StringRef ptx, StringRef kernel) {
  return entryText(ptx, kernel).contains("griddepcontrol.wait");
}

} // namespace

LogicalResult ExportKernels::writeFile(Location loc, StringRef name,
                                       StringRef contents) {
  SmallString<256> path(dir);
  llvm::sys::path::append(path, name);
  std::error_code ec;
  llvm::ToolOutputFile file(path, ec, llvm::sys::fs::OF_None);
  if (ec)
    return emitError(loc) << "cannot write '" << path << "': " << ec.message();
  file.os() << contents;
  file.keep();
  return success();
}

void ExportKernels::runOnOperation() {
  ModuleOp module = getOperation();

  // Everything is checked before anything is written: a failure leaves no
  // partial output.
  struct File {
    Location loc;
    std::string name, contents;
  };
  SmallVector<File> files;
  llvm::StringMap<std::string> imageOf;
  llvm::StringMap<StringRef> ptxOf;
  for (auto binary : module.getOps<gpu::BinaryOp>()) {
    ArrayRef<Attribute> objects = binary.getObjects().getValue();
    if (objects.size() != 1) {
      binary.emitError() << "expected exactly one object (one target) per "
                            "gpu.binary, found "
                         << objects.size();
      return signalPassFailure();
    }
    auto object = cast<gpu::ObjectAttr>(objects.front());
    std::string name =
        (binary.getSymName() + "." + extensionOf(object.getFormat())).str();
    files.push_back(
        {binary.getLoc(), name, object.getObject().getValue().str()});
    imageOf[binary.getSymName()] = name;
    if (object.getFormat() == gpu::CompilationTarget::Assembly)
      ptxOf[binary.getSymName()] = object.getObject().getValue();
  }

  bool any = false;
  for (auto func : module.getOps<func::FuncOp>()) {
    if (func.isExternal())
      continue;
    FailureOr<tessel::HostFunctionSpec> spec = tessel::collectLaunchSpec(func);
    if (failed(spec))
      return signalPassFailure();
    if (spec->launches.empty())
      continue;
    // Name each launch's image file so a runtime needs nothing else.
    for (tessel::LaunchSpec &launch : spec->launches) {
      auto it = imageOf.find(launch.binary);
      if (it == imageOf.end()) {
        func.emitError() << "launch of @" << launch.binary << "::@"
                         << launch.kernel
                         << " has no gpu.binary: run tessel-lower-to-ptx first";
        return signalPassFailure();
      }
      launch.image = it->second;
      if (auto ptx = ptxOf.find(launch.binary); ptx != ptxOf.end()) {
        launch.pointerAlignment =
            declaredPointerAlignment(ptx->second, launch.kernel);
        launch.waitsForPrevious = waitsForPrevious(ptx->second, launch.kernel);
      }
    }
    std::string text;
    llvm::raw_string_ostream os(text);
    os << llvm::formatv("{0:2}", tessel::toJSON(*spec)) << "\n";
    files.push_back(
        {func.getLoc(), (func.getSymName() + ".launch.json").str(), text});
    any = true;
  }
  if (!any) {
    module.emitError() << "no host function launches a kernel: nothing to "
                          "export";
    return signalPassFailure();
  }
  if (std::error_code ec = llvm::sys::fs::create_directories(dir)) {
    emitError(module.getLoc())
        << "cannot create directory '" << dir << "': " << ec.message();
    return signalPassFailure();
  }
  for (const File &file : files)
    if (failed(writeFile(file.loc, file.name, file.contents)))
      return signalPassFailure();
}
