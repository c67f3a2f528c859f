/// A fast, deterministic random number generator (xoshiro256**, seeded through SplitMix64).
///
/// Bleu injects randomness wherever it uses it — fault injection, jitter, RSSI noise — so a run
/// can be replayed from its seed. Not for cryptography.
public struct SeededRandomNumberGenerator: RandomNumberGenerator, Sendable, Hashable {
    private var s0, s1, s2, s3: UInt64

    /// The seed this generator started from.
    public let seed: UInt64

    public init(seed: UInt64) {
        self.seed = seed
        var x = seed
        func splitMix() -> UInt64 {
            x &+= 0x9E37_79B9_7F4A_7C15
            var z = x
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        s0 = splitMix()
        s1 = splitMix()
        s2 = splitMix()
        s3 = splitMix()
    }

    /// A generator seeded from the system's random source; read ``seed`` to replay it.
    public init() {
        self.init(seed: UInt64.random(in: .min ... .max))
    }

    public mutating func next() -> UInt64 {
        let result = rotateLeft(s1 &* 5, 7) &* 9
        let t = s1 << 17
        s2 ^= s0
        s3 ^= s1
        s1 ^= s2
        s0 ^= s3
        s2 ^= t
        s3 = rotateLeft(s3, 45)
        return result
    }

    private func rotateLeft(_ x: UInt64, _ k: UInt64) -> UInt64 {
        (x << k) | (x >> (64 - k))
    }
}
