// The system zlib (Debian: zlib1g-dev; Apple platforms: in the SDK). Bleu uses it only in tests
// and benchmarks, as an independent CRC-32 to check and measure BleuWire's own against.
#include <zlib.h>
