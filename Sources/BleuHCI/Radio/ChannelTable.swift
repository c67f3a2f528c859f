import BleuCore
import Foundation

/// The radio's LE credit-based channels (Core Spec Vol 3 Part A §4.22–4.24, §10.2): the PSMs
/// published on our side, each open channel by link and CID — its ``CreditBasedChannel`` and
/// what waits on it (SDUs for the reader, a reader, senders waiting for credits or their turn)
/// — and the opens we asked a peer for.
///
/// A value the radio owns: it decides and keeps state, and resumes the continuations it holds;
/// the radio sends the signalling it calls for.
struct ChannelTable {
    /// The dynamic LE PSM range (§4.22): 0x0080–0x00FF.
    static let dynamicPSMs: ClosedRange<UInt16> = 0x0080...0x00FF
    /// The dynamic LE channel identifiers (§2.1): 0x0040–0x007F.
    static let dynamicCIDs: ClosedRange<UInt16> = 0x0040...0x007F

    /// What the radio keeps per open channel.
    struct Channel {
        var channel: CreditBasedChannel
        let psm: UInt16
        /// Complete SDUs the application has not read yet; each owes the peer one credit.
        var sdus: [Data] = []
        var reader: CheckedContinuation<Data?, any Error>?
        var creditWaiters: [CheckedContinuation<Void, any Error>] = []
        var sending = false
        var sendWaiters: [CheckedContinuation<Void, Never>] = []
        var end = End.open
    }

    /// Whether a channel is open, closed in order, or ended by an error.
    enum End {
        case open
        case closed
        case failed(any Error)

        var isOpen: Bool {
            if case .open = self { true } else { false }
        }
    }

    /// What a K-frame from the peer did.
    enum Received {
        /// Not for an open channel: dropped.
        case ignored
        /// Part of an SDU, or an SDU buffered for the reader.
        case taken(creditDue: Bool)
        /// An SDU for the waiting reader: give the peer its credit back, then resume the reader.
        case delivered(Data, to: CheckedContinuation<Data?, any Error>)
        /// The peer broke the channel's rules.
        case violation(BleuError.ChannelViolation)
    }

    /// What the consumer of a channel's SDUs gets next.
    enum NextSDU {
        /// An SDU (the peer is owed its credit back).
        case sdu(Data)
        /// The channel closed in order (`nil`), or ended with an error.
        case end((any Error)?)
        /// Nothing yet: wait (``read(_:_:)``).
        case wait
    }

    /// PSM → whether the channel requires encryption.
    private var published: [UInt16: Bool] = [:]
    private(set) var channels: [ChannelKey: Channel] = [:]
    private var pendingOpens: [PendingSignal: PendingChannelOpen] = [:]
    /// The parameters we offer: our MTU, MPS and initial credits.
    let localMTU: Int, localMPS: Int, localCredits: Int

    init(localMTU: Int, localMPS: Int, localCredits: Int) {
        self.localMTU = localMTU
        self.localMPS = localMPS
        self.localCredits = localCredits
    }

    // MARK: PSMs

    /// Publishes the first free dynamic PSM; `nil` when every one is published.
    mutating func publish(requiresEncryption: Bool) -> UInt16? {
        guard let psm = Self.dynamicPSMs.first(where: { published[$0] == nil }) else { return nil }
        published[psm] = requiresEncryption
        return psm
    }

    /// Unpublishes `psm`; `false` when it was not published.
    mutating func unpublish(_ psm: UInt16) -> Bool {
        published.removeValue(forKey: psm) != nil
    }

    // MARK: Opening

    /// A free local CID on the link (neither open nor asked for), if any.
    func freeCID(on handle: ConnectionHandle) -> UInt16? {
        let used = Set(channels.keys.filter { $0.handle == handle }.map(\.cid))
            .union(pendingOpens.filter { $0.key.handle == handle }.map(\.value.localCID))
        return Self.dynamicCIDs.first { !used.contains($0) }
    }

    private func newChannel(local: UInt16, remote: UInt16, remoteMTU: UInt16, remoteMPS: UInt16, credits: UInt16)
        -> CreditBasedChannel {
        CreditBasedChannel(localCID: local, remoteCID: remote, localMTU: localMTU, localMPS: localMPS,
                           remoteMTU: Int(remoteMTU), remoteMPS: Int(remoteMPS), sendCredits: Int(credits),
                           receiveCredits: localCredits)
    }

