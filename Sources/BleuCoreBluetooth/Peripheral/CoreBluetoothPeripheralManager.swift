import BleuCore
import CoreBluetoothVocabulary
import Foundation
#if !canImport(CoreBluetooth)
import CoreBluetoothEmulator
#endif

/// BleuCore's ``/BleuCore/PeripheralManager`` over CoreBluetooth's `CBPeripheralManager`: the
/// real radio on Apple platforms; CoreBluetoothEmulator's `EmulatedCBPeripheralManager`
/// elsewhere, on an emulator bus.
///
/// ```swift
/// let peripheral = CoreBluetoothPeripheralManager()
/// let service = try await peripheral.add(ServiceDefinition(uuid: BluetoothUUID(0x180F), characteristics: [
///     CharacteristicDefinition(uuid: BluetoothUUID(0x2A19), properties: [.read, .notify], permissions: .readable),
/// ]))
/// try await peripheral.startAdvertising(AdvertisingData(localName: "Battery", serviceUUIDs: [service.uuid]))
/// ```
///
/// Like ``CoreBluetoothCentralManager`` it keeps CoreBluetooth's objects on a private serial
/// queue, its delegate queue (see <doc:Isolation>). What CoreBluetooth's peripheral role does
/// not show, the manager makes up or leaves out:
/// - **Handles** are laid out as a GATT server would lay them out (the service, each
///   characteristic's declaration and value, a configuration descriptor for those that notify
///   or indicate, then the declared descriptors), unique among the services this manager
///   publishes.
/// - **Connections.** CoreBluetooth's peripheral role sees no connections: a central is
///   reported with ``/BleuCore/PeripheralEvent/centralConnected(_:)`` at its first request or
///   subscription, and again at the first after it unsubscribed from everything;
///   ``/BleuCore/PeripheralEvent/centralDisconnected(_:_:)`` and
///   ``/BleuCore/PeripheralEvent/mtuChanged(central:mtu:)`` are never reported.
/// - **Whether a write needs an answer.** CoreBluetooth does not say; writes to a
///   characteristic with the ``/BleuCore/CharacteristicProperties/write`` property are taken as
///   needing one (CoreBluetooth ignores an answer to a write command).
/// - **Advertising** carries a local name and service UUIDs, all CoreBluetooth advertises; other
///   fields are refused with ``/BleuCore/BleuError/notSupported(_:)``, flags are CoreBluetooth's.
/// - **Descriptors.** CoreBluetooth publishes user description (0x2901) and presentation format
///   (0x2904) descriptors only; others are refused with ``/BleuCore/BleuError/notSupported(_:)``.
public final class CoreBluetoothPeripheralManager: PeripheralManager {
    /// The most events one ``events()`` stream holds for a slow consumer; past that the oldest
    /// are dropped, as ``/BleuCore/PeripheralManager/events()`` allows.
    public static let eventBufferLimit = 4096
    /// The most requests kept for an answer; past that the oldest unanswered one is forgotten.
    public static let requestLimit = 1024

    /// The state restoration identifier given at init (CoreBluetooth's
    /// `CBPeripheralManagerOptionRestoreIdentifierKey`), if any.
    public let restoreIdentifier: String?
    private let core: PeripheralCore
    private var queue: ManagerQueue { core.queue }

    #if !canImport(CoreBluetooth)
    /// The emulator's peripheral underneath, for a test's controls on the bus
    /// (``/BleuEmulator/EmulatorBus/setState(_:of:)-(_,EmulatedPeripheralManager)``,
    /// ``/BleuEmulator/EmulatorBus/setDistance(_:of:)``). Only where CoreBluetoothEmulator
    /// stands in for CoreBluetooth.
    public let emulatorManager: EmulatedPeripheralManager
    #endif

