import BleuCore
import BleuEmulator
import BleuOrchestration
import BleuWire
import Foundation
import Logging

/// `bleu-bench fleet`: the orchestrator on the realistic link, in real time.
///
/// - N devices (100; 20 with `--quick`) each receive the same bulk data through the engine
///   (outgoing scheduler, BleuWire framing, credits): total goodput as a ratio of the
///   single-radio reference for the link's PHY and data length (`fleet.total_ratio`, as
///   `rpc.realistic.bulk_ratio` is), and against one device alone on the same radio, measured
///   in the same run (`fleet.total_vs_single_ratio`); per-device goodput and Jain's fairness
///   index over it (`fleet.jain_index`).
/// - The model's limit for that many links on one radio at the link's interval
///   (`LinkGoodput.sharedRadioKilobitsPerSecond`): `fleet.model_limit_ratio`, and the fleet's
///   share of it, `fleet.total_vs_model_ratio`. At the default 30 ms, 100 links' anchors are
///   closer together than one exchange, so the radio idles between events.
/// - The same messages, framed the same way, sent straight through the central with every
///   device connected beforehand (`fleet.raw_total_ratio`): what the link and the protocol
///   allow for this traffic, and the fleet's share of it, `fleet.total_vs_raw_ratio`.
/// - Then links are lost one after another: time from the loss to ready again
///   (`fleet.recovery_ms.p50`, `.p99`).
/// - The same fleet at the interval that gives each link room for one exchange per event
///   (`LinkGoodput.sharedRadioInterval`), as a central with many links would choose:
///   `fleet.spread.*`.
///
/// With `--radios 1,2,4` it runs instead the same fleet on each number of radios (emulated
/// centrals on one bus, each with its own air time, `FleetOrchestrator(radios:)` spreading the
/// devices by free slots): `fleet.radiosN.total_kbps` and the ratios to one radio,
/// `fleet.radios2_vs_1_ratio`, `fleet.radios4_vs_1_ratio`.
struct FleetBenchmark: BenchmarkSuite {
    let name = "fleet"
    let summary = "fleet goodput against the link reference and one device alone, Jain's fairness, recovery time after link loss"

    static let service = BluetoothUUID(string: "8E7F0001-5B4C-4E2A-9C1D-0A1B2C3D4E5F")!
    static let stream = BluetoothUUID(string: "8E7F0002-5B4C-4E2A-9C1D-0A1B2C3D4E5F")!
    static let inbox = BluetoothUUID(string: "8E7F0003-5B4C-4E2A-9C1D-0A1B2C3D4E5F")!

