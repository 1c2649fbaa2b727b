/// The pipeline file's `location`, the forecast's default place: `{"latitude": 52.52, "longitude": 13.41}` or
/// `{"name": "Berlin"}`. Declared for the loader (keys and kinds) and `calpipe schema`; the forecast stage reads
/// the place and checks its ranges.
struct LocationOptions: OptionConfig {
    var latitude: Double?
    var longitude: Double?
    var name: String?

    static let options = OptionSpec<LocationOptions> {
        Key("latitude", \.latitude, .number, "degrees north, -90 to 90")
        Key("longitude", \.longitude, .number, "degrees east, -180 to 180")
        Key("name", \.name, .string, "a place name, looked up with the geocoding service (instead of latitude and longitude)")
    }
}
