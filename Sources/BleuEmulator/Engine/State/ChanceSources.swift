import BleuCore

/// The engine's random sources, all derived from the bus's seed so a run replays from it: one
/// per concern, so that drawing for one (RSSI noise) does not shift another (faults).
struct ChanceSources {
    /// The seed everything derives from (``/BleuEmulator/EmulatorConfiguration/seed``, or a
    /// random one), printed with every injected fault.
    let seed: UInt64
    /// Injected faults: failed connections, ATT errors, link loss.
    var faults: SeededRandomNumberGenerator
    /// RSSI noise.
    var noise: SeededRandomNumberGenerator
    /// Pairing's random values (passkeys).
    var pairing: SeededRandomNumberGenerator

    init(seed: UInt64) {
        self.seed = seed
        faults = SeededRandomNumberGenerator(seed: seed ^ 0xFA17_FA17_FA17_FA17)
        noise = SeededRandomNumberGenerator(seed: seed ^ 0x0015_E015_E015_E015)
        pairing = SeededRandomNumberGenerator(seed: seed ^ 0x5A17_5A17_5A17_5A17)
    }

    /// Whether a fault with probability `rate` happens now.
    mutating func fault(_ rate: Double) -> Bool {
        rate > 0 && Double.random(in: 0..<1, using: &faults) < rate
    }
}