    func run(_ options: BenchmarkOptions, _ report: inout BenchmarkReport) async throws {
        let count = options.quick ? 20 : 100
        let bytes = options.quick ? 4 * 1024 : 8 * 1024
        let link = Self.link
        let interval = link.connectionInterval
        if let radios = options.radios {
            try await Self.compareRadios(radios, devices: count, bytesPerDevice: bytes, &report)
            return
        }
        let spreadInterval = LinkGoodput.sharedRadioInterval(links: count, phy: link.phy, dataLength: link.dataLength)
        progress("fleet: one device alone (baseline)")
        let single = try await Self.stream(devices: 1, bytesPerDevice: bytes * 4, losses: 0, interval: interval)
        progress("fleet: \(count) devices, then link losses")
        let fleet = try await Self.stream(devices: count, bytesPerDevice: bytes, losses: options.quick ? 10 : 30, interval: interval)
        progress("fleet: the same traffic without the orchestrator")
        let raw = try await Self.rawTraffic(devices: count, bytesPerDevice: bytes, interval: interval)
        progress("fleet: \(count) devices at a \(spreadInterval) interval")
        let spread = try await Self.stream(devices: count, bytesPerDevice: bytes, losses: 0, interval: spreadInterval)
        let reference = LinkGoodput.referenceKilobitsPerSecond(phy: link.phy, dataLength: link.dataLength) * 1000
        let limit = { (interval: Duration) in
            LinkGoodput.sharedRadioKilobitsPerSecond(links: count, phy: link.phy, dataLength: link.dataLength, interval: interval) * 1000
        }
        report.record("reference_kbps", reference / 1000, unit: "kb/s", "single-radio reference (\(link.phy), \(link.dataLength)-byte LL payload)")
        report.record("single_kbps", single.total / 1000, unit: "kb/s", "one device alone, goodput")
        report.record("total_kbps", fleet.total / 1000, unit: "kb/s", "\(count) devices, total goodput")
        report.record("total_ratio", fleet.total / reference, unit: "x", "total / single-radio reference")
        report.record("model_limit_ratio", limit(interval) / reference, unit: "x", "the model's shared-radio limit for \(count) links / reference")
        report.record("total_vs_model_ratio", fleet.total / limit(interval), unit: "x", "total / the model's shared-radio limit")
        report.record("total_vs_single_ratio", fleet.total / single.total, unit: "x", "total / one device alone")
        report.record("raw_total_ratio", raw / reference, unit: "x", "the same messages straight through the central, no orchestrator / reference")
        report.record("total_vs_raw_ratio", fleet.total / raw, unit: "x", "the fleet's total / the same traffic without the orchestrator")
        let perDevice = fleet.perDevice
        let mean = perDevice.reduce(0, +) / Double(perDevice.count)
        report.record("per_device_kbps.mean", mean / 1000, unit: "kb/s", "per-device goodput, mean")
        report.record("per_device_kbps.min", (perDevice.min() ?? 0) / 1000, unit: "kb/s", "per-device goodput, min")
        report.record("per_device_kbps.max", (perDevice.max() ?? 0) / 1000, unit: "kb/s", "per-device goodput, max")
        report.record("jain_index", Self.jain(perDevice), unit: "", "Jain's fairness index (1 = fair)")
        let recoveries = fleet.recoveries.sorted()
        if !recoveries.isEmpty {
            report.record("recovery_ms.p50", Self.percentile(recoveries, 0.5) * 1000, unit: "ms", "link loss → ready, median")
            report.record("recovery_ms.p99", Self.percentile(recoveries, 0.99) * 1000, unit: "ms", "link loss → ready, 99th percentile")
            report.record("recovery.samples", Double(recoveries.count), unit: "", "link losses measured")
        }
        report.record("spread.interval_ms", spreadInterval.seconds * 1000, unit: "ms", "connection interval with one exchange per link per event")
        report.record("spread.model_limit_ratio", limit(spreadInterval) / reference, unit: "x", "the model's shared-radio limit at that interval / reference")
        report.record("spread.total_ratio", spread.total / reference, unit: "x", "\(count) devices at that interval, total / reference")
        report.record("spread.jain_index", Self.jain(spread.perDevice), unit: "", "Jain's fairness index at that interval")
    }

