import BleuCore

/// One pairing on one link, in one role (Core Specification Vol 3 Part H §2.3): the Security
/// Manager's state machine as a pure value. The shell feeds it the peer's PDUs and the user's
/// answers, and carries out the ``PairingAction``s it returns: sending PDUs, asking the user,
/// starting encryption. It owns no timer: the shell runs the 30-second SMP timeout.
///
/// Both LE Secure Connections (Just Works, Numeric Comparison, Passkey Entry, Out of Band in one
/// or both directions) and LE legacy pairing (Just Works, Passkey Entry, Out of Band with a
/// shared TK) are implemented. A pairing whose model is OOB without the data it needs fails
/// with OOB Not Available.
public struct PairingSession: Sendable {
    /// The initiator is the central; the responder the peripheral.
    public enum Role: Sendable, Hashable {
        case initiator, responder
    }

    /// Where the pairing stands.
    enum Phase: Sendable, Hashable {
        case idle
        /// The initiator sent its Pairing Request.
        case features
        /// Secure Connections: waiting for the peer's public key.
        case publicKey
        /// Just Works / Numeric Comparison, initiator: waiting for the responder's confirm.
        case commitment
        /// Just Works / Numeric Comparison: waiting for the peer's nonce.
        case nonce
        /// Passkey Entry: waiting for the peer's confirm of the round (and the passkey).
        case passkeyConfirm
        /// Passkey Entry: waiting for the peer's nonce of the round.
        case passkeyNonce
        /// Numeric Comparison: waiting for the user.
        case userCheck
        /// Waiting for the peer's DHKey check.
        case dhKeyCheck
        /// Legacy: waiting for the peer's confirm (and the TK).
        case legacyConfirm
        /// Legacy: waiting for the peer's random value.
        case legacyRandom
        /// Waiting for the link to be encrypted with the new key.
        case encrypting
        /// Waiting for the peer's keys.
        case distributing
        case done
        case failed
    }

    public let role: Role
    let configuration: SecurityManagerConfiguration
    let initiatorAddress: PairingAddress
    let responderAddress: PairingAddress
    let keyPair: PairingKeyPair
    let outOfBand: PairingOutOfBand
    private let random: @Sendable (Int) -> [UInt8]

    private(set) var phase: Phase = .idle
    private var request: PairingFeatures?
    private var response: PairingFeatures?
    private var secureConnections = false
    private var keySize = 16
    private var model = AssociationModel.justWorks

    // Secure Connections
    private var peerKey: (x: [UInt8], y: [UInt8])?
    private var dhKey: [UInt8] = []
    private var localNonce: [UInt8] = []
    private var peerNonce: [UInt8] = []
    private var peerConfirm: [UInt8]?
    private var passkey: UInt32?
    private var round = 0
    /// Passkey Entry: whether the initiator sent this round's confirm.
    private var committed = false
    private var userConfirmed = false
    private var peerCheck: [UInt8]?
    private var longTermKey: [UInt8]?
    /// Out of Band: the initiator's and the responder's `r` (zero for a side whose data did
    /// not cross).
    private var outOfBandValues: (initiator: [UInt8], responder: [UInt8]) = ([UInt8](repeating: 0, count: 16),
                                                                              [UInt8](repeating: 0, count: 16))

    // Legacy
    private var temporaryKey: [UInt8]?
    private var shortTermKey: [UInt8]?

    // Key distribution
    private var expectedPeerKeys: KeyDistribution = []
    private var peerKeys = DistributedKeys()
    private var peerLTK: [UInt8]?
    private var peerIRK: [UInt8]?
    private var localKeys = DistributedKeys()

    /// - Parameters:
    ///   - role: Initiator (central) or responder (peripheral).
    ///   - configuration: What this side can do and demands.
    ///   - initiatorAddress: The central's address on the link.
    ///   - responderAddress: The peripheral's address on the link.
    ///   - keyPair: This side's P-256 key pair (Secure Connections); with local out-of-band
    ///     data, that data's key pair is used instead.
    ///   - outOfBand: The out-of-band data this pairing may use.
    ///   - random: `count` random octets (cryptographically strong outside tests).
    public init(role: Role, configuration: SecurityManagerConfiguration, initiatorAddress: PairingAddress,
                responderAddress: PairingAddress, keyPair: PairingKeyPair, outOfBand: PairingOutOfBand = .none,
                random: @escaping @Sendable (Int) -> [UInt8]) {
        self.role = role
        self.configuration = configuration
        self.initiatorAddress = initiatorAddress
        self.responderAddress = responderAddress
        self.keyPair = outOfBand.local?.keyPair ?? keyPair
        self.outOfBand = outOfBand
        self.random = random
    }

