import DequeModule

/// Packets waiting for delivery with instant timing: delivered in order, without recursion (a
/// packet whose delivery sends another queues it, and the outer loop delivers it next).
struct InstantDelivery {
    private var queue: Deque<(link: LinkID, packet: LinkPacket)> = []
    private var draining = false

    mutating func append(_ packet: LinkPacket, on link: LinkID) {
        queue.append((link, packet))
    }

    /// Starts draining; `false` when a drain is already under way (the caller returns, and
    /// the drain under way delivers what was queued).
    mutating func beginDraining() -> Bool {
        guard !draining else { return false }
        draining = true
        return true
    }

    mutating func next() -> (link: LinkID, packet: LinkPacket)? {
        guard let next = queue.popFirst() else {
            draining = false
            return nil
        }
        return next
    }
}
