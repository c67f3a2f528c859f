import BleuWire
import Foundation

/// `bleu-bench codec`: encode and decode time and size of a typical RPC envelope with BleuWire's
/// CBOR codec and with Foundation's JSON coders, measured in the same run.
struct CodecBenchmark: BenchmarkSuite {
    let name = "codec"
    let summary = "CBOR vs JSON: encode/decode time and size of an RPC envelope"

    /// A call: its id, the method's id, and three arguments in order (an Int, a String, a struct).
    struct Envelope: Codable, Equatable {
        var callID: UInt64
        var method: UInt32
        var count: Int
        var name: String
        var reading: Reading

        enum CodingKeys: Int, CodingKey { case callID = 0, method, arguments }

        init(callID: UInt64, method: UInt32, count: Int, name: String, reading: Reading) {
            (self.callID, self.method, self.count, self.name, self.reading) = (callID, method, count, name, reading)
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            callID = try container.decode(UInt64.self, forKey: .callID)
            method = try container.decode(UInt32.self, forKey: .method)
            var arguments = try container.nestedUnkeyedContainer(forKey: .arguments)
            count = try arguments.decode(Int.self)
            name = try arguments.decode(String.self)
            reading = try arguments.decode(Reading.self)
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(callID, forKey: .callID)
            try container.encode(method, forKey: .method)
            var arguments = container.nestedUnkeyedContainer(forKey: .arguments)
            try arguments.encode(count)
            try arguments.encode(name)
            try arguments.encode(reading)
        }
    }

    struct Reading: Codable, Equatable {
        var celsius: Double
        var sensor: UInt16
        var valid: Bool
    }

    static let envelope = Envelope(callID: 48_213, method: 0x1A2B_3C4D, count: 42, name: "living room",
                                   reading: Reading(celsius: 21.5, sensor: 7, valid: true))

    func run(_ options: BenchmarkOptions, _ report: inout BenchmarkReport) async throws {
        let seconds = options.quick ? 0.02 : 0.3
        // `cbor` is the codec as the project uses it: the actor system's encoder writes integer
        // keys where the key type has them (`.integersWhenAvailable`).
        let cbor = CBOREncoder(keyEncoding: .integersWhenAvailable)
        let json = JSONEncoder()
        try measure("cbor", encode: { try cbor.encode($0) }, decode: { try CBORDecoder().decode(Envelope.self, from: $0) },
                    seconds: seconds, &report)
        try measure("json", encode: { try json.encode($0) }, decode: { try JSONDecoder().decode(Envelope.self, from: $0) },
                    seconds: seconds, &report)
        let intKeys = CBOREncoder(keyEncoding: .integersWhenAvailable)
        try measure("cbor_intkeys", encode: { try intKeys.encode($0) }, decode: { try CBORDecoder().decode(Envelope.self, from: $0) },
                    seconds: seconds, &report)
        // Every key as text (the encoder's interoperable default).
        let stringKeys = CBOREncoder(keyEncoding: .strings)
        try measure("cbor_strkeys", encode: { try stringKeys.encode($0) }, decode: { try CBORDecoder().decode(Envelope.self, from: $0) },
                    seconds: seconds, &report)
    }

    private func measure(_ codec: String, encode: (Envelope) throws -> Data, decode: (Data) throws -> Envelope,
                         seconds: Double, _ report: inout BenchmarkReport) throws {
        progress(codec)
        let bytes = try encode(Self.envelope)
        let decoded = try decode(bytes)
        precondition(decoded == Self.envelope, "\(codec) does not round-trip the envelope")
        let encodeRate = try bestRate(seconds: seconds) {
            for _ in 0..<100 { blackHole(try encode(Self.envelope)) }
            return 100
        }
        let decodeRate = try bestRate(seconds: seconds) {
            for _ in 0..<100 { blackHole(try decode(bytes)) }
            return 100
        }
        report.record("\(codec).encode_ns", 1e9 / encodeRate, unit: "ns", "\(codec) encode one envelope")
        report.record("\(codec).decode_ns", 1e9 / decodeRate, unit: "ns", "\(codec) decode one envelope")
        report.record("\(codec).bytes", Double(bytes.count), unit: "bytes", "\(codec) envelope size")
    }
}
