// Helpers for the backend's tests. They run where CoreBluetoothEmulator stands in for
// CoreBluetooth; on Apple platforms the backend drives the real radio and these files are empty.
#if !canImport(CoreBluetooth)
import BleuCore
import BleuCoreBluetooth
import BleuEmulator
import Foundation
import Testing

/// The UUIDs of the sample service.
enum SampleUUID {
    static let service = BluetoothUUID(string: "B1E40001-0000-4000-8000-00805F9B34FB")!
    static let included = BluetoothUUID(string: "B1E40010-0000-4000-8000-00805F9B34FB")!
    /// Read, write, write without response; a user description.
    static let value = BluetoothUUID(string: "B1E40002-0000-4000-8000-00805F9B34FB")!
    /// Notify and read.
    static let stream = BluetoothUUID(string: "B1E40003-0000-4000-8000-00805F9B34FB")!
    /// Indicate only.
    static let indicated = BluetoothUUID(string: "B1E40004-0000-4000-8000-00805F9B34FB")!
    /// Read only, a static value.
    static let fixed = BluetoothUUID(string: "B1E40005-0000-4000-8000-00805F9B34FB")!
    /// Write without response only.
    static let command = BluetoothUUID(string: "B1E40006-0000-4000-8000-00805F9B34FB")!
    /// Read only, dynamic: the application answers.
    static let readOnly = BluetoothUUID(string: "B1E40007-0000-4000-8000-00805F9B34FB")!
    /// A characteristic of the included service.
    static let inner = BluetoothUUID(string: "B1E40011-0000-4000-8000-00805F9B34FB")!
}

extension ServiceDefinition {
    /// A secondary service the sample service includes.
    static var includedSample: ServiceDefinition {
        ServiceDefinition(uuid: SampleUUID.included, isPrimary: false, characteristics: [
            CharacteristicDefinition(uuid: SampleUUID.inner, properties: [.read], permissions: .readable, value: Data("inner".utf8)),
        ])
    }

    /// A service with one characteristic of each kind the tests use; it includes ``includedSample``.
    static var sample: ServiceDefinition {
        ServiceDefinition(uuid: SampleUUID.service, characteristics: [
            CharacteristicDefinition(uuid: SampleUUID.value, properties: [.read, .write, .writeWithoutResponse],
                                     permissions: .readWrite, descriptors: [.userDescription("value")]),
            CharacteristicDefinition(uuid: SampleUUID.stream, properties: [.notify, .read], permissions: .readable),
            CharacteristicDefinition(uuid: SampleUUID.indicated, properties: [.indicate], permissions: .readable),
            CharacteristicDefinition(uuid: SampleUUID.fixed, properties: [.read], permissions: .readable, value: Data("fixed".utf8)),
            CharacteristicDefinition(uuid: SampleUUID.command, properties: [.writeWithoutResponse], permissions: .writeable),
            CharacteristicDefinition(uuid: SampleUUID.readOnly, properties: [.read], permissions: .readable),
        ], includedServices: [SampleUUID.included])
    }
}

/// The values a peripheral's application serves, by characteristic UUID: bytes, or an ATT
/// error to answer with.
final class ValueStore: Sendable {
    private let values = Locked<[BluetoothUUID: Result<Data, ATTError>]>([:])
    /// Every batch of writes the application received, in order.
    let writes: AsyncStream<WriteRequests>
    private let writeSink: AsyncStream<WriteRequests>.Continuation

    init() {
        (writes, writeSink) = AsyncStream.makeStream()
    }

    func set(_ value: Data, for uuid: BluetoothUUID) {
        values.withLock { $0[uuid] = .success(value) }
    }

    func fail(_ uuid: BluetoothUUID, with error: ATTError) {
        values.withLock { $0[uuid] = .failure(error) }
    }

    func value(_ uuid: BluetoothUUID) -> Result<Data, ATTError> {
        values.withLock { $0[uuid] ?? .success(Data()) }
    }

    /// Applies writes at their offsets, unless the characteristic answers with an error; returns the answer.
    func apply(_ batch: WriteRequests) -> Result<Void, ATTError> {
        writeSink.yield(batch)
        return values.withLock { values in
            for request in batch.requests {
                let uuid = request.characteristic.uuid
                if case .failure(let error) = values[uuid] { return .failure(error) }
                var bytes = Data()
                if case .success(let stored)? = values[uuid] { bytes = stored }
                if bytes.count < request.offset { return .failure(.invalidOffset) }
                bytes = bytes.prefix(request.offset) + request.value
                values[uuid] = .success(bytes)
            }
            return .success(())
        }
    }