    /// The OOB data flag this side sends: it holds the peer's data — Secure Connections' when
    /// it supports Secure Connections (a legacy TK alone would make a Secure Connections peer
    /// expect data that did not cross), else a legacy TK.
    private var hasPeerOutOfBandData: Bool {
        configuration.supportsSecureConnections ? outOfBand.peer != nil : outOfBand.temporaryKey != nil
    }

    /// Whether the pairing ended (completed or failed).
    public var isFinished: Bool { phase == .done || phase == .failed }

    /// The key the link is to be encrypted with while pairing: what the responder answers the
    /// controller's LTK Request with once ``PairingAction/encrypt(_:)`` would have been sent.
    public var encryptionKey: LongTermKey? {
        guard phase == .encrypting || phase == .distributing else { return nil }
        if let longTermKey { return LongTermKey(key: longTermKey) }
        return shortTermKey.map { LongTermKey(key: $0) }
    }

    // MARK: Inputs

    /// The initiator starts pairing: its Pairing Request.
    public mutating func start() -> [PairingAction] {
        guard role == .initiator, phase == .idle else { return [] }
        let wanted: KeyDistribution = configuration.bonding ? [.encryptionKey, .identityKey, .signingKey] : []
        let offered: KeyDistribution = configuration.bonding && configuration.identity != nil ? [.identityKey] : []
        let features = PairingFeatures(ioCapability: configuration.ioCapability, oobDataPresent: hasPeerOutOfBandData,
                                       authentication: localAuthentication, maximumKeySize: 16, initiatorKeys: offered,
                                       responderKeys: wanted)
        request = features
        phase = .features
        return [.send(.pairingRequest(features))]
    }

    /// A PDU from the peer.
    public mutating func receive(_ pdu: SMPPDU) -> [PairingAction] {
        if isFinished { return [] }
        if case .pairingFailed(let reason) = pdu {
            phase = .failed
            return [.failed(PairingFailure(reason: reason, byPeer: true))]
        }
        if case .keypressNotification = pdu { return [] }
        do throws(PairingFailure) {
            return try handle(pdu)
        } catch {
            return fail(error.reason)
        }
    }

    /// The passkey the user typed; `nil` when the user cancelled.
    public mutating func passkeyEntered(_ value: UInt32?) -> [PairingAction] {
        guard !isFinished, passkey == nil, model.isPasskeyEntry else { return [] }
        guard let value, value <= 999_999 else { return fail(.passkeyEntryFailed) }
        return passkeyKnown(value)
    }

    /// The user's answer to ``PairingAction/confirmNumber(_:)``.
    public mutating func numberConfirmed(_ matches: Bool) -> [PairingAction] {
        guard !isFinished, model == .numericComparison, !userConfirmed else { return [] }
        guard matches else { return fail(.numericComparisonFailed) }
        userConfirmed = true
        do throws(PairingFailure) {
            switch role {
            case .initiator:
                guard phase == .userCheck else { return [] }
                return try sendCheck()
            case .responder:
                guard phase == .dhKeyCheck, let check = peerCheck else { return [] }
                return try answerCheck(check)
            }
        } catch {
            return fail(error.reason)
        }
    }

    /// The link is now encrypted with the pairing's key: keys are distributed.
    public mutating func encryptionChanged() -> [PairingAction] {
        guard phase == .encrypting else { return [] }
        phase = .distributing
        switch role {
        case .responder:
            // The responder distributes first.
            var actions = distributeLocalKeys()
            if expectedPeerKeys.isEmpty { actions += complete() }
            return actions
        case .initiator:
            if expectedPeerKeys.isEmpty { return distributeLocalKeys() + complete() }
            return []
        }
    }

    // MARK: The protocol

    private var localAuthentication: AuthenticationRequirements { configuration.authenticationRequirements }

