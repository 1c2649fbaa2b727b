/// calpipe's version: the one constant the command line (`--version`) and the outputs (PRODID) show.
public enum CalpipeVersion {
    public static let current = "0.1.0"
}
