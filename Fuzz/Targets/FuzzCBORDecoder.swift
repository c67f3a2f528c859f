import Foundation

/// Decodes the input as CBOR, as a dynamic tree and as several `Codable` shapes. Whatever parses
/// must re-encode to bytes that parse to the same encoding; anything else is an error, never a
/// trap.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCBORDecoder(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let limits = CBORDecodingLimits(maximumDepth: 32, maximumStringLength: 4_096, maximumCollectionCount: 4_096)
    if let value = try? CBORValue(decoding: bytes, limits: limits) {
        let encoded = value.encoded()
        guard let again = try? CBORValue(decoding: encoded, limits: limits) else {
            fatalError("re-encoding of a parsed item does not parse: \(encoded)")
        }
        if again.encoded() != encoded { fatalError("re-encoding is not stable") }
    }
    let decoder = CBORDecoder(limits: limits)
    _ = try? decoder.decode(FuzzShape.self, from: bytes)
    _ = try? decoder.decode([String: [Int8]].self, from: bytes)
    _ = try? decoder.decode([UInt128?].self, from: bytes)
    _ = try? decoder.decode(FuzzChoice.self, from: bytes)
    return 0
}

struct FuzzShape: Codable {
    var a: Int?
    var b: [String]?
    var c: Data?
    var d: [String: Double]?
    var e: Date?
    var f: UUID?
    var g: Float?
    var h: [FuzzShape]?
    var i: Int128?
}

enum FuzzChoice: Codable {
    case one(Int16)
    case two(x: UInt8, y: [Bool])
    case three
}
