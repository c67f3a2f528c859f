import HeapModule

/// The engine's timers in time order, and the one scheduler task that wakes the engine for
/// the earliest: a task per wake, replaced (and the old one cancelled) when an earlier timer
/// arrives, so at most one sleeps at a time.
struct TimerQueue {
    private var heap = Heap<Timer>()
    /// Ties at one time run in the order they were scheduled.
    private var nextSequence: UInt64 = 0
    /// When the scheduler task is asked to wake, if one is.
    var scheduledWake: Duration?
    /// Counts scheduler tasks: a task whose generation is not the current one stops.
    var generation = 0
    private var task: Task<Void, Never>?
    /// Set while due timers run, so timers they schedule wait for the loop instead of a task.
    var isProcessing = false
    /// When the ATT transaction watchdog runs next, if it is armed.
    var watchdogAt: Duration?

    /// A queue whose scheduler generations continue after `previous`'s (a bus started afresh).
    init(continuing previous: TimerQueue? = nil) {
        generation = (previous?.generation ?? -1) + 1
    }

    /// Adds a timer; returns whether the scheduler must be woken earlier for it.
    mutating func insert(_ action: TimerAction, at time: Duration) -> Bool {
        heap.insert(Timer(time: time, sequence: nextSequence, action: action))
        nextSequence += 1
        return !isProcessing && (scheduledWake.map { time < $0 } ?? true)
    }

    /// The earliest timer's time.
    var earliest: Duration? { heap.min?.time }

    /// Removes and returns the earliest timer if it is due at or before `target`.
    mutating func popDue(until target: Duration) -> Timer? {
        guard let top = heap.min, top.time <= target else { return nil }
        return heap.removeMin()
    }

    /// Replaces the scheduler task with `start`'s, for a wake at `time`.
    mutating func wake(at time: Duration, start: (Int) -> Task<Void, Never>) {
        scheduledWake = time
        generation += 1
        task?.cancel()
        task = start(generation)
    }

    /// Stops the scheduler task.
    mutating func stop() {
        task?.cancel()
        task = nil
    }
}