    private mutating func handle(_ pdu: SMPPDU) throws(PairingFailure) -> [PairingAction] {
        switch (role, phase, pdu) {
        case (.responder, .idle, .pairingRequest(let features)):
            return try answerRequest(features)
        case (.initiator, .features, .pairingResponse(let features)):
            return try accept(response: features)
        case (_, .publicKey, .pairingPublicKey(let x, let y)):
            return try receivePublicKey(x: x, y: y)
        case (.initiator, .commitment, .pairingConfirm(let value)):
            peerConfirm = value
            localNonce = random(16)
            phase = .nonce
            return [.send(.pairingRandom(localNonce))]
        case (.initiator, .nonce, .pairingRandom(let value)):
            peerNonce = value
            // Out of Band has no confirm: the OOB confirm value was checked against the public key.
            guard model == .outOfBand || peerConfirm == SecurityFunctions.f4(u: peerKey!.x, v: keyPair.x, x: value, z: 0) else {
                throw PairingFailure(reason: .confirmValueFailed, byPeer: false)
            }
            if model == .numericComparison {
                phase = .userCheck
                return [.confirmNumber(comparisonNumber)]
            }
            return try sendCheck()
        case (.responder, .nonce, .pairingRandom(let value)):
            peerNonce = value
            phase = .dhKeyCheck
            if model == .numericComparison { return [.send(.pairingRandom(localNonce)), .confirmNumber(comparisonNumber)] }
            userConfirmed = true
            return [.send(.pairingRandom(localNonce))]
        case (_, .passkeyConfirm, .pairingConfirm(let value)) where role == .responder || passkey != nil:
            peerConfirm = value
            return try passkeyRoundStep()
        case (_, .passkeyNonce, .pairingRandom(let value)):
            return try passkeyNonceReceived(value)
        case (.responder, .dhKeyCheck, .pairingDHKeyCheck(let value)):
            peerCheck = value
            guard userConfirmed else { return [] }
            return try answerCheck(value)
        case (.initiator, .dhKeyCheck, .pairingDHKeyCheck(let value)):
            let keys = stage2Keys()
            guard value == responderCheck(keys.macKey) else { throw PairingFailure(reason: .dhKeyCheckFailed, byPeer: false) }
            longTermKey = masked(keys.ltk)
            phase = .encrypting
            return [.encrypt(LongTermKey(key: longTermKey!))]
        case (.responder, .legacyConfirm, .pairingConfirm(let value)):
            peerConfirm = value
            return legacyResponderConfirm()
        case (.initiator, .legacyConfirm, .pairingConfirm(let value)):
            guard temporaryKey != nil else { throw PairingFailure(reason: .unspecifiedReason, byPeer: false) }
            peerConfirm = value
            phase = .legacyRandom
            return [.send(.pairingRandom(localNonce))]
        case (_, .legacyRandom, .pairingRandom(let value)):
            return try legacyRandomReceived(value)
        case (_, .distributing, _):
            return try receiveKey(pdu)
        default:
            throw PairingFailure(reason: .unspecifiedReason, byPeer: false)
        }
    }

    /// The responder answers a Pairing Request.
    private mutating func answerRequest(_ features: PairingFeatures) throws(PairingFailure) -> [PairingAction] {
        guard (7...16).contains(features.maximumKeySize) else { throw PairingFailure(reason: .invalidParameters, byPeer: false) }
        let bonding = configuration.bonding && features.authentication.contains(.bonding)
        var canDistribute: KeyDistribution = [.encryptionKey, .signingKey]
        if configuration.identity != nil { canDistribute.insert(.identityKey) }
        let accepts: KeyDistribution = [.encryptionKey, .identityKey, .signingKey]
        var authentication = localAuthentication
        if !bonding { authentication.remove(.bonding) }
        let answer = PairingFeatures(ioCapability: configuration.ioCapability, oobDataPresent: hasPeerOutOfBandData,
                                     authentication: authentication, maximumKeySize: 16,
                                     initiatorKeys: bonding ? features.initiatorKeys.intersection(accepts) : [],
                                     responderKeys: bonding ? features.responderKeys.intersection(canDistribute) : [])
        request = features
        response = answer
        try negotiate()
        var actions: [PairingAction] = [.send(.pairingResponse(answer))]
        if secureConnections {
            phase = .publicKey
        } else {
            actions += legacyBegin()
        }
        return actions
    }

