@testable import Bleu
import BleuCore
import BleuEmulator
import BleuWire
import Foundation

/// A central without an actor system: it finds an actor's service, writes raw requests to the
/// call characteristic and reads whatever the reply characteristic notifies — to send what a
/// well-behaved central never would.
final class RawCaller {
    let central: EmulatedCentralManager
    let peripheral: UUID
    let call: RemoteCharacteristic
    private var replies: AsyncThrowingStream<Data, any Error>.AsyncIterator
    private var fragmenter = Fragmenter(format: .compact)
    private var reassembler = Reassembler<Int, ContinuousClock.Instant>(format: .compact)

    private init(central: EmulatedCentralManager, peripheral: UUID, call: RemoteCharacteristic,
                 replies: AsyncThrowingStream<Data, any Error>) {
        self.central = central
        self.peripheral = peripheral
        self.call = call
        self.replies = replies.makeAsyncIterator()
    }

    /// Connects a new central on `bus` to the first peripheral advertising `service` and
    /// subscribes to the reply characteristic of that service.
    static func connect(on bus: EmulatorBus, service: BluetoothUUID) async throws -> RawCaller {
        let central = EmulatedCentralManager(bus: bus)
        var scan = try await central.scan(ScanOptions(services: [service, ActorServiceLayout.hostService])).makeAsyncIterator()
        guard let advertisement = try await scan.next() else { throw BleuError.peripheralNotFound(UUID()) }
        await central.stopScan()
        try await central.connect(advertisement.peripheral)
        guard let found = try await central.discoverServices([service], on: advertisement.peripheral).first else {
            throw BleuError.serviceNotFound(service)
        }
        let characteristics = try await central.discoverCharacteristics(nil, for: found)
        guard let call = characteristics.first(where: { $0.uuid == ActorServiceLayout.callCharacteristic }),
              let reply = characteristics.first(where: { $0.uuid == ActorServiceLayout.replyCharacteristic }) else {
            throw BleuError.characteristicNotFound(ActorServiceLayout.callCharacteristic)
        }
        let replies = try await central.subscribe(to: reply)
        return RawCaller(central: central, peripheral: advertisement.peripheral, call: call, replies: replies)
    }

    /// The fragments of `message` as this central would write them.
    func fragments(of message: [UInt8], length: Int? = nil) async throws -> [[UInt8]] {
        let maximum = try await central.maximumWriteValueLength(for: peripheral, type: .withoutResponse)
        return try fragmenter.fragments(of: message, maximumFragmentLength: length ?? maximum)
    }

    /// Writes one message, framed.
    func send(_ message: [UInt8]) async throws {
        for fragment in try await fragments(of: message) { try await write(fragment) }
    }

    /// Writes one fragment as it is (with response, so it has arrived when this returns).
    func write(_ fragment: [UInt8]) async throws {
        try await central.write(Data(fragment), to: call, type: .withResponse)
    }

    /// The next whole reply.
    func nextReply() async throws -> Reply {
        while let value = try await replies.next() {
            if case .message(let bytes) = try reassembler.receive(value, from: 0, now: .now) {
                return try Reply.decode(bytes)
            }
        }
        throw BleuError.disconnected(peripheral, .remoteUserTerminated)
    }

    /// The next reply that is not a stream element.
    func nextAnswer() async throws -> Reply {
        while true {
            let reply = try await nextReply()
            if case .streamElement = reply { continue }
            return reply
        }
    }
}

extension BLEActorSystem {
    /// The method definitions centrals interned on this (hosting) system so far: their mangled
    /// target names, for raw requests.
    var internedTargets: [String] {
        host?.state.withLock { state in state.sessions.values.flatMap { $0.methods.values.map(\.target) } } ?? []
    }

    /// The mangled target of the interned method whose name contains `name`.
    func target(named name: String) -> String? {
        internedTargets.first { $0.contains(name) }
    }
}

extension Reply {
    /// The error a reply carries, rebuilt as a caller with no registered types would.
    var error: (any Error)? {
        switch self {
        case .error(_, let payload), .streamError(_, let payload):
            ErrorEnvelope.rebuild(payload, decoder: CBORDecoder(), registry: RemoteTypeRegistry(), declared: nil)
        case .remoteError(_, let type, let message), .streamFailed(_, let type, let message): RemoteCallError(typeName: type, message: message)
        default: nil
        }
    }
}
