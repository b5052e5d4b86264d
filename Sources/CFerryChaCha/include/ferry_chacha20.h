#ifndef FERRY_CHACHA20_H
#define FERRY_CHACHA20_H

#include <stddef.h>
#include <stdint.h>

/// Whether this processor and its operating system run AVX2 (x86-64: CPUID's AVX and AVX2
/// bits, and XGETBV saying the OS saves the YMM registers), which
/// ferry_chacha20_xor_eight_blocks_avx2 needs. Always 0 on other architectures.
int ferry_chacha20_avx2_available(void);

/// XORs `groups` groups of eight 64-byte ChaCha20 blocks (512 bytes each) from `input` into
/// `output` (which may be `input`), with the keystream of `state`: the 16 words of RFC 8439
/// section 2.3 (constants, key, block counter, nonce). The first block uses the counter in
/// state[12], the next ones count up from it (mod 2^32); state is not changed. Call only when
/// ferry_chacha20_avx2_available() returned 1.
void ferry_chacha20_xor_eight_blocks_avx2(const uint32_t state[16], const uint8_t *input, uint8_t *output, size_t groups);

#endif
