import Foundation

// MARK: - Encoding

extension ADStructure {
    /// The data part of the structure (after length and type).
    func encodedValue() throws(AdvertisingDataError) -> [UInt8] {
        switch self {
        case .flags(let flags):
            return [flags.rawValue]
        case .serviceUUIDs(let list, let width, _), .solicitedServiceUUIDs(let list, let width):
            var bytes: [UInt8] = []
            for uuid in list {
                guard let encoded = uuid.littleEndianBytes(width: width) else {
                    throw .invalidField(field: fieldName, reason: "\(uuid.uuidString) has no \(width.byteCount * 8)-bit form")
                }
                bytes += encoded
            }
            return bytes
        case .localName(let name, _):
            return Array(name.utf8)
        case .txPowerLevel(let level):
            return [UInt8(bitPattern: level)]
        case .connectionIntervalRange(let minimum, let maximum):
            return minimum.littleEndianBytes + maximum.littleEndianBytes
        case .serviceData(let uuid, let data, let width):
            guard let encoded = uuid.littleEndianBytes(width: width) else {
                throw .invalidField(field: fieldName, reason: "\(uuid.uuidString) has no \(width.byteCount * 8)-bit form")
            }
            return encoded + Array(data)
        case .appearance(let value):
            return value.littleEndianBytes
        case .manufacturerData(let manufacturer):
            return manufacturer.companyID.littleEndianBytes + Array(manufacturer.data)
        case .other(_, let data):
            return Array(data)
        }
    }

    /// The whole structure: length, type, data.
    func encoded() throws(AdvertisingDataError) -> [UInt8] {
        let value = try encodedValue()
        guard value.count <= 254 else {
            throw .invalidField(field: fieldName, reason: "\(value.count) bytes exceed the 254 one AD structure holds")
        }
        return [UInt8(value.count + 1), adType] + value
    }
}

extension AdvertisingData {
    /// The encoded bytes. Throws ``AdvertisingDataError/doesNotFit(field:needed:available:)``
    /// naming the first field that goes past `maximumLength` (31 for legacy advertising; up to
    /// 1650 for extended advertising).
    public func encoded(maximumLength: Int = AdvertisingData.legacyMaximumLength) throws(AdvertisingDataError) -> Data {
        var bytes: [UInt8] = []
        for structure in structures {
            let encoded = try structure.encoded()
            guard bytes.count + encoded.count <= maximumLength else {
                throw .doesNotFit(field: structure.fieldName, needed: encoded.count,
                                  available: maximumLength - bytes.count)
            }
            bytes += encoded
        }
        return Data(bytes)
    }

    /// Splits the structures between advertising data and a scan response, each within
    /// `maximumLength`. Structures are placed in order, each in the advertising data if it
    /// still fits there and otherwise in the scan response; flags always stay in the
    /// advertising data (a scan response must not carry them). Throws
    /// ``AdvertisingDataError/doesNotFit(field:needed:available:)`` naming a field that fits in
    /// neither.
    public func split(maximumLength: Int = AdvertisingData.legacyMaximumLength) throws(AdvertisingDataError)
        -> (advertising: AdvertisingData, scanResponse: AdvertisingData)
    {
        var advertising: [ADStructure] = []
        var response: [ADStructure] = []
        var advertisingLength = 0
        var responseLength = 0
        for structure in structures {
            let length = try structure.encoded().count
            if advertisingLength + length <= maximumLength {
                advertising.append(structure)
                advertisingLength += length
            } else if case .flags = structure {
                throw .doesNotFit(field: structure.fieldName, needed: length,
                                  available: maximumLength - advertisingLength)
            } else if responseLength + length <= maximumLength {
                response.append(structure)
                responseLength += length
            } else {
                throw .doesNotFit(field: structure.fieldName, needed: length,
                                  available: max(maximumLength - advertisingLength, maximumLength - responseLength))
            }
        }
        return (AdvertisingData(advertising), AdvertisingData(response))
    }
}

// MARK: - Decoding

extension AdvertisingData {
    /// Decodes advertising or scan response data of any length.
    ///
    /// A zero length byte ends the significant part; the rest must be zero padding (Core Spec
    /// Vol 3 Part C §11). Any malformed input — a length running past the end, a field of the
    /// wrong size, a local name that is not UTF-8, bytes after the padding starts — throws
    /// ``AdvertisingDataError/malformed(offset:adType:reason:)`` saying where and why.
    /// Unknown AD types are kept as ``ADStructure/other(type:data:)``.
    public init<Bytes: Collection>(decoding input: Bytes) throws(AdvertisingDataError) where Bytes.Element == UInt8 {
        let bytes = Array(input)
        var structures: [ADStructure] = []
        var offset = 0
        while offset < bytes.count {
            let length = Int(bytes[offset])
            if length == 0 {
                if let stray = bytes[offset...].firstIndex(where: { $0 != 0 }) {
                    throw .malformed(offset: offset, adType: nil,
                                     reason: "a zero-length AD structure ends the data, but a non-zero byte follows at \(stray)")
                }
                break
            }
            guard offset + 1 + length <= bytes.count else {
                throw .malformed(offset: offset, adType: offset + 1 < bytes.count ? bytes[offset + 1] : nil,
                                 reason: "the length \(length) runs past the end of the \(bytes.count) bytes")
            }
            let type = bytes[offset + 1]
            let value = Array(bytes[(offset + 2)..<(offset + 1 + length)])
            do {
                structures.append(try ADStructure(type: type, value: value))
            } catch let reason {
                throw .malformed(offset: offset, adType: type, reason: reason.reason)
            }
            offset += 1 + length
        }
        self.init(structures)
    }
}

