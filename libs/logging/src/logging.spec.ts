import { Writable } from 'node:stream';
import { createLogger, runWithContext } from './index';

function capture() {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk, _enc, cb) {
      lines.push(JSON.parse(chunk.toString()));
      cb();
    },
  });
  return { lines, destination };
}

describe('logger', () => {
  it('writes JSON with service, level label and the request id of the current context', async () => {
    const { lines, destination } = capture();
    const log = createLogger({ service: 'webhooks', version: '1.2.3', destination });
    runWithContext({ requestId: 'req-42' }, () => log.info({ x: 1 }, 'hello'));
    log.info('outside');
    await new Promise((r) => setImmediate(r));
    expect(lines[0]).toMatchObject({
      service: 'webhooks',
      version: '1.2.3',
      level: 'info',
      request_id: 'req-42',
      x: 1,
      msg: 'hello',
    });
    expect(lines[1].request_id).toBeUndefined();
  });

  it('redacts authorization headers and secrets', async () => {
    const { lines, destination } = capture();
    const log = createLogger({ service: 'gateway', destination });
    log.info({ req: { headers: { authorization: 'Bearer pim_abc_secret' } }, webhook: { secret: 'whsec_x' } }, 'req');
    await new Promise((r) => setImmediate(r));
    const text = JSON.stringify(lines[0]);
    expect(text).not.toContain('pim_abc_secret');
    expect(text).not.toContain('whsec_x');
    expect(text).toContain('[redacted]');
  });
});
