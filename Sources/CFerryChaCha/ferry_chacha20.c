// ChaCha20-Poly1305's two hot loops. First, ChaCha20 eight blocks at a time with AVX2 (C: Swift has no intrinsics, and compiles for the
// x86-64 baseline, SSE2). Each of the sixteen state words is one 256-bit register holding that
// word of eight consecutive blocks, one block per 32-bit lane, so a quarter-round is eight
// quarter-rounds at once; rotations by 16 and 8 are byte shuffles. After the rounds an 8 x 8
// transpose turns lanes back into blocks. No branch or memory index depends on the key or the
// data. Elsewhere (arm64, x86 without AVX2) the four-lane Swift path in ChaCha20+Blocks.swift
// runs instead; both are checked against the same one-block reference. Second, Poly1305's
// block loop with 128-bit integers, which the compiler turns into add-with-carry: twice as fast
// as the same steps in Swift, whose carries cost a few operations each (Poly1305.swift has
// them, for targets without 128-bit integers; both are checked against a 26-bit reference).
#include "ferry_chacha20.h"
#include <string.h>

#if defined(__SIZEOF_INT128__)
typedef unsigned __int128 ferry_u128;

int ferry_poly1305_available(void) { return 1; }

/// The carry out of sum = a + b (mod 2^64), from the sum and b alone, without a comparison.
#define FERRY_CARRY(sum, b) ((((sum) ^ (((sum) ^ (b)) | (((sum) - (b)) ^ (b))))) >> 63)

void ferry_poly1305_blocks(uint64_t accumulator[3], const uint64_t r[2], const void *blocks, size_t count, uint64_t high_bit) {
    const uint64_t r0 = r[0], r1 = r[1], s1 = r1 + (r1 >> 2);  // s1 = 5/4 r1: clamping clears r1's low bits
    uint64_t h0 = accumulator[0], h1 = accumulator[1], h2 = accumulator[2];
    const uint8_t *block = blocks;
    for (size_t index = 0; index < count; index++, block += 16) {
        uint64_t m0, m1;
        memcpy(&m0, block, 8);
        memcpy(&m1, block + 8, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
        m0 = __builtin_bswap64(m0);
        m1 = __builtin_bswap64(m1);
#endif
        ferry_u128 d0 = (ferry_u128)h0 + m0;
        h0 = (uint64_t)d0;
        ferry_u128 d1 = (ferry_u128)h1 + (uint64_t)(d0 >> 64) + m1;
        h1 = (uint64_t)d1;
        h2 += (uint64_t)(d1 >> 64) + high_bit;
        // d0 = h0 r0 + h1 s1, d1 = h0 r1 + h1 r0 + h2 s1, d2 = h2 r0 (2^130 = 5 folds the rest).
        d0 = (ferry_u128)h0 * r0 + (ferry_u128)h1 * s1;
        d1 = (ferry_u128)h0 * r1 + (ferry_u128)h1 * r0 + (ferry_u128)(h2 * s1);
        h2 = h2 * r0;
        h0 = (uint64_t)d0;
        d1 += (uint64_t)(d0 >> 64);
        h1 = (uint64_t)d1;
        h2 += (uint64_t)(d1 >> 64);
        // Everything from bit 130 up, times 5, back into the bottom.
        uint64_t carry = (h2 >> 2) + (h2 & ~(uint64_t)3);
        h2 &= 3;
        h0 += carry;
        carry = FERRY_CARRY(h0, carry);
        h1 += carry;
        h2 += FERRY_CARRY(h1, carry);
    }
    accumulator[0] = h0;
    accumulator[1] = h1;
    accumulator[2] = h2;
}

#else

int ferry_poly1305_available(void) { return 0; }

void ferry_poly1305_blocks(uint64_t accumulator[3], const uint64_t r[2], const void *blocks, size_t count, uint64_t high_bit) {
    (void)accumulator;
    (void)r;
    (void)blocks;
    (void)count;
    (void)high_bit;
}

#endif

#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>

int ferry_chacha20_avx2_available(void) {
    unsigned int eax, ebx, ecx, edx;
    if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return 0;
    int osxsave = (ecx >> 27) & 1, avx = (ecx >> 28) & 1;
    if (!osxsave || !avx) return 0;
    unsigned int xcr0_low, xcr0_high;
    __asm__ volatile("xgetbv" : "=a"(xcr0_low), "=d"(xcr0_high) : "c"(0));
    (void)xcr0_high;
    if ((xcr0_low & 6) != 6) return 0;  // the OS saves XMM and YMM state
    if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) return 0;
    return (ebx >> 5) & 1;
}

