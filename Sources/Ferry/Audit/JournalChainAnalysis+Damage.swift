/// The slow path of ``JournalChainAnalysis``: explaining the damage to a journal that is not
/// one sound chain, with as few findings as possible, each at its line.
extension JournalChainAnalysis {
    /// The analysis of a damaged journal: state shared between its steps.
    struct DamageAnalysis {
        let analysis: JournalChainAnalysis
        var lines: [Line] { analysis.lines }
        var findings: [(position: Int, finding: VerificationFinding)] = []
        /// Line index → position in the effective file order.
        var position: [Int] = []
        /// Line indexes in the effective file order.
        var ordered: [Int] = []
        var bySequence: [UInt64: [Int]] = [:]
        var genuine: [UInt64: Int] = [:]
        var unsound: Set<Int> = []
        var usedPlaceholders: Set<Int> = []
        var moved: Set<Int> = []
        var truncationReported: Set<Int> = []

        init(analysis: JournalChainAnalysis) { self.analysis = analysis }

        func location(_ index: Int) -> (path: String, line: Int) {
            (analysis.segmentPath(Int(lines[index].segment)), Int(lines[index].number))
        }

        func describe(_ index: Int) -> String {
            let place = location(index)
            return "\(place.path):\(place.line)"
        }

        mutating func report(_ kind: VerificationFinding.Kind, at index: Int, _ message: String) {
            let place = location(index)
            findings.append((position[index], VerificationFinding(kind: kind, path: place.path, line: place.line, message: message)))
        }

        mutating func report(_ kind: VerificationFinding.Kind, segment: Int, line: Int?, order: Int, _ message: String) {
            findings.append((order, VerificationFinding(kind: kind, path: analysis.segmentPath(segment), line: line, message: message)))
        }

        mutating func run() -> Result {
            orderSegments()
            groupBySequence()
            chooseGenuineLines()
            findMovedLines()
            findMissingSequences()
            checkLinks()
            checkSegmentNames()
            classifyUnsoundLines()
            let sorted = findings.enumerated().sorted {
                $0.element.position != $1.element.position
                    ? $0.element.position < $1.element.position : $0.offset < $1.offset
            }.map(\.element.finding)
            return Result(
                findings: sorted, isContiguous: false, genuine: genuine, lastSequence: genuine.keys.max() ?? analysis.firstSequence - 1,
                firstSequence: analysis.firstSequence)
        }

        /// Segments are placed by their first sound entry (by name when they have none), so a
        /// renamed segment is reported once rather than as thousands of moved lines.
        mutating func orderSegments() {
            var linesOfSegment = Array(repeating: [Int](), count: analysis.segments.count)
            for (index, line) in lines.enumerated() { linesOfSegment[Int(line.segment)].append(index) }
            let keys: [UInt64] = analysis.segments.indices.map { segment in
                let first = linesOfSegment[segment].first { lines[$0].problem == nil }
                return first.map { lines[$0].sequence - UInt64(lines[$0].number - 1) } ?? analysis.segments[segment].firstSequence
            }
            let order = analysis.segments.indices.sorted { keys[$0] != keys[$1] ? keys[$0] < keys[$1] : $0 < $1 }
            position = Array(repeating: 0, count: lines.count)
            ordered.reserveCapacity(lines.count)
            for segment in order {
                for index in linesOfSegment[segment] {
                    position[index] = ordered.count
                    ordered.append(index)
                }
            }
        }

        mutating func groupBySequence() {
            // A sequence far beyond anything the segments could hold is not trusted for placement.
            var bound = UInt64(lines.count)
            for segment in analysis.segments { bound = max(bound, segment.firstSequence + UInt64(segment.lineCount)) }
            bound = bound * 2 + 16
            for (index, line) in lines.enumerated() {
                if line.problem != nil || line.sequence == 0 || line.sequence > bound {
                    unsound.insert(index)
                } else {
                    bySequence[line.sequence, default: []].append(index)
                }
            }
        }

