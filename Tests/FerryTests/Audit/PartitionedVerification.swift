import Testing
@testable import Ferry

/// Verifies the store at `path` twice, replaying every record in one partition and then each
/// record in a partition of its own (see ``ReplaySpill``), and expects the same report: every
/// verify test checks the partitioned replay too.
func verifyInPartitions(
    at path: String, segmentEntryLimit: Int = Journal.segmentEntryLimit, sourceLocation: SourceLocation = #_sourceLocation
) throws -> VerificationReport {
    var whole = StoreVerifier(path: path)
    whole.segmentEntryLimit = segmentEntryLimit
    whole.recordsPerPartition = .max / 2
    let report = try whole.verify()
    var split = whole
    split.recordsPerPartition = 1
    let partitioned = try split.verify()
    #expect(partitioned == report, "one record per partition gave another report", sourceLocation: sourceLocation)
    return report
}
