// CRC-32 with the IEEE 802.3 polynomial, reflected (zlib's `crc32`), on the processor's own
// instructions. See include/CBleuWireCRC.h for the contract; BleuWire's CRC32.swift is the one
// caller, and its tests check every path against zlib.
//
// Notation. A byte stream is a polynomial over GF(2): the first bit on the wire (bit 0 of the
// first byte, as the CRC is reflected) has the highest degree. The CRC register after a stream M
// is M(x)·x^32 mod P(x), P = x^32 + 0x04C11DB7, with the initial register XORed into the first 32
// bits of M (which is why a register can be carried from one call to the next). A 16-byte block
// loaded little-endian into an XMM register holds its polynomial with register bit i as the
// coefficient of x^(127-i); a 64-bit lane holds a polynomial of degree < 64 with bit i as the
// coefficient of x^(63-i). A carry-less product of two such lanes then has bit t as the
// coefficient of x^(126-t): read as a 128-bit block it is the product times x, which the constants
// below absorb (each is x^(e-1) mod P where the algebra wants x^e).

#include "CBleuWireCRC.h"

#include <string.h>

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
#define BLEUWIRE_CRC_X86 1
#elif defined(__aarch64__) && (defined(__clang__) || defined(__GNUC__)) && defined(__BYTE_ORDER__) \
    && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define BLEUWIRE_CRC_ARM 1
#endif

#if defined(BLEUWIRE_CRC_X86) || defined(BLEUWIRE_CRC_ARM)
#include <stdatomic.h>

// The detected path plus one, so that 0 means "not detected yet". Detection is idempotent, so
// threads racing on the first call at worst detect twice; relaxed atomics keep that race defined.
static _Atomic int detected;

static int detect(void);

int bleuwire_crc32_hardware(void) {
    int known = atomic_load_explicit(&detected, memory_order_relaxed);
    if (known == 0) {
        known = detect() + 1;
        atomic_store_explicit(&detected, known, memory_order_relaxed);
    }
    return known - 1;
}
#else
int bleuwire_crc32_hardware(void) { return BLEUWIRE_CRC32_HARDWARE_NONE; }

uint32_t bleuwire_crc32_hardware_update(uint32_t crc_register, const void *bytes, size_t length) {
    (void)bytes;
    (void)length;
    return crc_register;  // never called: there is no hardware path here
}
#endif

// ---------------------------------------------------------------------------------------------
// x86-64: folding with carry-less multiplication (PCLMULQDQ), after Intel's "Fast CRC Computation
// for Generic Polynomials Using PCLMULQDQ Instruction" (Gopal et al., 2009).
//
// Folding. To append block B to a 128-bit remainder A that lies D bits earlier in the stream,
// A·x^D + B ≡ A_hi·(x^(D+64) mod P) + A_lo·(x^D mod P) + B, where A_hi (the low lane: the earlier,
// higher-degree half) and A_lo are A's halves. Each product of a 64-bit half with a 32-bit
// constant fits in 128 bits, so a fold is two carry-less products and two XORs, and the result is
// again a 128-bit remainder (congruent, not reduced). Four remainders advance 64 bytes at a time
// (D = 512) so that the multiplier's latency overlaps; they are then folded into one (D = 128),
// which takes the remaining whole blocks.
//
// Tail. The last t < 16 bytes: A·x^(8t) + T is A's first t bytes times x^128 (moved to the end
// of an otherwise zero block and folded once by 128) plus the block made of A's other 16 - t bytes
// followed by T (T is the end of the 16 bytes ending at the stream's end). PSHUFB moves the bytes
// and PBLENDVB merges T.
//
// Reduction. R = A·x^32 mod P: the high-degree lane is folded down twice (by x^96, then x^64) to a
// 64-bit C, and C mod P is a Barrett reduction with μ = ⌊x^64 / P⌋: q = ⌊⌊C / x^32⌋·μ / x^32⌋,
// R = (C + q·P) mod x^32.
//
// The constants are lanes as described at the top of the file (bit i is the coefficient of
// x^(63-i), so a polynomial of degree < 32 sits in bits 32–63):
//   fold by 512: x^575 mod P, x^511 mod P     fold by 128: x^191 mod P, x^127 mod P
//   reduction:   x^95 mod P, x^63 mod P       Barrett: μ·x^31 and P·x^31
#if defined(BLEUWIRE_CRC_X86)
#include <cpuid.h>
#include <immintrin.h>

#define BLEUWIRE_PCLMUL __attribute__((target("pclmul,sse4.1")))

static int detect(void) {
    unsigned int eax = 0, ebx = 0, ecx = 0, edx = 0;
    if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) {
        return BLEUWIRE_CRC32_HARDWARE_NONE;
    }
    // CPUID.1:ECX bit 1 is PCLMULQDQ, bit 19 SSE4.1 (which implies SSSE3's PSHUFB). They use only
    // XMM registers, whose state every x86-64 operating system saves.
    const unsigned int pclmul = 1u << 1, sse41 = 1u << 19;
    return (ecx & pclmul) && (ecx & sse41) ? BLEUWIRE_CRC32_HARDWARE_PCLMUL : BLEUWIRE_CRC32_HARDWARE_NONE;
}

