import Bleu
import BleuCore
import BleuEmulator
import BleuTesting
import Distributed
import Foundation
import Testing

@Suite("Streams")
struct StreamTests {
    @Test("a stream's elements arrive in order and it ends when the source ends")
    func elements() async throws {
        let pair = ConnectedPair()
        let sensor = try await pair.host(StreamingSensorActor.self) { StreamingSensorActor(actorSystem: $0) }
        var received: [Double] = []
        for try await value in try await sensor.readings(count: 40) { received.append(value) }
        let expected: [Double] = (0..<40).map { 20 + Double($0) / 2 }
        #expect(received == expected)
        #expect(try await sensor.endedSources() == 1)
    }

    @Test("a source that throws a registered Codable error ends the caller's iteration with that error")
    func failure() async throws {
        var configuration = BLEActorSystem.Configuration.fast
        configuration.remoteTypes.register(ExampleFailure.self)
        let pair = ConnectedPair(configuration: configuration)
        let sensor = try await pair.host(StreamingSensorActor.self) { StreamingSensorActor(actorSystem: $0) }
        var received: [Int] = []
        do {
            for try await value in try await sensor.failing(after: 3) { received.append(value) }
            Issue.record("the stream ended normally")
        } catch let error as ExampleFailure {
            #expect(error == ExampleFailure(code: 9, reason: "the sensor failed after 3 readings"))
        }
        #expect(received == [0, 1, 2])
    }

    @Test("back-pressure: the source produces no more than the caller's credits ahead of consumption")
    func backPressure() async throws {
        var configuration = BLEActorSystem.Configuration.fast
        configuration.streamBufferLimit = 4
        let pair = ConnectedPair(configuration: configuration)
        let sensor = try await pair.host(StreamingSensorActor.self) { StreamingSensorActor(actorSystem: $0) }
        let stream = try await sensor.endless()
        var iterator = stream.makeAsyncIterator()
        for expected in 0..<10 { #expect(try await iterator.next() == expected) }
        // Consumed 10; the producer may be ahead by the 4 credits and the element it holds.
        let produced = try await sensor.produced()
        #expect(produced >= 10)
        #expect(produced <= 10 + 4 + 1)
        withExtendedLifetime(iterator) {}
    }

    @Test("the caller stopping its iteration cancels the source on the peripheral")
    func callerCancels() async throws {
        let pair = ConnectedPair()
        let sensor = try await pair.host(StreamingSensorActor.self) { StreamingSensorActor(actorSystem: $0) }
        do {
            var count = 0
            for try await _ in try await sensor.endless() {
                count += 1
                if count == 5 { break }
            }
        }
        // The cancel travels to the peripheral; its source ends. Wait by polling the actor,
        // each poll a round trip behind the cancel on the same connection.
        var ended = 0
        for _ in 0..<100 where ended == 0 { ended = try await sensor.endedSources() }
        #expect(ended == 1)
        let produced = try await sensor.produced()
        #expect(try await sensor.produced() == produced)
    }

    @Test("a disconnect ends the caller's iteration with BleuError.disconnected, and the source stops")
    func disconnectEndsStream() async throws {
        let pair = ConnectedPair()
        let host = StreamingSensorActor(actorSystem: pair.peripheral)
        try await pair.peripheral.startAdvertising(host)
        let sensor = try await pair.central.connect(to: host.id, as: StreamingSensorActor.self)
        var iterator = try await sensor.endless().makeAsyncIterator()
        #expect(try await iterator.next() == 0)
        await pair.central.disconnect(from: sensor)
        do {
            while try await iterator.next() != nil {}
            Issue.record("the stream ended normally")
        } catch BleuError.disconnected(_, let reason) {
            #expect(reason == .localHostTerminated)
        }
        // The peripheral's source stopped (its ended count is read locally).
        #expect(try await waitForEndedSources(of: host) == 1)
    }

    @Test("several centrals call and stream from one peripheral at once, each getting its own replies")
    func severalCentrals() async throws {
        let pair = ConnectedPair()
        let host = StreamingSensorActor(actorSystem: pair.peripheral)
        let counter = CounterActor(actorSystem: pair.peripheral)
        try await pair.peripheral.startAdvertising(host, counter)
        let centrals = [pair.central, pair.makeCentral(), pair.makeCentral()]
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (index, central) in centrals.enumerated() {
                group.addTask {
                    let sensor = try await central.connect(to: host.id, as: StreamingSensorActor.self)
                    let remoteCounter = try await central.connect(to: counter.id, as: CounterActor.self)
                    let count = 10 + index * 5
                    var values: [Double] = []
                    for try await value in try await sensor.readings(count: count) {
                        values.append(value)
                        try await remoteCounter.add(1)
                    }
                    let expected: [Double] = (0..<count).map { 20 + Double($0) / 2 }
                    #expect(values == expected)
                }
            }
            try await group.waitForAll()
        }
        #expect(try await counter.current() == 10 + 15 + 20)
    }
}
