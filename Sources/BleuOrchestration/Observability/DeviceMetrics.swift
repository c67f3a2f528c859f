import CoreMetrics
import Foundation

/// One device's metrics, through swift-metrics, each with the device and session as dimensions:
///
/// | label | kind | meaning |
/// |---|---|---|
/// | `bleu_fleet_state` | gauge | the state, as ``DeviceState/metricValue`` |
/// | `bleu_fleet_time_in_state` | timer, `state` | how long each stay in a state lasted |
/// | `bleu_fleet_reconnect_attempts` | counter | attempts begun after a failure or a suspension |
/// | `bleu_fleet_next_attempt_seconds` | gauge | when backing off: the delay to the next attempt; 0 once the backoff ended |
/// | `bleu_fleet_queue_depth` | gauge, `qos` | messages queued or in flight per class |
/// | `bleu_fleet_writes` | counter, `type` | writes by type (`with_response`, `without_response`) |
/// | `bleu_fleet_errors` | counter, `class` | failures by ``FailureClass`` |
/// | `bleu_fleet_connect_to_ready` | timer | from the start of an attempt to ready |
final class DeviceMetrics: Sendable {
    private let dimensions: [(String, String)]
    private let factory: any MetricsFactory
    private let state: Gauge
    private let reconnects: Counter
    private let nextAttempt: Gauge
    private let connectToReady: CoreMetrics.Timer
    private let queueDepths: [QoSClass: Gauge]
    private let writesWith: Counter
    private let writesWithout: Counter

    init(device: UUID, session: String, factory: any MetricsFactory) {
        let dimensions = [("device", device.uuidString), ("session", session)]
        self.dimensions = dimensions
        self.factory = factory
        state = Gauge(label: "bleu_fleet_state", dimensions: dimensions, factory: factory)
        reconnects = Counter(label: "bleu_fleet_reconnect_attempts", dimensions: dimensions, factory: factory)
        nextAttempt = Gauge(label: "bleu_fleet_next_attempt_seconds", dimensions: dimensions, factory: factory)
        connectToReady = CoreMetrics.Timer(label: "bleu_fleet_connect_to_ready", dimensions: dimensions, factory: factory)
        var depths: [QoSClass: Gauge] = [:]
        for qos in QoSClass.allCases {
            depths[qos] = Gauge(label: "bleu_fleet_queue_depth", dimensions: dimensions + [("qos", qos.rawValue)], factory: factory)
        }
        queueDepths = depths
        writesWith = Counter(label: "bleu_fleet_writes", dimensions: dimensions + [("type", "with_response")], factory: factory)
        writesWithout = Counter(label: "bleu_fleet_writes", dimensions: dimensions + [("type", "without_response")], factory: factory)
    }

    func transition(from before: DeviceState, to after: DeviceState, stayed: Duration, now: Duration) {
        state.record(after.metricValue)
        CoreMetrics.Timer(label: "bleu_fleet_time_in_state", dimensions: dimensions + [("state", before.name)], factory: factory)
            .recordNanoseconds(stayed.nanoseconds)
        if after == .resolving {
            switch before {
            case .backingOff, .suspended: reconnects.increment()
            default: break
            }
        }
        if case .backingOff(_, let deadline) = after {
            nextAttempt.record(Double((deadline - now).nanoseconds) / 1e9)
        } else if case .backingOff = before {
            nextAttempt.record(0)  // no attempt is scheduled any more
        }
    }

    func failure(_ failure: FailureClass) {
        Counter(label: "bleu_fleet_errors", dimensions: dimensions + [("class", failure.rawValue)], factory: factory).increment()
    }

    func ready(after latency: Duration) {
        connectToReady.recordNanoseconds(latency.nanoseconds)
    }

    func queueDepth(_ qos: QoSClass, _ depth: Int) {
        queueDepths[qos]?.record(depth)
    }

    func write(withResponse: Bool) {
        (withResponse ? writesWith : writesWithout).increment()
    }
}

extension DeviceState {
    /// The state as a number for a gauge: idle 0, resolving 1, connecting 2, discovering 3,
    /// ready 4, degraded 5, backingOff 6, suspended 7.
    public var metricValue: Int {
        switch self {
        case .idle: 0
        case .resolving: 1
        case .connecting: 2
        case .discovering: 3
        case .ready: 4
        case .degraded: 5
        case .backingOff: 6
        case .suspended: 7
        }
    }
}

extension DeviceEvent {
    /// The failure the event reports, if any.
    var failure: FailureClass? {
        switch self {
        case .resolveFailed(let failure), .connectFailed(let failure), .disconnected(let failure),
             .discoveryFailed(let failure), .writeFailed(let failure):
            failure
        default:
            nil
        }
    }
}
