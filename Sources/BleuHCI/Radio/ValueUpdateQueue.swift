import BleuATT
import BleuCore

/// The values our GATT server pushes to subscribed clients: each link's queue, the
/// notifications the controller has not sent yet, the one indication awaiting its confirmation
/// (and its timer), and the bound on values queued across all links — past it the application
/// is refused until room frees up, then told once (``readyToUpdateSubscribers``).
struct ValueUpdateQueue {
    /// A value waiting to go to a client as a notification or indication.
    struct Value {
        var handle: UInt16
        var value: [UInt8]
        var indication: Bool
    }

    /// The next PDU a link may send.
    enum Next {
        case notification(ATTPDU)
        /// Send it and start the confirmation timer (``indicationSent(_:timer:)``).
        case indication(ATTPDU)
    }

    private struct LinkQueue {
        var values: [Value] = []
        var notificationsInFlight = 0
        var indicationInFlight = false
        var indicationTimer: Task<Void, Never>?
    }

    /// Values queued across links at most, and notifications in flight per link at most.
    let depth: Int
    private var links: [ConnectionHandle: LinkQueue] = [:]
    /// Values queued, in flight or awaiting confirmation, on every link.
    private(set) var count = 0
    /// The application was refused: tell it when there is room again.
    private var readyPending = false

    init(depth: Int) {
        self.depth = depth
    }

    mutating func linkOpened(_ handle: ConnectionHandle) {
        links[handle] = LinkQueue()
    }

    /// The link went down: what it held leaves the queue. Returns whether the application is
    /// now due its ready event.
    mutating func linkClosed(_ handle: ConnectionHandle) -> Bool {
        guard let queue = links.removeValue(forKey: handle) else { return false }
        queue.indicationTimer?.cancel()
        let held = queue.values.count + queue.notificationsInFlight + (queue.indicationInFlight ? 1 : 0)
        return held > 0 ? done(held) : false
    }

    /// Whether the queue takes more values now; when it does not, the application is due a
    /// ready event once it does.
    mutating func hasRoom() -> Bool {
        guard count < depth else {
            readyPending = true
            return false
        }
        return true
    }

    mutating func enqueue(_ value: Value, on handle: ConnectionHandle) {
        links[handle]?.values.append(value)
        count += 1
    }

    /// Takes the next value the link may send now: notifications while fewer than ``depth`` are
    /// in flight, indications one at a time (each waits for its confirmation).
    mutating func next(on handle: ConnectionHandle) -> Next? {
        guard var queue = links[handle], let head = queue.values.first else { return nil }
        if head.indication {
            guard !queue.indicationInFlight else { return nil }
            queue.indicationInFlight = true
        } else {
            guard queue.notificationsInFlight < depth else { return nil }
            queue.notificationsInFlight += 1
        }
        queue.values.removeFirst()
        links[handle] = queue
        return head.indication ? .indication(.handleValueIndication(handle: head.handle, value: head.value))
            : .notification(.handleValueNotification(handle: head.handle, value: head.value))
    }

    /// The indication just taken went out; `timer` ends the link when no confirmation comes.
    mutating func indicationSent(_ handle: ConnectionHandle, timer: Task<Void, Never>) {
        links[handle]?.indicationTimer = timer
    }

    func isIndicationInFlight(on handle: ConnectionHandle) -> Bool {
        links[handle]?.indicationInFlight == true
    }

    /// The client confirmed the indication in flight. Returns whether the application is now
    /// due its ready event; `nil` when no indication was in flight.
    mutating func confirmed(on handle: ConnectionHandle) -> Bool? {
        guard var queue = links[handle], queue.indicationInFlight else { return nil }
        queue.indicationInFlight = false
        queue.indicationTimer?.cancel()
        queue.indicationTimer = nil
        links[handle] = queue
        return done(1)
    }

    /// The controller sent `count` notifications of the link. Returns whether the application is
    /// now due its ready event.
    mutating func notificationsSent(_ sent: Int, on handle: ConnectionHandle) -> Bool {
        guard links[handle] != nil else { return false }
        links[handle]!.notificationsInFlight = max(0, links[handle]!.notificationsInFlight - sent)
        return sent > 0 ? done(sent) : false
    }

    /// The client unsubscribed from the value at `valueHandle`: its queued values go. Returns
    /// whether the application is now due its ready event.
    mutating func drop(_ valueHandle: UInt16, on handle: ConnectionHandle) -> Bool {
        guard var queue = links[handle] else { return false }
        let before = queue.values.count
        queue.values.removeAll { $0.handle == valueHandle }
        links[handle] = queue
        return before > queue.values.count ? done(before - queue.values.count) : false
    }

    /// `released` values left the queue; true when, after a refusal, it has room again.
    private mutating func done(_ released: Int) -> Bool {
        count = max(0, count - released)
        guard readyPending, count < depth else { return false }
        readyPending = false
        return true
    }
}
