/// Collects a service's characteristics: ``Characteristic`` values (declared without a
/// static value), ``CharacteristicDeclaration``s (with one, from ``Characteristic/value(_:)``),
/// `if`, `if let`, `switch` and `for`.
@resultBuilder
public enum CharacteristicsBuilder {
    /// A typed characteristic, declared without a static value.
    public static func buildExpression<Value>(_ characteristic: Characteristic<Value>) -> [CharacteristicDeclaration] {
        [characteristic.declaration]
    }

    /// A declaration as it is, such as one with a static value from ``Characteristic/value(_:)``.
    public static func buildExpression(_ declaration: CharacteristicDeclaration) -> [CharacteristicDeclaration] {
        [declaration]
    }

    /// The characteristics of the lines, in order.
    public static func buildBlock(_ parts: [CharacteristicDeclaration]...) -> [CharacteristicDeclaration] {
        parts.flatMap(\.self)
    }

    /// An `if` without `else`: its characteristics when the condition held, else none.
    public static func buildOptional(_ part: [CharacteristicDeclaration]?) -> [CharacteristicDeclaration] {
        part ?? []
    }

    /// The first branch of an `if`/`else` or `switch`.
    public static func buildEither(first part: [CharacteristicDeclaration]) -> [CharacteristicDeclaration] {
        part
    }

    /// The second branch of an `if`/`else` or `switch`.
    public static func buildEither(second part: [CharacteristicDeclaration]) -> [CharacteristicDeclaration] {
        part
    }

    /// A `for` loop's characteristics, one iteration after another.
    public static func buildArray(_ parts: [[CharacteristicDeclaration]]) -> [CharacteristicDeclaration] {
        parts.flatMap(\.self)
    }
}
