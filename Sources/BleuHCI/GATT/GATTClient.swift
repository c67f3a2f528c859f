import BleuATT
import BleuCore

/// GATT client procedures (Core Spec Vol 3 Part G §4) over an ``ATTBearer``: MTU exchange,
/// primary service, characteristic and descriptor discovery, long reads.
///
/// An ATT error response becomes ``BleuError/att(_:)``; Attribute Not Found ends a discovery.
public struct GATTClient: Sendable {
    /// A primary service found on the server.
    public struct Service: Sendable, Hashable {
        public var uuid: BluetoothUUID
        public var handle: UInt16
        public var endHandle: UInt16
    }

    /// A characteristic found in a service.
    public struct Characteristic: Sendable, Hashable {
        public var uuid: BluetoothUUID
        public var declarationHandle: UInt16
        public var properties: CharacteristicProperties
        public var valueHandle: UInt16
    }

    /// A descriptor found after a characteristic's value.
    public struct Descriptor: Sendable, Hashable {
        public var uuid: BluetoothUUID
        public var handle: UInt16
    }

    public let bearer: ATTBearer

    public init(bearer: ATTBearer) {
        self.bearer = bearer
    }

    /// Exchanges MTUs; returns the MTU in use: the smaller of ours and the server's, at least 23.
    public func exchangeMTU(_ clientMTU: UInt16 = 517) async throws -> Int {
        let response = try await bearer.request(.exchangeMTURequest(clientRxMTU: clientMTU))
        guard case .exchangeMTUResponse(let serverMTU) = try check(response) else { throw unexpected(response) }
        return max(23, Int(min(clientMTU, serverMTU)))
    }

    /// Every primary service, by Read By Group Type from handle 1 on.
    public func discoverPrimaryServices() async throws -> [Service] {
        var services: [Service] = []
        var start: UInt16 = 1
        while true {
            let response = try await bearer.request(.readByGroupTypeRequest(
                startingHandle: start, endingHandle: 0xFFFF, type: BluetoothUUID.Declaration.primaryService))
            if isNotFound(response) { return services }
            guard case .readByGroupTypeResponse(let groups) = try check(response) else { throw unexpected(response) }
            for group in groups {
                guard let uuid = BluetoothUUID(littleEndianBytes: group.value) else { throw malformed(response) }
                services.append(Service(uuid: uuid, handle: group.handle, endHandle: group.endGroupHandle))
            }
            guard let last = groups.last, last.endGroupHandle < 0xFFFF, last.endGroupHandle >= start else { return services }
            start = last.endGroupHandle + 1
        }
    }

    /// The services a service includes, by Read By Type of include declarations in its range; a
    /// 128-bit included service's UUID is read from its declaration.
    public func discoverIncludedServices(of service: Service) async throws -> [Service] {
        var found: [Service] = []
        var start = service.handle
        while start <= service.endHandle {
            let response = try await bearer.request(.readByTypeRequest(
                startingHandle: start, endingHandle: service.endHandle, type: BluetoothUUID.Declaration.include))
            if isNotFound(response) { break }
            guard case .readByTypeResponse(let entries) = try check(response) else { throw unexpected(response) }
            for entry in entries {
                guard entry.value.count == 4 || entry.value.count == 6 else { throw malformed(response) }
                let first = UInt16(entry.value[0]) | UInt16(entry.value[1]) << 8
                let last = UInt16(entry.value[2]) | UInt16(entry.value[3]) << 8
                var uuidBytes = Array(entry.value.dropFirst(4))
                if uuidBytes.isEmpty {
                    let declaration = try await bearer.request(.readRequest(handle: first))
                    guard case .readResponse(let bytes) = try check(declaration) else { throw unexpected(declaration) }
                    uuidBytes = bytes
                }
                guard let uuid = BluetoothUUID(littleEndianBytes: uuidBytes) else { throw malformed(response) }
                found.append(Service(uuid: uuid, handle: first, endHandle: last))
            }
            guard let last = entries.last, last.handle < service.endHandle, last.handle >= start else { break }
            start = last.handle + 1
        }
        return found
    }

    /// The characteristics of a service, by Read By Type of characteristic declarations.
    public func discoverCharacteristics(of service: Service) async throws -> [Characteristic] {
        var found: [Characteristic] = []
        var start = service.handle
        while start <= service.endHandle {
            let response = try await bearer.request(.readByTypeRequest(
                startingHandle: start, endingHandle: service.endHandle, type: BluetoothUUID.Declaration.characteristic))
            if isNotFound(response) { break }
            guard case .readByTypeResponse(let entries) = try check(response) else { throw unexpected(response) }
            for entry in entries {
                guard entry.value.count == 5 || entry.value.count == 19,
                      let uuid = BluetoothUUID(littleEndianBytes: entry.value.dropFirst(3)) else { throw malformed(response) }
                found.append(Characteristic(uuid: uuid, declarationHandle: entry.handle,
                                            properties: CharacteristicProperties(rawValue: entry.value[0]),
                                            valueHandle: UInt16(entry.value[1]) | UInt16(entry.value[2]) << 8))
            }
            guard let last = entries.last, last.handle < service.endHandle, last.handle >= start else { break }
            start = last.handle + 1
        }
        return found
    }

    /// The descriptors between a characteristic's value and `endHandle` (the next
    /// characteristic's declaration − 1, or the service's end), by Find Information.
    public func discoverDescriptors(of characteristic: Characteristic, endHandle: UInt16) async throws -> [Descriptor] {
        var found: [Descriptor] = []
        guard characteristic.valueHandle < endHandle else { return [] }
        var start = characteristic.valueHandle + 1
        while start <= endHandle {
            let response = try await bearer.request(.findInformationRequest(startingHandle: start, endingHandle: endHandle))
            if isNotFound(response) { break }
            guard case .findInformationResponse(let info) = try check(response) else { throw unexpected(response) }
            found += info.entries.map { Descriptor(uuid: $0.type, handle: $0.handle) }
            guard let last = info.entries.last, last.handle < endHandle, last.handle >= start else { break }
            start = last.handle + 1
        }
        return found
    }

    /// Reads a whole value: a Read, then Read Blobs while the parts fill the PDU (up to 512 bytes).
    public func readLong(_ handle: UInt16, mtu: Int) async throws -> [UInt8] {
        let first = try await bearer.request(.readRequest(handle: handle))
        guard case .readResponse(var value) = try check(first) else { throw unexpected(first) }
        var part = value.count
        while part == mtu - 1, value.count < 512 {
            let response = try await bearer.request(.readBlobRequest(handle: handle, offset: UInt16(value.count)))
            if case .errorResponse(_, _, let error) = response, error == .attributeNotLong || error == .invalidOffset { break }
            guard case .readBlobResponse(let more) = try check(response) else { throw unexpected(response) }
            value += more
            part = more.count
        }
        return value
    }

    private func isNotFound(_ response: ATTPDU) -> Bool {
        if case .errorResponse(_, _, .attributeNotFound) = response { return true }
        return false
    }

    private func check(_ response: ATTPDU) throws -> ATTPDU {
        if case .errorResponse(_, _, let error) = response { throw BleuError.att(error) }
        return response
    }

    private func unexpected(_ response: ATTPDU) -> BleuError {
        .invalidState("the server answered with an unexpected \(response.opcode)")
    }

    private func malformed(_ response: ATTPDU) -> BleuError {
        .invalidState("the server's \(response.opcode) is malformed")
    }
}
