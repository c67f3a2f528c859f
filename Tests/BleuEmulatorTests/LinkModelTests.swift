import BleuCore
import Foundation
import Testing
@testable import BleuEmulator

/// The pure part: air time, connection events, one radio per central.
@Suite("Link model (pure)")
struct LinkModelTests {
    @Test("packet air times follow Core Spec Vol 6 Part B")
    func airTimes() {
        #expect(AirTime.packetMicroseconds(payload: 0, phy: .le1M) == 80)
        #expect(AirTime.packetMicroseconds(payload: 27, phy: .le1M) == 296)
        #expect(AirTime.packetMicroseconds(payload: 251, phy: .le1M) == 2120 - 32)
        #expect(AirTime.packetMicroseconds(payload: 0, phy: .le2M) == 44)
        #expect(AirTime.packetMicroseconds(payload: 27, phy: .le2M) == 152)
        #expect(AirTime.packetMicroseconds(payload: 251, phy: .le2M) == 1048)
        #expect(AirTime.packetMicroseconds(payload: 0, phy: .leCodedS8) == 720)
        #expect(AirTime.packetMicroseconds(payload: 27, phy: .leCodedS8) == 2448)
        #expect(AirTime.packetMicroseconds(payload: 0, phy: .leCodedS2) == 376 + 43 * 2)
        #expect(AirTime.packetMicroseconds(payload: 27, phy: .le1M, encrypted: true) == 296 + 32, "a MIC on a non-empty payload")
        #expect(AirTime.packetMicroseconds(payload: 0, phy: .le1M, encrypted: true) == 80, "no MIC on an empty PDU")
        #expect(AirTime.exchangeMicroseconds(payload: 27, phy: .le1M) == 296 + 150 + 80 + 150)
        #expect(AirTime.fragments(l2capLength: 251, dataLength: 251) == [251])
        #expect(AirTime.fragments(l2capLength: 189, dataLength: 27) == [27, 27, 27, 27, 27, 27, 27])
        #expect(AirTime.fragments(l2capLength: 30, dataLength: 27) == [27, 3])
    }

