/// The stages this module provides, for the executable's registry.
public enum CoreStages {
    public static var all: [StageDescriptor] {
        [SplitStage.descriptor, FilterStage.descriptor, ExpandStage.descriptor, TransformStage.descriptor, DedupeStage.descriptor]
    }
}
