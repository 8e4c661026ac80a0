//===- Version.cpp - Tessel's version -------------------------------------===//

#include "tessel/Version.h"

const char *tessel::getVersion() { return TESSEL_VERSION_STRING; }
