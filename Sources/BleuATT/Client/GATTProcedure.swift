import BleuCore

/// One GATT client procedure (Core Spec Vol 3 Part G §4) as a pure state machine: it says
/// which request to send, takes the server's answer, and says what to send next or how the
/// procedure ended. The emulator's links and BleuHCI's bearer both drive it, so a client
/// behaviour tested on the emulator is the behaviour on a controller.
///
/// ATT is sequential: a driver sends ``Step/send(_:)``'s PDU, waits for the answer (or the
/// 30 s transaction timeout, which is the driver's), and feeds it to ``receive(_:)``.
public struct GATTProcedure: Sendable {
    /// What the procedure does.
    public enum Kind: Sendable, Hashable {
        /// Exchange MTU: offers `clientMTU`; ends with ``Outcome/mtu(_:)``.
        case exchangeMTU(clientMTU: UInt16)
        /// Discover All Primary Services (§4.4.1).
        case discoverPrimaryServices
        /// Find Included Services (§4.5.1) in a service's handle range.
        case discoverIncludedServices(start: UInt16, end: UInt16)
        /// Discover All Characteristics of a Service (§4.6.1).
        case discoverCharacteristics(start: UInt16, end: UInt16)
        /// Discover All Characteristic Descriptors (§4.7.1) after a characteristic's value.
        case discoverDescriptors(valueHandle: UInt16, end: UInt16)
        /// Read Characteristic Value, then Read Blobs while the parts fill the PDU (§4.8.1, §4.8.3), up to 512 bytes.
        case read(handle: UInt16)
        /// Write Characteristic Value (§4.9.3), or Write Long Characteristic Values (§4.9.4)
        /// with prepared writes when the value does not fit one PDU.
        case write(handle: UInt16, value: [UInt8])
        /// Writes a characteristic's Client Characteristic Configuration descriptor; finds it
        /// first (Find Information after the value) when `descriptor` is `nil`.
        case configure(valueHandle: UInt16, end: UInt16, descriptor: UInt16?, bits: UInt16)
    }

    /// A service the server reported.
    public struct Service: Sendable, Hashable {
        public var uuid: BluetoothUUID
        public var handle: UInt16
        public var endHandle: UInt16
        public var isPrimary: Bool
    }

    /// A characteristic declaration the server reported; `endHandle` is the last handle before
    /// the next declaration (or the service's end).
    public struct Characteristic: Sendable, Hashable {
        public var uuid: BluetoothUUID
        public var declarationHandle: UInt16
        public var properties: CharacteristicProperties
        public var valueHandle: UInt16
        public var endHandle: UInt16
    }

    /// A descriptor the server reported.
    public struct Descriptor: Sendable, Hashable {
        public var uuid: BluetoothUUID
        public var handle: UInt16
    }

    /// How a procedure ended well.
    public enum Outcome: Sendable, Hashable {
        case mtu(Int)
        case services([Service])
        case characteristics([Characteristic])
        case descriptors([Descriptor])
        case value([UInt8])
        case written
        /// The configuration descriptor written, at this handle.
        case configured(descriptor: UInt16)
    }

    /// How a procedure failed.
    public enum Failure: Error, Sendable, Hashable {
        /// The server answered an error response.
        case att(ATTError, request: ATTOpcode, handle: UInt16)
        /// The characteristic has no Client Characteristic Configuration descriptor.
        case noConfigurationDescriptor(valueHandle: UInt16)
        /// The server answered a request with a PDU that does not answer it.
        case unexpectedResponse(request: ATTOpcode, response: ATTOpcode)
        /// The server's answer breaks the procedure's rules (a declaration of the wrong size, a range going backwards).
        case malformedResponse(ATTOpcode)
        /// The server echoed a prepared write with another handle, offset or value; the long
        /// write was cancelled (Vol 3 Part G §4.9.4).
        case preparedWriteMismatch(handle: UInt16, offset: UInt16)

