/// Counts one step of a long piece of work and tells a ``WorkProgressHandler`` how far it has
/// got: once as it starts (nothing done), every `stride` items, and once as it ends, so that a
/// step of any length is never silent and a short one costs three calls.
///
/// ```swift
/// var counter = ProgressCounter("linking", total: links.count, handler: progress)
/// for link in links {
///     try batch.apply(link)
///     counter.advance()
/// }
/// counter.finish()
/// ```
struct ProgressCounter {
    private let handler: WorkProgressHandler?
    private let task: String
    private let total: Int?
    private let unit: WorkProgress.Unit
    private let stride: Int
    private var done = 0
    private var nextReport: Int

    /// Starts the step, telling the handler (if any) that nothing of it is done.
    /// - Parameters:
    ///   - total: how much there is, when known.
    ///   - stride: how many items between two reports.
    init(_ task: String, total: Int?, unit: WorkProgress.Unit = .items("records"), stride: Int = 1_024, handler: WorkProgressHandler?) {
        self.handler = handler
        self.task = task
        self.total = total
        self.unit = unit
        self.stride = max(1, stride)
        nextReport = self.stride
        handler?(WorkProgress(task: task, done: 0, total: total, unit: unit))
    }

    /// Counts `count` more items done, and reports when a stride is complete.
    mutating func advance(by count: Int = 1) {
        guard handler != nil else { return }
        done += count
        if done >= nextReport {
            nextReport = done + stride
            handler?(WorkProgress(task: task, done: total.map { min(done, $0) } ?? done, total: total, unit: unit))
        }
    }

    /// Ends the step: all of it is done, `count` when the step learned its size only as it
    /// ended (the bytes of a file read whole).
    func finish(count: Int? = nil) {
        let all = count ?? total ?? done
        handler?(WorkProgress(task: task, done: all, total: all, unit: unit))
    }
}
