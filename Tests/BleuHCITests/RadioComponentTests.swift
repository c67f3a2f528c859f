import BleuATT
import BleuCore
import Foundation
import Testing

@testable import BleuHCI

/// The values an ``HCIRadio`` keeps each concern's state in, tested alone (no controller, no actor).
enum RadioComponents {
    static let peripheral = BluetoothAddress(string: "D0:11:22:33:44:55")!
    static let other = BluetoothAddress(string: "D0:11:22:33:44:66")!

    static func link(_ handle: UInt16, _ role: HCILink.Role, peer: UUID, address: BluetoothAddress = peripheral) -> HCILink {
        HCILink(handle: ConnectionHandle(handle), role: role, peer: peer, address: address, addressType: .randomDevice,
                localAddress: BluetoothAddress(string: "C0:00:00:00:00:01")!,
                bearer: ATTBearer { _ in })
    }
}

@Suite("Radio components: scanner")
struct RadioScannerTests {
    func report(_ name: String, scannable: Bool = false) -> ScanReport {
        ScanReport(address: RadioComponents.peripheral, addressType: .randomDevice, isConnectable: true, isScannable: scannable,
                   isScanResponse: false, data: Array(try! AdvertisingData(localName: name).encoded()), rssi: -50)
    }

    @Test("reports one advertisement per peripheral unless duplicates are allowed; nothing without a scan")
    func duplicateFiltering() async {
        let id = UUID()
        for allowDuplicates in [false, true] {
            var scanner = RadioScanner(clock: ManualClock())
            scanner.receive(report("before")) { _ in Issue.record("no scan runs: nothing to identify"); return id }
            let stream = scanner.begin(ScanOptions(allowDuplicates: allowDuplicates), responseWait: .milliseconds(500),
                                       capacity: 64) { _ in }
            for name in ["A", "B", "C"] { scanner.receive(report(name)) { _ in id } }
            scanner.end(throwing: nil)
            scanner.receive(report("after")) { _ in id }
            var names: [String?] = []
            do {
                for try await advertisement in stream { names.append(advertisement.data.localName) }
            } catch {
                Issue.record("the scan ended in order: \(error)")
            }
            #expect(names == (allowDuplicates ? ["A", "B", "C"] : ["A"]), "allowDuplicates \(allowDuplicates)")
            #expect(!scanner.isScanning)
        }
    }

    @Test("a held-back advertisement is reported by its own scan's expiry, not a stale one's")
    func expiry() async {
        let clock = ManualClock()
        var scanner = RadioScanner(clock: clock)
        _ = scanner.begin(ScanOptions(), responseWait: .milliseconds(500), capacity: 64) { _ in }
        let stale = scanner.currentID!
        scanner.end(throwing: nil)
        let stream = scanner.begin(ScanOptions(), responseWait: .milliseconds(500), capacity: 64) { _ in }
        scanner.receive(report("Held", scannable: true)) { _ in UUID() }
        let due = scanner.expiryDue()
        #expect(due?.id == scanner.currentID && due?.wait == .milliseconds(500))
        clock.advance(by: .milliseconds(500))
        #expect(scanner.expire(stale, identify: { _ in UUID() }) == false, "a timer of an ended scan does nothing")
        #expect(scanner.expire(scanner.currentID!, identify: { _ in UUID() }) == true)
        #expect(scanner.expiryDue() == nil, "nothing held back any more")
        scanner.end(throwing: nil)
        var names: [String?] = []
        do {
            for try await advertisement in stream { names.append(advertisement.data.localName) }
        } catch {
            Issue.record("the scan ended in order: \(error)")
        }
        #expect(names == ["Held"])
    }

    @Test("the scan commands follow the legacy or extended choice, never filtering duplicates in the controller")
    func commands() {
        #expect(RadioScanner.enable(true, extended: false) == .leSetScanEnable(enable: true, filterDuplicates: false))
        #expect(RadioScanner.enable(false, extended: true)
            == .leSetExtendedScanEnable(enable: false, filterDuplicates: 0, duration: nil, period: nil))
        guard case .leSetExtendedScanParameters = RadioScanner.parameters(HCIRadioConfiguration(), ownAddressType: .randomDevice,
                                                                          extended: true) else {
            Issue.record("extended parameters expected")
            return
        }
    }
}