// Lanes are given as (high lane, low lane) to _mm_set_epi64x.
#define BLEUWIRE_LANES(high, low) _mm_set_epi64x((long long)(high##ULL), (long long)(low##ULL))

// PSHUFB masks for a tail of t bytes: the 16 bytes from offset t move a block's first t bytes to
// its end (zeros before); the 16 from offset 16 + t move its last 16 - t bytes to its start (zeros
// after, where the mask's top bit also selects the tail in PBLENDVB).
static const uint8_t shuffle_masks[48] = {
    0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
    0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x0E, 0x0F,
    0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
};

BLEUWIRE_PCLMUL static inline __m128i load(const uint8_t *p) {
    return _mm_loadu_si128((const __m128i *)(const void *)p);
}

/// `a` moved D bits further into the stream, for the constants of D (low lane: x^(D+63) mod P,
/// high lane: x^(D-1) mod P).
BLEUWIRE_PCLMUL static inline __m128i fold(__m128i a, __m128i k) {
    return _mm_xor_si128(_mm_clmulepi64_si128(a, k, 0x00), _mm_clmulepi64_si128(a, k, 0x11));
}

/// The register C mod P, for C (degree < 64) in the high lane of `c` (its low lane is ignored).
BLEUWIRE_PCLMUL static inline uint32_t barrett(__m128i c) {
    const __m128i mu_p = BLEUWIRE_LANES(0x1DB710641, 0x1F7011641);  // P·x^31, μ·x^31
    const __m128i low32 = _mm_set_epi32(0, 0, 0, -1);
    __m128i high = _mm_srli_si128(c, 8);
    // ⌊C / x^32⌋·μ, times x^63: its coefficients from x^95 up, ⌊…/x^32⌋ = q, land in bits 0–31.
    __m128i q = _mm_and_si128(_mm_clmulepi64_si128(_mm_and_si128(high, low32), mu_p, 0x00), low32);
    // q·P times x^63: its coefficients below x^32 land in bits 32–63, beside C's in `high`.
    __m128i qp = _mm_clmulepi64_si128(q, mu_p, 0x10);
    return (uint32_t)_mm_extract_epi32(_mm_xor_si128(qp, high), 1);
}

/// A·x^32 mod P for a 128-bit remainder A.
BLEUWIRE_PCLMUL static inline uint32_t reduce(__m128i a) {
    const __m128i k = BLEUWIRE_LANES(0xB8BC676500000000, 0xCCAA009E00000000);  // x^63, x^95 mod P
    // A_hi·x^96 folded down, plus A_lo·x^32 (A's high lane moved to bits 32–95): degree < 96.
    __m128i b = _mm_xor_si128(_mm_clmulepi64_si128(a, k, 0x00), _mm_slli_si128(_mm_srli_si128(a, 8), 4));
    // Its part from x^64 up (bits 32–63) folded down by x^64 into the high lane: degree < 64.
    return barrett(_mm_xor_si128(_mm_clmulepi64_si128(b, k, 0x10), b));
}

BLEUWIRE_PCLMUL static uint32_t update_pclmul(uint32_t crc, const uint8_t *p, size_t n) {
    const __m128i k128 = BLEUWIRE_LANES(0x9BA54C6F00000000, 0x65673B4600000000);  // x^127, x^191 mod P
    const __m128i k512 = BLEUWIRE_LANES(0xCAD38E8F00000000, 0x653D982200000000);  // x^511, x^575 mod P
    if (n < 16) {
        if (n == 0) {
            return crc;
        }
        if (n < 4) {
            // C = crc·x^(8n) + M·x^32 (degree < 56): the register and the bytes, XORed, shifted
            // so that the lane's last bit is x^0.
            uint32_t bytes = 0;
            memcpy(&bytes, p, n);
            uint64_t c = (uint64_t)(crc ^ bytes) << (32 - 8 * n);
            return barrett(_mm_set_epi64x((long long)c, 0));
        }
        // Leading zero bytes do not change a remainder: the bytes at the end of a zero block, the
        // register XORed into their first four.
        uint8_t block[16] = {0};
        memcpy(block + 16 - n, p, n);
        uint32_t head;
        memcpy(&head, block + 16 - n, 4);
        head ^= crc;
        memcpy(block + 16 - n, &head, 4);
        return reduce(load(block));
    }

    __m128i a = _mm_xor_si128(load(p), _mm_cvtsi32_si128((int)crc));
    p += 16;
    n -= 16;
    if (n >= 48) {
        __m128i a1 = load(p), a2 = load(p + 16), a3 = load(p + 32);
        p += 48;
        n -= 48;
        while (n >= 64) {
            a = _mm_xor_si128(fold(a, k512), load(p));
            a1 = _mm_xor_si128(fold(a1, k512), load(p + 16));
            a2 = _mm_xor_si128(fold(a2, k512), load(p + 32));
            a3 = _mm_xor_si128(fold(a3, k512), load(p + 48));
            p += 64;
            n -= 64;
        }
        a = _mm_xor_si128(fold(a, k128), a1);
        a = _mm_xor_si128(fold(a, k128), a2);
        a = _mm_xor_si128(fold(a, k128), a3);
    }
    while (n >= 16) {
        a = _mm_xor_si128(fold(a, k128), load(p));
        p += 16;
        n -= 16;
    }
    if (n > 0) {
        // t = n bytes remain; the 16 bytes ending at the stream's end end with them.
        __m128i last = load(p + n - 16);
        // Bytes j ≥ 16 - t take A's bytes j - (16 - t): A's first t bytes, at the end of a zero block.
        __m128i first = _mm_shuffle_epi8(a, load(shuffle_masks + n));
        // Bytes j < 16 - t take A's bytes j + t; the mask's top bit is set for j ≥ 16 - t, where
        // the blend takes the tail from `last`.
        __m128i rest_mask = load(shuffle_masks + 16 + n);
        __m128i rest = _mm_blendv_epi8(_mm_shuffle_epi8(a, rest_mask), last, rest_mask);
        a = _mm_xor_si128(fold(first, k128), rest);
    }
    return reduce(a);
}

