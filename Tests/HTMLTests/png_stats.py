#!/usr/bin/env python3
"""Test oracle for the html sink's screenshots, without image libraries: decodes an 8-bit RGB or RGBA PNG
(zlib and the five PNG row filters) and prints, as JSON: width, height, the number of distinct colours (a
blank page has one), the mean luminance (0-255; light pages high, dark pages low) and the share of pixels
that differ from the top-left pixel (the page's background).

With colours after the file (RRGGBB), also "count_RRGGBB": how many pixels (every one, not a sample) are within
a few levels of that colour.

Usage: python3 png_stats.py SHOT.png [RRGGBB ...]
"""
import json
import struct
import sys
import zlib


def decode(path):
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat = 8, b""
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and ctype in (2, 6) and interlace == 0, "unsupported PNG %d/%d/%d" % (depth, ctype, interlace)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    bpp = 3 if ctype == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * bpp
    rows, prev, i = [], bytearray(stride), 0
    for _ in range(height):
        f = raw[i]
        line = bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b = prev[x]
            c = prev[x - bpp] if x >= bpp else 0
            if f == 1:
                line[x] = (line[x] + a) & 255
            elif f == 2:
                line[x] = (line[x] + b) & 255
            elif f == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return width, height, bpp, rows


def main(path, wanted=()):
    width, height, bpp, rows = decode(path)
    colours, total, differing = set(), 0, 0
    background = rows[0][0:3]
    for y in range(0, height, 4):
        row = rows[y]
        for x in range(0, width * bpp, bpp * 4):
            px = row[x:x + 3]
            colours.add(px)
            total += px[0] * 2126 + px[1] * 7152 + px[2] * 722
            if px != background:
                differing += 1
    samples = ((height + 3) // 4) * ((width + 3) // 4)
    out = {"width": width, "height": height, "colours": len(colours),
           "mean_luminance": total / 10000 / samples, "non_background": differing / samples}
    for hex in wanted:
        target = bytes.fromhex(hex)
        count = 0
        for row in rows:
            for x in range(0, width * bpp, bpp):
                if abs(row[x] - target[0]) <= 6 and abs(row[x + 1] - target[1]) <= 6 and abs(row[x + 2] - target[2]) <= 6:
                    count += 1
        out["count_" + hex] = count
    print(json.dumps(out))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
