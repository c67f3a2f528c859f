import BleuCore

/// What a radio's start-up learned and decided: the controller's capabilities, the address the
/// radio uses on air and its type, its lasting address, and whether scanning, advertising and
/// connecting use the LE extended commands.
struct ControllerSetup: Sendable {
    var controller = ControllerInfo()
    /// The address on air now: with privacy, the current resolvable private address.
    var address = BluetoothAddress.zero
    var ownAddressType: AddressType = .randomDevice
    /// The address that does not change while the radio runs: the identity address with
    /// privacy, else the address on air. Peer identifiers derive from it.
    var lastingAddress = BluetoothAddress.zero
    /// The IRK private addresses are made from, when privacy is on.
    var privacyKey: [UInt8]?
    /// A rotation of the private address is running.
    var rotatingAddress = false
    /// Numbers the rotation timers: only the newest rotates (a manual rotation starts a new one).
    var rotationTimer: UInt64 = 0
    var usesExtendedCommands = false

    /// Whether the controller has LE Data Length Extension (LE feature bit 5).
    var supportsDataLengthExtension: Bool { controller.leFeatures & (1 << 5) != 0 }
}
