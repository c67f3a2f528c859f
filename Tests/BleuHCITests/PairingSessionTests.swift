import BleuCore
import Foundation
import Testing

@testable import BleuHCI

/// Two pairing sessions, an initiator and a responder, wired to each other: every PDU goes
/// through the codec on its way, users answer as told, and encryption starts when the initiator
/// asks (with the key the responder would hand its controller).
struct PairingHarness {
    /// How the users answer.
    struct Users {
        /// The passkey the user types when the other side shows none (`bothInput`), or a wrong one.
        var typed: UInt32? = nil
        /// The answer to a number comparison.
        var numbersMatch = true
    }

    var initiator: PairingSession
    var responder: PairingSession
    var users = Users()
    var shown: [PairingSession.Role: UInt32] = [:]
    var compared: [PairingSession.Role: UInt32] = [:]
    var outcomes: [PairingSession.Role: PairingOutcome] = [:]
    var failures: [PairingSession.Role: PairingFailure] = [:]
    var encryptedWith: LongTermKey?
    var pdus: [(from: PairingSession.Role, SMPPDU)] = []
    /// PDUs a third party slips in right after each PDU a side receives.
    var inject: (_ receiver: PairingSession.Role, _ received: SMPPDU) -> [SMPPDU] = { _, _ in [] }

    static let central = PairingAddress(type: .publicDevice, address: BluetoothAddress(string: "A1:A2:A3:A4:A5:A6")!)
    static let peripheral = PairingAddress(type: .randomDevice, address: BluetoothAddress(string: "C1:B2:B3:B4:B5:B6")!)

    /// - Parameter legacyInitiator: The central pairs as a legacy-only device (no Secure Connections).
    init(initiator: SecurityManagerConfiguration, responder: SecurityManagerConfiguration, seed: UInt64,
         legacyInitiator: Bool = false, initiatorOOB: PairingOutOfBand = .none, responderOOB: PairingOutOfBand = .none) {
        var initiator = initiator
        if legacyInitiator { initiator.supportsSecureConnections = false }
        let source = Locked(SeededRandomNumberGenerator(seed: seed))
        let random: @Sendable (Int) -> [UInt8] = { count in
            source.withLock { generator in (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) } }
        }
        self.initiator = PairingSession(role: .initiator, configuration: initiator, initiatorAddress: Self.central,
                                        responderAddress: Self.peripheral, keyPair: PairingKeyPair(), outOfBand: initiatorOOB,
                                        random: random)
        self.responder = PairingSession(role: .responder, configuration: responder, initiatorAddress: Self.central,
                                        responderAddress: Self.peripheral, keyPair: PairingKeyPair(), outOfBand: responderOOB,
                                        random: random)
    }

    /// Roles whose user was asked for a passkey and has not answered.
    var askedForPasskey: [PairingSession.Role] = []

    /// Runs the pairing to its end. A user asked for a passkey types what the other device shows
    /// (or `users.typed`, or 424242 when neither shows one) once nothing else can happen — after
    /// the other side showed its passkey; `wrong` types one off, `cancel` cancels.
    mutating func run(wrong: Bool = false, cancel: Bool = false) throws {
        try drain(initiator.start().map { (.initiator, $0) })
        while !askedForPasskey.isEmpty {
            let role = askedForPasskey.removeFirst()
            let other: PairingSession.Role = role == .initiator ? .responder : .initiator
            var value = shown[other] ?? users.typed ?? 424_242
            if wrong { value = (value + 1) % 1_000_000 }
            try drain(self[role].passkeyEntered(cancel ? nil : value).map { (role, $0) })
        }
    }

    private mutating func drain(_ initial: [(PairingSession.Role, PairingAction)]) throws {
        var queue = initial
        var steps = 0
        while !queue.isEmpty {
            steps += 1
            guard steps < 10_000 else { throw HarnessError.noEnd }
            let (role, action) = queue.removeFirst()
            let other: PairingSession.Role = role == .initiator ? .responder : .initiator
            switch action {
            case .send(let pdu):
                pdus.append((role, pdu))
                let decoded = try SMPPDU(decoding: pdu.encoded)
                queue += self[other].receive(decoded).map { (other, $0) }
                for extra in inject(other, decoded) { queue += self[other].receive(extra).map { (other, $0) } }
            case .displayPasskey(let value):
                shown[role] = value
            case .requestPasskey:
                askedForPasskey.append(role)
            case .confirmNumber(let value):
                compared[role] = value
                queue += self[role].numberConfirmed(users.numbersMatch).map { (role, $0) }
            case .encrypt(let key):
                encryptedWith = key
                #expect(responder.encryptionKey == key, "the responder hands its controller the key the initiator encrypts with")
                queue += responder.encryptionChanged().map { (.responder, $0) }
                queue += initiator.encryptionChanged().map { (.initiator, $0) }
            case .completed(let outcome):
                outcomes[role] = outcome
            case .failed(let failure):
                failures[role] = failure
            }
        }
    }

    subscript(role: PairingSession.Role) -> PairingSession {
        get { role == .initiator ? initiator : responder }
        set { if role == .initiator { initiator = newValue } else { responder = newValue } }
    }

    enum HarnessError: Error { case noEnd }
}

