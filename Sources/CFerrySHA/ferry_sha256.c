// SHA-256 compression with the x86 SHA extensions (SHA-NI), following the structure of
// Intel's reference code: the state lives in two registers (ABEF and CDGH), each
// _mm_sha256rnds2_epu32 does two rounds, and _mm_sha256msg1/msg2 compute the message
// schedule four words at a time. Elsewhere (arm64, older x86) the Swift implementation in
// SHA256.swift runs instead; both are checked against the same NIST vectors.
#include "ferry_sha256.h"

const uint32_t ferry_sha256_round_constants[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#include <immintrin.h>

int ferry_sha256_hardware_available(void) {
    unsigned int eax, ebx, ecx, edx;
    if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return 0;
    int ssse3 = (ecx >> 9) & 1, sse41 = (ecx >> 19) & 1;
    if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) return 0;
    int sha = (ebx >> 29) & 1;
    return ssse3 && sse41 && sha;
}


__attribute__((target("sha,ssse3,sse4.1")))
void ferry_sha256_compress_hardware(uint32_t state[8], const uint8_t *data, size_t blocks) {
    const __m128i byte_swap = _mm_set_epi64x(0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL);
    // From h0..h7 to the instructions' layout: ABEF and CDGH.
    __m128i tmp = _mm_loadu_si128((const __m128i *)&state[0]);
    __m128i state1 = _mm_loadu_si128((const __m128i *)&state[4]);
    tmp = _mm_shuffle_epi32(tmp, 0xB1);             // CDAB
    state1 = _mm_shuffle_epi32(state1, 0x1B);       // EFGH
    __m128i state0 = _mm_alignr_epi8(tmp, state1, 8);  // ABEF
    state1 = _mm_blend_epi16(state1, tmp, 0xF0);       // CDGH

    while (blocks > 0) {
        const __m128i abef = state0, cdgh = state1;
        __m128i w[4];
        // Sixteen groups of four rounds; w[g % 4] holds the four schedule words of group g.
        for (int g = 0; g < 16; g++) {
            if (g < 4) w[g] = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(data + 16 * g)), byte_swap);
            __m128i message = _mm_add_epi32(w[g & 3], _mm_loadu_si128((const __m128i *)&ferry_sha256_round_constants[4 * g]));
            state1 = _mm_sha256rnds2_epu32(state1, state0, message);
            if (g >= 3 && g <= 14) {
                __m128i next = _mm_add_epi32(w[(g + 1) & 3], _mm_alignr_epi8(w[g & 3], w[(g + 3) & 3], 4));
                w[(g + 1) & 3] = _mm_sha256msg2_epu32(next, w[g & 3]);
            }
            message = _mm_shuffle_epi32(message, 0x0E);
            state0 = _mm_sha256rnds2_epu32(state0, state1, message);
            if (g >= 1 && g <= 12) w[(g + 3) & 3] = _mm_sha256msg1_epu32(w[(g + 3) & 3], w[g & 3]);
        }
        state0 = _mm_add_epi32(state0, abef);
        state1 = _mm_add_epi32(state1, cdgh);
        data += 64;
        blocks--;
    }

    // Back to h0..h7.
    tmp = _mm_shuffle_epi32(state0, 0x1B);             // FEBA
    state1 = _mm_shuffle_epi32(state1, 0xB1);          // DCHG
    state0 = _mm_blend_epi16(tmp, state1, 0xF0);       // DCBA
    state1 = _mm_alignr_epi8(state1, tmp, 8);          // ABEF
    _mm_storeu_si128((__m128i *)&state[0], state0);
    _mm_storeu_si128((__m128i *)&state[4], state1);
}

#else

int ferry_sha256_hardware_available(void) { return 0; }

void ferry_sha256_compress_hardware(uint32_t state[8], const uint8_t *data, size_t blocks) {
    (void)state;
    (void)data;
    (void)blocks;
}

#endif
