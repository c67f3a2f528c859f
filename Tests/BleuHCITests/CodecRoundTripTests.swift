import BleuATT
import BleuCore
import Testing

@testable import BleuHCI

@Suite("Codecs: symmetric encode and decode")
struct CodecRoundTripTests {
    @Test("every sample decodes back to itself", arguments: CodecSamples.all.map(\.0))
    func roundTrip(name: String) throws {
        let sample = try #require(CodecSamples.all.first { $0.0 == name }?.1)
        #expect(try sample.decodeSameKind(sample.encoded) == sample)
    }

    @Test("every strict prefix of a sample is refused with a typed error, never a crash")
    func truncations() {
        for (name, sample) in CodecSamples.all {
            let bytes = sample.encoded
            for cut in 0..<bytes.count {
                let prefix = Array(bytes.prefix(cut))
                do {
                    let decoded = try sample.decodeSameKind(prefix)
                    // A few layouts end in a variable-length value, so a shorter prefix can still be a
                    // valid (different) packet; it must never decode to the original.
                    #expect(decoded != sample, "\(name) cut at \(cut) decoded as the whole")
                } catch is PacketDecodingError {
                } catch {
                    Issue.record("\(name) cut at \(cut): unexpected error type \(error)")
                }
            }
        }
    }

    @Test("a trailing byte after a fixed layout is refused")
    func trailingBytes() throws {
        var bytes = HCIEvent.disconnectionComplete(status: 0, handle: 1, reason: 0x13).encoded
        bytes[1] += 1
        bytes.append(0)
        #expect(throws: PacketDecodingError.self) { try HCIEvent(decoding: bytes) }
        #expect(throws: PacketDecodingError.self) { try ATTPDU(decoding: [0x0A, 0x03, 0x00, 0x00]) }
        #expect(throws: PacketDecodingError.self) { try L2CAPSignal(decoding: [0x16, 1, 5, 0, 0x40, 0, 1, 0, 9]) }
    }

    @Test("unknown HCI commands, events and subevents keep their bytes")
    func unknownsKeepBytes() throws {
        let command = HCICommand.raw(HCIOpcode(ogf: 0x3F, ocf: 0x0123), [1, 2, 3])
        #expect(try HCICommand(decoding: command.encoded) == command)
        let event = HCIEvent.unknown(code: 0xFF, parameters: [9, 8])
        #expect(try HCIEvent(decoding: event.encoded) == event)
        let meta = HCIEvent.le(.unknown(subevent: 0x22, parameters: [7]))
        #expect(try HCIEvent(decoding: meta.encoded) == meta)
        let signal = L2CAPSignal(identifier: 9, .unknown(code: 0x0A, data: [1, 0]))
        #expect(try L2CAPSignal(decoding: signal.encoded) == signal)
    }
}
