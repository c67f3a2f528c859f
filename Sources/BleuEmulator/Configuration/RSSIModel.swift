import Foundation

/// How the emulator computes received signal strength: a log-distance path loss model with
/// uniform noise, and a range past which a peripheral cannot be heard.
///
/// `rssi = atOneMeter − 10 · pathLossExponent · log10(distance) ± variation`
public struct RSSIModel: Sendable, Hashable, Codable {
    /// The RSSI at one metre, in dBm (a typical phone sees about −59 dBm).
    public var atOneMeter: Int
    /// The path loss exponent: 2 in free space, 2.7–3.5 indoors.
    public var pathLossExponent: Double
    /// The largest noise added or subtracted, in dB, drawn uniformly from the bus's seeded generator.
    public var variation: Int
    /// The distance of a peripheral nobody placed, in metres.
    public var defaultDistance: Double
    /// Peripherals farther than this, in metres, are out of range: not heard by scans, and
    /// their links are lost (supervision timeout).
    public var range: Double

    /// A model; each parameter sets the property of the same name.
    public init(atOneMeter: Int = -59, pathLossExponent: Double = 2.0, variation: Int = 3,
                defaultDistance: Double = 1.0, range: Double = 50) {
        self.atOneMeter = atOneMeter
        self.pathLossExponent = pathLossExponent
        self.variation = variation
        self.defaultDistance = defaultDistance
        self.range = range
    }

    /// The RSSI at `distance` metres before noise, in dBm.
    public func meanRSSI(atDistance distance: Double) -> Int {
        let metres = max(distance, 0.01)
        return atOneMeter - Int((10 * pathLossExponent * log10(metres)).rounded())
    }

    /// Whether a peripheral at `distance` metres can be heard.
    public func isInRange(_ distance: Double) -> Bool {
        distance <= range
    }
}
