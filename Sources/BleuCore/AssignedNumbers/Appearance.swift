/// A GAP appearance: what kind of device an advertiser or a GATT server says it is, sent in
/// advertising data (AD type 0x19) and in the GAP service's Appearance characteristic (0x2A01).
///
/// The 16-bit value holds a category in bits 15–6 and a subcategory in bits 5–0 (Core
/// Specification Supplement Part A §1.12; the values are in the SIG's Assigned Numbers §2.6):
///
/// ```swift
/// let keyboard = Appearance(0x03C1)
/// keyboard.category           // 15
/// keyboard.subcategory        // 1
/// keyboard.categoryName       // "Human Interface Device"
/// keyboard.subcategoryName    // "Keyboard"
/// keyboard.description        // "0x03C1 (Human Interface Device: Keyboard)"
/// ```
///
/// The names come from Nordic Semiconductor's bluetooth-numbers-database (see
/// <doc:AssignedNumbers>).
public struct Appearance: RawRepresentable, Sendable, Hashable, Codable {
    /// The 16-bit appearance value.
    public let rawValue: UInt16

    /// The appearance with value `rawValue`.
    public init(rawValue: UInt16) {
        self.rawValue = rawValue
    }

    /// The appearance with value `rawValue`, such as `0x03C1` (a keyboard).
    public init(_ rawValue: UInt16) {
        self.init(rawValue: rawValue)
    }

    /// The appearance of `category` (0–1023) and `subcategory` (0–63; 0 is the generic one).
    /// Bits beyond those widths are dropped.
    public init(category: UInt16, subcategory: UInt8 = 0) {
        self.init(rawValue: (category & 0x3FF) << 6 | UInt16(subcategory & 0x3F))
    }

    /// The category, bits 15–6: 15 for a Human Interface Device.
    public var category: UInt16 { rawValue >> 6 }

    /// The subcategory, bits 5–0: 1 for a keyboard among Human Interface Devices; 0 for the
    /// category's generic device.
    public var subcategory: UInt8 { UInt8(rawValue & 0x3F) }

    /// The category's name, such as `"Human Interface Device"`; `nil` for a category the SIG has
    /// not assigned.
    public var categoryName: String? {
        AssignedNames.appearanceCategories.name(for: category)
    }

    /// The subcategory's name, such as `"Keyboard"`; `nil` for the generic subcategory 0 and for
    /// one the SIG has not assigned.
    public var subcategoryName: String? {
        AssignedNames.appearanceSubcategories.name(for: rawValue)
    }
}

extension Appearance: CustomStringConvertible {
    /// The value in hex with its names: `"0x03C1 (Human Interface Device: Keyboard)"`,
    /// `"0x03C0 (Human Interface Device)"`, `"0x03FF (Human Interface Device, subcategory 63)"`
    /// for a subcategory without a name, and `"0xFFC0"` for a category without one.
    public var description: String {
        let number = "0x" + hex(rawValue)
        guard let categoryName else { return number }
        if let subcategoryName { return "\(number) (\(categoryName): \(subcategoryName))" }
        if subcategory == 0 { return "\(number) (\(categoryName))" }
        return "\(number) (\(categoryName), subcategory \(subcategory))"
    }
}
