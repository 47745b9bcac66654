import type { RouteResult } from './route';

/** One message of a file streamed by its owner: the first names the file. */
export interface FileMessage {
  file_name?: string;
  content_type?: string;
  file_size?: number;
  data: Uint8Array;
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
  const name = head.file_name ?? fallbackName;
  async function* bytes(): AsyncGenerator<Uint8Array> {
    if (head.data.length > 0) yield head.data;
    for await (const m of messages) yield m.data;
  }
  return {
    status: 200,
    stream: bytes(),
    headers: {
      'Content-Type': head.content_type ?? 'application/octet-stream',
      'Content-Disposition': `attachment; filename="${name.replace(/["\\\r\n]/g, '_')}"`,
      ...(head.file_size !== undefined ? { 'Content-Length': String(head.file_size) } : {}),
    },
  };
}
