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
        let seconds = options.quick ? 0.01 : 0.025
        // `cbor` is the codec as the project uses it: the actor system's encoder writes integer
        // keys where the key type has them (`.integersWhenAvailable`).
        let cbor = CBOREncoder(keyEncoding: .integersWhenAvailable)
        let json = JSONEncoder()
        let intKeys = CBOREncoder(keyEncoding: .integersWhenAvailable)
        // Every key as text (the encoder's interoperable default).
        let stringKeys = CBOREncoder(keyEncoding: .strings)
        let codecs = [
            Codec(name: "cbor", encode: { try cbor.encode($0) }, decode: { try CBORDecoder().decode(Envelope.self, from: $0) }),
            Codec(name: "json", encode: { try json.encode($0) }, decode: { try JSONDecoder().decode(Envelope.self, from: $0) }),
            Codec(name: "cbor_intkeys", encode: { try intKeys.encode($0) }, decode: { try CBORDecoder().decode(Envelope.self, from: $0) }),
            Codec(name: "cbor_strkeys", encode: { try stringKeys.encode($0) }, decode: { try CBORDecoder().decode(Envelope.self, from: $0) }),
        ]
        // Many short interleaved rounds, best of each: a machine busy for a while slows the codecs
        // measured meanwhile, and every codec gets many chances at a quiet moment, so the ratios
        // hold where the absolute times do not.
        var best: [String: (encode: Double, decode: Double, bytes: Int)] = [:]
        for round in 0..<(options.quick ? 2 : 20) {
            for codec in codecs {
                if round == 0 { progress(codec.name) }
                let bytes = try codec.encode(Self.envelope)
                let decoded = try codec.decode(bytes)
                precondition(decoded == Self.envelope, "\(codec.name) does not round-trip the envelope")
                let encodeRate = try bestRate(rounds: 1, seconds: seconds) {
                    for _ in 0..<100 { blackHole(try codec.encode(Self.envelope)) }
                    return 100
                }
                let decodeRate = try bestRate(rounds: 1, seconds: seconds) {
                    for _ in 0..<100 { blackHole(try codec.decode(bytes)) }
                    return 100
                }
                let previous = best[codec.name] ?? (0, 0, bytes.count)
                best[codec.name] = (max(previous.encode, encodeRate), max(previous.decode, decodeRate), bytes.count)
            }
        }
        for codec in codecs {
            let figures = best[codec.name]!
            report.record("\(codec.name).encode_ns", 1e9 / figures.encode, unit: "ns", "\(codec.name) encode one envelope")
            report.record("\(codec.name).decode_ns", 1e9 / figures.decode, unit: "ns", "\(codec.name) decode one envelope")
            report.record("\(codec.name).bytes", Double(figures.bytes), unit: "bytes", "\(codec.name) envelope size")
        }
        let (ours, theirs) = (best["cbor"]!, best["json"]!)
        report.record("encode_vs_json_ratio", ours.encode / theirs.encode, unit: "x", "CBOR encode rate / JSONEncoder's")
        report.record("decode_vs_json_ratio", ours.decode / theirs.decode, unit: "x", "CBOR decode rate / JSONDecoder's")
        report.record("size_vs_json_ratio", Double(ours.bytes) / Double(theirs.bytes), unit: "x", "CBOR size / JSON size")
    }

    /// One codec under measurement.
    struct Codec {
        let name: String
        let encode: (Envelope) throws -> Data
        let decode: (Data) throws -> Envelope
    }
}
