import BleuCore

/// A link to an HCI controller that moves whole H4 packets: TCP to a virtual controller, a
/// serial port, a Linux HCI user-channel socket, or memory (tests).
///
/// A transport delivers packets in the order they arrive and sends them in the order
/// ``send(_:)`` is called. ``incoming`` ends when the link closes, with an error when it failed.
public protocol HCITransport: AnyObject, Sendable {
    /// The packets the controller sends (events and ACL data). One consumer: the host.
    var incoming: AsyncThrowingStream<H4Packet, any Error> { get }

    /// Sends one packet. Throws ``HCITransportError`` when the link is closed or failed.
    func send(_ packet: H4Packet) async throws

    /// Sends packets in order, as one write where the link allows (the default sends them one
    /// by one). Throws ``HCITransportError`` when the link is closed or failed.
    func send(contentsOf packets: [H4Packet]) async throws

    /// Closes the link; ``incoming`` ends. Idempotent.
    func close() async
}

extension HCITransport {
    public func send(contentsOf packets: [H4Packet]) async throws {
        for packet in packets { try await send(packet) }
    }
}

/// Why a transport could not move a packet.
public enum HCITransportError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The transport was closed.
    case closed
    /// The peer did not read fast enough and the transport's bounded buffer filled up.
    case bufferOverflow(limit: Int)
    /// The byte stream broke H4 framing; the link must be reopened.
    case framing(PacketDecodingError)
    /// Opening or using the underlying device or socket failed.
    case io(TransportFailure)
    /// The serial port cannot run at this baud rate; `supported` lists the rates it can.
    case unsupportedBaudRate(Int, supported: [Int])
    /// The endpoint's kind of transport does not exist on this platform (the HCI user channel
    /// is Linux's).
    case unavailableOnPlatform(HCIEndpoint)

    /// `error` as a transport error: itself when it is one, else an I/O failure with its
    /// description (a transport's stream may end with any error).
    init(_ error: any Error) {
        self = error as? HCITransportError ?? .io(TransportFailure(.read, target: "the transport", message: "\(error)"))
    }

    public var description: String {
        switch self {
        case .closed: "HCI transport is closed; open a new one to talk to the controller"
        case .bufferOverflow(let limit):
            "HCI transport buffer of \(limit) packets overflowed; the host is not reading fast enough"
        case .framing(let error): "HCI transport lost H4 framing (\(error)); reopen the transport"
        case .io(let failure): "HCI transport I/O failed: \(failure)"
        case .unsupportedBaudRate(let rate, let supported): "unsupported baud rate \(rate); use one of \(supported)"
        case .unavailableOnPlatform(let endpoint): "\(endpoint): this kind of transport exists on Linux only"
        }
    }
}
