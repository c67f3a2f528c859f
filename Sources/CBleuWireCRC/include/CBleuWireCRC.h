// CRC-32 (IEEE 802.3 polynomial, reflected: zlib's `crc32`) with the processor's own instructions,
// for BleuWire's `CRC32`. Plain C, no dependency: x86-64 folds with PCLMULQDQ, AArch64 runs the
// ARMv8 CRC32 instructions; elsewhere, or on a processor without them, there is no hardware path
// and BleuWire computes the checksum in portable Swift.

#ifndef CBLEUWIRECRC_H
#define CBLEUWIRECRC_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// No hardware path on this processor: do not call `bleuwire_crc32_hardware_update`.
#define BLEUWIRE_CRC32_HARDWARE_NONE 0
/// x86-64 with PCLMULQDQ and SSE4.1: carry-less multiplication folding.
#define BLEUWIRE_CRC32_HARDWARE_PCLMUL 1
/// AArch64 with the ARMv8 CRC32 instructions (the IEEE polynomial, not CRC-32C).
#define BLEUWIRE_CRC32_HARDWARE_ARMV8 2

/// Which hardware path `bleuwire_crc32_hardware_update` takes on this processor, one of the
/// `BLEUWIRE_CRC32_HARDWARE_…` values. Detected once (CPUID, the auxiliary vector or sysctl),
/// then cached; safe to call from any thread.
int bleuwire_crc32_hardware(void);

/// The CRC-32 register after the `length` bytes at `bytes`, starting from `crc_register`: the
/// register is the checksum before its final inversion (start from 0xFFFFFFFF and invert the
/// result for zlib's value). `bytes` may be NULL when `length` is 0.
///
/// Call only when `bleuwire_crc32_hardware()` is not `BLEUWIRE_CRC32_HARDWARE_NONE`.
uint32_t bleuwire_crc32_hardware_update(uint32_t crc_register, const void *bytes, size_t length);

#ifdef __cplusplus
}
#endif

#endif
