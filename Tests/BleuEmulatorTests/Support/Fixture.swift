import BleuCore
import Foundation
@testable import BleuEmulator

/// UUIDs of the test service.
enum TestUUID {
    static let service = BluetoothUUID(string: "6E400001-B5A3-F393-E0A9-E50E24DCCA9E")!
    static let value = BluetoothUUID(string: "6E400002-B5A3-F393-E0A9-E50E24DCCA9E")!
    static let stream = BluetoothUUID(string: "6E400003-B5A3-F393-E0A9-E50E24DCCA9E")!
    static let indicated = BluetoothUUID(string: "6E400004-B5A3-F393-E0A9-E50E24DCCA9E")!
    static let readOnly = BluetoothUUID(string: "6E400005-B5A3-F393-E0A9-E50E24DCCA9E")!
    static let writeOnly = BluetoothUUID(string: "6E400006-B5A3-F393-E0A9-E50E24DCCA9E")!
    static let encrypted = BluetoothUUID(string: "6E400007-B5A3-F393-E0A9-E50E24DCCA9E")!
    static let authenticated = BluetoothUUID(string: "6E400008-B5A3-F393-E0A9-E50E24DCCA9E")!
    static let commandOnly = BluetoothUUID(string: "6E400009-B5A3-F393-E0A9-E50E24DCCA9E")!
    static let fixed = BluetoothUUID(string: "6E40000A-B5A3-F393-E0A9-E50E24DCCA9E")!
    static let locked = BluetoothUUID(string: "6E40000B-B5A3-F393-E0A9-E50E24DCCA9E")!
}

extension ServiceDefinition {
    /// A service with one characteristic of each kind the tests need.
    static var test: ServiceDefinition {
        ServiceDefinition(uuid: TestUUID.service, characteristics: [
            CharacteristicDefinition(uuid: TestUUID.value, properties: [.read, .write, .writeWithoutResponse],
                                     permissions: .readWrite, descriptors: [.userDescription("value")]),
            CharacteristicDefinition(uuid: TestUUID.stream, properties: [.notify, .read], permissions: .readable),
            CharacteristicDefinition(uuid: TestUUID.indicated, properties: [.indicate], permissions: .readable),
            CharacteristicDefinition(uuid: TestUUID.readOnly, properties: [.read], permissions: .readable),
            CharacteristicDefinition(uuid: TestUUID.writeOnly, properties: [.write], permissions: .writeable),
            CharacteristicDefinition(uuid: TestUUID.encrypted, properties: [.read, .write],
                                     permissions: [.readable, .writeable, .readEncryptionRequired, .writeEncryptionRequired]),
            CharacteristicDefinition(uuid: TestUUID.authenticated, properties: [.read],
                                     permissions: [.readable, .readAuthenticationRequired]),
            CharacteristicDefinition(uuid: TestUUID.commandOnly, properties: [.writeWithoutResponse], permissions: .writeable),
            CharacteristicDefinition(uuid: TestUUID.fixed, properties: [.read], permissions: .readable,
                                     value: Data("fixed".utf8)),
            CharacteristicDefinition(uuid: TestUUID.locked, properties: [.read, .write], permissions: .readable),
        ])
    }
}

/// What the test peripheral's application holds: one value per characteristic, every write it received.
final class ValueStore: Sendable {
    private let state = Locked<(values: [BluetoothUUID: Data], writes: [WriteRequest], batches: Int)>(([:], [], 0))

    func value(_ uuid: BluetoothUUID) -> Data { state.withLock { $0.values[uuid] ?? Data() } }
    func set(_ value: Data, for uuid: BluetoothUUID) { state.withLock { $0.values[uuid] = value } }
    var writes: [WriteRequest] { state.withLock { $0.writes } }
    var batches: Int { state.withLock { $0.batches } }

    /// Applies a batch of writes: a single write at offset 0 replaces the value; prepared
    /// writes patch it at their offsets.
    func apply(_ requests: [WriteRequest]) {
        state.withLock { state in
            state.batches += 1
            for request in requests {
                state.writes.append(request)
                var value = state.values[request.characteristic.uuid] ?? Data()
                if request.offset == 0 && requests.count == 1 { value = Data() }
                if value.count < request.offset { value += Data(count: request.offset - value.count) }
                value.replaceSubrange(request.offset..<min(value.count, request.offset + request.value.count), with: request.value)
                state.values[request.characteristic.uuid] = value
            }
        }
    }
}

typealias Answer = @Sendable (PeripheralEvent, EmulatedPeripheralManager, ValueStore) async -> Void

/// A peripheral with the test service, advertising, whose application answers every request
/// from a ``ValueStore``; and a central connected to it with everything discovered.
struct Fixture {
    let bus: EmulatorBus
    let peripheral: EmulatedPeripheralManager
    let central: EmulatedCentralManager
    let service: PublishedService
    let store: ValueStore
    let app: Task<Void, Never>
    let peripheralID: UUID
    let characteristics: [BluetoothUUID: RemoteCharacteristic]

    subscript(uuid: BluetoothUUID) -> RemoteCharacteristic { characteristics[uuid]! }

