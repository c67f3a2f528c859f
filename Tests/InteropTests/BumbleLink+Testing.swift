import BumbleSupport
import Testing

extension BumbleLink {
    /// ``BumbleLink/skipReasonText`` as the comment of a skipped suite.
    static let skipReason = Comment(rawValue: skipReasonText)
}
