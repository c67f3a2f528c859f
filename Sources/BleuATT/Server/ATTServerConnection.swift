import BleuCore

/// What a GATT server keeps per connected client: the negotiated MTU, the link's security,
/// the client's CCCD values, and its queue of prepared writes (bounded).
public struct ATTServerConnection: Sendable {
    /// The ATT MTU in use (23 until an exchange).
    public private(set) var mtu = 23
    /// The largest MTU this server accepts (517 by default).
    public let maxMTU: Int
    /// CCCD bits per characteristic value handle: bit 0 notifications, bit 1 indications.
    public private(set) var clientConfigurations: [UInt16: UInt16] = [:]
    package var preparedWrites: [(handle: UInt16, offset: UInt16, value: [UInt8])] = []
    /// The most prepared writes queued at once.
    public let maxPreparedWrites: Int
    /// What the link's encryption gives this client; the access rules read it. The link layer
    /// updates it when encryption starts or changes.
    public var security: LinkSecurity
    /// The shortest encryption key the server accepts for attributes that need encryption.
    public let minimumKeySize: Int

    public init(maxMTU: Int = 517, maxPreparedWrites: Int = 64, security: LinkSecurity = .unencrypted,
                minimumKeySize: Int = 7) {
        self.maxMTU = max(23, min(maxMTU, 517))
        self.maxPreparedWrites = maxPreparedWrites
        self.security = security
        self.minimumKeySize = minimumKeySize
    }

    package mutating func exchange(clientMTU: UInt16) {
        mtu = max(23, min(Int(clientMTU), maxMTU))
    }

    /// Sets the MTU the bearer uses (after an exchange our own client made).
    package mutating func setMTU(_ value: Int) {
        mtu = max(23, min(value, maxMTU))
    }

    package mutating func configure(_ valueHandle: UInt16, _ bits: UInt16) {
        clientConfigurations[valueHandle] = bits == 0 ? nil : bits
    }

    /// Whether the client subscribed to notifications (or indications) of the value at `handle`.
    public func isSubscribed(_ valueHandle: UInt16, indications: Bool) -> Bool {
        (clientConfigurations[valueHandle] ?? 0) & (indications ? 0x0002 : 0x0001) != 0
    }
}

/// A read the application must answer (a characteristic without a static value).
public struct ATTReadOperation: Sendable, Hashable {
    /// Which request asked, which decides the response's form.
    public enum Kind: Sendable, Hashable { case read, blob, byType }
    public var kind: Kind
    public var characteristic: PublishedCharacteristic
    public var offset: Int

    /// The response carrying the application's value (bytes from ``offset`` on), cut to fit
    /// `mtu` and the 512 bytes an attribute value holds at most (Invalid Offset past them).
    public func response(value: [UInt8], mtu: Int) -> ATTPDU {
        guard offset <= AttributeAccess.maximumValueLength else { return response(error: .invalidOffset) }
        let value = Array(value.prefix(AttributeAccess.maximumValueLength - offset))
        return switch kind {
        case .read: .readResponse(value: Array(value.prefix(mtu - 1)))
        case .blob: .readBlobResponse(value: Array(value.prefix(mtu - 1)))
        case .byType: .readByTypeResponse([.init(handle: characteristic.valueHandle, value: Array(value.prefix(min(mtu - 4, 253))))])
        }
    }

    /// The error response for an application error.
    public func response(error: ATTError) -> ATTPDU {
        let opcode: ATTOpcode = switch kind {
        case .read: .readRequest
        case .blob: .readBlobRequest
        case .byType: .readByTypeRequest
        }
        return .errorResponse(requestOpcode: opcode, handle: characteristic.valueHandle, error: error)
    }
}

/// Writes the application must apply: one (write request or command) or several (an executed
/// queue of prepared writes).
public struct ATTWriteOperation: Sendable, Hashable {
    public struct Write: Sendable, Hashable {
        public var characteristic: PublishedCharacteristic
        public var offset: Int
        public var value: [UInt8]
    }
    public var writes: [Write]
    /// The request to answer: Write Request or Execute Write Request; `nil` for a Write Command.
    public var request: ATTOpcode?

    /// The response when the application accepted the writes; `nil` when none is due.
    public var successResponse: ATTPDU? {
        switch request {
        case .writeRequest?: .writeResponse
        case .executeWriteRequest?: .executeWriteResponse
        default: nil
        }
    }

    /// The error response for an application error; `nil` when none is due.
    public func response(error: ATTError) -> ATTPDU? {
        guard let request else { return nil }
        return .errorResponse(requestOpcode: request, handle: writes.first?.characteristic.valueHandle ?? 0, error: error)
    }
}

/// What the ATT server wants done with a PDU it received.
public enum ATTServerAction: Sendable, Hashable {
    /// Send this PDU back.
    case respond(ATTPDU)
    /// Ask the application for a value, then send ``ATTReadOperation/response(value:mtu:)``.
    case read(ATTReadOperation)
    /// Hand the writes to the application, then send its answer (if the operation needs one).
    case write(ATTWriteOperation)
    /// The client changed a CCCD; tell the application, and send the response (none for a command).
    case subscriptionChanged(PublishedCharacteristic, configuration: UInt16, response: ATTPDU?)
    /// Nothing to send (a command the server drops, a PDU that is not for the server).
    case ignore(String)
}
