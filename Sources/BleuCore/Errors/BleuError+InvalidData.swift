import Foundation

extension BleuError {
    /// What was malformed in data received or given (``BleuError/invalidData(_:)``).
    public enum InvalidData: Sendable, Hashable, Codable, CustomStringConvertible {
        /// Advertising data to send does not encode (too long, a field out of range).
        case advertisingData(AdvertisingDataError)
        /// A scan response to send does not encode.
        case scanResponse(AdvertisingDataError)
        /// An advertisement received from this peer could not be read.
        case advertisement(from: UUID)
        /// The peer answered an ATT request with opcode `request` by a PDU with opcode `response`,
        /// which is not that request's response.
        case unexpectedResponse(request: UInt8, response: UInt8)
        /// The peer's ATT PDU with this opcode is malformed (too short, wrong lengths).
        case malformedPDU(opcode: UInt8)
        /// The peer echoed a prepared write to `handle` at `offset` with other bytes than were
        /// sent (Core Spec Vol 3 Part G §4.9.4); the long write was cancelled.
        case preparedWriteMismatch(handle: UInt16, offset: Int)
        /// The peer accepted an L2CAP channel with parameters the specification forbids.
        case channelParameters(cid: UInt16, mtu: UInt16, mps: UInt16)
        /// The peer broke the LE credit-based flow control rules on an open channel, which
        /// closed it (Core Spec Vol 3 Part A §10.2).
        case channelProtocolViolation(ChannelViolation)
        /// The controller returned fewer bytes than the HCI command with this opcode defines.
        case commandResult(opcode: UInt16, length: Int)
        /// A descriptor's value has a type that cannot be sent as bytes.
        case descriptorValue(BluetoothUUID)
        /// The platform's Bluetooth stack reported the data as invalid.
        case platform(PlatformError)

        public var description: String {
            switch self {
            case .advertisingData(let error): "advertising data: \(error)"
            case .scanResponse(let error): "scan response: \(error)"
            case .advertisement(let peer): "the advertisement of \(peer) could not be read"
            case .unexpectedResponse(let request, let response):
                "the peer answered the ATT request 0x\(hex2(request)) with the PDU 0x\(hex2(response))"
            case .malformedPDU(let opcode): "the peer's ATT PDU 0x\(hex2(opcode)) is malformed"
            case .preparedWriteMismatch(let handle, let offset):
                "the peer echoed the prepared write at offset \(offset) of handle 0x\(hex4(handle)) differently; the long write was cancelled"
            case .channelParameters(let cid, let mtu, let mps):
                "the peer accepted the L2CAP channel with invalid parameters (CID 0x\(hex4(cid)), MTU \(mtu), MPS \(mps))"
            case .channelProtocolViolation(let violation): "the L2CAP channel was closed: \(violation)"
            case .commandResult(let opcode, let length):
                "the controller returned \(length) bytes for the HCI command 0x\(hex4(opcode))"
            case .descriptorValue(let uuid): "descriptor \(uuid) has a value that is not bytes"
            case .platform(let error): "\(error)"
            }
        }
    }

    /// How a peer broke an LE credit-based channel's rules, after which the channel must be
    /// disconnected (Core Spec Vol 3 Part A §10.2).
    public enum ChannelViolation: Error, Sendable, Hashable, Codable, CustomStringConvertible {
        /// The peer sent a K-frame without a credit.
        case noCredit
        /// The peer sent a K-frame longer than our MPS.
        case frameOverMPS(length: Int, mps: Int)
        /// The peer announced an SDU longer than our MTU.
        case sduOverMTU(length: Int, mtu: Int)
        /// The peer sent more bytes than its SDU announced.
        case sduOverrun(announced: Int)
        /// The peer gave credits past 65535.
        case creditOverflow
        /// The peer's first K-frame of an SDU has no SDU length.
        case truncatedFirstFrame

        public var description: String {
            switch self {
            case .noCredit: "the peer sent a K-frame without a credit"
            case let .frameOverMPS(length, mps): "the peer sent a \(length)-byte K-frame over our MPS of \(mps)"
            case let .sduOverMTU(length, mtu): "the peer announced a \(length)-byte SDU over our MTU of \(mtu)"
            case .sduOverrun(let announced): "the peer sent more than the \(announced) bytes its SDU announced"
            case .creditOverflow: "the peer gave credits past 65535"
            case .truncatedFirstFrame: "the peer's first K-frame of an SDU has no SDU length"
            }
        }
    }
}
