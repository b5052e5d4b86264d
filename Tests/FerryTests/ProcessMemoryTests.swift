import Testing
@testable import Ferry

/// The command-line programs cap glibc's arenas at one per core, unless the user set their own.
@Suite struct ProcessMemoryTests {
    @Test func oneArenaPerCoreUnlessTheEnvironmentSaysOtherwise() {
        #expect(ProcessMemory.arenaLimit(environment: [:]) == max(2, ParallelWork.processorCount))
        #expect(ProcessMemory.arenaLimit(environment: ["MALLOC_ARENA_MAX": "8"]) == nil)
    }
}
