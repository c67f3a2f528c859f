import BleuCore
import BleuEmulator
import Foundation

/// The scenarios `bleu-bench link` measures.
enum LinkScenario {
    enum Direction {
        case notifications
        case writes
    }

    static let service = BluetoothUUID(string: "B1E0B1E0-0000-4000-8000-00805F9B34FB")!
    static let channel = BluetoothUUID(string: "B1E0B1E0-0001-4000-8000-00805F9B34FB")!

    static var definition: ServiceDefinition {
        ServiceDefinition(uuid: service, characteristics: [
            CharacteristicDefinition(uuid: channel, properties: [.notify, .writeWithoutResponse, .write], permissions: .writeable),
        ])
    }

    /// A peripheral with the benchmark service and a central connected to it, with the
    /// characteristic discovered.
    static func connect(_ configuration: EmulatorConfiguration)
        async throws -> (EmulatorBus, EmulatedPeripheralManager, PublishedCharacteristic, EmulatedCentralManager, RemoteCharacteristic) {
        let bus = EmulatorBus(configuration: configuration)
        let peripheral = EmulatedPeripheralManager(bus: bus)
        let published = try await peripheral.add(definition).characteristics[0]
        try await peripheral.startAdvertising(AdvertisingData(localName: "bench"))
        let central = EmulatedCentralManager(bus: bus)
        var found: UUID?
        for try await advertisement in try await central.scan() {
            found = advertisement.peripheral
            break
        }
        await central.stopScan()
        guard let id = found else { throw BleuError.peripheralNotFound(UUID()) }
        try await central.connect(id)
        let services = try await central.discoverServices([service], on: id)
        let remote = try await central.discoverCharacteristics([channel], for: services[0])[0]
        return (bus, peripheral, published, central, remote)
    }

    /// A connection interval long enough that connection events hardly cost goodput: 100 ms,
    /// or longer (a multiple of 1.25 ms) where 100 ms holds fewer than 40 full exchanges
    /// (LE Coded S = 8).
    static func interval(phy: PHY, dataLength: Int) -> Duration {
        let exchange = Int64(AirTime.exchangeMicroseconds(payload: dataLength, phy: phy))
        let microseconds = max(100_000, (40 * exchange + 1_249) / 1_250 * 1_250)
        return .microseconds(microseconds)
    }

    /// Bulk transfer for about `seconds` in real time; the goodput in kb/s between the first
    /// and the last value the receiver got.
    static func bulk(_ direction: Direction, phy: PHY, dataLength: Int, seconds: Double) async throws -> Double {
        var configuration = EmulatorConfiguration.default
        configuration.phy = phy
        configuration.dataLength = dataLength
        configuration.connectionInterval = interval(phy: phy, dataLength: dataLength)
        configuration.centralMTU = dataLength - 4  // one ATT PDU fills one LL PDU, as the reference assumes
        configuration.peripheralMTU = dataLength - 4
        configuration.notificationQueueDepth = 256
        configuration.writeWithoutResponseQueueDepth = 256
        configuration.subscriptionBufferLimit = 1024
        let (_, peripheral, published, central, remote) = try await connect(configuration)
        let payload = dataLength - 7
        let count = Int(LinkGoodput.referenceKilobitsPerSecond(phy: phy, dataLength: dataLength) * 1000 / 8 * seconds) / payload + 1
        let clock = ContinuousClock()
        switch direction {
        case .notifications:
            let values = try await central.subscribe(to: remote)
            let receiver = Task {
                var first: ContinuousClock.Instant?
                var received = 0
                for try await _ in values {
                    received += 1
                    if first == nil { first = clock.now }
                    if received == count { break }
                }
                return first.map { $0.duration(to: clock.now) } ?? .zero
            }
            var events = peripheral.events().makeAsyncIterator()
            var sent = 0
            while sent < count {
                if await peripheral.updateValue(Data(count: payload), for: published) {
                    sent += 1
                } else {
                    while let event = await events.next() { if case .readyToUpdateSubscribers = event { break } }
                }
            }
            return Double((count - 1) * payload * 8) / (try await receiver.value).seconds / 1000
        case .writes:
            let writes = peripheral.events()
            let receiver = Task {
                var first: ContinuousClock.Instant?
                var received = 0
                for await event in writes {
                    guard case .writeRequests = event else { continue }
                    received += 1
                    if first == nil { first = clock.now }
                    if received == count { break }
                }
                return first.map { $0.duration(to: clock.now) } ?? .zero
            }
            var events = central.events().makeAsyncIterator()
            var sent = 0
            while sent < count {
                do {
                    try await central.write(Data(count: payload), to: remote, type: .withoutResponse)
                    sent += 1
                } catch BleuError.sendQueueFull {
                    while let event = await events.next() { if case .readyToSendWriteWithoutResponse = event { break } }
                }
            }
            return Double((count - 1) * payload * 8) / (await receiver.value).seconds / 1000
        }
    }