    /// Answers a peer's LE Credit Based Connection Request (§4.22) on a link that is
    /// `encrypted` or not; returns the response and, when accepted, the new channel.
    mutating func accept(psm: UInt16, remoteCID: UInt16, mtu: UInt16, mps: UInt16, credits: UInt16, encrypted: Bool,
                         on handle: ConnectionHandle) -> (response: L2CAPSignal.Command, opened: ChannelKey?) {
        func refuse(_ result: UInt16) -> (L2CAPSignal.Command, ChannelKey?) {
            (.leCreditBasedConnectionResponse(destinationCID: 0, mtu: 0, mps: 0, initialCredits: 0, result: result), nil)
        }
        guard let requiresEncryption = published[psm] else { return refuse(0x0002) }  // SPSM not supported
        guard encrypted || !requiresEncryption else { return refuse(0x0008) }  // insufficient encryption
        guard Self.dynamicCIDs.contains(remoteCID) else { return refuse(0x0009) }  // invalid source CID
        guard key(on: handle, remoteCID: remoteCID) == nil else { return refuse(0x000A) }  // source CID already allocated
        guard mtu >= 23, (23...65533).contains(mps) else { return refuse(0x000B) }  // unacceptable parameters
        guard let local = freeCID(on: handle) else { return refuse(0x0004) }  // no resources
        let key = ChannelKey(handle: handle, cid: local)
        channels[key] = Channel(channel: newChannel(local: local, remote: remoteCID, remoteMTU: mtu, remoteMPS: mps,
                                                    credits: credits), psm: psm)
        return (.leCreditBasedConnectionResponse(destinationCID: local, mtu: UInt16(localMTU), mps: UInt16(localMPS),
                                                 initialCredits: UInt16(localCredits), result: 0), key)
    }

    /// Our request to open a channel, sent as `signal`.
    mutating func requested(_ open: PendingChannelOpen, as signal: PendingSignal) {
        pendingOpens[signal] = open
    }

    /// Takes the open that `signal` asked for, when it still waits.
    mutating func takeOpen(_ signal: PendingSignal) -> PendingChannelOpen? {
        pendingOpens.removeValue(forKey: signal)
    }

    /// The peer accepted our open with these parameters: the channel, or why they are invalid.
    mutating func opened(_ open: PendingChannelOpen, on handle: ConnectionHandle, destinationCID: UInt16, mtu: UInt16,
                         mps: UInt16, credits: UInt16) -> Result<ChannelKey, BleuError> {
        guard Self.dynamicCIDs.contains(destinationCID), mtu >= 23, (23...65533).contains(mps) else {
            return .failure(.invalidData(.channelParameters(cid: destinationCID, mtu: mtu, mps: mps)))
        }
        let key = ChannelKey(handle: handle, cid: open.localCID)
        channels[key] = Channel(channel: newChannel(local: open.localCID, remote: destinationCID, remoteMTU: mtu,
                                                    remoteMPS: mps, credits: credits), psm: open.psm)
        return .success(key)
    }

    // MARK: Open channels

    /// Our channel on the link whose peer end is `remoteCID`.
    func key(on handle: ConnectionHandle, remoteCID: UInt16) -> ChannelKey? {
        channels.first { $0.key.handle == handle && $0.value.channel.remoteCID == remoteCID }?.key
    }

    /// The peer gave credits (Flow Control Credit): senders waiting for one go on.
    mutating func addCredits(_ credits: UInt16, to key: ChannelKey) throws(BleuError.ChannelViolation) {
        try channels[key]?.channel.addSendCredits(Int(credits))
        let waiters = channels[key]?.creditWaiters ?? []
        channels[key]?.creditWaiters = []
        for waiter in waiters { waiter.resume() }
    }

    /// A K-frame for our CID on the link. A K-frame that does not end an SDU gets its credit
    /// back at once (the partial SDU is bounded by our MTU); the one that ends it, once the
    /// application took the SDU — so complete SDUs waiting for the application are bounded by
    /// our credits.
    mutating func receive(_ payload: [UInt8], for key: ChannelKey) -> Received {
        guard var state = channels[key], state.end.isOpen else { return .ignored }
        defer { channels[key] = state }
        do {
            guard let (sdu, _) = try state.channel.receive(payload) else { return .taken(creditDue: true) }
            if let reader = state.reader {
                state.reader = nil
                return .delivered(Data(sdu), to: reader)
            }
            state.sdus.append(Data(sdu))
            return .taken(creditDue: false)
        } catch {
            return .violation(error)
        }
    }

