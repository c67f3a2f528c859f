import BleuCore
import CoreBluetoothVocabulary
import Foundation
#if !canImport(CoreBluetooth)
import CoreBluetoothEmulator
#endif

/// BleuCore's ``/BleuCore/CentralManager`` over CoreBluetooth's `CBCentralManager`: the real
/// radio on Apple platforms; CoreBluetoothEmulator's `EmulatedCBCentralManager` elsewhere, on
/// an emulator bus.
///
/// ```swift
/// let central = CoreBluetoothCentralManager()
/// let scan = try await central.scan(ScanOptions(services: [BluetoothUUID(0x180D)]))
/// ```
///
/// Everything happens on a private serial queue, CoreBluetooth's delegate queue for the
/// manager: CoreBluetooth's objects never leave it, and each call hops onto it, starts the
/// CoreBluetooth operation and waits for the delegate callback that completes it (see
/// <doc:Isolation>). Cancelling the calling task ends the wait with
/// ``/BleuCore/BleuError/cancelled``.
///
/// What CoreBluetooth does not show, the manager makes up or leaves out:
/// - **Handles.** CoreBluetooth has none; the manager gives each attribute its own, unique per
///   peripheral and stable across rediscovery and reconnection, but not across managers: a
///   manager restored by identifier gives new ones.
/// - **MTU.** ``attMTU(for:)`` is CoreBluetooth's maximum write-without-response length plus
///   3; ``/BleuCore/CentralEvent/mtuChanged(_:mtu:)`` is never reported (CoreBluetooth has no
///   callback for it).
/// - **Reads and notifications.** CoreBluetooth reports both through one callback: a read takes
///   the next value reported for its characteristic, and while notifications are on, the
///   subscribers get that value too.
/// - **Pairing.** CoreBluetooth pairs by itself when a request needs it and has no call that
///   pairs: ``/BleuCore/CentralManager/pair(_:minimum:)`` throws
///   ``/BleuCore/BleuError/Unsupported/explicitPairing`` and
///   ``/BleuCore/CentralManager/securityLevel(of:)`` is `nil` (CoreBluetooth does not say).
public final class CoreBluetoothCentralManager: CentralManager {
    /// The most events one ``events()`` stream holds for a slow consumer; past that the oldest
    /// are dropped, as ``/BleuCore/CentralManager/events()`` allows.
    public static let eventBufferLimit = 4096
    /// The most advertisements one scan stream holds for a slow consumer; past that the oldest
    /// are dropped (an advertiser is heard again at its next advertisement).
    public static let scanBufferLimit = 1024
    /// The most values one ``subscribe(to:)`` stream holds for a slow consumer; past that the
    /// stream ends with ``/BleuCore/BleuError/bufferOverflow(_:)`` rather than lose a value.
    public static let valueBufferLimit = 256

    /// The state restoration identifier given at init (CoreBluetooth's
    /// `CBCentralManagerOptionRestoreIdentifierKey`), if any.
    public let restoreIdentifier: String?
    private let core: CentralCore
    private var queue: ManagerQueue { core.queue }

    #if !canImport(CoreBluetooth)
    /// The emulator's central underneath, for a test's controls on the bus
    /// (``/BleuEmulator/EmulatorBus/loseLink(between:and:)``,
    /// ``/BleuEmulator/EmulatorBus/setState(_:of:)-(_,EmulatedCentralManager)``). Only where
    /// CoreBluetoothEmulator stands in for CoreBluetooth.
    public let emulatorManager: EmulatedCentralManager
    #endif

