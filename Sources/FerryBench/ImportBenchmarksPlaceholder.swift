func importBenchmarks(scale: Int, workDirectory: String) throws -> [BenchmarkRow] { [] }  // replaced when the import branch merges
