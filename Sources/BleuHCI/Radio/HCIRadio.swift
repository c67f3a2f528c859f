import BleuATT
import BleuCore
import Foundation
import Logging

/// Bleu's BLE host on one controller: the state behind ``HCICentralManager`` and
/// ``HCIPeripheralManager``, which may share it (one controller, both roles at once).
///
/// It owns the ``HCIHost`` and everything above it — scanning, advertising, connections in
/// both roles, the ATT bearer of each connection (our GATT client and our GATT server), LE
/// signalling and LE credit-based channels — and serializes all of it, so events reach each
/// manager in the order the controller reported them.
///
/// ```swift
/// let radio = try await HCIRadio.open(HCIEndpoint("tcp:127.0.0.1:9000")!)   // starts the controller
/// let central = HCICentralManager(radio: radio)
/// ```
public actor HCIRadio {
    let host: HCIHost
    let clock: any Clock<Duration>
    /// Time since the radio was made, on its clock.
    let elapsed: ElapsedClock
    /// How the radio uses its controller.
    public let configuration: HCIRadioConfiguration
    /// Connections, attempts, refusals and peer violations, with the connection handle.
    let logger: Logger

    var state: ManagerState = .unknown
    /// The state, readable without the actor (a new event stream starts with it).
    private nonisolated let stateBox = Locked(ManagerState.unknown)
    nonisolated var stateSnapshot: ManagerState { stateBox.withLock { $0 } }
    /// What start-up learned about the controller.
    public private(set) var controller = ControllerInfo()
    /// The address this radio uses on air (known once started).
    public private(set) var address = BluetoothAddress.zero
    var ownAddressType: AddressType = .randomDevice
    /// Scanning, advertising and connecting use the LE extended commands (decided at start).
    public private(set) var usesExtendedCommands = false

    let centralEvents = EventBroadcaster<CentralEvent>()
    let peripheralEvents = EventBroadcaster<PeripheralEvent>()

    var peers: PeerDirectory
    /// Where the radio counts the ATT PDUs it sends and receives, if someone asked.
    let attTraffic: ATTTrafficCounter?
    var links: [UInt16: HCILink] = [:]
    var database: GATTDatabase
    var pumpTask: Task<Void, Never>?
    var sendTask: Task<Void, Never>?
    /// Signalled whenever the controller completes frames: the host's ACL queue has room again.
    let aclRoom = ReadySignal()
    /// Frames dropped because their link went down before the host took them.
    public private(set) var framesForClosedLinks = 0
    var outbound: AsyncStream<Outbound>.Continuation
    /// Commands the radio does not wait on, sent in order by ``commandTask``.
    var backgroundCommands: AsyncStream<BackgroundCommand>.Continuation
    var commandTask: Task<Void, Never>?

    var nextStreamID = 0

    // Scanning
    var scan: RadioScan?
    var nextScanID = 0

    // Connecting (one LE Create Connection at a time, as controllers require)
    var connectAttempt: ConnectAttempt?
    var nextAttemptID: UInt64 = 0
    var connectWaiters: [CheckedContinuation<Void, Never>] = []
    var connecting = false
    /// Setups of new central links, by handle, that `connect` waits for.
    var setupWaiters: [UInt16: [CheckedContinuation<Void, any Error>]] = [:]
    /// Callers of ``updateConnection(of:_:)`` and ``setPHY(of:preferring:)`` waiting for their event.
    var procedureWaiters: [LinkProcedure: [CheckedContinuation<Void, any Error>]] = [:]
    /// Callers of `cancelConnection` waiting for the Disconnection Complete.
    var closeWaiters: [UInt16: [CheckedContinuation<Void, Never>]] = [:]

    // Advertising
    var advertisement: (data: AdvertisingData, scanResponse: AdvertisingData?)?

    // Requests the application answers
    var nextRequestID: UInt64 = 0
    var pendingRequests: [ATTRequestID: PendingRequest] = [:]
    var queuedValues = 0
    var readyToUpdatePending = false

    // L2CAP
    var publishedPSMs: [UInt16: Bool] = [:]
    var channels: [ChannelKey: RadioChannel] = [:]
    /// Channels we asked a peer to open, by link and signalling identifier.
    var pendingChannelOpens: [PendingSignal: PendingChannelOpen] = [:]

    /// A radio on `host`; ``start()`` brings the controller up. Its timers run on `clock`; it logs
    /// connections and problems to `logger` (details at debug and trace level), and counts the
    /// ATT PDUs it sends and receives in `attTraffic`, when given.
    public init(host: HCIHost, configuration: HCIRadioConfiguration = HCIRadioConfiguration(),
                clock: any Clock<Duration> = ContinuousClock(), logger: Logger = Logger(label: "bleu.hci"),
                attTraffic: ATTTrafficCounter? = nil) {
        self.host = host
        self.attTraffic = attTraffic
        self.logger = logger
        self.clock = clock
        self.elapsed = ElapsedClock(clock)
        self.configuration = configuration
        database = GATTDatabase(deviceName: configuration.deviceName, appearance: configuration.appearance)
        peers = PeerDirectory(localAddress: .zero, capacity: configuration.maxKnownPeers)
        outbound = AsyncStream.makeStream(of: Outbound.self).continuation
        backgroundCommands = AsyncStream.makeStream(of: BackgroundCommand.self).continuation
    }

    /// Opens the transport an endpoint names, and starts a radio on it.
    public static func open(_ endpoint: HCIEndpoint, configuration: HCIRadioConfiguration = HCIRadioConfiguration())
        async throws -> HCIRadio {
        let radio = HCIRadio(host: HCIHost(transport: try await endpoint.openTransport()), configuration: configuration)
        try await radio.start()
        return radio
    }

    /// Resets and initialises the controller (``HCIHost/start()``), takes the configured address,
    /// and powers the radio on: both managers see ``/BleuCore/ManagerState/poweredOn``. Throws
    /// ``HCIHostError`` when the controller does not come up.
    @discardableResult
    public func start() async throws -> ControllerInfo {
        guard state != .poweredOn else { return controller }
        let info = try await host.start()
        controller = info
        var generator = SystemRandomNumberGenerator()
        switch configuration.ownAddress ?? .randomStatic(BluetoothAddress.randomStatic(using: &generator)) {
        case .publicAddress:
            address = info.address
            ownAddressType = .publicDevice
        case .randomStatic(let random):
            address = random.asRandomStatic
            ownAddressType = .randomDevice
            _ = try await host.execute(.leSetRandomAddress(address))
        }
        peers = PeerDirectory(localAddress: address, capacity: configuration.maxKnownPeers)
        usesExtendedCommands = configuration.usesExtendedCommands == .whenSupported && info.supportsExtendedAdvertising
        let logger = logger
        await host.observeDrops { cause, reason in
            logger.warning("the host dropped input from the controller (\(cause.rawValue)): \(reason)")
        }
        if sendTask == nil { startSending() }
        if commandTask == nil { startCommandTask() }
        if pumpTask == nil {
            let inbound = host.inbound
            pumpTask = Task { [weak self] in
                for await item in inbound {
                    guard let self else { return }
                    await self.receive(item)
                }
                await self?.controllerLost()
            }
        }
        setState(.poweredOn)
        return info
    }

    /// Stops the radio: connections end (``/BleuCore/DisconnectReason/poweredOff``), scans and
    /// advertising stop, the transport closes, and both managers see
    /// ``/BleuCore/ManagerState/poweredOff``.
    public func stop() async {
        guard state == .poweredOn else { return }
        if scan != nil { await stopScan() }
        if advertisement != nil { await stopAdvertising() }
        for link in links.values {
            await attempt(.disconnect(handle: link.handle, reason: 0x15), completes: false, "disconnecting 0x\(hex4(link.handle)) on stop")
        }
        await host.stop()
        controllerLost()
    }

    /// The address and address type behind an identifier this radio gave a peer.
    public func address(of peer: UUID) -> (address: BluetoothAddress, type: AddressType)? {
        peers.entry(peer).map { ($0.address, $0.type) }
    }

    /// The identifier of the peer at `address`, so it can be connected without a scan (when its
    /// address type is known).
    public func identify(_ address: BluetoothAddress, type: AddressType) -> UUID {
        identifyPeer(address, type: type)
    }

    /// The peer's identifier, remembering it (and its name); connected peers are never forgotten
    /// to make room in the directory.
    func identifyPeer(_ address: BluetoothAddress, type: AddressType, name: String? = nil) -> UUID {
        peers.identify(address, type: type, name: name, isProtected: { [links] id in links.values.contains { $0.peer == id } })
    }

    /// The radio's state: unknown before ``start()``, powered on while the controller runs,
    /// powered off after ``stop()`` or when the transport closes.
    public var currentState: ManagerState { state }

    func setState(_ new: ManagerState) {
        guard new != state else { return }
        state = new
        stateBox.withLock { $0 = new }
        centralEvents.yield(.stateChanged(new))
        peripheralEvents.yield(.stateChanged(new))
    }

    /// The transport closed or the radio stopped: everything ends.
    func controllerLost() {
        guard state == .poweredOn else { return }
        outbound.finish()
        backgroundCommands.finish()
        aclRoom.failWaiters(BleuError.bluetoothPoweredOff)
        sendTask = nil
        commandTask = nil
        pumpTask = nil
        endScan(throwing: BleuError.bluetoothPoweredOff)
        advertisement = nil
        for handle in Array(links.keys) { linkClosed(handle, reason: .poweredOff) }
        if let attempt = connectAttempt {
            connectAttempt = nil
            attempt.continuation.resume(throwing: BleuError.bluetoothPoweredOff)
        }
        for waiter in connectWaiters { waiter.resume() }
        connectWaiters = []
        setState(.poweredOff)
    }

    /// Throws unless the radio is powered on.
    func requirePoweredOn() throws(BleuError) {
        switch state {
        case .poweredOn: return
        case .poweredOff: throw .bluetoothPoweredOff
        case .unauthorized: throw .bluetoothUnauthorized
        default: throw .bluetoothUnavailable(state)
        }
    }

    // MARK: Inbound

    func receive(_ item: HCIHost.Inbound) {
        logger.trace("in: \(item)")
        switch item {
        case .event(let event): handle(event)
        case .frame(let received): route(received)
        case let .framesCompleted(handle, tags): framesCompleted(handle, tags)
        }
    }

    private func handle(_ event: HCIEvent) {
        switch event {
        case .le(.advertisingReport(let reports)):
            for report in reports { scanReport(ScanReport(report)) }
        case .le(.extendedAdvertisingReport(let reports)):
            for report in reports { scanReport(ScanReport(report)) }
        case .le(.connectionComplete(let c)), .le(.enhancedConnectionComplete(let c)),
             .le(.enhancedConnectionCompleteV2(let c)):
            connectionComplete(c)
        case let .disconnectionComplete(status, handle, reason):
            if status == 0 { linkClosed(handle, reason: DisconnectReason(hciCode: reason)) }
        case .le(.remoteConnectionParameterRequest(let handle, let min, let max, let latency, let timeout)):
            let parameters = LEConnectionParameters(intervalMin: min, intervalMax: max, maxLatency: latency,
                                                    supervisionTimeout: timeout)
            issue(.leRemoteConnectionParameterRequestReply(handle: handle, parameters), completes: true,
                  "accepting the peer's connection parameters on 0x\(hex4(handle))")
        case .le(.connectionUpdateComplete), .le(.phyUpdateComplete), .le(.dataLengthChange):
            if case .le(let meta) = event { linkLayerEvent(meta) }
        case .hardwareError:
            Task { await self.stop() }
        default:
            break
        }
    }

    /// An L2CAP frame: ATT, LE signalling, SMP, or a credit-based channel.
    private func route(_ received: HCIHost.ReceivedFrame) {
        guard links[received.handle] != nil else { return }
        let payload = received.frame.payload
        if received.frame.channelID == L2CAPBFrame.attCID { attTraffic?.countReceived(payload.count) }
        switch received.frame.channelID {
        case L2CAPBFrame.attCID: attReceived(payload, on: received.handle)
        case L2CAPBFrame.leSignalingCID: signalReceived(payload, on: received.handle)
        case L2CAPBFrame.smpCID:
            // No Security Manager yet: refuse pairing (Pairing Failed, Pairing Not Supported).
            if let code = payload.first, code == 0x01 || code == 0x0B {
                send(L2CAPBFrame(channelID: L2CAPBFrame.smpCID, payload: [0x05, 0x05]), on: received.handle)
            }
        default:
            channelFrameReceived(payload, cid: received.frame.channelID, on: received.handle)
        }
    }

    private func framesCompleted(_ handle: UInt16, _ tags: [Int]) {
        guard var link = links[handle] else { return }
        let writes = tags.count { $0 == HCILink.FrameKind.writeCommand.rawValue }
        let notifications = tags.count { $0 == HCILink.FrameKind.notification.rawValue }
        link.writeCommandsInFlight = max(0, link.writeCommandsInFlight - writes)
        link.notificationsInFlight = max(0, link.notificationsInFlight - notifications)
        let ready = link.wantsWriteReady && link.writeCommandsInFlight < configuration.writeWithoutResponseQueueDepth
        if ready { link.wantsWriteReady = false }
        links[handle] = link
        if ready { centralEvents.yield(.readyToSendWriteWithoutResponse(link.peer)) }
        if notifications > 0 { valuesDone(notifications) }
        aclRoom.signal()
        pumpOutbox(handle)
    }

    // MARK: Sending

    /// Queues a frame on a connection, in order with every other frame the radio sends. When the
    /// host's ACL queue is full the sender waits for the controller to complete frames
    /// (back-pressure); a frame for a link that went down is dropped, counted in
    /// ``framesForClosedLinks`` and logged.
    func send(_ frame: L2CAPBFrame, on handle: UInt16, kind: HCILink.FrameKind = .other) {
        logger.trace("out: \(frame) on 0x\(hex4(handle))")
        if frame.channelID == L2CAPBFrame.attCID { attTraffic?.countSent(frame.payload.count) }
        outbound.yield(Outbound(frame: frame, handle: handle, tag: kind.rawValue))
    }

    /// Queues a frame, throwing when there is no such link.
    func sendChecked(_ frame: L2CAPBFrame, on handle: UInt16, kind: HCILink.FrameKind = .other) async throws {
        guard links[handle] != nil else { throw BleuError.invalidState("connection 0x\(hex4(handle)) is closed") }
        send(frame, on: handle, kind: kind)
    }

    /// Sends queued frames one at a time, so the host sees them in the radio's order.
    func startSending() {
        let (stream, continuation) = AsyncStream.makeStream(of: Outbound.self)
        outbound = continuation
        let host = self.host
        sendTask = Task {
            for await item in stream {
                await self.hand(item, to: host)
            }
        }
    }

    /// Hands one frame to the host, waiting while its ACL queue is full.
    private func hand(_ item: Outbound, to host: HCIHost) async {
        while true {
            let generation = aclRoom.generation
            do {
                try await host.send(item.frame, on: item.handle, tag: item.tag)
                return
            } catch HCIHostError.aclQueueFull {
                do {
                    try await aclRoom.wait(after: generation)
                } catch {
                    return  // the radio is stopping
                }
            } catch {
                framesForClosedLinks += 1
                logger.debug("a frame for connection 0x\(hex4(item.handle)) was dropped: \(error)")
                return
            }
        }
    }
}

/// A frame on its way to the host.
struct Outbound: Sendable {
    var frame: L2CAPBFrame
    var handle: UInt16
    var tag: Int
}