    /// A central on the system's Bluetooth radio (on Apple platforms) or on
    /// ``/BleuEmulator/EmulatorBus/shared`` (elsewhere).
    ///
    /// - Parameters:
    ///   - restoreIdentifier: CoreBluetooth's state restoration identifier: a manager created
    ///     with the identifier a terminated one had takes over its connections, scan and
    ///     notifications, reported as ``/BleuCore/CentralEvent/willRestoreState(_:)``.
    ///   - options: more of CoreBluetooth's initialization options, under their keys
    ///     (`CBCentralManagerOptionShowPowerAlertKey`…).
    public convenience init(restoreIdentifier: String? = nil, options: [String: any Sendable] = [:]) {
        self.init(restoreIdentifier: restoreIdentifier, options: options) { delegate, queue, options in
            CBCentralManager(delegate: delegate, queue: queue, options: options)
        }
    }

    #if !canImport(CoreBluetooth)
    /// A central on `bus` — tests give each manager a bus of their own, so they stay isolated.
    /// Only where CoreBluetoothEmulator stands in for CoreBluetooth.
    public convenience init(bus: EmulatorBus, restoreIdentifier: String? = nil, options: [String: any Sendable] = [:]) {
        self.init(restoreIdentifier: restoreIdentifier, options: options) { delegate, queue, options in
            CBCentralManager(delegate: delegate, queue: queue, options: options, bus: bus)
        }
    }
    #endif

