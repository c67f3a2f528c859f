import BleuCore
import Foundation
import Synchronization

/// A manager's line to a hub: the connection and the manager's number there. The managers of
/// a bus connected to a hub send each call through it (see ``HubClient``).
struct RemoteManager: Sendable {
    let client: HubClient
    let number: UInt32

    /// Starts a call that completes with the hub's reply; `id` is the operation's number.
    func begin(_ request: HubRequest, id: OperationID?, completion: @escaping Completion<HubValue>) {
        client.begin(request, id: id, completion: completion)
    }

    /// Starts a call whose reply nobody waits for: its effect is ordered before every later
    /// call. (Unlike ``HubClient/post(_:)``, the hub answers it; the answer is let go.)
    func start(_ request: HubRequest) {
        client.begin(request) { _ in }
    }
}

extension HubValue {
    /// The value a call's reply must carry, or the error a local bus would report for an
    /// outcome of the wrong kind.
    func expect<T>(_ extract: (HubValue) -> T?, for operation: BleuError.Operation) throws(BleuError) -> T {
        guard let value = extract(self) else { throw .invalidState(.unexpectedOutcome(operation)) }
        return value
    }

    var bool: Bool? { if case .bool(let value) = self { value } else { nil } }
    var int: Int? { if case .int(let value) = self { value } else { nil } }
    var optionalInt: Int?? { if case .optionalInt(let value) = self { .some(value) } else { nil } }
    var data: Data? { if case .data(let value) = self { value } else { nil } }
    var state: ManagerState? { if case .state(let value) = self { value } else { nil } }
    var security: SecurityLevel?? { if case .security(let value) = self { .some(value) } else { nil } }
    var services: [RemoteService]? { if case .services(let value) = self { value } else { nil } }
    var characteristics: [RemoteCharacteristic]? { if case .characteristics(let value) = self { value } else { nil } }
    var descriptors: [RemoteDescriptor]? { if case .descriptors(let value) = self { value } else { nil } }
    var peripherals: [KnownPeripheral]? { if case .peripherals(let value) = self { value } else { nil } }
    var published: PublishedService? { if case .published(let value) = self { value } else { nil } }
    var psm: UInt16? { if case .psm(let value) = self { value } else { nil } }
    var centrals: [UUID]? { if case .centrals(let value) = self { value } else { nil } }
    var channel: HubChannel? { if case .channel(let value) = self { value } else { nil } }
    var trace: [LinkTraceEvent]? { if case .trace(let value) = self { value } else { nil } }
}

extension HubElement {
    var data: Data? { if case .data(let value) = self { value } else { nil } }
    var advertisement: Advertisement? { if case .advertisement(let value) = self { value } else { nil } }
    var centralEvent: CentralEvent? { if case .central(let value) = self { value } else { nil } }
}

/// One end of an L2CAP channel that a hub holds for this client.
final class RemoteL2CAPChannel: L2CAPChannel {
    let psm: UInt16
    let peer: UUID
    let incoming: AsyncThrowingStream<Data, any Error>
    private let client: HubClient
    private let number: UInt32
    /// Lets the hub's end go once this end and its input stream are both gone.
    let handle: RemoteChannelHandle

    init(client: HubClient, channel: HubChannel) {
        self.client = client
        number = channel.number
        psm = channel.psm
        peer = channel.peer
        let handle = RemoteChannelHandle(client: client, number: channel.number)
        self.handle = handle
        incoming = AsyncThrowingStream(unfolding: { [number = channel.number] in
            withExtendedLifetime(handle) {}
            guard case .element(.data(let data)) = try await client.call(.channel(number, .next)) else { return nil }
            return data
        })
    }

    func send(_ data: Data) async throws {
        _ = try await client.call(.channel(number, .send(data)))
    }

    func close() async {
        client.begin(.channel(number, .close)) { _ in }
    }
}

/// Counts the times the hub sent a channel to this client; when the client's end and its
/// input are gone, tells the hub it may let the channel go.
final class RemoteChannelHandle: Sendable {
    private let client: HubClient
    private let number: UInt32
    private let crossings = Atomic<UInt32>(0)

    init(client: HubClient, number: UInt32) {
        self.client = client
        self.number = number
    }

    /// The channel crossed once more.
    func crossed() {
        crossings.wrappingAdd(1, ordering: .relaxed)
    }

    deinit {
        client.post(.channel(number, .release(crossings: crossings.load(ordering: .relaxed))))
    }
}
