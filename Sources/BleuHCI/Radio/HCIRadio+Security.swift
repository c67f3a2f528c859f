import BleuATT
import BleuCore
import Foundation
import Logging

/// The Security Manager on each link (Core Spec Vol 3 Part H), both roles: pairing runs in a
/// ``PairingSession`` per link, whose actions this shell carries out — SMP PDUs on the fixed
/// channel 0x0006, the delegate's questions, LE Enable Encryption — and a bond's key encrypts
/// later links: the central starts encryption with it, the peripheral answers the controller's
/// LE Long Term Key Request from its bonds.
extension HCIRadio {
    // MARK: The application's calls

    /// Sets the application's part in pairing (`nil`: the protocol's default answers).
    public func setPairingDelegate(_ delegate: (any PairingDelegate)?) {
        pairingDelegate = delegate
    }

    /// Makes this radio's LE Secure Connections out-of-band data, to hand a peer outside
    /// Bluetooth (with ``address``): its pairings use the data's key pair from now on, and a
    /// peer that received the data pairs with the Out of Band model (authenticated keys)
    /// without a display or keyboard. Calling it again replaces the data.
    public func makeOutOfBandData() -> OutOfBandData {
        let local = LocalOutOfBand(random: random)
        security.localOutOfBand = local
        return local.data
    }

    /// The LE Secure Connections out-of-band data `peer` handed over (`nil` forgets it): a
    /// pairing with it uses the Out of Band model and fails with Confirm Value Failed when the
    /// peer's public key is not the one the data was made with.
    public func setOutOfBandData(_ data: OutOfBandData?, for peer: UUID) {
        security.peerOutOfBand[peer] = data
    }

    /// LE legacy out-of-band pairing: the 16-octet temporary key this device and `peer` both
    /// hold (`nil` forgets it). Used when the pairing is legacy and both sides set the OOB flag;
    /// a key of another length fails such a pairing with OOB Not Available.
    public func setOutOfBandTemporaryKey(_ key: [UInt8]?, for peer: UUID) {
        security.outOfBandTemporaryKeys[peer] = key
    }

    /// How the link to `peer` is protected now (`nil` when there is no link).
    public func securityLevel(of peer: UUID) -> SecurityLevel? {
        connections.anyLink(to: peer).flatMap { security[$0.handle]?.security.level }
    }

    /// Raises the link to `peer` to at least `minimum` and returns once it is there.
    ///
    /// As a central, this encrypts the link with the bond's key when the bond is strong enough,
    /// else pairs (as an initiator; an `.authenticated` minimum demands an authenticated
    /// association model, `.authenticatedSecureConnections` also LE Secure Connections and a
    /// 128-bit key). As a peripheral, it sends the central a Security Request and waits
    /// for the central to encrypt or pair. A call while a pairing runs waits for it.
    ///
    /// Throws ``/BleuCore/BleuError/pairingFailed(_:)`` with the SMP reason, the encryption's
    /// HCI status or the timeout; ``/BleuCore/BleuError/notConnected(_:)`` without a link;
    /// ``BondStoreError`` when the bond store cannot be read or the new bond cannot be kept.
    public func pair(_ peer: UUID, minimum: SecurityLevel) async throws {
        try requirePoweredOn()
        guard let link = connections.anyLink(to: peer), let state = security[link.handle] else {
            throw BleuError.notConnected(peer)
        }
        if state.security.level >= minimum { return }
        if state.timedOut { throw BleuError.pairingFailed(.timeout) }
        if !state.isBusy {
            switch link.role {
            case .central: try beginSecurity(on: link, minimum: minimum)
            case .peripheral: requestSecurity(on: link, minimum: minimum)
            }
        }
        try await withCheckedThrowingContinuation { continuation in
            security[link.handle]?.waiters.append(SecurityTable.Waiter(minimum: minimum, continuation: continuation))
        }
    }

    // MARK: Starting

    /// The central raises a link: with the bond's key when it is strong enough, else by pairing.
    private func beginSecurity(on link: HCILink, minimum: SecurityLevel) throws {
        if let bond = try bonds.bond(resolving: pairingAddress(of: link)), bond.level >= minimum {
            encrypt(link.handle, with: bond)
        } else {
            startPairing(on: link, minimum: minimum)
        }
    }

