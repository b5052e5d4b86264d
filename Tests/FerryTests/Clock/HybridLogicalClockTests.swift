import Testing
@testable import Ferry

@Suite struct HybridLogicalClockTests {
    @Test func monotonicWhenTheWallClockStepsBack() {
        let wall = ManualClock(milliseconds: 10_000)
        var clock = HybridLogicalClock(wallClock: wall)
        let first = clock.tick()
        wall.set(milliseconds: 5_000)  // NTP stepped the clock back
        let second = clock.tick()
        let third = clock.tick()
        #expect(first < second && second < third)
        #expect(second.physical == 10_000 && second.logical == 1)
        wall.set(milliseconds: 20_000)
        let fourth = clock.tick()
        #expect(fourth == HybridTimestamp(physical: 20_000, logical: 0))
    }

    @Test func movesPastReceivedStamps() {
        let wall = ManualClock(milliseconds: 1_000)
        var clock = HybridLogicalClock(wallClock: wall)
        clock.receive(HybridTimestamp(physical: 3_600_000, logical: 7))  // a peer an hour ahead
        let local = clock.tick()
        #expect(local > HybridTimestamp(physical: 3_600_000, logical: 7))
        clock.receive(HybridTimestamp(physical: 10, logical: 0))  // older stamps change nothing
        #expect(clock.tick() > local)
    }

    @Test func textFormRoundTripsAndRejectsGarbage() {
        let stamp = HybridTimestamp(physical: 1_795_294_464_674, logical: 3)
        #expect(stamp.description == "1795294464674.3")
        #expect(HybridTimestamp("1795294464674.3") == stamp)
        for bad in ["", ".", "1.", ".1", "1", "1.2.3", "a.1", "1.-1", "1.99999999999", "99999999999999999999999.0"] {
            #expect(HybridTimestamp(bad) == nil, "\(bad)")
        }
    }

    @Test func logicalCounterOverflowCarriesIntoPhysical() {
        let wall = ManualClock(milliseconds: 5)
        var clock = HybridLogicalClock(wallClock: wall, latest: HybridTimestamp(physical: 5, logical: UInt32.max))
        #expect(clock.tick() == HybridTimestamp(physical: 6, logical: 0))
    }

    @Test func versionVectorsOrderVersions() throws {
        let a = ReplicaID.generate()
        let b = ReplicaID.generate()
        let base = VersionVector([a: 1])
        let later = VersionVector([a: 2])
        let other = VersionVector([a: 1, b: 1])
        #expect(base.compare(to: later) == .before)
        #expect(later.compare(to: base) == .after)
        #expect(later.compare(to: other) == .concurrent)
        #expect(base.compare(to: VersionVector([a: 1])) == .equal)
        #expect(later.merged(with: other) == VersionVector([a: 2, b: 1]))
    }
}
