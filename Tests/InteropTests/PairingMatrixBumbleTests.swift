import BleuCore
import BumbleSupport
import Foundation
import Testing

@testable import BleuHCI

/// One cell of the pairing matrix: both sides' IO capabilities, and what both ask for.
struct MatrixCell: Sendable, CustomStringConvertible {
    var ours: IOCapability
    var theirs: IOCapability
    var secureConnections: Bool
    var mitm: Bool
    var bonding: Bool

    static let all: [MatrixCell] = IOCapability.matrix.flatMap { ours in
        IOCapability.matrix.flatMap { theirs in
            [true, false].flatMap { sc in
                [true, false].flatMap { mitm in
                    [true, false].map { MatrixCell(ours: ours, theirs: theirs, secureConnections: sc, mitm: mitm, bonding: $0) }
                }
            }
        }
    }

    var description: String {
        "ours \(ours), Bumble \(theirs), \(secureConnections ? "SC" : "legacy"), \(mitm ? "MITM" : "no MITM"), \(bonding ? "bonding" : "no bonding")"
    }

    /// Our Security Manager's configuration.
    var configuration: SecurityManagerConfiguration {
        SecurityManagerConfiguration(ioCapability: ours, bonding: bonding, requiresAuthentication: mitm,
                                     supportsSecureConnections: secureConnections)
    }

    /// The command that configures Bumble's side.
    var bumbleCommand: [String: any Sendable] {
        ["pairing": ["io": Int(theirs.rawValue), "sc": secureConnections, "mitm": mitm, "bonding": bonding] as [String: any Sendable]]
    }

    /// The association model the specification picks, with `central` initiating.
    func model(weAreCentral: Bool) -> AssociationModel {
        let authentication: AuthenticationRequirements = mitm ? [.mitm] : []
        let ourFeatures = PairingFeatures(ioCapability: ours, authentication: authentication, maximumKeySize: 16,
                                          initiatorKeys: [], responderKeys: [])
        let theirFeatures = PairingFeatures(ioCapability: theirs, authentication: authentication, maximumKeySize: 16,
                                          initiatorKeys: [], responderKeys: [])
        return AssociationModel.select(initiator: weAreCentral ? ourFeatures : theirFeatures,
                                       responder: weAreCentral ? theirFeatures : ourFeatures, secureConnections: secureConnections)
    }
}

extension IOCapability {
    static let matrix: [IOCapability] = [.displayOnly, .displayYesNo, .keyboardOnly, .noInputNoOutput, .keyboardDisplay]
}

/// Bumble's JSON lines, sorted: the passkeys it displays wait for our user.
actor BumbleLines {
    private var displays: [UInt32] = []
    private var waiting: CheckedContinuation<UInt32, Never>?
    private(set) var reports: [[String: any Sendable]] = []
    private var reportWaiter: CheckedContinuation<[String: any Sendable], Never>?

    func displayed(_ value: UInt32) {
        if let waiting {
            self.waiting = nil
            waiting.resume(returning: value)
        } else {
            displays.append(value)
        }
    }

    func report(_ object: [String: any Sendable]) {
        if let reportWaiter {
            self.reportWaiter = nil
            reportWaiter.resume(returning: object)
        } else {
            reports.append(object)
        }
    }

    /// Forgets what an earlier cell left.
    func reset() {
        displays = []
        reports = []
    }

    func nextDisplay() async -> UInt32 {
        if !displays.isEmpty { return displays.removeFirst() }
        return await withCheckedContinuation { waiting = $0 }
    }

    func nextReport() async -> [String: any Sendable] {
        if !reports.isEmpty { return reports.removeFirst() }
        return await withCheckedContinuation { reportWaiter = $0 }
    }

    /// Reads the link's lines until it ends.
    nonisolated func read(_ link: BumbleLink) -> Task<Void, Never> {
        Task {
            while let object = try? await link.nextObject() {
                if let value = object["display"] as? Int { await displayed(UInt32(value)) }
                if object["paired"] != nil {
                    await report(object.compactMapValues { value -> (any Sendable)? in
                        switch value {
                        case let value as Bool: value
                        case let value as String: value
                        default: nil
                        }
                    })
                }
            }
        }
    }
}

/// Our user in the matrix: types what Bumble displays, tells Bumble what we display, types the
/// same passkey on both sides when both only type, and confirms every comparison.
struct MatrixUser: PairingDelegate {
    let link: BumbleLink
    let lines: BumbleLines
    let model: AssociationModel

    func display(passkey: UInt32, to peer: UUID) async {
        try? link.send(["passkey": Int(passkey)])
    }

    func enterPasskey(for peer: UUID) async -> UInt32? {
        if case .passkeyEntry(.bothInput) = model {
            try? link.send(["passkey": 123_456])
            return 123_456
        }
        return await lines.nextDisplay()
    }