    /// Makes the `CBCentralManager` with `make` on the manager's queue, its delegate the core.
    private init(restoreIdentifier: String?, options: [String: any Sendable],
                 make: (CentralCore, DispatchQueue, [String: Any]) -> CBCentralManager) {
        self.restoreIdentifier = restoreIdentifier
        let queue = ManagerQueue(label: "BleuCoreBluetooth.central")
        let core = CentralCore(queue: queue, restoreIdentifier: restoreIdentifier)
        self.core = core
        var dictionary = options.mapValues { $0 as Any }
        if let restoreIdentifier { dictionary[CBCentralManagerOptionRestoreIdentifierKey] = restoreIdentifier }
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
    /// until its first `centralManagerDidUpdateState(_:)`.
    public var state: ManagerState {
        get async {
            let core = core
            return await queue.run { core.state }
        }
    }

    /// A new stream of the manager's events, starting with the state (and the restoration, if
    /// the manager restored state). It holds ``eventBufferLimit`` events for a slow consumer.
    public func events() -> AsyncStream<CentralEvent> {
        core.subscribe()
    }

    // MARK: Scanning

    /// Scans with CoreBluetooth's `scanForPeripherals(withServices:options:)`. Without
    /// ``/BleuCore/ScanOptions/allowDuplicates`` the manager reports each peripheral once per
    /// scan, whatever CoreBluetooth reports. Throws the radio's unavailable state, and ends the
    /// stream with it when the radio leaves `poweredOn`.
    public func scan(_ options: ScanOptions) async throws -> AsyncThrowingStream<Advertisement, any Error> {
        let core = core
        return try await queue.wait { core.startScan(options, $0) }
    }

    /// Stops the running scan (CoreBluetooth's `stopScan()`); its stream ends.
    public func stopScan() async {
        let core = core
        await queue.run { core.stopScan() }
    }

    // MARK: Connections

    /// Connects with CoreBluetooth's `connect(_:options:)`, which never gives up on its own:
    /// with a `nil` timeout the attempt lasts until it succeeds, fails, or the caller is
    /// cancelled (which cancels it, once no other caller waits for the same peripheral).
    public func connect(_ peripheral: UUID, timeout: Duration?) async throws {
        let core = core
        try await queue.wait({ core.connect(peripheral, timeout: timeout, $0) },
                             cancelled: { _ in core.connectAbandoned(peripheral) })
    }

    /// Cancels CoreBluetooth's connection (or attempt); returns once a connected peripheral
    /// reported its disconnection.
    public func cancelConnection(_ peripheral: UUID) async {
        let core = core
        do {
            try await queue.wait { core.cancelConnection(peripheral, $0) }
        } catch {
            // Only the caller's cancellation ends the wait early; the disconnection goes on.
        }
    }

    /// Whether the peripheral is connected, as this manager reported it
    /// (``/BleuCore/CentralEvent/connected(_:)`` without a later disconnection).
    public func isConnected(_ peripheral: UUID) async -> Bool {
        let core = core
        return await queue.run { core.peripherals[peripheral]?.isConnected ?? false }
    }

    /// The peripherals CoreBluetooth knows among `identifiers` (its
    /// `retrievePeripherals(withIdentifiers:)`); they can be connected without a scan.
    public func retrievePeripherals(withIdentifiers identifiers: [UUID]) async -> [KnownPeripheral] {
        let core = core
        return await queue.run { core.retrievePeripherals(identifiers) }
    }

    /// The connected peripherals hosting one of `services` (CoreBluetooth's
    /// `retrieveConnectedPeripherals(withServices:)`, which also lists other apps'
    /// connections), or every peripheral this manager connected when `services` is empty.
    public func retrieveConnectedPeripherals(withServices services: [BluetoothUUID]) async -> [KnownPeripheral] {
        let core = core
        return await queue.run { core.retrieveConnectedPeripherals(services) }
    }

    // MARK: Discovery

    /// Discovers primary services with CoreBluetooth's `discoverServices(_:)`; the services
    /// returned are those of CoreBluetooth's `services` that `uuids` asks for.
    public func discoverServices(_ uuids: [BluetoothUUID]?, on peripheral: UUID) async throws -> [RemoteService] {
        let core = core
        return try await queue.wait { core.discoverServices(uuids, on: peripheral, $0) }
    }

    /// Discovers included services with CoreBluetooth's `discoverIncludedServices(_:for:)`.
    /// Throws ``/BleuCore/BleuError/serviceNotFound(_:)`` for a service this manager did not
    /// discover (or that the peripheral's services changed away).
    public func discoverIncludedServices(_ uuids: [BluetoothUUID]?, for service: RemoteService) async throws -> [RemoteService] {
        let core = core
        return try await queue.wait { core.discoverIncludedServices(uuids, for: service, $0) }
    }

    /// Discovers characteristics with CoreBluetooth's `discoverCharacteristics(_:for:)`. Throws
    /// ``/BleuCore/BleuError/serviceNotFound(_:)`` for a service this manager did not discover.
    public func discoverCharacteristics(_ uuids: [BluetoothUUID]?, for service: RemoteService) async throws -> [RemoteCharacteristic] {
        let core = core
        return try await queue.wait { core.discoverCharacteristics(uuids, for: service, $0) }
    }

    /// Discovers descriptors with CoreBluetooth's `discoverDescriptors(for:)`. Throws
    /// ``/BleuCore/BleuError/characteristicNotFound(_:)`` for a characteristic this manager did
    /// not discover.
    public func discoverDescriptors(for characteristic: RemoteCharacteristic) async throws -> [RemoteDescriptor] {
        let core = core
        return try await queue.wait { core.discoverDescriptors(for: characteristic, $0) }
    }

    // MARK: Reading and writing

    /// Reads with CoreBluetooth's `readValue(for:)`, which reads long values whole.
    public func read(_ characteristic: RemoteCharacteristic) async throws -> Data {
        let core = core
        return try await queue.wait { core.read(characteristic, $0) }
    }

    /// Writes with CoreBluetooth's `writeValue(_:for:type:)`. A write without response is
    /// refused with ``/BleuCore/BleuError/sendQueueFull(_:)`` while CoreBluetooth's
    /// `canSendWriteWithoutResponse` is `false` (CoreBluetooth would drop it);
    /// ``/BleuCore/CentralEvent/readyToSendWriteWithoutResponse(_:)`` follows its
    /// `peripheralIsReady(toSendWriteWithoutResponse:)`.
    public func write(_ value: Data, to characteristic: RemoteCharacteristic, type: WriteType) async throws {
        let core = core
        try await queue.wait { core.write(value, to: characteristic, type: type, $0) }
    }

    /// CoreBluetooth's `canSendWriteWithoutResponse` of the peripheral; `false` without a link.
    public func canSendWriteWithoutResponse(to peripheral: UUID) async -> Bool {
        let core = core
        return await queue.run { core.canSendWriteWithoutResponse(to: peripheral) }
    }

    /// Reads a descriptor; CoreBluetooth's typed value (`String`, `NSNumber`, `Data`) comes back
    /// as the descriptor's bytes.
    public func read(_ descriptor: RemoteDescriptor) async throws -> Data {
        let core = core
        return try await queue.wait { core.read(descriptor, $0) }
    }

    /// Writes a descriptor. CoreBluetooth writes the Client Characteristic Configuration
    /// descriptor only through notifications: writing it throws ``/BleuCore/BleuError/notSupported(_:)``.
    public func write(_ value: Data, to descriptor: RemoteDescriptor) async throws {
        let core = core
        try await queue.wait { core.write(value, to: descriptor, $0) }
    }

    // MARK: Notifications

    /// Turns notifications on with CoreBluetooth's `setNotifyValue(true, for:)` (once; further
    /// calls get another stream of the same values). A stream holds
    /// ``valueBufferLimit`` values for a slow consumer and then ends with
    /// ``/BleuCore/BleuError/bufferOverflow(_:)``.
    public func subscribe(to characteristic: RemoteCharacteristic) async throws -> AsyncThrowingStream<Data, any Error> {
        let core = core
        return try await queue.wait { core.subscribe(to: characteristic, $0) }
    }

    /// Turns notifications on as ``subscribe(to:)`` does, and hands each value to `receive` on
    /// the manager's queue, from `peripheral(_:didUpdateValueFor:error:)` itself: no task
    /// between CoreBluetooth and the receiver, and no buffer (the receiver takes each value as it
    /// comes).
    public func subscribe(to characteristic: RemoteCharacteristic,
                          receive: @escaping @Sendable (ValueDelivery) -> Void) async throws -> ValueSubscription {
        let core = core
        return try await queue.wait { core.subscribe(to: characteristic, receive: receive, $0) }
    }

    /// Turns notifications off with CoreBluetooth's `setNotifyValue(false, for:)`; once it
    /// confirmed, the characteristic's value streams end. Does nothing when not subscribed.
    public func unsubscribe(from characteristic: RemoteCharacteristic) async throws {
        let core = core
        try await queue.wait { core.unsubscribe(from: characteristic, $0) }
    }

    // MARK: Link properties

    /// CoreBluetooth does not tell the ATT MTU: this is its maximum write-without-response
    /// length plus the 3 bytes of the ATT header.
    public func attMTU(for peripheral: UUID) async throws -> Int {
        try await maximumWriteValueLength(for: peripheral, type: .withoutResponse) + 3
    }

    /// CoreBluetooth's `maximumWriteValueLength(for:)`: ATT MTU − 3 without response, 512 with.
    public func maximumWriteValueLength(for peripheral: UUID, type: WriteType) async throws -> Int {
        let core = core
        return try await queue.run { core.maximumWriteValueLength(for: peripheral, type: type) }.get()
    }

    /// Reads the link's signal strength with CoreBluetooth's `readRSSI()`.
    public func readRSSI(of peripheral: UUID) async throws -> Int {
        let core = core
        return try await queue.wait { core.readRSSI(of: peripheral, $0) }
    }

    // MARK: L2CAP

    /// Opens a channel with CoreBluetooth's `openL2CAPChannel(_:)`. The channel's data comes
    /// through its input stream: ``/BleuCore/L2CAPChannel/incoming`` yields the bytes in the
    /// pieces the stream hands over, in order, not necessarily as the peer's SDUs. Keep the
    /// channel: it closes when released.
    public func openL2CAPChannel(psm: UInt16, on peripheral: UUID) async throws -> any L2CAPChannel {
        let core = core
        return try await queue.wait { core.openL2CAPChannel(psm: psm, on: peripheral, $0) }
    }
}