    /// The central starts encryption with a bond's key; the Encryption Change tells how it went.
    private func encrypt(_ handle: ConnectionHandle, with bond: Bond) {
        security[handle]?.pendingEncryption = LinkSecurity(level: bond.level, keySize: bond.keySize)
        logger.debug("encrypting \(handle) with the bond's key")
        startEncryption(handle, key: bond.longTermKey)
    }

    /// LE Enable Encryption; a controller that refuses it ends what waits for it.
    private func startEncryption(_ handle: ConnectionHandle, key: LongTermKey) {
        let command = HCICommand.leEnableEncryption(handle: handle.rawValue, random: key.rand, ediv: key.ediv,
                                                    longTermKey: key.key)
        spawn { radio in
            do {
                _ = try await radio.host.send(command)
            } catch {
                let status = (error as? HCIHostError).flatMap { if case .commandFailed(_, let s) = $0 { s.rawValue } else { nil } }
                radio.logger.warning("the controller refused to encrypt \(handle): \(error)")
                radio.encryptionChanged(handle, status: status ?? 0x1F, enabled: false)
            }
        }
    }

    /// The central pairs as the initiator.
    private func startPairing(on link: HCILink, minimum: SecurityLevel) {
        var configuration = configuration.security
        if minimum >= .authenticated { configuration.requiresAuthentication = true }
        if minimum >= .authenticatedSecureConnections {
            // Level 4: Secure Connections with a 128-bit key, or the pairing fails.
            configuration.secureConnectionsOnly = true
            configuration.supportsSecureConnections = true
            configuration.minimumKeySize = 16
        }
        let session = newSession(.initiator, on: link, configuration: configuration)
        logger.debug("pairing on \(link.handle) as the initiator")
        run(on: link.handle, generation: session.generation) { _ in session.actions }
    }

    /// The peripheral asks the central to raise the link (Security Request), and waits.
    private func requestSecurity(on link: HCILink, minimum: SecurityLevel) {
        var requirements = configuration.security.authenticationRequirements
        if minimum >= .authenticated { requirements.insert(.mitm) }
        logger.debug("asking the central on \(link.handle) for security (\(minimum))")
        sendSMP(.securityRequest(requirements), on: link.handle)
    }

    /// A new session on the link; returns its generation and its first actions (the
    /// initiator's Pairing Request).
    private func newSession(_ role: PairingSession.Role, on link: HCILink, configuration: SecurityManagerConfiguration)
        -> (generation: UInt64, actions: [PairingAction]) {
        let local = PairingAddress(type: setup.ownAddressType, address: link.localAddress)
        let peer = PairingAddress(type: link.addressType, address: link.address)
        var session = PairingSession(role: role, configuration: configuration,
                                     initiatorAddress: role == .initiator ? local : peer,
                                     responderAddress: role == .initiator ? peer : local,
                                     keyPair: PairingKeyPair(), outOfBand: security.outOfBand(for: link.peer), random: random)
        let actions = session.start()
        let generation = security.nextGeneration(link.handle)
        security[link.handle]?.session = session
        security[link.handle]?.awaitingConsent = false
        return (generation, actions)
    }

    // MARK: Inbound

    /// A PDU on the Security Manager channel.
    func smpReceived(_ payload: [UInt8], on handle: ConnectionHandle) {
        guard let link = connections[handle], let state = security[handle], !state.timedOut else { return }
        let pdu: SMPPDU
        do {
            pdu = try SMPPDU(decoding: payload)
        } catch {
            logger.notice("a malformed SMP PDU on \(handle): \(error)")
            let unknown = if case .unknownType = error.kind { true } else { false }
            let reason: SMPReason = unknown ? .commandNotSupported : .invalidParameters
            sendSMP(.pairingFailed(reason), on: handle)
            if state.session != nil { run(on: handle, generation: state.generation) { _ in [.failed(PairingFailure(reason: reason, byPeer: false))] } }
            return
        }
        if state.session != nil {
            restartTimer(handle)
            run(on: handle, generation: state.generation) { $0.receive(pdu) }
            return
        }
        switch (state.role, pdu) {
        case (.responder, .pairingRequest(let features)):
            guard !state.awaitingConsent else { return }
            askConsent(on: link, wantsAuthentication: features.authentication.contains(.mitm),
                       wantsBonding: features.authentication.contains(.bonding)) { radio, link in
                let session = radio.newSession(.responder, on: link, configuration: radio.configuration.security)
                radio.run(on: link.handle, generation: session.generation) { $0.receive(pdu) }
            }
        case (.initiator, .securityRequest(let requirements)):
            let minimum: SecurityLevel = requirements.contains(.mitm) ? .authenticated : .encrypted
            guard !state.awaitingConsent, !state.isBusy, state.security.level < minimum else { return }
            if let bond = bond(of: link), bond.level >= minimum {
                encrypt(handle, with: bond)
                return
            }
            askConsent(on: link, wantsAuthentication: requirements.contains(.mitm),
                       wantsBonding: requirements.contains(.bonding)) { radio, link in
                radio.startPairing(on: link, minimum: minimum)
            }
        case (.initiator, .pairingRequest), (.responder, .securityRequest):
            // Only a central initiates pairing and only a peripheral asks for it (Vol 3 Part H §3.5).
            sendSMP(.pairingFailed(.commandNotSupported), on: handle)
        case (_, .pairingFailed(let reason)):
            // The peer refused a Security Request of ours, or a consent still pending.
            security[handle]?.awaitingConsent = false
            failWaiters(on: handle, because: PairingFailure(reason: reason, byPeer: true))
        default:
            logger.debug("ignoring \(pdu.code) on \(handle): no pairing in progress")
        }
    }