#define FERRY_ROTATE(v, n) _mm256_or_si256(_mm256_slli_epi32((v), (n)), _mm256_srli_epi32((v), 32 - (n)))

#define FERRY_QUARTER_ROUND(a, b, c, d)                                  \
    a = _mm256_add_epi32(a, b); d = _mm256_xor_si256(d, a); d = _mm256_shuffle_epi8(d, rotate16); \
    c = _mm256_add_epi32(c, d); b = _mm256_xor_si256(b, c); b = FERRY_ROTATE(b, 12);            \
    a = _mm256_add_epi32(a, b); d = _mm256_xor_si256(d, a); d = _mm256_shuffle_epi8(d, rotate8);  \
    c = _mm256_add_epi32(c, d); b = _mm256_xor_si256(b, c); b = FERRY_ROTATE(b, 7);

/// Turns eight registers of one word per block (lane b = block b) into eight registers of eight
/// words per block, and XORs them into the 32 bytes at `offset` of each of the eight blocks.
__attribute__((target("avx2")))
static inline void ferry_xor_transposed(__m256i a0, __m256i a1, __m256i a2, __m256i a3, __m256i a4, __m256i a5, __m256i a6,
                                        __m256i a7, const uint8_t *input, uint8_t *output, size_t offset) {
    // Pairs of words: t0 = a0[0] a1[0] a0[1] a1[1] | a0[4] a1[4] a0[5] a1[5], and so on.
    __m256i t0 = _mm256_unpacklo_epi32(a0, a1), t1 = _mm256_unpackhi_epi32(a0, a1);
    __m256i t2 = _mm256_unpacklo_epi32(a2, a3), t3 = _mm256_unpackhi_epi32(a2, a3);
    __m256i t4 = _mm256_unpacklo_epi32(a4, a5), t5 = _mm256_unpackhi_epi32(a4, a5);
    __m256i t6 = _mm256_unpacklo_epi32(a6, a7), t7 = _mm256_unpackhi_epi32(a6, a7);
    // Four words of one block in each 128-bit half: u0 = block 0 words 0-3 | block 4 words 0-3.
    __m256i u0 = _mm256_unpacklo_epi64(t0, t2), u1 = _mm256_unpackhi_epi64(t0, t2);
    __m256i u2 = _mm256_unpacklo_epi64(t1, t3), u3 = _mm256_unpackhi_epi64(t1, t3);
    __m256i u4 = _mm256_unpacklo_epi64(t4, t6), u5 = _mm256_unpackhi_epi64(t4, t6);
    __m256i u6 = _mm256_unpacklo_epi64(t5, t7), u7 = _mm256_unpackhi_epi64(t5, t7);
    __m256i blocks[8] = {
        _mm256_permute2x128_si256(u0, u4, 0x20), _mm256_permute2x128_si256(u1, u5, 0x20),
        _mm256_permute2x128_si256(u2, u6, 0x20), _mm256_permute2x128_si256(u3, u7, 0x20),
        _mm256_permute2x128_si256(u0, u4, 0x31), _mm256_permute2x128_si256(u1, u5, 0x31),
        _mm256_permute2x128_si256(u2, u6, 0x31), _mm256_permute2x128_si256(u3, u7, 0x31),
    };
    for (int block = 0; block < 8; block++) {
        size_t at = 64 * (size_t)block + offset;
        __m256i data = _mm256_loadu_si256((const __m256i *)(input + at));
        _mm256_storeu_si256((__m256i *)(output + at), _mm256_xor_si256(data, blocks[block]));
    }
}