    func confirm(number: UInt32, with peer: UUID) async -> Bool { true }
}

/// The pairing matrix against Bumble 0.0.236's Security Manager: every pair of IO capabilities ×
/// Secure Connections or legacy × MITM or not × bonding or not (200 cells), in both roles. Each
/// cell must end as the specification says: the association model Table 2.8 picks, the level it
/// gives, a bond only when both bond — or, when MITM is asked for but the model is Just Works,
/// our refusal (Authentication Requirements).
@Suite("Interop: the pairing matrix against Bumble", .enabled(if: BumbleLink.python != nil, BumbleLink.skipReason),
       .timeLimit(.minutes(5)))
struct PairingMatrixBumbleTests {
    @Test("our central pairs with Bumble's peripheral: 200 cells")
    func ourCentral() async throws {
        let link = try await BumbleLink.start(peer: "advertise", name: "bumble-matrix", extra: ["--pairing", "justworks"])
        defer { link.stop() }
        let lines = BumbleLines()
        let reader = lines.read(link)
        defer { reader.cancel() }
        let peerAddress = try #require(link.peer)
        var tally: [String: Int] = [:]
        for cell in MatrixCell.all {
            await lines.reset()
            try link.send(cell.bumbleCommand)
            let model = cell.model(weAreCentral: true)
            let bonds = InMemoryBondStore()
            let radio = try await BumbleLink.radio(port: link.portA, configuration: HCIRadioConfiguration(security: cell.configuration),
                                                   bonds: bonds, name: "central")
            await radio.setPairingDelegate(MatrixUser(link: link, lines: lines, model: model))
            let central = HCICentralManager(radio: radio)
            let id = await radio.identify(peerAddress, type: .randomDevice)
            try await central.connect(id, timeout: .seconds(5))
            let refused = cell.mitm && model == .justWorks
            do {
                try await central.pair(id)
                #expect(!refused, "\(cell): paired although MITM was asked for and the model is Just Works")
                let level = await central.securityLevel(of: id)
                let expected = SecurityLevel(authenticated: model != .justWorks, secureConnections: cell.secureConnections, keySize: 16)
                #expect(level == expected, "\(cell): \(model) gave \(String(describing: level))")
                #expect(bonds.bonds().count == (cell.bonding ? 1 : 0), "\(cell): bonds \(bonds.bonds())")
                if let bond = bonds.bonds().first { #expect(bond.secureConnections == cell.secureConnections, "\(cell)") }
                tally["\(model)", default: 0] += 1
            } catch {
                #expect(refused && (error as? BleuError) == .pairingFailed(.smp(.authenticationRequirements)),
                        "\(cell): \(model) failed with \(error)")
                tally["refused", default: 0] += 1
            }
            await central.cancelConnection(id)
            await radio.stop()
        }
        print("pairing matrix, our central: \(tally.sorted { $0.key < $1.key })")
    }

    @Test("refusals: a mistyped passkey, a user who refuses (Pairing Not Supported); a bond re-encrypts without asking again")
    func refusalsAndBond() async throws {
        let link = try await BumbleLink.start(peer: "advertise", name: "bumble-matrix", extra: ["--pairing", "justworks"])
        defer { link.stop() }
        let lines = BumbleLines()
        let reader = lines.read(link)
        defer { reader.cancel() }
        let peerAddress = try #require(link.peer)
        let passkeyCell = MatrixCell(ours: .keyboardOnly, theirs: .displayOnly, secureConnections: true, mitm: true, bonding: true)

        /// Pairs once with Bumble configured by `bumble`, our user typing what Bumble shows plus `typo`.
        func attempt(_ bumble: [String: any Sendable], typo: UInt32 = 0, bonds: InMemoryBondStore = InMemoryBondStore(),
                     counter: PasskeyCounter = PasskeyCounter()) async throws -> (any Error)? {
            await lines.reset()
            try link.send(["pairing": bumble])
            // One address throughout: Bumble keeps its bond under it and answers its controller's
            // LTK request from that bond.
            let radio = try await BumbleLink.radio(port: link.portA, configuration: HCIRadioConfiguration(
                ownAddress: .randomStatic(BluetoothAddress(string: "C0:00:00:00:00:4E")!), security: passkeyCell.configuration),
                bonds: bonds, name: "central")
            await radio.setPairingDelegate(TypingUser(lines: lines, typo: typo, counter: counter))
            let central = HCICentralManager(radio: radio)
            let id = await radio.identify(peerAddress, type: .randomDevice)
            try await central.connect(id, timeout: .seconds(5))
            var failure: (any Error)?
            do { try await central.pair(id, minimum: .authenticated) } catch { failure = error }
            await central.cancelConnection(id)
            await radio.stop()
            return failure
        }

        let displays: [String: any Sendable] = ["io": Int(IOCapability.displayOnly.rawValue), "sc": true, "mitm": true, "bonding": true]
        let mistyped = try await attempt(displays, typo: 1)
        #expect((mistyped as? BleuError) == .pairingFailed(.smp(.confirmValueFailed)), "\(String(describing: mistyped))")
        var refusing = displays
        refusing["accept"] = false
        let refused = try await attempt(refusing)
        #expect((refused as? BleuError) == .pairingFailed(.smp(.pairingNotSupported)), "\(String(describing: refused))")

        // A bond: the second connection is encrypted from it, without asking our user again.
        let bonds = InMemoryBondStore()
        let counter = PasskeyCounter()
        let first = try await attempt(displays, bonds: bonds, counter: counter)
        #expect(first == nil, "\(String(describing: first))")
        let second = try await attempt(displays, bonds: bonds, counter: counter)
        #expect(second == nil, "\(String(describing: second))")
        #expect(await counter.count == 1, "the passkey was asked for once: the reconnection used the bond")
        #expect(bonds.bonds().first?.authenticated == true)
    }