@Suite("Radio components: connection table")
struct ConnectionTableTests {
    func table() -> ConnectionTable {
        ConnectionTable(peers: PeerDirectory(localAddress: .zero, capacity: 16))
    }

    @Test("links are found by handle, and by peer per role")
    func lookup() {
        var table = table()
        let peer = table.identify(RadioComponents.peripheral, type: .randomDevice)
        #expect(table.admit(RadioComponents.link(7, .peripheral, peer: peer)) == .ready)
        #expect(table[ConnectionHandle(7)]?.isReady == true, "a peripheral link is ready at once")
        #expect(table[ConnectionHandle(8)] == nil)
        #expect(table.centralLink(to: peer) == nil, "the peer's link is a peripheral one")
        #expect(table.anyLink(to: peer)?.handle == ConnectionHandle(7))
        #expect(!table.isConnected(peer))
        #expect(table.remove(ConnectionHandle(7))?.peer == peer)
        #expect(table.count == 0 && table.anyLink(to: peer) == nil)
    }

    @Test("a central link nobody asked for is unwanted; our attempt's link goes to its caller")
    func admission() async throws {
        var table = table()
        let peer = table.identify(RadioComponents.peripheral, type: .randomDevice)
        #expect(table.admit(RadioComponents.link(1, .central, peer: peer)) == .unwanted)
        let id = table.nextAttemptID()
        let handle = try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<ConnectionHandle, any Error>) in
            table.begin(ConnectAttempt(id: id, peer: peer, address: RadioComponents.peripheral, continuation: continuation))
            #expect(table.admit(RadioComponents.link(2, .central, peer: peer, address: RadioComponents.other)) == .unwanted,
                    "a link to another address does not end the attempt")
            #expect(table.admit(RadioComponents.link(3, .central, peer: peer)) == .awaitingSetup)
        }
        #expect(handle == ConnectionHandle(3))
        #expect(table.attempt == nil)
        #expect(table.centralLink(to: peer) != nil && !table.isConnected(peer), "connected, not set up yet")
    }

    @Test("a link that won the race with our cancel is abandoned, and its caller gets the cancellation")
    func cancelledAttempt() async {
        var table = table()
        let peer = table.identify(RadioComponents.peripheral, type: .randomDevice)
        let id = table.nextAttemptID()
        await #expect(throws: BleuError.connectionTimeout(peer)) {
            _ = try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<ConnectionHandle, any Error>) in
                table.begin(ConnectAttempt(id: id, peer: peer, address: RadioComponents.peripheral, continuation: continuation))
                #expect(table.cancelAttempt(id, because: .connectionTimeout(peer)) != nil)
                #expect(table.cancelAttempt(id, because: .cancelled) == nil, "cancelled once")
                #expect(table.admit(RadioComponents.link(4, .central, peer: peer)) == .abandoned)
            }
        }
    }

    @Test("the connect slot passes to a waiter instead of freeing, and frees once nobody waits")
    func slot() async {
        var table = table()
        #expect(table.takeSlot() == true)
        #expect(table.takeSlot() == false)
        await withCheckedContinuation { continuation in
            table.waitForSlot(continuation)
            table.releaseSlot()  // hands the slot on: the waiter resumes holding it
        }
        #expect(table.takeSlot() == false, "the waiter holds the slot now")
        table.releaseSlot()
        #expect(table.takeSlot() == true)
    }
}

@Suite("Radio components: channel table")
struct ChannelTableTests {
    let handle = ConnectionHandle(1)

    func table() -> ChannelTable {
        ChannelTable(localMTU: 100, localMPS: 50, localCredits: 2)
    }

    func result(_ command: L2CAPSignal.Command) -> UInt16? {
        if case let .leCreditBasedConnectionResponse(_, _, _, _, result) = command { result } else { nil }
    }

