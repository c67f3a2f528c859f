import Foundation

/// A central that passes every requirement to another, ``base``: a decorator implements only
/// what it changes (records, refuses, delays, rewrites) and gets the rest from here.
///
/// ```swift
/// final class RefusingUnsubscribe: ForwardingCentralManager {
///     let base: any CentralManager
///     init(_ base: any CentralManager) { self.base = base }
///     func unsubscribe(from characteristic: RemoteCharacteristic) async throws {
///         throw BleuError.att(.unlikelyError)
///     }
/// }
/// ```
///
/// Every requirement is forwarded, including those ``CentralManager`` has defaults for
/// (``CentralManager/subscribe(to:receive:)``, ``CentralManager/securityLevel(of:)``,
/// ``CentralManager/pair(_:minimum:)``), so a decorator keeps what its base does there.
public protocol ForwardingCentralManager: CentralManager {
    /// The central everything not implemented by the decorator goes to.
    var base: any CentralManager { get }
}

extension ForwardingCentralManager {
    public var restoreIdentifier: String? { base.restoreIdentifier }
    public var state: ManagerState { get async { await base.state } }
    public func events() -> AsyncStream<CentralEvent> { base.events() }

    public func scan(_ options: ScanOptions) async throws -> AsyncThrowingStream<Advertisement, any Error> {
        try await base.scan(options)
    }
    public func stopScan() async { await base.stopScan() }
    public func connect(_ peripheral: UUID, timeout: Duration?) async throws { try await base.connect(peripheral, timeout: timeout) }
    public func cancelConnection(_ peripheral: UUID) async { await base.cancelConnection(peripheral) }
    public func isConnected(_ peripheral: UUID) async -> Bool { await base.isConnected(peripheral) }
    public func retrievePeripherals(withIdentifiers identifiers: [UUID]) async -> [KnownPeripheral] {
        await base.retrievePeripherals(withIdentifiers: identifiers)
    }
    public func retrieveConnectedPeripherals(withServices services: [BluetoothUUID]) async -> [KnownPeripheral] {
        await base.retrieveConnectedPeripherals(withServices: services)
    }

    public func discoverServices(_ uuids: [BluetoothUUID]?, on peripheral: UUID) async throws -> [RemoteService] {
        try await base.discoverServices(uuids, on: peripheral)
    }
    public func discoverIncludedServices(_ uuids: [BluetoothUUID]?, for service: RemoteService) async throws -> [RemoteService] {
        try await base.discoverIncludedServices(uuids, for: service)
    }
    public func discoverCharacteristics(_ uuids: [BluetoothUUID]?, for service: RemoteService) async throws -> [RemoteCharacteristic] {
        try await base.discoverCharacteristics(uuids, for: service)
    }
    public func discoverDescriptors(for characteristic: RemoteCharacteristic) async throws -> [RemoteDescriptor] {
        try await base.discoverDescriptors(for: characteristic)
    }

    public func read(_ characteristic: RemoteCharacteristic) async throws -> Data { try await base.read(characteristic) }
    public func write(_ value: Data, to characteristic: RemoteCharacteristic, type: WriteType) async throws {
        try await base.write(value, to: characteristic, type: type)
    }
    public func canSendWriteWithoutResponse(to peripheral: UUID) async -> Bool { await base.canSendWriteWithoutResponse(to: peripheral) }
    public func read(_ descriptor: RemoteDescriptor) async throws -> Data { try await base.read(descriptor) }
    public func write(_ value: Data, to descriptor: RemoteDescriptor) async throws { try await base.write(value, to: descriptor) }

    public func subscribe(to characteristic: RemoteCharacteristic) async throws -> AsyncThrowingStream<Data, any Error> {
        try await base.subscribe(to: characteristic)
    }
    public func subscribe(to characteristic: RemoteCharacteristic,
                          receive: @escaping @Sendable (ValueDelivery) -> Void) async throws -> ValueSubscription {
        try await base.subscribe(to: characteristic, receive: receive)
    }
    public func unsubscribe(from characteristic: RemoteCharacteristic) async throws { try await base.unsubscribe(from: characteristic) }

    public func attMTU(for peripheral: UUID) async throws -> Int { try await base.attMTU(for: peripheral) }
    public func maximumWriteValueLength(for peripheral: UUID, type: WriteType) async throws -> Int {
        try await base.maximumWriteValueLength(for: peripheral, type: type)
    }
    public func readRSSI(of peripheral: UUID) async throws -> Int { try await base.readRSSI(of: peripheral) }
    public func securityLevel(of peripheral: UUID) async -> SecurityLevel? { await base.securityLevel(of: peripheral) }
    public func pair(_ peripheral: UUID, minimum: SecurityLevel) async throws { try await base.pair(peripheral, minimum: minimum) }
    public func openL2CAPChannel(psm: UInt16, on peripheral: UUID) async throws -> any L2CAPChannel {
        try await base.openL2CAPChannel(psm: psm, on: peripheral)
    }
}