__attribute__((target("avx2")))
void ferry_chacha20_xor_eight_blocks_avx2(const uint32_t state[16], const uint8_t *input, uint8_t *output, size_t groups) {
    const __m256i rotate16 = _mm256_set_epi8(13, 12, 15, 14, 9, 8, 11, 10, 5, 4, 7, 6, 1, 0, 3, 2,
                                             13, 12, 15, 14, 9, 8, 11, 10, 5, 4, 7, 6, 1, 0, 3, 2);
    const __m256i rotate8 = _mm256_set_epi8(14, 13, 12, 15, 10, 9, 8, 11, 6, 5, 4, 7, 2, 1, 0, 3,
                                            14, 13, 12, 15, 10, 9, 8, 11, 6, 5, 4, 7, 2, 1, 0, 3);
    __m256i initial[16];
    for (int word = 0; word < 16; word++) initial[word] = _mm256_set1_epi32((int)state[word]);
    initial[12] = _mm256_add_epi32(initial[12], _mm256_set_epi32(7, 6, 5, 4, 3, 2, 1, 0));
    const __m256i eight = _mm256_set1_epi32(8);

    for (size_t group = 0; group < groups; group++) {
        __m256i x0 = initial[0], x1 = initial[1], x2 = initial[2], x3 = initial[3];
        __m256i x4 = initial[4], x5 = initial[5], x6 = initial[6], x7 = initial[7];
        __m256i x8 = initial[8], x9 = initial[9], x10 = initial[10], x11 = initial[11];
        __m256i x12 = initial[12], x13 = initial[13], x14 = initial[14], x15 = initial[15];
        for (int round = 0; round < 10; round++) {
            FERRY_QUARTER_ROUND(x0, x4, x8, x12)
            FERRY_QUARTER_ROUND(x1, x5, x9, x13)
            FERRY_QUARTER_ROUND(x2, x6, x10, x14)
            FERRY_QUARTER_ROUND(x3, x7, x11, x15)
            FERRY_QUARTER_ROUND(x0, x5, x10, x15)
            FERRY_QUARTER_ROUND(x1, x6, x11, x12)
            FERRY_QUARTER_ROUND(x2, x7, x8, x13)
            FERRY_QUARTER_ROUND(x3, x4, x9, x14)
        }
        x0 = _mm256_add_epi32(x0, initial[0]); x1 = _mm256_add_epi32(x1, initial[1]);
        x2 = _mm256_add_epi32(x2, initial[2]); x3 = _mm256_add_epi32(x3, initial[3]);
        x4 = _mm256_add_epi32(x4, initial[4]); x5 = _mm256_add_epi32(x5, initial[5]);
        x6 = _mm256_add_epi32(x6, initial[6]); x7 = _mm256_add_epi32(x7, initial[7]);
        x8 = _mm256_add_epi32(x8, initial[8]); x9 = _mm256_add_epi32(x9, initial[9]);
        x10 = _mm256_add_epi32(x10, initial[10]); x11 = _mm256_add_epi32(x11, initial[11]);
        x12 = _mm256_add_epi32(x12, initial[12]); x13 = _mm256_add_epi32(x13, initial[13]);
        x14 = _mm256_add_epi32(x14, initial[14]); x15 = _mm256_add_epi32(x15, initial[15]);
        ferry_xor_transposed(x0, x1, x2, x3, x4, x5, x6, x7, input, output, 0);
        ferry_xor_transposed(x8, x9, x10, x11, x12, x13, x14, x15, input, output, 32);
        initial[12] = _mm256_add_epi32(initial[12], eight);
        input += 512;
        output += 512;
    }
}

#else

int ferry_chacha20_avx2_available(void) { return 0; }

void ferry_chacha20_xor_eight_blocks_avx2(const uint32_t state[16], const uint8_t *input, uint8_t *output, size_t groups) {
    (void)state;
    (void)input;
    (void)output;
    (void)groups;
}

#endif
