import BleuCore
import Foundation

/// Puts the writes of one batch together into whole values, one per characteristic, in the
/// order they first appear: a single write is the value; prepared writes of a long write are
/// laid at their offsets, each within or just past what came before (else
/// ``BleuCore/ATTError/invalidOffset``). Typed values are written whole, so a value starts empty.
enum WriteAssembly {
    static func values(of requests: [WriteRequest]) -> Result<[(handle: UInt16, value: Data)], ATTError> {
        var order: [UInt16] = []
        var values: [UInt16: Data] = [:]
        for request in requests {
            let handle = request.characteristic.valueHandle
            if values[handle] == nil { order.append(handle) }
            var value = values[handle] ?? Data()
            guard request.offset >= 0, request.offset <= value.count else { return .failure(.invalidOffset) }
            let end = min(value.count, request.offset + request.value.count)
            value.replaceSubrange(value.startIndex + request.offset ..< value.startIndex + end, with: request.value)
            values[handle] = value
        }
        return .success(order.map { ($0, values[$0] ?? Data()) })
    }
}
