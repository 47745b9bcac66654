import type { Prng } from './prng';

/** A request written by hand, byte for byte: what Node's HTTP parser sees before express does. */
export interface WireRequest {
  bytes: Buffer;
  note: string;
  /** The client half-closes after the bytes: no answer may come (the request was cut short). */
  halfClose?: boolean;
}

/** The parts of an ordinary request the wire variants start from. */
export interface WireBase {
  method: string;
  path: string;
  host: string;
  authorization: string;
  /** The case's X-Request-Id, sent on every hand-written request that has headers of its own. */
  requestId?: string;
  body?: Buffer;
}

const bytesOf = (...parts: (string | Buffer)[]) =>
  Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'latin1') : p)));

/** Header lines, each ended by CRLF. */
const crlf = (lines: string[]) => lines.map((l) => `${l}\r\n`).join('');

/** The X-Request-Id line of a base request, when it has an id. */
const idLine = (base: WireBase) => (base.requestId ? [`X-Request-Id: ${base.requestId}`] : []);

/** Header lines of a base request (Host, Authorization, X-Request-Id, Connection: close, and its body's length). */
function head(base: WireBase, extra: string[] = [], opts: { host?: boolean; length?: boolean } = {}): string {
  const lines = [
    ...(opts.host === false ? [] : [`Host: ${base.host}`]),
    `Authorization: ${base.authorization}`,
    ...idLine(base),
    'Connection: close',
    ...(base.body && opts.length !== false
      ? ['Content-Type: application/json', `Content-Length: ${base.body.length}`]
      : []),
    ...extra,
  ];
  return crlf(lines);
}

