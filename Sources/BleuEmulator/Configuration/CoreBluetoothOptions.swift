/// Switches that only the CoreBluetooth-shaped API (the `CoreBluetoothEmulator` module) reads:
/// behaviour CoreBluetooth has that the emulator's own managers do not model. Each is on by
/// default; turning one off makes that API behave as a device without the feature.
public struct CoreBluetoothOptions: Sendable, Hashable, Codable {
    /// Adds a TX power level to advertisements that carry none, as Apple devices report one.
    public var autoGenerateAdvertisementFields: Bool
    /// Reports connection events to centrals that registered for them.
    public var fireConnectionEvents: Bool
    /// Honours the restore-identifier option; off, managers never restore.
    public var stateRestorationEnabled: Bool
    /// Offers L2CAP channels; off, publishing and opening fail with "operation not supported".
    public var l2capSupported: Bool
    /// Reports ANCS authorization changes to central delegates.
    public var fireANCSAuthorizationUpdates: Bool

    /// Options; each parameter sets the property of the same name.
    public init(autoGenerateAdvertisementFields: Bool = true, fireConnectionEvents: Bool = true,
                stateRestorationEnabled: Bool = true, l2capSupported: Bool = true,
                fireANCSAuthorizationUpdates: Bool = true) {
        self.autoGenerateAdvertisementFields = autoGenerateAdvertisementFields
        self.fireConnectionEvents = fireConnectionEvents
        self.stateRestorationEnabled = stateRestorationEnabled
        self.l2capSupported = l2capSupported
        self.fireANCSAuthorizationUpdates = fireANCSAuthorizationUpdates
    }
}
