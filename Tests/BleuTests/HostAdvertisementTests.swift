@testable import Bleu
import BleuCore
import Foundation
import Testing

@Suite("The advertisement of a peripheral hosting actors")
struct HostAdvertisementTests {
    static let id = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!

    @Test("the marker's bytes: the host service's first 4 bytes, version 1, flags with the count, big-endian FNV-1a hashes (computed independently)")
    func markerBytes() throws {
        #expect(HostAdvertisement.hash(Self.id) == 0xC6F0)
        let marker = HostAdvertisement(services: 1, listedServices: 1, actors: [Self.id])
        #expect(marker.uuid.bytes == [0x32, 0x48, 0x78, 0xAC, 0x01, 0x01, 0xC6, 0xF0, 0, 0, 0, 0, 0, 0, 0, 0])
        #expect(ActorServiceLayout.hostService.uuidString.lowercased().hasPrefix("324878ac"))
        #expect(HostAdvertisement(uuid: marker.uuid) == marker)
        // Another UUID is not a marker, nor is a marker of another version.
        #expect(HostAdvertisement(uuid: ActorServiceLayout.hostService) == nil)
        var bytes = marker.uuid.bytes
        bytes[4] = 2
        #expect(HostAdvertisement(uuid: BluetoothUUID(uuid: UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5],
            bytes[6], bytes[7], bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15])))) == nil)
    }

    @Test("one actor type: the advertisement lists its service and the whole name; the scan response the marker, every service listed")
    func oneService() throws {
        let service = BluetoothUUID(uuid: UUID(uuidString: "00000000-0000-4000-8000-0000000000AA")!)
        let (main, response) = ActorServiceLayout.advertisement(for: [service], actors: [Self.id], localName: "Thermo")
        #expect(try main.encoded().count <= AdvertisingData.legacyMaximumLength)
        #expect(try response.encoded().count <= AdvertisingData.legacyMaximumLength)
        #expect(main.serviceUUIDs == [service])
        #expect(main.localName == "Thermo")
        let marker = try #require(HostAdvertisement(main.merged(with: response)))
        #expect(!marker.unlistedServices && !marker.unlistedActors)
        #expect(marker.mayHost(Self.id))
        let stranger = UUID(uuidString: "00000000-0000-0000-0000-000000000001")!
        try #require(HostAdvertisement.hash(stranger) != HostAdvertisement.hash(Self.id))
        #expect(!marker.mayHost(stranger))
    }

    @Test("many types and actors: the marker says services and actors go unlisted; a long name is shortened to fit")
    func crowded() throws {
        let services = (0..<3).map { BluetoothUUID(uuid: UUID(uuidString: "00000000-0000-4000-8000-00000000000\($0)")!) }
        let actors = (0..<7).map { _ in UUID() }
        let (main, response) = ActorServiceLayout.advertisement(for: services, actors: actors, localName: "Kitchen thermometer")
        #expect(try main.encoded().count <= AdvertisingData.legacyMaximumLength)
        #expect(try response.encoded().count <= AdvertisingData.legacyMaximumLength)
        #expect(main.serviceUUIDs == [services[0]])
        let name = try #require(main.localName)
        #expect(!name.isEmpty && "Kitchen thermometer".hasPrefix(name) && name.count < 19)
        let marker = try #require(HostAdvertisement(response))
        #expect(marker.unlistedServices && marker.unlistedActors)
        #expect(marker.actorHashes == actors.prefix(5).map(HostAdvertisement.hash))
        // Unlisted actors may be anywhere behind such a marker.
        #expect(marker.mayHost(UUID()))
    }
}

