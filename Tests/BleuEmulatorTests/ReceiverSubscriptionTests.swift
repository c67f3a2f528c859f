import BleuCore
import Foundation
import Testing
@testable import BleuEmulator

/// `subscribe(to:receive:)`: values handed to a receiver as the radio takes them, on a local
/// bus, across a hub, and through the protocol's default (a stream drained in a task).
@Suite("Subscriptions with a receiver", .timeLimit(.minutes(1)))
struct ReceiverSubscriptionTests {
    /// What a receiver was handed, in order, with a way to wait for a count of deliveries.
    final class Deliveries: Sendable {
        private let state = Locked<(items: [ValueDelivery], waiters: [(Int, CheckedContinuation<Void, Never>)])>(([], []))

        var receive: @Sendable (ValueDelivery) -> Void {
            { [self] delivery in
                let ready = state.withLock { state -> [CheckedContinuation<Void, Never>] in
                    state.items.append(delivery)
                    let count = state.items.count
                    let ready = state.waiters.filter { $0.0 <= count }.map(\.1)
                    state.waiters.removeAll { $0.0 <= count }
                    return ready
                }
                for waiter in ready { waiter.resume() }
            }
        }

        /// Waits until `count` deliveries came, then returns them all.
        func first(_ count: Int) async -> [ValueDelivery] {
            await withCheckedContinuation { continuation in
                let now = state.withLock { state -> Bool in
                    if state.items.count >= count { return true }
                    state.waiters.append((count, continuation))
                    return false
                }
                if now { continuation.resume() }
            }
            return state.withLock { $0.items }
        }

        var all: [ValueDelivery] { state.withLock { $0.items } }
    }

    static func values(_ deliveries: [ValueDelivery]) -> [Data] {
        deliveries.compactMap { if case .value(let value) = $0 { value } else { nil } }
    }

    /// Notifies `values`, waiting for room when the queue is full.
    static func notify(_ values: [UInt8], _ fixture: Fixture) async {
        for value in values {
            while await !fixture.peripheral.updateValue(Data([value]), for: fixture.characteristic(TestUUID.stream)) {}
        }
    }

    @Test("a local bus: values in order, then the link's loss as the end")
    func local() async throws {
        let fixture = try await Fixture.make()
        let deliveries = Deliveries()
        let subscription = try await fixture.central.subscribe(to: fixture[TestUUID.stream], receive: deliveries.receive)
        await Self.notify([1, 2, 3], fixture)
        #expect(Self.values(await deliveries.first(3)) == [Data([1]), Data([2]), Data([3])])
        fixture.bus.loseLink(between: fixture.central, and: fixture.peripheralID)
        let all = await deliveries.first(4)
        guard case .end(let error as BleuError) = all[3] else {
            Issue.record("expected the end with a BleuError, got \(all[3])")
            return
        }
        #expect(error == .disconnected(fixture.peripheralID, .supervisionTimeout))
        subscription.cancel()
    }

    @Test("cancel stops the deliveries; another subscriber's stream goes on")
    func cancel() async throws {
        let fixture = try await Fixture.make()
        let deliveries = Deliveries()
        let subscription = try await fixture.central.subscribe(to: fixture[TestUUID.stream], receive: deliveries.receive)
        let stream = try await fixture.central.subscribe(to: fixture[TestUUID.stream])
        var others = stream.makeAsyncIterator()
        await Self.notify([1], fixture)
        #expect(Self.values(await deliveries.first(1)) == [Data([1])])
        #expect(try await others.next() == Data([1]))
        subscription.cancel()
        await Self.notify([2, 3], fixture)
        #expect(try await others.next() == Data([2]))
        #expect(try await others.next() == Data([3]))
        // The stream got both values after the cancel; the receiver got nothing more, not even an end.
        #expect(Self.values(deliveries.all) == [Data([1])])
        #expect(deliveries.all.count == 1)
    }

