import Bleu
import BleuCore
import BleuEmulator
import BleuTesting
import Distributed
import Foundation
import Testing

/// Issue 5, point 5: calls and streams through the radio's smallest queues. Requests wait for
/// "ready to send", replies and stream elements for "ready to update subscribers"; nothing is
/// lost, reordered or failed with a full queue.
@Suite("Flow control with small radio queues", .timeLimit(.minutes(1)))
struct FlowControlTests {
    /// The realistic link (fragments take air time, so the queues fill), 7.5 ms intervals.
    static func pair(writeDepth: Int, notificationDepth: Int) -> ConnectedPair {
        var emulator = EmulatorConfiguration.default
        emulator.connectionInterval = .microseconds(7500)
        emulator.advertisingInterval = .milliseconds(20)
        emulator.writeWithoutResponseQueueDepth = writeDepth
        emulator.notificationQueueDepth = notificationDepth
        emulator.centralMTU = 23  // 20-byte fragments: every message of more than a few bytes is several
        // The link runs in real time: a call takes about a second here, alone on the cores. The
        // calls' timeout leaves room for a loaded machine (ThreadSanitizer, tests in parallel);
        // the test checks what arrives, not how fast.
        var configuration = BLEActorSystem.Configuration.fast
        configuration.callTimeout = .seconds(30)
        configuration.connectionTimeout = .seconds(30)
        return ConnectedPair(emulator: emulator, configuration: configuration)
    }

    @Test("multi-fragment calls and replies arrive whole, in order, through queues of depth 1–2",
          arguments: [(1, 1), (2, 1), (1, 2)])
    func calls(writeDepth: Int, notificationDepth: Int) async throws {
        let pair = Self.pair(writeDepth: writeDepth, notificationDepth: notificationDepth)
        // Counted while the calls run (an event stream nobody reads would hold the radio back).
        let centralReady = Self.count(pair.centralManager.events(), until: { if case .disconnected = $0 { true } else { false } },
                                      where: { if case .readyToSendWriteWithoutResponse = $0 { true } else { false } })
        let peripheralReady = Self.count(pair.peripheralManager.events(), until: { if case .centralDisconnected = $0 { true } else { false } },
                                         where: { if case .readyToUpdateSubscribers = $0 { true } else { false } })
        let echo = try await pair.host(EchoActor.self) { EchoActor(actorSystem: $0) }
        let text = String((0..<1500).map { Character(UnicodeScalar(UInt8(97 + $0 % 26))) })
        #expect(try await echo.echo(text) == text)
        let replies = try await withThrowingTaskGroup(of: (Int, String).self) { group in
            for index in 0..<6 {
                group.addTask { (index, try await echo.echo("\(index):" + String(repeating: "x", count: 200 + index * 37))) }
            }
            return try await group.reduce(into: [Int: String]()) { $0[$1.0] = $1.1 }
        }
        for index in 0..<6 { #expect(replies[index] == "\(index):" + String(repeating: "x", count: 200 + index * 37)) }
        // The queues were full on the way (the radio told both sides when they had room again).
        await pair.central.disconnect(from: echo)
        #expect(await centralReady.value > 0, "the central waited for room to write")
        #expect(await peripheralReady.value > 0, "the peripheral waited for room to notify")
    }

    @Test("a stream's elements arrive complete and in order through a notification queue of depth 1")
    func stream() async throws {
        let pair = Self.pair(writeDepth: 1, notificationDepth: 1)
        let sensor = try await pair.host(StreamingSensorActor.self) { StreamingSensorActor(actorSystem: $0) }
        var received: [Double] = []
        for try await value in try await sensor.readings(count: 60) { received.append(value) }
        #expect(received == (0..<60).map { 20 + Double($0) / 2 })
    }

    /// Counts, in a task reading `events` from now on, the events matching `predicate` up to
    /// the first one matching `sentinel`.
    static func count<Event: Sendable>(_ events: AsyncStream<Event>, until sentinel: @escaping @Sendable (Event) -> Bool,
                                       where predicate: @escaping @Sendable (Event) -> Bool) -> Task<Int, Never> {
        Task {
            var count = 0
            for await event in events {
                if sentinel(event) { break }
                if predicate(event) { count += 1 }
            }
            return count
        }
    }
}