        /// Where a sequence has several lines, keeps the one that fits the chain best and reports
        /// the others as inserted.
        mutating func chooseGenuineLines() {
            for sequence in bySequence.keys.sorted() {
                guard let candidates = bySequence[sequence] else { continue }
                if candidates.count == 1 {
                    genuine[sequence] = candidates[0]
                    continue
                }
                let before = genuine[sequence - 1]
                let after = bySequence[sequence + 1] ?? []
                func score(_ candidate: Int) -> Int {
                    var score = 0
                    if let before {
                        if analysis.links(before, candidate) { score += 2 }
                        if position[candidate] > position[before] { score += 1 }
                    } else if sequence == analysis.firstSequence && lines[candidate].previousHash == analysis.firstPrevious {
                        score += 2
                    }
                    if after.contains(where: { lines[$0].previousHash == lines[candidate].hash }) { score += 2 }
                    if after.contains(where: { position[$0] > position[candidate] }) { score += 1 }
                    return score
                }
                let chosen = candidates.max { score($0) != score($1) ? score($0) < score($1) : position[$0] > position[$1] } ?? candidates[0]
                genuine[sequence] = chosen
                for extra in candidates where extra != chosen {
                    if lines[extra].hash == lines[chosen].hash {
                        report(.insertedLine, at: extra, "inserted: a copy of seq \(sequence), whose place in the chain is \(describe(chosen))")
                    } else {
                        report(.insertedLine, at: extra, "inserted: a second entry with seq \(sequence); the one the chain links through is at \(describe(chosen))")
                    }
                }
            }
        }

        /// Lines off the longest run in sequence order were moved. Among equally long runs, the
        /// one keeping most lines inside the segment their sequence belongs to wins, so a line
        /// carried into another segment is the one reported.
        mutating func findMovedLines() {
            let chain = genuine.values.sorted { position[$0] < position[$1] }
            var increasing = true
            for offset in chain.indices.dropFirst() where lines[chain[offset]].sequence <= lines[chain[offset - 1]].sequence {
                increasing = false
                break
            }
            if increasing { return }
            let segments = analysis.segments
            let starts = segments.map(\.firstSequence).sorted()
            let ends: [UInt64] = segments.map { segment in starts.first { $0 > segment.firstSequence } ?? UInt64.max }
            let fits: [Bool] = chain.map { index in
                let segment = Int(lines[index].segment)
                return lines[index].sequence >= segments[segment].firstSequence && lines[index].sequence < ends[segment]
            }
            let kept = Set(Self.longestIncreasingRun(chain.map { lines[$0].sequence }, preferring: fits).map { chain[$0] })
            for index in chain where !kept.contains(index) {
                moved.insert(index)
                let sequence = lines[index].sequence
                let neighbour = genuine[sequence - 1].map { " after seq \(sequence - 1) at \(describe($0))" }
                    ?? genuine[sequence + 1].map { " before seq \(sequence + 1) at \(describe($0))" } ?? ""
                report(.reorderedLine, at: index, "reordered: seq \(sequence) is out of place; it belongs\(neighbour)")
            }
        }

        /// Indexes of a longest strictly increasing subsequence of `values` (distinct), and among
        /// those one with the most `preferred` elements: a weighted run over a Fenwick tree of
        /// prefix maxima, O(n log n).
        static func longestIncreasingRun(_ values: [UInt64], preferring preferred: [Bool]? = nil) -> [Int] {
            let count = values.count
            guard count > 0 else { return [] }
            let ranks = values.indices.sorted { values[$0] < values[$1] }
            var rank = Array(repeating: 0, count: count)
            for (order, index) in ranks.enumerated() { rank[index] = order + 1 }
            // Each element is worth more than all preferences together, so length comes first.
            let unit = count + 1
            var tree = Array(repeating: (score: 0, index: -1), count: count + 1)
            var parent = Array(repeating: -1, count: count)
            var score = Array(repeating: 0, count: count)
            for index in 0..<count {
                var best = (score: 0, index: -1)
                var cursor = rank[index] - 1
                while cursor > 0 {
                    if tree[cursor].score > best.score { best = tree[cursor] }
                    cursor -= cursor & -cursor
                }
                score[index] = best.score + unit + ((preferred?[index] ?? false) ? 1 : 0)
                parent[index] = best.index
                cursor = rank[index]
                while cursor <= count {
                    if tree[cursor].score < score[index] { tree[cursor] = (score[index], index) }
                    cursor += cursor & -cursor
                }
            }
            var cursor = score.indices.max { score[$0] != score[$1] ? score[$0] < score[$1] : $0 > $1 } ?? -1
            var result: [Int] = []
            while cursor >= 0 {
                result.append(cursor)
                cursor = parent[cursor]
            }
            return result.reversed()
        }