    @Test("Bumble's central pairs with our peripheral: 200 cells")
    func ourPeripheral() async throws {
        let ourAddress = BluetoothAddress(string: "C0:00:00:00:00:4D")!
        let link = try await BumbleLink.start(peer: "central-idle", peerAddress: "D0:00:00:00:00:05")
        defer { link.stop() }
        let lines = BumbleLines()
        let reader = lines.read(link)
        defer { reader.cancel() }
        var tally: [String: Int] = [:]
        for cell in MatrixCell.all {
            await lines.reset()
            try link.send(cell.bumbleCommand)
            let model = cell.model(weAreCentral: false)
            let bonds = InMemoryBondStore()
            let radio = try await BumbleLink.radio(port: link.portA, configuration: HCIRadioConfiguration(
                ownAddress: .randomStatic(ourAddress), advertisingInterval: .milliseconds(20), security: cell.configuration),
                bonds: bonds, name: "peripheral")
            await radio.setPairingDelegate(MatrixUser(link: link, lines: lines, model: model))
            let peripheral = HCIPeripheralManager(radio: radio)
            try await peripheral.startAdvertising(AdvertisingData(localName: "bleu-matrix"))
            try link.send(["pair_with": ourAddress.description])
            let report = await lines.nextReport()
            let refused = cell.mitm && model == .justWorks
            let central = await radio.identify(BluetoothAddress(string: "D0:00:00:00:00:05")!, type: .randomDevice)
            if report["paired"] as? Bool == true {
                #expect(!refused, "\(cell): paired although MITM was asked for and the model is Just Works")
                #expect(report["encrypted"] as? Bool == true, "\(cell): \(report)")
                // Our side finishes key distribution a moment after Bumble reports the pairing.
                let expected = SecurityLevel(authenticated: model != .justWorks, secureConnections: cell.secureConnections, keySize: 16)
                await settled { await peripheral.securityLevel(of: central) == expected && bonds.bonds().count == (cell.bonding ? 1 : 0) }
                #expect(await peripheral.securityLevel(of: central) == expected, "\(cell): \(model)")
                #expect(bonds.bonds().count == (cell.bonding ? 1 : 0), "\(cell): bonds \(bonds.bonds())")
                if let bond = bonds.bonds().first {
                    #expect(bond.secureConnections == cell.secureConnections && bond.authenticated == (model != .justWorks), "\(cell)")
                }
                tally["\(model)", default: 0] += 1
            } else {
                #expect(refused, "\(cell): \(model) failed: \(report)")
                tally["refused", default: 0] += 1
            }
            try link.send(["release": true])
            await radio.stop()
        }
        print("pairing matrix, our peripheral: \(tally.sorted { $0.key < $1.key })")
    }
}

/// Waits, yielding to other tasks, until `condition` holds (our side finishes key distribution a
/// moment after Bumble reports the pairing): state polling, not a timed sleep.
func settled(_ condition: () async -> Bool) async {
    for _ in 0..<100_000 {
        if await condition() { return }
        await Task.yield()
    }
}

/// Counts the passkeys our user was asked for.
actor PasskeyCounter {
    private(set) var count = 0
    func ask() { count += 1 }
}

/// Our user typing what Bumble displays, plus `typo`.
struct TypingUser: PairingDelegate {
    let lines: BumbleLines
    let typo: UInt32
    let counter: PasskeyCounter

    func enterPasskey(for peer: UUID) async -> UInt32? {
        await counter.ask()
        return (await lines.nextDisplay() + typo) % 1_000_000
    }
}
