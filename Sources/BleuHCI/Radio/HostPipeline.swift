import BleuATT
import BleuCore
import Logging

/// Tags of the frames a radio sends, so the controller's completions can be told apart.
enum FrameKind: Int {
    case other = 0
    case writeCommand = 1
    case notification = 2
}

/// A frame on its way to the host.
struct OutboundFrame: Sendable {
    var frame: L2CAPBFrame
    var handle: ConnectionHandle
    var kind: FrameKind
}

/// A command the radio sends without waiting on its outcome: a reply to the peer, a
/// best-effort request, a tidy-up.
struct BackgroundCommand: Sendable {
    var command: HCICommand
    /// Whether the controller answers it with Command Complete (else Command Status).
    var completes: Bool
    /// What it is for, for the log line when it fails.
    var purpose: String
}

/// The lanes between a radio and its ``HCIHost``, each one task the pipeline keeps: what the
/// host reports reaches the radio in order; frames reach the host in the radio's order, waiting
/// while its ACL queue is full (back-pressure); commands the radio does not wait on go in
/// order, each failure logged; chores from outside the radio (a consumer gone, a caller
/// cancelled) reach it in order. It counts the frames dropped for links that went down, and
/// the ATT PDUs each way.
///
/// Sending a frame or a command is a yield to a stream: no task and no actor hop per packet.
struct HostPipeline: Sendable {
    let host: HCIHost
    /// Where the ATT PDUs sent and received are counted, if someone asked.
    let attTraffic: ATTTrafficCounter?
    /// Signalled whenever the controller completes frames: the host's ACL queue has room again.
    let aclRoom = ReadySignal()
    private let logger: Logger
    private let droppedFrames = Locked(0)
    private var frames: AsyncStream<OutboundFrame>.Continuation?
    private var commands: AsyncStream<BackgroundCommand>.Continuation?
    /// Where code outside the radio's actor leaves chores for it.
    private(set) var chores: AsyncStream<RadioChore>.Continuation?
    private var tasks: [Task<Void, Never>] = []

    init(host: HCIHost, logger: Logger, attTraffic: ATTTrafficCounter?) {
        self.host = host
        self.logger = logger
        self.attTraffic = attTraffic
    }

    var isRunning: Bool { !tasks.isEmpty }

    /// Frames dropped because their link went down before the host took them.
    var framesForClosedLinks: Int { droppedFrames.withLock { $0 } }

    /// Starts the lanes. `inbound` feeds the host's reports to the radio; `chores` is handed
    /// the stream of chores and drains it into the radio.
    mutating func start(inbound: Task<Void, Never>, chores drain: (AsyncStream<RadioChore>) -> Task<Void, Never>) {
        let (frameStream, frames) = AsyncStream.makeStream(of: OutboundFrame.self)
        let (commandStream, commands) = AsyncStream.makeStream(of: BackgroundCommand.self)
        let (choreStream, chores) = AsyncStream.makeStream(of: RadioChore.self)
        self.frames = frames
        self.commands = commands
        self.chores = chores
        let pipeline = self
        tasks = [
            inbound,
            drain(choreStream),
            Task {
                for await item in frameStream { await pipeline.hand(item) }
            },
            Task {
                for await item in commandStream { await pipeline.attempt(item.command, completes: item.completes, item.purpose) }
            },
        ]
    }

    /// Ends the lanes (the controller is gone): what is queued is dropped, senders waiting for
    /// room fail.
    mutating func stop() {
        frames?.finish()
        commands?.finish()
        chores?.finish()
        aclRoom.failWaiters(BleuError.bluetoothPoweredOff)
        tasks = []
    }

    /// Leaves a chore for the radio (from any thread). Once the lanes ended a chore is moot and
    /// goes nowhere: losing the controller already failed every attempt, ended every scan and
    /// dropped every value stream's state.
    func post(_ chore: RadioChore) {
        chores?.yield(chore)
    }

    // MARK: Frames

    /// Queues a frame on a connection, in order with every other frame the radio sends.
    func send(_ frame: L2CAPBFrame, on handle: ConnectionHandle, kind: FrameKind = .other) {
        logger.trace("out: \(frame) on \(handle)")
        if frame.channelID == L2CAPBFrame.attCID { attTraffic?.countSent(frame.payload.count) }
        guard case .enqueued = frames?.yield(OutboundFrame(frame: frame, handle: handle, kind: kind)) else {
            // The lanes ended: the controller is gone, and every link with it.
            droppedFrames.withLock { $0 += 1 }
            logger.debug("a frame for connection \(handle) was dropped: the radio is off")
            return
        }
    }

    /// Queues an ATT PDU on a connection.
    func send(_ pdu: ATTPDU, on handle: ConnectionHandle, kind: FrameKind = .other) {
        send(L2CAPBFrame(channelID: L2CAPBFrame.attCID, payload: pdu.encoded), on: handle, kind: kind)
    }

    /// Queues an LE signalling command on a connection.
    func send(_ signal: L2CAPSignal, on handle: ConnectionHandle) {
        send(L2CAPBFrame(channelID: L2CAPBFrame.leSignalingCID, payload: signal.encoded), on: handle)
    }

    /// Hands one frame to the host, waiting while its ACL queue is full; a frame for a link
    /// that went down is dropped, counted and logged.
    private func hand(_ item: OutboundFrame) async {
        while true {
            let generation = aclRoom.generation
            do {
                try await host.send(item.frame, on: item.handle.rawValue, tag: item.kind.rawValue)
                return
            } catch HCIHostError.aclQueueFull {
                do {
                    try await aclRoom.wait(after: generation)
                } catch {
                    return  // the radio is stopping
                }
            } catch {
                droppedFrames.withLock { $0 += 1 }
                logger.debug("a frame for connection \(item.handle) was dropped: \(error)")
                return
            }
        }
    }

    // MARK: Commands

    /// Queues a command the radio does not wait on: sent in order with the others, each one
    /// that fails logged. Nothing is sent from a stray task, and no refusal is hidden.
    func issue(_ command: HCICommand, completes: Bool, _ purpose: String) {
        commands?.yield(BackgroundCommand(command: command, completes: completes, purpose: purpose))
    }

    /// Sends a command whose failure the radio can live with (a controller that keeps no
    /// scan to stop, a peer that refuses a request) and logs the failure instead of hiding it.
    func attempt(_ command: HCICommand, completes: Bool, _ purpose: String) async {
        do {
            if completes {
                _ = try await host.execute(command)
            } else {
                _ = try await host.send(command)
            }
        } catch {
            logger.debug("\(purpose) did not succeed (\(command.opcode)): \(error)")
        }
    }
}
