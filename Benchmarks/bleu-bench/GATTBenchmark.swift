import BleuATT
import BleuCore
import BleuEmulator
import BleuGATT
import Foundation

/// `bleu-bench gatt`: what typed GATT costs over bytes. Reads and notifications of a Heart Rate
/// Measurement through one `.instant` emulator bus, once with the radio protocols and bytes (the
/// application answers requests and calls `updateValue` itself) and once with `GATTServer` /
/// `GATTClient` and values; the figure that matters is typed over raw, measured in the same run.
struct GATTBenchmark: BenchmarkSuite {
    let name = "gatt"
    let summary = "typed GATT vs raw bytes through the same emulator: read and notify rates, as ratios"

    static let serviceUUID: BluetoothUUID = "7A110000-0B5E-4C3A-8F2D-1E2F3A4B5C6D"
    static let measurement = Characteristic<HeartRateMeasurement>(
        "7A110001-0B5E-4C3A-8F2D-1E2F3A4B5C6D", name: "Measurement", codec: HeartRateMeasurement.codec, properties: [.read, .notify])
    static let value = HeartRateMeasurement(heartRate: 72, sensorContact: .detected, energyExpended: 310, rrIntervals: [800, 812])

    func run(_ options: BenchmarkOptions, _ report: inout BenchmarkReport) async throws {
        let reads = options.quick ? 300 : 4000
        let notifications = options.quick ? 500 : 8000
        let bus = EmulatorBus(configuration: .instant)
        let bytes = try Self.measurement.encode(Self.value)

        // Raw: a peripheral whose application answers with bytes.
        let rawPeripheral = EmulatedPeripheralManager(bus: bus)
        let rawEvents = rawPeripheral.events()
        let published = try await rawPeripheral.add(ServiceDeclaration(Self.serviceUUID) { Self.measurement }.definition())
        let rawCharacteristic = published.characteristics[0]
        let rawApp = Task {
            for await event in rawEvents {
                if case .readRequest(let request) = event {
                    await rawPeripheral.respond(to: request, with: .success(Data(bytes.dropFirst(request.offset))))
                }
            }
        }
        defer { rawApp.cancel() }
        try await rawPeripheral.startAdvertising(AdvertisingData(localName: "raw"))

        // Typed: the same characteristic behind a GATTServer.
        let typedPeripheral = EmulatedPeripheralManager(bus: bus)
        let server = GATTServer(peripheral: typedPeripheral)
        let hosted = try await server.host(ServiceDeclaration(Self.serviceUUID) { Self.measurement }) { handlers in
            handlers.onRead(Self.measurement) { _ in Self.value }
        }
        try await typedPeripheral.startAdvertising(AdvertisingData(localName: "typed"))

        let central = EmulatedCentralManager(bus: bus)
        let rawID = try await find("raw", central)
        let typedID = try await find("typed", central)
        try await central.connect(rawID)
        try await central.connect(typedID)
        let rawService = try await GATTClient(central: central, peripheral: rawID).discover(ServiceDeclaration(Self.serviceUUID) { Self.measurement })
        let rawRemote = try rawService.remote(Self.measurement)
        let typedService = try await GATTClient(central: central, peripheral: typedID).discover(ServiceDeclaration(Self.serviceUUID) { Self.measurement })

        progress("gatt: reads")
        let rawReads = try await bestRate(count: reads) {
            for _ in 0..<reads { blackHole(try await central.read(rawRemote)) }
        }
        let typedReads = try await bestRate(count: reads) {
            for _ in 0..<reads { blackHole(try await typedService.read(Self.measurement)) }
        }
        report.record("read.raw_per_s", rawReads, unit: "reads/s", "raw bytes: reads per second")
        report.record("read.typed_per_s", typedReads, unit: "reads/s", "typed values: reads per second")
        report.record("read.typed_over_raw", typedReads / rawReads, unit: "ratio", "typed / raw read rate")

        progress("gatt: notifications")
        let rawNotifications = try await bestRate(count: notifications) {
            let stream = try await central.subscribe(to: rawRemote)
            async let received: Int = stream.prefix(notifications).reduce(0) { count, _ in count + 1 }
            var events = rawPeripheral.events().makeAsyncIterator()
            for _ in 0..<notifications {
                while await !rawPeripheral.updateValue(bytes, for: rawCharacteristic) {
                    while let event = await events.next() {
                        if case .readyToUpdateSubscribers = event { break }
                    }
                }
            }
            let count = try await received
            precondition(count == notifications, "raw: \(count) of \(notifications) notifications arrived")
            try await central.unsubscribe(from: rawRemote)
        }
        let typedNotifications = try await bestRate(count: notifications) {
            let stream = try await typedService.subscribe(to: Self.measurement)
            async let received: Int = stream.prefix(notifications).reduce(0) { count, _ in count + 1 }
            for _ in 0..<notifications { try await hosted.notify(Self.measurement, Self.value) }
            let count = try await received
            precondition(count == notifications, "typed: \(count) of \(notifications) notifications arrived")
            try await typedService.unsubscribe(from: Self.measurement)
        }
        report.record("notify.raw_per_s", rawNotifications, unit: "values/s", "raw bytes: notifications per second")
        report.record("notify.typed_per_s", typedNotifications, unit: "values/s", "typed values: notifications per second")
        report.record("notify.typed_over_raw", typedNotifications / rawNotifications, unit: "ratio", "typed / raw notification rate")
        server.stop()
    }

    private func find(_ name: String, _ central: EmulatedCentralManager) async throws -> UUID {
        for try await advertisement in try await central.scan() where advertisement.localName == name {
            await central.stopScan()
            return advertisement.peripheral
        }
        throw BleuError.peripheralNotFound(UUID())
    }

    /// The best of three rounds: `count` units of work per round, per second.
    private func bestRate(count: Int, _ round: () async throws -> Void) async throws -> Double {
        let clock = ContinuousClock()
        var best = 0.0
        for _ in 0..<3 {
            let start = clock.now
            try await round()
            best = max(best, Double(count) / (clock.now - start).seconds)
        }
        return best
    }
}
