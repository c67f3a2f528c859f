import BleuCore
import Foundation
import Testing
@testable import BleuEmulator

/// The values the emulator's engine coordinates, each alone.
@Suite("The engine's state values")
struct EngineStateTests {
    @Test("a table never reuses a key, and a table that continues another keeps counting")
    func keyedTable() {
        var links = KeyedTable<LinkKind, String>()
        let first = links.allocate()
        let second = links.allocate()
        links[first] = "a"
        links[second] = "b"
        #expect(first != second && first < second)
        links.removeValue(forKey: first)
        let third = links.allocate()
        #expect(third != first, "a removed key is not handed out again")
        #expect(links[first] == nil && links[second] == "b")
        links[second]?.append("c")
        #expect(links[second] == "bc", "entries are modified in place")
        #expect(links.sortedKeys == [second])
        let continued = KeyedTable<LinkKind, String>(continuing: links)
        var next = continued
        let fresh = next.allocate()
        #expect(fresh > third, "a bus started afresh never names an old key")
        #expect(continued.isEmpty)
    }

    @Test("timers come out in time order, ties in the order they were scheduled; the wake is asked only for an earlier timer")
    func timerQueue() {
        var queue = TimerQueue()
        let first = queue.insert(.watchdog, at: .milliseconds(30))
        #expect(first, "the first timer needs a wake")
        queue.scheduledWake = .milliseconds(30)
        let later = queue.insert(.supervisionTimeout(link: LinkID(rawValue: 1)), at: .milliseconds(40))
        #expect(!later, "a later timer waits")
        let earlier = queue.insert(.supervisionTimeout(link: LinkID(rawValue: 2)), at: .milliseconds(10))
        #expect(earlier, "an earlier one wakes sooner")
        _ = queue.insert(.supervisionTimeout(link: LinkID(rawValue: 3)), at: .milliseconds(10))
        queue.isProcessing = true
        let duringProcessing = queue.insert(.watchdog, at: .zero)
        #expect(!duringProcessing, "timers added while processing wait for the loop")
        var order: [String] = []
        while let timer = queue.popDue(until: .milliseconds(35)) {
            switch timer.action {
            case .supervisionTimeout(let link): order.append("link \(link.rawValue)")
            case .watchdog: order.append("watchdog")
            default: order.append("other")
            }
        }
        #expect(order == ["watchdog", "link 2", "link 3", "watchdog"])
        #expect(queue.earliest == .milliseconds(40))
        #expect(TimerQueue(continuing: queue).generation == queue.generation + 1)
    }

    @Test("instant delivery is in order, and a drain under way is not entered again")
    func instantDelivery() {
        var delivery = InstantDelivery()
        let link = LinkID(rawValue: 1)
        delivery.append(LinkPacket(direction: .centralToPeripheral, payload: .terminate(0x13)), on: link)
        let outer = delivery.beginDraining()
        let reentrant = delivery.beginDraining()
        #expect(outer)
        #expect(!reentrant, "re-entrant: the outer drain delivers what is queued")
        delivery.append(LinkPacket(direction: .peripheralToCentral, payload: .terminate(0x16)), on: link)
        var directions: [RadioSchedule.Direction] = []
        while let next = delivery.next() { directions.append(next.packet.direction) }
        #expect(directions == [.centralToPeripheral, .peripheralToCentral])
        let again = delivery.beginDraining()
        #expect(again, "a finished drain can start again")
    }

    @Test("a waiter completes once; termination waiters are taken with their link")
    func operationWaiters() {
        var waiters = OperationWaiters()
        let calls = Locked(0)
        let id: OperationID = 7
        waiters.register(id) { _ in calls.withLock { $0 += 1 } }
        #expect(waiters.isWaiting(id))
        waiters.take(id)?(.success(.done))
        waiters.take(id)?(.success(.done))
        #expect(calls.withLock { $0 } == 1)
        #expect(!waiters.isWaiting(id))
        let own = waiters.newID()
        #expect(own >= 1 << 62, "the engine's own operations never collide with the bus's")
        let link = LinkID(rawValue: 4)
        waiters.waitForTermination(of: link, 8)
        waiters.waitForTermination(of: link, 9)
        let waiting = waiters.takeTerminationWaiters(of: link)
        let afterwards = waiters.takeTerminationWaiters(of: link)
        #expect(waiting == [8, 9])
        #expect(afterwards.isEmpty)
    }

    @Test("faults draw from their own source: the same seed gives the same faults, whatever the noise drew")
    func chanceSources() {
        var a = ChanceSources(seed: 42)
        var b = ChanceSources(seed: 42)
        _ = b.noise.next()
        _ = b.pairing.next()
        let drawsA = (0..<32).map { _ in a.fault(0.5) }
        let drawsB = (0..<32).map { _ in b.fault(0.5) }
        #expect(drawsA == drawsB)
        #expect(drawsA.contains(true) && drawsA.contains(false))
        var c = ChanceSources(seed: 42)
        let zero = c.fault(0)
        let next = c.fault(0.5)
        #expect(!zero, "a zero rate draws nothing")
        #expect(next == drawsA[0], "and so does not shift the next draw")
    }

    @Test("addresses are unique on a bus and a named device keeps its own; identifiers differ per observer")
    func identities() {
        var identities = DeviceIdentities(seed: 1)
        let named = identities.newAddress(device: "sensor")
        let again = identities.newAddress(device: "sensor")
        #expect(again == named)
        let others = (0..<100).map { _ in identities.newAddress(device: nil) }
        #expect(Set(others + [named]).count == 101)
        #expect(others.allSatisfy { $0 <= 0xFFFF_FFFF_FFFF })
        #expect(identities.identifier(of: named, seenBy: others[0]) != identities.identifier(of: named, seenBy: others[1]))
        #expect(identities.identifier(of: named, seenBy: others[0]) == DeviceIdentities(seed: 1).identifier(of: named, seenBy: others[0]))
    }
}

@Suite("An L2CAP channel end's credits")
struct ChannelEndTests {
    @Test("an SDU goes out in K-frames of at most the peer's MPS, one credit each; without credit nothing goes")
    func kframes() {
        var end = BusChannel.End(credits: 3, peerMTU: 512, peerMPS: 23)
        // 50 bytes of SDU + its 2-byte length: 23 + 23 + 6.
        end.outgoing.append((Data(count: 50), 52, 11))
        end.outgoing.append((Data([1]), 3, 12))
        let first = end.takeKFrame()
        let second = end.takeKFrame()
        let third = end.takeKFrame()
        #expect(first?.length == 23 && first?.finished == nil)
        #expect(second?.length == 23 && second?.finished == nil)
        #expect(third?.length == 6 && third?.finished?.waiter == 11 && third?.finished?.sdu.count == 50)
        let starved = end.takeKFrame()
        #expect(starved == nil, "no credit left: the next SDU waits")
        #expect(end.outgoing.count == 1 && end.credits == 0)
        end.credits = 1
        let last = end.takeKFrame()
        #expect(last?.length == 3 && last?.finished?.waiter == 12)
        end.credits = 5
        let idle = end.takeKFrame()
        #expect(idle == nil && end.credits == 5, "nothing to send spends nothing")
    }

    @Test("each side sends one way and receives the other")
    func sides() {
        #expect(ChannelSide.central.sending == .centralToPeripheral)
        #expect(ChannelSide.peripheral.sending == .peripheralToCentral)
        for side in ChannelSide.allCases {
            #expect(ChannelSide(receiving: side.sending) == side.peer)
        }
    }
}
