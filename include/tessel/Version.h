//===- Version.h - Tessel's version -----------------------------*- C++ -*-===//

#ifndef TESSEL_VERSION_H
#define TESSEL_VERSION_H

namespace tessel {
/// The compiler version recorded with tuning results ("0.1.0").
const char *getVersion();
} // namespace tessel

#endif // TESSEL_VERSION_H
