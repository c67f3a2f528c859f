import Testing
@testable import BleuHCI

/// The host's outgoing packets, taken by its writer in batches.
@Suite("PacketOutbox: the host's packets in batches, in order")
struct PacketOutboxTests {
    static func acl(_ byte: UInt8) -> H4Packet { H4Packet(type: .acl, body: [byte]) }

    @Test("packets posted while the writer is busy leave together, in the order posted")
    func batches() async {
        let outbox = PacketOutbox()
        outbox.post([Self.acl(1), Self.acl(2)])
        outbox.post([])
        outbox.post([Self.acl(3)])
        #expect(await outbox.next() == [Self.acl(1), Self.acl(2), Self.acl(3)])
        outbox.post([Self.acl(4)])
        #expect(await outbox.next() == [Self.acl(4)], "a take empties the outbox")
    }

    @Test("a writer waiting on an empty outbox is woken by the next post")
    func wakesWriter() async {
        let outbox = PacketOutbox()
        let writer = Task { await outbox.next() }
        // The writer may or may not be waiting yet: either way it gets exactly this post.
        outbox.post([Self.acl(7)])
        #expect(await writer.value == [Self.acl(7)])
    }

    @Test("after finish the writer takes what is left, then nil; later posts are dropped")
    func finishes() async {
        let outbox = PacketOutbox()
        outbox.post([Self.acl(1)])
        outbox.finish()
        outbox.post([Self.acl(2)])
        #expect(await outbox.next() == [Self.acl(1)])
        #expect(await outbox.next() == nil)
        let waiting = PacketOutbox()
        let writer = Task { await waiting.next() }
        waiting.finish()
        #expect(await writer.value == nil, "a waiting writer ends")
    }
}