    /// The initiator takes the Pairing Response.
    private mutating func accept(response features: PairingFeatures) throws(PairingFailure) -> [PairingAction] {
        guard let request, (7...16).contains(features.maximumKeySize),
              request.initiatorKeys.isSuperset(of: features.initiatorKeys),
              request.responderKeys.isSuperset(of: features.responderKeys) else {
            throw PairingFailure(reason: .invalidParameters, byPeer: false)
        }
        response = features
        try negotiate()
        if secureConnections {
            phase = .publicKey
            return [.send(.pairingPublicKey(x: keyPair.x, y: keyPair.y))]
        }
        return legacyBegin()
    }

    /// Key size, Secure Connections or not, the association model, and what this side demands.
    private mutating func negotiate() throws(PairingFailure) {
        guard let request, let response else { throw PairingFailure(reason: .unspecifiedReason, byPeer: false) }
        keySize = Int(min(request.maximumKeySize, response.maximumKeySize))
        guard keySize >= configuration.minimumKeySize else { throw PairingFailure(reason: .encryptionKeySize, byPeer: false) }
        secureConnections = request.authentication.contains(.secureConnections) && response.authentication.contains(.secureConnections)
        guard secureConnections || !configuration.secureConnectionsOnly else {
            throw PairingFailure(reason: .authenticationRequirements, byPeer: false)
        }
        model = AssociationModel.select(initiator: request, responder: response, secureConnections: secureConnections)
        if model == .outOfBand { try takeOutOfBand() }
        guard model.isAuthenticated || !configuration.requiresAuthentication else {
            throw PairingFailure(reason: .authenticationRequirements, byPeer: false)
        }
        var peerDistributes = role == .initiator ? response.responderKeys : response.initiatorKeys
        peerDistributes.remove(.linkKey)
        if secureConnections { peerDistributes.remove(.encryptionKey) }
        expectedPeerKeys = peerDistributes
    }

    // MARK: Secure Connections

    private mutating func receivePublicKey(x: [UInt8], y: [UInt8]) throws(PairingFailure) -> [PairingAction] {
        // A peer that sends our own key back (a reflection) or a point off the curve.
        let shared: [UInt8]
        do {
            guard x != keyPair.x else { throw PairingKeyPair.InvalidPublicKey() }
            shared = try keyPair.dhKey(peerX: x, peerY: y)
        } catch {
            throw PairingFailure(reason: .dhKeyCheckFailed, byPeer: false)
        }
        peerKey = (x, y)
        dhKey = shared
        var actions: [PairingAction] = []
        if role == .responder { actions.append(.send(.pairingPublicKey(x: keyPair.x, y: keyPair.y))) }
        if model.isPasskeyEntry {
            phase = .passkeyConfirm
            return actions + passkeyBegin()
        }
        if model == .outOfBand {
            // The peer's OOB confirm must be of the public key it sent here (§2.3.5.6.4).
            if let peer = outOfBand.peer, peer.confirm != SecurityFunctions.f4(u: x, v: x, x: peer.random, z: 0) {
                throw PairingFailure(reason: .confirmValueFailed, byPeer: false)
            }
            localNonce = random(16)
            phase = .nonce
            if role == .initiator { actions.append(.send(.pairingRandom(localNonce))) }
            return actions
        }
        switch role {
        case .initiator:
            phase = .commitment
        case .responder:
            localNonce = random(16)
            phase = .nonce
            actions.append(.send(.pairingConfirm(SecurityFunctions.f4(u: keyPair.x, v: x, x: localNonce, z: 0))))
        }
        return actions
    }

    /// The six digits of Numeric Comparison.
    private var comparisonNumber: UInt32 {
        let (initiatorX, responderX) = role == .initiator ? (keyPair.x, peerKey!.x) : (peerKey!.x, keyPair.x)
        return SecurityFunctions.g2(u: initiatorX, v: responderX, x: nonces.initiator, y: nonces.responder) % 1_000_000
    }

    /// MacKey and LTK from the DHKey, the two nonces and the two addresses.
    private func stage2Keys() -> (macKey: [UInt8], ltk: [UInt8]) {
        SecurityFunctions.f5(w: dhKey, n1: nonces.initiator, n2: nonces.responder, a1: initiatorAddress.octets, a2: responderAddress.octets)
    }