    /// The same fleet on each number of radios, twice: with every radio at the suite's interval,
    /// and with every radio at the interval its share of the links calls for
    /// (`LinkGoodput.sharedRadioInterval`, as `fleet.spread.*` does for one radio). The headline
    /// ratios, `radiosN_vs_1_ratio`, compare the second: the same rule for every count.
    static func compareRadios(_ counts: [Int], devices count: Int, bytesPerDevice bytes: Int,
                              _ report: inout BenchmarkReport) async throws {
        let link = Self.link
        let reference = LinkGoodput.referenceKilobitsPerSecond(phy: link.phy, dataLength: link.dataLength) * 1000
        report.record("reference_kbps", reference / 1000, unit: "kb/s", "single-radio reference (\(link.phy), \(link.dataLength)-byte LL payload)")
        var fixed: [Int: Double] = [:]
        var spread: [Int: Double] = [:]
        for radios in counts {
            // Each radio holds its share of the links; the model's limits are per radio.
            let perRadio = (count + radios - 1) / radios
            let spreadInterval = LinkGoodput.sharedRadioInterval(links: perRadio, phy: link.phy, dataLength: link.dataLength)
            let limit = { (interval: Duration) in
                Double(radios) * LinkGoodput.sharedRadioKilobitsPerSecond(
                    links: perRadio, phy: link.phy, dataLength: link.dataLength, interval: interval) * 1000
            }
            for (interval, key) in [(link.connectionInterval, "radios\(radios)"), (spreadInterval, "radios\(radios).spread")] {
                FileHandle.standardError.write(Data("fleet: \(count) devices on \(radios) radio(s) at \(interval)\n".utf8))
                let outcome = try await Self.stream(devices: count, bytesPerDevice: bytes, losses: 0, interval: interval, radios: radios)
                if interval == link.connectionInterval { fixed[radios] = outcome.total } else { spread[radios] = outcome.total }
                report.record("\(key).interval_ms", interval.seconds * 1000, unit: "ms", "connection interval")
                report.record("\(key).total_kbps", outcome.total / 1000, unit: "kb/s", "\(count) devices on \(radios) radio(s), total goodput")
                report.record("\(key).total_ratio", outcome.total / reference, unit: "x", "total / one radio's reference")
                report.record("\(key).steady_kbps", outcome.steady / 1000, unit: "kb/s", "goodput while every device still has data queued")
                report.record("\(key).model_limit_ratio", limit(interval) / reference, unit: "x",
                              "the model's limit, \(radios) radio(s) of \(perRadio) links / one radio's reference")
                report.record("\(key).jain_index", Self.jain(outcome.perDevice), unit: "", "Jain's fairness index")
                report.record("\(key).links_per_radio.max", Double(outcome.linksPerRadio.max() ?? 0), unit: "",
                              "the most devices one radio held")
            }
        }
        guard let fixedOne = fixed[1], let spreadOne = spread[1] else { return }
        for radios in counts.sorted() where radios != 1 {
            report.record("radios\(radios)_vs_1_ratio", spread[radios]! / spreadOne, unit: "x",
                          "total on \(radios) radios / on one, each radio at the interval for its links")
            report.record("radios\(radios)_vs_1_ratio.fixed_interval", fixed[radios]! / fixedOne, unit: "x",
                          "total on \(radios) radios / on one, all at \(link.connectionInterval)")
            report.record("radios\(radios)_vs_1_ratio.best", max(spread[radios]!, fixed[radios]!) / max(spreadOne, fixedOne), unit: "x",
                          "the better of the two intervals on \(radios) radios / the better on one")
        }
    }

    static func jain(_ values: [Double]) -> Double {
        let squares = values.map { $0 * $0 }.reduce(0, +)
        return squares > 0 ? pow(values.reduce(0, +), 2) / (Double(values.count) * squares) : 0
    }

    struct Outcome {
        var total: Double  // bits per second
        var perDevice: [Double]
        var recoveries: [Double]  // seconds
        /// With several radios: how many devices each held when all were ready.
        var linksPerRadio: [Int] = []
        /// Bits per second confirmed while every device still had data queued.
        var steady: Double = 0
    }

    /// The emulated link of the suite: `.default` (LE 2M, 251-byte LL payload).
    static var link: EmulatorConfiguration { .default }