    /// A peripheral on the system's Bluetooth radio (on Apple platforms) or on
    /// ``/BleuEmulator/EmulatorBus/shared`` (elsewhere).
    ///
    /// - Parameters:
    ///   - restoreIdentifier: CoreBluetooth's state restoration identifier: a manager created
    ///     with the identifier a terminated one had takes over its services and advertising,
    ///     reported as ``/BleuCore/PeripheralEvent/willRestoreState(_:)``.
    ///   - options: more of CoreBluetooth's initialization options, under their keys
    ///     (`CBPeripheralManagerOptionShowPowerAlertKey`…).
    public convenience init(restoreIdentifier: String? = nil, options: [String: any Sendable] = [:]) {
        self.init(restoreIdentifier: restoreIdentifier, options: options) { delegate, queue, options in
            CBPeripheralManager(delegate: delegate, queue: queue, options: options)
        }
    }

    #if !canImport(CoreBluetooth)
    /// A peripheral on `bus` — tests give each manager a bus of their own, so they stay
    /// isolated. Only where CoreBluetoothEmulator stands in for CoreBluetooth.
    public convenience init(bus: EmulatorBus, restoreIdentifier: String? = nil, options: [String: any Sendable] = [:]) {
        self.init(restoreIdentifier: restoreIdentifier, options: options) { delegate, queue, options in
            CBPeripheralManager(delegate: delegate, queue: queue, options: options, bus: bus)
        }
    }
    #endif

    /// Makes the `CBPeripheralManager` with `make` on the manager's queue, its delegate the core.
    private init(restoreIdentifier: String?, options: [String: any Sendable],
                 make: (PeripheralCore, DispatchQueue, [String: Any]) -> CBPeripheralManager) {
        self.restoreIdentifier = restoreIdentifier
        let queue = ManagerQueue(label: "BleuCoreBluetooth.peripheral")
        let core = PeripheralCore(queue: queue, restoreIdentifier: restoreIdentifier)
        self.core = core
        var dictionary = options.mapValues { $0 as Any }
        if let restoreIdentifier { dictionary[CBPeripheralManagerOptionRestoreIdentifierKey] = restoreIdentifier }
        queue.sync { core.manager = make(core, queue.queue, dictionary) }
        #if !canImport(CoreBluetooth)
        emulatorManager = queue.sync { core.manager.emulatorManager }
        #endif
    }

    deinit {
        let core = core
        core.queue.async { core.shutDown() }
    }

    /// The radio's state as CoreBluetooth last reported it: ``/BleuCore/ManagerState/unknown``
    /// until its first `peripheralManagerDidUpdateState(_:)`.
    public var state: ManagerState {
        get async {
            let core = core
            return await queue.run { core.state }
        }
    }

    /// A new stream of the manager's events, starting with the state (and the restoration, if
    /// the manager restored state). It holds ``eventBufferLimit`` events for a slow consumer.
    public func events() -> AsyncStream<PeripheralEvent> {
        core.subscribe()
    }

    // MARK: Services

    /// Publishes the service with CoreBluetooth's `add(_:)`, returning once its
    /// `peripheralManager(_:didAdd:error:)` came. Throws ``/BleuCore/BleuError/invalidState(_:)``
    /// for a definition no backend publishes (see ``/BleuCore/PeripheralManager/add(_:)``) and
    /// ``/BleuCore/BleuError/notSupported(_:)`` for a descriptor CoreBluetooth cannot publish.
    public func add(_ service: ServiceDefinition) async throws -> PublishedService {
        let core = core
        return try await queue.wait { core.add(service, $0) }
    }

    /// Removes a service with CoreBluetooth's `remove(_:)`. Throws
    /// ``/BleuCore/BleuError/invalidState(_:)`` when this manager does not publish it, or when
    /// another published service includes it.
    public func remove(_ service: PublishedService) async throws {
        let core = core
        try await queue.wait { core.remove(service, $0) }
    }

    /// Removes every service with CoreBluetooth's `removeAllServices()`.
    public func removeAllServices() async {
        let core = core
        await queue.run { core.removeAllServices() }
    }

    // MARK: Advertising

