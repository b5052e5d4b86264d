/// The version of Ferry, as `ferry --version` prints it.
///
/// ```swift
/// print("ferry \(FerryVersion.current)")  // ferry 0.1.0
/// ```
public enum FerryVersion {
    /// The current release, in semantic-versioning form.
    public static let current = "0.1.0"
}
