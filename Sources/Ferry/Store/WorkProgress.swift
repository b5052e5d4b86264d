/// How far a long operation (verify, status, export) has got, handed to a progress callback
/// so that a caller can show a progress line; the library prints nothing itself.
///
/// ```swift
/// let report = try Store.verify(at: "./data") { progress in
///     print("\(progress.task): \(progress.done)/\(progress.total ?? 0)")
/// }
/// ```
public struct WorkProgress: Sendable, Hashable {
    /// What is counted.
    public enum Unit: Sendable, Hashable {
        /// Items, with their name in the plural (`records`, `files`).
        case items(String)
        /// Bytes.
        case bytes
    }

    /// The step under way (`journal`, `record files`).
    public var task: String
    /// How much of it is done.
    public var done: Int
    /// How much there is in all, when known.
    public var total: Int?
    public var unit: Unit

    public init(task: String, done: Int, total: Int?, unit: Unit) {
        self.task = task
        self.done = done
        self.total = total
        self.unit = unit
    }
}

/// A callback for ``WorkProgress``, called on the thread doing the work, a few times per
/// second of work at most or once per chunk of it; the caller throttles what it shows.
public typealias WorkProgressHandler = @Sendable (WorkProgress) -> Void