    /// The answer to a read at `offset`.
    func read(_ uuid: BluetoothUUID, offset: Int) -> Result<Data, ATTError> {
        switch value(uuid) {
        case .failure(let error): .failure(error)
        case .success(let bytes) where offset > bytes.count: .failure(.invalidOffset)
        case .success(let bytes): .success(Data(bytes.dropFirst(offset)))
        }
    }
}

/// Runs a peripheral's application: answers reads from the store and writes into it, except
/// for characteristics in `silent`, which it never answers.
func serve(_ peripheral: some PeripheralManager, from store: ValueStore, silent: Set<BluetoothUUID> = []) -> Task<Void, Never> {
    let events = peripheral.events()
    return Task {
        for await event in events {
            switch event {
            case .readRequest(let request):
                guard !silent.contains(request.characteristic.uuid) else { continue }
                await peripheral.respond(to: request, with: store.read(request.characteristic.uuid, offset: request.offset))
            case .writeRequests(let batch):
                let answer = store.apply(batch)
                if batch.needsResponse { await peripheral.respond(to: batch, with: answer) }
            default:
                continue
            }
        }
    }
}

/// An emulator bus with a native peripheral publishing the sample service and advertising it,
/// and a CoreBluetooth-backed central.
struct CentralRig {
    let bus: EmulatorBus
    let peripheral: EmulatedPeripheralManager
    let central: CoreBluetoothCentralManager
    let store = ValueStore()
    let service: PublishedService

    init(configuration: EmulatorConfiguration = .instant, name: String = "Sample", silent: Set<BluetoothUUID> = [],
         serving: Bool = true, centralRestoreIdentifier: String? = nil) async throws {
        bus = EmulatorBus(configuration: configuration)
        peripheral = EmulatedPeripheralManager(bus: bus)
        central = CoreBluetoothCentralManager(bus: bus, restoreIdentifier: centralRestoreIdentifier)
        _ = try await peripheral.add(.includedSample)
        service = try await peripheral.add(.sample)
        if serving { _ = serve(peripheral, from: store, silent: silent) }
        try await peripheral.startAdvertising(AdvertisingData(flags: .leGeneralDiscoverable, localName: name,
                                                              serviceUUIDs: [SampleUUID.service]))
        try await central.waitUntilPoweredOn()
    }

    /// Scans for the sample peripheral, connects and discovers the sample service's characteristics.
    func connect() async throws -> Connection {
        let id = try await central.find(name: "Sample")
        try await central.connect(id)
        let services = try await central.discoverServices([SampleUUID.service], on: id)
        let found = try await central.discoverCharacteristics(nil, for: try #require(services.first))
        return Connection(id: id, service: services[0],
                          characteristics: Dictionary(uniqueKeysWithValues: found.map { ($0.uuid, $0) }))
    }

    struct Connection {
        let id: UUID
        let service: RemoteService
        let characteristics: [BluetoothUUID: RemoteCharacteristic]

        subscript(uuid: BluetoothUUID) -> RemoteCharacteristic {
            characteristics[uuid]!
        }
    }
}

extension CentralManager {
    /// Returns once the radio is powered on.
    func waitUntilPoweredOn() async throws {
        for await event in events() {
            if case .stateChanged(.poweredOn) = event { return }
        }
        throw BleuError.bluetoothUnavailable(await state)
    }

    /// Scans until the peripheral advertising `name` is heard; returns its identifier.
    func find(name: String) async throws -> UUID {
        let advertisements = try await scan()
        for try await advertisement in advertisements where advertisement.localName == name {
            await stopScan()
            return advertisement.peripheral
        }
        throw BleuError.peripheralNotFound(UUID())
    }
}

extension PeripheralManager {
    /// Returns once the radio is powered on.
    func waitUntilPoweredOn() async throws {
        for await event in events() {
            if case .stateChanged(.poweredOn) = event { return }
        }
        throw BleuError.bluetoothUnavailable(await state)
    }
}

/// The error `body` throws, or `nil` when it returns.
func thrownError<T>(_ body: () async throws -> T) async -> (any Error)? {
    do {
        _ = try await body()
        return nil
    } catch {
        return error
    }
}

/// Whether `error` is a ``BleuError`` of the case `matches` accepts.
func isBleuError(_ error: (any Error)?, _ matches: (BleuError) -> Bool) -> Bool {
    guard let error = error as? BleuError else { return false }
    return matches(error)
}
#endif
