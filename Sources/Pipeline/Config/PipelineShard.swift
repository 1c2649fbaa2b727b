/// One shard of a pipeline's sources (`calpipe run PIPELINE --shard K/N`, docs/scaling.md): the sources whose
/// stable hash falls in shard K of N. The hash is FNV-1a 64 of the source's label (its `name`, else its path or
/// URL) followed by the byte 0xFF (`StableHash.of`), so every process, machine and calpipe version puts a source in
/// the same shard, and every source is in exactly one: shard `hash % N + 1`.
public struct PipelineShard: Hashable, Sendable, CustomStringConvertible {
    /// 1-based: 1...count.
    public let index: Int
    public let count: Int

    public init(index: Int, count: Int) {
        precondition(count >= 1 && (1...count).contains(index), "shard \(index)/\(count)")
        self.index = index
        self.count = count
    }

    /// `K/N` with 1 <= K <= N; the error says what was expected.
    public init(parsing text: String) throws(CalpipeError) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let k = Int(parts[0]), let n = Int(parts[1]), n >= 1, n <= 1_000_000 else {
            throw CalpipeError("--shard \(text): expected K/N, shard K of N, such as 2/8", kind: .usage)
        }
        guard (1...n).contains(k) else { throw CalpipeError("--shard \(text): K must be from 1 to \(n)", kind: .usage) }
        self.init(index: k, count: n)
    }

    /// The shard (1...count) a source label falls in.
    public static func shard(of label: String, count: Int) -> Int {
        Int(StableHash.of(label) % UInt64(count)) + 1
    }

    public func contains(_ label: String) -> Bool { Self.shard(of: label, count: count) == index }

    public var description: String { "\(index)/\(count)" }
}

extension PipelineDefinition {
    /// The pipeline with only the sources of `shard`, in their order. Its sinks keep (and sync) only the rows of
    /// these sources: a sink that mirrors per source (sqlite, postgres) never touches another shard's rows.
    public func restricted(to shard: PipelineShard) -> PipelineDefinition {
        var copy = self
        let keep = sourceLabels.indices.filter { shard.contains(sourceLabels[$0]) }
        func pick<T>(_ values: [T]) -> [T] { values.count == sourceLabels.count ? keep.map { values[$0] } : values }
        copy.sources = pick(sources)
        copy.sourceLabels = pick(sourceLabels)
        copy.sourceTypes = pick(sourceTypes)
        copy.configFingerprints = configFingerprints.map(pick)
        copy.sourceLabelIsPath = pick(sourceLabelIsPath)
        copy.allowEmpty = pick(allowEmpty)
        copy.sourceColors = pick(sourceColors)
        copy.sourceNamed = pick(sourceNamed)
        return copy
    }
}
