import BleuCore

extension HCIHost {
    /// Queues an L2CAP frame for a connection: cut to the controller's ACL buffer size and sent
    /// as its buffers free up (Number Of Completed Packets). Returns once queued; once the
    /// controller has sent it, ``Inbound/framesCompleted(handle:tags:)`` reports `tag`. Throws
    /// ``HCIHostError/unknownConnection(_:)`` for a handle not connected and
    /// ``HCIHostError/aclQueueFull(limit:)`` when the queue cannot take the whole frame (nothing
    /// is queued then).
    public func send(_ frame: L2CAPBFrame, on handle: UInt16, tag: Int = 0) throws {
        if let closedReason { throw HCIHostError.transportClosed(closedReason) }
        guard connectedHandles.contains(handle) else { throw HCIHostError.unknownConnection(handle) }
        let packets = ACLFragmenter.fragments(of: frame.encoded, handle: handle,
                                              maxLength: controller.aclDataPacketLength)
        guard aclQueue.count + packets.count <= configuration.maxQueuedACLPackets else {
            throw HCIHostError.aclQueueFull(limit: configuration.maxQueuedACLPackets)
        }
        aclQueue.append(contentsOf: packets)
        framePackets[handle, default: []].append((packets.count, tag))
        pumpACL()
    }

    /// Frames queued or in flight on a connection: sent to the host but not yet completed by
    /// the controller.
    public func pendingFrameCount(on handle: UInt16) -> Int {
        framePackets[handle]?.count ?? 0
    }

    /// Whether a frame of `length` payload bytes would be queued now.
    public func canQueue(frameLength length: Int) -> Bool {
        let packets = (length + 4 + controller.aclDataPacketLength - 1) / max(1, controller.aclDataPacketLength)
        return aclQueue.count + packets <= configuration.maxQueuedACLPackets
    }

    /// ACL packets waiting for controller buffers.
    public var queuedACLPacketCount: Int { aclQueue.count }
    /// Controller ACL buffers free now.
    public var availableACLBuffers: Int { aclCredits }

    /// Marks a connection up, so ACL may be sent on it (the host does this itself on LE
    /// Connection Complete events; tests and higher layers may call it too).
    public func connectionOpened(_ handle: UInt16) {
        connectedHandles.insert(handle)
    }

    func pumpACL() {
        var batch: [H4Packet] = []
        while aclCredits > 0, let packet = aclQueue.popFirst() {
            aclCredits -= 1
            aclInFlight[packet.handle, default: 0] += 1
            batch.append(packet.h4Packet)
        }
        outgoing.post(batch)
    }

    func packetsCompleted(_ entries: [HCIEvent.CompletedPackets]) {
        for entry in entries {
            let inFlight = aclInFlight[entry.handle] ?? 0
            let freed = min(Int(entry.count), inFlight)  // never trust a count beyond what we sent
            if freed < Int(entry.count) { noteDrop(.unexpected, "controller completed more packets than were sent on 0x\(hex4(entry.handle))") }
            aclInFlight[entry.handle] = inFlight - freed
            aclCredits += freed
            let tags = completeFramePackets(entry.handle, freed)
            if !tags.isEmpty { deliver(.framesCompleted(handle: entry.handle, tags: tags)) }
        }
        pumpACL()
    }

    /// Counts `packets` completed packets against the oldest frames of `handle`; returns the tags
    /// of the frames now wholly sent.
    private func completeFramePackets(_ handle: UInt16, _ packets: Int) -> [Int] {
        guard var queue = framePackets[handle] else { return [] }
        var left = packets
        var done: [Int] = []
        while left > 0, !queue.isEmpty {
            let take = min(left, queue[0].packets)
            queue[0].packets -= take
            left -= take
            if queue[0].packets == 0 {
                done.append(queue.removeFirst().tag)
            }
        }
        framePackets[handle] = queue.isEmpty ? nil : queue
        return done
    }

    func connectionClosed(_ handle: UInt16) {
        framePackets[handle] = nil
        connectedHandles.remove(handle)
        // The controller flushes a closed connection's packets without counting them (Vol 4 Part E §4.3).
        aclCredits += aclInFlight.removeValue(forKey: handle) ?? 0
        aclQueue.removeAll { $0.handle == handle }
        reassembler.drop(handle: handle)
        pumpACL()
    }

    func receiveACL(_ packet: ACLPacket) {
        let (frame, failure) = reassembler.push(packet)
        if let failure { noteDrop(.malformed, "ACL reassembly: \(failure)") }
        if let frame { deliver(.frame(ReceivedFrame(handle: packet.handle, frame: frame))) }
    }
}
