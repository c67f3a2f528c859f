import BleuCore
import Foundation

/// The server side of GATT discovery (Core Spec Vol 3 Part G §4.4–4.7): each answer holds as
/// many entries as fit in one PDU of the link's ATT MTU, all with UUIDs of one width, or
/// Attribute Not Found (0x0A) when the range holds none.
extension AttributeDatabase {
    /// Answers a Read By Group Type Request for primary services.
    func readByGroupType(start: UInt16, end: UInt16, mtu: Int) -> ATTPDU {
        let opcode: UInt8 = 0x10
        if let error = rangeError(opcode: opcode, start: start, end: end) { return error }
        let found = services.lazy.filter { $0.published.isPrimary && $0.published.handle >= start && $0.published.handle <= end }
            .map { ATTPDU.ServiceEntry(handle: $0.published.handle, endHandle: $0.published.endHandle, uuid: $0.published.uuid) }
        let entries = pack(Array(found), mtu: mtu, entrySize: { 4 + width($0.uuid) }, uuid: \.uuid)
        return entries.isEmpty ? .error(request: opcode, handle: start, .attributeNotFound) : .readByGroupTypeResponse(entries)
    }

    /// Answers a Read By Type Request for characteristic declarations (0x2803) or include
    /// declarations (0x2802).
    func readByType(start: UInt16, end: UInt16, type: BluetoothUUID, mtu: Int) -> ATTPDU {
        let opcode: UInt8 = 0x08
        if let error = rangeError(opcode: opcode, start: start, end: end) { return error }
        switch type {
        case BluetoothUUID(0x2803):
            let found = services.flatMap(\.characteristics)
                .filter { $0.declarationHandle >= start && $0.declarationHandle <= end }
                .map { ATTPDU.CharacteristicEntry(handle: $0.declarationHandle, properties: $0.published.properties,
                                                  valueHandle: $0.published.valueHandle, uuid: $0.published.uuid) }
            let entries = pack(found, mtu: mtu, entrySize: { 5 + width($0.uuid) }, uuid: \.uuid)
            if !entries.isEmpty { return .characteristicDeclarations(entries) }
        case BluetoothUUID(0x2802):
            let found = services.flatMap(\.includes).filter { $0.handle >= start && $0.handle <= end }
            let entries = pack(found, mtu: mtu, entrySize: { 6 + (width($0.service.uuid) == 2 ? 2 : 0) }, uuid: \.service.uuid)
            if !entries.isEmpty { return .includeDeclarations(entries) }
        default:
            break
        }
        return .error(request: opcode, handle: start, .attributeNotFound)
    }

    /// Answers a Find Information Request: the handle and type of every attribute in range.
    func findInformation(start: UInt16, end: UInt16, mtu: Int) -> ATTPDU {
        let opcode: UInt8 = 0x04
        if let error = rangeError(opcode: opcode, start: start, end: end) { return error }
        let first = handles.partitioningIndex { $0 >= start }
        var found: [ATTPDU.DescriptorEntry] = []
        var position = first
        let limit = (mtu - 2) / 2  // no more entries than the smallest ones could fill
        while position < handles.count, handles[position] <= end, found.count < limit {
            let handle = handles[position]
            found.append(ATTPDU.DescriptorEntry(handle: handle, uuid: attribute(at: handle)!.type))
            position += 1
        }
        let entries = pack(found, mtu: mtu, entrySize: { 2 + width($0.uuid) }, uuid: \.uuid)
        return entries.isEmpty ? .error(request: opcode, handle: start, .attributeNotFound) : .findInformationResponse(entries)
    }

    private func rangeError(opcode: UInt8, start: UInt16, end: UInt16) -> ATTPDU? {
        start == 0 || start > end ? .error(request: opcode, handle: start, .invalidHandle) : nil
    }

    /// The leading entries that share the first entry's UUID width and fit in one PDU after the
    /// opcode and length (or format) bytes.
    private func pack<Entry>(_ entries: [Entry], mtu: Int, entrySize: (Entry) -> Int,
                             uuid: KeyPath<Entry, BluetoothUUID>) -> [Entry] {
        guard let first = entries.first else { return [] }
        let size = entrySize(first)
        let firstWidth = width(first[keyPath: uuid])
        let capacity = max(1, (mtu - 2) / size)
        return Array(entries.prefix { width($0[keyPath: uuid]) == firstWidth }.prefix(capacity))
    }

    private func width(_ uuid: BluetoothUUID) -> Int {
        uuid.uuid16 != nil ? 2 : 16
    }
}

extension Array {
    /// The first index whose element satisfies `predicate`, for an array partitioned by it
    /// (all elements failing it come first); binary search.
    func partitioningIndex(where predicate: (Element) -> Bool) -> Int {
        var low = 0
        var high = count
        while low < high {
            let mid = (low + high) / 2
            if predicate(self[mid]) { high = mid } else { low = mid + 1 }
        }
        return low
    }
}
