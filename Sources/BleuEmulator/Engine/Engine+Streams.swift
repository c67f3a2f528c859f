import BleuATT
import BleuCore
import Foundation

/// The value streams the engine feeds — subscriptions, scans, L2CAP input — with bounded
/// buffers and back-pressure: when a consumer takes a value, the engine lets the link move
/// the next one.
extension Engine {
    mutating func newStream(_ owner: ValueStream.Owner, limit: Int, sink: StreamSink? = nil) -> StreamID {
        let id = streams.allocate()
        streams[id] = ValueStream(owner: owner, limit: max(1, limit), sink: sink)
        return id
    }

    /// Hands an element to a stream: to a waiting consumer at once, else into the buffer.
    /// Returns `false`, and keeps nothing, when the buffer is full or the stream ended.
    @discardableResult
    mutating func push(_ element: ValueStream.Element, to id: StreamID) -> Bool {
        guard var stream = streams[id], stream.end == nil else { return false }
        if let sink = stream.sink {
            sink(.element(element))
            tookAtOnce(stream.owner)
            return true
        }
        if let waiter = stream.waiter {
            stream.waiter = nil
            streams[id] = stream
            waiter.resume(returning: element)
            tookAtOnce(stream.owner)
            return true
        }
        guard stream.hasRoom else { return false }
        stream.buffer.append(element)
        streams[id] = stream
        return true
    }

    func hasRoom(_ id: StreamID) -> Bool {
        streams[id].map { $0.end == nil && $0.hasRoom } ?? false
    }

    func bufferedCount(_ id: StreamID) -> Int {
        streams[id]?.buffer.count ?? 0
    }

    /// Ends a stream after what it buffered: normally with a `nil` error, else with the error.
    mutating func endStream(_ id: StreamID, error: (any Error)?) {
        guard var stream = streams[id], stream.end == nil else { return }
        if let sink = stream.sink {
            streams[id] = nil
            sink(.end(error))
            return
        }
        stream.end = .some(error)
        if let waiter = stream.waiter {
            stream.waiter = nil
            streams[id] = nil
            if let error { waiter.resume(throwing: error) } else { waiter.resume(returning: nil) }
            return
        }
        streams[id] = stream
    }

    /// The consumer asks for the next element: it gets one now, or waits.
    mutating func nextElement(_ id: StreamID, waiter: CheckedContinuation<ValueStream.Element?, any Error>) {
        guard var stream = streams[id] else {
            waiter.resume(returning: nil)
            return
        }
        if let element = stream.buffer.popFirst() {
            streams[id] = stream
            waiter.resume(returning: element)
            drained(stream.owner)
            return
        }
        if let end = stream.end {
            streams[id] = nil
            if let error = end { waiter.resume(throwing: error) } else { waiter.resume(returning: nil) }
            return
        }
        if Task.isCancelled || stream.waiter != nil {
            waiter.resume(returning: nil)
            return
        }
        stream.waiter = waiter
        streams[id] = stream
    }

    /// The consumer's task was cancelled or it let go of the stream: the stream is gone.
    mutating func removeStream(_ id: StreamID) {
        guard let stream = streams.removeValue(forKey: id) else { return }
        stream.waiter?.resume(returning: nil)
        stream.sink?(.end(nil))
        switch stream.owner {
        case .subscription(let link, let handle):
            links[link]?.valueStreams[handle]?.removeAll { $0 == id }
            drained(stream.owner)
        case .scan(let central):
            guard centrals[central]?.scan?.stream == id else { return }
            if centrals[central]?.restoreIdentifier != nil {
                centrals[central]?.scan?.stream = nil  // a restorable central scans on, for its successor
            } else {
                stopScan(central: central)
            }
        case .channel(let channel, let side):
            closeChannel(channel, side: side)
        }
    }

    /// The consumer took an element the moment it arrived, without buffering it. An L2CAP
    /// channel's input holds a credit for every SDU until the consumer takes it, however it
    /// takes it: the credit goes back now. (Subscriptions and scans only wait for buffer room,
    /// which an element taken at once never used.)
    private mutating func tookAtOnce(_ owner: ValueStream.Owner) {
        if case .channel = owner { drained(owner) }
    }

    /// A consumer made room: let whatever waited for it move.
    private mutating func drained(_ owner: ValueStream.Owner) {
        switch owner {
        case .subscription(let link, _): pumpOutbox(link)
        case .scan(let central): pumpScanBacklog(central)
        case .channel(let channel, let side): channelInputConsumed(channel, side: side)
        }
    }
}