    @Test("unsubscribing ends the deliveries with no error")
    func unsubscribe() async throws {
        let fixture = try await Fixture.make()
        let deliveries = Deliveries()
        _ = try await fixture.central.subscribe(to: fixture[TestUUID.stream], receive: deliveries.receive)
        await Self.notify([7], fixture)
        _ = await deliveries.first(1)
        try await fixture.central.unsubscribe(from: fixture[TestUUID.stream])
        let all = await deliveries.first(2)
        guard case .end(nil) = all[1] else {
            Issue.record("expected an end without error, got \(all[1])")
            return
        }
    }

    @Test("a characteristic that cannot notify is refused, as subscribe(to:) refuses it")
    func refused() async throws {
        let fixture = try await Fixture.make()
        let error = await thrownError {
            _ = try await fixture.central.subscribe(to: fixture[TestUUID.readOnly], receive: { _ in })
        }
        #expect(error as? BleuError == .notSupported(.characteristicProperties(TestUUID.readOnly, [.read], .subscribe)))
    }

    @Test("across a hub: values in order; cancel stops them")
    func hub() async throws {
        let (hub, fixture) = try await HubManagerTests.fixture()
        let deliveries = Deliveries()
        let subscription = try await fixture.central.subscribe(to: fixture[TestUUID.stream], receive: deliveries.receive)
        await Self.notify([4, 5, 6], fixture)
        #expect(Self.values(await deliveries.first(3)) == [Data([4]), Data([5]), Data([6])])
        let stream = try await fixture.central.subscribe(to: fixture[TestUUID.stream])
        var others = stream.makeAsyncIterator()
        subscription.cancel()
        await Self.notify([8], fixture)
        #expect(try await others.next() == Data([8]))
        #expect(deliveries.all.count == 3)
        withExtendedLifetime(hub) {}
    }

    /// A central whose receivers are served as the protocol's default serves them (by
    /// `ValueSubscription(draining:into:)`, a task draining `subscribe(to:)`), everything else
    /// passed to the emulator.
    final class StreamOnlyCentral: ForwardingCentralManager {
        let base: any CentralManager
        init(_ base: any CentralManager) { self.base = base }

        func subscribe(to characteristic: RemoteCharacteristic,
                       receive: @escaping @Sendable (ValueDelivery) -> Void) async throws -> ValueSubscription {
            ValueSubscription(draining: try await base.subscribe(to: characteristic), into: receive)
        }
    }

    @Test("a receiver served as the protocol's default serves it (a task draining the stream): values in order, the end, nothing after a cancel")
    func protocolDefault() async throws {
        let fixture = try await Fixture.make()
        let central = StreamOnlyCentral(fixture.central)
        let deliveries = Deliveries()
        let subscription = try await central.subscribe(to: fixture[TestUUID.stream], receive: deliveries.receive)
        await Self.notify([1, 2], fixture)
        #expect(Self.values(await deliveries.first(2)) == [Data([1]), Data([2])])
        fixture.bus.loseLink(between: fixture.central, and: fixture.peripheralID)
        let all = await deliveries.first(3)
        guard case .end(let error as BleuError) = all[2] else {
            Issue.record("expected the end with a BleuError, got \(all[2])")
            return
        }
        #expect(error == .disconnected(fixture.peripheralID, .supervisionTimeout))

        let second = try await Fixture.make()
        let other = Deliveries()
        let cancelled = try await StreamOnlyCentral(second.central).subscribe(to: second[TestUUID.stream], receive: other.receive)
        await Self.notify([9], second)
        _ = await other.first(1)
        cancelled.cancel()
        // The stream the default drains ends with the cancel; its end is not delivered.
        let stream = try await second.central.subscribe(to: second[TestUUID.stream])
        var iterator = stream.makeAsyncIterator()
        await Self.notify([10], second)
        #expect(try await iterator.next() == Data([10]))
        #expect(other.all.count == 1)
        withExtendedLifetime(subscription) {}
    }
}
