import BleuCore
import BleuEmulator
import Foundation

/// `bleu-bench link`: the emulator's link model against physics, and its own cost.
///
/// - Per PHY and LL data length, the goodput of bulk notifications (`link.<phy>_<ll>.*`) and
///   of bulk writes without response (`link.<phy>_<ll>.wwr.*`), measured in real time on
///   the realistic link, as a ratio to the DESIGN.md reference (`<phy>`: `1m`, `2m`,
///   `coded-s2`, `coded-s8`; the coded rows at 27 bytes, against the same formula).
/// - On `.instant`: write + notify echo round trips per second, against a plain two-task
///   `AsyncStream` ping-pong measured in the same run.
/// - Memory per idle emulated peripheral; time for one scan to hear 1,000 advertisers.
struct LinkBenchmark: BenchmarkSuite {
    let name = "link"
    let summary = "emulator goodput against physics per PHY and data length, echo rate, memory, discovery"

    func run(_ options: BenchmarkOptions, _ report: inout BenchmarkReport) async throws {
        let seconds = options.quick ? 0.3 : 1.0
        // The four DESIGN.md references, then LE Coded (S = 2: 500 kb/s, S = 8: 125 kb/s on air).
        let rows: [(PHY, Int)] = [(.le1M, 27), (.le1M, 251), (.le2M, 27), (.le2M, 251), (.leCodedS2, 27), (.leCodedS8, 27)]
        for (phy, dataLength) in rows {
            let key = "\(phy.shortName)_\(dataLength)"
            let reference = LinkGoodput.referenceKilobitsPerSecond(phy: phy, dataLength: dataLength)
            progress("link \(key): notifications")
            let notified = try await LinkScenario.bulk(.notifications, phy: phy, dataLength: dataLength, seconds: seconds)
            report.record("\(key).measured_kbps", notified, unit: "kb/s", "\(key) notifications, measured")
            report.record("\(key).reference_kbps", reference, unit: "kb/s", "\(key) reference (DESIGN.md)")
            report.record("\(key).ratio", notified / reference, unit: "x", "\(key) notifications / reference")
            progress("link \(key): writes without response")
            let written = try await LinkScenario.bulk(.writes, phy: phy, dataLength: dataLength, seconds: seconds)
            report.record("\(key).wwr.measured_kbps", written, unit: "kb/s", "\(key) writes w/o response, measured")
            report.record("\(key).wwr.ratio", written / reference, unit: "x", "\(key) writes w/o response / reference")
        }

        progress("link: .instant echo")
        let echoes = try await LinkScenario.echoRate(seconds: seconds)
        let pingPong = await LinkScenario.pingPongRate(seconds: seconds)
        report.record("instant.echo_per_s", echoes, unit: "1/s", ".instant write + notify echoes")
        report.record("instant.asyncstream_pingpong_per_s", pingPong, unit: "1/s", "baseline: AsyncStream ping-pong")
        report.record("instant.echo_ratio", echoes / pingPong, unit: "x", "echo / ping-pong")

        progress("link: memory per idle peripheral")
        if let bytes = try await LinkScenario.memoryPerIdlePeripheral(count: options.quick ? 300 : 2_000) {
            report.record("memory.idle_peripheral_bytes", bytes, unit: "B", "resident memory per idle peripheral")
        }

        progress("link: discovering 1,000 advertisers")
        let instant = try await LinkScenario.discover(1_000, configuration: .instant)
        report.record("discover1000.instant_ms", instant * 1000, unit: "ms", "one .instant scan hears 1,000")
        let realistic = try await LinkScenario.discover(1_000, configuration: .default)
        let expected = (EmulatorConfiguration.default.scanLatency + EmulatorConfiguration.default.advertisingInterval
            + .milliseconds(10)).seconds
        report.record("discover1000.default_ms", realistic * 1000, unit: "ms", "one .default scan hears 1,000")
        report.record("discover1000.expected_ms", expected * 1000, unit: "ms", "scan latency + interval + advDelay")
        report.record("discover1000.default_ratio", realistic / expected, unit: "x", ".default / expected")
    }

    private func progress(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}