    /// Write-without-response then notification echoes per second on `.instant`.
    static func echoRate(seconds: Double, bytes: Int = 1) async throws -> Double {
        let echo = try await Echo(bytes: bytes)
        let clock = ContinuousClock()
        let start = clock.now
        var rounds = 0
        while start.duration(to: clock.now).seconds < seconds {
            try await echo.run(100)
            rounds += 100
        }
        return Double(rounds) / start.duration(to: clock.now).seconds
    }

    /// A central writing a value without response on `.instant` and the peripheral notifying it
    /// back: the baseline an actor call is measured against (one write and one notification).
    final class Echo {
        private let central: EmulatedCentralManager
        private let remote: RemoteCharacteristic
        private let bytes: Int
        private let echoing: Task<Void, Never>
        private var replies: AsyncThrowingStream<Data, any Error>.AsyncIterator
        private var rounds = 0

        init(bytes: Int) async throws {
            let (_, peripheral, published, central, remote) = try await LinkScenario.connect(.instant)
            let requests = peripheral.events()
            echoing = Task {
                for await event in requests {
                    guard case .writeRequests(let writes) = event else { continue }
                    _ = await peripheral.updateValue(writes.requests[0].value, for: published)
                }
            }
            replies = try await central.subscribe(to: remote).makeAsyncIterator()
            (self.central, self.remote, self.bytes) = (central, remote, bytes)
        }

        deinit { echoing.cancel() }

        /// `count` echoes, one after the other.
        func run(_ count: Int) async throws {
            for _ in 0..<count {
                try await central.write(Data(repeating: UInt8(rounds & 0xFF), count: bytes), to: remote, type: .withoutResponse)
                guard try await replies.next() != nil else { throw BleuError.disconnected(remote.peripheral, .supervisionTimeout) }
                rounds += 1
            }
        }
    }

    /// The baseline: two tasks bouncing a value over two `AsyncStream`s.
    static func pingPongRate(seconds: Double) async -> Double {
        let (requests, requestSink) = AsyncStream.makeStream(of: Data.self)
        let (replies, replySink) = AsyncStream.makeStream(of: Data.self)
        let echo = Task {
            for await request in requests { replySink.yield(request) }
        }
        defer { echo.cancel() }
        var iterator = replies.makeAsyncIterator()
        let clock = ContinuousClock()
        let start = clock.now
        var rounds = 0
        while start.duration(to: clock.now).seconds < seconds {
            for _ in 0..<100 {
                requestSink.yield(Data([UInt8(rounds & 0xFF)]))
                _ = await iterator.next()
                rounds += 1
            }
        }
        requestSink.finish()
        return Double(rounds) / start.duration(to: clock.now).seconds
    }

    /// Resident memory per idle peripheral (a service published, advertising), from
    /// /proc/self/statm; `nil` where that does not exist.
    static func memoryPerIdlePeripheral(count: Int) async throws -> Double? {
        let bus = EmulatorBus(configuration: .instant)
        var keep: [EmulatedPeripheralManager] = []
        keep.reserveCapacity(count)
        // Warm up allocator and code paths before the baseline.
        for _ in 0..<50 {
            let peripheral = EmulatedPeripheralManager(bus: bus)
            _ = try await peripheral.add(definition)
            try await peripheral.startAdvertising(AdvertisingData(localName: "idle"))
        }
        guard let before = residentBytes() else { return nil }
        for _ in 0..<count {
            let peripheral = EmulatedPeripheralManager(bus: bus)
            _ = try await peripheral.add(definition)
            try await peripheral.startAdvertising(AdvertisingData(localName: "idle"))
            keep.append(peripheral)
        }
        guard let after = residentBytes() else { return nil }
        return withExtendedLifetime(keep) { Double(after - before) / Double(count) }
    }

    private static func residentBytes() -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return nil }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return nil }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    /// Seconds from the start of one scan until it heard `count` advertisers.
    static func discover(_ count: Int, configuration: EmulatorConfiguration) async throws -> Double {
        let bus = EmulatorBus(configuration: configuration)
        var advertisers: [EmulatedPeripheralManager] = []
        for i in 0..<count {
            let peripheral = EmulatedPeripheralManager(bus: bus)
            try await peripheral.startAdvertising(AdvertisingData(localName: "adv\(i)"))
            advertisers.append(peripheral)
        }
        let central = EmulatedCentralManager(bus: bus)
        let clock = ContinuousClock()
        let start = clock.now
        var heard = 0
        for try await _ in try await central.scan() {
            heard += 1
            if heard == count { break }
        }
        let elapsed = start.duration(to: clock.now).seconds
        await central.stopScan()
        return withExtendedLifetime(advertisers) { elapsed }
    }
}