        func range(_ first: UInt64, _ last: UInt64) -> String {
            first == last ? "seq \(first)" : "seq \(first)…\(last) (\(last - first + 1) entries)"
        }

        /// Reports gaps in the sequence numbers, unless damaged lines stand where they are.
        mutating func findMissingSequences() {
            let present = genuine.keys.sorted()
            var gaps: [(first: UInt64, last: UInt64)] = []
            var expected = analysis.firstSequence
            for sequence in present where sequence >= analysis.firstSequence {
                if sequence > expected { gaps.append((expected, sequence - 1)) }
                expected = sequence + 1
            }
            for gap in gaps {
                guard let after = genuine[gap.last + 1] else { continue }
                let before = gap.first > 1 ? genuine[gap.first - 1] : nil
                let missing = Int(gap.last - gap.first + 1)
                // Damaged lines between the neighbours account for missing sequences first.
                let from = before.map { position[$0] + 1 } ?? 0
                let to = position[after]
                if from < to {
                    var available = ordered[from..<to].filter { unsound.contains($0) && !usedPlaceholders.contains($0) }
                    if available.count > missing { available = Array(available.prefix(missing)) }
                    usedPlaceholders.formUnion(available)
                    if available.count >= missing { continue }
                }
                reportGap(first: gap.first, last: gap.last, before: before, after: after)
            }
        }

        mutating func reportGap(first: UInt64, last: UInt64, before: Int?, after: Int) {
            let segments = analysis.segments
            let afterSegment = Int(lines[after].segment)
            let beforeSegment = before.map { Int(lines[$0].segment) }
            let atSegmentStart = lines[after].number == 1
            let atSegmentEnd = before.map { Int(lines[$0].number) == segments[Int(lines[$0].segment)].lineCount } ?? true
            guard atSegmentStart, atSegmentEnd, beforeSegment != afterSegment else {
                report(.removedLines, at: after, "removed: \(range(first, last)) missing before this line (seq \(lines[after].sequence))")
                return
            }
            if segments[afterSegment].firstSequence == first {
                report(.removedLines, at: after, "removed: \(range(first, last)) missing from the start of this segment")
                return
            }
            if let named = segments.firstIndex(where: { $0.firstSequence == first }), holdsNothingElse(named, from: first) {
                truncationReported.insert(named)
                report(.truncatedSegment, segment: named, line: nil, order: position[after],
                    "truncated: the segment \(segments[named].lineCount == 0 ? "is empty" : "ends early"); \(range(first, last)) are gone")
                return
            }
            if let before, let beforeSegment {
                let segment = segments[beforeSegment]
                if segment.lineCount < analysis.segmentEntryLimit && segment.byteCount < analysis.segmentByteLimit {
                    truncationReported.insert(beforeSegment)
                    let midLine = segment.endsMidLine ? " in the middle of a line" : ""
                    report(.truncatedSegment, segment: beforeSegment, line: segment.lineCount + (segment.endsMidLine ? 1 : 0),
                        order: position[before],
                        "truncated: the segment ends\(midLine) after seq \(first - 1); \(range(first, last)) were cut off")
                    return
                }
            }
            let name = JournalSegment(firstSequence: first).name
            findings.append((position[after], VerificationFinding(
                kind: .missingSegment, path: "journal/" + name,
                message: "missing: the segment file holding \(range(first, last)) is gone")))
        }

        /// Whether segment `index` is empty or starts with sequence `first`: then it is the file
        /// that lost the missing entries.
        func holdsNothingElse(_ index: Int, from first: UInt64) -> Bool {
            guard let line = ordered.first(where: { Int(lines[$0].segment) == index && lines[$0].problem == nil }) else { return true }
            return lines[line].sequence >= first
        }

