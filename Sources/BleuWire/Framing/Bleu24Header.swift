import Foundation

/// The 24-byte header of the bleu24 format (see `Docs/WireFormat.md`): the message UUID in
/// RFC 9562 byte order, then the sequence number, the total number of fragments and the CRC-32 of
/// the whole message, each little-endian as in the rest of Bluetooth.
struct Bleu24Header: Hashable {
    static let length = 24

    var message: UUID
    var sequence: UInt16
    var total: UInt16
    var checksum: UInt32

    /// Reads a header from the first 24 bytes of `buffer` (the caller checks the length).
    init(_ buffer: UnsafeRawBufferPointer) {
        var uuid: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &uuid) { $0.copyMemory(from: UnsafeRawBufferPointer(rebasing: buffer[0..<16])) }
        message = UUID(uuid: uuid)
        sequence = UInt16(littleEndian: buffer.loadUnaligned(fromByteOffset: 16, as: UInt16.self))
        total = UInt16(littleEndian: buffer.loadUnaligned(fromByteOffset: 18, as: UInt16.self))
        checksum = UInt32(littleEndian: buffer.loadUnaligned(fromByteOffset: 20, as: UInt32.self))
    }

    init(message: UUID, sequence: UInt16, total: UInt16, checksum: UInt32) {
        self.message = message
        self.sequence = sequence
        self.total = total
        self.checksum = checksum
    }

    func append(to bytes: inout [UInt8]) {
        withUnsafeBytes(of: message.uuid) { bytes.append(contentsOf: $0) }
        withUnsafeBytes(of: sequence.littleEndian) { bytes.append(contentsOf: $0) }
        withUnsafeBytes(of: total.littleEndian) { bytes.append(contentsOf: $0) }
        withUnsafeBytes(of: checksum.littleEndian) { bytes.append(contentsOf: $0) }
    }
}
