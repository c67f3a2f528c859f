import BleuCore
import DequeModule
import Foundation
import Synchronization

/// A hub's end of one client's connection. It knows nothing of sockets: a transport feeds it
/// the bytes that arrive (``receive(_:)``, from one thread at a time) and writes, in order,
/// what it hands to `send`.
///
/// For each manager the client creates, the session creates the same manager on the hub's
/// bus and runs the client's calls on it, in the order they arrive, through the same entry
/// points the CoreBluetooth-shaped API uses: so a client's manager behaves as it would in the
/// hub's process. Results, pushed events and stream ends are sent from inside the engine, in
/// the engine's order.
///
/// A client that breaks the protocol (a malformed frame, a number it already used, a frame
/// before its hello) is dropped with one log line; nothing else on the hub notices. A client
/// that goes away, politely or not, leaves the air: its links are lost (its peers see a
/// supervision timeout), its scans and advertising stop. Managers created with a restore
/// identifier are kept for a successor instead, as the system keeps them for an app.
package final class HubSession: Sendable {
    /// Most managers, streams and channels one client may hold; past them it is dropped.
    package static let maximumManagers = 256
    package static let maximumStreams = 4096
    package static let maximumChannels = 256

    private struct State {
        var decoder = HubFrameDecoder()
        /// Frames taken and not yet handled.
        var frames: Deque<(HubProtocol.Kind, [UInt8])> = []
        var greeted = false
        var ended = false
        var centrals: [UInt32: EmulatedCentralManager] = [:]
        var peripherals: [UInt32: EmulatedPeripheralManager] = [:]
        /// Every stream number the client has opened and not released.
        var streams: Set<UInt32> = []
        var pulled: [UInt32: HubPuller] = [:]
        var subscriptions: [UInt32: EventSubscription] = [:]
        var channels: [UInt32: HubChannelEnd] = [:]
        /// The number each kept channel has: a channel two event streams report is one channel.
        var channelNumbers: [ObjectIdentifier: UInt32] = [:]
        var nextChannel: UInt32 = 1
        /// Pushed events whose handling the client has yet to confirm.
        var receipts: [UInt64: @Sendable () -> Void] = [:]
        var nextReceipt: UInt64 = 1
        var passkeys: [UInt64: CheckedContinuation<UInt32?, Never>] = [:]
        var nextPasskey: UInt64 = 1
        /// The client's request → the hub bus's operation, while it runs (for cancellation).
        var operations: [UInt64: OperationID] = [:]
    }

    /// The hub's medium.
    package let bus: EmulatorBus
    /// How the hub's log names this client.
    package let name: String
    private let token: String?
    private let state = Locked(State())
    private let sendBytes: @Sendable ([UInt8]) -> Void
    private let closeTransport: @Sendable () -> Void
    private let isBackedUp: @Sendable () -> Bool
    private let log: @Sendable (String) -> Void

    /// - Parameters:
    ///   - token: the secret a client's hello must carry, if any.
    ///   - name: how log lines name the client (its address).
    ///   - send: writes bytes to the client, in call order.
    ///   - close: closes the transport (after the session dropped the client).
    ///   - log: takes the session's log lines.
    ///   - isBackedUp: whether so much waits to be sent to the client that it must have stopped
    ///     reading: then the session drops it before doing more of its requests' work.
    package init(bus: EmulatorBus, token: String?, name: String, send: @escaping @Sendable ([UInt8]) -> Void,
                 close: @escaping @Sendable () -> Void, log: @escaping @Sendable (String) -> Void,
                 isBackedUp: @escaping @Sendable () -> Bool = { false }) {
        self.bus = bus
        self.token = token
        self.name = name
        sendBytes = send
        closeTransport = close
        self.isBackedUp = isBackedUp
        self.log = log
    }

    // MARK: The transport's side

    /// Takes bytes from the client and does every request they complete.
    package func receive(_ bytes: some Collection<UInt8>) {
        take(bytes)
        while handleNextFrame() {}
    }

    /// Takes bytes from the client: the frames they complete wait for ``handleNextFrame()``. A
    /// transport serving several clients takes one frame of each in turn, so that a client
    /// flooding the hub with requests waits behind the others.
    package func take(_ bytes: some Collection<UInt8>) {
        do {
            try state.withLock { state throws(PacketDecodingError) in
                guard !state.ended else { return }
                state.frames.append(contentsOf: try state.decoder.feed(bytes))
            }
        } catch {
            drop("malformed frame: \(error)")
        }
    }

    /// Handles the oldest frame taken; returns whether another waits.
    @discardableResult
    package func handleNextFrame() -> Bool {
        guard let (kind, payload) = state.withLock({ $0.ended ? nil : $0.frames.popFirst() }) else { return false }
        do throws(PacketDecodingError) {
            if !state.withLock({ $0.greeted }) {
                guard kind == .hello else {
                    drop("a \(kind) frame before the hello")
                    return false
                }
                try greet(try HubProtocol.decodeHello(payload))
            } else {
                guard kind == .request else {
                    drop("a \(kind) frame from a client")
                    return false
                }
                guard !isBackedUp() else {
                    drop("not reading: its answers pile up unsent")
                    return false
                }
                let (id, request) = try HubProtocol.decodeRequest(payload)
                guard !request.needsReply || id != 0 else {
                    drop("request number 0 for a call that needs a reply")
                    return false
                }
                handle(id, request)
            }
        } catch {
            drop("malformed \(kind) frame: \(error)")
            return false
        }
        return state.withLock { !$0.ended && !$0.frames.isEmpty }
    }

    /// The transport closed: the client is gone.
    package func connectionClosed() {
        end()
    }

    private var isEnded: Bool { state.withLock { $0.ended } }

    /// Whether the client's hello was accepted.
    package var isGreeted: Bool { state.withLock { $0.greeted } }

    private func greet(_ hello: (version: UInt16, token: String?)) throws(PacketDecodingError) {
        guard hello.version == HubProtocol.version else {
            return refuse("protocol version \(hello.version); this hub speaks version \(HubProtocol.version)")
        }
        if let token, !Self.constantTimeEqual(Array(token.utf8), Array((hello.token ?? "").utf8)) {
            return refuse(hello.token == nil ? "this hub needs a token" : "wrong token")
        }
        state.withLock { $0.greeted = true }
        sendBytes(HubProtocol.welcome(configuration: bus.configuration, seed: bus.seed))
    }

    private func refuse(_ reason: String) {
        log("hub: refused \(name): \(reason)")
        sendBytes(HubProtocol.refused(reason))
        end()
        closeTransport()
    }

    /// Drops a client that broke the protocol, or whose transport saw it misbehave (it stopped
    /// reading, it never said hello): one log line, then it leaves as if its connection closed.
    package func drop(_ reason: String) {
        guard !isEnded else { return }
        log("hub: dropped \(name): \(reason)")
        end()
        closeTransport()
    }

    private static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        var difference = UInt8(truncatingIfNeeded: a.count ^ b.count)
        for index in 0..<max(a.count, b.count) {
            difference |= (index < a.count ? a[index] : 0) ^ (index < b.count ? b[index] : 0)
        }
        return difference == 0
    }

    /// The client is gone: its managers leave the air, everything it held is let go.
    private func end() {
        let taken: State? = state.withLock { state in
            guard !state.ended else { return nil }
            state.ended = true
            defer {
                state.frames = []
                state.centrals = [:]
                state.peripherals = [:]
                state.pulled = [:]
                state.subscriptions = [:]
                state.channels = [:]
                state.channelNumbers = [:]
                state.receipts = [:]
                state.passkeys = [:]
                state.operations = [:]
            }
            return state
        }
        guard let taken else { return }
        for puller in taken.pulled.values { puller.cancel() }
        for channel in taken.channels.values {
            channel.input.cancel()
            channel.channel.closeNow()
        }
        for handled in taken.receipts.values { handled() }
        for waiter in taken.passkeys.values { waiter.resume(returning: nil) }
        for operation in taken.operations.values { bus.cancel(operation) }
        for central in taken.centrals.values where central.restoreIdentifier == nil { central.vanish() }
        for peripheral in taken.peripherals.values where peripheral.restoreIdentifier == nil { peripheral.vanish() }
        // `taken` goes here, and the managers with it: each detaches (a vanished one's links are
        // lost already, so they end at their supervision timeout).
    }

    // MARK: Sending

    private func reply(_ id: UInt64, _ result: Result<HubValue, any Error>) {
        let ended = state.withLock { state in
            state.operations.removeValue(forKey: id)
            return state.ended
        }
        guard !ended else { return }
        switch result {
        case .success(let value): sendBytes(HubProtocol.reply(id, .success(value)))
        case .failure(let error): sendBytes(HubProtocol.reply(id, .failure(BleuError(crossing: error))))
        }
    }

    private func push(_ push: HubPush) {
        guard !isEnded else { return }
        sendBytes(HubProtocol.push(push))
    }

    /// A new operation number on the hub's bus for the client's request `id`.
    private func operation(for id: UInt64) -> OperationID {
        let operation = bus.newOperationID()
        state.withLock { $0.operations[id] = operation }
        return operation
    }

    // MARK: Requests

    private func handle(_ id: UInt64, _ request: HubRequest) {
        let done: Completion<HubValue> = { [weak self] result in self?.reply(id, result) }
        switch request {
        case .attachCentral(let number, let restore, let mtu, let device, let passkey):
            guard claimManager(number) else { return }
            var options = EmulatedCentralManager.Options(attMTU: mtu, deviceIdentifier: device)
            if passkey { options.passkeyHandler = passkeyHandler(for: number) }
            let central = EmulatedCentralManager(bus: bus, restoreIdentifier: restore, options: options)
            state.withLock { $0.centrals[number] = central }
        case .attachPeripheral(let number, let restore, let mtu, let device, let distance):
            guard claimManager(number) else { return }
            let peripheral = EmulatedPeripheralManager(
                bus: bus, restoreIdentifier: restore, options: .init(attMTU: mtu, deviceIdentifier: device, distance: distance))
            state.withLock { $0.peripherals[number] = peripheral }
        case .detach(let number):
            // Released outside the lock: a manager's deinit works on the engine.
            let released: (EmulatedCentralManager?, EmulatedPeripheralManager?) = state.withLock {
                ($0.centrals.removeValue(forKey: number), $0.peripherals.removeValue(forKey: number))
            }
            withExtendedLifetime(released) {}
        case .central(let number, let call):
            guard let central = state.withLock({ $0.centrals[number] }) else {
                return done(.failure(BleuError.invalidState(.managerGone)))
            }
            run(call, on: central, number: number, id: id, done: done)
        case .peripheral(let number, let call):
            guard let peripheral = state.withLock({ $0.peripherals[number] }) else {
                return done(.failure(BleuError.invalidState(.managerGone)))
            }
            run(call, on: peripheral, id: id, done: done)
        case .bus(let call):
            run(call, done: done)
        case .next(let stream):
            guard let puller = state.withLock({ $0.pulled[stream] }) else { return done(.success(.end)) }
            puller.pull(done)
        case .release(let stream):
            let released: (HubPuller?, EventSubscription?) = state.withLock { state in
                state.streams.remove(stream)
                return (state.pulled.removeValue(forKey: stream), state.subscriptions.removeValue(forKey: stream))
            }
            released.0?.cancel()
            withExtendedLifetime(released) {}
        case .channel(let number, let call):
            guard let end = state.withLock({ $0.channels[number] }) else {
                return done(.failure(BleuError.invalidState(.channelClosed)))
            }
            switch call {
            case .send(let data): end.channel.send(data, id: operation(for: id)) { done($0.map { .none }) }
            case .next: end.input.pull(done)
            case .close:
                let removed: HubChannelEnd? = state.withLock { state in
                    state.channelNumbers.removeValue(forKey: ObjectIdentifier(end.channel))
                    return state.channels.removeValue(forKey: number)
                }
                removed?.input.cancel()
                end.channel.closeNow()
                done(.success(.none))
            case .release(let crossings):
                // The hub lets go once every crossing is released; the channel closes when
                // nothing else (an event not yet pulled) holds it, as an object no one holds.
                let removed: HubChannelEnd? = state.withLock { state in
                    guard var kept = state.channels[number] else { return nil }
                    kept.crossings -= min(kept.crossings, crossings)
                    guard kept.crossings == 0 else {
                        state.channels[number] = kept
                        return nil
                    }
                    state.channelNumbers.removeValue(forKey: ObjectIdentifier(kept.channel))
                    return state.channels.removeValue(forKey: number)
                }
                removed?.input.cancel()
                withExtendedLifetime(removed) {}
            }
        case .handled(let receipt):
            state.withLock { $0.receipts.removeValue(forKey: receipt) }?()
        case .passkeyEntered(let request, let passkey):
            state.withLock { $0.passkeys.removeValue(forKey: request) }?.resume(returning: passkey)
        case .cancel(let request):
            if let operation = state.withLock({ $0.operations[request] }) { bus.cancel(operation) }
        }
    }

    private func claimManager(_ number: UInt32) -> Bool {
        let problem: String? = state.withLock { state in
            if state.centrals[number] != nil || state.peripherals[number] != nil { return "manager number \(number) is in use" }
            if state.centrals.count + state.peripherals.count >= Self.maximumManagers { return "more than \(Self.maximumManagers) managers" }
            return nil
        }
        if let problem { drop(problem) }
        return problem == nil
    }

    /// Claims a stream number the client chose; a number in use, or one too many, drops it.
    private func claimStream(_ number: UInt32) -> Bool {
        let problem: String? = state.withLock { state in
            if state.streams.contains(number) { return "stream number \(number) is in use" }
            if state.streams.count >= Self.maximumStreams { return "more than \(Self.maximumStreams) streams" }
            state.streams.insert(number)
            return nil
        }
        if let problem { drop(problem) }
        return problem == nil
    }

    private func passkeyHandler(for manager: UInt32) -> PasskeyHandler {
        { [weak self] request in
            guard let self else { return nil }
            return await withCheckedContinuation { (continuation: CheckedContinuation<UInt32?, Never>) in
                let id: UInt64? = self.state.withLock { state in
                    guard !state.ended else { return nil }
                    let id = state.nextPasskey
                    state.nextPasskey += 1
                    state.passkeys[id] = continuation
                    return id
                }
                guard let id else { return continuation.resume(returning: nil) }
                self.push(.passkeyRequest(id: id, manager: manager, request))
            }
        }
    }

    /// Keeps a pulled stream under the client's number.
    private func keep(_ puller: HubPuller, as stream: UInt32) {
        state.withLock { $0.pulled[stream] = puller }
    }

    /// The sink of a pushed value stream: elements and its end go to the client under `stream`.
    private func valueSink<Element>(_ stream: UInt32, _ wrap: @escaping @Sendable (Element) -> HubElement)
        -> @Sendable (StreamDelivery<Element>) -> Void
    {
        { [weak self] delivery in
            switch delivery {
            case .element(let element): self?.push(.element(stream: stream, wrap(element), receipt: nil))
            case .end(let error): self?.push(.end(stream: stream, error.map(BleuError.init(crossing:))))
            }
        }
    }

    /// A peripheral event as it crosses: an opened channel is kept under a new number.
    private func crossing(_ event: PeripheralEvent) -> HubPeripheralEvent {
        guard case .l2capChannelOpened(let opened) = event else { return .event(event) }
        return .channelOpened(keep(opened))
    }

    /// Keeps an L2CAP channel end for the client and numbers it.
    private func keep(_ channel: any L2CAPChannel) -> HubChannel {
        // The hub's bus is local: its channels are the emulator's own.
        let local = channel as! EmulatedL2CAPChannel
        let number: UInt32 = state.withLock { state in
            if let number = state.channelNumbers[ObjectIdentifier(local)] {
                state.channels[number]?.crossings &+= 1
                return number
            }
            let number = state.nextChannel
            state.nextChannel &+= 1
            if state.channels.count < Self.maximumChannels {
                state.channels[number] = HubChannelEnd(channel: local, input: HubPuller(local.incoming) { .data($0) }, crossings: 1)
                state.channelNumbers[ObjectIdentifier(local)] = number
            }
            return number
        }
        return HubChannel(number: number, psm: channel.psm, peer: channel.peer)
    }

    // MARK: Central calls

    private func run(_ call: CentralCall, on central: EmulatedCentralManager, number: UInt32, id: UInt64,
                     done: @escaping Completion<HubValue>) {
        let none: Completion<Void> = { done($0.map { .none }) }
        do {
            switch call {
            case .state: done(.success(.state(central.currentState)))
            case .events(let stream, let push):
                guard claimStream(stream) else { return }
                if push {
                    let subscription = central.events { [weak self] event in
                        self?.push(.element(stream: stream, .central(event), receipt: nil))
                    }
                    state.withLock { $0.subscriptions[stream] = subscription }
                } else {
                    keep(HubPuller(central.events()) { .central($0) }, as: stream)
                }
                done(.success(.none))
            case .scan(let options, let stream, let push):
                guard claimStream(stream) else { return }
                if push {
                    try central.scan(options, sink: valueSink(stream) { .advertisement($0) })
                } else {
                    keep(HubPuller(try central.scanNow(options)) { .advertisement($0) }, as: stream)
                }
                done(.success(.none))
            case .stopScan:
                central.stopScanning()
                done(.success(.none))
            case .connect(let peer, let timeout):
                central.connect(peer, timeout: timeout, id: operation(for: id), completion: none)
            case .cancelConnection(let peer):
                central.cancelConnection(peer, id: operation(for: id), completion: none)
            case .isConnected(let peer): done(.success(.bool(central.isConnectedNow(peer))))
            case .retrievePeripherals(let peers):
                done(.success(.peripherals(central.retrievePeripheralsNow(withIdentifiers: peers))))
            case .retrieveConnectedPeripherals(let services):
                done(.success(.peripherals(central.retrieveConnectedPeripheralsNow(withServices: services))))
            case .discoverServices(let filter, let peer):
                central.discoverServices(filter, on: peer, id: operation(for: id)) { done($0.map { .services($0) }) }
            case .discoverIncludedServices(let filter, let service):
                central.discoverIncludedServices(filter, for: service, id: operation(for: id)) { done($0.map { .services($0) }) }
            case .discoverCharacteristics(let filter, let service):
                central.discoverCharacteristics(filter, for: service, id: operation(for: id)) { done($0.map { .characteristics($0) }) }
            case .discoverDescriptors(let characteristic):
                central.discoverDescriptors(for: characteristic, id: operation(for: id)) { done($0.map { .descriptors($0) }) }
            case .read(let characteristic):
                central.read(characteristic, id: operation(for: id)) { done($0.map { .data($0) }) }
            case .write(let value, let characteristic, .withResponse):
                central.write(value, to: characteristic, id: operation(for: id), completion: none)
            case .write(let value, let characteristic, .withoutResponse):
                try central.writeWithoutResponseNow(value, to: characteristic)
                done(.success(.none))
            case .canSendWriteWithoutResponse(let peer):
                done(.success(.bool(central.canSendWriteWithoutResponseNow(to: peer))))
            case .readDescriptor(let descriptor):
                central.read(descriptor, id: operation(for: id)) { done($0.map { .data($0) }) }
            case .writeDescriptor(let value, let descriptor):
                central.write(value, to: descriptor, id: operation(for: id), completion: none)
            case .subscribe(let characteristic, let stream, let push):
                guard claimStream(stream) else { return }
                if push {
                    central.subscribe(to: characteristic, id: operation(for: id), sink: valueSink(stream) { .data($0) }, completion: none)
                } else {
                    central.subscribe(to: characteristic, id: operation(for: id)) { [weak self] result in
                        done(result.map { values in
                            self?.keep(HubPuller(values) { .data($0) }, as: stream)
                            return .none
                        })
                    }
                }
            case .unsubscribe(let characteristic):
                central.unsubscribe(from: characteristic, id: operation(for: id), completion: none)
            case .attMTU(let peer): done(.success(.int(try central.attMTUNow(for: peer))))
            case .maximumWriteValueLength(let peer, let type):
                done(.success(.int(try central.maximumWriteValueLengthNow(for: peer, type: type))))
            case .readRSSI(let peer): done(.success(.int(try central.readRSSINow(of: peer))))
            case .securityLevel(let peer): done(.success(.security(central.securityLevelNow(of: peer))))
            case .pair(let peer, let minimum):
                central.pair(peer, minimum: minimum, id: operation(for: id), completion: none)
            case .openL2CAPChannel(let psm, let peer):
                central.openL2CAPChannel(psm: psm, on: peer, id: operation(for: id)) { [weak self] result in
                    done(result.flatMap { channel in
                        guard let self else { return .failure(BleuError.invalidState(.managerGone)) }
                        return .success(.channel(self.keep(channel)))
                    })
                }
            case .setPasskeyHandler(let on):
                central.setPasskeyHandler(on ? passkeyHandler(for: number) : nil)
                done(.success(.none))
            }
        } catch {
            done(.failure(error))
        }
    }

    // MARK: Peripheral calls

    private func run(_ call: PeripheralCall, on peripheral: EmulatedPeripheralManager, id: UInt64,
                     done: @escaping Completion<HubValue>) {
        do {
            switch call {
            case .state: done(.success(.state(peripheral.currentState)))
            case .events(let stream, let push):
                guard claimStream(stream) else { return }
                if push {
                    let subscription = peripheral.events { [weak self] event, handled in
                        guard let self else { return handled() }
                        var receipt: UInt64?
                        // Only a write command waits for the application (its slot frees then).
                        if case .writeRequests(let requests) = event, !requests.needsResponse {
                            receipt = self.state.withLock { state -> UInt64? in
                                guard !state.ended else { return nil }
                                let receipt = state.nextReceipt
                                state.nextReceipt += 1
                                state.receipts[receipt] = handled
                                return receipt
                            }
                        }
                        if receipt == nil { handled() }
                        self.push(.element(stream: stream, .peripheral(self.crossing(event)), receipt: receipt))
                    }
                    state.withLock { $0.subscriptions[stream] = subscription }
                } else {
                    keep(HubPuller(peripheral.events()) { [weak self] event in self.map { .peripheral($0.crossing(event)) } },
                         as: stream)
                }
                done(.success(.none))
            case .add(let service): done(.success(.published(try peripheral.addNow(service))))
            case .remove(let service):
                try peripheral.removeNow(service)
                done(.success(.none))
            case .removeAllServices:
                peripheral.removeAllServicesNow()
                done(.success(.none))
            case .startAdvertising(let data, let response, let connectable):
                try peripheral.startAdvertisingNow(data, scanResponse: response, connectable: connectable)
                done(.success(.none))
            case .stopAdvertising:
                peripheral.stopAdvertisingNow()
                done(.success(.none))
            case .isAdvertising: done(.success(.bool(peripheral.isAdvertisingNow)))
            case .respondToRead(let request, let result):
                peripheral.respondNow(to: request, with: result)
                done(.success(.none))
            case .respondToWrite(let request, let result):
                peripheral.respondNow(to: request, with: result)
                done(.success(.none))
            case .updateValue(let value, let characteristic, let centrals):
                done(.success(.bool(peripheral.updateValueNow(value, for: characteristic, onSubscribedCentrals: centrals))))
            case .maximumUpdateValueLength(let central):
                done(.success(.optionalInt(peripheral.maximumUpdateValueLengthNow(for: central))))
            case .securityLevel(let central): done(.success(.security(peripheral.securityLevelNow(of: central))))
            case .pair(let central, let minimum):
                peripheral.pair(central, minimum: minimum, id: operation(for: id)) { done($0.map { .none }) }
            case .publishL2CAPChannel(let encrypted):
                done(.success(.psm(try peripheral.publishL2CAPChannelNow(requiresEncryption: encrypted))))
            case .unpublishL2CAPChannel(let psm):
                try peripheral.unpublishL2CAPChannelNow(psm)
                done(.success(.none))
            case .disconnect(let central):
                peripheral.disconnect(central, id: operation(for: id)) { done($0.map { .none }) }
            case .connectedCentrals: done(.success(.centrals(peripheral.connectedCentralsNow)))
            }
        } catch {
            done(.failure(error))
        }
    }

    // MARK: The medium's controls

    private func run(_ call: BusCall, done: @escaping Completion<HubValue>) {
        let (centrals, peripherals) = state.withLock { ($0.centrals, $0.peripherals) }
        func central(_ number: UInt32) -> EmulatedCentralManager? { centrals[number] }
        switch call {
        case .setCentralState(let number, let state):
            guard let central = central(number) else { return done(.failure(BleuError.invalidState(.managerGone))) }
            bus.setState(state, of: central)
        case .setPeripheralState(let number, let state):
            guard let peripheral = peripherals[number] else { return done(.failure(BleuError.invalidState(.managerGone))) }
            bus.setState(state, of: peripheral)
        case .setDistance(let number, let meters):
            guard let peripheral = peripherals[number] else { return done(.failure(BleuError.invalidState(.managerGone))) }
            bus.setDistance(meters.isFinite ? meters : 0, of: peripheral)
        case .loseLink(let number, let peer):
            guard let central = central(number) else { return done(.failure(BleuError.invalidState(.managerGone))) }
            bus.loseLink(between: central, and: peer)
        case .removeAllBonds: bus.removeAllBonds()
        case .bondCount: return done(.success(.int(bus.bondCount)))
        case .trace: return done(.success(.trace(Self.fitting(bus.trace))))
        case .clearTrace: bus.clearTrace()
        }
        done(.success(.none))
    }

    /// The newest trace events that fit in one frame.
    private static func fitting(_ events: [LinkTraceEvent]) -> [LinkTraceEvent] {
        let budget = HubProtocol.maximumFrameLength - 64
        var writer = HubWriter(capacity: min(budget, events.count * 96))
        var kept = 0
        for event in events.reversed() {
            writer.value(event)
            guard writer.bytes.count <= budget else { break }
            kept += 1
        }
        return Array(events.suffix(kept))
    }
}