uint32_t bleuwire_crc32_hardware_update(uint32_t crc_register, const void *bytes, size_t length) {
    return update_pclmul(crc_register, (const uint8_t *)bytes, length);
}
#endif

// ---------------------------------------------------------------------------------------------
// AArch64: the ARMv8 CRC32 instructions (CRC32X/W/H/B: the IEEE polynomial, reflected, on the
// register as is — no inversion). Optional in ARMv8.0, so detected at run time unless the
// compiler targets a processor that has them (__ARM_FEATURE_CRC32, as for Apple's M-series).
#if defined(BLEUWIRE_CRC_ARM)
#if defined(__ARM_FEATURE_CRC32)
#define BLEUWIRE_CRC
#elif defined(__clang__)
#define BLEUWIRE_CRC __attribute__((target("crc")))
#else
#define BLEUWIRE_CRC __attribute__((target("+crc")))
#endif

#if defined(__clang__)
// Clang's builtins, valid in a function compiled for "crc" whatever arm_acle.h's version guards.
#define BLEUWIRE_CRC32X(c, v) __builtin_arm_crc32d(c, v)
#define BLEUWIRE_CRC32W(c, v) __builtin_arm_crc32w(c, v)
#define BLEUWIRE_CRC32H(c, v) __builtin_arm_crc32h(c, v)
#define BLEUWIRE_CRC32B(c, v) __builtin_arm_crc32b(c, v)
#else
#include <arm_acle.h>
#define BLEUWIRE_CRC32X(c, v) __crc32d(c, v)
#define BLEUWIRE_CRC32W(c, v) __crc32w(c, v)
#define BLEUWIRE_CRC32H(c, v) __crc32h(c, v)
#define BLEUWIRE_CRC32B(c, v) __crc32b(c, v)
#endif

#if defined(__ARM_FEATURE_CRC32)
static int detect(void) { return BLEUWIRE_CRC32_HARDWARE_ARMV8; }
#elif defined(__linux__)
#include <sys/auxv.h>
#ifndef HWCAP_CRC32
#define HWCAP_CRC32 (1UL << 7)  // AArch64 Linux ABI
#endif
static int detect(void) {
    return (getauxval(AT_HWCAP) & HWCAP_CRC32) ? BLEUWIRE_CRC32_HARDWARE_ARMV8 : BLEUWIRE_CRC32_HARDWARE_NONE;
}
#elif defined(__APPLE__)
#include <sys/sysctl.h>
static int detect(void) {
    int present = 0;
    size_t size = sizeof(present);
    if (sysctlbyname("hw.optional.armv8_crc32", &present, &size, NULL, 0) != 0) {
        return BLEUWIRE_CRC32_HARDWARE_NONE;
    }
    return present ? BLEUWIRE_CRC32_HARDWARE_ARMV8 : BLEUWIRE_CRC32_HARDWARE_NONE;
}
#else
static int detect(void) { return BLEUWIRE_CRC32_HARDWARE_NONE; }
#endif

BLEUWIRE_CRC static uint32_t update_armv8(uint32_t crc, const uint8_t *p, size_t n) {
    uint64_t word;
    while (n >= 8) {
        memcpy(&word, p, 8);
        crc = BLEUWIRE_CRC32X(crc, word);
        p += 8;
        n -= 8;
    }
    if (n >= 4) {
        uint32_t half;
        memcpy(&half, p, 4);
        crc = BLEUWIRE_CRC32W(crc, half);
        p += 4;
        n -= 4;
    }
    if (n >= 2) {
        uint16_t quarter;
        memcpy(&quarter, p, 2);
        crc = BLEUWIRE_CRC32H(crc, quarter);
        p += 2;
        n -= 2;
    }
    if (n > 0) {
        crc = BLEUWIRE_CRC32B(crc, *p);
    }
    return crc;
}

uint32_t bleuwire_crc32_hardware_update(uint32_t crc_register, const void *bytes, size_t length) {
    return update_armv8(crc_register, (const uint8_t *)bytes, length);
}
#endif