        /// The error a caller of a radio protocol sees.
        public var bleuError: BleuError {
            switch self {
            case .att(let code, _, _):
                .att(code)
            case .noConfigurationDescriptor:
                .descriptorNotFound(BluetoothUUID.Descriptor.clientCharacteristicConfiguration)
            case .unexpectedResponse(let request, let response):
                .invalidData(.unexpectedResponse(request: request.rawValue, response: response.rawValue))
            case .malformedResponse(let response):
                .invalidData(.malformedPDU(opcode: response.rawValue))
            case .preparedWriteMismatch(let handle, let offset):
                .invalidData(.preparedWriteMismatch(handle: handle, offset: Int(offset)))
            }
        }
    }

    /// What the driver does next.
    public enum Step: Sendable, Hashable {
        case send(ATTPDU)
        case finished(Result<Outcome, Failure>)
    }

    public let kind: Kind
    /// The ATT MTU of the bearer.
    public let mtu: Int
    /// The request waiting for its answer (a driver re-sends it after raising the link's security).
    public private(set) var outstanding: ATTPDU?
    private var services: [Service] = []
    private var characteristics: [Characteristic] = []
    private var descriptors: [Descriptor] = []
    private var value: [UInt8] = []
    /// Include declarations whose service UUID (a 128-bit one is not in the declaration) or
    /// kind is still to be read.
    private var unresolved: [(handle: UInt16, endHandle: UInt16, uuid: BluetoothUUID?)] = []
    private var includeScanEnd: UInt16 = 0
    private var written = 0
    private var cancelledWith: Failure?
    private var configurationHandle: UInt16?

    public init(_ kind: Kind, mtu: Int) {
        self.kind = kind
        self.mtu = max(23, mtu)
        if case .configure(_, _, let descriptor, _) = kind { configurationHandle = descriptor }
    }

    /// The first step.
    public mutating func start() -> Step {
        switch kind {
        case .exchangeMTU(let clientMTU):
            return send(.exchangeMTURequest(clientRxMTU: clientMTU))
        case .discoverPrimaryServices:
            return send(.readByGroupTypeRequest(startingHandle: 1, endingHandle: 0xFFFF,
                                                type: BluetoothUUID.Declaration.primaryService))
        case .discoverIncludedServices(let start, let end):
            return send(.readByTypeRequest(startingHandle: start, endingHandle: end, type: BluetoothUUID.Declaration.include))
        case .discoverCharacteristics(let start, let end):
            return send(.readByTypeRequest(startingHandle: start, endingHandle: end,
                                           type: BluetoothUUID.Declaration.characteristic))
        case .discoverDescriptors(let valueHandle, let end):
            guard valueHandle < end else { return .finished(.success(.descriptors([]))) }
            return send(.findInformationRequest(startingHandle: valueHandle + 1, endingHandle: end))
        case .read(let handle):
            return send(.readRequest(handle: handle))
        case .write(let handle, let value):
            if value.count <= mtu - 3 { return send(.writeRequest(handle: handle, value: value)) }
            return send(.prepareWriteRequest(handle: handle, offset: 0, value: Array(value.prefix(mtu - 5))))
        case .configure(let valueHandle, let end, let descriptor, let bits):
            if let descriptor { return send(.writeRequest(handle: descriptor, value: Self.bytes(bits))) }
            return send(.findInformationRequest(startingHandle: valueHandle + 1, endingHandle: max(end, valueHandle + 1)))
        }
    }

