import BleuCore
import Foundation

/// The types an actor system agrees to rebuild from a name a peer sends: the error types it
/// decodes a remote error as, and the generic arguments it runs a hosted generic method with.
///
/// A peer names a type by its mangled name. The system never looks such a name up in the whole
/// process (a hostile peer would then choose which `Decodable` initializer runs); it looks it up
/// here, and in the types the called method declares:
///
/// - **Errors (central side).** A `Codable` error thrown by a remote method arrives as itself
///   when its type is registered in the calling system's
///   ``BLEActorSystem/Configuration/remoteTypes``, or when it is the error type the call
///   declares: the concrete `throwing:` type of
///   `BLEActorSystem.remoteCall(on:target:invocation:throwing:returning:)`. Any other arrives
///   as a ``RemoteCallError`` carrying the type's readable name and the error's description,
///   and nothing is decoded. Plain `throws` declares nothing, and neither does a stream's
///   failure: only registered types arrive as themselves. With Swift 6.3 the distributed thunk
///   of a typed-throws method (`throws(SensorFault)`) passes `any Error` as `throwing:`, so
///   register such error types too.
/// - **Generic arguments (peripheral side).** A call of a generic distributed method runs only
///   when each of its type arguments is registered in the hosting system's
///   ``BLEActorSystem/Configuration/remoteTypes``; otherwise it is refused with
///   ``BLEActorSystemError/unknownMethod(_:)`` and the method does not run.
///
/// Every system also knows a built-in set it cannot be without: its own error types
/// (``BLEActorSystemError``, ``RemoteCallError`` and BleuCore's `BleuError`, which a peripheral
/// sends back for refused calls), and, as generic arguments, the standard library's and
/// Foundation's scalar types (`Bool`, `String`, the integer and floating-point types, `Data`,
/// `Date`, `UUID`, `URL`). Anything else, including collections and optionals of these
/// (`[Int]`, `String?`), must be registered.
///
/// ```swift
/// var configuration = BLEActorSystem.Configuration()
/// configuration.remoteTypes.register(SensorFault.self)  // an error the central catches as itself
/// configuration.remoteTypes.register(Reading.self)      // a generic argument the peripheral accepts
/// ```
///
/// Register a type on the side that rebuilds it: error types on the calling system, generic
/// arguments on the hosting system (registering both everywhere is harmless).
public struct RemoteTypeRegistry: Sendable {
    /// Registered types by mangled name.
    private var types: [String: any (Codable & SendableMetatype).Type] = [:]
    /// The registered types that are errors, by mangled name.
    private var errors: [String: any (Error & Decodable).Type] = [:]

    /// An empty registry: only the built-in types are rebuilt.
    public init() {}

    /// A registry holding `types` (see ``register(_:)``).
    public init(_ types: any (Codable & SendableMetatype).Type...) {
        for type in types { register(type) }
    }

    /// Registers `type`: as a generic argument a hosted generic method may be called with and,
    /// when it is an `Error`, as an error type a remote method's error is decoded as. A type
    /// without a mangled name (which cannot cross the link anyway) is not registered.
    ///
    /// `T` is `SendableMetatype` because the system decodes its values in whatever task the
    /// call or reply arrives on: a type whose `Codable` conformance is isolated to an actor
    /// (such as the main actor) cannot be registered.
    public mutating func register<T: Codable & SendableMetatype>(_ type: T.Type) {
        guard let name = _mangledTypeName(type) else { return }
        types[name] = type
        if let error = type as? any (Error & Decodable).Type { errors[name] = error }
    }

    /// Whether `type` is registered here (the built-in set is not included).
    public func contains(_ type: Any.Type) -> Bool {
        guard let name = _mangledTypeName(type) else { return false }
        return types[name] != nil
    }

    /// The error type registered (here or in the built-in set) under this mangled name.
    func errorType(named mangledName: String) -> (any (Error & Decodable).Type)? {
        errors[mangledName] ?? Self.builtIn.errors[mangledName]
    }

    /// The type registered (here or in the built-in set) under this mangled name.
    func type(named mangledName: String) -> (any (Codable & SendableMetatype).Type)? {
        types[mangledName] ?? Self.builtIn.types[mangledName]
    }

    /// What every system rebuilds: its own error types and the common scalar types.
    static let builtIn = RemoteTypeRegistry(
        BLEActorSystemError.self, BleuError.self, RemoteCallError.self,
        Bool.self, String.self, Int.self, Int8.self, Int16.self, Int32.self, Int64.self,
        UInt.self, UInt8.self, UInt16.self, UInt32.self, UInt64.self, Float.self, Double.self,
        Data.self, Date.self, UUID.self, URL.self)
}
