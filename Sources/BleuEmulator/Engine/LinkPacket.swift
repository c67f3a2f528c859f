import BleuATT
import BleuCore
import Foundation

/// What travels over a connection: an L2CAP PDU (ATT, SMP, signaling, a K-frame of a
/// connection-oriented channel) or a Link Layer control PDU.
struct LinkPacket: Sendable {
    enum Payload: Sendable {
        case att(ATTPDU)
        case smp(SMPMessage)
        case signaling(ChannelSignal)
        /// A K-frame of `length` bytes on a channel; the last one of an SDU carries the SDU.
        case kframe(channel: ChannelID, length: Int, sdu: Data?)
        /// An L2CAP PDU of an external device's host: its channel and information payload, and
        /// for the sender's controller the receipt that reports it left the air.
        case l2cap(channel: UInt16, payload: [UInt8], receipt: UInt64?)
        /// LL_TERMINATE_IND with the HCI reason code.
        case terminate(UInt8)
        /// One PDU of the LL encryption start procedure.
        case encryption(EncryptionStep)
    }

    var direction: RadioSchedule.Direction
    var payload: Payload

    /// The bytes the Link Layer carries: the L2CAP PDU with its 4-byte basic header, or the
    /// LL control PDU.
    var linkLayerLength: Int {
        switch payload {
        case .att(let pdu): 4 + pdu.encodedLength
        case .smp(let message): 4 + message.length
        case .signaling(let signal): 4 + signal.length
        case .kframe(_, let length, _): 4 + length
        case .l2cap(_, let payload, _): 4 + payload.count
        case .terminate: 2
        case .encryption(let step): step.length
        }
    }

    /// Whether the packet goes through the L2CAP layer (and may be fragmented).
    var isL2CAP: Bool {
        switch payload {
        case .terminate, .encryption: false
        default: true
        }
    }
}

/// The LL encryption start procedure (Core Spec Vol 6 Part B §5.1.3), PDU by PDU.
enum EncryptionStep: Int, Sendable, CaseIterable {
    case encryptionRequest, encryptionResponse, startRequest, startResponse

    var length: Int {
        switch self {
        case .encryptionRequest: 23
        case .encryptionResponse: 13
        case .startRequest, .startResponse: 1
        }
    }

    var opcode: UInt8 {
        switch self {
        case .encryptionRequest: 0x03
        case .encryptionResponse: 0x04
        case .startRequest: 0x05
        case .startResponse: 0x06
        }
    }

    var direction: RadioSchedule.Direction {
        switch self {
        case .encryptionRequest, .startResponse: .centralToPeripheral
        case .encryptionResponse, .startRequest: .peripheralToCentral
        }
    }
}

/// One Security Manager PDU of a pairing (Core Spec Vol 3 Part H §3.5–3.6).
struct SMPMessage: Sendable, Hashable {
    enum Code: UInt8, Sendable {
        case pairingRequest = 0x01, pairingResponse = 0x02, pairingConfirm = 0x03, pairingRandom = 0x04
        case pairingFailed = 0x05, identityInformation = 0x08, identityAddressInformation = 0x09
        case publicKey = 0x0C, dhKeyCheck = 0x0D
    }

    var code: Code
    var direction: RadioSchedule.Direction
    /// The SMP reason of a Pairing Failed PDU.
    var reason: UInt8 = 0

    var length: Int {
        switch code {
        case .pairingRequest, .pairingResponse: 7
        case .pairingConfirm, .pairingRandom, .dhKeyCheck, .identityInformation: 17
        case .pairingFailed: 2
        case .identityAddressInformation: 8
        case .publicKey: 65
        }
    }

    var name: String {
        switch code {
        case .pairingRequest: "Pairing Request"
        case .pairingResponse: "Pairing Response"
        case .pairingConfirm: "Pairing Confirm"
        case .pairingRandom: "Pairing Random"
        case .pairingFailed: "Pairing Failed"
        case .identityInformation: "Identity Information"
        case .identityAddressInformation: "Identity Address Information"
        case .publicKey: "Pairing Public Key"
        case .dhKeyCheck: "Pairing DHKey Check"
        }
    }
}

/// An L2CAP LE signaling PDU for credit-based channels (Core Spec Vol 3 Part A §4).
enum ChannelSignal: Sendable, Hashable {
    /// L2CAP_LE_CREDIT_BASED_CONNECTION_REQ.
    case connectionRequest(identifier: UInt8, psm: UInt16, channel: ChannelID, mtu: Int, mps: Int, credits: Int)
    /// L2CAP_LE_CREDIT_BASED_CONNECTION_RSP; `result` 0 is success.
    case connectionResponse(identifier: UInt8, channel: ChannelID, mtu: Int, mps: Int, credits: Int, result: UInt16)
    /// L2CAP_FLOW_CONTROL_CREDIT_IND.
    case credits(channel: ChannelID, count: Int)
    /// L2CAP_DISCONNECTION_REQ.
    case disconnectionRequest(channel: ChannelID)

    var code: UInt8 {
        switch self {
        case .connectionRequest: 0x14
        case .connectionResponse: 0x15
        case .credits: 0x16
        case .disconnectionRequest: 0x06
        }
    }

    /// The signaling PDU's length: 4-byte command header plus the command's data.
    var length: Int {
        switch self {
        case .connectionRequest, .connectionResponse: 4 + 10
        case .credits, .disconnectionRequest: 4 + 4
        }
    }

    var name: String {
        switch self {
        case .connectionRequest: "LE Credit Based Connection Req"
        case .connectionResponse: "LE Credit Based Connection Rsp"
        case .credits: "Flow Control Credit Ind"
        case .disconnectionRequest: "Disconnection Req"
        }
    }
}
