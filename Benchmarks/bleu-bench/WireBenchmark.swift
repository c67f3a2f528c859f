import BleuCore
import BleuWire
import CZlib
import Foundation

/// `bleu-bench wire`: BleuWire's framing throughput and bytes on air, against memcpy and zlib's
/// CRC-32 measured in the same run.
struct WireBenchmark: BenchmarkSuite {
    let name = "wire"
    let summary = "fragment + CRC + reassemble throughput and framing overhead, both formats"

    private static let throughputMessageSize = 16 * 1024
    private static let mtus = [23, 185, 517]
    private static let overheadMTUs = [23, 185]
    private static let overheadSizes = [8, 64, 1024, 16384]

    func run(_ options: BenchmarkOptions, _ report: inout BenchmarkReport) async throws {
        let seconds = options.quick ? 0.02 : 0.25
        var generator = SystemRandomNumberGenerator()
        let message = (0..<Self.throughputMessageSize).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let megabytes = Double(message.count) / 1e6

        // Baselines: copying the bytes once, and zlib's CRC-32 of them.
        var destination = [UInt8](repeating: 0, count: message.count)
        let memcpyRate = bestRate(seconds: seconds) {
            destination.withUnsafeMutableBytes { target in
                message.withUnsafeBytes { source in _ = memcpy(target.baseAddress!, source.baseAddress!, source.count) }
            }
            blackHole(destination)
            return 1
        } * megabytes
        report.record("memcpy.mbps", memcpyRate, unit: "MB/s", "memcpy of the same bytes (baseline)")
        let zlib = {
            blackHole(message.withUnsafeBufferPointer { crc32(0, $0.baseAddress, UInt32($0.count)) })
            return 1
        }
        // zlib is measured again beside each pipeline (below); its best rate counts.
        var zlibRate = bestRate(seconds: seconds, zlib) * megabytes
        let ownRate = bestRate(seconds: seconds) {
            blackHole(CRC32.checksum(message))
            return 1
        } * megabytes
        report.record("bleuwire_crc32.mbps", ownRate, unit: "MB/s",
                      "BleuWire CRC32, \(CRC32.implementation) path (\(ratio(ownRate, zlibRate)) zlib)")
        // The portable Swift path (four streams of slicing-by-8), which runs where the processor
        // has no CRC instructions BleuWire uses.
        let portableRate = bestRate(seconds: seconds) {
            blackHole(message.withUnsafeBytes { CRC32.checksum($0, using: .portable) })
            return 1
        } * megabytes
        report.record("bleuwire_crc32_portable.mbps", portableRate, unit: "MB/s",
                      "BleuWire CRC32, portable Swift, 4 streams (\(ratio(portableRate, zlibRate)) zlib)")

        for format in WireFormat.allCases {
            for mtu in Self.mtus {
                let length = WireFormat.maximumFragmentLength(forATTMTU: mtu)
                guard length >= format.minimumFragmentLength else {
                    progress("\(format) cannot run at ATT MTU \(mtu) (it needs 28 or more): no figure")
                    continue
                }
                progress("\(format) at MTU \(mtu)")
                var fragmenter = Fragmenter(format: format)
                // The instant type the actor system's channels use.
                var reassembler = Reassembler<Int, ElapsedInstant>(format: format)
                let now = ElapsedInstant(offset: .zero)
                let (pipeline, beside) = try bestRates(seconds: seconds / 2, {
                    // The sender's path without a copy per fragment: one buffer of the bytes on
                    // air, its fragments written as slices of it.
                    var delivered = 0
                    let outgoing = try fragmenter.begin(message, maximumFragmentLength: length)
                    defer { fragmenter.finish(outgoing) }
                    for fragment in outgoing.slices {
                        if case .message(let bytes) = try reassembler.receive(fragment, from: 0, now: now) {
                            delivered = bytes.count
                        }
                    }
                    precondition(delivered == message.count, "the benchmark's message was not reassembled")
                    return 1
                }, zlib)
                let rate = pipeline * megabytes
                zlibRate = max(zlibRate, beside * megabytes)
                report.record("\(format).mtu\(mtu).mbps", rate, unit: "MB/s",
                              "\(format) fragment+CRC+reassemble, MTU \(mtu), 16 KiB (\(ratio(rate, memcpyRate)) memcpy)")
                // The figure, from rounds alternating with zlib's.
                report.record("\(format).mtu\(mtu).vs_zlib_crc32_ratio", pipeline / beside, unit: "x",
                              "\(format) at MTU \(mtu) / zlib crc32, alternating rounds")
            }
        }
        report.record("zlib_crc32.mbps", zlibRate, unit: "MB/s", "zlib crc32 (baseline, best of every round)")

        for format in WireFormat.allCases {
            for mtu in Self.overheadMTUs {
                let length = WireFormat.maximumFragmentLength(forATTMTU: mtu)
                guard length >= format.minimumFragmentLength else { continue }
                var fragmenter = Fragmenter(format: format)
                for size in Self.overheadSizes {
                    let outgoing = try fragmenter.begin([UInt8](repeating: 0, count: size), maximumFragmentLength: length)
                    fragmenter.finish(outgoing)
                    report.record("\(format).mtu\(mtu).overhead_bytes.\(size)", Double(outgoing.byteCount - size), unit: "bytes",
                                  "\(format) framing bytes, MTU \(mtu), \(size)-byte message (\(outgoing.count) fragments)")
                }
            }
        }
    }
}

/// "×0.123" — a figure relative to its baseline.
func ratio(_ value: Double, _ baseline: Double) -> String {
    "×" + String(format: value / baseline >= 10 ? "%.1f" : "%.3f", value / baseline)
}

/// Progress of a long step, on standard error.
func progress(_ text: String) {
    FileHandle.standardError.write(Data("  \(text)\n".utf8))
}
