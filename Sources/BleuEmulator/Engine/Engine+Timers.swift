import BleuATT
import BleuCore
import Foundation

/// Something the engine does at a time: deliver a packet at the end of its air time, finish
/// establishing a connection, hear an advertising event, time out.
enum TimerAction {
    case deliver(link: LinkID, packet: LinkPacket, airStart: Duration)
    case establish(central: CentralKey, peripheral: PeripheralKey, attempt: UInt64)
    case connectTimeout(central: CentralKey, peripheral: PeripheralKey, operation: OperationID)
    case advertisingEvent(central: CentralKey, scan: UInt64, peripheral: PeripheralKey, advertising: UInt64, index: Int64)
    case supervisionTimeout(link: LinkID)
    case sendRequest(link: LinkID, operation: OperationID)
    case watchdog
}

struct Timer: Comparable {
    var time: Duration
    var sequence: UInt64
    var action: TimerAction

    static func < (lhs: Timer, rhs: Timer) -> Bool {
        (lhs.time, lhs.sequence) < (rhs.time, rhs.sequence)
    }

    static func == (lhs: Timer, rhs: Timer) -> Bool {
        lhs.time == rhs.time && lhs.sequence == rhs.sequence
    }
}

extension Engine {
    /// Runs `action` at `time` (model time when realistic, clock time when instant).
    mutating func schedule(_ action: TimerAction, at time: Duration) {
        if timers.insert(action, at: time) {
            requestWake(at: time)
        }
    }

    /// Starts a scheduler task that sleeps until `time`; the previous one stops.
    mutating func requestWake(at time: Duration) {
        timers.wake(at: time, start: hooks.startScheduler)
    }

    /// Realistic timing: brings the engine up to the clock's time before anything new happens,
    /// running every timer due by then in order.
    mutating func catchUp() {
        activity &+= 1
        guard isRealistic else { return }
        process(until: clock.now(), fromScheduler: false)
    }

    /// Runs every timer due at or before `target`, in time order.
    mutating func process(until target: Duration, fromScheduler: Bool) {
        let wasProcessing = timers.isProcessing
        timers.isProcessing = true
        while let top = timers.popDue(until: target) {
            if isRealistic { now = max(now, top.time) }
            handle(top.action, at: top.time)
        }
        if isRealistic { now = max(now, target) }
        timers.isProcessing = wasProcessing
        guard !wasProcessing else { return }
        let next = timers.earliest
        if fromScheduler {
            timers.scheduledWake = next
        } else if let next, timers.scheduledWake.map({ next < $0 }) ?? true {
            requestWake(at: next)
        }
    }

    private mutating func handle(_ action: TimerAction, at time: Duration) {
        switch action {
        case .deliver(let link, let packet, let airStart):
            deliver(packet, on: link, airStart: airStart)
        case .establish(let central, let peripheral, let attempt):
            establish(central: central, peripheral: peripheral, attempt: attempt)
        case .connectTimeout(let central, let peripheral, let operation):
            connectionTimedOut(central: central, peripheral: peripheral, operation: operation)
        case .advertisingEvent(let central, let scan, let peripheral, let advertising, let index):
            advertisingEvent(central: central, scan: scan, peripheral: peripheral, advertising: advertising, index: index)
        case .supervisionTimeout(let link):
            if let lost = links[link], lost.lostAt != nil {
                tearDown(link, centralReason: .supervisionTimeout, peripheralReason: .supervisionTimeout)
            }
        case .sendRequest(let link, let operation):
            sendHeadRequest(on: link, operation: operation)
        case .watchdog:
            watchdog(at: time)
        }
    }

    // MARK: ATT transaction timeout

    /// Makes sure the watchdog runs by `deadline`. Deadlines only grow (one timeout for every
    /// request), so one watchdog timer at the earliest is enough.
    mutating func armWatchdog(_ deadline: Duration) {
        guard timers.watchdogAt == nil else { return }
        timers.watchdogAt = deadline
        schedule(.watchdog, at: deadline)
    }

    private mutating func watchdog(at time: Duration) {
        timers.watchdogAt = nil
        var next: Duration?
        for id in links.keys.sorted() {
            guard let link = links[id], link.client.busy, let head = link.client.operations.first,
                  let deadline = head.deadline else { continue }
            if deadline <= time {
                attTransactionTimedOut(on: id)
            } else {
                next = min(next ?? deadline, deadline)
            }
        }
        if let next { armWatchdog(next) }
    }

    /// An ATT request went unanswered for the transaction timeout: the operation fails and,
    /// as the specification requires (Vol 3 Part F §3.3.3), the bearer is closed.
    private mutating func attTransactionTimedOut(on id: LinkID) {
        guard let link = links[id], let head = link.client.operations.first else { return }
        record(.fault, link: id, "ATT transaction timeout: \(head.kind.name)")
        fail(head.id, BleuError.timeout(head.kind.operation, after: configuration.attTransactionTimeout))
        links[id]?.client.operations.removeFirst()
        tearDown(id, centralReason: .localHostTerminated, peripheralReason: .remoteUserTerminated)
    }
}
