import BleuCore
import Foundation

/// One radio an orchestrator reaches devices through: a central (a local controller, one over
/// TCP, an emulated one) and how many links it can hold.
public struct FleetRadio: Sendable {
    /// The radio's name in logs and in ``FleetOrchestrator/radio(of:)``; unique in a fleet.
    public var name: String
    /// The central of the radio.
    public var central: any CentralManager
    /// Links the radio can hold at once (its controller's connection slots, or fewer).
    public var connectionSlots: Int

    /// A radio; each parameter sets the property of the same name.
    public init(name: String, central: any CentralManager, connectionSlots: Int) {
        self.name = name
        self.central = central
        self.connectionSlots = max(1, connectionSlots)
    }
}

/// A device's link as an orchestrator made it: which radio, and the identifier that radio's
/// central knows the device by — with several radios, not the fleet's identifier.
public struct FleetLink: Sendable {
    /// The device, as the fleet knows it.
    public var device: UUID
    /// The name of the radio the link is on.
    public var radio: String
    /// The central of that radio: discover, read, write and subscribe through it.
    public var central: any CentralManager
    /// The identifier `central` knows the device by.
    public var peripheral: UUID

    /// A link; each parameter sets the property of the same name.
    public init(device: UUID, radio: String, central: any CentralManager, peripheral: UUID) {
        self.device = device
        self.radio = radio
        self.central = central
        self.peripheral = peripheral
    }
}
