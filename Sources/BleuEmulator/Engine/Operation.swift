import BleuATT
import BleuCore
import DequeModule
import Foundation

typealias OperationID = UInt64

/// What an operation a manager waits on completes with.
enum OperationResult: Sendable {
    case done
    case data(Data)
    case services([RemoteService])
    case characteristics([RemoteCharacteristic])
    case descriptors([RemoteDescriptor])
    case stream(Int)
    case channel(Int)
}
