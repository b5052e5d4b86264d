extension DirectoryEvents {
    /// Watches `directory` and every folder under it (not following links, not dot folders);
    /// `false` when `directory` is gone. A folder created later is reported
    /// (``Event/Kind/directoryAdded``): pass it here to watch it too.
    /// - Parameter modifications: whether each write to a file is reported, not only its close.
    @discardableResult
    package func watchTree(_ directory: String, modifications: Bool = false) throws(SystemError) -> Bool {
        guard try watch(directory, modifications: modifications) else { return false }
        let entries: [FileSystem.DirectoryEntry]
        do { entries = try FileSystem.contents(ofDirectory: directory) } catch { return true }
        for entry in entries where entry.kind == .directory && !entry.name.hasPrefix(".") {
            try watchTree(directory + "/" + entry.name, modifications: modifications)
        }
        return true
    }

    /// Reads the events as they come, a batch at a time, until `stopping` is signalled (then
    /// returns); the thread that calls it is the watcher's own.
    /// - Throws: ``SystemError`` when the kernel's descriptor cannot be read.
    package func readUntilStopped(by stopping: WakeupPipe, _ handle: ([Event]) -> Void) throws(SystemError) {
        while true {
            let batch = try read(timeout: nil, wakeup: stopping.readDescriptor)
            if batch.isEmpty {
                // Woken with nothing read: stopping, unless the kernel had nothing after all.
                if (try? Poll.waitForReadable([stopping.readDescriptor], timeout: .zero).first) != false { return }
                continue
            }
            handle(batch)
        }
    }
}
