// Placeholder entry point; the crash-test writer and syncer are being written.
print("ferry-torture: usage: ferry-torture writer|syncer …")