@Suite("Pairing sessions: both roles against each other")
struct PairingSessionTests {
    static let capabilities: [IOCapability] = [.displayOnly, .displayYesNo, .keyboardOnly, .noInputNoOutput, .keyboardDisplay]

    static func seed() -> UInt64 {
        let seed = ProcessInfo.processInfo.environment["BLEU_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 1...UInt64.max)
        print("PairingSessionTests seed: \(seed) (rerun with BLEU_SEED=\(seed))")
        return seed
    }

    @Test("every IO capability pair × Secure Connections or legacy × MITM × bonding completes with matching keys")
    func matrix() throws {
        let seed = Self.seed()
        var count = 0
        for initiatorIO in Self.capabilities {
            for responderIO in Self.capabilities {
                for legacy in [false, true] {
                    for mitm in [false, true] {
                        for bonding in [false, true] {
                            count += 1
                            let identity = PairingIdentity(resolvingKey: Array(repeating: 0x11, count: 16), address: PairingHarness.peripheral)
                            var harness = PairingHarness(
                                initiator: SecurityManagerConfiguration(ioCapability: initiatorIO, bonding: bonding, requiresAuthentication: mitm),
                                responder: SecurityManagerConfiguration(ioCapability: responderIO, bonding: bonding, identity: identity),
                                seed: seed &+ UInt64(count), legacyInitiator: legacy)
                            try harness.run()
                            let label = "\(initiatorIO) → \(responderIO), legacy \(legacy), MITM \(mitm), bonding \(bonding) (seed \(seed))"
                            let model = AssociationModel.byIOCapabilities(initiator: initiatorIO, responder: responderIO,
                                                                           secureConnections: !legacy)
                            if mitm && !model.isAuthenticated {
                                // The central demands protection the capabilities cannot give.
                                #expect(harness.failures[.initiator]?.reason == .authenticationRequirements, "\(label)")
                                #expect(harness.failures[.responder] == PairingFailure(reason: .authenticationRequirements, byPeer: true), "\(label)")
                                continue
                            }
                            let central = try #require(harness.outcomes[.initiator], "\(label): \(harness.failures)")
                            let peripheral = try #require(harness.outcomes[.responder], "\(label): \(harness.failures)")
                            #expect(central.model == (mitm ? model : .justWorks), "\(label)")
                            #expect(central.model == peripheral.model && central.secureConnections == !legacy, "\(label)")
                            #expect(central.bonded == bonding && peripheral.bonded == bonding, "\(label)")
                            #expect(central.keySize == 16)
                            if legacy {
                                #expect(central.secureConnectionsKey == nil)
                                // The peripheral's LTK is the central's to encrypt with later.
                                #expect(central.peer.longTermKey == peripheral.local.longTermKey, "\(label)")
                                #expect((central.peer.longTermKey != nil) == bonding, "\(label)")
                            } else {
                                #expect(central.secureConnectionsKey != nil && central.secureConnectionsKey == peripheral.secureConnectionsKey, "\(label)")
                                #expect(harness.encryptedWith == central.secureConnectionsKey, "\(label)")
                                #expect(central.peer.longTermKey == nil, "no LTK is distributed with Secure Connections")
                            }
                            #expect(central.peer.identity == (bonding ? identity : nil), "\(label)")
                            #expect(central.peer.signatureKey == peripheral.local.signatureKey, "\(label)")
                            if central.model == .numericComparison {
                                #expect(harness.compared[.initiator] != nil && harness.compared[.initiator] == harness.compared[.responder], "\(label)")
                            }
                        }
                    }
                }
            }
        }
        #expect(count == 200)
    }

    @Test("Out of Band, Secure Connections: data both ways or either way pairs authenticated with one key; data of another key fails Confirm Value Failed; a flag without data fails OOB Not Available")
    func outOfBandSecureConnections() throws {
        let seed = Self.seed()
        let random: (Int) -> [UInt8] = { count in (0..<count).map { _ in UInt8.random(in: 0...255) } }
        let central = LocalOutOfBand(random: random)
        let peripheral = LocalOutOfBand(random: random)
        let stranger = LocalOutOfBand(random: random)
        // No display, no keyboard: without OOB these devices could only do Just Works.
        let configuration = SecurityManagerConfiguration(requiresAuthentication: true)
        let cases: [(String, PairingOutOfBand, PairingOutOfBand, SMPReason?)] = [
            ("both ways", PairingOutOfBand(local: central, peer: peripheral.data), PairingOutOfBand(local: peripheral, peer: central.data), nil),
            ("the central holds the peripheral's", PairingOutOfBand(peer: peripheral.data), PairingOutOfBand(local: peripheral), nil),
            ("the peripheral holds the central's", PairingOutOfBand(local: central), PairingOutOfBand(peer: central.data), nil),
            ("data of another key", PairingOutOfBand(peer: stranger.data), PairingOutOfBand(local: peripheral), .confirmValueFailed),
            ("a random value that is not the confirm's",
             PairingOutOfBand(peer: OutOfBandData(confirm: peripheral.data.confirm, random: stranger.data.random)),
             PairingOutOfBand(local: peripheral), .confirmValueFailed),
            ("a flag without data made here", PairingOutOfBand(peer: peripheral.data), .none, .oobNotAvailable),
        ]
        for (index, (label, initiatorOOB, responderOOB, failure)) in cases.enumerated() {
            var harness = PairingHarness(initiator: configuration, responder: configuration, seed: seed &+ UInt64(index),
                                         initiatorOOB: initiatorOOB, responderOOB: responderOOB)
            try harness.run()
            if let failure {
                let failed = harness.failures[.initiator] ?? harness.failures[.responder]
                #expect(failed?.reason == failure && harness.outcomes.isEmpty, "\(label): \(harness.failures)")
                continue
            }
            let a = try #require(harness.outcomes[.initiator], "\(label): \(harness.failures)")
            let b = try #require(harness.outcomes[.responder], "\(label): \(harness.failures)")
            #expect(a.model == .outOfBand && b.model == .outOfBand && a.authenticated && a.secureConnections, "\(label)")
            #expect(a.secureConnectionsKey != nil && a.secureConnectionsKey == b.secureConnectionsKey, "\(label)")
            #expect(!harness.pdus.contains { if case .pairingConfirm = $0.1 { true } else { false } }, "\(label): no confirm crosses the air")
        }
    }

    @Test("Out of Band, legacy: a shared TK pairs authenticated; different TKs fail Confirm Value Failed; a TK on one side only leaves the IO capabilities to choose")
    func outOfBandLegacy() throws {
        let seed = Self.seed()
        let legacy = SecurityManagerConfiguration(supportsSecureConnections: false)
        let key = Array(UInt8(1)...16)
        var shared = PairingHarness(initiator: legacy, responder: legacy, seed: seed, initiatorOOB: PairingOutOfBand(temporaryKey: key),
                                    responderOOB: PairingOutOfBand(temporaryKey: key))
        try shared.run()
        let a = try #require(shared.outcomes[.initiator], "\(shared.failures)")
        #expect(a.model == .outOfBand && a.authenticated && !a.secureConnections)
        #expect(shared.outcomes[.responder]?.model == .outOfBand)

        var different = PairingHarness(initiator: legacy, responder: legacy, seed: seed &+ 1,
                                       initiatorOOB: PairingOutOfBand(temporaryKey: key),
                                       responderOOB: PairingOutOfBand(temporaryKey: key.reversed()))
        try different.run()
        #expect((different.failures[.initiator] ?? different.failures[.responder])?.reason == .confirmValueFailed)

        var oneSide = PairingHarness(initiator: legacy, responder: legacy, seed: seed &+ 2, initiatorOOB: PairingOutOfBand(temporaryKey: key))
        try oneSide.run()
        #expect(oneSide.outcomes[.initiator]?.model == .justWorks, "\(oneSide.failures)")
    }

    @Test("a wrong passkey fails with Confirm Value Failed; a cancelled one with Passkey Entry Failed")
    func wrongPasskey() throws {
        let seed = Self.seed()
        for legacy in [false, true] {
            var harness = PairingHarness(initiator: SecurityManagerConfiguration(ioCapability: .keyboardOnly, requiresAuthentication: true),
                                         responder: SecurityManagerConfiguration(ioCapability: .displayOnly), seed: seed, legacyInitiator: legacy)
            harness.users.typed = 123_456
            try harness.run(wrong: true)
            #expect(harness.outcomes.isEmpty)
            let failure = try #require(harness.failures[.initiator] ?? harness.failures[.responder])
            #expect(failure.reason == .confirmValueFailed, "legacy \(legacy) (seed \(seed))")
            #expect(harness.failures.count == 2, "both sides know (seed \(seed))")
        }
        var cancelled = PairingHarness(initiator: SecurityManagerConfiguration(ioCapability: .keyboardOnly, requiresAuthentication: true),
                                       responder: SecurityManagerConfiguration(ioCapability: .displayOnly), seed: seed)
        try cancelled.run(cancel: true)
        #expect(cancelled.failures[.initiator]?.reason == .passkeyEntryFailed)
        #expect(cancelled.failures[.responder] == PairingFailure(reason: .passkeyEntryFailed, byPeer: true))
    }

    @Test("numbers that do not match fail with Numeric Comparison Failed")
    func numbersDiffer() throws {
        var harness = PairingHarness(initiator: SecurityManagerConfiguration(ioCapability: .displayYesNo, requiresAuthentication: true),
                                     responder: SecurityManagerConfiguration(ioCapability: .displayYesNo), seed: Self.seed())
        harness.users.numbersMatch = false
        try harness.run()
        #expect(harness.outcomes.isEmpty)
        #expect(harness.failures.values.contains { $0.reason == .numericComparisonFailed && !$0.byPeer })
    }

    @Test("Secure Connections Only refuses a legacy peer; a key below the minimum size is refused")
    func refusals() throws {
        var legacyPeer = PairingHarness(initiator: SecurityManagerConfiguration(),
                                        responder: SecurityManagerConfiguration(secureConnectionsOnly: true), seed: Self.seed(), legacyInitiator: true)
        try legacyPeer.run()
        #expect(legacyPeer.failures[.responder]?.reason == .authenticationRequirements)
        #expect(legacyPeer.failures[.initiator] == PairingFailure(reason: .authenticationRequirements, byPeer: true))

        // A request whose maximum key size is below the responder's minimum.
        var session = PairingSession(role: .responder, configuration: SecurityManagerConfiguration(minimumKeySize: 16),
                                     initiatorAddress: PairingHarness.central, responderAddress: PairingHarness.peripheral,
                                     keyPair: PairingKeyPair(), random: { [UInt8](repeating: 7, count: $0) })
        let request = PairingFeatures(ioCapability: .noInputNoOutput, authentication: [.secureConnections], maximumKeySize: 10,
                                      initiatorKeys: [], responderKeys: [])
        #expect(session.receive(.pairingRequest(request)) == [.send(.pairingFailed(.encryptionKeySize)),
                                                             .failed(PairingFailure(reason: .encryptionKeySize, byPeer: false))])
    }

    @Test("a public key off the curve, or our own sent back, fails with DHKey Check Failed")
    func badPublicKeys() throws {
        for reflect in [false, true] {
            let keys = PairingKeyPair()
            var session = PairingSession(role: .responder, configuration: SecurityManagerConfiguration(),
                                         initiatorAddress: PairingHarness.central, responderAddress: PairingHarness.peripheral,
                                         keyPair: keys, random: { [UInt8](repeating: 7, count: $0) })
            let request = PairingFeatures(ioCapability: .noInputNoOutput, authentication: [.secureConnections],
                                          initiatorKeys: [], responderKeys: [])
            _ = session.receive(.pairingRequest(request))
            var y = keys.y
            if !reflect { y[31] ^= 1 }
            let actions = session.receive(.pairingPublicKey(x: keys.x, y: y))
            #expect(actions == [.send(.pairingFailed(.dhKeyCheckFailed)), .failed(PairingFailure(reason: .dhKeyCheckFailed, byPeer: false))])
            #expect(session.receive(.pairingConfirm([UInt8](repeating: 0, count: 16))).isEmpty, "a failed session ignores what follows")
        }
    }

    @Test("a key sent twice fails the pairing: a second identification or identity address cannot rename what the bond keeps")
    func duplicateKeys() throws {
        let identity = PairingIdentity(resolvingKey: [UInt8](repeating: 9, count: 16),
                                       address: PairingAddress(type: .randomDevice, address: BluetoothAddress(string: "C0:00:00:00:00:99")!))
        let duplicates: [(SMPPDU) -> SMPPDU?] = [
            { if case let .centralIdentification(ediv, rand) = $0 { .centralIdentification(ediv: ediv &+ 1, rand: rand) } else { nil } },
            { if case .identityAddressInformation = $0 {
                .identityAddressInformation(type: .randomDevice, address: BluetoothAddress(string: "C0:00:00:00:00:66")!) } else { nil } },
        ]
        for duplicate in duplicates {
            var harness = PairingHarness(initiator: SecurityManagerConfiguration(supportsSecureConnections: false),
                                         responder: SecurityManagerConfiguration(supportsSecureConnections: false, identity: identity),
                                         seed: 7)
            harness.inject = { receiver, received in receiver == .initiator ? duplicate(received).map { [$0] } ?? [] : [] }
            try harness.run()
            #expect(harness.outcomes[.initiator] == nil, "the initiator kept keys renamed by a second PDU")
            #expect(harness.failures[.initiator] == PairingFailure(reason: .unspecifiedReason, byPeer: false))
        }
        // Without the duplicates the same pairing completes with the responder's keys.
        var clean = PairingHarness(initiator: SecurityManagerConfiguration(supportsSecureConnections: false),
                                   responder: SecurityManagerConfiguration(supportsSecureConnections: false, identity: identity), seed: 7)
        try clean.run()
        #expect(clean.outcomes[.initiator]?.peer.longTermKey == clean.outcomes[.responder]?.local.longTermKey)
        #expect(clean.outcomes[.initiator]?.peer.identity == identity)
    }

    @Test("a PDU out of order fails the pairing with Unspecified Reason")
    func outOfOrder() {
        var session = PairingSession(role: .responder, configuration: SecurityManagerConfiguration(),
                                     initiatorAddress: PairingHarness.central, responderAddress: PairingHarness.peripheral,
                                     keyPair: PairingKeyPair(), random: { [UInt8](repeating: 7, count: $0) })
        #expect(session.receive(.pairingRandom([UInt8](repeating: 0, count: 16)))
                == [.send(.pairingFailed(.unspecifiedReason)), .failed(PairingFailure(reason: .unspecifiedReason, byPeer: false))])
    }
}


