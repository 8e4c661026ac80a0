//===- Mpi.h - Measuring candidates on the ranks of an MPI job --*- C++ -*-===//
//
// Under mpirun, `--tessel-tune="... measure=mpi"` spreads the measurements
// over hosts (docs/tuning.md): every rank runs the same tessel-opt command;
// rank 0 runs the search, and each other rank relays the candidates it is
// sent (the launch spec and its kernel images, by MPI: the hosts need not
// share a disk) to a `tessel-run --serve` worker on its GPU, then sends the
// record back. The GPU of a rank is its index among the measuring ranks of
// its host. A candidate that crashes a worker kills only that worker (the
// rank restarts it), never the rank, so the MPI job lives on.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_TUNING_MPI_H
#define TESSEL_TUNING_MPI_H

#include "tessel/Tuning/Measurer.h"

#include <optional>

namespace tessel {

/// Whether this tessel-opt was built with MPI.
bool mpiAvailable();

/// On a measuring rank of an MPI job (a rank other than 0 of a command line
/// with `measure=mpi`): serves rank 0's measurements until it is done and
/// returns the process's exit status. Otherwise none: the process goes on
/// as usual.
std::optional<int> serveMpiRank(int argc, char **argv);

/// On rank 0: the measuring ranks, each with its GPU's worker started (so
/// that a rank without a GPU, or GPUs of different models, are an error
/// here). `options.devices` is not used: each rank measures on one GPU.
llvm::Expected<std::unique_ptr<Measurer>>
createMpiMeasurer(const MeasureOptions &options);

} // namespace tessel

#endif // TESSEL_TUNING_MPI_H
