/// Sensor Location (0x2A5D): where on the body or the bike a sensor is mounted, a `uint8`.
/// Shared by the Cycling Speed and Cadence, Running Speed and Cadence and Cycling Power
/// services. 17–255 are reserved and rejected. GATT Specification Supplement, "Sensor Location".
public enum SensorLocation: UInt8, Sendable, Hashable, CaseIterable {
    /// 0: somewhere not listed.
    case other = 0
    /// 1: on top of the shoe.
    case topOfShoe
    /// 2: in the shoe.
    case inShoe
    /// 3: at the hip.
    case hip
    /// 4: on the front wheel.
    case frontWheel
    /// 5: on the left crank.
    case leftCrank
    /// 6: on the right crank.
    case rightCrank
    /// 7: in the left pedal.
    case leftPedal
    /// 8: in the right pedal.
    case rightPedal
    /// 9: in the front hub.
    case frontHub
    /// 10: on the rear dropout.
    case rearDropout
    /// 11: on the chainstay.
    case chainstay
    /// 12: on the rear wheel.
    case rearWheel
    /// 13: in the rear hub.
    case rearHub
    /// 14: on the chest.
    case chest
    /// 15: in the crank spider.
    case spider
    /// 16: on the chain ring.
    case chainRing
}