@Suite("Pairing sessions: hostile input")
struct PairingSessionHostileInputTests {
    /// A PDU of a random kind with random contents (lengths as the codec requires).
    static func randomPDU(_ generator: inout SeededRandomNumberGenerator) -> SMPPDU {
        func octets(_ count: Int) -> [UInt8] { (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) } }
        var bytes = [UInt8.random(in: 1...0x0E, using: &generator)]
        let lengths: [UInt8: Int] = [1: 6, 2: 6, 3: 16, 4: 16, 5: 1, 6: 16, 7: 10, 8: 16, 9: 7, 10: 16, 11: 1, 12: 64, 13: 16, 14: 1]
        bytes += octets(lengths[bytes[0]]!)
        if bytes[0] <= 2 { bytes[2] &= 1 }   // a valid OOB flag, so the features decode
        return (try? SMPPDU(decoding: bytes)) ?? .pairingFailed(.unspecifiedReason)
    }

    @Test("random PDUs in any order: a session ends at most once, sends nothing after, and never completes unauthenticated by chance")
    func randomSequences() {
        let seed = PairingSessionTests.seed()
        var generator = SeededRandomNumberGenerator(seed: seed)
        for run in 0..<2_000 {
            let role: PairingSession.Role = run % 2 == 0 ? .initiator : .responder
            var session = PairingSession(role: role, configuration: SecurityManagerConfiguration(ioCapability: .keyboardDisplay),
                                         initiatorAddress: PairingHarness.central, responderAddress: PairingHarness.peripheral,
                                         keyPair: PairingKeyPair(privateKey: SecurityFunctionsTests.privateB)!,
                                         random: { [UInt8](repeating: 0x42, count: $0) })
            var actions = session.start()
            var ended = 0
            for _ in 0..<12 {
                switch UInt8.random(in: 0...9, using: &generator) {
                case 0: actions += session.passkeyEntered(UInt32.random(in: 0...1_100_000, using: &generator))
                case 1: actions += session.numberConfirmed(Bool.random(using: &generator))
                case 2: actions += session.encryptionChanged()
                default:
                    let before = ended
                    let next = session.receive(Self.randomPDU(&generator))
                    if before > 0 { #expect(next.isEmpty, "a finished session answered (seed \(seed), run \(run))") }
                    actions += next
                }
                ended = actions.count { if case .failed = $0 { true } else if case .completed = $0 { true } else { false } }
                #expect(ended <= 1, "a session ended twice (seed \(seed), run \(run))")
            }
            #expect(!actions.contains { if case .completed = $0 { true } else { false } },
                    "random PDUs completed a pairing (seed \(seed), run \(run))")
        }
    }
}
