/// How a central writes a characteristic value.
public enum WriteType: String, Sendable, Hashable, Codable, CaseIterable {
    /// ATT Write Request: the peripheral answers with a Write Response or an error, so the write
    /// completes at most once per two connection intervals.
    case withResponse
    /// ATT Write Command: no answer, no error, flow-controlled by the link. The value must fit
    /// in one PDU (ATT MTU − 3 bytes).
    case withoutResponse
}
