/// Why advertising data could not be encoded or decoded.
public enum AdvertisingDataError: Error, Sendable, Hashable, Codable {
    /// Encoding: the field does not fit. `needed` bytes (its AD structure, header included) were
    /// needed where `available` were left of the limit.
    case doesNotFit(field: String, needed: Int, available: Int)
    /// Encoding: the field's value cannot be represented (a UUID too wide for its list, data
    /// longer than one AD structure holds, ...).
    case invalidField(field: String, reason: String)
    /// Decoding: the bytes are malformed at `offset` (the start of the AD structure at fault),
    /// in the structure of AD type `adType` when it could be read.
    case malformed(offset: Int, adType: UInt8?, reason: String)
}

extension AdvertisingDataError: CustomStringConvertible {
    public var description: String {
        switch self {
        case .doesNotFit(let field, let needed, let available):
            "The \(field) needs \(needed) bytes but only \(available) are left of the advertising limit; shorten it or move it to the scan response."
        case .invalidField(let field, let reason):
            "The \(field) cannot be encoded: \(reason)."
        case .malformed(let offset, let adType, let reason):
            if let adType {
                "Malformed advertising data at byte \(offset) (\(ADStructure.fieldName(ofType: adType))): \(reason)."
            } else {
                "Malformed advertising data at byte \(offset): \(reason)."
            }
        }
    }
}
