/// Published test vectors kept in `Tests/Vectors/` (each folder says where they come from).
public enum TestVectors {
    /// The path of `name` under `Tests/Vectors/`.
    public static func path(_ name: String) -> String {
        SeaweedFS.packageRoot + "/Tests/Vectors/" + name
    }
}
