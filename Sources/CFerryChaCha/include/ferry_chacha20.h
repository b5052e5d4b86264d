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

/// Whether ferry_poly1305_blocks is compiled here: it needs the compiler's 128-bit integers
/// (every 64-bit target of GCC and Clang). Where it returns 0, Poly1305.swift's loop runs.
int ferry_poly1305_available(void);

/// Poly1305's h = (h + block + high_bit * 2^128) * r mod 2^130 - 5 (partly reduced), for each
/// of `count` 16-byte blocks at `blocks`, in radix 2^64: `accumulator` is h0, h1, h2 (h =
/// h0 + 2^64 h1 + 2^128 h2, h2 below 8) and `r` the clamped r0, r1. The same steps whatever the
/// key and data: carries are 128-bit additions and masks, never branches.
void ferry_poly1305_blocks(uint64_t accumulator[3], const uint64_t r[2], const void *blocks, size_t count, uint64_t high_bit);

#endif
