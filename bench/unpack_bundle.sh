# Sourced by the device-session scripts (bench/*_session.sh) with $here set
# to the checkout: unpacks the bundle they carry (.bundle/tessel-bundle.tar.xz,
# scripts/make-bundle.sh) to /tmp/tessel once per machine. B is its root.
B=/tmp/tessel/tessel
if [ ! -x "$B/bin/tessel-opt" ]; then
  mkdir -p /tmp/tessel && tar -xJf "$here/.bundle/tessel-bundle.tar.xz" -C /tmp/tessel
fi
