import { create as contentDisposition } from 'content-disposition';
import { z } from 'zod';
import type { RouteResult } from './route';

/** One message of a file streamed by its owner: the first names the file. */
export interface FileMessage {
  file_name?: string;
  content_type?: string;
  file_size?: number;
  data: Uint8Array;
}

/** Half of a UTF-16 surrogate pair without the other half (a name cut between the two). */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * The ASCII `filename` of a name, for clients that do not read `filename*`: accents dropped
 * (`relatório` → `relatorio`), anything else outside printable ASCII an underscore.
 */
export function asciiFileName(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .replace(/[^\x20-\x7e]/gu, '_');
}

/**
 * The Content-Disposition of a download (RFC 6266): `attachment; filename="<ASCII>"` and, for a
 * name beyond ASCII, `filename*=UTF-8''<percent-encoded>` with the name exactly. A header value
 * holds only Latin-1 bytes, so writing the name raw failed every name with a character above
 * U+00FF (an en dash, 名前, an emoji) with a 500; the package does the RFC 8187 encoding.
 */
export function attachmentHeader(name: string): string {
  // A lone surrogate has no UTF-8 form (encodeURIComponent throws): it becomes U+FFFD.
  const whole = name.replace(LONE_SURROGATE, '\ufffd');
  return contentDisposition(whole, { fallback: asciiFileName(whole) });
}

/**
 * The longest Content-Disposition a download sends: a name of 266 UTF-16 units (an import's 255
 * plus `-errors.xlsx`) is at most 9 characters a unit percent-encoded, 2 in the fallback.
 */
const DISPOSITION_MAX_LENGTH = 3_000;

/** The Content-Disposition header of a download as the API document states it; `what` says which name it carries. */
export function dispositionHeader(what: string) {
  return z
    .string()
    .max(DISPOSITION_MAX_LENGTH)
    .meta({
      description:
        `attachment; filename=<name in ASCII, quoted when it holds spaces or separators>; filename*=UTF-8''<name, UTF-8 percent-encoded> (RFC 6266), the name being ${what}. ` +
        'filename* comes only when the name is not plain ASCII and holds it exactly: prefer it to filename, whose accents are dropped and other characters replaced by _.',
      example: `attachment; filename=relatorio-_.csv; filename*=UTF-8''relat%C3%B3rio-%E5%90%8D.csv`,
    });
}

/**
 * A route's answer for a file its owner streams: the first message is awaited before answering,
 * so a refusal (unknown record, not ready, expired) is an error object rather than a cut stream;
 * then every message's bytes, with the file's type, name (attachment) and size when known.
 */
export async function fileDownload(messages: AsyncGenerator<FileMessage>, fallbackName: string): Promise<RouteResult> {
  const first = await messages.next();
  if (first.done) throw new Error(`the owner ended ${fallbackName} without a first message`);
  const head = first.value;
  const name = head.file_name || fallbackName;
  async function* bytes(): AsyncGenerator<Uint8Array> {
    if (head.data.length > 0) yield head.data;
    for await (const m of messages) yield m.data;
  }
  return {
    status: 200,
    stream: bytes(),
    headers: {
      'Content-Type': head.content_type ?? 'application/octet-stream',
      'Content-Disposition': attachmentHeader(name),
      ...(head.file_size !== undefined ? { 'Content-Length': String(head.file_size) } : {}),
    },
  };
}
