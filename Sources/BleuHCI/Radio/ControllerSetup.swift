import BleuCore

/// What a radio's start-up learned and decided: the controller's capabilities, the address the
/// radio uses on air and its type, and whether scanning, advertising and connecting use the LE
/// extended commands.
struct ControllerSetup: Sendable {
    var controller = ControllerInfo()
    var address = BluetoothAddress.zero
    var ownAddressType: AddressType = .randomDevice
    var usesExtendedCommands = false

    /// Whether the controller has LE Data Length Extension (LE feature bit 5).
    var supportsDataLengthExtension: Bool { controller.leFeatures & (1 << 5) != 0 }
}