    /// The passkey as a 128-bit value (zero until known): legacy Passkey Entry's TK, and
    /// Secure Connections Passkey Entry's `ra` and `rb`.
    private var passkeyValue: [UInt8] {
        let value = model.isPasskeyEntry ? passkey ?? 0 : 0
        return [UInt8](repeating: 0, count: 12) + (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * $0)) }
    }

    /// `ra` (the initiator's) and `rb` (the responder's) of the DHKey checks: the passkey with
    /// Passkey Entry, the OOB random values with Out of Band, else zero. `Ea` takes `rb`, `Eb` `ra`.
    private var checkValues: (initiator: [UInt8], responder: [UInt8]) {
        model == .outOfBand ? outOfBandValues : (passkeyValue, passkeyValue)
    }

    /// Out of Band chosen: this side needs the data the flags promise. Secure Connections: the
    /// peer's flag says it holds our data (so our key pair and `r` must be those we handed
    /// out), ours that we hold its; a side whose data did not cross counts `r` as zero.
    /// Legacy: the shared TK.
    private mutating func takeOutOfBand() throws(PairingFailure) {
        guard let request, let response else { throw PairingFailure(reason: .unspecifiedReason, byPeer: false) }
        guard secureConnections else {
            guard outOfBand.temporaryKey?.count == 16 else { throw PairingFailure(reason: .oobNotAvailable, byPeer: false) }
            return
        }
        let peerHoldsOurs = (role == .initiator ? response : request).oobDataPresent
        var local = [UInt8](repeating: 0, count: 16)
        if peerHoldsOurs {
            guard let ours = outOfBand.local else { throw PairingFailure(reason: .oobNotAvailable, byPeer: false) }
            local = ours.data.random
        }
        let peer = outOfBand.peer?.random ?? [UInt8](repeating: 0, count: 16)
        outOfBandValues = role == .initiator ? (local, peer) : (peer, local)
    }

    private func ioCap(_ features: PairingFeatures) -> [UInt8] {
        [features.authentication.rawValue, features.oobDataPresent ? 1 : 0, features.ioCapability.rawValue]
    }

    /// The nonces by role: `Na` (the initiator's) and `Nb` (the responder's).
    private var nonces: (initiator: [UInt8], responder: [UInt8]) {
        role == .initiator ? (localNonce, peerNonce) : (peerNonce, localNonce)
    }

    /// The initiator's DHKey check, `Ea = f6(MacKey, Na, Nb, rb, IOcapA, A, B)`.
    private func initiatorCheck(_ macKey: [UInt8]) -> [UInt8] {
        SecurityFunctions.f6(w: macKey, n1: nonces.initiator, n2: nonces.responder, r: checkValues.responder,
                             ioCap: ioCap(request!), a1: initiatorAddress.octets, a2: responderAddress.octets)
    }

    /// The responder's DHKey check, `Eb = f6(MacKey, Nb, Na, ra, IOcapB, B, A)`.
    private func responderCheck(_ macKey: [UInt8]) -> [UInt8] {
        SecurityFunctions.f6(w: macKey, n1: nonces.responder, n2: nonces.initiator, r: checkValues.initiator,
                             ioCap: ioCap(response!), a1: responderAddress.octets, a2: initiatorAddress.octets)
    }

    /// The initiator sends its DHKey check Ea.
    private mutating func sendCheck() throws(PairingFailure) -> [PairingAction] {
        phase = .dhKeyCheck
        return [.send(.pairingDHKeyCheck(initiatorCheck(stage2Keys().macKey)))]
    }

    /// The responder checks Ea and answers with Eb.
    private mutating func answerCheck(_ check: [UInt8]) throws(PairingFailure) -> [PairingAction] {
        let keys = stage2Keys()
        guard check == initiatorCheck(keys.macKey) else { throw PairingFailure(reason: .dhKeyCheckFailed, byPeer: false) }
        longTermKey = masked(keys.ltk)
        phase = .encrypting
        return [.send(.pairingDHKeyCheck(responderCheck(keys.macKey)))]
    }

    // MARK: Passkey Entry

    /// Whether this side shows the passkey (else the user types it here).
    private var displaysPasskey: Bool {
        switch model {
        case .passkeyEntry(.initiatorDisplays): role == .initiator
        case .passkeyEntry(.responderDisplays): role == .responder
        default: false
        }
    }

    /// The passkey is generated here and shown, or asked of the user.
    private mutating func passkeyBegin() -> [PairingAction] {
        guard displaysPasskey else { return [.requestPasskey] }
        let value = newPasskey()
        return [.displayPasskey(value)] + passkeyKnown(value)
    }

    private func newPasskey() -> UInt32 {
        while true {
            let value = random(4).reduce(UInt32(0)) { $0 << 8 | UInt32($1) } & 0xFFFFF
            if value <= 999_999 { return value }
        }
    }

    private mutating func passkeyKnown(_ value: UInt32) -> [PairingAction] {
        passkey = value
        if !secureConnections {
            temporaryKey = passkeyValue
            return legacyTemporaryKeyKnown()
        }
        do throws(PairingFailure) {
            return try passkeyRoundStep()
        } catch {
            return fail(error.reason)
        }
    }

    /// The bit of the passkey this round commits to, as `f4`'s `z`.
    private var roundBit: UInt8 { 0x80 | UInt8(truncatingIfNeeded: (passkey! >> UInt32(round)) & 1) }

    /// A round of Passkey Entry moves on when this side has the passkey and (the responder)
    /// the initiator's confirm: the initiator commits first, the responder answers.
    private mutating func passkeyRoundStep() throws(PairingFailure) -> [PairingAction] {
        guard phase == .passkeyConfirm, passkey != nil, let peerX = peerKey?.x else { return [] }
        switch role {
        case .initiator:
            if !committed {
                // Commit to this round's bit.
                localNonce = random(16)
                committed = true
                return [.send(.pairingConfirm(SecurityFunctions.f4(u: keyPair.x, v: peerX, x: localNonce, z: roundBit)))]
            }
            guard peerConfirm != nil else { return [] }
            phase = .passkeyNonce
            return [.send(.pairingRandom(localNonce))]
        case .responder:
            guard peerConfirm != nil else { return [] }
            localNonce = random(16)
            phase = .passkeyNonce
            return [.send(.pairingConfirm(SecurityFunctions.f4(u: keyPair.x, v: peerX, x: localNonce, z: roundBit)))]
        }
    }

    private mutating func passkeyNonceReceived(_ nonce: [UInt8]) throws(PairingFailure) -> [PairingAction] {
        guard let peerX = peerKey?.x, let confirm = peerConfirm else { throw PairingFailure(reason: .unspecifiedReason, byPeer: false) }
        guard confirm == SecurityFunctions.f4(u: peerX, v: keyPair.x, x: nonce, z: roundBit) else {
            throw PairingFailure(reason: .confirmValueFailed, byPeer: false)
        }
        peerNonce = nonce
        var actions: [PairingAction] = []
        if role == .responder { actions.append(.send(.pairingRandom(localNonce))) }
        round += 1
        peerConfirm = nil
        committed = false
        if round == 20 {
            userConfirmed = true
            if role == .initiator { return actions + (try sendCheck()) }
            phase = .dhKeyCheck
            return actions
        }
        phase = .passkeyConfirm
        if role == .initiator { return actions + (try passkeyRoundStep()) }
        return actions
    }

    // MARK: Legacy pairing

    /// After the features: the TK of Just Works, of Out of Band, or the passkey's.
    private mutating func legacyBegin() -> [PairingAction] {
        phase = .legacyConfirm
        if model.isPasskeyEntry { return passkeyBegin() }
        temporaryKey = model == .outOfBand ? outOfBand.temporaryKey : [UInt8](repeating: 0, count: 16)
        return legacyTemporaryKeyKnown()
    }

    private mutating func legacyTemporaryKeyKnown() -> [PairingAction] {
        switch role {
        case .initiator:
            localNonce = random(16)
            return [.send(.pairingConfirm(legacyConfirm(localNonce)))]
        case .responder:
            return legacyResponderConfirm()
        }
    }

    /// The responder answers the initiator's confirm once it has its TK.
    private mutating func legacyResponderConfirm() -> [PairingAction] {
        guard phase == .legacyConfirm, temporaryKey != nil, peerConfirm != nil else { return [] }
        localNonce = random(16)
        phase = .legacyRandom
        return [.send(.pairingConfirm(legacyConfirm(localNonce)))]
    }

    private func legacyConfirm(_ value: [UInt8]) -> [UInt8] {
        SecurityFunctions.c1(k: temporaryKey!, r: value,
                             pairingRequest: SMPPDU.pairingRequest(request!).encoded.reversed(),
                             pairingResponse: SMPPDU.pairingResponse(response!).encoded.reversed(),
                             initiatorAddressType: initiatorAddress.typeBit, responderAddressType: responderAddress.typeBit,
                             initiatorAddress: initiatorAddress.address.bytes, responderAddress: responderAddress.address.bytes)
    }

    private mutating func legacyRandomReceived(_ value: [UInt8]) throws(PairingFailure) -> [PairingAction] {
        guard peerConfirm == legacyConfirm(value) else { throw PairingFailure(reason: .confirmValueFailed, byPeer: false) }
        peerNonce = value
        shortTermKey = masked(SecurityFunctions.s1(k: temporaryKey!, r1: nonces.responder, r2: nonces.initiator))
        phase = .encrypting
        switch role {
        case .initiator: return [.encrypt(LongTermKey(key: shortTermKey!))]
        case .responder: return [.send(.pairingRandom(localNonce))]
        }
    }

    // MARK: Key distribution

    private mutating func distributeLocalKeys() -> [PairingAction] {
        var keys = role == .initiator ? response!.initiatorKeys : response!.responderKeys
        if secureConnections { keys.remove(.encryptionKey) }
        var actions: [PairingAction] = []
        if keys.contains(.encryptionKey) {
            let ediv = random(2).reduce(UInt16(0)) { $0 << 8 | UInt16($1) }
            let rand = random(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            let key = LongTermKey(key: masked(random(16)), ediv: ediv, rand: rand)
            localKeys.longTermKey = key
            actions += [.send(.encryptionInformation(longTermKey: key.key)), .send(.centralIdentification(ediv: ediv, rand: rand))]
        }
        if keys.contains(.identityKey), let identity = configuration.identity {
            localKeys.identity = identity
            actions += [.send(.identityInformation(identityResolvingKey: identity.resolvingKey)),
                        .send(.identityAddressInformation(type: identity.address.type, address: identity.address.address))]
        }
        if keys.contains(.signingKey) {
            let key = random(16)
            localKeys.signatureKey = key
            actions.append(.send(.signingInformation(signatureKey: key)))
        }
        return actions
    }

    private mutating func receiveKey(_ pdu: SMPPDU) throws(PairingFailure) -> [PairingAction] {
        switch pdu {
        case .encryptionInformation(let key) where expectedPeerKeys.contains(.encryptionKey) && peerLTK == nil:
            peerLTK = key
            return []
        case .centralIdentification(let ediv, let rand) where expectedPeerKeys.contains(.encryptionKey) && peerLTK != nil:
            // Once only: a second identification would rename the key the bond keeps.
            peerKeys.longTermKey = LongTermKey(key: peerLTK!, ediv: ediv, rand: rand)
            expectedPeerKeys.remove(.encryptionKey)
        case .identityInformation(let key) where expectedPeerKeys.contains(.identityKey) && peerIRK == nil:
            peerIRK = key
            return []
        case .identityAddressInformation(let type, let address) where expectedPeerKeys.contains(.identityKey) && peerIRK != nil:
            peerKeys.identity = PairingIdentity(resolvingKey: peerIRK!, address: PairingAddress(type: type, address: address))
            expectedPeerKeys.remove(.identityKey)
        case .signingInformation(let key) where expectedPeerKeys.contains(.signingKey):
            peerKeys.signatureKey = key
            expectedPeerKeys.remove(.signingKey)
        default:
            throw PairingFailure(reason: .unspecifiedReason, byPeer: false)
        }
        guard expectedPeerKeys.isEmpty else { return [] }
        // The initiator distributes after the responder's keys arrived.
        return (role == .initiator ? distributeLocalKeys() : []) + complete()
    }

    private mutating func complete() -> [PairingAction] {
        phase = .done
        let bonded = request!.authentication.contains(.bonding) && response!.authentication.contains(.bonding)
        return [.completed(PairingOutcome(model: model, secureConnections: secureConnections, keySize: keySize, bonded: bonded,
                                          secureConnectionsKey: longTermKey.map { LongTermKey(key: $0) },
                                          local: localKeys, peer: peerKeys))]
    }

    // MARK: Support

    /// `key` shortened to the negotiated size: its most significant octets zeroed.
    private func masked(_ key: [UInt8]) -> [UInt8] {
        [UInt8](repeating: 0, count: 16 - keySize) + key[(16 - keySize)...]
    }

    private mutating func fail(_ reason: SMPReason) -> [PairingAction] {
        phase = .failed
        return [.send(.pairingFailed(reason)), .failed(PairingFailure(reason: reason, byPeer: false))]
    }
}

extension AssociationModel {
    var isPasskeyEntry: Bool {
        if case .passkeyEntry = self { return true }
        return false
    }
}
