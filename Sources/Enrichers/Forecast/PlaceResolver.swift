import Pipeline

/// Where a day entry's forecast is for: the event's GEO; else its LOCATION text geocoded (unless geocoding
/// is off); else the pipeline's `"location"` ({"latitude", "longitude"} or {"name"}). Coordinates are rounded
/// to two decimals (about 1 km) so nearby events share one cache entry and one request.
final class PlaceResolver {
    enum DefaultPlace {
        case none
        case coordinate(Coordinate)
        case name(String)
    }

    private let geocoder: Geocoder?
    private let defaultPlace: DefaultPlace
    private var resolvedDefault: Coordinate??

    init(geocoder: Geocoder?, defaultPlace: DefaultPlace) {
        self.geocoder = geocoder
        self.defaultPlace = defaultPlace
    }

    /// Reads the pipeline's `"location"`; throws a `CalpipeError` for a malformed one.
    static func defaultPlace(_ location: JSONValue?, file: String) throws -> DefaultPlace {
        guard let location else { return .none }
        guard let object = location.objectValue else {
            throw CalpipeError.config(file: file, path: "location", "expected an object such as {\"latitude\": 52.52, \"longitude\": 13.41} or {\"name\": \"Berlin\"}, got \(location.kindDescription)")
        }
        if let name = object["name"] {
            guard let text = name.stringValue, !Geocoder.normalize(text).isEmpty else {
                throw CalpipeError.config(file: file, path: "location.name", "expected a place name, got \(name.kindDescription) \(name.preview)")
            }
            return .name(text)
        }
        guard let lat = object["latitude"]?.numberValue, (-90...90).contains(lat) else {
            throw CalpipeError.config(file: file, path: "location.latitude", "expected a number from -90 to 90 (or give \"name\")")
        }
        guard let lon = object["longitude"]?.numberValue, (-180...180).contains(lon) else {
            throw CalpipeError.config(file: file, path: "location.longitude", "expected a number from -180 to 180")
        }
        return .coordinate(Coordinate(latitude: lat, longitude: lon))
    }

    func place(for event: Event, context: RunContext) -> Coordinate? {
        ownPlace(for: event, context: context) ?? pipelinePlace(context: context)
    }

    /// The event's own place: its GEO, else its LOCATION text geocoded; nil without either.
    func ownPlace(for event: Event, context: RunContext) -> Coordinate? {
        if let geo = event.coordinate, geo.isValid { return ForecastStage.rounded(geo) }
        if let geocoder, let text = event.location, let found = geocoder.coordinate(for: text, context: context) {
            return ForecastStage.rounded(found)
        }
        return nil
    }

    /// The pipeline's `location.name`, when it is given by name.
    var pipelinePlaceName: String? {
        if case .name(let name) = defaultPlace { return name }
        return nil
    }

    /// The pipeline's `"location"`, geocoded once when it is a name; nil without one (or when it cannot be found).
    func pipelinePlace(context: RunContext) -> Coordinate? {
        if let resolvedDefault { return resolvedDefault }
        var found: Coordinate?
        switch defaultPlace {
        case .none: found = nil
        case .coordinate(let c): found = ForecastStage.rounded(c)
        case .name(let name):
            if let geocoder {
                found = geocoder.coordinate(for: name, context: context).map(ForecastStage.rounded)
            } else {
                context.warn("the pipeline's location \"\(name)\" is a name, but geocoding is off; give latitude and longitude instead")
            }
        }
        resolvedDefault = .some(found)
        return found
    }
}
