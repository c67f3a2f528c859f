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
///
/// The radio is a coordinator: each concern keeps its state in a value of its own, which the
/// radio owns (so all of it stays isolated to this actor, with no hop between concerns), and
/// the radio routes what the host reports to them and carries out what they decide.
public actor HCIRadio {
    /// How the radio uses its controller.
    public let configuration: HCIRadioConfiguration
    let clock: any Clock<Duration>
    /// Connections, attempts, refusals and peer violations, with the connection handle.
    let logger: Logger
    /// The power state and the events of each role, readable without the actor.
    let events: RadioEvents
    /// What start-up learned and decided.
    var setup = ControllerSetup()
    /// The lanes to and from the host.
    var pipeline: HostPipeline
    /// Known peers, connections, and connecting.
    var connections: ConnectionTable
    /// Link-layer parameters and procedures.
    var linkLayer = LinkLayerTable()
    /// The running scan.
    var scanner: RadioScanner
    /// Whether advertising is on.
    var advertiser = RadioAdvertiser()
    /// Our GATT server (both roles) and the values it pushes.
    var server: GATTServerState
    /// Our GATT client's state per link.
    var client: GATTClientState
    /// LE credit-based channels.
    var channels: ChannelTable
    /// Pairing and encryption per link.
    var security = SecurityTable()
    /// The application's part in pairing (``setPairingDelegate(_:)``); `nil` answers as the
    /// protocol's defaults do.
    var pairingDelegate: (any PairingDelegate)?
    /// The bonds this radio encrypts links with, and keeps new ones in.
    public nonisolated let bonds: any BondStore
    /// `count` random octets, for pairing.
    let random: @Sendable (Int) -> [UInt8]
    /// The tasks the radio started for work that outlives one message (a link's setup, a
    /// timer, a command whose outcome it waits on); cancelled when the controller is lost.
    var owned = OwnedTasks()

    /// A radio on `host`; ``start()`` brings the controller up. Its timers run on `clock`; it logs
    /// connections and problems to `logger` (details at debug and trace level), and counts the
    /// ATT PDUs it sends and receives in `attTraffic`, when given. Pairings leave their bonds in
    /// `bonds` (in memory unless given a ``FileBondStore``); `random` gives pairing its nonces
    /// and passkeys (the system's cryptographically secure generator unless a test injects one).
    public init(host: HCIHost, configuration: HCIRadioConfiguration = HCIRadioConfiguration(),
                clock: any Clock<Duration> = ContinuousClock(), logger: Logger = Logger(label: "bleu.hci"),
                attTraffic: ATTTrafficCounter? = nil, bonds: any BondStore = InMemoryBondStore(),
                random: @escaping @Sendable (Int) -> [UInt8] = HCIRadio.systemRandom) {
        self.configuration = configuration
        self.bonds = bonds
        self.random = random
        self.clock = clock
        self.logger = logger
        events = RadioEvents()
        pipeline = HostPipeline(host: host, logger: logger, attTraffic: attTraffic)
        connections = ConnectionTable(peers: PeerDirectory(localAddress: .zero, capacity: configuration.maxKnownPeers))
        scanner = RadioScanner(clock: clock)
        server = GATTServerState(deviceName: configuration.deviceName, appearance: configuration.appearance,
                                 updateQueueDepth: configuration.notificationQueueDepth)
        client = GATTClientState(writeQueueDepth: configuration.writeWithoutResponseQueueDepth,
                                 streamLimit: configuration.valueStreamLimit)
        channels = ChannelTable(localMTU: configuration.l2capMTU, localMPS: configuration.l2capMPS,
                                localCredits: configuration.l2capCredits)
    }

    /// Opens the transport an endpoint names, and starts a radio on it that keeps its bonds in
    /// `bonds`.
    public static func open(_ endpoint: HCIEndpoint, configuration: HCIRadioConfiguration = HCIRadioConfiguration(),
                            bonds: any BondStore = InMemoryBondStore()) async throws -> HCIRadio {
        let radio = HCIRadio(host: HCIHost(transport: try await endpoint.openTransport()), configuration: configuration,
                             bonds: bonds)
        try await radio.start()
        return radio
    }

    var host: HCIHost { pipeline.host }

    /// What start-up learned about the controller.
    public var controller: ControllerInfo { setup.controller }
    /// The address this radio uses on air now (known once started): with privacy
    /// (``HCIRadioConfiguration/privateAddressInterval``), the current resolvable private address.
    public var address: BluetoothAddress { setup.address }
    /// Scanning, advertising and connecting use the LE extended commands (decided at start).
    public var usesExtendedCommands: Bool { setup.usesExtendedCommands }
    /// Frames dropped because their link went down before the host took them.
    public var framesForClosedLinks: Int { pipeline.framesForClosedLinks }
    /// Notifications and indications from a peer that did not decode, so reached no
    /// subscriber (each is also logged).
    public var malformedNotifications: Int { client.malformedNotifications }

    /// Resets and initialises the controller (``HCIHost/start()``), takes the configured address,
    /// and powers the radio on: both managers see ``/BleuCore/ManagerState/poweredOn``. Throws
    /// ``HCIHostError`` when the controller does not come up.
    @discardableResult
    public func start() async throws -> ControllerInfo {
        guard events.state != .poweredOn else { return setup.controller }
        let info = try await host.start()
        setup.controller = info
        if configuration.privateAddressInterval != nil {
            guard let identity = configuration.security.identity else {
                throw BleuError.invalidState(.invalidConfiguration(setting: "privateAddressInterval",
                                                                   requirement: "needs security.identity (its IRK makes the addresses)"))
            }
            setup.privacyKey = identity.resolvingKey
            setup.lastingAddress = identity.address.address
            setup.address = ResolvablePrivateAddress.make(irk: identity.resolvingKey, random: random)
            setup.ownAddressType = .randomDevice
            _ = try await host.execute(.leSetRandomAddress(setup.address))
        } else {
            var generator = SystemRandomNumberGenerator()
            switch configuration.ownAddress ?? .randomStatic(BluetoothAddress.randomStatic(using: &generator)) {
            case .publicAddress:
                setup.address = info.address
                setup.ownAddressType = .publicDevice
            case .randomStatic(let random):
                setup.address = random.asRandomStatic
                setup.ownAddressType = .randomDevice
                _ = try await host.execute(.leSetRandomAddress(setup.address))
            }
            setup.lastingAddress = setup.address
        }
        connections.resetPeers(PeerDirectory(localAddress: setup.lastingAddress, capacity: configuration.maxKnownPeers))
        setup.usesExtendedCommands = configuration.usesExtendedCommands == .whenSupported && info.supportsExtendedAdvertising
        let logger = logger
        await host.observeDrops { cause, reason in
            logger.warning("the host dropped input from the controller (\(cause.rawValue)): \(reason)")
        }
        if !pipeline.isRunning {
            let inbound = host.inbound
            pipeline.start(inbound: Task { [weak self] in
                for await item in inbound {
                    guard let self else { return }
                    await self.receive(item)
                }
                await self?.controllerLost()
            }, chores: { chores in
                Task { [weak self] in
                    for await chore in chores {
                        guard let self else { return }
                        await self.perform(chore)
                    }
                }
            })
        }
        events.setState(.poweredOn)
        schedulePrivateAddressRotation()
        return info
    }

    /// Stops the radio: connections end (``/BleuCore/DisconnectReason/poweredOff``), scans and
    /// advertising stop, the transport closes, and both managers see
    /// ``/BleuCore/ManagerState/poweredOff``.
    public func stop() async {
        guard events.state == .poweredOn else { return }
        if scanner.isScanning { await stopScan() }
        if advertiser.isAdvertising { await stopAdvertising() }
        for link in connections.all {
            await pipeline.attempt(.disconnect(handle: link.handle.rawValue, reason: 0x15), completes: false,
                                   "disconnecting \(link.handle) on stop")
        }
        await host.stop()
        controllerLost()
    }

    /// The address and address type behind an identifier this radio gave a peer.
    public func address(of peer: UUID) -> (address: BluetoothAddress, type: AddressType)? {
        connections.peers.entry(peer).map { ($0.address, $0.type) }
    }

    /// The identifier of the peer at `address`, so it can be connected without a scan (when its
    /// address type is known).
    public func identify(_ address: BluetoothAddress, type: AddressType) -> UUID {
        identifyPeer(address, type: type)
    }

    /// The radio's state: unknown before ``start()``, powered on while the controller runs,
    /// powered off after ``stop()`` or when the transport closes.
    public var currentState: ManagerState { events.state }

    /// The transport closed or the radio stopped: everything ends.
    func controllerLost() {
        guard events.state == .poweredOn else { return }
        pipeline.stop()
        owned.cancelAll()
        scanner.end(throwing: BleuError.bluetoothPoweredOff)
        _ = advertiser.stopped()
        for handle in connections.handles { linkClosed(handle, reason: .poweredOff) }
        connections.controllerLost(.bluetoothPoweredOff)
        events.setState(.poweredOff)
    }

    /// Throws unless the radio is powered on.
    func requirePoweredOn() throws(BleuError) {
        switch events.state {
        case .poweredOn: return
        case .poweredOff: throw .bluetoothPoweredOff
        case .unauthorized: throw .bluetoothUnauthorized
        case let state: throw .bluetoothUnavailable(state)
        }
    }

    // MARK: Inbound

    func receive(_ item: HCIHost.Inbound) {
        logger.trace("in: \(item)")
        switch item {
        case .event(let event): handle(event)
        case .frame(let received): route(received.frame, on: ConnectionHandle(received.handle))
        case let .framesCompleted(handle, tags): framesCompleted(ConnectionHandle(handle), tags)
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
            if status == 0 { linkClosed(ConnectionHandle(handle), reason: DisconnectReason(hciCode: reason)) }
        case .le(.remoteConnectionParameterRequest(let handle, let min, let max, let latency, let timeout)):
            let parameters = LEConnectionParameters(intervalMin: min, intervalMax: max, maxLatency: latency,
                                                    supervisionTimeout: timeout)
            pipeline.issue(.leRemoteConnectionParameterRequestReply(handle: handle, parameters), completes: true,
                           "accepting the peer's connection parameters on \(ConnectionHandle(handle))")
        case .le(.connectionUpdateComplete), .le(.phyUpdateComplete), .le(.dataLengthChange):
            if case .le(let meta) = event { linkLayer.apply(meta) }
        case let .encryptionChange(status, handle, enabled):
            encryptionChanged(ConnectionHandle(handle), status: status, enabled: enabled != 0)
        case let .encryptionKeyRefreshComplete(status, handle):
            encryptionChanged(ConnectionHandle(handle), status: status, enabled: true)
        case let .le(.longTermKeyRequest(handle, random, ediv)):
            longTermKeyRequested(ConnectionHandle(handle), random: random, ediv: ediv)
        case .hardwareError:
            spawn { radio in await radio.stop() }
        default:
            break
        }
    }

    /// An L2CAP frame: ATT, LE signalling, SMP, or a credit-based channel.
    private func route(_ frame: L2CAPBFrame, on handle: ConnectionHandle) {
        guard connections[handle] != nil else { return }
        let payload = frame.payload
        switch frame.channelID {
        case L2CAPBFrame.attCID:
            pipeline.attTraffic?.countReceived(payload.count)
            attReceived(payload, on: handle)
        case L2CAPBFrame.leSignalingCID: signalReceived(payload, on: handle)
        case L2CAPBFrame.smpCID: smpReceived(payload, on: handle)
        default:
            channelFrameReceived(payload, cid: frame.channelID, on: handle)
        }
    }

    /// The controller sent frames of a link: flow control moves on for writes without response
    /// and notifications, and senders waiting for the host's ACL queue go on.
    private func framesCompleted(_ handle: ConnectionHandle, _ tags: [Int]) {
        guard let link = connections[handle] else { return }
        let writes = tags.count { $0 == FrameKind.writeCommand.rawValue }
        let notifications = tags.count { $0 == FrameKind.notification.rawValue }
        if client.writeCommandsSent(writes, on: handle) { events.central.yield(.readyToSendWriteWithoutResponse(link.peer)) }
        if server.updates.notificationsSent(notifications, on: handle) { events.peripheral.yield(.readyToUpdateSubscribers) }
        pipeline.aclRoom.signal()
        pumpUpdates(handle)
    }

    // MARK: Owned work

    /// Runs `work` on the radio in a task the radio owns (after `delay`, when given): kept in
    /// ``owned`` until it ends, cancelled when the controller is lost. A delayed task does not
    /// keep the radio alive while it waits.
    func spawn(after delay: Duration? = nil, _ work: @escaping @Sendable (isolated HCIRadio) async -> Void) {
        let id = owned.reserve()
        owned.started(id, Task { [weak self, clock] in
            if let delay {
                do { try await clock.sleep(for: delay) } catch { return }
            }
            await self?.runOwned(id, work)
        })
    }

    private func runOwned(_ id: UInt64, _ work: @Sendable (isolated HCIRadio) async -> Void) async {
        await work(self)
        owned.finished(id)
    }

    /// A chore left on the pipeline's chore lane.
    func perform(_ chore: RadioChore) async {
        switch chore {
        case .cancelAttempt(let id):
            cancelAttempt(id, because: .cancelled)
        case .scanConsumerEnded(let id):
            guard scanner.currentID == id else { return }
            await stopScan()
        case let .valueStreamEnded(id, valueHandle, handle):
            client.removeSubscriber(id, valueHandle: valueHandle, on: handle)
        }
    }

    // MARK: Sending

    /// Queues a frame on the pipeline, throwing when there is no such link.
    func sendChecked(_ frame: L2CAPBFrame, on handle: ConnectionHandle, kind: FrameKind = .other) throws {
        guard connections[handle] != nil else { throw BleuError.invalidState(.connectionClosed(handle: handle.rawValue)) }
        pipeline.send(frame, on: handle, kind: kind)
    }
}
