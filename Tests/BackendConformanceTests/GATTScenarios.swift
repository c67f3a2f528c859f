import BleuCore
import BleuGATT
import Foundation
import Testing

extension EveryBackend {
    @Suite("typed GATT: server and client, notifications, indications, long values", .timeLimit(.minutes(1)))
    struct GATTScenarios {
        @Test("the Heart Rate Service: typed read, write, and notified measurements in order", arguments: Backend.available)
        func heartRate(_ backend: Backend) async throws {
            let radios = try await backend.makePair()
            defer { radios.stop() }
            let reset = ResetCounter()
            let sensor = try await GATTServer(peripheral: radios.peripheral).host(HeartRateService.self) { handlers in
                handlers.onRead(HeartRateService.bodySensorLocation) { _ in .wrist }
                handlers.onWrite(HeartRateService.controlPoint) { command, _ in
                    if command == .resetEnergyExpended { reset.count() }
                }
            }
            try await radios.peripheral.startAdvertising(AdvertisingData(localName: "Pulse", serviceUUIDs: [HeartRateService.uuid]),
                                                          scanResponse: nil)
            let found = try #require(try await radios.central.scan(ScanOptions(services: [HeartRateService.uuid]))
                .first { _ in true })
            await radios.central.stopScan()
            try await radios.central.connect(found.peripheral)
            let heartRate = try await GATTClient(central: radios.central, peripheral: found.peripheral)
                .discover(HeartRateService.self)
            #expect(try await heartRate.read(HeartRateService.bodySensorLocation) == .wrist)

            // A peripheral sends to the centrals it knows are subscribed: with the peripheral in
            // another process (or CoreBluetooth's), it learns of the subscription after the
            // central's call returns, so it starts on the event, as an app does.
            var peripheralEvents = radios.peripheral.events().makeAsyncIterator()
            _ = await peripheralEvents.next()   // the state: the stream is open wherever the medium is
            let beats = try await heartRate.subscribe(to: HeartRateService.measurement)
            while let event = await peripheralEvents.next() { if case .subscribed = event { break } }
            let sent = (0..<10).map { HeartRateMeasurement(heartRate: UInt16(60 + $0), sensorContact: .detected) }
            for measurement in sent { try await sensor.notify(HeartRateService.measurement, measurement) }
            var received: [UInt16] = []
            for try await beat in beats {
                received.append(beat.heartRate)
                if received.count == sent.count { break }
            }
            #expect(received == sent.map(\.heartRate))

            try await heartRate.write(.resetEnergyExpended, to: HeartRateService.controlPoint)
            #expect(reset.value == 1)
        }

        @Test("raw GATT on the protocols: a long value read and written whole, an indication confirmed",
              arguments: Backend.available)
        func longValuesAndIndications(_ backend: Backend) async throws {
            let radios = try await backend.makePair()
            defer { radios.stop() }
            let serviceUUID = BluetoothUUID(0xFFE0)
            let published = try await radios.peripheral.add(ServiceDefinition(uuid: serviceUUID, characteristics: [
                CharacteristicDefinition(uuid: BluetoothUUID(0xFFE1), properties: [.read, .write], permissions: .readWrite),
                CharacteristicDefinition(uuid: BluetoothUUID(0xFFE2), properties: [.indicate], permissions: .readable),
            ]))
            let long = Data((0..<400).map { UInt8($0 % 251) })
            let stored = StoredValue(long)
            let requests = radios.peripheral.events()
            let answering = Task { [peripheral = radios.peripheral] in
                for await event in requests {
                    switch event {
                    case .readRequest(let request):
                        let value = stored.value
                        await peripheral.respond(to: request, with: request.offset <= value.count
                                                 ? .success(value.subdata(in: request.offset..<value.count)) : .failure(.invalidOffset))
                    case .writeRequests(let batch):
                        var value = Data()
                        for write in batch.requests.sorted(by: { $0.offset < $1.offset }) { value.append(write.value) }
                        stored.value = value
                        await peripheral.respond(to: batch, with: .success(()))
                    default:
                        continue
                    }
                }
            }
            defer { answering.cancel() }
            try await radios.peripheral.startAdvertising(AdvertisingData(localName: "Long"), scanResponse: nil)
            let found = try #require(try await radios.central.scan(ScanOptions()).first { $0.localName == "Long" })
            await radios.central.stopScan()
            try await radios.central.connect(found.peripheral)
            let service = try #require(try await radios.central.discoverServices([serviceUUID], on: found.peripheral).first)
            let characteristics = try await radios.central.discoverCharacteristics(nil, for: service)
            let value = try #require(characteristics.first { $0.uuid == BluetoothUUID(0xFFE1) })
            let indicated = try #require(characteristics.first { $0.uuid == BluetoothUUID(0xFFE2) })

            #expect(try await radios.central.read(value) == long)
            let written = Data(long.reversed())
            try await radios.central.write(written, to: value, type: .withResponse)
            #expect(stored.value == written)

            var peripheralEvents = radios.peripheral.events().makeAsyncIterator()
            _ = await peripheralEvents.next()   // the state: the stream is open wherever the medium is
            let indications = try await radios.central.subscribe(to: indicated)
            while let event = await peripheralEvents.next() { if case .subscribed = event { break } }
            let target = try #require(published.characteristic(BluetoothUUID(0xFFE2)))
            #expect(await radios.peripheral.updateValue(Data([1, 2, 3]), for: target, onSubscribedCentrals: nil))
            var iterator = indications.makeAsyncIterator()
            #expect(try await iterator.next() == Data([1, 2, 3]))
        }
    }
}

/// Counts control-point resets, from the server's handler.
private final class ResetCounter: Sendable {
    private let counter = Locked(0)
    func count() { counter.withLock { $0 += 1 } }
    var value: Int { counter.withLock { $0 } }
}

/// The value the raw-GATT scenario's peripheral serves.
private final class StoredValue: Sendable {
    private let stored: Locked<Data>
    init(_ value: Data) { stored = Locked(value) }
    var value: Data {
        get { stored.withLock { $0 } }
        set { stored.withLock { $0 = newValue } }
    }
}
