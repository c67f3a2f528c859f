import BleuATT
import BleuCore
import DequeModule
import Foundation

/// Asks the test (the central's user) to enter the passkey the peripheral displays.
public struct PasskeyRequest: Sendable, Hashable {
    /// The peripheral, as the central knows it.
    public var peripheral: UUID
    /// The six-digit passkey the peripheral displays (0–999999).
    public var displayedPasskey: UInt32
}

/// Answers a ``PasskeyRequest`` with the passkey entered, or `nil` to cancel pairing.
public typealias PasskeyHandler = @Sendable (PasskeyRequest) async -> UInt32?

/// A pairing (or an encryption with a bond's keys) in progress on a link.
struct PairingProcedure {
    let id: UInt64
    /// The messages still to go, each sent when the one before it is delivered.
    var steps: Deque<PairingStep>
    var level: SecurityLevel
    var passkey: UInt32?
    var bonds: Bool
    /// What waits for the outcome.
    var resumptions: [PairingResumption] = []
}

enum PairingStep {
    case smp(SMPMessage)
    case encryption(EncryptionStep)
    /// The central's user enters the passkey the peripheral displays.
    case enterPasskey
}

enum PairingResumption {
    /// Resend the head ATT request.
    case attRequest
    /// Resend a channel connection request.
    case channelOpen(ChannelID)
    /// A manager's "pair now": succeed once the link reaches `minimum`, else fail.
    case operation(OperationID, minimum: SecurityLevel)
}

struct BondKey: Hashable {
    var central: UInt64
    var peripheral: UInt64
}
