import BleuCore

/// The LE signalling channel's answers to a peer (Core Spec Vol 3 Part A §4), as a pure function.
///
/// Credit-based channels are not offered yet, so a connection request is refused with
/// "SPSM not supported"; a central accepts a peripheral's connection parameter update request
/// when the values are valid (and the caller then issues LE Connection Update); a peripheral
/// rejects one (only a central may ask it of a peripheral); unknown codes and malformed
/// commands get a Command Reject; responses are not answered.
public enum LESignalingChannel {
    /// What to do about one received command.
    public struct Reply: Sendable, Hashable {
        /// The signalling command to send back, if any.
        public var response: L2CAPSignal?
        /// For an accepted parameter update: the parameters to apply with LE Connection Update.
        public var connectionUpdate: LEConnectionParameters?
    }

    /// Reply to the B-frame payload `bytes` received on CID 0x0005; `isCentral` is our role.
    public static func reply(to bytes: [UInt8], isCentral: Bool) -> Reply {
        let signal: L2CAPSignal
        do {
            signal = try L2CAPSignal(decoding: bytes)
        } catch {
            let identifier = bytes.count > 1 ? bytes[1] : 0
            guard identifier != 0 else { return Reply() }
            return Reply(response: L2CAPSignal(identifier: identifier, .commandReject(reason: 0x0000, data: [])))
        }
        guard signal.identifier != 0 else { return Reply() }  // identifier 0 is invalid: ignore (§4)
        switch signal.command {
        case let .connectionParameterUpdateRequest(min, max, latency, timeout):
            // §4.20: 7.5 ms…4 s intervals, min ≤ max, latency < 500, timeout 100 ms…32 s and long enough.
            let valid = (6...3200).contains(min) && (6...3200).contains(max) && min <= max && latency < 500
                && (10...3200).contains(timeout) && Int(timeout) * 4 > (1 + Int(latency)) * Int(max)
            guard isCentral, valid else {
                return Reply(response: L2CAPSignal(identifier: signal.identifier, .connectionParameterUpdateResponse(result: 1)))
            }
            return Reply(response: L2CAPSignal(identifier: signal.identifier, .connectionParameterUpdateResponse(result: 0)),
                         connectionUpdate: LEConnectionParameters(
                            intervalMin: HCITime.connectionInterval.duration(min), intervalMax: HCITime.connectionInterval.duration(max),
                            maxLatency: latency, supervisionTimeout: HCITime.supervisionTimeout.duration(timeout)))
        case .leCreditBasedConnectionRequest:
            return Reply(response: L2CAPSignal(identifier: signal.identifier, .leCreditBasedConnectionResponse(
                destinationCID: 0, mtu: 0, mps: 0, initialCredits: 0, result: 0x0002)))
        case let .disconnectionRequest(destinationCID, sourceCID):
            // No dynamic channel is open yet, so the CID cannot be ours: Invalid CID in request.
            var data: [UInt8] = []
            data.appendLE(destinationCID)
            data.appendLE(sourceCID)
            return Reply(response: L2CAPSignal(identifier: signal.identifier, .commandReject(reason: 0x0002, data: data)))
        case .unknown:
            return Reply(response: L2CAPSignal(identifier: signal.identifier, .commandReject(reason: 0x0000, data: [])))
        case .commandReject, .disconnectionResponse, .connectionParameterUpdateResponse, .leCreditBasedConnectionResponse,
             .flowControlCredit:
            return Reply()
        }
    }
}
