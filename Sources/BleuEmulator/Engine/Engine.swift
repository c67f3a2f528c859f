import BleuATT
import BleuCore
import DequeModule
import Foundation
import HeapModule

/// Everything that happens on one bus, as one value behind one lock: the order in which its
/// methods run is the order of events on the medium, and every event a manager sees is
/// yielded from inside it. The methods are synchronous; the bus shell takes the lock, and
/// runs a scheduler task that wakes the engine when its next timer is due.
struct Engine {
    let configuration: EmulatorConfiguration
    let clock: ElapsedClock
    let seed: UInt64
    /// The namespace of the identifiers centrals and peripherals see each other under.
    let namespace: UUID

    /// Model time (realistic timing): the time of the timer being processed, or of the
    /// latest catch-up with the clock. Always zero with instant timing.
    var now: Duration = .zero
    var faultRandom: SeededRandomNumberGenerator
    var noiseRandom: SeededRandomNumberGenerator
    var identityRandom: SeededRandomNumberGenerator
    var pairingRandom: SeededRandomNumberGenerator

    var nextKey = 1
    var nextLinkID = 1
    /// Operations the engine starts itself are numbered from 2⁶²; the bus numbers callers' below.
    var nextOperation: UInt64 = 1 << 62
    var nextRequest: UInt64 = 1
    var nextStream = 1
    var nextAttempt: UInt64 = 1
    var nextTimerSequence: UInt64 = 0

    var centrals: [CentralKey: CentralNode] = [:]
    var peripherals: [PeripheralKey: PeripheralNode] = [:]
    var restorableCentrals: [String: CentralKey] = [:]
    var restorablePeripherals: [String: PeripheralKey] = [:]
    var deviceAddresses: [String: UInt64] = [:]
    var usedAddresses: Set<UInt64> = []
    var links: [LinkID: Link] = [:]
    var channels: [ChannelID: BusChannel] = [:]
    var nextChannel = 1
    var bonds: [BondKey: SecurityLevel] = [:]
    /// Callers waiting on operations: each completion runs once, inside the engine (it must
    /// not block or call back into the bus synchronously).
    var waiters: [OperationID: OperationCompletion] = [:]
    /// Operations waiting for a link to finish terminating.
    var terminationWaiters: [LinkID: [OperationID]] = [:]
    var streams: [StreamID: ValueStream] = [:]
    var trace: TraceRecorder

    var timers = Heap<Timer>()
    var scheduledWake: Duration?
    var schedulerGeneration = 0
    var schedulerTask: Task<Void, Never>?
    var processingTimers = false
    var startScheduler: @Sendable (Int) -> Task<Void, Never> = { _ in Task {} }
    var onReceipts: @Sendable ([LinkID]) -> Void = { _ in }
    /// Runs a central's passkey handler outside the lock and reports the answer.
    var requestPasskey: @Sendable (@escaping PasskeyHandler, PasskeyRequest, LinkID, UInt64) -> Void = { _, _, _, _ in }
    /// Makes the public channel object for one end of an L2CAP channel.
    var makeChannel: @Sendable (_ channel: ChannelID, _ side: ChannelSide, _ psm: UInt16, _ peer: UUID, _ input: StreamID) -> (any L2CAPChannel)? = { _, _, _, _, _ in nil }
    var watchdogAt: Duration?

    /// Packets waiting for delivery with instant timing: delivered in order, without recursion.
    var instantQueue: Deque<(link: LinkID, packet: LinkPacket)> = []
    var drainingInstantQueue = false

    init(configuration: EmulatorConfiguration, clock: ElapsedClock) {
        self.configuration = configuration
        self.clock = clock
        let seed = configuration.seed ?? UInt64.random(in: .min ... .max)
        self.seed = seed
        faultRandom = SeededRandomNumberGenerator(seed: seed ^ 0xFA17_FA17_FA17_FA17)
        noiseRandom = SeededRandomNumberGenerator(seed: seed ^ 0x0015_E015_E015_E015)
        identityRandom = SeededRandomNumberGenerator(seed: seed ^ 0x1D1D_1D1D_1D1D_1D1D)
        pairingRandom = SeededRandomNumberGenerator(seed: seed ^ 0x5A17_5A17_5A17_5A17)
        var random = SeededRandomNumberGenerator(seed: seed)
        namespace = UUID(uuid: (UInt8.random(in: 0...255, using: &random), UInt8.random(in: 0...255, using: &random),
                                UInt8.random(in: 0...255, using: &random), UInt8.random(in: 0...255, using: &random),
                                UInt8.random(in: 0...255, using: &random), UInt8.random(in: 0...255, using: &random),
                                UInt8.random(in: 0...255, using: &random), UInt8.random(in: 0...255, using: &random),
                                UInt8.random(in: 0...255, using: &random), UInt8.random(in: 0...255, using: &random),
                                UInt8.random(in: 0...255, using: &random), UInt8.random(in: 0...255, using: &random),
                                UInt8.random(in: 0...255, using: &random), UInt8.random(in: 0...255, using: &random),
                                UInt8.random(in: 0...255, using: &random), UInt8.random(in: 0...255, using: &random)))
        trace = TraceRecorder(capacity: configuration.traceCapacity)
    }

    var isRealistic: Bool { configuration.timing == .realistic }

    /// The time on the bus's clock that timeouts count from: model time when realistic, the
    /// clock itself when instant.
    func timeoutBase() -> Duration {
        isRealistic ? now : clock.now()
    }

    // MARK: Waiters

    mutating func newOperationID() -> OperationID {
        defer { nextOperation += 1 }
        return nextOperation
    }

    /// Resumes the caller waiting on an operation, once.
    mutating func complete(_ id: OperationID, _ result: Result<OperationResult, any Error>) {
        waiters.removeValue(forKey: id)?(result)
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
                         length: Int? = nil, _ detail: String) {
        guard trace.isEnabled else { return }
        trace.record(LinkTraceEvent(sequence: 0, time: now, airStart: airStart, connection: link?.rawValue,
                                    direction: direction.map { $0 == .centralToPeripheral ? .centralToPeripheral : .peripheralToCentral },
                                    kind: kind, opcode: opcode, handle: handle, length: length, detail: detail))
    }

    // MARK: Identities

    /// A fresh 48-bit device address, unique on the bus.
    mutating func newAddress(device: String?) -> UInt64 {
        if let device, let address = deviceAddresses[device] { return address }
        var address: UInt64
        repeat {
            address = identityRandom.next() & 0xFFFF_FFFF_FFFF
        } while usedAddresses.contains(address)
        usedAddresses.insert(address)
        if let device { deviceAddresses[device] = address }
        return address
    }

    /// The identifier a device with address `observer` knows the device with address `subject`
    /// by: random per bus (from its seed), different for every observer, stable on the bus.
    func identifier(of subject: UInt64, seenBy observer: UInt64) -> UUID {
        UUID(version5Of: String(observer, radix: 16) + "/" + String(subject, radix: 16), in: namespace)
    }
}
