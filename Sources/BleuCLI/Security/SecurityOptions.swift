import ArgumentParser
import BleuCore
import BleuHCI
import Foundation

/// `--bonds FILE` and `--passkey N`: where the tool keeps its bonds and identity, and how it
/// answers pairing.
struct SecurityOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "The file bonds are kept in (mode 0600); this host's identity (its address and IRK) is kept beside it, in identity.json. Default: ~/.bleu/bonds.json",
        valueName: "file"))
    var bonds: String?

    @Option(help: "The passkey to enter if pairing asks for one (0–999999); without it the tool asks on the terminal.")
    var passkey: UInt32?

    init() {}

    /// Options naming a bond file (for commands that only read it).
    init(bonds: String?) {
        self.bonds = bonds
    }

    func validate() throws {
        if let passkey, passkey > 999_999 { throw ValidationError("a passkey has six digits (0–999999), not \(passkey)") }
    }

    /// The bond file's path.
    var bondsPath: String {
        bonds ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".bleu/bonds.json").path
    }

    /// Opens the bond store and this host's identity (made on first use), creating their folder
    /// (mode 0700) when missing; failures are one line.
    func open() throws -> SecuritySetup {
        let path = bondsPath
        let folder = (path as NSString).deletingLastPathComponent
        do {
            try FileManager.default.createDirectory(atPath: folder.isEmpty ? "." : folder, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
            let identity = try PairingIdentity.stored(at: (folder as NSString).appendingPathComponent("identity.json"))
            let store = try FileBondStore(path: path)
            let delegate: any PairingDelegate = passkey.map { FixedPairingDelegate(passkey: $0) } ?? TerminalPairingDelegate()
            return SecuritySetup(identity: identity, bonds: store, delegate: delegate)
        } catch {
            throw CommandFailure("\(error)")
        }
    }
}

/// What a command that pairs runs its radio with.
struct SecuritySetup {
    /// This host's lasting address and IRK.
    var identity: PairingIdentity
    var bonds: FileBondStore
    var delegate: any PairingDelegate

    /// The Security Manager's configuration: a device that can show and type a passkey, bonds,
    /// and hands peers its identity.
    var configuration: SecurityManagerConfiguration {
        SecurityManagerConfiguration(ioCapability: .keyboardDisplay, identity: identity)
    }
}

/// Asks the user on the terminal: shows passkeys, reads a typed one, asks yes or no.
struct TerminalPairingDelegate: PairingDelegate {
    func display(passkey: UInt32, to peer: UUID) async {
        print("Pairing: type \(Self.sixDigits(passkey)) on the device")
    }

    func enterPasskey(for peer: UUID) async -> UInt32? {
        Self.prompt("Pairing: the passkey the device shows: ")
        guard let line = await Self.readLine(), let value = UInt32(line.trimmingCharacters(in: .whitespaces)),
              value <= 999_999 else { return nil }
        return value
    }

    func confirm(number: UInt32, with peer: UUID) async -> Bool {
        Self.prompt("Pairing: does the device show \(Self.sixDigits(number))? [y/N] ")
        return await Self.readLine()?.lowercased().hasPrefix("y") == true
    }

    static func sixDigits(_ value: UInt32) -> String {
        let text = String(value)
        return String(repeating: "0", count: max(0, 6 - text.count)) + text
    }

    /// Writes `text` at once, without a line end (standard output is line-buffered).
    private static func prompt(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }

    /// A line from standard input, read on a thread of its own (a blocking read must not hold
    /// one of the concurrency pool's threads).
    private static func readLine() async -> String? {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: Swift.readLine()) }
        }
    }
}
