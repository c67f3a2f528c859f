import BleuCore
import Foundation

/// A central that passes everything to another and records, independently of the engine, the
/// connection attempts made through it: how many, and how many started while another attempt
/// to the same peripheral was still under way. With an `rssiOffset` it stands for a radio with a
/// better (or worse) antenna: its scans hear every peripheral that many dB louder.
final class RecordingCentral: CentralManager {
    let base: any CentralManager
    let rssiOffset: Int
    private let record = Locked((inFlight: [UUID: Int](), attempts: [UUID: Int](), overlapping: 0))

    init(_ base: any CentralManager, rssiOffset: Int = 0) {
        self.base = base
        self.rssiOffset = rssiOffset
    }

    /// Attempts started for a peripheral that already had one under way.
    var overlappingAttempts: Int { record.withLock { $0.overlapping } }
    /// Attempts started per peripheral.
    var attempts: [UUID: Int] { record.withLock { $0.attempts } }

    var restoreIdentifier: String? { base.restoreIdentifier }
    var state: ManagerState { get async { await base.state } }
    func events() -> AsyncStream<CentralEvent> { base.events() }

    func scan(_ options: ScanOptions) async throws -> AsyncThrowingStream<Advertisement, any Error> {
        let heard = try await base.scan(options)
        guard rssiOffset != 0 else { return heard }
        let offset = rssiOffset
        return AsyncThrowingStream { continuation in
            let relay = Task {
                do {
                    for try await advertisement in heard {
                        var louder = advertisement
                        louder.rssi += offset
                        continuation.yield(louder)
                    }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in relay.cancel() }
        }
    }
    func stopScan() async { await base.stopScan() }

    func connect(_ peripheral: UUID, timeout: Duration?) async throws {
        record.withLock { record in
            if record.inFlight[peripheral, default: 0] > 0 { record.overlapping += 1 }
            record.inFlight[peripheral, default: 0] += 1
            record.attempts[peripheral, default: 0] += 1
        }
        defer { record.withLock { $0.inFlight[peripheral, default: 1] -= 1 } }
        try await base.connect(peripheral, timeout: timeout)
    }

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
    func unsubscribe(from characteristic: RemoteCharacteristic) async throws { try await base.unsubscribe(from: characteristic) }

    func attMTU(for peripheral: UUID) async throws -> Int { try await base.attMTU(for: peripheral) }
    func maximumWriteValueLength(for peripheral: UUID, type: WriteType) async throws -> Int {
        try await base.maximumWriteValueLength(for: peripheral, type: type)
    }
    func readRSSI(of peripheral: UUID) async throws -> Int { try await base.readRSSI(of: peripheral) }
    func openL2CAPChannel(psm: UInt16, on peripheral: UUID) async throws -> any L2CAPChannel {
        try await base.openL2CAPChannel(psm: psm, on: peripheral)
    }
}
