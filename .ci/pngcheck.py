#!/usr/bin/env python3
"""Fail unless a PNG exists, decodes, and is not (nearly) one colour.

Dependency-free: decodes 8-bit RGB/RGBA non-interlaced PNGs (what Bevy writes) with zlib.
"Nearly one colour" means the most common colour covers more than 97% of the pixels.
"""
import struct
import sys
import zlib
from collections import Counter


def decode(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise SystemExit(f"{path}: not a PNG")
    pos, idat, header = 8, b"", None
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind = data[pos + 4 : pos + 8]
        body = data[pos + 8 : pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
    width, height, depth, colour, _, _, interlace = header
    if depth != 8 or colour not in (2, 6) or interlace:
        raise SystemExit(f"{path}: unsupported PNG layout {header}")
    bpp = 3 if colour == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * bpp
    rows, prev = [], bytearray(stride)
    for y in range(height):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1 : (y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[i] = (line[i] + pred) & 255
        rows.append(bytes(line))
        prev = line
    return width, height, bpp, rows


def main():
    path = sys.argv[1]
    try:
        width, height, bpp, rows = decode(path)
    except FileNotFoundError:
        raise SystemExit(f"{path}: missing")
    counts = Counter()
    for row in rows[:: max(1, height // 200)]:
        for x in range(0, width * bpp, bpp * max(1, width // 300)):
            counts[row[x : x + 3]] += 1
    total = sum(counts.values())
    top = counts.most_common(1)[0][1] / total
    print(f"{path}: {width}x{height}, {len(counts)} colours sampled, top colour {top:.1%}")
    if top > 0.97 or len(counts) < 8:
        raise SystemExit(f"{path}: the screenshot is blank or nearly one colour")


if __name__ == "__main__":
    main()
