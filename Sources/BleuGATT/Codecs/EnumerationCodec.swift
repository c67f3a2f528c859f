import BleuCore

/// A Swift enumeration with integer raw values, as the SIG's enumerated fields: the raw value
/// little-endian in its type's width. An unknown raw value is
/// ``GATTCodecError/Kind/valueNotAllowed`` — answered with ``/BleuCore/ATTError/valueNotAllowed``
/// unless a service names another error (the Heart Rate Control Point answers 0x80).
public struct EnumerationCodec<Enumeration: RawRepresentable & Sendable>: GATTCodec
where Enumeration.RawValue: FixedWidthInteger & Sendable {
    /// The ATT error an unknown value is answered with.
    public let attError: ATTError

    /// A codec of `type`'s raw values; an unknown one is answered with `attError`. Also
    /// ``GATTCodec/enumeration(_:answering:)``.
    public init(_ type: Enumeration.Type = Enumeration.self, answering attError: ATTError = .valueNotAllowed) {
        self.attError = attError
    }

    public func encode(_ value: Enumeration, to writer: inout GATTWriter) throws(GATTCodecError) {
        writer.writeInteger(value.rawValue)
    }

    public func decode(from reader: inout GATTReader) throws(GATTCodecError) -> Enumeration {
        let raw = try reader.readInteger(Enumeration.RawValue.self)
        guard let value = Enumeration(rawValue: raw) else {
            throw GATTCodecError(kind: .valueNotAllowed, expected: Self.expectedText,
                                 found: "\(raw), which \(Enumeration.self) does not define", attError: attError)
        }
        return value
    }

    private static var expectedText: String {
        if let all = Enumeration.self as? any CaseIterable.Type {
            let raws = (all.allCases as any Collection).compactMap { ($0 as? Enumeration)?.rawValue }
            return "one of " + raws.map { "\($0)" }.joined(separator: ", ")
        }
        return "a value \(Enumeration.self) defines"
    }
}

extension GATTCodec {
    /// An enumeration's raw value; unknown values are rejected and answered with `attError`.
    public static func enumeration<Enumeration>(_ type: Enumeration.Type, answering attError: ATTError = .valueNotAllowed)
        -> Self where Self == EnumerationCodec<Enumeration>
    {
        EnumerationCodec(type, answering: attError)
    }
}