    /// The server's answer to ``outstanding``; the next step.
    public mutating func receive(_ response: ATTPDU) -> Step {
        guard let request = outstanding else { return .finished(.failure(.unexpectedResponse(request: .errorResponse, response: response.opcode))) }
        outstanding = nil
        // No PDU may exceed the MTU (Vol 3 Part F §3.2.8): a longer answer is malformed.
        guard response.encodedLength <= mtu else { return malformed(response) }
        if case .errorResponse(_, let handle, let code) = response {
            return error(code, handle: handle, answering: request)
        }
        switch (kind, response) {
        case (.exchangeMTU(let clientMTU), .exchangeMTUResponse(let serverMTU)):
            return .finished(.success(.mtu(max(23, Int(min(clientMTU, serverMTU))))))

        case (.discoverPrimaryServices, .readByGroupTypeResponse(let groups)):
            for group in groups {
                guard let uuid = BluetoothUUID(littleEndianBytes: group.value), group.endGroupHandle >= group.handle else {
                    return malformed(response)
                }
                services.append(Service(uuid: uuid, handle: group.handle, endHandle: group.endGroupHandle, isPrimary: true))
            }
            guard let last = groups.last?.endGroupHandle, last < 0xFFFF else { return .finished(.success(.services(services))) }
            guard case .readByGroupTypeRequest(let start, _, _) = request, last >= start else { return malformed(response) }
            return send(.readByGroupTypeRequest(startingHandle: last + 1, endingHandle: 0xFFFF,
                                                type: BluetoothUUID.Declaration.primaryService))

        case (.discoverIncludedServices, .readByTypeResponse(let entries)):
            for entry in entries {
                // An include declaration: the service's handle range, and its UUID when it is a 16-bit one.
                var reader = ByteReader(entry.value, packet: "include declaration")
                guard entry.value.count == 4 || entry.value.count == 6, let first = try? reader.u16(), let last = try? reader.u16()
                else { return malformed(response) }
                let uuid = reader.isAtEnd ? nil : BluetoothUUID(littleEndianBytes: reader.rest())
                unresolved.append((first, last, uuid))
            }
            guard case .readByTypeRequest(let start, _, _) = request, let last = entries.last?.handle, last >= start else {
                return malformed(response)
            }
            includeScanEnd = last
            return resolveNextInclude()

        case (.discoverIncludedServices, .readResponse(let bytes)):
            // The 128-bit UUID of the included service, read from its declaration.
            guard let uuid = BluetoothUUID(littleEndianBytes: bytes), !unresolved.isEmpty else { return malformed(response) }
            unresolved[0].uuid = uuid
            return send(.findInformationRequest(startingHandle: unresolved[0].handle, endingHandle: unresolved[0].handle))

        case (.discoverIncludedServices, .findInformationResponse(let information)):
            // The included service's declaration type: primary (0x2800) or secondary (0x2801).
            guard let declaration = information.entries.first, let include = unresolved.first, let uuid = include.uuid else {
                return malformed(response)
            }
            unresolved.removeFirst()
            services.append(Service(uuid: uuid, handle: include.handle, endHandle: include.endHandle,
                                    isPrimary: declaration.type == BluetoothUUID.Declaration.primaryService))
            return resolveNextInclude()

        case (.discoverCharacteristics(_, let end), .readByTypeResponse(let entries)):
            for entry in entries {
                // A characteristic declaration: properties, value handle, UUID (2 or 16 bytes).
                var reader = ByteReader(entry.value, packet: "characteristic declaration")
                guard entry.value.count == 5 || entry.value.count == 19, let properties = try? reader.u8(),
                      let valueHandle = try? reader.u16(), let uuid = BluetoothUUID(littleEndianBytes: reader.rest())
                else { return malformed(response) }
                characteristics.append(Characteristic(
                    uuid: uuid, declarationHandle: entry.handle, properties: CharacteristicProperties(rawValue: properties),
                    valueHandle: valueHandle, endHandle: end))
            }
            guard case .readByTypeRequest(let start, _, _) = request, let last = entries.last?.handle, last >= start else {
                return malformed(response)
            }
            guard last < end else { return finishCharacteristics(end: end) }
            return send(.readByTypeRequest(startingHandle: last + 1, endingHandle: end,
                                           type: BluetoothUUID.Declaration.characteristic))

        case (.discoverDescriptors(_, let end), .findInformationResponse(let information)):
            descriptors += information.entries.map { Descriptor(uuid: $0.type, handle: $0.handle) }
            guard case .findInformationRequest(let start, _) = request, let last = information.entries.last?.handle,
                  last >= start else { return malformed(response) }
            guard last < end else { return .finished(.success(.descriptors(descriptors))) }
            return send(.findInformationRequest(startingHandle: last + 1, endingHandle: end))

        case (.read(let handle), .readResponse(let part)), (.read(let handle), .readBlobResponse(let part)):
            value += part
            if part.count == mtu - 1, value.count < AttributeAccess.maximumValueLength {
                return send(.readBlobRequest(handle: handle, offset: UInt16(value.count)))
            }
            return .finished(.success(.value(value)))

        case (.write, .writeResponse):
            return .finished(.success(.written))
        case (.write(let handle, let full), .prepareWriteResponse(let echoedHandle, let echoedOffset, let part)):
            guard case .prepareWriteRequest(_, let offset, let sent) = request, echoedHandle == handle,
                  echoedOffset == offset, part == sent else {
                cancelledWith = .preparedWriteMismatch(handle: handle, offset: echoedOffset)
                return send(.executeWriteRequest(commit: false))
            }
            written += part.count
            if written < full.count {
                return send(.prepareWriteRequest(handle: handle, offset: UInt16(truncatingIfNeeded: written),
                                                 value: Array(full.dropFirst(written).prefix(mtu - 5))))
            }
            return send(.executeWriteRequest(commit: true))
        case (.write, .executeWriteResponse):
            if let cancelledWith { return .finished(.failure(cancelledWith)) }
            return .finished(.success(.written))

        case (.configure(let valueHandle, let end, _, let bits), .findInformationResponse(let information)):
            if let cccd = information.entries.first(where: { $0.type == BluetoothUUID.Descriptor.clientCharacteristicConfiguration }) {
                configurationHandle = cccd.handle
                return send(.writeRequest(handle: cccd.handle, value: Self.bytes(bits)))
            }
            if let last = information.entries.last?.handle, last < end {
                return send(.findInformationRequest(startingHandle: last + 1, endingHandle: end))
            }
            return .finished(.failure(.noConfigurationDescriptor(valueHandle: valueHandle)))
        case (.configure, .writeResponse):
            return .finished(.success(.configured(descriptor: configurationHandle ?? 0)))

        default:
            return .finished(.failure(.unexpectedResponse(request: request.opcode, response: response.opcode)))
        }
    }