    @Test("PSM allocation never hands out one in use, refuses when all are published, and reuses a freed one")
    func psms() {
        var table = table()
        var published: Set<UInt16> = []
        for _ in ChannelTable.dynamicPSMs {
            let psm = table.publish(requiresEncryption: false)
            #expect(psm.map { ChannelTable.dynamicPSMs.contains($0) && !published.contains($0) } == true)
            if let psm { published.insert(psm) }
        }
        #expect(table.publish(requiresEncryption: false) == nil, "every dynamic PSM is in use")
        #expect(table.unpublish(0x0090) == true)
        #expect(table.unpublish(0x0090) == false, "not published any more")
        #expect(table.unpublish(0x0001) == false, "never published")
        #expect(table.publish(requiresEncryption: true) == 0x0090)
    }

    @Test("a peer's open is refused for an unpublished PSM, an encrypted one on a plain link, a CID in use and bad parameters")
    func refusals() throws {
        var table = table()
        let psmPublished = table.publish(requiresEncryption: false)
        let psm = try #require(psmPublished)
        let securePublished = table.publish(requiresEncryption: true)
        let secure = try #require(securePublished)
        func open(_ psm: UInt16, remote: UInt16 = 0x0040, mps: UInt16 = 50, encrypted: Bool = false) -> (UInt16?, ChannelKey?) {
            let (response, key) = table.accept(psm: psm, remoteCID: remote, mtu: 100, mps: mps, credits: 1, encrypted: encrypted,
                                               on: handle)
            return (result(response), key)
        }
        #expect(open(0x00F0).0 == 0x0002)
        #expect(open(secure).0 == 0x0008)
        #expect(open(psm, remote: 0x0001).0 == 0x0009)
        #expect(open(psm, mps: 22).0 == 0x000B)
        let (accepted, key) = open(psm)
        #expect(accepted == 0 && key == ChannelKey(handle: handle, cid: 0x0040))
        #expect(open(psm).0 == 0x000A, "the peer's CID is in use")
        #expect(open(secure, remote: 0x0050, encrypted: true).0 == 0, "an encrypted link opens the encrypted PSM")
        #expect(table.freeCID(on: handle) == 0x0042)
        #expect(table.freeCID(on: ConnectionHandle(2)) == 0x0040, "CIDs are per link")
    }

    @Test("K-frames: a partial SDU's credit returns at once, a complete one's once read; the end follows the SDUs")
    func receiving() throws {
        var table = table()
        let psmPublished = table.publish(requiresEncryption: false)
        let psm = try #require(psmPublished)
        let key = try #require(table.accept(psm: psm, remoteCID: 0x0040, mtu: 100, mps: 50, credits: 1, encrypted: false, on: handle).opened)
        guard case .taken(creditDue: true) = table.receive([4, 0, 1, 2], for: key) else {
            Issue.record("a partial SDU's credit is due at once")
            return
        }
        #expect(table.grant(1, on: key) == true)
        guard case .taken(creditDue: false) = table.receive([3, 4], for: key) else {
            Issue.record("a complete SDU waits for its reader")
            return
        }
        guard case .sdu(let sdu) = try table.nextSDU(key) else {
            Issue.record("the buffered SDU")
            return
        }
        #expect(sdu == Data([1, 2, 3, 4]))
        table.end(key, error: nil)
        guard case .ignored = table.receive([0, 0], for: key) else {
            Issue.record("a closed channel takes nothing")
            return
        }
        guard case .end(nil) = try table.nextSDU(key) else {
            Issue.record("closed in order")
            return
        }
        #expect(table.channels[key] == nil, "gone once its reader saw the end")
    }

    @Test("a K-frame without a credit is a violation")
    func violation() throws {
        var table = table()
        let psmPublished = table.publish(requiresEncryption: false)
        let psm = try #require(psmPublished)
        let key = try #require(table.accept(psm: psm, remoteCID: 0x0040, mtu: 100, mps: 50, credits: 1, encrypted: false, on: handle).opened)
        _ = table.receive([1, 0, 1], for: key)
        _ = table.receive([1, 0, 2], for: key)
        guard case .violation = table.receive([1, 0, 3], for: key) else {
            Issue.record("two credits given, a third K-frame")
            return
        }
    }
}

