import BleuCore
import Foundation

/// The central role of an ``HCIRadio``: BleuCore's ``/BleuCore/CentralManager`` on a real (or
/// virtual) controller, so everything above the radio seam — typed GATT, the actor system, the
/// orchestrator — runs on Linux with a controller of its own.
///
/// ```swift
/// let radio = try await HCIRadio.open(HCIEndpoint("tcp:127.0.0.1:9000")!)
/// let central = HCICentralManager(radio: radio)
/// let advertisement = try await central.scan().first { $0.localName == "Thermo" }!
/// try await central.connect(advertisement.peripheral, timeout: .seconds(10))
/// ```
///
/// Identifiers are version-5 UUIDs of this radio's address and the peer's, so they are stable
/// across runs (a peer with a resolvable private address gets a new one as its address changes).
/// The MTU is exchanged on every connection (up to ``HCIRadioConfiguration/attMTU``). There is
/// no state restoration: the process owns the controller, so ``events()`` never reports
/// ``/BleuCore/CentralEvent/willRestoreState(_:)``. ``pair(_:minimum:)`` pairs with a
/// peripheral (or encrypts with its bond) through the radio's Security Manager; the radio's
/// ``HCIRadio/setPairingDelegate(_:)`` answers the questions pairing asks.
public final class HCICentralManager: CentralManager {
    /// The radio this manager drives (it may also carry an ``HCIPeripheralManager``).
    public let radio: HCIRadio
    public let restoreIdentifier: String?

    /// The central role on `radio`, which should be started (``HCIRadio/start()``).
    public init(radio: HCIRadio, restoreIdentifier: String? = nil) {
        self.radio = radio
        self.restoreIdentifier = restoreIdentifier
    }

    public var state: ManagerState {
        get async { await radio.currentState }
    }

    public func events() -> AsyncStream<CentralEvent> {
        let radio = self.radio
        return radio.events.central.subscribe { [.stateChanged(radio.events.state)] }
    }

    public func scan(_ options: ScanOptions) async throws -> AsyncThrowingStream<Advertisement, any Error> {
        try await radio.startScan(options)
    }

    public func stopScan() async {
        await radio.stopScan()
    }

    public func connect(_ peripheral: UUID, timeout: Duration?) async throws {
        try await radio.connect(peripheral, timeout: timeout)
    }

    /// Raises the link to `peripheral` to at least `minimum`: encrypts with the bond's key when
    /// it is strong enough, else pairs. See ``HCIRadio/pair(_:minimum:)``.
    public func pair(_ peripheral: UUID, minimum: SecurityLevel) async throws {
        try await radio.pair(peripheral, minimum: minimum)
    }

    /// How the link to `peripheral` is protected now.
    public func securityLevel(of peripheral: UUID) async -> SecurityLevel? {
        await radio.securityLevel(of: peripheral)
    }

    public func cancelConnection(_ peripheral: UUID) async {
        await radio.cancelConnection(peripheral)
    }

    public func isConnected(_ peripheral: UUID) async -> Bool {
        await radio.isConnected(peripheral)
    }

    public func retrievePeripherals(withIdentifiers identifiers: [UUID]) async -> [KnownPeripheral] {
        await radio.knownPeripherals(identifiers)
    }

    public func retrieveConnectedPeripherals(withServices services: [BluetoothUUID]) async -> [KnownPeripheral] {
        await radio.connectedPeripherals(withServices: services)
    }

    public func discoverServices(_ uuids: [BluetoothUUID]?, on peripheral: UUID) async throws -> [RemoteService] {
        try await radio.discoverServices(uuids, on: peripheral)
    }

    public func discoverIncludedServices(_ uuids: [BluetoothUUID]?, for service: RemoteService) async throws -> [RemoteService] {
        try await radio.discoverIncludedServices(uuids, for: service)
    }

    public func discoverCharacteristics(_ uuids: [BluetoothUUID]?, for service: RemoteService) async throws
        -> [RemoteCharacteristic] {
        try await radio.discoverCharacteristics(uuids, for: service)
    }

    public func discoverDescriptors(for characteristic: RemoteCharacteristic) async throws -> [RemoteDescriptor] {
        try await radio.discoverDescriptors(for: characteristic)
    }

    public func read(_ characteristic: RemoteCharacteristic) async throws -> Data {
        try await radio.read(characteristic)
    }

    public func write(_ value: Data, to characteristic: RemoteCharacteristic, type: WriteType) async throws {
        try await radio.write(value, to: characteristic, type: type)
    }

    public func canSendWriteWithoutResponse(to peripheral: UUID) async -> Bool {
        await radio.canSendWriteWithoutResponse(to: peripheral)
    }

    public func read(_ descriptor: RemoteDescriptor) async throws -> Data {
        try await radio.read(descriptor)
    }

    public func write(_ value: Data, to descriptor: RemoteDescriptor) async throws {
        try await radio.write(value, to: descriptor)
    }

    public func subscribe(to characteristic: RemoteCharacteristic) async throws -> AsyncThrowingStream<Data, any Error> {
        try await radio.subscribe(to: characteristic)
    }

    /// Hands each value to `receive` from the task that reads the link's ATT PDUs, as it
    /// decodes the notification: no task of the subscriber's own, and no buffer.
    public func subscribe(to characteristic: RemoteCharacteristic,
                          receive: @escaping @Sendable (ValueDelivery) -> Void) async throws -> ValueSubscription {
        try await radio.subscribe(to: characteristic, receive: receive)
    }

    public func unsubscribe(from characteristic: RemoteCharacteristic) async throws {
        try await radio.unsubscribe(from: characteristic)
    }

    public func attMTU(for peripheral: UUID) async throws -> Int {
        try await radio.attMTU(peripheral)
    }

    public func maximumWriteValueLength(for peripheral: UUID, type: WriteType) async throws -> Int {
        try await radio.maximumWriteValueLength(peripheral, type: type)
    }

    public func readRSSI(of peripheral: UUID) async throws -> Int {
        try await radio.readRSSI(peripheral)
    }

    public func openL2CAPChannel(psm: UInt16, on peripheral: UUID) async throws -> any L2CAPChannel {
        try await radio.openChannel(psm: psm, on: peripheral)
    }
}
