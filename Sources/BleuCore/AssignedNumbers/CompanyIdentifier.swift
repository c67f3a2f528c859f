/// A Bluetooth SIG company identifier: the first two bytes of manufacturer specific data, and
/// the manufacturer an HCI controller reports for itself.
///
/// ```swift
/// let apple = CompanyIdentifier(0x004C)
/// apple.name          // "Apple, Inc."
/// apple.description   // "0x004C (Apple, Inc.)"
/// ```
///
/// The names come from the SIG's company identifiers as Nordic Semiconductor's
/// bluetooth-numbers-database lists them (see <doc:AssignedNumbers>).
public struct CompanyIdentifier: RawRepresentable, Sendable, Hashable, Codable, Comparable {
    /// The 16-bit identifier, as sent (little-endian) on the air.
    public let rawValue: UInt16

    /// The company with identifier `rawValue`.
    public init(rawValue: UInt16) {
        self.rawValue = rawValue
    }

    /// The company with identifier `rawValue`, such as `0x004C` (Apple).
    public init(_ rawValue: UInt16) {
        self.init(rawValue: rawValue)
    }

    /// The company's name, such as `"Apple, Inc."` for `0x004C`; `nil` for an identifier the
    /// SIG has not assigned (as of the data the tables were generated from).
    public var name: String? {
        AssignedNames.companies.name(for: rawValue)
    }

    public static func < (lhs: CompanyIdentifier, rhs: CompanyIdentifier) -> Bool {
        lhs.rawValue < rhs.rawValue
    }
}

extension CompanyIdentifier: CustomStringConvertible {
    /// The identifier in hex with the company's name when it has one: `"0x004C (Apple, Inc.)"`,
    /// `"0xFFF0"`.
    public var description: String {
        let number = "0x" + hex(rawValue)
        return name.map { "\(number) (\($0))" } ?? number
    }
}

extension ManufacturerData {
    /// The company the data belongs to, with its name: `manufacturerData.company.name`.
    public var company: CompanyIdentifier {
        CompanyIdentifier(companyID)
    }
}