@Suite("Radio components: value update queue")
struct ValueUpdateQueueTests {
    let a = ConnectionHandle(1), b = ConnectionHandle(2)

    func value(_ byte: UInt8, indication: Bool = false) -> ValueUpdateQueue.Value {
        .init(handle: 0x0010, value: [byte], indication: indication)
    }

    @Test("past its depth the queue refuses, then says once that it has room")
    func bound() {
        var queue = ValueUpdateQueue(depth: 2)
        queue.linkOpened(a)
        for byte: UInt8 in [1, 2] {
            #expect(queue.hasRoom() == true)
            queue.enqueue(value(byte), on: a)
        }
        #expect(queue.hasRoom() == false)
        #expect(queue.next(on: a) != nil && queue.next(on: a) != nil)
        #expect(queue.next(on: a) == nil, "nothing more queued")
        #expect(queue.notificationsSent(1, on: a) == true, "room again after a refusal: ready")
        #expect(queue.notificationsSent(1, on: a) == false, "told once")
        #expect(queue.count == 0)
    }

    @Test("indications go one at a time, each after the previous one's confirmation; other links are not held")
    func indications() {
        var queue = ValueUpdateQueue(depth: 8)
        queue.linkOpened(a)
        queue.linkOpened(b)
        queue.enqueue(value(1, indication: true), on: a)
        queue.enqueue(value(2, indication: true), on: a)
        queue.enqueue(value(3, indication: true), on: b)
        guard case .indication(.handleValueIndication(_, [1]))? = queue.next(on: a) else {
            Issue.record("the first indication")
            return
        }
        #expect(queue.next(on: a) == nil, "the second waits for a confirmation")
        #expect(queue.isIndicationInFlight(on: a))
        #expect(queue.next(on: b) != nil, "another link's indication goes")
        #expect(queue.confirmed(on: a) == false)
        #expect(queue.confirmed(on: a) == nil, "no indication in flight")
        guard case .indication(.handleValueIndication(_, [2]))? = queue.next(on: a) else {
            Issue.record("the second indication after the confirmation")
            return
        }
        #expect(queue.linkClosed(a) == false)
        #expect(queue.count == 1, "the closed link's indication left the queue; b's is in flight")
    }

    @Test("unsubscribing drops the queued values of that characteristic only")
    func drop() {
        var queue = ValueUpdateQueue(depth: 1)
        queue.linkOpened(a)
        for index in 0..<3 { queue.enqueue(.init(handle: UInt16(0x10 + index % 2), value: [], indication: false), on: a) }
        #expect(queue.hasRoom() == false)
        #expect(queue.drop(0x10, on: a) == false, "one value left: still no room")
        #expect(queue.count == 1)
        #expect(queue.drop(0x11, on: a) == true, "room: ready")
    }
}

@Suite("Radio components: link layer table")
struct LinkLayerTableTests {
    let handle = ConnectionHandle(1)

    @Test("a completed update records the parameters and ends its procedure; a failed one fails it with the status")
    func updates() async throws {
        var table = LinkLayerTable()
        table.linkOpened(handle, HCILinkParameters(interval: .milliseconds(30), latency: 0, supervisionTimeout: .seconds(4)))
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            table.wait(for: .connectionUpdate(handle), continuation)
            table.apply(.connectionUpdateComplete(status: 0, handle: 2, interval: .milliseconds(15), latency: 1,
                                                  supervisionTimeout: .seconds(1)))
            #expect(table.hasWaiters, "another link's event ends nothing here")
            table.apply(.connectionUpdateComplete(status: 0, handle: 1, interval: .milliseconds(15), latency: 1,
                                                  supervisionTimeout: .seconds(1)))
        }
        #expect(table.parameters[handle]?.interval == .milliseconds(15) && table.parameters[handle]?.latency == 1)
        #expect(table.parameters[ConnectionHandle(2)] == nil)
        await #expect(throws: HCIHostError.commandFailed(.leSetPHY, HCIStatus(rawValue: 0x1A))) {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                table.wait(for: .phyUpdate(handle), continuation)
                table.apply(.phyUpdateComplete(status: 0x1A, handle: 1, txPHY: .le2M, rxPHY: .le2M))
            }
        }
        #expect(table.parameters[handle]?.txPHY == .le1M, "a failed update changes nothing")
        #expect(!table.hasWaiters)
    }

    @Test("a link that goes down fails the procedures waiting on it")
    func linkClosed() async {
        var table = LinkLayerTable()
        table.linkOpened(handle, HCILinkParameters(interval: .milliseconds(30), latency: 0, supervisionTimeout: .seconds(4)))
        await #expect(throws: BleuError.cancelled) {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                table.wait(for: .phyUpdate(handle), continuation)
                table.linkClosed(handle, error: BleuError.cancelled)
            }
        }
        #expect(table.parameters.isEmpty)
    }
}

