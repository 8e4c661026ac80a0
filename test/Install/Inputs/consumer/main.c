/* Calls the installed runtime's C API: its version, and a launch file. */
#include <stdio.h>
#include <tessel-c/Runtime.h>

int main(int argc, char **argv) {
  printf("tessel runtime %s\n", tesselGetVersion());
  if (argc < 2)
    return 0;
  TesselFunctionSpec *spec = NULL;
  if (tesselFunctionSpecRead(argv[1], &spec) != 0) {
    fprintf(stderr, "error: %s\n", tesselGetLastError());
    return 1;
  }
  printf("function %s with %d arguments\n", tesselFunctionSpecGetName(spec),
         tesselFunctionSpecGetNumArguments(spec));
  tesselFunctionSpecDestroy(spec);
  return 0;
}
