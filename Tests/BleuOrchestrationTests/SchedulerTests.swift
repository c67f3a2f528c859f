import BleuCore
import BleuEmulator
import BleuWire
import Foundation
import Testing
@testable import BleuOrchestration

/// Bounded QoS queues with a fair policy, credits, the write-with-response
/// fallback, and the incoming pipeline.
@Suite("Outgoing scheduler and incoming pipeline")
struct SchedulerTests {
    static let device = UUID()

    @Test("a full class throws queueFull naming the device, the class and the bound; other classes still take messages")
    func bounds() throws {
        var queues = OutgoingQueues(limits: SchedulerLimits(capacity: [.control: 2, .interactive: 2, .bulk: 3]))
        for _ in 0..<3 { try queues.enqueue(Data([1]), qos: .bulk, device: Self.device) }
        #expect(throws: FleetError.queueFull(device: Self.device, qos: .bulk, limit: 3)) {
            try queues.enqueue(Data([1]), qos: .bulk, device: Self.device)
        }
        try queues.enqueue(Data([2]), qos: .control, device: Self.device)
        let taken = queues.next()
        #expect(taken?.qos == .control)
        #expect(throws: FleetError.messageTooLarge(size: 20_000, maximum: 16 * 1024)) {
            try queues.enqueue(Data(count: 20_000), qos: .control, device: Self.device)
        }
    }

    @Test("with every class backlogged each round serves 4 control, 2 interactive, 1 bulk: none starves")
    func weightedRoundRobin() throws {
        var queues = OutgoingQueues(limits: SchedulerLimits(capacity: [.control: 100, .interactive: 100, .bulk: 100]))
        for qos in QoSClass.allCases {
            for _ in 0..<50 { try queues.enqueue(Data(), qos: qos, device: Self.device) }
        }
        var served: [QoSClass] = []
        for _ in 0..<70 {
            guard let (qos, _) = queues.next() else { Issue.record("ran dry"); return }
            queues.complete(qos)
            served.append(qos)
        }
        for round in stride(from: 0, to: 70, by: 7) {
            let window = served[round..<round + 7]
            #expect(window.filter { $0 == .control }.count == 4)
            #expect(window.filter { $0 == .interactive }.count == 2)
            #expect(window.filter { $0 == .bulk }.count == 1)
        }
    }

    @Test("random enqueue, send, fail and retry: bounds hold and each class delivers in order, exactly once")
    func randomOperations() throws {
        let seed = UInt64.random(in: 0 ... .max)
        print("randomOperations: seed \(seed)")
        var random = SeededRandomNumberGenerator(seed: seed)
        let limits = SchedulerLimits(capacity: [.control: 3, .interactive: 5, .bulk: 8])
        var queues = OutgoingQueues(limits: limits)
        var sent: [QoSClass: UInt32] = [:]
        var delivered: [QoSClass: [UInt32]] = [:]
        var inFlight: (QoSClass, Data)?
        for _ in 0..<5000 {
            switch Int.random(in: 0..<3, using: &random) {
            case 0:
                let qos = QoSClass.allCases.randomElement(using: &random)!
                let number = sent[qos, default: 0]
                do {
                    try queues.enqueue(withUnsafeBytes(of: number) { Data($0) }, qos: qos, device: Self.device)
                    sent[qos] = number + 1
                } catch {
                    #expect(queues.depth(of: qos) == limits.capacity(of: qos))
                }
            case 1 where inFlight == nil:
                inFlight = queues.next()
            default:
                guard let (qos, message) = inFlight else { continue }
                if Bool.random(using: &random) {
                    queues.complete(qos)
                    delivered[qos, default: []].append(message.withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) })
                } else {
                    queues.requeue(message, qos)
                }
                inFlight = nil
            }
            for qos in QoSClass.allCases { #expect(queues.depth(of: qos) <= limits.capacity(of: qos)) }
        }
        for qos in QoSClass.allCases {
            let numbers = delivered[qos] ?? []
            #expect(numbers == Array(0..<UInt32(numbers.count)), "\(qos) in order, exactly once (seed \(seed))")
        }
    }

    static func reassemble(_ writes: [Data]) -> [Data] {
        var reassembler = Reassembler<Int, OffsetInstant>(format: .compact)
        var messages: [Data] = []
        for write in writes {
            if case .message(let bytes)? = try? reassembler.receive(write, from: 0, now: OffsetInstant(offset: .zero)) {
                messages.append(Data(bytes))
            }
        }
        return messages
    }

    @Test("messages arrive whole and in order, without response where allowed, with response where not, paced by credits")
    func writesBothWays() async throws {
        var configuration = EmulatorConfiguration.instant
        configuration.writeWithoutResponseQueueDepth = 1  // every write waits for the radio's ready event
        let world = try await FleetWorld.make(count: 2, configuration: configuration, withoutResponse: { $0 == 0 })
        defer { world.end() }
        let fleet = FleetOrchestrator(central: world.central, configuration: FleetConfiguration(profile: FleetUUID.profile),
                                      clock: world.clock, seed: 9, store: InMemoryPinnedDeviceStore())
        for id in world.ids { await fleet.pin(id) }
        let messages = (0..<40).map { index in Data((0..<(50 + index * 13)).map { UInt8(truncatingIfNeeded: $0 &+ index) }) }
        for message in messages {
            for id in world.ids { try fleet.send(message, to: id, qos: .bulk) }
        }
        await fleet.start()
        #expect(await settle(fleet, world) { _ in
            world.ids.allSatisfy { fleet.writeCounts(of: $0).messages == messages.count }
        })
        for index in world.ids.indices {
            #expect(Self.reassemble(world.record(index).writes) == messages, "device \(index)")
            #expect(fleet.queueDepth(of: world.ids[index], qos: .bulk) == 0)
        }
        let fast = fleet.writeCounts(of: world.ids[0])
        let slow = fleet.writeCounts(of: world.ids[1])
        #expect(fast.withoutResponse > 0 && fast.withResponse == messages.count, "one confirmed write per message")
        #expect(slow.withoutResponse == 0 && slow.withResponse > messages.count, "every fragment with response")
        await fleet.shutdown()
    }

    @Test("notifications are reassembled into whole messages; corrupt ones are rejected, not delivered")
    func incoming() async throws {
        let world = try await FleetWorld.make(count: 1)
        defer { world.end() }
        let fleet = FleetOrchestrator(central: world.central, configuration: FleetConfiguration(profile: FleetUUID.profile),
                                      clock: world.clock, seed: 10, store: InMemoryPinnedDeviceStore())
        await fleet.pin(world.ids[0])
        var events = fleet.events().makeAsyncIterator()
        await fleet.start()
        #expect(await settle(fleet, world, until: allReady(world.ids)))
        let message = Data((0..<300).map { UInt8(truncatingIfNeeded: $0 * 7) })
        var fragmenter = Fragmenter(format: .compact)
        for fragment in try fragmenter.fragments(of: Array(message), maximumFragmentLength: 20) {
            #expect(await world.peripherals[0].updateValue(Data(fragment), for: world.characteristics[0]))
        }
        var corrupt = try fragmenter.fragments(of: Array(message), maximumFragmentLength: 20)
        corrupt[corrupt.count - 1][1] ^= 0xFF
        for fragment in corrupt { _ = await world.peripherals[0].updateValue(Data(fragment), for: world.characteristics[0]) }
        var delivered: [Data] = []
        var rejected = 0
        while delivered.count + rejected < 2, let event = await events.next() {
            switch event {
            case .message(_, let characteristic, let data):
                #expect(characteristic == FleetUUID.stream)
                delivered.append(data)
            case .rejected: rejected += 1
            default: break
            }
        }
        #expect(delivered == [message])
        #expect(rejected == 1)
        await fleet.shutdown()
    }
}
