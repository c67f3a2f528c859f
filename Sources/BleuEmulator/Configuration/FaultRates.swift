import BleuCore

/// Faults the emulator injects, each a probability drawn from the bus's seeded generator in
/// the order operations happen, so the same seed and the same operations give the same faults.
public struct FaultRates: Sendable, Hashable, Codable {
    /// The probability that a connection attempt fails to be established (HCI 0x3E).
    public var connectionFailure: Double
    /// The probability that the server answers a read or write request with ``injectedError``
    /// instead of passing it to the application.
    public var attError: Double
    /// The ATT error injected into reads and writes.
    public var injectedError: ATTError
    /// The probability, per PDU sent, that the link is lost (reported after the supervision
    /// timeout with ``/BleuCore/DisconnectReason/supervisionTimeout``).
    public var linkLoss: Double

    /// Fault rates; each parameter sets the property of the same name.
    public init(connectionFailure: Double = 0, attError: Double = 0, injectedError: ATTError = .unlikelyError,
                linkLoss: Double = 0) {
        self.connectionFailure = connectionFailure
        self.attError = attError
        self.injectedError = injectedError
        self.linkLoss = linkLoss
    }

    /// No faults.
    public static let none = FaultRates()

    /// Whether any fault can happen.
    public var isEnabled: Bool {
        connectionFailure > 0 || attError > 0 || linkLoss > 0
    }
}