    /// - Parameter answer: how the application answers; the default serves the store.
    static func make(configuration: EmulatorConfiguration = .instant, clock: any Clock<Duration> = ContinuousClock(),
                     centralOptions: EmulatedCentralManager.Options = .init(),
                     peripheralOptions: EmulatedPeripheralManager.Options = .init(),
                     answer: Answer? = nil, connect: Bool = true) async throws -> Fixture {
        let bus = EmulatorBus(configuration: configuration, clock: clock)
        return try await make(on: bus, centralOptions: centralOptions, peripheralOptions: peripheralOptions, answer: answer,
                              connect: connect)
    }

    static func make(on bus: EmulatorBus, centralOptions: EmulatedCentralManager.Options = .init(),
                     peripheralOptions: EmulatedPeripheralManager.Options = .init(),
                     answer: Answer? = nil, connect: Bool = true, name: String = "Test") async throws -> Fixture {
        try await make(peripheralBus: bus, centralBus: bus, centralOptions: centralOptions, peripheralOptions: peripheralOptions,
                       answer: answer, connect: connect, name: name)
    }

    /// The peripheral on `peripheralBus`, the central on `centralBus` (two clients of one hub).
    static func make(peripheralBus: EmulatorBus, centralBus: EmulatorBus, centralOptions: EmulatedCentralManager.Options = .init(),
                     peripheralOptions: EmulatedPeripheralManager.Options = .init(),
                     answer: Answer? = nil, connect: Bool = true, name: String = "Test") async throws -> Fixture {
        let bus = centralBus
        let peripheral = EmulatedPeripheralManager(bus: peripheralBus, options: peripheralOptions)
        let store = ValueStore()
        let app = serveRequests(of: peripheral, from: store, answer: answer)
        let service = try await peripheral.add(.test)
        try await peripheral.startAdvertising(AdvertisingData(flags: .leGeneralDiscoverable, localName: name,
                                                              serviceUUIDs: [TestUUID.service]))
        let central = EmulatedCentralManager(bus: bus, options: centralOptions)
        let peripheralID = try await central.discover(name: name)
        var characteristics: [BluetoothUUID: RemoteCharacteristic] = [:]
        if connect {
            try await central.connect(peripheralID)
            characteristics = try await central.discoverTestService(on: peripheralID)
        }
        return Fixture(bus: bus, peripheral: peripheral, central: central, service: service, store: store, app: app,
                       peripheralID: peripheralID, characteristics: characteristics)
    }

    /// Runs the peripheral's application: answers every request (with `answer`, or from the store).
    static func serveRequests(of peripheral: EmulatedPeripheralManager, from store: ValueStore,
                              answer: Answer? = nil) -> Task<Void, Never> {
        let events = peripheral.events()
        return Task { [weak peripheral] in
            for await event in events {
                guard let peripheral else { return }
                if let answer {
                    await answer(event, peripheral, store)
                } else {
                    await Fixture.serve(event, peripheral, store)
                }
            }
        }
    }

    /// The default application: reads from the store, writes into it.
    static func serve(_ event: PeripheralEvent, _ peripheral: EmulatedPeripheralManager, _ store: ValueStore) async {
        switch event {
        case .readRequest(let request):
            let value = store.value(request.characteristic.uuid)
            if request.offset > value.count {
                await peripheral.respond(to: request, with: .failure(.invalidOffset))
            } else {
                await peripheral.respond(to: request, with: .success(Data(value.dropFirst(request.offset))))
            }
        case .writeRequests(let requests):
            store.apply(requests.requests)
            await peripheral.respond(to: requests, with: .success(()))
        default:
            break
        }
    }

    func characteristic(_ uuid: BluetoothUUID) -> PublishedCharacteristic {
        service.characteristic(uuid)!
    }
}

extension EmulatedCentralManager {
    /// Scans until a peripheral with this name is heard and returns its identifier.
    func discover(name: String) async throws -> UUID {
        let stream = try await scan()
        for try await advertisement in stream where advertisement.localName == name {
            await stopScan()
            return advertisement.peripheral
        }
        throw BleuError.peripheralNotFound(UUID())
    }

    /// Discovers the test service's characteristics.
    func discoverTestService(on peripheral: UUID) async throws -> [BluetoothUUID: RemoteCharacteristic] {
        var characteristics: [BluetoothUUID: RemoteCharacteristic] = [:]
        let services = try await discoverServices([TestUUID.service], on: peripheral)
        for characteristic in try await discoverCharacteristics(nil, for: services[0]) {
            characteristics[characteristic.uuid] = characteristic
        }
        return characteristics
    }
}

extension AsyncStream {
    /// The first element matching `predicate`, or `nil` if the stream ends first.
    mutating func first(matching predicate: (Element) -> Bool) async -> Element? {
        for await element in self where predicate(element) { return element }
        return nil
    }
}

/// Whether an operation throws exactly this error.
func throwsError<T>(_ expected: BleuError, _ body: () async throws -> T) async -> Bool {
    do {
        _ = try await body()
        return false
    } catch let error as BleuError {
        return error == expected
    } catch {
        return false
    }
}

/// The error an operation throws, or `nil`.
func thrownError<T>(_ body: () async throws -> T) async -> (any Error)? {
    do {
        _ = try await body()
        return nil
    } catch {
        return error
    }
}
