import BleuCore
import Foundation

@testable import BleuHCI

/// Two scripted controllers on one air, in memory, for pairing tests between two of our radios:
/// LE Create Connection connects them at once (handle 0x0040 on both), ACL packets cross over
/// (each completed at once), and encryption runs as the Link Layer runs it — LE Enable
/// Encryption asks the peripheral's host for its key (LE Long Term Key Request); a matching
/// reply encrypts both ends (Encryption Change, or Encryption Key Refresh Complete when already
/// encrypted), a different key ends the connection (MIC Failure) and a negative reply fails the
/// central's encryption (PIN or Key Missing) — as Bumble 0.0.236's controllers do, here in
/// memory and on an injected clock, with no Python.
actor LinkedControllers {
    enum Side: Int, Sendable { case a, b }

    static let handle: UInt16 = 0x0040

    /// The hosts' configuration on these controllers. They answer every command in memory, so a
    /// wall-clock command timeout can only fire when the test process's scheduler starves the
    /// controller's task: seen at the default 5 s under ThreadSanitizer on 2 cores, with every
    /// test of the run sharing them. A bound this long still ends a hang before the CI watchdog.
    static let hostConfiguration = HCIHost.Configuration(commandTimeout: patience)

    /// How long these tests wait on the wall clock for what the controllers do at once
    /// (commands, connections): a starved scheduler's delay, not the controllers' speed.
    static let patience: Duration = .seconds(120)

    let hostA: InMemoryHCITransport
    let hostB: InMemoryHCITransport
    private let ends: [InMemoryHCITransport]
    private var addresses: [BluetoothAddress]
    private var central: Side?
    private var encrypted = false
    /// The key the central started encryption with.
    private var offered: [UInt8]?
    /// SMP PDUs from this side are dropped (a peer that stops answering).
    private var silencedSMP: Side?
    /// Every SMP PDU that crossed, in order, with the side that sent it.
    private(set) var smpLog: [(Side, UInt8)] = []

    init() {
        let (hostA, controllerA) = InMemoryHCITransport.makePair()
        let (hostB, controllerB) = InMemoryHCITransport.makePair()
        self.hostA = hostA
        self.hostB = hostB
        ends = [controllerA, controllerB]
        addresses = [BluetoothAddress(string: "C0:00:00:00:00:0A")!, BluetoothAddress(string: "C0:00:00:00:00:0B")!]
    }

    /// Starts serving both controllers.
    func run() {
        for side in [Side.a, .b] {
            let end = ends[side.rawValue]
            Task { [weak self] in
                do {
                    for try await packet in end.incoming { await self?.received(packet, from: side) }
                } catch {}
            }
        }
    }

    func address(_ side: Side) -> BluetoothAddress { addresses[side.rawValue] }

    /// Drops the SMP PDUs `side` sends from now on.
    func silenceSMP(from side: Side) { silencedSMP = side }

    private func other(_ side: Side) -> Side { side == .a ? .b : .a }

    private func send(_ event: HCIEvent, to side: Side) async {
        try? await ends[side.rawValue].send(event.h4Packet)
    }

    private func received(_ packet: H4Packet, from side: Side) async {
        switch packet.type {
        case .command:
            guard let command = try? HCICommand(decoding: packet.body) else { return }
            await execute(command, from: side)
        case .acl:
            guard let acl = try? ACLPacket(decoding: packet.body) else { return }
            await send(.numberOfCompletedPackets([.init(handle: acl.handle, count: 1)]), to: side)
            guard central != nil else { return }
            if acl.boundary != .continuing, acl.data.count >= 5, acl.data[2] == 0x06, acl.data[3] == 0 {
                smpLog.append((side, acl.data[4]))
                if silencedSMP == side { return }
            }
            try? await ends[other(side).rawValue].send(acl.h4Packet)
        default:
            break
        }
    }

    private func execute(_ command: HCICommand, from side: Side) async {
        if let events = FakeController.startUpAnswers(bufferLength: 251, bufferCount: 8, address: address(side))(command) {
            for event in events { await send(event, to: side) }
            return
        }
        let handle = Self.handle
        switch command {
        case .leSetRandomAddress(let address):
            addresses[side.rawValue] = address
            await send(FakeController.complete(command), to: side)
        case .leCreateConnection, .leExtendedCreateConnection:
            await send(.commandStatus(status: 0, numHCICommandPackets: 1, opcode: command.opcode), to: side)
            central = side
            encrypted = false
            await send(.le(.connectionComplete(LEConnectionComplete(
                handle: handle, role: .central, peerAddressType: .randomDevice, peerAddress: address(other(side)),
                interval: .milliseconds(30)))), to: side)
            await send(.le(.connectionComplete(LEConnectionComplete(
                handle: handle, role: .peripheral, peerAddressType: .randomDevice, peerAddress: address(side),
                interval: .milliseconds(30)))), to: other(side))
        case .disconnect:
            await send(.commandStatus(status: 0, numHCICommandPackets: 1, opcode: command.opcode), to: side)
            await disconnect(reason: 0x13, initiator: side)
        case let .leEnableEncryption(_, random, ediv, key):
            await send(.commandStatus(status: 0, numHCICommandPackets: 1, opcode: command.opcode), to: side)
            offered = key
            await send(.le(.longTermKeyRequest(handle: handle, random: random, ediv: ediv)), to: other(side))
        case .leLongTermKeyRequestReply(_, let key):
            await send(FakeController.complete(command, [0, UInt8(handle & 0xFF), UInt8(handle >> 8)]), to: side)
            guard let central, let offered else { return }
            self.offered = nil
            if key == offered {
                let wasEncrypted = encrypted
                encrypted = true
                for end in [central, other(central)] {
                    await send(wasEncrypted ? .encryptionKeyRefreshComplete(status: 0, handle: handle)
                                            : .encryptionChange(status: 0, handle: handle, enabled: 1), to: end)
                }
            } else {
                await disconnect(reason: 0x3D, initiator: nil)  // MIC Failure: the keys differ
            }
        case .leLongTermKeyRequestNegativeReply:
            await send(FakeController.complete(command, [0, UInt8(handle & 0xFF), UInt8(handle >> 8)]), to: side)
            offered = nil
            if let central { await send(.encryptionChange(status: 0x06, handle: handle, enabled: 0), to: central) }
        case .leSetDataLength:
            await send(FakeController.complete(command, [0, UInt8(handle & 0xFF), UInt8(handle >> 8)]), to: side)
        default:
            await send(FakeController.complete(command), to: side)
        }
    }

    /// The connection ends: the side that asked hears Connection Terminated by Local Host, the
    /// other `reason` (both hear `reason` when the Link Layer ended it).
    private func disconnect(reason: UInt8, initiator: Side?) async {
        guard central != nil else { return }
        central = nil
        for side in [Side.a, .b] {
            let reported = side == initiator ? 0x16 : reason
            await send(.disconnectionComplete(status: 0, handle: Self.handle, reason: reported), to: side)
        }
    }
}