@Suite("Radio components: GATT server and client state")
struct GATTStateTests {
    let handle = ConnectionHandle(1)

    @Test("a client's second request before the first is answered is dropped; the answer goes to its link")
    func oneRequestAtATime() throws {
        var server = GATTServerState(deviceName: "Bleu", appearance: 0, updateQueueDepth: 4)
        let service = try server.add(ServiceDefinition(uuid: BluetoothUUID(0x180F), characteristics: [
            CharacteristicDefinition(uuid: BluetoothUUID(0x2A19), properties: .read, permissions: .readable, value: nil),
        ]))
        let valueHandle = service.characteristics[0].valueHandle
        server.linkOpened(handle, peer: UUID(), maxMTU: 517)
        guard case .read(let id, _) = server.receive(ATTPDU.readRequest(handle: valueHandle).encoded, on: handle).step else {
            Issue.record("the application is asked for the value")
            return
        }
        guard case .droppedRequest(.readRequest) = server.receive(ATTPDU.readRequest(handle: 3).encoded, on: handle).step else {
            Issue.record("the second request is dropped")
            return
        }
        let answer = server.answerRead(id, with: .success(Data([42])))
        #expect(answer?.0 == handle && answer?.1 == .readResponse(value: [42]))
        #expect(server.answerRead(id, with: .success(Data())) == nil, "answered once")
        guard case .respond = server.receive(ATTPDU.readRequest(handle: 3).encoded, on: handle).step else {
            Issue.record("the next request is served")
            return
        }
    }

    @Test("a client's MTU exchange changes the bearer's MTU; a link that goes down takes its requests along")
    func mtuAndClose() throws {
        var server = GATTServerState(deviceName: "Bleu", appearance: 0, updateQueueDepth: 4)
        let service = try server.add(ServiceDefinition(uuid: BluetoothUUID(0x180F), characteristics: [
            CharacteristicDefinition(uuid: BluetoothUUID(0x2A19), properties: .read, permissions: .readable, value: nil),
        ]))
        server.linkOpened(handle, peer: UUID(), maxMTU: 247)
        #expect(server.receive(ATTPDU.exchangeMTURequest(clientRxMTU: 517).encoded, on: handle).mtu == 247)
        _ = server.receive(ATTPDU.readRequest(handle: service.characteristics[0].valueHandle).encoded, on: handle)
        #expect(server.pendingRequests.count == 1)
        _ = server.linkClosed(handle)
        #expect(server.pendingRequests.isEmpty)
    }

    @Test("writes without response are flow-controlled per link, with one ready event after a refusal")
    func writeCommands() {
        var client = GATTClientState(writeQueueDepth: 2, streamLimit: 8)
        client.linkOpened(handle)
        #expect(client.reserveWriteCommand(on: handle) && client.reserveWriteCommand(on: handle))
        #expect(client.reserveWriteCommand(on: handle) == false)
        #expect(!client.canSendWriteCommand(on: handle))
        #expect(client.writeCommandsSent(1, on: handle) == true, "room after a refusal: ready")
        #expect(client.writeCommandsSent(1, on: handle) == false, "told once")
        #expect(client.canSendWriteCommand(on: handle))
    }
}
