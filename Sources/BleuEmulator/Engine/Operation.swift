import BleuATT
import BleuCore
import DequeModule
import Foundation

/// Numbers an operation a caller waits on.
package typealias OperationID = UInt64

/// Receives the result of an operation begun without waiting (the delegate-style API's path):
/// once, inside the engine and in the engine's order, so it must not block or call back into
/// the bus synchronously.
package typealias Completion<T> = @Sendable (Result<T, any Error>) -> Void

/// Receives an operation's result, once.
typealias OperationCompletion = @Sendable (Result<OperationResult, any Error>) -> Void

/// What an operation a manager waits on completes with.
enum OperationResult: Sendable {
    case done
    case data(Data)
    case services([RemoteService])
    case characteristics([RemoteCharacteristic])
    case descriptors([RemoteDescriptor])
    case stream(StreamID)
    /// An L2CAP channel the central opened, with the stream of its input.
    case channel(ChannelID, input: StreamID)
}
