import BleuCore
import Foundation

extension PairingIdentity {
    /// The identity kept in the file at `path`, or — when there is no file yet — a new one,
    /// kept there: a static random address and a fresh identity resolving key (IRK). A host
    /// that bonds needs one that lasts: its peers keep bonds under its address, and resolve its
    /// private addresses with its IRK, so a tool run twice must come back as the same device.
    ///
    /// The file is JSON, mode 0600, written atomically, like ``FileBondStore``'s; it holds a key,
    /// so it is never printed. A file that exists but cannot be read throws
    /// ``BondStoreError/unreadable(path:reason:)`` rather than being replaced.
    ///
    /// A new identity takes its address and key from the system's cryptographically secure
    /// generator.
    public static func stored(at path: String) throws(BondStoreError) -> PairingIdentity {
        if FileManager.default.fileExists(atPath: path) {
            let file: IdentityFileContents
            do {
                file = try JSONDecoder().decode(IdentityFileContents.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
            } catch {
                throw .unreadable(path: path, reason: "\(error)")
            }
            guard file.version == IdentityFileContents.currentVersion, let address = BluetoothAddress(string: file.address),
                  let key = decodeHex(file.resolvingKey), key.count == 16 else {
                throw .unreadable(path: path, reason: "not an identity this build reads")
            }
            return PairingIdentity(resolvingKey: key, address: PairingAddress(type: .randomDevice, address: address))
        }
        var generator = SystemRandomNumberGenerator()
        let identity = PairingIdentity(resolvingKey: HCIRadio.systemRandom(16), address: PairingAddress(
            type: .randomDevice, address: BluetoothAddress.randomStatic(using: &generator)))
        let contents = IdentityFileContents(version: IdentityFileContents.currentVersion, address: identity.address.address.description,
                                            resolvingKey: hexString(identity.resolvingKey))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let data: Data
        do {
            data = try encoder.encode(contents)
        } catch {
            throw .unwritable(path: path, reason: "\(error)")
        }
        try OwnerOnlyFile.replace(path, with: data)
        return identity
    }
}

/// The identity file's layout.
private struct IdentityFileContents: Codable {
    static let currentVersion = 1
    var version: Int
    var address: String
    /// The IRK, most significant octet first, in hex.
    var resolvingKey: String
}
