#!/usr/bin/env bash
# Packs tessel-db, tessel-opt, tessel-run, libTesselCAPI.so and the shared libraries
# they need that a GPU host may lack (LLVM 22, z3, ...) into one relocatable
# archive, with the schedules (and their tuned records) and the Python
# package, so they run on a machine with an NVIDIA driver and no LLVM (e.g.
# Ubuntu 24.04):
#   tessel/bin/  tessel/lib/  tessel/schedules/  tessel/python/tessel/
#
#   scripts/make-bundle.sh [--with-tests] [BUILD_DIR] [OUT.tar.xz]
#
# --with-tests adds lit, FileCheck, not, count and split-file, the lit suite, schedules
# and examples, and tessel/run-tests.sh, which runs the suite there (the
# GPU tests, `REQUIRES: cuda-gpu`, included).
#
# On the GPU host:
#   tar xf tessel-bundle.tar.xz && tessel/bin/tessel-opt --version
#   PYTHONPATH=$PWD/tessel/python python3 -c 'import tessel'   # finds the rest
# The wrappers in tessel/bin set LD_LIBRARY_PATH to tessel/lib themselves.
# XZ_LEVEL=9e makes a smaller archive, slowly (the device tool carries 64 MiB).
set -euo pipefail

with_tests=0
if [ "${1:-}" = "--with-tests" ]; then with_tests=1; shift; fi
build=${1:-build}
out=${2:-tessel-bundle.tar.xz}
tools=(tessel-db tessel-opt tessel-run)

# Libraries every glibc-based Linux has, in a version at least as new as
# Debian 12's; everything else ldd resolves is bundled.
system_libs='^(linux-vdso|ld-linux|libc|libm|libdl|libpthread|librt|libstdc\+\+|libgcc_s|libz|libzstd|liblzma)\.so'
# Open MPI (measure=mpi) comes from the host: its libmpi loads plugins of
# its own version and must match the host's mpirun. tessel-opt needs
# libmpi.so.40 there (Debian 12: libopenmpi3; Ubuntu 24.04: libopenmpi3t64),
# or a build with -DTESSEL_ENABLE_MPI=OFF.
system_libs=${system_libs%')\.so'}'|libmpi|libopen-rte|libopen-pal|libhwloc|libevent_core-2\.1|libevent_pthreads-2\.1)\.so'

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/tessel/bin" "$stage/tessel/libexec" "$stage/tessel/lib"

for tool in "${tools[@]}"; do
  [ -x "$build/bin/$tool" ] || { echo "error: $build/bin/$tool not built" >&2; exit 1; }
  strip -o "$stage/tessel/libexec/$tool" "$build/bin/$tool"
  cat > "$stage/tessel/bin/$tool" <<WRAP
#!/bin/sh
here=\$(dirname "\$(readlink -f "\$0")")
LD_LIBRARY_PATH="\$here/../lib\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}" exec "\$here/../libexec/$tool" "\$@"
WRAP
  chmod +x "$stage/tessel/bin/$tool"
  ldd "$build/bin/$tool" | awk '/=> \//{print $1, $3}' | while read -r name path; do
    if [[ ! "$name" =~ $system_libs ]] && [ ! -e "$stage/tessel/lib/$name" ]; then
      strip --strip-unneeded -o "$stage/tessel/lib/$name" "$(readlink -f "$path")"
    fi
  done
done

# The C API library finds libLLVM beside it ($ORIGIN in its RUNPATH).
[ -f "$build/lib/libTesselCAPI.so" ] || { echo "error: $build/lib/libTesselCAPI.so not built" >&2; exit 1; }
strip --strip-unneeded -o "$stage/tessel/lib/libTesselCAPI.so" "$build/lib/libTesselCAPI.so"
ldd "$build/lib/libTesselCAPI.so" | awk '/=> \//{print $1, $3}' | while read -r name path; do
  if [[ ! "$name" =~ $system_libs ]] && [ ! -e "$stage/tessel/lib/$name" ]; then
    strip --strip-unneeded -o "$stage/tessel/lib/$name" "$(readlink -f "$path")"
  fi
done

src=$(cd "$(dirname "$0")/.." && pwd)
cp "$src/README.md" "$stage/tessel/" 2>/dev/null || true
cp -r "$src/schedules" "$stage/tessel/"
mkdir -p "$stage/tessel/python"
cp -r "$src/python/tessel" "$src/python/pyproject.toml" "$stage/tessel/python/"
find "$stage/tessel/python" -name __pycache__ -prune -exec rm -rf {} +

if [ "$with_tests" = 1 ]; then
  llvm_bin=$(llvm-config-22 --bindir 2>/dev/null || echo /usr/lib/llvm-22/bin)
  mkdir -p "$stage/tessel/test-tools" "$stage/tessel/src"
  for t in FileCheck not count split-file; do strip -o "$stage/tessel/test-tools/$t" "$llvm_bin/$t"; done
  cp -r "$(dirname "$llvm_bin")/utils/lit/lit" "$stage/tessel/"
  find "$stage/tessel/lit" -name __pycache__ -prune -exec rm -rf {} +
  cp -r "$src/test" "$src/examples" "$stage/tessel/src/"
  mkdir -p "$stage/tessel/src/bench"
  cp "$src/bench/check_shapes.py" "$stage/tessel/src/bench/"
  ln -s ../schedules "$stage/tessel/src/schedules"
  ln -s ../python "$stage/tessel/src/python"
  cat > "$stage/tessel/run-tests.sh" <<'RUN'
#!/bin/sh
# Runs Tessel's lit suite with this bundle's tools: ./run-tests.sh [lit args]
here=$(dirname "$(readlink -f "$0")")
work=$(mktemp -d)
cat > "$work/lit.site.cfg.py" <<CFG
import sys
config.llvm_tools_dir = "$here/test-tools"
config.mlir_obj_dir = "$work"
config.tessel_obj_root = "$work"
config.tessel_src_root = "$here/src"
config.tessel_tools_dir = "$here/bin"
import lit.llvm
lit.llvm.initialize(lit_config, config)
lit_config.load_config(config, "$here/src/test/lit.cfg.py")
CFG
mkdir -p "$work/test"
cp "$work/lit.site.cfg.py" "$work/test/lit.site.cfg.py"
PYTHONPATH="$here" exec python3 -c 'import lit.main; lit.main.main()' "$@" "$work/test"
RUN
  chmod +x "$stage/tessel/run-tests.sh"
fi
tar -C "$stage" -cf - tessel | xz -T0 "-${XZ_LEVEL:-6}" > "$out"
echo "bundle: $out ($(du -h "$out" | cut -f1)); libraries:" $(ls "$stage/tessel/lib")
