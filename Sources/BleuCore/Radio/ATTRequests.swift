import Foundation

/// Identifies one request a peripheral must answer.
public struct ATTRequestID: Sendable, Hashable, CustomStringConvertible {
    public let rawValue: UInt64

    public init(_ rawValue: UInt64) {
        self.rawValue = rawValue
    }

    public var description: String { "request #\(rawValue)" }
}

/// A central reads a characteristic the application serves. Answer it with
/// ``PeripheralManager/respond(to:with:)-(ReadRequest,_)`` — with the value starting at
/// ``offset`` (as CoreBluetooth's `CBATTRequest`), or with an ATT error.
public struct ReadRequest: Sendable, Hashable {
    public var id: ATTRequestID
    public var central: UUID
    public var characteristic: PublishedCharacteristic
    /// Where in the value the central reads from: 0, or more for a long read (Read Blob).
    public var offset: Int

    public init(id: ATTRequestID, central: UUID, characteristic: PublishedCharacteristic, offset: Int) {
        self.id = id
        self.central = central
        self.characteristic = characteristic
        self.offset = offset
    }
}

/// One value a central writes.
public struct WriteRequest: Sendable, Hashable {
    public var central: UUID
    public var characteristic: PublishedCharacteristic
    /// Where in the characteristic value the bytes go: 0, or more for a long (prepared) write.
    public var offset: Int
    public var value: Data

    public init(central: UUID, characteristic: PublishedCharacteristic, offset: Int, value: Data) {
        self.central = central
        self.characteristic = characteristic
        self.offset = offset
        self.value = value
    }
}

/// Writes that arrive together: one write request, one write command, or the prepared writes
/// of one Execute Write. Answer a batch that ``needsResponse`` once, with
/// ``PeripheralManager/respond(to:with:)-(WriteRequests,_)``: success applies all of them, an error
/// none (the backend reports it to the central). A write command (`needsResponse == false`)
/// takes no answer.
public struct WriteRequests: Sendable, Hashable {
    public var id: ATTRequestID
    public var central: UUID
    public var requests: [WriteRequest]
    public var needsResponse: Bool

    public init(id: ATTRequestID, central: UUID, requests: [WriteRequest], needsResponse: Bool) {
        self.id = id
        self.central = central
        self.requests = requests
        self.needsResponse = needsResponse
    }
}
