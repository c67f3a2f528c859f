import BleuATT
import BleuCore
import Foundation

/// Everything that happens on one bus, as one value behind one lock: the order in which its
/// methods run is the order of events on the medium, and every event a manager sees is
/// yielded from inside it. The methods are synchronous; the bus shell takes the lock, and
/// runs a scheduler task that wakes the engine when its next timer is due.
///
/// The engine coordinates values that each hold one concern's state (`State/`): the tables of
/// devices, links, channels and streams (``KeyedTable``, keyed by ``CentralKey``,
/// ``PeripheralKey``, ``LinkID``, ``ChannelID`` and ``StreamID``), the callers waiting on
/// operations (``OperationWaiters``), the timers and their scheduler task (``TimerQueue``),
/// instant delivery (``InstantDelivery``), randomness by concern (``ChanceSources``),
/// addresses and identifiers (``DeviceIdentities``), serial numbers (``SerialNumbers``) and
/// the shell's hooks (``EngineHooks``). What happens on the medium lives in one extension per
/// concern: nodes, scanning, connections, transport, the ATT client and server, notifications,
/// security, L2CAP, streams and timers.
struct Engine {
    let configuration: EmulatorConfiguration
    let clock: ElapsedClock
    /// Model time (realistic timing): the time of the timer being processed, or of the
    /// latest catch-up with the clock. Always zero with instant timing.
    var now: Duration = .zero
    /// Random sources by concern, from the bus's seed.
    var chance: ChanceSources
    /// Device addresses and the identifiers devices know each other by.
    var identities: DeviceIdentities
    var numbers = SerialNumbers()

    var centrals: KeyedTable<CentralKind, CentralNode>
    var peripherals: KeyedTable<PeripheralKind, PeripheralNode>
    /// Restorable devices by restore identifier, for the managers that take them over.
    var restorable = RestorableDevices()
    var links = KeyedTable<LinkKind, Link>()
    var channels = KeyedTable<ChannelKind, BusChannel>()
    var streams = KeyedTable<StreamKind, ValueStream>()
    /// Security levels the pairs of devices bonded at.
    var bonds: [BondKey: SecurityLevel] = [:]

    var waiters = OperationWaiters()
    var timers: TimerQueue
    var instant = InstantDelivery()
    var hooks = EngineHooks()
    var trace: TraceRecorder
    /// Moves on each time a manager or a timer works on the engine (see ``catchUp()``): a test
    /// that drives a manual clock reads it to tell a busy bus from an idle one.
    var activity: UInt64 = 0

    /// A new engine. `previous` is the engine of the bus before a reset: keys and scheduler
    /// generations keep counting from it, so nothing of the old one names something new.
    init(configuration: EmulatorConfiguration, clock: ElapsedClock, continuing previous: Engine? = nil) {
        self.configuration = configuration
        self.clock = clock
        let seed = configuration.seed ?? UInt64.random(in: .min ... .max)
        chance = ChanceSources(seed: seed)
        identities = DeviceIdentities(seed: seed)
        centrals = KeyedTable(continuing: previous?.centrals)
        peripherals = KeyedTable(continuing: previous?.peripherals)
        timers = TimerQueue(continuing: previous?.timers)
        trace = TraceRecorder(capacity: configuration.traceCapacity)
    }

    /// The seed the bus's randomness derives from.
    var seed: UInt64 { chance.seed }

    var isRealistic: Bool { configuration.timing == .realistic }

    /// The time on the bus's clock that timeouts count from: model time when realistic, the
    /// clock itself when instant.
    func timeoutBase() -> Duration {
        isRealistic ? now : clock.now()
    }

    // MARK: Waiters

    mutating func newOperationID() -> OperationID {
        waiters.newID()
    }

    /// Resumes the caller waiting on an operation, once.
    mutating func complete(_ id: OperationID, _ result: Result<OperationResult, any Error>) {
        waiters.take(id)?(result)
    }

    mutating func succeed(_ id: OperationID, _ value: OperationResult = .done) {
        complete(id, .success(value))
    }

    mutating func fail(_ id: OperationID, _ error: any Error) {
        complete(id, .failure(error))
    }

    /// The caller's task was cancelled: it gets ``BleuError/cancelled``. The operation itself
    /// may still run on the link (an ATT request cannot be called back); its result is dropped.
    mutating func cancel(_ id: OperationID) {
        fail(id, BleuError.cancelled)
        for (key, node) in centrals {
            for (peripheral, var attempt) in node.pending where attempt.waiters.contains(id) {
                attempt.waiters.removeAll { $0 == id }
                if attempt.waiters.isEmpty {
                    centrals[key]?.pending.removeValue(forKey: peripheral)
                } else {
                    centrals[key]?.pending[peripheral] = attempt
                }
            }
        }
    }

    // MARK: Trace

    mutating func record(_ kind: LinkTraceEvent.Kind, link: LinkID? = nil, direction: RadioSchedule.Direction? = nil,
                         airStart: Duration? = nil, opcode: UInt8? = nil, handle: UInt16? = nil,
                         length: Int? = nil, _ detail: String, pdu: @autoclosure () -> [UInt8]? = nil,
                         endpoints: LinkTraceEvent.Endpoints? = nil) {
        guard isTracing else { return }
        let sink = hooks.traceSink
        let event = trace.record(LinkTraceEvent(
            sequence: 0, time: now, airStart: airStart, connection: link?.rawValue,
            direction: direction.map { $0 == .centralToPeripheral ? .centralToPeripheral : .peripheralToCentral },
            kind: kind, opcode: opcode, handle: handle, length: length, detail: detail,
            pdu: sink == nil ? nil : pdu(), endpoints: endpoints))
        sink?(event)
    }

    /// Whether events are recorded: kept by the trace, or taken by a sink.
    var isTracing: Bool { trace.isEnabled || hooks.traceSink != nil }

    // MARK: Identities

    /// A fresh 48-bit device address, unique on the bus.
    mutating func newAddress(device: String?) -> UInt64 {
        identities.newAddress(device: device)
    }

    /// The identifier a device with address `observer` knows the device with address `subject` by.
    func identifier(of subject: UInt64, seenBy observer: UInt64) -> UUID {
        identities.identifier(of: subject, seenBy: observer)
    }
}