    /// One fleet's run. `radios`: on that many emulated centrals through
    /// `FleetOrchestrator(radios:)`, devices identified by their advertised names; `nil`: on one
    /// central through `FleetOrchestrator(central:)`.
    static func stream(devices count: Int, bytesPerDevice: Int, losses: Int, interval: Duration,
                       radios: Int? = nil) async throws -> Outcome {
        let (bus, apps) = try await Self.peripherals(count, interval: interval)
        defer { for app in apps { app.cancel() } }
        let central = EmulatedCentralManager(bus: bus)
        let profile = DeviceProfile(service: service, subscriptions: [stream], writeCharacteristic: inbox)
        let limits = SchedulerLimits(capacity: [.control: 4, .interactive: 4, .bulk: 64], maximumMessageSize: 2048)
        let fleetConfiguration = FleetConfiguration(profile: profile, pool: PoolPolicy(maximumConcurrency: count),
                                                    maximumConnectionAttempts: 8, scheduler: limits)
        var ids: [UUID] = []
        let fleet: FleetOrchestrator
        if let radios {
            // The fleet finds the devices itself, on every radio; they are known by their names.
            ids = (0..<count).map { UUID(uuidString: String(format: "F1EE7000-0000-0000-0000-%012d", $0))! }
            let byName = Dictionary(uniqueKeysWithValues: ids.enumerated().map { ("B\($0.offset)", $0.element) })
            let slots = (count + radios - 1) / radios
            var list = [FleetRadio(name: "radio0", central: central, connectionSlots: slots)]
            for index in 1..<max(1, radios) {
                list.append(FleetRadio(name: "radio\(index)", central: EmulatedCentralManager(bus: bus), connectionSlots: slots))
            }
            fleet = FleetOrchestrator(radios: list, identify: { $0.localName.flatMap { byName[$0] } }, configuration: fleetConfiguration,
                                      clock: ContinuousClock(), seed: 1, logger: Self.quietLogger, store: InMemoryPinnedDeviceStore())
        } else {
            for try await advertisement in try await central.scan(ScanOptions(services: [service])) {
                ids.append(advertisement.peripheral)
                if ids.count == count { break }
            }
            await central.stopScan()
            fleet = FleetOrchestrator(central: central, configuration: fleetConfiguration, seed: 1, logger: Self.quietLogger,
                                      store: InMemoryPinnedDeviceStore())
        }
        let events = fleet.events()
        for id in ids { await fleet.pin(id) }
        await fleet.start()
        let clock = ContinuousClock()
        let readyAt = Locked([UUID: ContinuousClock.Instant]())
        let watcher = Task {
            for await event in events {
                if case .ready(let id, _) = event { readyAt.withLock { $0[id] = clock.now } }
            }
        }
        defer { watcher.cancel() }
        while fleet.states.values.contains(where: { $0 != .ready }) { try await clock.sleep(for: .milliseconds(5)) }
        let linksPerRadio = radios == nil ? [] : fleet.radioOccupancy.values.sorted()

        // Bulk data: 2 KB messages.
        let messages = max(1, bytesPerDevice / 2048)
        let start = clock.now
        for id in ids {
            for number in 0..<messages { try fleet.send(Data(repeating: UInt8(number & 0xFF), count: 2048), to: id, qos: .bulk) }
        }
        var finished: [UUID: Duration] = [:]
        // Until the first device is done every device has data queued: the radio's steady rate.
        var steady: Double?
        while finished.count < ids.count {
            let now = start.duration(to: clock.now)
            var confirmed = 0
            for id in ids {
                let count = fleet.writeCounts(of: id).messages
                confirmed += min(count, messages)
                if finished[id] == nil && count >= messages { finished[id] = now }
            }
            if steady == nil, !finished.isEmpty { steady = Double(confirmed * 2048 * 8) / now.seconds }
            try await clock.sleep(for: .milliseconds(2))
        }
        let bits = Double(messages * 2048 * 8)
        let perDevice = ids.map { bits / finished[$0]!.seconds }
        let total = bits * Double(ids.count) / (finished.values.max() ?? .seconds(1)).seconds

        // Recovery: lose links one after another, each time from the loss to ready again.
        var recoveries: [Double] = []
        var random = SeededRandomNumberGenerator(seed: 2)
        for _ in 0..<losses {
            let victim = ids.randomElement(using: &random)!
            readyAt.withLock { $0[victim] = nil }
            let lost = clock.now
            bus.loseLink(between: central, and: victim)
            let deadline = lost.advanced(by: .seconds(10))
            while readyAt.withLock({ $0[victim] }) == nil && clock.now < deadline {
                try await clock.sleep(for: .milliseconds(1))
            }
            if let ready = readyAt.withLock({ $0[victim] }) { recoveries.append(lost.duration(to: ready).seconds) }
        }
        await fleet.shutdown()
        return Outcome(total: total, perDevice: perDevice, recoveries: recoveries, linksPerRadio: linksPerRadio, steady: steady ?? total)
    }

