extension HCIHost {
    /// Queues an L2CAP frame for a connection: cut to the controller's ACL buffer size and sent
    /// as its buffers free up (Number Of Completed Packets). Returns once queued. Throws
    /// ``HCIHostError/unknownConnection(_:)`` for a handle not connected and
    /// ``HCIHostError/aclQueueFull(limit:)`` when the queue cannot take the whole frame (nothing
    /// is queued then).
    public func send(_ frame: L2CAPBFrame, on handle: UInt16) throws {
        if let closedReason { throw HCIHostError.transportClosed(closedReason) }
        guard connectedHandles.contains(handle) else { throw HCIHostError.unknownConnection(handle) }
        let packets = ACLFragmenter.fragments(of: frame.encoded, handle: handle,
                                              maxLength: controller.aclDataPacketLength)
        guard aclQueue.count + packets.count <= configuration.maxQueuedACLPackets else {
            throw HCIHostError.aclQueueFull(limit: configuration.maxQueuedACLPackets)
        }
        aclQueue += packets
        pumpACL()
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
        while aclCredits > 0, !aclQueue.isEmpty {
            let packet = aclQueue.removeFirst()
            aclCredits -= 1
            aclInFlight[packet.handle, default: 0] += 1
            outgoing.yield(packet.h4Packet)
        }
    }

    func packetsCompleted(_ entries: [HCIEvent.CompletedPackets]) {
        for entry in entries {
            let inFlight = aclInFlight[entry.handle] ?? 0
            let freed = min(Int(entry.count), inFlight)  // never trust a count beyond what we sent
            if freed < Int(entry.count) { noteDrop("controller completed more packets than were sent on 0x\(hex4(entry.handle))") }
            aclInFlight[entry.handle] = inFlight - freed
            aclCredits += freed
        }
        pumpACL()
    }

    func connectionClosed(_ handle: UInt16) {
        connectedHandles.remove(handle)
        // The controller flushes a closed connection's packets without counting them (Vol 4 Part E §4.3).
        aclCredits += aclInFlight.removeValue(forKey: handle) ?? 0
        aclQueue.removeAll { $0.handle == handle }
        reassembler.drop(handle: handle)
        pumpACL()
    }

    func receiveACL(_ packet: ACLPacket) {
        let (frame, failure) = reassembler.push(packet)
        if let failure { noteDrop("ACL reassembly: \(failure)") }
        if let frame { frameContinuation.yield(ReceivedFrame(handle: packet.handle, frame: frame)) }
    }
}