    /// A peer asked to pair: unless it is held back after failed attempts, the delegate decides;
    /// `proceed` runs when it agrees (and the link is still there).
    private func askConsent(on link: HCILink, wantsAuthentication: Bool, wantsBonding: Bool,
                            proceed: @escaping @Sendable (isolated HCIRadio, HCILink) -> Void) {
        let handle = link.handle
        if security.attempts.isHeld(link.address) {
            logger.notice("refusing pairing on \(handle): \(link.address) failed to pair too recently")
            sendSMP(.pairingFailed(.repeatedAttempts), on: handle)
            return
        }
        let generation = security.nextGeneration(handle)
        security[handle]?.awaitingConsent = true
        restartTimer(handle)
        let proposal = PairingProposal(peer: link.peer, address: pairingAddress(of: link),
                                       wantsAuthentication: wantsAuthentication, wantsBonding: wantsBonding)
        let delegate = pairingDelegate
        spawn { radio in
            let accepted = await delegate?.shouldPair(proposal) ?? true
            guard let state = radio.security[handle], state.generation == generation, state.awaitingConsent,
                  let link = radio.connections[handle] else { return }
            radio.security[handle]?.awaitingConsent = false
            if accepted {
                proceed(radio, link)
            } else {
                radio.logger.info("the application refused to pair with \(link.address)")
                radio.sendSMP(.pairingFailed(.pairingNotSupported), on: handle)
                radio.stopTimer(handle)
                radio.failWaiters(on: handle, because: PairingFailure(reason: .pairingNotSupported, byPeer: false))
            }
        }
    }

    /// The controller asks the peripheral for the key to encrypt with (LE Long Term Key
    /// Request): the pairing's key, or the bond's, or none (negative reply).
    func longTermKeyRequested(_ handle: ConnectionHandle, random: UInt64, ediv: UInt16) {
        guard let link = connections[handle], let state = security[handle] else { return }
        if random == 0, ediv == 0, let key = state.session?.encryptionKey {
            pipeline.issue(.leLongTermKeyRequestReply(handle: handle.rawValue, longTermKey: key.key), completes: true,
                           "answering the LTK request on \(handle) with the pairing's key")
            return
        }
        if let bond = bond(of: link), bond.longTermKey.rand == random, bond.longTermKey.ediv == ediv {
            security[handle]?.pendingEncryption = LinkSecurity(level: bond.level, keySize: bond.keySize)
            pipeline.issue(.leLongTermKeyRequestReply(handle: handle.rawValue, longTermKey: bond.longTermKey.key), completes: true,
                           "answering the LTK request on \(handle) with the bond's key")
            return
        }
        logger.info("no key for the LTK request of \(link.address) on \(handle)")
        pipeline.issue(.leLongTermKeyRequestNegativeReply(handle: handle.rawValue), completes: true,
                       "refusing the LTK request on \(handle)")
    }

