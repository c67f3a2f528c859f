import BleuCore
import BleuWire
import Foundation

/// The I/O shell around one device's ``OutgoingQueues``: a pump that sends queued messages,
/// framed by BleuWire, while the device is connected.
///
/// - Fragments go without response when the characteristic allows it, paced by the radio's
///   credits: when the link's queue is full the pump waits for the ready event (which reaches
///   it through the machine's ``DeviceEffect/flushOutgoing``), through BleuCore's one
///   flow-controlled write loop, on a ready signal that lives as long as the link.
/// - The last fragment of a message goes with response when the characteristic allows it: ATT
///   keeps order on a link, so its confirmation means the whole message arrived. A message is
///   removed from its queue only then; after a link loss it is sent again, whole. A
///   characteristic without write-without-response gets every fragment with response.
final class Outbox: Sendable {
    struct Counters: Sendable, Hashable {
        var withoutResponse = 0
        var withResponse = 0
        var messages = 0
        var bytes = 0
    }

    private struct State {
        var queues: OutgoingQueues
        var characteristic: RemoteCharacteristic?
        /// The central of the current link (with several radios, the one the link is on).
        var central: (any CentralManager)?
        var epoch = 0
        var pumping = false
        var pump: Task<Void, Never>?
        /// The current link's ready events; failed when the link goes.
        var ready = ReadySignal()
        var counters = Counters()
        var backPressure = false
    }

    let device: UUID
    private let state: Locked<State>
    private let report: @Sendable (DeviceEvent) async -> Void
    private let reportPressure: @Sendable () async -> Void
    private let metrics: DeviceMetrics

    /// - Parameters:
    ///   - report: delivers an event to the device's machine.
    ///   - reportPressure: tells the machine the back-pressure as it is when the machine reads
    ///     it (through ``isBackPressured``), so reports that overtake each other cannot leave a
    ///     stale value behind.
    init(device: UUID, limits: SchedulerLimits, metrics: DeviceMetrics,
         report: @escaping @Sendable (DeviceEvent) async -> Void, reportPressure: @escaping @Sendable () async -> Void) {
        self.device = device
        self.reportPressure = reportPressure
        self.metrics = metrics
        self.state = Locked(State(queues: OutgoingQueues(limits: limits)))
        self.report = report
    }

    var counters: Counters { state.withLock { $0.counters } }

    /// Whether a class is at its bound now.
    var isBackPressured: Bool { state.withLock { $0.backPressure } }

    func depth(of qos: QoSClass) -> Int { state.withLock { $0.queues.depth(of: qos) } }

    func peakDepth(of qos: QoSClass) -> Int { state.withLock { $0.queues.peakDepth[qos] ?? 0 } }

    /// Queues a message; throws ``FleetError`` when its class is full or it is too large.
    func enqueue(_ message: Data, qos: QoSClass) throws(FleetError) {
        let pressure: Bool? = try state.withLock { state throws(FleetError) in
            try state.queues.enqueue(message, qos: qos, device: device)
            metrics.queueDepth(qos, state.queues.depth(of: qos))
            let full = QoSClass.allCases.contains { state.queues.isFull($0) }
            guard full != state.backPressure else { return nil }
            state.backPressure = full
            return full
        }
        if pressure != nil { Task { await reportPressure() } }
        flush()
    }

    /// The link is up and discovered: `characteristic`, on `central`, takes the writes.
    func linkUp(_ characteristic: RemoteCharacteristic?, on central: any CentralManager) {
        state.withLock { state in
            state.characteristic = characteristic
            state.central = central
            state.epoch += 1
            state.ready = ReadySignal()
        }
    }

    /// The link is gone: the pump stops after its current write; unconfirmed messages stay queued.
    func linkLost() {
        let (ready, pump) = state.withLock { state -> (ReadySignal, Task<Void, Never>?) in
            state.characteristic = nil
            state.central = nil
            state.epoch += 1
            return (state.ready, state.pump)
        }
        ready.close(BleuError.notConnected(device))
        // A write on a dead link may never complete by itself: cancel it; its message is requeued.
        pump?.cancel()
    }

    /// Sends what is queued (starting the pump if it is not running), and passes on a credit.
    func flush() {
        let ready = state.withLock { state -> ReadySignal in
            if !state.pumping, state.characteristic != nil, state.queues.waiting > 0 {
                state.pumping = true
                state.pump = Task { await self.pump() }
            }
            return state.ready
        }
        ready.signal()
    }

    // MARK: The pump

    private func pump() async {
        var fragmenter = Fragmenter(format: .compact)
        while true {
            let next = state.withLock { state -> (QoSClass, Data, RemoteCharacteristic, any CentralManager, Int)? in
                guard let characteristic = state.characteristic, let central = state.central,
                      let (qos, message) = state.queues.next() else {
                    state.pumping = false
                    return nil
                }
                return (qos, message, characteristic, central, state.epoch)
            }
            guard let (qos, message, characteristic, central, epoch) = next else { return }
            do {
                try await send(message, to: characteristic, on: central, epoch: epoch, using: &fragmenter)
                let relieved = state.withLock { state -> Bool in
                    state.queues.complete(qos)
                    metrics.queueDepth(qos, state.queues.depth(of: qos))
                    state.counters.messages += 1
                    state.counters.bytes += message.count
                    let full = QoSClass.allCases.contains { state.queues.isFull($0) }
                    guard state.backPressure, !full else { return false }
                    state.backPressure = false
                    return true
                }
                if relieved { await reportPressure() }
                await report(.writeSucceeded)
            } catch {
                state.withLock { state in
                    state.queues.requeue(message, qos)
                    state.pumping = false
                }
                await report(.writeFailed(FailureClass.classify(error)))
                // Start again if the link came back while this write failed.
                flush()
                return
            }
        }
    }

    private func send(_ message: Data, to characteristic: RemoteCharacteristic, on central: any CentralManager, epoch: Int,
                      using fragmenter: inout Fragmenter) async throws {
        let canWithout = characteristic.properties.contains(.writeWithoutResponse)
        let canWith = characteristic.properties.contains(.write)
        // Fragments fit one PDU (ATT MTU − 3) whichever way they go.
        let length = try await central.maximumWriteValueLength(for: characteristic.peripheral, type: .withoutResponse)
        let outgoing = try fragmenter.begin(Array(message), maximumFragmentLength: min(length, 512))
        defer { fragmenter.finish(outgoing) }
        for index in outgoing.indices {
            guard isCurrent(epoch) else { throw BleuError.notConnected(device) }
            let fragment = Data(outgoing.slices[index])
            let last = index == outgoing.count - 1
            if canWithout && !(last && canWith) {
                try await writeWithoutResponse(fragment, to: characteristic, on: central, epoch: epoch)
            } else {
                try await central.write(fragment, to: characteristic, type: .withResponse)
                state.withLock { $0.counters.withResponse += 1 }
                metrics.write(withResponse: true)
            }
        }
    }

    private func writeWithoutResponse(_ fragment: Data, to characteristic: RemoteCharacteristic, on central: any CentralManager,
                                      epoch: Int) async throws {
        let ready = try state.withLock { state throws(BleuError) -> ReadySignal in
            guard state.epoch == epoch, state.characteristic != nil else { throw BleuError.notConnected(device) }
            return state.ready
        }
        try await central.writeWithoutResponse(fragment, to: characteristic, ready: ready)
        state.withLock { $0.counters.withoutResponse += 1 }
        metrics.write(withResponse: false)
    }

    private func isCurrent(_ epoch: Int) -> Bool {
        state.withLock { $0.epoch == epoch && $0.characteristic != nil }
    }
}
