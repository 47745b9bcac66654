import { z } from 'zod';
import { ConfigError, baseSchema, flag, loadConfig, port, sensitive } from './index';

describe('loadConfig', () => {
  const schema = baseSchema.extend({ GRPC_PORT: port(50051), RELAY: flag(true) });

  it('fills defaults and coerces strings', () => {
    const cfg = loadConfig(schema, { GRPC_PORT: '6000', RELAY: 'false' });
    expect(cfg.GRPC_PORT).toBe(6000);
    expect(cfg.RELAY).toBe(false);
    expect(cfg.PIM_EVENTS_STREAM).toBe('PIM_EVENTS');
  });

  it('names every bad variable and what it held', () => {
    let caught: unknown;
    try {
      loadConfig(schema, { GRPC_PORT: 'abc', DATABASE_URL: 'mysql://x', RELAY: 'maybe' });
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    const msg = (caught as ConfigError).message;
    expect(msg).toContain('GRPC_PORT');
    expect(msg).toContain('"abc"');
    expect(msg).toContain('DATABASE_URL');
    expect(msg).toContain('RELAY');
    expect((caught as ConfigError).problems.map((p) => p.variable).sort()).toEqual([
      'DATABASE_URL',
      'GRPC_PORT',
      'RELAY',
    ]);
  });

  it('never repeats the value of a sensitive setting', () => {
    const secret = baseSchema.extend({ API_TOKEN: sensitive(z.string().regex(/^tok_/, 'must start with tok_')) });
    expect(() => loadConfig(secret, { API_TOKEN: 'hunter2' })).toThrow('API_TOKEN: must start with tok_');
    expect(() => loadConfig(secret, { API_TOKEN: 'hunter2' })).not.toThrow(/hunter2/);
  });

  it('reports a missing required variable', () => {
    expect(() => loadConfig(z.object({ SECRET: z.string() }), {})).toThrow(/SECRET/);
  });
});