    /// A bus at `interval` with `count` peripherals advertising the suite's service (named
    /// `B0`, `B1`, …), whose applications answer every write request; cancel the tasks when done.
    static func peripherals(_ count: Int, interval: Duration) async throws -> (EmulatorBus, [Task<Void, Never>]) {
        var configuration = Self.link
        configuration.connectionInterval = interval
        configuration.maximumConnectionsPerCentral = count + 4
        // A lost link is noticed after the supervision timeout: 100 ms at the default interval,
        // where the recovery figures are taken; at least three intervals at a longer one (the
        // Core Specification asks for more than two).
        configuration.supervisionTimeout = max(.milliseconds(100), interval * 3)
        configuration.seed = 1
        let bus = EmulatorBus(configuration: configuration)
        var apps: [Task<Void, Never>] = []
        for index in 0..<count {
            let peripheral = EmulatedPeripheralManager(bus: bus)
            let events = peripheral.events()
            apps.append(Task {
                for await event in events {
                    if case .writeRequests(let requests) = event, requests.needsResponse {
                        await peripheral.respond(to: requests, with: .success(()))
                    }
                }
            })
            _ = try await peripheral.add(ServiceDefinition(uuid: service, characteristics: [
                CharacteristicDefinition(uuid: stream, properties: [.notify], permissions: .readable),
                CharacteristicDefinition(uuid: inbox, properties: [.write, .writeWithoutResponse], permissions: .writeable),
            ]))
            try await peripheral.startAdvertising(AdvertisingData(localName: "B\(index)", serviceUUIDs: [service]))
        }
        return (bus, apps)
    }

    /// The fleet's traffic without the orchestrator: every device connected and discovered
    /// first, then each sent the same 2 KiB messages framed the same way (BleuWire compact,
    /// every fragment without response but the last, which confirms the message), straight
    /// through the central, all devices at once. Total goodput in bits per second.
    static func rawTraffic(devices count: Int, bytesPerDevice: Int, interval: Duration) async throws -> Double {
        let (bus, apps) = try await Self.peripherals(count, interval: interval)
        defer { for app in apps { app.cancel() } }
        let central = EmulatedCentralManager(bus: bus)
        var ids: [UUID] = []
        for try await advertisement in try await central.scan(ScanOptions(services: [service])) {
            ids.append(advertisement.peripheral)
            if ids.count == count { break }
        }
        await central.stopScan()
        var inboxes: [UUID: RemoteCharacteristic] = [:]
        var ready: [UUID: ReadySignal] = [:]
        for id in ids {
            try await central.connect(id, timeout: .seconds(10))
            let found = try await central.discover(ServiceRequirement(service: service, required: [inbox], subscriptions: []), on: id)
            inboxes[id] = found.characteristics[inbox]
            ready[id] = ReadySignal()
        }
        let signals = ready
        let events = central.events()
        let pacing = Task {
            for await event in events {
                if case .readyToSendWriteWithoutResponse(let id) = event { signals[id]?.signal() }
            }
        }
        defer { pacing.cancel() }
        let messages = max(1, bytesPerDevice / 2048)
        let clock = ContinuousClock()
        let start = clock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            for id in ids {
                let characteristic = inboxes[id]!, signal = signals[id]!
                group.addTask {
                    var fragmenter = Fragmenter(format: .compact)
                    let length = try await central.maximumWriteValueLength(for: id, type: .withoutResponse)
                    for number in 0..<messages {
                        let outgoing = try fragmenter.begin(Array(repeating: UInt8(number & 0xFF), count: 2048),
                                                            maximumFragmentLength: min(length, 512))
                        for index in outgoing.indices {
                            let fragment = Data(outgoing.slices[index])
                            if index == outgoing.count - 1 {
                                try await central.write(fragment, to: characteristic, type: .withResponse)
                            } else {
                                try await central.writeWithoutResponse(fragment, to: characteristic, ready: signal)
                            }
                        }
                        fragmenter.finish(outgoing)
                    }
                }
            }
            try await group.waitForAll()
        }
        let elapsed = start.duration(to: clock.now)
        for id in ids { await central.cancelConnection(id) }
        return Double(messages * 2048 * 8 * count) / elapsed.seconds
    }

    /// Only errors, on standard error: the figures own standard output.
    static var quietLogger: Logger {
        var logger = Logger(label: "bleu.bench.fleet") { label in StreamLogHandler.standardError(label: label) }
        logger.logLevel = .error
        return logger
    }

    static func percentile(_ sorted: [Double], _ p: Double) -> Double {
        sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * p).rounded()))]
    }

    private func progress(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}
