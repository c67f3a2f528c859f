import BleuCore
import DequeModule

/// The bottom of the host stack: owns the transport, sends commands under the controller's
/// flow control, matches their Command Complete / Command Status, times out commands that get
/// no answer, sends ACL data under the controller's buffer accounting, and reassembles
/// incoming ACL into L2CAP frames.
///
/// Everything above (L2CAP channels, ATT, GATT, the radio managers) talks to the controller
/// through this actor. What the controller reports — events other than the ones the host
/// consumes itself, complete L2CAP frames, and frames it finished sending — arrives on one
/// stream, ``inbound``, in the order it happened (a connection's first frame never overtakes its
/// Connection Complete event).
public actor HCIHost {
    /// Limits and timeouts.
    public struct Configuration: Sendable {
        /// How long a command may wait for its Command Complete / Command Status.
        public var commandTimeout: Duration
        /// Commands waiting to be sent at most (beyond that ``send(_:)`` throws).
        public var maxQueuedCommands: Int
        /// ACL packets waiting for controller buffers at most.
        public var maxQueuedACLPackets: Int
        /// The longest L2CAP PDU accepted from the controller.
        public var maxReassembledPDULength: Int
        /// Inbound items buffered for a slow consumer at most (the oldest are kept; later ones
        /// are dropped and counted in ``HCIHost/drops`` as ``HCIHostDrops/inboundOverflow``).
        public var streamBufferLimit: Int

        public init(commandTimeout: Duration = .seconds(5), maxQueuedCommands: Int = 64, maxQueuedACLPackets: Int = 512,
                    maxReassembledPDULength: Int = 65_535, streamBufferLimit: Int = 4096) {
            self.commandTimeout = commandTimeout
            self.maxQueuedCommands = maxQueuedCommands
            self.maxQueuedACLPackets = maxQueuedACLPackets
            self.maxReassembledPDULength = maxReassembledPDULength
            self.streamBufferLimit = streamBufferLimit
        }
    }

    /// An L2CAP frame received on a connection.
    public struct ReceivedFrame: Sendable, Hashable {
        public var handle: UInt16
        public var frame: L2CAPBFrame
    }

    /// What the controller reported, in order.
    public enum Inbound: Sendable, Hashable {
        /// An event other than Command Complete / Command Status / Number Of Completed Packets.
        case event(HCIEvent)
        /// A complete L2CAP frame.
        case frame(ReceivedFrame)
        /// The controller has sent every packet of the oldest frames queued on `handle` (Number
        /// Of Completed Packets); `tags` are the tags they were sent with, in order. Room for more,
        /// for flow-controlled senders.
        case framesCompleted(handle: UInt16, tags: [Int])
    }

    struct PendingCommand {
        let id: UInt64
        let command: HCICommand
        let continuation: CheckedContinuation<HCIEvent, any Error>
    }

    let transport: any HCITransport
    let clock: any Clock<Duration>
    public let configuration: Configuration

    /// What the controller reports, in order: events, frames, send completions. One consumer.
    public nonisolated let inbound: AsyncStream<Inbound>
    let inboundContinuation: AsyncStream<Inbound>.Continuation
    /// Commands and ACL packets on their way to the transport, taken by the writer in batches.
    let outgoing = PacketOutbox()

    // Commands
    var commandCredits = 1
    var commandQueue: [PendingCommand] = []
    var commandsInFlight: [PendingCommand] = []
    var commandTimers: [UInt64: Task<Void, Never>] = [:]
    var nextCommandID: UInt64 = 0

    // ACL
    var aclCredits = 0
    var aclQueue = Deque<ACLPacket>()
    var aclInFlight: [UInt16: Int] = [:]
    /// Per connection, the packets each queued or in-flight frame still waits for, and its
    /// sender's tag, oldest first.
    var framePackets: [UInt16: [(packets: Int, tag: Int)]] = [:]
    var reassembler: ACLReassembler
    /// Connection handles the host knows to be up (ACL to others is refused).
    var connectedHandles: Set<UInt16> = []

    var tasks: [Task<Void, Never>] = []
    var closedReason: TransportEnd?

    /// What start-up learned about the controller.
    public private(set) var controller = ControllerInfo()
    /// What the host dropped from the controller, counted by cause.
    public private(set) var drops = HCIHostDrops()
    /// Packets from the controller that could not be decoded, or ACL fragments that did not
    /// reassemble (``HCIHostDrops/malformed``).
    public var malformedPacketCount: Int { drops.malformed }
    /// The most recent reason something was dropped, for diagnostics.
    public private(set) var lastDropReason: String?
    /// Told of every drop as it happens (the radio logs them).
    private var dropObserver: (@Sendable (HCIHostDrops.Cause, String) -> Void)?

    deinit {
        outgoing.finish()  // the writer task ends with the host
    }

    /// A host over `transport`, its timers on `clock`.
    public init(transport: any HCITransport, clock: any Clock<Duration> = ContinuousClock(),
                configuration: Configuration = Configuration()) {
        self.transport = transport
        self.clock = clock
        self.configuration = configuration
        (inbound, inboundContinuation) = AsyncStream.makeStream(bufferingPolicy: .bufferingOldest(configuration.streamBufferLimit))
        reassembler = ACLReassembler(maxPDULength: configuration.maxReassembledPDULength)
    }

    /// Starts reading and writing, then runs the start-up sequence: Reset, Read Local Version,
    /// Read Local Supported Features, Read BD_ADDR, Set Event Mask, LE Set Event Mask, LE Read
    /// Buffer Size (falling back to Read Buffer Size), LE Read Local Supported Features.
    @discardableResult
    public func start() async throws -> ControllerInfo {
        if tasks.isEmpty { startIO() }
        var info = ControllerInfo()
        _ = try await step(.reset)
        info.version = try? LocalVersionInformation(returnParameters: try await step(.readLocalVersionInformation))
        info.features = (try? featureMask(returnParameters: try await step(.readLocalSupportedFeatures))) ?? 0
        info.address = try BluetoothAddress(readBDADDRReturnParameters: try await step(.readBDADDR))
        _ = try await step(.setEventMask(Self.eventMask))
        _ = try await step(.leSetEventMask(Self.leEventMask))
        let le = try LEBufferSize(returnParameters: try await step(.leReadBufferSize))
        if le.aclDataPacketLength > 0, le.totalNumACLDataPackets > 0 {
            info.aclDataPacketLength = Int(le.aclDataPacketLength)
            info.totalNumACLDataPackets = Int(le.totalNumACLDataPackets)
        } else {
            let shared = try BufferSize(returnParameters: try await step(.readBufferSize))
            info.aclDataPacketLength = max(1, Int(shared.aclDataPacketLength))
            info.totalNumACLDataPackets = max(1, Int(shared.totalNumACLDataPackets))
        }
        info.leFeatures = (try? featureMask(returnParameters:
            try await step(.leReadLocalSupportedFeatures))) ?? 0
        controller = info
        aclCredits = info.totalNumACLDataPackets
        aclInFlight = [:]
        return info
    }

    private func step(_ command: HCICommand) async throws -> [UInt8] {
        do {
            return try await execute(command)
        } catch let error as HCIHostError {
            throw HCIHostError.initializationFailed(step: command.opcode, cause: error)
        }
    }

    /// Stops the host: closes the transport, fails waiting commands, ends the streams.
    public func stop() async {
        await transport.close()
        shutDown(.stopped)
    }

    private func startIO() {
        let transport = self.transport
        let outgoing = self.outgoing
        tasks.append(Task { [weak self] in
            do {
                for try await packet in transport.incoming {
                    guard let self else { return }
                    await self.receive(packet)
                }
                await self?.shutDown(.closedByController)
            } catch {
                await self?.shutDown(.receiveFailed(HCITransportError(error)))
            }
        })
        tasks.append(Task { [weak self] in
            while let packets = await outgoing.next() {
                do {
                    try await transport.send(contentsOf: packets)
                } catch {
                    await self?.shutDown(.sendFailed(HCITransportError(error)))
                    return
                }
            }
        })
    }

    func shutDown(_ reason: TransportEnd) {
        guard closedReason == nil else { return }
        closedReason = reason
        let error = HCIHostError.transportClosed(reason)
        for pending in commandQueue + commandsInFlight { pending.continuation.resume(throwing: error) }
        commandQueue = []
        commandsInFlight = []
        for timer in commandTimers.values { timer.cancel() }
        commandTimers = [:]
        aclQueue.removeAll()
        framePackets = [:]
        outgoing.finish()
        inboundContinuation.finish()
    }

    /// Hands an item to the consumer of ``inbound``; counts what a full buffer drops.
    func deliver(_ item: Inbound) {
        if case .dropped = inboundContinuation.yield(item) {
            noteDrop(.inboundOverflow, "the inbound buffer (\(configuration.streamBufferLimit)) is full; the consumer is too slow")
        }
    }

    // MARK: Receiving

    func receive(_ packet: H4Packet) {
        switch packet.type {
        case .event:
            do {
                handle(try HCIEvent(decoding: packet.body))
            } catch {
                noteDrop(.malformed, "malformed event: \(error)")
            }
        case .acl:
            do {
                receiveACL(try ACLPacket(decoding: packet.body))
            } catch {
                noteDrop(.malformed, "malformed ACL packet: \(error)")
            }
        default:
            noteDrop(.unexpected, "unexpected \(packet.type) packet from the controller")
        }
    }

    /// Counts a drop under its cause, remembers why, and tells the observer.
    func noteDrop(_ cause: HCIHostDrops.Cause, _ reason: String) {
        drops.count(cause)
        lastDropReason = reason
        dropObserver?(cause, reason)
    }

    /// Calls `observer` on every drop from now on (replacing an earlier observer).
    public func observeDrops(_ observer: @escaping @Sendable (HCIHostDrops.Cause, String) -> Void) {
        dropObserver = observer
    }

    private func handle(_ event: HCIEvent) {
        switch event {
        case let .commandComplete(credits, opcode, _):
            commandAnswered(opcode: opcode, credits: credits, event: event, failure: nil)
        case let .commandStatus(status, credits, opcode):
            commandAnswered(opcode: opcode, credits: credits, event: event,
                            failure: status == 0 ? nil : HCIHostError.commandFailed(opcode, HCIStatus(rawValue: status)))
        case .numberOfCompletedPackets(let entries):
            packetsCompleted(entries)
        case let .disconnectionComplete(status, handle, _):
            if status == 0 { connectionClosed(handle) }
            deliver(.event(event))
        case .le(.connectionComplete(let c)), .le(.enhancedConnectionComplete(let c)),
             .le(.enhancedConnectionCompleteV2(let c)):
            if c.status == 0 { connectedHandles.insert(c.handle) }
            deliver(.event(event))
        default:
            deliver(.event(event))
        }
    }
}

extension HCIHost {
    /// The events of ``inbound``, for code that handles nothing else. It consumes ``inbound``:
    /// iterate one view at a time.
    public nonisolated var events: some AsyncSequence<HCIEvent, Never> {
        inbound.compactMap { if case .event(let event) = $0 { event } else { nil } }
    }

    /// The L2CAP frames of ``inbound``, for code that handles nothing else. It consumes
    /// ``inbound``: iterate one view at a time.
    public nonisolated var frames: some AsyncSequence<ReceivedFrame, Never> {
        inbound.compactMap { if case .frame(let frame) = $0 { frame } else { nil } }
    }
}