    /// Gives the peer `credits` more on an open channel; `false` when it is not open.
    mutating func grant(_ credits: Int, on key: ChannelKey) -> Bool {
        guard credits > 0, channels[key]?.end.isOpen == true else { return false }
        channels[key]?.channel.grantReceiveCredits(credits)
        return true
    }

    /// The next SDU for the channel's reader, or its end, or `wait`; throws when a reader waits
    /// already (the incoming data has one reader).
    mutating func nextSDU(_ key: ChannelKey) throws -> NextSDU {
        guard var state = channels[key] else { return .end(nil) }
        if !state.sdus.isEmpty {
            let next = state.sdus.removeFirst()
            channels[key] = state
            return .sdu(next)
        }
        switch state.end {
        case .open: break
        case .closed:
            channels[key] = nil
            return .end(nil)
        case .failed(let error):
            channels[key] = nil
            return .end(error)
        }
        guard state.reader == nil else { throw BleuError.invalidState(.singleConsumer) }
        return .wait
    }

    mutating func read(_ key: ChannelKey, _ reader: CheckedContinuation<Data?, any Error>) {
        channels[key]?.reader = reader
    }

    // MARK: Sending

    /// The K-frame payloads of an SDU on an open channel.
    func segments(of data: Data, on key: ChannelKey) throws -> [[UInt8]] {
        guard let state = channels[key], state.end.isOpen else { throw BleuError.invalidState(.channelClosed) }
        guard let segments = state.channel.segments(of: Array(data)) else {
            throw BleuError.valueTooLong(length: data.count, maximum: state.channel.remoteMTU)
        }
        return segments
    }

    /// Takes the channel's send turn: `false` when another SDU is being sent (``waitForTurn``).
    mutating func takeTurn(_ key: ChannelKey) -> Bool {
        guard channels[key]?.sending != true else { return false }
        channels[key]?.sending = true
        return true
    }

    mutating func waitForTurn(_ key: ChannelKey, _ waiter: CheckedContinuation<Void, Never>) {
        channels[key]?.sendWaiters.append(waiter)
    }

    /// Hands the send turn to the next waiting sender, or frees it.
    mutating func endTurn(_ key: ChannelKey) {
        guard var state = channels[key] else { return }
        if state.sendWaiters.isEmpty { state.sending = false } else { state.sendWaiters.removeFirst().resume() }
        channels[key] = state
    }

    /// Spends one of the peer's credits: `true` when there was one, `false` to wait for one
    /// (``waitForCredit(_:_:)``); throws once the channel ended.
    mutating func spendCredit(_ key: ChannelKey) throws -> Bool {
        guard var state = channels[key], state.end.isOpen else {
            if case .failed(let error) = channels[key]?.end { throw error }
            throw BleuError.invalidState(.channelClosed)
        }
        guard state.channel.spendCredit() else { return false }
        channels[key] = state
        return true
    }

    mutating func waitForCredit(_ key: ChannelKey, _ waiter: CheckedContinuation<Void, any Error>) {
        channels[key]?.creditWaiters.append(waiter)
    }

    // MARK: Ending

    /// Ends an open channel: waiting senders fail, the reader gets what is buffered, then the end
    /// (`nil`: closed in order).
    mutating func end(_ key: ChannelKey, error: (any Error)?) {
        guard var state = channels[key], state.end.isOpen else { return }
        state.end = error.map { .failed($0) } ?? .closed
        let waiters = state.creditWaiters
        state.creditWaiters = []
        let reader = state.reader
        state.reader = nil
        channels[key] = state
        let failure = error ?? BleuError.invalidState(.channelClosed)
        for waiter in waiters { waiter.resume(throwing: failure) }
        if let reader {
            channels[key] = nil
            if let error { reader.resume(throwing: error) } else { reader.resume(returning: nil) }
        }
    }

    /// A link went down: its channels end with `error`, its pending opens fail.
    mutating func linkClosed(_ handle: ConnectionHandle, error: BleuError) {
        for key in channels.keys where key.handle == handle { end(key, error: error) }
        for (signal, open) in pendingOpens where signal.handle == handle {
            pendingOpens[signal] = nil
            open.continuation.resume(throwing: error)
        }
    }
}
