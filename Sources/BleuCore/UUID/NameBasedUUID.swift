import Crypto
import Foundation

extension UUID {
    /// The name spaces RFC 9562 §6.6 defines for name-based UUIDs.
    public enum Namespace {
        /// Fully qualified domain names.
        public static let dns = UUID(uuidString: "6BA7B810-9DAD-11D1-80B4-00C04FD430C8")!
        /// URLs.
        public static let url = UUID(uuidString: "6BA7B811-9DAD-11D1-80B4-00C04FD430C8")!
        /// ISO object identifiers.
        public static let oid = UUID(uuidString: "6BA7B812-9DAD-11D1-80B4-00C04FD430C8")!
        /// X.500 distinguished names.
        public static let x500 = UUID(uuidString: "6BA7B814-9DAD-11D1-80B4-00C04FD430C8")!
    }

    /// A deterministic name-based UUID, version 5 (SHA-1), as RFC 9562 §5.5 defines it: the
    /// same namespace and name always give the same UUID, on every platform.
    ///
    /// `UUID(version5Of: "www.example.com", in: UUID.Namespace.dns)` is
    /// `2ED6657D-E927-568B-95E1-2665A8AEA6A2`.
    public init(version5Of name: String, in namespace: UUID) {
        var input = withUnsafeBytes(of: namespace.uuid) { Array($0) }
        input.append(contentsOf: Array(name.utf8))
        var bytes = Array(Insecure.SHA1.hash(data: input).prefix(16))
        bytes[6] = (bytes[6] & 0x0F) | 0x50  // version 5
        bytes[8] = (bytes[8] & 0x3F) | 0x80  // variant 10xx (RFC 9562)
        self.init(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6],
                         bytes[7], bytes[8], bytes[9], bytes[10], bytes[11], bytes[12],
                         bytes[13], bytes[14], bytes[15]))
    }
}

extension BluetoothUUID {
    /// A deterministic 128-bit Bluetooth UUID derived from a name (a version-5 UUID; see
    /// `UUID(version5Of:in:)`). The actor system uses it to give each actor
    /// type a stable service UUID.
    public init(version5Of name: String, in namespace: UUID) {
        self.init(uuid: UUID(version5Of: name, in: namespace))
    }
}
