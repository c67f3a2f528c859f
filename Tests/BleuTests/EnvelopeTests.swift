@testable import Bleu
import BleuCore
import BleuEmulator
import BleuTesting
import BleuWire
import Foundation
import Testing

@Suite("Envelope and bytes on air")
struct EnvelopeTests {
    @Test("requests and replies round-trip")
    func roundTrip() throws {
        let definition = MethodDefinition(target: "$s4Test1AC1fSdyYaKFTE", substitutions: ["Si", "SS"])
        let requests: [Request] = [
            .call(id: 0, method: 0, arguments: []),
            .call(id: 16383, method: 300, arguments: [[1, 2], [], [0xF9, 0x4D, 0xA0]]),
            .define(id: 5, method: 1, definition: definition, arguments: [[0x01]]),
            .cancel(id: 9), .cancelStream(stream: 200),
        ]
        for request in requests { #expect(try Request.decode(request.encoded()) == request) }
        let payload = CodableErrorPayload(mangledType: "4Test1EV", typeName: "Test.E", message: "E(code: 1)", value: [0xA0])
        let replies: [Reply] = [
            .value(id: 1, [0xF9, 0x4D, 0xA0]), .void(id: 130), .error(id: 2, payload),
            .remoteError(id: 3, type: "Test.E", message: "bad"), .refused(id: 300, request: 0x7F, reason: "unknown"),
            .streamElement(stream: 4, [0x01]), .streamEnd(stream: 5), .streamFailed(stream: 6, type: "T", message: "m"),
            .streamError(stream: 7, payload),
        ]
        for reply in replies { #expect(try Reply.decode(reply.encoded()) == reply) }
    }

    @Test("a Codable error carries its mangled and readable type name, its description (bounded) and its CBOR")
    func errorLayout() throws {
        let payload = CodableErrorPayload(mangledType: "M", typeName: "T.E", message: "msg", value: [0xA0])
        #expect(Reply.error(id: 2, payload).encoded() == [0x12, 0x02, 0x01, 0x4D, 0x03, 0x54, 0x2E, 0x45, 0x03, 0x6D, 0x73, 0x67, 0xA0])
        #expect(Reply.refused(id: 5, request: 0x7F, reason: "no").encoded() == [0x14, 0x05, 0x7F, 0x6E, 0x6F])
        let long = CodableErrorPayload(mangledType: "M", typeName: "T", message: String(repeating: "é", count: 2000), value: [])
        #expect(long.message.utf8.count <= CodableErrorPayload.maximumMessageLength)
        #expect(long.message.hasSuffix("…") && long.message.hasPrefix("éé"))
        #expect(try Reply.decode(Reply.error(id: 1, long).encoded()) == .error(id: 1, long))
    }

    @Test("malformed requests are typed errors, with the call id when it was readable")
    func malformed() {
        #expect(throws: EnvelopeError.beforeID(.unknownKind(0x7F))) { try Request.decode([0x7F, 0x00]) }
        #expect(throws: EnvelopeError.beforeID(.truncated(field: "message kind"))) { try Request.decode([]) }
        #expect(throws: EnvelopeError.beforeID(.truncated(field: "call id"))) { try Request.decode([0x01, 0x80]) }
        #expect(throws: EnvelopeError.inCall(4, .truncated(field: "method id"))) { try Request.decode([0x01, 0x04]) }
        #expect(throws: EnvelopeError.inCall(4, .truncated(field: "argument 0"))) { try Request.decode([0x01, 0x04, 0x00, 0x05, 0x01]) }
        #expect(throws: EnvelopeError.beforeID(.varintOverflow(field: "call id"))) {
            try Request.decode([0x01, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01])
        }
        // A definition with a huge substitution count is refused before anything is allocated.
        #expect(throws: EnvelopeError.inCall(1, .tooManySubstitutions(count: 16383, maximum: Request.maximumSubstitutions))) {
            try Request.decode([0x02, 0x01, 0x00, 0x01, 0x41, 0xFF, 0x7F])
        }
        #expect(throws: EnvelopeError.inCall(3, .trailingBytes(after: "cancel"))) { try Request.decode([0x03, 0x03, 0x00]) }
    }

    @Test("the documented bytes of a no-argument call returning Double: 8 + 10 bytes of ATT payload")
    func documentedBytes() throws {
        var fragmenter = Fragmenter()
        let request = Request.call(id: 1, method: 0, arguments: []).encoded()
        let requestFragments = try fragmenter.fragments(of: request, maximumFragmentLength: 244)
        let result = try CBOREncoder().encodeBytes(22.5)
        var replyFragmenter = Fragmenter()
        let replyFragments = try replyFragmenter.fragments(of: Reply.value(id: 1, result).encoded(), maximumFragmentLength: 244)
        #expect(requestFragments.map(hex) == ["c0 01 01 00 64 82 98 e7"])
        #expect(replyFragments.map(hex) == ["c0 10 01 f9 4d a0 05 dd 6a 37"])
    }

    @Test("on the emulator a repeated no-argument Double call puts at most 32 bytes of ATT payload on air")
    func bytesOnAir() async throws {
        let pair = ConnectedPair()
        let sensor = try await pair.host(SensorActor.self) { SensorActor(actorSystem: $0) }
        _ = try await sensor.temperature()  // the first call interns the method
        pair.bus.clearTrace()
        #expect(try await sensor.temperature() == 22.5)
        let att = pair.bus.trace.filter { $0.kind == .att }
        let requests = att.filter { $0.opcode == 0x52 }.compactMap(\.length).map { $0 - 3 }
        let replies = att.filter { $0.opcode == 0x1B }.compactMap(\.length).map { $0 - 3 }
        #expect(requests == [8])
        #expect(replies == [10])
        #expect(requests.reduce(0, +) + replies.reduce(0, +) <= 32)
        #expect(att.count == 2)  // nothing else: no write responses, no reads
    }

    private func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String(format: "%02x", $0) }.joined(separator: " ")
    }
}
