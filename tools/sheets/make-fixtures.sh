#!/usr/bin/env bash
# Regenerates the fixture sheets of libs/sheets as LibreOffice writes them, from their hand-written
# flat-ODS sources: products.ods, products.xlsx and products.csv (its Products worksheet) from
# products.fods; merchant.xlsx and merchant.csv from merchant.fods. Tests read the committed files
# and need no LibreOffice; run this after changing a source and commit the outputs with it. Needs
# LibreOffice (Debian: apt-get install -y libreoffice-calc-nogui).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
fixtures=libs/sheets/fixtures
command -v soffice > /dev/null || {
  echo "soffice not found: apt-get install -y libreoffice-calc-nogui" >&2
  exit 1
}
# A throwaway profile: no user settings change the output, and a LibreOffice already open is not disturbed.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
convert() {
  soffice "-env:UserInstallation=file://$work/profile" --headless --convert-to "$2" --outdir "$work/out" \
    "$fixtures/$1.fods" > /dev/null 2>&1
}
# CSV filter options: comma (44), double quotes (34), UTF-8 (76), from line 1, default column types,
# language, quoted text as text, detect numbers, cells as shown (Calc's "Save as" default; the
# command line's is off), formulas not, no leading space, and the worksheet to write.
csv='csv:Text - txt - csv (StarCalc):44,34,76,1,,0,false,true,true,false,false'
convert products ods
convert products xlsx
convert products "$csv,2"
convert merchant xlsx
convert merchant "$csv,1"
cp "$work/out/products.ods" "$work/out/products.xlsx" "$work/out/merchant.xlsx" "$fixtures/"
cp "$work/out/products-Products.csv" "$fixtures/products.csv"
cp "$work/out/merchant-"*.csv "$fixtures/merchant.csv" 2> /dev/null || cp "$work/out/merchant.csv" "$fixtures/merchant.csv"
ls -l "$fixtures"