/// Why one AD structure's data is malformed; wrapped with its offset by the decoder.
struct ADFieldError: Error {
    let reason: String
}

extension ADStructure {
    init(type: UInt8, value: [UInt8]) throws(ADFieldError) {
        func exactly(_ count: Int, _ what: String) throws(ADFieldError) {
            guard value.count == count else {
                throw ADFieldError(reason: "\(what) must be \(count) byte\(count == 1 ? "" : "s"), found \(value.count)")
            }
        }
        func uuidList(_ width: BluetoothUUID.Width) throws(ADFieldError) -> [BluetoothUUID] {
            guard value.count % width.byteCount == 0 else {
                throw ADFieldError(reason: "\(value.count) bytes is not a whole number of \(width.byteCount)-byte UUIDs")
            }
            return stride(from: 0, to: value.count, by: width.byteCount).map {
                BluetoothUUID(littleEndianBytes: value[$0..<($0 + width.byteCount)])!
            }
        }
        func serviceData(_ width: BluetoothUUID.Width) throws(ADFieldError) -> ADStructure {
            guard value.count >= width.byteCount else {
                throw ADFieldError(reason: "service data needs a \(width.byteCount)-byte UUID, found \(value.count) bytes")
            }
            let uuid = BluetoothUUID(littleEndianBytes: value[0..<width.byteCount])!
            return .serviceData(uuid, Data(value[width.byteCount...]), width: width)
        }

        switch type {
        case 0x01:
            try exactly(1, "flags")
            self = .flags(AdvertisingFlags(rawValue: value[0]))
        case 0x02, 0x03:
            self = .serviceUUIDs(try uuidList(.bits16), width: .bits16, complete: type == 0x03)
        case 0x04, 0x05:
            self = .serviceUUIDs(try uuidList(.bits32), width: .bits32, complete: type == 0x05)
        case 0x06, 0x07:
            self = .serviceUUIDs(try uuidList(.bits128), width: .bits128, complete: type == 0x07)
        case 0x14:
            self = .solicitedServiceUUIDs(try uuidList(.bits16), width: .bits16)
        case 0x1F:
            self = .solicitedServiceUUIDs(try uuidList(.bits32), width: .bits32)
        case 0x15:
            self = .solicitedServiceUUIDs(try uuidList(.bits128), width: .bits128)
        case 0x08, 0x09:
            guard let name = String(validating: value, as: UTF8.self) else {
                throw ADFieldError(reason: "the local name is not valid UTF-8")
            }
            self = .localName(name, complete: type == 0x09)
        case 0x0A:
            try exactly(1, "the TX power level")
            self = .txPowerLevel(Int8(bitPattern: value[0]))
        case 0x12:
            try exactly(4, "the connection interval range")
            self = .connectionIntervalRange(minimum: UInt16(littleEndian: value[0...1]),
                                            maximum: UInt16(littleEndian: value[2...3]))
        case 0x16:
            self = try serviceData(.bits16)
        case 0x20:
            self = try serviceData(.bits32)
        case 0x21:
            self = try serviceData(.bits128)
        case 0x19:
            try exactly(2, "the appearance")
            self = .appearance(UInt16(littleEndian: value[0...1]))
        case 0xFF:
            guard value.count >= 2 else {
                throw ADFieldError(reason: "manufacturer data needs a 2-byte company identifier, found \(value.count) bytes")
            }
            self = .manufacturerData(ManufacturerData(companyID: UInt16(littleEndian: value[0...1]),
                                                      data: Data(value[2...])))
        default:
            self = .other(type: type, data: Data(value))
        }
    }
}

// MARK: - Little-endian helpers

extension UInt16 {
    /// The two bytes, least significant first.
    var littleEndianBytes: [UInt8] {
        [UInt8(truncatingIfNeeded: self), UInt8(truncatingIfNeeded: self >> 8)]
    }

    /// Reads two bytes, least significant first.
    init(littleEndian bytes: ArraySlice<UInt8>) {
        let start = bytes.startIndex
        self = UInt16(bytes[start]) | UInt16(bytes[start + 1]) << 8
    }
}