    @Test("raw bit rates: LE 1M 1 Mb/s, LE 2M 2 Mb/s, LE Coded S = 2 500 kb/s and S = 8 125 kb/s")
    func rawBitRates() {
        // One more payload byte is 8 more bits on air: 8 µs at 1 Mb/s, 4 at 2 Mb/s, 16 at 500 kb/s, 64 at 125 kb/s.
        for (phy, microsecondsPerByte) in [(PHY.le1M, 8), (.le2M, 4), (.leCodedS2, 16), (.leCodedS8, 64)] {
            for payload in [0, 26, 250] {
                #expect(AirTime.packetMicroseconds(payload: payload + 1, phy: phy) - AirTime.packetMicroseconds(payload: payload, phy: phy)
                        == microsecondsPerByte, "\(phy)")
            }
        }
        // The coded references follow from the same formula: 20 bytes per exchange.
        #expect(AirTime.exchangeMicroseconds(payload: 27, phy: .leCodedS2) == 894 + 150 + 462 + 150)
        #expect(AirTime.exchangeMicroseconds(payload: 27, phy: .leCodedS8) == 2448 + 150 + 720 + 150)
        #expect(abs(LinkGoodput.referenceKilobitsPerSecond(phy: .leCodedS2, dataLength: 27) - 160.0 / 1.656) < 0.01)
        #expect(abs(LinkGoodput.referenceKilobitsPerSecond(phy: .leCodedS8, dataLength: 27) - 160.0 / 3.468) < 0.01)
        #expect(AirTime.packetMicroseconds(payload: 251, phy: .leCodedS8, encrypted: true) == 17_040,
                "the longest coded packet is the specification's 17,040 µs maximum")
    }

    @Test("the references reproduce DESIGN.md within 3 % (237 / 791 / 323 / 1402 kb/s)",
          arguments: [(PHY.le1M, 27, 237.0), (.le1M, 251, 791.0), (.le2M, 27, 323.0), (.le2M, 251, 1402.0)])
    func references(phy: PHY, dataLength: Int, expected: Double) {
        let reference = LinkGoodput.referenceKilobitsPerSecond(phy: phy, dataLength: dataLength)
        #expect(abs(reference / expected - 1) < 0.03, "\(phy) \(dataLength): \(reference) kb/s")
    }

    @Test("a saturated link reaches the reference within 3 % when the interval is long; short intervals and packet limits cost",
          arguments: [(PHY.le1M, 27), (.le1M, 251), (.le2M, 27), (.le2M, 251)])
    func saturatedLink(phy: PHY, dataLength: Int) {
        let reference = LinkGoodput.referenceKilobitsPerSecond(phy: phy, dataLength: dataLength)
        let long = Self.saturatedGoodput(phy: phy, dataLength: dataLength, interval: .milliseconds(400))
        #expect(abs(long / reference - 1) < 0.03, "\(phy) \(dataLength): \(long) of \(reference) kb/s")
        #expect(long <= reference * 1.0001, "never faster than physics")
        let limited = Self.saturatedGoodput(phy: phy, dataLength: dataLength, interval: .milliseconds(30), maximumExchanges: 4)
        let expected = Double(4 * LinkGoodput.attPayload(dataLength: dataLength) * 8) / 30_000 * 1000
        #expect(abs(limited / expected - 1) < 0.02, "4 exchanges per 30 ms event: \(limited) vs \(expected)")
        let short = Self.saturatedGoodput(phy: phy, dataLength: dataLength, interval: .microseconds(7500))
        let model = LinkGoodput.connectionEventKilobitsPerSecond(phy: phy, dataLength: dataLength, interval: .microseconds(7500))
        #expect(abs(short / model - 1) < 0.02, "\(short) vs the connection event model \(model)")
    }

    @Test("a request and its answer go one connection event apart: acknowledged operations need two intervals")
    func acknowledgedOperations() {
        var radio = RadioSchedule()
        let interval = Duration.milliseconds(30)
        radio.addConnection(1, interval: interval, maximumExchangesPerEvent: .max, at: .zero)
        let exchange = AirTime.exchange(payload: 27, phy: .le1M)
        let packet = AirTime.packet(payload: 27, phy: .le1M)
        var time = Duration.milliseconds(5)
        var requestStarts: [Duration] = []
        for _ in 0..<10 {
            let request = radio.place(exchange: exchange, on: 1, direction: .centralToPeripheral, at: time)
            requestStarts.append(request)
            let answer = radio.place(exchange: exchange, on: 1, direction: .peripheralToCentral, at: request + packet)
            time = answer + packet
        }
        let gaps = zip(requestStarts.dropFirst(), requestStarts).map { $0 - $1 }
        #expect(gaps.allSatisfy { $0 == interval * 2 }, "\(gaps)")
        #expect(requestStarts[0] == interval, "a request made between events waits for the next anchor")
    }

    @Test("connections of one central never overlap on its radio, and share it", arguments: [2, 3, 5])
    func oneRadio(connections: Int) {
        var radio = RadioSchedule()
        var random = SeededRandomNumberGenerator(seed: 99)
        print("oneRadio seed: 99")
        let interval = Duration.milliseconds(30)
        var anchors: [Duration] = []
        for id in 0..<connections {
            anchors.append(radio.addConnection(id, interval: interval, maximumExchangesPerEvent: .max,
                                               at: .microseconds(Int64(id) * 1_250)))
        }
        let phases = Set(anchors.map { $0.nanoseconds % interval.nanoseconds })
        #expect(phases.count == connections, "each connection gets its own anchor phase")
        var slots: [(id: Int, start: Duration, end: Duration)] = []
        let exchange = AirTime.exchange(payload: 251, phy: .le1M)
        var time = Duration.milliseconds(10)
        var lastStart = [Duration](repeating: .zero, count: connections)
        for _ in 0..<4_000 {
            let id = Int.random(in: 0..<connections, using: &random)
            let direction: RadioSchedule.Direction = Bool.random(using: &random) ? .centralToPeripheral : .peripheralToCentral
            time += .microseconds(Int64.random(in: 0...400, using: &random))
            let start = radio.place(exchange: exchange, on: id, direction: direction, at: time)
            #expect(start >= time)
            #expect(start >= lastStart[id], "a connection's packets keep their order")
            lastStart[id] = start
            slots.append((id, start, start + exchange))
        }
        slots.sort { $0.start < $1.start }
        for (a, b) in zip(slots, slots.dropFirst()) where a.id != b.id {
            #expect(a.end <= b.start, "connection \(a.id) [\(a.start), \(a.end)) overlaps \(b.id) at \(b.start)")
        }
    }

    @Test("two saturated connections on one radio together stay under the single-link reference")
    func sharedRadioGoodput() {
        var radio = RadioSchedule()
        let interval = Duration.milliseconds(50)
        radio.addConnection(1, interval: interval, maximumExchangesPerEvent: .max, at: .zero)
        radio.addConnection(2, interval: interval, maximumExchangesPerEvent: .max, at: .zero)
        let exchange = AirTime.exchange(payload: 251, phy: .le2M)
        var sent = [1: 0, 2: 0]
        var next = [1: Duration.zero, 2: Duration.zero]
        var end = Duration.zero
        while end < .seconds(5) {
            let id = next[1]! <= next[2]! ? 1 : 2
            let start = radio.place(exchange: exchange, on: id, direction: .peripheralToCentral, at: next[id]!)
            next[id] = start + exchange / 2
            sent[id]! += LinkGoodput.attPayload(dataLength: 251)
            end = max(end, start + exchange)
        }
        let kbps = { (bytes: Int) in Double(bytes * 8) / end.secondsValue / 1000 }
        let reference = LinkGoodput.referenceKilobitsPerSecond(phy: .le2M, dataLength: 251)
        #expect(kbps(sent[1]! + sent[2]!) <= reference)
        #expect(kbps(sent[1]!) > reference * 0.3 && kbps(sent[2]!) > reference * 0.3, "both get a fair share")
    }

    @Test("many links on one radio: the shared-radio limit, and the interval that lifts it")
    func sharedRadioLimit() {
        let reference = LinkGoodput.referenceKilobitsPerSecond(phy: .le2M, dataLength: 251)
        // One connection: the single-link figure with connection events.
        let one = LinkGoodput.sharedRadioKilobitsPerSecond(links: 1, phy: .le2M, dataLength: 251, interval: .milliseconds(100))
        let events = LinkGoodput.connectionEventKilobitsPerSecond(phy: .le2M, dataLength: 251, interval: .milliseconds(100))
        #expect(abs(one / events - 1) < 0.01, "\(one) against \(events)")
        // 100 connections at 30 ms: anchors 234–469 µs apart, shorter than one 1392 µs exchange,
        // so each event carries one exchange and the air idles until the next free anchor.
        let crowded = LinkGoodput.sharedRadioKilobitsPerSecond(links: 100, phy: .le2M, dataLength: 251, interval: .milliseconds(30))
        print("LinkModelTests.sharedRadioLimit: 100 links at 30 ms \(crowded / reference) of the reference")
        #expect(crowded < reference * 0.8 && crowded > reference * 0.6)
        // At the interval that gives each link one exchange per event, the radio fills.
        let interval = LinkGoodput.sharedRadioInterval(links: 100, phy: .le2M, dataLength: 251)
        #expect(interval == .microseconds(178_750), "128 slots of 1392 µs, rounded up to 1.25 ms")
        let spread = LinkGoodput.sharedRadioKilobitsPerSecond(links: 100, phy: .le2M, dataLength: 251, interval: interval)
        print("LinkModelTests.sharedRadioLimit: 100 links at \(interval) \(spread / reference) of the reference")
        #expect(spread > reference * 0.97 && spread <= reference * 1.0001)
    }

    @Test("the shared-radio interval: at least 7.5 ms, grows with the links, holds the exchanges asked for")
    func sharedRadioInterval() {
        #expect(LinkGoodput.sharedRadioInterval(links: 1, phy: .le2M, dataLength: 251) == .microseconds(7500))
        #expect(LinkGoodput.sharedRadioInterval(links: 8, phy: .le1M, dataLength: 27) == .microseconds(7500))
        let exchange = Int64(AirTime.exchangeMicroseconds(payload: 251, phy: .le1M))
        for links in [3, 4, 5, 17, 64, 100] {
            for perEvent in [1, 3] {
                let interval = LinkGoodput.sharedRadioInterval(links: links, phy: .le1M, dataLength: 251, exchangesPerEvent: perEvent)
                let slots = Int64(1) << Int64((links - 1).bitWidth - (links - 1).leadingZeroBitCount)
                let microseconds = interval.microsecondsRoundedDown
                #expect(microseconds % 1250 == 0)
                #expect(microseconds / slots >= Int64(perEvent) * exchange, "\(links) links, \(perEvent) per event")
                #expect((microseconds - 1250) / slots < Int64(perEvent) * exchange || microseconds == 7500, "the shortest such interval")
            }
        }
        #expect(LinkGoodput.sharedRadioInterval(links: 4096, phy: .le1M, dataLength: 251) == .seconds(4), "at most 4 s")
    }

    @Test("packets per connection event are capped")
    func packetLimit() {
        var radio = RadioSchedule()
        radio.addConnection(1, interval: .milliseconds(20), maximumExchangesPerEvent: 3, at: .zero)
        let exchange = AirTime.exchange(payload: 27, phy: .le2M)
        let starts = (0..<7).map { _ in radio.place(exchange: exchange, on: 1, direction: .centralToPeripheral, at: .zero) }
        #expect(starts == [.zero, exchange, exchange * 2, .milliseconds(20), .milliseconds(20) + exchange,
                           .milliseconds(20) + exchange * 2, .milliseconds(40)])
    }

    /// Feeds a connection with back-to-back full PDUs for 10 s and measures the ATT goodput.
    static func saturatedGoodput(phy: PHY, dataLength: Int, interval: Duration, maximumExchanges: Int = .max) -> Double {
        var radio = RadioSchedule()
        radio.addConnection(1, interval: interval, maximumExchangesPerEvent: maximumExchanges, at: .zero)
        let exchange = AirTime.exchange(payload: dataLength, phy: phy)
        var submitted = Duration.zero
        var first: Duration?
        var end = Duration.zero
        var bytes = 0
        while end < .seconds(10) {
            let start = radio.place(exchange: exchange, on: 1, direction: .peripheralToCentral, at: submitted)
            first = first ?? start
            end = start + exchange
            submitted = start  // the producer keeps the queue full: the next PDU is ready while this one is on air
            bytes += LinkGoodput.attPayload(dataLength: dataLength)
        }
        return Double(bytes * 8) / (end - first!).secondsValue / 1000
    }
}