    /// Encryption Change or Encryption Key Refresh Complete: the pairing goes on, or the link
    /// has its bond's protection, or the encryption failed.
    func encryptionChanged(_ handle: ConnectionHandle, status: UInt8, enabled: Bool) {
        guard let state = security[handle] else { return }
        security[handle]?.pendingEncryption = nil
        guard status == 0 else {
            logger.notice("encryption failed on \(handle) (HCI status 0x\(hex2(status)))")
            if state.session != nil {
                endSession(handle, failure: nil)
            }
            failWaiters(on: handle, BleuError.pairingFailed(.encryption(status: status)))
            return
        }
        guard enabled else {
            applySecurity(.unencrypted, on: handle)
            return
        }
        if state.session != nil {
            run(on: handle, generation: state.generation) { $0.encryptionChanged() }
        } else if let pending = state.pendingEncryption {
            logger.debug("\(handle) encrypted with the bond's key (\(pending.level))")
            applySecurity(pending, on: handle)
        } else if state.security.level == .unencrypted {
            // Encrypted with no request of ours, and no LTK Request before it (a virtual
            // controller that does not ask the peripheral's host): the bond tells how well.
            let bonded = connections[handle].flatMap { self.bond(of: $0) }
            applySecurity(LinkSecurity(level: bonded?.level ?? .encrypted, keySize: bonded?.keySize ?? 16), on: handle)
        }
    }

    // MARK: Running a session

    /// Steps the link's session (if it is still generation `generation`) and carries out what
    /// it asks.
    private func run(on handle: ConnectionHandle, generation: UInt64, _ step: (inout PairingSession) -> [PairingAction]) {
        guard var session = security[handle]?.session, security[handle]?.generation == generation else { return }
        let actions = step(&session)
        security[handle]?.session = session
        for action in actions {
            guard security[handle]?.generation == generation else { return }
            perform(action, on: handle, generation: generation)
        }
    }

    private func perform(_ action: PairingAction, on handle: ConnectionHandle, generation: UInt64) {
        guard let link = connections[handle] else { return }
        let delegate = pairingDelegate
        let peer = link.peer
        switch action {
        case .send(let pdu):
            sendSMP(pdu, on: handle)
        case .displayPasskey(let passkey):
            spawn { _ in await delegate?.display(passkey: passkey, to: peer) }
        case .requestPasskey:
            spawn { radio in
                let passkey = await delegate?.enterPasskey(for: peer)
                radio.run(on: handle, generation: generation) { $0.passkeyEntered(passkey) }
            }
        case .confirmNumber(let number):
            spawn { radio in
                let matches = await delegate?.confirm(number: number, with: peer) ?? false
                radio.run(on: handle, generation: generation) { $0.numberConfirmed(matches) }
            }
        case .encrypt(let key):
            startEncryption(handle, key: key)
        case .completed(let outcome):
            completed(outcome, on: link)
        case .failed(let failure):
            logger.info("pairing with \(link.address) failed: \(failure)")
            endSession(handle, failure: failure)
            failWaiters(on: handle, because: failure)
        }
    }

    private func completed(_ outcome: PairingOutcome, on link: HCILink) {
        let handle = link.handle
        endSession(handle, failure: nil)
        security.attempts.succeeded(link.address)
        let level = SecurityLevel(authenticated: outcome.authenticated, secureConnections: outcome.secureConnections,
                                  keySize: outcome.keySize)
        let bonded = outcome.bonded ? ", bonded" : ""
        logger.info("paired with \(link.address) on \(handle): \(outcome.model), \(level), \(outcome.keySize)-octet key\(bonded)")
        if let identity = outcome.peer.identity, outcome.bonded { connections.noteIdentity(identity.address, of: link.peer) }
        let role: PairingSession.Role = link.role == .central ? .initiator : .responder
        if let bond = Bond(outcome, localRole: role, peerAddress: pairingAddress(of: link)) {
            do {
                try bonds.save(bond)
            } catch {
                // The link is encrypted all the same; whoever waits learns the bond was not kept
                // (failed before the level is applied, which would let them go on as if it were).
                logger.error("the bond with \(link.address) could not be kept: \(error)")
                failWaiters(on: handle, error)
            }
        }
        applySecurity(LinkSecurity(level: level, keySize: outcome.keySize), on: handle)
    }

    /// The session ends: its timer stops; a failure holds the peer back for a while.
    private func endSession(_ handle: ConnectionHandle, failure: PairingFailure?) {
        security[handle]?.session = nil
        _ = security.nextGeneration(handle)
        stopTimer(handle)
        guard failure != nil, let address = connections[handle]?.address else { return }
        let (hold, failures) = security.attempts.failed(address)
        let delay = RepeatedAttempts.delay(failures: failures, base: configuration.repeatedAttemptsDelay,
                                           limit: configuration.maximumRepeatedAttemptsDelay)
        spawn(after: delay) { radio in radio.security.attempts.release(address, hold: hold) }
    }

