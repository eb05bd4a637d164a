#!/usr/bin/env bash
# Renders headroom.svg into the committed raster icons. The build never runs this; run it by hand
# after editing the SVG and commit the results.
# Needs (Debian): librsvg2-bin (rsvg-convert), icoutils (icotool), icnsutils (png2icns).
set -euo pipefail
cd "$(dirname "$0")"

sizes=(16 22 24 32 48 64 128 256)
for size in "${sizes[@]}"; do
    rsvg-convert --width "$size" --height "$size" --output "headroom-${size}.png" headroom.svg
done

# Windows (NSIS installer, executable icon): the usual sizes; 256 px stored as PNG.
icotool --create --output headroom.ico \
    headroom-16.png headroom-24.png headroom-32.png headroom-48.png headroom-64.png \
    --raw=headroom-256.png

# macOS (application bundle, DragNDrop image): png2icns takes the sizes it knows.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
rsvg-convert --width 512 --height 512 --output "$tmp/headroom-512.png" headroom.svg
png2icns headroom.icns headroom-16.png headroom-32.png headroom-48.png headroom-128.png \
    headroom-256.png "$tmp/headroom-512.png" >/dev/null