/// An L2CAP channel end the hub holds for a client, with its input as a pulled stream.
struct HubChannelEnd: Sendable {
    let channel: EmulatedL2CAPChannel
    let input: HubPuller
    /// Times the channel crossed to the client that the client has not released.
    var crossings: UInt32 = 0
}

/// A stream a client pulls, one element per request: one pull at a time (a second is refused
/// as a second consumer would be), cancelled when the client lets go of the stream.
final class HubPuller: Sendable {
    private let source: @Sendable () async throws -> HubElement?
    private let inFlight = Locked<Task<Void, Never>?>(nil)
    private let released = Atomic<Bool>(false)

    /// - Parameter wrap: the element as it crosses; `nil` ends the stream.
    init<Base: AsyncSequence & Sendable>(_ base: Base, _ wrap: @escaping @Sendable (Base.Element) -> HubElement?) {
        let iterator = IteratorBox(base.makeAsyncIterator())
        source = { try await iterator.next().flatMap(wrap) }
    }

    /// Pulls the next element and calls `done` with it (`.end` at the end).
    func pull(_ done: @escaping Completion<HubValue>) {
        let started: Bool = inFlight.withLock { task in
            guard task == nil, !released.load(ordering: .relaxed) else { return false }
            task = Task { [source, inFlight] in
                let result: Result<HubValue, any Error>
                do {
                    result = .success(try await source().map(HubValue.element) ?? .end)
                } catch {
                    result = .failure(error)
                }
                inFlight.withLock { $0 = nil }
                done(result)
            }
            return true
        }
        if !started {
            done(released.load(ordering: .relaxed) ? .success(.end) : .failure(BleuError.invalidState(.singleConsumer)))
        }
    }

    /// The client let go: a pull in flight ends.
    func cancel() {
        released.store(true, ordering: .relaxed)
        inFlight.withLock { $0 }?.cancel()
    }
}

/// An async iterator behind a reference, for ``HubPuller``.
// @unchecked: `iterator` is only touched by the one pull task HubPuller lets run at a time.
private final class IteratorBox<Iterator: AsyncIteratorProtocol>: @unchecked Sendable {
    private var iterator: Iterator

    init(_ iterator: Iterator) {
        self.iterator = iterator
    }

    func next() async throws -> Iterator.Element? {
        try await iterator.next()
    }
}
