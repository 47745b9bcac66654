// ODS files built in tests, as LibreOffice 7 lays them out (not exported from the package).
import { deflateRawSync } from 'node:zlib';

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
const crc32 = (bytes: Buffer) => {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
};

/**
 * A ZIP package as LibreOffice 7 writes one: `mimetype` first and stored, every other part deflated
 * with its CRC and sizes in a data descriptor after it (zeros in its local header).
 */
export function zip(parts: [name: string, content: string | Buffer][]): Buffer {
  const out: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const [name, content] of parts) {
    const data = Buffer.from(content);
    const stored = name === 'mimetype';
    const body = stored ? data : deflateRawSync(data);
    const crc = crc32(data);
    const path = Buffer.from(name);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(stored ? 0x800 : 0x808, 6);
    local.writeUInt16LE(stored ? 0 : 8, 8);
    if (stored) {
      local.writeUInt32LE(crc, 14);
      local.writeUInt32LE(body.length, 18);
      local.writeUInt32LE(data.length, 22);
    }
    local.writeUInt16LE(path.length, 26);
    const descriptor = Buffer.alloc(stored ? 0 : 16);
    if (!stored) {
      descriptor.writeUInt32LE(0x08074b50, 0);
      descriptor.writeUInt32LE(crc, 4);
      descriptor.writeUInt32LE(body.length, 8);
      descriptor.writeUInt32LE(data.length, 12);
    }
    const header = Buffer.alloc(46);
    header.writeUInt32LE(0x02014b50, 0);
    header.writeUInt16LE(20, 4);
    header.writeUInt16LE(20, 6);
    header.writeUInt16LE(stored ? 0x800 : 0x808, 8);
    header.writeUInt16LE(stored ? 0 : 8, 10);
    header.writeUInt32LE(crc, 16);
    header.writeUInt32LE(body.length, 20);
    header.writeUInt32LE(data.length, 24);
    header.writeUInt16LE(path.length, 28);
    header.writeUInt32LE(offset, 42);
    central.push(header, path);
    out.push(local, path, body, descriptor);
    offset += local.length + path.length + body.length + descriptor.length;
  }
  const directory = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(parts.length, 8);
  end.writeUInt16LE(parts.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...out, directory, end]);
}

export const NS =
  'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" ' +
  'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" ' +
  'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" ' +
  'xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" ' +
  'xmlns:dc="http://purl.org/dc/elements/1.1/" ' +
  'xmlns:calcext="urn:org:documentfoundation:names:experimental:calc:xmlns:calcext:1.0"';

/** An ODS file whose worksheets are `tables` (the `<table:table>` elements' XML), parts ordered as LibreOffice orders them. */
export const ods = (...tables: string[]) =>
  zip([
    ['mimetype', 'application/vnd.oasis.opendocument.spreadsheet'],
    ['meta.xml', `<?xml version="1.0" encoding="UTF-8"?><office:document-meta ${NS}/>`],
    ['styles.xml', `<?xml version="1.0" encoding="UTF-8"?><office:document-styles ${NS}/>`],
    [
      'content.xml',
      `<?xml version="1.0" encoding="UTF-8"?>\n<office:document-content ${NS} office:version="1.3">` +
        `<office:body><office:spreadsheet>${tables.join('')}<table:named-expressions/></office:spreadsheet></office:body>` +
        `</office:document-content>`,
    ],
    ['META-INF/manifest.xml', '<?xml version="1.0" encoding="UTF-8"?><manifest/>'],
  ]);

export const table = (name: string, rows: string) => `<table:table table:name="${name}">${rows}</table:table>`;
export const row = (cells: string, repeat?: number) =>
  `<table:table-row${repeat ? ` table:number-rows-repeated="${repeat}"` : ''}>${cells}</table:table-row>`;
export const text = (p: string) =>
  `<table:table-cell office:value-type="string" calcext:value-type="string"><text:p>${p}</text:p></table:table-cell>`;
export const empty = (repeat?: number) =>
  `<table:table-cell${repeat ? ` table:number-columns-repeated="${repeat}"` : ''}/>`;
/** The end of a LibreOffice sheet: every column and row it did not use, as one repeat. */
export const unused = (columnsUsed: number, rowsUsed: number) => row(empty(16_384 - columnsUsed), 1_048_576 - rowsUsed);
