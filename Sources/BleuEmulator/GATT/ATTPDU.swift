import BleuCore
import Foundation

/// An Attribute Protocol PDU as the emulator carries it (Core Spec Vol 3 Part F §3.4): the
/// fields that matter, with the exact encoded length so the link model can time it.
enum ATTPDU: Sendable, Hashable {
    /// One primary service in a Read By Group Type Response.
    struct ServiceEntry: Sendable, Hashable {
        var handle: UInt16
        var endHandle: UInt16
        var uuid: BluetoothUUID
    }

    /// One characteristic declaration in a Read By Type Response.
    struct CharacteristicEntry: Sendable, Hashable {
        var handle: UInt16
        var properties: CharacteristicProperties
        var valueHandle: UInt16
        var uuid: BluetoothUUID
    }

    /// One include declaration in a Read By Type Response.
    struct IncludeEntry: Sendable, Hashable {
        var handle: UInt16
        var service: ServiceEntry
        /// Whether the included service is a primary one (the client learns it by reading the
        /// service's declaration; the emulator carries it along).
        var isPrimary: Bool
    }

    case error(request: UInt8, handle: UInt16, ATTError)
    case exchangeMTURequest(UInt16)
    case exchangeMTUResponse(UInt16)
    case findInformationRequest(start: UInt16, end: UInt16)
    case findInformationResponse([DescriptorEntry])
    case readByTypeRequest(start: UInt16, end: UInt16, type: BluetoothUUID)
    case characteristicDeclarations([CharacteristicEntry])
    case includeDeclarations([IncludeEntry])
    case readRequest(handle: UInt16)
    case readResponse(Data)
    case readBlobRequest(handle: UInt16, offset: UInt16)
    case readBlobResponse(Data)
    case readByGroupTypeRequest(start: UInt16, end: UInt16)
    case readByGroupTypeResponse([ServiceEntry])
    case writeRequest(handle: UInt16, Data)
    case writeResponse
    case writeCommand(handle: UInt16, Data)
    case prepareWriteRequest(handle: UInt16, offset: UInt16, Data)
    case prepareWriteResponse(handle: UInt16, offset: UInt16, Data)
    case executeWriteRequest(commit: Bool)
    case executeWriteResponse
    case notification(handle: UInt16, Data)
    case indication(handle: UInt16, Data)
    case confirmation

    /// One handle and type pair in a Find Information Response.
    struct DescriptorEntry: Sendable, Hashable {
        var handle: UInt16
        var uuid: BluetoothUUID
    }

    /// The opcode (Core Spec Vol 3 Part F §3.4.8).
    var opcode: UInt8 {
        switch self {
        case .error: 0x01
        case .exchangeMTURequest: 0x02
        case .exchangeMTUResponse: 0x03
        case .findInformationRequest: 0x04
        case .findInformationResponse: 0x05
        case .readByTypeRequest: 0x08
        case .characteristicDeclarations, .includeDeclarations: 0x09
        case .readRequest: 0x0A
        case .readResponse: 0x0B
        case .readBlobRequest: 0x0C
        case .readBlobResponse: 0x0D
        case .readByGroupTypeRequest: 0x10
        case .readByGroupTypeResponse: 0x11
        case .writeRequest: 0x12
        case .writeResponse: 0x13
        case .writeCommand: 0x52
        case .prepareWriteRequest: 0x16
        case .prepareWriteResponse: 0x17
        case .executeWriteRequest: 0x18
        case .executeWriteResponse: 0x19
        case .notification: 0x1B
        case .indication: 0x1D
        case .confirmation: 0x1E
        }
    }

    /// The handle the PDU addresses, when it has one.
    var handle: UInt16? {
        switch self {
        case .error(_, let handle, _), .readRequest(let handle), .readBlobRequest(let handle, _),
             .writeRequest(let handle, _), .writeCommand(let handle, _),
             .prepareWriteRequest(let handle, _, _), .prepareWriteResponse(let handle, _, _),
             .notification(let handle, _), .indication(let handle, _):
            handle
        case .findInformationRequest(let start, _), .readByTypeRequest(let start, _, _),
             .readByGroupTypeRequest(let start, _):
            start
        default:
            nil
        }
    }

    /// The encoded length in bytes, opcode included.
    var length: Int {
        switch self {
        case .error: 5
        case .exchangeMTURequest, .exchangeMTUResponse: 3
        case .findInformationRequest: 5
        case .findInformationResponse(let entries):
            2 + entries.count * (2 + Self.width(entries.first?.uuid))
        case .readByTypeRequest(_, _, let type): 5 + Self.width(type)
        case .characteristicDeclarations(let entries):
            2 + entries.count * (5 + Self.width(entries.first?.uuid))
        case .includeDeclarations(let entries):
            2 + entries.count * (6 + (Self.width(entries.first?.service.uuid) == 2 ? 2 : 0))
        case .readRequest: 3
        case .readResponse(let value), .readBlobResponse(let value): 1 + value.count
        case .readBlobRequest: 5
        case .readByGroupTypeRequest: 7
        case .readByGroupTypeResponse(let entries):
            2 + entries.count * (4 + Self.width(entries.first?.uuid))
        case .writeRequest(_, let value), .writeCommand(_, let value),
             .notification(_, let value), .indication(_, let value):
            3 + value.count
        case .writeResponse, .executeWriteResponse, .confirmation: 1
        case .prepareWriteRequest(_, _, let value), .prepareWriteResponse(_, _, let value): 5 + value.count
        case .executeWriteRequest: 2
        }
    }

    /// The name of the opcode, as the specification spells it.
    var name: String {
        switch self {
        case .error: "Error Rsp"
        case .exchangeMTURequest: "Exchange MTU Req"
        case .exchangeMTUResponse: "Exchange MTU Rsp"
        case .findInformationRequest: "Find Information Req"
        case .findInformationResponse: "Find Information Rsp"
        case .readByTypeRequest: "Read By Type Req"
        case .characteristicDeclarations, .includeDeclarations: "Read By Type Rsp"
        case .readRequest: "Read Req"
        case .readResponse: "Read Rsp"
        case .readBlobRequest: "Read Blob Req"
        case .readBlobResponse: "Read Blob Rsp"
        case .readByGroupTypeRequest: "Read By Group Type Req"
        case .readByGroupTypeResponse: "Read By Group Type Rsp"
        case .writeRequest: "Write Req"
        case .writeResponse: "Write Rsp"
        case .writeCommand: "Write Cmd"
        case .prepareWriteRequest: "Prepare Write Req"
        case .prepareWriteResponse: "Prepare Write Rsp"
        case .executeWriteRequest: "Execute Write Req"
        case .executeWriteResponse: "Execute Write Rsp"
        case .notification: "Handle Value Ntf"
        case .indication: "Handle Value Ind"
        case .confirmation: "Handle Value Cfm"
        }
    }

    private static func width(_ uuid: BluetoothUUID?) -> Int {
        guard let uuid else { return 2 }
        return uuid.uuid16 != nil ? 2 : 16
    }
}