    // MARK: Support

    private func sendSMP(_ pdu: SMPPDU, on handle: ConnectionHandle) {
        guard security[handle]?.timedOut == false else { return }
        pipeline.send(L2CAPBFrame(channelID: L2CAPBFrame.smpCID, payload: pdu.encoded), on: handle)
        if case .pairingFailed = pdu { return }
        restartTimer(handle)
    }

    /// (Re)starts the Security Manager timer of the link.
    private func restartTimer(_ handle: ConnectionHandle) {
        security[handle]?.timer?.cancel()
        let generation = security[handle]?.generation
        let timeout = configuration.smpTimeout
        security[handle]?.timer = Task { [weak self, clock] in
            do { try await clock.sleep(for: timeout) } catch { return }
            await self?.smpTimedOut(handle, generation: generation)
        }
    }

    private func stopTimer(_ handle: ConnectionHandle) {
        security[handle]?.timer?.cancel()
        security[handle]?.timer = nil
    }

    /// The peer let the Security Manager's 30 s pass: the pairing fails, and this link takes no
    /// more SMP.
    private func smpTimedOut(_ handle: ConnectionHandle, generation: UInt64?) {
        guard let state = security[handle], state.generation == generation,
              state.session != nil || state.awaitingConsent || !state.waiters.isEmpty else { return }
        logger.notice("the Security Manager timed out on \(handle)")
        security[handle]?.timedOut = true
        security[handle]?.awaitingConsent = false
        if state.session != nil { endSession(handle, failure: PairingFailure(reason: .unspecifiedReason, byPeer: false)) }
        failWaiters(on: handle, BleuError.pairingFailed(.timeout))
    }

    /// The link's protection changed: the GATT server's access rules and the waiters see it.
    private func applySecurity(_ linkSecurity: LinkSecurity, on handle: ConnectionHandle) {
        server.setSecurity(linkSecurity, on: handle)
        security.setSecurity(linkSecurity, on: handle,
                             shortfall: BleuError.pairingFailed(.smp(.authenticationRequirements)))
    }

    private func failWaiters(on handle: ConnectionHandle, because failure: PairingFailure) {
        failWaiters(on: handle, BleuError.pairingFailed(.smp(failure.reason)))
    }

    private func failWaiters(on handle: ConnectionHandle, _ error: any Error) {
        security.failWaiters(on: handle, error)
    }

    private func pairingAddress(of link: HCILink) -> PairingAddress {
        PairingAddress(type: link.addressType, address: link.address)
    }

    /// The bond with the peer of `link` (resolving its private address with the IRKs held); a
    /// store that cannot be read is logged and counts as no bond.
    private func bond(of link: HCILink) -> Bond? {
        do {
            return try bonds.bond(resolving: pairingAddress(of: link))
        } catch {
            logger.error("the bond store cannot be read: \(error)")
            return nil
        }
    }

    /// The identifier of the peer at `address`; a bonded peer's private address resolves (with
    /// the IRKs the bonds hold) to the identifier of its identity, so it is one peer as its
    /// address changes.
    func identifyPeer(_ address: BluetoothAddress, type: AddressType, name: String? = nil) -> UUID {
        let bonds = self.bonds
        let logger = self.logger
        return connections.identify(address, type: type, name: name) {
            Self.bondedIdentity(of: PairingAddress(type: type, address: address), in: bonds, logger: logger)
        }
    }

    /// The identity address of the bonded peer whose IRK resolves `address`, when `address` is
    /// a resolvable private address of one; a store that cannot be read is logged and resolves
    /// nothing.
    static func bondedIdentity(of address: PairingAddress, in bonds: any BondStore, logger: Logger) -> PairingAddress? {
        guard address.typeBit == 1, ResolvablePrivateAddress.isResolvable(address.address) else { return nil }
        do {
            guard let bond = try bonds.bond(resolving: address), bond.peer != address else { return nil }
            return bond.peer
        } catch {
            logger.error("the bond store cannot be read: \(error)")
            return nil
        }
    }

    /// `count` octets from the system's cryptographically secure generator.
    public static let systemRandom: @Sendable (Int) -> [UInt8] = { count in
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }
}

extension Bond {
    /// The protection a link encrypted with this bond's key has.
    var level: SecurityLevel { SecurityLevel(authenticated: authenticated, secureConnections: secureConnections, keySize: keySize) }
}
