import BleuCore
import Foundation

/// CoreBluetooth's `CBCharacteristic`: a characteristic a central discovered (or, for
/// ``EmulatedCBMutableCharacteristic``, one a peripheral manager publishes).
public class EmulatedCBCharacteristic: EmulatedCBAttribute {
    struct State {
        weak var service: EmulatedCBService?
        var properties: CBCharacteristicProperties
        var value: Data?
        var descriptors: [EmulatedCBDescriptor]?
        var isNotifying = false
        /// A `setNotifyValue(true)` is under way or done: a second one adds no second subscription.
        var notifyRequested = false
        /// What the central discovered (central side only).
        var remote: RemoteCharacteristic?
        // Peripheral side (mutable characteristics):
        var permissions: CBAttributePermissions = []
        var published: PublishedCharacteristic?
        var subscribedCentrals: [EmulatedCBCentral] = []
    }

    let state: Locked<State>

    init(type: CBUUID, properties: CBCharacteristicProperties, value: Data?, remote: RemoteCharacteristic?,
         service: EmulatedCBService?) {
        state = Locked(State(service: service, properties: properties, value: value, remote: remote))
        super.init(type: type)
    }

    /// The service this characteristic belongs to.
    public var service: EmulatedCBService? {
        state.withLock { $0.service }
    }

    /// The latest value read or notified; `nil` before the first.
    public var value: Data? {
        state.withLock { $0.value }
    }

    /// The descriptors discovered so far (``EmulatedCBPeripheral/discoverDescriptors(for:)``).
    public var descriptors: [EmulatedCBDescriptor]? {
        state.withLock { $0.descriptors }
    }

    /// What the characteristic allows: reads, writes, notifications…
    public var properties: CBCharacteristicProperties {
        state.withLock { $0.properties }
    }

    /// Whether notifications or indications are enabled (``EmulatedCBPeripheral/setNotifyValue(_:for:)``).
    public var isNotifying: Bool {
        state.withLock { $0.isNotifying }
    }

    var remote: RemoteCharacteristic? {
        state.withLock { $0.remote }
    }
}

/// CoreBluetooth's `CBMutableCharacteristic`: a characteristic a peripheral manager publishes.
///
/// As in CoreBluetooth, a `value` given here is static: the emulator answers reads itself and
/// the characteristic must be read-only; with `nil`, every read and write reaches the peripheral
/// manager's delegate as an ``EmulatedCBATTRequest``.
public class EmulatedCBMutableCharacteristic: EmulatedCBCharacteristic {
    /// A characteristic of this type with these properties, static value (`nil`: dynamic) and
    /// permissions.
    public init(type UUID: CBUUID, properties: CBCharacteristicProperties, value: Data?,
                permissions: CBAttributePermissions) {
        super.init(type: UUID, properties: properties, value: value, remote: nil, service: nil)
        state.withLock { $0.permissions = permissions }
    }

    /// Who may read and write the value, and with what security.
    public var permissions: CBAttributePermissions {
        get { state.withLock { $0.permissions } }
        set { state.withLock { $0.permissions = newValue } }
    }

    /// What the characteristic allows.
    public override var properties: CBCharacteristicProperties {
        get { state.withLock { $0.properties } }
        set { state.withLock { $0.properties = newValue } }
    }

    /// The static value (read when the service is added), or `nil` for a dynamic one.
    public override var value: Data? {
        get { state.withLock { $0.value } }
        set { state.withLock { $0.value = newValue } }
    }

    /// The descriptors to publish: ``EmulatedCBMutableDescriptor`` instances.
    public override var descriptors: [EmulatedCBDescriptor]? {
        get { state.withLock { $0.descriptors } }
        set { state.withLock { $0.descriptors = newValue } }
    }

    /// The centrals subscribed to this characteristic now.
    public var subscribedCentrals: [EmulatedCBCentral]? {
        state.withLock { $0.subscribedCentrals }
    }

    var published: PublishedCharacteristic? {
        state.withLock { $0.published }
    }
}
