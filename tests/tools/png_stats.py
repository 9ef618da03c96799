#!/usr/bin/env python3
"""What a PNG holds, read with the standard library only (no Pillow in
Debian's test set): its size, and how much of it is drawn.

    png_stats.py FILE  ->  {"width": W, "height": H, "colours": N, "drawn": F}

colours: distinct colours in the image; drawn: the share of pixels that
are not the top-left pixel's colour (the background).  Exit 2 when FILE is
not an 8-bit truecolour or greyscale PNG (what Chromium writes)."""
import json
import struct
import sys
import zlib


def paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    if pa <= pb and pa <= pc:
        return a
    return b if pb <= pc else c


def rows(data, width, height, bpp):
    stride = width * bpp
    prev = bytearray(stride)
    pos = 0
    for _ in range(height):
        kind = data[pos]
        line = bytearray(data[pos + 1:pos + 1 + stride])
        pos += 1 + stride
        if kind == 1:
            for i in range(bpp, stride):
                line[i] = (line[i] + line[i - bpp]) & 0xFF
        elif kind == 2:
            line = bytearray((x + y) & 0xFF for x, y in zip(line, prev))
        elif kind == 3:
            for i in range(stride):
                left = line[i - bpp] if i >= bpp else 0
                line[i] = (line[i] + ((left + prev[i]) >> 1)) & 0xFF
        elif kind == 4:
            for i in range(stride):
                left = line[i - bpp] if i >= bpp else 0
                up_left = prev[i - bpp] if i >= bpp else 0
                line[i] = (line[i] + paeth(left, prev[i], up_left)) & 0xFF
        elif kind != 0:
            raise ValueError("filter type %d" % kind)
        yield line
        prev = line


def main(path):
    with open(path, "rb") as f:
        blob = f.read()
    if blob[:8] != b"\x89PNG\r\n\x1a\n":
        print("%s: not a PNG" % path, file=sys.stderr)
        return 2
    pos, idat, ihdr = 8, [], None
    while pos < len(blob):
        length, kind = struct.unpack(">I4s", blob[pos:pos + 8])
        body = blob[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            ihdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        pos += 12 + length
    width, height, depth, colour, _, _, interlace = ihdr
    bpp = {0: 1, 2: 3, 4: 2, 6: 4}.get(colour)
    if depth != 8 or bpp is None or interlace:
        print("%s: depth %d, colour type %d, interlace %d: not read here" % (path, depth, colour, interlace),
              file=sys.stderr)
        return 2
    data = zlib.decompress(b"".join(idat))
    colours, drawn, background = set(), 0, None
    for line in rows(data, width, height, bpp):
        pixels = [bytes(line[i:i + bpp]) for i in range(0, len(line), bpp)]
        if background is None:
            background = pixels[0]
        colours.update(pixels)
        drawn += sum(1 for p in pixels if p != background)
    print(json.dumps({"width": width, "height": height, "colours": len(colours),
                      "drawn": round(drawn / float(width * height), 4)}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
