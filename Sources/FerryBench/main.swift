// ferry-bench: measures Ferry against the targets the issues set, in one run, side by side
// with plain file writes (and rsync and unison where installed). Run in a release build:
//   swift run -c release ferry-bench [--scales 10000,100000] [--only store,sync,...]
import Ferry
import Foundation

print("ferry-bench: suites are being assembled")
