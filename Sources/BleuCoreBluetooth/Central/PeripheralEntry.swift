import BleuCore
import CoreBluetoothVocabulary
import Foundation

/// What a central manager keeps about one peripheral, on the manager's queue: CoreBluetooth's
/// object for it, its connection, the handles given to its attributes, and the operations
/// waiting for its callbacks.
///
/// CoreBluetooth shows no attribute handles, so the manager gives its own: unique per
/// peripheral, and stable — an attribute found again (after a reconnection, or by another
/// discovery) keeps its handle, because handles are also kept by the attribute's place (its
/// UUID and rank among same-UUID siblings under the same parent). A service has one handle
/// (its `endHandle` is the same); a characteristic two, declaration and value; a descriptor one.
final class PeripheralEntry {
    /// One attribute: CoreBluetooth's object, where it sits, and what the central reported.
    struct Attribute<Object: AnyObject, Remote> {
        var object: Object
        var place: Place
        var remote: Remote
    }

    /// Where an attribute sits: what a rediscovered attribute is recognised by.
    struct Place: Hashable {
        enum Kind: Hashable { case service, included, characteristic, descriptor }
        var kind: Kind
        /// The handle of the parent (service, characteristic), 0 for a primary service.
        var parent: UInt16
        var uuid: BluetoothUUID
        /// The rank among the parent's attributes with the same UUID.
        var rank: Int
    }

    /// A change of a characteristic's notifications asked of CoreBluetooth, waiting for
    /// `didUpdateNotificationStateFor`.
    enum NotifyChange {
        case enable([Enabling])
        case disable(Waiter<Void>)
    }

    /// A subscribe call waiting for notifications to be on: once CoreBluetooth confirms, it gets
    /// a stream of the values, or its receiver is filed.
    enum Enabling {
        case stream(Waiter<AsyncThrowingStream<Data, any Error>>)
        case receiver(Waiter<ValueSubscription>, @Sendable (ValueDelivery) -> Void)

        var isWaiting: Bool {
            switch self {
            case .stream(let waiter): waiter.isWaiting
            case .receiver(let waiter, _): waiter.isWaiting
            }
        }

        func fail(_ error: BleuError) {
            switch self {
            case .stream(let waiter): waiter.fail(error)
            case .receiver(let waiter, _): waiter.fail(error)
            }
        }
    }

    /// A characteristic's notifications: its subscribers, by number.
    struct Subscription {
        var characteristic: RemoteCharacteristic
        var subscribers: [Int: ValueSubscriber] = [:]
        /// CoreBluetooth confirmed that notifications are on.
        var enabled = false
    }

    let peripheral: CBPeripheral
    var id: UUID { peripheral.identifier }
    /// Connected as this manager reported it (`connected` sent, `disconnected` not yet).
    var isConnected = false
    /// Why the link last ended.
    var lastLinkEnd: DisconnectReason?
    /// Operations that failed with an error whose meaning depends on the link's end, waiting
    /// for it (``CentralCore/fail(_:with:from:during:)``), by number.
    var awaitingLinkEnd: [Int: (DisconnectReason?) -> Void] = [:]
    var connects: [Waiter<Void>] = []
    var disconnects: [Waiter<Void>] = []

    // Attributes by handle (value handle for characteristics), and back by object.
    private(set) var services: [UInt16: Attribute<CBService, RemoteService>] = [:]
    private(set) var characteristics: [UInt16: Attribute<CBCharacteristic, RemoteCharacteristic>] = [:]
    private(set) var descriptors: [UInt16: Attribute<CBDescriptor, RemoteDescriptor>] = [:]
    private var handles: [ObjectIdentifier: UInt16] = [:]
    private var placed: [Place: UInt16] = [:]
    private var lastHandle: UInt16 = 0

    // Operations waiting for callbacks, in the order they were issued to CoreBluetooth.
    var serviceDiscoveries: [(filter: [BluetoothUUID]?, waiter: Waiter<[RemoteService]>)] = []
    var includedDiscoveries: [UInt16: [(filter: [BluetoothUUID]?, waiter: Waiter<[RemoteService]>)]] = [:]
    var characteristicDiscoveries: [UInt16: [(filter: [BluetoothUUID]?, waiter: Waiter<[RemoteCharacteristic]>)]] = [:]
    var descriptorDiscoveries: [UInt16: [Waiter<[RemoteDescriptor]>]] = [:]
    var reads: [UInt16: [Waiter<Data>]] = [:]
    var writes: [UInt16: [Waiter<Void>]] = [:]
    var descriptorReads: [UInt16: [Waiter<Data>]] = [:]
    var descriptorWrites: [UInt16: [Waiter<Void>]] = [:]
    var notifyChanges: [UInt16: [NotifyChange]] = [:]
    var subscriptions: [UInt16: Subscription] = [:]
    var rssiReads: [Waiter<Int>] = []
    var channelOpens: [(psm: UInt16, waiter: Waiter<any L2CAPChannel>)] = []
    /// The L2CAP channels open to the peripheral; they end when the link does.
    var channels: [WeakChannel] = []

    init(_ peripheral: CBPeripheral) {
        self.peripheral = peripheral
    }

    // MARK: Attributes

    /// The handle of an object already registered.
    func handle(of object: AnyObject) -> UInt16? {
        handles[ObjectIdentifier(object)]
    }

