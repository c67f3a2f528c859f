/// Alert Level (0x2A06): how loudly a device should alert, a `uint8`. 3–255 are reserved and
/// refused both ways. GATT Specification Supplement, "Alert Level"; the Immediate Alert and
/// Link Loss services (Find Me and Proximity profiles) both carry it.
public enum AlertLevel: UInt8, Sendable, Hashable, CaseIterable {
    /// 0: No Alert.
    case noAlert = 0
    /// 1: Mild Alert.
    case mildAlert = 1
    /// 2: High Alert.
    case highAlert = 2
}
