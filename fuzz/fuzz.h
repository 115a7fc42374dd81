/*
 * fuzz.h — the libFuzzer entry points, declared once for every fuzz/fuzz_*.c
 * (the build uses -Wmissing-prototypes) and for the corpus replayer.
 *
 * A target defines LLVMFuzzerTestOneInput: it must accept any bytes, return
 * 0, and free what it allocates (leaks are reported). LLVMFuzzerInitialize is
 * optional; define it only for one-time setup.
 */
#ifndef SL_FUZZ_H
#define SL_FUZZ_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

#endif
