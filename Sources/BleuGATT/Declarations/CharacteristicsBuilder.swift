/// Collects a service's characteristics: ``Characteristic`` values (declared without a
/// static value), ``CharacteristicDeclaration``s (with one, from ``Characteristic/value(_:)``),
/// `if`, `if let`, `switch` and `for`.
@resultBuilder
public enum CharacteristicsBuilder {
    /// A typed characteristic, declared without a static value.
    public static func buildExpression<Value>(_ characteristic: Characteristic<Value>) -> [CharacteristicDeclaration] {
        [characteristic.declaration]
    }

    public static func buildExpression(_ declaration: CharacteristicDeclaration) -> [CharacteristicDeclaration] {
        [declaration]
    }

    public static func buildBlock(_ parts: [CharacteristicDeclaration]...) -> [CharacteristicDeclaration] {
        parts.flatMap(\.self)
    }

    public static func buildOptional(_ part: [CharacteristicDeclaration]?) -> [CharacteristicDeclaration] {
        part ?? []
    }

    public static func buildEither(first part: [CharacteristicDeclaration]) -> [CharacteristicDeclaration] {
        part
    }

    public static func buildEither(second part: [CharacteristicDeclaration]) -> [CharacteristicDeclaration] {
        part
    }

    public static func buildArray(_ parts: [[CharacteristicDeclaration]]) -> [CharacteristicDeclaration] {
        parts.flatMap(\.self)
    }
}
