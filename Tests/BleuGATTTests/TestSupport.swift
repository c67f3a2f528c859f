import BleuCore
import Foundation
import Testing
@testable import BleuGATT

/// Bytes from hex text; spaces are ignored: `bytes("6C 01 00 FF")`.
func bytes(_ hex: String) -> Data {
    let digits = hex.filter { !$0.isWhitespace }
    var data = Data()
    var index = digits.startIndex
    while index < digits.endIndex {
        let next = digits.index(index, offsetBy: 2)
        data.append(UInt8(digits[index..<next], radix: 16)!)
        index = next
    }
    return data
}

/// The error `body` throws, or `nil` (recorded as a failure) when it throws none.
func codecError<T>(_ body: () throws(GATTCodecError) -> T, sourceLocation: SourceLocation = #_sourceLocation) -> GATTCodecError? {
    do {
        let value = try body()
        Issue.record("expected a GATTCodecError, got \(value)", sourceLocation: sourceLocation)
        return nil
    } catch {
        return error
    }
}

/// Checks that decoding fails with this kind and ATT error.
func expectRejected<Codec: GATTCodec>(_ codec: Codec, _ data: Data, _ kind: GATTCodecError.Kind,
                                      att: ATTError? = nil, sourceLocation: SourceLocation = #_sourceLocation) {
    guard let error = codecError({ () throws(GATTCodecError) in try codec.decode(data) }, sourceLocation: sourceLocation) else { return }
    #expect(error.kind == kind, "\(error)", sourceLocation: sourceLocation)
    #expect(error.attError == (att ?? kind.defaultATTError), "\(error)", sourceLocation: sourceLocation)
}

/// Checks that `value` encodes to exactly `data` and `data` decodes back to `value`.
func expectBytes<Codec: GATTCodec>(_ codec: Codec, _ value: Codec.Value, _ data: Data,
                                   sourceLocation: SourceLocation = #_sourceLocation) throws where Codec.Value: Equatable {
    #expect(try codec.encode(value) == data, sourceLocation: sourceLocation)
    #expect(try codec.decode(data) == value, sourceLocation: sourceLocation)
}
