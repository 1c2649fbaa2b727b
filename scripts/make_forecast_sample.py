#!/usr/bin/env python3
"""Writes data/forecast-sample.json: a saved answer in the exact shape of Open-Meteo's forecast API for the
places of the demo agenda (Berlin, Hamburg, Munich, Lisbon; an array, the way the API answers several
comma-separated coordinates), daily values from 2026-10-01 to 2026-12-31 in Europe/Berlin. The values are synthetic (seeded, plausible for the
season), made for the offline demo pipeline; they are not a real forecast.

Run: python3 scripts/make_forecast_sample.py > data/forecast-sample.json
"""
import json
import random
from datetime import date, timedelta

CODES = [0, 1, 2, 3, 3, 45, 51, 61, 63, 71, 73, 80]
PLACES = [(52.52, 13.419998, 38.0, 0.0), (53.55, 9.990001, 12.0, -0.5), (48.14, 11.580002, 524.0, -1.5), (38.72, -9.139999, 45.0, 10.0)]


def place(index, lat, lon, elevation, shift, rng):
    days = [date(2026, 10, 1) + timedelta(days=i) for i in range(92)]
    daily = {k: [] for k in ["time", "weather_code", "temperature_2m_max", "temperature_2m_min",
                             "precipitation_probability_max", "precipitation_sum", "wind_speed_10m_max"]}
    for d in days:
        code = rng.choice(CODES)
        tmax = round(rng.uniform(-1.0, 8.0) + shift, 1)
        tmin = round(tmax - rng.uniform(2.0, 7.0), 1)
        wet = code >= 51
        daily["time"].append(d.isoformat())
        daily["weather_code"].append(code)
        daily["temperature_2m_max"].append(tmax)
        daily["temperature_2m_min"].append(tmin)
        daily["precipitation_probability_max"].append(rng.randint(45, 95) if wet else rng.randint(0, 30))
        daily["precipitation_sum"].append(round(rng.uniform(0.2, 9.0), 1) if wet else 0.0)
        daily["wind_speed_10m_max"].append(round(rng.uniform(6.0, 38.0), 1))
    return {
        "latitude": lat, "longitude": lon, "location_id": index, "generationtime_ms": 0.3, "utc_offset_seconds": 3600,
        "timezone": "Europe/Berlin", "timezone_abbreviation": "GMT+1", "elevation": elevation,
        "daily_units": {"time": "iso8601", "weather_code": "wmo code", "temperature_2m_max": "°C", "temperature_2m_min": "°C",
                        "precipitation_probability_max": "%", "precipitation_sum": "mm", "wind_speed_10m_max": "km/h"},
        "daily": daily,
    }


def main():
    rng = random.Random(7)
    doc = [place(i, lat, lon, elev, shift, rng) for i, (lat, lon, elev, shift) in enumerate(PLACES)]
    print(json.dumps(doc, ensure_ascii=False, separators=(",", ":")))


if __name__ == "__main__":
    main()
