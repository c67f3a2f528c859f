import BleuCore
import BleuEmulator
import Foundation
import Testing
@testable import BleuGATT

/// The prepared writes one Execute Write commits reach a ``GATTServer`` as one batch, which
/// ATT asks the server to apply atomically (Core Spec Vol 3 Part F §3.4.6.3).
@Suite("Typed GATT server: Execute Write batches")
struct WriteBatchTests {
    /// A second service, hosted by a second server on the same radio.
    static let otherService: BluetoothUUID = "4B1D0100-0C1E-4E7A-9A51-6B7C8D9EA0B1"
    static let other = Characteristic<UInt8>("4B1D0101-0C1E-4E7A-9A51-6B7C8D9EA0B1", name: "Other", codec: .percentage,
                                             properties: [.read, .write])

    @Test("a batch spanning two servers' services is applied by neither and answered 0x06 whichever part comes first; each server's own batches are atomic")
    func spanningBatches() async throws {
        let radio = ScriptedPeripheral(bus: EmulatorBus(configuration: .instant))
        let first = GATTServer(peripheral: radio), second = GATTServer(peripheral: radio)
        let percents = Received<UInt8>(), setpoints = Received<UInt16>(), others = Received<UInt8>()
        let control = try await first.host(TestControlService.self) { handlers in
            handlers.onWrite(TestControlService.percent) { value, _ in percents.append(value) }
            handlers.onWrite(TestControlService.setpoint) { value, _ in setpoints.append(value) }
        }
        let otherHosted = try await second.host(ServiceDeclaration(Self.otherService) { Self.other }) { handlers in
            handlers.onWrite(Self.other) { value, _ in others.append(value) }
        }
        // A service on the radio that no server hosts (another component's, which stays silent here).
        let unserved = try await radio.inner.add(ServiceDefinition(uuid: "4B1D0200-0C1E-4E7A-9A51-6B7C8D9EA0B1", characteristics: [
            CharacteristicDefinition(uuid: "4B1D0201-0C1E-4E7A-9A51-6B7C8D9EA0B1", properties: [.write], permissions: .writeable),
        ]))

        let central = UUID()
        let percent = try control.published(TestControlService.percent)
        let setpoint = try control.published(TestControlService.setpoint)
        let otherTarget = try otherHosted.published(Self.other)
        func write(_ target: PublishedCharacteristic, _ value: Data) -> WriteRequest {
            WriteRequest(central: central, characteristic: target, offset: 0, value: value)
        }
        func batch(_ id: UInt64, _ requests: WriteRequest...) {
            radio.inject(.writeRequests(WriteRequests(id: ATTRequestID(id), central: central, requests: requests, needsResponse: true)))
        }

        batch(1, write(percent, Data([10])), write(otherTarget, Data([11])))            // first's part first
        batch(2, write(otherTarget, Data([20])), write(percent, Data([21])))            // second's part first
        batch(3, write(unserved.characteristics[0], Data([30])))                       // no server's
        batch(4, write(percent, Data([40])), write(setpoint, Data([0x02, 0x01])))       // first's alone
        batch(5, write(percent, Data([50])), write(setpoint, Data([1, 2, 3])))          // first's, one value malformed
        batch(6, write(otherTarget, Data([60])))                                        // second's alone

        // Each server handles its events in order, so once the first answered batches 4 and 5
        // and the second batch 6, both are done with batches 1–3 (whatever they did with them).
        await radio.writeAnswers.wait { answers in [4, 5, 6].allSatisfy { id in answers.contains { $0.request.rawValue == id } } }
        let answers = Dictionary(grouping: radio.writeAnswers.values, by: \.request.rawValue)
        #expect(answers.mapValues(\.count) == [1: 2, 2: 2, 4: 1, 5: 1, 6: 1], "both servers answer a shared batch; no one answers batch 3")
        for id: UInt64 in [1, 2] {
            for answer in answers[id] ?? [] {
                #expect(answer.result.failure == .requestNotSupported, "batch \(id)")
            }
        }
        #expect(answers[4]?.first?.result.failure == nil)
        #expect(answers[5]?.first?.result.failure == .invalidAttributeValueLength)
        #expect(answers[6]?.first?.result.failure == nil)
        #expect(percents.values == [40], "batches 1, 2 and 5 reached no handler")
        #expect(setpoints.values == [0x0102])
        #expect(others.values == [60])
        withExtendedLifetime((first, second)) {}
    }
}

extension Result {
    /// The error of a failure, `nil` for a success.
    var failure: Failure? {
        if case .failure(let error) = self { error } else { nil }
    }
}
