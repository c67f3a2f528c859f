import BleuCore
import BleuEmulator
import Foundation
import Testing
@testable import BleuGATT

/// An emulated central whose unsubscriptions the peripheral refuses (an ATT error), everything
/// else passed through.
final class UnsubscribeRefusingCentral: CentralManager {
    let base: any CentralManager
    init(_ base: any CentralManager) { self.base = base }

    var restoreIdentifier: String? { base.restoreIdentifier }
    var state: ManagerState { get async { await base.state } }
    func events() -> AsyncStream<CentralEvent> { base.events() }
    func scan(_ options: ScanOptions) async throws -> AsyncThrowingStream<Advertisement, any Error> { try await base.scan(options) }
    func stopScan() async { await base.stopScan() }
    func connect(_ peripheral: UUID, timeout: Duration?) async throws { try await base.connect(peripheral, timeout: timeout) }
    func cancelConnection(_ peripheral: UUID) async { await base.cancelConnection(peripheral) }
    func isConnected(_ peripheral: UUID) async -> Bool { await base.isConnected(peripheral) }
    func retrievePeripherals(withIdentifiers identifiers: [UUID]) async -> [KnownPeripheral] {
        await base.retrievePeripherals(withIdentifiers: identifiers)
    }
    func retrieveConnectedPeripherals(withServices services: [BluetoothUUID]) async -> [KnownPeripheral] {
        await base.retrieveConnectedPeripherals(withServices: services)
    }
    func discoverServices(_ uuids: [BluetoothUUID]?, on peripheral: UUID) async throws -> [RemoteService] {
        try await base.discoverServices(uuids, on: peripheral)
    }
    func discoverIncludedServices(_ uuids: [BluetoothUUID]?, for service: RemoteService) async throws -> [RemoteService] {
        try await base.discoverIncludedServices(uuids, for: service)
    }
    func discoverCharacteristics(_ uuids: [BluetoothUUID]?, for service: RemoteService) async throws -> [RemoteCharacteristic] {
        try await base.discoverCharacteristics(uuids, for: service)
    }
    func discoverDescriptors(for characteristic: RemoteCharacteristic) async throws -> [RemoteDescriptor] {
        try await base.discoverDescriptors(for: characteristic)
    }
    func read(_ characteristic: RemoteCharacteristic) async throws -> Data { try await base.read(characteristic) }
    func write(_ value: Data, to characteristic: RemoteCharacteristic, type: WriteType) async throws {
        try await base.write(value, to: characteristic, type: type)
    }
    func canSendWriteWithoutResponse(to peripheral: UUID) async -> Bool { await base.canSendWriteWithoutResponse(to: peripheral) }
    func read(_ descriptor: RemoteDescriptor) async throws -> Data { try await base.read(descriptor) }
    func write(_ value: Data, to descriptor: RemoteDescriptor) async throws { try await base.write(value, to: descriptor) }
    func subscribe(to characteristic: RemoteCharacteristic) async throws -> AsyncThrowingStream<Data, any Error> {
        try await base.subscribe(to: characteristic)
    }
    func unsubscribe(from characteristic: RemoteCharacteristic) async throws { throw BleuError.att(.unlikelyError) }
    func attMTU(for peripheral: UUID) async throws -> Int { try await base.attMTU(for: peripheral) }
    func maximumWriteValueLength(for peripheral: UUID, type: WriteType) async throws -> Int {
        try await base.maximumWriteValueLength(for: peripheral, type: type)
    }
    func readRSSI(of peripheral: UUID) async throws -> Int { try await base.readRSSI(of: peripheral) }
    func openL2CAPChannel(psm: UInt16, on peripheral: UUID) async throws -> any L2CAPChannel {
        try await base.openL2CAPChannel(psm: psm, on: peripheral)
    }
}

@Suite("Typed client: unsubscriptions that fail", .timeLimit(.minutes(1)))
struct UnsubscribeFailureTests {
    @Test("an unsubscription the connected peripheral refuses is counted with its error, not hidden")
    func refusedUnsubscription() async throws {
        let (fixture, hosted) = try await GATTFixture.make { server in
            try await server.host(BatteryService.self)
        }
        let client = GATTClient(central: UnsubscribeRefusingCentral(fixture.central), peripheral: fixture.client.peripheral)
        let battery = try await client.discover(BatteryService.self)
        let remote = try battery.remote(BatteryService.level)
        try await firstValue(of: battery, then: { try await hosted.notify(BatteryService.level, 42) })
        // The last stream ended: the unsubscription runs, is refused, and is counted.
        let unsubscribing = client.subscriptions.withLock { $0.unsubscribing[remote.valueHandle]?.task }
        #expect(unsubscribing != nil, "the stream's end started the unsubscription")
        await unsubscribing?.value
        #expect(client.failedUnsubscriptions.count == 1)
        #expect(client.failedUnsubscriptions.last as? BleuError == .att(.unlikelyError))
    }

    /// Opens a typed stream, takes its first value and drops it (in a function of its own, so
    /// the stream is gone when it returns).
    private func firstValue(of battery: RemoteGATTService, then send: () async throws -> Void) async throws {
        let stream = try await battery.subscribe(to: BatteryService.level)
        try await send()
        for try await level in stream {
            #expect(level == 42)
            break
        }
    }
}
