import BleuCore
import Foundation

/// An LE credit-based channel of an ``HCIRadio``: BleuCore's ``/BleuCore/L2CAPChannel``. SDUs
/// go out as K-frames, each on one of the peer's credits (``send(_:)`` waits for credits).
/// The peer gets a credit back at once for a K-frame that does not end an SDU, and for the one
/// that does once ``incoming``'s consumer took the SDU: so at most
/// ``HCIRadioConfiguration/l2capCredits`` complete SDUs (each within
/// ``HCIRadioConfiguration/l2capMTU``) ever wait for the application.
public final class HCIL2CAPChannel: L2CAPChannel {
    public let psm: UInt16
    public let peer: UUID
    public let incoming: AsyncThrowingStream<Data, any Error>
    let key: ChannelKey
    private let radio: HCIRadio

    init(psm: UInt16, peer: UUID, key: ChannelKey, radio: HCIRadio) {
        self.psm = psm
        self.peer = peer
        self.key = key
        self.radio = radio
        incoming = AsyncThrowingStream { [radio] in try await radio.nextSDU(key) }
    }

    public func send(_ data: Data) async throws {
        try await radio.channelSend(key, data)
    }

    public func close() async {
        await radio.channelClose(key)
    }
}

/// Identifies a channel: the link's connection handle and our channel identifier on it.
struct ChannelKey: Hashable, Sendable {
    var handle: ConnectionHandle
    var cid: UInt16
}

/// A signalling request waiting for its response.
struct PendingSignal: Hashable, Sendable {
    var handle: ConnectionHandle
    var identifier: UInt8
}

/// A channel we asked the peer to open.
struct PendingChannelOpen {
    let psm: UInt16
    let localCID: UInt16
    let continuation: CheckedContinuation<HCIL2CAPChannel, any Error>
}