    /// Advertises with CoreBluetooth's `startAdvertising(_:)` — the local name and service UUIDs
    /// of `advertisement` and `scanResponse` together; CoreBluetooth decides what goes in the
    /// scan response — and returns once `peripheralManagerDidStartAdvertising(_:error:)` came.
    public func startAdvertising(_ advertisement: AdvertisingData, scanResponse: AdvertisingData?) async throws {
        let core = core
        try await queue.wait { core.startAdvertising(advertisement, scanResponse: scanResponse, $0) }
    }

    /// Stops advertising (CoreBluetooth's `stopAdvertising()`).
    public func stopAdvertising() async {
        let core = core
        await queue.run { core.stopAdvertising() }
    }

    /// CoreBluetooth's `isAdvertising`.
    public var isAdvertising: Bool {
        get async {
            let core = core
            return await queue.run { core.isAdvertising }
        }
    }

    // MARK: Requests

    /// Answers with CoreBluetooth's `respond(to:withResult:)`, the value set on the request.
    ///
    /// An error goes out as CoreBluetooth's `CBATTError.Code`. CoreBluetoothEmulator's enum
    /// has cases for the codes 0x01–0x11 only: any other code (an application error
    /// 0x80–0x9F, 0xFC–0xFF) reaches the central as Unlikely Error (0x0E) there. Whether
    /// Apple's CoreBluetooth passes such a code on is not verified by this project.
    public func respond(to request: ReadRequest, with result: Result<Data, ATTError>) async {
        let core = core
        await queue.run { core.respond(to: request.id, with: result) }
    }

    /// Answers the batch through its first request, as CoreBluetooth wants; an answer to writes
    /// that need none is ignored. Errors go out as with ``respond(to:with:)-(ReadRequest,_)``.
    public func respond(to request: WriteRequests, with result: Result<Void, ATTError>) async {
        guard request.needsResponse else { return }
        let core = core
        await queue.run { core.respond(to: request.id, with: result.map { Data() }) }
    }

    // MARK: Notifications

    /// Sends with CoreBluetooth's `updateValue(_:for:onSubscribedCentrals:)` to the subscribed
    /// centrals among `centrals` whose notifications can carry the value. Returns `false` when
    /// CoreBluetooth's queue is full; ``/BleuCore/PeripheralEvent/readyToUpdateSubscribers``
    /// follows its `peripheralManagerIsReady(toUpdateSubscribers:)`.
    public func updateValue(_ value: Data, for characteristic: PublishedCharacteristic,
                            onSubscribedCentrals centrals: [UUID]?) async -> Bool {
        let core = core
        return await queue.run { core.updateValue(value, for: characteristic, onSubscribedCentrals: centrals) }
    }

    /// CoreBluetooth's `maximumUpdateValueLength` of the central, once it made a request or
    /// subscribed; `nil` before.
    public func maximumUpdateValueLength(for central: UUID) async -> Int? {
        let core = core
        return await queue.run { core.maximumUpdateValueLength(for: central) }
    }

    // MARK: L2CAP

    /// Publishes with CoreBluetooth's `publishL2CAPChannel(withEncryption:)`, returning the PSM
    /// CoreBluetooth assigned. Channels centrals open arrive as
    /// ``/BleuCore/PeripheralEvent/l2capChannelOpened(_:)``: their data comes in the pieces the
    /// channel's input stream hands over, in order. Keep a channel: it closes when released.
    public func publishL2CAPChannel(requiresEncryption: Bool) async throws -> UInt16 {
        let core = core
        return try await queue.wait { core.publishL2CAPChannel(requiresEncryption: requiresEncryption, $0) }
    }

    /// Unpublishes with CoreBluetooth's `unpublishL2CAPChannel(_:)`, returning once its callback
    /// came. Throws ``/BleuCore/BleuError/invalidState(_:)`` for a PSM this manager did not publish.
    public func unpublishL2CAPChannel(_ psm: UInt16) async throws {
        let core = core
        try await queue.wait { core.unpublishL2CAPChannel(psm, $0) }
    }
}
