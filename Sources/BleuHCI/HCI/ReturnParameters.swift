import BleuCore

/// Typed views of the Command Complete return parameters the host reads during setup.
/// Each initialiser throws ``HCIStatus`` when the status byte is not success, and
/// ``PacketDecodingError`` when the bytes do not fit the layout.
enum ReturnParameters {
    /// Reads the status byte; throws it when it is not success.
    static func checkStatus(_ bytes: [UInt8], command: String) throws -> ByteReader {
        var r = ByteReader(bytes, packet: "\(command) return parameters")
        let status = HCIStatus(rawValue: try r.u8())
        guard status == .success else { throw status }
        return r
    }
}

/// Read Local Version Information (§7.4.1).
public struct LocalVersionInformation: Hashable, Sendable {
    public var hciVersion: UInt8
    public var hciSubversion: UInt16
    public var lmpVersion: UInt8
    public var companyIdentifier: UInt16
    public var lmpSubversion: UInt16

    public init(hciVersion: UInt8, hciSubversion: UInt16, lmpVersion: UInt8, companyIdentifier: UInt16, lmpSubversion: UInt16) {
        self.hciVersion = hciVersion
        self.hciSubversion = hciSubversion
        self.lmpVersion = lmpVersion
        self.companyIdentifier = companyIdentifier
        self.lmpSubversion = lmpSubversion
    }

    /// Reads the return parameters (status first).
    public init(returnParameters bytes: [UInt8]) throws {
        var r = try ReturnParameters.checkStatus(bytes, command: "Read Local Version Information")
        self.init(hciVersion: try r.u8(), hciSubversion: try r.u16(), lmpVersion: try r.u8(),
                  companyIdentifier: try r.u16(), lmpSubversion: try r.u16())
    }

    /// The return parameters, status first.
    public var returnParameters: [UInt8] {
        var b: [UInt8] = [0, hciVersion]
        b.appendLE(hciSubversion)
        b.append(lmpVersion)
        b.appendLE(companyIdentifier)
        b.appendLE(lmpSubversion)
        return b
    }
}

/// LE Read Buffer Size, version 1 or 2 (§7.8.2, §7.8.93): how many LE ACL packets of what size
/// the controller buffers. A length or count of 0 means the controller shares the BR/EDR buffers.
public struct LEBufferSize: Hashable, Sendable {
    public var aclDataPacketLength: UInt16
    public var totalNumACLDataPackets: UInt8
    public var isoDataPacketLength: UInt16
    public var totalNumISODataPackets: UInt8

    public init(aclDataPacketLength: UInt16, totalNumACLDataPackets: UInt8,
                isoDataPacketLength: UInt16 = 0, totalNumISODataPackets: UInt8 = 0) {
        self.aclDataPacketLength = aclDataPacketLength
        self.totalNumACLDataPackets = totalNumACLDataPackets
        self.isoDataPacketLength = isoDataPacketLength
        self.totalNumISODataPackets = totalNumISODataPackets
    }

    /// Reads version 1 (3 bytes after the status) or version 2 (6 bytes) return parameters.
    public init(returnParameters bytes: [UInt8]) throws {
        var r = try ReturnParameters.checkStatus(bytes, command: "LE Read Buffer Size")
        self.init(aclDataPacketLength: try r.u16(), totalNumACLDataPackets: try r.u8())
        if !r.isAtEnd {
            isoDataPacketLength = try r.u16()
            totalNumISODataPackets = try r.u8()
        }
        try r.finish()
    }

    /// Version 1 return parameters, status first.
    public var returnParametersV1: [UInt8] {
        var b: [UInt8] = [0]
        b.appendLE(aclDataPacketLength)
        b.append(totalNumACLDataPackets)
        return b
    }
}

/// Read Buffer Size (§7.4.5), the shared BR/EDR buffers LE falls back to.
public struct BufferSize: Hashable, Sendable {
    public var aclDataPacketLength: UInt16
    public var totalNumACLDataPackets: UInt16

    public init(aclDataPacketLength: UInt16, totalNumACLDataPackets: UInt16) {
        self.aclDataPacketLength = aclDataPacketLength
        self.totalNumACLDataPackets = totalNumACLDataPackets
    }

    public init(returnParameters bytes: [UInt8]) throws {
        var r = try ReturnParameters.checkStatus(bytes, command: "Read Buffer Size")
        let aclLength = try r.u16()
        _ = try r.u8()  // synchronous data packet length
        let aclCount = try r.u16()
        _ = try r.u16()  // total synchronous packets
        self.init(aclDataPacketLength: aclLength, totalNumACLDataPackets: aclCount)
    }
}

extension BluetoothAddress {
    /// Reads Read BD_ADDR return parameters (status, then the address).
    public init(readBDADDRReturnParameters bytes: [UInt8]) throws {
        var r = try ReturnParameters.checkStatus(bytes, command: "Read BD_ADDR")
        self = try r.address()
        try r.finish()
    }
}

/// Reads a 64-bit feature mask (Read Local Supported Features, LE Read Local Supported Features).
public func featureMask(returnParameters bytes: [UInt8]) throws -> UInt64 {
    var r = try ReturnParameters.checkStatus(bytes, command: "Read Supported Features")
    return try r.u64()
}
