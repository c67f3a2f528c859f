import BleuCore
import Foundation

/// CoreBluetooth's `CBService`: a service of a peripheral, as a central discovered it (or as a
/// peripheral manager published it, for ``EmulatedCBMutableService``).
public class EmulatedCBService: EmulatedCBAttribute {
    struct State {
        weak var peripheral: EmulatedCBPeripheral?
        var includedServices: [EmulatedCBService]?
        var characteristics: [EmulatedCBCharacteristic]?
        /// What the central discovered (central side only).
        var remote: RemoteService?
    }

    let state: Locked<State>
    private let primary: Bool

    init(type: CBUUID, primary: Bool, remote: RemoteService?, peripheral: EmulatedCBPeripheral?) {
        self.primary = primary
        state = Locked(State(peripheral: peripheral, remote: remote))
        super.init(type: type)
    }

    /// The peripheral this service belongs to (a central's view; `nil` for a published service).
    public var peripheral: EmulatedCBPeripheral? {
        state.withLock { $0.peripheral }
    }

    /// Whether this is a primary service.
    public var isPrimary: Bool { primary }

    /// The included services discovered so far (``EmulatedCBPeripheral/discoverIncludedServices(_:for:)``).
    public var includedServices: [EmulatedCBService]? {
        state.withLock { $0.includedServices }
    }

    /// The characteristics discovered so far (``EmulatedCBPeripheral/discoverCharacteristics(_:for:)``).
    public var characteristics: [EmulatedCBCharacteristic]? {
        state.withLock { $0.characteristics }
    }

    var remote: RemoteService? {
        state.withLock { $0.remote }
    }
}

/// CoreBluetooth's `CBMutableService`: a service a peripheral manager publishes with
/// ``EmulatedCBPeripheralManager/add(_:)``.
public class EmulatedCBMutableService: EmulatedCBService {
    /// A service of this type; `isPrimary` says whether it is a primary or a secondary service.
    public init(type UUID: CBUUID, primary isPrimary: Bool) {
        super.init(type: UUID, primary: isPrimary, remote: nil, peripheral: nil)
    }

    /// Services, published before this one, that it includes.
    public override var includedServices: [EmulatedCBService]? {
        get { state.withLock { $0.includedServices } }
        set { state.withLock { $0.includedServices = newValue } }
    }

    /// The characteristics to publish: ``EmulatedCBMutableCharacteristic`` instances.
    public override var characteristics: [EmulatedCBCharacteristic]? {
        get { state.withLock { $0.characteristics } }
        set { state.withLock { $0.characteristics = newValue } }
    }
}