    private mutating func send(_ pdu: ATTPDU) -> Step {
        outstanding = pdu
        return .send(pdu)
    }

    private func malformed(_ response: ATTPDU) -> Step {
        .finished(.failure(.malformedResponse(response.opcode)))
    }

    private mutating func error(_ code: ATTError, handle: UInt16, answering request: ATTPDU) -> Step {
        let failure = Failure.att(code, request: request.opcode, handle: handle)
        switch kind {
        case .discoverPrimaryServices where code == .attributeNotFound:
            return .finished(.success(.services(services)))
        case .discoverIncludedServices where code == .attributeNotFound:
            return .finished(.success(.services(services)))
        case .discoverCharacteristics(_, let end) where code == .attributeNotFound:
            return finishCharacteristics(end: end)
        case .discoverDescriptors where code == .attributeNotFound:
            return .finished(.success(.descriptors(descriptors)))
        case .read where (code == .attributeNotLong || code == .invalidOffset) && request.opcode == .readBlobRequest:
            return .finished(.success(.value(value)))
        case .write where request.opcode == .prepareWriteRequest:
            // Cancel what the server queued, then fail with its error.
            cancelledWith = failure
            return send(.executeWriteRequest(commit: false))
        case .configure(let valueHandle, _, _, _) where code == .attributeNotFound && request.opcode == .findInformationRequest:
            return .finished(.failure(.noConfigurationDescriptor(valueHandle: valueHandle)))
        default:
            return .finished(.failure(failure))
        }
    }

    /// Reads what an include declaration left out (a 128-bit UUID, whether the service is
    /// primary), then goes on with the next declarations.
    private mutating func resolveNextInclude() -> Step {
        guard case .discoverIncludedServices(_, let end) = kind else { return malformed(.readByTypeResponse([])) }
        if let next = unresolved.first {
            if next.uuid == nil { return send(.readRequest(handle: next.handle)) }
            return send(.findInformationRequest(startingHandle: next.handle, endingHandle: next.handle))
        }
        guard includeScanEnd < end else { return .finished(.success(.services(services))) }
        return send(.readByTypeRequest(startingHandle: includeScanEnd + 1, endingHandle: end,
                                       type: BluetoothUUID.Declaration.include))
    }

    /// A characteristic ends where the next declaration starts; the last one where its service ends.
    private func finishCharacteristics(end: UInt16) -> Step {
        var result = characteristics
        for index in result.indices {
            let next = index + 1 < result.count ? result[index + 1].declarationHandle - 1 : end
            result[index].endHandle = max(next, result[index].valueHandle)
        }
        return .finished(.success(.characteristics(result)))
    }

    private static func bytes(_ bits: UInt16) -> [UInt8] {
        [UInt8(truncatingIfNeeded: bits), UInt8(bits >> 8)]
    }
}