    /// Registers a service found by discovery among `siblings` (the list it came in), under
    /// `parent` (a service handle, for an included service), and returns it as reported.
    func register(service object: CBService, among siblings: [CBService], includedBy parent: UInt16?) -> RemoteService {
        let uuid = BluetoothUUID(object.uuid)
        let place = Place(kind: parent == nil ? .service : .included, parent: parent ?? 0, uuid: uuid,
                          rank: rank(of: object, among: siblings))
        let handle = assign(object, place: place, width: 1)
        let remote = RemoteService(peripheral: id, uuid: uuid, isPrimary: object.isPrimary, handle: handle, endHandle: handle)
        services[handle] = Attribute(object: object, place: place, remote: remote)
        return remote
    }

    /// Registers a characteristic of the service at `serviceHandle`.
    func register(characteristic object: CBCharacteristic, among siblings: [CBCharacteristic],
                  service serviceHandle: UInt16) -> RemoteCharacteristic {
        let uuid = BluetoothUUID(object.uuid)
        let place = Place(kind: .characteristic, parent: serviceHandle, uuid: uuid, rank: rank(of: object, among: siblings))
        let declaration = assign(object, place: place, width: 2)
        let serviceUUID = services[serviceHandle]?.remote.uuid ?? uuid
        let remote = RemoteCharacteristic(peripheral: id, service: serviceUUID, uuid: uuid,
                                          properties: CharacteristicProperties(object.properties),
                                          handle: declaration, valueHandle: declaration + 1, endHandle: declaration + 1)
        characteristics[declaration + 1] = Attribute(object: object, place: place, remote: remote)
        return remote
    }

    /// Registers a descriptor of the characteristic whose value handle is `valueHandle`.
    func register(descriptor object: CBDescriptor, among siblings: [CBDescriptor],
                  characteristic valueHandle: UInt16) -> RemoteDescriptor {
        let uuid = BluetoothUUID(object.uuid)
        let place = Place(kind: .descriptor, parent: valueHandle, uuid: uuid, rank: rank(of: object, among: siblings))
        let handle = assign(object, place: place, width: 1)
        let characteristicUUID = characteristics[valueHandle]?.remote.uuid ?? uuid
        let remote = RemoteDescriptor(peripheral: id, characteristic: characteristicUUID, characteristicValueHandle: valueHandle,
                                      uuid: uuid, handle: handle)
        descriptors[handle] = Attribute(object: object, place: place, remote: remote)
        return remote
    }

    /// The characteristic's value handle for a CoreBluetooth characteristic object.
    func valueHandle(of object: CBCharacteristic) -> UInt16? {
        handle(of: object).map { $0 + 1 }
    }

    /// Forgets a service and everything under it (its characteristics, their descriptors, the
    /// services it includes); returns the value handles of the characteristics forgotten.
    @discardableResult
    func forget(serviceHandle: UInt16) -> [UInt16] {
        guard let service = services.removeValue(forKey: serviceHandle) else { return [] }
        forget(service.object, place: service.place)
        var forgotten: [UInt16] = []
        for (valueHandle, characteristic) in characteristics where characteristic.place.parent == serviceHandle {
            characteristics[valueHandle] = nil
            forget(characteristic.object, place: characteristic.place)
            forgotten.append(valueHandle)
            for (handle, descriptor) in descriptors where descriptor.place.parent == valueHandle {
                descriptors[handle] = nil
                forget(descriptor.object, place: descriptor.place)
            }
        }
        for (handle, included) in services where included.place.kind == .included && included.place.parent == serviceHandle {
            forgotten += forget(serviceHandle: handle)
        }
        return forgotten
    }

    private func forget(_ object: AnyObject, place: Place) {
        handles[ObjectIdentifier(object)] = nil
        placed[place] = nil
    }

    /// The handle for an object: its own if known, else the one of its place (the attribute
    /// found again, as a new object), else a new one.
    private func assign(_ object: AnyObject, place: Place, width: UInt16) -> UInt16 {
        if let known = handles[ObjectIdentifier(object)] { return known }
        let handle: UInt16
        if let previous = placed[place] {
            handle = previous
            // The object that held the place before is replaced.
            handles = handles.filter { $0.value != previous }
        } else {
            handle = nextFree(width: width)
        }
        handles[ObjectIdentifier(object)] = handle
        placed[place] = handle
        return handle
    }

    /// The first `width` consecutive free handles after the last one given (wrapping past
    /// 0xFFFF; a peripheral never has that many attributes at once).
    private func nextFree(width: UInt16) -> UInt16 {
        var occupied = Set(placed.values)
        for (place, handle) in placed where place.kind == .characteristic { occupied.insert(handle + 1) }
        var candidate = lastHandle
        repeat {
            candidate = candidate > 0xFFFF - width ? 1 : candidate + 1
        } while (0..<width).contains { occupied.contains(candidate + $0) }
        lastHandle = candidate + width - 1
        return candidate
    }

    /// The rank of an attribute among its siblings of the same UUID.
    private func rank<Object: CBAttribute>(of object: Object, among siblings: [Object]) -> Int {
        siblings.prefix { $0 !== object }.filter { $0.uuid == object.uuid }.count
    }
}

/// A weak reference to an open channel's state, so the link's end can close it without
/// keeping it open.
struct WeakChannel {
    weak var channel: ChannelCore?
}
