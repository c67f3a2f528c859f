import BleuATT
import BleuCore
import Foundation
import Testing

@testable import BleuHCI

/// Random and mutated bytes into every parser and the ATT server: only typed errors, never a
/// crash or a hang. Seeded; the seed is printed (set BLEU_HCI_SEED to replay one).
@Suite("Codecs: hostile input")
struct HostileInputTests {
    static func generator() -> SeededRandomNumberGenerator {
        if let text = ProcessInfo.processInfo.environment["BLEU_HCI_SEED"], let seed = UInt64(text) {
            return SeededRandomNumberGenerator(seed: seed)
        }
        return SeededRandomNumberGenerator()
    }

    /// Feeds `bytes` to every decoder; records anything other than success or PacketDecodingError.
    static func feed(_ bytes: [UInt8], database: GATTDatabase, connection: inout ATTServerConnection, seed: UInt64) {
        let decoders: [(String, ([UInt8]) throws -> Void)] = [
            ("HCIEvent", { _ = try HCIEvent(decoding: $0) }),
            ("HCICommand", { _ = try HCICommand(decoding: $0) }),
            ("ACLPacket", { _ = try ACLPacket(decoding: $0) }),
            ("LEMetaEvent", { _ = try LEMetaEvent(decoding: $0) }),
            ("L2CAPBFrame", { _ = try L2CAPBFrame(decoding: $0) }),
            ("L2CAPSignal", { _ = try L2CAPSignal(decoding: $0) }),
            ("ATTPDU", { _ = try ATTPDU(decoding: $0) }),
            ("H4Packet", { _ = try H4Packet(decoding: $0) }),
        ]
        for (name, decode) in decoders {
            do {
                try decode(bytes)
            } catch is PacketDecodingError {
            } catch {
                Issue.record("\(name) threw \(error) for \(hexString(bytes)) (seed \(seed))")
            }
        }
        // The server must answer or drop, whatever arrives; a response always fits the MTU.
        if case .respond(let pdu) = ATTServer.handle(bytes, database: database, connection: &connection) {
            #expect(pdu.encoded.count <= connection.mtu, "response longer than the MTU for \(hexString(bytes)) (seed \(seed))")
        }
    }

    /// The GAP and GATT services and one service with an application value, a static value and
    /// a writable 128-bit characteristic.
    static func database() throws -> GATTDatabase {
        var database = GATTDatabase(deviceName: "bleu-test", appearance: 0x0340)
        _ = try database.add(ServiceDefinition(uuid: BluetoothUUID.Service.battery, characteristics: [
            CharacteristicDefinition(uuid: BluetoothUUID(0x2A19), properties: [.read, .notify], permissions: .readable),
            CharacteristicDefinition(uuid: BluetoothUUID(0x2A24), properties: .read, permissions: .readable,
                                     value: Data("Model-7".utf8), descriptors: [.userDescription("model")]),
            CharacteristicDefinition(uuid: BluetoothUUID("6E400002-B5A3-F393-E0A9-E50E24DCCA9E"),
                                     properties: [.write, .writeWithoutResponse], permissions: .writeable),
        ]))
        return database
    }

    @Test("random bytes")
    func randomBytes() throws {
        var rng = Self.generator()
        print("HostileInputTests.randomBytes seed \(rng.seed)")
        let database = try Self.database()
        var connection = ATTServerConnection()
        for _ in 0..<20_000 {
            let bytes = (0..<Int.random(in: 0...40, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            Self.feed(bytes, database: database, connection: &connection, seed: rng.seed)
        }
    }

    @Test("valid packets with bytes flipped, cut or extended; the ACL reassembler stays bounded")
    func mutations() throws {
        var rng = Self.generator()
        print("HostileInputTests.mutations seed \(rng.seed)")
        let database = try Self.database()
        var connection = ATTServerConnection()
        var reassembler = ACLReassembler(maxPDULength: 512, maxConnections: 4)
        let samples = CodecSamples.all.map { sample -> [UInt8] in
            if case .signal = sample.1 { return sample.1.encoded }
            if case .att = sample.1 { return sample.1.encoded }
            return Array(sample.1.encoded.dropFirst())  // HCI packets without the H4 indicator
        }
        for _ in 0..<20_000 {
            var bytes = samples.randomElement(using: &rng)!
            switch Int.random(in: 0..<3, using: &rng) {
            case 0 where !bytes.isEmpty:
                let index = Int.random(in: 0..<bytes.count, using: &rng)
                bytes[index] ^= UInt8.random(in: 1...255, using: &rng)
            case 1: bytes = Array(bytes.prefix(Int.random(in: 0...bytes.count, using: &rng)))
            default: bytes += (0..<Int.random(in: 1...8, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            }
            Self.feed(bytes, database: database, connection: &connection, seed: rng.seed)
            let packet = ACLPacket(handle: UInt16.random(in: 0...5, using: &rng),
                                   boundary: Bool.random(using: &rng) ? .firstFlushable : .continuing, data: bytes)
            _ = reassembler.push(packet)
            #expect(reassembler.bufferedByteCount <= 4 * (512 + 4 + 64), "seed \(rng.seed)")
        }
    }
}
