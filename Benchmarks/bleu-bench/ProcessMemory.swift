import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// This process's resident memory, as the kernel counts it.
///
/// On Linux from `/proc/self/status` (`VmRSS` now, `VmHWM` its peak), whose peak can be reset
/// (`/proc/self/clear_refs`, "5") so that a peak covers one phase of the run; elsewhere the peak
/// is `getrusage`'s `ru_maxrss` since the process started, and cannot be reset: run each
/// measured phase in a process of its own.
enum ProcessMemory {
    /// Resident memory now, in KiB.
    static var residentKiB: Double {
        #if os(Linux)
        return statusField("VmRSS") ?? 0
        #else
        return peakKiB
        #endif
    }

    /// The peak of resident memory since the process started (or since ``resetPeak()``), in KiB.
    static var peakKiB: Double {
        #if os(Linux)
        return statusField("VmHWM") ?? 0
        #else
        var usage = rusage()
        getrusage(RUSAGE_SELF, &usage)
        #if canImport(Darwin)
        return Double(usage.ru_maxrss) / 1024  // bytes on Darwin
        #else
        return Double(usage.ru_maxrss)  // KiB elsewhere
        #endif
        #endif
    }

    /// Resident pages mapped from files (the program's and libraries' code and data), in KiB:
    /// code run for the first time raises it, once. Zero where the kernel does not say.
    static var fileKiB: Double {
        #if os(Linux)
        return statusField("RssFile") ?? 0
        #else
        return 0
        #endif
    }

    /// Starts the peak afresh from the resident memory now. Returns whether it could (Linux).
    @discardableResult
    static func resetPeak() -> Bool {
        #if os(Linux)
        guard let handle = FileHandle(forWritingAtPath: "/proc/self/clear_refs") else { return false }
        defer { try? handle.close() }
        do {
            try handle.write(contentsOf: Data("5".utf8))
            return true
        } catch {
            return false
        }
        #else
        return false
        #endif
    }

    #if os(Linux)
    /// A `kB` field of `/proc/self/status`.
    private static func statusField(_ name: String) -> Double? {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix(name + ":") {
            let number = line.dropFirst(name.count + 1).split(whereSeparator: { $0 == " " || $0 == "\t" }).first
            return number.flatMap { Double($0) }
        }
        return nil
    }
    #endif
}
