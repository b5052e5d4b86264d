#ifndef FERRY_SHA256_H
#define FERRY_SHA256_H

#include <stddef.h>
#include <stdint.h>

/// The 64 round constants K of FIPS 180-4, shared by both compression paths.
extern const uint32_t ferry_sha256_round_constants[64];

/// Whether this processor has the SHA-256 instructions (x86 SHA extensions with SSSE3 and
/// SSE4.1) that ferry_sha256_compress_hardware uses.
int ferry_sha256_hardware_available(void);

/// Runs the SHA-256 compression function over `blocks` 64-byte blocks at `data`, updating the
/// eight state words (h0...h7, in order) with the processor's SHA instructions. Call only when
/// ferry_sha256_hardware_available() returned 1.
void ferry_sha256_compress_hardware(uint32_t state[8], const uint8_t *data, size_t blocks);

#endif