        /// Every genuine entry must point at the hash of the one before it.
        mutating func checkLinks() {
            var failing: [UInt64] = []
            for sequence in genuine.keys.sorted() {
                guard let index = genuine[sequence] else { continue }
                if sequence == analysis.firstSequence {
                    if lines[index].previousHash != analysis.firstPrevious { failing.append(sequence) }
                    continue
                }
                guard let previous = genuine[sequence - 1] else { continue }
                if !analysis.links(previous, index) { failing.append(sequence) }
            }
            var offset = 0
            while offset < failing.count {
                let sequence = failing[offset]
                guard let index = genuine[sequence] else {
                    offset += 1
                    continue
                }
                if offset + 1 < failing.count, failing[offset + 1] == sequence + 1 {
                    report(.rewrittenLine, at: index,
                        "rewritten: seq \(sequence) has a recomputed hash; its prev does not match seq \(sequence - 1) and seq \(sequence + 1)'s prev does not match it")
                    offset += 2
                } else if sequence == analysis.firstSequence {
                    report(.rewrittenLine, at: index, sequence == 1 ? "rewritten: the first entry's prev is not zero"
                        : "rewritten: the first live entry's prev is not the last archived entry's hash (journal/start.json)")
                    offset += 1
                } else if let previous = genuine[sequence - 1] {
                    report(.rewrittenLine, at: previous,
                        "rewritten: seq \(sequence - 1) has a recomputed hash that the next entry's prev (\(describe(index))) does not match")
                    offset += 1
                } else {
                    offset += 1
                }
            }
        }

        /// A segment's name must be its first entry's sequence; an empty segment is only
        /// allowed last (a crash right after creating it).
        mutating func checkSegmentNames() {
            let segments = analysis.segments
            var firstLine = Array(repeating: Int?.none, count: segments.count)
            for index in ordered where genuine[lines[index].sequence] == index && !moved.contains(index) {
                let segment = Int(lines[index].segment)
                if firstLine[segment] == nil { firstLine[segment] = index }
            }
            for (offset, segment) in segments.enumerated() {
                if truncationReported.contains(offset) { continue }
                guard let first = firstLine[offset] else {
                    if segment.lineCount == 0 && offset != segments.count - 1 {
                        report(.truncatedSegment, segment: offset, line: nil, order: Int.max, "truncated: the segment is empty")
                    }
                    continue
                }
                let implied = lines[first].sequence - UInt64(lines[first].number - 1)
                if implied == segment.firstSequence { continue }
                if lines[first].number > 1 {
                    // Lines before it are damaged or out of place (reported); the name only
                    // matters if this entry cannot belong to the segment at all.
                    let next = segments.map(\.firstSequence).filter { $0 > segment.firstSequence }.min() ?? UInt64.max
                    if lines[first].sequence >= segment.firstSequence && lines[first].sequence < next { continue }
                }
                if lines[first].sequence > segment.firstSequence
                    && (segment.firstSequence..<lines[first].sequence).allSatisfy({ genuine[$0] == nil })
                {
                    continue  // its first lines are missing, already reported
                }
                report(.misnamedSegment, segment: offset, line: nil, order: position[first],
                    "renamed: the segment is named for seq \(segment.firstSequence) but its first entry is seq \(implied)")
            }
            for (offset, segment) in segments.enumerated()
            where segment.endsMidLine && offset != segments.count - 1 && !truncationReported.contains(offset) {
                report(.truncatedSegment, segment: offset, line: segment.lineCount + 1, order: Int.max,
                    "truncated: the segment ends in the middle of a line")
            }
        }

        /// Damaged lines that stand in for a missing sequence were edited; the others were added.
        mutating func classifyUnsoundLines() {
            for index in unsound.sorted(by: { position[$0] < position[$1] }) {
                let used = usedPlaceholders.contains(index)
                let line = lines[index]
                switch line.problem {
                case .malformed:
                    let reason = analysis.malformedReasons[index] ?? "not a journal entry"
                    if used {
                        report(.malformedLine, at: index, "damaged: the line is not a journal entry (\(reason))")
                    } else {
                        report(.insertedLine, at: index, "inserted: an extra line that is not a journal entry (\(reason))")
                    }
                case .edited:
                    if used || genuine[line.sequence] == nil {
                        report(.editedLine, at: index, "edited: the line's content does not match its hash (seq \(line.sequence))")
                    } else {
                        report(.insertedLine, at: index,
                            "inserted: an extra entry with seq \(line.sequence) whose content does not match its hash")
                    }
                case .reformatted:
                    if used || genuine[line.sequence] == nil {
                        report(.reformattedLine, at: index,
                            "edited: seq \(line.sequence) was rewritten in another layout (its content still matches its hash)")
                    } else {
                        report(.insertedLine, at: index, "inserted: an extra copy of seq \(line.sequence) in another layout")
                    }
                case nil:
                    report(used ? .rewrittenLine : .insertedLine, at: index,
                        "\(used ? "rewritten" : "inserted"): seq \(line.sequence) is far beyond the journal's end")
                }
            }
        }
    }
}