/** The wire-level variants: overlong request lines and headers, malformed lines, bodies that lie about their length. */
export const WIRE_VARIANTS: Record<string, (base: WireBase, rng: Prng) => WireRequest> = {
  'overlong-url': (b, rng) => {
    const n = rng.pick([17_000, 70_000]);
    const sep = b.path.includes('?') ? '&' : '?';
    return {
      bytes: bytesOf(`${b.method} ${b.path}${sep}q=${'a'.repeat(n)} HTTP/1.1\r\n${head(b)}\r\n`, b.body ?? ''),
      note: `a URL of ${n} characters`,
    };
  },
  'overlong-header': (b, rng) => {
    const n = rng.pick([17_000, 70_000]);
    return {
      bytes: bytesOf(`${b.method} ${b.path} HTTP/1.1\r\n${head(b, [`X-Fuzz: ${'b'.repeat(n)}`])}\r\n`, b.body ?? ''),
      note: `a header of ${n} characters`,
    };
  },
  'many-headers': (b) => {
    const extra = Array.from({ length: 3_000 }, (_, i) => `X-Fuzz-${i}: ${i}`);
    return {
      bytes: bytesOf(`${b.method} ${b.path} HTTP/1.1\r\n${head(b, extra)}\r\n`, b.body ?? ''),
      note: '3,000 headers',
    };
  },
  'bad-request-line': (b, rng) => {
    const line = rng.pick([
      `${b.method}  ${b.path} HTTP/1.1`,
      `${b.method} ${b.path} HTTP/9.9`,
      `${b.method} ${b.path}`,
      `${b.method} ${b.path} HTTP/1.1 extra`,
      `${b.method.toLowerCase()} ${b.path} HTTP/1.1`,
      `FUZZ ${b.path} HTTP/1.1`,
      `G\u0000ET ${b.path} HTTP/1.1`,
      `${b.method} ${b.path}\u0000 HTTP/1.1`,
      `${b.method} api/v1 HTTP/1.1`,
      `${b.method} * HTTP/1.1`,
      `${b.method} http://[::1 HTTP/1.1`,
    ]);
    return {
      bytes: bytesOf(`${line}\r\n${head(b)}\r\n`, b.body ?? ''),
      note: `request line ${JSON.stringify(line.slice(0, 60))}`,
    };
  },
  'bad-header-line': (b, rng) => {
    const line = rng.pick([
      'Bad Header',
      'X-Fuzz: a\u0000b',
      'X Fuzz: b',
      ' folded: continuation',
      ': no name',
      'X-Fuzz: \u007f',
      'Content-Type: application/json\r\nContent-Type: text/plain',
      'Authorization: Bearer a\u0001b',
    ]);
    return {
      bytes: bytesOf(`${b.method} ${b.path} HTTP/1.1\r\n${head(b, [line])}\r\n`, b.body ?? ''),
      note: `header line ${JSON.stringify(line.slice(0, 60))}`,
    };
  },
  'raw-bytes-path': (b, rng) => {
    const piece = rng.pick([
      Buffer.from('é', 'utf8'),
      Buffer.from([0xed, 0xa0, 0x80]),
      Buffer.from([0xff]),
      Buffer.from(' x'),
      Buffer.from('\t'),
      Buffer.from('"<>'),
    ]);
    return {
      bytes: bytesOf(`${b.method} ${b.path}`, piece, ` HTTP/1.1\r\n${head(b)}\r\n`, b.body ?? ''),
      note: `raw bytes ${piece.toString('hex')} in the path`,
    };
  },
  'bad-content-length': (b, rng) => {
    const body = b.body ?? Buffer.from('{}');
    const lines = rng.pick([
      ['Content-Length: abc'],
      ['Content-Length: -1'],
      [`Content-Length: ${body.length}`, `Content-Length: ${body.length + 1}`],
      [`Content-Length: ${body.length}`, 'Transfer-Encoding: chunked'],
      ['Content-Length: 99999999999999999999'],
      ['Transfer-Encoding: gzip, chunked'],
    ]);
    return {
      bytes: bytesOf(
        `${b.method} ${b.path} HTTP/1.1\r\n${head({ ...b, body: undefined }, ['Content-Type: application/json', ...lines])}\r\n`,
        body,
      ),
      note: lines.join(' + '),
    };
  },
  'bad-chunked': (b, rng) => {
    const chunks = rng.pick(['zz\r\n{}\r\n0\r\n\r\n', '2\r\n{}0\r\n\r\n', '-1\r\n{}\r\n0\r\n\r\n', '2\r\n{}\r\n']);
    return {
      bytes: bytesOf(
        `${b.method} ${b.path} HTTP/1.1\r\n${head({ ...b, body: undefined }, ['Content-Type: application/json', 'Transfer-Encoding: chunked'])}\r\n${chunks}`,
      ),
      note: `chunks ${JSON.stringify(chunks)}`,
      // The last variant never ends its body: only a half-close ends it.
      halfClose: chunks === '2\r\n{}\r\n',
    };
  },
  'truncated-body': (b) => {
    const body = b.body ?? Buffer.from('{"code":"x"}');
    return {
      bytes: bytesOf(
        `${b.method} ${b.path} HTTP/1.1\r\n${head({ ...b, body: undefined }, ['Content-Type: application/json', `Content-Length: ${body.length + 100}`])}\r\n`,
        body,
      ),
      note: 'a body 100 bytes shorter than its Content-Length, then the connection half-closed',
      halfClose: true,
    };
  },
  'missing-host': (b) => ({
    bytes: bytesOf(`${b.method} ${b.path} HTTP/1.1\r\n${head(b, [], { host: false })}\r\n`, b.body ?? ''),
    note: 'an HTTP/1.1 request without Host',
  }),
  'bad-expect': (b, rng) => {
    const expect = rng.pick(['fuzz', '100-continue-x', '200-ok']);
    return {
      bytes: bytesOf(`${b.method} ${b.path} HTTP/1.1\r\n${head(b, [`Expect: ${expect}`])}\r\n`, b.body ?? ''),
      note: `Expect: ${expect}`,
    };
  },
  upgrade: (b) => ({
    bytes: bytesOf(
      `${b.method} ${b.path} HTTP/1.1\r\nHost: ${b.host}\r\nAuthorization: ${b.authorization}\r\n` +
        crlf(idLine(b)) +
        'Connection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\n' +
        'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n',
    ),
    note: 'an Upgrade to websocket',
  }),
  connect: (b) => ({
    bytes: bytesOf(`CONNECT ${b.host} HTTP/1.1\r\nHost: ${b.host}\r\n${crlf(idLine(b))}\r\n`),
    note: 'a CONNECT request',
  }),
  'http-1.0': (b) => ({
    bytes: bytesOf(`${b.method} ${b.path} HTTP/1.0\r\n${head(b, [], { host: false })}\r\n`, b.body ?? ''),
    note: 'an HTTP/1.0 request',
  }),
};
